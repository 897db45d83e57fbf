//! Format detection for `--format auto`: by name first, then by content.
//!
//! 1. The name, after stripping a compression suffix (`.gz`, `.zst`, `.zstd`, `.xz`; the compression
//!    itself is found from magic bytes): `.trace` → lirs, `.lis` → arc, `.spc` → spc, `.blkparse` →
//!    blkparse, a name containing `oracleGeneral` → oracle-general. Any other name (`.csv`, `.txt`, none,
//!    standard input) goes to step 2.
//! 2. The first 64 KiB, decompressed (read once, and handed back to the reader: see [`crate::input`]). A
//!    NUL byte in content that is not mostly text means binary, and the only binary format is
//!    oracle-general (its 24-byte records are mostly bytes outside printable ASCII: zero high bytes,
//!    random ids, `-1`s); text with a stray NUL byte stays text, so that its reader names the line that
//!    holds it. Otherwise a known header
//!    (`version,time,op,size,lbn` → `csv:cloudphysics`; the pagelab CSV headers) decides; failing that,
//!    each text format's own parser is tried on the first 16 non-blank lines, in the order blkparse, msr,
//!    spc, arc, lirs, and the first that accepts all of them (and finds at least one request or event)
//!    wins. Using the real parsers means that detection can never accept a file that the chosen reader
//!    then rejects on its first lines.
//!
//! When no format accepts the sample, the error quotes the line that broke the format that read the most
//! lines before it (an MSR trace with one bad line names that line and what MSR expects there), or the
//! first non-blank line when no format read any. Content with no non-blank line has no requests, and is
//! refused as such. A sample cut short by a read error (a truncated or corrupt compressed stream) that no
//! format accepts is reported as that error instead (`open_input`): it is why the format cannot be told.

use crate::error::TraceError;
use crate::formats::blkparse::Blkparse;
use crate::formats::csv::{CsvSpec, CLOUDPHYSICS_HEADER, PAGELAB_HEADER, PAGELAB_OBJECTS_HEADER};
use crate::formats::lirs::Lirs;
use crate::formats::msr::Msr;
use crate::formats::spc::Spc;
use crate::formats::{arc::Arc, LineFormat, Parsed};
use crate::open::{Format, FORMATS};
use crate::parse::{is_blank, TimeUnit};
use std::path::Path;

/// Bytes of (decompressed) content looked at.
pub(crate) const SNIFF_BYTES: usize = 64 * 1024;
/// Non-blank lines a candidate format must accept.
const SNIFF_LINES: usize = 16;

/// The format of the input named `path` whose (decompressed) content starts with `head`; `truncated` says
/// `head` stops mid-input. The error names the file and the line that decided against the closest format.
pub(crate) fn detect_content(path: &Path, head: &[u8], truncated: bool) -> Result<Format, TraceError> {
    let closest = match by_content(head, truncated) {
        Ok(format) => return Ok(format),
        Err(closest) => closest,
    };
    let pass = format!("pass a format: {FORMATS}");
    Err(match closest {
        Some(c) => TraceError::bad_record(
            path,
            c.line_no,
            &String::from_utf8_lossy(c.line),
            format!(
                "{} (the {} line(s) before it read as {}, the closest format; {pass})",
                c.expected, c.accepted, c.name
            ),
        ),
        None => {
            let lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
            match lines.enumerate().find(|(_, l)| !is_blank(l)) {
                Some((i, first)) => TraceError::bad_record(
                    path,
                    i as u64 + 1,
                    &String::from_utf8_lossy(first),
                    format!("a line of a trace format (cannot tell the format from the name or the first lines); {pass}"),
                ),
                // Blank lines, and more after them: the format cannot be told from the window.
                None if truncated => TraceError::bad_record(
                    path,
                    1,
                    "",
                    format!("a non-blank line within the first {SNIFF_BYTES} bytes, to tell the format from; {pass}"),
                ),
                // Nothing but blank lines: nothing to detect, and nothing to read.
                None => TraceError::invalid(path.display().to_string(), "the trace has no requests (it is empty)"),
            }
        }
    })
}

/// The format the file name announces, if it does.
pub(crate) fn by_name(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name = [".gz", ".zst", ".zstd", ".xz"].iter().find_map(|c| name.strip_suffix(c)).unwrap_or(&name);
    if name.contains("oraclegeneral") {
        Some(Format::OracleGeneral { time_unit: TimeUnit::S })
    } else if name.ends_with(".trace") {
        Some(Format::Lirs)
    } else if name.ends_with(".lis") {
        Some(Format::Arc)
    } else if name.ends_with(".spc") {
        Some(Format::Spc)
    } else if name.ends_with(".blkparse") {
        Some(Format::Blkparse)
    } else {
        None
    }
}

/// The text format that read the most sampled lines before one it rejected.
pub(crate) struct Closest<'a> {
    name: &'static str,
    /// Records (requests or counted events) it accepted before the bad line.
    accepted: usize,
    line_no: u64,
    line: &'a [u8],
    expected: String,
}

/// The format of content starting with `head`; `truncated` says `head` stops mid-file (so its last line
/// may be partial and is not looked at). Otherwise the closest text format, if any read a record.
pub(crate) fn by_content(head: &[u8], truncated: bool) -> Result<Format, Option<Closest<'_>>> {
    if looks_binary(head) {
        return Ok(Format::OracleGeneral { time_unit: TimeUnit::S });
    }
    let mut lines: Vec<&[u8]> =
        head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).collect();
    if truncated {
        lines.pop();
    }
    let Some(&first) = lines.first() else { return Err(None) };
    let preset = |name: &str| Ok(Format::Csv(Box::new(CsvSpec::parse(name).expect("presets parse"))));
    if first == CLOUDPHYSICS_HEADER.as_bytes() {
        return preset("csv:cloudphysics");
    }
    if first == PAGELAB_HEADER.as_bytes() {
        return preset("csv:pagelab");
    }
    if first == PAGELAB_OBJECTS_HEADER.as_bytes() {
        return preset("csv:pagelab-objects");
    }
    let sample: Vec<(u64, &[u8])> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !is_blank(l))
        .take(SNIFF_LINES)
        .map(|(i, l)| (i as u64 + 1, *l))
        .collect();
    let candidates = [
        (accepts(Blkparse::default(), &sample), Format::Blkparse),
        (accepts(Msr::default(), &sample), Format::Msr),
        (accepts(Spc, &sample), Format::Spc),
        (accepts(Arc, &sample), Format::Arc),
        (accepts(Lirs, &sample), Format::Lirs),
    ];
    let mut closest: Option<Closest> = None;
    for (verdict, format) in candidates {
        match verdict {
            Ok(()) => return Ok(format),
            // The first of equals wins, in the order above.
            Err(Some(c)) if closest.as_ref().is_none_or(|best| c.accepted > best.accepted) => {
                closest = Some(c)
            }
            Err(_) => {}
        }
    }
    Err(closest)
}

/// Share of printable ASCII and whitespace below which content with a NUL byte is binary.
const TEXT_SHARE_MIN: f64 = 0.9;

/// Content with a NUL byte that is not mostly text ([`TEXT_SHARE_MIN`]): a damaged text trace (a run of
/// NULs where a crash left a hole) is still text.
fn looks_binary(head: &[u8]) -> bool {
    if !head.contains(&0) {
        return false;
    }
    let text = head.iter().filter(|&&b| b.is_ascii_graphic() || b.is_ascii_whitespace()).count();
    (text as f64) < TEXT_SHARE_MIN * head.len() as f64
}

/// `Ok` when `format` parses every sampled line and finds at least one request or counted event; else
/// where it failed, when it had read at least one record before.
fn accepts<'a, F: LineFormat>(mut format: F, sample: &[(u64, &'a [u8])]) -> Result<(), Option<Closest<'a>>> {
    let mut records = 0;
    for &(line_no, line) in sample {
        match format.parse(line_no, line) {
            Parsed::Request(_) | Parsed::NotRequest { counted: true } => records += 1,
            Parsed::NotRequest { counted: false } => {}
            Parsed::End => break,
            Parsed::Bad(expected) if records > 0 => {
                return Err(Some(Closest { name: F::NAME, accepted: records, line_no, line, expected }))
            }
            Parsed::Bad(_) => return Err(None),
        }
    }
    if records > 0 {
        Ok(())
    } else {
        Err(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(text: &str) -> Option<String> {
        by_content(text.as_bytes(), false).ok().map(|f| f.to_string())
    }

    #[test]
    fn names() {
        let name = |n: &str| by_name(Path::new(n)).map(|f| f.to_string());
        assert_eq!(name("/x/multi1.trace.gz").as_deref(), Some("lirs"));
        assert_eq!(name("P3.lis.zst").as_deref(), Some("arc"));
        assert_eq!(name("P3.LIS").as_deref(), Some("arc"));
        assert_eq!(name("Financial1.spc.xz").as_deref(), Some("spc"));
        assert_eq!(name("cloudPhysicsIO.oracleGeneral.bin").as_deref(), Some("oracle-general:time-unit=s"));
        assert_eq!(name("run.blkparse").as_deref(), Some("blkparse"));
        assert_eq!(name("hm_0.csv.gz"), None);
        assert_eq!(name("trace"), None);
    }

    #[test]
    fn contents() {
        assert_eq!(content("1\n2\n*\n3\n").as_deref(), Some("lirs"));
        assert_eq!(content("230027 8 0 0\n1842745 64 0 1\n").as_deref(), Some("arc"));
        assert_eq!(content("0,20941264,8192,W,0.551706\n").as_deref(), Some("spc"));
        assert_eq!(content("128166372003061629,wdev,0,Read,3154152960,4096,2201\n").as_deref(), Some("msr"));
        assert_eq!(
            content("  8,0    3        1     0.000000000   697  Q  WS 3417048 + 8 [kjournald]\n").as_deref(),
            Some("blkparse")
        );
        assert_eq!(
            content("version,time,op,size,lbn\n1,5633898,2a,512,42932745\n").as_deref(),
            Some("csv:cloudphysics")
        );
        assert_eq!(content("time_ns,addr,size,op,volume,stream\n").as_deref(), Some("csv:pagelab"));
        assert_eq!(content("time_ns,id,size,op,volume,stream\n").as_deref(), Some("csv:pagelab-objects"));
        assert_eq!(content("\0\0\0").as_deref(), Some("oracle-general:time-unit=s"));
        assert_eq!(content("hello world\n"), None);
        // A text trace with a hole of NUL bytes is text: its reader then names the line.
        let holed = format!("{}7\0\0\0\0\n8\n", "123456789012\n".repeat(10));
        assert_eq!(content(&holed), None, "the sampled lines include the NULs: no text format accepts them");
        let later = format!("{}7\0\0\n", "1\n".repeat(40));
        let sampled_lines_clean = by_content(later.as_bytes(), true).ok().map(|f| f.to_string());
        assert_eq!(sampled_lines_clean.as_deref(), Some("lirs"), "the hole past the sample: lirs");
        // A real oracle-general record: 4-byte time, 8-byte id, 4-byte size, 8-byte next access (-1).
        let mut record = Vec::new();
        for i in 0..100u64 {
            record.extend_from_slice(&(i as u32).to_le_bytes());
            record.extend_from_slice(&(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes());
            record.extend_from_slice(&4096u32.to_le_bytes());
            record.extend_from_slice(&(-1i64).to_le_bytes());
        }
        assert_eq!(
            by_content(&record, false).ok().map(|f| f.to_string()).as_deref(),
            Some("oracle-general:time-unit=s")
        );
        assert_eq!(content(""), None);
        // A file whose later line breaks the pattern is not that format.
        assert_eq!(content("1\n2\nthree\n"), None);
    }

    #[test]
    fn a_partial_last_line_of_a_truncated_head_is_ignored() {
        assert_eq!(by_content(b"1\n2\n3 4", true).ok().map(|f| f.to_string()).as_deref(), Some("lirs"));
        assert!(by_content(b"1\n2\n3 4", false).is_err());
    }
}
