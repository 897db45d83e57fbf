//! blkparse's default text output (Linux blktrace), one block-layer event per line.
//!
//! Axboe & Brunelle, blktrace/blkparse, `blkparse(1)` "OUTPUT DESCRIPTION AND FORMATTING": the default
//! line is `%D %2c %8s %5T.%9t %5p %2a %3d` — device `major,minor`, CPU, sequence number, time in seconds
//! with nanoseconds, pid, action, RWBS — followed by an action-specific part, for `Q` (queued) events
//! `sector + nsectors [command]`.
//!
//! Only `Q` events become requests: they are what the issuing process asked for, before the I/O scheduler
//! merged or split anything (the other actions — G, I, D, C, M, F, P, U, A, X, m, ... — describe the same
//! I/O again later in its life). Every other well-formed event, and a `Q` without a sector range (a pure
//! flush), is counted in [`crate::TraceReader::ignored_records`]. Sectors are 512 bytes
//! (`AddrUnit::Bytes(512)`); the RWBS field gives the op (`D` discard → other, else `W` → write, `R` →
//! read, else other); the pid is the request's `stream`; the device is its `volume`, numbered 0, 1, ... in
//! order of first appearance. The summary blkparse prints at the end (from the first `CPUn (` or
//! `Total (` line) ends the trace: nothing after it is read. An `Input file ... added` line, which some
//! versions print first, is not an event and is not counted.

use super::{expect_field, LineFormat, Parsed};
use crate::parse::{parse_decimal_ns, parse_u32, parse_u64, split_whitespace, trim, TimeUnit};
use crate::request::{AddrUnit, Op, Request, NO_NEXT};
use std::collections::HashMap;

/// The expected form of a blkparse event line.
pub const FORM: &str = "dev cpu seq seconds pid action rwbs [sector + nsectors] [command]";

/// Bytes per blkparse sector.
pub const SECTOR_BYTES: u32 = 512;

/// The fields of the default line that are parsed (the command name after them is not).
const FIELDS_MAX: usize = 10;

#[derive(Default)]
pub(crate) struct Blkparse {
    /// `major << 32 | minor` → volume number.
    devices: HashMap<u64, u32>,
}

/// Whether `line` starts blkparse's closing summary (`CPU0 (8,0):`, `Total (8,0):`).
pub(crate) fn is_summary_start(line: &[u8]) -> bool {
    let line = trim(line);
    if line.starts_with(b"Total (") {
        return true;
    }
    match line.strip_prefix(b"CPU") {
        Some(rest) => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            digits > 0 && rest[digits..].starts_with(b" (")
        }
        None => false,
    }
}

/// `major,minor` → `major << 32 | minor`.
pub(crate) fn parse_device(s: &[u8]) -> Option<u64> {
    let comma = memchr::memchr(b',', s)?;
    let major = parse_u32(&s[..comma])?;
    let minor = parse_u32(&s[comma + 1..])?;
    Some((major as u64) << 32 | minor as u64)
}

/// The op an RWBS field (e.g. `R`, `WS`, `RA`, `FWFS`, `D`, `N`) describes.
fn rwbs_op(rwbs: &[u8]) -> Op {
    if rwbs.contains(&b'D') {
        Op::Other
    } else if rwbs.contains(&b'W') {
        Op::Write
    } else if rwbs.contains(&b'R') {
        Op::Read
    } else {
        Op::Other
    }
}

impl Blkparse {
    fn volume(&mut self, device: u64) -> u32 {
        let next = u32::try_from(self.devices.len()).expect("fewer than 2^32 devices");
        *self.devices.entry(device).or_insert(next)
    }
}

impl LineFormat for Blkparse {
    const NAME: &'static str = "blkparse";

    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Bytes(SECTOR_BYTES)
    }

    fn parse(&mut self, _: u64, line: &[u8]) -> Parsed {
        if is_summary_start(line) {
            return Parsed::End;
        }
        if trim(line).starts_with(b"Input file ") {
            return Parsed::NotRequest { counted: false };
        }
        let mut f = [&b""[..]; FIELDS_MAX];
        let n = split_whitespace(line, &mut f);
        let bad = |what: &str, field: &str| Parsed::Bad(expect_field(what, field, FORM));
        if n < 6 {
            return Parsed::Bad(format!("at least 6 fields `{FORM}`, found {n}"));
        }
        let Some(device) = parse_device(f[0]) else { return bad("`major,minor`", "dev") };
        if parse_u32(f[1]).is_none() {
            return bad("an unsigned integer", "cpu");
        }
        if parse_u64(f[2]).is_none() {
            return bad("an unsigned integer", "seq");
        }
        let Some(time_ns) = parse_decimal_ns(f[3], TimeUnit::S.unit_ns) else {
            return bad("non-negative decimal seconds", "seconds");
        };
        let Some(pid) = parse_u32(f[4]) else { return bad("an unsigned integer", "pid") };
        if f[5] != b"Q" {
            return Parsed::NotRequest { counted: true };
        }
        if n < 7 {
            return bad("an RWBS field", "rwbs");
        }
        if n < 8 || f[7].starts_with(b"[") {
            return Parsed::NotRequest { counted: true }; // a flush: no sector range
        }
        if n < 10 || f[8] != b"+" {
            return bad("`sector + nsectors`", "a Q event");
        }
        let Some(addr) = parse_u64(f[7]) else { return bad("an unsigned integer", "sector") };
        let size_bytes = parse_u32(f[9]).and_then(|s| s.checked_mul(SECTOR_BYTES));
        let Some(size_bytes) = size_bytes else { return bad("an unsigned integer below 2^23", "nsectors") };
        let op = rwbs_op(f[6]);
        let volume = self.volume(device);
        Parsed::Request(Request { time_ns, addr, size_bytes, op, volume, stream: pid, next_vtime: NO_NEXT })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bad_record, read_bytes};

    const SAMPLE: &str = "\
  8,0    3        1     0.000000000   697  Q  WS 3417048 + 8 [kjournald]
  8,0    3        2     0.000001234   697  G  WS 3417048 + 8 [kjournald]
  8,0    3        3     0.000002000   697  P   N [kjournald]
  8,0    3        4     0.000003000   697  I  WS 3417048 + 8 [kjournald]
  8,0    3        5     0.000004000   697  U   N [kjournald] 1
  8,0    3        6     0.000005000   697  D  WS 3417048 + 8 [kjournald]
  8,0    1        1     0.000100000  1234  Q   R 100 + 16 [cat]
  8,0    1        2     0.000100500  1234  Q  RA 116 + 240 [cat]
  8,16   0        1     0.000200000  1234  Q FWS [jbd2/sda1-8]
  8,16   0        2     0.000300000    99  Q   D 2048 + 2048 [fstrim]
  8,0    3        7     0.001091700     0  C  WS 3417048 + 8 [0]
  8,0    1        0     0.000016000  1234  m   N cfq1234 alloced

CPU0 (8,0):
 Reads Queued:           2,      128KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        0,        0KiB\t Write Dispatches:        1,        4KiB
Total (8,0):
 Reads Queued:           2,      128KiB\t Writes Queued:           1,        4KiB

Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,0): 12 entries
";

    #[test]
    fn only_queued_events_become_requests() {
        let (got, skipped, ignored) =
            read_bytes("run.blkparse", SAMPLE.as_bytes(), "blkparse", false).unwrap();
        let r = |time_ns, addr, sectors: u32, op, volume, stream| Request {
            time_ns,
            addr,
            size_bytes: sectors * 512,
            op,
            volume,
            stream,
            next_vtime: NO_NEXT,
        };
        assert_eq!(
            got,
            vec![
                r(0, 3417048, 8, Op::Write, 0, 697),
                r(100_000, 100, 16, Op::Read, 0, 1234),
                r(100_500, 116, 240, Op::Read, 0, 1234),
                r(300_000, 2048, 2048, Op::Other, 1, 99),
            ]
        );
        // G P I U D C m and the flush Q; the summary is neither counted nor parsed.
        assert_eq!((skipped, ignored), (0, 8));
        let (auto, _, _) = read_bytes("run.txt", SAMPLE.as_bytes(), "auto", false).unwrap();
        assert_eq!(auto, got, "detected by content");
    }

    #[test]
    fn rwbs_ops() {
        assert_eq!(rwbs_op(b"R"), Op::Read);
        assert_eq!(rwbs_op(b"RM"), Op::Read);
        assert_eq!(rwbs_op(b"FWFS"), Op::Write);
        assert_eq!(rwbs_op(b"DS"), Op::Other);
        assert_eq!(rwbs_op(b"N"), Op::Other);
    }

    #[test]
    fn summary_detection() {
        assert!(is_summary_start(b"CPU0 (8,0):"));
        assert!(is_summary_start(b"CPU12 (sda):"));
        assert!(is_summary_start(b"Total (8,0):"));
        assert!(!is_summary_start(b"CPU (8,0):"));
        assert!(!is_summary_start(b"  8,0    3        1     0.0   697  Q  WS 3 + 8 [CPU0 (x]"));
    }

    #[test]
    fn malformed_lines() {
        let bad = |text: &str| bad_record("b.blkparse", text.as_bytes(), "blkparse");
        let e = |text: &str, expected: String| ("b.blkparse".to_string(), 1, text.to_string(), expected);
        let line = "  8,0 3 1 0.0x 697 Q WS 3417048 + 8 [k]";
        assert_eq!(bad(line), e(line, format!("non-negative decimal seconds for seconds in `{FORM}`")));
        let line = "  8,0 3 1 0.5 697 Q WS 3417048 8 [k] x";
        assert_eq!(bad(line), e(line, format!("`sector + nsectors` for a Q event in `{FORM}`")));
        let line = "  8,0 3 1 0.5 697 Q WS 34x + 8 [k]";
        assert_eq!(bad(line), e(line, format!("an unsigned integer for sector in `{FORM}`")));
        let line = "  8 3 1 0.5 697 Q WS 3 + 8 [k]";
        assert_eq!(bad(line), e(line, format!("`major,minor` for dev in `{FORM}`")));
        let line = "  8,0 3 1 0.5 697";
        assert_eq!(bad(line), e(line, format!("at least 6 fields `{FORM}`, found 5")));
    }
}
