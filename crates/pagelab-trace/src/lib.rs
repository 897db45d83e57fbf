//! pagelab-trace: I/O traces in and out.
//!
//! Every format is read as a stream of [`Request`]s in constant memory through [`TraceReader`]; gzip, zstd
//! and xz are undone transparently (recognised by their magic bytes). [`PageExpander`] turns a request
//! into the page keys a cache sees. A malformed record stops the reader with a [`TraceError`] naming the
//! file, the line, the offending text and the expected form; nothing is skipped silently (with
//! [`OpenOptions::skip_bad_lines`] bad records are skipped and counted instead). A block address whose
//! byte range does not fit a page key is such a bad record, never a wrapped or clamped address.
//!
//! - [`open_trace`] opens a path, standard input (`-`) or a `synth:` spec in a named format or `auto`
//!   (detected by name, then by content); the input is opened once and nothing read to recognise it is
//!   lost, so pipes and FIFOs read as files do. [`open_reader`] reads any byte stream.
//! - [`formats`]: one file per format — `lirs`, `arc`, `csv` (column mapping; presets `cloudphysics`,
//!   `pagelab`), `oracle-general`, `msr`, `spc`, `blkparse`; [`synth`]: synthetic traces.
//! - [`write`](mod@write): oracle-general and CSV writers, next-access times for OPT; [`output`]: files
//!   that replace their destination only when complete, and never the input.
//! - [`stats`]: one-pass statistics for `pagelab trace inspect`.
//!
//! Readers parse bytes straight out of one reused buffer with hand-written integer parsing: the text
//! formats run at tens of millions of lines per second, oracle-general at the speed of `memcpy`.

mod detect;
mod error;
mod expand;
pub mod formats;
#[doc(hidden)]
pub mod fuzzing;
mod input;
mod open;
pub mod output;
mod parse;
mod request;
pub mod stats;
pub mod synth;
#[cfg(test)]
mod testing;
pub mod write;

pub use error::TraceError;
pub use expand::{PageExpander, ADDRESS_BYTES_MAX};
pub use formats::csv::CsvSpec;
pub use input::{Compression, STDIN, XZ_MEMORY_LIMIT_BYTES};
pub use open::{can_reread, open_reader, open_trace, open_trace_as, Format, OpenOptions, FORMATS};
pub use parse::TimeUnit;
pub use request::{AddrUnit, Op, Request, NO_NEXT};

/// Keys after which [`TraceReader::next_page_keys`] stops taking requests: a call hands out at most this
/// many plus the pages of one request (at most 2^23, a 4 GiB request of 512-byte pages), however large
/// the requests, so that a batch's memory does not grow with the sizes a trace claims.
pub const KEYS_PER_CALL: usize = 1 << 16;

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
    /// many requests that was; 0 only at the end of the trace. Stops early once [`KEYS_PER_CALL`] keys
    /// are out. Same contract as [`TraceReader::next_batch`], for callers that need only the keys (cache
    /// and MRC runs): readers that decode in bulk override it to skip building a [`Request`] per record.
    fn next_page_keys(
        &mut self,
        expander: &PageExpander,
        out: &mut Vec<u64>,
        max: usize,
    ) -> Result<usize, TraceError> {
        let before = out.len();
        let mut n = 0;
        // Bounded by `max` requests and KEYS_PER_CALL keys (plus one request's pages).
        while n < max && out.len() - before < KEYS_PER_CALL {
            let Some(r) = self.next_request()? else { break };
            expander.for_each_page(&r, |key, _| out.push(key));
            n += 1;
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
