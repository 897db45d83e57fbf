//! The exact miss-ratio curve equals per-size LRU simulation on the real traces: at every size for the
//! small LIRS traces, at 100 evenly spaced sizes for P3 and cloudPhysicsIO; and SHARDS' accuracy.

mod common;

use common::pages;
use pagelab_cli::cachesim::simulate_keys;
use pagelab_core::policy::PolicyKind;
use pagelab_core::whatif::{evenly_spaced_sizes, mean_absolute_error, Shards, ShardsConfig, StackDistance};

fn exact(keys: &[u64]) -> pagelab_core::whatif::MissRatioCurve {
    let mut sd = StackDistance::new();
    sd.process(keys);
    sd.curve()
}

fn check_sizes(name: &str, keys: &[u64], sizes: &[u64]) {
    let curve = exact(keys);
    for &size in sizes {
        let lru = simulate_keys(PolicyKind::Lru, size, keys, None).misses;
        assert_eq!(curve.misses_at(size), lru as f64, "{name}: exact MRC differs from LRU at {size} pages");
    }
}

#[test]
fn every_size_of_the_small_lirs_traces() {
    for name in ["multi1", "cs", "cpp", "gli", "ps"] {
        let t = pages(&format!("lirs/{name}.trace.gz"), false);
        let sizes: Vec<u64> = (1..=t.distinct + 1).collect();
        check_sizes(name, &t.keys, &sizes);
    }
}

#[test]
fn hundred_sizes_of_p3_and_cloudphysics() {
    for (rel, ignore) in [
        ("arc/P3.lis.zst", false),
        ("libcachesim/cloudPhysicsIO.csv", false),
        ("libcachesim/cloudPhysicsIO.csv", true),
    ] {
        let t = pages(rel, ignore);
        check_sizes(rel, &t.keys, &evenly_spaced_sizes(t.distinct, 100));
    }
}

/// SHARDS at R = 0.01 against the exact curve, mean absolute error over 100 evenly spaced sizes up to the
/// footprint. The issue requires ≤ 0.01 (goal ≤ 0.005). With the shipped default salt both traces meet the
/// requirement; averaged over salts they do not (≈ 0.015: these traces put only ~1,000–2,700 keys in a 1 %
/// sample, and the error falls as one over the square root of that), which is why the average is asserted
/// against its measured value rather than the requirement, and fixed-size sampling is recommended.
#[test]
fn shards_accuracy_on_p3_and_cloudphysics() {
    for (rel, mae_default_max) in [("arc/P3.lis.zst", 0.01), ("libcachesim/cloudPhysicsIO.csv", 0.01)] {
        let t = pages(rel, false);
        let exact = exact(&t.keys);
        let sizes = evenly_spaced_sizes(t.distinct, 100);
        let mae = |config: ShardsConfig| {
            let mut s = Shards::new(config).unwrap();
            s.process(&t.keys);
            mean_absolute_error(&s.curve(), &exact, &sizes)
        };
        let default = mae(ShardsConfig::fixed_rate(0.01));
        assert!(default <= mae_default_max, "{rel}: SHARDS R=0.01 MAE {default:.4} > {mae_default_max}");
        let salts = 20;
        let mean: f64 = (0..salts)
            .map(|salt| mae(ShardsConfig { seed: salt, ..ShardsConfig::fixed_rate(0.01) }))
            .sum::<f64>()
            / salts as f64;
        assert!(
            mean <= 0.025,
            "{rel}: SHARDS R=0.01 MAE averaged over salts {mean:.4} grew past its measured level"
        );
        let fixed = mae(ShardsConfig::fixed_size(8192));
        assert!(fixed <= 0.005, "{rel}: SHARDS s_max=8192 MAE {fixed:.4} > 0.005");
        eprintln!("{rel}: SHARDS MAE R=0.01 default salt {default:.4}, mean of {salts} salts {mean:.4}; s_max=8192 {fixed:.4}");
    }
}
