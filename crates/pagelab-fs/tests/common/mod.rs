//! Shared by the live tests: a source directory of files with known contents, the engine's configuration,
//! and a watchdog.
#![allow(dead_code)]

use pagelab_fs::LiveSpec;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub fn spec(memory: &str, policy: &str, prefetch_cache: &str) -> LiveSpec {
    LiveSpec {
        memory: memory.into(),
        memory_model: "linux-2.6".into(),
        policy: policy.into(),
        prefetch: "linux".into(),
        prefetch_cache: prefetch_cache.into(),
        metadata: "none".into(),
        whatif: None,
        emulate_device: None,
        scheduler: None,
        nr_requests: None,
        io_threads: 8,
        seed: 1,
    }
}

/// The byte at `offset` of file `i`: a function of both, so any misplaced page shows.
pub fn byte(i: usize, offset: u64) -> u8 {
    let x = offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (x >> 56) as u8
}

/// Files `f0..fN` of the given sizes in `dir/sub`, plus a top-level file; returns their paths relative to
/// `dir`.
pub fn make_source(dir: &Path, sizes: &[u64]) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let rel =
                if i % 2 == 0 { PathBuf::from(format!("sub/f{i}")) } else { PathBuf::from(format!("f{i}")) };
            let data: Vec<u8> = (0..size).map(|o| byte(i, o)).collect();
            std::fs::write(dir.join(&rel), data).unwrap();
            rel
        })
        .collect()
}

/// Sizes for `n` files between a few bytes and `max` bytes, odd sizes included (partial last pages).
pub fn sizes(n: usize, max: u64, seed: u64) -> Vec<u64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|i| if i == 0 { 3 } else { rng.gen_range(1..max) }).collect()
}

/// Abort the test process if the test has not finished in `limit`: a deadlock must fail, not hang CI.
pub struct Watchdog {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Watchdog {
    pub fn new(what: &'static str, limit: Duration) -> Watchdog {
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let d = done.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while start.elapsed() < limit {
                if d.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            eprintln!("watchdog: `{what}` did not finish in {} s (deadlock?); aborting", limit.as_secs());
            std::process::abort();
        });
        Watchdog { done }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

pub fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

pub fn gen_range(rng: &mut rand::rngs::StdRng, hi: u64) -> u64 {
    rng.gen_range(0..hi.max(1))
}
