//! The entry point of the fuzz harnesses for the parsers of the command line's values — sizes, durations,
//! cache sizes, and the `name:key=value` specs of policies, prefetchers, schedulers, devices (names and
//! TOML descriptions) and workloads — shared by the cargo-fuzz target `sim_specs` in `fuzz/` and the
//! property tests in `tests/fuzz_specs.rs` (FUZZING.md). The rules: no panic; every rejection is a message
//! (never empty); what parses is built as the simulator would build it (a device, a workload, a
//! scheduler), within [`HEAP_BOUND_BYTES`].
//!
//! Not an API to program against (hidden from the documentation).

use crate::device::DeviceSpec;
use crate::sched::SchedulerSpec;
use crate::workload::spec::parse_workload;
use pagelab_core::policy::PolicyKind;
use pagelab_core::prefetch::AnyPrefetcher;
use pagelab_core::units::{parse_bytes, parse_duration_ns, parse_sizes, CacheSize};

/// The heap any one spec may take when parsed and built: the largest legitimate one is a workload of 2^24
/// files, 8 bytes each (128 MiB).
pub const HEAP_BOUND_BYTES: u64 = 160 << 20;

/// One fuzz input: `text` through every parser; panics (a finding) when a rule is broken.
pub fn fuzz_specs(text: &str) {
    let rejected = |what: &str, message: String| {
        assert!(!message.trim().is_empty(), "{what}: an empty rejection of `{text}`");
    };
    // Sizes and durations quote what they reject.
    for (what, result) in
        [("size", parse_bytes(text).map(|_| ())), ("duration", parse_duration_ns(text).map(|_| ()))]
    {
        if let Err(e) = result {
            assert!(e.to_string().contains(text), "{what}: a rejection that does not quote `{text}`: {e}");
        }
    }
    match CacheSize::parse(text) {
        Ok(size) => assert!(size.pages(4096, 1000) >= 1, "a cache size of no page from `{text}`"),
        Err(e) => assert!(e.to_string().contains(text), "cache size: `{text}` not quoted: {e}"),
    }
    if let Err(e) = parse_sizes(text) {
        rejected("sizes", e.to_string());
    }
    if let Err(e) = text.parse::<PolicyKind>() {
        rejected("policy", e.to_string());
    }
    match crate::config::parse_policy(text) {
        Err(e) => rejected("policy spec", e.to_string()),
        // What parses, round-trips: the echoed spec is the same configuration.
        Ok((kind, dulo, tracks)) => {
            let echoed = crate::config::policy_spec(kind, &dulo, tracks);
            let again = crate::config::parse_policy(&echoed).expect("an echoed policy spec parses");
            assert_eq!((kind, dulo, tracks), again, "`{text}` echoed as `{echoed}`");
        }
    }
    if let Err(e) = text.parse::<AnyPrefetcher>() {
        rejected("prefetcher", e.to_string());
    }
    match SchedulerSpec::parse(text) {
        Ok(s) => drop(s.build()),
        Err(e) => rejected("scheduler", e.to_string()),
    }
    // Paths are opened, not parsed: only names and TOML text are fuzzed.
    if !text.trim().to_ascii_lowercase().ends_with(".toml") {
        match DeviceSpec::parse(text) {
            Ok(d) => drop(d.build()),
            Err(e) => rejected("device", e.to_string()),
        }
        match parse_workload(text) {
            Ok(w) => drop(w),
            Err(e) => rejected("workload", e.to_string()),
        }
    }
    match DeviceSpec::from_toml_str(text, "<fuzz>") {
        Ok(d) => drop(d.build()),
        Err(e) => rejected("device TOML", e.to_string()),
    }
    // `--whatif`: a spec that parses gives a VEC for some memory, or a refusal that says why.
    match crate::config::WhatIfConfig::parse(text) {
        Ok(w) => match w.geometry(128 << 20) {
            Ok(g) => assert!(g.capacity_pages() >= 1, "a VEC of no page from `{text}`"),
            Err(e) => rejected("whatif geometry", e.to_string()),
        },
        Err(e) => rejected("whatif", e.to_string()),
    }
}
