//! [`BufferCache`]: the OS buffer cache as one state machine — resident pages under a replacement policy,
//! a prefetcher deciding what to read ahead, and pages pinned by in-flight I/O, all in memory managed as a
//! kernel manages it ([`crate::memory`]: a kernel reserve, watermarks, kswapd, direct reclaim).
//!
//! This is the contract between the engine and its drivers (the simulator now, a live FUSE driver later;
//! `docs/ARCHITECTURE.md` draws it). The driver owns time and I/O: it calls [`BufferCache::read`] for a
//! handler's `read()` call, issues the [`Fetch`]es the cache returns, reports each completion with
//! [`BufferCache::fetch_done`] (or [`BufferCache::fetch_failed`]), and resumes the read when the page it was
//! blocked on arrives. It runs kswapd when the cache says it is awake ([`BufferCache::kswapd_step`]) and
//! charges the reclaim work a read did ([`ReadOutcome::direct_reclaim`]) to the reader. The cache never
//! performs I/O and never reads a clock: every call takes the driver's `now`.
//!
//! Page life cycle (Linux 2.6 `do_generic_mapping_read` as papers/000 §2 and papers/001 §4 describe it):
//! - a page missing from the cache triggers the prefetcher's synchronous path; every not-cached page of
//!   the returned window is announced to the policy (`on_miss`, which takes its history), gets memory
//!   (possibly by reclaim) and a frame at once (in-flight pages count against memory), and is fetched;
//! - when its fetch completes the page joins the replacement policy (`on_insert` with that history): the
//!   page the reader demanded as an accessed page, the others as prefetched pages with no access history;
//! - a reader consuming a prefetched page is its first access (`on_hit`); a page carrying the
//!   PG_readahead mark triggers the prefetcher's asynchronous path;
//! - memory comes from the free pages while more than `min` are free; kswapd is woken at `low` and
//!   reclaims to `high`; below `min` the reading task reclaims a batch itself. If nothing can be
//!   reclaimed (every page is under I/O) the read stalls until some fetch completes (a reclaim stall).
//!
//! What happens is reported to an [`Observer`] chosen at compile time (module `observer`); `BufferCache<()>`
//! reports nothing and pays nothing for it.
//!
//! For a live driver: every page has a [`Slot`] (where its data lives: `0..usable pages`), named by
//! [`BufferCache::fetch_slots`] for the pages a fetch reads into and by the [`Pin`]s a pinned read
//! returns for the pages it delivered. A pinned page may be evicted, but its slot is not reused until the
//! last pin is released ([`BufferCache::unpin`]), so a reader copying out of it is never overwritten.
//! [`Layout`] is consulted under the caller's lock: a live driver answers it from an extent map it
//! resolves outside the lock (when a file is opened).
//!
//! Invariants, asserted on every path that moves pages: frames in use = pages in the policy + pages in
//! flight; slots in use = frames in use + slots held only by pins = pages the memory model counts as used;
//! never more than the usable memory.

mod dirty;
mod in_flight;
mod metadata;
mod observer;
mod page_cache;
mod swap;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_metadata;
#[cfg(test)]
mod tests_write;
mod write;

pub use dirty::WritebackConfig;
pub use observer::{AccessOutcome, Chosen, Counters, Eviction, Observer, ThrashDetector, WriteCause};
pub use swap::SwapConfig;
pub use write::{TouchCursor, WriteCursor, WriteRoom, Writeback, WritebackPass, MAX_WRITEBACK_PAGES};

use crate::error::CoreError;
use crate::hash::KeyMap;
use crate::key::{FileId, Lbn, PageKey, StreamId};
use crate::memory::{CacheSection, Memory, MemoryConfig, MemoryStats, ReclaimCost, Reclaimer, Watermarks};
use crate::metadata::{Gfp, LruLock, MetadataCache, MetadataConfig};
use crate::pcache::{PrefetchCache, PrefetchCacheConfig};
use crate::policy::dulo::DuloStats;
use crate::policy::{DuloConfig, FrameId, History, PolicyKind};
use crate::prefetch::{AnyPrefetcher, CacheView, Prefetcher, ReadCtx, Window};
use crate::time::Nanos;
use dirty::DirtyPages;
use in_flight::InFlightReads;
use page_cache::{flag, Incoming, PageCache, NO_SWAP_SLOT};
use swap::SwapArea;

/// Where a page's data lives: a buffer index in `0..usable pages`, stable while the page is cached, in
/// flight or pinned.
pub type Slot = u32;

/// Where file pages live on disk. The simulator's file layout implements it; a live driver answers from
/// an extent map it keeps per open file (resolved outside the cache's lock).
pub trait Layout {
    /// Append to `out` the runs contiguous in both file and disk covering pages `[start, start + n)`.
    /// Caller guarantees the range is inside the file.
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>);
}

/// Pages contiguous in a file and on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskRun {
    pub file_page: u64,
    /// Disk location of `file_page`.
    pub lbn: Lbn,
    pub pages: u64,
}

/// One I/O the driver must issue: pages contiguous in the file (or swap slots contiguous in the swap area:
/// `file` is [`FileId::SWAP`] and `first_page` the first slot) and on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetch {
    /// Unique per cache, increasing.
    pub id: u64,
    pub file: FileId,
    pub first_page: u64,
    pub lbn: Lbn,
    pub pages: u32,
    /// A reader is (or will be) blocked on this fetch: a synchronous read; otherwise readahead or a write.
    pub sync: bool,
    /// A write (writeback, reclaim's `pageout()`, a swap-out); otherwise a read.
    pub write: bool,
    pub owner: StreamId,
}

/// A `read()` call in progress, owned by the driver: pages `[next, last)` of `file` are still to be read.
/// Made by [`BufferCache::begin_read`], which gives every call its own id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadCursor {
    /// Unique per cache: a stream (an open file shared by threads, live) may have several calls at once.
    pub id: u64,
    pub stream: StreamId,
    pub file: FileId,
    /// The call's first page (`next` moves on from it).
    pub first: u64,
    pub next: u64,
    pub last: u64,
    /// Size of the file in pages (readahead stops at EOF).
    pub file_pages: u64,
    /// The page the call was blocked on, already counted as its hit, miss or wait: each (call, page) is
    /// counted once, at its first encounter.
    pub counted: Option<u64>,
    /// Pin every page delivered ([`ReadOutcome::pins`]), for a driver that copies data out after the call.
    pub pin: bool,
    /// The context its page allocations are made in: [`Gfp::NoFs`] for a file system's own metadata blocks
    /// read through the block device's page cache (their direct reclaim does not run the metadata shrinker).
    pub gfp: Gfp,
    /// The page at which the walk calls [`Prefetcher::on_read`] next (Linux 2.6's `next_index`): the first
    /// page of the call, then whatever the prefetcher returned.
    pub ra_next: u64,
    /// A file system's own readahead instead of the page cache's, `(alignment, pages)` (`None`: the
    /// prefetcher decides): a miss reads `pages` pages from the `alignment`-aligned page at or below it, and
    /// nothing else is read ahead ([`ReadCursor::aligned_readahead`]).
    pub aligned_ra: Option<(u64, u64)>,
    /// [`BufferCache::read`] has returned [`ReadStatus::Done`] for the call (and told the prefetcher): a
    /// later `read` of the cursor returns `Done` again and does nothing else.
    pub done_reported: bool,
}

impl ReadCursor {
    pub fn is_done(&self) -> bool {
        self.next >= self.last
    }

    /// Every page the call may read or read ahead (below its last page and below the file's end) has a
    /// [`PageKey`]: checked once a call ([`BufferCache::read`], an error for a cursor changed since
    /// [`BufferCache::begin_read`] checked it) and asserted once a window ([`BufferCache::submit`]), so
    /// that the per-page loops build their keys without asserting again.
    #[inline]
    fn check_keys_fit(&self) -> Result<(), CoreError> {
        let pages = self.last.max(self.file_pages);
        if self.file.0 <= FileId::MAX && pages <= PageKey::INDEX_MAX + 1 {
            return Ok(());
        }
        Err(CoreError::BadRead(format!("{:?}: {pages} pages do not fit in page keys", self.file)))
    }

    #[inline]
    fn assert_keys_fit(&self) {
        if let Err(e) = self.check_keys_fit() {
            panic!("{e}");
        }
    }

    /// The same call, allocating in `GFP_NOFS` context (a file system reading its own metadata blocks).
    pub fn no_fs(self) -> ReadCursor {
        ReadCursor { gfp: Gfp::NoFs, ..self }
    }

    /// The same call, pinning the pages it delivers.
    pub fn pinned(self) -> ReadCursor {
        ReadCursor { pin: true, ..self }
    }

    /// The same call, read as a file system reads its own blocks, with a readahead of its own or none: ext4's
    /// `__ext4_get_inode_loc()` reads an inode-table block that is not cached together with the
    /// `inode_readahead_blks`-aligned stretch of the table from it (`sb_breadahead()`), and an htree lookup
    /// reads its one leaf block (`ext4_bread()`); the page cache's readahead sees neither. A miss at page
    /// `i` fetches the pages of `[a, a + pages)` with `a = i - i % alignment` (clipped at the file's end)
    /// that are not cached: `i` (and the call's other pages) as demand, the rest as prefetched (as any
    /// readahead's pages are: counted as prefetched, kept by a prefetch cache, seen by the thrash
    /// detector). Page `i` is allocated before the stretch (ext4's `sb_getblk()` of the inode's block
    /// comes before its readahead), so memory that runs out in the stretch below `i` leaves `i` to be read
    /// alone. The prefetcher is neither asked (`on_read`, `on_sync_miss`, `on_marker_hit`) nor told
    /// (`read_done`) of the call; it hears `fetch_done` for its fetches, as for every fetch. An error
    /// unless `1 <= alignment <= pages`.
    pub fn aligned_readahead(self, alignment: u64, pages: u64) -> Result<ReadCursor, CoreError> {
        if !(1 <= alignment && alignment <= pages) {
            return Err(CoreError::BadRead(format!("aligned readahead of {pages} pages at {alignment}")));
        }
        Ok(ReadCursor { aligned_ra: Some((alignment, pages)), ..self })
    }

    /// Whether the page cache's readahead (the prefetcher) takes part in this call: not in a file system's
    /// own read.
    fn page_cache_readahead(&self) -> bool {
        self.aligned_ra.is_none()
    }
}

/// Why a [`BufferCache::read`] call returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStatus {
    /// Every page of the call was delivered.
    Done,
    /// The next page is in flight: resume after fetch `id` completes (or fails).
    Blocked { fetch: u64 },
    /// No memory could be freed (every page pinned by I/O, or only writes started): the task waits for
    /// I/O before it calls again (a kernel's `blk_congestion_wait(WRITE, HZ/10)`: until a write request is
    /// freed below the queue's congestion-off threshold, or 100 ms).
    NoMemory,
    /// A writer above the dirty limit (`balance_dirty_pages()`): it started the writes in `fetches` and
    /// sleeps in `blk_congestion_wait(WRITE, …)` — until a write request is freed below the queue's
    /// congestion-off threshold, or [`WritebackConfig::throttle_sleep`]; then the driver calls `write`
    /// again, which returns `Done` once dirty memory is below the limit.
    Throttled,
}

/// A delivered page held for its reader: its slot will not be reused until [`BufferCache::unpin`]. Made
/// only by the cache (its fields are read, not set, by a driver), so a pin given back names a slot the
/// cache pinned for that page.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "a pin keeps its slot until it is given back with BufferCache::unpin"]
pub struct Pin {
    file: FileId,
    index: u64,
    slot: Slot,
}

impl Pin {
    /// The file of the pinned page.
    pub fn file(&self) -> FileId {
        self.file
    }
    /// The pinned page's index in its file.
    pub fn index(&self) -> u64 {
        self.index
    }
    /// Where the page's data is.
    pub fn slot(&self) -> Slot {
        self.slot
    }
}

/// What one [`BufferCache::read`] call did. Reused by the driver to avoid allocation.
#[derive(Debug)]
pub struct ReadOutcome {
    pub status: ReadStatus,
    /// Pages delivered to the reader by this call.
    pub pages_delivered: u64,
    /// Fetches to issue now, in submission order.
    pub fetches: Vec<Fetch>,
    /// Reclaim the reading task did itself (direct reclaim below `min`): the driver charges its CPU time
    /// ([`BufferCache::reclaim_time`]) to the reader before the fetches are issued.
    pub direct_reclaim: ReclaimCost,
    /// Direct reclaims in this call.
    pub direct_reclaims: u32,
    /// The allocation context of the call's last direct reclaim: a driver whose task finds memory taken
    /// again when that reclaim's work is done reclaims again in it ([`BufferCache::reclaim_directly`]).
    pub direct_reclaim_gfp: Gfp,
    /// Split reclaim's metadata reclaim at allocation above `Md` ([`BufferCache::metadata_insert`]): the
    /// driver charges its CPU time to the task too.
    pub metadata_reclaim: ReclaimCost,
    pub metadata_reclaims: u32,
    /// The time the call's `dput()` spun on the dentry LRU's lock behind a reclaim's walk
    /// ([`crate::metadata::LruLock::add_dentry`]): CPU time, charged with the reclaim ([`ReadOutcome::reclaim`]).
    pub dput_wait: Nanos,
    /// With [`ReadCursor::pin`]: the delivered pages, pinned.
    pub pins: Vec<Pin>,
}

impl Default for ReadOutcome {
    fn default() -> Self {
        ReadOutcome {
            status: ReadStatus::Done,
            pages_delivered: 0,
            fetches: Vec::new(),
            direct_reclaim: ReclaimCost::default(),
            direct_reclaims: 0,
            direct_reclaim_gfp: Gfp::Kernel,
            metadata_reclaim: ReclaimCost::default(),
            metadata_reclaims: 0,
            dput_wait: Nanos::ZERO,
            pins: Vec::new(),
        }
    }
}

impl ReadOutcome {
    /// Ready for the next call. Caller guarantees every pin was taken out (`pins` is empty).
    pub fn clear(&mut self) {
        if let Err(e) = check_no_pins(self) {
            panic!("{e}");
        }
        self.status = ReadStatus::Done;
        self.pages_delivered = 0;
        self.fetches.clear();
        self.direct_reclaim = ReclaimCost::default();
        self.direct_reclaims = 0;
        self.direct_reclaim_gfp = Gfp::Kernel;
        self.metadata_reclaim = ReclaimCost::default();
        self.metadata_reclaims = 0;
        self.dput_wait = Nanos::ZERO;
    }

    /// The reclaim the task did in this call, direct and metadata reclaim together, and its spin on the
    /// metadata LRU's lock (all of it CPU time, the task's).
    pub fn reclaim(&self) -> ReclaimCost {
        let mut cost = self.direct_reclaim;
        cost += self.metadata_reclaim;
        cost.lock_wait_ns = cost.lock_wait_ns.saturating_add(self.dput_wait.0);
        cost
    }
}

#[derive(Clone, Debug)]
pub struct BufferCacheConfig {
    pub memory: MemoryConfig,
    pub policy: PolicyKind,
    pub prefetcher: AnyPrefetcher,
    pub writeback: WritebackConfig,
    /// The swap area, if the machine has one (anonymous pages can be evicted only to swap).
    pub swap: Option<SwapConfig>,
    /// Li & Shen's prefetch cache (`crate::pcache`); `None`: prefetched pages join the policy when they
    /// arrive (the paper's AccessHistory).
    pub prefetch_cache: Option<PrefetchCacheConfig>,
    /// DULO's sections, rule and track map; read only when `policy` is DULO.
    pub dulo: DuloConfig,
    /// The file-metadata cache (papers/004), a section of the same memory; `None`: no metadata is cached.
    pub metadata: Option<MetadataConfig>,
}

impl BufferCacheConfig {
    /// A configuration with the 2.6 writeback defaults and no swap.
    pub fn new(memory: MemoryConfig, policy: PolicyKind, prefetcher: AnyPrefetcher) -> BufferCacheConfig {
        BufferCacheConfig {
            memory,
            policy,
            prefetcher,
            writeback: WritebackConfig::LINUX_2_6,
            swap: None,
            prefetch_cache: None,
            dulo: DuloConfig::default(),
            metadata: None,
        }
    }
}

/// Memory at one moment, in pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemorySnapshot {
    pub total: u32,
    pub reserved: u32,
    /// Pages the server's processes hold outside the caches ([`MemoryConfig::held_pages`]).
    pub held: u32,
    pub usable: u32,
    pub free: u32,
    pub resident: u32,
    pub in_flight: u32,
    /// Slots of evicted pages still pinned by readers.
    pub pinned_only: u32,
    /// Pages brought in by readahead that nobody has used yet (resident or in flight).
    pub prefetched_unused: u32,
    /// Pages in the prefetch cache, and its allocation (0 and 0 without one).
    pub prefetch_cache: u32,
    pub prefetch_cache_allocation: u32,
    /// Pages reclaim chose whose write is in flight (their memory is not free yet).
    pub writing: u32,
    /// Dirty file pages, and file pages under writeback (`nr_dirty`, `nr_writeback`).
    pub dirty: u64,
    pub writeback: u64,
    /// Swap slots in use, and the swap area's slots (0 without swap).
    pub swap_used: u64,
    pub swap_capacity: u64,
    /// Slab pages of the metadata cache (0 without one).
    pub metadata: u32,
    /// Slab pages freed by metadata reclaims still under way (not free yet).
    pub metadata_releasing: u32,
    pub watermarks: Watermarks,
}

/// What the cache knows of a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamRecord {
    pub opened: Nanos,
    /// CPU time its owner has used ([`BufferCache::stream_cpu`]).
    pub cpu_ns: u64,
}

/// Slots: where pages' data live. A slot is held by a frame's page, or only by pins after its page left.
struct SlotPool {
    free: Vec<Slot>,
    next_unused: Slot,
    /// By slot: readers holding it.
    pins: Vec<u32>,
    /// By slot: its page left the cache while pinned; the slot is free at the last unpin.
    orphaned: Vec<bool>,
    orphans: u32,
    /// Pins held, over all slots: while none is (the simulator never pins), a release need not look up
    /// the slot's pins, a scattered load per evicted page.
    pins_held: u64,
}

impl SlotPool {
    fn new(capacity: u32) -> SlotPool {
        SlotPool {
            free: Vec::new(),
            next_unused: 0,
            pins: vec![0; capacity as usize],
            orphaned: vec![false; capacity as usize],
            orphans: 0,
            pins_held: 0,
        }
    }

    fn pin(&mut self, slot: Slot) {
        self.pins[slot as usize] += 1;
        self.pins_held += 1;
    }

    fn take(&mut self) -> Slot {
        self.free.pop().unwrap_or_else(|| {
            assert!((self.next_unused as usize) < self.pins.len(), "no free slot");
            self.next_unused += 1;
            self.next_unused - 1
        })
    }

    /// The page in `slot` left the cache. Returns whether the slot is free now (no reader holds it).
    fn release(&mut self, slot: Slot) -> bool {
        let s = slot as usize;
        debug_assert!(self.pins_held > 0 || self.pins[s] == 0, "a pin not counted in pins_held");
        if self.pins_held > 0 && self.pins[s] > 0 {
            self.orphaned[s] = true;
            self.orphans += 1;
            false
        } else {
            self.free.push(slot);
            true
        }
    }
}

/// A call's `out` holds no pin of an earlier call ([`ReadOutcome::clear`] would drop it).
fn check_no_pins(out: &ReadOutcome) -> Result<(), CoreError> {
    match out.pins.len() {
        0 => Ok(()),
        n => Err(CoreError::BadRead(format!("{n} pins of an earlier call are still held: unpin them first"))),
    }
}

/// Whether `runs`, a [`Layout`]'s answer for `pages`, map each of those pages once, in order.
#[inline]
fn runs_map(runs: &[DiskRun], pages: &std::ops::Range<u64>) -> bool {
    let mut next = pages.start;
    for run in runs {
        if run.file_page != next || run.pages == 0 || run.pages > pages.end - next {
            return false;
        }
        next += run.pages;
    }
    next == pages.end
}

/// The error for `runs` that do not map `pages` of `file` ([`runs_map`]).
#[cold]
fn bad_runs(runs: &[DiskRun], file: FileId, pages: &std::ops::Range<u64>) -> CoreError {
    CoreError::BadRead(format!(
        "the layout maps pages {}..{} of file {} as {runs:?}, not each page once in order",
        pages.start, pages.end, file.0
    ))
}

/// The cache as the prefetcher sees it: resident or in flight, and the queue's congestion.
struct View<'a> {
    pages: &'a PageCache,
    read_congested: bool,
}

impl CacheView for View<'_> {
    fn is_cached(&self, file: FileId, index: u64) -> bool {
        let key = PageKey::new(file, index).raw();
        self.pages.lookup(key).is_some() || self.pages.being_written(key)
    }
    fn read_congested(&self) -> bool {
        self.read_congested
    }
}

/// A regular file of `file_pages` pages whose every page a [`PageKey`] can name. Errors otherwise.
fn check_file(file: FileId, file_pages: u64) -> Result<(), CoreError> {
    if !file.is_regular() || file_pages == 0 || file_pages - 1 > PageKey::INDEX_MAX {
        return Err(CoreError::BadRead(format!(
            "file {} of {file_pages} pages does not fit a page key (files below {}, pages up to {})",
            file.0,
            FileId::ANON_FIRST,
            PageKey::INDEX_MAX + 1
        )));
    }
    Ok(())
}

pub struct BufferCache<O: Observer = ()> {
    pages: PageCache,
    prefetcher: AnyPrefetcher,
    memory: Memory,
    slots: SlotPool,
    observer: O,
    streams: KeyMap<u32, StreamRecord>,
    next_fetch: u64,
    next_read: u64,
    runs: Vec<DiskRun>,
    /// A window whose pages the driver's [`Layout`] did not map, found by [`BufferCache::submit`] (which
    /// then reads none of it): the call that submitted it returns it as its error.
    bad_layout: Option<CoreError>,
    /// The reads in flight and their pages' frames.
    in_flight: InFlightReads,
    /// The driver's last report of its request queue ([`BufferCache::set_read_congested`]).
    read_congested: bool,
    dirty: DirtyPages,
    writeback: WritebackConfig,
    swap: Option<SwapArea>,
    /// Anonymous pages whose only copy is in swap: key → slot.
    swapped: KeyMap<u64, u64>,
    /// Write fetches in flight.
    writes: KeyMap<u64, ()>,
    /// Victims of the current reclaim whose write must start (reused).
    /// Dirty victims of the current reclaim pass, reported evicted once their write has started.
    started: Vec<(PageKey, StreamId, Eviction)>,
    /// The file-metadata cache, its pages in the same budget.
    metadata: Option<MetadataCache>,
    /// The metadata LRUs' lock: it serializes metadata reclaim's walks, and a `stat()` that caches a new
    /// dentry spins on it behind a dentry walk.
    metadata_lock: LruLock,
    /// Scratch: the walks of one metadata reclaim, taken from the metadata cache ([`LruLock::hold_walks`]).
    lru_walks: Vec<(u64, bool)>,
    /// Slab pages freed by metadata reclaims still under way: (when the work is done, pages, the call that
    /// reclaimed them, a number from `call_tag`, or `KERNEL_THREAD`).
    releases: Vec<(Nanos, u32, u64)>,
    /// The allocating call under way, numbered: a call takes pages its own reclaims freed before reclaiming
    /// again.
    call_tag: u64,
    /// The context of the allocation under way (whether its direct reclaim may run the metadata shrinker):
    /// set by every call that allocates, from its cursor or its kind.
    alloc_gfp: Gfp,
}

/// Where the page cache's reclaim hands its victims ([`BufferCache::reclaim_pages`]): a clean victim is
/// reported evicted and its slot freed (an anonymous one leaves its copy in swap as the page), and its page
/// counted in `released`, which the caller gives back to memory when the reclaim is over (neither the
/// section nor the sink can reach the budget meanwhile, so no one reads it between the victims); a dirty
/// one waits in `started` for its write to start.
struct EvictedPages<'a, O> {
    now: Nanos,
    observer: &'a mut O,
    slots: &'a mut SlotPool,
    released: u32,
    started: &'a mut Vec<(PageKey, StreamId, Eviction)>,
    swapped: &'a mut KeyMap<u64, u64>,
}

impl<O: Observer> crate::memory::FreedSink<page_cache::Evicted> for EvictedPages<'_, O> {
    #[inline(always)]
    fn freed(&mut self, e: page_cache::Evicted) {
        let what = if e.flags & flag::PREFETCHED != 0 {
            Eviction::PrefetchedUnused
        } else if e.flags & flag::DEMANDED != 0 {
            Eviction::DemandUnread
        } else {
            Eviction::Accessed
        };
        if e.writing {
            self.started.push((e.key, e.owner, what));
            return;
        }
        self.observer.evicted(self.now, e.key, e.owner, what);
        if e.anon_slot != NO_SWAP_SLOT {
            // A clean anonymous page: its copy in swap is all that is left of it.
            self.swapped.insert(e.key.raw(), e.anon_slot);
        }
        self.released += self.slots.release(e.slot) as u32;
    }
}

impl BufferCache<()> {
    /// A cache that reports to no observer.
    pub fn new(config: BufferCacheConfig) -> Result<BufferCache<()>, CoreError> {
        BufferCache::with_observer(config, ())
    }
}

impl<O: Observer> BufferCache<O> {
    pub fn with_observer(config: BufferCacheConfig, observer: O) -> Result<BufferCache<O>, CoreError> {
        config.memory.validate()?;
        if let Some(swap) = config.swap {
            // The swap map is a word per slot: bounded like memory itself (2^32 slots = 16 TiB of swap).
            if swap.slots < 2 || swap.slots > u32::MAX as u64 {
                return Err(CoreError::InvalidParameter {
                    what: "swap area",
                    why: format!(
                        "{} slots: expected 2 to {} (a header and at least one page)",
                        swap.slots,
                        u32::MAX
                    ),
                });
            }
        }
        let usable = config.memory.usable_pages();
        let capacity_bytes = config.memory.total_pages as u64 * crate::PAGE_SIZE_BYTES;
        let metadata = config.metadata.map(|m| MetadataCache::new(m, capacity_bytes)).transpose()?;
        Ok(BufferCache {
            pages: PageCache::with_prefetch_cache(
                config.policy,
                usable,
                config.prefetch_cache,
                config.memory.total_pages,
                &config.dulo,
            ),
            prefetcher: config.prefetcher,
            memory: Memory::new(config.memory),
            slots: SlotPool::new(usable),
            observer,
            streams: KeyMap::default(),
            next_fetch: 0,
            next_read: 0,
            runs: Vec::new(),
            bad_layout: None,
            in_flight: InFlightReads::default(),
            read_congested: false,
            dirty: DirtyPages::default(),
            writeback: config.writeback,
            swap: config.swap.map(SwapArea::new),
            swapped: KeyMap::default(),
            writes: KeyMap::default(),
            started: Vec::new(),
            metadata,
            metadata_lock: LruLock::default(),
            lru_walks: Vec::new(),
            releases: Vec::new(),
            call_tag: 0,
            alloc_gfp: Gfp::Kernel,
        })
    }

    pub fn observer(&self) -> &O {
        &self.observer
    }
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }
    pub fn policy_name(&self) -> &'static str {
        self.pages.policy_name()
    }
    /// DULO's counters (sequencings, merge comparisons, block-table bytes), when the policy is DULO.
    pub fn dulo_stats(&self) -> Option<DuloStats> {
        self.pages.dulo_stats()
    }
    pub fn resident_pages(&self) -> u32 {
        self.pages.resident_pages()
    }
    pub fn in_flight_pages(&self) -> u32 {
        self.pages.in_flight_pages()
    }
    /// The replacement policy's queues, keys in queue order (see `Replacement::state`), for tests and
    /// debugging.
    pub fn policy_state(&self) -> String {
        self.pages.policy_state()
    }
    /// Pages the cache may hold at most: memory minus the kernel's reserve.
    pub fn usable_pages(&self) -> u32 {
        self.memory.usable_pages()
    }
    pub fn memory_stats(&self) -> MemoryStats {
        self.memory.stats()
    }
    pub fn reset_memory_stats(&mut self) {
        self.memory.reset_stats();
    }
    /// Whether memory has filled: free memory is at the `low` watermark now, or an allocation found it there
    /// and woke kswapd (whose first batch may have lifted free memory above `low` again by the time anyone
    /// looks: with small allocations it always has). The steady-state test of the simulator's automatic
    /// warm-up, and of the live benchmarks that follow it.
    pub fn memory_filled(&self) -> bool {
        self.memory.free_pages() <= self.memory.config().watermarks.low
            || self.memory.stats().kswapd_wakeups > 0
    }
    /// Free pages now: [`MemorySnapshot::free`] without the rest of the snapshot (O(1)).
    pub fn free_pages(&self) -> u32 {
        self.memory.free_pages()
    }
    pub fn memory(&self) -> MemorySnapshot {
        let c = self.memory.config();
        MemorySnapshot {
            total: c.total_pages,
            reserved: c.reserved_pages,
            held: c.held_pages,
            usable: self.memory.usable_pages(),
            free: self.memory.free_pages(),
            resident: self.pages.resident_pages(),
            in_flight: self.pages.in_flight_pages(),
            pinned_only: self.slots.orphans,
            prefetched_unused: self.pages.prefetched_unused_pages(),
            prefetch_cache: self.pages.prefetch_cache_pages(),
            prefetch_cache_allocation: self.pages.pc.as_ref().map_or(0, |pc| pc.allocation_pages()),
            writing: self.pages.writing_pages(),
            dirty: self.dirty.dirty(),
            writeback: self.dirty.writeback(),
            swap_used: self.swap.as_ref().map_or(0, |s| s.used_slots()),
            swap_capacity: self.swap.as_ref().map_or(0, |s| s.capacity()),
            metadata: self.metadata_pages(),
            metadata_releasing: self.releasing_pages(),
            watermarks: c.watermarks,
        }
    }
    /// The CPU time of reclaim work, by the costs of the memory model.
    pub fn reclaim_time(&self, cost: ReclaimCost) -> Nanos {
        self.memory.time(cost)
    }
    /// What the cache knows of `stream`, if it is open.
    pub fn stream(&self, stream: StreamId) -> Option<StreamRecord> {
        self.streams.get(&stream.0).copied()
    }

    /// Start a `read()` of pages `[first, last)` of `file` (of `file_pages` pages) by `stream`. A stream
    /// not yet opened is opened now.
    pub fn begin_read(
        &mut self,
        now: Nanos,
        stream: StreamId,
        file: FileId,
        first: u64,
        last: u64,
        file_pages: u64,
    ) -> Result<ReadCursor, CoreError> {
        if !(first < last && last <= file_pages) {
            return Err(CoreError::BadRead(format!("pages [{first}, {last}) of a {file_pages}-page file")));
        }
        check_file(file, file_pages)?;
        Ok(ReadCursor {
            id: self.begin_call(now, stream),
            stream,
            file,
            first,
            next: first,
            last,
            file_pages,
            counted: None,
            pin: false,
            gfp: Gfp::Kernel,
            ra_next: first,
            aligned_ra: None,
            done_reported: false,
        })
    }

    /// A call (read, write, fault) by `stream` begins: the stream opens if it is new, and the call gets its
    /// id (which marks the pages its own synchronous fetch brings: [`BufferCache::own_demand`]).
    fn begin_call(&mut self, now: Nanos, stream: StreamId) -> u64 {
        if !self.streams.contains_key(&stream.0) {
            self.stream_opened(now, stream);
        }
        self.next_read += 1;
        self.next_read
    }

    /// A stream (a request handler, an open file handle) begins.
    pub fn stream_opened(&mut self, now: Nanos, stream: StreamId) {
        self.streams.insert(stream.0, StreamRecord { opened: now, cpu_ns: 0 });
        if let Some(pc) = &mut self.pages.pc {
            pc.owner_opened(stream);
        }
        self.observer.stream_opened(now, stream);
    }

    /// A stream ended (its owner exited): the prefetcher drops its state. Returns whether it was open.
    pub fn stream_closed(&mut self, now: Nanos, stream: StreamId) -> bool {
        self.prefetcher.stream_closed(stream);
        if let Some(pc) = &mut self.pages.pc {
            pc.owner_exited(stream);
        }
        let was_open = self.streams.remove(&stream.0).is_some();
        self.observer.stream_closed(now, stream);
        was_open
    }

    /// `stream`'s owner ran `cpu_ns` on a CPU. Errors for a stream that is not open.
    pub fn stream_cpu(&mut self, now: Nanos, stream: StreamId, cpu_ns: u64) -> Result<(), CoreError> {
        let record = self.streams.get_mut(&stream.0).ok_or(CoreError::UnknownStream(stream.0))?;
        record.cpu_ns += cpu_ns;
        if let Some(pc) = &mut self.pages.pc {
            pc.owner_cpu(stream, cpu_ns);
        }
        self.observer.stream_cpu(now, stream, cpu_ns);
        Ok(())
    }

    /// The prefetch cache, if the cache has one (its order, allocation, statistics).
    pub fn prefetch_cache(&self) -> Option<&PrefetchCache> {
        self.pages.pc.as_ref()
    }

    /// Whether the cache reads what streams declare they will read ([`BufferCache::declare_read`]):
    /// `pc-optimal`'s application hints.
    pub fn wants_declared_reads(&self) -> bool {
        self.pages.pc.as_ref().is_some_and(|pc| pc.wants_declared_reads())
    }

    /// `stream` will read pages `[first, last)` of `file` (papers/000 §4.2's "augmented open() system
    /// call" of the approximated optimal policy). Ignored unless [`BufferCache::wants_declared_reads`].
    pub fn declare_read(&mut self, stream: StreamId, file: FileId, first: u64, last: u64) {
        if let Some(pc) = &mut self.pages.pc {
            pc.declare(stream, file, first, last);
        }
    }

    /// `stream` closed `file` but lives on: the prefetcher drops that one state.
    pub fn file_closed(&mut self, now: Nanos, stream: StreamId, file: FileId) {
        self.prefetcher.file_closed(stream, file);
        self.observer.file_closed(now, stream, file);
    }

    /// Continue the read `cursor` at time `now`: deliver pages until one is not ready. Fills `out`. A cursor
    /// that has returned [`ReadStatus::Done`] returns it again and changes nothing (the prefetcher heard
    /// once that the read was done).
    ///
    /// Errors, for what a driver can get wrong: `out` still holds pins of an earlier call (unpin them
    /// first; nothing is done), a cursor changed since [`BufferCache::begin_read`] so that its pages no
    /// longer fit in page keys (nothing is done), or a `layout` that does not map every page of a window
    /// exactly once, in order (that window is not read; the call returns the error where it would have
    /// returned, its cursor and `out` as they are then: a reader whose own page was in the window stalls
    /// there, its fetches issued before stand).
    pub fn read(
        &mut self,
        now: Nanos,
        cursor: &mut ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) -> Result<(), CoreError> {
        check_no_pins(out)?;
        cursor.check_keys_fit()?;
        self.read_pages(now, cursor, layout, out);
        self.call_result()
    }

    /// The end of a call whose windows [`BufferCache::submit`] checked: the error of a window the layout
    /// did not map, if there was one.
    fn call_result(&mut self) -> Result<(), CoreError> {
        self.bad_layout.take().map_or(Ok(()), Err)
    }

    /// [`BufferCache::read`], its arguments checked. Out of line: the page loop compiles as it did when it
    /// was `read` itself (inlined into the checks, it ran 4 % more instructions a page).
    #[inline(never)]
    fn read_pages(
        &mut self,
        now: Nanos,
        cursor: &mut ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        out.clear();
        if cursor.done_reported {
            out.status = ReadStatus::Done;
            return;
        }
        self.begin_allocating(cursor.gfp);
        let bound = cursor.last.saturating_sub(cursor.next);
        for _ in 0..=bound {
            if cursor.is_done() {
                if cursor.page_cache_readahead() {
                    let page = crate::PAGE_SIZE_BYTES;
                    let bytes = cursor.first * page..cursor.last * page;
                    self.prefetcher.read_done(now, cursor.stream, cursor.file, bytes);
                }
                cursor.done_reported = true;
                out.status = ReadStatus::Done;
                return;
            }
            let idx = cursor.next;
            if idx == cursor.ra_next && cursor.page_cache_readahead() {
                self.read_ahead(now, cursor, layout, out);
            }
            let first_encounter = cursor.counted != Some(idx);
            let key = PageKey::in_checked_range(cursor.file, idx);
            let found = self.find(key);
            if let Some(frame) = found.filter(|&frame| self.pages.is_uptodate(frame)) {
                // The common case, its access reported with the page's use (`deliver`).
                self.deliver(now, frame, key, first_encounter, cursor, layout, out);
                continue;
            }
            if first_encounter {
                self.report_access(now, cursor.stream, key, found, cursor.id);
            }
            match found {
                Some(frame) => {
                    // PG_readahead on a page still under I/O starts the next window too (filemap_get_pages
                    // checks the flag before waiting for the page to become uptodate).
                    self.check_marker(now, frame, cursor, layout, out);
                    cursor.counted = Some(idx);
                    out.status = ReadStatus::Blocked { fetch: self.fetch_of(frame) };
                    return;
                }
                None => {
                    cursor.counted = Some(idx);
                    let window = if let Some((alignment, pages)) = cursor.aligned_ra {
                        let start = idx - idx % alignment;
                        Window::exact(start, pages.min(cursor.file_pages - start))
                    } else {
                        let ctx = self.ctx(now, cursor);
                        let view = View { pages: &self.pages, read_congested: self.read_congested };
                        self.prefetcher.on_sync_miss(&ctx, &view)
                    };
                    assert!(
                        window.contains(idx),
                        "sync readahead window {window:?} misses the demanded page {idx}"
                    );
                    self.submit(now, window, cursor, true, layout, out);
                    out.status = self.blocked_on_fetch_of(now, key, cursor.stream);
                    return;
                }
            }
        }
        unreachable!("read loop ran past its bound");
    }

    /// A fetch completed: its pages become valid and join the replacement policy (pages invalidated while
    /// in flight are dropped instead). Errors for a fetch this cache has not issued (exactly so) or already
    /// finished.
    pub fn fetch_done(&mut self, now: Nanos, fetch: &Fetch) -> Result<(), CoreError> {
        if fetch.write {
            self.write_done(now, fetch, false)?;
            self.observer.fetch_done(now, fetch);
            self.check();
            return Ok(());
        }
        let (frames, stale) = self.in_flight.finish(fetch).ok_or(CoreError::UnknownFetch(fetch.id))?;
        let from_swap = fetch.file == FileId::SWAP;
        // A file read's pages are its pages in order (the fetch is as issued); a swap read's, the slots' owners.
        let first_key = if from_swap { 0 } else { PageKey::new(fetch.file, fetch.first_page).raw() };
        // The common case: a file read with no page invalidated in flight (the record of reads in flight
        // knows, without a pass over the pages) and no prefetch cache to take its readahead pages. Every page
        // joins the policy, in one call for the read, which checks each is in flight under the read.
        let plain = !from_swap && self.pages.pc.is_none() && !stale;
        if plain {
            let observer = &mut self.observer;
            self.pages.complete_read(&frames, first_key, fetch.id, |key, owner, prefetched| {
                observer.inserted(now, PageKey::from_raw(key), owner, prefetched)
            });
        } else {
            self.complete_each(now, fetch, &frames, first_key);
        }
        self.in_flight.recycle(frames);
        let pages = fetch.first_page..fetch.first_page + u64::from(fetch.pages);
        self.prefetcher.fetch_done(now, fetch.owner, fetch.file, pages);
        self.observer.fetch_done(now, fetch);
        self.check();
        Ok(())
    }

    /// The pages of a finished read, one by one: a swap read's (their keys are the slots' owners), a read
    /// with pages invalidated in flight (dropped), or one whose readahead pages go to the prefetch cache.
    fn complete_each(&mut self, now: Nanos, fetch: &Fetch, frames: &[FrameId], first_key: u64) {
        let from_swap = fetch.file == FileId::SWAP;
        for (i, &frame) in frames.iter().enumerate() {
            self.check_in_flight(frame, fetch);
            let (flags, owner) =
                (self.pages.meta[frame as usize].flags, self.pages.meta[frame as usize].owner);
            if flags & flag::STALE != 0 {
                self.drop_page(now, frame);
                continue;
            }
            let key = if from_swap {
                self.swap_read_arrived(frame);
                PageKey::from_raw(self.pages.table.key(frame))
            } else {
                PageKey::from_raw(first_key + i as u64)
            };
            // Only the prefetch cache reads the owner's CPU time: no stream lookup per page without one.
            let owner_cpu_ns =
                self.pages.pc.as_ref().and_then(|_| self.streams.get(&owner.0)).map(|r| r.cpu_ns);
            self.pages.complete(frame, key.raw(), now, owner_cpu_ns);
            // Neither the arrival nor the insertion changes who demanded the page.
            let prefetched = flags & flag::DEMANDED == 0;
            self.observer.inserted(now, key, owner, prefetched);
            if from_swap {
                self.observer.swapped_in(now, key, !prefetched);
            }
        }
    }

    /// A fetch failed (an I/O error): its pages leave the cache and their memory is free. The readers
    /// blocked on it are the driver's to wake: resumed, a read misses the page again and fetches it anew
    /// (a driver may instead fail the reader's call).
    pub fn fetch_failed(&mut self, now: Nanos, fetch: &Fetch) -> Result<(), CoreError> {
        if fetch.write {
            self.write_done(now, fetch, true)?;
            self.observer.fetch_failed(now, fetch);
            self.check();
            return Ok(());
        }
        let (frames, _) = self.in_flight.finish(fetch).ok_or(CoreError::UnknownFetch(fetch.id))?;
        for &frame in &frames {
            self.check_in_flight(frame, fetch);
            self.drop_page(now, frame);
        }
        self.in_flight.recycle(frames);
        self.observer.fetch_failed(now, fetch);
        self.check();
        Ok(())
    }

    /// Where the pages of `fetch` go: their slots in page order, for a driver that reads data into them.
    pub fn fetch_slots(&mut self, fetch: &Fetch, out: &mut Vec<Slot>) -> Result<(), CoreError> {
        out.clear();
        let frames = self.in_flight.frames(fetch).ok_or(CoreError::UnknownFetch(fetch.id))?;
        out.extend(frames.iter().map(|&frame| self.pages.meta[frame as usize].slot));
        Ok(())
    }

    /// Give back a reader's pin. Errors for a pin this cache did not hand out or already took back.
    pub fn unpin(&mut self, pin: Pin) -> Result<(), CoreError> {
        let s = pin.slot as usize;
        if s >= self.slots.pins.len() || self.slots.pins[s] == 0 {
            return Err(CoreError::BadPin(pin.slot));
        }
        self.slots.pins[s] -= 1;
        self.slots.pins_held -= 1;
        if self.slots.pins[s] == 0 && self.slots.orphaned[s] {
            self.slots.orphaned[s] = false;
            self.slots.orphans -= 1;
            self.slots.free.push(pin.slot);
            self.memory.release();
        }
        Ok(())
    }

    /// Drop every page of `file`: the file changed behind the cache. Resident pages leave at once (their
    /// slots stay with any reader pinning them); pages in flight are dropped when their fetch completes.
    /// O(capacity): a scan of the frames, for a rare event. Returns the pages dropped or marked.
    pub fn invalidate(&mut self, now: Nanos, file: FileId) -> u32 {
        let mut dropped = self.drop_file_pages(now, file);
        // Pages reclaim is writing out: their write finishes, but their data never comes back.
        let dirty = &mut self.dirty;
        dropped += self.pages.retire_writing(file, |key, w| {
            if w.flags & flag::DIRTY != 0 {
                dirty.dropped(file, key.index());
            }
        });
        self.check();
        dropped
    }

    /// The driver's request queue is (or is no longer) read-congested: Linux 2.6's readahead skips
    /// non-blocking ahead windows while it is (`bdi_read_congested()`).
    pub fn set_read_congested(&mut self, congested: bool) {
        self.read_congested = congested;
    }

    /// Whether kswapd has work: the driver runs [`BufferCache::kswapd_step`] (on a CPU, as a thread) until
    /// it returns `None`.
    pub fn kswapd_awake(&self) -> bool {
        self.memory.kswapd_awake()
    }

    /// One batch of kswapd's reclaim at `now`: `Some(cost)` (the driver charges its CPU time to kswapd's
    /// thread, issues the writes in `fetches` that reclaim started for dirty victims, then calls again) or
    /// `None` when kswapd sleeps. Bounded: every step takes at least one page or puts kswapd to sleep.
    pub fn kswapd_step(&mut self, now: Nanos, fetches: &mut Vec<Fetch>) -> Option<ReclaimCost> {
        self.settle(now);
        let target = self.memory.kswapd_target()?;
        let reclaimable_before =
            self.pages.reclaimable_pages() as u64 + self.metadata.as_ref().map_or(0, |m| m.freeable());
        let cost = self.reclaim(now, target, History::NONE, Reclaimer::Kswapd, fetches);
        assert!(
            cost.scanned + cost.objects_scanned > 0 || reclaimable_before == 0,
            "kswapd examined nothing of {reclaimable_before} reclaimable pages and objects"
        );
        self.memory.record_kswapd(cost);
        self.observer.reclaimed(now, Reclaimer::Kswapd, cost);
        self.check();
        Some(cost)
    }

    /// One direct reclaim at `now` by a task allocating in context `gfp`, as an allocation below `min` does
    /// it, whatever memory is free: papers/004 Figure 2's "page deallocation time" is its CPU time
    /// ([`BufferCache::reclaim_time`]), and a driver calls it for a task whose reclaim made progress but
    /// which finds memory at `min` again when that reclaim's work is done (`__alloc_pages` retries).
    /// Writes it started for dirty victims go to `fetches`.
    pub fn reclaim_directly(&mut self, now: Nanos, gfp: Gfp, fetches: &mut Vec<Fetch>) -> ReclaimCost {
        self.begin_allocating(gfp);
        self.settle(now);
        let mut out = ReadOutcome::default();
        let cost = self.direct_reclaim(now, History::NONE, &mut out);
        fetches.append(&mut out.fetches);
        self.check();
        cost
    }

    /// Linux 2.6's `page_cache_readahead()` at the page the walk reached: the windows it returns are read
    /// now, the pages of this call in them as the call's demand.
    fn read_ahead(
        &mut self,
        now: Nanos,
        cursor: &mut ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        let ctx = self.ctx(now, cursor);
        let view = View { pages: &self.pages, read_congested: self.read_congested };
        let plan = self.prefetcher.on_read(&ctx, &view);
        assert!(plan.next_index > cursor.next, "on_read at {} asked to be called again there", cursor.next);
        cursor.ra_next = plan.next_index;
        for window in plan.windows.into_iter().flatten() {
            assert_eq!(window.async_size, 0, "Linux 2.6's windows carry no marker: {window:?}");
            self.submit(now, window, cursor, true, layout, out);
        }
    }

    fn ctx(&self, now: Nanos, cursor: &ReadCursor) -> ReadCtx {
        ReadCtx {
            now,
            stream: cursor.stream,
            file: cursor.file,
            index: cursor.next,
            req_pages: cursor.last - cursor.next,
            file_pages: cursor.file_pages,
        }
    }

    /// Hand the uptodate page in `frame` to the reader: its access (reported at the call's first encounter
    /// with the page), its use, and the async readahead trigger.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        now: Nanos,
        frame: FrameId,
        key: PageKey,
        first_encounter: bool,
        cursor: &mut ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        let f = frame as usize;
        // The call's own demanded page: its insertion was the access (the report tells, once).
        let own = if first_encounter {
            self.report_access(now, cursor.stream, key, Some(frame), cursor.id)
        } else {
            self.own_demand(frame, cursor.id)
        };
        if own {
            self.clear_own_demand(frame);
        } else {
            self.used(now, frame, key, cursor.stream);
        }
        if cursor.pin {
            let slot = self.pages.meta[f].slot;
            self.slots.pin(slot);
            out.pins.push(Pin { file: cursor.file, index: cursor.next, slot });
        }
        self.check_marker(now, frame, cursor, layout, out);
        cursor.next += 1;
        cursor.counted = None;
        out.pages_delivered += 1;
    }

    /// The page in `frame` is read: if it carries the readahead marker (`PG_readahead`), the next window
    /// starts. Inlined test, out-of-line window: every delivered page comes here, few carry the marker.
    #[inline]
    fn check_marker(
        &mut self,
        now: Nanos,
        frame: FrameId,
        cursor: &ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        // A file system's own read (`aligned_readahead`) leaves the page cache's readahead alone, its
        // markers included.
        if self.pages.meta[frame as usize].flags & flag::MARKER != 0 && cursor.page_cache_readahead() {
            self.marker_hit(now, frame, cursor, layout, out);
        }
    }

    #[inline(never)]
    fn marker_hit(
        &mut self,
        now: Nanos,
        frame: FrameId,
        cursor: &ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        self.pages.meta[frame as usize].flags &= !flag::MARKER;
        let ctx = self.ctx(now, cursor);
        let view = View { pages: &self.pages, read_congested: self.read_congested };
        if let Some(window) = self.prefetcher.on_marker_hit(&ctx, &view) {
            self.submit(now, window, cursor, false, layout, out);
        }
    }

    /// Allocate frames for the not-cached pages of `window` and emit their fetches. When `sync`, the
    /// page at `cursor.next` is the demanded one.
    fn submit(
        &mut self,
        now: Nanos,
        window: Window,
        cursor: &ReadCursor,
        sync: bool,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) {
        let pages = window.pages(cursor.file_pages);
        if pages.is_empty() {
            return;
        }
        cursor.assert_keys_fit();
        debug_assert!(
            pages.end <= cursor.last.max(cursor.file_pages),
            "a window beyond the call and the file"
        );
        let marker_page = window.marker_page(cursor.file_pages);
        // A synchronous window brings the rest of the reader's call as demand pages (Linux reads them
        // through readahead too, but they are accessed by this very call: not prefetched).
        let demanded = if sync { cursor.next..cursor.last } else { 0..0 };
        let mut first = None;
        let own_read = cursor.aligned_ra.is_some();
        if own_read && demanded.start > pages.start && pages.contains(&demanded.start) {
            // The reader's page before the stretch around it: ext4's `__ext4_get_inode_loc()` gets the
            // inode's own block (`sb_getblk()`) before it reads ahead the aligned stretch of the table from
            // below it. Allocated in page order, the stretch's pages below it would take the memory the
            // reader needs first: when memory is short the reader's page would never be had, and its own
            // readahead reclaimed again and again. (The page cache's readahead allocates in page order, as
            // `__do_page_cache_readahead()` does; its synchronous windows start at the reader's page.)
            match self.allocate_first(now, demanded.start, cursor, layout, out) {
                Some(frame) => first = Some((demanded.start, frame)),
                None => return self.check(),
            }
        }
        self.runs.clear();
        layout.runs(cursor.file, pages.start, pages.end - pages.start, &mut self.runs);
        let runs = std::mem::take(&mut self.runs);
        if runs_map(&runs, &pages) {
            for run in &runs {
                if !self.submit_run(now, run, cursor, &demanded, marker_page, &mut first, out) {
                    break;
                }
            }
        } else {
            // The window is not read (the reader's page had first, if any, is read alone below).
            self.bad_layout = Some(bad_runs(&runs, cursor.file, &pages));
        }
        self.runs = runs;
        if let Some((idx, frame)) = first {
            // The stretch ended before the reader's page: its page is read alone.
            self.issue_alone(now, idx, frame, cursor, marker_page, out);
        }
        self.check();
    }

    /// Memory and a frame for the reader's page `idx`, had before the rest of its window
    /// ([`BufferCache::submit`]). `None` when it cannot be had now (or reclaim is writing it out), or when
    /// the layout does not map it (the call's error then).
    fn allocate_first(
        &mut self,
        now: Nanos,
        idx: u64,
        cursor: &ReadCursor,
        layout: &impl Layout,
        out: &mut ReadOutcome,
    ) -> Option<FrameId> {
        let key = PageKey::new(cursor.file, idx);
        debug_assert!(self.pages.lookup(key.raw()).is_none(), "the reader's page {idx} is cached");
        if self.pages.being_written(key.raw()) {
            return None;
        }
        self.runs.clear();
        layout.runs(cursor.file, idx, 1, &mut self.runs);
        if !runs_map(&self.runs, &(idx..idx + 1)) {
            self.bad_layout = Some(bad_runs(&self.runs, cursor.file, &(idx..idx + 1)));
            return None;
        }
        let lbn = self.runs[0].lbn;
        self.allocate(now, key, lbn, true, cursor, out)
    }

    /// The fetch of page `idx` alone, in `frame` (allocated, not yet in a fetch).
    fn issue_alone(
        &mut self,
        now: Nanos,
        idx: u64,
        frame: FrameId,
        cursor: &ReadCursor,
        marker_page: Option<u64>,
        out: &mut ReadOutcome,
    ) {
        let fetch = self.new_read(cursor, idx, self.pages.lbn_of(frame), true);
        self.join_fetch(frame, fetch.id, idx, marker_page);
        self.issue(now, fetch, out);
    }

    /// A new read of page `idx` of the reader's file (at `lbn`), one page long so far.
    fn new_read(&mut self, cursor: &ReadCursor, idx: u64, lbn: Lbn, sync: bool) -> Fetch {
        self.next_fetch += 1;
        let (file, owner) = (cursor.file, cursor.stream);
        Fetch { id: self.next_fetch, file, first_page: idx, lbn, pages: 1, sync, write: false, owner }
    }

    /// The page `idx` in `frame` is read by fetch `id`; it takes the readahead marker if it is the window's.
    fn join_fetch(&mut self, frame: FrameId, id: u64, idx: u64, marker_page: Option<u64>) {
        // The record first, through one reference: after the push below the compiler would check the
        // array's bounds and load its address again.
        let record = &mut self.pages.meta[frame as usize];
        record.set_fetch(id);
        if marker_page == Some(idx) {
            record.flags |= flag::MARKER;
        }
        self.in_flight.join(frame);
    }

    /// Allocate the absent pages of one disk run; consecutive allocated pages form one fetch. `false`: a
    /// page could not be had, and the window ends there (its later pages and runs are not tried), as 2.6's
    /// `__do_page_cache_readahead()` breaks out of its allocation loop at the first page it cannot allocate.
    /// A demanded page left out is the reader's to miss again. The reader's page allocated `first` joins
    /// the fetch its neighbours form (and is taken out of `first`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn submit_run(
        &mut self,
        now: Nanos,
        run: &DiskRun,
        cursor: &ReadCursor,
        demanded: &std::ops::Range<u64>,
        marker_page: Option<u64>,
        first: &mut Option<(u64, FrameId)>,
        out: &mut ReadOutcome,
    ) -> bool {
        let mut open: Option<Fetch> = None;
        for i in 0..run.pages {
            let idx = run.file_page + i;
            let key = PageKey::in_checked_range(cursor.file, idx);
            let is_demand = demanded.contains(&idx);
            let lbn = Lbn(run.lbn.0 + i);
            let had = first.take_if(|&mut (page, _)| page == idx).map(|(_, frame)| frame);
            let present = had.is_none()
                && (self.pages.lookup(key.raw()).is_some() || self.pages.being_written(key.raw()));
            // Cached pages (and pages reclaim is writing out) split the batch, never take the marker.
            let frame = match had {
                Some(frame) => Some(frame),
                None if present => None,
                None => self.allocate(now, key, lbn, is_demand, cursor, out),
            };
            let Some(frame) = frame else {
                if let Some(f) = open.take() {
                    self.issue(now, f, out);
                }
                if present {
                    continue;
                }
                return false;
            };
            let id = match open.as_mut() {
                Some(fetch) => {
                    fetch.pages += 1;
                    fetch.sync |= is_demand;
                    fetch.id
                }
                None => open.insert(self.new_read(cursor, idx, lbn, is_demand)).id,
            };
            self.join_fetch(frame, id, idx, marker_page);
        }
        if let Some(f) = open {
            self.issue(now, f, out);
        }
        true
    }

    /// The read `fetch`, its pages joined ([`BufferCache::join_fetch`]), goes to the driver.
    fn issue(&mut self, now: Nanos, fetch: Fetch, out: &mut ReadOutcome) {
        debug_assert!(!fetch.write, "writes are issued by `issue_write`");
        self.in_flight.issue(fetch);
        self.observer.fetch_issued(now, &fetch);
        out.fetches.push(fetch);
    }

    /// Memory and a frame for page `key`, announced to the policy: a free page, or one freed by direct
    /// reclaim. `None` (the page is not brought in) when nothing can be freed.
    #[inline(always)]
    fn allocate(
        &mut self,
        now: Nanos,
        key: PageKey,
        lbn: Lbn,
        demand: bool,
        cursor: &ReadCursor,
        out: &mut ReadOutcome,
    ) -> Option<FrameId> {
        let (history, slot) = self.obtain(now, key, lbn, demand, cursor.stream, out)?;
        let flags = if demand { flag::DEMANDED } else { flag::PREFETCHED };
        let read = if demand { cursor.id } else { 0 };
        let page = Incoming {
            key: key.raw(),
            owner: cursor.stream,
            lbn,
            flags,
            fetch: 0,
            read,
            history,
            slot,
            anon_slot: NO_SWAP_SLOT,
        };
        Some(self.pages.take_frame(page))
    }

    /// Memory for page `key`, announced to the policy (`on_miss`): a free page, or one freed by direct
    /// reclaim. Returns the page's history and its slot; `None` (the page is not brought in) when nothing
    /// can be freed. The caller gives the page a frame at once.
    #[inline(always)]
    fn obtain(
        &mut self,
        now: Nanos,
        key: PageKey,
        lbn: Lbn,
        demand: bool,
        stream: StreamId,
        out: &mut ReadOutcome,
    ) -> Option<(History, Slot)> {
        if !self.memory_available() {
            self.refuse(now, key, demand, stream);
            return None;
        }
        let history = self.pages.announce(key.raw(), lbn, !demand);
        if !self.take_memory(now, history, out) {
            // The page is dropped after its announcement, which the policy protocol allows (its history
            // goes with it).
            self.refuse(now, key, demand, stream);
            return None;
        }
        if let Some(pc) = self.pages.pc.as_mut().filter(|_| demand) {
            pc.partitioner_mut().demand_miss(now, key.raw());
        }
        self.observer.allocated(now, key, stream, demand);
        Some((history, self.slots.take()))
    }

    /// Take a page from the budget, reclaiming directly until one can be taken, as `__alloc_pages` retries
    /// while reclaim frees pages (the first eviction steered by `incoming`). `false`: nothing could be freed
    /// now. Every round that continues freed at least one page (only a reader's pin keeps its memory), so
    /// the rounds are bounded by the pages the sections hold.
    #[inline(always)]
    fn take_memory(&mut self, now: Nanos, incoming: History, out: &mut ReadOutcome) -> bool {
        // Bounded by the rounds, not by a count: the count compiles away (this is the hot path).
        self.take_memory_within::<false>(now, incoming, &mut 0, out)
    }

    /// [`BufferCache::take_memory`], with at most `reclaims_left` direct reclaims if `LIMITED` (counted
    /// down; shared by the pages of one `__GFP_NORETRY` allocation, which reclaims once:
    /// `buffer/metadata.rs`).
    #[inline(always)]
    pub(super) fn take_memory_within<const LIMITED: bool>(
        &mut self,
        now: Nanos,
        incoming: History,
        reclaims_left: &mut u32,
        out: &mut ReadOutcome,
    ) -> bool {
        self.settle(now);
        // A free page above `min`, or a page of the call's own reclaim still being freed, before any reclaim.
        if self.memory.take() || self.claim_released_page() {
            return true;
        }
        let mut evict_for = incoming;
        let rounds_max = self.pages.table.len() + self.metadata_pages() + 1;
        for _ in 0..=rounds_max {
            if !self.has_victims() {
                return false; // every victim pinned or being written
            }
            if LIMITED {
                if *reclaims_left == 0 {
                    return false;
                }
                *reclaims_left -= 1;
            }
            // The call's clock: its reclaims so far have taken their time (its lock waits and releases
            // follow one another, not the call's start).
            let at = now + self.call_reclaim_time(out);
            // The page's history steers the first eviction only (ARC's REPLACE); the rest are for no page.
            let cost = self.direct_reclaim(at, std::mem::take(&mut evict_for), out);
            if !self.memory_above_min() && self.claim_released_page() {
                return true;
            }
            if cost.freed == 0 {
                // Only writes started (dirty victims), or nothing could leave (anonymous pages with no swap
                // to go to): the task waits for I/O before it tries again, as 2.6's `try_to_free_pages()`
                // sleeps in `blk_congestion_wait()` rather than write out all of memory.
                return false;
            }
            if self.memory.take() || self.claim_released_page() {
                return true;
            }
        }
        unreachable!("direct reclaim ran {rounds_max} rounds without freeing a page");
    }

    /// The CPU time of the reclaims this call made so far ([`ReadOutcome::reclaim`]).
    #[inline]
    fn call_reclaim_time(&self, out: &ReadOutcome) -> Nanos {
        if self.memory.work_is_free() {
            // Only the lock's waits take time (the exact model's one-page reclaims, one per page, come here):
            // `out.reclaim()`'s, without adding up the rest.
            let waits = [out.direct_reclaim.lock_wait_ns, out.metadata_reclaim.lock_wait_ns, out.dput_wait.0];
            return Nanos(waits.iter().fold(0, |sum, &w| sum.saturating_add(w)));
        }
        self.memory.time(out.reclaim())
    }

    /// A page can be had: a free page above `min`, or a victim for reclaim.
    fn memory_available(&self) -> bool {
        self.memory_above_min() || self.has_victims()
    }

    fn memory_above_min(&self) -> bool {
        self.memory.free_pages() > self.memory.config().watermarks.min
    }

    /// Direct reclaim has something to take: a page-cache page, or (conventional reclaim) a metadata object
    /// the shrinker sees.
    fn has_victims(&self) -> bool {
        self.pages.has_victims()
            || self.metadata.as_ref().is_some_and(|m| m.in_direct_reclaim() && m.freeable() > 0)
    }

    /// An allocating call begins: its context, and a new number for the pages its reclaims free.
    fn begin_allocating(&mut self, gfp: Gfp) {
        self.alloc_gfp = gfp;
        self.call_tag += 1;
    }

    fn refuse(&mut self, now: Nanos, key: PageKey, demand: bool, stream: StreamId) {
        self.memory.record_failed_allocation();
        if !demand {
            self.observer.prefetch_dropped(now, key, stream);
        }
    }

    /// Step 3 of an allocation: the reading task reclaims a batch itself.
    #[inline(always)]
    fn direct_reclaim(&mut self, now: Nanos, incoming: History, out: &mut ReadOutcome) -> ReclaimCost {
        let cost =
            self.reclaim(now, self.memory.direct_batch(), incoming, Reclaimer::Direct, &mut out.fetches);
        self.memory.record_direct(cost);
        out.direct_reclaim += cost;
        out.direct_reclaims += 1;
        out.direct_reclaim_gfp = self.alloc_gfp;
        self.observer.reclaimed(now, Reclaimer::Direct, cost);
        cost
    }

    /// Evict the first pass's pages from the page cache (`target`, or more on a long reclaim list:
    /// [`Memory::first_pass`]; the first for the page whose history is `incoming`), report each and free
    /// its memory (unless a reader pins its slot); a dirty victim's write starts instead (its I/O goes to
    /// `fetches`) and its memory comes free when the write completes. Then the metadata shrinker runs, if
    /// `who` shrinks metadata ([`BufferCache::shrink_metadata`]), at rising priority while the reclaim is
    /// short of `target`.
    #[inline(always)]
    fn reclaim(
        &mut self,
        now: Nanos,
        target: u32,
        incoming: History,
        who: Reclaimer,
        fetches: &mut Vec<Fetch>,
    ) -> ReclaimCost {
        let pages = &self.pages;
        let pass = self.memory.first_pass(target, || pages.reclaim_list_pages());
        let mut cost = self.reclaim_pages(now, pass, incoming, fetches);
        if self.metadata.is_some() {
            cost += self.shrink_metadata(now, who, target, cost);
        }
        cost
    }

    #[inline(always)]
    fn reclaim_pages(
        &mut self,
        now: Nanos,
        target: u32,
        incoming: History,
        fetches: &mut Vec<Fetch>,
    ) -> ReclaimCost {
        let BufferCache { pages, observer, slots, memory, started, swapped, .. } = self;
        pages.steer_next_eviction(incoming);
        debug_assert!(started.is_empty(), "writes of an earlier reclaim left unstarted");
        let mut sink = EvictedPages { now, observer, slots, released: 0, started, swapped };
        let mut cost = pages.reclaim(target, now, &mut sink);
        memory.release_pages(sink.released);
        if self.started.is_empty() {
            return cost; // no dirty victim (the common case)
        }
        let mut started = std::mem::take(&mut self.started);
        for &(key, owner, what) in &started {
            if self.start_reclaim_write(now, key, fetches) {
                self.observer.evicted(now, key, owner, what);
            } else {
                // No swap slot for an anonymous page: it stayed (`activate_locked`), and is no eviction.
                cost.written -= 1;
            }
        }
        started.clear();
        self.started = started;
        cost
    }

    /// A hit on the resident page in `frame` by `stream`: the policy hears of it, and a page readahead
    /// brought in (file readahead or swap-in's cluster) is reported used the first time.
    #[inline(always)]
    fn used(&mut self, now: Nanos, frame: FrameId, key: PageKey, stream: StreamId) {
        if self.pages.first_use(frame, key.raw(), now) {
            self.observer.prefetch_used(now, key, self.pages.meta[frame as usize].owner, stream);
        }
        self.pages.hit(frame, key.raw());
    }

    /// The page in `frame` leaves without eviction (invalidation, I/O error, stale completion).
    fn drop_page(&mut self, now: Nanos, frame: FrameId) {
        let key = PageKey::from_raw(self.pages.table.key(frame));
        let f = frame as usize;
        if self.pages.meta[f].flags & flag::DIRTY != 0 && key.file().is_regular() {
            self.dirty.dropped(key.file(), key.index());
        }
        let anon_slot = self.pages.meta[f].anon_slot();
        if anon_slot != NO_SWAP_SLOT {
            self.swap.as_mut().expect("a swap slot without swap").free(anon_slot);
        }
        let (owner, flags) = (self.pages.meta[f].owner, self.pages.meta[f].flags);
        let slot = self.pages.drop_page(frame);
        self.observer.removed(now, key, owner, flags & flag::PREFETCHED != 0);
        self.free_slot(slot);
    }

    fn free_slot(&mut self, slot: Slot) {
        if self.slots.release(slot) {
            self.memory.release();
        }
    }

    /// The key of the `i`th page of `fetch`: a file's page, or the owner of a swap slot.
    fn page_key(&self, fetch: &Fetch, i: u64) -> Option<PageKey> {
        if fetch.file == FileId::SWAP {
            let owner = self.swap.as_ref()?.owner(fetch.first_page + i)?;
            Some(PageKey::from_raw(owner))
        } else {
            Some(PageKey::new(fetch.file, fetch.first_page + i))
        }
    }

    /// The page in `frame` is in flight under `fetch`, as the record of reads in flight says: the record
    /// and the pages' own state agree.
    #[inline(always)]
    fn check_in_flight(&self, frame: FrameId, fetch: &Fetch) {
        assert!(
            self.pages.meta[frame as usize].in_flight_under(fetch.id, 0),
            "frame {frame} of read {} is not in flight under it",
            fetch.id
        );
    }

    /// Drop the pages of `file` in the table: resident ones at once, ones in flight marked stale for their
    /// read's completion to drop. O(frames). Returns how many. Shared by [`BufferCache::invalidate`] and an
    /// anonymous region's release.
    fn drop_file_pages(&mut self, now: Nanos, file: FileId) -> u32 {
        let mut dropped = 0;
        for id in 0..self.pages.table.ids() {
            let key = PageKey::from_raw(self.pages.table.key(id));
            if key.file() != file || self.pages.lookup(key.raw()) != Some(id) {
                continue;
            }
            dropped += 1;
            if self.pages.is_uptodate(id) {
                self.drop_page(now, id);
            } else {
                self.mark_stale(id);
            }
        }
        dropped
    }

    /// The page in `frame`, in flight, was invalidated: its read's completion drops it, and looks at that
    /// read's pages one by one.
    fn mark_stale(&mut self, frame: FrameId) {
        let id = self.fetch_of(frame);
        self.pages.meta[frame as usize].flags |= flag::STALE;
        self.in_flight.mark_stale(id);
    }

    /// The id of the fetch the page in `frame` is in flight under. Its record keeps the id's low 32 bits
    /// (`FrameMeta`); the fetch is among the last 2^32 issued, which the check that it is in flight
    /// confirms.
    fn fetch_of(&self, frame: FrameId) -> u64 {
        let low = self.pages.meta[frame as usize].fetch_low();
        let id = self.next_fetch - (self.next_fetch as u32).wrapping_sub(low) as u64;
        assert!(self.in_flight.is_issued(id), "frame {frame} is in flight under no read in flight");
        id
    }

    /// The page in `frame` was fetched by this very call's synchronous window.
    fn own_demand(&self, frame: FrameId, id: u64) -> bool {
        self.pages.meta[frame as usize].demanded_by(id)
    }

    /// If the page was read for call `id`, its insertion was the call's access: clear the mark, and say so.
    fn consume_own_demand(&mut self, frame: FrameId, id: u64) -> bool {
        let own = self.own_demand(frame, id);
        if own {
            self.clear_own_demand(frame);
        }
        own
    }

    /// The call's own demanded page in `frame` has had its access: the mark goes.
    fn clear_own_demand(&mut self, frame: FrameId) {
        self.pages.meta[frame as usize].flags &= !flag::DEMANDED;
    }

    /// Report call `id`'s first look at page `key`, found in `frame` (valid or under I/O) or absent: a miss
    /// when absent or brought by the call's own synchronous fetch, otherwise a hit (valid) or a wait (under
    /// I/O). Returns whether the page was the call's own.
    #[inline(always)]
    fn report_access(
        &mut self,
        now: Nanos,
        stream: StreamId,
        key: PageKey,
        frame: Option<FrameId>,
        id: u64,
    ) -> bool {
        let (own, outcome) = match frame {
            None => (false, AccessOutcome::Miss),
            Some(f) if self.own_demand(f, id) => (true, AccessOutcome::Miss),
            Some(f) if self.pages.is_uptodate(f) => (false, AccessOutcome::Hit),
            Some(_) => (false, AccessOutcome::Wait),
        };
        if let Some(pc) = &mut self.pages.pc {
            pc.partitioner_mut().accessed(now);
        }
        self.observer.accessed(now, stream, key, outcome);
        own
    }

    /// After a call submitted the fetch of page `key`: blocked on that fetch, or stalled when no memory
    /// could be had for the page.
    fn blocked_on_fetch_of(&mut self, now: Nanos, key: PageKey, stream: StreamId) -> ReadStatus {
        match self.pages.lookup(key.raw()) {
            Some(frame) => ReadStatus::Blocked { fetch: self.fetch_of(frame) },
            None => self.stall(now, stream),
        }
    }

    /// `stream`'s call got no memory: it stalls until reclaim or I/O frees some.
    fn stall(&mut self, now: Nanos, stream: StreamId) -> ReadStatus {
        self.observer.stalled(now, stream);
        ReadStatus::NoMemory
    }

    /// Page conservation in the section, and slots against memory.
    fn check(&self) {
        self.pages.check();
        assert!(self.in_flight.idle(), "a read left half built");
        assert_eq!(
            self.in_flight.pages(),
            self.pages.in_flight_pages(),
            "pages in flight != pages of reads issued"
        );
        let slots_used = self.slots.next_unused - self.slots.free.len() as u32;
        assert_eq!(
            slots_used,
            self.pages.table.len() + self.pages.writing_pages() + self.slots.orphans,
            "slots in use != frames + pages being written + orphans"
        );
        assert_eq!(
            slots_used + self.metadata_pages() + self.releasing_pages(),
            self.memory.used_pages(),
            "memory and slots + metadata pages (held and being freed) disagree"
        );
    }

    /// The swap area, the swapped pages and the resident pages' slots agree; so do the dirty sets. For tests.
    #[cfg(test)]
    fn check_swap(&self) {
        self.dirty.check();
        let Some(swap) = &self.swap else { return };
        swap.check();
        for (&key, &slot) in &self.swapped {
            assert_eq!(swap.owner(slot), Some(key), "swapped page's slot owned by another");
            assert_eq!(self.pages.lookup(key), None, "a swapped page is also resident");
        }
        let resident_slots = (0..self.pages.table.ids())
            .filter(|&id| self.pages.lookup(self.pages.table.key(id)) == Some(id))
            .filter(|&id| self.pages.meta[id as usize].anon_slot() != NO_SWAP_SLOT)
            .inspect(|&id| {
                let key = self.pages.table.key(id);
                assert_eq!(
                    swap.owner(self.pages.meta[id as usize].anon_slot()),
                    Some(key),
                    "resident page's slot"
                );
            })
            .count() as u64;
        let stale = self.pages.stale_writing.iter().map(|(_, w)| w);
        let writing_slots =
            self.pages.writing.values().chain(stale).filter(|w| w.anon_slot != NO_SWAP_SLOT).count() as u64;
        assert_eq!(
            swap.used_slots(),
            self.swapped.len() as u64 + resident_slots + writing_slots,
            "swap slots in use != swapped + resident + being written"
        );
    }

    /// The frame table's own consistency (O(ids)), for tests.
    #[cfg(test)]
    fn check_table(&self) {
        self.pages.table.check();
        let flagged = (0..self.pages.table.ids())
            .filter(|&id| {
                let key = self.pages.table.key(id);
                self.pages.lookup(key) == Some(id)
                    && self.pages.meta[id as usize].flags & flag::PREFETCHED != 0
            })
            .count() as u32;
        assert_eq!(flagged, self.pages.prefetched_unused_pages(), "prefetched-unused count out of step");
        if let Some(pc) = &self.pages.pc {
            pc.check();
            let valid_unused = flag::PREFETCHED | flag::UPTODATE;
            for id in (0..self.pages.table.ids()).filter(|&id| pc.contains(id)) {
                let key = self.pages.table.key(id);
                assert_eq!(self.pages.lookup(key), Some(id), "a prefetch cache page not in the table");
                let flags = self.pages.meta[id as usize].flags;
                assert_eq!(flags & valid_unused, valid_unused, "a prefetch cache page not valid and unused");
            }
        }
    }
}
