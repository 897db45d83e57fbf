//! Exact LRU stack distances in one pass, hence the exact LRU miss-ratio curve.
//!
//! Mattson, Gecsei, Slutz, Traiger, "Evaluation Techniques for Storage Hierarchies", IBM Systems Journal
//! 9(2), 1970: LRU is a stack algorithm, so a reference hits in every cache of at least its stack distance
//! pages and misses in every smaller one; one pass that records each reference's distance gives the miss
//! count of every cache size. Bennett & Kruskal (1975) and Olken (1981) made the pass O(N log M) by
//! keeping the last-access times of the distinct keys in a search structure: the distance of a reference
//! is the number of distinct keys whose last access is at or after the key's own last access
//! (`../shared/reference/mrc.md` §1.2).
//!
//! The search structure here is a bitmap over time slots (bit set = some key's last access happened at
//! that slot) with a Fenwick tree over the popcounts of 512-bit blocks. The count of live slots at or after
//! `t` is `live − rank(t)`, and `rank(t)` is one Fenwick prefix over whole blocks plus eight masked word
//! popcounts; a slot in the newest block (short distances, the common case) needs no Fenwick query at
//! all. With 4 M time slots the tree has 8 K counters (32 KiB), so it stays in L1/L2, and the bitmap
//! costs 4–8 bits per distinct key.
//!
//! Departures, and why:
//! - A Fenwick tree over a bitmap instead of Olken's AVL tree or libCacheSim's splay tree: no pointers, no
//!   allocation per reference, a handful of cache lines per query.
//! - The time axis is bounded: when the slots run out, the live slots are renumbered `0..live` in order
//!   (the map's values are rewritten in place with an O(1) rank each) and the axis grows to four times
//!   the live keys if it is shorter. Each renumbering is O(M) and is followed by at least 3·M references,
//!   so it costs amortized O(1) per reference and memory stays O(M), not O(N).
//! - The open block (the one the next slot falls in) is kept out of the Fenwick tree and added when it
//!   fills: every query is about an older slot, so its count is never needed until then, and the common
//!   insertion at the head of the stack touches one word instead of log B counters.
//! - [`StackDistance::process`] works in batches of 32 references: first every hash-table update
//!   of the batch (independent of each other, so their cache misses overlap), then the distances in
//!   order, then the histogram increments (again independent). Done one reference at a time, the
//!   data-dependent branches of the rank computation serialise the table and histogram misses; batching
//!   makes the pass about 3× faster on a million keys without changing a single distance.
//! - Distance convention: a re-reference whose previous access was the most recent reference has distance
//!   1 (a one-page cache hits it); first references are cold misses (distance ∞, reported as `None`).
//!   Distances are `u32`: fewer than 2^30 distinct keys (asserted).

use super::mrc::MissRatioCurve;
use crate::hash::KeyMap;
use hashbrown::hash_map::Entry;

const WORD_BITS: u32 = 64;
const BLOCK_WORDS: u32 = 8;
/// Slots per Fenwick counter: one 64-byte cache line of bitmap.
const BLOCK_BITS: u32 = WORD_BITS * BLOCK_WORDS;
/// The time axis never starts below this (a few hundred bytes of bitmap).
const SLOTS_MIN: u32 = 8 * BLOCK_BITS;
/// Keeps four times the live keys, the longest axis, inside `u32` (whole blocks, below 2^32 − 512).
const KEYS_MAX: u32 = (1 << 30) - BLOCK_BITS;
/// References per batch in [`LruStack::access_batch`]: enough to overlap the hash-table misses of a
/// batch, few enough that the batch stays in L1.
pub(crate) const BATCH: usize = 32;
/// Marks a first reference between the two phases of a batch (never a slot: slots are below 2^32 − 512).
const NO_SLOT: u32 = u32::MAX;

/// A Fenwick (binary indexed) tree of `u32` counts over blocks `0..len`.
#[derive(Clone, Debug, Default)]
struct BlockTree {
    /// 1-based: `node[i]` holds the sum of the `i & i.wrapping_neg()` counts ending at block `i − 1`.
    node: Vec<u32>,
}

impl BlockTree {
    /// A tree over `counts` in O(len): each node pushes its sum into its parent once.
    fn rebuild(&mut self, counts: impl ExactSizeIterator<Item = u32>) {
        self.node.clear();
        self.node.push(0);
        self.node.extend(counts);
        let len = self.node.len() - 1;
        for i in 1..=len {
            let parent = i + (i & i.wrapping_neg());
            if parent <= len {
                self.node[parent] += self.node[i];
            }
        }
    }

    /// Sum of the counts of blocks `0..block`.
    #[inline]
    fn prefix(&self, block: u32) -> u32 {
        let mut i = block as usize;
        let mut sum = 0;
        // Each step clears the lowest set bit: at most log2(len) + 1 steps.
        while i > 0 {
            sum += self.node[i];
            i &= i - 1;
        }
        sum
    }

    #[inline]
    fn add(&mut self, block: u32, delta: i32) {
        let len = self.node.len();
        let mut i = block as usize + 1;
        // Each step adds the lowest set bit: at most log2(len) + 1 steps.
        while i < len {
            self.node[i] = self.node[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }
}

/// The LRU stack of a reference string: which distinct keys it holds and each reference's distance.
///
/// The engine under [`StackDistance`] and SHARDS (which also removes keys that leave its sample).
#[derive(Clone, Debug)]
pub(crate) struct LruStack {
    /// Key → the time slot of its last access. Between batches every live slot is the value of exactly
    /// one key.
    last_slot: KeyMap<u64, u32>,
    /// Keys on the stack. Equals `last_slot.len()` between batches; inside a batch it counts only the
    /// references already given a distance.
    live: u32,
    /// Bit `t` set iff slot `t` is some key's last access. Slots `>= now` are clear.
    live_bits: Vec<u64>,
    /// Live-slot counts of the closed blocks (those entirely below `now`'s block); the open block's
    /// entry is zero until it fills.
    closed_blocks: BlockTree,
    /// The slot the next reference takes.
    now: u32,
    /// Live slots in the open block (`now`'s), which the Fenwick tree does not count yet.
    open_live: u32,
    /// Renumbering scratch: live slots in the blocks before each block. Kept to avoid reallocating.
    rank_base: Vec<u32>,
}

impl Default for LruStack {
    fn default() -> Self {
        LruStack::new()
    }
}

impl LruStack {
    pub(crate) fn new() -> LruStack {
        LruStack::with_slots(SLOTS_MIN)
    }

    /// A stack whose time axis starts with at least `slots` slots (rounded up to whole blocks, at least
    /// one), so that tests can force renumbering early.
    pub(crate) fn with_slots(slots: u32) -> LruStack {
        let slots = slots.clamp(BLOCK_BITS, KEYS_MAX).next_multiple_of(BLOCK_BITS);
        let mut stack = LruStack {
            last_slot: KeyMap::default(),
            live: 0,
            live_bits: vec![0; (slots / WORD_BITS) as usize],
            closed_blocks: BlockTree::default(),
            now: 0,
            open_live: 0,
            rank_base: Vec::new(),
        };
        stack.closed_blocks.rebuild((0..slots / BLOCK_BITS).map(|_| 0));
        stack
    }

    /// Distinct keys on the stack.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.live
    }

    fn slots(&self) -> u32 {
        self.live_bits.len() as u32 * WORD_BITS
    }

    /// Reference `key`: moves it to the top of the stack and returns its stack distance before the move
    /// (1 = it was on top), or `None` for a first reference, which pushes it.
    #[inline]
    pub(crate) fn access(&mut self, key: u64) -> Option<u32> {
        let mut distance = [0];
        self.access_batch(&[key], &mut distance);
        (distance[0] > 0).then_some(distance[0])
    }

    /// Reference `keys` in order (at most [`BATCH`]); `distances[j]` becomes the stack distance of
    /// `keys[j]`, 0 for a first reference. The same distances as [`LruStack::access`] on each key.
    #[inline]
    pub(crate) fn access_batch(&mut self, keys: &[u64], distances: &mut [u32]) {
        assert!(keys.len() <= BATCH && distances.len() >= keys.len(), "batch of {} keys", keys.len());
        if self.slots() - self.now < keys.len() as u32 {
            self.renumber();
        }
        // Phase 1: reference j takes slot now + j. The table updates are independent of each other
        // (a key repeated in the batch reads the slot its earlier reference just wrote).
        let now = self.now;
        for ((j, &key), previous) in keys.iter().enumerate().zip(distances.iter_mut()) {
            let slot = now + j as u32;
            *previous = match self.last_slot.entry(key) {
                Entry::Occupied(mut e) => std::mem::replace(e.get_mut(), slot),
                Entry::Vacant(e) => {
                    e.insert(slot);
                    NO_SLOT
                }
            };
        }
        // Phase 2: in order, each previous slot's distance against the bitmap as it stood then.
        for slot in distances[..keys.len()].iter_mut() {
            let previous = *slot;
            *slot = if previous == NO_SLOT {
                self.live += 1;
                0
            } else {
                let d = self.distance_from(previous);
                self.clear_slot(previous);
                d
            };
            self.take_slot();
        }
        debug_assert_eq!(self.live as usize, self.last_slot.len(), "keys and live count disagree");
    }

    /// Forget `key` (SHARDS drops keys that leave its sample). Returns whether it was on the stack.
    pub(crate) fn remove(&mut self, key: u64) -> bool {
        match self.last_slot.remove(&key) {
            Some(t) => {
                self.clear_slot(t);
                self.live -= 1;
                true
            }
            None => false,
        }
    }

    /// Live slots at or after the live slot `t`: `open_live` minus those before `t` when `t` is in the
    /// open block (the short distances), else `live − rank(t)`.
    #[inline]
    fn distance_from(&self, t: u32) -> u32 {
        let d = if t / BLOCK_BITS == self.now / BLOCK_BITS {
            self.open_live - live_in_block_before(&self.live_bits, t)
        } else {
            self.live - self.rank(t)
        };
        debug_assert_eq!(d, self.live - self.rank(t), "short count disagrees with the rank");
        debug_assert!(d >= 1 && d <= self.live, "distance {d} outside 1..={}", self.live);
        d
    }

    /// Live slots before `t`: the closed blocks' counts, then the slots of `t`'s block before it.
    #[inline]
    fn rank(&self, t: u32) -> u32 {
        self.closed_blocks.prefix(t / BLOCK_BITS) + live_in_block_before(&self.live_bits, t)
    }

    #[inline]
    fn clear_slot(&mut self, t: u32) {
        let bit = 1u64 << (t % WORD_BITS);
        let word = &mut self.live_bits[(t / WORD_BITS) as usize];
        debug_assert!(*word & bit != 0, "slot {t} cleared twice");
        *word &= !bit;
        if t / BLOCK_BITS < self.now / BLOCK_BITS {
            self.closed_blocks.add(t / BLOCK_BITS, -1);
        } else {
            self.open_live -= 1;
        }
    }

    /// Mark `now` live and advance; a block that fills enters the Fenwick tree with its popcount.
    #[inline]
    fn take_slot(&mut self) {
        let now = self.now;
        self.live_bits[(now / WORD_BITS) as usize] |= 1u64 << (now % WORD_BITS);
        self.now = now + 1;
        self.open_live += 1;
        if self.now / BLOCK_BITS != now / BLOCK_BITS {
            debug_assert_eq!(self.open_live, self.block_count(now / BLOCK_BITS), "open block count");
            self.closed_blocks.add(now / BLOCK_BITS, self.open_live as i32);
            self.open_live = 0;
        }
    }

    fn block_count(&self, block: u32) -> u32 {
        let first = (block * BLOCK_WORDS) as usize;
        self.live_bits[first..first + BLOCK_WORDS as usize].iter().map(|w| w.count_ones()).sum()
    }

    /// Renumber the live slots `0..live` in time order, growing the axis to four times the live keys if
    /// it is shorter: every key keeps its place in the stack, and the next `slots − live ≥ 3·live`
    /// references need no renumbering.
    #[cold]
    fn renumber(&mut self) {
        let live = self.live;
        assert!(live <= KEYS_MAX, "more than 2^30 − 512 distinct keys");
        let blocks = self.slots() / BLOCK_BITS;
        self.rank_base.clear();
        let mut running = 0u32;
        for block in 0..blocks {
            self.rank_base.push(running);
            running += self.block_count(block);
        }
        assert_eq!(running, live, "live slots and keys disagree before renumbering");
        let (bits, base) = (&self.live_bits, &self.rank_base);
        for slot in self.last_slot.values_mut() {
            *slot = base[(*slot / BLOCK_BITS) as usize] + live_in_block_before(bits, *slot);
        }
        let slots = self.slots().max((4 * live).next_multiple_of(BLOCK_BITS));
        self.live_bits.clear();
        self.live_bits.resize((slots / WORD_BITS) as usize, 0);
        for w in 0..live / WORD_BITS {
            self.live_bits[w as usize] = u64::MAX;
        }
        let partial = live % WORD_BITS;
        if partial > 0 {
            self.live_bits[(live / WORD_BITS) as usize] = (1u64 << partial) - 1;
        }
        self.now = live;
        self.open_live = live % BLOCK_BITS;
        let full_blocks = live / BLOCK_BITS;
        self.closed_blocks
            .rebuild((0..slots / BLOCK_BITS).map(|b| if b < full_blocks { BLOCK_BITS } else { 0 }));
        assert!(slots - live >= BATCH as u32, "renumbering left no room for a batch");
        debug_assert!(self.last_slot.values().all(|&t| t < live), "renumbered slot out of range");
    }

    /// The keys from the top of the stack (most recent) down. O(M log M): for tests and debugging.
    pub(crate) fn keys_by_recency(&self) -> Vec<u64> {
        let mut by_slot: Vec<(u32, u64)> = self.last_slot.iter().map(|(&k, &t)| (t, k)).collect();
        by_slot.sort_unstable_by(|a, b| b.cmp(a));
        by_slot.into_iter().map(|(_, k)| k).collect()
    }

    /// Heap bytes held (hash table buckets and control bytes, bitmap, tree, scratch), for reports.
    pub(crate) fn heap_bytes(&self) -> usize {
        let buckets = hash_buckets(self.last_slot.capacity());
        let entry = std::mem::size_of::<(u64, u32)>();
        buckets * (entry + 1)
            + self.live_bits.capacity() * 8
            + self.closed_blocks.node.capacity() * 4
            + self.rank_base.capacity() * 4
    }

    /// Checks every invariant that ties the map, the bitmap and the tree together. O(slots): for tests.
    #[cfg(test)]
    pub(crate) fn check(&self) {
        assert_eq!(self.live as usize, self.last_slot.len(), "live count and keys disagree");
        let live: u32 = self.live_bits.iter().map(|w| w.count_ones()).sum();
        assert_eq!(live, self.live, "live slots and keys disagree");
        for &t in self.last_slot.values() {
            assert!(t < self.now, "slot {t} at or after now {}", self.now);
            assert!(self.live_bits[(t / WORD_BITS) as usize] & (1 << (t % WORD_BITS)) != 0, "slot {t} clear");
        }
        let open = self.now / BLOCK_BITS;
        if open < self.slots() / BLOCK_BITS {
            assert_eq!(self.open_live, self.block_count(open), "open block count");
        }
        for block in 0..self.slots() / BLOCK_BITS {
            let expected: u32 = (0..block.min(open)).map(|b| self.block_count(b)).sum();
            assert_eq!(self.closed_blocks.prefix(block), expected, "Fenwick prefix of block {block}");
        }
    }
}

/// Live slots in `t`'s block before `t`. Always eight masked popcounts, no data-dependent branch: a
/// mispredicted loop exit costs more than the popcounts it saves.
#[inline]
fn live_in_block_before(live_bits: &[u64], t: u32) -> u32 {
    let first = ((t / BLOCK_BITS) * BLOCK_WORDS) as usize;
    let before = t % BLOCK_BITS;
    let mut count = 0;
    for (i, &w) in live_bits[first..first + BLOCK_WORDS as usize].iter().enumerate() {
        // Bits of word i that lie before `t`: all, the low `keep` of them, or none.
        let keep = before.saturating_sub(i as u32 * WORD_BITS).min(WORD_BITS);
        count += (w & u64::MAX.checked_shr(WORD_BITS - keep).unwrap_or(0)).count_ones();
    }
    count
}

/// hashbrown's bucket count for a table that can hold `capacity` entries (7/8 load, power of two).
fn hash_buckets(capacity: usize) -> usize {
    match capacity {
        0 => 0,
        1..=3 => 4,
        4..=7 => 8,
        c => (c * 8 / 7).next_power_of_two(),
    }
}

/// The exact LRU stack-distance histogram of a reference string, built one reference at a time.
///
/// `misses(C) = cold + #{references with distance > C}` for every cache size `C` at once; the result is
/// identical to replaying LRU at each size ([`crate::cache::KeyedCache`] with [`crate::policy::Lru`]).
/// Memory is O(distinct keys); no allocation per reference once the key set stops growing.
#[derive(Clone, Debug)]
pub struct StackDistance {
    stack: LruStack,
    /// `hits[d]` = references with distance `d` for `d >= 1`; `hits[0]` = first references (so that a
    /// batch's increments need no branch). Length `distinct + 1`: no distance exceeds the distinct keys.
    hits: Vec<u64>,
    requests: u64,
}

impl Default for StackDistance {
    fn default() -> Self {
        StackDistance::new()
    }
}

impl StackDistance {
    pub fn new() -> StackDistance {
        StackDistance { stack: LruStack::new(), hits: vec![0], requests: 0 }
    }

    /// Same as [`StackDistance::new`] with a time axis of at least `slots` slots. Only the renumbering
    /// frequency depends on it; tests use a small one to exercise renumbering.
    pub fn with_slots(slots: u32) -> StackDistance {
        StackDistance { stack: LruStack::with_slots(slots), hits: vec![0], requests: 0 }
    }

    /// Reference `key`. Returns its LRU stack distance (1 = the previous reference was to the same key;
    /// a cache of `d` or more pages hits it, a smaller one misses), or `None` for a first reference (a
    /// cold miss in every cache).
    #[inline]
    pub fn access(&mut self, key: u64) -> Option<u32> {
        let mut distance = [0];
        self.record(&[key], &mut distance);
        (distance[0] > 0).then_some(distance[0])
    }

    /// Reference every key of `keys` in order: the same result as [`StackDistance::access`] on each,
    /// about three times faster on large key sets (batched, see the module doc).
    pub fn process(&mut self, keys: &[u64]) {
        let mut distances = [0u32; BATCH];
        for batch in keys.chunks(BATCH) {
            self.record(batch, &mut distances);
        }
    }

    #[inline]
    fn record(&mut self, keys: &[u64], distances: &mut [u32]) {
        self.stack.access_batch(keys, distances);
        // Grows only with new keys (amortized doubling), so that every distance has its counter.
        self.hits.resize(self.stack.len() as usize + 1, 0);
        for &d in &distances[..keys.len()] {
            self.hits[d as usize] += 1;
        }
        self.requests += keys.len() as u64;
        debug_assert_eq!(self.hits[0], self.stack.len() as u64, "cold misses are the distinct keys");
    }

    pub fn requests(&self) -> u64 {
        self.requests
    }
    /// First references: misses in a cache of any size.
    pub fn cold_misses(&self) -> u64 {
        self.hits[0]
    }
    pub fn distinct_keys(&self) -> u32 {
        self.stack.len()
    }

    /// `histogram()[d]` = references with stack distance `d`, for `d` in `1..=distinct_keys()`;
    /// `histogram()[0]` = first references (cold misses, distance ∞).
    pub fn histogram(&self) -> &[u64] {
        &self.hits
    }

    /// Exact LRU misses of a cache of `size_pages` pages (0 pages: every reference misses).
    pub fn misses_at(&self, size_pages: u64) -> u64 {
        let hit_limit = size_pages.min(self.hits.len() as u64 - 1) as usize;
        let hits: u64 = self.hits[1..=hit_limit].iter().sum();
        self.requests - hits
    }

    /// The exact miss-ratio curve: one step at every distance some reference has.
    pub fn curve(&self) -> MissRatioCurve {
        let hits = self.hits.iter().enumerate().skip(1).filter(|(_, &h)| h > 0);
        let curve = MissRatioCurve::from_hits(self.requests, hits.map(|(d, &h)| (d as u64, h as f64)));
        assert_eq!(curve.cold_misses(), self.cold_misses() as f64, "curve does not end at the cold misses");
        curve
    }

    /// The keys from the top of the stack (most recent) down. O(M log M): for tests and debugging.
    pub fn keys_by_recency(&self) -> Vec<u64> {
        self.stack.keys_by_recency()
    }

    /// Heap bytes held by the structure (hash table, bitmap, tree, histogram).
    pub fn heap_bytes(&self) -> usize {
        self.stack.heap_bytes() + self.hits.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyedCache;
    use crate::policy::{Access, Lru};
    use proptest::prelude::*;

    /// Mattson's O(N·M) list algorithm: the definition the fast structure must agree with.
    fn naive_distances(keys: &[u64]) -> Vec<Option<u32>> {
        let mut stack: Vec<u64> = Vec::new();
        keys.iter()
            .map(|&k| {
                let depth = stack.iter().position(|&s| s == k);
                if let Some(i) = depth {
                    stack.remove(i);
                }
                stack.insert(0, k);
                depth.map(|i| i as u32 + 1)
            })
            .collect()
    }

    fn lru_misses(keys: &[u64], size: u32) -> u64 {
        let mut cache = KeyedCache::new(Lru::new(size));
        for (t, &k) in keys.iter().enumerate() {
            cache.access(&Access::demand(k, t as u64));
        }
        cache.stats().misses
    }

    /// a b c a b d a c: each step's distance and the stack after it, worked by hand.
    #[test]
    fn hand_traced() {
        let (a, b, c, d) = (10, 20, 30, 40);
        let steps: [(u64, Option<u32>, &[u64]); 9] = [
            (a, None, &[a]),
            (b, None, &[b, a]),
            (c, None, &[c, b, a]),
            (a, Some(3), &[a, c, b]), // a was at the bottom of three
            (b, Some(3), &[b, a, c]),
            (d, None, &[d, b, a, c]),
            (a, Some(3), &[a, d, b, c]),
            (a, Some(1), &[a, d, b, c]), // re-reference of the top: a one-page cache hits
            (c, Some(4), &[c, a, d, b]),
        ];
        let mut sd = StackDistance::new();
        for (i, &(key, distance, stack)) in steps.iter().enumerate() {
            assert_eq!(sd.access(key), distance, "step {i} (key {key})");
            assert_eq!(sd.keys_by_recency(), stack, "step {i} (key {key}): stack");
            sd.stack.check();
        }
        assert_eq!(sd.histogram(), &[4, 1, 0, 3, 1], "cold misses first, then distances 1..=4");
        assert_eq!((sd.requests(), sd.cold_misses(), sd.distinct_keys()), (9, 4, 4));
        // misses(C) = cold + #(distance > C): 4 + 5, 4 + 4, 4 + 4, 4 + 1, 4 + 0.
        let expected_misses = [9, 8, 8, 5, 4, 4];
        for (size, &m) in expected_misses.iter().enumerate() {
            assert_eq!(sd.misses_at(size as u64), m, "size {size}");
            assert_eq!(sd.curve().misses_at(size as u64), m as f64, "curve at size {size}");
        }
    }

    /// Renumbering keeps every key's place: a long trace over a tiny axis renumbers many times, and the
    /// distances still match Mattson's list after every reference.
    #[test]
    fn renumbering_preserves_the_stack() {
        let mut sd = StackDistance::with_slots(1);
        assert_eq!(sd.stack.slots(), BLOCK_BITS);
        // 700 keys > half the axis: forces growth as well as renumbering.
        let keys: Vec<u64> = (0..20_000u64).map(|i| (i * 7919 + i / 13) % 700).collect();
        let naive = naive_distances(&keys);
        for (i, (&k, &expected)) in keys.iter().zip(&naive).enumerate() {
            assert_eq!(sd.access(k), expected, "reference {i} (key {k})");
            if i % 997 == 0 {
                sd.stack.check();
            }
        }
        sd.stack.check();
        assert!(sd.stack.slots() >= 2 * 700 && sd.stack.slots() <= 4 * 1024, "axis {}", sd.stack.slots());
    }

    #[test]
    fn removal_closes_the_gap() {
        let mut s = LruStack::with_slots(1);
        for k in [1, 2, 3, 4] {
            assert_eq!(s.access(k), None);
        }
        assert!(s.remove(2));
        assert!(!s.remove(2));
        s.check();
        assert_eq!(s.keys_by_recency(), [4, 3, 1]);
        assert_eq!(s.access(1), Some(3), "2 no longer sits between 1 and the top");
        assert_eq!(s.access(2), None, "a removed key comes back cold");
        s.check();
    }

    #[test]
    fn empty_trace_has_an_empty_curve() {
        let sd = StackDistance::new();
        assert_eq!(sd.misses_at(0), 0);
        assert_eq!(sd.misses_at(1_000), 0);
        let curve = sd.curve();
        assert_eq!(curve.requests(), 0);
        assert_eq!(curve.miss_ratio_at(10), 0.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The exact curve equals LRU replayed at every size from 1 to one past the distinct keys.
        #[test]
        fn curve_equals_lru_at_every_size(keys in proptest::collection::vec(0u64..48, 0..600)) {
            let mut sd = StackDistance::new();
            sd.process(&keys);
            let curve = sd.curve();
            let distinct = sd.distinct_keys();
            for size in 1..=distinct + 1 {
                let lru = lru_misses(&keys, size);
                prop_assert_eq!(sd.misses_at(size as u64), lru, "size {}", size);
                prop_assert_eq!(curve.misses_at(size as u64), lru as f64, "curve at size {}", size);
            }
            prop_assert_eq!(sd.misses_at(distinct as u64), sd.cold_misses());
        }

        /// Every distance equals Mattson's list algorithm's, with an axis small enough to renumber often.
        #[test]
        fn distances_equal_mattsons(keys in proptest::collection::vec(0u64..600, 0..3000)) {
            let mut sd = StackDistance::with_slots(1);
            for (i, (&k, expected)) in keys.iter().zip(naive_distances(&keys)).enumerate() {
                prop_assert_eq!(sd.access(k), expected, "reference {} (key {})", i, k);
            }
            sd.stack.check();
            let total: u64 = sd.histogram().iter().sum::<u64>();
            prop_assert_eq!(total, keys.len() as u64, "every reference is one hit or one cold miss");
        }

        /// Batches give every reference the distance Mattson's list gives it, also when a key repeats
        /// inside a batch and when the axis renumbers between batches.
        #[test]
        fn batches_equal_mattsons(keys in proptest::collection::vec(0u64..40, 0..2000)) {
            let mut stack = LruStack::with_slots(1);
            let naive = naive_distances(&keys);
            let mut distances = [0u32; BATCH];
            for (b, batch) in keys.chunks(BATCH).enumerate() {
                stack.access_batch(batch, &mut distances);
                for (j, &d) in distances[..batch.len()].iter().enumerate() {
                    let i = b * BATCH + j;
                    prop_assert_eq!(d, naive[i].unwrap_or(0), "reference {} (key {})", i, keys[i]);
                }
            }
            stack.check();
            let mut one_by_one = StackDistance::with_slots(1);
            for &k in &keys {
                one_by_one.access(k);
            }
            let mut batched = StackDistance::with_slots(1);
            batched.process(&keys);
            prop_assert_eq!(batched.histogram(), one_by_one.histogram());
            prop_assert_eq!(batched.requests(), keys.len() as u64);
        }
    }
}
