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
//! The miss is split over the [`Replacement`] protocol's hooks: `on_miss` takes the key from A1out (the
//! paper's "X is in A1out" test) and returns the answer as the page's [`History`]; `evict` is
//! `reclaimfor`; `on_insert` puts the page on Am or A1in by that answer. The answer travels with the page,
//! so a buffer cache that takes frames for several pages before any arrives puts each where the paper does.
//!
//! Prefetched pages (`Access::prefetch`): a readahead page has not been referenced, so it enters A1in as a
//! page seen once would, and its first use is that first reference: nothing moves (a hit in A1in does
//! nothing). If its key was in A1out, the key leaves A1out when the readahead brings the page back, and the
//! page's first use is the reference that finds it there: the page moves to Am's head. A prefetched page
//! that leaves A1in before any use is not remembered in A1out: it was never referenced.
//!
//! Layout: A1out's keys are the driver's shadow entries ([`Shadows`]): a page evicted from A1in keeps its
//! id as its A1out entry. The three lists thread the table's `c + Kout` ids through one [`Links`] arena.
//! Steady state is allocation-free.

use super::{format_keys, Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

/// 2Q's meanings of [`History`].
mod hist {
    /// A demand reference whose key was in A1out: the page goes to Am.
    pub const A1OUT: u8 = 1;
    /// A readahead page whose key was in A1out: its first use moves it to Am.
    pub const A1OUT_DEFERRED: u8 = 2;
}

/// Where a resident page is, by frame.
mod place {
    /// A1in, referenced.
    pub const A1IN: u8 = 0;
    pub const AM: u8 = 1;
    /// A1in, prefetched and not yet used.
    pub const A1IN_UNUSED: u8 = 2;
    /// A1in, prefetched and not yet used, its key found in A1out when it came back.
    pub const A1IN_UNUSED_A1OUT: u8 = 3;
}

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
    /// By frame: [`place`].
    place: Vec<u8>,
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
            place: vec![place::A1IN; ids as usize],
        }
    }

    /// `(Kin, Kout)`.
    pub fn sizes(&self) -> (u32, u32) {
        (self.kin, self.kout)
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

    /// The paper's "X is in A1out" test: the key leaves A1out (before `reclaimfor`, see the module doc).
    #[inline]
    fn on_miss(&mut self, access: &Access, shadows: &mut Shadows<'_>) -> History {
        let Some(node) = shadows.take(access.key) else {
            return History::NONE;
        };
        self.links.remove(&mut self.a1out, node);
        History(if access.prefetch { hist::A1OUT_DEFERRED } else { hist::A1OUT })
    }

    /// A key found in A1out goes to the head of Am, any other (and any prefetched page) to the head of
    /// A1in.
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, history: History, shadows: &mut Shadows<'_>) {
        assert!(self.len() < self.capacity, "insert into a full 2Q");
        let p = match (access.prefetch, history.0) {
            (false, hist::A1OUT) => place::AM,
            (false, _) => place::A1IN,
            (true, hist::A1OUT_DEFERRED) => place::A1IN_UNUSED_A1OUT,
            (true, _) => place::A1IN_UNUSED,
        };
        self.place[frame as usize] = p;
        let list = if p == place::AM { &mut self.am } else { &mut self.a1in };
        self.links.push_front(list, frame);
        self.check(shadows);
    }

    /// Am: move to the head. A1in: nothing (a correlated reference), except the first use of a prefetched
    /// page whose key was in A1out, which goes to Am's head.
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        let f = frame as usize;
        match self.place[f] {
            place::AM => self.links.move_to_front(&mut self.am, frame),
            place::A1IN => {}
            place::A1IN_UNUSED => self.place[f] = place::A1IN,
            _ => {
                self.place[f] = place::AM;
                self.links.remove(&mut self.a1in, frame);
                self.links.push_front(&mut self.am, frame);
            }
        }
    }

    /// The paper's `reclaimfor`: A1in's tail (its key to A1out, if it was ever referenced) while A1in holds
    /// more than `Kin` pages, else Am's tail.
    #[inline]
    fn evict(&mut self, _: History, shadows: &mut Shadows<'_>) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty 2Q");
        let victim = if self.a1in.len() > self.kin || self.am.is_empty() {
            let y =
                self.links.pop_back(&mut self.a1in).expect("A1in above Kin, or Am empty, so A1in non-empty");
            if self.place[y as usize] == place::A1IN {
                self.remember(y, shadows);
            }
            y
        } else {
            self.links.pop_back(&mut self.am).expect("Am non-empty")
        };
        self.place[victim as usize] = place::A1IN;
        self.check(shadows);
        victim
    }

    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        let list = if self.place[frame as usize] == place::AM { &mut self.am } else { &mut self.a1in };
        self.links.remove(list, frame);
        self.place[frame as usize] = place::A1IN;
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
        // Two evictions before an insertion: A1in is above Kin, then Am is empty.
        assert_eq!(d.evict(History::NONE), 0);
        assert_eq!(d.state(), "A1in=[2] Am=[] A1out=[1]");
        assert_eq!(d.evict(History::NONE), 1);
        assert_eq!(d.state(), "A1in=[] Am=[] A1out=[2 1]");
        // The evicted pages keep their ids as A1out entries: 9 takes the one free id.
        assert_eq!(d.insert(9, 3), 2);
        assert_eq!(d.state(), "A1in=[9] Am=[] A1out=[2 1]");
        // 1 leaves A1out at its `on_miss`, before the eviction pushes 9's key, and lands in Am, in the id
        // its A1out entry freed.
        let h1 = d.policy.on_miss(&Access::demand(1, 4), &mut d.table.shadows());
        assert_eq!(d.state(), "A1in=[9] Am=[] A1out=[2]");
        assert_eq!(d.evict(h1), 2);
        assert_eq!(d.state(), "A1in=[] Am=[] A1out=[9 2]");
        let f1 = d.table.insert(1);
        d.arrive(f1, Access::demand(1, 4), h1);
        assert_eq!((f1, d.state().as_str()), (0, "A1in=[] Am=[1] A1out=[9 2]"));
        d.table.check();
    }

    /// The buffer cache's order (issue #10's reproduction with four frames, Kin = 1, Kout = 2): frames for
    /// two pages are taken before either arrives. 1 was in A1out, so it must reach Am; a one-slot note of
    /// the incoming key would have named 5 by then and put 1 in A1in. The end state is the paper's for the
    /// references 1 then 5.
    #[test]
    fn pages_announced_together_keep_their_own_a1out_hits() {
        let mut d = Driver::new(TwoQ::new(4));
        for (t, k) in [1u64, 2, 3, 4].into_iter().enumerate() {
            d.insert(k, t as u64);
        }
        let h = d.policy.on_miss(&Access::demand(6, 4), &mut d.table.shadows());
        d.evict(h);
        let f6 = d.table.insert(6);
        d.arrive(f6, Access::demand(6, 4), h);
        assert_eq!(d.state(), "A1in=[6 4 3 2] Am=[] A1out=[1]");
        let h1 = d.policy.on_miss(&Access::demand(1, 5), &mut d.table.shadows());
        d.evict(h1);
        let f1 = d.table.insert(1);
        let h5 = d.policy.on_miss(&Access::demand(5, 6), &mut d.table.shadows());
        d.evict(h5);
        let f5 = d.table.insert(5);
        d.arrive(f1, Access::demand(1, 5), h1);
        d.arrive(f5, Access::demand(5, 6), h5);
        assert_eq!(d.state(), "A1in=[5 6 4] Am=[1] A1out=[3 2]");
        let mut paper = Paper::new(4, 1, 2);
        for k in [1, 2, 3, 4, 6, 1, 5] {
            paper.access(k);
        }
        assert_eq!(d.state(), paper.state());
        d.table.check();
    }

    /// A prefetched page enters A1in unreferenced: leaving unused, it is not remembered in A1out; its key
    /// found in A1out sends it to Am at its first use, not at its arrival.
    #[test]
    fn prefetched_pages_are_referenced_first_by_their_first_use() {
        let mut d = Driver::new(TwoQ::with_sizes(4, 1, 2));
        let a = d.insert_prefetched(1, 0);
        d.insert(2, 1);
        d.hit(a, 2);
        assert_eq!(d.state(), "A1in=[2 1] Am=[] A1out=[]", "the first use of 1 is a hit in A1in");
        d.insert_prefetched(3, 3);
        d.insert(4, 4);
        d.evict(History::NONE); // 1, used: remembered
        d.evict(History::NONE); // 2: remembered
        d.evict(History::NONE); // 3, never used: forgotten
        assert_eq!(d.state(), "A1in=[4] Am=[] A1out=[2 1]");
        let b = d.insert_prefetched(1, 5);
        assert_eq!(d.state(), "A1in=[1 4] Am=[] A1out=[2]", "readahead takes 1 out of A1out, not to Am");
        d.hit(b, 6);
        assert_eq!(d.state(), "A1in=[4] Am=[1] A1out=[2]", "its first use finds it was in A1out");
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
        fn new(c: usize, kin: usize, kout: usize) -> Paper {
            Paper { c, kin, kout, a1in: VecDeque::new(), am: VecDeque::new(), a1out: VecDeque::new() }
        }

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
            let mut model = Paper::new(capacity as usize, kin as usize, kout as usize);
            for (t, &k) in keys.iter().enumerate() {
                let hit = cache.access(&Access::demand(k, t as u64));
                prop_assert_eq!(hit, model.access(k), "step {} key {}", t, k);
                prop_assert_eq!(cache.state(), model.state(), "step {} key {}", t, k);
            }
        }
    }
}
