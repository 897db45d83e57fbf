//! Everything a run is configured by, with every default stated here and nowhere else.

use crate::device::DeviceSpec;
use crate::error::SimError;
use crate::layout::LayoutSpec;
use crate::sched::SchedulerSpec;
use pagelab_core::error::CoreError;
use pagelab_core::memory::{KernelReserve, MemoryConfig, ReclaimCosts, WatermarkRule};
use pagelab_core::metadata::{FirstPut, InodeLru, MetadataConfig, MetadataReclaim, PruneCount};
use pagelab_core::pcache::PrefetchCacheConfig;
use pagelab_core::policy::dulo::SequenceRule;
use pagelab_core::policy::{DuloConfig, PolicyKind};
use pagelab_core::prefetch::AnyPrefetcher;
use pagelab_core::spec::Spec;
use pagelab_core::units::fmt_bytes;
use pagelab_core::whatif::vec::{self, VecGeometry, VecMode};
use pagelab_core::whatif::MemRxConfig;
use pagelab_core::Nanos;
use pagelab_core::PAGE_SIZE_BYTES;

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrival {
    /// `concurrency` handlers, each starting its next request as soon as one ends (the papers' load
    /// generators: a fixed number of simultaneous requests).
    Closed,
    /// Requests arrive at `rate_per_s` (exponential inter-arrival times when `poisson`, else evenly spaced)
    /// and wait for one of `concurrency` handlers (a thread pool) to be free.
    Open { rate_per_s: f64, poisson: bool },
}

/// How memory is managed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryModel {
    /// A Linux kernel: its own memory (a base reserve and a stack per handler thread), free-page
    /// watermarks by `watermarks`, kswapd, direct reclaim in batches of 32, reclaim charged as CPU time
    /// (`pagelab_core::memory`).
    Kernel { watermarks: WatermarkRule },
    /// All memory is cache and a page needed when it is full evicts exactly one, at no cost: the model of
    /// `pagelab cachesim` (and of pagelab before the kernel model).
    Exact,
}

impl MemoryModel {
    /// The names users type (`--memory-model`).
    pub const NAMES: &'static str = "linux-2.6, linux, exact";

    pub fn parse(text: &str) -> Option<MemoryModel> {
        match text.trim().to_ascii_lowercase().as_str() {
            "linux-2.6" | "kernel" => Some(MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 }),
            "linux" => Some(MemoryModel::Kernel { watermarks: WatermarkRule::Modern { scale_factor: 10 } }),
            "exact" | "none" => Some(MemoryModel::Exact),
            _ => None,
        }
    }

    /// The memory of `memory_bytes` under this model; a kernel keeps `reserve` for itself and `threads`
    /// threads (the simulator's handlers; none for the live driver, whose budget is all cache).
    pub fn config(
        self,
        memory_bytes: u64,
        reserve: KernelReserve,
        threads: u32,
    ) -> Result<MemoryConfig, CoreError> {
        match self {
            MemoryModel::Kernel { watermarks } => {
                MemoryConfig::linux(memory_bytes, reserve, threads, watermarks, ReclaimCosts::LINUX_2_6)
            }
            MemoryModel::Exact => {
                let pages = memory_bytes / pagelab_core::PAGE_SIZE_BYTES;
                let pages = u32::try_from(pages).map_err(|_| CoreError::InvalidParameter {
                    what: "memory size",
                    why: format!("{memory_bytes} bytes is more than {} pages", u32::MAX),
                })?;
                if pages == 0 {
                    return Err(CoreError::InvalidParameter {
                        what: "memory size",
                        why: format!("{memory_bytes} bytes is less than one page"),
                    });
                }
                Ok(MemoryConfig::exact(pages))
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 } => "linux-2.6",
            MemoryModel::Kernel { .. } => "linux",
            MemoryModel::Exact => "exact",
        }
    }
}

/// How long the simulation runs before it measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warmup {
    /// Until steady state: memory has filled (free pages down to the `low` watermark, or no free page
    /// without a kernel) and every handler slot has completed a request; at most [`Warmup::AUTO_MAX`]
    /// times the measured duration (the run says whether steady state was reached).
    Auto,
    /// This long; for a workload measured from its barrier ([`crate::workload::Workload::measured_from_barrier`]),
    /// this long after the barrier (its preparation is never measured; the automatic rule there is the
    /// barrier itself).
    Fixed(Nanos),
}

impl SimConfig {
    /// A duration no run reaches (2^62 ns, 146 years): a workload that runs to completion is measured
    /// until it ends.
    pub const UNTIL_DONE: Nanos = Nanos(1 << 62);
}

impl Warmup {
    /// The bound on an automatic warm-up, in measured durations.
    pub const AUTO_MAX: u64 = 10;

    /// The longest this warm-up can last before a measured period of `duration`.
    pub fn bound(self, duration: Nanos) -> Nanos {
        match self {
            Warmup::Auto => Nanos(duration.0.saturating_mul(Warmup::AUTO_MAX)),
            Warmup::Fixed(t) => t,
        }
    }
}

/// `--policy`: a policy name, or DULO (`dulo`, `dulo-linux`) with its parameters:
/// `dulo[:bank=8MiB,evicting=64MiB,rule=stable|adjacent,max_sequence=SIZE,tracks=BOOL]` (papers/001: the
/// bank's maximum, the evicting section's minimum, how sequences are formed, the longest sequence, and
/// whether the device's track boundaries cut sequences). Returns the kind, DULO's configuration (the
/// defaults for other policies) and `tracks`.
pub fn parse_policy(text: &str) -> Result<(PolicyKind, DuloConfig, bool), SimError> {
    let spec = Spec::parse(text).map_err(SimError::Core)?;
    let kind: PolicyKind = spec.name.parse().map_err(SimError::Core)?;
    if !kind.is_dulo() {
        spec.finish(&[]).map_err(SimError::Core)?;
        return Ok((kind, DuloConfig::default(), true));
    }
    let e = SimError::Core;
    let bank = spec.bytes("bank", DuloConfig::BANK_BYTES).map_err(e)?;
    let evicting = spec.bytes("evicting", DuloConfig::EVICTING_BYTES).map_err(e)?;
    if !(PAGE_SIZE_BYTES..=1 << 40).contains(&bank) || evicting > 1 << 40 {
        return Err(SimError::invalid(
            format!("bank={bank}, evicting={evicting}"),
            "expected a bank of one page to 1 TiB and an evicting section of at most 1 TiB",
        ));
    }
    let mut dulo = DuloConfig::of_bytes(bank, evicting);
    if let Some(rule) = spec.string("rule") {
        dulo.rule = SequenceRule::parse(&rule)
            .ok_or_else(|| SimError::invalid(format!("rule={rule}"), "expected stable or adjacent"))?;
    }
    let max = spec.bytes("max_sequence", 0).map_err(e)?;
    dulo.sequence_pages_max = (max / PAGE_SIZE_BYTES).min(u32::MAX as u64) as u32;
    let tracks = spec.bool("tracks", true).map_err(e)?;
    spec.finish(&["bank", "evicting", "rule", "max_sequence", "tracks"]).map_err(e)?;
    Ok((kind, dulo, tracks))
}

/// [`parse_policy`] for a running server (the simulator's or a live mount's): OPT, which reads every
/// page's next use, is refused, and is left out of the names an unknown policy's error lists.
pub fn parse_online_policy(text: &str) -> Result<(PolicyKind, DuloConfig, bool), SimError> {
    match parse_policy(text) {
        Ok((kind, ..)) if kind.needs_future() => Err(SimError::invalid(
            text,
            "OPT needs the future of every reference, which a running server does not have",
        )),
        Err(SimError::Core(CoreError::UnknownName { what, got, .. })) => {
            let online: Vec<&str> =
                PolicyKind::ALL.iter().filter(|k| !k.needs_future()).map(|k| k.cli_name()).collect();
            let expected = online.join(", ");
            Err(SimError::Core(CoreError::UnknownName { what, got, expected }))
        }
        other => other,
    }
}

/// What split reclaim's ratio P must be (the core refuses 0 and more than 100).
pub const RATIO_PERCENT_EXPECTED: &str = "expected a whole percentage of memory, 1% to 100%";

/// Split reclaim's ratio P as written (`50%`, `50`): the whole percentage, unchecked for its range.
pub fn parse_ratio_percent(text: &str) -> Option<u32> {
    text.trim().trim_end_matches('%').trim().parse().ok()
}

/// The metadata cache (papers/004), as `--metadata` names it: `conventional` (Linux's shrinker) or
/// `split:p=50%` (split reclaim with metadata cache ratio P), each with `object=` (O, the bytes of a
/// dentry + inode; ext4's 1,320 by default), `pressure=` (`vm.vfs_cache_pressure`, 100) and `first_put=`
/// (`unreferenced`, the default, or `referenced`: 2.6–3.x's `dput()` marked a new dentry referenced at
/// its first release), `prune_count=` (`freed`, the default: 2.6.19–3.11 count only the objects a
/// shrinker batch frees; `examined`: 2.6.18 and 3.12+ count every object it walks) and `inode_lru=` (`own`,
/// the default: 3.0–3.11 put the inode of a freed dentry on an inode LRU of its own; `joint`: a file's
/// dentry and inode are freed together).
pub fn parse_metadata(text: &str) -> Result<MetadataConfig, SimError> {
    let spec = Spec::parse(text).map_err(SimError::Core)?;
    let e = SimError::Core;
    let reclaim = match spec.name.as_str() {
        "conventional" => MetadataReclaim::Conventional,
        "split" => {
            let p = spec.string("p").ok_or_else(|| {
                SimError::invalid(text, "split reclaim needs its metadata cache ratio: split:p=50%")
            })?;
            let percent = parse_ratio_percent(&p)
                .ok_or_else(|| SimError::invalid(format!("p={p}"), RATIO_PERCENT_EXPECTED))?;
            MetadataReclaim::Split { ratio_p_percent: percent }
        }
        other => return Err(SimError::invalid(other, "expected none, conventional or split:p=PERCENT")),
    };
    let defaults = MetadataConfig::linux(reclaim);
    let object = spec.bytes("object", defaults.object_bytes as u64).map_err(e)?;
    let pressure = spec.u64("pressure", defaults.vfs_cache_pressure as u64).map_err(e)?;
    let first_put = match spec.string("first_put") {
        None => defaults.first_put,
        Some(text) => FirstPut::parse(&text).ok_or_else(|| {
            SimError::invalid(format!("first_put={text}"), "expected referenced or unreferenced")
        })?,
    };
    let prune_count = match spec.string("prune_count") {
        None => defaults.prune_count,
        Some(text) => PruneCount::parse(&text)
            .ok_or_else(|| SimError::invalid(format!("prune_count={text}"), "expected freed or examined"))?,
    };
    let inode_lru = match spec.string("inode_lru") {
        None => defaults.inode_lru,
        Some(text) => InodeLru::parse(&text)
            .ok_or_else(|| SimError::invalid(format!("inode_lru={text}"), "expected own or joint"))?,
    };
    spec.finish(&["p", "object", "pressure", "first_put", "prune_count", "inode_lru"]).map_err(e)?;
    let config = MetadataConfig {
        object_bytes: u32::try_from(object).unwrap_or(u32::MAX),
        vfs_cache_pressure: u32::try_from(pressure).unwrap_or(u32::MAX),
        first_put,
        prune_count,
        inode_lru,
        ..defaults
    };
    config.validate().map_err(e)?;
    Ok(config)
}

/// `--metadata` as [`parse_metadata`] reads it, every parameter written out.
pub fn metadata_spec(m: &MetadataConfig) -> String {
    let name = match m.reclaim {
        MetadataReclaim::Conventional => "conventional".to_string(),
        MetadataReclaim::Split { ratio_p_percent } => format!("split:p={ratio_p_percent}%"),
    };
    let sep = if name.contains(':') { ',' } else { ':' };
    format!(
        "{name}{sep}object={},pressure={},first_put={},prune_count={},inode_lru={}",
        m.object_bytes,
        m.vfs_cache_pressure,
        m.first_put.name(),
        m.prune_count.name(),
        m.inode_lru.name()
    )
}

/// `dulo:bank=…,evicting=…,rule=…` as [`parse_policy`] reads it; other policies by name.
pub fn policy_spec(kind: PolicyKind, dulo: &DuloConfig, tracks: bool) -> String {
    if !kind.is_dulo() {
        return kind.cli_name().to_string();
    }
    // Exact sizes (a page is 4 KiB), so that the echo parses back to the same configuration.
    let size = |pages: u32| {
        let kib = pages as u64 * (PAGE_SIZE_BYTES / 1024);
        if kib.is_multiple_of(1024) {
            format!("{}MiB", kib / 1024)
        } else {
            format!("{kib}KiB")
        }
    };
    let mut text = format!(
        "{}:bank={},evicting={},rule={}",
        kind.cli_name(),
        size(dulo.bank_pages),
        size(dulo.evicting_pages),
        dulo.rule.name()
    );
    if dulo.sequence_pages_max != 0 {
        text += &format!(",max_sequence={}", size(dulo.sequence_pages_max));
    }
    if !tracks {
        text += ",tracks=false";
    }
    text
}

#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Physical memory of the server (the kernel's share and the caches').
    pub memory_bytes: u64,
    /// Memory the server's applications hold outside every cache for the whole run, resident and never
    /// reclaimed (their own data: a backup's catalog, a database's buffer pool): no cache can use it; the
    /// watermarks and split reclaim's `C` still count it, as they count all memory. 0 by default.
    pub app_memory_bytes: u64,
    pub memory_model: MemoryModel,
    pub policy: PolicyKind,
    /// Li & Shen's prefetch cache (papers/000); `None`: AccessHistory, prefetched pages join the policy.
    pub prefetch_cache: Option<PrefetchCacheConfig>,
    /// DULO's sections and sequence rule (papers/001), read when `policy` is DULO. Its track map is the
    /// device's when `dulo.tracks` is `None` and `dulo_tracks` is set.
    pub dulo: DuloConfig,
    /// Whether DULO's sequences stop at the device's track boundaries (§4.2).
    pub dulo_tracks: bool,
    /// The file-metadata cache and how it is reclaimed (papers/004); `None`: no metadata is cached (the
    /// workloads that `stat()` then miss every time, and allocate nothing).
    pub metadata: Option<MetadataConfig>,
    pub prefetcher: AnyPrefetcher,
    pub device: DeviceSpec,
    pub scheduler: SchedulerSpec,
    /// Handlers (closed loop: simultaneous requests; open loop: the thread pool).
    pub concurrency: u32,
    pub arrival: Arrival,
    pub cpus: u32,
    /// CPU cost of delivering one 4 KiB page to a handler (copy + processing).
    pub cpu_per_page: Nanos,
    /// Simulated time measured after the warm-up.
    pub duration: Nanos,
    /// Stop after this many requests complete in the measured period (whichever comes first).
    pub max_requests: Option<u64>,
    /// Simulated time run before measuring (caches fill, streams reach steady state).
    pub warmup: Warmup,
    pub seed: u64,
    pub layout: LayoutSpec,
    /// The request queue's soft limit per direction (`nr_requests`): a handler submitting into a full queue
    /// sleeps until a completion wakes it (unless its request merges into a queued one, it is a batcher, or
    /// the scheduler exempts it; never past 3/2 × this: `blk::RequestList`). `None`: unlimited.
    pub nr_requests: Option<u32>,
    /// Sample the memory gauges at this interval during the measured period (`RunMetrics::timeline`).
    pub timeline: Option<Nanos>,
    /// The swap area at the end of the disk; `None`: as large as memory when the workload uses anonymous
    /// memory, none otherwise. `Some(0)`: no swap.
    pub swap_bytes: Option<u64>,
    /// Evicted-unaccessed prefetched pages remembered to detect thrashing; `None`: all of them until their
    /// owner demands them (papers/000 §2's definition, which has no bound: at most one entry per page of
    /// the dataset). `Some(n)`: the last `n`, as the bounded eviction history of §3.3 (40 % of physical
    /// pages there) would count.
    pub thrash_history_pages: Option<u32>,
    /// MemRx's what-if prediction (papers/003) observes the run: `RunMetrics::whatif`.
    pub whatif: Option<WhatIfConfig>,
}

/// `--whatif up-to=512MiB,step=32MiB[,vec=subqueue|exact|shadow|all]`: predict the run at every memory size
/// from this run's plus `step` up to `up_to_bytes`.
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIfConfig {
    /// The largest memory predicted (the server's whole memory, as `--memory`); `None`: four times the run's,
    /// as the paper's evaluation went from 128 MB to 512 MB.
    pub up_to_bytes: Option<u64>,
    /// The VEC's increment (papers/003 §4.2: 32 MB).
    pub step_bytes: u64,
    /// The VECs that run, one prediction each.
    pub vecs: Vec<VecMode>,
}

impl WhatIfConfig {
    /// The paper's evaluation: 32 MB increments up to four times the memory, the paper's sub-queue VEC.
    pub fn paper() -> WhatIfConfig {
        WhatIfConfig {
            up_to_bytes: None,
            step_bytes: MemRxConfig::INCREMENT_BYTES,
            vecs: vec![VecMode::SubQueue],
        }
    }

    /// Parse `up-to=512MiB,step=32MiB,vec=subqueue` (every key optional; `vec=all` runs the three).
    pub fn parse(text: &str) -> Result<WhatIfConfig, SimError> {
        let mut c = WhatIfConfig::paper();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                SimError::invalid(
                    format!("`{part}`"),
                    "expected key=value: up-to=SIZE, step=SIZE or vec=MODE",
                )
            })?;
            let bytes = || {
                pagelab_core::units::parse_bytes(value)
                    .map_err(|e| SimError::invalid(format!("{key}={value}"), e.to_string()))
            };
            match key {
                "up-to" | "up_to" => c.up_to_bytes = Some(bytes()?),
                "step" => c.step_bytes = bytes()?,
                "vec" => {
                    c.vecs = match value {
                        "all" => VecMode::ALL.to_vec(),
                        v => vec![VecMode::parse(v).ok_or_else(|| {
                            SimError::invalid(format!("vec={v}"), "expected subqueue, exact, shadow or all")
                        })?],
                    }
                }
                other => {
                    return Err(SimError::invalid(format!("`{other}`"), "expected up-to, step or vec"));
                }
            }
        }
        let page = pagelab_core::PAGE_SIZE_BYTES;
        if c.step_bytes == 0 || !c.step_bytes.is_multiple_of(page) || c.step_bytes / page > u32::MAX as u64 {
            return Err(SimError::invalid(format!("step={}", c.step_bytes), "expected whole 4 KiB pages"));
        }
        Ok(c)
    }

    /// The VEC for a server of `memory_bytes`: whole steps from there to `up_to_bytes`, checked against what
    /// a VEC can model. An error names what is wrong with the sizes and a way out; the caller names its
    /// flags (`--whatif`, or `whatif`'s `--up-to`/`--step`).
    pub fn geometry(&self, memory_bytes: u64) -> Result<VecGeometry, SimError> {
        let page = pagelab_core::PAGE_SIZE_BYTES;
        let up_to = self.up_to_bytes.unwrap_or(memory_bytes.saturating_mul(4));
        let above = up_to.saturating_sub(memory_bytes);
        let steps = above / self.step_bytes;
        let step_pages = self.step_bytes / page;
        let (step, memory) = (fmt_bytes(self.step_bytes), fmt_bytes(memory_bytes));
        let what = format!("up-to {} with steps of {step}", fmt_bytes(up_to));
        if steps == 0 {
            let least = typeable(memory_bytes.saturating_add(self.step_bytes));
            let why = format!(
                "not one step above the run's memory ({memory}): predict up to {least} or more, or take a \
                 smaller step"
            );
            return Err(SimError::invalid(what, why));
        }
        let increments_max = vec::INCREMENTS_MAX as u64;
        if steps > increments_max {
            // The smallest step that covers the range in at most `increments_max` steps, in whole MiB (whole
            // pages below a MiB), so that it can be typed as it reads.
            let unit = if above.div_ceil(increments_max) >= 1 << 20 { 1 << 20 } else { page };
            let least = above.div_ceil(increments_max).div_ceil(unit) * unit;
            let why = format!(
                "{steps} steps above the run's memory ({memory}), where a VEC has at most {increments_max}: \
                 take a step of {} or more",
                typeable(least)
            );
            return Err(SimError::invalid(what, why));
        }
        if steps * step_pages > vec::PAGES_MAX {
            let most = memory_bytes.saturating_add(vec::PAGES_MAX / step_pages * self.step_bytes);
            let why = format!(
                "{} pages above the run's memory ({memory}), where a VEC holds at most {}: predict up to \
                 {} at most",
                steps * step_pages,
                vec::PAGES_MAX,
                typeable(most)
            );
            return Err(SimError::invalid(what, why));
        }
        Ok(VecGeometry::new(step_pages as u32, steps as u32))
    }
}

/// A size as `--memory` and `up-to=` take it: `96MiB`, `260KiB` (every size here is whole pages).
fn typeable(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{}MiB", bytes >> 20)
    } else if bytes.is_multiple_of(1 << 10) {
        format!("{}KiB", bytes >> 10)
    } else {
        format!("{bytes}B")
    }
}

impl Default for SimConfig {
    /// The baseline server: Linux 2.6 as the papers ran it.
    fn default() -> Self {
        SimConfig {
            // papers/000 §4.2: "the server memory size at 512MB".
            memory_bytes: 512 << 20,
            app_memory_bytes: 0,
            // The papers ran Linux 2.6.10–2.6.18.
            memory_model: MemoryModel::Kernel { watermarks: WatermarkRule::Linux26 },
            // Linux 2.6's active/inactive lists: the "AccessHistory" system every paper compares against.
            policy: PolicyKind::TwoList,
            prefetch_cache: None,
            // papers/001 §4.1.2: an 8 MiB bank and a 64 MiB evicting section; boundaries from the disk.
            dulo: DuloConfig::default(),
            dulo_tracks: true,
            metadata: None,
            // Linux on-demand readahead with its default 128 KiB window.
            prefetcher: AnyPrefetcher::default(),
            // The DiskSim-validated Seagate Cheetah 9LP (DULO's disk; devices.md §2).
            device: DeviceSpec::parse("hdd").expect("built-in device"),
            // Anticipatory: Linux 2.6.0–2.6.17's default elevator, the one papers/000 describes.
            scheduler: SchedulerSpec::default(),
            concurrency: 1,
            arrival: Arrival::Closed,
            // papers/000 §4: "dual 2.0GHz Xeon processors".
            cpus: 2,
            // Copying 4 KiB at the ~2 GB/s per core of a 2005 Xeon plus per-page bookkeeping. The papers'
            // workloads are disk-bound; this only has to be small and nonzero.
            cpu_per_page: Nanos::from_us(2),
            // papers/000 §4: "each round takes 120 seconds".
            duration: Nanos::from_secs(120),
            max_requests: None,
            warmup: Warmup::Auto,
            seed: 1,
            layout: LayoutSpec::default(),
            // BLKDEV_MAX_RQ (`include/linux/blkdev.h`): 2.6's default `nr_requests` per queue and direction.
            nr_requests: Some(128),
            timeline: None,
            swap_bytes: None,
            thrash_history_pages: None,
            whatif: None,
        }
    }
}

impl SimConfig {
    /// The buffer cache's memory for a server with `threads` handler threads.
    pub fn memory(&self, threads: u32) -> Result<MemoryConfig, CoreError> {
        let memory = self.memory_model.config(self.memory_bytes, KernelReserve::LINUX_2_6, threads)?;
        let pages = self.app_memory_bytes.div_ceil(pagelab_core::PAGE_SIZE_BYTES);
        let pages = u32::try_from(pages).map_err(|_| CoreError::InvalidParameter {
            what: "application memory",
            why: format!("{} bytes is more than the memory", self.app_memory_bytes),
        })?;
        memory.with_held(pages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--metadata` as echoed parses back to the same configuration, every choice written out.
    #[test]
    fn a_metadata_spec_parses_back_to_itself() {
        for text in ["conventional", "split:p=40%"] {
            let base = parse_metadata(text).unwrap();
            assert_eq!(base.prune_count, PruneCount::Freed, "the paper's kernels' count is the default");
            assert_eq!(base.inode_lru, InodeLru::Own, "the paper's kernels' inode LRU is the default");
            for first_put in [FirstPut::Referenced, FirstPut::Unreferenced] {
                for prune_count in [PruneCount::Freed, PruneCount::Examined] {
                    for inode_lru in [InodeLru::Own, InodeLru::Joint] {
                        let c = MetadataConfig {
                            first_put,
                            prune_count,
                            inode_lru,
                            vfs_cache_pressure: 70,
                            ..base
                        };
                        let echo = metadata_spec(&c);
                        assert_eq!(parse_metadata(&echo).unwrap(), c, "{echo}");
                    }
                }
            }
        }
    }
}
