//! The key → frame table: which page (opaque 64-bit key) sits in which frame.
//!
//! Frames are `0..capacity`; a policy keeps its per-page state in arrays indexed by frame. The table stores
//! only frame numbers in its hash index and compares through `keys[frame]`, so a resident page costs 8 bytes
//! of key, about 5–10 bytes of index and whatever its policy adds (LRU: 8 bytes of links).

use crate::hash::mix64;
use crate::policy::FrameId;
use hashbrown::HashTable;

#[derive(Clone, Debug)]
pub struct FrameTable {
    index: HashTable<FrameId>,
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
            index: HashTable::with_capacity(capacity as usize),
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
        self.index.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
    pub fn is_full(&self) -> bool {
        self.len() == self.capacity
    }

    #[inline]
    pub fn lookup(&self, key: u64) -> Option<FrameId> {
        let keys = &self.keys;
        self.index.find(mix64(key), |&f| keys[f as usize] == key).copied()
    }

    /// Place `key` in a free frame. Caller guarantees the key is absent and the table is not full.
    #[inline]
    pub fn insert(&mut self, key: u64) -> FrameId {
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
        let keys = &self.keys;
        self.index.insert_unique(mix64(key), frame, |&f| mix64(keys[f as usize]));
        frame
    }

    /// Free `frame` and return the key it held. Caller guarantees the frame is occupied.
    #[inline]
    pub fn remove(&mut self, frame: FrameId) -> u64 {
        let key = self.keys[frame as usize];
        // Matching on the frame (not the key) makes removing a free frame a detected error: its stale key
        // hashes to a bucket that no longer lists it.
        match self.index.find_entry(mix64(key), |&f| f == frame) {
            Ok(entry) => {
                entry.remove();
            }
            Err(_) => panic!("frame {frame} is not occupied"),
        }
        self.free.push(frame);
        key
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
    #[should_panic(expected = "full")]
    fn overfilling_panics() {
        let mut t = FrameTable::new(1);
        t.insert(1);
        t.insert(2);
    }
}
