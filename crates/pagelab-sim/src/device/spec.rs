//! Naming a device: `--device hdd | hdd:nocache | ultrastar36lzx | ultrastar36lzx:nocache | wd1200bb |
//! wd1200bb:nocache | st3500320as | st3500320as:nocache | ssd | simple | path/to/device.toml`.
//!
//! The built-in names are the models with their documented defaults: `hdd` (also `cheetah9lp`) is the
//! DiskSim-validated Seagate Cheetah 9LP, the shared default; `ultrastar36lzx` (also `ultrastar`, and
//! `ultrastar36z10`, the name issue 14 first gave it) is the IBM Ultrastar 36LZX built from its published
//! figures ([`super::ultrastar36lzx`]), the default device of Li & Shen's workloads
//! ([`crate::workload::Workload::default_device`]); `wd1200bb` is the Western Digital Caviar WD1200BB
//! (120 GB, 7,200 RPM, ATA-100) built from its published figures ([`super::wd1200bb`]), the disk of the
//! MemRx paper's testbed; `st3500320as` (also `barracuda7200.11`) is the Seagate Barracuda 7200.11
//! ST3500320AS (500 GB, 7,200 RPM, SATA, 32 MB buffer, 2008) built from the figures found for it
//! ([`super::st3500320as`]), a disk of the class of Zhang et al.'s 2008 testbed. `:nocache` turns a drive's
//! on-board cache off.
//!
//! A `.toml` file describes any other drive with the same schema; `DeviceSpec::to_toml` prints a built-in
//! as a starting point.
//! Times are decimal milliseconds (`_ms`, as DiskSim's parameter files) or microseconds (`_us`); sizes
//! are 512-byte sectors unless the key says bytes. Unknown keys are errors, not silently ignored.
//!
//! ```toml
//! kind = "hdd"                      # or "ssd", "simple"
//! name = "Seagate ST39102LW (Cheetah 9LP)"
//! surfaces = 12                     # data surfaces (heads)
//! capacity_sectors = 17783240       # addressable LBNs; at most what the zones hold
//! rpm = 10045
//! head_switch_ms = 0.03
//! write_settle_ms = 0.461           # added to any non-zero positioning of a write
//! bus_sector_ms = 0.0064            # host transfer per sector, overlapped with the media transfer
//!
//! [overhead]                        # controller command processing, by previous request type
//! read_miss_after_read_ms = 0.28362
//! read_miss_after_write_ms = 0.08673
//! read_hit_after_read_ms = 0.066
//! read_hit_after_write_ms = 0.273
//! write_after_read_ms = 0.90692
//! write_after_write_ms = 0.8964
//!
//! [seek]                            # exactly one of `table` or `two_piece`
//! table = [[1, 0.831], [2, 1.003], [6894, 10.627]]   # [cylinders, ms], linear interpolation
//! # two_piece = { boundary_cylinders = 1200, short_base_ms = 1.065, short_sqrt_ms = 0.0976,
//! #               long_base_ms = 3.11, long_per_cylinder_ms = 0.001079 }
//!
//! [cache]                           # on-board read cache
//! enabled = true
//! segments = 3
//! segment_sectors = 561
//! readahead_sectors_max = 561
//!
//! [[zone]]                          # one per zone, outer (cylinder 0) to inner
//! first_cylinder = 0
//! last_cylinder = 846
//! sectors_per_track = 254
//! track_skew_sectors = 97
//! cylinder_skew_sectors = 133
//! first_sector_offset = 0           # optional
//! spares = 1270                     # spare sectors at the end of the zone
//! slips = [168317, 223330]          # optional: zone-relative physical sectors skipped by the mapping
//! ```
//!
//! ```toml
//! kind = "ssd"
//! name = "NVMe SSD (Intel DC P4500 class)"
//! capacity_sectors = 3906250000
//! channels = 32
//! read_random_us = 85.0
//! read_sequential_us = 10.0
//! write_random_us = 20.0
//! write_sequential_us = 13.0
//! link_mb_per_s = 3200.0            # decimal MB/s, shared by all channels
//! write_drain_mb_per_s = 1050.0     # sustained write rate once the buffer is full
//! write_buffer_bytes = 33554432
//! sequential_history = 64           # recent request ends a sequential request may continue
//! ```
//!
//! ```toml
//! kind = "simple"
//! name = "simple disk (6.5 ms seek + 3.0 ms rotation)"
//! capacity_sectors = 17783240
//! seek_ms = 6.5
//! rotation_ms = 3.0
//! transfer_sector_ms = 0.0
//! ```

use super::hdd::Hdd;
use super::simple::SimpleDisk;
use super::ssd::Ssd;
use super::Device;
use pagelab_core::units::fmt_f64;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use thiserror::Error;

/// What `--device` accepts besides a `.toml` path.
pub const BUILTIN_NAMES: &str = "hdd, hdd:nocache, ultrastar36lzx, ultrastar36lzx:nocache, ssd, simple, \
     simple:RATE (MB/s, e.g. simple:25MB/s), wd1200bb, wd1200bb:nocache, st3500320as, st3500320as:nocache, \
     or a path to a .toml device file";

/// The device Li & Shen's workloads run on unless `--device` says otherwise
/// ([`crate::workload::Workload::default_device`]): their 24 GB dataset needs a disk of their testbed's
/// class.
pub const ULTRASTAR: &str = "ultrastar36lzx";

/// The Western Digital WD1200BB, the disk of the MemRx paper's testbed (papers/003 §5; [`super::wd1200bb`]),
/// for the MemRx workloads.
pub const WD1200BB: &str = "wd1200bb";

/// The Seagate Barracuda 7200.11 ST3500320AS, a 7,200 RPM SATA disk of 2008 ([`super::st3500320as`]), of
/// the class of Zhang et al.'s testbed (papers/002).
pub const ST3500320AS: &str = "st3500320as";

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DeviceSpecError {
    #[error("unknown device `{got}`; expected one of: {BUILTIN_NAMES}")]
    UnknownName { got: String },
    #[error("device file {path}: cannot read it: {reason}")]
    Unreadable { path: String, reason: String },
    /// TOML syntax, a missing or unknown key, or a value of the wrong type (the message names the key
    /// and, for files, the line).
    #[error("device spec {origin}: {message}")]
    Syntax { origin: String, message: String },
    /// A well-typed value outside its valid range.
    #[error("device spec {origin}: `{key}` must be {expected}, got {got}")]
    Invalid { origin: String, key: String, expected: String, got: String },
}

/// A device description: which model, with which parameters. Serialized with a `kind` key naming the
/// model; read back by [`DeviceSpec::from_toml_str`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DeviceSpec {
    Hdd(HddSpec),
    Ssd(SsdSpec),
    Simple(SimpleSpec),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddSpec {
    pub name: String,
    pub surfaces: u32,
    pub capacity_sectors: u64,
    pub rpm: u32,
    pub head_switch_ms: f64,
    pub write_settle_ms: f64,
    pub bus_sector_ms: f64,
    pub overhead: HddOverheads,
    pub seek: SeekSpec,
    pub cache: CacheSpec,
    #[serde(rename = "zone")]
    pub zones: Vec<ZoneSpec>,
}

/// DiskSim's command overheads: they depend on whether the previous request was a read or a write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddOverheads {
    pub read_miss_after_read_ms: f64,
    pub read_miss_after_write_ms: f64,
    pub read_hit_after_read_ms: f64,
    pub read_hit_after_write_ms: f64,
    pub write_after_read_ms: f64,
    pub write_after_write_ms: f64,
}

impl HddOverheads {
    /// One overhead for every command, whatever came before: what a maker that publishes a single
    /// "controller overhead" gives (the WD1200BB, the Barracuda 7200.11).
    pub fn uniform(ms: f64) -> HddOverheads {
        HddOverheads {
            read_miss_after_read_ms: ms,
            read_miss_after_write_ms: ms,
            read_hit_after_read_ms: ms,
            read_hit_after_write_ms: ms,
            write_after_read_ms: ms,
            write_after_write_ms: ms,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekSpec {
    /// `[cylinders, ms]` rows, distances strictly increasing from 1; linear interpolation between rows
    /// and extrapolation past the last (as DiskSim's `extracted` seek type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Vec<(u32, f64)>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_piece: Option<TwoPieceSeek>,
}

/// Ruemmler & Wilkes' fitted form: `short_base + short_sqrt·√d` below the boundary, `long_base +
/// long_per_cylinder·d` from it on (ms, d in cylinders).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoPieceSeek {
    pub boundary_cylinders: u32,
    pub short_base_ms: f64,
    pub short_sqrt_ms: f64,
    pub long_base_ms: f64,
    pub long_per_cylinder_ms: f64,
}

impl TwoPieceSeek {
    /// The curve through a drive's published average and full-stroke seeks over `cylinders`, with value
    /// and slope continuous at `boundary_cylinders` (the drives built from published figures: the
    /// Ultrastar 36LZX, the WD1200BB, the ST3500320AS).
    ///
    /// With `g(d) = √d` below the boundary `B` and `√B/2 + d/(2√B)` from it on (the continuation of `√d`
    /// along its tangent at `B`), every such curve is `seek(d) = a + s·g(d)`: the short piece is
    /// `a + s·√d`, the long one `(a + s·√B/2) + (s/(2√B))·d`. The two figures are linear in `a` and `s`:
    /// `a + s·g(D) = full stroke` at `D = cylinders − 1`, and `a + s·ḡ = average`, where `ḡ` is the mean
    /// of `g` over distances 1..=D weighted by the `cylinders − d` cylinder pairs each separates (the
    /// "weighted average of all possible seek combinations" drive makers publish).
    pub fn through(
        cylinders: u32,
        boundary_cylinders: u32,
        average_ms: f64,
        full_stroke_ms: f64,
    ) -> TwoPieceSeek {
        let boundary = boundary_cylinders as f64;
        let root = boundary.sqrt();
        let g = |d: f64| if d < boundary { d.sqrt() } else { root / 2.0 + d / (2.0 * root) };
        let stroke = (cylinders - 1) as f64;
        let (mut weighted, mut weights) = (0.0, 0.0);
        for d in 1..cylinders {
            let w = (cylinders - d) as f64;
            weighted += w * g(d as f64);
            weights += w;
        }
        let g_mean = weighted / weights;
        let s = (full_stroke_ms - average_ms) / (g(stroke) - g_mean);
        let a = full_stroke_ms - s * g(stroke);
        TwoPieceSeek {
            boundary_cylinders,
            short_base_ms: a,
            short_sqrt_ms: s,
            long_base_ms: a + s * root / 2.0,
            long_per_cylinder_ms: s / (2.0 * root),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSpec {
    pub enabled: bool,
    pub segments: u32,
    pub segment_sectors: u32,
    pub readahead_sectors_max: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneSpec {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub sectors_per_track: u32,
    pub track_skew_sectors: u32,
    pub cylinder_skew_sectors: u32,
    #[serde(default)]
    pub first_sector_offset: u32,
    pub spares: u64,
    #[serde(default)]
    pub slips: Vec<u64>,
}

/// A zone-table row of a drive built from published figures: `(first cylinder, last cylinder, sectors per
/// track, track skew, cylinder skew, spares)`, skews and spares in sectors.
pub type PublishedZone = (u32, u32, u32, u32, u32, u64);

impl ZoneSpec {
    /// The zone of a published-figures row: no slipped sectors (nobody published them) and its first
    /// sector at the index.
    pub fn published(
        &(
            first_cylinder,
            last_cylinder,
            sectors_per_track,
            track_skew_sectors,
            cylinder_skew_sectors,
            spares,
        ): &PublishedZone,
    ) -> ZoneSpec {
        ZoneSpec {
            first_cylinder,
            last_cylinder,
            sectors_per_track,
            track_skew_sectors,
            cylinder_skew_sectors,
            first_sector_offset: 0,
            spares,
            slips: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdSpec {
    pub name: String,
    pub capacity_sectors: u64,
    pub channels: u32,
    pub read_random_us: f64,
    pub read_sequential_us: f64,
    pub write_random_us: f64,
    pub write_sequential_us: f64,
    pub link_mb_per_s: f64,
    pub write_drain_mb_per_s: f64,
    pub write_buffer_bytes: u64,
    pub sequential_history: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimpleSpec {
    pub name: String,
    pub capacity_sectors: u64,
    pub seek_ms: f64,
    pub rotation_ms: f64,
    pub transfer_sector_ms: f64,
}

impl SsdSpec {
    /// devices.md §3.1: Intel SSD DC P4500, 2 TB model (85 µs random / 10 µs sequential 4 KiB read, 20 /
    /// 13 µs buffered write, 3.2 GB/s read, 1.05 GB/s sustained write). c = 32 channels gives
    /// 32 / 86.3 µs = 371 K random-read IOPS, between the 1 TB (279.5 K) and 2 TB (490 K) datasheet
    /// figures. The 32 MiB write buffer is an assumption (the datasheet gives none): it only sets how
    /// long a write burst stays at 20 µs.
    pub fn p4500() -> SsdSpec {
        SsdSpec {
            name: "NVMe SSD (Intel DC P4500 class)".to_string(),
            capacity_sectors: 2_000_000_000_000 / 512,
            channels: 32,
            read_random_us: 85.0,
            read_sequential_us: 10.0,
            write_random_us: 20.0,
            write_sequential_us: 13.0,
            link_mb_per_s: 3200.0,
            write_drain_mb_per_s: 1050.0,
            write_buffer_bytes: 32 << 20,
            sequential_history: 64,
        }
    }
}

/// The media rates `simple:RATE` accepts, in MB/s: 1 KB/s (a 4 KiB page in 4 s) to 1 TB/s. Outside it a
/// request's transfer time is not a time the simulator's clock can hold, or nothing at all.
const SIMPLE_RATE_MB_PER_S: std::ops::RangeInclusive<f64> = 1e-3..=1e6;

impl SimpleSpec {
    /// papers/001 §1: "The 6.5 ms average seek time and 3.0 ms average rotation time are taken from the
    /// specification of the Hitachi Ultrastar 18ZX"; transfer ignored. Capacity as the Cheetah 9LP.
    pub fn dulo_table1() -> SimpleSpec {
        SimpleSpec {
            name: "simple disk (6.5 ms seek + 3.0 ms rotation)".to_string(),
            capacity_sectors: super::cheetah9lp::BLOCK_COUNT,
            seek_ms: 6.5,
            rotation_ms: 3.0,
            transfer_sector_ms: 0.0,
        }
    }

    /// The same positioning costs with a media transfer rate, in MB/s (10^6 bytes), so that sequential
    /// requests are not free: Table 1's model ignores transfer, which a whole-server simulation cannot.
    pub fn with_transfer_rate(mut self, mb_per_s: f64) -> SimpleSpec {
        self.transfer_sector_ms = 512.0 / (mb_per_s * 1e6) * 1e3;
        self.name =
            format!("simple disk (6.5 ms seek + 3.0 ms rotation, {} MB/s transfer)", fmt_f64(mb_per_s));
        self
    }
}

impl DeviceSpec {
    /// A built-in name or a `.toml` path (see the module doc).
    pub fn parse(text: &str) -> Result<DeviceSpec, DeviceSpecError> {
        let trimmed = text.trim();
        if trimmed.to_ascii_lowercase().ends_with(".toml") {
            return DeviceSpec::from_toml_file(Path::new(trimmed));
        }
        let lower = trimmed.to_ascii_lowercase();
        let (drive, nocache) = match lower.strip_suffix(":nocache") {
            Some(drive) => (drive, true),
            None => (lower.as_str(), false),
        };
        let hdd = match drive {
            "hdd" | "cheetah9lp" => Some(HddSpec::cheetah_9lp()),
            "ultrastar36lzx" | "ultrastar" | "ultrastar36z10" => Some(HddSpec::ultrastar_36lzx()),
            "wd1200bb" => Some(HddSpec::wd1200bb()),
            "st3500320as" | "barracuda7200.11" => Some(HddSpec::st3500320as()),
            _ => None,
        };
        if let Some(mut spec) = hdd {
            spec.cache.enabled = !nocache;
            return Ok(DeviceSpec::Hdd(spec));
        }
        match lower.as_str() {
            "ssd" => Ok(DeviceSpec::Ssd(SsdSpec::p4500())),
            "simple" => Ok(DeviceSpec::Simple(SimpleSpec::dulo_table1())),
            name => match name.strip_prefix("simple:") {
                // The simple disk with a rate the user got wrong: say what is wrong with the rate, not that
                // the device is unknown.
                Some(rate) => match rate.trim_end_matches("mb/s").parse::<f64>() {
                    Ok(mb_per_s) if SIMPLE_RATE_MB_PER_S.contains(&mb_per_s) => {
                        Ok(DeviceSpec::Simple(SimpleSpec::dulo_table1().with_transfer_rate(mb_per_s)))
                    }
                    _ => Err(DeviceSpecError::Invalid {
                        origin: trimmed.to_string(),
                        key: "RATE".to_string(),
                        expected: format!(
                            "a media rate from {} to {} MB/s (e.g. simple:25MB/s)",
                            fmt_f64(*SIMPLE_RATE_MB_PER_S.start()),
                            fmt_f64(*SIMPLE_RATE_MB_PER_S.end())
                        ),
                        got: format!("`{}`", &trimmed["simple:".len()..]),
                    }),
                },
                None => Err(DeviceSpecError::UnknownName { got: text.to_string() }),
            },
        }
    }

    pub fn from_toml_file(path: &Path) -> Result<DeviceSpec, DeviceSpecError> {
        let text = std::fs::read_to_string(path).map_err(|e| DeviceSpecError::Unreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        DeviceSpec::from_toml_str(&text, &path.display().to_string())
    }

    /// Parses and validates a TOML description; `origin` names it in errors (a path, or `"<string>"`).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<DeviceSpec, DeviceSpecError> {
        let syntax = |message: String| DeviceSpecError::Syntax {
            origin: origin.to_string(),
            message: message.trim().replace('\n', " "),
        };
        // Two steps, so that type errors name their key: TOML syntax (with the line), then the model's
        // fields from the table (serde's buffering of an internally tagged enum would lose the key).
        let mut table: toml::Table = toml::from_str(text).map_err(|e| syntax(e.to_string()))?;
        let kind = match table.remove("kind") {
            Some(toml::Value::String(kind)) => kind,
            Some(other) => return Err(syntax(format!("`kind` must be a string, got {other}"))),
            None => return Err(syntax("missing key `kind` (\"hdd\", \"ssd\" or \"simple\")".to_string())),
        };
        let fields = |e: toml::de::Error| syntax(e.to_string());
        let spec = match kind.as_str() {
            "hdd" => DeviceSpec::Hdd(table.try_into().map_err(fields)?),
            "ssd" => DeviceSpec::Ssd(table.try_into().map_err(fields)?),
            "simple" => DeviceSpec::Simple(table.try_into().map_err(fields)?),
            _ => {
                return Err(DeviceSpecError::Invalid {
                    origin: origin.to_string(),
                    key: "kind".to_string(),
                    expected: "one of \"hdd\", \"ssd\", \"simple\"".to_string(),
                    got: format!("\"{kind}\""),
                })
            }
        };
        spec.validate(origin)?;
        Ok(spec)
    }

    /// The description as TOML, which [`DeviceSpec::from_toml_str`] reads back to an equal spec.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a device spec always serializes")
    }

    /// Checks every range the models rely on, naming the offending key.
    pub fn validate(&self, origin: &str) -> Result<(), DeviceSpecError> {
        let check = Checker { origin };
        match self {
            DeviceSpec::Hdd(s) => check.hdd(s),
            DeviceSpec::Ssd(s) => check.ssd(s),
            DeviceSpec::Simple(s) => check.simple(s),
        }
    }

    /// A fresh device in its initial state (head at sector 0, caches empty, all channels idle).
    /// Caller guarantees the spec is valid (every constructor and parser here validates).
    pub fn build(&self) -> Box<dyn Device> {
        match self {
            DeviceSpec::Hdd(s) => Box::new(Hdd::new(s)),
            DeviceSpec::Ssd(s) => Box::new(Ssd::new(s)),
            DeviceSpec::Simple(s) => Box::new(SimpleDisk::new(s)),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            DeviceSpec::Hdd(s) => &s.name,
            DeviceSpec::Ssd(s) => &s.name,
            DeviceSpec::Simple(s) => &s.name,
        }
    }
}

impl FromStr for DeviceSpec {
    type Err = DeviceSpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DeviceSpec::parse(s)
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Range checks with errors that name the key.
struct Checker<'a> {
    origin: &'a str,
}

impl Checker<'_> {
    fn fail<T>(&self, key: &str, expected: &str, got: impl fmt::Display) -> Result<T, DeviceSpecError> {
        Err(DeviceSpecError::Invalid {
            origin: self.origin.to_string(),
            key: key.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        })
    }

    fn at_least(&self, key: &str, value: u64, min: u64) -> Result<(), DeviceSpecError> {
        if value < min {
            return self.fail(key, &format!("at least {min}"), value);
        }
        Ok(())
    }

    fn time(&self, key: &str, value: f64) -> Result<(), DeviceSpecError> {
        // An hour bounds every per-request time a device could sensibly have and keeps ns in u64.
        if !(value.is_finite() && (0.0..=3.6e6).contains(&value)) {
            return self.fail(key, "a finite time between 0 and 3600000 (ms) or equivalent", value);
        }
        Ok(())
    }

    fn rate(&self, key: &str, value: f64) -> Result<(), DeviceSpecError> {
        if !(value.is_finite() && value > 0.0) {
            return self.fail(key, "a positive finite rate", value);
        }
        Ok(())
    }

    fn hdd(&self, s: &HddSpec) -> Result<(), DeviceSpecError> {
        self.at_least("surfaces", s.surfaces as u64, 1)?;
        self.at_least("rpm", s.rpm as u64, 1)?;
        self.time("head_switch_ms", s.head_switch_ms)?;
        self.time("write_settle_ms", s.write_settle_ms)?;
        self.time("bus_sector_ms", s.bus_sector_ms)?;
        let o = &s.overhead;
        for (key, v) in [
            ("overhead.read_miss_after_read_ms", o.read_miss_after_read_ms),
            ("overhead.read_miss_after_write_ms", o.read_miss_after_write_ms),
            ("overhead.read_hit_after_read_ms", o.read_hit_after_read_ms),
            ("overhead.read_hit_after_write_ms", o.read_hit_after_write_ms),
            ("overhead.write_after_read_ms", o.write_after_read_ms),
            ("overhead.write_after_write_ms", o.write_after_write_ms),
        ] {
            self.time(key, v)?;
        }
        self.seek(&s.seek)?;
        if s.cache.enabled {
            self.at_least("cache.segments", s.cache.segments as u64, 1)?;
            self.at_least("cache.segment_sectors", s.cache.segment_sectors as u64, 1)?;
        }
        let lbns = self.zones(s)?;
        if s.capacity_sectors == 0 || s.capacity_sectors > lbns {
            return self.fail(
                "capacity_sectors",
                &format!("between 1 and the {lbns} LBNs the zones hold"),
                s.capacity_sectors,
            );
        }
        Ok(())
    }

    fn seek(&self, s: &SeekSpec) -> Result<(), DeviceSpecError> {
        match (&s.table, &s.two_piece) {
            (Some(table), None) => self.seek_table(table),
            (None, Some(c)) => {
                self.at_least("seek.two_piece.boundary_cylinders", c.boundary_cylinders as u64, 1)?;
                self.time("seek.two_piece.short_base_ms", c.short_base_ms)?;
                self.time("seek.two_piece.short_sqrt_ms", c.short_sqrt_ms)?;
                self.time("seek.two_piece.long_base_ms", c.long_base_ms)?;
                self.time("seek.two_piece.long_per_cylinder_ms", c.long_per_cylinder_ms)
            }
            (Some(_), Some(_)) => self.fail("seek", "either `table` or `two_piece`, not both", "both"),
            (None, None) => self.fail("seek", "one of `table` or `two_piece`", "neither"),
        }
    }

    fn seek_table(&self, table: &[(u32, f64)]) -> Result<(), DeviceSpecError> {
        match table.first() {
            None => return self.fail("seek.table", "at least one [cylinders, ms] row", "[]"),
            Some(&(d, _)) if d != 1 => return self.fail("seek.table[0]", "a row for distance 1", d),
            Some(_) => {}
        }
        for (i, &(d, ms)) in table.iter().enumerate() {
            self.time(&format!("seek.table[{i}]"), ms)?;
            if i > 0 && d <= table[i - 1].0 {
                return self.fail(
                    &format!("seek.table[{i}]"),
                    &format!("a distance above the previous row's {}", table[i - 1].0),
                    d,
                );
            }
        }
        Ok(())
    }

    /// Returns the number of LBNs the zones hold.
    fn zones(&self, s: &HddSpec) -> Result<u64, DeviceSpecError> {
        if s.zones.is_empty() {
            return self.fail("zone", "at least one [[zone]]", "none");
        }
        let mut lbns = 0u64;
        for (i, z) in s.zones.iter().enumerate() {
            let key = |field: &str| format!("zone[{i}].{field}");
            if i > 0 && z.first_cylinder <= s.zones[i - 1].last_cylinder {
                let prev = s.zones[i - 1].last_cylinder;
                return self.fail(
                    &key("first_cylinder"),
                    &format!("above the previous zone's {prev}"),
                    z.first_cylinder,
                );
            }
            if z.last_cylinder < z.first_cylinder {
                return self.fail(
                    &key("last_cylinder"),
                    &format!("at least {}", z.first_cylinder),
                    z.last_cylinder,
                );
            }
            self.at_least(&key("sectors_per_track"), z.sectors_per_track as u64, 1)?;
            if z.first_sector_offset >= z.sectors_per_track {
                return self.fail(
                    &key("first_sector_offset"),
                    "below sectors_per_track",
                    z.first_sector_offset,
                );
            }
            let physical = (z.last_cylinder - z.first_cylinder + 1) as u64
                * s.surfaces as u64
                * z.sectors_per_track as u64;
            if z.spares >= physical {
                return self.fail(&key("spares"), &format!("below the zone's {physical} sectors"), z.spares);
            }
            if z.slips.len() as u64 > z.spares {
                return self.fail(
                    &key("slips"),
                    &format!("at most `spares` = {} entries", z.spares),
                    z.slips.len(),
                );
            }
            for (j, &slip) in z.slips.iter().enumerate() {
                if slip >= physical || (j > 0 && slip <= z.slips[j - 1]) {
                    let want = format!("strictly increasing zone-relative sectors below {physical}");
                    return self.fail(&format!("{}[{j}]", key("slips")), &want, slip);
                }
            }
            lbns += physical - z.spares;
        }
        Ok(lbns)
    }

    fn ssd(&self, s: &SsdSpec) -> Result<(), DeviceSpecError> {
        self.at_least("capacity_sectors", s.capacity_sectors, 1)?;
        self.at_least("channels", s.channels as u64, 1)?;
        self.time("read_random_us", s.read_random_us / 1e3)?;
        self.time("read_sequential_us", s.read_sequential_us / 1e3)?;
        self.time("write_random_us", s.write_random_us / 1e3)?;
        self.time("write_sequential_us", s.write_sequential_us / 1e3)?;
        self.rate("link_mb_per_s", s.link_mb_per_s)?;
        self.rate("write_drain_mb_per_s", s.write_drain_mb_per_s)?;
        Ok(())
    }

    fn simple(&self, s: &SimpleSpec) -> Result<(), DeviceSpecError> {
        self.at_least("capacity_sectors", s.capacity_sectors, 1)?;
        self.time("seek_ms", s.seek_ms)?;
        self.time("rotation_ms", s.rotation_ms)?;
        self.time("transfer_sector_ms", s.transfer_sector_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid_key(err: DeviceSpecError) -> String {
        match err {
            DeviceSpecError::Invalid { key, .. } => key,
            other => panic!("expected an Invalid error, got {other}"),
        }
    }

    #[test]
    fn builtin_names_parse() {
        let hdd = DeviceSpec::parse("hdd").unwrap();
        let DeviceSpec::Hdd(h) = &hdd else { panic!("hdd is not an HDD: {hdd:?}") };
        assert!(h.cache.enabled);
        assert_eq!(h.zones.len(), 11);
        let DeviceSpec::Hdd(n) = DeviceSpec::parse(" HDD:nocache ").unwrap() else { panic!() };
        assert!(!n.cache.enabled);
        assert_eq!(n.zones, h.zones);
        assert!(matches!(DeviceSpec::parse("ssd").unwrap(), DeviceSpec::Ssd(_)));
        assert!(matches!("simple".parse::<DeviceSpec>().unwrap(), DeviceSpec::Simple(_)));
        let DeviceSpec::Hdd(u) = DeviceSpec::parse("Ultrastar36LZX").unwrap() else { panic!() };
        assert!(u.cache.enabled);
        assert_eq!(u.capacity_sectors, 71_687_340);
        let DeviceSpec::Hdd(n) = DeviceSpec::parse("ultrastar:nocache").unwrap() else { panic!() };
        assert!(!n.cache.enabled);
        assert_eq!(n.zones, u.zones);
        assert_eq!(DeviceSpec::parse(ULTRASTAR).unwrap(), DeviceSpec::Hdd(u));
        for name in ["hdd", "hdd:nocache", "ultrastar36lzx", "ultrastar36lzx:nocache", "ssd", "simple"] {
            DeviceSpec::parse(name).unwrap().validate(name).unwrap();
        }
        // `:nocache` belongs to the drives only.
        assert!(matches!(DeviceSpec::parse("ssd:nocache"), Err(DeviceSpecError::UnknownName { .. })));
    }

    #[test]
    fn the_wd1200bb_parses_by_name() {
        let DeviceSpec::Hdd(w) = DeviceSpec::parse("WD1200BB").unwrap() else { panic!() };
        assert!(w.cache.enabled);
        assert_eq!(w.capacity_sectors, 234_441_648);
        let DeviceSpec::Hdd(n) = DeviceSpec::parse("wd1200bb:nocache").unwrap() else { panic!() };
        assert!(!n.cache.enabled);
        assert_eq!(n.zones, w.zones);
        assert_eq!(DeviceSpec::parse(WD1200BB).unwrap(), DeviceSpec::Hdd(w));
        for name in ["wd1200bb", "wd1200bb:nocache"] {
            DeviceSpec::parse(name).unwrap().validate(name).unwrap();
            let spec = DeviceSpec::parse(name).unwrap();
            let back = DeviceSpec::from_toml_str(&spec.to_toml(), "<round trip>").unwrap();
            assert_eq!(back, spec, "{name} changed through TOML");
        }
        let err = DeviceSpec::parse("floppy").unwrap_err().to_string();
        assert!(err.contains("wd1200bb, wd1200bb:nocache"), "{err}");
    }

    #[test]
    fn the_st3500320as_parses_by_name() {
        let DeviceSpec::Hdd(s) = DeviceSpec::parse("ST3500320AS").unwrap() else { panic!() };
        assert!(s.cache.enabled);
        assert_eq!(s.capacity_sectors, 976_773_168);
        let DeviceSpec::Hdd(n) = DeviceSpec::parse("st3500320as:nocache").unwrap() else { panic!() };
        assert!(!n.cache.enabled);
        assert_eq!(n.zones, s.zones);
        assert_eq!(DeviceSpec::parse("Barracuda7200.11").unwrap(), DeviceSpec::Hdd(s.clone()));
        assert_eq!(DeviceSpec::parse(ST3500320AS).unwrap(), DeviceSpec::Hdd(s));
        for name in ["st3500320as", "st3500320as:nocache", "barracuda7200.11:nocache"] {
            DeviceSpec::parse(name).unwrap().validate(name).unwrap();
            let spec = DeviceSpec::parse(name).unwrap();
            let back = DeviceSpec::from_toml_str(&spec.to_toml(), "<round trip>").unwrap();
            assert_eq!(back, spec, "{name} changed through TOML");
        }
        let err = DeviceSpec::parse("floppy").unwrap_err().to_string();
        assert!(err.contains("st3500320as, st3500320as:nocache"), "{err}");
    }

    #[test]
    fn simple_with_a_rate_charges_transfer() {
        let DeviceSpec::Simple(s) = DeviceSpec::parse("simple:25MB/s").unwrap() else { panic!() };
        assert!((s.transfer_sector_ms - 0.02048).abs() < 1e-12, "{}", s.transfer_sector_ms);
        assert_eq!((s.seek_ms, s.rotation_ms), (6.5, 3.0));
        assert_eq!(DeviceSpec::parse("simple:25").unwrap(), DeviceSpec::Simple(s));
        for bad in [
            "simple:0",
            "simple:-3",
            "simple:fast",
            "simple:",
            "simple:0MB/s",
            "simple:infMB/s",
            "simple:1e300MB/s",
            "simple:1e-300MB/s",
        ] {
            let err = DeviceSpec::parse(bad).unwrap_err();
            assert!(matches!(err, DeviceSpecError::Invalid { ref key, .. } if key == "RATE"), "{bad}: {err}");
        }
        assert_eq!(
            DeviceSpec::parse("simple:0MB/s").unwrap_err().to_string(),
            "device spec simple:0MB/s: `RATE` must be a media rate from 0.001 to 1000000 MB/s (e.g. simple:25MB/s), got `0MB/s`"
        );
    }

    #[test]
    fn unknown_name_lists_the_choices() {
        let err = DeviceSpec::parse("floppy").unwrap_err();
        assert_eq!(err, DeviceSpecError::UnknownName { got: "floppy".into() });
        assert!(
            err.to_string().contains("hdd, hdd:nocache, ultrastar36lzx, ultrastar36lzx:nocache, ssd, simple"),
            "{err}"
        );
    }

    #[test]
    fn every_builtin_round_trips_through_toml() {
        for name in ["hdd", "hdd:nocache", "ultrastar36lzx", "ssd", "simple"] {
            let spec = DeviceSpec::parse(name).unwrap();
            let text = spec.to_toml();
            let back = DeviceSpec::from_toml_str(&text, "<round trip>").unwrap();
            assert_eq!(back, spec, "{name} changed through TOML:\n{text}");
        }
    }

    #[test]
    fn toml_file_round_trip_and_unreadable_file() {
        let path = std::env::temp_dir().join(format!("pagelab-h5-device-{}.toml", std::process::id()));
        let mut spec = HddSpec::cheetah_9lp();
        spec.cache.segments = 5;
        spec.name = "my drive".into();
        std::fs::write(&path, DeviceSpec::Hdd(spec.clone()).to_toml()).unwrap();
        let parsed = DeviceSpec::parse(path.to_str().unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(parsed, DeviceSpec::Hdd(spec));
        assert_eq!(parsed.build().name(), "my drive");

        let err = DeviceSpec::parse(path.to_str().unwrap()).unwrap_err();
        let DeviceSpecError::Unreadable { path: p, .. } = &err else { panic!("{err:?}") };
        assert!(p.ends_with(".toml"), "{err}");
    }

    #[test]
    fn a_small_custom_hdd_from_toml() {
        let text = r#"
            kind = "hdd"
            name = "toy"
            surfaces = 2
            capacity_sectors = 700
            rpm = 6000
            head_switch_ms = 0.5
            write_settle_ms = 0.0
            bus_sector_ms = 0.0
            [overhead]
            read_miss_after_read_ms = 0.1
            read_miss_after_write_ms = 0.1
            read_hit_after_read_ms = 0.05
            read_hit_after_write_ms = 0.05
            write_after_read_ms = 0.2
            write_after_write_ms = 0.2
            [seek.two_piece]
            boundary_cylinders = 10
            short_base_ms = 1.0
            short_sqrt_ms = 0.5
            long_base_ms = 2.0
            long_per_cylinder_ms = 0.1
            [cache]
            enabled = false
            segments = 0
            segment_sectors = 0
            readahead_sectors_max = 0
            [[zone]]
            first_cylinder = 0
            last_cylinder = 3
            sectors_per_track = 100
            track_skew_sectors = 10
            cylinder_skew_sectors = 20
            spares = 10
            slips = [5]
        "#;
        let spec = DeviceSpec::from_toml_str(text, "toy.toml").unwrap();
        let device = spec.build();
        assert_eq!(device.capacity_sectors(), 700);
        assert_eq!(device.parallelism(), 1);
    }

    #[test]
    fn syntax_errors_name_the_origin_and_the_key() {
        let err = DeviceSpec::from_toml_str("kind = \"ssd\"\nname = \"x\"\n", "a.toml").unwrap_err();
        let DeviceSpecError::Syntax { origin, message } = &err else { panic!("{err:?}") };
        assert_eq!(origin, "a.toml");
        assert!(message.contains("missing field `capacity_sectors`"), "{err}");

        let mut text = DeviceSpec::Ssd(SsdSpec::p4500()).to_toml();
        text.push_str("chanels = 4\n");
        let err = DeviceSpec::from_toml_str(&text, "b.toml").unwrap_err();
        assert!(err.to_string().contains("unknown field `chanels`"), "{err}");

        let err = DeviceSpec::from_toml_str("kind = \"tape\"\n", "c.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "device spec c.toml: `kind` must be one of \"hdd\", \"ssd\", \"simple\", got \"tape\""
        );

        let text =
            DeviceSpec::Ssd(SsdSpec::p4500()).to_toml().replace("channels = 32", "channels = \"many\"");
        let err = DeviceSpec::from_toml_str(&text, "d.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "device spec d.toml: invalid type: string \"many\", expected u32 in `channels`"
        );

        let text = DeviceSpec::Hdd(HddSpec::cheetah_9lp())
            .to_toml()
            .replace("sectors_per_track = 227", "sectors_per_track = -1");
        let err = DeviceSpec::from_toml_str(&text, "e.toml").unwrap_err();
        assert!(err.to_string().ends_with("expected u32 in `zone.sectors_per_track`"), "{err}");

        let err =
            DeviceSpec::from_toml_str("kind = \"ssd\"\nname = \"x\nchannels = 4\n", "f.toml").unwrap_err();
        assert!(err.to_string().starts_with("device spec f.toml: TOML parse error at line 2"), "{err}");

        let err = DeviceSpec::from_toml_str("name = \"x\"\n", "g.toml").unwrap_err();
        assert!(err.to_string().contains("missing key `kind`"), "{err}");
    }

    #[test]
    fn range_errors_name_the_key() {
        let check = |spec: DeviceSpec| invalid_key(spec.validate("t.toml").unwrap_err());

        let mut h = HddSpec::cheetah_9lp();
        h.zones[3].sectors_per_track = 0;
        assert_eq!(check(DeviceSpec::Hdd(h)), "zone[3].sectors_per_track");

        let mut h = HddSpec::cheetah_9lp();
        h.zones[2].first_cylinder = 1000;
        assert_eq!(check(DeviceSpec::Hdd(h)), "zone[2].first_cylinder");

        let mut h = HddSpec::cheetah_9lp();
        h.zones[0].slips.swap(0, 1);
        assert_eq!(check(DeviceSpec::Hdd(h)), "zone[0].slips[1]");

        let mut h = HddSpec::cheetah_9lp();
        h.capacity_sectors = 18_000_000;
        let err = DeviceSpec::Hdd(h).validate("t.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "device spec t.toml: `capacity_sectors` must be between 1 and the 17918387 LBNs the zones hold, \
             got 18000000"
        );

        let mut h = HddSpec::cheetah_9lp();
        h.seek.two_piece = Some(TwoPieceSeek {
            boundary_cylinders: 1200,
            short_base_ms: 1.065,
            short_sqrt_ms: 0.0976,
            long_base_ms: 3.110,
            long_per_cylinder_ms: 0.001079,
        });
        assert_eq!(check(DeviceSpec::Hdd(h)), "seek");

        let mut h = HddSpec::cheetah_9lp();
        h.seek.table.as_mut().unwrap()[5].0 = 3;
        assert_eq!(check(DeviceSpec::Hdd(h)), "seek.table[5]");

        let mut h = HddSpec::cheetah_9lp();
        h.overhead.write_after_write_ms = -1.0;
        assert_eq!(check(DeviceSpec::Hdd(h)), "overhead.write_after_write_ms");

        let mut s = SsdSpec::p4500();
        s.channels = 0;
        assert_eq!(check(DeviceSpec::Ssd(s)), "channels");
        let mut s = SsdSpec::p4500();
        s.link_mb_per_s = 0.0;
        assert_eq!(check(DeviceSpec::Ssd(s)), "link_mb_per_s");
        let mut s = SimpleSpec::dulo_table1();
        s.seek_ms = f64::NAN;
        assert_eq!(check(DeviceSpec::Simple(s)), "seek_ms");
    }
}
