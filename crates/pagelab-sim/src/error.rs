//! The simulator's one error type. Every refusal says what was given and what was expected, with the
//! context of the caller around it (the workload spec, the TOML file, the experiment's job), as
//! `pagelab_trace::TraceError` does for traces: a user reads one line and knows what to change.

use pagelab_core::CoreError;
use std::path::PathBuf;

/// Why a workload, a configuration or a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The server's configuration as a whole does not make sense (a device that cannot hold the files, no
    /// CPU, ...).
    #[error("{0}")]
    Config(String),
    /// A block trace addresses more pages than the device has (a caller can offer folding).
    #[error("the trace addresses {pages} pages but {device} has {device_pages}")]
    TraceBeyondDevice { pages: u64, device: String, device_pages: u64 },
    /// A value that does not parse or is out of range: `what` quotes it as given (`files=0`,
    /// `length=`zig``), `why` says what was expected.
    #[error("{what}: {why}")]
    Invalid { what: String, why: String },
    /// An error inside something the user named (`workload `one-rand:files=0``, a TOML file, an
    /// experiment's job).
    #[error("{context}: {source}")]
    Context { context: String, source: Box<SimError> },
    /// An error, and what the user can do instead (`the largest scale that fits is 4350`).
    #[error("{source}; {advice}")]
    WithAdvice { source: Box<SimError>, advice: String },
    /// Reading a file the user named failed.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    /// A parameter the core refused (its spec parser, a prefetcher or scheduler name).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A trace that cannot be replayed.
    #[error(transparent)]
    Replay(#[from] crate::workload::replay::ReplayError),
    /// Every handler with work is stalled for memory, and nothing (no I/O in flight, no kswapd pass) can
    /// free any: what the Linux OOM killer would act on. The simulator ends the run and says so.
    #[error(
        "out of memory at {at_s:.3} s: {stalled} handler(s) need memory and none can be freed \
         ({resident_mib:.1} MiB resident, {swap_used_mib:.1} of {swap_mib:.1} MiB swap in use); \
         give the server more --memory or --swap"
    )]
    OutOfMemory { at_s: f64, stalled: usize, resident_mib: f64, swap_used_mib: f64, swap_mib: f64 },
    /// Open-loop arrivals outran the server until the admission queue reached its bound: the run could
    /// only measure the queue's growth.
    #[error(
        "overloaded at {at_s:.3} s: {waiting} arrived requests wait for one of {handlers} handler(s), the \
         most a run holds; lower --arrival-rate or raise --concurrency"
    )]
    Overloaded { at_s: f64, waiting: usize, handlers: usize },
    /// The clock stopped: one handler completed its bound of requests at one instant of simulated time.
    /// Requests that cost no time (every page in memory and `--cpu-per-page 0`) complete without end in a
    /// closed loop, and the run would never reach its end.
    #[error(
        "no progress at {at_s:.3} s: handler {slot} completed {requests} requests without the simulated clock \
         moving (requests that take no time: every page in memory and no CPU time per page?); give \
         --cpu-per-page a positive time"
    )]
    NoProgress { at_s: f64, slot: u32, requests: u32 },
}

impl SimError {
    /// `what` (quoted as given) is not what was expected (`why`).
    pub fn invalid(what: impl Into<String>, why: impl Into<String>) -> SimError {
        SimError::Invalid { what: what.into(), why: why.into() }
    }

    /// This error, inside `context`.
    pub fn context(self, context: impl Into<String>) -> SimError {
        SimError::Context { context: context.into(), source: Box::new(self) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_reads_outside_in() {
        let e = SimError::invalid("files=0", "expected at least 1").context("workload `one-rand:files=0`");
        assert_eq!(e.to_string(), "workload `one-rand:files=0`: files=0: expected at least 1");
    }
}
