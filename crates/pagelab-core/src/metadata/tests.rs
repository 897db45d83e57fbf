//! Hand-traced tests of the metadata cache: the paper's Figure 3, the shrinker's arithmetic, split
//! reclaim's thresholds and daemon.

use super::*;
use proptest::prelude::*;

/// An object size that puts exactly `per_page` objects on a 4 KiB page (a file's dentry and inode as one
/// object).
fn config(per_page: u32, reclaim: MetadataReclaim) -> MetadataConfig {
    MetadataConfig {
        object_bytes: 4096 / per_page,
        slabs: Slabs::Packed,
        inode_lru: InodeLru::Joint,
        ..MetadataConfig::linux(reclaim)
    }
}

/// Linux's slabs with 3.x's inode LRU (the default).
fn ext4(reclaim: MetadataReclaim) -> MetadataCache {
    MetadataCache::new(MetadataConfig::linux(reclaim), 1 << 30).unwrap()
}

/// Insert `inos` in order, taking a page whenever the slab asks for one; returns the pages taken.
fn create(m: &mut MetadataCache, inos: impl IntoIterator<Item = u64>) -> u32 {
    let mut pages = 0;
    for ino in inos {
        let slabs = m.full_slabs(ino);
        pages += m.slab_pages(&slabs);
        m.insert(ino, slabs, false);
    }
    pages
}

/// Objects the reclaimer examines, one at a time, until the first slab page comes free.
fn examined_until_a_page_frees(m: &mut MetadataCache) -> u64 {
    let mut examined = 0;
    for _ in 0..=2 * m.objects() {
        let cost = m.scan(1, u64::MAX, false);
        examined += cost.objects_scanned;
        if cost.freed > 0 {
            return examined;
        }
    }
    panic!("no page came free");
}

/// papers/004 Figure 3: nine objects, four to a page (pages {1,2,3,4} {5,6,7,8} {9}). Right after
/// creation, the reclaimer frees 1, 2, 3, 4 and the first page is free: four objects. After two accesses
/// (to 4 and to 9), it frees 1, 2, 3, gives 4 its second chance, frees 5, 6, 7, 8: the second page comes
/// free after eight objects examined (seven freed), double the four. No LRU order of nine objects on these
/// pages needs eight *frees* (the lone object 9 frees its page whenever it goes, so one of the last two
/// places must hold it): the figure's count is of the objects the reclaimer goes through.
#[test]
fn figure_3_scattered_objects_double_the_work_to_free_a_page() {
    let mut m = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    assert_eq!(create(&mut m, 1..=9), 3);
    assert_eq!(m.lru_order().iter().map(|o| o.0).collect::<Vec<_>>(), (1..=9).collect::<Vec<_>>());
    let mut after_creation = m.clone();
    assert_eq!(examined_until_a_page_frees(&mut after_creation), 4);
    assert_eq!(after_creation.pages(), 2);

    assert!(m.lookup(4) && m.lookup(9));
    assert_eq!(m.lru_order()[3], (4, true), "a hit sets the bit and leaves the object in place");
    assert_eq!(examined_until_a_page_frees(&mut m), 8);
    assert_eq!(m.pages(), 2);
    assert_eq!(m.page_of(5), None);
    assert_eq!(
        m.lru_order(),
        vec![(9, true), (4, false)],
        "4 rotated to the MRU end with its bit cleared; 9 not reached yet"
    );
    m.check();
}

/// 2.6–3.x's `dput()` marks a new object referenced at its first release: right after creation the
/// reclaimer first gives all nine their second chance.
#[test]
fn with_the_first_put_referenced_creation_already_costs_a_rotation_of_everything() {
    let c = MetadataConfig { first_put: FirstPut::Referenced, ..config(4, MetadataReclaim::Conventional) };
    let mut m = MetadataCache::new(c, 1 << 30).unwrap();
    create(&mut m, 1..=9);
    assert!(m.lru_order().iter().all(|&(_, referenced)| referenced));
    assert_eq!(examined_until_a_page_frees(&mut m), 9 + 4);
}

/// Linux's slabs: a dentry among 21 on a page, an inode among 14 on a four-page slab. The first object
/// takes five pages; the next 13 none; the 15th a new inode slab (four pages); the 22nd a new dentry page.
/// Freeing objects (dentry and inode together) in creation order returns the first inode slab only after
/// its 14th object.
#[test]
fn ext4_slabs_take_pages_as_linux_slab_caches_do() {
    let c =
        MetadataConfig { inode_lru: InodeLru::Joint, ..MetadataConfig::linux(MetadataReclaim::Conventional) };
    let mut m = MetadataCache::new(c, 1 << 30).unwrap();
    assert_eq!(m.slab_pages(&[Some(SlabOrder::Full); 2]), 5, "the most one insert can need");
    let mut taken = Vec::new();
    for ino in 0..22 {
        let slabs = m.full_slabs(ino);
        taken.push(m.slab_pages(&slabs));
        m.insert(ino, slabs, false);
    }
    assert_eq!(taken[0], 5);
    assert_eq!(taken[14], 4);
    assert_eq!(taken[21], 1);
    assert_eq!(taken.iter().sum::<u32>(), 10);
    assert_eq!(m.pages(), 10);
    let cost = m.scan(13, u64::MAX, false);
    assert_eq!(cost.freed, 0, "13 of the first slab's 14 inodes freed: nothing comes free");
    let cost = m.scan(1, u64::MAX, false);
    assert_eq!(cost.freed, 4, "the 14th: the four-page inode slab");
    m.check();
}

/// 3.x's inode LRU: the shrinker frees dentries; each one's inode goes to the inode LRU marked referenced
/// (`iput_final()`), the first freed at the end a prune starts from. The next prune, with no dentry left,
/// gives its whole share to the inodes: it rotates all three (clearing the bits), then frees them, and the
/// four-page inode slab comes free.
#[test]
fn a_freed_dentrys_inode_waits_on_the_inode_lru_and_goes_on_its_second_visit() {
    let mut m = ext4(MetadataReclaim::Conventional);
    assert_eq!(create(&mut m, 1..=3), 5, "a dentry page and a four-page inode slab");
    // 3 dentries, no unused inode: the dentries' share is 128 × 3 / 4 = 96, and frees all three.
    let cost = m.prune(SHRINK_BATCH);
    assert_eq!(
        (cost.objects_scanned, cost.objects_freed, cost.inodes_freed, cost.freed),
        (3, 3, 0, 1),
        "the dentry page only"
    );
    assert_eq!((m.objects(), m.inodes(), m.inodes_unused(), m.pages()), (0, 3, 3, 4));
    assert_eq!(m.inode_lru_order(), vec![(1, true, false), (2, true, false), (3, true, false)]);
    assert_eq!(m.freeable(), 3, "the unused inodes are the shrinker's to free");
    // No dentry: the inodes' share is 128 × 3 / 4 = 96: three rotations, then three frees.
    let cost = m.prune(SHRINK_BATCH);
    assert_eq!((cost.objects_scanned, cost.objects_freed, cost.inodes_freed, cost.freed), (6, 0, 3, 4));
    assert_eq!((m.inodes(), m.pages()), (0, 0));
    m.check();
}

/// A lookup that misses the dentry but finds the inode takes it back (`__iget()`) without moving it on
/// the LRU: the new dentry needs its own slot, not an inode's. The prune that meets the inode in use takes
/// it off the list, counted, and frees nothing of it; when the dentry goes again, the inode goes back to
/// the head, referenced.
#[test]
fn an_inode_found_again_stays_on_the_lru_until_a_prune_takes_it_off() {
    let mut m = ext4(MetadataReclaim::Conventional);
    create(&mut m, 1..=2);
    // Two dentries, no unused inode: share 128 × 2 / 3 = 85, both freed; the dentry page with them.
    assert_eq!(m.prune(SHRINK_BATCH).freed, 1);
    assert!(!m.lookup(1) && m.iget(1) && !m.inode_cached(3));
    let (slabs, new_file) = (m.full_slabs(1), m.full_slabs(3));
    assert_eq!(m.slab_pages(&slabs), 1, "a dentry page; the inode is cached");
    assert_eq!(m.slab_pages(&new_file), 1, "a new file: a dentry page, and a slot in the inode slab");
    assert_eq!(slabs, [Some(SlabOrder::Full), None], "a dentry slab only");
    m.insert(1, slabs, true);
    assert_eq!(m.stats().inode_hits, 1);
    assert_eq!(m.inode_lru_order(), vec![(1, true, true), (2, true, false)], "left in place, lazily");
    assert!(m.lookup(1), "its dentry referenced: the next dentry walk rotates it");
    // One dentry and two listed inodes: shares 128 × 1 / 4 = 32 and 128 × 2 / 4 = 64. The dentry walk
    // rotates dentry 1 and frees none; the inode prune takes inode 1 off the list (in use), rotates 2, then
    // frees it: 1 + 1 + 2 examined.
    let cost = m.prune(SHRINK_BATCH);
    assert_eq!((cost.objects_scanned, cost.objects_freed, cost.inodes_freed, cost.freed), (1 + 3, 0, 1, 0));
    assert_eq!((m.objects(), m.inodes(), m.inodes_unused()), (1, 1, 0));
    // Dentry 1, its bit cleared by the walk, goes now; its inode returns to the LRU, referenced.
    assert_eq!(m.prune(SHRINK_BATCH).objects_freed, 1);
    assert_eq!(m.inode_lru_order(), vec![(1, true, false)]);
    m.check();
}

/// A lookup that finds an inode apart holds it (`iget_locked()`'s reference): prunes that free every other
/// unused inode take it off the list and leave it, so the insert the lookup makes next takes it back (an
/// inode hit) instead of making a new one whose table page was never read. Without the hold (`insert`
/// with `held` false, as before) the same prunes would free it first.
#[test]
fn an_inode_a_lookup_holds_outlives_the_prunes_before_its_insert() {
    let mut m = ext4(MetadataReclaim::Conventional);
    create(&mut m, 1..=2);
    assert_eq!(m.prune(SHRINK_BATCH).objects_freed, 2, "both dentries go; their inodes to the LRU");
    assert!(!m.lookup(1) && m.iget(1));
    // Two listed inodes, both referenced, no dentry: the inodes' share is the whole batch (128 × 2 / 3 =
    // 85), so one prune takes 1 off the list (held), rotates 2 and then frees it. (A dentry's slab
    // allocation reclaims this way between the lookup and the insert.)
    m.prune(SHRINK_BATCH);
    assert_eq!((m.inodes(), m.inodes_unused()), (1, 0), "inode 1 held, off the list; inode 2 freed");
    m.check();
    let slabs = m.full_slabs(1);
    assert_eq!(slabs, [Some(SlabOrder::Full), None], "a dentry slab only: the inode is there");
    m.insert(1, slabs, true);
    assert_eq!((m.stats().inode_hits, m.inodes()), (1, 1));
    m.check();
    // The same without the hold: inode 2's twin, freed by the same prunes.
    let mut unheld = ext4(MetadataReclaim::Conventional);
    create(&mut unheld, 1..=2);
    unheld.prune(SHRINK_BATCH);
    assert!(unheld.inode_cached(1));
    unheld.prune(SHRINK_BATCH);
    assert!(!unheld.inode_cached(1), "an unheld inode is freed by the same prune");
}

/// A lookup's hold that no dentry of its own takes over (another task's insert of the file came first)
/// is given back: the inode stays pinned by that dentry, where it was on the LRU. Split reclaim, which
/// frees a dentry with its inode, leaves an inode a lookup holds: only the dentry's reference goes.
#[test]
fn a_lookups_hold_is_given_back_or_taken_over() {
    let mut m = ext4(MetadataReclaim::Conventional);
    create(&mut m, 1..=1);
    m.prune(SHRINK_BATCH);
    assert!(m.iget(1), "found on the inode LRU");
    let slabs = m.full_slabs(1);
    m.insert(1, slabs, false);
    m.put_inode(1);
    assert_eq!(m.inode_lru_order(), vec![(1, true, true)], "pinned by the dentry, listed lazily");
    m.check();
    // The hold given back, the dentry's going is the inode's last reference: a later prune frees it (with
    // the hold kept it would stay, taken off the list, forever).
    for _ in 0..4 {
        m.prune(SHRINK_BATCH);
    }
    assert_eq!((m.objects(), m.inodes()), (0, 0), "dentry and inode both freed");
    m.check();

    let mut m = ext4(MetadataReclaim::Split { ratio_p_percent: 50 });
    create(&mut m, 1..=1);
    assert!(m.iget(1), "held while its dentry is cached");
    let cost = m.free_batch();
    assert_eq!((cost.objects_freed, cost.inodes_freed), (1, 0), "the dentry alone goes");
    assert!(!m.contains(1) && m.inode_cached(1));
    m.check();
    let slabs = m.full_slabs(1);
    m.insert(1, slabs, true);
    assert_eq!(m.stats().inode_hits, 1, "the held inode taken back");
    m.check();
}

/// Each reference a lookup takes is counted until it ends — taken over by its insert, or given back — under
/// both inode LRUs: the count a driver checks against its calls in progress to find a leaked reference.
#[test]
fn lookups_holding_count_each_reference_until_it_ends() {
    let joint = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    for mut m in [ext4(MetadataReclaim::Conventional), joint] {
        create(&mut m, 1..=2);
        assert!(!m.iget(3), "not cached: no reference");
        assert!(m.iget(1) && m.iget(2));
        assert_eq!(m.lookups_holding(), 2);
        m.check();
        m.put_inode(1);
        assert_eq!(m.lookups_holding(), 1, "given back");
        m.check();
    }
    // Under 3.x's inode LRU, a held inode whose dentry was pruned is taken over by the new dentry.
    let mut m = ext4(MetadataReclaim::Conventional);
    create(&mut m, 1..=1);
    m.prune(SHRINK_BATCH);
    assert!(!m.contains(1) && m.iget(1));
    assert_eq!(m.lookups_holding(), 1);
    let slabs = m.full_slabs(1);
    m.insert(1, slabs, true);
    assert_eq!(m.lookups_holding(), 0, "taken over by the dentry");
    m.check();
}

/// `prune_super()` shares a batch between the LRUs in proportion to their lengths, the dentries first.
#[test]
fn a_batch_is_shared_between_dentries_and_unused_inodes_by_their_counts() {
    let mut m = ext4(MetadataReclaim::Conventional);
    create(&mut m, 0..300);
    assert_eq!(m.prune_dentries(100).objects_freed, 100);
    assert_eq!((m.objects(), m.inodes_unused(), m.freeable()), (200, 100, 300));
    // Shares 128 × 200 / 301 = 85 dentries (freed: unreferenced) and 128 × 100 / 301 = 42 inodes
    // (examined: every one referenced, rotated).
    let cost = m.prune(SHRINK_BATCH);
    assert_eq!((cost.objects_scanned, cost.objects_freed), (85 + 42, 85));
    assert_eq!((m.objects(), m.inodes_unused()), (115, 185));
    assert_eq!(m.stats().inodes_unused_max, 185);
    m.check();
}

/// A dentry share of 0 (the inode LRU over 127 times the dentry LRU): 3.0–3.11's walk, counting frees
/// only, never meets its count and frees every unreferenced dentry; a walk that counts every object
/// examined (2.6.18, 3.12+) walks none.
#[test]
fn a_dentry_share_of_zero_walks_the_whole_dentry_lru_when_only_frees_count() {
    for (count, dentries_left) in [(PruneCount::Freed, 0), (PruneCount::Examined, 2)] {
        let config =
            MetadataConfig { prune_count: count, ..MetadataConfig::linux(MetadataReclaim::Conventional) };
        let mut m = MetadataCache::new(config, 1 << 30).unwrap();
        create(&mut m, 0..300);
        assert_eq!(m.prune_dentries(298).objects_freed, 298);
        assert_eq!((m.objects(), m.inodes_unused()), (2, 298));
        // Shares 128 × 2 / 301 = 0 dentries and 128 × 298 / 301 = 126 inodes (referenced: rotated).
        let cost = m.prune(SHRINK_BATCH);
        let walked = 2 - dentries_left;
        assert_eq!((cost.objects_scanned, cost.objects_freed), (walked + 126, walked), "{count:?}");
        assert_eq!((m.objects(), m.inodes_unused()), (dentries_left, 298 + walked), "{count:?}");
        m.check();
    }
}

/// Split reclaim frees a file's dentry and inode together (its object is the pair): a batch of the 14
/// files of one inode slab returns the dentry page and the four-page inode slab, and leaves no inode
/// behind on the inode LRU.
#[test]
fn split_reclaim_frees_a_dentry_with_its_inode() {
    let mut m = ext4(MetadataReclaim::Split { ratio_p_percent: 50 });
    assert_eq!(create(&mut m, 0..14), 5);
    let cost = m.free_batch();
    assert_eq!((cost.objects_freed, cost.inodes_freed, cost.freed), (14, 14, 5));
    assert_eq!((m.objects(), m.inodes(), m.pages()), (0, 0, 0));
    m.check();
}

/// Packed slabs hold a file as one object: an inode LRU of its own is refused, with the fix.
#[test]
fn an_own_inode_lru_needs_the_ext4_slabs() {
    let c = MetadataConfig { inode_lru: InodeLru::Own, ..config(4, MetadataReclaim::Conventional) };
    let err = MetadataCache::new(c, 1 << 30).unwrap_err().to_string();
    assert!(err.contains("slabs=ext4") && err.contains("inode_lru=joint"), "{err}");
}

#[test]
fn a_miss_is_not_cached_until_inserted_and_a_hit_is_counted() {
    let mut m = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    assert!(!m.lookup(7));
    create(&mut m, [7]);
    assert!(m.lookup(7));
    let s = m.stats();
    assert_eq!((s.lookups, s.hits, s.inserts, s.pages_allocated), (2, 1, 1, 1));
}

/// `do_shrink_slab`: `delta = 4 × scanned / seeks × freeable / (lru + 1)`; work under a batch is deferred
/// to the next pass; at most twice the freeable objects per pass.
#[test]
fn the_shrinker_scans_in_proportion_to_the_page_scan_and_defers_small_work() {
    let mut m = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    create(&mut m, 0..10_000);
    // 32 of 9,999 page-cache pages examined: 4 × 32 / 2 × 10,000 / 10,000 = 64 objects < 128: deferred.
    let cost = m.shrink_after_pages(32, 9_999, Gfp::Kernel);
    assert_eq!(cost.objects_scanned, 0);
    assert_eq!(m.deferred, 64);
    // The next pass adds 64 more: one batch of 128, in LRU order, unreferenced: freed, 32 pages.
    let cost = m.shrink_after_pages(32, 9_999, Gfp::Kernel);
    assert_eq!((cost.objects_scanned, cost.objects_freed, cost.freed), (128, 128, 32));
    assert_eq!(m.deferred, 0);
    // A page cache almost gone: the delta is capped at twice the freeable objects; everything is freed.
    let cost = m.shrink_after_pages(32, 0, Gfp::Kernel);
    assert_eq!(cost.objects_freed, 9_872);
    assert_eq!((m.objects(), m.pages()), (0, 0));
    m.check();
}

/// Without `__GFP_FS` the shrinker scans nothing: its count goes to `nr_deferred`, capped at twice the
/// freeable objects, and the next reclaim that may enter the file system scans it all at once.
#[test]
fn a_nofs_reclaim_defers_its_work_to_the_next_that_may_enter_the_file_system() {
    let mut m = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    create(&mut m, 0..10_000);
    // 32 of 1,999 pages: 4 × 32 / 2 × 10,000 / 2,000 = 320 objects, deferred.
    assert_eq!(m.shrink_after_pages(32, 1_999, Gfp::NoFs), ReclaimCost::default());
    assert_eq!(m.deferred(), 320);
    for _ in 0..14 {
        assert_eq!(m.shrink_after_pages(32, 1_999, Gfp::NoFs).objects_scanned, 0);
    }
    assert_eq!(m.deferred(), 4_800, "fifteen passes' work");
    for _ in 0..10 {
        m.shrink_after_pages(32, 1_999, Gfp::NoFs);
    }
    assert_eq!(m.deferred(), 5_000, "3.1's cap: half the cache while each delta is small");
    assert_eq!((m.stats().deferred_passes, m.stats().deferred_max), (25, 5_000));
    // A kernel reclaim that scanned one page takes it all: half the cache goes at once.
    let cost = m.shrink_after_pages(1, 1_999, Gfp::Kernel);
    // (5,000 + 10, capped at 5,000: 39 batches of 128, 8 left deferred.)
    assert_eq!((cost.objects_freed, m.objects(), m.deferred()), (4_992, 5_008, 8));
    // A large delta is not capped below twice the cache: a page cache all but gone.
    let cost = m.shrink_after_pages(32, 0, Gfp::Kernel);
    assert_eq!((cost.objects_freed, m.objects()), (5_008, 0));
}

/// A shrinker batch over a run of referenced objects, hand-traced: ten objects, one to a page, the five
/// oldest hit. 2.6.19–3.11 (`__shrink_dcache_sb`) count only victims: the batch of three walks past the
/// five referenced ones (bits cleared, set aside at the MRU end in walk order) and frees 5, 6, 7: eight
/// examined. 2.6.18 and 3.12+ count every object walked: the batch examines 0, 1, 2 and frees nothing.
#[test]
fn a_batch_walks_past_referenced_objects_only_when_its_count_counts_victims() {
    let setup = |prune_count| {
        let c = MetadataConfig { prune_count, ..config(1, MetadataReclaim::Conventional) };
        let mut m = MetadataCache::new(c, 1 << 30).unwrap();
        create(&mut m, 0..10);
        for ino in 0..5 {
            assert!(m.lookup(ino));
        }
        m
    };
    let mut freed = setup(PruneCount::Freed);
    let cost = freed.prune(3);
    assert_eq!((cost.objects_scanned, cost.objects_freed, cost.freed), (8, 3, 3));
    let order: Vec<(u64, bool)> = freed.lru_order();
    let unreferenced = |inos: &[u64]| inos.iter().map(|&i| (i, false)).collect::<Vec<_>>();
    assert_eq!(
        order,
        unreferenced(&[8, 9, 0, 1, 2, 3, 4]),
        "oldest first; the rotated in walk order at the MRU end"
    );
    freed.check();

    let mut examined = setup(PruneCount::Examined);
    let cost = examined.prune(3);
    assert_eq!((cost.objects_scanned, cost.objects_freed), (3, 0));
    assert_eq!(examined.objects(), 10);
}

/// Under 2.6.19–3.11's count a batch goes through the LRU at most once: with every object referenced it
/// examines each one, frees none, and leaves them all unreferenced for the next batch, which frees its
/// count.
#[test]
fn a_batch_over_an_all_referenced_lru_walks_it_once() {
    let c = MetadataConfig { first_put: FirstPut::Referenced, ..config(4, MetadataReclaim::Conventional) };
    let mut m = MetadataCache::new(c, 1 << 30).unwrap();
    create(&mut m, 0..1_000);
    let cost = m.prune(SHRINK_BATCH);
    assert_eq!((cost.objects_scanned, cost.objects_freed), (1_000, 0));
    assert!(m.lru_order().iter().all(|&(_, referenced)| !referenced));
    let cost = m.prune(SHRINK_BATCH);
    assert_eq!((cost.objects_scanned, cost.objects_freed, cost.freed), (128, 128, 32));
    m.check();
}

/// A pass at `priority` follows that priority's page scan, `lru >> priority`: about
/// `(freeable >> priority) × 4 / seeks`, at priority 12 about freeable/2048, doubling per step.
#[test]
fn the_shrinker_at_a_priority_scans_freeable_over_two_to_the_priority_times_two() {
    let mut m = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    create(&mut m, 0..1_048_576);
    let lru = (1 << 22) - 1;
    // 4 × (lru >> 12 = 1,023) / 2 × 1,048,576 / 2^22 = 511: three batches, 127 deferred.
    assert_eq!(m.shrink_at_priority(12, lru, Gfp::Kernel).objects_scanned, 384);
    assert_eq!(m.deferred, 127);
    // 4 × 4,095 / 2 × 1,048,192 / 2^22 = 2,046, plus the 127: sixteen batches, 125 deferred.
    assert_eq!(m.shrink_at_priority(10, lru, Gfp::Kernel).objects_scanned, 2_048);
    assert_eq!(m.deferred, 125);
    let mut p = m.clone();
    p.config.vfs_cache_pressure = 50;
    assert_eq!(p.freeable(), p.objects() / 2, "vfs_cache_pressure scales what the shrinker sees");
}

/// `shrink_slab()` counts a scan of no page as `SWAP_CLUSTER_MAX` (32): a reclaim that found nothing to
/// scan in a small page cache still presses the slabs, and with no page cache at all the pass is capped at
/// twice the cache, which frees it all.
#[test]
fn a_reclaim_that_scanned_no_page_presses_the_slabs_as_if_it_had_scanned_32() {
    let mut m = MetadataCache::new(config(4, MetadataReclaim::Conventional), 1 << 30).unwrap();
    create(&mut m, 0..10_000);
    // 4 × 32 / 2 × 10,000 / 1,000 = 640: five batches.
    let cost = m.shrink_after_pages(0, 999, Gfp::Kernel);
    assert_eq!((cost.objects_freed, m.deferred), (640, 0));
    // At priority 6 over 999 pages the scan is 999 >> 6 = 15 pages: 4 × 15 / 2 × 9,360 / 1,000 = 280, two
    // batches; at priority 10 it is none, counted as 32: 4 × 32 / 2 × 9,104 / 1,000 = 582, plus 24.
    let cost = m.shrink_at_priority(6, 999, Gfp::Kernel);
    assert_eq!((cost.objects_freed, m.deferred), (256, 24));
    let cost = m.shrink_at_priority(10, 999, Gfp::Kernel);
    assert_eq!((cost.objects_freed, m.deferred), (512, 94));
    let cost = m.shrink_after_pages(0, 0, Gfp::Kernel);
    assert_eq!((cost.objects_freed, m.objects(), m.pages()), (8_592, 0, 0));
    m.check();
}

/// `Md = C × P / O`, `Mb = 0.8 Md`: on 24 GiB with P = 50 % and 1,320-byte objects, 9,761,289 and
/// 7,809,031 objects.
#[test]
fn split_thresholds_are_the_papers_equations() {
    let t = Thresholds::new(24 << 30, 50, EXT4_OBJECT_BYTES);
    assert_eq!(t, Thresholds { md: 9_761_289, mb: 7_809_031 });
}

#[test]
fn iswapd_wakes_above_mb_and_frees_batches_until_it_is_not_above() {
    // 4 MiB, P = 50 %, 1 KiB objects: Md = 2048, Mb = 1638.
    let mut m =
        MetadataCache::new(config(4, MetadataReclaim::Split { ratio_p_percent: 50 }), 4 << 20).unwrap();
    assert_eq!(m.thresholds(), Some(Thresholds { md: 2048, mb: 1638 }));
    create(&mut m, 0..1638);
    assert!(!m.iswapd_awake() && !m.over_md());
    create(&mut m, [5000]);
    assert!(m.iswapd_awake());
    let mut steps = 0;
    while let Some(cost) = m.iswapd_step() {
        assert_eq!(cost.objects_freed, SHRINK_BATCH);
        steps += 1;
    }
    assert_eq!((steps, m.objects()), (1, 1639 - 128));
    assert!(!m.iswapd_awake());
    create(&mut m, 10_000..10_000 + 538);
    assert!(m.over_md(), "{} objects", m.objects());
    let cost = m.metadata_reclaim();
    assert_eq!((cost.objects_freed, m.stats().metadata_reclaims), (128, 1));
    m.check();
}

#[test]
fn a_batch_frees_its_objects_even_when_every_one_is_referenced() {
    let mut m =
        MetadataCache::new(config(4, MetadataReclaim::Split { ratio_p_percent: 50 }), 1 << 20).unwrap();
    create(&mut m, 0..200);
    for ino in 0..200 {
        m.lookup(ino);
    }
    let cost = m.free_batch();
    assert_eq!((cost.objects_scanned, cost.objects_freed), (200 + 128, 128));
}

#[test]
fn bad_configurations_are_refused_with_the_reason() {
    let bad = |c: MetadataConfig| MetadataCache::new(c, 1 << 30).unwrap_err().to_string();
    let c = MetadataConfig::linux(MetadataReclaim::Split { ratio_p_percent: 0 });
    assert!(bad(c).contains("ratio P must be 1..=100 %"), "{}", bad(c));
    assert!(bad(MetadataConfig { object_bytes: 5000, ..c }).contains("object size"));
    let conv = MetadataConfig::linux(MetadataReclaim::Conventional);
    assert!(bad(MetadataConfig { seeks: 0, ..conv }).contains("seeks"));
}

#[test]
fn the_lru_lock_serializes_reclaim_work() {
    let mut lock = LruLock::default();
    assert_eq!(lock.hold_walks(Nanos(100), [(Nanos(50), true)]), Nanos::ZERO);
    assert_eq!(
        lock.hold_walks(Nanos(120), [(Nanos(10), false)]),
        Nanos(30),
        "waits for the holder until 150"
    );
    assert_eq!(lock.hold_walks(Nanos(500), [(Nanos(10), true)]), Nanos::ZERO);
}

/// Hand-traced: a reclaim at 100 walks 3 dentries, 2 inodes, then 4 dentries at 10 ns an object, so it
/// holds the lock over [100, 130) (dentries), [130, 150) (inodes), [150, 190) (dentries). A `dput()` spins
/// until the dentry walk under way ends: not during the inode walk (another lock in the kernel), nor
/// after. A second reclaim queued behind the first walks [190, 200).
#[test]
fn a_dput_spins_until_the_dentry_walk_under_way_ends() {
    let mut lock = LruLock::default();
    assert_eq!(
        lock.hold_walks(Nanos(100), [(Nanos(30), true), (Nanos(20), false), (Nanos(40), true)]),
        Nanos::ZERO
    );
    // A reclaim's walk follows its page scan, so it may begin after the driver's clock.
    assert_eq!(lock.add_dentry(Nanos(50), Nanos(95)), Nanos::ZERO, "before the walk began");
    let spins: Vec<u64> = [100, 129, 130, 149, 150, 189, 190]
        .iter()
        .map(|&at| lock.add_dentry(Nanos(100), Nanos(at)).0)
        .collect();
    assert_eq!(spins, [30, 1, 0, 0, 40, 1, 0]);
    assert_eq!(
        lock.hold_walks(Nanos(120), [(Nanos(10), true)]),
        Nanos(70),
        "the second reclaim waits to 190"
    );
    // At 195 the first reclaim's walks are over; the second's is under way.
    assert_eq!(lock.add_dentry(Nanos(195), Nanos(195)), Nanos(5));
    assert_eq!(lock.add_dentry(Nanos(200), Nanos(200)), Nanos::ZERO);
}

/// The walks a shrinker pass hands the lock are its prunes' in order, a dentry walk and then an inode walk
/// per batch (3.x's `prune_super()`), and they add up to the pass's objects examined; split reclaim's batch
/// is one dentry walk.
#[test]
fn the_walks_under_the_lock_are_the_prunes_in_order() {
    let mut m = ext4(MetadataReclaim::Conventional);
    create(&mut m, 0..300);
    m.prune_dentries(100);
    let mut walks = Vec::new();
    m.take_walks(&mut walks);
    assert_eq!(walks, [(100, true)]);
    let cost = m.prune(SHRINK_BATCH);
    m.take_walks(&mut walks);
    assert_eq!(walks, [(85, true), (42, false)], "as traced in the batch-sharing test above");
    assert_eq!(walks.iter().map(|w| w.0).sum::<u64>(), cost.objects_scanned);
    m.take_walks(&mut walks);
    assert!(walks.is_empty(), "taken once");

    let mut split = ext4(MetadataReclaim::Split { ratio_p_percent: 50 });
    create(&mut split, 0..300);
    let cost = split.free_batch();
    split.take_walks(&mut walks);
    assert_eq!(walks, [(cost.objects_scanned, true)]);
}

proptest! {
    /// Any sequence of lookups, inserts and reclaims keeps the index, the LRU and the slab pages in
    /// agreement, and every freed page was one whose objects were all freed; new slabs of either order
    /// (an insert of an odd-numbered file takes the smallest where the cache has a smaller one, SLUB's
    /// fallback).
    #[test]
    fn any_sequence_keeps_the_cache_consistent(
        ops in prop::collection::vec((0u8..5, 0u64..300), 1..400),
        ext4 in any::<bool>(),
        examined in any::<bool>(),
        joint in any::<bool>(),
    ) {
        let split = MetadataReclaim::Split { ratio_p_percent: 10 };
        let c = if ext4 { MetadataConfig::linux(split) } else { config(3, split) };
        let prune_count = if examined { PruneCount::Examined } else { PruneCount::Freed };
        let inode_lru = if joint || !ext4 { InodeLru::Joint } else { InodeLru::Own };
        let c = MetadataConfig { prune_count, inode_lru, ..c };
        let mut m = MetadataCache::new(c, 4 << 20).unwrap();
        for (op, ino) in ops {
            match op {
                0 | 1 => {
                    if !m.lookup(ino) {
                        let held = m.iget(ino);
                        let pages_before = m.pages();
                        let mut slabs = m.full_slabs(ino);
                        if ino % 2 == 1 {
                            // The fallback, where the cache has one (ext4's inode slab).
                            for (order, cache) in slabs.iter_mut().zip(&m.slab) {
                                if cache.geometry().has_fallback() {
                                    *order = order.map(|_| SlabOrder::Min);
                                }
                            }
                        }
                        let p = m.slab_pages(&slabs);
                        m.insert(ino, slabs, held);
                        prop_assert_eq!(m.pages(), pages_before + p);
                    }
                }
                2 => { m.free_batch(); }
                3 => { m.shrink_at_priority((ino % 13) as u32, ino % 500, if ino % 2 == 0 { Gfp::Kernel } else { Gfp::NoFs }); }
                _ => { m.iswapd_step(); }
            }
            m.check();
        }
    }
}

#[test]
fn a_pressure_of_zero_is_refused() {
    let c = MetadataConfig { vfs_cache_pressure: 0, ..MetadataConfig::linux(MetadataReclaim::Conventional) };
    let err = MetadataCache::new(c, 1 << 30).unwrap_err().to_string();
    assert!(err.contains("vfs_cache_pressure 0"), "{err}");
}
