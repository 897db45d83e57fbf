//! [`GhostDirectory`]: the keys of pages that left the cache recently, as ARC's B1/B2, 2Q's A1out and
//! LIRS's non-resident HIR entries keep them. One implementation, so that the three policies pay the same
//! (one hash probe per lookup, add or forget) and share its conservation check.

use crate::hash::mix64;
use crate::index::BucketIndex;

/// Keys of pages that were evicted recently ("ghosts"), each held by a node `base..base + slots` of the
/// owner's [`Links`] arena, with a hash index from key to node. The owner threads the nodes through its
/// ghost lists; this table only hands out nodes and finds them by key.
#[derive(Clone, Debug)]
pub(crate) struct GhostDirectory {
    base: u32,
    keys: Vec<u64>,
    free: Vec<u32>,
    /// Node ids, hashed by their key, as in [`crate::frames::FrameTable`]; sized for every slot, so the
    /// steady state never allocates.
    index: BucketIndex,
}

impl GhostDirectory {
    /// A directory of `slots` ghost nodes numbered `base..base + slots`.
    pub(crate) fn new(base: u32, slots: u32) -> GhostDirectory {
        assert!(
            base.checked_add(slots).is_some_and(|end| end < crate::list::NIL),
            "ghost nodes overflow u32"
        );
        GhostDirectory {
            base,
            keys: vec![0; slots as usize],
            // Popped from the back: node `base` first, so that state dumps are stable.
            free: (base..base + slots).rev().collect(),
            index: BucketIndex::with_capacity(slots),
        }
    }

    /// The live ghost node holding `key`, if any.
    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<u32> {
        let (keys, base) = (&self.keys, self.base);
        self.index.find(mix64(key), |n| keys[(n - base) as usize] == key)
    }

    pub(crate) fn len(&self) -> u32 {
        self.index.len()
    }

    pub(crate) fn is_full(&self) -> bool {
        self.free.is_empty()
    }

    /// The key a live ghost node holds.
    #[inline]
    pub(crate) fn key(&self, node: u32) -> u64 {
        self.keys[(node - self.base) as usize]
    }

    /// Slot of a node in `0..slots`, for the owner's per-ghost arrays.
    #[inline]
    pub(crate) fn slot(&self, node: u32) -> usize {
        (node - self.base) as usize
    }

    /// Find `key` and drop it from the directory in one probe; returns its node, now free. The caller must
    /// unlink the node from its list before the next [`GhostDirectory::add`].
    #[inline]
    pub(crate) fn take(&mut self, key: u64) -> Option<u32> {
        let hash = mix64(key);
        let (keys, base) = (&self.keys, self.base);
        let node = self.index.find(hash, |n| keys[(n - base) as usize] == key)?;
        // The second probe walks the chain the first just read: the same cache line, almost always.
        assert!(self.index.remove(hash, node), "ghost node {node} found but not removable");
        self.free.push(node);
        Some(node)
    }

    /// Remember `key` on a free node and return it. Caller guarantees the directory is not full and `key`
    /// is not in it.
    #[inline]
    pub(crate) fn add(&mut self, key: u64) -> u32 {
        let node = self.free.pop().expect("ghost directory full");
        let base = self.base;
        self.keys[(node - base) as usize] = key;
        self.index.insert(mix64(key), node);
        node
    }

    /// Drop the live ghost `node` (already unlinked by the caller) from the directory.
    #[inline]
    pub(crate) fn forget(&mut self, node: u32) {
        let key = self.key(node);
        // Removing by node (not by key) makes forgetting a free node a detected error.
        assert!(self.index.remove(mix64(key), node), "ghost node {node} is not live");
        self.free.push(node);
    }

    /// Conservation: every node is either live (indexed) or free, never both, never neither.
    pub(crate) fn check(&self) {
        assert_eq!(
            self.index.len() as usize + self.free.len(),
            self.keys.len(),
            "ghost nodes lost or duplicated"
        );
    }
}
