//! The `lirs` trace format(s) on arbitrary bytes: `pagelab_trace::fuzzing::fuzz_one` (FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagelab_trace::fuzzing::fuzz_one("lirs", data));
