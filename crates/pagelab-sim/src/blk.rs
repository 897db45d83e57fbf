//! The request queue's allocation of requests: who may add a request to a full queue, who sleeps, and who
//! is woken when a request is freed. Linux 2.6.18's `get_request()`, `get_request_wait()`,
//! `freed_request()` / `__freed_request()`, `ioc_batching()` and `ioc_set_batching()` (block/ll_rw_blk.c;
//! 2.6.13–2.6.17 have the same rules in drivers/block/ll_rw_blk.c, 2.6.10–2.6.12 without the hard limit).
//!
//! Each direction (reads, writes) of a queue counts its allocated requests (the scheduler's
//! [`IoScheduler::allocated_requests`]: queued and dispatched, not yet completed); `nr_requests` (128 by
//! default) is the soft limit. A request that merges into a queued one allocates nothing and never waits.
//! Otherwise a submitter (an I/O context: here a handler thread, or the kernel's writeback threads) asks
//! for a request (`get_request()`):
//! 1. If this allocation fills the direction (`count + 1 ≥ nr_requests`) and the direction is not yet
//!    marked full, the submitter becomes a **batcher** (`ioc_set_batching()`) and the direction is marked
//!    full (`blk_set_queue_full()`).
//! 2. If the direction was already marked full, the submitter gets a request only if the elevator exempts
//!    it ([`MayQueue::Must`]: the anticipatory scheduler's `as_may_queue()` for the process it is
//!    anticipating, block/as-iosched.c) or it is a batcher (`ioc_batching()`): it has all of its
//!    [`BLK_BATCH_REQ`] = 32 requests left, or some left and its batch started less than
//!    [`BLK_BATCH_TIME`] = HZ/50 = 20 ms ago. A batcher's allocations at or past the soft limit use up its
//!    batch.
//! 3. **Hard limit**: nobody allocates once the direction holds 3/2 × `nr_requests` (192), batcher or not.
//!
//! A submitter refused sleeps (`get_request_wait()`: an exclusive wait, at the tail of the direction's
//! wait queue) with the rest of what it was submitting held behind. When a request of a direction is freed
//! (`freed_request()`) and the direction holds at most `nr_requests - 1` afterwards
//! (`count + 1 <= nr_requests`), the full mark is cleared and the first sleeper is woken (`wake_up()` of an
//! exclusive wait queue: one per freed request). A woken sleeper becomes a batcher (`ioc_set_batching()`
//! after `io_schedule()`) and allocates its held requests in order under the rules above; if one is
//! refused (its batch used up, the window over, or the hard limit) it sleeps again at the tail.
//!
//! Time is the simulation's: the batch window is measured in the `now` each call carries.
//!
//! # Where pagelab departs from ll_rw_blk.c
//! - A woken process runs at once (in the completion's event), so no other submitter gets in between the
//!   wake-up and its allocation. If a woken sleeper allocated nothing (every held request merged into a
//!   queued one) and the direction still has room, the next sleeper is woken in its place; in the kernel a
//!   woken process allocates regardless of merges, so this case does not arise there.
//! - The I/O context that batches is the submitting handler thread (its slot), which keeps its batch
//!   across the requests it serves, as a process's `io_context` does; the elevator's exemption compares the
//!   handler's current stream with the owner the scheduler anticipates (the scheduler's owners are
//!   streams). The kernel's writeback threads (kswapd, pdflush) share one context and are never exempted
//!   (they submit asynchronous writes, which are never anticipated).
//! - A context sleeps for the first request it holds; requests it submitted later (a handler's further
//!   parts of a split fetch, either direction) wait behind it, as they would behind a process asleep in
//!   `get_request_wait()`.
//! - `rl->starved` (a direction with no request allocated after a failed allocation or `ELV_MQUEUE_NO`)
//!   has nothing to record: allocations here do not fail for lack of memory, and no scheduler answers
//!   `ELV_MQUEUE_NO`.
//! - Read congestion (`bdi_read_congested()`) is the server's ([`crate::server`]), at 2.6's thresholds.

use crate::cpu::Slot;
use crate::sched::{IoRequest, IoScheduler, MayQueue};
use pagelab_core::hash::KeyMap;
use pagelab_core::{Nanos, StreamId};
use std::collections::VecDeque;
use std::fmt::Write as _;

/// `BLK_BATCH_REQ` (`q->nr_batching`): requests a batcher may allocate past the soft limit.
pub const BLK_BATCH_REQ: u32 = 32;
/// `BLK_BATCH_TIME` = HZ/50: how long a batch lasts once its first request is used.
pub const BLK_BATCH_TIME: Nanos = Nanos::from_ms(20);

/// Who submits: a handler thread's slot, or `None` for the kernel's writeback threads (kswapd, pdflush).
pub type Context = Option<Slot>;

/// `blk_queue_congestion_threshold()` (2.6's `ll_rw_blk.c`): a queue of `nr_requests` becomes
/// congested at `nr - nr/8 + 1` allocated requests (at most `nr`) and stops being so below
/// `nr - nr/8 - nr/16 - 1` (at least 1). Returns `(on, off)`.
pub fn congestion_thresholds(nr_requests: u32) -> (usize, usize) {
    let n = nr_requests as usize;
    let on = (n - n / 8 + 1).min(n);
    let off = (n - n / 8).saturating_sub(n / 16 + 1).max(1);
    (on, off)
}

/// Whether a queue of `nr_requests` with `allocated` requests in one direction is congested, given whether
/// it `was`: on at the higher threshold, off below the lower ([`congestion_thresholds`]).
pub fn congested(was: bool, allocated: usize, nr_requests: u32) -> bool {
    let (on, off) = congestion_thresholds(nr_requests);
    if was {
        allocated >= off
    } else {
        allocated >= on
    }
}

/// The hard limit on one direction's allocated requests: 3/2 × `nr_requests` (`get_request()`).
pub fn hard_limit(nr_requests: u32) -> usize {
    3 * nr_requests as usize / 2
}

/// An I/O context's batch (`io_context`'s `nr_batch_requests` and `last_waited`).
#[derive(Clone, Copy, Debug, Default)]
struct Batch {
    left: u32,
    since: Nanos,
}

/// A sleeping context's requests, the first being the one it sleeps for.
#[derive(Debug)]
struct Held {
    /// The stream it submits for (the elevator's exemption is by stream); `None` for the kernel threads.
    stream: Option<StreamId>,
    reqs: VecDeque<IoRequest>,
}

/// One queue's request allocation (2.6's `struct request_list`, with the queue's full marks and the I/O
/// contexts' batches).
#[derive(Debug)]
pub struct RequestList {
    /// `None`: unlimited (nobody ever waits).
    nr_requests: Option<u32>,
    /// `blk_queue_full()`, per direction (read, write).
    full: [bool; 2],
    /// The exclusive wait queues, per direction, in the order the contexts went to sleep.
    sleepers: [VecDeque<Context>; 2],
    held: KeyMap<Context, Held>,
    batches: KeyMap<Context, Batch>,
    /// The most requests ever allocated in each direction.
    peak: [usize; 2],
}

impl RequestList {
    pub fn new(nr_requests: Option<u32>) -> RequestList {
        RequestList {
            nr_requests,
            full: [false; 2],
            sleepers: Default::default(),
            held: KeyMap::default(),
            batches: KeyMap::default(),
            peak: [0; 2],
        }
    }

    /// `ctx` is asleep on the queue (it holds requests not yet allocated).
    pub fn asleep(&self, ctx: Context) -> bool {
        self.held.contains_key(&ctx)
    }

    /// No context is asleep.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The most requests allocated in one direction so far (`write`: the write direction).
    pub fn peak(&self, write: bool) -> usize {
        self.peak[write as usize]
    }

    /// `ctx` (submitting for `stream`) submits `req`: added to the scheduler now (true), or held with
    /// `ctx` asleep (false). A context already asleep holds it behind what it holds.
    pub fn submit(
        &mut self,
        now: Nanos,
        sched: &mut dyn IoScheduler,
        ctx: Context,
        stream: Option<StreamId>,
        req: IoRequest,
    ) -> bool {
        if let Some(h) = self.held.get_mut(&ctx) {
            h.reqs.push_back(req);
            return false;
        }
        if sched.can_merge(&req) || self.get_request(now, &*sched, ctx, stream, req.write) {
            self.add(now, sched, req);
            return true;
        }
        self.held.insert(ctx, Held { stream, reqs: VecDeque::from([req]) });
        self.sleepers[req.write as usize].push_back(ctx);
        false
    }

    /// A request of direction `write` was freed (it completed): `freed_request()`. Contexts woken that now
    /// hold nothing (all their requests allocated) are appended to `awake`.
    pub fn freed(&mut self, now: Nanos, sched: &mut dyn IoScheduler, write: bool, awake: &mut Vec<Context>) {
        let Some(nr) = self.nr_requests else { return };
        let d = write as usize;
        // One sleeper per freed request; another only if the one woken allocated nothing (see the module
        // doc). Each pass pops a sleeper: bounded by the wait queue's length.
        while sched.allocated_requests(write) < nr as usize {
            self.full[d] = false;
            let Some(ctx) = self.sleepers[d].pop_front() else { break };
            let before = sched.allocated_requests(write);
            // get_request_wait(): after sleeping, a batcher.
            self.set_batching(ctx, now);
            if self.run(now, sched, ctx) {
                awake.push(ctx);
            }
            if sched.allocated_requests(write) > before {
                break;
            }
        }
    }

    /// The woken `ctx` allocates its held requests in order; true if it holds none left, false if it went
    /// back to sleep (at the tail of the wait queue of the request it was refused).
    fn run(&mut self, now: Nanos, sched: &mut dyn IoScheduler, ctx: Context) -> bool {
        let mut h = self.held.remove(&ctx).expect("a sleeping context holds requests");
        while let Some(&req) = h.reqs.front() {
            if sched.can_merge(&req) || self.get_request(now, &*sched, ctx, h.stream, req.write) {
                h.reqs.pop_front();
                self.add(now, sched, req);
            } else {
                self.sleepers[req.write as usize].push_back(ctx);
                self.held.insert(ctx, h);
                return false;
            }
        }
        true
    }

    fn add(&mut self, now: Nanos, sched: &mut dyn IoScheduler, req: IoRequest) {
        sched.add(now, req);
        let d = req.write as usize;
        let allocated = sched.allocated_requests(req.write);
        self.peak[d] = self.peak[d].max(allocated);
        if let Some(nr) = self.nr_requests {
            assert!(
                allocated <= hard_limit(nr),
                "{allocated} requests allocated past the hard limit of nr_requests = {nr}"
            );
        }
    }

    /// `get_request()`'s decision for a request that does not merge: may `ctx` allocate one in direction
    /// `write` now? Marks the direction full and makes batchers as the kernel does.
    fn get_request(
        &mut self,
        now: Nanos,
        sched: &dyn IoScheduler,
        ctx: Context,
        stream: Option<StreamId>,
        write: bool,
    ) -> bool {
        let Some(nr) = self.nr_requests else { return true };
        let nr = nr as usize;
        let d = write as usize;
        let count = sched.allocated_requests(write);
        let filling = count + 1 >= nr;
        if filling {
            if !self.full[d] {
                self.set_batching(ctx, now);
                self.full[d] = true;
            } else {
                let must = stream.is_some_and(|s| sched.may_queue(s) == MayQueue::Must);
                if !must && !self.batching(ctx, now) {
                    return false;
                }
            }
        }
        if count >= hard_limit(nr as u32) {
            return false;
        }
        // The kernel looks the context up only when the queue fills, so only those allocations use up a
        // batch.
        if filling && self.batching(ctx, now) {
            self.batches.get_mut(&ctx).expect("a batcher has a batch").left -= 1;
        }
        true
    }

    /// `ioc_batching()`: a whole batch left (however long ago it was granted, so a woken sleeper always
    /// gets one request), or some left within [`BLK_BATCH_TIME`] of its start.
    fn batching(&self, ctx: Context, now: Nanos) -> bool {
        self.batches
            .get(&ctx)
            .is_some_and(|b| b.left == BLK_BATCH_REQ || (b.left > 0 && now < b.since + BLK_BATCH_TIME))
    }

    /// `ioc_set_batching()`: a context not batching gets a fresh batch starting now.
    fn set_batching(&mut self, ctx: Context, now: Nanos) {
        if !self.batching(ctx, now) {
            self.batches.insert(ctx, Batch { left: BLK_BATCH_REQ, since: now });
        }
    }

    /// For hand-traced tests: `"R full [2 3] W - []"`, then the batches, e.g. `"batch 1:31@0"`.
    pub fn state(&self) -> String {
        let ctx = |c: &Context| c.map_or("k".to_string(), |s| s.to_string());
        let mut out = String::new();
        for (d, name) in [(0, "R"), (1, "W")] {
            let sleepers: Vec<String> = self.sleepers[d].iter().map(ctx).collect();
            let _ =
                write!(out, "{name} {} [{}] ", if self.full[d] { "full" } else { "-" }, sleepers.join(" "));
        }
        let mut batches: Vec<(String, Batch)> = self.batches.iter().map(|(c, b)| (ctx(c), *b)).collect();
        batches.sort_by(|a, b| a.0.cmp(&b.0));
        let batches: Vec<String> =
            batches.iter().map(|(c, b)| format!("{c}:{}@{}", b.left, b.since.0 / 1_000_000)).collect();
        let _ = write!(out, "batch {}", batches.join(" "));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::{
        Anticipatory, AnticipatoryParams, Deadline, DeadlineParams, Decision, Noop, NoopParams,
    };

    /// A read of 8 sectors by stream `owner`, far from every other (no merges): id × 10,000.
    fn rq(id: u64, owner: u32) -> IoRequest {
        IoRequest::read(id, id * 10_000, 8, StreamId(owner), Nanos::ZERO)
    }

    fn ms(t: u64) -> Nanos {
        Nanos::from_ms(t)
    }

    /// Context `slot` (stream = slot) submits reads `ids`; how many were added at once.
    fn submit(l: &mut RequestList, s: &mut dyn IoScheduler, now: Nanos, slot: u32, ids: &[u64]) -> usize {
        ids.iter().filter(|&&id| l.submit(now, s, Some(slot), Some(StreamId(slot)), rq(id, slot))).count()
    }

    /// The device serves the scheduler's next read and it completes now: one freed request.
    fn complete_one(l: &mut RequestList, s: &mut dyn IoScheduler, now: Nanos) -> Vec<Context> {
        let Decision::Dispatch(d) = s.next(now, 0) else { panic!("nothing to dispatch") };
        s.completed(now, &d);
        let mut awake = Vec::new();
        l.freed(now, s, false, &mut awake);
        awake
    }

    /// nr_requests = 128: context 0 allocates 127 requests freely; its 128th fills the queue, which makes
    /// it a batcher (32 left, one used at once); it goes on to allocate 31 more past the full queue (159),
    /// then its batch is used up and its 160th request puts it to sleep. Another context finding the
    /// queue full sleeps behind it.
    #[test]
    fn a_batcher_allocates_32_requests_past_a_full_queue_then_sleeps() {
        let mut s = Noop::new(NoopParams::default());
        let mut l = RequestList::new(Some(128));
        let ids: Vec<u64> = (1..=127).collect();
        assert_eq!(submit(&mut l, &mut s, ms(0), 0, &ids), 127);
        assert_eq!(l.state(), "R - [] W - [] batch ");
        assert!(l.submit(ms(0), &mut s, Some(0), Some(StreamId(0)), rq(128, 0)));
        assert_eq!(l.state(), "R full [] W - [] batch 0:31@0");
        let ids: Vec<u64> = (129..=170).collect();
        assert_eq!(submit(&mut l, &mut s, ms(1), 0, &ids), 31, "31 more, 159 in all");
        assert_eq!(s.allocated_requests(false), 159);
        assert!(l.asleep(Some(0)), "the 160th request put it to sleep");
        assert_eq!(submit(&mut l, &mut s, ms(1), 1, &[200]), 0);
        assert_eq!(l.state(), "R full [0 1] W - [] batch 0:0@0");
        assert_eq!(l.peak(false), 159);
    }

    /// The batch lasts BLK_BATCH_TIME (20 ms) from its start once any of it is used: at 19 ms the batcher
    /// still allocates past the full queue, at 20 ms it sleeps with 29 requests of its batch unused.
    #[test]
    fn the_20ms_batch_window_expires() {
        let mut s = Noop::new(NoopParams::default());
        let mut l = RequestList::new(Some(4));
        assert_eq!(submit(&mut l, &mut s, ms(0), 0, &[1, 2, 3, 4]), 4);
        assert_eq!(l.state(), "R full [] W - [] batch 0:31@0");
        assert_eq!(submit(&mut l, &mut s, ms(19), 0, &[5]), 1);
        assert_eq!(l.state(), "R full [] W - [] batch 0:30@0");
        assert_eq!(submit(&mut l, &mut s, ms(20), 0, &[6]), 0);
        assert_eq!(l.state(), "R full [0] W - [] batch 0:30@0");
        assert_eq!(s.allocated_requests(false), 5);
    }

    /// nr_requests = 4, so the hard limit is 6: a batcher with 29 requests of its batch left is still
    /// refused the 7th. Completions bring the count to 5 and 4 (no wake-up: the count stays ≥ 4), then 3:
    /// the direction is no longer full and the sleeper wakes, allocates up to the hard limit again (3 of
    /// its 4 held requests) and sleeps again.
    #[test]
    fn the_hard_limit_of_3_2_nr_requests_holds_for_batchers() {
        let mut s = Noop::new(NoopParams::default());
        let mut l = RequestList::new(Some(4));
        assert_eq!(hard_limit(4), 6);
        assert_eq!(hard_limit(128), 192);
        assert_eq!(submit(&mut l, &mut s, ms(0), 0, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 6);
        assert_eq!(s.allocated_requests(false), 6);
        assert_eq!(l.state(), "R full [0] W - [] batch 0:29@0");
        assert_eq!(complete_one(&mut l, &mut s, ms(1)), []);
        assert_eq!(complete_one(&mut l, &mut s, ms(2)), []);
        assert_eq!(l.state(), "R full [0] W - [] batch 0:29@0", "5 and 4 allocated: still full");
        assert_eq!(complete_one(&mut l, &mut s, ms(3)), [], "woken, but it sleeps again");
        assert_eq!(s.allocated_requests(false), 6);
        assert_eq!(l.state(), "R full [0] W - [] batch 0:26@0");
        assert_eq!(l.peak(false), 6);
    }

    /// Wake-up: one sleeper per freed request, in the order they went to sleep; a newcomer finding the
    /// queue full sleeps behind them; a woken sleeper gets a fresh batch (it was not batching).
    #[test]
    fn sleepers_wake_in_order_one_per_freed_request() {
        let mut s = Noop::new(NoopParams::default());
        let mut l = RequestList::new(Some(4));
        assert_eq!(submit(&mut l, &mut s, ms(0), 0, &[1, 2, 3, 4]), 4);
        assert_eq!(submit(&mut l, &mut s, ms(1), 1, &[11]), 0);
        assert_eq!(submit(&mut l, &mut s, ms(2), 2, &[21, 22]), 0);
        assert_eq!(submit(&mut l, &mut s, ms(3), 3, &[31]), 0);
        assert_eq!(l.state(), "R full [1 2 3] W - [] batch 0:31@0");
        // 3 allocated after the completion: context 1 wakes, becomes a batcher and allocates its request.
        assert_eq!(complete_one(&mut l, &mut s, ms(30)), [Some(1)]);
        assert_eq!(l.state(), "R full [2 3] W - [] batch 0:31@0 1:31@30");
        // A newcomer sleeps behind the others.
        assert_eq!(submit(&mut l, &mut s, ms(31), 4, &[41]), 0);
        // Context 2 wakes and allocates both its requests (its batch lets it past the full queue).
        assert_eq!(complete_one(&mut l, &mut s, ms(32)), [Some(2)]);
        assert_eq!(s.allocated_requests(false), 5);
        assert_eq!(l.state(), "R full [3 4] W - [] batch 0:31@0 1:31@30 2:30@32");
        // 4 allocated: not below nr_requests, nobody wakes; then 3: context 3 wakes.
        assert_eq!(complete_one(&mut l, &mut s, ms(33)), []);
        assert_eq!(complete_one(&mut l, &mut s, ms(34)), [Some(3)]);
        assert_eq!(complete_one(&mut l, &mut s, ms(35)), [Some(4)]);
        assert!(l.is_empty());
    }

    /// The owner the anticipatory scheduler is waiting for (its read just completed) is exempt from the
    /// full-queue wait (`as_may_queue()` → `ELV_MQUEUE_MUST`); under deadline the same sequence puts it to
    /// sleep behind the other sleeper.
    #[test]
    fn the_anticipated_owner_is_exempt_under_anticipatory_only() {
        fn run(s: &mut dyn IoScheduler) -> (bool, usize, String) {
            let mut l = RequestList::new(Some(4));
            // Stream 7 (slot 7) reads; its read completes at 1 ms: the anticipatory scheduler arms for it.
            assert_eq!(submit(&mut l, s, ms(0), 7, &[1]), 1);
            let Decision::Dispatch(d) = s.next(ms(0), 0) else { panic!() };
            s.completed(ms(1), &d);
            l.freed(ms(1), s, false, &mut Vec::new());
            // Context 0 fills the queue (and is its batcher); context 1 then sleeps on it.
            assert_eq!(submit(&mut l, s, ms(1), 0, &[100, 101, 102, 103]), 4);
            assert_eq!(submit(&mut l, s, ms(1), 1, &[110]), 0);
            // Stream 7's next read, 1 ms later.
            let added = l.submit(ms(2), s, Some(7), Some(StreamId(7)), rq(2, 7));
            (added, s.allocated_requests(false), l.state())
        }
        let mut antic = Anticipatory::new(AnticipatoryParams::default());
        assert_eq!(run(&mut antic), (true, 5, "R full [1] W - [] batch 0:31@1".to_string()));
        assert!(antic.state().ends_with("antic=finished(7)"), "{}", antic.state());
        let mut deadline = Deadline::new(DeadlineParams::default());
        assert_eq!(run(&mut deadline), (false, 4, "R full [1 7] W - [] batch 0:31@1".to_string()));
        // Exempt only while anticipating: once the anticipation has ended, stream 7 is ordinary again.
        assert_eq!(antic.may_queue(StreamId(7)), MayQueue::May);
    }

    /// Unlimited: nobody ever waits, nothing is marked full, nobody batches.
    #[test]
    fn an_unlimited_queue_never_holds_a_request() {
        let mut s = Noop::new(NoopParams::default());
        let mut l = RequestList::new(None);
        let ids: Vec<u64> = (1..=1000).collect();
        assert_eq!(submit(&mut l, &mut s, ms(0), 0, &ids), 1000);
        assert_eq!(l.state(), "R - [] W - [] batch ");
        assert!(complete_one(&mut l, &mut s, ms(1)).is_empty());
    }
}
