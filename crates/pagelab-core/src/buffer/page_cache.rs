//! The page cache section: file pages under one replacement policy, and the pages under I/O that will
//! join it. The buffer cache ([`super::BufferCache`]) drives it; this file keeps the per-page state and
//! the order of the calls into the policy (the [`Replacement`] protocol), and is the section that
//! reclaim takes pages from ([`CacheSection`]).

use super::Slot;
use crate::frames::FrameTable;
use crate::hash::KeyMap;
use crate::key::{FileId, Lbn, PageKey, StreamId};
use crate::memory::{CacheSection, FreedSink, ReclaimCost};
use crate::pcache::{PrefetchCache, PrefetchCacheConfig};
use crate::policy::dulo::DuloStats;
use crate::policy::{Access, AnyPolicy, DuloConfig, FrameId, History, PolicyKind, Replacement, NEVER};
use crate::time::Nanos;

/// The policy's view of a reference to page `key` at logical time `vtime` (future unknown): an anonymous
/// page is mapped into a process ([`Access::mapped`]).
#[inline]
fn policy_access(key: u64, vtime: u64, lbn: Lbn, prefetch: bool) -> Access {
    Access { key, vtime, next_vtime: NEVER, lbn, prefetch, mapped: PageKey::from_raw(key).file().is_anon() }
}

/// Page flags, one byte per id.
pub(super) mod flag {
    /// Contents are valid (the fetch completed).
    pub const UPTODATE: u8 = 1;
    /// Brought in by readahead and not yet accessed by anyone.
    pub const PREFETCHED: u8 = 2;
    /// Linux PG_readahead: reaching this page starts the next asynchronous readahead.
    pub const MARKER: u8 = 4;
    /// A page of a `read()` call fetched by that call's synchronous window (its record names the call:
    /// [`super::FrameMeta::demanded_by`]):
    /// the call finds it as a miss, and its insertion into the policy is that call's access.
    pub const DEMANDED: u8 = 8;
    /// Invalidated while its fetch was in flight: dropped, not inserted, when the fetch completes.
    pub const STALE: u8 = 16;
    /// Modified since last written (a file page written by a reader's `write()`, an anonymous page that was
    /// zero-filled or written since its copy in swap).
    pub const DIRTY: u8 = 32;
    /// Its write is in flight (Linux PG_writeback).
    pub const WRITEBACK: u8 = 64;
}

/// "No swap slot" in [`FrameMeta::anon_slot`] and [`Writing::anon_slot`].
pub(super) const NO_SWAP_SLOT: u64 = u64::MAX;

/// [`NO_SWAP_SLOT`] in a [`FrameMeta`]'s 32 bits: no slot has this number, since a swap area has at most
/// `u32::MAX` slots ([`super::BufferCache::with_observer`] refuses a larger one).
const NO_SWAP_SLOT_32: u32 = u32::MAX;

/// A page that reclaim took out of the section, for the buffer cache to account for (its observer, its
/// slot, its memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Evicted {
    pub key: PageKey,
    pub owner: StreamId,
    pub flags: u8,
    pub slot: Slot,
    /// An anonymous page's swap slot (a clean one is freed, its copy in that slot), or [`NO_SWAP_SLOT`].
    pub anon_slot: u64,
    /// Dirty or under writeback: the page left the policy but stays in memory, in
    /// [`PageCache::writing`], until its write completes (2.6's `pageout()` from `shrink_list()`).
    pub writing: bool,
}

/// A page reclaim chose whose write must complete before its memory is free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Writing {
    pub owner: StreamId,
    pub lbn: Lbn,
    pub flags: u8,
    pub slot: Slot,
    /// An anonymous page's swap slot (its copy, or where its write goes), or [`NO_SWAP_SLOT`].
    pub anon_slot: u64,
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
    pub anon_slot: u64,
}

/// What the page cache records about the page in one frame: 32 bytes, so that a record never straddles two
/// cache lines and two share one. In a long run frames are met in no order (victims free them in the
/// order the lists reach them, not the order they were taken), and at 48 bytes half the records cost two
/// lines: the bench's simulation over 8,000 s ran about 0.96 of the time at 32 (BENCHMARKS.md §4). Ids are
/// kept in part for that: a fetch's low 32 bits (the fetch is in flight, among the last 2^32 issued:
/// [`super::BufferCache::fetch_of`] widens it again and checks), and a read call's low 48 bits (a page
/// marked by a call 2^48 calls earlier would pass for the current call's: nine years at a million calls a
/// second).
#[derive(Clone, Copy, Debug)]
pub(super) struct FrameMeta {
    pub lbn: Lbn,
    /// The low 32 bits of the id of the fetch that brings the page in, while in flight.
    fetch_low: u32,
    /// The read call whose synchronous window fetched the page (with `flag::DEMANDED`): its id's low 32
    /// bits, and the next 16 in `demand_high`.
    demand_low: u32,
    /// An anonymous page's swap slot (its copy there), or [`NO_SWAP_SLOT_32`].
    anon_slot: u32,
    pub owner: StreamId,
    /// Where the page's data lives.
    pub slot: Slot,
    pub flags: u8,
    /// What `on_miss` returned for the page, until `on_insert`.
    pub history: History,
    demand_high: u16,
}

const _: () = assert!(std::mem::size_of::<FrameMeta>() == 32, "a frame's record is half a cache line");

/// What a record keeps of fetch `id` (see [`FrameMeta`]).
#[inline(always)]
fn fetch_low_of(id: u64) -> u32 {
    id as u32
}

/// What a record keeps of read call `call`: its id's low 32 bits and the next 16 (see [`FrameMeta`]).
#[inline(always)]
fn demand_parts(call: u64) -> (u32, u16) {
    (call as u32, (call >> 32) as u16)
}

/// Swap slot `slot` (below `u32::MAX`), or [`NO_SWAP_SLOT`], in a record's 32 bits.
#[inline(always)]
fn anon_slot_32(slot: u64) -> u32 {
    if slot == NO_SWAP_SLOT {
        return NO_SWAP_SLOT_32;
    }
    assert!(slot < NO_SWAP_SLOT_32 as u64, "swap slot {slot} past any swap area");
    slot as u32
}

impl FrameMeta {
    /// The page is in flight under fetch `id` (by the id's low 32 bits: see the type's doc).
    #[inline(always)]
    pub fn in_fetch(&self, id: u64) -> bool {
        self.fetch_low == fetch_low_of(id)
    }

    /// The page is still being read by fetch `id`: in flight under it, not valid yet, and carrying none of
    /// the flags `also_clear` (one mask test, for the completion's hot loop).
    #[inline(always)]
    pub fn in_flight_under(&self, id: u64, also_clear: u8) -> bool {
        self.flags & (flag::UPTODATE | also_clear) == 0 && self.in_fetch(id)
    }

    #[inline(always)]
    pub fn set_fetch(&mut self, id: u64) {
        self.fetch_low = fetch_low_of(id);
    }

    /// The low 32 bits of the id of the fetch the page is in flight under.
    pub fn fetch_low(&self) -> u32 {
        self.fetch_low
    }

    /// The page was fetched by read call `call`'s synchronous window, and that call has not had it yet.
    #[inline(always)]
    pub fn demanded_by(&self, call: u64) -> bool {
        self.flags & flag::DEMANDED != 0 && (self.demand_low, self.demand_high) == demand_parts(call)
    }

    #[inline(always)]
    fn set_demand_read(&mut self, call: u64) {
        (self.demand_low, self.demand_high) = demand_parts(call);
    }

    /// The anonymous page's swap slot, or [`NO_SWAP_SLOT`].
    #[inline(always)]
    pub fn anon_slot(&self) -> u64 {
        if self.anon_slot == NO_SWAP_SLOT_32 {
            NO_SWAP_SLOT
        } else {
            self.anon_slot as u64
        }
    }

    /// Caller guarantees `slot` is a slot of the swap area (below `u32::MAX`) or [`NO_SWAP_SLOT`].
    #[inline(always)]
    pub fn set_anon_slot(&mut self, slot: u64) {
        self.anon_slot = anon_slot_32(slot);
    }

    /// The page's fetch completed: its contents are valid. Returns whether it is a readahead page (no
    /// reader demanded it), which is how it joins the policy.
    #[inline(always)]
    fn arrive(&mut self) -> bool {
        debug_assert_eq!(self.flags & (flag::UPTODATE | flag::STALE), 0, "completing a page twice");
        self.flags |= flag::UPTODATE;
        self.flags & flag::DEMANDED == 0
    }
}

// SAFETY: every field is an integer or a newtype of one, for which all-zero bytes are a valid value. A
// record is meaningful only while its frame is in use (`take_frame` writes it whole), so the records are
// allocated zeroed ([`PageCache::meta`]).
unsafe impl bytemuck::Zeroable for FrameMeta {}

pub(super) struct PageCache {
    pub table: FrameTable,
    policy: AnyPolicy,
    /// Per id (frames and the policy's shadow entries): only frames' entries are meaningful. One record
    /// per frame, not one array per field: reclaim, a fetch and its completion touch most fields of a
    /// frame at once, and frames are met in replacement order, scattered in memory, so a record costs one
    /// cache miss where eight arrays cost eight. Allocated zeroed, never written before a frame's first
    /// use: the system maps zero pages on first touch, so a large memory costs only what the run uses of it
    /// (a 1-s run at 256 GiB wrote 3 GB of empty records before its first event). A record is read only
    /// while its frame is in use (`take_frame` writes it whole first).
    pub meta: Vec<FrameMeta>,
    /// Pages reclaim took out of the policy whose write is in flight: still in memory and still found by
    /// readers (Linux keeps them in the page cache), freed when the write completes.
    pub writing: KeyMap<u64, Writing>,
    /// Pages being written whose data is dead (their file was invalidated, or their region's owner
    /// exited), by key: their memory is freed when the write completes, and a new page of the same key
    /// may come meanwhile, which a map by key could not hold beside them ([`PageCache::retire_writing`]).
    /// Rare and short-lived (at most the writes in flight), so a list.
    pub stale_writing: Vec<(u64, Writing)>,
    in_flight: u32,
    /// Pages (resident or in flight) brought in by readahead and not yet used.
    prefetched_unused: u32,
    /// Logical time of the policy's references.
    vtime: u64,
    /// The policy's `pages_aged()` at the end of the last reclaim.
    aged_seen: u64,
    /// The policy's `pages_scanned()` at the end of the last reclaim.
    scanned_seen: u64,
    /// The history the next eviction is for ([`PageCache::steer_next_eviction`]).
    incoming: History,
    /// The policy keeps no shadow entries: it may name a reclaim's victims before any leaves the table, and
    /// its `on_miss` has nothing to take (not called: [`PageCache::announce`]).
    no_shadows: bool,
    /// A reclaim's victims (reused).
    victims: Vec<FrameId>,
    /// Li & Shen's prefetch cache: completed readahead pages nobody has used, outside the policy.
    pub pc: Option<PrefetchCache>,
}

impl PageCache {
    /// A page cache of `capacity` frames under policy `kind`; with `prefetch_cache`, Li & Shen's prefetch
    /// cache on a machine of `total_pages` physical pages.
    pub fn with_prefetch_cache(
        kind: PolicyKind,
        capacity: u32,
        prefetch_cache: Option<PrefetchCacheConfig>,
        total_pages: u32,
        dulo: &DuloConfig,
    ) -> PageCache {
        let mut p = PageCache::with_policy(AnyPolicy::with_dulo(kind, capacity, dulo));
        let ids = p.table.ids();
        p.pc = prefetch_cache.map(|c| PrefetchCache::new(c, ids, total_pages, capacity));
        p
    }

    fn with_policy(policy: AnyPolicy) -> PageCache {
        let capacity = policy.capacity();
        let policy_shadows = policy.shadow_slots();
        let table = FrameTable::with_shadows(capacity, policy_shadows);
        // Per-page state by id: a policy's shadow entries take ids beyond the frames.
        let ids = table.ids() as usize;
        PageCache {
            table,
            policy,
            meta: crate::zeroed_vec(ids),
            writing: KeyMap::default(),
            stale_writing: Vec::new(),
            in_flight: 0,
            prefetched_unused: 0,
            vtime: 0,
            scanned_seen: 0,
            aged_seen: 0,
            incoming: History::NONE,
            no_shadows: policy_shadows == 0,
            victims: Vec::new(),
            pc: None,
        }
    }

    pub fn policy_state(&self) -> String {
        self.policy.state(&self.table)
    }
    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }
    pub fn dulo_stats(&self) -> Option<DuloStats> {
        self.policy.dulo_stats()
    }
    /// Pages in the policy (frames in use minus pages in flight: no call into the policy).
    #[inline]
    pub fn resident_pages(&self) -> u32 {
        self.table.len() - self.in_flight
    }
    pub fn in_flight_pages(&self) -> u32 {
        self.in_flight
    }
    /// Pages reclaim took whose write is in flight, live or dead: still in memory.
    pub fn writing_pages(&self) -> u32 {
        (self.writing.len() + self.stale_writing.len()) as u32
    }
    pub fn prefetched_unused_pages(&self) -> u32 {
        self.prefetched_unused
    }
    /// Pages in the prefetch cache (0 without one).
    #[inline]
    pub fn prefetch_cache_pages(&self) -> u32 {
        self.pc.as_ref().map_or(0, |pc| pc.pages())
    }
    /// Pages in the replacement policy: resident pages not in the prefetch cache.
    #[inline]
    pub fn policy_pages(&self) -> u32 {
        self.resident_pages() - self.prefetch_cache_pages()
    }

    /// Pages on the lists a kernel's reclaim pass scans: the policy's reclaim list (the inactive list of
    /// the two-list policy) and the prefetch cache (its pages are readahead pages on the inactive list).
    pub fn reclaim_list_pages(&self) -> u32 {
        self.policy.reclaim_list_len() + self.prefetch_cache_pages()
    }

    /// The first use of the page in `frame` at `now`: if readahead brought it in, it is a prefetched page
    /// no more; if it waited in the prefetch cache, it joins the policy now, as the readahead page it is
    /// (`on_insert` with the history its `on_miss` returned: under the Linux policy the inactive list,
    /// papers/000 §3.3), and the caller's `hit` is its first reference. Returns whether it was prefetched.
    #[inline]
    pub fn first_use(&mut self, frame: FrameId, key: u64, now: Nanos) -> bool {
        let f = frame as usize;
        let was = self.meta[f].flags & flag::PREFETCHED != 0;
        self.meta[f].flags &= !flag::PREFETCHED;
        self.prefetched_unused -= was as u32;
        if was && self.pc.as_mut().is_some_and(|pc| pc.take_out(frame, now)) {
            self.join_policy(frame, key, true);
        }
        was
    }

    /// The valid page in `frame` joins the policy: `on_insert` with the history its `on_miss` returned
    /// (`prefetch`: a readahead page, not a reference).
    fn join_policy(&mut self, frame: FrameId, key: u64, prefetch: bool) {
        let f = frame as usize;
        debug_assert_eq!(self.table.key(frame), key, "frame {frame} holds another page");
        let access = policy_access(key, self.tick(), self.meta[f].lbn, prefetch);
        let history = std::mem::take(&mut self.meta[f].history);
        self.policy.on_insert(frame, &access, history, &mut self.table.shadows());
    }

    /// The frame of page `key`, resident or in flight.
    #[inline(always)]
    pub fn lookup(&self, key: u64) -> Option<FrameId> {
        self.table.lookup(key)
    }

    #[inline]
    pub fn is_uptodate(&self, frame: FrameId) -> bool {
        self.meta[frame as usize].flags & flag::UPTODATE != 0
    }

    fn tick(&mut self) -> u64 {
        self.vtime += 1;
        self.vtime
    }

    /// `on_miss` for a page about to be fetched: the policy takes the page's history.
    #[inline(always)]
    pub fn announce(&mut self, key: u64, lbn: Lbn, prefetch: bool) -> History {
        if self.no_shadows {
            return History::NONE; // no shadow entries: `on_miss` has nothing to take (its contract)
        }
        let access = policy_access(key, self.vtime, lbn, prefetch);
        self.policy.on_miss(&access, &mut self.table.shadows())
    }

    /// Whether reclaim could free a page now.
    #[inline]
    pub fn has_victims(&self) -> bool {
        self.resident_pages() > 0
    }

    /// A frame for the announced page `page.key`, its fetch in flight. Caller guarantees the table has room
    /// (memory was taken for the page) and the key is not cached.
    #[inline(always)]
    pub fn take_frame(&mut self, page: Incoming) -> FrameId {
        let frame = self.table.insert(page.key);
        let f = frame as usize;
        let (demand_low, demand_high) = demand_parts(page.read);
        self.meta[f] = FrameMeta {
            lbn: page.lbn,
            fetch_low: fetch_low_of(page.fetch),
            demand_low,
            anon_slot: anon_slot_32(page.anon_slot),
            owner: page.owner,
            slot: page.slot,
            flags: page.flags,
            history: page.history,
            demand_high,
        };
        self.in_flight += 1;
        self.prefetched_unused += (page.flags & flag::PREFETCHED != 0) as u32;
        frame
    }

    /// The fetch of `frame` completed at `now`: the page becomes valid and joins the policy (`on_insert`
    /// with the history its `on_miss` returned) — or, a readahead page under a prefetch cache, the prefetch
    /// cache (its history waits in its record for its first use). `owner_cpu_ns`: the CPU time of the page's
    /// owner, `None` if it has exited (the prefetch cache's Coldest+ and heuristic #1 read them; without a
    /// prefetch cache it is not read).
    #[inline]
    pub fn complete(&mut self, frame: FrameId, key: u64, now: Nanos, owner_cpu_ns: Option<u64>) {
        let f = frame as usize;
        let prefetched = self.meta[f].arrive();
        self.in_flight -= 1;
        if let Some(pc) = self.pc.as_mut().filter(|_| self.meta[f].flags & flag::PREFETCHED != 0) {
            let key = PageKey::from_raw(key);
            let page = (self.meta[f].owner, key.file(), key.index());
            pc.insert(frame, page, owner_cpu_ns.is_some(), owner_cpu_ns.unwrap_or(0), now);
            return;
        }
        self.join_policy(frame, key, prefetched);
    }

    /// The read `fetch_id` of `frames`, a file's pages from `first_key` on in order, completed: each page
    /// becomes valid and joins the policy as [`PageCache::complete`] has it do, in one call of the policy
    /// for the whole read (`on_insert_each`). `arrived(key, owner, prefetched)` hears of each page before
    /// it joins. Caller guarantees no prefetch cache, and no page stale; each page must be in flight under
    /// the read (asserted).
    #[inline(always)]
    pub fn complete_read(
        &mut self,
        frames: &[FrameId],
        first_key: u64,
        fetch_id: u64,
        mut arrived: impl FnMut(u64, StreamId, bool),
    ) {
        debug_assert!(self.pc.is_none(), "a prefetch cache takes readahead pages one by one");
        let PageCache { policy, meta, table, vtime, in_flight, .. } = self;
        let pages = frames.iter().enumerate().map(|(i, &frame)| {
            let key = first_key + i as u64;
            let m = &mut meta[frame as usize];
            if !m.in_flight_under(fetch_id, flag::STALE) {
                not_in_flight(frame, fetch_id);
            }
            let prefetched = m.arrive();
            *in_flight -= 1;
            arrived(key, m.owner, prefetched);
            *vtime += 1;
            (frame, policy_access(key, *vtime, m.lbn, prefetched), std::mem::take(&mut m.history))
        });
        policy.on_insert_each(pages, &mut table.shadows());
    }

    /// A reader referenced the resident page `key` in `frame`.
    #[inline(always)]
    pub fn hit(&mut self, frame: FrameId, key: u64) {
        debug_assert_eq!(self.table.key(frame), key, "frame {frame} holds another page");
        let access = policy_access(key, self.tick(), self.meta[frame as usize].lbn, false);
        self.policy.on_hit(frame, &access, &mut self.table.shadows());
    }

    /// Drop the page in `frame` without evicting it: from the policy if resident, from the in-flight pages
    /// if not. Returns its slot.
    pub fn drop_page(&mut self, frame: FrameId) -> Slot {
        let f = frame as usize;
        let in_pc = self.pc.as_mut().is_some_and(|pc| pc.remove(frame));
        if in_pc {
            self.meta[f].history = History::NONE;
        } else if self.meta[f].flags & flag::UPTODATE != 0 {
            self.policy.on_remove(frame, &mut self.table.shadows());
        } else {
            self.in_flight -= 1;
            self.meta[f].history = History::NONE;
        }
        self.prefetched_unused -= (self.meta[f].flags & flag::PREFETCHED != 0) as u32;
        self.meta[f].flags = 0;
        self.meta[f].set_anon_slot(NO_SWAP_SLOT);
        self.table.remove(frame);
        self.meta[f].slot
    }

    /// A page reclaim took out while it was being written is wanted again (a reader or writer found it):
    /// it rejoins the policy as a page just referenced (`on_miss` finds the history its eviction left), with
    /// its data, flags and slots. Returns its frame. Caller guarantees the key is in [`PageCache::writing`]
    /// (whose pages are all live: dead ones are in [`PageCache::stale_writing`]).
    #[cold]
    pub fn rescue(&mut self, key: u64) -> FrameId {
        let w = self.writing.remove(&key).expect("rescuing a page that is not being written");
        let history = self.announce(key, w.lbn, false);
        let frame = self.table.insert(key);
        let f = frame as usize;
        // Valid, not in flight, not prefetched: it joins the policy at once, as a referenced page.
        self.meta[f].flags = (w.flags & !(flag::PREFETCHED | flag::MARKER | flag::STALE)) | flag::UPTODATE;
        self.meta[f].owner = w.owner;
        self.meta[f].lbn = w.lbn;
        self.meta[f].slot = w.slot;
        self.meta[f].set_anon_slot(w.anon_slot);
        self.meta[f].set_demand_read(0);
        let access = policy_access(key, self.tick(), w.lbn, false);
        self.policy.on_insert(frame, &access, history, &mut self.table.shadows());
        frame
    }

    /// A page that needs no I/O to be valid (a zero-filled anonymous page, a file page a `write()` covers
    /// whole) takes a frame and joins the policy at once, as a demanded page. Caller guarantees the key is
    /// not cached and memory was taken for it.
    pub fn insert_valid(&mut self, mut page: Incoming) -> FrameId {
        let (flags, key) = (page.flags, page.key);
        page.flags = flag::DEMANDED;
        let frame = self.take_frame(page);
        self.complete(frame, key, Nanos::ZERO, None);
        self.meta[frame as usize].flags = flags | flag::UPTODATE;
        frame
    }

    /// The pages of `file` being written out are dead (the file changed, or the region's owner exited):
    /// they move to [`PageCache::stale_writing`], so that a new page of the same key can be cached and
    /// written while the old write is in flight; the old write's completion frees them
    /// ([`PageCache::take_stale_write`]). `dead` sees each. Returns how many. O(pages being written).
    pub fn retire_writing(&mut self, file: FileId, mut dead: impl FnMut(PageKey, &Writing)) -> u32 {
        let stale = &mut self.stale_writing;
        let before = stale.len();
        self.writing.retain(|&key, w| {
            let k = PageKey::from_raw(key);
            if k.file() != file {
                return true;
            }
            // Reclaim starts a page's write as it takes it, or puts it back (no swap slot).
            assert_ne!(w.flags & flag::WRITEBACK, 0, "page {k:?} taken by reclaim with no write in flight");
            dead(k, w);
            stale.push((key, *w));
            false
        });
        (stale.len() - before) as u32
    }

    /// A write of page `key` completed: the dead page it was writing, if there is one (taken off the
    /// list). A swap write is matched by its slot (`swap_slot`), exactly; a file page's, which has only
    /// its key, by the key: if a new page of the key is being written too, the first write to complete
    /// frees the dead page and the second the new one (the same pages freed, the two completions' times
    /// swapped; a write both racing an invalidation and beside a new write of the same page is rare).
    pub fn take_stale_write(&mut self, key: u64, swap_slot: Option<u64>) -> Option<Writing> {
        if self.stale_writing.is_empty() {
            return None;
        }
        let i = self
            .stale_writing
            .iter()
            .position(|(k, w)| *k == key && swap_slot.is_none_or(|s| w.anon_slot == s))?;
        Some(self.stale_writing.swap_remove(i).1)
    }

    /// Page `key` is one reclaim is writing out, still valid (not invalidated): a reader finds it.
    #[inline]
    pub fn being_written(&self, key: u64) -> bool {
        !self.writing.is_empty() && self.writing.contains_key(&key)
    }

    pub fn lbn_of(&self, frame: FrameId) -> Lbn {
        self.meta[frame as usize].lbn
    }

    /// The next eviction makes room for a page whose `on_miss` returned `history` (ARC's REPLACE reads it);
    /// the evictions after it are for no page in particular.
    pub fn steer_next_eviction(&mut self, history: History) {
        self.incoming = history;
    }

    /// Frames in use = pages in the policy + pages in the prefetch cache + pages in flight, within
    /// capacity.
    pub fn check(&self) {
        assert_eq!(
            self.table.len(),
            self.policy.len() + self.prefetch_cache_pages() + self.in_flight,
            "page conservation: frames in use != policy + prefetch cache + in flight"
        );
        assert!(self.prefetch_cache_pages() <= self.prefetched_unused, "a used page in the prefetch cache");
        #[cfg(debug_assertions)]
        if let Some(pc) = &self.pc {
            pc.check();
        }
        assert!(self.table.len() <= self.table.capacity(), "frame table over capacity");
        assert!(self.prefetched_unused <= self.table.len(), "more prefetched pages than pages");
    }
    /// The victim in `frame` leaves the table and is reported; a dirty one (or one under writeback) moves
    /// to [`PageCache::writing`] instead of being freed. Returns whether it did.
    #[inline(always)]
    fn release_victim(&mut self, frame: FrameId, freed: &mut impl FreedSink<Evicted>) -> bool {
        let f = frame as usize;
        debug_assert_ne!(self.meta[f].flags & flag::UPTODATE, 0, "the policy evicted a page under I/O");
        let key = PageKey::from_raw(self.table.remove(frame));
        // The record is read and cleared in one place, before the calls below (which may write anywhere, for
        // all the compiler knows, and would make it check and load the array again).
        let record = &mut self.meta[f];
        let meta = *record;
        record.flags = 0;
        record.set_anon_slot(NO_SWAP_SLOT);
        if let Some(pc) = &mut self.pc {
            pc.partitioner_mut().evicted(key.raw(), meta.flags & flag::PREFETCHED != 0);
        }
        let writing = meta.flags & (flag::DIRTY | flag::WRITEBACK) != 0;
        if writing {
            let w = Writing {
                owner: meta.owner,
                lbn: meta.lbn,
                flags: meta.flags,
                slot: meta.slot,
                anon_slot: meta.anon_slot(),
            };
            self.writing.insert(key.raw(), w);
        }
        freed.freed(Evicted {
            key,
            owner: meta.owner,
            flags: meta.flags,
            slot: meta.slot,
            anon_slot: meta.anon_slot(),
            writing,
        });
        self.prefetched_unused -= (meta.flags & flag::PREFETCHED != 0) as u32;
        writing
    }
}

/// The assertion of [`PageCache::complete_read`], out of line: its formatting inlined into the loop made
/// the policy's iterator too large to inline (4 % more instructions in the default simulation).
#[cold]
#[inline(never)]
fn not_in_flight(frame: FrameId, fetch_id: u64) -> ! {
    panic!("frame {frame} of read {fetch_id} is not in flight under it, or stale")
}

impl CacheSection for PageCache {
    type Freed = Evicted;

    fn pages(&self) -> u32 {
        self.table.len()
    }

    /// Pages in the policy and the prefetch cache: reclaim either frees them or starts their write.
    fn reclaimable_pages(&self) -> u32 {
        self.resident_pages()
    }

    /// Under a prefetch cache, its excess over its allocation first (papers/000 §3.3: "prefetch cache
    /// reclamation is triggered at each invocation of the global Linux page reclamation"), in its own
    /// order; then the policy's victims, the first for the page [`PageCache::steer_next_eviction`] named.
    /// With no page in the policy, the prefetch cache gives what is asked. Pages in flight are neither
    /// scanned nor freed. A dirty victim (or one under writeback) is not freed: it moves to
    /// [`PageCache::writing`], counted as `written`, and the buffer cache starts its write.
    #[inline(always)]
    fn reclaim(&mut self, target: u32, now: Nanos, freed: &mut impl FreedSink<Evicted>) -> ReclaimCost {
        let mut from_pc = 0;
        let mut written = 0u64;
        let policy_pages = self.policy_pages();
        if let Some(pc) = &mut self.pc {
            let want = if policy_pages == 0 { target } else { pc.excess_pages() };
            let mut batch = std::mem::take(&mut self.victims);
            batch.clear();
            pc.reclaim(want.min(target), now, &mut batch);
            from_pc = batch.len() as u32;
            for &frame in &batch {
                written += self.release_victim(frame, freed) as u64;
            }
            self.victims = batch;
        }
        let policy_cost = self.reclaim_policy(target - from_pc, freed);
        ReclaimCost {
            scanned: from_pc as u64 + policy_cost.scanned,
            aged: policy_cost.aged,
            freed: from_pc as u64 - written + policy_cost.freed,
            written: written + policy_cost.written,
            ..ReclaimCost::default()
        }
    }
}

impl PageCache {
    /// Up to `target` of the policy's victims, the first for the page [`PageCache::steer_next_eviction`]
    /// named.
    #[inline(always)]
    fn reclaim_policy(&mut self, target: u32, freed: &mut impl FreedSink<Evicted>) -> ReclaimCost {
        let mut history = std::mem::take(&mut self.incoming);
        let victims = target.min(self.policy_pages());
        let mut written = 0u64;
        if self.no_shadows && victims > 1 {
            // The policy names the whole batch first (its own lists only), then the victims leave the
            // table: their frames' records and index buckets are scattered in memory, and loads that do
            // not depend on each other overlap, where one victim at a time waits for each in turn. One
            // victim (the exact model's reclaim, one per allocation) has no batch to name.
            let mut batch = std::mem::take(&mut self.victims);
            batch.clear();
            self.policy.evict_batch(victims, history, &mut self.table.shadows(), &mut batch);
            debug_assert_eq!(batch.len(), victims as usize, "the policy named another number of victims");
            for &frame in &batch {
                written += self.release_victim(frame, freed) as u64;
            }
            self.victims = batch;
        } else {
            // A victim kept as a shadow must leave before the next eviction (the `Replacement` protocol).
            for _ in 0..victims {
                let frame = self.policy.evict(history, &mut self.table.shadows());
                history = History::NONE;
                written += self.release_victim(frame, freed) as u64;
            }
        }
        // The scan beyond the victims, from the policy's running count.
        let (scanned_total, aged_total) = self.policy.scan_counts();
        let passed = scanned_total - std::mem::replace(&mut self.scanned_seen, scanned_total);
        let aged = aged_total - std::mem::replace(&mut self.aged_seen, aged_total);
        ReclaimCost {
            scanned: victims as u64 + passed,
            aged,
            freed: victims as u64 - written,
            written,
            ..ReclaimCost::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page cache of 16 frames holding keys 0..16, inserted in order as demand pages, then hits on the
    /// even keys (so that LRU, CLOCK, the two lists, ARC, 2Q and LIRS each order them their own way).
    fn filled(kind: PolicyKind) -> PageCache {
        let mut p = PageCache::with_policy(AnyPolicy::new(kind, 16));
        for key in 0..16u64 {
            let history = p.announce(key, Lbn(key), false);
            let page = Incoming {
                key,
                owner: StreamId(1),
                lbn: Lbn(key),
                flags: flag::DEMANDED,
                fetch: 1,
                read: 1,
                history,
                slot: key as Slot,
                anon_slot: NO_SWAP_SLOT,
            };
            let frame = p.take_frame(page);
            p.complete(frame, key, Nanos(0), Some(0));
        }
        for key in (0..16u64).step_by(2) {
            let frame = p.lookup(key).expect("resident");
            p.hit(frame, key);
        }
        p
    }

    /// A reclaim of eight victims frees the pages, in the order, that eight reclaims of one do: under a
    /// policy without shadow entries the batch is named before any victim leaves the table (in one
    /// `evict_batch`), under the others one victim at a time; either way the decisions are the policy's
    /// alone.
    #[test]
    fn a_batch_of_victims_leaves_as_one_at_a_time_would() {
        let kinds = [
            PolicyKind::Lru,
            PolicyKind::Fifo,
            PolicyKind::Clock,
            PolicyKind::TwoList,
            PolicyKind::Dulo,
            PolicyKind::DuloLinux,
        ];
        let shadowed = [PolicyKind::Arc, PolicyKind::TwoQ, PolicyKind::Lirs];
        for kind in kinds.into_iter().chain(shadowed) {
            let (mut batch, mut single) = (filled(kind), filled(kind));
            assert_eq!(batch.no_shadows, kinds.contains(&kind), "{kind:?}");
            let mut batch_keys = Vec::new();
            let cost = batch.reclaim(8, Nanos(0), &mut |e: Evicted| batch_keys.push(e.key.raw()));
            assert_eq!((cost.freed, cost.written), (8, 0), "{kind:?}");
            let mut single_keys = Vec::new();
            for _ in 0..8 {
                single.reclaim(1, Nanos(0), &mut |e: Evicted| single_keys.push(e.key.raw()));
            }
            assert_eq!(batch_keys, single_keys, "{kind:?}");
            assert_eq!(batch.resident_pages(), 8, "{kind:?}");
            batch.check();
            batch.table.check();
        }
    }
}
