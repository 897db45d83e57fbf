//! pagelab-trace: I/O traces in and out.
//!
//! Every format is read as a stream of [`Request`]s in constant memory through [`TraceReader`]; gzip, zstd
//! and xz are undone transparently. [`PageExpander`] turns a request into the page keys a cache sees.
//! A malformed record stops the reader with a [`TraceError`] naming the file, the line, the offending text
//! and the expected form; nothing is skipped silently.

mod error;
mod expand;
mod request;

pub use error::TraceError;
pub use expand::PageExpander;
pub use request::{AddrUnit, Op, Request, NO_NEXT};

/// A streaming source of requests.
pub trait TraceReader: Send {
    /// How `Request::addr` is to be read for this trace.
    fn addr_unit(&self) -> AddrUnit;

    /// The next request, `Ok(None)` at the end. After an error the reader must not be used again.
    fn next_request(&mut self) -> Result<Option<Request>, TraceError>;

    /// Human description of the source (path or synthetic spec), for messages and reports.
    fn describe(&self) -> String;

    /// Whether `Request::next_vtime` is filled in (oracle-general traces carry it).
    fn has_next_vtime(&self) -> bool {
        false
    }
}
