//! LIRS: Low Inter-reference Recency Set replacement.
//!
//! Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy to Improve Buffer
//! Cache Performance", SIGMETRICS 2002, §3. A page's inter-reference recency (IRR) is the number of other
//! pages referenced between its last two references. Pages of low IRR form the LIR set (at most Llirs
//! pages, always resident); all others are HIR, and only Lhirs of them are resident. As in the paper's
//! experiments, Lhirs is 1 % of the cache (at least one page) and Llirs the rest.
//!
//! Two structures carry the state:
//! - stack S: the LIR pages and the HIR pages (resident or not) referenced more recently than the least
//!   recent LIR page, in recency order. *Stack pruning* removes the HIR entries at the bottom until an
//!   LIR page is there, so an HIR page found in S has a new IRR below the bottom LIR page's recency: the
//!   two swap status.
//! - list Q: the resident HIR pages, the replacement victims. The paper's "front of Q" (the victim) is
//!   the back of the list here; its "end of Q" is the list's front.
//!
//! A reference to page X is one of the paper's three cases:
//! 1. X is LIR (a hit): X moves to the top of S; pruning follows.
//! 2. X is resident HIR (a hit): X moves to the top of S. (a) If X was in S it becomes LIR and leaves Q,
//!    and the bottom LIR page becomes HIR at the end of Q ("demotion", then pruning). (b) Otherwise X
//!    stays HIR and moves to the end of Q.
//! 3. X is not resident (a miss): the page at the front of Q is evicted; if it was in S it stays there as
//!    a non-resident HIR entry. X goes to the top of S and, (a) if X had a non-resident entry in S, it
//!    becomes LIR (demotion and pruning follow), (b) otherwise it is HIR at the end of Q.
//!
//! While the LIR set is not full (the cache is warming up), a referenced page becomes LIR.
//!
//! Layout: the non-resident HIR entries are the driver's shadow entries ([`Shadows`]): a resident HIR page
//! in S that is evicted keeps its id, and so its place in S, as a non-resident entry. S, Q and the list of
//! non-resident entries thread the table's `3·capacity` ids (`capacity` pages and up to `2·capacity`
//! non-resident entries); S has one link arena, Q and the non-resident list share another.
//!
//! Where pagelab departs from the paper, and why:
//! - S is bounded: after each reference, while S holds more than 2 × capacity entries, the entry that
//!   became non-resident longest ago leaves S. The paper leaves S unbounded (a long scan of new pages
//!   would grow it by one entry per page, without limit); a bound keeps memory proportional to the cache
//!   and the policy allocation-free after construction. The bound and the order are libCacheSim's
//!   (`limitStack` over its `LRU_nh` list), so that its numbers stay comparable.
//! - Llirs = 0 (one frame, or [`Lirs::with_lhirs`]`(c, c)`): no page is ever LIR, so S, whose bottom
//!   must be LIR, stays empty, and Q alone is an LRU list. The paper assumes Llirs >= 1.
//! - `on_remove` (not in the paper; invalidation): the page leaves without a non-resident entry. An LIR
//!   page's departure leaves room in the LIR set, which the next referenced page fills (as in warm-up),
//!   and pruning follows. `evict` with Q empty (possible only after removals, when every resident page
//!   is LIR) demotes the bottom LIR page first and evicts it.
//!
//! The miss is split over the [`Replacement`] protocol's hooks: `on_miss` looks for the key's
//! non-resident entry in S, drops it and returns the answer as the page's [`History`] (case 3a or 3b);
//! `evict` takes the front of Q; `on_insert` makes the page LIR or HIR by that answer. The answer travels
//! with the page, so a buffer cache that takes frames for several pages before any arrives treats each as
//! the paper does, whatever pruning happens between.
//!
//! Prefetched pages (`Access::prefetch`): a readahead page has not been referenced, so it has no recency
//! and no IRR: it enters Q as a resident HIR page with no entry in S (S records references). Its first
//! use is its first reference: case 2 for a resident HIR page not in S (2b: an entry at the top of S, the
//! page to the end of Q; or LIR while the LIR set is not full). If its key had a non-resident entry in S
//! when the readahead brought it back, the entry goes then (a key is resident or a shadow, never both) and
//! the first use counts as case 3a, late: the page becomes LIR. A prefetched page evicted before any use
//! leaves no non-resident entry: it was never referenced.
//!
//! libCacheSim's `LIRS` (`LIRS.c`, as in the `libcachesim` Python package 0.3.5) has the same Lhirs
//! (⌊1 % · c⌋, at least 1), the same bound on S and the same rules but one: in case 2b (a hit to a
//! resident HIR page X that is not in S) its `hit_RD_HIRinQ` first demotes the bottom LIR page to Q as
//! in case 2a (`evictLIR`), evicting the page at the front of Q when Q is full, although X stays HIR. The
//! LIR set is then one page short, and the next new page becomes LIR without an eviction. (With
//! Lhirs = 1 the page evicted is X itself, which libCacheSim still counts as resident in S.) pagelab
//! follows the paper. An emulation of `LIRS.c` reproduces libCacheSim's miss counts to the request with
//! that step and pagelab's without it; on the LIRS, ARC P3 and CloudPhysics traces (36 trace × size
//! points, 100 to 100 000 pages) the two differ by at most 0.00042 in miss ratio, either way, and on
//! held-out real traces by up to 0.00099 (0.099 % of requests), the largest gap measured: that is the
//! documented bound, not the smaller figure of the traces this crate was developed on.

use super::{Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

/// What an id holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Status {
    Free = 0,
    /// Non-resident HIR entry: in S and in the non-resident list, a shadow entry of the driver's table.
    NonResident,
    /// In S, not in Q.
    Lir,
    /// Resident HIR page with an entry in S: in S and in Q.
    HirInStack,
    /// Resident HIR page whose S entry was pruned (or never made): in Q only.
    Hir,
    /// Resident page brought in by readahead and not yet used: in Q only, like [`Status::Hir`].
    Prefetched,
    /// Likewise, its key a non-resident entry in S when it came back: its first use is case 3a.
    PrefetchedInStack,
}

// SAFETY: a `u8`-represented enum whose zero discriminant is `Free`.
unsafe impl bytemuck::Zeroable for Status {}

/// LIRS's meanings of [`History`].
mod hist {
    /// A demand reference whose key was a non-resident entry in S (case 3a): the entry is gone.
    pub const IN_STACK: u8 = 1;
    /// A readahead page whose key was a non-resident entry in S: case 3a waits for its first use.
    pub const IN_STACK_DEFERRED: u8 = 2;
}

#[derive(Clone, Debug)]
pub struct Lirs {
    capacity: u32,
    /// Llirs: the size of the LIR set once the cache is warm.
    lir_max: u32,
    /// The bound on S's entries (see the module doc).
    stack_max: u32,
    stack_links: Links,
    /// Links of Q (resident HIR pages) and of `nonresident` (non-resident entries).
    queue_links: Links,
    /// Stack S, top at the front.
    stack: List,
    /// List Q, the paper's front (the victim) at the back.
    queue: List,
    /// Non-resident HIR entries, the most recently made non-resident at the front.
    nonresident: List,
    status: Vec<Status>,
    lir_len: u32,
}

impl Lirs {
    /// LIRS over `capacity` frames with the paper's Lhirs = 1 % of them (at least one).
    /// Caller guarantees `1 <= capacity <= u32::MAX / 3 - 1` (S's nodes are counted in `u32`).
    pub fn new(capacity: u32) -> Lirs {
        Lirs::with_lhirs(capacity, (capacity / 100).max(1))
    }

    /// LIRS with `lhirs` frames for resident HIR pages (a parameter in the paper; its experiments use 1 %).
    /// Caller guarantees `1 <= lhirs <= capacity <= u32::MAX / 3 - 1`.
    pub fn with_lhirs(capacity: u32, lhirs: u32) -> Lirs {
        assert!(capacity >= 1, "LIRS needs at least one frame");
        assert!(capacity < u32::MAX / 3, "LIRS supports at most {} frames", u32::MAX / 3 - 1);
        assert!((1..=capacity).contains(&lhirs), "Lhirs {lhirs} must be in 1..={capacity}");
        let stack_max = 2 * capacity;
        // An entry becomes non-resident only in place of a resident one in S, whose bottom is LIR, so at
        // most `stack_max - 1` of them exist at once.
        let nonresident_max = stack_max;
        let ids = capacity + nonresident_max;
        Lirs {
            capacity,
            lir_max: capacity - lhirs,
            stack_max,
            stack_links: Links::new(ids),
            queue_links: Links::new(ids),
            stack: List::new(),
            queue: List::new(),
            nonresident: List::new(),
            // Zeroed is `Free` (a large memory costs the ids a run uses: `crate::zeroed_vec`).
            status: crate::zeroed_vec(ids as usize),
            lir_len: 0,
        }
    }

    /// The evicted resident HIR page in `frame` keeps its id, and so its place in S, as a non-resident
    /// entry (a shadow).
    fn make_nonresident(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        assert!(!shadows.is_full(), "more non-resident entries than S can hold");
        shadows.keep(frame);
        self.status[frame as usize] = Status::NonResident;
        self.queue_links.push_front(&mut self.nonresident, frame);
    }

    /// Remove non-resident entry `node` from S and forget it.
    fn drop_nonresident(&mut self, node: u32, shadows: &mut Shadows<'_>) {
        debug_assert_eq!(self.status[node as usize], Status::NonResident);
        self.stack_links.remove(&mut self.stack, node);
        self.queue_links.remove(&mut self.nonresident, node);
        self.status[node as usize] = Status::Free;
        shadows.forget(node);
    }

    /// `frame`, in neither S nor Q, becomes LIR at the top of S; if that overfills the LIR set, the bottom
    /// LIR page is demoted.
    fn push_lir(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        self.status[frame as usize] = Status::Lir;
        self.lir_len += 1;
        self.stack_links.push_front(&mut self.stack, frame);
        if self.lir_len > self.lir_max {
            self.demote_bottom(shadows);
        }
        debug_assert!(self.lir_len <= self.lir_max, "LIR set over Llirs");
    }

    /// `frame`, in neither S nor Q, becomes resident HIR at the top of S and the end of Q. An empty S has
    /// no LIR page to measure recency against (only when Llirs is 0), so it stays empty.
    fn push_hir(&mut self, frame: FrameId) {
        self.queue_links.push_front(&mut self.queue, frame);
        self.push_hir_on_stack(frame);
    }

    fn push_hir_on_stack(&mut self, frame: FrameId) {
        if self.stack.is_empty() {
            self.status[frame as usize] = Status::Hir;
        } else {
            self.status[frame as usize] = Status::HirInStack;
            self.stack_links.push_front(&mut self.stack, frame);
        }
    }

    /// The LIR page at the bottom of S becomes HIR at the end of Q; pruning follows.
    fn demote_bottom(&mut self, shadows: &mut Shadows<'_>) {
        let bottom = self.stack_links.pop_back(&mut self.stack).expect("demotion needs an LIR page in S");
        assert_eq!(self.status[bottom as usize], Status::Lir, "the bottom of S must be an LIR page");
        self.status[bottom as usize] = Status::Hir;
        self.lir_len -= 1;
        self.queue_links.push_front(&mut self.queue, bottom);
        self.prune(shadows);
    }

    /// Stack pruning: remove HIR entries from the bottom of S until an LIR page is there. Resident HIR
    /// pages stay in Q; non-resident entries are forgotten.
    fn prune(&mut self, shadows: &mut Shadows<'_>) {
        for _ in 0..=self.stack.len() {
            let Some(bottom) = self.stack.back() else { return };
            match self.status[bottom as usize] {
                Status::NonResident => self.drop_nonresident(bottom, shadows),
                Status::Lir => return,
                Status::HirInStack => {
                    self.stack_links.remove(&mut self.stack, bottom);
                    self.status[bottom as usize] = Status::Hir;
                }
                s => unreachable!("frame {bottom} is {s:?} but in S"),
            }
        }
        unreachable!("pruning removed more entries than S holds");
    }

    /// Enforce the bound on S (see the module doc): the longest-non-resident entries leave first. Every
    /// reference adds at most one entry to S, so this drops at most one.
    fn limit_stack(&mut self, shadows: &mut Shadows<'_>) {
        let excess = self.stack.len().saturating_sub(self.stack_max);
        for _ in 0..excess {
            let oldest = self.nonresident.back().expect("S over its bound holds non-resident entries");
            self.drop_nonresident(oldest, shadows);
        }
        debug_assert!(self.stack.len() <= self.stack_max);
    }

    /// Full consistency check, O(capacity), with the driver's `table`; for tests.
    #[cfg(test)]
    fn check(&self, table: &FrameTable) {
        let ids = (self.capacity + self.stack_max) as usize;
        let (mut in_stack, mut in_queue, mut in_nonresident) =
            (vec![false; ids], vec![false; ids], vec![false; ids]);
        self.stack_links.iter(&self.stack).for_each(|n| in_stack[n as usize] = true);
        self.queue_links.iter(&self.queue).for_each(|n| in_queue[n as usize] = true);
        self.queue_links.iter(&self.nonresident).for_each(|n| in_nonresident[n as usize] = true);
        for f in 0..ids {
            let expected = match self.status[f] {
                Status::Free => (false, false, false),
                Status::NonResident => (true, false, true),
                Status::Lir => (true, false, false),
                Status::HirInStack => (true, true, false),
                Status::Hir | Status::Prefetched | Status::PrefetchedInStack => (false, true, false),
            };
            let got = (in_stack[f], in_queue[f], in_nonresident[f]);
            assert_eq!(got, expected, "id {f} is {:?}", self.status[f]);
        }
        let lir = self.status.iter().filter(|&&s| s == Status::Lir).count() as u32;
        assert_eq!(lir, self.lir_len, "LIR count");
        assert!(self.lir_len <= self.lir_max && self.len() <= self.capacity);
        assert!(self.stack.len() <= self.stack_max, "S over its bound");
        if let Some(bottom) = self.stack.back() {
            assert_eq!(self.status[bottom as usize], Status::Lir, "S's bottom not LIR");
        }
        assert_eq!(table.shadows_len(), self.nonresident.len(), "shadow entries and list disagree");
        table.check();
        for n in self.queue_links.iter(&self.nonresident) {
            let key = table.key(n);
            assert_eq!(table.shadow(key), Some(n), "non-resident key {key} not found");
        }
    }
}

impl Replacement for Lirs {
    const KEEPS_SHADOWS: bool = true;

    fn name(&self) -> &'static str {
        "LIRS"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    /// S's non-resident entries (see the bound in the module doc).
    fn shadow_slots(&self) -> u32 {
        self.stack_max
    }

    fn len(&self) -> u32 {
        self.lir_len + self.queue.len()
    }

    /// Case 3's test: whether the key has a non-resident entry in S, which goes now.
    #[inline]
    fn on_miss(&mut self, access: &Access, shadows: &mut Shadows<'_>) -> History {
        let Some(node) = shadows.get(access.key) else {
            return History::NONE;
        };
        self.drop_nonresident(node, shadows);
        History(if access.prefetch { hist::IN_STACK_DEFERRED } else { hist::IN_STACK })
    }

    /// Case 3: a miss (3a with a non-resident entry in S, else 3b). The victim was taken by `evict` (if
    /// the cache was full) before this. A prefetched page enters Q only.
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, history: History, shadows: &mut Shadows<'_>) {
        assert_eq!(self.status[frame as usize], Status::Free, "frame {frame} is not free");
        assert!(self.len() < self.capacity, "LIRS would hold more pages than frames");
        if access.prefetch {
            let in_stack = history.0 == hist::IN_STACK_DEFERRED;
            self.status[frame as usize] =
                if in_stack { Status::PrefetchedInStack } else { Status::Prefetched };
            self.queue_links.push_front(&mut self.queue, frame);
            return;
        }
        if history.0 == hist::IN_STACK {
            self.push_lir(frame, shadows); // 3a: re-referenced within the LIR set's recency.
        } else if self.lir_len < self.lir_max {
            self.push_lir(frame, shadows);
        } else {
            self.push_hir(frame); // 3b
        }
        self.limit_stack(shadows);
    }

    /// Cases 1 and 2: a hit; the first use of a prefetched page is its first reference.
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, shadows: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        match self.status[frame as usize] {
            Status::Lir => {
                self.stack_links.move_to_front(&mut self.stack, frame);
                self.prune(shadows); // does something only if `frame` was the bottom
            }
            Status::HirInStack => {
                // 2a
                self.queue_links.remove(&mut self.queue, frame);
                self.stack_links.remove(&mut self.stack, frame);
                self.push_lir(frame, shadows);
            }
            Status::PrefetchedInStack => {
                // 3a, at the first use of a page readahead brought back.
                self.queue_links.remove(&mut self.queue, frame);
                self.push_lir(frame, shadows);
            }
            Status::Hir | Status::Prefetched if self.lir_len < self.lir_max => {
                // Room in the LIR set (warm-up, or after `on_remove`).
                self.queue_links.remove(&mut self.queue, frame);
                self.push_lir(frame, shadows);
            }
            Status::Hir | Status::Prefetched => {
                // 2b
                self.queue_links.move_to_front(&mut self.queue, frame);
                self.push_hir_on_stack(frame);
            }
            s @ (Status::Free | Status::NonResident) => panic!("hit on frame {frame}, which is {s:?}"),
        }
        self.limit_stack(shadows);
    }

    /// The front of Q; if it is in S, its entry there becomes non-resident.
    #[inline]
    fn evict(&mut self, _: History, shadows: &mut Shadows<'_>) -> FrameId {
        assert!(self.len() > 0, "evict from an empty LIRS");
        if self.queue.is_empty() {
            self.demote_bottom(shadows);
        }
        let victim = self.queue_links.pop_back(&mut self.queue).expect("Q holds a page after demotion");
        match self.status[victim as usize] {
            Status::HirInStack => self.make_nonresident(victim, shadows),
            Status::Hir | Status::Prefetched | Status::PrefetchedInStack => {
                self.status[victim as usize] = Status::Free
            }
            s => unreachable!("frame {victim} is {s:?} but in Q"),
        }
        victim
    }

    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        match self.status[frame as usize] {
            Status::Lir => {
                self.stack_links.remove(&mut self.stack, frame);
                self.lir_len -= 1;
                self.prune(shadows);
            }
            Status::HirInStack => {
                // Never S's bottom (that is LIR), so S needs no pruning.
                self.stack_links.remove(&mut self.stack, frame);
                self.queue_links.remove(&mut self.queue, frame);
            }
            Status::Hir | Status::Prefetched | Status::PrefetchedInStack => {
                self.queue_links.remove(&mut self.queue, frame)
            }
            s @ (Status::Free | Status::NonResident) => panic!("removing frame {frame}, which is {s:?}"),
        }
        self.status[frame as usize] = Status::Free;
    }

    /// `"S=[5H 1L 4N 2L] Q=[5]"`: S from the top, each key marked `L` (LIR), `H` (resident HIR) or `N`
    /// (non-resident HIR); Q from its end (the most recent) to its front (the next victim), `+` marking a
    /// prefetched page not yet used.
    fn state(&self, table: &FrameTable) -> String {
        let stack: Vec<String> = self
            .stack_links
            .iter(&self.stack)
            .map(|n| {
                let mark = match self.status[n as usize] {
                    Status::NonResident => "N",
                    Status::Lir => "L",
                    _ => "H",
                };
                format!("{}{mark}", table.key(n))
            })
            .collect();
        let queue: Vec<String> = self
            .queue_links
            .iter(&self.queue)
            .map(|f| {
                let unused =
                    matches!(self.status[f as usize], Status::Prefetched | Status::PrefetchedInStack);
                format!("{}{}", table.key(f), if unused { "+" } else { "" })
            })
            .collect();
        format!("S=[{}] Q=[{}]", stack.join(" "), queue.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyedCache;
    use crate::policy::testing::{trace, Driver};
    use proptest::prelude::*;

    // The paper's example (§3, Table 1): blocks A..E are keys 1..5, the cache holds 3 pages (Llirs = 2,
    // Lhirs = 1). Table 1's references (A at 1, 6, 8; D at 2, 7; B at 3, 5; C at 4; E at 9) give at
    // virtual time 10 recencies 1, 3, 4, 2, 0 and IRRs 1, 1, inf, 3, inf: the LIR set is {A, B}, E is the
    // only resident HIR block, D (recency 2, below B's 3) is a non-resident HIR entry in S and C is not in
    // S. Replayed from an empty cache, warm-up would make the first two blocks (A, D) LIR instead, so a
    // 6-reference prefix reaches the paper's state, and each test then makes one of the paper's follow-up
    // accesses (B, E, D, C: one per case) from it. (The LIRS paper is not among papers/; its figure of S
    // and Q is reconstructed by hand.)
    const A: u64 = 1;
    const B: u64 = 2;
    const C: u64 = 3;
    const D: u64 = 4;
    const E: u64 = 5;

    fn paper_state_then(step: (u64, bool, &'static str)) {
        let mut steps = vec![
            (A, false, "S=[1L] Q=[]"),
            (B, false, "S=[2L 1L] Q=[]"),
            (A, true, "S=[1L 2L] Q=[]"),
            (D, false, "S=[4H 1L 2L] Q=[4]"), // LIR set full: a new block is HIR
            (A, true, "S=[1L 4H 2L] Q=[4]"),
            (E, false, "S=[5H 1L 4N 2L] Q=[5]"), // D, front of Q, is evicted but stays in S
        ];
        steps.push(step);
        trace(Lirs::new(3), &steps);
    }

    #[test]
    fn paper_lir_hit_at_the_bottom_prunes() {
        // B moves to the top; D, now at the bottom, is pruned; A (LIR) stops the pruning.
        paper_state_then((B, true, "S=[2L 5H 1L] Q=[5]"));
    }

    #[test]
    fn paper_resident_hir_hit_in_stack_becomes_lir() {
        // E becomes LIR and leaves Q; B, the bottom LIR, is demoted to Q; pruning removes D.
        paper_state_then((E, true, "S=[5L 1L] Q=[2]"));
    }

    #[test]
    fn paper_nonresident_hir_in_stack_becomes_lir() {
        // A miss: E (front of Q) is evicted and stays in S as non-resident; D becomes LIR; B is demoted.
        paper_state_then((D, false, "S=[4L 5N 1L] Q=[2]"));
    }

    #[test]
    fn paper_block_not_in_stack_stays_hir() {
        // A miss: E is evicted (non-resident in S); C enters as resident HIR.
        paper_state_then((C, false, "S=[3H 5N 1L 4N 2L] Q=[3]"));
    }

    #[test]
    fn resident_hir_outside_stack_stays_hir() {
        trace(
            Lirs::new(3),
            &[
                (1, false, "S=[1L] Q=[]"),
                (2, false, "S=[2L 1L] Q=[]"),
                (3, false, "S=[3H 2L 1L] Q=[3]"),
                (1, true, "S=[1L 3H 2L] Q=[3]"),
                (2, true, "S=[2L 1L] Q=[3]"), // 3 pruned from S, still resident in Q
                (3, true, "S=[3H 2L 1L] Q=[3]"), // case 2b: back on top of S, still HIR
                (3, true, "S=[3L 2L] Q=[1]"), // case 2a: now in S, so LIR; 1 demoted
                (4, false, "S=[4H 3L 2L] Q=[4]"), // 1 (not in S) evicted without a trace
                (1, false, "S=[1H 4N 3L 2L] Q=[1]"),
            ],
        );
    }

    #[test]
    fn resident_hir_hit_moves_to_the_end_of_q() {
        // Lhirs = 2, so Q's order decides the victim.
        trace(
            Lirs::with_lhirs(4, 2),
            &[
                (1, false, "S=[1L] Q=[]"),
                (2, false, "S=[2L 1L] Q=[]"),
                (3, false, "S=[3H 2L 1L] Q=[3]"),
                (4, false, "S=[4H 3H 2L 1L] Q=[4 3]"),
                (1, true, "S=[1L 4H 3H 2L] Q=[4 3]"),
                (2, true, "S=[2L 1L] Q=[4 3]"), // 3 and 4 pruned, still resident
                (3, true, "S=[3H 2L 1L] Q=[3 4]"), // case 2b: 3 leaves the front of Q
                (5, false, "S=[5H 3H 2L 1L] Q=[5 3]"), // so 4 is the victim (not in S: no trace)
                (4, false, "S=[4H 5H 3N 2L 1L] Q=[4 5]"),
            ],
        );
    }

    #[test]
    fn stack_bound_drops_the_oldest_nonresident_entry() {
        // 2 frames: Llirs = 1, Lhirs = 1, S holds at most 4 entries.
        trace(
            Lirs::new(2),
            &[
                (1, false, "S=[1L] Q=[]"),
                (2, false, "S=[2H 1L] Q=[2]"),
                (3, false, "S=[3H 2N 1L] Q=[3]"),
                (4, false, "S=[4H 3N 2N 1L] Q=[4]"),
                (5, false, "S=[5H 4N 3N 1L] Q=[5]"), // 5 entries: 2, non-resident longest, leaves
                (2, false, "S=[2H 5N 4N 1L] Q=[2]"), // so 2 is new again (HIR); 3 leaves
                // 4 is non-resident in S: LIR. 1 is demoted, and pruning empties S below 4.
                (4, false, "S=[4L] Q=[1]"),
                (1, true, "S=[1H 4L] Q=[1]"),
            ],
        );
    }

    #[test]
    fn one_frame_has_no_lir_set() {
        trace(
            Lirs::new(1),
            &[
                (1, false, "S=[] Q=[1]"),
                (1, true, "S=[] Q=[1]"),
                (2, false, "S=[] Q=[2]"),
                (1, false, "S=[] Q=[1]"),
            ],
        );
    }

    #[test]
    fn removal_leaves_room_in_the_lir_set() {
        let mut cache = KeyedCache::new(Lirs::new(3));
        for (t, k) in [1, 2, 3, 1, 2].into_iter().enumerate() {
            cache.access(&Access::demand(k, t as u64));
        }
        assert_eq!(cache.state(), "S=[2L 1L] Q=[3]", "3 was pruned from S");
        assert!(cache.remove(1)); // LIR: leaves no trace
        assert_eq!(cache.state(), "S=[2L] Q=[3]");
        cache.policy().check(cache.table());
        assert!(cache.access(&Access::demand(3, 5)), "resident");
        assert_eq!(cache.state(), "S=[3L 2L] Q=[]", "3 takes the free LIR slot instead of case 2b");
        assert!(!cache.access(&Access::demand(4, 6)), "4 is new; the LIR set is full again");
        assert_eq!(cache.state(), "S=[4H 3L 2L] Q=[4]");
        assert!(cache.remove(4)); // resident HIR in S: leaves S and Q
        assert!(cache.remove(2));
        assert_eq!(cache.state(), "S=[3L] Q=[]");
        assert!(cache.remove(3));
        assert_eq!((cache.state().as_str(), cache.len()), ("S=[] Q=[]", 0));
        cache.policy().check(cache.table());
    }

    #[test]
    fn evict_with_only_lir_pages_demotes_first() {
        let mut d = Driver::new(Lirs::new(4));
        for (t, key) in [10, 11, 12].into_iter().enumerate() {
            d.insert(key, t as u64);
        }
        assert_eq!(d.state(), "S=[12L 11L 10L] Q=[]");
        assert_eq!(d.evict(History::NONE), 0, "the bottom LIR page");
        assert_eq!((d.state().as_str(), d.policy.len()), ("S=[12L 11L] Q=[]", 2));
        d.policy.check(&d.table);
    }

    /// The buffer cache's order: a frame is taken for 3 (its non-resident entry in S found and dropped at
    /// `on_miss`) and hits on 2 and 1 prune S before 3 arrives. 3 still becomes LIR (case 3a, decided when
    /// it was referenced); looking for its entry only at insertion would find it pruned and make it HIR.
    #[test]
    fn a_page_in_flight_keeps_the_case_of_its_reference() {
        let mut d = Driver::new(Lirs::new(3));
        let (one, two) = (d.insert(1, 0), d.insert(2, 1));
        d.insert(3, 2);
        let h = d.policy.on_miss(&Access::demand(4, 3), &mut d.table.shadows());
        d.evict(h);
        let four = d.table.insert(4);
        d.arrive(four, Access::demand(4, 3), h);
        assert_eq!(d.state(), "S=[4H 3N 2L 1L] Q=[4]");
        let h3 = d.policy.on_miss(&Access::demand(3, 4), &mut d.table.shadows());
        d.evict(h3);
        let three = d.table.insert(3);
        assert_eq!(d.state(), "S=[4N 2L 1L] Q=[]");
        d.hit(two, 5);
        d.hit(one, 6);
        assert_eq!(d.state(), "S=[1L 2L] Q=[]", "pruning dropped 4's entry");
        d.arrive(three, Access::demand(3, 4), h3);
        assert_eq!(d.state(), "S=[3L 1L] Q=[2]", "3a: 3 is LIR, the bottom LIR page (2) demoted");
        d.policy.check(&d.table);
    }

    /// A prefetched page enters Q with no entry in S; its first use is its first reference; evicted unused
    /// it leaves no non-resident entry; brought back while its key was in S, its first use is case 3a.
    #[test]
    fn prefetched_pages_are_referenced_first_by_their_first_use() {
        let mut d = Driver::new(Lirs::new(3));
        let a = d.insert_prefetched(1, 0);
        assert_eq!(d.state(), "S=[] Q=[1+]");
        d.hit(a, 1);
        assert_eq!(d.state(), "S=[1L] Q=[]", "first use during warm-up: LIR");
        d.insert(2, 2);
        let c = d.insert_prefetched(3, 3);
        assert_eq!(d.state(), "S=[2L 1L] Q=[3+]");
        assert_eq!(d.evict(History::NONE), c);
        assert_eq!(d.state(), "S=[2L 1L] Q=[]", "never used: no non-resident entry");
        d.insert(4, 4);
        d.evict(History::NONE);
        assert_eq!(d.state(), "S=[4N 2L 1L] Q=[]");
        let b = d.insert_prefetched(4, 5);
        assert_eq!(d.state(), "S=[2L 1L] Q=[4+]", "the entry goes when readahead brings 4 back");
        d.hit(b, 6);
        assert_eq!(d.state(), "S=[4L 2L] Q=[1]", "its first use is case 3a");
        d.policy.check(&d.table);
    }

    /// A loop over more pages than frames: LRU misses every reference, LIRS keeps its LIR set resident
    /// and misses only the rest of the loop (the paper's motivating weakness of LRU).
    #[test]
    fn loop_larger_than_cache_keeps_the_lir_set() {
        let (capacity, pages, rounds) = (100u32, 150u64, 20u64);
        let mut cache = KeyedCache::new(Lirs::new(capacity));
        let mut t = 0;
        for _ in 0..rounds {
            for k in 0..pages {
                cache.access(&Access::demand(k, t));
                t += 1;
            }
        }
        let lir_max = capacity as u64 - 1;
        // Round 1 is all misses; afterwards each round hits at least the LIR set.
        assert!(cache.stats().hits >= (rounds - 1) * lir_max, "hits {}", cache.stats().hits);
        cache.policy().check(cache.table());
        let mut lru = KeyedCache::new(crate::policy::Lru::new(capacity));
        t = 0;
        for _ in 0..rounds {
            for k in 0..pages {
                lru.access(&Access::demand(k, t));
                t += 1;
            }
        }
        assert_eq!(lru.stats().hits, 0, "LRU thrashes on the same loop");
    }

    /// A plain reference model of the same algorithm (vectors and linear scans), to check the arena, the
    /// links and the non-resident index against.
    struct Model {
        capacity: usize,
        lir_max: usize,
        /// (key, mark), top first; mark is 'L', 'H' or 'N'.
        stack: Vec<(u64, char)>,
        /// End of Q first.
        queue: Vec<u64>,
        /// Most recently made non-resident first.
        nonresident: Vec<u64>,
    }

    impl Model {
        fn new(capacity: usize, lhirs: usize) -> Model {
            let lir_max = capacity - lhirs;
            Model { capacity, lir_max, stack: vec![], queue: vec![], nonresident: vec![] }
        }
        fn lir_len(&self) -> usize {
            self.stack.iter().filter(|e| e.1 == 'L').count()
        }
        fn take(&mut self, key: u64) -> Option<char> {
            let i = self.stack.iter().position(|e| e.0 == key)?;
            Some(self.stack.remove(i).1)
        }
        fn prune(&mut self) {
            while let Some(&(k, m)) = self.stack.last() {
                if m == 'L' {
                    break;
                }
                self.stack.pop();
                self.nonresident.retain(|&n| n != k);
            }
        }
        fn make_lir(&mut self, key: u64) {
            self.stack.insert(0, (key, 'L'));
            if self.lir_len() > self.lir_max {
                let (k, _) = self.stack.pop().unwrap();
                self.queue.insert(0, k);
                self.prune();
            }
        }
        fn make_hir(&mut self, key: u64) {
            if !self.stack.is_empty() {
                self.stack.insert(0, (key, 'H'));
            }
        }
        fn access(&mut self, key: u64) -> bool {
            let resident = self.queue.contains(&key) || self.stack.contains(&(key, 'L'));
            let mark = self.take(key);
            if resident {
                self.queue.retain(|&k| k != key);
                match mark {
                    Some('L') => {
                        self.stack.insert(0, (key, 'L'));
                        self.prune();
                    }
                    Some(_) => self.make_lir(key),
                    None => {
                        self.queue.insert(0, key);
                        self.make_hir(key);
                    }
                }
            } else {
                if self.queue.len() + self.lir_len() == self.capacity {
                    let victim = self.queue.pop().unwrap();
                    if let Some(e) = self.stack.iter_mut().find(|e| e.0 == victim) {
                        e.1 = 'N';
                        self.nonresident.insert(0, victim);
                    }
                }
                if mark == Some('N') {
                    self.nonresident.retain(|&n| n != key);
                    self.make_lir(key);
                } else if self.lir_len() < self.lir_max {
                    self.make_lir(key);
                } else {
                    self.queue.insert(0, key);
                    self.make_hir(key);
                }
            }
            while self.stack.len() > 2 * self.capacity {
                let oldest = self.nonresident.pop().unwrap();
                self.stack.retain(|e| e.0 != oldest);
            }
            resident
        }
        fn state(&self) -> String {
            let s: Vec<String> = self.stack.iter().map(|(k, m)| format!("{k}{m}")).collect();
            let q: Vec<String> = self.queue.iter().map(|k| k.to_string()).collect();
            format!("S=[{}] Q=[{}]", s.join(" "), q.join(" "))
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn agrees_with_the_reference_model_step_by_step(
            (capacity, lhirs) in (1u32..10).prop_flat_map(|c| (Just(c), 1..=c)),
            keys in proptest::collection::vec(0u64..24, 1..300),
        ) {
            let mut cache = KeyedCache::new(Lirs::with_lhirs(capacity, lhirs));
            let mut model = Model::new(capacity as usize, lhirs as usize);
            for (t, &k) in keys.iter().enumerate() {
                let hit = cache.access(&Access::demand(k, t as u64));
                prop_assert_eq!(hit, model.access(k), "step {} key {}", t, k);
                prop_assert_eq!(cache.state(), model.state(), "step {} key {}", t, k);
                cache.policy().check(cache.table());
            }
        }

        #[test]
        fn invariants_hold_under_removals(
            capacity in 1u32..9,
            ops in proptest::collection::vec((0u64..20, proptest::bool::weighted(0.15)), 1..300),
        ) {
            let mut cache = KeyedCache::new(Lirs::new(capacity));
            for (t, &(k, remove)) in ops.iter().enumerate() {
                if remove {
                    let was = cache.contains(k);
                    prop_assert_eq!(cache.remove(k), was);
                } else {
                    cache.access(&Access::demand(k, t as u64));
                }
                cache.policy().check(cache.table());
                prop_assert_eq!(cache.len(), cache.policy().len());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        /// Lhirs > 1 (capacity >= 200): Q's order matters.
        #[test]
        fn agrees_with_the_reference_model_with_a_longer_queue(
            capacity in 200u32..420,
            keys in proptest::collection::vec(0u64..600, 1..2000),
        ) {
            let mut cache = KeyedCache::new(Lirs::new(capacity));
            let mut model = Model::new(capacity as usize, (capacity / 100).max(1) as usize);
            for (t, &k) in keys.iter().enumerate() {
                let hit = cache.access(&Access::demand(k, t as u64));
                prop_assert_eq!(hit, model.access(k), "step {} key {}", t, k);
            }
            prop_assert_eq!(cache.state(), model.state());
            cache.policy().check(cache.table());
        }
    }
}
