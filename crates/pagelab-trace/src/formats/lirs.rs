//! The LIRS traces: one block id per line.
//!
//! Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy", SIGMETRICS 2002,
//! §5 (the traces `cpp`, `cs`, `glimpse`, `multi1..3`, `ps`, `sprite`, `2_pools`, `loop`), in the form the
//! Caffeine simulator carries them. Each line holds one unsigned integer, the id of the block (page)
//! referenced; the ids were renumbered by the authors but keep sequential runs, so consecutive ids are
//! neighbouring blocks. Requests are `AddrUnit::Object` with size 0: one page each.
//!
//! Lines starting with `*` are markers (they separate the phases of `2_pools` and `cs`) and are not
//! requests: they are counted in [`crate::TraceReader::ignored_records`]. Surrounding spaces, CRLF line
//! ends (`loop` has them) and blank lines (the trailing one of `glimpse`) are tolerated.

use super::{LineFormat, Parsed};
use crate::parse::{parse_u64, trim};
use crate::request::{AddrUnit, Request};

/// The expected form of a LIRS line.
pub const FORM: &str = "one unsigned integer block id per line (or a `*` marker line)";

#[derive(Default)]
pub(crate) struct Lirs;

impl LineFormat for Lirs {
    const NAME: &'static str = "lirs";

    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Object
    }

    #[inline]
    fn parse(&mut self, _: u64, line: &[u8]) -> Parsed {
        let line = trim(line);
        if line.first() == Some(&b'*') {
            return Parsed::NotRequest { counted: true };
        }
        match parse_u64(line) {
            Some(id) => Parsed::Request(Request::read(id, 0)),
            None => Parsed::Bad(FORM.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bad_record, read_bytes};

    #[test]
    fn ids_markers_crlf_and_blank_lines() {
        let text = b"0\r\n17\r\n*\r\n  42 \n\n3\n\n\n";
        let (requests, skipped, ignored) = read_bytes("t.trace", text, "lirs", false).unwrap();
        let ids: Vec<u64> = requests.iter().map(|r| r.addr).collect();
        assert_eq!(ids, vec![0, 17, 42, 3]);
        assert!(requests.iter().all(|r| *r == Request::read(r.addr, 0)), "plain one-page reads");
        assert_eq!((skipped, ignored), (0, 1), "one marker, no bad lines");
    }

    #[test]
    fn a_final_line_without_newline_is_a_request() {
        let (requests, _, _) = read_bytes("t.trace", b"5\n6", "lirs", false).unwrap();
        assert_eq!(requests.iter().map(|r| r.addr).collect::<Vec<_>>(), vec![5, 6]);
    }

    #[test]
    fn bad_lines_are_errors_naming_line_and_text() {
        let expect = |text: &[u8], line: u64, shown: &str| {
            assert_eq!(
                bad_record("x.trace", text, "lirs"),
                ("x.trace".into(), line, shown.into(), FORM.into())
            );
        };
        expect(b"1\n2\n3x\n4\n", 3, "3x");
        expect(b"1\r\n-2\r\n", 2, "-2");
        expect(b"1 2\n", 1, "1 2");
        expect(b"99999999999999999999999\n", 1, "99999999999999999999999");
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let (requests, skipped, ignored) = read_bytes("t.trace", b"1\nx\n*\n2\ny\n", "lirs", true).unwrap();
        assert_eq!(requests.len(), 2);
        assert_eq!((skipped, ignored), (2, 1));
    }
}
