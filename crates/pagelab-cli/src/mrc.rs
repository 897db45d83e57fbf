//! `pagelab mrc`: the LRU miss-ratio curve of a trace in one pass — exact stack distances, or SHARDS
//! sampling (fixed-rate or fixed-size, with the `_adj` correction).
//!
//! The curve is printed at chosen sizes (`--size`, as `pagelab cachesim` takes them), or at `--points`
//! sizes spaced logarithmically from one page to the footprint, so that small caches, where the curve
//! changes most, are resolved. Never the same size twice: a footprint of fewer pages than `--points`
//! gives one point per size, with a warning. A SHARDS sample that keeps no key at all gives no curve,
//! and is refused.

use crate::output::{emit, note, print_csv, print_json, write_atomically, Format, Table};
use crate::plot::{LineChart, Series};
use crate::traceio::{ensure_requests, for_each_key_batch, TraceArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use pagelab_core::units::{check_sizes_hold_a_page, fmt_bytes, fmt_f64, parse_sizes};
use pagelab_core::whatif::{evenly_spaced_sizes, MissRatioCurve, MrcEngine, ShardsConfig, ShardsMode};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Most points `--points` may ask for: a million rows is more than any plot or table resolves.
pub const POINTS_MAX: u32 = 1_000_000;

/// Sampled keys below which a SHARDS curve is flagged as coarse.
const FEW_SAMPLED_KEYS: u32 = 100;

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  pagelab mrc --trace data/traces/arc/P3.lis.zst --plot p3-mrc.svg
  pagelab mrc --trace data/traces/arc/P3.lis.zst --size 1000,1%,64MiB
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
    /// Points of the curve to print: cache sizes spaced logarithmically from one page to the trace's
    /// footprint.
    #[arg(long, default_value_t = 20, conflicts_with = "size")]
    pub points: u32,
    /// Print the curve at these cache sizes instead, comma-separated: pages (1000), bytes (64MiB) or
    /// percent of the trace's distinct pages (5%).
    #[arg(long, value_name = "SIZES")]
    pub size: Option<String>,
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
    if args.points == 0 || args.points > POINTS_MAX {
        bail!("bad --points {}: expected at least 1 and at most {POINTS_MAX}", args.points);
    }
    let sizes = args.size.as_deref().map(parse_sizes).transpose().context("--size")?;
    if let Some(plot) = &args.plot {
        // Checked before the trace is read, not after.
        crate::plot::check_path(plot)?;
        pagelab_trace::output::ensure_not_input(plot, &args.trace.trace)?;
    }
    let page_size = args.trace.page_size_bytes()?;
    if let Some(sizes) = &sizes {
        check_sizes_hold_a_page(sizes, page_size).context("--size")?;
    }
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
    ensure_requests(&source, requests, 0)?;
    if let MrcEngine::Sampled(s) = &engine {
        let rate = s.rate();
        match s.sampled_keys() {
            0 => bail!(
                "{source}: SHARDS kept none of the trace's keys (sampling rate {rate:.3e}), so there is no curve: raise \
                 --sample-rate, or use --sample-size, which keeps up to that many keys"
            ),
            k if k < FEW_SAMPLED_KEYS => note(&format!(
                "warning: SHARDS kept only {k} keys (rate {rate:.3e}): the curve has at most {k} steps; raise \
                 --sample-rate or use --sample-size for a finer one"
            )),
            _ => {}
        }
    }
    let (method, distinct, sampled, rate) = match &engine {
        MrcEngine::Exact(s) => ("exact".to_string(), s.distinct_keys() as u64, None, None),
        MrcEngine::Sampled(s) => {
            let method = match s.config().mode {
                ShardsMode::FixedRate { rate } => format!("shards fixed-rate R={}", fmt_f64(rate)),
                ShardsMode::FixedSize { samples_max } => format!("shards fixed-size s_max={samples_max}"),
            };
            let adj = if s.config().adjust { " adj" } else { "" };
            let est = (s.sampled_keys() as f64 / s.rate()).round() as u64;
            (format!("{method}{adj}"), est, Some(s.sampled_keys()), Some(s.rate()))
        }
    };
    let footprint = curve.size_pages_max().max(distinct).max(1);
    let sizes_pages = match &sizes {
        Some(sizes) => sizes.iter().map(|s| s.pages(page_size, distinct)).collect(),
        None => {
            if u64::from(args.points) > footprint {
                note(&format!(
                    "warning: --points {} asks for more sizes than the footprint's {footprint} pages: printing \
                     one point per size",
                    args.points
                ));
            }
            log_spaced_sizes(footprint, args.points)
        }
    };
    let points: Vec<MrcPoint> = sizes_pages
        .into_iter()
        .map(|size_pages| MrcPoint {
            size_pages,
            size_bytes: size_pages.saturating_mul(page_size),
            miss_ratio: curve.miss_ratio_at(size_pages),
        })
        .collect();
    if let Some(path) = &args.plot {
        write_atomically(path, &[&args.trace.trace], |tmp| {
            plot(&curve, footprint, page_size, &method, &source, tmp)
        })?;
        note(&format!("plot written to {}", path.display()));
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
        Format::Table => emit(&summary(&report)),
    }
}

/// `count` sizes from 1 to `max` pages, spaced logarithmically and strictly increasing (fewer when `max`
/// has fewer sizes: then every size from 1 to `max`). The last is `max`.
pub fn log_spaced_sizes(max: u64, count: u32) -> Vec<u64> {
    let max = max.max(1);
    let count = u64::from(count).clamp(1, max);
    if count == 1 {
        return vec![max];
    }
    let mut sizes = Vec::with_capacity(count as usize);
    let mut previous = 0;
    for i in 0..count {
        let geometric = (max as f64).powf(i as f64 / (count - 1) as f64).round() as u64;
        // At least one above the previous point, and room left for one size per later point.
        let size = geometric.max(previous + 1).min(max - (count - 1 - i));
        sizes.push(size);
        previous = size;
    }
    sizes
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

/// A sampling rate in the summary: five decimals, as always, down to 1e-3; below, where they say less (and
/// below 1e-5 nothing: `0.00000`), four significant digits in exponent form.
fn fmt_rate(rate: f64) -> String {
    if rate >= 1e-3 {
        format!("{rate:.5}")
    } else {
        format!("{rate:.3e}")
    }
}

fn summary(r: &MrcReport) -> String {
    let est = if r.sampled_keys.is_some() { " (estimated)" } else { "" };
    let mut out = format!(
        "trace          {}\nmethod         {}\nrequests       {} pages of {}\ndistinct pages {}{est} ({})\n",
        r.trace,
        r.method,
        r.requests,
        fmt_bytes(r.page_size_bytes),
        r.distinct_pages,
        fmt_bytes(r.distinct_pages.saturating_mul(r.page_size_bytes))
    );
    if let (Some(k), Some(rate)) = (r.sampled_keys, r.effective_rate) {
        out += &format!("sampled keys   {k} (effective rate {})\n", fmt_rate(rate));
    }
    out += &format!("speed          {:.1} M requests/s ({:.3} s)\n", r.requests_per_sec / 1e6, r.seconds);
    let mut t = Table::new(&[">cache size", ">pages", ">miss ratio"]);
    for p in &r.points {
        t.row(vec![fmt_bytes(p.size_bytes), p.size_pages.to_string(), format!("{:.4}", p.miss_ratio)]);
    }
    out.push('\n');
    out += &t.render();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small effective rate keeps its digits (1.6e-5 used to print as 0.00002, 1e-6 as 0.00000).
    #[test]
    fn small_rates_keep_their_digits() {
        assert_eq!(fmt_rate(0.33333333), "0.33333");
        assert_eq!(fmt_rate(1.6e-5), "1.600e-5");
        assert_eq!(fmt_rate(1e-6), "1.000e-6");
    }

    #[test]
    fn log_spaced_sizes_resolve_small_caches_and_never_repeat() {
        assert_eq!(log_spaced_sizes(1000, 4), [1, 10, 100, 1000]);
        assert_eq!(log_spaced_sizes(5, 20), [1, 2, 3, 4, 5], "every size of a small footprint, once");
        assert_eq!(log_spaced_sizes(7, 1), [7]);
        assert_eq!(log_spaced_sizes(0, 3), [1]);
        for (max, count) in [(1409, 20), (102_348, 20), (30, 29), (1 << 40, 1000)] {
            let s = log_spaced_sizes(max, count);
            assert_eq!(s.len() as u64, u64::from(count).min(max), "{max} {count}");
            assert!(s.windows(2).all(|w| w[0] < w[1]) && s[0] >= 1 && *s.last().unwrap() == max, "{s:?}");
        }
    }
}
