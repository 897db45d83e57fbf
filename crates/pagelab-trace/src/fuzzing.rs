//! The entry points of pagelab's fuzz harnesses — the cargo-fuzz targets in `fuzz/` and the property tests
//! over arbitrary bytes in `tests/fuzz_formats.rs` — so that both read input exactly as the commands do
//! and hold every outcome to the same rules (FUZZING.md):
//!
//! - no panic, whatever the bytes;
//! - every rejection names the input and a line (the record number for binary formats) within it:
//!   [`check_rejection`]; the only rejection without a line is content with no non-blank line at all,
//!   which has no requests to point at;
//! - the heap stays within [`heap_bound_bytes`] of the input: a fixed part for the buffers (the line
//!   buffer, the detection window, the oracle-general block, one call's page keys) plus a part per input
//!   byte (the per-volume and per-device maps of MSR and blkparse grow with distinct names), plus the
//!   decoder's own bound for compressed input.
//!
//! Not an API to program against (hidden from the documentation).

use crate::input::{Compression, LINE_BUFFER_BYTES, XZ_MEMORY_LIMIT_BYTES};
use crate::{open_reader, AddrUnit, OpenOptions, PageExpander, TraceError, KEYS_PER_CALL};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Cursor;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The system allocator, counting the bytes live and their peak: a test binary that declares it its
/// `#[global_allocator]` measures a region's heap with [`peak_heap`].
pub struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are atomics, which
// never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on as is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let live = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
}

/// Cases per property test of the fuzz harnesses: `PROPTEST_CASES` when set (the longer runs of
/// FUZZING.md), else 64, which keeps the harnesses' share of `cargo test` to seconds.
pub fn proptest_cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64)
}

/// Held while measuring: the counters are process-wide, and a test binary's tests run in threads.
pub static MEASURING: Mutex<()> = Mutex::new(());

/// Runs `f` and returns its result with the heap's peak above what was live when it started (meaningful
/// only under [`CountingAllocator`], and with [`MEASURING`] held).
pub fn peak_heap<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base) as u64)
}

/// The formats the harnesses read arbitrary bytes in: every reader, a CSV spec that reads every column
/// kind, and detection.
pub const FORMATS: [&str; 11] = [
    "auto",
    "lirs",
    "arc",
    "csv:cloudphysics",
    "csv:header,time=6,lbn=1,size=2,op=3,volume=4,stream=5,time-unit=us,delim=;",
    "csv:id=2,size=1,size-unit=512,delim=tab",
    "oracle-general",
    "oracle-general:time-unit=ms",
    "msr",
    "spc",
    "blkparse",
];

/// Page size the harnesses expand requests with (the commands' default).
pub const PAGE_SIZE_BYTES: u32 = 4096;

/// The fixed part of [`heap_bound_bytes`]: the line buffer, the detection window and the oracle-general
/// block (well under 1 MiB together), and one call's page keys — [`KEYS_PER_CALL`] plus the pages of
/// one request (at most 2^20 at 4 KiB), 8 bytes each, doubled by vector growth: 17 MiB. 24 MiB in all.
pub const HEAP_FIXED_BYTES: u64 = 24 << 20;

/// The per-input-byte part of [`heap_bound_bytes`]: a map entry per distinct MSR host or blkparse device,
/// each from a line of at least a few bytes.
pub const HEAP_PER_INPUT_BYTE: u64 = 64;

/// The most heap reading `input` may take: [`HEAP_FIXED_BYTES`], [`HEAP_PER_INPUT_BYTE`] per byte, and
/// the decoder's own bound when the input is compressed (gzip's window and state; zstd's largest window,
/// 128 MiB, its default `window_log_max`; xz's [`XZ_MEMORY_LIMIT_BYTES`]).
pub fn heap_bound_bytes(input: &[u8]) -> u64 {
    let decoder = match Compression::from_magic(input) {
        Compression::None => 0,
        Compression::Gzip => 1 << 20,
        Compression::Zstd => (128 << 20) + (4 << 20),
        Compression::Xz => XZ_MEMORY_LIMIT_BYTES + (4 << 20),
    };
    HEAP_FIXED_BYTES + HEAP_PER_INPUT_BYTE * input.len() as u64 + decoder
}

/// What reading a trace to the end gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub requests: u64,
    pub pages: u64,
    pub skipped: u64,
}

/// Reads `input`, named `name`, in `format` to the end as `pagelab cachesim` and `mrc` do: page keys in
/// batches through [`crate::TraceReader::next_page_keys`] (every reader overrides or inherits it).
pub fn read_all(
    input: &[u8],
    name: &str,
    format: &str,
    skip_bad_lines: bool,
    ignore_size: bool,
) -> Result<Outcome, TraceError> {
    let options = OpenOptions { skip_bad_lines, seed: None };
    let (mut reader, _) =
        open_reader(Box::new(Cursor::new(input.to_vec())), Path::new(name), format, &options)?;
    let expander = PageExpander::new(reader.addr_unit(), PAGE_SIZE_BYTES, ignore_size);
    let mut keys = Vec::new();
    let mut outcome = Outcome::default();
    // Bounded by the input: every call that returns requests consumes input.
    loop {
        keys.clear();
        let n = reader.next_page_keys(&expander, &mut keys, 8192)?;
        if n == 0 {
            break;
        }
        outcome.requests += n as u64;
        outcome.pages += keys.len() as u64;
        debug_assert!(keys.len() <= KEYS_PER_CALL + (1 << 23), "a call's keys exceed their bound");
    }
    outcome.skipped = reader.skipped_records();
    // Objects of one page each cannot expand; blocks can, but never to fewer pages than requests.
    match (reader.addr_unit(), ignore_size) {
        (_, true) => assert_eq!(outcome.pages, outcome.requests, "one key per request under ignore_size"),
        (AddrUnit::Bytes(_) | AddrUnit::Object, false) => {
            assert!(outcome.pages >= outcome.requests, "fewer pages than requests")
        }
    }
    Ok(outcome)
}

/// `Ok` when `err`, a rejection of `input` named `name`, names the input and a line (or record) within
/// it; else what is wrong with the message.
pub fn check_rejection(err: &TraceError, name: &str, input: &[u8]) -> Result<(), String> {
    let message = err.to_string();
    let (path, line) = match err {
        TraceError::BadRecord { path, line, .. } | TraceError::Read { path, line, .. } => (path, *line),
        TraceError::Invalid { what, .. } if what == name && no_content(input) => return Ok(()),
        other => return Err(format!("a rejection without a line: {other}")),
    };
    if path != Path::new(name) || !message.starts_with(&format!("{name}:{line}:")) {
        return Err(format!("the rejection does not name `{name}` and its line: {message}"));
    }
    // Compressed input can hold any number of lines; uncompressed input has at most one per byte (plus a
    // final one without a newline).
    let uncompressed = Compression::from_magic(input) == Compression::None;
    if line == 0 || (uncompressed && line > input.len() as u64 + 1) {
        return Err(format!("line {line} is not within the input's {} bytes: {message}", input.len()));
    }
    if message.chars().count() > 2 * LINE_BUFFER_BYTES {
        return Err(format!("a message of {} characters", message.chars().count()));
    }
    Ok(())
}

/// Whether `input`, decompressed, has no non-blank line (only then may a rejection name no line).
fn no_content(input: &[u8]) -> bool {
    let mut text = Vec::new();
    let (mut decoded, _, _) = crate::input::RawInput {
        path: "fuzz".into(),
        read: Box::new(Cursor::new(input.to_vec())),
        regular: None,
    }
    .decompress();
    // Detection looks at the first SNIFF_BYTES: a blank window with more after it is a rejection with a
    // line. A decoding error ends the text where it happened; what was decoded before it is what counts.
    let limit = crate::detect::SNIFF_BYTES as u64 + 1;
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(&mut decoded, limit), &mut text);
    if text.len() as u64 == limit {
        return false;
    }
    text.split(|&b| b == b'\n').all(|l| l.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r')))
}

/// The formats a fuzz target named `target` reads its input in (`fuzz/fuzz_targets/`, and the corpus
/// directories of the same names).
pub fn target_formats(target: &str) -> &'static [&'static str] {
    match target {
        "lirs" => &FORMATS[1..2],
        "arc" => &FORMATS[2..3],
        "csv" => &FORMATS[3..6],
        "oracle_general" => &FORMATS[6..8],
        "msr" => &FORMATS[8..9],
        "spc" => &FORMATS[9..10],
        "blkparse" => &FORMATS[10..11],
        "auto" => &FORMATS[0..1],
        _ => &[],
    }
}

/// One fuzz input for the target `target`: read in each of its formats, with and without skipping bad
/// records and with and without `ignore_size`; panics (a finding) when a rejection breaks the rules. The
/// format targets leave compressed input to `auto`, whose stated heap bound includes the decoders'.
pub fn fuzz_one(target: &str, input: &[u8]) {
    if target != "auto" && Compression::from_magic(input) != Compression::None {
        return;
    }
    let name = "fuzz-input";
    for format in target_formats(target) {
        for (skip, ignore_size) in [(false, false), (true, false), (false, true)] {
            if let Err(err) = read_all(input, name, format, skip, ignore_size) {
                if let Err(why) = check_rejection(&err, name, input) {
                    panic!("{format} (skip {skip}, ignore_size {ignore_size}): {why}");
                }
            }
        }
    }
}

/// One fuzz input for the trace crate's spec parsers (format names, `csv:` specs, `synth:` specs): no
/// panic, every rejection quotes the text it rejects, and a synthetic trace small enough to build reads
/// its first requests.
pub fn fuzz_trace_spec(text: &str) {
    let quoted = |e: &TraceError| {
        let message = e.to_string();
        assert!(message.contains(text), "a rejection of `{text}` that does not quote it: {message}");
    };
    if let Err(e) = crate::Format::parse(text) {
        quoted(&e);
    }
    if let Err(e) = crate::CsvSpec::parse(text) {
        quoted(&e);
    }
    let synth = format!("synth:{text}");
    match crate::synth::SynthSpec::parse(&synth, Some(7)) {
        Err(e) => assert!(e.to_string().contains(&synth), "{e}"),
        // Tables of ~20 bytes per object are built before the first request: within a small bound only.
        Ok(spec) if spec.kind != crate::synth::SynthKind::Zipf || spec.objects <= 1 << 16 => {
            let mut reader = crate::synth::SynthTrace::new(spec);
            let mut batch = Vec::new();
            crate::TraceReader::next_batch(&mut reader, &mut batch, 1000)
                .expect("synthetic traces never fail");
            assert!(!batch.is_empty(), "a valid synthetic trace has at least one request");
        }
        Ok(_) => {}
    }
}
