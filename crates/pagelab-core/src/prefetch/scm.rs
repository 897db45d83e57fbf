//! Rate-aware multi-stream prefetching from supply-chain management: Equal Time Supplies (`ets`) and Equal
//! Safety Factors (`esf`), after Zhang, Kulkarni, Ma, Zhou, "Memory Resource Allocation for File System
//! Prefetching — From a Supply Chain Management Perspective", EuroSys 2009 (`../shared/papers/002_*.txt`;
//! our copy is the talk's slides, not the paper).
//!
//! The mapping (slides "Background – Prefetching cycles", "Rate aware prefetching algorithms"): a
//! sequential stream is a good on a shelf; prefetched, not yet accessed pages are its inventory; the
//! prefetch degree P is the order quantity; the trigger distance T (pages still unconsumed when the next
//! prefetch is issued) is the reorder point; the disk access time is the lead time. T splits into the cycle
//! inventory T^C, consumed during the lead time, and the safety inventory T^S, which absorbs demand
//! faster than average. The algorithms share one total trigger distance `T_total` across the streams:
//!
//! - **ETS** (slide "Algorithm1"): "safety inventory for all goods set to the same time supply … uncertainty
//!   is proportional to the mean value", so `T_i = T_i^C + T_i^S = R_i / Σ_j R_j · T_total`, with `R_i`
//!   stream i's average access rate;
//! - **ESF** (slide "Algorithm2"): the same safety factor (safety inventory / standard deviation) for all,
//!   so `T_i = R_i · lead_time + σ_i / Σ_j σ_j · (T_total − Σ_j T_j^C)`, with `σ_i` the standard deviation
//!   of stream i's demand.
//!
//! P is not adapted (the slides' future work). The window mechanics are `tp`'s steady state
//! ([`super::FixedTp`] without ramp-up, readahead.md §8): a window of P pages whose PG_readahead mark sits
//! T pages before its end, so that reaching it leaves T pages unconsumed and issues the next P; a window
//! whose trigger would be the demanded page itself (T = P) is merged with the next, as Linux's readit step
//! does. Each window takes the stream's T_i at the moment it is issued.
//!
//! What the slides leave open, and what pagelab infers (each a choice, stated here once):
//! - **The memory budget.** The slides compare at equal memory, `[T + (T + P)] / 2` pages per stream, and
//!   give the default `T = 24, P = 48` ("24-48", the memory of Linux's 32-32). So `T_total = 24 × n` for
//!   `n` sequential streams, and the average inventory is `T_total + n · P / 2` as for `n` streams of 24-48.
//!   A stream counts from a miss that opens a sequential window until a miss that does not (a random
//!   reader takes no share) or its owner closes it.
//! - **The access rate** `R_i`: per stream, exponentially weighted over the gaps between
//!   its page requests as `read_done` sees them (the completion of each `read()` call; a read of n pages is
//!   a batch: one gap, then n − 1 gaps of zero), with weight [`DemandEstimate::WEIGHT`] = 1/256 — about a
//!   quarter of a second of a 1,000 pages/s stream, so a Poisson stream's rate is known to about ±4.4 %
//!   (one standard deviation).
//!   `R_i = 1 / mean gap`.
//! - **σ_i**, "the standard deviation of demand": of the pages demanded during about one lead time,
//!   measured directly: the pages each stream demands in consecutive windows of 10 ms (the order of one
//!   disk access; [`DemandEstimate::WINDOW`]), exponentially weighted (1/64) in mean and variance, windows
//!   without demand included. For the lead time L, σ_i = SD(window) · sqrt(L / 10 ms); only the ratios
//!   σ_i / Σσ_j enter the formula, so the scale cancels. A Poisson stream has SD = √(R × period): the
//!   slides' stable stream, "SD fixed at square root of rate". (The first version derived σ from the
//!   gaps' coefficient of variation c as c·sqrt(R L), renewal theory's limit for periods much longer than
//!   the gaps; at a lead time's scale it overstated a bursty stream's deviation several times over and gave
//!   it far more safety inventory than its demand needed.)
//! - **The lead time**, for ESF: "disk access time", one value for the system as the slide writes it:
//!   exponentially weighted (1/16) over every window's time from issue (the hook that returned it) to the
//!   completion of the fetch holding the window's last page ([`Prefetcher::fetch_done`]). Before the first
//!   sample T^C is 0 (all of the budget is safety inventory).
//! - **When T_i changes**: recomputed for all streams every [`ScmPrefetcher::PERIOD_DEFAULT`] (100 ms;
//!   `period=`) of the driver's time, checked at each hook, and at the next hook when a stream starts or
//!   stops reading sequentially, settles, or closes. A new stream runs at the default T (24) until [`DemandEstimate::SETTLE_SAMPLES`] (256) gaps
//!   and [`DemandEstimate::SETTLE_WINDOWS`] (16) windows are known, and the budget of the settled
//!   streams is `T_total` less the defaults of the unsettled. A stream that arrives therefore leaves the
//!   settled streams' T_i as they were until it has settled, and the recompute at that hook gives all of
//!   them their shares of the larger budget (tested). A stream whose miss is random gives its share back
//!   and its T_i returns to the default: if it reads sequentially again, its first window is 24-48's, as a
//!   new stream's, until the next hook's recompute. (Until 2026-12-06 it kept its last T_i, and a random
//!   reader that Linux's context test took for a stream's start opened a window of 2P pages where its
//!   share had been P: most of the scm-prefetch experiment's VOD runs with more prefetch memory than
//!   32-32's.)
//! - **The range of T_i**: `1..=P`. The marker of the next window sits inside the window just issued (the
//!   on-demand protocol), so T cannot exceed P. A share above P is capped at P and the excess is
//!   redistributed over the other streams in proportion to their shares (water-filling), so the budget is
//!   kept whenever it fits under `n × P` (when every uncapped share is zero, the excess is split evenly
//!   among them); T_i is then rounded to whole pages.
//! - **ESF when the cycle inventory alone exceeds the budget** (`Σ R_j L > T_total`): there is no safety
//!   inventory to share, and T_i = T_total · R_i L / Σ R_j L (proportional to rate: ETS).
//!
//! Departures: the kernel patch ran on 2.6.18's current/ahead windows; this runs on the marker protocol
//! pagelab's buffer cache drives (as `tp` does, and for the same reason). Estimates use floating point
//! (the slides name "limited floating point calculation in kernel" as an implementation challenge; a
//! simulation need not share it).

use super::fixed::next_window;
use super::state::RaStates;
use super::{
    check_sync_window, check_window, classify_miss, next_missing_page, CacheView, FileRaState, MissKind,
    Prefetcher, ReadCtx, Window,
};
use crate::key::{FileId, StreamId};
use crate::time::Nanos;
use std::ops::Range;

/// Which supply-chain rule splits the total trigger distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScmRule {
    /// Equal Time Supplies: T_i in proportion to the access rate.
    Ets,
    /// Equal Safety Factors: cycle inventory by rate × lead time, safety inventory by deviation.
    Esf,
}

impl ScmRule {
    pub const fn name(self) -> &'static str {
        match self {
            ScmRule::Ets => "ets",
            ScmRule::Esf => "esf",
        }
    }
}

/// An exponentially weighted mean and variance (West's incremental form), seeded by the first sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Ewma {
    mean: f64,
    var: f64,
    samples: u64,
}

impl Ewma {
    fn add(&mut self, x: f64, weight: f64) {
        if self.samples == 0 {
            (self.mean, self.var) = (x, 0.0);
        } else {
            let diff = x - self.mean;
            let incr = weight * diff;
            self.mean += incr;
            self.var = (1.0 - weight) * (self.var + diff * incr);
        }
        self.samples += 1;
    }
}

/// One stream's demand, estimated online (module doc): its rate from the gaps between its page requests,
/// its deviation from the pages it demands in consecutive windows of [`DemandEstimate::WINDOW`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DemandEstimate {
    last: Option<Nanos>,
    gaps_ns: Ewma,
    window_start: Option<Nanos>,
    window_pages: u64,
    window_counts: Ewma,
}

impl DemandEstimate {
    /// Weight of each new gap in the exponentially weighted mean and variance of the gaps.
    pub const WEIGHT: f64 = 1.0 / 256.0;
    /// Gaps known before the estimate is used.
    pub const SETTLE_SAMPLES: u64 = 256;
    /// The window whose demand's deviation is measured: the order of one disk access, the lead time.
    pub const WINDOW: Nanos = Nanos::from_ms(10);
    /// Weight of each window's count: 64 windows, 0.64 s of memory.
    pub const WINDOW_WEIGHT: f64 = 1.0 / 64.0;
    /// Windows known before the deviation is used.
    pub const SETTLE_WINDOWS: u64 = 16;

    /// A read of `pages` pages (at least 1) completed at `now`: one gap since the previous read, then
    /// `pages − 1` gaps of zero (the batch); the pages count in the window holding `now`.
    pub fn record(&mut self, now: Nanos, pages: u64) {
        assert!(pages >= 1, "a read of no pages");
        self.close_windows(now);
        self.window_pages += pages;
        let Some(last) = self.last.replace(now) else {
            return;
        };
        let gap = now.saturating_sub(last).0 as f64;
        // A batch larger than the weight's memory adds nothing the bound does not: keep the loop short.
        let zeros = (pages - 1).min(4 * Self::SETTLE_SAMPLES);
        self.gaps_ns.add(gap, Self::WEIGHT);
        for _ in 0..zeros {
            self.gaps_ns.add(0.0, Self::WEIGHT);
        }
    }

    /// Every window that ended by `now` becomes a sample: the current one with its pages, the ones after it
    /// with none (at most as many as the weight remembers: older ones are forgotten anyway).
    fn close_windows(&mut self, now: Nanos) {
        let w = Self::WINDOW.0;
        let Some(start) = self.window_start else {
            self.window_start = Some(now);
            return;
        };
        let ended = now.saturating_sub(start).0 / w;
        if ended == 0 {
            return;
        }
        self.window_counts.add(self.window_pages as f64, Self::WINDOW_WEIGHT);
        self.window_pages = 0;
        let empty = (ended - 1).min((4.0 / Self::WINDOW_WEIGHT) as u64);
        for _ in 0..empty {
            self.window_counts.add(0.0, Self::WINDOW_WEIGHT);
        }
        self.window_start = Some(Nanos(start.0 + ended * w));
    }

    pub fn settled(&self) -> bool {
        self.gaps_ns.samples >= Self::SETTLE_SAMPLES && self.window_counts.samples >= Self::SETTLE_WINDOWS
    }

    /// R: pages per second; `None` before the first gap, or when the gaps average zero.
    pub fn rate_pages_s(&self) -> Option<f64> {
        (self.gaps_ns.samples > 0 && self.gaps_ns.mean > 0.0).then(|| 1e9 / self.gaps_ns.mean)
    }

    /// The gaps' coefficient of variation (1 for a Poisson stream): for reports.
    pub fn gap_cv(&self) -> Option<f64> {
        (self.gaps_ns.samples > 0 && self.gaps_ns.mean > 0.0)
            .then(|| self.gaps_ns.var.sqrt() / self.gaps_ns.mean)
    }

    /// σ: the standard deviation of the pages demanded during `period`, from the windows' deviation scaled
    /// by `sqrt(period / WINDOW)` (exact for independent windows; ESF uses only the streams' ratios, which
    /// the scale leaves alone). `None` before the first window has ended.
    pub fn demand_sd_pages(&self, period: Nanos) -> Option<f64> {
        (self.window_counts.samples > 0)
            .then(|| self.window_counts.var.sqrt() * (period.0 as f64 / Self::WINDOW.0 as f64).sqrt())
    }
}

/// A settled stream's demand as the allocation sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamDemand {
    pub rate_pages_s: f64,
    /// σ_i: the standard deviation of demand over the lead time, pages.
    pub sd_pages: f64,
}

/// The trigger distances (pages, unrounded) that `rule` gives `streams` from a total of `t_total_pages`,
/// with lead time `lead_s` seconds, each at most `cap_pages` (module doc: capped shares are redistributed).
pub fn trigger_distances(
    rule: ScmRule,
    streams: &[StreamDemand],
    t_total_pages: f64,
    lead_s: f64,
    cap_pages: f64,
) -> Vec<f64> {
    let n = streams.len();
    if n == 0 {
        return Vec::new();
    }
    let even = |_: &StreamDemand| t_total_pages / n as f64;
    let rate_sum: f64 = streams.iter().map(|s| s.rate_pages_s).sum();
    let by_rate = |s: &StreamDemand| {
        if rate_sum > 0.0 {
            s.rate_pages_s / rate_sum * t_total_pages
        } else {
            even(s)
        }
    };
    let raw: Vec<f64> = match rule {
        ScmRule::Ets => streams.iter().map(by_rate).collect(),
        ScmRule::Esf => {
            let cycle: Vec<f64> = streams.iter().map(|s| s.rate_pages_s * lead_s).collect();
            let cycle_sum: f64 = cycle.iter().sum();
            if cycle_sum >= t_total_pages {
                streams.iter().map(by_rate).collect()
            } else {
                let safety = t_total_pages - cycle_sum;
                let sd_sum: f64 = streams.iter().map(|s| s.sd_pages).sum();
                streams
                    .iter()
                    .zip(&cycle)
                    .map(|(s, c)| {
                        c + if sd_sum > 0.0 { s.sd_pages / sd_sum } else { 1.0 / n as f64 } * safety
                    })
                    .collect()
            }
        }
    };
    water_fill(raw, cap_pages)
}

/// Caps every share at `cap` and gives the excess to the uncapped shares in proportion to their size,
/// until none exceeds the cap or all are capped. At most `n` rounds: each round caps at least one more.
fn water_fill(mut shares: Vec<f64>, cap: f64) -> Vec<f64> {
    let n = shares.len();
    let mut capped = vec![false; n];
    for _ in 0..n {
        let excess: f64 = shares.iter().map(|&s| (s - cap).max(0.0)).sum();
        if excess <= 1e-9 {
            break;
        }
        for (s, c) in shares.iter_mut().zip(capped.iter_mut()) {
            if *s >= cap {
                *s = cap;
                *c = true;
            }
        }
        let open: f64 = shares.iter().zip(&capped).filter(|(_, &c)| !c).map(|(s, _)| s).sum();
        let uncapped = capped.iter().filter(|&&c| !c).count();
        if uncapped == 0 {
            break;
        }
        for (s, _) in shares.iter_mut().zip(&capped).filter(|(_, &c)| !c) {
            // In proportion to the shares; evenly when every uncapped share is zero.
            *s += if open > 0.0 { excess * *s / open } else { excess / uncapped as f64 };
        }
    }
    shares
}

/// A window in flight whose completion times the lead: its last page and when it was issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PendingWindow {
    last_page: u64,
    issued: Nanos,
}

/// Windows of one stream still in flight, oldest first: a reader that reaches the next marker before the
/// last window has arrived (the lead time exceeds the supply) has several, and the slow ones are exactly
/// the samples the lead time needs. Bounded: the oldest is forgotten when a fifth is issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PendingWindows {
    windows: [Option<PendingWindow>; PendingWindows::MAX],
}

impl PendingWindows {
    const MAX: usize = 4;

    fn push(&mut self, w: PendingWindow) {
        if self.windows[Self::MAX - 1].is_some() {
            self.windows.rotate_left(1);
            self.windows[Self::MAX - 1] = None;
        }
        let free = self.windows.iter().position(Option::is_none).expect("a free slot after the rotation");
        self.windows[free] = Some(w);
    }

    /// The window whose last page is in `pages`, taken out.
    fn take_completed(&mut self, pages: &Range<u64>) -> Option<PendingWindow> {
        let i = self.windows.iter().position(|w| w.is_some_and(|w| pages.contains(&w.last_page)))?;
        let w = self.windows[i].take();
        // Keep the live ones first, in order.
        self.windows[i..].rotate_left(1);
        w
    }
}

#[derive(Clone, Copy, Debug)]
struct ScmState {
    ra: FileRaState,
    demand: DemandEstimate,
    /// T_i, pages: what the next window's trigger is.
    trigger: u64,
    /// The stream has opened a sequential window: it takes a share of the budget.
    sequential: bool,
    pending: PendingWindows,
}

/// ETS or ESF over `tp`'s steady-state windows (module doc).
#[derive(Clone, Debug)]
pub struct ScmPrefetcher {
    rule: ScmRule,
    trigger_default_pages: u64,
    prefetch_degree_pages: u64,
    page_size_bytes: u64,
    period: Nanos,
    next_recompute: Nanos,
    /// The stream set changed (opened, settled, closed): recompute at the next hook.
    stale: bool,
    /// The system's lead time (exponentially weighted), ns.
    lead_ns_mean: Option<f64>,
    states: RaStates<ScmState>,
    /// T_i recomputations so far.
    recomputes: u64,
}

impl ScmPrefetcher {
    /// How often T_i is recomputed, besides when the stream set changes.
    pub const PERIOD_DEFAULT: Nanos = Nanos::from_ms(100);
    /// Weight of each lead-time sample.
    pub const LEAD_WEIGHT: f64 = 1.0 / 16.0;

    /// `rule` with default trigger distance `t` and prefetch degree `p` in pages. Caller guarantees
    /// `1 <= t <= p <= RA_PAGES_LIMIT` and `page_size_bytes >= 1`.
    pub fn new(rule: ScmRule, t: u64, p: u64, page_size_bytes: u64) -> ScmPrefetcher {
        assert!((1..=super::RA_PAGES_LIMIT).contains(&p), "prefetch degree {p} out of range");
        assert!((1..=p).contains(&t), "trigger distance {t} outside 1..={p}");
        assert!(page_size_bytes >= 1, "page size must be positive");
        ScmPrefetcher {
            rule,
            trigger_default_pages: t,
            prefetch_degree_pages: p,
            page_size_bytes,
            period: Self::PERIOD_DEFAULT,
            next_recompute: Nanos::ZERO,
            stale: false,
            lead_ns_mean: None,
            states: RaStates::new(),
            recomputes: 0,
        }
    }

    /// Recompute every `period` (at least 1 ns) instead of [`Self::PERIOD_DEFAULT`].
    pub fn with_period(mut self, period: Nanos) -> ScmPrefetcher {
        assert!(period > Nanos::ZERO, "a recomputation period of zero");
        self.period = period;
        self
    }

    /// The spec that builds this prefetcher again (`ets:24-48`, `esf:24-48,period=50ms`).
    pub fn spec(&self) -> String {
        let period = if self.period == Self::PERIOD_DEFAULT {
            String::new()
        } else {
            format!(",period={}ns", self.period.0)
        };
        format!("{}:{}-{}{period}", self.rule.name(), self.trigger_default_pages, self.prefetch_degree_pages)
    }

    /// T_i of (`stream`, `file`) for its next window, if it has a state.
    pub fn trigger_pages(&self, stream: StreamId, file: FileId) -> Option<u64> {
        self.states.get(stream, file).map(|s| s.trigger)
    }

    /// The system's lead time estimate.
    pub fn lead_time(&self) -> Option<Nanos> {
        self.lead_ns_mean.map(|ns| Nanos(ns.round() as u64))
    }

    pub fn recomputes(&self) -> u64 {
        self.recomputes
    }

    fn fresh(&self) -> ScmState {
        ScmState {
            ra: FileRaState::new(self.prefetch_degree_pages),
            demand: DemandEstimate::default(),
            trigger: self.trigger_default_pages,
            sequential: false,
            pending: PendingWindows::default(),
        }
    }

    fn maybe_recompute(&mut self, now: Nanos) {
        if self.stale || now >= self.next_recompute {
            self.recompute();
            self.next_recompute = Nanos(now.0.saturating_add(self.period.0));
            self.stale = false;
        }
    }

    /// T_i for every sequential stream: the settled ones share the budget by the rule, the others keep
    /// the default.
    fn recompute(&mut self) {
        self.recomputes += 1;
        let lead = Nanos(self.lead_ns_mean.unwrap_or(0.0).round() as u64);
        let (t_default, p) = (self.trigger_default_pages, self.prefetch_degree_pages);
        let mut settled = Vec::new();
        self.states.for_each_mut(|s| {
            if s.sequential && s.demand.settled() {
                let rate_pages_s = s.demand.rate_pages_s().unwrap_or(0.0);
                // With no lead sample yet, σ over one second: only the ratios matter (module doc).
                let over = if lead > Nanos::ZERO { lead } else { Nanos::from_ms(1000) };
                settled.push(StreamDemand {
                    rate_pages_s,
                    sd_pages: s.demand.demand_sd_pages(over).unwrap_or(0.0),
                });
            } else if s.sequential {
                s.trigger = t_default;
            }
        });
        let budget = (t_default * settled.len() as u64) as f64;
        let shares = trigger_distances(self.rule, &settled, budget, lead.as_secs_f64(), p as f64);
        let mut shares = shares.into_iter();
        self.states.for_each_mut(|s| {
            if s.sequential && s.demand.settled() {
                let share = shares.next().expect("one share per settled stream");
                s.trigger = (share.round() as u64).clamp(1, p);
            }
        });
        assert!(shares.next().is_none(), "more shares than settled streams");
    }

    /// The first window of a sequential run at `index`: P pages, trigger T; merged with the next P when
    /// the trigger would be `index` itself.
    fn open_window(&self, s: &mut ScmState, index: u64) {
        let p = self.prefetch_degree_pages;
        next_window(&mut s.ra, index, s.trigger, p);
        if s.ra.start + s.ra.size - s.ra.async_size == index {
            s.ra.size += p;
        }
    }

    fn issued(s: &mut ScmState, now: Nanos) {
        let w = s.ra.window();
        s.pending.push(PendingWindow { last_page: w.end() - 1, issued: now });
    }
}

impl Prefetcher for ScmPrefetcher {
    fn name(&self) -> &'static str {
        self.rule.name()
    }

    fn on_sync_miss(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Window {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let max = self.window_pages_max(ctx.req_pages);
        let (p, page_size) = (self.prefetch_degree_pages, self.page_size_bytes);
        self.maybe_recompute(ctx.now);
        let fresh = self.fresh();
        let mut s = *self.states.open(ctx.stream, ctx.file, fresh);
        let kind = classify_miss(&s.ra, ctx, view, p, page_size);
        let sequential = !matches!(kind, MissKind::Random);
        // A stream takes a share of the budget while it reads sequentially; a random miss gives it back,
        // and its T_i with it: a run that starts again later starts as a new stream does, at the default
        // (2.6's readahead, too, begins a run after random reads from its initial window, not the last).
        if std::mem::replace(&mut s.sequential, sequential) != sequential {
            self.stale = true;
            if !sequential {
                s.trigger = self.trigger_default_pages;
            }
        }
        let w = if sequential {
            self.open_window(&mut s, ctx.index);
            Self::issued(&mut s, ctx.now);
            s.ra.window()
        } else {
            Window::exact(ctx.index, ctx.req_pages)
        };
        *self.states.open(ctx.stream, ctx.file, fresh) = s;
        check_sync_window(&w, ctx, max);
        w
    }

    fn on_marker_hit(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Option<Window> {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        self.maybe_recompute(ctx.now);
        let max = self.window_pages_max(ctx.req_pages);
        let p = self.prefetch_degree_pages;
        let fresh = self.fresh();
        let mut s = *self.states.open(ctx.stream, ctx.file, fresh);
        if ctx.index == 0 {
            self.open_window(&mut s, 0);
        } else if ctx.index == s.ra.start + s.ra.size - s.ra.async_size {
            let end = s.ra.start + s.ra.size;
            next_window(&mut s.ra, end, s.trigger, p);
        } else {
            // Another reader of this stream moved the state: resume after the hole.
            let hole = next_missing_page(view, ctx.file, ctx.index, p);
            if hole - ctx.index > p {
                return None;
            }
            next_window(&mut s.ra, hole, s.trigger, p);
        }
        Self::issued(&mut s, ctx.now);
        *self.states.open(ctx.stream, ctx.file, fresh) = s;
        let w = s.ra.window();
        check_window(&w, max);
        Some(w)
    }

    fn read_done(&mut self, now: Nanos, stream: StreamId, file: FileId, bytes: Range<u64>) {
        let page_size = self.page_size_bytes;
        let fresh = self.fresh();
        let s = self.states.open(stream, file, fresh);
        // The pages this call read: the stream's demand, wherever in the file it was.
        let pages = bytes.end.saturating_sub(bytes.start).div_ceil(page_size).max(1);
        let was_settled = s.demand.settled();
        s.demand.record(now, pages);
        s.ra.prev_pos = Some(bytes.end);
        if s.sequential && s.demand.settled() != was_settled {
            self.stale = true;
        }
        self.maybe_recompute(now);
    }

    fn fetch_done(&mut self, now: Nanos, owner: StreamId, file: FileId, pages: Range<u64>) {
        let Some(s) = self.states.get_mut(owner, file) else {
            return;
        };
        let Some(pending) = s.pending.take_completed(&pages) else {
            return;
        };
        let lead = now.saturating_sub(pending.issued).0 as f64;
        self.lead_ns_mean = Some(match self.lead_ns_mean {
            None => lead,
            Some(mean) => mean + Self::LEAD_WEIGHT * (lead - mean),
        });
    }

    fn stream_closed(&mut self, stream: StreamId) {
        if self.states.close_stream(stream) > 0 {
            self.stale = true;
        }
    }

    fn file_closed(&mut self, stream: StreamId, file: FileId) {
        if self.states.close_file(stream, file) {
            self.stale = true;
        }
    }

    /// 2P: a first window is merged with the next when T_i = P; other windows are P.
    fn window_pages_max(&self, _req_pages: u64) -> u64 {
        2 * self.prefetch_degree_pages
    }

    fn ra_state(&self, stream: StreamId, file: FileId) -> Option<FileRaState> {
        self.states.get(stream, file).map(|s| s.ra)
    }

    fn tracked_states(&self) -> usize {
        self.states.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefetch::testing::{Driver, PAGE};

    const F: FileId = FileId(1);

    fn demand(rate_pages_s: f64, sd_pages: f64) -> StreamDemand {
        StreamDemand { rate_pages_s, sd_pages }
    }

    /// The slides' first experiment at 7,000 pages/s: ETS gives the two streams 48 × 1/8 and 48 × 7/8.
    #[test]
    fn ets_splits_the_budget_by_rate() {
        let t =
            trigger_distances(ScmRule::Ets, &[demand(1000.0, 0.0), demand(7000.0, 0.0)], 48.0, 0.01, 48.0);
        assert_eq!(t, vec![6.0, 42.0]);
        // Equal rates: the fixed 24-48.
        let t = trigger_distances(ScmRule::Ets, &[demand(300.0, 1.0), demand(300.0, 9.0)], 48.0, 0.01, 48.0);
        assert_eq!(t, vec![24.0, 24.0]);
    }

    /// ESF by hand: rates 1,000 and 1,000 pages/s, lead 10 ms → T^C = 10 each; the remaining 28 pages split
    /// by σ = 3.16 and 22.1 (c = 1 and 7 over 10 ms): 3.5 and 24.5.
    #[test]
    fn esf_gives_cycle_inventory_by_rate_and_safety_by_deviation() {
        let sd = |c: f64| c * (1000.0f64 * 0.01).sqrt();
        let t = trigger_distances(
            ScmRule::Esf,
            &[demand(1000.0, sd(1.0)), demand(1000.0, sd(7.0))],
            48.0,
            0.01,
            48.0,
        );
        assert!((t[0] - 13.5).abs() < 1e-9 && (t[1] - 34.5).abs() < 1e-9, "{t:?}");
        assert!((t.iter().sum::<f64>() - 48.0).abs() < 1e-9);
        // The cycle inventory alone exceeds the budget: shares by rate (ETS).
        let t = trigger_distances(ScmRule::Esf, &[demand(1000.0, 1.0), demand(3000.0, 9.0)], 48.0, 0.1, 48.0);
        assert_eq!(t, vec![12.0, 36.0]);
    }

    /// A share above P is capped and its excess goes to the others in proportion.
    #[test]
    fn shares_above_the_degree_are_capped_and_redistributed() {
        // ETS 1 : 9 : 10 of 72 pages → 3.6, 32.4, 36 under a cap of 30: 36 and 32.4 capped, excess 8.4 to
        // the first, which takes it all (3.6 + 8.4 = 12).
        let t = trigger_distances(
            ScmRule::Ets,
            &[demand(100.0, 0.0), demand(900.0, 0.0), demand(1000.0, 0.0)],
            72.0,
            0.0,
            30.0,
        );
        assert!((t[0] - 12.0).abs() < 1e-9 && t[1] == 30.0 && t[2] == 30.0, "{t:?}");
        // All capped: the budget cannot be kept.
        let t = trigger_distances(ScmRule::Ets, &[demand(1.0, 0.0), demand(1.0, 0.0)], 100.0, 0.0, 30.0);
        assert_eq!(t, vec![30.0, 30.0]);
        assert!(trigger_distances(ScmRule::Esf, &[], 0.0, 0.0, 30.0).is_empty());
    }

    /// A deterministic stream at 1,000 pages/s: rate exact, deviation zero. Alternating gaps of 0.5 and 1.5
    /// ms: the mean gap 1 ms, its coefficient of variation 0.5, and every 10-ms window holds 10 pages.
    #[test]
    fn the_estimator_recovers_rate_and_deviation_of_known_sequences() {
        let mut d = DemandEstimate::default();
        for i in 0..=2000u64 {
            d.record(Nanos(i * 1_000_000), 1);
        }
        assert!(d.settled());
        assert!((d.rate_pages_s().unwrap() - 1000.0).abs() < 1e-6);
        assert!(d.gap_cv().unwrap() < 1e-9);
        assert!(d.demand_sd_pages(DemandEstimate::WINDOW).unwrap() < 1e-9, "{d:?}");

        let mut d = DemandEstimate::default();
        let mut t = 0;
        for i in 0..4000u64 {
            t += if i % 2 == 0 { 500_000 } else { 1_500_000 };
            d.record(Nanos(t), 1);
        }
        assert!((d.rate_pages_s().unwrap() - 1000.0).abs() < 5.0, "{d:?}");
        assert!((d.gap_cv().unwrap() - 0.5).abs() < 0.01, "{d:?}");
        assert!(d.demand_sd_pages(DemandEstimate::WINDOW).unwrap() < 1e-6, "{d:?}");
    }

    /// Bursts of 20 pages every 20 ms: windows of 10 ms alternate 20 and 0 pages, SD 10; over 40 ms (four
    /// windows) the SD scales by 2. The rate counts pages, and each burst is one gap and 19 zero gaps.
    #[test]
    fn bursts_show_as_window_deviation() {
        let mut d = DemandEstimate::default();
        for i in 0..=500u64 {
            d.record(Nanos(i * 20_000_000), 20);
        }
        assert!(d.settled());
        // Observed right after a burst's zero gaps, the weighted mean gap sits a few % low.
        assert!((d.rate_pages_s().unwrap() - 1000.0).abs() < 50.0, "{d:?}");
        let sd = d.demand_sd_pages(DemandEstimate::WINDOW).unwrap();
        assert!((sd - 10.0).abs() < 0.2, "{sd}");
        let sd40 = d.demand_sd_pages(Nanos::from_ms(40)).unwrap();
        assert!((sd40 - 20.0).abs() < 0.4, "{sd40}");
    }

    /// A stream that pauses: the windows it missed count as windows of no demand (bounded).
    #[test]
    fn a_pause_counts_as_empty_windows() {
        let mut d = DemandEstimate::default();
        for i in 0..100u64 {
            d.record(Nanos(i * 1_000_000), 1);
        }
        let before = d.window_counts.samples;
        d.record(Nanos::from_secs(3600), 1);
        assert_eq!(
            d.window_counts.samples - before,
            1 + 256,
            "the ended window and the remembered empty ones"
        );
        assert_eq!(d.window_start, Some(Nanos::from_secs(3600)));
    }

    /// A Poisson stream at 1,000 pages/s (exponential gaps, seeded): at 200 checkpoints 4,000 requests
    /// apart (far beyond either weight's memory, so nearly independent), the estimated rate has the
    /// spread the module doc states, one standard deviation of sqrt(w / (2 − w)) = 4.4 % for the gaps'
    /// weight w = 1/256, and no bias; the 10-ms windows' counts are Poisson(10), whose SD is
    /// sqrt(rate × window) = sqrt(10) = 3.16 pages, and over 100 ms the estimate scales to sqrt(100) =
    /// 10. Tolerances: the mean over the checkpoints within 1.5 % (rate; its standard error is 0.3 %)
    /// and 4 % (SD: the exponentially weighted variance of about 127 windows has a relative standard
    /// error near 13 %, so each SD estimate about 6.4 %, their mean 0.5 %, plus the small downward bias
    /// of a square root); the rate's spread between 3.5 and 5.5 % (its own estimate is good to about
    /// 5 %); every single SD within 30 % (more than four of its standard deviations).
    #[test]
    fn the_estimator_recovers_rate_and_deviation_of_a_poisson_stream() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        let (rate_pages_s, checkpoints, between) = (1000.0f64, 200usize, 4000usize);
        let mut rng = StdRng::seed_from_u64(16);
        let mut d = DemandEstimate::default();
        let mut t_ns = 0.0f64;
        let (mut rates, mut sds) = (Vec::new(), Vec::new());
        for _ in 0..checkpoints {
            for _ in 0..between {
                t_ns += -1e9 / rate_pages_s * (1.0 - rng.gen::<f64>()).ln();
                d.record(Nanos(t_ns.round() as u64), 1);
            }
            assert!(d.settled());
            rates.push(d.rate_pages_s().unwrap() / rate_pages_s - 1.0);
            sds.push(d.demand_sd_pages(DemandEstimate::WINDOW).unwrap());
            let sd100 = d.demand_sd_pages(Nanos::from_ms(100)).unwrap();
            assert!((sd100 / sds.last().unwrap() - 10f64.sqrt()).abs() < 1e-9, "{sd100}");
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let rate_bias = mean(&rates);
        let rate_spread = (rates.iter().map(|r| r * r).sum::<f64>() / rates.len() as f64).sqrt();
        let expected_spread = (DemandEstimate::WEIGHT / (2.0 - DemandEstimate::WEIGHT)).sqrt();
        assert!((expected_spread - 0.0442).abs() < 1e-4, "the doc's ±4.4 %: {expected_spread}");
        assert!(rate_bias.abs() < 0.015, "rate bias {rate_bias}");
        assert!((0.035..0.055).contains(&rate_spread), "rate spread {rate_spread}");
        let sd_expected = (rate_pages_s * DemandEstimate::WINDOW.as_secs_f64()).sqrt();
        assert!(
            (mean(&sds) / sd_expected - 1.0).abs() < 0.04,
            "mean SD {} against {sd_expected}",
            mean(&sds)
        );
        for sd in &sds {
            assert!((sd / sd_expected - 1.0).abs() < 0.3, "SD {sd} against {sd_expected}");
        }
    }

    /// The slow and the fast reader of the two-reader tests, and their files.
    const TWO_READERS: (StreamId, StreamId, FileId, FileId) =
        (StreamId(1), StreamId(2), FileId(1), FileId(2));

    /// Half a second of [`TWO_READERS`]: the slow one reads a page every millisecond, the fast one
    /// `fast_per_ms` pages a millisecond, evenly spaced. The next page of each.
    fn read_two_for_half_a_second(d: &mut Driver<ScmPrefetcher>, fast_per_ms: u64) -> (u64, u64) {
        let (slow, fast, g, fg) = TWO_READERS;
        let mut next = (0u64, 0u64);
        for ms in 0..500u64 {
            d.now = Nanos::from_ms(ms);
            d.read_page(slow, g, next.0);
            next.0 += 1;
            for k in 0..fast_per_ms {
                d.now = Nanos(ms * 1_000_000 + k * 1_000_000 / fast_per_ms);
                d.read_page(fast, fg, next.1);
                next.1 += 1;
            }
        }
        next
    }

    /// Drives two one-page readers at 1,000 and 7,000 pages/s through ETS: once settled, their windows
    /// carry T = 6 and 42, and every window is P = 48 pages.
    #[test]
    fn ets_moves_triggers_once_the_streams_settle() {
        let mut d = Driver::new(ScmPrefetcher::new(ScmRule::Ets, 24, 48, PAGE));
        let (slow, fast, g, fg) = TWO_READERS;
        // 0.5 s of reading: 500 and 3,500 pages.
        let next = read_two_for_half_a_second(&mut d, 7);
        assert_eq!(d.pf.trigger_pages(slow, g), Some(6));
        assert_eq!(d.pf.trigger_pages(fast, fg), Some(42));
        let w = d.pf.ra_state(fast, fg).unwrap();
        assert_eq!((w.size, w.async_size), (48, 42), "{w:?}");
        assert!(d.pf.recomputes() >= 5);
        // The slow stream closes: the fast one is alone and takes the whole budget of one stream.
        d.pf.stream_closed(slow);
        d.now = Nanos::from_ms(500);
        d.read_page(fast, fg, next.1);
        assert_eq!(d.pf.trigger_pages(fast, fg), Some(24));
    }

    /// A stream that arrives changes the settled streams' T_i at the first recompute after it settles
    /// (module doc: until then it runs at the default and the settled share what is left). By hand, ETS
    /// with T = 24: streams at 1,000 and 5,000 pages/s share 2 × 24 = 48 pages as 8 and 40; a third at
    /// 2,000 pages/s arrives and runs at 24 while the two keep 8 and 40 (72 − 24 = 48 left to them); once
    /// it has settled the three share 72 as 72 × 1/8, 5/8, 2/8 = 9, 45 and 18. The period is an hour, so
    /// every recompute here is the stream set's change, none the clock's. Gaps are exact multiples of
    /// 100 µs: the estimated rates are exact.
    #[test]
    fn a_stream_that_arrives_moves_the_settled_streams_triggers() {
        let pf = ScmPrefetcher::new(ScmRule::Ets, 24, 48, PAGE).with_period(Nanos::from_secs(3600));
        let mut d = Driver::new(pf);
        let streams =
            [(StreamId(1), FileId(1), 10u64), (StreamId(2), FileId(2), 2), (StreamId(3), FileId(3), 5)];
        let mut next = [0u64; 3];
        // One tick of 100 µs: each present stream reads its next page when its period (in ticks) is up.
        let mut tick = |d: &mut Driver<ScmPrefetcher>, t: u64, present: usize| {
            d.now = Nanos(t * 100_000);
            for (i, &(s, f, every)) in streams.iter().enumerate().take(present) {
                if t.is_multiple_of(every) {
                    d.read_page(s, f, next[i]);
                    next[i] += 1;
                }
            }
        };
        let triggers = |d: &Driver<ScmPrefetcher>| streams.map(|(s, f, _)| d.pf.trigger_pages(s, f));
        // 0.5 s of the first two: 500 and 2,500 reads, both settled.
        for t in 0..5000 {
            tick(&mut d, t, 2);
        }
        assert_eq!(triggers(&d), [Some(8), Some(40), None]);
        // The third arrives: the default for it, the settled two unchanged.
        let mut t = 5000;
        tick(&mut d, t, 3);
        assert_eq!(triggers(&d), [Some(8), Some(40), Some(24)]);
        let settled =
            |d: &Driver<ScmPrefetcher>| d.pf.states.get(StreamId(3), FileId(3)).unwrap().demand.settled();
        while !settled(&d) {
            assert_eq!(triggers(&d), [Some(8), Some(40), Some(24)], "before the third settles, at tick {t}");
            t += 1;
            tick(&mut d, t, 3);
        }
        // The read that settled it recomputed: 72 pages by rate.
        assert_eq!(triggers(&d), [Some(9), Some(45), Some(18)], "settled at tick {t}");
        assert!(t * 100_000 < Nanos::from_ms(700).0, "it settles within 200 ms: tick {t}");
    }

    /// Before a stream settles it runs 24-48: the first window is [0, 48) with the mark on page 24.
    #[test]
    fn a_new_stream_starts_at_the_default() {
        let mut d = Driver::new(ScmPrefetcher::new(ScmRule::Esf, 24, 48, PAGE));
        let step = d.read_page(StreamId(1), F, 0);
        assert_eq!(step.sync_windows, vec![Window { start: 0, size: 48, async_size: 24 }]);
        assert!(d.is_marked(F, 24));
        // T = P merges the first window with the next, as `tp` does.
        let mut d = Driver::new(ScmPrefetcher::new(ScmRule::Ets, 48, 48, PAGE));
        let step = d.read_page(StreamId(1), F, 0);
        assert_eq!(step.sync_windows, vec![Window { start: 0, size: 96, async_size: 48 }]);
    }

    /// The lead time is timed from a window's issue to the completion of the fetch holding its last page.
    #[test]
    fn the_lead_time_is_measured_from_issue_to_completion() {
        let mut pf = ScmPrefetcher::new(ScmRule::Esf, 24, 48, PAGE);
        let mut d = Driver::new(pf.clone());
        d.now = Nanos::from_ms(5);
        d.read_page(StreamId(1), F, 0);
        pf = d.pf;
        // A fetch that does not hold page 47 times nothing.
        pf.fetch_done(Nanos::from_ms(9), StreamId(1), F, 0..10);
        assert_eq!(pf.lead_time(), None);
        pf.fetch_done(Nanos::from_ms(13), StreamId(1), F, 10..48);
        assert_eq!(pf.lead_time(), Some(Nanos::from_ms(8)));
        // Each window is timed once.
        pf.fetch_done(Nanos::from_ms(30), StreamId(1), F, 10..48);
        assert_eq!(pf.lead_time(), Some(Nanos::from_ms(8)));
    }

    /// Windows issued while earlier ones are still in flight are each timed: the slow completions the lead
    /// time most needs are not lost when the reader has already moved on.
    #[test]
    fn windows_in_flight_together_are_each_timed() {
        let mut pf = ScmPrefetcher::new(ScmRule::Esf, 24, 48, PAGE);
        let (s, f) = (StreamId(1), F);
        let mut st = pf.fresh();
        for (i, at_ms) in [(0u64, 0u64), (1, 2), (2, 4)] {
            st.ra = FileRaState { start: i * 48, size: 48, async_size: 24, ..st.ra };
            ScmPrefetcher::issued(&mut st, Nanos::from_ms(at_ms));
        }
        *pf.states.open(s, f, st) = st;
        // The second window completes first, at 12 ms (10 ms lead), then the first at 20 ms (20 ms).
        pf.fetch_done(Nanos::from_ms(12), s, f, 48..96);
        assert_eq!(pf.lead_time(), Some(Nanos::from_ms(10)));
        pf.fetch_done(Nanos::from_ms(20), s, f, 0..48);
        assert_eq!(pf.lead_time(), Some(Nanos(10_000_000 + 10_000_000 / 16)));
        // Bounded: a fifth window forgets the oldest still pending.
        let mut w = PendingWindows::default();
        for i in 0..5 {
            w.push(PendingWindow { last_page: i, issued: Nanos::ZERO });
        }
        assert!(w.take_completed(&(0..1)).is_none());
        assert!(w.take_completed(&(4..5)).is_some() && w.take_completed(&(1..2)).is_some());
    }

    /// Shares of zero under a cap take the excess evenly (ESF before any lead sample, with streams of no
    /// measured deviation).
    #[test]
    fn zero_shares_take_the_excess_evenly() {
        let t = water_fill(vec![0.0, 0.0, 72.0], 48.0);
        assert_eq!(t, vec![12.0, 12.0, 48.0]);
    }

    /// A stream whose miss is random gives its share back until it reads sequentially again.
    #[test]
    fn a_random_miss_gives_the_share_back() {
        let mut d = Driver::new(ScmPrefetcher::new(ScmRule::Ets, 24, 48, PAGE));
        d.read_page(StreamId(1), F, 0);
        assert!(d.pf.states.get(StreamId(1), F).unwrap().sequential);
        d.read_page(StreamId(1), F, 100_000);
        assert!(!d.pf.states.get(StreamId(1), F).unwrap().sequential);
        d.read_page(StreamId(1), F, 100_001);
        assert!(d.pf.states.get(StreamId(1), F).unwrap().sequential);
    }

    /// A stream that goes random gives its T_i back with its share: settled at 40 of ETS's 48 pages beside
    /// a slower stream, a random miss puts it at the default 24, and its next sequential run opens 24-48's
    /// window (48 pages, the mark 24 before its end), not one merged to 96 as T = P would.
    #[test]
    fn a_random_miss_returns_the_trigger_to_the_default() {
        let mut d = Driver::new(ScmPrefetcher::new(ScmRule::Ets, 24, 48, PAGE));
        let (_, fast, _, fg) = TWO_READERS;
        // 0.5 s at 1,000 and 5,000 pages/s: ETS gives 8 and 40.
        let next = read_two_for_half_a_second(&mut d, 5);
        assert_eq!(d.pf.trigger_pages(fast, fg), Some(40));
        d.now = Nanos::from_ms(500);
        let far = next.1 + 100_000;
        let step = d.read_page(fast, fg, far);
        assert_eq!(step.sync_windows, vec![Window::exact(far, 1)], "a random read opens no window");
        assert_eq!(d.pf.trigger_pages(fast, fg), Some(24));
        let step = d.read_page(fast, fg, far + 1);
        assert_eq!(step.sync_windows.len(), 1, "{step:?}");
        assert_eq!((step.sync_windows[0].start, step.sync_windows[0].size), (far + 1, 48), "{step:?}");
        let w = d.pf.ra_state(fast, fg).unwrap();
        assert_eq!((w.size, w.async_size), (48, 24), "{w:?}");
    }

    /// A random reader opens no window and takes no share of the budget.
    #[test]
    fn random_readers_take_no_share() {
        let mut d = Driver::new(ScmPrefetcher::new(ScmRule::Ets, 24, 48, PAGE));
        for (i, page) in [500u64, 90, 7000, 33, 1200].iter().enumerate() {
            d.now = Nanos::from_ms(i as u64 * 200);
            let step = d.read_page(StreamId(9), F, *page);
            assert_eq!(step.sync_windows, vec![Window::exact(*page, 1)]);
        }
        assert!(!d.pf.states.get(StreamId(9), F).unwrap().sequential);
    }
}
