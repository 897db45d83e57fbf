//! The oracle of the engine's seams: the buffer cache, driven as the simulator drives it (a `read()` call,
//! its fetch, the fetch's completion) with no prefetching, one-page reads and a memory of exactly N frames,
//! makes exactly the decisions of `pagelab cachesim` (`simulate_keys`) on the shipped real traces, under
//! every policy a running server can use. A policy that kept per-reference state between its hooks (ARC's
//! and 2Q's one-slot note of the incoming key, before the `on_miss` protocol) or treated the buffer cache's
//! insertion as an extra reference would miss or hit differently somewhere in these millions of references.
//!
//! OPT is left out: it needs each reference's next use, which a buffer cache's drivers (a simulated or a
//! live server) do not have; `pagelab simulate` refuses it.

mod common;

use common::pages;
use pagelab_cli::cachesim::simulate_keys;
use pagelab_core::buffer::{
    BufferCache, BufferCacheConfig, Counters, DiskRun, Layout, ReadOutcome, ReadStatus,
};
use pagelab_core::memory::MemoryConfig;
use pagelab_core::policy::PolicyKind;
use pagelab_core::{FileId, Lbn, Nanos, PageKey, StreamId};

/// A block trace's pseudo-file: page i at disk location i.
struct Identity;
impl Layout for Identity {
    fn runs(&self, _: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        out.push(DiskRun { file_page: start, lbn: Lbn(start), pages: n });
    }
}

/// Misses of the buffer cache on `keys`, one one-page `read()` per reference, each fetch completing at
/// once.
fn buffer_cache_misses(kind: PolicyKind, size: u32, keys: &[u64]) -> u64 {
    let config = BufferCacheConfig::new(MemoryConfig::exact(size), kind, "none".parse().unwrap());
    let mut cache = BufferCache::with_observer(config, Counters::default()).unwrap();
    let mut out = ReadOutcome::default();
    let file_pages = PageKey::INDEX_MAX + 1;
    for (t, &key) in keys.iter().enumerate() {
        let now = Nanos(t as u64);
        let mut cursor =
            cache.begin_read(now, StreamId(1), FileId::BLOCK_DEVICE, key, key + 1, file_pages).unwrap();
        cache.read(now, &mut cursor, &Identity, &mut out).unwrap();
        if let ReadStatus::Blocked { .. } = out.status {
            let fetch = out.fetches[0];
            cache.fetch_done(now, &fetch).unwrap();
            cache.read(now, &mut cursor, &Identity, &mut out).unwrap();
        }
        assert_eq!(out.status, ReadStatus::Done, "{kind}: reference {t} (key {key}) did not finish");
    }
    let c = cache.observer();
    assert_eq!(c.hits + c.misses, keys.len() as u64);
    c.misses
}

fn check(rel: &str, fractions: &[f64]) {
    let trace = pages(rel, false);
    assert!(trace.keys.iter().all(|&k| k <= PageKey::INDEX_MAX), "{rel}: a key beyond one file");
    for kind in PolicyKind::ALL.into_iter().filter(|k| !k.needs_future()) {
        for &fraction in fractions {
            let size = ((trace.distinct as f64 * fraction) as u32).max(1);
            let expected = simulate_keys(kind, size as u64, &trace.keys, None).misses;
            let got = buffer_cache_misses(kind, size, &trace.keys);
            assert_eq!(
                got, expected,
                "{rel}: {kind} at {size} pages: buffer cache {got} misses, cachesim {expected}"
            );
        }
    }
}

#[test]
fn lirs_multi1_multi2_and_sprite() {
    for name in ["multi1", "multi2", "sprite"] {
        check(&format!("lirs/{name}.trace.gz"), &[0.01, 0.1, 0.5]);
    }
}

#[test]
fn arc_p3() {
    check("arc/P3.lis.zst", &[0.1]);
}

#[test]
fn cloudphysics() {
    check("libcachesim/cloudPhysicsIO.csv", &[0.01, 0.1]);
}
