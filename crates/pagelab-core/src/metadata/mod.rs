//! The file-metadata cache: dentry + inode objects in slab pages, under the memory budget the page cache
//! shares, reclaimed the conventional Linux way or by split reclaim.
//!
//! Fukatani, Matsuzawa, Kamei, Agetsuma, Nakamura, split reclaim of the file-metadata cache (papers/004). A
//! file's metadata is an object (the dentry and the inode together, as the paper counts them, §III-B; `O`
//! bytes in the thresholds) on the dentry LRU; its memory is a slot in each of Linux's slab caches, a dentry
//! among 21 in a one-page slab and an ext4 inode among 14 in a four-page slab ([`Slabs::Ext4`],
//! [`slab::SlabPages`]); a slab comes free only when all its objects are freed. When the shrinker frees a
//! dentry, its inode goes to an inode LRU of its own and is freed by a later pass, as in the paper's 3.x
//! kernels ([`InodeLru::Own`], the `inodes` module); [`InodeLru::Joint`] frees the two together.
//! ([`Slabs::Packed`] puts objects of `O` bytes several to a page instead: the paper's Figure 3 picture.) The
//! objects (their dentries) sit on an LRU with a referenced bit: a new object enters at the MRU end, a hit
//! sets the bit and leaves the object where it is, and a scan from the LRU end gives a referenced object a
//! second chance (clears the bit, moves it to the MRU end) and frees an unreferenced one. That is the
//! dcache's `DCACHE_REFERENCED` with `list_lru`'s `LRU_ROTATE`
//! (`../shared/reference/refault-and-shrinkers.md` §4.3).
//!
//! Figure 3 of the paper is this discipline: nine objects four to a page need four objects examined to free
//! the first page right after creation; after two accesses (the last object of the first page and the
//! object alone on the third) the reclaimer examines eight (three freed, one rotated, four freed) before a
//! page, the second, comes free (`tests` has it).
//!
//! **Conventional reclaim** ([`MetadataReclaim::Conventional`]) is Linux's shrinker (`do_shrink_slab`,
//! `super_cache_count`): `freeable = objects × vfs_cache_pressure / 100`, and a reclaim pass that examined
//! `scanned` of `lru_pages` page-cache pages scans
//! `delta = (4 × scanned / seeks) × freeable / (lru_pages + 1)` objects (the 2.6–3.x form; when the page reclaim scans `lru_pages >> priority` it is the reference
//! note's `(freeable >> priority) × 4 / seeks`; a scan of no page counts as `SWAP_CLUSTER_MAX`, 32, as
//! `shrink_slab()` counts it, so a reclaim over a small page cache presses the slabs hard: with none, the
//! pass is capped at twice the cache), plus the work deferred by earlier passes (at most `freeable / 2`
//! unless `delta` is a quarter of the cache, and never more than `2 × freeable`), in batches of
//! `SHRINK_BATCH` = 128; what is left is deferred. Under [`InodeLru::Own`] each batch is 3.x's
//! `prune_super()`: shared between the dentry LRU and the inode LRU in proportion to their lengths, dentries
//! first, the inodes' part counting every inode examined, and `freeable` counts both LRUs. A dentry batch's
//! count counts only the objects it frees ([`PruneCount::Freed`], 2.6.19–3.11's `__shrink_dcache_sb()`, the
//! paper's kernels): a referenced object is rotated without counting, so a batch walks on past any run of
//! them, through the whole LRU at most once. After random accesses, every cached object referenced, one batch
//! walks the whole LRU: Figure 2's growth. (2.6.18 and 3.12+ count every object walked,
//! [`PruneCount::Examined`].) When the page cache could not give the reclaim its target, reclaim raises its
//! priority (`do_try_to_free_pages`, from 12 towards 0) and the shrinker runs again after each priority's
//! page scan of `lru_pages >> priority` (32 if that is none), about `(freeable >> priority) × 4 / seeks`
//! objects, until the target is met or priority 0 has run. kswapd and direct reclaim both run it.
//!
//! **Reclaims that may not enter the file system** ([`Gfp::NoFs`]): ext4 allocates its inodes and reads
//! its metadata blocks with `GFP_NOFS`, and 3.x's superblock shrinker refuses such reclaims (`prune_super()`
//! returns -1: "deadlock avoidance"); `shrink_slab()` then puts the whole count back into the shrinker's
//! deferred work for the next reclaim that may, kswapd's or a task's (`d_alloc()` is `GFP_KERNEL`). 3.1
//! capped that windup: unless a pass's own delta is a quarter of the cache, it scans at most half of it.
//!
//! **Split reclaim** ([`MetadataReclaim::Split`], §III): direct reclaim leaves metadata alone; kswapd still
//! runs the shrinker (it balances metadata against the page cache). Thresholds on the object count:
//! `Md = C × P / O` (`C` the memory's bytes, `P` the metadata cache ratio) and `Mb = 0.8 × Md`. Above `Mb`
//! the background daemon iswapd frees a fixed number of objects per step; above `Md` the allocating task
//! frees a fixed number before it allocates (metadata reclaim). Neither needs to free a page: the freed
//! slots are reused by the next allocations, and the object bound bounds the pages.
//!
//! What the paper does not state, and what pagelab does instead (inferences):
//! - The fixed number freed per iswapd step and per metadata reclaim: `SHRINK_BATCH` (128), the unit every
//!   slab shrinker of the time freed in, which a reclaimer added to the VFS would take.
//! - What iswapd and metadata reclaim free: a dentry and its inode together. The paper counts dentries and
//!   sizes an object as a dentry and an inode (§III-B), and says that bounding the objects bounds the pages
//!   (§III-A); an inode left on the inode LRU would be memory outside the bound. (kswapd's shrinker, which
//!   split reclaim keeps, still releases inodes to the inode LRU.)
//! - iswapd, like kswapd, runs step after step while the count is above `Mb` and sleeps at or below it.
//! - Its objects are freed in the same LRU order with the same second chance as the shrinker's.
//!
//! Departures from Linux, and why:
//! - A file has one dentry (no hard links), and an object's dentry and inode are made together: a `stat`
//!   that misses both allocates both. Their slabs are Linux's, two caches, so that what frees a page is what
//!   frees it in Linux: all 21 dentries of a page, or all 14 inodes of a four-page slab.
//! - The dentry LRU and the inode LRU share one lock clock ([`LruLock`]); 3.x had `dcache_lru_lock` and a
//!   per-superblock `s_inode_lru_lock`, taken one after the other by `prune_super()`, so a reclaimer in one
//!   walk could run beside another in the other. The runs here measure almost no lock waiting.
//! - Every object on the LRU is unused (reference count zero): the modelled calls (`stat`, lookups) hold
//!   their object only for the call.
//! - Walking the LRU is serialized on its one lock (`dcache_lru_lock`, global in 2.6.38–3.11; the global
//!   `dcache_lock` before): concurrent reclaimers wait for each other's walk, spinning (the wait is CPU
//!   time). The victims are freed outside the lock, in parallel (3.x's `prune_dcache_sb` isolates them onto
//!   a private list; `shrink_dentry_list` frees them). The buffer cache keeps the lock's clock
//!   ([`LruLock`]).
//! - A `stat()` that caches a new dentry takes the lock too, as 3.x's `dput()` does (`dentry_lru_add()`
//!   under `dcache_lru_lock`): it spins until the dentry walk under way ends, one `prune_dcache_sb()` call,
//!   not the whole reclaim ([`LruLock::add_dentry`]). Its own `list_add()` is not held against others, and
//!   the per-dentry lock a freeing reclaimer takes in `dentry_kill()` is not modelled: tens of nanoseconds
//!   each. iswapd and metadata reclaim walk the dentry LRU under the same lock (inference: the paper's
//!   reclaimer is added to the VFS, whose LRU that lock guards).
//! - A new slab whose pages cannot be had at the cache's order is taken at the smallest (SLUB's order
//!   fallback, [`slab::SlabOrder`]; the buffer cache makes the two attempts). The first attempt's
//!   `__GFP_NORETRY` is 3.x's: one direct reclaim, then it fails (later kernels clear `__GFP_RECLAIM` for
//!   it when the cache has a smaller order: no direct reclaim, no kswapd woken). Without page frames'
//!   addresses there is no fragmentation: an order-2 slab fails only for want of four free pages above
//!   `min`, never for want of four contiguous ones, and kswapd is not woken for the order (it balances
//!   order 0).

mod inodes;
pub mod slab;
#[cfg(test)]
mod tests;

use crate::error::CoreError;
use crate::hash::KeyMap;
use crate::list::{Links, List};
use crate::memory::{ReclaimCost, SWAP_CLUSTER_MAX};
use crate::time::Nanos;
use crate::PAGE_SIZE_BYTES;
use inodes::InodeCache;
use slab::{SlabGeometry, SlabOrder, SlabPages};

/// `SHRINK_BATCH`: objects a shrinker scans per call, and the fixed number split reclaim frees per step.
pub const SHRINK_BATCH: u64 = 128;

/// `DEFAULT_SEEKS`: how costly the shrinker's objects are to recreate, relative to a page.
pub const DEFAULT_SEEKS: u32 = 2;

/// Split reclaim's `Mb = 0.8 × Md` (the paper's coefficient), as a fraction in thousandths.
pub const MB_PER_MILLE_OF_MD: u64 = 800;

/// A metadata object's size on Linux 6.18 (`/proc/slabinfo` on the machines pagelab is built on): a
/// `dentry` of 192 bytes and an `ext4_inode_cache` object of 1,128 bytes. The paper's kernel (3.x) had
/// similar sizes; its own `O` is not given.
pub const EXT4_OBJECT_BYTES: u32 = 192 + 1128;

/// How metadata is reclaimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataReclaim {
    /// Linux: shrunk by kswapd and by direct reclaim.
    Conventional,
    /// papers/004: not by direct reclaim; iswapd above `Mb`, metadata reclaim above `Md`, with
    /// `Md = C × ratio_p_percent / 100 / O`.
    Split { ratio_p_percent: u32 },
}

/// Everything that configures the metadata cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetadataConfig {
    /// `O`: bytes of one object (dentry + inode).
    pub object_bytes: u32,
    pub reclaim: MetadataReclaim,
    /// `vm.vfs_cache_pressure` (100: reclaim metadata at a "fair" rate relative to the page cache).
    pub vfs_cache_pressure: u32,
    /// The shrinker's `seeks` ([`DEFAULT_SEEKS`]).
    pub seeks: u32,
    /// Whether a new object's first release already marks it referenced.
    pub first_put: FirstPut,
    /// What a shrinker batch's count counts as it walks the LRU.
    pub prune_count: PruneCount,
    /// Where an object's memory lives.
    pub slabs: Slabs,
    /// Whether an inode is freed with its dentry or goes to an LRU of its own.
    pub inode_lru: InodeLru,
}

/// What becomes of a file's inode when the shrinker frees its dentry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InodeLru {
    /// Linux 3.0 to 3.11, the paper's kernels: the inode, released by its dentry, goes to the
    /// superblock's inode LRU marked referenced, and the shrinker's batch is shared between the two LRUs in
    /// proportion to their lengths (`prune_super()`); an inode still cached spares a later lookup the
    /// inode table's read (the `inodes` module has the kernel's rules). Needs [`Slabs::Ext4`]. The default.
    Own,
    /// The inode is freed with its dentry: one object on one LRU, as the paper's thresholds count them
    /// (`O` = dentry + inode, §III-B).
    Joint,
}

/// The slab caches of a metadata object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slabs {
    /// Linux's: the dentry in the `dentry` cache (21 to a one-page slab) and the inode in
    /// `ext4_inode_cache` (14 to a four-page slab), both freed when the object is ([`SlabGeometry::DENTRY`],
    /// [`SlabGeometry::EXT4_INODE`]). A slab comes free only when all of its 21 or 14 objects have.
    Ext4,
    /// One cache of `object_bytes` objects, as many as fit in a one-page slab: the paper's picture (Figure 3:
    /// four to a page).
    Packed,
}

/// What the first release of a new object (the `dput()` that ends the call that created it) does to its
/// referenced bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstPut {
    /// Linux 2.6 to 3.x's dentries (`fs/dcache.c` `dput()`: `dentry->d_flags |= DCACHE_REFERENCED;
    /// dentry_lru_add(dentry);` at every final put, the first included): a new object starts referenced
    /// and survives one scan.
    Referenced,
    /// A new object starts unreferenced; a later release (a hit) sets the bit: today's `dput()`
    /// (`retain_dentry()` adds a dentry to the LRU at its first put and marks it referenced only at a
    /// later one). The default: the paper's own figures behave so (Figure 3 frees four objects for the
    /// first page right after creation; Figure 2's deallocation time after creation does not grow with
    /// the files), though its 3.x kernel's dentry code set the bit at the first put.
    Unreferenced,
}

/// What the count of a shrinker batch (`nr_to_scan`, 128) counts as the walk goes through the LRU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PruneCount {
    /// 2.6.19 to 3.11 (`__shrink_dcache_sb()` from `prune_dcache_sb()`, the paper's kernels): only a dentry
    /// taken for freeing counts (`if (!--count) break;` is in the unreferenced branch). A referenced one has
    /// its bit cleared and is set aside on a private list, spliced back at the MRU end after the walk,
    /// without counting: a batch walks on past any run of referenced objects until it has its 128 victims or
    /// has gone through the whole LRU once. The default.
    Freed,
    /// 2.6.18's `prune_dcache()` (`for (; count; count--)`, rotations included) and 3.12's `list_lru_walk()`
    /// (`nr_to_walk` counts every item): every object examined counts, so a batch over referenced objects
    /// frees fewer than 128.
    Examined,
}

impl FirstPut {
    /// The name `--metadata …:first_put=` takes.
    pub fn name(self) -> &'static str {
        match self {
            FirstPut::Referenced => "referenced",
            FirstPut::Unreferenced => "unreferenced",
        }
    }

    /// The rule [`FirstPut::name`] names, if any.
    pub fn parse(text: &str) -> Option<FirstPut> {
        [FirstPut::Referenced, FirstPut::Unreferenced].into_iter().find(|r| r.name() == text)
    }
}

impl InodeLru {
    /// The name `--metadata …:inode_lru=` takes.
    pub fn name(self) -> &'static str {
        match self {
            InodeLru::Own => "own",
            InodeLru::Joint => "joint",
        }
    }

    /// The rule [`InodeLru::name`] names, if any.
    pub fn parse(text: &str) -> Option<InodeLru> {
        [InodeLru::Own, InodeLru::Joint].into_iter().find(|r| r.name() == text)
    }
}

impl PruneCount {
    /// The name `--metadata …:prune_count=` takes.
    pub fn name(self) -> &'static str {
        match self {
            PruneCount::Freed => "freed",
            PruneCount::Examined => "examined",
        }
    }

    /// The count [`PruneCount::name`] names, if any.
    pub fn parse(text: &str) -> Option<PruneCount> {
        [PruneCount::Freed, PruneCount::Examined].into_iter().find(|c| c.name() == text)
    }
}

impl MetadataConfig {
    /// Linux's defaults with `reclaim`: ext4's object size, pressure 100, seeks 2.
    pub fn linux(reclaim: MetadataReclaim) -> MetadataConfig {
        MetadataConfig {
            object_bytes: EXT4_OBJECT_BYTES,
            reclaim,
            vfs_cache_pressure: 100,
            seeks: DEFAULT_SEEKS,
            first_put: FirstPut::Unreferenced,
            prune_count: PruneCount::Freed,
            slabs: Slabs::Ext4,
            inode_lru: InodeLru::Own,
        }
    }

    /// The slab caches an object occupies a slot in.
    pub fn geometries(&self) -> Vec<SlabGeometry> {
        match self.slabs {
            Slabs::Ext4 => vec![SlabGeometry::DENTRY, SlabGeometry::EXT4_INODE],
            Slabs::Packed => vec![SlabGeometry::packed(self.object_bytes)],
        }
    }

    pub fn validate(&self) -> Result<(), CoreError> {
        let bad = |why: String| Err(CoreError::InvalidParameter { what: "metadata cache", why });
        if self.object_bytes == 0 || self.object_bytes as u64 > PAGE_SIZE_BYTES {
            return bad(format!("object size must be 1..=4096 bytes, got {}", self.object_bytes));
        }
        if self.seeks == 0 {
            return bad("seeks must be at least 1".into());
        }
        if self.vfs_cache_pressure == 0 {
            return bad(
                "vfs_cache_pressure 0 never reclaims metadata (the kernel documents the out-of-memory risk); \
                 give at least 1"
                    .into(),
            );
        }
        if self.inode_lru == InodeLru::Own && self.slabs != Slabs::Ext4 {
            return bad(
                "an inode LRU of its own (inode_lru=own) needs the inode in a slab cache of its own \
                 (slabs=ext4); packed slabs hold a file's metadata as one object (give inode_lru=joint)"
                    .into(),
            );
        }
        if let MetadataReclaim::Split { ratio_p_percent } = self.reclaim {
            if ratio_p_percent == 0 || ratio_p_percent > 100 {
                return bad(format!("the metadata cache ratio P must be 1..=100 %, got {ratio_p_percent} %"));
            }
        }
        Ok(())
    }
}

/// The allocation context of a reclaim: whether it may enter the file system (`__GFP_FS`). The metadata
/// shrinker runs only for reclaims that may; the others defer their share of its work to the next that may
/// (3.x's `prune_super()`: "deadlock avoidance. We may hold various FS locks").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Gfp {
    /// `GFP_KERNEL`, `GFP_HIGHUSER`: user data, kswapd, a dentry (`d_alloc()`).
    #[default]
    Kernel,
    /// `GFP_NOFS`: what a file system allocates while it holds its locks: ext4's inodes
    /// (`ext4_alloc_inode()`), and the buffer cache pages its metadata blocks are read into (the block
    /// device's mapping masks `__GFP_FS` off).
    NoFs,
}

/// Split reclaim's thresholds, in objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// `Md = C × P / O`: above it, metadata reclaim at allocation.
    pub md: u64,
    /// `Mb = 0.8 × Md`: above it, iswapd.
    pub mb: u64,
}

impl Thresholds {
    /// Equations (1) and (2) for `capacity_bytes` of memory.
    pub fn new(capacity_bytes: u64, ratio_p_percent: u32, object_bytes: u32) -> Thresholds {
        let md = capacity_bytes * ratio_p_percent as u64 / 100 / object_bytes as u64;
        Thresholds { md, mb: md * MB_PER_MILLE_OF_MD / 1000 }
    }
}

/// Counters since the cache was built (or [`MetadataCache::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetadataStats {
    pub lookups: u64,
    pub hits: u64,
    pub inserts: u64,
    /// Inserts that found the file's inode still cached without its dentry ([`InodeLru::Own`]): no inode
    /// allocated, and the driver skipped the inode table's read.
    pub inode_hits: u64,
    /// Slab pages taken from the memory budget.
    pub pages_allocated: u64,
    /// New slabs of the smallest order, taken when one of the cache's order could not be had (SLUB's
    /// `ORDER_FALLBACK`, counted here only where the smallest order is smaller than the cache's).
    pub order_fallbacks: u64,
    /// Shrinker passes (kswapd's and direct reclaim's) that scanned, and passes by reclaims that may not
    /// enter the file system, whose work was deferred ([`Gfp::NoFs`]).
    pub shrinker_passes: u64,
    pub deferred_passes: u64,
    /// Passes at a priority below `DEF_PRIORITY` (a reclaim whose page-cache part and first shrinker pass
    /// freed less than its target escalates: about `(freeable >> priority) × 4 / seeks` objects a pass).
    pub priority_passes: u64,
    /// The largest deferred count (`nr_deferred`) seen, in objects.
    pub deferred_max: u64,
    /// Objects scanned and freed by the shrinker, and slab pages it freed.
    pub shrinker: ReclaimCost,
    /// iswapd's steps and their work.
    pub iswapd_steps: u64,
    pub iswapd: ReclaimCost,
    /// Metadata reclaims at allocation (split, above `Md`) and their work.
    pub metadata_reclaims: u64,
    pub metadata_reclaim: ReclaimCost,
    /// The largest object count seen.
    pub objects_max: u64,
    /// The longest inode LRU seen ([`InodeLru::Own`]).
    pub inodes_unused_max: u64,
    /// Time reclaimers (any path) spun waiting for the LRU's lock.
    pub lock_wait_ns: u64,
    /// Inserts whose `dput()` spun on the dentry LRU's lock behind a shrinker's walk
    /// ([`LruLock::add_dentry`]), their total and their longest spin.
    pub dput_waits: u64,
    pub dput_wait_ns: u64,
    pub dput_wait_ns_max: u64,
}

#[derive(Clone, Copy, Debug)]
struct Object {
    ino: u64,
    /// The object's slab in each slab cache.
    slabs: [u32; SLAB_CACHES_MAX],
    referenced: bool,
}

/// At most this many slab caches per object (a dentry and an inode).
const SLAB_CACHES_MAX: usize = 2;

/// The new slabs an insert's caller obtained from the memory budget, by slab cache (dentries', then
/// inodes'): `Some(order)` for a cache the insert takes a slot in that has no free slot (the pages of a slab
/// of that order taken), `None` for the others.
pub type NewSlabs = [Option<SlabOrder>; SLAB_CACHES_MAX];

/// The inode's slab cache among [`Slabs::Ext4`]'s.
const INODE_CACHE: usize = 1;

/// The metadata objects, their LRU and their slab pages.
#[derive(Clone, Debug)]
pub struct MetadataCache {
    config: MetadataConfig,
    thresholds: Option<Thresholds>,
    objects: Vec<Object>,
    links: Links,
    /// Front: most recently inserted or rotated; back: next to scan.
    lru: List,
    free_ids: Vec<u32>,
    index: KeyMap<u64, u32>,
    /// One per slab cache of [`MetadataConfig::slabs`].
    slab: Vec<SlabPages>,
    /// The inodes and their LRU ([`InodeLru::Own`]); `None`: each inode lives and dies with its dentry.
    inodes: Option<InodeCache>,
    /// The shrinker's `nr_deferred`: work earlier passes left undone.
    deferred: u64,
    iswapd_awake: bool,
    /// Lookups whose [`MetadataCache::iget`] returned `true` and whose reference has not ended yet (taken
    /// over by their insert, or given back): what a driver's calls in progress hold, so that a driver can
    /// check that it leaks none ([`MetadataCache::lookups_holding`]).
    lookups_holding: u64,
    stats: MetadataStats,
    /// The LRU walks of the work done since the lock last took them ([`MetadataCache::take_walks`]):
    /// `(objects examined, on the dentry LRU)`, one per `prune_dcache_sb()` / `prune_icache_sb()` call, in
    /// order. Each call holds the lock for its walk and drops it after.
    walks: Vec<(u64, bool)>,
}

impl MetadataCache {
    /// A metadata cache on a machine of `capacity_bytes` of memory (`C`, for split reclaim's thresholds).
    pub fn new(config: MetadataConfig, capacity_bytes: u64) -> Result<MetadataCache, CoreError> {
        config.validate()?;
        let thresholds = match config.reclaim {
            MetadataReclaim::Conventional => None,
            MetadataReclaim::Split { ratio_p_percent } => {
                Some(Thresholds::new(capacity_bytes, ratio_p_percent, config.object_bytes))
            }
        };
        Ok(MetadataCache {
            config,
            thresholds,
            objects: Vec::new(),
            links: Links::new(0),
            lru: List::new(),
            free_ids: Vec::new(),
            index: KeyMap::default(),
            slab: config.geometries().into_iter().map(SlabPages::new).collect(),
            inodes: (config.inode_lru == InodeLru::Own).then(InodeCache::new),
            deferred: 0,
            iswapd_awake: false,
            lookups_holding: 0,
            walks: Vec::new(),
            stats: MetadataStats::default(),
        })
    }

    pub fn config(&self) -> &MetadataConfig {
        &self.config
    }
    pub fn thresholds(&self) -> Option<Thresholds> {
        self.thresholds
    }
    pub fn stats(&self) -> MetadataStats {
        self.stats
    }
    pub fn reset_stats(&mut self) {
        self.stats = MetadataStats {
            objects_max: self.objects(),
            inodes_unused_max: self.inodes_unused(),
            ..MetadataStats::default()
        };
    }
    /// Objects cached: files with a dentry (the paper's count, §III-B).
    pub fn objects(&self) -> u64 {
        self.lru.len() as u64
    }
    /// Inodes cached, with a dentry or on the inode LRU.
    pub fn inodes(&self) -> u64 {
        self.inodes.as_ref().map_or(self.objects(), InodeCache::cached)
    }
    /// Inodes on the inode LRU (`s_nr_inodes_unused`; 0 under [`InodeLru::Joint`]).
    pub fn inodes_unused(&self) -> u64 {
        self.inodes.as_ref().map_or(0, InodeCache::unused)
    }
    /// Slab pages held, over the slab caches.
    pub fn pages(&self) -> u32 {
        self.slab.iter().map(SlabPages::pages).sum()
    }
    pub fn is_split(&self) -> bool {
        self.thresholds.is_some()
    }
    /// Whether direct reclaim shrinks this cache (conventional reclaim only).
    pub fn in_direct_reclaim(&self) -> bool {
        !self.is_split()
    }
    /// The shrinker's `count_objects`: objects it may free (the dentries and the unused inodes, 3.x's
    /// `prune_super()`), scaled by `vfs_cache_pressure`.
    pub fn freeable(&self) -> u64 {
        (self.objects() + self.inodes_unused()) * self.config.vfs_cache_pressure as u64 / 100
    }

    /// A `stat` or lookup of `ino`: `true` on a hit (its referenced bit is set; it keeps its place).
    pub fn lookup(&mut self, ino: u64) -> bool {
        self.stats.lookups += 1;
        let Some(&id) = self.index.get(&ino) else { return false };
        self.objects[id as usize].referenced = true;
        self.stats.hits += 1;
        true
    }

    pub fn contains(&self, ino: u64) -> bool {
        self.index.contains_key(&ino)
    }

    /// Whether `ino`'s inode is cached (with its dentry, or without it: on the inode LRU, or held by a
    /// lookup).
    pub fn inode_cached(&self, ino: u64) -> bool {
        self.contains(ino) || self.inode_apart(ino)
    }

    /// Whether `ino`'s inode is cached ([`MetadataCache::inode_cached`]): a lookup that missed the dentry
    /// then finds the inode in the inode hash, and reads no inode table. Under
    /// [`InodeLru::Own`] the lookup takes a reference on the inode it finds (`iget_locked()`), which its
    /// [`MetadataCache::insert`] with `held` takes over, or [`MetadataCache::put_inode`] gives back; no
    /// reclaim frees the inode meanwhile.
    pub fn iget(&mut self, ino: u64) -> bool {
        let found = match self.inodes.as_mut() {
            Some(inodes) => inodes.hold(ino),
            None => self.index.contains_key(&ino),
        };
        self.lookups_holding += found as u64;
        found
    }

    /// Lookups holding an inode: [`MetadataCache::iget`]s that returned `true` whose reference has not
    /// gone yet (by [`MetadataCache::insert`] with `held`, or [`MetadataCache::put_inode`]). A driver
    /// between calls holds none; one with calls in progress, one per call that is between its `iget` and
    /// its insert. More would be a leaked reference: an inode no reclaim can ever free.
    pub fn lookups_holding(&self) -> u64 {
        self.lookups_holding
    }

    /// A lookup's reference ends. Caller guarantees one is held.
    fn end_lookup(&mut self) {
        assert!(self.lookups_holding > 0, "a lookup's reference ended that no iget took");
        self.lookups_holding -= 1;
    }

    /// The reference an [`MetadataCache::iget`] that returned `true` took on `ino`'s inode goes, no dentry
    /// made with it (another task's insert of `ino` came first). Nothing under [`InodeLru::Joint`].
    pub fn put_inode(&mut self, ino: u64) {
        self.end_lookup();
        if let Some(inodes) = self.inodes.as_mut() {
            inodes.unhold(ino);
            self.stats.inodes_unused_max = self.stats.inodes_unused_max.max(inodes.unused());
        }
    }

    /// Whether `ino`'s inode is cached in the inode cache of its own ([`InodeLru::Own`]): inserting `ino`
    /// then takes no inode slot.
    fn inode_apart(&self, ino: u64) -> bool {
        self.inodes.as_ref().is_some_and(|i| i.contains(ino))
    }

    /// The caches inserting `ino` takes a slot in: every one, but the inode's if the inode is cached.
    fn takes_slot(&self, ino: u64) -> impl Fn(usize) -> bool {
        let inode_apart = self.inode_apart(ino);
        move |c| !(c == INODE_CACHE && inode_apart)
    }

    /// The next slab cache inserting `ino` needs a new slab from, and its geometry: the first (dentries'
    /// before inodes', the order `d_alloc()` and `ext4_alloc_inode()` allocate in) that it takes a slot in,
    /// that has no free slot, and for which `got` holds no slab yet.
    pub fn slab_wanted(&mut self, ino: u64, got: &NewSlabs) -> Option<(usize, SlabGeometry)> {
        let takes_slot = self.takes_slot(ino);
        for (c, cache) in self.slab.iter_mut().enumerate() {
            if takes_slot(c) && got[c].is_none() && cache.pages_needed() > 0 {
                return Some((c, cache.geometry()));
            }
        }
        None
    }

    /// The slabs in `got` that inserting `ino` no longer needs (a reclaim on the way freed a slot in their
    /// cache) are dropped from it; returns their pages, for the caller to give back to the memory budget.
    pub fn drop_unneeded_slabs(&mut self, ino: u64, got: &mut NewSlabs) -> u32 {
        let takes_slot = self.takes_slot(ino);
        let mut pages = 0;
        for (c, (cache, slab)) in self.slab.iter_mut().zip(got.iter_mut()).enumerate() {
            let Some(order) = *slab else { continue };
            if !takes_slot(c) || cache.pages_needed() == 0 {
                pages += cache.geometry().slab(order).1 as u32;
                *slab = None;
            }
        }
        pages
    }

    /// A slab of the full order in every cache inserting `ino` needs one from (as a memory budget that always
    /// has the pages would give).
    pub fn full_slabs(&mut self, ino: u64) -> NewSlabs {
        let mut got = NewSlabs::default();
        for _ in 0..SLAB_CACHES_MAX {
            let Some((c, _)) = self.slab_wanted(ino, &got) else { break };
            got[c] = Some(SlabOrder::Full);
        }
        got
    }

    /// Pages the slabs of `slabs` hold.
    pub fn slab_pages(&self, slabs: &NewSlabs) -> u32 {
        (self.slab.iter().zip(slabs))
            .filter_map(|(cache, order)| order.map(|o| cache.geometry().slab(o).1 as u32))
            .sum()
    }

    /// Split reclaim above `Md`: the allocating task must free objects first ([`MetadataCache::free_batch`]).
    pub fn over_md(&self) -> bool {
        self.thresholds.is_some_and(|t| self.objects() > t.md)
    }

    /// Cache `ino`'s object at the MRU end: a new dentry, and a new inode unless its inode is cached (which
    /// the dentry then holds: with the reference of the caller's [`MetadataCache::iget`] if `held`). Caller
    /// guarantees it is not cached, that `held` is what its `iget` returned, and that `new` holds a slab,
    /// whose pages it took from the memory budget, for exactly the caches [`MetadataCache::slab_wanted`]
    /// names (none then remains: [`MetadataCache::drop_unneeded_slabs`] has run since the last reclaim).
    pub fn insert(&mut self, ino: u64, new: NewSlabs, held: bool) {
        debug_assert!(!self.index.contains_key(&ino), "object {ino} inserted twice");
        if held {
            self.end_lookup();
        }
        let mut slabs = [0; SLAB_CACHES_MAX];
        let takes_slot = self.takes_slot(ino);
        for (c, ((cache, slab), order)) in self.slab.iter_mut().zip(&mut slabs).zip(new).enumerate() {
            if !takes_slot(c) {
                assert!(order.is_none(), "object {ino}: a new slab for cache {c}, where it takes no slot");
                continue;
            }
            *slab = match order {
                None => {
                    cache.alloc().unwrap_or_else(|| panic!("object {ino}: cache {c} is full, no new slab"))
                }
                Some(order) => {
                    assert!(
                        cache.pages_needed() > 0,
                        "object {ino}: a new slab for cache {c}, which has room"
                    );
                    self.stats.pages_allocated += cache.geometry().slab(order).1 as u64;
                    self.stats.order_fallbacks += (order == SlabOrder::Min) as u64;
                    cache.add_slab(order)
                }
            };
        }
        if let Some(inodes) = self.inodes.as_mut() {
            if inodes.pin(ino, held) {
                self.stats.inode_hits += 1;
            } else {
                inodes.insert_pinned(ino, slabs[INODE_CACHE]);
            }
        }
        let object = Object { ino, slabs, referenced: self.config.first_put == FirstPut::Referenced };
        let id = take_slot(&mut self.objects, &mut self.free_ids, &mut self.links, object);
        self.links.push_front(&mut self.lru, id);
        self.index.insert(ino, id);
        self.stats.inserts += 1;
        self.stats.objects_max = self.stats.objects_max.max(self.objects());
        if self.thresholds.is_some_and(|t| self.objects() > t.mb) {
            self.iswapd_awake = true;
        }
    }

    /// Scan up to `nr_to_scan` objects from the LRU end, stopping early once `free_max` are freed: a
    /// referenced object gets its second chance, an unreferenced one is freed; `freed` in the cost counts
    /// the slab pages that came free (the caller gives them back to the memory budget). A freed dentry's
    /// inode ([`InodeLru::Own`]) is freed with it if `with_inodes` (split reclaim), and otherwise released
    /// to the inode LRU (the shrinker: `iput_final()`). Bounded by `nr_to_scan`.
    fn scan(&mut self, nr_to_scan: u64, free_max: u64, with_inodes: bool) -> ReclaimCost {
        let mut cost = ReclaimCost::default();
        while cost.objects_scanned < nr_to_scan && cost.objects_freed < free_max {
            let Some(id) = self.lru.back() else { break };
            cost.objects_scanned += 1;
            let object = &mut self.objects[id as usize];
            if object.referenced {
                object.referenced = false;
                self.links.move_to_front(&mut self.lru, id);
                continue;
            }
            let Object { ino, slabs, .. } = *object;
            self.links.remove(&mut self.lru, id);
            self.index.remove(&ino);
            self.free_ids.push(id);
            cost.objects_freed += 1;
            let Some(inodes) = self.inodes.as_mut() else {
                // The file's metadata as one object: its inode goes with it.
                cost.inodes_freed += 1;
                for (cache, &slab) in self.slab.iter_mut().zip(&slabs) {
                    cost.freed += cache.free(slab) as u64;
                }
                continue;
            };
            cost.freed += self.slab[0].free(slabs[0]) as u64;
            if with_inodes {
                if let Some(pages) = inodes.free_with_dentry(ino, &mut self.slab[INODE_CACHE]) {
                    cost.inodes_freed += 1;
                    cost.freed += pages;
                }
            } else {
                inodes.release(ino);
                self.stats.inodes_unused_max = self.stats.inodes_unused_max.max(inodes.unused());
            }
        }
        cost
    }

    /// One shrinker batch of `n`. Under [`InodeLru::Joint`], `prune_dcache_sb(sb, n)`; under
    /// [`InodeLru::Own`], 3.x's `prune_super()`: the batch shared in proportion to the two LRUs' lengths
    /// (`n × unused / (dentries + inodes + 1)` each, rounded down), the dentries first ("the icache is
    /// pinned by it"), then `prune_icache_sb()` on the inode LRU, which counts every inode it examines. A
    /// share of 0 is passed on as the kernel passes it: 3.x's `prune_super()` calls `prune_dcache_sb(sb,
    /// dentries)` with no test of `dentries` (read in fs/super.c), and what a count of 0 does is
    /// [`MetadataCache::prune_dentries`]'s.
    fn prune(&mut self, n: u64) -> ReclaimCost {
        let Some(inodes) = self.inodes.as_ref() else { return self.prune_dentries(n) };
        let total = self.objects() + inodes.unused() + 1;
        // Each share is at most `n` (< 2^7): the products fit.
        let dentries = n * self.objects() / total;
        let unused = n * inodes.unused() / total;
        let mut cost = self.prune_dentries(dentries);
        let inodes = self.inodes.as_mut().expect("checked above");
        let inode_part = inodes.prune(unused, &mut self.slab[INODE_CACHE]);
        self.note_walk(inode_part.objects_scanned, false);
        cost += inode_part;
        cost
    }

    /// A walk of `objects` objects under the lock, on the dentry LRU or the inode LRU.
    fn note_walk(&mut self, objects: u64, dentries: bool) {
        if objects > 0 {
            self.walks.push((objects, dentries));
        }
    }

    /// The LRU walks of the work since the last call, in order (see the `walks` field); the buffer cache
    /// times them on its [`LruLock`]. Their objects add up to that work's `objects_scanned`.
    pub fn take_walks(&mut self, into: &mut Vec<(u64, bool)>) {
        into.clear();
        into.append(&mut self.walks);
    }

    /// A task's `dput()` spun `wait` on the dentry LRU's lock (a walk held it).
    pub fn note_dput_wait(&mut self, wait: Nanos) {
        if wait > Nanos::ZERO {
            self.stats.dput_waits += 1;
            self.stats.dput_wait_ns += wait.0;
            self.stats.dput_wait_ns_max = self.stats.dput_wait_ns_max.max(wait.0);
        }
    }

    /// `prune_dcache_sb(sb, n)`, its count counted as [`PruneCount`] says. Bounded: under
    /// [`PruneCount::Freed`] the walk goes through each object at most once (the rotated ones wait at the
    /// MRU end, as on the kernel's private list, and the walk stops before it would reach them again).
    ///
    /// A count of 0 (`prune_super()` gives the dentries a share of 0 when the inode LRU is over 127 times
    /// longer) walks nothing when every object counts, but the whole LRU when only frees do: 3.0–3.11 stop
    /// on `if (!--count) break;`, which a count of 0 never meets. The split-reclaim batch at 1/64 (16
    /// threads) never gives a share of 0 with dentries cached: measured, no such prune in 1,117,033
    /// objects scanned.
    fn prune_dentries(&mut self, n: u64) -> ReclaimCost {
        let cost = match self.config.prune_count {
            PruneCount::Examined => self.scan(n, u64::MAX, false),
            PruneCount::Freed => {
                // `if (!--count) break;`: a count of 0 is never met.
                let free_max = if n == 0 { u64::MAX } else { n };
                let cost = self.scan(self.objects(), free_max, false);
                debug_assert!(cost.objects_freed <= free_max);
                cost
            }
        };
        self.note_walk(cost.objects_scanned, true);
        cost
    }

    /// Free `SHRINK_BATCH` objects (fewer if the cache holds fewer), in LRU order with second chances:
    /// split reclaim's fixed unit, each a dentry and its inode (inference: the paper's object is the pair,
    /// `O` their sizes together, and its bound on objects bounds the pages only if freeing one frees
    /// both). Bounded: at most every object is rotated once before the batch is freed (a rotated object is
    /// unreferenced when it comes round again).
    pub fn free_batch(&mut self) -> ReclaimCost {
        let want = SHRINK_BATCH.min(self.objects());
        let bound = self.objects() + want;
        let cost = self.scan(bound, want, true);
        assert_eq!(cost.objects_freed, want, "a batch scan of {bound} objects freed too few");
        self.note_walk(cost.objects_scanned, true);
        cost
    }

    /// Split reclaim at allocation above `Md`: one batch, counted.
    pub fn metadata_reclaim(&mut self) -> ReclaimCost {
        let cost = self.free_batch();
        self.stats.metadata_reclaims += 1;
        self.stats.metadata_reclaim += cost;
        cost
    }

    /// Whether iswapd has work (split reclaim, woken by an insert above `Mb`).
    pub fn iswapd_awake(&self) -> bool {
        self.iswapd_awake
    }

    /// One step of iswapd: `Some(cost)` (a batch freed; the driver charges its CPU time to iswapd's thread
    /// and calls again) or `None` when the count is at or below `Mb` (iswapd sleeps until an insert above
    /// it). Bounded: every step frees a batch.
    pub fn iswapd_step(&mut self) -> Option<ReclaimCost> {
        let t = self.thresholds?;
        if !self.iswapd_awake || self.objects() <= t.mb {
            self.iswapd_awake = false;
            return None;
        }
        let cost = self.free_batch();
        self.stats.iswapd_steps += 1;
        self.stats.iswapd += cost;
        Some(cost)
    }

    /// One shrinker pass after a page reclaim that examined `pages_scanned` of `lru_pages` page-cache pages
    /// (`shrink_slab()`: `delta = 4 × pages_scanned / seeks × freeable / (lru_pages + 1)`, a scan of no
    /// page counted as `SWAP_CLUSTER_MAX`, 2.6–3.x's `if (nr_pages_scanned == 0) nr_pages_scanned =
    /// SWAP_CLUSTER_MAX;`: a reclaim that finds no page cache to scan still presses the slabs, the harder
    /// the less page cache there is).
    pub fn shrink_after_pages(&mut self, pages_scanned: u64, lru_pages: u64, gfp: Gfp) -> ReclaimCost {
        let pages_scanned = if pages_scanned == 0 { SWAP_CLUSTER_MAX as u64 } else { pages_scanned };
        let freeable = self.freeable() as u128;
        let delta =
            4 * pages_scanned as u128 / self.config.seeks as u128 * freeable / (lru_pages as u128 + 1);
        self.shrink(u64::try_from(delta).unwrap_or(u64::MAX), gfp)
    }

    /// One shrinker pass at reclaim `priority`, whose page-cache part scanned `lru_pages >> priority` of
    /// `lru_pages` pages (`do_try_to_free_pages()` calls `shrink_slab()` after each priority's scan):
    /// [`MetadataCache::shrink_after_pages`] with that scan, about `(freeable >> priority) × 4 / seeks`
    /// objects while the page cache is large, more when it is smaller than `32 << priority` pages (its scan
    /// of none counts as `SWAP_CLUSTER_MAX`).
    pub fn shrink_at_priority(&mut self, priority: u32, lru_pages: u64, gfp: Gfp) -> ReclaimCost {
        self.stats.priority_passes += 1;
        self.shrink_after_pages(lru_pages >> priority.min(63), lru_pages, gfp)
    }

    /// `do_shrink_slab`: scan the deferred work plus `delta`, at most twice the freeable objects, in
    /// batches of [`SHRINK_BATCH`] while at least a batch (or everything freeable) is due; defer the rest.
    fn shrink(&mut self, delta: u64, gfp: Gfp) -> ReclaimCost {
        let freeable = self.freeable();
        let mut cost = ReclaimCost::default();
        if freeable == 0 {
            return cost;
        }
        let mut total_scan = self.deferred.saturating_add(delta);
        // 3.1's cap on the windup of deferred work (`shrink_slab()`: "We need to avoid excessive windup on
        // filesystem shrinkers due to large numbers of GFP_NOFS allocations ... Hence only allow the
        // shrinker to scan the entire cache when a large delta change is calculated directly").
        if delta < freeable / 4 {
            total_scan = total_scan.min(freeable / 2);
        }
        total_scan = total_scan.min(2 * freeable);
        if gfp == Gfp::NoFs {
            // 3.x's `prune_super()` returns -1 without `__GFP_FS` ("deadlock avoidance"): `shrink_slab()`
            // stops at the first batch and puts the whole count back into `nr_in_batch` for the next
            // reclaim that may enter the file system.
            self.deferred = total_scan;
            self.stats.deferred_passes += 1;
            self.stats.deferred_max = self.stats.deferred_max.max(total_scan);
            return cost;
        }
        self.stats.shrinker_passes += 1;
        // Each round scans at least one object or stops: at most `2 × freeable` rounds.
        while total_scan > 0 && (total_scan >= SHRINK_BATCH || total_scan >= freeable) {
            let n = SHRINK_BATCH.min(total_scan);
            let done = self.prune(n);
            cost += done;
            total_scan -= n;
            if done.objects_scanned == 0 {
                break;
            }
        }
        self.deferred = total_scan.min(2 * self.freeable());
        self.stats.shrinker += cost;
        cost
    }

    /// The shrinker's deferred work (`nr_deferred`), in objects.
    pub fn deferred(&self) -> u64 {
        self.deferred
    }

    /// The inode LRU from the end a prune starts at: (inode, referenced, pinned by a dentry); empty under
    /// [`InodeLru::Joint`]. For tests and debugging.
    pub fn inode_lru_order(&self) -> Vec<(u64, bool, bool)> {
        self.inodes.as_ref().map_or_else(Vec::new, InodeCache::lru_order)
    }

    /// The LRU from the end a scan starts at: (inode, referenced) pairs, for tests and debugging.
    pub fn lru_order(&self) -> Vec<(u64, bool)> {
        self.links
            .iter_back(&self.lru)
            .map(|id| {
                let o = self.objects[id as usize];
                (o.ino, o.referenced)
            })
            .collect()
    }

    /// A reclaimer waited `wait` for the LRU's lock (kept by the buffer cache, [`LruLock`]).
    pub fn note_lock_wait(&mut self, wait: Nanos) {
        self.stats.lock_wait_ns += wait.0;
    }

    /// The slab of a cached object in its first slab cache.
    pub fn page_of(&self, ino: u64) -> Option<u32> {
        self.index.get(&ino).map(|&id| self.objects[id as usize].slabs[0])
    }

    /// Invariants: the index, the LRU and every slab cache agree; under [`InodeLru::Own`], every dentry's
    /// inode is cached and pinned, and no other inode is.
    pub fn check(&self) {
        assert_eq!(self.index.len() as u64, self.objects(), "index and LRU disagree");
        for (c, cache) in self.slab.iter().enumerate() {
            let per_slab = match &self.inodes {
                Some(inodes) if c == INODE_CACHE => {
                    let (per_slab, lookups) = inodes.check(|ino| self.index.contains_key(&ino));
                    assert_eq!(lookups, self.lookups_holding, "inodes' lookup references != lookups holding");
                    per_slab
                }
                _ => {
                    let mut per_slab: KeyMap<u32, u16> = KeyMap::default();
                    for id in self.links.iter(&self.lru) {
                        let o = self.objects[id as usize];
                        assert_eq!(self.index.get(&o.ino), Some(&id), "object {} indexed elsewhere", o.ino);
                        assert!(self.inode_cached(o.ino), "object {}'s inode is not cached", o.ino);
                        *per_slab.entry(o.slabs[c]).or_default() += 1;
                    }
                    per_slab
                }
            };
            cache.check();
            assert_eq!(per_slab.len() as u32, cache.slabs(), "slab cache {c}: slabs held without objects");
            for (&slab, &n) in &per_slab {
                assert_eq!(cache.used(slab), n, "slab cache {c}, slab {slab}'s count");
            }
        }
    }
}

/// A slot for `item` in `items`: a freed one (from `free_ids`) first, else a new one, with `links` grown to
/// cover it. The slot is in no list.
fn take_slot<T>(items: &mut Vec<T>, free_ids: &mut Vec<u32>, links: &mut Links, item: T) -> u32 {
    if let Some(id) = free_ids.pop() {
        items[id as usize] = item;
        return id;
    }
    items.push(item);
    let id = (items.len() - 1) as u32;
    if id >= links.capacity() {
        links.grow((id + 1).max(links.capacity() * 2));
    }
    id
}

/// The metadata LRUs' lock, as a clock: the time it is next free, and the dentry-LRU walks that hold it.
///
/// A reclaim's work holds it for its walks, one after another (each `prune_dcache_sb()` or
/// `prune_icache_sb()` call of a shrinker batch walks its LRU under the lock); a reclaimer that finds it
/// held waits (spinning: CPU time) until it is free ([`LruLock::hold_walks`]).
///
/// A task's `stat()` that cached a new dentry takes the lock too: its final `dput()` puts the unused
/// dentry on the LRU, `dentry_lru_add()` under `dcache_lru_lock` (2.6.38–3.11, global; read in 3.x's
/// fs/dcache.c). A walk holds the lock for a whole call of `prune_dcache_sb()` (its `cond_resched_lock()`
/// lets go only when the walker must reschedule, and never for a spinner on a kernel without
/// `CONFIG_PREEMPT`), so such a task spins until the dentry walk under way ends; between two calls the
/// walker drops the lock and the spinner takes it (ticket spinlocks serve in order). After random
/// accesses one call may walk the whole LRU (Figure 2), and every task that caches a dentry meanwhile
/// spins behind it ([`LruLock::add_dentry`]). The spinner's own `list_add()`, tens of nanoseconds, is not
/// held against the walker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LruLock {
    free_at: Nanos,
    /// The dentry-LRU walks under way or to come, `(start, end)`, in time order and disjoint.
    dentry_walks: std::collections::VecDeque<(Nanos, Nanos)>,
}

impl LruLock {
    /// Hold the lock from `now` (or when it comes free) for `walks` one after another, each
    /// `(its time, on the dentry LRU)`; returns the wait.
    pub fn hold_walks(&mut self, now: Nanos, walks: impl IntoIterator<Item = (Nanos, bool)>) -> Nanos {
        let start = self.free_at.max(now);
        let mut at = start;
        for (walk, dentries) in walks {
            let end = at + walk;
            if dentries && end > at {
                debug_assert!(self.dentry_walks.back().is_none_or(|&(_, last)| last <= at));
                self.dentry_walks.push_back((at, end));
            }
            at = end;
        }
        self.free_at = at;
        start - now
    }

    /// A task's `dput()` adds a new dentry to the LRU at `at`: the time it spins first, until the end of
    /// the dentry walk under way at `at`, if any. `now` is the driver's clock, which never goes back: the
    /// walks over by then are forgotten (what the lock keeps is bounded by the walks still to come).
    pub fn add_dentry(&mut self, now: Nanos, at: Nanos) -> Nanos {
        debug_assert!(at >= now);
        while self.dentry_walks.front().is_some_and(|&(_, end)| end <= now) {
            self.dentry_walks.pop_front();
        }
        // The walks are in time order and disjoint: the first that ends after `at` is the one under way, if
        // it has begun.
        let i = self.dentry_walks.partition_point(|&(_, end)| end <= at);
        match self.dentry_walks.get(i) {
            Some(&(start, end)) if start <= at => end - at,
            _ => Nanos::ZERO,
        }
    }
}
