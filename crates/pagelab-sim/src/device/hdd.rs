//! A disk drive: Ruemmler & Wilkes, "An introduction to disk drive modeling", IEEE Computer 27(3), 1994,
//! with the mechanics and layout of DiskSim 4.0's validated Seagate ST39102LW (Cheetah 9LP, see
//! [`super::cheetah9lp`] and `../shared/reference/devices.md` §2).
//!
//! Units: an LBN in this file is DiskSim's, a 512-byte sector number (the unit of every device and of
//! the I/O scheduler, whose fields say `sector`); the engine's [`pagelab_core::Lbn`] counts 4 KiB pages.
//!
//! `service = controller overhead + positioning + rotational wait + transfer`, where
//! - the LBN is mapped through the zone table (§2.1; DiskSim's `dm_layout_g1`, conventional mapping):
//!   LBNs fill a track, then the next surface of the cylinder, then the next cylinder. The first LBN of
//!   each track is rotated by the track skew per head switch and the cylinder skew per cylinder switch
//!   since the zone start, so a sequential transfer finds the next track's first sector just after the
//!   switch. Sparing is per zone (DiskSim scheme 9): each slipped physical sector is skipped and every
//!   later LBN of the zone moves one sector on. pagelab models the 594 slips exactly (a binary search per
//!   mapping, after a check of the last mapping's count, which a request's tracks nearly always share): a
//!   transfer sweeping over one loses one sector time (17–36 µs), and ignoring them would
//!   misplace LBNs by up to 203 sectors (zone 1), almost a full track;
//! - positioning is DiskSim's: `max(seek(|Δcylinder|), head switch if the surface changes)`, plus the
//!   write settle (0.461 ms) for a write whenever that is non-zero. `seek` interpolates the 106-point
//!   extracted curve linearly (seek(0) = 0; past the last row it extrapolates, as DiskSim does; the
//!   Cheetah's last LBN is on cylinder 6894, the curve's last row) or evaluates a two-piece fit;
//! - the rotational wait is exact: the platter's angle is a function of absolute time (phase 0 at t = 0,
//!   10,045 RPM), so the wait is the time until the target sector's start passes under the head;
//! - the transfer sweeps the request's sectors track by track; crossing to the next track costs a head
//!   switch (or a one-cylinder seek) and then the rotational wait to the next LBN, which is exactly the
//!   skew, since the skews (97–133 sectors in zones 0–6, 80–94 in zones 7–10, i.e. 2.3–3.2 ms) exceed
//!   the switch times (0.03 ms head switch, 0.831 ms one-cylinder seek). Streaming therefore runs at
//!   `spt·S / (spt·S + (S−1)·track_skew + cylinder_skew)` of the media rate `spt·512·RPM/60`: 15.62 MB/s
//!   in the outer zone and 9.40 MB/s in the inner one, against media rates of 21.77 and 14.31 MB/s.
//!   DiskSim charges the same: run on DiskSim 4.0 itself, 300 random two-track reads took 8.0 ms longer
//!   on average than one-track reads, i.e. a revolution (5.97 ms) plus the 97-sector skew (2.28 ms),
//!   not plus the 0.03 ms head switch; and back-to-back sequential reads of 4 KiB to 1 MiB take the
//!   same time per request in both, to 1e-5 (`docs/DISK-VALIDATION.md`, pinned by a test below). The
//!   drive's product manual gives 0.8 ms per head switch and 1.2 ms per cylinder switch in sequential
//!   mode (19.1 → 12.6 MB/s sustained); the layout DiskSim extracted from the drive has 2.3–3.2 ms skews,
//!   and pagelab keeps DiskSim's layout;
//! - the bus moves each sector to the host after it reaches the buffer, in order, at `bus_sector_ms`,
//!   overlapped with the media transfer: a read completes at `max_i(available_i + (n − i)·bus)`, which
//!   for the default 6.4 µs/sector (faster than the media) is the end of the media transfer plus one
//!   sector's bus time. (Why not DiskSim's 0.105 ms: see [`super::cheetah9lp`].)
//!
//! On-board read cache (DiskSim: 3 segments × 561 blocks, read-ahead up to 561 blocks; switchable):
//! - after a read miss the drive keeps reading sequentially past the request while it is idle, up to
//!   `readahead_sectors_max` sectors, into the segment that received the request; a segment keeps its
//!   last `segment_sectors` sectors, so read-ahead may push out the requested ones (DiskSim's
//!   "Read-ahead over requested = 1"). A read miss or a write that arrives stops the read-ahead at its
//!   arrival time (what has passed under the head by then stays cached);
//! - a read whose sectors all lie in a segment at its arrival is a hit: read-hit overhead plus the bus
//!   time, no mechanical work, and the read-ahead goes on;
//! - a read that starts inside the running read-ahead but ends beyond what it has read is served by the
//!   read-ahead itself (read-hit overhead, then the data as the stream reaches it, DiskSim's "immediate
//!   transfer of partial hits"); the read-ahead continues past it with a fresh limit;
//! - a read that starts in a segment whose read-ahead has stopped reads only the uncached rest from the
//!   media (read-miss overhead), and that segment grows;
//! - the replaced segment is the least recently used one. Writes invalidate segments they overlap.
//!
//! Where pagelab departs from DiskSim's validated configuration, and why:
//! - writes are write-through (write overhead + positioning + settle + rotation + media), whereas the
//!   validated drive reports a write once it is in its buffer ("Fast write level = 2") and destages it
//!   later. The papers' workloads are reads; write-back would make a write's cost depend on idle time
//!   after it, which the simulator does not yet schedule.
//! - a read whose first sector is the one the running read-ahead reads next (or is reading, or is waiting
//!   for across a track switch) is served by the read-ahead stream: DiskSim's "Allow almost read hits =
//!   1". The validated configuration has 0, as has every disk in DiskSim's `valid/` directory (a default,
//!   not a measurement: the validation trace's 2,033 reads that continue the previous one all come 228 µs
//!   or more after its completion, and never reach the case). With 0, a read issued the instant the
//!   previous one completes misses and waits a revolution
//!   for the sector that just passed: DiskSim then gives 0.66 MB/s for back-to-back 4 KiB reads and
//!   14.3 / 8.9 MB/s (outer / inner zone) for 1 MiB ones. If the host takes 30 µs (more than a sector
//!   time, 24–36 µs) between a completion and the next command, the same DiskSim streams: 1 MiB reads at
//!   15.62 / 9.40 MB/s as pagelab, 64 KiB ones within 1 %; only reads that begin a track and arrive
//!   while the drive waits out the skew still miss. pagelab's host issues the next request at the
//!   completion instant, where that rule would cost a revolution per request: an artefact of an
//!   instantaneous host, not something the validation measured, so pagelab streams (and equals DiskSim
//!   with the flag set to 1, to 1e-5; `docs/DISK-VALIDATION.md`).
//! - a read that starts in a segment whose read-ahead has stopped is charged the read-miss overhead
//!   before its cached sectors go to the host; DiskSim charges such a partial hit the read-hit overhead
//!   for them (its media part waits out the read-miss overhead in both). Only a bus slower than the media
//!   shows it: 0.22 ms per back-to-back 1 MiB read with the validation rig's 0.105 ms per sector.
//! - no zero-latency (out-of-order) reads, no preseeking: as the validated model.
//! - [`Device::head_sector`] reports where the last request left the head; the idle read-ahead that
//!   may have moved it a track or two further is not included (a scheduler's seek estimate is then off
//!   by at most a couple of cylinders).
//!
//! `ServiceTime`: `overhead` is the controller's; `seek` the first positioning (seek or head switch,
//! write settle); `rotation` the first rotational wait; `transfer` the rest (media, track switches with
//! their skew waits, the bus tail). A cache hit is overhead plus bus time only.
//!
//! Measured: a 4 KiB read at a uniformly random LBN takes 8.99 ms on average (4,000 requests, seed 42;
//! 8.96–9.02 ms over five seeds of 20,000). On the very same 4,000 LBNs DiskSim 4.0 gives 8.959 ms and
//! this model 8.945 ms (both with a zero-time bus), or 9.594 and 9.580 ms with the 0.105 ms bus.

use super::spec::{HddSpec, SeekSpec};
use super::{check_request, per_sector, Device};
use crate::io::{DiskRequest, ServiceTime};
use pagelab_core::Nanos;
use std::cell::Cell;
use std::ops::Range;

const NS_PER_MINUTE: u128 = 60_000_000_000;

/// How far (ns) past a sector's start the head may be and still read it without a further revolution:
/// integer nanoseconds make consecutive sectors meet up to a rounding error apart. A transfer that starts
/// within the slack starts at the sector's own (rounded-up) instant, not at the later time it was asked
/// for, so the error stays below 1.5 ns however many transfers are chained (see [`Spindle::next_start`]).
const ROUNDING_SLACK_NS: u128 = 2;

/// rpm and sectors per track below this, the spindle's arithmetic fits 64 bits (every intermediate value
/// below 2^58, the bounds at each step below) and runs there, as exactly as in 128 bits, which cost a
/// library call per division; a drive beyond it takes the 128-bit path.
const SPINDLE_64_BOUND: u64 = 1 << 20;

/// A physical position: cylinder, surface (head) and sector within the track (before skew).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pbn {
    pub cylinder: u32,
    pub surface: u32,
    pub sector: u32,
}

/// Where the arm is: the track under the active head.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Arm {
    cylinder: u32,
    surface: u32,
}

#[derive(Clone, Debug)]
struct Zone {
    first_cylinder: u32,
    sectors_per_track: u32,
    track_skew_sectors: u64,
    cylinder_skew_sectors: u64,
    first_sector_offset: u64,
    first_lbn: u64,
    lbns: u64,
    /// Zone-relative physical sectors skipped by the mapping, ascending.
    slips: Vec<u64>,
    /// `slips[i] - i`, non-decreasing: the zone-relative LBN from which slip `i` shifts the mapping.
    slip_from_lbn: Vec<u64>,
    /// The answer of the last [`Zone::physical`] (a count of slips): a request's tracks nearly always lie
    /// between the same two slips (there are at most a few hundred in a zone of a million sectors), so
    /// checking the last count first spares most binary searches.
    slips_before_lbn: Cell<usize>,
    /// The answer of the last [`Zone::lbns_below`], kept for the same reason.
    slips_below_physical: Cell<usize>,
}

/// `v` rounded to the nearest whole nanosecond, halves away from zero, as `v.max(0.0).round() as u64` (0 for
/// a negative or NaN `v`, `u64::MAX` beyond it), without `f64::round`: a library call on x86-64's baseline,
/// made for every disk request's bus timing. Exact: for `1 <= v < 2^64` the truncation `t` is at least
/// `v / 2`, so `v - t` is computed without rounding (Sterbenz), and below 1 it is `v` itself.
fn round_ns(v: f64) -> u64 {
    let t = v as u64; // truncates; saturates at 0 and u64::MAX; NaN gives 0
    if v - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// How many of the non-decreasing `list` are at most `x`, as `list.partition_point(|&v| v <= x)` counts
/// them (`strict`: below `x`), checking `hint`'s count first and keeping the answer there.
fn count_up_to(list: &[u64], x: u64, strict: bool, hint: &Cell<usize>) -> usize {
    let within = |v: u64| if strict { v < x } else { v <= x };
    let h = hint.get();
    if h <= list.len() && (h == 0 || within(list[h - 1])) && list.get(h).is_none_or(|&v| !within(v)) {
        return h;
    }
    let count = list.partition_point(|&v| within(v));
    hint.set(count);
    count
}

impl Zone {
    /// Zone-relative physical sector of zone-relative LBN `rel`: one further for every slip at or
    /// before it.
    fn physical(&self, rel: u64) -> u64 {
        rel + count_up_to(&self.slip_from_lbn, rel, false, &self.slips_before_lbn) as u64
    }

    /// Zone-relative LBNs whose physical sector lies below `physical`.
    fn lbns_below(&self, physical: u64) -> u64 {
        physical - count_up_to(&self.slips, physical, true, &self.slips_below_physical) as u64
    }
}

/// LBN ↔ physical position and angle, through the zone table. Not `Sync`: its lookups keep their last
/// answers as hints (in `Cell`s); a drive belongs to one simulation, on one thread at a time.
#[derive(Clone, Debug)]
pub struct Geometry {
    zones: Vec<Zone>,
    surfaces: u32,
    /// LBNs the zones hold.
    lbns: u64,
    /// The zone the last LBN placed was in: a request's tracks, placed one after the other, are nearly
    /// always in one zone, where the binary search over the zones cost a fifth of a placement.
    last_zone: Cell<usize>,
}

/// A located LBN: its zone, zone-relative physical sector and position.
#[derive(Clone, Copy, Debug)]
struct Place {
    zone: usize,
    physical: u64,
    pbn: Pbn,
}

impl Geometry {
    pub fn new(spec: &HddSpec) -> Geometry {
        let mut first_lbn = 0;
        let zones = spec
            .zones
            .iter()
            .map(|z| {
                let cylinders = (z.last_cylinder - z.first_cylinder + 1) as u64;
                let lbns = cylinders * spec.surfaces as u64 * z.sectors_per_track as u64 - z.spares;
                let zone = Zone {
                    first_cylinder: z.first_cylinder,
                    sectors_per_track: z.sectors_per_track,
                    track_skew_sectors: z.track_skew_sectors as u64,
                    cylinder_skew_sectors: z.cylinder_skew_sectors as u64,
                    first_sector_offset: z.first_sector_offset as u64,
                    first_lbn,
                    lbns,
                    slips: z.slips.clone(),
                    slip_from_lbn: z.slips.iter().enumerate().map(|(i, &s)| s - i as u64).collect(),
                    slips_before_lbn: Cell::new(0),
                    slips_below_physical: Cell::new(0),
                };
                first_lbn += lbns;
                zone
            })
            .collect();
        Geometry { zones, surfaces: spec.surfaces, lbns: first_lbn, last_zone: Cell::new(0) }
    }

    /// LBNs the zones hold (may exceed the drive's addressable capacity).
    pub fn lbns(&self) -> u64 {
        self.lbns
    }

    /// The zone holding `lbn` (caller guarantees `lbn < self.lbns()`): the last one placed if it does,
    /// else the one a binary search finds.
    fn zone_of(&self, lbn: u64) -> usize {
        let hint = self.last_zone.get();
        if let Some(z) = self.zones.get(hint) {
            if lbn >= z.first_lbn && lbn - z.first_lbn < z.lbns {
                return hint;
            }
        }
        let zone = self.zones.partition_point(|z| z.first_lbn <= lbn) - 1;
        self.last_zone.set(zone);
        zone
    }

    pub fn locate(&self, lbn: u64) -> Pbn {
        self.place(lbn).pbn
    }

    fn place(&self, lbn: u64) -> Place {
        assert!(lbn < self.lbns(), "LBN {lbn} beyond the zone table's {} LBNs", self.lbns());
        let zone = self.zone_of(lbn);
        debug_assert_eq!(zone, self.zones.partition_point(|z| z.first_lbn <= lbn) - 1);
        let z = &self.zones[zone];
        let physical = z.physical(lbn - z.first_lbn);
        let spt = z.sectors_per_track as u64;
        let track = physical / spt;
        let pbn = Pbn {
            cylinder: z.first_cylinder + (track / self.surfaces as u64) as u32,
            surface: (track % self.surfaces as u64) as u32,
            sector: (physical % spt) as u32,
        };
        Place { zone, physical, pbn }
    }

    /// The first LBN after the track that holds `place`.
    fn track_end_lbn(&self, place: &Place) -> u64 {
        let z = &self.zones[place.zone];
        let spt = z.sectors_per_track as u64;
        let track_end = (place.physical / spt + 1) * spt;
        z.first_lbn + z.lbns_below(track_end).min(z.lbns)
    }

    /// The first LBN of every track below `capacity` sectors, in order (the mapping's zones and slips
    /// included: a slipped sector moves a track's first LBN).
    pub fn track_starts(&self, capacity: u64) -> Vec<u64> {
        let mut starts = Vec::new();
        let mut lbn = 0;
        while lbn < capacity.min(self.lbns()) {
            starts.push(lbn);
            let next = self.track_end_lbn(&self.place(lbn));
            assert!(next > lbn, "a track holds at least one LBN");
            lbn = next;
        }
        starts
    }

    /// Angle of the start of `place`'s sector, in sectors of its track from the index (`0..spt`).
    fn angle_sectors(&self, place: &Place) -> u32 {
        let z = &self.zones[place.zone];
        let cylinder = (place.pbn.cylinder - z.first_cylinder) as u64;
        let head_switches = place.pbn.surface as u64 + (self.surfaces as u64 - 1) * cylinder;
        let angle = z.first_sector_offset
            + head_switches * z.track_skew_sectors
            + cylinder * z.cylinder_skew_sectors
            + place.pbn.sector as u64;
        (angle % z.sectors_per_track as u64) as u32
    }

    fn sectors_per_track(&self, place: &Place) -> u32 {
        self.zones[place.zone].sectors_per_track
    }

    /// Zone-relative LBNs in the `count` physical sectors from `place` on.
    fn lbns_in(&self, place: &Place, count: u64) -> u64 {
        let z = &self.zones[place.zone];
        z.lbns_below(place.physical + count) - z.lbns_below(place.physical)
    }
}

/// The spindle: angular position as a function of absolute time.
#[derive(Clone, Copy, Debug)]
struct Spindle {
    rpm: u128,
}

impl Spindle {
    /// When the start of sector `angle` of a `spt`-sector track is under the head, at `t` or later: that
    /// instant rounded up to the nanosecond. Angles are counted in units of 1 / (60e9 · spt) revolution so
    /// that the arithmetic is exact.
    ///
    /// A start that passed at most [`ROUNDING_SLACK_NS`] before `t` is read now, and its own rounded-up
    /// instant is returned, which may lie before `t`. Returning `t` instead would carry the rounding of
    /// the previous sweep into the next transfer: a stream of back-to-back transfers (8-sector reads
    /// served by the read-ahead, 188,129.8 ns each, swept as 188,130) would drift 0.2 ns a request
    /// past the slack and then wait a whole revolution, every tenth request or so.
    fn next_start(&self, t: Nanos, angle: u32, spt: u32) -> Nanos {
        if self.fits_64(spt) && angle < spt {
            return self.next_start_64(t, angle, spt);
        }
        self.next_start_128(t, angle, spt)
    }

    /// [`Spindle::next_start`] in 128 bits, for any drive.
    fn next_start_128(&self, t: Nanos, angle: u32, spt: u32) -> Nanos {
        let spt = spt as u128;
        let revolution = NS_PER_MINUTE * spt;
        let now = (t.0 as u128 * self.rpm % NS_PER_MINUTE) * spt;
        let target = angle as u128 * NS_PER_MINUTE;
        let delta = (target + revolution - now) % revolution;
        let per_ns = self.rpm * spt;
        let passed = revolution - delta;
        if passed <= ROUNDING_SLACK_NS * per_ns {
            // The start was `passed / per_ns` ns ago (at most the slack): round that instant up.
            return Nanos(t.0 - (passed / per_ns) as u64);
        }
        Nanos(t.0 + delta.div_ceil(per_ns) as u64)
    }

    /// Whether this spindle's rpm and `spt` are both below [`SPINDLE_64_BOUND`], where the 64-bit paths
    /// hold every intermediate value.
    fn fits_64(&self, spt: u32) -> bool {
        self.rpm < SPINDLE_64_BOUND as u128 && (spt as u64) < SPINDLE_64_BOUND
    }

    /// [`Spindle::next_start`] in 64 bits. Caller guarantees `rpm` and `spt` are below
    /// [`SPINDLE_64_BOUND`] (2^20) and `angle` below `spt`.
    fn next_start_64(&self, t: Nanos, angle: u32, spt: u32) -> Nanos {
        const NS_PER_MINUTE_U64: u64 = NS_PER_MINUTE as u64; // < 2^36
        let (rpm, spt) = (self.rpm as u64, spt as u64);
        // A revolution < 2^56. (t · rpm) mod a minute, with t reduced first: (t mod a minute) · rpm < 2^56;
        // then · spt < 2^56.
        let revolution = NS_PER_MINUTE_U64 * spt;
        let now = (t.0 % NS_PER_MINUTE_U64 * rpm % NS_PER_MINUTE_U64) * spt;
        let target = angle as u64 * NS_PER_MINUTE_U64; // < 2^56
        let delta = (target + revolution - now) % revolution; // the sum < 2^57
        let per_ns = rpm * spt; // < 2^40
        let passed = revolution - delta;
        if passed <= ROUNDING_SLACK_NS as u64 * per_ns {
            return Nanos(t.0 - passed / per_ns);
        }
        Nanos(t.0 + delta.div_ceil(per_ns))
    }

    /// Time for `sectors` sectors of a `spt`-sector track to pass under the head (nearest ns).
    fn sweep(&self, sectors: u64, spt: u32) -> Nanos {
        if self.fits_64(spt) && sectors < 1 << 26 {
            // sectors · a minute < 2^62, per < 2^40: 64 bits hold it.
            let per = self.rpm as u64 * spt as u64;
            return Nanos((sectors * NS_PER_MINUTE as u64 + per / 2) / per);
        }
        self.sweep_128(sectors, spt)
    }

    /// [`Spindle::sweep`] in 128 bits, for any drive.
    fn sweep_128(&self, sectors: u64, spt: u32) -> Nanos {
        let per = self.rpm * spt as u128;
        Nanos(((sectors as u128 * NS_PER_MINUTE + per / 2) / per) as u64)
    }

    /// Whole sectors of a `spt`-sector track that pass under the head in `span`.
    fn sectors_in(&self, span: Nanos, spt: u32) -> u64 {
        (span.0 as u128 * self.rpm * spt as u128 / NS_PER_MINUTE) as u64
    }
}

#[derive(Clone, Debug)]
enum SeekCurve {
    /// (cylinders, ns), distances strictly increasing from 1.
    Table(Vec<(u32, u64)>),
    TwoPiece {
        boundary: u32,
        short_base: f64,
        short_sqrt: f64,
        long_base: f64,
        long_per_cylinder: f64,
    },
}

impl SeekCurve {
    fn new(spec: &SeekSpec) -> SeekCurve {
        match (&spec.table, &spec.two_piece) {
            (Some(table), _) => {
                SeekCurve::Table(table.iter().map(|&(d, ms)| (d, Nanos::from_ms_f64(ms).0)).collect())
            }
            (None, Some(c)) => SeekCurve::TwoPiece {
                boundary: c.boundary_cylinders,
                short_base: c.short_base_ms * 1e6,
                short_sqrt: c.short_sqrt_ms * 1e6,
                long_base: c.long_base_ms * 1e6,
                long_per_cylinder: c.long_per_cylinder_ms * 1e6,
            },
            (None, None) => unreachable!("validated spec has a seek table or curve"),
        }
    }

    fn time(&self, distance: u32) -> Nanos {
        if distance == 0 {
            return Nanos::ZERO;
        }
        match self {
            SeekCurve::Table(rows) => Nanos(interpolate(rows, distance)),
            SeekCurve::TwoPiece { boundary, short_base, short_sqrt, long_base, long_per_cylinder } => {
                let d = distance as f64;
                let ns = if distance < *boundary {
                    short_base + short_sqrt * d.sqrt()
                } else {
                    long_base + long_per_cylinder * d
                };
                Nanos(round_ns(ns))
            }
        }
    }
}

/// Linear interpolation between the rows around `d` (extrapolation from the last two past the end,
/// clamped at zero since measured curves need not be monotone).
fn interpolate(rows: &[(u32, u64)], d: u32) -> u64 {
    let i = rows.partition_point(|&(x, _)| x < d);
    if i < rows.len() && rows[i].0 == d {
        return rows[i].1;
    }
    if rows.len() == 1 {
        return rows[0].1;
    }
    let (lo, hi) = if i >= rows.len() { (rows.len() - 2, rows.len() - 1) } else { (i - 1, i) };
    let ((d1, t1), (d2, t2)) = (rows[lo], rows[hi]);
    let slope = (t2 as f64 - t1 as f64) / (d2 - d1) as f64;
    round_ns(t1 as f64 + slope * (d as f64 - d1 as f64))
}

/// One track's part of a sequential media transfer: `lbns` LBNs from `lbn`, under the head from
/// `start` to `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    lbn: u64,
    lbns: u64,
    start: Nanos,
    end: Nanos,
}

/// The outcome of [`Hdd::media_pass`].
#[derive(Clone, Copy, Debug)]
struct Pass {
    arm: Arm,
    /// When the last LBN passed (or the deadline, if the pass was cut short).
    end: Nanos,
    /// One past the last LBN fully transferred.
    reached: u64,
    first_position: Nanos,
    first_wait: Nanos,
}

/// A contiguous range of cached LBNs; `used` orders segments for replacement (larger = more recent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Segment {
    start: u64,
    end: u64,
    used: u64,
}

/// The drive reading ahead while idle: the head finished LBN `next - 1` at `at` on `arm`, and goes on
/// towards `limit` until the next request that needs the mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReadAhead {
    segment: usize,
    next: u64,
    at: Nanos,
    arm: Arm,
    limit: u64,
}

#[derive(Clone, Debug)]
struct OnBoardCache {
    segments: Vec<Segment>,
    segment_sectors: u64,
    readahead_sectors_max: u64,
    uses: u64,
    readahead: Option<ReadAhead>,
}

impl OnBoardCache {
    /// The cached LBNs of segment `i`: its last `segment_sectors` sectors.
    fn window(&self, i: usize) -> (u64, u64) {
        let s = &self.segments[i];
        (s.start.max(s.end.saturating_sub(self.segment_sectors)), s.end)
    }

    /// The segment whose window holds `lbn` and reaches furthest beyond it.
    fn holding(&self, lbn: u64) -> Option<usize> {
        (0..self.segments.len())
            .filter(|&i| {
                let (lo, hi) = self.window(i);
                lo <= lbn && lbn < hi
            })
            .max_by_key(|&i| (self.window(i).1, std::cmp::Reverse(i)))
    }

    fn touch(&mut self, i: usize) {
        self.uses += 1;
        self.segments[i].used = self.uses;
    }

    fn least_recently_used(&self) -> usize {
        (0..self.segments.len()).min_by_key(|&i| (self.segments[i].used, i)).expect("at least one segment")
    }
}

/// Overheads in ns, indexed by [`Hdd::overhead`].
#[derive(Clone, Copy, Debug)]
struct Overheads {
    read_miss: [Nanos; 2],
    read_hit: [Nanos; 2],
    write: [Nanos; 2],
}

/// A disk drive (see the module doc).
#[derive(Clone, Debug)]
pub struct Hdd {
    name: String,
    capacity_sectors: u64,
    geometry: Geometry,
    seek: SeekCurve,
    spindle: Spindle,
    head_switch: Nanos,
    write_settle: Nanos,
    bus_sector_ns: u64,
    overheads: Overheads,
    cache: Option<OnBoardCache>,
    arm: Arm,
    head_lbn: u64,
    last_was_write: bool,
    busy_until: Nanos,
    runs: Vec<Run>,
}

impl Hdd {
    /// Caller guarantees `spec` passed [`super::DeviceSpec::validate`].
    pub fn new(spec: &HddSpec) -> Hdd {
        let o = &spec.overhead;
        let ms = Nanos::from_ms_f64;
        let cache = spec.cache.enabled.then(|| OnBoardCache {
            segments: vec![Segment::default(); spec.cache.segments as usize],
            segment_sectors: spec.cache.segment_sectors as u64,
            readahead_sectors_max: spec.cache.readahead_sectors_max as u64,
            uses: 0,
            readahead: None,
        });
        let geometry = Geometry::new(spec);
        assert!(spec.capacity_sectors <= geometry.lbns(), "capacity beyond the zone table");
        Hdd {
            name: spec.name.clone(),
            capacity_sectors: spec.capacity_sectors,
            geometry,
            seek: SeekCurve::new(&spec.seek),
            spindle: Spindle { rpm: spec.rpm as u128 },
            head_switch: ms(spec.head_switch_ms),
            write_settle: ms(spec.write_settle_ms),
            bus_sector_ns: ms(spec.bus_sector_ms).0,
            overheads: Overheads {
                read_miss: [ms(o.read_miss_after_read_ms), ms(o.read_miss_after_write_ms)],
                read_hit: [ms(o.read_hit_after_read_ms), ms(o.read_hit_after_write_ms)],
                write: [ms(o.write_after_read_ms), ms(o.write_after_write_ms)],
            },
            cache,
            arm: Arm::default(),
            head_lbn: 0,
            last_was_write: false,
            busy_until: Nanos::ZERO,
            runs: Vec::new(),
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Seek time for a distance in cylinders (0 for 0).
    pub fn seek_time(&self, cylinders: u32) -> Nanos {
        self.seek.time(cylinders)
    }

    /// Time for one revolution, rounded to the nanosecond (5,973,121 ns at 10,045 RPM).
    pub fn revolution(&self) -> Nanos {
        Nanos(((NS_PER_MINUTE + self.spindle.rpm / 2) / self.spindle.rpm) as u64)
    }

    /// Which of an overhead pair applies: DiskSim's "after read" (0) or "after write" (1).
    fn overhead(&self, pair: [Nanos; 2]) -> Nanos {
        pair[self.last_was_write as usize]
    }

    fn position(&self, from: Arm, to: Arm, write: bool) -> Nanos {
        let seek = self.seek.time(from.cylinder.abs_diff(to.cylinder));
        let switch = if from.surface != to.surface { self.head_switch } else { Nanos::ZERO };
        let t = seek.max(switch);
        if write && t > Nanos::ZERO {
            t + self.write_settle
        } else {
            t
        }
    }

    /// Moves the arm from `arm` at `t` and transfers LBNs `lbns` in order, one track at a time,
    /// pushing each track's [`Run`] to `runs`. At `deadline` the pass stops; the sectors that passed
    /// under the head by then count as transferred.
    fn media_pass(
        &self,
        (mut arm, mut t): (Arm, Nanos),
        lbns: Range<u64>,
        write: bool,
        deadline: Nanos,
        runs: &mut Vec<Run>,
    ) -> Pass {
        let (from, to) = (lbns.start, lbns.end);
        let mut pass =
            Pass { arm, end: t, reached: from, first_position: Nanos::ZERO, first_wait: Nanos::ZERO };
        let mut lbn = from;
        // Every track moves at least one LBN, so to - from tracks bound the loop.
        for track in 0..=(to - from) {
            if lbn >= to {
                break;
            }
            let place = self.geometry.place(lbn);
            let spt = self.geometry.sectors_per_track(&place);
            let target = Arm { cylinder: place.pbn.cylinder, surface: place.pbn.surface };
            let positioned = self.position(arm, target, write);
            let ready = t + positioned;
            let start = self.spindle.next_start(ready, self.geometry.angle_sectors(&place), spt);
            if track == 0 {
                (pass.first_position, pass.first_wait) = (positioned, start.saturating_sub(ready));
            }
            arm = target;
            let end_lbn = to.min(self.geometry.track_end_lbn(&place));
            let swept = self.geometry.place(end_lbn - 1).physical - place.physical + 1;
            let end = start + self.spindle.sweep(swept, spt);
            if end > deadline {
                let passed =
                    if deadline > start { self.spindle.sectors_in(deadline - start, spt) } else { 0 };
                let done = self.geometry.lbns_in(&place, passed.min(swept)).min(end_lbn - lbn);
                return Pass { arm, end: deadline, reached: lbn + done, ..pass };
            }
            runs.push(Run { lbn, lbns: end_lbn - lbn, start, end });
            t = end;
            lbn = end_lbn;
        }
        assert_eq!(lbn, to, "media pass ended early");
        Pass { arm, end: t, reached: to, ..pass }
    }

    /// When a read of `req` is wholly at the host: every sector crosses the bus after it is in the buffer
    /// (`runs` say when; sectors in no run were there already) and after the one before it, from `t_cmd`.
    fn bus_completion(&self, req: &DiskRequest, t_cmd: Nanos, runs: &[Run]) -> Nanos {
        let bus = self.bus_sector_ns;
        let mut done = t_cmd + per_sector(req.sectors as u64, bus);
        for r in runs {
            let (lo, hi) = (r.lbn.max(req.sector), (r.lbn + r.lbns).min(req.end()));
            if lo >= hi {
                continue;
            }
            // The availability of a sector is linear along a run, so the latest finish is at an end.
            let per_lbn = (r.end - r.start).0 as f64 / r.lbns as f64;
            let available = |x: u64| r.start + Nanos(round_ns((x - r.lbn + 1) as f64 * per_lbn));
            let first = available(lo) + per_sector(req.end() - lo, bus);
            let last = available(hi - 1) + per_sector(req.end() - (hi - 1), bus);
            done = done.max(first).max(last);
        }
        done
    }

    /// How far the running read-ahead has got by `t`, and where its arm is.
    fn readahead_progress(&self, ra: &ReadAhead, t: Nanos) -> Pass {
        if t <= ra.at {
            let zero = Nanos::ZERO;
            return Pass {
                arm: ra.arm,
                end: ra.at,
                reached: ra.next,
                first_position: zero,
                first_wait: zero,
            };
        }
        self.media_pass((ra.arm, ra.at), ra.next..ra.limit, false, t, &mut Vec::new())
    }

    /// Brings the cache up to `now`: the running read-ahead's segment holds what it has read so far.
    fn advance_readahead(&mut self, now: Nanos) {
        let Some(ra) = self.cache.as_ref().and_then(|c| c.readahead) else { return };
        let reached = self.readahead_progress(&ra, now).reached;
        let cache = self.cache.as_mut().expect("read-ahead implies a cache");
        let seg = &mut cache.segments[ra.segment];
        seg.end = seg.end.max(reached);
    }

    /// Stops the read-ahead at `now` (a request needs the mechanism): the arm stays where it got to.
    fn stop_readahead(&mut self, now: Nanos) {
        let Some(ra) = self.cache.as_mut().and_then(|c| c.readahead.take()) else { return };
        let progress = self.readahead_progress(&ra, now);
        self.arm = progress.arm;
        let seg = &mut self.cache.as_mut().expect("read-ahead implies a cache").segments[ra.segment];
        seg.end = seg.end.max(progress.reached);
    }

    fn start_readahead(&mut self, segment: usize, pass: &Pass) {
        let capacity = self.capacity_sectors;
        let Some(cache) = self.cache.as_mut() else { return };
        let limit = (pass.reached + cache.readahead_sectors_max).min(capacity);
        cache.readahead = (limit > pass.reached).then_some(ReadAhead {
            segment,
            next: pass.reached,
            at: pass.end,
            arm: pass.arm,
            limit,
        });
    }

    fn read_hit(&mut self, now: Nanos, req: &DiskRequest, segment: usize) -> ServiceTime {
        let overhead = self.overhead(self.overheads.read_hit);
        self.cache.as_mut().expect("a hit implies a cache").touch(segment);
        let transfer = per_sector(req.sectors as u64, self.bus_sector_ns);
        self.finish(now, false, ServiceTime { overhead, transfer, ..ServiceTime::default() })
    }

    /// The request starts inside the running read-ahead: the stream carries on through it.
    fn read_streamed(&mut self, now: Nanos, req: &DiskRequest, ra: ReadAhead) -> ServiceTime {
        let overhead = self.overhead(self.overheads.read_hit);
        let t_cmd = now + overhead;
        let mut runs = std::mem::take(&mut self.runs);
        runs.clear();
        let pass = self.media_pass((ra.arm, ra.at), ra.next..req.end(), false, Nanos::MAX, &mut runs);
        let done = self.bus_completion(req, t_cmd, &runs);
        self.runs = runs;
        let cache = self.cache.as_mut().expect("streaming implies a cache");
        cache.segments[ra.segment].end = req.end();
        cache.touch(ra.segment);
        self.arm = pass.arm;
        self.head_lbn = req.end();
        self.start_readahead(ra.segment, &pass);
        self.finish(now, false, ServiceTime { overhead, transfer: done - t_cmd, ..ServiceTime::default() })
    }

    /// Reads `media_from..req.end()` from the platters (`media_from > req.sector` when the front of the
    /// request is cached) into `segment` (if caching).
    fn read_media(
        &mut self,
        now: Nanos,
        req: &DiskRequest,
        media_from: u64,
        segment: Option<usize>,
    ) -> ServiceTime {
        self.stop_readahead(now);
        let overhead = self.overhead(self.overheads.read_miss);
        let t_cmd = now + overhead;
        let mut runs = std::mem::take(&mut self.runs);
        runs.clear();
        let pass = self.media_pass((self.arm, t_cmd), media_from..req.end(), false, Nanos::MAX, &mut runs);
        let done = self.bus_completion(req, t_cmd, &runs);
        self.runs = runs;
        self.arm = pass.arm;
        self.head_lbn = req.end();
        if let (Some(cache), Some(i)) = (self.cache.as_mut(), segment) {
            let seg = &mut cache.segments[i];
            // A partial hit extends the segment that holds the front; a miss refills a segment.
            if media_from == req.sector {
                seg.start = req.sector;
            }
            seg.end = req.end();
            cache.touch(i);
            self.start_readahead(i, &pass);
        }
        let (seek, rotation) = (pass.first_position, pass.first_wait);
        let transfer = done - t_cmd - seek - rotation;
        self.finish(now, false, ServiceTime { overhead, seek, rotation, transfer })
    }

    fn write(&mut self, now: Nanos, req: &DiskRequest) -> ServiceTime {
        self.stop_readahead(now);
        if let Some(cache) = self.cache.as_mut() {
            for seg in cache.segments.iter_mut().filter(|s| s.start < req.end() && req.sector < s.end) {
                *seg = Segment { used: seg.used, ..Segment::default() };
            }
        }
        let overhead = self.overhead(self.overheads.write);
        let t_cmd = now + overhead;
        let mut runs = std::mem::take(&mut self.runs);
        runs.clear();
        let pass = self.media_pass((self.arm, t_cmd), req.sector..req.end(), true, Nanos::MAX, &mut runs);
        self.runs = runs;
        // The data crosses the bus into the buffer ahead of the heads.
        let done = pass.end.max(t_cmd + per_sector(req.sectors as u64, self.bus_sector_ns));
        self.arm = pass.arm;
        self.head_lbn = req.end();
        let (seek, rotation) = (pass.first_position, pass.first_wait);
        self.finish(
            now,
            true,
            ServiceTime { overhead, seek, rotation, transfer: done - t_cmd - seek - rotation },
        )
    }

    fn finish(&mut self, now: Nanos, write: bool, time: ServiceTime) -> ServiceTime {
        self.last_was_write = write;
        self.busy_until = now + time.total();
        time
    }

    /// Which way a read goes, given the cache at its arrival.
    fn classify_read(&mut self, now: Nanos, req: &DiskRequest) -> ReadPath {
        self.advance_readahead(now);
        let Some(cache) = self.cache.as_ref() else {
            return ReadPath::Media { from: req.sector, segment: None };
        };
        let holding = cache.holding(req.sector);
        if let Some(i) = holding {
            let cached_end = cache.window(i).1;
            if req.end() <= cached_end {
                return ReadPath::Hit(i);
            }
            if let Some(ra) = cache.readahead.filter(|ra| ra.segment == i && cached_end < ra.limit) {
                return ReadPath::Streamed(ra);
            }
            return ReadPath::Media { from: cached_end, segment: Some(i) };
        }
        // Starting right where the running read-ahead is reading.
        if let Some(ra) = cache.readahead {
            let frontier = cache.segments[ra.segment].end;
            if req.sector == frontier && frontier < ra.limit {
                return ReadPath::Streamed(ra);
            }
        }
        ReadPath::Media { from: req.sector, segment: Some(cache.least_recently_used()) }
    }
}

/// How a read is served.
enum ReadPath {
    Hit(usize),
    Streamed(ReadAhead),
    Media { from: u64, segment: Option<usize> },
}

impl Device for Hdd {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    fn parallelism(&self) -> u32 {
        1
    }

    fn track_starts(&self) -> Option<Vec<u64>> {
        Some(self.geometry.track_starts(self.capacity_sectors))
    }

    fn service(&mut self, now: Nanos, req: &DiskRequest) -> ServiceTime {
        check_request(&*self, req);
        assert!(
            now >= self.busy_until,
            "{}: request at {now} while busy until {}",
            self.name,
            self.busy_until
        );
        let time = if req.write {
            self.write(now, req)
        } else {
            match self.classify_read(now, req) {
                ReadPath::Hit(segment) => self.read_hit(now, req, segment),
                ReadPath::Streamed(ra) => self.read_streamed(now, req, ra),
                ReadPath::Media { from, segment } => self.read_media(now, req, from, segment),
            }
        };
        debug_assert_eq!(self.busy_until, now + time.total());
        time
    }

    fn head_sector(&self) -> u64 {
        self.head_lbn
    }
}

/// Reads `sectors` sectors from `first` in `chunk`-sector requests, each issued when the previous
/// completes; returns the rate in decimal MB/s from the first request's completion to the last's. Shared by
/// the drives' tests.
#[cfg(test)]
pub(crate) fn stream_mb_per_s(hdd: &mut Hdd, first: u64, sectors: u64, chunk: u32) -> f64 {
    let mut now = hdd.service(Nanos::ZERO, &DiskRequest::read(first, chunk)).total();
    let start = now;
    let mut at = first + chunk as u64;
    while at < first + sectors {
        now += hdd.service(now, &DiskRequest::read(at, chunk)).total();
        at += chunk as u64;
    }
    (at - first - chunk as u64) as f64 * 512.0 / (now - start).0 as f64 * 1e3
}

/// A drive maker's average seek: the mean of the model's seek times over all pairs of distinct cylinders
/// of `cylinders` (the `cylinders − d` pairs `d` apart weigh `cylinders − d`). Shared by the drives' tests.
#[cfg(test)]
pub(crate) fn weighted_average_seek_ms(hdd: &Hdd, cylinders: u32) -> f64 {
    let (mut sum, mut pairs) = (0.0, 0.0);
    for d in 1..cylinders {
        let w = (cylinders - d) as f64;
        sum += w * hdd.seek_time(d).as_ms_f64();
        pairs += w;
    }
    sum / pairs
}

/// Mean service time of `n` 4 KiB reads at uniformly random sectors below `capacity`, issued back to back.
/// Shared by the drives' tests.
#[cfg(test)]
pub(crate) fn random_4k_mean_ms(hdd: &mut Hdd, capacity: u64, seed: u64, n: usize) -> f64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut now = Nanos::ZERO;
    for _ in 0..n {
        now += hdd.service(now, &DiskRequest::read(rng.gen_range(0..capacity - 8), 8)).total();
    }
    now.as_ms_f64() / n as f64
}

/// A drive's seek curve through its published seeks (ms): the maker's average (over all pairs of distinct
/// cylinders), the full stroke and the track-to-track seek, each to 0.2 % (the fit is exact; the model
/// rounds each seek to the nanosecond), and the same average over 200,000 random cylinder pairs to 1 %.
/// Shared by the drives built from published figures.
#[cfg(test)]
pub(crate) fn assert_published_seeks(hdd: &Hdd, cylinders: u32, avg_ms: f64, full_ms: f64, t2t_ms: f64) {
    use rand::{Rng, SeedableRng};
    let avg = weighted_average_seek_ms(hdd, cylinders);
    assert!((avg / avg_ms - 1.0).abs() < 0.002, "average seek {avg:.4} ms vs {avg_ms}");
    let full = hdd.seek_time(cylinders - 1).as_ms_f64();
    assert!((full / full_ms - 1.0).abs() < 0.002, "full stroke {full:.4} ms vs {full_ms}");
    let t2t = hdd.seek_time(1).as_ms_f64();
    assert!((t2t / t2t_ms - 1.0).abs() < 0.002, "track-to-track {t2t:.4} ms vs {t2t_ms}");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(15);
    let n = 200_000;
    let sampled: f64 = (0..n)
        .map(|_| {
            let (x, y) = (rng.gen_range(0..cylinders), rng.gen_range(0..cylinders));
            hdd.seek_time(x.abs_diff(y)).as_ms_f64()
        })
        .sum::<f64>()
        / n as f64;
    assert!((sampled / avg_ms - 1.0).abs() < 0.01, "sampled average seek {sampled:.4} ms vs {avg_ms}");
}

/// The fitted seek curve's boundary `boundary` is the integer one that puts the single-cylinder seek at the
/// published track-to-track `t2t_ms` and not above: one cylinder lower, it would exceed it (and the
/// cylinder skew). `fit_at` is the drive's fit at a given boundary. Shared by the drives whose boundary is
/// solved for.
#[cfg(test)]
pub(crate) fn assert_boundary_meets_track_to_track(
    fit_at: impl Fn(u32) -> super::spec::TwoPieceSeek,
    boundary: u32,
    t2t_ms: f64,
) {
    let at = |b: u32| {
        let c = fit_at(b);
        c.short_base_ms + c.short_sqrt_ms
    };
    assert!(at(boundary) <= t2t_ms, "{}", at(boundary));
    assert!(at(boundary - 1) > t2t_ms, "{}", at(boundary - 1));
}

/// 4,000 random 4 KiB reads of `spec`, its cache on (seed 42) and off (seed 43), average `want_ms` (the
/// published overhead + average seek + average latency) to 5 %: random LBNs (not cylinders) favour the
/// outer, larger zones, which shortens the seeks a little. Shared by the drives built from published
/// figures.
#[cfg(test)]
pub(crate) fn assert_random_4k_near(spec: &HddSpec, want_ms: f64) {
    for (cache, seed) in [(true, 42), (false, 43)] {
        let mut spec = spec.clone();
        spec.cache.enabled = cache;
        let mut hdd = Hdd::new(&spec);
        let capacity = hdd.capacity_sectors();
        let mean = random_4k_mean_ms(&mut hdd, capacity, seed, 4_000);
        assert!((mean / want_ms - 1.0).abs() < 0.05, "cache {cache}: {mean:.4} ms vs {want_ms:.2} ms");
    }
}

/// Every zone of `spec` (its cache on) streams at the sustained rate `rate_of` gives it (to 0.5 %: no zone
/// loses a revolution at a switch), ten cylinders from the zone's first LBN in 64 KiB and 256 KiB reads;
/// the outermost at `outer_mb_s` and the innermost at `inner_mb_s` (±0.5 MB/s). Shared by the drives built
/// from published figures.
#[cfg(test)]
pub(crate) fn assert_zones_stream(
    spec: &HddSpec,
    rate_of: impl Fn(&super::spec::ZoneSpec) -> f64,
    outer_mb_s: f64,
    inner_mb_s: f64,
) {
    let surfaces = spec.surfaces as u64;
    let last = spec.zones.len() - 1;
    let mut first = 0u64;
    for (i, z) in spec.zones.iter().enumerate() {
        assert_eq!(Hdd::new(spec).geometry().locate(first).cylinder, z.first_cylinder, "zone {i}");
        let want = rate_of(z);
        for chunk in [128, 512] {
            let got = stream_mb_per_s(
                &mut Hdd::new(spec),
                first,
                10 * surfaces * z.sectors_per_track as u64,
                chunk,
            );
            assert!(
                (got / want - 1.0).abs() < 0.005,
                "zone {i}, {chunk}-sector reads: {got:.3} vs {want:.3}"
            );
            if i == 0 {
                assert!((got - outer_mb_s).abs() <= 0.5, "outer {got:.3} MB/s vs {outer_mb_s:.2}");
            }
            if i == last {
                assert!((got - inner_mb_s).abs() <= 0.5, "inner {got:.3} MB/s vs {inner_mb_s:.2}");
            }
        }
        first += (z.last_cylinder - z.first_cylinder + 1) as u64 * surfaces * z.sectors_per_track as u64
            - z.spares;
    }
}

/// A drive built from published figures has skews that cover its switches (a sequential transfer finds
/// the next track's first sector after a head switch or a single-cylinder seek, not a revolution later)
/// and a seek curve that rises with the distance. Shared by the drives' tests.
#[cfg(test)]
pub(crate) fn assert_switches_covered_and_seeks_rising(spec: &HddSpec, cylinders: u32) {
    let hdd = Hdd::new(spec);
    let revolution_ms = hdd.revolution().as_ms_f64();
    for (i, z) in spec.zones.iter().enumerate() {
        let ms = |sectors: u32| sectors as f64 / z.sectors_per_track as f64 * revolution_ms;
        assert!(ms(z.track_skew_sectors) >= spec.head_switch_ms - 1e-6, "zone {i}");
        // A cylinder switch moves the arm one cylinder and changes head at once (DiskSim's mapping puts the
        // next cylinder's first track on the first surface): it takes the longer of the two.
        let cylinder_switch_ms = hdd.seek_time(1).as_ms_f64().max(spec.head_switch_ms);
        assert!(ms(z.cylinder_skew_sectors) >= cylinder_switch_ms - 1e-6, "zone {i}");
    }
    let mut last = Nanos::ZERO;
    for d in 1..cylinders {
        let t = hdd.seek_time(d);
        assert!(t >= last, "seek({d}) = {t} below seek({}) = {last}", d - 1);
        last = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::cheetah9lp::BLOCK_COUNT;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const BUS: Nanos = Nanos(6_400);
    const READ_MISS: Nanos = Nanos(283_620);
    const READ_HIT: Nanos = Nanos(66_000);
    /// 8 sectors of a 254-sector track: 8 / 254 × 60e9 / 10045 ns.
    const SWEEP_8_OUTER: Nanos = Nanos(188_130);

    fn cheetah(cache: bool) -> Hdd {
        let mut spec = HddSpec::cheetah_9lp();
        spec.cache.enabled = cache;
        Hdd::new(&spec)
    }

    fn pbn(cylinder: u32, surface: u32, sector: u32) -> Pbn {
        Pbn { cylinder, surface, sector }
    }

    fn write(sector: u64, sectors: u32) -> DiskRequest {
        DiskRequest { sector, sectors, write: true }
    }

    #[test]
    fn lbn_mapping_hand_worked() {
        let g = cheetah(false).geometry;
        assert_eq!(g.lbns(), 17_918_387, "DiskSim's own count from the zones");
        assert_eq!(g.locate(0), pbn(0, 0, 0));
        assert_eq!(g.locate(253), pbn(0, 0, 253));
        assert_eq!(g.locate(254), pbn(0, 1, 0));
        assert_eq!(g.locate(3_047), pbn(0, 11, 253));
        assert_eq!(g.locate(3_048), pbn(1, 0, 0));
        // Zone 0's first slip is physical sector 168,317 = cylinder 55 (55 × 3048 = 167,640), surface 2,
        // sector 169: LBN 168,316 sits just before it, LBN 168,317 just after.
        assert_eq!(g.locate(168_316), pbn(55, 2, 168));
        assert_eq!(g.locate(168_317), pbn(55, 2, 170));
        // Zone 1 starts after zone 0's 2,581,656 sectors less 1,270 spares, on cylinder 848 (847 is
        // not in the table). Its slips 17,579..17,581 are three consecutive sectors of cylinder 853.
        let zone1 = 2_581_656 - 1_270;
        assert_eq!(g.locate(zone1 - 1).cylinder, 846);
        assert_eq!(g.locate(zone1), pbn(848, 0, 0));
        assert_eq!(g.locate(zone1 + 17_578), pbn(853, 11, 183));
        assert_eq!(g.locate(zone1 + 17_579), pbn(853, 11, 187));
        // The drive's last LBN is on cylinder 6894, the seek curve's full stroke.
        assert_eq!(g.locate(BLOCK_COUNT - 1).cylinder, 6_894);
        assert_eq!(g.locate(g.lbns() - 1).cylinder, 6_961);
    }

    /// DULO's track map: every track's first LBN, slips included, each on sector 0 of its track.
    #[test]
    fn track_starts_follow_the_mapping() {
        let d = cheetah(false);
        let starts = d.track_starts().expect("a disk has tracks");
        assert_eq!(&starts[..3], &[0, 254, 508]);
        for &lbn in starts.iter().skip(1).step_by(997) {
            assert_eq!(d.geometry.locate(lbn).sector, 0, "LBN {lbn} starts a track");
            assert_ne!(d.geometry.locate(lbn - 1).sector, 0, "LBN {lbn} - 1 does not");
        }
        // The track holding zone 0's first slip (physical sector 169 of cylinder 55, surface 2) has one
        // LBN fewer: the next track starts at 253 LBNs on.
        let slip_track = starts.partition_point(|&s| s <= 168_316) - 1;
        assert_eq!(starts[slip_track + 1] - starts[slip_track], 253);
        assert!(*starts.last().unwrap() < d.capacity_sectors());
        // Cylinders 0..=6894 on 12 surfaces are 82,740 tracks; the cylinders the zone table skips between
        // zones, and the last cylinder's tracks above the capacity, hold no LBN.
        assert!((82_740 - 12 * 16..82_740).contains(&starts.len()), "{} tracks", starts.len());
    }

    #[test]
    fn skews_rotate_each_track_start() {
        let g = cheetah(false).geometry;
        let angle = |lbn| g.angle_sectors(&g.place(lbn));
        assert_eq!(angle(0), 0);
        assert_eq!(angle(5), 5);
        assert_eq!(angle(254), 97, "one head switch");
        assert_eq!(angle(508), 194);
        assert_eq!(angle(3_048), (11 * 97 + 133) % 254, "eleven head switches and a cylinder switch");
        assert_eq!(angle(3_048 + 254), (12 * 97 + 133) % 254);
        // Zone 10 (167 sectors per track, skews 88 / 80) starts its own count at its first cylinder.
        let zone10 = g.zones[10].first_lbn;
        assert_eq!(angle(zone10), 0);
        assert_eq!(angle(zone10 + 167), 88);
        assert_eq!(angle(zone10 + 2_004), (11 * 88 + 80) % 167);
    }

    #[test]
    fn seek_curve_points_and_interpolation() {
        let hdd = cheetah(false);
        assert_eq!(hdd.seek_time(0), Nanos::ZERO);
        assert_eq!(hdd.seek_time(1), Nanos(831_000), "single-cylinder seek");
        assert_eq!(hdd.seek_time(6_894), Nanos(10_627_000), "full stroke");
        assert_eq!(hdd.seek_time(11), Nanos(1_448_500), "halfway between 10 (1.448) and 12 (1.449)");
        assert_eq!(hdd.seek_time(5), Nanos(1_268_000));
        assert_eq!(hdd.seek_time(6), Nanos(1_263_000), "the measured curve is not monotone");
        assert_eq!(hdd.seek_time(550), Nanos(3_314_500));
        // Past the last row DiskSim extrapolates the last segment: 10.627 + 67 × 0.087 / 94 ms.
        assert_eq!(hdd.seek_time(6_961), Nanos(10_689_011));
        assert_eq!(hdd.revolution(), Nanos(5_973_121));
    }

    #[test]
    fn two_piece_seek_fit() {
        let mut spec = HddSpec::cheetah_9lp();
        spec.seek = SeekSpec {
            table: None,
            two_piece: Some(crate::device::spec::TwoPieceSeek {
                boundary_cylinders: 1_200,
                short_base_ms: 1.065,
                short_sqrt_ms: 0.0976,
                long_base_ms: 3.110,
                long_per_cylinder_ms: 0.001079,
            }),
        };
        let hdd = Hdd::new(&spec);
        assert_eq!(hdd.seek_time(0), Nanos::ZERO);
        assert_eq!(hdd.seek_time(100), Nanos(1_065_000 + 976_000));
        assert_eq!(hdd.seek_time(1_200), Nanos(3_110_000 + 1_294_800));
    }

    /// Without the on-board cache, every step worked by hand from the model's definition:
    /// revolution = 60e9 / 10045 = 5,973,120.96 ns; sector n of a 254-sector track passes at
    /// n / 254 of a revolution after the index (plus the track's skew).
    #[test]
    fn hand_traced_without_cache() {
        let mut hdd = cheetah(false);
        // 1. t = 0, read LBNs 0..8 at (0, 0, 0): overhead to 283,620; the index comes round at
        //    5,973,120.96: wait 5,689,501; 8 sectors 188,130; last sector's bus time 6,400.
        let t1 = hdd.service(Nanos::ZERO, &DiskRequest::read(0, 8));
        let want = ServiceTime {
            overhead: READ_MISS,
            seek: Nanos::ZERO,
            rotation: Nanos(5_689_501),
            transfer: SWEEP_8_OUTER + BUS,
        };
        assert_eq!(t1, want);
        assert_eq!(hdd.head_sector(), 8);
        let c1 = t1.total();
        assert_eq!(c1, Nanos(6_167_651));
        // 2. The next 8 sectors, issued at completion: sector 8 passed under the head at 6,161,251,
        //    during the overhead, so the drive waits almost a revolution (no read-ahead without a cache).
        let t2 = hdd.service(c1, &DiskRequest::read(8, 8));
        assert_eq!((t2.seek, t2.rotation, t2.transfer), (Nanos::ZERO, Nanos(5_683_101), SWEEP_8_OUTER + BUS));
        let c2 = c1 + t2.total();
        // 3. Write 8 sectors at LBN 3048 = (1, 0, 0): write overhead after a read 906,920; one-cylinder
        //    seek 831,000 + write settle 461,000; that track starts (11·97 + 133) mod 254 = 184 sectors
        //    after the index; no bus tail (the data is in the buffer before the heads get there).
        let t3 = hdd.service(c2, &write(3_048, 8));
        assert_eq!(t3.overhead, Nanos(906_920));
        assert_eq!(t3.seek, Nanos(831_000 + 461_000));
        assert_eq!((t3.rotation, t3.transfer), (Nanos(1_745_406), SWEEP_8_OUTER));
        assert_eq!(hdd.head_sector(), 3_056);
        let c3 = c2 + t3.total();
        assert_eq!(c3, Nanos(16_461_358));
        // 4. Read LBN 254 = (0, 1, 0): read-miss overhead after a write 86,730; seek one cylinder back
        //    (the head switch, 0.03 ms, hides inside it); surface 1 starts 97 sectors after the index.
        let t4 = hdd.service(c3, &DiskRequest::read(254, 8));
        assert_eq!((t4.overhead, t4.seek, t4.rotation), (Nanos(86_730), Nanos(831_000), Nanos(2_821_349)));
        assert_eq!(t4.total(), Nanos(3_933_609));
        // 5. A full stroke: cylinder 0 to the last LBN's cylinder 6894.
        let c4 = c3 + t4.total();
        let t5 = hdd.service(c4, &DiskRequest::read(BLOCK_COUNT - 8, 8));
        assert_eq!(t5.seek, Nanos(10_627_000));
        assert!(t5.rotation < hdd.revolution());
        assert_eq!(hdd.head_sector(), BLOCK_COUNT);
    }

    #[test]
    fn on_board_cache_hit_stream_and_stop() {
        let mut hdd = cheetah(true);
        // a. Miss, as in the hand trace; the drive then reads ahead from LBN 8 at 6,161,251 onwards.
        let c1 = hdd.service(Nanos::ZERO, &DiskRequest::read(0, 8)).total();
        assert_eq!(c1, Nanos(6_167_651));
        // b. 1 ms later the read-ahead has passed 1,006,400 / 23,516.2 = 42 sectors: LBNs 8..50.
        //    8..16 is a hit: hit overhead + 8 sectors of bus, nothing mechanical.
        let tb = Nanos(7_167_651);
        let hit = hdd.service(tb, &DiskRequest::read(8, 8));
        assert_eq!(
            hit,
            ServiceTime { overhead: READ_HIT, transfer: Nanos(8 * 6_400), ..ServiceTime::default() }
        );
        // c. 40..56 straddles the read-ahead's front (55 by now): served as the stream reaches it; the
        //    bus (hit overhead, then 16 × 6.4 µs) is the slower part here.
        let tc = tb + hit.total();
        let streamed = hdd.service(tc, &DiskRequest::read(40, 16));
        assert_eq!(
            streamed,
            ServiceTime { overhead: READ_HIT, transfer: Nanos(16 * 6_400), ..ServiceTime::default() }
        );
        assert_eq!(hdd.head_sector(), 56);
        // d. A far read is a miss and stops the read-ahead (6 more sectors by then: 56..62 cached).
        let td = tc + streamed.total();
        let far = hdd.service(td, &DiskRequest::read(2_000_000, 8));
        assert_eq!(far.overhead, READ_MISS);
        assert!(far.seek > Nanos::ZERO);
        let te = td + far.total();
        let back = hdd.service(te, &DiskRequest::read(60, 2));
        assert_eq!(
            back,
            ServiceTime { overhead: READ_HIT, transfer: Nanos(2 * 6_400), ..ServiceTime::default() }
        );
        // e. 62 was never read (the read-ahead stopped at 62): a miss.
        let tf = te + back.total();
        let gap = hdd.service(tf, &DiskRequest::read(62, 1));
        assert_eq!(gap.overhead, READ_MISS);
        // f. A write over 0..4 invalidates that segment: reading 0..2 again is a miss (after a write).
        let tg = tf + gap.total();
        let tg = tg + hdd.service(tg, &write(0, 4)).total();
        let again = hdd.service(tg, &DiskRequest::read(0, 2));
        assert_eq!(again.overhead, Nanos(86_730));
        assert!(again.rotation > Nanos::ZERO);
    }

    #[test]
    fn read_ahead_stops_at_its_limit_and_a_partial_hit_reads_the_rest() {
        let mut hdd = cheetah(true);
        let c1 = hdd.service(Nanos::ZERO, &DiskRequest::read(0, 8)).total();
        // 50 ms of idling: the read-ahead reaches LBN 8 + 561 = 569 and stops; the segment keeps the
        // last 561 sectors, 8..569.
        let t = c1 + Nanos::from_ms(50);
        let full = hdd.service(t, &DiskRequest::read(8, 561));
        assert_eq!(full.total(), READ_HIT + Nanos(561 * 6_400));
        let t = t + full.total();
        let evicted = hdd.service(t, &DiskRequest::read(0, 8));
        assert_eq!(evicted.overhead, READ_MISS, "sectors 0..8 slid out of the 561-sector window");
        // Read 560..576 after another idle spell: 560..569 are cached, 569..576 come from the platter
        // (read-miss overhead, no seek: the arm is still on that track... of cylinder 0).
        let mut hdd = cheetah(true);
        let c1 = hdd.service(Nanos::ZERO, &DiskRequest::read(0, 8)).total();
        let t = c1 + Nanos::from_ms(50);
        let partial = hdd.service(t, &DiskRequest::read(560, 16));
        assert_eq!((partial.overhead, partial.seek), (READ_MISS, Nanos::ZERO));
        assert!(partial.rotation < hdd.revolution());
        let t = t + partial.total();
        let hit = hdd.service(t, &DiskRequest::read(570, 6));
        assert_eq!(hit.total(), READ_HIT + Nanos(6 * 6_400), "the segment grew to 576");
    }

    #[test]
    fn three_segments_replace_the_least_recently_used() {
        let mut hdd = cheetah(true);
        let regions = [1_000_000u64, 5_000_000, 9_000_000, 13_000_000];
        let mut now = Nanos::ZERO;
        let mut read = |hdd: &mut Hdd, sector: u64| {
            let t = hdd.service(now, &DiskRequest::read(sector, 8));
            now = now + t.total() + Nanos::from_ms(30);
            t.overhead
        };
        for &r in &regions[..3] {
            assert_eq!(read(&mut hdd, r), READ_MISS);
        }
        // Each segment now holds the 561 sectors read ahead after its request: r + 8 .. r + 569 (the
        // read-ahead may overwrite the requested sectors, DiskSim's "Read-ahead over requested = 1").
        assert_eq!(read(&mut hdd, regions[0]), READ_MISS, "A's requested sectors were overwritten");
        assert_eq!(read(&mut hdd, regions[0] + 100), READ_HIT, "A is cached");
        assert_eq!(read(&mut hdd, regions[3]), READ_MISS, "D replaces B, the least recently used");
        assert_eq!(read(&mut hdd, regions[2] + 100), READ_HIT, "C is still cached");
        assert_eq!(read(&mut hdd, regions[0] + 200), READ_HIT, "so is A");
        assert_eq!(read(&mut hdd, regions[1] + 100), READ_MISS, "B was replaced");
    }

    #[test]
    fn nocache_never_hits() {
        let mut hdd = cheetah(false);
        let mut now = Nanos::ZERO;
        for _ in 0..3 {
            let t = hdd.service(now, &DiskRequest::read(4_000, 8));
            assert_eq!(t.overhead, READ_MISS);
            now += t.total();
        }
    }

    /// Mean service time of `n` 4 KiB reads at uniformly random LBNs, issued back to back.
    fn random_4k_mean_ms(hdd: &mut Hdd, seed: u64, n: usize) -> f64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut now = Nanos::ZERO;
        for _ in 0..n {
            let t = hdd.service(now, &DiskRequest::read(rng.gen_range(0..BLOCK_COUNT - 8), 8));
            now += t.total();
        }
        now.as_ms_f64() / n as f64
    }

    #[test]
    fn random_4k_read_is_8_9_ms() {
        // devices.md §2.6: 0.28 + 5.5 + 3.0 + 0.1 ≈ 8.9 ms. DiskSim 4.0 on the same drive with a
        // zero-time bus: 8.96 ms (4,000 requests, its own seed).
        let mean = random_4k_mean_ms(&mut cheetah(true), 42, 4_000);
        assert!((mean / 8.9 - 1.0).abs() < 0.05, "mean random 4 KiB read {mean:.4} ms");
        let mean = random_4k_mean_ms(&mut cheetah(false), 43, 4_000);
        assert!((mean / 8.9 - 1.0).abs() < 0.05, "without the cache {mean:.4} ms");
    }

    #[test]
    fn media_rate_within_a_track() {
        // One whole track from its first sector: the transfer is one revolution (+ one sector's bus).
        for (lbn, spt, want_mb_per_s) in [(0u64, 254u64, 21.8), (17_028_829, 167, 14.3)] {
            let mut hdd = cheetah(false);
            assert_eq!(hdd.geometry.locate(lbn).sector, 0);
            let t = hdd.service(Nanos::ZERO, &DiskRequest::read(lbn, spt as u32));
            assert_eq!(t.transfer, Nanos(5_973_121) + BUS);
            let rate = (spt * 512) as f64 / t.transfer.0 as f64 * 1e3;
            assert!((rate / want_mb_per_s - 1.0).abs() < 0.02, "{rate:.3} MB/s");
        }
    }

    #[test]
    fn streaming_rate_pays_the_skews() {
        // Per cylinder: 12 revolutions + 11 track skews + 1 cylinder skew (each longer than the head
        // switch or one-cylinder seek it hides), for 12 tracks of data.
        let rev_s = 60.0 / 10_045.0;
        for (first, spt, ts, cs, cylinders) in
            [(0u64, 254.0, 97.0, 133.0, 10u64), (17_028_829, 167.0, 88.0, 80.0, 9)]
        {
            let per_cylinder_s = (12.0 + (11.0 * ts + cs) / spt) * rev_s;
            let want = 12.0 * spt * 512.0 / per_cylinder_s / 1e6;
            let sectors = cylinders * 12 * spt as u64;
            for chunk in [64, 512] {
                let got = stream_mb_per_s(&mut cheetah(true), first, sectors, chunk);
                assert!(
                    (got / want - 1.0).abs() < 0.01,
                    "{chunk}-sector reads at {first}: {got:.3} vs {want:.3} MB/s"
                );
            }
        }
    }

    /// `n` reads of `sectors` sectors back to back from `first`, each issued when the previous one
    /// completes: (the first request's time, the mean of the others), in ms.
    fn back_to_back_ms(hdd: &mut Hdd, first: u64, sectors: u32, n: u64) -> (f64, Vec<f64>) {
        let mut now = Nanos::ZERO;
        let mut times = Vec::with_capacity(n as usize);
        for i in 0..n {
            let t = hdd.service(now, &DiskRequest::read(first + i * sectors as u64, sectors)).total();
            now += t;
            times.push(t.as_ms_f64());
        }
        (times[0], times.split_off(1))
    }

    #[test]
    fn chained_transfers_do_not_drift_off_the_platter() {
        // 4 KiB reads back to back, served by the read-ahead: each waits for its 8 sectors to pass
        // (188,129.8 ns, swept as 188,130). Were each transfer started at the previous one's rounded end,
        // the 0.2 ns would pile up past the rounding slack within ten requests and the next read would
        // wait a whole revolution (it did: 0.83 ms per 4 KiB read on average instead of 0.26).
        for (first, spt) in [(0u64, 254u32), (17_028_829, 167)] {
            let (_, rest) = back_to_back_ms(&mut cheetah(true), first, 8, 3_000);
            let worst = rest.iter().cloned().fold(0.0, f64::max);
            // The longest step is a cylinder switch: the 133-sector skew (3.13 ms) plus the 8 sectors.
            assert!(worst < 3.5, "a 4 KiB read at {first} took {worst:.3} ms: a lost revolution");
            let on_track = rest.iter().filter(|&&t| t < 0.5).count();
            assert!(
                on_track as f64 > 0.9 * rest.len() as f64,
                "{on_track} of {} without a switch",
                rest.len()
            );
            let sweep_ms = 8.0 / spt as f64 * 60e3 / 10_045.0;
            let median = {
                let mut v = rest.clone();
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            assert!((median - sweep_ms).abs() < 1e-5, "median {median} vs the 8-sector sweep {sweep_ms}");
        }
    }

    /// DiskSim 4.0 on the same requests (docs/DISK-VALIDATION.md): the validated Cheetah 9LP
    /// (`SEAGATE_ST39102LW_validate`) with the disk's "Bulk sector transfer time" set to pagelab's 0.0064
    /// ms and "Allow almost read hits" set to 1 (what pagelab does, see the module doc), driven by a
    /// closed-loop trace: 64 MiB of back-to-back reads, the next issued at the previous completion.
    /// (first LBN, sectors per read, first read ms, mean of the others ms), DiskSim's exec-trace times.
    const DISKSIM_BACK_TO_BACK: [(u64, u32, f64, f64); 8] = [
        (0, 8, 6.167635, 0.262200),
        (0, 128, 8.989409, 4.196278),
        (0, 512, 22.582147, 16.781176),
        (0, 2048, 72.390040, 67.133207),
        (17_028_829, 8, 12.238736, 0.435634),
        (17_028_829, 128, 16.530185, 6.972341),
        (17_028_829, 512, 39.708102, 27.880496),
        (17_028_829, 2048, 122.688356, 111.532480),
    ];

    #[test]
    fn back_to_back_sequential_reads_match_disksim() {
        // Tolerances. Both models compute the same mechanics (zone table, skews, slips, overheads, exact
        // rotational position); DiskSim in floating-point ms, pagelab in integer ns rounded per track.
        // Measured residuals: at most 0.66 µs on a first read, at most 1.1e-5 of a mean. A single lost
        // revolution in a run (5.97 ms) moves a mean by 1.4e-3 of it, a skew one sector off moves the
        // 1 MiB means by 2.8e-3: both are far outside 2 µs / 1e-4.
        for &(first, sectors, first_ms, mean_ms) in &DISKSIM_BACK_TO_BACK {
            let n = 131_072 / sectors as u64;
            let (t0, rest) = back_to_back_ms(&mut cheetah(true), first, sectors, n);
            let mean = rest.iter().sum::<f64>() / rest.len() as f64;
            assert!(
                (t0 - first_ms).abs() < 0.002,
                "{sectors} sectors at {first}: first {t0:.6} vs {first_ms}"
            );
            assert!(
                (mean / mean_ms - 1.0).abs() < 1e-4,
                "{sectors} sectors at {first}: mean {mean:.6} vs DiskSim {mean_ms} ms"
            );
        }
    }

    #[test]
    fn determinism_same_inputs_same_times() {
        let run = |cache: bool| {
            let mut hdd = cheetah(cache);
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let mut now = Nanos::ZERO;
            let mut out = Vec::new();
            for _ in 0..300 {
                let base = if rng.gen_bool(0.5) {
                    rng.gen_range(0..2_000u64)
                } else {
                    rng.gen_range(0..BLOCK_COUNT - 600)
                };
                let req =
                    DiskRequest { sector: base, sectors: rng.gen_range(1..600), write: rng.gen_bool(0.2) };
                let t = hdd.service(now, &req);
                now = now + t.total() + Nanos(rng.gen_range(0..5_000_000));
                out.push((t, hdd.head_sector()));
            }
            out
        };
        assert_eq!(run(true), run(true));
        assert_eq!(run(false), run(false));
        assert_ne!(run(true), run(false));
    }

    #[test]
    #[should_panic(expected = "while busy until")]
    fn overlapping_requests_are_a_caller_bug() {
        let mut hdd = cheetah(true);
        hdd.service(Nanos::ZERO, &DiskRequest::read(0, 8));
        hdd.service(Nanos(1_000), &DiskRequest::read(100_000, 8));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The rounding without `f64::round` is `f64::round`'s, over every bit pattern of an `f64`.
        #[test]
        fn round_ns_is_f64_round(bits in any::<u64>(), small in 0.0f64..1e13) {
            for v in [f64::from_bits(bits), small, small.floor() + 0.5, small.floor() + 0.49999999999999994] {
                prop_assert_eq!(round_ns(v), v.max(0.0).round() as u64, "{}", v);
            }
        }

        /// A count with a hint is the binary search's count, whatever the hint held (a sequence of
        /// lookups, each leaving its answer for the next).
        #[test]
        fn a_hinted_count_is_the_searched_one(
            mut list in proptest::collection::vec(0u64..1000, 0..40),
            xs in proptest::collection::vec(0u64..1100, 1..30),
            strict in any::<bool>(),
        ) {
            list.sort_unstable();
            let hint = Cell::new(0);
            for x in xs {
                let want = list.partition_point(|&v| if strict { v < x } else { v <= x });
                prop_assert_eq!(count_up_to(&list, x, strict, &hint), want);
            }
        }

        /// The spindle's 64-bit arithmetic gives the 128-bit path's instants exactly, over the whole range
        /// of times a run can reach (2^62 ns is 146 years), every rpm and track size below the bound, and
        /// the sweeps a request can make; and so does its rounding slack: asked again 0 to 3 ns after the
        /// start it returned (a random time almost never falls within the 2-ns slack).
        #[test]
        fn the_spindles_64_bit_arithmetic_is_the_128_bit_one(
            t in 0u64..1 << 62,
            rpm in 1u64..SPINDLE_64_BOUND,
            spt in 1u32..SPINDLE_64_BOUND as u32,
            angle_frac in 0.0f64..1.0,
            sectors in 0u64..1 << 26,
            after_ns in 0u64..4,
        ) {
            let s = Spindle { rpm: rpm as u128 };
            let angle = ((spt as f64 * angle_frac) as u32).min(spt - 1);
            let start = s.next_start_128(Nanos(t), angle, spt);
            prop_assert_eq!(s.next_start_64(Nanos(t), angle, spt), start);
            let again = Nanos(start.0 + after_ns);
            prop_assert_eq!(s.next_start_64(again, angle, spt), s.next_start_128(again, angle, spt));
            prop_assert_eq!(s.sweep(sectors, spt), s.sweep_128(sectors, spt));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn mapping_is_monotone_and_within_the_zone(lbn in 0..BLOCK_COUNT - 1) {
            let g = cheetah(false).geometry;
            let (a, b) = (g.place(lbn), g.place(lbn + 1));
            let z = &g.zones[a.zone];
            prop_assert!(a.pbn.surface < 12 && a.pbn.sector < z.sectors_per_track);
            prop_assert!(a.pbn.cylinder >= z.first_cylinder);
            let key = |p: &Place| (p.pbn.cylinder, p.pbn.surface, p.pbn.sector);
            prop_assert!(key(&a) < key(&b), "{lbn}: {:?} then {:?}", a.pbn, b.pbn);
            let end = g.track_end_lbn(&a);
            prop_assert!(end > lbn);
            let last = g.locate(end - 1);
            prop_assert_eq!((last.cylinder, last.surface), (a.pbn.cylinder, a.pbn.surface));
            if end < g.lbns() {
                let next = g.locate(end);
                prop_assert_ne!((next.cylinder, next.surface), (a.pbn.cylinder, a.pbn.surface));
            }
        }

        #[test]
        fn service_times_stay_within_mechanical_bounds(
            reqs in proptest::collection::vec((0..BLOCK_COUNT - 1_000, 1u32..1_000, any::<bool>(), 0u64..20_000_000), 1..40),
            cache in any::<bool>(),
        ) {
            let mut hdd = cheetah(cache);
            let rev = hdd.revolution().0;
            let overheads = [READ_MISS, READ_HIT, Nanos(86_730), Nanos(273_000), Nanos(906_920), Nanos(896_400)];
            let mut now = Nanos::ZERO;
            for (sector, sectors, is_write, idle) in reqs {
                let req = DiskRequest { sector, sectors, write: is_write };
                let arm_before = hdd.arm;
                let t = hdd.service(now, &req);
                prop_assert!(overheads.contains(&t.overhead), "{:?}", t);
                prop_assert!(t.rotation.0 <= rev);
                if !is_write {
                    prop_assert!(t.total() >= t.overhead + Nanos(sectors as u64 * 6_400));
                }
                // Each track: at most a switch or short seek (+ settle), a revolution of waiting and one
                // of transfer.
                let tracks = sectors as u64 / 167 + 2;
                let bound = t.overhead.0 + 10_689_011 + 461_000 + rev + tracks * (2 * rev + 1_500_000) + sectors as u64 * 6_400;
                prop_assert!(t.total().0 <= bound, "{:?} took {:?}", req, t);
                if !cache {
                    let d = arm_before.cylinder.abs_diff(hdd.geometry.locate(sector).cylinder);
                    prop_assert!(t.seek >= hdd.seek_time(d));
                }
                if t.overhead != READ_HIT && t.overhead != Nanos(273_000) {
                    prop_assert_eq!(hdd.head_sector(), req.end());
                }
                now = now + t.total() + Nanos(idle);
            }
        }
    }
}
