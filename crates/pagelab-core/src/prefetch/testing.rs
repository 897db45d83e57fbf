//! A minimal driver of the prefetch protocol for tests: a set of cached pages with PG_readahead bits and
//! no eviction (unless a test evicts by hand), walking each read exactly as the module doc of
//! [`super`] says, checking every hook result against the [`Prefetcher`] contracts, and recording what
//! each read submitted and marked.

use super::{CacheView, Prefetcher, ReadCtx, ReadPlan, Window};
use crate::key::{FileId, StreamId};
use crate::time::Nanos;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// The test page size: 4 KiB, the kernel's.
pub const PAGE: u64 = 4096;

/// What one read did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// Windows returned by the synchronous path, in order.
    pub sync_windows: Vec<Window>,
    /// Windows returned by marker hits, in order.
    pub async_windows: Vec<Window>,
    /// Pages newly brought in, as runs of consecutive pages in submission order.
    pub submitted: Vec<Range<u64>>,
    /// Pages that received PG_readahead.
    pub marked: Vec<u64>,
    /// Marked pages the reader reached (the mark is consumed).
    pub marker_hits: Vec<u64>,
    /// Linux 2.6's protocol: each [`Prefetcher::on_read`] call of the read, with the page it was made at.
    pub plans: Vec<(u64, ReadPlan)>,
}

struct View<'a> {
    cached: &'a HashSet<(FileId, u64)>,
    queries: Cell<u64>,
    read_congested: bool,
}

impl CacheView for View<'_> {
    fn is_cached(&self, file: FileId, index: u64) -> bool {
        self.queries.set(self.queries.get() + 1);
        self.cached.contains(&(file, index))
    }
    fn read_congested(&self) -> bool {
        self.read_congested
    }
}

pub struct Driver<P: Prefetcher> {
    pub pf: P,
    cached: HashSet<(FileId, u64)>,
    marked: HashSet<(FileId, u64)>,
    file_pages: HashMap<FileId, u64>,
    /// Most cache pages one hook call looked at.
    pub scan_pages_max: u64,
    /// What [`CacheView::read_congested`] answers.
    pub read_congested: bool,
    /// The time the next reads happen at (hooks' `now`).
    pub now: Nanos,
}

/// Files are this long unless [`Driver::with_file_pages`] says otherwise.
pub const BIG_FILE_PAGES: u64 = 1 << 30;

impl<P: Prefetcher> Driver<P> {
    pub fn new(pf: P) -> Driver<P> {
        Driver {
            pf,
            cached: HashSet::new(),
            marked: HashSet::new(),
            file_pages: HashMap::new(),
            scan_pages_max: 0,
            read_congested: false,
            now: Nanos::ZERO,
        }
    }

    pub fn with_file_pages(mut self, file: FileId, pages: u64) -> Driver<P> {
        self.file_pages.insert(file, pages);
        self
    }

    pub fn file_pages(&self, file: FileId) -> u64 {
        self.file_pages.get(&file).copied().unwrap_or(BIG_FILE_PAGES)
    }

    /// Pages left in the cache by someone else (no marks).
    pub fn cache(&mut self, file: FileId, pages: Range<u64>) {
        for page in pages {
            self.cached.insert((file, page));
        }
    }

    /// Reclaim takes a page (and its mark).
    pub fn evict(&mut self, file: FileId, page: u64) {
        self.cached.remove(&(file, page));
        self.marked.remove(&(file, page));
    }

    pub fn is_cached(&self, file: FileId, page: u64) -> bool {
        self.cached.contains(&(file, page))
    }

    pub fn is_marked(&self, file: FileId, page: u64) -> bool {
        self.marked.contains(&(file, page))
    }

    pub fn cached_pages(&self) -> usize {
        self.cached.len()
    }

    /// The (start, size, async_size) of (`stream`, `file`), if the prefetcher keeps a state.
    pub fn state(&self, stream: StreamId, file: FileId) -> Option<(u64, u64, u64)> {
        self.pf.ra_state(stream, file).map(|r| (r.start, r.size, r.async_size))
    }

    /// One `read()` of `pages` by `stream`, walked page by page.
    pub fn read(&mut self, stream: StreamId, file: FileId, pages: Range<u64>) -> Step {
        let eof = self.file_pages(file);
        assert!(pages.start < pages.end && pages.end <= eof, "bad read {pages:?} of a {eof}-page file");
        let mut step = Step::default();
        // Linux 2.6's `next_index`: the first page of the call, then whatever `on_read` returned.
        let mut ra_next = pages.start;
        for index in pages.clone() {
            let ctx =
                ReadCtx { now: self.now, stream, file, index, req_pages: pages.end - index, file_pages: eof };
            if index == ra_next {
                let plan = self.call_read(&ctx);
                ra_next = plan.next_index;
                step.plans.push((index, plan));
                for w in plan.windows.into_iter().flatten() {
                    self.submit(file, w, &mut step);
                }
            }
            if !self.is_cached(file, index) {
                let w = self.call(&ctx, |pf, view| Some(pf.on_sync_miss(&ctx, view))).expect("sync window");
                assert!(w.contains(index), "sync window {w:?} misses page {index}");
                step.sync_windows.push(w);
                self.submit(file, w, &mut step);
            }
            assert!(self.is_cached(file, index), "page {index} not cached after its sync miss");
            if self.marked.remove(&(file, index)) {
                step.marker_hits.push(index);
                if let Some(w) = self.call(&ctx, |pf, view| pf.on_marker_hit(&ctx, view)) {
                    step.async_windows.push(w);
                    self.submit(file, w, &mut step);
                }
            }
        }
        self.pf.read_done(self.now, stream, file, pages.start * PAGE..pages.end * PAGE);
        step
    }

    /// A one-page read.
    pub fn read_page(&mut self, stream: StreamId, file: FileId, index: u64) -> Step {
        self.read(stream, file, index..index + 1)
    }

    /// [`Prefetcher::on_read`], checked: a later next index, at most two windows of `1..=max` pages each
    /// inside the file with no marker, and a scan of at most those two windows.
    fn call_read(&mut self, ctx: &ReadCtx) -> ReadPlan {
        let view = View { cached: &self.cached, queries: Cell::new(0), read_congested: self.read_congested };
        let plan = self.pf.on_read(ctx, &view);
        let max = self.pf.window_pages_max(ctx.req_pages);
        assert!(
            plan.next_index > ctx.index,
            "on_read at {} asked to be called there again: {plan:?}",
            ctx.index
        );
        assert!(
            view.queries.get() <= 2 * max,
            "on_read scanned {} pages, more than 2 × {max}",
            view.queries.get()
        );
        self.scan_pages_max = self.scan_pages_max.max(view.queries.get());
        for w in plan.windows.iter().flatten() {
            assert!(w.size >= 1 && w.size <= max, "window {w:?} outside 1..={max} for {ctx:?}");
            assert!(w.async_size == 0, "on_read window {w:?} carries a marker");
            assert!(w.end() <= ctx.file_pages, "on_read window {w:?} past EOF {}", ctx.file_pages);
        }
        plan
    }

    /// Runs one hook with a counting view and checks the contracts every hook shares.
    fn call(
        &mut self,
        ctx: &ReadCtx,
        hook: impl FnOnce(&mut P, &dyn CacheView) -> Option<Window>,
    ) -> Option<Window> {
        let view = View { cached: &self.cached, queries: Cell::new(0), read_congested: self.read_congested };
        let w = hook(&mut self.pf, &view);
        let max = self.pf.window_pages_max(ctx.req_pages);
        assert!(view.queries.get() <= max, "a hook scanned {} pages, more than {max}", view.queries.get());
        self.scan_pages_max = self.scan_pages_max.max(view.queries.get());
        if let Some(w) = &w {
            assert!(w.size >= 1 && w.size <= max, "window {w:?} outside 1..={max} for {ctx:?}");
            assert!(w.async_size <= w.size, "window {w:?}: async tail longer than the window");
        }
        w
    }

    /// Brings in the not-cached pages of `w` up to EOF; marks the marker page if it is one of them.
    fn submit(&mut self, file: FileId, w: Window, step: &mut Step) {
        let eof = self.file_pages(file);
        let marker = w.marker_page(eof);
        let first_run = step.submitted.len();
        for page in w.pages(eof) {
            if !self.cached.insert((file, page)) {
                continue; // cached pages split the batch and never take the mark
            }
            match step.submitted[first_run..].last_mut() {
                Some(run) if run.end == page => run.end += 1,
                _ => step.submitted.push(page..page + 1),
            }
            if marker == Some(page) {
                self.marked.insert((file, page));
                step.marked.push(page);
            }
        }
    }
}

/// One hand-traced read: the reader, the pages read, its (start, size, async_size) after the read, the
/// runs submitted (one or more per window) and the pages marked.
pub type Expect<'a> = (u32, Range<u64>, (u64, u64, u64), &'a [Range<u64>], &'a [u64]);

/// Replays `steps` on `file` and checks, after every one, the reader's state, the submissions and the
/// marks, and that no other stream's state moved; names the step that diverges. Returns what each step did.
pub fn trace<P: Prefetcher>(d: &mut Driver<P>, file: FileId, steps: &[Expect]) -> Vec<Step> {
    let mut streams: Vec<StreamId> = Vec::new();
    let mut out = Vec::with_capacity(steps.len());
    for (i, (stream, pages, state, submitted, marked)) in steps.iter().enumerate() {
        let stream = StreamId(*stream);
        if !streams.contains(&stream) {
            streams.push(stream);
        }
        let others: Vec<_> =
            streams.iter().filter(|&&s| s != stream).map(|&s| (s, d.state(s, file))).collect();
        let got = d.read(stream, file, pages.clone());
        let what = format!("step {i} (stream {} reads {pages:?})", stream.0);
        assert_eq!(d.state(stream, file), Some(*state), "{what}: state (start, size, async_size)");
        assert_eq!(got.submitted, *submitted, "{what}: pages submitted");
        assert_eq!(got.marked, *marked, "{what}: pages marked");
        for (s, before) in others {
            assert_eq!(d.state(s, file), before, "{what}: stream {}'s state moved", s.0);
        }
        out.push(got);
    }
    out
}

/// Rows for one-page reads of `pages` by `stream` that change nothing: the state stays `state`.
pub fn quiet(stream: u32, pages: Range<u64>, state: (u64, u64, u64)) -> Vec<Expect<'static>> {
    pages.map(|p| (stream, p..p + 1, state, &[][..], &[][..])).collect()
}
