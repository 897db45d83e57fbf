//! Writing traces: libCacheSim's oracle-general binary form and pagelab's CSV, plus the next-access times
//! an oracle trace (and the OPT policy) needs.
//!
//! - [`OracleWriter`] writes 24-byte records; `next` goes out 1-based as libCacheSim numbers requests (see
//!   [`crate::formats::oracle`]). [`write_oracle_general`] converts any trace: it must see the whole trace
//!   before writing the first record (the next-access times come from a reverse pass), so it holds 24
//!   bytes per request in memory — unless the source already carries next-access times, which it then
//!   streams through.
//! - [`CsvWriter`] writes `time_ns,addr,size,op,volume,stream` (`addr` in bytes) for block traces and
//!   `time_ns,id,size,op,volume,stream` for object traces, which `csv:pagelab` / `csv:pagelab-objects`
//!   (and `auto`) read back exactly. pagelab departs here from a bare `time_ns,addr,size,op`: without the
//!   volume and stream columns, multi-volume traces (MSR, SPC, blkparse) would not survive a round trip.
//! - [`Output`] (from [`crate::output`]) is a file compressed by its extension (`.gz`, `.zst`, `.xz`),
//!   written beside its destination and renamed into place when finished, so that a failed conversion
//!   leaves no partial file and clobbers nothing.

use crate::error::TraceError;
use crate::formats::csv::{PAGELAB_HEADER, PAGELAB_OBJECTS_HEADER};
use crate::formats::oracle::RECORD_BYTES;
pub use crate::output::Output;
use crate::parse::TimeUnit;
use crate::request::{AddrUnit, Op, Request, NO_NEXT};
use crate::TraceReader;
use pagelab_core::hash::KeyMap;
use std::io::Write;
use std::path::PathBuf;

/// Requests pulled from a reader per batch while converting.
const BATCH_REQUESTS: usize = 4096;

/// For every position `t` of `keys`, the position of the next occurrence of `keys[t]`, or [`NO_NEXT`]
/// (one reverse pass with a hash map; what OPT and oracle-general traces need).
pub fn next_vtimes(keys: &[u64]) -> Vec<u64> {
    let mut next = vec![NO_NEXT; keys.len()];
    let mut seen: KeyMap<u64, u64> = KeyMap::default();
    for (t, &k) in keys.iter().enumerate().rev() {
        if let Some(later) = seen.insert(k, t as u64) {
            next[t] = later;
        }
    }
    next
}

/// Sets `next_vtime` of every request (0-based positions in `requests`), keyed by [`oracle_id`].
pub fn fill_next_vtimes(requests: &mut [Request]) -> Result<(), TraceError> {
    let keys: Vec<u64> = requests.iter().map(oracle_id).collect::<Result<_, _>>()?;
    for (r, next) in requests.iter_mut().zip(next_vtimes(&keys)) {
        r.next_vtime = next;
    }
    Ok(())
}

/// The object id a request gets in an oracle-general trace, which has no volume field: the address for
/// volume 0, else `volume << 48 | addr` (both must fit: volume < 2^16, addr < 2^48).
pub fn oracle_id(r: &Request) -> Result<u64, TraceError> {
    const ADDR_BITS: u32 = 48;
    if r.volume == 0 {
        return Ok(r.addr);
    }
    if r.volume >= 1 << (64 - ADDR_BITS) || r.addr >= 1 << ADDR_BITS {
        return Err(TraceError::invalid(
            "oracle-general output",
            format!(
                "volume {} address {} does not fit an id (volume < 2^16, address < 2^48)",
                r.volume, r.addr
            ),
        ));
    }
    Ok((r.volume as u64) << ADDR_BITS | r.addr)
}

/// One oracle-general record as pagelab sees it: `next_vtime` 0-based or [`NO_NEXT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OracleRecord {
    /// The clock field, in the trace's unit (it is not recorded in the file).
    pub time: u32,
    pub id: u64,
    pub size_bytes: u32,
    pub next_vtime: u64,
}

/// Writes oracle-general records.
pub struct OracleWriter<W: Write> {
    out: W,
    label: PathBuf,
    records: u64,
}

impl<W: Write> OracleWriter<W> {
    /// `label` names the output in errors.
    pub fn new(out: W, label: impl Into<PathBuf>) -> OracleWriter<W> {
        OracleWriter { out, label: label.into(), records: 0 }
    }

    /// Appends one record. Its `next_vtime` must be after its own position (0-based) or [`NO_NEXT`].
    pub fn write(&mut self, r: &OracleRecord) -> Result<(), TraceError> {
        let own = self.records;
        let next: i64 = if r.next_vtime == NO_NEXT {
            -1
        } else if r.next_vtime > own && r.next_vtime < i64::MAX as u64 {
            r.next_vtime as i64 + 1
        } else {
            return Err(TraceError::invalid(
                self.label.display().to_string(),
                format!("record {own} (0-based) has next access {} not after it", r.next_vtime),
            ));
        };
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[0..4].copy_from_slice(&r.time.to_le_bytes());
        bytes[4..12].copy_from_slice(&r.id.to_le_bytes());
        bytes[12..16].copy_from_slice(&r.size_bytes.to_le_bytes());
        bytes[16..24].copy_from_slice(&next.to_le_bytes());
        self.out.write_all(&bytes).map_err(|e| TraceError::io(&self.label, e))?;
        self.records += 1;
        Ok(())
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flushes and hands back the writer.
    pub fn finish(mut self) -> Result<W, TraceError> {
        self.out.flush().map_err(|e| TraceError::io(&self.label, e))?;
        Ok(self.out)
    }
}

/// How [`write_oracle_general`] converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OracleOptions {
    /// The unit of the clock field written (`time_ns / unit`, which must fit a u32).
    pub time_unit: TimeUnit,
    /// Give every object the size of its first request, as libCacheSim's `traceConv` does by default
    /// (`remove_size_change`): some simulators cannot handle objects that change size.
    pub keep_first_size: bool,
}

impl Default for OracleOptions {
    fn default() -> OracleOptions {
        OracleOptions { time_unit: TimeUnit::S, keep_first_size: false }
    }
}

/// Converts every request of `reader` to oracle-general on `out`; returns the number of records.
/// Ids are [`oracle_id`]s; next-access times are the reader's own if it has them, else computed.
pub fn write_oracle_general<W: Write>(
    reader: &mut dyn TraceReader,
    out: W,
    label: impl Into<PathBuf>,
    options: OracleOptions,
) -> Result<u64, TraceError> {
    let mut writer = OracleWriter::new(out, label);
    let label = writer.label.display().to_string();
    let record = |r: &Request, index: u64| -> Result<OracleRecord, TraceError> {
        let time = u32::try_from(r.time_ns / options.time_unit.unit_ns).map_err(|_| {
            TraceError::invalid(
                &label,
                format!("request {index}: time {} ns overflows the u32 clock field", r.time_ns),
            )
        })?;
        Ok(OracleRecord { time, id: oracle_id(r)?, size_bytes: r.size_bytes, next_vtime: r.next_vtime })
    };
    let mut first_size: KeyMap<u64, u32> = KeyMap::default();
    let mut fix_size = |rec: &mut OracleRecord| {
        if options.keep_first_size {
            rec.size_bytes = *first_size.entry(rec.id).or_insert(rec.size_bytes);
        }
    };
    let mut batch = Vec::with_capacity(BATCH_REQUESTS);
    if reader.has_next_vtime() {
        // Bounded by the trace: every pass consumes a batch.
        while reader.next_batch(&mut batch, BATCH_REQUESTS)? > 0 {
            for r in batch.drain(..) {
                let mut rec = record(&r, writer.records())?;
                fix_size(&mut rec);
                writer.write(&rec)?;
            }
        }
    } else {
        let mut records = Vec::new();
        while reader.next_batch(&mut batch, BATCH_REQUESTS)? > 0 {
            for r in batch.drain(..) {
                let mut rec = record(&r, records.len() as u64)?;
                fix_size(&mut rec);
                records.push(rec);
            }
        }
        let keys: Vec<u64> = records.iter().map(|r| r.id).collect();
        for (rec, next) in records.iter_mut().zip(next_vtimes(&keys)) {
            rec.next_vtime = next;
        }
        for rec in &records {
            writer.write(rec)?;
        }
    }
    let n = writer.records();
    writer.finish()?;
    Ok(n)
}

/// Writes pagelab's CSV.
pub struct CsvWriter<W: Write> {
    out: W,
    label: PathBuf,
    unit: AddrUnit,
    records: u64,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header for a trace of `unit` addresses.
    pub fn new(mut out: W, unit: AddrUnit, label: impl Into<PathBuf>) -> Result<CsvWriter<W>, TraceError> {
        let label = label.into();
        let header = match unit {
            AddrUnit::Bytes(_) => PAGELAB_HEADER,
            AddrUnit::Object => PAGELAB_OBJECTS_HEADER,
        };
        writeln!(out, "{header}").map_err(|e| TraceError::io(&label, e))?;
        Ok(CsvWriter { out, label, unit, records: 0 })
    }

    /// Appends one request (its address converted to bytes for block traces).
    pub fn write(&mut self, r: &Request) -> Result<(), TraceError> {
        let addr = match self.unit {
            AddrUnit::Object => r.addr,
            AddrUnit::Bytes(u) => r.addr.checked_mul(u as u64).ok_or_else(|| {
                TraceError::invalid(
                    self.label.display().to_string(),
                    format!("address {} · {u} overflows", r.addr),
                )
            })?,
        };
        let op = match r.op {
            Op::Read => 'R',
            Op::Write => 'W',
            Op::Other => 'O',
        };
        writeln!(self.out, "{},{addr},{},{op},{},{}", r.time_ns, r.size_bytes, r.volume, r.stream)
            .map_err(|e| TraceError::io(&self.label, e))?;
        self.records += 1;
        Ok(())
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flushes and hands back the writer.
    pub fn finish(mut self) -> Result<W, TraceError> {
        self.out.flush().map_err(|e| TraceError::io(&self.label, e))?;
        Ok(self.out)
    }
}

/// Converts every request of `reader` to pagelab CSV on `out`; returns the number of records.
pub fn write_csv<W: Write>(
    reader: &mut dyn TraceReader,
    out: W,
    label: impl Into<PathBuf>,
) -> Result<u64, TraceError> {
    let mut writer = CsvWriter::new(out, reader.addr_unit(), label)?;
    let mut batch = Vec::with_capacity(BATCH_REQUESTS);
    // Bounded by the trace: every pass consumes a batch.
    while reader.next_batch(&mut batch, BATCH_REQUESTS)? > 0 {
        for r in batch.drain(..) {
            writer.write(&r)?;
        }
    }
    let n = writer.records();
    writer.finish()?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::drain;
    use crate::{open_trace, OpenOptions};
    use proptest::prelude::*;
    use std::path::Path;

    fn reopen(path: &Path, format: &str) -> Vec<Request> {
        let mut r = open_trace(path.to_str().unwrap(), format, &OpenOptions::default()).unwrap();
        drain(r.as_mut()).unwrap()
    }

    #[test]
    fn next_vtimes_hand_worked() {
        assert_eq!(next_vtimes(&[1, 2, 1, 3, 2, 1]), vec![2, 4, 5, NO_NEXT, NO_NEXT, NO_NEXT]);
        assert_eq!(next_vtimes(&[]), Vec::<u64>::new());
    }

    #[test]
    fn oracle_ids_fold_volumes() {
        let mut r = Request::read(5, 0);
        assert_eq!(oracle_id(&r).unwrap(), 5);
        r.volume = 2;
        assert_eq!(oracle_id(&r).unwrap(), 2 << 48 | 5);
        r.addr = 1 << 48;
        assert!(oracle_id(&r).is_err());
    }

    #[test]
    fn the_writer_refuses_a_next_access_in_the_past() {
        let mut w = OracleWriter::new(Vec::new(), "mem");
        w.write(&OracleRecord { time: 0, id: 1, size_bytes: 0, next_vtime: 1 }).unwrap();
        let err = w.write(&OracleRecord { time: 0, id: 1, size_bytes: 0, next_vtime: 1 }).unwrap_err();
        assert_eq!(err.to_string(), "mem: record 1 (0-based) has next access 1 not after it");
    }

    #[test]
    fn compressed_round_trips_detect_compression_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("src.lis");
        std::fs::write(&source, "230027 8 0 0\n1842745 64 0 1\n216082 8 0 2\n").unwrap();
        let want = reopen(&source, "arc");
        for ext in ["csv.gz", "csv.zst", "csv.xz", "csv"] {
            let path = dir.path().join(format!("out.{ext}"));
            let mut out = Output::create(&path).unwrap();
            let mut reader = open_trace(source.to_str().unwrap(), "arc", &OpenOptions::default()).unwrap();
            assert_eq!(write_csv(reader.as_mut(), &mut out, &path).unwrap(), 3);
            out.finish().unwrap();
            let head = std::fs::read(&path).unwrap();
            let compression = crate::input::Compression::from_magic(&head);
            let expected = match ext {
                "csv.gz" => crate::input::Compression::Gzip,
                "csv.zst" => crate::input::Compression::Zstd,
                "csv.xz" => crate::input::Compression::Xz,
                _ => crate::input::Compression::None,
            };
            assert_eq!(compression, expected, "{ext}");
            // Renamed to a name that says nothing: compression and format come from the content.
            let renamed = dir.path().join(format!("renamed-{}", ext.replace('.', "-")));
            std::fs::rename(&path, &renamed).unwrap();
            let got = reopen(&renamed, "auto");
            // Sector addresses came back as byte addresses: the same bytes, so the same pages.
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((g.addr, g.size_bytes, g.op), (w.addr * 512, w.size_bytes, w.op), "{ext}");
            }
        }
    }

    #[test]
    fn oracle_conversion_computes_next_access_and_keeps_first_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("s.trace");
        std::fs::write(&source, "1\n2\n1\n3\n2\n1\n").unwrap();
        let out_path = dir.path().join("s.oracleGeneral.bin.zst");
        let mut out = Output::create(&out_path).unwrap();
        let mut reader = open_trace(source.to_str().unwrap(), "auto", &OpenOptions::default()).unwrap();
        assert_eq!(
            write_oracle_general(reader.as_mut(), &mut out, &out_path, OracleOptions::default()).unwrap(),
            6
        );
        out.finish().unwrap();
        let back = reopen(&out_path, "auto");
        let ids: Vec<u64> = back.iter().map(|r| r.addr).collect();
        let next: Vec<u64> = back.iter().map(|r| r.next_vtime).collect();
        assert_eq!(ids, vec![1, 2, 1, 3, 2, 1]);
        assert_eq!(next, vec![2, 4, 5, NO_NEXT, NO_NEXT, NO_NEXT]);

        // A sized trace: object 1 changes size; keep_first_size pins it to 512.
        let csv = dir.path().join("sized.csv");
        std::fs::write(&csv, "time_ns,id,size,op,volume,stream\n1000000,1,512,R,0,0\n2000000,1,4096,W,0,0\n")
            .unwrap();
        let mut buf = Vec::new();
        let mut reader = open_trace(csv.to_str().unwrap(), "auto", &OpenOptions::default()).unwrap();
        let options = OracleOptions { time_unit: TimeUnit::MS, keep_first_size: true };
        write_oracle_general(reader.as_mut(), &mut buf, "mem", options).unwrap();
        let sizes: Vec<u32> =
            buf.chunks(RECORD_BYTES).map(|c| u32::from_le_bytes(c[12..16].try_into().unwrap())).collect();
        let times: Vec<u32> =
            buf.chunks(RECORD_BYTES).map(|c| u32::from_le_bytes(c[0..4].try_into().unwrap())).collect();
        assert_eq!((sizes, times), (vec![512, 512], vec![1, 2]));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn csv_round_trips_any_request(
            reqs in prop::collection::vec(
                (any::<u64>(), 0u64..1 << 40, any::<u32>(), 0u8..3, 0..=pagelab_core::FileId::MAX, any::<u32>()),
                0..50,
            ),
        ) {
            let requests: Vec<Request> = reqs
                .iter()
                .map(|&(time_ns, addr, size_bytes, op, volume, stream)| Request {
                    time_ns,
                    addr,
                    size_bytes,
                    op: [Op::Read, Op::Write, Op::Other][op as usize],
                    volume,
                    stream,
                    next_vtime: NO_NEXT,
                })
                .collect();
            let dir = tempfile::tempdir().unwrap();
            for unit in [AddrUnit::Bytes(1), AddrUnit::Object] {
                let path = dir.path().join("rt.csv");
                let mut w = CsvWriter::new(Output::create(&path).unwrap(), unit, &path).unwrap();
                for r in &requests {
                    w.write(r).unwrap();
                }
                w.finish().unwrap().finish().unwrap();
                let preset = if unit == AddrUnit::Object { "csv:pagelab-objects" } else { "csv:pagelab" };
                prop_assert_eq!(&reopen(&path, preset), &requests);
                prop_assert_eq!(&reopen(&path, "auto"), &requests);
            }
        }

        #[test]
        fn oracle_round_trips_and_next_access_points_at_the_next_equal_id(
            ids in prop::collection::vec(0u64..20, 0..200),
        ) {
            let next = next_vtimes(&ids);
            let mut w = OracleWriter::new(Vec::new(), "mem");
            for (t, (&id, &n)) in ids.iter().zip(&next).enumerate() {
                w.write(&OracleRecord { time: t as u32, id, size_bytes: 0, next_vtime: n }).unwrap();
            }
            let bytes = w.finish().unwrap();
            prop_assert_eq!(bytes.len(), ids.len() * RECORD_BYTES);
            let (_d, path) = crate::testing::temp_trace("p.oracleGeneral", &bytes);
            let back = reopen(&path, "auto");
            for (t, r) in back.iter().enumerate() {
                prop_assert_eq!(r.addr, ids[t]);
                match ids[t + 1..].iter().position(|&k| k == ids[t]) {
                    Some(d) => prop_assert_eq!(r.next_vtime, (t + 1 + d) as u64),
                    None => prop_assert_eq!(r.next_vtime, NO_NEXT),
                }
            }
        }
    }
}
