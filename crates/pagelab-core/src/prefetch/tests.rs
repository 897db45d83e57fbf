//! Spec parsing, and property tests of the protocol contracts for every prefetcher.

use super::testing::{Driver, BIG_FILE_PAGES, PAGE};
use super::*;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

#[test]
fn specs_parse_with_their_defaults() {
    let linux = |s: &str, page| match AnyPrefetcher::parse(s, page).unwrap() {
        AnyPrefetcher::Linux(l) => (l.ra_pages(), l.io_pages()),
        other => panic!("{s} gave {other:?}"),
    };
    assert_eq!(linux("linux", PAGE), (32, 32));
    assert_eq!(linux("linux:512KiB", PAGE), (128, 128));
    assert_eq!(linux(" Linux:1MiB ", PAGE), (256, 256));
    assert_eq!(linux("linux:ra=128KiB,io=1MiB", PAGE), (32, 256));
    assert_eq!(linux("linux:512KiB", 8192), (64, 64), "the page size converts KiB to pages");
    // On a queue of 1024-sector requests the kernel sets io_pages = 1024 >> 3 = 128; a configured one stays.
    let on_queue = |s: &str, sectors| match s.parse::<AnyPrefetcher>().unwrap().for_queue(sectors) {
        AnyPrefetcher::Linux(l) => (l.ra_pages(), l.io_pages(), l.spec()),
        other => panic!("{s} gave {other:?}"),
    };
    assert_eq!(on_queue("linux", 1024), (32, 128, "linux:128KiB".into()), "the queue's io_pages is no spec");
    assert_eq!(on_queue("linux:ra=128KiB,io=1MiB", 1024), (32, 256, "linux:ra=128KiB,io=1MiB".into()));
    assert_eq!(on_queue("linux:ra=128KiB,io=128KiB", 1024).1, 32, "configured equal to ra: kept");
    assert!(matches!("linux-2.6".parse::<AnyPrefetcher>().unwrap().for_queue(8), AnyPrefetcher::Linux26(_)));
    let tp = |s: &str| match s.parse::<AnyPrefetcher>().unwrap() {
        AnyPrefetcher::Fixed(f) => (f.trigger_distance_pages(), f.prefetch_degree_pages()),
        other => panic!("{s} gave {other:?}"),
    };
    assert_eq!(tp("tp:32-32"), (32, 32));
    assert_eq!(tp("tp:24-48"), (24, 48));
    assert_eq!(tp("tp"), (32, 32));
    assert_eq!(tp("tp:trigger=8,degree=64"), (8, 64));
    // Linux 2.6's every window is at most ra_pages.
    let linux26 = |s: &str, page| {
        let p = AnyPrefetcher::parse(s, page).unwrap();
        assert!(matches!(p, AnyPrefetcher::Linux26(_)), "{s} gave {p:?}");
        p.window_pages_max(1)
    };
    assert_eq!(linux26("linux-2.6", PAGE), 32, "VM_MAX_READAHEAD, 128 KiB");
    assert_eq!(linux26("linux-2.6:512KiB", PAGE), 128);
    assert_eq!(linux26("Linux-2.6:ra=1MiB", PAGE), 256);
    assert_eq!(linux26("linux26:16KiB", PAGE), 4);
    assert_eq!(linux26("linux-2.6:512KiB", 8192), 64);
    assert_eq!("linux-2.6".parse::<AnyPrefetcher>().unwrap().name(), "linux-2.6");
    assert!(matches!("none".parse::<AnyPrefetcher>().unwrap(), AnyPrefetcher::None(_)));
    assert!(matches!(AnyPrefetcher::default(), AnyPrefetcher::Linux(ref l) if l.ra_pages() == 32));
}

#[test]
fn specs_round_trip() {
    for s in [
        "none",
        "linux:128KiB",
        "linux:512KiB",
        "linux:ra=128KiB,io=1MiB",
        "linux:4MiB",
        "linux-2.6:128KiB",
        "linux-2.6:512KiB",
        "linux-2.6:12KiB",
        "linux-2.6:512KiB,congestion=ignore",
        "tp:32-32",
        "tp:24-48",
        "ets:24-48",
        "esf:16-32",
        "esf:24-48,period=50000000ns",
    ] {
        let p: AnyPrefetcher = s.parse().unwrap();
        assert_eq!(p.to_string(), s);
        assert_eq!(p.to_string().parse::<AnyPrefetcher>().unwrap().to_string(), s);
    }
    assert_eq!(AnyPrefetcher::parse("linux:12KiB", PAGE).unwrap().to_string(), "linux:12KiB");
    assert_eq!("linux-2.6".parse::<AnyPrefetcher>().unwrap().to_string(), "linux-2.6:128KiB");
    assert_eq!("linux26:ra=1MiB".parse::<AnyPrefetcher>().unwrap().to_string(), "linux-2.6:1MiB");
    assert_eq!("linux-2.6:congestion=skip".parse::<AnyPrefetcher>().unwrap().to_string(), "linux-2.6:128KiB");
    assert_eq!("ets".parse::<AnyPrefetcher>().unwrap().to_string(), "ets:24-48");
    assert_eq!("esf:trigger=8,period=100ms".parse::<AnyPrefetcher>().unwrap().to_string(), "esf:8-48");
}

#[test]
fn bad_specs_say_what_is_expected() {
    let err = |s: &str| s.parse::<AnyPrefetcher>().unwrap_err().to_string();
    assert!(matches!("lru".parse::<AnyPrefetcher>(), Err(CoreError::UnknownName { .. })));
    assert!(err("amp").contains("none, linux[:SIZE]"), "{}", err("amp"));
    assert!(err("ets:30-20").contains("must be in 1..=P (20)"), "{}", err("ets:30-20"));
    assert!(err("esf:period=0ms").contains("longer than zero"), "{}", err("esf:period=0ms"));
    assert!(err("esf:24-48,fixed").contains("unknown parameter"), "{}", err("esf:24-48,fixed"));
    assert!(err("linux:6000B").contains("not a whole number of 4096-byte pages"), "{}", err("linux:6000B"));
    assert!(err("linux:0KiB").contains("use `none`"), "{}", err("linux:0KiB"));
    assert!(err("linux:lots").contains("window"), "{}", err("linux:lots"));
    assert!(err("linux:8GiB").contains("exceeds the limit"), "{}", err("linux:8GiB"));
    assert!(err("linux:512KiB,ra=1MiB").contains("once"), "{}", err("linux:512KiB,ra=1MiB"));
    assert!(
        err("linux:512KiB,depth=3").contains("unknown parameter(s) depth"),
        "{}",
        err("linux:512KiB,depth=3")
    );
    assert!(err("tp:48-24").contains("must be in 1..=P (24)"), "{}", err("tp:48-24"));
    assert!(err("tp:0-32").contains("trigger distance T = 0"), "{}", err("tp:0-32"));
    assert!(err("tp:32").contains("expected T-P in pages"), "{}", err("tp:32"));
    assert!(err("tp:32-0").contains("prefetch degree P = 0"), "{}", err("tp:32-0"));
    assert!(err("none:4").contains("unknown parameter(s) 4"), "{}", err("none:4"));
    assert!(err("amp").contains("linux-2.6[:SIZE]"), "{}", err("amp"));
    assert!(err("linux-2.6:0KiB").contains("use `none`"), "{}", err("linux-2.6:0KiB"));
    assert!(err("linux-2.6:6000B").contains("not a whole number"), "{}", err("linux-2.6:6000B"));
    let e = err("linux-2.6:congestion=wait");
    assert!(e.contains("congestion = `wait`: expected `skip` (2.6.18) or `ignore`"), "{e}");
    assert!(
        err("linux-2.6:512KiB,ra=1MiB").contains("`linux-2.6:512KiB` or `ra=`"),
        "{}",
        err("linux-2.6:512KiB,ra=1MiB")
    );
    assert!(
        err("linux-2.6:ra=128KiB,io=1MiB").contains("unknown parameter(s) io"),
        "2.6 has no oversize-read bound: {}",
        err("linux-2.6:ra=128KiB,io=1MiB")
    );
}

/// One step of a random workload.
#[derive(Clone, Debug)]
enum Op {
    /// `stream` reads `len` pages of `file`, from where it stopped (`follow`) or from `start`.
    Read {
        stream: u32,
        file: u32,
        follow: bool,
        start: u64,
        len: u64,
    },
    CloseStream(u32),
    CloseFile {
        stream: u32,
        file: u32,
    },
    Evict {
        file: u32,
        page: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..4u32, 0..2u32, any::<bool>(), 0..600u64, 1..70u64)
            .prop_map(|(stream, file, follow, start, len)| Op::Read { stream, file, follow, start, len }),
        1 => (0..4u32).prop_map(Op::CloseStream),
        1 => (0..4u32, 0..2u32).prop_map(|(stream, file)| Op::CloseFile { stream, file }),
        2 => (0..2u32, 0..600u64).prop_map(|(file, page)| Op::Evict { file, page }),
    ]
}

const SPECS: [&str; 15] = [
    "ets:4-8,period=3ms",
    "esf",
    "none",
    "linux",
    "linux:512KiB",
    "linux:ra=64KiB,io=256KiB",
    "linux:4KiB",
    "linux-2.6",
    "linux-2.6:512KiB",
    "linux-2.6:16KiB",
    "linux-2.6:4KiB",
    "linux-2.6:32KiB,congestion=ignore",
    "tp:32-32",
    "tp:24-48",
    "tp:1-8",
];

/// Replays `ops`; the driver asserts every hook contract (demanded page inside the sync window, sizes in
/// `1..=window_pages_max`, async tail inside the window, no sync marker on the demanded page, scans
/// bounded; for `on_read`: a later next index, at most two unmarked windows inside the file). Here: states
/// never outnumber the open (stream, file) pairs, and closing frees them all; `linux-2.6` with 4 KiB
/// pages always asks to be called again past the page it was called at, and its windows stay in
/// `0..=ra_pages` with the reader never past them by more than its request.
fn replay(spec: &str, ops: &[Op], congested: &[bool]) {
    let file_pages = |f: u32| if f == 0 { 300 } else { BIG_FILE_PAGES };
    let mut d = Driver::new(AnyPrefetcher::parse(spec, PAGE).unwrap()).with_file_pages(FileId(0), 300);
    let mut congestion = congested.iter().cycle();
    let mut open: HashSet<(u32, u32)> = HashSet::new();
    let mut next: HashMap<(u32, u32), u64> = HashMap::new();
    for op in ops {
        // Time moves (a millisecond per operation), so the rate-aware prefetchers estimate and recompute.
        d.now = Nanos(d.now.0 + 1_000_000);
        match *op {
            Op::Read { stream, file, follow, start, len } => {
                let eof = file_pages(file);
                let from =
                    if follow { next.get(&(stream, file)).copied().unwrap_or(start) } else { start } % eof;
                let to = (from + len).min(eof);
                d.read_congested = *congestion.next().unwrap_or(&false);
                let step = d.read(StreamId(stream), FileId(file), from..to);
                if let AnyPrefetcher::Linux26(p) = &d.pf {
                    check_linux26(p, StreamId(stream), FileId(file), &step);
                }
                open.insert((stream, file));
                next.insert((stream, file), to);
            }
            Op::CloseStream(s) => {
                d.pf.stream_closed(StreamId(s));
                open.retain(|&(os, _)| os != s);
            }
            Op::CloseFile { stream, file } => {
                d.pf.file_closed(StreamId(stream), FileId(file));
                open.remove(&(stream, file));
            }
            Op::Evict { file, page } => d.evict(FileId(file), page),
        }
        let tracked = d.pf.tracked_states();
        assert!(tracked <= open.len(), "{spec}: {tracked} states for {} open pairs", open.len());
        if let AnyPrefetcher::Linux(_)
        | AnyPrefetcher::Linux26(_)
        | AnyPrefetcher::Fixed(_)
        | AnyPrefetcher::Scm(_) = d.pf
        {
            assert_eq!(tracked, open.len(), "{spec}: every open pair that read has a state");
        }
    }
    for s in 0..4 {
        d.pf.stream_closed(StreamId(s));
    }
    assert_eq!(d.pf.tracked_states(), 0, "{spec}: states left after every stream closed");
}

/// Linux 2.6's state after a read by (`stream`, `file`) that made the calls in `step`.
fn check_linux26(p: &Linux26Readahead, stream: StreamId, file: FileId, step: &testing::Step) {
    let ra = p.state(stream, file).expect("on_read made the state");
    for (index, plan) in &step.plans {
        assert!(plan.next_index != u64::MAX, "4 KiB pages: the call at {index} fell behind: {plan:?}");
    }
    assert!(ra.size <= ra.ra_pages, "{ra:?}");
    assert!(ra.ahead_start == 0 || (1..=ra.ra_pages).contains(&ra.ahead_size), "{ra:?}");
    assert!(ra.prev_page.is_some(), "every call moves prev_page: {ra:?}");
    assert!(!(ra.flag_incache && ra.size > 0), "RA_FLAG_INCACHE means readahead is off: {ra:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn hooks_keep_their_contracts(
        ops in prop::collection::vec(op(), 1..80),
        congested in prop::collection::vec(prop::bool::weighted(0.2), 1..16),
    ) {
        for spec in SPECS {
            replay(spec, &ops, &congested);
        }
    }
}

#[test]
fn window_helpers_clamp_to_eof() {
    let w = Window { start: 8, size: 8, async_size: 3 };
    assert_eq!((w.pages(100), w.marker_page(100)), (8..16, Some(13)));
    assert_eq!((w.pages(12), w.marker_page(12)), (8..12, None));
    assert_eq!((w.pages(5), w.marker_page(5)), (5..5, None));
    assert_eq!(Window::exact(3, 2).marker_page(100), None);
}
