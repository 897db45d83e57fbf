//! Opening traces from the command line and turning them into the page keys caches see.
//!
//! One rule for every command: a trace without requests (an empty file, a header-only CSV, every record
//! skipped as malformed) is refused ([`ensure_requests`]), never reported as a miss ratio of 0.

use crate::limits::ensure_fits_memory;
use anyhow::{bail, Result};
use clap::Args;
use pagelab_core::hash::KeyMap;
use pagelab_core::units::parse_bytes;
use pagelab_trace::{open_trace, OpenOptions, PageExpander, Request, TraceReader};

/// Requests pulled from a reader per call.
pub const BATCH: usize = 8192;

/// How a trace's records are read and split into pages: the flags every trace-reading command shares.
#[derive(Args, Clone, Debug)]
pub struct ReadArgs {
    /// Trace format: auto, lirs, arc, csv:SPEC (e.g. csv:cloudphysics), oracle-general, msr, spc, blkparse.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Page size used to split requests into pages.
    #[arg(long, default_value = "4KiB", value_name = "SIZE")]
    pub page_size: String,
    /// Treat every request as one object keyed by its address (libCacheSim-style object caching).
    #[arg(long)]
    pub ignore_size: bool,
    /// Skip malformed records (and report how many) instead of stopping at the first.
    #[arg(long)]
    pub skip_bad_lines: bool,
}

impl ReadArgs {
    /// These settings applied to `trace`.
    pub fn with_trace(&self, trace: &str) -> TraceArgs {
        TraceArgs { trace: trace.to_string(), read: self.clone() }
    }
}

/// Where a trace comes from and how its requests become pages.
#[derive(Args, Clone, Debug)]
pub struct TraceArgs {
    /// A trace file (lirs, arc, csv, oracle-general, msr, spc, blkparse; optionally .gz/.zst/.xz), `-`
    /// for standard input, or a synthetic trace such as
    /// `synth:zipf?alpha=1.0&objects=1000000&requests=10000000&seed=1` (also uniform, scan, loop, mixed).
    #[arg(long, value_name = "PATH|synth:...")]
    pub trace: String,
    #[command(flatten)]
    pub read: ReadArgs,
}

impl TraceArgs {
    /// `trace` in `format`, 4 KiB pages, bad lines an error.
    pub fn new(trace: &str, format: &str, ignore_size: bool) -> TraceArgs {
        let read = ReadArgs {
            format: format.to_string(),
            page_size: "4KiB".to_string(),
            ignore_size,
            skip_bad_lines: false,
        };
        read.with_trace(trace)
    }

    pub fn page_size_bytes(&self) -> Result<u64> {
        let ps = parse_bytes(&self.read.page_size)?;
        anyhow::ensure!(
            ps >= 512 && ps.is_power_of_two() && ps <= 1 << 30,
            "bad --page-size `{}`: expected a power of two from 512B to 1GiB",
            self.read.page_size
        );
        Ok(ps)
    }

    pub fn open(&self, seed: Option<u64>) -> Result<Box<dyn TraceReader>> {
        let options = OpenOptions { skip_bad_lines: self.read.skip_bad_lines, seed };
        open_trace(&self.trace, &self.read.format, &options).map_err(anyhow::Error::from)
    }

    pub fn expander(&self, reader: &dyn TraceReader) -> Result<PageExpander> {
        Ok(PageExpander::new(reader.addr_unit(), self.page_size_bytes()? as u32, self.read.ignore_size))
    }
}

/// A trace expanded to page keys, in memory, its distinct pages counted.
pub struct PageTrace {
    pub keys: Vec<u64>,
    pub requests: u64,
    pub distinct: u64,
    pub skipped: u64,
    pub source: String,
}

/// [`load_keys`]' result: distinct pages counted only when asked for.
pub struct LoadedKeys {
    pub keys: Vec<u64>,
    pub requests: u64,
    pub distinct: Option<u64>,
    pub skipped: u64,
    pub source: String,
}

/// Read the whole trace into page keys and count its distinct pages in the same pass.
pub fn load_pages(args: &TraceArgs, seed: Option<u64>) -> Result<PageTrace> {
    let t = load_keys(args, seed, true, KEY_BYTES)?;
    let distinct = t.distinct.expect("counted when asked");
    Ok(PageTrace { keys: t.keys, requests: t.requests, distinct, skipped: t.skipped, source: t.source })
}

/// Bytes a page reference of an in-memory trace takes: its key, and its next use when OPT runs.
pub const KEY_BYTES: u64 = 8;

/// Read the whole trace into page keys ([`KEY_BYTES`] per page reference, `bytes_per_key` counting what
/// the caller adds per key, which must fit this machine's memory) and, when `distinct` is set, count
/// distinct pages in the same pass. Refuses a trace without requests.
pub fn load_keys(
    args: &TraceArgs,
    seed: Option<u64>,
    distinct: bool,
    bytes_per_key: u64,
) -> Result<LoadedKeys> {
    let mut reader = args.open(seed)?;
    let expander = args.expander(reader.as_ref())?;
    let mut keys: Vec<u64> = Vec::new();
    let mut seen: KeyMap<u64, ()> = KeyMap::default();
    let mut refused = None;
    let requests = for_each_key_batch(reader.as_mut(), &expander, |batch| {
        if refused.is_some() {
            return;
        }
        if keys.len() + batch.len() > keys.capacity() {
            // Checked when the vector would grow: what it is about to take must fit.
            let len = keys.len() + batch.len();
            if let Err(e) = ensure_room("holding the trace's page references in memory", len, bytes_per_key) {
                refused = Some(e);
                return;
            }
        }
        keys.extend_from_slice(batch);
        if distinct {
            for &k in batch {
                seen.insert(k, ());
            }
        }
    })?;
    if let Some(e) = refused {
        bail!("{}: {e:#}; read it as a stream instead (cachesim --stream)", reader.describe());
    }
    let source = reader.describe();
    ensure_requests(&source, keys.len() as u64, reader.skipped_records())?;
    let distinct = distinct.then_some(seen.len() as u64);
    Ok(LoadedKeys { keys, requests, distinct, skipped: reader.skipped_records(), source })
}

/// The distinct pages of a trace, read as a stream: all of them, or `None` once there are more than
/// `limit` (the hash set is bounded by `limit`, not by the trace). Refuses a trace without requests.
pub fn count_distinct_streaming(args: &TraceArgs, seed: Option<u64>, limit: u64) -> Result<Option<u64>> {
    let mut reader = args.open(seed)?;
    let expander = args.expander(reader.as_ref())?;
    let mut seen: KeyMap<u64, ()> = KeyMap::default();
    let mut pages = 0u64;
    let mut over = false;
    for_each_key_batch(reader.as_mut(), &expander, |keys| {
        pages += keys.len() as u64;
        if over {
            return;
        }
        for &key in keys {
            seen.insert(key, ());
        }
        over = seen.len() as u64 > limit;
        if over {
            seen = KeyMap::default(); // the count is all that mattered: the memory goes back now
        }
    })?;
    ensure_requests(&reader.describe(), pages, reader.skipped_records())?;
    Ok((!over).then_some(seen.len() as u64))
}

pub fn count_distinct(keys: &[u64]) -> u64 {
    let mut seen: KeyMap<u64, ()> = KeyMap::default();
    seen.reserve(keys.len().min(1 << 24));
    for &k in keys {
        seen.insert(k, ());
    }
    seen.len() as u64
}

/// Refuses a vector of `len` elements of `bytes_per_element` about to double when the doubled vector would
/// not fit this machine's memory, naming `what` holds it.
pub fn ensure_room(what: &str, len: usize, bytes_per_element: u64) -> Result<()> {
    ensure_fits_memory(what, (len.max(1) as u128) * 2 * bytes_per_element as u128)
}

/// The one rule for a trace with no page references: an error, whatever the command.
pub fn ensure_requests(source: &str, pages: u64, skipped: u64) -> Result<()> {
    if pages == 0 {
        let why = if skipped > 0 { format!(" ({skipped} malformed records skipped)") } else { String::new() };
        bail!("{source}: the trace has no requests{why}");
    }
    Ok(())
}

/// Feed the page keys of every request of `reader`, as `expander` splits them, to `f` in batches of up to
/// [`BATCH`] requests' keys; bounded by the trace. Returns the number of requests.
pub fn for_each_key_batch(
    reader: &mut dyn TraceReader,
    expander: &PageExpander,
    mut f: impl FnMut(&[u64]),
) -> Result<u64> {
    let mut keys = Vec::with_capacity(BATCH);
    let mut requests = 0u64;
    loop {
        keys.clear();
        // The error names the file and line already.
        let n = reader.next_page_keys(expander, &mut keys, BATCH)?;
        if n == 0 {
            return Ok(requests);
        }
        requests += n as u64;
        f(&keys);
    }
}

/// Feed every request of `reader` to `f` in batches; bounded by the trace.
pub fn for_each_batch(reader: &mut dyn TraceReader, mut f: impl FnMut(&[Request])) -> Result<()> {
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        // The error names the file and line already.
        let n = reader.next_batch(&mut batch, BATCH)?;
        if n == 0 {
            return Ok(());
        }
        f(&batch);
    }
}
