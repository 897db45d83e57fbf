//! Choosing a workload on the command line: a built-in name with parameters
//! (`one-rand:files=2000,block=64KiB`) or a TOML file with the same keys.
//!
//! Keys (all optional; defaults are the named workload's):
//! `files`, `file_size`, `files_per_request`, `interleave`, `block`, `length` (`whole`, `fixed`,
//! `uniform`), `length_min`, `length_max` (uniform), `length_bytes` (fixed), `same_length`, `start`
//! (`zero`, `random`), `choice` (`random`, `round-robin`), `think` (CPU after each read, e.g. `2ms`).
//! A TOML file may also set `base` (a built-in name to start from; default `one-rand`) and `name`.
//!
//! Li & Shen's application workloads ([`APP_WORKLOADS`]) take their own keys: `index-search` `terms`,
//! `zipf`, `keywords` (`web` or a number), `block`, `list_max`, `interleave` (`merge`, `round-robin`);
//! `media-clips` `files`, `zipf`, `block` (see their modules). MemRx's evaluation workloads
//! ([`MEMRX_WORKLOADS`]: `fs-seq`, `fs-seq-mt`, `fs-random`, `dbench`, `mogrify`, `cpu-sim`) take theirs
//! (see `workload::memrx`). Zhang et al.'s streams ([`SCM_WORKLOADS`]: `rate-streams`, `spc2-vod`,
//! `file-transfer`) take `rates`, `cv`, `random`, `streams`, `tpch`, `clients`, `random_block`,
//! `random_size`, `span` (see `workload::scm`). DULO's workloads ([`DULO_WORKLOADS`]: `viewperf-like`,
//! `tpch-like`, `glimpse-like`, `multi1-like`, `multi2-like`) take `scale` (a factor on their datasets
//! and lengths, 0.01 to 4, default 1) and `seed` (their files and reads, default 2005; see
//! `workload::dulo`). papers/004's workloads ([`METADATA_WORKLOADS`]): `stat-batch` takes `files`,
//! `threads`, `random`, `scale`, `seed`, `order` (`inode` or `hash`) and `dir` (with `order=hash`), and
//! `nfs-mix` takes `files`, `threads`, `rate`, `scale` and `seed` (see `workload::metadata`).

use super::dulo::{Dulo, SEED_DEFAULT};
use super::index_search::IndexSearch;
use super::media_clips::MediaClips;
use super::memory::{FileWrites, SparseMatVec, VmTouch};
use super::memrx::{memrx_workload, MEMRX_WORKLOADS};
use super::metadata::{metadata_workload, METADATA_WORKLOADS};
use super::pattern::{Choice, Length, Pattern, PatternWorkload, Start};
use super::scm::scm_workload;
use super::Workload;
use crate::error::SimError;
use pagelab_core::spec::Spec;
use pagelab_core::units::fmt_f64;
use pagelab_core::Nanos;
use pagelab_core::PAGE_SIZE_BYTES;
use std::path::Path;

pub const BUILTIN: [&str; 6] = ["one-whole", "one-rand", "two-rand", "four-64kb", "seq", "random"];

const KEYS: [&str; 13] = [
    "files",
    "file_size",
    "files_per_request",
    "interleave",
    "block",
    "length",
    "length_min",
    "length_max",
    "length_bytes",
    "same_length",
    "start",
    "choice",
    "think",
];

/// A built-in pattern by name.
pub fn builtin(name: &str) -> Option<Pattern> {
    Some(match name {
        "one-whole" => Pattern::one_whole(),
        "one-rand" => Pattern::one_rand(),
        "two-rand" => Pattern::two_rand(),
        "four-64kb" => Pattern::four_64kb(),
        "seq" => Pattern::seq(),
        "random" => Pattern::random(),
        _ => return None,
    })
}

/// Parse `NAME[:key=value,...]` or a path ending in `.toml`.
pub fn parse_workload(text: &str) -> Result<Box<dyn Workload>, SimError> {
    if text.ends_with(".toml") {
        return from_toml_file(Path::new(text))
            .map(|p| Box::new(PatternWorkload::new(p)) as Box<dyn Workload>);
    }
    let spec = Spec::parse(text)?;
    let in_spec = |e: SimError| e.context(format!("workload `{text}`"));
    if let Some(w) = memory_workload(&spec).map_err(in_spec)? {
        return Ok(w);
    }
    if let Some(w) = app_workload(&spec).map_err(in_spec)? {
        return Ok(w);
    }
    if let Some(w) = memrx_workload(&spec).map_err(in_spec)? {
        return Ok(w);
    }
    if let Some(w) = scm_workload(&spec).map_err(in_spec)? {
        return Ok(Box::new(w));
    }
    if let Some(w) = dulo_workload(&spec).map_err(in_spec)? {
        return Ok(Box::new(w));
    }
    if let Some(w) = metadata_workload(&spec).map_err(in_spec)? {
        return Ok(w);
    }
    let base = builtin(&spec.name).ok_or_else(|| {
        SimError::invalid(
            format!("unknown workload `{}`", spec.name),
            format!(
                "expected one of {}, {}, {}, {}, {}, {}, {} or a .toml file",
                BUILTIN.join(", "),
                APP_WORKLOADS.join(", "),
                MEMORY_WORKLOADS.join(", "),
                MEMRX_WORKLOADS.join(", "),
                SCM_WORKLOADS.join(", "),
                DULO_WORKLOADS.join(", "),
                METADATA_WORKLOADS.join(", ")
            ),
        )
    })?;
    let pattern = apply(base, &spec).map_err(in_spec)?;
    Ok(Box::new(PatternWorkload::new(pattern)))
}

/// Zhang et al.'s streams (papers/002): `workload::scm`.
pub const SCM_WORKLOADS: [&str; 3] = ["rate-streams", "spc2-vod", "file-transfer"];

/// DULO's workloads (papers/001 §4.1.1, Table 2): `workload::dulo`.
pub const DULO_WORKLOADS: [&str; 5] =
    ["viewperf-like", "tpch-like", "glimpse-like", "multi1-like", "multi2-like"];

/// `viewperf-like:scale=0.5,seed=7` and the other [`DULO_WORKLOADS`]; `None` for another name.
pub fn dulo_workload(spec: &Spec) -> Result<Option<Dulo>, SimError> {
    if !DULO_WORKLOADS.contains(&spec.name.as_str()) {
        return Ok(None);
    }
    let e = SimError::Core;
    // Dulo::new refuses a scale outside SCALE_MIN..=SCALE_MAX.
    let scale = spec.f64("scale", 1.0).map_err(e)?;
    let seed = spec.u64("seed", SEED_DEFAULT).map_err(e)?;
    spec.finish(&["scale", "seed"]).map_err(e)?;
    Dulo::new(&spec.name, scale, seed).map(Some)
}

/// Li & Shen's application workloads (papers/000 §4.1): `workload::index_search`, `workload::media_clips`.
pub const APP_WORKLOADS: [&str; 2] = ["index-search", "media-clips"];

/// `index-search:...` or `media-clips:...`; `None` for another name.
fn app_workload(spec: &Spec) -> Result<Option<Box<dyn Workload>>, SimError> {
    Ok(Some(match spec.name.as_str() {
        "index-search" => Box::new(IndexSearch::from_spec(spec)?),
        "media-clips" => Box::new(MediaClips::from_spec(spec)?),
        _ => return Ok(None),
    }))
}

/// The workloads that write or page (`workload::memory`).
pub const MEMORY_WORKLOADS: [&str; 4] = ["vm-seq", "vm-random", "smm", "write"];

/// `vm-seq:size=256MiB,passes=10,touch_cpu=100ns`, `vm-random:size=256MiB,write=false`,
/// `smm:n=869000,per_row=10,multiplications=15,row_cpu=100ns`,
/// `write:files=100,file_size=4MiB,block=16KiB,mode=random,read_fraction=0`; `None` for another name.
fn memory_workload(spec: &Spec) -> Result<Option<Box<dyn Workload>>, SimError> {
    let e = SimError::Core;
    let w: Box<dyn Workload> = match spec.name.as_str() {
        name @ ("vm-seq" | "vm-random") => {
            let bytes = spec.bytes("size", 256 << 20).map_err(e)?;
            if !(PAGE_SIZE_BYTES..=(1 << 40)).contains(&bytes) {
                return Err(SimError::invalid(format!("size={bytes}"), "expected one page to 1 TiB"));
            }
            let write = spec.bool("write", true).map_err(e)?;
            let touch_cpu = spec.duration_ns("touch_cpu", VmTouch::TOUCH_CPU.0).map_err(e)?;
            let passes = spec.u64("passes", VmTouch::PASSES).map_err(e)?;
            if !(1..=1_000_000).contains(&passes) {
                return Err(SimError::invalid(format!("passes={passes}"), "expected 1 to 1000000"));
            }
            spec.finish(&["size", "passes", "write", "touch_cpu"]).map_err(e)?;
            Box::new(VmTouch::new(name == "vm-seq", bytes, write, Nanos(touch_cpu.max(1)), passes))
        }
        "smm" => {
            let n = spec.u64("n", SparseMatVec::N_DEFAULT).map_err(e)?;
            let per_row = spec.u64("per_row", SparseMatVec::PER_ROW).map_err(e)?;
            if !(1..=1 << 30).contains(&n) || !(1..=n).contains(&per_row) {
                return Err(SimError::invalid(
                    format!("n={n}, per_row={per_row}"),
                    "expected 1 <= per_row <= n <= 2^30",
                ));
            }
            let row_cpu = spec.duration_ns("row_cpu", SparseMatVec::ROW_CPU.0).map_err(e)?;
            let mults = spec.u64("multiplications", SparseMatVec::MULTIPLICATIONS).map_err(e)?;
            if !(1..=10_000).contains(&mults) {
                return Err(SimError::invalid(format!("multiplications={mults}"), "expected 1 to 10000"));
            }
            spec.finish(&["n", "per_row", "multiplications", "row_cpu"]).map_err(e)?;
            Box::new(SparseMatVec::new(n, per_row, Nanos(row_cpu.max(1)), mults))
        }
        "write" => {
            let files = spec.u64("files", 100).map_err(e)?;
            let file_bytes = spec.bytes("file_size", 4 << 20).map_err(e)?;
            let block = spec.bytes("block", 16 << 10).map_err(e)?;
            let sequential = match spec.string("mode").as_deref() {
                None | Some("random") => false,
                Some("seq") => true,
                Some(other) => {
                    return Err(SimError::invalid(format!("mode=`{other}`"), "expected random or seq"))
                }
            };
            let read_fraction = spec.f64("read_fraction", 0.0).map_err(e)?;
            spec.finish(&["files", "file_size", "block", "mode", "read_fraction"]).map_err(e)?;
            let files = u32::try_from(files).ok().filter(|f| (1..=100_000).contains(f));
            let Some(files) = files else { return Err(SimError::invalid("files", "expected 1 to 100000")) };
            if block == 0 || block % PAGE_SIZE_BYTES != 0 || file_bytes < block || file_bytes % block != 0 {
                return Err(SimError::invalid(
                    format!("block={block}, file_size={file_bytes}"),
                    "expected whole pages, the file a multiple of the block",
                ));
            }
            if !(0.0..=1.0).contains(&read_fraction) {
                let what = format!("read_fraction={}", fmt_f64(read_fraction));
                return Err(SimError::invalid(what, "expected 0 to 1"));
            }
            Box::new(FileWrites::new(files, file_bytes, block, sequential, read_fraction))
        }
        _ => return Ok(None),
    };
    Ok(Some(w))
}

fn apply(mut p: Pattern, spec: &Spec) -> Result<Pattern, SimError> {
    let e = SimError::Core;
    let too_many = |key: &str| SimError::invalid(key, "too many (expected at most 2^32 - 1)");
    p.files = u32::try_from(spec.u64("files", p.files as u64).map_err(e)?).map_err(|_| too_many("files"))?;
    p.file_bytes = spec.bytes("file_size", p.file_bytes).map_err(e)?;
    p.files_per_request =
        u32::try_from(spec.u64("files_per_request", p.files_per_request as u64).map_err(e)?)
            .map_err(|_| too_many("files_per_request"))?;
    p.interleave = spec.bool("interleave", p.interleave).map_err(e)?;
    let old_block = p.block_bytes;
    p.block_bytes = spec.bytes("block", p.block_bytes).map_err(e)?;
    // Lengths defined as "one block" follow a changed block size (Four-64KB's block, One-Rand's minimum).
    p.length = match p.length {
        Length::Fixed(n) if n == old_block => Length::Fixed(p.block_bytes),
        Length::Uniform { min, max } if min == old_block => Length::Uniform { min: p.block_bytes, max },
        other => other,
    };
    p.same_length = spec.bool("same_length", p.same_length).map_err(e)?;
    p.think = Nanos(spec.duration_ns("think", p.think.0).map_err(e)?);
    if let Some(kind) = spec.string("length") {
        p.length = match kind.as_str() {
            "whole" => Length::Whole,
            "fixed" => Length::Fixed(p.block_bytes),
            "uniform" => Length::Uniform { min: p.block_bytes, max: p.file_bytes },
            other => {
                return Err(SimError::invalid(
                    format!("length=`{other}`"),
                    "expected whole, fixed or uniform",
                ))
            }
        };
    }
    // A length key of another kind of length would be refused as unknown, in a message that lists it.
    let kind = match p.length {
        Length::Fixed(_) => "fixed",
        Length::Uniform { .. } => "uniform",
        Length::Whole => "whole",
    };
    for (key, wants) in [("length_bytes", "fixed"), ("length_min", "uniform"), ("length_max", "uniform")] {
        if kind != wants && spec.string(key).is_some() {
            return Err(SimError::invalid(
                key,
                format!("applies with length={wants} only (this one's length is {kind}: add length={wants})"),
            ));
        }
    }
    p.length = match p.length {
        Length::Fixed(n) => Length::Fixed(spec.bytes("length_bytes", n).map_err(e)?),
        Length::Uniform { min, max } => Length::Uniform {
            min: spec.bytes("length_min", min).map_err(e)?,
            max: spec.bytes("length_max", max.min(p.file_bytes)).map_err(e)?,
        },
        Length::Whole => Length::Whole,
    };
    if let Some(s) = spec.string("start") {
        p.start = match s.as_str() {
            "zero" => Start::Zero,
            "random" => Start::RandomAligned,
            other => return Err(SimError::invalid(format!("start=`{other}`"), "expected zero or random")),
        };
    }
    if let Some(c) = spec.string("choice") {
        p.choice = match c.as_str() {
            "random" => Choice::Random,
            "round-robin" => Choice::RoundRobin,
            other => {
                return Err(SimError::invalid(format!("choice=`{other}`"), "expected random or round-robin"))
            }
        };
    }
    spec.finish(&KEYS).map_err(e)?;
    p.validate()?;
    Ok(p)
}

fn from_toml_file(path: &Path) -> Result<Pattern, SimError> {
    let text = std::fs::read_to_string(path).map_err(|error| SimError::Io { path: path.into(), error })?;
    from_toml(&text).map_err(|e| e.context(path.display().to_string()))
}

/// A TOML workload: a flat table of the keys above plus `base` and `name`.
pub fn from_toml(text: &str) -> Result<Pattern, SimError> {
    // toml's message names the line and column and shows them.
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| SimError::Config(e.to_string()))?;
    let mut base = "one-rand".to_string();
    let mut name = None;
    let mut parts = Vec::new();
    for (k, v) in &table {
        let value = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::Float(f) => f.to_string(),
            other => {
                return Err(SimError::invalid(
                    format!("key `{k}`"),
                    format!("expected a string, number or boolean, found {}", other.type_str()),
                ))
            }
        };
        match k.as_str() {
            "base" => base = value,
            "name" => name = Some(value),
            _ => parts.push(format!("{k}={value}")),
        }
    }
    let spec = Spec::parse(&format!("{base}:{}", parts.join(",")))?;
    let pattern = builtin(&spec.name).ok_or_else(|| {
        SimError::invalid(format!("base = `{base}`"), format!("expected one of {}", BUILTIN.join(", ")))
    })?;
    let mut p = apply(pattern, &spec)?;
    if let Some(n) = name {
        p.name = n;
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_with_parameters() {
        let w = parse_workload("one-rand:files=2000,block=128KiB").unwrap();
        assert_eq!(w.file_pages().len(), 2000);
        assert!(w.describe().starts_with("one-rand:files=2000"), "{}", w.describe());
    }

    #[test]
    fn errors_name_the_problem() {
        let message = |text: &str| parse_workload(text).err().expect("refused").to_string();
        assert!(message("five-rand").contains("unknown workload `five-rand`"));
        let e = message("one-rand:filez=3");
        assert!(e.contains("unknown parameter(s) filez"), "{e}");
        // The context (the spec as given), then the value, then what was expected.
        let e = message("one-rand:block=1000");
        assert!(
            e.starts_with("workload `one-rand:block=1000`: block (1000 B): expected a positive multiple"),
            "{e}"
        );
        let e = message("vm-seq:passes=0");
        assert_eq!(e, "workload `vm-seq:passes=0`: passes=0: expected 1 to 1000000");
        let e = message("five-rand");
        assert!(e.contains("index-search, media-clips"), "{e}");
        let e = message("media-clips:files=0");
        assert!(e.starts_with("workload `media-clips:files=0`: files=0: expected 1 to"), "{e}");
    }

    #[test]
    fn application_workloads_by_name() {
        let w = parse_workload("media-clips:files=1000,zipf=0.8,block=8KiB").unwrap();
        assert_eq!(w.describe(), "media-clips:files=1000,zipf=0.8,block=8KiB");
        assert_eq!(w.file_pages().len(), 1000);
        let w = parse_workload("index-search:terms=20000,keywords=2").unwrap();
        assert!(w.describe().starts_with("index-search:terms=20000,zipf=1,keywords=2,"), "{}", w.describe());
        assert_eq!(w.file_pages().len(), 9);
    }

    #[test]
    fn dulo_workloads_by_name() {
        for name in DULO_WORKLOADS {
            let w = parse_workload(&format!("{name}:scale=0.05,seed=3")).unwrap();
            assert_eq!(w.describe(), format!("{name}:scale=0.05,seed=3"));
            let again = parse_workload(&w.describe()).unwrap();
            assert_eq!((again.describe(), again.file_pages()), (w.describe(), w.file_pages()));
            assert_eq!(again.file_lbns(), w.file_lbns());
        }
        let w = parse_workload("glimpse-like").unwrap();
        assert_eq!(w.describe(), "glimpse-like:scale=1,seed=2005");
        let message = |text: &str| parse_workload(text).err().expect("refused").to_string();
        assert_eq!(
            message("tpch-like:scale=0"),
            "workload `tpch-like:scale=0`: scale=0: expected a number from 0.01 to 4"
        );
        assert!(
            message("tpch-like:scale=NaN").contains("scale=`NaN`: expected a number"),
            "{}",
            message("tpch-like:scale=NaN")
        );
        assert!(message("multi1-like:seed=-1").starts_with("workload `multi1-like:seed=-1`: "));
        assert!(message("multi2-like:passes=3").contains("unknown parameter(s) passes"));
        assert!(message("five-rand").contains("viewperf-like, tpch-like"));
    }

    #[test]
    fn toml_uses_the_same_keys() {
        let p = from_toml(
            "base = \"two-rand\"\nname = \"three-streams\"\nfiles = 100\nfiles_per_request = 3\nthink = \"1ms\"\n",
        )
        .unwrap();
        assert_eq!(
            (p.name.as_str(), p.files, p.files_per_request, p.interleave),
            ("three-streams", 100, 3, true)
        );
        assert_eq!(p.think, Nanos::from_ms(1));
        let e = from_toml("files = [1]").unwrap_err().to_string();
        assert_eq!(e, "key `files`: expected a string, number or boolean, found array");
    }
}
