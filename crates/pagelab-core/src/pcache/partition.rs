//! How much memory the prefetch cache may hold: a fixed share, or Li & Shen's gradient descent
//! (papers/000 §3.2–§3.3).
//!
//! The paper minimises "the combined prefetch miss rate and the cache miss rate": a *prefetch miss* is a
//! miss on a page that was prefetched and evicted without being accessed, a *cache miss* a miss on a page
//! that had been accessed when it was last evicted. Both are recognised through "a bounded-length history
//! of evicted pages along with flags that identify their status at the time of eviction", 40 % of physical
//! pages (`crate::history`). Runtime is divided into epochs; "in the first epoch, we randomly increase or
//! decrease the prefetch cache allocation by an adjustment unit. We calculate the change of combined miss
//! rates in each subsequent epoch. … If the miss rate increases by a substantial margin, we reverse the
//! adjustment of the previous epoch …. Otherwise, we further the adjustment made in the previous epoch."
//! The allocation starts at 25 % of physical memory (§3.3).
//!
//! The constants the paper leaves unstated, chosen once here and used by every experiment:
//! - **Miss rate** = (prefetch misses + cache misses) / page accesses in the epoch (each (call, page) of a
//!   `read()` counted once, as the buffer cache counts accesses). A rate per access, not per second, so
//!   that a change of throughput is not mistaken for a change of the miss rate. A miss is a demand
//!   allocation (a reader's call needs the page and it is absent); readahead re-fetching a page is no miss.
//! - **Epoch** = 1 s of the driver's time ([`EPOCH`]). Long enough that an epoch of a disk-bound server
//!   holds thousands of page accesses (the paper's servers read 5–25 MB/s), short enough for about a
//!   hundred adjustments in one of the paper's 120-s rounds. An epoch without accesses changes nothing.
//! - **Adjustment unit** = 1 % of physical memory ([`UNIT_PERCENT`]): from the initial 25 % the
//!   allocation can reach either end of its range within 25–75 epochs, which is the "quickly converge"
//!   §4.2 reports for Four-64KB, yet one step moves only 1 % of memory.
//! - **A substantial increase** is one larger than the previous epoch's own counting noise: the combined
//!   misses of an epoch are a count `m`, whose Poisson standard deviation is `√m`, so the rate must rise
//!   by more than the fraction `1/√m` of the previous rate ([`substantial_increase`]). A fixed margin
//!   (say 5 %) would be noise at a few hundred misses per epoch and insensitive at tens of thousands;
//!   this one is neither, and has no constant.
//! - **The first direction** is drawn from the configuration's seed (the paper: "randomly").
//! - The epoch and the unit can be changed for exploration (`pc-coldest+:epoch=10s,step=2%`,
//!   [`Descent`]); every experiment uses the defaults above ([`Descent::DEFAULT`]).
//! - **Bounds**: 0 to all usable memory; a step that would leave the range turns the direction around
//!   instead (the paper does not say: without it, a descent that reaches a bound would stay there, since
//!   an allocation that cannot move cannot raise the miss rate to reverse it).

use crate::history::EvictionHistory;
use crate::time::Nanos;

/// The epoch of the gradient descent.
pub const EPOCH: Nanos = Nanos::from_secs(1);
/// The adjustment unit, in percent of physical memory.
pub const UNIT_PERCENT: u32 = 1;
/// The initial allocation, in percent of physical memory (papers/000 §3.3).
pub const INITIAL_PERCENT: u32 = 25;
/// The eviction history's bound, in percent of physical pages (papers/000 §3.3).
pub const HISTORY_PERCENT: u32 = 40;

/// How the prefetch cache's allocation is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// A fixed share of physical memory, in percent.
    Fixed { percent: u32 },
    /// Li & Shen's gradient descent from 25 %.
    GradientDescent(Descent),
}

/// The gradient descent's constants the paper leaves unstated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descent {
    pub epoch: Nanos,
    /// The adjustment unit, in percent of physical memory (1 to 100).
    pub step_percent: u32,
}

impl Descent {
    /// pagelab's choice (module doc), used by every experiment.
    pub const DEFAULT: Descent = Descent { epoch: EPOCH, step_percent: UNIT_PERCENT };
}

/// Misses and accesses counted in the current epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EpochCounts {
    pub accesses: u64,
    pub prefetch_misses: u64,
    pub cache_misses: u64,
}

impl EpochCounts {
    pub fn misses(&self) -> u64 {
        self.prefetch_misses + self.cache_misses
    }
    /// The combined miss rate per access.
    pub fn rate(&self) -> f64 {
        self.misses() as f64 / self.accesses.max(1) as f64
    }
}

/// Whether `rate` is a substantial increase over an epoch whose rate was `previous_rate` from
/// `previous_misses` misses: more than the previous count's Poisson noise (`1/√m` of the rate).
pub fn substantial_increase(previous_rate: f64, previous_misses: u64, rate: f64) -> bool {
    let noise = 1.0 / (previous_misses.max(1) as f64).sqrt();
    rate > previous_rate * (1.0 + noise)
}

/// What the partitioner has done, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartitionStats {
    pub epochs: u64,
    pub reversals: u64,
    pub prefetch_misses: u64,
    pub cache_misses: u64,
}

#[derive(Clone, Debug)]
pub struct Partitioner {
    partition: Partition,
    allocation_pages: u32,
    unit_pages: u32,
    epoch_length: Nanos,
    max_pages: u32,
    /// The direction of the last adjustment.
    growing: bool,
    epoch_end: Option<Nanos>,
    epoch: EpochCounts,
    /// The last measured epoch's counts.
    previous: Option<EpochCounts>,
    /// Evicted pages → whether each was prefetched and never accessed.
    history: EvictionHistory<bool>,
    stats: PartitionStats,
}

impl Partitioner {
    /// A partitioner for a machine of `total_pages` physical pages of which `usable_pages` can hold cache
    /// pages. `seed` draws the gradient descent's first direction.
    pub fn new(partition: Partition, total_pages: u32, usable_pages: u32, seed: u64) -> Partitioner {
        let percent_of = |p: u32| (total_pages as u64 * p as u64 / 100) as u32;
        let (allocation_pages, history_pages, descent) = match partition {
            Partition::Fixed { percent } => (percent_of(percent), 0, Descent::DEFAULT),
            Partition::GradientDescent(d) => (percent_of(INITIAL_PERCENT), percent_of(HISTORY_PERCENT), d),
        };
        assert!(descent.epoch > Nanos::ZERO, "a descent's epoch must be positive");
        Partitioner {
            partition,
            allocation_pages: allocation_pages.min(usable_pages),
            unit_pages: percent_of(descent.step_percent).max(1),
            epoch_length: descent.epoch,
            max_pages: usable_pages,
            growing: splitmix64(seed) & 1 == 1,
            epoch_end: None,
            epoch: EpochCounts::default(),
            previous: None,
            history: EvictionHistory::new(history_pages),
            stats: PartitionStats::default(),
        }
    }

    /// Pages the prefetch cache may hold before reclaim takes its excess first.
    pub fn allocation_pages(&self) -> u32 {
        self.allocation_pages
    }
    pub fn unit_pages(&self) -> u32 {
        self.unit_pages
    }
    pub fn history_capacity(&self) -> u32 {
        self.history.capacity()
    }
    pub fn stats(&self) -> PartitionStats {
        self.stats
    }
    fn adaptive(&self) -> bool {
        matches!(self.partition, Partition::GradientDescent(_))
    }

    /// A page access (hit, miss or wait) at `now`.
    pub fn accessed(&mut self, now: Nanos) {
        if self.adaptive() {
            self.advance(now);
            self.epoch.accesses += 1;
        }
    }

    /// A reader's call needs page `key`, which is absent: a prefetch miss or a cache miss if the history
    /// remembers its eviction.
    pub fn demand_miss(&mut self, now: Nanos, key: u64) {
        if !self.adaptive() {
            return;
        }
        self.advance(now);
        match self.history.take(key) {
            Some(true) => self.epoch.prefetch_misses += 1,
            Some(false) => self.epoch.cache_misses += 1,
            None => {}
        }
    }

    /// Page `key` was evicted; `prefetched_unused`: it was prefetched and never accessed.
    pub fn evicted(&mut self, key: u64, prefetched_unused: bool) {
        if self.adaptive() {
            self.history.remember(key, prefetched_unused);
        }
    }

    /// Close every epoch that ended by `now`. Only the first of several ended epochs has counts; the rest
    /// were empty and change nothing, so the loop is bounded by one adjustment.
    pub fn advance(&mut self, now: Nanos) {
        let epoch = self.epoch_length;
        let end = *self.epoch_end.get_or_insert(now + epoch);
        if now < end {
            return;
        }
        self.end_epoch();
        // The next epoch starts at the boundary `now` falls in (empty epochs are skipped at once).
        let skipped = (now.0 - end.0) / epoch.0;
        self.epoch_end = Some(Nanos(end.0 + (skipped + 1) * epoch.0));
    }

    fn end_epoch(&mut self) {
        let counts = std::mem::take(&mut self.epoch);
        if counts.accesses == 0 {
            return;
        }
        self.stats.epochs += 1;
        self.stats.prefetch_misses += counts.prefetch_misses;
        self.stats.cache_misses += counts.cache_misses;
        if let Some(prev) = self.previous {
            if substantial_increase(prev.rate(), prev.misses(), counts.rate()) {
                self.growing = !self.growing;
                self.stats.reversals += 1;
            }
        }
        self.previous = Some(counts);
        self.step();
    }

    /// One adjustment unit in the current direction; at a bound, the direction turns.
    fn step(&mut self) {
        let a = self.allocation_pages;
        let next = if self.growing { a.checked_add(self.unit_pages) } else { a.checked_sub(self.unit_pages) };
        match next {
            Some(n) if n <= self.max_pages => self.allocation_pages = n,
            _ => {
                self.growing = !self.growing;
                self.allocation_pages = if self.growing {
                    a.saturating_add(self.unit_pages).min(self.max_pages)
                } else {
                    a - a.min(self.unit_pages)
                };
            }
        }
        debug_assert!(self.allocation_pages <= self.max_pages);
    }

    #[cfg(test)]
    pub(crate) fn set_direction(&mut self, growing: bool) {
        self.growing = growing;
    }
    #[cfg(test)]
    pub(crate) fn growing(&self) -> bool {
        self.growing
    }
}

/// SplitMix64: one draw from a seed (the core owns this randomness; it is the seed's, not a clock's).
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 pages of memory: the unit is 1 page, the start 25 pages, the history 40 entries.
    fn descent(growing: bool) -> Partitioner {
        let mut p = Partitioner::new(Partition::GradientDescent(Descent::DEFAULT), 100, 100, 0);
        p.set_direction(growing);
        p
    }

    /// One epoch at `start`: `accesses` accesses, then `prefetch` prefetch misses and `cache` cache
    /// misses, each on a page the history remembers.
    fn epoch(p: &mut Partitioner, start: u64, accesses: u64, prefetch: u64, cache: u64) {
        let t = Nanos(start * EPOCH.0 + 1);
        for i in 0..prefetch {
            p.evicted(1_000 + i, true);
        }
        for i in 0..cache {
            p.evicted(2_000 + i, false);
        }
        for _ in 0..accesses {
            p.accessed(t);
        }
        for i in 0..prefetch {
            p.demand_miss(t, 1_000 + i);
        }
        for i in 0..cache {
            p.demand_miss(t, 2_000 + i);
        }
    }

    #[test]
    fn starts_at_a_quarter_of_memory_with_a_history_of_forty_percent() {
        let p = Partitioner::new(Partition::GradientDescent(Descent::DEFAULT), 131_072, 125_000, 7);
        assert_eq!(p.allocation_pages(), 32_768);
        assert_eq!(p.unit_pages(), 1_310);
        assert_eq!(p.history_capacity(), 52_428);
        let fixed = Partitioner::new(Partition::Fixed { percent: 10 }, 131_072, 125_000, 7);
        assert_eq!((fixed.allocation_pages(), fixed.history_capacity()), (13_107, 0));
    }

    /// Hand-traced: epoch 0 measures 10 misses per 100 accesses at 25 pages and steps down (the drawn
    /// direction) to 24; epoch 1 measures 10 % again (no increase): it steps on to 23; epoch 2 measures
    /// 20 % (10 % + more than 1/√10 of it): the direction reverses, back up to 24.
    #[test]
    fn one_step_each_way() {
        let mut p = descent(false);
        epoch(&mut p, 0, 100, 6, 4);
        p.advance(Nanos(EPOCH.0 + 1));
        assert_eq!((p.allocation_pages(), p.growing()), (24, false));
        epoch(&mut p, 1, 100, 5, 5);
        p.advance(Nanos(2 * EPOCH.0 + 1));
        assert_eq!((p.allocation_pages(), p.growing()), (23, false));
        epoch(&mut p, 2, 100, 15, 5);
        p.advance(Nanos(3 * EPOCH.0 + 1));
        assert_eq!((p.allocation_pages(), p.growing()), (24, true));
        assert_eq!(
            p.stats(),
            PartitionStats { epochs: 3, reversals: 1, prefetch_misses: 26, cache_misses: 14 }
        );
    }

    /// An increase within the previous epoch's noise (10 → 13 misses per 100: 1/√10 = 31.6 %) keeps the
    /// direction; 10 → 14 reverses it.
    #[test]
    fn a_small_increase_is_not_substantial() {
        assert!(!substantial_increase(0.10, 10, 0.13));
        assert!(substantial_increase(0.10, 10, 0.14));
        assert!(substantial_increase(0.0, 0, 0.01), "any miss after an epoch without one");
        assert!(!substantial_increase(0.10, 10_000, 0.1009));
        assert!(substantial_increase(0.10, 10_000, 0.1011));
    }

    #[test]
    fn misses_on_pages_the_history_forgot_or_never_saw_count_as_neither() {
        let mut p = descent(true);
        p.accessed(Nanos(1));
        p.demand_miss(Nanos(1), 42);
        p.advance(Nanos(EPOCH.0 + 1));
        assert_eq!(p.stats().prefetch_misses + p.stats().cache_misses, 0);
        assert_eq!(p.allocation_pages(), 26, "the first epoch steps in the drawn direction");
    }

    #[test]
    fn a_bound_turns_the_descent_around() {
        let mut p = Partitioner::new(Partition::GradientDescent(Descent::DEFAULT), 100, 26, 0);
        p.set_direction(true);
        for e in 0..4 {
            epoch(&mut p, e, 100, 0, 0);
            p.advance(Nanos((e + 1) * EPOCH.0 + 1));
        }
        // 25 → 26 (the top) → turns: 25 → 24.
        assert_eq!((p.allocation_pages(), p.growing()), (23, false));
    }

    #[test]
    fn empty_epochs_change_nothing_and_time_may_jump() {
        let mut p = descent(true);
        p.advance(Nanos(0));
        p.advance(Nanos(1_000 * EPOCH.0));
        assert_eq!(p.allocation_pages(), 25);
        assert_eq!(p.stats().epochs, 0);
    }

    #[test]
    fn a_fixed_share_never_moves() {
        let mut p = Partitioner::new(Partition::Fixed { percent: 30 }, 100, 100, 0);
        epoch(&mut p, 0, 100, 50, 0);
        p.advance(Nanos(10 * EPOCH.0));
        assert_eq!(p.allocation_pages(), 30);
        assert_eq!(p.stats().epochs, 0);
    }
}
