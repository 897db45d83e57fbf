//! `prefetch-memory`: Li & Shen, "Managing Prefetch Memory for Data-Intensive Online Servers", FAST 2005
//! (papers/000 §4): the prefetch cache and its reclamation orders against the Linux baseline, Figures 2
//! and 5–12, with the paper's kernel and testbed.
//!
//! # What is run
//!
//! Every run uses what the paper states and the shared system model for the rest: `linux-2.6:512KiB`
//! (2.6's `page_cache_readahead`, "the maximum prefetching depth at 512KB", §4.2), 512 MiB of memory
//! (256 MiB for the media clips, §4.3) under the `linux-2.6` memory model, the active/inactive lists (the
//! paper's AccessHistory is "the original Linux 2.6.10", §4.2 #1), the anticipatory scheduler (§2),
//! `nr_requests` 128 (2.6's default), 2 CPUs ("dual 2.0GHz Xeon processors", §4), and the paper's class of
//! disk, a 36.4 GB IBM 10,000 RPM drive (the Ultrastar 36LZX, `ultrastar36lzx`), which holds the paper's datasets: 6000 files
//! of 4 MB for the microbenchmarks (§4.1), the 19 GB search index and the 20.4 GB media-clip set. A
//! thread serves each request and exits with it (§4.1). Closed loop; the automatic warm-up; 120 s measured
//! ("each round takes 120 seconds", §4) — 30 s with `--quick` — and three seeds per point where the paper
//! ran four rounds (one with `--quick`). The prefetch cache's constants (`pcache::partition`: epoch 1 s,
//! adjustment 1 % of memory, a substantial increase = beyond the previous epoch's Poisson noise) are fixed
//! once for every run.
//!
//! The systems compared (§4.2): `access-history` (no prefetch cache), `pc-access-history` (a prefetch
//! cache reclaimed FIFO, gradient-descent allocation), `pc-longest`, `pc-coldest`, `pc-coldest+`, and for
//! Figure 6 `pc-optimal` (the request's reads declared when it starts: pages it will not read go first,
//! then Coldest+).
//!
//! Parts, and the figure each reproduces:
//! - Figures 5 (A)–(D) and 6: One-Whole, One-Rand, Two-Rand, Four-64KB, every system, at 1 to 1000
//!   handlers (Figure 6's optimal on One-Rand and Two-Rand).
//! - Figures 2, 7 and 8: the index-searching server (`index-search`), every system: throughput and prefetch
//!   thrashing per request.
//! - Figure 9: Apache hosting media clips (`media-clips`) at 256 MiB, every system.
//! - Figures 10–12: Two-Rand under AccessHistory and PC-Coldest+ at maximum prefetching depths of 128,
//!   256 and 512 KiB, memory of 512 MiB, 1 and 2 GiB, datasets of 1, 8 and 24 GB (256, 2000, 6000 files),
//!   at 100, 500 and 1000 handlers (the figures' points are not in the text).
//! - The prefetch cache over time (1-s samples): Four-64KB's gradient descent (§4.2: "our memory
//!   partitioning scheme can quickly converge to small prefetch cache allocations"), Two-Rand's and the
//!   index server's, at 1000 handlers under PC-Coldest+.
//! - Two diagnostics, not figures of the paper (full sweep only): PC-Coldest+ at fixed shares of 5 % and
//!   50 % of memory, without the descent (Two-Rand, the index server, the media clips at 100, 500 and 1000
//!   handlers); and Two-Rand under the other reading of the paper's readahead fix (ahead windows issued on a
//!   congested queue too, `congestion=ignore`) at 100, 400, 500 and 1000 handlers, AccessHistory, PC-Coldest+
//!   and PC-Coldest+ at a fixed 50 %.
//!
//! Concurrency levels: 1, 50, 100, 200, 300, 400, 500, 700 and 1000 (the paper names 100, 200, 400, 500
//! and 1000 in its text; `kernel-baseline` has the finer sweep of the AccessHistory curves). `--quick`: 100
//! and 1000 handlers, Two-Rand, One-Rand, Four-64KB and the index server, fewer systems.
//!
//! # Criteria (fixed before the results were looked at)
//!
//! A *gain* is the mean throughput over seeds of a system divided by AccessHistory's at the same point,
//! minus one. "At high concurrency" is 100 handlers and above (§4.3: "At high concurrency levels (100 and
//! above)").
//! - *A system beats AccessHistory by X–Y %* (index searching 11–64 %, media clips, One-Rand 8–97 %):
//!   reproduced if the largest gain at high concurrency is at least X and no gain there is below −5 %
//!   (the noise allowance); partly if the largest gain is at least 5 %; otherwise not.
//! - *Two-Rand 34 % at 400 and two-fold at 500*: reproduced if the gains at 400 and 500 are at least
//!   half the paper's (17 % and 50 %); partly if both are above 5 %; otherwise not.
//! - *No gain and no loss* (One-Whole, Four-64KB): every |gain| ≤ 10 % reproduced, ≤ 20 % partly.
//! - *AccessHistory thrashes at high concurrency* (index searching, Figures 2 and 8: 1000 handlers at
//!   about 25 % of the peak, 258 thrashed pages per request): reproduced if throughput at 1000 is at most
//!   half the peak and thrashing per request at 1000 exceeds that at the peak; partly if there is a fall
//!   (peak ≥ 1.15 × the throughput at 1000); otherwise not.
//! - *Ordering*: PC-AccessHistory between AccessHistory and PC-Coldest+, and PC-Coldest+ at least PC-Coldest
//!   and PC-Longest (means over high concurrency, 2 % tolerance), on Two-Rand and index searching: both
//!   orderings on both workloads reproduced, some partly, none not.
//! - *PC-Coldest+ 10–32 % below the optimal* (One-Rand, Two-Rand): reproduced if the optimal's largest
//!   advantage at high concurrency is at least 10 %; partly if at least 3 %; otherwise not.
//! - *Gradient descent converges to a small prefetch cache on Four-64KB*: the mean allocation over the
//!   measured period at 1000 handlers below 10 % of memory reproduced, below the initial 25 % partly.
//! - *Gains grow with prefetch depth, shrink with memory, persist across dataset sizes* (Figures 10–12,
//!   mean gain over the three concurrency levels): strictly monotone in the stated direction reproduced,
//!   monotone between the ends partly; persist = a gain above 5 % at every dataset size reproduced, at
//!   two of three partly.
//!
//! # Measured (full run, seeds 1–3: `pagelab experiment prefetch-memory --jobs 2`, 1,065 runs, 10–16 minutes
//! of wall time on 2 cores; since the elevator chooses at a completion before the
//! handlers it woke continue)
//!
//! Throughput MiB/s, mean of three seeds (AccessHistory / PC-AccessHistory / PC-Coldest+ / optimal), and
//! AccessHistory's and PC-Coldest+'s thrashed pages/s. Thrashing is counted as the paper defines it, however
//! long ago the page was evicted (since 2026-11-28, rerun with the same results otherwise): the bounded
//! history of 40 % of memory the table used before counted 1 / 2 / 3 / 3 for AccessHistory from 100 to
//! 1000 handlers and 98 / 0 / 7 / 6 for PC-Coldest+, as a handler asleep in the full request queue comes
//! back after it has forgotten:
//!
//! | handlers | two-rand | thrash AH / PC-C+ | one-rand AH / PC-C+ | index-search AH / PC-C+ | media-clips AH / PC-C+ |
//! |---:|---|---|---|---|---|
//! | 1 | 18.61 / 18.32 / 18.42 / 18.42 | 0 / 11 | 21.68 / 21.65 | 46.05 / 35.80 | 13.91 / 13.36 |
//! | 100 | 20.16 / 19.03 / 18.11 / 20.07 | 1 / 99 | 24.34 / 24.21 | 63.52 / 46.45 | 17.95 / 17.63 |
//! | 500 | 17.37 / 16.01 / 17.71 / 11.90 | 17 / 11 | 24.47 / 24.29 | 65.61 / 50.93 | 18.25 / 17.26 |
//! | 700 | 15.97 / 11.26 / 14.61 / 14.48 | 22 / 41 | 24.25 / 24.29 | 64.36 / 43.15 | 17.97 / 17.04 |
//! | 1000 | 15.57 / 11.70 / 13.19 / 9.08 | 26 / 40 | 24.44 / 24.55 | 63.51 / 36.15 | 17.62 / 16.24 |
//!
//! Verdicts: One-Whole and Four-64KB no gain and no loss **reproduced** (within ±1 %); Figure 6's optimal
//! above PC-Coldest+ **reproduced** by its criterion (+11 % at 100 handlers on Two-Rand) but within the
//! seeds' spread (−33 % at 500); the orderings **partly** (2 of 4); everything else **not reproduced**:
//! Two-Rand −15 to +2 % from 100 to 1000 handlers, One-Rand ±1 %, the index server −9 to −43 % and no
//! AccessHistory fall (96 % of its peak at 1000, no thrashing), media clips −2 to −8 %, Four-64KB's descent
//! at 72 % of memory, and Figures 10–12's factors (mean gains 0 / 0 / −8 % by depth, −8 / −8 / −2 % by
//! memory, −4 / −6 / −8 % by dataset). The report's "Why" (`why`) explains each; the short of it:
//! AccessHistory thrashes only on Two-Rand, in tens of pages/s (at most 26 from 100 handlers on; the index
//! server and the media clips at most 0.5), PC-Coldest+ as much or more, and the gradient descent as
//! parameterised here does not find an allocation (its one-epoch-to-the-next comparison is counting noise,
//! and each downward step evicts live prefetched pages).
//!
//! **Before the completion order was fixed** the simulator let a handler woken by a completion issue its
//! next read before the elevator chose, an order no kernel has (2.6's completion path runs `request_fn`
//! before the readers it woke are scheduled). A Two-Rand handler falling into one-page makeup reads then
//! had its next one at the head of the queue at every completion and kept the disk page after page, served
//! from the drive's read-ahead, while the other handlers' windows aged out. That regime was the only place
//! the sweep reproduced the paper: AccessHistory at 1000 handlers thrashed 842 pages/s and delivered 9.10
//! MiB/s, PC-Coldest+ 54 pages/s and 18.06 (+98 %); with 700 handlers 16.18 / 16.39 (298 / 372 pages/s); the
//! depth factor's mean gains −5 / −3 / +24 % (a "reproduced" verdict carried by the 1000-handler point);
//! everything else within a few percent of the table above. In the kernel's order the simulator's
//! AccessHistory comes within 4–16 % of the live driver's at the live benchmark's scale (BENCHMARKS.md §7;
//! the old order read 46–48 % high at 64 and 128 handlers), so this table replaces that one.
//!
//! The fixed-share diagnostic (PC-Coldest+ at 5 % and at 50 % of memory, no descent): Two-Rand at 50 %
//! 20.04 / 18.51 / 15.94 MiB/s at 100 / 500 / 1000 handlers (−1 / +7 / +2 %), at 5 % 20.16 / 8.53 / 4.12
//! (117–150 thrashed pages/s from 500 on: a prefetch cache of 5 % makes its own thrashing); the index server
//! wants a small one (5 %: +5 %, +3 %, +4 %; 50 %: −20 to −26 %), media clips none (5 %: 0 to −2 %). Finding
//! it is the descent's job, and here it does not.
//!
//! The readahead-under-congestion diagnostic (2026-11-28; the Two-Rand rows are the experiment's own
//! diagnostic since then, the others were run outside it with `pagelab simulate`, this experiment's settings
//! and `--prefetch linux-2.6:512KiB,congestion=ignore`, 120 s after the automatic warm-up). The paper's
//! kernel carried a fix for 2.6.10's readahead under a congested queue (its ref. \[25\]) whose content is not
//! at hand; this model runs 2.6.18's (skip the ahead window, read it blocking when the reader reaches it).
//! The other reading, ahead windows issued whatever the queue's state, gives (MiB/s AccessHistory /
//! PC-Coldest+, AccessHistory's thrashed pages/s; seed 1 unless stated):
//! - Two-Rand (the experiment's diagnostic, means of seeds 1–3; MiB/s, AccessHistory's thrashed pages/s,
//!   gains over AccessHistory under the same rule; remeasured on 2026-12-06, after the watermarks stopped
//!   moving with the handlers' stacks, `0c6fcc5`):
//!
//!   | handlers | rule | AccessHistory | PC-Coldest+ (descent) | PC-Coldest+ at a fixed 50 % |
//!   |---|---|---|---|---|
//!   | 100 | skip | 20.16 (1/s) | 17.37 (−14 %) | 20.04 (−1 %) |
//!   | 100 | ignore | 17.95 (0/s) | 14.24 (−21 %) | 17.81 (−1 %) |
//!   | 400 | skip | 18.76 (9/s) | 19.03 (+1 %) | n/a |
//!   | 400 | ignore | 10.82 (55/s) | 11.58 (+7 %) | 14.54 (+34 %) |
//!   | 500 | skip | 17.13 (17/s) | 18.75 (+9 %) | 18.31 (+7 %) |
//!   | 500 | ignore | 9.54 (68/s) | 10.58 (+11 %) | 12.69 (+33 %) |
//!   | 1000 | skip | 15.56 (26/s) | 11.07 (−29 %) | 16.05 (+3 %) |
//!   | 1000 | ignore | 6.02 (102/s) | 3.97 (−34 %) | 4.86 (−19 %) |
//!
//!   Before that change the descent's runs differed by seed (at 500: +28 / +23 / −14 %; at 1000 one seed
//!   collapses to 0.94 MiB/s,
//!   its allocation at 36 MiB). Outside the experiment (seeds 1–3): at 200 and 300 handlers AccessHistory
//!   15.38 and 12.70 MiB/s (18 and 39 thrashed pages/s), the fixed 50 % +12 and +29 %; a fixed 25 % loses at
//!   500 (6.52) and the FIFO order at 50 % gains 3 %.
//! - One-Rand: 17.96 / 17.89, 16.43 / 15.42 (8), 14.49 / 12.11 (21): it falls 19 %, PC-Coldest+ lower.
//! - The index server: 47.01 / 33.69, 48.49 / 13.62, 44.20 / 33.17, thrashing at most 2 pages/s; media
//!   clips (256 MiB): 17.27 / 17.02, 15.92 / 14.93, 15.42 / 14.17, none.
//!
//! Ignoring congestion costs AccessHistory 5–26 % at 100 handlers already (windows read past the requests'
//! ends, and handlers asleep on the full queue for asynchronous windows). It makes AccessHistory thrash on
//! Two-Rand as the paper's does. The Coldest+ order at a large fixed share then gains what the paper reports
//! at 400 handlers (+34 %; the paper: +34 %) and a third of its two-fold at 500 (+33 %), which the descent
//! reaches in part (+7 and +11 % on average); at 1000 nothing tried gains (a prefetch cache of half of
//! memory holds 65 pages a handler there, half of one 512 KiB window, and is full of unread pages: 272 MiB
//! unread on average and disk requests of 9.7 pages in seed 1), and the index server and the media clips still do not
//! thrash. So the readahead's congestion rule is not what keeps this model from Figures 7 and 9, and it
//! decides Figure 5(C) only together with the allocation.
//!
//! Space overhead (§3.3): 0.39 % of memory by the paper's accounting, 0.63–0.65 % for pagelab's structures.
//!
//! Outside the experiment (seed 1, 120 s, `pagelab simulate … --prefetch-cache pc-coldest+:epoch=…`;
//! measured before the completion order was fixed), longer epochs: the index server at 100 / 1000 handlers delivers
//! 34.9 / 34.5 MiB/s with 1-s epochs (allocation 457 / 388 MiB on average, 55 / 51 reversals in 120 epochs),
//! 57.8 / 62.8 with 10-s epochs (162 / 167 MiB) and 61.3 / 64.7 with 30-s epochs (136 / 135 MiB), against
//! AccessHistory's 63.6 / 65.1; Two-Rand at 500 and 1000 handlers changes little (19.7–20.1 and 18.1–18.6).
//! Longer epochs mostly move the allocation less (4–12 epochs in the measured period, staying near the
//! initial 25 %); none finds the small allocation the index server wants (5 %). Evidence for the follow-up,
//! not a change of the experiment's constants.

use super::{finite_range, Chart, Check, Experiment, Findings, Job, Row, Value, Verdict};
use crate::config::{MemoryModel, SimConfig, Warmup};
use crate::device::DeviceSpec;
use crate::error::SimError;
use crate::server::simulate;
use crate::workload::spec::parse_workload;
use pagelab_core::memory::WatermarkRule;
use pagelab_core::pcache::PrefetchCacheConfig;
use pagelab_core::policy::PolicyKind;
use pagelab_core::{Nanos, PAGE_SIZE_BYTES};
use std::fmt::Write as _;

pub struct PrefetchMemory;

/// The systems of Figure 5, in the paper's order (§4.2 #1–#5).
pub const SYSTEMS: [&str; 5] =
    ["access-history", "pc-access-history", "pc-longest", "pc-coldest", "pc-coldest+"];
/// Figure 6's approximated optimal.
pub const OPTIMAL: &str = "pc-optimal";
const AH: &str = "access-history";
const PCC: &str = "pc-coldest+";
/// §4.1's microbenchmarks, Figure 5's panels (A)–(D).
pub const MICRO: [&str; 4] = ["one-whole", "one-rand", "two-rand", "four-64kb"];
pub const INDEX: &str = "index-search";
pub const CLIPS: &str = "media-clips";
/// "A dataset of 6000 4MB disk-resident files" (§4.1).
pub const FILES: u32 = 6000;
/// The paper's testbed disk class: "a 36.4GB IBM 10KRPM SCSI drive" (§4): the IBM Ultrastar 36LZX
/// (`device/ultrastar36lzx.rs`).
pub const DEVICE: &str = "ultrastar36lzx";
pub const DEPTH_BYTES: u64 = 512 << 10;
pub const MEMORY_BYTES: u64 = 512 << 20;
/// §4.3: "the server memory size at 256MB" for the media clips.
pub const CLIPS_MEMORY_BYTES: u64 = 256 << 20;
pub const NR_REQUESTS: u32 = 128;
pub const CONCURRENCY: [u32; 9] = [1, 50, 100, 200, 300, 400, 500, 700, 1000];
pub const CONCURRENCY_QUICK: [u32; 2] = [100, 1000];
/// Figures 10–12's concurrency levels.
pub const FACTOR_CONCURRENCY: [u32; 3] = [100, 500, 1000];
pub const DEPTHS_BYTES: [u64; 3] = [128 << 10, 256 << 10, 512 << 10];
pub const MEMORIES_BYTES: [u64; 3] = [512 << 20, 1 << 30, 2 << 30];
/// 1 GB, 8 GB and 24 GB of 4 MB files (§4.4: "1GB, 8GB, and 24GB").
pub const DATASET_FILES: [u32; 3] = [256, 2000, 6000];
pub const SEEDS: u64 = 3;
pub const MEASURED_SECS: u64 = 120;
pub const MEASURED_SECS_QUICK: u64 = 30;
/// The diagnostic of the prefetch cache without its gradient descent: fixed shares of memory, the
/// partitioning option the issue names beside the paper's descent (not a figure of the paper).
pub const FIXED_SHARES: [&str; 2] = ["pc-coldest+:fixed=5%", "pc-coldest+:fixed=50%"];
pub const FIXED_WORKLOADS: [&str; 3] = ["two-rand", INDEX, CLIPS];
/// Diagnostic: the other reading of the paper's readahead-under-congestion fix (`congestion=ignore`), Two-Rand
/// at these levels (Figure 5(C)'s claims are at 400 and 500) under these systems.
pub const IGNORE_LEVELS: [u32; 4] = [100, 400, 500, 1000];
pub const IGNORE_SYSTEMS: [&str; 3] = [AH, PCC, FIXED_SHARES[1]];
/// "High concurrency" (§4.3).
pub const HIGH: u32 = 100;
/// Gains below this are noise for the criteria.
pub const NOISE: f64 = 0.05;

/// One simulation of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    pub workload: &'static str,
    pub system: &'static str,
    pub concurrency: u32,
    pub memory_bytes: u64,
    pub depth_bytes: u64,
    /// Files of the microbenchmarks (the application workloads have their own datasets).
    pub files: u32,
    pub seed: u64,
    pub secs: u64,
    /// Sample the prefetch cache every second.
    pub timeline: bool,
    /// 2.6's ahead windows issued on a congested queue too (`linux-2.6:…,congestion=ignore`): the
    /// diagnostic of the other reading of the paper's kernel fix; `false` is 2.6.18's rule.
    pub congestion_ignore: bool,
}

impl RunSpec {
    fn new(workload: &'static str, system: &'static str, concurrency: u32, seed: u64, secs: u64) -> RunSpec {
        let memory_bytes = if workload == CLIPS { CLIPS_MEMORY_BYTES } else { MEMORY_BYTES };
        RunSpec {
            workload,
            system,
            concurrency,
            memory_bytes,
            depth_bytes: DEPTH_BYTES,
            files: FILES,
            seed,
            secs,
            timeline: false,
            congestion_ignore: false,
        }
    }

    /// The readahead's congestion rule: its name in results.csv, and its suffix to the prefetcher spec.
    fn congestion_rule(&self) -> (&'static str, &'static str) {
        if self.congestion_ignore {
            ("ignore", ",congestion=ignore")
        } else {
            ("skip", "")
        }
    }

    fn workload_spec(&self) -> String {
        if MICRO.contains(&self.workload) {
            format!("{}:files={}", self.workload, self.files)
        } else {
            self.workload.to_string()
        }
    }

    fn label(&self) -> String {
        format!(
            "{} {} x{} {} MiB {} KiB files={} seed {}{}{}",
            self.workload,
            self.system,
            self.concurrency,
            self.memory_bytes >> 20,
            self.depth_bytes >> 10,
            self.files,
            self.seed,
            if self.timeline { " (timeline)" } else { "" },
            if self.congestion_ignore { " congestion=ignore" } else { "" }
        )
    }

    /// The paper's configuration for this run, the shared system model for the rest.
    pub fn config(&self) -> Result<SimConfig, SimError> {
        Ok(SimConfig {
            memory_bytes: self.memory_bytes,
            memory_model: MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 },
            policy: PolicyKind::TwoList,
            prefetch_cache: PrefetchCacheConfig::parse(self.system, self.seed)?,
            prefetcher: format!("linux-2.6:{}KiB{}", self.depth_bytes >> 10, self.congestion_rule().1)
                .parse()?,
            device: DeviceSpec::parse(DEVICE).map_err(|e| SimError::Config(e.to_string()))?,
            scheduler: "anticipatory".parse()?,
            nr_requests: Some(NR_REQUESTS),
            concurrency: self.concurrency,
            duration: Nanos::from_secs(self.secs),
            warmup: Warmup::Auto,
            seed: self.seed,
            timeline: self.timeline.then_some(Nanos::from_secs(1)),
            ..SimConfig::default()
        })
    }

    /// Run it: one row of results.csv.
    pub fn run(&self) -> Result<Row, SimError> {
        let workload = parse_workload(&self.workload_spec())?;
        let dataset_bytes = workload.file_pages().iter().sum::<u64>() * PAGE_SIZE_BYTES;
        let m = simulate(self.config()?, workload)?;
        let mib = |bytes: f64| bytes / (1u64 << 20) as f64;
        let pages = |bytes: f64| bytes / PAGE_SIZE_BYTES as f64;
        let pc = m.prefetch_cache.clone().unwrap_or_default();
        let per_request =
            |x: f64| if m.requests_completed == 0 { 0.0 } else { x / m.requests_completed as f64 };
        let mut series = Vec::new();
        if self.timeline {
            let t = |f: fn(&crate::metrics::MemorySample) -> u64| {
                m.timeline.iter().map(|s| (s.t_s, mib(f(s) as f64))).collect::<Vec<_>>()
            };
            series.push(("prefetch cache".to_string(), t(|s| s.prefetch_cache_bytes)));
            series.push(("allocation".to_string(), t(|s| s.prefetch_cache_allocation_bytes)));
        }
        Ok(Row {
            params: vec![
                ("workload".into(), self.workload.into()),
                ("policy".into(), self.system.into()),
                ("concurrency".into(), Value::from(self.concurrency as u64)),
                ("memory_bytes".into(), Value::from(self.memory_bytes)),
                ("prefetch_depth_bytes".into(), Value::from(self.depth_bytes)),
                ("dataset_bytes".into(), Value::from(dataset_bytes)),
                ("seed".into(), Value::from(self.seed)),
                ("timeline".into(), Value::from(if self.timeline { "yes" } else { "no" })),
                ("congestion".into(), Value::from(self.congestion_rule().0)),
            ],
            metrics: vec![
                ("throughput_mib_s".into(), m.throughput_mib_s),
                ("thrash_pages_per_s".into(), m.prefetch.thrash_pages_per_s),
                ("thrash_pages_per_request".into(), per_request(m.prefetch.thrash_pages as f64)),
                ("prefetch_cache_pages_mean".into(), pages(m.memory.prefetch_cache_bytes_mean)),
                (
                    "prefetch_cache_allocation_pages_mean".into(),
                    pages(m.memory.prefetch_cache_allocation_bytes_mean),
                ),
                ("prefetch_cache_allocation_mib_final".into(), mib(pc.allocation_bytes_final as f64)),
                ("requests_completed".into(), m.requests_completed as f64),
                ("latency_mean_ms".into(), m.latency_ms.mean),
                ("hit_ratio".into(), m.hit_ratio),
                ("pages_prefetched".into(), m.prefetch.pages_prefetched as f64),
                ("prefetched_used".into(), m.prefetch.prefetched_used as f64),
                ("evicted_unused".into(), m.prefetch.evicted_unused as f64),
                ("pc_reclaimed_exited".into(), pc.reclaimed_exited_pages as f64),
                ("pc_reclaimed_unneeded".into(), pc.reclaimed_unneeded_pages as f64),
                ("pc_reclaimed_ordered".into(), pc.reclaimed_ordered_pages as f64),
                ("pc_epochs".into(), pc.epochs as f64),
                ("pc_reversals".into(), pc.reversals as f64),
                ("pc_prefetch_misses".into(), pc.prefetch_misses as f64),
                ("pc_cache_misses".into(), pc.cache_misses as f64),
                ("space_overhead_paper".into(), pc.space_overhead_paper_fraction),
                ("space_overhead_pagelab".into(), pc.space_overhead_pagelab_fraction),
                ("mean_request_pages".into(), m.disk.mean_request_pages),
                ("disk_busy".into(), m.disk.busy_fraction),
                ("in_flight_mib_mean".into(), mib(m.memory.in_flight_bytes_mean)),
                ("prefetched_unused_mib_mean".into(), mib(m.memory.prefetched_unused_bytes_mean)),
                ("warmup_s".into(), m.warmup.seconds),
                ("steady_state".into(), if m.warmup.steady_state { 1.0 } else { 0.0 }),
            ],
            series,
        })
    }
}

/// The sweep's runs, each once (the figures share points: Figure 5's AccessHistory and PC-Coldest+ at the
/// defaults are also Figures 6 and 10–12's).
pub fn sweep(quick: bool, seed: u64) -> Vec<RunSpec> {
    let mut runs: Vec<RunSpec> = Vec::new();
    let mut add = |r: RunSpec| {
        if !runs.contains(&r) {
            runs.push(r);
        }
    };
    let (levels, secs, seeds): (&[u32], u64, u64) = if quick {
        (&CONCURRENCY_QUICK, MEASURED_SECS_QUICK, 1)
    } else {
        (&CONCURRENCY, MEASURED_SECS, SEEDS)
    };
    for s in super::seeds(seed, seeds) {
        if quick {
            for &c in levels {
                for w in ["two-rand", "one-rand", INDEX] {
                    for system in [AH, "pc-access-history", PCC, OPTIMAL] {
                        if system != OPTIMAL || w != INDEX {
                            add(RunSpec::new(w, system, c, s, secs));
                        }
                    }
                }
                add(RunSpec::new("four-64kb", AH, c, s, secs));
                add(RunSpec::new("four-64kb", PCC, c, s, secs));
            }
            continue;
        }
        for w in MICRO.iter().copied().chain([INDEX, CLIPS]) {
            for &c in levels {
                for system in SYSTEMS {
                    add(RunSpec::new(w, system, c, s, secs));
                }
                if w == "one-rand" || w == "two-rand" {
                    add(RunSpec::new(w, OPTIMAL, c, s, secs));
                }
            }
        }
        for &c in &FACTOR_CONCURRENCY {
            for system in [AH, PCC] {
                let base = RunSpec::new("two-rand", system, c, s, secs);
                for depth_bytes in DEPTHS_BYTES {
                    add(RunSpec { depth_bytes, ..base.clone() });
                }
                for memory_bytes in MEMORIES_BYTES {
                    add(RunSpec { memory_bytes, ..base.clone() });
                }
                for files in DATASET_FILES {
                    add(RunSpec { files, ..base.clone() });
                }
            }
        }
    }
    // Diagnostic: the prefetch cache at fixed shares, without the descent (full sweep only).
    if !quick {
        for s in super::seeds(seed, seeds) {
            for w in FIXED_WORKLOADS {
                for &c in &FACTOR_CONCURRENCY {
                    for system in FIXED_SHARES {
                        add(RunSpec::new(w, system, c, s, secs));
                    }
                }
            }
        }
    }
    // Diagnostic: the other reading of the congestion fix, Two-Rand (full sweep only).
    if !quick {
        for s in super::seeds(seed, seeds) {
            for &c in &IGNORE_LEVELS {
                for system in IGNORE_SYSTEMS {
                    add(RunSpec { congestion_ignore: true, ..RunSpec::new("two-rand", system, c, s, secs) });
                }
            }
        }
    }
    // The prefetch cache over time: one seed.
    for w in ["four-64kb", "two-rand", INDEX] {
        add(RunSpec { timeline: true, ..RunSpec::new(w, PCC, 1000, seed, secs) });
    }
    runs
}

impl Experiment for PrefetchMemory {
    fn name(&self) -> &'static str {
        "prefetch-memory"
    }

    fn title(&self) -> &'static str {
        "Li & Shen's prefetch cache: Longest / Coldest / Coldest+ and gradient-descent partitioning vs Linux (Figures 2, 5-12)"
    }

    fn description(&self) -> &'static str {
        "Runs papers/000's evaluation on its kernel and testbed (2.6 readahead with a 512 KiB maximum, 512 MiB \
         of memory, the active/inactive lists, the anticipatory scheduler, a 36.4 GB 10,000 RPM disk): the \
         four microbenchmarks, the index-searching server and Apache hosting media clips at 1 to 1000 \
         handlers under AccessHistory and the prefetch cache reclaimed FIFO, Longest, Coldest, Coldest+ and \
         the approximated optimal, plus Two-Rand at other prefetch depths, memory and dataset sizes, three \
         seeds per point, 120 s each (--quick: 4 workloads at 100 and 1000 handlers, one seed, 30 s)."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        sweep(quick, seed)
            .into_iter()
            .map(|r| {
                let label = r.label();
                Job::new(label, move || r.run())
            })
            .collect()
    }

    fn analyze(&self, rows: &[Row], quick: bool) -> Findings {
        let t = Table { rows };
        let levels: Vec<u32> = if quick { CONCURRENCY_QUICK.to_vec() } else { CONCURRENCY.to_vec() };
        let mut checks = Vec::new();
        checks.push(thrash_check(&t, &levels));
        checks.push(gain_check(&t, INDEX, 0.11, "PC-Coldest+ outperforms AccessHistory by 11-64 % on the index-searching server at 100 handlers and above", "papers/000 §4.3, Figure 7"));
        if !quick {
            checks.push(gain_check(&t, CLIPS, NOISE, "The prefetch-cache systems beat AccessHistory on Apache hosting media clips at every concurrency level, PC-Coldest+ the most", "papers/000 §4.3, Figure 9"));
        }
        checks.push(gain_check(
            &t,
            "one-rand",
            0.08,
            "One-Rand: PC-Coldest+ improves on AccessHistory by 8-97 % at high concurrency",
            "papers/000 §4.2, Figure 5(B)",
        ));
        checks.push(two_rand_check(&t, quick));
        checks.push(order_check(&t, quick));
        for w in ["one-whole", "four-64kb"] {
            if !quick || w == "four-64kb" {
                checks.push(flat_check(&t, w));
            }
        }
        checks.push(converge_check(&t));
        checks.push(optimal_check(&t));
        if !quick {
            checks.extend(factor_checks(&t));
        }
        let charts = charts(&t, &levels, quick);
        let summary = summary(&t, &levels);
        Findings { summary, charts, checks, markdown: markdown(&t, &levels, quick) }
    }
}

/// The rows, and means over seeds.
struct Table<'a> {
    rows: &'a [Row],
}

/// Which rows: a workload and system at the defaults (or one factor changed).
#[derive(Clone, Copy)]
struct Point<'s> {
    workload: &'s str,
    system: &'s str,
    concurrency: u32,
    memory_bytes: u64,
    depth_bytes: u64,
    files: Option<u64>,
    /// `skip` (2.6.18's readahead, every figure) or `ignore` (the congestion diagnostic).
    congestion: &'s str,
}

impl<'s> Point<'s> {
    fn at(workload: &'s str, system: &'s str, concurrency: u32) -> Point<'s> {
        let memory_bytes = if workload == CLIPS { CLIPS_MEMORY_BYTES } else { MEMORY_BYTES };
        let files = MICRO.contains(&workload).then_some(FILES as u64);
        Point {
            workload,
            system,
            concurrency,
            memory_bytes,
            depth_bytes: DEPTH_BYTES,
            files,
            congestion: "skip",
        }
    }
}

impl Table<'_> {
    fn matching<'p>(&'p self, p: Point<'p>) -> impl Iterator<Item = &'p Row> + 'p {
        let files_bytes = p.files.map(|f| f * (4 << 20));
        self.rows.iter().filter(move |r| {
            r.text("workload") == p.workload
                && r.text("policy") == p.system
                && r.num("concurrency") == p.concurrency as f64
                && r.num("memory_bytes") == p.memory_bytes as f64
                && r.num("prefetch_depth_bytes") == p.depth_bytes as f64
                && files_bytes.is_none_or(|b| r.num("dataset_bytes") == b as f64)
                && r.text("timeline") == "no"
                && r.text("congestion") == p.congestion
        })
    }
    /// Mean of `metric` over seeds, and its min and max (NaN if no run).
    fn stat(&self, p: Point, metric: &str) -> (f64, f64, f64) {
        let v: Vec<f64> = self.matching(p).map(|r| r.metric(metric)).collect();
        if v.is_empty() {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        (
            mean,
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }
    fn tp(&self, p: Point) -> f64 {
        self.stat(p, "throughput_mib_s").0
    }
    /// `p`'s system against AccessHistory at the same point: mean throughput ratio − 1.
    fn gain(&self, p: Point) -> f64 {
        self.gain_over(p, AH)
    }
    /// `p`'s system against `base` at the same point: mean throughput ratio − 1.
    fn gain_over(&self, p: Point, base: &str) -> f64 {
        self.tp(p) / self.tp(Point { system: base, ..p }) - 1.0
    }
    /// Concurrency levels measured for a workload and system at the defaults.
    fn levels(&self, workload: &str, system: &str) -> Vec<u32> {
        let mut v: Vec<u32> = CONCURRENCY
            .iter()
            .chain(CONCURRENCY_QUICK.iter())
            .copied()
            .filter(|&c| self.matching(Point::at(workload, system, c)).next().is_some())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
    fn timeline(&self, workload: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.text("workload") == workload && r.text("timeline") == "yes")
    }
}

fn pct(x: f64) -> String {
    super::signed_pct(x, 0)
}

/// Gains of `system` over AccessHistory at high concurrency, `(concurrency, gain)`.
fn high_gains(t: &Table, workload: &str, system: &str) -> Vec<(u32, f64)> {
    gains(t, workload, system, AH, HIGH)
}

/// Gains of `system` over `base` at every measured level from `c_min` handlers, `(concurrency, gain)`.
fn gains(t: &Table, workload: &str, system: &str, base: &str, c_min: u32) -> Vec<(u32, f64)> {
    t.levels(workload, system)
        .into_iter()
        .filter(|&c| c >= c_min)
        .map(|c| (c, t.gain_over(Point::at(workload, system, c), base)))
        .filter(|(_, g)| g.is_finite())
        .collect()
}

fn gains_text(g: &[(u32, f64)]) -> String {
    g.iter().map(|(c, x)| format!("{c}: {}", pct(*x))).collect::<Vec<_>>().join(", ")
}

fn gain_check(t: &Table, workload: &str, claim_min: f64, claim: &str, source: &str) -> Check {
    let g = high_gains(t, workload, PCC);
    let max = g.iter().map(|x| x.1).fold(f64::NAN, f64::max);
    let min = g.iter().map(|x| x.1).fold(f64::NAN, f64::min);
    let verdict = if max >= claim_min && min >= -NOISE {
        Verdict::Reproduced
    } else if max >= NOISE {
        Verdict::Partial
    } else {
        Verdict::NotReproduced
    };
    Check {
        claim: claim.into(),
        source: source.into(),
        measured: format!(
            "PC-Coldest+ over AccessHistory by handlers: {} (criterion: largest ≥ {:.0} %, none below −{:.0} %)",
            gains_text(&g),
            100.0 * claim_min,
            100.0 * NOISE
        ),
        verdict,
    }
}

fn two_rand_check(t: &Table, quick: bool) -> Check {
    let at = |c: u32| t.gain(Point::at("two-rand", PCC, c));
    let g = high_gains(t, "two-rand", PCC);
    let (g400, g500) = (at(400), at(500));
    let verdict = if quick {
        // The quick sweep has neither point: judge the largest gain at high concurrency against 34 %.
        let max = g.iter().map(|x| x.1).fold(f64::NAN, f64::max);
        if max >= 0.17 {
            Verdict::Reproduced
        } else if max > NOISE {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        }
    } else if g400 >= 0.17 && g500 >= 0.5 {
        Verdict::Reproduced
    } else if g400 > NOISE && g500 > NOISE {
        Verdict::Partial
    } else {
        Verdict::NotReproduced
    };
    Check {
        claim: "Two-Rand: PC-Coldest+ improves on AccessHistory by 34 % at 400 handlers and two-fold at 500".into(),
        source: "papers/000 §4.2, Figure 5(C)".into(),
        measured: format!(
            "gains {} (criterion: ≥ 17 % at 400 and ≥ 50 % at 500, half the paper's; --quick: the largest ≥ 17 %)",
            gains_text(&g)
        ),
        verdict,
    }
}

/// Mean throughput over high concurrency.
fn high_mean(t: &Table, workload: &str, system: &str) -> f64 {
    let v: Vec<f64> = t
        .levels(workload, system)
        .into_iter()
        .filter(|&c| c >= HIGH)
        .map(|c| t.tp(Point::at(workload, system, c)))
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn order_check(t: &Table, quick: bool) -> Check {
    let tol = 0.02;
    let mut held = 0;
    let mut total = 0;
    let mut text = Vec::new();
    for w in ["two-rand", INDEX] {
        let m = |s: &str| high_mean(t, w, s);
        let (ah, pcah, pcc) = (m(AH), m("pc-access-history"), m(PCC));
        let between = pcah >= ah * (1.0 - tol) && pcah <= pcc * (1.0 + tol);
        total += 1;
        held += between as u32;
        let mut line = format!("{w}: AH {ah:.2}, PC-AH {pcah:.2}, PC-C+ {pcc:.2} MiB/s");
        if !quick {
            let (l, c) = (m("pc-longest"), m("pc-coldest"));
            let best = pcc >= l.max(c) * (1.0 - tol);
            total += 1;
            held += best as u32;
            let _ = write!(line, ", PC-Longest {l:.2}, PC-Coldest {c:.2}");
        }
        text.push(line);
    }
    Check {
        claim: "PC-AccessHistory lies between AccessHistory and PC-Coldest+; PC-Coldest+ is at least PC-Coldest and PC-Longest".into(),
        source: "papers/000 §4.2 (Figure 5(C)), §4.3 (Figure 7)".into(),
        measured: format!(
            "means at 100 handlers and above: {}; {held} of {total} orderings hold (2 % tolerance)",
            text.join("; ")
        ),
        verdict: if held == total {
            Verdict::Reproduced
        } else if held > 0 {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    }
}

fn flat_check(t: &Table, workload: &str) -> Check {
    let g = gains(t, workload, PCC, AH, 0);
    let worst = g.iter().map(|x| x.1.abs()).fold(0.0, f64::max);
    Check {
        claim: format!("{workload}: the prefetch cache neither gains nor loses against AccessHistory"),
        source: "papers/000 §4.2, Figure 5(A) and (D)".into(),
        measured: format!(
            "PC-Coldest+ over AccessHistory: {} (criterion: every |gain| ≤ 10 %)",
            gains_text(&g)
        ),
        verdict: if worst <= 0.10 {
            Verdict::Reproduced
        } else if worst <= 0.20 {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    }
}

fn thrash_check(t: &Table, levels: &[u32]) -> Check {
    let hi = *levels.last().expect("levels");
    let tps: Vec<(u32, f64)> =
        t.levels(INDEX, AH).into_iter().map(|c| (c, t.tp(Point::at(INDEX, AH, c)))).collect();
    let (c_peak, peak) =
        tps.iter().copied().fold((0, f64::NAN), |b, x| if b.1.is_nan() || x.1 > b.1 { x } else { b });
    let end = t.tp(Point::at(INDEX, AH, hi));
    let per_req = |c: u32| t.stat(Point::at(INDEX, AH, c), "thrash_pages_per_request").0;
    let (thrash_peak, thrash_end) = (per_req(c_peak), per_req(hi));
    let ratio = end / peak;
    Check {
        claim: "AccessHistory thrashes at high concurrency: the index server at 1000 handlers falls to about 25 % of its peak, with 258 thrashed pages per request, thrashing rising with concurrency".into(),
        source: "papers/000 §2 (Figure 2), §4.3 (Figure 8)".into(),
        measured: format!(
            "peak {peak:.2} MiB/s at {c_peak}, {end:.2} at {hi} ({:.0} % of the peak); thrashing {thrash_peak:.1} \
             pages/request at the peak, {thrash_end:.1} at {hi} (criterion: ≤ 50 % of the peak and more thrashing)",
            100.0 * ratio
        ),
        verdict: if ratio <= 0.5 && thrash_end > thrash_peak {
            Verdict::Reproduced
        } else if peak >= 1.15 * end {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    }
}

fn converge_check(t: &Table) -> Check {
    let row = t.timeline("four-64kb");
    let mean_alloc = row.map_or(f64::NAN, |r| r.metric("prefetch_cache_allocation_pages_mean"));
    let memory_pages = (MEMORY_BYTES / PAGE_SIZE_BYTES) as f64;
    let share = mean_alloc / memory_pages;
    let fin = row.map_or(f64::NAN, |r| r.metric("prefetch_cache_allocation_mib_final"));
    Check {
        claim: "Four-64KB: the gradient descent quickly converges to a small prefetch cache allocation".into(),
        source: "papers/000 §4.2 (Figure 5(D))".into(),
        measured: format!(
            "PC-Coldest+ at 1000 handlers: mean allocation {:.1} % of memory over the measured period, {fin:.0} \
             MiB at its end (start: 25 %; criterion: below 10 %)",
            100.0 * share
        ),
        verdict: if share < 0.10 {
            Verdict::Reproduced
        } else if share < 0.25 {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    }
}

fn optimal_check(t: &Table) -> Check {
    let mut best = f64::NAN;
    let mut text = Vec::new();
    for w in ["one-rand", "two-rand"] {
        let g = gains(t, w, OPTIMAL, PCC, HIGH);
        best = g.iter().map(|x| x.1).fold(best, f64::max);
        text.push(format!("{w}: {}", gains_text(&g)));
    }
    Check {
        claim: "PC-Coldest+ is 10-32 % below the approximated optimal at high concurrency".into(),
        source: "papers/000 §4.2, Figure 6".into(),
        measured: format!(
            "the optimal over PC-Coldest+ by handlers: {} (criterion: the largest ≥ 10 %)",
            text.join("; ")
        ),
        verdict: if best >= 0.10 {
            Verdict::Reproduced
        } else if best >= 0.03 {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    }
}

/// Mean gain of PC-Coldest+ over AccessHistory on Two-Rand over Figures 10–12's concurrency levels with
/// one factor changed.
fn factor_gain(t: &Table, change: impl Fn(Point) -> Point) -> f64 {
    let g: Vec<f64> =
        FACTOR_CONCURRENCY.iter().map(|&c| t.gain(change(Point::at("two-rand", PCC, c)))).collect();
    g.iter().sum::<f64>() / g.len() as f64
}

fn factor_checks(t: &Table) -> Vec<Check> {
    let depth: Vec<f64> =
        DEPTHS_BYTES.iter().map(|&d| factor_gain(t, |p| Point { depth_bytes: d, ..p })).collect();
    let memory: Vec<f64> =
        MEMORIES_BYTES.iter().map(|&m| factor_gain(t, |p| Point { memory_bytes: m, ..p })).collect();
    let data: Vec<f64> =
        DATASET_FILES.iter().map(|&f| factor_gain(t, |p| Point { files: Some(f as u64), ..p })).collect();
    let monotone = |v: &[f64], up: bool| {
        let ok = |a: f64, b: f64| if up { b > a } else { b < a };
        if v.windows(2).all(|w| ok(w[0], w[1])) {
            Verdict::Reproduced
        } else if ok(v[0], v[v.len() - 1]) {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        }
    };
    let list = |v: &[f64], names: &[&str]| {
        v.iter().zip(names).map(|(g, n)| format!("{n}: {}", pct(*g))).collect::<Vec<_>>().join(", ")
    };
    let persist = data.iter().filter(|&&g| g > NOISE).count();
    vec![
        Check {
            claim: "Two-Rand: the gain of PC-Coldest+ over AccessHistory grows with the maximum prefetching depth".into(),
            source: "papers/000 §4.4, Figure 10".into(),
            measured: format!("mean gain at 100/500/1000 handlers: {}", list(&depth, &["128 KiB", "256 KiB", "512 KiB"])),
            verdict: monotone(&depth, true),
        },
        Check {
            claim: "Two-Rand: the gain shrinks with more memory (and stays positive)".into(),
            source: "papers/000 §4.4, Figure 11".into(),
            measured: format!("mean gain at 100/500/1000 handlers: {}", list(&memory, &["512 MiB", "1 GiB", "2 GiB"])),
            verdict: monotone(&memory, false),
        },
        Check {
            claim: "Two-Rand: the gain persists across dataset sizes".into(),
            source: "papers/000 §4.4, Figure 12".into(),
            measured: format!(
                "mean gain at 100/500/1000 handlers: {} (criterion: above 5 % at every size)",
                list(&data, &["1 GB", "8 GB", "24 GB"])
            ),
            verdict: match persist {
                3 => Verdict::Reproduced,
                2 => Verdict::Partial,
                _ => Verdict::NotReproduced,
            },
        },
    ]
}

fn charts(t: &Table, levels: &[u32], quick: bool) -> Vec<Chart> {
    let systems: Vec<&str> = SYSTEMS.iter().copied().chain([OPTIMAL]).collect();
    let curve = |w: &str, s: &str, metric: &str| -> Vec<(f64, f64)> {
        t.levels(w, s).into_iter().map(|c| (c as f64, t.stat(Point::at(w, s, c), metric).0)).collect()
    };
    let panel = |title: String, w: &str, metric: &str, y: &str| Chart {
        title,
        x_label: "concurrent request handlers".into(),
        y_label: y.into(),
        log_x: levels.len() > 2,
        series: systems
            .iter()
            .map(|s| (s.to_string(), curve(w, s, metric)))
            .filter(|(_, pts)| !pts.is_empty())
            .collect(),
    };
    let mut charts = Vec::new();
    let mut workloads: Vec<&str> = MICRO.to_vec();
    workloads.extend([INDEX, CLIPS]);
    for w in workloads {
        if t.levels(w, AH).is_empty() {
            continue;
        }
        charts.push(panel(format!("{w}: throughput"), w, "throughput_mib_s", "throughput (MiB/s)"));
    }
    charts.push(panel(
        format!("{INDEX}: prefetch thrashing"),
        INDEX,
        "thrash_pages_per_request",
        "thrashed pages/request",
    ));
    charts.push(panel(
        "two-rand: prefetch thrashing".into(),
        "two-rand",
        "thrash_pages_per_request",
        "thrashed pages/request",
    ));
    if !quick {
        let factor = |title: &str, change: &dyn Fn(Point) -> Point, label: &str| Chart {
            title: title.into(),
            x_label: "concurrent request handlers".into(),
            y_label: "throughput (MiB/s)".into(),
            log_x: true,
            series: [AH, PCC]
                .iter()
                .map(|s| {
                    let pts = FACTOR_CONCURRENCY
                        .iter()
                        .map(|&c| (c as f64, t.tp(change(Point::at("two-rand", s, c)))))
                        .collect();
                    (format!("{} {label}", if *s == AH { "AH" } else { "PCC+" }), pts)
                })
                .collect(),
        };
        for d in DEPTHS_BYTES {
            charts.push(factor(
                &format!("two-rand, maximum prefetching depth {} KiB", d >> 10),
                &|p| Point { depth_bytes: d, ..p },
                &format!("{} KiB", d >> 10),
            ));
        }
        for m in MEMORIES_BYTES {
            charts.push(factor(
                &format!("two-rand, memory {} MiB", m >> 20),
                &|p| Point { memory_bytes: m, ..p },
                &format!("{} MiB", m >> 20),
            ));
        }
        for f in DATASET_FILES {
            charts.push(factor(
                &format!("two-rand, dataset {} files of 4 MiB", f),
                &|p| Point { files: Some(f as u64), ..p },
                &format!("{f} files"),
            ));
        }
    }
    let mut over_time = Chart {
        title: "PC-Coldest+ at 1000 handlers: the prefetch cache and its allocation over time".into(),
        x_label: "seconds of the measured period".into(),
        y_label: "MiB".into(),
        log_x: false,
        series: Vec::new(),
    };
    for w in ["four-64kb", "two-rand", INDEX] {
        if let Some(r) = t.timeline(w) {
            for (name, pts) in &r.series {
                over_time.series.push((format!("{w} {name}"), pts.clone()));
            }
        }
    }
    if !over_time.series.is_empty() {
        charts.push(over_time);
    }
    charts
}

/// A name as a `summary.json` key: `pc-coldest+` → `pc_coldest_plus`.
fn summary_key(name: &str) -> String {
    name.replace('+', "_plus").replace('-', "_")
}

fn summary(t: &Table, levels: &[u32]) -> Vec<(String, f64)> {
    let hi = *levels.last().expect("levels");
    let mut s = Vec::new();
    for w in MICRO.iter().copied().chain([INDEX, CLIPS]) {
        let key = summary_key(w);
        for system in [AH, PCC] {
            let tp = t.tp(Point::at(w, system, hi));
            if tp.is_finite() {
                s.push((format!("{key}_{}_c{hi}_mib_s", summary_key(system)), tp));
            }
        }
        let g = t.gain(Point::at(w, PCC, hi));
        if g.is_finite() {
            s.push((format!("{key}_{}_gain_c{hi}", summary_key(PCC)), g));
        }
    }
    s
}

fn markdown(t: &Table, levels: &[u32], quick: bool) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Every run: `linux-2.6:512KiB` readahead, {} MiB of memory (media clips {} MiB) under the `linux-2.6` \
         memory model, policy `linux` (the active/inactive lists), the anticipatory scheduler, `nr_requests` \
         {NR_REQUESTS}, the `{DEVICE}` disk (IBM Ultrastar 36LZX, 36.7 GB, 10,000 RPM: the paper's class), a thread per request, \
         closed loop, {} s measured after the automatic warm-up, {} seed(s) per point. The prefetch cache's \
         gradient descent starts at 25 % of memory with an eviction history of 40 % of the pages; epoch 1 s, \
         adjustment 1 % of memory.\n",
        MEMORY_BYTES >> 20,
        CLIPS_MEMORY_BYTES >> 20,
        if quick { MEASURED_SECS_QUICK } else { MEASURED_SECS },
        if quick { 1 } else { SEEDS },
    );
    let _ = writeln!(md, "### Throughput, MiB/s (mean over seeds, min–max in brackets)\n");
    let systems: Vec<&str> = SYSTEMS.iter().copied().chain([OPTIMAL]).collect();
    let mut workloads: Vec<&str> = MICRO.to_vec();
    workloads.extend([INDEX, CLIPS]);
    for w in workloads {
        let present: Vec<&str> = systems.iter().copied().filter(|s| !t.levels(w, s).is_empty()).collect();
        if present.is_empty() {
            continue;
        }
        let _ = writeln!(
            md,
            "**{w}**\n\n| handlers | {} |\n|---|{}",
            present.join(" | "),
            "---|".repeat(present.len())
        );
        for &c in levels {
            let cells: Vec<String> = present
                .iter()
                .map(|s| {
                    let (mean, lo, hi) = t.stat(Point::at(w, s, c), "throughput_mib_s");
                    if mean.is_nan() {
                        "–".into()
                    } else if lo == hi {
                        format!("{mean:.2}")
                    } else {
                        format!("{mean:.2} [{lo:.2}–{hi:.2}]")
                    }
                })
                .collect();
            let _ = writeln!(md, "| {c} | {} |", cells.join(" | "));
        }
        let _ = writeln!(
            md,
            "\nThrashed pages per request and prefetch cache (mean MiB) at each level, AH / PC-C+:\n"
        );
        let _ = writeln!(md, "| handlers | AH thrash/req | PC-C+ thrash/req | PC-C+ cache MiB | PC-C+ allocation MiB |\n|---|---|---|---|---|");
        for &c in levels {
            let s = |sys: &str, m: &str| t.stat(Point::at(w, sys, c), m).0;
            let _ = writeln!(
                md,
                "| {c} | {:.1} | {:.1} | {:.0} | {:.0} |",
                s(AH, "thrash_pages_per_request"),
                s(PCC, "thrash_pages_per_request"),
                s(PCC, "prefetch_cache_pages_mean") * PAGE_SIZE_BYTES as f64 / (1 << 20) as f64,
                s(PCC, "prefetch_cache_allocation_pages_mean") * PAGE_SIZE_BYTES as f64 / (1 << 20) as f64,
            );
        }
        md.push('\n');
    }
    if !quick {
        let _ = writeln!(
            md,
            "### Diagnostic: the prefetch cache at fixed shares (no gradient descent)\n\nThroughput MiB/s (mean over \
             seeds) and thrashed pages/s, PC-Coldest+ with the descent against the same order at a fixed 5 % and \
             50 % of memory; not a figure of the paper: it separates the reclamation order from the partitioning.\n\n\
             | workload | handlers | AccessHistory | PC-Coldest+ (descent) | fixed 5 % | fixed 50 % |\n|---|---|---|---|---|---|"
        );
        for w in FIXED_WORKLOADS {
            for c in FACTOR_CONCURRENCY {
                let cell = |sys: &str| {
                    let p = Point::at(w, sys, c);
                    format!("{:.2} ({:.0}/s)", t.tp(p), t.stat(p, "thrash_pages_per_s").0)
                };
                let _ = writeln!(
                    md,
                    "| {w} | {c} | {} | {} | {} | {} |",
                    cell(AH),
                    cell(PCC),
                    cell(FIXED_SHARES[0]),
                    cell(FIXED_SHARES[1])
                );
            }
        }
        md.push('\n');
        md.push_str(&congestion_table(t));
    }
    if let Some(r) = t.rows.iter().find(|r| r.text("policy") == PCC) {
        let _ = writeln!(
            md,
            "Space overhead of the prefetch cache (§3.3): {:.2} % of memory by the paper's accounting (8 bytes per \
             page, 20 bytes per history entry for 40 % of the pages); pagelab's structures: {:.2} %.\n",
            100.0 * r.metric("space_overhead_paper"),
            100.0 * r.metric("space_overhead_pagelab")
        );
    }
    let _ = writeln!(md, "{}", why(t));
    md
}

/// The congestion diagnostic's table: Two-Rand under both readings of the paper's readahead fix.
fn congestion_table(t: &Table) -> String {
    let mut md = String::from(
        "### Diagnostic: the other reading of the paper's readahead-under-congestion fix\n\nThe paper's kernel \
         carried a fix for 2.6.10's readahead on a congested queue (its ref. [25]) whose content is not at hand. \
         Every figure above runs 2.6.18's rule (`skip`: the ahead window is skipped and read blocking once the \
         reader reaches it); here Two-Rand also runs with ahead windows issued whatever the queue's state \
         (`--prefetch linux-2.6:512KiB,congestion=ignore`). Throughput MiB/s (mean over seeds), AccessHistory's \
         thrashed pages/s, and each prefetch cache's gain over AccessHistory under the same rule; not a figure \
         of the paper.\n\n\
         | handlers | rule | AccessHistory | PC-Coldest+ (descent) | PC-Coldest+ at a fixed 50 % |\n|---|---|---|---|---|\n",
    );
    for c in IGNORE_LEVELS {
        for congestion in ["skip", "ignore"] {
            let at = |system| Point { congestion, ..Point::at("two-rand", system, c) };
            let ah = t.tp(at(AH));
            let cell = |system| {
                let tp = t.tp(at(system));
                if tp.is_finite() {
                    format!("{tp:.2} ({})", pct(t.gain(at(system))))
                } else {
                    "n/a".into()
                }
            };
            let _ = writeln!(
                md,
                "| {c} | {congestion} | {ah:.2} ({:.0}/s) | {} | {} |",
                t.stat(at(AH), "thrash_pages_per_s").0,
                cell(PCC),
                cell(IGNORE_SYSTEMS[2])
            );
        }
    }
    md.push('\n');
    md
}

/// What this run's numbers mean: the report's "Why", every number computed from the rows ("n/a" where the
/// sweep has no such run: the quick sweep has no media clips, One-Whole, fixed shares or Figures 10–12).
fn why(t: &Table) -> String {
    let num = |x: f64, digits: usize| if x.is_finite() { format!("{x:.digits$}") } else { "n/a".into() };
    let pc = |x: f64| if x.is_finite() { pct(x) } else { "n/a".into() };
    // "lo–hi" of the finite values, `scale`d and with `digits`.
    let span = |v: &[f64], scale: f64, digits: usize| {
        finite_range(v.iter().map(|x| x * scale))
            .map_or("n/a".into(), |(lo, hi)| format!("{}–{}", num(lo, digits), num(hi, digits)))
    };
    // Gains (ratios − 1) as "lo to hi" in signed percent.
    let gspan = |v: &[f64]| {
        finite_range(v.iter().copied()).map_or("n/a".into(), |(lo, hi)| format!("{} to {}", pct(lo), pct(hi)))
    };
    let at = |w: &str, system: &str, c: u32, metric: &str| t.stat(Point::at(w, system, c), metric).0;
    let over = |w: &str, system: &str, from: u32, below: u32, metric: &str| -> Vec<f64> {
        t.levels(w, system)
            .into_iter()
            .filter(|&c| c >= from && c < below)
            .map(|c| at(w, system, c, metric))
            .collect()
    };
    let two = t.levels("two-rand", AH);
    let top = two.last().copied().unwrap_or(1000);
    let high: Vec<u32> = two.iter().copied().filter(|&c| c >= HIGH).collect();
    let high_gains: Vec<f64> = high.iter().map(|&c| t.gain(Point::at("two-rand", PCC, c))).collect();
    let [f5, f50] = FIXED_SHARES;
    let fixed = |w: &str, system: &str| -> Vec<f64> {
        FACTOR_CONCURRENCY.iter().map(|&c| t.tp(Point::at(w, system, c))).collect()
    };
    let fixed_gains = |w: &str, system: &str| -> Vec<f64> {
        FACTOR_CONCURRENCY.iter().map(|&c| t.gain(Point::at(w, system, c))).collect()
    };
    let list = |v: &[f64], digits: usize| v.iter().map(|&x| num(x, digits)).collect::<Vec<_>>().join(" / ");
    let gain_list = |w: &str, system: &str, base: &str| -> Vec<f64> {
        gains(t, w, system, base, HIGH).into_iter().map(|(_, g)| g).collect()
    };
    let abs_max = |v: &[f64]| v.iter().map(|x| x.abs()).fold(f64::NAN, f64::max);
    let reversals: Vec<f64> = FACTOR_CONCURRENCY
        .iter()
        .flat_map(|&c| {
            let (_, lo, hi) = t.stat(Point::at("two-rand", PCC, c), "pc_reversals");
            [lo, hi]
        })
        .collect();
    let epochs = at("two-rand", PCC, top, "pc_epochs");
    let f5_thrash: Vec<f64> = FACTOR_CONCURRENCY
        .iter()
        .filter(|&&c| c >= 500)
        .map(|&c| at("two-rand", f5, c, "thrash_pages_per_s"))
        .collect();
    let f5_thrash = span(&f5_thrash, 1.0, 0);
    let memory_pages = |w: &str| Point::at(w, PCC, top).memory_bytes as f64 / PAGE_SIZE_BYTES as f64;
    let idx_alloc: Vec<f64> = over(INDEX, PCC, HIGH, u32::MAX, "prefetch_cache_allocation_pages_mean")
        .into_iter()
        .map(|p| p / memory_pages(INDEX))
        .collect();
    let idx = t.levels(INDEX, AH);
    let idx_tp_low = idx.first().map_or(f64::NAN, |&c| t.tp(Point::at(INDEX, AH, c)));
    let idx_tp_high = idx.iter().map(|&c| t.tp(Point::at(INDEX, AH, c))).fold(f64::NAN, f64::max);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let four = t.timeline("four-64kb");
    let four_share = four.map_or(f64::NAN, |r| r.metric("prefetch_cache_allocation_pages_mean"))
        / (MEMORY_BYTES / PAGE_SIZE_BYTES) as f64;
    let four_pc_mib = four.map_or(f64::NAN, |r| r.metric("prefetch_cache_pages_mean"))
        * PAGE_SIZE_BYTES as f64
        / (1 << 20) as f64;
    let small_files = DATASET_FILES[0];
    let small_tp: Vec<f64> = FACTOR_CONCURRENCY
        .iter()
        .map(|&c| t.tp(Point { files: Some(small_files as u64), ..Point::at("two-rand", AH, c) }))
        .collect();
    // AccessHistory's thrashing at every factor point of Figures 10–12 (their depths, memories and datasets).
    let factor_thrash: Vec<f64> = FACTOR_CONCURRENCY
        .iter()
        .flat_map(|&c| {
            let base = Point::at("two-rand", AH, c);
            let depths = DEPTHS_BYTES.map(|depth_bytes| Point { depth_bytes, ..base });
            let memories = MEMORIES_BYTES.map(|memory_bytes| Point { memory_bytes, ..base });
            let datasets = DATASET_FILES.map(|f| Point { files: Some(f as u64), ..base });
            depths.into_iter().chain(memories).chain(datasets).collect::<Vec<_>>()
        })
        .map(|p| t.stat(p, "thrash_pages_per_s").0)
        .collect();
    let ah_thrash_high =
        over("two-rand", AH, HIGH, u32::MAX, "thrash_pages_per_s").into_iter().fold(f64::NAN, f64::max);
    let mut md = String::from(
        "### Why\n\nThe mechanisms are the full sweep's; the numbers are this run's (n/a where this sweep has no \
         such run).\n\n",
    );
    let _ = writeln!(
        md,
        "- **AccessHistory thrashes on Two-Rand in tens of pages/s, not hundreds, and the prefetch cache \
         removes none of it.** At {top} handlers AccessHistory thrashes {} pages/s and delivers {} MiB/s; \
         PC-Coldest+ {} pages/s and {} MiB/s ({}), PC-AccessHistory (FIFO) {}, the optimal {} (thrashing \
         counted as the paper defines it, however long ago the page was evicted: the bounded history of \
         40 % of memory counts at most a sixth of it, as a handler asleep in the full request queue comes \
         back after it has forgotten). A handler alternating two files \
         still sleeps on the full request queue for one file's window while the other's unread pages age on the \
         inactive list (`kernel-baseline`), but few age out: at a completion the elevator chooses before the \
         woken handler has issued its next read, as 2.6's completion path does, and the anticipatory scheduler \
         does not wait for a handler whose seeks span two files, so a handler that lost a window page reads it \
         again in its turn instead of keeping the disk page after page while the others' windows age. The \
         collapse the paper measured needs a mechanism this model lacks; this simulator showed it at 1000 \
         handlers (842 thrashed pages/s, 9.10 MiB/s, PC-Coldest+ twice that) only while a woken handler's next \
         read reached the elevator at the completion instant, an order no kernel has.",
        num(at("two-rand", AH, top, "thrash_pages_per_s"), 0),
        num(t.tp(Point::at("two-rand", AH, top)), 2),
        num(at("two-rand", PCC, top, "thrash_pages_per_s"), 0),
        num(t.tp(Point::at("two-rand", PCC, top)), 2),
        pc(t.gain(Point::at("two-rand", PCC, top))),
        num(t.tp(Point::at("two-rand", "pc-access-history", top)), 2),
        num(t.tp(Point::at("two-rand", OPTIMAL, top)), 2),
    );
    let _ = writeln!(
        md,
        "- **The descent costs more than the prefetch cache saves.** With the baseline thrashing at most {} \
         pages/s from {} handlers on there is little to gain, and PC-Coldest+ changes throughput by {} from {} \
         to {} handlers while thrashing {} pages/s. The fixed-share diagnostic above isolates the cause: the \
         same order at a fixed 50 % of \
         memory delivers {} MiB/s at {} handlers ({} against AccessHistory); at a fixed 5 % it thrashes {} \
         pages/s from 500 handlers on. The gradient descent moves the allocation by 1 % of memory every epoch, \
         and §3.3 reclaims the excess over a lowered allocation at once: every downward step evicts 1 % of \
         memory in prefetched pages, live streams' included. It takes downward steps about as often as upward \
         ones, because its decision statistic — one 1-s epoch's combined miss rate against the previous \
         epoch's — is counting noise: a step changes the rate by a few percent at most, the noise of a few \
         hundred misses is 5–7 %, and the descent reverses {} times in {} epochs. The constants (1-s epochs, \
         1 % steps, a substantial increase = the previous epoch's Poisson noise) were fixed before any run and \
         are not changed here to make a result appear; what would make the descent see a gradient — epochs \
         long enough to hold the misses one step's effect needs, or a derivative fitted over several epochs — \
         is recorded as the next step.",
        num(ah_thrash_high, 0),
        HIGH,
        gspan(&high_gains),
        high.first().map_or("n/a".into(), |c| c.to_string()),
        high.last().map_or("n/a".into(), |c| c.to_string()),
        span(&over("two-rand", PCC, HIGH, u32::MAX, "thrash_pages_per_s"), 1.0, 0),
        list(&fixed("two-rand", f50), 2),
        FACTOR_CONCURRENCY.map(|c| c.to_string()).join(" / "),
        fixed_gains("two-rand", f50).into_iter().map(pc).collect::<Vec<_>>().join(" / "),
        f5_thrash,
        span(&reversals, 1.0, 0),
        num(epochs, 0),
    );
    let _ = writeln!(
        md,
        "- **This model's index server and media clips do not thrash under AccessHistory** (at most {} \
         pages/s), so Figures 2, 7, 8 and 9 have nothing to show. The index server is cache-bound here: the \
         binary search's upper levels in the 522 MB mapping file and the popular terms' posting lists stay \
         resident (hit ratio {}; disk requests of {} pages on average), and throughput ({} → {} MiB/s) rises \
         with concurrency instead of falling. The workload's query and posting-list distributions are the \
         model's own (the paper gives none; `workload/index_search.rs`), and a heavier-tailed, less cacheable \
         index would behave differently. The prefetch cache loses there ({}) because the descent lets its \
         allocation grow to {} % of memory, and the prefetch cache fills it with the unread tails of short \
         posting lists whose handlers have exited — heuristic #1's victims, but reclaimed only above the \
         allocation — squeezing the hot set out of the policy (hit ratio {} → {}). At a fixed 5 % the same \
         order delivers {} MiB/s against AccessHistory's {} ({}), and at 50 % it changes by {}: the right allocation is small \
         here and large for Two-Rand, which is what the descent is for. Media clips ({} MiB) change by {} \
         with the descent, {} at 5 %.",
        num(
            [INDEX, CLIPS]
                .iter()
                .flat_map(|w| over(w, AH, 0, u32::MAX, "thrash_pages_per_s"))
                .fold(f64::NAN, f64::max),
            1
        ),
        num(mean(&over(INDEX, AH, HIGH, u32::MAX, "hit_ratio")), 2),
        num(mean(&over(INDEX, AH, 0, u32::MAX, "mean_request_pages")), 0),
        num(idx_tp_low, 0),
        num(idx_tp_high, 0),
        gspan(&gain_list(INDEX, PCC, AH)),
        span(&idx_alloc, 100.0, 0),
        num(mean(&over(INDEX, AH, HIGH, u32::MAX, "hit_ratio")), 2),
        span(&over(INDEX, PCC, HIGH, u32::MAX, "hit_ratio"), 1.0, 2),
        list(&fixed(INDEX, f5), 2),
        list(&fixed(INDEX, AH), 2),
        fixed_gains(INDEX, f5).into_iter().map(pc).collect::<Vec<_>>().join(" / "),
        fixed_gains(INDEX, f50).into_iter().map(pc).collect::<Vec<_>>().join(" / "),
        CLIPS_MEMORY_BYTES >> 20,
        gspan(&gain_list(CLIPS, PCC, AH)),
        gspan(&fixed_gains(CLIPS, f5)),
    );
    let _ = writeln!(
        md,
        "- **One-Rand does not thrash, so there is nothing to gain** (at most {} from 100 handlers on): as \
         `kernel-baseline` explains, under a congested queue 2.6.18's readahead skips the ahead window, so a \
         single-stream handler never leaves prefetched pages waiting while it sleeps. The paper's kernel \
         carried a readahead-under-congestion fix (ref. [25]) whose content is not at hand; issuing ahead \
         windows whatever the queue's state (`congestion=ignore`, measured outside this run: the module doc) \
         makes One-Rand thrash a little and lose 19 % from 100 to 1000 handlers, with PC-Coldest+ lower still.",
        pc(abs_max(&gain_list("one-rand", PCC, AH))),
    );
    let _ = writeln!(
        md,
        "- **One-Whole and Four-64KB: no gain, no loss**, as the paper says (at most {} and {}). Four-64KB's \
         descent does not converge to a small allocation ({} % of memory on average at 1000 handlers): 2.6.18's \
         readahead hardly prefetches for random 64 KiB reads (the prefetch cache holds {} MiB), so the \
         allocation changes no miss and the descent drifts without a signal.",
        pc(abs_max(&gain_list("one-whole", PCC, AH))),
        pc(abs_max(&gain_list("four-64kb", PCC, AH))),
        num(100.0 * four_share, 0),
        num(four_pc_mib, 0),
    );
    let _ = writeln!(
        md,
        "- **The optimal** differs from PC-Coldest+ on Two-Rand by {} from 100 handlers on, within the \
         seeds' spread, and on One-Rand by at most {}: Coldest+ already takes exited handlers' pages first, and \
         those are the pages rule A would take (the tails past a request's end).",
        gspan(&gain_list("two-rand", OPTIMAL, PCC)),
        pc(abs_max(&gain_list("one-rand", OPTIMAL, PCC))),
    );
    let _ = write!(
        md,
        "- **Figures 10–12** have little thrashing to remove: at every depth, memory and dataset size AccessHistory \
         thrashes {} pages/s, so the descent's cost shows everywhere and no factor moves a gain that is \
         not there (the {} GB dataset is cache-bound: AccessHistory {} MiB/s).",
        span(&factor_thrash, 1.0, 0),
        small_files as u64 * 4 / 1024,
        span(&small_tp, 1.0, 0),
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_has_each_run_once_and_the_paper_settings() {
        let full = sweep(false, 1);
        for (i, r) in full.iter().enumerate() {
            assert!(!full[..i].contains(r), "{} twice", r.label());
        }
        // Figure 5: 6 workloads x 5 systems x 9 levels, Figure 6: 2 x 9, Figures 10-12: 2 systems x 3 levels x
        // (2 + 2 + 2 new settings), for each of 3 seeds; 3 timelines.
        // Diagnostics: 3 workloads x 3 levels x 2 fixed shares, and Two-Rand at 4 levels x 3 systems with
        // congestion=ignore, per seed.
        assert_eq!(full.len(), 3 * (6 * 5 * 9 + 2 * 9 + 2 * 3 * 6 + 3 * 3 * 2 + 4 * 3) + 3);
        let ignored: Vec<_> = full.iter().filter(|r| r.congestion_ignore).collect();
        assert!(ignored.iter().all(|r| r.workload == "two-rand" && !r.timeline));
        assert_eq!(ignored[0].config().unwrap().prefetcher.spec(), "linux-2.6:512KiB,congestion=ignore");
        let c = full[0].config().unwrap();
        assert_eq!(c.memory_bytes, 512 << 20);
        assert_eq!(c.prefetcher.spec(), "linux-2.6:512KiB");
        assert_eq!(c.nr_requests, Some(128));
        assert!(full.iter().any(|r| r.workload == CLIPS && r.memory_bytes == 256 << 20));
        let quick = sweep(true, 1);
        assert!(quick.len() <= 40, "{} quick runs", quick.len());
    }

    /// One real run, short: the row has the columns and the prefetch cache's timeline.
    #[test]
    fn a_run_yields_the_columns_and_the_timeline() {
        let spec = RunSpec { timeline: true, ..RunSpec::new("two-rand", PCC, 20, 1, 5) };
        let r = spec.run().unwrap();
        for p in [
            "workload",
            "policy",
            "concurrency",
            "memory_bytes",
            "prefetch_depth_bytes",
            "dataset_bytes",
            "seed",
        ] {
            assert!(r.param(p).is_some(), "{p}");
        }
        assert_eq!(r.num("dataset_bytes"), 6000.0 * (4 << 20) as f64);
        for m in [
            "throughput_mib_s",
            "thrash_pages_per_s",
            "thrash_pages_per_request",
            "prefetch_cache_pages_mean",
        ] {
            assert!(r.metric(m).is_finite(), "{m}");
        }
        assert!(r.metric("throughput_mib_s") > 0.0);
        assert!(r.metric("prefetch_cache_pages_mean") > 0.0, "readahead pages wait in the prefetch cache");
        let names: Vec<&str> = r.series.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["prefetch cache", "allocation"]);
        assert!(r.series[0].1.len() >= 5, "a sample a second over 5 s");
    }

    fn row(w: &str, system: &str, c: u32, tp: f64, thrash_per_request: f64) -> Row {
        let memory = if w == CLIPS { CLIPS_MEMORY_BYTES } else { MEMORY_BYTES };
        let dataset = if MICRO.contains(&w) { FILES as u64 * (4 << 20) } else { 19 << 30 };
        Row {
            params: vec![
                ("workload".into(), w.into()),
                ("policy".into(), system.into()),
                ("concurrency".into(), Value::from(c as u64)),
                ("memory_bytes".into(), Value::from(memory)),
                ("prefetch_depth_bytes".into(), Value::from(DEPTH_BYTES)),
                ("dataset_bytes".into(), Value::from(dataset)),
                ("seed".into(), Value::from(1u64)),
                ("timeline".into(), Value::from("no")),
                ("congestion".into(), Value::from("skip")),
            ],
            metrics: vec![
                ("throughput_mib_s".into(), tp),
                ("thrash_pages_per_request".into(), thrash_per_request),
            ],
            series: Vec::new(),
        }
    }

    fn verdict(f: &Findings, claim_start: &str) -> Verdict {
        f.checks.iter().find(|c| c.claim.starts_with(claim_start)).expect(claim_start).verdict
    }

    /// Synthetic curves of known shape get the verdicts the stated criteria give (the quick sweep's points).
    #[test]
    fn verdicts_follow_the_stated_criteria() {
        let mut rows = Vec::new();
        // The index server: AH peaks at 100 and falls to 20 % at 1000 with thrashing rising; PC-C+ gains
        // 20 % and 50 %, PC-AH between.
        for (c, ah, pcah, pcc, th) in [(100, 10.0, 10.5, 12.0, 5.0), (1000, 2.0, 2.5, 3.0, 250.0)] {
            rows.push(row(INDEX, AH, c, ah, th));
            rows.push(row(INDEX, "pc-access-history", c, pcah, th));
            rows.push(row(INDEX, PCC, c, pcc, th / 2.0));
        }
        // One-Rand: no gain at all (the criteria must say not reproduced); Two-Rand: 40 % and 60 %.
        for c in CONCURRENCY_QUICK {
            rows.push(row("one-rand", AH, c, 10.0, 0.0));
            rows.push(row("one-rand", PCC, c, 10.1, 0.0));
            rows.push(row("one-rand", OPTIMAL, c, 10.2, 0.0));
            let g = if c == 100 { 1.4 } else { 1.6 };
            rows.push(row("two-rand", AH, c, 8.0, 10.0));
            rows.push(row("two-rand", "pc-access-history", c, 8.0 * 1.1, 5.0));
            rows.push(row("two-rand", PCC, c, 8.0 * g, 1.0));
            rows.push(row("two-rand", OPTIMAL, c, 8.0 * g * 1.2, 0.5));
            rows.push(row("four-64kb", AH, c, 6.0, 0.0));
            rows.push(row("four-64kb", PCC, c, 6.3, 0.0));
        }
        let f = PrefetchMemory.analyze(&rows, true);
        assert_eq!(verdict(&f, "AccessHistory thrashes"), Verdict::Reproduced);
        assert_eq!(
            verdict(&f, "PC-Coldest+ outperforms AccessHistory by 11-64 % on the index"),
            Verdict::Reproduced
        );
        assert_eq!(verdict(&f, "One-Rand"), Verdict::NotReproduced);
        assert_eq!(verdict(&f, "Two-Rand"), Verdict::Reproduced);
        assert_eq!(verdict(&f, "PC-AccessHistory lies between"), Verdict::Reproduced);
        assert_eq!(verdict(&f, "four-64kb"), Verdict::Reproduced);
        assert_eq!(verdict(&f, "PC-Coldest+ is 10-32 % below"), Verdict::Reproduced);
        // No timeline row: the convergence claim cannot be judged reproduced.
        assert_eq!(verdict(&f, "Four-64KB: the gradient descent"), Verdict::NotReproduced);
        // A flat index server is not a fall.
        let flat: Vec<Row> = rows
            .iter()
            .cloned()
            .map(|mut r| {
                if r.text("workload") == INDEX && r.text("policy") == AH {
                    r.metrics[0].1 = 10.0;
                }
                r
            })
            .collect();
        assert_eq!(
            verdict(&PrefetchMemory.analyze(&flat, true), "AccessHistory thrashes"),
            Verdict::NotReproduced
        );
    }
}
