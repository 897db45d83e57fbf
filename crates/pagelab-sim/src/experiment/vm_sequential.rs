//! `vm-sequential`: MemRx's pathological VM Sequential (papers/003 §5, Table 2 and Figure 6).
//!
//! The paper's instance: VM Sequential "configured to allocate 264 MB of memory and then accesses it three
//! times sequentially", run "under the same series of memory configurations between 128 and 512 MB as used
//! throughout the evaluation" (MemRx predicts in 32 MB increments); Table 2 gives "the average seek
//! distance between overlapping clusters of reads and writes" of the swap traffic: 29,843 pages at 128 MB,
//! 31,846 at 192 MB, 18,079 at 256 MB, and Figure 6 confirms the runtime it implies — worse at 192 MB than
//! at 128 MB, much better at 256 MB. The Figure 3 instance adds that runtime "gradually improves under
//! larger memory conditions until the allocation completely fits in available memory at which point
//! runtime drops to nearly zero".
//!
//! pagelab runs `vm-seq:size=264MiB,passes=3` with `--memory` at each configuration and measures the run's
//! execution time, the swap traffic, and the mean distance the head travels where a read follows a write
//! or a write a read (`DiskMetrics::rw_switch_distance_pages_mean`) — our reading of "the seek distance
//! between overlapping clusters of reads and writes".
//!
//! Departures, and why:
//! - The kernel: the paper ran Linux 2.4.30; pagelab models 2.6's reclaim. In 2.4 anonymous pages reached
//!   the swap cache through `swap_out()`, a scan of each process's page tables in virtual-address order
//!   from where the last scan stopped (the "minimal rmap" patch of 2.5.27 replaced it with reclaim from
//!   the LRU lists), so 2.4 assigned swap slots in the order of that scan; pagelab assigns them in LRU
//!   order (`scan_swap_map` clusters of 256 slots). Where the slots land decides the read/write distance.
//! - The disk: the paper's Western Digital WD1200BB is not modelled; the default HDD (the validated
//!   Cheetah 9LP) serves.
//! - The swap area: the paper does not give its size. pagelab's default (twice memory) would change with
//!   each configuration and so move the area's boundary (and `vm_swap_full()`, which frees a slot at
//!   swap-in when the area is half full) with the variable under study; this experiment fixes it at twice
//!   the test machine's 512 MB of physical memory, 1 GiB, the same rule of thumb applied to the machine
//!   the paper names.

use super::{Chart, Check, Experiment, Findings, Job, Row, Verdict};
use crate::config::SimConfig;
use crate::error::SimError;
use crate::server::simulate;
use crate::workload::spec::parse_workload;
use std::fmt::Write as _;

pub struct VmSequential;

/// The paper's memory configurations, MiB: 128 to 512 in MemRx's 32 MB increments.
const MEMORY_MIB: [u64; 13] = [128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512];
/// The quick sweep: Table 2's three configurations, and the first that holds the allocation.
const MEMORY_MIB_QUICK: [u64; 4] = [128, 192, 256, 288];
const WORKLOAD: &str = "vm-seq:size=264MiB,passes=3";
/// Twice the test machine's 512 MB (see the module doc).
const SWAP_BYTES: u64 = 1 << 30;
/// papers/003 Table 2: (available memory MiB, read/write distance in pages).
const TABLE_2: [(u64, f64); 3] = [(128, 29843.0), (192, 31846.0), (256, 18079.0)];

impl Experiment for VmSequential {
    fn name(&self) -> &'static str {
        "vm-sequential"
    }

    fn title(&self) -> &'static str {
        "MemRx's pathological VM Sequential: swap read/write seek distance and runtime by memory size"
    }

    fn description(&self) -> &'static str {
        "Runs VM Sequential (264 MiB of anonymous memory written three times in order) with 128 to 512 MiB of \
         memory in 32 MiB steps and a 1 GiB swap area, and sets its runtime and the mean seek distance \
         between interleaved swap reads and writes beside MemRx's Table 2 and Figures 3 and 6 (papers/003). \
         Each run takes well under a second."
    }

    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job> {
        let sizes: &[u64] = if quick { &MEMORY_MIB_QUICK } else { &MEMORY_MIB };
        sizes
            .iter()
            .map(|&mib| Job::new(format!("vm-seq 264 MiB x3 in {mib} MiB"), move || run(mib, seed)))
            .collect()
    }

    fn analyze(&self, rows: &[Row], _quick: bool) -> Findings {
        let at = |mib: u64| rows.iter().find(|r| r.num("memory_mib") == mib as f64);
        let metric = |mib: u64, key: &str| at(mib).map_or(f64::NAN, |r| r.metric(key));
        let runtime = |mib| metric(mib, "runtime_s");
        let distance = |mib| metric(mib, "rw_distance_pages");
        let mut checks = Vec::new();

        // Table 2's ordering: the distance rises from 128 to 192 MB and falls well below both at 256 MB.
        let (d128, d192, d256) = (distance(128), distance(192), distance(256));
        let rises = d192 > d128;
        let falls = d256 < d128.min(d192);
        checks.push(Check {
            claim:
                "the mean seek distance between overlapping swap reads and writes is larger at 192 MB than \
                    at 128 MB and smallest at 256 MB (29,843 / 31,846 / 18,079 pages)"
                    .into(),
            source: "papers/003 Table 2".into(),
            measured: format!(
                "{d128:.0} / {d192:.0} / {d256:.0} pages ({} / {} / {} of the paper's)",
                super::signed_pct(d128 / TABLE_2[0].1 - 1.0, 0),
                super::signed_pct(d192 / TABLE_2[1].1 - 1.0, 0),
                super::signed_pct(d256 / TABLE_2[2].1 - 1.0, 0)
            ),
            verdict: match (rises, falls) {
                (true, true) => Verdict::Reproduced,
                (false, true) => Verdict::Partial,
                _ => Verdict::NotReproduced,
            },
        });

        // Figure 6: the runtime the distances imply, worse at 192 MB than at 128 MB.
        let (r128, r192, r256) = (runtime(128), runtime(192), runtime(256));
        checks.push(Check {
            claim: "runtime is worse with 192 MB than with 128 MB, and substantially (here: 20 %) better with 256 MB"
                .into(),
            source: "papers/003 §5, Figure 6".into(),
            measured: format!("{r128:.1} / {r192:.1} / {r256:.1} s at 128 / 192 / 256 MiB"),
            // "Substantially": a fifth or more below the better of the two.
            verdict: match (r192 > r128, r256 < 0.8 * r128.min(r192)) {
                (true, true) => Verdict::Reproduced,
                (true, false) | (false, true) => Verdict::Partial,
                (false, false) => Verdict::NotReproduced,
            },
        });

        // Figure 3's description: gradual improvement, then nearly zero once the allocation fits.
        let sizes: Vec<u64> = MEMORY_MIB.iter().copied().filter(|&m| at(m).is_some()).collect();
        let fits = sizes.iter().copied().find(|&m| metric(m, "swap_ins") == 0.0);
        let thrashing: Vec<f64> =
            sizes.iter().copied().take_while(|&m| Some(m) != fits).map(runtime).collect();
        // "Gradually improves": each step no slower than the previous beyond 2 % (a run is deterministic;
        // 2 % allows the seek-profile wiggles the paper itself reports).
        let gradual = thrashing.windows(2).all(|w| w[1] <= w[0] * 1.02);
        let near_zero = fits.is_some_and(|m| runtime(m) < 0.01 * runtime(sizes[0]));
        checks.push(Check {
            claim: "runtime improves gradually with memory until the 264 MB allocation fits, then drops to nearly \
                    zero"
                .into(),
            source: "papers/003 §5 (Figure 3's VM Sequential)".into(),
            measured: format!(
                "{}; fits at {}",
                sizes.iter().map(|&m| format!("{m} MiB {:.1} s", runtime(m))).collect::<Vec<_>>().join(", "),
                fits.map_or("no size measured".into(), |m| format!("{m} MiB"))
            ),
            verdict: if gradual && near_zero { Verdict::Reproduced } else { Verdict::NotReproduced },
        });

        let series =
            |key: &'static str| sizes.iter().map(|&m| (m as f64, metric(m, key))).collect::<Vec<_>>();
        let charts = vec![
            Chart {
                title: "VM Sequential (264 MiB, 3 passes): runtime".into(),
                x_label: "memory (MiB)".into(),
                y_label: "runtime (s)".into(),
                log_x: false,
                series: vec![("pagelab".into(), series("runtime_s"))],
            },
            Chart {
                title: "Seek distance between interleaved swap reads and writes".into(),
                x_label: "memory (MiB)".into(),
                y_label: "mean distance (pages)".into(),
                log_x: false,
                series: vec![
                    ("pagelab".into(), series("rw_distance_pages")),
                    ("MemRx Table 2".into(), TABLE_2.iter().map(|&(m, d)| (m as f64, d)).collect()),
                ],
            },
        ];
        let mut summary = Vec::new();
        for &(mib, _) in &TABLE_2 {
            summary.push((format!("rw_distance_pages_{mib}mib"), distance(mib)));
            summary.push((format!("runtime_s_{mib}mib"), runtime(mib)));
        }
        Findings { summary, charts, checks, markdown: markdown(rows) }
    }
}

fn run(mib: u64, seed: u64) -> Result<Row, SimError> {
    let cfg = SimConfig {
        memory_bytes: mib << 20,
        swap_bytes: Some(SWAP_BYTES),
        // The program runs to its end; its execution time is the result.
        duration: SimConfig::UNTIL_DONE,
        seed,
        ..SimConfig::default()
    };
    let m = simulate(cfg, parse_workload(WORKLOAD)?)?;
    if !m.workload_completed {
        return Err(SimError::invalid(
            format!("{WORKLOAD} in {mib} MiB"),
            "expected it to run to completion",
        ));
    }
    Ok(Row {
        params: vec![("memory_mib".into(), mib.into())],
        metrics: vec![
            ("runtime_s".into(), m.sim_seconds),
            ("rw_distance_pages".into(), m.disk.rw_switch_distance_pages_mean),
            ("rw_switches".into(), m.disk.rw_switches as f64),
            ("swap_outs".into(), m.writes.swap_outs as f64),
            ("swap_ins".into(), m.writes.swap_ins as f64),
            ("swap_ins_readahead".into(), m.writes.swap_ins_readahead as f64),
            ("read_requests".into(), m.disk.read_requests as f64),
            ("write_requests".into(), m.disk.write_requests as f64),
            ("mean_request_pages".into(), m.disk.mean_request_pages),
            ("disk_busy".into(), m.disk.busy_fraction),
        ],
        series: Vec::new(),
    })
}

fn markdown(rows: &[Row]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "`{WORKLOAD}` (264 MiB of anonymous memory, each page stored to three times in order) with a 1 GiB swap \
         area at the end of the disk, the default server otherwise (Linux 2.6 reclaim and swap, the Cheetah \
         9LP, anticipatory scheduling). MemRx's Table 2 is set beside the measured distances.\n"
    );
    let _ = writeln!(
        md,
        "| memory | runtime (s) | r/w distance (pages) | MemRx Table 2 | r/w turns | swap-outs | swap-ins \
         (+readahead) | reads | writes | mean request (pages) |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in rows {
        let mib = r.num("memory_mib") as u64;
        let paper = TABLE_2.iter().find(|t| t.0 == mib).map_or("".into(), |t| format!("{:.0}", t.1));
        let _ = writeln!(
            md,
            "| {mib} MiB | {:.1} | {:.0} | {paper} | {} | {} | {} (+{}) | {} | {} | {:.1} |",
            r.metric("runtime_s"),
            r.metric("rw_distance_pages"),
            r.metric("rw_switches"),
            r.metric("swap_outs"),
            r.metric("swap_ins"),
            r.metric("swap_ins_readahead"),
            r.metric("read_requests"),
            r.metric("write_requests"),
            r.metric("mean_request_pages")
        );
    }
    let _ = writeln!(
        md,
        "\nWhy the 192 MB bump need not come out here: the distance between a pass's swap-in reads and the \
         writes of the pages it evicts depends on where the evicted pages' slots lie, which 2.4 decided by \
         its page-table scan position and pagelab (as 2.6) by LRU order and `scan_swap_map`'s clusters (see \
         the module doc). MemRx's point stands either way: the runtime depends on the seek profile of \
         overlapping swap reads and writes, which a miss count alone does not predict.\n"
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest configuration thrashes (reads and writes interleave on swap); 288 MiB holds the
    /// allocation and nothing is read back.
    #[test]
    fn thrashing_interleaves_swap_reads_and_writes_and_a_fit_reads_nothing() {
        let thrash = run(128, 1).unwrap();
        assert!(
            thrash.metric("rw_switches") > 100.0 && thrash.metric("rw_distance_pages") > 0.0,
            "{thrash:?}"
        );
        assert!(thrash.metric("swap_ins") > 0.0 && thrash.metric("swap_outs") > 0.0);
        let fit = run(288, 1).unwrap();
        assert_eq!((fit.metric("swap_ins"), fit.metric("rw_switches")), (0.0, 0.0), "{fit:?}");
        assert!(fit.metric("runtime_s") < 0.01 * thrash.metric("runtime_s"));
    }
}
