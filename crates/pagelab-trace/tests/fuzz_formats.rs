//! Fuzzing in the normal `cargo test` (CI runs only stable `cargo test --workspace`): property tests that
//! read arbitrary bytes — raw, shaped like trace lines, shaped like oracle-general records, compressed and
//! then damaged — in every format, through the harness the cargo-fuzz targets in `fuzz/` use
//! (`pagelab_trace::fuzzing`), and replay the committed fuzz corpus. Each input must end in requests or
//! in a rejection that names the input and a line within it, without a panic, and with the heap's peak
//! within the stated bound (`fuzzing::heap_bound_bytes`), measured by a counting global allocator.
//!
//! The number of cases is 64 per property unless `PROPTEST_CASES` says otherwise; FUZZING.md records
//! longer runs, here and with cargo-fuzz.

use pagelab_trace::fuzzing::{
    self, check_rejection, fuzz_one, fuzz_trace_spec, heap_bound_bytes, peak_heap, proptest_cases, read_all,
    CountingAllocator, MEASURING,
};
use proptest::prelude::*;
use std::io::Write;
use std::path::PathBuf;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const NAME: &str = "fuzz-input";

/// Reads `input` in every format (and every mode): each outcome is requests or a rejection with the
/// input's name and a line, and the heap stays within the bound.
fn check_everywhere(input: &[u8]) -> Result<(), TestCaseError> {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    for format in fuzzing::FORMATS {
        for (skip, ignore_size) in [(false, false), (true, false), (false, true)] {
            let (result, peak) = peak_heap(|| read_all(input, NAME, format, skip, ignore_size));
            let bound = heap_bound_bytes(input);
            prop_assert!(
                peak <= bound,
                "{format}: {peak} bytes of heap for {} bytes of input (bound {bound})",
                input.len()
            );
            if let Err(err) = result {
                if let Err(why) = check_rejection(&err, NAME, input) {
                    return Err(TestCaseError::fail(format!("{format} (skip {skip}): {why}")));
                }
            }
        }
    }
    Ok(())
}

/// Lines built from the tokens trace formats are made of: numbers (small, huge, past 2^64), separators,
/// op names, blkparse's punctuation, markers, headers.
fn line_shaped() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        (0u64..100).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        Just("18446744073709551616".to_string()),
        Just("4294967295".to_string()),
        (0u32..1000, 0u32..1_000_000).prop_map(|(a, b)| format!("{a}.{b:06}")),
        prop::sample::select(vec![
            ",",
            ",",
            " ",
            " ",
            "\t",
            ";",
            "\n",
            "\n",
            "\r\n",
            "*",
            "+",
            "Read",
            "Write",
            "R",
            "W",
            "WS",
            "Q",
            "D",
            "28",
            "2a",
            "8,0",
            "[cat]",
            "CPU0 (8,0):",
            "version,time,op,size,lbn",
            "wdev",
            "-1",
            "0x10",
            "",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(token, 0..300).prop_map(|t| t.concat().into_bytes())
}

/// Oracle-general records, their next-access fields near the valid range.
fn record_shaped() -> impl Strategy<Value = Vec<u8>> {
    let next = prop_oneof![Just(-1i64), Just(i64::MAX), 0i64..300, any::<i64>()];
    let record = (any::<u32>(), 0u64..50, prop_oneof![0u32..9000, any::<u32>()], next);
    (prop::collection::vec(record, 0..200), 0usize..24).prop_map(|(records, tail)| {
        let mut bytes: Vec<u8> = records
            .iter()
            .flat_map(|&(t, id, size, next)| {
                let mut r = t.to_le_bytes().to_vec();
                r.extend_from_slice(&id.to_le_bytes());
                r.extend_from_slice(&size.to_le_bytes());
                r.extend_from_slice(&next.to_le_bytes());
                r
            })
            .collect();
        bytes.extend(std::iter::repeat_n(0xab, tail));
        bytes
    })
}

/// `content` compressed by one of the three codecs, then cut short and one byte changed (either may be
/// a no-op), as truncated downloads and bit rot leave files.
fn damaged_compressed(content: Vec<u8>, codec: u8, cut: f64, flip: Option<(f64, u8)>) -> Vec<u8> {
    let mut bytes = match codec % 3 {
        0 => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&content).unwrap();
            gz.finish().unwrap()
        }
        1 => zstd::encode_all(&content[..], 1).unwrap(),
        _ => {
            let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
            xz.write_all(&content).unwrap();
            xz.finish().unwrap()
        }
    };
    let keep = ((bytes.len() as f64) * cut).ceil() as usize;
    bytes.truncate(keep.max(1));
    if let Some((at, x)) = flip {
        let i = ((bytes.len() - 1) as f64 * at) as usize;
        bytes[i] ^= x;
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases()))]

    #[test]
    fn arbitrary_bytes(input in prop::collection::vec(any::<u8>(), 0..4096)) {
        check_everywhere(&input)?;
    }

    #[test]
    fn line_shaped_text(input in line_shaped()) {
        check_everywhere(&input)?;
    }

    #[test]
    fn record_shaped_binary(input in record_shaped()) {
        check_everywhere(&input)?;
    }

    #[test]
    fn compressed_then_damaged(
        content in prop_oneof![line_shaped(), record_shaped()],
        codec in any::<u8>(),
        cut in 0.0f64..=1.0,
        flip in prop::option::of((0.0f64..1.0, 1u8..=255)),
    ) {
        check_everywhere(&damaged_compressed(content, codec, cut, flip))?;
    }

    #[test]
    fn trace_specs(text in prop_oneof![
        ".{0,60}",
        "(zipf|uniform|scan|loop|mixed)\\?((alpha|objects|requests|start|run|random|streams|seed)=[0-9.e-]{0,12}&?){0,4}",
        "(csv:)?((lbn|id|time|size|op|volume|stream|delim|unit|size-unit|time-unit|read|write|other)=[0-9a-z|,]{0,4},?|header,?|cloudphysics,?){0,6}",
    ]) {
        let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
        let ((), peak) = peak_heap(|| fuzz_trace_spec(&text));
        // Zipf tables are built only up to 2^16 objects (~1.3 MB); every other synthetic kind is tables-free.
        prop_assert!(peak <= 8 << 20, "{peak} bytes of heap for the spec `{text}`");
    }
}

/// The committed fuzz corpus (`fuzz/corpus/TARGET/`), the inputs cargo-fuzz found interesting, each run
/// through its target's checks: the bounded fuzz run of CI.
#[test]
fn the_committed_corpus_replays_clean() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let mut inputs = 0;
    for target in ["lirs", "arc", "csv", "oracle_general", "msr", "spc", "blkparse", "auto", "trace_specs"] {
        let dir = corpus.join(target);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            let input = std::fs::read(&path).unwrap();
            let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
            let ((), peak) = peak_heap(|| {
                if target == "trace_specs" {
                    fuzz_trace_spec(&String::from_utf8_lossy(&input));
                } else {
                    fuzz_one(target, &input);
                }
            });
            let bound = heap_bound_bytes(&input).max(8 << 20);
            assert!(peak <= bound, "{}: {peak} bytes of heap (bound {bound})", path.display());
            inputs += 1;
        }
    }
    assert!(inputs >= 50, "the corpus holds {inputs} inputs: is fuzz/corpus there?");
}
