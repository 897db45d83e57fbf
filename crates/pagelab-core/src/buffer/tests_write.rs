//! Hand-worked tests of the write side: dirty pages, writeback, throttling, reclaim's writes, swap; and the
//! conservation property with writes and anonymous memory under every policy.

use super::*;
use proptest::prelude::*;

/// File f's page i at LBN f * 1000 + i.
struct Flat;
impl Layout for Flat {
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        out.push(DiskRun { file_page: start, lbn: Lbn(file.0 as u64 * 1000 + start), pages: n });
    }
}

const FILE_PAGES: u64 = 1000;

fn cache(memory: MemoryConfig, policy: PolicyKind, swap_slots: u64) -> BufferCache<Counters> {
    let mut config = BufferCacheConfig::new(memory, policy, "none".parse().unwrap());
    if swap_slots > 0 {
        config.swap = Some(SwapConfig { first_lbn: Lbn(900_000), slots: swap_slots, page_cluster: 3 });
    }
    BufferCache::with_observer(config, Counters::default()).unwrap()
}

/// (file or SWAP, first page or slot, pages, write) of each fetch.
fn shape(fetches: &[Fetch]) -> Vec<(u32, u64, u32, bool)> {
    fetches.iter().map(|f| (f.file.0, f.first_page, f.pages, f.write)).collect()
}

/// A whole write of `[first, last)` pages of `file`; returns the fetches it issued and its final status.
fn write_pages(c: &mut BufferCache<Counters>, file: u32, first: u64, last: u64) -> (Vec<Fetch>, ReadStatus) {
    let mut cur = c
        .begin_write(Nanos(0), StreamId(1), FileId(file), first * 4096, (last - first) * 4096, FILE_PAGES)
        .unwrap();
    let mut out = ReadOutcome::default();
    c.write(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    (out.fetches.clone(), out.status)
}

fn read_page(c: &mut BufferCache<Counters>, file: u32, page: u64, out: &mut ReadOutcome) -> ReadCursor {
    let mut cur = c.begin_read(Nanos(0), StreamId(2), FileId(file), page, page + 1, FILE_PAGES).unwrap();
    c.read(Nanos(0), &mut cur, &Flat, out).unwrap();
    cur
}

fn touch(c: &mut BufferCache<Counters>, page: u64, write: bool, out: &mut ReadOutcome) -> TouchCursor {
    let mut cur = c.begin_touch(Nanos(0), StreamId(3), 0, page, write).unwrap();
    c.touch(Nanos(0), &mut cur, out).unwrap();
    cur
}

fn complete(c: &mut BufferCache<Counters>, fetches: &[Fetch]) {
    for f in fetches {
        c.fetch_done(Nanos(1), f).unwrap();
    }
}

/// Whole pages written to absent pages need no read; a page written in part is read first (one page, no
/// readahead), then dirtied.
#[test]
fn writes_dirty_pages_and_a_partial_page_is_read_first() {
    let mut c = cache(MemoryConfig::exact(16), PolicyKind::Lru, 0);
    let (fetches, status) = write_pages(&mut c, 1, 0, 4);
    assert_eq!((fetches.len(), status), (0, ReadStatus::Done));
    assert_eq!((c.memory().dirty, c.resident_pages()), (4, 4));
    // 100 bytes at offset 10 of page 7: read it first.
    let mut cur = c.begin_write(Nanos(0), StreamId(1), FileId(1), 7 * 4096 + 10, 100, FILE_PAGES).unwrap();
    let mut out = ReadOutcome::default();
    c.write(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(shape(&out.fetches), vec![(1, 7, 1, false)]);
    assert!(matches!(out.status, ReadStatus::Blocked { .. }));
    complete(&mut c, &out.fetches.clone());
    c.write(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!((out.status, c.memory().dirty), (ReadStatus::Done, 5));
    let s = *c.observer();
    assert_eq!((s.misses, s.pages_dirtied), (5, 5), "each page met once, as a miss; five pages dirtied");
    // Writing a dirty page again changes nothing; reading it hits.
    write_pages(&mut c, 1, 0, 1);
    assert_eq!(c.memory().dirty, 5);
    let mut out = ReadOutcome::default();
    read_page(&mut c, 1, 0, &mut out);
    assert_eq!(out.status, ReadStatus::Done);
}

/// Reclaim meets a dirty page at the tail of the inactive list: it starts the page's write and goes on
/// to the next victim (a clean page, freed); the dirty page's memory is free when its write completes.
#[test]
fn a_dirty_victim_is_written_then_freed() {
    let mut c = cache(MemoryConfig::exact(3), PolicyKind::TwoList, 0);
    write_pages(&mut c, 1, 0, 1); // A, dirty: the inactive tail
    let mut out = ReadOutcome::default();
    for page in [1, 2] {
        read_page(&mut c, 2, page, &mut out);
        complete(&mut c, &out.fetches.clone());
    }
    let key = |file: u32, page: u64| PageKey::new(FileId(file), page).raw();
    let expected = format!("active=[] inactive=[{}* {}* {}*]", key(2, 2), key(2, 1), key(1, 0));
    assert_eq!(c.policy_state(), expected);
    // Reclaim for page 2:3 takes A (dirty: its write starts, nothing is freed), and the task waits.
    let mut cur = read_page(&mut c, 2, 3, &mut out);
    assert_eq!((shape(&out.fetches), out.status), (vec![(1, 0, 1, true)], ReadStatus::NoMemory));
    let write = out.fetches[0];
    assert_eq!(
        out.direct_reclaim,
        ReclaimCost { scanned: 1, freed: 0, written: 1, ..ReclaimCost::default() }
    );
    let m = c.memory();
    assert_eq!((m.writing, m.free, m.dirty, m.writeback), (1, 0, 0, 1));
    // Retried, the next victim (2:1, clean) is freed.
    c.read(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(shape(&out.fetches), vec![(2, 3, 1, false)]);
    assert_eq!(out.direct_reclaim, ReclaimCost { scanned: 1, freed: 1, ..ReclaimCost::default() });
    let read = out.fetches.clone();
    complete(&mut c, &read);
    c.read(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::Done);
    complete(&mut c, &[write]);
    let m = c.memory();
    assert_eq!((m.writing, m.free, m.writeback), (0, 1, 0), "A's memory is free once written");
    let s = *c.observer();
    assert_eq!((s.evictions, s.written_reclaim), (2, 1));
}

/// A page reclaim is writing out is still in the page cache: a read finds it and takes it back.
#[test]
fn a_page_being_written_out_is_found_and_kept() {
    let mut c = cache(MemoryConfig::exact(3), PolicyKind::Lru, 0);
    write_pages(&mut c, 1, 0, 1);
    let mut out = ReadOutcome::default();
    for page in [0, 1] {
        read_page(&mut c, 2, page, &mut out);
        complete(&mut c, &out.fetches.clone());
    }
    read_page(&mut c, 2, 2, &mut out); // page 1:0 is the LRU victim, dirty: its write starts
    let writes = out.fetches.clone();
    assert_eq!((shape(&writes), out.status), (vec![(1, 0, 1, true)], ReadStatus::NoMemory));
    let mut again = ReadOutcome::default();
    read_page(&mut c, 1, 0, &mut again);
    assert_eq!((again.status, again.fetches.len()), (ReadStatus::Done, 0), "a hit: no I/O");
    assert_eq!(c.memory().writing, 0, "back in the policy while its write completes");
    complete(&mut c, &writes);
    let m = c.memory();
    assert_eq!((m.writing, m.writeback, m.dirty, m.resident), (0, 0, 0, 3), "1:0 stays, clean");
}

/// A pdflush pass with the queue's room (2.6.18's `wbc.nonblocking`) stops before the first page that would
/// need a request past it; the next pass goes on from there. A write continues its request until the request
/// is full (two pages here), so one more page of a file whose request has room costs none.
#[test]
fn a_pdflush_pass_stops_where_the_queue_would_be_congested() {
    let mut c = cache(MemoryConfig::exact(64), PolicyKind::Lru, 0);
    assert_eq!(write_pages(&mut c, 5, 0, 7).1, ReadStatus::Done);
    assert_eq!(write_pages(&mut c, 3, 0, 2).1, ReadStatus::Done);
    let room = |requests| Some(WriteRoom { requests, request_pages: 2 });
    let mut out = Vec::new();
    let pass = c.writeback(Nanos(0), Writeback::Background, MAX_WRITEBACK_PAGES, room(2), &mut out);
    assert_eq!(pass, WritebackPass { pages: 4, congested: true });
    // Both inodes were dirtied at 0 s: file 3 comes first.
    assert_eq!(shape(&out), vec![(3, 0, 2, true), (5, 0, 2, true)], "two requests of two pages");
    out.clear();
    let pass = c.writeback(Nanos(0), Writeback::Background, MAX_WRITEBACK_PAGES, room(3), &mut out);
    assert_eq!(pass, WritebackPass { pages: 5, congested: false }, "nothing left to write");
    assert_eq!(shape(&out), vec![(5, 2, 5, true)], "one write of three requests: 2-3, 4-5 and 6");
    out.clear();
    assert_eq!(write_pages(&mut c, 7, 0, 1).1, ReadStatus::Done);
    let pass = c.writeback(Nanos(0), Writeback::Background, MAX_WRITEBACK_PAGES, room(0), &mut out);
    assert_eq!(pass, WritebackPass { pages: 0, congested: true }, "a congested queue takes no write");
    assert!(out.is_empty());
    assert_eq!((c.memory().dirty, c.memory().writeback), (1, 9));
}

/// wb_kupdate writes inodes dirtied more than 30 s ago, oldest first, each in file order, contiguous pages
/// in one write; written pages stay cached, clean.
#[test]
fn kupdate_writes_expired_inodes_in_file_order() {
    let mut c = cache(MemoryConfig::exact(64), PolicyKind::Lru, 0);
    let write_at = |c: &mut BufferCache<Counters>, t: u64, file: u32, first: u64, last: u64| {
        let mut cur = c
            .begin_write(
                Nanos::from_secs(t),
                StreamId(1),
                FileId(file),
                first * 4096,
                (last - first) * 4096,
                100,
            )
            .unwrap();
        let mut out = ReadOutcome::default();
        c.write(Nanos::from_secs(t), &mut cur, &Flat, &mut out).unwrap();
    };
    write_at(&mut c, 1, 5, 10, 12);
    write_at(&mut c, 2, 3, 0, 2);
    write_at(&mut c, 3, 5, 4, 5);
    write_at(&mut c, 40, 7, 0, 1);
    let mut out = Vec::new();
    let pass = c.writeback(Nanos::from_secs(35), Writeback::Kupdate, MAX_WRITEBACK_PAGES, None, &mut out);
    assert_eq!(pass, WritebackPass { pages: 5, congested: false });
    assert_eq!(
        shape(&out),
        vec![(5, 4, 1, true), (5, 10, 2, true), (3, 0, 2, true)],
        "file 5 first (dirty at 1 s)"
    );
    assert_eq!((c.memory().dirty, c.memory().writeback), (1, 5));
    complete(&mut c, &out);
    assert_eq!((c.memory().dirty, c.memory().writeback, c.resident_pages()), (1, 0, 6));
    assert_eq!(c.observer().written_writeback, 5);
}

/// A writer that leaves more than 40 % of memory dirty writes 48 of the oldest pages itself and sleeps;
/// it keeps writing and sleeping while dirty and written-back pages stay above the limit, and its call is
/// done once they are below.
#[test]
fn a_writer_above_the_dirty_limit_is_throttled() {
    let mut c = cache(MemoryConfig::exact(100), PolicyKind::Lru, 0);
    assert_eq!(c.dirty_limits(), (40, 10));
    let mut cur = c.begin_write(Nanos(0), StreamId(1), FileId(1), 0, 50 * 4096, FILE_PAGES).unwrap();
    let mut out = ReadOutcome::default();
    c.write(Nanos(0), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::Throttled);
    assert_eq!(shape(&out.fetches), vec![(1, 0, 48, true)]);
    let first = out.fetches.clone();
    assert!(!c.writeback_wanted(), "2 dirty pages are left: below the background ratio");
    c.write(Nanos(1), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::Throttled, "2 dirty + 48 under writeback > 40");
    assert_eq!(shape(&out.fetches), vec![(1, 48, 2, true)], "the next chunk: what is left");
    let second = out.fetches.clone();
    complete(&mut c, &first);
    complete(&mut c, &second);
    c.write(Nanos(2), &mut cur, &Flat, &mut out).unwrap();
    assert_eq!((out.status, out.fetches.len()), (ReadStatus::Done, 0));
    assert_eq!((c.observer().throttles, c.memory().dirty, c.resident_pages()), (2, 0, 50));
}

/// Touch `page` (a store) until the fault is done, completing every write reclaim starts on the way.
fn touch_through(c: &mut BufferCache<Counters>, page: u64) -> Vec<Fetch> {
    let mut out = ReadOutcome::default();
    let mut cur = c.begin_touch(Nanos(0), StreamId(3), 0, page, true).unwrap();
    let mut issued = Vec::new();
    for _ in 0..64 {
        c.touch(Nanos(0), &mut cur, &mut out).unwrap();
        issued.extend(out.fetches.iter().copied());
        if out.status == ReadStatus::Done {
            return issued;
        }
        complete(c, &out.fetches.clone());
    }
    panic!("the fault on page {page} did not finish");
}

/// Anonymous pages evicted together get consecutive swap slots; a fault on one reads its aligned cluster
/// (slots 1..8, past the header) and the slots keep their copies.
#[test]
fn anonymous_pages_swap_out_together_and_fault_back_by_cluster() {
    let mut c = cache(MemoryConfig::exact(16), PolicyKind::Lru, 64);
    let touch_region = |c: &mut BufferCache<Counters>, region: u32, page: u64| {
        let mut cur = c.begin_touch(Nanos(0), StreamId(3), region, page, true).unwrap();
        let mut out = ReadOutcome::default();
        c.touch(Nanos(0), &mut cur, &mut out).unwrap();
        assert_eq!((out.status, out.fetches.len()), (ReadStatus::Done, 0), "zero-filled, no I/O");
    };
    for page in 0..8 {
        touch_region(&mut c, 0, page);
    }
    for page in 0..8 {
        touch_region(&mut c, 1, page);
    }
    // Region 0's pages 8-15 evict its pages 0-7 (least recent), one at a time: each fault starts a write
    // and waits for it.
    let mut writes = Vec::new();
    for page in 8..16 {
        writes.extend(touch_through(&mut c, page));
    }
    let swap = FileId::SWAP.0;
    let expected: Vec<_> = (1..=8).map(|slot| (swap, slot, 1, true)).collect();
    assert_eq!(shape(&writes), expected, "pages 0-7 to slots 1-8, in eviction order");
    assert_eq!((c.memory().swap_used, c.memory().free, c.observer().swap_outs), (8, 0, 8));
    assert_eq!(c.anon_released(Nanos(1), 1), Ok(8), "region 1 leaves: 8 frames free");
    // Page 3 is in slot 4: the fault reads slots 1-7 (the aligned group 0-7 without the header).
    let mut out = ReadOutcome::default();
    let mut cur = touch(&mut c, 3, false, &mut out);
    assert_eq!(shape(&out.fetches), vec![(swap, 1, 7, false)]);
    complete(&mut c, &out.fetches.clone());
    c.touch(Nanos(2), &mut cur, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::Done);
    let s = *c.observer();
    assert_eq!((s.swap_ins, s.swap_ins_readahead), (1, 6));
    assert_eq!(c.memory().swap_used, 8, "the slots keep their copies (swap is not half full)");
    // One frame is left; the next new page takes it. The one after evicts the least recent page, 8
    // (dirty, never swapped): its write goes to a fresh slot, 9.
    touch(&mut c, 30, true, &mut out);
    assert_eq!(out.status, ReadStatus::Done);
    touch(&mut c, 31, true, &mut out);
    assert_eq!((shape(&out.fetches), out.status), (vec![(swap, 9, 1, true)], ReadStatus::NoMemory));
}

/// A page read back from swap and not written since is clean: its copy is still in its slot, so
/// evicting it again writes nothing.
#[test]
fn a_clean_page_back_from_swap_leaves_without_a_write() {
    let mut c = cache(MemoryConfig::exact(2), PolicyKind::Lru, 16);
    for page in 0..3 {
        touch_through(&mut c, page); // page 0 to slot 1
    }
    let mut out = ReadOutcome::default();
    let mut cur = touch(&mut c, 0, false, &mut out); // evicts page 1 (to slot 2): a write, then a wait
    assert_eq!((shape(&out.fetches), out.status), (vec![(FileId::SWAP.0, 2, 1, true)], ReadStatus::NoMemory));
    complete(&mut c, &out.fetches.clone());
    // Retried: page 0 back from slot 1 into the free frame; readahead would bring page 1 (slot 2) too, but
    // its frame must come from reclaim, which starts page 2's write (to slot 3) and gives up on it.
    c.touch(Nanos(1), &mut cur, &mut out).unwrap();
    let swap = FileId::SWAP.0;
    assert_eq!(shape(&out.fetches), vec![(swap, 3, 1, true), (swap, 1, 1, false)]);
    complete(&mut c, &out.fetches.clone());
    c.touch(Nanos(2), &mut cur, &mut out).unwrap();
    assert_eq!(out.status, ReadStatus::Done);
    // Page 5 takes the frame page 2's write freed; page 6 then evicts page 0, clean: no write.
    touch_through(&mut c, 5);
    let before = c.observer().swap_outs;
    let writes = touch_through(&mut c, 6);
    assert!(writes.iter().all(|f| !f.write), "page 0 left without a write: {:?}", shape(&writes));
    assert_eq!(c.observer().swap_outs, before);
    c.check_swap();
}

/// With swap more than half full a page read back gives up its slot (`remove_exclusive_swap_page()`): it
/// is dirty again and has no disk location until it is swapped out again, so DULO takes it as a random
/// block (papers/001 §4.2); it joins the policy already without one.
#[test]
fn a_page_back_from_a_full_swap_has_no_disk_location() {
    let mut c = cache(MemoryConfig::exact(2), PolicyKind::Lru, 6);
    for page in 0..5 {
        touch_through(&mut c, page); // pages 0, 1, 2 to slots 1, 2, 3: 3 of 5 slots used
    }
    assert_eq!(c.memory().swap_used, 3);
    touch_through(&mut c, 0); // evicts page 3 to slot 4, then reads page 0 back from slot 1
    let frame = c.pages.lookup(PageKey::new(FileId::anon(0), 0).raw()).expect("page 0 is back");
    let f = frame as usize;
    assert_eq!(c.pages.lbn_of(frame), Lbn::NONE, "its slot is freed");
    assert_eq!(c.pages.meta[f].anon_slot(), NO_SWAP_SLOT);
    assert_ne!(c.pages.meta[f].flags & flag::DIRTY, 0, "only memory holds it now");
    c.check_swap();
}

/// The owner's exit frees its pages and every swap slot it held.
#[test]
fn an_exited_owner_frees_its_swap() {
    let mut c = cache(MemoryConfig::exact(4), PolicyKind::Clock, 32);
    for page in 0..8 {
        touch_through(&mut c, page);
    }
    assert_eq!((c.memory().swap_used, c.resident_pages()), (4, 4));
    assert_eq!(c.anon_released(Nanos(3), 0), Ok(8));
    let m = c.memory();
    assert_eq!((m.swap_used, m.free, m.resident), (0, 4, 0));
    c.check_swap();
}

/// The owner exits while one of its pages is being swapped out, and the region's next owner faults the same
/// page and has it swapped out too before the first write completes: both writes are in flight for one
/// key. Each completion frees its own page (the dead one's slot too), in either order. (Found by
/// `conservation_with_writes_and_swap`: the second page's write replaced the first's record, whose memory
/// was then never freed.)
#[test]
fn a_dead_page_and_its_successor_are_written_out_side_by_side() {
    for dead_first in [false, true] {
        let mut c = cache(MemoryConfig::exact(2), PolicyKind::Lru, 8);
        let mut out = ReadOutcome::default();
        touch(&mut c, 0, true, &mut out);
        touch(&mut c, 1, true, &mut out);
        // Page 0 is the LRU victim: swapped out to slot 1, nothing freed yet.
        touch(&mut c, 2, true, &mut out);
        let swap = FileId::SWAP.0;
        assert_eq!((shape(&out.fetches), out.status), (vec![(swap, 1, 1, true)], ReadStatus::NoMemory));
        let old = out.fetches[0];
        // The owner exits: page 1 leaves, page 0's write goes on with its data dead.
        assert_eq!(c.anon_released(Nanos(1), 0), Ok(2));
        assert_eq!((c.memory().writing, c.memory().free), (1, 1));
        // The next owner's first touch of page 0 is a new zero-filled page, not the dead one.
        touch(&mut c, 0, true, &mut out);
        assert_eq!((out.status, out.fetches.len()), (ReadStatus::Done, 0));
        // Its page 1 needs the frame: the new page 0 is swapped out to slot 2 beside the first write.
        let mut cur = touch(&mut c, 1, true, &mut out);
        assert_eq!((shape(&out.fetches), out.status), (vec![(swap, 2, 1, true)], ReadStatus::NoMemory));
        let new = out.fetches[0];
        let m = c.memory();
        assert_eq!((m.writing, m.free, m.resident, m.swap_used), (2, 0, 0, 2));
        let order = if dead_first { [old, new] } else { [new, old] };
        complete(&mut c, &order[..1]);
        assert_eq!((c.memory().writing, c.memory().free), (1, 1), "one page freed");
        complete(&mut c, &order[1..]);
        let m = c.memory();
        assert_eq!((m.writing, m.free, m.swap_used), (0, 2, 1), "both freed; the dead page's slot too");
        c.check_swap();
        // Page 1 is faulted in; page 0 comes back from slot 2, the new page's copy.
        c.touch(Nanos(2), &mut cur, &mut out).unwrap();
        assert_eq!(out.status, ReadStatus::Done);
        let mut out = ReadOutcome::default();
        touch(&mut c, 0, false, &mut out);
        assert_eq!(shape(&out.fetches)[..1], [(swap, 2, 1, false)], "{dead_first}");
    }
}

/// No swap: anonymous pages cannot leave, and an allocation that finds only them stalls instead of
/// spinning.
#[test]
fn without_swap_anonymous_memory_stalls_allocation() {
    let mut c = cache(MemoryConfig::exact(2), PolicyKind::Lru, 0);
    let mut out = ReadOutcome::default();
    touch(&mut c, 0, true, &mut out);
    touch(&mut c, 1, true, &mut out);
    touch(&mut c, 2, true, &mut out);
    assert_eq!(out.status, ReadStatus::NoMemory);
    assert_eq!((c.resident_pages(), c.memory().writing), (2, 0));
}

#[derive(Clone, Debug)]
enum Op {
    Read { file: u32, page: u64, len: u64 },
    Write { file: u32, page: u64, len: u64, partial: bool },
    Touch { region: u32, page: u64, write: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..2, 0u64..40, 1u64..6).prop_map(|(file, page, len)| Op::Read { file, page, len }),
        (0u32..2, 0u64..40, 1u64..6, any::<bool>()).prop_map(|(file, page, len, partial)| Op::Write {
            file,
            page,
            len,
            partial
        }),
        (0u32..2, 0u64..30, any::<bool>()).prop_map(|(region, page, write)| Op::Touch {
            region,
            page,
            write
        }),
    ]
}

enum Call {
    Read(ReadCursor),
    Write(WriteCursor),
    Touch(TouchCursor),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Reads, writes and faults by several streams with I/O completing (or failing) in random order,
    /// kswapd, pdflush and exits at random moments: every page is in flight, resident (clean, dirty, under
    /// writeback), being written out or swapped; memory balances; every call finishes.
    #[test]
    fn conservation_with_writes_and_swap(
        memory in 8u32..40,
        kernel in any::<bool>(),
        policy in prop::sample::select(PolicyKind::ALL.iter().copied().filter(|k| !k.needs_future()).collect::<Vec<_>>()),
        ops in prop::collection::vec(op(), 1..40),
        order in prop::collection::vec(any::<u16>(), 200),
    ) {
        let mem = super::tests::memory_model(kernel, memory);
        let mut c = cache(mem, policy, 256);
        let mut out = ReadOutcome::default();
        let mut pending: Vec<Fetch> = Vec::new();
        // Three calls at a time, started in order as earlier ones finish: a page comes back after it left.
        let begin = |c: &mut BufferCache<Counters>, i: usize, now: Nanos| {
            let stream = StreamId(i as u32 % 3);
            match ops[i] {
                Op::Read { file, page, len } => {
                    Call::Read(c.begin_read(now, stream, FileId(file), page, page + len, 50).unwrap())
                }
                Op::Write { file, page, len, partial } => {
                    let (off, n) = if partial { (page * 4096 + 7, len * 4096 - 9) } else { (page * 4096, len * 4096) };
                    Call::Write(c.begin_write(now, stream, FileId(file), off, n, 50).unwrap())
                }
                Op::Touch { region, page, write } => Call::Touch(c.begin_touch(now, stream, region, page, write).unwrap()),
            }
        };
        let mut started = 0usize;
        let mut calls: Vec<Option<Call>> = (0..3).map(|_| None).collect();
        let mut pick = order.iter().cycle();
        let mut steps = 0u64;
        while started < ops.len() || calls.iter().any(Option::is_some) || !pending.is_empty() {
            steps += 1;
            prop_assert!(steps < 100_000, "no progress");
            let now = Nanos(steps);
            for slot in calls.iter_mut() {
                if slot.is_none() && started < ops.len() {
                    *slot = Some(begin(&mut c, started, now));
                    started += 1;
                }
                let Some(call) = slot.as_mut() else { continue };
                match call {
                    Call::Read(cur) => c.read(now, cur, &Flat, &mut out).unwrap(),
                    Call::Write(cur) => c.write(now, cur, &Flat, &mut out).unwrap(),
                    Call::Touch(cur) => c.touch(now, cur, &mut out).unwrap(),
                }
                let done = out.status == ReadStatus::Done;
                pending.extend(out.fetches.iter().copied());
                if done {
                    *slot = None;
                }
                let m = c.memory();
                prop_assert_eq!(m.resident + m.in_flight + m.writing + m.free, m.usable);
            }
            let roll = *pick.next().unwrap();
            if roll % 5 == 0 {
                let mut fetches = Vec::new();
                while c.kswapd_step(now, &mut fetches).is_some() {}
                let kind = if roll % 2 == 0 { Writeback::Background } else { Writeback::Kupdate };
                let room = (roll % 3 == 0).then_some(WriteRoom { requests: (roll % 4) as u32, request_pages: 2 });
                c.writeback(now, kind, MAX_WRITEBACK_PAGES, room, &mut fetches);
                pending.extend(fetches);
            }
            if roll % 97 == 0 {
                c.anon_released(now, 1).unwrap();
            }
            if !pending.is_empty() {
                let f = pending.swap_remove(roll as usize % pending.len());
                if roll % 13 == 0 {
                    c.fetch_failed(now, &f).unwrap();
                } else {
                    c.fetch_done(now, &f).unwrap();
                }
            }
            c.check_table();
        }
        let m = c.memory();
        prop_assert_eq!((m.in_flight, m.writing, m.writeback), (0, 0, 0));
        prop_assert_eq!(m.resident + m.free, m.usable);
        c.check_swap();
    }
}
