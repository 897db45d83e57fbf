//! noop: first come, first served, with back merges (Linux 2.6 `noop-iosched.c`).
//!
//! One FIFO for reads and writes together; the device gets the oldest queued request. A new request
//! merges onto the back of any queued request of the same direction that ends where it starts (within
//! `max_request_sectors`), as the elevator core's merge hash does for noop from 2.6.18 on; noop neither
//! sorts nor front-merges nor joins queued requests. Departure: 2.6.10's noop tried only the one
//! request it last merged into (`q->last_merge`, front or back); pagelab looks at every queued request,
//! which merges a little more when several streams interleave.

use super::queue::{MergeRules, SchedCore};
use super::{Decision, Dispatch, IoRequest, IoScheduler, MAX_REQUEST_SECTORS_DEFAULT};
use pagelab_core::spec::Spec;
use pagelab_core::{CoreError, Nanos, StreamId};

/// noop's one queue class.
const ALL: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoopParams {
    /// Largest merged request, in 512-byte sectors.
    pub max_request_sectors: u32,
}

impl Default for NoopParams {
    fn default() -> Self {
        NoopParams { max_request_sectors: MAX_REQUEST_SECTORS_DEFAULT }
    }
}

impl NoopParams {
    pub const KEYS: [&'static str; 1] = ["max_request_sectors"];

    pub(super) fn from_spec(spec: &Spec) -> Result<NoopParams, CoreError> {
        let p = NoopParams { max_request_sectors: super::max_request_sectors(spec)? };
        spec.finish(&Self::KEYS)?;
        Ok(p)
    }

    pub(super) fn non_default(&self) -> Vec<String> {
        let mut out = Vec::new();
        let d = NoopParams::default();
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

pub struct Noop {
    core: SchedCore,
}

impl Noop {
    pub fn new(p: NoopParams) -> Noop {
        let rules = MergeRules { front: false, coalesce: false, max_sectors: p.max_request_sectors };
        Noop { core: SchedCore::new(rules) }
    }
}

impl IoScheduler for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

    fn add(&mut self, now: Nanos, req: IoRequest) {
        // Nothing expires in a FIFO: the oldest request is always next anyway.
        self.core.add(now, &req, ALL, Nanos::MAX);
    }

    fn next(&mut self, now: Nanos, _head_sector: u64) -> Decision {
        self.core.tick(now);
        match self.core.queue.oldest(ALL) {
            Some(s) => Decision::Dispatch(self.core.dispatch(s)),
            None => Decision::Idle,
        }
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
        self.core.queue.can_merge(req, ALL)
    }

    fn state(&self) -> String {
        self.core.queue.state(ALL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testing::{rd, wr, Bench};

    #[test]
    fn first_come_first_served_with_back_merges_only() {
        let mut b = Bench::new(Noop::new(NoopParams { max_request_sectors: 24 }));
        b.add(0, rd(1, 500, 8), "[500+8:1] fifo=[500]");
        b.add(10, rd(2, 100, 8), "[100+8:2 500+8:1] fifo=[500 100]");
        b.add(20, rd(3, 508, 8), "[100+8:2 500+16:1,3] fifo=[500 100]"); // back merge
        b.add(30, rd(4, 92, 8), "[92+8:4 100+8:2 500+16:1,3] fifo=[500 100 92]"); // no front merge
        b.add(40, wr(5, 516, 8), "[92+8:4 100+8:2 500+16:1,3 516+8:5] fifo=[500 100 92 516]"); // a write
        b.add(50, rd(6, 516, 8), "[92+8:4 100+8:2 500+24:1,3,6 516+8:5] fifo=[500 100 92 516]");
        b.add(60, rd(7, 524, 8), "[92+8:4 100+8:2 500+24:1,3,6 516+8:5 524+8:7] fifo=[500 100 92 516 524]");
        // Dispatch in arrival order, whatever the head position.
        b.next(70, "R 500+24 [1 3 6]", "[92+8:4 100+8:2 516+8:5 524+8:7] fifo=[100 92 516 524]");
        b.complete(1_000, "[92+8:4 100+8:2 516+8:5 524+8:7] fifo=[100 92 516 524]");
        b.next(1_000, "R 100+8 [2]", "[92+8:4 516+8:5 524+8:7] fifo=[92 516 524]");
        b.complete(2_000, "[92+8:4 516+8:5 524+8:7] fifo=[92 516 524]");
        b.next(2_000, "R 92+8 [4]", "[516+8:5 524+8:7] fifo=[516 524]");
        b.complete(3_000, "[516+8:5 524+8:7] fifo=[516 524]");
        b.next(3_000, "W 516+8 [5]", "[524+8:7] fifo=[524]");
        b.complete(4_000, "[524+8:7] fifo=[524]");
        b.next(4_000, "R 524+8 [7]", "[] fifo=[]");
        b.complete(5_000, "[] fifo=[]");
        b.next(5_000, "idle", "[] fifo=[]");
        assert_eq!(b.s.queued(), 0);
    }

    #[test]
    #[should_panic(expected = "not in flight")]
    fn completing_twice_is_a_bug() {
        let mut b = Bench::new(Noop::new(NoopParams::default()));
        b.add(0, rd(1, 0, 8), "[0+8:1] fifo=[0]");
        let d = b.s.next(Nanos(0), 0);
        let Decision::Dispatch(d) = d else { panic!("expected a dispatch") };
        b.s.completed(Nanos(1), &d);
        b.s.completed(Nanos(2), &d);
    }

    #[test]
    #[should_panic(expected = "time went backwards")]
    fn time_never_goes_backwards() {
        let mut s = Noop::new(NoopParams::default());
        s.add(Nanos(10), rd(1, 0, 8));
        s.next(Nanos(9), 0);
    }
}
