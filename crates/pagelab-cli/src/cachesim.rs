//! `pagelab cachesim`: libCacheSim-style trace-driven simulation — many policies × many sizes, hit/miss
//! only, in parallel across cores.
//!
//! How a run reads its trace (`mode` in the JSON):
//! - `stream`, the default: every (policy, size) run opens the trace and simulates as it reads, in
//!   constant memory beyond its cache. A percentage size first counts the trace's distinct pages in one
//!   more streaming pass. For one policy at one size this is the fastest path there is: the trace is read
//!   once, and never held.
//! - `memory` (`--load`, OPT, or an input that cannot be read twice: standard input, a pipe): the trace
//!   is read once into page keys, 8 bytes each (distinct pages counted in the same pass when a percentage
//!   size asks), and every run replays them. Worth it for many runs over a trace that is slow to parse.
//!
//! Every row's `seconds` is end to end, as a user waits for it: opening and reading the trace (and the
//! shared counting pass or load, counted in every row that needed it) plus its run. `wall_seconds` is the
//! whole command's.
//!
//! Sizes beyond the footprint: a cache at least as large as the trace's distinct pages never evicts, so it
//! is built with `min(size, distinct pages)` frames and reported at the size asked. For a size above
//! [`LARGE_CACHE_PAGES`] whose footprint is not known, the distinct pages are counted first (in a hash set
//! bounded by the size, not by the trace); what still exceeds [`CACHE_FRAMES_MAX`] or this machine's
//! memory is refused, naming the limit.

use crate::limits::{ensure_fits_memory, worker_threads};
use crate::output::{emit, print_csv, print_json, Format, Table};
use crate::progress;
use crate::traceio::{
    count_distinct, count_distinct_streaming, for_each_key_batch, load_keys, TraceArgs, KEY_BYTES,
};
use anyhow::{bail, Context, Result};
use clap::Args;
use pagelab_core::cache::{HitStats, KeyedCache};
use pagelab_core::policy::{Access, PolicyKind, Replacement, WithPolicy};
use pagelab_core::units::{check_sizes_hold_a_page, fmt_bytes, parse_sizes, CacheSize};
use pagelab_trace::can_reread;
use pagelab_trace::synth::SynthSpec;
use pagelab_trace::write::next_vtimes;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  pagelab cachesim --trace data/traces/arc/P3.lis.zst \\
      --policy lru,arc,lirs --size 1%,5%,10%,64MiB
  pagelab cachesim \\
      --trace 'synth:zipf?alpha=1.0&objects=1000000&requests=10000000' \\
      --policy lru,clock --size 100000
  pagelab cachesim --ignore-size --policy lru --size 1000 --json \\
      --trace data/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin
  zstd -dc data/traces/arc/P3.lis.zst \\
      | pagelab cachesim --trace - --format arc --size 1%

By default every run reads the trace as it simulates (constant memory); --load reads it once into memory (8 bytes per page reference) for many runs over a trace that is slow to parse. OPT, and input that cannot be read twice (standard input, a pipe), are always loaded. Speeds are end to end: reading the trace included.")]
pub struct CachesimArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Replacement policies, comma-separated: lru, fifo, clock, linux, 2q, arc, lirs, dulo, dulo-linux
    /// (DULO with its default sections; a trace's key is its disk location), opt.
    #[arg(long, default_value = "lru")]
    pub policy: String,
    /// Cache sizes, comma-separated: pages (1000), bytes (64MiB) or percent of the trace's distinct pages (5%).
    #[arg(long, value_name = "SIZES")]
    pub size: String,
    /// Read the trace afresh for every run (the default, except for OPT and input that cannot be re-read).
    #[arg(long, conflicts_with = "load")]
    pub stream: bool,
    /// Read the trace once into memory and replay it for every run.
    #[arg(long)]
    pub load: bool,
    /// Worker threads, 1 to 1024 (default: all cores; never more threads than there are runs).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Seed for synthetic traces that do not give one.
    #[arg(long)]
    pub seed: Option<u64>,
    /// One JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV rows on stdout.
    #[arg(long)]
    pub csv: bool,
}

/// Cache sizes (pages) above which an unknown footprint is counted before the caches are built: below,
/// a cache larger than its trace costs at most this many × [`CACHE_BYTES_PER_PAGE`] (512 MiB).
pub const LARGE_CACHE_PAGES: u64 = 1 << 22;

/// An upper bound on a cache's bytes per page under any policy (frame table, index, links, and the
/// ghost entries of ARC, 2Q and LIRS; LRU measures 27, BENCHMARKS.md), for refusing what cannot fit.
pub const CACHE_BYTES_PER_PAGE: u64 = 128;

/// The largest cache: frame ids are 32-bit, and LIRS keeps up to twice its size in ghost entries.
pub const CACHE_FRAMES_MAX: u64 = 1 << 30;

/// One (policy, size) result; field names are stable (`--json`, `--csv`).
#[derive(Clone, Debug, Serialize)]
pub struct CachesimRow {
    pub policy: String,
    pub size_pages: u64,
    pub size_bytes: u64,
    /// Page references simulated.
    pub requests: u64,
    pub hits: u64,
    pub misses: u64,
    pub miss_ratio: f64,
    /// Wall-clock seconds from opening the trace to this result: reading it (a shared load or counting
    /// pass included) and this run.
    pub seconds: f64,
    /// `requests / seconds`: end to end.
    pub requests_per_sec: f64,
}

#[derive(Debug, Serialize)]
struct CachesimReport<'a> {
    trace: String,
    page_size_bytes: u64,
    trace_requests: Option<u64>,
    distinct_pages: Option<u64>,
    skipped_records: u64,
    mode: &'static str,
    /// The whole command, from the start to the results.
    wall_seconds: f64,
    peak_rss_bytes: Option<u64>,
    results: &'a [CachesimRow],
}

pub fn parse_policies(text: &str) -> Result<Vec<PolicyKind>> {
    let kinds: Vec<PolicyKind> =
        text.split(',').filter(|s| !s.trim().is_empty()).map(|s| s.parse()).collect::<Result<_, _>>()?;
    if kinds.is_empty() {
        bail!("no policy given: expected e.g. --policy lru,arc");
    }
    Ok(kinds)
}

/// Simulate one policy at one size over in-memory keys; `next` (each reference's next use) is for OPT.
pub fn simulate_keys(kind: PolicyKind, pages: u64, keys: &[u64], next: Option<&[u64]>) -> HitStats {
    kind.build(cache_frames(pages), KeysRun { keys, next })
}

/// [`simulate_keys`]'s loop, compiled once per policy type.
struct KeysRun<'a> {
    keys: &'a [u64],
    next: Option<&'a [u64]>,
}

impl WithPolicy for KeysRun<'_> {
    type Output = HitStats;
    fn run<P: Replacement>(self, policy: P) -> HitStats {
        let mut cache = KeyedCache::new(policy);
        match self.next {
            None => cache.access_keys(self.keys, 0),
            Some(next) => {
                for (i, (&key, &next_vtime)) in self.keys.iter().zip(next).enumerate() {
                    cache.access(&Access { next_vtime, ..Access::demand(key, i as u64) });
                }
            }
        }
        cache.stats()
    }
}

/// Caller guarantees `pages <= CACHE_FRAMES_MAX` (every size is checked in [`plan`]).
fn cache_frames(pages: u64) -> u32 {
    u32::try_from(pages).expect("cache sizes are checked against CACHE_FRAMES_MAX")
}

/// How the runs read the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Stream,
    Memory,
}

/// One (policy, size) run: the size asked, and the frames built (no more than the footprint).
#[derive(Clone, Copy, Debug)]
struct Job {
    kind: PolicyKind,
    size_pages: u64,
    frames: u64,
}

pub fn run(args: &CachesimArgs) -> Result<()> {
    let start = Instant::now();
    let kinds = parse_policies(&args.policy).context("--policy")?;
    let sizes = parse_sizes(&args.size).context("--size")?;
    let page_size = args.trace.page_size_bytes()?;
    check_sizes_hold_a_page(&sizes, page_size).context("--size")?;
    let needs_future = kinds.iter().any(|k| k.needs_future());
    if args.stream && needs_future {
        bail!("--stream cannot run opt: OPT needs the whole trace in memory to know each page's next use");
    }
    let threads = worker_threads(args.jobs, kinds.len() * sizes.len())?;
    let rereadable = can_reread(&args.trace.trace)?;
    let mode = if args.load || needs_future || !rereadable { Mode::Memory } else { Mode::Stream };
    if args.stream && mode == Mode::Memory {
        bail!(
            "--stream: `{}` cannot be read twice (standard input or a pipe); drop --stream",
            args.trace.trace
        );
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let need_distinct = sizes.iter().any(|s| s.needs_distinct_count());
    let format = Format::from_flags(args.json, args.csv);
    match mode {
        Mode::Stream => {
            let counting = Instant::now();
            let largest = largest_pages(&sizes, page_size);
            // The footprint when a percentage needs it exactly, or a large cache might be larger than it.
            let distinct = if need_distinct {
                Some(count_distinct_streaming(&args.trace, args.seed, u64::MAX)?.expect("no limit"))
            } else {
                None
            };
            let bound = footprint_bound(args, distinct, None, largest)?;
            let shared = counting.elapsed().as_secs_f64();
            let jobs = plan(&kinds, &sizes, page_size, distinct.unwrap_or(0), bound, threads)?;
            let pb = progress::bar(jobs.len() as u64, "cachesim");
            let results = pool.install(|| {
                jobs.par_iter()
                    .map(|&job| {
                        let r = stream_one(&args.trace, args.seed, job.kind, job.frames);
                        pb.inc(1);
                        r.map(|s| (row(job, page_size, s.stats, shared + s.seconds), s.source, s.skipped))
                    })
                    .collect::<Result<Vec<_>>>()
            })?;
            pb.finish_and_clear();
            let (source, skipped) = results.first().map(|(_, s, k)| (s.clone(), *k)).unwrap_or_default();
            let rows: Vec<CachesimRow> = results.into_iter().map(|(r, _, _)| r).collect();
            crate::traceio::ensure_requests(&source, rows[0].requests, skipped)?;
            let report = Report { source, distinct, trace_requests: None, skipped, mode: "stream", start };
            print(format, &report, page_size, &rows)
        }
        Mode::Memory => {
            let bytes_per_key = if needs_future { 2 * KEY_BYTES } else { KEY_BYTES };
            let t = load_keys(&args.trace, args.seed, need_distinct, bytes_per_key)?;
            let largest = largest_pages(&sizes, page_size);
            let bound = footprint_bound(args, t.distinct, Some(&t.keys), largest)?;
            let next = needs_future.then(|| next_vtimes(&t.keys));
            let shared = start.elapsed().as_secs_f64();
            let jobs = plan(&kinds, &sizes, page_size, t.distinct.unwrap_or(0), bound, threads)?;
            let pb = progress::bar(jobs.len() as u64, "cachesim");
            let rows = pool.install(|| {
                jobs.par_iter()
                    .map(|&job| {
                        let run_start = Instant::now();
                        let next = if job.kind.needs_future() { next.as_deref() } else { None };
                        let stats = simulate_keys(job.kind, job.frames, &t.keys, next);
                        pb.inc(1);
                        row(job, page_size, stats, shared + run_start.elapsed().as_secs_f64())
                    })
                    .collect::<Vec<_>>()
            });
            pb.finish_and_clear();
            let report = Report {
                source: t.source,
                distinct: t.distinct,
                trace_requests: Some(t.requests),
                skipped: t.skipped,
                mode: "memory",
                start,
            };
            print(format, &report, page_size, &rows)
        }
    }
}

/// The largest size asked for, in pages, not counting percentages (which are at most the footprint).
fn largest_pages(sizes: &[CacheSize], page_size: u64) -> u64 {
    sizes.iter().filter(|s| !s.needs_distinct_count()).map(|s| s.pages(page_size, 0)).max().unwrap_or(0)
}

/// A bound on the trace's distinct pages, when one is needed to keep a cache of `largest` pages no larger
/// than its trace: the count when known, the references when the keys are loaded, a synthetic spec's
/// own bound, else (a file, for a cache above [`LARGE_CACHE_PAGES`]) a count up to the size.
fn footprint_bound(
    args: &CachesimArgs,
    distinct: Option<u64>,
    keys: Option<&[u64]>,
    largest: u64,
) -> Result<Option<u64>> {
    if let Some(d) = distinct {
        return Ok(Some(d));
    }
    if largest <= LARGE_CACHE_PAGES {
        return Ok(None);
    }
    let bound = match keys {
        Some(keys) if (keys.len() as u64) <= largest => keys.len() as u64,
        Some(keys) => count_distinct(keys),
        None if args.trace.trace.starts_with("synth:") => {
            SynthSpec::parse(&args.trace.trace, args.seed)?.distinct_bound()
        }
        None => {
            // Counting further than the largest cache this machine can hold tells nothing more.
            let limit = largest.min(affordable_pages());
            // Past the limit, the footprint is known to exceed it: a cache of the size is no smaller.
            count_distinct_streaming(&args.trace, args.seed, limit)?.unwrap_or(limit.saturating_add(1))
        }
    };
    Ok(Some(bound))
}

/// The most pages a cache can hold on this machine, by [`CACHE_BYTES_PER_PAGE`].
fn affordable_pages() -> u64 {
    crate::limits::physical_memory_bytes().map_or(CACHE_FRAMES_MAX, |m| m / CACHE_BYTES_PER_PAGE)
}

/// The runs, each cache no larger than the footprint `bound` (when known); refuses caches beyond
/// [`CACHE_FRAMES_MAX`] or, `threads` of the largest running at once, beyond this machine's memory.
fn plan(
    kinds: &[PolicyKind],
    sizes: &[CacheSize],
    page_size: u64,
    distinct: u64,
    bound: Option<u64>,
    threads: usize,
) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for &kind in kinds {
        for s in sizes {
            let size_pages = s.pages(page_size, distinct);
            if size_pages.checked_mul(page_size).is_none() {
                // Its size in bytes, reported beside it, would be a saturated count.
                bail!("--size: a cache of {size_pages} pages of {page_size} bytes is more than 2^64 bytes");
            }
            let frames = bound.map_or(size_pages, |b| size_pages.min(b.max(1)));
            if frames > CACHE_FRAMES_MAX {
                bail!(
                    "--size: a cache of {size_pages} pages is too large: at most {CACHE_FRAMES_MAX} pages \
                     ({} of {}-byte pages; a cache's frame ids are 32-bit)",
                    fmt_bytes(CACHE_FRAMES_MAX.saturating_mul(page_size)),
                    page_size
                );
            }
            jobs.push(Job { kind, size_pages, frames });
        }
    }
    let mut frames: Vec<u64> = jobs.iter().map(|j| j.frames).collect();
    frames.sort_unstable_by(|a, b| b.cmp(a));
    let at_once: u128 = frames.iter().take(threads).map(|&f| f as u128).sum();
    let largest = jobs.iter().map(|j| j.size_pages).max().unwrap_or(0);
    ensure_fits_memory(
        &format!(
            "--size: {} cache(s) of up to {largest} pages at once (~{CACHE_BYTES_PER_PAGE} bytes per page)",
            threads.min(jobs.len())
        ),
        at_once * CACHE_BYTES_PER_PAGE as u128,
    )?;
    Ok(jobs)
}

fn row(job: Job, page_size: u64, stats: HitStats, seconds: f64) -> CachesimRow {
    CachesimRow {
        policy: job.kind.cli_name().to_string(),
        size_pages: job.size_pages,
        size_bytes: job.size_pages * page_size, // checked by `plan`
        requests: stats.requests(),
        hits: stats.hits,
        misses: stats.misses,
        miss_ratio: stats.miss_ratio(),
        seconds,
        requests_per_sec: if seconds > 0.0 { stats.requests() as f64 / seconds } else { 0.0 },
    }
}

/// What one streaming run found.
pub struct Streamed {
    pub stats: HitStats,
    /// End to end: opening the trace, reading it, simulating.
    pub seconds: f64,
    /// The trace's description.
    pub source: String,
    /// Malformed records skipped (`--skip-bad-lines`).
    pub skipped: u64,
}

/// One run that reads the trace itself: constant memory beyond the cache of `frames` pages.
pub fn stream_one(args: &TraceArgs, seed: Option<u64>, kind: PolicyKind, frames: u64) -> Result<Streamed> {
    let start = Instant::now();
    let (stats, source, skipped) = kind.build(cache_frames(frames), StreamRun { args, seed })?;
    Ok(Streamed { stats, seconds: start.elapsed().as_secs_f64(), source, skipped })
}

/// [`stream_one`]'s loop, compiled once per policy type.
struct StreamRun<'a> {
    args: &'a TraceArgs,
    seed: Option<u64>,
}

impl WithPolicy for StreamRun<'_> {
    type Output = Result<(HitStats, String, u64)>;
    fn run<P: Replacement>(self, policy: P) -> Result<(HitStats, String, u64)> {
        let mut reader = self.args.open(self.seed)?;
        let expander = self.args.expander(reader.as_ref())?;
        let mut cache = KeyedCache::new(policy);
        let mut vtime = 0u64;
        for_each_key_batch(reader.as_mut(), &expander, |keys| {
            cache.access_keys(keys, vtime);
            vtime += keys.len() as u64;
        })?;
        Ok((cache.stats(), reader.describe(), reader.skipped_records()))
    }
}

/// What the report says about the trace and the run, beside the rows.
struct Report {
    source: String,
    distinct: Option<u64>,
    trace_requests: Option<u64>,
    skipped: u64,
    mode: &'static str,
    start: Instant,
}

fn print(format: Format, r: &Report, page_size: u64, rows: &[CachesimRow]) -> Result<()> {
    let wall_seconds = r.start.elapsed().as_secs_f64();
    match format {
        Format::Json => print_json(&CachesimReport {
            trace: r.source.clone(),
            page_size_bytes: page_size,
            trace_requests: r.trace_requests,
            distinct_pages: r.distinct,
            skipped_records: r.skipped,
            mode: r.mode,
            wall_seconds,
            peak_rss_bytes: crate::peak_rss_bytes(),
            results: rows,
        }),
        Format::Csv => print_csv(rows),
        Format::Table => emit(&table(r, rows, wall_seconds)),
    }
}

fn table(r: &Report, rows: &[CachesimRow], wall_seconds: f64) -> String {
    let mut t = Table::new(&["policy", ">size", ">pages", ">requests", ">misses", ">miss ratio", ">speed"]);
    for row in rows {
        t.row(vec![
            row.policy.clone(),
            fmt_bytes(row.size_bytes),
            row.size_pages.to_string(),
            row.requests.to_string(),
            row.misses.to_string(),
            format!("{:.4}", row.miss_ratio),
            format!("{:.1} Mreq/s", row.requests_per_sec / 1e6),
        ]);
    }
    let mut out = format!("trace {}\n", r.source);
    if let Some(d) = r.distinct {
        out += &format!("distinct pages {d}\n");
    }
    if r.skipped > 0 {
        out += &format!("skipped {} malformed records (--skip-bad-lines)\n", r.skipped);
    }
    out += &t.render();
    out += &format!(
        "{} run(s) in {wall_seconds:.3} s end to end ({} mode; speeds include reading the trace)\n",
        rows.len(),
        r.mode
    );
    out
}
