//! papers/004's workloads (Fukatani et al., split reclaim of the file-metadata cache, §IV-A): the
//! metadata-intensive batch (`stat-batch`) and a general NFS file server (`nfs-mix`).
//!
//! # stat-batch
//!
//! "A batch program imitating a periodical differential backup process was executed. In the differential
//! backup process, backup applications issue stat system calls to check the modified time of stored files.
//! In our batch program, the work threads issue stat system calls to check the modified time of 25.6
//! million stored files. To imitate the real environment of enterprise file servers, random metadata
//! accesses were executed before the evaluation." (one 8-core server, 24 GB).
//!
//! What pagelab builds:
//! - `files` files (default 25.6 million / `scale`), their inodes in one inode table (a file of 256-byte
//!   ext4 inodes, 16 to a 4 KiB page) and their entries in directory blocks (32 bytes an entry, 128 to a
//!   page, in inode order: files created one after another): a `stat()` that misses the metadata cache
//!   reads the entry's directory block and the inode's page through the page cache.
//! - Before the evaluation, the random metadata accesses: `random` `stat()`s (default: as many as files)
//!   of files drawn uniformly at random, with replacement (from the workload's own `seed`, so every policy
//!   sees the same accesses), shared out among the threads. A file drawn again while its object is cached
//!   is a hit, which sets the object's referenced bit.
//! - Then a barrier ([`Step::Barrier`]): the measured period starts when every thread has done its share.
//! - The evaluation: each of `threads` threads `stat()`s its own contiguous share of the files in inode
//!   order, as a backup walks its part of the tree; every `stat()` is one request, so the run's request
//!   latencies are the `stat()` response times and its request rate the throughput.
//!
//! Inferences (the paper does not say): the random accesses' count and distribution (uniform draws: the
//! plain reading of "random metadata accesses"); that the threads split the
//! files into contiguous ranges; the directory tree's shape (a directory block holds entries of
//! consecutive inodes; the directories' own dentries and htree index blocks, a few per thousand files, are
//! left out).
//!
//! **Scale.** `scale` divides the file count; the experiment divides memory by the same factor
//! (`24 GiB / scale`), so that the metadata, the inode table and memory keep the paper's ratios. What does
//! not scale: the watermarks (`min_free_kbytes` grows as the square root of memory: 0.08 % of 24 GiB,
//! 0.65 % of 384 MiB), the shrinker's batch (128 objects), and the per-object costs; a reclaim that must
//! scan a fixed fraction of the objects scans `1/scale` as many, so its latency shrinks by about `scale`.

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
use pagelab_core::spec::Spec;
use pagelab_core::FileId;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// papers/004 §IV-A: 25.6 million files.
pub const PAPER_FILES: u64 = 25_600_000;
/// papers/004 §IV-A: the metadata-intensive workload's server had 24 GB (taken as GiB) and 8 cores.
pub const PAPER_MEMORY_BYTES: u64 = 24 << 30;
pub const PAPER_CPUS: u32 = 8;
/// The default scale: 400,000 files in 384 MiB.
pub const SCALE_DEFAULT: u64 = 64;
/// ext4's default inode size: 16 inodes to a 4 KiB page of the inode table.
pub const INODES_PER_PAGE: u64 = 16;
/// ext4 directory entries of short names: an 8-byte header and a name of up to 24 bytes, 32 bytes; 128 to a
/// 4 KiB block.
pub const DIR_ENTRIES_PER_PAGE: u64 = 128;
/// The workloads' own seed (their file orders), independent of the run's `--seed`.
pub const SEED_DEFAULT: u64 = 4;
/// At most this many files (4 bytes a random access).
pub const FILES_MAX: u64 = 1 << 31;

/// The workloads of this module, by name.
pub const METADATA_WORKLOADS: [&str; 1] = ["stat-batch"];

/// `stat-batch:files=…,threads=…,random=…,scale=…,seed=…`; `None` for another name.
pub fn metadata_workload(spec: &Spec) -> Result<Option<Box<dyn Workload>>, SimError> {
    let e = SimError::Core;
    match spec.name.as_str() {
        "stat-batch" => {
            let scale = spec.u64("scale", SCALE_DEFAULT).map_err(e)?;
            if scale == 0 {
                return Err(SimError::invalid(
                    "scale=0",
                    "expected a factor of at least 1 (1: the paper's size)",
                ));
            }
            let files = spec.u64("files", PAPER_FILES / scale).map_err(e)?;
            let threads = spec.u64("threads", PAPER_CPUS as u64).map_err(e)?;
            let random = spec.u64("random", files).map_err(e)?;
            let seed = spec.u64("seed", SEED_DEFAULT).map_err(e)?;
            spec.finish(&["scale", "files", "threads", "random", "seed"]).map_err(e)?;
            Ok(Some(Box::new(StatBatch::new(files, threads, random, scale, seed)?)))
        }
        _ => Ok(None),
    }
}

/// What one thread has left to do.
#[derive(Clone, Copy, Debug)]
struct Thread {
    /// Its share of the random accesses: positions `[random_next, random_end)` of the random order.
    random_next: u64,
    random_end: u64,
    /// Its share of the evaluation: files `[pass_next, pass_end)`.
    pass_next: u64,
    pass_end: u64,
    barrier_passed: bool,
}

/// The metadata-intensive batch: random metadata accesses, a barrier, then every thread `stat()`s its
/// share of the files in order.
#[derive(Clone, Debug)]
pub struct StatBatch {
    files: u64,
    random: u64,
    scale: u64,
    seed: u64,
    /// The random accesses: files drawn uniformly, with replacement.
    order: Vec<u32>,
    threads: Vec<Thread>,
    file_pages: Vec<u64>,
}

impl StatBatch {
    pub fn new(files: u64, threads: u64, random: u64, scale: u64, seed: u64) -> Result<StatBatch, SimError> {
        if !(1..=FILES_MAX).contains(&files) {
            return Err(SimError::invalid(format!("files={files}"), format!("expected 1 to {FILES_MAX}")));
        }
        if !(1..=1024).contains(&threads) {
            return Err(SimError::invalid(format!("threads={threads}"), "expected 1 to 1024"));
        }
        if random > 16 * files {
            return Err(SimError::invalid(
                format!("random={random}"),
                format!("expected at most 16 accesses per file ({})", 16 * files),
            ));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let order: Vec<u32> = (0..random).map(|_| rng.gen_range(0..files) as u32).collect();
        let share = |total: u64, t: u64| (total * t / threads, total * (t + 1) / threads);
        let threads = (0..threads)
            .map(|t| {
                let (random_next, random_end) = share(random, t);
                let (pass_next, pass_end) = share(files, t);
                Thread { random_next, random_end, pass_next, pass_end, barrier_passed: false }
            })
            .collect();
        Ok(StatBatch {
            files,
            random,
            scale,
            seed,
            order,
            threads,
            file_pages: vec![files.div_ceil(INODES_PER_PAGE), files.div_ceil(DIR_ENTRIES_PER_PAGE)],
        })
    }

    fn stat(ino: u64) -> Step {
        Step::Stat {
            ino,
            dir: (FileId(1), ino / DIR_ENTRIES_PER_PAGE),
            inode: (FileId(0), ino / INODES_PER_PAGE),
        }
    }
}

impl Workload for StatBatch {
    fn describe(&self) -> String {
        format!(
            "stat-batch:files={},threads={},random={},scale={},seed={}",
            self.files,
            self.threads.len(),
            self.random,
            self.scale,
            self.seed
        )
    }

    /// Two files: the inode table and the directory blocks.
    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    /// The paper's Table II is lost; its introduction names SSDs as what made seek time small next to the
    /// time of managing memory, which is what it measures. pagelab's `ssd`.
    fn default_device(&self) -> Option<&'static str> {
        Some("ssd")
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.threads.len() as u32)
    }

    fn next_request(&mut self, slot: u32, _rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let t = &mut self.threads[slot as usize];
        if t.random_next < t.random_end {
            let ino = self.order[t.random_next as usize] as u64;
            t.random_next += 1;
            return Some(RequestProgram { steps: vec![Self::stat(ino)] });
        }
        let mut steps = Vec::with_capacity(2);
        if !t.barrier_passed {
            t.barrier_passed = true;
            steps.push(Step::Barrier);
        }
        if t.pass_next < t.pass_end {
            steps.push(Self::stat(t.pass_next));
            t.pass_next += 1;
        }
        (!steps.is_empty()).then_some(RequestProgram { steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(w: &mut StatBatch, slot: u32) -> Vec<Vec<Step>> {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        std::iter::from_fn(|| w.next_request(slot, &mut rng).map(|r| r.steps)).collect()
    }

    #[test]
    fn each_thread_does_its_random_share_then_a_barrier_then_its_files_in_order() {
        let mut w = StatBatch::new(100, 4, 100, 1, 9).unwrap();
        assert_eq!(w.file_pages(), &[7, 1], "100 inodes, 16 to a page; 100 entries, 128 to a page");
        let mut random = Vec::new();
        for slot in 0..4 {
            let reqs = drain(&mut w, slot);
            assert_eq!(reqs.len(), 25 + 25);
            for r in &reqs[..25] {
                match r[..] {
                    [Step::Stat { ino, .. }] => random.push(ino),
                    _ => panic!("{r:?}"),
                }
            }
            assert_eq!(reqs[25][0], Step::Barrier);
            let pass: Vec<u64> = reqs[25..]
                .iter()
                .map(|r| match *r.last().unwrap() {
                    Step::Stat { ino, dir, inode } => {
                        assert_eq!((inode, dir), ((FileId(0), ino / 16), (FileId(1), ino / 128)));
                        ino
                    }
                    _ => panic!(),
                })
                .collect();
            assert_eq!(pass, (slot as u64 * 25..slot as u64 * 25 + 25).collect::<Vec<_>>());
        }
        assert_eq!(random.len(), 100);
        assert!(random.iter().all(|&ino| ino < 100));
        random.sort_unstable();
        random.dedup();
        assert!(random.len() < 100, "drawn with replacement: some files twice");
    }

    #[test]
    fn a_thread_with_no_files_still_passes_the_barrier() {
        let mut w = StatBatch::new(2, 3, 0, 1, 1).unwrap();
        assert_eq!(drain(&mut w, 0), vec![vec![Step::Barrier]]);
        assert_eq!(drain(&mut w, 1).len(), 1);
    }

    #[test]
    fn bad_parameters_are_refused() {
        let parse = |t: &str| metadata_workload(&Spec::parse(t).unwrap()).err().unwrap().to_string();
        assert!(parse("stat-batch:threads=0").contains("threads=0"));
        assert!(parse("stat-batch:scale=0").contains("scale=0"));
        assert!(parse("stat-batch:files=10,random=1000").contains("at most 16 accesses per file"));
        assert!(parse("stat-batch:bogus=1").contains("bogus"));
    }
}
