//! The trace crate's single error type: every failure says which file and, for bad records and failed
//! reads, which line (for binary formats: which record), what was there and what was expected.

use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TraceError {
    /// Opening, writing or renaming a file failed.
    // The I/O error is part of the message, not a `#[source]`: chained printing (`{:#}`) would repeat it.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    /// Reading failed partway, at 1-based `line` (for binary formats: the record number): a truncated or
    /// corrupt compressed stream, or a device error.
    #[error("{path}:{line}: {error}")]
    Read { path: PathBuf, line: u64, error: std::io::Error },
    /// A record that does not parse. `line` is 1-based (for binary formats: the record number).
    #[error("{path}:{line}: bad record `{text}`: expected {expected}")]
    BadRecord { path: PathBuf, line: u64, text: String, expected: String },
    /// The trace as a whole is unusable (unknown format, bad synthetic spec, bad column mapping, ...).
    #[error("{what}: {why}")]
    Invalid { what: String, why: String },
}

impl TraceError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TraceError {
        TraceError::Io { path: path.into(), error: source }
    }

    /// A read of `path` that failed at 1-based `line` (or record).
    pub fn read(path: impl Into<PathBuf>, line: u64, source: std::io::Error) -> TraceError {
        TraceError::Read { path: path.into(), line, error: source }
    }

    /// A bad record; `text` is cut to 120 characters so that a binary blob cannot flood the terminal.
    pub fn bad_record(
        path: impl Into<PathBuf>,
        line: u64,
        text: &str,
        expected: impl Into<String>,
    ) -> TraceError {
        let mut shown: String = text.chars().take(120).collect();
        if shown.len() < text.len() {
            shown.push('…');
        }
        TraceError::BadRecord { path: path.into(), line, text: shown, expected: expected.into() }
    }

    pub fn invalid(what: impl Into<String>, why: impl Into<String>) -> TraceError {
        TraceError::Invalid { what: what.into(), why: why.into() }
    }

    /// Whether the error is a write to a pipe whose reader has gone (`head` closing early): not a
    /// failure of the program, which should end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, TraceError::Io { error, .. } if error.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
