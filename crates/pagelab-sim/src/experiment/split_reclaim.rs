//! `split-reclaim`: Fukatani et al.'s split reclaim of the file-metadata cache (papers/004 §IV), beside
//! Linux's conventional reclaim.
//!
//! Sections (the `experiment` column of `results.csv`):
//! - `fig5`: the metadata-intensive batch (`stat-batch`) at 1 to 16 threads under conventional reclaim and
//!   split reclaim with P = 40 %, 50 % and 60 %: worst and mean `stat` latency (Figure 5) and throughput
//!   (Figure 6).
//! - `fig5-3x-dput` and `fig5-joint-inodes`: diagnostics, the batch again with one metadata option away
//!   from the default: 3.x's first release (`first_put=referenced`; conventional and split P = 50 %), and
//!   each inode freed with its dentry (`inode_lru=joint`; conventional).
//! - `fig5-hash-order`: a diagnostic, the batch walking in the order `readdir()` lists hashed directories
//!   (`stat-batch:order=hash`), conventional and split P = 50 %: one directory of every file at each thread
//!   count, and directories of 10 thousand, 100 thousand and a million files (at the paper's size) at the
//!   most threads.
//! - `fig6-app-memory`: a diagnostic, the batch with a share of memory held by the batch program outside
//!   every cache (`--app-memory`; the paper states none): every policy at 16 threads with 5, 10, 15 and
//!   20 % held, and conventional, P = 50 % and P = 60 % at every thread count with 10 % (at scales of 1/8
//!   and larger, 10 % at 16 threads only).
//! - `scale`: conventional reclaim at 8 threads at several scale factors, to state how latency scales with
//!   the model's scale.
//! - `fig2`: the page deallocation time against the number of files, right after creating them and after
//!   random metadata accesses to all of them (Figure 2).
//! - `table3`: the NFS-like mix (`nfs-mix`) under both, P = 50 %: direct reclaims, their processing time
//!   (mean, worst) and metadata reclaims (Table III).
//!
//! The paper's machines: 8 cores and 24 GB for the batch, 32 cores and 64 GB for the NFS server. pagelab
//! runs them divided by the scale factor (`--scale`, default [`SCALE_DEFAULT`]: memory and files divided,
//! cores kept), on the `ssd` (Table II is lost; see `workload::metadata`), with the papers' 2.6 memory model
//! (Linux 3.x, the paper's "latest kernel", computes its watermarks the same way), 2.6.12–2.6.18 readahead
//! for file data (the NFS mix's reads), and ext4's own reads of its metadata blocks (inode-table readahead,
//! directory blocks alone: `workload::metadata::ext4_metadata_read`). Every run states its scale in
//! `results.csv` and the report.
//!
//! Figure 2's procedure, pagelab's reconstruction (the paper gives only the axes): a machine of 24 GiB /
//! scale with a conventional metadata cache creates `files` files (one `stat`-miss insert each, in inode
//! order, each miss reading its directory block and inode-table page through the page cache as the
//! batch's `stat` does; kswapd and direct reclaim running as needed); "after random metadata accesses"
//! then looks up every file once in a random order (a hit sets the object's referenced bit); the page
//! deallocation time is then the CPU time of one direct reclaim (a batch of 32 pages) by a task. One
//! thread drives it, kswapd inline: it measures the state the accesses leave, not concurrency. Two
//! diagnostic series run beside it: under 3.x's first release ([`FirstPut::Referenced`]), and with memory
//! all metadata (no blocks read, so no page cache).
//!
//! Measured (full sweep, scale 1/64, seed 1; 105 runs in 69–75 s on 2 cores, 2026-11-29; 133 with the
//! application-memory diagnostic, 73–85 s, 2026-12-02), with the
//! memory model's first pass (1/4096 of the inactive list), the shrinker told of the inactive list's scan
//! only, direct-reclaim retries, a shrinker batch that counts only its victims (2.6.19–3.11's
//! `__shrink_dcache_sb()`, [`PruneCount::Freed`](pagelab_core::metadata::PruneCount::Freed)), a reclaim that
//! scanned no page counted as 32 (`shrink_slab()`), 3.x's inode LRU
//! ([`InodeLru::Own`](pagelab_core::metadata::InodeLru::Own): a dentry the shrinker frees leaves its inode on
//! an LRU of its own, freed by a later pass; a dentry costs 0.55 µs to free, an inode 1.39 µs, measured),
//! a `stat()`'s `dput()` spinning on the dentry LRU's lock behind a walk (3.x's `dentry_lru_add()`), and
//! ext4's own reads of its metadata blocks (an inode-table miss reads the 32-aligned stretch of the table,
//! 33 blocks; a directory block is read alone; `workload::metadata`):
//! - **Table III's times divided by the scale** (2026-12-03, later). The mix runs at the paper's rate on a
//!   file set divided by the scale, so at 1/64 its 300 s of warm-up and 300 s measured touched each page
//!   of the working set 64 times as often as the paper's run did: the working set was in memory within
//!   seconds (page hit ratio 0.998, 59 pages/s of page-cache demand), where at full size 60,000 op/s
//!   touch each page of the 60 GB working set about 1.3 times in the ten minutes (an estimate from the mix:
//!   about 32,000 pages/s of reads and writes), so the paper measured a page cache still filling. Both times
//!   are now divided by the scale ([`table3_times`]: 4.69 s each at 1/64), which keeps that ratio: at 1/16
//!   and at 1/64 the page cache then needs 4,025 and 3,950 pages/s (page hit ratio 0.870 and 0.871,
//!   measured). kswapd keeps up with that as well, using 0.8 % of a CPU: still no direct reclaim under
//!   either policy; worst `stat` 0.32 and 0.30 ms. The transient diagnostic is unchanged in its reclaims
//!   (4 and 19, in the first 15 ms). The sweep takes 44 s where it took 107. What the paper's direct
//!   reclaims came from is not in this model. An inference, not measured: allocations of more than one
//!   page (an NFS server's network buffers, SLUB's four-page inode slabs) fail the watermark check of their
//!   order in fragmented memory and reclaim directly with free pages to spare (Mel Gorman's direct
//!   compaction patch, LKML 2010-02, describes that path; nfsd's order-n skb allocation failures were
//!   reported on LKML in 2009-06); the model has no page addresses and so no fragmentation.
//! - **Table III after SFS's warm-up** (2026-12-03). Every direct reclaim Table III counted (4 under
//!   conventional reclaim, 19 under split reclaim, seed 1; 4 / 4 / 1 and 19 / 20 / 15 over seeds 1–3)
//!   happened within 15 ms of the barrier, as the mix began on the memory the file set's creation left at
//!   `min` (traced by hand); the 300 s after had none under either policy. SPEC SFS 3.0 runs its load
//!   unmeasured before the measured run (its default warm-up, 300 s: an inference from memory), so Table
//!   III is now measured after 300 s of the mix (`--warmup` counts from a barrier since): no direct reclaim
//!   under either policy, worst `stat` 2.4 ms and 3.1 ms, page hit ratio 0.998, 59 pages/s of page-cache
//!   demand (735 in the transient). The `table3-transient` rows keep the old measurement as a diagnostic.
//!   The claim stays "not reproduced": there is nothing left to compare.
//! - **SLUB's order fallback** (2026-12-03). A new `ext4_inode_cache` slab whose four pages cannot be had
//!   above `min`, after its `__GFP_NORETRY` attempt's one direct reclaim, is now taken as one page of three
//!   inodes (`allocate_slab()`'s `s->min`), where before the insert failed and the task waited. Memory is
//!   short enough for it in one row of the sweep: P = 60 % with 15 % held at 16 threads, 476 k → 503 k
//!   `stat`/s, 5,974 → 4,852 direct reclaims, worst 201 → 302 ms. Table III's worst `stat` moved (19.3 →
//!   18.3 ms conventional, 22.1 → 22.9 ms split); every other row is unchanged. At `--scale 4934 --quick`
//!   (49 usable pages, 32 of them `min`) 3 of 95 runs still run out of memory, against 4: the conventional
//!   one now completes; the three split ones have only slab pages left, which only kswapd may shrink, and
//!   kswapd naps 100 ms after a pass that freed objects but no page.
//! - **The reader's inode-table page first** (2026-12-03). A `stat()` whose inode-table page is not cached
//!   now has that page before the aligned stretch below it, as ext4's `sb_getblk()` of the inode's block
//!   comes before its readahead; in page order the stretch's lower pages took the memory first, and with
//!   memory short the reader's page was never had. Conventional reclaim at 8 / 16 threads: worst 32 → 42 /
//!   56.6 → 56.7 ms, 718 k → 693 k / 809 k → 803 k `stat`/s; the full-scale extrapolation 12.8 → 18.0 s
//!   (exponent 1.27 → 1.33); split P = 50 % over conventional at 16 threads 1.02× → 1.03×. With 10 % of
//!   memory held, P = 60 % at 16 threads 429 k → 486 k `stat`/s against conventional's 825 k → 831 k
//!   (7,096 direct reclaims, 49 congestion waits, worst 401 ms). Split reclaim's own Figure 5 rows and
//!   Table III are unchanged. The numbers in the rest of this list are from before it where they differ.
//! - Split reclaim with P = 50 % cuts the worst `stat` latency at 16 threads by 99.4 % (56.6 ms → 0.31 ms);
//!   split's worst anywhere is 0.31 ms (its batches of 128 objects); P = 50 % beats P = 40 % (828 k against
//!   808 k `stat`/s; miss ratio 0.909 against 0.944). Split P = 50 % is 1.02× conventional's throughput at
//!   16 threads (the paper: 3×): conventional reclaim keeps 84 % of memory as metadata, most of it inodes,
//!   and its miss ratio is 0.988.
//! - Conventional reclaim's worst latency grows with threads, 0.13 ms at one, 5.9 at two, 6.0 at four, 32
//!   at eight, 57 at 16, as tasks whose reclaim may enter the file system collect the work `GFP_NOFS` reclaims
//!   deferred (at 8 threads 11 / 39 / 32 / 157 ms from 1/256 to 1/32, about (1/scale)^1.3; 13 s at full
//!   size if the power law held, which four points do not show). With each inode freed with its dentry
//!   (the `fig5-joint-inodes` diagnostic, the model before the inode LRU): 0.18 / 5.1 / 5.6 / 16 / 29 ms,
//!   873 k `stat`/s, miss ratio 0.81.
//! - The `dput()` spin (single runs at 16 threads): conventional 23,296 spins, 0.061 s in all, 11 µs at
//!   most; split P = 50 % 31,836, 0.261 s, 22 µs at most (iswapd walks the dentry LRU all through the
//!   pass: its spins are 7 % of the CPUs' time). A walk holds the lock for one prune call, and the pass's
//!   calls are short (its objects are mostly new, unreferenced), so a spin is microseconds, not the stall
//!   a whole-LRU walk would be. Throughput at 16 threads, before → after the spin (the model before ext4's
//!   reads): conventional 789 k → 734 k, split P = 50 % 889 k → 828 k.
//! - Until 2026-11-29 a `stat()` whose insert reclaimed looked its object up again when it resumed after
//!   the reclaim's CPU time (setting the new object's referenced bit) or, if reclaim had freed it
//!   meanwhile, inserted it again: about one `stat()` in ten at 8 threads. Fixing that alone moved
//!   conventional reclaim at 16 threads from 809 k to 789 k `stat`/s and its worst from 87 to 107 ms
//!   (1.10× → 1.13×).
//! - **ext4's own reads** (2026-11-29; before, both blocks went through the handler's 2.6 readahead, which
//!   ramped its windows along the inode-order walk). Split reclaim moves by under 1 % (it keeps the whole
//!   table cached). Conventional reclaim at 1 / 2 / 4 / 8 / 16 threads: 134 k / 252 k / 454 k / 674 k /
//!   734 k → 131 k / 220 k / 405 k / 718 k / 809 k `stat`/s, worst 0.10 / 3.9 / 29 / 62 / 114 →
//!   0.13 / 5.9 / 6.0 / 32 / 57 ms; its disk requests at 16 threads 5,328 of 4.9 pages → 2,061 of 7.8;
//!   direct reclaims 1,174 → 619. Split P = 50 % over conventional at 16 threads: 1.13× → 1.02×. The NFS
//!   mix gained direct reclaims (below).
//! - **The walk's order** (the `fig5-hash-order` diagnostic: `readdir()`'s order in hashed directories,
//!   which the paper does not state). In one directory of every file, conventional reclaim must read
//!   inode-table pages again (49,818 disk requests at one thread, against 4,494 in inode order), and split
//!   P = 50 % makes 1.48× its `stat`/s at one thread, 1.49× at 8 and 1.11× at 16; in directories of 10
//!   thousand to a million files at the paper's size, 1.00–1.10× at 16 threads (2026-12-06, after the
//!   watermarks stopped moving with the threads' stacks, `0c6fcc5`; 1.52×, 1.10× and 1.03–1.09× before).
//!   The order widens the gap
//!   where one thread waits on the disk; it does not make the paper's 3×.
//! - Figure 2 (its driver reads the metadata blocks as the batch's `stat()` does): 0.65–1.2 ms after
//!   creation up to 25 million / 64 files (a reclaim frees dentries, whose inodes wait on the inode LRU);
//!   after random accesses linear in the files, one batch walking the whole dentry LRU past the referenced
//!   objects: 0.77 ms at 1,562 files, 16.6 ms at ten million / 64, 0.35 ms at 25 million / 64, where the
//!   metadata no longer fits and the accesses run under reclaim. A line through these gives 1.02 s at ten
//!   million files at full size. ext4's reads changed only the 25-million point (1.31 → 1.20 ms after
//!   creation, 0.46 → 0.35 ms after random accesses).
//! - **Memory the batch program holds** (the `fig6-app-memory` diagnostic, 2026-12-02). In Figure 5's runs
//!   P = 60 % never reclaims directly: its metadata at `Md` (63 % of memory) and the inode table fit
//!   together. The paper's P = 60 % did, and was no better than conventional reclaim. With 10 % of memory
//!   held outside the caches (38 MiB here, 2.4 GB at full size), P = 60 % at 16 threads reclaims directly
//!   3,867 times and reads the disk 6,677 times (conventional reclaim: 671 and 4,062). Its direct
//!   reclaims may take only page cache, and 74 times they find too little of it (the rest is the inode
//!   table the pass is reading): the task then sleeps 2.6's congestion wait, 100 ms, which no write ends
//!   sooner in a batch that writes nothing. That is 7.4 s of its 16 threads' 14.9 s: 429 k `stat`/s,
//!   0.52× conventional's 825 k, where P = 50 % makes 828 k and P = 40 % 808 k, and a worst `stat` of
//!   506 ms. Before the congestion wait (2026-12-02) such a task tried again at the next completion: 1.0
//!   million waits, 113,671 direct reclaims that took the inode table and 112,973 disk reads to read it
//!   again, 440 k `stat`/s, worst 66 ms: the same loss by another road. By threads (10 % held): P = 60 %
//!   139 / 275 / 538 / 362 / 429 k at 1 / 2 / 4 / 8 / 16, conventional 130 / 220 / 400 / 679 / 825 k,
//!   P = 50 % 136 / 269 / 526 / 838 / 828 k: P = 60 % stops gaining at 8 threads, where its allocations
//!   first outrun kswapd (the paper's reason). With 5 % held nothing changes; with 20 % P = 50 % falls
//!   the same way (443 k) and P = 40 % holds (808 k). So the paper's
//!   order of P = 40, 50 and 60 % comes out once about a tenth of memory is held beside the caches; P = 50
//!   % stays level with conventional reclaim, not 3× it. At the paper's size (16 threads, 10 % held, one
//!   run each, `pagelab simulate`, 2026-12-03): P = 60 % 413 k `stat`/s against conventional reclaim's 831
//!   k, 37,229 direct reclaims, 234,921 disk requests and 5,449 congestion waits (545 s of its threads'
//!   991 s), and a worst `stat` of 32.9 s (at 1/64: 506 ms): a woken task reclaims again, and what it
//!   frees may go to another task's allocation first; nothing orders them. Before the congestion wait:
//!   430 k `stat`/s, 20.9 million direct reclaims, 21.1 million disk reads, 330 million waits, a worst of
//!   29.5 s, and 10 minutes of wall time (2.7 minutes now). Conventional reclaim's worst is 0.98 s there
//!   (as before), against 7.2 s with nothing held.
//! - The NFS mix at 60,000 op/s: kswapd keeps up on average, but the inode-table readahead's 33-page
//!   bursts take free memory below `min` now and then: 4 direct reclaims under conventional reclaim and
//!   19 under split reclaim, 0.058 and 0.056 ms on average, worst 19.3 and 22.1 ms `stat` (the paper: 13 %
//!   fewer under split reclaim, 99 % shorter); metadata 10 % of memory, metadata reclaim never triggered.
//!   (11 and 18 before the congestion wait: a writer over its dirty limit now sleeps until a write request
//!   is freed below the queue's congestion-off mark, not a fixed time; 12 and 20, worst 17.2 and 12.9 ms,
//!   before pdflush's passes stopped at write congestion and went on, 1,024 pages a pass, to the
//!   background ratio. The mix keeps less memory dirty since: 22.3 MiB on average against 26.3 in a
//!   `simulate` of it at 1/64 for 300 s; that this is why conventional reclaim reclaims directly less
//!   often is not traced.)
//!
//! Measured at the paper's size (`--scale 1`, seed 1, 2026-11-29, with ext4's own metadata reads; 91
//! minutes on 2 cores beside other work, 5.2 GB): conventional reclaim's worst `stat` latency is 0.13 ms at
//! one thread, 6.1 ms at two, then 0.13, 4.9 and 7.2 s at 4, 8 and 16 (up to 9.1 million objects of deferred
//! shrinker work, collected by one task): the paper's jump beyond two threads and seconds as in its Figure
//! 5, though not its "over 10 s" (the 1/256–1/32 sweep's power law says 13 s). Before ext4's reads the same
//! run gave 0.1 / 4.0 ms / 1.1 / 2.3 / 5.6 s. Split reclaim's worst is 0.32 ms (100.0 % less at 16
//! threads). Split P = 50 % makes 830 k `stat`/s against conventional's 796 k (1.04×, as before ext4's
//! reads; the paper: 3×; 1/64 gives 1.02×), P = 60 % 1.08×. With each inode freed with its dentry the same
//! sweep gives 6.1 ms / 0.28 / 0.50 s from four threads: the inode LRU, which keeps 1,128-byte inodes in
//! memory passes after their dentries, is what makes conventional reclaim's stalls seconds long. Figure 2:
//! after creation 0.9 to 3.8 ms from 100 thousand to 25 million files; after random accesses 10.8 ms at 100
//! thousand files, 102 ms at a million, 1.00 s at ten million: the paper's figure, flat after creation
//! against "longer than 1 s" beyond ten million files after random accesses. At 25 million it falls to 1.8
//! ms, where the paper's keeps rising: the metadata (33 GB) no longer fits, and the accesses run under
//! reclaim, which clears the bits they set. Table III runs at 1/3 there (the full SFS file set has more
//! files than page keys name): 6 direct reclaims under conventional reclaim and 26 under split reclaim, 1.26
//! and 1.23 ms on average. The hash-order diagnostic in one directory of every file: split P = 50 % makes
//! 1.47× conventional's `stat`/s at one thread, 1.46× at 8 and 1.20× at 16 (conventional reclaim 3.0
//! million disk requests against split reclaim's none, and a worst `stat` of 5.9 s at 16 threads);
//! 1.03–1.05× in directories of 10 thousand to a million files.
//!
//! **The first release** (the `fig5-3x-dput` diagnostic rows: conventional and split P = 50 % with
//! [`FirstPut::Referenced`], 3.x's `dput()`, which marks a new dentry referenced). At the paper's size
//! conventional reclaim's worst `stat` is then 5.8 / 7.1 / 2,768 / 3,634 / 1,644 ms at 1 / 2 / 4 / 8 / 16
//! threads, with up to 6.9 million objects of deferred shrinker work; split reclaim's worst is 0.89 ms and
//! its throughput 1.02× conventional's (752 k against 737 k `stat`/s). (With each inode freed with its
//! dentry, this rule gave 0.2–0.4 s from four threads, in an earlier model.) The rule also makes Figure 2's deallocation after
//! creation grow as after random accesses (every new object starts referenced), where the paper's stays flat,
//! so the default keeps the one its Figures 2 and 3 follow, and the report shows both.
//!
//! **Figure 2 needs the page cache.** An earlier reconstruction kept memory all metadata (no blocks
//! read), and the model gave a reclaim that scanned no page no shrinker work. `shrink_slab()` counts such a
//! scan as 32 pages of an LRU of none, so the pass is capped at twice the cache and frees all of it: that
//! series, now a diagnostic (`no page cache`), takes 229 ms at 100 thousand files and 22.9 s at ten
//! million at full size after creation, 23.9 s after random accesses. With the blocks a `stat` reads in
//! the page cache, as the batch has them, the shrinker's share is a fixed number of objects, and only the
//! walk past referenced objects grows with the files.

use super::{Chart, Check, Experiment, Findings, Job, Row, Verdict};
use crate::config::{parse_metadata, MemoryModel, SimConfig, Warmup};
use crate::device::DeviceSpec;
use crate::error::SimError;
use crate::server::{simulate, STAT_MISS_CPU};
use crate::workload::metadata::{
    ext4_metadata_read, metadata_blocks, metadata_file_pages, NfsMix, StatBatch, WalkOrder, INODE_TABLE,
    NFSD_THREADS, NFS_CPUS, NFS_MEMORY_BYTES, NFS_OPS_PER_S, PAPER_CPUS, PAPER_FILES, PAPER_MEMORY_BYTES,
    SCALE_DEFAULT, SEED_DEFAULT,
};
use pagelab_core::buffer::{BufferCache, BufferCacheConfig, DiskRun, Layout, ReadOutcome, ReadStatus};
use pagelab_core::memory::{
    KernelReserve, MemoryConfig, ReclaimCost, ReclaimCosts, WatermarkRule, SWAP_CLUSTER_MAX,
};
use pagelab_core::metadata::{FirstPut, Gfp, MetadataConfig, MetadataReclaim};
use pagelab_core::policy::PolicyKind;
use pagelab_core::Nanos;
use pagelab_core::{FileId, Lbn, StreamId};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;

pub struct SplitReclaim;

/// Figure 5's thread counts.
const THREADS: [u64; 5] = [1, 2, 4, 8, 16];
const THREADS_QUICK: [u64; 3] = [1, 4, 16];
/// The metadata cache ratios of Figures 5 and 6.
const RATIOS_P: [u32; 3] = [40, 50, 60];
/// Figure 2's x axis at full scale: 100 thousand to 25 million files.
const FIG2_FILES: [u64; 8] =
    [100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000];
/// The scale sweep (conventional, 8 threads).
const SCALES: [u64; 4] = [256, 128, 64, 32];
const SCALES_QUICK: [u64; 2] = [256, 64];
/// The quick sweep's scale (a quarter of the default's files and memory).
const SCALE_QUICK: u64 = 256;

/// The policies of Figures 5 and 6: `(policy, ratio_p)` with `ratio_p` 0 for conventional.
fn policies() -> Vec<(&'static str, u32)> {
    std::iter::once(("conventional", 0)).chain(RATIOS_P.iter().map(|&p| ("split", p))).collect()
}

fn metadata_arg(policy: &str, ratio_p: u32) -> String {
    if policy == "split" {
        format!("split:p={ratio_p}%")
    } else {
        "conventional".to_string()
    }
}

/// A Figure 5/6 diagnostic: the batch again with one metadata option away from the default, as rows of
/// its own section.
struct Diagnostic {
    section: &'static str,
    /// The `--metadata` option it sets.
    options: &'static str,
    policies: &'static [(&'static str, u32)],
    /// What it changes and why it is run (the report's paragraph above its table).
    intro: &'static str,
}

/// 3.x's `dput()` ([`FirstPut::Referenced`]), under conventional and split reclaim at P = 50 %.
const DPUT: Diagnostic = Diagnostic {
    section: "fig5-3x-dput",
    options: "first_put=referenced",
    policies: &[("conventional", 0), ("split", 50)],
    intro: "**Diagnostic: the batch under 3.x's `dput()`.** The default gives a new object no referenced bit at \
            its first release, as the paper's Figures 2 and 3 behave (`FirstPut`); the paper's 3.x kernel set \
            `DCACHE_REFERENCED` at every final `dput()`, the first included, so a new dentry survived one scan. \
            The same batch with that semantics (conventional, and split reclaim at P = 50 %):",
};

/// A file's dentry and inode freed together ([`pagelab_core::metadata::InodeLru::Joint`]), under conventional
/// reclaim.
const JOINT: Diagnostic = Diagnostic {
    section: "fig5-joint-inodes",
    options: "inode_lru=joint",
    policies: &[("conventional", 0)],
    intro: "**Diagnostic: the batch with each inode freed with its dentry.** The default is 3.x's inode LRU \
            (`InodeLru::Own`): a dentry the shrinker frees releases its inode to an LRU of its own, marked \
            referenced, where a later pass frees it, so the four-page inode slabs come free two passes after \
            the dentries at the earliest. With the pair freed at once (`inode_lru=joint`, pagelab's model \
            before it had the inode LRU), conventional reclaim:",
};

const DIAGNOSTICS: [&Diagnostic; 2] = [&DPUT, &JOINT];

/// The application-memory diagnostic's section: the batch with a share of memory held by the backup program
/// outside every cache (`SimConfig::app_memory_bytes`).
const APP_MEMORY: &str = "fig6-app-memory";
/// Its shares of memory (%), each under every policy of Figures 5 and 6 at the most threads; the quick
/// sweep runs the thread sweep's share only, and scales of 1/8 and larger (whose runs take a minute or
/// more each) that share at the most threads only.
const APP_PERCENTS: [u32; 4] = [5, 10, 15, 20];
/// The share its thread sweep holds, and the policies it runs at every thread count.
const APP_PERCENT_THREADS: u32 = 10;
const APP_SWEEP_POLICIES: [(&str, u32); 3] = [("conventional", 0), ("split", 50), ("split", 60)];
/// The largest scale factor whose runs are large enough to run the diagnostic at one point only.
const APP_SCALE_LARGE: u64 = 8;

/// The walk-order diagnostic's section: the batch `stat()`ing in hashed directories' listing order.
const HASH_ORDER: &str = "fig5-hash-order";
/// Its directory sizes at the paper's size (files a directory, divided by the scale), beside one directory
/// of every file, which it runs at every thread count.
const HASH_DIRS_PAPER: [u64; 3] = [10_000, 100_000, 1_000_000];

/// `--metadata` for `policy` with `options` (none: the default's).
fn metadata_arg_with(policy: &str, ratio_p: u32, options: &str) -> String {
    let base = metadata_arg(policy, ratio_p);
    match (options.is_empty(), policy == "split") {
        (true, _) => base,
        (false, true) => format!("{base},{options}"),
        (false, false) => format!("{base}:{options}"),
    }
}

/// The batch's simulation at `scale`: memory 24 GiB / scale, 8 CPUs, the ssd.
fn batch_config(policy: &str, ratio_p: u32, scale: u64, seed: u64) -> Result<SimConfig, SimError> {
    batch_config_with(policy, ratio_p, scale, seed, "")
}

fn batch_config_with(
    policy: &str,
    ratio_p: u32,
    scale: u64,
    seed: u64,
    options: &str,
) -> Result<SimConfig, SimError> {
    Ok(SimConfig {
        memory_bytes: PAPER_MEMORY_BYTES / scale,
        memory_model: MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 },
        metadata: Some(parse_metadata(&metadata_arg_with(policy, ratio_p, options))?),
        prefetcher: "linux-2.6".parse()?,
        device: DeviceSpec::parse("ssd").map_err(|e| SimError::Config(e.to_string()))?,
        cpus: PAPER_CPUS,
        duration: SimConfig::UNTIL_DONE,
        seed,
        ..SimConfig::default()
    })
}

/// One run of the batch, as a row of `section`: `threads` threads under `policy` (`ratio_p`: its P, 0 for
/// conventional) with metadata `options` ("" for the defaults), the pass walking in `walk` order (a
/// hashed-directory walk adds its `dir_files` to the row), and `app_percent` % of memory held by the batch
/// program outside the caches (the application-memory diagnostic adds it to the row).
#[derive(Clone, Copy, Debug)]
struct Batch {
    section: &'static str,
    policy: &'static str,
    ratio_p: u32,
    threads: u64,
    scale: u64,
    options: &'static str,
    walk: WalkOrder,
    app_percent: u32,
    seed: u64,
}

impl Batch {
    /// Figure 5's run: the defaults of everything else.
    fn fig5(policy: &'static str, ratio_p: u32, threads: u64, scale: u64, seed: u64) -> Batch {
        Batch {
            section: "fig5",
            policy,
            ratio_p,
            threads,
            scale,
            options: "",
            walk: WalkOrder::Inode,
            app_percent: 0,
            seed,
        }
    }

    fn run(self) -> Result<Row, SimError> {
        let Batch { section, policy, ratio_p, threads, scale, options, walk, app_percent, seed } = self;
        let base = batch_config_with(policy, ratio_p, scale, seed, options)?;
        let cfg = SimConfig { app_memory_bytes: base.memory_bytes * app_percent as u64 / 100, ..base };
        // The paper's files over the scale, one random access per file before the pass.
        let files = PAPER_FILES / scale;
        let workload = StatBatch::new(files, threads, files, scale, SEED_DEFAULT)?.walk_order(walk)?;
        let m = simulate(cfg, Box::new(workload))?;
        let md = m.metadata.clone().unwrap_or_default();
        let secs = m.sim_seconds.max(f64::MIN_POSITIVE);
        let usable_pages = m.memory.usable_bytes as f64 / pagelab_core::PAGE_SIZE_BYTES as f64;
        Ok(Row {
            params: vec![
                ("experiment".into(), section.into()),
                ("policy".into(), policy.into()),
                ("ratio_p".into(), (ratio_p as u64).into()),
                ("threads".into(), threads.into()),
                ("files".into(), files.into()),
                ("scale".into(), scale.into()),
            ]
            .into_iter()
            .chain(match walk {
                WalkOrder::Inode => None,
                WalkOrder::Hash { dir_files } => Some(("dir_files".into(), dir_files.into())),
            })
            .chain((app_percent > 0).then(|| ("app_memory_percent".into(), (app_percent as u64).into())))
            .collect(),
            metrics: vec![
                ("worst_latency_ms".into(), m.latency_ms.max),
                ("mean_latency_ms".into(), m.latency_ms.mean),
                ("throughput_ops_s".into(), m.requests_completed as f64 / secs),
                ("direct_reclaims".into(), m.memory.direct_reclaims as f64),
                ("direct_reclaim_ms_mean".into(), m.memory.direct_reclaim_ms_mean),
                ("direct_reclaim_ms_max".into(), m.memory.direct_reclaim_ms_max),
                ("direct_reclaim_retries".into(), m.memory.direct_reclaim_retries as f64),
                ("memory_stalls".into(), m.memory.stalls as f64),
                ("metadata_reclaims".into(), md.metadata_reclaims as f64),
                ("stat_miss_ratio".into(), md.stat_misses as f64 / md.stats.max(1) as f64),
                ("metadata_memory_share".into(), md.pages_end as f64 / usable_pages),
                ("shrinker_objects_scanned".into(), md.shrinker_objects_scanned as f64),
                ("deferred_max_objects".into(), md.deferred_max as f64),
                ("objects_max".into(), md.objects_max as f64),
                ("inodes_end".into(), md.inodes_end as f64),
                ("inodes_unused_max".into(), md.inodes_unused_max as f64),
                ("inode_hits".into(), md.inode_hits as f64),
                ("iswapd_cpu_s".into(), md.iswapd_cpu_s),
                ("kswapd_cpu_s".into(), m.memory.kswapd_cpu_s),
                ("disk_requests".into(), m.disk.requests as f64),
                ("cpu_utilization".into(), m.cpu_utilization),
                ("sim_seconds".into(), m.sim_seconds),
            ],
            series: Vec::new(),
        })
    }
}

/// Table III's scale for a sweep at `scale`: the same, or the smallest whose SFS file set a page key can
/// name ([`NfsMix::scale_min`]: at full size the set has more files than page keys name).
fn table3_scale(scale: u64) -> u64 {
    scale.max(NfsMix::scale_min())
}

/// SPEC SFS 3.0's warm-up before its measured run: the load runs this long unmeasured after the file set is
/// created (inference: SFS 3.0's default `WARMUP_TIME`, 300 s, from memory of its run rules; the paper
/// states the measured 5 minutes only).
const NFS_WARMUP_S: u64 = 300;
/// papers/004 §IV-B-2: "60 000 file-operation requests per second for 5 min".
const NFS_MEASURED_S: u64 = 300;

/// Table III's warm-up and measured run at `scale`: SFS's 300 s and the paper's 5 minutes, each divided by
/// the scale. The rate is the paper's (kswapd's speed is absolute) and the file set is divided by the scale,
/// so only a run divided as well keeps the paper's ratio of the pages the mix touches to its working set
/// (rate × time / set): at full size the 60 GB working set is still filling at the end of the measured
/// run, and at 1/64 for the full 300 s it would be in memory within seconds, leaving the page cache 59
/// pages/s of demand where the paper's run, at 1/16 and at 1/64 alike, has about 4,000 (measured).
fn table3_times(scale: u64) -> (Nanos, Nanos) {
    let divided = |secs: u64| Nanos(Nanos::from_secs(secs).0 / scale.max(1));
    (divided(NFS_WARMUP_S), divided(NFS_MEASURED_S))
}

/// papers/004 §IV-B-2: "The value of P was set to 50%."
const TABLE3_RATIO_P: u32 = 50;

/// The section of Table III's runs, and of the diagnostic measured from the file set's creation on.
const TABLE3: &str = "table3";
const TABLE3_TRANSIENT: &str = "table3-transient";

/// Table III: the NFS-like mix at the paper's 60,000 operations per second on 64 GiB / `scale`, 32 CPUs,
/// for `duration` after `warmup` of the mix once the file set is created, as a row of `section`.
fn nfs_run(
    section: &'static str,
    policy: &str,
    ratio_p: u32,
    scale: u64,
    (warmup, duration): (Nanos, Nanos),
    seed: u64,
) -> Result<Row, SimError> {
    let cfg =
        SimConfig { warmup: Warmup::Fixed(warmup), ..nfs_config(policy, ratio_p, scale, duration, seed)? };
    let files = NfsMix::files_at_scale(scale);
    let workload = NfsMix::new(files, NFSD_THREADS, NFS_OPS_PER_S as f64, scale, SEED_DEFAULT)?;
    let m = simulate(cfg, Box::new(workload))?;
    let md = m.metadata.clone().unwrap_or_default();
    let usable_pages = m.memory.usable_bytes as f64 / pagelab_core::PAGE_SIZE_BYTES as f64;
    Ok(Row {
        params: vec![
            ("experiment".into(), section.into()),
            ("policy".into(), policy.into()),
            ("ratio_p".into(), (ratio_p as u64).into()),
            ("threads".into(), NFSD_THREADS.into()),
            ("files".into(), files.into()),
            ("scale".into(), scale.into()),
            ("warmup_s".into(), warmup.as_secs_f64().into()),
        ],
        metrics: vec![
            ("worst_latency_ms".into(), m.latency_ms.max),
            ("mean_latency_ms".into(), m.latency_ms.mean),
            ("throughput_ops_s".into(), m.requests_completed as f64 / m.sim_seconds.max(f64::MIN_POSITIVE)),
            ("direct_reclaims".into(), m.memory.direct_reclaims as f64),
            ("direct_reclaim_ms_mean".into(), m.memory.direct_reclaim_ms_mean),
            ("direct_reclaim_ms_max".into(), m.memory.direct_reclaim_ms_max),
            ("direct_reclaim_retries".into(), m.memory.direct_reclaim_retries as f64),
            ("metadata_reclaims".into(), md.metadata_reclaims as f64),
            ("kswapd_wakeups".into(), m.memory.kswapd_wakeups as f64),
            ("kswapd_reclaimed_pages".into(), m.memory.kswapd_reclaimed_pages as f64),
            ("metadata_memory_share".into(), md.pages_end as f64 / usable_pages),
            ("objects_max".into(), md.objects_max as f64),
            ("md_objects".into(), md.md_objects as f64),
            ("hit_ratio".into(), m.hit_ratio),
            ("sim_seconds".into(), m.sim_seconds),
        ],
        series: Vec::new(),
    })
}

/// Table III's server: 64 GiB / `scale` and 32 CPUs, for `duration`.
fn nfs_config(
    policy: &str,
    ratio_p: u32,
    scale: u64,
    duration: Nanos,
    seed: u64,
) -> Result<SimConfig, SimError> {
    Ok(SimConfig {
        memory_bytes: NFS_MEMORY_BYTES / scale,
        cpus: NFS_CPUS,
        duration,
        ..batch_config(policy, ratio_p, scale, seed)?
    })
}

/// The paper's machines divided by `scale` must keep at least one file and leave memory for caches beside
/// the kernel's own few MiB (which do not shrink with the scale), for the batch's most threads (with the
/// largest share of memory the application-memory diagnostic holds) and for Table III's nfsd threads: checked
/// before any run starts, with the largest scale that would do.
fn check_scale(scale: u64, quick: bool) -> Result<(), SimError> {
    let fits = |s: u64| -> Result<(), SimError> {
        if s == 0 {
            return Err(SimError::Config("expected a factor of at least 1 (1: the paper's machine)".into()));
        }
        if PAPER_FILES / s == 0 {
            return Err(SimError::Config(format!("the paper's {PAPER_FILES} files / {s} leave none")));
        }
        let threads_max = THREADS.iter().max().copied().unwrap_or(1) as u32;
        let batch = batch_config("conventional", 0, s, 1)?;
        batch.memory(threads_max).map_err(|e| SimError::from(e).context(format!("24 GiB / {s}")))?;
        let held = app_percents(quick, s).iter().copied().max().unwrap_or(0);
        let app_memory_bytes = batch.memory_bytes * held as u64 / 100;
        pinned_pages_fit(&SimConfig { app_memory_bytes, ..batch }, threads_max)
            .map_err(|e| e.context(format!("24 GiB / {s} with {held} % of it held by the batch program")))?;
        let t3 = table3_scale(s);
        let nfs = nfs_config("conventional", 0, t3, Nanos::ZERO, 1)?;
        pinned_pages_fit(&nfs, NFSD_THREADS as u32)
            .map_err(|e| e.context(format!("Table III's 64 GiB / {t3}")))?;
        Ok(())
    };
    fits(scale).map_err(|why| match scale {
        0 => why.context("--scale 0"),
        _ => {
            // Fitting is monotone in the scale (a larger factor only takes memory and files away).
            let (mut lo, mut hi) = (1, scale);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if fits(mid).is_ok() {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let advice = format!("the largest scale that fits is {lo}");
            SimError::WithAdvice { source: Box::new(why), advice }.context(format!("--scale {scale}"))
        }
    })
}

/// The pages one `stat()` in progress may hold that no reclaim can free until it ends: its dentry's slab
/// page, its inode's slab at the cache's full order, and its two blocks in flight (its inode-table page and
/// its directory block; the stretch an inode-table miss reads ahead around its page takes only what is
/// free). `ext4_inode_cache` is the largest slab: four pages.
const PINNED_PAGES_PER_THREAD: u64 = 1 + 4 + 2;

/// The caches of `config`'s memory hold, above the high watermark, what `threads` threads may pin at once
/// ([`PINNED_PAGES_PER_THREAD`]): where they do not, every page a reclaim could free may be pinned, and
/// the run ends out of memory (at 1/4350 with 20 % held, 4 of the full sweep's 135 runs did, conventional
/// reclaim's among them, when only the high watermark was checked).
fn pinned_pages_fit(config: &SimConfig, threads: u32) -> Result<(), SimError> {
    let memory = config.memory(threads)?;
    let pinned = threads as u64 * PINNED_PAGES_PER_THREAD;
    let (usable, high) = (memory.usable_pages() as u64, memory.watermarks.high as u64);
    if usable <= high + pinned {
        return Err(SimError::Config(format!(
            "{usable} pages for caches do not hold, above the high watermark ({high} pages), the {pinned} that \
             {threads} threads may pin at once ({PINNED_PAGES_PER_THREAD} each: the slab pages of the objects \
             in use and the blocks in flight)"
        )));
    }
    Ok(())
}

/// Figure 2: the CPU time of one direct reclaim after `files` creations (and, if `after_random`, random
/// accesses to every file) on 24 GiB / `scale` (see the module doc).
fn deallocation_run(
    files: u64,
    scale: u64,
    after_random: bool,
    first_put: FirstPut,
    blocks: bool,
    seed: u64,
) -> Result<Row, SimError> {
    let memory = MemoryConfig::linux(
        PAPER_MEMORY_BYTES / scale,
        KernelReserve::LINUX_2_6,
        1,
        WatermarkRule::Linux26,
        ReclaimCosts::LINUX_2_6,
    )?;
    let mut config = BufferCacheConfig::new(memory, PolicyKind::TwoList, "none".parse()?);
    config.metadata =
        Some(MetadataConfig { first_put, ..MetadataConfig::linux(MetadataReclaim::Conventional) });
    let mut cache = BufferCache::new(config)?;
    let mut driver = Driver {
        now: Nanos::ZERO,
        out: ReadOutcome::default(),
        fetches: Vec::new(),
        blocks: blocks.then_some(files),
    };
    for ino in 0..files {
        driver.stat(&mut cache, ino)?;
    }
    if after_random {
        let mut order: Vec<u64> = (0..files).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        for ino in order {
            driver.stat(&mut cache, ino)?;
        }
    }
    // Every reclaim under way has finished; then one task reclaims.
    driver.now += Nanos::from_secs(3600);
    cache.settle(driver.now);
    let objects = cache.metadata().map_or(0, |m| m.objects());
    let cost = cache.reclaim_directly(driver.now, Gfp::Kernel, &mut driver.fetches);
    let state = fig2_state(after_random, first_put, blocks);
    Ok(Row {
        params: vec![
            ("experiment".into(), "fig2".into()),
            ("policy".into(), "conventional".into()),
            ("ratio_p".into(), 0u64.into()),
            ("threads".into(), 1u64.into()),
            ("files".into(), files.into()),
            ("scale".into(), scale.into()),
            ("state".into(), state.into()),
        ],
        metrics: vec![
            ("deallocation_ms".into(), cache.reclaim_time(cost).as_ms_f64()),
            ("objects_cached".into(), objects as f64),
            ("objects_scanned".into(), cost.objects_scanned as f64),
            ("objects_freed".into(), cost.objects_freed as f64),
            ("inodes_freed".into(), cost.inodes_freed as f64),
            ("pages_freed".into(), cost.freed as f64),
        ],
        series: Vec::new(),
    })
}

/// Figure 2's series: the state the reclaim finds, the first-release rule, and whether the metadata
/// blocks a `stat` miss reads are in the page cache (the reconstruction) or not (a diagnostic: memory all
/// metadata).
fn fig2_state(after_random: bool, first_put: FirstPut, blocks: bool) -> &'static str {
    match (after_random, first_put, blocks) {
        (false, FirstPut::Unreferenced, true) => "after creation",
        (true, FirstPut::Unreferenced, true) => "after random accesses",
        (false, FirstPut::Referenced, true) => "after creation (3.x dput)",
        (true, FirstPut::Referenced, true) => "after random accesses (3.x dput)",
        (false, FirstPut::Unreferenced, false) => "after creation (no page cache)",
        (true, FirstPut::Unreferenced, false) => "after random accesses (no page cache)",
        (false, FirstPut::Referenced, false) => "after creation (3.x dput, no page cache)",
        (true, FirstPut::Referenced, false) => "after random accesses (3.x dput, no page cache)",
    }
}

/// Figure 2's series, (first-release rule, metadata blocks in the page cache): the reconstruction first.
const FIG2_SERIES: [(FirstPut, bool); 3] =
    [(FirstPut::Unreferenced, true), (FirstPut::Referenced, true), (FirstPut::Unreferenced, false)];

/// The metadata blocks laid out one file after the other (their disk places do not matter here: the
/// driver completes every fetch at once).
struct BlockFiles;
impl Layout for BlockFiles {
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        out.push(DiskRun { file_page: start, lbn: Lbn((u64::from(file.0) << 32) + start), pages: n });
    }
}

/// A one-task driver of the buffer cache for Figure 2: each `stat` costs its CPU and its reclaim, kswapd's
/// steps run inline when it is awake. With `blocks` (the file count), a miss first reads the file's
/// directory block and inode-table page through the page cache, as the batch's `stat` does, so that the
/// page cache holds what creating and looking up the files leaves there.
struct Driver {
    now: Nanos,
    out: ReadOutcome,
    fetches: Vec<pagelab_core::buffer::Fetch>,
    blocks: Option<u64>,
}

impl Driver {
    /// Page `page` of metadata file `file` (`pages` long) into the page cache, as a `GFP_NOFS` read whose
    /// fetch completes at once. Bounded: every round completes a fetch, reclaims, or ends.
    fn read_block(
        &mut self,
        cache: &mut BufferCache<()>,
        file: FileId,
        page: u64,
        pages: u64,
    ) -> Result<(), SimError> {
        let cursor = cache.begin_read(self.now, StreamId(1), file, page, page + 1, pages)?;
        let mut cursor = ext4_metadata_read(cursor, file == INODE_TABLE);
        for _ in 0..64 {
            let mut out = ReadOutcome::default();
            cache.read(self.now, &mut cursor, &BlockFiles, &mut out)?;
            self.now += cache.reclaim_time(out.reclaim());
            for fetch in &out.fetches {
                cache.fetch_done(self.now, fetch)?;
            }
            match out.status {
                ReadStatus::Done => return Ok(()),
                ReadStatus::Blocked { .. } => {}
                ReadStatus::NoMemory | ReadStatus::Throttled => self.run_kswapd(cache),
            }
        }
        Err(SimError::Config(format!("page {page} of metadata file {} was never read", file.0)))
    }

    fn stat(&mut self, cache: &mut BufferCache<()>, ino: u64) -> Result<(), SimError> {
        self.out.clear();
        if !cache.metadata_lookup(ino) {
            let mut held = false;
            if let Some(files) = self.blocks {
                // The directory's block, then the inode's page unless the inode is still cached (the
                // lookup then holds it), as the batch's `stat` reads them.
                let pages = metadata_file_pages(files);
                let (dir, inode) = metadata_blocks(ino);
                self.read_block(cache, dir.0, dir.1, pages[dir.0 .0 as usize])?;
                held = cache.metadata_iget(ino);
                if !held {
                    self.read_block(cache, inode.0, inode.1, pages[inode.0 .0 as usize])?;
                }
            }
            if !cache.metadata_insert(self.now, ino, held, &mut self.out) {
                return Err(SimError::Config(format!("no memory for file {ino}'s metadata")));
            }
            self.now += STAT_MISS_CPU + cache.reclaim_time(self.out.reclaim());
        }
        assert_eq!(cache.metadata_lookups_holding(), 0, "a stat() left an inode held");
        self.run_kswapd(cache);
        Ok(())
    }

    /// kswapd's steps, inline, while it is awake: bounded (each frees pages or puts it to sleep).
    fn run_kswapd(&mut self, cache: &mut BufferCache<()>) {
        while let Some(cost) = cache.kswapd_step(self.now, &mut self.fetches) {
            self.now += cache.reclaim_time(cost);
        }
    }
}

fn scale_of(scale: Option<u64>, quick: bool) -> u64 {
    scale.unwrap_or(if quick { SCALE_QUICK } else { SCALE_DEFAULT })
}

impl SplitReclaim {
    fn sweep(&self, quick: bool, seed: u64, scale: u64) -> Vec<Job> {
        let mut jobs = Vec::new();
        let threads: &[u64] = if quick { &THREADS_QUICK } else { &THREADS };
        for (policy, p) in policies() {
            for &t in threads {
                let label = format!("fig5 {} threads={t} scale={scale}", metadata_arg(policy, p));
                jobs.push(Job::new(label, move || Batch::fig5(policy, p, t, scale, seed).run()));
            }
        }
        for d in DIAGNOSTICS {
            for &(policy, p) in d.policies {
                for &t in threads {
                    let label = format!(
                        "{} {} threads={t} scale={scale}",
                        d.section,
                        metadata_arg_with(policy, p, d.options)
                    );
                    let batch = Batch {
                        section: d.section,
                        options: d.options,
                        ..Batch::fig5(policy, p, t, scale, seed)
                    };
                    jobs.push(Job::new(label, move || batch.run()));
                }
            }
        }
        jobs.extend(hash_order_jobs(threads, scale, seed));
        jobs.extend(app_memory_jobs(threads, quick, scale, seed));
        let scales: &[u64] = if quick { &SCALES_QUICK } else { &SCALES };
        for &s in scales {
            let batch = Batch { section: "scale", ..Batch::fig5("conventional", 0, 8, s, seed) };
            jobs.push(Job::new(format!("scale conventional threads=8 scale={s}"), move || batch.run()));
        }
        // The paper's five minutes after SFS's warm-up, both divided by the scale (`table3_times`). The
        // diagnostic is measured from the file set's creation on, without the warm-up.
        let nfs_scale = table3_scale(scale);
        let (nfs_warmup, nfs_duration) = table3_times(nfs_scale);
        for (section, warmup) in [(TABLE3, nfs_warmup), (TABLE3_TRANSIENT, Nanos::ZERO)] {
            for (policy, p) in [("conventional", 0), ("split", TABLE3_RATIO_P)] {
                let label = format!("{section} {} scale={nfs_scale}", metadata_arg(policy, p));
                let times = (warmup, nfs_duration);
                jobs.push(Job::new(label, move || nfs_run(section, policy, p, nfs_scale, times, seed)));
            }
        }
        // The reconstruction (the metadata blocks in the page cache), then two diagnostics: 3.x's first
        // release, and memory all metadata (no page cache).
        for (first_put, blocks) in FIG2_SERIES {
            for after_random in [false, true] {
                for &f in &FIG2_FILES {
                    let files = (f / scale).max(1);
                    let label = format!(
                        "fig2 files={files} scale={scale} random={after_random} {first_put:?}{}",
                        if blocks { " blocks" } else { "" }
                    );
                    jobs.push(Job::new(label, move || {
                        deallocation_run(files, scale, after_random, first_put, blocks, seed)
                    }));
                }
            }
        }
        jobs
    }
}

/// The walk-order diagnostic: conventional and split P = 50 % in one hashed directory of every file at each
/// of `threads`, and in directories of [`HASH_DIRS_PAPER`] files (over the scale) at the most threads.
fn hash_order_jobs(threads: &[u64], scale: u64, seed: u64) -> Vec<Job> {
    let files = PAPER_FILES / scale;
    let threads_max = threads.iter().copied().max().unwrap_or(1);
    let mut runs: Vec<(u64, u64)> = threads.iter().map(|&t| (t, files)).collect();
    for &d in &HASH_DIRS_PAPER {
        // At a large scale two sizes can come to the same count: run it once.
        let run = (threads_max, (d / scale).clamp(1, files));
        if !runs.contains(&run) {
            runs.push(run);
        }
    }
    let mut jobs = Vec::new();
    for (t, dir_files) in runs {
        for (policy, p) in [("conventional", 0), ("split", 50)] {
            let walk = WalkOrder::Hash { dir_files };
            let label =
                format!("{HASH_ORDER} {} threads={t} dir={dir_files} scale={scale}", metadata_arg(policy, p));
            let batch = Batch { section: HASH_ORDER, walk, ..Batch::fig5(policy, p, t, scale, seed) };
            jobs.push(Job::new(label, move || batch.run()));
        }
    }
    jobs
}

/// The shares of memory (%) the application-memory diagnostic holds at the most threads.
fn app_percents(quick: bool, scale: u64) -> &'static [u32] {
    if quick || scale <= APP_SCALE_LARGE {
        &[APP_PERCENT_THREADS]
    } else {
        &APP_PERCENTS
    }
}

/// The application-memory diagnostic: every policy at the most threads with each of [`APP_PERCENTS`] of
/// memory held (only [`APP_PERCENT_THREADS`] in the quick sweep and from scale 1/[`APP_SCALE_LARGE`] up),
/// and conventional, P = 50 % and P = 60 % at the other thread counts with [`APP_PERCENT_THREADS`] (not
/// from scale 1/[`APP_SCALE_LARGE`] up).
fn app_memory_jobs(threads: &[u64], quick: bool, scale: u64, seed: u64) -> Vec<Job> {
    let threads_max = threads.iter().copied().max().unwrap_or(1);
    let large = scale <= APP_SCALE_LARGE;
    let percents = app_percents(quick, scale);
    let mut runs: Vec<(&'static str, u32, u64, u32)> = Vec::new();
    for &held in percents {
        runs.extend(policies().into_iter().map(|(policy, p)| (policy, p, threads_max, held)));
    }
    for &t in threads.iter().filter(|&&t| t != threads_max && !large) {
        runs.extend(APP_SWEEP_POLICIES.map(|(policy, p)| (policy, p, t, APP_PERCENT_THREADS)));
    }
    runs.into_iter()
        .map(|(policy, p, t, held)| {
            let label =
                format!("{APP_MEMORY} {} threads={t} app={held}% scale={scale}", metadata_arg(policy, p));
            let batch =
                Batch { section: APP_MEMORY, app_percent: held, ..Batch::fig5(policy, p, t, scale, seed) };
            Job::new(label, move || batch.run())
        })
        .collect()
}

impl Experiment for SplitReclaim {
    fn name(&self) -> &'static str {
        "split-reclaim"
    }

    fn title(&self) -> &'static str {
        "Split reclaim of the file-metadata cache (papers/004): stat latency and throughput, deallocation time"
    }

    fn description(&self) -> &'static str {
        "Runs papers/004's metadata-intensive batch (threads stat() every file after random metadata \
         accesses) at 1 to 16 threads under Linux's conventional reclaim and under split reclaim with P = 40, \
         50 and 60 % (Figures 5 and 6), conventional reclaim at several scale factors, and the page \
         deallocation time against the number of files after creation and after random accesses (Figure 2). \
         The model is the paper's machine divided by the scale factor (memory and files; 8 CPUs kept)."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        self.sweep(quick, seed, scale_of(None, quick))
    }

    fn jobs_at_scale(&self, quick: bool, seed: u64, scale: Option<u64>) -> Result<Vec<Job>, SimError> {
        let scale = scale_of(scale, quick);
        check_scale(scale, quick)?;
        Ok(self.sweep(quick, seed, scale))
    }

    fn analyze(&self, rows: &[Row], _quick: bool) -> Findings {
        analyze(rows)
    }
}

fn select<'a>(rows: &'a [Row], section: &'a str) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter().filter(move |r| r.text("experiment") == section)
}

/// Metric `key` of Table III's run under `policy`.
fn table3_at(rows: &[Row], policy: &str, key: &str) -> f64 {
    table3_in(rows, TABLE3, policy, key)
}

/// Metric `key` of the run of `section` (Table III's, or its diagnostic's) under `policy`.
fn table3_in(rows: &[Row], section: &str, policy: &str, key: &str) -> f64 {
    select(rows, section).find(|r| r.text("policy") == policy).map_or(f64::NAN, |r| r.num(key))
}

/// Metric `key` of Figure 5's run under `policy` (`p`: its ratio, 0 for conventional) at `threads`.
fn fig5_at(rows: &[Row], policy: &str, p: u32, threads: u64, key: &str) -> f64 {
    batch_at(rows, "fig5", policy, p, threads, key)
}

/// Metric `key` of `section`'s batch run under `policy` (`p`: its ratio) at `threads`.
fn batch_at(rows: &[Row], section: &str, policy: &str, p: u32, threads: u64, key: &str) -> f64 {
    batch_where(rows, section, policy, p, threads, |_| true, key)
}

/// Metric `key` of `section`'s batch run under `policy` (`p`: its ratio) at `threads` that `also` accepts.
fn batch_where(
    rows: &[Row],
    section: &str,
    policy: &str,
    p: u32,
    threads: u64,
    also: impl Fn(&Row) -> bool,
    key: &str,
) -> f64 {
    select(rows, section)
        .find(|r| {
            r.text("policy") == policy
                && r.num("ratio_p") == p as f64
                && r.num("threads") == threads as f64
                && also(r)
        })
        .map_or(f64::NAN, |r| r.metric(key))
}

/// Metric `key` of the 3.x-`dput()` diagnostic's run under `policy` (`p`: its ratio) at `threads`.
fn dput_at(rows: &[Row], policy: &str, p: u32, threads: u64, key: &str) -> f64 {
    batch_at(rows, DPUT.section, policy, p, threads, key)
}

/// A Figure 5/6 diagnostic's table: what the batch does with its option, beside the default.
fn diagnostic_report(rows: &[Row], d: &Diagnostic) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "\n{}\n", d.intro);
    let _ = writeln!(md, "| policy | threads | worst ms | stat/s | direct reclaims | direct mean ms | deferred at most | metadata share |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for r in select(rows, d.section) {
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {:.0} | {} | {:.2} | {:.0} | {:.2} |",
            metadata_arg_with(r.text("policy"), r.num("ratio_p") as u32, d.options),
            r.num("threads"),
            r.metric("worst_latency_ms"),
            r.metric("throughput_ops_s"),
            r.metric("direct_reclaims"),
            r.metric("direct_reclaim_ms_mean"),
            r.metric("deferred_max_objects"),
            r.metric("metadata_memory_share"),
        );
    }
    md
}

/// Metric `key` of the application-memory diagnostic's run under `policy` (`p`: its ratio) at `threads`
/// with `held` % of memory held; `held` 0 reads Figure 5's run.
fn app_at(rows: &[Row], policy: &str, p: u32, threads: u64, held: u32, key: &str) -> f64 {
    if held == 0 {
        return fig5_at(rows, policy, p, threads, key);
    }
    batch_where(rows, APP_MEMORY, policy, p, threads, |r| r.num("app_memory_percent") == held as f64, key)
}

/// The P = 60 % check's note of the application-memory diagnostic at its thread sweep's share (empty
/// without its rows).
fn held_diagnostic(rows: &[Row], t: u64) -> String {
    let h = APP_PERCENT_THREADS;
    let (p60, conv) = (
        app_at(rows, "split", 60, t, h, "throughput_ops_s"),
        app_at(rows, "conventional", 0, t, h, "throughput_ops_s"),
    );
    if p60.is_nan() || conv.is_nan() {
        return String::new();
    }
    format!(" (with {h} % of memory held by the program, a diagnostic: P = 60 % {p60:.0}/s, conventional {conv:.0}/s)")
}

/// The shares of memory the application-memory diagnostic held at `threads`, ascending.
fn app_shares(rows: &[Row], threads: u64) -> Vec<u32> {
    let mut out: Vec<u32> = select(rows, APP_MEMORY)
        .filter(|r| r.num("threads") == threads as f64)
        .map(|r| r.num("app_memory_percent") as u32)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The throughput-and-P = 60 % bullet's last sentence: P = 60 % at the smallest share of memory held that
/// makes it reclaim directly, if any (empty without the diagnostic's rows).
fn app_memory_summary(rows: &[Row], t: u64) -> String {
    let at = |p: u32, held: u32, k: &str| {
        let policy = if p == 0 { "conventional" } else { "split" };
        app_at(rows, policy, p, t, held, k)
    };
    let shares = app_shares(rows, t);
    match shares.iter().find(|&&h| at(60, h, "direct_reclaims") > at(0, h, "direct_reclaims")) {
        Some(&h) => format!(
            " With {h} % of memory held by the batch program outside the caches (the application-memory \
             diagnostic below), P = 60 % reclaims directly {:.0} times and completes {:.0} `stat`/s, {:.2}× \
             conventional reclaim's {:.0}.",
            at(60, h, "direct_reclaims"),
            at(60, h, "throughput_ops_s"),
            at(60, h, "throughput_ops_s") / at(0, h, "throughput_ops_s"),
            at(0, h, "throughput_ops_s")
        ),
        None if !shares.is_empty() => format!(
            " With up to {} % of memory held by the batch program outside the caches (the application-memory \
             diagnostic below), P = 60 % still reclaims directly no more than conventional reclaim.",
            shares.last().copied().unwrap_or(0)
        ),
        None => String::new(),
    }
}

/// The application-memory diagnostic's table, and what it shows of P = 60 % against the other policies.
fn app_memory_report(rows: &[Row]) -> String {
    let mut md = String::new();
    let threads = |r: &&Row| r.num("threads") as u64;
    let Some(t_max) = select(rows, APP_MEMORY).map(|r| threads(&r)).max() else { return md };
    // P = 60 %'s direct reclaims in Figure 5's runs, at every thread count.
    let default_direct: f64 = select(rows, "fig5")
        .filter(|r| r.text("policy") == "split" && r.num("ratio_p") == 60.0)
        .map(|r| r.metric("direct_reclaims"))
        .sum();
    let in_default = if default_direct == 0.0 {
        "In the default runs (Figure 5's) it never reclaims directly: its metadata at `Md` and the inode table \
         fit in memory together."
            .to_string()
    } else {
        format!("In the default runs (Figure 5's) it reclaims directly {default_direct:.0} times in all.")
    };
    let _ = writeln!(
        md,
        "\n**Diagnostic: memory the batch program holds.** The paper's P = 60 % reclaimed directly and was no \
         better than conventional reclaim (Figures 5(b) and 6: its page allocation outran kswapd). {in_default} \
         A differential backup holds data of its own (the previous backup's catalog, say), and the paper gives no \
         size, so these runs hold a share of memory outside every cache (`--app-memory`; split reclaim's `C` \
         still counts it, as the paper's thresholds count all memory). The 0 % rows are Figure 5's:\n"
    );
    let _ = writeln!(md, "| policy | memory held | threads | stat/s | worst ms | mean ms | direct reclaims | disk requests | metadata share |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
    let mut runs: Vec<(u32, u64, &str, u32)> = Vec::new();
    for held in std::iter::once(0).chain(app_shares(rows, t_max)) {
        runs.extend(policies().into_iter().map(|(policy, p)| (held, t_max, policy, p)));
    }
    let mut swept: Vec<u64> = select(rows, APP_MEMORY).map(|r| threads(&r)).filter(|&t| t != t_max).collect();
    swept.sort_unstable();
    swept.dedup();
    for &t in &swept {
        runs.extend(APP_SWEEP_POLICIES.map(|(policy, p)| (APP_PERCENT_THREADS, t, policy, p)));
    }
    for (held, t, policy, p) in runs {
        let get = |k: &str| app_at(rows, policy, p, t, held, k);
        if get("throughput_ops_s").is_nan() {
            continue;
        }
        let _ = writeln!(
            md,
            "| {} | {held} % | {t} | {:.0} | {:.3} | {:.4} | {:.0} | {:.0} | {:.2} |",
            metadata_arg(policy, p),
            get("throughput_ops_s"),
            get("worst_latency_ms"),
            get("mean_latency_ms"),
            get("direct_reclaims"),
            get("disk_requests"),
            get("metadata_memory_share"),
        );
    }
    let h = APP_PERCENT_THREADS;
    swept.push(t_max);
    let by_threads = |policy: &str, p: u32| {
        swept
            .iter()
            .map(|&t| format!("{:.0}", app_at(rows, policy, p, t, h, "throughput_ops_s") / 1000.0))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let at = |policy: &str, p: u32, k: &str| app_at(rows, policy, p, t_max, h, k);
    let x = |p: u32| at("split", p, "throughput_ops_s") / at("conventional", 0, "throughput_ops_s");
    let more = |k: &str| at("split", 60, k) > at("conventional", 0, k);
    let mechanism = if more("direct_reclaims") && more("disk_requests") {
        " With metadata kept out of direct reclaim, its reclaims can only take page cache, here the inode \
         table the pass still needs, so its `stat()`s read it again."
    } else {
        ""
    };
    let stalls = if at("split", 60, "memory_stalls") > 0.0 {
        format!(
            " Its worst `stat()` took {:.1} ms: {:.0} times a task found no page it could take and waited \
             until pages came free or an I/O completed, when every waiting task tries again and nothing \
             orders them, so one can lose many times over.",
            at("split", 60, "worst_latency_ms"),
            at("split", 60, "memory_stalls")
        )
    } else {
        String::new()
    };
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let _ = writeln!(
        md,
        "\nWith {h} % held, `stat`/s (thousands) at {} threads: conventional {}, P = 50 % {}, P = 60 % {}. At {t_max} \
         threads P = 60 % reclaims directly {:.0} times (conventional {:.0}) and reads the disk {:.0} times \
         (conventional {:.0}).{mechanism}{stalls} P = 50 % makes {:.2}× conventional's `stat`/s, P = 40 % {:.2}× and \
         P = 60 % {:.2}×. Against the paper: P = 50 % ahead of P = 40 %, {}; P = 60 % no better than \
         conventional, {}; P = 50 % three times conventional, {}.",
        swept.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" / "),
        by_threads("conventional", 0),
        by_threads("split", 50),
        by_threads("split", 60),
        at("split", 60, "direct_reclaims"),
        at("conventional", 0, "direct_reclaims"),
        at("split", 60, "disk_requests"),
        at("conventional", 0, "disk_requests"),
        x(50),
        x(40),
        x(60),
        yes_no(x(50) > x(40)),
        yes_no(x(60) <= 1.0),
        yes_no(x(50) >= 2.0),
    );
    md
}

/// The walk-order diagnostic's table and what it shows.
fn hash_order_report(rows: &[Row]) -> String {
    let mut md = String::new();
    let runs: Vec<&Row> = select(rows, HASH_ORDER).collect();
    let Some(first) = runs.first() else { return md };
    let (scale, files) = (first.num("scale"), first.num("files"));
    let _ = writeln!(
        md,
        "\n**Diagnostic: the walk in hashed directories' order.** The default walks each thread's files in inode \
         order, so each inode-table page serves 16 `stat()`s in a row and is read once. A backup that `stat()`s \
         what `readdir()` lists meets the files of an ext4 directory with `dir_index` in hash order, unrelated to \
         their inodes (`stat-batch:order=hash,dir=N`): a page of the inode table is then needed again long after \
         it was read, and whether it is still cached depends on how much page cache the reclaim policy leaves. \
         The runs' directories hold 10 thousand, 100 thousand and a million files at the paper's size, divided \
         by the scale (1/{scale}), and one directory holds all {files} files; the paper states neither its walk \
         order nor its directories:\n"
    );
    let _ = writeln!(md, "| policy | files a directory | threads | stat/s | worst ms | disk requests | direct reclaims | metadata share |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for r in &runs {
        let _ = writeln!(
            md,
            "| {} | {:.0} | {} | {:.0} | {:.3} | {:.0} | {:.0} | {:.2} |",
            metadata_arg(r.text("policy"), r.num("ratio_p") as u32),
            r.num("dir_files"),
            r.num("threads"),
            r.metric("throughput_ops_s"),
            r.metric("worst_latency_ms"),
            r.metric("disk_requests"),
            r.metric("direct_reclaims"),
            r.metric("metadata_memory_share"),
        );
    }
    let at = |policy: &str, threads: f64, dir: f64, key: &str| {
        runs.iter()
            .find(|r| r.text("policy") == policy && r.num("threads") == threads && r.num("dir_files") == dir)
            .map_or(f64::NAN, |r| r.metric(key))
    };
    let ratio = |threads: f64, dir: f64| {
        at("split", threads, dir, "throughput_ops_s") / at("conventional", threads, dir, "throughput_ops_s")
    };
    let t_max = runs.iter().map(|r| r.num("threads")).fold(1.0, f64::max);
    // The directory sizes the runs at the most threads had, smallest first (the one directory last).
    let mut dirs: Vec<f64> = runs
        .iter()
        .filter(|r| r.text("policy") == "conventional" && r.num("threads") == t_max)
        .map(|r| r.num("dir_files"))
        .collect();
    dirs.sort_by(f64::total_cmp);
    let inode_order_requests = fig5_at(rows, "conventional", 0, t_max as u64, "disk_requests");
    let _ = writeln!(
        md,
        "\nIn one directory split reclaim (P = 50 %) makes {:.2}× conventional reclaim's `stat`/s at one thread and \
         {:.2}× at {t_max} (inode order: {:.2}× and {:.2}×). Conventional reclaim keeps {:.0} % of memory as \
         metadata (split reclaim {:.0} %) and makes {:.0} disk requests at {t_max} threads, against {:.0} in inode \
         order and split reclaim's {:.0}{} By directory size at {t_max} threads: {}.",
        ratio(1.0, files),
        ratio(t_max, files),
        fig5_at(rows, "split", 50, 1, "throughput_ops_s") / fig5_at(rows, "conventional", 0, 1, "throughput_ops_s"),
        fig5_at(rows, "split", 50, t_max as u64, "throughput_ops_s")
            / fig5_at(rows, "conventional", 0, t_max as u64, "throughput_ops_s"),
        100.0 * at("conventional", t_max, files, "metadata_memory_share"),
        100.0 * at("split", t_max, files, "metadata_memory_share"),
        at("conventional", t_max, files, "disk_requests"),
        inode_order_requests,
        at("split", t_max, files, "disk_requests"),
        if at("conventional", t_max, files, "disk_requests") > 2.0 * inode_order_requests {
            ": the page cache it leaves does not hold the inode table until the walk comes back to a page."
        } else {
            "."
        },
        dirs.iter()
            .map(|&dir| format!("{:.2}× with {:.0} files a directory", ratio(t_max, dir), dir))
            .collect::<Vec<_>>()
            .join(", ")
    );
    md
}

fn pct_less(base: f64, x: f64) -> f64 {
    100.0 * (1.0 - x / base)
}

/// Figure 5(b)'s "increased slightly": the most a mean may rise from one thread to the most, read as
/// slight.
const SLIGHT_RISE_MAX: f64 = 1.5;

/// How the mean `stat` latency rises from the fewest threads to `t` (Figure 5(b)), and why here.
struct LatencyRise {
    p40: f64,
    p50: f64,
    conventional: f64,
    threads_min: u64,
    t: u64,
    cpu_utilization: f64,
    disk_requests: f64,
}

impl LatencyRise {
    fn measured(&self) -> String {
        format!(
            "from {} to {} threads the mean rises {:.2}× under P = 40 %, {:.2}× under P = 50 % and {:.2}× under \
             conventional reclaim; at {} threads under P = 50 % the CPUs are {:.0} % busy and the pass reads the \
             disk {:.0} times",
            self.threads_min,
            self.t,
            self.p40,
            self.p50,
            self.conventional,
            self.t,
            100.0 * self.cpu_utilization,
            self.disk_requests
        )
    }
}

fn slight_rise(rows: &[Row], t: u64) -> LatencyRise {
    let threads_min = select(rows, "fig5").map(|r| r.num("threads") as u64).min().unwrap_or(1);
    let rise = |policy: &str, p: u32| {
        fig5_at(rows, policy, p, t, "mean_latency_ms")
            / fig5_at(rows, policy, p, threads_min, "mean_latency_ms")
    };
    LatencyRise {
        p40: rise("split", 40),
        p50: rise("split", 50),
        conventional: rise("conventional", 0),
        threads_min,
        t,
        cpu_utilization: fig5_at(rows, "split", 50, t, "cpu_utilization"),
        disk_requests: fig5_at(rows, "split", 50, t, "disk_requests"),
    }
}

fn analyze(rows: &[Row]) -> Findings {
    let mut f = Findings::default();
    let scale = select(rows, "fig5").next().map_or(f64::NAN, |r| r.num("scale"));
    let threads_max = select(rows, "fig5").map(|r| r.num("threads") as u64).max().unwrap_or(16);
    let series = |key: &str| -> Vec<(String, Vec<(f64, f64)>)> {
        policies()
            .into_iter()
            .map(|(policy, p)| {
                let points = select(rows, "fig5")
                    .filter(|r| r.text("policy") == policy && r.num("ratio_p") == p as f64)
                    .map(|r| (r.num("threads"), r.metric(key)))
                    .collect();
                (metadata_arg(policy, p), points)
            })
            .collect()
    };
    for (title, key, y) in [
        ("Figure 5(a): worst stat latency", "worst_latency_ms", "worst latency (ms)"),
        ("Figure 5(b): mean stat latency", "mean_latency_ms", "mean latency (ms)"),
        ("Figure 6: throughput", "throughput_ops_s", "stat calls per second"),
    ] {
        f.charts.push(Chart {
            title: format!("{title} (scale 1/{scale})"),
            x_label: "threads".into(),
            y_label: y.into(),
            log_x: true,
            series: series(key),
        });
    }
    let fig2: Vec<(String, Vec<(f64, f64)>)> = FIG2_SERIES
        .iter()
        .flat_map(|&(first_put, blocks)| [false, true].map(|random| fig2_state(random, first_put, blocks)))
        .map(|state| {
            let points = select(rows, "fig2")
                .filter(|r| r.text("state") == state)
                .map(|r| (r.num("files"), r.metric("deallocation_ms")))
                .collect();
            (state.to_string(), points)
        })
        .collect();
    f.charts.push(Chart {
        title: format!("Figure 2: page deallocation time (scale 1/{scale})"),
        x_label: "files".into(),
        y_label: "one direct reclaim (ms)".into(),
        log_x: true,
        series: fig2.clone(),
    });

    let t = threads_max;
    let conv = |k: &str, th: u64| fig5_at(rows, "conventional", 0, th, k);
    let split = |p: u32, k: &str, th: u64| fig5_at(rows, "split", p, th, k);
    let worst_cut = pct_less(conv("worst_latency_ms", t), split(50, "worst_latency_ms", t));
    let throughput_x = split(50, "throughput_ops_s", t) / conv("throughput_ops_s", t);
    let split_worst_max = select(rows, "fig5")
        .filter(|r| r.text("policy") == "split")
        .map(|r| r.metric("worst_latency_ms"))
        .fold(0.0, f64::max);
    let conv_worst: Vec<(f64, f64)> = select(rows, "fig5")
        .filter(|r| r.text("policy") == "conventional")
        .map(|r| (r.num("threads"), r.metric("worst_latency_ms")))
        .collect();
    let scales: Vec<(f64, f64)> =
        select(rows, "scale").map(|r| (r.num("scale"), r.metric("worst_latency_ms"))).collect();
    let dealloc =
        |state: &str| fig2.iter().find(|(s, _)| s == state).map(|(_, p)| p.clone()).unwrap_or_default();
    let (created, random) = (dealloc("after creation"), dealloc("after random accesses"));

    f.summary = vec![
        ("scale".into(), scale),
        ("worst_latency_cut_pct_p50".into(), worst_cut),
        ("throughput_split50_over_conventional".into(), throughput_x),
        ("split_worst_latency_ms_max".into(), split_worst_max),
        ("conventional_worst_latency_ms_max".into(), conv_worst.iter().map(|p| p.1).fold(0.0, f64::max)),
        ("fig2_after_random_ms_max".into(), random.iter().map(|p| p.1).fold(0.0, f64::max)),
        ("fig2_after_creation_ms_max".into(), created.iter().map(|p| p.1).fold(0.0, f64::max)),
    ];

    let dput = |policy: &str, p: u32, k: &str| dput_at(rows, policy, p, t, k);
    f.summary
        .push(("dput_3x_conventional_worst_latency_ms".into(), dput("conventional", 0, "worst_latency_ms")));
    f.summary.push((
        "dput_3x_throughput_split50_over_conventional".into(),
        dput("split", 50, "throughput_ops_s") / dput("conventional", 0, "throughput_ops_s"),
    ));
    let joint = |k: &str| batch_at(rows, JOINT.section, "conventional", 0, t, k);
    f.summary.push(("joint_inodes_conventional_worst_latency_ms".into(), joint("worst_latency_ms")));
    f.summary.push((
        "joint_inodes_throughput_split50_over_conventional".into(),
        fig5_at(rows, "split", 50, t, "throughput_ops_s") / joint("throughput_ops_s"),
    ));
    let fmt_pairs = |v: &[(f64, f64)], unit: &str| {
        v.iter().map(|(x, y)| format!("{x:.0}: {y:.3} {unit}")).collect::<Vec<_>>().join(", ")
    };
    // How the worst latency scales: the power law through the scale sweep's ends, extrapolated to scale 1.
    let (exponent, full_scale_ms) = full_scale_estimate(&scales);
    f.summary.push(("conventional_worst_latency_scale_exponent".into(), exponent));
    f.summary.push(("conventional_worst_latency_ms_full_scale_estimate".into(), full_scale_ms));
    // Grows with threads: beyond two threads the worst is several times (5×) the one-thread worst.
    let one_thread = conv_worst.iter().find(|p| p.0 == 1.0).map_or(f64::NAN, |p| p.1);
    let grows_with_threads = conv_worst.iter().filter(|p| p.0 > 2.0).any(|p| p.1 >= 5.0 * one_thread);
    // At the paper's size the full-scale worst is measured, not extrapolated: the scale sweep stays below
    // the sizes where a reclaim's first pass grows with memory, so its power law misses that growth.
    let (full_scale_ms, full_scale_text) = if scale == 1.0 {
        let worst = conv_worst.iter().filter(|p| p.0 > 2.0).map(|p| p.1).fold(0.0, f64::max);
        (worst, format!("{worst:.1} ms measured at full scale beyond two threads (the sweep's power law gives {full_scale_ms:.1} ms)"))
    } else {
        (full_scale_ms, format!("about {full_scale_ms:.1} ms at full scale, extrapolated (an underestimate where a reclaim's first pass grows with memory, above about 1/4: run --scale 1)"))
    };
    f.checks.push(Check {
        claim: "Conventional: worst stat latency grows to seconds as threads increase (over 10 s beyond two threads at full scale)".into(),
        source: "§IV-B-1, Fig. 5(a)".into(),
        measured: format!(
            "worst latency by threads at scale 1/{scale}: {}; at 8 threads by scale: {} — latency ∝ (1/scale)^{exponent:.2}; \
             {full_scale_text}",
            fmt_pairs(&conv_worst, "ms"),
            fmt_pairs(&scales, "ms")
        ),
        verdict: if grows_with_threads && full_scale_ms >= 10_000.0 {
            Verdict::Reproduced
        } else if grows_with_threads {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    });
    f.checks.push(Check {
        claim: "Split reclaim, P = 50 %, 16 threads: worst latency cut by more than 95 %, and under 1 s at every thread count and P".into(),
        source: "§IV-B-1, Fig. 5(a)".into(),
        measured: format!("{worst_cut:.1} % less at {t} threads; split's worst at any point {split_worst_max:.3} ms"),
        verdict: if worst_cut >= 90.0 && split_worst_max < 1000.0 { Verdict::Reproduced } else { Verdict::NotReproduced },
    });
    f.checks.push(Check {
        claim: "Split reclaim, P = 50 %: throughput three times conventional at 16 threads".into(),
        source: "§IV-B-1, Fig. 6".into(),
        measured: format!("{throughput_x:.2}× at {t} threads"),
        verdict: if throughput_x >= 2.5 {
            Verdict::Reproduced
        } else if throughput_x > 1.1 {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    });
    // "No better": not faster and not lower in mean latency; within 5 % of conventional is partly so.
    let (p60_x, p60_lat) = (
        split(60, "throughput_ops_s", t) / conv("throughput_ops_s", t),
        split(60, "mean_latency_ms", t) / conv("mean_latency_ms", t),
    );
    f.checks.push(Check {
        claim: "P = 60 % no better than conventional in mean latency and throughput".into(),
        source: "§IV-B-1, Fig. 5(b), Fig. 6".into(),
        measured: format!(
            "at {t} threads: P = 60 % {:.0}/s, {:.4} ms; conventional {:.0}/s, {:.4} ms{}",
            split(60, "throughput_ops_s", t),
            split(60, "mean_latency_ms", t),
            conv("throughput_ops_s", t),
            conv("mean_latency_ms", t),
            held_diagnostic(rows, t)
        ),
        verdict: if p60_x <= 1.0 && p60_lat >= 1.0 {
            Verdict::Reproduced
        } else if p60_x <= 1.05 && p60_lat >= 0.95 {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    });
    let (p40, p50) = (split(40, "throughput_ops_s", t), split(50, "throughput_ops_s", t));
    f.checks.push(Check {
        claim: "P = 50 % better than P = 40 % in throughput (more metadata hits)".into(),
        source: "§IV-B-1, Fig. 6".into(),
        measured: format!(
            "at {t} threads: {p50:.0}/s against {p40:.0}/s; stat miss ratio {:.3} against {:.3}",
            split(50, "stat_miss_ratio", t),
            split(40, "stat_miss_ratio", t)
        ),
        verdict: if p50 > p40 { Verdict::Reproduced } else { Verdict::NotReproduced },
    });
    let rise = slight_rise(rows, t);
    f.checks.push(Check {
        claim: format!(
            "Split reclaim, P = 40 % and 50 %: mean stat latency rises only slightly up to {t} threads on {PAPER_CPUS} \
             cores (here: at most {SLIGHT_RISE_MAX}× the one-thread mean)"
        ),
        source: "§IV-B-1, Fig. 5(b)".into(),
        measured: rise.measured(),
        verdict: match (rise.p40 <= SLIGHT_RISE_MAX, rise.p50 <= SLIGHT_RISE_MAX) {
            (true, true) => Verdict::Reproduced,
            (false, false) => Verdict::NotReproduced,
            _ => Verdict::Partial,
        },
    });
    // The claim is about the paper's sizes, 100 thousand to ten million files at full scale. A reclaim's
    // time is a fixed part (the objects it frees, which the scale does not change) and a part in proportion
    // to the files cached (the walk); a line through the points up to ten million files / scale, in the
    // files this run cached, evaluated at the paper's sizes, keeps the fixed part fixed (at scale 1 it
    // passes through the measurements).
    let ten_million = 10_000_000.0;
    let fits = |v: &[(f64, f64)]| -> Vec<(f64, f64)> {
        v.iter().filter(|p| p.0 <= (ten_million / scale).floor()).copied().collect()
    };
    let random_line = fit_line(&fits(&random));
    let full = |files: f64| random_line.0 + random_line.1 * files;
    let random_10m_full_ms = full(ten_million);
    let grows = random_10m_full_ms > 10.0 * full(100_000.0);
    // After creation the time has no part that grows with the files: flat over the measured points.
    let flat = created.iter().map(|p| p.1).fold(0.0, f64::max)
        < 10.0 * created.first().map_or(f64::NAN, |p| p.1).max(1e-3);
    f.checks.push(Check {
        claim: "Page deallocation time flat with the number of files after creation; after random metadata accesses it grows with it, over 1 s beyond ten million files".into(),
        source: "§II-B, Fig. 2".into(),
        measured: format!(
            "after creation: {}; after random accesses: {} (files at scale 1/{scale}); after random accesses at \
             the paper's sizes, by a line through these up to ten million files / {scale}: {:.1} ms at 100 \
             thousand files, {:.2} s at ten million",
            fmt_pairs(&created, "ms"),
            fmt_pairs(&random, "ms"),
            full(100_000.0),
            random_10m_full_ms / 1000.0
        ),
        verdict: match (flat, grows, random_10m_full_ms >= 1000.0) {
            (true, true, true) => Verdict::Reproduced,
            (true, true, false) => Verdict::Partial,
            _ => Verdict::NotReproduced,
        },
    });
    let nfs = |policy: &str, k: &str| table3_at(rows, policy, k);
    let (conv_n, split_n) = (nfs("conventional", "direct_reclaims"), nfs("split", "direct_reclaims"));
    let time_cut =
        pct_less(nfs("conventional", "direct_reclaim_ms_mean"), nfs("split", "direct_reclaim_ms_mean"));
    f.checks.push(Check {
        claim: "NFS-like mix, P = 50 %: 13 % fewer direct reclaims, their mean and worst processing time over 99 % less".into(),
        source: "§IV-B-2, Table III".into(),
        measured: format!(
            "for the paper's 5 minutes after SFS's 300-s warm-up, both divided by the scale ({:.2} s each): direct reclaims: conventional {conv_n}, split {split_n}; mean {:.3} ms against {:.3} ms, worst {:.3} ms against {:.3} ms; measured from the file set's creation instead (`{TABLE3_TRANSIENT}`): conventional {}, split {}",
            nfs("conventional", "warmup_s"),
            nfs("conventional", "direct_reclaim_ms_mean"),
            nfs("split", "direct_reclaim_ms_mean"),
            nfs("conventional", "direct_reclaim_ms_max"),
            nfs("split", "direct_reclaim_ms_max"),
            table3_in(rows, TABLE3_TRANSIENT, "conventional", "direct_reclaims"),
            table3_in(rows, TABLE3_TRANSIENT, "split", "direct_reclaims"),
        ),
        // Partly: conventional reclaims directly and split reclaim is ahead on the count or, beyond the
        // runs' noise, on the time (a cut of a few per cent between reclaims of the same page-cache work is
        // not the paper's).
        verdict: if conv_n > 0.0 && split_n < conv_n && time_cut >= 90.0 {
            Verdict::Reproduced
        } else if conv_n > 0.0 && time_cut > -10.0 && (split_n < conv_n || time_cut >= 10.0) {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    });
    let (objects_max, md) = (nfs("split", "objects_max"), nfs("split", "md_objects"));
    f.checks.push(Check {
        claim: "NFS-like mix: the metadata cache does not reach P; metadata reclaim is not triggered".into(),
        source: "§IV-B-2".into(),
        measured: format!(
            "{} metadata reclaims; at most {objects_max} objects against Md = {md}; metadata {:.1} % of memory",
            nfs("split", "metadata_reclaims"),
            100.0 * nfs("split", "metadata_memory_share")
        ),
        verdict: if nfs("split", "metadata_reclaims") == 0.0 && objects_max <= md {
            Verdict::Reproduced
        } else {
            Verdict::NotReproduced
        },
    });
    f.markdown = report(rows, scale);
    f
}

/// The least-squares line `y = a + b·x` through `points`, as `(a, b)`: `(NaN, NaN)` with fewer than two
/// distinct `x`.
fn fit_line(points: &[(f64, f64)]) -> (f64, f64) {
    if points.len() < 2 {
        return (f64::NAN, f64::NAN);
    }
    let n = points.len() as f64;
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = points
        .iter()
        .fold((0.0, 0.0), |(sxy, sxx), &(x, y)| (sxy + (x - mx) * (y - my), sxx + (x - mx).powi(2)));
    if sxx == 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let b = sxy / sxx;
    (my - b * mx, b)
}

/// The power law `latency ∝ (1/scale)^exponent` through the first and last points of `(scale, latency)`,
/// and its value at scale 1. `(NaN, NaN)` with fewer than two points.
fn full_scale_estimate(points: &[(f64, f64)]) -> (f64, f64) {
    let (Some(&(s0, l0)), Some(&(s1, l1))) = (points.first(), points.last()) else {
        return (f64::NAN, f64::NAN);
    };
    if s0 == s1 || l0 <= 0.0 || l1 <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let exponent = (l1 / l0).ln() / (s0 / s1).ln();
    (exponent, l1 * s1.powf(exponent))
}

/// What the numbers say, and why the claims that do not come out do not.
fn explanation(rows: &[Row], scale: f64) -> String {
    let at = |policy: &str, p: u32, threads: u64, k: &str| fig5_at(rows, policy, p, threads, k);
    let t = select(rows, "fig5").map(|r| r.num("threads") as u64).max().unwrap_or(16);
    let conv = |k: &str| at("conventional", 0, t, k);
    let reclaim_share = conv("direct_reclaims") * conv("direct_reclaim_ms_mean")
        / 1000.0
        / (conv("sim_seconds") * t as f64).max(f64::MIN_POSITIVE);
    let nfs = |policy: &str, k: &str| table3_at(rows, policy, k);
    // The per-object costs the prose quotes, from the constants every run is charged by.
    let costs = ReclaimCosts::LINUX_2_6;
    let us = |ns: u64| ns as f64 / 1000.0;
    let dentry_us = us(costs.scan_ns_per_object + costs.free_ns_per_object);
    let inode_us = us(costs.scan_ns_per_object + costs.free_ns_per_inode);
    let mut md = String::new();
    let _ = writeln!(md, "### What the runs show\n");
    let by_scale: Vec<(f64, f64)> =
        select(rows, "scale").map(|r| (r.num("scale"), r.metric("worst_latency_ms"))).collect();
    let ((s0, w0), (s1, w1)) = (
        by_scale.first().copied().unwrap_or((f64::NAN, f64::NAN)),
        by_scale.last().copied().unwrap_or((f64::NAN, f64::NAN)),
    );
    let scale_threads = select(rows, "scale").next().map_or(f64::NAN, |r| r.num("threads"));
    // The sweep runs from its least memory to its most: say that the worst stall grew with memory only
    // where it did.
    let by_memory = if w1 > w0 {
        format!(
            "A reclaim that scans a fixed fraction of the cache (Figure 2's) shrinks with the scale, and so does \
             the deferred work the longest stalls collect: at {scale_threads} threads the worst latency goes from \
             {w0:.1} ms at 1/{s0} to {w1:.1} ms at 1/{s1} (the `scale` rows)."
        )
    } else {
        format!(
            "A reclaim that scans a fixed fraction of the cache (Figure 2's) shrinks with the scale, yet here the \
             worst latency at {scale_threads} threads does not grow with memory: {w0:.1} ms at 1/{s0}, {w1:.1} ms \
             at 1/{s1} (the `scale` rows)."
        )
    };
    let _ = writeln!(
        md,
        "- **Scale.** Memory and files are the paper's divided by {scale}; CPUs, the per-object costs, the \
         shrinker's batch and the reclaim batch (32 pages) are not. {by_memory} From about scale 1/4 the inactive \
         list is long enough (over 131,072 pages) for a reclaim's first pass, 1/4096 of it, to exceed the 32-page \
         batch, so the stalls grow faster than the sweep's power law says; `--scale 1` runs the paper's size."
    );
    if conv("direct_reclaims") > 0.0 {
        let _ = writeln!(
            md,
            "- **Conventional reclaim's stalls.** At {t} threads conventional direct reclaim ran {} times, {:.2} ms \
             on average and {:.2} ms at worst, {:.1} % of the threads' time. The long ones are tasks whose reclaim \
             may enter the file system (a dentry's slab) and inherits the work that `GFP_NOFS` reclaims (inode \
             slabs, directory and inode-table blocks) deferred: up to {:.0} objects were pending at once, against \
             at most {:.0} dentries and {:.0} unused inodes cached (3.1's cap is half of them). Whoever may enter \
             the file system next collects it: kswapd (always) or a task, and a task that does frees up to half \
             the freeable objects in one reclaim ({dentry_us:.2} µs a dentry, {inode_us:.2} µs an inode, \
             examination included): the longest stalls. Otherwise a task's reclaim stops once its 32 pages are \
             free, with the LRU's end freeable because kswapd's passes give referenced objects their second chance \
             as fast as hits set the bits. Figure 2's state, every cached object referenced at once, makes a \
             single reclaim walk the whole LRU (a shrinker batch counts only its victims and walks on past \
             referenced objects); the batch never reaches it, because its random accesses run under reclaim. A \
             task that finds memory at `min` again when its reclaim's work is done (others took the pages it \
             freed) reclaims again, as `__alloc_pages()` does: {:.0} such retries here.",
            conv("direct_reclaims"),
            conv("direct_reclaim_ms_mean"),
            conv("direct_reclaim_ms_max"),
            100.0 * reclaim_share,
            conv("deferred_max_objects"),
            conv("objects_max"),
            conv("inodes_unused_max"),
            conv("direct_reclaim_retries")
        );
    } else {
        let _ = writeln!(
            md,
            "- **Conventional reclaim's stalls.** At {t} threads conventional reclaim never reclaimed directly: \
             there are no stalls in reclaim to explain."
        );
    }
    let joint = |k: &str| batch_at(rows, JOINT.section, "conventional", 0, t, k);
    let turnover = if conv("stat_miss_ratio") > joint("stat_miss_ratio") {
        ": with the inode LRU the dentries turn over faster"
    } else {
        ""
    };
    let _ = writeln!(
        md,
        "- **3.x's inode LRU.** A dentry the shrinker frees releases its inode to the inode LRU, marked \
         referenced; a later pass clears the bit and the one after frees it, and `prune_super()` gives the inodes \
         only their share of each batch (their count over all unused objects). Freeing a dentry frees 192 bytes \
         (a page per 21); the 1,128-byte inodes, most of the metadata's memory, come free passes later. At {t} \
         threads conventional reclaim ended with {:.0} inodes cached for at most {:.0} dentries, and up to {:.0} \
         inodes on the inode LRU at once; {:.0} `stat` misses found their inode there and read no inode table. The \
         metadata held {:.0} % of memory, the `stat` miss ratio was {:.3}, and direct reclaim ran {:.0} times \
         with a worst of {:.1} ms, at {:.0} `stat`/s. With the pair freed at once (the `inode_lru=joint` \
         diagnostic below): {:.0} % of memory, miss ratio {:.3}, {:.0} direct reclaims, worst {:.1} ms, {:.0} \
         `stat`/s{turnover}.",
        conv("inodes_end"),
        conv("objects_max"),
        conv("inodes_unused_max"),
        conv("inode_hits"),
        100.0 * conv("metadata_memory_share"),
        conv("stat_miss_ratio"),
        conv("direct_reclaims"),
        conv("direct_reclaim_ms_max"),
        conv("throughput_ops_s"),
        100.0 * joint("metadata_memory_share"),
        joint("stat_miss_ratio"),
        joint("direct_reclaims"),
        joint("direct_reclaim_ms_max"),
        joint("throughput_ops_s"),
    );
    let split_over_conv = at("split", 50, t, "throughput_ops_s") / conv("throughput_ops_s");
    let split_worst = at("split", 50, t, "worst_latency_ms");
    let throughput = if split_over_conv >= 1.2 {
        format!(
            "Conventional reclaim's stalls and its dentries' turnover cost it throughput: split reclaim at P = 50 % \
             completes {split_over_conv:.2}× its `stat`/s at {t} threads (the paper: 3×)."
        )
    } else {
        format!(
            "Split reclaim at P = 50 % completes {split_over_conv:.2}× conventional reclaim's `stat`/s at {t} \
             threads (the paper: 3×); conventional reclaim's direct reclaims take {:.1} % of its threads' time.{}",
            100.0 * reclaim_share,
            if split_worst < conv("worst_latency_ms") {
                format!(
                    " Split reclaim's advantage here is its bounded worst case: {split_worst:.3} ms against \
                     {:.1} ms.",
                    conv("worst_latency_ms")
                )
            } else {
                String::new()
            }
        )
    };
    let p60 = |k: &str| at("split", 60, t, k);
    let (p60_direct, p60_disk) = (p60("direct_reclaims"), p60("disk_requests"));
    let count =
        |n: f64, none: &str, some: &str| if n == 0.0 { none.to_string() } else { format!("{n:.0} {some}") };
    let _ = writeln!(
        md,
        "- **Throughput and P = 60 %.** {throughput} P = 60 % keeps {:.0} % of memory as metadata{}: {}, {}, {} \
         metadata hits (miss ratio {:.3} against {:.3} at P = 50 %): {:.0} `stat`/s against conventional's {:.0}. \
         Conventional reclaim itself ends with {:.0} % of memory as metadata (miss ratio {:.3}){} {}{}",
        100.0 * p60("metadata_memory_share"),
        if p60_direct == 0.0 && p60_disk == 0.0 {
            " and the inode table and directory blocks still fit beside it"
        } else {
            ""
        },
        count(p60_direct, "no direct reclaim", "direct reclaims"),
        count(p60_disk, "no disk reads in the pass", "disk reads in the pass"),
        if p60("stat_miss_ratio") < at("split", 50, t, "stat_miss_ratio") { "more" } else { "no more" },
        p60("stat_miss_ratio"),
        at("split", 50, t, "stat_miss_ratio"),
        p60("throughput_ops_s"),
        conv("throughput_ops_s"),
        100.0 * conv("metadata_memory_share"),
        conv("stat_miss_ratio"),
        if conv("metadata_memory_share") > 0.5 {
            ": the shrinker's share follows the inactive list's scan, as the kernel counts it (`sc->nr_scanned`; \
             the active pages aging moves do not count), so under conventional reclaim the page cache gives way \
             before the metadata."
        } else {
            "."
        },
        if p60_direct == 0.0 {
            "The paper's P = 60 % ran into direct reclaim, so on its machine something held memory this model \
             leaves free; the paper does not say what."
                .to_string()
        } else {
            format!("Here too P = 60 % reclaims directly, {p60_direct:.0} times, as the paper's did.")
        },
        app_memory_summary(rows, t)
    );
    let rise = slight_rise(rows, t);
    let neither_slight = rise.p40 > SLIGHT_RISE_MAX && rise.p50 > SLIGHT_RISE_MAX;
    let scaling = if neither_slight && rise.disk_requests == 0.0 {
        format!(
            "A `stat()` that waits for nothing but a CPU cannot do that: {t} threads on {PAPER_CPUS} CPUs queue \
             for them, and here {}. So the paper's `stat()`s must have waited for something other than a CPU for \
             much of their time (metadata read from the disk, which needs more metadata than the page cache left \
             beside P = 50 % could hold, or hardware threads the paper does not mention), leaving CPU time idle \
             that more threads could use.",
            rise.measured()
        )
    } else if neither_slight {
        format!("Here it does not: {}.", rise.measured())
    } else {
        format!("Here it rises at most {SLIGHT_RISE_MAX}× under at least one of them: {}.", rise.measured())
    };
    let p40_p50_disk = (at("split", 40, t, "disk_requests"), at("split", 50, t, "disk_requests"));
    let fit = if p40_p50_disk == (0.0, 0.0) {
        "This model's ext4 inode table and directory blocks fit beside the metadata at P = 40 and 50 % (the pass \
         reads the disk under neither), as they would on the paper's 24 GB if its file system were ext4 with \
         256-byte inodes (6.5 GB for 25.6 million files); the paper's Table II, which would say, is not in our \
         copy."
            .to_string()
    } else {
        format!(
            "This model's ext4 inode table and directory blocks do not all fit beside the metadata at P = 40 and \
             50 %: the pass reads the disk {:.0} and {:.0} times; the paper's Table II, which would say what its \
             file system held, is not in our copy.",
            p40_p50_disk.0, p40_p50_disk.1
        )
    };
    let _ = writeln!(
        md,
        "- **What Figure 6's scaling needs.** The paper's mean `stat` latency under P = 40 and 50 % \
         \"increased slightly even when sixteen threads ran concurrently\" on {PAPER_CPUS} cores, and their \
         throughput \"improved up to sixteen threads\". {scaling} {fit}"
    );
    let secs = nfs("conventional", "sim_seconds").max(f64::MIN_POSITIVE);
    let direct = |policy: &str| nfs(policy, "direct_reclaims");
    // What kswapd's 32-page batch of clean page-cache pages costs, by the costs the runs are charged.
    let batch = SWAP_CLUSTER_MAX as u64;
    let batch_us =
        costs.time(ReclaimCost { scanned: batch, freed: batch, ..ReclaimCost::default() }).0 as f64 / 1e3;
    let reclaims = if direct("conventional") == 0.0 && direct("split") == 0.0 {
        format!(
            "kswapd frees a {batch}-page batch in about {batch_us:.0} µs of CPU, so it stays ahead (woken {} and {} \
             times) and no task reclaims directly under either policy: Table III's comparison has nothing to \
             compare here.",
            nfs("conventional", "kswapd_wakeups"),
            nfs("split", "kswapd_wakeups")
        )
    } else {
        let (conv_ms, split_ms) =
            (nfs("conventional", "direct_reclaim_ms_mean"), nfs("split", "direct_reclaim_ms_mean"));
        format!(
            "kswapd is woken {} times, and still an allocation finds free memory at `min` now and then (one \
             `stat()` miss that reads the inode table asks for {} pages at once): {} direct reclaims under \
             conventional reclaim, {} under split reclaim, {:.3} against {:.3} ms on average, {:.3} against {:.3} \
             ms at worst{}",
            nfs("conventional", "kswapd_wakeups"),
            crate::workload::metadata::INODE_READAHEAD_PAGES + 1,
            direct("conventional"),
            direct("split"),
            conv_ms,
            split_ms,
            nfs("conventional", "direct_reclaim_ms_max"),
            nfs("split", "direct_reclaim_ms_max"),
            if pct_less(conv_ms, split_ms) < 50.0 {
                ": the metadata deallocation latency the paper measured in conventional reclaim's direct reclaims \
                 does not arise here."
            } else {
                "."
            }
        )
    };
    let (objects_max, md_objects, metadata_reclaims) =
        (nfs("split", "objects_max"), nfs("split", "md_objects"), nfs("split", "metadata_reclaims"));
    let below_p = if objects_max <= md_objects && metadata_reclaims == 0.0 {
        format!(
            "at most {objects_max:.0} objects against Md = {md_objects:.0}: below P = {TABLE3_RATIO_P} %, and \
             metadata reclaim is never triggered, as the paper says."
        )
    } else {
        format!(
            "at most {objects_max:.0} objects against Md = {md_objects:.0}, and metadata reclaim ran \
             {metadata_reclaims:.0} times, where the paper's never did."
        )
    };
    // The diagnostic measured from the file set's creation: what it adds to the run after the warm-up.
    let transient = |policy: &str, k: &str| table3_in(rows, TABLE3_TRANSIENT, policy, k);
    let (t_conv, t_split) =
        (transient("conventional", "direct_reclaims"), transient("split", "direct_reclaims"));
    let t_secs = transient("conventional", "sim_seconds");
    let from_creation = if t_conv == 0.0 && t_split == 0.0 {
        format!(
            "no task reclaims directly under either policy (kswapd woken {} and {} times): no allocation found free memory at `min` \
             even in the mix's first {t_secs:.2} s after the creation{}",
            transient("conventional", "kswapd_wakeups"),
            transient("split", "kswapd_wakeups"),
            if direct("conventional") == 0.0 && direct("split") == 0.0 {
                ", so at this scale neither measurement has direct reclaims for Table III to compare."
            } else {
                "."
            }
        )
    } else {
        let (conv_ms, split_ms) = (
            transient("conventional", "direct_reclaim_ms_mean"),
            transient("split", "direct_reclaim_ms_mean"),
        );
        let means = if t_conv > 0.0 && t_split > 0.0 {
            let cut = pct_less(conv_ms, split_ms);
            format!(
                ", {conv_ms:.3} and {split_ms:.3} ms on average (split reclaim's {:.0} % {}; the paper's Table III: \
                 over 99 % less)",
                cut.abs(),
                if cut >= 0.0 { "less" } else { "more" }
            )
        } else {
            format!(", {conv_ms:.3} and {split_ms:.3} ms on average")
        };
        let (w_conv, w_split) = (direct("conventional"), direct("split"));
        let whence = if t_conv + t_split > w_conv + w_split {
            format!(
                ", where the same {t_secs:.2} s after the warm-up had {w_conv:.0} and {w_split:.0}: the difference \
                 lies in the mix's first {t_secs:.2} s after the creation, which writes the whole file set, and \
                 the warm-up leaves it out."
            )
        } else {
            format!(", against {w_conv:.0} and {w_split:.0} in the same {t_secs:.2} s after the warm-up.")
        };
        format!("{t_conv:.0} direct reclaims under conventional reclaim and {t_split:.0} under split reclaim{means}{whence}")
    };
    let _ = writeln!(
        md,
        "- **The NFS mix.** At 60,000 operations/s, for the paper's 5 minutes after SFS's 300-s warm-up, both \
         divided by the scale ({:.2} s each: the pages the mix touches over its working set are then the paper's), \
         the page cache needs {:.0} pages/s; {reclaims} Split reclaim's metadata ends at {:.1} % of memory, \
         {below_p} Measured from the file set's creation instead (the `{TABLE3_TRANSIENT}` rows, no warm-up): \
         {from_creation}",
        nfs("conventional", "warmup_s"),
        nfs("conventional", "kswapd_reclaimed_pages") / secs,
        100.0 * nfs("split", "metadata_memory_share"),
    );
    // Metric `metric` of Figure 2's run in `state` at the paper's `files` (divided by the scale).
    let fig2_in = |state: &str, files: f64, metric: &str| {
        select(rows, "fig2")
            .find(|r| r.text("state") == state && r.num("files") == (files / scale).floor())
            .map_or(f64::NAN, |r| r.metric(metric))
    };
    let fig2_at = |files: f64, metric: &str| fig2_in("after random accesses", files, metric);
    let (at_10m, at_25m) = (fig2_at(1e7, "deallocation_ms"), fig2_at(2.5e7, "deallocation_ms"));
    let (files_25m, cached_25m) = ((2.5e7 / scale).floor(), fig2_at(2.5e7, "objects_cached"));
    let fits = if cached_25m < files_25m {
        format!(
            "no longer fits memory: {cached_25m:.0} of the {files_25m:.0} files' objects are cached when the \
             reclaim runs, because the creation and the random accesses run under reclaim"
        )
    } else {
        format!("still fits memory at this scale: all {files_25m:.0} files' objects are cached when the reclaim runs")
    };
    let beyond = if at_25m > at_10m {
        format!(
            "The curve keeps rising, as the paper's does: that reclaim frees {:.0} objects ({:.0} slab pages), where \
             at ten million files it walks {:.0} and frees {:.0}.",
            fig2_at(2.5e7, "objects_freed"),
            fig2_at(2.5e7, "pages_freed"),
            fig2_at(1e7, "objects_scanned"),
            fig2_at(1e7, "objects_freed")
        )
    } else {
        format!(
            "The paper's curve keeps rising to 25 million files. Here that reclaim walks {:.0} objects with {:.0} \
             cached, where at ten million files it walks {:.0} with {:.0} cached: {}the paper's accesses must have left more of the cache \
             referenced than a uniform pass under reclaim does.",
            fig2_at(2.5e7, "objects_scanned"),
            cached_25m,
            fig2_at(1e7, "objects_scanned"),
            fig2_at(1e7, "objects_cached"),
            if cached_25m < files_25m && fig2_at(2.5e7, "objects_scanned") < fig2_at(1e7, "objects_scanned") {
                "reclaim ran during the accesses, and its passes cleared the bits they set at the LRU's end; "
            } else {
                ""
            }
        )
    };
    let _ = writeln!(
        md,
        "- **Figure 2 at 25 million files.** Their metadata (33 GB at full scale) {fits}, and one reclaim takes \
         {at_25m:.1} ms against {at_10m:.1} ms at ten million files. {beyond}"
    );
    let no_cache = |state: &str, metric: &str| fig2_in(state, 1e7, metric);
    let (created_nc, random_nc) = ("after creation (no page cache)", "after random accesses (no page cache)");
    let freed_share = |state: &str| {
        format!("{:.0} of {:.0} objects", no_cache(state, "objects_freed"), no_cache(state, "objects_cached"))
    };
    // Without a page cache, is the after-creation time flat (Figure 2's test: its most under ten times its
    // first)?
    let created_curve: Vec<f64> = select(rows, "fig2")
        .filter(|r| r.text("state") == created_nc)
        .map(|r| r.metric("deallocation_ms"))
        .collect();
    let (nc_first, nc_most) = (
        created_curve.first().copied().unwrap_or(f64::NAN),
        created_curve.iter().copied().fold(0.0, f64::max),
    );
    let needs_page_cache = if nc_most >= 10.0 * nc_first.max(1e-3) {
        format!(
            "After creation it grows with the files, from {nc_first:.3} ms to {nc_most:.1} ms: the paper's flat \
             line after creation needs a page cache beside the metadata, which the reconstruction has."
        )
    } else {
        format!(
            "After creation it stays within ten times its first value ({nc_first:.3} to {nc_most:.3} ms)."
        )
    };
    let _ = writeln!(
        md,
        "- **Figure 2 with no page cache** (a diagnostic: the metadata blocks not read, memory all metadata). A \
         direct reclaim's page part then scans nothing, which `shrink_slab()` counts as 32 pages of an LRU of \
         none: its pass is capped at twice the cache, and at ten million files it frees {} after creation and {} \
         after random accesses, in {:.1} and {:.1} ms. {needs_page_cache}",
        freed_share(created_nc),
        freed_share(random_nc),
        no_cache(created_nc, "deallocation_ms"),
        no_cache(random_nc, "deallocation_ms")
    );
    // Where 3.x's first release makes a reclaim after creation cost what one after random accesses does
    // (within 5 %), and where not.
    let fig2_rows = |state: &'static str| select(rows, "fig2").filter(move |r| r.text("state") == state);
    let unlike: Vec<String> = fig2_rows("after creation (3.x dput)")
        .filter_map(|r| {
            let files = r.num("files");
            let created = r.metric("deallocation_ms");
            let random = fig2_rows("after random accesses")
                .find(|q| q.num("files") == files)
                .map_or(f64::NAN, |q| q.metric("deallocation_ms"));
            let under_reclaim = if r.metric("objects_cached") < files {
                format!(
                    ", where creation itself ran under reclaim ({:.0} objects cached)",
                    r.metric("objects_cached")
                )
            } else {
                String::new()
            };
            ((created - random).abs() > 0.05 * random)
                .then(|| format!("{files:.0} files{under_reclaim}: {created:.3} ms against {random:.3} ms"))
        })
        .collect();
    let points = fig2_rows("after creation (3.x dput)").count();
    let alike = if unlike.is_empty() {
        format!("at every one of the {points} file counts")
    } else {
        format!("at {} of the {points} file counts, and not at {}", points - unlike.len(), unlike.join("; "))
    };
    let _ = writeln!(
        md,
        "- **A new object's referenced bit.** pagelab starts a new object unreferenced, as today's `dput()` does and \
         as the paper's Figures 2 and 3 behave. Linux 2.6–3.x's `dput()` marked a dentry referenced at its first \
         release; with that (`first_put=referenced`, the `3.x dput` lines of Figure 2) a reclaim right after \
         creating the files costs as much as one after random accesses (within 5 %) {alike}."
    );
    md
}

fn report(rows: &[Row], scale: f64) -> String {
    let mut md = explanation(rows, scale);
    md.push('\n');
    let _ = writeln!(
        md,
        "Scale 1/{scale}: memory {:.0} MiB, {:.0} files, 8 CPUs (the paper: 24 GB, 25.6 million files, 8 cores).\n",
        PAPER_MEMORY_BYTES as f64 / scale / (1 << 20) as f64,
        PAPER_FILES as f64 / scale
    );
    let _ = writeln!(md, "| policy | threads | worst ms | mean ms | stat/s | direct reclaims | direct mean ms | direct max ms | metadata reclaims | miss ratio | metadata share |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
    for r in select(rows, "fig5") {
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {:.4} | {:.0} | {} | {:.2} | {:.2} | {} | {:.3} | {:.2} |",
            metadata_arg(r.text("policy"), r.num("ratio_p") as u32),
            r.num("threads"),
            r.metric("worst_latency_ms"),
            r.metric("mean_latency_ms"),
            r.metric("throughput_ops_s"),
            r.metric("direct_reclaims"),
            r.metric("direct_reclaim_ms_mean"),
            r.metric("direct_reclaim_ms_max"),
            r.metric("metadata_reclaims"),
            r.metric("stat_miss_ratio"),
            r.metric("metadata_memory_share"),
        );
    }
    for d in DIAGNOSTICS {
        let _ = writeln!(md, "{}", diagnostic_report(rows, d));
    }
    let _ = writeln!(md, "{}", hash_order_report(rows));
    let _ = writeln!(md, "{}", app_memory_report(rows));
    let _ = writeln!(
        md,
        "\nConventional reclaim at 8 threads by scale (worst latency, direct reclaims, their mean):\n"
    );
    for r in select(rows, "scale") {
        let _ = writeln!(
            md,
            "- 1/{}: {:.3} ms worst, {} direct reclaims of {:.2} ms mean, {:.0} stat/s",
            r.num("scale"),
            r.metric("worst_latency_ms"),
            r.metric("direct_reclaims"),
            r.metric("direct_reclaim_ms_mean"),
            r.metric("throughput_ops_s")
        );
    }
    let nfs_scale = select(rows, "table3").map(|r| r.num("scale")).fold(scale, f64::max);
    let _ = writeln!(
        md,
        "\nTable III, the NFS-like mix (60,000 operations/s, 64 nfsd threads, 32 CPUs) at scale 1/{nfs_scale}{}:\n",
        if nfs_scale > scale {
            format!(
                " (the full-size SFS file set, {} files, has more than the {} a page key names)",
                NfsMix::files_at_scale(1),
                NfsMix::FILES_MAX
            )
        } else {
            String::new()
        }
    );
    for r in select(rows, TABLE3).chain(select(rows, TABLE3_TRANSIENT)) {
        let _ = writeln!(
            md,
            "- {} ({}, {:.2} s of warm-up): {} direct reclaims, {:.3} ms mean, {:.3} ms worst; {} metadata reclaims; kswapd woken {} times, \
             {} pages; metadata {:.1} % of memory (at most {} objects, Md {}); page hit ratio {:.3}; {:.0} op/s",
            metadata_arg(r.text("policy"), r.num("ratio_p") as u32),
            r.text("experiment"),
            r.num("warmup_s"),
            r.metric("direct_reclaims"),
            r.metric("direct_reclaim_ms_mean"),
            r.metric("direct_reclaim_ms_max"),
            r.metric("metadata_reclaims"),
            r.metric("kswapd_wakeups"),
            r.metric("kswapd_reclaimed_pages"),
            100.0 * r.metric("metadata_memory_share"),
            r.metric("objects_max"),
            r.metric("md_objects"),
            r.metric("hit_ratio"),
            r.metric("throughput_ops_s")
        );
    }
    let _ = writeln!(md, "\nFigure 2 (one direct reclaim's CPU time):\n");
    for r in select(rows, "fig2") {
        let _ = writeln!(
            md,
            "- {} files, {}: {:.3} ms ({} objects cached, {} scanned, {} freed and {} inodes, {} pages)",
            r.num("files"),
            r.text("state"),
            r.metric("deallocation_ms"),
            r.metric("objects_cached"),
            r.metric("objects_scanned"),
            r.metric("objects_freed"),
            r.metric("inodes_freed"),
            r.metric("pages_freed")
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The issue's columns, every section, and the claims the model reproduces at the quick scale.
    #[test]
    fn a_quick_run_yields_the_issues_columns_and_its_reproduced_claims() {
        let jobs = SplitReclaim.jobs(true, 1);
        assert_eq!(
            jobs.len(),
            4 * 3 + 2 * 3 + 3 + 2 * (3 + 3) + (4 + 3 * 2) + 2 + 2 * 2 + 3 * 2 * 8,
            "fig5, its 3.x-dput, joint-inode, hash-order and application-memory diagnostics, scale, table3 and its \
             transient, fig2"
        );
        // At full size Table III runs at the smallest scale whose file set page keys can name.
        let full = SplitReclaim.jobs_at_scale(false, 1, Some(1)).unwrap();
        let table3: Vec<&str> =
            full.iter().map(|j| j.label.as_str()).filter(|l| l.starts_with("table3")).collect();
        assert_eq!(table3.len(), 4, "{table3:?}");
        assert!(table3.iter().all(|l| l.ends_with(&format!("scale={}", NfsMix::scale_min()))), "{table3:?}");
        // At full size the application-memory diagnostic runs one share at the most threads only.
        let held: Vec<&str> =
            full.iter().map(|j| j.label.as_str()).filter(|l| l.starts_with(APP_MEMORY)).collect();
        assert_eq!(held.len(), 4, "{held:?}");
        assert!(held.iter().all(|l| l.contains("threads=16") && l.contains("app=10%")), "{held:?}");
        let rows: Vec<Row> = jobs.iter().map(|j| (j.run)().unwrap()).collect();
        for key in ["experiment", "policy", "ratio_p", "threads", "files"] {
            assert!(rows.iter().all(|r| r.param(key).is_some()), "{key}");
        }
        for key in [
            "worst_latency_ms",
            "mean_latency_ms",
            "throughput_ops_s",
            "direct_reclaims",
            "direct_reclaim_ms_mean",
            "direct_reclaim_ms_max",
            "metadata_reclaims",
        ] {
            assert!(
                select(&rows, "fig5").chain(select(&rows, "table3")).all(|r| r.metric(key).is_finite()),
                "{key}"
            );
        }
        let f = SplitReclaim.analyze(&rows, true);
        let verdict = |prefix: &str| f.checks.iter().find(|c| c.claim.starts_with(prefix)).unwrap().verdict;
        assert_eq!(verdict("Split reclaim, P = 50 %, 16 threads"), Verdict::Reproduced);
        assert_eq!(verdict("P = 50 % better"), Verdict::Reproduced);
        // Figure 5(b)'s slight rise: measured from the quick sweep's 1 and 16 threads, every number finite.
        let rise =
            f.checks.iter().find(|c| c.claim.contains("rises only slightly")).expect("Figure 5(b)'s check");
        assert!(
            !rise.measured.contains("NaN") && rise.measured.contains("from 1 to 16 threads"),
            "{}",
            rise.measured
        );
        // Flat after creation, linear after random accesses (not "not reproduced"). At ten million files the
        // line through the quick sweep's points gives 1.03 s (the full-scale run measures 1.00 s): on the
        // paper's "over 1 s" itself, so whether it is "reproduced" or "partly" is not what this tests.
        assert!(
            matches!(verdict("Page deallocation time"), Verdict::Reproduced | Verdict::Partial),
            "{:?}",
            verdict("Page deallocation time")
        );
        assert_eq!(verdict("NFS-like mix: the metadata"), Verdict::Reproduced);
        // Split reclaim never lets direct reclaim scan metadata, and stays within its bound.
        for r in select(&rows, "fig5").filter(|r| r.text("policy") == "split") {
            assert_eq!(r.metric("direct_reclaims"), 0.0);
            assert!(r.metric("worst_latency_ms") < 1.0);
        }
        assert!(f.markdown.contains("What the runs show"));
        // Each diagnostic runs its option, under each of its policies, and the default runs neither.
        for d in DIAGNOSTICS {
            for &(policy, p) in d.policies {
                let spec = crate::config::metadata_spec(
                    &batch_config_with(policy, p, 64, 1, d.options).unwrap().metadata.unwrap(),
                );
                assert!(spec.contains(d.options), "{spec}");
                assert!(!crate::config::metadata_spec(
                    &batch_config(policy, p, 64, 1).unwrap().metadata.unwrap()
                )
                .contains(d.options));
                assert!(
                    !batch_at(&rows, d.section, policy, p, 16, "worst_latency_ms").is_nan(),
                    "{}",
                    d.section
                );
            }
        }
        assert!(f.markdown.contains("Diagnostic: the batch under 3.x's `dput()`"));
        // The joint-inode diagnostic frees each inode with its dentry: no inode outlives its dentry there,
        // while the default's misses find theirs on the inode LRU.
        let joint = |k: &str| batch_at(&rows, JOINT.section, "conventional", 0, 16, k);
        assert_eq!(joint("inode_hits"), 0.0);
        assert!(fig5_at(&rows, "conventional", 0, 16, "inode_hits") > 0.0);
        assert!(f.markdown.contains("Diagnostic: the batch with each inode freed with its dentry"));
        // The hash-order walk: one directory of every file at each thread count, and the directory sizes at
        // the most threads; it reads the inode table again under conventional reclaim, where the inode-order
        // walk reads each page once; split reclaim keeps the table cached in either order.
        let hash: Vec<&Row> = select(&rows, HASH_ORDER).collect();
        assert_eq!(hash.len(), 12);
        let files = (PAPER_FILES / SCALE_QUICK) as f64;
        let hash_at = |policy: &str, dir: f64, k: &str| {
            hash.iter()
                .find(|r| r.text("policy") == policy && r.num("threads") == 16.0 && r.num("dir_files") == dir)
                .map(|r| r.metric(k))
                .unwrap()
        };
        assert!(
            hash_at("conventional", files, "disk_requests")
                > 2.0 * fig5_at(&rows, "conventional", 0, 16, "disk_requests"),
            "{} against {}",
            hash_at("conventional", files, "disk_requests"),
            fig5_at(&rows, "conventional", 0, 16, "disk_requests")
        );
        assert_eq!(hash_at("split", files, "disk_requests"), 0.0);
        assert!(f.markdown.contains("Diagnostic: the walk in hashed directories' order"));
        // Memory held beside the caches: every policy at the most threads, and a thread sweep; P = 60 %,
        // which never reclaims directly in Figure 5's runs, does once a tenth of memory is held.
        let held = |p: u32, t: u64, k: &str| {
            app_at(&rows, if p == 0 { "conventional" } else { "split" }, p, t, APP_PERCENT_THREADS, k)
        };
        assert_eq!(select(&rows, APP_MEMORY).count(), 4 + 3 * 2);
        assert!(select(&rows, APP_MEMORY).all(|r| r.num("app_memory_percent") == APP_PERCENT_THREADS as f64));
        assert_eq!(fig5_at(&rows, "split", 60, 16, "direct_reclaims"), 0.0);
        assert!(
            held(60, 16, "direct_reclaims") > held(0, 16, "direct_reclaims"),
            "{}",
            held(60, 16, "direct_reclaims")
        );
        assert!(!held(50, 1, "throughput_ops_s").is_nan() && !held(40, 16, "throughput_ops_s").is_nan());
        assert!(f.markdown.contains("Diagnostic: memory the batch program holds"));
        assert!(f.markdown.contains("of memory held by the batch program outside the caches"));
        assert!(f
            .summary
            .iter()
            .any(|(k, v)| k == "joint_inodes_conventional_worst_latency_ms" && v.is_finite()));
        assert!(f.summary.iter().any(|(k, v)| k == "dput_3x_conventional_worst_latency_ms" && v.is_finite()));
    }

    /// Table III's warm-up and measured run are SFS's 300 s and the paper's 5 minutes divided by the scale,
    /// as memory and the file set are: the paper's times at full size, 4.6875 s at 1/64.
    /// The NFS-mix paragraph says what its rows measured, not what one scale once showed: with no direct
    /// reclaim, even from the file set's creation, it says so and what that leaves Table III; with some from
    /// the creation, it counts them against the same time after the warm-up.
    #[test]
    fn the_nfs_paragraph_follows_its_rows() {
        let row = |section: &str, policy: &str, direct: f64, mean_ms: f64| Row {
            params: vec![
                ("experiment".into(), section.into()),
                ("policy".into(), policy.into()),
                ("warmup_s".into(), if section == TABLE3 { 1.17 } else { 0.0 }.into()),
            ],
            metrics: [
                ("direct_reclaims", direct),
                ("direct_reclaim_ms_mean", mean_ms),
                ("direct_reclaim_ms_max", mean_ms),
                ("sim_seconds", 1.17),
                ("kswapd_wakeups", 30.0),
                ("kswapd_reclaimed_pages", 4_000.0),
                ("objects_max", 100.0),
                ("md_objects", if policy == "split" { 1_000.0 } else { 0.0 }),
                ("metadata_reclaims", 0.0),
                ("metadata_memory_share", 0.1),
            ]
            .map(|(k, v)| (k.to_string(), v))
            .to_vec(),
            series: Vec::new(),
        };
        let paragraph = |transient: (f64, f64)| {
            let rows = [
                row(TABLE3, "conventional", 0.0, 0.0),
                row(TABLE3, "split", 0.0, 0.0),
                row(TABLE3_TRANSIENT, "conventional", transient.0, 0.058),
                row(TABLE3_TRANSIENT, "split", transient.1, 0.056),
            ];
            let md = explanation(&rows, 64.0);
            md.lines().find(|l| l.starts_with("- **The NFS mix.**")).expect("the NFS paragraph").to_string()
        };
        let none = paragraph((0.0, 0.0));
        assert!(
            none.contains("no task reclaims directly under either policy (kswapd woken 30 and 30"),
            "{none}"
        );
        assert!(none.contains("neither measurement has direct reclaims for Table III to compare"), "{none}");
        assert!(!none.contains("0 direct reclaims"), "{none}");
        let some = paragraph((4.0, 19.0));
        assert!(
            some.contains("4 direct reclaims under conventional reclaim and 19 under split reclaim"),
            "{some}"
        );
        assert!(some.contains("where the same 1.17 s after the warm-up had 0 and 0"), "{some}");
        assert!(some.contains("split reclaim's 3 % less"), "{some}");
    }

    #[test]
    fn table3s_times_are_the_papers_divided_by_the_scale() {
        assert_eq!(table3_times(1), (Nanos::from_secs(300), Nanos::from_secs(300)));
        assert_eq!(table3_times(64), (Nanos(4_687_500_000), Nanos(4_687_500_000)));
        assert_eq!(table3_times(3).1, Nanos(100_000_000_000));
    }

    #[test]
    fn a_line_through_points_by_least_squares() {
        // y = 2 + 0.5 x exactly (x̄ = 2, ȳ = 3, Σ(x−x̄)(y−ȳ) = 4, Σ(x−x̄)² = 8); then a point off the line
        // (ȳ = 4, Σ(x−x̄)(y−ȳ) = 6: b = 0.75, a = 4 − 0.75 × 2).
        assert_eq!(fit_line(&[(0.0, 2.0), (2.0, 3.0), (4.0, 4.0)]), (2.0, 0.5));
        assert_eq!(fit_line(&[(0.0, 2.0), (2.0, 5.0), (4.0, 5.0)]), (2.5, 0.75));
        assert!(fit_line(&[(1.0, 2.0)]).0.is_nan() && fit_line(&[(1.0, 2.0), (1.0, 3.0)]).1.is_nan());
    }

    #[test]
    fn the_full_scale_estimate_is_the_power_law_through_the_sweep() {
        // 8 ms at 1/256, 16 ms at 1/64: latency ∝ (1/scale)^0.5 → 16 × 64^0.5 = 128 ms at scale 1.
        let (e, full) = full_scale_estimate(&[(256.0, 8.0), (64.0, 16.0)]);
        assert!((e - 0.5).abs() < 1e-12 && (full - 128.0).abs() < 1e-9, "{e} {full}");
        assert!(full_scale_estimate(&[(64.0, 1.0)]).0.is_nan());
    }

    #[test]
    fn a_scale_of_zero_is_refused_and_other_experiments_take_none() {
        assert!(SplitReclaim.jobs_at_scale(true, 1, Some(0)).is_err());
        assert_eq!(
            SplitReclaim.jobs_at_scale(true, 1, Some(512)).unwrap().len(),
            SplitReclaim.jobs(true, 1).len()
        );
        let err =
            super::super::find("dulo").unwrap().jobs_at_scale(true, 1, Some(4)).err().unwrap().to_string();
        assert!(err.contains("no scale"), "{err}");
    }

    /// A scale that leaves the kernel no room beside its own memory is refused before any run, with the
    /// largest scale that fits; that one is accepted and the next is not.
    #[test]
    fn a_scale_too_large_for_the_kernel_is_refused_with_the_largest_that_fits() {
        for quick in [false, true] {
            let err =
                SplitReclaim.jobs_at_scale(quick, 1, Some(100_000_000)).err().expect("refused").to_string();
            assert!(err.starts_with("--scale 100000000: "), "{err}");
            let largest: u64 =
                err.rsplit(' ').next().and_then(|n| n.parse().ok()).expect("a scale at the end");
            assert!((1024..100_000_000).contains(&largest), "{err}");
            assert!(check_scale(largest, quick).is_ok());
            let next = check_scale(largest + 1, quick).expect_err("one more is too much").to_string();
            assert!(next.ends_with(&format!("the largest scale that fits is {largest}")), "{next}");
        }
    }

    /// The check covers the application-memory diagnostic's held memory: at 1/5000 the quick sweep's 16
    /// threads with 10 % held leave too little for caches, which its runs found only after 91 others ran.
    #[test]
    fn a_scale_the_held_memory_runs_cannot_fit_is_refused_before_any_run() {
        let err = SplitReclaim.jobs_at_scale(true, 1, Some(5000)).err().expect("refused").to_string();
        assert!(err.contains("10 % of it held by the batch program"), "{err}");
        let largest: u64 = err.rsplit(' ').next().and_then(|n| n.parse().ok()).expect("a scale at the end");
        let cfg = batch_config("split", 60, largest, 1).expect("config");
        let held = SimConfig { app_memory_bytes: cfg.memory_bytes * APP_PERCENT_THREADS as u64 / 100, ..cfg };
        assert!(held.memory(THREADS_QUICK.iter().copied().max().unwrap() as u32).is_ok());
    }
}
