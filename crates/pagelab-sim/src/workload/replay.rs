//! Trace replay: the streams of a block (or page-id) trace as request handlers.
//!
//! DESIGN.md, "Workloads": "trace replay (block traces: each distinct process/stream id becomes a handler;
//! traces without ids replay as one handler)". This is how the traces DULO is evaluated on (papers/001,
//! Table 2: multi1, multi2, glimpse — shipped in `data/traces/lirs/`) drive the simulated server.
//!
//! **Loading.** The trace (a path or a `synth:` spec, in a named format or `auto`) is read once through
//! [`pagelab_trace::open_trace`] and kept in memory as one FIFO queue of compact records per stream:
//! [`RECORD_BYTES`] = 12 bytes per replayed request (first page, page count; the stream's volume is known
//! from its queue), up to twice that while loading because the queues grow by doubling. A trace of more
//! than [`ReplayOptions::requests_max`] requests (default [`REQUESTS_MAX_DEFAULT`] = 200 M, 2.4 GB of
//! records) is refused with [`ReplayError::TooLarge`] rather than exhausting memory.
//!
//! **Streams.** Each distinct `(volume, stream)` pair, in order of first appearance in the trace (any
//! operation), is one handler slot, so [`Workload::natural_concurrency`] is the number of streams (1 for
//! traces without ids: every request is `(0, 0)`). Slot `i` replays stream `i`'s requests in trace order, one
//! [`RequestProgram`] per trace request: a single [`Step::Read`] of the pseudo-file `FileId(0)` covering the
//! request's pages, page-aligned (several where it straddles the fold, or one read of each file it touches
//! when the trace is cut into files: below; writes likewise). [`Workload::next_request`] returns `None` once
//! the stream is exhausted; the server ends the run when every slot is. A pair none of whose requests is
//! replayed (only skipped writes) gets no slot.
//!
//! **Addresses.** `AddrUnit::Bytes(u)`: the request covers bytes `[addr·u, addr·u + size)` (size 0: one
//! byte), i.e. the pages `⌊addr·u / 4096⌋ ..= ⌊(addr·u + size − 1) / 4096⌋`. `AddrUnit::Object` (LIRS
//! ids, synthetic traces, oracle-general ids): the id is a page number, one page at byte `id·4096`.
//!
//! **Volumes.** The pseudo-disk holds the volumes one after another in increasing volume number: volume
//! `v`'s page 0 is the page after the highest page of the next lower-numbered volume present (so
//! `base(v) = Σ extent(w)` over the volumes `w < v` that occur, `extent` = highest page touched + 1; an
//! absent volume number takes no space). Extents count every request, skipped writes included, so that
//! a page has the same disk location whatever the write mode. [`Workload::block_device_pages`] is the
//! highest page + 1 of this placement.
//!
//! **Fold** (off by default; [`ReplayOptions::fold_pages`]): page numbers are taken modulo a device size
//! `D` in pages, for traces that address more than the simulated disk holds (cloudPhysicsIO's LBNs reach
//! 21 GB; the Cheetah 9LP holds 9.1 GB). Folding keeps every distance shorter than `D` — sequential runs
//! and short seeks survive — but distorts the rest: pages `D` apart become the same page (the working
//! set can shrink and hits rise), and long seeks become shorter (a jump across the fold point wraps
//! around). A request that straddles the fold point becomes two reads (the end of the device, then its
//! start). With folding on, `block_device_pages() = min(highest page + 1, D)`; a trace that fits is not
//! changed.
//!
//! **Files** (off by default; [`ReplayOptions::file_pages`], `simulate --file-size SIZE`, `file_size=` in the
//! spec). A block trace names disk addresses, not files, so by default the whole pseudo-disk is one file and
//! readahead runs across it: nothing stops a window at the end of a file the traced server read, and one
//! stream's readahead state spans everything it touched. An audit found LIRS multi1 replayed as 84 disk
//! requests and a single miss for 15,858 references (issue 12; the first row below). With a file size of `S`
//! pages the pseudo-disk `[0, block_device_pages())` — the folded one when folding is on, since that is the
//! disk the cache and the device address — is cut into consecutive files `FileId(0), FileId(1), ...` of `S`
//! pages, the last one shorter when `S` does not divide it. Disk page `p` is page `p mod S` of file
//! `⌊p / S⌋`, and the server places file `f` at LBN `f × S` ([`crate::layout::FileLayout::block_files`],
//! through [`Workload::block_file_pages`]), so every page keeps the disk location it has without files: the
//! disk sees the same addresses, and only the cache's files change — readahead stops at each file's EOF and
//! keeps its state per (stream, file), as a kernel's `file_ra_state` is per open file. A request that crosses
//! file boundaries becomes one step per file, in order (after the fold's split, if any). The files are at
//! most [`FILES_MAX`] = 2^23 (the regular file ids of a 24-bit page-key file field, whose upper half names
//! anonymous memory and swap): a file size that cuts the disk into more is refused
//! ([`ReplayError::TooManyFiles`], naming the smallest size that fits), as are 0 and sizes that are not whole
//! pages. The cut is blind to volumes: a file may straddle two volumes placed end to end (the rule stays one
//! formula, and a file's LBNs stay contiguous); choose a size that divides the volumes' extents where that
//! matters. A request crossing `k` boundaries costs `k + 1` steps, so tiny files make long programs (a 4 MiB
//! request over 4 KiB files is 1024 steps).
//!
//! No supported format carries a per-record file identity that maps to files: LIRS and ARC records are
//! page or block numbers; MSR's disk number, SPC's ASU, blkparse's device and the CSV `volume` column are
//! volumes (whole devices, already placed end to end above); blkparse's pid is a process (a stream, not a
//! file); oracle-general's object id with a size is an object of a cache trace (a CDN or key-value object,
//! replayed as one page: "Object sizes" below), not a file on a disk. So `--file-size` is the one
//! mechanism; a trace with file ids would want its own placement (a file per id, of its size).
//!
//! Measured (`pagelab simulate --trace data/traces/lirs/multi1.trace.gz`, the defaults: 512 MiB,
//! `linux-2.6` memory, Cheetah 9LP `hdd`, anticipatory; the prefetcher `linux`, 128 KiB, unless said):
//!
//! | files | hit ratio | misses + waits in flight | disk requests | pages read | mean request pages | simulated s (MiB/s) | s, `hdd:nocache` |
//! |---|---:|---:|---:|---:|---:|---:|---:|
//! | none (one pseudo-file) | 0.99470 | 1 + 83 | 84 | 2,606 | 31.0 | 0.689 (89.9) | 1.18 |
//! | 64 KiB | 0.96923 | 163 + 325 | 489 | 2,606 | 5.33 | 0.689 (90.0) | 3.58 |
//! | 256 KiB | 0.98758 | 41 + 156 | 204 | 2,606 | 12.8 | 0.689 (89.9) | 1.90 |
//! | 1 MiB | 0.99281 | 11 + 103 | 114 | 2,606 | 22.9 | 0.689 (89.9) | 1.36 |
//! | none, `--prefetch none` | 0.83567 | 2,606 + 0 | 2,606 | 2,606 | 1.00 | 0.688 (90.0) | 16.13 |
//!
//! Files move the replay toward the no-readahead case, but not far: 64 KiB files (16 pages, half the
//! 32-page window) go 16% of the way from 84 disk requests to 2,606 and from hit ratio 0.995 to 0.836,
//! 256 KiB files 5%, 1 MiB files 1%. The misses are exactly the files (163, 41, 11 = ⌈2,606 / S⌉): each
//! file's first read misses and readahead brings in the rest of it, so even at 64 KiB 94% of the pages
//! (2,443) are prefetched; every row reads the same 2,606 pages and uses every page it prefetched
//! (memory holds the whole trace). On the default disk the runtime does not move at all: the Cheetah
//! 9LP's own read-ahead serves a one-page sequential read in 0.25 ms against 8.2 ms for a 31-page one,
//! the same cost a page, and the disk is busy 95–100% in every row. With the drive's cache off
//! (`--device hdd:nocache`, last column) the request count is the cost: 64 KiB files triple the runtime
//! (1.18 s to 3.58 s), a sixth of the way to the 16.1 s of no readahead. The `--prefetch none` run is the
//! same with and without files (byte-identical JSON but for the spec): a one-page request never crosses a
//! file.
//!
//! **Writes.** [`WriteMode::Replay`] (the default) replays a write as a `write()` of the same pages
//! ([`Step::Write`]: the pages become dirty in the cache and pdflush or reclaim writes them back, as the
//! traced server's kernel did). [`WriteMode::Skip`] drops writes and counts them
//! ([`TraceReplay::skipped_writes`]) so that the caller can report them; never a silent skip.
//! [`WriteMode::Read`] replays a write as a read of the same pages (what pagelab did before it had a write
//! path, and what a read-only cache study wants). Other operations (flush, discard, ...) are replayed as
//! reads and counted ([`ReplayCounts::other_as_reads`]).
//!
//! Where pagelab departs from a faithful replay, and why:
//! - Timing: replay is closed-loop. A stream issues its next request as soon as the previous one
//!   completes; the trace's timestamps are not used (the server has no per-request arrival hook). Replay
//!   measures how fast the server serves the trace's streams, not the trace's original pacing.
//! - Object sizes: an object id is one page whatever its size (oracle-general records carry sizes, LIRS
//!   and synthetic traces do not). Ids are page numbers; a sized object would need an extent of its own,
//!   which would collide with the next id's page.
//! - One process that touches two volumes becomes two handlers (its requests to the two volumes lose
//!   their mutual order): a handler reads one pseudo-disk region.
//! - Files: without `--file-size` the whole trace is one file, so readahead crosses what were file
//!   boundaries on the traced server (a block trace does not record them); with it, the boundaries are
//!   every `S` pages, a uniform guess at the traced file system's files, not its real ones.

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
use pagelab_core::hash::KeyMap;
use pagelab_core::spec::Spec;
use pagelab_core::units::{parse_bytes_why, BytesError};
use pagelab_core::{FileId, PageKey, PAGE_SIZE_BYTES};
use pagelab_trace::{open_trace_as, AddrUnit, Op, OpenOptions, Request, TraceError, TraceReader};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Bytes of memory per replayed request (one queued record: first page, page count).
pub const RECORD_BYTES: usize = 12;

/// Default bound on the requests a trace may hold: 200 M requests are 2.4 GB of records.
pub const REQUESTS_MAX_DEFAULT: u64 = 200_000_000;

/// Most `(volume, stream)` pairs a trace may have: each becomes a request handler with server state.
pub const STREAMS_MAX: u32 = 1 << 16;

/// The keys of the `replay:` spec.
pub const KEYS: [&str; 8] =
    ["trace", "format", "writes", "fold", "file_size", "skip_bad_lines", "seed", "requests_max"];

/// Most files `file_size` may cut the pseudo-disk into: the regular file ids. A page key holds a 24-bit
/// file id, and its upper half names anonymous memory and swap ([`FileId::ANON_FIRST`]).
pub const FILES_MAX: u64 = FileId::ANON_FIRST as u64;

/// Requests asked of the reader at a time.
const BATCH_REQUESTS: usize = 4096;

/// The pseudo-disk is one file, and a page key holds at most this many pages of a file.
const PSEUDO_DISK_PAGES_MAX: u64 = PageKey::INDEX_MAX + 1;

/// What happens to a trace's writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteMode {
    /// Replayed as writes of the same pages.
    #[default]
    Replay,
    /// Not replayed; counted ([`TraceReplay::skipped_writes`]).
    Skip,
    /// Replayed as reads of the same pages.
    Read,
}

impl WriteMode {
    pub const NAMES: &'static str = "replay, skip or read";

    /// `replay`, `skip` or `read`.
    pub fn parse(text: &str) -> Option<WriteMode> {
        match text.to_ascii_lowercase().as_str() {
            "replay" => Some(WriteMode::Replay),
            "skip" => Some(WriteMode::Skip),
            "read" => Some(WriteMode::Read),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WriteMode::Replay => "replay",
            WriteMode::Skip => "skip",
            WriteMode::Read => "read",
        }
    }
}

/// How to replay a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    /// A trace path, or a `synth:KIND?...` spec.
    pub trace: String,
    /// A format name `pagelab_trace::Format::parse` accepts; `auto` detects it from the file.
    pub format: String,
    /// Fold page numbers modulo this many pages (the simulated disk's size); `None`: no folding.
    pub fold_pages: Option<u64>,
    /// Cut the (folded) pseudo-disk into files of this many pages (at least 1); `None`: one pseudo-file.
    pub file_pages: Option<u64>,
    pub writes: WriteMode,
    /// Skip malformed records and count them ([`ReplayCounts::skipped_bad_records`]).
    pub skip_bad_lines: bool,
    /// The seed of synthetic traces whose spec has no `seed=` (the run's seed).
    pub seed: Option<u64>,
    /// Refuse traces of more requests than this (every request is kept in memory).
    pub requests_max: u64,
}

impl ReplayOptions {
    /// `trace` in format `auto`, no folding, writes skipped, bad lines an error.
    pub fn new(trace: impl Into<String>) -> ReplayOptions {
        ReplayOptions {
            trace: trace.into(),
            format: "auto".into(),
            fold_pages: None,
            file_pages: None,
            writes: WriteMode::Replay,
            skip_bad_lines: false,
            seed: None,
            requests_max: REQUESTS_MAX_DEFAULT,
        }
    }

    /// Parses `replay:trace=PATH[,format=F][,writes=replay|skip|read][,fold=false|true|SIZE]
    /// [,file_size=off|SIZE][,skip_bad_lines=BOOL][,seed=N][,requests_max=N]`. `fold=true` folds to
    /// `device_pages` (the simulated disk's size in pages); `file_size` is `simulate --file-size` (a
    /// positive multiple of the 4 KiB page, e.g. `256KiB`); `seed` defaults to `run_seed`. A path must
    /// contain neither `,` nor `=`; CSV formats with column lists (which contain commas) need
    /// [`ReplayOptions`] built directly.
    pub fn from_spec(
        text: &str,
        device_pages: u64,
        run_seed: Option<u64>,
    ) -> Result<ReplayOptions, ReplayError> {
        let bad = |why: String| ReplayError::Spec(format!("workload `{}`: {why}", text.trim()));
        let core = |e: pagelab_core::CoreError| ReplayError::Spec(e.to_string());
        let spec = Spec::parse(text).map_err(core)?;
        if spec.name != "replay" {
            return Err(bad("expected `replay:trace=PATH,...`".into()));
        }
        let trace = spec
            .string("trace")
            .ok_or_else(|| bad("missing `trace=PATH` (a file or a synth: spec)".into()))?;
        let mut o = ReplayOptions::new(trace);
        if let Some(format) = spec.string("format") {
            o.format = format;
        }
        if let Some(w) = spec.string("writes") {
            o.writes = WriteMode::parse(&w)
                .ok_or_else(|| bad(format!("writes=`{w}`: expected {}", WriteMode::NAMES)))?;
        }
        if let Some(f) = spec.string("fold") {
            o.fold_pages = parse_fold(&f, device_pages).map_err(|e| bad(e.to_string()))?;
        }
        if let Some(f) = spec.string("file_size") {
            o.file_pages = match f.to_ascii_lowercase().as_str() {
                "off" | "false" | "no" | "none" => None,
                _ => Some(parse_file_size(&f).map_err(|e| bad(format!("file_size={e}")))?),
            };
        }
        o.skip_bad_lines = spec.bool("skip_bad_lines", false).map_err(core)?;
        o.seed = match spec.string("seed") {
            None => run_seed,
            Some(s) => Some(s.parse().map_err(|_| bad(format!("seed=`{s}`: expected a whole number")))?),
        };
        o.requests_max = spec.u64("requests_max", REQUESTS_MAX_DEFAULT).map_err(core)?;
        spec.finish(&KEYS).map_err(core)?;
        Ok(o)
    }
}

/// `true`/`false` (and the other spellings `Spec::bool` takes), or a size in bytes that is a positive
/// multiple of the page.
fn parse_fold(text: &str, device_pages: u64) -> Result<Option<u64>, SimError> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => return Ok(Some(device_pages)),
        "false" | "no" | "off" => return Ok(None),
        _ => {}
    }
    let what = || format!("fold=`{text}`");
    let bytes = parse_bytes_why(text).map_err(|e| match e {
        BytesError::NotASize(_) => SimError::invalid(what(), "expected true, false or a size like 9GiB"),
        // A size whose value does not fit: that, not "expected a size".
        e => SimError::invalid(what(), e.to_string()),
    })?;
    if bytes == 0 || !bytes.is_multiple_of(PAGE_SIZE_BYTES) {
        return Err(SimError::invalid(
            what(),
            format!("{bytes} B is not a positive multiple of the {PAGE_SIZE_BYTES} B page"),
        ));
    }
    Ok(Some(bytes / PAGE_SIZE_BYTES))
}

/// A `--file-size` / `file_size=` value in pages: a size in bytes (units allowed, `256KiB`) that is a
/// positive multiple of the page. The error quotes the text (`` `6KiB` ``) and says what was expected; the
/// caller names the flag or key around it.
pub fn parse_file_size(text: &str) -> Result<u64, SimError> {
    let what = || format!("`{text}`");
    let bytes = parse_bytes_why(text).map_err(|e| match e {
        BytesError::NotASize(_) => SimError::invalid(what(), "expected a size like 256KiB"),
        // A size whose value does not fit: that, not "expected a size".
        e => SimError::invalid(what(), e.to_string()),
    })?;
    if bytes == 0 || !bytes.is_multiple_of(PAGE_SIZE_BYTES) {
        return Err(SimError::invalid(
            what(),
            format!("{bytes} B is not a positive multiple of the {PAGE_SIZE_BYTES} B page (files are whole pages)"),
        ));
    }
    Ok(bytes / PAGE_SIZE_BYTES)
}

/// Why a trace cannot be replayed. Every message names the trace.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The trace itself: unreadable, unknown format, a bad record (the message names file and line).
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A bad `replay:` spec.
    #[error("{0}")]
    Spec(String),
    #[error(
        "{trace}: no requests to replay ({skipped_writes} writes skipped; `writes=replay` replays them)"
    )]
    Empty { trace: String, skipped_writes: u64 },
    #[error(
        "{trace}: more than {requests_max} requests; replay keeps every request in memory ({RECORD_BYTES} \
         bytes each): raise `requests_max` or cut the trace"
    )]
    TooLarge { trace: String, requests_max: u64 },
    #[error("{trace}: more than {STREAMS_MAX} (volume, stream) pairs; each would be a request handler")]
    TooManyStreams { trace: String },
    /// A request whose address cannot be placed (`request_no` is 1-based among the requests read).
    #[error("{trace}: request {request_no}: {why}")]
    Address { trace: String, request_no: u64, why: String },
    /// The placement as a whole does not fit (too large a pseudo-disk, too small a fold).
    #[error("{trace}: {why}")]
    Layout { trace: String, why: String },
    /// `file_size` cuts the pseudo-disk into more files than there are file ids.
    #[error(
        "{trace}: files of {} B cut the {device_pages}-page ({} B) pseudo-disk into {files} files, more \
         than the {FILES_MAX} file ids; the file size must be at least {} B",
        file_pages * PAGE_SIZE_BYTES,
        device_pages * PAGE_SIZE_BYTES,
        device_pages.div_ceil(FILES_MAX) * PAGE_SIZE_BYTES
    )]
    TooManyFiles { trace: String, file_pages: u64, device_pages: u64, files: u64 },
}

/// What loading the trace counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReplayCounts {
    /// Requests the reader returned.
    pub requests_read: u64,
    /// Requests replayed: reads, other operations, and writes under [`WriteMode::Read`].
    pub requests: u64,
    /// Writes dropped under [`WriteMode::Skip`].
    pub skipped_writes: u64,
    /// Writes replayed as reads under [`WriteMode::Read`].
    pub writes_as_reads: u64,
    /// Writes replayed as writes under [`WriteMode::Replay`].
    pub writes_replayed: u64,
    /// Requests of other operations (flush, discard, ...) replayed as reads.
    pub other_as_reads: u64,
    /// Malformed records the reader skipped (only with `skip_bad_lines`).
    pub skipped_bad_records: u64,
}

/// One replayed request: volume-relative first page, page count and whether it writes (the count's top
/// bit). Packed to 4-byte alignment so that a record costs 12 bytes, not 16.
#[derive(Clone, Copy, Debug)]
#[repr(C, packed(4))]
struct Record {
    first_page: u64,
    pages_and_write: u32,
}

impl Record {
    const WRITE: u32 = 1 << 31;

    /// Caller guarantees `pages < 2^31` ([`span`] gives at most 2^20 + 1).
    fn new(first_page: u64, pages: u32, write: bool) -> Record {
        assert!(pages < Record::WRITE, "a request of {pages} pages");
        Record { first_page, pages_and_write: pages | if write { Record::WRITE } else { 0 } }
    }

    fn pages(self) -> u32 {
        self.pages_and_write & !Record::WRITE
    }

    fn write(self) -> bool {
        self.pages_and_write & Record::WRITE != 0
    }
}

const _: () = assert!(std::mem::size_of::<Record>() == RECORD_BYTES);

/// One `(volume, stream)` pair of the trace: a handler slot.
#[derive(Debug)]
struct Stream {
    volume: u32,
    id: u32,
    /// Where the volume starts on the pseudo-disk (set once every volume's extent is known).
    base_page: u64,
    /// One past the highest volume-relative page this pair's requests touch, skipped writes included.
    end_page: u64,
    records: Vec<Record>,
    /// The next record to hand out; `records.len()` when exhausted.
    next: usize,
}

/// Reads the trace into per-stream queues.
struct Loader<'a> {
    trace: &'a str,
    unit: AddrUnit,
    writes: WriteMode,
    streams: Vec<Stream>,
    index_of: KeyMap<u64, u32>,
    /// The last `(key, index)` looked up: requests come in runs of one stream, and this skips the hash.
    last: Option<(u64, u32)>,
    counts: ReplayCounts,
    pages_max: u32,
}

impl<'a> Loader<'a> {
    fn new(trace: &'a str, unit: AddrUnit, writes: WriteMode) -> Loader<'a> {
        Loader {
            trace,
            unit,
            writes,
            streams: Vec::new(),
            index_of: KeyMap::default(),
            last: None,
            counts: ReplayCounts::default(),
            pages_max: 0,
        }
    }

    fn add(&mut self, r: &Request) -> Result<(), ReplayError> {
        self.counts.requests_read += 1;
        let request_no = self.counts.requests_read;
        let address = |why: String| ReplayError::Address { trace: self.trace.to_string(), request_no, why };
        let (first_page, pages) = span(self.unit, r).map_err(|e| address(e.to_string()))?;
        let end_page = first_page
            .checked_add(pages as u64)
            .ok_or_else(|| address(format!("page {first_page} + {pages} overflows a 64-bit page number")))?;
        let replay = match (r.op, self.writes) {
            (Op::Read, _) => true,
            (Op::Write, WriteMode::Replay) => {
                self.counts.writes_replayed += 1;
                true
            }
            (Op::Write, WriteMode::Skip) => {
                self.counts.skipped_writes += 1;
                false
            }
            (Op::Write, WriteMode::Read) => {
                self.counts.writes_as_reads += 1;
                true
            }
            (Op::Other, _) => {
                self.counts.other_as_reads += 1;
                true
            }
        };
        let index = self.stream_index(r.volume, r.stream)?;
        let s = &mut self.streams[index as usize];
        s.end_page = s.end_page.max(end_page);
        if replay {
            let write = r.op == Op::Write && self.writes == WriteMode::Replay;
            s.records.push(Record::new(first_page, pages, write));
            self.counts.requests += 1;
            self.pages_max = self.pages_max.max(pages);
        }
        Ok(())
    }

    /// The queue of `(volume, id)`, created at its first appearance.
    fn stream_index(&mut self, volume: u32, id: u32) -> Result<u32, ReplayError> {
        let key = ((volume as u64) << 32) | id as u64;
        if let Some((k, i)) = self.last {
            if k == key {
                return Ok(i);
            }
        }
        let fresh = self.streams.len() as u32;
        let index = *self.index_of.entry(key).or_insert(fresh);
        if index == fresh {
            if fresh == STREAMS_MAX {
                return Err(ReplayError::TooManyStreams { trace: self.trace.to_string() });
            }
            self.streams.push(Stream { volume, id, base_page: 0, end_page: 0, records: Vec::new(), next: 0 });
        }
        self.last = Some((key, index));
        Ok(index)
    }

    /// Places the volumes, drops pairs with nothing to replay, and checks the result.
    fn finish(mut self, fold_pages: Option<u64>, file_pages: Option<u64>) -> Result<Placed, ReplayError> {
        let layout = |why: String| ReplayError::Layout { trace: self.trace.to_string(), why };
        let queued: u64 = self.streams.iter().map(|s| s.records.len() as u64).sum();
        assert_eq!(queued, self.counts.requests, "every replayed request is queued exactly once");
        assert_eq!(
            self.counts.requests_read,
            self.counts.requests + self.counts.skipped_writes,
            "every request read is replayed or counted as skipped"
        );
        if self.counts.requests == 0 {
            return Err(ReplayError::Empty {
                trace: self.trace.to_string(),
                skipped_writes: self.counts.skipped_writes,
            });
        }
        let mut extents: BTreeMap<u32, u64> = BTreeMap::new();
        for s in &self.streams {
            let e = extents.entry(s.volume).or_default();
            *e = (*e).max(s.end_page);
        }
        // Volumes end to end in volume order; the map holds one entry per volume, so this is bounded.
        let mut bases: BTreeMap<u32, u64> = BTreeMap::new();
        let mut total_pages: u64 = 0;
        for (&volume, &extent) in &extents {
            bases.insert(volume, total_pages);
            total_pages = total_pages.checked_add(extent).ok_or_else(|| {
                layout("the volumes placed end to end overflow 64-bit page numbers".to_string())
            })?;
        }
        for s in self.streams.iter_mut() {
            s.base_page = bases[&s.volume];
        }
        self.streams.retain(|s| !s.records.is_empty());
        let device_pages = match fold_pages {
            None if total_pages > PSEUDO_DISK_PAGES_MAX => {
                return Err(layout(format!(
                "the trace spans {total_pages} pages, more than the {PSEUDO_DISK_PAGES_MAX} pages a block \
                     pseudo-file can address; fold it onto the simulated disk (`fold=true`)"
            )))
            }
            None => total_pages,
            Some(d) => {
                check_fold(d, self.pages_max).map_err(|e| layout(e.to_string()))?;
                total_pages.min(d)
            }
        };
        if let Some(size) = file_pages {
            // Files cut the disk the cache sees, folded or not: the folded disk is the one whose pages
            // the cache and the device address.
            if size == 0 {
                return Err(layout("files of 0 pages: the file size must be at least one page".into()));
            }
            let files = device_pages.div_ceil(size);
            if files > FILES_MAX {
                return Err(ReplayError::TooManyFiles {
                    trace: self.trace.to_string(),
                    file_pages: size,
                    device_pages,
                    files,
                });
            }
        }
        Ok(Placed { streams: self.streams, counts: self.counts, device_pages, trace_pages: total_pages })
    }
}

/// A fold size must be addressable and hold the largest request.
fn check_fold(fold_pages: u64, pages_max: u32) -> Result<(), SimError> {
    if fold_pages == 0 || fold_pages > PSEUDO_DISK_PAGES_MAX {
        return Err(SimError::invalid(
            format!("fold size {fold_pages} pages"),
            format!("expected 1..={PSEUDO_DISK_PAGES_MAX} pages"),
        ));
    }
    if (pages_max as u64) > fold_pages {
        return Err(SimError::invalid(
            format!("a request of {pages_max} pages"),
            format!("expected the largest request to fit the {fold_pages}-page folded disk"),
        ));
    }
    Ok(())
}

/// The loaded trace.
struct Placed {
    streams: Vec<Stream>,
    counts: ReplayCounts,
    device_pages: u64,
    trace_pages: u64,
}

/// The volume-relative first page and page count of a request.
fn span(unit: AddrUnit, r: &Request) -> Result<(u64, u32), SimError> {
    let overflow = |what: String| SimError::invalid(what, "expected a byte offset below 2^64");
    match unit {
        AddrUnit::Object => Ok((r.addr, 1)),
        AddrUnit::Bytes(u) => {
            let start = r
                .addr
                .checked_mul(u as u64)
                .ok_or_else(|| overflow(format!("address {} × {u} B", r.addr)))?;
            let end = start
                .checked_add((r.size_bytes as u64).max(1))
                .ok_or_else(|| overflow(format!("byte {start} + {} B", r.size_bytes)))?;
            let first = start / PAGE_SIZE_BYTES;
            let pages = end.div_ceil(PAGE_SIZE_BYTES) - first;
            // A u32 size covers at most 2^20 + 1 pages.
            Ok((first, u32::try_from(pages).expect("a u32-byte request spans fewer than 2^32 pages")))
        }
    }
}

/// The format `open_trace` will read `trace` as, by name, for the description.
/// `replay:trace=...,format=...,writes=...,fold=off|BYTES[,file_size=BYTES][,skip_bad_lines=true]`: a spec
/// [`ReplayOptions::from_spec`] reads back (for traces and formats without commas).
fn describe(shown_trace: &str, options: &ReplayOptions) -> String {
    let fold = match options.fold_pages {
        None => "off".to_string(),
        Some(d) => format!("{}B", d * PAGE_SIZE_BYTES),
    };
    let mut text = format!(
        "replay:trace={shown_trace},format={},writes={},fold={fold}",
        options.format,
        options.writes.name()
    );
    // Only when set, so that the description of a replay without files is what it was before files.
    if let Some(size) = options.file_pages {
        text.push_str(&format!(",file_size={}B", size * PAGE_SIZE_BYTES));
    }
    if options.skip_bad_lines {
        text.push_str(",skip_bad_lines=true");
    }
    text
}

/// A trace's streams as a [`Workload`].
#[derive(Debug)]
pub struct TraceReplay {
    description: String,
    /// Slot `i` is `streams[i]`.
    streams: Vec<Stream>,
    fold_pages: Option<u64>,
    file_pages: Option<u64>,
    device_pages: u64,
    trace_pages: u64,
    counts: ReplayCounts,
    /// Requests handed out so far, over every slot.
    handed_out: u64,
}

impl TraceReplay {
    /// Opens `options.trace` and reads it whole.
    pub fn open(options: &ReplayOptions) -> Result<TraceReplay, ReplayError> {
        let open = OpenOptions { skip_bad_lines: options.skip_bad_lines, seed: options.seed };
        // Opened once, the format detected from the same read: a pipe cannot be read twice.
        let (mut reader, format) = open_trace_as(&options.trace, &options.format, &open)?;
        let format = format.to_string();
        TraceReplay::from_reader(reader.as_mut(), &ReplayOptions { format, ..options.clone() })
    }

    /// Reads `reader` whole; `options.trace` and `options.format` only name it (in the description and
    /// the errors); `skip_bad_lines` and `seed` are the reader's business.
    pub fn from_reader(
        reader: &mut dyn TraceReader,
        options: &ReplayOptions,
    ) -> Result<TraceReplay, ReplayError> {
        let trace = options.trace.as_str();
        let mut loader = Loader::new(trace, reader.addr_unit(), options.writes);
        let mut batch: Vec<Request> = Vec::with_capacity(BATCH_REQUESTS);
        // Every pass reads at least one request or ends; more than `requests_max` requests is an error.
        let mut finished = false;
        for _ in 0..=options.requests_max.saturating_add(1) {
            batch.clear();
            if reader.next_batch(&mut batch, BATCH_REQUESTS)? == 0 {
                finished = true;
                break;
            }
            if loader.counts.requests_read + batch.len() as u64 > options.requests_max {
                return Err(ReplayError::TooLarge {
                    trace: trace.to_string(),
                    requests_max: options.requests_max,
                });
            }
            for r in &batch {
                loader.add(r)?;
            }
        }
        assert!(finished, "the reader returned requests past the request bound");
        let mut placed = loader.finish(options.fold_pages, options.file_pages)?;
        placed.counts.skipped_bad_records = reader.skipped_records();
        // Synthetic traces describe themselves canonically (every parameter, the seed included).
        let shown = if trace.starts_with("synth:") { reader.describe() } else { trace.to_string() };
        let description = describe(&shown, options);
        Ok(TraceReplay {
            description,
            streams: placed.streams,
            fold_pages: options.fold_pages,
            file_pages: options.file_pages,
            device_pages: placed.device_pages,
            trace_pages: placed.trace_pages,
            counts: placed.counts,
            handed_out: 0,
        })
    }

    /// Writes not replayed ([`WriteMode::Skip`]): for the caller to report.
    pub fn skipped_writes(&self) -> u64 {
        self.counts.skipped_writes
    }

    pub fn counts(&self) -> ReplayCounts {
        self.counts
    }

    /// The `(volume, stream)` pair slot `slot` replays. Caller guarantees `slot < streams`.
    pub fn stream_of(&self, slot: u32) -> (u32, u32) {
        let s = &self.streams[slot as usize];
        (s.volume, s.id)
    }

    /// Requests slot `slot` has yet to hand out. Caller guarantees `slot < streams`.
    pub fn remaining(&self, slot: u32) -> u64 {
        let s = &self.streams[slot as usize];
        (s.records.len() - s.next) as u64
    }

    /// Pages the trace spans before folding (the volumes end to end).
    pub fn trace_pages(&self) -> u64 {
        self.trace_pages
    }

    /// The program of a request at pseudo-disk page `page`: one read or write per piece of the request,
    /// which is cut where it straddles the fold and then at every file boundary it crosses.
    fn program(&self, page: u64, pages: u32, write: bool) -> RequestProgram {
        let pages = pages as u64;
        let mut steps = Vec::with_capacity(1);
        match self.fold_pages {
            None => self.push_steps(&mut steps, page, pages, write),
            Some(d) => {
                let start = page % d;
                let head = pages.min(d - start);
                self.push_steps(&mut steps, start, head, write);
                if head < pages {
                    self.push_steps(&mut steps, 0, pages - head, write);
                }
            }
        }
        RequestProgram { steps }
    }

    /// The steps of `n` pages from pseudo-disk page `first`: one per file they lie in (one step of
    /// [`FileId::BLOCK_DEVICE`] without files).
    fn push_steps(&self, steps: &mut Vec<Step>, first: u64, n: u64, write: bool) {
        assert!(n >= 1 && first + n <= self.device_pages, "I/O [{first}, +{n}) beyond the pseudo-disk");
        let step = |file: FileId, page: u64, n: u64| {
            let (offset_bytes, len_bytes) = (page * PAGE_SIZE_BYTES, n * PAGE_SIZE_BYTES);
            if write {
                Step::Write { file, offset_bytes, len_bytes }
            } else {
                Step::Read { file, offset_bytes, len_bytes }
            }
        };
        let Some(size) = self.file_pages else {
            steps.push(step(FileId::BLOCK_DEVICE, first, n));
            return;
        };
        let (mut at, end) = (first, first + n);
        while at < end {
            // `finish` bounded the files to FILES_MAX, so the file number fits a file id.
            let (file, offset) = (at / size, at % size);
            let len = (size - offset).min(end - at);
            steps.push(step(FileId(u32::try_from(file).expect("at most FILES_MAX files")), offset, len));
            at += len;
        }
    }
}

impl Workload for TraceReplay {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn file_pages(&self) -> &[u64] {
        &[]
    }

    fn block_device_pages(&self) -> Option<u64> {
        Some(self.device_pages)
    }

    fn block_file_pages(&self) -> Option<u64> {
        self.file_pages
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.streams.len() as u32)
    }

    /// Slot `slot`'s next trace request, `None` once its stream is exhausted. Caller guarantees `slot`
    /// is below [`Workload::natural_concurrency`].
    fn next_request(&mut self, slot: u32, _rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let s = &mut self.streams[slot as usize];
        let record = *s.records.get(s.next)?;
        s.next += 1;
        let page = s.base_page + record.first_page;
        if s.next == s.records.len() {
            // Exhausted: give the memory back (a long trace's streams end at different times).
            s.records = Vec::new();
            s.next = 0;
        }
        self.handed_out += 1;
        assert!(self.handed_out <= self.counts.requests, "more requests handed out than the trace holds");
        Some(self.program(page, record.pages(), record.write()))
    }
}

/// A `replay:...` spec (see [`ReplayOptions::from_spec`]) opened and read.
pub fn parse_replay(
    text: &str,
    device_pages: u64,
    run_seed: Option<u64>,
) -> Result<TraceReplay, ReplayError> {
    TraceReplay::open(&ReplayOptions::from_spec(text, device_pages, run_seed)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimConfig;
    use crate::layout::FileLayout;
    use pagelab_core::Nanos;
    use pagelab_trace::{open_trace, PageExpander, NO_NEXT};
    use proptest::prelude::*;
    use rand::SeedableRng;
    use std::path::Path;

    /// A file in the temporary directory, removed when dropped. Names are unique per test (tests of one
    /// process run in parallel).
    struct TempTrace(std::path::PathBuf);

    impl TempTrace {
        fn new(name: &str, content: &str) -> TempTrace {
            let path = std::env::temp_dir().join(format!("pagelab-replay-{}-{name}", std::process::id()));
            std::fs::write(&path, content).expect("write the temporary trace");
            TempTrace(path)
        }
        fn path(&self) -> String {
            self.0.to_str().expect("a UTF-8 temporary path").to_string()
        }
    }

    impl Drop for TempTrace {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Requests from memory, for traces no file format produces (many streams, huge addresses).
    struct VecReader {
        unit: AddrUnit,
        requests: Vec<Request>,
        at: usize,
    }

    impl TraceReader for VecReader {
        fn addr_unit(&self) -> AddrUnit {
            self.unit
        }
        fn next_request(&mut self) -> Result<Option<Request>, TraceError> {
            let r = self.requests.get(self.at).copied();
            self.at += usize::from(r.is_some());
            Ok(r)
        }
        fn describe(&self) -> String {
            "in-memory trace".into()
        }
    }

    fn request(volume: u32, stream: u32, op: Op, addr: u64, size_bytes: u32) -> Request {
        Request { time_ns: 0, addr, size_bytes, op, volume, stream, next_vtime: NO_NEXT }
    }

    fn from_vec(
        unit: AddrUnit,
        requests: Vec<Request>,
        options: &ReplayOptions,
    ) -> Result<TraceReplay, ReplayError> {
        TraceReplay::from_reader(&mut VecReader { unit, requests, at: 0 }, options)
    }

    const HEADER: &str = "time_ns,addr,size,op,volume,stream\n";

    fn csv(name: &str, lines: &[&str]) -> TempTrace {
        TempTrace::new(name, &format!("{HEADER}{}\n", lines.join("\n")))
    }

    fn open(t: &TempTrace, writes: WriteMode, fold_pages: Option<u64>) -> TraceReplay {
        let options = ReplayOptions { writes, fold_pages, ..ReplayOptions::new(t.path()) };
        TraceReplay::open(&options).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A read of `pages` pages from page `page` of the pseudo-disk.
    fn read(page: u64, pages: u64) -> Step {
        Step::Read { file: FileId(0), offset_bytes: page * 4096, len_bytes: pages * 4096 }
    }

    fn next(w: &mut TraceReplay, slot: u32) -> Option<Vec<Step>> {
        w.next_request(slot, &mut ChaCha8Rng::seed_from_u64(0)).map(|p| p.steps)
    }

    /// Every remaining program of every slot, slot by slot.
    fn drain(w: &mut TraceReplay) -> Vec<Vec<Vec<Step>>> {
        let slots = w.natural_concurrency().expect("replay defines its concurrency");
        (0..slots).map(|s| std::iter::from_fn(|| next(w, s)).take(1_000_000).collect()).collect()
    }

    fn remaining(w: &TraceReplay) -> Vec<u64> {
        (0..w.natural_concurrency().unwrap()).map(|s| w.remaining(s)).collect()
    }

    /// Three streams (one only through an `O` request), a skipped write; the queues after every call.
    #[test]
    fn streams_replay_in_order_of_first_appearance_and_writes_are_counted() {
        let t = csv(
            "streams.csv",
            &[
                "0,0,4096,R,0,7",     // (0,7): page 0
                "1,8192,8192,R,0,3",  // (0,3): pages 2-3
                "2,4096,100,R,0,7",   // (0,7): page 1
                "3,12288,4096,W,0,3", // (0,3): write to page 3, skipped
                "4,20480,1,R,0,3",    // (0,3): page 5
                "5,1000,5000,R,0,7",  // (0,7): bytes 1000..6000 = pages 0-1
                "6,0,0,O,0,9",        // (0,9): other op, size 0 = page 0
            ],
        );
        let mut w = open(&t, WriteMode::Skip, None);
        assert_eq!(w.natural_concurrency(), Some(3));
        assert_eq!((0..3).map(|s| w.stream_of(s)).collect::<Vec<_>>(), vec![(0, 7), (0, 3), (0, 9)]);
        assert_eq!(w.block_device_pages(), Some(6), "page 5 is the highest touched");
        assert!(w.file_pages().is_empty());
        assert_eq!(
            w.counts(),
            ReplayCounts {
                requests_read: 7,
                requests: 6,
                skipped_writes: 1,
                writes_as_reads: 0,
                writes_replayed: 0,
                other_as_reads: 1,
                skipped_bad_records: 0
            }
        );
        assert_eq!(w.skipped_writes(), 1);
        assert_eq!(remaining(&w), vec![3, 2, 1]);
        let calls: [(u32, Option<Vec<Step>>, [u64; 3]); 10] = [
            (0, Some(vec![read(0, 1)]), [2, 2, 1]),
            (1, Some(vec![read(2, 2)]), [2, 1, 1]),
            (0, Some(vec![read(1, 1)]), [1, 1, 1]),
            (2, Some(vec![read(0, 1)]), [1, 1, 0]),
            (2, None, [1, 1, 0]),
            (1, Some(vec![read(5, 1)]), [1, 0, 0]),
            (1, None, [1, 0, 0]),
            (0, Some(vec![read(0, 2)]), [0, 0, 0]),
            (0, None, [0, 0, 0]),
            (0, None, [0, 0, 0]),
        ];
        for (i, (slot, program, after)) in calls.into_iter().enumerate() {
            assert_eq!(next(&mut w, slot), program, "call {i} (slot {slot})");
            assert_eq!(remaining(&w), after.to_vec(), "queues after call {i}");
        }
    }

    #[test]
    fn writes_replay_as_writes_or_reads_or_are_skipped() {
        let t =
            csv("writes.csv", &["0,8192,8192,R,0,3", "1,12288,4096,W,0,3", "2,20480,1,W,0,4", "3,0,1,R,0,3"]);
        let mut w = open(&t, WriteMode::Read, None);
        assert_eq!((w.skipped_writes(), w.counts().writes_as_reads, w.counts().requests), (0, 2, 4));
        assert_eq!(
            drain(&mut w),
            vec![vec![vec![read(2, 2)], vec![read(3, 1)], vec![read(0, 1)]], vec![vec![read(5, 1)]]]
        );
        // Replayed (the default), writes are write() calls of the same pages.
        let mut w = open(&t, WriteMode::Replay, None);
        assert_eq!((w.skipped_writes(), w.counts().writes_replayed, w.counts().requests), (0, 2, 4));
        let write = |page: u64, pages: u64| Step::Write {
            file: FileId::BLOCK_DEVICE,
            offset_bytes: page * 4096,
            len_bytes: pages * 4096,
        };
        assert_eq!(
            drain(&mut w),
            vec![vec![vec![read(2, 2)], vec![write(3, 1)], vec![read(0, 1)]], vec![vec![write(5, 1)]]]
        );
        // Skipped, the write-only stream (0,4) has no slot, but page 5 still bounds the pseudo-disk.
        let mut w = open(&t, WriteMode::Skip, None);
        assert_eq!(
            (w.skipped_writes(), w.natural_concurrency(), w.block_device_pages()),
            (2, Some(1), Some(6))
        );
        assert_eq!(drain(&mut w), vec![vec![vec![read(2, 2)], vec![read(0, 1)]]]);
    }

    /// A stream first seen through a skipped write still takes its slot at that first appearance: the
    /// slots do not depend on the write mode.
    #[test]
    fn a_skipped_write_marks_its_streams_first_appearance() {
        let t = csv("first.csv", &["0,12288,4096,W,0,5", "1,8192,8192,R,0,3", "2,0,1,R,0,5"]);
        for (writes, first) in
            [(WriteMode::Skip, vec![read(0, 1)]), (WriteMode::Read, vec![read(3, 1), read(0, 1)])]
        {
            let mut w = open(&t, writes, None);
            assert_eq!((w.stream_of(0), w.stream_of(1)), ((0, 5), (0, 3)), "{writes:?}");
            let slot0: Vec<Vec<Step>> = first.into_iter().map(|s| vec![s]).collect();
            assert_eq!(drain(&mut w), vec![slot0, vec![vec![read(2, 2)]]], "{writes:?}");
        }
    }

    /// Volumes 2 and 0 (2 appears first): volume 0 takes pages 0..11, volume 2 (its highest page is 2,
    /// touched only by a write) pages 11..14; volume 1 does not occur and takes no space.
    #[test]
    fn volumes_are_placed_end_to_end_in_volume_order() {
        let t = csv(
            "volumes.csv",
            &[
                "0,4096,4096,R,2,1",  // v2 page 1
                "1,40960,4096,R,0,1", // v0 page 10
                "2,0,4096,R,2,1",     // v2 page 0
                "3,8192,4096,W,2,5",  // v2 page 2, write from a write-only stream
                "4,16384,4096,R,0,1", // v0 page 4
            ],
        );
        for writes in [WriteMode::Skip, WriteMode::Read] {
            let mut w = open(&t, writes, None);
            assert_eq!(w.block_device_pages(), Some(14), "{writes:?}");
            assert_eq!(w.trace_pages(), 14);
            let mut expected =
                vec![vec![vec![read(12, 1)], vec![read(11, 1)]], vec![vec![read(10, 1)], vec![read(4, 1)]]];
            if writes == WriteMode::Read {
                expected.push(vec![vec![read(13, 1)]]);
            }
            assert_eq!(w.natural_concurrency(), Some(expected.len() as u32));
            assert_eq!(w.stream_of(0), (2, 1));
            assert_eq!(drain(&mut w), expected, "{writes:?}");
        }
    }

    #[test]
    fn object_ids_are_page_numbers_of_one_page() {
        let t = TempTrace::new("ids.trace", "5\n*\n3\n7\n5\n");
        let mut w = open(&t, WriteMode::Skip, None);
        assert_eq!((w.natural_concurrency(), w.block_device_pages()), (Some(1), Some(8)));
        let reads = vec![vec![read(5, 1)], vec![read(3, 1)], vec![read(7, 1)], vec![read(5, 1)]];
        assert_eq!(drain(&mut w), vec![reads]);
        assert!(
            w.describe().starts_with("replay:trace=") && w.describe().contains(",format=lirs,"),
            "{}",
            w.describe()
        );
        // A sized object is still one page; ids of two streams.
        let t = TempTrace::new(
            "ids.csv",
            "time_ns,id,size,op,volume,stream\n0,9,10000,R,0,1\n1,2,0,R,0,2\n2,3,1,R,0,1\n",
        );
        let mut w = open(&t, WriteMode::Skip, None);
        assert_eq!(w.block_device_pages(), Some(10));
        assert_eq!(drain(&mut w), vec![vec![vec![read(9, 1)], vec![read(3, 1)]], vec![vec![read(2, 1)]]]);
    }

    /// `mixed` has a random stream 0 and sequential streams 1..=3: each is a slot, and each slot's reads
    /// are exactly that stream's pages in trace order, as the reader yields them.
    #[test]
    fn synthetic_streams_split_into_handlers() {
        let spec = "synth:mixed?objects=500&requests=400&streams=3";
        let options = ReplayOptions { seed: Some(9), ..ReplayOptions::new(spec) };
        let mut w = TraceReplay::open(&options).unwrap();
        let mut reader =
            open_trace(spec, "auto", &OpenOptions { skip_bad_lines: false, seed: Some(9) }).unwrap();
        let mut requests = Vec::new();
        while reader.next_batch(&mut requests, 100).unwrap() > 0 {}
        let mut order: Vec<u32> = Vec::new();
        for r in &requests {
            if !order.contains(&r.stream) {
                order.push(r.stream);
            }
        }
        assert_eq!(order.len(), 4, "all four streams occur in 400 requests");
        let expected: Vec<Vec<Vec<Step>>> = order
            .iter()
            .map(|&s| requests.iter().filter(|r| r.stream == s).map(|r| vec![read(r.addr, 1)]).collect())
            .collect();
        assert_eq!(w.natural_concurrency(), Some(4));
        assert_eq!(w.block_device_pages(), Some(requests.iter().map(|r| r.addr).max().unwrap() + 1));
        assert_eq!(drain(&mut w), expected);
        assert_eq!(
            w.describe(),
            "replay:trace=synth:mixed?objects=500&requests=400&run=64&random=0.2&streams=3&seed=9,format=synth,\
             writes=replay,fold=off"
        );
    }

    /// Fold onto 10 pages: page 12 → 2, 25 → 5, a 2-page request at page 9 straddles the fold point
    /// and becomes two reads; a trace that fits is left alone.
    #[test]
    fn fold_wraps_pages_onto_the_device() {
        let t = csv(
            "fold.csv",
            &["0,12288,4096,R,0,0", "1,49152,4096,R,0,0", "2,36864,8192,R,0,0", "3,102400,4096,R,0,0"],
        );
        let mut w = open(&t, WriteMode::Skip, Some(10));
        assert_eq!((w.trace_pages(), w.block_device_pages()), (26, Some(10)));
        assert!(w.describe().ends_with(",fold=40960B"), "{}", w.describe());
        let calls = [vec![read(3, 1)], vec![read(2, 1)], vec![read(9, 1), read(0, 1)], vec![read(5, 1)]];
        for (i, program) in calls.into_iter().enumerate() {
            assert_eq!(next(&mut w, 0), Some(program), "request {i}");
            assert_eq!(w.remaining(0), 3 - i as u64);
        }
        assert_eq!(next(&mut w, 0), None);
        let mut w = open(&t, WriteMode::Skip, Some(26));
        assert_eq!(w.block_device_pages(), Some(26));
        assert_eq!(
            drain(&mut w),
            vec![vec![vec![read(3, 1)], vec![read(12, 1)], vec![read(9, 2)], vec![read(25, 1)]]]
        );
        let options = ReplayOptions { fold_pages: Some(1), ..ReplayOptions::new(t.path()) };
        let err = TraceReplay::open(&options).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: a request of 2 pages: expected the largest request to fit the 1-page folded disk",
                t.path()
            )
        );
    }

    /// A read of `pages` pages from page `page` of file `file` (a trace cut into files).
    fn fread(file: u32, page: u64, pages: u64) -> Step {
        Step::Read { file: FileId(file), offset_bytes: page * 4096, len_bytes: pages * 4096 }
    }

    /// The disk pages (LBNs) a program's steps touch, placed as the server places them: files of
    /// `w.block_file_pages()` pages end to end ([`FileLayout::block_files`]), or the identity layout.
    fn step_lbns(w: &TraceReplay, steps: &[Step]) -> Vec<u64> {
        let device = w.block_device_pages().unwrap();
        let layout = match w.block_file_pages() {
            Some(size) => FileLayout::block_files(device, size),
            None => FileLayout::identity(device),
        };
        steps
            .iter()
            .flat_map(|s| match *s {
                Step::Read { file, offset_bytes, len_bytes }
                | Step::Write { file, offset_bytes, len_bytes } => {
                    assert_eq!((offset_bytes % 4096, len_bytes % 4096), (0, 0));
                    let (first, n) = (offset_bytes / 4096, len_bytes / 4096);
                    assert!(n >= 1 && first + n <= layout.file_pages(file), "a step beyond its file: {s:?}");
                    (first..first + n).map(|i| layout.lbn(file, i).0).collect::<Vec<_>>()
                }
                other => panic!("replay programs read and write: {other:?}"),
            })
            .collect()
    }

    /// Files of 4 pages over a 13-page pseudo-disk (files 0–2 of 4 pages, file 3 of 1): each request's
    /// steps, one per file it touches, hand-worked; every page at the LBN the replay without files gives.
    #[test]
    fn file_size_cuts_requests_at_file_boundaries_and_keeps_lbns() {
        let t = csv(
            "files.csv",
            &[
                "0,0,4096,R,0,0",      // page 0: file 0 page 0
                "1,12288,8192,R,0,0",  // pages 3-4: file 0 page 3, file 1 page 0
                "2,16384,16384,R,0,0", // pages 4-7: all of file 1
                "3,8192,40960,R,0,0",  // pages 2-11: file 0 pages 2-3, files 1 and 2 whole
                "4,49152,4096,W,0,0",  // page 12: a write of the one page of file 3
                "5,45056,8192,R,0,0",  // pages 11-12: file 2 page 3, file 3 page 0
            ],
        );
        let options = ReplayOptions { file_pages: Some(4), ..ReplayOptions::new(t.path()) };
        let mut w = TraceReplay::open(&options).unwrap();
        assert_eq!((w.block_device_pages(), w.block_file_pages()), (Some(13), Some(4)));
        let write = Step::Write { file: FileId(3), offset_bytes: 0, len_bytes: 4096 };
        let expected = vec![
            vec![fread(0, 0, 1)],
            vec![fread(0, 3, 1), fread(1, 0, 1)],
            vec![fread(1, 0, 4)],
            vec![fread(0, 2, 2), fread(1, 0, 4), fread(2, 0, 4)],
            vec![write],
            vec![fread(2, 3, 1), fread(3, 0, 1)],
        ];
        let programs = drain(&mut w).remove(0);
        assert_eq!(programs, expected);
        let mut whole = open(&t, WriteMode::Replay, None);
        assert_eq!(whole.block_file_pages(), None);
        let uncut = drain(&mut whole).remove(0);
        assert_eq!(uncut.iter().map(|p| p.len()).collect::<Vec<_>>(), vec![1; 6], "one step each");
        for (i, (cut, uncut)) in programs.iter().zip(&uncut).enumerate() {
            assert_eq!(step_lbns(&w, cut), step_lbns(&whole, uncut), "request {i}: the same disk pages");
        }
        // The description names the size, and reads back as the same options.
        assert!(w.describe().ends_with(",fold=off,file_size=16384B"), "{}", w.describe());
        let again = ReplayOptions::from_spec(&w.describe(), 1_000, None).unwrap();
        assert_eq!(again, ReplayOptions { format: "csv:pagelab".into(), ..options });
        // A size that divides the disk leaves no short file; one larger than the disk is one file.
        let mut w = TraceReplay::open(&ReplayOptions { file_pages: Some(100), ..again.clone() }).unwrap();
        assert_eq!(drain(&mut w).remove(0).iter().map(Vec::len).max(), Some(1));
    }

    /// Files cut the folded disk: a fold onto 10 pages with files of 4 gives files of 4, 4 and 2 pages; a
    /// request is split at the fold first, then at each file boundary of each piece.
    #[test]
    fn files_cut_the_folded_disk() {
        let t = csv(
            "foldfiles.csv",
            &[
                "0,12288,4096,R,0,0",  // page 3: file 0 page 3
                "1,49152,4096,R,0,0",  // page 12 → 2: file 0 page 2
                "2,36864,8192,R,0,0",  // pages 9-10 → 9, 0: file 2 page 1, file 0 page 0
                "3,28672,8192,R,0,0",  // pages 7-8: file 1 page 3, file 2 page 0
                "4,32768,16384,R,0,0", // pages 8-11 → 8-9, 0-1: file 2 pages 0-1, file 0 pages 0-1
                "5,102400,4096,R,0,0", // page 25 → 5: file 1 page 1
            ],
        );
        let options =
            ReplayOptions { fold_pages: Some(10), file_pages: Some(4), ..ReplayOptions::new(t.path()) };
        let mut w = TraceReplay::open(&options).unwrap();
        assert_eq!((w.trace_pages(), w.block_device_pages(), w.block_file_pages()), (26, Some(10), Some(4)));
        assert!(w.describe().ends_with(",fold=40960B,file_size=16384B"), "{}", w.describe());
        let programs = drain(&mut w).remove(0);
        assert_eq!(
            programs,
            vec![
                vec![fread(0, 3, 1)],
                vec![fread(0, 2, 1)],
                vec![fread(2, 1, 1), fread(0, 0, 1)],
                vec![fread(1, 3, 1), fread(2, 0, 1)],
                vec![fread(2, 0, 2), fread(0, 0, 2)],
                vec![fread(1, 1, 1)],
            ]
        );
        let mut folded = open(&t, WriteMode::Replay, Some(10));
        for (cut, uncut) in programs.iter().zip(drain(&mut folded).remove(0)) {
            assert_eq!(step_lbns(&w, cut), step_lbns(&folded, &uncut));
        }
    }

    /// The file count is bounded by the file ids: 2^23 + 1 pages in files of one page are refused, with
    /// the smallest size that fits; 2^23 pages fit. Zero and part pages are refused wherever they come in.
    #[test]
    fn too_small_a_file_size_is_refused() {
        let o = ReplayOptions { file_pages: Some(1), ..ReplayOptions::new("mem") };
        let ids = |top: u64| vec![request(0, 0, Op::Read, 0, 0), request(0, 0, Op::Read, top, 0)];
        let w = from_vec(AddrUnit::Object, ids(FILES_MAX - 1), &o).unwrap();
        assert_eq!(w.block_device_pages(), Some(FILES_MAX));
        let err = from_vec(AddrUnit::Object, ids(FILES_MAX), &o).unwrap_err();
        assert!(matches!(err, ReplayError::TooManyFiles { files, .. } if files == FILES_MAX + 1), "{err}");
        assert_eq!(
            err.to_string(),
            "mem: files of 4096 B cut the 8388609-page (34359742464 B) pseudo-disk into 8388609 files, more \
             than the 8388608 file ids; the file size must be at least 8192 B"
        );
        assert!(from_vec(
            AddrUnit::Object,
            ids(FILES_MAX),
            &ReplayOptions { file_pages: Some(2), ..o.clone() }
        )
        .is_ok());
        let err =
            from_vec(AddrUnit::Object, ids(5), &ReplayOptions { file_pages: Some(0), ..o }).unwrap_err();
        assert!(err.to_string().contains("files of 0 pages"), "{err}");
        assert_eq!(parse_file_size("256KiB").ok(), Some(64));
        let whole = |bytes: u64| {
            format!("{bytes} B is not a positive multiple of the 4096 B page (files are whole pages)")
        };
        let cases = [
            ("0", whole(0)),
            ("1000", whole(1000)),
            ("4097B", whole(4097)),
            ("6KiB", whole(6144)),
            ("lots", "expected a size like 256KiB".to_string()),
            // Sizes whose value does not fit say so (they used to be "expected a size like 256KiB").
            ("99999999999TiB", "out of range".to_string()),
            ("0.3KiB", "not a whole number of bytes".to_string()),
        ];
        for (bad, expected) in cases {
            let why = parse_file_size(bad).unwrap_err().to_string();
            assert_eq!(why, format!("`{bad}`: {expected}"), "{bad}");
            let spec = format!("replay:trace=x,file_size={bad}");
            let err = ReplayOptions::from_spec(&spec, 100, None).unwrap_err().to_string();
            assert!(err.contains(&format!("file_size=`{bad}`: {expected}")), "{err}");
        }
        let off = ReplayOptions::from_spec("replay:trace=x,file_size=off", 100, None).unwrap();
        assert_eq!(off.file_pages, None);
    }

    /// A sequential reader of whole files 0, 2 and 4 (16 pages each, one page per request, pages 0–15,
    /// 32–47 and 64–79 of an 80-page trace) under the default `linux` readahead (128 KiB: 32 pages), worked
    /// by hand from `get_init_ra_size` and `get_next_ra_size`.
    ///
    /// Cut into files of 64 KiB (16 pages), each file is read as: a miss at page 0 (start of file) reads
    /// the initial window of 4 pages, marker at 1; page 1 moves it to pages 4–11 (8), marker at 4; page 4
    /// to 12–27, clipped at EOF to 12–15 (4), marker at 12; page 12's window starts at 28, past EOF:
    /// nothing. So 3 disk requests and 16 pages a file (1 demand miss, 15 prefetched): 9 requests, 48 pages,
    /// 45 prefetched and all used — not one page of files 1 and 3, which nobody reads.
    ///
    /// As one pseudo-file: 0–3, 4–11 and 12–27 as above, then page 12 reads 28–59 (32), whose marker
    /// (28) nobody reaches; 32–47 hit. Page 64 is a miss neither at the start nor after the previous read
    /// (47) nor after a cached run (60–63 are not cached): read alone. Page 65 follows it: 65–68 (4), then
    /// 69–76 (8), then 77–92 clipped at EOF (80) to 77–79 (3). 8 requests, 76 pages, 3 demand misses (0,
    /// 64, 65), 73 prefetched of which 45 used: the 28 pages 16–31 and 48–59 of unread files came in.
    #[test]
    fn readahead_stops_at_the_end_of_each_file() {
        let lines: Vec<String> = [0u64, 2, 4]
            .iter()
            .flat_map(|f| (0..16).map(move |i| format!("{i},{},4096,R,0,0", (f * 16 + i) * 4096)))
            .collect();
        let t = csv("eof.csv", &lines.iter().map(String::as_str).collect::<Vec<_>>());
        let run = |file_pages: Option<u64>| {
            let w = TraceReplay::open(&ReplayOptions { file_pages, ..ReplayOptions::new(t.path()) }).unwrap();
            assert_eq!(w.block_device_pages(), Some(80));
            crate::server::simulate(SimConfig::default(), Box::new(w)).unwrap()
        };
        let (cut, whole) = (run(Some(16)), run(None));
        assert!(cut.workload_completed && whole.workload_completed);
        assert_eq!((cut.requests_completed, whole.requests_completed), (48, 48));
        let counts = |m: &crate::metrics::RunMetrics| {
            (
                m.disk.requests,
                m.disk.pages_read,
                m.cache.misses,
                m.prefetch.pages_prefetched,
                m.prefetch.prefetched_used,
            )
        };
        assert_eq!(counts(&cut), (9, 48, 3, 45, 45), "no page beyond a file's last page is fetched");
        assert_eq!(counts(&whole), (8, 76, 3, 73, 45), "the window runs on into files nobody reads");
        assert_eq!(cut.disk.request_pages_histogram, vec![(4, 6), (8, 3)]);
    }

    /// multi1 has one page per request, so no request crosses a file: without readahead, the replay cut
    /// into 64 KiB files is the same run as the replay of one pseudo-file — the disk sees the same pages
    /// at the same addresses at the same times.
    #[test]
    fn without_readahead_files_change_nothing_on_disk() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces/lirs/multi1.trace.gz");
        let run = |file_pages: Option<u64>| {
            let options = ReplayOptions { file_pages, ..ReplayOptions::new(path.to_str().unwrap()) };
            let w = TraceReplay::open(&options).unwrap();
            let cfg = SimConfig { prefetcher: "none".parse().unwrap(), ..SimConfig::default() };
            serde_json::to_value(crate::server::simulate(cfg, Box::new(w)).unwrap()).unwrap()
        };
        let (cut, whole) = (run(Some(16)), run(None));
        assert_eq!(cut["requests_completed"], 15_858);
        assert_eq!(cut, whole);
    }

    #[test]
    fn errors_name_the_trace_and_the_problem() {
        let opts = |path: String| ReplayOptions::new(path);
        let empty = csv("empty.csv", &[]);
        let err = TraceReplay::open(&opts(empty.path())).unwrap_err();
        assert!(matches!(err, ReplayError::Empty { skipped_writes: 0, .. }), "{err}");
        let writes = csv("allwrites.csv", &["0,0,4096,W,0,0", "1,0,4096,W,0,0"]);
        let skip = |path: String| ReplayOptions { writes: WriteMode::Skip, ..ReplayOptions::new(path) };
        let err = TraceReplay::open(&skip(writes.path())).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: no requests to replay (2 writes skipped; `writes=replay` replays them)",
                writes.path()
            )
        );
        let bad = csv("bad.csv", &["0,0,4096,R,0,0", "1,zero,4096,R,0,0"]);
        let err = TraceReplay::open(&opts(bad.path())).unwrap_err();
        assert!(matches!(&err, ReplayError::Trace(TraceError::BadRecord { line: 3, .. })), "{err}");
        assert!(err.to_string().starts_with(&format!("{}:3: bad record", bad.path())), "{err}");
        let skipping = ReplayOptions { skip_bad_lines: true, ..opts(bad.path()) };
        let w = TraceReplay::open(&skipping).unwrap();
        assert_eq!((w.counts().requests, w.counts().skipped_bad_records), (1, 1));
        assert!(w.describe().ends_with(",skip_bad_lines=true"));
        let four = csv("four.csv", &["0,0,1,R,0,0", "1,0,1,R,0,0", "2,0,1,R,0,0", "3,0,1,R,0,0"]);
        assert!(TraceReplay::open(&ReplayOptions { requests_max: 4, ..opts(four.path()) }).is_ok());
        let err = TraceReplay::open(&ReplayOptions { requests_max: 3, ..opts(four.path()) }).unwrap_err();
        assert!(matches!(err, ReplayError::TooLarge { requests_max: 3, .. }), "{err}");
        let missing = TraceReplay::open(&opts("/nonexistent/replay.trace".into())).unwrap_err().to_string();
        assert!(missing.starts_with("/nonexistent/replay.trace: "), "{missing}");
    }

    #[test]
    fn impossible_addresses_and_too_many_streams_are_refused() {
        let o = ReplayOptions::new("mem");
        let err = from_vec(
            AddrUnit::Bytes(512),
            vec![request(0, 0, Op::Read, 1, 0), request(0, 0, Op::Read, u64::MAX, 0)],
            &o,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("mem: request 2: address {} × 512 B: expected a byte offset below 2^64", u64::MAX)
        );
        // An object id beyond what a page key addresses: refused unfolded, placed when folded.
        let huge = vec![request(0, 0, Op::Read, 1 << 41, 0)];
        let err = from_vec(AddrUnit::Object, huge.clone(), &o).unwrap_err();
        assert!(matches!(&err, ReplayError::Layout { why, .. } if why.contains("fold")), "{err}");
        let mut w =
            from_vec(AddrUnit::Object, huge, &ReplayOptions { fold_pages: Some(1000), ..o.clone() }).unwrap();
        assert_eq!(drain(&mut w), vec![vec![vec![read((1u64 << 41) % 1000, 1)]]]);
        let many = |n: u32| (0..n).map(|s| request(s % 2, s / 2, Op::Read, s as u64, 0)).collect::<Vec<_>>();
        let w = from_vec(AddrUnit::Object, many(STREAMS_MAX), &o).unwrap();
        assert_eq!(w.natural_concurrency(), Some(STREAMS_MAX));
        let err = from_vec(AddrUnit::Object, many(STREAMS_MAX + 1), &o).unwrap_err();
        assert!(matches!(err, ReplayError::TooManyStreams { .. }), "{err}");
    }

    #[test]
    fn spec_strings_parse_and_describe_round_trips() {
        let t = TempTrace::new("spec.trace", "1\n2\n");
        let device = 2_000;
        let o = ReplayOptions::from_spec(
            &format!("replay:trace={},format=lirs,writes=read,fold=true", t.path()),
            device,
            Some(3),
        )
        .unwrap();
        assert_eq!(
            o,
            ReplayOptions {
                format: "lirs".into(),
                writes: WriteMode::Read,
                fold_pages: Some(2_000),
                seed: Some(3),
                ..ReplayOptions::new(t.path())
            }
        );
        let o = ReplayOptions::from_spec(
            &format!("replay:trace={},fold=40KiB,seed=8", t.path()),
            device,
            Some(3),
        )
        .unwrap();
        assert_eq!(
            (o.fold_pages, o.seed, o.format.as_str(), o.writes),
            (Some(10), Some(8), "auto", WriteMode::Replay)
        );
        let w = TraceReplay::open(&o).unwrap();
        assert_eq!(w.describe(), format!("replay:trace={},format=lirs,writes=replay,fold=40960B", t.path()));
        let again = ReplayOptions::from_spec(&w.describe(), device, Some(8)).unwrap();
        assert_eq!(again, ReplayOptions { format: "lirs".into(), ..o });
        let w = parse_replay(&format!("replay:trace={},fold=false", t.path()), device, None).unwrap();
        assert_eq!(w.block_device_pages(), Some(3));
        let err = |text: &str| ReplayOptions::from_spec(text, device, None).unwrap_err().to_string();
        assert_eq!(
            err("replay:format=lirs"),
            "workload `replay:format=lirs`: missing `trace=PATH` (a file or a synth: spec)"
        );
        assert_eq!(
            err("replay:trace=x,writes=drop"),
            "workload `replay:trace=x,writes=drop`: writes=`drop`: expected replay, skip or read"
        );
        assert!(err("replay:trace=x,fold=1000")
            .contains("fold=`1000`: 1000 B is not a positive multiple of the 4096 B page"));
        assert!(err("replay:trace=x,fold=maybe").contains("expected true, false or a size"));
        // A size out of range says so, not "expected true, false or a size".
        assert!(err("replay:trace=x,fold=99999999999TiB").ends_with("fold=`99999999999TiB`: out of range"));
        assert!(err("replay:trace=x,folds=true").contains("unknown parameter(s) folds"));
        assert!(err("one-rand:trace=x").contains("expected `replay:trace=PATH,...`"));
        let err = parse_replay("replay:trace=x.trace,format=parquet", device, None).unwrap_err().to_string();
        assert!(err.starts_with("trace format `parquet`: unknown"), "{err}");
    }

    /// The independent view of a request: the pages `PageExpander` says it covers.
    fn expanded(r: &Request) -> Vec<u64> {
        let mut pages = Vec::new();
        PageExpander::new(AddrUnit::Bytes(512), 4096, false).for_each_page(r, |_, page| pages.push(page));
        pages
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// Every replayed request comes out once, in its stream's order, at its volume's base plus its
        /// own pages (folded when asked), inside the pseudo-disk; skipped writes are exactly the writes.
        #[test]
        fn replay_conserves_and_places_every_request(
            raw in prop::collection::vec((0u32..3, 0u32..3, 0u8..3, 0u64..400, 0u32..20_000), 1..60),
            read_writes in any::<bool>(),
            fold in prop::option::of(1u64..80),
            files in prop::option::of(1u64..30),
        ) {
            let ops = [Op::Read, Op::Write, Op::Other];
            let trace: Vec<Request> =
                raw.iter().map(|&(v, s, op, sector, size)| request(v, s, ops[op as usize], sector, size)).collect();
            let writes = if read_writes { WriteMode::Read } else { WriteMode::Skip };
            let options =
                ReplayOptions { writes, fold_pages: fold, file_pages: files, ..ReplayOptions::new("mem") };
            let result = from_vec(AddrUnit::Bytes(512), trace.clone(), &options);

            let replayed = |r: &Request| r.op != Op::Write || read_writes;
            let writes_n = trace.iter().filter(|r| r.op == Op::Write).count() as u64;
            let mut extent: BTreeMap<u32, u64> = BTreeMap::new();
            for r in &trace {
                let e = extent.entry(r.volume).or_default();
                *e = (*e).max(expanded(r).last().unwrap() + 1);
            }
            let base = |v: u32| extent.range(..v).map(|(_, e)| e).sum::<u64>();
            let total: u64 = extent.values().sum();
            let widest = trace.iter().filter(|r| replayed(r)).map(|r| expanded(r).len() as u64).max();
            let Some(widest) = widest else {
                prop_assert!(matches!(result, Err(ReplayError::Empty { .. })), "{:?}", result.err());
                return Ok(());
            };
            if fold.is_some_and(|d| widest > d) {
                prop_assert!(matches!(result, Err(ReplayError::Layout { .. })), "{:?}", result.err());
                return Ok(());
            }
            let mut w = result.unwrap();
            let device = fold.map_or(total, |d| total.min(d));
            prop_assert_eq!(w.block_device_pages(), Some(device));
            prop_assert_eq!(w.block_file_pages(), files);
            prop_assert_eq!(w.skipped_writes(), if read_writes { 0 } else { writes_n });
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            // First appearance counts every request; pairs with nothing replayed get no slot.
            for r in &trace {
                if !pairs.contains(&(r.volume, r.stream)) {
                    pairs.push((r.volume, r.stream));
                }
            }
            pairs.retain(|&(v, s)| trace.iter().any(|r| replayed(r) && (r.volume, r.stream) == (v, s)));
            prop_assert_eq!(w.natural_concurrency(), Some(pairs.len() as u32));
            let mut handed = 0;
            for (slot, &(v, s)) in pairs.iter().enumerate() {
                let mut programs = Vec::new();
                while let Some(p) = next(&mut w, slot as u32) {
                    prop_assert!(programs.len() < trace.len());
                    programs.push(p);
                }
                let expected: Vec<Vec<u64>> = trace
                    .iter()
                    .filter(|r| replayed(r) && (r.volume, r.stream) == (v, s))
                    .map(|r| expanded(r).iter().map(|p| fold.map_or(base(v) + p, |d| (base(v) + p) % d)).collect())
                    .collect();
                prop_assert_eq!(programs.len(), expected.len());
                for (steps, pages) in programs.iter().zip(&expected) {
                    // The same disk pages as without files (`step_lbns` checks each step lies in its file).
                    prop_assert_eq!(&step_lbns(&w, steps), pages);
                    prop_assert!(pages.iter().all(|&p| p < device));
                    // One step per run of pages contiguous on disk and in one file: split at the fold
                    // and at file boundaries, nowhere else.
                    let breaks = pages
                        .windows(2)
                        .filter(|p| p[1] != p[0] + 1 || files.is_some_and(|size| p[1] % size == 0))
                        .count();
                    prop_assert_eq!(steps.len(), breaks + 1);
                }
                handed += programs.len() as u64;
            }
            prop_assert_eq!(handed, w.counts().requests);
            prop_assert_eq!(handed + w.skipped_writes(), trace.len() as u64);
        }
    }

    /// multi1 (DULO's trace, no stream ids) through the whole server: one handler, and the run ends
    /// because the trace runs out, every request completed.
    #[test]
    fn multi1_runs_to_the_end_of_the_trace() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces/lirs/multi1.trace.gz");
        assert!(path.exists(), "the shipped traces are missing: expected {}", path.display());
        let w = TraceReplay::open(&ReplayOptions::new(path.to_str().unwrap())).unwrap();
        assert_eq!((w.natural_concurrency(), w.counts().requests), (Some(1), 15_858));
        assert_eq!(w.block_device_pages(), Some(2_606), "ids 0..=2605");
        let cfg = SimConfig { duration: Nanos::from_secs(10), ..SimConfig::default() };
        let m = crate::server::simulate(cfg, Box::new(w)).unwrap();
        assert_eq!(m.requests_completed, 15_858);
        assert_eq!(m.pages_accessed, 15_858, "one page per request");
        assert!(m.sim_seconds > 0.0 && m.sim_seconds < 10.0, "ran {} s", m.sim_seconds);
    }
}
