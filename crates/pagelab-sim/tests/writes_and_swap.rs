//! The simulated server's write side end to end: file writes and writeback, anonymous memory and swap, the
//! out-of-memory end, and the CPU a fault costs. Each test hand-computes or bounds what it asserts.

use pagelab_core::Nanos;
use pagelab_sim::config::{MemoryModel, SimConfig, Warmup};
use pagelab_sim::metrics::RunMetrics;
use pagelab_sim::server::{simulate, SimError};
use pagelab_sim::workload::spec::parse_workload;

const MIB: u64 = 1 << 20;

fn run(cfg: SimConfig, workload: &str) -> Result<RunMetrics, SimError> {
    simulate(cfg, parse_workload(workload).unwrap())
}

/// A program that fits in memory costs exactly its compute and its first-touch faults: 10 passes over
/// 100 MiB (25,600 pages) at 100 ns a touch, plus 25,600 zero-fill faults at the default 2 µs a page.
/// Nothing is read or written, and the run says it completed.
#[test]
fn a_resident_allocation_costs_its_compute_and_its_first_faults() {
    let cfg = SimConfig { memory_bytes: 128 * MIB, duration: SimConfig::UNTIL_DONE, ..SimConfig::default() };
    let m = run(cfg, "vm-seq:size=100MiB,passes=10").unwrap();
    let pages = 25_600u64;
    let expected_ns = 10 * pages * 100 + pages * 2_000;
    assert!(m.workload_completed);
    assert_eq!((m.requests_completed, m.disk.requests, m.writes.swap_outs), (10, 0, 0));
    assert_eq!((m.cache.misses, m.cache.hits), (pages, 9 * pages), "the first pass faults, the rest hit");
    let ns = m.sim_seconds * 1e9;
    // The CPU model is the only clock here; a request's end is one event, so the sum is exact to rounding.
    assert!((ns - expected_ns as f64).abs() < 1_000.0, "{ns} ns, expected {expected_ns}");
}

/// Three passes over 64 MiB in 32 MiB of memory: every pass after the first reads the allocation back
/// from swap (faults and swap readahead), and every page it stores to is written out again. The swap
/// traffic conserves pages: each page swapped in was swapped out before.
#[test]
fn an_allocation_larger_than_memory_pages_through_swap() {
    let cfg = SimConfig { memory_bytes: 32 * MIB, duration: SimConfig::UNTIL_DONE, ..SimConfig::default() };
    let m = run(cfg, "vm-seq:size=64MiB,passes=3").unwrap();
    let w = &m.writes;
    let pages = 16_384u64;
    assert!(m.workload_completed);
    assert!(w.swap_outs >= 2 * pages, "two passes' worth pushed out at least: {w:?}");
    assert!(w.swap_ins + w.swap_ins_readahead >= 2 * (pages - 8_192), "passes 2 and 3 read back: {w:?}");
    assert!(w.swap_ins + w.swap_ins_readahead <= w.swap_outs, "a page comes back only after it left: {w:?}");
    assert!(m.disk.read_requests > 0 && m.disk.write_requests > 0 && m.disk.rw_switches > 0, "{:?}", m.disk);
    assert_eq!(m.disk.pages_written, w.swap_outs, "every page written went to swap");
    // Swap readahead reads clusters of 8 slots: far fewer read requests than pages read.
    assert!(m.disk.read_requests * 4 < m.disk.pages_read, "{:?}", m.disk);
}

/// Memory and swap together smaller than the allocation: the run ends with the out-of-memory error (what the
/// OOM killer would act on), instead of spinning. The task's congestion waits end on their timer, and each
/// retry wakes kswapd, which frees nothing: the run ends within a wait or two of memory and swap filling
/// (swap fills at about 2.2 s), not after retrying forever.
#[test]
fn an_allocation_beyond_memory_and_swap_is_out_of_memory() {
    let cfg = SimConfig {
        memory_bytes: 32 * MIB,
        swap_bytes: Some(16 * MIB),
        duration: SimConfig::UNTIL_DONE,
        ..SimConfig::default()
    };
    let err = run(cfg, "vm-seq:size=64MiB,passes=1").unwrap_err();
    assert!(matches!(err, SimError::OutOfMemory { stalled: 1, at_s, .. } if at_s < 2.5), "{err}");
    assert!(err.to_string().contains("--memory or --swap"), "{err}");
    // Without swap at all, the same.
    let cfg = SimConfig {
        memory_bytes: 32 * MIB,
        swap_bytes: Some(0),
        duration: SimConfig::UNTIL_DONE,
        ..SimConfig::default()
    };
    assert!(matches!(run(cfg, "vm-seq:size=64MiB,passes=1"), Err(SimError::OutOfMemory { .. })));
}

/// Random 16 KiB writes to 100 files of 4 MiB through 64 MiB: pdflush and reclaim write the dirty pages
/// back (nothing is read: every write covers whole pages), dirty memory stays under the dirty limit on
/// average, and writers above it are throttled. Writes reach the disk as write requests only.
#[test]
fn file_writes_are_written_back_and_writers_throttled() {
    let cfg = SimConfig {
        memory_bytes: 64 * MIB,
        concurrency: 4,
        duration: Nanos::from_secs(60),
        warmup: Warmup::Fixed(Nanos::from_secs(10)),
        ..SimConfig::default()
    };
    let m = run(cfg, "write:files=100,file_size=4MiB,block=16KiB").unwrap();
    let w = &m.writes;
    assert!(w.pages_dirtied > 0 && w.written_writeback > 0, "{w:?}");
    assert_eq!(m.disk.pages_read, 0, "whole-page writes read nothing");
    assert!(m.disk.write_requests > 0 && m.disk.read_requests == 0, "{:?}", m.disk);
    // Dirty pages are bounded by the 40 % dirty ratio of usable memory (about 24 MiB of 59).
    assert!(w.dirty_bytes_mean < 0.45 * (m.memory.usable_bytes as f64), "{w:?}");
    assert!(w.throttles > 0, "writers faster than the disk sleep above the dirty limit: {w:?}");
    // What was written is what was dirtied (less what is still dirty or in flight at the end).
    let written = w.written_writeback + w.written_reclaim;
    assert!(written <= w.pages_dirtied + (m.memory.usable_bytes / 4096), "{written} written of {w:?}");
}

/// The exact memory model has no kernel, and a run with writes under it conserves as well: every dirty
/// victim is written before it is freed, so pages written by reclaim equal the dirty evictions.
#[test]
fn reclaim_writes_dirty_victims_before_freeing_them_under_exact_memory() {
    let cfg = SimConfig {
        memory_bytes: 16 * MIB,
        memory_model: MemoryModel::Exact,
        duration: Nanos::from_secs(30),
        warmup: Warmup::Fixed(Nanos::ZERO),
        ..SimConfig::default()
    };
    let m = run(cfg, "write:files=50,file_size=4MiB,block=4KiB,mode=seq").unwrap();
    assert!(m.writes.written_reclaim + m.writes.written_writeback > 0, "{:?}", m.writes);
    assert!(m.cache.evictions > 0);
    assert_eq!(m.memory.kswapd_wakeups, 0, "no kswapd without a kernel");
}
