//! The page cache section: file pages under one replacement policy, and the pages under I/O that will
//! join it. The buffer cache ([`super::BufferCache`]) drives it; this file keeps the per-page state and
//! the order of the calls into the policy (the [`Replacement`] protocol), and is the section that
//! reclaim takes pages from ([`CacheSection`]).

use super::Slot;
use crate::frames::FrameTable;
use crate::key::{Lbn, PageKey, StreamId};
use crate::memory::{CacheSection, ReclaimCost};
use crate::policy::{Access, AnyPolicy, FrameId, History, PolicyKind, Replacement, NEVER};
use crate::time::Nanos;

/// Page flags, one byte per id.
pub(super) mod flag {
    /// Contents are valid (the fetch completed).
    pub const UPTODATE: u8 = 1;
    /// Brought in by readahead and not yet accessed by anyone.
    pub const PREFETCHED: u8 = 2;
    /// Linux PG_readahead: reaching this page starts the next asynchronous readahead.
    pub const MARKER: u8 = 4;
    /// A page of a `read()` call fetched by that call's synchronous window (`demand_read` names the call):
    /// the call finds it as a miss, and its insertion into the policy is that call's access.
    pub const DEMANDED: u8 = 8;
    /// Invalidated while its fetch was in flight: dropped, not inserted, when the fetch completes.
    pub const STALE: u8 = 16;
}

/// A page that reclaim took out of the section, for the buffer cache to account for (its observer, its
/// slot, its memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Evicted {
    pub key: PageKey,
    pub owner: StreamId,
    pub flags: u8,
    pub slot: Slot,
}

/// A page taken into a frame for a fetch: what the section records about it.
pub(super) struct Incoming {
    pub key: u64,
    pub owner: StreamId,
    pub lbn: Lbn,
    pub flags: u8,
    pub fetch: u64,
    pub read: u64,
    pub history: History,
    pub slot: Slot,
}

pub(super) struct PageCache {
    pub table: FrameTable,
    policy: AnyPolicy,
    /// Per id (frames and the policy's shadow entries): only frames' entries are meaningful.
    pub flags: Vec<u8>,
    pub owner: Vec<StreamId>,
    lbn: Vec<Lbn>,
    /// The fetch that brings the page in, while in flight.
    pub fetch_of: Vec<u64>,
    /// The read call whose synchronous window fetched the page (with `flag::DEMANDED`).
    pub demand_read: Vec<u64>,
    /// What `on_miss` returned for the page, until `on_insert`.
    history: Vec<History>,
    /// Where the page's data lives.
    pub slot: Vec<Slot>,
    in_flight: u32,
    /// Pages (resident or in flight) brought in by readahead and not yet used.
    prefetched_unused: u32,
    /// Logical time of the policy's references.
    vtime: u64,
    /// The policy's `pages_scanned()` at the end of the last reclaim.
    scanned_seen: u64,
    /// The history the next eviction is for ([`PageCache::steer_next_eviction`]).
    incoming: History,
}

impl PageCache {
    pub fn new(kind: PolicyKind, capacity: u32) -> PageCache {
        let policy = AnyPolicy::new(kind, capacity);
        let table = FrameTable::with_shadows(capacity, policy.shadow_slots());
        // Per-page state by id: a policy's shadow entries take ids beyond the frames.
        let ids = table.ids() as usize;
        PageCache {
            table,
            policy,
            flags: vec![0; ids],
            owner: vec![StreamId(0); ids],
            lbn: vec![Lbn(0); ids],
            fetch_of: vec![0; ids],
            demand_read: vec![0; ids],
            history: vec![History::NONE; ids],
            slot: vec![0; ids],
            in_flight: 0,
            prefetched_unused: 0,
            vtime: 0,
            scanned_seen: 0,
            incoming: History::NONE,
        }
    }

    pub fn policy_state(&self) -> String {
        self.policy.state(&self.table)
    }
    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }
    /// Pages in the policy (frames in use minus pages in flight: no call into the policy).
    #[inline]
    pub fn resident_pages(&self) -> u32 {
        self.table.len() - self.in_flight
    }
    pub fn in_flight_pages(&self) -> u32 {
        self.in_flight
    }
    pub fn prefetched_unused_pages(&self) -> u32 {
        self.prefetched_unused
    }

    /// The first use of the page in `frame`: if readahead brought it in, it is a prefetched page no more.
    /// Returns whether it was one.
    pub fn first_use(&mut self, frame: FrameId) -> bool {
        let f = frame as usize;
        let was = self.flags[f] & flag::PREFETCHED != 0;
        self.flags[f] &= !flag::PREFETCHED;
        self.prefetched_unused -= was as u32;
        was
    }

    /// The frame of page `key`, resident or in flight.
    #[inline]
    pub fn lookup(&self, key: u64) -> Option<FrameId> {
        self.table.lookup(key)
    }

    #[inline]
    pub fn is_uptodate(&self, frame: FrameId) -> bool {
        self.flags[frame as usize] & flag::UPTODATE != 0
    }

    fn tick(&mut self) -> u64 {
        self.vtime += 1;
        self.vtime
    }

    /// `on_miss` for a page about to be fetched: the policy takes the page's history.
    pub fn announce(&mut self, key: u64, lbn: Lbn, prefetch: bool) -> History {
        let access = Access { key, vtime: self.vtime, next_vtime: NEVER, lbn, prefetch };
        self.policy.on_miss(&access, &mut self.table.shadows())
    }

    /// Whether reclaim could free a page now.
    #[inline]
    pub fn has_victims(&self) -> bool {
        self.resident_pages() > 0
    }

    /// A frame for the announced page `page.key`, its fetch in flight. Caller guarantees the table has room
    /// (memory was taken for the page) and the key is not cached.
    pub fn take_frame(&mut self, page: Incoming) -> FrameId {
        let frame = self.table.insert(page.key);
        let f = frame as usize;
        self.flags[f] = page.flags;
        self.owner[f] = page.owner;
        self.lbn[f] = page.lbn;
        self.fetch_of[f] = page.fetch;
        self.demand_read[f] = page.read;
        self.history[f] = page.history;
        self.slot[f] = page.slot;
        self.in_flight += 1;
        self.prefetched_unused += (page.flags & flag::PREFETCHED != 0) as u32;
        frame
    }

    /// The fetch of `frame` completed: the page becomes valid and joins the policy (`on_insert` with the
    /// history its `on_miss` returned).
    pub fn complete(&mut self, frame: FrameId) {
        let f = frame as usize;
        debug_assert_eq!(self.flags[f] & (flag::UPTODATE | flag::STALE), 0, "completing a page twice");
        self.flags[f] |= flag::UPTODATE;
        self.in_flight -= 1;
        let access = Access {
            key: self.table.key(frame),
            vtime: self.tick(),
            next_vtime: NEVER,
            lbn: self.lbn[f],
            prefetch: self.flags[f] & flag::DEMANDED == 0,
        };
        let history = std::mem::take(&mut self.history[f]);
        self.policy.on_insert(frame, &access, history, &mut self.table.shadows());
    }

    /// A reader referenced the resident page in `frame`.
    pub fn hit(&mut self, frame: FrameId) {
        let access = Access {
            key: self.table.key(frame),
            vtime: self.tick(),
            next_vtime: NEVER,
            lbn: self.lbn[frame as usize],
            prefetch: false,
        };
        self.policy.on_hit(frame, &access, &mut self.table.shadows());
    }

    /// Drop the page in `frame` without evicting it: from the policy if resident, from the in-flight pages
    /// if not. Returns its slot.
    pub fn drop_page(&mut self, frame: FrameId) -> Slot {
        let f = frame as usize;
        if self.flags[f] & flag::UPTODATE != 0 {
            self.policy.on_remove(frame, &mut self.table.shadows());
        } else {
            self.in_flight -= 1;
            self.history[f] = History::NONE;
        }
        self.prefetched_unused -= (self.flags[f] & flag::PREFETCHED != 0) as u32;
        self.flags[f] = 0;
        self.table.remove(frame);
        self.slot[f]
    }

    /// The next eviction makes room for a page whose `on_miss` returned `history` (ARC's REPLACE reads it);
    /// the evictions after it are for no page in particular.
    pub fn steer_next_eviction(&mut self, history: History) {
        self.incoming = history;
    }

    /// Frames in use = pages in the policy + pages in flight, within capacity.
    pub fn check(&self) {
        assert_eq!(
            self.table.len(),
            self.policy.len() + self.in_flight,
            "page conservation: frames in use != resident + in flight"
        );
        assert!(self.table.len() <= self.table.capacity(), "frame table over capacity");
        assert!(self.prefetched_unused <= self.table.len(), "more prefetched pages than pages");
    }
}

impl CacheSection for PageCache {
    type Freed = Evicted;

    fn pages(&self) -> u32 {
        self.table.len()
    }

    fn reclaimable_pages(&self) -> u32 {
        self.resident_pages()
    }

    /// The policy's victims, the first for the page [`PageCache::steer_next_eviction`] named. Pages in
    /// flight are not the policy's, so they are neither scanned nor freed.
    #[inline]
    fn reclaim(&mut self, target: u32, _: Nanos, freed: &mut impl FnMut(Evicted)) -> ReclaimCost {
        let mut history = std::mem::take(&mut self.incoming);
        let victims = target.min(self.resident_pages());
        for _ in 0..victims {
            let frame = self.policy.evict(history, &mut self.table.shadows());
            history = History::NONE;
            let f = frame as usize;
            debug_assert_ne!(self.flags[f] & flag::UPTODATE, 0, "the policy evicted a page under I/O");
            let key = PageKey::from_raw(self.table.remove(frame));
            freed(Evicted { key, owner: self.owner[f], flags: self.flags[f], slot: self.slot[f] });
            self.prefetched_unused -= (self.flags[f] & flag::PREFETCHED != 0) as u32;
            self.flags[f] = 0;
        }
        // The scan beyond the victims, from the policy's running count.
        let scanned_total = self.policy.pages_scanned();
        let passed = scanned_total - std::mem::replace(&mut self.scanned_seen, scanned_total);
        ReclaimCost { scanned: victims as u64 + passed, freed: victims as u64 }
    }
}
