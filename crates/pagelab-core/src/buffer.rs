//! [`BufferCache`]: the OS buffer cache as one state machine — resident pages under a replacement policy,
//! a prefetcher deciding what to read ahead, and pages pinned by in-flight I/O, all under one memory budget.
//!
//! This is the contract between the engine and its drivers (the simulator now, a live FUSE driver later).
//! The driver owns time and I/O: it calls [`BufferCache::read`] for a handler's `read()` call, issues the
//! [`Fetch`]es the cache returns, reports each completion with [`BufferCache::fetch_done`], and resumes the
//! read when the page it was blocked on arrives. The cache never performs I/O and never reads a clock.
//!
//! Page life cycle (Linux 2.6 `do_generic_mapping_read` as papers/000 §2 and papers/001 §4 describe it):
//! - a page missing from the cache triggers the prefetcher's synchronous path; every not-cached page of
//!   the returned window gets a frame at once (in-flight pages count against memory) and is fetched;
//! - when its fetch completes the page joins the replacement policy: the page the reader demanded as an
//!   accessed page, the others as prefetched pages with no access history (`Access::prefetch`);
//! - a reader consuming a prefetched page is its first access (`on_hit`); a page carrying the
//!   PG_readahead mark triggers the prefetcher's asynchronous path;
//! - when memory is needed the policy picks a victim among resident pages; if every frame is pinned by
//!   I/O the read stalls until some fetch completes (a reclaim stall).
//!
//! Invariant, asserted on every path that moves pages: frames in use = pages in the policy + pages in
//! flight, and never more than `memory_pages`.

use crate::frames::FrameTable;
use crate::hash::KeyMap;
use crate::key::{FileId, PageKey, StreamId};
use crate::policy::{Access, AnyPolicy, FrameId, PolicyKind, Replacement, NEVER};
use crate::prefetch::{AnyPrefetcher, CacheView, Prefetcher, ReadCtx, Window};
use crate::time::Nanos;
use std::collections::VecDeque;

/// Page flags, one byte per frame.
mod flag {
    /// Contents are valid (the fetch completed).
    pub const UPTODATE: u8 = 1;
    /// Brought in by readahead and not yet accessed by anyone.
    pub const PREFETCHED: u8 = 2;
    /// Linux PG_readahead: reaching this page starts the next asynchronous readahead.
    pub const MARKER: u8 = 4;
    /// A page of a `read()` call fetched by that call's synchronous window (`demand_read` names the call):
    /// the call finds it as a miss, and its insertion into the policy is that call's access.
    pub const DEMANDED: u8 = 8;
}

/// Where file pages live on disk. The simulator's file layout implements it; a live driver asks the
/// file system (or uses the file offset).
pub trait Layout {
    /// Append to `out` the runs contiguous in both file and disk covering pages `[start, start + n)`.
    /// Caller guarantees the range is inside the file.
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>);
}

/// Pages contiguous in a file and on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskRun {
    pub file_page: u64,
    /// Disk location of `file_page`, in pages.
    pub lbn: u64,
    pub pages: u64,
}

/// One read the driver must issue: pages contiguous in the file and on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetch {
    /// Unique per cache, increasing.
    pub id: u64,
    pub file: FileId,
    pub first_page: u64,
    pub lbn: u64,
    pub pages: u32,
    /// A reader is (or will be) blocked on this fetch: a synchronous read; otherwise readahead.
    pub sync: bool,
    pub owner: StreamId,
}

/// A `read()` call in progress, owned by the driver: pages `[next, last)` of `file` are still to be read.
/// Made by [`BufferCache::begin_read`], which gives every call its own id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadCursor {
    /// Unique per cache: a stream (an open file shared by threads, live) may have several calls at once.
    pub id: u64,
    pub stream: StreamId,
    pub file: FileId,
    pub next: u64,
    pub last: u64,
    /// Size of the file in pages (readahead stops at EOF).
    pub file_pages: u64,
    /// The page the call was blocked on, already counted as its hit, miss or wait: each (call, page) is
    /// counted once, at its first encounter.
    pub counted: Option<u64>,
}

impl ReadCursor {
    pub fn is_done(&self) -> bool {
        self.next >= self.last
    }
}

/// Why a [`BufferCache::read`] call returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStatus {
    /// Every page of the call was delivered.
    Done,
    /// The next page is in flight: resume after fetch `id` completes.
    Blocked { fetch: u64 },
    /// No frame could be freed (all pinned by I/O): resume after any fetch completes.
    NoMemory,
}

/// What one [`BufferCache::read`] call did. Reused by the driver to avoid allocation.
#[derive(Clone, Debug)]
pub struct ReadOutcome {
    pub status: ReadStatus,
    /// Pages delivered to the reader by this call.
    pub pages_delivered: u64,
    /// Fetches to issue now, in submission order.
    pub fetches: Vec<Fetch>,
}

impl Default for ReadOutcome {
    fn default() -> Self {
        ReadOutcome { status: ReadStatus::Done, pages_delivered: 0, fetches: Vec::new() }
    }
}

impl ReadOutcome {
    pub fn clear(&mut self) {
        self.status = ReadStatus::Done;
        self.pages_delivered = 0;
        self.fetches.clear();
    }
}

/// Counters since the cache was built (or since [`BufferCache::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStats {
    /// Page accesses that found the page resident.
    pub hits: u64,
    /// Page accesses that found the page absent.
    pub misses: u64,
    /// Page accesses that found the page under I/O (another reader's or a readahead's fetch).
    pub inflight_waits: u64,
    pub pages_fetched: u64,
    /// Pages fetched that no reader had asked for yet.
    pub pages_prefetched: u64,
    /// Prefetched pages later accessed before eviction.
    pub prefetched_used: u64,
    pub evictions: u64,
    /// Prefetched pages evicted before anyone accessed them.
    pub evicted_unused: u64,
    /// Misses on a page its owner had prefetched and lost to eviction before accessing it (Li & Shen's
    /// prefetch page thrashing).
    pub thrash_pages: u64,
    /// Reads that found every frame pinned by I/O.
    pub reclaim_stalls: u64,
    /// Readahead pages dropped because no memory could be freed for them.
    pub prefetch_dropped: u64,
    /// Pages fetched for a reader's current call and evicted before it got to them (it misses again).
    pub demand_lost: u64,
}

impl BufferStats {
    pub fn accesses(&self) -> u64 {
        self.hits + self.misses + self.inflight_waits
    }
    pub fn hit_ratio(&self) -> f64 {
        if self.accesses() == 0 {
            0.0
        } else {
            self.hits as f64 / self.accesses() as f64
        }
    }
}

#[derive(Clone, Debug)]
pub struct BufferCacheConfig {
    pub memory_pages: u32,
    pub policy: PolicyKind,
    pub prefetcher: AnyPrefetcher,
    /// How many evicted-unaccessed prefetched pages are remembered to detect thrashing.
    pub thrash_history_pages: u32,
}

pub struct BufferCache {
    table: FrameTable,
    policy: AnyPolicy,
    prefetcher: AnyPrefetcher,
    flags: Vec<u8>,
    owner: Vec<StreamId>,
    lbn: Vec<u64>,
    /// Fetch id per in-flight frame.
    fetch_of: Vec<u64>,
    /// The read call whose synchronous window fetched the frame's page (with `flag::DEMANDED`).
    demand_read: Vec<u64>,
    in_flight: u32,
    next_fetch: u64,
    next_read: u64,
    vtime: u64,
    /// Evicted-unaccessed prefetched pages → their owner, oldest first out.
    thrash_ghost: KeyMap<u64, StreamId>,
    thrash_order: VecDeque<u64>,
    thrash_history_pages: u32,
    stats: BufferStats,
    runs: Vec<DiskRun>,
}

/// The cache as the prefetcher sees it: resident or in flight.
struct View<'a>(&'a FrameTable);

impl CacheView for View<'_> {
    fn is_cached(&self, file: FileId, index: u64) -> bool {
        self.0.lookup(PageKey::new(file, index).raw()).is_some()
    }
}

impl BufferCache {
    pub fn new(config: BufferCacheConfig) -> BufferCache {
        let n = config.memory_pages;
        assert!(n >= 1, "a buffer cache needs memory");
        let policy = AnyPolicy::new(config.policy, n);
        let table = FrameTable::with_shadows(n, policy.shadow_slots());
        // Per-frame state by id: a policy's shadow entries take ids beyond the `n` frames.
        let ids = table.ids() as usize;
        BufferCache {
            table,
            policy,
            prefetcher: config.prefetcher,
            flags: vec![0; ids],
            owner: vec![StreamId(0); ids],
            lbn: vec![0; ids],
            fetch_of: vec![0; ids],
            demand_read: vec![0; ids],
            in_flight: 0,
            next_fetch: 0,
            next_read: 0,
            vtime: 0,
            thrash_ghost: KeyMap::default(),
            thrash_order: VecDeque::new(),
            thrash_history_pages: config.thrash_history_pages,
            stats: BufferStats::default(),
            runs: Vec::new(),
        }
    }

    pub fn stats(&self) -> BufferStats {
        self.check_conservation();
        self.stats
    }
    pub fn reset_stats(&mut self) {
        self.stats = BufferStats::default();
    }
    pub fn memory_pages(&self) -> u32 {
        self.table.capacity()
    }
    pub fn resident_pages(&self) -> u32 {
        self.policy.len()
    }
    pub fn in_flight_pages(&self) -> u32 {
        self.in_flight
    }
    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    /// Start a `read()` of pages `[first, last)` of `file` (of `file_pages` pages) by `stream`.
    /// Caller guarantees `first < last <= file_pages`.
    pub fn begin_read(
        &mut self,
        stream: StreamId,
        file: FileId,
        first: u64,
        last: u64,
        file_pages: u64,
    ) -> ReadCursor {
        assert!(first < last && last <= file_pages, "bad read [{first}, {last}) of a {file_pages}-page file");
        self.next_read += 1;
        ReadCursor { id: self.next_read, stream, file, next: first, last, file_pages, counted: None }
    }

    /// A stream (request handler / open file) ended: the prefetcher drops its state.
    pub fn stream_closed(&mut self, stream: StreamId) {
        self.prefetcher.stream_closed(stream);
    }

    /// Continue the read `cursor` at time `now`: deliver pages until one is not ready. Fills `out`.
    pub fn read(
        &mut self,
        _now: Nanos,
        cursor: &mut ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        out.clear();
        let bound = cursor.last.saturating_sub(cursor.next);
        for _ in 0..=bound {
            if cursor.is_done() {
                self.prefetcher.read_done(cursor.stream, cursor.file, cursor.last * crate::PAGE_SIZE_BYTES);
                out.status = ReadStatus::Done;
                return;
            }
            let idx = cursor.next;
            let counted = cursor.counted == Some(idx);
            let key = PageKey::new(cursor.file, idx).raw();
            match self.table.lookup(key) {
                Some(frame) if self.flags[frame as usize] & flag::UPTODATE != 0 => {
                    if !counted {
                        if self.own_demand(frame, cursor) {
                            self.stats.misses += 1;
                        } else {
                            self.stats.hits += 1;
                        }
                    }
                    self.deliver(frame, cursor, layout, out);
                }
                Some(frame) => {
                    if !counted {
                        if self.own_demand(frame, cursor) {
                            self.stats.misses += 1;
                        } else {
                            self.stats.inflight_waits += 1;
                        }
                    }
                    // PG_readahead on a page still under I/O starts the next window too (filemap_get_pages
                    // checks the flag before waiting for the page to become uptodate).
                    self.check_marker(frame, cursor, layout, out);
                    cursor.counted = Some(idx);
                    out.status = ReadStatus::Blocked { fetch: self.fetch_of[frame as usize] };
                    return;
                }
                None => {
                    if !counted {
                        self.stats.misses += 1;
                        self.note_thrash(key, cursor.stream);
                    }
                    cursor.counted = Some(idx);
                    let ctx = self.ctx(cursor);
                    let window = self.prefetcher.on_sync_miss(&ctx, &View(&self.table));
                    assert!(
                        window.contains(idx),
                        "sync readahead window {window:?} misses the demanded page {idx}"
                    );
                    self.submit(window, cursor, true, layout, out);
                    match self.table.lookup(key) {
                        Some(frame) => {
                            out.status = ReadStatus::Blocked { fetch: self.fetch_of[frame as usize] };
                        }
                        None => {
                            self.stats.reclaim_stalls += 1;
                            out.status = ReadStatus::NoMemory;
                        }
                    }
                    return;
                }
            }
        }
        unreachable!("read loop ran past its bound");
    }

    /// A fetch completed: its pages become valid and join the replacement policy.
    pub fn fetch_done(&mut self, _now: Nanos, fetch: &Fetch) {
        for i in 0..fetch.pages as u64 {
            let key = PageKey::new(fetch.file, fetch.first_page + i).raw();
            let frame = self.table.lookup(key).expect("a fetched page lost its frame while in flight");
            let f = frame as usize;
            assert_eq!(self.flags[f] & flag::UPTODATE, 0, "page fetched twice");
            assert_eq!(self.fetch_of[f], fetch.id, "page belongs to another fetch");
            self.flags[f] |= flag::UPTODATE;
            self.in_flight -= 1;
            let access = Access {
                key,
                vtime: self.tick(),
                next_vtime: NEVER,
                lbn: self.lbn[f],
                prefetch: self.flags[f] & flag::DEMANDED == 0,
            };
            self.policy.on_insert(frame, &access, &mut self.table.shadows());
        }
        self.check_conservation();
    }

    fn tick(&mut self) -> u64 {
        self.vtime += 1;
        self.vtime
    }

    fn ctx(&self, cursor: &ReadCursor) -> ReadCtx {
        ReadCtx {
            stream: cursor.stream,
            file: cursor.file,
            index: cursor.next,
            req_pages: cursor.last - cursor.next,
            file_pages: cursor.file_pages,
        }
    }

    /// Hand the uptodate page in `frame` to the reader: its access, and the async readahead trigger.
    fn deliver(
        &mut self,
        frame: FrameId,
        cursor: &mut ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        let f = frame as usize;
        let key = self.table.key(frame);
        if self.own_demand(frame, cursor) {
            // Its insertion into the policy was this call's access.
            self.flags[f] &= !flag::DEMANDED;
        } else {
            if self.flags[f] & flag::PREFETCHED != 0 {
                self.flags[f] &= !flag::PREFETCHED;
                self.stats.prefetched_used += 1;
            }
            let access =
                Access { key, vtime: self.tick(), next_vtime: NEVER, lbn: self.lbn[f], prefetch: false };
            self.policy.on_hit(frame, &access, &mut self.table.shadows());
        }
        self.check_marker(frame, cursor, layout, out);
        cursor.next += 1;
        cursor.counted = None;
        out.pages_delivered += 1;
    }

    fn check_marker(
        &mut self,
        frame: FrameId,
        cursor: &ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        let f = frame as usize;
        if self.flags[f] & flag::MARKER == 0 {
            return;
        }
        self.flags[f] &= !flag::MARKER;
        let ctx = self.ctx(cursor);
        if let Some(window) = self.prefetcher.on_marker_hit(&ctx, &View(&self.table)) {
            self.submit(window, cursor, false, layout, out);
        }
    }

    /// Allocate frames for the not-cached pages of `window` and emit their fetches. When `sync`, the
    /// page at `cursor.next` is the demanded one.
    fn submit(
        &mut self,
        window: Window,
        cursor: &ReadCursor,
        sync: bool,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        let pages = window.pages(cursor.file_pages);
        if pages.is_empty() {
            return;
        }
        let marker_page = window.marker_page(cursor.file_pages);
        // A synchronous window brings the rest of the reader's call as demand pages (Linux reads them
        // through readahead too, but they are accessed by this very call: not prefetched).
        let demanded = sync.then_some(cursor.next..cursor.last);
        self.runs.clear();
        layout.runs(cursor.file, pages.start, pages.end - pages.start, &mut self.runs);
        let runs = std::mem::take(&mut self.runs);
        for run in &runs {
            self.submit_run(run, cursor, demanded.clone(), marker_page, out);
        }
        self.runs = runs;
        self.check_conservation();
    }

    /// Allocate the absent pages of one disk run; consecutive allocated pages form one fetch.
    fn submit_run(
        &mut self,
        run: &DiskRun,
        cursor: &ReadCursor,
        demanded: Option<std::ops::Range<u64>>,
        marker_page: Option<u64>,
        out: &mut ReadOutcome,
    ) {
        let mut open: Option<Fetch> = None;
        for i in 0..run.pages {
            let idx = run.file_page + i;
            let key = PageKey::new(cursor.file, idx).raw();
            let is_demand = demanded.as_ref().is_some_and(|r| r.contains(&idx));
            let frame = if self.table.lookup(key).is_some() {
                None // cached pages split the batch and never take the marker
            } else {
                self.allocate(key)
            };
            let Some(frame) = frame else {
                if self.table.lookup(key).is_none() && !is_demand {
                    self.stats.prefetch_dropped += 1;
                }
                if let Some(f) = open.take() {
                    out.fetches.push(f);
                }
                continue;
            };
            let f = frame as usize;
            if is_demand {
                if idx != cursor.next {
                    // Requested now, though the call meets it later: the moment that decides thrashing.
                    self.note_thrash(key, cursor.stream);
                }
                self.demand_read[f] = cursor.id;
            }
            self.flags[f] = if is_demand { flag::DEMANDED } else { flag::PREFETCHED };
            if marker_page == Some(idx) {
                self.flags[f] |= flag::MARKER;
            }
            self.owner[f] = cursor.stream;
            self.lbn[f] = run.lbn + i;
            self.in_flight += 1;
            self.stats.pages_fetched += 1;
            if !is_demand {
                self.stats.pages_prefetched += 1;
            }
            match open.as_mut() {
                Some(fetch) => {
                    fetch.pages += 1;
                    fetch.sync |= is_demand;
                }
                None => {
                    self.next_fetch += 1;
                    open = Some(Fetch {
                        id: self.next_fetch,
                        file: cursor.file,
                        first_page: idx,
                        lbn: run.lbn + i,
                        pages: 1,
                        sync: is_demand,
                        owner: cursor.stream,
                    });
                }
            }
            self.fetch_of[f] = open.as_ref().expect("open fetch").id;
        }
        if let Some(f) = open {
            out.fetches.push(f);
        }
    }

    /// A frame for `key`: a free one, or one freed by evicting the policy's victim. `None` when every
    /// frame is pinned by in-flight I/O.
    fn allocate(&mut self, key: u64) -> Option<FrameId> {
        if self.table.is_full() {
            if self.policy.is_empty() {
                return None;
            }
            let incoming = Access::demand(key, self.vtime);
            let victim = self.policy.evict(&incoming, &mut self.table.shadows());
            self.evicted(victim);
        }
        Some(self.table.insert(key))
    }

    fn evicted(&mut self, frame: FrameId) {
        let f = frame as usize;
        debug_assert_ne!(self.flags[f] & flag::UPTODATE, 0, "the policy evicted a page under I/O");
        self.stats.evictions += 1;
        let key = self.table.remove(frame);
        if self.flags[f] & flag::PREFETCHED != 0 {
            self.stats.evicted_unused += 1;
            self.remember_unused(key, self.owner[f]);
        }
        if self.flags[f] & flag::DEMANDED != 0 {
            self.stats.demand_lost += 1;
        }
        self.flags[f] = 0;
    }

    fn remember_unused(&mut self, key: u64, owner: StreamId) {
        if self.thrash_history_pages == 0 {
            return;
        }
        if self.thrash_ghost.insert(key, owner).is_none() {
            self.thrash_order.push_back(key);
        }
        // Bounded: drop the oldest entries (stale order entries of re-missed keys are skipped).
        while self.thrash_ghost.len() > self.thrash_history_pages as usize {
            let old = self.thrash_order.pop_front().expect("order tracks every ghost");
            self.thrash_ghost.remove(&old);
        }
        if self.thrash_order.len() > 2 * self.thrash_history_pages as usize {
            let ghost = &self.thrash_ghost;
            self.thrash_order.retain(|k| ghost.contains_key(k));
        }
    }

    /// The page in `frame` was fetched by this very call's synchronous window.
    fn own_demand(&self, frame: FrameId, cursor: &ReadCursor) -> bool {
        let f = frame as usize;
        self.flags[f] & flag::DEMANDED != 0 && self.demand_read[f] == cursor.id
    }

    fn note_thrash(&mut self, key: u64, stream: StreamId) {
        if let Some(owner) = self.thrash_ghost.remove(&key) {
            if owner == stream {
                self.stats.thrash_pages += 1;
            }
        }
    }

    fn check_conservation(&self) {
        assert_eq!(
            self.table.len(),
            self.policy.len() + self.in_flight,
            "page conservation: frames in use != resident + in flight"
        );
        assert!(self.table.len() <= self.table.capacity(), "memory budget exceeded");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Files laid out back to back: file f's page i is at LBN f * 1000 + i.
    struct Flat;
    impl Layout for Flat {
        fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
            out.push(DiskRun { file_page: start, lbn: file.0 as u64 * 1000 + start, pages: n });
        }
    }

    fn cache(memory_pages: u32, prefetch: &str) -> BufferCache {
        cache_with(memory_pages, prefetch, PolicyKind::Lru)
    }

    fn cache_with(memory_pages: u32, prefetch: &str, policy: PolicyKind) -> BufferCache {
        BufferCache::new(BufferCacheConfig {
            memory_pages,
            policy,
            prefetcher: prefetch.parse().unwrap(),
            thrash_history_pages: 64,
        })
    }

    /// (first page, pages) of each fetch.
    fn spans(out: &ReadOutcome) -> Vec<(u64, u32)> {
        out.fetches.iter().map(|f| (f.first_page, f.pages)).collect()
    }

    #[test]
    fn demand_read_without_prefetching() {
        let mut c = cache(8, "none");
        let mut out = ReadOutcome::default();
        let mut cur = c.begin_read(StreamId(1), FileId(0), 0, 2, 100);
        c.read(Nanos(0), &mut cur, &Flat, &mut out);
        // The whole request is one window: pages 0-1 in one fetch, reader blocked on it.
        assert_eq!(spans(&out), vec![(0, 2)]);
        let fetch = out.fetches[0];
        assert!(fetch.sync && fetch.lbn == 0);
        assert_eq!(out.status, ReadStatus::Blocked { fetch: fetch.id });
        assert_eq!((c.in_flight_pages(), c.resident_pages()), (2, 0));
        c.fetch_done(Nanos(10), &fetch);
        assert_eq!((c.in_flight_pages(), c.resident_pages()), (0, 2));
        c.read(Nanos(10), &mut cur, &Flat, &mut out);
        assert_eq!(out.status, ReadStatus::Done);
        assert_eq!(out.pages_delivered, 2);
        let s = c.stats();
        // Both pages of the call were absent: two misses, nothing prefetched.
        assert_eq!((s.misses, s.hits, s.inflight_waits), (2, 0, 0));
        assert_eq!((s.pages_fetched, s.pages_prefetched, s.prefetched_used), (2, 0, 0));
        // Reading again hits.
        let mut cur = c.begin_read(StreamId(1), FileId(0), 0, 2, 100);
        c.read(Nanos(20), &mut cur, &Flat, &mut out);
        assert_eq!((out.status, out.pages_delivered), (ReadStatus::Done, 2));
        assert_eq!(c.stats().hits, 2);
    }

    /// readahead.md §6 through the cache: windows 0-3 (mark 1), 4-11 (mark 4), 12-27 (mark 12).
    #[test]
    fn linux_readahead_pipeline() {
        let mut c = cache(64, "linux");
        let mut out = ReadOutcome::default();
        let mut fetched = Vec::new();
        for page in 0..13u64 {
            let mut cur = c.begin_read(StreamId(1), FileId(2), page, page + 1, 1000);
            for _ in 0..4 {
                c.read(Nanos(page), &mut cur, &Flat, &mut out);
                for f in out.fetches.clone() {
                    fetched.push((f.first_page, f.pages, f.sync));
                    c.fetch_done(Nanos(page), &f);
                }
                if out.status == ReadStatus::Done {
                    break;
                }
            }
            assert_eq!(out.status, ReadStatus::Done, "page {page}");
        }
        assert_eq!(fetched, vec![(0, 4, true), (4, 8, false), (12, 16, false), (28, 32, false)]);
        let s = c.stats();
        assert_eq!((s.misses, s.hits), (1, 12));
        assert_eq!((s.pages_prefetched, s.prefetched_used), (59, 12));
    }

    #[test]
    fn pinned_memory_stalls_reads_and_prefetch_is_dropped() {
        let mut c = cache(4, "none");
        let mut out = ReadOutcome::default();
        let mut a = c.begin_read(StreamId(1), FileId(0), 0, 4, 100);
        c.read(Nanos(0), &mut a, &Flat, &mut out);
        let fa = out.fetches[0];
        assert_eq!(spans(&out), vec![(0, 4)]);
        // Every frame is in flight: another reader cannot get memory.
        let mut b = c.begin_read(StreamId(2), FileId(1), 0, 1, 100);
        c.read(Nanos(1), &mut b, &Flat, &mut out);
        assert_eq!(out.status, ReadStatus::NoMemory);
        assert!(out.fetches.is_empty());
        assert_eq!(c.stats().reclaim_stalls, 1);
        c.fetch_done(Nanos(2), &fa);
        // Now a victim exists.
        c.read(Nanos(3), &mut b, &Flat, &mut out);
        assert_eq!(spans(&out), vec![(0, 1)]);
        let s = c.stats();
        assert_eq!(
            (s.misses, s.evictions),
            (2, 1),
            "a's pages 1-3 are not met yet; b's retry is not a second miss"
        );
    }

    #[test]
    fn thrashing_is_a_miss_by_the_owner_on_its_evicted_prefetch() {
        // Stream 1 reads page 0: Linux readahead brings 0-3 (1-3 prefetched). Stream 2's scattered reads
        // then evict all four; stream 1 coming back for page 3 is prefetch thrashing.
        let mut c = cache(6, "linux");
        let mut out = ReadOutcome::default();
        let mut a = c.begin_read(StreamId(1), FileId(0), 0, 1, 100);
        c.read(Nanos(0), &mut a, &Flat, &mut out);
        assert_eq!(spans(&out), vec![(0, 4)]);
        let f = out.fetches[0];
        c.fetch_done(Nanos(1), &f);
        c.read(Nanos(2), &mut a, &Flat, &mut out);
        assert_eq!(out.status, ReadStatus::Done);
        for p in [10u64, 20, 30, 40, 50, 60] {
            let mut b = c.begin_read(StreamId(2), FileId(1), p, p + 1, 100);
            c.read(Nanos(3), &mut b, &Flat, &mut out);
            assert_eq!(spans(&out), vec![(p, 1)], "a scattered read is not read ahead");
            let f = out.fetches[0];
            c.fetch_done(Nanos(4), &f);
        }
        let s = c.stats();
        assert_eq!((s.evictions, s.evicted_unused), (4, 3), "pages 1-3 were prefetched and never read");
        let mut a3 = c.begin_read(StreamId(1), FileId(0), 3, 4, 100);
        c.read(Nanos(5), &mut a3, &Flat, &mut out);
        assert_eq!(c.stats().thrash_pages, 1);
        // Another stream missing on page 2 is not thrashing (not the owner).
        let mut b2 = c.begin_read(StreamId(2), FileId(0), 2, 3, 100);
        c.read(Nanos(6), &mut b2, &Flat, &mut out);
        assert_eq!(c.stats().thrash_pages, 1);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Random reads by several streams, fetches completing in random order: pages are conserved, the
        /// budget holds, and every read finishes, under every policy (a page can get its frame while its key
        /// is still a policy's shadow entry, and reach the policy after the CLOCK hand has moved on).
        #[test]
        fn conservation_under_random_interleavings(
            memory in 4u32..40,
            prefetch in prop::sample::select(vec!["none", "linux", "linux:64KiB", "tp:8-8"]),
            policy in prop::sample::select(PolicyKind::ALL.to_vec()),
            reads in prop::collection::vec((0u32..4, 0u32..3, 0u64..60, 1u64..12), 1..40),
            order in prop::collection::vec(any::<u16>(), 200),
        ) {
            let mut c = cache_with(memory, prefetch, policy);
            let mut out = ReadOutcome::default();
            let mut pending: Vec<Fetch> = Vec::new();
            let mut cursors: Vec<ReadCursor> = reads
                .iter()
                .map(|&(s, f, start, len)| c.begin_read(StreamId(s), FileId(f), start, (start + len).min(64), 64))
                .collect();
            let mut pick = order.iter().cycle();
            let mut steps = 0;
            while cursors.iter().any(|c| !c.is_done()) || !pending.is_empty() {
                steps += 1;
                prop_assert!(steps < 100_000, "no progress");
                // Advance every unfinished read once, then complete one pending fetch.
                for cur in cursors.iter_mut().filter(|c| !c.is_done()) {
                    c.read(Nanos(steps), cur, &Flat, &mut out);
                    pending.extend(out.fetches.iter().copied());
                    prop_assert!(c.in_flight_pages() + c.resident_pages() <= memory);
                }
                if !pending.is_empty() {
                    let i = *pick.next().unwrap() as usize % pending.len();
                    let f = pending.swap_remove(i);
                    c.fetch_done(Nanos(steps), &f);
                }
            }
            let s = c.stats();
            let delivered: u64 = reads.iter().map(|&(_, _, start, len)| (start + len).min(64) - start).sum();
            // Every (call, page) is counted once, as a hit, a miss or a wait.
            prop_assert_eq!(s.hits + s.misses + s.inflight_waits, delivered);
            prop_assert_eq!(c.in_flight_pages(), 0);
            c.table.check();
        }
    }
}
