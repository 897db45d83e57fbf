//! Time and the emulated device.
//!
//! [`Clock`] is the one place pagelab live reads a clock: the engine's core never does (its calls take
//! `now`), exactly as in the simulator.
//!
//! [`EmulatedDevice`] (`--emulate-device hdd`) makes every miss also wait for the simulator's model of a
//! disk behind the simulator's I/O scheduler (`--scheduler`, anticipatory by default, as in `pagelab
//! simulate`), so the papers' seek and scheduling effects show on a machine whose real disk is an SSD or
//! whose source is cached. It is the simulator's block layer driven in real time. Each fetch is split
//! into requests of at most the scheduler's `max_request_sectors` and added to the scheduler as soon as
//! the cache issues it ([`EmulatedDevice::submit`]), owned by the thread whose read issued it: the
//! anticipatory scheduler anticipates a thread's next read, as Linux's anticipates a task and the
//! simulator a handler. One dispatcher thread ([`EmulatedDevice::run`]) plays the simulator's
//! `kick_device` and `io_done`: it asks the scheduler for the next request whenever the device has a free
//! channel, services it on the disk model, sleeps until that service time (or an anticipation's end, or a
//! new request) has passed, reports the completion to the scheduler, and reports each fetch whose requests
//! have all been served to its caller. The real read happens meanwhile (its time overlaps the emulated
//! service); the engine completes the fetch when both are done.
//!
//! The request queue is the simulator's too ([`RequestList`], `nr_requests` = 128): a thread's request
//! past the limit waits, and its later ones behind it, until a completion wakes it; and the queue's read
//! congestion (`bdi_read_congested()`, [`EmulatedDevice::read_congested`]) makes readahead skip its
//! asynchronous windows, as in the simulator and in 2.6.
//!
//! Reading threads come and go without telling a FUSE daemon. The scheduler learns of an exit as the
//! simulator tells it of a handler's (`owner_exited`): a thread is known by its tid and its start time
//! (`/proc/TID/stat`), so a tid the kernel gave to a new thread is a new I/O context, not the old one with
//! its statistics (the old one is reported exited before the new one's first request); and about once a
//! second the dispatcher looks for the threads it knows that are gone (Linux's `exit_io_context()`: the
//! anticipatory scheduler stops waiting for an exited task).
//!
//! The model keeps its own timeline: a request starts at the model's time of the queue run that chose it
//! (a completion's model time, the request's arrival, the end of a wait), never at the moment the
//! dispatcher thread woke, which is a timer slack (about 100 µs here) later. A kernel's `request_fn` runs
//! at the interrupt; a model disk left idle for the slack after every completion reads ahead for free, and
//! at 64 Two-Rand handlers on 16 MiB that had one-page makeup reads find their page in the drive's cache
//! (AccessHistory read 3.9–6.1 MB/s in three runs, 3.3 with the model's time;
//! `EmulatedDevice::model_start`).
//!
//! Departures from the simulator's block layer, each because a live mount cannot do otherwise: the scheduler
//! decides in the machine's time, so a completion is seen up to a timer slack after the model's time, and the
//! anticipation window starts then; a thread whose request waits for the queue is not itself asleep (its read
//! is, on the fetch), and a fetch's requests are submitted together, after its pages were allocated, where
//! the kernel submits as it builds the bio.

use crate::disk_map::DiskMap;
use pagelab_core::{Lbn, Nanos, StreamId, PAGE_SIZE_BYTES};
use pagelab_sim::blk::{self, RequestList};
use pagelab_sim::device::{Device, DeviceSpec};
use pagelab_sim::sched::{Decision, Dispatch, IoRequest, IoScheduler, SchedulerSpec};
use rustc_hash::FxHashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// 2.6's default request queue size per direction (`BLKDEV_MAX_RQ`), the simulator's `--nr-requests`.
pub const NR_REQUESTS_DEFAULT: u32 = 128;

/// How often the dispatcher looks for reading threads that have exited.
const THREAD_SWEEP_NS: u64 = 1_000_000_000;

/// Which thread a tid names now: its start time, or `None` if no thread has the tid (or /proc cannot
/// say). [`proc_thread_start`] on Linux; tests inject their own.
pub type ThreadStart = fn(u32) -> Option<u64>;

/// A thread's start time after boot in clock ticks, the 22nd field of `/proc/TID/stat`; `None` if the
/// thread has exited.
pub fn proc_thread_start(tid: u32) -> Option<u64> {
    stat_start_time(&std::fs::read_to_string(format!("/proc/{tid}/stat")).ok()?)
}

/// The start time in a `/proc/TID/stat` line. The command name (field 2) is in parentheses and may hold
/// spaces and parentheses itself, so the fields are counted from the last `)`: the state (field 3) is the
/// first after it, the start time (field 22) the 20th.
fn stat_start_time(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

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
}

/// A fetch submitted to the emulated device: [`EmulatedDevice::run`]'s caller hears of it once all its
/// requests have been served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket(u64);

struct DeviceState {
    device: Box<dyn Device>,
    sched: Box<dyn IoScheduler>,
    /// The request queue's allocation (`nr_requests`): requests past it wait, their thread's later ones
    /// behind them, until a completion frees one (the simulator's [`RequestList`], 2.6's `get_request`).
    queue: RequestList,
    /// `bdi_read_congested()`, with 2.6's hysteresis.
    congested: bool,
    /// Dispatched requests and when the model finishes each (at most the device's parallelism).
    in_service: Vec<(Dispatch, Nanos)>,
    /// Requests not yet served, per ticket.
    outstanding: FxHashMap<u64, u32>,
    /// The ticket of each request added and not yet served.
    ticket_of: FxHashMap<u64, u64>,
    next_id: u64,
    /// `now` of the last scheduler call: the scheduler asserts that time never goes back.
    last_now: Nanos,
    stopped: bool,
    dispatched: u64,
    busy_ns: u64,
    /// The start time of the thread each owner (tid) names, for the threads the scheduler has heard of.
    threads: FxHashMap<u32, u64>,
    /// When the dispatcher last looked for exited threads.
    last_sweep: Nanos,
    owners_exited: u64,
    /// The time of the scheduler's last `WaitUntil`, until it has come.
    wait_until: Option<Nanos>,
    /// Set when the queue is due to be run (the scheduler's `next()` called): a request was added or
    /// completed, an owner exited, or the time the scheduler's last `WaitUntil` named has come. Not on a
    /// spurious or idle wake-up: a call is a queue run (the `IoScheduler::next` contract; CFQ re-arms its
    /// idle timer at each). It holds the model's time of the earliest such event not yet acted on (a
    /// request's arrival, a completion's model time, the end of a wait): when a kernel's queue would have
    /// run.
    run_at: Option<Nanos>,
    /// The model's time the device last became free (its last completion).
    free_at: Nanos,
    /// When each request added and not yet dispatched arrived.
    arrived: FxHashMap<u64, Nanos>,
}

impl DeviceState {
    /// The clock's time for a scheduler call (caller holds the lock): never earlier than the last.
    fn advance(&mut self, clock: &Clock) -> Nanos {
        self.last_now = clock.now().max(self.last_now);
        self.last_now
    }

    /// A queue-run event at the model's time `at`: the queue is due to run.
    fn queue_run_at(&mut self, at: Nanos) {
        self.run_at = Some(self.run_at.map_or(at, |r| r.min(at)));
    }
}

/// The disk model every miss waits for, behind an I/O scheduler.
pub struct EmulatedDevice {
    name: String,
    scheduler: &'static str,
    capacity_sectors: u64,
    max_request_sectors: u32,
    parallelism: usize,
    /// 2.6's `nr_requests` (128).
    nr_requests: u32,
    /// Where the model holds the tree's blocks (empty: at their real locations).
    map: DiskMap,
    state: Mutex<DeviceState>,
    /// The dispatcher's wake-up: a request was added, or the device stops.
    wake: Condvar,
    thread_start: ThreadStart,
}

/// What the emulated device did.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DeviceStats {
    pub model: String,
    /// The I/O scheduler in front of it.
    #[serde(default)]
    pub scheduler: String,
    /// Requests dispatched to the model (merged requests count once).
    pub requests: u64,
    /// Time the emulated device spent servicing requests.
    pub busy_s: f64,
    /// The tree as the emulated disk holds it ([`DiskMap`]): files, and bytes packed from the real span.
    #[serde(default)]
    pub packed_files: u64,
    #[serde(default)]
    pub packed_bytes: u64,
    #[serde(default)]
    pub real_span_bytes: u64,
    /// Reading threads reported exited to the scheduler (gone, or their tid given to a new thread).
    #[serde(default)]
    pub owners_exited: u64,
    /// The anticipatory scheduler's waits since the mount and how they ended (`None` under another).
    #[serde(default)]
    pub anticipation: Option<pagelab_sim::sched::AnticipationStats>,
}

impl EmulatedDevice {
    /// The model of `spec` behind `scheduler`, with a request queue of `nr_requests` (Linux 2.6: 128).
    pub fn new(spec: &DeviceSpec, scheduler: &SchedulerSpec, nr_requests: u32) -> EmulatedDevice {
        let device = spec.build();
        let nr_requests = nr_requests.max(1);
        EmulatedDevice {
            name: device.name(),
            scheduler: scheduler.name(),
            capacity_sectors: device.capacity_sectors(),
            max_request_sectors: scheduler.max_request_sectors().max(1),
            parallelism: device.parallelism().max(1) as usize,
            nr_requests,
            map: DiskMap::default(),
            state: Mutex::new(DeviceState {
                device,
                sched: scheduler.build(),
                queue: RequestList::new(Some(nr_requests)),
                congested: false,
                in_service: Vec::new(),
                outstanding: FxHashMap::default(),
                ticket_of: FxHashMap::default(),
                next_id: 1,
                last_now: Nanos::ZERO,
                stopped: false,
                dispatched: 0,
                busy_ns: 0,
                threads: FxHashMap::default(),
                last_sweep: Nanos::ZERO,
                owners_exited: 0,
                wait_until: None,
                run_at: None,
                free_at: Nanos::ZERO,
                arrived: FxHashMap::default(),
            }),
            wake: Condvar::new(),
            thread_start: proc_thread_start,
        }
    }

    /// Tell threads apart with `thread_start` instead of /proc. Before the first [`EmulatedDevice::submit`].
    pub fn identify_threads_with(&mut self, thread_start: ThreadStart) {
        self.thread_start = thread_start;
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Hold the tree's blocks where `map` puts them. Before the first [`EmulatedDevice::submit`].
    pub fn pack(&mut self, map: DiskMap) {
        self.map = map;
    }

    pub fn scheduler(&self) -> &'static str {
        self.scheduler
    }

    /// The request queue's size (`nr_requests`).
    pub fn nr_requests(&self) -> u32 {
        self.nr_requests
    }

    fn lock(&self) -> MutexGuard<'_, DeviceState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a read of `pages` pages at real block `lbn` for `owner`, arriving now. The model holds the
    /// block where the [`DiskMap`] puts it; a location past the model's capacity wraps around it (the
    /// source's disk may be larger than the model).
    pub fn submit(&self, clock: &Clock, owner: StreamId, lbn: Lbn, pages: u32) -> Ticket {
        let sectors_per_page = PAGE_SIZE_BYTES / 512;
        let sectors = (pages as u64 * sectors_per_page).clamp(1, self.capacity_sectors);
        let span = self.capacity_sectors - sectors + 1;
        let first = (self.map.map(lbn).0.wrapping_mul(sectors_per_page)) % span;
        let start = (self.thread_start)(owner.0);
        let mut s = self.lock();
        let now = s.advance(clock);
        if let Some(start) = start {
            // A tid that named another thread before: that thread has exited.
            if s.threads.insert(owner.0, start).is_some_and(|was| was != start) {
                s.sched.owner_exited(owner);
                s.owners_exited += 1;
            }
        }
        s.queue_run_at(now);
        let ticket = s.next_id;
        let (mut sector, end) = (first, first + sectors);
        let mut parts = 0;
        while sector < end {
            let len = (end - sector).min(self.max_request_sectors as u64) as u32;
            let id = s.next_id;
            s.next_id += 1;
            s.ticket_of.insert(id, ticket);
            s.arrived.insert(id, now);
            let req = IoRequest::read(id, sector, len, owner, now);
            let DeviceState { queue, sched, .. } = &mut *s;
            queue.submit(now, sched.as_mut(), Some(owner.0), Some(owner), req);
            sector += len as u64;
            parts += 1;
        }
        s.outstanding.insert(ticket, parts);
        self.wake.notify_one();
        Ticket(ticket)
    }

    /// `bdi_read_congested()`: whether the reads allocated in the queue have reached 2.6's congestion mark
    /// (on at `nr_requests - nr_requests/8 + 1`, off below `nr_requests - nr_requests/8 - nr_requests/16 -
    /// 1`). Readahead skips its asynchronous windows while it is (the engine reports it to the cache before
    /// each read).
    pub fn read_congested(&self) -> bool {
        let mut s = self.lock();
        let allocated = s.sched.allocated_requests(false);
        s.congested = blk::congested(s.congested, allocated, self.nr_requests);
        s.congested
    }

    /// Stop the dispatcher (tickets not yet served are never reported).
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.wake.notify_all();
    }

    /// The dispatcher: serve requests in the scheduler's order, in real time, until [`EmulatedDevice::stop`],
    /// calling `served` (without the device's lock) for each ticket whose requests have all been served.
    /// Runs on one thread of its own.
    pub fn run(&self, clock: &Clock, mut served: impl FnMut(Ticket)) {
        let mut done = Vec::new();
        // Every turn serves, dispatches, or sleeps until a time or a wake-up: no spin.
        loop {
            {
                let mut s = self.lock();
                if s.stopped {
                    return;
                }
                let mut now = s.advance(clock);
                if now.0.saturating_sub(s.last_sweep.0) >= THREAD_SWEEP_NS {
                    s.last_sweep = now;
                    s = self.sweep_threads(s);
                    now = s.advance(clock);
                }
                self.complete_due(&mut s, now, &mut done);
                let wake_at = self.dispatch(&mut s, now);
                if done.is_empty() {
                    match wake_at {
                        Some(at) if at > now => {
                            let d = Duration::from_nanos(at.0 - now.0);
                            drop(self.wake.wait_timeout(s, d).unwrap_or_else(|e| e.into_inner()));
                        }
                        Some(_) => {}
                        None => drop(self.wake.wait(s).unwrap_or_else(|e| e.into_inner())),
                    }
                    continue;
                }
            }
            for ticket in done.drain(..) {
                served(ticket);
            }
        }
    }

    /// Report the known threads that have exited (or whose tid names another thread now) to the scheduler
    /// and forget them. Reads /proc without the lock; returns it taken again.
    fn sweep_threads<'a>(&'a self, s: MutexGuard<'a, DeviceState>) -> MutexGuard<'a, DeviceState> {
        let known: Vec<(u32, u64)> = s.threads.iter().map(|(&tid, &start)| (tid, start)).collect();
        drop(s);
        let gone: Vec<(u32, u64)> =
            known.into_iter().filter(|&(tid, start)| (self.thread_start)(tid) != Some(start)).collect();
        let mut s = self.lock();
        for (tid, start) in gone {
            // Only if no submit has seen a new thread with the tid meanwhile (it reported the exit).
            if s.threads.get(&tid) == Some(&start) {
                s.threads.remove(&tid);
                s.sched.owner_exited(StreamId(tid));
                s.owners_exited += 1;
                let now = s.last_now;
                s.queue_run_at(now);
            }
        }
        s
    }

    /// Report the requests whose service has ended by `now` to the scheduler, earliest first, and push the
    /// tickets they finish to `done`.
    fn complete_due(&self, s: &mut DeviceState, now: Nanos, done: &mut Vec<Ticket>) {
        loop {
            let due = (0..s.in_service.len()).filter(|&i| s.in_service[i].1 <= now);
            let Some(i) = due.min_by_key(|&i| s.in_service[i].1) else {
                return;
            };
            let (dispatch, done_at) = s.in_service.swap_remove(i);
            s.sched.completed(now, &dispatch);
            s.queue_run_at(done_at);
            s.free_at = s.free_at.max(done_at);
            // The freed request wakes the first thread waiting for one (its held requests are added).
            let DeviceState { queue, sched, .. } = &mut *s;
            queue.freed(now, sched.as_mut(), false, &mut Vec::new());
            for id in &dispatch.parts {
                let ticket = s.ticket_of.remove(id).expect("a served request was submitted");
                let left = s.outstanding.get_mut(&ticket).expect("its ticket is outstanding");
                *left -= 1;
                if *left == 0 {
                    s.outstanding.remove(&ticket);
                    done.push(Ticket(ticket));
                }
            }
            s.sched.recycle(dispatch);
        }
    }

    /// Fill the device's free channels from the scheduler; when the dispatcher must look again: the first
    /// completion or the end of an anticipation, `None` when only a new request can change anything.
    fn dispatch(&self, s: &mut DeviceState, now: Nanos) -> Option<Nanos> {
        let mut wake_at = s.in_service.iter().map(|&(_, at)| at).min();
        if let Some(at) = s.wait_until.filter(|&at| at <= now) {
            s.wait_until = None;
            s.queue_run_at(at);
        }
        let Some(run_at) = s.run_at.take() else {
            return wake_at.into_iter().chain(s.wait_until).min();
        };
        // The scheduler decides anew: a wait it asked for before is replaced by what it answers now.
        s.wait_until = None;
        while s.in_service.len() < self.parallelism {
            let head = s.device.head_sector();
            match s.sched.next(now, head) {
                Decision::Dispatch(d) => {
                    let start = self.model_start(s, &d, run_at, now);
                    let took = s.device.service(start, &d.disk).total();
                    s.dispatched += 1;
                    s.busy_ns += took.0;
                    let at = Nanos(start.0 + took.0);
                    wake_at = Some(wake_at.map_or(at, |w| w.min(at)));
                    s.in_service.push((d, at));
                }
                Decision::WaitUntil(at) => {
                    s.wait_until = Some(at);
                    wake_at = Some(wake_at.map_or(at, |w| w.min(at)));
                    break;
                }
                Decision::Idle | Decision::AwaitCompletion => break,
            }
        }
        wake_at
    }

    /// When the model starts `d`, which the queue run of the model's time `run_at` chose: at that time, or
    /// when `d`'s last part arrived, or when the device became free, whichever is latest, and never later
    /// than `now`. Real time reaches the dispatcher a timer slack after the model's event (about 100 µs
    /// here); a kernel's `request_fn` runs at the interrupt. Starting at `now` would leave the model's disk
    /// idle for that slack after every completion, reading ahead for free — at 64 Two-Rand handlers on 16
    /// MiB, one-page makeup reads then found the next page in the drive's cache (AccessHistory read 3.9–6.1
    /// MB/s, 3.3 with the model's time). A device with several channels starts at `now`: its model needs
    /// time to move forward from one dispatch to the next, and it has no read-ahead to gain.
    fn model_start(&self, s: &mut DeviceState, d: &Dispatch, run_at: Nanos, now: Nanos) -> Nanos {
        let arrived = d.parts.iter().filter_map(|id| s.arrived.remove(id)).max().unwrap_or(run_at);
        if self.parallelism > 1 {
            return now;
        }
        run_at.max(arrived).max(s.free_at).min(now)
    }

    pub fn stats(&self) -> DeviceStats {
        let s = self.lock();
        DeviceStats {
            model: self.name.clone(),
            scheduler: self.scheduler.to_string(),
            requests: s.dispatched,
            busy_s: s.busy_ns as f64 / 1e9,
            packed_files: self.map.files,
            packed_bytes: self.map.packed_pages() * PAGE_SIZE_BYTES,
            real_span_bytes: self.map.real_span_pages() * PAGE_SIZE_BYTES,
            owners_exited: s.owners_exited,
            anticipation: s.sched.anticipation(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{mpsc, Arc};

    struct Running {
        dev: Arc<EmulatedDevice>,
        clock: Clock,
        served: mpsc::Receiver<Ticket>,
        thread: std::thread::JoinHandle<()>,
    }

    fn running(sched: &str) -> Running {
        running_with(sched, proc_thread_start)
    }

    /// The device behind `sched`, its threads told apart by `thread_start`, with its dispatcher running.
    fn running_with(sched: &str, thread_start: ThreadStart) -> Running {
        let mut dev = EmulatedDevice::new(
            &DeviceSpec::parse("hdd").unwrap(),
            &SchedulerSpec::parse(sched).unwrap(),
            NR_REQUESTS_DEFAULT,
        );
        dev.identify_threads_with(thread_start);
        let dev = Arc::new(dev);
        let clock = Clock::start();
        let (tx, served) = mpsc::channel();
        let d = Arc::clone(&dev);
        let thread = std::thread::spawn(move || d.run(&clock, |t| tx.send(t).unwrap()));
        Running { dev, clock, served, thread }
    }

    impl Running {
        fn next_served(&self) -> Ticket {
            self.served.recv_timeout(Duration::from_secs(10)).expect("a ticket is served")
        }
        fn stop(self) {
            self.dev.stop();
            self.thread.join().unwrap();
        }
    }

    /// The dispatcher offers the disk to the scheduler only at a queue run (a request added or completed, an
    /// owner's exit, the time of its last `WaitUntil`), as the simulator does: a wake-up that is none of
    /// these must not let CFQ re-arm its idle timer from "now", or the idle window never ends while wake-ups
    /// keep coming. Driven by hand, without the dispatcher thread, at chosen times.
    #[test]
    fn only_queue_runs_reach_the_scheduler_so_cfqs_idle_window_ends_on_time() {
        let mut dev = EmulatedDevice::new(
            &DeviceSpec::parse("hdd").unwrap(),
            &SchedulerSpec::parse("cfq").unwrap(),
            NR_REQUESTS_DEFAULT,
        );
        dev.identify_threads_with(|_| Some(1)); // the owners never exit
        let clock = Clock::start();
        let ms = |t: u64| Nanos(10_000_000_000 + t * 1_000_000); // far past the real clock's reading
        let submit_at = |dev: &EmulatedDevice, t: Nanos, owner: u32, lbn: u64| {
            dev.lock().last_now = t;
            dev.submit(&clock, StreamId(owner), Lbn(lbn), 1)
        };
        // Owner 1 reads page after page, each read 0.1 ms after the last one completed: a short think time,
        // so CFQ's idle window for owner 1 is open once its last read has been served.
        let mut done_at = ms(0);
        for page in 0..8 {
            let at = Nanos(done_at.0 + 100_000);
            submit_at(&dev, at, 1, page);
            let mut s = dev.lock();
            done_at = dev.dispatch(&mut s, at).expect("the read is in service");
            let mut done = Vec::new();
            dev.complete_due(&mut s, done_at, &mut done);
            assert_eq!(done.len(), 1);
            dev.dispatch(&mut s, done_at);
        }
        // Owner 2's far read arrives 1 ms into the window: a queue run, where CFQ keeps the disk idle for
        // owner 1 (with nothing else queued it had no wait to report).
        let t = Nanos(done_at.0 + 1_000_000);
        let far = submit_at(&dev, t, 2, 1_000_000);
        let mut s = dev.lock();
        dev.dispatch(&mut s, t);
        let armed = s.wait_until.expect("CFQ idles for the owner that just read");
        assert!(armed > t && s.in_service.is_empty());
        // Wake-ups that are no queue run (a spurious one, the thread sweep) leave the timer where it is.
        for k in 1..=5 {
            let spurious = Nanos(t.0 + k * (armed.0 - t.0) / 6);
            assert_eq!(dev.dispatch(&mut s, spurious), Some(armed), "the wait stays armed for {armed:?}");
            assert_eq!((s.wait_until, s.in_service.len()), (Some(armed), 0));
        }
        // At the timer the window ends and owner 2's read is dispatched.
        dev.dispatch(&mut s, armed);
        assert_eq!(s.in_service.len(), 1, "owner 2's read is dispatched when the idle window ends");
        let part = s.in_service[0].0.parts[0];
        assert_eq!(s.ticket_of[&part], far.0, "it is owner 2's read");
    }

    /// The model's timeline does not depend on when the dispatcher thread wakes: a read queued behind
    /// another starts when the model's disk is free, as a kernel's `request_fn` starts it at the interrupt,
    /// not when the dispatcher notices the completion half a millisecond later. Driven by hand at chosen
    /// times, a read four pages past the first on the Cheetah 9LP: started at the late wake-up instead, it
    /// ended 6.0 ms later (a rotation missed).
    #[test]
    fn a_late_dispatcher_does_not_move_the_models_timeline() {
        let t0 = Nanos(10_000_000_000); // far past the real clock's reading
        let second_done = |late: Nanos| {
            let dev = EmulatedDevice::new(
                &DeviceSpec::parse("hdd").unwrap(),
                &SchedulerSpec::parse("noop").unwrap(),
                NR_REQUESTS_DEFAULT,
            );
            let clock = Clock::start();
            dev.lock().last_now = t0;
            dev.submit(&clock, StreamId(1), Lbn(0), 1);
            dev.submit(&clock, StreamId(2), Lbn(4), 1);
            let mut s = dev.lock();
            let first_done = dev.dispatch(&mut s, t0).expect("the first read is in service");
            let woke = Nanos(first_done.0 + late.0);
            s.last_now = woke;
            let mut done = Vec::new();
            dev.complete_due(&mut s, woke, &mut done);
            assert_eq!(done.len(), 1);
            let second = dev.dispatch(&mut s, woke).expect("the second read is in service");
            (first_done, second)
        };
        let (first_done, on_time) = second_done(Nanos::ZERO);
        let (_, late) = second_done(Nanos(500_000));
        assert!(on_time > first_done);
        assert_eq!(late, on_time, "the second read ends at the same model time however late the dispatcher");
    }

    #[test]
    fn a_random_read_costs_a_seek_and_every_ticket_is_served_once() {
        let r = running("noop");
        let start = r.clock.now();
        let a = r.dev.submit(&r.clock, StreamId(1), Lbn(0), 1);
        let b = r.dev.submit(&r.clock, StreamId(2), Lbn(1_000_000), 1);
        assert_eq!((r.next_served(), r.next_served()), (a, b), "noop serves in arrival order");
        // Two reads far apart on the Cheetah 9LP take milliseconds, not microseconds.
        assert!(r.clock.now().0 - start.0 > 1_000_000);
        let stats = r.dev.stats();
        assert_eq!((stats.requests, stats.scheduler.as_str()), (2, "noop"));
        assert!(stats.busy_s > 0.001);
        // Past the model's capacity wraps instead of failing the model's contract; a fetch over the merge
        // limit is split into requests and its ticket is served once, after all of them.
        let big = r.dev.submit(&r.clock, StreamId(1), Lbn(u64::MAX / 16), 512);
        assert_eq!(r.next_served(), big);
        assert_eq!(r.dev.stats().requests, 2 + 4, "2 MiB in requests of at most 512 KiB");
        assert!(r.served.recv_timeout(Duration::from_millis(50)).is_err(), "served once");
        r.stop();
    }

    /// The anticipatory scheduler keeps the disk for the thread that just read: its next nearby read,
    /// submitted within `antic_expire` after the completion, is served before another thread's far read
    /// that was queued first. Noop serves the far read first.
    #[test]
    fn the_anticipatory_scheduler_waits_for_the_thread_that_just_read() {
        for (sched, first) in [("anticipatory", "near"), ("noop", "far")] {
            let r = running(sched);
            let warm = r.dev.submit(&r.clock, StreamId(1), Lbn(100), 8);
            assert_eq!(r.next_served(), warm);
            let far = r.dev.submit(&r.clock, StreamId(2), Lbn(2_000_000), 8);
            let near = r.dev.submit(&r.clock, StreamId(1), Lbn(108), 8);
            let got = r.next_served();
            let which = if got == near {
                "near"
            } else if got == far {
                "far"
            } else {
                "?"
            };
            assert_eq!(which, first, "{sched}");
            r.next_served();
            r.stop();
        }
    }

    #[test]
    fn a_threads_start_time_is_read_past_its_command_name() {
        let fields: Vec<String> = (3..=22).map(|f| f.to_string()).collect();
        let line = format!("4242 (a) (b c)) {}", fields.join(" "));
        assert_eq!(stat_start_time(&line), Some(22));
        assert_eq!(stat_start_time("4242 (short) S 1 2"), None);
        assert_eq!(stat_start_time("no parenthesis"), None);
        let me = proc_thread_start(std::process::id());
        assert!(me.is_some() || !std::path::Path::new("/proc/self/stat").exists());
    }

    /// A tid the kernel gave to a new thread is a new I/O context: the old thread is reported exited to
    /// the scheduler before the new one's first request; a known thread that is gone is reported by the
    /// dispatcher's sweep.
    #[test]
    fn threads_that_exit_or_whose_tid_is_reused_are_reported_to_the_scheduler() {
        use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
        static START_OF_7: AtomicU64 = AtomicU64::new(1);
        static GONE_9: AtomicU64 = AtomicU64::new(0);
        fn start(tid: u32) -> Option<u64> {
            match tid {
                7 => Some(START_OF_7.load(SeqCst)),
                9 if GONE_9.load(SeqCst) == 1 => None,
                _ => Some(5),
            }
        }
        let r = running_with("anticipatory", start);
        let a = r.dev.submit(&r.clock, StreamId(7), Lbn(100), 8);
        assert_eq!(r.next_served(), a);
        let b = r.dev.submit(&r.clock, StreamId(7), Lbn(108), 8);
        assert_eq!(r.next_served(), b);
        assert_eq!(r.dev.stats().owners_exited, 0, "the same thread");
        START_OF_7.store(2, SeqCst);
        let c = r.dev.submit(&r.clock, StreamId(7), Lbn(116), 8);
        assert_eq!(r.next_served(), c);
        assert_eq!(r.dev.stats().owners_exited, 1, "tid 7 names a new thread");
        let d = r.dev.submit(&r.clock, StreamId(9), Lbn(500), 8);
        assert_eq!(r.next_served(), d);
        GONE_9.store(1, SeqCst);
        // The dispatcher sweeps when it next wakes a second after its last sweep.
        std::thread::sleep(Duration::from_millis(1_100));
        let e = r.dev.submit(&r.clock, StreamId(10), Lbn(900), 8);
        assert_eq!(r.next_served(), e);
        assert_eq!(r.dev.stats().owners_exited, 2, "tid 9 is gone");
        r.stop();
    }

    #[test]
    fn stop_ends_the_dispatcher_with_tickets_outstanding() {
        let r = running("anticipatory");
        r.dev.submit(&r.clock, StreamId(1), Lbn(0), 1);
        r.stop();
    }
}
