//! The trace formats, one file each, and the machinery the text formats share.
//!
//! A text format is a `LineFormat`: it turns one non-blank line into a request, a non-request, the end
//! of the trace, or a description of what was expected. `LineTrace` drives it over a `LineSource`
//! and owns the policy every text format shares: blank lines are not records; a block request whose byte
//! range cannot be keyed (`crate::expand::block_range_error`) is a bad record like any other; the first
//! bad record is an error naming path, line, text and expected form, unless `skip_bad_lines` is on, in
//! which case it is counted ([`crate::TraceReader::skipped_records`]) and reading goes on.

pub mod arc;
pub mod blkparse;
pub mod csv;
pub mod lirs;
pub mod msr;
pub mod oracle;
pub mod spc;

use crate::error::TraceError;
use crate::expand::block_range_error;
use crate::input::{LineSource, NextLine};
use crate::parse::is_blank;
use crate::request::{AddrUnit, Request};
use crate::TraceReader;

/// What one line of a text trace is.
pub(crate) enum Parsed {
    Request(Request),
    /// A well-formed line that carries no request (a LIRS `*` marker, a blkparse event other than `Q`,
    /// a header). `counted` says whether it counts in [`crate::TraceReader::ignored_records`]: headers do
    /// not, events do.
    NotRequest {
        counted: bool,
    },
    /// The trace ends here (blkparse's summary block); the rest of the input is not read.
    End,
    /// Malformed: the expected form, for the error message.
    Bad(String),
}

/// One text format: how a line becomes a request.
pub(crate) trait LineFormat: Send {
    /// The format's name, for [`crate::TraceReader::describe`].
    const NAME: &'static str;

    /// How the requests' `addr` is to be read.
    fn addr_unit(&self) -> AddrUnit;

    /// Parses one line that is not blank. `line_no` is 1-based (formats with a header need it).
    fn parse(&mut self, line_no: u64, line: &[u8]) -> Parsed;
}

/// A [`TraceReader`] over any [`LineFormat`].
pub(crate) struct LineTrace<F> {
    lines: LineSource,
    format: F,
    skip_bad_lines: bool,
    skipped: u64,
    ignored: u64,
    done: bool,
}

impl<F: LineFormat> LineTrace<F> {
    pub fn new(lines: LineSource, format: F, skip_bad_lines: bool) -> LineTrace<F> {
        LineTrace { lines, format, skip_bad_lines, skipped: 0, ignored: 0, done: false }
    }

    /// A bad record on line `line_no`: counted when skipping, else the error that ends the trace.
    fn bad(&mut self, line_no: u64, text: &[u8], expected: String) -> Result<(), TraceError> {
        if self.skip_bad_lines {
            self.skipped += 1;
            return Ok(());
        }
        self.done = true;
        let text = String::from_utf8_lossy(text);
        Err(TraceError::bad_record(self.lines.path(), line_no, &text, expected))
    }

    /// The next request: [`TraceReader::next_request`], inlined into both it and the batch loop.
    #[inline(always)]
    fn step(&mut self) -> Result<Option<Request>, TraceError> {
        // Terminates with the input: every pass consumes one line.
        while !self.done {
            let (line_no, next) = self.lines.next_line()?;
            let bad = match next {
                NextLine::End => break,
                NextLine::TooLong(prefix) => {
                    Some((prefix.to_vec(), format!("a {} line of at most {} bytes", F::NAME, prefix.len())))
                }
                // Only a line that is empty or starts blank can be blank: no second pass over the rest.
                NextLine::Line(line)
                    if matches!(line.first(), None | Some(b' ' | b'\t')) && is_blank(line) =>
                {
                    None
                }
                NextLine::Line(line) => match self.format.parse(line_no, line) {
                    Parsed::Request(r) => match self.format.addr_unit() {
                        AddrUnit::Bytes(unit) => match block_range_error(&r, unit) {
                            None => return Ok(Some(r)),
                            Some(expected) => Some((line.to_vec(), expected)),
                        },
                        AddrUnit::Object => return Ok(Some(r)),
                    },
                    Parsed::NotRequest { counted } => {
                        self.ignored += counted as u64;
                        None
                    }
                    Parsed::End => break,
                    Parsed::Bad(expected) => Some((line.to_vec(), expected)),
                },
            };
            if let Some((text, expected)) = bad {
                self.bad(line_no, &text, expected)?;
            }
        }
        self.done = true;
        Ok(None)
    }
}

impl<F: LineFormat> TraceReader for LineTrace<F> {
    fn addr_unit(&self) -> AddrUnit {
        self.format.addr_unit()
    }

    fn next_request(&mut self) -> Result<Option<Request>, TraceError> {
        self.step()
    }

    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        let before = out.len();
        // Bounded by `max`.
        while out.len() - before < max {
            match self.step()? {
                Some(r) => out.push(r),
                None => break,
            }
        }
        Ok(out.len() - before)
    }

    fn describe(&self) -> String {
        format!("{} trace {}", F::NAME, self.lines.path().display())
    }

    fn skipped_records(&self) -> u64 {
        self.skipped
    }

    fn ignored_records(&self) -> u64 {
        self.ignored
    }
}

/// The expected-form message for one bad field: `what` (e.g. "an unsigned integer") for `field` in a line
/// of the form `form`.
pub(crate) fn expect_field(what: &str, field: &str, form: &str) -> String {
    format!("{what} for {field} in `{form}`")
}

/// The expected-form message for a line with the wrong number of fields.
pub(crate) fn expect_fields(count: &str, found: usize, form: &str) -> String {
    format!("{count} fields `{form}`, found {found}")
}
