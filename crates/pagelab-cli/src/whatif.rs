//! `pagelab whatif`: MemRx's what-if prediction (papers/003) — one run at the memory it has, and the
//! runtime and miss ratio predicted at every larger size; `--validate` reruns every size and prints
//! predicted beside actual; `--trace` alone (no simulation) gives the exact LRU miss-ratio curve and a
//! runtime from a per-miss cost of the device model, for quick capacity planning.

use crate::output::{emit, print_json, write_atomically, Table};
use crate::plot::{write_figure, LineChart, Series};
use crate::progress;
use crate::simulate::{self, SimulateArgs};
use crate::traceio::TraceArgs;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use pagelab_core::units::{fmt_bytes, parse_bytes};
use pagelab_core::whatif::memrx::optimal_step;
use pagelab_core::whatif::MrcEngine;
use pagelab_core::{Nanos, PAGE_SIZE_BYTES};
use pagelab_sim::config::{SimConfig, WhatIfConfig};
use pagelab_sim::io::DiskRequest;
use pagelab_sim::metrics::{RunMetrics, WhatIfMetrics};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(
    mut_arg("memory", |a| a.default_value("128MiB")),
    mut_arg("workload", |a| a.default_value("fs-random")),
    // The command is the what-if: its own --up-to, --step and --vec say what `simulate --whatif` would.
    mut_arg("whatif", |a| a.hide(true)),
    after_help = "MemRx (Jones et al., UW-Madison TR 1573, 2006) answers \"how much faster would this run with more memory?\" from one run: a virtual extended cache (VEC) of evicted pages tells which memory increment would have turned each reload (a read of a page evicted earlier) into a hit, and a performance prediction module (PPM) measures what each reload cost in lost progress — the idle time, while reloads were outstanding, between one reload's completion and the next. Runtime(+X) = Runtime - the penalties of the reloads X would have avoided. The naive PPM (each reload's own service time) is shown beside the paper's thread-aware one.

The prediction is only as good as its assumptions, and the paper names them: a policy close to LRU (the VEC is an LRU queue of evictions), costs that do not change with memory (readahead does: with on-demand readahead FS Random's prediction is 18 % low, see `pagelab experiment memrx`; so does the drive's own read-ahead cache: on a trace, compare --device hdd:nocache), and runtime that is I/O wait for reloads (waits for swap-out writes are charged to no increment).

Examples:
  pagelab whatif --workload fs-random --memory 128MiB --up-to 512MiB --validate
  pagelab whatif --workload fs-seq --prefetch linux-2.6 --plot fs-seq.svg
  pagelab whatif --workload fs-seq:threads=8 --vec all --json
  pagelab whatif --workload vm-seq:size=256MiB,passes=10 --validate --jobs 2
  pagelab whatif --trace data/traces/lirs/multi1.trace.gz --memory 1MiB --up-to 4MiB --step 256KiB
  pagelab whatif --trace data/traces/lirs/multi1.trace.gz --replay --memory 8MiB --up-to 16MiB --step 1MiB

Runs accept every `pagelab simulate` flag (see its --help); --memory defaults to 128MiB and --workload to fs-random, where the paper's evaluation starts.")]
pub struct WhatIfArgs {
    #[command(flatten)]
    pub sim: SimulateArgs,
    /// The largest memory to predict (the whole server's memory, as --memory). Default: 4 x --memory.
    #[arg(long, value_name = "SIZE")]
    pub up_to: Option<String>,
    /// The memory increment: one VEC sub-queue (papers/003 §4.2: 32 MB).
    #[arg(long, default_value = "32MiB", value_name = "SIZE")]
    pub step: String,
    /// How a reload's increment is found: subqueue (the paper's sub-queues), exact (the precise eviction
    /// distance), shadow (Linux's refault distance: evictions since), or all.
    #[arg(long, default_value = "subqueue", value_name = "MODE", value_parser = ["subqueue", "exact", "shadow", "all"])]
    pub vec: String,
    /// Rerun the simulation at every predicted size and print predicted against actual, with the error.
    #[arg(long)]
    pub validate: bool,
    /// Simulations run at once by --validate, 1 to 1024 (default: the machine's cores).
    #[arg(long, requires = "validate")]
    pub jobs: Option<usize>,
    /// With --trace: simulate the trace's replay with MemRx instead of the quick curve.
    #[arg(long, requires = "trace")]
    pub replay: bool,
    /// Write a plot of predicted (and, with --validate, actual) runtime and miss ratio (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// A rerun at one size.
#[derive(Clone, Debug, Serialize)]
pub struct Actual {
    pub memory_bytes: u64,
    pub runtime_s: f64,
    pub miss_ratio: f64,
    pub workload_completed: bool,
}

#[derive(Serialize)]
struct WhatIfReport {
    workload: String,
    device: String,
    policy: String,
    prefetch: String,
    /// `simulation` (MemRx observing the run) or `trace` (the exact LRU curve and a per-miss cost).
    method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    whatif: Option<WhatIfMetrics>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    actual: Vec<Actual>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_estimate: Option<TraceEstimate>,
}

pub fn run(args: &WhatIfArgs) -> Result<()> {
    if let Some(plot) = &args.plot {
        crate::plot::check_path(plot)?;
        if let Some(trace) = &args.sim.trace {
            pagelab_trace::output::ensure_not_input(plot, trace)?;
        }
    }
    let memory_bytes = simulate::memory_bytes(&args.sim.memory)?;
    // Without --up-to, the what-if's own default (4 x memory) holds.
    let step = parse_bytes(&args.step).context("--step")?;
    let mut spec = format!("step={step},vec={}", args.vec);
    if let Some(text) = &args.up_to {
        let _ = write!(spec, ",up-to={}", parse_bytes(text).context("--up-to")?);
    }
    // Built from checked parts: only the step's alignment can be refused here.
    let whatif = WhatIfConfig::parse(&spec).map_err(|e| anyhow!("--step: {e}"))?;
    let steps = whatif.geometry(memory_bytes).map_err(|e| anyhow!("--up-to/--step: {e}"))?;
    if args.sim.trace.is_some() && !args.replay {
        refuse_unused_by_quick_curve(args)?;
        return trace_estimate(args, memory_bytes, whatif.step_bytes, steps.increments);
    }
    let mut sim = args.sim.clone();
    sim.whatif = Some(spec);
    let (cfg, workload) = simulate::prepare(&sim)?;
    let (describe, device, policy, prefetch) = (
        workload.describe(),
        cfg.device.to_string(),
        cfg.policy.cli_name().to_string(),
        cfg.prefetcher.spec(),
    );
    // A job that runs to completion, or a server asked for a fixed number of requests.
    let fixed_work = workload.runs_to_completion() || args.sim.requests.is_some();
    if args.validate && !fixed_work {
        bail!(
            "--validate needs a job of fixed work (fs-seq, fs-random, vm-seq, a trace replay, ...): `{describe}` \
             is a server that runs for --duration, so every rerun would take the same time; give it --requests N \
             to fix its work"
        );
    }
    let sizes: Vec<u64> =
        (0..=steps.increments as u64).map(|k| memory_bytes + k * whatif.step_bytes).collect();
    // `--jobs 0` is refused as everywhere else (rayon would have read 0 as "all cores").
    let threads = crate::limits::worker_threads(args.jobs, sizes.len())?;
    let pb = progress::bar(if args.validate { sizes.len() as u64 } else { 1 }, "whatif");
    let base = run_at(&sim, memory_bytes, cfg, workload)?;
    pb.inc(1);
    let predicted = base.whatif.clone().expect("a run with --whatif predicts");
    let mut actual = Vec::new();
    if args.validate {
        actual.push(Actual {
            memory_bytes,
            runtime_s: base.sim_seconds,
            miss_ratio: predicted.miss_ratio(),
            workload_completed: base.workload_completed,
        });
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.clamp(1, 64)).build()?;
        let reruns: Vec<Actual> = pool.install(|| {
            sizes[1..]
                .par_iter()
                .map(|&bytes| {
                    let a = rerun(&sim, bytes, whatif.step_bytes);
                    pb.inc(1);
                    a
                })
                .collect::<Result<Vec<_>>>()
        })?;
        actual.extend(reruns);
    }
    pb.finish_and_clear();
    if let Some(path) = &args.plot {
        write_atomically(path, &[], |p| write_figure(&charts(&predicted, &actual), p))?;
    }
    if args.sim.json {
        return print_json(&WhatIfReport {
            workload: describe,
            device,
            policy,
            prefetch,
            method: "simulation".into(),
            whatif: Some(predicted),
            actual,
            trace_estimate: None,
        });
    }
    let mut text = format!(
        "workload      {describe}\nserver        {} memory, policy {policy}, prefetch {prefetch}, device {device}\n\n",
        fmt_bytes(memory_bytes)
    );
    if !fixed_work {
        text += "note          a server workload: the runtimes are the measured period's, which more memory would \
                 finish sooner\n\n";
    }
    text += &table(&predicted, &actual);
    if let Some(path) = &args.plot {
        let _ = writeln!(text, "\nplot          {}", path.display());
    }
    emit(&text)
}

fn run_at(
    sim: &SimulateArgs,
    memory_bytes: u64,
    cfg: SimConfig,
    workload: Box<dyn pagelab_sim::workload::Workload>,
) -> Result<RunMetrics> {
    simulate::server(sim, cfg, workload)?.run().map_err(|e| anyhow!("at {}: {e}", fmt_bytes(memory_bytes)))
}

/// The run at `memory_bytes`, with MemRx counting its misses as the base run's did.
fn rerun(sim: &SimulateArgs, memory_bytes: u64, step_bytes: u64) -> Result<Actual> {
    let mut a = sim.clone();
    a.memory = memory_bytes.to_string();
    a.whatif = Some(format!("up-to={},step={step_bytes},vec=subqueue", memory_bytes + step_bytes));
    let (cfg, workload) = simulate::prepare(&a)?;
    let m = run_at(&a, memory_bytes, cfg, workload)?;
    let w = m.whatif.as_ref().expect("a run with --whatif predicts");
    Ok(Actual {
        memory_bytes,
        runtime_s: m.sim_seconds,
        miss_ratio: w.miss_ratio(),
        workload_completed: m.workload_completed,
    })
}

/// The prediction as a table per VEC, with the reruns beside it when there are any.
pub fn table(w: &WhatIfMetrics, actual: &[Actual]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "what-if       MemRx (papers/003): {} measured, {} page accesses, {} misses (miss ratio {:.4}); \
         {} increments",
        secs(w.runtime_s),
        w.accesses,
        w.misses,
        w.miss_ratio(),
        fmt_bytes(w.step_bytes)
    );
    for v in &w.vecs {
        let _ = writeln!(
            out,
            "\nVEC {} ({:.1} bytes a simulated page, {} in all); thread-aware PPM (idle time with reloads \
             outstanding: {}), naive PPM beside it",
            v.vec,
            v.vec_bytes_per_page,
            fmt_bytes(v.vec_bytes),
            secs(v.idle_with_reloads_s)
        );
        let validated = actual.len() == v.sizes.len();
        let mut headers = vec!["memory", "reloads", "predicted runtime", "naive", "predicted miss ratio"];
        if validated {
            headers.extend(["actual runtime", "error", "naive error", "actual miss ratio"]);
        }
        let mut t = Table::new(&headers);
        for (k, s) in v.sizes.iter().enumerate() {
            let mut row = vec![
                fmt_bytes(s.memory_bytes),
                if k == 0 { "(as run)".into() } else { s.reloads.to_string() },
                secs(s.predicted_runtime_s),
                secs(s.predicted_runtime_naive_s),
                format!("{:.4}", s.predicted_miss_ratio),
            ];
            if validated {
                let a = &actual[k];
                let err = |p: f64| format!("{:+.1} %", 100.0 * (p - a.runtime_s) / a.runtime_s.max(1e-12));
                row.extend([
                    secs(a.runtime_s),
                    err(s.predicted_runtime_s),
                    err(s.predicted_runtime_naive_s),
                    format!("{:.4}", a.miss_ratio),
                ]);
            }
            t.row(row);
        }
        out += &t.render();
        let _ = writeln!(
            out,
            "optimal operating point: {} (thread-aware), {} (naive): beyond it, more memory saves under 5 % of \
             the runtime",
            fmt_bytes(v.optimal_memory_bytes),
            fmt_bytes(v.optimal_memory_bytes_naive)
        );
        if validated {
            let runtimes: Vec<f64> = actual.iter().map(|a| a.runtime_s).collect();
            let _ = writeln!(
                out,
                "actual optimal point:    {}",
                fmt_bytes(actual[optimal_step(&runtimes)].memory_bytes)
            );
            if actual.iter().any(|a| !a.workload_completed) {
                let _ = writeln!(
                    out,
                    "note: some reruns were cut short by --duration: their runtimes are not the job's"
                );
            }
        }
    }
    out
}

fn secs(s: f64) -> String {
    format!("{s:.3} s")
}

fn charts(w: &WhatIfMetrics, actual: &[Actual]) -> Vec<LineChart> {
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let mut runtime = Vec::new();
    let mut misses = Vec::new();
    for v in &w.vecs {
        let pts = |f: &dyn Fn(&pagelab_sim::metrics::WhatIfSize) -> f64| -> Vec<(f64, f64)> {
            v.sizes.iter().map(|s| (mib(s.memory_bytes), f(s))).collect()
        };
        runtime.push(Series {
            name: format!("predicted ({}, thread-aware)", v.vec),
            points: pts(&|s| s.predicted_runtime_s),
        });
        runtime.push(Series {
            name: format!("predicted ({}, naive)", v.vec),
            points: pts(&|s| s.predicted_runtime_naive_s),
        });
        misses.push(Series {
            name: format!("predicted ({})", v.vec),
            points: pts(&|s| s.predicted_miss_ratio),
        });
    }
    if !actual.is_empty() {
        runtime.push(Series {
            name: "actual".into(),
            points: actual.iter().map(|a| (mib(a.memory_bytes), a.runtime_s)).collect(),
        });
        misses.push(Series {
            name: "actual".into(),
            points: actual.iter().map(|a| (mib(a.memory_bytes), a.miss_ratio)).collect(),
        });
    }
    vec![
        LineChart {
            title: "Runtime by memory size".into(),
            x_label: "memory (MiB)".into(),
            y_label: "runtime (s)".into(),
            series: runtime,
            log_x: false,
            y_range: None,
        },
        LineChart {
            title: "Miss ratio by memory size".into(),
            x_label: "memory (MiB)".into(),
            y_label: "miss ratio".into(),
            series: misses,
            log_x: false,
            y_range: None,
        },
    ]
}

/// The quick estimate of `--trace` alone.
#[derive(Clone, Debug, Serialize)]
struct TraceEstimate {
    trace: String,
    requests: u64,
    /// The device's mean random 4 KiB read, the cost of every miss.
    miss_cost_ms: f64,
    sizes: Vec<TraceSize>,
    optimal_memory_bytes: u64,
}

#[derive(Clone, Debug, Serialize)]
struct TraceSize {
    memory_bytes: u64,
    miss_ratio: f64,
    misses: f64,
    /// Misses × the per-miss cost: the I/O time alone, no CPU, no overlap.
    io_time_s: f64,
}

/// Random single-page reads the per-miss cost averages over.
const COST_SAMPLES: u32 = 2000;

/// The flags `--trace` without `--replay` reads: the trace, the memory sizes, the device whose reads cost
/// the misses, and the output.
const QUICK_CURVE_FLAGS: [&str; 10] = [
    "--trace",
    "--format",
    "--skip-bad-lines",
    "--seed",
    "--memory",
    "--up-to",
    "--step",
    "--device",
    "--json",
    "--plot",
];

/// Refuse every flag given that the quick curve would ignore (`--policy`, `--validate`, ...): it simulates
/// nothing, so they would change nothing.
fn refuse_unused_by_quick_curve(args: &WhatIfArgs) -> Result<()> {
    let unused: Vec<&str> =
        args.sim.given.iter().map(String::as_str).filter(|g| !QUICK_CURVE_FLAGS.contains(g)).collect();
    args.sim.refuse_given(
        &unused,
        "--trace without --replay",
        "its quick curve is the trace's exact LRU miss-ratio curve, with no simulation (add --replay to \
         simulate the replay)",
    )
}

/// `--trace` without `--replay`: the exact LRU miss-ratio curve at each size (all of memory as cache) and
/// the I/O time its misses cost at the device's mean random-read time.
fn trace_estimate(args: &WhatIfArgs, memory_bytes: u64, step_bytes: u64, increments: u32) -> Result<()> {
    let trace = args.sim.trace.as_ref().expect("a trace");
    let mut ta = TraceArgs::new(trace, &args.sim.format, false);
    ta.read.skip_bad_lines = args.sim.skip_bad_lines;
    let mut engine = MrcEngine::new(None)?;
    let source = crate::mrc::feed(&ta, Some(args.sim.seed), &mut engine)?;
    let curve = engine.curve();
    if curve.requests() == 0 {
        bail!("{trace}: no requests");
    }
    let device_name = args.sim.device.as_deref().unwrap_or(simulate::SHARED_DEFAULT_DEVICE);
    let spec = pagelab_sim::device::DeviceSpec::parse(device_name).map_err(|e| anyhow!("--device: {e}"))?;
    let mut device = spec.build();
    let sectors_per_page = (PAGE_SIZE_BYTES / 512) as u32;
    let span = device.capacity_sectors() / sectors_per_page as u64;
    let mut now = Nanos::ZERO;
    let mut total = Nanos::ZERO;
    for i in 0..COST_SAMPLES {
        // Uniform random pages of the disk, a fixed sequence per seed.
        let page =
            pagelab_core::hash::mix64(args.sim.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64) % span;
        let t =
            device.service(now, &DiskRequest::read(page * sectors_per_page as u64, sectors_per_page)).total();
        now += t;
        total += t;
    }
    let cost_s = total.as_secs_f64() / COST_SAMPLES as f64;
    let sizes: Vec<TraceSize> = (0..=increments as u64)
        .map(|k| {
            let bytes = memory_bytes + k * step_bytes;
            let pages = bytes / PAGE_SIZE_BYTES;
            let misses = curve.misses_at(pages);
            TraceSize {
                memory_bytes: bytes,
                miss_ratio: curve.miss_ratio_at(pages),
                misses,
                io_time_s: misses * cost_s,
            }
        })
        .collect();
    let io: Vec<f64> = sizes.iter().map(|s| s.io_time_s).collect();
    let est = TraceEstimate {
        trace: source,
        requests: curve.requests(),
        miss_cost_ms: cost_s * 1e3,
        optimal_memory_bytes: sizes[optimal_step(&io)].memory_bytes,
        sizes,
    };
    if let Some(path) = &args.plot {
        let pts = |f: &dyn Fn(&TraceSize) -> f64| {
            est.sizes.iter().map(|s| (s.memory_bytes as f64 / (1 << 20) as f64, f(s))).collect()
        };
        let panels = vec![
            LineChart {
                title: "I/O time by memory size (exact LRU curve x per-miss cost)".into(),
                x_label: "memory (MiB)".into(),
                y_label: "I/O time (s)".into(),
                series: vec![Series { name: "estimate".into(), points: pts(&|s| s.io_time_s) }],
                log_x: false,
                y_range: None,
            },
            LineChart {
                title: "Miss ratio by memory size (exact LRU)".into(),
                x_label: "memory (MiB)".into(),
                y_label: "miss ratio".into(),
                series: vec![Series { name: "exact LRU".into(), points: pts(&|s| s.miss_ratio) }],
                log_x: false,
                y_range: None,
            },
        ];
        write_atomically(path, &[trace], |p| write_figure(&panels, p))?;
    }
    if args.sim.json {
        return print_json(&WhatIfReport {
            workload: est.trace.clone(),
            device: spec.to_string(),
            policy: "lru".into(),
            prefetch: "none".into(),
            method: "trace".into(),
            whatif: None,
            actual: Vec::new(),
            trace_estimate: Some(est),
        });
    }
    let mut text = format!(
        "trace         {} ({} requests)\nmethod        the exact LRU miss-ratio curve (all of memory as cache, no \
         simulation) x {:.2} ms a miss ({}'s mean random 4 KiB read); no CPU time, no overlap of I/O\n\n",
        est.trace,
        est.requests,
        est.miss_cost_ms,
        spec
    );
    let mut t = Table::new(&["memory", "miss ratio", "misses", "I/O time"]);
    for s in &est.sizes {
        t.row(vec![
            fmt_bytes(s.memory_bytes),
            format!("{:.4}", s.miss_ratio),
            format!("{:.0}", s.misses),
            secs(s.io_time_s),
        ]);
    }
    text += &t.render();
    let _ = writeln!(
        text,
        "optimal operating point: {} (beyond it, more memory saves under 5 % of the I/O time)",
        fmt_bytes(est.optimal_memory_bytes)
    );
    emit(&text)
}
