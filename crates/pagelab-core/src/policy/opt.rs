//! OPT (Belady's MIN): evict the resident page whose next reference is furthest in the future.
//!
//! Belady, "A Study of Replacement Algorithms for Virtual Storage Computers", IBM Systems Journal 5(2),
//! 1966: the optimal (offline) replacement, the lower bound every other policy is measured against. It
//! needs the future: the driver fills each reference's [`Access::next_vtime`] (the logical time of the
//! key's next reference, [`NEVER`] if none) before the run (`PolicyKind::needs_future`), as the tests do
//! with `testing::with_next_use`. A hit moves the page's next use to the hit's `next_vtime`.
//!
//! The resident pages sit in an indexed binary max-heap (each frame knows its slot), so an insert, a hit
//! and an eviction each cost O(log capacity) and nothing is allocated after construction; no stale
//! entries, so no rebuilds.
//!
//! Ties: only pages never referenced again ([`NEVER`]) can tie when the driver's future is right, and
//! which of those goes does not change any later hit or miss. pagelab evicts the least recently
//! referenced of them, which makes the choice deterministic and makes OPT without a future (every
//! `next_vtime` [`NEVER`]) exactly LRU.
//!
//! As in the paper (demand paging), a missed page is always loaded; there is no bypass of pages never
//! referenced again, which is also libCacheSim's `Belady`. The two agree to the request (CloudPhysics,
//! ARC P3 and LIRS traces, 100 to 40 000 pages). Only the order of the `next_vtime`s matters: the 1-based
//! next-access field of libCacheSim's oracleGeneral traces gives the same decisions, but a driver must
//! convert it to vtimes, or the debug check in `on_hit` (a hit is due at its recorded next use) fires.
//!
//! Prefetched pages: OPT ranks pages by their next use only, so a readahead page is inserted with the
//! next use the driver gives it, like any other, and its first use is an ordinary hit. A driver without the
//! future (the buffer cache) gives every page [`NEVER`], which makes OPT the LRU of insertions and hits;
//! the simulator therefore refuses OPT.

use super::{Access, FrameId, History, Replacement, NEVER};
use crate::frames::{FrameTable, Shadows};

/// "Not in the heap".
const NO_SLOT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    next_use: u64,
    /// When the page was last referenced, in this policy's own count of references (for ties).
    last_ref: u64,
    frame: FrameId,
}

impl Entry {
    /// `self` should be evicted before `other`.
    #[inline]
    fn outranks(&self, other: &Entry) -> bool {
        self.next_use > other.next_use || (self.next_use == other.next_use && self.last_ref < other.last_ref)
    }
}

#[derive(Clone, Debug)]
pub struct Opt {
    /// Max-heap: `heap[0]` is the next victim.
    heap: Vec<Entry>,
    /// Slot of each frame in `heap`, or `NO_SLOT`.
    slot: Vec<u32>,
    references: u64,
}

impl Opt {
    pub fn new(capacity: u32) -> Opt {
        assert!((1..NO_SLOT).contains(&capacity), "OPT needs 1..u32::MAX frames");
        Opt {
            heap: Vec::with_capacity(capacity as usize),
            slot: vec![NO_SLOT; capacity as usize],
            references: 0,
        }
    }

    #[inline]
    fn tick(&mut self) -> u64 {
        self.references += 1;
        self.references
    }

    #[inline]
    fn place(&mut self, i: usize, entry: Entry) {
        self.slot[entry.frame as usize] = i as u32;
        self.heap[i] = entry;
    }

    /// Move the entry at `i` towards the root while it outranks its parent. The depth bounds the loop.
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        for _ in 0..usize::BITS {
            if i == 0 {
                break;
            }
            let parent = (i - 1) / 2;
            if !entry.outranks(&self.heap[parent]) {
                break;
            }
            self.place(i, self.heap[parent]);
            i = parent;
        }
        self.place(i, entry);
    }

    /// Move the entry at `i` towards the leaves while a child outranks it.
    fn sift_down(&mut self, mut i: usize) {
        let entry = self.heap[i];
        let len = self.heap.len();
        for _ in 0..usize::BITS {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.heap[right].outranks(&self.heap[left]) { right } else { left };
            if !self.heap[child].outranks(&entry) {
                break;
            }
            self.place(i, self.heap[child]);
            i = child;
        }
        self.place(i, entry);
    }

    /// Take the entry at slot `i` out of the heap and return its frame.
    fn remove_at(&mut self, i: usize) -> FrameId {
        let frame = self.heap[i].frame;
        let last = self.heap.pop().expect("remove from an empty heap");
        self.slot[frame as usize] = NO_SLOT;
        if i < self.heap.len() {
            self.place(i, last);
            self.sift_up(i);
            let j = self.slot[last.frame as usize] as usize;
            self.sift_down(j);
        }
        frame
    }

    /// Heap order and slot index agree; for tests.
    #[cfg(test)]
    fn check(&self) {
        for (i, e) in self.heap.iter().enumerate() {
            assert_eq!(self.slot[e.frame as usize], i as u32, "slot of frame {}", e.frame);
            if i > 0 {
                assert!(!e.outranks(&self.heap[(i - 1) / 2]), "heap order broken at {i}");
            }
        }
        let slotted = self.slot.iter().filter(|&&s| s != NO_SLOT).count();
        assert_eq!(slotted, self.heap.len(), "frames with a slot");
    }
}

impl Replacement for Opt {
    fn name(&self) -> &'static str {
        "OPT"
    }

    fn capacity(&self) -> u32 {
        self.slot.len() as u32
    }

    fn len(&self) -> u32 {
        self.heap.len() as u32
    }

    /// The page's next use is `access.next_vtime`.
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        assert_eq!(self.slot[frame as usize], NO_SLOT, "frame {frame} is already tracked");
        assert!(self.heap.len() < self.slot.len(), "OPT would hold more pages than frames");
        debug_assert!(
            access.prefetch || access.next_vtime > access.vtime,
            "next use {} not after now ({})",
            access.next_vtime,
            access.vtime
        );
        let entry = Entry { next_use: access.next_vtime, last_ref: self.tick(), frame };
        self.heap.push(entry);
        self.sift_up(self.heap.len() - 1);
    }

    /// The page's next use becomes `access.next_vtime`. A driver whose future is right hits a page exactly
    /// at the next use recorded for it (checked in debug builds).
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return; // a readahead meeting a resident page: no reference, no new next use
        }
        let i = self.slot[frame as usize] as usize;
        assert!(i < self.heap.len(), "hit on untracked frame {frame}");
        let old = self.heap[i].next_use;
        debug_assert!(
            old == NEVER || old == access.vtime,
            "frame {frame} was due at {old}, hit at {}",
            access.vtime
        );
        debug_assert!(access.next_vtime > access.vtime, "next use {} not after now", access.next_vtime);
        self.heap[i].next_use = access.next_vtime;
        self.heap[i].last_ref = self.tick();
        // With a right future the page was due now, the earliest of all, and can only rank higher (up);
        // without one it may rank lower (down).
        self.sift_up(i);
        let j = self.slot[frame as usize] as usize;
        self.sift_down(j);
    }

    /// The page referenced furthest in the future (never, if any such is resident).
    #[inline]
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        assert!(!self.heap.is_empty(), "evict from an empty OPT");
        self.remove_at(0)
    }

    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        let i = self.slot[frame as usize];
        assert!(i != NO_SLOT, "remove of untracked frame {frame}");
        self.remove_at(i as usize);
    }

    /// `"[5@never 2@9 1@6]"`: resident keys in eviction order, each with its next use.
    fn state(&self, table: &FrameTable) -> String {
        let mut entries = self.heap.clone();
        entries.sort_by_key(|e| (std::cmp::Reverse(e.next_use), e.last_ref));
        let parts: Vec<String> = entries
            .iter()
            .map(|e| {
                let key = table.key(e.frame);
                if e.next_use == NEVER {
                    format!("{key}@never")
                } else {
                    format!("{key}@{}", e.next_use)
                }
            })
            .collect();
        format!("[{}]", parts.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyedCache;
    use crate::policy::testing::{trace, with_next_use};
    use crate::policy::{AnyPolicy, Lru, PolicyKind};
    use proptest::prelude::*;

    #[test]
    fn hand_traced() {
        // t:   0 1 2 3 4 5 6 7 8 9
        // key: 1 2 3 4 1 2 5 1 2 3
        trace(
            Opt::new(3),
            &[
                (1, false, "[1@4]"),
                (2, false, "[2@5 1@4]"),
                (3, false, "[3@9 2@5 1@4]"),
                (4, false, "[4@never 2@5 1@4]"), // 3 is due last of all (t=9)
                (1, true, "[4@never 1@7 2@5]"),
                (2, true, "[4@never 2@8 1@7]"),
                (5, false, "[5@never 2@8 1@7]"), // 4, never again, goes first
                (1, true, "[5@never 1@never 2@8]"), // ties among the never-again: least recent first
                (2, true, "[5@never 1@never 2@never]"),
                (3, false, "[1@never 2@never 3@never]"),
            ],
        );
    }

    /// A readahead page enters ranked by its next use, like a demanded one (the module doc), and a
    /// readahead meeting a resident page is no reference: its rank stays.
    #[test]
    fn prefetched_pages_rank_by_their_next_use() {
        let at =
            |key, vtime, next_vtime, prefetch| Access { next_vtime, prefetch, ..Access::demand(key, vtime) };
        let mut cache = KeyedCache::new(Opt::new(2));
        assert!(!cache.access(&at(1, 0, 9, false)));
        assert!(!cache.access(&at(2, 1, 4, true)));
        assert_eq!(cache.state(), "[1@9 2@4]", "the readahead page is due first: it stays longest");
        assert!(cache.access(&at(2, 2, 3, true)), "a readahead over a resident page");
        assert_eq!(cache.state(), "[1@9 2@4]", "no reference: the page keeps its next use");
        assert!(!cache.access(&at(3, 3, 8, false)));
        assert_eq!(cache.state(), "[3@8 2@4]", "1, due last, was the victim");
    }

    #[test]
    fn removal_keeps_the_heap() {
        let mut cache = KeyedCache::new(Opt::new(4));
        let refs = with_next_use(&[1, 2, 3, 4, 4, 3, 2, 1]);
        for a in &refs[..4] {
            cache.access(a);
        }
        assert_eq!(cache.state(), "[1@7 2@6 3@5 4@4]");
        assert!(cache.remove(2));
        assert_eq!(cache.state(), "[1@7 3@5 4@4]");
        cache.policy().check();
        assert!(cache.remove(4));
        assert!(cache.remove(1));
        assert_eq!(cache.state(), "[3@5]");
        cache.policy().check();
    }

    /// Belady's rule by brute force: scan every resident page for the furthest next use, with the same
    /// tie-break (least recently referenced first). O(capacity) per miss.
    fn brute_force(capacity: usize, keys: &[u64]) -> Vec<bool> {
        let mut resident: Vec<(u64, u64, usize)> = Vec::new(); // (key, next use, last reference)
        let mut hits = Vec::new();
        for (t, a) in with_next_use(keys).iter().enumerate() {
            if let Some(r) = resident.iter_mut().find(|r| r.0 == a.key) {
                *r = (a.key, a.next_vtime, t);
                hits.push(true);
                continue;
            }
            if resident.len() == capacity {
                let victim = (0..resident.len())
                    .max_by_key(|&i| (resident[i].1, std::cmp::Reverse(resident[i].2)))
                    .expect("full");
                resident.swap_remove(victim);
            }
            resident.push((a.key, a.next_vtime, t));
            hits.push(false);
        }
        hits
    }

    fn run<P: Replacement>(policy: P, keys: &[u64]) -> (Vec<bool>, KeyedCache<P>) {
        let mut cache = KeyedCache::new(policy);
        let hits = with_next_use(keys).iter().map(|a| cache.access(a)).collect();
        (hits, cache)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn agrees_with_brute_force_and_beats_every_policy(
            capacity in 1u32..10,
            keys in proptest::collection::vec(0u64..30, 0..400),
        ) {
            let (hits, cache) = run(Opt::new(capacity), &keys);
            cache.policy().check();
            prop_assert_eq!(&hits, &brute_force(capacity as usize, &keys));
            let misses = cache.stats().misses;
            for kind in PolicyKind::ALL {
                let (_, other) = run(AnyPolicy::new(kind, capacity), &keys);
                prop_assert!(misses <= other.stats().misses, "{} beat OPT", kind);
            }
            // OPT is a stack algorithm: one more frame never adds a miss.
            let (_, bigger) = run(Opt::new(capacity + 1), &keys);
            prop_assert!(bigger.stats().misses <= misses);
        }

        #[test]
        fn without_a_future_it_is_lru(
            capacity in 1u32..10,
            keys in proptest::collection::vec(0u64..30, 0..300),
        ) {
            let mut opt = KeyedCache::new(Opt::new(capacity));
            let mut lru = KeyedCache::new(Lru::new(capacity));
            for (t, &k) in keys.iter().enumerate() {
                let a = Access::demand(k, t as u64); // next_vtime = NEVER
                prop_assert_eq!(opt.access(&a), lru.access(&a));
            }
        }
    }
}
