//! `scm-prefetch`: Zhang et al.'s rate-aware multi-stream prefetching, ETS and ESF, against Linux's 32-32
//! and the fixed 24-48 (papers/002, slides "Two streams with different rates" to "Throughput of server
//! benchmarks").
//!
//! Four experiments, each a sweep of `simulate` runs on one server:
//! 1. **rates** — two open-loop streams, stream 1 at 1,000 pages/s, stream 2 at 3,000 / 5,000 / 7,000,
//!    both Poisson (SD = √rate): average response time of page requests and misses per prefetch cycle
//!    (ESC);
//! 2. **deviations** — two streams, stream 2's gaps with a coefficient of variation of 3, 5, 7 ("SD … 3
//!    to 7 times of the average"), gamma-distributed (bursts of about cv² requests; the workload's module
//!    doc says why): average and per-stream response time;
//! 3. **vod** — 8 to 32 SPC-2-VOD-like streams (`spc2-vod`: video rates of 2, 5 and 10 Mbit/s) beside one
//!    TPC-H-like random reader: aggregate stream throughput and the memory held by unaccessed prefetched
//!    pages;
//! 4. **tpch** — the random reader's throughput in the same runs.
//!
//! Every run has all four prefetchers: `tp:32-32` (Linux 2.6.18's ramp to T = P = 32), `tp:24-48,fixed`,
//! `ets:24-48`, `esf:24-48`. Fairness: every policy's time-averaged prefetched-unaccessed memory is set
//! beside 32-32's in the same case.
//!
//! What the slides state, and so what this sets: the testbed, "2.33GHz quad-core CPU, 16GB memory"
//! (`cpus = 4`, `memory = 16 GiB`), Linux 2.6.18 (the default server's 2.6 memory model), the four
//! policies and their parameters. What they do not state, and pagelab's choices: the disk (the Seagate
//! Barracuda 7200.11 ST3500320AS, a 7,200 RPM SATA disk of 2008, [`crate::device::st3500320as`]), the I/O
//! scheduler (the anticipatory elevator of the shared server model, as for the other papers' 2.6 kernels;
//! 2.6.18 made CFQ the default, which the `rates-cfq` diagnostic runs), the rate
//! of stream 2 in the deviations experiment (1,000 pages/s, as stream 1: then ETS gives both streams 24-48
//! and ESF's difference is the deviation alone), the unstable stream's gap distribution (gamma; the
//! `deviations-h2` diagnostic draws it from a hyperexponential of the same mean and cv, whose variance is
//! in pauses rather than bursts: there the unstable stream never runs short and ESF changes nothing, within
//! ±3 %), the run length (a measured 60 s after a fixed 2 s warm-up,
//! quick: 5 s after 1 s; a stream at 1,000 pages/s then makes 60,000 requests) and the video rates.
//!
//! Measured while building this (a diagnostic the report repeats in its `rates-deadline` rows): under the
//! anticipatory elevator, 32-32's fast stream at 5,000 pages/s issues a window every 6.4 ms (32 pages),
//! so its think time (from a window's completion to the next window's issue: 6.4 ms less the lead time)
//! is below `antic_expire` (6 ms): the elevator waits for it, and the slow stream's windows wait behind.
//! 24-48's fast stream (a window every 9.6 ms) thinks longer and is not waited for. With
//! `antic_expire` at 3 ms the slow stream under 32-32 answers in 2 µs instead of 338 µs (20-s runs). Part
//! of ETS's advantage in the `rates` rows is this interaction, which is why the deadline rows are there.
//!
//! Why not CFQ, 2.6.18's default, for the main rows: each stream here is its own process, as the slides'
//! "streams" suggest but do not say, and under 2.6.18's CFQ (the `rates-cfq` rows) a process reading a
//! window every few milliseconds keeps an idle window and holds the disk for its 100-ms slice while the
//! other process's prefetches wait: at 7,000 pages/s the slow stream waits 17–28 ms on average under every
//! policy, and the average response is 2.6–3.7 ms where the slides' is about 100 µs. A benchmark that
//! drove both streams from one process would give either elevator one queue and no such waits; which the
//! slides ran is not known, so the main rows keep the shared model's elevator and both diagnostics stay.
//! (Until the simulator asked the scheduler for a dispatch only at queue runs, CFQ's idle window was held
//! open by every event and these rows were worse still: 32-32's fast stream waited up to 128 ms.)
//!
//! The lead time (measured; the `capacity-nocache` rows are its diagnostic): the Barracuda's read cache
//! (a stand-in: 16 segments of 2 MiB, read-ahead up to a segment) keeps each stream's next window in the
//! drive, so a 32-page prefetch takes about 1 ms of disk service, far inside the 4.6 ms such a window lasts
//! at 7,000 pages/s; ESC stays below 0.2 a cycle and a stream runs short only when the elevator holds its
//! request. With the cache off, every request after the other stream's pays a seek and a rotation, and two
//! greedy streams get 3,572 (32-32) and 4,692 (24-48) pages/s, short of the 6,000 and 8,000 the rates
//! experiment asks for in all. The slides' response times (about 100 µs) and their ESC chart (scaled to
//! 5 misses a cycle) suggest lead times near a window's supply on a disk that was not saturated, between
//! the two; the slides do not name the disk, so no drive is chosen to match them.
//!
//! The server-benchmark slide's chart scales (its values are not in our copy): the aggregate throughput of
//! "Sequential+random apps." runs to 9,000 pages/s, the unaccessed prefetched data to 1,600 pages and the
//! TPC-H reader's throughput to 450 pages/s. The `vod` rows' memory fits (32-32 holds 1,563 pages at 32
//! streams); their throughput does not: the video rates here (2, 5 and 10 Mbit/s in turn) offer 5,402
//! pages/s at 32 streams, and the random reader makes 483–535 pages/s at 8 streams, above that axis. Streams of about 9 Mbit/s each (275 pages/s, 8,800 at 32) would fit both
//! axes. Measured with them (`rate-streams`, 8 to 32 streams at 275 pages/s and one random reader, 60 s
//! after 2 s, seed 1, 2026-12-06; not in the experiment): the aggregate is 2,531 / 4,501 / 6,627 / 8,804
//! pages/s under 32-32 and 2,619 / 4,602 / 6,631 / 8,775 under ETS at 8 / 16 / 24 / 32 streams (+3.5,
//! +2.2, +0.1, −0.3 %), the random reader's 335 / 103 / 36 / 16 and 425 / 202 / 41 / 17 pages/s. The
//! streams still get their offered load under both (their mean response grows to 198 and 297 ms at 32
//! streams), so that reading of the rates does not give the slides' 6–53 % either: it needs streams the
//! disk cannot serve, which paced video streams are not until they fall behind for good.
//!
//! Streams the disk cannot serve, measured (2026-12-06; `rate-streams` with every stream at 20,000 pages/s
//! and one random reader, 20 s after 2 s, seed 1, 16 GiB, 4 CPUs; not in the experiment), page requests
//! served by the streams in all, ETS against 32-32 at 8 / 16 / 32 streams:
//! - this drive, anticipatory elevator: −0.8 % / −0.4 % / −0.3 %: the elevator serves a
//!   greedy stream's windows back to back and the drive's read-ahead segments do the rest, so the OS's
//!   prefetch degree does not matter;
//! - deadline: −18.5 % / −18.1 % / −19.8 %; CFQ: +0.1 % / +0.8 % / +0.6 %;
//! - the drive's read cache off (`st3500320as:nocache`), anticipatory: +31.5 % / +30.8 % / +33.0 %, about
//!   what 48-page requests against 32-page ones give when every request pays a seek.
//!
//! None rises from 6 % at 8 streams to 53 % at 32 as the slides' chart does; the last comes nearest in
//! size and has no trend. The slides name neither the disk nor the streams' rates, so nothing here is
//! chosen to match them.
//!
//! Equal memory, measured (2026-12-06; the report's `Equal memory` paragraph computes it from each run).
//! The rule is counted run by run, each policy's run against 32-32's of the same case and seed, as
//! "every run" says; a seed mean can hide a run outside. The sequential streams' own memory is the budget's
//! whatever the split: a reader that never waits holds T_i + P/2 on average and Σ T_i = T_total, so ETS
//! and ESF hold 48 pages a stream like 24-48 and 32-32 (T = P = 32). Two things move a run off it. A reader
//! waiting on windows in flight holds all of them: P pages, and under 32-32, whose mark is a window's first
//! page, 2P; where the elevator holds 32-32's slow stream back (7,000 pages/s under the anticipatory
//! elevator, 5,000 and 7,000 under CFQ) 32-32 holds 8–16 % more than 24-48, and under deadline it
//! does not. In the vod runs the TPC-H-like reader's random 16-KiB reads sometimes pass Linux's sequential
//! tests: traced with a temporary print in `ScmPrefetcher::on_sync_miss` (seed 2, ESF, 8 streams), five
//! reads were `Context { history: 8 }` or `{ history: 48 }` (the pages before them cached) and opened
//! windows of 48 and 96 pages (96 once the reader's T_i was P: a random miss then left a stream its last
//! T_i, and since the same day it returns it to the default, which brought ESF's excess at 8 VOD streams
//! from +21.4 to +8.8 % and the runs over 32-32's memory from 10 to 8). Nobody reads those pages again and 16 GiB
//! never evicts them, so one such read early in a run adds tens of pages to the run's average, and which
//! seeds get one is chance. pagelab keeps Linux's tests for every reader (a kernel cannot tell a random
//! reader apart either), so the report says where each difference lies and the claims drop comparisons
//! that held more. The explanations read metrics that `results.csv` leaves out ([`REPORT_ONLY_METRICS`]).
//!
//! Response time is measured from a page
//! request's paced arrival to its delivery (the data copied to the reader).

use super::{finite_range, signed_pct, Chart, Check, Experiment, Findings, Job, Row, Verdict};
use crate::config::{SimConfig, Warmup};
use crate::device::{spec::ST3500320AS, DeviceSpec};
use crate::error::SimError;
use crate::metrics::{RunMetrics, StreamMetrics};
use crate::server::simulate;
use crate::workload::scm::RANDOM_BLOCK_DEFAULT_BYTES;
use crate::workload::spec::parse_workload;
use pagelab_core::prefetch::AnyPrefetcher;
use pagelab_core::{Nanos, PAGE_SIZE_BYTES};
use std::cell::OnceCell;
use std::fmt::Write as _;

pub struct ScmPrefetch;

/// The policies as the slides name them, and the prefetcher each is.
pub const POLICIES: [(&str, &str); 4] =
    [("32-32", "tp:32-32"), ("24-48", "tp:24-48,fixed"), ("ets", "ets:24-48"), ("esf", "esf:24-48")];
const FAST_RATES: [u64; 3] = [3000, 5000, 7000];
const FAST_RATES_QUICK: [u64; 2] = [3000, 7000];
const SD_FACTORS: [u64; 3] = [3, 5, 7];
const SD_FACTORS_QUICK: [u64; 2] = [3, 7];
const VOD_STREAMS: [u64; 7] = [8, 12, 16, 20, 24, 28, 32];
const VOD_STREAMS_QUICK: [u64; 2] = [8, 32];
const SLOW_RATE: u64 = 1000;
/// The trigger distance of 24-48, and ETS's and ESF's default and average (their specs' `24-`).
const T_DEFAULT_PAGES: u64 = 24;
/// The prefetch degree of 24-48, ETS and ESF (their specs' `-48`).
const P_PAGES: u64 = 48;
/// 32-32's prefetch degree once its ramp is up.
const P_3232_PAGES: u64 = 32;
/// The unstable stream's rate in the `deviations-5000` diagnostic.
const DEVIATIONS_FAST_RATE: u64 = 5000;
/// The capacity diagnostic's rate per stream: far beyond any 2009 disk.
const CAPACITY_RATE: u64 = 20_000;
/// Seeds per case in the full sweep (`--seed` and the next ones): a bursty stream's response time varies by
/// tens of percent from seed to seed, so every number in the analysis is the mean over them.
const SEEDS: u64 = 3;
/// Fairness: a policy's prefetch memory within this fraction of 32-32's (the 5 %).
const MEMORY_TOLERANCE: f64 = 0.05;
/// Metrics of a row that the report reads to explain its numbers (where a difference in memory lies, which
/// stream ran short) and that `results.csv` leaves out ([`ScmPrefetch::result_rows`]): its columns are the
/// issue's and the counts they come from, and sweeps are compared byte for byte across changes.
const REPORT_ONLY_METRICS: [&str; 6] = [
    "prefetch_memory_pages_random",
    "random_pages_beyond_blocks",
    "shortages_stream1",
    "shortages_stream2",
    "requests_stream1",
    "requests_stream2",
];

#[derive(Clone, Copy, Debug)]
enum Case {
    Rates {
        fast: u64,
    },
    Deviations {
        sd: u64,
    },
    Vod {
        streams: u64,
    },
    /// A diagnostic, not in the slides: two streams far faster than the disk (20,000 pages/s each), whose
    /// throughput is what the server can deliver to two sequential readers.
    Capacity,
    /// A diagnostic, not in the slides: [`Case::Capacity`] with the drive's read cache off
    /// (`st3500320as:nocache`), so that every request between the two streams pays a seek and a rotation:
    /// the lead time of a prefetch without the drive's own read-ahead.
    CapacityNoCache,
    /// A diagnostic, not in the slides: the rates experiment under the deadline elevator, which never idles
    /// for a reader, so that the prefetchers' effect shows apart from the anticipatory elevator's.
    RatesDeadline {
        fast: u64,
    },
    /// A diagnostic, not in the slides: the rates experiment under CFQ, 2.6.18's default elevator (the
    /// slides' kernel; the shared server model keeps the anticipatory elevator of the other papers).
    RatesCfq {
        fast: u64,
    },
    /// A diagnostic, not in the slides: the deviations experiment with the unstable stream at 5,000 pages/s
    /// (the middle of the rates experiment) instead of 1,000, the other reading of a rate the slides omit.
    DeviationsFast {
        sd: u64,
    },
    /// A diagnostic, not in the slides: the deviations experiment with the unstable stream's gaps drawn
    /// from a balanced two-phase hyperexponential of the same mean and cv (`gaps=h2`) instead of a gamma:
    /// its variance in rare long pauses rather than in bursts (the workload's module doc).
    DeviationsH2 {
        sd: u64,
    },
}

impl Case {
    fn experiment(self) -> &'static str {
        match self {
            Case::Rates { .. } => "rates",
            Case::Deviations { .. } => "deviations",
            Case::Vod { .. } => "vod",
            Case::Capacity => "capacity",
            Case::CapacityNoCache => "capacity-nocache",
            Case::RatesDeadline { .. } => "rates-deadline",
            Case::RatesCfq { .. } => "rates-cfq",
            Case::DeviationsFast { .. } => "deviations-5000",
            Case::DeviationsH2 { .. } => "deviations-h2",
        }
    }

    fn workload(self) -> String {
        match self {
            Case::Rates { fast } | Case::RatesDeadline { fast } | Case::RatesCfq { fast } => {
                format!("rate-streams:rates={SLOW_RATE}/{fast},cv=1/1")
            }
            Case::Deviations { sd } => format!("rate-streams:rates={SLOW_RATE}/{SLOW_RATE},cv=1/{sd}"),
            Case::DeviationsFast { sd } => {
                format!("rate-streams:rates={SLOW_RATE}/{DEVIATIONS_FAST_RATE},cv=1/{sd}")
            }
            Case::DeviationsH2 { sd } => {
                format!("rate-streams:rates={SLOW_RATE}/{SLOW_RATE},cv=1/{sd},gaps=h2")
            }
            Case::Vod { streams } => format!("spc2-vod:streams={streams},tpch=1"),
            Case::Capacity | Case::CapacityNoCache => {
                format!("rate-streams:rates={CAPACITY_RATE}/{CAPACITY_RATE},cv=1/1")
            }
        }
    }

    fn label(self) -> String {
        match self {
            Case::Rates { fast } => format!("rates 1000/{fast} pages/s"),
            Case::Deviations { sd } => format!("deviations cv 1/{sd}"),
            Case::Vod { streams } => format!("vod {streams} streams + tpch"),
            Case::Capacity => "capacity: two greedy streams".into(),
            Case::CapacityNoCache => "capacity: two greedy streams, drive cache off".into(),
            Case::RatesDeadline { fast } => format!("rates 1000/{fast} pages/s, deadline"),
            Case::RatesCfq { fast } => format!("rates 1000/{fast} pages/s, cfq"),
            Case::DeviationsFast { sd } => {
                format!("deviations 1000/{DEVIATIONS_FAST_RATE} pages/s, cv 1/{sd}")
            }
            Case::DeviationsH2 { sd } => format!("deviations cv 1/{sd}, hyperexponential gaps"),
        }
    }
}

fn cases(quick: bool) -> Vec<Case> {
    let pick = |full: &'static [u64], q: &'static [u64]| if quick { q } else { full };
    let mut v: Vec<Case> =
        pick(&FAST_RATES, &FAST_RATES_QUICK).iter().map(|&fast| Case::Rates { fast }).collect();
    v.extend(pick(&SD_FACTORS, &SD_FACTORS_QUICK).iter().map(|&sd| Case::Deviations { sd }));
    v.extend(pick(&VOD_STREAMS, &VOD_STREAMS_QUICK).iter().map(|&streams| Case::Vod { streams }));
    v.push(Case::Capacity);
    v.push(Case::CapacityNoCache);
    v.extend(pick(&FAST_RATES, &FAST_RATES_QUICK).iter().map(|&fast| Case::RatesDeadline { fast }));
    v.extend(pick(&FAST_RATES, &FAST_RATES_QUICK).iter().map(|&fast| Case::RatesCfq { fast }));
    v.extend(pick(&SD_FACTORS, &SD_FACTORS_QUICK).iter().map(|&sd| Case::DeviationsFast { sd }));
    v.extend(pick(&SD_FACTORS, &SD_FACTORS_QUICK).iter().map(|&sd| Case::DeviationsH2 { sd }));
    v
}

impl Experiment for ScmPrefetch {
    fn name(&self) -> &'static str {
        "scm-prefetch"
    }

    fn title(&self) -> &'static str {
        "Rate-aware multi-stream prefetching (ETS, ESF) against Linux's 32-32 and 24-48 at equal memory"
    }

    fn description(&self) -> &'static str {
        "Runs Zhang et al.'s four experiments (papers/002): two open-loop streams of different rates, two of \
         different deviations, 8 to 32 SPC-2-VOD-like streams beside a TPC-H-like random reader, with the \
         prefetchers 32-32, 24-48, ETS and ESF on a 4-CPU, 16 GiB server; measures response time, misses \
         per prefetch cycle, fill rate, prefetch memory and throughput, and sets them beside the slides' \
         claims, with six diagnostics beside them (the disk's capacity with and without its read cache, the \
         rates under the deadline and the CFQ elevators, the deviations with the unstable stream at 5,000 \
         pages/s and with its gaps in pauses rather than bursts). Full: 108 cases of 60 s simulated, each \
         with 3 seeds (324 runs); quick: 64 runs of 5 s, one seed."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        let mut jobs = Vec::new();
        let seeds = if quick { 1 } else { SEEDS };
        for seed in super::seeds(seed, seeds) {
            for case in cases(quick) {
                for (name, spec) in POLICIES {
                    jobs.push(Job::new(format!("{} {name} seed {seed}", case.label()), move || {
                        run(case, name, spec, quick, seed)
                    }));
                }
            }
        }
        jobs
    }

    fn analyze(&self, rows: &[Row], _quick: bool) -> Findings {
        let a = Analysis::new(rows);
        let checks = vec![
            a.within_budget(a.ets_response(), "rates", &["ets"]),
            a.within_budget(a.ets_cycles_and_esc(), "rates", &["ets"]),
            a.within_budget(a.esf_response(), "deviations", &["ets", "esf"]),
            a.within_budget(a.esf_per_stream(), "deviations", &["ets", "esf"]),
            a.within_budget(a.vod_throughput(), "vod", &["ets"]),
            a.within_budget(a.tpch_throughput(), "vod", &["ets"]),
            a.fairness(),
        ];
        let summary = a.summary();
        Findings { summary, charts: a.charts(), checks, markdown: a.markdown() }
    }

    /// The rows without [`REPORT_ONLY_METRICS`].
    fn result_rows(&self, rows: &[Row]) -> Vec<Row> {
        rows.iter()
            .map(|r| Row {
                metrics: r
                    .metrics
                    .iter()
                    .filter(|(k, _)| !REPORT_ONLY_METRICS.contains(&k.as_str()))
                    .cloned()
                    .collect(),
                ..r.clone()
            })
            .collect()
    }
}

fn run(case: Case, name: &str, spec: &str, quick: bool, seed: u64) -> Result<Row, SimError> {
    let cfg = SimConfig {
        memory_bytes: 16 << 30,
        cpus: 4,
        device: DeviceSpec::parse(ST3500320AS).expect("built-in device"),
        prefetcher: AnyPrefetcher::parse(spec, PAGE_SIZE_BYTES)?,
        duration: Nanos::from_secs(if quick { 5 } else { 60 }),
        warmup: Warmup::Fixed(Nanos::from_secs(if quick { 1 } else { 2 })),
        seed,
        ..SimConfig::default()
    };
    let cfg = match case {
        Case::RatesDeadline { .. } => SimConfig { scheduler: "deadline".parse()?, ..cfg },
        Case::RatesCfq { .. } => SimConfig { scheduler: "cfq".parse()?, ..cfg },
        Case::CapacityNoCache => SimConfig {
            device: DeviceSpec::parse(&format!("{ST3500320AS}:nocache")).expect("built-in device"),
            ..cfg
        },
        _ => cfg,
    };
    let m = simulate(cfg, parse_workload(&case.workload())?)?;
    Ok(row(case, name, seed, &m))
}

/// The run's row: the columns, then the counts they come from.
fn row(case: Case, name: &str, seed: u64, m: &RunMetrics) -> Row {
    let sequential: Vec<_> = m.streams.iter().filter(|s| s.kind.starts_with("sequential")).collect();
    let random: Vec<_> = m.streams.iter().filter(|s| s.kind.starts_with("random")).collect();
    let requests: u64 = sequential.iter().map(|s| s.requests).sum();
    let weighted: f64 = sequential.iter().map(|s| s.response_time_us_mean * s.requests as f64).sum();
    let shortages: u64 = sequential.iter().map(|s| s.shortages).sum();
    let cycles: u64 = sequential.iter().map(|s| s.prefetch_cycles).sum();
    let fetched: u64 = sequential.iter().map(|s| s.pages_fetched).sum();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    let esc = ratio(shortages as f64, cycles as f64);
    let order = ratio(fetched as f64, cycles as f64);
    let of = |i: usize, f: fn(&StreamMetrics) -> f64| sequential.get(i).map_or(f64::NAN, |s| f(s));
    let (streams, fast, sd) = match case {
        Case::Rates { fast } | Case::RatesDeadline { fast } | Case::RatesCfq { fast } => {
            (2, fast as f64, 1.0)
        }
        Case::Deviations { sd } | Case::DeviationsH2 { sd } => (2, SLOW_RATE as f64, sd as f64),
        Case::DeviationsFast { sd } => (2, DEVIATIONS_FAST_RATE as f64, sd as f64),
        Case::Vod { streams } => (streams, f64::NAN, 1.0),
        Case::Capacity | Case::CapacityNoCache => (2, CAPACITY_RATE as f64, 1.0),
    };
    let page_mib = PAGE_SIZE_BYTES as f64 / (1 << 20) as f64;
    let seq_pages_s = sequential.iter().fold(0.0, |sum, s| sum + s.throughput_pages_s);
    // A random reader's fetch is its block unless a read looked sequential and opened a window: what it
    // fetched beyond one block a fetch is what such windows brought in (less what was cached already).
    let block_pages = RANDOM_BLOCK_DEFAULT_BYTES / PAGE_SIZE_BYTES;
    let random_beyond: f64 =
        random.iter().map(|s| s.pages_fetched as f64 - (block_pages * s.prefetch_cycles) as f64).sum();
    Row {
        params: vec![
            ("experiment".into(), case.experiment().into()),
            ("prefetch".into(), name.into()),
            ("streams".into(), streams.into()),
            ("fast_rate_pages_s".into(), fast.into()),
            ("sd_factor".into(), sd.into()),
            ("seed".into(), seed.into()),
        ],
        metrics: vec![
            ("response_time_us".into(), ratio(weighted, requests as f64)),
            ("response_time_us_stream1".into(), of(0, |s| s.response_time_us_mean)),
            ("response_time_us_stream2".into(), of(1, |s| s.response_time_us_mean)),
            ("esc".into(), esc),
            // The slides' FR = 1 − ESC / Q with Q = P, the policy's prefetch degree (32 for 32-32, else 48).
            (
                "fill_rate".into(),
                1.0 - ratio(esc, if name == "32-32" { P_3232_PAGES } else { P_PAGES } as f64),
            ),
            (
                "prefetch_memory_pages_mean".into(),
                m.memory.prefetched_unused_bytes_mean / PAGE_SIZE_BYTES as f64,
            ),
            ("throughput_mib_s".into(), m.throughput_mib_s),
            ("stream_throughput_pages_s".into(), seq_pages_s),
            ("stream_throughput_mib_s".into(), seq_pages_s * page_mib),
            (
                "random_throughput_pages_s".into(),
                random.iter().fold(0.0, |sum, s| sum + s.throughput_pages_s),
            ),
            ("prefetch_memory_pages_stream1".into(), of(0, |s| s.prefetch_memory_pages_mean)),
            ("prefetch_memory_pages_stream2".into(), of(1, |s| s.prefetch_memory_pages_mean)),
            ("prefetch_cycles".into(), cycles as f64),
            ("shortages".into(), shortages as f64),
            ("pages_per_cycle".into(), order),
            ("disk_busy".into(), m.disk.busy_fraction),
            ("mean_service_ms".into(), m.disk.mean_service_ms),
            ("mean_request_pages".into(), m.disk.mean_request_pages),
            (
                "response_time_us_max".into(),
                sequential.iter().map(|s| s.response_time_us_max).fold(0.0, f64::max),
            ),
            // REPORT_ONLY_METRICS from here.
            (
                "prefetch_memory_pages_random".into(),
                random.iter().fold(0.0, |sum, s| sum + s.prefetch_memory_pages_mean),
            ),
            ("random_pages_beyond_blocks".into(), random_beyond),
            ("shortages_stream1".into(), of(0, |s| s.shortages as f64)),
            ("shortages_stream2".into(), of(1, |s| s.shortages as f64)),
            ("requests_stream1".into(), of(0, |s| s.requests as f64)),
            ("requests_stream2".into(), of(1, |s| s.requests as f64)),
        ],
        series: Vec::new(),
    }
}

/// A run compared with 32-32's for equal memory: another policy's, outside the capacity sweeps.
fn compared_with_32_32(r: &Row) -> bool {
    r.text("prefetch") != "32-32" && !r.text("experiment").starts_with("capacity")
}

/// [`Analysis::memory_tally`]: the compared runs and cases, and those outside the tolerance.
struct MemoryTally<'a> {
    runs: &'a [MemoryRun],
    outside: Vec<&'a MemoryRun>,
    /// Of `outside`, the runs with more memory than 32-32's.
    more: usize,
    /// Every case's seed-mean change against 32-32's.
    cases: &'a [(String, f64)],
    cases_outside: usize,
}

/// One compared run's prefetch memory against 32-32's run of the same case and seed: the issue's "within
/// 5 % of 32-32's in every run that is compared", run by run.
#[derive(Clone, Debug)]
struct MemoryRun {
    experiment: String,
    /// The swept value, as the rows hold it.
    x: f64,
    /// The case and policy as the report names them (`vod 8 streams (esf)`), as [`Analysis::memory_ratios`].
    label: String,
    prefetch: String,
    seed: f64,
    /// (this run's memory − 32-32's) / 32-32's; NaN without a 32-32 run to compare with.
    change: f64,
}

/// Cases outside the fairness tolerance whose difference is one stream waiting on its windows: the
/// policy whose memory is off (`dev`), the stream, and the policies (with the seeds of their runs outside)
/// compared with it.
#[derive(Clone, Debug)]
struct Waiting {
    exp: String,
    x: f64,
    dev: String,
    stream: usize,
    streams: f64,
    others: Vec<(String, Vec<f64>)>,
}

/// Outside the fairness tolerance, or not comparable.
fn memory_outside(change: f64) -> bool {
    change.is_nan() || change.abs() > MEMORY_TOLERANCE
}

/// Which policy to name first and which second in a percentage: every percentage in the report is the
/// change (a − b) / b of the first against the second, and a claim says which direction is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Better {
    Lower,
    Higher,
}

struct Analysis<'a> {
    rows: &'a [Row],
    /// [`Analysis::memory_ratios`], computed on first use: the fairness check, the summary and the report
    /// all read it.
    memory: OnceCell<Vec<(String, f64)>>,
    /// [`Analysis::memory_runs`], computed on first use: the fairness check and the budget rule of every
    /// claim read it.
    memory_runs: OnceCell<Vec<MemoryRun>>,
}

impl<'a> Analysis<'a> {
    /// The runs of one case and policy, one per seed.
    fn runs<'r>(
        &'r self,
        experiment: &'r str,
        prefetch: &'r str,
        key: &'r str,
        x: f64,
    ) -> impl Iterator<Item = &'r Row> {
        self.rows.iter().filter(move |r| {
            r.text("experiment") == experiment && r.text("prefetch") == prefetch && r.num(key) == x
        })
    }

    /// The seeds the sweep ran, in order.
    fn seeds(&self) -> Vec<f64> {
        let mut seeds: Vec<f64> = Vec::new();
        for r in self.rows {
            if !seeds.contains(&r.num("seed")) {
                seeds.push(r.num("seed"));
            }
        }
        seeds
    }

    /// The x values of an experiment's sweep, in run order.
    fn xs(&self, experiment: &str, key: &str) -> Vec<f64> {
        let mut xs: Vec<f64> = Vec::new();
        for r in self.rows.iter().filter(|r| r.text("experiment") == experiment) {
            if !xs.contains(&r.num(key)) {
                xs.push(r.num(key));
            }
        }
        xs
    }

    /// A metric of one case and policy: the mean over its seeds (NaN if it did not run).
    fn metric(&self, experiment: &str, prefetch: &str, key: &str, x: f64, metric: &str) -> f64 {
        let values: Vec<f64> = self.runs(experiment, prefetch, key, x).map(|r| r.metric(metric)).collect();
        if values.is_empty() {
            f64::NAN
        } else {
            values.iter().sum::<f64>() / values.len() as f64
        }
    }

    /// `reductions` of each seed on its own: how much the result moves from seed to seed.
    fn reductions_by_seed(
        &self,
        exp: &str,
        key: &str,
        metric: &str,
        a: &str,
        b: &str,
    ) -> Vec<(f64, Vec<(f64, f64)>)> {
        self.seeds()
            .into_iter()
            .map(|seed| {
                let one: Vec<Row> = self.rows.iter().filter(|r| r.num("seed") == seed).cloned().collect();
                (seed, Analysis::new(&one).reductions(exp, key, metric, a, b))
            })
            .collect()
    }

    /// (x, a/b − 1) over an experiment's sweep: the change of `a`'s metric against `b`'s, the report's one
    /// sign convention (negative: `a` is lower).
    fn changes(&self, exp: &str, key: &str, metric: &str, a: &str, b: &str) -> Vec<(f64, f64)> {
        self.reductions(exp, key, metric, a, b).into_iter().map(|(x, r)| (x, -r)).collect()
    }

    /// (x, 1 − a/b) over an experiment's sweep: how much lower `a`'s metric is than `b`'s.
    fn reductions(&self, exp: &str, key: &str, metric: &str, a: &str, b: &str) -> Vec<(f64, f64)> {
        self.xs(exp, key)
            .into_iter()
            .map(|x| (x, 1.0 - self.metric(exp, a, key, x, metric) / self.metric(exp, b, key, x, metric)))
            .collect()
    }

    fn ets_response(&self) -> Check {
        let changes = self.changes("rates", "fast_rate_pages_s", "response_time_us", "ets", "32-32");
        range_check(
            "ETS: 19–25 % lower average response time than 32-32 with two streams of different rates",
            "papers/002 slide 20",
            ("ETS against 32-32", &changes, "pages/s"),
            Better::Lower,
            (0.19, 0.25),
        )
    }

    fn ets_cycles_and_esc(&self) -> Check {
        let xs = self.xs("rates", "fast_rate_pages_s");
        let mut parts = Vec::new();
        let (mut cycles_ok, mut esc_ok) = (!xs.is_empty(), !xs.is_empty());
        for &x in &xs {
            let m = |p, k| self.metric("rates", p, "fast_rate_pages_s", x, k);
            let (c_ets, c_2448) = (m("ets", "prefetch_cycles"), m("24-48", "prefetch_cycles"));
            let (e_ets, e_3232) = (m("ets", "esc"), m("32-32", "esc"));
            // "The same number of cycles": within 5 %.
            cycles_ok &= (c_ets / c_2448 - 1.0).abs() <= 0.05;
            esc_ok &= esc_similar(e_ets, e_3232);
            // Four decimals: at 3,000 pages/s the ESCs are a few thousandths, and two decimals hid them.
            parts.push(format!(
                "{x:.0} pages/s: cycles ETS {c_ets:.0} / 24-48 {c_2448:.0} / 32-32 {:.0}; ESC ETS {e_ets:.4} / 32-32 {e_3232:.4} / 24-48 {:.4}",
                m("32-32", "prefetch_cycles"),
                m("24-48", "esc")
            ));
        }
        // Why the ESCs differ, where they do: the same rates under deadline, which never holds a stream's
        // request back for the other's (`The elevator` in the report).
        let main = self.esc_changes("rates");
        let deadline = self.esc_changes("rates-deadline");
        let mut measured = parts.join("; ");
        if !main.is_empty() && !deadline.is_empty() {
            let show = |v: &[(f64, f64, bool)]| {
                percents(&v.iter().map(|&(x, c, _)| (x, c)).collect::<Vec<_>>(), "pages/s")
            };
            let _ = write!(
                measured,
                "; ETS's ESC against 32-32's: {} (anticipatory), {} (deadline, the `rates-deadline` rows)",
                show(&main),
                show(&deadline)
            );
            if !esc_ok && deadline.iter().all(|d| d.2) {
                measured += ": similar at every rate under deadline, so the difference is the anticipatory \
                             elevator's waits (`The elevator` below)";
            }
        }
        Check {
            claim:
                "ETS: the same number of prefetch cycles as 24-48 (here: within 5 %) and an ESC similar to \
                    32-32's (here: within 25 %)"
                    .into(),
            source: "papers/002 slide 20".into(),
            measured,
            verdict: halves(cycles_ok, esc_ok),
        }
    }

    /// (x, ETS's ESC against 32-32's, whether the two are similar) over the rates of `experiment`.
    fn esc_changes(&self, experiment: &str) -> Vec<(f64, f64, bool)> {
        self.xs(experiment, "fast_rate_pages_s")
            .into_iter()
            .map(|x| {
                let m = |p| self.metric(experiment, p, "fast_rate_pages_s", x, "esc");
                let (ets, base) = (m("ets"), m("32-32"));
                (x, ets / base - 1.0, esc_similar(ets, base))
            })
            .collect()
    }

    fn esf_response(&self) -> Check {
        let changes = self.changes("deviations", "sd_factor", "response_time_us", "esf", "ets");
        range_check(
            "ESF: 20–35 % lower average response time than ETS when one stream is unstable (SD 3–7 × mean)",
            "papers/002 slide 21",
            ("ESF against ETS", &changes, "× SD"),
            Better::Lower,
            (0.20, 0.35),
        )
    }

    fn esf_per_stream(&self) -> Check {
        let xs = self.xs("deviations", "sd_factor");
        let mut parts = Vec::new();
        let mut absolute = Vec::new();
        let (mut gain, mut small_loss) = (!xs.is_empty(), !xs.is_empty());
        for &x in &xs {
            let m = |p, k| self.metric("deviations", p, "sd_factor", x, k);
            let unstable = 1.0 - m("esf", "response_time_us_stream2") / m("ets", "response_time_us_stream2");
            let stable = m("esf", "response_time_us_stream1") / m("ets", "response_time_us_stream1") - 1.0;
            // "Large": a fifth or more; "small": the stable stream loses less than the unstable one gains.
            gain &= unstable >= 0.2;
            small_loss &= stable < unstable;
            parts.push(format!(
                "{x:.0} × SD: unstable {} ({:.1} → {:.1} µs), stable {} ({:.1} → {:.1} µs)",
                signed_pct(-unstable, 0),
                m("ets", "response_time_us_stream2"),
                m("esf", "response_time_us_stream2"),
                signed_pct(stable, 0),
                m("ets", "response_time_us_stream1"),
                m("esf", "response_time_us_stream1"),
            ));
            let delta = |k| m("esf", k) - m("ets", k);
            absolute.push(format!(
                "{x:.0} × SD: stable {:+.1} µs, unstable {:+.1} µs",
                delta("response_time_us_stream1"),
                delta("response_time_us_stream2")
            ));
        }
        // The verdict stays on the percentages; the microseconds are the reason a large percentage can be
        // a small loss (`The unstable stream` in the report).
        Check {
            claim: "ESF against ETS: a large improvement for the unstable stream (here: ≥ 20 %), a small \
                    degradation for the stable one (here: smaller than the gain)"
                .into(),
            source: "papers/002 slide 21".into(),
            measured: format!(
                "ESF against ETS: {}; in µs: {} (why: `The unstable stream` below)",
                parts.join("; "),
                absolute.join("; ")
            ),
            verdict: halves(gain, small_loss),
        }
    }

    fn vod_throughput(&self) -> Check {
        let changes = self.changes("vod", "streams", "stream_throughput_pages_s", "ets", "32-32");
        range_check(
            "SPC-2-VOD-like: ETS 6–53 % higher aggregate throughput than 32-32 (8 to 32 streams)",
            "papers/002 slide 22",
            ("ETS against 32-32", &changes, "streams"),
            Better::Higher,
            (0.06, 0.53),
        )
    }

    fn tpch_throughput(&self) -> Check {
        let gains: Vec<(f64, f64)> = self
            .xs("vod", "streams")
            .into_iter()
            .map(|x| {
                let m = |p| self.metric("vod", p, "streams", x, "random_throughput_pages_s");
                (x, m("ets") / m("32-32") - 1.0)
            })
            .collect();
        let mean = gains.iter().map(|g| g.1).sum::<f64>() / gains.len().max(1) as f64;
        // "Never worse": no run more than 1 % below 32-32 (a run's own noise); "about 2.5 %": 0 to 5 %.
        let never_worse = !gains.is_empty() && gains.iter().all(|g| g.1 >= -0.01);
        let fixed = self.changes("vod", "streams", "random_throughput_pages_s", "24-48", "32-32");
        Check {
            claim: "TPC-H-like beside the streams: ETS never worse than 32-32, about 2.5 % better on average"
                .into(),
            source: "papers/002 slide 22".into(),
            measured: format!(
                "ETS against 32-32: {}; mean {}; 24-48 against 32-32, the same P = 48 without a split: {} \
                 (why: `The TPC-H-like reader` below)",
                percents(&gains, "streams"),
                signed_pct(mean, 1),
                percents(&fixed, "streams")
            ),
            verdict: match (never_worse, (0.0..=0.05).contains(&mean)) {
                (true, true) => Verdict::Reproduced,
                (true, false) => Verdict::Partial,
                _ => Verdict::NotReproduced,
            },
        }
    }

    fn new(rows: &'a [Row]) -> Analysis<'a> {
        Analysis { rows, memory: OnceCell::new(), memory_runs: OnceCell::new() }
    }

    /// [`Analysis::memory_ratios`], once.
    fn memory(&self) -> &[(String, f64)] {
        self.memory.get_or_init(|| self.memory_ratios())
    }

    /// Every policy's prefetch memory against 32-32's in the same case (means over the seeds).
    fn memory_ratios(&self) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = Vec::new();
        // The elevator diagnostics are compared too: equal memory must hold under any elevator.
        for r in self.rows.iter().filter(|r| compared_with_32_32(r)) {
            let (exp, p) = (r.text("experiment"), r.text("prefetch"));
            let label = format!("{exp} {} ({p})", case_x(r));
            if v.iter().any(|(l, _)| *l == label) {
                continue;
            }
            let (key, x) = (x_key(exp), r.num(x_key(exp)));
            let mem = |policy| self.metric(exp, policy, key, x, "prefetch_memory_pages_mean");
            v.push((label, mem(p) / mem("32-32") - 1.0));
        }
        v
    }

    /// [`Analysis::memory_runs_all`], once.
    fn memory_runs(&self) -> &[MemoryRun] {
        self.memory_runs.get_or_init(|| self.memory_runs_all())
    }

    /// The runs and cases whose prefetch memory is outside the tolerance of 32-32's: what the fairness
    /// check and the report's `Equal memory` count.
    fn memory_tally(&self) -> MemoryTally<'_> {
        let runs = self.memory_runs();
        let outside: Vec<&MemoryRun> = runs.iter().filter(|r| memory_outside(r.change)).collect();
        let more = outside.iter().filter(|r| r.change > MEMORY_TOLERANCE).count();
        let cases = self.memory();
        let cases_outside = cases.iter().filter(|(_, d)| memory_outside(*d)).count();
        MemoryTally { runs, outside, more, cases, cases_outside }
    }

    /// Every compared run's prefetch memory against 32-32's run of the same case and seed.
    fn memory_runs_all(&self) -> Vec<MemoryRun> {
        self.rows
            .iter()
            .filter(|r| compared_with_32_32(r))
            .map(|r| {
                let (exp, p, seed) = (r.text("experiment"), r.text("prefetch"), r.num("seed"));
                let (key, x) = (x_key(exp), r.num(x_key(exp)));
                let base = self
                    .runs(exp, "32-32", key, x)
                    .find(|b| b.num("seed") == seed)
                    .map_or(f64::NAN, |b| b.metric("prefetch_memory_pages_mean"));
                MemoryRun {
                    experiment: exp.into(),
                    x,
                    label: format!("{exp} {} ({p})", case_x(r)),
                    prefetch: p.into(),
                    seed,
                    change: r.metric("prefetch_memory_pages_mean") / base - 1.0,
                }
            })
            .collect()
    }

    /// "A result that needs more memory does not count": a claim's comparison at an x where one of
    /// `policies` held more than 5 % more prefetch memory than 32-32 in any seed's run is named in the
    /// claim's row as not counted. Its value stays beside the others, since a policy that loses with more
    /// memory loses all the more, but it cannot support the claim: the verdict is at most "partly", and
    /// "not reproduced" when no x is left to count.
    fn within_budget(&self, mut check: Check, experiment: &str, policies: &[&str]) -> Check {
        let over: Vec<&MemoryRun> = self
            .memory_runs()
            .iter()
            .filter(|r| {
                r.experiment == experiment
                    && policies.contains(&r.prefetch.as_str())
                    && r.change > MEMORY_TOLERANCE
            })
            .collect();
        if over.is_empty() {
            return check;
        }
        let mut xs: Vec<f64> = Vec::new();
        for r in &over {
            if !xs.contains(&r.x) {
                xs.push(r.x);
            }
        }
        let parts: Vec<String> = xs
            .iter()
            .map(|&x| {
                let runs: Vec<String> = over
                    .iter()
                    .filter(|r| r.x == x)
                    .map(|r| format!("{} seed {:.0}: {}", r.prefetch, r.seed, signed_pct(r.change, 1)))
                    .collect();
                format!("{x:.0} {} ({})", x_unit(experiment), runs.join(", "))
            })
            .collect();
        let _ = write!(
            check.measured,
            "; does not count, more than 5 % more prefetch memory than 32-32 in a run: {}",
            parts.join("; ")
        );
        let all = self.xs(experiment, x_key(experiment)).len();
        check.verdict = if xs.len() >= all {
            Verdict::NotReproduced
        } else if check.verdict == Verdict::Reproduced {
            Verdict::Partial
        } else {
            check.verdict
        };
        check
    }

    /// The fairness rule, run by run: every compared run's prefetch memory within 5 % of 32-32's
    /// run of the same case and seed (the seed means are counted too, and the report's table shows them).
    fn fairness(&self) -> Check {
        let MemoryTally { runs, outside, more, cases, cases_outside } = self.memory_tally();
        let listed: Vec<String> = cases
            .iter()
            .filter_map(|(label, mean)| {
                let of_case = runs.iter().filter(|r| r.label == *label).count();
                let out = outside.iter().filter(|r| r.label == *label).count();
                (out > 0).then(|| format!("{label} {} ({out} of {of_case} runs)", signed_pct(*mean, 1)))
            })
            .collect();
        let worst = runs.iter().map(|r| r.change.abs()).fold(0.0, f64::max);
        Check {
            claim:
                "equal memory: each policy's average unaccessed prefetched memory within 5 % of 32-32's in \
                    every compared run (a result that needs more memory does not count)"
                    .into(),
            source: "papers/002 slide 18 (\"maintaining same memory consumption\")".into(),
            measured: if outside.is_empty() {
                format!(
                    "all {} runs within {:.1} % of 32-32's run of the same case and seed ({} cases)",
                    runs.len(),
                    100.0 * worst,
                    cases.len()
                )
            } else {
                format!(
                    "{} of {} runs outside, each against 32-32's run of the same case and seed ({more} with \
                     more memory than 32-32, {} with less); over the seed means {cases_outside} of {} cases. \
                     The cases with a run outside (seed mean; runs outside): {}. Where the \
                     difference lies: `Equal memory` under Results",
                    outside.len(),
                    runs.len(),
                    outside.len() - more,
                    cases.len(),
                    listed.join("; ")
                )
            },
            verdict: if runs.is_empty() {
                Verdict::NotReproduced
            } else if outside.is_empty() {
                Verdict::Reproduced
            } else if outside.len() * 2 <= runs.len() {
                Verdict::Partial
            } else {
                Verdict::NotReproduced
            },
        }
    }

    fn summary(&self) -> Vec<(String, f64)> {
        let mean = |v: Vec<(f64, f64)>| v.iter().map(|p| p.1).sum::<f64>() / v.len().max(1) as f64;
        vec![
            (
                "ets_response_reduction_vs_32_32_mean".into(),
                mean(self.reductions("rates", "fast_rate_pages_s", "response_time_us", "ets", "32-32")),
            ),
            (
                "esf_response_reduction_vs_ets_mean".into(),
                mean(self.reductions("deviations", "sd_factor", "response_time_us", "esf", "ets")),
            ),
            (
                "ets_vod_throughput_gain_vs_32_32_mean".into(),
                mean(
                    self.reductions("vod", "streams", "stream_throughput_pages_s", "32-32", "ets")
                        .into_iter()
                        .map(|(x, r)| (x, 1.0 / (1.0 - r) - 1.0))
                        .collect(),
                ),
            ),
            (
                "prefetch_memory_deviation_max".into(),
                self.memory().iter().map(|r| r.1.abs()).fold(0.0, f64::max),
            ),
            (
                "prefetch_memory_deviation_max_per_run".into(),
                self.memory_runs().iter().map(|r| r.change.abs()).fold(0.0, f64::max),
            ),
            (
                "prefetch_memory_runs_outside".into(),
                self.memory_runs().iter().filter(|r| memory_outside(r.change)).count() as f64,
            ),
        ]
    }

    fn series(
        &self,
        exp: &str,
        key: &str,
        metric: &str,
        policies: &[&str],
    ) -> Vec<(String, Vec<(f64, f64)>)> {
        policies
            .iter()
            .map(|&p| {
                let pts =
                    self.xs(exp, key).into_iter().map(|x| (x, self.metric(exp, p, key, x, metric))).collect();
                (p.to_string(), pts)
            })
            .collect()
    }

    fn charts(&self) -> Vec<Chart> {
        let all = ["32-32", "24-48", "ets", "esf"];
        let chart = |title: &str, x: &str, y: &str, series| Chart {
            title: title.into(),
            x_label: x.into(),
            y_label: y.into(),
            log_x: false,
            series,
        };
        let mut per_stream = Vec::new();
        for p in ["ets", "esf"] {
            for (i, which) in [(1, "stable"), (2, "unstable")] {
                let pts = self
                    .xs("deviations", "sd_factor")
                    .into_iter()
                    .map(|x| {
                        (
                            x,
                            self.metric(
                                "deviations",
                                p,
                                "sd_factor",
                                x,
                                &format!("response_time_us_stream{i}"),
                            ),
                        )
                    })
                    .collect();
                per_stream.push((format!("{which} stream, {p}"), pts));
            }
        }
        vec![
            chart(
                "Two streams of different rates: average response time",
                "rate of the fast stream (pages/s)",
                "response time (µs)",
                self.series("rates", "fast_rate_pages_s", "response_time_us", &all),
            ),
            chart(
                "Two streams of different rates: misses per prefetch cycle (ESC)",
                "rate of the fast stream (pages/s)",
                "ESC (misses per cycle)",
                self.series("rates", "fast_rate_pages_s", "esc", &all),
            ),
            chart(
                "Two streams of different deviations: average response time",
                "SD of the unstable stream (× mean)",
                "response time (µs)",
                self.series("deviations", "sd_factor", "response_time_us", &all),
            ),
            chart(
                "Per stream: ETS and ESF",
                "SD of the unstable stream (× mean)",
                "response time (µs)",
                per_stream,
            ),
            chart(
                "Diagnostic: the rates under the deadline elevator",
                "rate of the fast stream (pages/s)",
                "response time (µs)",
                self.series("rates-deadline", "fast_rate_pages_s", "response_time_us", &all),
            ),
            chart(
                "Diagnostic: the rates under CFQ (2.6.18's default elevator)",
                "rate of the fast stream (pages/s)",
                "response time (µs)",
                self.series("rates-cfq", "fast_rate_pages_s", "response_time_us", &all),
            ),
            chart(
                "Diagnostic: the deviations with the unstable stream at 5,000 pages/s",
                "SD of the unstable stream (× mean)",
                "response time (µs)",
                self.series("deviations-5000", "sd_factor", "response_time_us", &all),
            ),
            chart(
                "Diagnostic: the deviations with hyperexponential gaps (pauses, not bursts)",
                "SD of the unstable stream (× mean)",
                "response time (µs)",
                self.series("deviations-h2", "sd_factor", "response_time_us", &all),
            ),
            chart(
                "SPC-2-VOD-like: aggregate stream throughput",
                "sequential streams",
                "throughput (pages/s)",
                self.series("vod", "streams", "stream_throughput_pages_s", &all),
            ),
            chart(
                "Memory of unaccessed prefetched pages",
                "sequential streams",
                "pages (time average)",
                self.series("vod", "streams", "prefetch_memory_pages_mean", &all),
            ),
            chart(
                "TPC-H-like random reader beside the streams",
                "sequential streams",
                "throughput (pages/s)",
                self.series("vod", "streams", "random_throughput_pages_s", &all),
            ),
        ]
    }

    /// One run: a case, a policy and a seed.
    fn seed_row(&self, exp: &str, prefetch: &str, x: f64, seed: f64) -> Option<&'a Row> {
        let key = x_key(exp);
        self.rows.iter().find(|r| {
            r.text("experiment") == exp
                && r.text("prefetch") == prefetch
                && r.num(key) == x
                && r.num("seed") == seed
        })
    }

    /// `metric`'s mean over the runs of `seeds` (a case's runs outside the tolerance).
    fn over_seeds(&self, exp: &str, prefetch: &str, x: f64, seeds: &[f64], metric: &str) -> f64 {
        let v: Vec<f64> = seeds
            .iter()
            .filter_map(|&s| self.seed_row(exp, prefetch, x, s))
            .map(|r| r.metric(metric))
            .collect();
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    }

    /// The elevator's part in the misses (the ESC claim): each stream's shortages under the anticipatory
    /// elevator and under deadline, which never holds one stream's request back for the other's.
    fn elevator_misses(&self) -> String {
        let xs = self.xs("rates", "fast_rate_pages_s");
        if xs.is_empty() || self.xs("rates-deadline", "fast_rate_pages_s").is_empty() {
            return String::new();
        }
        let count = |exp: &str, p: &str, stream: &str, x: f64| {
            self.metric(exp, p, "fast_rate_pages_s", x, &format!("shortages_{stream}"))
        };
        let per = |p: &str, stream: &str| {
            xs.iter()
                .map(|&x| {
                    format!(
                        "{x:.0} pages/s: {:.0} and {:.0}",
                        count("rates", p, stream, x),
                        count("rates-deadline", p, stream, x)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let esc = |exp: &str| {
            percents(&self.esc_changes(exp).iter().map(|&(x, c, _)| (x, c)).collect::<Vec<_>>(), "pages/s")
        };
        format!(
            "It changes the misses too, and with them the ESC claim. Shortages a run, under the anticipatory \
             elevator and under deadline: 32-32's slow stream (stream 1) {}; its fast stream {}; ETS's slow \
             stream {}; ETS's fast stream {}. ETS's ESC against 32-32's is {} under the anticipatory elevator \
             and {} under deadline.\n\n",
            per("32-32", "stream1"),
            per("32-32", "stream2"),
            per("ets", "stream1"),
            per("ets", "stream2"),
            esc("rates"),
            esc("rates-deadline"),
        )
    }

    /// Why the stable stream loses under ESF: the safety inventory ESF moves to the unstable stream, and
    /// the shortages the stable one then has (the per-stream claim's reason).
    fn stable_stream_paragraph(&self) -> String {
        let xs = self.xs("deviations", "sd_factor");
        if xs.is_empty() {
            return String::new();
        }
        let half_p = P_PAGES as f64 / 2.0;
        let m = |p: &str, x: f64, k: &str| self.metric("deviations", p, "sd_factor", x, k);
        let mut parts = Vec::new();
        let (mut late, mut moved, mut no_wait) = (true, true, true);
        for &x in &xs {
            let (inv_ets, inv_esf) =
                (m("ets", x, "prefetch_memory_pages_stream1"), m("esf", x, "prefetch_memory_pages_stream1"));
            moved &= inv_esf < inv_ets
                && m("esf", x, "prefetch_memory_pages_stream2")
                    > m("ets", x, "prefetch_memory_pages_stream2");
            let (short_ets, short_esf) = (m("ets", x, "shortages_stream1"), m("esf", x, "shortages_stream1"));
            let added_us = (m("esf", x, "response_time_us_stream1")
                - m("ets", x, "response_time_us_stream1"))
                * m("esf", x, "requests_stream1");
            // The response time ESF adds over the shortages it adds: what each new shortage waits.
            let wait_ms =
                if short_esf > short_ets { added_us / (short_esf - short_ets) / 1e3 } else { f64::NAN };
            let service_ms = m("esf", x, "mean_service_ms");
            late &= wait_ms > 2.0 * service_ms;
            no_wait &= short_ets < 1.0;
            parts.push(format!(
                "{x:.0} × SD: its inventory {inv_ets:.1} → {inv_esf:.1} pages (T_i ≈ {:.0} → {:.0} pages, {:.1} ms \
                 of its demand), its shortages {short_ets:.0} → {short_esf:.0} a run, {wait_ms:.1} ms each \
                 against a mean disk request of {service_ms:.2} ms",
                inv_ets - half_p,
                inv_esf - half_p,
                (inv_esf - half_p) / SLOW_RATE as f64 * 1e3,
            ));
        }
        let us = |col: &str| {
            xs.iter()
                .map(|&x| format!("{x:.0} × SD: {:+.1} µs", m("esf", x, col) - m("ets", x, col)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let ets_rt = xs
            .iter()
            .map(|&x| {
                format!(
                    "{x:.0} × SD: {:.1} µs with {:.0} shortages",
                    m("ets", x, "response_time_us_stream1"),
                    m("ets", x, "shortages_stream1")
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "**The stable stream under ESF**{} {}. (T_i is the inventory less P/2 = {half_p:.0}, what a reader \
             that does not wait holds on average; the wait a shortage is the response time ESF adds, summed \
             over the stream's requests, over the shortages it adds.){} Under ETS the stable stream answered in \
             {ets_rt}{}: in µs, ESF against ETS, it loses {} where the unstable stream gains {}.\n\n",
            if moved {
                " gives up safety inventory to the unstable one, whose inventory grows, and then runs short:"
            } else {
                ":"
            },
            parts.join("; "),
            if late {
                " The windows that now arrive late are those that took several disk requests' time, which the \
                 trigger distances above no longer cover."
            } else {
                ""
            },
            if no_wait { ", a response with no wait, so that any shortage is a large percentage of it" } else { "" },
            us("response_time_us_stream1"),
            us("response_time_us_stream2"),
        )
    }

    /// Why the random reader gains under every policy of P = 48: its share of a saturated disk (the TPC-H
    /// claim's reason).
    fn tpch_paragraph(&self) -> String {
        let xs = self.xs("vod", "streams");
        let (Some(&first), Some(&last)) = (xs.first(), xs.last()) else {
            return String::new();
        };
        let block = (RANDOM_BLOCK_DEFAULT_BYTES / PAGE_SIZE_BYTES) as f64;
        let m = |p: &str, x: f64, k: &str| self.metric("vod", p, "streams", x, k);
        // The disk's requests a second: its busy fraction over the mean request's service time.
        let requests_s = |p: &str, x: f64| m(p, x, "disk_busy") / (m(p, x, "mean_service_ms") / 1e3);
        let streams_share =
            |p: &str, x: f64| 1.0 - m(p, x, "random_throughput_pages_s") / block / requests_s(p, x);
        let vod: Vec<&Row> = self.rows.iter().filter(|r| r.text("experiment") == "vod").collect();
        let busy = finite_range(vod.iter().map(|r| r.metric("disk_busy"))).unwrap_or((f64::NAN, f64::NAN));
        let disk =
            finite_range(vod.iter().map(|r| r.metric("disk_busy") / (r.metric("mean_service_ms") / 1e3)))
                .unwrap_or((f64::NAN, f64::NAN));
        let cycles = finite_range(
            xs.iter().map(|&x| m("ets", x, "prefetch_cycles") / m("32-32", x, "prefetch_cycles")),
        )
        .unwrap_or((f64::NAN, f64::NAN));
        let change = |a: &str, b: &str| self.changes("vod", "streams", "random_throughput_pages_s", a, b);
        let ets = change("ets", "32-32");
        let split = change("ets", "24-48");
        let split_max = split.iter().map(|c| c.1.abs()).fold(0.0, f64::max);
        let shares: Vec<f64> = xs.iter().map(|&x| streams_share("32-32", x)).collect();
        let grows = ets.windows(2).zip(shares.windows(2)).all(|(g, s)| (g[1].1 > g[0].1) == (s[1] > s[0]));
        let cycles_text = if format!("{:.2}", cycles.0) == format!("{:.2}", cycles.1) {
            format!("{:.2}", cycles.0)
        } else {
            format!("{:.2} to {:.2}", cycles.0, cycles.1)
        };
        // Saturated: busy all but a few per cent of the time, so that one reader's requests are the others'
        // loss.
        let saturated = busy.0 >= 0.95;
        format!(
            "**The TPC-H-like reader**{} In every vod run the disk is busy {:.2} to {:.2} of the time and \
             completes {:.0} to {:.0} requests a second; the streams' fetches take {:.0} % of them under 32-32 \
             at {first:.0} streams and {:.0} % at {last:.0}. With P = 48 the streams fetch the same pages in \
             {cycles_text} times as many windows as 32-32's (ETS's prefetch cycles against 32-32's), and the \
             random reader's throughput changes by ETS against 32-32: {}; 24-48 against 32-32: {}; ESF against \
             32-32: {}. ETS against 24-48, the same P with a split: {}{}{}\n\n",
            if saturated { " gets what the streams leave of a saturated disk." } else { ":" },
            busy.0,
            busy.1,
            disk.0,
            disk.1,
            100.0 * streams_share("32-32", first),
            100.0 * streams_share("32-32", last),
            percents(&ets, "streams"),
            percents(&change("24-48", "32-32"), "streams"),
            percents(&change("esf", "32-32"), "streams"),
            percents(&split, "streams"),
            if split_max <= MEMORY_TOLERANCE {
                format!(
                    ", within {:.1} % at every count: the gain is the larger P's fewer fetches, not the split's.",
                    100.0 * split_max
                )
            } else {
                ".".into()
            },
            if grows && xs.len() > 2 {
                " It grows with the streams' share of the disk's requests."
            } else {
                ""
            },
        )
    }

    /// One [`Waiting`] group as the report tells it, from the means over the runs outside.
    fn waiting_text(&self, w: &Waiting) -> String {
        let (exp, x, dev, k) = (w.exp.as_str(), w.x, w.dev.as_str(), w.stream);
        let mut seeds: Vec<f64> = Vec::new();
        for (_, s) in &w.others {
            for &seed in s {
                if !seeds.contains(&seed) {
                    seeds.push(seed);
                }
            }
        }
        let at = |policy: &str, metric: &str| self.over_seeds(exp, policy, x, &seeds, metric);
        let of = |policy: &str, what: &str| at(policy, &format!("{what}_stream{}", k + 1));
        let names: Vec<&str> = w.others.iter().map(|(p, _)| p.as_str()).collect();
        let join = |f: &dyn Fn(&str) -> String| names.iter().map(|p| f(p)).collect::<Vec<_>>().join(", ");
        let never: Vec<f64> = std::iter::once(dev).chain(names.iter().copied()).map(no_wait_pages).collect();
        let never_text = if never.iter().all(|&v| v == never[0]) {
            format!(
                "{:.0} pages for {:.0} readers that never wait, under each",
                w.streams * never[0],
                w.streams
            )
        } else {
            format!(
                "readers that never wait: {}",
                never.iter().map(|v| format!("{:.0}", w.streams * v)).collect::<Vec<_>>().join(", ")
            )
        };
        format!(
            "{exp} {x:.0} {} ({}), seed {}: {dev} holds {:.1} pages, {} ({never_text}); {dev}'s stream {} holds \
             {:.1} and answers in {:.2} ms (a disk request takes {:.2} ms), {}",
            x_unit(exp),
            names.join(", "),
            seeds.iter().map(|s| format!("{s:.0}")).collect::<Vec<_>>().join(", "),
            at(dev, "prefetch_memory_pages_mean"),
            join(&|p| format!("{p} {:.1}", at(p, "prefetch_memory_pages_mean"))),
            k + 1,
            of(dev, "prefetch_memory_pages"),
            of(dev, "response_time_us") / 1e3,
            at(dev, "mean_service_ms"),
            join(&|p| format!(
                "{p}'s {:.1} in {:.2} ms",
                of(p, "prefetch_memory_pages"),
                of(p, "response_time_us") / 1e3
            )),
        )
    }

    /// `Equal memory`: the runs outside the tolerance, and where each difference lies, from the runs' own
    /// per-stream numbers (means over a case's runs outside).
    fn memory_paragraph(&self) -> String {
        let MemoryTally { runs, outside, more, cases, cases_outside } = self.memory_tally();
        let mut md = format!(
            "**Equal memory.** Counted run by run, each policy's run against 32-32's run of the same case and \
             seed, {} of {} compared runs are more than 5 % away from 32-32's unaccessed prefetched memory ({more} \
             above it, {} below); over the seed means, {cases_outside} of {} cases (the table's `vs 32-32` \
             column, with the range of its runs).",
            outside.len(),
            runs.len(),
            outside.len() - more,
            cases.len()
        );
        if outside.is_empty() {
            md += "\n\n";
            return md;
        }
        let mut labels: Vec<&str> = Vec::new();
        for r in &outside {
            if !labels.contains(&r.label.as_str()) {
                labels.push(&r.label);
            }
        }
        let mut random = Vec::new();
        let mut waiting: Vec<Waiting> = Vec::new();
        let mut other = Vec::new();
        let mut stream_changes = Vec::new();
        for label in labels {
            let case: Vec<&&MemoryRun> = outside.iter().filter(|r| r.label == label).collect();
            let (exp, p, x) = (case[0].experiment.as_str(), case[0].prefetch.as_str(), case[0].x);
            let seeds: Vec<f64> = case.iter().map(|r| r.seed).collect();
            let seed_text = seeds.iter().map(|s| format!("{s:.0}")).collect::<Vec<_>>().join(", ");
            let at = |policy: &str, metric: &str| self.over_seeds(exp, policy, x, &seeds, metric);
            let diff = |metric: &str| at(p, metric) - at("32-32", metric);
            let total = diff("prefetch_memory_pages_mean");
            let rand = diff("prefetch_memory_pages_random");
            let per_stream = [diff("prefetch_memory_pages_stream1"), diff("prefetch_memory_pages_stream2")];
            if rand.is_finite() && 2.0 * rand.abs() > total.abs() {
                for &s in &seeds {
                    let streams = |policy: &str| {
                        self.seed_row(exp, policy, x, s).map_or(f64::NAN, |r| {
                            r.metric("prefetch_memory_pages_mean") - r.metric("prefetch_memory_pages_random")
                        })
                    };
                    stream_changes.push(streams(p) / streams("32-32") - 1.0);
                }
                random.push(format!(
                    "{label}, seed {seed_text}: {:.1} pages against 32-32's {:.1}, {:.0} pages fetched beyond its \
                     blocks against {:.0}",
                    at(p, "prefetch_memory_pages_random"),
                    at("32-32", "prefetch_memory_pages_random"),
                    at(p, "random_pages_beyond_blocks"),
                    at("32-32", "random_pages_beyond_blocks"),
                ));
                continue;
            }
            // Two readers that never wait hold T + P/2 each on average under every policy here (the equal
            // memory the slides' 24-48 was chosen for): the policy whose total is further from that is the
            // one to explain.
            let n = self.seed_row(exp, p, x, seeds[0]).map_or(f64::NAN, |r| r.num("streams"));
            let excess = |policy: &str| at(policy, "prefetch_memory_pages_mean") - n * no_wait_pages(policy);
            let (dev, other_side) =
                if excess(p).abs() > excess("32-32").abs() { (p, "32-32") } else { ("32-32", p) };
            let of = |policy: &str, what: &str, k: usize| at(policy, &format!("{what}_stream{}", k + 1));
            // The stream that holds the excess: under a fixed T the one furthest from T + P/2; under ETS or
            // ESF, whose streams' T_i differ, the slower one.
            let k = if dev == "32-32" || dev == "24-48" {
                let off = |k| (of(dev, "prefetch_memory_pages", k) - no_wait_pages(dev)).abs();
                usize::from(off(1) > off(0))
            } else {
                usize::from(of(dev, "response_time_us", 1) > of(dev, "response_time_us", 0))
            };
            let service_ms = at(dev, "mean_service_ms");
            if of(dev, "response_time_us", k) / 1e3 > service_ms {
                // The cases that 32-32's same stream explains are told once, with each policy beside it.
                let same = waiting.iter_mut().find(|w: &&mut Waiting| {
                    dev == "32-32" && w.dev == dev && w.exp == exp && w.x == x && w.stream == k
                });
                match same {
                    Some(w) => w.others.push((other_side.to_string(), seeds.clone())),
                    None => waiting.push(Waiting {
                        exp: exp.to_string(),
                        x,
                        dev: dev.to_string(),
                        stream: k,
                        streams: n,
                        others: vec![(other_side.to_string(), seeds.clone())],
                    }),
                }
            } else {
                other.push(format!(
                    "{label}, seed {seed_text}: {:+.1} pages in all, stream 1 {:+.1}, stream 2 {:+.1}, the random \
                     reader {:+.1}",
                    total, per_stream[0], per_stream[1], rand
                ));
            }
        }
        md += " Where each difference lies, from the runs' per-stream numbers (means over a case's runs outside):";
        if !random.is_empty() {
            let streams = finite_range(stream_changes.iter().copied()).unwrap_or((f64::NAN, f64::NAN));
            let all_vod = finite_range(runs.iter().filter(|r| r.experiment == "vod").filter_map(|r| {
                let m = |policy: &str| {
                    self.seed_row("vod", policy, r.x, r.seed).map(|row| {
                        row.metric("prefetch_memory_pages_mean") - row.metric("prefetch_memory_pages_random")
                    })
                };
                Some(m(&r.prefetch)? / m("32-32")? - 1.0)
            }))
            .unwrap_or((f64::NAN, f64::NAN));
            let _ = write!(
                md,
                "\n\n- *The TPC-H-like reader's windows.* In these runs the sequential streams' own memory is {} \
                 to {} against 32-32's streams' ({} to {} over all {} compared vod runs), and the rest of the \
                 difference is the random reader's: {}. A random read of {} KiB is taken for a stream's start \
                 when more pages right before it are cached than it reads (Linux's context readahead), or when it \
                 reads its file's first page or the page after its previous read. 24-48, ETS and ESF then fetch a \
                 window of P = {P_PAGES} pages ({} if ETS or ESF gave the reader a trigger distance of P while it \
                 looked sequential: its next run's first window is merged with the second); 32-32's ramp starts \
                 smaller. The reader seldom comes back to those pages \
                 and 16 GiB never evicts them, so they stay in the average for the rest of the run: how many such \
                 reads a run has, and how early, is chance, which is why the excess moves from seed to seed.",
                signed_pct(streams.0, 1),
                signed_pct(streams.1, 1),
                signed_pct(all_vod.0, 1),
                signed_pct(all_vod.1, 1),
                runs.iter().filter(|r| r.experiment == "vod").count(),
                random.join("; "),
                RANDOM_BLOCK_DEFAULT_BYTES >> 10,
                2 * P_PAGES,
            );
        }
        if !waiting.is_empty() {
            let described: Vec<String> = waiting.iter().map(|w| self.waiting_text(w)).collect();
            let control = waiting
                .iter()
                .filter(|w| w.exp.starts_with("rates"))
                .filter_map(|w| {
                    let m = |metric: &str| {
                        let col = format!("{metric}_stream{}", w.stream + 1);
                        self.metric("rates-deadline", &w.dev, "fast_rate_pages_s", w.x, &col)
                    };
                    let (memory, response) = (m("prefetch_memory_pages"), m("response_time_us"));
                    memory.is_finite().then(|| {
                        format!(
                            "{}'s stream {} at {:.0} pages/s holds {memory:.1} pages and answers in {:.3} ms",
                            w.dev,
                            w.stream + 1,
                            w.x,
                            response / 1e3
                        )
                    })
                })
                .fold(Vec::<String>::new(), |mut v, t| {
                    if !v.contains(&t) {
                        v.push(t);
                    }
                    v
                });
            let _ = write!(
                md,
                "\n\n- *A reader waiting on windows in flight.* {}. A reader that waits on a window in flight \
                 holds all of it, P pages; under 32-32 (T = P = 32) the mark is the window's first page, so \
                 reaching it has issued the next window too, 2P = 64 pages, where a reader that does not wait \
                 holds T + P/2 = 48 on average. Under 24-48 a waiting reader holds P = 48, its average; under \
                 ETS and ESF, P = 48 against T_i + 24.{}",
                described.join("; "),
                if control.is_empty() {
                    String::new()
                } else {
                    format!(
                        " Under deadline (the `rates-deadline` rows), which holds neither stream back for the \
                         other: {}.",
                        control.join("; ")
                    )
                },
            );
        }
        if !other.is_empty() {
            let _ = write!(md, "\n\n- *Not explained here:* {}.", other.join("; "));
        }
        let mut over: Vec<&str> = Vec::new();
        for r in outside.iter().filter(|r| r.change > MEMORY_TOLERANCE) {
            if !over.contains(&r.label.as_str()) {
                over.push(&r.label);
            }
        }
        if !over.is_empty() {
            let _ = write!(
                md,
                "\n\nA result that needs more memory does not count (the issue): a claim whose comparison at some \
                 x had a run in which the compared policy held more than 5 % more than 32-32 names it in its row \
                 as not counted, and is then at most partly reproduced. Cases with such a run: {}. A policy that held less \
                 than 32-32 did what it did with less, and its comparison counts.",
                over.join(", ")
            );
        }
        md += "\n\n";
        md
    }

    fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(
            md,
            "A 4-CPU, 16 GiB server on the Seagate Barracuda 7200.11 (`st3500320as`) with the anticipatory \
             elevator and Linux 2.6's memory; each stream reads its own file one 4 KiB page per request. \
             `32-32` is `tp:32-32` (2.6.18's ramp), `24-48` is `tp:24-48,fixed`, `ets` and `esf` are \
             `ets:24-48` and `esf:24-48` (T_total = 24 × streams, P = 48). Response times are from a request's \
             arrival to its delivery; ESC is shortages (accesses that found the page absent or in flight) per \
             prefetch cycle (read fetch) of the streams; the fill rate is 1 − ESC / P, the slides' FR with Q = P; \
             memory is the time-average of prefetched, not yet accessed pages (in flight included). Every \
             percentage in this report, the claims' rows included, is a change (a − b) / b of the policy named \
             first against the one named second (\"ETS against 32-32\": ETS's value less 32-32's, over \
             32-32's): negative is lower, which for a response time is better and for a throughput worse.\n"
        );
        let ratios = self.memory();
        let capacity = |section, p| {
            self.metric(section, p, "fast_rate_pages_s", CAPACITY_RATE as f64, "stream_throughput_pages_s")
        };
        let rates = self.xs("rates", "fast_rate_pages_s");
        let fastest = rates.last().copied().unwrap_or(f64::NAN);
        let _ = writeln!(
            md,
            "**The disk's capacity, and the lead time.** Two streams reading as fast as they can get {:.0} \
             pages/s under 32-32 and {:.0} under 24-48 (the `capacity` rows). The rates experiment asks for {} \
             pages/s in all. Much of that capacity is the drive's read cache: with it off (the \
             `capacity-nocache` rows, a diagnostic), every request that follows the other stream's pays a seek \
             and a rotation, and the same streams get {:.0} and {:.0} pages/s against the totals above. With \
             the cache, a 32-32 prefetch at {:.0} pages/s takes {:.2} ms of disk \
             service on average (the lead time less its queueing), where a window of 32 pages lasts {:.1} ms: \
             a stream runs short only when the elevator holds its request back, and its response times are \
             the elevator's queueing rather than prefetch timing (ESC at most {:.2} a cycle here; the slides' \
             ESC chart is scaled to 5). The slides' response times of about 100 µs and the scale of their ESC \
             chart point to lead times near a window's supply on a disk that was not saturated: between this \
             drive with its cache and without it. The slides do not name their disk, and this model cannot say \
             which of the two is nearer it.\n",
            capacity("capacity", "32-32"),
            capacity("capacity", "24-48"),
            rates.iter().map(|&x| format!("{:.0}", x + SLOW_RATE as f64)).collect::<Vec<_>>().join(", "),
            capacity("capacity-nocache", "32-32"),
            capacity("capacity-nocache", "24-48"),
            fastest,
            self.metric("rates", "32-32", "fast_rate_pages_s", fastest, "mean_service_ms"),
            32_000.0 / fastest,
            rates
                .iter()
                .flat_map(|&x| POLICIES.map(|(p, _)| self.metric("rates", p, "fast_rate_pages_s", x, "esc")))
                .fold(f64::NAN, f64::max),
        );
        let deadline =
            self.reductions("rates-deadline", "fast_rate_pages_s", "response_time_us", "ets", "32-32");
        let cfq = self.reductions("rates-cfq", "fast_rate_pages_s", "response_time_us", "ets", "32-32");
        let _ = writeln!(
            md,
            "**The elevator.** The anticipatory elevator waits for a reader whose think time is below \
             `antic_expire` (6 ms), and the other stream's requests wait behind it: 32-32's fast stream, whose \
             windows come every 32 pages, is such a reader where 24-48's, every 48, is not, so part of what the \
             rates experiment measures is the elevator's (module doc). Under deadline (the `rates-deadline` \
             rows, a diagnostic) ETS's response time is {} against 32-32's (the slides: 19–25 % lower). Under \
             CFQ, 2.6.18's default (the `rates-cfq` rows), which serves each process's queue for 100-ms slices \
             and idles for a reader that comes back within 8 ms, it is {}, and 32-32's average is {} µs.\n",
            percents(&deadline.iter().map(|&(x, r)| (x, -r)).collect::<Vec<_>>(), "pages/s"),
            percents(&cfq.iter().map(|&(x, r)| (x, -r)).collect::<Vec<_>>(), "pages/s"),
            self.xs("rates-cfq", "fast_rate_pages_s")
                .into_iter()
                .map(|x| format!("{:.0}", self.metric("rates-cfq", "32-32", "fast_rate_pages_s", x, "response_time_us")))
                .collect::<Vec<_>>()
                .join(" / "),
        );
        md += &self.elevator_misses();
        let per = |exp: &str, col: &str| self.reductions(exp, "sd_factor", col, "esf", "ets");
        let flip = |v: Vec<(f64, f64)>| v.into_iter().map(|(x, r)| (x, -r)).collect::<Vec<_>>();
        let ets_us = |exp: &str, col: &str| {
            self.xs(exp, "sd_factor")
                .into_iter()
                .map(|x| format!("{x:.0} × SD: {:.1} µs", self.metric(exp, "ets", "sd_factor", x, col)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            md,
            "**The unstable stream.** Its gaps are gamma-distributed (shape 1/cv², the workload's module doc): \
             its requests come in clusters of about cv² between pauses, so within a prefetch's lead time (a \
             disk request takes {:.1} ms on average here) it can ask for more than its trigger distance holds. \
             Under ETS, which gives both streams the same trigger distance, it answers in {} against the stable \
             stream's {}; the slides' \"large improvement for unstable stream\" under ESF needs one that runs \
             short under ETS. Drawn with the same mean and cv from a balanced two-phase hyperexponential \
             instead (the `deviations-h2` rows, a diagnostic), whose variance lies in rare long pauses and \
             which is Poisson at about twice its mean rate between them, the unstable stream answers in {} \
             under ETS, no slower than the stable one, and ESF's average response time is {} against ETS's: \
             ESF has something to do only where the \
             demand is bursty at the scale of a lead time, and the slides describe their unstable stream by its \
             SD alone. The slides do not give the rates either; with the unstable stream at \
             {DEVIATIONS_FAST_RATE} pages/s instead of 1,000 (the `deviations-5000` rows, a diagnostic), ESF's \
             average response time is {} against ETS's; the unstable stream's {}, the stable stream's {}.\n",
            self.metric("deviations", "ets", "sd_factor", SD_FACTORS_QUICK[0] as f64, "mean_service_ms"),
            ets_us("deviations", "response_time_us_stream2"),
            ets_us("deviations", "response_time_us_stream1"),
            ets_us("deviations-h2", "response_time_us_stream2"),
            percents(&flip(per("deviations-h2", "response_time_us")), "× SD"),
            percents(&flip(per("deviations-5000", "response_time_us")), "× SD"),
            percents(&flip(per("deviations-5000", "response_time_us_stream2")), "× SD"),
            percents(&flip(per("deviations-5000", "response_time_us_stream1")), "× SD"),
        );
        md += &self.stable_stream_paragraph();
        let _ = writeln!(
            md,
            "**The VOD streams** are paced at their video rates, so while the disk keeps up every policy delivers \
             the same throughput (the offered load); a difference can only show past saturation.\n"
        );
        md += &self.tpch_paragraph();
        md += &self.memory_paragraph();
        let seeds = self.seeds();
        let by_seed = |exp: &str, key: &str, a: &str, b: &str, unit: &str| {
            self.reductions_by_seed(exp, key, "response_time_us", a, b)
                .into_iter()
                .map(|(seed, v)| {
                    format!(
                        "seed {seed:.0}: {}",
                        percents(&v.into_iter().map(|(x, r)| (x, -r)).collect::<Vec<_>>(), unit)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let _ = writeln!(
            md,
            "**Seeds.** Every number here is the mean over {} seed(s) ({}); the table gives the response time's \
             range over them. A bursty stream's response time moves by tens of percent from seed to seed (changes, \
             as everywhere here): ETS against 32-32 in the rates experiment is {}; ESF against ETS in the \
             `deviations-5000` diagnostic is {}.\n",
            seeds.len(),
            seeds.iter().map(|s| format!("{s:.0}")).collect::<Vec<_>>().join(", "),
            by_seed("rates", "fast_rate_pages_s", "ets", "32-32", "pages/s"),
            by_seed("deviations-5000", "sd_factor", "esf", "ets", "× SD"),
        );
        let _ = writeln!(
            md,
            "| experiment | x | prefetch | response (µs; min–max over seeds) | stream 1 (µs) | stream 2 (µs) | ESC | fill rate | \
             cycles | prefetch memory (pages) | vs 32-32 (seed mean; runs) | stream pages/s | random pages/s | disk busy |\n\
             |---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        let first_seed = self.seeds().first().copied().unwrap_or(f64::NAN);
        for r in self.rows.iter().filter(|r| r.num("seed") == first_seed) {
            let (exp, p) = (r.text("experiment"), r.text("prefetch"));
            let (key, x) = (x_key(exp), r.num(x_key(exp)));
            let m = |metric: &str| self.metric(exp, p, key, x, metric);
            let response: Vec<f64> =
                self.runs(exp, p, key, x).map(|r| r.metric("response_time_us")).collect();
            let spread = if response.len() > 1 {
                let lo = response.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = response.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!(" ({lo:.1}–{hi:.1})")
            } else {
                String::new()
            };
            let label = format!("{} {} ({})", r.text("experiment"), case_x(r), r.text("prefetch"));
            // The seed mean, then the range of the runs against 32-32's of their own seed.
            let seeds: Vec<f64> =
                self.memory_runs().iter().filter(|m| m.label == label).map(|m| m.change).collect();
            let vs =
                ratios.iter().find(|(l, _)| *l == label).map_or("—".into(), |(_, d)| {
                    match finite_range(seeds.iter().copied()) {
                        Some((lo, hi)) if seeds.len() > 1 => {
                            format!("{} ({} to {})", signed_pct(*d, 1), signed_pct(lo, 1), signed_pct(hi, 1))
                        }
                        _ => signed_pct(*d, 1),
                    }
                });
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.1}{spread} | {:.1} | {:.1} | {:.4} | {:.3} | {:.0} | {:.1} | {vs} | {:.0} | {:.0} | {:.2} |",
                exp,
                case_x(r),
                p,
                m("response_time_us"),
                m("response_time_us_stream1"),
                m("response_time_us_stream2"),
                m("esc"),
                m("fill_rate"),
                m("prefetch_cycles"),
                m("prefetch_memory_pages_mean"),
                m("stream_throughput_pages_s"),
                m("random_throughput_pages_s"),
                m("disk_busy"),
            );
        }
        md
    }
}

/// The parameter an experiment sweeps.
fn x_key(experiment: &str) -> &'static str {
    match experiment {
        "rates" | "rates-deadline" | "rates-cfq" | "capacity" | "capacity-nocache" => "fast_rate_pages_s",
        "deviations" | "deviations-5000" | "deviations-h2" => "sd_factor",
        _ => "streams",
    }
}

/// The swept value of a row, as the report names it.
fn case_x(r: &Row) -> String {
    match r.text("experiment") {
        "rates" => format!("{:.0} pages/s", r.num("fast_rate_pages_s")),
        "deviations" => format!("{:.0} × SD", r.num("sd_factor")),
        "capacity" | "capacity-nocache" => format!("2 × {CAPACITY_RATE} pages/s"),
        "rates-deadline" | "rates-cfq" => format!("{:.0} pages/s", r.num("fast_rate_pages_s")),
        "deviations-5000" | "deviations-h2" => format!("{:.0} × SD", r.num("sd_factor")),
        _ => format!("{:.0} streams", r.num("streams")),
    }
}

/// What one stream holds on average when it never waits for a window: T + P/2 (32-32 at its ramp's top,
/// T = P = 32; the others T_total / n = 24 on average with P = 48).
fn no_wait_pages(policy: &str) -> f64 {
    if policy == "32-32" {
        1.5 * P_3232_PAGES as f64
    } else {
        T_DEFAULT_PAGES as f64 + P_PAGES as f64 / 2.0
    }
}

/// The unit of an experiment's swept value, as the report writes it after the number.
fn x_unit(experiment: &str) -> &'static str {
    match x_key(experiment) {
        "fast_rate_pages_s" => "pages/s",
        "sd_factor" => "× SD",
        _ => "streams",
    }
}

/// Two ESCs are similar within a quarter of the larger; two of (nearly) zero are similar.
fn esc_similar(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.25 * a.max(b).max(1e-6)
}

/// A claim of two parts: reproduced when both hold, partly when one does.
fn halves(a: bool, b: bool) -> Verdict {
    match (a, b) {
        (true, true) => Verdict::Reproduced,
        (true, false) | (false, true) => Verdict::Partial,
        (false, false) => Verdict::NotReproduced,
    }
}

fn percents(values: &[(f64, f64)], unit: &str) -> String {
    values.iter().map(|(x, v)| format!("{x:.0} {unit}: {}", signed_pct(*v, 1))).collect::<Vec<_>>().join(", ")
}

/// A claim of a range of improvements: reproduced when every value is inside it (5 points of slack each
/// way), partly when every value improves but some fall outside, not when any does not improve.
///
/// `measured` is (who against whom, the changes, the unit of x); `range` is the improvement the claim
/// states (a fraction lower for [`Better::Lower`], higher for [`Better::Higher`]).
fn range_check(
    claim: &str,
    source: &str,
    measured: (&str, &[(f64, f64)], &str),
    better: Better,
    range: (f64, f64),
) -> Check {
    let (who, changes, unit) = measured;
    let improvement = |change: f64| if better == Better::Lower { -change } else { change };
    let inside = |v: f64| v >= range.0 - 0.05 && v <= range.1 + 0.05;
    let verdict = if changes.is_empty() || changes.iter().any(|c| c.1.is_nan() || improvement(c.1) <= 0.0) {
        Verdict::NotReproduced
    } else if changes.iter().all(|c| inside(improvement(c.1))) {
        Verdict::Reproduced
    } else {
        Verdict::Partial
    };
    Check {
        claim: format!("{claim} (here: each within 5 points of the range)"),
        source: source.into(),
        measured: format!("{who}: {}", percents(changes, unit)),
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One short run per policy of the rates experiment at 3,000 pages/s (the disk far from saturation):
    /// every policy holds the same prefetch memory as 32-32 within the tolerance, and the fixed-degree
    /// policies' cycles are 48 pages.
    #[test]
    fn policies_run_and_hold_equal_prefetch_memory() {
        let case = Case::Rates { fast: 3000 };
        let rows: Vec<Row> = POLICIES.iter().map(|(n, s)| run(case, n, s, true, 1).unwrap()).collect();
        for r in &rows {
            assert!(r.metric("response_time_us") > 0.0 && r.metric("prefetch_cycles") > 0.0, "{r:?}");
        }
        let a = Analysis::new(&rows);
        for (label, d) in a.memory_ratios() {
            assert!(d.abs() <= MEMORY_TOLERANCE, "{label}: {:+.1} % of 32-32's prefetch memory", 100.0 * d);
        }
        for r in &rows[1..] {
            assert!((r.metric("pages_per_cycle") - 48.0).abs() < 1.0, "{r:?}");
        }
        assert!(rows[0].metric("pages_per_cycle") < 40.0, "32-32's cycles are 32 pages: {:?}", rows[0]);
    }

    /// Fairness is counted run by run, and a comparison that needs more memory does not count. Two seeds of
    /// two VOD cases: ETS holds 2 % less than 32-32 in seed 1 and 10 % more in seed 2 at 8 streams (a seed
    /// mean of +4 %, inside the tolerance), the same as 32-32 at 16. The fairness check counts the one run
    /// outside, which the seed means would hide; the throughput claim, every value inside its range, names
    /// 8 streams as not counted and is only partly reproduced, and with 16 streams over too nothing is left
    /// to count.
    #[test]
    fn fairness_counts_each_run_and_more_memory_does_not_count() {
        let row = |p: &str, streams: u64, seed: u64, memory: f64| Row {
            params: vec![
                ("experiment".into(), "vod".into()),
                ("prefetch".into(), p.into()),
                ("streams".into(), streams.into()),
                ("fast_rate_pages_s".into(), f64::NAN.into()),
                ("sd_factor".into(), 1.0.into()),
                ("seed".into(), seed.into()),
            ],
            metrics: vec![
                ("prefetch_memory_pages_mean".into(), memory),
                // ETS 20 % above 32-32: inside the claim's 6–53 %.
                ("stream_throughput_pages_s".into(), if p == "ets" { 1200.0 } else { 1000.0 }),
            ],
            series: Vec::new(),
        };
        let rows = |at_16_seed_1: f64| {
            vec![
                row("32-32", 8, 1, 100.0),
                row("ets", 8, 1, 98.0),
                row("32-32", 16, 1, 100.0),
                row("ets", 16, 1, at_16_seed_1),
                row("32-32", 8, 2, 100.0),
                row("ets", 8, 2, 110.0),
                row("32-32", 16, 2, 100.0),
                row("ets", 16, 2, 100.0),
            ]
        };
        let rows_one = rows(100.0);
        let a = Analysis::new(&rows_one);
        let fair = a.fairness();
        assert!(fair.measured.starts_with("1 of 4 runs outside"), "{}", fair.measured);
        assert!(fair.measured.contains("over the seed means 0 of 2 cases"), "{}", fair.measured);
        assert_eq!(fair.verdict, Verdict::Partial);
        assert_eq!(a.vod_throughput().verdict, Verdict::Reproduced);
        let claim = a.within_budget(a.vod_throughput(), "vod", &["ets"]);
        assert!(claim.measured.contains("does not count"), "{}", claim.measured);
        assert!(claim.measured.contains("8 streams (ets seed 2: +10.0 %)"), "{}", claim.measured);
        assert!(!claim.measured.contains("16 streams (ets"), "{}", claim.measured);
        assert_eq!(claim.verdict, Verdict::Partial);
        // Less memory than 32-32 is outside the tolerance but does not take a comparison out.
        let mut rows_less = rows(100.0);
        rows_less[5].metrics[0].1 = 80.0;
        let less = Analysis::new(&rows_less);
        assert!(less.fairness().measured.starts_with("1 of 4 runs outside"));
        assert_eq!(less.within_budget(less.vod_throughput(), "vod", &["ets"]).verdict, Verdict::Reproduced);
        let rows_both = rows(106.0);
        let both = Analysis::new(&rows_both);
        assert_eq!(
            both.within_budget(both.vod_throughput(), "vod", &["ets"]).verdict,
            Verdict::NotReproduced
        );
    }

    /// What the deviations experiment rests on (the workload's module doc), in quick runs at 7 × SD: the
    /// bursty stream runs short under ETS, where the stable one does not, and ESF, which gives it safety
    /// inventory by its deviation, cuts its response time; the same cv drawn as pauses (`gaps=h2`) never
    /// runs short, so there is nothing for ESF to do.
    #[test]
    fn esf_helps_a_bursty_stream_and_pauses_need_no_help() {
        let at = |case, policy: &str| {
            let spec = POLICIES.iter().find(|(n, _)| *n == policy).expect("a policy").1;
            run(case, policy, spec, true, 1).unwrap()
        };
        let bursts = Case::Deviations { sd: 7 };
        let (ets, esf) = (at(bursts, "ets"), at(bursts, "esf"));
        let unstable = |r: &Row| r.metric("response_time_us_stream2");
        let stable = |r: &Row| r.metric("response_time_us_stream1");
        assert!(unstable(&ets) > 5.0 * stable(&ets), "ETS: the bursty stream runs short: {ets:?}");
        assert!(unstable(&esf) < 0.8 * unstable(&ets), "ESF helps it: {esf:?} against {ets:?}");
        let pauses = at(Case::DeviationsH2 { sd: 7 }, "ets");
        assert!(unstable(&pauses) < 1.5 * stable(&pauses), "pauses never run short: {pauses:?}");
    }
}
