//! `memrx`: MemRx's evaluation (papers/003 §5): predicted against actual runtime and miss ratio from 128 MB
//! to 512 MB in 32 MB steps (Figures 3 and 8), the naive against the thread-aware PPM as threads grow
//! (Figure 4), readahead's effect on FS Random (Figure 5) and the VEC's memory (Table 5).
//!
//! Each workload runs once at 128 MiB with MemRx observing (every VEC mode at once: the paper's sub-queues,
//! the exact distance, Linux's refault distance; both PPMs), and again at each larger size without a
//! prediction, to measure what actually happens ("To judge the accuracy of the predictions, we re-run the
//! workload at each of the memory increments for which performance was predicted", §5.1).
//!
//! The system is the shared model with what the paper states of its testbed (§5): one 2.4 GHz Pentium 4
//! (`cpus = 1`), the Western Digital WD1200BB (`wd1200bb`), memory limited to each size ("a simple
//! in-kernel balloon"), Linux's page cache. The paper ran Linux 2.4.30; pagelab's kernel is 2.6's memory
//! model and two-list policy, with 2.6.12–2.6.18's readahead (`linux-2.6`) as the readahead the paper's
//! kernel had (2.4's `generic_file_readahead` is not modelled). Readahead is on except in FS Random's
//! no-readahead run ("Linux was modified to disable readahead for all I/O", §5.1.2). The swap area is 1 GiB
//! at every size (as `vm-sequential` fixes it: the paper does not give it, and a size that followed memory
//! would move with the variable under study).
//!
//! The criteria were fixed before any run (the issue's): the largest error of predicted runtime over all
//! sizes within 5 % of actual for FS Sequential, FS Random without readahead and FS Sequential-MT (the paper
//! achieves 10 %); the optimal operating point within one increment; the CPU-bound simulator predicted to
//! gain almost nothing; the naive PPM's error growing with threads while the thread-aware one stays flat;
//! with readahead, FS Random's error explained rather than hidden; at most 24 bytes of VEC per simulated
//! page (the paper: 32).

//!
//! Choices the paper leaves open, and why:
//! - FS Random's readahead. 2.6.18's `page_cache_readahead` reads nothing around a random one-page read
//!   (8 pages read ahead in the whole FS Random run), so with it readahead cannot change with memory and
//!   Figure 5's effect cannot appear. The paper's 2.4.30 read ahead around such reads, as today's
//!   on-demand readahead (pagelab's `linux`) does (32,550 pages); the experiment runs FS Random with both,
//!   and judges Figure 5 on the on-demand one.
//! - FS Sequential-MT's threads share one scan (`fs-seq:threads=N`, the workload's doc); `scan=split`
//!   (each thread its own part) runs beside it as a diagnostic, not as the paper's workload.
//! - Figure 4's naive error is taken before the prediction is clamped at zero: with two threads or more
//!   its penalties add up to more than the runtime, and a clamped error would stop at 100 %.
//!
//! Measured (seed 1, full run: 182 simulations, 10–21 s on 2 cores; rerun 2026-11-28 since the elevator
//! chooses at a completion before the handlers it woke continue, which moved the rows marked †; rerun
//! 2026-12-03 with 2.6's congestion wait, which moved the rows marked ‡: a task that finds no page to take,
//! or a writer over its dirty limit, now sleeps until a write request is freed below the queue's
//! congestion-off mark or 100 ms pass, not until the next completion. VM Sequential at 128 MiB 410.2 →
//! 513.7 s, VM Random 1,568.0 → 1,581.3 s, dbench 6.6 → 7.4 s, mogrify 36.6 → 42.2 s (this table had
//! 35.7 s, stale by then), cpu-sim 36.9 → 36.4 s; no verdict moved), the sub-queue VEC and the
//! thread-aware PPM; runtime at 128 MiB → at 512 MiB (predicted), largest error:
//!
//! | workload | 128 MiB | 512 MiB (predicted) | largest error |
//! |---|---:|---:|---:|
//! | FS Sequential | 53.7 s | 6.6 s (6.6 s) | +0.0 % |
//! | FS Random, no readahead | 521.6 s | 378.7 s (378.6 s) | −0.3 % (192 MiB) |
//! | FS Random, 2.6.18 readahead | 521.6 s | 378.7 s (378.5 s) | −0.3 % (192 MiB) |
//! | FS Random, on-demand readahead | 607.4 s | 370.7 s (352.9 s) | −17.6 % (224 MiB) |
//! | FS Sequential-MT, 2–16 threads † | 53.7–53.8 s | 6.5–6.6 s | ≤ 0.5 % |
//! | FS Sequential-MT, split scans (4) | 56.6 s | 6.4 s (6.4 s) | +520.6 % (256 MiB) |
//! | VM Sequential ‡ | 513.7 s | 0.2 s (13.4 s) | +6,711 % (288 MiB) |
//! | VM Random ‡ | 1,581.3 s | 0.2 s (13.3 s) | +8,748 % (288 MiB) |
//! | dbench (20 clients) ‡ | 7.4 s | 4.7 s (4.8 s) | +16.0 % (160 MiB) |
//! | mogrify ‡ | 42.2 s | 3.8 s (9.6 s) | +150.9 % (320 MiB) |
//! | cpu-sim ‡ | 36.4 s | 30.1 s (30.5 s) | −13.9 % (160 MiB) |
//!
//! Every criterion fixed before the runs holds but one: FS Sequential, FS Random without readahead and FS
//! Sequential-MT within 5 %; the optimal operating point within one increment for all 13 workloads
//! (dbench 192 against 160 MiB, mogrify 224 against 256 MiB, the split scans 288 against 256 MiB, VM
//! Random exact, 256 MiB, since the congestion wait, 288 against 256 before; cpu-sim one increment apart); the CPU-bound simulator is not CPU-bound at 128 MiB: it gains
//! 17.3 % from 512 MiB, predicted 16.2 % (it gained 2.6 %, predicted 1.1 %, before the two lists kept
//! anonymous pages as 2.6.11 does: they start on the active list and are kept by their accessed bit, so
//! the first reclaim finds every bit set, clears them all, and then evicts in the order of first touch,
//! the simulator's hot part first; 412 of its 445 swap-ins are hot pages, read back one by one; the
//! paper's 2.4.30 reclaimed anonymous memory its own way, which pagelab does not model); the
//! naive PPM's error 0 % at one thread and
//! 737 %, 2,200 %, 5,153 %, 11,119 % at 2, 4, 8, 16 (before clamping) while the thread-aware PPM's stays
//! at 0.0–0.5 %; with on-demand readahead FS Random predicted too low (−17.6 %), without readahead within
//! 0.3 %; 23.0 bytes of VEC a simulated page.
//!
//! What the errors are, from the runs:
//! - The microbenchmarks' predictions are near exact because the simulator's runtime is additive as the
//!   PPM's model is (`C + W + W_miss`: no CPU cost of thrashing, `C_miss`, beyond the page copies, which
//!   hits pay too). The paper saw FS Sequential predicted slightly too high for that reason; here it is not.
//! - VM Sequential, VM Random and mogrify write their anonymous memory: at 128 MiB the task also waits for
//!   swap-out writes (the first pass's zero-filled pages must leave before others can come), idle time with
//!   no reload outstanding, which the PPM charges to no increment (13.4 s of VM Sequential's 513.7 s; about
//!   6 s of mogrify's). Once the allocation fits, none of those writes happen, so the prediction stays
//!   above the actual by that much: the paper's VM Sequential error (§5.1.2) has the same origin, the
//!   swap traffic that the PPM does not model, though its shape differs (the paper's runtime fell
//!   gradually; here it is flat to 256 MiB and falls at 288 MiB).
//! - FS Random with on-demand readahead: readahead reads a window around some random misses; while the
//!   workload thrashes more of that window is missing and is read usefully, so the larger memories lose
//!   a benefit the prediction assumes they keep — the paper's §5.1.2 effect, in the paper's direction
//!   (predicted too low), larger in size (−17.6 % against the paper's "slightly").
//! - Split scans: a thread whose part hits in memory runs ahead of the others, so the distances the VEC
//!   saw at 128 MiB (every page reused 256 MiB later) are not the distances at 256 MiB, where the parts
//!   mostly hit: VEC error of the kind §5.1.4 describes, from a workload that is not a stack workload.
//! - dbench at 160 MiB: the VEC puts some of its reloads one increment deeper than the rerun needs (the
//!   paper's "entries in the VEC are pushed too deep", §5.1.5): the predicted optimal point is 192 MiB,
//!   the actual 160 MiB.

use super::{Chart, Check, Experiment, Findings, Job, Row, Value, Verdict};
use crate::config::{SimConfig, WhatIfConfig};
use crate::error::SimError;
use crate::server::simulate;
use crate::workload::spec::parse_workload;
use pagelab_core::prefetch::AnyPrefetcher;
use pagelab_core::whatif::memrx::{optimal_step, PpmMode};
use pagelab_core::whatif::vec::{SubQueueVec, VecGeometry, VecMode};
use pagelab_core::PAGE_SIZE_BYTES;
use std::fmt::Write as _;

pub struct MemRxExperiment;

/// The paper's sizes, MiB: from 128 in 32 MB increments up to 512.
const BASE_MIB: u64 = 128;
const STEP_MIB: u64 = 32;
const TOP_MIB: u64 = 512;
const QUICK_SIZES_MIB: [u64; 4] = [128, 256, 288, 512];
const SWAP_BYTES: u64 = 1 << 30;
/// The issue's accuracy criterion for the microbenchmarks (the paper reaches 10 %).
const ERROR_MAX: f64 = 0.05;
/// Figure 4's thread counts (our copy lost the figure; 1 to 16, as the issue asks).
const THREADS: [u32; 5] = [1, 2, 4, 8, 16];

/// One workload as the experiment runs it.
#[derive(Clone, Debug)]
struct Case {
    /// The name in `results.csv` (`workload`).
    name: String,
    spec: String,
    /// The prefetcher (`--prefetch`): `linux-2.6` (the kernel's), `linux` (on-demand), `none`.
    readahead: &'static str,
    threads: u32,
}

/// 2.6.12–2.6.18's readahead, the kernel pagelab models for the papers.
const KERNEL_READAHEAD: &str = "linux-2.6";

fn case(name: &str, spec: &str, readahead: &'static str, threads: u32) -> Case {
    Case { name: name.into(), spec: spec.into(), readahead, threads }
}

fn cases(quick: bool) -> Vec<Case> {
    let k = KERNEL_READAHEAD;
    let mut v = vec![case("fs-seq", "fs-seq", k, 1), case("fs-random-no-readahead", "fs-random", "none", 1)];
    if quick {
        v.push(case("fs-seq-mt", "fs-seq:threads=4", k, 4));
        return v;
    }
    v.push(case("fs-random", "fs-random", k, 1));
    // 2.6.18's readahead reads nothing around a random one-page read; the paper's 2.4.30 did, and so does
    // today's on-demand readahead: Figure 5's effect needs it (the module doc).
    v.push(case("fs-random-ondemand", "fs-random", "linux", 1));
    for t in &THREADS[1..] {
        v.push(case("fs-seq-mt", &format!("fs-seq:threads={t}"), k, *t));
    }
    // Not the paper's: the threads scan parts of their own, a workload whose reuse distances depend on the
    // memory size (the module doc of `workload::memrx`), to show the VEC error it causes.
    v.push(case("fs-seq-mt-split", "fs-seq:threads=4,scan=split", k, 4));
    v.extend([
        case("vm-seq", "vm-seq:size=256MiB,passes=10", k, 1),
        case("vm-random", "vm-random:size=256MiB,passes=3", k, 1),
        case("dbench", "dbench", k, 20),
        case("mogrify", "mogrify", k, 1),
        case("cpu-sim", "cpu-sim", k, 1),
    ]);
    v
}

fn sizes(quick: bool) -> Vec<u64> {
    if quick {
        QUICK_SIZES_MIB.to_vec()
    } else {
        (BASE_MIB..=TOP_MIB).step_by(STEP_MIB as usize).collect()
    }
}

impl Experiment for MemRxExperiment {
    fn name(&self) -> &'static str {
        "memrx"
    }

    fn title(&self) -> &'static str {
        "MemRx: predicted vs actual runtime and miss ratio for larger memories, from one run at 128 MB"
    }

    fn description(&self) -> &'static str {
        "Runs MemRx's microbenchmarks (FS Sequential, FS Random with and without readahead, FS Sequential-MT \
         with 1-16 threads, VM Sequential, VM Random) and application models (a dbench-like file server with \
         20 clients, a mogrify-like image scaler, a CPU-bound simulator) once at 128 MiB with MemRx observing, \
         and again at every 32 MiB step up to 512 MiB, on the paper's WD1200BB disk and one CPU; sets \
         predicted beside actual (papers/003 Figures 3, 4, 5, 8, Table 5). The full run is 182 simulations; \
         --quick runs three workloads at four sizes."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        let mut jobs = Vec::new();
        for c in cases(quick) {
            for mib in sizes(quick) {
                let c2 = c.clone();
                let label = format!("{} at {mib} MiB", c.spec);
                jobs.push(Job::new(label, move || run(&c2, mib, quick, seed)));
            }
        }
        jobs
    }

    fn result_rows(&self, rows: &[Row]) -> Vec<Row> {
        let mut out = Vec::new();
        for base in rows.iter().filter(|r| r.text("role") == "base") {
            let key = base.text("case_key");
            let actual =
                |mib: f64| rows.iter().find(|r| r.text("case_key") == key && r.num("memory_mib") == mib);
            for vec in VecMode::ALL {
                for ppm in PpmMode::ALL {
                    let Some((_, runtime)) =
                        base.series.iter().find(|(n, _)| *n == series_key("runtime", vec, Some(ppm)))
                    else {
                        continue;
                    };
                    let misses = base.series.iter().find(|(n, _)| *n == series_key("miss_ratio", vec, None));
                    for (k, &(mib, predicted)) in runtime.iter().enumerate() {
                        let Some(a) = actual(mib) else { continue };
                        let predicted_miss = misses.map_or(f64::NAN, |(_, m)| m[k].1);
                        out.push(Row {
                            params: vec![
                                ("workload".into(), base.text("workload").into()),
                                ("ppm".into(), ppm.name().into()),
                                ("vec".into(), vec.name().into()),
                                ("readahead".into(), base.text("readahead").into()),
                                ("threads".into(), Value::Num(base.num("threads"))),
                                ("memory_bytes".into(), Value::Num(mib * (1 << 20) as f64)),
                            ],
                            metrics: vec![
                                ("predicted_runtime_s".into(), predicted),
                                ("actual_runtime_s".into(), a.metric("runtime_s")),
                                ("predicted_miss_ratio".into(), predicted_miss),
                                ("actual_miss_ratio".into(), a.metric("miss_ratio")),
                            ],
                            series: Vec::new(),
                        });
                    }
                }
            }
        }
        out
    }

    fn analyze(&self, rows: &[Row], quick: bool) -> Findings {
        let table = self.result_rows(rows);
        let mut checks = Vec::new();
        let mut summary = Vec::new();
        let (sq, ta) = (VecMode::SubQueue, PpmMode::ThreadAware);
        let aware_series = series_key("runtime", sq, Some(ta));
        // The sub-queue VEC's thread-aware prediction of a one-thread case, against its reruns.
        let errors = |name: &str| size_errors(rows, &format!("{name}-1"), &aware_series);

        // Accuracy of the microbenchmarks.
        let mut accuracy = Vec::new();
        for (name, label) in
            [("fs-seq", "FS Sequential"), ("fs-random-no-readahead", "FS Random (readahead off)")]
        {
            let e = errors(name);
            let (at, w) = worst_error(&e);
            summary.push((format!("max_error_{name}"), largest_error(&e)));
            accuracy.push(format!("{label} {} (at {at} MiB)", super::signed_pct(w, 1)));
            checks.push(Check {
                claim: format!(
                    "{label}: predicted runtime within 5 % of actual at every size (the paper: 10 %)"
                ),
                source: "papers/003 §5.1.1, Figure 3; the issue's criterion".into(),
                measured: format!("largest error {} at {at} MiB", super::signed_pct(w, 1)),
                verdict: verdict_within(largest_error(&e), ERROR_MAX),
            });
        }
        let thread_counts: &[u32] = if quick { &[4] } else { &THREADS };
        let mt: Vec<(u32, f64, f64)> = thread_counts
            .iter()
            .map(|&t| {
                let key = mt_key(t);
                let error = |series: &str| largest_error(&size_errors(rows, &key, series));
                (t, error(&aware_series), error(NAIVE_UNCLAMPED))
            })
            .collect();
        let mt_worst = mt.iter().map(|m| m.1).fold(0.0, f64::max);
        checks.push(Check {
            claim: "FS Sequential-MT: predicted runtime within 5 % of actual at every size and thread count"
                .into(),
            source: "papers/003 §5.1.1, Figure 4; the issue's criterion".into(),
            measured: mt
                .iter()
                .map(|(t, e, _)| format!("{t} threads {:.1} %", 100.0 * e))
                .collect::<Vec<_>>()
                .join(", "),
            verdict: verdict_within(mt_worst, ERROR_MAX),
        });
        if !quick {
            let first = mt.first().copied().unwrap_or((1, f64::NAN, f64::NAN));
            let last = mt.last().copied().unwrap_or((16, f64::NAN, f64::NAN));
            let naive_grows =
                mt.windows(2).all(|w| w[1].2 >= w[0].2 - 0.01) && last.2 > 2.0 * first.2.max(0.01);
            let aware_flat = mt.iter().map(|m| m.1).fold(0.0, f64::max)
                - mt.iter().map(|m| m.1).fold(1.0, f64::min)
                <= 0.05;
            checks.push(Check {
                claim: "the naive PPM's error grows with the number of threads while the thread-aware PPM's stays flat"
                    .into(),
                source: "papers/003 §5.1.1, Figure 4".into(),
                measured: mt
                    .iter()
                    .map(|(t, a, n)| format!("{t}: {:.1} % / {:.1} %", 100.0 * a, 100.0 * n))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + " (thread-aware / naive before clamping at zero, largest error)",
                verdict: match (naive_grows, aware_flat) {
                    (true, true) => Verdict::Reproduced,
                    (true, false) | (false, true) => Verdict::Partial,
                    _ => Verdict::NotReproduced,
                },
            });
            // Figure 5: with readahead, FS Random's prediction is too low (readahead works better while the
            // workload thrashes); without it, the prediction matches. Judged with the on-demand readahead,
            // which reads around random misses as the paper's 2.4.30 did; 2.6.18's reads nothing there.
            let on = errors("fs-random-ondemand");
            let off = errors("fs-random-no-readahead");
            let kernel = errors("fs-random");
            let (at_on, w_on) = worst_error(&on);
            checks.push(Check {
                claim: "with readahead FS Random's predicted runtime is too low, and without readahead the \
                        prediction matches (readahead is more effective while the workload thrashes)"
                    .into(),
                source: "papers/003 §5.1.2, Figure 5".into(),
                measured: format!(
                    "largest error {} (at {at_on} MiB) with on-demand readahead, {:.1} % without; {:.1} % \
                     with 2.6.18's, which reads nothing ahead of random reads",
                    super::signed_pct(w_on, 1),
                    100.0 * largest_error(&off),
                    100.0 * largest_error(&kernel)
                ),
                verdict: if w_on < 0.0 && largest_error(&on) > largest_error(&off) {
                    Verdict::Reproduced
                } else if largest_error(&on) > largest_error(&off) {
                    Verdict::Partial
                } else {
                    Verdict::NotReproduced
                },
            });
        }

        // The optimal operating point, predicted against actual, for every workload.
        let mut optimal = Vec::new();
        let mut all_within = true;
        for base in rows.iter().filter(|r| r.text("role") == "base") {
            let key = base.text("case_key");
            let actual: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.text("case_key") == key)
                .map(|r| (r.num("memory_mib"), r.metric("runtime_s")))
                .collect();
            let Some((_, predicted)) =
                base.series.iter().find(|(n, _)| *n == series_key("runtime", sq, Some(ta)))
            else {
                continue;
            };
            let predicted: Vec<(f64, f64)> =
                predicted.iter().copied().filter(|(m, _)| actual.iter().any(|a| a.0 == *m)).collect();
            let p = predicted[optimal_step(&predicted.iter().map(|x| x.1).collect::<Vec<_>>())].0;
            let a = actual[optimal_step(&actual.iter().map(|x| x.1).collect::<Vec<_>>())].0;
            let within = (p - a).abs() <= STEP_MIB as f64 || quick && (p - a).abs() <= 128.0;
            all_within &= within;
            summary.push((format!("optimal_mib_predicted_{key}"), p));
            summary.push((format!("optimal_mib_actual_{key}"), a));
            optimal.push(format!("{key} {p} / {a}"));
        }
        checks.push(Check {
            claim: "the optimal operating point identified within one increment (32 MB)".into(),
            source: "papers/003 §5.1.1, §5.1.5 (the issue's criterion)".into(),
            measured: optimal.join(", ") + " MiB (predicted / actual)",
            verdict: if all_within { Verdict::Reproduced } else { Verdict::Partial },
        });

        if !quick {
            let cpu: Vec<(f64, f64)> = table
                .iter()
                .filter(|r| {
                    r.text("workload") == "cpu-sim"
                        && r.text("vec") == sq.name()
                        && r.text("ppm") == ta.name()
                })
                .map(|r| (r.metric("predicted_runtime_s"), r.metric("actual_runtime_s")))
                .collect();
            let (first, last) = (cpu.first().copied(), cpu.last().copied());
            if let (Some(first), Some(last)) = (first, last) {
                let predicted_gain = 1.0 - last.0 / first.0;
                let actual_gain = 1.0 - last.1 / first.1;
                checks.push(Check {
                    claim: "the CPU-bound simulator is predicted to gain almost nothing from more memory"
                        .into(),
                    source: "papers/003 §5.1.5, Figure 8".into(),
                    measured: format!(
                        "predicted gain at 512 MiB {:.1} %, actual {:.1} %",
                        100.0 * predicted_gain,
                        100.0 * actual_gain
                    ),
                    verdict: if predicted_gain < 0.1 && (predicted_gain - actual_gain).abs() < 0.05 {
                        Verdict::Reproduced
                    } else if predicted_gain < 0.1 {
                        Verdict::Partial
                    } else {
                        Verdict::NotReproduced
                    },
                });
            }
        }

        // Table 5: the VEC's memory for the paper's configurations.
        let table5 = table_5();
        let per_page_max = table5.iter().map(|t| t.3).fold(0.0, f64::max);
        summary.push(("vec_bytes_per_page_max".into(), per_page_max));
        checks.push(Check {
            claim: "VEC state per simulated page at most 24 bytes (the paper's prototype: 32)".into(),
            source: "papers/003 §5.3, Table 5; the issue's goal".into(),
            measured: format!("{per_page_max:.1} bytes (sub-queue VEC, Table 5's configurations)"),
            verdict: if per_page_max <= 24.0 { Verdict::Reproduced } else { Verdict::NotReproduced },
        });
        let markdown = markdown(rows, &table, &accuracy, &table5, quick);
        Findings { summary, charts: charts(rows, quick), checks, markdown }
    }
}

/// The series of MemRx's Figure 4: the naive PPM's predictions before they are clamped at zero (with
/// several threads its penalties add up to more than the runtime, and a clamped error stops at 100 %).
const NAIVE_UNCLAMPED: &str = "runtime_unclamped/subqueue/naive";

/// The case key of FS Sequential-MT at `threads` (FS Sequential itself at one thread).
fn mt_key(threads: u32) -> String {
    if threads == 1 {
        "fs-seq-1".into()
    } else {
        format!("fs-seq-mt-{threads}")
    }
}

/// The signed relative error of the base run's prediction `series` for case `key` at each size rerun,
/// `(MiB, (predicted − actual) / actual)`, smallest size first; empty when the case did not run.
fn size_errors(rows: &[Row], key: &str, series: &str) -> Vec<(f64, f64)> {
    let base = rows.iter().find(|r| r.text("case_key") == key && r.text("role") == "base");
    let Some((_, predicted)) = base.and_then(|b| b.series.iter().find(|(n, _)| n == series)) else {
        return Vec::new();
    };
    rows.iter()
        .filter(|r| r.text("case_key") == key)
        .filter_map(|r| {
            let (mib, actual) = (r.num("memory_mib"), r.metric("runtime_s"));
            let p = predicted.iter().find(|(m, _)| *m == mib)?.1;
            Some((mib, (p - actual) / actual))
        })
        .collect()
}

/// The largest error's magnitude; NaN when nothing was measured (no verdict passes on it).
fn largest_error(e: &[(f64, f64)]) -> f64 {
    if e.is_empty() {
        return f64::NAN;
    }
    e.iter().map(|(_, x)| x.abs()).fold(0.0, f64::max)
}

/// The size and the error of the largest error (NaN for none).
fn worst_error(e: &[(f64, f64)]) -> (f64, f64) {
    e.iter().copied().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).unwrap_or((f64::NAN, f64::NAN))
}

fn verdict_within(error: f64, max: f64) -> Verdict {
    if error <= max {
        Verdict::Reproduced
    } else if error <= 2.0 * max {
        Verdict::Partial
    } else {
        Verdict::NotReproduced
    }
}

/// The name of a base row's series: `runtime/subqueue/thread-aware`, `miss_ratio/exact`.
fn series_key(what: &str, vec: VecMode, ppm: Option<PpmMode>) -> String {
    match ppm {
        Some(p) => format!("{what}/{}/{}", vec.name(), p.name()),
        None => format!("{what}/{}", vec.name()),
    }
}

/// One simulation: the base run (at 128 MiB, with MemRx predicting every size) or a rerun.
fn run(c: &Case, mib: u64, quick: bool, seed: u64) -> Result<Row, SimError> {
    let base = mib == BASE_MIB;
    let top = if quick { *QUICK_SIZES_MIB.last().expect("sizes") } else { TOP_MIB };
    let whatif = if base {
        WhatIfConfig { up_to_bytes: Some(top << 20), step_bytes: STEP_MIB << 20, vecs: VecMode::ALL.to_vec() }
    } else {
        // A rerun counts its misses as the base run does (MemRx's own count), predicting one step.
        WhatIfConfig {
            up_to_bytes: Some((mib + STEP_MIB) << 20),
            step_bytes: STEP_MIB << 20,
            vecs: vec![VecMode::SubQueue],
        }
    };
    let m = simulate(config(c, mib << 20, whatif, seed)?, parse_workload(&c.spec)?)?;
    if !m.workload_completed {
        return Err(SimError::invalid(
            format!("{} in {mib} MiB", c.spec),
            "expected it to run to completion",
        ));
    }
    let w = m.whatif.as_ref().expect("the run predicts");
    let mut row = Row {
        params: vec![
            ("case_key".into(), format!("{}-{}", c.name, c.threads).into()),
            ("workload".into(), c.name.as_str().into()),
            ("spec".into(), c.spec.as_str().into()),
            ("readahead".into(), c.readahead.into()),
            ("threads".into(), Value::Num(c.threads as f64)),
            ("memory_mib".into(), mib.into()),
            ("role".into(), if base { "base" } else { "rerun" }.into()),
        ],
        metrics: vec![
            ("runtime_s".into(), m.sim_seconds),
            ("miss_ratio".into(), w.miss_ratio()),
            ("misses".into(), w.misses as f64),
            ("accesses".into(), w.accesses as f64),
            ("disk_reads".into(), m.disk.read_requests as f64),
            ("pages_read".into(), m.disk.pages_read as f64),
            ("swap_outs".into(), m.writes.swap_outs as f64),
            ("cpu_utilization".into(), m.cpu_utilization),
        ],
        series: Vec::new(),
    };
    if base {
        for v in &w.vecs {
            let vec = VecMode::parse(&v.vec).expect("a VEC the run named");
            let mib_of = |b: u64| (b >> 20) as f64;
            row.metrics.push((format!("idle_with_reloads_s_{}", v.vec), v.idle_with_reloads_s));
            row.metrics.push((format!("vec_bytes_per_page_{}", v.vec), v.vec_bytes_per_page));
            for ppm in PpmMode::ALL {
                let pts = v
                    .sizes
                    .iter()
                    .map(|s| {
                        let r = match ppm {
                            PpmMode::ThreadAware => s.predicted_runtime_s,
                            PpmMode::Naive => s.predicted_runtime_naive_s,
                        };
                        (mib_of(s.memory_bytes), r)
                    })
                    .collect();
                row.series.push((series_key("runtime", vec, Some(ppm)), pts));
            }
            if vec == VecMode::SubQueue {
                let mut saved = 0.0;
                let unclamped = v
                    .sizes
                    .iter()
                    .map(|s| {
                        saved += s.naive_penalty_s;
                        (mib_of(s.memory_bytes), w.runtime_s - saved)
                    })
                    .collect();
                row.series.push((NAIVE_UNCLAMPED.into(), unclamped));
            }
            let misses = v.sizes.iter().map(|s| (mib_of(s.memory_bytes), s.predicted_miss_ratio)).collect();
            row.series.push((series_key("miss_ratio", vec, None), misses));
        }
    }
    Ok(row)
}

/// The paper's testbed (the module doc) with `memory_bytes` and MemRx observing as `whatif` says.
fn config(c: &Case, memory_bytes: u64, whatif: WhatIfConfig, seed: u64) -> Result<SimConfig, SimError> {
    Ok(SimConfig {
        memory_bytes,
        cpus: 1,
        device: crate::device::DeviceSpec::parse(crate::device::spec::WD1200BB).expect("built-in device"),
        prefetcher: c.readahead.parse::<AnyPrefetcher>().map_err(SimError::Core)?,
        swap_bytes: Some(SWAP_BYTES),
        duration: SimConfig::UNTIL_DONE,
        whatif: Some(whatif),
        seed,
        ..SimConfig::default()
    })
}

/// Table 5's configurations: (real MiB, simulated MiB, VEC bytes, bytes per simulated page) for the
/// sub-queue VEC in 32 MiB increments, sized for the memory beyond the real one (the memory already in
/// the cache needs no VEC; the paper sized its VEC for the whole simulated memory: 32 bytes × its pages).
fn table_5() -> Vec<(u64, u64, u64, f64)> {
    [(128u64, 512u64), (128, 1024), (128, 4096), (512, 4096)]
        .iter()
        .map(|&(real, simulated)| {
            let pages_per_step = (STEP_MIB << 20) / PAGE_SIZE_BYTES;
            let steps = (simulated - real) / STEP_MIB;
            let v = SubQueueVec::new(VecGeometry::new(pages_per_step as u32, steps as u32));
            let bytes = v.heap_bytes() as u64;
            let pages = (simulated - real) * (1 << 20) / PAGE_SIZE_BYTES;
            (real, simulated, bytes, bytes as f64 / pages as f64)
        })
        .collect()
}

fn charts(rows: &[Row], quick: bool) -> Vec<Chart> {
    let mut charts = Vec::new();
    let (sq, ta) = (VecMode::SubQueue, PpmMode::ThreadAware);
    for base in rows.iter().filter(|r| r.text("role") == "base") {
        let key = base.text("case_key");
        let t = base.num("threads");
        // Figure 4's thread counts other than 4 go to their own chart.
        if base.text("workload") == "fs-seq-mt" && t != 4.0 {
            continue;
        }
        let actual: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.text("case_key") == key)
            .map(|r| (r.num("memory_mib"), r.metric("runtime_s")))
            .collect();
        let find = |name: String| {
            base.series.iter().find(|(n, _)| *n == name).map(|(_, p)| p.clone()).unwrap_or_default()
        };
        let title = match base.text("workload") {
            "fs-seq-mt" => format!("FS Sequential-MT ({t} threads)"),
            w => w.to_string(),
        };
        charts.push(Chart {
            title: format!("{title}: runtime"),
            x_label: "memory (MiB)".into(),
            y_label: "runtime (s)".into(),
            log_x: false,
            series: vec![
                ("predicted (thread-aware)".into(), find(series_key("runtime", sq, Some(ta)))),
                ("predicted (naive)".into(), find(series_key("runtime", sq, Some(PpmMode::Naive)))),
                ("actual".into(), actual),
            ],
        });
    }
    // Figures 3 and 8's left panels: predicted (sub-queue VEC) and actual miss ratio, one chart a figure.
    let figures: [(&str, &[&str]); 2] = [
        (
            "Figure 3: miss ratio, predicted (p) and actual (a)",
            &["fs-seq-1", "fs-random-no-readahead-1", "vm-seq-1", "vm-random-1"],
        ),
        ("Figure 8: miss ratio, predicted (p) and actual (a)", &["dbench-20", "mogrify-1", "cpu-sim-1"]),
    ];
    for (title, keys) in figures {
        let mut series = Vec::new();
        for key in keys {
            let Some(base) = rows.iter().find(|r| r.text("case_key") == *key && r.text("role") == "base")
            else {
                continue;
            };
            let name = base.text("workload");
            let predicted = base.series.iter().find(|(n, _)| *n == series_key("miss_ratio", sq, None));
            series.push((format!("{name} (p)"), predicted.map(|(_, p)| p.clone()).unwrap_or_default()));
            let actual = rows
                .iter()
                .filter(|r| r.text("case_key") == *key)
                .map(|r| (r.num("memory_mib"), r.metric("miss_ratio")));
            series.push((format!("{name} (a)"), actual.collect()));
        }
        if series.iter().any(|(_, p)| !p.is_empty()) {
            charts.push(Chart {
                title: title.into(),
                x_label: "memory (MiB)".into(),
                y_label: "miss ratio".into(),
                log_x: false,
                series,
            });
        }
    }
    if !quick {
        // Figure 4: largest error against threads.
        let aware_series = series_key("runtime", sq, Some(ta));
        let err =
            |t: u32, series: &str| (t as f64, 100.0 * largest_error(&size_errors(rows, &mt_key(t), series)));
        let aware = THREADS.iter().map(|&t| err(t, &aware_series)).collect();
        let naive = THREADS.iter().map(|&t| err(t, NAIVE_UNCLAMPED)).collect();
        charts.push(Chart {
            title: "FS Sequential-MT: largest runtime prediction error (Figure 4)".into(),
            x_label: "threads".into(),
            y_label: "error (%)".into(),
            log_x: false,
            series: vec![("thread-aware".into(), aware), ("naive".into(), naive)],
        });
    }
    charts
}

fn markdown(
    rows: &[Row],
    table: &[Row],
    accuracy: &[String],
    table5: &[(u64, u64, u64, f64)],
    quick: bool,
) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Each workload ran once at {BASE_MIB} MiB with MemRx observing and again at every size it predicted; \
         the predictions below are the paper's sub-queue VEC with the thread-aware PPM unless a column says \
         otherwise. `results.csv` has every VEC (subqueue, exact, shadow) and both PPMs.{}\n",
        if quick { " This is the quick run: three workloads, four sizes." } else { "" }
    );
    let _ = writeln!(md, "Largest errors of the microbenchmarks: {}.\n", accuracy.join("; "));
    for base in rows.iter().filter(|r| r.text("role") == "base") {
        let key = base.text("case_key");
        let _ = writeln!(
            md,
            "### {} (`{}`, readahead {}, {} thread(s))\n",
            base.text("workload"),
            base.text("spec"),
            base.text("readahead"),
            base.num("threads")
        );
        let _ = writeln!(
            md,
            "At {BASE_MIB} MiB: runtime {:.1} s, miss ratio {:.4}, idle time with reloads outstanding {:.1} s \
             (sub-queue VEC).\n",
            base.metric("runtime_s"),
            base.metric("miss_ratio"),
            base.metric("idle_with_reloads_s_subqueue")
        );
        let _ = writeln!(
            md,
            "| memory (MiB) | actual (s) | predicted (s) | error | naive (s) | naive error | exact VEC (s) | shadow VEC (s) | actual miss ratio | predicted miss ratio (subqueue / exact / shadow) |"
        );
        let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        let w = base.text("workload");
        let th = base.num("threads");
        let pick = |vec: VecMode, ppm: PpmMode, mib: f64| {
            table.iter().find(|r| {
                r.text("workload") == w
                    && r.num("threads") == th
                    && r.text("readahead") == base.text("readahead")
                    && r.text("vec") == vec.name()
                    && r.text("ppm") == ppm.name()
                    && r.num("memory_bytes") == mib * (1 << 20) as f64
            })
        };
        let mut sizes: Vec<f64> =
            rows.iter().filter(|r| r.text("case_key") == key).map(|r| r.num("memory_mib")).collect();
        sizes.sort_by(f64::total_cmp);
        for mib in sizes {
            let (Some(a), Some(n), Some(e), Some(s)) = (
                pick(VecMode::SubQueue, PpmMode::ThreadAware, mib),
                pick(VecMode::SubQueue, PpmMode::Naive, mib),
                pick(VecMode::Exact, PpmMode::ThreadAware, mib),
                pick(VecMode::Shadow, PpmMode::ThreadAware, mib),
            ) else {
                continue;
            };
            let actual = a.metric("actual_runtime_s");
            let err = |p: f64| super::signed_pct((p - actual) / actual, 1);
            let _ = writeln!(
                md,
                "| {mib} | {actual:.1} | {:.1} | {} | {:.1} | {} | {:.1} | {:.1} | {:.4} | {:.4} / {:.4} / {:.4} |",
                a.metric("predicted_runtime_s"),
                err(a.metric("predicted_runtime_s")),
                n.metric("predicted_runtime_s"),
                err(n.metric("predicted_runtime_s")),
                e.metric("predicted_runtime_s"),
                s.metric("predicted_runtime_s"),
                a.metric("actual_miss_ratio"),
                a.metric("predicted_miss_ratio"),
                e.metric("predicted_miss_ratio"),
                s.metric("predicted_miss_ratio"),
            );
        }
        md.push('\n');
    }
    let _ = writeln!(md, "### The VEC's memory (Table 5)\n");
    let _ = writeln!(md, "| real memory (MiB) | simulated memory (MiB) | VEC (KiB) | bytes per simulated page | the paper's MemRx allocation |");
    let _ = writeln!(md, "|---:|---:|---:|---:|---|");
    let paper = ["4 MB", "8 MB", "32 MB", "32 MB"];
    for (t, p) in table5.iter().zip(paper) {
        let _ = writeln!(
            md,
            "| {} | {} | {:.0} | {:.1} | {p} (32 bytes a page) |",
            t.0,
            t.1,
            t.2 as f64 / 1024.0,
            t.3
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick run: every job completes, `results.csv` has the issue's columns (one row per workload,
    /// PPM, VEC and size), and the accuracy criteria hold on it.
    #[test]
    fn a_quick_run_yields_the_issues_columns_and_meets_its_criteria() {
        let e = MemRxExperiment;
        let rows: Vec<Row> = e.jobs(true, 1).iter().map(|j| (j.run)().expect("a quick job")).collect();
        let table = e.result_rows(&rows);
        let columns: Vec<&str> = table[0]
            .params
            .iter()
            .map(|(k, _)| k.as_str())
            .chain(table[0].metrics.iter().map(|(k, _)| k.as_str()))
            .collect();
        assert_eq!(
            columns,
            [
                "workload",
                "ppm",
                "vec",
                "readahead",
                "threads",
                "memory_bytes",
                "predicted_runtime_s",
                "actual_runtime_s",
                "predicted_miss_ratio",
                "actual_miss_ratio"
            ]
        );
        assert_eq!(table.len(), 3 * 2 * 3 * QUICK_SIZES_MIB.len(), "3 workloads x 2 PPMs x 3 VECs x 4 sizes");
        let f = e.analyze(&rows, true);
        for c in &f.checks {
            assert_eq!(c.verdict, Verdict::Reproduced, "{}: {}", c.claim, c.measured);
        }
    }

    /// Figure 4 in small: FS Sequential-MT on a 24 MiB section in 16 MiB of memory, predicted for 40 MiB
    /// (where the section fits) and rerun there. The thread-aware PPM's error stays small whatever the
    /// threads; the naive PPM's, which adds up overlapping waits, grows with them.
    #[test]
    fn the_naive_ppm_errs_more_with_threads_and_the_thread_aware_one_does_not() {
        let error = |threads: u32| {
            let c = case(
                "mt",
                &format!("fs-seq:file_size=64MiB,size=24MiB,passes=4,threads={threads}"),
                "linux-2.6",
                threads,
            );
            let w = |up_to: u64| WhatIfConfig {
                up_to_bytes: Some(up_to << 20),
                step_bytes: 8 << 20,
                vecs: vec![VecMode::SubQueue],
            };
            let base =
                simulate(config(&c, 16 << 20, w(40), 1).unwrap(), parse_workload(&c.spec).unwrap()).unwrap();
            let fit =
                simulate(config(&c, 40 << 20, w(48), 1).unwrap(), parse_workload(&c.spec).unwrap()).unwrap();
            let p = &base.whatif.unwrap().vecs[0];
            let predicted = &p.sizes.last().unwrap();
            assert_eq!(predicted.memory_bytes, 40 << 20);
            let naive_saved: f64 = p.sizes.iter().map(|s| s.naive_penalty_s).sum();
            let actual = fit.sim_seconds;
            let aware = (predicted.predicted_runtime_s - actual).abs() / actual;
            let naive = (base.sim_seconds - naive_saved - actual).abs() / actual;
            (aware, naive)
        };
        let (aware1, naive1) = error(1);
        let (aware4, naive4) = error(4);
        assert!(aware1 < 0.05 && aware4 < 0.05, "thread-aware: {aware1:.3} / {aware4:.3}");
        assert!(naive1 < 0.05, "one thread: the naive PPM is the thread-aware one ({naive1:.3})");
        assert!(naive4 > 2.0 * naive1.max(0.05), "naive: {naive1:.3} at 1 thread, {naive4:.3} at 4");
    }
}
