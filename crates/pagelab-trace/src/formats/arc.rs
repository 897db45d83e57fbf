//! The ARC traces (`.lis`): `start_block n_blocks field3 request_no` per line.
//!
//! Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST 2003, §V-A (traces P1–P14,
//! ConCat, Merge(P), DS1, SPC1, S1–S3), in the form moka-rs/cache-trace carries them. Each line is a read
//! of `n_blocks` 512-byte blocks starting at block `start_block`: `AddrUnit::Bytes(512)`, size
//! `n_blocks · 512`. The third field is undocumented (it grows monotonically) and the fourth numbers the
//! requests; both must be unsigned integers but are otherwise unused, so the traces carry no timestamps
//! (time 0). Fields are separated by any run of spaces or tabs; more or fewer than four is a bad record.

use super::{expect_field, expect_fields, LineFormat, Parsed};
use crate::parse::{blank_separated_u64s, parse_u32, parse_u64, split_whitespace};
use crate::request::{AddrUnit, Request};

/// The expected form of an ARC line.
pub const FORM: &str = "start_block n_blocks field3 request_no";

/// Bytes per ARC block.
pub const BLOCK_BYTES: u32 = 512;

#[derive(Default)]
pub(crate) struct Arc;

impl LineFormat for Arc {
    const NAME: &'static str = "arc";

    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Bytes(BLOCK_BYTES)
    }

    #[inline]
    fn parse(&mut self, _: u64, line: &[u8]) -> Parsed {
        if let Some([start_block, n_blocks, _, _]) = blank_separated_u64s::<4>(line) {
            if let Some(size_bytes) = u32::try_from(n_blocks).ok().and_then(|n| n.checked_mul(BLOCK_BYTES)) {
                return Parsed::Request(Request::read(start_block, size_bytes));
            }
        }
        // The careful path: accepts what the fast one leaves out, and says what is wrong with the rest.
        let mut f = [&b""[..]; 4];
        let n = split_whitespace(line, &mut f);
        if n != 4 {
            return Parsed::Bad(expect_fields("4", n, FORM));
        }
        let Some(start_block) = parse_u64(f[0]) else {
            return Parsed::Bad(expect_field("an unsigned integer", "start_block", FORM));
        };
        let size_bytes = parse_u32(f[1]).and_then(|n| n.checked_mul(BLOCK_BYTES));
        let Some(size_bytes) = size_bytes else {
            return Parsed::Bad(expect_field("an unsigned integer below 2^23", "n_blocks", FORM));
        };
        if parse_u64(f[2]).is_none() {
            return Parsed::Bad(expect_field("an unsigned integer", "field3", FORM));
        }
        if parse_u64(f[3]).is_none() {
            return Parsed::Bad(expect_field("an unsigned integer", "request_no", FORM));
        }
        Parsed::Request(Request::read(start_block, size_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bad_record, read_text};
    use crate::{open_trace, OpenOptions};

    #[test]
    fn p3_lines() {
        let text = "230027 8 0 0\n1842745 64 0 1\n  216082\t8 0 2  \n";
        let got = read_text("p.lis", text, "arc").unwrap();
        assert_eq!(
            got,
            vec![Request::read(230027, 4096), Request::read(1842745, 32768), Request::read(216082, 4096)]
        );
        let (_d, path) = crate::testing::temp_trace("p.lis", text.as_bytes());
        let reader = open_trace(path.to_str().unwrap(), "auto", &OpenOptions::default()).unwrap();
        assert_eq!(reader.addr_unit(), AddrUnit::Bytes(512));
    }

    #[test]
    fn malformed_lines() {
        let bad = |text: &str| bad_record("p.lis", text.as_bytes(), "arc");
        let e = |line: u64, text: &str, expected: &str| {
            ("p.lis".to_string(), line, text.to_string(), expected.to_string())
        };
        assert_eq!(
            bad("1 8 0 0\n2 x 0 1\n"),
            e(
                2,
                "2 x 0 1",
                "an unsigned integer below 2^23 for n_blocks in `start_block n_blocks field3 request_no`"
            )
        );
        assert_eq!(
            bad("1 8 0\n"),
            e(1, "1 8 0", "4 fields `start_block n_blocks field3 request_no`, found 3")
        );
        assert_eq!(
            bad("1 8 0 0 5\n"),
            e(1, "1 8 0 0 5", "4 fields `start_block n_blocks field3 request_no`, found 5")
        );
        assert_eq!(
            bad("-1 8 0 0\n"),
            e(
                1,
                "-1 8 0 0",
                "an unsigned integer for start_block in `start_block n_blocks field3 request_no`"
            )
        );
        assert_eq!(
            bad("1 8388608 0 0\n"),
            e(
                1,
                "1 8388608 0 0",
                "an unsigned integer below 2^23 for n_blocks in `start_block n_blocks field3 request_no`"
            )
        );
        assert_eq!(
            bad("1 8 0.5 0\n"),
            e(1, "1 8 0.5 0", "an unsigned integer for field3 in `start_block n_blocks field3 request_no`")
        );
        assert_eq!(
            bad("1 8 0 r\n"),
            e(1, "1 8 0 r", "an unsigned integer for request_no in `start_block n_blocks field3 request_no`")
        );
    }
}
