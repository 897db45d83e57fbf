//! `system-model`: does the simulated server behave like the hardware and kernel it models?
//!
//! Three parts, each set against its source:
//! 1. The disk alone (`Device::service`, no scheduler): mean service time of random reads by request size
//!    and zone, the media transfer rate, and the sustained rate of back-to-back sequential reads — against
//!    the DiskSim-validated Cheetah 9LP (`../shared/reference/devices.md` §2).
//! 2. One sequential reader through the whole server with readahead windows of 0, 128 KiB and 512 KiB
//!    — readahead exists to turn small sequential reads into large disk requests.
//! 3. Random 64 KiB readers at rising concurrency under the deadline and anticipatory schedulers — papers/000
//!    §4.3: throughput "initially increases as the concurrency level climbs up ... due to lower average seek
//!    distance when the disk scheduler can choose from more concurrent requests".

use super::{Chart, Check, Experiment, Findings, Job, Row, Value, Verdict};
use crate::config::{SimConfig, Warmup};
use crate::device::{Device, DeviceSpec};
use crate::error::SimError;
use crate::io::DiskRequest;
use crate::server::simulate;
use crate::workload::spec::parse_workload;
use pagelab_core::Nanos;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;

pub struct SystemModel;

const SIZES_KIB: [u64; 5] = [4, 32, 64, 256, 1024];
/// The request size whose median transfer gives the media rate: small enough to rarely cross a track
/// (64 sectors of 254 outer / 167 inner), large enough that the one sector of bus time is under 1 %.
const MEDIA_KIB: u64 = 32;
const REGIONS: [&str; 3] = ["whole disk", "outer 5%", "inner 5%"];
const WINDOWS: [&str; 3] = ["none", "linux:128KiB", "linux:512KiB"];
const READ_SIZES: [&str; 2] = ["4KiB", "64KiB"];
const CONCURRENCY: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
const SCHEDULERS: [&str; 2] = ["deadline", "anticipatory"];
/// DiskSim Cheetah 9LP random 4 KiB read (devices.md §2.6), and the tolerance the model is held to.
const RANDOM_4K_MS: f64 = 8.9;
const RANDOM_4K_TOLERANCE: f64 = 0.05;
/// DiskSim 4.0 on the very requests of the `sequential` 1 MiB disk jobs (back to back from the start of
/// the outer and the inner 5 %, wrapping at the region's end), MB/s (outer, inner): the quick sweep's 1000
/// reads, the full sweep's 5000. The validated Cheetah 9LP with pagelab's bus (0.0064 ms per sector) and
/// "Allow almost read hits = 1" (the `hdd` module doc says why); `docs/DISK-VALIDATION.md`.
const DISKSIM_SEQ_1M_MB_S: [(f64, f64); 2] = [(15.618, 9.489), (15.619, 9.471)];
/// The models agree to 1e-5 on these streams; a lost revolution per read would cost 8 %, a skew one sector
/// off 0.3 %.
const DISKSIM_SEQ_TOLERANCE: f64 = 0.001;

impl Experiment for SystemModel {
    fn name(&self) -> &'static str {
        "system-model"
    }

    fn title(&self) -> &'static str {
        "Validation of the simulated server: disk, readahead, scheduler"
    }

    fn description(&self) -> &'static str {
        "Measures the HDD model directly (random and sequential service times by request size and zone), \
         a single sequential reader with readahead windows of 0 / 128 KiB / 512 KiB, and random 64 KiB \
         readers from 1 to 128 at a time under the deadline and anticipatory schedulers, and sets each \
         result beside the DiskSim model and the papers' observations it must reproduce."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        let mut jobs = Vec::new();
        let samples = if quick { 1000 } else { 5000 };
        for kind in ["random", "sequential"] {
            for region in REGIONS {
                for kib in SIZES_KIB {
                    jobs.push(Job::new(format!("disk {kind} {region} {kib}KiB"), move || {
                        Ok(disk_job(kind, region, kib, samples, seed))
                    }));
                }
            }
        }
        let seq_secs = if quick { 10 } else { 60 };
        for read in READ_SIZES {
            for window in WINDOWS {
                jobs.push(Job::new(
                    format!("sequential reader {read} reads, readahead {window}"),
                    move || sequential_reader(read, window, seq_secs, seed),
                ));
            }
        }
        let rand_secs = if quick { 20 } else { 120 };
        for sched in SCHEDULERS {
            for c in CONCURRENCY {
                jobs.push(Job::new(format!("random 64KiB readers x{c}, {sched}"), move || {
                    random_readers(c, sched, rand_secs, seed)
                }));
            }
        }
        jobs
    }

    fn analyze(&self, rows: &[Row], quick: bool) -> Findings {
        let disk: Vec<&Row> = rows.iter().filter(|r| r.text("part") == "disk").collect();
        let seq: Vec<&Row> = rows.iter().filter(|r| r.text("part") == "sequential reader").collect();
        let rnd: Vec<&Row> = rows.iter().filter(|r| r.text("part") == "random readers").collect();
        let find = |kind: &str, region: &str, kib: f64| {
            disk.iter()
                .find(|r| r.text("kind") == kind && r.text("region") == region && r.num("size_kib") == kib)
        };
        let random_4k = find("random", REGIONS[0], 4.0).map_or(f64::NAN, |r| r.metric("mean_service_ms"));
        let media =
            |region| find("random", region, MEDIA_KIB as f64).map_or(f64::NAN, |r| r.metric("media_mb_s"));
        let (media_outer, media_inner) = (media(REGIONS[1]), media(REGIONS[2]));
        let sustained_outer = find("sequential", REGIONS[1], 1024.0).map_or(f64::NAN, |r| r.metric("mb_s"));
        let sustained_inner = find("sequential", REGIONS[2], 1024.0).map_or(f64::NAN, |r| r.metric("mb_s"));
        let seq_tp = |read: &str, window: &str| {
            seq.iter()
                .find(|r| r.text("read") == read && r.text("readahead") == window)
                .map_or(f64::NAN, |r| r.metric("throughput_mib_s"))
        };
        let rnd_tp = |sched: &str, c: u32| {
            rnd.iter()
                .find(|r| r.text("scheduler") == sched && r.num("concurrency") == c as f64)
                .map_or(f64::NAN, |r| r.metric("throughput_mib_s"))
        };
        let c_max = *CONCURRENCY.last().expect("concurrency levels");
        // The concurrency at which each scheduler peaks, and its gain over one reader.
        let peak = |sched: &str| {
            CONCURRENCY.iter().map(|&c| (c, rnd_tp(sched, c))).fold((1, f64::NAN), |best, x| {
                if x.1 > best.1 || best.1.is_nan() {
                    x
                } else {
                    best
                }
            })
        };
        let (c_dl, tp_dl) = peak("deadline");
        let (c_as, tp_as) = peak("anticipatory");
        let gain_dl = tp_dl / rnd_tp("deadline", 1);
        let gain_as = tp_as / rnd_tp("anticipatory", 1);

        let mut checks = Vec::new();
        let err_4k = (random_4k / RANDOM_4K_MS - 1.0).abs();
        checks.push(Check {
            claim: format!("random 4 KiB read ≈ {RANDOM_4K_MS} ms (0.28 overhead + 5.5 seek + 3.0 rotation + 0.1 transfer)"),
            source: "devices.md §2.6, DiskSim Cheetah 9LP".into(),
            measured: format!("{random_4k:.3} ms ({})", super::signed_pct(random_4k / RANDOM_4K_MS - 1.0, 1)),
            verdict: if err_4k <= RANDOM_4K_TOLERANCE { Verdict::Reproduced } else { Verdict::NotReproduced },
        });
        let media_ok = (media_outer / 21.8 - 1.0).abs() <= 0.02 && (media_inner / 14.3 - 1.0).abs() <= 0.02;
        checks.push(Check {
            claim: "media rate 21.8 MB/s (outer zone) → 14.3 MB/s (inner zone)".into(),
            source: "devices.md §2.1 (computed from the DiskSim zone table)".into(),
            measured: format!(
                "{media_outer:.2} / {media_inner:.2} MB/s within a track (median {MEDIA_KIB} KiB transfer); \
                 sustained back-to-back 1 MiB reads {sustained_outer:.2} / {sustained_inner:.2} MB/s (track skews)"
            ),
            verdict: if media_ok { Verdict::Reproduced } else { Verdict::NotReproduced },
        });
        let (ds_outer, ds_inner) = DISKSIM_SEQ_1M_MB_S[if quick { 0 } else { 1 }];
        let (err_outer, err_inner) = (sustained_outer / ds_outer - 1.0, sustained_inner / ds_inner - 1.0);
        checks.push(Check {
            claim: format!(
                "sustained back-to-back 1 MiB reads as DiskSim 4.0 gives on the same requests: \
                 {ds_outer:.2} MB/s (outer 5 %) / {ds_inner:.2} MB/s (inner 5 %), the track skews' toll"
            ),
            source: "DiskSim 4.0, validated Cheetah 9LP, 6.4 µs/sector bus, almost read hits on \
                     (docs/DISK-VALIDATION.md)"
                .into(),
            measured: format!(
                "{sustained_outer:.2} / {sustained_inner:.2} MB/s ({} / {})",
                super::signed_pct(err_outer, 2),
                super::signed_pct(err_inner, 2)
            ),
            verdict: if err_outer.abs() <= DISKSIM_SEQ_TOLERANCE && err_inner.abs() <= DISKSIM_SEQ_TOLERANCE {
                Verdict::Reproduced
            } else {
                Verdict::NotReproduced
            },
        });
        let ra_gain = seq_tp("4KiB", "linux:128KiB") / seq_tp("4KiB", "none");
        let seq_pages = |window: &str| {
            seq.iter()
                .find(|r| r.text("read") == "4KiB" && r.text("readahead") == window)
                .map_or(f64::NAN, |r| r.metric("mean_request_pages"))
        };
        let pages_gain = seq_pages("linux:128KiB") / seq_pages("none");
        checks.push(Check {
            // The drive's own read-ahead (its segmented cache, DiskSim-validated) already streams a lone
            // sequential reader from the media, so the OS window shows in the requests, not the rate: what
            // readahead buys a lone reader is fewer, larger requests (the rate gains come with concurrency,
            // where the drive's cache cannot follow every stream).
            claim: "readahead turns a 4 KiB sequential reader's requests into large disk requests (a lone reader's \
                    rate is the drive read-ahead's already)"
                .into(),
            source: "readahead.md §6; papers/000 §2; docs/DISK-VALIDATION.md".into(),
            measured: format!(
                "{:.1} → {:.1} → {:.1} pages per disk request, {:.2} → {:.2} → {:.2} MiB/s, with windows \
                 0 / 128 KiB / 512 KiB ({pages_gain:.1}x the request size, {ra_gain:.2}x the rate at 128 KiB)",
                seq_pages("none"),
                seq_pages("linux:128KiB"),
                seq_pages("linux:512KiB"),
                seq_tp("4KiB", "none"),
                seq_tp("4KiB", "linux:128KiB"),
                seq_tp("4KiB", "linux:512KiB")
            ),
            verdict: if pages_gain >= 8.0 && ra_gain > 0.95 { Verdict::Reproduced } else { Verdict::NotReproduced },
        });
        checks.push(Check {
            claim: "random readers' throughput initially increases with concurrency: the scheduler chooses among more \
                    requests and seeks get shorter"
                .into(),
            source: "papers/000 §4.3".into(),
            measured: format!(
                "deadline {:.2} → {tp_dl:.2} MiB/s peak at {c_dl} ({gain_dl:.2}x), {:.2} at {c_max}; anticipatory \
                 {:.2} → {tp_as:.2} MiB/s peak at {c_as} ({gain_as:.2}x)",
                rnd_tp("deadline", 1),
                rnd_tp("deadline", c_max),
                rnd_tp("anticipatory", 1)
            ),
            // "Initially increases" is a direction: a gain beyond run-to-run noise (10 %) at some concurrency.
            verdict: if gain_dl > 1.1 && gain_as > 1.1 { Verdict::Reproduced } else { Verdict::NotReproduced },
        });

        let mut charts = Vec::new();
        let mut series = Vec::new();
        for kind in ["random", "sequential"] {
            for region in REGIONS {
                let pts: Vec<(f64, f64)> = SIZES_KIB
                    .iter()
                    .filter_map(|&k| {
                        find(kind, region, k as f64).map(|r| (k as f64, r.metric("mean_service_ms")))
                    })
                    .collect();
                series.push((format!("{kind}, {region}"), pts));
            }
        }
        charts.push(Chart {
            title: "HDD service time per request (Cheetah 9LP model)".into(),
            x_label: "request size (KiB)".into(),
            y_label: "mean service time (ms)".into(),
            log_x: true,
            series,
        });
        charts.push(Chart {
            title: "One sequential reader: throughput vs readahead window".into(),
            x_label: "readahead window (KiB)".into(),
            y_label: "throughput (MiB/s)".into(),
            log_x: false,
            series: READ_SIZES
                .iter()
                .map(|read| {
                    let pts = [0.0, 128.0, 512.0]
                        .iter()
                        .zip(WINDOWS)
                        .map(|(&kib, w)| (kib, seq_tp(read, w)))
                        .collect();
                    (format!("{read} reads"), pts)
                })
                .collect(),
        });
        charts.push(Chart {
            title: "Random 64 KiB readers: throughput vs concurrency".into(),
            x_label: "concurrent readers".into(),
            y_label: "throughput (MiB/s)".into(),
            log_x: true,
            series: SCHEDULERS
                .iter()
                .map(|s| (s.to_string(), CONCURRENCY.iter().map(|&c| (c as f64, rnd_tp(s, c))).collect()))
                .collect(),
        });

        let summary = vec![
            ("random_4k_service_ms".to_string(), random_4k),
            ("media_rate_outer_mb_s".to_string(), media_outer),
            ("media_rate_inner_mb_s".to_string(), media_inner),
            ("sequential_1m_outer_mb_s".to_string(), sustained_outer),
            ("sequential_1m_inner_mb_s".to_string(), sustained_inner),
            ("seq_reader_4k_none_mib_s".to_string(), seq_tp("4KiB", "none")),
            ("seq_reader_4k_128k_mib_s".to_string(), seq_tp("4KiB", "linux:128KiB")),
            ("seq_reader_4k_512k_mib_s".to_string(), seq_tp("4KiB", "linux:512KiB")),
            ("random64k_deadline_c1_mib_s".to_string(), rnd_tp("deadline", 1)),
            ("random64k_deadline_peak_mib_s".to_string(), tp_dl),
            ("random64k_as_peak_mib_s".to_string(), tp_as),
            (format!("random64k_deadline_c{c_max}_mib_s"), rnd_tp("deadline", c_max)),
            ("random64k_as_c1_mib_s".to_string(), rnd_tp("anticipatory", 1)),
            (format!("random64k_as_c{c_max}_mib_s"), rnd_tp("anticipatory", c_max)),
        ];
        Findings { summary, charts, checks, markdown: markdown(&disk, &seq, &rnd) }
    }
}

/// Part 1: requests to the device alone, each issued when the previous one completes.
fn disk_job(kind: &'static str, region: &'static str, kib: u64, samples: u32, seed: u64) -> Row {
    let mut dev: Box<dyn Device> = DeviceSpec::parse("hdd").expect("built-in device").build();
    let cap = dev.capacity_sectors();
    let sectors = (kib * 2) as u32;
    let (lo, hi) = match region {
        "outer 5%" => (0, cap / 20),
        "inner 5%" => (cap - cap / 20, cap),
        _ => (0, cap),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ kib.wrapping_mul(0x9e37_79b9) ^ region.len() as u64);
    let mut now = Nanos::ZERO;
    let mut total = Nanos::ZERO;
    let mut transfers: Vec<u64> = Vec::with_capacity(samples as usize);
    let mut next_seq = lo;
    for _ in 0..samples {
        let sector = if kind == "random" {
            // Page-aligned, whole request inside the region.
            let slots = (hi - lo - sectors as u64) / 8;
            lo + 8 * rng.gen_range(0..slots)
        } else {
            // Back to the region's start when the stream reaches its end (one seek in thousands).
            if next_seq + sectors as u64 > hi {
                next_seq = lo;
            }
            let s = next_seq;
            next_seq += sectors as u64;
            s
        };
        let t = dev.service(now, &DiskRequest::read(sector, sectors));
        now += t.total();
        total += t.total();
        transfers.push(t.transfer.0);
    }
    transfers.sort_unstable();
    let median_transfer_s = transfers[transfers.len() / 2] as f64 / 1e9;
    let bytes = samples as f64 * kib as f64 * 1024.0;
    Row {
        params: vec![
            ("part".into(), "disk".into()),
            ("kind".into(), kind.into()),
            ("region".into(), region.into()),
            ("size_kib".into(), Value::from(kib)),
            ("samples".into(), Value::from(samples as u64)),
        ],
        metrics: vec![
            ("mean_service_ms".into(), total.as_ms_f64() / samples as f64),
            ("mb_s".into(), bytes / total.as_secs_f64() / 1e6),
            ("media_mb_s".into(), kib as f64 * 1024.0 / median_transfer_s / 1e6),
        ],
        series: Vec::new(),
    }
}

fn run_sim(cfg: SimConfig, workload: &str) -> Result<crate::metrics::RunMetrics, SimError> {
    simulate(cfg, parse_workload(workload)?)
}

/// Part 2: one handler reading whole 64 MiB files in `read`-sized calls.
fn sequential_reader(
    read: &'static str,
    window: &'static str,
    secs: u64,
    seed: u64,
) -> Result<Row, SimError> {
    let cfg = SimConfig {
        prefetcher: window.parse()?,
        duration: Nanos::from_secs(secs),
        // A lone sequential reader's rate does not depend on what the cache holds: measured from the start.
        warmup: Warmup::Fixed(Nanos::ZERO),
        seed,
        ..SimConfig::default()
    };
    let m = run_sim(cfg, &format!("seq:files=16,file_size=64MiB,block={read}"))?;
    Ok(Row {
        params: vec![
            ("part".into(), "sequential reader".into()),
            ("read".into(), read.into()),
            ("readahead".into(), window.into()),
        ],
        metrics: vec![
            ("throughput_mib_s".into(), m.throughput_mib_s),
            ("disk_requests".into(), m.disk.requests as f64),
            ("mean_request_pages".into(), m.disk.mean_request_pages),
            ("mean_service_ms".into(), m.disk.mean_service_ms),
            ("hit_ratio".into(), m.hit_ratio),
        ],
        series: Vec::new(),
    })
}

/// Part 3: `c` handlers, each request one random 64 KiB block of an 8 GB dataset.
fn random_readers(c: u32, sched: &'static str, secs: u64, seed: u64) -> Result<Row, SimError> {
    let cfg = SimConfig {
        scheduler: sched.parse()?,
        concurrency: c,
        duration: Nanos::from_secs(secs),
        warmup: Warmup::Fixed(Nanos::from_secs(1)),
        seed,
        ..SimConfig::default()
    };
    let m = run_sim(cfg, "random:files=2000,file_size=4MiB,block=64KiB")?;
    Ok(Row {
        params: vec![
            ("part".into(), "random readers".into()),
            ("scheduler".into(), sched.into()),
            ("concurrency".into(), Value::from(c as u64)),
        ],
        metrics: vec![
            ("throughput_mib_s".into(), m.throughput_mib_s),
            ("requests_completed".into(), m.requests_completed as f64),
            ("latency_mean_ms".into(), m.latency_ms.mean),
            ("mean_service_ms".into(), m.disk.mean_service_ms),
            ("busy_fraction".into(), m.disk.busy_fraction),
        ],
        series: Vec::new(),
    })
}

fn markdown(disk: &[&Row], seq: &[&Row], rnd: &[&Row]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "### 1. The disk alone\n");
    let _ = writeln!(
        md,
        "Each request is issued when the previous one completes, straight to the device model (no scheduler, \
         no cache). Random requests are page-aligned and uniform over the region; sequential ones are \
         back to back from the region's start. `media MB/s` is a request's bytes over the median transfer \
         component (a request crossing a track also waits for the next track's skew, which the median leaves out).\n"
    );
    let _ = writeln!(
        md,
        "| kind | region | size | mean service (ms) | MB/s | media MB/s |\n|---|---|---|---|---|---|"
    );
    for r in disk {
        let _ = writeln!(
            md,
            "| {} | {} | {} KiB | {:.3} | {:.2} | {:.2} |",
            r.text("kind"),
            r.text("region"),
            r.num("size_kib"),
            r.metric("mean_service_ms"),
            r.metric("mb_s"),
            r.metric("media_mb_s")
        );
    }
    let _ = writeln!(
        md,
        "\nSequential back-to-back reads stream below the media rate because every track change waits for the \
         layout's skews (80–133 sectors, 2.3–3.2 ms, in the DiskSim zone table) while the head switch \
         itself takes 0.03 ms; DiskSim 4.0 gives the same times on the same requests (to 1e-5, with its \
         \"almost read hits\" on; docs/DISK-VALIDATION.md). The drive's own read-ahead streams small \
         sequential reads too: back-to-back 4 KiB reads stream as fast as 1 MiB ones.\n"
    );
    let _ = writeln!(md, "### 2. One sequential reader\n");
    let _ = writeln!(md, "| read size | readahead | MiB/s | disk requests | mean request (pages) | mean service (ms) |\n|---|---|---|---|---|---|");
    for r in seq {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {} | {:.1} | {:.3} |",
            r.text("read"),
            r.text("readahead"),
            r.metric("throughput_mib_s"),
            r.metric("disk_requests"),
            r.metric("mean_request_pages"),
            r.metric("mean_service_ms")
        );
    }
    let _ = writeln!(md, "\n### 3. Random 64 KiB readers\n");
    let _ = writeln!(md, "| scheduler | readers | MiB/s | requests | mean latency (ms) | mean service (ms) | disk busy |\n|---|---|---|---|---|---|---|");
    for r in rnd {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {} | {:.1} | {:.3} | {:.1} % |",
            r.text("scheduler"),
            r.num("concurrency"),
            r.metric("throughput_mib_s"),
            r.metric("requests_completed"),
            r.metric("latency_mean_ms"),
            r.metric("mean_service_ms"),
            100.0 * r.metric("busy_fraction")
        );
    }
    md
}
