//! Hand-traced tests of the buffer cache's protocol, its memory model and its driver affordances, and the
//! property tests of its invariants under every policy.

use super::*;
use crate::cache::KeyedCache;
use crate::memory::{ReclaimCosts, Watermarks, DEF_PRIORITY};
use crate::policy::{Access, AnyPolicy};
use proptest::prelude::*;

/// Files laid out back to back: file f's page i is at LBN f * 1000 + i.
pub(super) struct Flat;
impl Layout for Flat {
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        out.push(DiskRun { file_page: start, lbn: Lbn(file.0 as u64 * 1000 + start), pages: n });
    }
}

type Observed = (Counters, ThrashDetector);

fn cache_with(memory: MemoryConfig, prefetch: &str, policy: PolicyKind) -> BufferCache<Observed> {
    cache_with_pc(memory, prefetch, policy, "access-history")
}

/// A cache with a prefetch cache (`pc-coldest+`, ...) or none (`access-history`).
fn cache_with_pc(
    memory: MemoryConfig,
    prefetch: &str,
    policy: PolicyKind,
    pc: &str,
) -> BufferCache<Observed> {
    let mut config = BufferCacheConfig::new(memory, policy, prefetch.parse().unwrap());
    config.prefetch_cache = PrefetchCacheConfig::parse(pc, 1).unwrap();
    BufferCache::with_observer(config, (Counters::default(), ThrashDetector::new(64))).unwrap()
}

/// A cache of exactly `pages` frames (no kernel), LRU.
fn cache(pages: u32, prefetch: &str) -> BufferCache<Observed> {
    cache_with(MemoryConfig::exact(pages), prefetch, PolicyKind::Lru)
}

fn stats(c: &BufferCache<Observed>) -> Counters {
    c.observer().0
}

/// (first page, pages) of each fetch.
fn spans(out: &ReadOutcome) -> Vec<(u64, u32)> {
    out.fetches.iter().map(|f| (f.first_page, f.pages)).collect()
}

fn begin(c: &mut BufferCache<Observed>, stream: u32, file: u32, first: u64, last: u64) -> ReadCursor {
    c.begin_read(Nanos(0), StreamId(stream), FileId(file), first, last, 1000).unwrap()
}

/// Read `[first, last)` of `file` to the end, completing every fetch at once. Returns the fetches issued.
fn read_through(c: &mut BufferCache<Observed>, stream: u32, file: u32, first: u64, last: u64) -> Vec<Fetch> {
    let mut cur = begin(c, stream, file, first, last);
    let mut out = ReadOutcome::default();
    let mut issued = Vec::new();
    for step in 0..64 {
        c.read(Nanos(step), &mut cur, &Flat, &mut out).unwrap();
        for f in out.fetches.clone() {
            c.fetch_done(Nanos(step), &f).unwrap();
            issued.push(f);
        }
        if out.status == ReadStatus::Done {
            return issued;
        }
    }
    panic!("read of [{first}, {last}) did not finish");
}

/// Stream 1 reads pages `0..pages` of file 2 one page a call; the (first page, pages, sync) of every fetch.
fn one_page_reads(c: &mut BufferCache<Observed>, pages: u64) -> Vec<(u64, u32, bool)> {
    (0..pages)
        .flat_map(|page| read_through(c, 1, 2, page, page + 1))
        .map(|f| (f.first_page, f.pages, f.sync))
        .collect()
}

#[test]
fn demand_read_without_prefetching() {
    let mut c = cache(8, "none");
    let mut out = ReadOutcome::default();
    let mut cur = begin(&mut c, 1, 0, 0, 2);
    c.read(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    // The whole request is one window: pages 0-1 in one fetch, reader blocked on it.
    assert_eq!(spans(&out), vec![(0, 2)]);
    let fetch = out.fetches[0];
    assert!(fetch.sync && fetch.lbn == Lbn(0));
    assert_eq!(out.status, ReadStatus::Blocked { fetch: fetch.id });
    assert_eq!((c.in_flight_pages(), c.resident_pages()), (2, 0));
    c.fetch_done(Nanos(10), &fetch).unwrap();
    assert_eq!((c.in_flight_pages(), c.resident_pages()), (0, 2));
    c.read(Nanos(10), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::Done);
    assert_eq!(out.pages_delivered, 2);
    let s = stats(&c);
    // Both pages of the call were absent: two misses, nothing prefetched.
    assert_eq!((s.misses, s.hits, s.inflight_waits), (2, 0, 0));
    assert_eq!((s.pages_fetched, s.pages_prefetched, s.prefetched_used), (2, 0, 0));
    // Reading again hits.
    let mut cur = begin(&mut c, 1, 0, 0, 2);
    c.read(Nanos(20), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!((out.status, out.pages_delivered), (ReadStatus::Done, 2));
    assert_eq!(stats(&c).hits, 2);
}

/// A file system's own aligned readahead (ext4's inode-table reads), under a prefetcher that would read
/// ahead: a miss at page 37 with 32-page stretches fetches 32..64, page 37 demanded and the rest
/// prefetched; a later miss in a stretch with cached pages fetches only the runs between them; the last
/// stretch is clipped at the file's end; the page cache's readahead is never consulted, so sequential
/// one-page reads bring no window of its own.
#[test]
fn an_aligned_readahead_reads_the_stretch_around_a_miss() {
    let mut c = cache(256, "linux-2.6");
    let mut out = ReadOutcome::default();
    let read = |c: &mut BufferCache<Observed>, page: u64, out: &mut ReadOutcome| {
        let mut cur = c
            .begin_read(Nanos(page), StreamId(1), FileId(0), page, page + 1, 100)
            .unwrap()
            .aligned_readahead(32, 32)
            .unwrap();
        c.read(Nanos(page), &mut cur, &Flat, out).unwrap();
        let fetches = out.fetches.clone();
        for f in &fetches {
            c.fetch_done(Nanos(page), f).unwrap();
        }
        if !fetches.is_empty() {
            c.read(Nanos(page), &mut cur, &Flat, out).unwrap();
        }
        assert_eq!(out.status, ReadStatus::Done, "page {page}");
        fetches.iter().map(|f| (f.first_page, f.pages, f.sync)).collect::<Vec<_>>()
    };
    assert_eq!(read(&mut c, 37, &mut out), vec![(32, 32, true)]);
    let s = stats(&c);
    assert_eq!((s.misses, s.pages_fetched, s.pages_prefetched), (1, 32, 31));
    // Sequential reads on from 37 hit the stretch and read nothing ahead, up to its end.
    for page in 38..64 {
        assert_eq!(read(&mut c, page, &mut out), vec![], "page {page}");
    }
    assert_eq!(stats(&c).hits, 26);
    // Page 70 is cached alone; a miss at 66 then reads 64..70 and 71..96 around it.
    assert_eq!(read(&mut c, 70, &mut out), vec![(64, 32, true)]);
    let mut c = cache(256, "linux-2.6");
    let mut cur = c.begin_read(Nanos(0), StreamId(1), FileId(0), 70, 71, 100).unwrap();
    out.clear();
    c.read(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    let plain: Vec<(u64, u32)> = spans(&out);
    assert_eq!(plain, vec![(70, 1)], "the page cache's own readahead reads a lone random page alone");
    for f in out.fetches.clone() {
        c.fetch_done(Nanos(0), &f).unwrap();
    }
    assert_eq!(read(&mut c, 66, &mut out), vec![(64, 6, true), (71, 25, false)]);
    // The last stretch, 96..100, is clipped at the file's 100 pages.
    assert_eq!(read(&mut c, 99, &mut out), vec![(96, 4, true)]);
}

/// The reader's page comes before the stretch around it (ext4's `__ext4_get_inode_loc()` gets the inode's
/// block before it reads ahead the aligned stretch from below it). With memory for four pages, a miss at page
/// 37 in a stretch of 32..65 gets 37 first and then 32..35, where memory ends and the stretch with it: 37 is
/// read alone and the reader waits for it. Allocated in page order, 32..36 took the memory and 37 was never
/// had: the reader missed again, and when memory was short it reclaimed its own stretch over and over.
#[test]
fn an_aligned_readahead_gets_the_readers_page_before_the_stretch_below_it() {
    let mut c = cache(4, "linux-2.6");
    let mut out = ReadOutcome::default();
    let mut cur = c
        .begin_read(Nanos(0), StreamId(1), FileId(0), 37, 38, 100)
        .unwrap()
        .aligned_readahead(32, 33)
        .unwrap();
    c.read(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    let shape: Vec<_> = out.fetches.iter().map(|f| (f.first_page, f.pages, f.sync)).collect();
    assert_eq!(shape, vec![(32, 3, false), (37, 1, true)]);
    let fetch = out.fetches[1].id;
    assert_eq!(out.status, ReadStatus::Blocked { fetch });
    for f in out.fetches.clone() {
        c.fetch_done(Nanos(1), &f).unwrap();
    }
    c.read(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!((out.status, stats(&c).misses), (ReadStatus::Done, 1));
    // With room for the whole stretch, it is one fetch as before: the order of allocation changes nothing.
    let mut c = cache(64, "linux-2.6");
    let mut cur = c
        .begin_read(Nanos(0), StreamId(1), FileId(0), 37, 38, 100)
        .unwrap()
        .aligned_readahead(32, 33)
        .unwrap();
    out.clear();
    c.read(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(spans(&out), vec![(32, 33)]);
}

/// An aligned read that meets a page carrying the page cache's readahead marker leaves the marker for the
/// page cache's own reads: the modern readahead's first window 0-3 marks page 1; an aligned read of page 1
/// starts no window, and a plain read of it then starts 4-11.
#[test]
fn an_aligned_read_leaves_the_readahead_marker_alone() {
    let mut c = cache(64, "linux");
    assert_eq!(
        read_through(&mut c, 1, 2, 0, 1).iter().map(|f| (f.first_page, f.pages)).collect::<Vec<_>>(),
        [(0, 4)]
    );
    let mut out = ReadOutcome::default();
    let mut cur = begin(&mut c, 1, 2, 1, 2).aligned_readahead(8, 8).unwrap();
    c.read(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!((out.status, spans(&out)), (ReadStatus::Done, vec![]));
    assert_eq!(
        read_through(&mut c, 1, 2, 1, 2).iter().map(|f| (f.first_page, f.pages)).collect::<Vec<_>>(),
        [(4, 8)]
    );
}

/// readahead.md §6 through the cache: windows 0-3 (mark 1), 4-11 (mark 4), 12-27 (mark 12).
#[test]
fn linux_readahead_pipeline() {
    let mut c = cache(64, "linux");
    let fetched = one_page_reads(&mut c, 13);
    assert_eq!(fetched, vec![(0, 4, true), (4, 8, false), (12, 16, false), (28, 32, false)]);
    let s = stats(&c);
    assert_eq!((s.misses, s.hits), (1, 12));
    assert_eq!((s.pages_prefetched, s.prefetched_used), (59, 12));
}

/// Linux 2.6.18's windows through the cache (the hand trace of `prefetch::linux26`'s ramp test): read 0
/// opens the current window 0-3, a synchronous fetch (page 0 is the call's demand); read 1 issues the
/// ahead window 4-11, reads 4 and 12 cross into the ahead window and issue 12-27 and 28-59. Every later
/// window is readahead the reader does not wait for.
#[test]
fn linux_2_6_readahead_current_and_ahead_windows() {
    let mut c = cache(64, "linux-2.6");
    let fetched = one_page_reads(&mut c, 13);
    assert_eq!(fetched, vec![(0, 4, true), (4, 8, false), (12, 16, false), (28, 32, false)]);
    let s = stats(&c);
    assert_eq!((s.misses, s.hits), (1, 12));
    assert_eq!((s.pages_prefetched, s.prefetched_used), (59, 12));

    // Reads of 32 pages (= max): the first opens 0-31 (all demand) and forces the ahead window 32-63 at
    // once; each next read shifts and issues the window after it, which nobody waits for yet.
    let mut c = cache(256, "linux-2.6");
    let mut fetched = Vec::new();
    for first in [0u64, 32, 64] {
        fetched.extend(
            read_through(&mut c, 1, 2, first, first + 32).iter().map(|f| (f.first_page, f.pages, f.sync)),
        );
    }
    assert_eq!(fetched, vec![(0, 32, true), (32, 32, false), (64, 32, false), (96, 32, false)]);
    assert_eq!(stats(&c).misses, 32, "only the first read waited");
}

/// Li & Shen's makeup reads under Linux 2.6.18: stream 1 reads pages 0 and 1 (windows 0-3 and 4-11),
/// stream 2's sixteen scattered reads (random: one page each) evict all twelve; stream 1 coming back
/// finds page 2 missing inside its current window: one 1-page fetch, counted as thrashing. Page 3 the
/// same. At page 4 the reader crosses into the ahead window: the next window is shrunk by the misses to
/// max(8 - 2, 4) = 6 pages (12-17), and page 4 itself is a third makeup read.
#[test]
fn linux_2_6_thrashing_is_one_page_makeup_reads() {
    let mut c = cache(16, "linux-2.6");
    let spans_of = |f: Vec<Fetch>| f.iter().map(|f| (f.first_page, f.pages, f.sync)).collect::<Vec<_>>();
    assert_eq!(spans_of(read_through(&mut c, 1, 0, 0, 1)), [(0, 4, true)]);
    assert_eq!(spans_of(read_through(&mut c, 1, 0, 1, 2)), [(4, 8, false)]);
    for p in 0..16u64 {
        let page = 100 + 10 * p;
        assert_eq!(
            spans_of(read_through(&mut c, 2, 1, page, page + 1)),
            [(page, 1, true)],
            "random: no readahead"
        );
    }
    let s = stats(&c);
    assert_eq!((s.evictions, s.evicted_unused), (12, 10), "pages 2-11 were prefetched and never read");
    assert_eq!(c.observer().1.thrash_pages, 0);
    assert_eq!(spans_of(read_through(&mut c, 1, 0, 2, 3)), [(2, 1, true)], "one 4 KiB makeup read");
    assert_eq!(c.observer().1.thrash_pages, 1);
    assert_eq!(spans_of(read_through(&mut c, 1, 0, 3, 4)), [(3, 1, true)]);
    assert_eq!(spans_of(read_through(&mut c, 1, 0, 4, 5)), [(12, 6, false), (4, 1, true)]);
    assert_eq!(c.observer().1.thrash_pages, 3);
}

#[test]
fn pinned_memory_stalls_reads_and_prefetch_is_dropped() {
    let mut c = cache(4, "none");
    let mut out = ReadOutcome::default();
    let mut a = begin(&mut c, 1, 0, 0, 4);
    c.read(Nanos(0), &mut a, &Flat, &mut out).unwrap();
    let fa = out.fetches[0];
    assert_eq!(spans(&out), vec![(0, 4)]);
    // Every frame is in flight: another reader cannot get memory.
    let mut b = begin(&mut c, 2, 1, 0, 1);
    c.read(Nanos(1), &mut b, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::NoMemory);
    assert!(out.fetches.is_empty());
    assert_eq!(stats(&c).reclaim_stalls, 1);
    c.fetch_done(Nanos(2), &fa).unwrap();
    // Now a victim exists.
    c.read(Nanos(3), &mut b, &Flat, &mut out).unwrap();
    assert_eq!(spans(&out), vec![(0, 1)]);
    let s = stats(&c);
    assert_eq!(
        (s.misses, s.evictions),
        (2, 1),
        "a's pages 1-3 are not met yet; b's retry is not a second miss"
    );
}

/// A window ends at the first page it cannot give memory, as 2.6's `__do_page_cache_readahead()` breaks out
/// of its allocation loop: a's window (0-3) holds four of the five frames in flight, b's window (0-3) gets
/// the fifth for its demanded page 0, page 1 finds nothing, and pages 2 and 3 are not tried (one drop, not
/// three; before, each was tried and dropped in turn).
#[test]
fn a_window_ends_at_its_first_page_without_memory() {
    let mut c = cache(5, "linux");
    let mut out = ReadOutcome::default();
    let mut a = begin(&mut c, 1, 0, 0, 1);
    c.read(Nanos(0), &mut a, &Flat, &mut out).unwrap();
    assert_eq!(spans(&out), vec![(0, 4)]);
    let mut b = begin(&mut c, 2, 1, 0, 1);
    c.read(Nanos(1), &mut b, &Flat, &mut out).unwrap();
    assert_eq!(spans(&out), vec![(0, 1)], "the demanded page alone");
    assert_eq!(out.status, ReadStatus::Blocked { fetch: out.fetches[0].id });
    let s = stats(&c);
    assert_eq!((s.prefetch_dropped, s.pages_prefetched), (1, 3), "page 1 dropped, 2 and 3 never tried");
    assert_eq!(c.in_flight_pages(), 5);
}

#[test]
fn thrashing_is_a_miss_by_the_owner_on_its_evicted_prefetch() {
    // Stream 1 reads page 0: Linux readahead brings 0-3 (1-3 prefetched). Stream 2's scattered reads
    // then evict all four; stream 1 coming back for page 3 is prefetch thrashing.
    let mut c = cache(6, "linux");
    assert_eq!(
        read_through(&mut c, 1, 0, 0, 1).iter().map(|f| (f.first_page, f.pages)).collect::<Vec<_>>(),
        [(0, 4)]
    );
    for p in [10u64, 20, 30, 40, 50, 60] {
        let f = read_through(&mut c, 2, 1, p, p + 1);
        assert_eq!(f.iter().map(|f| (f.first_page, f.pages)).collect::<Vec<_>>(), [(p, 1)], "not read ahead");
    }
    let s = stats(&c);
    assert_eq!((s.evictions, s.evicted_unused), (4, 3), "pages 1-3 were prefetched and never read");
    let mut out = ReadOutcome::default();
    let mut a3 = begin(&mut c, 1, 0, 3, 4);
    c.read(Nanos(5), &mut a3, &Flat, &mut out).unwrap();
    assert_eq!(c.observer().1.thrash_pages, 1);
    // Another stream missing on page 2 is not thrashing (not the owner).
    let mut b2 = begin(&mut c, 2, 0, 2, 3);
    c.read(Nanos(6), &mut b2, &Flat, &mut out).unwrap();
    assert_eq!(c.observer().1.thrash_pages, 1);
}

/// Issue #10's reproduction through the buffer cache: a two-frame ARC with T2 = [2 1]; a miss on 3 makes
/// 1 a B2 ghost; then two readers miss on 1 and on 4, so frames for both are taken (each with an eviction)
/// before either fetch completes. 1 must land in T2 (case III), as `cachesim` puts it.
#[test]
fn arc_keeps_ghost_hits_of_pages_in_flight_together() {
    let mut c = cache_with(MemoryConfig::exact(2), "none", PolicyKind::Arc);
    for page in [1, 2, 1, 2, 3] {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!(c.policy_state(), "T1=[3] T2=[2] B1=[] B2=[1] p=0");
    let mut out = ReadOutcome::default();
    let (mut r1, mut r4) = (begin(&mut c, 1, 0, 1, 2), begin(&mut c, 2, 0, 4, 5));
    c.read(Nanos(1), &mut r1, &Flat, &mut out).unwrap();
    let f1 = out.fetches[0];
    c.read(Nanos(2), &mut r4, &Flat, &mut out).unwrap();
    let f4 = out.fetches[0];
    c.fetch_done(Nanos(3), &f1).unwrap();
    c.fetch_done(Nanos(4), &f4).unwrap();
    assert_eq!(c.policy_state(), "T1=[4] T2=[1] B1=[3] B2=[2] p=0");
    let mut demand = KeyedCache::new(AnyPolicy::new(PolicyKind::Arc, 2));
    for (t, k) in [1, 2, 1, 2, 3, 1, 4].into_iter().enumerate() {
        demand.access(&Access::demand(k, t as u64));
    }
    assert_eq!(c.policy_state(), demand.state());
}

/// Issue #10's 2Q reproduction: four frames (Kin = 1, Kout = 2), 1 in A1out, frames for 1 and 5 taken
/// before either arrives: 1 must reach Am.
#[test]
fn two_q_keeps_a1out_hits_of_pages_in_flight_together() {
    let mut c = cache_with(MemoryConfig::exact(4), "none", PolicyKind::TwoQ);
    for page in [1, 2, 3, 4, 6] {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!(c.policy_state(), "A1in=[6 4 3 2] Am=[] A1out=[1]");
    let mut out = ReadOutcome::default();
    let (mut r1, mut r5) = (begin(&mut c, 1, 0, 1, 2), begin(&mut c, 2, 0, 5, 6));
    c.read(Nanos(1), &mut r1, &Flat, &mut out).unwrap();
    let f1 = out.fetches[0];
    c.read(Nanos(2), &mut r5, &Flat, &mut out).unwrap();
    let f5 = out.fetches[0];
    c.fetch_done(Nanos(3), &f1).unwrap();
    c.fetch_done(Nanos(4), &f5).unwrap();
    assert_eq!(c.policy_state(), "A1in=[5 6 4] Am=[1] A1out=[3 2]");
}

/// A prefetched page's first read is its first reference: under ARC it stays in T1 (a second reference
/// would move it to T2), under 2Q in A1in, under CLOCK it gets no reference bit, under LIRS it becomes LIR
/// only as warm-up makes any first reference.
#[test]
fn a_prefetched_page_first_read_is_its_first_reference() {
    let expect = [
        (PolicyKind::Arc, "T1=[1 3+ 2+ 0] T2=[] B1=[] B2=[] p=0"),
        (PolicyKind::TwoQ, "A1in=[3 2 1 0] Am=[] A1out=[]"),
        (PolicyKind::Clock, "[3+ 2+ 1 0]"),
        (PolicyKind::TwoList, "active=[] inactive=[3 2 1* 0*]"),
        (PolicyKind::Lirs, "S=[1L 0L] Q=[3+ 2+]"),
        (PolicyKind::Lru, "[1 3 2 0]"),
        (PolicyKind::Fifo, "[3 2 1 0]"),
        (PolicyKind::Dulo, "C=[] B=[3+ 2+ 1 0] E=[]"),
    ];
    for (kind, state) in expect {
        let mut c = cache_with(MemoryConfig::exact(16), "linux", kind);
        let mut out = ReadOutcome::default();
        // A 4-page file: page 0 misses and Linux's initial window brings 0-3, 1-3 prefetched (mark on 1);
        // reading page 1 then finds the mark, but the next window is past EOF.
        for page in [0, 1] {
            let mut r = c.begin_read(Nanos(page), StreamId(1), FileId(0), page, page + 1, 4).unwrap();
            c.read(Nanos(page), &mut r, &Flat, &mut out).unwrap();
            for f in out.fetches.clone() {
                c.fetch_done(Nanos(page), &f).unwrap();
            }
            c.read(Nanos(page), &mut r, &Flat, &mut out).unwrap();
            assert_eq!(out.status, ReadStatus::Done);
        }
        assert_eq!(c.policy_state(), state, "{kind}");
        assert_eq!((stats(&c).pages_prefetched, stats(&c).prefetched_used), (3, 1));
    }
}

/// With no kernel model and one-page reads, the buffer cache makes exactly `cachesim`'s decisions: every
/// miss and hit equal, under every policy that a driver without the future can run.
#[test]
fn buffer_cache_equals_a_demand_cache_on_one_page_reads() {
    let keys: Vec<u64> = (0..4000u64).map(|i| (i * 7919 + i / 13 * 31) % 97 + (i % 5) * (i % 3)).collect();
    for kind in PolicyKind::ALL.into_iter().filter(|k| !k.needs_future()) {
        for size in [1u32, 4, 16, 50] {
            assert_oracle(kind, size, &keys);
        }
    }
}

fn assert_oracle(kind: PolicyKind, size: u32, keys: &[u64]) {
    let mut c = cache_with(MemoryConfig::exact(size), "none", kind);
    let mut demand = KeyedCache::new(AnyPolicy::new(kind, size));
    for (t, &k) in keys.iter().enumerate() {
        let before = stats(&c).misses;
        read_through(&mut c, 1, 0, k, k + 1);
        let missed = stats(&c).misses > before;
        let hit = demand.access(&Access::demand(k, t as u64));
        assert_eq!(missed, !hit, "{kind} at {size} pages: reference {t} (key {k})");
    }
    assert_eq!(c.policy_state(), demand.state(), "{kind} at {size} pages: final queues");
}

/// A kernel-like memory of 100 usable pages: min 10, low 20, high 30, batches of 8.
fn kernel_memory() -> MemoryConfig {
    MemoryConfig {
        total_pages: 110,
        reserved_pages: 10,
        held_pages: 0,
        watermarks: Watermarks { min: 10, low: 20, high: 30 },
        kswapd: true,
        direct_batch_pages: 8,
        kswapd_batch_pages: 8,
        scan_priority: Some(DEF_PRIORITY),
        costs: ReclaimCosts::LINUX_2_6,
    }
}

/// Pages fill memory to `low` without reclaim; the allocation at `low` wakes kswapd; reads keep taking
/// pages down to `min`; the next allocation reclaims its batch directly (charged to the reader); kswapd's
/// steps then free batches until more than `high` pages are free, and it sleeps.
#[test]
fn direct_reclaim_below_min_and_kswapd_between_low_and_high() {
    let mut c = cache_with(kernel_memory(), "none", PolicyKind::Lru);
    for page in 0..80 {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!((c.memory().free, c.kswapd_awake()), (20, false));
    read_through(&mut c, 1, 0, 80, 81);
    assert!(c.kswapd_awake(), "the allocation that found 20 free woke kswapd");
    for page in 81..90 {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!(
        (c.memory().free, c.memory_stats().direct_reclaims),
        (10, 0),
        "down to min, no direct reclaim"
    );
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 1, 0, 90, 91);
    c.read(Nanos(5), &mut r, &Flat, &mut out).unwrap();
    assert_eq!(out.direct_reclaims, 1);
    assert_eq!(
        out.direct_reclaim,
        ReclaimCost { scanned: 8, freed: 8, ..ReclaimCost::default() },
        "LRU scans only its victims"
    );
    assert_eq!(c.reclaim_time(out.direct_reclaim), Nanos(8 * 250 + 8 * 750));
    assert_eq!(c.memory().free, 17, "8 freed, 1 taken");
    let mut steps = 0;
    while let Some(cost) = c.kswapd_step(Nanos(6), &mut Vec::new()) {
        assert_eq!(cost.freed, 8);
        steps += 1;
        assert!(steps < 10);
    }
    assert_eq!((steps, c.memory().free, c.kswapd_awake()), (2, 33, false), "17 + 16 > high = 30: asleep");
    let m = c.memory_stats();
    assert_eq!((m.kswapd_wakeups, m.kswapd_steps, m.kswapd.freed, m.direct.freed), (1, 2, 16, 8));
    assert_eq!(stats(&c).evictions, 24);
}

/// Memory has filled once free memory reaches `low`, and it stays filled by that test once kswapd has
/// woken, though kswapd lifts free memory above `low` again: the steady-state test of the simulator's
/// warm-up and of the live benchmarks'.
#[test]
fn memory_fills_at_low_and_stays_filled_once_kswapd_has_woken() {
    let mut c = cache_with(kernel_memory(), "none", PolicyKind::Lru);
    for page in 0..79 {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!((c.memory().free, c.memory_filled()), (21, false));
    read_through(&mut c, 1, 0, 79, 80);
    assert_eq!((c.memory().free, c.memory_filled()), (20, true), "free at low");
    read_through(&mut c, 1, 0, 80, 81);
    assert!(c.kswapd_awake());
    for _ in 0..10 {
        if c.kswapd_step(Nanos(6), &mut Vec::new()).is_none() {
            break;
        }
    }
    assert!(!c.kswapd_awake() && c.memory().free > 20, "kswapd freed past high and sleeps");
    assert!(c.memory_filled(), "above low again, but kswapd has woken");
}

/// A kernel's reclaim pass at `DEF_PRIORITY` frees `1/2^priority` of the reclaim list, not stopping at
/// its target: here priority 3 (to keep the test small) on a list of 90 pages frees 11 against a batch of
/// 8; kswapd's steps likewise; on a list too short for the share, a pass frees exactly its batch.
#[test]
fn a_reclaim_pass_frees_its_share_of_a_long_list() {
    let mut c =
        cache_with(MemoryConfig { scan_priority: Some(3), ..kernel_memory() }, "none", PolicyKind::Lru);
    for page in 0..90 {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!((c.memory().free, c.memory_stats().direct_reclaims), (10, 0), "down to min");
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 1, 0, 90, 91);
    c.read(Nanos(5), &mut r, &Flat, &mut out).unwrap();
    assert_eq!((out.direct_reclaims, out.direct_reclaim.freed), (1, 90 >> 3), "90 on the list: 11 freed");
    assert_eq!(c.memory().free, 20, "11 freed, 1 taken");
    // 79 on the list (page 90 is still in flight, off the lists): a step frees 9; then at 70 the share (8)
    // is the batch.
    let freed: Vec<u64> =
        std::iter::from_fn(|| c.kswapd_step(Nanos(6), &mut Vec::new())).map(|cost| cost.freed).collect();
    assert_eq!(freed, [9, 8], "free 20 -> 29 (not above high) -> 37: asleep");
}

/// Under the two-list policy a reclaim also ages active pages onto the inactive list: they count in the
/// scan's cost, but not in what the shrinker is told was scanned (`sc->nr_scanned` is the inactive list's).
#[test]
fn aging_costs_scan_time_but_is_not_the_reclaim_lists_scan() {
    let mut c = cache_with(kernel_memory(), "none", PolicyKind::TwoList);
    for pass in 0..2 {
        for page in 0..40 {
            read_through(&mut c, 1, 0, page, page + 1);
        }
        assert_eq!(c.memory().free, 60, "pass {pass}: the second touches promote, taking no memory");
    }
    for page in 40..90 {
        read_through(&mut c, 1, 0, page, page + 1);
    }
    assert_eq!(c.policy_state().matches('*').count(), 50, "40 active, 50 inactive (referenced)");
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 1, 0, 90, 91);
    c.read(Nanos(5), &mut r, &Flat, &mut out).unwrap();
    let cost = out.direct_reclaim;
    assert_eq!((out.direct_reclaims, cost.freed, cost.list_scanned()), (1, 8, 8));
    assert!(cost.aged > 0 && cost.scanned == 8 + cost.aged, "{cost:?}");
}

/// Every page in flight: reclaim finds nothing, the read stalls, kswapd goes to sleep instead of spinning.
#[test]
fn nothing_reclaimable_stalls_and_kswapd_does_not_spin() {
    let mut c = cache_with(kernel_memory(), "none", PolicyKind::Lru);
    let mut out = ReadOutcome::default();
    let mut big = begin(&mut c, 1, 0, 0, 95);
    c.read(Nanos(0), &mut big, &Flat, &mut out).unwrap();
    assert_eq!(c.in_flight_pages(), 90, "pages down to min taken; the last five refused");
    assert_eq!(out.status, ReadStatus::Blocked { fetch: out.fetches[0].id });
    assert!(c.kswapd_awake());
    let cost = c.kswapd_step(Nanos(1), &mut Vec::new()).expect("awake");
    assert_eq!(cost, ReclaimCost::default());
    assert!(!c.kswapd_awake(), "a step without progress puts kswapd to sleep");
    assert_eq!(c.kswapd_step(Nanos(2), &mut Vec::new()), None);
    let mut other = begin(&mut c, 2, 1, 0, 1);
    c.read(Nanos(3), &mut other, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::NoMemory);
}

#[test]
fn bad_calls_are_errors_not_panics() {
    let mut c = cache(4, "none");
    assert!(matches!(c.begin_read(Nanos(0), StreamId(1), FileId(0), 5, 5, 10), Err(CoreError::BadRead(_))));
    assert!(matches!(c.begin_read(Nanos(0), StreamId(1), FileId(0), 0, 11, 10), Err(CoreError::BadRead(_))));
    assert!(matches!(
        c.begin_read(Nanos(0), StreamId(1), FileId(1 << 30), 0, 1, 10),
        Err(CoreError::BadRead(_))
    ));
    // A file larger than a page key can name: refused by reads and writes alike (a write used to be
    // accepted, and its pages past the last key panicked in `PageKey::new`).
    let huge = PageKey::INDEX_MAX + 2;
    for result in [
        c.begin_read(Nanos(0), StreamId(1), FileId(0), 0, 1, huge).map(|_| ()),
        c.begin_write(Nanos(0), StreamId(1), FileId(0), 0, 4096, huge).map(|_| ()),
    ] {
        let Err(CoreError::BadRead(why)) = result else { panic!("{result:?}") };
        assert!(why.contains("does not fit a page key"), "{why}");
    }
    assert_eq!(c.stream_cpu(Nanos(0), StreamId(9), 5), Err(CoreError::UnknownStream(9)));
    let fake = Fetch {
        id: 1,
        file: FileId(0),
        first_page: 0,
        lbn: Lbn(0),
        pages: 1,
        sync: true,
        write: false,
        owner: StreamId(1),
    };
    assert_eq!(c.fetch_done(Nanos(0), &fake), Err(CoreError::UnknownFetch(1)));
    // A fetch the cache issued, altered by the driver, is not the fetch it issued: refused, and the real
    // one still completes.
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 1, 0, 2, 4);
    c.read(Nanos(0), &mut r, &Flat, &mut out).unwrap();
    let issued = out.fetches[0];
    for altered in [
        Fetch { pages: issued.pages + 1, ..issued },
        Fetch { first_page: issued.first_page + 1, ..issued },
        Fetch { file: FileId(1), ..issued },
    ] {
        assert_eq!(c.fetch_done(Nanos(1), &altered), Err(CoreError::UnknownFetch(issued.id)), "{altered:?}");
        assert_eq!(c.fetch_failed(Nanos(1), &altered), Err(CoreError::UnknownFetch(issued.id)));
    }
    c.fetch_done(Nanos(1), &issued).unwrap();
    let done = read_through(&mut c, 1, 0, 0, 1)[0];
    assert_eq!(c.fetch_done(Nanos(1), &done), Err(CoreError::UnknownFetch(done.id)), "completed twice");
    assert_eq!(c.fetch_failed(Nanos(1), &done), Err(CoreError::UnknownFetch(done.id)));
    assert_eq!(c.unpin(Pin { file: FileId(0), index: 0, slot: 0 }), Err(CoreError::BadPin(0)));
    assert_eq!(c.unpin(Pin { file: FileId(0), index: 0, slot: 99 }), Err(CoreError::BadPin(99)));
    assert!(matches!(c.anon_released(Nanos(2), FileId::ANON_REGIONS), Err(CoreError::BadRead(_))));
    for (alignment, pages) in [(0, 8), (9, 8)] {
        let cursor = begin(&mut c, 1, 0, 0, 1).aligned_readahead(alignment, pages);
        assert!(matches!(cursor, Err(CoreError::BadRead(_))), "{alignment} {pages}");
    }
}

/// A read that returned `Done`, read again, returns `Done` and does nothing: no page delivered, no fetch,
/// no access counted, the policy's order unchanged, and the prefetcher not told again (a second
/// `read_done` of an old call would move its idea of where the stream is reading back to that call's end).
#[test]
fn a_finished_read_read_again_is_done_and_changes_nothing() {
    let mut c = cache(16, "linux");
    let mut out = ReadOutcome::default();
    let read_to_done = |c: &mut BufferCache<Observed>, r: &mut ReadCursor, out: &mut ReadOutcome| {
        for step in 0..4 {
            c.read(Nanos(step), r, &Flat, out).unwrap();
            for f in out.fetches.clone() {
                c.fetch_done(Nanos(step), &f).unwrap();
            }
            if out.status == ReadStatus::Done {
                return;
            }
        }
        panic!("the read did not finish: {:?}", out.status);
    };
    let mut first = begin(&mut c, 1, 0, 0, 3);
    read_to_done(&mut c, &mut first, &mut out);
    let mut second = begin(&mut c, 1, 0, 3, 6);
    read_to_done(&mut c, &mut second, &mut out);
    let prev_pos =
        |c: &BufferCache<Observed>| c.prefetcher.ra_state(StreamId(1), FileId(0)).unwrap().prev_pos;
    assert_eq!(prev_pos(&c), Some(6 * crate::PAGE_SIZE_BYTES));
    let (counts, order) = (stats(&c), c.policy_state());
    c.read(Nanos(9), &mut first, &Flat, &mut out).unwrap();
    assert_eq!((out.status, out.pages_delivered, out.fetches.len()), (ReadStatus::Done, 0, 0));
    assert_eq!((stats(&c), c.policy_state()), (counts, order));
    assert_eq!(
        prev_pos(&c),
        Some(6 * crate::PAGE_SIZE_BYTES),
        "the prefetcher heard the first read end again"
    );
}

/// A pinned read hands out slots; a pinned page can be evicted, but its slot stays held (and counted as
/// used memory) until the pin is given back; a fetch names the slots it reads into.
#[test]
fn pins_keep_slots_until_unpinned() {
    let mut c = cache(2, "none");
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 1, 0, 0, 1).pinned();
    c.read(Nanos(0), &mut r, &Flat, &mut out).unwrap();
    let f = out.fetches[0];
    let mut slots = Vec::new();
    c.fetch_slots(&f, &mut slots).unwrap();
    assert_eq!(slots, vec![0]);
    c.fetch_done(Nanos(1), &f).unwrap();
    c.read(Nanos(1), &mut r, &Flat, &mut out).unwrap();
    let pin = out.pins.pop().expect("page 0 pinned");
    assert_eq!((pin.index, pin.slot), (0, 0));
    read_through(&mut c, 1, 0, 1, 2);
    // Page 2 needs memory: page 0 (LRU) is evicted but its slot stays pinned, so page 1 goes too.
    let mut r2 = begin(&mut c, 1, 0, 2, 3);
    c.read(Nanos(2), &mut r2, &Flat, &mut out).unwrap();
    c.fetch_slots(&out.fetches[0], &mut slots).unwrap();
    assert_eq!(slots, vec![1], "the pinned slot 0 is not reused");
    assert_eq!((c.memory().pinned_only, out.direct_reclaims), (1, 2));
    // Page 2 in flight, slot 0 pinned: nothing to free for page 3.
    let mut r3 = begin(&mut c, 1, 0, 3, 4);
    c.read(Nanos(3), &mut r3, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::NoMemory);
    c.unpin(pin).unwrap();
    assert_eq!((c.memory().pinned_only, c.memory().free), (0, 1));
    c.read(Nanos(4), &mut r3, &Flat, &mut out).unwrap();
    assert!(matches!(out.status, ReadStatus::Blocked { .. }), "the slot came back");
    assert_eq!(stats(&c).evictions, 2);
}

/// An I/O error frees the fetch's pages; the blocked reader, resumed, misses again and fetches anew.
#[test]
fn a_failed_fetch_releases_its_pages_and_a_retry_refetches() {
    let mut c = cache(4, "none");
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 1, 0, 0, 2);
    c.read(Nanos(0), &mut r, &Flat, &mut out).unwrap();
    let f = out.fetches[0];
    c.fetch_failed(Nanos(1), &f).unwrap();
    assert_eq!((c.in_flight_pages(), c.memory().free), (0, 4));
    c.read(Nanos(2), &mut r, &Flat, &mut out).unwrap();
    assert_eq!(spans(&out), vec![(0, 2)]);
    assert_ne!(out.fetches[0].id, f.id);
    let s = stats(&c);
    assert_eq!((s.misses, s.fetches_failed, s.removed), (1, 1, 2), "page 0 counted once; page 1 not met yet");
}

/// Invalidation drops a file's resident pages at once and its pages in flight when they arrive.
#[test]
fn invalidation_drops_resident_pages_and_in_flight_ones_on_arrival() {
    let mut c = cache(8, "none");
    read_through(&mut c, 1, 0, 0, 2);
    read_through(&mut c, 1, 1, 0, 1);
    let mut out = ReadOutcome::default();
    let mut r = begin(&mut c, 2, 0, 5, 6);
    c.read(Nanos(0), &mut r, &Flat, &mut out).unwrap();
    let f = out.fetches[0];
    assert_eq!(c.invalidate(Nanos(1), FileId(0)), 3);
    assert_eq!((c.resident_pages(), c.in_flight_pages()), (1, 1));
    c.fetch_done(Nanos(2), &f).unwrap();
    assert_eq!((c.resident_pages(), c.in_flight_pages(), c.memory().free), (1, 0, 7));
    c.read(Nanos(3), &mut r, &Flat, &mut out).unwrap();
    assert_eq!(spans(&out), vec![(5, 1)], "the stale page is fetched again");
    assert_eq!(stats(&c).removed, 3);
}

/// The pages an invalidation drops, as the observer hears of them: key, owner, prefetched and unused.
#[derive(Default)]
struct Removals(Vec<(u64, StreamId, bool)>);
impl Observer for Removals {
    fn removed(&mut self, _: Nanos, key: PageKey, owner: StreamId, prefetched_unused: bool) {
        self.0.push((key.index(), owner, prefetched_unused));
    }
}

/// A dropped page is reported with its owner and whether readahead brought it unused, so that per-stream
/// inventories (papers/002) give it back as an eviction would.
#[test]
fn a_dropped_page_is_reported_with_its_owner_and_whether_it_was_prefetched() {
    let config = BufferCacheConfig::new(MemoryConfig::exact(64), PolicyKind::Lru, "linux".parse().unwrap());
    let mut c = BufferCache::with_observer(config, Removals::default()).unwrap();
    let mut cur = c.begin_read(Nanos(0), StreamId(3), FileId(0), 0, 1, 1000).unwrap();
    let mut out = ReadOutcome::default();
    c.read(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    let fetches = out.fetches.clone();
    assert!(fetches.iter().map(|f| f.pages).sum::<u32>() > 1, "readahead beyond the demanded page");
    for f in &fetches {
        c.fetch_done(Nanos(1), f).unwrap();
    }
    c.read(Nanos(2), &mut cur, &Flat, &mut out).unwrap();
    let dropped = c.invalidate(Nanos(3), FileId(0));
    let mut seen = c.observer().0.clone();
    seen.sort_unstable_by_key(|r| r.0);
    assert_eq!(seen.len() as u32, dropped);
    assert_eq!(seen[0], (0, StreamId(3), false), "the demanded page");
    assert!(seen[1..].iter().all(|&(_, owner, unused)| owner == StreamId(3) && unused), "{seen:?}");
}

#[test]
fn streams_record_their_cpu_and_close() {
    let mut c = cache(4, "none");
    c.stream_opened(Nanos(5), StreamId(3));
    c.stream_cpu(Nanos(6), StreamId(3), 40).unwrap();
    c.stream_cpu(Nanos(7), StreamId(3), 2).unwrap();
    assert_eq!(c.stream(StreamId(3)), Some(StreamRecord { opened: Nanos(5), cpu_ns: 42 }));
    assert!(c.stream_closed(Nanos(8), StreamId(3)));
    assert!(!c.stream_closed(Nanos(9), StreamId(3)));
    assert_eq!(c.stream(StreamId(3)), None);
}

/// Exact memory of `pages` pages, or a kernel's of `pages` usable pages (min a tenth, low and high a quarter
/// and a half above it, batches of 4). Shared with `tests_write`.
pub(super) fn memory_model(kernel: bool, pages: u32) -> MemoryConfig {
    if !kernel {
        return MemoryConfig::exact(pages);
    }
    let min = pages / 10;
    MemoryConfig {
        total_pages: pages + 2,
        reserved_pages: 2,
        held_pages: 0,
        watermarks: Watermarks { min, low: min + min / 4, high: min + min / 2 },
        kswapd: true,
        direct_batch_pages: 4,
        kswapd_batch_pages: 4,
        scan_priority: Some(DEF_PRIORITY),
        costs: ReclaimCosts::LINUX_2_6,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random reads by several streams, fetches completing or failing in random order, kswapd running at
    /// random moments, pins held and released: pages are conserved, the budget holds, and every read
    /// finishes, under every policy and both memory models, with and without a prefetch cache (streams
    /// exiting once their reads are done, CPU charged to them, time in steps of 1 ns or of 50 ms so that
    /// the gradient descent's epochs end).
    #[test]
    fn conservation_under_random_interleavings(
        memory in 8u32..40,
        kernel in any::<bool>(),
        pc in prop::sample::select(vec![
            "access-history", "pc-access-history", "pc-longest", "pc-coldest:fixed=10%", "pc-coldest+",
            "pc-optimal", "pc-coldest+:fixed=0%",
        ]),
        step_ns in prop::sample::select(vec![1u64, 50_000_000]),
        prefetch in prop::sample::select(
            vec!["none", "linux", "linux:64KiB", "linux-2.6", "linux-2.6:16KiB", "tp:8-8"],
        ),
        policy in prop::sample::select(PolicyKind::ALL.to_vec()),
        reads in prop::collection::vec((0u32..4, 0u32..3, 0u64..60, 1u64..12, any::<bool>()), 1..40),
        order in prop::collection::vec(any::<u16>(), 200),
    ) {
        let mut c = cache_with_pc(memory_model(kernel, memory), prefetch, policy, pc);
        let mut out = ReadOutcome::default();
        let mut pending: Vec<Fetch> = Vec::new();
        let mut pins: Vec<Pin> = Vec::new();
        let mut cursors: Vec<ReadCursor> = reads
            .iter()
            .map(|&(s, f, start, len, pin)| {
                let cur = c.begin_read(Nanos(0), StreamId(s), FileId(f), start, (start + len).min(64), 64).unwrap();
                c.declare_read(StreamId(s), FileId(f), start, (start + len).min(64));
                if pin { cur.pinned() } else { cur }
            })
            .collect();
        let mut pick = order.iter().cycle();
        let mut steps = 0u64;
        let mut failed_pages = 0u64;
        while cursors.iter().any(|c| !c.is_done()) || !pending.is_empty() {
            steps += 1;
            prop_assert!(steps < 100_000, "no progress");
            // Advance every unfinished read once, then complete (or fail) one pending fetch.
            let now = Nanos(steps * step_ns);
            for cur in cursors.iter_mut().filter(|c| !c.is_done()) {
                c.read(now, cur, &Flat, &mut out).unwrap();
                pending.extend(out.fetches.iter().copied());
                pins.append(&mut out.pins);
                let m = c.memory();
                prop_assert!(m.resident + m.in_flight + m.pinned_only + m.free == m.usable);
            }
            let roll = *pick.next().unwrap();
            if roll % 7 == 0 {
                while c.kswapd_step(now, &mut Vec::new()).is_some() {}
            }
            // A stream's owner uses CPU while it reads, and exits once all its reads are done.
            let s = StreamId(roll as u32 % 4);
            let reading = |s: StreamId| cursors.iter().any(|cur| cur.stream == s && !cur.is_done());
            if c.stream(s).is_some() {
                if reading(s) {
                    c.stream_cpu(now, s, roll as u64).unwrap();
                } else if roll % 5 == 0 {
                    c.stream_closed(now, s);
                }
            }
            if roll % 3 == 0 && !pins.is_empty() {
                c.unpin(pins.swap_remove(roll as usize % pins.len())).unwrap();
            }
            if !pending.is_empty() {
                let f = pending.swap_remove(roll as usize % pending.len());
                if roll % 11 == 0 {
                    c.fetch_failed(now, &f).unwrap();
                    failed_pages += f.pages as u64;
                } else {
                    c.fetch_done(now, &f).unwrap();
                }
            }
            c.check_table();
        }
        for pin in pins {
            c.unpin(pin).unwrap();
        }
        let s = stats(&c);
        let delivered: u64 = reads.iter().map(|&(_, _, start, len, _)| (start + len).min(64) - start).sum();
        // Every (call, page) is counted once, as a hit, a miss or a wait.
        prop_assert_eq!(s.hits + s.misses + s.inflight_waits, delivered);
        prop_assert_eq!(s.removed, failed_pages);
        prop_assert_eq!(c.in_flight_pages(), 0);
        prop_assert_eq!(c.memory().pinned_only, 0);
        c.check_table();
    }

    /// The oracle on random reference strings: the buffer cache with no kernel model and one-page reads
    /// makes the demand cache's decisions.
    #[test]
    fn buffer_cache_equals_a_demand_cache(
        size in 1u32..12,
        policy in prop::sample::select(PolicyKind::ALL.iter().copied().filter(|k| !k.needs_future()).collect::<Vec<_>>()),
        keys in prop::collection::vec(0u64..30, 0..300),
    ) {
        assert_oracle(policy, size, &keys);
    }
}

/// Where page `index` of `file` is: in the prefetch cache, in the policy, or gone.
fn place(c: &BufferCache<Observed>, file: u32, index: u64) -> &'static str {
    match c.pages.lookup(PageKey::new(FileId(file), index).raw()) {
        None => "gone",
        Some(f) if c.pages.pc.as_ref().is_some_and(|pc| pc.contains(f)) => "pc",
        Some(_) => "policy",
    }
}

/// Li & Shen's prefetch cache inside the buffer cache (8 frames, `tp:2-4,fixed`: a miss reads a window
/// of 4 pages, the demanded one and 3 prefetched). Readahead pages wait outside the policy until first used;
/// with a zero allocation every reclaim takes them first, Coldest+ order, newest page first.
#[test]
fn prefetched_pages_wait_in_the_prefetch_cache_and_go_first() {
    let mut c =
        cache_with_pc(MemoryConfig::exact(8), "tp:2-4,fixed", PolicyKind::Lru, "pc-coldest+:fixed=0%");
    read_through(&mut c, 1, 1, 0, 1);
    let places = |c: &BufferCache<Observed>, file| (0..4).map(|i| place(c, file, i)).collect::<Vec<_>>();
    assert_eq!(places(&c, 1), ["policy", "pc", "pc", "pc"]);
    read_through(&mut c, 2, 2, 0, 1);
    assert_eq!(c.memory().prefetch_cache, 6);
    // Stream 1's first use of page 1 moves it into the policy.
    read_through(&mut c, 1, 1, 1, 2);
    assert_eq!(places(&c, 1), ["policy", "policy", "pc", "pc"]);
    // Since that access, stream 1 used CPU and stream 2 none: Coldest+ takes stream 1's pages first.
    c.stream_cpu(Nanos(11), StreamId(1), 5_000).unwrap();
    // Stream 3 needs 4 frames: all from the prefetch cache (over its zero allocation): stream 1's two
    // pages left (newest first: 3, 2), then stream 2's newest two (3, 2).
    read_through(&mut c, 3, 3, 0, 1);
    assert_eq!(places(&c, 1), ["policy", "policy", "gone", "gone"]);
    assert_eq!(places(&c, 2), ["policy", "pc", "gone", "gone"]);
    assert_eq!(places(&c, 3), ["policy", "pc", "pc", "pc"]);
    assert_eq!(c.prefetch_cache().unwrap().stats().reclaimed_ordered, 4);
    assert_eq!(stats(&c).evicted_unused, 4);
    c.check_table();
}

/// A cursor whose pages do not fit in page keys (its fields are public; `begin_read` refuses such a call) is
/// refused at the call's start: the per-page loops build keys without asserting each.
#[test]
#[should_panic(expected = "do not fit in page keys")]
fn a_cursor_beyond_page_keys_is_refused_at_the_call() {
    let mut c = cache(8, "none");
    let mut cur = begin(&mut c, 1, 2, 0, 1);
    cur.file_pages = crate::key::PageKey::INDEX_MAX + 2;
    c.read(Nanos(0), &mut cur, &Flat, &mut ReadOutcome::default()).unwrap();
}

/// A layout that maps only the first `mapped` pages of a window, or maps its pages out of order.
struct BadLayout {
    mapped: u64,
    out_of_order: bool,
}
impl Layout for BadLayout {
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        let lbn = |page: u64| Lbn(file.0 as u64 * 1000 + page);
        if self.out_of_order && n > 1 {
            out.push(DiskRun { file_page: start + 1, lbn: lbn(start + 1), pages: n - 1 });
            out.push(DiskRun { file_page: start, lbn: lbn(start), pages: 1 });
            return;
        }
        let pages = n.min(self.mapped);
        if pages > 0 {
            out.push(DiskRun { file_page: start, lbn: lbn(start), pages });
        }
    }
}

/// What a driver can get wrong in a read is an error, not a panic: pins of an earlier call left in `out`
/// (nothing is done), a cursor changed past what page keys hold (nothing is done), a layout that does
/// not map a window's pages once each in order (the window is not read, nothing is left allocated).
#[test]
fn a_drivers_mistakes_in_a_read_are_errors() {
    let mut c = cache(16, "none");
    let mut out = ReadOutcome::default();
    // Pins left over.
    let mut cur = begin(&mut c, 1, 0, 0, 1).pinned();
    c.read(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    c.fetch_done(Nanos(1), &out.fetches[0].clone()).unwrap();
    c.read(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!((out.status, out.pins.len()), (ReadStatus::Done, 1));
    let mut other = begin(&mut c, 1, 0, 1, 2);
    let before = other;
    let err = c.read(Nanos(2), &mut other, &Flat, &mut out).unwrap_err();
    assert!(err.to_string().contains("1 pins of an earlier call"), "{err}");
    assert_eq!((other, out.pins.len()), (before, 1), "nothing done");
    for pin in std::mem::take(&mut out.pins) {
        c.unpin(pin).unwrap();
    }
    // A cursor whose file grew past the page keys since `begin_read` checked it.
    let mut huge = begin(&mut c, 1, 0, 1, 2);
    huge.file_pages = PageKey::INDEX_MAX + 2;
    let err = c.read(Nanos(3), &mut huge, &Flat, &mut out).unwrap_err();
    assert!(err.to_string().contains("do not fit in page keys"), "{err}");
    // Layouts that leave a page unmapped, or map the window out of order.
    for bad in [BadLayout { mapped: 0, out_of_order: false }, BadLayout { mapped: 1, out_of_order: true }] {
        let mut cur = begin(&mut c, 1, 0, 4, 8);
        let err = c.read(Nanos(4), &mut cur, &bad, &mut out).unwrap_err();
        assert!(err.to_string().contains("the layout maps pages 4..8 of file 0"), "{err}");
        assert!(out.fetches.is_empty(), "the window is not read");
        assert_eq!((c.in_flight_pages(), c.resident_pages()), (0, 1), "nothing left allocated");
    }
    c.check();
    // A file system's aligned readahead has the reader's page first: a layout that maps not even that page
    // reads nothing; one that maps the page but not its stretch reads the page alone.
    for (mapped, fetched) in [(0, vec![]), (1, vec![(13, 1)])] {
        let bad = BadLayout { mapped, out_of_order: false };
        let mut cur = begin(&mut c, 1, 1, 13, 14).aligned_readahead(8, 8).unwrap();
        let err = c.read(Nanos(5), &mut cur, &bad, &mut out).unwrap_err();
        assert!(err.to_string().contains("the layout maps pages"), "{err}");
        assert_eq!(spans(&out), fetched);
        for f in out.fetches.clone() {
            c.fetch_done(Nanos(6), &f).unwrap();
        }
        c.check();
    }
    assert_eq!(c.resident_pages(), 2);
    // The cache serves a good layout afterwards.
    read_through(&mut c, 1, 0, 4, 8);
    assert_eq!(c.resident_pages(), 6);
}

/// A frame's record keeps a fetch id's low 32 bits and a read call's low 48 (`FrameMeta`): a fetch past
/// 2^32 is still named whole to its waiters, and a call 2^32 calls after the one that demanded a page is
/// not taken for it (its look at the page is a wait, not its own miss).
#[test]
fn ids_past_the_frame_records_widths_still_name_their_fetch_and_call() {
    let mut c = cache(8, "none");
    let mut out = ReadOutcome::default();
    c.next_fetch = (1 << 32) - 1;
    c.next_read = (1 << 48) - 1;
    let mut first = begin(&mut c, 1, 2, 0, 1);
    c.read(Nanos(0), &mut first, &Flat, &mut out).unwrap();
    let fetch = out.fetches[0];
    assert_eq!((fetch.id, out.status), (1 << 32, ReadStatus::Blocked { fetch: 1 << 32 }));
    // The next call's id has the first's low 32 bits.
    c.next_read += (1 << 32) - 1;
    let mut second = begin(&mut c, 2, 2, 0, 1);
    assert_eq!(second.id as u32, first.id as u32);
    c.read(Nanos(0), &mut second, &Flat, &mut out).unwrap();
    assert_eq!((out.fetches.len(), out.status), (0, ReadStatus::Blocked { fetch: 1 << 32 }));
    assert_eq!(
        (stats(&c).misses, stats(&c).inflight_waits),
        (1, 1),
        "the second call waits on the first's page"
    );
    c.fetch_done(Nanos(1), &fetch).unwrap();
    for cur in [&mut first, &mut second] {
        c.read(Nanos(1), cur, &Flat, &mut out).unwrap();
        assert_eq!(out.status, ReadStatus::Done);
    }
    assert_eq!((stats(&c).misses, stats(&c).hits), (1, 0), "each call's access counted once");
    c.check();
}
