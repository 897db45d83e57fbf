//! Time and the emulated device.
//!
//! [`Clock`] is the one place pagelab live reads a clock: the engine's core never does (its calls take
//! `now`), exactly as in the simulator.
//!
//! [`EmulatedDevice`] (`--emulate-device hdd`) makes every miss also wait for the simulator's model of a
//! disk, so the papers' seek effects show on a machine whose real disk is an SSD or whose source is cached:
//! requests join one FIFO device queue in arrival order and each completes at
//! `max(arrival, previous completion) + service time`, the model's service time for the fetch's disk location
//! and length. The real read happens first (its time overlaps the emulated queue's); the fetch completes at
//! the later of the two. Departures from the simulator's block layer: no I/O scheduler (one FIFO queue, as
//! `noop`), no request merging between fetches, and an SSD's channels are used one at a time.

use pagelab_core::{Lbn, Nanos, PAGE_SIZE_BYTES};
use pagelab_sim::device::{Device, DeviceSpec};
use pagelab_sim::io::DiskRequest;
use std::sync::Mutex;
use std::time::Instant;

/// Real time since the mount, as the engine's [`Nanos`].
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    base: Instant,
}

impl Clock {
    pub fn start() -> Clock {
        Clock { base: Instant::now() }
    }

    pub fn now(&self) -> Nanos {
        Nanos(u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// Sleep until `at` (no-op if it has passed).
    pub fn sleep_until(&self, at: Nanos) {
        let now = self.now();
        if at > now {
            std::thread::sleep(std::time::Duration::from_nanos(at.0 - now.0));
        }
    }
}

struct DeviceState {
    device: Box<dyn Device>,
    /// When the request last queued completes.
    busy_until: Nanos,
    requests: u64,
    busy_ns: u64,
}

/// The disk model every miss waits for, on one queue.
pub struct EmulatedDevice {
    name: String,
    capacity_sectors: u64,
    state: Mutex<DeviceState>,
}

/// What the emulated device did.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DeviceStats {
    pub model: String,
    pub requests: u64,
    /// Time the emulated device spent servicing requests.
    pub busy_s: f64,
}

impl EmulatedDevice {
    pub fn new(spec: &DeviceSpec) -> EmulatedDevice {
        let device = spec.build();
        EmulatedDevice {
            name: device.name(),
            capacity_sectors: device.capacity_sectors(),
            state: Mutex::new(DeviceState { device, busy_until: Nanos::ZERO, requests: 0, busy_ns: 0 }),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Queue a read of `pages` pages at `lbn`, arriving now: when it completes on the emulated device. A
    /// location past the model's capacity wraps around it (the source's disk may be larger than the model).
    pub fn submit(&self, clock: &Clock, lbn: Lbn, pages: u32) -> Nanos {
        let sectors_per_page = PAGE_SIZE_BYTES / 512;
        let sectors = (pages as u64 * sectors_per_page).clamp(1, self.capacity_sectors);
        let span = self.capacity_sectors - sectors + 1;
        let sector = (lbn.0.wrapping_mul(sectors_per_page)) % span;
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // Under the lock, so the model sees non-decreasing times and one request at a time.
        let start = clock.now().max(s.busy_until);
        let took = s.device.service(start, &DiskRequest::read(sector, sectors as u32)).total();
        s.busy_until = Nanos(start.0 + took.0);
        s.requests += 1;
        s.busy_ns += took.0;
        s.busy_until
    }

    pub fn stats(&self) -> DeviceStats {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        DeviceStats { model: self.name.clone(), requests: s.requests, busy_s: s.busy_ns as f64 / 1e9 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_queue_serves_in_arrival_order_and_a_random_read_costs_a_seek() {
        let dev = EmulatedDevice::new(&DeviceSpec::parse("hdd").unwrap());
        let clock = Clock::start();
        let first = dev.submit(&clock, Lbn(0), 1);
        let second = dev.submit(&clock, Lbn(1_000_000), 1);
        assert!(second > first, "the second request queues behind the first");
        // A far read on the Cheetah 9LP takes milliseconds, not microseconds.
        assert!(second.0 - first.0 > 1_000_000, "{first:?} {second:?}");
        let stats = dev.stats();
        assert_eq!(stats.requests, 2);
        assert!(stats.busy_s > 0.001);
        // Past the model's capacity wraps instead of failing the model's contract.
        dev.submit(&clock, Lbn(u64::MAX / 16), 8);
    }
}
