//! [`open_trace`]: from a path, standard input (`-`) or a `synth:` spec, and a format name, to a
//! [`TraceReader`].

use crate::detect::{by_name, detect_content, SNIFF_BYTES};
use crate::error::TraceError;
use crate::expand::PageExpander;
use crate::formats::arc::Arc;
use crate::formats::blkparse::Blkparse;
use crate::formats::csv::{Csv, CsvSpec};
use crate::formats::lirs::Lirs;
use crate::formats::msr::Msr;
use crate::formats::oracle::{OracleGeneral, RECORD_BYTES};
use crate::formats::spc::Spc;
use crate::formats::{LineFormat, LineTrace};
use crate::input::{map_file, Compression, LineSource, Peeked, RawInput, STDIN};
use crate::parse::TimeUnit;
use crate::request::{AddrUnit, Request};
use crate::synth::{SynthSpec, SynthTrace};
use crate::TraceReader;
use std::fmt;
use std::io::{self, Read};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// The format names [`Format::parse`] accepts, for messages and `--help`.
pub const FORMATS: &str = "auto, lirs, arc, csv:SPEC (presets: cloudphysics, pagelab, pagelab-objects), \
                           oracle-general[:time-unit=ns|us|ms|s], msr, spc, blkparse, synth (or a \
                           `synth:KIND?...` path)";

/// How to open a trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Skip malformed records and count them ([`TraceReader::skipped_records`]) instead of stopping at
    /// the first one. Off by default.
    pub skip_bad_lines: bool,
    /// The seed of synthetic traces whose spec does not give `seed=` (the run's `--seed`).
    pub seed: Option<u64>,
}

/// A trace format, with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Format {
    Lirs,
    Arc,
    Csv(Box<CsvSpec>),
    OracleGeneral { time_unit: TimeUnit },
    Msr,
    Spc,
    Blkparse,
    Synth,
}

impl Format {
    /// Parses a format name; `Ok(None)` for `auto` (detect from the file).
    pub fn parse(name: &str) -> Result<Option<Format>, TraceError> {
        let unknown = || {
            TraceError::invalid(
                format!("trace format `{name}`"),
                format!("unknown; expected one of {FORMATS}"),
            )
        };
        let format = match name {
            "auto" | "" => return Ok(None),
            "lirs" => Format::Lirs,
            "arc" | "lis" => Format::Arc,
            "msr" => Format::Msr,
            "spc" | "umass" => Format::Spc,
            "blkparse" => Format::Blkparse,
            "synth" => Format::Synth,
            "oracle-general" | "oracleGeneral" => Format::OracleGeneral { time_unit: TimeUnit::S },
            "cloudphysics" => Format::Csv(Box::new(CsvSpec::parse("csv:cloudphysics")?)),
            n if n == "csv" || n.starts_with("csv:") => Format::Csv(Box::new(CsvSpec::parse(n)?)),
            n => {
                let settings = n.strip_prefix("oracle-general:").or_else(|| n.strip_prefix("oracleGeneral:"));
                let Some(settings) = settings else { return Err(unknown()) };
                let unit = settings.strip_prefix("time-unit=").and_then(TimeUnit::from_name);
                let Some(time_unit) = unit else {
                    return Err(TraceError::invalid(
                        format!("trace format `{name}`"),
                        format!(
                            "expected `oracle-general:time-unit=UNIT` with UNIT one of {}",
                            TimeUnit::NAMES
                        ),
                    ));
                };
                Format::OracleGeneral { time_unit }
            }
        };
        Ok(Some(format))
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Lirs => write!(f, "lirs"),
            Format::Arc => write!(f, "arc"),
            Format::Csv(spec) => write!(f, "{}", spec.to_spec()),
            Format::OracleGeneral { time_unit } => write!(f, "oracle-general:time-unit={}", time_unit.name()),
            Format::Msr => write!(f, "msr"),
            Format::Spc => write!(f, "spc"),
            Format::Blkparse => write!(f, "blkparse"),
            Format::Synth => write!(f, "synth"),
        }
    }
}

/// Opens the trace `spec` — a file path (a regular file, a FIFO, `/dev/stdin`), [`STDIN`] (`-`) for
/// standard input, or a `synth:KIND?...` spec — in `format` (a name [`Format::parse`] accepts; `auto`
/// detects it). Compression is recognised by magic bytes. The input is opened once and nothing read to
/// recognise it is lost (see the module `input`).
pub fn open_trace(
    spec: &str,
    format: &str,
    options: &OpenOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    open_trace_as(spec, format, options).map(|(reader, _)| reader)
}

/// [`open_trace`], also returning the format the trace is read in (the one detected, under `auto`).
pub fn open_trace_as(
    spec: &str,
    format: &str,
    options: &OpenOptions,
) -> Result<(Box<dyn TraceReader>, Format), TraceError> {
    let format = Format::parse(format)?;
    if spec.starts_with("synth:") {
        return match format {
            None | Some(Format::Synth) => {
                let reader = SynthTrace::new(SynthSpec::parse(spec, options.seed)?);
                Ok((Box::new(reader), Format::Synth))
            }
            Some(other) => Err(TraceError::invalid(
                format!("trace `{spec}`"),
                format!("a synthetic spec cannot be read as {other}; use format auto or synth"),
            )),
        };
    }
    if format == Some(Format::Synth) {
        return Err(TraceError::invalid(
            format!("trace `{spec}`"),
            "format synth needs a `synth:KIND?...` spec",
        ));
    }
    open_input(RawInput::open(spec)?, format, options)
}

/// Reads a trace from `input` (any byte stream: a socket, an in-memory buffer), named `name` in messages
/// and for detection by name, in `format` (`auto` detects it). Never memory-mapped.
pub fn open_reader(
    input: Box<dyn Read + Send>,
    name: &Path,
    format: &str,
    options: &OpenOptions,
) -> Result<(Box<dyn TraceReader>, Format), TraceError> {
    let format = match Format::parse(format)? {
        Some(Format::Synth) => {
            return Err(TraceError::invalid(name.display().to_string(), "format synth names no input"))
        }
        f => f,
    };
    open_input(RawInput { path: name.to_path_buf(), read: input, regular: None }, format, options)
}

/// Whether reading `spec` twice gives the same trace twice: a regular file or a synthetic spec, not a
/// pipe, a FIFO, a device or standard input (which a second read would find empty or elsewhere). Callers
/// that would read a trace more than once read such an input once into memory instead. A path that
/// cannot be looked at is an error naming it, not an input that cannot be reread.
pub fn can_reread(spec: &str) -> Result<bool, TraceError> {
    if spec.starts_with("synth:") || spec == STDIN {
        return Ok(spec != STDIN);
    }
    let meta = std::fs::metadata(spec).map_err(|e| TraceError::io(spec, e))?;
    Ok(meta.is_file())
}

/// The read error that cut detection's sample short, if one did, at the line it would have been read on.
/// When the format cannot be told from the sample, that error (a truncated or corrupt compressed stream, a
/// device error) is why: what the bytes before it fail to show ("no non-blank line within the first 65536
/// bytes" for a zstd frame that decoded to nothing) is not.
fn sample_error<R: Read>(path: &Path, head: &mut Peeked<R>) -> Option<TraceError> {
    let line = head.head().iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    head.take_error().map(|e| TraceError::read(path, line, e))
}

/// Opens an input in `format`, detecting it when `None`.
fn open_input(
    raw: RawInput,
    format: Option<Format>,
    options: &OpenOptions,
) -> Result<(Box<dyn TraceReader>, Format), TraceError> {
    let path = raw.path.clone();
    let from_file = raw.regular.is_some(); // a compressed file's `regular` is gone after `decompress`
    let (input, compression, regular) = raw.decompress();
    let (input, format): (Box<dyn Read + Send>, Format) = match format.or_else(|| by_name(&path)) {
        Some(f) => (input, f),
        None => {
            let mut head = Peeked::new(input, SNIFF_BYTES);
            let format = detect_content(&path, head.head(), !head.ended(SNIFF_BYTES))
                .map_err(|e| sample_error(&path, &mut head).unwrap_or(e))?;
            (Box::new(head), format)
        }
    };
    if compression == Compression::None {
        return formatted(input, path, format, regular, compression, options);
    }
    // A damaged compressed stream decodes to garbage before its checksum fails: the stream is shared so
    // that a bad record can be told apart from damage by reading the rest (all of a file; of a pipe, which
    // may never end, a bounded stretch).
    let lookahead_bytes_max = if from_file { u64::MAX } else { DAMAGE_LOOKAHEAD_BYTES_PIPE };
    let rest = SharedStream(std::sync::Arc::new(Mutex::new(input)));
    let (inner, format) = formatted(Box::new(rest.clone()), path, format, regular, compression, options)?;
    Ok((Box::new(CompressedTrace { inner, rest, lookahead_bytes_max }), format))
}

/// The format's reader over a decoded `input`.
fn formatted(
    input: Box<dyn Read + Send>,
    path: std::path::PathBuf,
    format: Format,
    regular: Option<std::fs::File>,
    compression: Compression,
    options: &OpenOptions,
) -> Result<(Box<dyn TraceReader>, Format), TraceError> {
    let skip = options.skip_bad_lines;
    if let Format::OracleGeneral { time_unit } = format {
        if let Some(file) = &regular {
            if let Some(bytes) = map_file(file, &path)? {
                return Ok((Box::new(OracleGeneral::mapped(bytes, path, time_unit, skip)?), format));
            }
        }
        let hint = regular
            .and_then(|f| f.metadata().ok())
            .map(|m| m.len() / RECORD_BYTES as u64)
            .filter(|_| compression == Compression::None);
        return Ok((Box::new(OracleGeneral::new(input, path, time_unit, skip, hint)), format));
    }
    fn boxed<F: LineFormat + 'static>(lines: LineSource, f: F, skip: bool) -> Box<dyn TraceReader> {
        Box::new(LineTrace::new(lines, f, skip))
    }
    let lines = LineSource::new(input, path);
    let reader = match &format {
        Format::Lirs => boxed(lines, Lirs, skip),
        Format::Arc => boxed(lines, Arc, skip),
        Format::Csv(spec) => boxed(lines, Csv::new((**spec).clone()), skip),
        Format::Msr => boxed(lines, Msr::default(), skip),
        Format::Spc => boxed(lines, Spc, skip),
        Format::Blkparse => boxed(lines, Blkparse::default(), skip),
        Format::OracleGeneral { .. } | Format::Synth => unreachable!("opened above / by open_trace_as"),
    };
    Ok((reader, format))
}

/// The decoded stream of a compressed trace, read by the format's reader and, after a bad record, by
/// [`CompressedTrace`].
#[derive(Clone)]
struct SharedStream(std::sync::Arc<Mutex<Box<dyn Read + Send>>>);

impl Read for SharedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).read(buf)
    }
}

/// How much of a compressed pipe (standard input, a FIFO) is decoded past a bad record to look for damage:
/// a pipe may never end (`zcat big.gz | …` is finite, a generator's output need not be), so the search
/// stops here and the bad record is reported. 16 MiB decoded spans over a hundred zstd blocks (at most
/// 128 KiB each): damage that breaks a block's coding shows within that stretch, and so does a checksum at
/// the end of a frame, an xz block or a gzip member that ends there. Damage that only a checksum further on
/// would catch is not found in a pipe, and is reported as the bad record it decoded to, with how far past it
/// the stream was decoded.
const DAMAGE_LOOKAHEAD_BYTES_PIPE: u64 = 16 << 20;

/// A compressed trace's reader. A bad record there may be damage the codec has not yet seen (a gzip
/// member's CRC is checked at its end, after the garbage is out): before it is reported, the rest of the
/// stream is decoded, and a codec error found there is the error, at the bad record's line. The extra
/// read happens once, on the error path: to the end of a file, bounded by its size, and at most
/// [`DAMAGE_LOOKAHEAD_BYTES_PIPE`] of a pipe.
struct CompressedTrace {
    inner: Box<dyn TraceReader>,
    rest: SharedStream,
    lookahead_bytes_max: u64,
}

impl CompressedTrace {
    fn damage_or(&mut self, mut error: TraceError) -> TraceError {
        let TraceError::BadRecord { path, line, expected, .. } = &mut error else { return error };
        match io::copy(&mut (&mut self.rest).take(self.lookahead_bytes_max), &mut io::sink()) {
            // `io::copy` retries an interrupted read itself.
            Err(e) => TraceError::read(path.clone(), *line, e),
            Ok(read) => {
                if read == self.lookahead_bytes_max {
                    // A pipe's bounded look: say how far it went, since damage beyond it was not looked for.
                    let mib = self.lookahead_bytes_max >> 20;
                    expected
                        .push_str(&format!("; the next {mib} MiB of the compressed pipe decoded cleanly"));
                }
                error
            }
        }
    }
}

impl TraceReader for CompressedTrace {
    fn addr_unit(&self) -> AddrUnit {
        self.inner.addr_unit()
    }

    fn next_request(&mut self) -> Result<Option<Request>, TraceError> {
        self.inner.next_request().map_err(|e| self.damage_or(e))
    }

    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        self.inner.next_batch(out, max).map_err(|e| self.damage_or(e))
    }

    fn next_page_keys(
        &mut self,
        expander: &PageExpander,
        out: &mut Vec<u64>,
        max: usize,
    ) -> Result<usize, TraceError> {
        self.inner.next_page_keys(expander, out, max).map_err(|e| self.damage_or(e))
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn has_next_vtime(&self) -> bool {
        self.inner.has_next_vtime()
    }

    fn skipped_records(&self) -> u64 {
        self.inner.skipped_records()
    }

    fn ignored_records(&self) -> u64 {
        self.inner.ignored_records()
    }

    fn requests_hint(&self) -> Option<u64> {
        self.inner.requests_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{drain, temp_trace};
    use crate::TraceError;

    #[test]
    fn unknown_formats_list_the_known_ones() {
        let err = Format::parse("parquet").unwrap_err().to_string();
        assert_eq!(err, format!("trace format `parquet`: unknown; expected one of {FORMATS}"));
        let err = Format::parse("oracle-general:time-unit=weeks").unwrap_err().to_string();
        assert_eq!(
            err,
            "trace format `oracle-general:time-unit=weeks`: expected `oracle-general:time-unit=UNIT` with UNIT one \
             of ns, us, ms, s, 100ns (Windows filetime ticks)"
        );
        assert_eq!(Format::parse("auto").unwrap(), None);
        assert_eq!(Format::parse("umass").unwrap(), Some(Format::Spc));
        assert_eq!(Format::parse("cloudphysics").unwrap(), Format::parse("csv:cloudphysics").unwrap());
    }

    #[test]
    fn undetectable_content_is_an_error_naming_the_file() {
        let (_d, path) = temp_trace("mystery.dat", b"hello world\n");
        let err =
            open_trace(path.to_str().unwrap(), "auto", &OpenOptions::default()).err().unwrap().to_string();
        assert_eq!(
            err,
            format!(
                "{}:1: bad record `hello world`: expected a line of a trace format (cannot tell the format from the \
                 name or the first lines); pass a format: {FORMATS}",
                path.display()
            )
        );
        let (_d, path) = temp_trace("blank.dat", b"\n  \n");
        let err = open_trace(path.to_str().unwrap(), "auto", &OpenOptions::default()).err().unwrap();
        assert_eq!(err.to_string(), format!("{}: the trace has no requests (it is empty)", path.display()));
    }

    #[test]
    fn missing_files_name_the_path() {
        let err = open_trace("/nonexistent/x.trace", "auto", &OpenOptions::default()).err().unwrap();
        assert!(
            matches!(&err, TraceError::Io { path, .. } if path == Path::new("/nonexistent/x.trace")),
            "{err}"
        );
    }

    #[test]
    fn synthetic_specs_open_as_traces_and_take_the_run_seed() {
        let opts = |seed| OpenOptions { skip_bad_lines: false, seed };
        let pages = |spec: &str, seed| {
            let mut r = open_trace(spec, "auto", &opts(seed)).unwrap();
            drain(r.as_mut()).unwrap().iter().map(|r| r.addr).collect::<Vec<_>>()
        };
        let spec = "synth:uniform?objects=100&requests=50";
        assert_eq!(pages(spec, Some(4)), pages("synth:uniform?objects=100&requests=50&seed=4", None));
        assert_ne!(pages(spec, Some(4)), pages(spec, Some(5)));
        assert_eq!(pages(spec, None), pages("synth:uniform?objects=100&requests=50&seed=1", None));
        let reader = open_trace(spec, "synth", &opts(Some(4))).unwrap();
        assert_eq!(reader.describe(), "synth:uniform?objects=100&requests=50&seed=4");
        assert_eq!(reader.requests_hint(), Some(50));
        let err = open_trace(spec, "lirs", &opts(None)).err().unwrap().to_string();
        assert_eq!(err, "trace `synth:uniform?objects=100&requests=50`: a synthetic spec cannot be read as lirs; use format auto or synth");
    }

    #[test]
    fn an_over_long_line_is_a_bad_record() {
        let mut text = b"1\n".to_vec();
        text.resize(text.len() + crate::input::LINE_BUFFER_BYTES + 10, b'7');
        text.extend_from_slice(b"\n2\n");
        let (_, line, shown, expected) = crate::testing::bad_record("long.trace", &text, "lirs");
        assert_eq!(
            (line, shown.chars().count()),
            (2, 121),
            "the text is cut to 120 characters and an ellipsis"
        );
        assert_eq!(expected, format!("a lirs line of at most {} bytes", crate::input::LINE_BUFFER_BYTES));
        let (requests, skipped, _) = crate::testing::read_bytes("long.trace", &text, "lirs", true).unwrap();
        assert_eq!((requests.iter().map(|r| r.addr).collect::<Vec<_>>(), skipped), (vec![1, 2], 1));
    }

    /// A byte stream that hands out at most `step` bytes per read, as a pipe may.
    struct Trickle {
        bytes: Vec<u8>,
        pos: usize,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.step).min(self.bytes.len() - self.pos);
            buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn ids_from_stream(bytes: &[u8], name: &str, format: &str) -> (Vec<u64>, String) {
        let input = Box::new(Trickle { bytes: bytes.to_vec(), pos: 0, step: 3 });
        let (mut reader, format) =
            open_reader(input, Path::new(name), format, &OpenOptions::default()).unwrap();
        (drain(reader.as_mut()).unwrap().iter().map(|r| r.addr).collect(), format.to_string())
    }

    #[test]
    fn a_stream_loses_nothing_to_detection() {
        let text = b"1234567\n1234567\n42\n";
        assert_eq!(ids_from_stream(text, "-", "auto"), (vec![1234567, 1234567, 42], "lirs".into()));
        assert_eq!(ids_from_stream(text, "-", "lirs"), (vec![1234567, 1234567, 42], "lirs".into()));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(ids_from_stream(&gz, "<stdin>", "auto"), (vec![1234567, 1234567, 42], "lirs".into()));
        let zst = zstd::encode_all(&text[..], 1).unwrap();
        assert_eq!(ids_from_stream(&zst, "x.trace.zst", "auto").0, vec![1234567, 1234567, 42]);
    }

    #[test]
    fn a_truncated_compressed_stream_names_the_line_and_the_codec() {
        let text: String = (0..200_000).map(|i| format!("{i}\n")).collect();
        let zst = zstd::encode_all(text.as_bytes(), 1).unwrap();
        let cut = &zst[..zst.len() / 2];
        let input = Box::new(Trickle { bytes: cut.to_vec(), pos: 0, step: 4096 });
        let (mut reader, _) =
            open_reader(input, Path::new("cut.zst"), "lirs", &OpenOptions::default()).unwrap();
        let err = drain(reader.as_mut()).unwrap_err();
        let TraceError::Read { line, .. } = &err else { panic!("{err:?}") };
        assert!(*line > 1000 && *line < 200_000, "{err}");
        let msg = err.to_string();
        assert!(msg.starts_with(&format!("cut.zst:{line}: the zstd data ends early or is corrupt")), "{msg}");
        assert!(msg.contains("truncated or damaged"), "{msg}");
    }

    /// A generator's output: `good` lines, one bad record, then good lines with no end in sight. Past
    /// `bytes_max` it fails, as a test's bound on a stream that should not have been read so far.
    struct Generator {
        good: u64,
        written: u64,
        bytes_max: u64,
    }

    impl Read for Generator {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.written >= self.bytes_max {
                return Err(std::io::Error::other("read past the test's bound"));
            }
            let line: &[u8] = if self.written == self.good * 2 { b"bad\n" } else { b"7\n" };
            let n = line.len().min(buf.len());
            buf[..n].copy_from_slice(&line[..n]);
            self.written += n as u64;
            Ok(n)
        }
    }

    /// A bad record in a compressed pipe that never ends (`generator | gzip | pagelab cachesim --trace -`)
    /// is reported after a bounded look for damage past it. The look used to read the pipe to its end: a
    /// generator's never came, and the run hung (here: the generator's bound, reported as a read error).
    #[test]
    fn a_bad_record_in_an_endless_compressed_pipe_is_reported() {
        let source = Generator { good: 1000, written: 0, bytes_max: 4 * DAMAGE_LOOKAHEAD_BYTES_PIPE };
        let gz = flate2::read::GzEncoder::new(source, flate2::Compression::fast());
        let (mut reader, _) =
            open_reader(Box::new(gz), Path::new("<stdin>"), "lirs", &OpenOptions::default()).unwrap();
        let err = drain(reader.as_mut()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("<stdin>:1001: bad record `bad`"), "{msg}");
        assert!(msg.ends_with("; the next 16 MiB of the compressed pipe decoded cleanly"), "{msg}");
    }

    /// `text` compressed with `codec` (`zstd`, `gzip` or `xz`), as the encoders write whole files.
    fn compress(codec: &str, text: &[u8]) -> Vec<u8> {
        use std::io::Write;
        match codec {
            "zstd" => zstd::encode_all(text, 3).unwrap(),
            "gzip" => {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(text).unwrap();
                gz.finish().unwrap()
            }
            "xz" => {
                let mut xz = xz2::write::XzEncoder::new(Vec::new(), 6);
                xz.write_all(text).unwrap();
                xz.finish().unwrap()
            }
            other => unreachable!("no codec {other}"),
        }
    }

    /// The message of opening `bytes` as `name` in format auto and reading it to the end.
    fn open_and_read_error(name: &str, bytes: &[u8]) -> String {
        let (_dir, path) = temp_trace(name, bytes);
        let err = match open_trace(path.to_str().unwrap(), "auto", &OpenOptions::default()) {
            Ok(mut reader) => drain(reader.as_mut()).unwrap_err(),
            Err(e) => e,
        };
        err.to_string().replace(&path.display().to_string(), name)
    }

    /// A compressed trace cut short, or damaged, before detection's sample could decode a line says that
    /// its stream is truncated or corrupt, naming the file and the codec. The decoder's error used to be
    /// lost to detection: "no non-blank line within the first 65536 bytes" (a zstd frame decodes block by
    /// block, so half a small file decodes to nothing), or a bad record for the few bytes an xz decoded.
    #[test]
    fn a_compressed_trace_cut_short_is_named_truncated_not_undetectable() {
        let text: String =
            (0..3000).map(|i| format!("{},{},4096,R,0,0\n", i * 1000, i % 97 * 4096)).collect();
        let text = format!("{}\n{text}", crate::formats::csv::PAGELAB_HEADER);
        for (codec, ext) in [("zstd", "zst"), ("gzip", "gz"), ("xz", "xz")] {
            let whole = compress(codec, text.as_bytes());
            let name = format!("trace.csv.{ext}");
            let broken = format!("the {codec} data ends early or is corrupt (");
            // Half the file: zstd decodes nothing of it, gzip and xz a part (then the reader names the line).
            let half = open_and_read_error(&name, &whole[..whole.len() / 2]);
            assert!(half.starts_with(&format!("{name}:")) && half.contains(&broken), "{half}");
            assert!(half.ends_with("the file is truncated or damaged"), "{half}");
            // Just past the header: no codec decodes a line.
            let cut = open_and_read_error(&name, &whole[..24]);
            assert!(cut.starts_with(&format!("{name}:1: {broken}")), "{cut}");
        }
        let whole = compress("zstd", text.as_bytes());
        let half = open_and_read_error("trace.csv.zst", &whole[..whole.len() / 2]);
        assert!(half.starts_with("trace.csv.zst:1: the zstd data ends early or is corrupt ("), "{half}");
        let mut damaged = whole.clone();
        damaged[whole.len() / 3..whole.len() / 3 + 40].iter_mut().for_each(|b| *b ^= 0x55);
        let err = open_and_read_error("trace.csv.zst", &damaged);
        assert!(err.starts_with("trace.csv.zst:1: the zstd data ends early or is corrupt ("), "{err}");
    }

    /// Damage inside a gzip member decodes to garbage first and fails its CRC only at the member's end: the
    /// garbage's bad record is reported as the damage it is (it was "bad record `…`: expected …"), at the
    /// garbage's line. A bad record in an intact compressed trace is still a bad record.
    #[test]
    fn damage_inside_a_compressed_trace_is_named_damage_not_a_bad_record() {
        let text: String = (0..20_000).map(|i| format!("{}\n", i % 997)).collect();
        let whole = compress("gzip", text.as_bytes());
        let mut damaged = whole.clone();
        damaged[whole.len() / 3..whole.len() / 3 + 8].iter_mut().for_each(|b| *b = 0xff);
        let err = open_and_read_error("t.lirs.gz", &damaged);
        assert!(err.contains("the gzip data ends early or is corrupt ("), "{err}");
        assert!(err.ends_with("the file is truncated or damaged") && !err.contains("bad record"), "{err}");
        let line: u64 = err.split(':').nth(1).and_then(|l| l.parse().ok()).expect("a line");
        assert!(line > 1, "{err}");
        let bad = compress("gzip", format!("{}x\n{text}", &text[..40]).as_bytes());
        let err = open_and_read_error("t.lirs.gz", &bad);
        assert!(err.starts_with("t.lirs.gz:") && err.contains("bad record `"), "{err}");
    }

    #[test]
    fn a_directory_is_not_a_trace() {
        let dir = tempfile::tempdir().unwrap();
        let err = open_trace(dir.path().to_str().unwrap(), "lirs", &OpenOptions::default()).err().unwrap();
        assert!(err.to_string().ends_with("is a directory, not a trace file"), "{err}");
        assert!(!can_reread(dir.path().to_str().unwrap()).unwrap());
        assert!(!can_reread("-").unwrap() && can_reread("synth:scan?objects=3").unwrap());
        let missing = dir.path().join("missing.trace");
        let err = can_reread(missing.to_str().unwrap()).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: ", missing.display())) && err.contains("No such file"),
            "{err}"
        );
    }
}
