//! The buffer cache's write side: `write()` calls that dirty file pages, faults on anonymous memory,
//! writeback of dirty file pages, and reclaim's writes (dirty file pages to their place on disk, anonymous
//! pages to swap). The state lives in [`super::dirty`] and [`super::swap`]; this file is the protocol.
//!
//! Driver protocol, beside the read cursor's:
//! - `begin_write(now, stream, file, offset_bytes, len_bytes, file_pages) -> WriteCursor`, then
//!   `write(now, &mut cursor, layout, out)` until `out.status` is `Done`. A page the call covers only in part
//!   is read first if absent (`Blocked`, as a read); `Throttled` means the writer started the writes in
//!   `out.fetches` and sleeps before calling again: `blk_congestion_wait(WRITE, …)`, until a write
//!   request is freed below the queue's congestion-off threshold or for [`WritebackConfig::throttle_sleep`].
//! - `begin_touch(now, stream, region, page, write) -> TouchCursor`, then `touch(now, &mut cursor, out)`
//!   until `Done`: a page fault on anonymous memory (zero-filled at first touch, read from swap with swap
//!   readahead after it was swapped out).
//! - `writeback(now, Writeback::Kupdate | Background, max_pages, room, out) -> WritebackPass`: one pass of
//!   pdflush's `writeback_inodes()`, which stops where the disk's queue would be congested when the driver
//!   passes its [`WriteRoom`] (2.6's `wbc.nonblocking`); the driver loops the passes as `wb_kupdate()` and
//!   `background_writeout()` do, and `writeback_wanted()` says when background writeback is due. Writes
//!   complete through [`super::BufferCache::fetch_done`] like reads (`Fetch::write`).
//! - `anon_released(now, region)`: the region's owner exited; its pages and swap slots are freed.
//!
//! Page states (the conservation the tests check): a page is in flight (read), resident (clean, dirty,
//! under writeback, or both), being written by reclaim (out of the policy, memory still held), or swapped
//! (anonymous, only in its swap slot).

use super::dirty::WritebackConfig;
use super::page_cache::{flag, Incoming, Writing, NO_SWAP_SLOT};
use super::{check_file, check_no_pins};
use super::{BufferCache, Fetch, Layout, Observer, ReadCursor, ReadOutcome, ReadStatus, WriteCause};
use crate::error::CoreError;
use crate::key::{FileId, Lbn, PageKey, StreamId};
use crate::metadata::Gfp;
use crate::policy::FrameId;
use crate::prefetch::Window;
use crate::time::Nanos;

/// `MAX_WRITEBACK_PAGES`: pages one pdflush pass writes at most (`mm/page-writeback.c`).
pub const MAX_WRITEBACK_PAGES: u64 = 1024;

/// How much a pdflush pass may write before the disk's queue is congested. 2.6.18's pdflush writes with
/// `wbc.nonblocking`: `sync_sb_inodes()` and `mpage_writepages()` stop the pass (`encountered_congestion`)
/// once `bdi_write_congested()`, instead of sleeping on a full queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteRoom {
    /// Write requests the queue can allocate before it is congested (0 when it is).
    pub requests: u32,
    /// Pages in one request (the queue's largest request): a write of more pages takes more requests.
    pub request_pages: u32,
}

/// What one pdflush pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WritebackPass {
    /// Pages whose write started.
    pub pages: u64,
    /// The pass stopped because its next request would find the queue congested
    /// (`wbc.encountered_congestion`).
    pub congested: bool,
}

/// A `write()` call in progress: pages `[next, last)` of `file`. Made by [`BufferCache::begin_write`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteCursor {
    pub id: u64,
    pub stream: StreamId,
    pub file: FileId,
    pub next: u64,
    pub last: u64,
    pub file_pages: u64,
    /// A page the call writes only in part (its first or last page), which must be read first if absent.
    partial: [Option<u64>; 2],
    counted: Option<u64>,
}

impl WriteCursor {
    pub fn is_done(&self) -> bool {
        self.next >= self.last
    }
}

/// A page fault on anonymous memory in progress. Made by [`BufferCache::begin_touch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TouchCursor {
    pub id: u64,
    pub stream: StreamId,
    pub key: PageKey,
    pub write: bool,
    counted: bool,
    faulted: bool,
    done: bool,
}

impl TouchCursor {
    /// Whether the touch faulted (the page was not resident and mapped: zero-filled, swapped in, or waited
    /// for); a touch of a resident page is a plain load or store.
    pub fn faulted(&self) -> bool {
        self.faulted
    }
}

/// Which of pdflush's passes runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writeback {
    /// `wb_kupdate()`: every page of inodes dirtied more than `expire` ago.
    Kupdate,
    /// `background_writeout()`: any dirty pages, while more than the background ratio of memory is dirty.
    Background,
}

impl<O: Observer> BufferCache<O> {
    /// The dirty limits in pages: (`dirty_thresh`, `background_thresh`) of the memory caches may use.
    pub fn dirty_limits(&self) -> (u64, u64) {
        let usable = self.memory.usable_pages() as u64;
        let c: &WritebackConfig = &self.writeback;
        (usable * c.dirty_ratio_pct as u64 / 100, usable * c.background_ratio_pct as u64 / 100)
    }

    /// Background writeback is due: more than the background ratio of memory is dirty.
    pub fn writeback_wanted(&self) -> bool {
        self.dirty.dirty() > self.dirty_limits().1
    }

    pub fn writeback_config(&self) -> &WritebackConfig {
        &self.writeback
    }

    /// Start a `write()` of `len_bytes` at `offset_bytes` of `file` (of `file_pages` pages) by `stream`.
    /// Errors for an empty write, one past the end of the file, or a file that is not a regular one.
    pub fn begin_write(
        &mut self,
        now: Nanos,
        stream: StreamId,
        file: FileId,
        offset_bytes: u64,
        len_bytes: u64,
        file_pages: u64,
    ) -> Result<WriteCursor, CoreError> {
        let page = crate::PAGE_SIZE_BYTES;
        let end = offset_bytes.checked_add(len_bytes).filter(|_| len_bytes > 0);
        let Some(end) = end.filter(|&e| e.div_ceil(page) <= file_pages && file.is_regular()) else {
            return Err(CoreError::BadRead(format!(
                "write of {len_bytes} bytes at {offset_bytes} of file {} ({file_pages} pages)",
                file.0
            )));
        };
        check_file(file, file_pages)?;
        let (first, last) = (offset_bytes / page, end.div_ceil(page));
        let head_partial =
            !offset_bytes.is_multiple_of(page) || (last == first + 1 && !end.is_multiple_of(page));
        let tail_partial = !end.is_multiple_of(page);
        Ok(WriteCursor {
            id: self.begin_call(now, stream),
            stream,
            file,
            next: first,
            last,
            file_pages,
            partial: [head_partial.then_some(first), tail_partial.then_some(last - 1)],
            counted: None,
        })
    }

    /// Continue the write `cursor`: dirty its pages until one must be read first; at the end, throttle the
    /// writer if dirty memory is above the limit (`balance_dirty_pages()`). Fills `out`. Errors as
    /// [`BufferCache::read`] does, for pins `out` still holds and for a `layout` that does not map a page
    /// the write must read first.
    pub fn write(
        &mut self,
        now: Nanos,
        cursor: &mut WriteCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) -> Result<(), CoreError> {
        check_no_pins(out)?;
        self.write_pages(now, cursor, layout, out);
        self.call_result()
    }

    /// [`BufferCache::write`], its arguments checked.
    fn write_pages(
        &mut self,
        now: Nanos,
        cursor: &mut WriteCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        out.clear();
        self.begin_allocating(Gfp::Kernel);
        let bound = cursor.last.saturating_sub(cursor.next) + 1;
        for _ in 0..bound {
            if cursor.is_done() {
                out.status = self.balance_dirty_pages(now, cursor.stream, out);
                return;
            }
            let idx = cursor.next;
            let key = PageKey::new(cursor.file, idx);
            let found = self.find(key);
            if cursor.counted != Some(idx) {
                self.report_access(now, cursor.stream, key, found, cursor.id);
            }
            match found {
                Some(frame) if self.pages.is_uptodate(frame) => {
                    if !self.consume_own_demand(frame, cursor.id) {
                        self.used(now, frame, key, cursor.stream);
                    }
                    self.make_dirty(now, frame, cursor.stream);
                    cursor.next += 1;
                    cursor.counted = None;
                    out.pages_delivered += 1;
                }
                Some(frame) => {
                    cursor.counted = Some(idx);
                    out.status = ReadStatus::Blocked { fetch: self.fetch_of(frame) };
                    return;
                }
                None => {
                    cursor.counted = Some(idx);
                    if cursor.partial.contains(&Some(idx)) {
                        // Read-modify-write: the page is read alone, with no readahead (`prepare_write`).
                        let rc = self.write_read_cursor(cursor, idx);
                        self.submit(now, Window::exact(idx, 1), &rc, true, layout, out);
                        out.status = self.blocked_on_fetch_of(now, key, cursor.stream);
                        return;
                    }
                    // A whole page overwritten needs no read.
                    let lbn = lbn_of(layout, cursor.file, idx);
                    match self.insert_valid(now, key, lbn, cursor.stream, NO_SWAP_SLOT, out) {
                        Some(frame) => self.make_dirty(now, frame, cursor.stream),
                        None => {
                            out.status = self.stall(now, cursor.stream);
                            return;
                        }
                    }
                    cursor.next += 1;
                    cursor.counted = None;
                    out.pages_delivered += 1;
                }
            }
        }
        unreachable!("write loop ran past its bound");
    }

    /// Start a page fault on page `page` of anonymous region `region` by `stream` (`write`: a store).
    pub fn begin_touch(
        &mut self,
        now: Nanos,
        stream: StreamId,
        region: u32,
        page: u64,
        write: bool,
    ) -> Result<TouchCursor, CoreError> {
        if region >= FileId::ANON_REGIONS || page > PageKey::INDEX_MAX {
            return Err(CoreError::BadRead(format!("anonymous page {page} of region {region}")));
        }
        Ok(TouchCursor {
            id: self.begin_call(now, stream),
            key: PageKey::new(FileId::anon(region), page),
            stream,
            write,
            counted: false,
            faulted: false,
            done: false,
        })
    }

    /// Continue the fault `cursor`: a hit, a zero-filled page at its first touch, or a read from swap (with
    /// swap readahead) after it was swapped out. Fills `out`. Errors, doing nothing, if `out` still holds
    /// pins of an earlier call.
    pub fn touch(
        &mut self,
        now: Nanos,
        cursor: &mut TouchCursor,
        out: &mut ReadOutcome,
    ) -> Result<(), CoreError> {
        check_no_pins(out)?;
        self.touch_page(now, cursor, out);
        Ok(())
    }

    /// [`BufferCache::touch`], its arguments checked.
    fn touch_page(&mut self, now: Nanos, cursor: &mut TouchCursor, out: &mut ReadOutcome) {
        out.clear();
        self.begin_allocating(Gfp::Kernel);
        if cursor.done {
            return;
        }
        let key = cursor.key;
        let found = self.find(key);
        let first_encounter = !std::mem::replace(&mut cursor.counted, true);
        let own = first_encounter && self.report_access(now, cursor.stream, key, found, cursor.id);
        match found {
            Some(frame) if self.pages.is_uptodate(frame) => {
                if first_encounter {
                    cursor.faulted = own;
                }
                if !self.consume_own_demand(frame, cursor.id) {
                    self.used(now, frame, key, cursor.stream);
                }
                if cursor.write {
                    self.make_dirty(now, frame, cursor.stream);
                }
                cursor.done = true;
                out.pages_delivered = 1;
            }
            Some(frame) => {
                cursor.faulted = true;
                out.status = ReadStatus::Blocked { fetch: self.fetch_of(frame) };
            }
            None => {
                cursor.faulted = true;
                match self.swapped.get(&key.raw()).copied() {
                    Some(slot) => {
                        self.swap_in(now, cursor, slot, out);
                        out.status = self.blocked_on_fetch_of(now, key, cursor.stream);
                    }
                    None => {
                        // First touch: a zero-filled page, which only swap can hold once it is evicted;
                        // it has no disk location until then.
                        match self.insert_valid(now, key, Lbn::NONE, cursor.stream, NO_SWAP_SLOT, out) {
                            Some(frame) => {
                                self.pages.meta[frame as usize].flags |= flag::DIRTY;
                                if cursor.write {
                                    self.observer.dirtied(now, cursor.stream, key);
                                }
                                cursor.done = true;
                                out.pages_delivered = 1;
                            }
                            None => out.status = self.stall(now, cursor.stream),
                        }
                    }
                }
            }
        }
    }

    /// The owner of anonymous region `region` exited: its pages leave memory and its swap slots are
    /// freed. O(frames + swapped pages): a scan for a rare event. Returns the pages dropped; an error for
    /// a region beyond the key space (no page of it can be here).
    pub fn anon_released(&mut self, now: Nanos, region: u32) -> Result<u64, CoreError> {
        if region >= FileId::ANON_REGIONS {
            return Err(CoreError::BadRead(format!("release of anonymous region {region}")));
        }
        let file = FileId::anon(region);
        let mut dropped = u64::from(self.drop_file_pages(now, file));
        // Pages being swapped out: their memory and slots are freed when the write completes, and the
        // region's next owner may fault the same pages meanwhile.
        dropped += self.pages.retire_writing(file, |_, _| {}) as u64;
        let swap = &mut self.swap;
        self.swapped.retain(|&key, &mut slot| {
            let keep = PageKey::from_raw(key).file() != file;
            if !keep {
                swap.as_mut().expect("swapped pages without swap").free(slot);
                dropped += 1;
            }
            keep
        });
        self.check();
        Ok(dropped)
    }

    /// One pdflush pass (`writeback_inodes()`): start the writes of up to `max_pages` dirty pages that `kind`
    /// calls for into `out`, stopping where `room` says the queue would be congested (no such stop without a
    /// room: a queue without a request limit is never congested).
    ///
    /// Caller guarantees: the fetches in `out` are submitted before the next pass, so that the room it
    /// measures for that pass counts them.
    pub fn writeback(
        &mut self,
        now: Nanos,
        kind: Writeback,
        max_pages: u64,
        room: Option<WriteRoom>,
        out: &mut Vec<Fetch>,
    ) -> WritebackPass {
        let older_than = match kind {
            Writeback::Kupdate => Some(Nanos(now.0.saturating_sub(self.writeback.expire.0))),
            Writeback::Background => None,
        };
        self.write_dirty_pages(now, max_pages, older_than, room, out)
    }

    /// `balance_dirty_pages()` at the end of a write: above the dirty limit the writer writes a chunk of the
    /// oldest dirty pages itself and sleeps.
    fn balance_dirty_pages(&mut self, now: Nanos, stream: StreamId, out: &mut ReadOutcome) -> ReadStatus {
        let (limit, _) = self.dirty_limits();
        if self.dirty.dirty() + self.dirty.writeback() <= limit {
            return ReadStatus::Done;
        }
        // The writer's own writeback blocks on a full queue rather than stop at a congested one.
        let chunk = self.writeback.write_chunk_pages as u64;
        self.write_dirty_pages(now, chunk, None, None, &mut out.fetches);
        self.observer.throttled(now, stream);
        ReadStatus::Throttled
    }

    /// Start the writes of up to `max` dirty file pages, oldest inodes first, each in file order, skipping
    /// pages already under writeback; consecutive pages contiguous on disk form one write. With a `room`,
    /// the pages stop before the first that would need a request past it.
    fn write_dirty_pages(
        &mut self,
        now: Nanos,
        max: u64,
        older_than: Option<Nanos>,
        room: Option<WriteRoom>,
        out: &mut Vec<Fetch>,
    ) -> WritebackPass {
        let mut picked = Vec::new();
        self.dirty.pick(max, older_than, &mut picked);
        let mut open: Option<Fetch> = None;
        let mut pass = WritebackPass::default();
        let mut requests = 0u32;
        for (file, idx) in picked {
            let key = PageKey::new(file, idx);
            // A dirty page not resident is one reclaim took while its earlier write was in flight: it
            // comes back into the policy, still dirty, when that write completes.
            let Some(frame) = self.pages.lookup(key.raw()) else { continue };
            let f = frame as usize;
            if self.pages.meta[f].flags & flag::WRITEBACK != 0 {
                continue; // re-dirtied while its write is in flight: the next pass takes it
            }
            let lbn = self.pages.lbn_of(frame);
            let extends = open.as_ref().is_some_and(|o| {
                o.file == file && o.first_page + o.pages as u64 == idx && o.lbn + o.pages as u64 == lbn
            });
            if let Some(room) = room {
                let new_request =
                    !extends || open.as_ref().is_some_and(|o| o.pages % room.request_pages.max(1) == 0);
                if new_request && requests >= room.requests {
                    pass.congested = true;
                    break;
                }
                requests += u32::from(new_request);
            }
            self.pages.meta[f].flags = (self.pages.meta[f].flags & !flag::DIRTY) | flag::WRITEBACK;
            self.dirty.write_started(file, idx);
            self.observer.write_started(now, key, self.pages.meta[f].owner, WriteCause::Writeback);
            pass.pages += 1;
            if extends {
                open.as_mut().expect("open write").pages += 1;
            } else {
                if let Some(done) = open.take() {
                    self.issue_write(now, done, out);
                }
                open = Some(self.new_write(file, idx, lbn, self.pages.meta[f].owner));
            }
        }
        if let Some(done) = open {
            self.issue_write(now, done, out);
        }
        pass
    }

    fn new_write(&mut self, file: FileId, first_page: u64, lbn: Lbn, owner: StreamId) -> Fetch {
        self.next_fetch += 1;
        Fetch { id: self.next_fetch, file, first_page, lbn, pages: 1, sync: false, write: true, owner }
    }

    fn issue_write(&mut self, now: Nanos, fetch: Fetch, out: &mut Vec<Fetch>) {
        self.writes.insert(fetch.id, ());
        self.observer.fetch_issued(now, &fetch);
        out.push(fetch);
    }

    /// Reclaim took the dirty page `key` (now in `writing`): start its write, to its place on disk (a file
    /// page) or to a swap slot (an anonymous page; its old slot if it has one). With no swap slot to be had
    /// the page cannot leave: it goes back into the policy, and this returns `false`.
    pub(super) fn start_reclaim_write(&mut self, now: Nanos, key: PageKey, out: &mut Vec<Fetch>) -> bool {
        let w = self.pages.writing[&key.raw()];
        if w.flags & flag::WRITEBACK != 0 {
            return true; // its write is already in flight; it is freed when that completes
        }
        let fetch = if key.file().is_anon() {
            let slot = if w.anon_slot != NO_SWAP_SLOT {
                Some(w.anon_slot)
            } else {
                self.swap.as_mut().and_then(|s| s.allocate(key.raw()))
            };
            let Some(slot) = slot else {
                self.pages.rescue(key.raw());
                return false;
            };
            let lbn = self.swap.as_ref().expect("a slot without swap").lbn(slot);
            self.observer.write_started(now, key, w.owner, WriteCause::Swap);
            let entry = self.pages.writing.get_mut(&key.raw()).expect("writing");
            entry.anon_slot = slot;
            self.new_write(FileId::SWAP, slot, lbn, w.owner)
        } else {
            self.dirty.write_started(key.file(), key.index());
            self.observer.write_started(now, key, w.owner, WriteCause::Reclaim);
            self.new_write(key.file(), key.index(), w.lbn, w.owner)
        };
        let entry = self.pages.writing.get_mut(&key.raw()).expect("writing");
        entry.flags = (entry.flags & !flag::DIRTY) | flag::WRITEBACK;
        self.issue_write(now, fetch, out);
        true
    }

    /// A write completed (or `failed`): resident pages are clean (or dirty again, if it failed); pages
    /// reclaim was writing are freed (an anonymous one is now only in its swap slot), or come back into the
    /// policy if dirtied again or if the write failed.
    pub(super) fn write_done(&mut self, now: Nanos, fetch: &Fetch, failed: bool) -> Result<(), CoreError> {
        if self.writes.remove(&fetch.id).is_none() {
            return Err(CoreError::UnknownFetch(fetch.id));
        }
        for i in 0..fetch.pages as u64 {
            let file_page = fetch.file != FileId::SWAP;
            if file_page {
                self.dirty.write_done();
            }
            let Some(key) = self.page_key(fetch, i) else { continue }; // its owner exited
            let swap_slot = (!file_page).then_some(fetch.first_page + i);
            if let Some(w) = self.pages.take_stale_write(key.raw(), swap_slot) {
                self.release_written(key, w, false);
                continue;
            }
            if !self.pages.writing.contains_key(&key.raw()) {
                // Background writeback of a resident page (unless the page has left since).
                if let Some(frame) = self.pages.lookup(key.raw()).filter(|&f| self.pages.is_uptodate(f)) {
                    let f = frame as usize;
                    self.pages.meta[f].flags &= !flag::WRITEBACK;
                    if failed && file_page && self.pages.meta[f].flags & flag::DIRTY == 0 {
                        self.make_dirty(now, frame, self.pages.meta[f].owner);
                    }
                }
                continue;
            }
            let Some(w) = self.pages.writing.get(&key.raw()).copied() else { continue };
            let was_dirty = w.flags & flag::DIRTY != 0;
            if failed || was_dirty {
                // Dirtied again while written, or the write failed: the page stays, dirty, in the policy.
                let entry = self.pages.writing.get_mut(&key.raw()).expect("writing");
                entry.flags &= !flag::WRITEBACK;
                let frame = self.pages.rescue(key.raw());
                if !was_dirty {
                    // A failed write: dirty again (a file page rejoins its inode's dirty pages).
                    self.make_dirty(now, frame, w.owner);
                }
            } else {
                self.pages.writing.remove(&key.raw());
                self.release_written(key, w, true);
            }
        }
        Ok(())
    }

    /// A page reclaim wrote leaves memory; an anonymous one is then only in its swap slot (unless its owner
    /// exited: `keep_swap` false frees the slot too).
    /// Caller guarantees `w` is off `writing` (or `stale_writing`) already.
    fn release_written(&mut self, key: PageKey, w: Writing, keep_swap: bool) {
        if w.anon_slot != NO_SWAP_SLOT {
            if keep_swap {
                self.swapped.insert(key.raw(), w.anon_slot);
            } else {
                self.swap.as_mut().expect("a slot without swap").free(w.anon_slot);
            }
        }
        self.free_slot(w.slot);
    }

    /// Swap-in: the fault reads the aligned cluster of slots around `slot` (`swapin_readahead()`); pages of
    /// the cluster already in memory split it; the faulting page is the demand, the others readahead.
    fn swap_in(&mut self, now: Nanos, cursor: &TouchCursor, slot: u64, out: &mut ReadOutcome) {
        let swap = self.swap.as_ref().expect("a swapped page without swap");
        let cluster = swap.readahead(slot);
        let mut open: Option<Fetch> = None;
        for s in cluster {
            let owner = self.swap.as_ref().expect("swap").owner(s);
            let key = owner.map(PageKey::from_raw);
            let absent = key.is_some_and(|k| {
                self.swapped.get(&k.raw()) == Some(&s) && self.pages.lookup(k.raw()).is_none()
            });
            let frame = match key.filter(|_| absent) {
                Some(k) => self.swap_page_in(now, k, s, k == cursor.key, cursor, out),
                None => None,
            };
            let Some(frame) = frame else {
                if let Some(f) = open.take() {
                    self.issue(now, f, out);
                }
                continue;
            };
            let demand = key == Some(cursor.key);
            match open.as_mut() {
                Some(fetch) => {
                    fetch.pages += 1;
                    fetch.sync |= demand;
                }
                None => {
                    self.next_fetch += 1;
                    let lbn = self.swap.as_ref().expect("swap").lbn(s);
                    open = Some(Fetch {
                        id: self.next_fetch,
                        file: FileId::SWAP,
                        first_page: s,
                        lbn,
                        pages: 1,
                        sync: demand,
                        write: false,
                        owner: cursor.stream,
                    });
                }
            }
            self.join_fetch(frame, open.as_ref().expect("open read").id, s, None);
        }
        if let Some(f) = open {
            self.issue(now, f, out);
        }
        self.check();
    }

    /// Memory and a frame for anonymous page `key` coming back from `slot`.
    fn swap_page_in(
        &mut self,
        now: Nanos,
        key: PageKey,
        slot: u64,
        demand: bool,
        cursor: &TouchCursor,
        out: &mut ReadOutcome,
    ) -> Option<FrameId> {
        let lbn = self.swap.as_ref().expect("swap").lbn(slot);
        let (history, data) = self.obtain(now, key, lbn, demand, cursor.stream, out)?;
        self.swapped.remove(&key.raw());
        let page = Incoming {
            key: key.raw(),
            owner: cursor.stream,
            lbn,
            flags: if demand { flag::DEMANDED } else { flag::PREFETCHED },
            fetch: 0,
            read: if demand { cursor.id } else { 0 },
            history,
            slot: data,
            anon_slot: slot,
        };
        Some(self.pages.take_frame(page))
    }

    /// A page read from swap arrived, before it joins the policy. With swap more than half full its slot
    /// is freed now and the page is dirty again (`remove_exclusive_swap_page()` under `vm_swap_full()`):
    /// it has no disk location until it is swapped out again (`Lbn::NONE`: DULO's random block, papers/001
    /// §4.2, "anonymous pages that do not yet have mappings on disk are treated as random blocks").
    pub(super) fn swap_read_arrived(&mut self, frame: FrameId) {
        let f = frame as usize;
        let swap = self.swap.as_mut().expect("swap-in without swap");
        if swap.full() {
            swap.free(self.pages.meta[f].anon_slot());
            self.pages.meta[f].set_anon_slot(NO_SWAP_SLOT);
            self.pages.meta[f].lbn = Lbn::NONE;
            self.pages.meta[f].flags |= flag::DIRTY;
        }
    }

    /// A page that needs no read (zero-filled, or overwritten whole): memory, a frame, and the policy at
    /// once. `None` when no memory can be had.
    fn insert_valid(
        &mut self,
        now: Nanos,
        key: PageKey,
        lbn: Lbn,
        stream: StreamId,
        anon_slot: u64,
        out: &mut ReadOutcome,
    ) -> Option<FrameId> {
        let (history, slot) = self.obtain(now, key, lbn, true, stream, out)?;
        let page = Incoming {
            key: key.raw(),
            owner: stream,
            lbn,
            flags: 0,
            fetch: 0,
            read: 0,
            history,
            slot,
            anon_slot,
        };
        let frame = self.pages.insert_valid(page);
        self.observer.inserted(now, key, stream, false);
        Some(frame)
    }

    /// The page in `frame` is written to: dirty (a file page joins its inode's dirty pages).
    fn make_dirty(&mut self, now: Nanos, frame: FrameId, stream: StreamId) {
        let f = frame as usize;
        if self.pages.meta[f].flags & flag::DIRTY != 0 {
            return;
        }
        self.pages.meta[f].flags |= flag::DIRTY;
        let key = PageKey::from_raw(self.pages.table.key(frame));
        if key.file().is_regular() {
            self.dirty.dirtied(now, key.file(), key.index());
        }
        self.observer.dirtied(now, stream, key);
    }

    /// The page `key`, resident or in flight; a page reclaim is writing out is taken back into the policy
    /// (Linux finds it in the page cache).
    #[inline(always)]
    pub(super) fn find(&mut self, key: PageKey) -> Option<FrameId> {
        if let Some(frame) = self.pages.lookup(key.raw()) {
            return Some(frame);
        }
        if self.pages.being_written(key.raw()) {
            Some(self.pages.rescue(key.raw()))
        } else {
            None
        }
    }

    /// The one-page read of a partial page as a read cursor (the submit path's input).
    fn write_read_cursor(&self, cursor: &WriteCursor, idx: u64) -> ReadCursor {
        ReadCursor {
            id: cursor.id,
            stream: cursor.stream,
            file: cursor.file,
            first: idx,
            next: idx,
            last: idx + 1,
            file_pages: cursor.file_pages,
            counted: Some(idx),
            pin: false,
            gfp: Gfp::Kernel,
            ra_next: u64::MAX,
            aligned_ra: None,
            done_reported: false,
        }
    }
}

/// The disk location of page `idx` of `file`.
fn lbn_of(layout: &impl Layout, file: FileId, idx: u64) -> Lbn {
    let mut runs = Vec::with_capacity(1);
    layout.runs(file, idx, 1, &mut runs);
    runs.first().expect("the layout covers the file").lbn
}
