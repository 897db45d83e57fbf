//! The SPC-1 / UMass Trace Repository traces (`Financial1.spc`, `WebSearch1.spc`, ...):
//! `ASU,LBA,Size,Opcode,Timestamp`.
//!
//! Storage Performance Council trace format, as the UMass repository distributes the OLTP (Financial) and
//! search-engine (WebSearch) traces. `ASU` is the application storage unit (the volume), `LBA` is in
//! 512-byte sectors (`AddrUnit::Bytes(512)`), `Size` in bytes, `Opcode` `r`/`w` in any case, `Timestamp`
//! seconds from the start of the trace as a decimal (converted exactly to ns). Fields after the fifth are
//! ignored: some distributions append more (e.g. a trailing comma or a response time).

use super::{expect_field, expect_fields, LineFormat, Parsed};
use crate::parse::{parse_decimal_ns, parse_u32, parse_u64, split_fields, trim, TimeUnit};
use crate::request::{AddrUnit, Op, Request, NO_NEXT};

/// The expected form of an SPC line.
pub const FORM: &str = "ASU,LBA,Size,Opcode,Timestamp";

/// Bytes per SPC logical block.
pub const SECTOR_BYTES: u32 = 512;

#[derive(Default)]
pub(crate) struct Spc;

impl LineFormat for Spc {
    const NAME: &'static str = "spc";

    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Bytes(SECTOR_BYTES)
    }

    #[inline]
    fn parse(&mut self, _: u64, line: &[u8]) -> Parsed {
        let mut f = [&b""[..]; 5];
        let n = split_fields(line, b',', &mut f);
        if n < 5 {
            return Parsed::Bad(expect_fields("at least 5", n, FORM));
        }
        let bad = |what: &str, field: &str| Parsed::Bad(expect_field(what, field, FORM));
        let Some(volume) = parse_u32(trim(f[0])) else { return bad("an unsigned integer", "ASU") };
        let Some(addr) = parse_u64(trim(f[1])) else { return bad("an unsigned integer (sectors)", "LBA") };
        let Some(size_bytes) = parse_u32(trim(f[2])) else {
            return bad("an unsigned integer (bytes < 2^32)", "Size");
        };
        let op = match trim(f[3]) {
            b"r" | b"R" => Op::Read,
            b"w" | b"W" => Op::Write,
            _ => return bad("`r` or `w`", "Opcode"),
        };
        let Some(time_ns) = parse_decimal_ns(trim(f[4]), TimeUnit::S.unit_ns) else {
            return bad("non-negative decimal seconds", "Timestamp");
        };
        Parsed::Request(Request { time_ns, addr, size_bytes, op, volume, stream: 0, next_vtime: NO_NEXT })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bad_record, read_text};

    #[test]
    fn financial_and_websearch_lines() {
        let text = "0,20941264,8192,W,0.551706\n1,3436,512,r,0.554041,\n2,1020456,8192,R,12.000001,extra\n";
        let got = read_text("f.spc", text, "spc").unwrap();
        let r = |volume, addr, size_bytes, op, time_ns| Request {
            time_ns,
            addr,
            size_bytes,
            op,
            volume,
            stream: 0,
            next_vtime: NO_NEXT,
        };
        assert_eq!(
            got,
            vec![
                r(0, 20941264, 8192, Op::Write, 551_706_000),
                r(1, 3436, 512, Op::Read, 554_041_000),
                r(2, 1020456, 8192, Op::Read, 12_000_001_000),
            ]
        );
    }

    #[test]
    fn malformed_lines() {
        let bad = |text: &str| bad_record("f.spc", text.as_bytes(), "spc");
        let e = |line, text: &str, expected: String| ("f.spc".to_string(), line, text.to_string(), expected);
        assert_eq!(
            bad("0,1,512,r,0.1\n0,1,512,x,0.2\n"),
            e(2, "0,1,512,x,0.2", format!("`r` or `w` for Opcode in `{FORM}`"))
        );
        assert_eq!(bad("0,1,512,r\n"), e(1, "0,1,512,r", format!("at least 5 fields `{FORM}`, found 4")));
        assert_eq!(
            bad("0,1,5k,r,0\n"),
            e(1, "0,1,5k,r,0", format!("an unsigned integer (bytes < 2^32) for Size in `{FORM}`"))
        );
        assert_eq!(
            bad("0,1,512,r,1e3\n"),
            e(1, "0,1,512,r,1e3", format!("non-negative decimal seconds for Timestamp in `{FORM}`"))
        );
        assert_eq!(
            bad("a,1,512,r,1\n"),
            e(1, "a,1,512,r,1", format!("an unsigned integer for ASU in `{FORM}`"))
        );
    }
}
