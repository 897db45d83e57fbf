//! Trace format names, `csv:` specs and `synth:` specs on arbitrary text:
//! `pagelab_trace::fuzzing::fuzz_trace_spec` (FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pagelab_trace::fuzzing::fuzz_trace_spec(&String::from_utf8_lossy(data));
});
