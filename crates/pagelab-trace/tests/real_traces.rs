//! The real traces in `<repo>/data/traces`, read through the public API, checked against the counts
//! in their README (and against each other where two files hold the same trace).

use pagelab_trace::write::{next_vtimes, write_oracle_general, OracleOptions};
use pagelab_trace::{open_trace, AddrUnit, Format, OpenOptions, Request, TimeUnit, TraceReader, NO_NEXT};
use std::collections::HashSet;
use std::path::PathBuf;

fn traces_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/traces");
    assert!(dir.join("README.md").is_file(), "the shipped traces are missing: expected {}", dir.display());
    dir
}

fn open(name: &str, format: &str) -> Box<dyn TraceReader> {
    let path = traces_dir().join(name);
    open_trace(path.to_str().unwrap(), format, &OpenOptions::default())
        .unwrap_or_else(|e| panic!("opening {name}: {e}"))
}

fn all(reader: &mut dyn TraceReader) -> Vec<Request> {
    let mut out = Vec::new();
    while reader.next_batch(&mut out, 1 << 16).unwrap() > 0 {}
    out
}

#[test]
fn lirs_traces_match_the_readme() {
    // (file, requests, distinct blocks, `*` markers). The README lists glimpse as 6,016 / 2,530: it
    // counted the file's trailing blank line as a request (and the empty string as a block); the file has
    // 6,015 ids in 2,529 distinct blocks.
    let expected = [
        ("multi1", 15_858, 2_606, 0),
        ("multi2", 26_311, 5_684, 0),
        ("gli", 6_015, 2_529, 0),
        ("cpp", 9_047, 1_223, 0),
        ("cs", 6_781, 1_409, 2),
        ("ps", 10_448, 3_083, 0),
        ("sprite", 133_996, 7_075, 0),
        ("2_pools", 100_000, 9_939, 2),
        ("loop", 505_500, 1_011, 0),
    ];
    for (name, requests, distinct, markers) in expected {
        let mut reader = open(&format!("lirs/{name}.trace.gz"), "auto");
        assert_eq!(reader.addr_unit(), AddrUnit::Object, "{name}");
        let reqs = all(reader.as_mut());
        let blocks: HashSet<u64> = reqs.iter().map(|r| r.addr).collect();
        assert_eq!((reqs.len(), blocks.len()), (requests, distinct), "{name}: requests, distinct blocks");
        assert_eq!(reader.ignored_records(), markers, "{name}: `*` markers");
        assert!(reqs.iter().all(|r| r.size_bytes == 0 && r.next_vtime == NO_NEXT), "{name}");
    }
}

#[test]
fn arc_p3_has_238578_requests_of_3912296_blocks() {
    let mut reader = open("arc/P3.lis.zst", "auto");
    assert_eq!(reader.addr_unit(), AddrUnit::Bytes(512));
    let reqs = all(reader.as_mut());
    assert_eq!(reqs.len(), 238_578);
    let blocks: u64 = reqs.iter().map(|r| r.size_bytes as u64 / 512).sum();
    assert_eq!(blocks, 3_912_296);
    assert_eq!((reqs[0].addr, reqs[0].size_bytes), (230027, 8 * 512));
    assert_eq!((reqs[238_577].addr, reqs[238_577].size_bytes), (4201916, 8 * 512));
}

#[test]
fn cloudphysics_csv_and_oracle_general_hold_the_same_trace() {
    let csv = all(open("libcachesim/cloudPhysicsIO.csv", "auto").as_mut());
    let mut oracle_reader =
        open("libcachesim/cloudPhysicsIO.oracleGeneral.bin", "oracle-general:time-unit=s");
    assert!(oracle_reader.has_next_vtime());
    assert_eq!(oracle_reader.requests_hint(), Some(113_872));
    let oracle = all(oracle_reader.as_mut());
    assert_eq!((csv.len(), oracle.len()), (113_872, 113_872));
    assert_eq!((csv[0].op, csv[0].size_bytes, csv[0].addr), (pagelab_trace::Op::Write, 512, 42932745));
    assert_eq!(csv.iter().filter(|r| r.op == pagelab_trace::Op::Read).count(), 46_974);

    // Same (lbn, time) sequence; the sizes agree where libCacheSim's converter left them alone: it pins
    // every object to the size of its first request (13,671 requests differ).
    let mut first_size = std::collections::HashMap::new();
    let mut resized = 0;
    for (i, (c, o)) in csv.iter().zip(&oracle).enumerate() {
        assert_eq!((c.addr, c.time_ns), (o.addr, o.time_ns), "request {i}");
        let pinned = *first_size.entry(c.addr).or_insert(c.size_bytes);
        assert_eq!(o.size_bytes, pinned, "request {i}: oracle size is the object's first size");
        resized += (c.size_bytes != o.size_bytes) as u32;
    }
    assert_eq!(resized, 13_671);

    // The file's next-access times are the reverse-pass ones.
    let keys: Vec<u64> = oracle.iter().map(|r| r.addr).collect();
    let next: Vec<u64> = oracle.iter().map(|r| r.next_vtime).collect();
    assert_eq!(next, next_vtimes(&keys));
}

#[test]
fn converting_the_cloudphysics_csv_reproduces_libcachesims_binary() {
    let mut csv = open("libcachesim/cloudPhysicsIO.csv", "csv:cloudphysics");
    let mut bytes = Vec::new();
    let options = OracleOptions { time_unit: TimeUnit::S, keep_first_size: true };
    assert_eq!(write_oracle_general(csv.as_mut(), &mut bytes, "mem", options).unwrap(), 113_872);
    let shipped = std::fs::read(traces_dir().join("libcachesim/cloudPhysicsIO.oracleGeneral.bin")).unwrap();
    assert!(bytes == shipped, "conversion differs from libCacheSim's traceConv output");
}

#[test]
fn auto_detection_names_every_shipped_trace() {
    let cases = [
        ("lirs/multi1.trace.gz", "lirs"),
        ("arc/P3.lis.zst", "arc"),
        ("libcachesim/cloudPhysicsIO.csv", "csv:cloudphysics"),
        ("libcachesim/cloudPhysicsIO.oracleGeneral.bin", "oracle-general:time-unit=s"),
    ];
    for (name, want) in cases {
        let path = traces_dir().join(name);
        let (_, format): (_, Format) =
            pagelab_trace::open_trace_as(path.to_str().unwrap(), "auto", &OpenOptions::default()).unwrap();
        assert_eq!(format.to_string(), want, "{name}");
    }
}

#[test]
fn statistics_of_block_traces_match_an_independent_count() {
    use pagelab_trace::stats::{trace_stats, SIZE_BUCKETS};
    use pagelab_trace::PageExpander;
    // Expected values from a separate Python pass over the decompressed files (same definitions: 4 KiB
    // pages, sequential = starts at the previous request's end).
    let mut p3 = open("arc/P3.lis.zst", "auto");
    let s = trace_stats(p3.as_mut(), PageExpander::new(AddrUnit::Bytes(512), 4096, false), 102_348).unwrap();
    assert_eq!(
        (s.requests, s.pages, s.distinct_pages, s.sequential_requests),
        (238_578, 611_918, 102_348, 28_334)
    );
    assert_eq!((s.reads, s.writes, s.others, s.streams), (238_578, 0, 0, 1));
    let mut histogram = [0u64; SIZE_BUCKETS];
    for (bucket, count) in
        [(10, 8321), (11, 11703), (12, 9355), (13, 153765), (14, 13812), (15, 19816), (16, 20170), (17, 1636)]
    {
        histogram[bucket] = count;
    }
    assert_eq!(s.size_histogram, histogram);
    assert_eq!((s.first_time_ns, s.last_time_ns), (Some(0), Some(0)), "ARC traces carry no time");

    // One distinct page fewer than P3 holds: refused, the bound and the trace named.
    let mut p3 = open("arc/P3.lis.zst", "auto");
    let err =
        trace_stats(p3.as_mut(), PageExpander::new(AddrUnit::Bytes(512), 4096, false), 102_347).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("P3.lis.zst") && message.contains("more than 102347 distinct pages"),
        "{message}"
    );

    let mut cp = open("libcachesim/cloudPhysicsIO.csv", "auto");
    let s = trace_stats(cp.as_mut(), PageExpander::new(AddrUnit::Bytes(512), 4096, false), u64::MAX).unwrap();
    assert_eq!(
        (s.requests, s.pages, s.distinct_pages, s.sequential_requests),
        (113_872, 1_141_869, 269_210, 29_558)
    );
    assert_eq!((s.reads, s.writes), (46_974, 66_898));
    assert_eq!(s.first_time_ns, Some(5_633_898_000_000_000));
}
