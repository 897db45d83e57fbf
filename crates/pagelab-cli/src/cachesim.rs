//! `pagelab cachesim`: libCacheSim-style trace-driven simulation — many policies × many sizes, hit/miss
//! only, in parallel across cores.

use crate::output::{print_csv, print_json, Format, Table};
use crate::progress;
use crate::traceio::{count_distinct_streaming, for_each_key_batch, load_pages, TraceArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use pagelab_core::cache::{HitStats, KeyedCache};
use pagelab_core::policy::{Access, PolicyKind, Replacement, WithPolicy};
use pagelab_core::units::{fmt_bytes, parse_sizes, CacheSize};
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
  pagelab cachesim --trace cloudPhysicsIO.oracleGeneral.bin --ignore-size \\
      --policy lru --size 1000 --json")]
pub struct CachesimArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Replacement policies, comma-separated: lru, fifo, clock, linux, 2q, arc, lirs, opt.
    #[arg(long, default_value = "lru")]
    pub policy: String,
    /// Cache sizes, comma-separated: pages (1000), bytes (64MiB) or percent of the trace's distinct pages (5%).
    #[arg(long, value_name = "SIZES")]
    pub size: String,
    /// Re-read the trace for every run instead of holding its pages in memory (for traces larger than RAM).
    #[arg(long)]
    pub stream: bool,
    /// Worker threads (default: all cores).
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
    /// Wall-clock seconds of this run (simulation only, or with trace reading under `--stream`).
    pub seconds: f64,
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

fn cache_frames(pages: u64) -> u32 {
    u32::try_from(pages).unwrap_or(u32::MAX)
}

pub fn run(args: &CachesimArgs) -> Result<()> {
    let kinds = parse_policies(&args.policy).context("--policy")?;
    let sizes = parse_sizes(&args.size).context("--size")?;
    let page_size = args.trace.page_size_bytes()?;
    if args.stream && kinds.iter().any(|k| k.needs_future()) {
        bail!("--stream cannot run opt: OPT needs the whole trace in memory to know each page's next use");
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build()?;
    let need_distinct = sizes.iter().any(|s| s.needs_distinct_count());
    let (rows, trace_requests, distinct, skipped, source) = if args.stream {
        let distinct =
            if need_distinct { Some(count_distinct_streaming(&args.trace, args.seed)?) } else { None };
        let jobs = jobs(&kinds, &sizes, page_size, distinct.unwrap_or(0));
        let pb = progress::bar(jobs.len() as u64, "cachesim");
        let rows = pool.install(|| {
            jobs.par_iter()
                .map(|&(kind, pages)| {
                    let r = stream_one(&args.trace, args.seed, kind, pages, page_size);
                    pb.inc(1);
                    r
                })
                .collect::<Result<Vec<_>>>()
        })?;
        pb.finish_and_clear();
        (rows, None, distinct, 0, args.trace.trace.clone())
    } else {
        let t = load_pages(&args.trace, args.seed)?;
        let next = kinds.iter().any(|k| k.needs_future()).then(|| next_vtimes(&t.keys));
        let jobs = jobs(&kinds, &sizes, page_size, t.distinct);
        let pb = progress::bar(jobs.len() as u64, "cachesim");
        let rows = pool.install(|| {
            jobs.par_iter()
                .map(|&(kind, pages)| {
                    let start = Instant::now();
                    let next = if kind.needs_future() { next.as_deref() } else { None };
                    let stats = simulate_keys(kind, pages, &t.keys, next);
                    pb.inc(1);
                    row(kind, pages, page_size, stats, start.elapsed().as_secs_f64())
                })
                .collect::<Vec<_>>()
        });
        pb.finish_and_clear();
        (rows, Some(t.requests), Some(t.distinct), t.skipped, t.source)
    };
    let format = Format::from_flags(args.json, args.csv);
    match format {
        Format::Json => print_json(&CachesimReport {
            trace: source,
            page_size_bytes: page_size,
            trace_requests,
            distinct_pages: distinct,
            skipped_records: skipped,
            mode: if args.stream { "stream" } else { "memory" },
            peak_rss_bytes: crate::peak_rss_bytes(),
            results: &rows,
        }),
        Format::Csv => print_csv(&rows),
        Format::Table => {
            print_table(&source, distinct, skipped, &rows);
            Ok(())
        }
    }
}

fn jobs(kinds: &[PolicyKind], sizes: &[CacheSize], page_size: u64, distinct: u64) -> Vec<(PolicyKind, u64)> {
    let mut jobs = Vec::new();
    for &k in kinds {
        for s in sizes {
            jobs.push((k, s.pages(page_size, distinct)));
        }
    }
    jobs
}

fn row(kind: PolicyKind, pages: u64, page_size: u64, stats: HitStats, seconds: f64) -> CachesimRow {
    CachesimRow {
        policy: kind.cli_name().to_string(),
        size_pages: pages,
        size_bytes: pages * page_size,
        requests: stats.requests(),
        hits: stats.hits,
        misses: stats.misses,
        miss_ratio: stats.miss_ratio(),
        seconds,
        requests_per_sec: if seconds > 0.0 { stats.requests() as f64 / seconds } else { 0.0 },
    }
}

/// One run that reads the trace itself: constant memory beyond the cache.
pub fn stream_one(
    args: &TraceArgs,
    seed: Option<u64>,
    kind: PolicyKind,
    pages: u64,
    page_size: u64,
) -> Result<CachesimRow> {
    let start = Instant::now();
    let stats = kind.build(cache_frames(pages), StreamRun { args, seed })?;
    Ok(row(kind, pages, page_size, stats, start.elapsed().as_secs_f64()))
}

/// [`stream_one`]'s loop, compiled once per policy type.
struct StreamRun<'a> {
    args: &'a TraceArgs,
    seed: Option<u64>,
}

impl WithPolicy for StreamRun<'_> {
    type Output = Result<HitStats>;
    fn run<P: Replacement>(self, policy: P) -> Result<HitStats> {
        let mut reader = self.args.open(self.seed)?;
        let expander = self.args.expander(reader.as_ref())?;
        let mut cache = KeyedCache::new(policy);
        let mut vtime = 0u64;
        for_each_key_batch(reader.as_mut(), &expander, |keys| {
            cache.access_keys(keys, vtime);
            vtime += keys.len() as u64;
        })?;
        Ok(cache.stats())
    }
}

fn print_table(source: &str, distinct: Option<u64>, skipped: u64, rows: &[CachesimRow]) {
    let mut t = Table::new(&["policy", ">size", ">pages", ">requests", ">misses", ">miss ratio", ">speed"]);
    for r in rows {
        t.row(vec![
            r.policy.clone(),
            fmt_bytes(r.size_bytes),
            r.size_pages.to_string(),
            r.requests.to_string(),
            r.misses.to_string(),
            format!("{:.4}", r.miss_ratio),
            format!("{:.1} Mreq/s", r.requests_per_sec / 1e6),
        ]);
    }
    println!("trace {source}");
    if let Some(d) = distinct {
        println!("distinct pages {d}");
    }
    if skipped > 0 {
        println!("skipped {skipped} malformed records (--skip-bad-lines)");
    }
    print!("{}", t.render());
}
