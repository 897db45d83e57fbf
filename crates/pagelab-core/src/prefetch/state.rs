//! [`RaStates`]: one [`FileRaState`] per (stream, file), with memory bounded by the pairs still open.
//! The state type is a parameter: Linux 2.6.12–2.6.18's readahead keeps more per file (an ahead window,
//! flags, a cache-hit count) than the on-demand algorithm's `FileRaState`.
//!
//! Linux keeps `f_ra` inside `struct file`, so it dies with the file. pagelab's streams (request handlers,
//! open file handles) come and go by the thousand, so the states live in an arena of plain slots indexed
//! by `u32`: a hash map finds a pair's slot, an intrusive list per stream threads that stream's slots so
//! that closing a stream frees exactly its states, and freed slots are reused before the arena grows.

use super::FileRaState;
use crate::hash::KeyMap;
use crate::key::{FileId, StreamId};
use crate::list::{Links, List};

#[derive(Clone, Debug)]
struct Slot<S> {
    stream: StreamId,
    file: FileId,
    ra: S,
}

#[derive(Clone, Debug)]
pub struct RaStates<S = FileRaState> {
    /// (stream, file) packed by [`pair_key`] → slot.
    slot_of: KeyMap<u64, u32>,
    slots: Vec<Slot<S>>,
    /// Threads each stream's slots; a free slot is in no list.
    links: Links,
    by_stream: KeyMap<u32, List>,
    free: Vec<u32>,
}

impl<S> Default for RaStates<S> {
    fn default() -> Self {
        RaStates::new()
    }
}

fn pair_key(stream: StreamId, file: FileId) -> u64 {
    ((stream.0 as u64) << 32) | file.0 as u64
}

impl<S> RaStates<S> {
    pub fn new() -> RaStates<S> {
        RaStates {
            slot_of: KeyMap::default(),
            slots: Vec::new(),
            links: Links::new(0),
            by_stream: KeyMap::default(),
            free: Vec::new(),
        }
    }

    /// States held (pairs opened and not closed).
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    pub fn get(&self, stream: StreamId, file: FileId) -> Option<&S> {
        let slot = *self.slot_of.get(&pair_key(stream, file))?;
        Some(&self.slots[slot as usize].ra)
    }

    /// The state of (`stream`, `file`), if it is open; never creates one.
    pub fn get_mut(&mut self, stream: StreamId, file: FileId) -> Option<&mut S> {
        let slot = *self.slot_of.get(&pair_key(stream, file))?;
        Some(&mut self.slots[slot as usize].ra)
    }

    /// Calls `f` on every open state, in slot order: O(states open).
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut S)) {
        let mut live: Vec<u32> = self.slot_of.values().copied().collect();
        live.sort_unstable();
        for slot in live {
            f(&mut self.slots[slot as usize].ra);
        }
    }

    /// The state of (`stream`, `file`), created as `init` on first use (the file is opened).
    pub fn open(&mut self, stream: StreamId, file: FileId, init: S) -> &mut S {
        let key = pair_key(stream, file);
        let slot = match self.slot_of.get(&key) {
            Some(&slot) => slot,
            None => self.insert(key, Slot { stream, file, ra: init }),
        };
        &mut self.slots[slot as usize].ra
    }

    fn insert(&mut self, key: u64, new: Slot<S>) -> u32 {
        let stream = new.stream;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = new;
                slot
            }
            None => {
                assert!(self.slots.len() < u32::MAX as usize, "readahead state arena full");
                self.slots.push(new);
                self.links.grow(self.slots.len() as u32);
                (self.slots.len() - 1) as u32
            }
        };
        self.slot_of.insert(key, slot);
        let list = self.by_stream.entry(stream.0).or_default();
        self.links.push_front(list, slot);
        self.check_conservation();
        slot
    }

    /// Drops every state of `stream`; returns how many.
    pub fn close_stream(&mut self, stream: StreamId) -> usize {
        let Some(mut list) = self.by_stream.remove(&stream.0) else {
            return 0;
        };
        let n = list.len() as usize;
        for _ in 0..n {
            let slot = self.links.pop_front(&mut list).expect("stream list shorter than its length");
            let s = &self.slots[slot as usize];
            assert_eq!(s.stream, stream, "slot {slot} threaded on another stream's list");
            self.slot_of.remove(&pair_key(s.stream, s.file)).expect("listed slot not indexed");
            self.free.push(slot);
        }
        assert!(list.is_empty(), "stream list longer than its length");
        self.check_conservation();
        n
    }

    /// Drops the state of (`stream`, `file`); returns whether there was one.
    pub fn close_file(&mut self, stream: StreamId, file: FileId) -> bool {
        let Some(slot) = self.slot_of.remove(&pair_key(stream, file)) else {
            return false;
        };
        let list = self.by_stream.get_mut(&stream.0).expect("indexed slot without a stream list");
        self.links.remove(list, slot);
        if list.is_empty() {
            self.by_stream.remove(&stream.0);
        }
        self.free.push(slot);
        self.check_conservation();
        true
    }

    /// Every slot is either indexed (and on its stream's list) or free.
    fn check_conservation(&self) {
        assert_eq!(self.slot_of.len() + self.free.len(), self.slots.len(), "readahead state slots leaked");
        debug_assert_eq!(
            self.by_stream.values().map(|l| l.len() as usize).sum::<usize>(),
            self.slot_of.len(),
            "per-stream lists disagree with the index"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ra(start: u64) -> FileRaState {
        FileRaState { start, ..FileRaState::new(32) }
    }

    #[test]
    fn open_close_reuses_slots_and_keeps_pairs_apart() {
        let mut s = RaStates::new();
        s.open(StreamId(1), FileId(1), ra(10));
        s.open(StreamId(1), FileId(2), ra(20));
        s.open(StreamId(2), FileId(1), ra(30));
        // A second open finds the existing state, not a fresh one.
        assert_eq!(s.open(StreamId(1), FileId(1), ra(99)).start, 10);
        assert_eq!(s.len(), 3);
        assert_eq!(s.get(StreamId(2), FileId(1)).map(|r| r.start), Some(30));

        assert_eq!(s.close_stream(StreamId(1)), 2);
        assert_eq!(s.len(), 1);
        assert!(s.get(StreamId(1), FileId(1)).is_none() && s.get(StreamId(1), FileId(2)).is_none());
        assert_eq!(s.get(StreamId(2), FileId(1)).map(|r| r.start), Some(30));
        assert_eq!(s.close_stream(StreamId(1)), 0, "closing twice drops nothing");

        // Freed slots are reused: the arena does not grow while the open pairs stay few.
        s.open(StreamId(3), FileId(7), ra(40));
        s.open(StreamId(3), FileId(8), ra(50));
        assert_eq!(s.slots.len(), 3);
        assert!(s.close_file(StreamId(3), FileId(7)));
        assert!(!s.close_file(StreamId(3), FileId(7)));
        assert_eq!(s.get(StreamId(3), FileId(8)).map(|r| r.start), Some(50));
        assert_eq!(s.close_stream(StreamId(3)), 1);
        assert_eq!(s.close_stream(StreamId(2)), 1);
        assert!(s.is_empty() && s.by_stream.is_empty());
    }
}
