//! The engine without FUSE: concurrent reads of real files through a small budget return the source's bytes
//! under every policy and prefetch cache, and memory stays within the budget. Runs everywhere (no /dev/fuse
//! needed).

mod common;

use common::{byte, make_source, sizes, Watchdog};
use pagelab_core::FileId;
use pagelab_fs::engine::Engine;
use pagelab_fs::source::{FallbackDisk, SourceFile};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

fn read(
    engine: &Engine,
    stream: pagelab_core::StreamId,
    f: &Arc<SourceFile>,
    offset: u64,
    size: u32,
) -> Vec<u8> {
    let (tx, rx) = mpsc::channel();
    engine.read(
        stream,
        stream.0, // a thread per stream
        Arc::clone(f),
        offset,
        size,
        Box::new(move |r| {
            let _ = tx.send(r.map(<[u8]>::to_vec));
        }),
    );
    rx.recv_timeout(Duration::from_secs(30)).expect("a read is answered").expect("a read succeeds")
}

/// An engine of `memory` over `files` (in `dir`), and the files opened for it.
fn engine_over(
    dir: &std::path::Path,
    files: &[std::path::PathBuf],
    memory: &str,
    policy: &str,
    prefetch_cache: &str,
    memory_model: &str,
    device: Option<&str>,
) -> (Arc<Engine>, Vec<Arc<SourceFile>>) {
    let mut spec = common::spec(memory, policy, prefetch_cache);
    spec.memory_model = memory_model.into();
    spec.emulate_device = device.map(str::to_string);
    let engine = Engine::start(spec.engine_config().unwrap()).unwrap();
    let fallback = FallbackDisk::default();
    let open = |(i, rel): (usize, &std::path::PathBuf)| {
        Arc::new(SourceFile::open(FileId(10 + i as u32), &dir.join(rel), &fallback).unwrap())
    };
    (engine, files.iter().enumerate().map(open).collect())
}

fn run(policy: &str, prefetch_cache: &str, memory_model: &str, device: Option<&str>) {
    let _dog = Watchdog::new("engine reads", Duration::from_secs(120));
    let dir = tempfile::tempdir().unwrap();
    let sizes = sizes(12, 3 << 20, 7);
    let files = make_source(dir.path(), &sizes);
    let (engine, sources) =
        engine_over(dir.path(), &files, "6MiB", policy, prefetch_cache, memory_model, device);
    std::thread::scope(|s| {
        for t in 0..6u64 {
            let (engine, sources, sizes) = (&engine, &sources, &sizes);
            s.spawn(move || {
                let mut rng = common::rng(t);
                for round in 0..40 {
                    let i = common::gen_range(&mut rng, sources.len() as u64) as usize;
                    let stream = engine.open_stream(&sources[i]);
                    if (t + round) % 2 == 0 {
                        // Sequential, whole file, in 128 KiB requests.
                        let mut off = 0;
                        while off < sizes[i] {
                            let got = read(engine, stream, &sources[i], off, 128 << 10);
                            assert!(
                                got.iter().enumerate().all(|(k, &b)| b == byte(i, off + k as u64)),
                                "{policy}"
                            );
                            off += got.len() as u64;
                        }
                    } else {
                        for _ in 0..8 {
                            let off = common::gen_range(&mut rng, sizes[i] + 100);
                            let len = 1 + common::gen_range(&mut rng, 40_000) as u32;
                            let got = read(engine, stream, &sources[i], off, len);
                            let want = sizes[i].saturating_sub(off).min(len as u64);
                            assert_eq!(got.len() as u64, want);
                            assert!(
                                got.iter().enumerate().all(|(k, &b)| b == byte(i, off + k as u64)),
                                "{policy}"
                            );
                        }
                    }
                    engine.close_stream(stream, sources[i].file);
                    engine.check_budget().unwrap();
                }
            });
        }
    });
    let stats = engine.stats();
    assert!(stats.pages.misses > 0 && stats.pages.hits > 0, "{stats:?}");
    assert!(stats.pages.evicted > 0, "a 6 MiB budget under ~18 MiB of files evicts: {stats:?}");
    assert_eq!(stats.read_errors, 0);
    assert_eq!(stats.reads_waiting, 0);
    if device.is_some() {
        assert!(stats.device.requests > 0, "every miss went through the emulated device: {stats:?}");
    }
    engine.shutdown();
}

#[test]
fn concurrent_reads_return_the_source_bytes_under_linux() {
    run("linux", "access-history", "linux-2.6", None);
}

#[test]
fn concurrent_reads_return_the_source_bytes_with_the_prefetch_cache() {
    run("linux", "pc-coldest+", "linux-2.6", None);
}

#[test]
fn concurrent_reads_return_the_source_bytes_under_dulo_and_an_exact_budget() {
    run("dulo", "pc-longest", "exact", None);
}

/// Misses wait for an emulated SSD (several channels) behind the anticipatory scheduler, run in real time
/// by the device's dispatcher thread: the bytes are still the source's, and shutdown stops it.
#[test]
fn concurrent_reads_return_the_source_bytes_behind_an_emulated_device() {
    run("linux", "pc-coldest+", "linux-2.6", Some("ssd"));
}

#[test]
fn a_read_past_the_end_is_empty_and_one_across_it_is_short() {
    let dir = tempfile::tempdir().unwrap();
    let files = make_source(dir.path(), &[10_000]);
    let engine =
        Engine::start(common::spec("4MiB", "lru", "access-history").engine_config().unwrap()).unwrap();
    let f =
        Arc::new(SourceFile::open(FileId(3), &dir.path().join(&files[0]), &FallbackDisk::default()).unwrap());
    let stream = engine.open_stream(&f);
    assert!(read(&engine, stream, &f, 10_000, 4096).is_empty());
    assert_eq!(read(&engine, stream, &f, 9_000, 4096).len(), 1_000);
    engine.shutdown();
}

#[test]
fn reads_that_find_every_frame_in_flight_or_pinned_wait_and_finish() {
    // 64 frames for 8 readers of 128 KiB (32 pages) each, with readahead: reads must wait for memory
    // (NoMemory) while other reads' pages are in flight or pinned until copied, and every one finishes.
    let _dog = Watchdog::new("no memory", Duration::from_secs(120));
    let dir = tempfile::tempdir().unwrap();
    let sizes = vec![1u64 << 20; 4];
    let files = make_source(dir.path(), &sizes);
    let (engine, sources) = engine_over(dir.path(), &files, "256KiB", "lru", "access-history", "exact", None);
    std::thread::scope(|s| {
        for t in 0..8usize {
            let (engine, sources) = (&engine, &sources);
            s.spawn(move || {
                let i = t % sources.len();
                let stream = engine.open_stream(&sources[i]);
                let mut off = 0;
                while off < 1 << 20 {
                    let got = read(engine, stream, &sources[i], off, 128 << 10);
                    assert!(got.iter().enumerate().all(|(k, &b)| b == byte(i, off + k as u64)));
                    off += got.len() as u64;
                    engine.check_budget().unwrap();
                }
                engine.close_stream(stream, sources[i].file);
            });
        }
    });
    assert_eq!(engine.stats().reads_waiting, 0);
    engine.shutdown();
}

/// A fetch whose read fails (issue 10's `fetch_failed`): the source is a directory, so `preadv` answers
/// EISDIR. Every read of it fails with that errno, the first and any reader that waited on the same fetch
/// alike; the failed fetch's frames go back to the budget (nothing stays resident or in flight), no read
/// is left waiting, and the engine goes on serving a good file afterwards.
#[test]
fn a_fetch_that_fails_fails_its_readers_and_frees_its_frames() {
    let _dog = Watchdog::new("failed fetch", Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let files = make_source(dir.path(), &[64 << 10]);
    std::fs::create_dir(dir.path().join("not-a-file")).unwrap();
    // An entry, so that the directory's size is not 0 on file systems that size a directory by its names.
    std::fs::write(dir.path().join("not-a-file/entry"), b"x").unwrap();
    let engine =
        Engine::start(common::spec("4MiB", "linux", "access-history").engine_config().unwrap()).unwrap();
    let fallback = FallbackDisk::default();
    let bad = Arc::new(SourceFile::open(FileId(5), &dir.path().join("not-a-file"), &fallback).unwrap());
    assert!(bad.size_bytes > 0, "a directory's size names at least one page to read");
    let good = Arc::new(SourceFile::open(FileId(6), &dir.path().join(&files[0]), &fallback).unwrap());
    let stream = engine.open_stream(&bad);
    // Two reads of the same page issued back to back: the second finds the first's fetch in flight and
    // waits on it, or (if that fetch already failed) issues its own; either way both fail.
    let (tx, rx) = mpsc::channel();
    for _ in 0..2 {
        let tx = tx.clone();
        engine.read(
            stream,
            stream.0,
            Arc::clone(&bad),
            0,
            4096,
            Box::new(move |r| {
                let _ = tx.send(r.map(<[u8]>::to_vec));
            }),
        );
    }
    for _ in 0..2 {
        let got = rx.recv_timeout(Duration::from_secs(30)).expect("a failed read is answered");
        assert_eq!(got, Err(libc::EISDIR));
    }
    engine.close_stream(stream, bad.file);
    let stats = engine.stats();
    assert_eq!((stats.read_errors, stats.reads_waiting), (2, 0), "{stats:?}");
    assert_eq!((stats.resident_bytes, stats.in_flight_bytes), (0, 0), "the failed fetch's frames went back");
    engine.check_budget().unwrap();
    let stream = engine.open_stream(&good);
    let got = read(&engine, stream, &good, 0, 64 << 10);
    assert!(got.iter().enumerate().all(|(k, &b)| b == byte(0, k as u64)));
    engine.close_stream(stream, good.file);
    assert_eq!(engine.stats().read_errors, 2);
    engine.shutdown();
}
