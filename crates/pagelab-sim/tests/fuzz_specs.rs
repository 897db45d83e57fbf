//! Fuzzing in the normal `cargo test`: every parser of a command-line value (sizes, durations, cache
//! sizes, policy, prefetcher, scheduler, device and workload specs, device TOML) on arbitrary and
//! spec-shaped text, through the harness the cargo-fuzz target `sim_specs` uses
//! (`pagelab_sim::fuzzing`), with the heap's peak measured by a counting global allocator; and the
//! committed corpus of that target. 64 cases per property unless `PROPTEST_CASES` says otherwise.

use pagelab_sim::fuzzing::{fuzz_specs, HEAP_BOUND_BYTES};
use pagelab_trace::fuzzing::{peak_heap, proptest_cases, CountingAllocator, MEASURING};
use proptest::prelude::*;
use std::path::PathBuf;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn check(text: &str) -> Result<(), TestCaseError> {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let ((), peak) = peak_heap(|| fuzz_specs(text));
    prop_assert!(peak <= HEAP_BOUND_BYTES, "{peak} bytes of heap for `{text}`");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases()))]

    #[test]
    fn arbitrary_text(text in ".{0,80}") {
        check(&text)?;
    }

    #[test]
    fn sizes_and_durations(text in "[0-9.e+-]{0,24}(|[kKmMgGtT]|[KMGT]i?B|b|%|ns|us|µs|ms|s|m|min|h)") {
        check(&text)?;
    }

    #[test]
    fn name_value_specs(text in "(lru|arc|linux|tp|deadline|as|cfq|noop|simple|hdd|ssd|one-rand|random|seq|two-rand)(:((files|file_size|block|length|length_min|length_max|files_per_request|read_expire|write_expire|fifo_batch|antic_expire|slice_idle|slice_sync|quantum|back_seek_max|window)=[0-9a-zA-Z.,-]{0,10},?){0,4})?") {
        check(&text)?;
    }

    /// `--whatif` specs.
    #[test]
    fn whatif_specs(text in "((up-to|step|vec)=[0-9a-zA-Z]{0,8},?){0,4}") {
        check(&text)?;
    }

    /// MemRx's jobs with their own keys (`workload::memrx`).
    #[test]
    fn memrx_workload_specs(text in "(fs-seq|fs-seq-mt|fs-random|dbench|mogrify|cpu-sim|wd1200bb)(:((size|file_size|section|total|passes|block|threads|scan|clients|files|iterations|write|op_cpu|width|height|scale|page_cpu|decode_cpu|hot|instructions|insn_cpu|touch_every|cold)=[0-9a-zA-Z.]{0,10},?){0,4})?") {
        check(&text)?;
    }

    /// DULO's workloads (`workload::dulo`): small scales only, so that each case builds in milliseconds.
    #[test]
    fn dulo_workload_specs(text in "(viewperf-like|tpch-like|glimpse-like|multi1-like|multi2-like)(:((scale=(0\\.0[0-9]{0,2}|[a-z-][0-9a-z.]{0,3}|[5-9][0-9]{0,3})|seed=[0-9a-z-]{0,8}|passes=[0-9]),?){0,3})?") {
        check(&text)?;
    }

    /// DULO's policy specs (`--policy dulo:bank=…`).
    #[test]
    fn dulo_policy_specs(text in "(dulo|dulo-linux|clock)(:((bank|evicting|max_sequence|rule|tracks)=[0-9a-zA-Z.]{0,8},?){0,4})?") {
        check(&text)?;
    }

    /// Zhang et al.'s streams and prefetchers (`workload::scm`, `prefetch::scm`), and their disk.
    #[test]
    fn scm_specs(text in "(rate-streams|spc2-vod|file-transfer|ets|esf|st3500320as)(:((rates|cv|random|random_block|random_size|span|streams|tpch|clients|trigger|degree|period)=[0-9a-zA-Z./-]{0,10},?){0,4})?") {
        check(&text)?;
    }

    #[test]
    fn device_toml(
        kind in prop::sample::select(vec!["hdd", "ssd", "simple", "tape"]),
        lines in prop::collection::vec(
            "(name|capacity_sectors|channels|seek_ms|rotation_ms|transfer_sector_ms|read_random_us|surfaces|rpm) = (\"x\"|-?[0-9]{1,20}(\\.[0-9]{1,4})?|inf|nan)",
            0..12,
        ),
    ) {
        check(&format!("kind = \"{kind}\"\n{}\n", lines.join("\n")))?;
    }
}

/// The committed corpus of the `sim_specs` fuzz target: CI's bounded fuzz run.
#[test]
fn the_committed_corpus_replays_clean() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/sim_specs");
    let mut inputs = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        check(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        inputs += 1;
    }
    assert!(inputs >= 10, "the corpus holds {inputs} inputs");
}

/// Li & Shen's application workloads at their largest parameters (2^23 files; the most terms whose lists
/// fit the partitions, and 2^23 terms, which do not), MemRx's jobs and Zhang et al.'s streams at theirs, build
/// or are refused within the heap bound.
#[test]
fn the_largest_application_workloads_stay_within_the_heap_bound() {
    for text in [
        "media-clips:files=8388608",
        "index-search:terms=4600000,list_max=4KiB",
        "index-search:terms=8388608,list_max=4KiB",
        // MemRx's jobs at their largest: 1024 clients of 10,000 files each, a 1 TiB file, 2^31 pixels.
        "dbench:clients=1024,files=10000,file_size=4KiB",
        "fs-seq:file_size=1TiB,size=1TiB,threads=1024",
        "fs-random:file_size=1TiB,section=1TiB,total=16TiB,threads=1024",
        "mogrify:width=1000000,height=2147",
        "cpu-sim:size=1TiB,hot=1TiB,instructions=1000000000000",
        // Zhang et al.'s at theirs: 4096 streams, an hour of 10^7 pages/s.
        "spc2-vod:streams=4096,span=1h",
        "file-transfer:clients=4096",
        "rate-streams:rates=10000000/10000000,cv=100/0,random=4000,span=3600s",
    ] {
        check(text).unwrap_or_else(|e| panic!("{e}"));
    }
}
