//! MemRx's virtual extended cache (VEC): which memory increment would have kept an evicted page in memory
//! (papers/003 §3.3, §4.2, Figure 2).
//!
//! "When a page is evicted, a reference to the page's location on disk is inserted at the head of a queue
//! maintained in LRU order by the VEC. Subsequent evictions push previous references deeper in the queue.
//! When a previously evicted page is read from disk … the reference to that page is removed from the queue
//! and its distance (D) from the head of the queue is computed" — and `size_page × (D + 1)` more memory
//! would have kept it. Memory increment `i` (0-based) is the `i + 1`-th increment: a reload at distance `D`
//! belongs to increment `D / increment_pages`. Three ways to find `D`, chosen by [`VecMode`]:
//!
//! - [`SubQueueVec`] — the paper's structure (§4.2): the queue cut into sub-queues of one increment each;
//!   "When a sub-queue exceeds its maximum length, the tail entry is moved to the head of the next deeper
//!   sub-queue … When the last sub-queue overflows, that queue entry is discarded"; each entry knows its
//!   sub-queue, so a reload finds its increment in O(1) through a hash table. The sub-queue is an
//!   approximation of `D`, as in the paper: a reload removes an entry from its sub-queue and entries
//!   below it do not move up, so a deeper entry may be reported one increment too deep.
//! - [`ExactVec`] — the precise `D` from an order-statistic structure (the exact stack-distance engine's
//!   `LruStack`: a Fenwick tree over eviction times), for the exactness test: with LRU and exact
//!   memory the predicted miss-ratio curve then equals the actual one.
//! - [`ShadowVec`] — Linux's refault distance (`mm/workingset.c`, `../shared/reference/refault-and-shrinkers.md`):
//!   an eviction counter stamped into the evicted page's shadow entry; the distance is the number of
//!   evictions since, which counts the evictions of pages reloaded meanwhile too (so it can only be deeper
//!   than the VEC's `D`).
//!
//! Departures, and why:
//! - Memory: the paper's prototype spends 32 bytes per simulated page (§5.3). [`SubQueueVec`] spends 16
//!   bytes a node (its key, and apart from it its next index and its previous index packed with the
//!   sub-queue number) and an open-addressing
//!   table of 4-byte slots (a node index and a hash tag) at a load of at most 4/7 (7 bytes a page): 23
//!   bytes per simulated page, allocated ahead of time as the prototype's was. The packing bounds a VEC to 2^24 − 2
//!   pages (64 GiB of simulated memory at 4 KiB) and 255 increments (asserted by [`VecGeometry::new`]).
//! - [`ExactVec`] keeps every evicted page that has not come back, however deep (its Fenwick tree cannot
//!   drop the bottom of the queue); its memory is bounded by the distinct pages the workload evicts.
//!   [`ShadowVec`] forgets a shadow once as many evictions followed it as the VEC holds pages (a ring of the
//!   last `capacity` evicted keys), as Linux bounds its shadow nodes.

use super::stack_distance::LruStack;
use crate::hash::{mix64, KeyMap};

/// How the VEC finds a reload's distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VecMode {
    /// The paper's sub-queues (§4.2).
    SubQueue,
    /// The exact eviction distance.
    Exact,
    /// Linux's refault distance (an eviction counter in shadow entries).
    Shadow,
}

impl VecMode {
    pub const ALL: [VecMode; 3] = [VecMode::SubQueue, VecMode::Exact, VecMode::Shadow];

    /// The name users type and reports print (`subqueue`, `exact`, `shadow`).
    pub fn name(self) -> &'static str {
        match self {
            VecMode::SubQueue => "subqueue",
            VecMode::Exact => "exact",
            VecMode::Shadow => "shadow",
        }
    }

    pub fn parse(text: &str) -> Option<VecMode> {
        VecMode::ALL.into_iter().find(|m| m.name() == text)
    }
}

/// The VEC's size: `increments` increments of `increment_pages` pages each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VecGeometry {
    pub increment_pages: u32,
    pub increments: u32,
}

/// Most increments a VEC models (the sub-queue number is packed in 8 bits).
pub const INCREMENTS_MAX: u32 = 255;
/// Most pages a VEC models (node indices are packed in 24 bits, one value reserved).
pub const PAGES_MAX: u64 = (1 << 24) - 2;

impl VecGeometry {
    /// Caller guarantees `increment_pages >= 1`, `1 <= increments <= 255` and a product of at most
    /// [`PAGES_MAX`] pages (drivers check and say so before they get here).
    pub fn new(increment_pages: u32, increments: u32) -> VecGeometry {
        assert!(increment_pages >= 1, "a VEC increment of no pages");
        assert!((1..=INCREMENTS_MAX).contains(&increments), "{increments} VEC increments");
        assert!(
            increment_pages as u64 * increments as u64 <= PAGES_MAX,
            "a VEC of {increments} x {increment_pages} pages"
        );
        VecGeometry { increment_pages, increments }
    }

    /// Pages the VEC models in all.
    pub fn capacity_pages(self) -> u32 {
        self.increment_pages * self.increments
    }

    /// The increment of a reload at distance `d` (entries evicted after it), if the VEC reaches it.
    fn increment_of(self, d: u64) -> Option<u32> {
        let i = d / self.increment_pages as u64;
        (i < self.increments as u64).then_some(i as u32)
    }
}

/// One of the three VECs.
#[derive(Clone, Debug)]
pub enum AnyVec {
    SubQueue(SubQueueVec),
    Exact(ExactVec),
    Shadow(ShadowVec),
}

impl AnyVec {
    pub fn new(mode: VecMode, geometry: VecGeometry) -> AnyVec {
        match mode {
            VecMode::SubQueue => AnyVec::SubQueue(SubQueueVec::new(geometry)),
            VecMode::Exact => AnyVec::Exact(ExactVec::new(geometry)),
            VecMode::Shadow => AnyVec::Shadow(ShadowVec::new(geometry)),
        }
    }

    pub fn mode(&self) -> VecMode {
        match self {
            AnyVec::SubQueue(_) => VecMode::SubQueue,
            AnyVec::Exact(_) => VecMode::Exact,
            AnyVec::Shadow(_) => VecMode::Shadow,
        }
    }

    /// Page `key` was evicted: it enters at the head of the queue.
    #[inline]
    pub fn evicted(&mut self, key: u64) {
        match self {
            AnyVec::SubQueue(v) => v.evicted(key),
            AnyVec::Exact(v) => v.evicted(key),
            AnyVec::Shadow(v) => v.evicted(key),
        }
    }

    /// Page `key` comes back into memory: it leaves the VEC, and the increment that would have kept it is
    /// returned (`None`: it was never evicted, or deeper than the VEC reaches).
    #[inline]
    pub fn reloaded(&mut self, key: u64) -> Option<u32> {
        match self {
            AnyVec::SubQueue(v) => v.reloaded(key),
            AnyVec::Exact(v) => v.reloaded(key),
            AnyVec::Shadow(v) => v.reloaded(key),
        }
    }

    /// Bytes of heap the VEC holds now.
    pub fn heap_bytes(&self) -> usize {
        match self {
            AnyVec::SubQueue(v) => v.heap_bytes(),
            AnyVec::Exact(v) => v.stack.heap_bytes(),
            AnyVec::Shadow(v) => v.heap_bytes(),
        }
    }
}

/// "No node": the 24-bit null of a packed previous index.
const NIL: u32 = (1 << 24) - 1;
const INDEX_MASK: u32 = NIL;
const SUB_SHIFT: u32 = 24;

/// A queue entry's links: 8 bytes. Its key is in a separate array: a ripple walks the links of every
/// sub-queue's boundary on every eviction and never reads a key, so the links alone (8 bytes a page, in
/// the cache for VECs of a few hundred MiB) are what the walk touches.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The next node towards the queue's tail (older), or [`NIL`]; the free list's link when free.
    next: u32,
    /// The previous node (newer) in the low 24 bits, the sub-queue number in the high 8.
    prev_sub: u32,
}

impl Node {
    fn prev(self) -> u32 {
        self.prev_sub & INDEX_MASK
    }
    fn sub(self) -> u32 {
        self.prev_sub >> SUB_SHIFT
    }
    fn set_prev(&mut self, prev: u32) {
        self.prev_sub = (self.prev_sub & !INDEX_MASK) | prev;
    }
    fn set_sub(&mut self, sub: u32) {
        self.prev_sub = (sub << SUB_SHIFT) | self.prev();
    }
}

/// A sub-queue: its length and its oldest entry. The sub-queues are consecutive stretches of one list,
/// newest first, so an entry rippling from the tail of sub-queue `q` to the head of `q + 1` stays where it
/// is in the list: only its sub-queue number and `q`'s boundary change (one node touched a level, where
/// separate lists would relink three).
#[derive(Clone, Copy, Debug)]
struct SubQueue {
    oldest: u32,
    len: u32,
}

const EMPTY_QUEUE: SubQueue = SubQueue { oldest: NIL, len: 0 };

/// The paper's VEC: sub-queues of one increment each, entries rippling from one to the next, a hash table
/// from key to entry.
#[derive(Clone, Debug)]
pub struct SubQueueVec {
    geometry: VecGeometry,
    /// Each node's page key.
    keys: Vec<u64>,
    nodes: Vec<Node>,
    /// Head of the free list of nodes (linked through `next`).
    free: u32,
    /// The newest and the oldest entry of the whole queue.
    head: u32,
    tail: u32,
    queues: Vec<SubQueue>,
    table: NodeTable,
}

impl SubQueueVec {
    pub fn new(geometry: VecGeometry) -> SubQueueVec {
        // One node more than the capacity: an eviction inserts before the last sub-queue overflows.
        let nodes_max = geometry.capacity_pages() + 1;
        let nodes = (0..nodes_max)
            .map(|i| Node { next: if i + 1 < nodes_max { i + 1 } else { NIL }, prev_sub: NIL })
            .collect();
        SubQueueVec {
            geometry,
            keys: vec![0; nodes_max as usize],
            nodes,
            free: 0,
            head: NIL,
            tail: NIL,
            queues: vec![EMPTY_QUEUE; geometry.increments as usize],
            table: NodeTable::with_capacity(nodes_max),
        }
    }

    /// Entries in the VEC.
    pub fn len(&self) -> u32 {
        self.queues.iter().map(|q| q.len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries of sub-queue `q`, head (newest) first (tests): walked from its oldest entry towards the
    /// head while the sub-queue number holds, and checked against its length.
    pub fn sub_queue(&self, q: usize) -> Vec<u64> {
        let mut keys = Vec::new();
        let mut at = self.queues[q].oldest;
        for _ in 0..self.queues[q].len {
            let node = self.nodes[at as usize];
            assert_eq!(node.sub() as usize, q, "an entry of another sub-queue inside sub-queue {q}");
            keys.push(self.keys[at as usize]);
            at = node.prev();
        }
        assert!(
            at == NIL || self.nodes[at as usize].sub() as usize != q,
            "sub-queue {q} longer than its count"
        );
        keys.reverse();
        keys
    }

    pub fn evicted(&mut self, key: u64) {
        // A page can be evicted only while resident, and it left the VEC when it came back; a driver that
        // skipped the return is forgiven: the entry moves to the head. The insertion's probe finds it.
        let at = match self.table.probe(key, &self.keys) {
            Ok(at) => at,
            Err(_) => {
                self.reloaded(key);
                self.table.probe(key, &self.keys).expect("the key just left the table")
            }
        };
        let n = self.free;
        assert!(n != NIL, "VEC nodes exhausted ({} entries)", self.len());
        self.free = self.nodes[n as usize].next;
        self.nodes[n as usize] = Node { next: self.head, prev_sub: NIL };
        self.keys[n as usize] = key;
        self.table.put(at, key, n);
        if self.head == NIL {
            self.tail = n;
        } else {
            self.nodes[self.head as usize].set_prev(n);
        }
        self.head = n;
        self.queues[0].len += 1;
        if self.queues[0].oldest == NIL {
            self.queues[0].oldest = n;
        }
        // Ripple (Figure 2 B): each sub-queue that overflows hands its oldest entry to the next; the last
        // discards it.
        let last = self.queues.len() - 1;
        for q in 0..self.queues.len() {
            if self.queues[q].len <= self.geometry.increment_pages {
                break;
            }
            let x = self.queues[q].oldest;
            // An overflowing sub-queue has at least two entries: the one before its oldest is its own.
            self.queues[q].oldest = self.nodes[x as usize].prev();
            self.queues[q].len -= 1;
            if q < last {
                self.nodes[x as usize].set_sub(q as u32 + 1);
                self.queues[q + 1].len += 1;
                if self.queues[q + 1].oldest == NIL {
                    self.queues[q + 1].oldest = x;
                }
            } else {
                debug_assert_eq!(x, self.tail, "the last sub-queue's oldest entry is the queue's tail");
                let k = self.keys[x as usize];
                self.table.remove(k, &self.keys);
                self.unlink(x);
                self.release(x);
            }
        }
        debug_assert!(self.len() <= self.geometry.capacity_pages());
    }

    pub fn reloaded(&mut self, key: u64) -> Option<u32> {
        let n = self.table.remove(key, &self.keys)?;
        let node = self.nodes[n as usize];
        let q = node.sub() as usize;
        self.queues[q].len -= 1;
        if self.queues[q].oldest == n {
            // The entry before it belongs to the same sub-queue, unless it was the only one.
            self.queues[q].oldest = if self.queues[q].len == 0 { NIL } else { node.prev() };
        }
        self.unlink(n);
        self.release(n);
        Some(q as u32)
    }

    fn release(&mut self, n: u32) {
        self.nodes[n as usize] = Node { next: self.free, prev_sub: NIL };
        self.free = n;
    }

    /// Take node `n` out of the list (its sub-queue's count and boundary are the caller's).
    fn unlink(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        let (prev, next) = (node.prev(), node.next);
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].set_prev(prev);
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * std::mem::size_of::<u64>()
            + self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.queues.capacity() * std::mem::size_of::<SubQueue>()
            + self.table.heap_bytes()
    }
}

/// The VEC's hash table (§4.2: "each entry is entered into a hash table when it is added to the queue"):
/// open addressing with linear probing over 4-byte slots, each a node index (24 bits) and an 8-bit tag
/// from the key's hash, so that a probe reads the table alone and dereferences a node only when the tag
/// matches (a probe that read every node it passed cost a cache miss a slot: the VEC's largest cost in a
/// thrashing run). Its size is fixed at 7/4 of the most nodes, so the load never exceeds 4/7 and a lookup
/// probes about two slots; deletion shifts later entries back (no tombstones), so probe lengths do not
/// grow over a run.
#[derive(Clone, Debug)]
struct NodeTable {
    slots: Vec<u32>,
}

const FREE_SLOT: u32 = u32::MAX;
const TAG_SHIFT: u32 = 24;

impl NodeTable {
    fn with_capacity(nodes: u32) -> NodeTable {
        let size = (nodes as u64 * 7).div_ceil(4).max(8) as usize;
        NodeTable { slots: vec![FREE_SLOT; size] }
    }

    /// The key's home slot and its tag (the hash's top 8 bits; the home comes from the whole hash).
    #[inline]
    fn hash(&self, key: u64) -> (usize, u32) {
        let h = mix64(key);
        (((h as u128 * self.slots.len() as u128) >> 64) as usize, (h >> 56) as u32)
    }

    #[inline]
    fn next(&self, i: usize) -> usize {
        if i + 1 == self.slots.len() {
            0
        } else {
            i + 1
        }
    }

    /// The free slot where `key` goes (`Ok`), or the slot that holds it (`Err`): one probe serves look-ups,
    /// insertions and an insertion's duplicate check. Caller guarantees the table has a free slot (its load
    /// never exceeds 4/7).
    fn probe(&self, key: u64, keys: &[u64]) -> Result<usize, usize> {
        let (mut i, tag) = self.hash(key);
        for _ in 0..self.slots.len() {
            let slot = self.slots[i];
            if slot == FREE_SLOT {
                return Ok(i);
            }
            if slot >> TAG_SHIFT == tag && keys[(slot & INDEX_MASK) as usize] == key {
                return Err(i);
            }
            i = self.next(i);
        }
        unreachable!("the VEC table is full");
    }

    /// Put `key`'s `node` in the free slot `at` that [`NodeTable::probe`] found for it.
    fn put(&mut self, at: usize, key: u64, node: u32) {
        debug_assert!(node < NIL && self.slots[at] == FREE_SLOT, "slot {at} for node {node}");
        let (_, tag) = self.hash(key);
        self.slots[at] = (tag << TAG_SHIFT) | node;
    }

    /// Remove `key`; returns its node.
    fn remove(&mut self, key: u64, keys: &[u64]) -> Option<u32> {
        let mut hole = self.probe(key, keys).err()?;
        let node = self.slots[hole] & INDEX_MASK;
        self.slots[hole] = FREE_SLOT;
        // Backward-shift deletion: move each later entry of the run into the hole when its home does not
        // lie cyclically after the hole (so it stays reachable from its home).
        let mut j = self.next(hole);
        for _ in 0..self.slots.len() {
            let slot = self.slots[j];
            if slot == FREE_SLOT {
                break;
            }
            let (home, _) = self.hash(keys[(slot & INDEX_MASK) as usize]);
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.slots[hole] = slot;
                self.slots[j] = FREE_SLOT;
                hole = j;
            }
            j = self.next(j);
        }
        Some(node)
    }

    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<u32>()
    }
}

/// The exact VEC: the reload's distance from an order-statistic structure over eviction times.
#[derive(Clone, Debug)]
pub struct ExactVec {
    geometry: VecGeometry,
    stack: LruStack,
}

impl ExactVec {
    pub fn new(geometry: VecGeometry) -> ExactVec {
        ExactVec { geometry, stack: LruStack::new() }
    }

    pub fn evicted(&mut self, key: u64) {
        self.stack.access(key);
    }

    /// The exact distance: `LruStack::access` gives the key's stack distance (1 = the newest entry), so
    /// `D` is one less; then the key leaves.
    pub fn reloaded(&mut self, key: u64) -> Option<u32> {
        let d = self.stack.access(key);
        self.stack.remove(key);
        self.geometry.increment_of(d? as u64 - 1)
    }
}

/// Linux's refault distance: an eviction counter stamped in shadow entries.
#[derive(Clone, Debug)]
pub struct ShadowVec {
    geometry: VecGeometry,
    /// Evictions so far (`nonresident_age`).
    evictions: u64,
    /// Key → the eviction counter when it was evicted.
    shadows: KeyMap<u64, u64>,
    /// The key evicted at each counter value modulo the capacity: its shadow is forgotten when the counter
    /// comes round (a distance the VEC cannot reach).
    ring: Vec<u64>,
}

impl ShadowVec {
    pub fn new(geometry: VecGeometry) -> ShadowVec {
        let cap = geometry.capacity_pages() as usize;
        ShadowVec { geometry, evictions: 0, shadows: KeyMap::default(), ring: vec![0; cap] }
    }

    pub fn evicted(&mut self, key: u64) {
        let cap = self.ring.len() as u64;
        let at = (self.evictions % cap) as usize;
        if self.evictions >= cap {
            let old = self.ring[at];
            if self.shadows.get(&old) == Some(&(self.evictions - cap)) {
                self.shadows.remove(&old);
            }
        }
        self.ring[at] = key;
        self.shadows.insert(key, self.evictions);
        self.evictions += 1;
    }

    pub fn reloaded(&mut self, key: u64) -> Option<u32> {
        let stamp = self.shadows.remove(&key)?;
        self.geometry.increment_of(self.evictions - stamp - 1)
    }

    pub fn heap_bytes(&self) -> usize {
        // hashbrown: one control byte and one (key, stamp) entry per bucket.
        self.ring.capacity() * 8 + self.shadows.capacity() * (std::mem::size_of::<(u64, u64)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    /// Figure 2 by hand: sub-queues of two entries, three of them.
    #[test]
    fn evictions_ripple_from_sub_queue_to_sub_queue_and_the_last_discards() {
        let mut v = SubQueueVec::new(VecGeometry::new(2, 3));
        for key in 1..=7 {
            v.evicted(key);
        }
        assert_eq!((v.sub_queue(0), v.sub_queue(1), v.sub_queue(2)), (vec![7, 6], vec![5, 4], vec![3, 2]));
        assert_eq!(v.reloaded(1), None, "the last sub-queue's overflow is forgotten");
        assert_eq!(v.reloaded(4), Some(1));
        v.evicted(8);
        // Sub-queue 0 overflows into 1, which has room after the reload: the ripple stops there.
        assert_eq!((v.sub_queue(0), v.sub_queue(1), v.sub_queue(2)), (vec![8, 7], vec![6, 5], vec![3, 2]));
        assert_eq!(v.reloaded(8), Some(0));
        assert_eq!(v.reloaded(2), Some(2));
        assert_eq!(v.reloaded(2), None, "a reload takes the entry out");
        assert_eq!(v.len(), 4);
    }

    /// The paper's algorithm written plainly: a deque per sub-queue, searched linearly.
    #[derive(Default)]
    struct Model {
        queues: Vec<VecDeque<u64>>,
        per: usize,
    }

    impl Model {
        fn evicted(&mut self, key: u64) {
            self.reloaded(key);
            self.queues[0].push_front(key);
            for q in 0..self.queues.len() {
                if self.queues[q].len() > self.per {
                    let tail = self.queues[q].pop_back().unwrap();
                    if q + 1 < self.queues.len() {
                        self.queues[q + 1].push_front(tail);
                    }
                }
            }
        }
        fn reloaded(&mut self, key: u64) -> Option<u32> {
            for (q, queue) in self.queues.iter_mut().enumerate() {
                if let Some(at) = queue.iter().position(|&k| k == key) {
                    queue.remove(at);
                    return Some(q as u32);
                }
            }
            None
        }
    }

    /// Operations: evict (true) or reload (false) of a key from a small range, so both hit often.
    fn ops() -> impl Strategy<Value = Vec<(bool, u64)>> {
        proptest::collection::vec((any::<bool>(), 0u64..40), 0..400)
    }

    proptest! {
        #[test]
        fn sub_queues_match_the_plain_algorithm(per in 1u32..5, n in 1u32..5, ops in ops()) {
            let mut v = SubQueueVec::new(VecGeometry::new(per, n));
            let mut m = Model { queues: vec![VecDeque::new(); n as usize], per: per as usize };
            for (evict, key) in ops {
                // Keys spread over the table's range (sequential keys would all hash near each other).
                let key = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                if evict {
                    v.evicted(key);
                    m.evicted(key);
                } else {
                    prop_assert_eq!(v.reloaded(key), m.reloaded(key));
                }
            }
            for q in 0..n as usize {
                prop_assert_eq!(v.sub_queue(q), m.queues[q].iter().copied().collect::<Vec<_>>());
            }
        }

        /// The exact VEC's increment is the true position in one LRU queue of evictions.
        #[test]
        fn the_exact_vec_reports_the_true_distance(per in 1u32..5, n in 1u32..5, ops in ops()) {
            let g = VecGeometry::new(per, n);
            let mut v = ExactVec::new(g);
            let mut queue: Vec<u64> = Vec::new(); // newest first
            for (evict, key) in ops {
                let at = queue.iter().position(|&k| k == key);
                if let Some(at) = at {
                    queue.remove(at);
                }
                if evict {
                    v.evicted(key);
                    queue.insert(0, key);
                } else {
                    let expected = at.and_then(|d| g.increment_of(d as u64));
                    prop_assert_eq!(v.reloaded(key), expected);
                }
            }
        }

        /// The shadow VEC's distance is the evictions since the page's own.
        #[test]
        fn the_shadow_vec_counts_evictions_since(per in 1u32..5, n in 1u32..5, ops in ops()) {
            let g = VecGeometry::new(per, n);
            let mut v = ShadowVec::new(g);
            let mut stamps = std::collections::HashMap::new();
            let mut evictions = 0u64;
            for (evict, key) in ops {
                if evict {
                    v.evicted(key);
                    stamps.insert(key, evictions);
                    evictions += 1;
                } else {
                    let expected = stamps.remove(&key).and_then(|s| g.increment_of(evictions - s - 1));
                    prop_assert_eq!(v.reloaded(key), expected);
                }
            }
        }
    }

    /// MemRx's issue sets the goal at 24 bytes of VEC state per simulated page (the paper: 32); Table 5's
    /// configurations, 32 MiB increments of 4 KiB pages.
    #[test]
    fn the_sub_queue_vec_costs_at_most_24_bytes_a_simulated_page() {
        for simulated_mib in [384u32, 512, 896, 3968, 4096] {
            let g = VecGeometry::new(8192, simulated_mib / 32);
            let v = SubQueueVec::new(g);
            let per_page = v.heap_bytes() as f64 / g.capacity_pages() as f64;
            assert!(per_page <= 24.0, "{simulated_mib} MiB: {per_page:.2} bytes a page");
            assert!(per_page >= 22.9, "{simulated_mib} MiB: {per_page:.2} bytes a page: not all counted?");
        }
    }

    #[test]
    fn geometry_bounds_are_checked() {
        assert!(std::panic::catch_unwind(|| VecGeometry::new(1, 256)).is_err());
        assert!(std::panic::catch_unwind(|| VecGeometry::new(1 << 24, 1)).is_err());
        assert_eq!(VecGeometry::new(8192, 12).capacity_pages(), 98_304);
        assert_eq!(VecMode::parse("shadow"), Some(VecMode::Shadow));
        assert_eq!(VecMode::parse("lru"), None);
    }
}
