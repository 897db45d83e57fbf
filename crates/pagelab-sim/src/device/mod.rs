//! Storage devices: how long a disk request takes, given everything the device did before it.
//!
//! Three models behind one trait, [`Device`]:
//! - [`hdd::Hdd`]: a disk drive after Ruemmler & Wilkes, "An introduction to disk drive modeling" (IEEE
//!   Computer 27(3), 1994), with the parameters of DiskSim 4.0's validated Seagate ST39102LW (Cheetah
//!   9LP), the disk that DULO (papers/001 §5) simulated: zone table with skews and slips, the extracted
//!   seek curve, exact rotational position, controller overheads, bus, on-board segment cache with
//!   read-ahead (`../shared/reference/devices.md` §1–2).
//!   The same model also runs [`ultrastar36lzx`], the IBM Ultrastar 36LZX (36.7 GB, 10,000 RPM), a drive
//!   of the class of Li & Shen's testbed disk (papers/000 §4), built from its published figures: the
//!   default device of their workloads, whose 24 GB dataset the 9.1 GB Cheetah cannot hold. And
//!   [`wd1200bb`], the Western Digital Caviar WD1200BB (120 GB, 7,200 RPM, ATA-100), the disk of the
//!   MemRx paper's testbed (papers/003 §5), built from its published figures the same way; and
//!   [`st3500320as`], the Seagate Barracuda 7200.11 ST3500320AS (500 GB, 7,200 RPM, SATA, 32 MB buffer,
//!   2008), a disk of the class of Zhang et al.'s 2008 testbed (papers/002), built the same way from the
//!   figures found for it.
//! - [`ssd::Ssd`]: an NVMe SSD as a c-server queue with a sequential fast path and a shared link
//!   (devices.md §3, Intel DC P4500 anchor).
//! - [`simple::SimpleDisk`]: the back-of-the-envelope disk of DULO's Table 1 (papers/001 §1): a fixed
//!   average seek plus average rotation for every non-sequential request.
//!
//! [`spec::DeviceSpec`] names a device on the command line (`hdd`, `hdd:nocache`, `ultrastar36lzx`,
//! `wd1200bb`, `st3500320as`, `ssd`, `simple`, or a `.toml` file; the schema is in [`spec`]) and builds it.
//!
//! Time is [`Nanos`], passed in by the simulator: a device never reads a clock and owns no randomness, so
//! the same request sequence at the same times always gets the same service times. A device's state
//! (head position, on-board cache, busy channels) is what earlier requests left behind; rotational
//! position is a pure function of absolute time (phase 0 at t = 0).

pub mod cheetah9lp;
pub mod hdd;
pub mod simple;
pub mod spec;
pub mod ssd;
pub mod st3500320as;
pub mod ultrastar36lzx;
pub mod wd1200bb;

pub use spec::{DeviceSpec, DeviceSpecError};

use crate::io::{DiskRequest, ServiceTime};
use pagelab_core::Nanos;

/// A storage device as the I/O scheduler sees it.
///
/// Protocol: the simulator calls [`Device::service`] when it dispatches a request, with `now` never
/// earlier than any previous call's `now`, and only while fewer than [`Device::parallelism`] requests
/// are in service (a request is in service from its `service` call until `now + total()`). Devices
/// assert this contract: a violation is a simulator bug.
pub trait Device: Send {
    /// Human-readable model name, e.g. `"Seagate ST39102LW (Cheetah 9LP)"`.
    fn name(&self) -> String;

    /// Addressable 512-byte sectors; every request must lie in `0..capacity_sectors()`.
    fn capacity_sectors(&self) -> u64;

    /// How many requests the device services concurrently: 1 for a disk (one arm), the number of
    /// internal channels for an SSD. The scheduler keeps at most this many in service.
    fn parallelism(&self) -> u32;

    /// Begins servicing `req` at `now` and returns the time it takes, broken down; the request completes
    /// at `now + total()`. Caller guarantees the protocol above and `req.end() <= capacity_sectors()`,
    /// `req.sectors >= 1`. Updates the device state the next request will see (head position, on-board
    /// cache contents, busy channels).
    fn service(&mut self, now: Nanos, req: &DiskRequest) -> ServiceTime;

    /// The sector after the last one the mechanism transferred (where a position-aware scheduler should
    /// measure seek distances from); 0 where position is meaningless (SSD).
    fn head_sector(&self) -> u64;

    /// The sectors (LBNs) at which the device's tracks start, increasing from 0, up to its capacity; `None`
    /// for a device without tracks (SSD, the simple disk). DULO's sequences stop at track boundaries
    /// (papers/001 §4.2).
    fn track_starts(&self) -> Option<Vec<u64>> {
        None
    }
}

/// Checks the part of the [`Device::service`] contract every device shares.
fn check_request(device: &dyn Device, req: &DiskRequest) {
    assert!(req.sectors >= 1, "{}: empty request {req:?}", device.name());
    assert!(
        req.end() <= device.capacity_sectors(),
        "{}: request {req:?} ends past the last sector {}",
        device.name(),
        device.capacity_sectors()
    );
}

/// Nanoseconds to move `sectors` 512-byte sectors at `ns_per_sector`, as [`Nanos`].
fn per_sector(sectors: u64, ns_per_sector: u64) -> Nanos {
    Nanos(sectors * ns_per_sector)
}
