//! `pagelab mount`, `pagelab umount`, `pagelab stats`: the live driver (crate `pagelab-fs`).

use crate::limits::ensure_fits_memory;
use crate::output::{emit, note};
use anyhow::{anyhow, Context, Result};
use clap::Args;
use pagelab_core::units::{fmt_bytes, parse_duration_ns};
use pagelab_fs::baseline::Backend;
use pagelab_fs::mount::{self, MountConfig, Stop};
use pagelab_fs::LiveSpec;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
#[command(
    after_help = "Example (nginx on the prefetch cache, misses paced by an emulated Ultrastar 36LZX):\n  \
pagelab mount /srv/clips /mnt/clips --memory 256MiB --prefetch-cache pc-coldest+ --emulate-device ultrastar36lzx &\n  \
pagelab stats /mnt/clips\n  pagelab umount /mnt/clips\n\n\
Give the server threads for its reads (nginx: aio threads), or each worker has one read in flight. Files are \
opened direct_io, so even sendfile's reads reach the mount."
)]
pub struct MountArgs {
    /// The directory whose files the mount serves, read-only (writes get EROFS).
    pub source: PathBuf,
    /// An empty directory to mount on (not already a mount point, not inside SOURCE, not holding it).
    pub mountpoint: PathBuf,
    /// The cache's memory: frames for this many bytes are allocated (lazily) and never exceeded.
    #[arg(long, default_value = "512MiB")]
    pub memory: String,
    /// linux-2.6 (watermarks min/low/high, kswapd between low and high, direct reclaim of 32 pages below min,
    /// as the papers' kernels) or exact (one page evicted per page needed).
    #[arg(long, default_value = "linux-2.6", value_name = "MODEL")]
    pub memory_model: String,
    /// Replacement policy, as `pagelab simulate --policy`: linux, lru, fifo, clock, 2q, arc, lirs, dulo[:...].
    /// DULO sees the files' real disk locations (FIEMAP).
    #[arg(long, default_value = "linux")]
    pub policy: String,
    // The doc is --help text: its [:WINDOW] is the syntax, not a link.
    /// Prefetcher, as `pagelab simulate --prefetch`: none, linux[:WINDOW], linux-2.6[:WINDOW], tp:T-P, ets,
    /// esf. Each open file handle is a stream.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, default_value = "linux")]
    pub prefetch: String,
    /// Li & Shen's prefetch memory management, as `pagelab simulate --prefetch-cache`: access-history,
    /// pc-access-history, pc-longest, pc-coldest, pc-coldest+ (ranks streams by the reading thread's CPU time,
    /// from /proc), with the paper's gradient-descent partition.
    #[arg(long, default_value = "access-history", value_name = "ORDER")]
    pub prefetch_cache: String,
    /// File-metadata cache for lookups and getattrs, as `pagelab simulate --metadata`: none, conventional, or
    /// split:p=50% (split reclaim with its background reclaimer). Use with --attr-ttl 0 so that every lookup
    /// reaches it (the kernel's own dentry cache answers the rest).
    #[arg(long, default_value = "none", value_name = "RECLAIM")]
    pub metadata: String,
    /// Split reclaim of the metadata cache with papers/004's ratio P of memory for metadata (its Md = C·P/O):
    /// the same as --metadata split:p=P.
    #[arg(long, value_name = "P", conflicts_with = "metadata")]
    pub metadata_ratio: Option<String>,
    /// Make every miss also wait for a simulated disk (hdd, ultrastar36lzx, wd1200bb, st3500320as, ssd,
    /// simple, or a FILE.toml) behind the simulator's I/O scheduler, so the papers' seek and scheduling
    /// effects show on a fast machine. Stats and the startup line say it is emulated.
    #[arg(long, value_name = "DEVICE")]
    pub emulate_device: Option<String>,
    /// The emulated device's I/O scheduler, as `pagelab simulate --scheduler`: noop, deadline,
    /// anticipatory (as), cfq, with optional parameters (as:antic_expire=0ms). Anticipation is per
    /// reading thread, as Linux's is per task. Default: anticipatory. Only with --emulate-device.
    #[arg(long, value_name = "SCHEDULER")]
    pub scheduler: Option<String>,
    /// The emulated device's request queue (`nr_requests`), as `pagelab simulate --nr-requests`: a reading
    /// thread that finds it full waits for a request to complete (2.6's get_request), and readahead skips
    /// its asynchronous windows while it is nearly full. Default: 128, Linux 2.6's. Only with
    /// --emulate-device.
    #[arg(long, value_name = "N")]
    pub nr_requests: Option<u32>,
    /// MemRx's what-if prediction at larger memories, shown by `pagelab stats`: on (up to 4 x --memory in
    /// steps of 32 MiB), off, or up-to=SIZE,step=SIZE,vec=MODE.
    #[arg(long, default_value = "on", value_name = "SPEC")]
    pub whatif: String,
    /// Threads reading the source: how many misses and readahead fetches are in flight at most.
    #[arg(long, default_value_t = 32)]
    pub io_threads: u32,
    /// Threads taking FUSE requests (a read waiting for I/O does not hold one).
    #[arg(long, default_value_t = 4)]
    pub fuse_threads: usize,
    /// How long the kernel may keep a file's attributes and name before asking again.
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    pub attr_ttl: String,
    /// Serve statistics in Prometheus' text format on this loopback address, e.g. 127.0.0.1:9187.
    #[arg(long, value_name = "ADDR")]
    pub stats: Option<SocketAddr>,
    /// What serves file reads: engine (pagelab), or a benchmark baseline: passthrough (each read a pread
    /// of the source through the kernel's page cache) or naive (a hash map of boxed pages under one lock,
    /// of --memory's size). `pagelab bench --live overhead` compares them.
    #[arg(long, default_value = "engine", value_name = "BACKEND")]
    pub backend: String,
    /// Seed of the prefetch cache's gradient descent.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args, Debug)]
pub struct UmountArgs {
    /// A pagelab mount point.
    pub mountpoint: PathBuf,
    /// Detach a busy mount now (it goes away when its last user closes it).
    #[arg(long)]
    pub lazy: bool,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// A pagelab mount point.
    pub mountpoint: PathBuf,
    /// One JSON object (field names as in `pagelab_fs::stats::LiveStats`).
    #[arg(long)]
    pub json: bool,
}

/// The metadata cache's spec: `--metadata`, or split reclaim at `--metadata-ratio`.
fn metadata_spec(a: &MountArgs) -> Result<String> {
    let Some(ratio) = &a.metadata_ratio else { return Ok(a.metadata.clone()) };
    use pagelab_sim::config::{parse_ratio_percent, RATIO_PERCENT_EXPECTED};
    match parse_ratio_percent(ratio) {
        Some(percent) if (1..=100).contains(&percent) => Ok(format!("split:p={percent}%")),
        _ => Err(anyhow!("--metadata-ratio {ratio}: {RATIO_PERCENT_EXPECTED}")),
    }
}

fn spec(a: &MountArgs, metadata: String) -> LiveSpec {
    LiveSpec {
        memory: a.memory.clone(),
        memory_model: a.memory_model.clone(),
        policy: a.policy.clone(),
        prefetch: a.prefetch.clone(),
        prefetch_cache: a.prefetch_cache.clone(),
        metadata,
        whatif: match a.whatif.as_str() {
            "off" => None,
            "on" => Some(String::new()),
            text => Some(text.to_string()),
        },
        emulate_device: a.emulate_device.clone(),
        scheduler: a.scheduler.clone(),
        nr_requests: a.nr_requests,
        io_threads: a.io_threads,
        seed: a.seed,
    }
}

pub fn run_mount(a: &MountArgs) -> Result<()> {
    let memory_bytes = crate::simulate::memory_bytes(&a.memory)?;
    // The frames are real memory here: a budget beyond the machine's would end in the OOM killer.
    ensure_fits_memory(&format!("--memory {}", a.memory), memory_bytes as u128)?;
    let metadata = metadata_spec(a)?;
    let spec = spec(a, metadata.clone());
    let engine = spec.engine_config()?;
    let attr_ttl = Duration::from_nanos(parse_duration_ns(&a.attr_ttl).context("--attr-ttl")?);
    if !(1..=256).contains(&a.fuse_threads) {
        return Err(anyhow!("--fuse-threads {}: expected 1 to 256", a.fuse_threads));
    }
    let pages = (memory_bytes / pagelab_core::PAGE_SIZE_BYTES).min(u32::MAX as u64) as u32;
    let backend = Backend::parse(&a.backend, pages)
        .ok_or_else(|| anyhow!("--backend {}: expected engine, passthrough or naive", a.backend))?;
    let device = engine.device.as_ref().map(|d| {
        format!(
            "{} behind the {} scheduler, {} requests queued at most",
            d.name(),
            d.scheduler(),
            d.nr_requests()
        )
    });
    // Before any thread starts, so that every thread leaves these signals to `wait_for_signal`.
    mount::block_termination_signals();
    let mounted = mount::mount(MountConfig {
        source: a.source.clone(),
        mountpoint: a.mountpoint.clone(),
        engine,
        fuse_threads: a.fuse_threads,
        attr_ttl,
        wants_cpu: spec.wants_cpu(),
        stats_addr: a.stats,
        backend,
    })?;
    note(&format!(
        "pagelab: serving {} at {} read-only: {} of memory, policy {}, prefetch {}, prefetch memory {}{}{}",
        a.source.display(),
        mounted.mountpoint().display(),
        fmt_bytes(memory_bytes),
        a.policy,
        a.prefetch,
        a.prefetch_cache,
        if metadata == "none" { String::new() } else { format!(", metadata {metadata}") },
        device.map_or(String::new(), |d| format!("; EMULATED device {d}: every miss also waits for it")),
    ));
    if !mounted.everyone_reads() {
        note(
            "pagelab: only you may read through this mount (not root, and /etc/fuse.conf has no \
             user_allow_other): a server that drops privileges cannot read it",
        );
    }
    note(&format!(
        "pagelab: stop with Ctrl-C, SIGTERM or `pagelab umount {}`; `pagelab stats {}` shows what it does",
        mounted.mountpoint().display(),
        mounted.mountpoint().display()
    ));
    let stop = mount::wait_for_signal(&mounted);
    let final_stats = mounted.engine().stats();
    let unmounted = mounted.unmount();
    match stop {
        Stop::Signal(sig) => {
            let detached = unmounted?;
            note(&format!(
                "pagelab: signal {sig}: unmounted{}",
                if detached { " (busy: detached)" } else { "" }
            ));
        }
        Stop::Unmounted => {
            unmounted?;
            note("pagelab: unmounted");
        }
        Stop::Failed(why) => {
            return Err(anyhow!(
                "internal error, the mount was stopped ({}): {why}; this is a bug, please report it",
                match unmounted {
                    Ok(_) => "unmounted".to_string(),
                    Err(e) => e.to_string(),
                }
            ));
        }
    }
    emit(&final_stats.render())
}

pub fn run_umount(a: &UmountArgs) -> Result<()> {
    mount::umount(&a.mountpoint, a.lazy)?;
    Ok(())
}

pub fn run_stats(a: &StatsArgs) -> Result<()> {
    let stats = mount::read_stats(&a.mountpoint)?;
    if a.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&stats)?))
    } else {
        emit(&stats.render())
    }
}
