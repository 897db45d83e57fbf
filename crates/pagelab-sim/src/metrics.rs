//! What a run measured, with the stable field names of `pagelab simulate --json` (documented in the README).

use serde::Serialize;

/// Latency summary in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LatencyMs {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// The latencies of a measured period in memory that does not grow with the run: the count, the sum (so
/// the mean) and the maximum exact, the percentiles from an HDR histogram (Gil Tene's HdrHistogram) to
/// three significant digits: a percentile is the largest value its bucket holds, at most 0.1 % above the
/// nearest-rank sample (exact below 2,048 ns). Each latency was kept before, 8 bytes each: about 147 MB for
/// the 18 million reads of 600 s of One-Rand in memory (the process took 166 MB; now 15.7 MB).
#[derive(Clone, Debug)]
pub struct LatencyLog {
    histogram: hdrhistogram::Histogram<u64>,
    sum_ns: u128,
    max_ns: u64,
}

impl Default for LatencyLog {
    fn default() -> Self {
        // Three significant digits, growing its range with the largest value recorded.
        let histogram = hdrhistogram::Histogram::new(3).expect("3 significant digits are within 0..=5");
        LatencyLog { histogram, sum_ns: 0, max_ns: 0 }
    }
}

impl LatencyLog {
    pub fn record(&mut self, ns: u64) {
        // The histogram grows its range to take the value; only values near u64::MAX (centuries) are beyond
        // any range, and those count in the top bucket.
        if self.histogram.record(ns).is_err() {
            self.histogram.saturating_record(ns);
        }
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn len(&self) -> u64 {
        self.histogram.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Mean and maximum exact; p50 and p99 to three significant digits (nearest rank).
    pub fn summary(&self) -> LatencyMs {
        if self.is_empty() {
            return LatencyMs::default();
        }
        let ms = |ns: u64| ns as f64 / 1e6;
        // The histogram's value is its bucket's highest; never past the largest sample.
        let at = |q: f64| ms(self.histogram.value_at_quantile(q).min(self.max_ns));
        LatencyMs {
            mean: self.sum_ns as f64 / self.len() as f64 / 1e6,
            p50: at(0.50),
            p99: at(0.99),
            max: ms(self.max_ns),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DiskMetrics {
    /// Requests the device serviced (after scheduler merging), reads and writes.
    pub requests: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    pub pages_read: u64,
    pub pages_written: u64,
    pub mean_request_pages: f64,
    /// Fraction of the measured time the device had at least one request in service (HDD: busy; SSD: any
    /// channel busy).
    pub busy_fraction: f64,
    /// Disk requests by size in pages: `[pages, count]` for each distinct size, ascending.
    pub request_pages_histogram: Vec<(u64, u64)>,
    /// Dispatches that turned from a read to a write or back, and the mean distance the head moved at
    /// those turns (from the end of the previous request to the start of the next), pages: MemRx's "average
    /// seek distance between overlapping clusters of reads and writes" (papers/003 Table 2).
    pub rw_switches: u64,
    pub rw_switch_distance_pages_mean: f64,
    /// Mean service time per request (reads and writes), milliseconds.
    pub mean_service_ms: f64,
    /// Times a handler slept on a full request queue (`nr_requests`), and how long, milliseconds.
    pub queue_full_waits: u64,
    pub queue_wait_ms_mean: f64,
    pub queue_wait_ms_max: f64,
    /// The anticipatory scheduler's waits in the measured period (the disk kept idle for the owner whose
    /// request just completed) and how they ended: the owner's next request (`hits`) or `antic_expire`
    /// (`timeouts`); `None` under another scheduler.
    pub anticipation: Option<crate::sched::AnticipationStats>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PrefetchMetrics {
    pub pages_prefetched: u64,
    /// Prefetched pages later accessed.
    pub prefetched_used: u64,
    /// Prefetched pages evicted before any access.
    pub evicted_unused: u64,
    /// Misses by a prefetch owner on a page it had prefetched and lost before accessing it.
    pub thrash_pages: u64,
    pub thrash_pages_per_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CacheMetrics {
    pub hits: u64,
    pub misses: u64,
    pub inflight_waits: u64,
    pub evictions: u64,
    /// Reads that needed memory when every page was pinned by I/O.
    pub reclaim_stalls: u64,
    /// Readahead pages not fetched because no memory could be had for them: the first of its window each
    /// (a failed allocation ends the window; its later pages are not tried).
    pub prefetch_dropped: u64,
    /// Pages fetched for a reader's call and evicted before the call reached them.
    pub demand_lost: u64,
}

/// Writes and swap over the measured period.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WriteMetrics {
    /// Clean pages made dirty (file pages by `write()`, anonymous pages by stores).
    pub pages_dirtied: u64,
    /// Pages whose write started, by cause: pdflush and throttled writers, reclaim meeting dirty file
    /// pages, and anonymous pages to swap.
    pub written_writeback: u64,
    pub written_reclaim: u64,
    pub swap_outs: u64,
    /// Pages read from swap: by faults, and by swap readahead.
    pub swap_ins: u64,
    pub swap_ins_readahead: u64,
    /// Times a writer slept above the dirty limit, and the time it slept, seconds.
    pub throttles: u64,
    pub throttle_s: f64,
    /// Dirty and under-writeback file pages, time averages.
    pub dirty_bytes_mean: f64,
    pub writeback_bytes_mean: f64,
}

/// The memory model over the measured period (bytes are 4 KiB pages × 4096; means are time-weighted).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemoryMetrics {
    /// `exact` (all memory is cache), `linux-2.6` or `linux` (a kernel's watermarks).
    pub model: String,
    pub total_bytes: u64,
    /// Held by the kernel: its image, `mem_map`, a stack per handler thread.
    pub kernel_reserve_bytes: u64,
    /// Held by the server's applications outside the caches (`--app-memory`).
    pub app_memory_bytes: u64,
    /// Total minus the reserve and the applications' memory: what caches may use.
    pub usable_bytes: u64,
    pub watermark_min_bytes: u64,
    pub watermark_low_bytes: u64,
    pub watermark_high_bytes: u64,
    pub free_bytes_mean: f64,
    pub free_bytes_min: u64,
    pub resident_bytes_mean: f64,
    /// Pages held by fetches in flight (pinned by I/O).
    pub in_flight_bytes_mean: f64,
    /// Pages readahead brought in that nobody has used yet (resident or in flight).
    pub prefetched_unused_bytes_mean: f64,
    /// Li & Shen's prefetch cache: its pages and its allocation, time-weighted (0 without one).
    pub prefetch_cache_bytes_mean: f64,
    pub prefetch_cache_allocation_bytes_mean: f64,
    /// `in_flight_bytes_mean` over `total_bytes`.
    pub in_flight_fraction_mean: f64,
    pub kswapd_wakeups: u64,
    /// Dirty pages whose write kswapd started (they are freed when written; not in `_reclaimed_`).
    pub kswapd_written_pages: u64,
    pub kswapd_reclaimed_pages: u64,
    pub kswapd_scanned_pages: u64,
    /// CPU time kswapd spent reclaiming, seconds.
    pub kswapd_cpu_s: f64,
    pub direct_reclaims: u64,
    /// Dirty pages whose write direct reclaim started.
    pub direct_written_pages: u64,
    pub direct_reclaimed_pages: u64,
    pub direct_scanned_pages: u64,
    /// Time a handler spent in one direct reclaim (its CPU time and its wait for a CPU), milliseconds.
    pub direct_reclaim_ms_mean: f64,
    pub direct_reclaim_ms_max: f64,
    /// Direct reclaims a handler made again because memory was at `min` once its previous one's work was
    /// done (other tasks took the pages it freed meanwhile); counted in `direct_reclaims` too.
    pub direct_reclaim_retries: u64,
    /// Reads that stalled because nothing could be reclaimed.
    pub stalls: u64,
    /// Waits of handlers for memory that ended in the measured period (a kernel's `blk_congestion_wait()`:
    /// up to 100 ms each, shorter when a write request is freed), and their length in milliseconds.
    pub stall_waits: u64,
    pub stall_wait_ms_mean: f64,
    pub stall_wait_ms_max: f64,
}

/// The memory gauges at one moment of the measured period (`--timeline`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MemorySample {
    /// Seconds since measuring began.
    pub t_s: f64,
    pub free_bytes: u64,
    pub resident_bytes: u64,
    /// Pages under a read (pinned by their I/O).
    pub in_flight_bytes: u64,
    /// Evicted pages whose memory a reader still pins (it is copying them out).
    pub pinned_evicted_bytes: u64,
    pub prefetched_unused_bytes: u64,
    pub dirty_bytes: u64,
    pub writeback_bytes: u64,
    /// Pages reclaim chose whose write is in flight (their memory is freed when it completes).
    pub reclaim_writing_bytes: u64,
    /// The prefetch cache's pages and its allocation (0 without one).
    pub prefetch_cache_bytes: u64,
    pub prefetch_cache_allocation_bytes: u64,
}

/// The file-metadata cache over the measured period (papers/004), when the run has one.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MetadataMetrics {
    /// `--metadata` as given (`conventional:object=1320,pressure=100`, `split:p=50%,...`).
    pub reclaim: String,
    /// Split reclaim's thresholds, in objects (0 under conventional reclaim).
    pub md_objects: u64,
    pub mb_objects: u64,
    /// `stat()` calls completed, and those that missed the metadata cache.
    pub stats: u64,
    pub stat_misses: u64,
    /// The metadata cache's lookups and inserts: one lookup a `stat()`, and one insert a miss (a file's
    /// object cached again by another task first is found by a second lookup instead).
    pub lookups: u64,
    pub inserts: u64,
    /// Objects and slab pages at the end, and the most objects at once.
    pub objects_end: u64,
    pub objects_max: u64,
    /// Inodes cached at the end (with a dentry or on the inode LRU), the inode LRU's longest, and the
    /// `stat()` misses that found their inode still cached (3.x's inode LRU; `inode_lru=own`).
    pub inodes_end: u64,
    pub inodes_unused_max: u64,
    pub inode_hits: u64,
    pub pages_end: u32,
    pub slab_pages_allocated: u64,
    /// New slabs taken at the smallest order because the cache's own could not be had (SLUB's
    /// `ORDER_FALLBACK`: a one-page `ext4_inode_cache` slab of three inodes instead of four pages of 14).
    pub slab_order_fallbacks: u64,
    /// The shrinker (kswapd's and, under conventional reclaim, direct reclaim's): passes, objects scanned and
    /// freed, slab pages freed.
    pub shrinker_passes: u64,
    /// Shrinker passes by reclaims that may not enter the file system (`GFP_NOFS`), whose work was deferred,
    /// and the largest deferred count (objects) seen.
    pub deferred_passes: u64,
    pub deferred_max: u64,
    /// Shrinker passes below `DEF_PRIORITY`: reclaims whose first pass freed less than their target and
    /// escalated.
    pub priority_passes: u64,
    pub shrinker_objects_scanned: u64,
    pub shrinker_objects_freed: u64,
    pub shrinker_inodes_freed: u64,
    pub shrinker_pages_freed: u64,
    /// Time reclaimers spun on the metadata LRU's lock (kswapd, direct reclaim, iswapd, metadata reclaim).
    pub lock_wait_s: f64,
    /// `stat()`s whose `dput()` spun on the dentry LRU's lock behind a reclaim's walk, their total spin and
    /// the longest.
    pub dput_waits: u64,
    pub dput_wait_s: f64,
    pub dput_wait_ms_max: f64,
    /// Split reclaim: iswapd's steps and CPU time, and metadata reclaims at allocation above `Md`.
    pub iswapd_steps: u64,
    pub iswapd_cpu_s: f64,
    pub metadata_reclaims: u64,
}

/// DULO's work over the measured period (papers/001 §4.1.3's overhead; the block table's largest size over
/// the whole run), when the policy is DULO.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DuloMetrics {
    /// Banks sequenced.
    pub sequencings: u64,
    /// Blocks placed into the block table and compared with their neighbours.
    pub blocks_sequenced: u64,
    pub sequences: u64,
    /// Blocks per sequence formed.
    pub mean_sequence_pages: f64,
    /// `H` comparisons of the merges into the evicting section, in total, per demand miss (the paper: 1.7)
    /// and per block sequenced.
    pub merge_comparisons: u64,
    pub merge_comparisons_per_miss: f64,
    pub merge_comparisons_per_block: f64,
    /// The block table's largest size.
    pub table_bytes_max: u64,
    /// Young blocks given their second chance.
    pub second_chances: u64,
    /// Disk-adjacent pairs of current blocks, and the fraction of them whose previous stamps differ (the
    /// pairs the stable rule's stamp condition cuts; counted under either rule).
    pub adjacent_pairs: u64,
    pub adjacent_pairs_stamps_differ_fraction: f64,
}

/// Li & Shen's prefetch cache over the measured period (papers/000 §3).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PrefetchCacheMetrics {
    /// `pc-coldest+`, `pc-longest:fixed=25%`, ...
    pub spec: String,
    /// Readahead pages that entered it, and those a first use moved to the policy.
    pub inserted_pages: u64,
    pub used_pages: u64,
    /// Pages reclaimed because their owner had exited (heuristic #1), because their owner declared it
    /// would not read them (`pc-optimal`), and by the order itself.
    pub reclaimed_exited_pages: u64,
    pub reclaimed_unneeded_pages: u64,
    pub reclaimed_ordered_pages: u64,
    /// The allocation at the end of the run.
    pub allocation_bytes_final: u64,
    /// Gradient descent: epochs ended, direction reversals, and the misses its eviction history classified.
    pub epochs: u64,
    pub reversals: u64,
    pub prefetch_misses: u64,
    pub cache_misses: u64,
    /// Space per byte of memory: the paper's accounting (§3.3, ≈0.4 %) and pagelab's structures'.
    pub space_overhead_paper_fraction: f64,
    pub space_overhead_pagelab_fraction: f64,
}

/// How the measured period was reached.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WarmupMetrics {
    /// `auto` (until steady state) or `fixed`.
    pub mode: String,
    /// Simulated time before measuring, seconds.
    pub seconds: f64,
    /// Auto: memory had filled and every handler slot had completed a request when measuring began (false:
    /// the warm-up hit its bound and the measured period is not steady). Fixed: whether the same held at the
    /// end of the fixed warm-up.
    pub steady_state: bool,
    /// Requests completed during the warm-up.
    pub requests: u64,
}

/// One run's results. Field names are a stable interface.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunMetrics {
    /// Data delivered to request handlers per measured second, MiB/s.
    pub throughput_mib_s: f64,
    pub requests_completed: u64,
    /// Page accesses that found the page resident.
    pub hit_ratio: f64,
    /// Measured (post-warm-up) simulated time, seconds.
    pub sim_seconds: f64,
    pub latency_ms: LatencyMs,
    /// Latency of each `read()` call, from its first look at the cache to its last page delivered.
    pub read_latency_ms: LatencyMs,
    pub disk: DiskMetrics,
    pub prefetch: PrefetchMetrics,
    pub cache: CacheMetrics,
    pub writes: WriteMetrics,
    pub memory: MemoryMetrics,
    /// The prefetch cache, when the run has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefetch_cache: Option<PrefetchCacheMetrics>,
    /// DULO's overhead, when the policy is DULO.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dulo: Option<DuloMetrics>,
    /// The metadata cache, when the run has one (`--metadata`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<MetadataMetrics>,
    pub warmup: WarmupMetrics,
    /// Memory gauges sampled at `--timeline` intervals (empty without it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<MemorySample>,
    /// Fraction of CPU capacity used.
    pub cpu_utilization: f64,
    /// Application page accesses simulated (delivered pages), for speed reports.
    pub pages_accessed: u64,
    /// A workload that runs to completion (trace replay, `vm-seq`, `smm`) did: every program ended before
    /// the duration (false when it was cut short, and for workloads that never end).
    pub workload_completed: bool,
    /// MemRx's predictions for larger memories (`--whatif`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whatif: Option<WhatIfMetrics>,
    /// Per stream, for workloads of persistent paced streams (`rate-streams`, `spc2-vod`,
    /// `file-transfer`): Zhang et al.'s per-stream service and inventory metrics. Empty (and absent from
    /// JSON) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamMetrics>,
}

/// MemRx's what-if prediction of the measured period (papers/003): what its work would take, and how many
/// of its pages would miss, with more memory.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WhatIfMetrics {
    /// The memory the run had, and the VEC's increment.
    pub memory_bytes: u64,
    pub step_bytes: u64,
    /// The measured period's time (the runtime a prediction starts from).
    pub runtime_s: f64,
    /// Pages tasks met, and those they needed that were not in memory (demand allocations).
    pub accesses: u64,
    pub misses: u64,
    /// One prediction per VEC that ran.
    pub vecs: Vec<WhatIfVec>,
}

/// One VEC's prediction, with both PPMs.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WhatIfVec {
    /// `subqueue`, `exact` or `shadow`.
    pub vec: String,
    /// Idle time with reloads outstanding (the measured `W_miss`).
    pub idle_with_reloads_s: f64,
    /// The optimal operating point by the thread-aware and by the naive PPM.
    pub optimal_memory_bytes: u64,
    pub optimal_memory_bytes_naive: u64,
    /// The VEC's heap, in all and per page of memory it models (papers/003 §5.3: 32 bytes).
    pub vec_bytes: u64,
    pub vec_bytes_per_page: f64,
    /// The run's own memory first, then each step.
    pub sizes: Vec<WhatIfSize>,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WhatIfSize {
    pub memory_bytes: u64,
    /// Reloads charged to the increment that ends at this size, and their penalties by each PPM.
    pub reloads: u64,
    pub penalty_s: f64,
    pub naive_penalty_s: f64,
    pub predicted_runtime_s: f64,
    pub predicted_runtime_naive_s: f64,
    pub predicted_misses: u64,
    pub predicted_miss_ratio: f64,
}

impl WhatIfMetrics {
    /// The metrics of `predictions` (one per VEC) for a run of `memory_bytes`.
    pub fn new(memory_bytes: u64, predictions: &[pagelab_core::whatif::Prediction]) -> WhatIfMetrics {
        let first = &predictions[0];
        let at = |step: usize| memory_bytes + step as u64 * first.increment_bytes;
        WhatIfMetrics {
            memory_bytes,
            step_bytes: first.increment_bytes,
            runtime_s: first.runtime_s,
            accesses: first.accesses,
            misses: first.misses,
            vecs: predictions
                .iter()
                .map(|p| WhatIfVec {
                    vec: p.vec.name().to_string(),
                    idle_with_reloads_s: p.idle_with_reloads_s,
                    optimal_memory_bytes: at(p.optimal_step),
                    optimal_memory_bytes_naive: at(p.optimal_step_naive),
                    vec_bytes: p.vec_bytes,
                    vec_bytes_per_page: p.vec_bytes_per_page,
                    sizes: p
                        .steps
                        .iter()
                        .enumerate()
                        .map(|(k, s)| WhatIfSize {
                            memory_bytes: at(k),
                            reloads: s.reloads,
                            penalty_s: s.penalty_s,
                            naive_penalty_s: s.naive_penalty_s,
                            predicted_runtime_s: s.runtime_s,
                            predicted_runtime_naive_s: s.runtime_naive_s,
                            predicted_misses: s.misses,
                            predicted_miss_ratio: s.miss_ratio,
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The actual miss ratio of a run (step 0 of its own prediction).
    pub fn miss_ratio(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.misses as f64 / self.accesses as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(samples: impl IntoIterator<Item = u64>) -> LatencyLog {
        let mut log = LatencyLog::default();
        samples.into_iter().for_each(|ns| log.record(ns));
        log
    }

    /// Nearest rank: of 1..=100 ms, p50 is the 50th and p99 the 99th, each within 0.1 % above; the mean
    /// and the maximum exact.
    #[test]
    fn nearest_rank_percentiles_to_three_digits() {
        let l = log((1..=100).map(|i| i * 1_000_000)).summary();
        assert!(l.p50 >= 50.0 && l.p50 <= 50.0 * 1.001, "{}", l.p50);
        assert!(l.p99 >= 99.0 && l.p99 <= 99.0 * 1.001, "{}", l.p99);
        assert_eq!(l.max, 100.0);
        assert!((l.mean - 50.5).abs() < 1e-9);
        assert_eq!(LatencyLog::default().summary(), LatencyMs::default());
    }

    /// Below 2,048 ns every value has its own bucket: the percentiles are the samples themselves.
    #[test]
    fn small_latencies_are_exact() {
        let l = log((1..=1000).map(|i| i * 2)).summary();
        assert_eq!((l.p50, l.p99, l.max), (1000.0 / 1e6, 1980.0 / 1e6, 2000.0 / 1e6));
    }

    /// A percentile never exceeds the largest sample, though its bucket reaches beyond it.
    #[test]
    fn a_percentile_stays_within_the_samples() {
        let l = log([123_456_789; 10]).summary();
        assert_eq!((l.p50, l.p99, l.max), (123.456789, 123.456789, 123.456789));
    }
}

/// One persistent stream over the measured period (papers/002's metrics, slide "Performance metrics").
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StreamMetrics {
    /// The handler slot (0-based), as the workload numbers its streams.
    pub slot: u32,
    /// What the stream is (`sequential 1000 pages/s, cv 1`, `random 16KiB`).
    pub kind: String,
    /// Page requests (the workload's requests) completed.
    pub requests: u64,
    /// Average response time of a request, from its arrival (an open-loop stream's paced arrival, or the
    /// start of a closed-loop request) to its completion, µs.
    pub response_time_us_mean: f64,
    pub response_time_us_max: f64,
    /// Page accesses that found the page resident, and that did not (absent, or still under I/O): the
    /// shortages.
    pub hits: u64,
    pub shortages: u64,
    /// Read fetches this stream issued (sync and readahead windows): prefetch cycles, and their pages.
    pub prefetch_cycles: u64,
    pub pages_fetched: u64,
    /// Expected shortage per cycle (ESC): shortages / cycles.
    pub esc: f64,
    /// Fill rate 1 − ESC / Q, with Q the pages a cycle fetched on average.
    pub fill_rate: f64,
    /// Pages delivered to the stream per second.
    pub throughput_pages_s: f64,
    /// The stream's inventory: pages it prefetched that nobody had accessed yet (in flight included),
    /// time-averaged over the measured period.
    pub prefetch_memory_pages_mean: f64,
}
