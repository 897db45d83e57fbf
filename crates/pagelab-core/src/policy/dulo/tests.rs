use super::*;
use crate::cache::KeyedCache;
use crate::key::Lbn;
use crate::policy::testing::Driver;
use crate::policy::{Clock, Lru, TwoList};
use proptest::prelude::*;

fn config(bank_pages: u32, evicting_pages: u32, rule: SequenceRule) -> DuloConfig {
    DuloConfig { bank_pages, evicting_pages, rule, sequence_pages_max: 0, tracks: None }
}

fn at(key: u64, lbn: u64, vtime: u64, prefetch: bool) -> Access {
    Access { lbn: Lbn(lbn), prefetch, ..Access::demand(key, vtime) }
}

/// §2's illustrating example (Table 1). Blocks A–D are random blocks on four tracks; X1–X4 and Y1–Y4 are
/// two 4-block files, each on its own track; an 8-block cache. Each disk request costs the Ultrastar
/// 18ZX's 6.5 ms average seek + 3.0 ms average rotation whatever its size.
mod illustrating_example {
    use super::*;

    const REQUEST_MS: f64 = 6.5 + 3.0;
    /// 8 blocks (64 sectors) a track.
    const TRACK_PAGES: u64 = 8;

    /// Keys: A=1 B=2 C=3 D=4, X1..X4 = 11..14, Y1..Y4 = 21..24.
    const STREAM: [u64; 20] = [1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24, 11, 12, 13, 14, 1, 2, 3, 4];

    /// A–D one per track far apart; X on track 12, Y on track 25.
    fn lbn(key: u64) -> u64 {
        match key {
            1..=4 => key * 40 * TRACK_PAGES,
            11..=14 => 12 * TRACK_PAGES + (key - 11),
            21..=24 => 25 * TRACK_PAGES + (key - 21),
            _ => unreachable!(),
        }
    }

    /// The file a key's block starts, when it is a file's first block: its blocks.
    fn file_from(key: u64) -> Option<std::ops::RangeInclusive<u64>> {
        match key {
            11 => Some(11..=14),
            21 => Some(21..=24),
            _ => None,
        }
    }

    /// Replays the stream; a miss is one disk request for the missing block, or, with `prefetch`, for
    /// the missing blocks of the whole file when the reference is to its first block (the prefetcher
    /// "knows the reference starts at the beginning of the file"). Returns (misses, time in ms).
    fn replay<P: Replacement>(policy: P, prefetch: bool) -> (u32, f64) {
        let mut d = Driver::new(policy);
        let mut misses = 0;
        for (t, &key) in STREAM.iter().enumerate() {
            let t = t as u64;
            if let Some(frame) = d.table.lookup(key) {
                d.policy.on_hit(frame, &at(key, lbn(key), t, false), &mut d.table.shadows());
                continue;
            }
            misses += 1;
            let wanted: Vec<u64> = match file_from(key) {
                Some(blocks) if prefetch => {
                    blocks.filter(|&k| k == key || d.table.lookup(k).is_none()).collect()
                }
                _ => vec![key],
            };
            for k in wanted {
                let a = at(k, lbn(k), t, k != key);
                if d.policy.len() == d.policy.capacity() {
                    d.evict(History::NONE);
                }
                let (frame, h) = d.announce(a);
                d.arrive(frame, a, h);
            }
        }
        (misses, misses as f64 * REQUEST_MS)
    }

    fn dulo() -> Dulo {
        // No correlation buffer: the evicting section is the whole cache, as the example's queue is.
        let mut cfg = config(4, 8, SequenceRule::Stable);
        cfg.tracks = Some(Arc::new(TrackMap::uniform(TRACK_PAGES * 8, 1 << 20)));
        Dulo::with_config(8, cfg)
    }

    #[test]
    fn without_prefetching_both_make_16_misses() {
        assert_eq!(replay(Lru::new(8), false).0, 16);
        assert_eq!(replay(Clock::new(8), false).0, 16);
        assert_eq!(replay(dulo(), false).0, 16);
    }

    #[test]
    fn with_prefetching_traditional_makes_10_misses_in_95_ms_and_dulo_7_in_66_5() {
        for (misses, ms) in [replay(Lru::new(8), true), replay(Clock::new(8), true)] {
            assert_eq!(misses, 10);
            assert!((ms - 95.0).abs() < 1e-9, "{ms} ms");
        }
        let (misses, ms) = replay(dulo(), true);
        assert_eq!(misses, 7);
        assert!((ms - 66.5).abs() < 1e-9, "{ms} ms");
    }

    /// The queue as §2 describes it: the random blocks kept on top, the sequential file at the bottom.
    #[test]
    fn dulo_places_the_file_below_the_random_blocks() {
        let mut d = Driver::new(dulo());
        for (t, key) in [1, 2, 3, 4].into_iter().enumerate() {
            let a = at(key, lbn(key), t as u64, false);
            let (f, h) = d.announce(a);
            d.arrive(f, a, h);
        }
        assert_eq!(d.state(), "C=[] B=[] E=[{4}1 {3}1 {2}1 {1}1]", "a full bank of 4 is sequenced");
        for key in 11..=14 {
            let a = at(key, lbn(key), 4, key != 11);
            let (f, h) = d.announce(a);
            d.arrive(f, a, h);
        }
        assert_eq!(d.state(), "C=[] B=[] E=[{4}1 {3}1 {2}1 {1}1 {11 12+ 13+ 14+}0.25]");
        assert_eq!(d.policy.stats().sequences, 5);
        assert_eq!(d.policy.stats().blocks_sequenced, 8);
    }
}

/// A third of the keys are anonymous pages ([`Access::mapped`]): the Linux policies start them on the
/// active list and keep them by their accessed bit; CLOCK and DULO on CLOCK take them as any other.
fn mapped(key: u64) -> bool {
    key.is_multiple_of(3)
}

fn keyed_hits<P: Replacement>(policy: P, refs: &[(u64, u64)]) -> Vec<bool> {
    let mut cache = KeyedCache::new(policy);
    refs.iter()
        .enumerate()
        .map(|(t, &(key, lbn))| {
            cache.access(&Access { mapped: mapped(key), ..at(key, lbn, t as u64, false) })
        })
        .collect()
}

proptest! {
    /// "When all sequences are random blocks (i.e., their sizes are 1), the algorithm degenerates into"
    /// CLOCK: no two blocks are adjacent on disk (key k at LBN 2k), so every sequence is one block.
    #[test]
    fn with_only_random_blocks_dulo_makes_clocks_decisions(
        keys in prop::collection::vec(0u64..60, 1..600),
        capacity in 1u32..24,
        bank in 1u32..10,
        evicting in 0u32..16,
    ) {
        let refs: Vec<(u64, u64)> = keys.iter().map(|&k| (k, 2 * k)).collect();
        let dulo = Dulo::with_config(capacity, config(bank, evicting, SequenceRule::Stable));
        prop_assert_eq!(keyed_hits(dulo, &refs), keyed_hits(Clock::new(capacity), &refs));
    }

    /// The same for `dulo-linux`: with every sequence one block, its inactive list is FIFO, as the two-list
    /// policy's is, and the active list and aging are the same.
    #[test]
    fn with_only_random_blocks_dulo_linux_makes_the_two_lists_decisions(
        keys in prop::collection::vec(0u64..60, 1..600),
        capacity in 1u32..24,
        bank in 1u32..10,
        evicting in 0u32..16,
    ) {
        let refs: Vec<(u64, u64)> = keys.iter().map(|&k| (k, 2 * k)).collect();
        let dulo = DuloLinux::with_config(capacity, config(bank, evicting, SequenceRule::Stable));
        prop_assert_eq!(keyed_hits(dulo, &refs), keyed_hits(TwoList::new(capacity), &refs));
    }

    /// Any references, both rules, random removals and readahead insertions: the policy tracks exactly
    /// what was inserted and not evicted or removed, and the block table stays bounded.
    #[test]
    fn conservation_under_the_buffer_caches_orders(
        ops in prop::collection::vec((0u64..80, 0u8..10), 1..500),
        capacity in 1u32..20,
        bank in 1u32..8,
        adjacent in any::<bool>(),
        linux in any::<bool>(),
    ) {
        let rule = if adjacent { SequenceRule::Adjacent } else { SequenceRule::Stable };
        let cfg = config(bank, 4, rule);
        let policy = if linux {
            crate::policy::AnyPolicy::DuloLinux(Box::new(DuloLinux::with_config(capacity, cfg)))
        } else {
            crate::policy::AnyPolicy::Dulo(Box::new(Dulo::with_config(capacity, cfg)))
        };
        let mut d = Driver::new(policy);
        for (t, &(key, op)) in ops.iter().enumerate() {
            let t = t as u64;
            match d.table.lookup(key) {
                Some(frame) if op == 0 => d.remove(frame),
                Some(frame) => d.hit(frame, t),
                None => {
                    if d.policy.len() == capacity {
                        d.evict(History::NONE);
                    }
                    let a = Access { mapped: mapped(key), ..at(key, key, t, op < 3) };
                    let (f, h) = d.announce(a);
                    d.arrive(f, a, h);
                }
            }
            prop_assert_eq!(d.policy.len(), d.table.len());
        }
        prop_assert!(d.policy.dulo_stats().unwrap().table_bytes <= 64 * block_table::NODE_BYTES);
        while !d.policy.is_empty() {
            d.evict(History::NONE);
        }
    }
}

/// Rule 3: blocks adjacent on disk but last sequenced in different banks stay apart under the stable
/// rule, and join under the adjacency-only rule.
#[test]
fn temporally_remote_neighbours_form_one_sequence_only_without_the_stability_rule() {
    for (rule, expected) in [
        (SequenceRule::Stable, "C=[] B=[] E=[{3 4}1.5 {1 2}1.5]"),
        (SequenceRule::Adjacent, "C=[] B=[] E=[{1 2 3 4}1.25]"),
    ] {
        // A bank of 4 and no correlation buffer (the evicting section is the cache); 90..96 are random blocks that fill the banks.
        let mut d = Driver::new(Dulo::with_config(8, config(4, 8, rule)));
        for (t, key) in [3u64, 4, 90, 92, 1, 2, 94, 96].into_iter().enumerate() {
            d.insert(key, t as u64);
        }
        assert_eq!(d.state(), "C=[] B=[] E=[{96}1 {94}1 {92}1 {90}1 {1 2}0.5 {3 4}0.5]", "{rule:?}");
        for _ in 0..8 {
            d.evict(History::NONE);
        }
        // The last victim, {96}, set L = 1. Now 1 and 2 were last sequenced at clock 2, 3 and 4 at 1.
        for (t, key) in [1u64, 2, 3, 4].into_iter().enumerate() {
            d.insert(key, 10 + t as u64);
        }
        assert_eq!(d.state(), expected, "{rule:?}");
    }
}

#[test]
fn a_track_boundary_and_the_size_limit_cut_sequences() {
    // Tracks of 2 blocks (16 sectors): blocks 0-1, 2-3, 4-5, ...
    let mut cfg = config(6, 6, SequenceRule::Stable);
    cfg.tracks = Some(Arc::new(TrackMap::uniform(16, 1 << 10)));
    let mut d = Driver::new(Dulo::with_config(6, cfg));
    for key in 0..6 {
        d.insert(key, key);
    }
    assert_eq!(d.state(), "C=[] B=[] E=[{4 5}0.5 {2 3}0.5 {0 1}0.5]");
    let mut cfg = config(6, 6, SequenceRule::Stable);
    cfg.sequence_pages_max = 4;
    let mut d = Driver::new(Dulo::with_config(6, cfg));
    for key in 0..6 {
        d.insert(key, key);
    }
    assert_eq!(d.state(), "C=[] B=[] E=[{4 5}0.5 {0 1 2 3}0.25]");
}

#[test]
fn track_map_with_zones() {
    // Tracks of 12 sectors (1.5 blocks) up to sector 48, then of 16 sectors.
    let m = TrackMap::new(vec![0, 12, 24, 36, 48, 64, 80, 96]);
    // Block b starts at sector 8b: 0, 8 | 16 | 24, 32 | 40 | 48, 56 | 64, 72 | ...
    let same: Vec<bool> = (0..9).map(|b| m.same_track(Lbn(b))).collect();
    assert_eq!(same, vec![true, false, false, true, false, false, true, false, true]);
    assert_eq!(TrackMap::uniform(16, 64).tracks(), 4);
}

/// A young block at the bottom gets its second chance at the top of the correlation buffer, and the
/// partly evicted victim sequence keeps the bottom until it is gone.
#[test]
fn young_blocks_return_to_the_buffer_and_the_victim_sequence_stays_at_the_bottom() {
    let mut d = Driver::new(Dulo::with_config(6, config(3, 5, SequenceRule::Stable)));
    // Buffer of 1: blocks 10, 11, 12 reach the bank and form one sequence; 50 and 70 stay random.
    let f: Vec<FrameId> =
        [10u64, 11, 12, 50].iter().enumerate().map(|(t, &k)| d.insert(k, t as u64)).collect();
    assert_eq!(d.state(), "C=[50] B=[] E=[{10 11 12}0.3333333333333333]");
    d.hit(f[1], 5);
    assert_eq!(d.evict(History::NONE), f[0]);
    assert_eq!(d.state(), "C=[50] B=[] E=[{11* 12}0.3333333333333333]");
    // 11 is young: back to the buffer's top, pushing 50 into the bank; 12 is the victim.
    assert_eq!(d.evict(History::NONE), f[2]);
    assert_eq!(d.state(), "C=[11] B=[50] E=[]");
    assert_eq!(d.policy.stats().second_chances, 1);
    // Nothing left in the evicting section: the bank is sequenced as it is.
    assert_eq!(d.evict(History::NONE), f[3]);
    assert_eq!(d.state(), "C=[11] B=[] E=[]");
    d.remove(f[1]);
    assert!(d.policy.is_empty());
}

/// §4.2: pages demoted from the active list are marked and sequenced apart from new pages, though
/// adjacent on disk; a referenced inactive page is promoted out of the sections.
#[test]
fn dulo_linux_sequences_demoted_pages_apart_from_new_ones() {
    // Four frames, a bank of 2, an evicting section of 2: the buffer holds what the list has beyond it.
    let mut d = Driver::new(DuloLinux::with_config(4, config(2, 2, SequenceRule::Adjacent)));
    let a = d.insert(1, 0);
    d.hit(a, 1);
    assert_eq!(d.state(), "active=[1] C=[] B=[] E=[]", "referenced at its miss, promoted by its hit");
    d.insert(2, 2);
    d.insert(3, 3);
    d.insert(10, 4);
    assert_eq!(d.state(), "active=[1] C=[10*] B=[] E=[{2* 3*}0.5]");
    // Aging owes a third of a page (active 1 : inactive 3): nothing is demoted; 2 is the victim.
    assert_eq!(d.evict(History::NONE), 1);
    d.insert(4, 5);
    assert_eq!(d.state(), "active=[1] C=[4*] B=[10*] E=[{3*}0.5]", "the list shrank: 10 left the buffer");

    // New pages 2 and 3, adjacent, form one sequence; a demoted 2 and a new 3 form two.
    let mut d = Driver::new(DuloLinux::with_config(4, config(2, 2, SequenceRule::Adjacent)));
    d.insert(3, 0);
    d.insert(2, 1);
    assert_eq!(d.state(), "active=[] C=[] B=[] E=[{2* 3*}0.5]");
    let mut d = Driver::new(DuloLinux::with_config(4, config(2, 2, SequenceRule::Adjacent)));
    let two = d.insert(2, 0);
    d.hit(two, 1);
    let three = d.insert(3, 2);
    // Active 1 : inactive 1 owes one page: 2 is demoted into the bank beside 3, which is older.
    assert_eq!(d.evict(History::NONE), three);
    assert_eq!(d.state(), "active=[] C=[] B=[] E=[{2}1]", "promotion cleared its bit");
    assert_eq!(d.policy.stats().sequences, 2);
}

/// A measured period's counts are the difference of two snapshots; the table's sizes are not counts.
#[test]
fn stats_since_a_snapshot_count_the_period() {
    let mut d = Driver::new(Dulo::with_config(4, config(2, 4, SequenceRule::Stable)));
    d.insert(1, 0);
    d.insert(2, 1);
    let start = d.policy.stats();
    assert_eq!((start.sequencings, start.blocks_sequenced, start.adjacent_pairs), (1, 2, 1));
    d.insert(5, 2);
    d.insert(7, 3);
    let now = d.policy.stats();
    let period = now.since(&start);
    assert_eq!((period.sequencings, period.blocks_sequenced, period.sequences), (1, 2, 2));
    assert_eq!(period.adjacent_pairs, 0, "5 and 7 are not adjacent");
    assert_eq!((period.table_bytes, period.table_bytes_max), (now.table_bytes, now.table_bytes_max));
}
