//! The swap area: where evicted anonymous pages go, as Linux 2.6.10–2.6.18 allocates and reads it.
//!
//! - **Slots** (`mm/swapfile.c`, `scan_swap_map()`): slot 0 holds the swap header and is never used.
//!   Allocation continues the current cluster (`cluster_next`, counting `cluster_nr` down from
//!   `SWAPFILE_CLUSTER` = 256) so that pages swapped out together land together; when the cluster is used up
//!   it looks, from the lowest free slot, for 256 consecutive free slots ("an empty (even not aligned)
//!   cluster") and starts there; failing that it takes the lowest free slot ("finegrained as usual").
//! - **Swap-in readahead** (`mm/memory.c`, `swapin_readahead()`; `valid_swaphandles()`): a fault on a
//!   swapped page reads the aligned group of `1 << page_cluster` slots holding it (`page_cluster` = 3 on
//!   machines over 16 MB: 8 slots), from the group's first slot (or 1, past the header) up to the first free
//!   slot or the end of the area.
//! - A page keeps its slot after it is read back (the swap cache keeps the copy): evicted again clean it is
//!   dropped without a write, evicted again dirty it is written to the same slot. 2.6 frees the slot at
//!   swap-in only when swap is more than half full (`vm_swap_full()` → `remove_exclusive_swap_page()`), and
//!   when the owner exits.
//!
//! The area is a region of the simulated disk: slot `s` is at `first_lbn + s`.

use crate::key::Lbn;
use std::ops::Range;

/// `SWAPFILE_CLUSTER`: slots allocated consecutively before a new cluster is sought.
pub const SWAPFILE_CLUSTER: u64 = 256;

/// Where the swap area is and how it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapConfig {
    /// Disk location of slot 0 (the header).
    pub first_lbn: Lbn,
    /// Slots, the header included.
    pub slots: u64,
    /// Swap-in readahead reads `1 << page_cluster` slots (`vm.page-cluster`; 3 on machines over 16 MB).
    pub page_cluster: u32,
}

/// A slot with no owner.
const FREE: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub(super) struct SwapArea {
    config: SwapConfig,
    /// By slot: the raw key of the anonymous page whose copy it holds, or [`FREE`]. Slot 0 is the header.
    owner: Vec<u64>,
    used: u64,
    /// `scan_swap_map()`'s state.
    cluster_next: u64,
    cluster_nr: u64,
    lowest_free: u64,
}

impl SwapArea {
    /// Caller guarantees `config.slots >= 2` and that the area fits in memory (the caller bounds it).
    pub fn new(config: SwapConfig) -> SwapArea {
        assert!(config.slots >= 2, "a swap area needs a header and a slot");
        let mut owner = vec![FREE; config.slots as usize];
        owner[0] = 0; // the header: never free, never an owner's
        SwapArea { config, owner, used: 0, cluster_next: 1, cluster_nr: 0, lowest_free: 1 }
    }

    pub fn used_slots(&self) -> u64 {
        self.used
    }
    /// Slots pages can use (the header excluded).
    pub fn capacity(&self) -> u64 {
        self.config.slots - 1
    }

    /// `vm_swap_full()`: more than half the slots are in use.
    pub fn full(&self) -> bool {
        self.used * 2 > self.capacity()
    }

    pub fn lbn(&self, slot: u64) -> Lbn {
        self.config.first_lbn + slot
    }

    /// The raw key of the page whose copy `slot` holds.
    pub fn owner(&self, slot: u64) -> Option<u64> {
        self.owner.get(slot as usize).copied().filter(|&k| k != FREE && slot != 0)
    }

    fn is_free(&self, slot: u64) -> bool {
        self.owner[slot as usize] == FREE
    }

    /// A slot for page `key` (`scan_swap_map()`), or `None` when swap is full.
    pub fn allocate(&mut self, key: u64) -> Option<u64> {
        let slots = self.config.slots;
        if self.used == self.capacity() {
            return None;
        }
        let slot =
            self.next_in_cluster().or_else(|| self.empty_cluster()).or_else(|| self.lowest_free_slot())?;
        debug_assert!(self.is_free(slot) && slot != 0 && slot < slots);
        self.owner[slot as usize] = key;
        self.used += 1;
        self.cluster_next = slot + 1;
        Some(slot)
    }

    /// Continue the current cluster: the next free slot at or after `cluster_next`, while `cluster_nr`
    /// lasts.
    fn next_in_cluster(&mut self) -> Option<u64> {
        let slots = self.config.slots;
        while self.cluster_nr > 0 && self.cluster_next < slots {
            let slot = self.cluster_next;
            self.cluster_next += 1;
            if self.is_free(slot) {
                self.cluster_nr -= 1;
                return Some(slot);
            }
        }
        None
    }

    /// A new cluster: the first run of `SWAPFILE_CLUSTER` free slots from the lowest free one.
    fn empty_cluster(&mut self) -> Option<u64> {
        self.cluster_nr = SWAPFILE_CLUSTER;
        let slots = self.config.slots;
        let mut start = self.lowest_free;
        // Each failed candidate moves `start` past a used slot: bounded by the area's size.
        while start + SWAPFILE_CLUSTER <= slots {
            match (start..start + SWAPFILE_CLUSTER).find(|&s| !self.is_free(s)) {
                Some(used) => start = used + 1,
                None => {
                    self.cluster_nr -= 1; // this allocation is the cluster's first
                    return Some(start);
                }
            }
        }
        None
    }

    /// "Finegrained as usual": the lowest free slot.
    fn lowest_free_slot(&mut self) -> Option<u64> {
        let slot = (self.lowest_free..self.config.slots).find(|&s| self.is_free(s))?;
        self.lowest_free = slot + 1;
        Some(slot)
    }

    /// The copy in `slot` is no longer needed (its owner exited, or swap is full and the page is back).
    pub fn free(&mut self, slot: u64) {
        assert!(slot != 0 && !self.is_free(slot), "freeing swap slot {slot}, which is not in use");
        self.owner[slot as usize] = FREE;
        self.used -= 1;
        self.lowest_free = self.lowest_free.min(slot);
    }

    /// `valid_swaphandles()`: the slots swap-in readahead reads for a fault on `slot`: from the aligned
    /// group's first slot (past the header) up to the first free slot or the area's end, at most
    /// `1 << page_cluster` slots. Always holds `slot` when `slot` is in use... unless a free slot
    /// precedes it in its group; then the fault reads `slot` alone.
    pub fn readahead(&self, slot: u64) -> Range<u64> {
        let group = 1u64 << self.config.page_cluster;
        let mut start = slot / group * group;
        let mut n = group;
        if start == 0 {
            start = 1;
            n -= 1;
        }
        let mut end = start;
        while end < start + n && end < self.config.slots && !self.is_free(end) {
            end += 1;
        }
        if (start..end).contains(&slot) {
            start..end
        } else {
            slot..slot + 1
        }
    }

    /// Slots in use equal the owners recorded. O(slots): for tests.
    #[cfg(test)]
    pub fn check(&self) {
        let owned = self.owner.iter().skip(1).filter(|&&k| k != FREE).count() as u64;
        assert_eq!(owned, self.used, "swap slots in use out of step");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(slots: u64) -> SwapArea {
        SwapArea::new(SwapConfig { first_lbn: Lbn(1000), slots, page_cluster: 3 })
    }

    /// Pages swapped out together get consecutive slots; after frees, a new cluster starts at the first
    /// run of 256 free slots, and without one allocation goes first-free.
    #[test]
    fn slots_are_allocated_in_clusters() {
        let mut a = area(1 + 600);
        let first: Vec<u64> = (0..4).map(|k| a.allocate(k).unwrap()).collect();
        assert_eq!(first, vec![1, 2, 3, 4], "a new cluster at the lowest free slot, then consecutive");
        for k in 4..256 {
            a.allocate(k).unwrap();
        }
        assert_eq!(a.allocate(999), Some(257), "cluster used up: the next empty run of 256 starts at 257");
        a.free(2);
        a.free(3);
        assert_eq!(a.allocate(1000), Some(258), "inside a cluster, allocation continues it");
        a.check();
        // Fill the rest: no run of 256 is left, so allocation goes first-free (2, then 3).
        let mut a = area(1 + 300);
        for k in 0..300 {
            a.allocate(k).unwrap();
        }
        assert_eq!(a.allocate(1), None, "full");
        a.free(2);
        a.free(3);
        assert_eq!((a.allocate(7), a.allocate(8)), (Some(2), Some(3)));
        a.check();
    }

    /// Readahead reads the aligned group of 8, past the header, stopping at a free slot.
    #[test]
    fn readahead_reads_the_aligned_group() {
        let mut a = area(64);
        for k in 0..20 {
            a.allocate(k).unwrap();
        }
        assert_eq!(a.readahead(3), 1..8, "group 0..8 without the header");
        assert_eq!(a.readahead(13), 8..16);
        assert_eq!(a.readahead(17), 16..21, "stops at the first free slot (21)");
        a.free(10);
        assert_eq!(a.readahead(9), 8..10, "a free slot ends the group's run");
        assert_eq!(a.readahead(12), 12..13, "a free slot before it in the group: read alone");
        assert_eq!(a.lbn(5), Lbn(1005));
    }

    #[test]
    fn swap_full_is_more_than_half_used() {
        let mut a = area(11);
        for k in 0..5 {
            a.allocate(k);
        }
        assert!(!a.full());
        a.allocate(5);
        assert!(a.full());
    }
}
