//! deadline: a one-way elevator with FIFO expiry times (Linux 2.6 `deadline-iosched.c`, Jens Axboe).
//!
//! Reads and writes queue separately, each both sorted by sector and in arrival order with a deadline
//! (`read_expire` = 500 ms, `write_expire` = 5 s). The dispatch rule, as in the 2.6.10–2.6.18 sources:
//! 1. Batch: if the last dispatch's direction has a queued request at or after the head and it starts
//!    exactly at the head (contiguous), and fewer than `fifo_batch` (16) requests went out since the batch
//!    began, dispatch it. A non-contiguous successor ends the batch.
//! 2. Otherwise pick a direction: reads, unless writes are queued and reads have already been preferred
//!    over them `writes_starved` (2) times in a row.
//! 3. In that direction: the FIFO head if it has expired (a new batch); else the next request up the
//!    sweep if the last dispatch was in this direction; else the lowest-sector request (the elevator wraps:
//!    C-SCAN; a new batch).
//!
//! Merges: back and front (`front_merges`), and joins of queued requests a merge makes contiguous.
//!
//! Departures: Linux remembers the successor of each dispatched request (`next_drq`); pagelab looks it up
//! afresh from the head position the device reports, so a request queued behind the sweep after the last
//! dispatch is still served on this pass. Later kernels (2.6.24 on) let a batch run through non-contiguous
//! requests and start a new direction from its FIFO head; this follows the kernel the papers measured.
//! A batch's count stays spent after a non-contiguous request until the next FIFO-driven or wrapped start,
//! exactly as in those sources, so dispatches in between re-check direction and expiry each time.

use super::queue::{MergeRules, SchedCore};
use super::{Decision, Dispatch, IoRequest, IoScheduler, MAX_REQUEST_SECTORS_DEFAULT};
use pagelab_core::spec::Spec;
use pagelab_core::{CoreError, Nanos, StreamId};

const READ: usize = 0;
const WRITE: usize = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadlineParams {
    /// A read waiting this long is served before the sweep continues.
    pub read_expire: Nanos,
    pub write_expire: Nanos,
    /// Contiguous requests dispatched in a row before direction and expiry are checked again.
    pub fifo_batch: u32,
    /// Times reads may be chosen over queued writes before the writes get a turn.
    pub writes_starved: u32,
    pub front_merges: bool,
    /// Largest merged request, in 512-byte sectors.
    pub max_request_sectors: u32,
}

impl Default for DeadlineParams {
    /// Linux 2.6's defaults.
    fn default() -> Self {
        DeadlineParams {
            read_expire: Nanos::from_ms(500),
            write_expire: Nanos::from_secs(5),
            fifo_batch: 16,
            writes_starved: 2,
            front_merges: true,
            max_request_sectors: MAX_REQUEST_SECTORS_DEFAULT,
        }
    }
}

impl DeadlineParams {
    pub const KEYS: [&'static str; 6] = [
        "read_expire",
        "write_expire",
        "fifo_batch",
        "writes_starved",
        "front_merges",
        "max_request_sectors",
    ];

    pub(super) fn from_spec(spec: &Spec) -> Result<DeadlineParams, CoreError> {
        let d = DeadlineParams::default();
        let p = DeadlineParams {
            read_expire: Nanos(spec.duration_ns("read_expire", d.read_expire.0)?),
            write_expire: Nanos(spec.duration_ns("write_expire", d.write_expire.0)?),
            fifo_batch: super::count_u32(spec, "fifo_batch", d.fifo_batch)?,
            writes_starved: super::count_u32(spec, "writes_starved", d.writes_starved)?,
            front_merges: spec.bool("front_merges", d.front_merges)?,
            max_request_sectors: super::max_request_sectors(spec)?,
        };
        spec.finish(&Self::KEYS)?;
        Ok(p)
    }

    pub(super) fn non_default(&self) -> Vec<String> {
        let d = DeadlineParams::default();
        let mut out = Vec::new();
        super::param_if(&mut out, "read_expire", self.read_expire, d.read_expire, super::format_duration);
        super::param_if(&mut out, "write_expire", self.write_expire, d.write_expire, super::format_duration);
        super::param_if(&mut out, "fifo_batch", self.fifo_batch, d.fifo_batch, |v| v.to_string());
        super::param_if(&mut out, "writes_starved", self.writes_starved, d.writes_starved, |v| v.to_string());
        super::param_if(&mut out, "front_merges", self.front_merges, d.front_merges, |v| v.to_string());
        super::param_if(
            &mut out,
            "max_request_sectors",
            self.max_request_sectors,
            d.max_request_sectors,
            |v| v.to_string(),
        );
        out
    }
}

pub struct Deadline {
    p: DeadlineParams,
    core: SchedCore,
    /// Requests dispatched in the current batch (pushed past `fifo_batch` when the batch breaks).
    batching: u32,
    /// Times reads were chosen while writes waited.
    starved: u32,
    /// Direction of the last dispatch: the sweep continues only in it.
    last_dir: Option<usize>,
}

impl Deadline {
    pub fn new(p: DeadlineParams) -> Deadline {
        let rules = MergeRules { front: p.front_merges, coalesce: true, max_sectors: p.max_request_sectors };
        Deadline { p, core: SchedCore::new(rules), batching: 0, starved: 0, last_dir: None }
    }

    /// The next request up the sweep in `dir`, if the sweep is in `dir`.
    fn sweep_next(&self, dir: usize, head: u64) -> Option<u32> {
        if self.last_dir != Some(dir) {
            return None;
        }
        self.core.queue.at_or_after(dir, head)
    }

    /// Rule 1: the batch continues with the contiguous successor, if there is one and room in the batch.
    fn batch_next(&mut self, head: u64) -> Option<u32> {
        let s = self.sweep_next(self.last_dir?, head)?;
        if self.core.queue.get(s).disk.sector != head {
            self.batching = self.batching.saturating_add(self.p.fifo_batch);
        }
        (self.batching < self.p.fifo_batch).then_some(s)
    }

    /// Rule 2: which direction to serve, or `None` if nothing is queued.
    fn direction(&mut self) -> Option<usize> {
        let reads = !self.core.queue.is_empty(READ);
        let writes = !self.core.queue.is_empty(WRITE);
        if reads && !(writes && self.starved >= self.p.writes_starved) {
            if writes {
                self.starved += 1;
            }
            return Some(READ);
        }
        if writes {
            self.starved = 0;
            return Some(WRITE);
        }
        None
    }

    /// Rule 3: the request to serve in `dir`.
    fn first_in(&mut self, dir: usize, now: Nanos, head: u64) -> u32 {
        let q = &self.core.queue;
        let oldest = q.oldest(dir).expect("direction chosen with nothing queued");
        if q.get(oldest).expires <= now {
            self.batching = 0;
            return oldest;
        }
        if let Some(s) = self.sweep_next(dir, head) {
            return s;
        }
        self.batching = 0;
        self.core.queue.lowest(dir).expect("direction chosen with nothing queued")
    }

    fn dispatch(&mut self, s: u32) -> Decision {
        self.batching = self.batching.saturating_add(1);
        self.last_dir = Some(self.core.queue.get(s).class);
        Decision::Dispatch(self.core.dispatch(s))
    }
}

impl IoScheduler for Deadline {
    fn name(&self) -> &'static str {
        "deadline"
    }

    fn add(&mut self, now: Nanos, req: IoRequest) {
        let (dir, expire) = if req.write { (WRITE, self.p.write_expire) } else { (READ, self.p.read_expire) };
        self.core.add(now, &req, dir, now + expire);
    }

    fn next(&mut self, now: Nanos, head_sector: u64) -> Decision {
        self.core.tick(now);
        if let Some(s) = self.batch_next(head_sector) {
            return self.dispatch(s);
        }
        let Some(dir) = self.direction() else {
            debug_assert_eq!(self.core.queue.parts(), 0);
            return Decision::Idle;
        };
        let s = self.first_in(dir, now, head_sector);
        self.dispatch(s)
    }

    fn completed(&mut self, now: Nanos, done: &Dispatch) {
        let q = self.core.complete(now, done);
        self.core.recycle(q);
    }

    fn recycle(&mut self, done: Dispatch) {
        self.core.recycle_dispatch(done);
    }

    fn owner_exited(&mut self, _owner: StreamId) {}

    fn queued(&self) -> usize {
        self.core.queue.parts()
    }

    fn allocated_requests(&self, write: bool) -> usize {
        self.core.allocated(write)
    }

    fn can_merge(&self, req: &IoRequest) -> bool {
        self.core.queue.can_merge(req, if req.write { WRITE } else { READ })
    }

    fn state(&self) -> String {
        format!(
            "R={}; W={}; batching={} starved={}",
            self.core.queue.state(READ),
            self.core.queue.state(WRITE),
            self.batching,
            self.starved
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testing::{rd, wr, Bench};

    fn deadline(fifo_batch: u32) -> Bench<Deadline> {
        Bench::new(Deadline::new(DeadlineParams { fifo_batch, ..DeadlineParams::default() }))
    }

    #[test]
    fn one_way_sweep_in_sector_order_then_wrap() {
        let mut b = deadline(16);
        b.head = 300;
        b.add(0, rd(1, 500, 8), "R=[500+8:1] fifo=[500]; W=[] fifo=[]; batching=0 starved=0");
        b.add(0, rd(2, 100, 8), "R=[100+8:2 500+8:1] fifo=[500 100]; W=[] fifo=[]; batching=0 starved=0");
        b.add(
            0,
            rd(3, 900, 8),
            "R=[100+8:2 500+8:1 900+8:3] fifo=[500 100 900]; W=[] fifo=[]; batching=0 starved=0",
        );
        // No sweep yet: the elevator starts at the lowest sector, whatever the head.
        b.next(0, "R 100+8 [2]", "R=[500+8:1 900+8:3] fifo=[500 900]; W=[] fifo=[]; batching=1 starved=0");
        b.complete(1_000, "R=[500+8:1 900+8:3] fifo=[500 900]; W=[] fifo=[]; batching=1 starved=0");
        // Head at 108; 500 is next up, but not contiguous: the batch ends (1 + 16) and the sweep goes on.
        b.next(1_000, "R 500+8 [1]", "R=[900+8:3] fifo=[900]; W=[] fifo=[]; batching=18 starved=0");
        b.add(
            1_500,
            rd(4, 200, 8),
            "R=[200+8:4 900+8:3] fifo=[900 200]; W=[] fifo=[]; batching=18 starved=0",
        );
        b.complete(2_000, "R=[200+8:4 900+8:3] fifo=[900 200]; W=[] fifo=[]; batching=18 starved=0");
        // 200 is behind the head: the one-way elevator takes 900 first, then wraps to 200.
        b.next(2_000, "R 900+8 [3]", "R=[200+8:4] fifo=[200]; W=[] fifo=[]; batching=35 starved=0");
        b.complete(3_000, "R=[200+8:4] fifo=[200]; W=[] fifo=[]; batching=35 starved=0");
        b.next(3_000, "R 200+8 [4]", "R=[] fifo=[]; W=[] fifo=[]; batching=1 starved=0");
        b.complete(4_000, "R=[] fifo=[]; W=[] fifo=[]; batching=1 starved=0");
        b.next(4_000, "idle", "R=[] fifo=[]; W=[] fifo=[]; batching=1 starved=0");
    }

    #[test]
    fn contiguous_requests_batch_up_to_fifo_batch() {
        let mut b = deadline(2);
        b.add(0, rd(1, 0, 8), "R=[0+8:1] fifo=[0]; W=[] fifo=[]; batching=0 starved=0");
        b.next(0, "R 0+8 [1]", "R=[] fifo=[]; W=[] fifo=[]; batching=1 starved=0");
        b.add(100, wr(2, 50, 8), "R=[] fifo=[]; W=[50+8:2] fifo=[50]; batching=1 starved=0");
        b.add(200, rd(3, 8, 8), "R=[8+8:3] fifo=[8]; W=[50+8:2] fifo=[50]; batching=1 starved=0");
        b.add(300, rd(4, 40, 8), "R=[8+8:3 40+8:4] fifo=[8 40]; W=[50+8:2] fifo=[50]; batching=1 starved=0");
        b.complete(1_000, "R=[8+8:3 40+8:4] fifo=[8 40]; W=[50+8:2] fifo=[50]; batching=1 starved=0");
        // 8 starts at the head: the batch goes on without looking at the write.
        b.next(1_000, "R 8+8 [3]", "R=[40+8:4] fifo=[40]; W=[50+8:2] fifo=[50]; batching=2 starved=0");
        b.add(
            1_100,
            rd(5, 16, 8),
            "R=[16+8:5 40+8:4] fifo=[40 16]; W=[50+8:2] fifo=[50]; batching=2 starved=0",
        );
        b.complete(2_000, "R=[16+8:5 40+8:4] fifo=[40 16]; W=[50+8:2] fifo=[50]; batching=2 starved=0");
        // Contiguous again, but the batch of 2 is spent: direction choice (reads, writes starved once).
        b.next(2_000, "R 16+8 [5]", "R=[40+8:4] fifo=[40]; W=[50+8:2] fifo=[50]; batching=3 starved=1");
    }

    #[test]
    fn an_expired_read_overrides_the_sweep() {
        let mut b = deadline(16);
        b.add(0, rd(1, 1_000, 8), "R=[1000+8:1] fifo=[1000]; W=[] fifo=[]; batching=0 starved=0");
        b.next(0, "R 1000+8 [1]", "R=[] fifo=[]; W=[] fifo=[]; batching=1 starved=0");
        b.add(10_000, rd(2, 10, 8), "R=[10+8:2] fifo=[10]; W=[] fifo=[]; batching=1 starved=0");
        b.add(
            20_000,
            rd(3, 2_000, 8),
            "R=[10+8:2 2000+8:3] fifo=[10 2000]; W=[] fifo=[]; batching=1 starved=0",
        );
        b.complete(30_000, "R=[10+8:2 2000+8:3] fifo=[10 2000]; W=[] fifo=[]; batching=1 starved=0");
        // 10 is behind the head; nothing has expired, so the sweep goes on up to 2000.
        b.next(30_000, "R 2000+8 [3]", "R=[10+8:2] fifo=[10]; W=[] fifo=[]; batching=18 starved=0");
        b.add(
            40_000,
            rd(4, 3_000, 8),
            "R=[10+8:2 3000+8:4] fifo=[10 3000]; W=[] fifo=[]; batching=18 starved=0",
        );
        b.complete(510_000, "R=[10+8:2 3000+8:4] fifo=[10 3000]; W=[] fifo=[]; batching=18 starved=0");
        // Request 2 has waited 500 ms: it goes before 3000, which is up the sweep.
        b.next(510_000, "R 10+8 [2]", "R=[3000+8:4] fifo=[3000]; W=[] fifo=[]; batching=1 starved=0");
    }

    #[test]
    fn writes_are_starved_at_most_writes_starved_times() {
        let mut b = deadline(16);
        b.add(0, wr(1, 5_000, 8), "R=[] fifo=[]; W=[5000+8:1] fifo=[5000]; batching=0 starved=0");
        b.add(0, rd(2, 100, 8), "R=[100+8:2] fifo=[100]; W=[5000+8:1] fifo=[5000]; batching=0 starved=0");
        b.add(
            0,
            rd(3, 300, 8),
            "R=[100+8:2 300+8:3] fifo=[100 300]; W=[5000+8:1] fifo=[5000]; batching=0 starved=0",
        );
        b.add(
            0,
            rd(4, 700, 8),
            "R=[100+8:2 300+8:3 700+8:4] fifo=[100 300 700]; W=[5000+8:1] fifo=[5000]; batching=0 starved=0",
        );
        b.next(
            0,
            "R 100+8 [2]",
            "R=[300+8:3 700+8:4] fifo=[300 700]; W=[5000+8:1] fifo=[5000]; batching=1 starved=1",
        );
        b.complete(
            1_000,
            "R=[300+8:3 700+8:4] fifo=[300 700]; W=[5000+8:1] fifo=[5000]; batching=1 starved=1",
        );
        b.next(
            1_000,
            "R 300+8 [3]",
            "R=[700+8:4] fifo=[700]; W=[5000+8:1] fifo=[5000]; batching=18 starved=2",
        );
        b.complete(2_000, "R=[700+8:4] fifo=[700]; W=[5000+8:1] fifo=[5000]; batching=18 starved=2");
        // Reads were preferred twice: now the write goes, though a read is queued and not expired.
        b.next(2_000, "W 5000+8 [1]", "R=[700+8:4] fifo=[700]; W=[] fifo=[]; batching=1 starved=0");
        b.complete(3_000, "R=[700+8:4] fifo=[700]; W=[] fifo=[]; batching=1 starved=0");
        // The write sweep has nothing left; reads restart at their lowest sector.
        b.next(3_000, "R 700+8 [4]", "R=[] fifo=[]; W=[] fifo=[]; batching=1 starved=0");
    }

    #[test]
    fn front_merges_can_be_turned_off() {
        let mut b =
            Bench::new(Deadline::new(DeadlineParams { front_merges: false, ..DeadlineParams::default() }));
        b.add(0, rd(1, 100, 8), "R=[100+8:1] fifo=[100]; W=[] fifo=[]; batching=0 starved=0");
        b.add(0, rd(2, 92, 8), "R=[92+8:2 100+8:1] fifo=[100 92]; W=[] fifo=[]; batching=0 starved=0");
        let mut b = deadline(16);
        b.add(0, rd(1, 100, 8), "R=[100+8:1] fifo=[100]; W=[] fifo=[]; batching=0 starved=0");
        b.add(0, rd(2, 92, 8), "R=[92+16:2,1] fifo=[92]; W=[] fifo=[]; batching=0 starved=0");
    }
}
