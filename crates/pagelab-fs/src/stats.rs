//! Live statistics: what `pagelab stats MOUNTPOINT` prints and the Prometheus endpoint serves.
//!
//! `pagelab stats` reads them from the mount itself, as the extended attribute [`STATS_XATTR`] of its root
//! (JSON): no socket to find, no file added to the served namespace. `--stats 127.0.0.1:PORT` serves the
//! same numbers in Prometheus' text format, on loopback only.

use crate::engine::Engine;
use crate::io::DeviceStats;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

/// The root's extended attribute holding the statistics as JSON.
pub const STATS_XATTR: &str = "user.pagelab.stats";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PageStats {
    pub hits: u64,
    pub misses: u64,
    /// Accesses that found the page under I/O.
    pub waits: u64,
    /// hits / (hits + misses + waits).
    pub hit_ratio: f64,
    pub fetched: u64,
    pub prefetched: u64,
    pub prefetched_used: u64,
    pub evicted: u64,
    /// Prefetched pages evicted before anyone read them.
    pub evicted_unused: u64,
    /// Li & Shen's prefetch thrashing: pages a stream had to read again because its prefetched page was
    /// evicted unused.
    pub thrashing: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WhatIfPoint {
    pub memory_bytes: u64,
    /// MemRx's predicted run time of the mount's life so far at this memory.
    pub runtime_s: f64,
    pub miss_ratio: f64,
}

/// Li & Shen's prefetch cache at work (zeros without one): where its reclaimed pages came from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PrefetchCacheWork {
    /// Prefetched pages that entered it, and those a first read moved out to the policy.
    pub inserted: u64,
    pub used: u64,
    /// Pages reclaimed because their stream's handle was released (heuristic #1: the owner exited), and
    /// pages reclaimed by the order itself (Longest, Coldest, Coldest+, FIFO).
    pub reclaimed_exited: u64,
    pub reclaimed_ordered: u64,
    /// CPU-time samples of reading threads given to their streams (`/proc/TID/schedstat`; Coldest+ ranks
    /// streams by them).
    pub stream_cpu_samples: u64,
}

/// The metadata cache at work (zeros without one).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MetadataWork {
    /// Lookups and getattrs that reached the cache, and those it answered.
    pub lookups: u64,
    pub hits: u64,
    /// The most objects cached at once.
    pub objects_max: u64,
    /// Objects the shrinker freed (kswapd and, under conventional reclaim, direct reclaim).
    pub shrinker_freed_objects: u64,
    /// Split reclaim's background reclaimer (iswapd): its steps and the objects they freed.
    pub iswapd_steps: u64,
    pub iswapd_freed_objects: u64,
    /// Split reclaim's metadata reclaims at allocation (above `Md`) and the objects they freed.
    pub metadata_reclaims: u64,
    pub metadata_reclaim_freed_objects: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LiveStats {
    pub policy: String,
    pub prefetch: String,
    pub prefetch_cache: String,
    pub metadata: String,
    pub uptime_s: f64,
    /// `read()` requests answered (or failed), their bytes, and those failed by an I/O error (or by the
    /// engine: a source file whose layout no longer maps the pages read).
    pub reads: u64,
    pub read_bytes: u64,
    pub read_errors: u64,
    /// Reads now waiting for I/O or memory.
    pub reads_waiting: u64,
    pub pages: PageStats,
    pub memory_budget_bytes: u64,
    pub usable_bytes: u64,
    pub free_bytes: u64,
    pub resident_bytes: u64,
    pub in_flight_bytes: u64,
    /// Memory has filled ([`pagelab_core::buffer::BufferCache::memory_filled`]): free memory has been at the `low`
    /// watermark. The live benchmarks' warm-up waits for it, as the simulator's does.
    #[serde(default)]
    pub memory_filled: bool,
    /// Li & Shen's prefetch cache section and its allocation (0 without one).
    pub prefetch_cache_bytes: u64,
    pub prefetch_cache_allocation_bytes: u64,
    #[serde(default)]
    pub prefetch_cache_work: PrefetchCacheWork,
    pub metadata_bytes: u64,
    pub metadata_objects: u64,
    #[serde(default)]
    pub metadata_work: MetadataWork,
    pub kswapd_freed_pages: u64,
    pub direct_reclaims: u64,
    /// Opens whose source descriptor bypasses the kernel's page cache (O_DIRECT), and those that could
    /// not; files whose disk layout came from FIEMAP, and those laid out by the fallback.
    pub opens_direct: u64,
    pub opens_buffered: u64,
    pub opens_fiemap: u64,
    pub opens_fallback: u64,
    /// The emulated device (`--emulate-device`); empty model without one.
    pub device: DeviceStats,
    /// MemRx's prediction at larger memories (empty without `--whatif`).
    pub whatif: Vec<WhatIfPoint>,
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

impl LiveStats {
    /// The human-readable report `pagelab stats` prints.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let p = &self.pages;
        let _ = writeln!(
            s,
            "policy        {} (prefetch {}, prefetch memory {})",
            self.policy, self.prefetch, self.prefetch_cache
        );
        let _ = writeln!(s, "metadata      {}", self.metadata);
        let _ = writeln!(s, "uptime        {:.1} s", self.uptime_s);
        let _ = writeln!(
            s,
            "reads         {} requests, {:.1} MiB, {} failed, {} waiting now",
            self.reads,
            mib(self.read_bytes),
            self.read_errors,
            self.reads_waiting
        );
        let _ = writeln!(
            s,
            "pages         {} hits, {} misses, {} waits: hit ratio {:.2} %",
            p.hits,
            p.misses,
            p.waits,
            p.hit_ratio * 100.0
        );
        let _ = writeln!(
            s,
            "prefetch      {} pages prefetched, {} used, {} evicted unused; thrashing {} pages",
            p.prefetched, p.prefetched_used, p.evicted_unused, p.thrashing
        );
        let _ = writeln!(
            s,
            "memory        {:.1} MiB budget: {:.1} MiB cached, {:.1} MiB in flight, {:.1} MiB free",
            mib(self.memory_budget_bytes),
            mib(self.resident_bytes),
            mib(self.in_flight_bytes),
            mib(self.free_bytes)
        );
        if self.prefetch_cache != "access-history" {
            let w = &self.prefetch_cache_work;
            let _ = writeln!(
                s,
                "prefetch mem  {:.1} MiB prefetched and unused (allocation {:.1} MiB)",
                mib(self.prefetch_cache_bytes),
                mib(self.prefetch_cache_allocation_bytes)
            );
            let _ = writeln!(
                s,
                "              {} pages in, {} used; reclaimed {} of closed handles, {} by the order; {} CPU-time samples",
                w.inserted, w.used, w.reclaimed_exited, w.reclaimed_ordered, w.stream_cpu_samples
            );
        }
        if self.metadata != "none" {
            let w = &self.metadata_work;
            let _ = writeln!(
                s,
                "metadata mem  {:.1} MiB, {} objects ({} at most); {} lookups, {} hits",
                mib(self.metadata_bytes),
                self.metadata_objects,
                w.objects_max,
                w.lookups,
                w.hits
            );
            let _ = writeln!(
                s,
                "              freed {} objects by the shrinker, {} by iswapd ({} steps), {} by {} metadata reclaims",
                w.shrinker_freed_objects,
                w.iswapd_freed_objects,
                w.iswapd_steps,
                w.metadata_reclaim_freed_objects,
                w.metadata_reclaims
            );
        }
        let _ = writeln!(
            s,
            "reclaim       kswapd freed {} pages; {} direct reclaims",
            self.kswapd_freed_pages, self.direct_reclaims
        );
        let _ = writeln!(
            s,
            "source        {} opens read with O_DIRECT, {} through the kernel's cache; layout from FIEMAP for {}, fallback for {}",
            self.opens_direct, self.opens_buffered, self.opens_fiemap, self.opens_fallback
        );
        if !self.device.model.is_empty() {
            let _ = writeln!(
                s,
                "device        EMULATED {} behind the {} scheduler: {} requests, {:.2} s busy (every miss also waited for this model); {} reading threads exited",
                self.device.model, self.device.scheduler, self.device.requests, self.device.busy_s, self.device.owners_exited
            );
            if let Some(a) = self.device.anticipation {
                let _ = writeln!(
                    s,
                    "              anticipation: {} waits for the thread whose read just completed, {} ended by its next read, {} by antic_expire",
                    a.waits, a.hits, a.timeouts
                );
            }
            if self.device.packed_files > 0 {
                let _ = writeln!(
                    s,
                    "              it holds the source's {} files in their disk order: {:.0} MiB, packed from {:.0} MiB of the real disk",
                    self.device.packed_files,
                    mib(self.device.packed_bytes),
                    mib(self.device.real_span_bytes)
                );
            }
        }
        if !self.whatif.is_empty() {
            let _ = writeln!(s, "what-if       MemRx: predicted run time of this mount's life so far");
            for w in &self.whatif {
                let _ = writeln!(
                    s,
                    "              {:>8.0} MiB  {:>9.2} s  miss ratio {:.3}",
                    mib(w.memory_bytes),
                    w.runtime_s,
                    w.miss_ratio
                );
            }
        }
        s
    }

    /// Prometheus' text exposition format.
    pub fn prometheus(&self) -> String {
        let mut s = String::new();
        let mut metric = |name: &str, kind: &str, help: &str, value: f64| {
            let _ = writeln!(
                s,
                "# HELP pagelab_{name} {help}\n# TYPE pagelab_{name} {kind}\npagelab_{name} {value}"
            );
        };
        let p = &self.pages;
        metric("reads_total", "counter", "read() requests answered", self.reads as f64);
        metric("read_bytes_total", "counter", "Bytes read through the mount", self.read_bytes as f64);
        metric(
            "read_errors_total",
            "counter",
            "Reads failed (an I/O error, or a layout that no longer maps them)",
            self.read_errors as f64,
        );
        metric("page_hits_total", "counter", "Page accesses that hit", p.hits as f64);
        metric("page_misses_total", "counter", "Page accesses that missed", p.misses as f64);
        metric("page_waits_total", "counter", "Page accesses that waited for I/O in flight", p.waits as f64);
        metric("hit_ratio", "gauge", "Hits over page accesses", p.hit_ratio);
        metric("pages_prefetched_total", "counter", "Pages read ahead", p.prefetched as f64);
        metric(
            "prefetched_evicted_unused_total",
            "counter",
            "Prefetched pages evicted unread",
            p.evicted_unused as f64,
        );
        metric(
            "prefetch_thrashing_pages_total",
            "counter",
            "Li & Shen's prefetch thrashing",
            p.thrashing as f64,
        );
        metric("memory_budget_bytes", "gauge", "The cache's memory", self.memory_budget_bytes as f64);
        metric("resident_bytes", "gauge", "Cached pages", self.resident_bytes as f64);
        metric("in_flight_bytes", "gauge", "Pages being read", self.in_flight_bytes as f64);
        metric("free_bytes", "gauge", "Free memory of the budget", self.free_bytes as f64);
        metric("prefetch_cache_bytes", "gauge", "Prefetched, unused pages", self.prefetch_cache_bytes as f64);
        metric("metadata_bytes", "gauge", "Metadata cache slab memory", self.metadata_bytes as f64);
        metric("metadata_objects", "gauge", "Metadata objects cached", self.metadata_objects as f64);
        let w = &self.metadata_work;
        metric(
            "metadata_lookups_total",
            "counter",
            "Lookups and getattrs that reached the cache",
            w.lookups as f64,
        );
        metric("metadata_hits_total", "counter", "Lookups and getattrs the cache answered", w.hits as f64);
        metric(
            "metadata_iswapd_freed_objects_total",
            "counter",
            "Objects split reclaim's background reclaimer freed",
            w.iswapd_freed_objects as f64,
        );
        metric(
            "metadata_reclaims_total",
            "counter",
            "Split reclaim's metadata reclaims at allocation",
            w.metadata_reclaims as f64,
        );
        let pc = &self.prefetch_cache_work;
        metric(
            "prefetch_cache_reclaimed_exited_pages_total",
            "counter",
            "Prefetch cache pages reclaimed because their handle was released",
            pc.reclaimed_exited as f64,
        );
        metric(
            "prefetch_cache_reclaimed_ordered_pages_total",
            "counter",
            "Prefetch cache pages reclaimed by the order",
            pc.reclaimed_ordered as f64,
        );
        metric(
            "emulated_device_busy_seconds_total",
            "counter",
            "Emulated device busy time",
            self.device.busy_s,
        );
        s
    }
}

/// Serve `engine`'s statistics in Prometheus' text format on `addr` (loopback only), one connection at a
/// time, on a thread of its own that ends when the engine shuts down. Each connection is bounded: 8 KiB of
/// request and 2 s.
pub fn serve_prometheus(addr: SocketAddr, engine: Arc<Engine>) -> std::io::Result<()> {
    if !addr.ip().is_loopback() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{addr} is not a loopback address: the statistics endpoint serves 127.0.0.1 or ::1 only"),
        ));
    }
    let listener = TcpListener::bind(addr)?;
    // Non-blocking, so the thread sees the engine shut down and ends (releasing the engine).
    listener.set_nonblocking(true)?;
    std::thread::Builder::new().name("pagelab-stats".into()).spawn(move || {
        while !engine.is_shut_down() {
            let mut conn = match listener.accept() {
                Ok((conn, _)) => conn,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
                Err(_) => continue,
            };
            let _ = conn.set_nonblocking(false);
            let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = conn.set_write_timeout(Some(Duration::from_secs(2)));
            let mut reader = BufReader::new(std::io::Read::take(&conn, 8192));
            let mut line = String::new();
            // Read the request's head (up to the blank line); its path is not looked at.
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" && line != "\n" {
                line.clear();
            }
            let body = engine.stats().prometheus();
            let _ = write!(
                conn,
                "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    })?;
    Ok(())
}
