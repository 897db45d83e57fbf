//! The request queue under every scheduler here: an arena of queued (possibly merged) requests, each on a
//! FIFO list (arrival order, for expiry) and in sector indexes (by first sector, sorted: the elevator's
//! order, Linux's rbtree; by first and by end sector, hashed: front and back merges, Linux's `elv_rqhash`
//! keyed by the end sector, and the front merge's exact start that the kernel finds in its rbtree), split
//! into two classes (reads and writes for deadline; synchronous and asynchronous for anticipatory; noop uses
//! one; cfq adds one per queue).
//!
//! Merging follows the Linux 2.6 elevator core (`block/elevator.c`, `ll_rw_blk.c`): a new request merges
//! at the back of a queued request that ends where it starts, else (front merges on) at the front of one
//! that starts where it ends; same direction only, never past `max_sectors`. With `coalesce`, a merge that
//! makes two queued requests contiguous joins them (Linux's `attempt_back_merge`); the joined request
//! keeps the earlier FIFO position, expiry and owner (`deadline_merged_requests`). A front merge never
//! needs to join: had a queued request ended where the new one starts, the back merge came first.
//! Linux merges bios into requests; pagelab's unit is the handler's request, so a merged request lists the
//! ids it carries, in sector order.
//!
//! [`SchedCore`] adds the bookkeeping all the schedulers share: the dispatched-but-not-completed set,
//! time monotonicity, and the conservation check (added = queued + in flight + completed).

use super::{Dispatch, IoRequest};
use crate::io::DiskRequest;
use pagelab_core::hash::KeyMap;
use pagelab_core::list::{Links, List, NIL};
use pagelab_core::{Nanos, StreamId};
use std::collections::BTreeSet;

/// Number of request classes (queues) a [`RequestQueue`] keeps.
pub(crate) const CLASSES: usize = 2;

/// One added request inside a queued one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub id: u64,
    pub owner: StreamId,
}

/// A queued request: one or more added requests over contiguous sectors.
#[derive(Clone, Debug)]
pub(crate) struct Queued {
    pub disk: DiskRequest,
    pub class: usize,
    /// Owner of the oldest request in it (as-iosched's `io_context` of a merged request).
    pub owner: StreamId,
    /// FIFO deadline: when it counts as expired.
    pub expires: Nanos,
    /// Arrival number of the oldest request in it; FIFO order within a class.
    seq: u64,
    /// In sector order; empty only while the slot is free.
    pub parts: Vec<Part>,
}

impl Queued {
    fn vacant() -> Queued {
        Queued {
            disk: DiskRequest::read(0, 1),
            class: 0,
            owner: StreamId(0),
            expires: Nanos::ZERO,
            seq: 0,
            parts: Vec::new(),
        }
    }

    /// `"8+16:1,2"`: first sector, length, part ids.
    fn describe(&self) -> String {
        let ids: Vec<String> = self.parts.iter().map(|p| p.id.to_string()).collect();
        format!("{}+{}:{}", self.disk.sector, self.disk.sectors, ids.join(","))
    }
}

/// Which merges a queue performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MergeRules {
    /// Merge a request onto the front of a queued one that starts where it ends.
    pub front: bool,
    /// Join two queued requests that a back merge made contiguous.
    pub coalesce: bool,
    /// Largest merged request; a single added request may be longer (it is never split).
    pub max_sectors: u32,
}

pub(crate) struct RequestQueue {
    rules: MergeRules,
    /// Slot arena; free slots have no parts and sit in `free`.
    slots: Vec<Queued>,
    free: Vec<u32>,
    /// FIFO links: the front is the newest, the back the oldest.
    links: Links,
    /// Per class (a scheduler may add classes: CFQ keeps one per queue).
    fifo: Vec<List>,
    /// Per class, sorted by first sector (the elevator's order).
    by_start: Vec<BTreeSet<(u64, u32)>>,
    /// Per class, the merge hashes: by first sector and by end sector.
    start_hash: Vec<SectorHash>,
    end_hash: Vec<SectorHash>,
    /// By slot: the next slot of the same class under the same key in `start_hash` and in `end_hash`.
    start_next: Vec<u32>,
    end_next: Vec<u32>,
    /// Added requests queued, counting each part.
    parts: usize,
    /// Queued (merged) requests by direction (`[reads, writes]`).
    requests: [usize; 2],
    next_seq: u64,
    /// Emptied part lists, reused by the requests queued next: queuing a request then allocates nothing.
    spare_parts: Vec<Vec<Part>>,
}

/// Emptied lists a scheduler keeps for reuse, at most (more are freed): far more than the requests a
/// queue holds at once under a request limit.
const SPARE_LISTS_MAX: usize = 1024;

/// `list`, emptied, kept in `spare` for reuse unless `spare` holds [`SPARE_LISTS_MAX`] already.
fn keep_spare<T>(spare: &mut Vec<Vec<T>>, mut list: Vec<T>) {
    if spare.len() < SPARE_LISTS_MAX && list.capacity() > 0 {
        list.clear();
        spare.push(list);
    }
}

impl RequestQueue {
    pub fn new(rules: MergeRules) -> RequestQueue {
        assert!(rules.max_sectors >= 1, "max_request_sectors must be at least 1");
        RequestQueue {
            rules,
            slots: Vec::new(),
            free: Vec::new(),
            links: Links::new(0),
            fifo: vec![List::new(); CLASSES],
            by_start: vec![BTreeSet::new(); CLASSES],
            start_hash: (0..CLASSES).map(|_| SectorHash::default()).collect(),
            end_hash: (0..CLASSES).map(|_| SectorHash::default()).collect(),
            start_next: Vec::new(),
            end_next: Vec::new(),
            parts: 0,
            requests: [0; 2],
            next_seq: 0,
            spare_parts: Vec::new(),
        }
    }

    /// Queue `req` in `class`, merging it if the rules allow; returns the slot now holding it. `expires`
    /// applies only if it opens a new queued request (a merged one keeps its older deadline).
    pub fn add(&mut self, req: &IoRequest, class: usize, expires: Nanos) -> u32 {
        assert!(req.sectors >= 1, "request {} has no sectors", req.id);
        let part = Part { id: req.id, owner: req.owner };
        let slot = if let Some(s) = self.back_merge(req, class, part) {
            if self.rules.coalesce {
                self.coalesce_after(s)
            } else {
                s
            }
        } else if let Some(s) = self.front_merge(req, class, part) {
            // Never joins: a queued request ending where `req` starts would have taken the back merge.
            s
        } else {
            self.open(req, class, expires, part)
        };
        self.parts += 1;
        self.check_class(class);
        slot
    }

    /// Add an empty class; returns its number (the first is [`CLASSES`]).
    pub fn add_class(&mut self) -> usize {
        self.fifo.push(List::new());
        self.by_start.push(BTreeSet::new());
        self.start_hash.push(SectorHash::default());
        self.end_hash.push(SectorHash::default());
        self.fifo.len() - 1
    }

    /// Take slot `s` out of the queue (to dispatch it).
    pub fn take(&mut self, s: u32) -> Queued {
        let class = self.slots[s as usize].class;
        assert!(!self.slots[s as usize].parts.is_empty(), "slot {s} is not queued");
        self.unlink(s);
        let q = std::mem::replace(&mut self.slots[s as usize], Queued::vacant());
        self.free.push(s);
        self.parts -= q.parts.len();
        self.requests[q.disk.write as usize] -= 1;
        self.check_class(class);
        q
    }

    pub fn get(&self, s: u32) -> &Queued {
        &self.slots[s as usize]
    }

    pub fn is_empty(&self, class: usize) -> bool {
        self.fifo[class].is_empty()
    }

    /// Added requests queued (each part counts).
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// Queued (merged) requests of the reads (`write` false) or the writes: what a Linux request queue
    /// allocates one `struct request` for.
    pub fn requests(&self, write: bool) -> usize {
        self.requests[write as usize]
    }

    /// The oldest queued request of `class` (the FIFO head: the first to expire).
    pub fn oldest(&self, class: usize) -> Option<u32> {
        self.fifo[class].back()
    }

    /// The queued request of `class` with the lowest first sector ≥ `sector`.
    pub fn at_or_after(&self, class: usize, sector: u64) -> Option<u32> {
        self.by_start[class].range((sector, 0)..).next().map(|&(_, s)| s)
    }

    /// The queued request of `class` with the highest first sector < `sector`.
    pub fn before(&self, class: usize, sector: u64) -> Option<u32> {
        self.by_start[class].range(..(sector, 0)).next_back().map(|&(_, s)| s)
    }

    /// The queued request of `class` with the lowest first sector.
    pub fn lowest(&self, class: usize) -> Option<u32> {
        self.by_start[class].first().map(|&(_, s)| s)
    }

    /// `"[8+16:1,2 96+8:3] fifo=[96 8]"`: sector order, then FIFO order (oldest first) by first sector.
    pub fn state(&self, class: usize) -> String {
        let sorted: Vec<String> = self.by_start[class].iter().map(|&(_, s)| self.get(s).describe()).collect();
        let mut fifo: Vec<String> =
            self.links.iter(&self.fifo[class]).map(|s| self.get(s).disk.sector.to_string()).collect();
        fifo.reverse();
        format!("[{}] fifo=[{}]", sorted.join(" "), fifo.join(" "))
    }

    /// Whether `req` would merge into a request queued in `class` (a back merge, or a front merge when the
    /// rules allow): then it needs no new Linux request.
    pub fn can_merge(&self, req: &IoRequest, class: usize) -> bool {
        let fits = |s| self.mergeable(s, req.write, req.sectors);
        self.end_hash[class].find(&self.end_next, req.sector, fits).is_some()
            || (self.rules.front && self.start_hash[class].find(&self.start_next, req.end(), fits).is_some())
    }

    fn mergeable(&self, s: u32, write: bool, sectors: u32) -> bool {
        let q = self.get(s);
        q.disk.write == write && q.disk.sectors as u64 + sectors as u64 <= self.rules.max_sectors as u64
    }

    fn back_merge(&mut self, req: &IoRequest, class: usize, part: Part) -> Option<u32> {
        let fits = |s| self.mergeable(s, req.write, req.sectors);
        let s = self.end_hash[class].find(&self.end_next, req.sector, fits)?;
        let q = &mut self.slots[s as usize];
        let old_end = q.disk.end();
        q.disk.sectors += req.sectors;
        q.parts.push(part);
        let new_end = q.disk.end();
        assert!(self.end_hash[class].remove(&mut self.end_next, old_end, s), "back-merge index out of step");
        self.end_hash[class].insert(&mut self.end_next, new_end, s);
        Some(s)
    }

    fn front_merge(&mut self, req: &IoRequest, class: usize, part: Part) -> Option<u32> {
        if !self.rules.front {
            return None;
        }
        let fits = |s| self.mergeable(s, req.write, req.sectors);
        let s = self.start_hash[class].find(&self.start_next, req.end(), fits)?;
        let q = &mut self.slots[s as usize];
        let old_start = q.disk.sector;
        q.disk.sector = req.sector;
        q.disk.sectors += req.sectors;
        q.parts.insert(0, part);
        assert!(self.by_start[class].remove(&(old_start, s)), "front-merge index out of step");
        self.by_start[class].insert((req.sector, s));
        assert!(
            self.start_hash[class].remove(&mut self.start_next, old_start, s),
            "front-merge hash out of step"
        );
        self.start_hash[class].insert(&mut self.start_next, req.sector, s);
        Some(s)
    }

    /// After a back merge into `lo`: join the queued request that now starts where `lo` ends.
    fn coalesce_after(&mut self, lo: u32) -> u32 {
        let q = self.get(lo);
        let (class, write, sectors) = (q.class, q.disk.write, q.disk.sectors);
        let fits = |s| s != lo && self.mergeable(s, write, sectors);
        match self.start_hash[class].find(&self.start_next, q.disk.end(), fits) {
            Some(hi) => self.join(lo, hi),
            None => lo,
        }
    }

    /// Join contiguous `lo` and `hi` into whichever is older (it keeps its FIFO place, deadline and owner:
    /// the joined request must not expire later than either did). Returns the survivor.
    fn join(&mut self, lo: u32, hi: u32) -> u32 {
        let older_is_lo = self.get(lo).seq < self.get(hi).seq;
        let (keep, gone) = if older_is_lo { (lo, hi) } else { (hi, lo) };
        let expires = self.get(lo).expires.min(self.get(hi).expires);
        self.unlink(gone);
        let gone_q = std::mem::replace(&mut self.slots[gone as usize], Queued::vacant());
        self.free.push(gone);
        // Linux frees the request a coalescing merge absorbed (`attempt_merge` → `__blk_put_request`).
        self.requests[gone_q.disk.write as usize] -= 1;
        self.unindex(keep);
        let keep_q = &mut self.slots[keep as usize];
        let (lo_parts, hi_parts) = if older_is_lo {
            (std::mem::take(&mut keep_q.parts), gone_q.parts)
        } else {
            (gone_q.parts, std::mem::take(&mut keep_q.parts))
        };
        let start = if older_is_lo { keep_q.disk.sector } else { gone_q.disk.sector };
        keep_q.disk = DiskRequest {
            sector: start,
            sectors: keep_q.disk.sectors + gone_q.disk.sectors,
            write: keep_q.disk.write,
        };
        keep_q.parts = lo_parts;
        keep_q.parts.extend_from_slice(&hi_parts);
        keep_q.expires = expires;
        keep_spare(&mut self.spare_parts, hi_parts);
        self.index(keep);
        keep
    }

    fn open(&mut self, req: &IoRequest, class: usize, expires: Nanos, part: Part) -> u32 {
        let mut q = Queued {
            disk: req.disk(),
            class,
            owner: req.owner,
            expires,
            seq: self.next_seq,
            parts: self.spare_parts.pop().unwrap_or_default(),
        };
        q.parts.push(part);
        self.next_seq += 1;
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = q;
                s
            }
            None => {
                let s = u32::try_from(self.slots.len()).expect("more than 2^32 queued requests");
                self.slots.push(q);
                self.links.grow(s + 1);
                self.start_next.push(NIL);
                self.end_next.push(NIL);
                s
            }
        };
        self.links.push_front(&mut self.fifo[class], s);
        self.index(s);
        self.requests[req.write as usize] += 1;
        s
    }

    fn index(&mut self, s: u32) {
        let q = &self.slots[s as usize];
        self.by_start[q.class].insert((q.disk.sector, s));
        self.start_hash[q.class].insert(&mut self.start_next, q.disk.sector, s);
        self.end_hash[q.class].insert(&mut self.end_next, q.disk.end(), s);
    }

    fn unindex(&mut self, s: u32) {
        let q = &self.slots[s as usize];
        let found = self.by_start[q.class].remove(&(q.disk.sector, s))
            & self.start_hash[q.class].remove(&mut self.start_next, q.disk.sector, s)
            & self.end_hash[q.class].remove(&mut self.end_next, q.disk.end(), s);
        assert!(found, "slot {s} missing from the sector indexes");
    }

    fn unlink(&mut self, s: u32) {
        let class = self.slots[s as usize].class;
        self.unindex(s);
        self.links.remove(&mut self.fifo[class], s);
    }

    /// Every queued request is on its class's FIFO and in both indexes.
    fn check_class(&self, class: usize) {
        let n = self.fifo[class].len() as usize;
        assert_eq!(n, self.by_start[class].len(), "sort index out of step with the FIFO");
        assert_eq!(n, self.start_hash[class].len, "front-merge hash out of step with the FIFO");
        assert_eq!(n, self.end_hash[class].len, "back-merge hash out of step with the FIFO");
        let queued: u32 = self.fifo.iter().map(|l| l.len()).sum();
        assert_eq!(self.requests[0] + self.requests[1], queued as usize, "request counts out of step");
    }
}

/// A merge hash: queued requests by one sector (their first, or their end), the requests under one key
/// chained through a per-slot link array the queue owns (`start_next`, `end_next`). A lookup takes the
/// lowest slot that fits, as a scan of a sorted index would.
#[derive(Default)]
struct SectorHash {
    heads: KeyMap<u64, u32>,
    len: usize,
}

impl SectorHash {
    fn insert(&mut self, next: &mut [u32], key: u64, s: u32) {
        next[s as usize] = self.heads.insert(key, s).unwrap_or(NIL);
        self.len += 1;
    }

    /// Whether slot `s` was under `key` (it is not any more).
    fn remove(&mut self, next: &mut [u32], key: u64, s: u32) -> bool {
        let Some(&head) = self.heads.get(&key) else { return false };
        if head == s {
            match next[s as usize] {
                NIL => self.heads.remove(&key),
                rest => self.heads.insert(key, rest),
            };
        } else {
            // Bounded by the queued requests: every step moves along the chain, which ends in NIL.
            let mut at = head;
            while next[at as usize] != s {
                at = next[at as usize];
                if at == NIL {
                    return false;
                }
            }
            next[at as usize] = next[s as usize];
        }
        next[s as usize] = NIL;
        self.len -= 1;
        true
    }

    /// The lowest slot under `key` that `fits`.
    fn find(&self, next: &[u32], key: u64, fits: impl Fn(u32) -> bool) -> Option<u32> {
        let mut at = *self.heads.get(&key)?;
        let mut best = None;
        while at != NIL {
            if best.is_none_or(|b| at < b) && fits(at) {
                best = Some(at);
            }
            at = next[at as usize];
        }
        best
    }
}

/// What every scheduler keeps besides its queue: dispatches in flight and the conservation books.
pub(crate) struct SchedCore {
    pub queue: RequestQueue,
    /// Dispatched, not completed, keyed by first part id.
    in_flight: KeyMap<u64, Queued>,
    in_flight_parts: usize,
    /// Dispatched requests by direction (`[reads, writes]`).
    in_flight_requests: [usize; 2],
    added: u64,
    completed: u64,
    clock: Nanos,
    /// Emptied part-id lists of completed dispatches, reused by the next dispatches.
    spare_ids: Vec<Vec<u64>>,
}

impl SchedCore {
    pub fn new(rules: MergeRules) -> SchedCore {
        SchedCore {
            queue: RequestQueue::new(rules),
            in_flight: KeyMap::default(),
            in_flight_parts: 0,
            in_flight_requests: [0; 2],
            added: 0,
            completed: 0,
            clock: Nanos::ZERO,
            spare_ids: Vec::new(),
        }
    }

    /// Advance the scheduler's notion of time; time never goes backwards.
    pub fn tick(&mut self, now: Nanos) {
        assert!(now >= self.clock, "scheduler called at {now} after {}: time went backwards", self.clock);
        self.clock = now;
    }

    pub fn add(&mut self, now: Nanos, req: &IoRequest, class: usize, expires: Nanos) -> u32 {
        self.tick(now);
        assert!(req.submitted <= now, "request {} submitted at {} but added at {now}", req.id, req.submitted);
        let s = self.queue.add(req, class, expires);
        self.added += 1;
        self.check_books();
        s
    }

    /// Linux requests allocated in one direction: queued (merged) requests plus dispatched ones the device
    /// has not completed. This is what `nr_requests` bounds.
    pub fn allocated(&self, write: bool) -> usize {
        self.queue.requests(write) + self.in_flight_requests[write as usize]
    }

    /// Take slot `s` off the queue and hand it to the device.
    pub fn dispatch(&mut self, s: u32) -> Dispatch {
        let q = self.queue.take(s);
        let mut parts = self.spare_ids.pop().unwrap_or_default();
        parts.extend(q.parts.iter().map(|p| p.id));
        let d = Dispatch { disk: q.disk, parts };
        self.in_flight_parts += q.parts.len();
        self.in_flight_requests[q.disk.write as usize] += 1;
        let previous = self.in_flight.insert(q.parts[0].id, q);
        assert!(previous.is_none(), "request id {} dispatched while already in flight", d.parts[0]);
        self.check_books();
        d
    }

    /// The device finished `done`; returns the queued request it was.
    pub fn complete(&mut self, now: Nanos, done: &Dispatch) -> Queued {
        self.tick(now);
        let first = *done.parts.first().expect("a completed dispatch carries no request");
        let q = self
            .in_flight
            .remove(&first)
            .unwrap_or_else(|| panic!("completion of {done:?}, which is not in flight"));
        assert_eq!(q.disk, done.disk, "completion does not match the dispatch of request {first}");
        assert!(q.parts.iter().map(|p| p.id).eq(done.parts.iter().copied()), "completion parts differ");
        self.in_flight_parts -= q.parts.len();
        self.in_flight_requests[q.disk.write as usize] -= 1;
        self.completed += q.parts.len() as u64;
        self.check_books();
        q
    }

    /// A completed request's part list ([`SchedCore::complete`]'s answer, once the scheduler is done with
    /// it), kept for the requests queued next.
    pub fn recycle(&mut self, done: Queued) {
        keep_spare(&mut self.queue.spare_parts, done.parts);
    }

    /// A completed dispatch's part-id list ([`super::IoScheduler::recycle`]), kept for the next dispatch.
    pub fn recycle_dispatch(&mut self, done: Dispatch) {
        keep_spare(&mut self.spare_ids, done.parts);
    }

    /// No request is lost or duplicated: every added request is queued, in flight or completed.
    fn check_books(&self) {
        let accounted = (self.queue.parts() + self.in_flight_parts) as u64 + self.completed;
        assert_eq!(self.added, accounted, "requests lost or duplicated");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: MergeRules = MergeRules { front: true, coalesce: true, max_sectors: 32 };

    fn rd(id: u64, sector: u64, sectors: u32) -> IoRequest {
        IoRequest::read(id, sector, sectors, StreamId(id as u32), Nanos::ZERO)
    }
    fn wr(id: u64, sector: u64, sectors: u32) -> IoRequest {
        IoRequest::write(id, sector, sectors, StreamId(id as u32), Nanos::ZERO)
    }

    /// Linux allocates a request per queued merged request: a merge allocates none, a coalescing merge
    /// frees one, a dispatch keeps it until completion.
    #[test]
    fn allocated_requests_count_merged_requests_until_completion() {
        let mut core = SchedCore::new(RULES);
        core.add(Nanos::ZERO, &rd(1, 0, 8), 0, Nanos::MAX);
        core.add(Nanos::ZERO, &rd(2, 16, 8), 0, Nanos::MAX);
        core.add(Nanos::ZERO, &wr(3, 100, 8), 1, Nanos::MAX);
        assert_eq!((core.allocated(false), core.allocated(true)), (2, 1));
        assert!(core.queue.can_merge(&rd(4, 8, 8), 0), "8..16 closes the gap between 1 and 2");
        assert!(!core.queue.can_merge(&rd(4, 40, 8), 0));
        assert!(!core.queue.can_merge(&wr(4, 8, 8), 0), "a write never merges with reads");
        core.add(Nanos::ZERO, &rd(4, 8, 8), 0, Nanos::MAX);
        assert_eq!(core.allocated(false), 1, "the back merge joined 1 and 2 into one request");
        let s = core.queue.oldest(0).unwrap();
        let d = core.dispatch(s);
        assert_eq!(
            (core.allocated(false), d.parts.len()),
            (1, 3),
            "dispatched, not completed: still allocated"
        );
        core.complete(Nanos(1), &d);
        assert_eq!(core.allocated(false), 0);
    }

    /// Adds each request to class 0 (reads and writes together, so direction checks are exercised)
    /// with expiry = its id, checking the queue after every step.
    fn trace(rules: MergeRules, steps: &[(IoRequest, &str)]) -> RequestQueue {
        let mut q = RequestQueue::new(rules);
        for (i, (req, want)) in steps.iter().enumerate() {
            q.add(req, 0, Nanos(req.id));
            assert_eq!(q.state(0), *want, "step {i} (request {})", req.id);
        }
        q
    }

    #[test]
    fn back_and_front_merges_keep_parts_in_sector_order() {
        let mut q = trace(
            RULES,
            &[
                (rd(1, 100, 8), "[100+8:1] fifo=[100]"),
                (rd(2, 108, 8), "[100+16:1,2] fifo=[100]"), // back merge
                (rd(3, 92, 8), "[92+24:3,1,2] fifo=[92]"),  // front merge
                (rd(4, 140, 8), "[92+24:3,1,2 140+8:4] fifo=[92 140]"),
                (rd(5, 116, 8), "[92+32:3,1,2,5 140+8:4] fifo=[92 140]"), // back merge up to the limit
                (rd(6, 132, 8), "[92+32:3,1,2,5 132+16:6,4] fifo=[92 132]"), // front merge
                // 92+32 is full, so 124..132 front-merges onto 132+16 and the two cannot join.
                (rd(7, 124, 8), "[92+32:3,1,2,5 124+24:7,6,4] fifo=[92 124]"),
            ],
        );
        assert_eq!(q.parts(), 7);
        let first = q.take(q.oldest(0).unwrap());
        assert_eq!(
            first.expires,
            Nanos(1),
            "a merged request keeps the deadline of the request it opened with"
        );
        assert_eq!(q.get(q.oldest(0).unwrap()).expires, Nanos(4));
    }

    #[test]
    fn a_merge_that_closes_a_gap_joins_into_the_older_request() {
        let mut q = trace(
            MergeRules { max_sectors: 1024, ..RULES },
            &[
                (rd(1, 200, 8), "[200+8:1] fifo=[200]"),
                (rd(2, 500, 8), "[200+8:1 500+8:2] fifo=[200 500]"),
                (rd(3, 100, 8), "[100+8:3 200+8:1 500+8:2] fifo=[200 500 100]"),
                (rd(4, 108, 84), "[100+92:3,4 200+8:1 500+8:2] fifo=[200 500 100]"),
                // 192..200 back-merges onto 100+92, which then reaches 200+8: the two join, in the
                // place of the older (200+8, first in the FIFO), not of the younger (last).
                (rd(5, 192, 8), "[100+108:3,4,5,1 500+8:2] fifo=[100 500]"),
            ],
        );
        let joined = q.take(q.oldest(0).unwrap());
        assert_eq!(joined.expires, Nanos(1), "the joined request expires when the older one did");
        assert_eq!(joined.owner, StreamId(1), "and belongs to the older one's owner");
        assert_eq!(joined.disk, DiskRequest::read(100, 108));
    }

    #[test]
    fn no_merge_across_directions_or_past_the_limit() {
        trace(
            MergeRules { max_sectors: 16, ..RULES },
            &[
                (rd(1, 100, 8), "[100+8:1] fifo=[100]"),
                (wr(2, 108, 8), "[100+8:1 108+8:2] fifo=[100 108]"), // a write never merges with a read
                (rd(3, 92, 8), "[92+16:3,1 108+8:2] fifo=[92 108]"),
                (rd(4, 84, 8), "[84+8:4 92+16:3,1 108+8:2] fifo=[92 108 84]"), // 24 > 16 sectors
                (rd(5, 44, 40), "[44+40:5 84+8:4 92+16:3,1 108+8:2] fifo=[92 108 84 44]"), // kept whole
                (wr(6, 116, 8), "[44+40:5 84+8:4 92+16:3,1 108+16:2,6] fifo=[92 108 84 44]"),
            ],
        );
    }

    #[test]
    fn without_front_merges_or_joins_only_back_merges_happen() {
        trace(
            MergeRules { front: false, coalesce: false, max_sectors: 1024 },
            &[
                (rd(1, 100, 8), "[100+8:1] fifo=[100]"),
                (rd(2, 92, 8), "[92+8:2 100+8:1] fifo=[100 92]"),
                (rd(3, 108, 8), "[92+8:2 100+16:1,3] fifo=[100 92]"),
                (rd(4, 84, 8), "[84+8:4 92+8:2 100+16:1,3] fifo=[100 92 84]"),
                (rd(5, 124, 8), "[84+8:4 92+8:2 100+16:1,3 124+8:5] fifo=[100 92 84 124]"),
                (rd(6, 116, 8), "[84+8:4 92+8:2 100+24:1,3,6 124+8:5] fifo=[100 92 84 124]"), // no join
            ],
        );
    }

    /// Requests ending at the same sector share a key of the back-merge hash: a merge takes the lowest
    /// slot that fits (as a scan of a sorted index would), and a request leaving from the middle of a
    /// key's chain leaves the others findable.
    #[test]
    fn requests_under_one_merge_key_are_found_lowest_slot_first() {
        let mut q = RequestQueue::new(MergeRules { front: false, coalesce: false, max_sectors: 24 });
        let a = q.add(&rd(1, 96, 12), 0, Nanos(1)); // ends at 108
        let b = q.add(&rd(2, 100, 8), 0, Nanos(2)); // ends at 108 too
        let c = q.add(&rd(3, 104, 4), 0, Nanos(3)); // and this one
        assert!(a < b && b < c);
        // b leaves from the middle of the chain under 108.
        q.take(b);
        // 16 more sectors fit c (4), not a (12): the lowest that fits, c.
        assert_eq!(q.add(&rd(4, 108, 16), 0, Nanos(4)), c);
        // 8 more fit a (12): found under 108 after c left the key.
        assert_eq!(q.add(&rd(5, 108, 8), 0, Nanos(5)), a);
        assert_eq!(q.state(0), "[96+20:1,5 104+20:3,4] fifo=[96 104]");
    }

    #[test]
    fn take_frees_the_slot_for_reuse_and_keeps_books() {
        let mut q = RequestQueue::new(RULES);
        let a = q.add(&rd(1, 100, 8), 0, Nanos(1));
        q.add(&rd(2, 108, 8), 0, Nanos(2));
        let b = q.add(&wr(3, 500, 8), 1, Nanos(3));
        assert_eq!(q.parts(), 3);
        let taken = q.take(a);
        assert_eq!(taken.parts.iter().map(|p| p.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(taken.disk, DiskRequest::read(100, 16));
        assert_eq!(q.parts(), 1);
        assert!(q.is_empty(0));
        assert_eq!(q.add(&rd(4, 0, 8), 0, Nanos(4)), a, "a freed slot is reused");
        assert_eq!(q.take(b).parts[0].id, 3);
        assert_eq!(q.state(1), "[] fifo=[]");
    }
}
