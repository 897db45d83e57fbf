//! An NVMe SSD as a c-server queue: `../shared/reference/devices.md` §3 (Intel SSD DC P4500 anchor).
//!
//! Each request occupies one of `channels` internal servers (dies/channels) from its dispatch to its
//! completion: first the flash access (`read_random_us` ≈ 85 µs, or `read_sequential_us` = 10 µs when
//! the request starts where one of the last `sequential_history` requests ended, the drive having read
//! ahead; writes 20 / 13 µs into the DRAM buffer), then its bytes cross the host link, which all channels
//! share at `link_mb_per_s` (3.2 GB/s). The link is booked first-come first-served by readiness: a
//! transfer takes the earliest gap at or after its data is ready, so a 10 µs request is not held behind a
//! still-reading 85 µs one. With every request on its own channel, latency is flat up to c in flight and
//! throughput is `min(QD, c) / t_service` (capped by the link): the M/D/c knee of devices.md §3.2, with
//! the queueing beyond c done by the simulator's I/O scheduler, which keeps at most c in service.
//!
//! Writes land in a buffer of `write_buffer_bytes` that drains to flash at `write_drain_mb_per_s`
//! (1.05 GB/s, the 2 TB model's sustained write); a write that does not fit waits until enough has
//! drained, so bursts see 20 µs and sustained writing the drain rate.
//!
//! `ServiceTime`: `overhead` is the flash access, `transfer` the rest (a write's wait for buffer room,
//! the wait for the link, the link transfer).
//!
//! Departures: no garbage collection, no read/write interference on a die, no per-die placement (any
//! free channel serves any LBN): the model answers "does spatial locality still matter on flash" through
//! the sequential fast path and command counts only, as devices.md §3.2 intends.

use super::spec::SsdSpec;
use super::{check_request, Device};
use crate::io::{DiskRequest, ServiceTime};
use pagelab_core::Nanos;

#[derive(Clone, Debug)]
pub struct Ssd {
    name: String,
    capacity_sectors: u64,
    read_random: Nanos,
    read_sequential: Nanos,
    write_random: Nanos,
    write_sequential: Nanos,
    /// Link and drain rates in bytes per second.
    link_bytes_per_s: u128,
    drain_bytes_per_s: u128,
    write_buffer_bytes: u64,
    /// When each channel finishes its current request.
    channel_free_at: Vec<Nanos>,
    /// Booked link transfers `(start, end)`, sorted, none ending before the last dispatch.
    link_busy: Vec<(Nanos, Nanos)>,
    /// Ends (exclusive sectors) of recent requests, a ring.
    recent_ends: Vec<u64>,
    recent_next: usize,
    buffer_bytes: u64,
    buffer_at: Nanos,
    last_now: Nanos,
}

impl Ssd {
    /// Caller guarantees `spec` passed [`super::DeviceSpec::validate`].
    pub fn new(spec: &SsdSpec) -> Ssd {
        let us = |v: f64| Nanos::from_ms_f64(v / 1e3);
        let per_s = |mb: f64| (mb * 1e6).round() as u128;
        Ssd {
            name: spec.name.clone(),
            capacity_sectors: spec.capacity_sectors,
            read_random: us(spec.read_random_us),
            read_sequential: us(spec.read_sequential_us),
            write_random: us(spec.write_random_us),
            write_sequential: us(spec.write_sequential_us),
            link_bytes_per_s: per_s(spec.link_mb_per_s).max(1),
            drain_bytes_per_s: per_s(spec.write_drain_mb_per_s).max(1),
            write_buffer_bytes: spec.write_buffer_bytes,
            channel_free_at: vec![Nanos::ZERO; spec.channels as usize],
            link_busy: Vec::new(),
            recent_ends: vec![u64::MAX; spec.sequential_history as usize],
            recent_next: 0,
            buffer_bytes: 0,
            buffer_at: Nanos::ZERO,
            last_now: Nanos::ZERO,
        }
    }

    fn is_sequential(&self, req: &DiskRequest) -> bool {
        self.recent_ends.contains(&req.sector)
    }

    fn remember_end(&mut self, end: u64) {
        if self.recent_ends.is_empty() {
            return;
        }
        self.recent_ends[self.recent_next] = end;
        self.recent_next = (self.recent_next + 1) % self.recent_ends.len();
    }

    /// Books `bytes` on the link in the first gap at or after `ready`; returns when the transfer ends.
    fn book_link(&mut self, now: Nanos, ready: Nanos, bytes: u64) -> Nanos {
        let span = Nanos((bytes as u128 * 1_000_000_000).div_ceil(self.link_bytes_per_s) as u64);
        self.link_busy.retain(|&(_, end)| end > now);
        let mut start = ready;
        let mut at = 0;
        // The bookings are sorted and disjoint, so one sweep finds the first gap that fits.
        for (i, &(s, e)) in self.link_busy.iter().enumerate() {
            if start + span <= s {
                break;
            }
            start = start.max(e);
            at = i + 1;
        }
        self.link_busy.insert(at, (start, start + span));
        debug_assert!(self.link_busy.windows(2).all(|w| w[0].1 <= w[1].0), "link bookings overlap");
        start + span
    }

    /// Drains the write buffer to `now`, then admits `bytes`; returns how long the write must wait for room.
    fn admit_write(&mut self, now: Nanos, bytes: u64) -> Nanos {
        let drained = ((now - self.buffer_at).0 as u128 * self.drain_bytes_per_s / 1_000_000_000) as u64;
        self.buffer_bytes = self.buffer_bytes.saturating_sub(drained);
        self.buffer_at = now;
        let over = (self.buffer_bytes + bytes).saturating_sub(self.write_buffer_bytes.max(bytes));
        self.buffer_bytes += bytes;
        Nanos((over as u128 * 1_000_000_000).div_ceil(self.drain_bytes_per_s) as u64)
    }
}

impl Device for Ssd {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    fn parallelism(&self) -> u32 {
        self.channel_free_at.len() as u32
    }

    fn service(&mut self, now: Nanos, req: &DiskRequest) -> ServiceTime {
        check_request(&*self, req);
        assert!(now >= self.last_now, "{}: time went backwards ({now} < {})", self.name, self.last_now);
        self.last_now = now;
        let channel =
            (0..self.channel_free_at.len()).find(|&c| self.channel_free_at[c] <= now).unwrap_or_else(|| {
                panic!("{}: all {} channels busy at {now}", self.name, self.channel_free_at.len())
            });
        let sequential = self.is_sequential(req);
        let access = match (req.write, sequential) {
            (false, false) => self.read_random,
            (false, true) => self.read_sequential,
            (true, false) => self.write_random,
            (true, true) => self.write_sequential,
        };
        let stall = if req.write { self.admit_write(now, req.bytes()) } else { Nanos::ZERO };
        let done = self.book_link(now, now + stall + access, req.bytes());
        self.channel_free_at[channel] = done;
        self.remember_end(req.end());
        ServiceTime { overhead: access, transfer: done - now - access, ..ServiceTime::default() }
    }

    fn head_sector(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    fn p4500() -> Ssd {
        Ssd::new(&SsdSpec::p4500())
    }

    /// Closed loop: `depth` requests outstanding, the scheduler keeping at most `parallelism()` in
    /// service and the rest queued. Returns (requests per second, mean latency incl. queueing, ns).
    fn closed_loop(
        ssd: &mut Ssd,
        depth: usize,
        requests: usize,
        mut next: impl FnMut(usize) -> DiskRequest,
    ) -> (f64, f64) {
        let channels = ssd.parallelism() as usize;
        let mut in_service: BinaryHeap<Reverse<(Nanos, Nanos)>> = BinaryHeap::new(); // (done, issued)
        let mut queued: std::collections::VecDeque<Nanos> = (0..depth).map(|_| Nanos::ZERO).collect();
        let (mut issued, mut completed, mut latency_sum, mut now) = (0, 0, 0u128, Nanos::ZERO);
        while completed < requests {
            while in_service.len() < channels && issued < requests {
                let Some(arrived) = queued.pop_front() else { break };
                let t = ssd.service(now, &next(issued));
                in_service.push(Reverse((now + t.total(), arrived)));
                issued += 1;
            }
            let Reverse((done, arrived)) = in_service.pop().expect("something in service");
            now = done;
            latency_sum += (done - arrived).0 as u128;
            completed += 1;
            queued.push_back(now);
        }
        (completed as f64 / now.as_secs_f64(), latency_sum as f64 / completed as f64)
    }

    /// A spread of non-repeating 4 KiB reads no earlier request ended at.
    fn random_read(i: usize) -> DiskRequest {
        DiskRequest::read((i as u64 * 7_919 * 8) % 3_000_000_000 + 8, 8)
    }

    #[test]
    fn random_and_sequential_4k_reads_at_queue_depth_one() {
        let mut ssd = p4500();
        // 85 µs + 4096 B / 3.2 GB/s = 85 µs + 1.28 µs.
        let t = ssd.service(Nanos::ZERO, &DiskRequest::read(800, 8));
        assert_eq!((t.overhead, t.transfer), (Nanos(85_000), Nanos(1_280)));
        let t = ssd.service(Nanos(86_280), &DiskRequest::read(808, 8));
        assert_eq!(t.total(), Nanos(10_000 + 1_280), "starts where the last one ended");
        let t = ssd.service(Nanos(200_000), &DiskRequest::read(5_000, 8));
        assert_eq!(t.total(), Nanos(86_280));
        assert_eq!(ssd.head_sector(), 0);
    }

    #[test]
    fn saturation_knee_at_c_in_flight() {
        let t_service = 86_280.0e-9;
        let mut iops = Vec::new();
        for depth in [1, 8, 16, 32, 48, 64] {
            let (rate, latency_ns) = closed_loop(&mut p4500(), depth, 20_000, random_read);
            iops.push((depth, rate, latency_ns));
        }
        for &(depth, rate, latency_ns) in &iops {
            let expect = depth.min(32) as f64 / t_service;
            assert!((rate / expect - 1.0).abs() < 0.01, "QD {depth}: {rate:.0} IOPS, expected {expect:.0}");
            // Flat latency up to c, then Little's law: QD / throughput.
            let expect_latency = (depth as f64 / expect).max(t_service) * 1e9;
            assert!(
                (latency_ns / expect_latency - 1.0).abs() < 0.01,
                "QD {depth}: latency {latency_ns:.0} ns"
            );
        }
        let plateau = iops.iter().find(|r| r.0 == 32).unwrap().1;
        assert!((plateau - 370_885.0).abs() < 3_000.0, "{plateau}");
    }

    #[test]
    fn large_reads_are_capped_by_the_shared_link() {
        // 128 KiB random reads: channels alone would move 32 × 131 kB / 126 µs = 33 GB/s.
        let big = |i: usize| DiskRequest::read((i as u64 * 7_919 * 256) % 3_000_000_000 + 256, 256);
        let (rate, _) = closed_loop(&mut p4500(), 32, 5_000, big);
        let bytes_per_s = rate * 131_072.0;
        assert!((bytes_per_s / 3.2e9 - 1.0).abs() < 0.01, "{bytes_per_s:.3e} B/s");
        // At depth 1 the link is idle most of the time: 85 µs + 40.96 µs per request.
        let (rate, _) = closed_loop(&mut p4500(), 1, 200, big);
        assert!((rate * 125.96e-6 - 1.0).abs() < 0.01, "{rate}");
    }

    #[test]
    fn a_sequential_request_overtakes_a_slow_one_on_the_link() {
        let mut ssd = p4500();
        let slow = ssd.service(Nanos::ZERO, &DiskRequest::read(1_000_000, 256)); // ready at 85 µs
        ssd.service(Nanos::ZERO, &DiskRequest::read(0, 8));
        let fast = ssd.service(Nanos(20_000), &DiskRequest::read(8, 8)); // sequential: ready at 30 µs
        assert_eq!(fast.total(), Nanos(11_280), "the link is free until the slow one is ready at 85 µs");
        assert_eq!(slow.total(), Nanos(85_000 + 40_960));
    }

    #[test]
    fn writes_are_fast_until_the_buffer_fills() {
        let mut spec = SsdSpec::p4500();
        spec.write_buffer_bytes = 64 * 4096;
        // One at a time, a 4 KiB write (20 µs + 1.28 µs) drains 22 kB of buffer meanwhile: never full.
        let mut ssd = Ssd::new(&spec);
        let mut now = Nanos::ZERO;
        for i in 0..200u64 {
            let t = ssd.service(now, &DiskRequest { sector: i * 8_000, sectors: 8, write: true });
            assert_eq!(t.total(), Nanos(21_280), "write {i}");
            now += t.total();
        }
        // A burst of 12 KiB writes at one instant fills the 256 KiB buffer after 21 of them; then each
        // waits for the excess to drain at 1.05 GB/s: 8 KiB (7,802 ns), then 20 KiB, ...
        let mut ssd = Ssd::new(&spec);
        let waits: Vec<u64> = (0..24).map(|_| ssd.admit_write(Nanos::ZERO, 3 * 4096).0).collect();
        assert!(waits[..21].iter().all(|&w| w == 0), "{waits:?}");
        assert_eq!(&waits[21..], &[7_802, 19_505, 31_208]);
        // Half a millisecond later 525 kB have drained: the buffer is empty again.
        assert_eq!(ssd.admit_write(Nanos(500_000), 4096), Nanos::ZERO);
        let t = ssd.service(Nanos(500_000), &DiskRequest { sector: 1 << 30, sectors: 8, write: true });
        assert_eq!(t.total(), Nanos(21_280));
    }

    #[test]
    fn same_requests_same_times() {
        let run = || {
            let mut ssd = p4500();
            (0..500)
                .map(|i| ssd.service(Nanos(i as u64 * 5_000), &random_read(i % 40)).total())
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    #[should_panic(expected = "channels busy")]
    fn more_than_c_in_service_is_a_caller_bug() {
        let mut ssd = p4500();
        for i in 0..33 {
            ssd.service(Nanos::ZERO, &random_read(i));
        }
    }
}
