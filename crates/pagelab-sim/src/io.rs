//! Block-level I/O as the scheduler and the devices see it: 512-byte sectors.

use pagelab_core::Nanos;

pub const SECTOR_BYTES: u64 = 512;

/// One request to the device (after scheduling and merging).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskRequest {
    /// First 512-byte sector.
    pub sector: u64,
    /// Length in sectors (≥ 1).
    pub sectors: u32,
    pub write: bool,
}

impl DiskRequest {
    pub fn read(sector: u64, sectors: u32) -> DiskRequest {
        DiskRequest { sector, sectors, write: false }
    }
    /// One past the last sector.
    pub fn end(&self) -> u64 {
        self.sector + self.sectors as u64
    }
    pub fn bytes(&self) -> u64 {
        self.sectors as u64 * SECTOR_BYTES
    }
}

/// How long a device took for a request, broken down for metrics and validation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServiceTime {
    pub overhead: Nanos,
    pub seek: Nanos,
    pub rotation: Nanos,
    pub transfer: Nanos,
}

impl ServiceTime {
    pub fn total(&self) -> Nanos {
        self.overhead + self.seek + self.rotation + self.transfer
    }
}
