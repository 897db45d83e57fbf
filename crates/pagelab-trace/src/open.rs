//! [`open_trace`]: from a path (or a `synth:` spec) and a format name to a [`TraceReader`].

use crate::detect::detect;
use crate::error::TraceError;
use crate::formats::arc::Arc;
use crate::formats::blkparse::Blkparse;
use crate::formats::csv::{Csv, CsvSpec};
use crate::formats::lirs::Lirs;
use crate::formats::msr::Msr;
use crate::formats::oracle::{OracleGeneral, RECORD_BYTES};
use crate::formats::spc::Spc;
use crate::formats::{LineFormat, LineTrace};
use crate::input::{map_file, open_decompressed, Compression, LineSource};
use crate::parse::TimeUnit;
use crate::synth::{SynthSpec, SynthTrace};
use crate::TraceReader;
use std::fmt;
use std::path::Path;

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

/// Opens the trace `spec` — a file path, or a `synth:KIND?...` spec — in `format` (a name [`Format::parse`]
/// accepts; `auto` detects it with [`detect`]). Compression is recognised by magic bytes.
pub fn open_trace(
    spec: &str,
    format: &str,
    options: &OpenOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let format = Format::parse(format)?;
    if spec.starts_with("synth:") {
        return match format {
            None | Some(Format::Synth) => {
                Ok(Box::new(SynthTrace::new(SynthSpec::parse(spec, options.seed)?)))
            }
            Some(other) => Err(TraceError::invalid(
                format!("trace `{spec}`"),
                format!("a synthetic spec cannot be read as {other}; use format auto or synth"),
            )),
        };
    }
    let path = Path::new(spec);
    let format = match format {
        Some(Format::Synth) => {
            return Err(TraceError::invalid(
                format!("trace `{spec}`"),
                "format synth needs a `synth:KIND?...` spec",
            ))
        }
        Some(f) => f,
        None => detect(path)?,
    };
    open_file(path, format, options)
}

/// Opens the file `path` in a known format.
pub(crate) fn open_file(
    path: &Path,
    format: Format,
    options: &OpenOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let (input, compression, size_bytes) = open_decompressed(path)?;
    let skip = options.skip_bad_lines;
    if let Format::OracleGeneral { time_unit } = format {
        if compression == Compression::None {
            if let Some(bytes) = map_file(path)? {
                return Ok(Box::new(OracleGeneral::mapped(bytes, path.to_path_buf(), time_unit, skip)));
            }
        }
        let hint = (compression == Compression::None).then_some(size_bytes / RECORD_BYTES as u64);
        return Ok(Box::new(OracleGeneral::new(input, path.to_path_buf(), time_unit, skip, hint)));
    }
    fn boxed<F: LineFormat + 'static>(lines: LineSource, f: F, skip: bool) -> Box<dyn TraceReader> {
        Box::new(LineTrace::new(lines, f, skip))
    }
    let lines = LineSource::new(input, path.to_path_buf());
    Ok(match format {
        Format::Lirs => boxed(lines, Lirs, skip),
        Format::Arc => boxed(lines, Arc, skip),
        Format::Csv(spec) => boxed(lines, Csv::new(*spec), skip),
        Format::Msr => boxed(lines, Msr::default(), skip),
        Format::Spc => boxed(lines, Spc, skip),
        Format::Blkparse => boxed(lines, Blkparse::default(), skip),
        Format::OracleGeneral { .. } | Format::Synth => unreachable!("opened above / by open_trace"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{drain, temp_trace};

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
                "{}: cannot tell the trace format from the name or the first lines (`hello world`); pass a format: \
                 {FORMATS}",
                path.display()
            )
        );
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
}
