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

impl LatencyMs {
    /// From latencies in nanoseconds (sorted in place). Percentiles are nearest-rank.
    pub fn from_ns(samples: &mut [u64]) -> LatencyMs {
        if samples.is_empty() {
            return LatencyMs::default();
        }
        samples.sort_unstable();
        let ms = |ns: u64| ns as f64 / 1e6;
        let rank = |q: f64| {
            let r = (q * samples.len() as f64).ceil() as usize;
            samples[r.clamp(1, samples.len()) - 1]
        };
        let sum: u128 = samples.iter().map(|&x| x as u128).sum();
        LatencyMs {
            mean: sum as f64 / samples.len() as f64 / 1e6,
            p50: ms(rank(0.50)),
            p99: ms(rank(0.99)),
            max: ms(*samples.last().expect("non-empty")),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DiskMetrics {
    /// Requests the device serviced (after scheduler merging).
    pub requests: u64,
    pub pages_read: u64,
    pub mean_request_pages: f64,
    /// Fraction of the measured time the device had at least one request in service (HDD: busy; SSD: any
    /// channel busy).
    pub busy_fraction: f64,
    /// Disk requests by size in pages: `[pages, count]` for each distinct size, ascending.
    pub request_pages_histogram: Vec<(u64, u64)>,
    /// Mean service time per request, milliseconds.
    pub mean_service_ms: f64,
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
    pub reclaim_stalls: u64,
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
    pub disk: DiskMetrics,
    pub prefetch: PrefetchMetrics,
    pub cache: CacheMetrics,
    /// Fraction of CPU capacity used.
    pub cpu_utilization: f64,
    /// Application page accesses simulated (delivered pages), for speed reports.
    pub pages_accessed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<u64> = (1..=100).map(|i| i * 1_000_000).collect();
        let l = LatencyMs::from_ns(&mut v);
        assert_eq!((l.p50, l.p99, l.max), (50.0, 99.0, 100.0));
        assert!((l.mean - 50.5).abs() < 1e-9);
        assert_eq!(LatencyMs::from_ns(&mut []), LatencyMs::default());
    }
}
