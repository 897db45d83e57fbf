//! The disk of DULO's illustrating example: Jiang et al., FAST 2005 (papers/001), §1, Table 1.
//!
//! "We use the average seek time to represent the cost of any seek operation, and use average rotation
//! time to represent the cost of any rotation operation. We ignore other negligible costs such as disk
//! read time and bus transfer time. The 6.5 ms average seek time and 3.0 ms average rotation time are
//! taken from the specification of the Hitachi Ultrastar 18ZX 10K RPM drive."
//!
//! So a request costs 6.5 + 3.0 = 9.5 ms unless it starts where the previous one ended (then neither),
//! plus `transfer_sector_ms` per sector (0 by default, as the paper ignores it). Table 1's totals are
//! whole numbers of requests: traditional caching issues 10 (95.0 ms), DULO 7 (66.5 ms); the difference
//! is the four random blocks {A, B, C, D} (4 × 9.5 = 38.0 ms) against one four-block sequential request
//! {X1..X4} (9.5 ms). A yardstick for reasoning about sequentiality, not a drive: no zones, no
//! rotational position, no cache.

use super::spec::SimpleSpec;
use super::{check_request, Device};
use crate::io::{DiskRequest, ServiceTime};
use pagelab_core::Nanos;

#[derive(Clone, Debug)]
pub struct SimpleDisk {
    name: String,
    capacity_sectors: u64,
    seek: Nanos,
    rotation: Nanos,
    transfer_sector_ns: u64,
    /// One past the last sector of the previous request; `None` before the first, which is positioned like
    /// any request that does not continue the previous one (the head starts somewhere unknown).
    head_sector: Option<u64>,
    busy_until: Nanos,
}

impl SimpleDisk {
    /// Caller guarantees `spec` passed [`super::DeviceSpec::validate`].
    pub fn new(spec: &SimpleSpec) -> SimpleDisk {
        SimpleDisk {
            name: spec.name.clone(),
            capacity_sectors: spec.capacity_sectors,
            seek: Nanos::from_ms_f64(spec.seek_ms),
            rotation: Nanos::from_ms_f64(spec.rotation_ms),
            transfer_sector_ns: Nanos::from_ms_f64(spec.transfer_sector_ms).0,
            head_sector: None,
            busy_until: Nanos::ZERO,
        }
    }
}

impl Device for SimpleDisk {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    fn parallelism(&self) -> u32 {
        1
    }

    fn service(&mut self, now: Nanos, req: &DiskRequest) -> ServiceTime {
        check_request(&*self, req);
        assert!(
            now >= self.busy_until,
            "{}: request at {now} while busy until {}",
            self.name,
            self.busy_until
        );
        let sequential = self.head_sector == Some(req.sector);
        let (seek, rotation) =
            if sequential { (Nanos::ZERO, Nanos::ZERO) } else { (self.seek, self.rotation) };
        let transfer = super::per_sector(req.sectors as u64, self.transfer_sector_ns);
        let time = ServiceTime { overhead: Nanos::ZERO, seek, rotation, transfer };
        self.head_sector = Some(req.end());
        self.busy_until = now + time.total();
        time
    }

    /// Before the first request: sector 0, where a scheduler's elevator starts its sweep.
    fn head_sector(&self) -> u64 {
        self.head_sector.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: u32 = 8; // a 4 KiB block in sectors

    /// Serves `requests` back to back; returns each one's service time.
    fn serve(disk: &mut SimpleDisk, requests: &[DiskRequest]) -> Vec<Nanos> {
        let mut now = Nanos::ZERO;
        requests
            .iter()
            .map(|r| {
                let t = disk.service(now, r).total();
                now += t;
                t
            })
            .collect()
    }

    fn table1_disk() -> SimpleDisk {
        SimpleDisk::new(&SimpleSpec::dulo_table1())
    }

    #[test]
    fn table1_four_random_blocks_against_one_sequential_request() {
        let mut disk = table1_disk();
        // A, B, C, D: single blocks on different tracks.
        let random: Vec<DiskRequest> = [1_000_000u64, 3_000_000, 250_000, 9_000_000]
            .iter()
            .map(|&s| DiskRequest::read(s, BLOCK))
            .collect();
        let times = serve(&mut disk, &random);
        assert_eq!(times, vec![Nanos::from_us(9_500); 4]);
        let traditional: Nanos = times.iter().copied().fold(Nanos::ZERO, |a, b| a + b);
        assert_eq!(traditional, Nanos::from_us(38_000));
        // X1..X4: one four-block request, positioned once.
        let dual = serve(&mut table1_disk(), &[DiskRequest::read(5_000_000, 4 * BLOCK)])[0];
        assert_eq!(dual, Nanos::from_us(9_500));
        // The paper's totals, 95.0 ms (10 requests) and 66.5 ms (7), differ by exactly this choice.
        assert_eq!(traditional - dual, Nanos::from_us(95_000 - 66_500));
    }

    #[test]
    fn table1_totals_are_whole_requests() {
        for (requests, total_us) in [(10u64, 95_000u64), (7, 66_500)] {
            let mut disk = table1_disk();
            let reqs: Vec<DiskRequest> =
                (0..requests).map(|i| DiskRequest::read(i * 100_000 + 7, BLOCK)).collect();
            let sum = serve(&mut disk, &reqs).into_iter().fold(Nanos::ZERO, |a, b| a + b);
            assert_eq!(sum, Nanos::from_us(total_us));
        }
    }

    #[test]
    fn hand_traced_sequence() {
        let mut spec = SimpleSpec::dulo_table1();
        spec.transfer_sector_ms = 0.01;
        let mut disk = SimpleDisk::new(&spec);
        let steps: [(u64, u32, u64, u64); 5] = [
            // (sector, sectors, expected µs, head after)
            (0, 8, 9_500 + 80, 8), // the first request is positioned too, even at sector 0
            (8, 16, 160, 24),      // continues: transfer only
            (100, 8, 9_500 + 80, 108), // elsewhere: seek + rotation + transfer
            (24, 8, 9_500 + 80, 32), // back to an old end: not sequential any more
            (32, 1, 10, 33),
        ];
        let mut now = Nanos::ZERO;
        for (i, &(sector, sectors, us, head)) in steps.iter().enumerate() {
            let t = disk.service(now, &DiskRequest::read(sector, sectors));
            assert_eq!(t.total(), Nanos::from_us(us), "step {i}");
            assert_eq!(disk.head_sector(), head, "step {i}");
            now += t.total();
        }
    }
}
