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

use super::Gfp;

/// How a slab cache lays out its objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabGeometry {
    pub object_bytes: u32,
    pub objects_per_slab: u16,
    /// Pages of one slab (SLUB's `order`: 1, 2, 4, 8).
    pub pages_per_slab: u8,
    /// The context its objects are allocated in.
    pub gfp: Gfp,
}

impl SlabGeometry {
    /// `dentry` on Linux 6.18 (`/proc/slabinfo` on the machines pagelab is built on): 192 bytes, 21 to a
    /// one-page slab.
    /// `d_alloc()` allocates with `GFP_KERNEL`.
    pub const DENTRY: SlabGeometry =
        SlabGeometry { object_bytes: 192, objects_per_slab: 21, pages_per_slab: 1, gfp: Gfp::Kernel };
    /// `ext4_inode_cache` on Linux 6.18: 1,128 bytes, 14 to a four-page slab. `ext4_alloc_inode()`
    /// allocates with `GFP_NOFS`.
    pub const EXT4_INODE: SlabGeometry =
        SlabGeometry { object_bytes: 1128, objects_per_slab: 14, pages_per_slab: 4, gfp: Gfp::NoFs };

    /// Objects of `object_bytes` packed into one-page slabs (as many as fit, at least one).
    pub fn packed(object_bytes: u32) -> SlabGeometry {
        let per_page = (crate::PAGE_SIZE_BYTES / object_bytes.max(1) as u64).clamp(1, u16::MAX as u64);
        SlabGeometry { object_bytes, objects_per_slab: per_page as u16, pages_per_slab: 1, gfp: Gfp::Kernel }
    }
}

/// The slabs of one slab cache, by slab id (`0..`), each with a count of objects in use.
#[derive(Clone, Debug)]
pub struct SlabPages {
    geometry: SlabGeometry,
    /// Objects in use per slab id; 0 for an id not in use.
    used: Vec<u16>,
    /// Slab ids with a free slot, most recently freed-into last. An entry whose slab has since filled (or
    /// been returned) is skipped when popped (`in_partial` says whether it is current).
    partial: Vec<u32>,
    in_partial: Vec<bool>,
    /// Slab ids returned, for reuse.
    free_ids: Vec<u32>,
    held: u32,
}

impl SlabPages {
    /// Caller guarantees at least one object and one page per slab.
    pub fn new(geometry: SlabGeometry) -> SlabPages {
        assert!(geometry.objects_per_slab >= 1 && geometry.pages_per_slab >= 1, "an empty slab geometry");
        SlabPages {
            geometry,
            used: Vec::new(),
            partial: Vec::new(),
            in_partial: Vec::new(),
            free_ids: Vec::new(),
            held: 0,
        }
    }

    pub fn geometry(&self) -> SlabGeometry {
        self.geometry
    }

    /// Pages the slabs hold (counted in the memory budget).
    pub fn pages(&self) -> u32 {
        self.held * self.geometry.pages_per_slab as u32
    }

    /// Slabs held.
    pub fn slabs(&self) -> u32 {
        self.held
    }

    /// Objects on slab `slab`.
    pub fn used(&self, slab: u32) -> u16 {
        self.used[slab as usize]
    }

    /// Pages the next allocation needs from the memory budget: none if a slab has a free slot, else a
    /// slab's.
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
        let used = &mut self.used[slab as usize];
        *used += 1;
        if *used == self.geometry.objects_per_slab {
            self.partial.pop();
            self.in_partial[slab as usize] = false;
        }
        Some(slab)
    }

    /// A slab the caller obtained from the memory budget, with one object placed on it.
    pub fn add_slab(&mut self) -> u32 {
        let slab = match self.free_ids.pop() {
            Some(slab) => slab,
            None => {
                self.used.push(0);
                self.in_partial.push(false);
                (self.used.len() - 1) as u32
            }
        };
        debug_assert_eq!(self.used[slab as usize], 0);
        self.used[slab as usize] = 1;
        self.held += 1;
        if self.geometry.objects_per_slab > 1 {
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
            self.held -= 1;
            return self.geometry.pages_per_slab as u32;
        }
        if !self.in_partial[slab as usize] {
            self.in_partial[slab as usize] = true;
            self.partial.push(slab);
        }
        0
    }

    /// The current partial slab on top of the stack, dropping stale entries. Bounded: each stale entry is
    /// popped once.
    fn top_partial(&mut self) -> Option<u32> {
        while let Some(&slab) = self.partial.last() {
            if self.in_partial[slab as usize] && self.used[slab as usize] < self.geometry.objects_per_slab {
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
        let a = s.add_slab();
        assert_eq!((s.alloc(), s.alloc(), s.alloc()), (Some(a), Some(a), Some(a)));
        assert_eq!(s.alloc(), None, "slab full");
        let b = s.add_slab();
        assert_eq!(s.pages(), 2);
        assert_eq!((s.free(a), s.free(a), s.free(a)), (0, 0, 0));
        assert_eq!(s.alloc(), Some(a), "the slab freed into last is used first");
        assert_eq!(s.free(a), 0);
        assert_eq!(s.free(a), 1, "last object gone: its page returned");
        assert_eq!(s.pages(), 1);
        assert_eq!(s.alloc(), Some(b), "the returned slab is no partial slab");
        assert_eq!((s.free(b), s.free(b)), (0, 1));
        assert_eq!((s.pages(), s.add_slab()), (0, b), "ids are reused");
    }

    #[test]
    fn a_multi_page_slab_returns_all_its_pages_at_once() {
        let mut s = SlabPages::new(SlabGeometry::EXT4_INODE);
        let a = s.add_slab();
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

    #[test]
    fn one_object_per_slab_never_lists_a_partial_slab() {
        let mut s = SlabPages::new(SlabGeometry::packed(4096));
        let a = s.add_slab();
        assert_eq!(s.alloc(), None);
        assert_eq!(s.free(a), 1);
        assert_eq!(s.pages(), 0);
    }
}
