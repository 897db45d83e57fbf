//! The bounds every command enforces before it allocates or starts work, each named in the message that
//! refuses a parameter beyond it: the user learns the limit, not an allocator's abort or a hang.
//!
//! - Memory: a structure that grows with a parameter (a cache's frames, a simulated server's page cache)
//!   must fit this machine's physical memory, read from `/proc/meminfo` (`MemTotal`). Where that cannot be
//!   read the check is skipped and only the fixed limits apply.
//! - Threads: `--jobs` is at most [`JOBS_MAX`], and no more threads are started than there are runs.

use anyhow::{bail, Result};
use pagelab_core::units::fmt_bytes;

/// Worker threads a command may be given: far more than any machine pagelab runs on has cores, far
/// fewer than would take seconds to start.
pub const JOBS_MAX: usize = 1024;

/// This machine's physical memory, or `None` where `/proc/meminfo` cannot be read.
pub fn physical_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes an exact count keeps per distinct page (a hash set entry with its share of empty slots).
const DISTINCT_ENTRY_BYTES: u64 = 32;

/// Most distinct pages an exact count may hold: half of this machine's memory (unbounded where it cannot
/// be read).
pub fn distinct_pages_max() -> u64 {
    physical_memory_bytes().map_or(u64::MAX, |total| total / 2 / DISTINCT_ENTRY_BYTES)
}

/// Refuses `bytes` of memory for `what` (a phrase naming the flag and value) when it exceeds this
/// machine's memory.
pub fn ensure_fits_memory(what: &str, bytes: u128) -> Result<()> {
    if let Some(total) = physical_memory_bytes() {
        if bytes > total as u128 {
            let need = u64::try_from(bytes).map_or_else(|_| "more than 16 EiB".to_string(), fmt_bytes);
            bail!(
                "{what} needs about {need} of memory, more than this machine's memory ({})",
                fmt_bytes(total)
            );
        }
    }
    Ok(())
}

/// The worker threads for `runs` runs: `--jobs` if given (1 to [`JOBS_MAX`]), else every core, and never
/// more than there are runs.
pub fn worker_threads(jobs: Option<usize>, runs: usize) -> Result<usize> {
    let threads = match jobs {
        Some(n) if n == 0 || n > JOBS_MAX => {
            bail!("bad --jobs {n}: expected at least 1 and at most {JOBS_MAX} worker threads")
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(threads.min(runs.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_are_bounded_and_never_exceed_the_runs() {
        assert_eq!(worker_threads(Some(8), 3).unwrap(), 3);
        assert_eq!(worker_threads(Some(2), 30).unwrap(), 2);
        assert!(worker_threads(None, 1).unwrap() == 1);
        let err = worker_threads(Some(100_000), 4).unwrap_err().to_string();
        assert_eq!(err, "bad --jobs 100000: expected at least 1 and at most 1024 worker threads");
        assert!(worker_threads(Some(0), 4).is_err());
    }

    #[test]
    fn memory_beyond_the_machine_is_refused() {
        ensure_fits_memory("a small thing", 1 << 20).unwrap();
        if physical_memory_bytes().is_some() {
            let err = ensure_fits_memory("--size 1", 1 << 70).unwrap_err().to_string();
            assert!(err.starts_with("--size 1 needs about more than 16 EiB of memory"), "{err}");
        }
    }
}
