//! The block I/O scheduler between the buffer cache and the device: which queued request the disk serves
//! next, which requests merge into one, and when the disk should stay idle on purpose.
//!
//! Four schedulers, one file each, all Linux 2.6's (the kernel Li & Shen measured, papers/000 §4):
//! - [`Noop`] (`noop`): one FIFO with back merges.
//! - [`Deadline`] (`deadline`, Linux `deadline-iosched.c`): per-direction sector-sorted queues swept by a
//!   one-way elevator, FIFO expiry times that override the sweep, writes starved at most `writes_starved`
//!   times.
//! - [`Anticipatory`] (`anticipatory` or `as`, Linux `as-iosched.c`; Iyer & Druschel, "Anticipatory
//!   scheduling: a disk scheduling framework to overcome deceptive idleness in synchronous I/O", SOSP
//!   2001): deadline-like batches, plus a short deliberate idle after a synchronous read completes, betting
//!   that the same handler is about to read nearby. Li & Shen (papers/000 §2) explain why this matters to
//!   data-intensive servers (one handler's sequential run is not broken by the others') and when it fails
//!   (long think times; a handler alternating between several streams, as in Two-Rand and index search).
//! - [`Cfq`] (`cfq`, Linux 2.6.18 `cfq-iosched.c`, the default elevator from 2.6.18 on): a queue per
//!   handler for its reads (one shared queue for all asynchronous writes), served round robin in time
//!   slices (100 ms synchronous, 40 ms asynchronous), up to `quantum` requests per round, with an idle of
//!   up to `slice_idle` (8 ms) after a handler's read completes if its mean think time is short.
//!
//! # Protocol with the event loop
//! The driver owns time and the device. It calls [`IoScheduler::add`] for every request a handler or the
//! prefetcher submits; whenever the device is free it calls [`IoScheduler::next`], which answers with a
//! [`Decision`]: dispatch this (merged) request, wait until a time (anticipation: call `next` again then,
//! or as soon as another request is added), or idle (nothing queued: call `next` again after the next
//! `add`). When the device finishes a dispatched request the driver calls [`IoScheduler::completed`] with
//! it, then, once it has read the dispatch's parts, gives the dispatch back ([`IoScheduler::recycle`]) for
//! its lists to be reused. When a handler exits, [`IoScheduler::owner_exited`]. Before a submitter sleeps
//! on a full request queue, the block layer asks [`IoScheduler::may_queue`] whether the scheduler exempts it
//! ([`crate::blk`]). Every call carries `now`; the schedulers never read a clock and assert that time does not go backwards.
//!
//! Requests are in 512-byte sectors ([`crate::io`]). A dispatched request may carry several added
//! requests merged over contiguous sectors, at most `max_request_sectors` long; their ids come back in
//! [`Dispatch::parts`] so the driver can wake each waiter.
//!
//! The default merge limit, [`MAX_REQUEST_SECTORS_DEFAULT`] = 1024 sectors (512 KiB), follows Linux 2.6's
//! SCSI midlayer default `SCSI_DEFAULT_MAX_SECTORS` (`include/scsi/scsi_host.h`): the request size limit
//! a SCSI disk like the Cheetah 9LP had under 2.6.10 unless its host driver set a lower one. Later kernels
//! made the same number the block layer's default (`BLK_DEF_MAX_SECTORS`, `max_sectors_kb` = 512).

mod anticipatory;
mod cfq;
mod deadline;
mod noop;
mod queue;
#[cfg(test)]
mod testing;

pub use anticipatory::{AnticipationStats, Anticipatory, AnticipatoryParams};
pub use cfq::{Cfq, CfqParams};
pub use deadline::{Deadline, DeadlineParams};
pub use noop::{Noop, NoopParams};

use crate::io::DiskRequest;
use pagelab_core::spec::Spec;
use pagelab_core::{CoreError, Nanos, StreamId};
use std::fmt;
use std::str::FromStr;

/// Largest merged request, in sectors, unless a spec says otherwise (512 KiB; `SCSI_DEFAULT_MAX_SECTORS`).
pub const MAX_REQUEST_SECTORS_DEFAULT: u32 = 1024;

/// One request as a handler (or the prefetcher on its behalf) submits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    /// Unique among requests not yet completed; comes back in [`Dispatch::parts`].
    pub id: u64,
    /// First 512-byte sector.
    pub sector: u64,
    /// Length in sectors (≥ 1).
    pub sectors: u32,
    pub write: bool,
    /// The submitter waits for it. Linux 2.6 treats every read as synchronous; for writes this marks
    /// O_SYNC / fsync writes, which the anticipatory scheduler queues with the reads.
    pub sync: bool,
    /// The request handler (stream) it is for; the anticipatory scheduler keeps statistics per owner.
    pub owner: StreamId,
    /// When the handler submitted it (≤ the `now` of the `add` call).
    pub submitted: Nanos,
}

impl IoRequest {
    pub fn read(id: u64, sector: u64, sectors: u32, owner: StreamId, submitted: Nanos) -> IoRequest {
        IoRequest { id, sector, sectors, write: false, sync: true, owner, submitted }
    }
    /// An asynchronous (write-back) write.
    pub fn write(id: u64, sector: u64, sectors: u32, owner: StreamId, submitted: Nanos) -> IoRequest {
        IoRequest { id, sector, sectors, write: true, sync: false, owner, submitted }
    }
    pub fn disk(&self) -> DiskRequest {
        DiskRequest { sector: self.sector, sectors: self.sectors, write: self.write }
    }
    /// One past the last sector.
    pub fn end(&self) -> u64 {
        self.sector + self.sectors as u64
    }
}

/// A request handed to the device: one or more added requests merged over contiguous sectors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub disk: DiskRequest,
    /// Ids of the added requests it carries, in sector order (never empty).
    pub parts: Vec<u64>,
}

/// What the device should do now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Serve this request; call [`IoScheduler::completed`] with it when done.
    Dispatch(Dispatch),
    /// Anticipating: keep the device idle and call [`IoScheduler::next`] again at this time (strictly
    /// later than `now`, at most the scheduler's `antic_expire` (cfq: `slice_idle`) later), or as soon as
    /// a request is added.
    WaitUntil(Nanos),
    /// Nothing is queued: call [`IoScheduler::next`] again after the next [`IoScheduler::add`].
    Idle,
    /// Requests are queued, but none may go until a dispatched request completes: call
    /// [`IoScheduler::next`] again after the next [`IoScheduler::completed`] (or [`IoScheduler::add`]).
    /// Only while requests are in flight, so only on a device that serves several at once
    /// ([`crate::device::Device::parallelism`] above 1): CFQ keeps its active queue until the queue's
    /// dispatched requests are done rather than switch queues under them (2.6.18's `cfq_select_queue()`,
    /// `if (cfqq->dispatched) goto keep_queue`).
    AwaitCompletion,
}

/// A block I/O scheduler. Callers guarantee that `now` never decreases from one call to the next
/// (schedulers assert it), that ids are unique among requests not yet completed, and that `completed`
/// receives exactly the dispatches `next` returned, each once.
pub trait IoScheduler: Send {
    /// The name users type: `"noop"`, `"deadline"`, `"anticipatory"`, `"cfq"`.
    fn name(&self) -> &'static str;

    /// Queue `req`, submitted by its owner at or before `now`. The scheduler may merge it into a queued
    /// request: a back merge (it starts where the queued one ends) or a front merge (it ends where the
    /// queued one starts), only in the same direction, only while the result stays within
    /// `max_request_sectors`; a merge that closes the gap between two queued requests joins them.
    fn add(&mut self, now: Nanos, req: IoRequest);

    /// The device is free: dispatch, wait, or idle (see [`Decision`]). `head_sector` is where the device's
    /// head is (`Device::head_sector`): the end of the last request it served, i.e. the sector a request
    /// must start at to be served without a seek. Returns [`Decision::Idle`] exactly when nothing is
    /// queued, and [`Decision::AwaitCompletion`] only while a dispatch has not completed.
    ///
    /// A call is a queue run (a kernel's `request_fn` asking `elv_next_request()`): callers call it only
    /// where the kernel runs its queue, after [`IoScheduler::add`], [`IoScheduler::completed`],
    /// [`IoScheduler::owner_exited`], or at the time a [`Decision::WaitUntil`] named, and never merely
    /// because time passed. A scheduler may act on a call: CFQ re-arms its idle timer from `now` each
    /// time a call finds the active queue still waiting (2.6.18's `cfq_select_queue()`), so extra calls
    /// would keep its idle window open.
    fn next(&mut self, now: Nanos, head_sector: u64) -> Decision;

    /// The device finished `done`, a dispatch this scheduler returned and that has not completed before.
    /// The anticipatory scheduler starts its anticipation window here.
    fn completed(&mut self, now: Nanos, done: &Dispatch);

    /// Give back `done`: the scheduler reuses its lists for the requests it queues and dispatches next, so
    /// that a request allocates nothing on the driver's event path. Caller guarantees `done` was passed to
    /// [`IoScheduler::completed`] and is not used again. A driver may drop a dispatch instead (the next
    /// request then allocates its lists); the simulator and the live driver give every one back.
    fn recycle(&mut self, done: Dispatch);

    /// The owner exited: never anticipate it again (until a request with its id is added: ids may be
    /// reused) and forget its statistics. Its queued requests stay queued.
    fn owner_exited(&mut self, owner: StreamId);

    /// Added requests not yet dispatched (each merged request counts once per request it carries).
    fn queued(&self) -> usize;

    /// Linux requests allocated in one direction: queued merged requests plus dispatched ones not yet
    /// completed (a merge into a queued request allocates none; a merge that joins two frees one). The
    /// driver bounds it by `nr_requests`.
    fn allocated_requests(&self, write: bool) -> usize;

    /// Whether `req` would merge into a queued request (so that adding it allocates no new request, and
    /// a submitter facing a full queue is not held back).
    fn can_merge(&self, req: &IoRequest) -> bool;

    /// May `submitter` allocate a request even though its direction of the request queue is full? The
    /// block layer asks before putting a submitter to sleep on a full queue (2.6.18's `get_request()` calls
    /// `elv_may_queue()`, block/ll_rw_blk.c; see [`crate::blk`]). [`MayQueue::Must`] exempts it from the
    /// full-queue wait (not from the hard limit of 3/2 × `nr_requests`). The default, and noop's and
    /// deadline's answer, is [`MayQueue::May`]: no exemption. The anticipatory scheduler answers `Must` for
    /// the owner it is anticipating (`as_may_queue()`, block/as-iosched.c), so the request it keeps the
    /// disk idle for is not held back by the queue. Must not change the scheduler's state.
    fn may_queue(&self, submitter: StreamId) -> MayQueue {
        let _ = submitter;
        MayQueue::May
    }

    /// The queues as text, for hand-traced tests and `--debug` output, e.g.
    /// `"R=[8+16:1,2 96+8:3] fifo=[96 8]; W=[] fifo=[]; batching=1 starved=0"`.
    fn state(&self) -> String;

    /// The anticipatory scheduler's waits since it was made and how they ended (`None` for a scheduler
    /// that never anticipates). Must not change the scheduler's state.
    fn anticipation(&self) -> Option<AnticipationStats> {
        None
    }
}

/// The elevator's answer to [`IoScheduler::may_queue`] (2.6's `ELV_MQUEUE_MAY` / `ELV_MQUEUE_MUST`;
/// `ELV_MQUEUE_NO`, which 2.6.18's CFQ never returns either, has no scheduler here that gives it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MayQueue {
    /// The usual rules: a submitter into a full queue sleeps unless it is a batcher.
    May,
    /// Allocate even if the queue is full (up to the hard limit).
    Must,
}

/// A scheduler and its parameters, as parsed from `noop`, `deadline:read_expire=500ms`,
/// `as:antic_expire=0ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerSpec {
    Noop(NoopParams),
    Deadline(DeadlineParams),
    Anticipatory(AnticipatoryParams),
    Cfq(CfqParams),
}

impl SchedulerSpec {
    /// The names `parse` accepts, for messages.
    pub const NAMES: &'static str = "noop, deadline, anticipatory (as), cfq";

    /// `name[:key=value,...]`; see each scheduler's `Params` for its keys. Unknown names, unknown keys and
    /// bad values are errors naming the spec and what was expected.
    pub fn parse(text: &str) -> Result<SchedulerSpec, CoreError> {
        let spec = Spec::parse(text)?;
        let parsed = match spec.name.as_str() {
            "noop" => SchedulerSpec::Noop(NoopParams::from_spec(&spec)?),
            "deadline" => SchedulerSpec::Deadline(DeadlineParams::from_spec(&spec)?),
            "anticipatory" | "as" => SchedulerSpec::Anticipatory(AnticipatoryParams::from_spec(&spec)?),
            "cfq" => SchedulerSpec::Cfq(CfqParams::from_spec(&spec)?),
            _ => {
                return Err(CoreError::UnknownName {
                    what: "I/O scheduler",
                    got: text.trim().to_string(),
                    expected: Self::NAMES.to_string(),
                })
            }
        };
        Ok(parsed)
    }

    pub fn name(&self) -> &'static str {
        match self {
            SchedulerSpec::Noop(_) => "noop",
            SchedulerSpec::Deadline(_) => "deadline",
            SchedulerSpec::Anticipatory(_) => "anticipatory",
            SchedulerSpec::Cfq(_) => "cfq",
        }
    }

    /// The largest request the scheduler builds, in sectors: the queue's `max_sectors`, which also bounds
    /// what the block layer submits at once (a larger read is split).
    pub fn max_request_sectors(&self) -> u32 {
        match self {
            SchedulerSpec::Noop(p) => p.max_request_sectors,
            SchedulerSpec::Deadline(p) => p.max_request_sectors,
            SchedulerSpec::Anticipatory(p) => p.max_request_sectors,
            SchedulerSpec::Cfq(p) => p.max_request_sectors,
        }
    }

    pub fn build(&self) -> Box<dyn IoScheduler> {
        match *self {
            SchedulerSpec::Noop(p) => Box::new(Noop::new(p)),
            SchedulerSpec::Deadline(p) => Box::new(Deadline::new(p)),
            SchedulerSpec::Anticipatory(p) => Box::new(Anticipatory::new(p)),
            SchedulerSpec::Cfq(p) => Box::new(Cfq::new(p)),
        }
    }
}

impl Default for SchedulerSpec {
    /// Anticipatory: Linux 2.6.10's default elevator, the one the papers' servers ran on.
    fn default() -> Self {
        SchedulerSpec::Anticipatory(AnticipatoryParams::default())
    }
}

impl FromStr for SchedulerSpec {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SchedulerSpec::parse(s)
    }
}

impl fmt::Display for SchedulerSpec {
    /// The canonical spec: the name plus every parameter that differs from its default, so that
    /// `parse(display(s)) == s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = match self {
            SchedulerSpec::Noop(p) => p.non_default(),
            SchedulerSpec::Deadline(p) => p.non_default(),
            SchedulerSpec::Anticipatory(p) => p.non_default(),
            SchedulerSpec::Cfq(p) => p.non_default(),
        };
        f.write_str(self.name())?;
        if !params.is_empty() {
            write!(f, ":{}", params.join(","))?;
        }
        Ok(())
    }
}

/// `max_request_sectors` from a spec: a whole number of sectors, 1 ..= u32::MAX.
fn max_request_sectors(spec: &Spec) -> Result<u32, CoreError> {
    let v = spec.u64("max_request_sectors", MAX_REQUEST_SECTORS_DEFAULT as u64)?;
    if v == 0 || v > u32::MAX as u64 {
        return Err(CoreError::InvalidParameter {
            what: "specification",
            why: format!("`{}`: max_request_sectors={v}: expected 1 to {}", spec.text(), u32::MAX),
        });
    }
    Ok(v as u32)
}

/// A count parameter (`fifo_batch`, `writes_starved`) that must fit in a u32.
fn count_u32(spec: &Spec, key: &str, default: u32) -> Result<u32, CoreError> {
    let v = spec.u64(key, default as u64)?;
    u32::try_from(v).map_err(|_| CoreError::InvalidParameter {
        what: "specification",
        why: format!("`{}`: {key}={v}: expected at most {}", spec.text(), u32::MAX),
    })
}

/// A duration in the largest unit that prints it exactly (`500ms`, `5s`, `6ms`, `1500us`).
fn format_duration(d: Nanos) -> String {
    let ns = d.0;
    if ns != 0 && ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns != 0 && ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns != 0 && ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

/// `key=value` when `value != default`, for [`SchedulerSpec`]'s `Display`.
fn param_if<T: PartialEq>(
    out: &mut Vec<String>,
    key: &str,
    value: T,
    default: T,
    show: impl Fn(T) -> String,
) {
    if value != default {
        out.push(format!("{key}={}", show(value)));
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{check_dispatch, Model};
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn specs_parse_with_defaults_aliases_and_parameters() {
        assert_eq!("noop".parse::<SchedulerSpec>().unwrap(), SchedulerSpec::Noop(NoopParams::default()));
        assert_eq!("AS".parse::<SchedulerSpec>().unwrap(), SchedulerSpec::default());
        let SchedulerSpec::Deadline(p) =
            "deadline:read_expire=250ms,fifo_batch=8,front_merges=0".parse::<SchedulerSpec>().unwrap()
        else {
            panic!("not deadline")
        };
        assert_eq!(p.read_expire, Nanos::from_ms(250));
        assert_eq!(p.fifo_batch, 8);
        assert!(!p.front_merges);
        assert_eq!(p.write_expire, DeadlineParams::default().write_expire);
        let SchedulerSpec::Anticipatory(a) =
            "anticipatory:antic_expire=0ms,max_request_sectors=256".parse::<SchedulerSpec>().unwrap()
        else {
            panic!("not anticipatory")
        };
        assert_eq!((a.antic_expire, a.max_request_sectors), (Nanos::ZERO, 256));
        assert_eq!("cfq".parse::<SchedulerSpec>().unwrap(), SchedulerSpec::Cfq(CfqParams::default()));
        let SchedulerSpec::Cfq(c) =
            "cfq:slice_idle=0ms,quantum=8,back_seek_max=1024".parse::<SchedulerSpec>().unwrap()
        else {
            panic!("not cfq")
        };
        assert_eq!((c.slice_idle, c.quantum, c.back_seek_max), (Nanos::ZERO, 8, 1024));
        assert_eq!(c.slice_sync, Nanos::from_ms(100));
    }

    #[test]
    fn bad_specs_are_clear_errors() {
        let e = "bfq".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(
            e.contains("unknown I/O scheduler `bfq`") && e.contains("noop, deadline, anticipatory (as), cfq"),
            "{e}"
        );
        let e = "cfq:quantum=0".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("quantum=0: expected more than 0"), "{e}");
        let e = "cfq:slice_idle=8".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("missing unit"), "{e}");
        let e = "cfq:antic_expire=6ms".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("unknown parameter(s) antic_expire"), "{e}");
        let e = "deadline:read_expir=5ms".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("read_expir") && e.contains("accepted: read_expire"), "{e}");
        let e = "deadline:read_expire=5".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("missing unit"), "{e}");
        let e = "noop:max_request_sectors=0".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("max_request_sectors=0: expected 1 to"), "{e}");
        let e = "as:fifo_batch=3".parse::<SchedulerSpec>().unwrap_err().to_string();
        assert!(e.contains("unknown parameter(s) fifo_batch"), "{e}");
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "noop",
            "noop:max_request_sectors=128",
            "deadline",
            "deadline:read_expire=250ms,write_expire=1500us,fifo_batch=1,writes_starved=0,front_merges=false",
            "anticipatory",
            "anticipatory:read_batch_expire=1s,antic_expire=0ns",
            "cfq",
            "cfq:quantum=1,fifo_expire_sync=20ms,fifo_expire_async=40ms,back_seek_max=0,back_seek_penalty=1,\
             slice_sync=50ms,slice_async=10ms,slice_async_rq=1,slice_idle=0ns,max_request_sectors=64",
        ] {
            let spec: SchedulerSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(spec.to_string().parse::<SchedulerSpec>().unwrap(), spec);
            assert_eq!(spec.build().name(), spec.name());
        }
    }

    /// One step of a random interleaving.
    #[derive(Clone, Debug)]
    enum Op {
        /// A request at `slot * 8` sectors (slots collide and abut, so merges happen) of `len8 * 8`.
        Add {
            slot: u64,
            len8: u32,
            write: bool,
            sync: bool,
            owner: u32,
        },
        /// If the device is free, ask for the next decision; honour a wait with probability 1/2.
        Next {
            honour_wait: bool,
        },
        /// Complete the in-flight request, if any.
        Complete,
        Advance {
            us: u64,
        },
        Exit {
            owner: u32,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..40, 1u32..4, any::<bool>(), any::<bool>(), 0u32..4)
                .prop_map(|(slot, len8, write, sync, owner)| Op::Add { slot, len8, write, sync, owner }),
            3 => any::<bool>().prop_map(|honour_wait| Op::Next { honour_wait }),
            3 => Just(Op::Complete),
            2 => (0u64..12_000).prop_map(|us| Op::Advance { us }),
            1 => (0u32..4).prop_map(|owner| Op::Exit { owner }),
        ]
    }

    /// Replays `ops` on a scheduler built from `spec`, then drains it; checks every decision.
    fn run(spec: &str, ops: &[Op]) -> Result<(), TestCaseError> {
        let spec: SchedulerSpec = spec.parse().unwrap();
        let antic_max = match spec {
            SchedulerSpec::Anticipatory(p) => p.antic_expire,
            SchedulerSpec::Cfq(p) => p.slice_idle,
            _ => Nanos::ZERO,
        };
        let max_sectors = match spec {
            SchedulerSpec::Noop(p) => p.max_request_sectors,
            SchedulerSpec::Deadline(p) => p.max_request_sectors,
            SchedulerSpec::Anticipatory(p) => p.max_request_sectors,
            SchedulerSpec::Cfq(p) => p.max_request_sectors,
        };
        let mut m = Model::new(spec.build(), max_sectors);
        for op in ops {
            match *op {
                Op::Add { slot, len8, write, sync, owner } => {
                    m.add(slot * 8, len8 * 8, write, sync, StreamId(owner));
                }
                Op::Next { honour_wait } => {
                    if m.in_flight.is_none() {
                        if let Some(t) = m.next(antic_max)? {
                            if honour_wait {
                                m.now = t;
                            }
                        }
                    }
                }
                Op::Complete => m.complete(),
                Op::Advance { us } => m.now += Nanos::from_us(us),
                Op::Exit { owner } => m.s.owner_exited(StreamId(owner)),
            }
        }
        m.drain(antic_max)?;
        prop_assert_eq!(m.s.queued(), 0);
        prop_assert_eq!(m.dispatched.len(), m.added.len(), "a request was lost or duplicated");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn noop_dispatches_every_request_exactly_once(ops in prop::collection::vec(op(), 1..120)) {
            run("noop:max_request_sectors=32", &ops)?;
        }

        #[test]
        fn deadline_dispatches_every_request_exactly_once(ops in prop::collection::vec(op(), 1..120)) {
            run("deadline:max_request_sectors=32,read_expire=20ms,write_expire=40ms,fifo_batch=3", &ops)?;
        }

        #[test]
        fn anticipatory_dispatches_every_request_exactly_once_and_waits_briefly(
            ops in prop::collection::vec(op(), 1..120)
        ) {
            run(
                "as:max_request_sectors=32,read_expire=20ms,write_expire=40ms,read_batch_expire=30ms,\
                 write_batch_expire=10ms",
                &ops,
            )?;
        }

        #[test]
        fn cfq_dispatches_every_request_exactly_once_and_waits_briefly(
            ops in prop::collection::vec(op(), 1..120)
        ) {
            run(
                "cfq:max_request_sectors=32,fifo_expire_sync=20ms,fifo_expire_async=40ms,slice_sync=30ms,\
                 slice_async=10ms,quantum=2",
                &ops,
            )?;
        }

        #[test]
        fn cfq_with_default_slices_dispatches_every_request_exactly_once(
            ops in prop::collection::vec(op(), 1..120)
        ) {
            run("cfq:max_request_sectors=32", &ops)?;
        }
    }

    #[test]
    fn check_dispatch_rejects_a_gap_between_parts() {
        let mut sizes = std::collections::HashMap::new();
        sizes.insert(1, (0u64, 8u32, false));
        sizes.insert(2, (16u64, 8u32, false));
        let d = Dispatch { disk: DiskRequest::read(0, 16), parts: vec![1, 2] };
        assert!(check_dispatch(&d, &sizes, 1024).unwrap_err().to_string().contains("contiguous"));
    }
}
