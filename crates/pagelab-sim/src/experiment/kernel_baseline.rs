//! `kernel-baseline`: Li & Shen's four microbenchmarks on the Linux baseline they compare against
//! (papers/000 §4.2, Figures 2 and 5, "AccessHistory"), under the 2.6-era readahead (issue 12, "Li &
//! Shen's baseline under 2.6"; issue 14 builds the prefetch cache on it).
//!
//! # What is run
//!
//! One-Whole, One-Rand, Two-Rand and Four-64KB (papers/000 §4.1; `workload/pattern.rs`: 64 KiB `read()`
//! calls over files of 4 MiB) at 1 to 1000 concurrent handlers, closed loop, with only what the paper
//! states set: `linux-2.6:512KiB` (§4.2: "the maximum prefetching depth at 512KB"), 512 MiB of memory
//! (§4.2) under the `linux-2.6` memory model, policy `linux` (2.6's active/inactive lists: the paper's
//! AccessHistory, §2 and §4.2 #1), the anticipatory scheduler (the paper's kernel's elevator, §2) and
//! `nr_requests` 128 (the kernel's default). Everything else is the shared system model (the Cheetah 9LP,
//! 2 CPUs, 2 µs per page); no constant is tuned here. Each point is measured for 120 s ("each round takes
//! 120 seconds", §4) after the automatic warm-up (memory full and every handler done with a request, at
//! most 10 × the measured period). One seed per point; the paper ran 4 rounds.
//!
//! Departures, and why:
//! - **2000 files, not 6000.** The paper's dataset (6000 files of 4 MB, 24 GB) does not fit the default
//!   disk (the 9.1 GB Cheetah 9LP): `files=2000` (8.4 GB, still 16 times memory). The paper's class of
//!   drive has since been modelled (the IBM Ultrastar 36LZX, `ultrastar36lzx`): `prefetch-memory` runs the
//!   same AccessHistory baseline at the paper's scale on it; this experiment keeps the Cheetah so that its
//!   measured table below stays the record of issue 12's model.
//! - **The readahead is 2.6.12–2.6.18's** `page_cache_readahead` (`prefetch/linux26.rs`); the paper ran a
//!   2.6.10 (whose per-page readahead pagelab does not model) "corrected" for the anomalies of its ref. \[25\],
//!   one of them in readahead under disk congestion (Li's published 2.6.10 patch calls it
//!   `CONFIG_READAHEAD_CONGFIX`); what that fix changes is not modelled.
//! - **Concurrency levels.** The figures are not in the text; it names 100 ("high concurrency levels (100
//!   and above)"), 200, 400, 500 and 1000. The sweep takes 1, every 100 from 100 to 1000, and 10 and 50
//!   to resolve the initial rise §4.3 describes. `--quick`: 1, 100, 500, 1000, measured 30 s.
//!
//! # Criteria (fixed in [`FALL`], [`RISE`], [`FLAT_SPREAD`] before the results were looked at)
//!
//! One-Rand and Two-Rand "rise to a peak then fall while thrashing rises": peak ≥ 1.10 × the throughput
//! at the lowest concurrency, peak ≥ 1.15 × the throughput at the highest, and thrashed pages/s at the
//! highest above those at the peak — all three reproduced; the fall and one other partly; no fall not
//! reproduced. One-Whole and Four-64KB "roughly flat": max/min over all levels ≤ 1.25 reproduced; a wider
//! spread without a fall partly; a fall not reproduced.
//!
//! # Measured (full run, seed 1: `pagelab experiment kernel-baseline --jobs 2`)
//!
//! Throughput MiB/s (thrashed pages/s, counted as the paper defines it, without a bound on how long ago the
//! page was evicted: since 2026-11-28; the bounded history of 40 % of memory the earlier table used counted
//! 0.6 → 4.7 for Two-Rand, a third of these, and One-Rand at most 1.3), with the block layer's 2.6.18 request
//! allocation (`blk.rs`: batching, the anticipatory scheduler's exemption, the 3/2 hard limit), and since
//! 2026-11-28 with the elevator choosing at a completion before the handlers it woke continue (as 2.6's
//! completion path runs `request_fn` before they are scheduled). Before that fix a Two-Rand handler in
//! one-page makeup reads had its next one queued at every completion and kept the disk page after page:
//! Two-Rand fell from 10.69 (200) to 7.50 (1000) with thrashing rising to 228.2 pages/s, 386 one-page
//! requests/s and a mean request of 6 pages; the other three columns were within 4 % of the table below. Up
//! to 100 handlers the queue never fills; the table before the request allocation (a strict FIFO queue) is in
//! git history (One-Whole 11.54–12.96, One-Rand 10.07–10.37 from 200 on, Two-Rand 8.0–10.29, Four-64KB
//! 5.75–5.83 from 200 on).
//!
//! | handlers | one-whole | one-rand | two-rand | four-64kb |
//! |---:|---:|---:|---:|---:|
//! | 1 | 12.96 (0.0) | 9.91 (0.0) | 9.08 (0.0) | 4.95 (0.0) |
//! | 10 | 12.25 (0.0) | 9.43 (0.0) | 9.05 (0.0) | 5.81 (0.0) |
//! | 50 | 12.21 (0.0) | 9.57 (0.0) | 9.05 (0.3) | 6.32 (0.0) |
//! | 100 | 12.78 (0.0) | 11.10 (0.0) | 10.43 (0.0) | 6.52 (0.0) |
//! | 200 | 12.25 (0.0) | 11.03 (0.0) | 10.60 (0.6) | 6.57 (0.0) |
//! | 300 | 11.98 (0.0) | 11.05 (0.0) | 9.80 (5.3) | 6.59 (0.0) |
//! | 400 | 12.03 (0.0) | 11.09 (0.1) | 9.41 (8.6) | 6.58 (0.0) |
//! | 500 | 11.94 (0.0) | 11.24 (0.2) | 8.62 (15.0) | 6.56 (0.0) |
//! | 600 | 11.93 (0.1) | 11.18 (0.5) | 8.36 (16.9) | 6.56 (0.0) |
//! | 700 | 11.89 (0.3) | 11.09 (1.0) | 8.64 (14.3) | 6.56 (0.0) |
//! | 800 | 11.85 (1.3) | 11.04 (1.2) | 8.43 (14.5) | 6.55 (0.0) |
//! | 900 | 11.58 (2.0) | 10.91 (1.1) | 8.12 (15.4) | 6.56 (0.0) |
//! | 1000 | 11.54 (2.9) | 11.00 (2.1) | 8.08 (13.8) | 6.57 (0.0) |
//!
//! Verdicts: One-Whole **reproduced** (max/min 1.12); One-Rand **not reproduced** (9.91 → 11.10 at 100,
//! then flat at 10.91–11.24: peak 11.24 at 500, peak/end 1.02, no thrashing to speak of); Two-Rand
//! **reproduced** by the criteria (9.08 → peak 10.60 at 200, 1.17x → 8.08 at 1000, peak/end 1.31;
//! thrashing 0.6 → 13.8 pages/s: higher, as the criterion asks, but nowhere near Figure 2's hundreds);
//! Four-64KB **partly** (max/min 1.33: it rises to 100 handlers, then stays at 6.55–6.59, peak/end
//! 1.00). Before, with the FIFO queue: the same four verdicts (One-Whole 1.13, One-Rand peak/end 1.10,
//! Two-Rand peak/end 1.26 with 4.2 pages/s, Four-64KB 1.32).
//!
//! Wall time on the project's 2-core machine: the full run (52 runs) 41 s with `--jobs 2` (83–116 s with
//! `--jobs 1` before); the warm-up's bound (10 × the measured period) bounds every run.
//!
//! # Why (from the run metrics; the report carries the same text)
//!
//! - **The request queue sets the regime.** Up to 100 handlers nobody waits for a request; from 200 on
//!   the 128-request read queue is always full and read-congested, and handlers sleep on it (the mean wait
//!   grows with concurrency, to 30 s for One-Rand at 1000); the pages allocated for queued and dispatched
//!   reads pin a growing share of memory (One-Rand at 1000: 272 MiB of 512 in flight, papers/000 §4.2's
//!   "pages pinned for outstanding I/O operations"). Batching itself rarely matters here: a handler
//!   holds one read request at a time, and its next comes long after its 20 ms batch window; what matters
//!   is the exemption. The handler the anticipatory scheduler is waiting for is not put to sleep
//!   (`as_may_queue()`), so its next read reaches the scheduler at once and the anticipation pays off
//!   instead of timing out: from 200 handlers on the disk is busy 98.5–99.9 % of the time (97.6–99.2 %
//!   for One-Whole, One-Rand and Two-Rand before; 88 % for Four-64KB).
//! - **One-Whole is flat, now partly for the paper's reason.** Every disk request is still a whole or
//!   nearly whole 512 KiB window up to 300 handlers (mean 101–102 pages), so the disk streams at the same
//!   rate at any concurrency. The exempted handler keeps the disk while it reads on: at 500 and 1000
//!   handlers 333 and 319 requests complete in the 120 s (none did with the FIFO queue, where the handlers
//!   took turns), the anticipatory scheduler running a few handlers nearly serially while the rest sleep
//!   on the queue (mean wait 14 s at 500, 28 s at 1000). From 400 on, windows of sleeping handlers are
//!   partly evicted before use and re-read a page at a time (2–12 one-page requests/s; mean request 70
//!   pages at 1000); thrashing stays below 3 pages/s.
//! - **One-Rand does not fall because it hardly thrashes**: 0.0–2.1 pages/s. A One-Rand handler has one
//!   stream. While the queue is congested, 2.6's readahead skips the asynchronous ahead window
//!   (`blockable_page_cache_readahead()` under `bdi_read_congested()`), so the handler reads one window at
//!   a time, issued when its read reaches the window's end, and sleeps on the queue only when it holds no
//!   unread prefetched page; a window that arrives is consumed at once. Prefetch thrashing needs prefetched
//!   pages left waiting while their owner is elsewhere, and a One-Rand handler is never elsewhere. The
//!   pages it loses are window tails past its request's random end (≈28,000 evicted unused per 120 s at
//!   1000): waste, not thrashing. The FIFO queue's step from 11.10 (100) to ≈10.2 (200 on) is gone: it was
//!   the anticipation timing out on handlers asleep on the queue (disk busy 97.6 %), now 99.3–99.8 %.
//! - **Two-Rand falls, on the paper's path, with little of its thrashing.** A handler alternates two
//!   files, so while it sleeps on the full queue for one file's window, the unread rest of the other file's
//!   window ages on the inactive list and is evicted; reading on, it falls into per-page makeup reads (2.6's
//!   `handle_ra_miss()`, then `readpage()` of the missing page), each a positioning of its own: one-page
//!   requests rise from 2/s at 200 handlers to 36/s at 500 and 40/s at 1000, the mean disk request shrinks
//!   from 92 pages to 35, and throughput falls from 10.60 to 8.08. The makeup reads do not snowball: the
//!   elevator chooses at each completion before the woken handler's next one exists, and the anticipatory
//!   scheduler does not wait for a handler whose seeks span two files, so a handler re-reads its lost pages
//!   in turn with the others. 35–42 % of the one-page reads bring back the handler's own prefetched pages
//!   evicted unread: 15.0 thrashed pages/s at 500 and 13.8 at 1000 (what the other one-page reads bring back
//!   has not been classified). A bounded history of 40 % of memory (`--thrash-history 40%`, papers/000 §3.3's
//!   size) counts a third of them, 4.8 and 4.7: a handler asleep for seconds in the full queue comes back
//!   after it has forgotten.
//! - **Four-64KB** rises from 4.95 (1) to 6.52 (100) as the scheduler chooses among more requests (§4.3;
//!   `system-model` part 3), then stays at 6.55–6.59. With the FIFO queue it stepped down to 5.8 from 200
//!   on with the disk idle 12 %: each request is a new handler stream, which the anticipatory scheduler
//!   waits `antic_expire` (6 ms) for after its first read, and that handler's next read slept on the full
//!   queue where the scheduler could not see it. Exempted, it arrives: the disk is busy 99.8–99.9 %, the
//!   level of the earlier diagnostic with `anticipatory:antic_expire=0ms` (6.60 MiB/s at 500). Its
//!   readahead is off (random reads), so it never thrashes.
//! - **The warm-up bound.** At high concurrency the automatic warm-up ends at its bound (1200 s) without
//!   steady state (One-Whole from 600, One-Rand at 500 and from 700, Two-Rand from 600; Four-64KB never):
//!   a few handlers never finish their first request. A handler whose window was evicted before it read
//!   it falls into per-page makeup reads — the current window already covers the missing pages, so 2.6's
//!   readahead does not read them again as a window — and each page waits the whole queue unless it is
//!   anticipated (the slowest One-Rand request at 1000 handlers took 1,279 s). The measured period then
//!   starts with memory full and almost every handler done.
//!
//! What the model lacks that bears on these curves (not changed here): the paper ran a 2.6.10 "corrected"
//! for its ref. \[25\]'s readahead-under-congestion anomaly. 2.6.10's readahead left a skipped window's
//! state as if its I/O had been issued, so its pages were read one at a time (Steven Pratt on LKML, Sep
//! 2004; `prefetch/linux26.rs` has the sources); 2.6.11 on resets such a window and reads it blocking when
//! the reader reaches it, which is what this model runs. What Li & Shen's fix did is not in any text
//! reachable here. The other reading, ahead windows issued whatever the queue's state
//! (`linux-2.6:512KiB,congestion=ignore`), was measured outside the experiment on 2026-11-28 (seed 1, the
//! experiment's settings, `pagelab simulate … --device hdd`, 120 s after the automatic warm-up):
//!
//! | handlers | one-rand skip / ignore | two-rand skip / ignore |
//! |---:|---|---|
//! | 1 | 9.91 (0.0) / 9.91 (0.0) | 9.08 (0.0) / 9.08 (0.0) |
//! | 100 | 11.10 (0.0) / 9.09 (0.0) | 10.43 (0.0) / 8.77 (0.2) |
//! | 200 | 11.03 (0.0) / 8.93 (0.0) | 10.60 (0.6) / 7.64 (13.2) |
//! | 500 | 11.24 (0.2) / 8.90 (2.5) | 8.62 (15.0) / 5.78 (36.5) |
//! | 1000 | 11.00 (2.1) / 8.72 (8.2) | 8.08 (13.8) / 3.73 (43.2) |
//!
//! (MiB/s, thrashed pages/s.) Ignoring congestion makes Two-Rand fall to 43 % of its 100-handler level with
//! one-page reads at 105/s, and makes One-Rand thrash a little (8 pages/s at 1000), but One-Rand still does
//! not fall (9.09 → 8.72): the windows a handler now issues past its request's random end cost it 18–21 % at
//! every level from 100 on instead. The hypothesis this paragraph used to carry ("One-Rand would thrash as
//! Two-Rand does") is now measured, and it does not hold. 2.6.10's request allocation had batching and the
//! elevator's exemption but not yet the 3/2 hard limit (added in 2.6.13); the model follows 2.6.18. A woken
//! process here runs in the completion's event (after the elevator has chosen), so no other submitter gets in
//! between its wake-up and its allocation (`blk.rs`).

use super::{finite_range, Chart, Check, Experiment, Findings, Job, Row, Value, Verdict};
use crate::config::{MemoryModel, SimConfig, Warmup};
use crate::error::SimError;
use crate::server::simulate;
use crate::workload::spec::parse_workload;
use pagelab_core::memory::WatermarkRule;
use pagelab_core::policy::PolicyKind;
use pagelab_core::Nanos;
use std::fmt::Write as _;

pub struct KernelBaseline;

/// papers/000 §4.1's microbenchmarks, in the order of Figure 5's panels (A)–(D).
pub const WORKLOADS: [&str; 4] = ["one-whole", "one-rand", "two-rand", "four-64kb"];
/// The paper's dataset is 6000 files of 4 MB (24 GB); the default disk (the 9.1 GB Cheetah 9LP) holds
/// 2000 of them (8.4 GB). The dataset is still 16 times memory.
pub const FILES: u32 = 2000;
/// papers/000 §4.2: "the maximum prefetching depth at 512KB"; the readahead of the 2.6 kernels the
/// paper ran (`page_cache_readahead`, 2.6.12–2.6.18; pagelab does not model 2.6.10's per-page version).
pub const PREFETCH: &str = "linux-2.6:512KiB";
/// papers/000 §4.2: "the server memory size at 512MB".
pub const MEMORY_BYTES: u64 = 512 << 20;
/// 2.6's `BLKDEV_MAX_RQ` (the paper's kernel's default; the paper does not change it).
pub const NR_REQUESTS: u32 = 128;
/// Concurrency levels of the full sweep. Figures 2 and 5 run "up to 1000 concurrent request handlers";
/// their plotted points are not in the text, which names 100 ("100 and above"), 200 ("200 or higher"),
/// 400, 500 and 1000. The sweep takes every 100 from 100 to 1000, 1 for the origin, and 10 and 50 to
/// resolve the initial rise §4.3 describes ("the I/O throughput initially increases as the concurrency
/// level climbs up").
pub const CONCURRENCY: [u32; 13] = [1, 10, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000];
/// The quick sweep: the origin, the start of "high concurrency", Two-Rand's two-fold point, the end.
pub const CONCURRENCY_QUICK: [u32; 4] = [1, 100, 500, 1000];
/// papers/000 §4: "each round takes 120 seconds".
pub const MEASURED_SECS: u64 = 120;
pub const MEASURED_SECS_QUICK: u64 = 30;

/// The criteria, fixed before the results were looked at.
///
/// A fall "at high concurrency": the peak is at least this many times the throughput at the largest
/// concurrency.
pub const FALL: f64 = 1.15;
/// A rise "to a peak": the peak is at least this many times the throughput at concurrency 1 (10 %, the
/// run-to-run noise allowance `system-model` uses for "initially increases").
pub const RISE: f64 = 1.10;
/// "Roughly flat": the largest throughput over all concurrency levels is at most this many times the
/// smallest.
pub const FLAT_SPREAD: f64 = 1.25;

impl Experiment for KernelBaseline {
    fn name(&self) -> &'static str {
        "kernel-baseline"
    }

    fn title(&self) -> &'static str {
        "Li & Shen's microbenchmarks on the Linux 2.6 baseline: throughput and prefetch thrashing vs concurrency"
    }

    fn description(&self) -> &'static str {
        "Runs One-Whole, One-Rand, Two-Rand and Four-64KB (2000 files of 4 MiB, 64 KiB reads) on the papers' \
         Linux baseline — 2.6's readahead with a 512 KiB maximum, 512 MiB of memory under 2.6's memory \
         model, the active/inactive lists, the anticipatory scheduler, nr_requests 128 — at 1 to 1000 \
         concurrent handlers, each measured for 120 s (30 s with --quick) after an automatic warm-up, and sets the throughput and \
         prefetch-thrashing curves beside the shapes of papers/000 Figures 2 and 5."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        let (points, secs): (&[u32], u64) =
            if quick { (&CONCURRENCY_QUICK, MEASURED_SECS_QUICK) } else { (&CONCURRENCY, MEASURED_SECS) };
        let mut jobs = Vec::new();
        for workload in WORKLOADS {
            for &c in points {
                jobs.push(Job::new(format!("{workload} x{c}"), move || run(workload, c, secs, seed)));
            }
        }
        jobs
    }

    fn analyze(&self, rows: &[Row], _quick: bool) -> Findings {
        let curves: Vec<Curve> = WORKLOADS.iter().map(|w| Curve::of(w, rows)).collect();
        let curve = |w: &str| curves.iter().find(|c| c.workload == w).expect("every workload has a curve");
        let checks = vec![
            flat_check(
                curve("one-whole"),
                "One-Whole: consistently high throughput at every concurrency level (whole files: every \
                 prefetched page is used; anticipatory scheduling runs the handlers nearly serially)",
                "papers/000 §4.2, Figure 5(A)",
            ),
            peak_check(
                curve("one-rand"),
                "One-Rand: throughput rises to a peak, then falls at high concurrency as prefetch thrashing \
                 rises",
                "papers/000 §4.2, Figure 5(B) (AccessHistory); §2, Figure 2",
            ),
            peak_check(
                curve("two-rand"),
                "Two-Rand: throughput rises to a peak, then falls at high concurrency as prefetch thrashing \
                 rises (anticipation is ineffective with two streams per handler)",
                "papers/000 §4.2, Figure 5(C) (AccessHistory); §2, Figure 2",
            ),
            flat_check(
                curve("four-64kb"),
                "Four-64KB: roughly flat (prefetched pages are mostly unused, so their early eviction does \
                 not hurt)",
                "papers/000 §4.2, Figure 5(D)",
            ),
        ];

        let series = |metric: &str| -> Vec<(String, Vec<(f64, f64)>)> {
            curves
                .iter()
                .map(|c| {
                    let pts = c.rows.iter().map(|r| (r.num("concurrency"), r.metric(metric))).collect();
                    (c.workload.to_string(), pts)
                })
                .collect()
        };
        let charts = vec![
            Chart {
                title: "Linux 2.6 baseline (512 KiB readahead, 512 MiB): throughput".into(),
                x_label: "concurrent request handlers".into(),
                y_label: "throughput (MiB/s)".into(),
                log_x: true,
                series: series("throughput_mib_s"),
            },
            Chart {
                title: "Prefetch page thrashing".into(),
                x_label: "concurrent request handlers".into(),
                y_label: "thrashed pages/s".into(),
                log_x: true,
                series: series("thrash_pages_per_s"),
            },
        ];

        let mut summary = Vec::new();
        for c in &curves {
            let key = c.workload.replace('-', "_");
            let (c_peak, tp_peak) = c.peak();
            summary.push((format!("{key}_c{}_mib_s", c.c_min()), c.tp(c.c_min())));
            summary.push((format!("{key}_peak_mib_s"), tp_peak));
            summary.push((format!("{key}_peak_concurrency"), c_peak as f64));
            summary.push((format!("{key}_c{}_mib_s", c.c_max()), c.tp(c.c_max())));
            summary.push((format!("{key}_c{}_thrash_pages_per_s", c.c_max()), c.thrash(c.c_max())));
        }
        Findings { summary, charts, checks, markdown: markdown(&curves) }
    }
}

/// One workload's rows, by rising concurrency.
struct Curve<'a> {
    workload: &'static str,
    rows: Vec<&'a Row>,
}

impl<'a> Curve<'a> {
    fn of(workload: &'static str, rows: &'a [Row]) -> Curve<'a> {
        let mut mine: Vec<&Row> = rows.iter().filter(|r| r.text("workload") == workload).collect();
        mine.sort_by(|a, b| a.num("concurrency").total_cmp(&b.num("concurrency")));
        Curve { workload, rows: mine }
    }
    fn at(&self, c: u32) -> Option<&Row> {
        self.rows.iter().copied().find(|r| r.num("concurrency") == c as f64)
    }
    fn tp(&self, c: u32) -> f64 {
        self.at(c).map_or(f64::NAN, |r| r.metric("throughput_mib_s"))
    }
    fn thrash(&self, c: u32) -> f64 {
        self.at(c).map_or(f64::NAN, |r| r.metric("thrash_pages_per_s"))
    }
    fn c_min(&self) -> u32 {
        self.rows.first().map_or(0, |r| r.num("concurrency") as u32)
    }
    fn c_max(&self) -> u32 {
        self.rows.last().map_or(0, |r| r.num("concurrency") as u32)
    }
    /// The concurrency with the highest throughput (the lowest such, on a tie) and that throughput.
    fn peak(&self) -> (u32, f64) {
        self.rows.iter().fold((0, f64::NAN), |best, r| {
            let tp = r.metric("throughput_mib_s");
            if best.1.is_nan() || tp > best.1 {
                (r.num("concurrency") as u32, tp)
            } else {
                best
            }
        })
    }
    fn min_tp(&self) -> f64 {
        self.rows.iter().map(|r| r.metric("throughput_mib_s")).fold(f64::NAN, f64::min)
    }
    fn points_text(&self) -> String {
        self.rows
            .iter()
            .map(|r| format!("{:.2}", r.metric("throughput_mib_s")))
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// Rises to a peak (≥ [`RISE`] × the lowest concurrency's), falls from it (≥ [`FALL`] × the highest
/// concurrency's), and thrashing at the highest concurrency exceeds thrashing at the peak. All three:
/// reproduced; the fall and one of the others: partly; no fall (or nothing measured): not reproduced.
fn peak_check(c: &Curve, claim: &str, source: &str) -> Check {
    let (lo, hi) = (c.c_min(), c.c_max());
    let (c_peak, tp_peak) = c.peak();
    let rise = tp_peak / c.tp(lo);
    let fall = tp_peak / c.tp(hi);
    let (thrash_peak, thrash_end) = (c.thrash(c_peak), c.thrash(hi));
    let rises = rise >= RISE;
    let falls = fall >= FALL;
    let thrash_rises = thrash_end > thrash_peak;
    Check {
        claim: claim.into(),
        source: source.into(),
        measured: format!(
            "{:.2} MiB/s at {lo} → peak {tp_peak:.2} at {c_peak} ({rise:.2}x; criterion ≥ {RISE}x) → {:.2} at \
             {hi} (peak/end {fall:.2}x; criterion ≥ {FALL}x); thrashing {thrash_peak:.1} pages/s at the peak, \
             {thrash_end:.1} at {hi} (criterion: higher at {hi}); all points {}",
            c.tp(lo),
            c.tp(hi),
            c.points_text()
        ),
        verdict: match (falls, rises, thrash_rises) {
            (true, true, true) => Verdict::Reproduced,
            (true, true, false) | (true, false, true) => Verdict::Partial,
            _ => Verdict::NotReproduced,
        },
    }
}

/// Max/min over every level ≤ [`FLAT_SPREAD`]: reproduced; a wider spread with no fall at high
/// concurrency (peak < [`FALL`] × the highest concurrency's): partly; a fall: not reproduced.
fn flat_check(c: &Curve, claim: &str, source: &str) -> Check {
    let hi = c.c_max();
    let (c_peak, tp_peak) = c.peak();
    let spread = tp_peak / c.min_tp();
    let fall = tp_peak / c.tp(hi);
    Check {
        claim: claim.into(),
        source: source.into(),
        measured: format!(
            "{} MiB/s at {}: max/min {spread:.2}x (criterion ≤ {FLAT_SPREAD}x), peak {tp_peak:.2} at {c_peak}, \
             peak/end {fall:.2}x (a fall is ≥ {FALL}x); thrashing {:.1} pages/s at {hi}",
            c.points_text(),
            c.rows.iter().map(|r| r.num("concurrency").to_string()).collect::<Vec<_>>().join(" / "),
            c.thrash(hi)
        ),
        verdict: if spread <= FLAT_SPREAD {
            Verdict::Reproduced
        } else if fall < FALL {
            Verdict::Partial
        } else {
            Verdict::NotReproduced
        },
    }
}

/// The run configuration: the paper's settings, the shared system model for everything else.
pub fn config(concurrency: u32, secs: u64, seed: u64) -> Result<SimConfig, SimError> {
    Ok(SimConfig {
        memory_bytes: MEMORY_BYTES,
        memory_model: MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 },
        // Linux 2.6's active/inactive lists: "AccessHistory".
        policy: PolicyKind::TwoList,
        prefetcher: PREFETCH.parse()?,
        scheduler: "anticipatory".parse()?,
        nr_requests: Some(NR_REQUESTS),
        concurrency,
        duration: Nanos::from_secs(secs),
        warmup: Warmup::Auto,
        seed,
        ..SimConfig::default()
    })
}

/// One workload at one concurrency level.
pub fn run(workload: &'static str, concurrency: u32, secs: u64, seed: u64) -> Result<Row, SimError> {
    let spec = format!("{workload}:files={FILES}");
    let m = simulate(config(concurrency, secs, seed)?, parse_workload(&spec)?)?;
    // Disk requests of one page: 2.6's makeup reads (`handle_ra_miss` then `readpage()` of the missing
    // page), and nothing else in these workloads (every read is 64 KiB, every window larger).
    let one_page = m.disk.request_pages_histogram.iter().find(|(p, _)| *p == 1).map_or(0, |(_, n)| *n);
    let mib = |bytes: f64| bytes / (1u64 << 20) as f64;
    Ok(Row {
        params: vec![
            ("workload".into(), workload.into()),
            ("concurrency".into(), Value::from(concurrency as u64)),
        ],
        metrics: vec![
            ("throughput_mib_s".into(), m.throughput_mib_s),
            ("thrash_pages_per_s".into(), m.prefetch.thrash_pages_per_s),
            ("thrash_pages".into(), m.prefetch.thrash_pages as f64),
            ("requests_completed".into(), m.requests_completed as f64),
            ("latency_mean_ms".into(), m.latency_ms.mean),
            ("latency_max_ms".into(), m.latency_ms.max),
            ("hit_ratio".into(), m.hit_ratio),
            ("disk_requests".into(), m.disk.read_requests as f64),
            ("mean_request_pages".into(), m.disk.mean_request_pages),
            ("one_page_requests".into(), one_page as f64),
            ("measured_s".into(), m.sim_seconds),
            ("mean_service_ms".into(), m.disk.mean_service_ms),
            ("disk_busy".into(), m.disk.busy_fraction),
            ("queue_full_waits".into(), m.disk.queue_full_waits as f64),
            ("queue_wait_ms_mean".into(), m.disk.queue_wait_ms_mean),
            ("queue_wait_ms_max".into(), m.disk.queue_wait_ms_max),
            ("pages_prefetched".into(), m.prefetch.pages_prefetched as f64),
            ("prefetched_used".into(), m.prefetch.prefetched_used as f64),
            ("evicted_unused".into(), m.prefetch.evicted_unused as f64),
            ("demand_lost".into(), m.cache.demand_lost as f64),
            ("in_flight_mib_mean".into(), mib(m.memory.in_flight_bytes_mean)),
            ("prefetched_unused_mib_mean".into(), mib(m.memory.prefetched_unused_bytes_mean)),
            ("resident_mib_mean".into(), mib(m.memory.resident_bytes_mean)),
            ("warmup_s".into(), m.warmup.seconds),
            ("steady_state".into(), if m.warmup.steady_state { 1.0 } else { 0.0 }),
        ],
        series: Vec::new(),
    })
}

fn markdown(curves: &[Curve]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Each microbenchmark (papers/000 §4.1: 64 KiB `read()` calls; `files={FILES}` because the default \
         9.1 GB disk does not hold the paper's 6000 files of 4 MB) runs on the paper's baseline: `{PREFETCH}` \
         (2.6's `page_cache_readahead`, the paper's 512 KB maximum prefetching depth), {} MiB of memory \
         under the `linux-2.6` memory model, policy `linux` (the active/inactive lists: AccessHistory), the \
         anticipatory scheduler, `nr_requests` {NR_REQUESTS}; everything else is the shared system model \
         (the Cheetah 9LP, 2 CPUs). Closed loop: each handler starts its next request when one ends. The \
         measured period follows the automatic warm-up (memory full and every handler done with a request, \
         at most 10 × the measured period).\n",
        MEMORY_BYTES >> 20
    );
    let _ = writeln!(
        md,
        "Criteria, fixed before the runs: *rises to a peak* = peak ≥ {RISE} × the throughput at the lowest \
         concurrency; *falls* = peak ≥ {FALL} × the throughput at the highest; *thrashing rises* = thrashed \
         pages/s at the highest concurrency above those at the peak; One-Rand and Two-Rand are reproduced \
         with all three, partly with the fall and one other, not reproduced without the fall. *Roughly \
         flat* = max/min over all levels ≤ {FLAT_SPREAD}; a wider spread without a fall is partly \
         reproduced.\n"
    );
    let _ = writeln!(
        md,
        "| workload | handlers | MiB/s | thrash pages/s | requests | mean request (pages) | 1-page requests | \
         in flight (MiB) | prefetched unused (MiB) | queue-full waits | mean queue wait (s) | disk busy | warm-up (s) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for c in curves {
        for r in &c.rows {
            let steady = if r.metric("steady_state") == 1.0 { "" } else { " (bound)" };
            let _ = writeln!(
                md,
                "| {} | {} | {:.2} | {:.1} | {} | {:.1} | {} | {:.0} | {:.0} | {} | {:.1} | {:.1} % | {:.0}{steady} |",
                c.workload,
                r.num("concurrency"),
                r.metric("throughput_mib_s"),
                r.metric("thrash_pages_per_s"),
                r.metric("requests_completed"),
                r.metric("mean_request_pages"),
                r.metric("one_page_requests"),
                r.metric("in_flight_mib_mean"),
                r.metric("prefetched_unused_mib_mean"),
                r.metric("queue_full_waits"),
                r.metric("queue_wait_ms_mean") / 1000.0,
                100.0 * r.metric("disk_busy"),
                r.metric("warmup_s"),
            );
        }
    }
    let _ = writeln!(md, "\n{}", explanation(curves));
    md
}

/// Why the shapes come out as they do: the report's version of the module doc's "Why", with this run's
/// numbers (the quick sweep has fewer levels: each number names the level it comes from).
fn explanation(curves: &[Curve]) -> String {
    let curve = |w: &str| curves.iter().find(|c| c.workload == w).expect("every workload has a curve");
    // The row at the level nearest `c`, and that level.
    let near = |w: &str, c: f64| -> Option<(&Row, f64)> {
        let rows = &curve(w).rows;
        let r = rows
            .iter()
            .min_by(|a, b| (a.num("concurrency") - c).abs().total_cmp(&(b.num("concurrency") - c).abs()))?;
        Some((*r, r.num("concurrency")))
    };
    let at = |w: &str, c: f64, key: &str| near(w, c).map_or(f64::NAN, |(r, _)| r.metric(key));
    let level = |w: &str, c: f64| near(w, c).map_or(f64::NAN, |(_, l)| l);
    let per_s = |w: &str, c: f64, key: &str| at(w, c, key) / at(w, c, "measured_s");
    // min and max of `f` over the levels from `from` handlers on (of one workload, or of all).
    let span = |ws: &[&str], from: f64, f: &dyn Fn(&Row) -> f64| {
        let v = ws
            .iter()
            .flat_map(|w| curve(w).rows.iter().filter(|r| r.num("concurrency") >= from).map(|r| f(r)));
        finite_range(v).unwrap_or((f64::NAN, f64::NAN))
    };
    let top = curve("one-rand").rows.last().map_or(f64::NAN, |r| r.num("concurrency"));
    let busy = span(&WORKLOADS, 200.0, &|r| 100.0 * r.metric("disk_busy"));
    let whole_requests = span(&["one-whole"], 0.0, &|r| r.metric("requests_completed"));
    let whole_one_page =
        span(&["one-whole"], 400.0, &|r| r.metric("one_page_requests") / r.metric("measured_s"));
    let rand_thrash = span(&["one-rand"], 0.0, &|r| r.metric("thrash_pages_per_s"));
    let rand_tp = span(&["one-rand"], 100.0, &|r| r.metric("throughput_mib_s"));
    let four_tp = span(&["four-64kb"], 100.0, &|r| r.metric("throughput_mib_s"));
    let four_busy = span(&["four-64kb"], 200.0, &|r| 100.0 * r.metric("disk_busy"));
    let mut md = String::new();
    let _ = write!(
        md,
        "### Why\n\n\
The numbers quoted are this run's. The request queue follows 2.6.18's request allocation (`blk.rs`: batchers, \
the anticipatory scheduler's exemption of the handler it waits for, the 3/2 × `nr_requests` hard limit).\n\n\
- **The request queue sets the regime.** Up to 100 handlers nobody waits for a request; from 200 on the \
128-request read queue is always full and read-congested and handlers sleep on it (the mean queue wait grows \
with concurrency, to {:.0} s for One-Rand at {top:.0}); pages allocated for queued and dispatched reads pin a \
growing share of memory (One-Rand at {top:.0}: {:.0} MiB of {} in flight, papers/000 §4.2's \"pages pinned for \
outstanding I/O operations\"). Batching rarely matters here (a handler holds one read request at a time and its \
next comes long after its 20 ms batch window); the exemption does: the handler the anticipatory scheduler waits \
for is not put to sleep (`as_may_queue()`), so the anticipation pays off instead of timing out, and from 200 \
handlers on the disk is busy {:.1}–{:.1} % of the time.\n",
        at("one-rand", top, "queue_wait_ms_mean") / 1000.0,
        at("one-rand", top, "in_flight_mib_mean"),
        MEMORY_BYTES >> 20,
        busy.0,
        busy.1,
    );
    let _ = write!(
        md,
        "- **One-Whole is flat, partly for the paper's reason.** Disk requests are whole or nearly whole 512 KiB \
windows up to 300 handlers, so the disk streams at the same rate at any concurrency, and the exempted handler \
keeps the disk while it reads on: the anticipatory scheduler runs a few handlers nearly serially while the rest \
sleep on the queue ({:.0}–{:.0} requests complete in the measured period at every level). From 400 handlers on, \
windows of sleeping handlers are partly evicted before use and re-read a page at a time ({:.0}–{:.0} one-page \
requests/s).\n\
- **One-Rand does not fall because it hardly thrashes** (at most {:.1} pages/s). A One-Rand handler has one \
stream. While the queue is congested, 2.6's readahead skips the asynchronous ahead window \
(`blockable_page_cache_readahead()` under `bdi_read_congested()`), so the handler reads one window at a time, \
issued when its read reaches the window's end: it sleeps on the queue only when it holds no unread prefetched \
page, and consumes a window as soon as it arrives. Prefetch thrashing needs prefetched pages left waiting while \
their owner is elsewhere; a One-Rand handler never is. Its prefetched-unused evictions are window tails past \
the request's random end: waste, not thrashing. Throughput stays at {:.1}–{:.1} MiB/s from 100 handlers on.\n",
        whole_requests.0,
        whole_requests.1,
        whole_one_page.0,
        whole_one_page.1,
        rand_thrash.1,
        rand_tp.0,
        rand_tp.1,
    );
    let (lo, mid) = (level("two-rand", 200.0), level("two-rand", 500.0));
    let _ = writeln!(
        md,
        "- **Two-Rand falls, on the paper's path.** A handler alternates two files: while it sleeps on the full \
queue for one file's window, the unread rest of the other file's window ages on the inactive list and is evicted, \
and reading on it falls into per-page makeup reads (2.6's `handle_ra_miss()`, then `readpage()` of the one \
missing page), each a positioning of its own: one-page requests rise from {:.0}/s at {lo:.0} handlers to {:.0}/s \
at {mid:.0} and {:.0}/s at {top:.0}, the mean disk request shrinks from {:.0} pages to {:.0}, and throughput falls \
from {:.2} to {:.2} MiB/s. Thrashing, counted as the paper defines it with no bound on how long ago the page \
was evicted, rises from {:.1} to {:.1} pages/s (Figure 2 has hundreds; a history bounded at 40 % of memory, the \
paper's §3.3 size, counts a third as many, as a handler asleep in the full queue comes back after it has \
forgotten). The makeup reads do not snowball, since the elevator chooses at each completion before the woken handler's next read exists and \
the anticipatory scheduler does not wait for a handler whose seeks span two files.",
        per_s("two-rand", lo, "one_page_requests"),
        per_s("two-rand", mid, "one_page_requests"),
        per_s("two-rand", top, "one_page_requests"),
        at("two-rand", lo, "mean_request_pages"),
        at("two-rand", top, "mean_request_pages"),
        at("two-rand", lo, "throughput_mib_s"),
        at("two-rand", top, "throughput_mib_s"),
        at("two-rand", lo, "thrash_pages_per_s"),
        at("two-rand", top, "thrash_pages_per_s"),
    );
    let _ = write!(
        md,
        "- **Four-64KB** rises from 1 to 100 handlers as the scheduler chooses among more requests (§4.3; \
`system-model` part 3), then stays flat ({:.2}–{:.2} MiB/s). Each request is a new handler stream, which the \
anticipatory scheduler waits 6 ms for after its first read; that handler's next read is exempt from the full \
queue, so the wait ends in a hit and the disk is busy {:.1}–{:.1} % from 200 handlers on (`disk busy` column). \
Its readahead is off (random reads): it never thrashes.\n\
- **The warm-up bound** (`(bound)` above): a few handlers never finish their first request. A handler whose \
window was evicted before it read it falls into per-page makeup reads — the current window already covers the \
missing pages, so 2.6's readahead does not read them again as a window — and each page waits the whole queue \
unless it is anticipated (even in the measured period the slowest One-Rand request at {top:.0} handlers took \
{:.0} s). Measuring then starts with memory full and almost every handler done.\n\n\
What the model lacks that bears on these curves: the paper ran a 2.6.10 corrected for its ref. [25]'s \
readahead-under-congestion anomaly, and what the fix did is not in any text at hand; this model runs 2.6.18's \
readahead, which skips an ahead window on a congested queue and reads it blocking once the reader reaches it. \
The other reading, ahead windows issued whatever the queue's state (`--prefetch linux-2.6:512KiB,congestion=ignore`), \
was measured outside this run (the module doc has the table): Two-Rand falls to 3.73 MiB/s at 1000 handlers \
with 43 thrashed pages/s, and One-Rand thrashes 8 pages/s there but still does not fall (it loses 18-21 % at \
every level from 100 handlers on to windows read past its requests' ends). 2.6.10's request allocation had batching \
and the exemption but not yet the 3/2 hard limit (2.6.13); the model follows 2.6.18, and a woken handler \
allocates in the completion's event (after the elevator has chosen), before any other submitter.",
        four_tp.0,
        four_tp.1,
        four_busy.0,
        four_busy.1,
        at("one-rand", top, "latency_max_ms") / 1000.0,
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Experiment;

    fn row(workload: &str, c: u32, tp: f64, thrash: f64) -> Row {
        Row {
            params: vec![("workload".into(), workload.into()), ("concurrency".into(), Value::from(c as u64))],
            metrics: vec![("throughput_mib_s".into(), tp), ("thrash_pages_per_s".into(), thrash)],
            series: Vec::new(),
        }
    }

    /// Synthetic curves with known shapes get the verdicts the criteria say, and every verdict is computed
    /// from the rows (none is fixed).
    #[test]
    fn verdicts_follow_the_stated_criteria() {
        let points = [1, 100, 500, 1000];
        let mk = |w: &str, tps: [f64; 4], thrash: [f64; 4]| -> Vec<Row> {
            points.iter().zip(tps).zip(thrash).map(|((&c, tp), th)| row(w, c, tp, th)).collect()
        };
        // The paper's shapes: flat, peak-and-fall with thrashing rising, peak-and-fall, flat.
        let mut rows = mk("one-whole", [12.0, 12.5, 12.2, 11.9], [0.0; 4]);
        rows.extend(mk("one-rand", [9.0, 11.0, 9.0, 8.0], [0.0, 1.0, 30.0, 90.0]));
        rows.extend(mk("two-rand", [8.0, 10.0, 7.0, 5.0], [0.0, 2.0, 50.0, 200.0]));
        rows.extend(mk("four-64kb", [5.0, 5.5, 5.4, 5.3], [0.0; 4]));
        let f = KernelBaseline.analyze(&rows, true);
        let verdicts: Vec<Verdict> = f.checks.iter().map(|c| c.verdict).collect();
        assert_eq!(verdicts, [Verdict::Reproduced; 4], "{:#?}", f.checks);

        // One-Rand rising without falling; Two-Rand falling without a rise; One-Whole falling; Four-64KB
        // rising 40 % and staying there.
        let mut rows = mk("one-whole", [12.0, 12.0, 9.0, 8.0], [0.0; 4]);
        rows.extend(mk("one-rand", [9.0, 10.0, 10.5, 10.4], [0.0, 0.0, 0.0, 5.0]));
        rows.extend(mk("two-rand", [10.0, 10.2, 8.0, 6.0], [0.0, 0.0, 10.0, 50.0]));
        rows.extend(mk("four-64kb", [5.0, 7.0, 7.0, 6.9], [0.0; 4]));
        let f = KernelBaseline.analyze(&rows, true);
        let verdicts: Vec<Verdict> = f.checks.iter().map(|c| c.verdict).collect();
        assert_eq!(
            verdicts,
            [Verdict::NotReproduced, Verdict::NotReproduced, Verdict::Partial, Verdict::Partial],
            "{:#?}",
            f.checks
        );
        // The measured text carries the numbers the verdict was computed from.
        assert!(f.checks[2].measured.contains("peak 10.20 at 100"), "{}", f.checks[2].measured);
    }

    /// The sweep has every workload at every level, and the quick one finishes its points.
    #[test]
    fn the_sweeps_cover_every_workload_and_level() {
        let e = KernelBaseline;
        let labels: Vec<String> = e.jobs(true, 1).into_iter().map(|j| j.label).collect();
        assert_eq!(labels.len(), WORKLOADS.len() * CONCURRENCY_QUICK.len());
        assert_eq!(e.jobs(false, 1).len(), WORKLOADS.len() * CONCURRENCY.len());
        for w in WORKLOADS {
            for c in CONCURRENCY_QUICK {
                assert!(labels.contains(&format!("{w} x{c}")), "{labels:?}");
            }
        }
        assert!(super::super::find("kernel-baseline").is_some(), "registered in experiment::all()");
    }

    /// A reduced sweep (two levels, 10 s measured) through the real simulator: deterministic for a seed,
    /// the table has a line per run, and at 1000 handlers the request queue is the bottleneck it should be
    /// (handlers sleep on a full queue, and nearly every handler holds at least one 64 KiB read's pages
    /// queued or in flight: papers/000 §4.2's "pages pinned for outstanding I/O operations").
    #[test]
    fn a_reduced_sweep_is_deterministic_and_complete() {
        let mut rows = Vec::new();
        for w in WORKLOADS {
            for c in [1, 1000] {
                rows.push(run(w, c, 10, 7).unwrap());
            }
        }
        assert_eq!(run("two-rand", 1000, 10, 7).unwrap(), rows[5], "same seed, same numbers");
        for r in &rows {
            assert!(r.metric("throughput_mib_s") > 0.0, "{r:?}");
            if r.num("concurrency") == 1000.0 {
                assert!(r.metric("queue_full_waits") > 0.0, "{r:?}");
                // 1000 handlers × 64 KiB = 62.5 MiB if every handler has one read outstanding.
                assert!(r.metric("in_flight_mib_mean") > 50.0, "{r:?}");
            } else {
                assert_eq!(r.metric("queue_full_waits"), 0.0, "one handler never fills the queue: {r:?}");
            }
        }
        let f = KernelBaseline.analyze(&rows, true);
        assert_eq!(f.checks.len(), 4);
        let table_lines = f.markdown.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| workload"));
        assert_eq!(table_lines.count(), rows.len());
        for w in WORKLOADS {
            assert!(f.markdown.contains(&format!("| {w} | 1000 |")), "{w}");
        }
    }
}
