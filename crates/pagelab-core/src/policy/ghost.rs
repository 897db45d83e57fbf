//! [`GhostDirectory`]: the keys of pages that left the cache recently, as ARC's B1/B2, 2Q's A1out and
//! LIRS's non-resident HIR entries keep them. One implementation, so that the three policies pay the same
//! (one hash probe per lookup, add or forget) and share its conservation check.

use crate::hash::mix64;
use hashbrown::HashTable;

/// Keys of pages that were evicted recently ("ghosts"), each held by a node `base..base + slots` of the
/// owner's [`Links`] arena, with a hash index from key to node. The owner threads the nodes through its
/// ghost lists; this table only hands out nodes and finds them by key.
#[derive(Clone, Debug)]
pub(crate) struct GhostDirectory {
    base: u32,
    keys: Vec<u64>,
    free: Vec<u32>,
    /// Node ids, hashed by their key. Sized for twice the slots so that hashbrown always rehashes in place
    /// (it grows only when more than half its capacity is live), keeping the steady state allocation-free.
    /// Buckets hold only the node id, as in [`crate::frames::FrameTable`]: a bucket with the key beside it
    /// (12 bytes instead of 4) was measured slower on large caches, where the bigger table spills from the
    /// CPU caches.
    index: HashTable<u32>,
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
            index: HashTable::with_capacity(2 * slots as usize),
        }
    }

    /// The live ghost node holding `key`, if any.
    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<u32> {
        let (keys, base) = (&self.keys, self.base);
        self.index.find(mix64(key), |&n| keys[(n - base) as usize] == key).copied()
    }

    pub(crate) fn len(&self) -> u32 {
        self.index.len() as u32
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
        let (keys, base) = (&self.keys, self.base);
        let entry = self.index.find_entry(mix64(key), |&n| keys[(n - base) as usize] == key).ok()?;
        let (node, _) = entry.remove();
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
        let keys = &self.keys;
        self.index.insert_unique(mix64(key), node, |&n| mix64(keys[(n - base) as usize]));
        node
    }

    /// Drop the live ghost `node` (already unlinked by the caller) from the directory.
    #[inline]
    pub(crate) fn forget(&mut self, node: u32) {
        let key = self.key(node);
        // Matching on the node (not the key) makes forgetting a free node a detected error.
        match self.index.find_entry(mix64(key), |&n| n == node) {
            Ok(entry) => {
                entry.remove();
            }
            Err(_) => panic!("ghost node {node} is not live"),
        }
        self.free.push(node);
    }

    /// Conservation: every node is either live (indexed) or free, never both, never neither.
    pub(crate) fn check(&self) {
        assert_eq!(self.index.len() + self.free.len(), self.keys.len(), "ghost nodes lost or duplicated");
    }
}
