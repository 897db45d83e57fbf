//! Prefetchers: what to read ahead of a reader, decided on misses and on PG_readahead marker hits.
//!
//! The engine is pure: a prefetcher never performs I/O and never looks at pages itself except through
//! the bounded [`CacheView`] scans; it returns [`Window`]s and the buffer cache brings them in. The hook
//! protocol is the one Linux's `filemap_get_pages()` runs (`../shared/reference/readahead.md` §3). The
//! cache, serving one `read()` call of pages `[index, last)` of `file` by `stream`, walks the pages in
//! order:
//!
//! - page missing (neither resident nor in flight) → [`Prefetcher::on_sync_miss`]; the cache brings in
//!   every not-cached page of the returned window clamped to EOF ([`Window::pages`]) and sets the
//!   PG_readahead mark on [`Window::marker_page`] if that page was newly allocated by this window (a page
//!   already cached splits the batch and never takes the mark). The demanded page is then read like any
//!   cached page, so the walk re-examines it;
//! - page cached and carrying the mark → the cache clears the mark and calls
//!   [`Prefetcher::on_marker_hit`] (the asynchronous path), then treats the returned window the same way;
//! - after the call → [`Prefetcher::read_done`] with the byte just past the read (`ra->prev_pos`);
//! - Linux 2.6.12–2.6.18's protocol adds one hook: before the walk looks up the first page of a call, and
//!   again at each index the hook returns, [`Prefetcher::on_read`] (`page_cache_readahead()`); a miss then
//!   calls [`Prefetcher::on_sync_miss`] (`handle_ra_miss()` plus a one-page `readpage()`);
//! - a stream ends → [`Prefetcher::stream_closed`] (a file it closes early → [`Prefetcher::file_closed`]).
//!
//! State is one [`FileRaState`] per (stream, file), Linux's `struct file_ra_state` per `struct file`
//! (2.6.18's larger one for `linux-2.6`: [`Ra26State`]), kept in [`state::RaStates`]; it lives exactly
//! as long as the driver keeps that pair open, so memory is bounded by the pairs open at once.
//!
//! The prefetchers, one file each: [`NoPrefetch`] (`none`), [`LinuxReadahead`] (`linux`, the classic
//! 2.6.31–6.9 on-demand readahead of readahead.md §4), [`Linux26Readahead`] (`linux-2.6`, the current
//! and ahead windows of 2.6.12–2.6.18, the papers' kernels, driven by [`Prefetcher::on_read`]) and
//! [`FixedTp`] (`tp:T-P`, a fixed trigger distance and prefetch degree, Zhang et al.'s 32-32 and 24-48
//! baselines) and [`ScmPrefetcher`] (`ets`, `esf`: Zhang et al.'s rate-aware split of one total trigger
//! distance across streams, timed by [`Prefetcher::fetch_done`]). [`AnyPrefetcher`] dispatches among them and parses the command-line specs.

use crate::error::CoreError;
use crate::key::{FileId, StreamId};
use crate::spec::Spec;
use crate::time::Nanos;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

mod fixed;
mod linux;
mod linux26;
mod none;
mod scm;
mod state;
#[cfg(test)]
pub(crate) mod testing;

pub use fixed::FixedTp;
pub use linux::LinuxReadahead;
pub use linux26::{Congestion, Linux26Readahead, Ra26State};
pub use none::NoPrefetch;
pub use scm::{trigger_distances, DemandEstimate, ScmPrefetcher, ScmRule, StreamDemand};
pub use state::RaStates;

/// A readahead window, `struct file_ra_state`'s (start, size, async_size) as a decision: pages
/// `[start, start + size)` should be cached, and the page `start + size - async_size` carries
/// PG_readahead when `async_size > 0` ("the async tail": reaching it starts the next window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: u64,
    pub size: u64,
    pub async_size: u64,
}

impl Window {
    /// Read exactly `pages` pages from `start`, with no marker (a random read, or `none`).
    pub const fn exact(start: u64, pages: u64) -> Window {
        Window { start, size: pages, async_size: 0 }
    }

    pub const fn end(&self) -> u64 {
        self.start + self.size
    }

    pub const fn contains(&self, index: u64) -> bool {
        self.start <= index && index < self.end()
    }

    /// The pages to bring in for a file of `file_pages` pages: the window clamped to EOF (possibly empty;
    /// `do_page_cache_ra()` never reads past the last page).
    pub fn pages(&self, file_pages: u64) -> Range<u64> {
        let end = self.end().min(file_pages);
        self.start.min(end)..end
    }

    /// The page that takes PG_readahead, if any: `start + size - async_size` when `async_size > 0` and
    /// that page is inside the file (`__do_page_cache_readahead()` never allocates past EOF).
    pub fn marker_page(&self, file_pages: u64) -> Option<u64> {
        debug_assert!(self.async_size <= self.size, "async tail longer than the window: {self:?}");
        let page = self.end() - self.async_size;
        (self.async_size > 0 && page < file_pages).then_some(page)
    }
}

/// What a hook is about: page `index` of `file`, met by `stream` during a read whose last page is
/// `index + req_pages - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadCtx {
    /// The driver's time of the read (rate-aware prefetchers measure access rates with it).
    pub now: Nanos,
    pub stream: StreamId,
    pub file: FileId,
    /// The missing page ([`Prefetcher::on_sync_miss`]) or the marked page ([`Prefetcher::on_marker_hit`]).
    pub index: u64,
    /// Pages from `index` to the end of the read (`last - index`, the kernel's `req_count`); at least 1.
    pub req_pages: u64,
    /// Size of the file in pages (EOF); `index < file_pages`.
    pub file_pages: u64,
}

/// The page cache as a prefetcher may see it.
pub trait CacheView {
    /// Page `index` of `file` is resident or in flight (`xa_load()` finds a folio).
    fn is_cached(&self, file: FileId, index: u64) -> bool;

    /// The device's request queue is read-congested (`bdi_read_congested()`: 2.6's queue holds more than
    /// 7/8 of `nr_requests` reads), as the driver last reported it. Linux 2.6's readahead skips an ahead
    /// window that would not block the reader when it is.
    fn read_congested(&self) -> bool {
        false
    }
}

/// What a prefetcher of Linux 2.6's protocol decided at a read ([`Prefetcher::on_read`]): the windows to
/// read now, in order (each holds no marker and lies inside the file; pages of the current `read()` call
/// in them are the call's demand), and the page index at which the walk must call again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    pub windows: [Option<Window>; 2],
    /// `> ctx.index`; `u64::MAX` for never again during this call.
    pub next_index: u64,
}

impl ReadPlan {
    /// Nothing to read, and no call again: what a prefetcher of the on-demand protocol answers.
    pub const NEVER: ReadPlan = ReadPlan { windows: [None, None], next_index: u64::MAX };
}

/// `struct file_ra_state`: the readahead state of one (stream, file), readahead.md §1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRaState {
    /// First page of the most recent readahead window.
    pub start: u64,
    /// Pages in that window.
    pub size: u64,
    /// Pages at the window's tail that are asynchronous; the first of them carries PG_readahead.
    pub async_size: u64,
    /// Byte just past the previous `read()`; `None` before the first (the kernel's `-1`).
    pub prev_pos: Option<u64>,
    /// Largest window in pages (`bdi->ra_pages` at open); the prefetch degree for `tp`.
    pub ra_pages: u64,
}

impl FileRaState {
    /// `file_ra_state_init()`: an empty window and no previous read.
    pub const fn new(ra_pages: u64) -> FileRaState {
        FileRaState { start: 0, size: 0, async_size: 0, prev_pos: None, ra_pages }
    }

    /// The current window as a decision.
    pub const fn window(&self) -> Window {
        Window { start: self.start, size: self.size, async_size: self.async_size }
    }
}

/// A prefetcher, driven by the buffer cache through the protocol in the module doc.
pub trait Prefetcher {
    /// The name users type (`"none"`, `"linux"`, `"tp"`).
    fn name(&self) -> &'static str;

    /// Page `ctx.index` is missing: the synchronous path (`page_cache_sync_ra()`). Caller guarantees the
    /// page is neither resident nor in flight and `ctx.req_pages >= 1`. Returns a window that contains
    /// `ctx.index`, is at most [`Prefetcher::window_pages_max`]`(ctx.req_pages)` pages, and whose marker
    /// (if any) is not `ctx.index` itself: a window that would hit its own marker merges the next window
    /// instead (Linux's readit step), so the cache need not special-case the demanded page.
    fn on_sync_miss(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Window;

    /// Page `ctx.index` carried PG_readahead and the cache has just cleared it: the asynchronous path
    /// (`page_cache_async_ra()`). Caller guarantees the page is cached. Returns the next window to bring
    /// in (at most `window_pages_max(ctx.req_pages)` pages), or `None` to do nothing.
    fn on_marker_hit(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Option<Window>;

    /// Linux 2.6.12–2.6.18's entry point (`page_cache_readahead()`, called by `do_generic_mapping_read()`):
    /// the walk of a `read()` call reached page `ctx.index`, the first page of the call or the index the
    /// last `on_read` of the call returned, before it looks the page up. Returns the windows to read now and
    /// the next index to call at (see [`ReadPlan`]). The on-demand prefetchers (2.6.23 and later, `none`,
    /// `tp`) decide on misses and markers instead and keep this default: nothing, never again.
    fn on_read(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> ReadPlan {
        let _ = (ctx, view);
        ReadPlan::NEVER
    }

    /// The `read()` call by `stream` on `file` read `bytes` and ended at `now`; `bytes.end` is the byte just
    /// past the last byte read (`ra->prev_pos`). Called for every read, hits included: it is how a later
    /// miss knows it continues a sequential stream, and how a rate-aware prefetcher measures a stream's
    /// access rate (the pages the call read). Caller guarantees `bytes.start < bytes.end`.
    fn read_done(&mut self, now: Nanos, stream: StreamId, file: FileId, bytes: Range<u64>);

    /// A read fetch that `owner` issued for pages `pages` of `file` completed at `now` (its pages are now
    /// valid). Called once per completed read fetch, readahead and demand alike, after the cache has
    /// inserted its pages; never for writes. A prefetcher that measures its lead time (the disk access
    /// time of its own requests, Zhang et al.'s SCM prefetching) times its windows with it; the others
    /// keep this default.
    fn fetch_done(&mut self, now: Nanos, owner: StreamId, file: FileId, pages: Range<u64>) {
        let _ = (now, owner, file, pages);
    }

    /// `stream` ended: every state it owns is dropped (its `struct file`s are released).
    fn stream_closed(&mut self, stream: StreamId);

    /// `stream` closed `file` but lives on: that one state is dropped. A driver whose streams read many
    /// files over a long life calls this to keep memory bounded by the files open at once.
    fn file_closed(&mut self, stream: StreamId, file: FileId);

    /// The largest window any hook returns for a read with `req_pages` pages left; the cache can size its
    /// batches with it, and tests assert it.
    fn window_pages_max(&self, req_pages: u64) -> u64;

    /// The readahead state of (`stream`, `file`), if the prefetcher keeps one: for tests and `--debug`.
    fn ra_state(&self, stream: StreamId, file: FileId) -> Option<FileRaState>;

    /// Number of (stream, file) states held: bounded by the pairs the driver has not closed.
    fn tracked_states(&self) -> usize;
}

/// Page of the byte position `pos` (`pos >> PAGE_SHIFT`).
fn page_of(pos: u64, page_size_bytes: u64) -> u64 {
    pos / page_size_bytes
}

/// `page_cache_next_miss(index + 1, max)` as case 2 uses it: the first page after `index` that is not
/// cached, scanning at most `max` pages (`index + 1 ..= index + max`); `index + max + 1` when all are.
fn next_missing_page(view: &dyn CacheView, file: FileId, index: u64, max: u64) -> u64 {
    for page in index + 1..=index + max {
        if !view.is_cached(file, page) {
            return page;
        }
    }
    index + max + 1
}

/// `index - 1 - page_cache_prev_miss(index - 1, max)` (context readahead's `count_history_pages`): how
/// many pages right before `index` are cached, scanning at most `max` pages back. Equals `index` exactly
/// when every page from the start of the file is cached and `index <= max` (the kernel's wrap to
/// `ULONG_MAX`).
fn history_pages(view: &dyn CacheView, file: FileId, index: u64, max: u64) -> u64 {
    let scan = max.min(index);
    for run in 0..scan {
        if !view.is_cached(file, index - 1 - run) {
            return run;
        }
    }
    scan
}

/// How a synchronous miss is classified before sizing: readahead.md §4's `index == 0` test and cases 3–5,
/// shared by the prefetchers that follow Linux's sequentiality detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MissKind {
    /// Start of file, an oversize read, or the page right after (or in) the previous read: `initial`.
    Sequential,
    /// Case 4: `history` cached pages (more than the request) precede the miss.
    Context { history: u64 },
    /// Case 5: read just the request and leave the state alone.
    Random,
}

/// Linux's tests in the kernel's order; `max` is the window bound in force for this read. Scans at most
/// `max` pages.
fn classify_miss(
    ra: &FileRaState,
    ctx: &ReadCtx,
    view: &dyn CacheView,
    max: u64,
    page_size_bytes: u64,
) -> MissKind {
    if ctx.index == 0 || ctx.req_pages > max {
        return MissKind::Sequential;
    }
    // `prev_index` is the page holding byte `prev_pos`: the page after an aligned read, the last page of
    // an unaligned one; the kernel accepts distance 0 or 1 ("trivial case: 1, unaligned reads: 0"), so
    // after an aligned read skipping one page still counts. Unsigned, as in the kernel: a read behind the
    // previous one wraps to a huge distance.
    if let Some(pos) = ra.prev_pos {
        if ctx.index.wrapping_sub(page_of(pos, page_size_bytes)) <= 1 {
            return MissKind::Sequential;
        }
    }
    let history = history_pages(view, ctx.file, ctx.index, max);
    if history > ctx.req_pages {
        MissKind::Context { history }
    } else {
        MissKind::Random
    }
}

/// The [`Prefetcher::on_sync_miss`] contract: the window holds the demanded page, fits `max`, and does
/// not mark the demanded page.
fn check_sync_window(w: &Window, ctx: &ReadCtx, max: u64) {
    assert!(w.contains(ctx.index), "sync window {w:?} misses the demanded page {}", ctx.index);
    check_window(w, max);
    assert!(
        w.async_size == 0 || w.end() - w.async_size != ctx.index,
        "sync window {w:?} marks the demanded page {} (the merge step must prevent it)",
        ctx.index
    );
}

/// Any window: `1..=max` pages, its async tail inside it.
fn check_window(w: &Window, max: u64) {
    assert!(w.size >= 1 && w.size <= max, "window {w:?} outside 1..={max} pages");
    assert!(w.async_size <= w.size, "window {w:?} has an async tail longer than itself");
}

/// `bytes` as a spec writes it: `512KiB`, `1MiB`, or plain bytes.
fn size_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{}MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{}KiB", bytes / KIB)
    } else {
        format!("{bytes}B")
    }
}

/// Largest `ra_pages` a spec may ask for (4 GiB of 4 KiB pages): keeps window arithmetic far from overflow.
pub const RA_PAGES_LIMIT: u64 = 1 << 20;

/// Any prefetcher, dispatched by `match` (the hooks run per page walk; an enum is cheaper than a vtable
/// and `Clone`).
#[derive(Clone, Debug)]
pub enum AnyPrefetcher {
    None(NoPrefetch),
    Linux(LinuxReadahead),
    Linux26(Linux26Readahead),
    Fixed(FixedTp),
    Scm(ScmPrefetcher),
}

impl AnyPrefetcher {
    /// This prefetcher on a device whose queue takes requests of at most `max_sectors` 512-byte sectors:
    /// the modern Linux readahead's `io_pages` comes from it ([`LinuxReadahead::for_queue`]); the others
    /// do not depend on the queue (2.6's readahead predates `io_pages`). Caller guarantees
    /// `max_sectors >= 1`.
    pub fn for_queue(self, max_sectors: u32) -> AnyPrefetcher {
        match self {
            AnyPrefetcher::Linux(l) => AnyPrefetcher::Linux(l.for_queue(max_sectors)),
            other => other,
        }
    }
}

impl Default for AnyPrefetcher {
    /// Linux with its default 128 KiB window in 4 KiB pages.
    fn default() -> Self {
        AnyPrefetcher::Linux(LinuxReadahead::new(
            LinuxReadahead::DEFAULT_RA_BYTES / crate::PAGE_SIZE_BYTES,
            crate::PAGE_SIZE_BYTES,
        ))
    }
}

const SPEC_FORMS: &str = "none, linux[:SIZE] (e.g. linux:512KiB; io=SIZE for oversize reads), \
     linux-2.6[:SIZE][,congestion=skip|ignore] (Linux 2.6.18's current and ahead windows, e.g. \
     linux-2.6:512KiB), \
     tp[:T-P][,fixed] (pages, e.g. tp:24-48), ets[:T-P] and esf[:T-P] (Zhang et al.'s rate-aware \
     split of T x streams, default 24-48; period=100ms)";

impl AnyPrefetcher {
    /// Parses the CLI forms, sizes converted with `page_size_bytes`:
    /// - `none`;
    /// - `linux` (128 KiB), `linux:512KiB`, or `linux:ra=512KiB,io=1MiB` (`io` = `bdi->io_pages`, the
    ///   largest single request, which only oversize reads use; default = `ra`);
    /// - `linux-2.6` (128 KiB, 2.6's default `bdi->ra_pages`), `linux-2.6:512KiB` or `linux-2.6:ra=512KiB`:
    ///   Linux 2.6.18's readahead (no `io`: 2.6 has no oversize-read bound); `congestion=ignore` issues
    ///   ahead windows on a congested queue too ([`Congestion::Ignore`]; default `skip`, 2.6.18's);
    /// - `tp` (= `tp:32-32`), `tp:24-48`, or `tp:trigger=24,degree=48`: trigger distance T and prefetch
    ///   degree P **in pages**, as Zhang et al. write them; `1 <= T <= P`. Windows ramp up to (T, P) as in
    ///   Linux 2.6.18; `tp:24-48,fixed` starts at (T, P);
    /// - `ets`, `esf` (= `:24-48`), `ets:24-48,period=100ms`: Zhang et al.'s Equal Time Supplies and Equal
    ///   Safety Factors, which split a total trigger distance of T per sequential stream by rate (and
    ///   deviation), with degree P; `period` is how often the split is recomputed.
    pub fn parse(text: &str, page_size_bytes: u64) -> Result<AnyPrefetcher, CoreError> {
        assert!(page_size_bytes >= 1, "page size must be positive");
        let spec = Spec::parse(text)?;
        let any = match spec.name.as_str() {
            "none" => {
                spec.finish(&[])?;
                AnyPrefetcher::None(NoPrefetch)
            }
            "linux" | "readahead" => AnyPrefetcher::Linux(parse_linux(&spec, page_size_bytes)?),
            "linux-2.6" | "linux26" => AnyPrefetcher::Linux26(parse_linux26(&spec, page_size_bytes)?),
            "tp" | "fixed" => AnyPrefetcher::Fixed(parse_tp(&spec, page_size_bytes)?),
            "ets" => AnyPrefetcher::Scm(parse_scm(&spec, ScmRule::Ets, page_size_bytes)?),
            "esf" => AnyPrefetcher::Scm(parse_scm(&spec, ScmRule::Esf, page_size_bytes)?),
            _ => {
                return Err(CoreError::UnknownName {
                    what: "prefetcher",
                    got: text.trim().to_string(),
                    expected: SPEC_FORMS.to_string(),
                })
            }
        };
        Ok(any)
    }

    /// The spec that builds this prefetcher again (`linux:128KiB`, `linux-2.6:128KiB`, `tp:24-48`, `none`).
    pub fn spec(&self) -> String {
        match self {
            AnyPrefetcher::None(_) => "none".to_string(),
            AnyPrefetcher::Linux(p) => p.spec(),
            AnyPrefetcher::Linux26(p) => p.spec(),
            AnyPrefetcher::Fixed(p) => p.spec(),
            AnyPrefetcher::Scm(p) => p.spec(),
        }
    }
}

fn bad_spec(spec: &Spec, why: String) -> CoreError {
    CoreError::InvalidParameter { what: "prefetcher", why: format!("`{}`: {why}", spec.text()) }
}

/// `bytes` as a whole number of pages in `1..=RA_PAGES_LIMIT`.
fn whole_pages(spec: &Spec, key: &str, bytes: u64, page_size_bytes: u64) -> Result<u64, CoreError> {
    if !bytes.is_multiple_of(page_size_bytes) {
        return Err(bad_spec(
            spec,
            format!("{key} = {bytes} bytes is not a whole number of {page_size_bytes}-byte pages"),
        ));
    }
    let pages = bytes / page_size_bytes;
    if pages == 0 {
        return Err(bad_spec(spec, format!("{key} must be at least one page (use `none` for no readahead)")));
    }
    if pages > RA_PAGES_LIMIT {
        return Err(bad_spec(spec, format!("{key} = {pages} pages exceeds the limit of {RA_PAGES_LIMIT}")));
    }
    Ok(pages)
}

/// The window of a `linux` or `linux-2.6` spec, given once as the positional value or as `ra=`, in pages.
fn window_pages(spec: &Spec, default_bytes: u64, page_size_bytes: u64) -> Result<u64, CoreError> {
    let ra_bytes = match (spec.positional(), spec.string("ra")) {
        (Some(_), Some(_)) => {
            let name = &spec.name;
            return Err(bad_spec(spec, format!("give the window once (`{name}:512KiB` or `ra=`)")));
        }
        (Some(v), None) | (None, Some(v)) => {
            crate::units::parse_bytes(&v).map_err(|e| bad_spec(spec, format!("window: {e}")))?
        }
        (None, None) => default_bytes,
    };
    whole_pages(spec, "ra", ra_bytes, page_size_bytes)
}

fn parse_linux(spec: &Spec, page_size_bytes: u64) -> Result<LinuxReadahead, CoreError> {
    let ra_pages = window_pages(spec, LinuxReadahead::DEFAULT_RA_BYTES, page_size_bytes)?;
    let readahead = LinuxReadahead::new(ra_pages, page_size_bytes);
    // Without `io=`, the queue sets `io_pages` (`LinuxReadahead::for_queue`).
    let readahead = match spec.string("io") {
        Some(text) => {
            let io_bytes =
                crate::units::parse_bytes(&text).map_err(|e| bad_spec(spec, format!("io: {e}")))?;
            readahead.with_io_pages(whole_pages(spec, "io", io_bytes, page_size_bytes)?)
        }
        None => readahead,
    };
    spec.finish(&["ra", "io"])?;
    Ok(readahead)
}

fn parse_linux26(spec: &Spec, page_size_bytes: u64) -> Result<Linux26Readahead, CoreError> {
    let ra_pages = window_pages(spec, Linux26Readahead::DEFAULT_RA_BYTES, page_size_bytes)?;
    let congestion = match spec.string("congestion").as_deref() {
        None | Some("skip") => Congestion::Skip,
        Some("ignore") => Congestion::Ignore,
        Some(other) => {
            return Err(bad_spec(
                spec,
                format!("congestion = `{other}`: expected `skip` (2.6.18) or `ignore`"),
            ))
        }
    };
    spec.finish(&["ra", "congestion"])?;
    Ok(Linux26Readahead::new(ra_pages, page_size_bytes).with_congestion(congestion))
}

/// T and P in pages, given as `T-P` or as `trigger=`, `degree=` (each defaulting to `default`), checked
/// `1 <= T <= P <= RA_PAGES_LIMIT`.
fn trigger_and_degree(spec: &Spec, default: (u64, u64)) -> Result<(u64, u64), CoreError> {
    let pair = spec.positional();
    let (trigger, degree) = match (pair, spec.string("trigger"), spec.string("degree")) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            let name = &spec.name;
            return Err(bad_spec(
                spec,
                format!("give T and P once (`{name}:24-48` or `trigger=`, `degree=`)"),
            ));
        }
        (Some(pair), None, None) => pair
            .split_once('-')
            .map(|(t, p)| (t.trim().to_string(), p.trim().to_string()))
            .ok_or_else(|| bad_spec(spec, format!("`{pair}`: expected T-P in pages, like 32-32 or 24-48")))?,
        (None, t, p) => {
            (t.unwrap_or_else(|| default.0.to_string()), p.unwrap_or_else(|| default.1.to_string()))
        }
    };
    let pages = |what: &str, v: &str| {
        v.parse::<u64>()
            .map_err(|_| bad_spec(spec, format!("{what} `{v}`: expected a whole number of pages")))
    };
    let (trigger, degree) = (pages("trigger distance T", &trigger)?, pages("prefetch degree P", &degree)?);
    if degree == 0 || degree > RA_PAGES_LIMIT {
        return Err(bad_spec(
            spec,
            format!("prefetch degree P = {degree} must be in 1..={RA_PAGES_LIMIT} pages"),
        ));
    }
    if trigger == 0 || trigger > degree {
        return Err(bad_spec(
            spec,
            format!("trigger distance T = {trigger} must be in 1..=P ({degree}): the trigger sits inside the window"),
        ));
    }
    Ok((trigger, degree))
}

fn parse_tp(spec: &Spec, page_size_bytes: u64) -> Result<FixedTp, CoreError> {
    let (trigger, degree) = trigger_and_degree(spec, (32, 32))?;
    let fixed = spec.flag("fixed");
    spec.finish(&["trigger", "degree", "fixed"])?;
    let tp = FixedTp::new(trigger, degree, page_size_bytes);
    Ok(if fixed { tp.without_ramp() } else { tp })
}

fn parse_scm(spec: &Spec, rule: ScmRule, page_size_bytes: u64) -> Result<ScmPrefetcher, CoreError> {
    let (trigger, degree) = trigger_and_degree(spec, (24, 48))?;
    let period = spec.duration_ns("period", ScmPrefetcher::PERIOD_DEFAULT.0)?;
    spec.finish(&["trigger", "degree", "period"])?;
    if period == 0 {
        return Err(bad_spec(spec, "period must be longer than zero (e.g. period=100ms)".into()));
    }
    Ok(ScmPrefetcher::new(rule, trigger, degree, page_size_bytes).with_period(Nanos(period)))
}

impl FromStr for AnyPrefetcher {
    type Err = CoreError;
    /// [`AnyPrefetcher::parse`] with the engine's page size.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AnyPrefetcher::parse(s, crate::PAGE_SIZE_BYTES)
    }
}

impl fmt::Display for AnyPrefetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec())
    }
}

macro_rules! dispatch {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            AnyPrefetcher::None($p) => $e,
            AnyPrefetcher::Linux($p) => $e,
            AnyPrefetcher::Linux26($p) => $e,
            AnyPrefetcher::Fixed($p) => $e,
            AnyPrefetcher::Scm($p) => $e,
        }
    };
}

impl Prefetcher for AnyPrefetcher {
    fn name(&self) -> &'static str {
        dispatch!(self, p => p.name())
    }
    #[inline]
    fn on_sync_miss(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Window {
        dispatch!(self, p => p.on_sync_miss(ctx, view))
    }
    #[inline]
    fn on_marker_hit(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> Option<Window> {
        dispatch!(self, p => p.on_marker_hit(ctx, view))
    }
    #[inline]
    fn on_read(&mut self, ctx: &ReadCtx, view: &dyn CacheView) -> ReadPlan {
        dispatch!(self, p => p.on_read(ctx, view))
    }
    #[inline]
    fn read_done(&mut self, now: Nanos, stream: StreamId, file: FileId, bytes: Range<u64>) {
        dispatch!(self, p => p.read_done(now, stream, file, bytes))
    }
    #[inline]
    fn fetch_done(&mut self, now: Nanos, owner: StreamId, file: FileId, pages: Range<u64>) {
        dispatch!(self, p => p.fetch_done(now, owner, file, pages))
    }
    fn stream_closed(&mut self, stream: StreamId) {
        dispatch!(self, p => p.stream_closed(stream))
    }
    fn file_closed(&mut self, stream: StreamId, file: FileId) {
        dispatch!(self, p => p.file_closed(stream, file))
    }
    fn window_pages_max(&self, req_pages: u64) -> u64 {
        dispatch!(self, p => p.window_pages_max(req_pages))
    }
    fn ra_state(&self, stream: StreamId, file: FileId) -> Option<FileRaState> {
        dispatch!(self, p => p.ra_state(stream, file))
    }
    fn tracked_states(&self) -> usize {
        dispatch!(self, p => p.tracked_states())
    }
}

#[cfg(test)]
mod tests;
