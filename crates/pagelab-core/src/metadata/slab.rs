//! Slabs: where the metadata objects live, several to a slab of one or more 4 KiB pages (papers/004
//! Figure 3).
//!
//! The slab allocator hands out an object slot from a slab that has one free (a partial slab), and asks the
//! page allocator for a new slab only when none has a free slot. A slab goes back to the page allocator
//! only when every object on it has been freed: one live object pins its whole slab, which is why freeing
//! pages from a metadata cache whose objects are scattered in the LRU costs many object frees per page.
//!
//! Departures from Linux, and why:
//! - The partial slab a slot comes from is the one that most recently had a slot freed (a stack). SLAB
//!   serves allocations from a per-CPU array of recently freed objects and then from the partial slabs'
//!   list; SLUB from a per-CPU slab and then its partial list. All of them reuse recently freed slots first;
//!   which partial slab exactly does not change how many pages the cache holds.
//! - An empty slab is returned at once. SLAB keeps up to `free_limit` empty slabs per node and SLUB
//!   `min_partial`; both are a few slabs, nothing beside a metadata cache of millions of objects.
//!
//! **Two slab sizes** ([`SlabOrder`]). SLUB's `allocate_slab()` first asks for a slab of the cache's order
//! (`s->oo`) with `__GFP_NORETRY` ("let the initial higher-order allocation fail under memory pressure so
//! we fall-back to the minimum order allocation"), and when that fails takes a slab of the smallest order
//! one object fits in (`s->min`) with the caller's own flags. A cache under pressure so holds slabs of both
//! sizes; each slab keeps its size until it is returned. The buffer cache makes the two attempts
//! (`buffer/metadata.rs`, `take_slab`); the slabs here only keep count.

use super::Gfp;

/// How a slab cache lays out its objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabGeometry {
    pub object_bytes: u32,
    pub objects_per_slab: u16,
    /// Pages of one slab (SLUB's `order`: 1, 2, 4, 8).
    pub pages_per_slab: u8,
    /// Objects and pages of a slab of the smallest order (SLUB's `s->min`), taken when a slab of the full
    /// order cannot be had; the full slab's when the two are one order.
    pub objects_per_min_slab: u16,
    pub pages_per_min_slab: u8,
    /// The context its objects are allocated in.
    pub gfp: Gfp,
}

/// Which of a cache's two slab sizes a slab is ([`SlabGeometry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlabOrder {
    /// The cache's own order (`s->oo`).
    Full,
    /// The fallback: the smallest order one object fits in (`s->min`).
    Min,
}

impl SlabGeometry {
    /// `dentry` on Linux 6.18 (`/proc/slabinfo` on the machines pagelab is built on): 192 bytes, 21 to a
    /// one-page slab.
    /// `d_alloc()` allocates with `GFP_KERNEL`.
    pub const DENTRY: SlabGeometry = SlabGeometry {
        object_bytes: 192,
        objects_per_slab: 21,
        pages_per_slab: 1,
        objects_per_min_slab: 21,
        pages_per_min_slab: 1,
        gfp: Gfp::Kernel,
    };
    /// `ext4_inode_cache` on Linux 6.18: 1,128 bytes, 14 to a four-page slab (order 2); its smallest order
    /// is 0, three to a page (4,096 / 1,128). `ext4_alloc_inode()` allocates with `GFP_NOFS`.
    pub const EXT4_INODE: SlabGeometry = SlabGeometry {
        object_bytes: 1128,
        objects_per_slab: 14,
        pages_per_slab: 4,
        objects_per_min_slab: 3,
        pages_per_min_slab: 1,
        gfp: Gfp::NoFs,
    };

    /// Objects of `object_bytes` packed into one-page slabs (as many as fit, at least one).
    pub fn packed(object_bytes: u32) -> SlabGeometry {
        let per_page = (crate::PAGE_SIZE_BYTES / object_bytes.max(1) as u64).clamp(1, u16::MAX as u64) as u16;
        SlabGeometry {
            object_bytes,
            objects_per_slab: per_page,
            pages_per_slab: 1,
            objects_per_min_slab: per_page,
            pages_per_min_slab: 1,
            gfp: Gfp::Kernel,
        }
    }

    /// Whether a slab of the smallest order is smaller than the cache's own: then a failed first attempt
    /// falls back to it.
    pub fn has_fallback(&self) -> bool {
        self.pages_per_min_slab < self.pages_per_slab
    }

    /// Objects and pages of a slab of `order`.
    pub fn slab(&self, order: SlabOrder) -> (u16, u8) {
        match order {
            SlabOrder::Full => (self.objects_per_slab, self.pages_per_slab),
            SlabOrder::Min => (self.objects_per_min_slab, self.pages_per_min_slab),
        }
    }
}

/// The slabs of one slab cache, by slab id (`0..`), each with a count of objects in use.
#[derive(Clone, Debug)]
pub struct SlabPages {
    geometry: SlabGeometry,
    /// Objects in use per slab id; 0 for an id not in use.
    used: Vec<u16>,
    /// Per slab id in use: whether it is a slab of the smallest order ([`SlabOrder::Min`]).
    min_order: Vec<bool>,
    /// Slab ids with a free slot, most recently freed-into last. An entry whose slab has since filled (or
    /// been returned) is skipped when popped (`in_partial` says whether it is current).
    partial: Vec<u32>,
    in_partial: Vec<bool>,
    /// Slab ids returned, for reuse.
    free_ids: Vec<u32>,
    held: u32,
    held_pages: u32,
}

impl SlabPages {
    /// Caller guarantees at least one object and one page per slab.
    pub fn new(geometry: SlabGeometry) -> SlabPages {
        let g = geometry;
        assert!(g.objects_per_slab >= 1 && g.pages_per_slab >= 1, "an empty slab geometry: {g:?}");
        assert!(
            (1..=g.objects_per_slab).contains(&g.objects_per_min_slab)
                && (1..=g.pages_per_slab).contains(&g.pages_per_min_slab),
            "a smallest slab larger than the full one, or empty: {g:?}"
        );
        SlabPages {
            geometry,
            used: Vec::new(),
            min_order: Vec::new(),
            partial: Vec::new(),
            in_partial: Vec::new(),
            free_ids: Vec::new(),
            held: 0,
            held_pages: 0,
        }
    }

    pub fn geometry(&self) -> SlabGeometry {
        self.geometry
    }

    /// Pages the slabs hold (counted in the memory budget).
    pub fn pages(&self) -> u32 {
        self.held_pages
    }

    /// Slabs held.
    pub fn slabs(&self) -> u32 {
        self.held
    }

    /// Objects on slab `slab`.
    pub fn used(&self, slab: u32) -> u16 {
        self.used[slab as usize]
    }

    /// The order of slab `slab`, in use.
    fn order(&self, slab: u32) -> SlabOrder {
        if self.min_order[slab as usize] {
            SlabOrder::Min
        } else {
            SlabOrder::Full
        }
    }

    /// Objects a slab `slab` can hold.
    fn capacity(&self, slab: u32) -> u16 {
        self.geometry.slab(self.order(slab)).0
    }

    /// Pages the next allocation needs from the memory budget: none if a slab has a free slot, else a
    /// slab's of the full order (the first attempt's).
    pub fn pages_needed(&mut self) -> u32 {
        if self.top_partial().is_some() {
            0
        } else {
            self.geometry.pages_per_slab as u32
        }
    }

    /// A slot on a partial slab, or `None` when every slab is full (the caller must get a slab's pages from
    /// the page allocator and call [`SlabPages::add_slab`]).
    pub fn alloc(&mut self) -> Option<u32> {
        let slab = self.top_partial()?;
        let capacity = self.capacity(slab);
        let used = &mut self.used[slab as usize];
        *used += 1;
        if *used == capacity {
            self.partial.pop();
            self.in_partial[slab as usize] = false;
        }
        Some(slab)
    }

    /// A slab of `order` the caller obtained from the memory budget (its pages: [`SlabGeometry::slab`]),
    /// with one object placed on it.
    pub fn add_slab(&mut self, order: SlabOrder) -> u32 {
        let slab = match self.free_ids.pop() {
            Some(slab) => slab,
            None => {
                self.used.push(0);
                self.min_order.push(false);
                self.in_partial.push(false);
                (self.used.len() - 1) as u32
            }
        };
        debug_assert_eq!(self.used[slab as usize], 0);
        let (objects, pages) = self.geometry.slab(order);
        self.used[slab as usize] = 1;
        self.min_order[slab as usize] = order == SlabOrder::Min;
        self.held += 1;
        self.held_pages += pages as u32;
        if objects > 1 {
            self.partial.push(slab);
            self.in_partial[slab as usize] = true;
        }
        slab
    }

    /// An object on `slab` is freed. Returns the pages that came free: the slab's if it is now empty (the
    /// caller gives them back to the memory budget), else 0.
    pub fn free(&mut self, slab: u32) -> u32 {
        let used = &mut self.used[slab as usize];
        assert!(*used > 0, "an object freed from slab {slab}, which holds none");
        *used -= 1;
        if *used == 0 {
            self.in_partial[slab as usize] = false;
            self.free_ids.push(slab);
            let pages = self.geometry.slab(self.order(slab)).1 as u32;
            self.held -= 1;
            self.held_pages -= pages;
            return pages;
        }
        if !self.in_partial[slab as usize] {
            self.in_partial[slab as usize] = true;
            self.partial.push(slab);
        }
        0
    }

    /// Panics unless every slab in use holds no more than its order's objects and the pages held are its
    /// slabs' (a second path to the counts `add_slab` and `free` keep).
    pub fn check(&self) {
        let (mut slabs, mut pages) = (0, 0);
        for (slab, &used) in self.used.iter().enumerate() {
            if used == 0 {
                continue;
            }
            assert!(used <= self.capacity(slab as u32), "slab {slab} holds {used} objects, over its order's");
            (slabs, pages) = (slabs + 1, pages + self.geometry.slab(self.order(slab as u32)).1 as u32);
        }
        assert_eq!((slabs, pages), (self.held, self.held_pages), "slabs and pages held by the counts");
    }

    /// The current partial slab on top of the stack, dropping stale entries. Bounded: each stale entry is
    /// popped once.
    fn top_partial(&mut self) -> Option<u32> {
        while let Some(&slab) = self.partial.last() {
            if self.in_partial[slab as usize] && self.used[slab as usize] < self.capacity(slab) {
                return Some(slab);
            }
            self.partial.pop();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slab_is_returned_only_when_its_last_object_is_freed() {
        let mut s = SlabPages::new(SlabGeometry::packed(1024));
        assert_eq!((s.alloc(), s.pages_needed()), (None, 1), "no slab yet");
        let a = s.add_slab(SlabOrder::Full);
        assert_eq!((s.alloc(), s.alloc(), s.alloc()), (Some(a), Some(a), Some(a)));
        assert_eq!(s.alloc(), None, "slab full");
        let b = s.add_slab(SlabOrder::Full);
        assert_eq!(s.pages(), 2);
        assert_eq!((s.free(a), s.free(a), s.free(a)), (0, 0, 0));
        assert_eq!(s.alloc(), Some(a), "the slab freed into last is used first");
        assert_eq!(s.free(a), 0);
        assert_eq!(s.free(a), 1, "last object gone: its page returned");
        assert_eq!(s.pages(), 1);
        assert_eq!(s.alloc(), Some(b), "the returned slab is no partial slab");
        assert_eq!((s.free(b), s.free(b)), (0, 1));
        assert_eq!((s.pages(), s.add_slab(SlabOrder::Full)), (0, b), "ids are reused");
    }

    #[test]
    fn a_multi_page_slab_returns_all_its_pages_at_once() {
        let mut s = SlabPages::new(SlabGeometry::EXT4_INODE);
        let a = s.add_slab(SlabOrder::Full);
        for _ in 1..14 {
            assert_eq!(s.alloc(), Some(a));
        }
        assert_eq!((s.pages(), s.pages_needed()), (4, 4), "full: the next object needs a four-page slab");
        for _ in 1..14 {
            assert_eq!(s.free(a), 0);
        }
        assert_eq!(s.free(a), 4);
        assert_eq!(s.slabs(), 0);
    }

    /// SLUB's fallback: a cache holds slabs of its order and of the smallest side by side; each holds its
    /// own order's objects, is filled from the partial list like any other, and returns its own pages.
    #[test]
    fn slabs_of_the_smallest_order_hold_and_return_their_own_size() {
        let mut s = SlabPages::new(SlabGeometry::EXT4_INODE);
        assert!(SlabGeometry::EXT4_INODE.has_fallback() && !SlabGeometry::DENTRY.has_fallback());
        let small = s.add_slab(SlabOrder::Min);
        assert_eq!((s.pages(), s.alloc(), s.alloc()), (1, Some(small), Some(small)));
        assert_eq!(
            (s.alloc(), s.pages_needed()),
            (None, 4),
            "three to a page; the next asks for the full order"
        );
        let big = s.add_slab(SlabOrder::Full);
        assert_eq!(s.pages(), 5);
        assert_eq!(s.free(small), 0);
        assert_eq!(s.alloc(), Some(small), "the slab freed into last first, whatever its order");
        assert_eq!(s.alloc(), Some(big));
        s.check();
        assert_eq!(s.free(big), 0);
        assert_eq!((s.free(big), s.pages()), (4, 1), "the full slab returns its four pages");
        for _ in 0..3 {
            let last = s.used(small) == 1;
            assert_eq!(s.free(small), if last { 1 } else { 0 });
        }
        assert_eq!((s.pages(), s.slabs()), (0, 0));
        let again = s.add_slab(SlabOrder::Full);
        assert_eq!(again, small, "the id returned last is reused, now for a full slab");
        for _ in 1..14 {
            assert_eq!(s.alloc(), Some(again), "a reused id takes its new order's size");
        }
        assert_eq!((s.alloc(), s.pages()), (None, 4));
        s.check();
    }

    #[test]
    fn one_object_per_slab_never_lists_a_partial_slab() {
        let mut s = SlabPages::new(SlabGeometry::packed(4096));
        let a = s.add_slab(SlabOrder::Full);
        assert_eq!(s.alloc(), None);
        assert_eq!(s.free(a), 1);
        assert_eq!(s.pages(), 0);
    }
}
