//! The MSR Cambridge block traces (SNIA IOTTA): `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! Narayanan, Donnelly, Rowstron, "Write Off-Loading: Practical Power Management for Enterprise Storage",
//! FAST 2008, §2 (one week of 36 volumes on 13 servers). `Timestamp` and `ResponseTime` are Windows
//! FILETIME ticks (100 ns; the timestamp counts from 1601, and is kept absolute: `time_ns` = ticks · 100),
//! `Type` is `Read` or `Write` (any case), `Offset` and `Size` are in bytes, so requests are
//! `AddrUnit::Bytes(1)`. The volume is the pair (Hostname, DiskNumber), numbered 0, 1, ... in order of
//! first appearance, so that a concatenation of several volumes' files keeps them apart. The files have
//! no header; a line with other than seven fields is a bad record.

use super::{expect_field, expect_fields, LineFormat, Parsed};
use crate::parse::{parse_u32, parse_u64, split_fields, TimeUnit};
use crate::request::{AddrUnit, Op, Request, NO_NEXT};
use std::collections::HashMap;

/// The expected form of an MSR line.
pub const FORM: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

#[derive(Default)]
pub(crate) struct Msr {
    /// (hostname bytes ++ disk number) → volume number.
    volumes: HashMap<Vec<u8>, u32>,
    /// Reused lookup key (no allocation per record once a volume is known).
    key: Vec<u8>,
}

impl Msr {
    fn volume(&mut self, host: &[u8], disk: u32) -> u32 {
        self.key.clear();
        self.key.extend_from_slice(host);
        self.key.extend_from_slice(&disk.to_le_bytes());
        if let Some(&v) = self.volumes.get(&self.key) {
            return v;
        }
        let v = u32::try_from(self.volumes.len()).expect("fewer than 2^32 volumes");
        self.volumes.insert(self.key.clone(), v);
        v
    }
}

impl LineFormat for Msr {
    const NAME: &'static str = "msr";

    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Bytes(1)
    }

    fn parse(&mut self, _: u64, line: &[u8]) -> Parsed {
        let mut f = [&b""[..]; 7];
        let n = split_fields(line, b',', &mut f);
        if n != 7 {
            return Parsed::Bad(expect_fields("7", n, FORM));
        }
        let bad = |what: &str, field: &str| Parsed::Bad(expect_field(what, field, FORM));
        let Some(time_ns) = parse_u64(f[0]).and_then(|t| t.checked_mul(TimeUnit::FILETIME.unit_ns)) else {
            return bad("an unsigned integer (100 ns ticks)", "Timestamp");
        };
        if f[1].is_empty() {
            return bad("a host name", "Hostname");
        }
        let Some(disk) = parse_u32(f[2]) else { return bad("an unsigned integer", "DiskNumber") };
        let op = if f[3].eq_ignore_ascii_case(b"read") {
            Op::Read
        } else if f[3].eq_ignore_ascii_case(b"write") {
            Op::Write
        } else {
            return bad("`Read` or `Write`", "Type");
        };
        let Some(addr) = parse_u64(f[4]) else { return bad("an unsigned integer (bytes)", "Offset") };
        let Some(size_bytes) = parse_u32(f[5]) else {
            return bad("an unsigned integer (bytes < 2^32)", "Size");
        };
        if parse_u64(f[6]).is_none() {
            return bad("an unsigned integer (100 ns ticks)", "ResponseTime");
        }
        let volume = self.volume(f[1], disk);
        Parsed::Request(Request { time_ns, addr, size_bytes, op, volume, stream: 0, next_vtime: NO_NEXT })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bad_record, read_text};

    #[test]
    fn volumes_numbered_by_first_appearance() {
        let text = "128166372003061629,wdev,0,Read,3154152960,4096,2201\n\
                    128166372003061700,hm,1,Write,512,65536,100\n\
                    128166372003061800,wdev,0,write,0,512,7\n\
                    128166372003061900,wdev,1,READ,4096,4096,7\n";
        let got = read_text("m.csv", text, "msr").unwrap();
        let r = |t: u64, addr, size_bytes, op, volume| Request {
            time_ns: t * 100,
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
                r(128166372003061629, 3154152960, 4096, Op::Read, 0),
                r(128166372003061700, 512, 65536, Op::Write, 1),
                r(128166372003061800, 0, 512, Op::Write, 0),
                r(128166372003061900, 4096, 4096, Op::Read, 2),
            ]
        );
        assert_eq!(crate::testing::read_text("m.csv", text, "auto").unwrap(), got, "detected by content");
    }

    #[test]
    fn malformed_lines() {
        let bad = |text: &str| bad_record("m.csv", text.as_bytes(), "msr");
        let e = |text: &str, expected: String| ("m.csv".to_string(), 1, text.to_string(), expected);
        assert_eq!(
            bad("128166372003061629,wdev,0,Flush,0,4096,1\n"),
            e("128166372003061629,wdev,0,Flush,0,4096,1", format!("`Read` or `Write` for Type in `{FORM}`"))
        );
        assert_eq!(
            bad("1,wdev,0,Read,0,4096\n"),
            e("1,wdev,0,Read,0,4096", format!("7 fields `{FORM}`, found 6"))
        );
        assert_eq!(
            bad("1,wdev,0,Read,0x10,4096,1\n"),
            e("1,wdev,0,Read,0x10,4096,1", format!("an unsigned integer (bytes) for Offset in `{FORM}`"))
        );
        assert_eq!(
            bad("184467440737095517,wdev,0,Read,0,4096,1\n"),
            e(
                "184467440737095517,wdev,0,Read,0,4096,1",
                format!("an unsigned integer (100 ns ticks) for Timestamp in `{FORM}`")
            )
        );
        assert_eq!(
            bad("1,,0,Read,0,4096,1\n"),
            e("1,,0,Read,0,4096,1", format!("a host name for Hostname in `{FORM}`"))
        );
    }
}
