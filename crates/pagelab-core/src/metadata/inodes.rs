//! The inode cache of 3.x's VFS ([`super::InodeLru::Own`]): inodes pinned by their dentries, and an LRU of
//! the inodes no dentry holds, reclaimed apart from the dentries.
//!
//! What Linux 3.0 to 3.11 does (`fs/inode.c`, `fs/dcache.c`, read in the 3.x source):
//! - A dentry holds a reference to its inode (`i_count`). When the shrinker frees a dentry
//!   (`prune_dcache_sb()` → `dentry_kill()` → `iput()`), the inode's last reference goes: `iput_final()`
//!   sets `I_REFERENCED` and adds the inode at the head of the superblock's inode LRU
//!   (`inode_lru_list_add()`, which does nothing if the inode is on the list already).
//! - A lookup that misses the dcache but finds the inode in the inode hash (`iget_locked()` →
//!   `find_inode_fast()` → `__iget()`) takes a reference and leaves the inode where it is on the LRU: the
//!   kernel's "lazy LRU updates" (its comment), which keep `iget` off the LRU's lock. The reference keeps
//!   the inode from every prune until the lookup's dentry holds it, so a reclaim by the dentry's own
//!   allocation cannot free the inode the lookup found (pagelab: [`InodeCache::hold`], then
//!   [`InodeCache::pin`]).
//! - `prune_icache_sb(sb, nr_to_scan)` takes inodes from the tail, counting every one it examines: an inode
//!   in use again (`i_count` > 0) is taken off the list; one with `I_REFERENCED` has the bit cleared and
//!   goes back to the head ("recently referenced inodes get one more pass"); any other is freed.
//!
//! So an inode comes free two shrinker passes after its dentry at the earliest: its first visit only
//! clears the bit `iput_final()` set. Its slab, the four-page `ext4_inode_cache` slab of 14 inodes, comes
//! free when all 14 have.
//!
//! Departures from Linux, and why:
//! - 3.11's loop is `for (nr_scanned = nr_to_scan; nr_scanned >= 0; nr_scanned--)`, one inode more than
//!   asked (read in the diff that replaced it with `list_lru_walk()`); pagelab examines `nr_to_scan`, which
//!   earlier 3.x releases may have had (not read here). One inode more in a batch of 128 would change no
//!   page count measurably.
//! - No inode here has page cache pages of its own (the modelled calls are `stat`s), so the branch that
//!   invalidates an inode's pages before freeing it (`inode_has_buffers() || nrpages`) is not modelled.

use crate::hash::KeyMap;
use crate::list::{Links, List};
use crate::memory::ReclaimCost;

use super::slab::SlabPages;

#[derive(Clone, Copy, Debug)]
struct Inode {
    ino: u64,
    /// Its slab in the inode slab cache.
    slab: u32,
    /// `I_REFERENCED`.
    referenced: bool,
    /// Held by a dentry (`i_count` > 0). A pinned inode may still be on the LRU (lazily, until a prune
    /// finds it): whether it is on the list is the links' to say.
    pinned: bool,
    /// Lookups holding it (`iget_locked()` found it and took a reference; their dentries are not made yet):
    /// in use as a pinned inode is, so no prune frees it before the lookup's insert.
    lookups: u16,
}

impl Inode {
    /// `i_count` > 0: a dentry or a lookup holds it.
    fn in_use(&self) -> bool {
        self.pinned || self.lookups > 0
    }

    /// A lookup's reference goes (taken over by its dentry, or given back).
    fn end_lookup(&mut self) {
        assert!(self.lookups > 0, "inode {}: a lookup's reference it never took", self.ino);
        self.lookups -= 1;
    }
}

/// The cached inodes and the LRU of those no dentry held when they were last released.
#[derive(Clone, Debug)]
pub(super) struct InodeCache {
    inodes: Vec<Inode>,
    links: Links,
    /// Front: most recently added or rotated; back: next to examine.
    lru: List,
    free_ids: Vec<u32>,
    index: KeyMap<u64, u32>,
}

impl InodeCache {
    pub(super) fn new() -> InodeCache {
        InodeCache {
            inodes: Vec::new(),
            links: Links::new(0),
            lru: List::new(),
            free_ids: Vec::new(),
            index: KeyMap::default(),
        }
    }

    /// Inodes cached, pinned or not.
    pub(super) fn cached(&self) -> u64 {
        self.index.len() as u64
    }

    /// Inodes on the LRU (`s_nr_inodes_unused`: the lazily listed ones a dentry or a lookup holds
    /// included).
    pub(super) fn unused(&self) -> u64 {
        self.lru.len() as u64
    }

    pub(super) fn contains(&self, ino: u64) -> bool {
        self.index.contains_key(&ino)
    }

    /// A lookup that missed the dcache finds `ino` in the inode hash and takes a reference
    /// (`iget_locked()` → `__iget()`); the inode stays where it is on the LRU. `false`: not cached.
    pub(super) fn hold(&mut self, ino: u64) -> bool {
        let Some(&id) = self.index.get(&ino) else { return false };
        let inode = &mut self.inodes[id as usize];
        inode.lookups = inode.lookups.checked_add(1).expect("fewer than 2^16 lookups of one inode at once");
        true
    }

    /// A new dentry for `ino` takes a reference on its cached inode: the reference its lookup `held`
    /// ([`InodeCache::hold`]), or a new one (`__iget()`); the inode stays where it is on the LRU. `false`:
    /// the inode is not cached (never when `held`: a held inode is not freed).
    pub(super) fn pin(&mut self, ino: u64, held: bool) -> bool {
        let Some(&id) = self.index.get(&ino) else {
            assert!(!held, "inode {ino} freed while a lookup held it");
            return false;
        };
        let inode = &mut self.inodes[id as usize];
        debug_assert!(!inode.pinned, "inode {ino} pinned by two dentries");
        if held {
            inode.end_lookup();
        }
        inode.pinned = true;
        true
    }

    /// A lookup's reference on `ino` goes without a dentry made for it (another task's dentry was made
    /// meanwhile); the last reference puts the inode as `iput_final()` does ([`InodeCache::release`]).
    /// Caller guarantees it holds `ino`.
    pub(super) fn unhold(&mut self, ino: u64) {
        let id = *self.index.get(&ino).expect("a held inode is cached");
        let inode = &mut self.inodes[id as usize];
        inode.end_lookup();
        self.put_if_unused(id);
    }

    /// A new inode in slab `slab`, pinned by the dentry being made for it. Caller guarantees `ino` is not
    /// cached.
    pub(super) fn insert_pinned(&mut self, ino: u64, slab: u32) {
        debug_assert!(!self.contains(ino), "inode {ino} inserted twice");
        let inode = Inode { ino, slab, referenced: false, pinned: true, lookups: 0 };
        let id = super::take_slot(&mut self.inodes, &mut self.free_ids, &mut self.links, inode);
        self.index.insert(ino, id);
    }

    /// `ino`'s dentry was freed (`iput()`): its reference goes, and with no lookup holding the inode it is
    /// the last, and `iput_final()` marks the inode referenced and puts it at the head of the LRU unless it
    /// is on the list already. Caller guarantees `ino` is cached and pinned.
    pub(super) fn release(&mut self, ino: u64) {
        let id = *self.index.get(&ino).expect("a dentry's inode is cached");
        let inode = &mut self.inodes[id as usize];
        debug_assert!(inode.pinned, "inode {ino} released twice");
        inode.pinned = false;
        self.put_if_unused(id);
    }

    /// `iput_final()` of inode `id` if nothing holds it any more.
    fn put_if_unused(&mut self, id: u32) {
        let inode = &mut self.inodes[id as usize];
        if inode.in_use() {
            return;
        }
        inode.referenced = true;
        if !self.links.in_list(&self.lru, id) {
            self.links.push_front(&mut self.lru, id);
        }
    }

    /// Split reclaim frees `ino`'s dentry and its inode together: the inode is freed with it, unless a
    /// lookup holds it (`i_count` stays above 0: the dentry's reference alone goes, and the lookup's
    /// insert pins it again). The slab pages that came free are returned, `None` if the inode stayed.
    /// Caller guarantees `ino` is cached and pinned.
    pub(super) fn free_with_dentry(&mut self, ino: u64, slabs: &mut SlabPages) -> Option<u64> {
        let id = *self.index.get(&ino).expect("a dentry's inode is cached");
        let inode = &mut self.inodes[id as usize];
        debug_assert!(inode.pinned, "inode {ino} freed with a dentry that did not hold it");
        if inode.lookups > 0 {
            inode.pinned = false;
            return None;
        }
        Some(self.free(ino, slabs))
    }

    /// Free `ino`'s inode now, wherever it is; the slab pages that came free are returned. Caller
    /// guarantees `ino` is cached and nothing else holds it.
    fn free(&mut self, ino: u64, slabs: &mut SlabPages) -> u64 {
        let id = self.index.remove(&ino).expect("a dentry's inode is cached");
        if self.links.in_list(&self.lru, id) {
            self.links.remove(&mut self.lru, id);
        }
        self.free_ids.push(id);
        slabs.free(self.inodes[id as usize].slab) as u64
    }

    /// `prune_icache_sb(sb, nr_to_scan)`: examine `nr_to_scan` inodes from the tail (fewer if the list
    /// runs out), each counted: one in use (a dentry's or a lookup's) is taken off the list, a referenced
    /// one rotated with its bit cleared, any other freed. Bounded by `nr_to_scan`.
    pub(super) fn prune(&mut self, nr_to_scan: u64, slabs: &mut SlabPages) -> ReclaimCost {
        let mut cost = ReclaimCost::default();
        while cost.objects_scanned < nr_to_scan {
            let Some(id) = self.lru.back() else { break };
            cost.objects_scanned += 1;
            let inode = &mut self.inodes[id as usize];
            if inode.in_use() {
                self.links.remove(&mut self.lru, id);
                continue;
            }
            if inode.referenced {
                inode.referenced = false;
                self.links.move_to_front(&mut self.lru, id);
                continue;
            }
            cost.inodes_freed += 1;
            cost.freed += self.free(self.inodes[id as usize].ino, slabs);
        }
        cost
    }

    /// The LRU from its tail: (inode, referenced, pinned), for tests and debugging.
    pub(super) fn lru_order(&self) -> Vec<(u64, bool, bool)> {
        self.links
            .iter_back(&self.lru)
            .map(|id| {
                let i = self.inodes[id as usize];
                (i.ino, i.referenced, i.pinned)
            })
            .collect()
    }

    /// Invariants: the index and the LRU agree; `pinned(ino)` says whether a dentry holds `ino` (exactly the
    /// pinned inodes); an inode neither in use nor on the LRU would be lost. Returns inodes per slab, and
    /// the lookups' references over all inodes.
    pub(super) fn check(&self, pinned: impl Fn(u64) -> bool) -> (KeyMap<u32, u16>, u64) {
        let mut per_slab: KeyMap<u32, u16> = KeyMap::default();
        let (mut listed, mut lookups) = (0, 0);
        for (&ino, &id) in &self.index {
            let inode = self.inodes[id as usize];
            assert_eq!(inode.ino, ino, "inode {ino} indexed at another's slot");
            assert_eq!(inode.pinned, pinned(ino), "inode {ino}: pinned without its dentry, or the reverse");
            let listed_here = self.links.in_list(&self.lru, id);
            assert!(listed_here || inode.in_use(), "inode {ino} neither held nor on the LRU: lost");
            listed += listed_here as u64;
            *per_slab.entry(inode.slab).or_default() += 1;
            lookups += inode.lookups as u64;
        }
        assert_eq!(listed, self.unused(), "the LRU holds an inode not cached");
        (per_slab, lookups)
    }
}
