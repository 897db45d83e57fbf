//! ARC: Adaptive Replacement Cache.
//!
//! Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST 2003, §IV and its Fig. 4
//! ("ARC(c)"). ARC keeps a directory of `2c` pages in four LRU lists: T1 (resident, seen once recently),
//! T2 (resident, seen at least twice recently), and their ghosts B1 and B2 (keys of pages recently evicted
//! from T1 and T2). A ghost hit in B1 says T1 was too small, so the target size `p` of T1 grows by
//! `δ1 = max(|B2|/|B1|, 1)`; a ghost hit in B2 shrinks it by `δ2 = max(|B1|/|B2|, 1)`. REPLACE evicts the
//! LRU page of T1 when `|T1| > p` (or `|T1| = p` and the reference is a B2 ghost hit), else the LRU page of
//! T2, and remembers the victim's key in B1 or B2.
//!
//! Fig. 4 case by case, and where the hooks run it: case I (hit in T1 ∪ T2) is `on_hit`; cases II/III
//! (ghost hit) and IV (miss everywhere) are split between `evict` (adapt `p`, trim the directory, REPLACE)
//! and `on_insert` (put the page on T2 for a ghost hit, T1 otherwise). The ghost lookup runs once per miss:
//! in `evict` when the cache is full (it must know the case before choosing a victim), remembered in
//! `pending` for the `on_insert` that follows.
//!
//! Where pagelab departs from Fig. 4, and why:
//! - `p` is a real number (`f64`), as the paper's `δ = |B2|/|B1|` is a ratio; integer division would
//!   change which list REPLACE takes from. libCacheSim's `ARC.c` does the same (`double p`), so the two agree
//!   to the request.
//! - REPLACE takes from T1 when T2 is empty. Fig. 4 would then ask for the LRU page of an empty T2 if
//!   `|T1| ≤ p`. A full demand cache never gets there (T2 empty means `|T1| = c`, so B1 is empty, and a
//!   B2 hit lowers `p` below `c` first), but an eviction before the cache is full can. libCacheSim has the
//!   same guard (`cond4` in `_ARC_replace`).
//! - Removal (`on_remove`) and eviction without an insertion are not in the paper (it assumes a demand
//!   cache that is full once warm). A removed page leaves no ghost. To keep the directory within `2c`
//!   when evictions run ahead of insertions, B1 ∪ B2 never holds more than `c` keys: adding a ghost to a
//!   full ghost directory first drops the LRU key of B2 (or of B1 if B2 is empty). In the paper's own
//!   regime (insertions only after evictions of a full cache) this rule never fires: cases II–IV always
//!   free a ghost before REPLACE adds one. A miss that finds free frames trims B1 so that `|T1| + |B1| ≤ c`
//!   holds after the insertion.
//!
//! Layout: frames `0..c` and ghost nodes `c..2c` share one [`Links`] arena; ghost keys live in a
//! [`GhostDirectory`] (shared with 2Q and LIRS). Steady state is
//! allocation-free.

use super::ghost::GhostDirectory;
use super::{Access, FrameId, Replacement};
use crate::list::{Links, List};

/// What `evict` learned about the reference it made room for, for the `on_insert` that follows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pending {
    Nothing,
    /// `key` was in no list (case IV).
    Miss {
        key: u64,
    },
    /// `key` was a ghost in B1 or B2 (case II or III); its ghost is already gone and `p` adapted.
    GhostHit {
        key: u64,
        in_b2: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Arc {
    capacity: u32,
    links: Links,
    t1: List,
    t2: List,
    b1: List,
    b2: List,
    /// By frame: the resident page is on T2 (else T1).
    in_t2: Vec<bool>,
    ghosts: GhostDirectory,
    /// By ghost slot: the ghost is on B2 (else B1).
    ghost_in_b2: Vec<bool>,
    /// The target size of T1, in pages, `0 ≤ p ≤ c`.
    p: f64,
    pending: Pending,
}

impl Arc {
    pub fn new(capacity: u32) -> Arc {
        assert!(capacity >= 1, "ARC needs at least one frame");
        let ghost_base = capacity;
        Arc {
            capacity,
            links: Links::new(2 * capacity),
            t1: List::new(),
            t2: List::new(),
            b1: List::new(),
            b2: List::new(),
            in_t2: vec![false; capacity as usize],
            ghosts: GhostDirectory::new(ghost_base, capacity),
            ghost_in_b2: vec![false; capacity as usize],
            p: 0.0,
            pending: Pending::Nothing,
        }
    }

    /// The target size of T1 (the paper's `p`).
    pub fn target_t1(&self) -> f64 {
        self.p
    }

    /// If `key` is a ghost: adapt `p` (cases II/III), drop the ghost, and return whether it was in B2.
    fn take_ghost(&mut self, key: u64) -> Option<bool> {
        let node = self.ghosts.take(key)?;
        let in_b2 = self.ghost_in_b2[self.ghosts.slot(node)];
        let (b1_len, b2_len) = (self.b1.len() as f64, self.b2.len() as f64);
        // The deltas read the ghost lists with the hit ghost still counted, as in Fig. 4.
        if in_b2 {
            let delta = (b1_len / b2_len).max(1.0);
            self.p = (self.p - delta).max(0.0);
            self.links.remove(&mut self.b2, node);
        } else {
            let delta = (b2_len / b1_len).max(1.0);
            self.p = (self.p + delta).min(self.capacity as f64);
            self.links.remove(&mut self.b1, node);
        }
        Some(in_b2)
    }

    /// REPLACE(x, p) of Fig. 4: evict the LRU page of T1 or T2 into B1 or B2 and return its frame.
    fn replace(&mut self, in_b2: bool, keys: &[u64]) -> FrameId {
        let t1_len = self.t1.len() as f64;
        let from_t1 =
            self.t2.is_empty() || (!self.t1.is_empty() && (t1_len > self.p || (in_b2 && t1_len == self.p)));
        let list = if from_t1 { &mut self.t1 } else { &mut self.t2 };
        let victim = self.links.pop_back(list).expect("REPLACE on an empty cache");
        if self.ghosts.is_full() {
            // Only reachable when evictions run ahead of insertions (see the module doc).
            let drop_from = if self.b2.is_empty() { &mut self.b1 } else { &mut self.b2 };
            let node = self.links.pop_back(drop_from).expect("full ghost directory with empty ghost lists");
            self.ghosts.forget(node);
        }
        let node = self.ghosts.add(keys[victim as usize]);
        self.ghost_in_b2[self.ghosts.slot(node)] = !from_t1;
        let ghost_list = if from_t1 { &mut self.b1 } else { &mut self.b2 };
        self.links.push_front(ghost_list, node);
        victim
    }

    /// Case IV of Fig. 4 (the reference is in no list): keep `|T1| + |B1| ≤ c` and the directory within
    /// `2c`, then evict.
    fn evict_for_new_page(&mut self, keys: &[u64]) -> FrameId {
        let c = self.capacity;
        if self.t1.len() + self.b1.len() >= c {
            if self.t1.len() < c {
                let node =
                    self.links.pop_back(&mut self.b1).expect("|T1| + |B1| = c with |T1| < c: B1 non-empty");
                self.ghosts.forget(node);
                self.replace(false, keys)
            } else {
                // T1 holds the whole cache: its LRU page leaves without a ghost.
                self.links.pop_back(&mut self.t1).expect("|T1| = c")
            }
        } else {
            if self.directory_len() >= 2 * c {
                let node =
                    self.links.pop_back(&mut self.b2).expect("directory of 2c with |L1| < c: B2 non-empty");
                self.ghosts.forget(node);
            }
            self.replace(false, keys)
        }
    }

    fn directory_len(&self) -> u32 {
        self.t1.len() + self.t2.len() + self.b1.len() + self.b2.len()
    }

    /// The paper's invariants (§III, the class Π(c) of DBL(2c) policies) and the ghost directory's
    /// conservation.
    fn check(&self) {
        let c = self.capacity;
        assert!(self.t1.len() + self.t2.len() <= c, "more than c resident pages");
        assert!(self.t1.len() + self.b1.len() <= c, "|T1| + |B1| > c");
        assert!(self.directory_len() <= 2 * c, "directory larger than 2c");
        assert_eq!(self.b1.len() + self.b2.len(), self.ghosts.len(), "ghost lists and index disagree");
        assert!((0.0..=c as f64).contains(&self.p), "p = {} outside [0, c]", self.p);
        self.ghosts.check();
    }

    fn format_ghosts(&self, list: &List) -> String {
        let parts: Vec<String> = self.links.iter(list).map(|n| self.ghosts.key(n).to_string()).collect();
        format!("[{}]", parts.join(" "))
    }
}

impl Replacement for Arc {
    fn name(&self) -> &'static str {
        "ARC"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.t1.len() + self.t2.len()
    }

    /// Cases II/III put the page on T2, case IV on T1. When no `evict` preceded (free frames), this is where
    /// the ghost lookup runs.
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access) {
        let key = access.key;
        let to_t2 = match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::GhostHit { key: k, .. } if k == key => true,
            Pending::Miss { key: k } if k == key => false,
            _ => {
                let ghost_hit = self.take_ghost(key).is_some();
                if !ghost_hit && self.t1.len() + self.b1.len() >= self.capacity {
                    // A free frame but a full L1 (only after removals or early evictions):
                    // keep |T1| + |B1| ≤ c.
                    let node =
                        self.links.pop_back(&mut self.b1).expect("L1 full with a free frame: B1 non-empty");
                    self.ghosts.forget(node);
                }
                ghost_hit
            }
        };
        assert!(self.len() < self.capacity, "insert into a full ARC");
        self.in_t2[frame as usize] = to_t2;
        let list = if to_t2 { &mut self.t2 } else { &mut self.t1 };
        self.links.push_front(list, frame);
        self.check();
    }

    /// Case I: a hit in T1 or T2 moves the page to the MRU end of T2.
    #[inline]
    fn on_hit(&mut self, frame: FrameId, _: &Access) {
        if self.in_t2[frame as usize] {
            self.links.move_to_front(&mut self.t2, frame);
        } else {
            self.in_t2[frame as usize] = true;
            self.links.move_to_front_of(&mut self.t1, &mut self.t2, frame);
        }
    }

    /// Runs the ghost check for `incoming` (once, even if called again for the same reference), then
    /// case II/III's REPLACE or case IV's directory trimming and REPLACE.
    #[inline]
    fn evict(&mut self, incoming: &Access, keys: &[u64]) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty ARC");
        let key = incoming.key;
        let ghost = match self.pending {
            Pending::GhostHit { key: k, in_b2 } if k == key => Some(in_b2),
            Pending::Miss { key: k } if k == key => None,
            _ => self.take_ghost(key),
        };
        let victim = match ghost {
            Some(in_b2) => {
                self.pending = Pending::GhostHit { key, in_b2 };
                self.replace(in_b2, keys)
            }
            None => {
                self.pending = Pending::Miss { key };
                self.evict_for_new_page(keys)
            }
        };
        assert_ne!(keys[victim as usize], incoming.key, "evict called for a resident key");
        self.check();
        victim
    }

    fn on_remove(&mut self, frame: FrameId, _: &[u64]) {
        let list = if self.in_t2[frame as usize] { &mut self.t2 } else { &mut self.t1 };
        self.links.remove(list, frame);
        self.check();
    }

    /// `"T1=[..] T2=[..] B1=[..] B2=[..] p=.."`, each list MRU first.
    fn state(&self, keys: &[u64]) -> String {
        format!(
            "T1={} T2={} B1={} B2={} p={}",
            super::format_keys(self.links.iter(&self.t1), keys),
            super::format_keys(self.links.iter(&self.t2), keys),
            self.format_ghosts(&self.b1),
            self.format_ghosts(&self.b2),
            self.p
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyedCache;
    use crate::policy::testing::trace;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn hand_traced() {
        trace(
            Arc::new(3),
            &[
                (1, false, "T1=[1] T2=[] B1=[] B2=[] p=0"),
                (2, false, "T1=[2 1] T2=[] B1=[] B2=[] p=0"),
                (3, false, "T1=[3 2 1] T2=[] B1=[] B2=[] p=0"),
                (1, true, "T1=[3 2] T2=[1] B1=[] B2=[] p=0"),
                (2, true, "T1=[3] T2=[2 1] B1=[] B2=[] p=0"),
                // Case IV, |L1| < c: REPLACE takes T1's LRU since |T1| = 1 > p = 0.
                (4, false, "T1=[4] T2=[2 1] B1=[3] B2=[] p=0"),
                (5, false, "T1=[5] T2=[2 1] B1=[4 3] B2=[] p=0"),
                // B1 hit: δ1 = max(0/2, 1) = 1, p = 1; |T1| = 1 is not > p, so T2's LRU goes.
                (3, false, "T1=[5] T2=[3 2] B1=[4] B2=[1] p=1"),
                (6, false, "T1=[6 5] T2=[3] B1=[4] B2=[2 1] p=1"),
                // B1 hit: δ1 = |B2|/|B1| = 2/1, p = min(1 + 2, 3) = 3; T2's LRU goes.
                (4, false, "T1=[6 5] T2=[4] B1=[] B2=[3 2 1] p=3"),
                // B2 hit: δ2 = max(0/3, 1) = 1, p = 2; |T1| = p and x in B2, so T1's LRU goes.
                (2, false, "T1=[6] T2=[2 4] B1=[5] B2=[3 1] p=2"),
                // Case IV, |L1| = 2 < c, directory = 2c: B2's LRU (1) is dropped; REPLACE takes T2's LRU.
                (7, false, "T1=[7 6] T2=[2] B1=[5] B2=[4 3] p=2"),
                // Case IV, |L1| = c and |T1| < c: B1's LRU (5) is dropped, then REPLACE.
                (8, false, "T1=[8 7 6] T2=[] B1=[] B2=[2 4 3] p=2"),
                // Case IV, |T1| = c: T1's LRU (6) leaves without a ghost.
                (9, false, "T1=[9 8 7] T2=[] B1=[] B2=[2 4 3] p=2"),
                // B2 hit: δ2 = 1, p = 1; |T1| = 3 > p.
                (4, false, "T1=[9 8] T2=[4] B1=[7] B2=[2 3] p=1"),
            ],
        );
    }

    /// Evictions that run ahead of insertions, removals, and insertions into free frames while ghosts exist:
    /// the paths the paper's demand cache never takes.
    #[test]
    fn early_evictions_and_free_frames_keep_the_directory_bounded() {
        let mut arc = Arc::new(2);
        let keys = [1u64, 2];
        arc.on_insert(0, &Access::demand(1, 0));
        arc.on_insert(1, &Access::demand(2, 1));
        arc.on_hit(0, &Access::demand(1, 2));
        arc.on_hit(1, &Access::demand(2, 3));
        assert_eq!(arc.state(&keys), "T1=[] T2=[2 1] B1=[] B2=[] p=0");
        // Two evictions for one reference: both go to B2, the directory of ghosts is now full (c = 2).
        assert_eq!(arc.evict(&Access::demand(5, 4), &keys), 0);
        assert_eq!(arc.evict(&Access::demand(5, 4), &keys), 1);
        assert_eq!(arc.state(&keys), "T1=[] T2=[] B1=[] B2=[2 1] p=0");
        let keys = [5u64, 6];
        arc.on_insert(0, &Access::demand(5, 4));
        arc.on_insert(1, &Access::demand(6, 5));
        assert_eq!(arc.state(&keys), "T1=[6 5] T2=[] B1=[] B2=[2 1] p=0");
        // First eviction: |T1| = c, so 5 leaves without a ghost. Second: REPLACE must add a ghost to a full
        // directory, so B2's LRU (1) is dropped first.
        assert_eq!(arc.evict(&Access::demand(7, 6), &keys), 0);
        assert_eq!(arc.evict(&Access::demand(7, 6), &keys), 1);
        assert_eq!(arc.state(&keys), "T1=[] T2=[] B1=[6] B2=[2] p=0");
        // A ghost hit into a free frame adapts p without REPLACE.
        let keys = [2u64, 7];
        arc.on_insert(0, &Access::demand(2, 7));
        assert_eq!(arc.state(&keys), "T1=[] T2=[2] B1=[6] B2=[] p=0");
        arc.on_remove(0, &keys);
        assert!(arc.is_empty());
        assert_eq!(arc.state(&keys), "T1=[] T2=[] B1=[6] B2=[] p=0", "a removed page leaves no ghost");
    }

    /// Fig. 4 transcribed literally over `VecDeque`s of keys (front = MRU), for demand references only.
    struct Fig4 {
        c: usize,
        p: f64,
        t1: VecDeque<u64>,
        t2: VecDeque<u64>,
        b1: VecDeque<u64>,
        b2: VecDeque<u64>,
    }

    fn take(list: &mut VecDeque<u64>, x: u64) -> bool {
        match list.iter().position(|&k| k == x) {
            Some(i) => {
                list.remove(i);
                true
            }
            None => false,
        }
    }

    fn show(list: &VecDeque<u64>) -> String {
        format!("[{}]", list.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" "))
    }

    impl Fig4 {
        fn replace(&mut self, x_in_b2: bool) {
            let t1 = self.t1.len() as f64;
            if !self.t1.is_empty() && (t1 > self.p || (x_in_b2 && t1 == self.p)) {
                let y = self.t1.pop_back().unwrap();
                self.b1.push_front(y);
            } else {
                let y = self.t2.pop_back().expect("Fig. 4 never empties T2 here in a demand cache");
                self.b2.push_front(y);
            }
        }

        fn access(&mut self, x: u64) -> bool {
            let c = self.c as f64;
            if take(&mut self.t1, x) || take(&mut self.t2, x) {
                self.t2.push_front(x);
                return true;
            }
            if self.b1.contains(&x) {
                let delta = if self.b1.len() >= self.b2.len() {
                    1.0
                } else {
                    self.b2.len() as f64 / self.b1.len() as f64
                };
                self.p = (self.p + delta).min(c);
                self.replace(false);
                take(&mut self.b1, x);
                self.t2.push_front(x);
                return false;
            }
            if self.b2.contains(&x) {
                let delta = if self.b2.len() >= self.b1.len() {
                    1.0
                } else {
                    self.b1.len() as f64 / self.b2.len() as f64
                };
                self.p = (self.p - delta).max(0.0);
                self.replace(true);
                take(&mut self.b2, x);
                self.t2.push_front(x);
                return false;
            }
            let l1 = self.t1.len() + self.b1.len();
            let total = l1 + self.t2.len() + self.b2.len();
            if l1 == self.c {
                if self.t1.len() < self.c {
                    self.b1.pop_back();
                    self.replace(false);
                } else {
                    self.t1.pop_back();
                }
            } else if total >= self.c {
                if total == 2 * self.c {
                    self.b2.pop_back();
                }
                self.replace(false);
            }
            self.t1.push_front(x);
            false
        }

        fn state(&self) -> String {
            format!(
                "T1={} T2={} B1={} B2={} p={}",
                show(&self.t1),
                show(&self.t2),
                show(&self.b1),
                show(&self.b2),
                self.p
            )
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// Every step's hit/miss, lists and `p` equal a literal transcription of Fig. 4.
        #[test]
        fn agrees_with_fig4_step_by_step(
            capacity in 1u32..10,
            keys in proptest::collection::vec(0u64..24, 0..300),
        ) {
            let mut cache = KeyedCache::new(Arc::new(capacity));
            let mut model = Fig4 {
                c: capacity as usize, p: 0.0,
                t1: VecDeque::new(), t2: VecDeque::new(), b1: VecDeque::new(), b2: VecDeque::new(),
            };
            for (t, &k) in keys.iter().enumerate() {
                let hit = cache.access(&Access::demand(k, t as u64));
                prop_assert_eq!(hit, model.access(k), "step {} key {}", t, k);
                prop_assert_eq!(cache.state(), model.state(), "step {} key {}", t, k);
            }
        }

        /// Removals between references: residency and ghosts stay disjoint and within bounds (`check()` also
        /// asserts the paper's invariants inside every hook).
        #[test]
        fn removals_keep_ghosts_disjoint_from_residents(
            capacity in 1u32..10,
            ops in proptest::collection::vec((0u64..24, any::<bool>()), 0..300),
        ) {
            let mut cache = KeyedCache::new(Arc::new(capacity));
            for (t, &(k, remove)) in ops.iter().enumerate() {
                if remove {
                    cache.remove(k);
                } else {
                    cache.access(&Access::demand(k, t as u64));
                }
                let arc = cache.policy();
                for list in [&arc.b1, &arc.b2] {
                    for node in arc.links.iter(list) {
                        let key = arc.ghosts.key(node);
                        prop_assert!(!cache.contains(key), "key {} both resident and a ghost", key);
                    }
                }
                prop_assert!(arc.b1.len() + arc.b2.len() <= capacity);
            }
        }
    }
}
