//! `pagelab bench --quick --skip-libcachesim` through the library: every measurement is reported, every
//! rate is positive, every verdict agrees with the number it judges, and the miss counts obey what any
//! correct run must (cold misses, LRU's inclusion property). No timing assertion: speed targets live in
//! the benchmark, not in tests.

mod common;

use pagelab_cli::bench::{bench, render, BenchOptions, BenchReport, Parts};
use std::path::PathBuf;

/// The page records `pagelab trace convert` writes for P3 at 4 KiB (its 3,912,296 512-byte blocks
/// spread over request boundaries).
const P3_PAGE_REQUESTS: u64 = 611_918;
const QUICK_REQUESTS: u64 = 1_000_000;

fn quick_report() -> BenchReport {
    let options = BenchOptions {
        quick: true,
        venv: None,
        p3_trace: common::traces_dir().join("arc/P3.lis.zst"),
        pagelab_exe: PathBuf::from(env!("CARGO_BIN_EXE_pagelab")),
        progress: false,
        parts: Parts::ALL,
    };
    bench(&options).expect("the quick bench runs")
}

#[test]
fn quick_bench_reports_every_measurement() {
    let r = quick_report();
    assert!(r.quick && r.rounds == 1 && r.libcachesim_venv.is_none());
    assert!(r.machine.cores >= 1 && !r.machine.cpu_model.is_empty());
    check_traces(&r);
    check_policies(&r);
    check_mrc(&r);
    check_memory(&r);
    check_simulator(&r);
    check_cachesim(&r);
    check_whatif(&r);
    let s = &r.summary;
    assert_eq!(s.not_applicable, 12, "every ratio is n/a without libCacheSim");
    assert_eq!(
        s.passed + s.failed,
        4 + 1 + 1 + 1 + 1,
        "MRC rows, memory, simulator, cachesim and MemRx's overhead each have a verdict"
    );
    check_json_and_table(&r);
}

fn check_traces(r: &BenchReport) {
    let names: Vec<&str> = r.traces.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["zipf", "P3"]);
    assert_eq!(r.traces[0].requests, QUICK_REQUESTS);
    assert_eq!(r.traces[1].requests, P3_PAGE_REQUESTS);
    // One round; the shorter P3 runs ceil(1,000,000 / 611,918) = 2 times in it.
    assert_eq!(r.traces.iter().map(|t| t.runs).collect::<Vec<_>>(), [1, 2]);
    for t in &r.traces {
        assert!(t.distinct_pages > 0 && t.distinct_pages < t.requests, "{}: {t:?}", t.name);
    }
}

fn check_policies(r: &BenchReport) {
    assert_eq!(r.policies.len(), 4 * 3, "4 policies × (1 Zipf size + 2 P3 sizes)");
    let p3_distinct = r.traces[1].distinct_pages;
    let p3_sizes = [(p3_distinct as f64 * 0.1).round() as u64, (p3_distinct as f64 * 0.5).round() as u64];
    for p in &r.policies {
        let t = r.traces.iter().find(|t| t.name == p.trace).expect("a known trace");
        assert!(["lru", "clock", "arc", "lirs"].contains(&p.policy.as_str()), "{p:?}");
        let sizes: &[u64] = if p.trace == "zipf" { &[100_000] } else { &p3_sizes };
        assert!(sizes.contains(&p.size_pages), "{p:?}");
        assert_eq!(p.requests, t.requests, "{p:?}");
        // Every distinct page misses once; a cache smaller than the footprint cannot hit everything else.
        assert!(p.misses >= t.distinct_pages && p.misses < p.requests, "{p:?}");
        assert!(p.pagelab_file_rps > 0.0 && p.pagelab_memory_rps > 0.0, "{p:?}");
        assert!(p.libcachesim_rps.is_none() && p.libcachesim_misses.is_none() && p.ratio.is_none());
        assert!(p.ratio_rounds.is_empty() && p.ratio_best.is_none(), "{p:?}");
        assert!(p.pass.is_none(), "no verdict without libCacheSim: {p:?}");
        let want = if p.policy == "lru" || p.policy == "clock" { 3.0 } else { 2.0 };
        assert_eq!(p.target_ratio, want, "{p:?}");
    }
    // LRU's inclusion property: the larger P3 cache never misses more.
    let lru: Vec<u64> =
        r.policies.iter().filter(|p| p.trace == "P3" && p.policy == "lru").map(|p| p.misses).collect();
    assert!(lru.len() == 2 && lru[1] < lru[0], "P3 LRU misses at 10 % and 50 %: {lru:?}");
}

fn check_mrc(r: &BenchReport) {
    let rows: Vec<(&str, &str)> = r.mrc.iter().map(|m| (m.trace.as_str(), m.method.as_str())).collect();
    assert_eq!(
        rows,
        [("zipf", "exact"), ("zipf", "shards R=0.01"), ("P3", "exact"), ("P3", "shards R=0.01")]
    );
    for m in &r.mrc {
        let t = r.traces.iter().find(|t| t.name == m.trace).expect("a known trace");
        assert_eq!(m.requests, t.requests, "{m:?}");
        assert!(m.memory_rps > 0.0 && m.file_rps > 0.0, "{m:?}");
        assert_eq!(m.pass, m.memory_rps >= m.target_rps, "{m:?}");
    }
}

fn check_memory(r: &BenchReport) {
    let m = r.memory.as_ref().expect("the memory part ran");
    assert_eq!(m.sizes_pages, [1_000, 100_000]);
    // 99,000 more pages hold at least their 8-byte keys.
    assert!(m.peak_rss_bytes[1] > m.peak_rss_bytes[0] + 99_000 * 8, "{m:?}");
    assert!(m.slope_bytes_per_page > 8.0 && m.absolute_bytes_per_page > m.slope_bytes_per_page, "{m:?}");
    assert_eq!(m.pass, m.slope_bytes_per_page <= m.target_bytes_per_page, "{m:?}");
}

fn check_simulator(r: &BenchReport) {
    let s = r.simulator.as_ref().expect("the simulator part ran");
    assert!(s.pages_accessed > 0 && s.sim_seconds > 0.0, "{s:?}");
    assert!(s.wall_seconds >= 0.3, "the quick run simulates at least 0.3 s of wall time: {s:?}");
    let rate = s.pages_accessed as f64 / s.wall_seconds;
    assert!((s.pages_per_sec - rate).abs() <= 1e-6 * rate, "{s:?}");
    assert_eq!(s.pass, s.pages_per_sec >= s.target_pages_per_sec, "{s:?}");
    assert_eq!((s.memory_bytes, s.concurrency), (512 << 20, 100));
}

fn check_cachesim(r: &BenchReport) {
    let c = r.cachesim.as_ref().expect("the cachesim part ran");
    assert_eq!(c.requests, QUICK_REQUESTS);
    assert_eq!(c.default_mode, "stream", "one policy at one size streams by default");
    assert!(c.default_seconds > 0.0 && c.stream_seconds > 0.0, "{c:?}");
    assert_eq!(c.ratio_rounds.len(), 1, "{c:?}");
    assert_eq!(c.pass, c.ratio <= c.target_ratio_max, "{c:?}");
}

fn check_whatif(r: &BenchReport) {
    let w = r.whatif.as_ref().expect("the whatif part ran");
    assert!(w.seconds_without > 0.0 && w.seconds_with > 0.0, "{w:?}");
    assert_eq!(w.ratio_rounds.len(), 1, "{w:?}");
    // The VEC's space is a property of the structure, not of the machine: 23 bytes a page.
    assert!(w.vec_bytes_per_page > 20.0 && w.vec_bytes_per_page <= w.target_vec_bytes_per_page_max, "{w:?}");
    assert_eq!(w.pass, w.ratio <= w.target_ratio_max && w.vec_bytes_per_page <= 24.0, "{w:?}");
}

fn check_json_and_table(r: &BenchReport) {
    let json = serde_json::to_value(r).expect("the report serializes");
    for key in [
        "date_utc",
        "machine",
        "quick",
        "rounds",
        "libcachesim_venv",
        "traces",
        "policies",
        "mrc",
        "memory",
        "simulator",
        "cachesim",
        "whatif",
        "summary",
    ] {
        assert!(json.get(key).is_some(), "JSON has no `{key}`");
    }
    let row = &json["policies"][0];
    for key in [
        "pagelab_file_rps",
        "pagelab_memory_rps",
        "libcachesim_rps",
        "ratio",
        "ratio_rounds",
        "ratio_best",
        "ratio_memory",
        "pass",
    ] {
        assert!(row.get(key).is_some(), "policy rows have no `{key}`");
    }
    assert!(row["libcachesim_rps"].is_null() && row["pass"].is_null());
    let text = render(r);
    let verdict_lines = text
        .lines()
        .filter(|l| ["PASS", "FAIL"].iter().any(|v| l.ends_with(v) || l.contains(&format!(": {v};"))))
        .count();
    let na_lines = text.lines().filter(|l| l.ends_with("n/a") && l.contains("M/s")).count();
    assert_eq!(na_lines, 12, "{text}");
    assert_eq!(verdict_lines, 4 + 1 + 1 + 1 + 1, "MRC rows, memory, simulator, cachesim, whatif:\n{text}");
    assert!(text.contains("bytes/page") && text.contains("page accesses/s"), "{text}");
}
