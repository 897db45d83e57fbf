//! Helpers for the format tests: traces in temporary files, read back through [`open_trace`].

use crate::{open_trace, OpenOptions, Request, TraceError, TraceReader};
use std::path::PathBuf;

/// A temporary file named `name` holding `content`; the directory lives as long as the returned guard.
pub fn temp_trace(name: &str, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, content).expect("write temp trace");
    (dir, path)
}

/// Every request of a reader, or its first error.
pub fn drain(reader: &mut dyn TraceReader) -> Result<Vec<Request>, TraceError> {
    let mut out = Vec::new();
    // Bounded by the trace (tests use small ones); a runaway reader trips the limit.
    for _ in 0..10_000_000 {
        match reader.next_request()? {
            Some(r) => out.push(r),
            None => return Ok(out),
        }
    }
    panic!("reader did not end");
}

/// Writes `content` to a file named `name` and reads it in `format`.
pub fn read_text(name: &str, content: &str, format: &str) -> Result<Vec<Request>, TraceError> {
    read_bytes(name, content.as_bytes(), format, false).map(|(r, _, _)| r)
}

/// Like [`read_text`], with `skip_bad_lines`, also returning (skipped, ignored) counts.
pub fn read_bytes(
    name: &str,
    content: &[u8],
    format: &str,
    skip_bad_lines: bool,
) -> Result<(Vec<Request>, u64, u64), TraceError> {
    let (_dir, path) = temp_trace(name, content);
    let options = OpenOptions { skip_bad_lines, seed: None };
    let mut reader = open_trace(path.to_str().unwrap(), format, &options)?;
    let requests = drain(reader.as_mut())?;
    Ok((requests, reader.skipped_records(), reader.ignored_records()))
}

/// The first error reading `content` as `format`, as (file name, line, text, expected).
pub fn bad_record(name: &str, content: &[u8], format: &str) -> (String, u64, String, String) {
    let (_dir, path) = temp_trace(name, content);
    let mut reader = open_trace(path.to_str().unwrap(), format, &OpenOptions::default()).expect("opens");
    match drain(reader.as_mut()) {
        Err(TraceError::BadRecord { path: p, line, text, expected }) => {
            assert_eq!(p, path, "the error must name the file read");
            (p.file_name().unwrap().to_string_lossy().into_owned(), line, text, expected)
        }
        other => panic!("expected a bad record, got {other:?}"),
    }
}
