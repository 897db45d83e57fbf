//! pagelab live: the engine's buffer cache as a read-only FUSE file system, so an unmodified server (nginx,
//! Apache) reads its files through the same policy code the simulator runs (`pagelab mount`).
//!
//! The papers' systems lived in the kernel, transparent to applications; `pagelab mount` gives the same
//! transparency without a kernel patch. Layers:
//! - [`fs`]: the FUSE file system (fuser), a read-only view of the source directory. Files are opened
//!   `direct_io`, so the kernel caches none of their data and every read reaches the engine; each open file
//!   handle is a stream, its release the owner's exit (papers/000 heuristic #1).
//! - [`engine`]: the core's `BufferCache` under one lock with real time injected; reads are cursors that
//!   wait for their fetches without holding a thread; misses and readahead are read by a bounded pool of
//!   I/O threads with O_DIRECT into the frames' [`arena`]; kswapd and iswapd are threads.
//! - [`source`]: a source file's descriptor and disk layout (FIEMAP, or a stated fallback).
//! - [`io`]: the clock and the emulated device (`--emulate-device hdd`) behind the simulator's I/O scheduler;
//!   [`disk_map`]: where the emulated disk holds the tree's blocks (packed, in their real order).
//! - [`stats`]: `pagelab stats` and the Prometheus endpoint.
//! - [`mount`]: the checks, the session, and a clean unmount.
//! - [`baseline`]: a plain FUSE passthrough and a naive user-space cache, the benchmark's baselines.
//!
//! Departures from the papers' kernels, each for a reason:
//! - The server's own CPU work is invisible to the mount: MemRx's idle time is the time every outstanding
//!   read waits for I/O, and Coldest+ samples the reading thread's CPU time from /proc (at most every 10 ms
//!   per stream), where the kernel read it from the task.
//! - Reclaim's CPU cost is real CPU time here, not the model's charge: nothing is slept for it.
//! - Writes are refused (EROFS): the live driver is read-only.

pub mod arena;
pub mod baseline;
pub mod disk_map;
pub mod engine;
pub mod fs;
pub mod io;
pub mod mount;
pub mod source;
pub mod stats;

use engine::{EngineConfig, Labels};
use io::EmulatedDevice;
use pagelab_core::buffer::BufferCacheConfig;
use pagelab_core::memory::{KernelReserve, WatermarkRule};
use pagelab_core::pcache::{PrefetchCacheConfig, ReclaimOrder};
use pagelab_core::prefetch::AnyPrefetcher;
use pagelab_core::units::parse_bytes;
use pagelab_core::whatif::{MemRx, MemRxConfig};
use pagelab_sim::config::{parse_metadata, parse_online_policy, MemoryModel, WhatIfConfig};
use pagelab_sim::device::DeviceSpec;
use pagelab_sim::sched::SchedulerSpec;
use std::path::PathBuf;

/// Everything that can go wrong mounting, unmounting or configuring a live mount: one kind per cause, each
/// with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("source {}: {why}", path.display())]
    Source { path: PathBuf, why: String },
    #[error("mountpoint {}: {why}", path.display())]
    Mountpoint { path: PathBuf, why: String },
    #[error("{0}")]
    Fuse(String),
    #[error("{0}")]
    Permission(String),
    #[error("{0}")]
    Config(String),
    #[error("{0}")]
    Io(String),
}

/// A live mount's engine as the command line names it (the simulator's syntax for each).
#[derive(Clone, Debug)]
pub struct LiveSpec {
    pub memory: String,
    /// `linux-2.6` (watermarks, kswapd, direct reclaim) or `exact`.
    pub memory_model: String,
    pub policy: String,
    pub prefetch: String,
    pub prefetch_cache: String,
    pub metadata: String,
    /// MemRx's VEC (`pagelab simulate --whatif`'s syntax; empty: defaults sized to the budget).
    pub whatif: Option<String>,
    pub emulate_device: Option<String>,
    /// The I/O scheduler in front of the emulated device (`pagelab simulate --scheduler`'s syntax; `None`:
    /// anticipatory, the simulator's default). Only with `emulate_device`.
    pub scheduler: Option<String>,
    /// The emulated device's request queue (`nr_requests`, `pagelab simulate --nr-requests`; `None`: 2.6's
    /// 128). Only with `emulate_device`.
    pub nr_requests: Option<u32>,
    pub io_threads: u32,
    pub seed: u64,
}

impl LiveSpec {
    /// The engine's configuration; each bad value is an error naming its flag.
    pub fn engine_config(&self) -> Result<EngineConfig, FsError> {
        let bad = |flag: &str, e: String| FsError::Config(format!("{flag}: {e}"));
        let bytes = parse_bytes(&self.memory).map_err(|e| bad("--memory", e.to_string()))?;
        let model = match self.memory_model.as_str() {
            "linux-2.6" => MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 },
            "exact" => MemoryModel::Exact,
            other => return Err(bad("--memory-model", format!("`{other}`: expected linux-2.6 or exact"))),
        };
        // The budget is the cache's: no kernel image or thread stacks inside it.
        let memory =
            model.config(bytes, KernelReserve::NONE, 0).map_err(|e| bad("--memory", e.to_string()))?;
        // Li & Shen's eviction history: 40 % of physical pages (papers/000 §3.3), as the simulator's.
        let thrash_history_pages = memory.total_pages / 10 * 4;
        // A live mount cannot know the future: OPT (refused here) and the optimal prefetch cache read every
        // request's reads declared up front, which only the simulator's workloads give.
        let (policy, dulo, _tracks) =
            parse_online_policy(&self.policy).map_err(|e| bad("--policy", e.to_string()))?;
        let prefetcher = AnyPrefetcher::parse(&self.prefetch, pagelab_core::PAGE_SIZE_BYTES)
            .map_err(|e| bad("--prefetch", e.to_string()))?;
        let mut cache = BufferCacheConfig::new(memory, policy, prefetcher);
        cache.dulo = dulo;
        cache.prefetch_cache = PrefetchCacheConfig::parse(&self.prefetch_cache, self.seed)
            .map_err(|e| bad("--prefetch-cache", e.to_string()))?;
        if cache.prefetch_cache.as_ref().is_some_and(|c| c.order == ReclaimOrder::Optimal) {
            let why =
                "pc-optimal needs each request's reads declared up front, which a live mount cannot know";
            return Err(bad("--prefetch-cache", why.to_string()));
        }
        cache.metadata = match self.metadata.as_str() {
            "none" => None,
            text => Some(parse_metadata(text).map_err(|e| bad("--metadata", e.to_string()))?),
        };
        let whatif = match &self.whatif {
            None => None,
            Some(text) => {
                // Empty: the paper's 32 MiB steps up to 4 x memory, smaller steps for a budget under 128 MiB.
                let page = pagelab_core::PAGE_SIZE_BYTES;
                let step = (bytes / 4 / page * page).clamp(page, 32 << 20);
                let text = if text.is_empty() { format!("step={step}") } else { text.clone() };
                let w = WhatIfConfig::parse(&text).map_err(|e| bad("--whatif", e.to_string()))?;
                let geometry = w.geometry(bytes).map_err(|e| bad("--whatif", e.to_string()))?;
                Some(MemRx::new(&MemRxConfig { geometry, vecs: w.vecs.clone() }))
            }
        };
        let device = match &self.emulate_device {
            None if self.scheduler.is_some() => {
                return Err(bad(
                    "--scheduler",
                    "it orders the emulated device's requests: give --emulate-device".into(),
                ))
            }
            None if self.nr_requests.is_some() => {
                return Err(bad(
                    "--nr-requests",
                    "it bounds the emulated device's request queue: give --emulate-device".into(),
                ))
            }
            None => None,
            Some(text) => {
                let spec = DeviceSpec::parse(text).map_err(|e| bad("--emulate-device", e.to_string()))?;
                let sched = match &self.scheduler {
                    Some(t) => SchedulerSpec::parse(t).map_err(|e| bad("--scheduler", e.to_string()))?,
                    None => SchedulerSpec::default(),
                };
                let nr_requests = match self.nr_requests {
                    Some(0) => return Err(bad("--nr-requests", "0: expected at least one request".into())),
                    Some(n) => n,
                    None => io::NR_REQUESTS_DEFAULT,
                };
                Some(EmulatedDevice::new(&spec, &sched, nr_requests))
            }
        };
        if !(1..=1024).contains(&self.io_threads) {
            return Err(bad("--io-threads", format!("{}: expected 1 to 1024", self.io_threads)));
        }
        let labels = Labels {
            policy: self.policy.clone(),
            prefetch: self.prefetch.clone(),
            prefetch_cache: cache.prefetch_cache.map_or("access-history".into(), |c| c.spec()),
            metadata: self.metadata.clone(),
        };
        Ok(EngineConfig { cache, io_threads: self.io_threads, device, thrash_history_pages, whatif, labels })
    }

    /// Whether the prefetch cache ranks streams by their owners' CPU time (Coldest+).
    pub fn wants_cpu(&self) -> bool {
        self.prefetch_cache.starts_with("pc-coldest+")
    }
}
