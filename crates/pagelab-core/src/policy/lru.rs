//! LRU: evict the page referenced least recently.
//!
//! Mattson, Gecsei, Slutz, Traiger, "Evaluation Techniques for Storage Hierarchies", IBM Systems Journal
//! 9(2), 1970 — the stack algorithm whose inclusion property lets one pass compute every cache size's miss
//! count (`crate::whatif::stack_distance`). One list, MRU at the front; a hit moves the page to the front.
//! Matches libCacheSim's `LRU` to the reference.
//!
//! Prefetched pages: a readahead page enters at the MRU end like a demanded one (Linux adds readahead
//! pages at the head of its inactive list, `add_to_page_cache_lru`). LRU keeps no count of references, so
//! the first use of a prefetched page is simply a hit that moves it to the front; a readahead that meets
//! a resident page (`on_hit` with `prefetch`) is not a reference and moves nothing.

use super::{format_keys, Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

#[derive(Clone, Debug)]
pub struct Lru {
    links: Links,
    queue: List,
}

impl Lru {
    pub fn new(capacity: u32) -> Lru {
        Lru { links: Links::new(capacity), queue: List::new() }
    }
}

impl Replacement for Lru {
    fn name(&self) -> &'static str {
        "LRU"
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
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if !access.prefetch {
            self.links.move_to_front(&mut self.queue, frame);
        }
    }
    #[inline]
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        self.links.pop_back(&mut self.queue).expect("evict from an empty LRU")
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
            Lru::new(3),
            &[
                (1, false, "[1]"),
                (2, false, "[2 1]"),
                (3, false, "[3 2 1]"),
                (1, true, "[1 3 2]"),
                (4, false, "[4 1 3]"), // 2 was least recent
                (3, true, "[3 4 1]"),
                (5, false, "[5 3 4]"),
                (1, false, "[1 5 3]"),
            ],
        );
    }
}
