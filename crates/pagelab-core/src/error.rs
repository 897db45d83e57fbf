//! The core's single error type. The core rejects bad configuration; it never fails on a valid input
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
}
