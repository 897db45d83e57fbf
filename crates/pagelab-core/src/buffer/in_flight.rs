//! The reads in flight: each read the cache issued, exactly as it issued it, with the frames its pages
//! occupy, recorded as the read is built. A completion (or failure) then finds its pages by the fetch's id
//! alone, where a lookup of each page's key cost a hash probe per page on the simulator's hottest path,
//! and a driver's [`Fetch`] is checked against the one issued, field by field.
//!
//! Writes are not here: their pages stay resident (dirty, under writeback) and are found by key.

use super::Fetch;
use crate::hash::KeyMap;
use crate::policy::FrameId;

#[derive(Default)]
pub(super) struct InFlightReads {
    /// Issued reads by fetch id, with their pages' frames in page order.
    issued: KeyMap<u64, (Fetch, Vec<FrameId>)>,
    /// The frames of the read being built: joined, not yet issued.
    building: Vec<FrameId>,
    /// Emptied frame lists, reused: at most as many as reads were ever in flight at once.
    spare: Vec<Vec<FrameId>>,
    /// Pages of the issued reads.
    pages: u32,
}

impl InFlightReads {
    /// The page in `frame` is the next of the read being built.
    #[inline(always)]
    pub fn join(&mut self, frame: FrameId) {
        self.building.push(frame);
    }

    /// The read being built is issued as `fetch`. Caller guarantees it joined exactly `fetch.pages` frames
    /// since the last issue, in page order, and that `fetch.id` is new.
    #[inline]
    pub fn issue(&mut self, fetch: Fetch) {
        assert_eq!(self.building.len(), fetch.pages as usize, "read {} issued with other pages", fetch.id);
        let next = self.spare.pop().unwrap_or_default();
        let frames = std::mem::replace(&mut self.building, next);
        self.pages += fetch.pages;
        let old = self.issued.insert(fetch.id, (fetch, frames));
        assert!(old.is_none(), "read {} issued twice", fetch.id);
    }

    /// Read `id` was issued and has not finished.
    pub fn is_issued(&self, id: u64) -> bool {
        self.issued.contains_key(&id)
    }

    /// The frames of the issued read `fetch`, in page order; `None` unless the cache issued exactly this
    /// fetch and it has not finished.
    #[inline]
    pub fn frames(&self, fetch: &Fetch) -> Option<&[FrameId]> {
        match self.issued.get(&fetch.id) {
            Some((issued, frames)) if issued == fetch => Some(frames),
            _ => None,
        }
    }

    /// The issued read `fetch` is over (completed or failed): its frames, for the caller to hand back with
    /// [`InFlightReads::recycle`]. `None` as [`InFlightReads::frames`].
    #[inline]
    pub fn finish(&mut self, fetch: &Fetch) -> Option<Vec<FrameId>> {
        let hashbrown::hash_map::Entry::Occupied(entry) = self.issued.entry(fetch.id) else { return None };
        if entry.get().0 != *fetch {
            return None;
        }
        let (_, frames) = entry.remove();
        self.pages -= fetch.pages;
        Some(frames)
    }

    /// A list [`InFlightReads::finish`] returned, emptied and kept for a later read.
    #[inline]
    pub fn recycle(&mut self, mut frames: Vec<FrameId>) {
        frames.clear();
        self.spare.push(frames);
    }

    /// Pages of the issued reads (for the conservation check: every page in flight is one of them).
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// No read is being built between calls.
    pub fn idle(&self) -> bool {
        self.building.is_empty()
    }
}
