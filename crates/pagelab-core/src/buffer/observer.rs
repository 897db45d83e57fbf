//! What the buffer cache reports as it works, to an [`Observer`] chosen at compile time.
//!
//! Every event a metric, a detector or a predictor needs passes through here: accesses (hit, miss, wait
//! on a page under I/O), pages taken and inserted (demanded or prefetched), first uses of prefetched pages,
//! evictions (with what the evicted page was), fetches issued, completed and failed, reclaim, streams
//! opened and closed and their CPU time. The cache calls each hook with the time it was given; it never
//! reads a clock. `()` is the observer that observes nothing: its hooks are empty default methods, so a
//! cache built with it compiles them away (the cost of an absent observer is zero, by construction).
//!
//! Observers compose as tuples: `(Counters, ThrashDetector)` sees every event twice, in that order.
//! The simulator's metrics ([`Counters`]) and Li & Shen's prefetch-thrashing detector ([`ThrashDetector`])
//! live here; MemRx's what-if predictor and the live driver's statistics will hang off the same seam.

use super::Fetch;
use crate::history::{EvictionHistory, EvictionRuns};
use crate::key::{FileId, PageKey, StreamId};
use crate::memory::{ReclaimCost, Reclaimer};
use crate::time::Nanos;

/// What a reader found when it met a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessOutcome {
    /// The page was resident and valid.
    Hit,
    /// The page was absent (or fetched by this very `read()` call's synchronous window).
    Miss,
    /// The page was under I/O for another reader or a readahead: the reader waits for it.
    Wait,
}

/// Why a page is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteCause {
    /// Background writeback (pdflush: expired or above the background ratio) or a throttled writer.
    Writeback,
    /// Reclaim met a dirty file page (`pageout()`).
    Reclaim,
    /// Reclaim sent an anonymous page to swap.
    Swap,
}

/// What an evicted page was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eviction {
    /// A page that had been accessed.
    Accessed,
    /// A prefetched page nobody accessed (Li & Shen's wasted prefetch).
    PrefetchedUnused,
    /// A page fetched for a reader's current call, evicted before the call reached it (it misses again).
    DemandUnread,
}

/// Receives the buffer cache's events. Every method has an empty default, so an observer implements only
/// what it needs. `now` is the driver's time of the call that caused the event.
#[allow(unused_variables)]
pub trait Observer {
    /// `stream` met page `key` during a `read()`: counted once per (call, page), at its first encounter.
    #[inline(always)]
    fn accessed(&mut self, now: Nanos, stream: StreamId, key: PageKey, outcome: AccessOutcome) {}

    /// A frame was taken for page `key`, to be fetched for `owner`: `demand` if a reader's current call
    /// asked for it (the moment Li & Shen's thrashing is decided), else readahead.
    #[inline(always)]
    fn allocated(&mut self, now: Nanos, key: PageKey, owner: StreamId, demand: bool) {}

    /// The fetch of `key` completed and the page joined the replacement policy.
    #[inline(always)]
    fn inserted(&mut self, now: Nanos, key: PageKey, owner: StreamId, prefetched: bool) {}

    /// A prefetched page was accessed for the first time, by `stream` (`owner` prefetched it).
    #[inline(always)]
    fn prefetch_used(&mut self, now: Nanos, key: PageKey, owner: StreamId, stream: StreamId) {}

    /// A readahead page could not be given memory and was not fetched; its window ends there (the window's
    /// later pages are not tried, as 2.6's `__do_page_cache_readahead()` breaks at the first failed allocation).
    #[inline(always)]
    fn prefetch_dropped(&mut self, now: Nanos, key: PageKey, owner: StreamId) {}

    /// `stream` made page `key` dirty (a `write()` to a clean file page, a first write to an anonymous page).
    #[inline(always)]
    fn dirtied(&mut self, now: Nanos, stream: StreamId, key: PageKey) {}

    /// The write of page `key` started.
    #[inline(always)]
    fn write_started(&mut self, now: Nanos, key: PageKey, owner: StreamId, cause: WriteCause) {}

    /// A fault on anonymous page `key` read it from swap (`demand`), or swap readahead brought it.
    #[inline(always)]
    fn swapped_in(&mut self, now: Nanos, key: PageKey, demand: bool) {}

    /// A writer above the dirty limit was put to sleep.
    #[inline(always)]
    fn throttled(&mut self, now: Nanos, stream: StreamId) {}

    /// Page `key` (fetched by `owner`) was evicted by reclaim.
    #[inline(always)]
    fn evicted(&mut self, now: Nanos, key: PageKey, owner: StreamId, what: Eviction) {}

    /// Page `key` (fetched by `owner`) was dropped without eviction (invalidation, an I/O error, a stale
    /// completion); `prefetched_unused`: readahead brought it and nobody had used it.
    #[inline(always)]
    fn removed(&mut self, now: Nanos, key: PageKey, owner: StreamId, prefetched_unused: bool) {}

    #[inline(always)]
    fn fetch_issued(&mut self, now: Nanos, fetch: &Fetch) {}

    #[inline(always)]
    fn fetch_done(&mut self, now: Nanos, fetch: &Fetch) {}

    #[inline(always)]
    fn fetch_failed(&mut self, now: Nanos, fetch: &Fetch) {}

    /// `stream` needed memory and none could be freed: every frame is pinned by I/O.
    #[inline(always)]
    fn stalled(&mut self, now: Nanos, stream: StreamId) {}

    /// Reclaim ran: kswapd's step, or a direct reclaim by an allocating task.
    #[inline(always)]
    fn reclaimed(&mut self, now: Nanos, by: Reclaimer, cost: ReclaimCost) {}

    #[inline(always)]
    fn stream_opened(&mut self, now: Nanos, stream: StreamId) {}

    /// `stream`'s owner exited (Li & Shen's heuristic #1: its prefetched pages are least likely to be used).
    #[inline(always)]
    fn stream_closed(&mut self, now: Nanos, stream: StreamId) {}

    /// `stream`'s owner ran on a CPU for `cpu_ns` (Coldest+ ranks streams by their owner's CPU time).
    #[inline(always)]
    fn stream_cpu(&mut self, now: Nanos, stream: StreamId, cpu_ns: u64) {}

    #[inline(always)]
    fn file_closed(&mut self, now: Nanos, stream: StreamId, file: FileId) {}
}

/// The observer that observes nothing.
impl Observer for () {}

macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        forward_pair!($($name($($arg: $ty),*);)*);
        forward_option!($($name($($arg: $ty),*);)*);
        forward_chosen!($($name($($arg: $ty),*);)*);
    };
}

/// Two observers chosen at run time (the simulator's MemRx behind `--whatif` and its per-stream counters),
/// tested once per event: with neither, an event costs one byte compare where two `Option`s cost two
/// niche tests of three instructions each (measured: 2.3 % of the default simulation's instructions).
/// Presence is fixed at construction; the accessors can reach an observer, not add or remove one.
#[derive(Clone, Debug)]
pub struct Chosen<A, B> {
    any: bool,
    first: Option<A>,
    second: Option<B>,
}

impl<A, B> Chosen<A, B> {
    pub fn new(first: Option<A>, second: Option<B>) -> Chosen<A, B> {
        Chosen { any: first.is_some() || second.is_some(), first, second }
    }

    pub fn first(&self) -> Option<&A> {
        self.first.as_ref()
    }

    pub fn first_mut(&mut self) -> Option<&mut A> {
        self.first.as_mut()
    }

    pub fn second(&self) -> Option<&B> {
        self.second.as_ref()
    }

    pub fn second_mut(&mut self) -> Option<&mut B> {
        self.second.as_mut()
    }
}

macro_rules! forward_chosen {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        /// Each present observer sees the event, the first first.
        impl<A: Observer, B: Observer> Observer for Chosen<A, B> {
            $(
                #[inline(always)]
                fn $name(&mut self, $($arg: $ty),*) {
                    if self.any {
                        self.first.$name($($arg),*);
                        self.second.$name($($arg),*);
                    }
                }
            )*
        }
    };
}

macro_rules! forward_option {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        /// An observer chosen at run time (MemRx behind `--whatif`): one branch per event when absent.
        impl<A: Observer> Observer for Option<A> {
            $(
                #[inline(always)]
                fn $name(&mut self, $($arg: $ty),*) {
                    if let Some(a) = self {
                        a.$name($($arg),*);
                    }
                }
            )*
        }
    };
}

macro_rules! forward_pair {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        /// Both observers see every event, the first first.
        impl<A: Observer, B: Observer> Observer for (A, B) {
            $(
                #[inline(always)]
                fn $name(&mut self, $($arg: $ty),*) {
                    self.0.$name($($arg),*);
                    self.1.$name($($arg),*);
                }
            )*
        }
    };
}

forward! {
    accessed(now: Nanos, stream: StreamId, key: PageKey, outcome: AccessOutcome);
    allocated(now: Nanos, key: PageKey, owner: StreamId, demand: bool);
    inserted(now: Nanos, key: PageKey, owner: StreamId, prefetched: bool);
    prefetch_used(now: Nanos, key: PageKey, owner: StreamId, stream: StreamId);
    prefetch_dropped(now: Nanos, key: PageKey, owner: StreamId);
    dirtied(now: Nanos, stream: StreamId, key: PageKey);
    write_started(now: Nanos, key: PageKey, owner: StreamId, cause: WriteCause);
    swapped_in(now: Nanos, key: PageKey, demand: bool);
    throttled(now: Nanos, stream: StreamId);
    evicted(now: Nanos, key: PageKey, owner: StreamId, what: Eviction);
    removed(now: Nanos, key: PageKey, owner: StreamId, prefetched_unused: bool);
    fetch_issued(now: Nanos, fetch: &Fetch);
    fetch_done(now: Nanos, fetch: &Fetch);
    fetch_failed(now: Nanos, fetch: &Fetch);
    stalled(now: Nanos, stream: StreamId);
    reclaimed(now: Nanos, by: Reclaimer, cost: ReclaimCost);
    stream_opened(now: Nanos, stream: StreamId);
    stream_closed(now: Nanos, stream: StreamId);
    stream_cpu(now: Nanos, stream: StreamId, cpu_ns: u64);
    file_closed(now: Nanos, stream: StreamId, file: FileId);
}

/// The buffer cache's counters: what `pagelab simulate` reports about the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
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
    /// Pages fetched for a reader's current call and evicted before it got to them (it misses again).
    pub demand_lost: u64,
    /// Times a reader found every frame pinned by I/O.
    pub reclaim_stalls: u64,
    /// Readahead pages dropped because no memory could be freed for them (each ended its window).
    pub prefetch_dropped: u64,
    /// Pages dropped by invalidation or I/O errors.
    pub removed: u64,
    pub fetches_failed: u64,
    /// Clean pages made dirty.
    pub pages_dirtied: u64,
    /// Pages whose write started: by writeback (pdflush, throttled writers), by reclaim of dirty file
    /// pages, and to swap.
    pub written_writeback: u64,
    pub written_reclaim: u64,
    pub swap_outs: u64,
    /// Pages read from swap: demanded by a fault, and brought by swap readahead.
    pub swap_ins: u64,
    pub swap_ins_readahead: u64,
    /// Times a writer was put to sleep above the dirty limit.
    pub throttles: u64,
}

impl Counters {
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

impl Observer for Counters {
    #[inline(always)]
    fn accessed(&mut self, _: Nanos, _: StreamId, _: PageKey, outcome: AccessOutcome) {
        match outcome {
            AccessOutcome::Hit => self.hits += 1,
            AccessOutcome::Miss => self.misses += 1,
            AccessOutcome::Wait => self.inflight_waits += 1,
        }
    }
    #[inline(always)]
    fn allocated(&mut self, _: Nanos, _: PageKey, _: StreamId, demand: bool) {
        self.pages_fetched += 1;
        self.pages_prefetched += !demand as u64;
    }
    #[inline(always)]
    fn prefetch_used(&mut self, _: Nanos, _: PageKey, _: StreamId, _: StreamId) {
        self.prefetched_used += 1;
    }
    #[inline(always)]
    fn prefetch_dropped(&mut self, _: Nanos, _: PageKey, _: StreamId) {
        self.prefetch_dropped += 1;
    }
    #[inline(always)]
    fn evicted(&mut self, _: Nanos, _: PageKey, _: StreamId, what: Eviction) {
        self.evictions += 1;
        match what {
            Eviction::Accessed => {}
            Eviction::PrefetchedUnused => self.evicted_unused += 1,
            Eviction::DemandUnread => self.demand_lost += 1,
        }
    }
    #[inline(always)]
    fn removed(&mut self, _: Nanos, _: PageKey, _: StreamId, _: bool) {
        self.removed += 1;
    }
    #[inline(always)]
    fn fetch_failed(&mut self, _: Nanos, _: &Fetch) {
        self.fetches_failed += 1;
    }
    #[inline(always)]
    fn dirtied(&mut self, _: Nanos, _: StreamId, _: PageKey) {
        self.pages_dirtied += 1;
    }
    #[inline(always)]
    fn write_started(&mut self, _: Nanos, _: PageKey, _: StreamId, cause: WriteCause) {
        match cause {
            WriteCause::Writeback => self.written_writeback += 1,
            WriteCause::Reclaim => self.written_reclaim += 1,
            WriteCause::Swap => self.swap_outs += 1,
        }
    }
    #[inline(always)]
    fn swapped_in(&mut self, _: Nanos, _: PageKey, demand: bool) {
        if demand {
            self.swap_ins += 1;
        } else {
            self.swap_ins_readahead += 1;
        }
    }
    #[inline(always)]
    fn throttled(&mut self, _: Nanos, _: StreamId) {
        self.throttles += 1;
    }
    #[inline(always)]
    fn stalled(&mut self, _: Nanos, _: StreamId) {
        self.reclaim_stalls += 1;
    }
}

/// Li & Shen's prefetch page thrashing (papers/000 §2): a page prefetched by a stream, evicted before
/// anyone accessed it, and then demanded by that same stream (which must fetch it again, a "makeup
/// fetch"). The detector remembers every evicted-unused page with its owner (their definition, the
/// simulator's default), or the last `history_pages` of them, oldest forgotten first, as the paper's
/// eviction history is bounded (40 % of memory in their §3.3).
#[derive(Clone, Debug)]
pub struct ThrashDetector {
    /// Evicted-unaccessed prefetched pages → their owner.
    ghosts: Ghosts,
    /// Thrashed pages so far.
    pub thrash_pages: u64,
}

/// The detector's memory of evicted-unaccessed pages: bounded, or every one of them.
#[derive(Clone, Debug)]
enum Ghosts {
    Last(EvictionHistory<StreamId>),
    All(EvictionRuns<StreamId>),
}

impl ThrashDetector {
    /// A detector remembering the last `history_pages` evicted-unused pages; `u32::MAX`: all of them.
    pub fn new(history_pages: u32) -> ThrashDetector {
        let ghosts = if history_pages == u32::MAX {
            Ghosts::All(EvictionRuns::new())
        } else {
            Ghosts::Last(EvictionHistory::new(history_pages))
        };
        ThrashDetector { ghosts, thrash_pages: 0 }
    }

    #[inline(never)]
    fn remember(&mut self, key: PageKey, owner: StreamId) {
        match &mut self.ghosts {
            Ghosts::Last(h) => h.remember(key.raw(), owner),
            Ghosts::All(h) => h.remember(key.raw(), owner),
        }
    }

    #[inline(never)]
    fn demand_allocated(&mut self, key: PageKey, owner: StreamId) {
        let ghost = match &mut self.ghosts {
            Ghosts::Last(h) => h.take(key.raw()),
            Ghosts::All(h) => h.take(key.raw()),
        };
        if let Some(prefetcher) = ghost {
            self.thrash_pages += (prefetcher == owner) as u64;
        }
    }
}

/// Every eviction and allocation comes here, few are the detector's business: the tests are inlined into
/// the buffer cache's paths, the work is not (a call per page cost about 20 instructions before).
impl Observer for ThrashDetector {
    #[inline]
    fn evicted(&mut self, _: Nanos, key: PageKey, owner: StreamId, what: Eviction) {
        if what == Eviction::PrefetchedUnused {
            self.remember(key, owner);
        }
    }

    /// A demand allocation by the page's prefetcher is a makeup fetch; by anyone else it is not, and the
    /// page is no longer a ghost either way.
    #[inline]
    fn allocated(&mut self, _: Nanos, key: PageKey, owner: StreamId, demand: bool) {
        if demand {
            self.demand_allocated(key, owner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Chosen` pair forwards each event to the observers it was built with, the first first, and to no
    /// other; its accessors reach them without changing which are there.
    #[test]
    fn chosen_observers_see_events_only_when_present() {
        let key = PageKey::new(FileId(1), 7);
        let evict = |c: &mut dyn Observer| c.evicted(Nanos(5), key, StreamId(2), Eviction::PrefetchedUnused);
        let mut first_only = Chosen::new(Some(Counters::default()), None::<Counters>);
        evict(&mut first_only);
        assert_eq!(first_only.first().map(|c| (c.evictions, c.evicted_unused)), Some((1, 1)));
        assert!(first_only.second().is_none());
        let mut both = Chosen::new(Some(Counters::default()), Some(ThrashDetector::new(16)));
        evict(&mut both);
        both.allocated(Nanos(6), key, StreamId(2), true);
        assert_eq!(both.first().map(|c| (c.evictions, c.pages_fetched)), Some((1, 1)));
        assert_eq!(both.second().map(|t| t.thrash_pages), Some(1), "the makeup fetch of its own prefetch");
        let mut neither = Chosen::<Counters, Counters>::new(None, None);
        evict(&mut neither);
        assert!(neither.first_mut().is_none() && neither.second_mut().is_none());
    }

    /// Remembering every page (`u32::MAX`, the simulator's default) or the last few gives the same count
    /// while the few still hold the page, and only the unbounded one counts a page the bound forgot: the
    /// owner's makeup fetch counts, another stream's demand does not and ends the ghost.
    #[test]
    fn the_unbounded_detector_counts_what_a_bounded_one_has_forgotten() {
        let evict = |t: &mut ThrashDetector, i: u64, owner: u32| {
            t.evicted(Nanos(1), PageKey::new(FileId(3), i), StreamId(owner), Eviction::PrefetchedUnused)
        };
        let demand = |t: &mut ThrashDetector, i: u64, owner: u32| {
            t.allocated(Nanos(2), PageKey::new(FileId(3), i), StreamId(owner), true)
        };
        let (mut all, mut last) = (ThrashDetector::new(u32::MAX), ThrashDetector::new(4));
        for t in [&mut all, &mut last] {
            for i in 0..40 {
                evict(t, i, 7);
            }
            demand(t, 39, 7); // the owner's makeup fetch: thrashing
            demand(t, 38, 8); // another stream's: not thrashing, and the ghost is gone
            demand(t, 38, 7);
            demand(t, 0, 7); // the first page evicted: forgotten by the bounded detector
        }
        assert_eq!((all.thrash_pages, last.thrash_pages), (2, 1));
        // Accessed evictions are not ghosts.
        all.evicted(Nanos(3), PageKey::new(FileId(3), 50), StreamId(7), Eviction::Accessed);
        demand(&mut all, 50, 7);
        assert_eq!(all.thrash_pages, 2);
    }
}
