//! Fixed trigger distance and prefetch degree ("T-P"): the baselines of Zhang, Kulkarni, Ma, Zhou,
//! "Memory Resource Allocation for File System Prefetching — From a Supply Chain Management
//! Perspective", EuroSys 2009 (`../shared/papers/002_*.txt`, slides "Background – Prefetching basics" and
//! "Comparing with Linux native prefetching").
//!
//! The paper's terms: the *prefetch degree* P is how many blocks one prefetch brings in (the order
//! quantity); the *trigger distance* T is how many prefetched, not yet consumed blocks remain when the
//! next prefetch is issued (the reorder point). Linux 2.6.18 keeps T = P, doubling both on each
//! sequential hit up to T = P = 32 pages: "32-32". The paper's SCM algorithms are compared at the same
//! memory consumption `[T + (T + P)] / 2`, and their fixed default is T = 24, P = 48: "24-48" (both
//! settings hold 48 pages per stream on average).
//!
//! On the on-demand state machine (readahead.md §8, "32-32 vs 24-48 maps to (size, async_size)"):
//! `size = P` and `async_size = T`, so PG_readahead sits on page `start + P - T`; when the reader reaches
//! it, T pages of the window (that page included) are left and the next P pages are issued. Pages ahead
//! of the reader then swing between T + P − 1 and T, averaging the paper's T + P/2 (less half a page for
//! the page being read). The rules:
//! - a miss is classified exactly as `linux` classifies it (start of file, a read larger than P,
//!   `prev_pos` adjacency, context history longer than the request): a sequential miss opens the window
//!   `[index, index + P)` with no ramp-up; a random miss reads just the request and leaves the state;
//! - when T = P the first window's trigger would be the demanded page itself, so the next window is
//!   merged at once, as Linux's readit step does: the first I/O of a 32-32 stream is `[index, index + 64)`
//!   with the trigger on `index + 32`;
//! - a marker hit at the expected page issues the next P pages after the window;
//! - a marker hit anywhere else (another reader of the same stream overwrote the state) starts the
//!   window at the first hole within P pages after the marked page (`linux` case 2), or does nothing.
//!
//! Ramp-up. The paper's 32-32 *is* Linux 2.6.18: "Trigger distance (T) = Prefetch degree (P); doubling T
//! and P for each sequential hit; upper bounds T = P = 32 (pages)". So by default `tp:T-P` ramps: a new
//! sequential run opens a first window of `get_init_ra_size(request, P)` pages (2.6.18's initial sizing),
//! and each marker hit at the expected page doubles the window up to P, the trigger kept at the same
//! fraction T/P of the window (equal to it when T = P) and capped at T. `tp:T-P,fixed` starts at the full
//! (T, P) at once: the steady state, which is how the SCM algorithms' fixed default 24-48 is described.
//! Without the ramp every miss that looks sequential opens a full window (2P pages when T = P), which is
//! costly for workloads of short runs (on the sprite trace, fixed 32-32 misses more than no prefetching).
//!
//! Departures from 2.6.18, and why: 2.6.18 had a current and an ahead window and ramped up from
//! `get_init_ra_size()`; T-P is the paper's fixed setting, which its ETS/ESF algorithms then vary per
//! stream, and it speaks the marker protocol of the on-demand code (2.6.23+) that pagelab's buffer cache
//! drives. Reads larger than P are served by P-page windows chained through the marks inside the read
//! (there is no `io_pages` here).

use super::linux::get_init_ra_size;
use super::state::RaStates;
use super::{
    check_sync_window, check_window, classify_miss, next_missing_page, CacheView, FileRaState, MissKind,
    Prefetcher, ReadCtx, Window, RA_PAGES_LIMIT,
};
use crate::key::{FileId, StreamId};
use crate::time::Nanos;

#[derive(Clone, Debug)]
pub struct FixedTp {
    trigger_distance_pages: u64,
    prefetch_degree_pages: u64,
    /// Start each run small and double per sequential hit (Linux 2.6.18), else start at (T, P).
    ramp: bool,
    page_size_bytes: u64,
    states: RaStates,
}

impl FixedTp {
    /// T-P with trigger distance `t` and prefetch degree `p`, in pages, ramping up as Linux 2.6.18 does.
    /// Caller guarantees `1 <= t <= p <= RA_PAGES_LIMIT` and `page_size_bytes >= 1`.
    pub fn new(t: u64, p: u64, page_size_bytes: u64) -> FixedTp {
        assert!((1..=RA_PAGES_LIMIT).contains(&p), "prefetch degree {p} outside 1..={RA_PAGES_LIMIT}");
        assert!((1..=p).contains(&t), "trigger distance {t} outside 1..={p}");
        assert!(page_size_bytes >= 1, "page size must be positive");
        FixedTp {
            trigger_distance_pages: t,
            prefetch_degree_pages: p,
            ramp: true,
            page_size_bytes,
            states: RaStates::new(),
        }
    }

    /// Start every sequential run at the full (T, P): the steady state, no ramp-up.
    pub fn without_ramp(mut self) -> FixedTp {
        self.ramp = false;
        self
    }

    pub fn ramps(&self) -> bool {
        self.ramp
    }

    /// The trigger for a window of `degree` pages: the fraction T/P of it, at least 1, at most T.
    fn trigger_for(&self, degree: u64) -> u64 {
        let (t, p) = (self.trigger_distance_pages, self.prefetch_degree_pages);
        if t == p {
            degree
        } else {
            (degree * t / p).clamp(1, t)
        }
    }

    /// The first window of a sequential run at `index` for a read of `req_pages`; merged with the next
    /// window when its trigger would be `index` itself (trigger = degree), as Linux's readit step does.
    fn open_window(&self, ra: &mut FileRaState, index: u64, req_pages: u64) {
        let p = self.prefetch_degree_pages;
        let first = if self.ramp { get_init_ra_size(req_pages, p) } else { p };
        next_window(ra, index, self.trigger_for(first), first);
        if ra.start + ra.size - ra.async_size == index {
            let second = if self.ramp { (2 * first).min(p) } else { p };
            ra.size += second;
            ra.async_size = self.trigger_for(second);
        }
    }

    /// The window after the current one, at the expected marker: doubled (ramp) up to P.
    fn advance_window(&self, ra: &mut FileRaState) {
        let p = self.prefetch_degree_pages;
        // The last window's degree: when trigger = degree (T = P) a merged first window carries it in
        // `async_size`; otherwise windows are never merged and it is `size`.
        let last = if self.trigger_distance_pages == p { ra.async_size } else { ra.size };
        let degree = if self.ramp { (2 * last).min(p) } else { p };
        next_window(ra, ra.start + ra.size, self.trigger_for(degree), degree);
    }

    pub fn trigger_distance_pages(&self) -> u64 {
        self.trigger_distance_pages
    }

    pub fn prefetch_degree_pages(&self) -> u64 {
        self.prefetch_degree_pages
    }

    /// The spec that builds this prefetcher again.
    pub fn spec(&self) -> String {
        let fixed = if self.ramp { "" } else { ",fixed" };
        format!("tp:{}-{}{fixed}", self.trigger_distance_pages, self.prefetch_degree_pages)
    }
}

pub(super) fn next_window(ra: &mut FileRaState, start: u64, t: u64, p: u64) {
    ra.start = start;
    ra.size = p;
    ra.async_size = t;
}

impl Prefetcher for FixedTp {
    fn name(&self) -> &'static str {
        "tp"
    }

    fn on_sync_miss(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Window {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let max = self.window_pages_max(ctx.req_pages);
        let (p, page_size) = (self.prefetch_degree_pages, self.page_size_bytes);
        let mut ra = *self.states.open(ctx.stream, ctx.file, FileRaState::new(p));
        let w = match classify_miss(&ra, ctx, view, p, page_size) {
            MissKind::Sequential | MissKind::Context { .. } => {
                self.open_window(&mut ra, ctx.index, ctx.req_pages);
                ra.window()
            }
            MissKind::Random => Window::exact(ctx.index, ctx.req_pages),
        };
        *self.states.open(ctx.stream, ctx.file, FileRaState::new(p)) = ra;
        check_sync_window(&w, ctx, max);
        w
    }

    fn on_marker_hit(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Option<Window> {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let max = self.window_pages_max(ctx.req_pages);
        let (t, p) = (self.trigger_distance_pages, self.prefetch_degree_pages);
        let mut ra = *self.states.open(ctx.stream, ctx.file, FileRaState::new(p));
        if ctx.index == 0 {
            self.open_window(&mut ra, 0, ctx.req_pages);
        } else if ctx.index == ra.start + ra.size - ra.async_size {
            self.advance_window(&mut ra);
        } else {
            // Another reader of this stream moved the state: resume after the hole at full size.
            let hole = next_missing_page(view, ctx.file, ctx.index, p);
            if hole - ctx.index > p {
                return None;
            }
            next_window(&mut ra, hole, t, p);
        }
        *self.states.open(ctx.stream, ctx.file, FileRaState::new(p)) = ra;
        let w = ra.window();
        check_window(&w, max);
        Some(w)
    }

    fn read_done(&mut self, _: Nanos, stream: StreamId, file: FileId, bytes: std::ops::Range<u64>) {
        let end_byte = bytes.end;
        self.states.open(stream, file, FileRaState::new(self.prefetch_degree_pages)).prev_pos =
            Some(end_byte);
    }

    fn stream_closed(&mut self, stream: StreamId) {
        self.states.close_stream(stream);
    }

    fn file_closed(&mut self, stream: StreamId, file: FileId) {
        self.states.close_file(stream, file);
    }

    /// P, or 2P for the merged first window when T = P (random reads are at most P: larger ones are
    /// sequential).
    fn window_pages_max(&self, _req_pages: u64) -> u64 {
        let p = self.prefetch_degree_pages;
        if self.trigger_distance_pages == p {
            2 * p
        } else {
            p
        }
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
    use crate::prefetch::LinuxReadahead;

    const F: FileId = FileId(1);

    /// The steady-state setting (no ramp-up), which most tests below trace.
    fn tp(t: u64, p: u64) -> Driver<FixedTp> {
        Driver::new(FixedTp::new(t, p, PAGE).without_ramp())
    }

    /// Linux 2.6.18's 32-32: a one-page reader's windows double 4, 8, 16, 32 (first window 4 pages,
    /// trigger = window, merged with the next because its trigger would be the demanded page).
    #[test]
    fn ramp_32_32_doubles_to_the_bound() {
        let mut d = Driver::new(FixedTp::new(32, 32, PAGE));
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 12, 8), &[0..12], &[4])];
        steps.extend(quiet(1, 1..4, (0, 12, 8)));
        steps.push((1, 4..5, (12, 16, 16), &[12..28], &[12]));
        steps.extend(quiet(1, 5..12, (12, 16, 16)));
        steps.push((1, 12..13, (28, 32, 32), &[28..60], &[28]));
        steps.extend(quiet(1, 13..28, (28, 32, 32)));
        steps.push((1, 28..29, (60, 32, 32), &[60..92], &[60]));
        trace(&mut d, F, &steps);
    }

    /// 24-48 ramps with the trigger at half the window: 4/2, 8/4, 16/8, 32/16, then 48/24 (never merged:
    /// the trigger is never the demanded page).
    #[test]
    fn ramp_24_48_keeps_the_trigger_ratio() {
        let mut d = Driver::new(FixedTp::new(24, 48, PAGE));
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 4, 2), &[0..4], &[2])];
        steps.extend(quiet(1, 1..2, (0, 4, 2)));
        steps.push((1, 2..3, (4, 8, 4), &[4..12], &[8]));
        steps.extend(quiet(1, 3..8, (4, 8, 4)));
        steps.push((1, 8..9, (12, 16, 8), &[12..28], &[20]));
        steps.extend(quiet(1, 9..20, (12, 16, 8)));
        steps.push((1, 20..21, (28, 32, 16), &[28..60], &[44]));
        steps.extend(quiet(1, 21..44, (28, 32, 16)));
        steps.push((1, 44..45, (60, 48, 24), &[60..108], &[84]));
        steps.extend(quiet(1, 45..84, (60, 48, 24)));
        steps.push((1, 84..85, (108, 48, 24), &[108..156], &[132]));
        trace(&mut d, F, &steps);
    }

    #[test]
    fn steady_state_32_32() {
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 64, 32), &[0..64], &[32])];
        steps.extend(quiet(1, 1..32, (0, 64, 32)));
        steps.push((1, 32..33, (64, 32, 32), &[64..96], &[64]));
        steps.extend(quiet(1, 33..64, (64, 32, 32)));
        steps.push((1, 64..65, (96, 32, 32), &[96..128], &[96]));
        steps.extend(quiet(1, 65..96, (96, 32, 32)));
        steps.push((1, 96..97, (128, 32, 32), &[128..160], &[128]));
        let done = trace(&mut tp(32, 32), F, &steps);
        assert_eq!(done[0].sync_windows, [Window { start: 0, size: 64, async_size: 32 }]);
        assert_eq!(
            done.iter().map(|s| s.sync_windows.len()).sum::<usize>(),
            1,
            "one sync read, then all async"
        );
    }

    #[test]
    fn steady_state_24_48() {
        let mut steps: Vec<Expect> = vec![(1, 0..1, (0, 48, 24), &[0..48], &[24])];
        steps.extend(quiet(1, 1..24, (0, 48, 24)));
        steps.push((1, 24..25, (48, 48, 24), &[48..96], &[72]));
        steps.extend(quiet(1, 25..72, (48, 48, 24)));
        steps.push((1, 72..73, (96, 48, 24), &[96..144], &[120]));
        steps.extend(quiet(1, 73..120, (96, 48, 24)));
        steps.push((1, 120..121, (144, 48, 24), &[144..192], &[168]));
        trace(&mut tp(24, 48), F, &steps);
    }

    /// Pages cached ahead of a sequential one-page reader after each read of `reads`.
    fn pages_ahead<P: Prefetcher>(d: &mut Driver<P>, reads: std::ops::Range<u64>, from: u64) -> Vec<u64> {
        let mut ahead = Vec::new();
        for r in reads {
            d.read_page(StreamId(1), F, r);
            if r >= from {
                ahead.push((r + 1..r + 1 + 1024).take_while(|&p| d.is_cached(F, p)).count() as u64);
            }
        }
        ahead
    }

    fn min_max_mean(xs: &[u64]) -> (u64, u64, f64) {
        let sum: u64 = xs.iter().sum();
        (*xs.iter().min().unwrap(), *xs.iter().max().unwrap(), sum as f64 / xs.len() as f64)
    }

    #[test]
    fn both_baselines_hold_the_same_memory_ahead_of_the_reader() {
        // Over whole cycles from the first trigger: T + P - 1 right after a trigger, T just before the
        // next; the mean is T + P/2 - 1/2 = 47.5 pages for both 32-32 and 24-48 (the paper's equal
        // memory consumption of 48 pages).
        let a = pages_ahead(&mut tp(32, 32), 0..32 + 5 * 32, 32);
        assert_eq!(min_max_mean(&a), (32, 63, 47.5));
        let b = pages_ahead(&mut tp(24, 48), 0..24 + 5 * 48, 24);
        assert_eq!(min_max_mean(&b), (24, 71, 47.5));
        // Linux with 32-page windows reaches the same 32-32 steady state once its ramp-up is over (the
        // first full window's trigger is page 28).
        let mut linux = Driver::new(LinuxReadahead::new(32, PAGE));
        let c = pages_ahead(&mut linux, 0..28 + 5 * 32, 28);
        assert_eq!(min_max_mean(&c), (32, 63, 47.5));
    }

    #[test]
    fn random_misses_read_just_the_request() {
        let steps: &[Expect] = &[
            (1, 500..501, (0, 0, 0), &[500..501], &[]),
            (1, 900..904, (0, 0, 0), &[900..904], &[]),
            (1, 904..905, (904, 64, 32), &[904..968], &[936]),
            (1, 10..11, (904, 64, 32), &[10..11], &[]),
        ];
        trace(&mut tp(32, 32), F, steps);
    }

    #[test]
    fn oversize_read_chains_windows_through_its_own_marks() {
        let done = trace(
            &mut tp(24, 48),
            F,
            &[(1, 1000..1100, (1096, 48, 24), &[1000..1048, 1048..1096, 1096..1144], &[1024, 1072, 1120])],
        );
        assert_eq!(done[0].marker_hits, [1024, 1072]);
        trace(
            &mut tp(32, 32),
            F,
            &[(
                1,
                1000..1100,
                (1128, 32, 32),
                &[1000..1064, 1064..1096, 1096..1128, 1128..1160],
                &[1032, 1064, 1096, 1128],
            )],
        );
    }

    #[test]
    fn context_and_interleaved_readers() {
        // Context: 10 cached pages before the miss count as a stream; the window is still P.
        let mut d = tp(24, 48);
        d.cache(F, 40..50);
        trace(&mut d, F, &[(1, 50..51, (50, 48, 24), &[50..98], &[74])]);

        // Two readers sharing stream 1's state: A from 0, B from 1000. A's marker hit finds B's state and
        // re-derives A's next window from the hole after A's window.
        let steps: &[Expect] = &[
            (1, 0..1, (0, 48, 24), &[0..48], &[24]),
            (1, 1000..1001, (0, 48, 24), &[1000..1001], &[]),
            (1, 1001..1002, (1001, 48, 24), &[1001..1049], &[1025]),
            (1, 24..25, (48, 48, 24), &[48..96], &[72]),
            (1, 1025..1026, (1049, 48, 24), &[1049..1097], &[1073]),
        ];
        trace(&mut tp(24, 48), F, steps);
    }
}
