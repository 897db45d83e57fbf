//! The core's single error type. The core rejects bad configuration and calls a driver can get wrong (a
//! read outside its file, a fetch completed twice, a pin given back twice); it never fails on a valid input
//! sequence (invariant violations are bugs and panic through assertions).

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// A policy, prefetcher or size name that the engine does not know.
    #[error("unknown {what} `{got}`; expected one of: {expected}")]
    UnknownName { what: &'static str, got: String, expected: String },
    /// A parameter outside its valid range.
    #[error("invalid {what}: {why}")]
    InvalidParameter { what: &'static str, why: String },
    /// A read the buffer cache cannot serve as asked.
    #[error("bad read: {0}")]
    BadRead(String),
    /// A stream the buffer cache does not know (never opened, or closed).
    #[error("stream {0} is not open")]
    UnknownStream(u32),
    /// A fetch the buffer cache did not issue, or whose pages are no longer in flight under it.
    #[error("fetch {0} is not in flight in this cache")]
    UnknownFetch(u64),
    /// A pin the buffer cache did not hand out, or already took back.
    #[error("slot {0} holds no pin")]
    BadPin(u32),
}
