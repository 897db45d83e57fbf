//! The engine: the core's [`BufferCache`] under one lock, with real time injected, driven as the simulator
//! drives it.
//!
//! A read is a [`ReadCursor`] run under the lock, pinning the pages it delivers. A read that finishes
//! without waiting (a hit) has its pages copied out of the arena into the reply *outside* the lock (one
//! gather copy, concurrent readers in parallel), and its pins go to a small unpin queue that the next holder
//! of the lock drains: it takes the engine's lock once. A read that must wait first copies what it has and
//! unpins it, so that waiting reads hold no memory the reads they wait for might need; it then waits in
//! `waiting` under the fetch's id (or in `no_memory`), without a thread: the I/O thread that completes the
//! fetch resumes it under the same lock and answers it, so a handful of FUSE threads serve any number of
//! outstanding misses. Misses and readahead are read by a pool of I/O threads with O_DIRECT straight into
//! the fetch's slots. kswapd (and split reclaim's iswapd) is a thread that steps the core's reclaim while it
//! is awake, releasing the lock between batches.
//!
//! Under `--emulate-device`, a fetch is also submitted to the emulated device's scheduler when it is
//! queued, and completes when both its read has ended and the device's dispatcher thread has served it
//! (whichever comes second; [`crate::io`]).
//!
//! Locks: the engine's, then the unpin queue's or the emulated device's (the only nestings: a read asks the
//! device whether its queue is congested); the I/O queue's, the parked fetches' and the failure record's
//! are taken alone, and the device's dispatcher takes no other lock while it holds its own. Replies are
//! sent after the engine's lock is released, and nothing blocks under it (I/O, replies, /proc reads and
//! FIEMAP happen outside it).

use crate::arena::Arena;
use crate::io::{Clock, EmulatedDevice, Ticket};
use crate::source::{LayoutSource, SourceFile};
use crate::stats::{LiveStats, MetadataWork, PageStats, PrefetchCacheWork, WhatIfPoint};
use pagelab_core::buffer::{
    BufferCache, BufferCacheConfig, Counters, Fetch, Pin, ReadCursor, ReadOutcome, ReadStatus, Slot,
    ThrashDetector,
};
use pagelab_core::whatif::{MemRx, PredictionStep};
use pagelab_core::{FileId, Nanos, StreamId, PAGE_SIZE_BYTES};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

type Obs = (Counters, (ThrashDetector, Option<MemRx>));

/// The largest reply buffer a thread keeps between reads (FUSE's largest read is 1 MiB).
const REPLY_BUF_KEPT_BYTES: usize = 1 << 20;

thread_local! {
    static REPLY_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How a finished read is answered: the bytes, or an errno. Called once, without the engine's lock.
pub type Reply = Box<dyn FnOnce(Result<&[u8], i32>) + Send>;

/// The longest kswapd sleeps before it looks at memory again without being woken.
const KSWAPD_IDLE: Duration = Duration::from_millis(100);

pub struct EngineConfig {
    pub cache: BufferCacheConfig,
    /// Threads reading the source (misses and readahead in flight at once, at most).
    pub io_threads: u32,
    pub device: Option<EmulatedDevice>,
    /// Li & Shen's eviction history for prefetch thrashing, in pages.
    pub thrash_history_pages: u32,
    pub whatif: Option<MemRx>,
    /// What `stats` reports the mount runs.
    pub labels: Labels,
}

/// The mount's configuration as `stats` names it.
#[derive(Clone, Debug)]
pub struct Labels {
    pub policy: String,
    pub prefetch: String,
    pub prefetch_cache: String,
    pub metadata: String,
}

/// One `read()` in progress.
struct PendingRead {
    cursor: ReadCursor,
    /// The thread that called `read()` (FUSE's pid): the I/O context the emulated device's scheduler
    /// anticipates, as Linux's anticipatory scheduler anticipates a task, not a file.
    issuer: u32,
    source: Arc<SourceFile>,
    /// Bytes `[offset, offset + len)` of the file.
    offset: u64,
    len: usize,
    reply: Reply,
    /// The pages delivered and not yet copied, in file order, pinned until they are.
    pins: Vec<Pin>,
    /// The reply's first bytes, copied when the read had to wait (empty for a read that never waited).
    copied: Vec<u8>,
}

struct IoJob {
    fetch: Fetch,
    /// The thread whose read issued the fetch (its readahead included).
    issuer: u32,
    /// The fetch on the emulated device, if there is one (submitted when the fetch is queued).
    ticket: Option<Ticket>,
    slots: Vec<Slot>,
    source: Arc<SourceFile>,
}

/// What an I/O thread does next.
enum IoWork {
    /// Read a fetch's pages from the source.
    Read(IoJob),
    /// Complete a fetch whose read had ended before the emulated device served it.
    Complete(IoJob, Result<(), i32>),
}

/// Fetches read from the source and not yet served by the emulated device, and tickets the device served
/// before the read ended: whichever comes second completes the fetch.
#[derive(Default)]
struct Parked {
    reads: FxHashMap<Ticket, (IoJob, Result<(), i32>)>,
    served: rustc_hash::FxHashSet<Ticket>,
}

struct Finished {
    read: PendingRead,
    result: Result<(), i32>,
}

#[derive(Default)]
struct Work {
    jobs: Vec<IoJob>,
    finished: Vec<Finished>,
}

struct Inner {
    cache: BufferCache<Obs>,
    out: ReadOutcome,
    /// Reads blocked on a fetch, by fetch id.
    waiting: FxHashMap<u64, Vec<PendingRead>>,
    /// Reads that found every frame in flight: resumed at the next completion or reclaim.
    no_memory: Vec<PendingRead>,
    /// Reads begun and not answered, and how many of them wait for I/O (MemRx's idle: all of them do).
    active: u32,
    blocked: u32,
    next_stream: u32,
    reads: u64,
    read_bytes: u64,
    read_errors: u64,
    opens_direct: u64,
    opens_buffered: u64,
    opens_fiemap: u64,
    opens_fallback: u64,
    /// A reading thread's CPU time given to its stream (Coldest+'s ranking), as the core accepted it.
    stream_cpu_samples: u64,
}

pub struct Engine {
    inner: Mutex<Inner>,
    /// kswapd's wake-up (paired with `inner`).
    kswapd_cv: Condvar,
    /// A fetch completed (paired with `inner`): kswapd waits for one after a batch that freed nothing.
    completed_cv: Condvar,
    io_queue: Mutex<VecDeque<IoWork>>,
    /// Lock taken alone.
    parked: Mutex<Parked>,
    /// Pins of answered reads, given back by the next holder of `inner` (lock order: `inner`, then this).
    unpins: Mutex<Vec<Pin>>,
    /// Reads waiting for memory (`Inner::no_memory`'s length): an answer that frees pins then takes the lock.
    no_memory_len: AtomicUsize,
    io_cv: Condvar,
    arena: Arena,
    clock: Clock,
    device: Option<EmulatedDevice>,
    shutdown: AtomicBool,
    /// An engine thread panicked (a broken invariant): the daemon unmounts and reports it.
    failed: Mutex<Option<String>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    io_threads: u32,
    labels: Labels,
}

/// The prefetch cache's counters for `pagelab stats` (zeros without one).
fn prefetch_cache_work(cache: &BufferCache<Obs>, stream_cpu_samples: u64) -> PrefetchCacheWork {
    let s = cache.prefetch_cache().map(|pc| pc.stats()).unwrap_or_default();
    PrefetchCacheWork {
        inserted: s.inserted,
        used: s.used,
        reclaimed_exited: s.reclaimed_exited,
        reclaimed_ordered: s.reclaimed_ordered,
        stream_cpu_samples,
    }
}

/// The metadata cache's counters for `pagelab stats` (zeros without one).
fn metadata_work(cache: &BufferCache<Obs>) -> MetadataWork {
    let s = cache.metadata_stats().unwrap_or_default();
    MetadataWork {
        lookups: s.lookups,
        hits: s.hits,
        objects_max: s.objects_max,
        shrinker_freed_objects: s.shrinker.objects_freed,
        iswapd_steps: s.iswapd_steps,
        iswapd_freed_objects: s.iswapd.objects_freed,
        metadata_reclaims: s.metadata_reclaims,
        metadata_reclaim_freed_objects: s.metadata_reclaim.objects_freed,
    }
}

/// Lock `m`, surviving a thread that panicked while holding it (its state is checked by the core's
/// assertions on the next call).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Engine {
    /// The engine with its I/O threads and kswapd running. Errors name what is wrong with the configuration.
    pub fn start(config: EngineConfig) -> Result<Arc<Engine>, String> {
        let usable = config.cache.memory.usable_pages();
        let arena = Arena::new(usable).ok_or_else(|| format!("cannot allocate {usable} pages of frames"))?;
        let observer =
            (Counters::default(), (ThrashDetector::new(config.thrash_history_pages), config.whatif));
        let cache = BufferCache::with_observer(config.cache, observer).map_err(|e| e.to_string())?;
        let clock = Clock::start();
        let inner = Inner {
            cache,
            out: ReadOutcome::default(),
            waiting: FxHashMap::default(),
            no_memory: Vec::new(),
            active: 0,
            blocked: 0,
            next_stream: 1,
            reads: 0,
            read_bytes: 0,
            read_errors: 0,
            opens_direct: 0,
            opens_buffered: 0,
            opens_fiemap: 0,
            opens_fallback: 0,
            stream_cpu_samples: 0,
        };
        let engine = Arc::new(Engine {
            inner: Mutex::new(inner),
            kswapd_cv: Condvar::new(),
            completed_cv: Condvar::new(),
            io_queue: Mutex::new(VecDeque::new()),
            parked: Mutex::new(Parked::default()),
            unpins: Mutex::new(Vec::new()),
            no_memory_len: AtomicUsize::new(0),
            io_cv: Condvar::new(),
            arena,
            clock,
            device: config.device,
            shutdown: AtomicBool::new(false),
            failed: Mutex::new(None),
            threads: Mutex::new(Vec::new()),
            io_threads: config.io_threads.max(1),
            labels: config.labels,
        });
        if let Some(m) = &mut lock(&engine.inner).cache.observer_mut().1 .1 {
            m.set_idle(Nanos::ZERO, false);
            m.begin_window(Nanos::ZERO);
        }
        let spawn = |name: String, body: fn(Arc<Engine>)| {
            let e = Arc::clone(&engine);
            let t = std::thread::Builder::new().name(name.clone()).spawn(move || e.guarded(body));
            t.map_err(|err| format!("cannot start {name}: {err}"))
        };
        let mut started = Ok(());
        for i in 0..engine.io_threads {
            match spawn(format!("pagelab-io-{i}"), Engine::io_worker) {
                Ok(t) => lock(&engine.threads).push(t),
                Err(e) => started = Err(e),
            }
        }
        match spawn("pagelab-kswapd".into(), Engine::kswapd_worker) {
            Ok(t) => lock(&engine.threads).push(t),
            Err(e) => started = Err(e),
        }
        if engine.device.is_some() {
            match spawn("pagelab-disk".into(), Engine::device_worker) {
                Ok(t) => lock(&engine.threads).push(t),
                Err(e) => started = Err(e),
            }
        }
        if let Err(e) = started {
            engine.shutdown(); // the threads that did start end, and release the engine
            return Err(e);
        }
        Ok(engine)
    }

    /// Run an engine thread's body; a panic (a broken invariant: the core asserts them) is recorded for
    /// [`Engine::failure`] instead of leaving the reads that depended on the thread hanging unnoticed.
    fn guarded(self: Arc<Self>, body: fn(Arc<Engine>)) {
        let me = Arc::clone(&self);
        if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || body(me))) {
            self.record_failure(panic.as_ref());
        }
    }

    /// Record that a thread of the engine (or a FUSE thread inside it) panicked with `panic`.
    pub fn record_failure(&self, panic: &(dyn std::any::Any + Send)) {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into());
        let name = std::thread::current().name().unwrap_or("an engine thread").to_string();
        lock(&self.failed).get_or_insert(format!("{name} failed: {what}"));
    }

    /// Why the engine cannot go on, if one of its threads failed.
    pub fn failure(&self) -> Option<String> {
        lock(&self.failed).clone()
    }

    /// Stop the threads (after the file system is unmounted: no read is outstanding). Reads still waiting
    /// are answered with `EIO`. Idempotent.
    pub fn shutdown(&self) {
        if self.shutdown.swap(true, Ordering::SeqCst) {
            return;
        }
        {
            let _g = lock(&self.inner);
            self.kswapd_cv.notify_all();
            self.completed_cv.notify_all();
        }
        {
            let _q = lock(&self.io_queue);
            self.io_cv.notify_all();
        }
        if let Some(device) = &self.device {
            device.stop(); // its dispatcher ends; fetches it has not served are never completed
        }
        for t in std::mem::take(&mut *lock(&self.threads)) {
            let _ = t.join();
        }
        let mut finished = Vec::new();
        {
            let mut g = lock(&self.inner);
            let g = &mut *g;
            let pending: Vec<PendingRead> =
                g.waiting.drain().flat_map(|(_, v)| v).chain(std::mem::take(&mut g.no_memory)).collect();
            for p in pending {
                finished.push(Finished { read: p, result: Err(libc::EIO) });
            }
        }
        self.answer(finished);
    }

    /// Whether [`Engine::shutdown`] has run.
    pub fn is_shut_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// A new stream: an open file handle (its release is the owner's exit, Li & Shen's heuristic #1).
    pub fn open_stream(&self, source: &SourceFile) -> StreamId {
        let mut g = lock(&self.inner);
        let now = self.clock.now();
        let stream = StreamId(g.next_stream);
        g.next_stream = g.next_stream.wrapping_add(1).max(1);
        g.cache.stream_opened(now, stream);
        if source.direct {
            g.opens_direct += 1;
        } else {
            g.opens_buffered += 1;
        }
        match source.layout_source {
            LayoutSource::Fiemap => g.opens_fiemap += 1,
            LayoutSource::Fallback => g.opens_fallback += 1,
        }
        stream
    }

    /// The handle was released: its file is closed and its owner has exited.
    pub fn close_stream(&self, stream: StreamId, file: FileId) {
        let mut g = lock(&self.inner);
        let now = self.clock.now();
        g.cache.file_closed(now, stream, file);
        g.cache.stream_closed(now, stream);
    }

    /// `stream`'s owner ran `cpu_ns` since the last report (Coldest+ ranks streams by it).
    pub fn stream_cpu(&self, stream: StreamId, cpu_ns: u64) {
        let mut g = lock(&self.inner);
        let now = self.clock.now();
        // A closed stream's late report is dropped (and not counted).
        if g.cache.stream_cpu(now, stream, cpu_ns).is_ok() {
            g.stream_cpu_samples += 1;
        }
    }

    /// A lookup or getattr of `ino`: a hit in the metadata cache, or its object cached now (`false` also when
    /// there is no metadata cache, or no memory could be had for it now: the attributes are served anyway).
    pub fn stat(&self, ino: u64) -> bool {
        let mut g = lock(&self.inner);
        if g.cache.metadata().is_none() {
            return false;
        }
        if g.cache.metadata_lookup(ino) {
            return true;
        }
        let now = self.clock.now();
        let g = &mut *g;
        g.out.clear();
        // The kernel below reads the inode; the model's lookup holds none (`metadata_iget` is not asked).
        g.cache.metadata_insert(now, ino, false, &mut g.out);
        self.wake_reclaimers(g);
        false
    }

    /// Read bytes `[offset, offset + size)` of `source` for `stream`, called by thread `issuer`, answering
    /// `reply` now (a hit) or when the fetches it waits for complete.
    pub fn read(
        &self,
        stream: StreamId,
        issuer: u32,
        source: Arc<SourceFile>,
        offset: u64,
        size: u32,
        reply: Reply,
    ) {
        let end = offset.saturating_add(size as u64).min(source.size_bytes);
        if end <= offset {
            reply(Ok(&[]));
            return;
        }
        let first = offset / PAGE_SIZE_BYTES;
        let last = end.div_ceil(PAGE_SIZE_BYTES);
        let mut work = Work::default();
        {
            let mut g = lock(&self.inner);
            let now = self.clock.now();
            let cursor = match g.cache.begin_read(now, stream, source.file, first, last, source.pages()) {
                Ok(c) => c.pinned(),
                Err(_) => {
                    // The file grew past what a page key can name: refuse rather than guess.
                    drop(g);
                    reply(Err(libc::EFBIG));
                    return;
                }
            };
            self.drain_unpins(&mut g);
            g.active += 1;
            g.reads += 1;
            let len = (end - offset) as usize;
            let p = PendingRead {
                cursor,
                issuer,
                source,
                offset,
                len,
                reply,
                pins: Vec::new(),
                copied: Vec::new(),
            };
            self.drive(&mut g, now, p, &mut work);
            self.set_idle(&mut g, now);
            self.wake_reclaimers(&mut g);
        }
        self.dispatch(work);
    }

    /// Run `p`'s cursor until it finishes or blocks; caller holds the lock.
    fn drive(&self, g: &mut Inner, now: Nanos, mut p: PendingRead, work: &mut Work) {
        let Inner { cache, out, .. } = g;
        out.clear();
        if let Some(device) = &self.device {
            cache.set_read_congested(device.read_congested());
        }
        // An error (a layout that does not map a window: a source file changed under the mount) fails the
        // read with EIO once the fetches the call issued before it are on their way.
        let result = cache.read(now, &mut p.cursor, &*p.source, out);
        p.pins.append(&mut out.pins);
        for fetch in out.fetches.drain(..) {
            debug_assert!(!fetch.write, "a read-only mount never writes");
            let mut slots = Vec::with_capacity(fetch.pages as usize);
            cache.fetch_slots(&fetch, &mut slots).expect("a fetch the cache just issued");
            work.jobs.push(IoJob {
                fetch,
                issuer: p.issuer,
                ticket: None,
                slots,
                source: Arc::clone(&p.source),
            });
        }
        if result.is_err() {
            for pin in p.pins.drain(..) {
                g.cache.unpin(pin).expect("a pin this engine's cache gave");
            }
            g.active -= 1;
            g.read_errors += 1;
            work.finished.push(Finished { read: p, result: Err(libc::EIO) });
            return;
        }
        let status = out.status;
        if status != ReadStatus::Done {
            // A waiting read holds no pins: pages it pinned could be all the memory the reads it waits for
            // need (readers holding part of their pages while waiting for the rest would deadlock). Its pages
            // so far are copied now, under the lock; a read that never waits copies after the lock.
            self.gather(&mut p);
            for pin in p.pins.drain(..) {
                g.cache.unpin(pin).expect("a pin this engine's cache gave");
            }
        }
        match status {
            ReadStatus::Done => {
                g.active -= 1;
                g.read_bytes += p.len as u64;
                work.finished.push(Finished { read: p, result: Ok(()) });
            }
            ReadStatus::Blocked { fetch } => {
                g.blocked += 1;
                g.waiting.entry(fetch).or_default().push(p);
            }
            ReadStatus::NoMemory => {
                g.blocked += 1;
                g.no_memory.push(p);
                self.no_memory_len.store(g.no_memory.len(), Ordering::SeqCst);
            }
            ReadStatus::Throttled => unreachable!("reads are never throttled"),
        }
    }

    /// Append the requested part of each of `p`'s pinned pages to `p.copied`, in file order. Caller holds
    /// the pins.
    fn gather(&self, p: &mut PendingRead) {
        let mut buf = std::mem::take(&mut p.copied);
        self.gather_into(p, &mut buf);
        p.copied = buf;
    }

    /// Append the requested part of each of `p`'s pinned pages to `buf`, which holds the reply's first
    /// bytes (one gather copy, no zero-fill: the pages cover the request exactly, in order). Caller holds
    /// the pins.
    fn gather_into(&self, p: &PendingRead, buf: &mut Vec<u8>) {
        buf.reserve(p.len - buf.len());
        let end = p.offset + p.len as u64;
        for pin in &p.pins {
            let page_start = pin.index() * PAGE_SIZE_BYTES;
            let from = p.offset + buf.len() as u64;
            assert_eq!(page_start.max(p.offset), from, "pins cover the read in order");
            let to = end.min(page_start + PAGE_SIZE_BYTES);
            // SAFETY: the page is pinned (its slot is not reused until the pin is given back) and was
            // delivered under the engine's lock after its fetch completed, so the I/O's writes happened
            // before (Arena's doc).
            let page = unsafe { self.arena.page(pin.slot()) };
            buf.extend_from_slice(&page[(from - page_start) as usize..(to - page_start) as usize]);
        }
    }

    /// Give back the pins of answered reads. Caller holds the lock.
    fn drain_unpins(&self, g: &mut Inner) {
        for pin in lock(&self.unpins).drain(..) {
            g.cache.unpin(pin).expect("a pin this engine's cache gave");
        }
    }

    /// Resume every read that waits for memory. Caller holds the lock.
    fn resume_no_memory(&self, g: &mut Inner, now: Nanos, work: &mut Work) {
        self.no_memory_len.store(0, Ordering::SeqCst);
        for p in std::mem::take(&mut g.no_memory) {
            g.blocked -= 1;
            self.drive(g, now, p, work);
        }
    }

    /// MemRx's idle: reads are outstanding and every one of them waits for I/O.
    fn set_idle(&self, g: &mut Inner, now: Nanos) {
        let idle = g.active > 0 && g.blocked == g.active;
        if let Some(m) = &mut g.cache.observer_mut().1 .1 {
            m.set_idle(now, idle);
        }
    }

    fn wake_reclaimers(&self, g: &mut Inner) {
        if g.cache.kswapd_awake() || g.cache.iswapd_awake() {
            self.kswapd_cv.notify_one();
        }
    }

    /// Queue the fetches for the I/O threads and answer the finished reads, without the engine's lock.
    /// If reads wait for memory and answered reads gave pins back, those pins are unpinned now and the
    /// waiting reads resumed, and so on: bounded, since each round answers at least one read.
    fn dispatch(&self, mut work: Work) {
        loop {
            if !work.jobs.is_empty() {
                // The device's scheduler sees every fetch as soon as it is issued, as a kernel's elevator
                // sees every request in its queue; the I/O threads only read the source.
                if let Some(device) = &self.device {
                    for job in &mut work.jobs {
                        let issuer = StreamId(job.issuer);
                        job.ticket = Some(device.submit(&self.clock, issuer, job.fetch.lbn, job.fetch.pages));
                    }
                }
                let mut q = lock(&self.io_queue);
                q.extend(work.jobs.drain(..).map(IoWork::Read));
                self.io_cv.notify_all();
            }
            let unpinned = self.answer(std::mem::take(&mut work.finished));
            if !unpinned || self.no_memory_len.load(Ordering::SeqCst) == 0 {
                return;
            }
            let mut g = lock(&self.inner);
            self.drain_unpins(&mut g);
            let now = self.clock.now();
            self.resume_no_memory(&mut g, now, &mut work);
            self.set_idle(&mut g, now);
        }
    }

    /// Copy finished reads' pages out of the arena, answer them, and queue their pins to be given back; all
    /// without the engine's lock (a reply writes to /dev/fuse). Whether any pin was queued.
    fn answer(&self, finished: Vec<Finished>) -> bool {
        if finished.is_empty() {
            return false;
        }
        let mut unpins = Vec::new();
        for f in finished {
            let mut read = f.read;
            match f.result {
                // A read that never waited uses its thread's reply buffer: a fresh 128 KiB allocation per read
                // would be an mmap and its page faults (glibc's threshold).
                Ok(()) if read.copied.is_empty() => REPLY_BUF.with_borrow_mut(|buf| {
                    buf.clear();
                    self.gather_into(&read, buf);
                    assert_eq!(buf.len(), read.len, "the delivered pages cover the read");
                    unpins.append(&mut read.pins);
                    (read.reply)(Ok(buf));
                    if buf.capacity() > REPLY_BUF_KEPT_BYTES {
                        *buf = Vec::new();
                    }
                }),
                Ok(()) => {
                    self.gather(&mut read);
                    assert_eq!(read.copied.len(), read.len, "the delivered pages cover the read");
                    unpins.append(&mut read.pins);
                    (read.reply)(Ok(&read.copied));
                }
                Err(errno) => {
                    unpins.append(&mut read.pins);
                    (read.reply)(Err(errno));
                }
            }
        }
        if unpins.is_empty() {
            return false;
        }
        lock(&self.unpins).append(&mut unpins);
        true
    }

    fn io_worker(self: Arc<Self>) {
        let mut ptrs = Vec::new();
        loop {
            let work = {
                let mut q = lock(&self.io_queue);
                loop {
                    if let Some(work) = q.pop_front() {
                        break work;
                    }
                    if self.shutdown.load(Ordering::SeqCst) {
                        return;
                    }
                    q = self.io_cv.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            let job = match work {
                IoWork::Read(job) => job,
                IoWork::Complete(job, result) => {
                    self.complete(job, result);
                    continue;
                }
            };
            ptrs.clear();
            // SAFETY: the slots belong to this fetch, in flight, and this thread is its only reader.
            ptrs.extend(job.slots.iter().map(|&s| unsafe { self.arena.page_ptr(s) }));
            // SAFETY: as above; each pointer is a whole 4 KiB-aligned page of the arena.
            let result = unsafe { job.source.read_pages(job.fetch.first_page, &ptrs) };
            let result = result.map_err(|e| e.raw_os_error().unwrap_or(libc::EIO));
            // Under an emulated device the fetch completes when the device has served it too.
            if let Some(ticket) = job.ticket {
                let mut parked = lock(&self.parked);
                if !parked.served.remove(&ticket) {
                    parked.reads.insert(ticket, (job, result));
                    continue;
                }
            }
            self.complete(job, result);
        }
    }

    /// The emulated device's dispatcher; a fetch it serves whose read has ended is completed by an I/O
    /// thread (ahead of reads queued: the device's order is the order fetches complete in).
    fn device_worker(self: Arc<Self>) {
        let device = self.device.as_ref().expect("the dispatcher runs only with a device");
        device.run(&self.clock, |ticket| {
            let read = {
                let mut parked = lock(&self.parked);
                let read = parked.reads.remove(&ticket);
                if read.is_none() {
                    parked.served.insert(ticket);
                }
                read
            };
            if let Some((job, result)) = read {
                lock(&self.io_queue).push_front(IoWork::Complete(job, result));
                self.io_cv.notify_one();
            }
        });
    }

    /// A fetch's read ended: insert its pages (or drop them) and resume the reads waiting for it.
    fn complete(&self, job: IoJob, result: Result<(), i32>) {
        let mut work = Work::default();
        {
            let mut g = lock(&self.inner);
            self.drain_unpins(&mut g);
            let now = self.clock.now();
            let waiters = g.waiting.remove(&job.fetch.id).unwrap_or_default();
            match result {
                Ok(()) => g.cache.fetch_done(now, &job.fetch).expect("a fetch in flight in this cache"),
                Err(_) => g.cache.fetch_failed(now, &job.fetch).expect("a fetch in flight in this cache"),
            }
            for p in waiters {
                g.blocked -= 1;
                match result {
                    Ok(()) => self.drive(&mut g, now, p, &mut work),
                    Err(errno) => {
                        // A live driver fails the call instead of refetching a page that cannot be read.
                        g.active -= 1;
                        g.read_errors += 1;
                        work.finished.push(Finished { read: p, result: Err(errno) });
                    }
                }
            }
            self.resume_no_memory(&mut g, now, &mut work);
            self.set_idle(&mut g, now);
            self.wake_reclaimers(&mut g);
            self.completed_cv.notify_all();
        }
        self.dispatch(work);
    }

    fn kswapd_worker(self: Arc<Self>) {
        let mut fetches = Vec::new();
        loop {
            let mut work = Work::default();
            {
                let mut g = lock(&self.inner);
                while !(self.shutdown.load(Ordering::SeqCst)
                    || g.cache.kswapd_awake()
                    || g.cache.iswapd_awake())
                {
                    self.drain_unpins(&mut g);
                    let now = self.clock.now();
                    g.cache.settle(now);
                    g = self.kswapd_cv.wait_timeout(g, KSWAPD_IDLE).unwrap_or_else(|e| e.into_inner()).0;
                }
                if self.shutdown.load(Ordering::SeqCst) {
                    return;
                }
                self.drain_unpins(&mut g);
                let now = self.clock.now();
                let mut freed = 0;
                if g.cache.kswapd_awake() {
                    if let Some(cost) = g.cache.kswapd_step(now, &mut fetches) {
                        freed += cost.freed;
                    }
                    assert!(fetches.is_empty(), "a read-only cache has nothing to write");
                }
                if g.cache.iswapd_awake() {
                    if let Some(cost) = g.cache.iswapd_step(now) {
                        freed += cost.freed;
                    }
                }
                g.cache.settle(now);
                if freed > 0 {
                    self.resume_no_memory(&mut g, now, &mut work);
                    self.set_idle(&mut g, now);
                }
                if freed == 0 && (g.cache.kswapd_awake() || g.cache.iswapd_awake()) {
                    // 2.6's blk_congestion_wait: wait for I/O to complete (or 100 ms) before trying again.
                    drop(self.completed_cv.wait_timeout(g, KSWAPD_IDLE).unwrap_or_else(|e| e.into_inner()));
                }
            }
            self.dispatch(work);
        }
    }

    /// Whether memory has filled ([`pagelab_core::buffer::BufferCache::memory_filled`]); cheaper than [`Engine::stats`].
    pub fn memory_filled(&self) -> bool {
        lock(&self.inner).cache.memory_filled()
    }

    /// What the mount has done, for `pagelab stats` and the Prometheus endpoint.
    pub fn stats(&self) -> LiveStats {
        let g = lock(&self.inner);
        let now = self.clock.now();
        let c = &g.cache.observer().0;
        let thrash = g.cache.observer().1 .0.thrash_pages;
        let mem = g.cache.memory();
        let page = PAGE_SIZE_BYTES;
        let accesses = c.hits + c.misses + c.inflight_waits;
        // MemRx's window is the mount's life: it began at mount time (0), so the runtime is `now`. The
        // first VEC's prediction is shown (the engine runs one unless `--whatif vec=…` asks for more).
        let prediction =
            g.cache.observer().1 .1.as_ref().and_then(|m| m.predict(now, now).into_iter().next());
        let whatif = prediction.map_or_else(Vec::new, |p| {
            let usable = mem.usable as u64 * page;
            let point = |s: PredictionStep| WhatIfPoint {
                memory_bytes: usable + s.added_bytes,
                runtime_s: s.runtime_s,
                miss_ratio: s.miss_ratio,
            };
            p.steps.into_iter().map(point).collect()
        });
        LiveStats {
            policy: self.labels.policy.clone(),
            prefetch: self.labels.prefetch.clone(),
            prefetch_cache: self.labels.prefetch_cache.clone(),
            metadata: self.labels.metadata.clone(),
            uptime_s: now.as_secs_f64(),
            reads: g.reads,
            read_bytes: g.read_bytes,
            read_errors: g.read_errors,
            reads_waiting: g.blocked as u64,
            pages: PageStats {
                hits: c.hits,
                misses: c.misses,
                waits: c.inflight_waits,
                hit_ratio: if accesses == 0 { 0.0 } else { c.hits as f64 / accesses as f64 },
                fetched: c.pages_fetched,
                prefetched: c.pages_prefetched,
                prefetched_used: c.prefetched_used,
                evicted: c.evictions,
                evicted_unused: c.evicted_unused,
                thrashing: thrash,
            },
            memory_budget_bytes: mem.total as u64 * page,
            usable_bytes: mem.usable as u64 * page,
            free_bytes: mem.free as u64 * page,
            resident_bytes: mem.resident as u64 * page,
            in_flight_bytes: mem.in_flight as u64 * page,
            memory_filled: g.cache.memory_filled(),
            prefetch_cache_bytes: mem.prefetch_cache as u64 * page,
            prefetch_cache_allocation_bytes: mem.prefetch_cache_allocation as u64 * page,
            prefetch_cache_work: prefetch_cache_work(&g.cache, g.stream_cpu_samples),
            metadata_bytes: mem.metadata as u64 * page,
            metadata_objects: g.cache.metadata().map_or(0, |m| m.objects()),
            metadata_work: metadata_work(&g.cache),
            kswapd_freed_pages: g.cache.memory_stats().kswapd.freed,
            direct_reclaims: g.cache.memory_stats().direct_reclaims,
            opens_direct: g.opens_direct,
            opens_buffered: g.opens_buffered,
            opens_fiemap: g.opens_fiemap,
            opens_fallback: g.opens_fallback,
            device: self.device.as_ref().map(EmulatedDevice::stats).unwrap_or_default(),
            whatif,
        }
    }

    /// Invariant checks for tests: memory never exceeds the budget.
    pub fn check_budget(&self) -> Result<(), String> {
        let g = lock(&self.inner);
        let m = g.cache.memory();
        let used = m.usable - m.free;
        if m.free > m.usable || used > m.usable || m.resident + m.in_flight > self.arena.pages() {
            return Err(format!("memory over budget: {m:?}"));
        }
        Ok(())
    }
}
