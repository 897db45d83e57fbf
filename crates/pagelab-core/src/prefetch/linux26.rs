//! Linux 2.6's readahead as it was before on-demand readahead (2.6.23): a *current* and an *ahead*
//! window per open file, advanced by `page_cache_readahead()` at the start of every `read()` call. This
//! is the readahead of the kernels the papers measured (Li & Shen ran 2.6.10; Zhang et al.'s "32-32" is
//! 2.6.18's), and the source of the makeup reads Li & Shen name as the cost of prefetch thrashing
//! (`../shared/papers/000_*.txt` §2: "prematurely evicted pages will have to be fetched again … many of
//! the makeup fetches are inefficient small-granularity I/O operations").
//!
//! # The algorithm (2.6.18 `mm/readahead.c`, `page_cache_readahead()` and its helpers)
//!
//! The state per (stream, file) is `struct file_ra_state`: the current window `[start, start + size)`, the
//! ahead window `[ahead_start, ahead_start + ahead_size)` (`ahead_start == 0`: none), `prev_page` (the
//! last page the algorithm looked at; `-1` before the first read), the flags `RA_FLAG_MISS` and
//! `RA_FLAG_INCACHE`, `cache_hit` and `ra_pages` (the largest window, `bdi->ra_pages`: 128 KiB).
//!
//! `do_generic_mapping_read()` (`mm/filemap.c`) calls `page_cache_readahead(index, last - index)` at the
//! first page of a call and again whenever the walk reaches the index the previous call returned
//! (`prev_page + 1`); here that is [`Prefetcher::on_read`] and [`ReadPlan::next_index`]. A call:
//! - takes the request `newsize = min(req_size, ra_pages)` pages from `offset` and moves `prev_page` to
//!   its last page; a read starting on `prev_page` itself (a re-read of the page last looked at) counts
//!   from the page after it ("sub-page sized reads");
//! - a read that does not start right after `prev_page` is random: readahead is turned off (`ra_off()`:
//!   no windows) and exactly the request is read;
//! - the first sequential read with readahead off (a first read at page 0, or a read right after a
//!   random one) opens the current window of `get_init_ra_size(newsize)` pages: ×4 the request rounded up
//!   to a power of two while that is at most `max/32`, ×2 up to `max/4`, else `max`. A request of `max`
//!   pages or more also issues the ahead window at once ("at least … 2 IOs in flight");
//! - any later sequential read without an ahead window issues one, right after the current window, of
//!   `get_next_ra_size()` pages: ×4 the current window while it is below `max/16`, else ×2, at most `max`;
//!   when the reader crosses into the ahead window, it becomes the current window and the next ahead
//!   window is issued: the ramp 4, 8, 16, 32 pages for one-page reads at 128 KiB;
//! - an ahead window the reader's request does not reach yet is skipped while the device queue is
//!   read-congested (`bdi_read_congested()`; [`CacheView::read_congested`]), and is tried again at the
//!   next call;
//! - every window issued is checked by `check_ra_success()`: a window wholly in the page cache adds its
//!   size to `cache_hit`; once `cache_hit` reaches `VM_MAX_CACHE_HIT` = 256 pages, readahead is turned off
//!   and `RA_FLAG_INCACHE` set (the file is taken to be cached: every call is then a no-op); a window
//!   that started any I/O resets `cache_hit`.
//!
//! A page the walk finds missing although readahead covered it — evicted before its reader reached it,
//! Li & Shen's prefetch thrashing — calls `handle_ra_miss()` ([`Prefetcher::on_sync_miss`]): it sets
//! `RA_FLAG_MISS`, clears `RA_FLAG_INCACHE` and `cache_hit`, and the caller reads that one page alone
//! (`readpage()`: the makeup read, one 4 KiB request). The next ahead window is then
//! `max(cur − 2, min)` pages instead of ×2/×4 (`min` = `VM_MIN_READAHEAD` = 16 KiB), and the flag is
//! cleared: windows shrink by 2 pages per thrashing episode and ramp up again from there.
//!
//! # Sources, and the version followed
//!
//! Read with the `find_string` / `read_file` tools; no kernel code is copied here.
//! - `mm/readahead.c` of 2.6.18.8 (bronson/linux-2.6.18.8-ovz-xen, identical in these functions to the
//!   copy with id 2056903): `page_cache_readahead()`, `make_ahead_window()`,
//!   `blockable_page_cache_readahead()`, `__do_page_cache_readahead()`, `check_ra_success()`,
//!   `get_init_ra_size()`, `get_next_ra_size()`, `ra_off()`, `reset_ahead_window()`,
//!   `handle_ra_miss()`, `file_ra_state_init()`; `include/linux/mm.h`: `VM_MAX_READAHEAD` 128 KiB,
//!   `VM_MIN_READAHEAD` 16 KiB, `VM_MAX_CACHE_HIT` 256 pages.
//! - `mm/filemap.c` of the same era (id 28594858), `do_generic_mapping_read()`: `next_index = index` at
//!   the start; `if (index == next_index) next_index = page_cache_readahead(…, index, last_index -
//!   index)`; then `find_get_page()`, and on `NULL` `handle_ra_miss()` and a one-page `readpage()`.
//!
//! This module follows **2.6.18 exactly**. History, from the kernel copies and the patches on the
//! mailing lists:
//! - **2.6.10** (Li & Shen's kernel) did not have this algorithm. Its `page_cache_readahead(offset)` was
//!   Andrew Morton's per-page version (a 2.6.10-rc3 diff by M. van Smoorenburg, Dec 2004, shows it in
//!   vanilla 2.6.10-rc3, Morton noting the Pratt/Pai rework was only in -mm; it was merged on 3 Jan 2005,
//!   after 2.6.10's release, for 2.6.11): called for *every page*
//!   with no request size, a `next_size` grown by 2 per hit and shrunk by 2 per seek, a first window of
//!   `max/2`, `handle_ra_miss()` shrinking `next_size` by 3 (or re-enabling readahead after a run of
//!   sequential misses), no `RA_FLAG_MISS` / `RA_FLAG_INCACHE`. pagelab does not model it.
//! - **2.6.10's congestion anomaly**, which Li & Shen's kernel corrected (papers/000 §2, its ref. \[25\],
//!   Shen, Zhong & Li, FAST'05: "one in the file system prefetching"; Li's 2.6.10 patch calls the fix
//!   `CONFIG_READAHEAD_CONGFIX`). Steven Pratt described the per-page code's behaviour under congestion
//!   on LKML (23 Sep 2004, "[PATCH/RFC] Simplified Readahead", read in a stored archive): the window's
//!   I/O was not submitted, but the current and ahead windows were left as if it had been, so readahead
//!   never issued it and the reader fell into one-page reads on the miss path. That is most likely the
//!   anomaly the FAST'05 paper names; neither its text nor the patch is reachable here, so what the fix
//!   did is not known. 2.6.11 on resets a skipped ahead window and reads it blocking once the
//!   reader reaches it (modelled, the default); Pratt's first rewrite instead "ignores the congestion
//!   case and still tries to do readahead", which `congestion=ignore` ([`Congestion::Ignore`]) models:
//!   a diagnostic of the other reading, not the experiments' default.
//! - **2.6.11** brought Steven Pratt and Ram Pai's "simplified readahead" (Antonio-Zhou/Linux-2.6.11):
//!   the two windows, the flags and `cache_hit`, but `do_generic_mapping_read()` kept a page count
//!   (`next_index += page_cache_readahead(…)`, which returned `newsize`); a one-page re-read of
//!   `prev_page` returned at once; `ra_off()` set `size = -1`; `get_init_ra_size()` squared the request
//!   up to `max/64` and gave `max/4` up to `max/4` (8 pages for a one-page read at 128 KiB, not 4);
//!   `handle_ra_miss()` did not reset `cache_hit`.
//! - **2.6.12** (Oleg Nesterov's cleanups, Feb–Mar 2005: `make_ahead_window()`, `sequential`,
//!   `return ra->prev_page + 1`) has the structure followed here, with 2.6.11's squaring
//!   `get_init_ra_size()` and an ahead window that failed (congestion) reset to nothing.
//! - Two fixes posted against 2.6.16-rc3 (Feb 2006; in 2.6.18, but which release first carried them,
//!   2.6.16, 2.6.17 or 2.6.18, could not be told from the copies at hand): Steven Pratt's ×4/×2
//!   `get_init_ra_size()` (the function the on-demand code kept, shared here with
//!   [`super::LinuxReadahead`]), and Oleg Nesterov's `reset_ahead_window()` with the `recheck:` clamp
//!   ("->prev_page can overrun the ahead window"): a failed ahead window keeps its end in `ahead_size`,
//!   and `prev_page` is clamped to it so the reader is called back before it reads past the windows.
//!
//! # Where pagelab departs from the kernel, and why
//!
//! - `__do_page_cache_readahead()`'s count of pages it started I/O on ("actual") is computed here by
//!   scanning [`CacheView::is_cached`] over the window up to EOF before the cache allocates anything:
//!   page allocation (and its failure, which stops the kernel's loop) is the buffer cache's business,
//!   which reports a refused readahead page on its own.
//! - A window is returned clamped to EOF (the kernel's loop stops at the last page) and only if it holds
//!   a page not cached; a window wholly cached or past EOF is `None`, its bookkeeping done as the
//!   kernel does it (a window past EOF counts as `cache_hit`, as `actual == 0` there).
//! - The pages of the current call inside a window are the call's demand ([`ReadPlan`]); the kernel
//!   reads them by the same readahead I/O and the reader waits on them, which is what the cache does.
//! - No `max_sane_readahead()`: `do_generic_mapping_read()` does not apply it (only `sys_readahead()`
//!   and `filemap_nopage()` do). No 2 MiB chunking: that is `force_page_cache_readahead()`, which the
//!   read path does not call. No mmap path (`filemap_nopage()`): pagelab's workloads use `read()`.
//! - `do_generic_mapping_read()` works on a copy of `f_ra` and writes it back at the end; with one read
//!   at a time per (stream, file) that is the same as working on it directly.
//! - `prev_page` is only moved by `page_cache_readahead()` (2.6.12–2.6.18 never set it from `*ppos`), so
//!   [`Prefetcher::read_done`] does nothing; [`Prefetcher::ra_state`] reports `prev_pos` as the byte just
//!   past `prev_page`.
//! - `do_generic_mapping_read()` calls again only at the exact index returned; when the returned index
//!   is not past the page the call was made at, the kernel does not call again during that read, which
//!   [`ReadPlan::next_index`] says as `u64::MAX`. It takes an empty window: with pages over 16 KiB
//!   `VM_MIN_READAHEAD` is 0 pages (as on the kernel's 64 KiB-page architectures), a thrashing miss can
//!   shrink a window to nothing, and the `recheck:` clamp then falls behind the reader (tested). With
//!   pages up to 16 KiB no window is ever empty; the property tests check that with 4 KiB pages every
//!   call returns an index past its page.
//! - Page indices are `u64` and `prev_page == -1` is `None`; the kernel's unsigned `cur - 2` in
//!   `get_next_ra_size()` is kept (it wraps for `cur < 2`, giving `max`). A spec of 0 pages is rejected
//!   (use `none`), as for `linux`.

use super::linux::{get_init_ra_size, get_next_ra_size};
use super::state::RaStates;
use super::{check_sync_window, check_window, CacheView, FileRaState, Prefetcher, ReadCtx, ReadPlan, Window};
use super::{size_text, RA_PAGES_LIMIT};
use crate::key::{FileId, StreamId};
use crate::time::Nanos;

/// `VM_MAX_CACHE_HIT`: pages of wholly cached windows in a row before readahead turns off.
pub const VM_MAX_CACHE_HIT_PAGES: u64 = 256;

/// `VM_MIN_READAHEAD`: the smallest window a thrashing miss shrinks the next one to.
pub const VM_MIN_READAHEAD_BYTES: u64 = 16 * 1024;

/// 2.6's `struct file_ra_state` (the fields `page_cache_readahead()` uses), one per (stream, file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ra26State {
    /// The current window `[start, start + size)`; `size == 0`: readahead is off.
    pub start: u64,
    pub size: u64,
    /// The ahead window; `ahead_start == 0` means none, and then `ahead_size` holds the end of the last
    /// ahead window dropped (`reset_ahead_window()`: one that failed, or `ra_off()`), which the
    /// `recheck:` clamp uses.
    pub ahead_start: u64,
    pub ahead_size: u64,
    /// The last page the algorithm looked at; `None` before the first read (the kernel's `-1`).
    pub prev_page: Option<u64>,
    /// `RA_FLAG_MISS`: a page readahead had covered was found missing; the next ahead window shrinks.
    pub flag_miss: bool,
    /// `RA_FLAG_INCACHE`: readahead is off because the file is taken to be in the page cache.
    pub flag_incache: bool,
    /// Pages of wholly cached windows in a row.
    pub cache_hit_pages: u64,
    pub ra_pages: u64,
}

impl Ra26State {
    /// `file_ra_state_init()`: everything zero, `prev_page = -1`.
    pub const fn new(ra_pages: u64) -> Ra26State {
        Ra26State {
            start: 0,
            size: 0,
            ahead_start: 0,
            ahead_size: 0,
            prev_page: None,
            flag_miss: false,
            flag_incache: false,
            cache_hit_pages: 0,
            ra_pages,
        }
    }
}

/// What one `page_cache_readahead()` call sees and issues: the page cache up to EOF, the queue's
/// congestion, and the windows `__do_page_cache_readahead()` started I/O for, in order.
struct Call<'a> {
    view: &'a dyn CacheView,
    /// [`Congestion`]: whether a window that need not block is skipped while the queue is congested.
    congestion: Congestion,
    file: FileId,
    file_pages: u64,
    windows: [Option<Window>; 2],
    issued: usize,
    /// Pages looked at, for the scan bound.
    scanned_pages: u64,
}

impl Call<'_> {
    /// `__do_page_cache_readahead(offset, nr)`: the pages of `[offset, offset + nr)` before EOF that are
    /// not in the page cache ("actual"); the window, clamped to EOF, is issued when there is one.
    fn read_pages(&mut self, offset: u64, nr: u64) -> u64 {
        let end = offset.saturating_add(nr).min(self.file_pages);
        let mut actual = 0;
        // Bounded by `nr` (at most `ra_pages`): the kernel's allocation loop.
        for page in offset..end {
            actual += !self.view.is_cached(self.file, page) as u64;
        }
        self.scanned_pages += end.saturating_sub(offset);
        if actual > 0 {
            // At most two windows per call: the current (or random) window and one ahead window, or two
            // ahead windows (a missing one, then the one after a shift); they never overlap.
            assert!(self.issued < 2, "a third window in one page_cache_readahead call at page {offset}");
            self.windows[self.issued] = Some(Window::exact(offset, end - offset));
            self.issued += 1;
        }
        actual
    }
}

impl Ra26State {
    /// `reset_ahead_window()`: no ahead window, but `ahead_start + ahead_size` kept in `ahead_size`.
    fn reset_ahead_window(&mut self) {
        self.ahead_size += self.ahead_start;
        self.ahead_start = 0;
    }

    /// `ra_off()`: readahead off. `cache_hit` and `prev_page` survive.
    fn ra_off(&mut self) {
        self.start = 0;
        self.size = 0;
        self.flag_miss = false;
        self.flag_incache = false;
        self.reset_ahead_window();
    }

    /// `get_next_ra_size()`: the ahead window's size. After a thrashing miss `max(cur - 2, min)` (the
    /// flag is consumed); otherwise the same ×4/×2 ramp as the on-demand code's function: 2.6's
    /// `min(2 * cur, max)` equals its `cur <= max / 2 ? 2 * cur : max` for integers, and ×4 only applies
    /// below `max / 16`, where it stays under `max`.
    fn get_next_ra_size(&mut self, min_pages: u64) -> u64 {
        let (cur, max) = (self.size, self.ra_pages);
        if self.flag_miss {
            self.flag_miss = false;
            // Unsigned in the kernel: `cur - 2` wraps for cur < 2 and `max()` then picks it.
            cur.checked_sub(2).map_or(max, |shrunk| shrunk.max(min_pages)).min(max)
        } else {
            get_next_ra_size(cur, max)
        }
    }

    /// `check_ra_success()`: false when readahead has just been turned off as the file is cached.
    fn check_ra_success(&mut self, nr_to_read: u64, actual: u64) -> bool {
        if actual > 0 {
            self.cache_hit_pages = 0;
            return true;
        }
        self.cache_hit_pages += nr_to_read;
        if self.cache_hit_pages >= VM_MAX_CACHE_HIT_PAGES {
            self.ra_off();
            self.flag_incache = true;
            return false;
        }
        true
    }

    /// `blockable_page_cache_readahead()`: a window that need not block is skipped (false) while the
    /// queue is read-congested.
    fn blockable_readahead(&mut self, call: &mut Call, offset: u64, nr_to_read: u64, block: bool) -> bool {
        if !block && call.congestion == Congestion::Skip && call.view.read_congested() {
            return false;
        }
        let actual = call.read_pages(offset, nr_to_read);
        self.check_ra_success(nr_to_read, actual)
    }

    /// `make_ahead_window()`: the ahead window after the current one; it blocks (ignores congestion) when
    /// forced or when the request already reaches it (`prev_page >= ahead_start`).
    fn make_ahead_window(&mut self, call: &mut Call, prev_page: u64, force: bool, min_pages: u64) -> bool {
        self.ahead_size = self.get_next_ra_size(min_pages);
        self.ahead_start = self.start + self.size;
        let block = force || prev_page >= self.ahead_start;
        let ok = self.blockable_readahead(call, self.ahead_start, self.ahead_size, block);
        if !ok && !force {
            // Congested (or turned off as cached): try again at the next call.
            self.reset_ahead_window();
        }
        ok
    }

    /// `page_cache_readahead(offset, req_size)`: returns `prev_page + 1`, the index to call at next.
    fn page_cache_readahead(&mut self, call: &mut Call, index: u64, req_pages: u64, min_pages: u64) -> u64 {
        let (mut offset, mut req_size) = (index, req_pages);
        // A read starting on the page last looked at: its first page adds nothing, count from the next.
        if self.prev_page == Some(offset) {
            req_size -= 1;
            if req_size > 0 {
                offset += 1;
            }
        }
        // `prev_page + 1` with the kernel's -1 + 1 = 0: the first read is sequential at page 0.
        let sequential = offset == self.prev_page.map_or(0, |p| p + 1);
        let max = self.ra_pages;
        let newsize = req_size.min(max);
        self.prev_page = Some(offset);
        // No request left (a re-read of one page), or the file is in the page cache.
        if newsize == 0 || self.flag_incache {
            return offset + 1;
        }
        let mut prev_page = offset + newsize - 1;
        self.prev_page = Some(prev_page);

        if sequential && self.size == 0 {
            // The first sequential read: a fresh current window, and the ahead window too when the
            // request alone fills a window.
            self.size = get_init_ra_size(newsize, max);
            self.start = offset;
            if self.blockable_readahead(call, offset, self.size, true) && req_size >= max {
                self.make_ahead_window(call, prev_page, true, min_pages);
            }
            return prev_page + 1;
        }
        if !sequential {
            // Random: readahead off, read just the request.
            self.ra_off();
            self.blockable_readahead(call, offset, newsize, true);
            return prev_page + 1;
        }
        // Sequential with a current window.
        let mut recheck = false;
        if self.ahead_start == 0 && !self.make_ahead_window(call, prev_page, false, min_pages) {
            recheck = true;
        }
        if !recheck && prev_page >= self.ahead_start {
            // The reader crossed into the ahead window: it becomes current, and the next one is issued.
            self.start = self.ahead_start;
            self.size = self.ahead_size;
            self.make_ahead_window(call, prev_page, false, min_pages);
            recheck = true;
        }
        if recheck {
            // `recheck:` never run past the (possibly failed) ahead window's end: be called back there.
            if let Some(last) = (self.ahead_start + self.ahead_size).checked_sub(1) {
                prev_page = prev_page.min(last);
            }
            self.prev_page = Some(prev_page);
        }
        prev_page + 1
    }
}

/// What an ahead window that need not block does while the device queue is read-congested.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Congestion {
    /// 2.6.11–2.6.18 (`blockable_page_cache_readahead()`): skipped, the ahead window reset, tried again
    /// at the reader's next call, and read blocking once the reader's request reaches it.
    #[default]
    Skip,
    /// Issued whatever the queue's state (`congestion=ignore`), as Steven Pratt's first "simplified
    /// readahead" did (LKML, 23 Sep 2004: "the new code ignores the congestion case and still tries to
    /// do readahead"); the reader then sleeps for a request like any submitter. One reading of Li &
    /// Shen's `CONFIG_READAHEAD_CONGFIX`, whose content is not at hand (the module doc), offered as a
    /// diagnostic.
    Ignore,
}

/// Linux 2.6.12–2.6.18's readahead (`linux-2.6`), driven through [`Prefetcher::on_read`].
#[derive(Clone, Debug)]
pub struct Linux26Readahead {
    ra_pages: u64,
    congestion: Congestion,
    /// `get_min_readahead()`: `VM_MIN_READAHEAD` in pages.
    min_pages: u64,
    page_size_bytes: u64,
    states: RaStates<Ra26State>,
}

impl Linux26Readahead {
    /// `VM_MAX_READAHEAD`: 128 KiB, the default `bdi->ra_pages`.
    pub const DEFAULT_RA_BYTES: u64 = 128 * 1024;

    /// Windows of at most `ra_pages` pages. Caller guarantees `1 <= ra_pages <= RA_PAGES_LIMIT` and
    /// `page_size_bytes >= 1`.
    pub fn new(ra_pages: u64, page_size_bytes: u64) -> Linux26Readahead {
        assert!((1..=RA_PAGES_LIMIT).contains(&ra_pages), "ra_pages {ra_pages} outside 1..={RA_PAGES_LIMIT}");
        assert!(page_size_bytes >= 1, "page size must be positive");
        Linux26Readahead {
            ra_pages,
            congestion: Congestion::Skip,
            min_pages: VM_MIN_READAHEAD_BYTES / page_size_bytes,
            page_size_bytes,
            states: RaStates::new(),
        }
    }

    /// The same readahead with `congestion` deciding what an ahead window does on a congested queue.
    pub fn with_congestion(self, congestion: Congestion) -> Linux26Readahead {
        Linux26Readahead { congestion, ..self }
    }

    pub fn ra_pages(&self) -> u64 {
        self.ra_pages
    }

    pub fn congestion(&self) -> Congestion {
        self.congestion
    }

    /// The spec that builds this prefetcher again.
    pub fn spec(&self) -> String {
        let size = size_text(self.ra_pages * self.page_size_bytes);
        match self.congestion {
            Congestion::Skip => format!("linux-2.6:{size}"),
            Congestion::Ignore => format!("linux-2.6:{size},congestion=ignore"),
        }
    }

    /// The full 2.6 state of (`stream`, `file`), for tests and debugging.
    pub fn state(&self, stream: StreamId, file: FileId) -> Option<Ra26State> {
        self.states.get(stream, file).copied()
    }
}

impl Prefetcher for Linux26Readahead {
    fn name(&self) -> &'static str {
        "linux-2.6"
    }

    /// `handle_ra_miss()` and the one-page `readpage()` of `do_generic_mapping_read()`'s
    /// `no_cached_page:` path: the makeup read.
    fn on_sync_miss(&mut self, ctx: &ReadCtx, _: &dyn CacheView) -> Window {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let ra = self.states.open(ctx.stream, ctx.file, Ra26State::new(self.ra_pages));
        ra.flag_miss = true;
        ra.flag_incache = false;
        ra.cache_hit_pages = 0;
        let w = Window::exact(ctx.index, 1);
        check_sync_window(&w, ctx, self.ra_pages);
        w
    }

    /// 2.6's windows carry no PG_readahead mark: never called by a correct cache.
    fn on_marker_hit(&mut self, _: &ReadCtx, _: &dyn CacheView) -> Option<Window> {
        None
    }

    fn on_read(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> ReadPlan {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        assert!(ctx.index < ctx.file_pages, "a read past EOF: {ctx:?}");
        let (max, min_pages) = (self.ra_pages, self.min_pages);
        let ra = self.states.open(ctx.stream, ctx.file, Ra26State::new(max));
        let mut call = Call {
            view,
            congestion: self.congestion,
            file: ctx.file,
            file_pages: ctx.file_pages,
            windows: [None, None],
            issued: 0,
            scanned_pages: 0,
        };
        let next = ra.page_cache_readahead(&mut call, ctx.index, ctx.req_pages, min_pages);
        assert!(call.scanned_pages <= 2 * max, "one call scanned {} pages", call.scanned_pages);
        for w in call.windows.iter().flatten() {
            check_window(w, max);
            assert!(w.end() <= ctx.file_pages, "window {w:?} past EOF {}", ctx.file_pages);
        }
        // The kernel calls again only when the walk reaches the returned index exactly.
        let next_index = if next > ctx.index { next } else { u64::MAX };
        ReadPlan { windows: call.windows, next_index }
    }

    /// Nothing: 2.6.12–2.6.18 keep `prev_page` as `page_cache_readahead()` left it.
    fn read_done(&mut self, _: Nanos, _: StreamId, _: FileId, _: std::ops::Range<u64>) {}

    fn stream_closed(&mut self, stream: StreamId) {
        self.states.close_stream(stream);
    }

    fn file_closed(&mut self, stream: StreamId, file: FileId) {
        self.states.close_file(stream, file);
    }

    /// Every window (initial, ahead, random, makeup) is at most `ra_pages`.
    fn window_pages_max(&self, _req_pages: u64) -> u64 {
        self.ra_pages
    }

    /// The current window, no async tail, `prev_pos` just past `prev_page`.
    fn ra_state(&self, stream: StreamId, file: FileId) -> Option<FileRaState> {
        let ra = self.states.get(stream, file)?;
        Some(FileRaState {
            start: ra.start,
            size: ra.size,
            async_size: 0,
            prev_pos: ra.prev_page.map(|p| (p + 1) * self.page_size_bytes),
            ra_pages: ra.ra_pages,
        })
    }

    fn tracked_states(&self) -> usize {
        self.states.len()
    }
}

// Expected submissions are lists of page runs, most often of one run.
#[allow(clippy::single_range_in_vec_init)]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefetch::testing::{Driver, Step, PAGE};
    use crate::time::Nanos;
    use std::ops::Range;

    const F: FileId = FileId(1);
    const S: StreamId = StreamId(1);

    fn linux26(ra_pages: u64) -> Driver<Linux26Readahead> {
        Driver::new(Linux26Readahead::new(ra_pages, PAGE))
    }

    /// One `on_read` call: the page it was made at, its windows as (start, pages), the next index.
    type Call26 = (u64, [Option<(u64, u64)>; 2], u64);

    /// (start, size, ahead_start, ahead_size) of the reader's state.
    type Windows = (u64, u64, u64, u64);

    /// One hand-traced read: the pages read, every `on_read` call it made, the windows after it.
    struct Row {
        pages: Range<u64>,
        calls: Vec<Call26>,
        after: Windows,
    }

    fn row(pages: Range<u64>, calls: &[Call26], after: Windows) -> Row {
        Row { pages, calls: calls.to_vec(), after }
    }

    /// One-page reads of `pages` that issue nothing: each call returns the next page.
    fn quiet(pages: Range<u64>, after: Windows) -> Vec<Row> {
        pages.map(|p| row(p..p + 1, &[(p, [None, None], p + 1)], after)).collect()
    }

    /// A one-page read that issues at most one window: the page, the window (start, pages), the windows
    /// after it.
    type Step1 = (u64, Option<(u64, u64)>, Windows);

    /// One-page reads from the first step's page up to `end`: the read of each step's page issues its
    /// window (or nothing) and leaves its windows; the reads in between issue nothing.
    fn reader(steps: &[Step1], end: u64) -> Vec<Row> {
        let mut rows = Vec::new();
        for (i, &(page, window, after)) in steps.iter().enumerate() {
            rows.push(row(page..page + 1, &[(page, [window, None], page + 1)], after));
            let next = steps.get(i + 1).map_or(end, |s| s.0);
            rows.extend(quiet(page + 1..next, after));
        }
        rows
    }

    fn state(d: &Driver<Linux26Readahead>) -> Ra26State {
        d.pf.state(S, F).expect("the reader has a state")
    }

    fn windows(d: &Driver<Linux26Readahead>) -> Windows {
        let ra = state(d);
        (ra.start, ra.size, ra.ahead_start, ra.ahead_size)
    }

    fn calls(step: &Step) -> Vec<Call26> {
        let pair = |w: Option<Window>| w.map(|w| (w.start, w.size));
        step.plans.iter().map(|(i, p)| (*i, [pair(p.windows[0]), pair(p.windows[1])], p.next_index)).collect()
    }

    /// Replays `rows` by stream 1 on file 1; checks every call and the windows after every read. Returns
    /// what each read did.
    fn trace(d: &mut Driver<Linux26Readahead>, rows: &[Row]) -> Vec<Step> {
        let mut out = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let step = d.read(S, F, r.pages.clone());
            let what = format!("row {i} (reads {:?})", r.pages);
            assert_eq!(calls(&step), r.calls, "{what}: on_read calls");
            assert_eq!(windows(d), r.after, "{what}: (start, size, ahead_start, ahead_size)");
            out.push(step);
        }
        out
    }

    /// The one-page reader's ramp at 128 KiB (max 32). Read 0: first read at page 0 is sequential (-1 + 1
    /// = 0), readahead is off (size 0), so the current window is get_init_ra_size(1, 32) = 4 (1 <= 32/32:
    /// ×4). Read 1: sequential, no ahead window: one of get_next_ra_size(4) = 8 (4 >= 32/16: ×2) at 0 + 4;
    /// the request (page 1) does not reach it. Reads 2-3: prev_page < ahead_start 4, nothing. Read 4
    /// crosses into the ahead window: (4, 8) becomes current, the next ahead window is ×2 = 16 at 12.
    /// Then 32 at 28 and 32 (min(64, 32)) at 60 and 92.
    #[test]
    fn one_page_reader_ramps_to_32_pages() {
        let rows = reader(
            &[
                (0, Some((0, 4)), (0, 4, 0, 0)),
                (1, Some((4, 8)), (0, 4, 4, 8)),
                (4, Some((12, 16)), (4, 8, 12, 16)),
                (12, Some((28, 32)), (12, 16, 28, 32)),
                (28, Some((60, 32)), (28, 32, 60, 32)),
                (60, Some((92, 32)), (60, 32, 92, 32)),
            ],
            61,
        );
        let mut d = linux26(32);
        let done = trace(&mut d, &rows);
        // Nothing was cached: each window is read whole, and no page was ever missing.
        let submitted: Vec<Range<u64>> = done.iter().flat_map(|s| s.submitted.clone()).collect();
        assert_eq!(submitted, [0..4, 4..12, 12..28, 28..60, 60..92, 92..124]);
        assert!(done.iter().all(|s| s.sync_windows.is_empty()));
        assert_eq!(d.scan_pages_max, 32);
    }

    /// At 512 KiB (max 128): get_init_ra_size(1, 128) = 4 (1 <= 4: ×4); get_next_ra_size ×4 while below
    /// 128/16 = 8 (4 → 16), then ×2 (16 → 32 → 64 → 128), then 128.
    #[test]
    fn one_page_reader_ramps_to_128_pages() {
        let rows = reader(
            &[
                (0, Some((0, 4)), (0, 4, 0, 0)),
                (1, Some((4, 16)), (0, 4, 4, 16)),
                (4, Some((20, 32)), (4, 16, 20, 32)),
                (20, Some((52, 64)), (20, 32, 52, 64)),
                (52, Some((116, 128)), (52, 64, 116, 128)),
                (116, Some((244, 128)), (116, 128, 244, 128)),
            ],
            117,
        );
        trace(&mut linux26(128), &rows);
    }

    /// Reads of `max` pages and more. [0, 32): newsize 32, prev_page 31; get_init_ra_size(32, 32) = 32
    /// (32 > 32/4); req_size 32 >= max, so the ahead window is forced at once: (32, 32); returns 32, past
    /// the read. [32, 64): sequential, prev_page 63 >= ahead_start 32: shift, ahead (64, 32) (not blocking:
    /// 63 < 64); recheck min(63, 95). A 64-page read returns 32 after its first half, and the walk calls
    /// again there with 32 pages left: the shift and the next ahead window.
    #[test]
    fn large_reads_force_the_ahead_window() {
        let rows = [
            row(0..32, &[(0, [Some((0, 32)), Some((32, 32))], 32)], (0, 32, 32, 32)),
            row(32..64, &[(32, [Some((64, 32)), None], 64)], (32, 32, 64, 32)),
            row(64..96, &[(64, [Some((96, 32)), None], 96)], (64, 32, 96, 32)),
        ];
        let done = trace(&mut linux26(32), &rows);
        assert_eq!(done[0].submitted, [0..32, 32..64]);

        let rows = [
            row(
                0..64,
                &[(0, [Some((0, 32)), Some((32, 32))], 32), (32, [Some((64, 32)), None], 64)],
                (32, 32, 64, 32),
            ),
            row(
                64..128,
                &[(64, [Some((96, 32)), None], 96), (96, [Some((128, 32)), None], 128)],
                (96, 32, 128, 32),
            ),
        ];
        trace(&mut linux26(32), &rows);
    }

    /// The `recheck:` clamp (2.6.17+): a request reaching past the ahead window is called back at that
    /// window's end. After one-page reads of 0 and 1 (windows (0, 4) and (4, 8)), a 32-page read from 2:
    /// prev_page 33 >= ahead_start 4, shift to (4, 8), next ahead get_next_ra_size(8) = 16 at 12, which
    /// blocks (33 >= 12); prev_page is clamped to 12 + 16 - 1 = 27, so the walk calls again at 28 with 6
    /// pages left: shift to (12, 16), ahead min(32, 32) at 28, blocking, no clamp (33 < 59). Without the
    /// clamp (2.6.12–2.6.16) the first call would return 34 and pages 28-33 would be six makeup reads.
    #[test]
    fn a_large_read_is_called_back_at_the_end_of_the_ahead_window() {
        let rows = [
            row(0..1, &[(0, [Some((0, 4)), None], 1)], (0, 4, 0, 0)),
            row(1..2, &[(1, [Some((4, 8)), None], 2)], (0, 4, 4, 8)),
            row(
                2..34,
                &[(2, [Some((12, 16)), None], 28), (28, [Some((28, 32)), None], 34)],
                (12, 16, 28, 32),
            ),
        ];
        let done = trace(&mut linux26(32), &rows);
        assert_eq!(done[2].submitted, [12..28, 28..60]);
        assert!(done[2].sync_windows.is_empty(), "no makeup read");
    }

    /// A random reader: every read not right after prev_page turns readahead off (ra_off) and reads just
    /// its request; the next sequential read turns it back on with get_init_ra_size of its request.
    #[test]
    fn random_reads_turn_readahead_off_and_sequence_turns_it_on() {
        let rows = [
            // Page 500 first: 500 != -1 + 1, random.
            row(500..501, &[(500, [Some((500, 1)), None], 501)], (0, 0, 0, 0)),
            row(800..801, &[(800, [Some((800, 1)), None], 801)], (0, 0, 0, 0)),
            // A 4-page random read reads its 4 pages; prev_page = 103.
            row(100..104, &[(100, [Some((100, 4)), None], 104)], (0, 0, 0, 0)),
            // 104 = 103 + 1 with readahead off: a current window of get_init_ra_size(1, 32) = 4.
            row(104..105, &[(104, [Some((104, 4)), None], 105)], (104, 4, 0, 0)),
            // Sequential: the ahead window, get_next_ra_size(4) = 8, at 108.
            row(105..106, &[(105, [Some((108, 8)), None], 106)], (104, 4, 108, 8)),
            // Random again: ra_off() keeps the ahead window's end (108 + 8) in ahead_size.
            row(700..701, &[(700, [Some((700, 1)), None], 701)], (0, 0, 0, 116)),
            // 40 pages away from the stream: random, min(40, 32) pages read; prev_page 1031, so the call at
            // 1032 for the 8 pages left is sequential with readahead off: get_init_ra_size(8, 32) = 16
            // (8 <= 32/4: ×2).
            row(
                1000..1040,
                &[(1000, [Some((1000, 32)), None], 1032), (1032, [Some((1032, 16)), None], 1040)],
                (1032, 16, 0, 116),
            ),
        ];
        let mut d = linux26(32);
        trace(&mut d, &rows);
        assert_eq!(state(&d).prev_page, Some(1039));
    }

    /// A read starting on prev_page (re-reading the page last looked at) counts from the page after it;
    /// a one-page re-read of it is no request at all: nothing changes, not even sequentiality.
    #[test]
    fn a_reread_of_the_last_page_is_neither_sequential_nor_random() {
        let rows = [
            // get_init_ra_size(4, 32) = 8 (4 <= 8: ×2); prev_page 3.
            row(0..4, &[(0, [Some((0, 8)), None], 4)], (0, 8, 0, 0)),
            // Starts on prev_page 3: offset 4, 3 pages, prev_page 6; the ahead window (8, 16) does not
            // block (6 < 8).
            row(3..7, &[(3, [Some((8, 16)), None], 7)], (0, 8, 8, 16)),
            // One page on prev_page 6: req_size 0, prev_page stays, no ra_off.
            row(6..7, &[(6, [None, None], 7)], (0, 8, 8, 16)),
            row(7..8, &[(7, [None, None], 8)], (0, 8, 8, 16)),
        ];
        trace(&mut linux26(32), &rows);
    }

    /// Prefetch thrashing: page 6 of the current window (4, 8) is evicted before the reader reaches it.
    /// The call at 6 issues nothing (6 < ahead_start 12), the page is missing: handle_ra_miss() and one
    /// 1-page read. The next ahead window (read 12) is max(16 - 2, 4) = 14 instead of 32; the flag is
    /// consumed, and the ramp resumes from 14 (×2 = 28, then 32).
    #[test]
    fn a_thrashed_page_is_one_makeup_read_and_shrinks_the_next_window() {
        let mut d = linux26(32);
        let rows = reader(
            &[
                (0, Some((0, 4)), (0, 4, 0, 0)),
                (1, Some((4, 8)), (0, 4, 4, 8)),
                (4, Some((12, 16)), (4, 8, 12, 16)),
            ],
            6,
        );
        trace(&mut d, &rows);

        d.evict(F, 6);
        let done = trace(&mut d, &quiet(6..7, (4, 8, 12, 16)));
        assert_eq!(done[0].sync_windows, [Window::exact(6, 1)]);
        assert_eq!(done[0].submitted, [6..7], "one 4 KiB makeup read");
        let ra = state(&d);
        assert!(ra.flag_miss && !ra.flag_incache && ra.cache_hit_pages == 0, "{ra:?}");

        let rows = reader(
            &[
                (7, None, (4, 8, 12, 16)),
                (12, Some((28, 14)), (12, 16, 28, 14)),
                (28, Some((42, 28)), (28, 14, 42, 28)),
                (42, Some((70, 32)), (42, 28, 70, 32)),
            ],
            43,
        );
        let done = trace(&mut d, &rows);
        assert!(!state(&d).flag_miss, "consumed by the shrunk window");
        assert!(done.iter().all(|s| s.sync_windows.is_empty()), "no other miss");
    }

    /// The shrink stops at VM_MIN_READAHEAD = 16 KiB = 4 pages. At 32 KiB (max 8): get_init_ra_size(1, 8)
    /// = 2 (1 <= 8/4: ×2); read 1 issues the ahead window get_next_ra_size(2) = 4 (2 >= 8/16: ×2) at 2,
    /// then finds page 1 evicted: makeup read. Read 2 crosses into (2, 4): the next window is
    /// max(4 - 2, 4) = 4, where it would have been 8.
    #[test]
    fn the_shrunk_window_is_at_least_16k() {
        let mut d = linux26(8);
        trace(&mut d, &[row(0..1, &[(0, [Some((0, 2)), None], 1)], (0, 2, 0, 0))]);
        d.evict(F, 1);
        let done = trace(&mut d, &[row(1..2, &[(1, [Some((2, 4)), None], 2)], (0, 2, 2, 4))]);
        assert_eq!(
            (done[0].sync_windows.clone(), done[0].submitted.clone()),
            (vec![Window::exact(1, 1)], vec![2..6, 1..2])
        );
        trace(&mut d, &[row(2..3, &[(2, [Some((6, 4)), None], 3)], (2, 4, 6, 4))]);
        // The same reader without the miss: 8.
        let mut d = linux26(8);
        let rows = [
            row(0..1, &[(0, [Some((0, 2)), None], 1)], (0, 2, 0, 0)),
            row(1..2, &[(1, [Some((2, 4)), None], 2)], (0, 2, 2, 4)),
            row(2..3, &[(2, [Some((6, 8)), None], 3)], (2, 4, 6, 8)),
        ];
        trace(&mut d, &rows);
    }

    /// A file wholly in the page cache. Every window finds nothing to read (actual 0) and adds its size to
    /// cache_hit: 4 (read 0), 12 (1), 28 (4), 60 (12), then +32 per window at reads 28, 60, …, 188: 252.
    /// At read 220 the ahead window (252, 32) brings it to 284 >= 256: ra_off(), RA_FLAG_INCACHE; the
    /// failed window's end 284 stays in ahead_size; recheck: min(220, 283). From then on every call
    /// returns the next page and does nothing. A miss (page 300 evicted) clears the flag; read 301 opens a
    /// window of 4 again, which reads the one missing page 303; read 302's ahead window is shrunk by the
    /// miss to max(4 - 2, 4) = 4 and finds (305, 4) cached.
    #[test]
    fn a_cached_file_turns_readahead_off_and_a_miss_turns_it_on() {
        let mut d = linux26(32);
        d.cache(F, 0..400);
        let steps = [
            (0, None, (0, 4, 0, 0)),
            (1, None, (0, 4, 4, 8)),
            (4, None, (4, 8, 12, 16)),
            (12, None, (12, 16, 28, 32)),
        ];
        trace(&mut d, &reader(&steps, 13));
        assert_eq!(state(&d).cache_hit_pages, 60);
        // Each crossing into the ahead window (shift, 32) makes it current and adds the next, +32.
        let steps: Vec<_> =
            (28..=188).step_by(32).map(|shift| (shift, None, (shift, 32, shift + 32, 32))).collect();
        trace(&mut d, &quiet(13..28, (12, 16, 28, 32)));
        trace(&mut d, &reader(&steps, 189));
        assert_eq!(state(&d).cache_hit_pages, 252);
        trace(&mut d, &quiet(189..220, (188, 32, 220, 32)));
        trace(&mut d, &quiet(220..221, (0, 0, 0, 284)));
        let ra = state(&d);
        assert!(ra.flag_incache && !ra.flag_miss && ra.cache_hit_pages == 284, "{ra:?}");

        trace(&mut d, &quiet(221..300, (0, 0, 0, 284)));
        assert_eq!(d.scan_pages_max, 32, "off: calls look at nothing");
        d.evict(F, 300);
        d.evict(F, 303);
        let done = trace(&mut d, &quiet(300..301, (0, 0, 0, 284)));
        assert_eq!(
            (done[0].sync_windows.clone(), done[0].submitted.clone()),
            (vec![Window::exact(300, 1)], vec![300..301])
        );
        let ra = state(&d);
        assert!(ra.flag_miss && !ra.flag_incache && ra.cache_hit_pages == 0, "{ra:?}");
        let rows = [
            row(301..302, &[(301, [Some((301, 4)), None], 302)], (301, 4, 0, 284)),
            row(302..303, &[(302, [None, None], 303)], (301, 4, 305, 4)),
        ];
        let done = trace(&mut d, &rows);
        assert_eq!(done[0].submitted, [303..304], "only the missing page of the window is read");
        assert_eq!((state(&d).cache_hit_pages, state(&d).flag_miss), (4, false));
    }

    /// Random reads of cached pages count too: each reads its 1-page request (random path), finds it
    /// cached (actual 0) and adds 1 to cache_hit; the 256th turns readahead off (VM_MAX_CACHE_HIT), and
    /// the sequential read after it then issues nothing.
    #[test]
    fn the_256th_cached_page_turns_readahead_off() {
        let mut d = linux26(32);
        d.cache(F, 0..1000);
        for i in 0..256u64 {
            let page = 10 + 2 * i;
            trace(&mut d, &[row(page..page + 1, &[(page, [None, None], page + 1)], (0, 0, 0, 0))]);
            let ra = state(&d);
            assert_eq!((ra.cache_hit_pages, ra.flag_incache), (i + 1, i == 255), "read {i}");
        }
        trace(&mut d, &quiet(520..522, (0, 0, 0, 0)));
        assert_eq!(state(&d).cache_hit_pages, 256, "off: nothing is checked any more");
    }

    /// A congested queue skips the ahead window while the reader's request does not reach it; the failed
    /// window keeps its end (4 + 8 = 12) in ahead_size, and the call is retried at every read. At read 4
    /// the request reaches it (prev_page 4 >= ahead_start 4): it blocks and is read despite congestion;
    /// the shift's next ahead window (12, 16) does not block and is skipped (end 28 kept). When the queue
    /// drains, read 5 issues it.
    #[test]
    fn congestion_skips_ahead_windows_that_need_not_block() {
        let mut d = linux26(32);
        trace(&mut d, &[row(0..1, &[(0, [Some((0, 4)), None], 1)], (0, 4, 0, 0))]);
        d.read_congested = true;
        trace(&mut d, &quiet(1..4, (0, 4, 0, 12)));
        assert_eq!(state(&d).cache_hit_pages, 0, "skipped windows are not checked");
        trace(&mut d, &[row(4..5, &[(4, [Some((4, 8)), None], 5)], (4, 8, 0, 28))]);
        d.read_congested = false;
        trace(&mut d, &[row(5..6, &[(5, [Some((12, 16)), None], 6)], (4, 8, 12, 16))]);

        // Congestion gone by read 4: both windows in one call, the missing one and the next.
        let mut d = linux26(32);
        trace(&mut d, &[row(0..1, &[(0, [Some((0, 4)), None], 1)], (0, 4, 0, 0))]);
        d.read_congested = true;
        trace(&mut d, &quiet(1..4, (0, 4, 0, 12)));
        d.read_congested = false;
        let done = trace(&mut d, &[row(4..5, &[(4, [Some((4, 8)), Some((12, 16))], 5)], (4, 8, 12, 16))]);
        assert_eq!(done[0].submitted, [4..12, 12..28]);
        assert_eq!(d.scan_pages_max, 24, "two windows' worth");
    }

    /// `congestion=ignore`: a congested queue changes nothing; the reader issues the windows an idle
    /// queue gets in the test above (4 at read 0, 8 at read 1, 16 at read 4).
    #[test]
    fn congestion_ignore_issues_ahead_windows_on_a_congested_queue() {
        let mut d = Driver::new(Linux26Readahead::new(32, PAGE).with_congestion(Congestion::Ignore));
        d.read_congested = true;
        trace(&mut d, &[row(0..1, &[(0, [Some((0, 4)), None], 1)], (0, 4, 0, 0))]);
        trace(&mut d, &[row(1..2, &[(1, [Some((4, 8)), None], 2)], (0, 4, 4, 8))]);
        trace(&mut d, &quiet(2..4, (0, 4, 4, 8)));
        trace(&mut d, &[row(4..5, &[(4, [Some((12, 16)), None], 5)], (4, 8, 12, 16))]);
    }

    /// A 10-page file: windows are clamped to EOF; one wholly past EOF reads nothing but counts as cached
    /// (actual 0): cache_hit 16.
    #[test]
    fn eof_clamps_windows() {
        let mut d = linux26(32).with_file_pages(F, 10);
        let rows = reader(
            &[(0, Some((0, 4)), (0, 4, 0, 0)), (1, Some((4, 6)), (0, 4, 4, 8)), (4, None, (4, 8, 12, 16))],
            10,
        );
        trace(&mut d, &rows);
        assert_eq!((d.cached_pages(), state(&d).cache_hit_pages), (10, 16));
    }

    #[test]
    fn streams_keep_their_own_state_and_close() {
        let mut d = linux26(32);
        d.read(StreamId(1), F, 0..1);
        d.read(StreamId(2), F, 500..501);
        d.read(StreamId(1), F, 1..2);
        assert_eq!(d.pf.tracked_states(), 2);
        let two = d.pf.state(StreamId(2), F).unwrap();
        assert_eq!(
            (two.size, two.prev_page),
            (0, Some(500)),
            "stream 2 is random, stream 1's ramp is its own"
        );
        assert_eq!(
            d.pf.ra_state(StreamId(1), F),
            Some(FileRaState { start: 0, size: 4, async_size: 0, prev_pos: Some(2 * PAGE), ra_pages: 32 })
        );
        d.pf.file_closed(StreamId(1), F);
        assert_eq!((d.pf.state(StreamId(1), F), d.pf.tracked_states()), (None, 1));
        d.pf.stream_closed(StreamId(2));
        assert_eq!(d.pf.tracked_states(), 0);
    }

    #[test]
    fn sizes_match_the_2_6_18_functions() {
        // get_init_ra_size (2.6.17+ form): "1-2 page = 16k, 3-4 page 32k, 5-8 page = 64k, > 8 page = 128k".
        let init: Vec<u64> = (1..=10).map(|req| get_init_ra_size(req, 32)).collect();
        assert_eq!(init, [4, 4, 8, 8, 16, 16, 16, 16, 32, 32]);
        // get_next_ra_size: 2.6's min(2 * cur, max) and the shared cur <= max / 2 ? 2 * cur : max agree.
        for max in 1..=300u64 {
            for cur in 0..=2 * max {
                let kernel = if cur < max / 16 { 4 * cur } else { 2 * cur }.min(max);
                assert_eq!(get_next_ra_size(cur, max), kernel, "cur {cur}, max {max}");
            }
        }
        // The miss branch: max(cur - 2, min) capped at max, the kernel's wrap for cur < 2.
        let mut ra = Ra26State { size: 16, flag_miss: true, ..Ra26State::new(32) };
        assert_eq!((ra.get_next_ra_size(4), ra.flag_miss), (14, false));
        for (cur, max, next) in [(5, 32, 4), (6, 32, 4), (40, 32, 32), (1, 1, 1), (1, 8, 8)] {
            let mut ra = Ra26State { size: cur, flag_miss: true, ..Ra26State::new(max) };
            assert_eq!(ra.get_next_ra_size(4), next, "cur {cur}, max {max}");
        }
    }

    #[test]
    fn the_makeup_read_is_one_page_within_the_contract() {
        struct Empty;
        impl CacheView for Empty {
            fn is_cached(&self, _: FileId, _: u64) -> bool {
                false
            }
        }
        let mut pf = Linux26Readahead::new(1, PAGE);
        let ctx = ReadCtx { now: Nanos::ZERO, stream: S, file: F, index: 7, req_pages: 5, file_pages: 100 };
        assert_eq!(pf.on_sync_miss(&ctx, &Empty), Window::exact(7, 1));
        assert!(pf.on_marker_hit(&ctx, &Empty).is_none());
        assert_eq!(pf.window_pages_max(1000), 1);
        // prev_page is untouched by a miss; read_done moves nothing.
        pf.read_done(Nanos::ZERO, S, F, 7 * PAGE..12 * PAGE);
        assert_eq!(pf.state(S, F).map(|r| r.prev_page), Some(None));
    }

    /// With 64 KiB pages VM_MIN_READAHEAD (16 KiB) is 0 pages, and a thrashing miss can shrink a 2-page
    /// window to nothing; then the returned index is not past the call's page and the kernel does not call
    /// again during that read (`u64::MAX`): the rest of the read is makeup reads. Max 2 pages (128 KiB).
    #[test]
    fn an_empty_window_stops_readahead_for_the_rest_of_the_read() {
        let mut d = Driver::new(Linux26Readahead::new(2, 65536));
        let rows = [
            // get_init_ra_size(1, 2) = max = 2; then the ahead window min(2 * 2, 2) = 2.
            row(0..1, &[(0, [Some((0, 2)), None], 1)], (0, 2, 0, 0)),
            row(1..2, &[(1, [Some((2, 2)), None], 2)], (0, 2, 2, 2)),
        ];
        trace(&mut d, &rows);
        d.evict(F, 2);
        // Read 2 crosses into (2, 2) and issues (4, 2); page 2 is missing: makeup read, RA_FLAG_MISS.
        let done = trace(&mut d, &[row(2..3, &[(2, [Some((4, 2)), None], 3)], (2, 2, 4, 2))]);
        assert_eq!(done[0].sync_windows, [Window::exact(2, 1)]);
        // [3, 6): newsize 2, prev_page 4 >= ahead_start 4: shift; the miss shrinks the next window to
        // max(2 - 2, 0) = 0 pages at 6 (nothing to read, cache_hit + 0); recheck min(4, 6 + 0 - 1) = 4.
        // At 5: prev_page 5 < 6, nothing.
        let rows = [row(3..6, &[(3, [None, None], 5), (5, [None, None], 6)], (4, 2, 6, 0))];
        trace(&mut d, &rows);
        // [6, 8): prev_page 7 >= 6: shift to the empty window (6, 0), the next is get_next_ra_size(0) = 0
        // at 6; recheck min(7, 6 + 0 - 1) = 5, so the call returns 6, its own page: never again this
        // read. Pages 6 and 7 are two makeup reads.
        let done = trace(&mut d, &[row(6..8, &[(6, [None, None], u64::MAX)], (6, 0, 6, 0))]);
        assert_eq!(done[0].sync_windows, [Window::exact(6, 1), Window::exact(7, 1)]);
        assert_eq!(state(&d).prev_page, Some(5));
    }
}
