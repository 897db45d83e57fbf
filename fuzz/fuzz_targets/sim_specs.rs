//! Sizes, durations, cache sizes and the policy, prefetcher, scheduler, device and workload specs on
//! arbitrary text: `pagelab_sim::fuzzing::fuzz_specs` (FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagelab_sim::fuzzing::fuzz_specs(&String::from_utf8_lossy(data)));
