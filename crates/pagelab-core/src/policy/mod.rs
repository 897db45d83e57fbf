//! Replacement policies over resident pages, one file each, behind one small trait.
//!
//! The hook set follows cache_ext's (`../shared/reference/cache_ext.md`): a page is coming in (`on_miss`),
//! a page was inserted, a resident page was accessed, a page was removed, choose a victim; the legal orders
//! of the calls are part of the contract ([`Replacement`]). The cache that drives a policy owns the
//! key → frame table ([`crate::frames::FrameTable`]), including the shadow entries a policy keeps of evicted
//! pages; the policy owns the order. Pages are named by [`FrameId`], so a policy's per-page state lives in
//! flat arrays indexed by frame.

use crate::error::CoreError;
use crate::frames::{FrameTable, Shadows};
use crate::key::Lbn;
use std::fmt;
use std::str::FromStr;

mod arc;
mod clock;
pub mod dulo;
mod fifo;
mod lirs;
mod lru;
mod opt;
mod two_list;
mod two_q;

pub use arc::Arc;
pub use clock::Clock;
pub use dulo::{Dulo, DuloConfig, DuloLinux};
pub use fifo::Fifo;
pub use lirs::Lirs;
pub use lru::Lru;
pub use opt::Opt;
pub use two_list::TwoList;
pub use two_q::TwoQ;

/// Index of a page frame, `0..capacity`.
pub type FrameId = u32;

/// `next_vtime` of a reference whose key is never referenced again (or whose future is unknown).
pub const NEVER: u64 = u64::MAX;

/// One reference to a page, as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The page (or object): opaque to policies.
    pub key: u64,
    /// Logical time: the number of references the driver issued before this one.
    pub vtime: u64,
    /// `vtime` of the next reference to `key`, or [`NEVER`]. Only the offline OPT reads it.
    pub next_vtime: u64,
    /// Disk location of the page (equal to `key` for block traces); DULO reads it.
    pub lbn: Lbn,
    /// The page is being inserted by a prefetch, not by a demand access: it has no access history yet
    /// (Linux puts such pages on the inactive list without the referenced bit). See "Prefetched pages" in
    /// the module doc of each policy; on [`Replacement::on_hit`] the flag means a readahead met a resident
    /// page, which is not a reference.
    pub prefetch: bool,
    /// The page is mapped into a process (anonymous memory): a load or store sets the hardware's accessed
    /// bit in the page table, and nothing else; Linux 2.6 reads (and clears) the bit only when reclaim
    /// scans the page (`page_referenced()`), and starts such pages on the active list. The Linux policies
    /// read it ([`TwoList`]'s module doc); the others treat the access as any other.
    pub mapped: bool,
}

impl Access {
    /// A demand reference to `key` at logical time `vtime`, future unknown.
    pub fn demand(key: u64, vtime: u64) -> Access {
        Access { key, vtime, next_vtime: NEVER, lbn: Lbn(key), prefetch: false, mapped: false }
    }

    /// A readahead insertion of `key` at logical time `vtime`: no reference yet.
    pub fn prefetched(key: u64, vtime: u64) -> Access {
        Access { prefetch: true, ..Access::demand(key, vtime) }
    }
}

/// What a policy remembered of a page when the page comes back: [`Replacement::on_miss`] takes the
/// page's shadow entry (ARC's B1/B2 ghost, 2Q's A1out key, LIRS's non-resident entry) and returns what it
/// said; the driver hands the value back, unchanged, to [`Replacement::evict`] for the evictions that make
/// room for the page and to [`Replacement::on_insert`] when the page arrives. Opaque to drivers: each
/// policy gives the byte its own meaning, and [`History::NONE`] always means "nothing remembered".
///
/// The value travels with the page rather than staying in the policy because a buffer cache has many
/// pages between `on_miss` and `on_insert` at once (every page of a readahead window, every fetch in
/// flight), for different keys, in any order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct History(pub u8);

impl History {
    pub const NONE: History = History(0);

    pub const fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// A replacement policy: decides which resident page leaves when room is needed.
///
/// ## The protocol
///
/// A driver (a cache) calls the hooks as follows, and a policy may assert it.
/// - `on_miss(a, shadows) -> h` when the driver is about to bring in the page `a.key` (a demand miss, or a
///   readahead page, `a.prefetch`). Caller guarantees the key is neither resident nor already between its
///   own `on_miss` and `on_insert`. The policy must take the key's shadow entry, if it keeps one, and
///   return what it learned; it must keep no other state for this key (a driver may drop the page before
///   it arrives: an I/O error, an invalidation, and then never calls `on_insert` for it).
/// - `evict(h, shadows) -> f` when the driver needs a frame: the policy picks a victim among the pages it
///   tracks, forgets it (and may keep its key as a shadow entry, [`Shadows::keep`]), and returns its
///   frame. A driver frees it before the next `evict` when the policy keeps shadow entries (a victim kept
///   as a shadow must be released first); a policy without them (`shadow_slots() == 0`) may be asked for
///   a whole batch of victims before the driver frees any, and must not rely on the frames it returned
///   being free or still in the table. `h` is the history of the page the room is
///   for, or [`History::NONE`] when the eviction is for no page in particular (reclaim ahead of demand,
///   kswapd). Caller guarantees `len() > 0`.
/// - `on_insert(f, a, h, shadows)` when the page `a.key`, announced by `on_miss`, is in the free frame `f`
///   and its contents are valid; `h` is what that `on_miss` returned.
/// - `on_hit(f, a, shadows)` when the resident page in `f` is referenced.
/// - `on_remove(f, shadows)` when the driver drops a page on its own (invalidation, a page moved to another
///   cache): the policy forgets the frame without counting it as an eviction.
///
/// **Legal orders.** Per key: `on_miss`, then any number of other calls, then `on_insert` (or nothing, if
/// the driver drops the page); then hits; then `evict` or `on_remove`. Across keys, calls interleave
/// freely. A demand cache (`pagelab cachesim`, [`crate::cache::KeyedCache`]) produces `on_miss(k)`,
/// `evict(h_k)` if full, `on_insert(k, h_k)`, one key at a time. The buffer cache produces the orders a
/// kernel does: `on_miss` for every page of a readahead window, several evictions (a reclaim batch of
/// 32, or kswapd's evictions for no page at all), then the insertions as their fetches complete, in
/// completion order, with hits, misses and evictions of other pages between. Every policy must make the
/// same decisions under both: the tests in each policy's file and `buffer`'s oracle test (buffer cache
/// = `cachesim` on real traces) check it.
///
/// **Prefetched pages.** A page inserted with `a.prefetch` has not been referenced: its first `on_hit` is
/// its first reference, not its second (Li & Shen, papers/000 §2: prefetched pages have no access history;
/// Linux 2.6 adds them to the inactive list without `PG_referenced`). A policy that distinguishes first
/// from later references keeps the distinction per frame; each module doc says what its prefetched pages
/// do, and what becomes of the history `on_miss` found for them (it is applied at the first reference,
/// not at the insertion).
///
/// `shadows` is the driver's table of shadow entries (see [`crate::frames`]), sized by
/// [`Replacement::shadow_slots`]: where a policy keeps the keys of pages that left, and through which it
/// reads the keys of frames.
pub trait Replacement {
    /// The paper's name for the policy (`"LRU"`, `"ARC"`, ...).
    fn name(&self) -> &'static str;

    /// Frames the policy was built for; the driver never holds more pages than this.
    fn capacity(&self) -> u32;

    /// Whether the policy may keep shadow entries. A driver that knows the policy's type at compile time
    /// passes it to the frame table's per-reference methods, so that a policy without history pays nothing
    /// for them (see [`FrameTable::lookup_reference`]). Must be `true` if `shadow_slots()` can be non-zero.
    const KEEPS_SHADOWS: bool = false;

    /// Shadow entries the policy keeps at most; the driver builds its table with this many more ids than
    /// frames ([`FrameTable::ids`]). Policies without history keep none.
    fn shadow_slots(&self) -> u32 {
        0
    }

    /// Pages the policy currently tracks. Must equal the number of `on_insert`s minus `evict`s and
    /// `on_remove`s.
    fn len(&self) -> u32;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The page `access.key` is about to be brought in (see the protocol above). Policies without shadow
    /// entries remember nothing: with `shadow_slots() == 0` this must return [`History::NONE`] and change
    /// nothing, and a driver may skip the call (the buffer cache does: it is on every page's allocation).
    #[inline(always)]
    fn on_miss(&mut self, access: &Access, shadows: &mut Shadows<'_>) -> History {
        let _ = (access, shadows);
        History::NONE
    }

    /// Caller guarantees frame `frame` is free in the policy and now holds `access.key`, announced by
    /// `on_miss`, which returned `history`.
    fn on_insert(&mut self, frame: FrameId, access: &Access, history: History, shadows: &mut Shadows<'_>);

    /// The pages `pages` yields, `(frame, access, history)`, inserted in turn: what as many calls of
    /// [`Replacement::on_insert`], in the same order, do (the caller guarantees for each what `on_insert`
    /// asks). A driver that holds the policy behind a dispatch (the buffer cache's completion of a read)
    /// pays it once a read, and the insertions are compiled into its loop.
    #[inline(always)]
    fn on_insert_each<I: Iterator<Item = (FrameId, Access, History)>>(
        &mut self,
        pages: I,
        shadows: &mut Shadows<'_>,
    ) {
        for (frame, access, history) in pages {
            self.on_insert(frame, &access, history, shadows);
        }
    }

    /// Caller guarantees the policy tracks `frame` and it holds `access.key`.
    fn on_hit(&mut self, frame: FrameId, access: &Access, shadows: &mut Shadows<'_>);

    /// Caller guarantees `len() > 0`. `incoming` is the history of the page the room is for
    /// ([`History::NONE`] for none; ARC's REPLACE reads it). Must return a frame the policy tracked and no
    /// longer tracks.
    fn evict(&mut self, incoming: History, shadows: &mut Shadows<'_>) -> FrameId;

    /// Caller guarantees the policy tracks `frame`. The page leaves without becoming history.
    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>);

    /// `n` evictions in a row, their victims pushed to `out` in order, the first for `incoming`, as `n`
    /// calls of [`Replacement::evict`] would name them. Caller guarantees `shadow_slots() == 0` (no victim
    /// is kept as a shadow, so none needs releasing before the next is named) and `n <= len()`. A driver
    /// that holds the policy behind a dispatch (the buffer cache's reclaim batches) pays it once a batch.
    #[inline]
    fn evict_batch(&mut self, n: u32, incoming: History, shadows: &mut Shadows<'_>, out: &mut Vec<FrameId>) {
        debug_assert_eq!(self.shadow_slots(), 0, "a batch of victims from a policy with shadows");
        let mut history = incoming;
        for _ in 0..n {
            out.push(self.evict(history, shadows));
            history = History::NONE;
        }
    }

    /// Pages the policy has examined in all its `evict`s so far besides the victims themselves (CLOCK's
    /// hand passing referenced pages, the two-list policy's aging of active pages): the scan work a
    /// kernel's reclaim pays for. Policies whose victim is always at a list end examine nothing else.
    fn pages_scanned(&self) -> u64 {
        0
    }

    /// Of [`Replacement::pages_scanned`], the pages examined on another list than the reclaim list (the
    /// two-list policy's aging of active pages), which a kernel's shrinker does not count.
    fn pages_aged(&self) -> u64 {
        0
    }

    /// `(pages_scanned(), pages_aged())`, read together: a driver reads both after every reclaim.
    #[inline]
    fn scan_counts(&self) -> (u64, u64) {
        (self.pages_scanned(), self.pages_aged())
    }

    /// Pages on the list reclaim takes its victims from: the kernel's inactive list under the two-list
    /// policy, every page under a single-list policy. A kernel's reclaim pass scans `1/2^priority` of it
    /// ([`crate::memory::MemoryConfig::scan_priority`]).
    fn reclaim_list_len(&self) -> u32 {
        self.len()
    }

    /// The policy's queues as text, keys in queue order (MRU first), for hand-traced tests and
    /// `--debug` output; e.g. `"T1=[3 2] T2=[1] B1=[5] B2=[] p=1"`. `table` is the driver's: it holds the
    /// keys of frames and shadow entries.
    fn state(&self, table: &FrameTable) -> String;
}

/// A boxed policy is the policy (`AnyPolicy` boxes its large variants).
impl<P: Replacement> Replacement for Box<P> {
    const KEEPS_SHADOWS: bool = P::KEEPS_SHADOWS;

    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn capacity(&self) -> u32 {
        (**self).capacity()
    }
    fn shadow_slots(&self) -> u32 {
        (**self).shadow_slots()
    }
    fn len(&self) -> u32 {
        (**self).len()
    }
    #[inline]
    fn on_miss(&mut self, access: &Access, shadows: &mut Shadows<'_>) -> History {
        (**self).on_miss(access, shadows)
    }
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, history: History, shadows: &mut Shadows<'_>) {
        (**self).on_insert(frame, access, history, shadows)
    }
    #[inline]
    fn on_insert_each<I: Iterator<Item = (FrameId, Access, History)>>(
        &mut self,
        pages: I,
        shadows: &mut Shadows<'_>,
    ) {
        (**self).on_insert_each(pages, shadows)
    }
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, shadows: &mut Shadows<'_>) {
        (**self).on_hit(frame, access, shadows)
    }
    #[inline]
    fn evict(&mut self, incoming: History, shadows: &mut Shadows<'_>) -> FrameId {
        (**self).evict(incoming, shadows)
    }
    fn evict_batch(&mut self, n: u32, incoming: History, shadows: &mut Shadows<'_>, out: &mut Vec<FrameId>) {
        (**self).evict_batch(n, incoming, shadows, out)
    }
    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        (**self).on_remove(frame, shadows)
    }
    fn pages_scanned(&self) -> u64 {
        (**self).pages_scanned()
    }
    fn pages_aged(&self) -> u64 {
        (**self).pages_aged()
    }
    fn scan_counts(&self) -> (u64, u64) {
        (**self).scan_counts()
    }
    fn reclaim_list_len(&self) -> u32 {
        (**self).reclaim_list_len()
    }
    fn state(&self, table: &FrameTable) -> String {
        (**self).state(table)
    }
}

/// The policies pagelab knows, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    Lru,
    Fifo,
    Clock,
    TwoList,
    TwoQ,
    Arc,
    Lirs,
    Dulo,
    DuloLinux,
    Opt,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 10] = [
        PolicyKind::Lru,
        PolicyKind::Fifo,
        PolicyKind::Clock,
        PolicyKind::TwoList,
        PolicyKind::TwoQ,
        PolicyKind::Arc,
        PolicyKind::Lirs,
        PolicyKind::Dulo,
        PolicyKind::DuloLinux,
        PolicyKind::Opt,
    ];

    /// The name users type (`--policy lru,arc`).
    pub fn cli_name(self) -> &'static str {
        match self {
            PolicyKind::Lru => "lru",
            PolicyKind::Fifo => "fifo",
            PolicyKind::Clock => "clock",
            PolicyKind::TwoList => "linux",
            PolicyKind::TwoQ => "2q",
            PolicyKind::Arc => "arc",
            PolicyKind::Lirs => "lirs",
            PolicyKind::Dulo => "dulo",
            PolicyKind::DuloLinux => "dulo-linux",
            PolicyKind::Opt => "opt",
        }
    }

    /// DULO on CLOCK or on the Linux lists: the policies that read [`DuloConfig`] and disk locations.
    pub fn is_dulo(self) -> bool {
        matches!(self, PolicyKind::Dulo | PolicyKind::DuloLinux)
    }

    /// OPT reads each reference's next use, so its driver must know the whole trace first.
    pub fn needs_future(self) -> bool {
        self == PolicyKind::Opt
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

impl FromStr for PolicyKind {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let kind = match lower.as_str() {
            "lru" => PolicyKind::Lru,
            "fifo" => PolicyKind::Fifo,
            "clock" => PolicyKind::Clock,
            "linux" | "two-list" | "twolist" | "active-inactive" => PolicyKind::TwoList,
            "2q" | "twoq" => PolicyKind::TwoQ,
            "arc" => PolicyKind::Arc,
            "lirs" => PolicyKind::Lirs,
            "dulo" => PolicyKind::Dulo,
            "dulo-linux" => PolicyKind::DuloLinux,
            "opt" | "belady" | "min" => PolicyKind::Opt,
            _ => {
                return Err(CoreError::UnknownName {
                    what: "replacement policy",
                    got: s.to_string(),
                    expected: PolicyKind::ALL.map(|k| k.cli_name()).join(", "),
                })
            }
        };
        Ok(kind)
    }
}

/// Work to run with a policy whose kind is known only at run time, compiled once per policy type: see
/// [`PolicyKind::build`].
pub trait WithPolicy {
    type Output;
    fn run<P: Replacement>(self, policy: P) -> Self::Output;
}

/// Any policy, dispatched by `match` on every call (cheaper than a vtable, and `Clone`); for drivers that
/// keep a policy among other state. Trace-driven loops use [`PolicyKind::build`] instead.
///
/// `repr(u8)` gives the enum a tag byte of its own. Without it, rustc hides the tag in a niche of one
/// variant's fields (a `Vec`'s capacity), and every `match` decoded it first: eleven instructions a call
/// where a tag byte takes four. The buffer cache dispatches a handful of hooks per page (measured on the
/// issue-10 A/B simulation: 1.215 G → 1.194 G instructions, identical results).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum AnyPolicy {
    Lru(Lru),
    Fifo(Fifo),
    Clock(Clock),
    TwoList(TwoList),
    TwoQ(TwoQ),
    Arc(Arc),
    Lirs(Lirs),
    Dulo(Box<Dulo>),
    DuloLinux(Box<DuloLinux>),
    Opt(Opt),
}

impl AnyPolicy {
    /// A policy of `kind` for `capacity` frames with its paper's default parameters.
    /// Caller guarantees `capacity >= 1`.
    pub fn new(kind: PolicyKind, capacity: u32) -> AnyPolicy {
        assert!(capacity >= 1, "a policy needs at least one frame");
        match kind {
            PolicyKind::Lru => AnyPolicy::Lru(Lru::new(capacity)),
            PolicyKind::Fifo => AnyPolicy::Fifo(Fifo::new(capacity)),
            PolicyKind::Clock => AnyPolicy::Clock(Clock::new(capacity)),
            PolicyKind::TwoList => AnyPolicy::TwoList(TwoList::new(capacity)),
            PolicyKind::TwoQ => AnyPolicy::TwoQ(TwoQ::new(capacity)),
            PolicyKind::Arc => AnyPolicy::Arc(Arc::new(capacity)),
            PolicyKind::Lirs => AnyPolicy::Lirs(Lirs::new(capacity)),
            PolicyKind::Dulo => AnyPolicy::Dulo(Box::new(Dulo::new(capacity))),
            PolicyKind::DuloLinux => AnyPolicy::DuloLinux(Box::new(DuloLinux::new(capacity))),
            PolicyKind::Opt => AnyPolicy::Opt(Opt::new(capacity)),
        }
    }
}

impl AnyPolicy {
    /// `kind` for `capacity` frames, with `dulo`'s parameters when the kind is DULO or `dulo-linux`
    /// (ignored otherwise).
    /// Caller guarantees `capacity >= 1`.
    pub fn with_dulo(kind: PolicyKind, capacity: u32, dulo: &DuloConfig) -> AnyPolicy {
        match kind {
            PolicyKind::Dulo => AnyPolicy::Dulo(Box::new(Dulo::with_config(capacity, dulo.clone()))),
            PolicyKind::DuloLinux => {
                AnyPolicy::DuloLinux(Box::new(DuloLinux::with_config(capacity, dulo.clone())))
            }
            _ => AnyPolicy::new(kind, capacity),
        }
    }

    /// DULO's counters, when the policy is DULO.
    pub fn dulo_stats(&self) -> Option<dulo::DuloStats> {
        match self {
            AnyPolicy::Dulo(d) => Some(d.stats()),
            AnyPolicy::DuloLinux(d) => Some(d.stats()),
            _ => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            AnyPolicy::Lru($p) => $e,
            AnyPolicy::Fifo($p) => $e,
            AnyPolicy::Clock($p) => $e,
            AnyPolicy::TwoList($p) => $e,
            AnyPolicy::TwoQ($p) => $e,
            AnyPolicy::Arc($p) => $e,
            AnyPolicy::Lirs($p) => $e,
            AnyPolicy::Dulo($p) => $e,
            AnyPolicy::DuloLinux($p) => $e,
            AnyPolicy::Opt($p) => $e,
        }
    };
}

impl PolicyKind {
    /// `work.run(policy)` with a new policy of this kind for `capacity` frames (its paper's default
    /// parameters, as [`AnyPolicy::new`] builds it). The kind is matched once here, and `work` is compiled
    /// for each policy type, so that the per-reference path has no dispatch at all: this is what the
    /// trace-driven tools use. [`AnyPolicy`] matches on every hook call, which costs ~10–25 % of LRU's time
    /// on P3 (BENCHMARKS.md), and suits drivers that hold a policy for a long time among other state (the
    /// simulator's buffer cache). Caller guarantees `capacity >= 1`.
    pub fn build<W: WithPolicy>(self, capacity: u32, work: W) -> W::Output {
        let policy = AnyPolicy::new(self, capacity);
        dispatch!(policy, p => work.run(p))
    }
}

impl Replacement for AnyPolicy {
    const KEEPS_SHADOWS: bool = true;

    fn name(&self) -> &'static str {
        dispatch!(self, p => p.name())
    }
    fn capacity(&self) -> u32 {
        dispatch!(self, p => p.capacity())
    }
    fn shadow_slots(&self) -> u32 {
        dispatch!(self, p => p.shadow_slots())
    }
    fn len(&self) -> u32 {
        dispatch!(self, p => p.len())
    }
    // The per-page hooks: a jump, inlined at the call site, to the policy's own hook compiled out of line
    // (`hooks`). One function holding every policy's body saved every register the largest needed, on
    // every call.
    #[inline(always)]
    fn on_miss(&mut self, access: &Access, shadows: &mut Shadows<'_>) -> History {
        dispatch!(self, p => hooks::on_miss(p, access, shadows))
    }
    #[inline(always)]
    fn on_insert(&mut self, frame: FrameId, access: &Access, history: History, shadows: &mut Shadows<'_>) {
        dispatch!(self, p => hooks::on_insert(p, frame, access, history, shadows))
    }
    #[inline(always)]
    fn on_insert_each<I: Iterator<Item = (FrameId, Access, History)>>(
        &mut self,
        pages: I,
        shadows: &mut Shadows<'_>,
    ) {
        dispatch!(self, p => hooks::on_insert_each(p, pages, shadows))
    }
    #[inline(always)]
    fn on_hit(&mut self, frame: FrameId, access: &Access, shadows: &mut Shadows<'_>) {
        dispatch!(self, p => hooks::on_hit(p, frame, access, shadows))
    }
    #[inline(always)]
    fn evict(&mut self, incoming: History, shadows: &mut Shadows<'_>) -> FrameId {
        dispatch!(self, p => hooks::evict(p, incoming, shadows))
    }
    #[inline(always)]
    fn evict_batch(&mut self, n: u32, incoming: History, shadows: &mut Shadows<'_>, out: &mut Vec<FrameId>) {
        dispatch!(self, p => hooks::evict_batch(p, n, incoming, shadows, out))
    }
    fn on_remove(&mut self, frame: FrameId, shadows: &mut Shadows<'_>) {
        dispatch!(self, p => p.on_remove(frame, shadows))
    }
    fn pages_scanned(&self) -> u64 {
        dispatch!(self, p => p.pages_scanned())
    }
    fn pages_aged(&self) -> u64 {
        dispatch!(self, p => p.pages_aged())
    }
    #[inline]
    fn scan_counts(&self) -> (u64, u64) {
        dispatch!(self, p => p.scan_counts())
    }
    fn reclaim_list_len(&self) -> u32 {
        dispatch!(self, p => p.reclaim_list_len())
    }
    fn state(&self, table: &FrameTable) -> String {
        dispatch!(self, p => p.state(table))
    }
}

/// Each per-page hook of one policy type, compiled out of line: [`AnyPolicy`] jumps to these.
mod hooks {
    use super::{Access, FrameId, History, Replacement, Shadows};

    #[inline(never)]
    pub fn on_miss<P: Replacement>(p: &mut P, access: &Access, shadows: &mut Shadows<'_>) -> History {
        p.on_miss(access, shadows)
    }
    #[inline(never)]
    pub fn on_insert<P: Replacement>(
        p: &mut P,
        frame: FrameId,
        access: &Access,
        history: History,
        shadows: &mut Shadows<'_>,
    ) {
        p.on_insert(frame, access, history, shadows)
    }
    #[inline(never)]
    pub fn on_insert_each<P: Replacement, I: Iterator<Item = (FrameId, Access, History)>>(
        p: &mut P,
        pages: I,
        shadows: &mut Shadows<'_>,
    ) {
        p.on_insert_each(pages, shadows)
    }
    #[inline(never)]
    pub fn on_hit<P: Replacement>(p: &mut P, frame: FrameId, access: &Access, shadows: &mut Shadows<'_>) {
        p.on_hit(frame, access, shadows)
    }
    #[inline(never)]
    pub fn evict<P: Replacement>(p: &mut P, incoming: History, shadows: &mut Shadows<'_>) -> FrameId {
        p.evict(incoming, shadows)
    }
    #[inline(never)]
    pub fn evict_batch<P: Replacement>(
        p: &mut P,
        n: u32,
        incoming: History,
        shadows: &mut Shadows<'_>,
        out: &mut Vec<FrameId>,
    ) {
        p.evict_batch(n, incoming, shadows, out)
    }
}

/// `"[k1 k2 k3]"`: the keys of `ids` (frames or shadow entries) in order, for [`Replacement::state`].
pub fn format_keys(ids: impl IntoIterator<Item = u32>, table: &FrameTable) -> String {
    let parts: Vec<String> = ids.into_iter().map(|id| table.key(id).to_string()).collect();
    format!("[{}]", parts.join(" "))
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_round_trip() {
        for k in PolicyKind::ALL {
            assert_eq!(k.cli_name().parse::<PolicyKind>().unwrap(), k);
        }
        assert_eq!("Belady".parse::<PolicyKind>().unwrap(), PolicyKind::Opt);
        let err = "lfu".parse::<PolicyKind>().unwrap_err();
        assert!(
            err.to_string().contains("lru, fifo, clock, linux, 2q, arc, lirs, dulo, dulo-linux, opt"),
            "{err}"
        );
    }
}
