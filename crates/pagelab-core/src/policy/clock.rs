//! CLOCK: FIFO with one reference bit per page and a second chance.
//!
//! Corbató, "A Paging Experiment with the Multics System", 1968; the one-bit CLOCK that Li & Shen
//! (papers/000, ref. [27]) and Jiang et al. (papers/001, DULO is "built on CLOCK") take as the practical
//! LRU approximation. A hit sets the page's bit. To evict, the hand looks at the oldest page: a set bit
//! is cleared and the page goes round again (to the front); a clear bit is the victim. New pages enter
//! with the bit clear. The circular buffer is kept as a FIFO list with reinsertion, which visits pages in
//! the same order as a hand over a ring. Matches libCacheSim's `Clock` (1-bit counter, init-freq 0).

use super::{Access, FrameId, Replacement};
use crate::list::{Links, List};

#[derive(Clone, Debug)]
pub struct Clock {
    links: Links,
    queue: List,
    referenced: Vec<bool>,
}

impl Clock {
    pub fn new(capacity: u32) -> Clock {
        Clock { links: Links::new(capacity), queue: List::new(), referenced: vec![false; capacity as usize] }
    }
}

impl Replacement for Clock {
    fn name(&self) -> &'static str {
        "CLOCK"
    }
    fn capacity(&self) -> u32 {
        self.links.capacity()
    }
    fn len(&self) -> u32 {
        self.queue.len()
    }
    #[inline]
    fn on_insert(&mut self, frame: FrameId, _: &Access) {
        self.referenced[frame as usize] = false;
        self.links.push_front(&mut self.queue, frame);
    }
    #[inline]
    fn on_hit(&mut self, frame: FrameId, _: &Access) {
        self.referenced[frame as usize] = true;
    }
    #[inline]
    fn evict(&mut self, _: &Access, _: &[u64]) -> FrameId {
        // After one full sweep every bit is clear, so the hand stops within len + 1 steps.
        for _ in 0..=self.queue.len() {
            let frame = self.queue.back().expect("evict from an empty CLOCK");
            if !self.referenced[frame as usize] {
                self.links.remove(&mut self.queue, frame);
                return frame;
            }
            self.referenced[frame as usize] = false;
            self.links.move_to_front(&mut self.queue, frame);
        }
        unreachable!("CLOCK hand went round twice without finding a clear bit");
    }
    fn on_remove(&mut self, frame: FrameId, _: &[u64]) {
        self.links.remove(&mut self.queue, frame);
    }
    fn state(&self, keys: &[u64]) -> String {
        let marked = self.links.iter(&self.queue).map(|f| {
            let star = if self.referenced[f as usize] { "*" } else { "" };
            format!("{}{star}", keys[f as usize])
        });
        format!("[{}]", marked.collect::<Vec<_>>().join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::trace;

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
}
