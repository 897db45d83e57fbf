//! cfq: complete fairness queueing, per-process queues served round robin in time slices, with a short
//! deliberate idle inside a synchronous queue's slice (Linux 2.6.18 `block/cfq-iosched.c`, Jens Axboe;
//! 2.6.18 made it the default elevator). Modelled on the 2.6.18 source, read in two copies: the 2.6.18.8
//! tree of an OpenVZ/Xen kernel (its beancounter additions set aside) and an annotated 2.6.18 tree; the
//! names below are the source's.
//!
//! # Queues
//! Every owner (a request handler, `StreamId`, standing for a process's I/O context) has one
//! synchronous queue for its reads and `sync` writes. Asynchronous writes of *all* owners share one
//! queue: 2.6.18 keys a request's queue by `cfq_queue_pid()`, the pid for reads and synchronous writes
//! and `CFQ_KEY_ASYNC` (0) for the rest, so write-back from every process of a priority level lands in
//! one queue. Each queue keeps its requests sorted by sector and in arrival order (the FIFO).
//!
//! # Round robin and slices
//! Queues with requests are *busy* and sit on one of three lists: `rr_list` (waiting for the next round,
//! sorted by when each was last served, `service_last`), `cur_rr` (the current round) and `busy_rr` (a
//! queue that still had requests in flight when it got new ones: it is served only when no other queue
//! waits, `cfq_resort_rr_list()`). When there is no active queue, the first of `cur_rr` becomes active,
//! `rr_list` moving into `cur_rr` when the round is over; failing both, the first of `busy_rr`
//! (`cfq_set_active_queue()`). A queue's slice starts after its first dispatch round (`slice_end` unset
//! until then): `slice_sync` = 100 ms for a synchronous queue, `slice_async` = 40 ms for the asynchronous
//! one, scaled by priority as `base + base / 5 × (4 − ioprio)` (the default priority 4 gives `base`).
//! The asynchronous queue also ends its slice once it has dispatched `2 × (slice_async_rq + slice_async_rq
//! × (7 − ioprio))` = 16 requests (`cfq_prio_to_maxrq()`). A queue without an idle window (below) ends its
//! slice after every dispatch round.
//!
//! # Dispatch
//! When the device is free and the dispatch list is empty, a dispatch round runs
//! (`cfq_dispatch_requests()`): pick the queue to serve (`cfq_select_queue()`: the active one unless its
//! slice has ended; if it has nothing queued, wait for its requests in flight, or idle, or expire it),
//! move up to `quantum` = 4 of its requests onto the dispatch list, and if that queue has no idle window
//! (so it expired) go on to the next queue, once each. The device then serves the dispatch list in order
//! before the next round. Within a queue, the next request is the FIFO's oldest if it has waited longer
//! than `fifo_expire_sync` = 125 ms / `fifo_expire_async` = 250 ms — checked until one is found, at most
//! one per slice (`cfq_check_fifo()`) — else the nearer of the requests just ahead of and just behind
//! `last_sector` (the end of the last request put on the dispatch list), where going backwards costs
//! `back_seek_penalty` = 2 times its distance and is allowed up to `back_seek_max` = 16384 KiB (16 MiB;
//! beyond, the elevator wraps to the lowest sector), ties going to the higher sector (`cfq_choose_req()`).
//!
//! # Idling
//! When the active synchronous queue has nothing queued and nothing in flight (its last request just
//! completed), and its idle window is open, CFQ keeps the disk idle for up to `slice_idle` = 8 ms
//! (`cfq_arm_slice_timer()`; 2 ms if the owner is *seeky*: more than 80 seek samples of weight and a mean
//! seek distance above 128 Ki sectors), returned as [`Decision::WaitUntil`]. A new request of that queue
//! ends the wait and is dispatched at once (`cfq_crq_enqueued()`); an asynchronous write by its owner ends
//! the slice instead. When the timer fires, the queue is expired if its slice is over or if it still has
//! nothing queued while other queues do; if nothing at all is queued the queue stays active and idle. The
//! timer is re-armed (`mod_timer()` from now) every time a dispatch round finds the active queue still
//! waiting, e.g. when another owner's request arrives: 2.6.18 does exactly this. Dispatch rounds run only
//! at queue runs (the caller's contract on [`IoScheduler::next`]); a caller that called `next()` at every
//! event of its own would keep the window open for as long as its events came within `slice_idle`.
//!
//! The idle window (`cfq_update_idle_window()`) is decided at each new synchronous request of the owner
//! from its decayed mean think time (gain 1/8, fixed point × 256, from the completion of its last
//! synchronous request to this request, capped at 2 × `slice_idle`): once the sample weight exceeds 80
//! (the third request), the window is open iff the mean is at most `slice_idle`. The seek statistics only
//! close the window on a disk with command queueing (`hw_tag`, more than 4 requests in the driver at once),
//! which the one-request-at-a-time device here never is; without it they only shorten the idle to 2 ms.
//!
//! # Preemption (as the source has it)
//! `cfq_should_preempt()` lets a new request's queue preempt the active one if the active one is of the
//! idle class, or if the new queue is waiting for a request (`wait_request`), has at least `slice_idle`
//! left of an earlier slice, and the request is synchronous while the active queue is asynchronous. A
//! queue only waits for a request while it is the active one, so in 2.6.18 the second rule never fires:
//! a read does not preempt the write-back queue's slice, it waits for it to end (≤ 40 ms or 16 requests).
//! The rule is implemented as written; a test shows it does not fire.
//!
//! # Where pagelab departs from cfq-iosched.c (2.6.18)
//! - HZ = 1000, the value at which the source's divisions (`HZ / 10`, `HZ / 25`, `HZ / 125`, `HZ / 8`,
//!   `HZ / 4`) give exactly 100, 40, 8, 125 and 250 ms, the rate distributions built their 2.6.18 kernels
//!   with (e.g. RHEL 5), and the one the anticipatory model here assumes. (2.6.18's Kconfig default was
//!   250, which would make `fifo_expire_sync` 31 jiffies = 124 ms and round every timer to 4 ms.) Jiffies
//!   are kept as nanoseconds, with no rounding to the tick; `time_after()` is a plain `>`.
//! - One I/O priority: every owner is best-effort level 4 (what `task_nice_ioprio()` gives a nice-0
//!   process), so the eight `rr_list`s collapse into one, no real-time or idle class, no priority boost
//!   (`cfq_prio_boost()`).
//! - Owners are request handlers, not processes; statistics live per scheduler (per device), as a
//!   `cfq_io_context` does. An owner's statistics start with its first request (`last_end_request` = then).
//!   When an owner exits its statistics go and, if its synchronous queue (or the shared asynchronous queue,
//!   if it ever wrote) is active, the slice ends (`cfq_exit_single_io_context()`).
//! - Merges (back, front, and joins of requests a merge makes contiguous, up to `max_request_sectors`)
//!   happen only within one queue. 2.6.18's back-merge hash is global, so a bio could merge into another
//!   process's queued request; later kernels forbid that (`cfq_allow_merge()`, 2.6.21). A request that
//!   merges does not count as a new request (no think-time sample, no wake-up of a waiting queue), as a
//!   merged bio does not in the source.
//! - The next request of a queue is recomputed from `last_sector` at each pick, not cached in `next_crq`;
//!   two requests at the same sector both stay queued (the source dispatches the older "alias" at once).
//! - The dispatch list is served in the order CFQ filled it (`elv_dispatch_sort()` is not modelled); the
//!   device is the one-at-a-time device of [`super::IoScheduler`], so `rq_in_driver` never exceeds 1.
//! - [`IoScheduler::may_queue`] answers `Must` to the owner of a queue that is waiting for a request, every
//!   time it is asked (the source: once per slice, `must_alloc_slice`; and only for the synchronous
//!   direction, which the question here does not carry). The source's allocation-failure paths
//!   (`must_alloc`, `rq_starved`) and the unused `queued` tunable are left out.

use super::queue::{MergeRules, SchedCore};
use super::{Decision, Dispatch, IoRequest, IoScheduler, MayQueue, MAX_REQUEST_SECTORS_DEFAULT};
use pagelab_core::hash::KeyMap;
use pagelab_core::spec::Spec;
use pagelab_core::{CoreError, Nanos, StreamId};
use std::collections::VecDeque;

/// The request-queue class of the shared asynchronous queue; synchronous queues get the others.
const ASYNC: usize = 0;
/// Every owner's I/O priority (best effort, level 4: `IOPRIO_NORM`).
const IOPRIO: u64 = 4;
/// Priority levels of the best-effort class (`IOPRIO_BE_NR`).
const PRIO_LISTS: u64 = 8;
/// `CFQ_SLICE_SCALE`.
const SLICE_SCALE: u64 = 5;
/// A statistic counts once its decayed sample weight exceeds this (`sample_valid()`).
const SAMPLES_VALID: u64 = 80;
/// An owner whose mean seek distance exceeds this many sectors is seeky (`CIC_SEEKY`).
const SEEKY_SECTORS: u64 = 128 * 1024;
/// A seeky owner is idled for at most this long.
const SEEKY_IDLE: Nanos = Nanos::from_ms(2);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfqParams {
    /// Requests moved to the dispatch list from one queue per dispatch round.
    pub quantum: u32,
    /// A synchronous request waiting this long is served first (at most one per slice).
    pub fifo_expire_sync: Nanos,
    pub fifo_expire_async: Nanos,
    /// Longest backward seek the elevator takes, in KiB (the sysfs unit).
    pub back_seek_max: u64,
    /// A backward seek costs this many times a forward one of the same distance.
    pub back_seek_penalty: u64,
    /// Slice of a synchronous queue (at the default priority).
    pub slice_sync: Nanos,
    /// Slice of the asynchronous queue.
    pub slice_async: Nanos,
    /// Base of the asynchronous queue's request limit per slice (16 at the default priority).
    pub slice_async_rq: u32,
    /// Longest deliberate idle for the active synchronous queue; 0 turns idling off.
    pub slice_idle: Nanos,
    /// Largest merged request, in 512-byte sectors.
    pub max_request_sectors: u32,
}

impl Default for CfqParams {
    /// 2.6.18's defaults at HZ = 1000.
    fn default() -> Self {
        CfqParams {
            quantum: 4,
            fifo_expire_sync: Nanos::from_ms(125),
            fifo_expire_async: Nanos::from_ms(250),
            back_seek_max: 16 * 1024,
            back_seek_penalty: 2,
            slice_sync: Nanos::from_ms(100),
            slice_async: Nanos::from_ms(40),
            slice_async_rq: 2,
            slice_idle: Nanos::from_ms(8),
            max_request_sectors: MAX_REQUEST_SECTORS_DEFAULT,
        }
    }
}

impl CfqParams {
    pub const KEYS: [&'static str; 10] = [
        "quantum",
        "fifo_expire_sync",
        "fifo_expire_async",
        "back_seek_max",
        "back_seek_penalty",
        "slice_sync",
        "slice_async",
        "slice_async_rq",
        "slice_idle",
        "max_request_sectors",
    ];

    pub(super) fn from_spec(spec: &Spec) -> Result<CfqParams, CoreError> {
        let d = CfqParams::default();
        let dur = |key: &str, default: Nanos| spec.duration_ns(key, default.0).map(Nanos);
        let p = CfqParams {
            quantum: super::count_u32(spec, "quantum", d.quantum)?,
            fifo_expire_sync: dur("fifo_expire_sync", d.fifo_expire_sync)?,
            fifo_expire_async: dur("fifo_expire_async", d.fifo_expire_async)?,
            back_seek_max: spec.u64("back_seek_max", d.back_seek_max)?,
            back_seek_penalty: spec.u64("back_seek_penalty", d.back_seek_penalty)?,
            slice_sync: dur("slice_sync", d.slice_sync)?,
            slice_async: dur("slice_async", d.slice_async)?,
            slice_async_rq: super::count_u32(spec, "slice_async_rq", d.slice_async_rq)?,
            slice_idle: dur("slice_idle", d.slice_idle)?,
            max_request_sectors: super::max_request_sectors(spec)?,
        };
        spec.finish(&Self::KEYS)?;
        // The sysfs store functions' lower bounds (a slice or expiry of 0 jiffies would never end).
        let at_least_one = [
            ("quantum", p.quantum as u64),
            ("back_seek_penalty", p.back_seek_penalty),
            ("slice_async_rq", p.slice_async_rq as u64),
            ("fifo_expire_sync", p.fifo_expire_sync.0),
            ("fifo_expire_async", p.fifo_expire_async.0),
            ("slice_sync", p.slice_sync.0),
            ("slice_async", p.slice_async.0),
        ];
        for (key, v) in at_least_one {
            if v == 0 {
                return Err(CoreError::InvalidParameter {
                    what: "specification",
                    why: format!("`{}`: {key}=0: expected more than 0", spec.text()),
                });
            }
        }
        // Keep the fixed-point arithmetic (× 256, × penalty) far from overflow.
        let bounded = [
            ("back_seek_max", p.back_seek_max, 1u64 << 40),
            ("back_seek_penalty", p.back_seek_penalty, 1 << 20),
            ("slice_idle", p.slice_idle.0, 1 << 40),
        ];
        for (key, v, max) in bounded {
            if v > max {
                return Err(CoreError::InvalidParameter {
                    what: "specification",
                    why: format!("`{}`: {key}={v}: expected at most {max}", spec.text()),
                });
            }
        }
        Ok(p)
    }

    pub(super) fn non_default(&self) -> Vec<String> {
        let d = CfqParams::default();
        let mut out = Vec::new();
        let dur = super::format_duration;
        let num = |v: u64| v.to_string();
        super::param_if(&mut out, "quantum", self.quantum as u64, d.quantum as u64, num);
        super::param_if(&mut out, "fifo_expire_sync", self.fifo_expire_sync, d.fifo_expire_sync, dur);
        super::param_if(&mut out, "fifo_expire_async", self.fifo_expire_async, d.fifo_expire_async, dur);
        super::param_if(&mut out, "back_seek_max", self.back_seek_max, d.back_seek_max, num);
        super::param_if(&mut out, "back_seek_penalty", self.back_seek_penalty, d.back_seek_penalty, num);
        super::param_if(&mut out, "slice_sync", self.slice_sync, d.slice_sync, dur);
        super::param_if(&mut out, "slice_async", self.slice_async, d.slice_async, dur);
        super::param_if(&mut out, "slice_async_rq", self.slice_async_rq as u64, d.slice_async_rq as u64, num);
        super::param_if(&mut out, "slice_idle", self.slice_idle, d.slice_idle, dur);
        super::param_if(
            &mut out,
            "max_request_sectors",
            self.max_request_sectors as u64,
            d.max_request_sectors as u64,
            num,
        );
        out
    }
}

/// One CFQ queue (`struct cfq_queue`).
#[derive(Clone, Debug)]
struct CfqQueue {
    /// The owner of a synchronous queue; `None` for the shared asynchronous one.
    owner: Option<StreamId>,
    /// On one of the round-robin lists: it has requests queued (`on_rr`).
    on_rr: bool,
    /// Requests on the dispatch list or in the device (`on_dispatch`).
    dispatched: u32,
    /// When its slice ends; `None` until its first dispatch round of the slice (the source's 0).
    slice_end: Option<Nanos>,
    /// What was left of its last slice when it was expired early.
    slice_left: Nanos,
    /// When it was last served (`None`: never, the source's 0).
    service_last: Option<Nanos>,
    idle_window: bool,
    /// The FIFO produced an expired request this slice (`fifo_expire`).
    fifo_expired: bool,
    /// Do not expire it at the next selection (`must_dispatch`).
    must_dispatch: bool,
    /// The disk idles for its next request (`wait_request`).
    wait_request: bool,
}

impl CfqQueue {
    fn new(owner: Option<StreamId>, slice_idle: Nanos) -> CfqQueue {
        CfqQueue {
            owner,
            on_rr: false,
            dispatched: 0,
            slice_end: None,
            // "set ->slice_left to allow preemption for a new process" (`cfq_get_queue()`).
            slice_left: Nanos(2 * slice_idle.0),
            service_last: None,
            idle_window: true,
            fifo_expired: false,
            must_dispatch: false,
            wait_request: false,
        }
    }

    fn sync(&self) -> bool {
        self.owner.is_some()
    }
}

/// An owner's I/O context statistics (`struct cfq_io_context`).
#[derive(Clone, Debug)]
struct Owner {
    /// It has had an asynchronous request (its `cfqq[ASYNC]` is set).
    wrote: bool,
    last_end_request: Nanos,
    last_request_pos: u64,
    ttime_samples: u64,
    ttime_total: u64,
    /// Mean think time, ns.
    ttime_mean: u64,
    seek_samples: u64,
    seek_total: u64,
    /// Mean seek distance, sectors.
    seek_mean: u64,
}

impl Owner {
    fn new(now: Nanos) -> Owner {
        Owner {
            wrote: false,
            last_end_request: now,
            last_request_pos: 0,
            ttime_samples: 0,
            ttime_total: 0,
            ttime_mean: 0,
            seek_samples: 0,
            seek_total: 0,
            seek_mean: 0,
        }
    }

    /// `cfq_update_io_thinktime()`: from the completion of its last synchronous request, capped.
    fn sample_think_time(&mut self, now: Nanos, slice_idle: Nanos) {
        let ttime = now.saturating_sub(self.last_end_request).0.min(2 * slice_idle.0);
        self.ttime_samples = (7 * self.ttime_samples + 256) / 8;
        self.ttime_total = (7 * self.ttime_total + 256 * ttime) / 8;
        self.ttime_mean = (self.ttime_total + 128) / self.ttime_samples;
    }

    /// `cfq_update_io_seektime()`: from the end of its last request, outliers capped.
    fn sample_seek(&mut self, sector: u64) {
        let slack = if self.seek_samples <= 60 { 2 * 1024 * 1024 } else { 2 * 1024 * 64 };
        let sdist = sector.abs_diff(self.last_request_pos).min(self.seek_mean.saturating_mul(4) + slack);
        self.seek_samples = (7 * self.seek_samples + 256) / 8;
        self.seek_total = (7 * self.seek_total + 256 * sdist) / 8;
        self.seek_mean = (self.seek_total + self.seek_samples / 2) / self.seek_samples;
    }

    fn seeky(&self) -> bool {
        self.seek_samples > SAMPLES_VALID && self.seek_mean > SEEKY_SECTORS
    }
}

/// Which round-robin list a queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RrList {
    Rr,
    Cur,
    Busy,
}

pub struct Cfq {
    p: CfqParams,
    core: SchedCore,
    /// By request-queue class; `None` for a free class.
    queues: Vec<Option<CfqQueue>>,
    free_classes: Vec<usize>,
    sync_queues: KeyMap<StreamId, usize>,
    /// Live owners (an exited one is forgotten until it submits again).
    owners: KeyMap<StreamId, Owner>,
    rr_list: VecDeque<usize>,
    cur_rr: VecDeque<usize>,
    busy_rr: VecDeque<usize>,
    /// Queues on the round-robin lists (`busy_queues`).
    busy_queues: usize,
    active: Option<usize>,
    /// Owner of the first request dispatched in the active slice (`active_cic`).
    active_owner: Option<StreamId>,
    /// Requests dispatched in the active slice.
    dispatch_slice: u32,
    /// End of the last request put on the dispatch list.
    last_sector: u64,
    /// The idle slice timer, if pending.
    timer: Option<Nanos>,
    /// Dispatched to the block layer, not yet handed to the device.
    dispatch_list: VecDeque<Dispatch>,
    now: Nanos,
}

impl Cfq {
    pub fn new(p: CfqParams) -> Cfq {
        let rules = MergeRules { front: true, coalesce: true, max_sectors: p.max_request_sectors };
        Cfq {
            p,
            core: SchedCore::new(rules),
            queues: vec![Some(CfqQueue::new(None, p.slice_idle)), None],
            free_classes: vec![1],
            sync_queues: KeyMap::default(),
            owners: KeyMap::default(),
            rr_list: VecDeque::new(),
            cur_rr: VecDeque::new(),
            busy_rr: VecDeque::new(),
            busy_queues: 0,
            active: None,
            active_owner: None,
            dispatch_slice: 0,
            last_sector: 0,
            timer: None,
            dispatch_list: VecDeque::new(),
            now: Nanos::ZERO,
        }
    }

    fn q(&self, q: usize) -> &CfqQueue {
        self.queues[q].as_ref().expect("a freed CFQ queue")
    }

    fn q_mut(&mut self, q: usize) -> &mut CfqQueue {
        self.queues[q].as_mut().expect("a freed CFQ queue")
    }

    fn has_requests(&self, q: usize) -> bool {
        !self.core.queue.is_empty(q)
    }

    /// `cfq_prio_to_slice()`.
    fn slice(&self, q: usize) -> Nanos {
        let base = if self.q(q).sync() { self.p.slice_sync } else { self.p.slice_async }.0;
        Nanos(base + base / SLICE_SCALE * (4 - IOPRIO))
    }

    /// `cfq_prio_to_maxrq()`.
    fn max_requests(&self) -> u32 {
        let base = self.p.slice_async_rq as u64;
        (2 * (base + base * (PRIO_LISTS - 1 - IOPRIO))).min(u32::MAX as u64) as u32
    }

    /// The synchronous queue of `owner`, made if needed.
    fn sync_queue(&mut self, owner: StreamId) -> usize {
        if let Some(&q) = self.sync_queues.get(&owner) {
            return q;
        }
        let q = match self.free_classes.pop() {
            Some(q) => q,
            None => {
                let q = self.core.queue.add_class();
                self.queues.push(None);
                q
            }
        };
        self.queues[q] = Some(CfqQueue::new(Some(owner), self.p.slice_idle));
        self.sync_queues.insert(owner, q);
        q
    }

    /// Forget an exited owner's synchronous queue once nothing refers to it (`cfq_put_queue()`).
    fn maybe_free(&mut self, q: usize) {
        let cq = self.q(q);
        let Some(owner) = cq.owner else { return };
        if self.owners.contains_key(&owner)
            || cq.on_rr
            || cq.dispatched > 0
            || self.active == Some(q)
            || self.has_requests(q)
        {
            return;
        }
        self.sync_queues.remove(&owner);
        self.queues[q] = None;
        self.free_classes.push(q);
    }

    fn list_mut(&mut self, which: RrList) -> &mut VecDeque<usize> {
        match which {
            RrList::Rr => &mut self.rr_list,
            RrList::Cur => &mut self.cur_rr,
            RrList::Busy => &mut self.busy_rr,
        }
    }

    fn unlist(&mut self, q: usize) {
        for which in [RrList::Rr, RrList::Cur, RrList::Busy] {
            let list = self.list_mut(which);
            if let Some(i) = list.iter().position(|&x| x == q) {
                list.remove(i);
                return;
            }
        }
    }

    /// `cfq_resort_rr_list()`: a queue with requests in flight goes to the back of `busy_rr`; any other to
    /// `rr_list`, after the queues served before it. A preempted queue goes in just before the list's
    /// last entry (the source means the front; `list_add_tail(…, list->prev)` puts it there).
    fn resort(&mut self, q: usize, preempted: bool) {
        self.unlist(q);
        let busy = self.q(q).dispatched > 0;
        let service_last = self.q(q).service_last;
        let which = if busy { RrList::Busy } else { RrList::Rr };
        if preempted || busy {
            let list = self.list_mut(which);
            if preempted && !list.is_empty() {
                list.insert(list.len() - 1, q);
            } else {
                list.push_back(q);
            }
            return;
        }
        let mut i = self.rr_list.len();
        while i > 0 {
            let e = self.q(self.rr_list[i - 1]).service_last;
            if e.is_none() || e < service_last {
                break;
            }
            i -= 1;
        }
        self.rr_list.insert(i, q);
    }

    /// `cfq_add_cfqq_rr()`.
    fn add_rr(&mut self, q: usize) {
        self.q_mut(q).on_rr = true;
        self.busy_queues += 1;
        self.resort(q, false);
    }

    /// `cfq_del_cfqq_rr()`.
    fn del_rr(&mut self, q: usize) {
        self.q_mut(q).on_rr = false;
        self.unlist(q);
        self.busy_queues -= 1;
    }

    /// `__cfq_set_active_queue()`.
    fn activate(&mut self, q: Option<usize>) {
        if let Some(q) = q {
            let cq = self.q_mut(q);
            cq.slice_end = None;
            cq.slice_left = Nanos::ZERO;
            cq.fifo_expired = false;
        }
        self.active = q;
    }

    /// `cfq_set_active_queue()`: the first of the current round (starting a new round if it is over),
    /// else the first of the queues that were busy.
    fn set_active_queue(&mut self) -> Option<usize> {
        if self.cur_rr.is_empty() {
            let next_round: Vec<usize> = self.rr_list.drain(..).collect();
            self.cur_rr.extend(next_round);
        }
        let q = self.cur_rr.front().or(self.busy_rr.front()).copied();
        self.activate(q);
        q
    }

    /// `__cfq_slice_expired()` of the active queue.
    fn slice_expired(&mut self, now: Nanos, preempted: bool) {
        let Some(q) = self.active else { return };
        let cq = self.q_mut(q);
        if cq.wait_request {
            self.timer = None;
        }
        let cq = self.q_mut(q);
        if !preempted && cq.dispatched == 0 {
            cq.service_last = Some(now);
        }
        cq.must_dispatch = false;
        cq.wait_request = false;
        cq.slice_left = match cq.slice_end {
            Some(end) if end > now => end - now,
            _ => Nanos::ZERO,
        };
        if cq.on_rr {
            self.resort(q, preempted);
        }
        self.active = None;
        self.active_owner = None;
        self.dispatch_slice = 0;
    }

    /// `cfq_arm_slice_timer()`: idle for the active queue's next request? Arms the timer if so.
    fn arm_slice_timer(&mut self, now: Nanos) -> bool {
        let Some(q) = self.active else { return false };
        if self.p.slice_idle == Nanos::ZERO || !self.q(q).idle_window {
            return false;
        }
        let Some(owner) = self.active_owner.and_then(|o| self.owners.get(&o)) else { return false };
        // The source takes min(slice_end - 1, slice_idle), an absolute time against a length: in effect
        // always slice_idle.
        let mut sl = self.p.slice_idle;
        if owner.seeky() {
            sl = sl.min(SEEKY_IDLE);
        }
        let cq = self.q_mut(q);
        cq.must_dispatch = true;
        cq.wait_request = true;
        self.timer = Some(now + sl);
        true
    }

    /// `cfq_idle_slice_timer()`, run at `at`, when it was due.
    fn fire_timer(&mut self, at: Nanos) {
        self.timer = None;
        if let Some(q) = self.active {
            let cq = self.q(q);
            if !after(at, cq.slice_end) {
                if self.busy_queues == 0 {
                    // Nothing else to do: stay active and idle.
                    return;
                }
                if self.has_requests(q) {
                    self.q_mut(q).must_dispatch = true;
                    return;
                }
            }
        }
        self.slice_expired(at, false);
    }

    /// Advance the clock, firing the idle timer if it fell due.
    fn tick(&mut self, now: Nanos) {
        self.core.tick(now);
        self.now = now;
        if let Some(t) = self.timer.filter(|&t| t <= now) {
            self.fire_timer(t);
        }
    }

    /// `cfq_choose_req()`: which of two queued requests to serve after `last_sector`.
    fn choose(&self, a: Option<u32>, b: Option<u32>) -> Option<u32> {
        let (a, b) = match (a, b) {
            (Some(a), Some(b)) if a != b => (a, b),
            (a, b) => return a.or(b),
        };
        let (s1, s2) = (self.core.queue.get(a).disk.sector, self.core.queue.get(b).disk.sector);
        let last = self.last_sector;
        let back_max = self.p.back_seek_max * 2;
        let dist = |s: u64| {
            if s >= last {
                Some(s - last)
            } else if s + back_max >= last {
                Some((last - s) * self.p.back_seek_penalty)
            } else {
                None
            }
        };
        let pick_a = match (dist(s1), dist(s2)) {
            (Some(d1), Some(d2)) => d1 < d2 || (d1 == d2 && s1 >= s2),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            // Both behind beyond the limit: the farther back first (one backward seek).
            (None, None) => s1 <= s2,
        };
        Some(if pick_a { a } else { b })
    }

    /// The queue's next request by the sort order (`cfq_find_next_crq()`, recomputed).
    fn next_request(&self, q: usize) -> Option<u32> {
        let queue = &self.core.queue;
        let ahead = queue.at_or_after(q, self.last_sector).or_else(|| queue.lowest(q));
        let behind = queue.before(q, self.last_sector);
        self.choose(ahead, behind)
    }

    /// `cfq_check_fifo()`: the oldest request if it has expired and the FIFO has not yet produced one this
    /// slice.
    fn check_fifo(&mut self, q: usize, now: Nanos) -> Option<u32> {
        if self.q(q).fifo_expired {
            return None;
        }
        let s = self.core.queue.oldest(q)?;
        if now > self.core.queue.get(s).expires {
            self.q_mut(q).fifo_expired = true;
            return Some(s);
        }
        None
    }

    /// `cfq_dispatch_insert()`.
    fn dispatch_insert(&mut self, q: usize, s: u32) {
        let d = self.core.dispatch(s);
        self.last_sector = d.disk.end();
        self.q_mut(q).dispatched += 1;
        if !self.has_requests(q) && self.q(q).on_rr {
            self.del_rr(q);
        }
        self.dispatch_list.push_back(d);
    }

    /// `__cfq_dispatch_requests()`: up to `max` requests of `q` onto the dispatch list.
    fn dispatch_from(&mut self, q: usize, max: u32, now: Nanos) {
        let mut dispatched = 0;
        loop {
            let s = match self.check_fifo(q, now) {
                Some(s) => s,
                None => self.next_request(q).expect("dispatching from an empty CFQ queue"),
            };
            if self.active_owner.is_none() {
                self.active_owner = Some(self.core.queue.get(s).owner);
            }
            self.dispatch_insert(q, s);
            self.dispatch_slice += 1;
            dispatched += 1;
            if !self.has_requests(q) || dispatched >= max {
                break;
            }
        }
        let slice = self.slice(q);
        let cq = self.q_mut(q);
        if cq.slice_end.is_none() {
            cq.slice_end = Some(now + slice);
        }
        let (sync, idle_window) = (cq.sync(), cq.idle_window);
        if (!sync && self.dispatch_slice >= self.max_requests()) || !idle_window {
            self.slice_expired(now, false);
        }
    }

    /// `cfq_select_queue()`: the queue to dispatch from, or `None` (wait for the active queue).
    fn select_queue(&mut self, now: Nanos) -> Option<usize> {
        if let Some(q) = self.active {
            let cq = self.q(q);
            let over = !cq.must_dispatch && after(now, cq.slice_end);
            if !over {
                if self.has_requests(q) {
                    return Some(q);
                }
                if cq.dispatched > 0 {
                    return None;
                }
                if cq.sync() && self.arm_slice_timer(now) {
                    return None;
                }
            }
            self.slice_expired(now, false);
        }
        self.set_active_queue()
    }

    /// `cfq_dispatch_requests()` (not forced).
    fn dispatch_round(&mut self, now: Nanos) {
        if self.busy_queues == 0 {
            return;
        }
        let mut prev = None;
        while let Some(q) = self.select_queue(now) {
            if prev == Some(q) {
                break;
            }
            let cq = self.q_mut(q);
            cq.must_dispatch = false;
            cq.wait_request = false;
            self.timer = None;
            self.dispatch_from(q, self.p.quantum, now);
            if self.q(q).idle_window && self.active.is_some() {
                break;
            }
            prev = Some(q);
        }
    }

    /// `cfq_should_preempt()` for a synchronous request of queue `q`, which is not the active one.
    fn should_preempt(&self, q: usize) -> bool {
        let Some(a) = self.active else { return false };
        let new = self.q(q);
        if !new.wait_request || new.slice_left < self.p.slice_idle {
            return false;
        }
        !self.q(a).sync()
    }

    /// `cfq_preempt_queue()`.
    fn preempt(&mut self, now: Nanos, q: usize) {
        let round: Vec<usize> = self.cur_rr.iter().copied().collect();
        for x in round {
            self.resort(x, true);
        }
        if self.q(q).slice_left == Nanos::ZERO {
            self.q_mut(q).slice_left = Nanos(self.slice(q).0 / 2);
        }
        let cq = self.q_mut(q);
        cq.slice_end = Some(now + cq.slice_left);
        self.slice_expired(now, true);
        // `__cfq_set_active_queue()` then clears the slice just given: the source's order.
        self.activate(Some(q));
    }

    /// `cfq_crq_enqueued()`: a new (unmerged) request of `req.owner` joined queue `q`.
    fn enqueued(&mut self, now: Nanos, q: usize, req: &IoRequest) {
        if !self.q(q).sync() {
            // A write of the owner the disk idles for ends that owner's slice.
            if self.active_owner == Some(req.owner) && self.timer.take().is_some() {
                self.slice_expired(now, false);
            }
            return;
        }
        let (slice_idle, hw_tag) = (self.p.slice_idle, false);
        let owner = self.owners.get_mut(&req.owner).expect("an unknown owner's request");
        owner.sample_think_time(now, slice_idle);
        owner.sample_seek(req.sector);
        let mut enable = self.queues[q].as_ref().expect("a freed CFQ queue").idle_window;
        if slice_idle == Nanos::ZERO || (hw_tag && owner.seeky()) {
            enable = false;
        } else if owner.ttime_samples > SAMPLES_VALID {
            enable = owner.ttime_mean <= slice_idle.0;
        }
        owner.last_request_pos = req.end();
        self.q_mut(q).idle_window = enable;
        if self.active == Some(q) {
            if self.q(q).wait_request {
                self.q_mut(q).must_dispatch = true;
                self.timer = None;
            }
        } else if self.should_preempt(q) {
            self.preempt(now, q);
            self.q_mut(q).must_dispatch = true;
        }
    }

    fn label(&self, q: usize) -> String {
        match self.q(q).owner {
            None => "A".to_string(),
            Some(o) => o.0.to_string(),
        }
    }

    fn list_state(&self, list: &VecDeque<usize>) -> String {
        let v: Vec<String> = list.iter().map(|&q| self.label(q)).collect();
        format!("[{}]", v.join(" "))
    }
}

/// `time_after(now, slice_end)` with an unset end (0) long past.
fn after(now: Nanos, end: Option<Nanos>) -> bool {
    end.is_none_or(|end| now > end)
}

impl IoScheduler for Cfq {
    fn name(&self) -> &'static str {
        "cfq"
    }

    fn add(&mut self, now: Nanos, req: IoRequest) {
        self.tick(now);
        let sync = !req.write || req.sync;
        let owner = self.owners.entry(req.owner).or_insert_with(|| Owner::new(now));
        if !sync {
            owner.wrote = true;
        }
        let q = if sync { self.sync_queue(req.owner) } else { ASYNC };
        let merges = self.core.queue.can_merge(&req, q);
        let expire = if sync { self.p.fifo_expire_sync } else { self.p.fifo_expire_async };
        self.core.add(now, &req, q, now + expire);
        if !self.q(q).on_rr {
            self.add_rr(q);
        }
        if !merges {
            self.enqueued(now, q, &req);
        }
    }

    fn next(&mut self, now: Nanos, _head_sector: u64) -> Decision {
        self.tick(now);
        if let Some(d) = self.dispatch_list.pop_front() {
            return Decision::Dispatch(d);
        }
        if self.core.queue.parts() == 0 {
            return Decision::Idle;
        }
        self.dispatch_round(now);
        if let Some(d) = self.dispatch_list.pop_front() {
            return Decision::Dispatch(d);
        }
        let Some(until) = self.timer else {
            // `cfq_select_queue()` keeps the active queue while its dispatched requests are in flight
            // (a device that serves several at once): the next completion runs the queue again.
            assert!(
                self.active.is_some_and(|q| self.q(q).dispatched > 0),
                "CFQ neither dispatches, idles nor waits for a dispatch, with requests queued"
            );
            return Decision::AwaitCompletion;
        };
        assert!(until > now && until <= now + self.p.slice_idle, "idle until {until} at {now}");
        Decision::WaitUntil(until)
    }

    /// `cfq_completed_request()`.
    fn completed(&mut self, now: Nanos, done: &Dispatch) {
        self.tick(now);
        let done = self.core.complete(now, done);
        let q = done.class;
        self.q_mut(q).dispatched -= 1;
        if self.q(q).dispatched == 0 && self.q(q).on_rr {
            self.q_mut(q).service_last = Some(now);
            self.resort(q, false);
        }
        let sync = self.q(q).sync();
        if sync {
            if let Some(o) = self.owners.get_mut(&done.owner) {
                o.last_end_request = now;
            }
        }
        if self.active == Some(q) {
            if after(now, self.q(q).slice_end) {
                self.slice_expired(now, false);
            } else if sync && !self.has_requests(q) {
                self.arm_slice_timer(now);
            }
        }
        self.maybe_free(q);
        self.core.recycle(done);
    }

    fn recycle(&mut self, done: Dispatch) {
        self.core.recycle_dispatch(done);
    }

    /// `cfq_exit_single_io_context()`: the owner's statistics go; its queues' active slice ends.
    fn owner_exited(&mut self, owner: StreamId) {
        let Some(o) = self.owners.remove(&owner) else { return };
        let sync_q = self.sync_queues.get(&owner).copied();
        if let Some(a) = self.active {
            if Some(a) == sync_q || (o.wrote && a == ASYNC) {
                self.slice_expired(self.now, false);
            }
        }
        if let Some(q) = sync_q {
            self.maybe_free(q);
        }
    }

    fn queued(&self) -> usize {
        self.core.queue.parts() + self.dispatch_list.iter().map(|d| d.parts.len()).sum::<usize>()
    }

    fn allocated_requests(&self, write: bool) -> usize {
        self.core.allocated(write)
    }

    fn can_merge(&self, req: &IoRequest) -> bool {
        let q = if !req.write || req.sync { self.sync_queues.get(&req.owner).copied() } else { Some(ASYNC) };
        q.is_some_and(|q| self.core.queue.can_merge(req, q))
    }

    /// `cfq_may_queue()`: `Must` for the owner whose queue the disk idles for (`wait_request`).
    fn may_queue(&self, submitter: StreamId) -> MayQueue {
        match self.sync_queues.get(&submitter) {
            Some(&q) if self.q(q).wait_request => MayQueue::Must,
            _ => MayQueue::May,
        }
    }

    /// `"1:[1000+8:1] A:[5000+8:2]; active=1 end=100.000ms idle=8.000ms; cur=[1] rr=[A] busy=[]; disp=[]"`:
    /// the queues with requests (sector order), the active queue with its slice end and idle timer, the
    /// round-robin lists, and the first part of each request on the dispatch list.
    fn state(&self) -> String {
        let mut queues: Vec<(Option<u32>, String)> = self
            .queues
            .iter()
            .enumerate()
            .filter(|&(q, cq)| cq.is_some() && self.has_requests(q))
            .map(|(q, cq)| {
                let s = self.core.queue.state(q);
                let sorted = s.split(" fifo=").next().unwrap_or_default().to_string();
                (cq.as_ref().and_then(|c| c.owner).map(|o| o.0), format!("{}:{sorted}", self.label(q)))
            })
            .collect();
        queues.sort();
        let queues: Vec<String> = queues.into_iter().map(|(_, s)| s).collect();
        let active = match self.active {
            None => "-".to_string(),
            Some(q) => {
                let end = self.q(q).slice_end.map(|e| format!(" end={e}")).unwrap_or_default();
                format!("{}{end}", self.label(q))
            }
        };
        let idle = self.timer.map(|t| format!(" idle={t}")).unwrap_or_default();
        let disp: Vec<String> = self.dispatch_list.iter().map(|d| d.parts[0].to_string()).collect();
        format!(
            "{}; active={active}{idle}; cur={} rr={} busy={}; disp=[{}]",
            if queues.is_empty() { "-".to_string() } else { queues.join(" ") },
            self.list_state(&self.cur_rr),
            self.list_state(&self.rr_list),
            self.list_state(&self.busy_rr),
            disp.join(" ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testing::{by, rd, wr, Bench};

    const P: u32 = 1;
    const Q: u32 = 2;

    fn cfq(p: CfqParams) -> Bench<Cfq> {
        Bench::new(Cfq::new(p))
    }

    #[test]
    fn the_active_reader_keeps_its_slice_then_the_other_gets_its_turn() {
        // 10 ms slices keep the trace short. P streams from 1000 thinking 0.5 ms; Q waits at 500000.
        let mut b = cfq(CfqParams { slice_sync: Nanos::from_ms(10), ..CfqParams::default() });
        b.add(0, by(P, rd(1, 1_000, 8)), "1:[1000+8:1]; active=-; cur=[] rr=[1] busy=[]; disp=[]");
        b.add(
            0,
            by(Q, rd(2, 500_000, 8)),
            "1:[1000+8:1] 2:[500000+8:2]; active=-; cur=[] rr=[1 2] busy=[]; disp=[]",
        );
        // A new round: P's queue is first; its slice starts with its first dispatch.
        b.next(0, "R 1000+8 [1]", "2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[] busy=[]; disp=[]");
        // P's read completes and its queue is empty: idle up to slice_idle for P's next read.
        b.complete(
            1_000,
            "2:[500000+8:2]; active=1 end=10.000ms idle=9.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.next(
            1_000,
            "wait 9.000ms",
            "2:[500000+8:2]; active=1 end=10.000ms idle=9.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        // P's read ends the wait and goes at once; Q keeps waiting for P's slice to end.
        b.add(
            1_500,
            by(P, rd(3, 1_008, 8)),
            "1:[1008+8:3] 2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[1] busy=[]; disp=[]",
        );
        b.next(
            1_500,
            "R 1008+8 [3]",
            "2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.complete(
            2_500,
            "2:[500000+8:2]; active=1 end=10.000ms idle=10.500ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.next(
            2_500,
            "wait 10.500ms",
            "2:[500000+8:2]; active=1 end=10.000ms idle=10.500ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.add(
            3_000,
            by(P, rd(4, 1_016, 8)),
            "1:[1016+8:4] 2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[1] busy=[]; disp=[]",
        );
        b.next(
            3_000,
            "R 1016+8 [4]",
            "2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.complete(
            4_000,
            "2:[500000+8:2]; active=1 end=10.000ms idle=12.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.next(
            4_000,
            "wait 12.000ms",
            "2:[500000+8:2]; active=1 end=10.000ms idle=12.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        b.add(
            4_500,
            by(P, rd(5, 1_024, 8)),
            "1:[1024+8:5] 2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[1] busy=[]; disp=[]",
        );
        b.next(
            4_500,
            "R 1024+8 [5]",
            "2:[500000+8:2]; active=1 end=10.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        // It completes after the slice's end: P's slice is over, Q is next in the round.
        b.complete(10_500, "2:[500000+8:2]; active=-; cur=[2] rr=[] busy=[]; disp=[]");
        b.next(10_500, "R 500000+8 [2]", "-; active=2 end=20.500ms; cur=[] rr=[] busy=[]; disp=[]");
        // P's next read waits for the next round, and Q (no statistics yet) is idled for in its turn.
        b.add(
            11_000,
            by(P, rd(6, 1_032, 8)),
            "1:[1032+8:6]; active=2 end=20.500ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.complete(
            11_500,
            "1:[1032+8:6]; active=2 end=20.500ms idle=19.500ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.next(
            11_500,
            "wait 19.500ms",
            "1:[1032+8:6]; active=2 end=20.500ms idle=19.500ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        // Q does not come back: its slice ends with the idle, and the round robin returns to P.
        b.next(19_500, "R 1032+8 [6]", "-; active=1 end=29.500ms; cur=[] rr=[] busy=[]; disp=[]");
    }

    #[test]
    fn a_reader_that_thinks_longer_than_slice_idle_loses_its_idle_window() {
        let mut b = cfq(CfqParams::default());
        b.add(0, by(P, rd(1, 1_000, 8)), "1:[1000+8:1]; active=-; cur=[] rr=[1] busy=[]; disp=[]");
        b.next(0, "R 1000+8 [1]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.complete(1_000, "-; active=1 end=100.000ms idle=9.000ms; cur=[] rr=[] busy=[]; disp=[]");
        // Nothing else is queued: the timer runs out with the queue still active and idle.
        b.next(1_000, "idle", "-; active=1 end=100.000ms idle=9.000ms; cur=[] rr=[] busy=[]; disp=[]");
        // P thinks 20 ms each time (sampled as 16 ms, the cap of 2 × slice_idle).
        b.add(
            21_000,
            by(P, rd(2, 1_008, 8)),
            "1:[1008+8:2]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.next(21_000, "R 1008+8 [2]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.complete(22_000, "-; active=1 end=100.000ms idle=30.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.next(22_000, "idle", "-; active=1 end=100.000ms idle=30.000ms; cur=[] rr=[] busy=[]; disp=[]");
        // The third sample makes the think time count: 11.4 ms mean > 8 ms, the window closes, and a
        // queue without one ends its slice after its dispatch round.
        b.add(
            42_000,
            by(P, rd(3, 1_016, 8)),
            "1:[1016+8:3]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.next(42_000, "R 1016+8 [3]", "-; active=-; cur=[] rr=[] busy=[]; disp=[]");
        b.add(42_500, by(Q, rd(4, 500_000, 8)), "2:[500000+8:4]; active=-; cur=[] rr=[2] busy=[]; disp=[]");
        // No idling for P: Q's far read goes as soon as the disk is free.
        b.complete(43_000, "2:[500000+8:4]; active=-; cur=[] rr=[2] busy=[]; disp=[]");
        b.next(43_000, "R 500000+8 [4]", "-; active=2 end=143.000ms; cur=[] rr=[] busy=[]; disp=[]");
    }

    #[test]
    fn a_seeky_reader_is_idled_for_only_two_milliseconds() {
        let mut b = cfq(CfqParams::default());
        // P jumps between 2000000 and 200000: mean seek ≈ 1.87 Mi sectors > 128 Ki after three samples.
        b.add(0, by(P, rd(1, 2_000_000, 8)), "1:[2000000+8:1]; active=-; cur=[] rr=[1] busy=[]; disp=[]");
        b.next(0, "R 2000000+8 [1]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.complete(1_000, "-; active=1 end=100.000ms idle=9.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.add(
            1_200,
            by(P, rd(2, 200_000, 8)),
            "1:[200000+8:2]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.next(1_200, "R 200000+8 [2]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.complete(2_200, "-; active=1 end=100.000ms idle=10.200ms; cur=[] rr=[] busy=[]; disp=[]");
        b.add(
            2_400,
            by(P, rd(3, 2_000_000, 8)),
            "1:[2000000+8:3]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.next(2_400, "R 2000000+8 [3]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
        b.add(
            2_500,
            by(Q, rd(4, 500_000, 8)),
            "2:[500000+8:4]; active=1 end=100.000ms; cur=[] rr=[2] busy=[]; disp=[]",
        );
        // Short think time keeps the window open; seekiness (without command queueing) only shortens it.
        b.complete(
            3_400,
            "2:[500000+8:4]; active=1 end=100.000ms idle=5.400ms; cur=[] rr=[2] busy=[]; disp=[]",
        );
        b.next(
            3_400,
            "wait 5.400ms",
            "2:[500000+8:4]; active=1 end=100.000ms idle=5.400ms; cur=[] rr=[2] busy=[]; disp=[]",
        );
        b.next(5_400, "R 500000+8 [4]", "-; active=2 end=105.400ms; cur=[] rr=[] busy=[]; disp=[]");
    }

    #[test]
    fn an_expired_request_is_served_from_the_fifo() {
        // One request per round and a 10 ms FIFO expiry keep the trace short.
        let p = CfqParams { quantum: 1, fifo_expire_sync: Nanos::from_ms(10), ..CfqParams::default() };
        let mut b = cfq(p);
        b.add(0, by(P, rd(1, 500_000, 8)), "1:[500000+8:1]; active=-; cur=[] rr=[1] busy=[]; disp=[]");
        b.next(0, "R 500000+8 [1]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
        // A read far behind the head (beyond back_seek_max) and one just ahead; P's queue, with a request
        // in flight, goes on busy_rr, and back to rr_list when it completes.
        b.add(
            500,
            by(P, rd(2, 100, 8)),
            "1:[100+8:2]; active=1 end=100.000ms; cur=[] rr=[] busy=[1]; disp=[]",
        );
        b.add(
            500,
            by(P, rd(3, 500_008, 8)),
            "1:[100+8:2 500008+8:3]; active=1 end=100.000ms; cur=[] rr=[] busy=[1]; disp=[]",
        );
        b.complete(1_000, "1:[100+8:2 500008+8:3]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]");
        // The sort order goes on forward.
        b.next(
            1_000,
            "R 500008+8 [3]",
            "1:[100+8:2]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.add(
            1_500,
            by(P, rd(4, 500_016, 8)),
            "1:[100+8:2 500016+8:4]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.complete(6_000, "1:[100+8:2 500016+8:4]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]");
        b.next(
            6_000,
            "R 500016+8 [4]",
            "1:[100+8:2]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.add(
            6_500,
            by(P, rd(5, 500_024, 8)),
            "1:[100+8:2 500024+8:5]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.complete(11_000, "1:[100+8:2 500024+8:5]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]");
        // Read 2 has waited 10.5 ms > 10 ms: the FIFO serves it before the request ahead.
        b.next(
            11_000,
            "R 100+8 [2]",
            "1:[500024+8:5]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]",
        );
        b.complete(12_000, "1:[500024+8:5]; active=1 end=100.000ms; cur=[] rr=[1] busy=[]; disp=[]");
        b.next(12_000, "R 500024+8 [5]", "-; active=1 end=100.000ms; cur=[] rr=[] busy=[]; disp=[]");
    }

    /// A device of two channels asks for a second request while P's one read is in flight and P's queue
    /// is empty: CFQ keeps P's queue (it does not switch queues under a dispatch, nor idle: a timer is
    /// armed only once the queue has nothing in flight) and Q's read waits for the completion. Then P's
    /// queue idles for P's next read, and Q is served when that window closes.
    #[test]
    fn a_second_channel_waits_for_the_active_queue_s_dispatch() {
        let mut s = Cfq::new(CfqParams::default());
        s.add(Nanos::ZERO, by(P, rd(1, 1_000, 8)));
        s.add(Nanos::ZERO, by(Q, rd(2, 500_000, 8)));
        let Decision::Dispatch(first) = s.next(Nanos::ZERO, 0) else { panic!("nothing dispatched") };
        assert_eq!(first.parts, [1]);
        assert_eq!(s.next(Nanos::ZERO, 0), Decision::AwaitCompletion);
        assert_eq!(s.next(Nanos::from_us(10), 0), Decision::AwaitCompletion, "a second ask changes nothing");
        let done = Nanos::from_ms(1);
        s.completed(done, &first);
        let idle_end = done + CfqParams::default().slice_idle;
        assert_eq!(s.next(done, 0), Decision::WaitUntil(idle_end), "P's queue idles for P");
        let Decision::Dispatch(second) = s.next(idle_end + Nanos(1), 0) else { panic!("Q not served") };
        assert_eq!(second.parts, [2]);
    }

    /// Serves whatever is dispatched, 1 ms per request, until the read `read_id` goes; returns the
    /// dispatch order and when the read went.
    fn serve_until(s: &mut Cfq, mut now: Nanos, read_id: u64) -> (Vec<u64>, Nanos) {
        let mut order = Vec::new();
        loop {
            match s.next(now, 0) {
                Decision::Dispatch(d) => {
                    order.push(d.parts[0]);
                    if d.parts[0] == read_id {
                        return (order, now);
                    }
                    now += Nanos::from_ms(1);
                    s.completed(now, &d);
                }
                other => panic!("at {now}: {other:?} while writes are queued"),
            }
        }
    }

    #[test]
    fn a_write_stream_holds_reads_off_for_at_most_its_async_slice() {
        // 20 scattered write-back writes from W, then P's read 0.5 ms later.
        const W: u32 = 3;
        let mut s = Cfq::new(CfqParams::default());
        for i in 0..20 {
            s.add(Nanos::ZERO, by(W, wr(i + 1, 100_000 + i * 1_000, 8)));
        }
        let Decision::Dispatch(first) = s.next(Nanos::ZERO, 0) else { panic!("no write dispatched") };
        assert_eq!(first.parts, [1]);
        assert_eq!(s.state().split("; ").nth(3).unwrap(), "disp=[2 3 4]", "a round moves quantum = 4");
        let read = Nanos::from_us(500);
        s.add(read, by(P, rd(100, 5_000_000, 8)));
        // The read does not preempt the write-back queue (2.6.18's rule needs the reader's queue to be
        // waiting, which only the active queue does)...
        assert!(s.state().contains("active=A end=40.000ms"), "{}", s.state());
        let Decision::Dispatch(d) = s.next(read, 0) else { panic!() };
        assert_eq!(d.parts, [2]);
        s.completed(Nanos::from_ms(2), &d);
        // ... but the async slice ends after 2 × (2 + 2 × 3) = 16 requests, well before its 40 ms.
        let (order, at) = serve_until(&mut s, Nanos::from_ms(2), 100);
        let writes_first: Vec<u64> = (3..=16).chain([100]).collect();
        assert_eq!(order, writes_first);
        assert_eq!(at, Nanos::from_ms(16));
        // Then the writes get their next slice after P's (P thinks no more: its slice idles out).
        assert!(s.state().starts_with("A:["), "{}", s.state());
    }

    #[test]
    fn an_exiting_owner_ends_its_slice_and_is_not_idled_for() {
        let mut b = cfq(CfqParams::default());
        b.add(0, by(P, rd(1, 1_000, 8)), "1:[1000+8:1]; active=-; cur=[] rr=[1] busy=[]; disp=[]");
        b.add(
            0,
            by(Q, rd(2, 500_000, 8)),
            "1:[1000+8:1] 2:[500000+8:2]; active=-; cur=[] rr=[1 2] busy=[]; disp=[]",
        );
        b.next(0, "R 1000+8 [1]", "2:[500000+8:2]; active=1 end=100.000ms; cur=[2] rr=[] busy=[]; disp=[]");
        b.complete(
            1_000,
            "2:[500000+8:2]; active=1 end=100.000ms idle=9.000ms; cur=[2] rr=[] busy=[]; disp=[]",
        );
        assert_eq!(b.s.may_queue(StreamId(P)), MayQueue::Must);
        b.exit(P, "2:[500000+8:2]; active=-; cur=[2] rr=[] busy=[]; disp=[]");
        assert_eq!(b.s.may_queue(StreamId(P)), MayQueue::May);
        b.next(1_000, "R 500000+8 [2]", "-; active=2 end=101.000ms; cur=[] rr=[] busy=[]; disp=[]");
    }
}
