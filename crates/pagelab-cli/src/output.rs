//! Printing results: aligned human tables, JSON, CSV. Every command builds typed rows (serde `Serialize`)
//! once and chooses the rendering here, so the three forms never disagree.
//!
//! Nothing here panics on a failed write: every write returns its error, and a write to a pipe whose
//! reader has gone (`pagelab ... | head`) ends the command quietly with status 0, as Unix tools end
//! ([`is_broken_pipe`], used by `main`). Files are written beside their destination and renamed into
//! place only once complete ([`write_atomically`]), and never over an input.

use anyhow::{Context, Result};
use pagelab_trace::output::{ensure_not_input, AtomicFile};
use pagelab_trace::TraceError;
use serde::Serialize;
use std::io::{BufWriter, ErrorKind, Write};
use std::path::Path;

/// How a command prints its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

impl Format {
    pub fn from_flags(json: bool, csv: bool) -> Format {
        if json {
            Format::Json
        } else if csv {
            Format::Csv
        } else {
            Format::Table
        }
    }
}

/// An aligned text table. A header written `">name"` makes its column right-aligned (numbers). A column
/// given a width ([`Table::wrap`]) wraps its cells at spaces onto as many lines as they need, so that
/// long prose keeps the table within a terminal.
pub struct Table {
    headers: Vec<String>,
    right: Vec<bool>,
    wrap: Vec<Option<usize>>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|s| s.trim_start_matches('>').to_string()).collect(),
            right: headers.iter().map(|s| s.starts_with('>')).collect(),
            wrap: vec![None; headers.len()],
            rows: Vec::new(),
        }
    }

    /// Wrap column `column` at `width` characters (a word longer than that stays whole).
    pub fn wrap(mut self, column: usize, width: usize) -> Table {
        self.wrap[column] = Some(width.max(1));
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        assert_eq!(cells.len(), self.headers.len(), "table row has the wrong number of cells");
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.headers.len();
        // Wrapped rows become several lines; every other cell of the row is empty on the extra lines.
        let mut lines: Vec<Vec<String>> = Vec::new();
        for r in &self.rows {
            let cells: Vec<Vec<String>> = r
                .iter()
                .enumerate()
                .map(|(i, c)| match self.wrap[i] {
                    Some(w) => wrap_words(c, w),
                    None => vec![c.clone()],
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for l in 0..height {
                lines.push(cells.iter().map(|c| c.get(l).cloned().unwrap_or_default()).collect());
            }
        }
        let mut width = vec![0usize; n];
        for r in std::iter::once(&self.headers).chain(lines.iter()) {
            for (i, c) in r.iter().enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if self.right[i] {
                        format!("{c:>w$}", w = width[i])
                    } else {
                        format!("{c:<w$}", w = width[i])
                    }
                })
                .collect();
            out.push_str(parts.join("  ").trim_end());
            out.push('\n');
        };
        line(&self.headers, &mut out);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&rule.join("  "));
        out.push('\n');
        for r in &lines {
            line(r, &mut out);
        }
        out
    }
}

/// `text` broken at spaces into lines of at most `width` characters (longer words stand alone).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let current = lines.last_mut().expect("at least one line");
        let len = current.chars().count();
        if len == 0 {
            current.push_str(word);
        } else if len + 1 + word.chars().count() <= width {
            current.push(' ');
            current.push_str(word);
        } else {
            lines.push(word.to_string());
        }
    }
    lines
}

/// Text on stdout, in one write for the small reports commands print.
pub fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// A line on stderr (progress notes, warnings); a closed stderr is ignored: there is nowhere left to
/// report it, and the result on stdout matters more.
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// JSON: one pretty object (or array) on stdout. Buffered: serde writes a token at a time, and stdout is
/// line-buffered (100,000 curve points were 500,000 write calls).
pub fn print_json<T: Serialize>(value: &T) -> Result<()> {
    write_json(std::io::stdout().lock(), value)
}

/// [`print_json`] on any writer.
pub fn write_json<W: Write, T: Serialize>(out: W, value: &T) -> Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// CSV with a header row from the struct's field names (flat structs only).
pub fn print_csv<T: Serialize>(rows: &[T]) -> Result<()> {
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

/// Whether `err` is a write to a pipe whose reader has gone, wherever in the chain of causes it is.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let broken = |kind: Option<ErrorKind>| kind == Some(ErrorKind::BrokenPipe);
    err.chain().any(|e| {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            broken(Some(io.kind()))
        } else if let Some(json) = e.downcast_ref::<serde_json::Error>() {
            broken(json.io_error_kind())
        } else if let Some(csv) = e.downcast_ref::<csv::Error>() {
            matches!(csv.kind(), csv::ErrorKind::Io(io) if broken(Some(io.kind())))
        } else if let Some(trace) = e.downcast_ref::<TraceError>() {
            trace.is_broken_pipe()
        } else {
            false
        }
    })
}

/// Writes the file `path` through `write`, which is handed a temporary file's path beside it (named with
/// `path`'s extension, for writers that choose a format by it); renamed over `path` only when `write`
/// succeeds. Refused when `path` is one of the trace specs in `inputs`.
pub fn write_atomically(path: &Path, inputs: &[&str], write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    for input in inputs {
        ensure_not_input(path, input)?;
    }
    let file = AtomicFile::create(path)?;
    write(file.path()).with_context(|| format!("writing {}", path.display()))?;
    file.commit()?;
    Ok(())
}

/// A run that completed and printed its report, but whose verdict is a failure (a benchmark target
/// missed): exit status 1, as a failed test has, rather than 2, which means bad input.
#[derive(Debug)]
pub struct Failed(pub String);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failed {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the writes that reach it.
    struct Counting(usize);

    impl Write for Counting {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += 1;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn json_is_written_in_a_few_large_writes() {
        let points: Vec<(u64, f64)> = (0..100_000).map(|i| (i, i as f64 / 7.0)).collect();
        let mut sink = Counting(0);
        write_json(&mut sink, &points).unwrap();
        // ~4 MB of JSON in 64 KiB writes, where a token-at-a-time writer made 500,000.
        assert!(sink.0 < 200, "{} writes", sink.0);
    }

    #[test]
    fn broken_pipes_are_recognised_through_every_wrapper() {
        let pipe = || std::io::Error::from(ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&anyhow::Error::from(pipe()).context("printing")));
        assert!(is_broken_pipe(&anyhow::Error::from(serde_json::Error::io(pipe()))));
        assert!(is_broken_pipe(&anyhow::Error::from(csv::Error::from(pipe()))));
        assert!(is_broken_pipe(&anyhow::Error::from(TraceError::io("-", pipe()))));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe, in words only")));
        assert!(!is_broken_pipe(&anyhow::Error::from(std::io::Error::from(ErrorKind::NotFound))));
    }

    #[test]
    fn an_atomic_write_that_fails_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        std::fs::write(&path, "old").unwrap();
        let err = write_atomically(&path, &[], |tmp| {
            std::fs::write(tmp, "half")?;
            anyhow::bail!("the plot failed")
        });
        assert!(err.unwrap_err().to_string().contains("writing"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        write_atomically(&path, &[], |tmp| Ok(std::fs::write(tmp, "new")?)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let err = write_atomically(&path, &[path.to_str().unwrap()], |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("is the input"), "{err}");
    }

    #[test]
    fn wrapped_columns_stay_within_their_width() {
        let mut t = Table::new(&["claim", ">n"]).wrap(0, 12);
        t.row(vec!["the quick brown fox jumps".into(), "7".into()]);
        t.row(vec!["short".into(), "8".into()]);
        assert_eq!(t.render(), "claim      n\n---------  -\nthe quick  7\nbrown fox\njumps\nshort      8\n");
    }

    #[test]
    fn table_aligns_numbers_right() {
        let mut t = Table::new(&["policy", ">misses"]);
        t.row(vec!["2q".into(), "5".into()]);
        t.row(vec!["arc".into(), "12345".into()]);
        assert_eq!(t.render(), "policy  misses\n------  ------\n2q           5\narc      12345\n");
    }
}
