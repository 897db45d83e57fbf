//! Helpers for the schedulers' tests: a hand-traced bench, the random-interleaving model the property tests
//! drive, and a tiny closed-loop server (handlers, one disk) for behavioural comparisons.

use super::{Decision, Dispatch, IoRequest, IoScheduler};
use crate::error::SimError;
use pagelab_core::{Nanos, StreamId};
use proptest::test_runner::TestCaseError;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// A read by owner 0 (`submitted` is set when the bench adds it).
pub fn rd(id: u64, sector: u64, sectors: u32) -> IoRequest {
    IoRequest::read(id, sector, sectors, StreamId(0), Nanos::ZERO)
}

/// An asynchronous write by owner 0.
pub fn wr(id: u64, sector: u64, sectors: u32) -> IoRequest {
    IoRequest::write(id, sector, sectors, StreamId(0), Nanos::ZERO)
}

/// `req` submitted by `owner`.
pub fn by(owner: u32, req: IoRequest) -> IoRequest {
    IoRequest { owner: StreamId(owner), ..req }
}

/// `"R 8+16 [1 2]"`, `"wait 7.500ms"`, `"idle"`.
pub fn describe(d: &Decision) -> String {
    match d {
        Decision::Dispatch(d) => {
            let ids: Vec<String> = d.parts.iter().map(|id| id.to_string()).collect();
            let dir = if d.disk.write { "W" } else { "R" };
            format!("{dir} {}+{} [{}]", d.disk.sector, d.disk.sectors, ids.join(" "))
        }
        Decision::WaitUntil(t) => format!("wait {t}"),
        Decision::Idle => "idle".to_string(),
        Decision::AwaitCompletion => "await completion".to_string(),
    }
}

/// Drives one scheduler by hand, one device, times in microseconds; checks the decision and the queue
/// state after every step, naming the step that diverges.
pub struct Bench<S: IoScheduler> {
    pub s: S,
    pub now: Nanos,
    /// Where the device head is: the end of the last completed request.
    pub head: u64,
    in_flight: Option<Dispatch>,
    step: usize,
}

impl<S: IoScheduler> Bench<S> {
    pub fn new(s: S) -> Bench<S> {
        Bench { s, now: Nanos::ZERO, head: 0, in_flight: None, step: 0 }
    }

    fn at(&mut self, us: u64) {
        let t = Nanos::from_us(us);
        assert!(t >= self.now, "bench step {} goes back in time", self.step);
        self.now = t;
        self.step += 1;
    }

    fn expect_state(&self, want: &str, what: &str) {
        assert_eq!(self.s.state(), want, "step {} ({what} at {}): wrong state", self.step, self.now);
    }

    pub fn add(&mut self, us: u64, req: IoRequest, want_state: &str) {
        self.at(us);
        self.s.add(self.now, IoRequest { submitted: self.now, ..req });
        self.expect_state(want_state, &format!("add {}", req.id));
    }

    pub fn next(&mut self, us: u64, want: &str, want_state: &str) {
        self.at(us);
        assert!(self.in_flight.is_none(), "step {}: next() while the device is busy", self.step);
        let d = self.s.next(self.now, self.head);
        assert_eq!(describe(&d), want, "step {} (next at {}): wrong decision", self.step, self.now);
        if let Decision::Dispatch(d) = d {
            self.in_flight = Some(d);
        }
        self.expect_state(want_state, "next");
    }

    /// Completes the request in flight; the head ends up at its end.
    pub fn complete(&mut self, us: u64, want_state: &str) {
        self.at(us);
        let d = self.in_flight.take().unwrap_or_else(|| panic!("step {}: nothing in flight", self.step));
        self.head = d.disk.end();
        self.s.completed(self.now, &d);
        // The simulator gives every completed dispatch back: the traced orders run with reused lists.
        self.s.recycle(d);
        self.expect_state(want_state, "completion");
    }

    pub fn exit(&mut self, owner: u32, want_state: &str) {
        self.step += 1;
        self.s.owner_exited(StreamId(owner));
        self.expect_state(want_state, &format!("exit of owner {owner}"));
    }
}

/// Each dispatched id was added, its parts tile the dispatched range in order, in one direction, and a
/// merged request respects the size limit.
pub fn check_dispatch(
    d: &Dispatch,
    added: &HashMap<u64, (u64, u32, bool)>,
    max_sectors: u32,
) -> Result<(), SimError> {
    if d.parts.is_empty() {
        return Err(SimError::invalid(format!("{d:?}"), "expected at least one request"));
    }
    let mut at = d.disk.sector;
    for id in &d.parts {
        let &(sector, sectors, write) = added
            .get(id)
            .ok_or_else(|| SimError::invalid(format!("{d:?}"), format!("unknown request {id}")))?;
        if sector != at {
            return Err(SimError::invalid(
                format!("{d:?}: part {id} at {sector}"),
                format!("expected it contiguous, at {at}"),
            ));
        }
        if write != d.disk.write {
            return Err(SimError::invalid(format!("{d:?}: part {id}"), "expected the request's direction"));
        }
        at += sectors as u64;
    }
    if at != d.disk.end() {
        return Err(SimError::invalid(
            format!("{d:?}: parts end at {at}"),
            format!("expected the request's end, {}", d.disk.end()),
        ));
    }
    if d.parts.len() > 1 && d.disk.sectors > max_sectors {
        return Err(SimError::invalid(
            format!("{d:?}"),
            format!("expected a merge of at most {max_sectors} sectors"),
        ));
    }
    Ok(())
}

/// A scheduler driven by random operations (one device, so at most one request in flight), recording
/// every id added and dispatched.
pub struct Model {
    pub s: Box<dyn IoScheduler>,
    pub now: Nanos,
    pub in_flight: Option<Dispatch>,
    head: u64,
    next_id: u64,
    max_sectors: u32,
    /// id → (sector, sectors, write)
    pub added: HashMap<u64, (u64, u32, bool)>,
    pub dispatched: HashSet<u64>,
}

impl Model {
    pub fn new(s: Box<dyn IoScheduler>, max_sectors: u32) -> Model {
        Model {
            s,
            now: Nanos::ZERO,
            in_flight: None,
            head: 0,
            next_id: 1,
            max_sectors,
            added: HashMap::new(),
            dispatched: HashSet::new(),
        }
    }

    pub fn add(&mut self, sector: u64, sectors: u32, write: bool, sync: bool, owner: StreamId) {
        let id = self.next_id;
        self.next_id += 1;
        self.added.insert(id, (sector, sectors, write));
        self.s.add(self.now, IoRequest { id, sector, sectors, write, sync, owner, submitted: self.now });
    }

    /// Asks for a decision (device free) and checks it; returns the wait time of a `WaitUntil`.
    pub fn next(&mut self, antic_max: Nanos) -> Result<Option<Nanos>, TestCaseError> {
        assert!(self.in_flight.is_none());
        let queued = self.s.queued();
        match self.s.next(self.now, self.head) {
            Decision::Dispatch(d) => {
                check_dispatch(&d, &self.added, self.max_sectors)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                for id in &d.parts {
                    if !self.dispatched.insert(*id) {
                        return Err(TestCaseError::fail(format!("request {id} dispatched twice")));
                    }
                }
                if self.s.queued() + d.parts.len() != queued {
                    return Err(TestCaseError::fail("queued() out of step with the dispatch"));
                }
                self.in_flight = Some(d);
                Ok(None)
            }
            Decision::WaitUntil(t) => {
                if t <= self.now || t > self.now + antic_max {
                    return Err(TestCaseError::fail(format!(
                        "wait until {t} at {}: not in (now, now + {antic_max}]",
                        self.now
                    )));
                }
                if queued == 0 {
                    return Err(TestCaseError::fail("waiting with nothing queued"));
                }
                Ok(Some(t))
            }
            Decision::Idle => {
                if queued != 0 {
                    return Err(TestCaseError::fail(format!("idle with {queued} requests queued")));
                }
                Ok(None)
            }
            // This bench calls `next` only with nothing in flight.
            Decision::AwaitCompletion => {
                Err(TestCaseError::fail("awaiting a completion with none in flight"))
            }
        }
    }

    pub fn complete(&mut self) {
        if let Some(d) = self.in_flight.take() {
            self.head = d.disk.end();
            self.s.completed(self.now, &d);
            self.s.recycle(d);
        }
    }

    /// Serve everything left, honouring waits.
    pub fn drain(&mut self, antic_max: Nanos) -> Result<(), TestCaseError> {
        for _ in 0..10_000 {
            self.complete();
            match self.next(antic_max)? {
                Some(t) => self.now = t,
                None if self.in_flight.is_none() => return Ok(()),
                None => {}
            }
        }
        Err(TestCaseError::fail("the scheduler did not drain"))
    }
}

/// A closed-loop server: each handler reads `reads` requests of `sectors` from its streams in turn
/// (stream `k` of handler `h` starts at `streams[h][k]`, read sequentially), thinking `think` between a
/// completion and its next read. One disk: a request that starts at the head costs `transfer`; any other
/// costs `transfer + seek` (a crude but sufficient stand-in for a disk with expensive seeks).
pub struct ClosedLoop {
    pub streams: Vec<Vec<u64>>,
    pub reads: u64,
    pub sectors: u32,
    pub think: Nanos,
    pub transfer: Nanos,
    pub seek: Nanos,
}

/// What a [`ClosedLoop`] run measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopOutcome {
    pub makespan: Nanos,
    pub dispatches: u64,
    /// Dispatches that did not start at the head.
    pub seeks: u64,
    /// Decisions to keep the disk idle.
    pub waits: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Issue(u32),
    Done,
    Wake,
}

impl ClosedLoop {
    pub fn run(&self, s: &mut dyn IoScheduler) -> LoopOutcome {
        let handlers = self.streams.len();
        let mut issued = vec![0u64; handlers];
        let mut owner_of: HashMap<u64, u32> = HashMap::new();
        let mut events: BinaryHeap<Reverse<(Nanos, u64, Ev)>> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut push = |events: &mut BinaryHeap<_>, at: Nanos, ev: Ev| {
            events.push(Reverse((at, seq, ev)));
            seq += 1;
        };
        for h in 0..handlers {
            push(&mut events, Nanos::ZERO, Ev::Issue(h as u32));
        }
        let (mut busy, mut head, mut out) = (None::<Dispatch>, 0u64, LoopOutcome::default());
        let mut next_id = 0u64;
        let budget = 100 * self.reads * handlers as u64 + 100;
        for _ in 0..budget {
            let Some(Reverse((now, _, ev))) = events.pop() else { break };
            out.makespan = now;
            match ev {
                Ev::Issue(h) => {
                    let i = issued[h as usize];
                    issued[h as usize] += 1;
                    let streams = &self.streams[h as usize];
                    let k = (i % streams.len() as u64) as usize;
                    let sector = streams[k] + (i / streams.len() as u64) * self.sectors as u64;
                    next_id += 1;
                    owner_of.insert(next_id, h);
                    s.add(now, IoRequest::read(next_id, sector, self.sectors, StreamId(h), now));
                }
                Ev::Done => {
                    let d = busy.take().expect("completion with an idle disk");
                    head = d.disk.end();
                    s.completed(now, &d);
                    for id in &d.parts {
                        let h = owner_of[id];
                        if issued[h as usize] < self.reads {
                            push(&mut events, now + self.think, Ev::Issue(h));
                        }
                    }
                    s.recycle(d);
                }
                Ev::Wake => {}
            }
            if busy.is_none() {
                match s.next(now, head) {
                    Decision::Dispatch(d) => {
                        let cost =
                            if d.disk.sector == head { self.transfer } else { self.transfer + self.seek };
                        out.dispatches += 1;
                        out.seeks += u64::from(d.disk.sector != head);
                        push(&mut events, now + cost, Ev::Done);
                        busy = Some(d);
                    }
                    Decision::WaitUntil(t) => {
                        out.waits += 1;
                        push(&mut events, t, Ev::Wake);
                    }
                    Decision::Idle => {}
                    Decision::AwaitCompletion => panic!("awaiting a completion with none in flight"),
                }
            }
        }
        assert!(events.is_empty() && busy.is_none() && s.queued() == 0, "closed loop did not finish");
        out
    }
}
