//! FIFO: evict the page that entered first; references do not reorder.
//!
//! The baseline of every replacement study (Belady 1966 discusses it as the simplest realizable rule).
//! Li & Shen (papers/000, §2) note that, lacking access history, prefetched pages are evicted in FIFO
//! order by any history-based policy. Matches libCacheSim's `FIFO` to the reference.
//!
//! Prefetched pages enter at the tail like demanded ones; no reference moves a page, so a first use
//! changes nothing.

use super::{format_keys, Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

#[derive(Clone, Debug)]
pub struct Fifo {
    links: Links,
    queue: List,
}

impl Fifo {
    pub fn new(capacity: u32) -> Fifo {
        Fifo { links: Links::new(capacity), queue: List::new() }
    }
}

impl Replacement for Fifo {
    fn name(&self) -> &'static str {
        "FIFO"
    }
    fn capacity(&self) -> u32 {
        self.links.capacity()
    }
    fn len(&self) -> u32 {
        self.queue.len()
    }
    #[inline]
    fn on_insert(&mut self, frame: FrameId, _: &Access, _: History, _: &mut Shadows<'_>) {
        self.links.push_front(&mut self.queue, frame);
    }
    #[inline]
    fn on_hit(&mut self, _: FrameId, _: &Access, _: &mut Shadows<'_>) {}
    #[inline]
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        self.links.pop_back(&mut self.queue).expect("evict from an empty FIFO")
    }
    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        self.links.remove(&mut self.queue, frame);
    }
    fn state(&self, table: &FrameTable) -> String {
        format_keys(self.links.iter(&self.queue), table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::trace;

    #[test]
    fn hand_traced() {
        trace(
            Fifo::new(3),
            &[
                (1, false, "[1]"),
                (2, false, "[2 1]"),
                (3, false, "[3 2 1]"),
                (1, true, "[3 2 1]"),  // a hit does not reorder
                (4, false, "[4 3 2]"), // 1 entered first
                (1, false, "[1 4 3]"),
            ],
        );
    }
}
