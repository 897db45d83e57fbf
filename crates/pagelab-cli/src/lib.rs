//! The `pagelab` command's library: one module per subcommand, plus the shared pieces (trace loading,
//! output rendering, progress, plots, the libCacheSim reference). `main.rs` only parses and dispatches.

pub mod bench;
pub mod bench_live;
pub mod cachesim;
pub mod experiment;
#[cfg(target_os = "linux")]
pub mod huge_pages;
pub mod interrupt;
pub mod libcachesim;
pub mod limits;
pub mod live;
pub mod mrc;
pub mod output;
pub mod panics;
pub mod plot;
pub mod progress;
pub mod simulate;
pub mod trace_cmd;
pub mod traceio;
pub mod whatif;

/// This process's peak resident set size (Linux `VmHWM`), for memory reports; `None` elsewhere.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
