//! CLOCK: the page frames in a ring, one reference bit per page, and a hand that gives a second chance.
//!
//! Corbató, "A Paging Experiment with the Multics System", 1968; the one-bit CLOCK that Li & Shen
//! (papers/000, ref. [27]) and Jiang et al. (papers/001, DULO is "built on CLOCK") take as the practical
//! LRU approximation. A hit sets the page's bit. To evict, the hand looks at the frame it points to: a set
//! bit is cleared and the hand moves on (the page's second chance); a clear bit is the victim, and the hand
//! moves past it. New pages enter with the bit clear.
//!
//! The ring is the frames themselves, in frame order, as in the paper's machine: a page sits in the ring
//! where its frame is, and the hand skips frames the policy does not track (free, or holding a page still
//! under I/O). Evicting costs a scan of one byte per frame passed, never a list operation.
//!
//! libCacheSim's `Clock` keeps a FIFO list instead and moves a referenced page from the tail to the head.
//! In a demand cache the two are the same policy, reference for reference: the frame freed at the hand is
//! the frame the next page is placed in (the frame table hands out the most recently freed frame first),
//! so the new page lands just behind the hand, which is the list's head. The libCacheSim agreement tests
//! check this on five real traces. They part only in the simulated server, where a page can be dropped
//! (`on_remove`) or reach the policy when its I/O completes, after the hand has moved on: there the page
//! takes its frame's place in the ring, as in a real CLOCK, not the head of a list.
//!
//! Prefetched pages: a demanded page enters with its bit clear (the reference that brought it in is not
//! counted, as in libCacheSim), so a readahead page must enter below that: it is marked prefetched, the
//! hand takes it like a clear page, and its first use makes it an ordinary page with a clear bit (that
//! use is its first reference, the one a demanded page had at its miss). Only a second use sets the bit.
//! A readahead that meets a resident page (`on_hit` with `prefetch`) is not a reference.

use super::{Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};

/// A frame the policy does not track (free, or its page not yet inserted).
const UNTRACKED: u8 = 0;
/// A tracked page whose reference bit is clear.
const CLEAR: u8 = 1;
/// A tracked page whose reference bit is set.
const REFERENCED: u8 = 2;
/// A tracked page brought in by readahead and not yet used: evictable as [`CLEAR`]; its first use makes
/// it [`CLEAR`].
const PREFETCHED: u8 = 3;

#[derive(Clone, Debug)]
pub struct Clock {
    /// By frame: [`UNTRACKED`], [`CLEAR`], [`REFERENCED`] or [`PREFETCHED`].
    bits: Vec<u8>,
    /// The frame the hand points to: the next one it examines.
    hand: u32,
    len: u32,
    /// Referenced pages the hand passed (cleared) in all evictions: the scan beyond the victims.
    passed: u64,
}

impl Clock {
    pub fn new(capacity: u32) -> Clock {
        assert!(capacity >= 1, "CLOCK needs at least one frame");
        Clock { bits: vec![UNTRACKED; capacity as usize], hand: 0, len: 0, passed: 0 }
    }

    fn capacity_frames(&self) -> u32 {
        self.bits.len() as u32
    }

    /// Tracked frames in the order the hand will reach them, last first: the frame just behind the hand
    /// (the newest page, in list terms the head) down to the hand itself.
    fn newest_first(&self) -> impl Iterator<Item = FrameId> + '_ {
        let n = self.capacity_frames();
        (1..=n).map(move |back| (self.hand + n - back) % n).filter(|&f| self.bits[f as usize] != UNTRACKED)
    }
}

impl Replacement for Clock {
    fn name(&self) -> &'static str {
        "CLOCK"
    }
    fn capacity(&self) -> u32 {
        self.capacity_frames()
    }
    fn len(&self) -> u32 {
        self.len
    }
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        let bit = &mut self.bits[frame as usize];
        assert_eq!(*bit, UNTRACKED, "frame {frame} inserted twice");
        *bit = if access.prefetch { PREFETCHED } else { CLEAR };
        self.len += 1;
    }
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        let bit = &mut self.bits[frame as usize];
        debug_assert_ne!(*bit, UNTRACKED, "hit on untracked frame {frame}");
        if access.prefetch {
            return;
        }
        *bit = if *bit == PREFETCHED { CLEAR } else { REFERENCED };
    }
    #[inline]
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        assert!(self.len > 0, "evict from an empty CLOCK");
        let n = self.capacity_frames();
        // The first lap clears every set bit it passes, so the second lap stops at the latest: 2n steps.
        for _ in 0..2 * n {
            let frame = self.hand;
            self.hand = if frame + 1 == n { 0 } else { frame + 1 };
            let bit = &mut self.bits[frame as usize];
            match *bit {
                CLEAR | PREFETCHED => {
                    *bit = UNTRACKED;
                    self.len -= 1;
                    return frame;
                }
                REFERENCED => {
                    *bit = CLEAR;
                    self.passed += 1;
                }
                _ => {}
            }
        }
        unreachable!("CLOCK hand went round twice without finding a clear bit");
    }
    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        let bit = &mut self.bits[frame as usize];
        assert_ne!(*bit, UNTRACKED, "removing untracked frame {frame}");
        *bit = UNTRACKED;
        self.len -= 1;
    }
    fn pages_scanned(&self) -> u64 {
        self.passed
    }
    /// Pages newest first (the hand's next victim candidate last), `*` on a set reference bit, `+` on a
    /// prefetched page not yet used.
    fn state(&self, table: &FrameTable) -> String {
        let marked = self.newest_first().map(|f| {
            let star = match self.bits[f as usize] {
                REFERENCED => "*",
                PREFETCHED => "+",
                _ => "",
            };
            format!("{}{star}", table.key(f))
        });
        format!("[{}]", marked.collect::<Vec<_>>().join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::{trace, Driver};

    /// `*` marks a set reference bit.
    #[test]
    fn hand_traced() {
        trace(
            Clock::new(3),
            &[
                (1, false, "[1]"),
                (2, false, "[2 1]"),
                (3, false, "[3 2 1]"),
                (1, true, "[3 2 1*]"),
                (2, true, "[3 2* 1*]"),
                // Hand: 1* -> cleared, round again; 2* -> cleared; 3 clear -> victim.
                (4, false, "[4 2 1]"),
                (1, true, "[4 2 1*]"),
                // Hand: 1* -> cleared; 2 clear -> victim.
                (5, false, "[5 1 4]"),
            ],
        );
    }

    #[test]
    fn all_referenced_degenerates_to_fifo() {
        trace(
            Clock::new(2),
            &[
                (1, false, "[1]"),
                (2, false, "[2 1]"),
                (1, true, "[2 1*]"),
                (2, true, "[2* 1*]"),
                (3, false, "[3 2]"),
            ],
        );
    }

    /// The simulated server's paths: a page removed leaves a hole the hand skips, a frame whose page is
    /// under I/O is skipped too, and that page, inserted after the hand has moved on, takes its frame's
    /// place in the ring (a list CLOCK would put it at the head, after 30: `[21 30 20 13]`).
    #[test]
    fn holes_are_skipped_and_late_pages_keep_their_frame() {
        let mut d = Driver::new(Clock::new(4));
        for (t, key) in [10, 11, 12, 13].into_iter().enumerate() {
            assert_eq!(d.insert(key, t as u64), t as u32);
        }
        assert_eq!(d.state(), "[13 12 11 10]");
        d.remove(1);
        let late = d.table.insert(21); // frame 1, its I/O in flight: not yet in the policy
        assert_eq!((late, d.state().as_str()), (1, "[13 12 10]"));
        assert_eq!(d.evict(History::NONE), 0, "10 is clear: the victim");
        assert_eq!(d.insert(20, 5), 0);
        assert_eq!(d.evict(History::NONE), 2, "the hand skips frame 1 (under I/O) and takes 12");
        assert_eq!(d.insert(30, 7), 2);
        assert_eq!(d.state(), "[30 20 13]");
        d.arrive(late, Access::demand(21, 8), History::NONE);
        assert_eq!(d.state(), "[30 21 20 13]");
        let none = History::NONE;
        assert_eq!([d.evict(none), d.evict(none), d.evict(none), d.evict(none)], [3, 0, 1, 2]);
        assert!(d.policy.is_empty());
    }

    /// A prefetched page ranks below a demanded one until used: its first use leaves it as a demanded page
    /// is after its miss (bit clear), the second sets the bit. The hand counts the referenced pages it
    /// passes as scanned.
    #[test]
    fn a_prefetched_page_is_referenced_first_by_its_first_use() {
        let mut d = Driver::new(Clock::new(3));
        let a = d.insert(1, 0);
        let b = d.insert_prefetched(2, 1);
        let c = d.insert_prefetched(3, 2);
        assert_eq!(d.state(), "[3+ 2+ 1]");
        d.hit(b, 3);
        d.hit(a, 4);
        assert_eq!(d.state(), "[3+ 2 1*]", "2's first use is its first reference: bit still clear");
        d.hit(b, 5);
        assert_eq!(d.state(), "[3+ 2* 1*]");
        d.policy.on_hit(c, &Access::prefetched(3, 6), &mut d.table.shadows());
        assert_eq!(d.state(), "[3+ 2* 1*]", "a readahead meeting a resident page is no reference");
        assert_eq!(d.evict(History::NONE), c, "the hand passes 1* and 2*, then takes the unused 3");
        assert_eq!(d.policy.pages_scanned(), 2);
    }
}
