//! The reads in flight: each read the cache issued, exactly as it issued it, with the frames its pages
//! occupy, recorded as the read is built. A completion (or failure) then finds its pages by the fetch's id
//! alone, where a lookup of each page's key cost a hash probe per page on the simulator's hottest path,
//! and a driver's [`Fetch`] is checked against the one issued, field by field.
//!
//! Writes are not here: their pages stay resident (dirty, under writeback) and are found by key.

use super::Fetch;
use crate::hash::KeyMap;
use crate::policy::FrameId;

/// An issued read: the fetch as issued, its pages' frames in page order, and whether any of its pages was
/// invalidated in flight (marked stale: its completion drops them).
struct Issued {
    fetch: Fetch,
    frames: Vec<FrameId>,
    stale: bool,
}

#[derive(Default)]
pub(super) struct InFlightReads {
    /// Issued reads by fetch id.
    issued: KeyMap<u64, Issued>,
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
        let old = self.issued.insert(fetch.id, Issued { fetch, frames, stale: false });
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
            Some(issued) if issued.fetch == *fetch => Some(&issued.frames),
            _ => None,
        }
    }

    /// A page of the issued read `id` was marked stale (its file changed while it was read): the read's
    /// completion must look at its pages one by one. Caller guarantees `id` is issued and not finished.
    pub fn mark_stale(&mut self, id: u64) {
        self.issued.get_mut(&id).expect("a page marked stale is in flight under an issued read").stale = true;
    }

    /// The issued read `fetch` is over (completed or failed): its frames, for the caller to hand back with
    /// [`InFlightReads::recycle`], and whether any of its pages was marked stale
    /// ([`InFlightReads::mark_stale`]). `None` as [`InFlightReads::frames`].
    #[inline]
    pub fn finish(&mut self, fetch: &Fetch) -> Option<(Vec<FrameId>, bool)> {
        let hashbrown::hash_map::Entry::Occupied(entry) = self.issued.entry(fetch.id) else { return None };
        if entry.get().fetch != *fetch {
            return None;
        }
        let Issued { frames, stale, .. } = entry.remove();
        self.pages -= fetch.pages;
        Some((frames, stale))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{FileId, Lbn, StreamId};

    fn read(id: u64, pages: u32) -> Fetch {
        let (file, owner) = (FileId(1), StreamId(0));
        Fetch { id, file, first_page: 0, lbn: Lbn(0), pages, sync: true, write: false, owner }
    }

    fn issue(reads: &mut InFlightReads, fetch: Fetch, first_frame: FrameId) {
        for frame in first_frame..first_frame + fetch.pages {
            reads.join(frame);
        }
        reads.issue(fetch);
    }

    /// A read with a page marked stale says so when it finishes, and only that read: the completion of the
    /// others goes on without looking at their pages one by one.
    #[test]
    fn a_read_finishes_stale_only_if_one_of_its_pages_was_marked() {
        let mut reads = InFlightReads::default();
        issue(&mut reads, read(1, 2), 10);
        issue(&mut reads, read(2, 3), 20);
        reads.mark_stale(2);
        assert_eq!(reads.finish(&read(1, 2)), Some((vec![10, 11], false)));
        assert_eq!(reads.finish(&read(2, 3)), Some((vec![20, 21, 22], true)));
        assert_eq!(reads.finish(&read(2, 3)), None, "finished once");
        assert_eq!(reads.pages(), 0);
    }

    #[test]
    #[should_panic(expected = "in flight under an issued read")]
    fn marking_a_page_of_no_read_in_flight_is_a_bug() {
        InFlightReads::default().mark_stale(7);
    }
}
