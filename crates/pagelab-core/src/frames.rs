//! The key → frame table: which page (opaque 64-bit key) sits in which frame.
//!
//! Frames are `0..capacity`; a policy keeps its per-page state in arrays indexed by frame. The table stores
//! only frame numbers in its [`BucketIndex`] and compares through `keys[frame]`, so a resident page costs 8
//! bytes of key, about 11 bytes of index and whatever its policy adds (LRU: 8 bytes of links).
//!
//! The per-reference path of a driver hashes each key once: [`FrameTable::hash`], then
//! [`FrameTable::lookup_hashed`] and, on a miss, [`FrameTable::insert_hashed`] with the same hash.

use crate::hash::mix64;
use crate::index::BucketIndex;
use crate::policy::FrameId;

/// A key's hash as the table files it (see [`FrameTable::hash`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyHash(u64);

#[derive(Clone, Debug)]
pub struct FrameTable {
    index: BucketIndex,
    keys: Vec<u64>,
    /// Never-used frames are handed out in order first, then recycled frames (LIFO).
    free: Vec<FrameId>,
    next_unused: FrameId,
    capacity: u32,
}

impl FrameTable {
    /// A table for `capacity` resident pages. Caller guarantees `capacity >= 1`.
    pub fn new(capacity: u32) -> FrameTable {
        assert!(capacity >= 1, "a cache needs at least one frame");
        FrameTable {
            index: BucketIndex::with_capacity(capacity),
            keys: Vec::with_capacity(capacity as usize),
            free: Vec::new(),
            next_unused: 0,
            capacity,
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    pub fn len(&self) -> u32 {
        self.index.len()
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
    pub fn is_full(&self) -> bool {
        self.len() == self.capacity
    }

    /// The hash of `key`, for [`FrameTable::lookup_hashed`] and [`FrameTable::insert_hashed`].
    #[inline(always)]
    pub fn hash(key: u64) -> KeyHash {
        KeyHash(mix64(key))
    }

    #[inline]
    pub fn lookup(&self, key: u64) -> Option<FrameId> {
        self.lookup_hashed(key, Self::hash(key))
    }

    /// Caller guarantees `hash == FrameTable::hash(key)`.
    #[inline(always)]
    pub fn lookup_hashed(&self, key: u64, hash: KeyHash) -> Option<FrameId> {
        debug_assert_eq!(hash, Self::hash(key), "hash of another key");
        let keys = &self.keys;
        self.index.find(hash.0, |f| keys[f as usize] == key)
    }

    /// Place `key` in a free frame. Caller guarantees the key is absent and the table is not full.
    #[inline]
    pub fn insert(&mut self, key: u64) -> FrameId {
        self.insert_hashed(key, Self::hash(key))
    }

    /// [`FrameTable::insert`] with the key's hash already known. Caller guarantees
    /// `hash == FrameTable::hash(key)`, the key is absent and the table is not full.
    #[inline(always)]
    pub fn insert_hashed(&mut self, key: u64, hash: KeyHash) -> FrameId {
        assert!(!self.is_full(), "insert into a full frame table");
        debug_assert!(self.lookup(key).is_none(), "key {key} inserted twice");
        let frame = if let Some(f) = self.free.pop() {
            self.keys[f as usize] = key;
            f
        } else {
            let f = self.next_unused;
            self.next_unused += 1;
            self.keys.push(key);
            f
        };
        self.index.insert(hash.0, frame);
        frame
    }

    /// Free `frame` and return the key it held. Caller guarantees the frame is occupied.
    #[inline]
    pub fn remove(&mut self, frame: FrameId) -> u64 {
        let key = self.keys[frame as usize];
        // Removing by frame (not by key) makes removing a free frame a detected error: its stale key
        // hashes to a chain that no longer lists it.
        assert!(self.index.remove(mix64(key), frame), "frame {frame} is not occupied");
        self.free.push(frame);
        key
    }

    /// Put `key` in the occupied `frame` in place of its page, whose key it returns: a full cache's miss,
    /// the victim's frame reused at once without passing through the free list. Caller guarantees
    /// `hash == FrameTable::hash(key)`, the key is absent and the frame is occupied.
    #[inline(always)]
    pub fn replace_hashed(&mut self, frame: FrameId, key: u64, hash: KeyHash) -> u64 {
        debug_assert!(self.lookup(key).is_none(), "key {key} inserted twice");
        let slot = &mut self.keys[frame as usize];
        let old = std::mem::replace(slot, key);
        assert!(self.index.remove(mix64(old), frame), "frame {frame} is not occupied");
        self.index.insert(hash.0, frame);
        old
    }

    #[inline]
    pub fn key(&self, frame: FrameId) -> u64 {
        self.keys[frame as usize]
    }

    /// Keys by frame; a free frame holds the stale key of its last page. Policies that remember evicted keys (ghosts)
    /// read the victim's key here.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Conservation of frames (every frame handed out is indexed or free, never both) and the index's own
    /// consistency. O(capacity): for tests and debug checks, not the per-reference path.
    pub fn check(&self) {
        assert_eq!(
            self.index.len() as usize + self.free.len(),
            self.next_unused as usize,
            "frames lost or duplicated"
        );
        let keys = &self.keys;
        self.index.check(|f| mix64(keys[f as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_reused_and_keys_found() {
        let mut t = FrameTable::new(3);
        let a = t.insert(10);
        let b = t.insert(20);
        assert_eq!((a, b), (0, 1));
        assert_eq!(t.lookup(20), Some(1));
        assert_eq!(t.remove(a), 10);
        assert_eq!(t.lookup(10), None);
        assert_eq!(t.insert(30), 0, "freed frame is reused");
        assert_eq!(t.insert(40), 2);
        assert!(t.is_full());
        assert_eq!(t.len(), 3);
        let h = FrameTable::hash(40);
        assert_eq!(t.lookup_hashed(40, h), Some(2));
        assert_eq!(t.replace_hashed(2, 50, FrameTable::hash(50)), 40);
        assert_eq!((t.lookup(40), t.lookup(50), t.key(2), t.len()), (None, Some(2), 50, 3));
        t.check();
    }

    #[test]
    fn churn_at_capacity_keeps_every_key_findable() {
        let mut t = FrameTable::new(100);
        let mut resident = std::collections::VecDeque::new();
        for key in 0..10_000u64 {
            let key = key * 7919;
            if t.is_full() {
                let (old_key, frame) = resident.pop_front().unwrap();
                assert_eq!(t.remove(frame), old_key);
            }
            resident.push_back((key, t.insert_hashed(key, FrameTable::hash(key))));
        }
        for &(key, frame) in &resident {
            assert_eq!(t.lookup(key), Some(frame));
        }
        t.check();
    }

    #[test]
    #[should_panic(expected = "not occupied")]
    fn removing_a_free_frame_panics() {
        let mut t = FrameTable::new(2);
        let f = t.insert(u64::MAX);
        t.remove(f);
        t.remove(f);
    }

    #[test]
    #[should_panic(expected = "not occupied")]
    fn replacing_in_a_free_frame_panics() {
        let mut t = FrameTable::new(2);
        let f = t.insert(1);
        t.remove(f);
        t.replace_hashed(f, 2, FrameTable::hash(2));
    }

    #[test]
    #[should_panic(expected = "full")]
    fn overfilling_panics() {
        let mut t = FrameTable::new(1);
        t.insert(1);
        t.insert(2);
    }
}
