//! `pagelab mrc`: the LRU miss-ratio curve of a trace in one pass — exact stack distances, or SHARDS
//! sampling (fixed-rate or fixed-size, with the `_adj` correction).

use crate::output::{print_csv, print_json, Format, Table};
use crate::plot::{LineChart, Series};
use crate::traceio::{for_each_key_batch, TraceArgs};
use anyhow::{bail, Result};
use clap::Args;
use pagelab_core::units::fmt_bytes;
use pagelab_core::whatif::{evenly_spaced_sizes, MissRatioCurve, MrcEngine, ShardsConfig, ShardsMode};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  pagelab mrc --trace data/traces/arc/P3.lis.zst --plot p3-mrc.svg
  pagelab mrc --trace data/traces/arc/P3.lis.zst --sample-size 8192 --json
  pagelab mrc \\
      --trace 'synth:zipf?alpha=0.9&objects=1000000&requests=10000000' \\
      --sample-rate 0.01

Exact is O(log M) per reference; SHARDS hashes every key and runs the exact algorithm on the sampled ones only. On small traces a fixed rate leaves few keys in the sample (R = 0.01 of 100,000 distinct pages is about 1,000 keys) and the curve is noisy; a fixed sample size (e.g. 8192) bounds both memory and error.")]
pub struct MrcArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    /// SHARDS fixed-rate sampling: keep this fraction of the keys, in (0, 1].
    #[arg(long, conflicts_with = "sample_size")]
    pub sample_rate: Option<f64>,
    /// SHARDS fixed-size sampling: keep at most this many keys.
    #[arg(long)]
    pub sample_size: Option<u32>,
    /// Turn off the SHARDS_adj correction.
    #[arg(long)]
    pub no_adj: bool,
    /// Hash seed for SHARDS sampling (different seeds sample independent key sets).
    #[arg(long, default_value_t = 0)]
    pub salt: u64,
    /// Points of the curve to print: evenly spaced cache sizes up to the trace's footprint.
    #[arg(long, default_value_t = 20)]
    pub points: u32,
    /// Seed for synthetic traces that do not give one.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write a plot of the curve (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    #[arg(long)]
    pub csv: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct MrcPoint {
    pub size_pages: u64,
    pub size_bytes: u64,
    pub miss_ratio: f64,
}

#[derive(Debug, Serialize)]
struct MrcReport {
    trace: String,
    method: String,
    page_size_bytes: u64,
    requests: u64,
    /// Distinct pages (exact), or the estimate from the sample (SHARDS).
    distinct_pages: u64,
    cold_misses: f64,
    sampled_keys: Option<u32>,
    effective_rate: Option<f64>,
    seconds: f64,
    requests_per_sec: f64,
    points: Vec<MrcPoint>,
}

/// Open the trace, expand it into pages and feed them to `engine` batch by batch, as `pagelab mrc` does
/// (the benchmark times this too). Returns the trace's description.
pub fn feed(trace: &TraceArgs, seed: Option<u64>, engine: &mut MrcEngine) -> Result<String> {
    let mut reader = trace.open(seed)?;
    let expander = trace.expander(reader.as_ref())?;
    for_each_key_batch(reader.as_mut(), &expander, |keys| engine.process(keys))?;
    Ok(reader.describe())
}

pub fn run(args: &MrcArgs) -> Result<()> {
    if args.points == 0 {
        bail!("--points must be at least 1");
    }
    let page_size = args.trace.page_size_bytes()?;
    let config = match (args.sample_rate, args.sample_size) {
        (Some(rate), _) => {
            Some(ShardsConfig { mode: ShardsMode::FixedRate { rate }, adjust: !args.no_adj, seed: args.salt })
        }
        (None, Some(n)) => Some(ShardsConfig {
            mode: ShardsMode::FixedSize { samples_max: n },
            adjust: !args.no_adj,
            seed: args.salt,
        }),
        (None, None) => None,
    };
    let mut engine = MrcEngine::new(config)?;
    let start = Instant::now();
    let source = feed(&args.trace, args.seed, &mut engine)?;
    let seconds = start.elapsed().as_secs_f64();
    let curve = engine.curve();
    let requests = curve.requests();
    if requests == 0 {
        bail!("{source}: the trace has no requests");
    }
    let (method, distinct, sampled, rate) = match &engine {
        MrcEngine::Exact(s) => ("exact".to_string(), s.distinct_keys() as u64, None, None),
        MrcEngine::Sampled(s) => {
            let method = match s.config().mode {
                ShardsMode::FixedRate { rate } => format!("shards fixed-rate R={rate}"),
                ShardsMode::FixedSize { samples_max } => format!("shards fixed-size s_max={samples_max}"),
            };
            let adj = if s.config().adjust { " adj" } else { "" };
            let est = (s.sampled_keys() as f64 / s.rate()).round() as u64;
            (format!("{method}{adj}"), est, Some(s.sampled_keys()), Some(s.rate()))
        }
    };
    let footprint = curve.size_pages_max().max(distinct).max(1);
    let points: Vec<MrcPoint> = evenly_spaced_sizes(footprint, args.points)
        .into_iter()
        .map(|size_pages| MrcPoint {
            size_pages,
            size_bytes: size_pages * page_size,
            miss_ratio: curve.miss_ratio_at(size_pages),
        })
        .collect();
    if let Some(path) = &args.plot {
        plot(&curve, footprint, page_size, &method, &source, path)?;
        eprintln!("plot written to {}", path.display());
    }
    let report = MrcReport {
        trace: source,
        method,
        page_size_bytes: page_size,
        requests,
        distinct_pages: distinct,
        cold_misses: curve.cold_misses(),
        sampled_keys: sampled,
        effective_rate: rate,
        seconds,
        requests_per_sec: requests as f64 / seconds.max(1e-9),
        points,
    };
    match Format::from_flags(args.json, args.csv) {
        Format::Json => print_json(&report),
        Format::Csv => print_csv(&report.points),
        Format::Table => {
            print_summary(&report);
            Ok(())
        }
    }
}

fn plot(
    curve: &MissRatioCurve,
    footprint: u64,
    page_size: u64,
    method: &str,
    trace: &str,
    path: &std::path::Path,
) -> Result<()> {
    let points = evenly_spaced_sizes(footprint, 400)
        .into_iter()
        .map(|s| ((s * page_size) as f64 / (1024.0 * 1024.0), curve.miss_ratio_at(s)))
        .collect();
    LineChart {
        title: format!("LRU miss-ratio curve — {trace}"),
        x_label: "cache size (MiB)".into(),
        y_label: "miss ratio".into(),
        series: vec![Series { name: method.to_string(), points }],
        log_x: false,
        y_range: Some((0.0, 1.0)),
    }
    .write(path)
}

fn print_summary(r: &MrcReport) {
    println!("trace          {}", r.trace);
    println!("method         {}", r.method);
    println!("requests       {} pages of {}", r.requests, fmt_bytes(r.page_size_bytes));
    let est = if r.sampled_keys.is_some() { " (estimated)" } else { "" };
    println!(
        "distinct pages {}{est} ({})",
        r.distinct_pages,
        fmt_bytes(r.distinct_pages * r.page_size_bytes)
    );
    if let (Some(k), Some(rate)) = (r.sampled_keys, r.effective_rate) {
        println!("sampled keys   {k} (effective rate {rate:.5})");
    }
    println!("speed          {:.1} M requests/s ({:.3} s)", r.requests_per_sec / 1e6, r.seconds);
    let mut t = Table::new(&[">cache size", ">pages", ">miss ratio"]);
    for p in &r.points {
        t.row(vec![fmt_bytes(p.size_bytes), p.size_pages.to_string(), format!("{:.4}", p.miss_ratio)]);
    }
    print!("\n{}", t.render());
}
