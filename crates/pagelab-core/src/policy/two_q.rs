//! 2Q: the full version, with A1in, A1out and Am.
//!
//! Johnson & Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement Algorithm",
//! VLDB 1994, §2, the full version of the algorithm (not the simplified 2Q with a resident A1).
//!
//! A page seen once enters A1in, a FIFO of resident pages; a hit there does nothing, because a burst of
//! correlated references should not make a page hot. When A1in holds more than `Kin` pages, its oldest
//! page leaves the cache and its key goes to A1out, a FIFO of at most `Kout` keys. A miss on a key still
//! in A1out shows a reference spaced further apart than a correlated burst: the page goes to Am, an LRU
//! of hot pages. Otherwise the page that leaves is Am's LRU page, and its key is not kept (it has not
//! been referenced for a while, so it is not worth remembering).
//!
//! Defaults: `Kin = c/4` and `Kout = c/2` (rounded down): the setting the paper recommends after tuning,
//! A1in a quarter of the page slots and A1out the identifiers of as many pages as half the buffer holds.
//! libCacheSim's `TwoQ.c` uses the same defaults and rounding (`Ain-size-ratio=0.25,Aout-size-ratio=0.5`,
//! truncated to integers).
//!
//! Where pagelab departs from the paper's pseudocode, and why:
//! - The paper's "X is in A1out" branch runs `reclaimfor(X)` and moves X to Am without saying when X's key
//!   leaves A1out. pagelab drops it before `reclaimfor`, so that the key pushed by `reclaimfor` never
//!   evicts an extra key while X's own (about to become resident) still counts. libCacheSim does the same
//!   (`TwoQ_find` removes the ghost before `TwoQ_evict` runs).
//! - `reclaimfor` takes from A1in also when Am is empty (only possible when `evict` is called before the
//!   cache is full, which the paper's demand cache never does).
//! - Removal (`on_remove`) leaves no key in A1out, as it is not a replacement.
//!
//! Layout: A1out's keys are the driver's shadow entries ([`Shadows`]): a page evicted from A1in keeps its
//! id as its A1out entry. The three lists thread the table's `c + Kout` ids through one [`Links`] arena.
//! Steady state is allocation-free.

use super::{format_keys, Access, FrameId, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

#[derive(Clone, Debug)]
pub struct TwoQ {
    capacity: u32,
    /// The paper's `Kin`: A1in may exceed it only until the next replacement.
    kin: u32,
    /// The paper's `Kout`: A1out never holds more keys.
    kout: u32,
    links: Links,
    a1in: List,
    am: List,
    a1out: List,
    /// By id: the page is on Am (else A1in, or an A1out entry).
    in_am: Vec<bool>,
    /// `(key, was in A1out)` of the reference the last `evict` made room for, so that `on_insert` does not
    /// look the key up again.
    pending: Option<(u64, bool)>,
}

impl TwoQ {
    /// 2Q with the paper's defaults, `Kin = c/4`, `Kout = c/2`.
    pub fn new(capacity: u32) -> TwoQ {
        TwoQ::with_sizes(capacity, capacity / 4, capacity / 2)
    }

    /// 2Q with explicit `kin` (A1in pages) and `kout` (A1out keys). Caller guarantees `kin < capacity`,
    /// so that Am is never starved of room.
    pub fn with_sizes(capacity: u32, kin: u32, kout: u32) -> TwoQ {
        assert!(capacity >= 1, "2Q needs at least one frame");
        assert!(kin < capacity, "Kin ({kin}) must be below the capacity ({capacity})");
        let ids = capacity.checked_add(kout).expect("capacity + Kout overflows u32");
        TwoQ {
            capacity,
            kin,
            kout,
            links: Links::new(ids),
            a1in: List::new(),
            am: List::new(),
            a1out: List::new(),
            in_am: vec![false; ids as usize],
            pending: None,
        }
    }

    /// `(Kin, Kout)`.
    pub fn sizes(&self) -> (u32, u32) {
        (self.kin, self.kout)
    }

    /// Whether `key` was in A1out; drops it from there (one probe).
    fn take_from_a1out(&mut self, key: u64, shadows: &mut Shadows<'_>) -> bool {
        match shadows.take(key) {
            Some(node) => {
                self.links.remove(&mut self.a1out, node);
                true
            }
            None => false,
        }
    }

    /// Remember the key of the A1in page in `frame`, being evicted, at the head of A1out, dropping A1out's
    /// tail key if full.
    fn remember(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        if self.kout == 0 {
            return;
        }
        if self.a1out.len() == self.kout {
            let node = self.links.pop_back(&mut self.a1out).expect("A1out full, so non-empty");
            shadows.forget(node);
        }
        let node = shadows.keep(frame);
        self.links.push_front(&mut self.a1out, node);
    }

    fn check(&self, shadows: &Shadows<'_>) {
        assert!(self.a1in.len() + self.am.len() <= self.capacity, "more than c resident pages");
        assert!(self.a1out.len() <= self.kout, "A1out holds more than Kout keys");
        assert_eq!(self.a1out.len(), shadows.len(), "A1out list and shadow entries disagree");
    }
}

impl Replacement for TwoQ {
    const KEEPS_SHADOWS: bool = true;

    fn name(&self) -> &'static str {
        "2Q"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    /// A1out's `Kout` keys.
    fn shadow_slots(&self) -> u32 {
        self.kout
    }

    fn len(&self) -> u32 {
        self.a1in.len() + self.am.len()
    }

    /// A key found in A1out goes to the head of Am, any other to the head of A1in. The A1out lookup runs
    /// here only when no `evict` for this reference preceded.
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, shadows: &mut Shadows<'_>) {
        let key = access.key;
        let to_am = match self.pending.take() {
            Some((k, was_ghost)) if k == key => was_ghost,
            _ => self.take_from_a1out(key, shadows),
        };
        assert!(self.len() < self.capacity, "insert into a full 2Q");
        self.in_am[frame as usize] = to_am;
        let list = if to_am { &mut self.am } else { &mut self.a1in };
        self.links.push_front(list, frame);
        self.check(shadows);
    }

    /// Am: move to the head. A1in: nothing (a correlated reference).
    #[inline]
    fn on_hit(&mut self, frame: FrameId, _: &Access, _: &mut Shadows<'_>) {
        if self.in_am[frame as usize] {
            self.links.move_to_front(&mut self.am, frame);
        }
    }

    /// The paper's `reclaimfor`: A1in's tail (its key to A1out) while A1in holds more than `Kin` pages,
    /// else Am's tail. First drops `incoming.key` from A1out, once per reference.
    #[inline]
    fn evict(&mut self, incoming: &Access, shadows: &mut Shadows<'_>) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty 2Q");
        let key = incoming.key;
        let was_ghost = match self.pending {
            Some((k, was_ghost)) if k == key => was_ghost,
            _ => self.take_from_a1out(key, shadows),
        };
        self.pending = Some((key, was_ghost));
        let victim = if self.a1in.len() > self.kin || self.am.is_empty() {
            let y =
                self.links.pop_back(&mut self.a1in).expect("A1in above Kin, or Am empty, so A1in non-empty");
            self.remember(y, shadows);
            y
        } else {
            self.links.pop_back(&mut self.am).expect("Am non-empty")
        };
        assert_ne!(shadows.key(victim), incoming.key, "evict called for a resident key");
        self.check(shadows);
        victim
    }

    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        let list = if self.in_am[frame as usize] { &mut self.am } else { &mut self.a1in };
        self.links.remove(list, frame);
        self.check(shadows);
    }

    /// `"A1in=[..] Am=[..] A1out=[..]"`, each head (newest) first.
    fn state(&self, table: &FrameTable) -> String {
        format!(
            "A1in={} Am={} A1out={}",
            format_keys(self.links.iter(&self.a1in), table),
            format_keys(self.links.iter(&self.am), table),
            format_keys(self.links.iter(&self.a1out), table)
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
    fn default_sizes_are_the_papers_quarter_and_half() {
        assert_eq!(TwoQ::new(100).sizes(), (25, 50));
        assert_eq!(TwoQ::new(7).sizes(), (1, 3));
        assert_eq!(TwoQ::new(1).sizes(), (0, 0));
    }

    #[test]
    #[should_panic(expected = "must be below the capacity")]
    fn kin_must_leave_room_for_am() {
        TwoQ::with_sizes(4, 4, 2);
    }

    /// c = 4: Kin = 1, Kout = 2.
    #[test]
    fn hand_traced() {
        trace(
            TwoQ::new(4),
            &[
                (1, false, "A1in=[1] Am=[] A1out=[]"),
                (2, false, "A1in=[2 1] Am=[] A1out=[]"),
                (3, false, "A1in=[3 2 1] Am=[] A1out=[]"),
                // A hit in A1in changes nothing.
                (1, true, "A1in=[3 2 1] Am=[] A1out=[]"),
                (4, false, "A1in=[4 3 2 1] Am=[] A1out=[]"),
                // |A1in| = 4 > Kin: A1in's tail goes, its key to A1out.
                (5, false, "A1in=[5 4 3 2] Am=[] A1out=[1]"),
                (6, false, "A1in=[6 5 4 3] Am=[] A1out=[2 1]"),
                // A1out hit: 1 leaves A1out first, reclaimfor pages out 3, and 1 goes to Am.
                (1, false, "A1in=[6 5 4] Am=[1] A1out=[3 2]"),
                // A1out is full (Kout = 2): adding 4 drops its tail, 2.
                (7, false, "A1in=[7 6 5] Am=[1] A1out=[4 3]"),
                (3, false, "A1in=[7 6] Am=[3 1] A1out=[5 4]"),
                // A hit in Am moves the page to Am's head.
                (1, true, "A1in=[7 6] Am=[1 3] A1out=[5 4]"),
                (8, false, "A1in=[8 7] Am=[1 3] A1out=[6 5]"),
                (9, false, "A1in=[9 8] Am=[1 3] A1out=[7 6]"),
                (6, false, "A1in=[9] Am=[6 1 3] A1out=[8 7]"),
                // |A1in| = Kin: Am's LRU (3) goes, and its key is not remembered.
                (10, false, "A1in=[10 9] Am=[6 1] A1out=[8 7]"),
                // 3 is in no queue: a plain miss into A1in.
                (3, false, "A1in=[3 10] Am=[6 1] A1out=[9 8]"),
            ],
        );
    }

    #[test]
    fn removal_and_early_eviction_leave_no_stale_state() {
        let mut d = Driver::new(TwoQ::with_sizes(3, 1, 2));
        for (t, k) in [1u64, 2, 3].into_iter().enumerate() {
            assert_eq!(d.insert(k, t as u64), t as u32);
        }
        d.remove(2);
        assert_eq!(d.state(), "A1in=[2 1] Am=[] A1out=[]", "a removed page leaves no key in A1out");
        // Two evictions for one reference (9) before its insertion: A1in is above Kin, then Am is empty.
        assert_eq!(d.evict(9, 3), 0);
        assert_eq!(d.state(), "A1in=[2] Am=[] A1out=[1]");
        assert_eq!(d.evict(9, 3), 1);
        assert_eq!(d.state(), "A1in=[] Am=[] A1out=[2 1]");
        // The evicted pages keep their ids as A1out entries: 9 takes the one free id.
        assert_eq!(d.insert(9, 3), 2);
        assert_eq!(d.state(), "A1in=[9] Am=[] A1out=[2 1]");
        // 1 leaves A1out when its eviction runs, before 9's key is pushed, and lands in Am, in the id 1's
        // A1out entry freed.
        assert_eq!(d.evict(1, 4), 2);
        assert_eq!(d.state(), "A1in=[] Am=[] A1out=[9 2]");
        assert_eq!(d.insert(1, 4), 0);
        assert_eq!(d.state(), "A1in=[] Am=[1] A1out=[9 2]");
        d.table.check();
    }

    /// The paper's full-version pseudocode over `VecDeque`s of keys (front = head), X leaving A1out before
    /// `reclaimfor(X)`.
    struct Paper {
        c: usize,
        kin: usize,
        kout: usize,
        a1in: VecDeque<u64>,
        am: VecDeque<u64>,
        a1out: VecDeque<u64>,
    }

    impl Paper {
        fn reclaimfor(&mut self) {
            if self.a1in.len() + self.am.len() < self.c {
                return;
            }
            if self.a1in.len() > self.kin {
                let y = self.a1in.pop_back().unwrap();
                self.a1out.push_front(y);
                if self.a1out.len() > self.kout {
                    self.a1out.pop_back();
                }
            } else {
                self.am.pop_back().expect("Am holds c - |A1in| > 0 pages");
            }
        }

        fn access(&mut self, x: u64) -> bool {
            if let Some(i) = self.am.iter().position(|&k| k == x) {
                self.am.remove(i);
                self.am.push_front(x);
                true
            } else if let Some(i) = self.a1out.iter().position(|&k| k == x) {
                self.a1out.remove(i);
                self.reclaimfor();
                self.am.push_front(x);
                false
            } else if self.a1in.contains(&x) {
                true
            } else {
                self.reclaimfor();
                self.a1in.push_front(x);
                false
            }
        }

        fn state(&self) -> String {
            let show = |l: &VecDeque<u64>| {
                format!("[{}]", l.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" "))
            };
            format!("A1in={} Am={} A1out={}", show(&self.a1in), show(&self.am), show(&self.a1out))
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn agrees_with_the_papers_pseudocode_step_by_step(
            capacity in 2u32..12,
            kin_pct in 0u32..100,
            kout in 0u32..8,
            keys in proptest::collection::vec(0u64..24, 0..300),
        ) {
            let kin = (capacity - 1) * kin_pct / 100;
            let mut cache = KeyedCache::new(TwoQ::with_sizes(capacity, kin, kout));
            let mut model = Paper {
                c: capacity as usize, kin: kin as usize, kout: kout as usize,
                a1in: VecDeque::new(), am: VecDeque::new(), a1out: VecDeque::new(),
            };
            for (t, &k) in keys.iter().enumerate() {
                let hit = cache.access(&Access::demand(k, t as u64));
                prop_assert_eq!(hit, model.access(k), "step {} key {}", t, k);
                prop_assert_eq!(cache.state(), model.state(), "step {} key {}", t, k);
            }
        }
    }
}
