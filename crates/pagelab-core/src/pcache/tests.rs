//! Hand-traced tests of the prefetch cache's reclamation orders (papers/000 §3.1).

use super::*;

const A: StreamId = StreamId(1);
const B: StreamId = StreamId(2);
const C: StreamId = StreamId(3);
const D: StreamId = StreamId(4);

fn cache(order: ReclaimOrder) -> PrefetchCache {
    let config = PrefetchCacheConfig { order, partition: Partition::Fixed { percent: 0 }, seed: 0 };
    PrefetchCache::new(config, 64, 64, 64)
}

/// Insert `frames` as pages `frame` of `file` prefetched by `owner` at `t_ns`.
fn prefetch(pc: &mut PrefetchCache, owner: StreamId, file: u32, frames: &[u32], t_ns: u64) {
    for &f in frames {
        pc.insert(f, (owner, FileId(file), f as u64), true, 0, Nanos(t_ns));
    }
    pc.check();
}

fn victims(pc: &mut PrefetchCache, n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    pc.reclaim(n, Nanos(1_000), &mut out);
    pc.check();
    out
}

#[test]
fn access_history_is_fifo_over_all_streams() {
    let mut pc = cache(ReclaimOrder::AccessHistory);
    prefetch(&mut pc, A, 1, &[0, 1], 10);
    prefetch(&mut pc, B, 2, &[2, 3], 20);
    prefetch(&mut pc, A, 1, &[4], 30);
    // An exited owner's pages get no precedence under FIFO.
    pc.owner_exited(B);
    assert_eq!(victims(&mut pc, 5), [0, 1, 2, 3, 4]);
    assert_eq!((pc.pages(), pc.streams()), (0, 0));
}

/// Stream (A, 1) holds 0 1 2 from t=10, (B, 2) 3 4 from t=20, (A, 3) 5 from t=30; A uses page 1 at t=40,
/// so (A, 1) is the hottest. Coldest: (B, 2) newest first — 4 3 —, then (A, 3) — 5 —, then (A, 1) — 2 0.
#[test]
fn coldest_takes_the_least_recently_accessed_stream_newest_page_first() {
    let mut pc = cache(ReclaimOrder::Coldest);
    prefetch(&mut pc, A, 1, &[0, 1, 2], 10);
    prefetch(&mut pc, B, 2, &[3, 4], 20);
    prefetch(&mut pc, A, 3, &[5], 30);
    assert!(pc.take_out(1, Nanos(40)));
    assert!(!pc.contains(1));
    assert!(!pc.take_out(1, Nanos(41)), "a page leaves once");
    assert_eq!(victims(&mut pc, 5), [4, 3, 5, 2, 0]);
}

/// Lengths 3 (S1: 0 1 2), 2 (S2: 3 4), 3 (S3: 5 6 7), created in that order. Longest, ties to the oldest:
/// S1 → 2; S3 → 7; all at 2 → S1 → 1; S2 and S3 at 2 → S2 → 4; S3 → 6; all at 1 → S1 0, S2 3, S3 5.
#[test]
fn longest_takes_the_longest_stream_ties_to_the_oldest() {
    let mut pc = cache(ReclaimOrder::Longest);
    prefetch(&mut pc, A, 1, &[0, 1, 2], 10);
    prefetch(&mut pc, B, 2, &[3, 4], 20);
    prefetch(&mut pc, C, 3, &[5, 6, 7], 30);
    assert_eq!(victims(&mut pc, 8), [2, 7, 1, 4, 6, 0, 3, 5]);
    // Batches of one give the same order.
    let mut single = cache(ReclaimOrder::Longest);
    prefetch(&mut single, A, 1, &[0, 1, 2], 10);
    prefetch(&mut single, B, 2, &[3, 4], 20);
    prefetch(&mut single, C, 3, &[5, 6, 7], 30);
    let one_by_one: Vec<u32> = (0..8).flat_map(|_| victims(&mut single, 1)).collect();
    assert_eq!(one_by_one, [2, 7, 1, 4, 6, 0, 3, 5]);
}

/// Owners' CPU since they last accessed their stream: B 10 ms, A 5 ms, D and C none (D's stream is colder
/// by wall clock, t=5 against t=30). Coldest+: B, A, D, C — though by wall clock alone D would go first.
#[test]
fn coldest_plus_ranks_by_owner_cpu_since_last_access() {
    let mut pc = cache(ReclaimOrder::ColdestPlus);
    prefetch(&mut pc, D, 4, &[6], 5);
    prefetch(&mut pc, A, 1, &[0, 1], 10);
    prefetch(&mut pc, B, 2, &[2, 3], 20);
    prefetch(&mut pc, C, 3, &[4, 5], 30);
    pc.owner_cpu(A, 5_000_000);
    pc.owner_cpu(B, 10_000_000);
    assert_eq!(victims(&mut pc, 7), [3, 2, 1, 0, 6, 5, 4]);
}

/// An access resets the CPU clock of the stream: A used 10 ms, then accessed its stream, then 1 ms; B used
/// 5 ms. B's stream goes first.
#[test]
fn coldest_plus_counts_cpu_from_the_last_access() {
    let mut pc = cache(ReclaimOrder::ColdestPlus);
    prefetch(&mut pc, A, 1, &[0, 1, 2], 10);
    prefetch(&mut pc, B, 2, &[3, 4], 20);
    pc.owner_cpu(A, 10_000_000);
    pc.owner_cpu(B, 5_000_000);
    pc.take_out(0, Nanos(30));
    pc.owner_cpu(A, 1_000_000);
    assert_eq!(victims(&mut pc, 4), [4, 3, 2, 1]);
}

/// Heuristic #1 under each stream order: B exits; its pages go first, newest first, though A's stream is
/// colder (wall), longer, and its owner used more CPU.
#[test]
fn an_exited_owners_pages_go_first() {
    for order in
        [ReclaimOrder::Longest, ReclaimOrder::Coldest, ReclaimOrder::ColdestPlus, ReclaimOrder::Optimal]
    {
        let mut pc = cache(order);
        if order == ReclaimOrder::Optimal {
            pc.declare(A, FileId(1), 0, 64);
            pc.declare(B, FileId(2), 0, 64);
        }
        prefetch(&mut pc, A, 1, &[0, 1, 2], 10);
        prefetch(&mut pc, B, 2, &[3, 4], 20);
        pc.owner_cpu(A, 10_000_000);
        pc.owner_exited(B);
        assert_eq!(victims(&mut pc, 3), [4, 3, 2], "{order:?}");
        assert_eq!(pc.stats().reclaimed_exited, 2, "{order:?}");
        // Pages an exited owner prefetched arrive after its exit: they are victims at once.
        pc.insert(5, (B, FileId(2), 5), false, 0, Nanos(30));
        assert_eq!(victims(&mut pc, 1), [5], "{order:?}");
    }
}

/// `pc-optimal`: A declared pages 0..2 of file 1; pages 2 and 3 are prefetched but will never be read
/// (rule A): they go first, oldest first, before Coldest+ picks among the rest.
#[test]
fn optimal_takes_pages_their_owner_will_not_read_first() {
    let mut pc = cache(ReclaimOrder::Optimal);
    assert!(pc.wants_declared_reads());
    pc.declare(A, FileId(1), 0, 2);
    pc.declare(B, FileId(2), 0, 64);
    prefetch(&mut pc, B, 2, &[10, 11], 5);
    prefetch(&mut pc, A, 1, &[0, 1, 2, 3], 10);
    pc.owner_cpu(B, 1_000_000);
    assert_eq!(victims(&mut pc, 6), [2, 3, 11, 10, 1, 0]);
    assert_eq!(pc.stats().reclaimed_unneeded, 2);
    // Declarations are forgotten at exit, and other orders ignore them.
    pc.owner_exited(A);
    assert!(pc.declared.is_empty() || !pc.declared.contains_key(&A.0));
    let mut coldest = cache(ReclaimOrder::Coldest);
    coldest.declare(A, FileId(1), 0, 2);
    assert!(coldest.declared.is_empty());
}

#[test]
fn removed_and_used_pages_leave_their_streams() {
    let mut pc = cache(ReclaimOrder::AccessHistory);
    prefetch(&mut pc, A, 1, &[0, 1, 2], 10);
    assert!(pc.remove(1));
    assert!(!pc.remove(1));
    assert!(pc.take_out(0, Nanos(20)));
    pc.check();
    assert_eq!((pc.pages(), pc.streams()), (1, 1));
    assert!(pc.take_out(2, Nanos(30)));
    pc.check();
    assert_eq!((pc.pages(), pc.streams()), (0, 0));
    assert_eq!((pc.stats().inserted, pc.stats().used, pc.stats().removed), (3, 2, 1));
}

#[test]
fn the_spec_names_every_order() {
    for name in PrefetchCacheConfig::NAMES {
        let parsed = PrefetchCacheConfig::parse(name, 1).unwrap();
        match parsed {
            None => assert_eq!(name, "access-history"),
            Some(c) => {
                assert_eq!(c.spec(), name);
                assert_eq!(c.partition, Partition::GradientDescent(Descent::DEFAULT));
            }
        }
    }
    let fixed = PrefetchCacheConfig::parse("pc-coldest+:fixed=30%", 1).unwrap().unwrap();
    assert_eq!(fixed.partition, Partition::Fixed { percent: 30 });
    assert_eq!(fixed.spec(), "pc-coldest+:fixed=30%");
    let explored = PrefetchCacheConfig::parse("pc-coldest+:epoch=10s,step=2%", 1).unwrap().unwrap();
    let descent = Descent { epoch: Nanos::from_secs(10), step_percent: 2 };
    assert_eq!(explored.partition, Partition::GradientDescent(descent));
    assert_eq!(explored.spec(), "pc-coldest+:epoch=10s,step=2%");
    assert_eq!(PrefetchCacheConfig::parse(&explored.spec(), 1).unwrap(), Some(explored));
    for bad in [
        "pc-warmest",
        "pc-coldest:fixed=120%",
        "pc-coldest:fixed=x",
        "pc-coldest:epoch=0s",
        "pc-coldest:step=0%",
        "pc-coldest:window=2s",
    ] {
        assert!(PrefetchCacheConfig::parse(bad, 1).is_err(), "{bad}");
    }
}

/// The paper's accounting: 8 bytes per page and 20 bytes per history entry for 40 % of the pages: 0.39 %.
#[test]
fn space_overhead_is_about_four_tenths_of_a_percent() {
    let config = PrefetchCacheConfig {
        order: ReclaimOrder::ColdestPlus,
        partition: Partition::GradientDescent(Descent::DEFAULT),
        seed: 0,
    };
    let pc = PrefetchCache::new(config, 131_072, 131_072, 125_000);
    let o = pc.space_overhead(131_072);
    assert!((o.paper_fraction - (8.0 + 0.4 * 20.0) / 4096.0).abs() < 1e-6, "{o:?}");
    assert!((0.0035..0.0045).contains(&o.paper_fraction));
    assert!(o.pagelab_fraction > 0.0 && o.pagelab_fraction < 0.02, "{o:?}");
}

/// A live driver reuses stream ids: an exited owner's pages stay victims of heuristic #1, and a new owner
/// of the same id starts streams of its own.
#[test]
fn a_reused_owner_id_does_not_inherit_exited_pages() {
    let mut pc = cache(ReclaimOrder::Coldest);
    prefetch(&mut pc, A, 1, &[0, 1], 10);
    prefetch(&mut pc, B, 2, &[5], 5);
    pc.owner_exited(A);
    pc.owner_opened(A);
    pc.check();
    prefetch(&mut pc, A, 1, &[2, 3], 20);
    assert_eq!(pc.streams(), 3);
    // The old A's pages first (exited), then by coldness: B (t=5), then the new A (t=20).
    assert_eq!(victims(&mut pc, 5), [1, 0, 5, 3, 2]);
}
