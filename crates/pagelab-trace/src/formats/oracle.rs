//! libCacheSim's `oracleGeneral` binary traces: packed little-endian 24-byte records.
//!
//! Yang et al., libCacheSim (`traceReader/customizedReader/oracle/oracleGeneralBin.h`, written by
//! `traceConv`): `{u32 clock_time; u64 obj_id; u32 obj_size; i64 next_access_vtime}`, no header. The
//! next-access field is what makes the format "oracle": the virtual time of the next request to the same
//! object, counted from **1** (libCacheSim numbers requests 1, 2, ...), or -1 (also `i64::MAX`) for never.
//! pagelab's [`Request::next_vtime`] is the **0-based** index of that next request (the core's `vtime`
//! convention), so the reader subtracts one and [`crate::write::OracleWriter`] adds it back. A next-access
//! time at or before the record's own is a bad record: it is how a file written with 0-based (or
//! otherwise foreign) next times shows itself, and so is one that points past the trace's last record.
//!
//! Validation. The format has no header and no magic, so any bytes "parse": text given as oracle-general
//! would read as records claiming sizes near 4 GiB (a million pages each) and sizes, times and ids cannot
//! be checked by themselves, since any value is legitimate for them. What can be checked is the structure
//! the next-access field carries, and what real records look like:
//! - before the first record is handed out, the input must not look like text (every real record has NUL
//!   bytes, in the high bytes of its time, size or id; [`TEXT_CHECK_BYTES`] bytes without one are text),
//!   and at least one of its first [`PLAUSIBLE_RECORDS`] records must be well-formed (its next access after
//!   it and within the file, or at most 2^40 records ahead when the length is unknown). Either failure
//!   refuses the input as a whole, naming record 1, even with `skip_bad_lines`: it is not an
//!   oracle-general trace with a few bad records but no oracle-general trace at all;
//! - every record's next access must be after it and, when the input's length is known (a file), at or
//!   before its last record; when it is not known (a pipe, compressed input), the largest next access seen
//!   is checked against the record count at the end.
//!
//! Ids are objects (`AddrUnit::Object`) and every request is a read (the format has no op field).
//! libCacheSim's converters fix an object's size at its first appearance, which is why a block trace
//! converted to this form can disagree with its source on sizes.
//! The clock field's unit is not recorded in the file: seconds by default (libCacheSim's published traces),
//! `oracle-general:time-unit=us` etc. otherwise. A file whose length is not a multiple of 24 ends in a
//! truncated record, a bad record named by its 1-based record number.
//!
//! An uncompressed file is memory-mapped and decoded where it lies, as libCacheSim reads its binary traces:
//! copying it through `read` cost ~2.5 ns of the ~26 ns per request of `cachesim --stream` on P3
//! (BENCHMARKS.md). Compressed input, and anything that cannot be mapped (a pipe), is read in blocks of
//! 192 KiB and decoded in the buffer. The mapping is read-only and private to this reader; what it cannot
//! guard against is another process truncating the file while it is read, which ends the process with
//! SIGBUS instead of a bad-record error, as with any tool that maps its input.

use crate::error::TraceError;
use crate::input::{read_full, TraceBytes};
use crate::parse::TimeUnit;
use crate::request::{AddrUnit, Op, Request, NO_NEXT};
use crate::{PageExpander, TraceReader, KEYS_PER_CALL};
use std::io::Read;
use std::path::PathBuf;

/// Bytes per record.
pub const RECORD_BYTES: usize = 24;

/// Records per read: 192 KiB amortises the system calls and stays in L2 between the copy and the decode.
const BLOCK_RECORDS: usize = 1 << 13;

/// Bytes looked at for a NUL byte before the first record is handed out (see the module doc).
pub const TEXT_CHECK_BYTES: usize = 4096;

/// Records looked at for a well-formed one before the first record is handed out.
pub const PLAUSIBLE_RECORDS: usize = 64;

/// How far ahead a next access may point, for the plausibility check of an input of unknown length: 2^40
/// records is a 26 TB file.
const PLAUSIBLE_NEXT_DISTANCE: u64 = 1 << 40;

/// The expected form of a record.
pub const FORM: &str = "a 24-byte record (u32 time, u64 id, u32 size, i64 next access vtime from 1 or -1)";

/// Where the records come from.
enum Source {
    /// Read through `input` into `buf`, block by block.
    Streamed { input: Box<dyn Read + Send>, buf: Box<[u8]> },
    /// The whole file, mapped.
    Mapped(TraceBytes),
}

pub(crate) struct OracleGeneral {
    source: Source,
    path: PathBuf,
    /// Undecoded bytes are `bytes()[pos..filled]`.
    pos: usize,
    filled: usize,
    eof: bool,
    /// Records consumed so far (good, skipped or bad): the 1-based number of the last one.
    record_no: u64,
    time_unit: TimeUnit,
    skip_bad_lines: bool,
    skipped: u64,
    done: bool,
    records_hint: Option<u64>,
    /// The last valid next-access vtime (1-based): the record count when the input's length is known,
    /// else `u64::MAX` (then `max_next` is checked at the end).
    last: u64,
    /// Streamed input: the largest next access after its own record seen so far, and that record.
    max_next: (u64, u64),
    /// Whether the plausibility check (module doc) has run.
    checked: bool,
}

/// The fields of one record: (time, id, size in bytes, next).
#[inline(always)]
fn fields(r: &[u8; RECORD_BYTES]) -> (u32, u64, u32, i64) {
    let time = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
    let id = u64::from_le_bytes([r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]]);
    let size_bytes = u32::from_le_bytes([r[12], r[13], r[14], r[15]]);
    let next = i64::from_le_bytes([r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23]]);
    (time, id, size_bytes, next)
}

/// The next-access vtime of the record whose 1-based number is `record_no` and whose `next` field is
/// `next` (1-based, -1 or `i64::MAX` for never); `None` when it is not after the record or past `last`,
/// which makes the record bad.
#[inline(always)]
fn next_vtime_of(next: i64, record_no: u64, last: u64) -> Option<u64> {
    if next == -1 || next == i64::MAX {
        Some(NO_NEXT)
    } else if next > 0 && next as u64 > record_no && next as u64 <= last {
        Some(next as u64 - 1)
    } else {
        None
    }
}

/// Decodes one record whose 1-based number is `record_no`; `None` when its next-access time is not after
/// it (the caller builds the message on that cold path). A free function over a fixed-size array, so that
/// the batch loop compiles to straight-line loads with no aliasing through `self`.
#[inline(always)]
fn decode(r: &[u8; RECORD_BYTES], record_no: u64, last: u64, unit_ns: u64) -> Option<Request> {
    let (time, id, size_bytes, next) = fields(r);
    let next_vtime = next_vtime_of(next, record_no, last)?;
    let time_ns = time as u64 * unit_ns;
    Some(Request { time_ns, addr: id, size_bytes, op: Op::Read, volume: 0, stream: 0, next_vtime })
}

impl OracleGeneral {
    /// A reader of `input`, block by block. `records_hint` is the record count when the file is known
    /// uncompressed (`size / 24`).
    pub(crate) fn new(
        input: Box<dyn Read + Send>,
        path: PathBuf,
        time_unit: TimeUnit,
        skip_bad_lines: bool,
        records_hint: Option<u64>,
    ) -> OracleGeneral {
        let buf = vec![0u8; BLOCK_RECORDS * RECORD_BYTES].into_boxed_slice();
        Self::with_source(Source::Streamed { input, buf }, 0, path, time_unit, skip_bad_lines, records_hint)
    }

    /// A reader of a whole uncompressed file already in memory (mapped); refused when the file is not
    /// plausibly oracle-general (module doc).
    pub(crate) fn mapped(
        bytes: TraceBytes,
        path: PathBuf,
        time_unit: TimeUnit,
        skip_bad_lines: bool,
    ) -> Result<OracleGeneral, TraceError> {
        let len = bytes.as_slice().len();
        let hint = Some((len / RECORD_BYTES) as u64);
        let mut reader = Self::with_source(Source::Mapped(bytes), len, path, time_unit, skip_bad_lines, hint);
        reader.check_plausible()?;
        Ok(reader)
    }

    fn with_source(
        source: Source,
        filled: usize,
        path: PathBuf,
        time_unit: TimeUnit,
        skip_bad_lines: bool,
        records_hint: Option<u64>,
    ) -> OracleGeneral {
        let eof = matches!(source, Source::Mapped(_));
        OracleGeneral {
            source,
            path,
            pos: 0,
            filled,
            eof,
            record_no: 0,
            time_unit,
            skip_bad_lines,
            skipped: 0,
            done: false,
            records_hint,
            last: records_hint.unwrap_or(u64::MAX),
            max_next: (0, 0),
            checked: false,
        }
    }

    /// Refuses input that is not oracle-general at all (module doc), from the records buffered at its
    /// start. Runs once, before the first record is handed out.
    #[cold]
    fn check_plausible(&mut self) -> Result<(), TraceError> {
        self.checked = true;
        let head = &self.bytes()[..self.filled];
        let looked_at = &head[..head.len().min(TEXT_CHECK_BYTES)];
        let records: Vec<&[u8]> = head.chunks_exact(RECORD_BYTES).take(PLAUSIBLE_RECORDS).collect();
        let why = if !looked_at.is_empty() && !looked_at.contains(&0) {
            format!(
                "its first {} bytes hold no NUL byte, as text does and oracle-general records do not: is it a text \
                 trace? (name its format with --format)",
                looked_at.len()
            )
        } else if !records.is_empty()
            && !records.iter().enumerate().any(|(i, r)| {
                let record_no = i as u64 + 1;
                let next = fields((*r).try_into().expect("24 bytes")).3;
                next_vtime_of(next, record_no, self.last.min(record_no + PLAUSIBLE_NEXT_DISTANCE)).is_some()
            })
        {
            format!(
                "none of its first {} records has a next access after it and within the trace: it is not an \
                 oracle-general trace",
                records.len()
            )
        } else {
            return Ok(());
        };
        let first = records.first().copied().unwrap_or(looked_at);
        let text: Vec<String> = first.iter().take(RECORD_BYTES).map(|b| format!("{b:02x}")).collect();
        let err = TraceError::bad_record(&self.path, 1, &text.join(" "), format!("{FORM}; {why}"));
        self.done = true;
        Err(err)
    }

    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        match &self.source {
            Source::Streamed { buf, .. } => buf,
            Source::Mapped(bytes) => bytes.as_slice(),
        }
    }

    /// Offers up to `max` buffered records to `take`, each with its 1-based number, until `take` refuses one;
    /// consumes the records it took. Returns (records taken, whether it stopped at a refused record, which
    /// it leaves unconsumed).
    #[inline(always)]
    fn scan_buffered(
        &mut self,
        max: usize,
        mut take: impl FnMut(&[u8; RECORD_BYTES], u64) -> bool,
    ) -> (usize, bool) {
        let available = (self.filled - self.pos) / RECORD_BYTES;
        let n = available.min(max);
        let first = self.record_no + 1;
        let bytes = &self.bytes()[self.pos..self.pos + n * RECORD_BYTES];
        let mut good = 0;
        for (i, chunk) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
            if !take(chunk.try_into().expect("chunks of 24"), first + i as u64) {
                break;
            }
            good += 1;
        }
        self.pos += good * RECORD_BYTES;
        self.record_no += good as u64;
        (good, good < n)
    }

    /// Decodes up to `max` buffered records, handing each to `sink`; stops early at a bad one, which it
    /// leaves unconsumed for [`OracleGeneral::consume_bad`]. Returns (records decoded, whether it stopped at
    /// a bad record).
    #[inline(always)]
    fn decode_buffered(&mut self, max: usize, mut sink: impl FnMut(&Request)) -> (usize, bool) {
        let (unit_ns, last) = (self.time_unit.unit_ns, self.last);
        self.scan_buffered(max, |record, record_no| match decode(record, record_no, last, unit_ns) {
            Some(r) => {
                sink(&r);
                true
            }
            None => false,
        })
    }

    /// The fast path of [`TraceReader::next_page_keys`], for records that are one key each: hands the ids
    /// of up to `max` buffered records to `sink` while each is well-formed and at most `one_page_bytes`
    /// long, and returns how many. The record it stops at is left for the general path, which expands it
    /// into several pages or reports it as bad.
    #[inline(always)]
    fn one_page_keys(&mut self, max: usize, one_page_bytes: u64, mut sink: impl FnMut(u64)) -> usize {
        let last = self.last;
        let (good, _) = self.scan_buffered(max, |record, record_no| {
            let (_, id, size_bytes, next) = fields(record);
            let one_good_page =
                next_vtime_of(next, record_no, last).is_some() && size_bytes as u64 <= one_page_bytes;
            if one_good_page {
                sink(id);
            }
            one_good_page
        });
        good
    }

    /// Decodes up to `max` requests into `sink`, refilling and reporting bad records on the way; returns
    /// how many. The loop is bounded by `max` and by the input: a bad record (skipped) consumes input.
    #[inline(always)]
    fn pump(&mut self, max: usize, mut sink: impl FnMut(&Request)) -> Result<usize, TraceError> {
        let mut done = 0;
        while done < max && !self.done {
            if self.filled - self.pos < RECORD_BYTES && !self.refill()? {
                self.done = true;
                break;
            }
            let (n, stopped_at_bad) = self.decode_buffered(max - done, &mut sink);
            done += n;
            if stopped_at_bad {
                self.consume_bad()?;
            }
        }
        self.release_read();
        Ok(done)
    }

    /// Hands the mapped bytes already decoded back to the kernel (see [`TraceBytes::release_before`]).
    #[inline]
    fn release_read(&mut self) {
        if let Source::Mapped(bytes) = &mut self.source {
            bytes.release_before(self.pos);
        }
    }

    /// Consumes the bad record at `self.pos`: counted when skipping, else the error.
    #[cold]
    fn consume_bad(&mut self) -> Result<(), TraceError> {
        let r = &self.bytes()[self.pos..self.pos + RECORD_BYTES];
        let next = i64::from_le_bytes(r[16..24].try_into().expect("8 bytes"));
        let text: Vec<String> = r.iter().map(|b| format!("{b:02x}")).collect();
        self.pos += RECORD_BYTES;
        self.record_no += 1;
        let expected = if next > 0 && next as u64 > self.record_no {
            format!("{FORM}; next access vtime {next} is past the trace's last record, {}", self.last)
        } else {
            format!("{FORM}; next access vtime {next} is not after the record's own vtime {}", self.record_no)
        };
        self.bad(&text.join(" "), expected)
    }

    /// Makes at least one whole record available; `false` at the end of the input. A truncated final
    /// record is consumed and reported.
    fn refill(&mut self) -> Result<bool, TraceError> {
        let left = self.filled - self.pos;
        debug_assert!(left < RECORD_BYTES, "refill with a whole record buffered");
        if let Source::Streamed { input, buf } = &mut self.source {
            buf.copy_within(self.pos..self.filled, 0);
            self.pos = 0;
            self.filled = left;
            if !self.eof {
                // The record being read is the one after the last consumed.
                let n = read_full(input, &mut buf[left..])
                    .map_err(|(_, e)| TraceError::read(&self.path, self.record_no + 1, e))?;
                self.filled += n;
                self.eof = self.filled < buf.len();
                self.note_next_accesses();
            }
        }
        if !self.checked {
            self.check_plausible()?;
        }
        let left = self.filled - self.pos;
        if left >= RECORD_BYTES {
            return Ok(true);
        }
        if left > 0 {
            let tail = &self.bytes()[self.pos..self.filled];
            let text: Vec<String> = tail.iter().map(|b| format!("{b:02x}")).collect();
            let text = format!("{left} trailing bytes: {}", text.join(" "));
            self.pos = self.filled;
            self.record_no += 1;
            self.bad(&text, format!("{FORM}; the file ends inside this record"))?;
        }
        let (next, record) = self.max_next;
        if next > self.record_no {
            // Not skippable: the record was handed out before the trace's length was known.
            self.done = true;
            return Err(TraceError::bad_record(
                &self.path,
                record,
                &format!("next access vtime {next}"),
                format!(
                    "{FORM}; the trace ends at record {}, before this record's next access",
                    self.record_no
                ),
            ));
        }
        Ok(false)
    }

    /// Streamed input of unknown length: remembers the largest next access (after its own record) of the
    /// complete records just read, to check it against the record count at the end. Each record is seen
    /// once: the buffer starts at the first record not yet seen (refill moves a partial record, never a
    /// complete one, to the front).
    fn note_next_accesses(&mut self) {
        if self.last != u64::MAX {
            return; // checked record by record
        }
        let first = self.record_no + 1;
        let Source::Streamed { buf, .. } = &self.source else { return };
        for (i, r) in buf[..self.filled].chunks_exact(RECORD_BYTES).enumerate() {
            let next = fields(r.try_into().expect("24 bytes")).3;
            let record_no = first + i as u64;
            if next > 0 && next != i64::MAX && next as u64 > record_no && next as u64 > self.max_next.0 {
                self.max_next = (next as u64, record_no);
            }
        }
    }

    fn bad(&mut self, text: &str, expected: String) -> Result<(), TraceError> {
        if self.skip_bad_lines {
            self.skipped += 1;
            return Ok(());
        }
        self.done = true;
        Err(TraceError::bad_record(&self.path, self.record_no, text, expected))
    }
}

impl TraceReader for OracleGeneral {
    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Object
    }

    #[inline]
    fn next_request(&mut self) -> Result<Option<Request>, TraceError> {
        // Terminates with the input: every pass consumes a record or reaches the end.
        while !self.done {
            if self.filled - self.pos < RECORD_BYTES && !self.refill()? {
                break;
            }
            let record: &[u8; RECORD_BYTES] =
                self.bytes()[self.pos..self.pos + RECORD_BYTES].try_into().expect("24 bytes");
            if let Some(r) = decode(record, self.record_no + 1, self.last, self.time_unit.unit_ns) {
                self.pos += RECORD_BYTES;
                self.record_no += 1;
                return Ok(Some(r));
            }
            self.consume_bad()?;
        }
        self.done = true;
        Ok(None)
    }

    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        out.reserve(max.min(BLOCK_RECORDS));
        self.pump(max, |r| out.push(*r))
    }

    /// Keys straight from the records: no 40-byte `Request` is written and read back per record, which was
    /// ~4 ns of the ~25 ns per request of `cachesim --stream` on P3 (BENCHMARKS.md). A record of one page
    /// (every record under `--ignore-size`) goes through [`OracleGeneral::one_page_keys`], which reads
    /// only the id and checks the record; the general path expands larger objects and reports bad records.
    fn next_page_keys(
        &mut self,
        expander: &PageExpander,
        out: &mut Vec<u64>,
        max: usize,
    ) -> Result<usize, TraceError> {
        out.reserve(max.min(BLOCK_RECORDS));
        if expander.unit != AddrUnit::Object {
            return self.pump(max, |r| expander.for_each_page(r, |key, _| out.push(key)));
        }
        // `PageExpander::for_each_page` keys an object of at most one page by its id alone.
        let one_page_bytes = if expander.ignore_size { u64::MAX } else { expander.page_size as u64 };
        let before = out.len();
        let mut done = 0;
        // Bounded by `max`, by the keys (objects of many pages stop the call once KEYS_PER_CALL keys are
        // out) and by the input: every pass consumes a record or ends the input.
        while done < max && out.len() - before < KEYS_PER_CALL && !self.done {
            if self.filled - self.pos < RECORD_BYTES && !self.refill()? {
                self.done = true;
                break;
            }
            let room = (max - done).min(KEYS_PER_CALL - (out.len() - before));
            let n = self.one_page_keys(room, one_page_bytes, |key| out.push(key));
            done +=
                if n > 0 { n } else { self.pump(1, |r| expander.for_each_page(r, |key, _| out.push(key)))? };
        }
        self.release_read();
        Ok(done)
    }

    fn describe(&self) -> String {
        format!("oracle-general trace {}", self.path.display())
    }

    fn has_next_vtime(&self) -> bool {
        true
    }

    fn skipped_records(&self) -> u64 {
        self.skipped
    }

    fn requests_hint(&self) -> Option<u64> {
        self.records_hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{drain, read_bytes, temp_trace};
    use crate::{open_trace, OpenOptions};

    fn record(time: u32, id: u64, size: u32, next: i64) -> Vec<u8> {
        let mut b = Vec::with_capacity(RECORD_BYTES);
        b.extend_from_slice(&time.to_le_bytes());
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&size.to_le_bytes());
        b.extend_from_slice(&next.to_le_bytes());
        b
    }

    fn trace(records: &[(u32, u64, u32, i64)]) -> Vec<u8> {
        records.iter().flat_map(|&(t, i, s, n)| record(t, i, s, n)).collect()
    }

    #[test]
    fn records_decode_with_0_based_next_access() {
        // Requests 1..4 (libCacheSim's numbering): 7 is requested again at 3, 9 never, 7 then never.
        let bytes = trace(&[(10, 7, 512, 3), (11, 9, 4096, -1), (12, 7, 512, i64::MAX)]);
        let (got, skipped, _) =
            read_bytes("t.oracleGeneral.bin", &bytes, "oracle-general:time-unit=us", false).unwrap();
        let r = |time_ns, addr, size_bytes, next_vtime| Request {
            time_ns,
            addr,
            size_bytes,
            op: Op::Read,
            volume: 0,
            stream: 0,
            next_vtime,
        };
        assert_eq!(got, vec![r(10_000, 7, 512, 2), r(11_000, 9, 4096, NO_NEXT), r(12_000, 7, 512, NO_NEXT)]);
        assert_eq!(skipped, 0);
        let (default_unit, _, _) = read_bytes("t.oracleGeneral", &bytes, "auto", false).unwrap();
        assert_eq!(default_unit[0].time_ns, 10_000_000_000, "seconds by default");
    }

    #[test]
    fn a_truncated_final_record_is_named_by_number() {
        let mut bytes = trace(&[(1, 1, 0, -1), (2, 2, 0, -1)]);
        bytes.extend_from_slice(&[0xab; 7]);
        let (got, skipped, _) = read_bytes("t.bin", &bytes, "oracle-general", true).unwrap();
        assert_eq!((got.len(), skipped), (2, 1));
        let e = crate::testing::bad_record("t.bin", &bytes, "oracle-general");
        assert_eq!(
            e,
            (
                "t.bin".to_string(),
                3,
                "7 trailing bytes: ab ab ab ab ab ab ab".to_string(),
                format!("{FORM}; the file ends inside this record")
            )
        );
    }

    #[test]
    fn a_next_access_not_in_the_future_is_bad() {
        // Record 2 says its next access is request 2 — itself (a 0-based writer's mistake).
        let bytes = trace(&[(1, 1, 0, -1), (2, 5, 0, 2)]);
        let (_, line, text, expected) = crate::testing::bad_record("t.bin", &bytes, "oracle-general");
        assert_eq!(line, 2);
        assert_eq!(text, "02 00 00 00 05 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00");
        assert_eq!(expected, format!("{FORM}; next access vtime 2 is not after the record's own vtime 2"));
        // Past the last record (2 records: next access 3 does not exist).
        let bytes = trace(&[(1, 1, 0, -1), (2, 5, 0, 3)]);
        let (_, line, _, expected) = crate::testing::bad_record("t.bin", &bytes, "oracle-general");
        assert_eq!(line, 2);
        assert_eq!(expected, format!("{FORM}; next access vtime 3 is past the trace's last record, 2"));
    }

    /// Opens `bytes` as oracle-general from a file (mapped) and through a pipe-like stream (unknown length).
    fn open_both(bytes: &[u8], skip_bad_lines: bool) -> Vec<Result<Vec<Request>, TraceError>> {
        let (_d, path) = temp_trace("t.bin", bytes);
        let options = OpenOptions { skip_bad_lines, seed: None };
        let file = open_trace(path.to_str().unwrap(), "oracle-general", &options);
        let stream = crate::open_reader(
            Box::new(std::io::Cursor::new(bytes.to_vec())),
            &path,
            "oracle-general",
            &options,
        )
        .map(|(r, _)| r);
        [file, stream].into_iter().map(|r| r.and_then(|mut r| drain(r.as_mut()))).collect()
    }

    /// `bytes` is refused as a whole at record 1, with `why`, from a file and from a stream, skipping bad
    /// records or not.
    fn refused_at_record_1(bytes: &[u8], why: &str) {
        for skip in [false, true] {
            for result in open_both(bytes, skip) {
                let err = result.unwrap_err().to_string();
                assert!(err.contains("t.bin:1: bad record") && err.contains(why), "{err}");
            }
        }
    }

    #[test]
    fn text_is_refused_at_record_1_even_when_skipping() {
        refused_at_record_1(&b"230027 8 0 0\n1842745 64 0 1\n216082 8 0 2\n".repeat(10), "no NUL byte");
    }

    #[test]
    fn records_none_of_which_is_well_formed_are_refused_even_when_skipping() {
        // Every next access is before its record, or absurdly far past it.
        refused_at_record_1(
            &trace(&[(1, 1, 0, -5), (2, 2, 0, 1), (3, 3, 0, 1 << 50)]),
            "none of its first 3",
        );
    }

    #[test]
    fn a_stream_whose_next_access_outruns_its_end_is_refused_at_the_end() {
        // Plausible at the start (record 1 is fine), but record 2 points at record 9 of a 3-record trace.
        let bytes = trace(&[(1, 1, 0, -1), (2, 2, 0, 9), (3, 3, 0, -1)]);
        let [file, stream] = <[_; 2]>::try_from(open_both(&bytes, false)).ok().unwrap();
        assert!(file.unwrap_err().to_string().contains("t.bin:2: bad record"));
        let err = stream.unwrap_err().to_string();
        assert!(
            err.contains("t.bin:2: bad record `next access vtime 9`") && err.contains("ends at record 3"),
            "{err}"
        );
    }

    /// Two block boundaries, a bad record (next access in the past) between them and 7 trailing bytes.
    fn awkward_trace() -> (Vec<u8>, u64) {
        let n = BLOCK_RECORDS as u64 * 2 + 17;
        let bad = BLOCK_RECORDS as u64 + 3;
        let mut bytes: Vec<u8> = (0..n)
            .flat_map(|i| record(i as u32, i % 977, (i % 5) as u32 * 3000, if i == bad { 1 } else { -1 }))
            .collect();
        bytes.extend_from_slice(&[0xab; 7]);
        (bytes, n)
    }

    fn readers(bytes: &[u8]) -> (tempfile::TempDir, OracleGeneral, OracleGeneral) {
        let (dir, path) = temp_trace("t.bin", bytes);
        let file = std::fs::File::open(&path).unwrap();
        let mapped = crate::input::map_file(&file, &path).unwrap().expect("a regular file maps");
        let mapped = OracleGeneral::mapped(mapped, path.clone(), TimeUnit::S, true).unwrap();
        let zst = zstd::encode_all(bytes, 1).unwrap();
        let zpath = dir.path().join("t.bin.zst");
        std::fs::write(&zpath, zst).unwrap();
        let raw = crate::input::RawInput::open(zpath.to_str().unwrap()).unwrap();
        let (input, compression, _) = raw.decompress();
        assert_eq!(compression, crate::Compression::Zstd);
        let streamed = OracleGeneral::new(input, zpath, TimeUnit::S, true, None);
        (dir, mapped, streamed)
    }

    #[test]
    fn mapped_and_streamed_files_read_alike() {
        let (bytes, n) = awkward_trace();
        let (_dir, mut mapped, mut streamed) = readers(&bytes);
        assert_eq!(mapped.requests_hint(), Some(n));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        while mapped.next_batch(&mut a, 1000).unwrap() > 0 {}
        while streamed.next_batch(&mut b, 1000).unwrap() > 0 {}
        assert_eq!(a.len() as u64, n - 1, "the bad record is skipped");
        assert_eq!(a, b);
        assert_eq!((mapped.skipped_records(), streamed.skipped_records()), (2, 2), "bad record + tail");
    }

    /// All of `reader`'s page keys through `next_page_keys` in calls of at most 777 requests, and the
    /// request count.
    fn all_page_keys(reader: &mut OracleGeneral, expander: &PageExpander) -> (Vec<u64>, usize) {
        let mut keys = Vec::new();
        let mut total = 0;
        loop {
            let n = reader.next_page_keys(expander, &mut keys, 777).unwrap();
            if n == 0 {
                return (keys, total);
            }
            assert!(n <= 777);
            total += n;
        }
    }

    /// The one-page fast path and the general path (objects of several pages, the bad record, the truncated
    /// tail), mapped and streamed, with and without `--ignore-size`.
    #[test]
    fn page_keys_straight_from_the_records_equal_the_expanded_requests() {
        let (bytes, _) = awkward_trace();
        for ignore_size in [false, true] {
            let expander = PageExpander::new(AddrUnit::Object, 4096, ignore_size);
            let (_dir, mut mapped, mut streamed) = readers(&bytes);
            let (mut requests, mut via_requests) = (Vec::new(), Vec::new());
            let (_dir2, _, mut streamed_requests) = readers(&bytes);
            while streamed_requests.next_batch(&mut requests, 777).unwrap() > 0 {}
            for r in &requests {
                expander.for_each_page(r, |k, _| via_requests.push(k));
            }
            for reader in [&mut mapped, &mut streamed] {
                let (keys, total) = all_page_keys(reader, &expander);
                assert_eq!(total, requests.len(), "ignore_size {ignore_size}");
                assert_eq!(keys.len() > requests.len(), !ignore_size, "some requests span several pages");
                assert_eq!(keys, via_requests, "ignore_size {ignore_size}");
                assert_eq!(reader.skipped_records(), 2, "bad record + tail");
            }
        }
    }

    /// A mapped file longer than the release step is handed back as it is read, and still reads whole.
    #[test]
    fn a_long_mapped_file_is_released_as_it_is_read() {
        let n = 800_000u64; // 19.2 MB: two release steps
        let bytes: Vec<u8> = (0..n).flat_map(|i| record(i as u32, i ^ 0x5555, 4096, -1)).collect();
        let (_d, path) = temp_trace("long.bin", &bytes);
        let file = std::fs::File::open(&path).unwrap();
        let map = crate::input::map_file(&file, &path).unwrap().expect("a regular file maps");
        let mut reader = OracleGeneral::mapped(map, path, TimeUnit::S, false).unwrap();
        let (keys, total) = all_page_keys(&mut reader, &PageExpander::new(AddrUnit::Object, 4096, false));
        assert_eq!(total as u64, n);
        assert!(keys.iter().enumerate().all(|(i, &k)| k == i as u64 ^ 0x5555));
        let Source::Mapped(map) = &reader.source else { panic!("mapped") };
        assert_eq!(map.released_bytes(), 16 << 20, "two whole 8 MiB steps handed back");
    }

    #[test]
    fn batches_cross_block_boundaries() {
        let n = BLOCK_RECORDS as u64 * 2 + 17;
        let bytes: Vec<u8> = (0..n).flat_map(|i| record(i as u32, i * 3, 0, -1)).collect();
        let (_d, path) = temp_trace("big.oracleGeneral.bin", &bytes);
        let mut reader = open_trace(path.to_str().unwrap(), "auto", &OpenOptions::default()).unwrap();
        assert!(reader.has_next_vtime());
        assert_eq!(reader.requests_hint(), Some(n));
        let mut out = Vec::new();
        let mut calls = 0;
        while reader.next_batch(&mut out, 10_000).unwrap() > 0 {
            calls += 1;
        }
        assert_eq!(calls, n.div_ceil(10_000));
        assert_eq!(out.len() as u64, n);
        assert!(out
            .iter()
            .enumerate()
            .all(|(i, r)| r.addr == i as u64 * 3 && r.time_ns == i as u64 * 1_000_000_000));
        let mut single =
            open_trace(path.to_str().unwrap(), "oracle-general", &OpenOptions::default()).unwrap();
        assert_eq!(drain(single.as_mut()).unwrap(), out);
    }
}
