//! Everything a run is configured by, with every default stated here and nowhere else.

use crate::device::DeviceSpec;
use crate::layout::LayoutSpec;
use crate::sched::SchedulerSpec;
use pagelab_core::policy::PolicyKind;
use pagelab_core::prefetch::AnyPrefetcher;
use pagelab_core::Nanos;

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrival {
    /// `concurrency` handlers, each starting its next request as soon as one ends (the papers' load
    /// generators: a fixed number of simultaneous requests).
    Closed,
    /// Requests arrive at `rate_per_s` (exponential inter-arrival times when `poisson`, else evenly spaced)
    /// and wait for one of `concurrency` handlers (a thread pool) to be free.
    Open { rate_per_s: f64, poisson: bool },
}

#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Memory for the buffer cache (pages in flight count against it).
    pub memory_bytes: u64,
    pub policy: PolicyKind,
    pub prefetcher: AnyPrefetcher,
    pub device: DeviceSpec,
    pub scheduler: SchedulerSpec,
    /// Handlers (closed loop: simultaneous requests; open loop: the thread pool).
    pub concurrency: u32,
    pub arrival: Arrival,
    pub cpus: u32,
    /// CPU cost of delivering one 4 KiB page to a handler (copy + processing).
    pub cpu_per_page: Nanos,
    /// Simulated time measured after the warm-up.
    pub duration: Nanos,
    /// Stop after this many requests complete in the measured period (whichever comes first).
    pub max_requests: Option<u64>,
    /// Simulated time run before measuring (caches fill, streams reach steady state).
    pub warmup: Nanos,
    pub seed: u64,
    pub layout: LayoutSpec,
    /// Evicted-unaccessed prefetched pages remembered to detect thrashing; `None`: 40 % of memory, the
    /// eviction-history bound Li & Shen use (papers/000 §3.3).
    pub thrash_history_pages: Option<u32>,
}

impl Default for SimConfig {
    /// The baseline server: Linux 2.6 as the papers ran it.
    fn default() -> Self {
        SimConfig {
            // papers/000 §4.2: "the server memory size at 512MB".
            memory_bytes: 512 << 20,
            // Linux 2.6's active/inactive lists: the "AccessHistory" system every paper compares against.
            policy: PolicyKind::TwoList,
            // Linux on-demand readahead with its default 128 KiB window.
            prefetcher: AnyPrefetcher::default(),
            // The DiskSim-validated Seagate Cheetah 9LP (DULO's disk; devices.md §2).
            device: DeviceSpec::parse("hdd").expect("built-in device"),
            // Anticipatory: Linux 2.6.0–2.6.17's default elevator, the one papers/000 describes.
            scheduler: SchedulerSpec::default(),
            concurrency: 1,
            arrival: Arrival::Closed,
            // papers/000 §4: "dual 2.0GHz Xeon processors".
            cpus: 2,
            // Copying 4 KiB at the ~2 GB/s per core of a 2005 Xeon plus per-page bookkeeping. The papers'
            // workloads are disk-bound; this only has to be small and nonzero.
            cpu_per_page: Nanos::from_us(2),
            // papers/000 §4: "each round takes 120 seconds".
            duration: Nanos::from_secs(120),
            max_requests: None,
            warmup: Nanos::ZERO,
            seed: 1,
            layout: LayoutSpec::default(),
            thrash_history_pages: None,
        }
    }
}

impl SimConfig {
    pub fn memory_pages(&self) -> u32 {
        let pages = self.memory_bytes / pagelab_core::PAGE_SIZE_BYTES;
        u32::try_from(pages).unwrap_or(u32::MAX).max(1)
    }
}
