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
//! Fig. 4 case by case, and where the hooks run it: case I (hit in T1 ∪ T2) is `on_hit`. A miss is split
//! over the three hooks of the [`Replacement`] protocol: `on_miss` decides between cases II/III (ghost
//! hit: adapt `p`, drop the ghost) and IV and returns the case as the page's [`History`]; `evict` runs
//! REPLACE for cases II/III (reading "x ∈ B2" from that history) or case IV's directory trimming and
//! REPLACE; `on_insert` puts the page on T2 for a ghost hit, T1 otherwise. Because the case travels with
//! the page, a buffer cache may announce many pages, evict for them in any order and insert them as their
//! I/O completes: each page lands where Fig. 4 puts it.
//!
//! Prefetched pages (`Access::prefetch`): a readahead page has not been referenced, so it is a page "seen"
//! zero times: it enters T1's MRU end and its first use is its first reference, which leaves it in T1
//! (moved to T1's MRU end, where case IV would have put it). If its key was a ghost when the readahead
//! brought it in, `on_miss` drops the ghost (a key is resident or a ghost, never both) but adapts nothing:
//! the reference has not happened. The first use then counts as that ghost hit, late: `p` adapts as
//! Fig. 4's case II/III would (reading `|B1|` and `|B2|` as they are then, with the ghost counted) and the
//! page moves to T2. A prefetched page evicted before any use leaves no ghost: it was never referenced,
//! so there is no recency to remember.
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
//!   cache that is full once warm). A removed page leaves no ghost. An eviction for no page in particular
//!   (kswapd's reclaim) runs case IV's. To keep the directory within `2c` when evictions run ahead of
//!   insertions, B1 ∪ B2 never holds more than `c` keys: adding a ghost to a full ghost directory first
//!   drops the LRU key of B2 (or of B1 if B2 is empty). In the paper's own regime (insertions only after
//!   evictions of a full cache) this rule never fires: cases II–IV always free a ghost before REPLACE adds
//!   one. A miss that finds free frames trims B1 so that `|T1| + |B1| ≤ c` holds after the insertion.
//!
//! Layout: the ghosts are the driver's shadow entries ([`Shadows`]), as libCacheSim's `ARC.c` flags a ghost
//! in its one hash table: a page evicted into B1 or B2 keeps its id, so REPLACE moves it from a T list to a
//! B list without a hash operation, and a ghost hit is found by the driver's own lookup. The four lists
//! thread the table's ids (`2c` of them: `c` pages and `c` ghosts) through one [`Links`] arena, and one
//! byte per id says which list holds it. Steady state is allocation-free.

use super::{Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

/// ARC's meanings of [`History`]: what `on_miss` found.
mod hist {
    /// A demand reference whose key was a ghost in B1 (case II): `p` adapted, the ghost gone.
    pub const B1: u8 = 1;
    /// Likewise in B2 (case III).
    pub const B2: u8 = 2;
    /// A readahead page whose key was a ghost in B1: the ghost is gone, the adaptation waits for the
    /// page's first use.
    pub const B1_DEFERRED: u8 = 3;
    /// Likewise in B2.
    pub const B2_DEFERRED: u8 = 4;
}

/// Which list holds an id.
mod list {
    pub const NONE: u8 = 0;
    pub const T1: u8 = 1;
    pub const T2: u8 = 2;
    pub const B1: u8 = 3;
    pub const B2: u8 = 4;
}

/// What a resident page's next reference means (by frame).
mod first_use {
    /// Referenced at least once: an ordinary T1 or T2 page.
    pub const DONE: u8 = 0;
    /// Prefetched, never used, its key was no ghost.
    pub const PENDING: u8 = 1;
    /// Prefetched, never used, its key was a ghost in B1 (its first use is a late case II).
    pub const PENDING_B1: u8 = 2;
    /// Likewise in B2 (a late case III).
    pub const PENDING_B2: u8 = 3;
}

#[derive(Clone, Debug)]
pub struct Arc {
    capacity: u32,
    links: Links,
    /// T1, T2, B1, B2, indexed by the `list` constants minus one.
    lists: [List; 4],
    /// By id: the `list` holding it.
    list_of: Vec<u8>,
    /// By id: [`first_use`] of a resident page.
    first_use: Vec<u8>,
    /// The target size of T1, in pages, `0 ≤ p ≤ c`.
    p: f64,
}

impl Arc {
    pub fn new(capacity: u32) -> Arc {
        assert!(capacity >= 1, "ARC needs at least one frame");
        let ids = capacity.checked_mul(2).expect("2c ids overflow u32");
        Arc {
            capacity,
            links: Links::new(ids),
            lists: [List::new(); 4],
            list_of: vec![list::NONE; ids as usize],
            first_use: vec![first_use::DONE; ids as usize],
            p: 0.0,
        }
    }

    /// The target size of T1 (the paper's `p`).
    pub fn target_t1(&self) -> f64 {
        self.p
    }

    #[inline(always)]
    fn len_of(&self, l: u8) -> u32 {
        self.lists[l as usize - 1].len()
    }

    /// Put `id`, in no list, at the MRU end of list `l`.
    #[inline(always)]
    fn push(&mut self, id: u32, l: u8) {
        self.list_of[id as usize] = l;
        self.links.push_front(&mut self.lists[l as usize - 1], id);
    }

    /// Take `id` out of its list.
    #[inline(always)]
    fn unlink(&mut self, id: u32) -> u8 {
        let l = std::mem::replace(&mut self.list_of[id as usize], list::NONE);
        debug_assert_ne!(l, list::NONE, "id {id} is in no list");
        self.links.remove(&mut self.lists[l as usize - 1], id);
        l
    }

    /// The LRU id of list `l`, taken out of it.
    #[inline(always)]
    fn pop_lru(&mut self, l: u8) -> u32 {
        let id = self.lists[l as usize - 1].back().expect("pop from an empty ARC list");
        self.unlink(id);
        id
    }

    /// Cases II/III: a ghost hit in B2 (else B1) adapts `p`. `b1_len` and `b2_len` count the hit ghost, as
    /// Fig. 4 reads them.
    fn adapt(&mut self, in_b2: bool, b1_len: f64, b2_len: f64) {
        if in_b2 {
            self.p = (self.p - (b1_len / b2_len).max(1.0)).max(0.0);
        } else {
            self.p = (self.p + (b2_len / b1_len).max(1.0)).min(self.capacity as f64);
        }
    }

    /// REPLACE(x, p) of Fig. 4: evict the LRU page of T1 or T2 into B1 or B2 and return its frame. A
    /// prefetched page never used leaves no ghost.
    #[inline(always)]
    fn replace(&mut self, x_in_b2: bool, shadows: &mut Shadows<'_>) -> FrameId {
        let t1_len = self.len_of(list::T1) as f64;
        let from_t1 = self.len_of(list::T2) == 0
            || (self.len_of(list::T1) > 0 && (t1_len > self.p || (x_in_b2 && t1_len == self.p)));
        let (from, to) = if from_t1 { (list::T1, list::B1) } else { (list::T2, list::B2) };
        let victim = self.pop_lru(from);
        if std::mem::replace(&mut self.first_use[victim as usize], first_use::DONE) != first_use::DONE {
            return victim;
        }
        if shadows.is_full() {
            // Only reachable when evictions run ahead of insertions (see the module doc).
            let drop_from = if self.len_of(list::B2) == 0 { list::B1 } else { list::B2 };
            self.forget_lru(drop_from, shadows);
        }
        shadows.keep(victim);
        self.push(victim, to);
        victim
    }

    /// Drop the LRU ghost of `l` (B1 or B2).
    #[inline(always)]
    fn forget_lru(&mut self, l: u8, shadows: &mut Shadows<'_>) {
        let ghost = self.pop_lru(l);
        shadows.forget(ghost);
    }

    /// Case IV of Fig. 4 (the reference is in no list), and evictions for no page: keep `|T1| + |B1| ≤ c`
    /// and the directory within `2c`, then evict.
    #[inline(always)]
    fn evict_for_new_page(&mut self, shadows: &mut Shadows<'_>) -> FrameId {
        let c = self.capacity;
        let (t1, b1) = (self.len_of(list::T1), self.len_of(list::B1));
        if t1 + b1 >= c {
            if t1 < c {
                self.forget_lru(list::B1, shadows);
                self.replace(false, shadows)
            } else {
                // T1 holds the whole cache: its LRU page leaves without a ghost.
                let victim = self.pop_lru(list::T1);
                self.first_use[victim as usize] = first_use::DONE;
                victim
            }
        } else {
            if self.directory_len() >= 2 * c {
                self.forget_lru(list::B2, shadows);
            }
            self.replace(false, shadows)
        }
    }

    fn directory_len(&self) -> u32 {
        self.lists.iter().map(|l| l.len()).sum()
    }

    /// The first use of the prefetched page in `frame` (in T1): its first reference. With the ghost hit it
    /// carried, a late case II/III (adapt `p`, move to T2); without, case IV's placement (T1's MRU end).
    #[cold]
    fn first_reference(&mut self, frame: FrameId, pending: u8) {
        self.first_use[frame as usize] = first_use::DONE;
        self.unlink(frame);
        if pending == first_use::PENDING {
            self.push(frame, list::T1);
            return;
        }
        let in_b2 = pending == first_use::PENDING_B2;
        let (b1_len, b2_len) = (self.len_of(list::B1) as f64, self.len_of(list::B2) as f64);
        self.adapt(in_b2, b1_len + !in_b2 as u8 as f64, b2_len + in_b2 as u8 as f64);
        self.push(frame, list::T2);
    }

    /// The paper's invariants (§III, the class Π(c) of DBL(2c) policies), and the ghost lists against the
    /// shadow entries. Runs once per inserted page: the two conditions every other follows from on this path
    /// (|T1| + |T2| ≤ c is the table's capacity, the directory's 2c the sum of the two below), as
    /// integer compares; the rest in debug builds (all of it cost 7 % of ARC's time on P3).
    #[inline(always)]
    fn check(&self, shadows: &Shadows<'_>) {
        let c = self.capacity;
        let len = |l| self.len_of(l);
        assert!(len(list::T1) + len(list::B1) <= c, "|T1| + |B1| > c");
        assert_eq!(len(list::B1) + len(list::B2), shadows.len(), "ghost lists and shadow entries disagree");
        debug_assert!(len(list::T1) + len(list::T2) <= c, "more than c resident pages");
        debug_assert!(shadows.len() <= c, "more than c ghosts");
        debug_assert!((0.0..=c as f64).contains(&self.p), "p = {} outside [0, c]", self.p);
    }
}

impl Replacement for Arc {
    const KEEPS_SHADOWS: bool = true;

    fn name(&self) -> &'static str {
        "ARC"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    /// B1 ∪ B2 never holds more than `c` keys.
    fn shadow_slots(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.len_of(list::T1) + self.len_of(list::T2)
    }

    /// Cases II/III when the key is a ghost: adapt `p` (for a demand reference) and drop the ghost.
    #[inline(always)]
    fn on_miss(&mut self, access: &Access, shadows: &mut Shadows<'_>) -> History {
        let Some(ghost) = shadows.get(access.key) else {
            return History::NONE;
        };
        let in_b2 = self.list_of[ghost as usize] == list::B2;
        if !access.prefetch {
            // The deltas read the ghost lists with the hit ghost still counted, as in Fig. 4.
            let (b1_len, b2_len) = (self.len_of(list::B1) as f64, self.len_of(list::B2) as f64);
            self.adapt(in_b2, b1_len, b2_len);
        }
        self.unlink(ghost);
        shadows.forget(ghost);
        History(match (access.prefetch, in_b2) {
            (false, false) => hist::B1,
            (false, true) => hist::B2,
            (true, false) => hist::B1_DEFERRED,
            (true, true) => hist::B2_DEFERRED,
        })
    }

    /// Cases II/III put the page on T2, case IV on T1 (and a prefetched page on T1, its ghost hit, if any,
    /// waiting for its first use).
    #[inline(always)]
    fn on_insert(&mut self, frame: FrameId, access: &Access, history: History, shadows: &mut Shadows<'_>) {
        debug_assert!(
            access.prefetch == matches!(history.0, hist::B1_DEFERRED | hist::B2_DEFERRED) || history.0 == 0,
            "history {history:?} does not fit a{} access",
            if access.prefetch { " prefetch" } else { " demand" }
        );
        let to = match history.0 {
            hist::B1 | hist::B2 => list::T2,
            _ => {
                if self.len_of(list::T1) + self.len_of(list::B1) >= self.capacity {
                    // A free frame but a full L1 (only after removals or early evictions):
                    // keep |T1| + |B1| ≤ c.
                    self.forget_lru(list::B1, shadows);
                }
                list::T1
            }
        };
        assert!(self.len() < self.capacity, "insert into a full ARC");
        self.first_use[frame as usize] = match (access.prefetch, history.0) {
            (false, _) => first_use::DONE,
            (true, hist::B1_DEFERRED) => first_use::PENDING_B1,
            (true, hist::B2_DEFERRED) => first_use::PENDING_B2,
            (true, _) => first_use::PENDING,
        };
        self.push(frame, to);
        self.check(shadows);
    }

    /// Case I: a hit in T1 or T2 moves the page to the MRU end of T2. A prefetched page's first use is its
    /// first reference instead (see the module doc); a readahead meeting the page is no reference.
    #[inline(always)]
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        if self.list_of[frame as usize] == list::T2 {
            self.links.move_to_front(&mut self.lists[list::T2 as usize - 1], frame);
            return;
        }
        // Prefetched pages sit in T1 until their first use.
        let pending = self.first_use[frame as usize];
        if pending != first_use::DONE {
            self.first_reference(frame, pending);
            return;
        }
        self.unlink(frame);
        self.push(frame, list::T2);
    }

    /// REPLACE for cases II/III (the ghost hit was handled by `on_miss`), or case IV's directory trimming
    /// and REPLACE for a page that was in no list and for evictions for no page.
    #[inline(always)]
    fn evict(&mut self, incoming: History, shadows: &mut Shadows<'_>) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty ARC");
        // The invariants hold again once the page is inserted, where `on_insert` checks them.
        match incoming.0 {
            hist::B1 | hist::B2 => self.replace(incoming.0 == hist::B2, shadows),
            _ => self.evict_for_new_page(shadows),
        }
    }

    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        let l = self.unlink(frame);
        assert!(l == list::T1 || l == list::T2, "removing frame {frame}, which is not resident");
        self.first_use[frame as usize] = first_use::DONE;
        self.check(shadows);
    }

    /// `"T1=[..] T2=[..] B1=[..] B2=[..] p=.."`, each list MRU first; `+` marks a prefetched page not yet
    /// used.
    fn state(&self, table: &FrameTable) -> String {
        let list = |l: u8| {
            let keys: Vec<String> = self
                .links
                .iter(&self.lists[l as usize - 1])
                .map(|id| {
                    let unused = l <= list::T2 && self.first_use[id as usize] != first_use::DONE;
                    format!("{}{}", table.key(id), if unused { "+" } else { "" })
                })
                .collect();
            format!("[{}]", keys.join(" "))
        };
        format!(
            "T1={} T2={} B1={} B2={} p={}",
            list(list::T1),
            list(list::T2),
            list(list::B1),
            list(list::B2),
            self.p
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyedCache;
    use crate::policy::testing::{trace, Driver};
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
        let none = History::NONE;
        let mut d = Driver::new(Arc::new(2));
        assert_eq!((d.insert(1, 0), d.insert(2, 1)), (0, 1));
        d.hit(0, 2);
        d.hit(1, 3);
        assert_eq!(d.state(), "T1=[] T2=[2 1] B1=[] B2=[] p=0");
        // Two evictions for no page: both go to B2, the ghost directory is now full (c = 2).
        assert_eq!((d.evict(none), d.evict(none)), (0, 1));
        assert_eq!(d.state(), "T1=[] T2=[] B1=[] B2=[2 1] p=0");
        // The evicted pages keep their ids 0 and 1 as ghosts: the new pages take fresh ones.
        assert_eq!((d.insert(5, 4), d.insert(6, 5)), (2, 3));
        assert_eq!(d.state(), "T1=[6 5] T2=[] B1=[] B2=[2 1] p=0");
        // First eviction: |T1| = c, so 5 leaves without a ghost. Second: REPLACE must add a ghost to a full
        // directory, so B2's LRU (1) is dropped first.
        assert_eq!((d.evict(none), d.evict(none)), (2, 3));
        assert_eq!(d.state(), "T1=[] T2=[] B1=[6] B2=[2] p=0");
        // A ghost hit into a free frame adapts p without REPLACE.
        let two = d.insert(2, 7);
        assert_eq!(d.state(), "T1=[] T2=[2] B1=[6] B2=[] p=0");
        d.remove(two);
        assert!(d.policy.is_empty());
        assert_eq!(d.state(), "T1=[] T2=[] B1=[6] B2=[] p=0", "a removed page leaves no ghost");
        d.table.check();
    }

    /// The buffer cache's order (issue #10's reproduction): frames for two pages are taken (each `on_miss`,
    /// then an eviction) before either page arrives. 1 was a B2 ghost, so case III puts it in T2; 4 is new
    /// (case IV). A one-slot note of "the incoming key" would have named 4 by the time 1 arrived and put 1
    /// in T1. The end state is Fig. 4's for the references 1 then 4.
    #[test]
    fn pages_announced_together_keep_their_own_ghost_hits() {
        let mut d = Driver::new(Arc::new(2));
        let (one, two) = (d.insert(1, 0), d.insert(2, 1));
        d.hit(one, 2);
        d.hit(two, 3);
        assert_eq!(d.state(), "T1=[] T2=[2 1] B1=[] B2=[] p=0");
        let h3 = d.policy.on_miss(&Access::demand(3, 4), &mut d.table.shadows());
        d.evict(h3);
        let three = d.table.insert(3);
        d.arrive(three, Access::demand(3, 4), h3);
        assert_eq!(d.state(), "T1=[3] T2=[2] B1=[] B2=[1] p=0");
        let h1 = d.policy.on_miss(&Access::demand(1, 5), &mut d.table.shadows());
        d.evict(h1);
        let f1 = d.table.insert(1);
        let h4 = d.policy.on_miss(&Access::demand(4, 6), &mut d.table.shadows());
        d.evict(h4);
        let f4 = d.table.insert(4);
        d.arrive(f1, Access::demand(1, 5), h1);
        d.arrive(f4, Access::demand(4, 6), h4);
        assert_eq!(d.state(), "T1=[4] T2=[1] B1=[3] B2=[2] p=0");
        let mut fig4 = Fig4::new(2);
        for k in [1, 2, 1, 2, 3, 1, 4] {
            fig4.access(k);
        }
        assert_eq!(d.state(), fig4.state());
        d.table.check();
    }

    /// A prefetched page is a page seen zero times: it enters T1 and its first use keeps it there (a
    /// demanded page's second reference would move it to T2); a prefetched page evicted unused leaves no
    /// ghost; a ghost hit brought back by readahead adapts `p` at the page's first use.
    #[test]
    fn prefetched_pages_are_referenced_first_by_their_first_use() {
        let mut d = Driver::new(Arc::new(3));
        let a = d.insert_prefetched(1, 0);
        assert_eq!(d.state(), "T1=[1+] T2=[] B1=[] B2=[] p=0");
        d.hit(a, 1);
        assert_eq!(d.state(), "T1=[1] T2=[] B1=[] B2=[] p=0", "first use: still seen once");
        d.hit(a, 2);
        assert_eq!(d.state(), "T1=[] T2=[1] B1=[] B2=[] p=0", "second use: case I");
        d.insert(2, 3);
        d.insert_prefetched(3, 4);
        assert_eq!(d.state(), "T1=[3+ 2] T2=[1] B1=[] B2=[] p=0");
        // REPLACE takes T1's LRU (|T1| = 2 > p): 2, referenced, becomes a ghost; then 3, never used, leaves
        // no ghost.
        d.evict(History::NONE);
        d.evict(History::NONE);
        assert_eq!(d.state(), "T1=[] T2=[1] B1=[2] B2=[] p=0");
        // Readahead brings 2 back: its ghost goes, p waits; the first use is the late case II.
        let b = d.insert_prefetched(2, 5);
        assert_eq!(d.state(), "T1=[2+] T2=[1] B1=[] B2=[] p=0");
        d.hit(b, 6);
        assert_eq!(d.state(), "T1=[] T2=[2 1] B1=[] B2=[] p=1", "δ1 = max(0/1, 1) read with the ghost");
        d.table.check();
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
        fn new(c: usize) -> Fig4 {
            Fig4 {
                c,
                p: 0.0,
                t1: VecDeque::new(),
                t2: VecDeque::new(),
                b1: VecDeque::new(),
                b2: VecDeque::new(),
            }
        }

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
            let mut model = Fig4::new(capacity as usize);
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
                for l in [list::B1, list::B2] {
                    for node in arc.links.iter(&arc.lists[l as usize - 1]) {
                        let key = cache.table().key(node);
                        prop_assert!(!cache.contains(key), "key {} both resident and a ghost", key);
                    }
                }
                prop_assert!(arc.len_of(list::B1) + arc.len_of(list::B2) <= capacity);
                cache.table().check();
            }
        }
    }
}
