//! The metadata section inside the buffer cache (papers/004): which reclaim paths shrink it, split
//! reclaim's daemon and metadata reclaim, and that no reclaim path livelocks when memory is all metadata.

use super::metadata::NORETRY_RECLAIMS;
use super::tests::memory_model;
use super::*;
use crate::metadata::{InodeLru, MetadataReclaim, Slabs, Thresholds};

/// Kernel memory of `pages` usable pages (min a tenth), LRU page cache, readahead off, and a metadata
/// cache of 1 KiB objects (four to a page).
fn cache(pages: u32, reclaim: MetadataReclaim) -> BufferCache<()> {
    let mut config =
        BufferCacheConfig::new(memory_model(true, pages), PolicyKind::Lru, "none".parse().unwrap());
    config.metadata = Some(MetadataConfig {
        object_bytes: 1024,
        slabs: Slabs::Packed,
        inode_lru: InodeLru::Joint,
        ..MetadataConfig::linux(reclaim)
    });
    BufferCache::new(config).unwrap()
}

/// Kernel memory of `pages` usable pages, LRU page cache, readahead off, and Linux's metadata cache (ext4's
/// slabs, 3.x's inode LRU) under conventional reclaim.
fn ext4_cache(pages: u32) -> BufferCache<()> {
    let mut config =
        BufferCacheConfig::new(memory_model(true, pages), PolicyKind::Lru, "none".parse().unwrap());
    config.metadata = Some(MetadataConfig::linux(MetadataReclaim::Conventional));
    BufferCache::new(config).unwrap()
}

/// `stat()` of `ino` at `now_ms` milliseconds through the protocol (the inode page read is left out: these
/// tests are about memory).
fn stat(c: &mut BufferCache<()>, now_ms: u64, ino: u64, out: &mut ReadOutcome) -> bool {
    out.clear();
    c.metadata_lookup(ino) || c.metadata_insert(Nanos::from_ms(now_ms), ino, false, out)
}

/// Run kswapd and iswapd until both sleep, as a driver would between calls: each step a millisecond after
/// the last (longer than any step's work here, so that every metadata reclaim's pages have come back).
fn run_daemons(c: &mut BufferCache<()>, now_ms: u64) {
    let mut fetches = Vec::new();
    for step in 0..100_000 {
        let now = Nanos::from_ms(now_ms + step);
        let k = c.kswapd_step(now, &mut fetches).is_some();
        let i = c.iswapd_step(now).is_some();
        if !k && !i {
            c.settle(now + Nanos::from_secs(1));
            return;
        }
    }
    panic!("the daemons did not go to sleep");
}

/// Conventional reclaim: with the page cache empty, a direct reclaim's page part scans nothing, which
/// `shrink_slab()` counts as 32 pages scanned of an LRU of none: its shrinker pass is capped at twice the
/// cache and frees every object, without escalating; memory stays within the budget.
#[test]
fn conventional_direct_reclaim_frees_slab_pages() {
    let mut c = cache(1000, MetadataReclaim::Conventional);
    let mut out = ReadOutcome::default();
    let mut direct = ReclaimCost::default();
    for ino in 0..10_000 {
        let before = c.metadata().unwrap().objects();
        assert!(stat(&mut c, ino, ino, &mut out), "stat of {ino} got no memory");
        direct += out.direct_reclaim;
        if out.direct_reclaim.objects_freed > 0 {
            assert_eq!(out.direct_reclaim.objects_freed, before, "the whole cache, at {ino}");
        }
        let m = c.memory();
        assert!(m.metadata <= m.usable - m.watermarks.min, "{m:?}");
    }
    assert!(c.memory_stats().direct_reclaims > 0);
    assert!(direct.objects_scanned > 0 && direct.freed > 0, "{direct:?}");
    assert_eq!(c.memory_stats().direct, direct);
    let stats = c.metadata().unwrap().stats();
    assert_eq!(stats.priority_passes, 0, "the first pass met the target ({stats:?})");
    c.metadata().unwrap().check();
}

/// Conventional reclaim escalates: with the page cache all anonymous memory that cannot leave (no swap),
/// a direct reclaim's page part frees nothing; its first shrinker pass, a small share of a small slab
/// cache beside a large LRU, frees too few slab pages; so `shrink_metadata` lowers the priority and shrinks
/// again (`do_try_to_free_pages`' loop) until the reclaim has its 32 pages or the cache is empty.
#[test]
fn a_direct_reclaim_short_of_its_batch_escalates_the_shrinker() {
    let mut c = cache(1000, MetadataReclaim::Conventional);
    let mut out = ReadOutcome::default();
    for ino in 0..200 {
        assert!(stat(&mut c, 0, ino, &mut out)); // 50 slab pages
    }
    let mut escalated = None;
    for page in 0..2_000 {
        let mut cur = c.begin_touch(Nanos::from_ms(1), StreamId(2), 0, page, true).unwrap();
        out.clear();
        c.touch(Nanos::from_ms(1), &mut cur, &mut out).unwrap();
        if out.direct_reclaims > 0 {
            escalated = Some(out.direct_reclaim);
            break;
        }
        assert_eq!(out.status, ReadStatus::Done, "page {page}: {:?}", c.memory());
    }
    let cost = escalated.expect("anonymous memory filled the cache without a direct reclaim");
    let stats = c.metadata().unwrap().stats();
    assert!(stats.priority_passes > 0, "the first pass was short of the batch: {stats:?} {cost:?}");
    assert_eq!(cost.written, 0, "no swap: nothing leaves the page cache");
    let left = c.metadata().unwrap().objects();
    assert!(cost.freed >= 32 || left == 0, "escalation stopped early: {cost:?}, {left} objects left");
    let m = c.memory();
    assert!(m.free + m.metadata + m.resident + m.in_flight <= m.usable, "{m:?}");
    c.metadata().unwrap().check();
}

/// Split reclaim: direct reclaim never touches metadata; the object count stays at `Md` (metadata reclaim
/// at allocation) and iswapd brings it to `Mb`.
#[test]
fn split_reclaim_keeps_metadata_out_of_direct_reclaim_and_under_md() {
    let mut c = cache(1000, MetadataReclaim::Split { ratio_p_percent: 50 });
    // C = 1002 pages: Md = 1002 × 4096 × 50 % / 1024 = 2004 objects, Mb = 1603.
    let t = c.metadata().unwrap().thresholds().unwrap();
    assert_eq!(t, Thresholds { md: 2004, mb: 1603 });
    let mut out = ReadOutcome::default();
    let mut metadata_reclaims = 0;
    for ino in 0..10_000 {
        assert!(stat(&mut c, ino, ino, &mut out));
        assert_eq!(out.direct_reclaim.objects_scanned, 0, "direct reclaim shrank metadata");
        metadata_reclaims += out.metadata_reclaims;
        assert!(c.metadata().unwrap().objects() <= t.md + 1);
    }
    assert!(metadata_reclaims > 0);
    assert_eq!(c.metadata_stats().unwrap().metadata_reclaims, metadata_reclaims as u64);
    run_daemons(&mut c, 20_000_000);
    assert!(c.metadata().unwrap().objects() <= t.mb);
    assert!(c.memory().metadata as u64 * 4 <= t.md + 4, "pages bounded by Md objects");
}

/// kswapd shrinks metadata under both policies (it balances metadata against the page cache).
#[test]
fn kswapd_shrinks_metadata_under_both_policies() {
    for reclaim in [MetadataReclaim::Conventional, MetadataReclaim::Split { ratio_p_percent: 90 }] {
        let mut c = cache(1000, reclaim);
        let mut out = ReadOutcome::default();
        // Fill memory with metadata until an allocation at `low` wakes kswapd.
        for ino in 0..3_700 {
            assert!(stat(&mut c, ino, ino, &mut out));
            if c.kswapd_awake() {
                break;
            }
        }
        assert!(c.kswapd_awake(), "{reclaim:?}: {:?}", c.memory());
        run_daemons(&mut c, 5_000_000);
        let s = c.metadata_stats().unwrap();
        assert!(s.shrinker.objects_scanned > 0 && s.shrinker_passes > 0, "{reclaim:?}: {s:?}");
        assert!(c.memory().free > c.memory().watermarks.high, "{reclaim:?}: kswapd reached high");
    }
}

/// Concurrent metadata reclaim waits on the LRU's lock: a second reclaim at the same instant waits for the
/// first one's work.
#[test]
fn concurrent_metadata_reclaim_waits_for_the_lock() {
    let mut c = cache(1000, MetadataReclaim::Conventional);
    let mut out = ReadOutcome::default();
    let mut waited = 0;
    for ino in 0..10_000 {
        stat(&mut c, 0, ino, &mut out); // every call at the same instant
        waited += out.direct_reclaim.lock_wait_ns;
    }
    assert!(waited > 0, "reclaims at one instant must queue on the lock");
    let cost = c.memory_stats().direct;
    assert!(c.reclaim_time(cost) > c.reclaim_time(ReclaimCost { lock_wait_ns: 0, ..cost }));
}

/// No reclaim path can livelock with memory nearly all metadata and a page cache competing for it: every
/// call returns (each reclaim loop is bounded), the budget holds, and the daemons go to sleep.
///
/// The test is only worth what its scenario is, so it checks the scenario too: under each policy metadata
/// fills memory as far as the policy lets it, and direct reclaims and the daemons run while it does. A
/// setup that stopped filling memory with metadata fails here instead of passing on an easy case.
#[test]
fn memory_nearly_all_metadata_never_livelocks() {
    // Each policy, with the share of usable memory (per cent) metadata must hold while the reclaims run;
    // `None`: as much as `Mb`, split reclaim's own bound below `Md`.
    for (reclaim, floor_percent) in [
        // The shrinker takes metadata in step with the page cache's scan, so with every read a miss the two
        // settle near three quarters metadata; memory above `min` is 90 %.
        (MetadataReclaim::Conventional, Some(70)),
        // `Md` (199 objects) is more than memory above `min` holds (180 pages): only memory bounds it.
        (MetadataReclaim::Split { ratio_p_percent: 99 }, Some(80)),
        // `Md` = 80 objects, 40 % of C: metadata reclaim at allocation holds it there, and iswapd brings it
        // to `Mb` (64): no more than that share is reachable.
        (MetadataReclaim::Split { ratio_p_percent: 40 }, None),
    ] {
        let mut config =
            BufferCacheConfig::new(memory_model(true, 200), PolicyKind::TwoList, "none".parse().unwrap());
        config.metadata = Some(MetadataConfig {
            object_bytes: 4096,
            slabs: Slabs::Packed,
            inode_lru: InodeLru::Joint,
            ..MetadataConfig::linux(reclaim)
        });
        let mut c = BufferCache::new(config).unwrap();
        let thresholds = c.metadata().unwrap().thresholds();
        let floor = match (floor_percent, thresholds) {
            (Some(percent), _) => c.memory().usable * percent / 100,
            (None, Some(t)) => t.mb as u32,
            (None, None) => unreachable!("{reclaim:?} has no thresholds"),
        };
        let mut out = ReadOutcome::default();
        // Iterations whose calls reclaimed directly, and daemon runs, with metadata at `floor` or above.
        let (mut full_direct, mut full_daemons, mut most) = (0, 0, 0);
        for i in 0..2_000u64 {
            let (before, direct) = (c.memory(), c.memory_stats().direct_reclaims);
            // One object per page: every insert needs a page. Alternate with page-cache reads.
            stat(&mut c, i, i % 500, &mut out);
            let mut cur = c.begin_read(Nanos(i), StreamId(1), FileId(0), i % 300, i % 300 + 1, 1000).unwrap();
            for _ in 0..8 {
                out.clear();
                c.read(Nanos(i), &mut cur, &super::tests::Flat, &mut out).unwrap();
                for f in out.fetches.clone() {
                    c.fetch_done(Nanos(i), &f).unwrap();
                }
                if out.status == ReadStatus::Done {
                    break;
                }
            }
            if before.metadata >= floor && c.memory_stats().direct_reclaims > direct {
                full_direct += 1;
            }
            // The daemons run now and then, not after every call: in between, allocations take memory down
            // to `min` and reclaim directly, and split reclaim's metadata climbs past `Mb` to `Md`.
            if i % 50 == 0 {
                if c.kswapd_awake() && c.memory().metadata >= floor {
                    full_daemons += 1;
                }
                run_daemons(&mut c, i);
            }
            let m = c.memory();
            most = most.max(m.metadata);
            assert!(m.free + m.metadata + m.resident + m.in_flight <= m.usable, "{reclaim:?}: {m:?}");
        }
        let m = c.memory();
        assert!(
            full_direct >= 10,
            "{reclaim:?}: {full_direct} iterations reclaimed directly with {floor} metadata pages or more \
             (at most {most} of {} usable)",
            m.usable
        );
        assert!(full_daemons >= 1, "{reclaim:?}: kswapd never ran with {floor} metadata pages or more");
        // Where memory above `min` can hold `Md`, metadata reaches it: as full as P lets memory be.
        if let Some(t) = thresholds.filter(|t| t.md < (m.usable - m.watermarks.min) as u64) {
            let reclaims = c.metadata_stats().unwrap().metadata_reclaims;
            assert!(
                most as u64 >= t.md && reclaims > 0,
                "{reclaim:?}: {most} pages at most, {reclaims} \
                 metadata reclaims: never reached Md = {}",
                t.md
            );
        }
        c.check();
    }
}

/// A read in `GFP_NOFS` context (a file system's own blocks) reclaims pages directly but leaves the metadata
/// shrinker's work deferred; the next reclaim that may enter the file system (kswapd here) collects it.
#[test]
fn a_nofs_reads_direct_reclaim_defers_the_metadata_shrinker() {
    let mut c = cache(1000, MetadataReclaim::Conventional);
    let mut out = ReadOutcome::default();
    for ino in 0..2_000 {
        assert!(stat(&mut c, ino, ino, &mut out));
    }
    // Fill the rest with page-cache pages until reads reclaim directly.
    let mut direct = ReclaimCost::default();
    for page in 0..1_000 {
        let mut cur = c.begin_read(Nanos(1), StreamId(1), FileId(0), page, page + 1, 1000).unwrap().no_fs();
        out.clear();
        c.read(Nanos(1), &mut cur, &super::tests::Flat, &mut out).unwrap();
        direct += out.direct_reclaim;
        for f in out.fetches.clone() {
            c.fetch_done(Nanos(1), &f).unwrap();
        }
    }
    assert!(c.memory_stats().direct_reclaims > 0, "{:?}", c.memory());
    assert_eq!(direct.objects_scanned, 0, "a NOFS reclaim scans no metadata");
    let s = c.metadata_stats().unwrap();
    assert!(s.deferred_passes > 0 && c.metadata().unwrap().deferred() > 0, "{s:?}");
    let before = c.metadata().unwrap().deferred();
    run_daemons(&mut c, 10);
    assert!(c.metadata().unwrap().deferred() < before, "kswapd collected the deferred work");
}

/// An insert that needs a new dentry page and a new four-page inode slab at once, with memory at `min`,
/// reclaims once when it succeeds: its later pages come from what its own reclaim is freeing, not from
/// further reclaims at the same instant (whose lock waits would be its own earlier walks). One that fails
/// reclaimed twice at most: the inode slab's `__GFP_NORETRY` attempt at four pages, then the one-page
/// fallback's (SLUB's `allocate_slab()`), both in `GFP_NOFS` context, which only defers the shrinker.
#[test]
fn a_multi_page_insert_takes_its_own_reclaims_pages() {
    let mut c = ext4_cache(2000);
    let mut out = ReadOutcome::default();
    let (mut reclaiming_inserts, mut most_done, mut most_failed, mut failed) = (0, 0, 0, 0);
    for ino in 0..40_000 {
        for attempt in 0..2 {
            let done = stat(&mut c, ino + attempt * 1_000_000, ino, &mut out);
            if out.direct_reclaims > 0 {
                reclaiming_inserts += 1;
                assert_eq!(out.direct_reclaim.lock_wait_ns, 0, "a call never waits for its own walks");
            }
            if done {
                most_done = most_done.max(out.direct_reclaims);
                break;
            }
            most_failed = most_failed.max(out.direct_reclaims);
            failed += 1;
            // The inode slab's NOFS reclaim could only defer: kswapd, which may shrink, makes room.
            assert_eq!(attempt, 0, "no memory for {ino} even after kswapd ran");
            run_daemons(&mut c, ino);
        }
    }
    assert!(reclaiming_inserts > 0);
    assert_eq!(most_done, 1, "one direct reclaim per insert that succeeds");
    assert!(most_failed <= 2, "{failed} failed inserts, one with {most_failed} direct reclaims");
}

/// SLUB's order fallback: when the inode cache's four-page slab cannot be had above `min`, even after its
/// `__GFP_NORETRY` attempt's one direct reclaim (`GFP_NOFS`, which frees nothing here: no page cache, and
/// the shrinker's work is deferred), the insert takes a one-page slab of three inodes instead of failing.
/// A slab of the full order is never passed over while its pages are free above `min`.
#[test]
fn an_inode_slab_that_cannot_be_had_whole_is_taken_at_one_page() {
    let mut c = ext4_cache(2000);
    let min = c.memory.config().watermarks.min;
    let mut out = ReadOutcome::default();
    for ino in 0..40_000 {
        let stats = |c: &BufferCache<()>| c.metadata_stats().unwrap();
        let (before, fallbacks, allocated) =
            (c.memory(), stats(&c).order_fallbacks, stats(&c).pages_allocated);
        let done = stat(&mut c, ino, ino, &mut out);
        if stats(&c).order_fallbacks == fallbacks {
            assert!(done || before.free <= min + 5, "{ino}: failed with {} free, min {min}", before.free);
            continue;
        }
        assert!(done, "{ino}: the fallback slab is the insert's");
        assert!(before.free <= min + 4, "{ino}: fell back with {} pages free, min {min}", before.free);
        assert!(out.direct_reclaims >= 1 && out.direct_reclaim_gfp == Gfp::NoFs, "{out:?}");
        let taken = stats(&c).pages_allocated - allocated;
        assert!(taken == 1 || taken == 2, "{ino}: an inode page, and perhaps a dentry page: {taken}");
        // The one-page slab holds three inodes: the next two new files take no inode slab (a full one would
        // be four pages, another of one page a fallback).
        for next in 1..=2 {
            let allocated = stats(&c).pages_allocated;
            assert!(stat(&mut c, ino + next, ino + next, &mut out));
            assert_eq!(stats(&c).order_fallbacks, fallbacks + 1, "{}: no second fallback", ino + next);
            assert!(stats(&c).pages_allocated - allocated <= 1, "{}: at most a dentry page", ino + next);
        }
        c.check();
        return;
    }
    panic!("no insert fell back to a one-page slab");
}

/// A slab's first attempt (`__GFP_NORETRY`) reclaims once and gives up, giving back what it took; the
/// fallback's pages come as any page does, reclaiming until it has them. An exact memory of eight frames,
/// full of clean page-cache pages: each direct reclaim there frees one page.
#[test]
fn a_noretry_attempt_reclaims_once_and_gives_back_its_pages() {
    let config = BufferCacheConfig::new(memory_model(false, 8), PolicyKind::Lru, "none".parse().unwrap());
    let mut c = BufferCache::new(config).unwrap();
    let mut out = ReadOutcome::default();
    for page in 0..8 {
        let mut cur = c.begin_read(Nanos(1), StreamId(1), FileId(0), page, page + 1, 1000).unwrap();
        out.clear();
        c.read(Nanos(1), &mut cur, &super::tests::Flat, &mut out).unwrap();
        for f in out.fetches.clone() {
            c.fetch_done(Nanos(1), &f).unwrap();
        }
    }
    assert_eq!((c.memory().free, c.memory().resident), (0, 8));
    out.clear();
    assert!(!c.take_pages(Nanos(2), 4, Some(NORETRY_RECLAIMS), &mut out), "one page freed, four wanted");
    assert_eq!(out.direct_reclaims, 1, "no retry");
    assert_eq!(c.memory().free, 1, "the page its reclaim freed is given back");
    out.clear();
    assert!(c.take_pages(Nanos(3), 4, None, &mut out));
    assert_eq!(out.direct_reclaims, 3, "the free page, then a reclaim for each of the other three");
    c.memory.release_pages(4);
    c.check();
}

/// 3.x's inode LRU through the `stat()` protocol: once reclaim has freed dentries and left their inodes on
/// the inode LRU, a `stat` of such a file misses the dentry, finds the inode (the driver then reads no inode
/// table), and its insert makes a dentry only, counted as an inode hit.
#[test]
fn a_stat_finds_the_inode_that_outlived_its_dentry() {
    let mut c = ext4_cache(1000);
    let mut out = ReadOutcome::default();
    let mut files = 0;
    while c.metadata().unwrap().inodes_unused() == 0 {
        assert!(stat(&mut c, files, files, &mut out), "stat of {files} got no memory");
        // A page cache beside the metadata, so that a reclaim's shrinker pass takes its share, not all.
        let page = files % 2_000;
        let mut cur = c.begin_read(Nanos(files), StreamId(1), FileId(0), page, page + 1, 2_000).unwrap();
        out.clear();
        c.read(Nanos(files), &mut cur, &super::tests::Flat, &mut out).unwrap();
        for f in out.fetches.clone() {
            c.fetch_done(Nanos(files), &f).unwrap();
        }
        run_daemons(&mut c, files);
        files += 1;
        assert!(files < 100_000, "no reclaim left an inode behind its dentry");
    }
    let m = c.metadata().unwrap();
    let orphan = (0..files).find(|&i| !m.contains(i) && m.inode_cached(i)).expect("an inode on the LRU");
    let (inodes, hits) = (m.inodes(), m.stats().inode_hits);
    assert!(!c.metadata_lookup(orphan) && c.metadata_iget(orphan));
    assert!(c.metadata_insert(Nanos::from_ms(files), orphan, true, &mut out));
    let m = c.metadata().unwrap();
    assert!(m.contains(orphan));
    assert_eq!((m.inodes(), m.stats().inode_hits), (inodes, hits + 1), "the inode was taken back, not made");
    c.check();
}

/// A `stat()` that caches a new dentry while another task's direct reclaim walks the dentry LRU spins on
/// the lock until that walk ends (`dentry_lru_add()` under `dcache_lru_lock`), and the spin is charged
/// with the call's reclaim; a `stat()` after the walks does not spin.
#[test]
fn a_stat_during_a_dentry_walk_spins_until_it_ends() {
    let mut c = cache(1000, MetadataReclaim::Conventional);
    let mut out = ReadOutcome::default();
    // Calls a millisecond apart (longer than any walk here) until one reclaims metadata directly.
    let mut at_ms = None;
    for ino in 0..10_000 {
        assert!(stat(&mut c, ino, ino, &mut out));
        assert_eq!(out.dput_wait, Nanos::ZERO, "no walk is under way a millisecond later");
        if out.direct_reclaim.objects_scanned > 0 {
            at_ms = Some(ino);
            break;
        }
    }
    let at_ms = at_ms.expect("no direct reclaim shrank the metadata");
    let walk = c.reclaim_time(ReclaimCost {
        objects_scanned: out.direct_reclaim.objects_scanned,
        ..Default::default()
    });
    // At the same instant, a file whose object fits a slot the reclaim freed: no page, no reclaim.
    let ino = 20_000;
    assert!(stat(&mut c, at_ms, ino, &mut out));
    assert_eq!(out.direct_reclaims, 0, "the set-up needs an insert without reclaim");
    assert!(
        out.dput_wait > Nanos::ZERO && out.dput_wait <= walk,
        "{:?} against a walk of {walk:?}",
        out.dput_wait
    );
    assert_eq!(c.reclaim_time(out.reclaim()), out.dput_wait, "the spin is the call's CPU time");
    let s = c.metadata_stats().unwrap();
    assert_eq!((s.dput_waits, s.dput_wait_ns, s.dput_wait_ns_max), (1, out.dput_wait.0, out.dput_wait.0));
    assert!(stat(&mut c, at_ms + 1, ino + 1, &mut out));
    assert_eq!(out.dput_wait, Nanos::ZERO, "the walk is over");
}
