//! The buffer cache's metadata section (papers/004): the file-metadata cache shares the memory budget with
//! the page cache, and every reclaim path decides whether it shrinks it.
//!
//! Driver protocol, beside the read cursor's (a `stat()` of file `ino`):
//! 1. `metadata_lookup(ino)`: `true` is a hit, the call is done.
//! 2. On a miss the driver reads the directory's block through the page cache; then, unless
//!    `metadata_iget(ino)` (the inode is cached: it outlived its dentry on 3.x's inode LRU, or another task's
//!    dentry for `ino` came meanwhile; the lookup now holds it), the page holding the on-disk inode (an
//!    ordinary read of the inode table); then it calls
//!    `metadata_insert(now, ino, held, out)`, `held` what `metadata_iget` returned:
//!    split reclaim above `Md` frees a batch first (`out.metadata_reclaim`), then a slab slot is used or a
//!    new slab's pages taken from the budget (at the cache's order, else at the smallest: SLUB's fallback),
//!    reclaiming directly below `min` (`out.direct_reclaim`, which under
//!    conventional reclaim shrinks the metadata cache too). The driver charges `reclaim_time(out.reclaim())` to the task. `false`: no
//!    memory could be had now (every page pinned or being written, or only metadata holds memory and this
//!    reclaim may not shrink it: split reclaim, or a `GFP_NOFS` context); call again after I/O, kswapd or
//!    a metadata reclaim's release (`next_release`).
//! 3. `iswapd_awake()` tells the driver to run iswapd: `iswapd_step(now)` frees one batch and returns its
//!    cost (the driver charges it to iswapd's thread, on a CPU, then steps again) until it returns `None`.
//!
//! Reclaim: [`BufferCache::shrink_metadata`] runs after the page-cache part of every kswapd step and, under
//! conventional reclaim, of every direct reclaim (a direct reclaim in `GFP_NOFS` context, a cursor made
//! with [`super::ReadCursor::no_fs`] or an inode's slab, defers its share to the next that may enter the
//! file system): one shrinker pass in proportion to the reclaim list's pages scanned
//! ([`ReclaimCost::list_scanned`]: the kernel's `sc->nr_scanned`, without the active pages aging moved),
//! then, while the reclaim is short of its target, passes at rising priority (12 down to 0). All metadata
//! LRU walk takes the LRU's lock ([`crate::metadata::LruLock`]); its wait is part of the cost.

use super::{BufferCache, Observer, ReadOutcome};
use crate::memory::{ReclaimCost, Reclaimer, DEF_PRIORITY};
use crate::metadata::slab::{SlabGeometry, SlabOrder};
use crate::metadata::{Gfp, MetadataCache, MetadataStats, NewSlabs};
use crate::policy::History;
use crate::time::Nanos;

/// Direct reclaims a `__GFP_NORETRY` allocation makes: 3.x's slow path wakes kswapd, tries the free lists at
/// `min`, reclaims directly once and tries again, and gives up without retrying.
pub(super) const NORETRY_RECLAIMS: u32 = 1;

/// The call tag of a kernel thread's releases: no task's call claims them.
const KERNEL_THREAD: u64 = u64::MAX;

impl<O: Observer> BufferCache<O> {
    /// The metadata cache, if the configuration has one.
    pub fn metadata(&self) -> Option<&MetadataCache> {
        self.metadata.as_ref()
    }
    pub fn metadata_stats(&self) -> Option<MetadataStats> {
        self.metadata.as_ref().map(|m| m.stats())
    }
    pub fn reset_metadata_stats(&mut self) {
        if let Some(m) = self.metadata.as_mut() {
            m.reset_stats();
        }
    }
    pub(super) fn metadata_pages(&self) -> u32 {
        self.metadata.as_ref().map_or(0, |m| m.pages())
    }

    /// Step 1 of a `stat()`: whether `ino`'s metadata is cached (a hit sets its referenced bit). Always a
    /// miss without a metadata cache.
    pub fn metadata_lookup(&mut self, ino: u64) -> bool {
        self.metadata.as_mut().is_some_and(|m| m.lookup(ino))
    }

    /// Between steps 1 and 2: whether the `stat()` that missed finds `ino`'s inode still cached once it has
    /// read the directory's block (3.x's inode LRU, [`crate::metadata::InodeLru::Own`]): then it reads no
    /// inode table, and the insert takes no inode. The lookup holds the inode it finds, as the kernel's
    /// `iget_locked()` takes a reference, so no reclaim frees it before the insert (the insert's own
    /// allocations included) and the read skipped is never owed. Caller guarantees that after `true` it
    /// calls [`BufferCache::metadata_insert`] with `held` until a call returns `true`.
    pub fn metadata_iget(&mut self, ino: u64) -> bool {
        self.metadata.as_mut().is_some_and(|m| m.iget(ino))
    }

    /// Lookups holding an inode ([`MetadataCache::lookups_holding`]): the driver's `stat()` calls between
    /// a [`BufferCache::metadata_iget`] that returned `true` and the [`BufferCache::metadata_insert`] that
    /// returned `true`, no more (a driver checks it leaks none). 0 without a metadata cache.
    pub fn metadata_lookups_holding(&self) -> u64 {
        self.metadata.as_ref().map_or(0, MetadataCache::lookups_holding)
    }

    /// Step 2 of a `stat()` that missed, once the inode's page has been read (or `held`: the call's
    /// [`BufferCache::metadata_iget`] found the inode): cache `ino`'s object. `false`: no memory could be had
    /// now (the task waits for I/O or kswapd, then calls again, the inode still held). A cached `ino`
    /// (another task inserted it meanwhile) is a hit, and gives back the hold. Caller guarantees it calls
    /// again only after `false`: once the call returned `true` the `stat()` is done, even if the driver
    /// resumes the task after charging `out.reclaim()` (a second call would be a second lookup, or a second
    /// insert if reclaim freed the object meanwhile).
    pub fn metadata_insert(&mut self, now: Nanos, ino: u64, held: bool, out: &mut ReadOutcome) -> bool {
        self.begin_allocating(Gfp::Kernel);
        let Some(m) = self.metadata.as_mut() else { return true };
        if m.contains(ino) {
            if held {
                m.put_inode(ino);
            }
            m.lookup(ino);
            return true;
        }
        if m.over_md() {
            let mut cost = m.metadata_reclaim();
            // After what the call has reclaimed already (a stat's page reads).
            let at = now + self.call_reclaim_time(out);
            self.take_lru_lock(at, &mut cost);
            self.release_after(at + self.memory.time(cost), cost.freed, self.call_tag);
            out.metadata_reclaim += cost;
            out.metadata_reclaims += 1;
        }
        let Some(slabs) = self.new_slabs_for(now, ino, out) else {
            self.memory.record_failed_allocation();
            return false;
        };
        // The call's `dput()` puts the new dentry on the LRU once its own reclaims are done.
        let at = now + self.call_reclaim_time(out);
        let wait = self.metadata_lock.add_dentry(now, at);
        let m = self.metadata.as_mut().expect("checked above");
        m.insert(ino, slabs, held);
        m.note_dput_wait(wait);
        out.dput_wait += wait;
        self.check();
        true
    }

    /// A new slab in each slab cache inserting `ino` takes a slot in that has none free, its pages taken from
    /// the budget: the dentry's first (`d_alloc()`, which may enter the file system), then the inode's
    /// (`ext4_alloc_inode()`, `GFP_NOFS`). `None`: some slab could not be had now (the pages taken are given
    /// back). A direct reclaim on the way (conventional reclaim) may free a slot in a cache that had none,
    /// and the slab taken for it is given back, or return a partial slab whole, and the cache then wants
    /// one. Each round takes one slab; a round beyond one a cache needs a reclaim that freed an object, and
    /// nothing is inserted meanwhile, so the objects and inodes cached at the start bound the rounds.
    fn new_slabs_for(&mut self, now: Nanos, ino: u64, out: &mut ReadOutcome) -> Option<NewSlabs> {
        let mut got = NewSlabs::default();
        let cached = self.metadata.as_ref().map_or(0, |m| m.objects() + m.inodes());
        let rounds_max = got.len() as u64 + 1 + cached;
        for _ in 0..rounds_max {
            let m = self.metadata.as_mut().expect("the caller has a metadata cache");
            let Some((cache, geometry)) = m.slab_wanted(ino, &got) else { return Some(got) };
            self.alloc_gfp = geometry.gfp;
            let order = self.take_slab(now, geometry, out);
            self.alloc_gfp = Gfp::Kernel;
            let m = self.metadata.as_mut().expect("the caller has a metadata cache");
            let Some(order) = order else {
                self.memory.release_pages(m.slab_pages(&got));
                return None;
            };
            got[cache] = Some(order);
            let unneeded = m.drop_unneeded_slabs(ino, &mut got);
            self.memory.release_pages(unneeded);
        }
        debug_assert!(false, "object {ino}: {rounds_max} rounds of slab allocation without an end");
        let m = self.metadata.as_ref().expect("the caller has a metadata cache");
        self.memory.release_pages(m.slab_pages(&got));
        None
    }

    /// A new slab's pages, as SLUB's `allocate_slab()` gets them: the cache's own order first with
    /// `__GFP_NORETRY` (3.x: at most one direct reclaim, then the attempt fails), then the smallest order
    /// with the caller's flags (direct reclaim until it has the pages, as [`BufferCache::take_memory`]).
    /// 3.x makes the first attempt `__GFP_NORETRY` for every cache; where the smallest order is the cache's
    /// own (the dentry's one-page slab), the two attempts together are the caller's own allocation, which is
    /// what is made here. `None`: not even the smallest could be had now.
    fn take_slab(&mut self, now: Nanos, geometry: SlabGeometry, out: &mut ReadOutcome) -> Option<SlabOrder> {
        let full_pages = geometry.slab(SlabOrder::Full).1 as u32;
        if !geometry.has_fallback() {
            return self.take_pages(now, full_pages, None, out).then_some(SlabOrder::Full);
        }
        if self.take_pages(now, full_pages, Some(NORETRY_RECLAIMS), out) {
            return Some(SlabOrder::Full);
        }
        let min_pages = geometry.slab(SlabOrder::Min).1 as u32;
        self.take_pages(now, min_pages, None, out).then_some(SlabOrder::Min)
    }

    /// `pages` pages from the budget, all or none, with at most `reclaims_max` direct reclaims among them
    /// (`None`: as many as [`BufferCache::take_memory`]'s rule for each page makes). (Without page frames'
    /// addresses the model has no fragmentation: `pages` free pages above `min` are a slab of that order,
    /// which is `zone_watermark_ok()`'s count for it.)
    pub(super) fn take_pages(
        &mut self,
        now: Nanos,
        pages: u32,
        reclaims_max: Option<u32>,
        out: &mut ReadOutcome,
    ) -> bool {
        let mut reclaims_left = reclaims_max.unwrap_or(0);
        for taken in 0..pages {
            let got = match reclaims_max {
                Some(_) => self.take_memory_within::<true>(now, History::NONE, &mut reclaims_left, out),
                None => self.take_memory(now, History::NONE, out),
            };
            if !got {
                self.memory.release_pages(taken);
                return false;
            }
        }
        true
    }

    /// Whether iswapd has work: the driver runs [`BufferCache::iswapd_step`] until it returns `None`.
    pub fn iswapd_awake(&self) -> bool {
        self.metadata.as_ref().is_some_and(|m| m.iswapd_awake())
    }

    /// One step of iswapd at `now`: a batch of objects freed, and its cost (its CPU time, lock wait
    /// included, is iswapd's), or `None` when iswapd sleeps. Bounded: every step frees a batch.
    pub fn iswapd_step(&mut self, now: Nanos) -> Option<ReclaimCost> {
        let mut cost = self.metadata.as_mut()?.iswapd_step()?;
        self.take_lru_lock(now, &mut cost);
        self.release_after(now + self.memory.time(cost), cost.freed, KERNEL_THREAD);
        self.check();
        Some(cost)
    }

    /// The shrinker's part of a reclaim by `who` whose page-cache part did `pages` towards `target`: under
    /// conventional reclaim (and for kswapd under split reclaim) one pass in proportion to the pages
    /// scanned, then passes at rising priority while the reclaim is short of its target (the page cache had
    /// too little to give), down to priority 0 at most: bounded (12 passes, each at most twice the freeable
    /// objects).
    pub(super) fn shrink_metadata(
        &mut self,
        now: Nanos,
        who: Reclaimer,
        target: u32,
        pages: ReclaimCost,
    ) -> ReclaimCost {
        let lru_pages = self.pages.resident_pages() as u64;
        let Some(m) = self.metadata.as_mut() else { return ReclaimCost::default() };
        if who == Reclaimer::Direct && !m.in_direct_reclaim() {
            return ReclaimCost::default();
        }
        // kswapd may always enter the file system; a task's reclaim has its allocation's context.
        let gfp = if who == Reclaimer::Kswapd { Gfp::Kernel } else { self.alloc_gfp };
        let mut cost = m.shrink_after_pages(pages.list_scanned(), lru_pages, gfp);
        let mut priority = DEF_PRIORITY;
        while pages.progress() + cost.freed < target as u64 && priority > 0 && m.objects() > 0 {
            priority -= 1;
            cost += m.shrink_at_priority(priority, lru_pages, gfp);
        }
        // The walk follows the page cache's part of the reclaim.
        let walk_at = now + self.memory.time(pages);
        self.take_lru_lock(walk_at, &mut cost);
        let done = walk_at + self.memory.time(cost);
        let owner = if who == Reclaimer::Kswapd { KERNEL_THREAD } else { self.call_tag };
        self.release_after(done, cost.freed, owner);
        cost
    }

    /// Slab pages a metadata reclaim freed come back to the budget when the reclaim's work is done, at
    /// `due`: a shrink that takes a second at full scale does not hand its pages to others at its start.
    /// (The page cache's part of a reclaim, 32 pages in about 32 µs, frees them at once, as before.)
    /// `owner` is the call that reclaimed them (its `call_tag`, which may claim them), or `KERNEL_THREAD`.
    fn release_after(&mut self, due: Nanos, pages: u64, owner: u64) {
        if pages > 0 {
            self.releases.push((due, pages as u32, owner));
        }
    }

    /// Pages of metadata reclaims whose work is done by `now` come back to the budget. The driver calls it
    /// at [`BufferCache::next_release`] when tasks wait for memory; the cache calls it itself before every
    /// allocation and kswapd step.
    #[inline]
    pub fn settle(&mut self, now: Nanos) {
        if self.releases.is_empty() {
            return; // every allocation calls this: the common case costs a branch
        }
        let memory = &mut self.memory;
        self.releases.retain(|&(due, pages, _)| {
            if due > now {
                return true;
            }
            memory.release_pages(pages);
            false
        });
    }

    /// When metadata reclaim next gives pages back ([`BufferCache::settle`]), if any is under way.
    pub fn next_release(&self) -> Option<Nanos> {
        self.releases.iter().map(|&(due, _, _)| due).min()
    }

    /// Pages freed by metadata reclaims still under way (held until their work is done).
    pub(super) fn releasing_pages(&self) -> u32 {
        self.releases.iter().map(|&(_, pages, _)| pages).sum()
    }

    /// The task whose direct reclaims freed slab pages takes one of them for its own allocation (it
    /// allocates when its reclaim is done, which its CPU time covers): the page changes owner, the budget
    /// does not move. `false` if the call under way has no such page left.
    #[inline]
    pub(super) fn claim_released_page(&mut self) -> bool {
        if self.releases.is_empty() {
            return false;
        }
        let tag = self.call_tag;
        let Some(i) = self.releases.iter().rposition(|&(_, _, t)| t == tag) else { return false };
        self.releases[i].1 -= 1;
        if self.releases[i].1 == 0 {
            self.releases.remove(i);
        }
        true
    }

    /// Metadata work walks the LRUs under their lock: `cost`'s walks, one call of a prune after another,
    /// hold it from `now` (or from when it comes free: the wait, spinning, is added to the cost).
    fn take_lru_lock(&mut self, now: Nanos, cost: &mut ReclaimCost) {
        let Some(m) = self.metadata.as_mut() else { return };
        m.take_walks(&mut self.lru_walks);
        let walked: u64 = self.lru_walks.iter().map(|&(objects, _)| objects).sum();
        assert_eq!(walked, cost.objects_scanned, "the walks under the lock are not the work's");
        if cost.objects_scanned == 0 {
            return;
        }
        let costs = &self.memory.config().costs;
        let walks = self.lru_walks.iter().map(|&(objects, dentries)| (costs.lru_walk(objects), dentries));
        let wait = self.metadata_lock.hold_walks(now, walks);
        cost.lock_wait_ns = wait.0;
        self.metadata.as_mut().expect("taken above").note_lock_wait(wait);
    }
}
