//! `pagelab simulate`: one run of the simulated server.
//!
//! Parameters are checked against the resources they commit before the run starts: the page cache must
//! fit this machine's memory (the simulator keeps per-page state for every page of `--memory`), and an
//! open loop may bring at most [`ARRIVALS_MAX`] arrivals (every arrival the handlers have not taken yet
//! waits in a queue, so an arrival rate beyond what the server serves grows it for the whole run).

use crate::limits::ensure_fits_memory;
use crate::output::{emit, print_json};
use crate::progress;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use pagelab_core::pcache::PrefetchCacheConfig;
use pagelab_core::units::{fmt_bytes, fmt_f64, parse_bytes, parse_duration_ns};
use pagelab_core::Nanos;
use pagelab_sim::config::{
    metadata_spec, parse_metadata, parse_online_policy, policy_spec, Arrival, MemoryModel, SimConfig, Warmup,
    WhatIfConfig,
};
use pagelab_sim::device::DeviceSpec;
use pagelab_sim::layout::{LayoutSpec, Placement};
use pagelab_sim::metrics::RunMetrics;
use pagelab_sim::server::Server;
use pagelab_sim::workload::replay::{
    parse_file_size, ReplayCounts, ReplayError, ReplayOptions, TraceReplay, WriteMode,
};
use pagelab_sim::workload::spec::parse_workload;
use pagelab_sim::workload::Workload;
use pagelab_sim::SimError;
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

#[derive(Args, Clone, Debug)]
#[command(after_help = "Workloads (name[:key=value,...] or a .toml file with the same keys):
  one-whole, one-rand,     Li & Shen's microbenchmarks
  two-rand, four-64kb      (6000 files of 4 MiB, 64 KiB reads)
  seq                      sequential scan of whole files
  random                   one random aligned block per request
  keys: files, file_size, files_per_request, interleave, block,
        length (whole|fixed|uniform), length_min, length_max, length_bytes,
        same_length, start (zero|random), choice (random|round-robin), think
  write                    file writes: files, file_size, block, mode (random|seq),
                           read_fraction
Li & Shen's applications (datasets of 19.0 and 20.4 GB, on the Ultrastar 36LZX by
default):
  index-search             Ask Jeeves index server: 522 MiB mapping file (binary
                           search per keyword), 8 index partitions, a query's
                           posting lists read as interleaved streams; keys: terms
                           (500000), zipf (1), keywords (web|N), block (64KiB),
                           list_max (8MiB), interleave (merge|round-robin)
  media-clips              Apache serving World Cup '98 media clips: 137432 files
                           of 24-1416 KiB (mean 152), Zipf popularity, a random
                           prefix of one clip; keys: files, zipf (1), block (64KiB)
Programs that run to completion (measured whole; the runtime is the result):
  vm-seq, vm-random        MemRx's VM microbenchmarks: an anonymous allocation
                           scanned or touched at random, repeatedly; keys: size
                           (256MiB), passes (10), write (true), touch_cpu (100ns)
  smm                      DULO's SciMark2 sparse matrix-vector multiply (116 MiB):
                           n (869000), per_row (10), multiplications (15),
                           row_cpu (100ns)
MemRx's evaluation jobs (papers/003; programs that run to completion, on its WD1200BB by
default; their module doc gives every size and why):
  fs-seq                   FS Sequential: 256 MiB of a 1 GiB file read 10 times in
                           128 KiB reads; keys: file_size, size, passes, block,
                           threads (FS Sequential-MT; scan=shared|split)
  fs-seq-mt                fs-seq with threads=4
  fs-random                FS Random: 512 MiB of random 4 KiB reads in a 256 MiB
                           section; keys: file_size, section, total, block, threads
  dbench                   a dbench-like file server: 20 clients, 150 MiB of files
  mogrify                  an image scaler: a 5000x3600 bitmap, 240 MiB of pixels
  cpu-sim                  a CPU-bound simulator with 160 MiB of memory
Zhang et al.'s streams (papers/002; persistent handlers, run for --duration, on the Seagate
Barracuda 7200.11 by default; a per-stream table: response time, ESC, fill rate):
  rate-streams             open-loop sequential streams, one page per request; keys:
                           rates (pages/s, e.g. 1000/7000), cv (gap coefficient of
                           variation per stream, 1 = Poisson), gaps (gamma: bursts,
                           or h2: pauses; for cv above 1), random (random readers),
                           random_block (16KiB), random_size (4GiB), span
  spc2-vod                 SPC-2-VOD-like streams at 2, 5, 10 Mbit/s; keys: streams
                           (16), tpch (TPC-H-like random readers, 1)
  file-transfer            transfers paced by 10, 100, 1000 Mbit/s links; keys:
                           clients (6), random
DULO's workloads (papers/001 Table 2; synthetic, programs that run to completion, one
process per program; keys: scale (0.01-4, default 1), seed (default 2005)):
  viewperf-like            5 files, 66 MiB, read whole 4 times (99.99 % sequential)
  tpch-like                random lookups in 256 MiB of tables and index (3 %)
  glimpse-like             queries: index, then partitions of small files, a few
                           files of each placed elsewhere on the disk (74 %)
  multi1-like              cscope, gcc (one source tree) and viewperf together (76 %)
  multi2-like              glimpse and tpc-h together (16 %)
Fukatani et al.'s workloads (papers/004; give them --metadata; on the ssd by default;
measured from a barrier after their preparation):
  stat-batch               threads stat() every file after random metadata accesses
                           (a differential backup); keys: scale (64: 25.6 M files
                           / 64, run it in 24 GiB / scale), files, threads (8),
                           random (accesses before, default = files), seed,
                           order (inode, or hash: readdir's order in hashed
                           directories of dir files, default all)
  nfs-mix                  SPEC SFS 3.0's operation mix, paced, over its file set
                           (created first); keys: scale (64), files, threads (64
                           nfsd), rate (60000 / scale op/s), seed
A workload with anonymous memory gets a swap area (--swap) of twice memory.

Devices: Li & Shen's workloads (one-whole, one-rand, two-rand, four-64kb,
index-search, media-clips) run on the IBM Ultrastar 36LZX (36.7 GB, 10,000 RPM), a
disk of their testbed's class, unless --device says otherwise: their 19-25 GB datasets
do not fit the 9.1 GB Seagate Cheetah 9LP that every other workload runs on by default.
MemRx's jobs run on the Western Digital WD1200BB (120 GB, 7,200 RPM ATA) of its testbed;
Zhang et al.'s streams on the Seagate Barracuda 7200.11 (500 GB, 7,200 RPM SATA, 2008).

Examples:
  pagelab simulate --workload one-rand --concurrency 100 \\
      --prefetch linux:512KiB --duration 60s
  pagelab simulate --workload two-rand --concurrency 200 \\
      --memory 256MiB --scheduler deadline --json
  pagelab simulate --workload one-rand:files=2000 --device hdd --duration 60s
  pagelab simulate --workload random:block=64KiB --device ssd \\
      --concurrency 32 --requests 10000
  pagelab simulate --workload index-search --concurrency 100
  pagelab simulate --workload media-clips --memory 256MiB --prefetch-cache pc-coldest+
  pagelab simulate --workload vm-seq:size=264MiB,passes=3 --memory 128MiB
  pagelab simulate --workload smm --memory 100MiB --prefetch linux-2.6
  pagelab simulate --workload multi1-like --memory 160MiB --prefetch linux-2.6
  pagelab simulate --workload fs-random --memory 128MiB --whatif up-to=512MiB
  pagelab simulate --trace data/traces/lirs/multi1.trace.gz --file-size 256KiB
  pagelab simulate --trace data/traces/lirs/multi1.trace.gz --prefetch none")]
pub struct SimulateArgs {
    /// The workload (see below).
    #[arg(long, default_value = "one-rand", conflicts_with = "trace")]
    pub workload: String,
    /// Replay a block trace instead: each (volume, process/stream) of the trace becomes a handler that
    /// issues its requests in order, closed loop (a trace without ids replays as one handler).
    #[arg(long, value_name = "PATH|synth:...")]
    pub trace: Option<String>,
    /// Trace format (see `pagelab cachesim --help`).
    #[arg(long, default_value = "auto", requires = "trace")]
    pub format: String,
    /// Trace writes: replay (as writes: dirty pages that pdflush and reclaim write back), skip (counted and
    /// reported), or read (replayed as reads of the same pages, for a read-only cache study).
    #[arg(long, default_value = "replay", requires = "trace")]
    pub writes: String,
    /// Fold a trace's addresses modulo the device's size (for traces larger than the simulated disk).
    #[arg(long, requires = "trace")]
    pub fold: bool,
    /// Cut the trace's disk into consecutive files of SIZE bytes (with units: 64KiB, 1MiB; a multiple of
    /// the 4 KiB page; the last file may be shorter), so that readahead stops at each file's end as at EOF
    /// and keeps its state per file. Disk addresses do not change. With --fold the folded disk is cut.
    /// Default: the whole trace is one file, and readahead runs across the disk.
    #[arg(long, value_name = "SIZE", requires = "trace")]
    pub file_size: Option<String>,
    /// Skip malformed trace records (counted) instead of stopping at the first.
    #[arg(long, requires = "trace")]
    pub skip_bad_lines: bool,
    /// The server's physical memory. Under a kernel memory model the kernel keeps its share (its image,
    /// `mem_map`, 16 KiB per handler thread) and the page cache gets the rest (pages in flight count).
    #[arg(long, default_value = "512MiB")]
    pub memory: String,
    /// Memory the server's applications hold outside every cache for the whole run (their own data, resident
    /// and never reclaimed: a backup program's catalog, a database's buffer pool): a size, or a share of
    /// --memory (10%). No cache can use it; the watermarks and split reclaim's C (--metadata split) still
    /// count it, as a kernel counts all of memory. The JSON's memory.app_memory_bytes.
    #[arg(long, default_value = "0", value_name = "SIZE|N%")]
    pub app_memory: String,
    /// How memory is managed: linux-2.6 (the papers' kernels: watermarks min/low/high from
    /// min_free_kbytes, kswapd between low and high, direct reclaim of 32 pages below min, reclaim charged
    /// as CPU time), linux (the same with today's watermark_scale_factor), or exact (all memory is cache,
    /// one page evicted per page needed, no cost: what `pagelab cachesim` models).
    #[arg(long, default_value = "linux-2.6", value_name = "MODEL")]
    pub memory_model: String,
    /// Replacement policy: linux (Linux 2.6 active/inactive lists), lru, fifo, clock, 2q, arc, lirs, or
    /// dulo (Jiang et al.'s dual-locality CLOCK, FAST'05: keeps random blocks, lets sequential runs go;
    /// dulo:bank=8MiB,evicting=64MiB,rule=stable is the default; rule=adjacent forms sequences from disk
    /// adjacency alone; max_sequence=SIZE caps them; tracks=false ignores the disk's track boundaries).
    #[arg(long, default_value = "linux")]
    pub policy: String,
    /// Li & Shen's prefetch cache (FAST'05): readahead pages nobody has used yet wait outside the policy
    /// and are reclaimed first when over their allocation. access-history (none: prefetched pages join the
    /// policy), pc-access-history (FIFO), pc-longest, pc-coldest, pc-coldest+ (pages of exited handlers
    /// first, then the stream whose owner used the most CPU since it last read it), pc-optimal (the
    /// request's reads declared at its start; pages it will not read go first). The allocation follows the
    /// paper's gradient descent from 25 % of memory (1-s epochs, steps of 1 % of memory; to explore others:
    /// pc-coldest+:epoch=10s,step=2%), or a fixed share: pc-coldest+:fixed=25%.
    #[arg(long, default_value = "access-history", value_name = "ORDER")]
    pub prefetch_cache: String,
    /// File-metadata cache (Fukatani et al., split reclaim): none (stat() caches nothing), conventional
    /// (dentry+inode objects in slab pages, shrunk by kswapd and by direct reclaim as Linux's shrinker does),
    /// or split:p=50% (split reclaim: direct reclaim leaves metadata alone; iswapd frees objects in the
    /// background above Mb = 0.8 Md, the allocating task above Md = memory x P / object size). Both take
    /// object=BYTES (dentry + inode, default 1320: ext4), pressure=N (vm.vfs_cache_pressure, 100) and
    /// first_put=referenced (Linux 2.6-3.x marked a new dentry referenced at its first release; default
    /// unreferenced, as today's kernels and the paper's figures) and prune_count=examined (a shrinker batch of
    /// 128 counts every object it walks, as 2.6.18 and 3.12+ do; default freed: 2.6.19-3.11, the paper's
    /// kernels, count only the objects freed and walk on past referenced ones) and inode_lru=joint (a file's
    /// dentry and inode are freed together; default own: 3.0-3.11 put a freed dentry's inode on an LRU of
    /// its own, freed by later shrinker passes, and a stat that finds it there reads no inode table).
    /// stat-batch and nfs-mix issue stat() calls.
    #[arg(long, default_value = "none", value_name = "RECLAIM")]
    pub metadata: String,
    // The doc is --help text: its [:WINDOW] is the syntax, not a link.
    /// Prefetcher: none; linux, or linux:WINDOW (e.g. linux:512KiB: on-demand readahead, 2.6.23 and later);
    /// linux-2.6[:WINDOW] (2.6.12-2.6.18's page_cache_readahead, the papers' kernels); tp, tp:T-P or
    /// tp:T-P,fixed (T and P in pages, e.g. tp:24-48); ets[:T-P] or esf[:T-P] (Zhang et al.'s rate-aware
    /// split of T pages per sequential stream by Equal Time Supplies or Equal Safety Factors, default 24-48).
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, default_value = "linux")]
    pub prefetch: String,
    /// Device: hdd (Seagate Cheetah 9LP, 9.1 GB, DiskSim-validated), hdd:nocache, ultrastar36lzx (IBM
    /// Ultrastar 36LZX, 36.7 GB, from its published figures), ultrastar36lzx:nocache, wd1200bb (Western
    /// Digital WD1200BB, 120 GB, 7,200 RPM ATA, MemRx's disk), wd1200bb:nocache, st3500320as (Seagate
    /// Barracuda 7200.11, 500 GB, 7,200 RPM SATA, 2008), st3500320as:nocache, ssd, simple (DULO's
    /// Table 1: 6.5 ms seek + 3.0 ms rotation, transfer free, so sequential reads cost nothing),
    /// simple:RATE (the same with a media rate, e.g. simple:25MB/s), or a FILE.toml. Default: the
    /// workload's (ultrastar36lzx for Li & Shen's one-whole, one-rand, two-rand, four-64kb,
    /// index-search, media-clips; wd1200bb for MemRx's fs-seq, fs-random, dbench, mogrify, cpu-sim;
    /// st3500320as for Zhang et al.'s rate-streams, spc2-vod, file-transfer), else
    /// hdd.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
    /// I/O scheduler: noop, deadline, anticipatory (as), cfq, with optional parameters (deadline:read_expire=500ms).
    #[arg(long, default_value = "anticipatory")]
    pub scheduler: String,
    /// Request handlers: simultaneous requests (closed loop) or the thread pool (open loop).
    #[arg(long, default_value_t = 1)]
    pub concurrency: u32,
    /// Open loop: requests arrive at this rate per second (Poisson) instead of a closed loop.
    #[arg(long)]
    pub arrival_rate: Option<f64>,
    /// Open loop with evenly spaced arrivals instead of Poisson.
    #[arg(long, requires = "arrival_rate")]
    pub even_arrivals: bool,
    /// Simulated time measured (after the warm-up). Default: 120s, or until the end for a workload that runs
    /// to completion (a trace replay, vm-seq, vm-random, smm), whose execution time is the result.
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<String>,
    /// Stop after this many requests complete (within --duration).
    #[arg(long)]
    pub requests: Option<u64>,
    /// Simulated time run before measuring: auto (until steady state: memory has filled and every handler
    /// has completed a request; at most 10 × --duration) or a duration. A run to completion (a trace replay,
    /// fs-seq, stat-batch, ...) is measured whole: a warm-up other than 0s is refused there (stat-batch's
    /// measurement begins at the barrier after its random accesses). nfs-mix is measured from the barrier
    /// after its file set's creation under auto, and a duration's warm-up begins at that barrier.
    #[arg(long, default_value = "auto", value_name = "auto|DURATION")]
    pub warmup: String,
    /// The request queue's limit (`nr_requests`, Linux's default 128): a handler submitting into a full
    /// queue sleeps until a request completes, unless it is batching (32 requests within 20 ms after it
    /// filled the queue or was woken) or the anticipatory scheduler is waiting for it; never more than
    /// 3/2 of the limit (Linux 2.6's get_request). `unlimited` removes the limit.
    #[arg(long, default_value = "128", value_name = "N|unlimited")]
    pub nr_requests: String,
    /// The swap area, at the end of the disk: a size, none, or auto (twice memory when the workload uses
    /// anonymous memory, none otherwise).
    #[arg(long, default_value = "auto", value_name = "SIZE|none|auto")]
    pub swap: String,
    /// Sample the memory gauges (free, cached, in flight, prefetched and unused, dirty) at this interval of
    /// the measured period, into the JSON's `timeline`. At most 100,000 samples are kept: past that, every
    /// other one is dropped and the interval doubles (each sample's `t_s` says when it was taken).
    #[arg(long, value_name = "DURATION")]
    pub timeline: Option<String>,
    /// How far back the prefetch-thrashing count remembers evicted, never-read prefetched pages: `all`
    /// (every such page until its owner demands it: Li & Shen's definition, papers/000 §2), or a share of
    /// physical memory's pages (40%: the bounded eviction history of their §3.3, which forgets the pages
    /// of a handler that waits long in a full request queue).
    #[arg(long, default_value = "all", value_name = "all|PERCENT")]
    pub thrash_history: String,
    /// CPU cores serving the handlers.
    #[arg(long, default_value_t = 2)]
    pub cpus: u32,
    /// CPU time to deliver one 4 KiB page to a handler.
    #[arg(long, default_value = "2us")]
    pub cpu_per_page: String,
    /// File placement on disk: sequential or random.
    #[arg(long, default_value = "sequential")]
    pub placement: String,
    /// Cut files into extents of this mean size (0: contiguous files).
    #[arg(long, default_value = "0")]
    pub extent_size: String,
    /// Seed of the run's one random generator: the same seed gives byte-identical results.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// MemRx's what-if prediction (papers/003) of this run at larger memories: up-to=SIZE (the largest
    /// memory predicted, default 4 x --memory), step=SIZE (the increment, default 32MiB), vec=subqueue|exact|shadow|all
    /// (how evicted pages' distances are found: the paper's sub-queues, the exact distance, Linux's
    /// refault distance). Prints the predicted runtime and miss ratio at each size (JSON: `whatif`).
    /// `pagelab whatif` runs this and can rerun each size to check the prediction.
    #[arg(long, value_name = "SPEC")]
    pub whatif: Option<String>,
    /// One JSON object on stdout (field names documented in the README).
    #[arg(long)]
    pub json: bool,
    /// The flags the user gave (`--concurrency`), as against those left at their defaults: a mode that
    /// ignores a flag refuses it when given ([`SimulateArgs::refuse_given`]). Filled by `main` from clap's
    /// matches; empty in a program that builds the arguments itself.
    #[arg(skip)]
    pub given: Vec<String>,
}

impl SimulateArgs {
    /// Whether the user gave `flag` (`--concurrency`) on the command line.
    pub fn was_given(&self, flag: &str) -> bool {
        self.given.iter().any(|g| g == flag)
    }

    /// Refuse the `flags` the user gave that this mode ignores: `mode` says what the run is (`a trace
    /// replay`), `why` why they do not apply.
    pub fn refuse_given(&self, flags: &[&str], mode: &str, why: &str) -> Result<()> {
        let given: Vec<&str> = flags.iter().copied().filter(|f| self.was_given(f)).collect();
        if given.is_empty() {
            return Ok(());
        }
        let (is, it) = if given.len() == 1 { ("is", "it") } else { ("are", "them") };
        bail!("{} {is} not used by {mode}: {why}; drop {it}", given.join(", "))
    }
}

/// Arrivals an open-loop run may bring, `--arrival-rate × (--warmup + --duration)`: every one is an event
/// and, while the handlers are busy, an entry in the admission queue.
pub const ARRIVALS_MAX: f64 = 1e8;

/// Request handlers a run may have: each is state the simulator allocates before the run (a hundred-odd
/// bytes), and a million simultaneous requests is beyond any server the models describe.
pub const CONCURRENCY_MAX: u32 = 1 << 20;

/// An upper bound on the simulator's bytes per page of `--memory` (buffer-cache frame, replacement
/// policy, prefetch and thrashing history), for refusing a memory that cannot be simulated here.
pub const SIM_BYTES_PER_PAGE: u64 = 128;

/// The run's configuration as reported with its results.
#[derive(Serialize)]
struct ConfigEcho {
    workload: String,
    memory_bytes: u64,
    app_memory_bytes: u64,
    memory_model: String,
    policy: String,
    /// `none`, or the metadata cache's reclaim with its parameters.
    metadata: String,
    /// `access-history` (no prefetch cache) or the prefetch cache's order and partition.
    prefetch_cache: String,
    prefetch: String,
    /// Evicted, never-read prefetched pages the thrashing count remembers: `null` for all of them (the
    /// default), else the last this many (`--thrash-history 40%`).
    thrash_history_pages: Option<u32>,
    device: String,
    scheduler: String,
    concurrency: u32,
    arrival: String,
    cpus: u32,
    cpu_per_page_ns: u64,
    /// `null`: unlimited.
    nr_requests: Option<u32>,
    /// `null`: until the workload ended (a workload that runs to completion, without `--duration`).
    duration_s: Option<f64>,
    /// The workload is a program that runs to completion (trace replay, vm-seq, vm-random, smm): measured
    /// whole, and `workload_completed` says whether it ended.
    runs_to_completion: bool,
    /// The fixed warm-up, or `null` for auto (the `warmup` object of the results says what happened).
    warmup_s: Option<f64>,
    max_requests: Option<u64>,
    seed: u64,
}

#[derive(Serialize)]
struct SimulateReport {
    config: ConfigEcho,
    /// Present for trace replay: what was replayed and what was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    replay: Option<ReplayCounts>,
    #[serde(flatten)]
    metrics: RunMetrics,
}

/// The device of a run without `--device` whose workload names none ([`Workload::default_device`]): the
/// Cheetah 9LP. A run uses `--device` if given, else the workload's default, else this.
pub const SHARED_DEFAULT_DEVICE: &str = "hdd";

/// `--app-memory`: a size, or `N%` of the server's memory (0 to 100).
fn app_memory_bytes(text: &str, memory_bytes: u64) -> Result<u64> {
    let text = text.trim();
    if text.ends_with('%') {
        return match percent(text).filter(|p| (0.0..=100.0).contains(p)) {
            Some(p) => Ok((memory_bytes as f64 * p / 100.0) as u64),
            None => bail!(
                "bad --app-memory `{text}`: expected a size (2GiB) or a share of --memory from 0% to 100%"
            ),
        };
    }
    let bytes = parse_bytes(text).context("--app-memory (a size, or a share of --memory: 10%)")?;
    if bytes > memory_bytes {
        bail!(
            "bad --app-memory `{text}`: {} is more than the server's memory ({})",
            fmt_bytes(bytes),
            fmt_bytes(memory_bytes)
        );
    }
    Ok(bytes)
}

/// The simulation configuration the flags describe; every bad value is an error naming the flag.
/// `workload_device` is the workload's default device ([`Workload::default_device`]), used when
/// `--device` is absent.
pub fn config(args: &SimulateArgs, workload_device: Option<&str>) -> Result<SimConfig> {
    let arrival = match args.arrival_rate {
        Some(rate) if rate > 0.0 && rate.is_finite() => {
            Arrival::Open { rate_per_s: rate, poisson: !args.even_arrivals }
        }
        Some(rate) => {
            bail!("bad --arrival-rate {}: expected a positive number of requests per second", fmt_f64(rate))
        }
        None => Arrival::Closed,
    };
    let placement = match args.placement.as_str() {
        "sequential" => Placement::Sequential,
        "random" => Placement::Random,
        other => bail!("bad --placement `{other}`: expected sequential or random"),
    };
    let extent_bytes = parse_bytes(&args.extent_size).context("--extent-size")?;
    let memory_model = MemoryModel::parse(&args.memory_model).ok_or_else(|| {
        anyhow!("bad --memory-model `{}`: expected one of {}", args.memory_model, MemoryModel::NAMES)
    })?;
    let warmup = match args.warmup.trim() {
        "auto" => Warmup::Auto,
        text => Warmup::Fixed(Nanos(parse_duration_ns(text).context("--warmup (auto or a duration)")?)),
    };
    let nr_requests = match args.nr_requests.trim() {
        "unlimited" => None,
        text => match text.parse::<u32>() {
            Ok(n) if n >= 1 => Some(n),
            _ => bail!("bad --nr-requests `{text}`: expected a number of requests (at least 1) or unlimited"),
        },
    };
    let timeline = match &args.timeline {
        None => None,
        Some(text) => match parse_duration_ns(text).context("--timeline")? {
            0 => bail!("bad --timeline `{text}`: the interval must be positive"),
            ns => Some(Nanos(ns)),
        },
    };
    let swap_bytes = match args.swap.trim() {
        "auto" => None,
        "none" => Some(0),
        text => Some(parse_bytes(text).context("--swap (a size, none or auto)")?),
    };
    let (policy, dulo, dulo_tracks) = parse_online_policy(&args.policy).context("--policy")?;
    let metadata = match args.metadata.trim() {
        "none" => None,
        text => Some(parse_metadata(text).context("--metadata")?),
    };
    let memory_bytes = memory_bytes(&args.memory)?;
    let app_memory_bytes = app_memory_bytes(&args.app_memory, memory_bytes)?;
    let cfg = SimConfig {
        metadata,
        memory_bytes,
        app_memory_bytes,
        swap_bytes,
        nr_requests,
        timeline,
        memory_model,
        policy,
        dulo,
        dulo_tracks,
        prefetch_cache: PrefetchCacheConfig::parse(&args.prefetch_cache, args.seed)
            .context("--prefetch-cache")?,
        prefetcher: args.prefetch.parse().context("--prefetch")?,
        device: match &args.device {
            Some(name) => DeviceSpec::parse(name).map_err(|e| anyhow!("--device: {e}"))?,
            None => {
                let name = workload_device.unwrap_or(SHARED_DEFAULT_DEVICE);
                DeviceSpec::parse(name).map_err(|e| anyhow!("the workload's default device: {e}"))?
            }
        },
        scheduler: args.scheduler.parse().context("--scheduler")?,
        concurrency: args.concurrency,
        arrival,
        cpus: args.cpus,
        cpu_per_page: Nanos(parse_duration_ns(&args.cpu_per_page).context("--cpu-per-page")?),
        duration: match &args.duration {
            Some(text) => Nanos(parse_duration_ns(text).context("--duration")?),
            None => SimConfig::default().duration,
        },
        max_requests: args.requests,
        warmup,
        seed: args.seed,
        layout: LayoutSpec {
            placement,
            extent_pages_mean: extent_bytes / pagelab_core::PAGE_SIZE_BYTES,
            ..LayoutSpec::default()
        },
        whatif: match &args.whatif {
            Some(text) => Some(WhatIfConfig::parse(text).map_err(|e| anyhow!("--whatif: {e}"))?),
            None => None,
        },
        thrash_history_pages: thrash_history_pages(&args.thrash_history, memory_bytes)?,
    };
    if let Some(w) = &cfg.whatif {
        w.geometry(cfg.memory_bytes).map_err(|e| anyhow!("--whatif: {e}"))?;
    }
    if cfg.duration == Nanos::ZERO {
        bail!("bad --duration `{}`: must be positive", args.duration.as_deref().unwrap_or_default());
    }
    if cfg.concurrency == 0 || cfg.concurrency > CONCURRENCY_MAX {
        bail!("bad --concurrency {}: at least one handler and at most {CONCURRENCY_MAX}", cfg.concurrency);
    }
    if cfg.max_requests == Some(0) {
        bail!("bad --requests 0: at least one request must complete (leave --requests out to run for --duration)");
    }
    if let Arrival::Open { rate_per_s, .. } = cfg.arrival {
        let run_s = (cfg.warmup.bound(cfg.duration) + cfg.duration).as_secs_f64();
        let arrivals = rate_per_s * run_s;
        if arrivals > ARRIVALS_MAX {
            bail!(
                "bad --arrival-rate {}: {arrivals:.3e} arrivals in {} s (warm-up and duration); at most \
                 {ARRIVALS_MAX:.0e}, since every arrival the handlers have not taken waits in a queue",
                fmt_f64(rate_per_s),
                run_s
            );
        }
    }
    let pages = cfg.memory_bytes / pagelab_core::PAGE_SIZE_BYTES;
    if pages > u64::from(u32::MAX) {
        bail!(
            "bad --memory `{}`: at most {} (2^32 - 1 pages of 4 KiB)",
            args.memory,
            fmt_bytes(u64::from(u32::MAX) * 4096)
        );
    }
    ensure_fits_memory(
        &format!("--memory {}: simulating {pages} pages (~{SIM_BYTES_PER_PAGE} bytes each)", args.memory),
        pages as u128 * SIM_BYTES_PER_PAGE as u128,
    )?;
    cfg.memory(cfg.concurrency).map_err(|e| anyhow!("--memory {}: {e}", args.memory))?;
    Ok(cfg)
}

fn echo(cfg: &SimConfig, workload: String) -> ConfigEcho {
    ConfigEcho {
        workload,
        memory_bytes: cfg.memory_bytes,
        app_memory_bytes: cfg.app_memory_bytes,
        memory_model: cfg.memory_model.name().to_string(),
        policy: policy_spec(cfg.policy, &cfg.dulo, cfg.dulo_tracks),
        metadata: cfg.metadata.as_ref().map_or("none".to_string(), metadata_spec),
        prefetch_cache: cfg.prefetch_cache.map_or("access-history".to_string(), |c| c.spec()),
        prefetch: cfg.prefetcher.spec(),
        thrash_history_pages: cfg.thrash_history_pages,
        device: cfg.device.to_string(),
        scheduler: cfg.scheduler.to_string(),
        concurrency: cfg.concurrency,
        arrival: match cfg.arrival {
            Arrival::Closed => "closed".into(),
            Arrival::Open { rate_per_s, poisson } => {
                format!("open {}/s {}", fmt_f64(rate_per_s), if poisson { "poisson" } else { "even" })
            }
        },
        cpus: cfg.cpus,
        cpu_per_page_ns: cfg.cpu_per_page.0,
        nr_requests: cfg.nr_requests,
        duration_s: (cfg.duration != SimConfig::UNTIL_DONE).then(|| cfg.duration.as_secs_f64()),
        warmup_s: match cfg.warmup {
            Warmup::Auto => None,
            Warmup::Fixed(t) => Some(t.as_secs_f64()),
        },
        max_requests: cfg.max_requests,
        seed: cfg.seed,
        runs_to_completion: false,
    }
}

/// The synthetic workload, or `None` for a trace replay (which needs the device's size first).
fn synthetic_workload(args: &SimulateArgs) -> Result<Option<Box<dyn Workload>>> {
    match &args.trace {
        Some(_) => Ok(None),
        None => Ok(Some(parse_workload(&args.workload).map_err(|e| anyhow!("--workload: {e}"))?)),
    }
}

/// The trace to replay, with its counts. Caller guarantees `args.trace` is set.
fn trace_workload(args: &SimulateArgs, cfg: &SimConfig) -> Result<(Box<dyn Workload>, Option<ReplayCounts>)> {
    let trace = args.trace.as_ref().expect("a trace replay");
    let writes = WriteMode::parse(&args.writes)
        .ok_or_else(|| anyhow!("bad --writes `{}`: expected {}", args.writes, WriteMode::NAMES))?;
    let device_pages = cfg.device.build().capacity_sectors() / (pagelab_core::PAGE_SIZE_BYTES / 512);
    let file_pages = match &args.file_size {
        None => None,
        Some(text) => Some(parse_file_size(text).map_err(|e| anyhow!("bad --file-size {e}"))?),
    };
    let options = ReplayOptions {
        format: args.format.clone(),
        fold_pages: args.fold.then_some(device_pages),
        file_pages,
        writes,
        skip_bad_lines: args.skip_bad_lines,
        seed: Some(args.seed),
        ..ReplayOptions::new(trace.clone())
    };
    let replay = TraceReplay::open(&options).map_err(|e| match e {
        ReplayError::TooManyFiles { .. } => {
            anyhow!("bad --file-size `{}`: {e}", args.file_size.as_deref().unwrap_or_default())
        }
        e => e.into(),
    })?;
    let counts = replay.counts();
    Ok((Box::new(replay), Some(counts)))
}

/// The run's configuration and workload, as `pagelab simulate` would run them (`pagelab whatif` reruns them).
pub fn prepare(args: &SimulateArgs) -> Result<(SimConfig, Box<dyn Workload>)> {
    let p = prepare_with_counts(args)?;
    Ok((p.cfg, p.workload))
}

/// A run ready to start, with what its report says of how it was chosen.
struct Prepared {
    cfg: SimConfig,
    workload: Box<dyn Workload>,
    /// A trace replay's counts.
    replay: Option<ReplayCounts>,
    /// The device is the workload's default (no `--device`).
    device_from_workload: bool,
}

/// [`prepare`], with the replay's counts and whether the device is the workload's default.
fn prepare_with_counts(args: &SimulateArgs) -> Result<Prepared> {
    let synthetic = synthetic_workload(args)?;
    let workload_device = synthetic.as_ref().and_then(|w| w.default_device());
    let mut cfg = config(args, workload_device)?;
    // The report says when the device is the workload's choice rather than the user's or the shared one.
    let device_from_workload = args.device.is_none() && workload_device.is_some();
    let (workload, replay) = match synthetic {
        Some(w) => (w, None),
        None => trace_workload(args, &cfg)?,
    };
    refuse_ignored(args, &cfg, workload.as_ref())?;
    if args.duration.is_none() && workload.runs_to_completion() {
        cfg.duration = SimConfig::UNTIL_DONE;
    }
    if let Warmup::Fixed(w) = cfg.warmup {
        if w > Nanos::ZERO && workload.runs_to_completion() {
            // The warm-up would take the first `w` of a run that is measured whole, or all of it: a replay
            // shorter than `w` reported 0 requests in 0 s, with success.
            bail!(
                "--warmup {}: `{}` runs to completion and is measured whole; drop --warmup",
                args.warmup.trim(),
                workload.describe()
            );
        }
    }
    Ok(Prepared { cfg, workload, replay, device_from_workload })
}

/// Refuse what this workload would ignore: `--concurrency` where the workload has its own handlers, the
/// file layout where it has its own (a trace addresses the disk), a metadata cache nothing would fill.
fn refuse_ignored(args: &SimulateArgs, cfg: &SimConfig, workload: &dyn Workload) -> Result<()> {
    let mode = format!("`{}`", workload.describe());
    // Only a count other than the workload's own is refused: `--concurrency 8` for eight threads is true.
    if let Some(handlers) = workload.natural_concurrency().filter(|&n| n != cfg.concurrency) {
        let why = match &args.trace {
            Some(_) => format!("a trace replay runs one handler per stream of the trace ({handlers} here)"),
            None => format!("the workload runs its own {handlers} handlers (its parameters set them)"),
        };
        args.refuse_given(&["--concurrency"], &mode, &why)?;
    }
    if args.trace.is_some() {
        let why = "a trace addresses the disk's blocks itself (--file-size cuts it into files)";
        args.refuse_given(&["--placement", "--extent-size"], &mode, why)?;
    } else if workload.file_lbns().is_some() {
        let why = "the workload places its own files, as its paper laid them out";
        args.refuse_given(&["--placement", "--extent-size"], &mode, why)?;
    }
    if cfg.metadata.is_some() && !workload.issues_stat() {
        bail!(
            "--metadata {}: {mode} calls no stat(), so the metadata cache would stay empty (stat-batch and \
             nfs-mix call it); drop --metadata",
            args.metadata
        );
    }
    Ok(())
}

/// The server for a prepared run; a trace that does not fit the disk names `--fold`.
pub fn server(args: &SimulateArgs, cfg: SimConfig, workload: Box<dyn Workload>) -> Result<Server> {
    Server::new(cfg, workload).map_err(|e| match e {
        SimError::TraceBeyondDevice { .. } if !args.fold => {
            anyhow!("{e}; --fold folds the trace's addresses onto the disk")
        }
        e => anyhow!("{e}"),
    })
}

pub fn run(args: &SimulateArgs) -> Result<()> {
    let Prepared { cfg, workload, replay, device_from_workload } = prepare_with_counts(args)?;
    let mut echo = echo(&cfg, workload.describe());
    echo.runs_to_completion = workload.runs_to_completion();
    // The handlers the server runs: a workload with its own processes (a trace's streams, multi1-like's
    // three programs) overrides `--concurrency`, as `Server::new` does.
    echo.concurrency = workload.natural_concurrency().unwrap_or(cfg.concurrency);
    let server = server(args, cfg, workload)?;
    let start = Instant::now();
    let mut shown = progress::SimulationProgress::new(echo.runs_to_completion);
    let metrics = server.run_with_progress(&mut |p| shown.show(p));
    shown.finish();
    let metrics = metrics.map_err(|e| anyhow!("{e}"))?;
    let wall = start.elapsed().as_secs_f64();
    if args.json {
        // Wall time is left out: the same command and seed must print the same bytes.
        return print_json(&SimulateReport { config: echo, replay, metrics });
    }
    let mut text = summary(&echo, &metrics, wall, device_from_workload);
    if let Some(r) = replay {
        text += &replay_line(&r);
    }
    if let Some(w) = &metrics.whatif {
        text.push('\n');
        text += &crate::whatif::table(w, &[]);
    }
    if !metrics.streams.is_empty() {
        text.push('\n');
        text += &streams_table(&metrics.streams);
    }
    emit(&text)
}

/// Per stream (Zhang et al.'s workloads): response time, shortages per prefetch cycle, fill rate.
fn streams_table(streams: &[pagelab_sim::metrics::StreamMetrics]) -> String {
    let mut out = String::from(
        "slot  stream                                 requests  response µs (mean / max)  ESC    fill rate  pages/s  inventory\n",
    );
    for s in streams {
        let _ = writeln!(
            out,
            "{:<5} {:<38} {:>8}  {:>11.1} / {:<11.0}  {:<6.2} {:<10.4} {:<8.0} {:.1} pages",
            s.slot,
            s.kind,
            s.requests,
            s.response_time_us_mean,
            s.response_time_us_max,
            s.esc,
            s.fill_rate,
            s.throughput_pages_s,
            s.prefetch_memory_pages_mean
        );
    }
    out
}

/// The text report; `device_from_workload`: the device is the workload's default (no `--device`).
fn summary(c: &ConfigEcho, m: &RunMetrics, wall: f64, device_from_workload: bool) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let handlers = if c.arrival == "closed" { "closed loop" } else { c.arrival.as_str() };
    let _ = writeln!(out, "workload      {}", c.workload);
    let _ = writeln!(
        out,
        "server        {} memory, policy {}, prefetch {}, scheduler {}, {} CPUs",
        fmt_bytes(c.memory_bytes),
        c.policy,
        c.prefetch,
        c.scheduler,
        c.cpus
    );
    if c.prefetch_cache != "access-history" {
        let _ = writeln!(out, "prefetch mem  prefetch cache {}", c.prefetch_cache);
    }
    if c.metadata != "none" {
        let _ = writeln!(out, "metadata      {}", c.metadata);
    }
    let device_note = if device_from_workload { " (the workload's default; --device to change)" } else { "" };
    let _ = writeln!(out, "device        {}{device_note}", c.device);
    let _ = writeln!(out, "handlers      {} ({handlers})", c.concurrency);
    let w = &m.warmup;
    let speed =
        format!("{wall:.2} s wall, {:.2} M page accesses/s", m.pages_accessed as f64 / wall.max(1e-9) / 1e6);
    if c.runs_to_completion {
        let how =
            if m.workload_completed { "ran to completion" } else { "CUT SHORT by --duration or --requests" };
        let _ =
            writeln!(out, "measured      {:.3} s simulated, the whole run ({how}); {speed}", m.sim_seconds);
    } else {
        let steady = if w.steady_state {
            "steady state"
        } else {
            "NOT steady: memory unfilled or a handler never done"
        };
        let _ = writeln!(
            out,
            "measured      {:.1} s simulated after {:.1} s warm-up ({}, {steady}); {speed}",
            m.sim_seconds, w.seconds, w.mode
        );
    }
    out.push('\n');
    let rate = if m.sim_seconds > 0.0 { m.requests_completed as f64 / m.sim_seconds } else { 0.0 };
    let _ = writeln!(out, "throughput    {:.2} MiB/s, {rate:.0} requests/s", m.throughput_mib_s);
    let l = &m.latency_ms;
    let _ = writeln!(
        out,
        "requests      {} completed; latency mean {}, p50 {}, p99 {}, max {}",
        m.requests_completed,
        latency(l.mean),
        latency(l.p50),
        latency(l.p99),
        latency(l.max)
    );
    let _ = writeln!(
        out,
        "page cache    hit ratio {:.1} % ({} hits, {} misses, {} waits on pages in flight); {} evictions, {} reclaim stalls",
        100.0 * m.hit_ratio,
        m.cache.hits,
        m.cache.misses,
        m.cache.inflight_waits,
        m.cache.evictions,
        m.cache.reclaim_stalls
    );
    let d = &m.disk;
    let _ = writeln!(
        out,
        "disk          {} requests ({} reads, {} writes), {} pages read, {} written; mean {:.1} pages ({}), \
         {:.2} ms service, busy {:.1} %",
        d.requests,
        d.read_requests,
        d.write_requests,
        d.pages_read,
        d.pages_written,
        d.mean_request_pages,
        fmt_bytes((d.mean_request_pages * pagelab_core::PAGE_SIZE_BYTES as f64) as u64),
        d.mean_service_ms,
        100.0 * d.busy_fraction
    );
    if let Some(a) = d.anticipation {
        let _ = writeln!(
            out,
            "anticipation  {} waits for the owner whose request just completed: {} ended by its next request, {} \
             by antic_expire",
            a.waits, a.hits, a.timeouts
        );
    }
    let p = &m.prefetch;
    let _ = writeln!(
        out,
        "prefetch      {} pages prefetched, {} used, {} evicted unused; thrashing {} pages ({:.1}/s)",
        p.pages_prefetched, p.prefetched_used, p.evicted_unused, p.thrash_pages, p.thrash_pages_per_s
    );
    let mib = |bytes: f64| bytes / (1024.0 * 1024.0);
    if let Some(d) = &m.dulo {
        let _ = writeln!(
            out,
            "dulo          {} banks sequenced into {} sequences ({:.2} pages each); {:.2} merge comparisons \
             per miss; block table {:.1} KiB at most; {} second chances",
            d.sequencings,
            d.sequences,
            d.mean_sequence_pages,
            d.merge_comparisons_per_miss,
            d.table_bytes_max as f64 / 1024.0,
            d.second_chances
        );
    }
    if let Some(md) = &m.metadata {
        let thresholds = if md.md_objects > 0 {
            format!(", Md {} / Mb {} objects", md.md_objects, md.mb_objects)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "metadata      {} stat() calls, {} missed ({} found their inode cached); {} objects at \
             most{thresholds}, {} inodes ({} on the inode LRU at most) and {} slab pages at the end; \
             shrinker scanned {} objects, freed {} objects, {} inodes and {} pages; lock waits {:.3} s; \
             iswapd {} steps ({:.3} s CPU); {} metadata reclaims",
            md.stats,
            md.stat_misses,
            md.inode_hits,
            md.objects_max,
            md.inodes_end,
            md.inodes_unused_max,
            md.pages_end,
            md.shrinker_objects_scanned,
            md.shrinker_objects_freed,
            md.shrinker_inodes_freed,
            md.shrinker_pages_freed,
            md.lock_wait_s,
            md.iswapd_steps,
            md.iswapd_cpu_s,
            md.metadata_reclaims
        );
    }
    if let Some(pc) = &m.prefetch_cache {
        let _ = writeln!(
            out,
            "prefetch cache {:.1} MiB mean of {:.1} MiB allocated ({:.1} MiB at the end); {} pages in, {} used, \
             reclaimed {} of exited handlers, {} unneeded, {} by order; {} epochs, {} reversals",
            mib(m.memory.prefetch_cache_bytes_mean),
            mib(m.memory.prefetch_cache_allocation_bytes_mean),
            mib(pc.allocation_bytes_final as f64),
            pc.inserted_pages,
            pc.used_pages,
            pc.reclaimed_exited_pages,
            pc.reclaimed_unneeded_pages,
            pc.reclaimed_ordered_pages,
            pc.epochs,
            pc.reversals
        );
    }
    let wr = &m.writes;
    if wr.pages_dirtied + wr.written_writeback + wr.written_reclaim + wr.swap_outs + wr.swap_ins > 0 {
        let _ = writeln!(
            out,
            "writes        {} pages dirtied; written {} by writeback, {} by reclaim, {} to swap; {} swapped in \
             (+{} by swap readahead); writers throttled {} times ({:.3} s); dirty {:.1} MiB mean",
            wr.pages_dirtied,
            wr.written_writeback,
            wr.written_reclaim,
            wr.swap_outs,
            wr.swap_ins,
            wr.swap_ins_readahead,
            wr.throttles,
            wr.throttle_s,
            mib(wr.dirty_bytes_mean)
        );
    }
    let mem = &m.memory;
    let _ = writeln!(
        out,
        "memory        {} ({}): kernel {:.1} MiB{}; mean free {:.1} MiB (min {:.1}), cached {:.1} MiB, in flight {:.1} MiB ({:.1} %)",
        fmt_bytes(mem.total_bytes),
        mem.model,
        mib(mem.kernel_reserve_bytes as f64),
        if mem.app_memory_bytes > 0 {
            format!(", applications {:.1} MiB", mib(mem.app_memory_bytes as f64))
        } else {
            String::new()
        },
        mib(mem.free_bytes_mean),
        mib(mem.free_bytes_min as f64),
        mib(mem.resident_bytes_mean),
        mib(mem.in_flight_bytes_mean),
        100.0 * mem.in_flight_fraction_mean
    );
    let _ = writeln!(
        out,
        "reclaim       kswapd {} wake-ups, {} pages freed, {} written, {:.3} s CPU; direct {} times, {} pages freed, \
         {} written, {:.3} ms mean, {:.3} ms max; {} stalls, {} waits for memory ({:.3} ms mean, {:.3} ms max)",
        mem.kswapd_wakeups,
        mem.kswapd_reclaimed_pages,
        mem.kswapd_written_pages,
        mem.kswapd_cpu_s,
        mem.direct_reclaims,
        mem.direct_reclaimed_pages,
        mem.direct_written_pages,
        mem.direct_reclaim_ms_mean,
        mem.direct_reclaim_ms_max,
        mem.stalls,
        mem.stall_waits,
        mem.stall_wait_ms_mean,
        mem.stall_wait_ms_max
    );
    let _ = writeln!(out, "cpu           {:.1} % utilized", 100.0 * m.cpu_utilization);
    out
}

fn replay_line(r: &ReplayCounts) -> String {
    format!(
        "trace         {} requests replayed of {} read; {} writes replayed as writes, {} skipped; {} writes and {} other \
         requests replayed as reads; {} bad records skipped\n",
        r.requests,
        r.requests_read,
        r.writes_replayed,
        r.skipped_writes,
        r.writes_as_reads,
        r.other_as_reads,
        r.skipped_bad_records
    )
}

/// A latency for the text output: milliseconds to one decimal, or microseconds below a tenth of one (a
/// cached `stat()` takes a few).
fn latency(ms: f64) -> String {
    if ms > 0.0 && ms < 0.1 {
        format!("{:.1} µs", ms * 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

/// `--memory`: a size with units, at least one page (`simulate` and `whatif` share it, so that a memory of
/// nothing is refused as such, before anything that derives from it).
pub fn memory_bytes(text: &str) -> Result<u64> {
    let bytes = parse_bytes(text).context("--memory")?;
    if bytes < pagelab_core::PAGE_SIZE_BYTES {
        bail!("bad --memory `{text}`: at least one 4 KiB page");
    }
    Ok(bytes)
}

/// `N%` as the finite number N, or `None` when `text` is not one.
fn percent(text: &str) -> Option<f64> {
    text.trim().strip_suffix('%')?.trim().parse::<f64>().ok().filter(|p| p.is_finite())
}

/// `--thrash-history`: `None` (the server's default: every page) for `all`, else that share of
/// `memory_bytes`' pages (at least one page).
fn thrash_history_pages(text: &str, memory_bytes: u64) -> Result<Option<u32>> {
    let text = text.trim();
    if text == "all" {
        return Ok(None);
    }
    let percent = percent(text).filter(|p| *p > 0.0 && *p <= 1000.0).ok_or_else(|| {
        anyhow!("bad --thrash-history `{text}`: expected a share of memory (e.g. 40%) or all")
    })?;
    let pages = (memory_bytes / pagelab_core::PAGE_SIZE_BYTES) as f64 * percent / 100.0;
    Ok(Some(pages.clamp(1.0, u32::MAX as f64 - 1.0) as u32))
}

#[cfg(test)]
mod tests {
    use super::{latency, thrash_history_pages};

    #[test]
    fn thrash_history_is_a_share_of_memory_or_all() {
        let mib = 1 << 20;
        assert_eq!(thrash_history_pages("all", 512 * mib).unwrap(), None, "the server's default");
        assert_eq!(thrash_history_pages("40%", 512 * mib).unwrap(), Some(52_428));
        assert_eq!(thrash_history_pages("100%", 512 * mib).unwrap(), Some(131_072));
        assert_eq!(thrash_history_pages("0.0001%", mib).unwrap(), Some(1), "at least one page");
        for bad in ["0%", "40", "-5%", "lots", "2000%"] {
            let e = thrash_history_pages(bad, mib).unwrap_err().to_string();
            assert!(e.contains("expected a share of memory (e.g. 40%) or all"), "{bad}: {e}");
        }
    }

    #[test]
    fn latencies_below_a_tenth_of_a_millisecond_print_in_microseconds() {
        assert_eq!(latency(0.0089), "8.9 µs");
        assert_eq!(latency(0.1), "0.1 ms");
        assert_eq!(latency(77.25), "77.2 ms");
        assert_eq!(latency(0.0), "0.0 ms");
    }
}
