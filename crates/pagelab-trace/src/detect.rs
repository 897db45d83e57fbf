//! Format detection for `--format auto`: by name first, then by content.
//!
//! 1. The name, after stripping a compression suffix (`.gz`, `.zst`, `.zstd`, `.xz`; the compression
//!    itself is found from magic bytes): `.trace` → lirs, `.lis` → arc, `.spc` → spc, `.blkparse` →
//!    blkparse, a name containing `oracleGeneral` → oracle-general. Any other name (`.csv`, `.txt`, none)
//!    goes to step 2.
//! 2. The first 64 KiB, decompressed. A NUL byte means binary, and the only binary format is
//!    oracle-general. Otherwise a known header (`version,time,op,size,lbn` → `csv:cloudphysics`; the
//!    pagelab CSV headers) decides; failing that, each text format's own parser is tried on the first 16
//!    non-blank lines, in the order blkparse, msr, spc, arc, lirs, and the first that accepts all of them
//!    (and finds at least one request or event) wins. Using the real parsers means that detection can
//!    never accept a file that the chosen reader then rejects on its first lines.

use crate::error::TraceError;
use crate::formats::blkparse::Blkparse;
use crate::formats::csv::{CsvSpec, CLOUDPHYSICS_HEADER, PAGELAB_HEADER, PAGELAB_OBJECTS_HEADER};
use crate::formats::lirs::Lirs;
use crate::formats::msr::Msr;
use crate::formats::spc::Spc;
use crate::formats::{arc::Arc, LineFormat, Parsed};
use crate::input::peek_decompressed;
use crate::open::{Format, FORMATS};
use crate::parse::{is_blank, TimeUnit};
use std::path::Path;

/// Bytes of (decompressed) content looked at.
const SNIFF_BYTES: usize = 64 * 1024;
/// Non-blank lines a candidate format must accept.
const SNIFF_LINES: usize = 16;

/// The format of the file at `path`, from its name or its first lines.
pub fn detect(path: &Path) -> Result<Format, TraceError> {
    if let Some(format) = by_name(path) {
        return Ok(format);
    }
    let (head, _) = peek_decompressed(path, SNIFF_BYTES)?;
    by_content(&head, head.len() == SNIFF_BYTES).ok_or_else(|| {
        let first = head.split(|&b| b == b'\n').find(|l| !is_blank(l)).unwrap_or(b"");
        let first: String = String::from_utf8_lossy(first).chars().take(80).collect();
        TraceError::invalid(
            path.display().to_string(),
            format!("cannot tell the trace format from the name or the first lines (`{first}`); pass a format: {FORMATS}"),
        )
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

/// The format of content starting with `head`; `truncated` says `head` stops mid-file (so its last line
/// may be partial and is not looked at).
pub(crate) fn by_content(head: &[u8], truncated: bool) -> Option<Format> {
    if head.contains(&0) {
        return Some(Format::OracleGeneral { time_unit: TimeUnit::S });
    }
    let mut lines: Vec<&[u8]> =
        head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).collect();
    if truncated {
        lines.pop();
    }
    let first = *lines.first()?;
    let preset = |name: &str| Some(Format::Csv(Box::new(CsvSpec::parse(name).expect("presets parse"))));
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
    if accepts(Blkparse::default(), &sample) {
        Some(Format::Blkparse)
    } else if accepts(Msr::default(), &sample) {
        Some(Format::Msr)
    } else if accepts(Spc, &sample) {
        Some(Format::Spc)
    } else if accepts(Arc, &sample) {
        Some(Format::Arc)
    } else if accepts(Lirs, &sample) {
        Some(Format::Lirs)
    } else {
        None
    }
}

/// Whether `format` parses every sampled line and finds at least one request or counted event.
fn accepts<F: LineFormat>(mut format: F, sample: &[(u64, &[u8])]) -> bool {
    let mut records = 0;
    for &(line_no, line) in sample {
        match format.parse(line_no, line) {
            Parsed::Request(_) | Parsed::NotRequest { counted: true } => records += 1,
            Parsed::NotRequest { counted: false } => {}
            Parsed::End => break,
            Parsed::Bad(_) => return false,
        }
    }
    records > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(text: &str) -> Option<String> {
        by_content(text.as_bytes(), false).map(|f| f.to_string())
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
        assert_eq!(content(""), None);
        // A file whose later line breaks the pattern is not that format.
        assert_eq!(content("1\n2\nthree\n"), None);
    }

    #[test]
    fn a_partial_last_line_of_a_truncated_head_is_ignored() {
        assert_eq!(by_content(b"1\n2\n3 4", true).map(|f| f.to_string()).as_deref(), Some("lirs"));
        assert_eq!(by_content(b"1\n2\n3 4", false), None);
    }
}
