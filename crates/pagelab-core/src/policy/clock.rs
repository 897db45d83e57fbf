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

use super::{Access, FrameId, Replacement};
use crate::frames::{FrameTable, Shadows};

/// A frame the policy does not track (free, or its page not yet inserted).
const UNTRACKED: u8 = 0;
/// A tracked page whose reference bit is clear.
const CLEAR: u8 = 1;
/// A tracked page whose reference bit is set.
const REFERENCED: u8 = 2;

#[derive(Clone, Debug)]
pub struct Clock {
    /// By frame: [`UNTRACKED`], [`CLEAR`] or [`REFERENCED`].
    bits: Vec<u8>,
    /// The frame the hand points to: the next one it examines.
    hand: u32,
    len: u32,
}

impl Clock {
    pub fn new(capacity: u32) -> Clock {
        assert!(capacity >= 1, "CLOCK needs at least one frame");
        Clock { bits: vec![UNTRACKED; capacity as usize], hand: 0, len: 0 }
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
    fn on_insert(&mut self, frame: FrameId, _: &Access, _: &mut Shadows<'_>) {
        let bit = &mut self.bits[frame as usize];
        assert_eq!(*bit, UNTRACKED, "frame {frame} inserted twice");
        *bit = CLEAR;
        self.len += 1;
    }
    #[inline]
    fn on_hit(&mut self, frame: FrameId, _: &Access, _: &mut Shadows<'_>) {
        debug_assert_ne!(self.bits[frame as usize], UNTRACKED, "hit on untracked frame {frame}");
        self.bits[frame as usize] = REFERENCED;
    }
    #[inline]
    fn evict(&mut self, _: &Access, _: &mut Shadows<'_>) -> FrameId {
        assert!(self.len > 0, "evict from an empty CLOCK");
        let n = self.capacity_frames();
        // The first lap clears every set bit it passes, so the second lap stops at the latest: 2n steps.
        for _ in 0..2 * n {
            let frame = self.hand;
            self.hand = if frame + 1 == n { 0 } else { frame + 1 };
            let bit = &mut self.bits[frame as usize];
            match *bit {
                CLEAR => {
                    *bit = UNTRACKED;
                    self.len -= 1;
                    return frame;
                }
                REFERENCED => *bit = CLEAR,
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
    /// Pages newest first (the hand's next victim candidate last), `*` on a set reference bit.
    fn state(&self, table: &FrameTable) -> String {
        let marked = self.newest_first().map(|f| {
            let star = if self.bits[f as usize] == REFERENCED { "*" } else { "" };
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
        assert_eq!(d.evict(20, 4), 0, "10 is clear: the victim");
        assert_eq!(d.insert(20, 5), 0);
        assert_eq!(d.evict(30, 6), 2, "the hand skips frame 1 (under I/O) and takes 12");
        assert_eq!(d.insert(30, 7), 2);
        assert_eq!(d.state(), "[30 20 13]");
        d.policy.on_insert(late, &Access::demand(21, 8), &mut d.table.shadows());
        assert_eq!(d.state(), "[30 21 20 13]");
        assert_eq!([d.evict(1, 9), d.evict(1, 9), d.evict(1, 9), d.evict(1, 9)], [3, 0, 1, 2]);
        assert!(d.policy.is_empty());
    }
}
