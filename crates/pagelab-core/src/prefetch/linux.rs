//! Linux on-demand readahead, the classic algorithm of kernels 2.6.31 … 6.9 (Wu Fengguang's on-demand
//! readahead of 2.6.23, with context readahead from 2.6.31), exactly as `../shared/reference/readahead.md`
//! §4 gives it: `ondemand_readahead()` of `mm/readahead.c` (ColinIanKing/linux-next and CachyOS/linux,
//! ≈6.8/6.9), with the window sizing of §2 (`get_init_ra_size()`, `get_next_ra_size()`, unchanged since
//! 2.6.24), the trigger points and page-cache rules of §3, and the worked example of §6 as its test.
//!
//! One [`FileRaState`] per (stream, file). A miss runs the synchronous path: start of file, an oversize
//! read or a read continuing the previous one (`prev_pos`) starts an initial window; otherwise a run of
//! cached pages longer than the request just before the miss is taken for another stream's leftovers and
//! sized from (context readahead, case 4); otherwise the read is random and reads just the request,
//! leaving the state alone (case 5). A marker hit runs the asynchronous path: at the expected page the
//! window moves forward and ramps up (case 1); anywhere else the state belongs to another reader of the
//! same file handle and the window is re-derived from the distance to the next hole (case 2). A window
//! that would hit its own marker merges the next one now (readit).
//!
//! Where pagelab departs from the kernel, and why:
//! - no mmap read-around or `mmap_miss` (§3): pagelab's workloads use `read()`;
//! - no large folios: every folio is one page, so `round_down(…, folio_pages)` is the identity; the
//!   ≥6.10 mainline rework of §7 (split sync/async paths, no merge step, folio orders) is not modelled;
//! - `io_pages` (the device's largest request, used only by oversize reads) is what the kernel sets,
//!   `max_sectors >> (PAGE_SHIFT - 9)` (`blk_queue_max_hw_sectors()`), once the driver tells the
//!   prefetcher its queue ([`LinuxReadahead::for_queue`]; the simulator does), unless configured
//!   (`linux:ra=128KiB,io=1MiB`); alone (a trace replay in `cachesim`, where there is no queue) it equals
//!   `ra_pages`;
//! - the expected-marker test requires a marker hit (linux-next); older copies such as CachyOS/linux also
//!   accept `index == start + size` on a plain miss — not modelled;
//! - no "be dumb" path (`FMODE_RANDOM`, `ra_pages == 0`) and no congestion deferral: a spec of 0 pages is
//!   rejected (use `none`), and the simulator has no block-cgroup congestion;
//! - the page-cache scans follow the documented contracts of `page_cache_next_miss()` /
//!   `page_cache_prev_miss()`: exactly `max` pages are looked at.

use super::state::RaStates;
use super::{
    check_sync_window, check_window, classify_miss, next_missing_page, CacheView, FileRaState, MissKind,
    Prefetcher, ReadCtx, Window, RA_PAGES_LIMIT,
};
use crate::key::{FileId, StreamId};
use crate::time::Nanos;

#[derive(Clone, Debug)]
pub struct LinuxReadahead {
    ra_pages: u64,
    io_pages: u64,
    /// `io_pages` was configured, so the queue does not set it.
    io_pages_configured: bool,
    page_size_bytes: u64,
    states: RaStates,
}

/// `get_init_ra_size()`: the first window for a request of `req_pages` pages, bounded by `max`.
pub fn get_init_ra_size(req_pages: u64, max: u64) -> u64 {
    let n = req_pages.next_power_of_two();
    if n <= max / 32 {
        4 * n
    } else if n <= max / 4 {
        2 * n
    } else {
        max
    }
}

/// `get_next_ra_size()`: the ramp-up from a window of `cur` pages — ×4 while small, ×2, then `max`.
pub fn get_next_ra_size(cur: u64, max: u64) -> u64 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

impl LinuxReadahead {
    /// `VM_READAHEAD_PAGES`: 128 KiB.
    pub const DEFAULT_RA_BYTES: u64 = 128 * 1024;

    /// Windows of at most `ra_pages` pages (`bdi->ra_pages`); `io_pages` starts equal to it.
    /// Caller guarantees `1 <= ra_pages <= RA_PAGES_LIMIT` and `page_size_bytes >= 1`.
    pub fn new(ra_pages: u64, page_size_bytes: u64) -> LinuxReadahead {
        assert!((1..=RA_PAGES_LIMIT).contains(&ra_pages), "ra_pages {ra_pages} outside 1..={RA_PAGES_LIMIT}");
        assert!(page_size_bytes >= 1, "page size must be positive");
        LinuxReadahead {
            ra_pages,
            io_pages: ra_pages,
            io_pages_configured: false,
            page_size_bytes,
            states: RaStates::new(),
        }
    }

    /// Sets `bdi->io_pages`, the largest single request, which only oversize reads use.
    /// Caller guarantees `1 <= io_pages <= RA_PAGES_LIMIT`.
    pub fn with_io_pages(mut self, io_pages: u64) -> LinuxReadahead {
        assert!((1..=RA_PAGES_LIMIT).contains(&io_pages), "io_pages {io_pages} outside 1..={RA_PAGES_LIMIT}");
        self.io_pages = io_pages;
        self.io_pages_configured = true;
        self
    }

    /// The device's queue takes requests of at most `max_sectors` 512-byte sectors: `io_pages` becomes
    /// what the kernel sets from it, unless it was configured. Caller guarantees `max_sectors >= 1`.
    pub fn for_queue(mut self, max_sectors: u32) -> LinuxReadahead {
        assert!(max_sectors >= 1, "a queue takes requests of at least one sector");
        if !self.io_pages_configured {
            let sectors_per_page = (self.page_size_bytes / 512).max(1);
            self.io_pages = (max_sectors as u64 / sectors_per_page).clamp(1, RA_PAGES_LIMIT);
        }
        self
    }

    pub fn ra_pages(&self) -> u64 {
        self.ra_pages
    }

    pub fn io_pages(&self) -> u64 {
        self.io_pages
    }

    /// The spec that builds this prefetcher again.
    pub fn spec(&self) -> String {
        let ra = super::size_text(self.ra_pages * self.page_size_bytes);
        // A queue's `io_pages` is not part of the spec: the same spec on another queue takes that queue's.
        if !self.io_pages_configured {
            format!("linux:{ra}")
        } else {
            format!("linux:ra={ra},io={}", super::size_text(self.io_pages * self.page_size_bytes))
        }
    }

    /// The bound in force for a read with `req_pages` left: `ra_pages`, or up to `io_pages` for a read
    /// larger than the window ("allow the read to be up to the optimal hardware IO size").
    fn max_pages(ra_pages: u64, io_pages: u64, req_pages: u64) -> u64 {
        if req_pages > ra_pages && io_pages > ra_pages {
            req_pages.min(io_pages)
        } else {
            ra_pages
        }
    }
}

/// `initial_readahead:` a fresh window at `index`, its async tail after the request.
fn initial(ra: &mut FileRaState, ctx: &ReadCtx, max: u64) {
    ra.start = ctx.index;
    ra.size = get_init_ra_size(ctx.req_pages, max);
    ra.async_size = if ra.size > ctx.req_pages { ra.size - ctx.req_pages } else { ra.size };
}

/// Case 4: `history` cached pages precede the miss; a run reaching the start of the file is taken as a
/// long stream (doubled).
fn context(ra: &mut FileRaState, ctx: &ReadCtx, history: u64, max: u64) {
    let size = if history >= ctx.index { 2 * history } else { history };
    ra.start = ctx.index;
    ra.size = (size + ctx.req_pages).min(max);
    ra.async_size = 1;
}

/// `readit:` the merge step ("will this read hit the readahead marker made by itself?"), then the window.
fn readit(ra: &mut FileRaState, index: u64, max: u64) -> Window {
    if index == ra.start && ra.size == ra.async_size {
        let add = get_next_ra_size(ra.size, max);
        if ra.size + add <= max {
            ra.async_size = add;
            ra.size += add;
        } else {
            ra.size = max;
            ra.async_size = max >> 1;
        }
    }
    let w = ra.window();
    check_window(&w, max);
    w
}

/// The synchronous path: readahead.md §4 with `hit_marker == false`.
fn sync_readahead(
    ra: &mut FileRaState,
    ctx: &ReadCtx,
    view: &dyn CacheView,
    max: u64,
    page_size: u64,
) -> Window {
    match classify_miss(ra, ctx, view, max, page_size) {
        MissKind::Sequential => {
            initial(ra, ctx, max);
            readit(ra, ctx.index, max)
        }
        MissKind::Context { history } => {
            context(ra, ctx, history, max);
            readit(ra, ctx.index, max)
        }
        // "Read as is, and do not pollute the readahead state."
        MissKind::Random => Window::exact(ctx.index, ctx.req_pages),
    }
}

/// The asynchronous path: readahead.md §4 with `hit_marker == true` (cases 1 and 2).
fn async_readahead(ra: &mut FileRaState, ctx: &ReadCtx, view: &dyn CacheView, max: u64) -> Option<Window> {
    if ctx.index == 0 {
        initial(ra, ctx, max);
        return Some(readit(ra, ctx.index, max));
    }
    let expected = ra.start + ra.size - ra.async_size;
    if ctx.index == expected {
        ra.start += ra.size;
        ra.size = get_next_ra_size(ra.size, max);
    } else {
        // The mark survives in the page while the state was overwritten by another reader: the distance
        // to the next hole is that reader's old async_size.
        let start = next_missing_page(view, ctx.file, ctx.index, max);
        if start - ctx.index > max {
            return None;
        }
        ra.start = start;
        ra.size = get_next_ra_size(start - ctx.index + ctx.req_pages, max);
    }
    ra.async_size = ra.size;
    Some(readit(ra, ctx.index, max))
}

impl Prefetcher for LinuxReadahead {
    fn name(&self) -> &'static str {
        "linux"
    }

    fn on_sync_miss(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Window {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let (io_pages, page_size) = (self.io_pages, self.page_size_bytes);
        let ra = self.states.open(ctx.stream, ctx.file, FileRaState::new(self.ra_pages));
        let max = Self::max_pages(ra.ra_pages, io_pages, ctx.req_pages);
        let w = sync_readahead(ra, ctx, view, max, page_size);
        check_sync_window(&w, ctx, max);
        w
    }

    fn on_marker_hit(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Option<Window> {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let io_pages = self.io_pages;
        let ra = self.states.open(ctx.stream, ctx.file, FileRaState::new(self.ra_pages));
        let max = Self::max_pages(ra.ra_pages, io_pages, ctx.req_pages);
        async_readahead(ra, ctx, view, max)
    }

    fn read_done(&mut self, _: Nanos, stream: StreamId, file: FileId, bytes: std::ops::Range<u64>) {
        let end_byte = bytes.end;
        self.states.open(stream, file, FileRaState::new(self.ra_pages)).prev_pos = Some(end_byte);
    }

    fn stream_closed(&mut self, stream: StreamId) {
        self.states.close_stream(stream);
    }

    fn file_closed(&mut self, stream: StreamId, file: FileId) {
        self.states.close_file(stream, file);
    }

    fn window_pages_max(&self, req_pages: u64) -> u64 {
        Self::max_pages(self.ra_pages, self.io_pages, req_pages)
    }

    fn ra_state(&self, stream: StreamId, file: FileId) -> Option<FileRaState> {
        self.states.get(stream, file).copied()
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
    use crate::prefetch::testing::{quiet, trace, Driver, Expect, PAGE};
    use crate::time::Nanos;

    const F: FileId = FileId(1);

    fn linux(ra_pages: u64) -> Driver<LinuxReadahead> {
        Driver::new(LinuxReadahead::new(ra_pages, PAGE))
    }

    #[test]
    fn window_sizes_match_the_kernel_comment() {
        // "1-2 page = 16k, 3-4 page 32k, 5-8 page = 64k, > 8 page = 128k initial" (max = 32 pages).
        let init: Vec<u64> = (1..=10).map(|req| get_init_ra_size(req, 32)).collect();
        assert_eq!(init, [4, 4, 8, 8, 16, 16, 16, 16, 32, 32]);
        let mut ramp = vec![4];
        for _ in 0..4 {
            ramp.push(get_next_ra_size(*ramp.last().unwrap(), 32));
        }
        assert_eq!(ramp, [4, 8, 16, 32, 32]);
        // 512 KiB: small windows quadruple while below max/16 = 8 pages.
        assert_eq!(get_init_ra_size(1, 128), 4);
        let mut ramp = vec![4];
        for _ in 0..5 {
            ramp.push(get_next_ra_size(*ramp.last().unwrap(), 128));
        }
        assert_eq!(ramp, [4, 16, 32, 64, 128, 128]);
    }

    /// readahead.md §6, row by row, and every read in between (which must change nothing).
    #[test]
    fn worked_example_of_section_6() {
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 4, 3), &[0..4], &[1])];
        steps.push((1, 1..2, (4, 8, 8), &[4..12], &[4]));
        steps.extend(quiet(1, 2..4, (4, 8, 8)));
        steps.push((1, 4..5, (12, 16, 16), &[12..28], &[12]));
        steps.extend(quiet(1, 5..12, (12, 16, 16)));
        steps.push((1, 12..13, (28, 32, 32), &[28..60], &[28]));
        steps.extend(quiet(1, 13..28, (28, 32, 32)));
        steps.push((1, 28..29, (60, 32, 32), &[60..92], &[60]));
        steps.extend(quiet(1, 29..60, (60, 32, 32)));
        steps.push((1, 60..61, (92, 32, 32), &[92..124], &[92]));
        let mut d = linux(32);
        let done = trace(&mut d, F, &steps);
        // Only the first read waited: every later window was asynchronous, one full window ahead.
        assert_eq!(done.iter().map(|s| s.sync_windows.len()).sum::<usize>(), 1);
        assert_eq!(done.iter().map(|s| s.async_windows.len()).sum::<usize>(), 5);
        // Every mark the reader reached was consumed; only the newest one waits.
        let marked: Vec<u64> = (0..200).filter(|&p| d.is_marked(F, p)).collect();
        assert_eq!(marked, [92]);
    }

    #[test]
    fn ramp_up_to_512k() {
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 4, 3), &[0..4], &[1])];
        steps.push((1, 1..2, (4, 16, 16), &[4..20], &[4]));
        steps.extend(quiet(1, 2..4, (4, 16, 16)));
        steps.push((1, 4..5, (20, 32, 32), &[20..52], &[20]));
        steps.extend(quiet(1, 5..20, (20, 32, 32)));
        steps.push((1, 20..21, (52, 64, 64), &[52..116], &[52]));
        steps.extend(quiet(1, 21..52, (52, 64, 64)));
        steps.push((1, 52..53, (116, 128, 128), &[116..244], &[116]));
        steps.extend(quiet(1, 53..116, (116, 128, 128)));
        steps.push((1, 116..117, (244, 128, 128), &[244..372], &[244]));
        trace(&mut linux(128), F, &steps);
    }

    #[test]
    fn multi_page_reads_put_the_marker_after_the_request() {
        // 16 KiB reads: initial window 8 with the async tail starting right after the request.
        let steps: &[Expect] = &[
            (1, 0..4, (0, 8, 4), &[0..8], &[4]),
            (1, 4..8, (8, 16, 16), &[8..24], &[8]),
            (1, 8..12, (24, 32, 32), &[24..56], &[24]),
            (1, 12..16, (24, 32, 32), &[], &[]),
            (1, 16..20, (24, 32, 32), &[], &[]),
            (1, 20..24, (24, 32, 32), &[], &[]),
            (1, 24..28, (56, 32, 32), &[56..88], &[56]),
        ];
        trace(&mut linux(32), F, steps);
    }

    #[test]
    fn oversize_read_is_served_in_max_windows() {
        // 80 pages > ra_pages = io_pages = 32: initial window = max, merged (32, 16); the walk then hits
        // each new marker inside the request and chains full windows.
        let mut d = linux(32);
        let steps = trace(
            &mut d,
            F,
            &[(1, 100..180, (196, 32, 32), &[100..132, 132..164, 164..196, 196..228], &[116, 132, 164, 196])],
        );
        assert_eq!(steps[0].sync_windows, [Window { start: 100, size: 32, async_size: 16 }]);
        assert_eq!(steps[0].marker_hits, [116, 132, 164]);
    }

    #[test]
    fn oversize_read_grows_up_to_io_pages() {
        // io_pages = 128 > ra_pages = 32: the bound follows the pages left in the read at each hook,
        // min(req, io_pages) — 80 at the start of an 80-page read, 40 at a marker halfway through.
        let mut d = Driver::new(LinuxReadahead::new(32, PAGE).with_io_pages(128));
        let steps: &[Expect] = &[
            (1, 0..80, (80, 40, 40), &[0..80, 80..120], &[40, 80]),
            (1, 80..160, (200, 40, 40), &[120..200, 200..240], &[120, 200]),
            // The bound grew to the request, so this 80-page read is not "oversize": away from the
            // stream and with no history it is random (with io_pages = ra_pages it would start a window).
            (1, 1000..1080, (200, 40, 40), &[1000..1080], &[]),
        ];
        let done = trace(&mut d, F, steps);
        assert_eq!(done[0].sync_windows, [Window { start: 0, size: 80, async_size: 40 }]);
        assert_eq!(
            done[1].async_windows,
            [
                Window { start: 120, size: 80, async_size: 80 },
                Window { start: 200, size: 40, async_size: 40 }
            ]
        );
        assert_eq!(done[2].sync_windows, [Window::exact(1000, 80)]);
    }

    #[test]
    fn eof_clamps_windows_and_marks() {
        let mut d = linux(32).with_file_pages(F, 10);
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 4, 3), &[0..4], &[1])];
        steps.push((1, 1..2, (4, 8, 8), &[4..10], &[4]));
        steps.extend(quiet(1, 2..4, (4, 8, 8)));
        // The next window lies wholly past EOF: the state moves on, nothing is read or marked.
        steps.push((1, 4..5, (12, 16, 16), &[], &[]));
        steps.extend(quiet(1, 5..10, (12, 16, 16)));
        trace(&mut d, F, &steps);
        assert_eq!(d.cached_pages(), 10);

        // A context window whose marker falls past EOF reads to EOF and marks nothing.
        let mut d = linux(32).with_file_pages(F, 55);
        d.cache(F, 40..50);
        trace(&mut d, F, &[(2, 50..51, (50, 11, 1), &[50..55], &[])]);
    }

    #[test]
    fn random_reads_leave_the_state_alone() {
        let steps: &[Expect] = &[
            (1, 500..501, (0, 0, 0), &[500..501], &[]),
            (1, 800..801, (0, 0, 0), &[800..801], &[]),
            // prev_pos = 801 pages: 802 - 801 = 1 counts as sequential (as in the kernel).
            (1, 802..803, (802, 4, 3), &[802..806], &[803]),
            // Backwards: the unsigned distance wraps, random again; the state is untouched.
            (1, 700..701, (802, 4, 3), &[700..701], &[]),
            // 701 - 701 = 0: the page right after the previous read.
            (1, 701..702, (701, 4, 3), &[701..705], &[702]),
        ];
        trace(&mut linux(32), F, steps);
    }

    #[test]
    fn prev_pos_is_a_byte_position() {
        struct Empty;
        impl CacheView for Empty {
            fn is_cached(&self, _: FileId, _: u64) -> bool {
                false
            }
        }
        let mut pf = LinuxReadahead::new(32, PAGE);
        let (s, eof) = (StreamId(1), 1 << 20);
        // An unaligned read ending 100 bytes into page 10.
        pf.read_done(Nanos::ZERO, s, F, 10 * PAGE..10 * PAGE + 100);
        let ctx =
            |index| ReadCtx { now: Nanos::ZERO, stream: s, file: F, index, req_pages: 1, file_pages: eof };
        assert_eq!(pf.on_sync_miss(&ctx(12), &Empty), Window::exact(12, 1), "two pages on: random");
        assert_eq!(pf.ra_state(s, F).map(|r| r.size), Some(0));
        assert_eq!(pf.on_sync_miss(&ctx(10), &Empty), Window { start: 10, size: 4, async_size: 3 });
        assert_eq!(pf.on_sync_miss(&ctx(11), &Empty), Window { start: 11, size: 4, async_size: 3 });
    }

    #[test]
    fn context_readahead_picks_up_another_streams_leftovers() {
        // Stream 1 reads 16 pages (leaving 0..60 cached) and ends; stream 2 opens and continues at 60.
        let mut d = linux(32);
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 4, 3), &[0..4], &[1])];
        steps.push((1, 1..2, (4, 8, 8), &[4..12], &[4]));
        steps.extend(quiet(1, 2..4, (4, 8, 8)));
        steps.push((1, 4..5, (12, 16, 16), &[12..28], &[12]));
        steps.extend(quiet(1, 5..12, (12, 16, 16)));
        steps.push((1, 12..13, (28, 32, 32), &[28..60], &[28]));
        steps.extend(quiet(1, 13..16, (28, 32, 32)));
        trace(&mut d, F, &steps);
        d.pf.stream_closed(StreamId(1));
        assert_eq!(d.pf.tracked_states(), 0);
        // 32 cached pages (the scan bound) before 60: a window of min(32 + 1, 32), marker on its last page.
        let mut steps: Vec<Expect> = vec![(2, 60..61, (60, 32, 1), &[60..92], &[91])];
        steps.extend(quiet(2, 61..91, (60, 32, 1)));
        steps.push((2, 91..92, (92, 32, 32), &[92..124], &[92]));
        trace(&mut d, F, &steps);
        assert_eq!(d.scan_pages_max, 32, "the history scan looks at exactly max pages");
    }

    #[test]
    fn context_readahead_sizes() {
        // A run of 10 before page 50: window 10 + 1.
        let mut d = linux(32);
        d.cache(F, 40..50);
        trace(&mut d, F, &[(1, 50..51, (50, 11, 1), &[50..61], &[60])]);
        // Cached from the start of the file: a long-run stream, the history counts double.
        let mut d = linux(32);
        d.cache(F, 0..10);
        trace(&mut d, F, &[(1, 10..11, (10, 21, 1), &[10..31], &[30])]);
        // A run longer than the scan is not seen to reach the start: no doubling, capped at max.
        let mut d = linux(32);
        d.cache(F, 0..100);
        trace(&mut d, F, &[(1, 100..101, (100, 32, 1), &[100..132], &[131])]);
        assert_eq!(d.scan_pages_max, 32);
        // A run no longer than the request is no evidence of a stream: random.
        let mut d = linux(32);
        d.cache(F, 40..50);
        trace(&mut d, F, &[(1, 50..60, (0, 0, 0), &[50..60], &[])]);
    }

    #[test]
    fn interleaved_readers_sharing_one_state() {
        // Readers A (from page 0) and B (from page 200) share stream 1's state, like two threads on one
        // file descriptor; case 2 re-derives each one's window from the page cache.
        let steps: &[Expect] = &[
            (1, 0..1, (0, 4, 3), &[0..4], &[1]),             // A: start of file
            (1, 200..201, (0, 4, 3), &[200..201], &[]),      // B: random, state untouched
            (1, 1..2, (4, 8, 8), &[4..12], &[4]),            // A: case 1
            (1, 201..202, (4, 8, 8), &[201..202], &[]),      // B: history 1, not > request
            (1, 2..3, (4, 8, 8), &[], &[]),                  // A: hit
            (1, 202..203, (202, 3, 1), &[202..205], &[204]), // B: context, history 2
            (1, 3..4, (202, 3, 1), &[], &[]),                // A: hit
            (1, 203..204, (202, 3, 1), &[], &[]),            // B: hit
            // A hits its marker but the state is B's: next hole 12 → size get_next(8 + 1) = 18.
            (1, 4..5, (12, 18, 18), &[12..30], &[12]),
            // B hits its marker, state is A's: next hole 205 → size get_next(1 + 1) = 4.
            (1, 204..205, (205, 4, 4), &[205..209], &[205]),
            (1, 5..6, (205, 4, 4), &[], &[]),
            (1, 205..206, (209, 8, 8), &[209..217], &[209]), // B: its own state again, case 1
            (1, 6..12, (209, 8, 8), &[], &[]),
            // A at its marker: next hole 30, distance 18 + 6 left in the read → get_next(24) = 32.
            (1, 12..18, (30, 32, 32), &[30..62], &[30]),
        ];
        trace(&mut linux(32), F, steps);
    }

    #[test]
    fn streams_reading_one_file_keep_their_own_state() {
        let steps: &[Expect] = &[
            (1, 0..1, (0, 4, 3), &[0..4], &[1]),
            (2, 200..201, (0, 0, 0), &[200..201], &[]),
            (1, 1..2, (4, 8, 8), &[4..12], &[4]),
            (2, 201..202, (201, 4, 3), &[201..205], &[202]),
            (1, 2..3, (4, 8, 8), &[], &[]),
            (2, 202..203, (205, 8, 8), &[205..213], &[205]),
            (1, 3..4, (4, 8, 8), &[], &[]),
            (1, 4..5, (12, 16, 16), &[12..28], &[12]),
        ];
        let mut d = linux(32);
        trace(&mut d, F, steps);
        assert_eq!(d.pf.tracked_states(), 2);
        d.pf.stream_closed(StreamId(1));
        assert_eq!((d.state(StreamId(1), F), d.state(StreamId(2), F)), (None, Some((205, 8, 8))));
        d.pf.stream_closed(StreamId(2));
        assert_eq!(d.pf.tracked_states(), 0);
    }

    #[test]
    fn marker_hit_looks_for_the_next_hole_at_most_max_pages_away() {
        // The state is overwritten (a new sequential run at 1001) before the reader reaches its marker on
        // page 1; then case 2 decides from the page cache alone.
        let prologue: &[Expect] = &[
            (1, 0..1, (0, 4, 3), &[0..4], &[1]),
            (1, 1000..1001, (0, 4, 3), &[1000..1001], &[]),
            (1, 1001..1002, (1001, 4, 3), &[1001..1005], &[1002]),
        ];
        // Pages 2..=33 cached: the first hole is 33 pages past the marker, beyond max — do nothing.
        let mut d = linux(32);
        trace(&mut d, F, &prologue[..1]);
        d.cache(F, 4..34);
        trace(&mut d, F, &prologue[1..]);
        let done = trace(&mut d, F, &[(1, 1..2, (1001, 4, 3), &[], &[])]);
        assert_eq!(done[0].marker_hits, [1]);
        assert!(done[0].async_windows.is_empty());
        assert_eq!(d.scan_pages_max, 32);
        // Pages 2..=32 cached: the hole at 33 is exactly max away — a window of get_next(32 + 1) = 32.
        let mut d = linux(32);
        trace(&mut d, F, &prologue[..1]);
        d.cache(F, 4..33);
        trace(&mut d, F, &prologue[1..]);
        trace(&mut d, F, &[(1, 1..2, (33, 32, 32), &[33..65], &[33])]);
    }
}
