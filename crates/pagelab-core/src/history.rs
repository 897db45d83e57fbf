//! A bounded history of evicted pages: what each was when it left, for the first `capacity` of the most
//! recent evictions.
//!
//! Li & Shen (papers/000 §3.3) keep "a bounded-length history of evicted pages along with flags that
//! identify their status at the time of eviction (e.g., whether they were prefetched but
//! not-yet-accessed)", limited to 40 % of physical pages. Two users share this structure: the prefetch
//! cache's partitioner (`pcache::partition`: was a miss a prefetch miss or a cache miss?) and the
//! simulator's thrashing detector (`buffer::ThrashDetector`: whose prefetched page was it?).
//!
//! Entries leave in eviction order once the bound is reached; a key taken out by a miss leaves a stale
//! position in the order queue, skipped when it reaches the front and compacted away when stale positions
//! outnumber live entries (so the queue stays within twice the bound).
//!
//! [`EvictionRuns`] is the unbounded form, for Li & Shen's definition of prefetch thrashing, which forgets
//! nothing (papers/000 §2): every page is remembered until it is taken. It files pages by runs of
//! [`RUN_PAGES`] consecutive keys, because the pages it holds leave memory as they came in, a readahead
//! window at a time: a run's pages share one hash-map entry and one cache line. Kept one entry a page (what
//! [`EvictionHistory`] does), such a history took 56 MB in the bench's simulation run for 8,000 s (One-Rand,
//! 100 handlers, 512 MiB: 1.5 M pages evicted unused), and its scattered entries and rehashes cost the run
//! about 8 % of its time; filed by runs, 16 MB (BENCHMARKS.md §4).

use crate::hash::KeyMap;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct EvictionHistory<V> {
    capacity: u32,
    entries: KeyMap<u64, V>,
    /// Keys in the order they were remembered; keys no longer in `entries` are skipped.
    order: VecDeque<u64>,
}

impl<V> Default for EvictionHistory<V> {
    fn default() -> Self {
        EvictionHistory { capacity: 0, entries: KeyMap::default(), order: VecDeque::new() }
    }
}

impl<V> EvictionHistory<V> {
    /// A history of at most `capacity` entries (0: remembers nothing). A history that forgets nothing is
    /// [`EvictionRuns`].
    pub fn new(capacity: u32) -> EvictionHistory<V> {
        EvictionHistory { capacity, ..EvictionHistory::default() }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Page `key` was evicted, as `value`. A key remembered again keeps its first position in the order
    /// (its value is replaced): the position only decides when the entry is forgotten.
    pub fn remember(&mut self, key: u64, value: V) {
        if self.capacity == 0 {
            return;
        }
        if self.entries.insert(key, value).is_none() {
            self.order.push_back(key);
        }
        // Bounded: forget the oldest live entries (stale positions of taken keys are skipped). Each pass
        // pops one position; there are at most `order.len()` of them.
        let mut bound = self.order.len();
        while self.entries.len() > self.capacity as usize {
            assert!(bound > 0, "eviction history: order lost track of an entry");
            bound -= 1;
            let old = self.order.pop_front().expect("order holds every entry");
            self.entries.remove(&old);
        }
        // Stale positions are dropped once they make up half the queue: at most twice the bound, and, while
        // the history is far below its bound, at most twice its live entries (32 at least), so the queue
        // follows the live entries rather than the run's length.
        let live_max = (self.capacity as usize).min(self.entries.len().max(32));
        if self.order.len() > 2 * live_max {
            let entries = &self.entries;
            self.order.retain(|k| entries.contains_key(k));
        }
        debug_assert!(self.order.len() >= self.entries.len());
    }

    /// A miss on page `key`: its entry, if it is remembered, leaves the history.
    pub fn take(&mut self, key: u64) -> Option<V> {
        self.entries.remove(&key)
    }

    /// Bytes one entry takes here (the map's key and value, and a position in the order queue), for space
    /// reports; the hash map's spare capacity and control bytes are not counted.
    pub const ENTRY_BYTES: usize = 2 * std::mem::size_of::<u64>() + std::mem::size_of::<V>();
}

/// Keys filed per [`EvictionRuns`] entry: `RUN_PAGES` consecutive keys share `key >> RUN_BITS`.
const RUN_BITS: u32 = 3;
pub const RUN_PAGES: usize = 1 << RUN_BITS;
const RUN_MASK: u64 = RUN_PAGES as u64 - 1;

/// A run of [`RUN_PAGES`] consecutive keys: which are remembered (bit `i`: key `run * RUN_PAGES + i`) and
/// what each was.
#[derive(Clone, Copy, Debug, Default)]
struct Run<V> {
    present: u8,
    values: [V; RUN_PAGES],
}

const _: () = assert!(RUN_PAGES <= u8::BITS as usize, "a run's presence bits fit in a byte");

/// An unbounded history of evicted pages: every page remembered, with what it was when it left, until it is
/// taken. Filed by runs of consecutive keys (module doc); `len` counts pages, not runs.
#[derive(Clone, Debug, Default)]
pub struct EvictionRuns<V> {
    runs: KeyMap<u64, Run<V>>,
    len: u64,
}

impl<V: Copy + Default> EvictionRuns<V> {
    pub fn new() -> EvictionRuns<V> {
        EvictionRuns { runs: KeyMap::default(), len: 0 }
    }

    /// Pages remembered.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Page `key` was evicted, as `value` (a page remembered again has its value replaced).
    pub fn remember(&mut self, key: u64, value: V) {
        let run = self.runs.entry(key >> RUN_BITS).or_default();
        let bit = 1u8 << (key & RUN_MASK);
        self.len += (run.present & bit == 0) as u64;
        run.present |= bit;
        run.values[(key & RUN_MASK) as usize] = value;
    }

    /// A miss on page `key`: its entry, if it is remembered, leaves the history.
    pub fn take(&mut self, key: u64) -> Option<V> {
        let id = key >> RUN_BITS;
        let run = self.runs.get_mut(&id)?;
        let bit = 1u8 << (key & RUN_MASK);
        if run.present & bit == 0 {
            return None;
        }
        run.present &= !bit;
        let value = run.values[(key & RUN_MASK) as usize];
        if run.present == 0 {
            self.runs.remove(&id);
        }
        self.len -= 1;
        debug_assert!(self.len >= self.runs.len() as u64, "fewer pages than runs holding them");
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_the_oldest_entries_beyond_its_bound() {
        let mut h = EvictionHistory::new(3);
        for key in 0..5u64 {
            h.remember(key, key * 10);
        }
        assert_eq!(h.len(), 3);
        assert_eq!((h.take(0), h.take(1)), (None, None));
        assert_eq!(h.take(2), Some(20));
        assert_eq!(h.take(2), None, "a taken entry is gone");
        // 3 and 4 remain; two more evictions push 3 out, not the stale position of 2.
        h.remember(5, 50);
        h.remember(6, 60);
        assert_eq!(h.take(3), None);
        assert_eq!((h.take(4), h.take(5), h.take(6)), (Some(40), Some(50), Some(60)));
    }

    #[test]
    fn the_order_queue_stays_within_twice_the_bound() {
        let mut h = EvictionHistory::new(4);
        for key in 0..1000u64 {
            h.remember(key, ());
            if key % 2 == 0 {
                h.take(key);
            }
            assert!(h.order.len() <= 8 + 1, "order {} entries", h.order.len());
        }
        assert!(h.len() <= 4);
    }

    /// Far below its bound, nothing is forgotten, and the order queue follows the live entries, not the
    /// number of evictions (here 10,000 remembered, all but every 100th taken again).
    #[test]
    fn a_history_below_its_bound_forgets_nothing_and_its_order_follows_the_live_entries() {
        let mut h = EvictionHistory::new(1 << 20);
        for key in 0..10_000u64 {
            h.remember(key, key);
            if key % 100 != 0 {
                assert_eq!(h.take(key), Some(key));
            }
            // Compacted at `remember`, so the bound is that of the entries before this take.
            let bound = 2 * (h.len() + 1).max(32) + 1;
            assert!(h.order.len() <= bound, "order {} for {} live", h.order.len(), h.len());
        }
        assert_eq!(h.len(), 100);
        assert_eq!((h.take(0), h.take(9_900)), (Some(0), Some(9_900)), "the oldest is still there");
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut h = EvictionHistory::new(0);
        h.remember(1, true);
        assert!(h.is_empty());
        assert_eq!(h.take(1), None);
    }

    /// The unbounded history forgets nothing, replaces a page's value when it is remembered again, and
    /// keeps a run's entry only while a page of it is remembered.
    #[test]
    fn eviction_runs_remember_every_page_until_taken() {
        let mut h = EvictionRuns::new();
        for key in 5..21u64 {
            h.remember(key, key as u32);
        }
        h.remember(7, 70);
        assert_eq!((h.len(), h.runs.len()), (16, 3), "keys 5..21 lie in runs 0, 1 and 2");
        assert_eq!(h.take(4), None, "never remembered, in a run that is");
        assert_eq!(h.take(7), Some(70), "the value remembered last");
        assert_eq!(h.take(7), None, "a taken page is gone");
        for key in [5, 6] {
            assert_eq!(h.take(key), Some(key as u32));
        }
        assert_eq!(h.runs.len(), 2, "run 0 left with its last page");
        assert_eq!((h.take(1_000), h.len()), (None, 13));
        for key in 8..21u64 {
            assert_eq!(h.take(key), Some(key as u32));
        }
        assert!(h.is_empty() && h.runs.is_empty());
    }

    /// Against a per-key map, over random remembers and takes on few keys: the same answers.
    #[test]
    fn eviction_runs_answer_as_a_map_of_every_key_does() {
        let mut h = EvictionRuns::new();
        let mut oracle = std::collections::HashMap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = x % 200;
            if x & (1 << 40) == 0 {
                h.remember(key, step);
                oracle.insert(key, step);
            } else {
                assert_eq!(h.take(key), oracle.remove(&key), "key {key} at step {step}");
            }
            assert_eq!(h.len(), oracle.len() as u64);
        }
    }
}
