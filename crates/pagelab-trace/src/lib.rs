//! pagelab-trace: I/O traces in and out.
//!
//! Every format is read as a stream of [`Request`]s in constant memory through [`TraceReader`]; gzip, zstd
//! and xz are undone transparently (recognised by their magic bytes). [`PageExpander`] turns a request
//! into the page keys a cache sees. A malformed record stops the reader with a [`TraceError`] naming the
//! file, the line, the offending text and the expected form; nothing is skipped silently (with
//! [`OpenOptions::skip_bad_lines`] bad records are skipped and counted instead).
//!
//! - [`open_trace`] opens a path (or a `synth:` spec) in a named format or `auto` ([`detect`]).
//! - [`formats`]: one file per format — `lirs`, `arc`, `csv` (column mapping; presets `cloudphysics`,
//!   `pagelab`), `oracle-general`, `msr`, `spc`, `blkparse`; [`synth`]: synthetic traces.
//! - [`write`](mod@write): oracle-general and CSV writers, next-access times for OPT.
//! - [`stats`]: one-pass statistics for `pagelab trace inspect`.
//!
//! Readers parse bytes straight out of one reused buffer with hand-written integer parsing: the text
//! formats run at tens of millions of lines per second, oracle-general at the speed of `memcpy`.

mod detect;
mod error;
mod expand;
pub mod formats;
mod input;
mod open;
mod parse;
mod request;
pub mod stats;
pub mod synth;
#[cfg(test)]
mod testing;
pub mod write;

pub use detect::detect;
pub use error::TraceError;
pub use expand::PageExpander;
pub use formats::csv::CsvSpec;
pub use input::Compression;
pub use open::{open_trace, Format, OpenOptions, FORMATS};
pub use parse::TimeUnit;
pub use request::{AddrUnit, Op, Request, NO_NEXT};

/// A bound on the requests [`TraceReader::next_page_keys`]'s default reads per call (its scratch batch).
const KEY_BATCH_SCRATCH_MAX: usize = 1 << 16;

/// A streaming source of requests.
pub trait TraceReader: Send {
    /// How `Request::addr` is to be read for this trace.
    fn addr_unit(&self) -> AddrUnit;

    /// The next request, `Ok(None)` at the end. After an error the reader must not be used again.
    fn next_request(&mut self) -> Result<Option<Request>, TraceError>;

    /// Appends up to `max` requests to `out` and returns how many; 0 only at the end of the trace. Same
    /// contract as [`TraceReader::next_request`] (readers override it to decode in bulk).
    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        let before = out.len();
        // Bounded by `max`.
        while out.len() - before < max {
            match self.next_request()? {
                Some(r) => out.push(r),
                None => break,
            }
        }
        Ok(out.len() - before)
    }

    /// Appends the page keys of up to `max` requests to `out`, as `expander` splits them, and returns how
    /// many requests that was; 0 only at the end of the trace. Same contract as
    /// [`TraceReader::next_batch`], for callers that need only the keys (cache and MRC runs): readers that
    /// decode in bulk override it to skip building a [`Request`] per record.
    fn next_page_keys(
        &mut self,
        expander: &PageExpander,
        out: &mut Vec<u64>,
        max: usize,
    ) -> Result<usize, TraceError> {
        let mut batch = Vec::with_capacity(max.min(KEY_BATCH_SCRATCH_MAX));
        let n = self.next_batch(&mut batch, max.min(KEY_BATCH_SCRATCH_MAX))?;
        for r in &batch {
            expander.for_each_page(r, |key, _| out.push(key));
        }
        Ok(n)
    }

    /// Human description of the source (path or synthetic spec), for messages and reports.
    fn describe(&self) -> String;

    /// Whether `Request::next_vtime` is filled in (oracle-general traces carry it).
    fn has_next_vtime(&self) -> bool {
        false
    }

    /// Malformed records skipped so far because [`OpenOptions::skip_bad_lines`] is on (always 0 when it
    /// is off: the first one is an error).
    fn skipped_records(&self) -> u64 {
        0
    }

    /// Well-formed records read so far that are not requests: LIRS `*` markers, blkparse events other
    /// than `Q`. Headers and blank lines are not records and are not counted.
    fn ignored_records(&self) -> u64 {
        0
    }

    /// The number of requests the trace will yield, when known without reading it (synthetic traces,
    /// uncompressed oracle-general files); for progress bars, never for correctness.
    fn requests_hint(&self) -> Option<u64> {
        None
    }
}
