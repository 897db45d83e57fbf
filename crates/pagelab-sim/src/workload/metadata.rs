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
//!   reads the entry's directory block and the inode's page through the page cache, as ext4 reads them,
//!   not with the page cache's readahead: the directory block alone (an htree leaf, which
//!   `ext4_dx_find_entry()` reads with `ext4_bread()`), and on an inode-table miss the table from the
//!   32-block-aligned block at or below the inode's through 32 blocks on (`__ext4_get_inode_loc()` with
//!   the default `inode_readahead_blks` of 32; its loop reads through its end, 33 blocks:
//!   [`ext4_metadata_read`], [`INODE_READAHEAD_PAGES`]). Until 2026-11-29 both went through the handler's 2.6 readahead, which ramped
//!   windows along the inode-order walk; the module doc of `experiment::split_reclaim` gives the change's
//!   effect.
//! - Before the evaluation, the random metadata accesses: `random` `stat()`s (default: as many as files)
//!   of files drawn uniformly at random, with replacement (from the workload's own `seed`, so every policy
//!   sees the same accesses), shared out among the threads. A file drawn again while its object is cached
//!   is a hit, which sets the object's referenced bit.
//! - Then a barrier ([`Step::Barrier`]): the measured period starts when every thread has done its share.
//! - The evaluation: each of `threads` threads `stat()`s its own contiguous share of the files in inode
//!   order, as a backup walks its part of the tree; every `stat()` is one request, so the run's request
//!   latencies are the `stat()` response times and its request rate the throughput.
//! - `order=hash,dir=N` (a diagnostic; the default is `order=inode`): the walk in the order ext3/ext4's
//!   hashed directories (`dir_index`) list their entries, as a backup that `stat()`s what `readdir()`
//!   returns meets them. The files form directories of `dir` consecutive inodes (default: one directory of
//!   all of them), created one after another; `readdir()` returns a directory's names in hash order, which
//!   is unrelated to the inode order (a seeded permutation of each directory), and its leaf blocks in that
//!   same order, so the `k`-th entry a directory lists sits in its block `k / 128` (each directory has
//!   `ceil(dir / 128)` blocks of its own, one after another) while its inode sits anywhere in the
//!   directory's stretch of the inode table. The threads share the listing out in
//!   contiguous ranges, as before. The random accesses before the barrier find each entry in the block
//!   the listing puts it in.
//!
//! Inferences (the paper does not say): the random accesses' count and distribution (uniform draws: the
//! plain reading of "random metadata accesses"); that the threads split the
//! files into contiguous ranges; the directory tree's shape (in inode order a directory block holds the
//! entries of 128 consecutive inodes; with `order=hash` each directory has blocks of its own; the
//! directories' own dentries and htree index blocks, a few per thousand files, are left out).
//!
//! # nfs-mix
//!
//! "Two load generators issued 60 000 file-operation requests per second for 5 min" to "one 32-core server
//! with 64-GB memory", with "the SPEC SFS3.0 benchmark whose operation mix is based on traces of real-world
//! NFS servers"; P = 50 %; "the ratio of page cache to memory capacity was high under the load of SPEC
//! SFS3.0, the usage of metadata cache did not reach P".
//!
//! What pagelab builds: SFS's initialisation first (`threads` nfsd threads create and write the file set,
//! `files` files of the sizes [`SFS_FILE_SIZES`], a share each), a barrier where the measured period
//! starts, then each thread serves operations arriving as a Poisson stream (together `rate` per second,
//! default 60,000 / scale), each on a file of the working set (every tenth file), in SPEC SFS 3.0's NFSv3
//! mix ([`SFS3_MIX`], as SPEC's SFS subcommittee member
//! Mike Eisler tabulated it): LOOKUP, GETATTR, READLINK, ACCESS, SETATTR, FSSTAT, CREATE, REMOVE and COMMIT
//! are a `stat()` of the file; READDIR and READDIRPLUS a `stat()` and a read of its directory block; READ
//! and WRITE a `stat()` and 8 KiB read or written at a random page of the file; each operation costs
//! [`NFS_OP_CPU`] of RPC processing.
//!
//! Inferences (from memory of SFS 3.0, not re-checked): the file set is 10 MB per requested op/s (600 GB /
//! scale) of which 10 % is accessed, and the file sizes; CREATE and REMOVE are `stat()`s of existing files
//! (the file count stays put); COMMIT's flush is left to writeback.
//!
//! **Scale.** `scale` divides the file count; the experiment divides memory by the same factor
//! (`24 GiB / scale`), so that the metadata, the inode table and memory keep the paper's ratios. What does
//! not scale: the watermarks (`min_free_kbytes` grows as the square root of memory: 0.08 % of 24 GiB,
//! 0.65 % of 384 MiB), the shrinker's batch (128 objects), and the per-object costs; a reclaim that must
//! scan a fixed fraction of the objects scans `1/scale` as many, so its latency shrinks by about `scale`.

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
use pagelab_core::buffer::ReadCursor;
use pagelab_core::spec::Spec;
use pagelab_core::units::fmt_f64;
use pagelab_core::FileId;
use rand::seq::SliceRandom;
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
/// The file system's two metadata files, the first file ids of both workloads: the inode table and the
/// directory blocks.
pub const INODE_TABLE: FileId = FileId(0);
pub const DIRECTORIES: FileId = FileId(1);

/// Pages of the inode table and of the directory blocks for `files` files, in file-id order.
pub fn metadata_file_pages(files: u64) -> [u64; 2] {
    [files.div_ceil(INODES_PER_PAGE), files.div_ceil(DIR_ENTRIES_PER_PAGE)]
}

/// Where file `ino`'s metadata lives: `(dir, inode)`, the `(file, page)` of its directory block and of its
/// inode-table page (files created one after another: both in inode order).
pub fn metadata_blocks(ino: u64) -> ((FileId, u64), (FileId, u64)) {
    ((DIRECTORIES, ino / DIR_ENTRIES_PER_PAGE), (INODE_TABLE, ino / INODES_PER_PAGE))
}
/// The workloads' own seed (their file orders), independent of the run's `--seed`.
pub const SEED_DEFAULT: u64 = 4;
/// At most this many files (4 bytes a random access).
pub const FILES_MAX: u64 = 1 << 31;

/// The workloads of this module, by name.
pub const METADATA_WORKLOADS: [&str; 2] = ["stat-batch", "nfs-mix"];

/// SPEC SFS 3.0's NFSv3 operation mix, percent (Eisler, "More on SPEC SFS 2008", NetApp, 2008).
pub const SFS3_MIX: [(NfsOp, u32); 13] = [
    (NfsOp::Lookup, 27),
    (NfsOp::Read, 18),
    (NfsOp::Write, 9),
    (NfsOp::Getattr, 11),
    (NfsOp::Readlink, 7),
    (NfsOp::Readdir, 2),
    (NfsOp::Create, 1),
    (NfsOp::Remove, 1),
    (NfsOp::Fsstat, 1),
    (NfsOp::Setattr, 1),
    (NfsOp::Readdirplus, 9),
    (NfsOp::Access, 7),
    (NfsOp::Commit, 5),
];

/// SFS's file sizes (KiB) and their shares (percent), from memory of the SFS 2.0/3.0 documentation.
pub const SFS_FILE_SIZES: [(u64, u32); 10] =
    [(1, 33), (2, 21), (4, 13), (8, 10), (16, 8), (32, 5), (64, 4), (128, 3), (256, 2), (1024, 1)];

/// papers/004 §IV-B-2: the NFS server's memory, cores and load.
pub const NFS_MEMORY_BYTES: u64 = 64 << 30;
pub const NFS_CPUS: u32 = 32;
pub const NFS_OPS_PER_S: u64 = 60_000;
/// SFS 3.0: 10 MB of file set per requested op/s, 10 % of it accessed.
pub const SFS_BYTES_PER_OP_S: u64 = 10_000_000;
pub const SFS_ACCESSED_PERCENT: u64 = 10;
/// The RPC and NFS processing of one operation on the server (decode, dispatch, encode): an estimate of
/// the order of a 2010s nfsd's per-operation CPU, not a measurement.
pub const NFS_OP_CPU: pagelab_core::Nanos = pagelab_core::Nanos(30_000);
/// nfsd threads serving the operations: a large server's setting (Linux's default is 8; the paper does
/// not say).
pub const NFSD_THREADS: u64 = 64;
/// ext4's `inode_readahead_blks` (its default, 32): a `stat()` whose inode-table page is not cached reads
/// the table from the 32-block-aligned block at or below it through the block 32 further on
/// (`__ext4_get_inode_loc()`'s `while (b <= end)`: 33 blocks, clipped at the table's end).
pub const INODE_READAHEAD_PAGES: u64 = 32;

/// `cursor`, a read of one of the file system's own metadata blocks, made as ext4 makes it: in `GFP_NOFS`
/// context (its reclaim may not enter the file system) and not through the page cache's readahead. A page
/// of the inode table (`inode_table`) comes with ext4's own readahead of the table
/// ([`INODE_READAHEAD_PAGES`]); a directory block is an htree leaf, read alone (`ext4_dx_find_entry()`'s
/// and `ext4_dx_readdir()`'s `ext4_bread()`). Departures: the kernel aligns the stretch on the absolute
/// block number and clips it at the block group's table (512 blocks at 8,192 inodes a group); the model's
/// one table is aligned on its own start and clipped only at its end.
pub fn ext4_metadata_read(cursor: ReadCursor, inode_table: bool) -> ReadCursor {
    let cursor = cursor.no_fs();
    let (alignment, pages) =
        if inode_table { (INODE_READAHEAD_PAGES, INODE_READAHEAD_PAGES + 1) } else { (1, 1) };
    cursor.aligned_readahead(alignment, pages).expect("ext4's stretches are aligned within their length")
}

/// Bytes a READ or WRITE moves.
pub const NFS_IO_BYTES: u64 = 8192;

/// An NFSv3 operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NfsOp {
    Lookup,
    Read,
    Write,
    Getattr,
    Readlink,
    Readdir,
    Create,
    Remove,
    Fsstat,
    Setattr,
    Readdirplus,
    Access,
    Commit,
}

/// `stat-batch:files=…,threads=…,random=…,scale=…,seed=…,order=…,dir=…` or
/// `nfs-mix:files=…,threads=…,rate=…,scale=…,seed=…`; `None` for another name.
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
            let walk = match spec.string("order").as_deref().unwrap_or("inode") {
                "inode" if spec.string("dir").is_some() => {
                    return Err(SimError::invalid(
                        "dir",
                        "goes with order=hash (an inode-order walk does not depend on the directories)",
                    ))
                }
                "inode" => WalkOrder::Inode,
                "hash" => WalkOrder::Hash { dir_files: spec.u64("dir", files).map_err(e)? },
                other => {
                    return Err(SimError::invalid(
                        format!("order={other}"),
                        "expected inode (the default) or hash (hashed directories' listing order)",
                    ))
                }
            };
            spec.finish(&["scale", "files", "threads", "random", "seed", "order", "dir"]).map_err(e)?;
            let batch = StatBatch::new(files, threads, random, scale, seed)?;
            Ok(Some(Box::new(batch.walk_order(walk)?)))
        }
        "nfs-mix" => {
            let scale = spec.u64("scale", SCALE_DEFAULT).map_err(e)?;
            if scale == 0 {
                return Err(SimError::invalid(
                    "scale=0",
                    "expected a factor of at least 1 (1: the paper's size)",
                ));
            }
            let files = spec.u64("files", NfsMix::files_at_scale(scale)).map_err(e)?;
            let threads = spec.u64("threads", NFSD_THREADS).map_err(e)?;
            let rate = spec.f64("rate", NFS_OPS_PER_S as f64 / scale as f64).map_err(e)?;
            let seed = spec.u64("seed", SEED_DEFAULT).map_err(e)?;
            spec.finish(&["scale", "files", "threads", "rate", "seed"]).map_err(e)?;
            Ok(Some(Box::new(NfsMix::new(files, threads, rate, scale, seed)?)))
        }
        _ => Ok(None),
    }
}

/// The order the evaluation `stat()`s the files in (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkOrder {
    /// Inode order: each directory block and inode-table page is read once, in order.
    Inode,
    /// Hashed-directory order: directories of `dir_files` consecutive inodes, each listed in a seeded hash
    /// order.
    Hash { dir_files: u64 },
}

/// A hashed-directory listing of `files` files in directories of `dir_files`: `listed[k]` is the `k`-th
/// file listed (directory by directory), `position[f]` the place file `f` is listed at.
#[derive(Clone, Debug)]
struct Listing {
    dir_files: u64,
    listed: Vec<u32>,
    position: Vec<u32>,
}

impl Listing {
    /// Each directory of `dir_files` consecutive inodes (the last may be smaller) listed in a permutation
    /// drawn from `seed`: a name's hash does not follow its inode.
    fn hashed(files: u64, dir_files: u64, seed: u64) -> Listing {
        debug_assert!(dir_files >= 1 && files <= FILES_MAX);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6861_7368); // "hash": apart from the random accesses
        let mut listed: Vec<u32> = (0..files as u32).collect();
        for dir in listed.chunks_mut(dir_files.min(files).max(1) as usize) {
            dir.shuffle(&mut rng);
        }
        let mut position = vec![0u32; files as usize];
        for (k, &f) in listed.iter().enumerate() {
            position[f as usize] = k as u32;
        }
        Listing { dir_files, listed, position }
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
    /// The hashed directories' listing (`WalkOrder::Hash`); `None` walks in inode order.
    listing: Option<Listing>,
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
            file_pages: metadata_file_pages(files).to_vec(),
            listing: None,
        })
    }

    /// The same batch with the evaluation walking in `walk` order.
    pub fn walk_order(mut self, walk: WalkOrder) -> Result<StatBatch, SimError> {
        self.listing = match walk {
            WalkOrder::Inode => None,
            WalkOrder::Hash { dir_files } => {
                if dir_files == 0 {
                    return Err(SimError::invalid("dir=0", "expected at least 1 file a directory"));
                }
                // Each directory's blocks of its own: the last directory may be partly empty.
                let dirs = self.files.div_ceil(dir_files);
                self.file_pages[DIRECTORIES.0 as usize] = dirs * dir_files.div_ceil(DIR_ENTRIES_PER_PAGE);
                Some(Listing::hashed(self.files, dir_files, self.seed))
            }
        };
        Ok(self)
    }

    fn stat(ino: u64) -> Step {
        let (dir, inode) = metadata_blocks(ino);
        Step::Stat { ino, dir, inode }
    }

    /// The `stat()` of file `ino`, its entry where this batch's directories keep it: the entry a hashed
    /// directory lists `k`-th is in that directory's block `k / 128` (leaf blocks in hash order).
    fn stat_of(&self, ino: u64) -> Step {
        let Some(l) = &self.listing else { return Self::stat(ino) };
        let (_, inode) = metadata_blocks(ino);
        let dir = ino / l.dir_files;
        let k = l.position[ino as usize] as u64 - dir * l.dir_files;
        let first_block = dir * l.dir_files.div_ceil(DIR_ENTRIES_PER_PAGE);
        Step::Stat { ino, dir: (DIRECTORIES, first_block + k / DIR_ENTRIES_PER_PAGE), inode }
    }

    /// The file listed at place `k` of the walk.
    fn listed(&self, k: u64) -> u64 {
        self.listing.as_ref().map_or(k, |l| l.listed[k as usize] as u64)
    }
}

impl Workload for StatBatch {
    fn describe(&self) -> String {
        let walk =
            self.listing.as_ref().map_or(String::new(), |l| format!(",order=hash,dir={}", l.dir_files));
        format!(
            "stat-batch:files={},threads={},random={},scale={},seed={}{walk}",
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

    fn issues_stat(&self) -> bool {
        true
    }

    fn measured_from_barrier(&self) -> bool {
        true
    }

    fn next_request(&mut self, slot: u32, _rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let t = self.threads[slot as usize];
        if t.random_next < t.random_end {
            let ino = self.order[t.random_next as usize] as u64;
            self.threads[slot as usize].random_next += 1;
            return Some(RequestProgram { steps: vec![self.stat_of(ino)] });
        }
        let mut steps = Vec::with_capacity(2);
        if !t.barrier_passed {
            self.threads[slot as usize].barrier_passed = true;
            steps.push(Step::Barrier);
        }
        if t.pass_next < t.pass_end {
            steps.push(self.stat_of(self.listed(t.pass_next)));
            self.threads[slot as usize].pass_next += 1;
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

    /// The hashed-directory walk: each directory of `dir` consecutive inodes is listed in an order of its
    /// own, directory after directory; the threads share the listing out in contiguous ranges; the entry a
    /// directory lists `k`-th is in its own block `k / 128`, and its inode where its inode is; a random access
    /// finds a file's entry where the listing put it; the workload describes itself with its order.
    #[test]
    fn the_hash_walk_lists_each_directory_in_its_own_order() {
        let (files, dir) = (1_000u64, 300u64);
        let w = StatBatch::new(files, 2, 50, 1, 9).unwrap().walk_order(WalkOrder::Hash { dir_files: dir });
        let mut w = w.unwrap();
        assert!(w.describe().ends_with(",order=hash,dir=300"), "{}", w.describe());
        // Each directory of 300 has 3 blocks of its own: 4 directories, 12 blocks; the entry listed k-th is
        // in its directory's block (k mod 300) / 128.
        assert_eq!(w.file_pages(), &[63, 12]);
        let block = |k: u64| 3 * (k / dir) + k % dir / 128;
        let mut pass = Vec::new();
        for slot in 0..2 {
            let reqs = drain(&mut w, slot);
            // Its 25 random accesses first: each file's entry where the listing put it.
            for r in &reqs[..25] {
                let [Step::Stat { ino, dir: d, inode }] = r[..] else { panic!("{r:?}") };
                let k = w.listing.as_ref().unwrap().position[ino as usize] as u64;
                assert_eq!((d, inode), ((DIRECTORIES, block(k)), (INODE_TABLE, ino / 16)));
            }
            assert_eq!(reqs[25][0], Step::Barrier);
            for r in &reqs[25..] {
                let Some(&Step::Stat { ino, dir: d, inode }) = r.last() else { panic!("{r:?}") };
                assert_eq!(inode, (INODE_TABLE, ino / 16));
                pass.push((ino, d));
            }
        }
        for (k, &(ino, d)) in pass.iter().enumerate() {
            assert_eq!(d, (DIRECTORIES, block(k as u64)), "entry {k}");
            assert_eq!(ino / dir, k as u64 / dir, "entry {k} lists a file of its own directory");
        }
        let mut seen: Vec<u64> = pass.iter().map(|&(ino, _)| ino).collect();
        assert_ne!(seen[..dir as usize], (0..dir).collect::<Vec<_>>()[..], "hash order is not inode order");
        seen.sort_unstable();
        assert_eq!(seen, (0..files).collect::<Vec<_>>(), "every file once");
        // The same seed lists the same order; the inode walk is unchanged by the option's existence.
        let again = Listing::hashed(files, dir, 9);
        assert_eq!(again.listed, w.listing.as_ref().unwrap().listed);
        assert!(StatBatch::new(files, 2, 50, 1, 9).unwrap().listing.is_none());
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
        assert!(parse("stat-batch:order=hash,dir=0").contains("dir=0"));
        assert!(parse("stat-batch:order=sorted").contains("expected inode (the default) or hash"));
        assert!(parse("stat-batch:dir=100").contains("goes with order=hash"));
    }
}

/// One of `table`'s values, each drawn with its weight's share of the weights' sum. Caller guarantees a
/// positive sum.
fn weighted_draw<T: Copy>(table: &[(T, u32)], rng: &mut ChaCha8Rng) -> T {
    let total: u32 = table.iter().map(|&(_, w)| w).sum();
    let mut x = rng.gen_range(0..total);
    for &(value, weight) in table {
        if x < weight {
            return value;
        }
        x -= weight;
    }
    unreachable!("a draw below the weights' sum falls in some weight")
}

/// papers/004's general NFS workload: SFS's file set is created, then nfsd threads serve SPEC SFS 3.0's
/// operation mix, paced, over the working set.
#[derive(Clone, Debug)]
pub struct NfsMix {
    files: u64,
    rate_per_s: f64,
    scale: u64,
    seed: u64,
    /// Inode table, directory blocks, then the files' data (file `i` is `FileId(2 + i)`).
    file_pages: Vec<u64>,
    threads: Vec<NfsThread>,
}

/// What one nfsd thread has left of the file set's creation: files `[create_next, create_end)`.
#[derive(Clone, Copy, Debug)]
struct NfsThread {
    create_next: u64,
    create_end: u64,
    barrier_passed: bool,
}

impl NfsMix {
    /// The most data files a mix can have: page keys name regular files below `FileId::ANON_FIRST` (2^23;
    /// the ids above are anonymous memory), and the two metadata files come first.
    pub const FILES_MAX: u64 = FileId::ANON_FIRST as u64 - 2;

    /// The smallest scale factor whose file set ([`NfsMix::files_at_scale`]) fits [`NfsMix::FILES_MAX`].
    pub fn scale_min() -> u64 {
        let full = NfsMix::files_at_scale(1);
        full.div_ceil(NfsMix::FILES_MAX).max(1)
    }

    /// SFS 3.0's file set for 60,000 op/s, divided by `scale`: 10 MB per op/s of files of the mean size.
    pub fn files_at_scale(scale: u64) -> u64 {
        let mean_bytes: u64 =
            SFS_FILE_SIZES.iter().map(|&(kib, pct)| kib * 1024 * pct as u64).sum::<u64>() / 100;
        (NFS_OPS_PER_S * SFS_BYTES_PER_OP_S / mean_bytes / scale).max(1)
    }

    /// `files` files served by `threads` nfsd threads at `rate_per_s` operations per second in all.
    pub fn new(files: u64, threads: u64, rate_per_s: f64, scale: u64, seed: u64) -> Result<NfsMix, SimError> {
        if !(1..=NfsMix::FILES_MAX).contains(&files) {
            return Err(SimError::invalid(
                format!("files={files}"),
                format!(
                    "expected 1 to {} (a page key names regular files below 2^23; the full-size SFS file set, {} files, \
                     needs scale={} or more)",
                    NfsMix::FILES_MAX,
                    NfsMix::files_at_scale(1),
                    NfsMix::scale_min()
                ),
            ));
        }
        if !(1..=1024).contains(&threads) {
            return Err(SimError::invalid(format!("threads={threads}"), "expected 1 to 1024"));
        }
        if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
            return Err(SimError::invalid(
                format!("rate={}", fmt_f64(rate_per_s)),
                "expected a positive rate, operations/s",
            ));
        }
        // Sizes drawn from SFS's distribution with the workload's own seed: every policy sees the same files.
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut file_pages = metadata_file_pages(files).to_vec();
        for _ in 0..files {
            let kib = weighted_draw(&SFS_FILE_SIZES, &mut rng);
            file_pages.push((kib * 1024).div_ceil(pagelab_core::PAGE_SIZE_BYTES));
        }
        let threads = (0..threads)
            .map(|t| NfsThread {
                create_next: files * t / threads,
                create_end: files * (t + 1) / threads,
                barrier_passed: false,
            })
            .collect();
        Ok(NfsMix { files, rate_per_s, scale, seed, file_pages, threads })
    }

    fn data(f: u64) -> FileId {
        FileId(2 + f as u32)
    }

    /// An 8 KiB span at a random page of file `f` (the whole file if smaller).
    fn io_span(&self, f: u64, rng: &mut ChaCha8Rng) -> (FileId, u64, u64) {
        let pages = self.file_pages[2 + f as usize];
        let io_pages = NFS_IO_BYTES / pagelab_core::PAGE_SIZE_BYTES;
        let first = rng.gen_range(0..pages.saturating_sub(io_pages) + 1);
        let len = io_pages.min(pages - first) * pagelab_core::PAGE_SIZE_BYTES;
        (Self::data(f), first * pagelab_core::PAGE_SIZE_BYTES, len)
    }

    /// One operation: a file of the working set (every tenth file: 10 %), an operation of the mix.
    fn operation(&self, rng: &mut ChaCha8Rng) -> Vec<Step> {
        let stride = 100 / SFS_ACCESSED_PERCENT;
        let f = rng.gen_range(0..self.files.div_ceil(stride)) * stride;
        // Poisson arrivals per thread: together, Poisson at the rate.
        let mean_gap_ns = self.threads.len() as f64 * 1e9 / self.rate_per_s;
        let gap = -mean_gap_ns * (1.0 - rng.gen::<f64>()).ln();
        let mut steps =
            vec![Step::Pace(pagelab_core::Nanos(gap.round().max(1.0) as u64)), StatBatch::stat(f)];
        steps.push(Step::Cpu(NFS_OP_CPU));
        match weighted_draw(&SFS3_MIX, rng) {
            NfsOp::Read => {
                let (file, offset_bytes, len_bytes) = self.io_span(f, rng);
                steps.push(Step::Read { file, offset_bytes, len_bytes });
            }
            NfsOp::Write => {
                let (file, offset_bytes, len_bytes) = self.io_span(f, rng);
                steps.push(Step::Write { file, offset_bytes, len_bytes });
            }
            NfsOp::Readdir | NfsOp::Readdirplus => {
                steps.push(Step::ReadDirBlock { block: (DIRECTORIES, f / DIR_ENTRIES_PER_PAGE) })
            }
            _ => {}
        }
        steps
    }
}

impl Workload for NfsMix {
    fn describe(&self) -> String {
        format!(
            "nfs-mix:files={},threads={},rate={},scale={},seed={}",
            self.files,
            self.threads.len(),
            fmt_f64(self.rate_per_s),
            self.scale,
            self.seed
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    /// As `stat-batch`: the paper's storage is not given; the `ssd`.
    fn default_device(&self) -> Option<&'static str> {
        Some("ssd")
    }

    /// The nfsd threads.
    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.threads.len() as u32)
    }

    /// Served for the run's duration after the file set is created (not a program that ends).
    fn runs_to_completion(&self) -> bool {
        false
    }

    fn persistent_slots(&self) -> bool {
        true
    }

    fn issues_stat(&self) -> bool {
        true
    }

    fn measured_from_barrier(&self) -> bool {
        true
    }

    /// The file set's creation (each thread creates and writes its share of the files, a file a request),
    /// the barrier, then operations for ever.
    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let t = &mut self.threads[slot as usize];
        if t.create_next < t.create_end {
            let f = t.create_next;
            t.create_next += 1;
            let len_bytes = self.file_pages[2 + f as usize] * pagelab_core::PAGE_SIZE_BYTES;
            let write = Step::Write { file: Self::data(f), offset_bytes: 0, len_bytes };
            return Some(RequestProgram { steps: vec![StatBatch::stat(f), write] });
        }
        let first = !std::mem::replace(&mut t.barrier_passed, true);
        let mut steps = self.operation(rng);
        if first {
            // The first operation waits at the barrier; its pacing starts there.
            steps.insert(0, Step::Barrier);
        }
        Some(RequestProgram { steps })
    }
}

#[cfg(test)]
mod nfs_tests {
    use super::*;

    #[test]
    fn the_mix_is_sfs_3_and_the_files_follow_its_sizes() {
        assert_eq!(SFS3_MIX.iter().map(|&(_, p)| p).sum::<u32>(), 99, "SFS 3.0's table rounds to 99 %");
        assert_eq!(SFS_FILE_SIZES.iter().map(|&(_, p)| p).sum::<u32>(), 100);
        // 600 GB over a 27,351-byte mean: 21.9 million files.
        assert_eq!(NfsMix::files_at_scale(1), 21_937_040);
        let mut w = NfsMix::new(10_000, 2, 100.0, 1, 3).unwrap();
        let small = w.file_pages()[2..].iter().filter(|&&p| p == 1).count();
        assert!((6_000..7_400).contains(&small), "54 % of files are 1 or 2 KiB, one page: {small}");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // Slot 0 creates files 0..5000, one request each, then passes the barrier.
        for f in 0..5_000 {
            let r = w.next_request(0, &mut rng).unwrap();
            assert!(
                matches!(r.steps[..], [Step::Stat { ino, .. }, Step::Write { file, offset_bytes: 0, .. }] if ino == f && file.0 == 2 + f as u32)
            );
        }
        let (mut reads, mut writes, mut gaps, n) = (0, 0, 0u64, 10_000);
        for i in 0..n {
            let mut r = w.next_request(0, &mut rng).unwrap();
            if i == 0 {
                assert_eq!(r.steps.remove(0), Step::Barrier, "the first operation opens with the barrier");
            }
            let [Step::Pace(gap), Step::Stat { ino, .. }, Step::Cpu(_), ref rest @ ..] = r.steps[..] else {
                panic!("{r:?}")
            };
            assert_eq!(ino % 10, 0, "the working set: every tenth file");
            gaps += gap.0;
            match rest {
                [Step::Read { file, len_bytes, .. }] if file.0 >= 2 => {
                    reads += 1;
                    assert!(*len_bytes <= 8192 && *len_bytes > 0);
                }
                [Step::Write { .. }] => writes += 1,
                _ => {}
            }
        }
        assert!((1_650..1_990).contains(&reads), "18 % reads: {reads} of {n}");
        assert!((800..1_020).contains(&writes), "9 % writes: {writes} of {n}");
        let mean_gap_s = gaps as f64 / n as f64 / 1e9;
        assert!((mean_gap_s - 0.02).abs() < 0.001, "two threads at 100/s: 20 ms apart each, {mean_gap_s}");
    }
}

/// The workloads run through the simulator: what is measured, which reclaim paths run.
#[cfg(test)]
mod run_tests {
    use super::*;
    use crate::config::{parse_metadata, SimConfig, Warmup};
    use crate::device::DeviceSpec;
    use crate::metrics::RunMetrics;
    use crate::server::simulate;

    fn run(
        workload: Box<dyn Workload>,
        memory_mib: u64,
        metadata: &str,
        duration_s: Option<u64>,
    ) -> RunMetrics {
        let cfg = SimConfig {
            memory_bytes: memory_mib << 20,
            metadata: Some(parse_metadata(metadata).unwrap()),
            device: DeviceSpec::parse("ssd").unwrap(),
            cpus: 8,
            duration: duration_s.map_or(SimConfig::UNTIL_DONE, pagelab_core::Nanos::from_secs),
            ..SimConfig::default()
        };
        simulate(cfg, workload).unwrap()
    }

    /// 20,000 files in 24 MiB: the random accesses fill memory with metadata; the measured period is the
    /// pass alone (one request a file), and conventional reclaim shrinks metadata from direct reclaim.
    #[test]
    fn the_batch_measures_the_pass_after_the_barrier() {
        let w = StatBatch::new(20_000, 8, 20_000, 1, 1).unwrap();
        let m = run(Box::new(w.clone()), 24, "conventional", None);
        let md = m.metadata.clone().unwrap();
        assert_eq!((m.requests_completed, md.stats), (20_000, 20_000), "the pass alone is measured");
        // A `stat()` whose insert reclaimed is resumed after that CPU time: it must not look up or insert
        // again (it did both, setting the new object's referenced bit, before 2026-11-29).
        assert_eq!((md.lookups, md.inserts), (md.stats, md.stat_misses), "{md:?}");
        assert!(m.workload_completed);
        assert!(md.stat_misses > 10_000 && md.stat_misses < 20_000, "{md:?}");
        assert!(md.shrinker_objects_scanned > 0 && m.memory.direct_reclaims > 0, "{md:?}: {:?}", m.memory);
        assert_eq!((md.iswapd_steps, md.metadata_reclaims, md.md_objects), (0, 0, 0));
        assert_eq!(m, run(Box::new(w), 24, "conventional", None), "deterministic");
    }

    /// 3.x's inode LRU in the simulator's `stat()`: a miss reads its directory block, then its inode's page
    /// unless the inode outlived its dentry on the inode LRU, so the pass's page-cache accesses are two a
    /// miss less one per inode found; with the pair freed together no inode is ever found. Exactly: the
    /// lookup holds the inode it found until the insert, so no reclaim on the way (the insert's own
    /// included) frees it and leaves a new inode made without its read (once in this test before the lookup
    /// held it, after the watermarks stopped moving with threads).
    #[test]
    fn a_stat_that_finds_its_inode_reads_no_inode_table() {
        let w = StatBatch::new(20_000, 8, 20_000, 1, 1).unwrap();
        for (lru, found) in [("own", true), ("joint", false)] {
            let m = run(Box::new(w.clone()), 24, &format!("conventional:inode_lru={lru}"), None);
            let md = m.metadata.unwrap();
            assert_eq!(md.inode_hits > 0, found, "{lru}: {md:?}");
            let accesses = m.cache.hits + m.cache.misses + m.cache.inflight_waits;
            let expected = 2 * md.stat_misses - md.inode_hits;
            assert_eq!(accesses, expected, "{lru}");
        }
    }

    /// A `stat()` miss reads ext4's way, not through the page cache's readahead: its inode-table page with
    /// the table from the 32-block-aligned block below it through 32 blocks on (`inode_readahead_blks`),
    /// its directory block alone (an htree leaf). 1,000 files walked in inode order by one thread: the
    /// table's 63 pages in two reads (0..=32, then 33..63 from the miss at 33, whose stretch starts at the
    /// cached 32), and the 8 directory blocks one read each.
    #[test]
    fn a_stat_miss_reads_the_inode_table_as_ext4_does() {
        let w = StatBatch::new(1_000, 1, 0, 1, 1).unwrap();
        let m = run(Box::new(w), 32, "conventional", None);
        assert_eq!(m.metadata.unwrap().stat_misses, 1_000);
        assert_eq!((m.disk.requests, m.disk.pages_read), (2 + 8, 63 + 8), "{:?}", m.disk);
    }

    /// Conventional reclaim with 16 threads on 8 CPUs: while a task's direct reclaim walks the metadata
    /// LRU, the others take the pages it freed, and some tasks find memory at `min` again when their work is
    /// done and reclaim again.
    #[test]
    fn a_task_whose_freed_pages_were_taken_reclaims_again() {
        // `stat-batch:scale=1024,threads=16` in 32 MiB: 25,000 files. (In 24 MiB it retried once, and not
        // at all once a reader's inode-table page came before the stretch below it.)
        let w = StatBatch::new(PAPER_FILES / 1024, 16, PAPER_FILES / 1024, 1024, SEED_DEFAULT).unwrap();
        let m = run(Box::new(w), 32, "conventional", None);
        let mem = &m.memory;
        assert!(mem.direct_reclaim_retries > 0, "{mem:?}");
        assert!(mem.direct_reclaim_retries < mem.direct_reclaims, "{mem:?}");
    }

    /// Split reclaim at P = 30 %: the object count is held at Md by iswapd and metadata reclaim, and
    /// direct reclaim never scans an object.
    #[test]
    fn split_reclaim_holds_metadata_at_md_with_iswapd() {
        let w = StatBatch::new(20_000, 8, 20_000, 1, 1).unwrap();
        let m = run(Box::new(w), 24, "split:p=30%", None);
        let md = m.metadata.unwrap();
        // 24 MiB x 30 % / 1,320 bytes.
        assert_eq!(md.md_objects, 5_719);
        assert!(md.objects_max <= md.md_objects + 1, "{md:?}");
        assert!(md.iswapd_steps > 0 && md.iswapd_cpu_s > 0.0, "{md:?}");
        assert_eq!(m.memory.direct_reclaims, 0, "nothing else competes for memory here");
        assert!(md.pages_end as u64 * 3 <= md.md_objects + 3, "pages bounded by Md objects, 3 to a page");
    }

    /// The full-size SFS file set has more files than page keys name regular files: refused with the scale
    /// that fits, not a panic in the middle of a run (the file ids above would be anonymous memory).
    #[test]
    fn an_nfs_file_set_beyond_page_keys_is_an_error() {
        let full = NfsMix::files_at_scale(1);
        assert!(full > NfsMix::FILES_MAX, "{full}");
        let err = NfsMix::new(full, 64, 60_000.0, 1, 1).unwrap_err().to_string();
        assert!(err.contains(&format!("needs scale={} or more", NfsMix::scale_min())), "{err}");
        assert!(NfsMix::files_at_scale(NfsMix::scale_min()) <= NfsMix::FILES_MAX);
        assert!(NfsMix::files_at_scale(NfsMix::scale_min() - 1) > NfsMix::FILES_MAX);
        assert!(FileId(2 + NfsMix::FILES_MAX as u32 - 1).is_regular());
        assert!(!FileId(2 + NfsMix::FILES_MAX as u32).is_regular());
    }

    /// The NFS mix: the file set is created first (not measured), then the paced operations run for the
    /// duration at the requested rate.
    #[test]
    fn the_nfs_mix_is_measured_after_the_file_set_is_created() {
        let w = NfsMix::new(3_000, 8, 2_000.0, 1, 1).unwrap();
        let m = run(Box::new(w), 32, "split:p=50%", Some(5));
        let done = m.requests_completed as f64;
        assert!((9_000.0..11_000.0).contains(&done), "2,000/s for 5 s: {done}");
        assert!((m.sim_seconds - 5.0).abs() < 1e-6);
        let md = m.metadata.unwrap();
        // Every operation stats its file first: at the end, up to one per thread has done so and not ended.
        assert!(md.stats >= m.requests_completed && md.stats <= m.requests_completed + 8, "{md:?}");
        assert!(md.stat_misses < md.stats / 2, "the working set's metadata is cached: {md:?}");
        assert_eq!(md.metadata_reclaims, 0);
    }

    /// A fixed warm-up of a workload measured from its barrier begins at the barrier: the mix runs that
    /// long unmeasured after the file set is created (SPEC SFS's warm-up), then the duration is measured.
    /// Under the automatic rule the barrier itself starts the measured period.
    #[test]
    fn a_fixed_warm_up_begins_at_the_barrier() {
        let w = NfsMix::new(3_000, 8, 2_000.0, 1, 1).unwrap();
        let measured = |warmup: Warmup| {
            let cfg = SimConfig {
                memory_bytes: 32 << 20,
                metadata: Some(parse_metadata("split:p=50%").unwrap()),
                device: DeviceSpec::parse("ssd").unwrap(),
                cpus: 8,
                duration: pagelab_core::Nanos::from_secs(2),
                warmup,
                ..SimConfig::default()
            };
            simulate(cfg, Box::new(w.clone())).unwrap()
        };
        let at_barrier = measured(Warmup::Auto);
        let later = measured(Warmup::Fixed(pagelab_core::Nanos::from_secs(3)));
        let (b, l) = (at_barrier.warmup.seconds, later.warmup.seconds);
        assert!(b > 0.0, "the file set's creation is not measured");
        assert!((l - b - 3.0).abs() < 1e-6, "measured from 3 s after the barrier: {b} then {l}");
        assert_eq!((later.warmup.mode.as_str(), later.sim_seconds), ("fixed", 2.0));
        let done = later.requests_completed as f64;
        assert!((3_000.0..5_000.0).contains(&done), "2,000/s for 2 s: {done}");
    }
}
