//! The prefetch cache of Li & Shen, "Managing Prefetch Memory for Data-Intensive Online Servers", FAST
//! 2005 (papers/000 §3): prefetched pages nobody has accessed yet, kept apart from the replacement policy
//! under the same memory, reclaimed in their own order, in an allocation that gradient descent adjusts.
//!
//! "Prefetched pages are initially placed in the prefetch cache. When a page is referenced, it is moved
//! from the prefetch cache to the normal memory buffer cache and is thereafter controlled by the kernel's
//! default page replacement policy." (§3) — here: a page a readahead brought in joins the prefetch cache
//! when its fetch completes, instead of the policy; its first use takes it out and inserts it into the
//! policy (`on_insert` as a readahead page, then `on_hit` for the use: under the Linux policy, "moved to
//! the inactive LRU list", §3.3, and referenced). A page of the prefetch cache is never in the policy.
//!
//! **Streams** (§3.1, Figure 4): "a group of sequentially prefetched pages that have not yet been
//! accessed", with "a link to its owner process … and the timestamp when the stream is last accessed" in
//! wall-clock time or in the owner's CPU time. A stream here is an (owner, file) pair: the pages one
//! request handler prefetched from one file, newest at the paper's *tail* (the front of [`List`]). A
//! stream is last accessed when it is created and whenever its owner (or anyone) uses one of its pages.
//!
//! **Reclamation orders** ([`ReclaimOrder`], `order.rs`), each evicting a stream's last (newest) page:
//! `pc-access-history` (FIFO over all prefetched pages: "the effective reclamation order for prefetched
//! pages under any access history-based reclamation policy", §4.2 #2), `pc-longest`, `pc-coldest`,
//! `pc-coldest+` (heuristics #1 with #2 or #3, §3.1) and `pc-optimal` (§4.2: the application declares at
//! open which pages it will read; pages their owner will never read go first — rule A — then Coldest+).
//!
//! **Reclamation** (§3.3): "Prefetch cache reclamation is triggered at each invocation of the global Linux
//! page reclamation. If the prefetch cache size exceeds its allocation, prefetched pages will be selected
//! for reclamation until the desired allocation is reached." The buffer cache's reclaim
//! (`buffer/page_cache.rs`) takes the excess over the allocation first, then the policy's victims.
//!
//! Departures, and why:
//! - **Reclaimed means evicted.** §3 says reclaimed pages are "moved to the normal buffer cache … for
//!   possible eviction"; §3.3 that they are "selected for reclamation" by the global reclaim itself. A page
//!   moved to the inactive list's tail by the reclaim that is looking for victims is the next victim, so
//!   pagelab evicts it in that same pass.
//! - **The excess goes batch by batch.** A reclaim call frees at most its target (the `CacheSection`
//!   contract: 32 pages for direct reclaim, kswapd's batch); the excess over the allocation is taken first
//!   in every batch until it is gone, rather than all at once in one batch.
//! - **`pc-access-history` does not take exited owners' pages first.** The paper gives heuristic #1 to
//!   Longest, Coldest and Coldest+ (§3.1) and describes PC-AccessHistory as FIFO, the order an access
//!   history policy gives prefetched pages (§4.2 #2); its gain over AccessHistory is attributed to "the
//!   separation of prefetched pages" alone. Adding #1 would credit it with part of the better order.
//! - **Ties.** Coldest+ ranks by CPU since last access; owners that used no CPU since tie (frequent when a
//!   handler sleeps on I/O), and the tie goes to the stream coldest by wall clock. Longest's ties go to the
//!   oldest stream. The paper does not say.
//! - **Streams of pages other readers use.** A page used by a reader other than its owner leaves the
//!   prefetch cache too (it was referenced) and counts as an access of its stream.

mod order;
pub mod partition;

pub use order::ReclaimOrder;
pub use partition::{Descent, Partition, PartitionStats};

use crate::error::CoreError;
use crate::hash::KeyMap;
use crate::key::{FileId, StreamId};
use crate::list::{Links, List, NIL};
use crate::policy::FrameId;
use crate::spec::Spec;
use crate::time::Nanos;
use partition::Partitioner;

/// The prefetch cache's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefetchCacheConfig {
    pub order: ReclaimOrder,
    pub partition: Partition,
    /// Draws the gradient descent's first direction.
    pub seed: u64,
}

impl PrefetchCacheConfig {
    /// The names `--prefetch-cache` accepts; `access-history` is the system without a prefetch cache.
    pub const NAMES: [&'static str; 6] =
        ["access-history", "pc-access-history", "pc-longest", "pc-coldest", "pc-coldest+", "pc-optimal"];

    /// `pc-coldest+` (gradient descent) or `pc-coldest+:fixed=25%` (a fixed share of memory); `None` for
    /// `access-history`.
    pub fn parse(text: &str, seed: u64) -> Result<Option<PrefetchCacheConfig>, CoreError> {
        let spec = Spec::parse(text)?;
        let order = match spec.name.as_str() {
            "access-history" => {
                spec.finish(&[])?;
                return Ok(None);
            }
            "pc-access-history" => ReclaimOrder::AccessHistory,
            "pc-longest" => ReclaimOrder::Longest,
            "pc-coldest" => ReclaimOrder::Coldest,
            "pc-coldest+" => ReclaimOrder::ColdestPlus,
            "pc-optimal" => ReclaimOrder::Optimal,
            other => {
                return Err(CoreError::UnknownName {
                    what: "prefetch cache",
                    got: other.to_string(),
                    expected: Self::NAMES.join(", "),
                })
            }
        };
        let partition = match spec.string("fixed") {
            None => Partition::GradientDescent(descent(&spec)?),
            Some(share) => Partition::Fixed { percent: percent(&share, "fixed")? },
        };
        spec.finish(&["fixed", "epoch", "step"])?;
        Ok(Some(PrefetchCacheConfig { order, partition, seed }))
    }

    /// The name and parameters, as `parse` reads them.
    pub fn spec(&self) -> String {
        match self.partition {
            Partition::GradientDescent(d) if d == Descent::DEFAULT => self.order.name().to_string(),
            Partition::GradientDescent(d) => {
                format!("{}:epoch={},step={}%", self.order.name(), epoch_text(d.epoch), d.step_percent)
            }
            Partition::Fixed { percent } => format!("{}:fixed={percent}%", self.order.name()),
        }
    }
}

/// An epoch as `epoch=` reads it: whole seconds, else milliseconds (the parser takes 1 ms steps at least).
fn epoch_text(epoch: Nanos) -> String {
    if epoch.0.is_multiple_of(1_000_000_000) {
        format!("{}s", epoch.0 / 1_000_000_000)
    } else {
        format!("{}ms", epoch.0 / 1_000_000)
    }
}

/// A percentage of memory, 0 % to 100 %, from `key=`'s value.
fn percent(text: &str, key: &'static str) -> Result<u32, CoreError> {
    let value = text.trim_end_matches('%').trim().parse::<u32>().ok().filter(|p| *p <= 100);
    value.ok_or_else(|| CoreError::InvalidParameter {
        what: "prefetch cache",
        why: format!("`{key}={text}`: expected a percentage of memory, 0% to 100%"),
    })
}

/// The descent's constants: the defaults, or `epoch=` (a duration, 1 ms to 1 h) and `step=` (1 % to 100 %)
/// for exploration.
fn descent(spec: &Spec) -> Result<Descent, CoreError> {
    let epoch_ns = spec.duration_ns("epoch", Descent::DEFAULT.epoch.0)?;
    if !(1_000_000..=3_600_000_000_000).contains(&epoch_ns) {
        return Err(CoreError::InvalidParameter {
            what: "prefetch cache",
            why: format!("`epoch={epoch_ns}ns`: expected 1ms to 1h"),
        });
    }
    let step_percent = match spec.string("step") {
        None => Descent::DEFAULT.step_percent,
        Some(text) => {
            Some(percent(&text, "step")?).filter(|p| *p > 0).ok_or_else(|| CoreError::InvalidParameter {
                what: "prefetch cache",
                why: "`step=0%`: expected 1% to 100%".to_string(),
            })?
        }
    };
    Ok(Descent { epoch: Nanos(epoch_ns), step_percent })
}

/// The index key of the stream of (`owner`, `file`).
fn stream_key(owner: StreamId, file: FileId) -> u64 {
    (owner.0 as u64) << 32 | file.0 as u64
}

/// A prefetch stream: pages one owner prefetched from one file, not yet accessed.
#[derive(Clone, Copy, Debug)]
struct PrefetchStream {
    /// Index into `owners`.
    owner: u32,
    file: FileId,
    /// Its pages, newest at the front (the paper's tail).
    pages: List,
    last_access: Nanos,
    /// The owner's CPU time at `last_access`.
    cpu_at_access_ns: u64,
}

#[derive(Clone, Copy, Debug)]
struct Owner {
    id: StreamId,
    cpu_ns: u64,
    /// Streams with pages.
    streams: u32,
    exited: bool,
}

/// Why a page left the prefetch cache by reclamation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrefetchCacheStats {
    /// Pages inserted (prefetched pages whose fetch completed).
    pub inserted: u64,
    /// Pages taken out by a first use (moved to the policy).
    pub used: u64,
    /// Pages reclaimed whose owner had exited (heuristic #1).
    pub reclaimed_exited: u64,
    /// Pages reclaimed that their owner declared it will not read (`pc-optimal`'s rule A).
    pub reclaimed_unneeded: u64,
    /// Pages reclaimed by the order itself (FIFO, longest, coldest).
    pub reclaimed_ordered: u64,
    /// Pages dropped without eviction (invalidation).
    pub removed: u64,
}

/// Space the prefetch cache costs per page of memory (papers/000 §3.3's accounting beside pagelab's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceOverhead {
    /// The paper's: two 4-byte pointers per page (0.2 %) and a 20-byte eviction-history entry for 40 % of
    /// the pages (0.2 %), as a fraction of memory.
    pub paper_fraction: f64,
    /// pagelab's: its per-frame links and stream index, and its eviction history's entries.
    pub pagelab_fraction: f64,
}

pub struct PrefetchCache {
    order: ReclaimOrder,
    partitioner: Partitioner,
    /// By frame: the stream it is in, or `NIL`. Only as long as the highest frame ever inserted (a frame
    /// beyond is in no stream): a cache sized for a large memory costs the frames a run uses.
    stream_of: Vec<u32>,
    /// Stream page lists, by frame.
    page_links: Links,
    /// `pc-access-history`: every page, oldest at the back; `pc-optimal`: the unneeded pages.
    fifo_links: Links,
    fifo: List,
    streams: Vec<PrefetchStream>,
    free_streams: Vec<u32>,
    /// (owner, file) → stream index.
    stream_index: KeyMap<u64, u32>,
    /// Streams of live owners with pages, and of exited owners (oldest exit at the back).
    stream_links: Links,
    live: List,
    exited: List,
    owners: Vec<Owner>,
    free_owners: Vec<u32>,
    owner_index: KeyMap<u32, u32>,
    /// `pc-optimal`: what each owner declared it will read, per file: page ranges `[first, last)`.
    declared: KeyMap<u32, Vec<(FileId, u64, u64)>>,
    pages: u32,
    stats: PrefetchCacheStats,
}

impl PrefetchCache {
    /// A prefetch cache for frames `0..frame_ids` on a machine of `total_pages` physical pages, of which
    /// `usable_pages` can hold cache pages.
    pub fn new(
        config: PrefetchCacheConfig,
        frame_ids: u32,
        total_pages: u32,
        usable_pages: u32,
    ) -> PrefetchCache {
        PrefetchCache {
            order: config.order,
            partitioner: Partitioner::new(config.partition, total_pages, usable_pages, config.seed),
            stream_of: Vec::new(),
            page_links: Links::new(frame_ids),
            fifo_links: Links::new(frame_ids),
            fifo: List::new(),
            streams: Vec::new(),
            free_streams: Vec::new(),
            stream_index: KeyMap::default(),
            stream_links: Links::new(0),
            live: List::new(),
            exited: List::new(),
            owners: Vec::new(),
            free_owners: Vec::new(),
            owner_index: KeyMap::default(),
            declared: KeyMap::default(),
            pages: 0,
            stats: PrefetchCacheStats::default(),
        }
    }

    pub fn order(&self) -> ReclaimOrder {
        self.order
    }
    pub fn pages(&self) -> u32 {
        self.pages
    }
    pub fn allocation_pages(&self) -> u32 {
        self.partitioner.allocation_pages()
    }
    /// Pages over the allocation: what reclaim takes first.
    pub fn excess_pages(&self) -> u32 {
        self.pages.saturating_sub(self.allocation_pages())
    }
    pub fn stats(&self) -> PrefetchCacheStats {
        self.stats
    }
    pub fn partition_stats(&self) -> PartitionStats {
        self.partitioner.stats()
    }
    pub fn partitioner_mut(&mut self) -> &mut Partitioner {
        &mut self.partitioner
    }
    /// Streams with pages (live and exited owners').
    pub fn streams(&self) -> u32 {
        self.live.len() + self.exited.len()
    }
    #[inline]
    pub fn contains(&self, frame: FrameId) -> bool {
        self.stream_of(frame) != NIL
    }

    /// The stream the page in `frame` is in, or `NIL` (also for a frame beyond the array: never inserted).
    #[inline]
    fn stream_of(&self, frame: FrameId) -> u32 {
        self.stream_of.get(frame as usize).copied().unwrap_or(NIL)
    }

    /// Space per page of memory, as the paper counts it and as pagelab spends it.
    pub fn space_overhead(&self, total_pages: u32) -> SpaceOverhead {
        let page = crate::PAGE_SIZE_BYTES as f64;
        let history = (total_pages as u64 * partition::HISTORY_PERCENT as u64 / 100) as f64;
        let paper = (8.0 * total_pages as f64 + 20.0 * history) / (total_pages as f64 * page);
        // Per frame: the stream index and the page list's two links (4 bytes each), and the FIFO's two
        // links; per history entry, what `EvictionHistory` stores.
        let per_frame = 4.0 + 8.0 + 8.0;
        let entry = crate::history::EvictionHistory::<bool>::ENTRY_BYTES as f64;
        let entries = self.partitioner.history_capacity() as f64;
        let pagelab =
            (per_frame * self.page_links.capacity() as f64 + entry * entries) / (total_pages as f64 * page);
        SpaceOverhead { paper_fraction: paper, pagelab_fraction: pagelab }
    }

    /// Whether the order reads what owners declare they will read (`pc-optimal`).
    pub fn wants_declared_reads(&self) -> bool {
        self.order == ReclaimOrder::Optimal
    }

    /// `owner` will read pages `[first, last)` of `file` (`pc-optimal`'s augmented `open()`; ignored by the
    /// other orders). Forgotten when the owner exits.
    pub fn declare(&mut self, owner: StreamId, file: FileId, first: u64, last: u64) {
        if self.wants_declared_reads() && first < last {
            self.declared.entry(owner.0).or_default().push((file, first, last));
        }
    }

    fn will_read(&self, owner: StreamId, file: FileId, index: u64) -> bool {
        self.declared
            .get(&owner.0)
            .is_some_and(|d| d.iter().any(|&(f, first, last)| f == file && (first..last).contains(&index)))
    }

    /// The prefetched page `index` of `file` in `frame`, brought in for `owner`, is valid at `now`: it
    /// joins its stream's newest end. `owner_open`: the owner has not exited; `owner_cpu_ns`: its CPU time
    /// so far. Caller guarantees the frame is not in the prefetch cache.
    pub fn insert(
        &mut self,
        frame: FrameId,
        page: (StreamId, FileId, u64),
        owner_open: bool,
        owner_cpu_ns: u64,
        now: Nanos,
    ) {
        let (owner, file, index) = page;
        debug_assert!(!self.contains(frame), "frame {frame} inserted twice");
        let s = self.stream_for(owner, file, owner_open, owner_cpu_ns, now);
        let stream = &mut self.streams[s as usize];
        self.page_links.push_front(&mut stream.pages, frame);
        let f = frame as usize;
        if f >= self.stream_of.len() {
            // Frames are handed out in order, so this grows by a frame or a few (`Vec` doubles).
            self.stream_of.resize(f + 1, NIL);
        }
        self.stream_of[f] = s;
        match self.order {
            ReclaimOrder::AccessHistory => self.fifo_links.push_front(&mut self.fifo, frame),
            ReclaimOrder::Optimal if !self.will_read(owner, file, index) => {
                self.fifo_links.push_front(&mut self.fifo, frame)
            }
            _ => {}
        }
        self.pages += 1;
        self.stats.inserted += 1;
    }

    /// The stream of (`owner`, `file`), created empty if it has no pages.
    fn stream_for(&mut self, owner: StreamId, file: FileId, open: bool, cpu_ns: u64, now: Nanos) -> u32 {
        let key = stream_key(owner, file);
        if let Some(&s) = self.stream_index.get(&key) {
            return s;
        }
        let o = self.owner_for(owner, open, cpu_ns);
        let stream = PrefetchStream {
            owner: o,
            file,
            pages: List::new(),
            last_access: now,
            cpu_at_access_ns: self.owners[o as usize].cpu_ns,
        };
        let s = match self.free_streams.pop() {
            Some(s) => {
                self.streams[s as usize] = stream;
                s
            }
            None => {
                self.streams.push(stream);
                self.stream_links.grow(self.streams.len() as u32);
                self.streams.len() as u32 - 1
            }
        };
        self.stream_index.insert(key, s);
        self.owners[o as usize].streams += 1;
        if self.owners[o as usize].exited {
            self.stream_links.push_front(&mut self.exited, s);
        } else {
            self.stream_links.push_front(&mut self.live, s);
        }
        s
    }

    fn owner_for(&mut self, id: StreamId, open: bool, cpu_ns: u64) -> u32 {
        if let Some(&o) = self.owner_index.get(&id.0) {
            return o;
        }
        let owner = Owner { id, cpu_ns, streams: 0, exited: !open };
        let o = match self.free_owners.pop() {
            Some(o) => {
                self.owners[o as usize] = owner;
                o
            }
            None => {
                self.owners.push(owner);
                self.owners.len() as u32 - 1
            }
        };
        self.owner_index.insert(id.0, o);
        o
    }

    /// The first use of the page in `frame` at `now`: it leaves the prefetch cache (for the policy), and its
    /// stream was accessed. Returns whether the page was in the prefetch cache.
    pub fn take_out(&mut self, frame: FrameId, now: Nanos) -> bool {
        let s = self.stream_of(frame);
        if s == NIL {
            return false;
        }
        let stream = &mut self.streams[s as usize];
        stream.last_access = now;
        stream.cpu_at_access_ns = self.owners[stream.owner as usize].cpu_ns;
        self.unlink(frame);
        self.stats.used += 1;
        true
    }

    /// The page in `frame` leaves without eviction or use (invalidation). Returns whether it was here.
    pub fn remove(&mut self, frame: FrameId) -> bool {
        if !self.contains(frame) {
            return false;
        }
        self.unlink(frame);
        self.stats.removed += 1;
        true
    }

    /// Take `frame` out of its stream (freeing the stream when it empties) and out of the FIFO.
    fn unlink(&mut self, frame: FrameId) {
        let f = frame as usize;
        let s = std::mem::replace(&mut self.stream_of[f], NIL);
        debug_assert_ne!(s, NIL);
        let stream = &mut self.streams[s as usize];
        self.page_links.remove(&mut stream.pages, frame);
        if self.fifo_links.in_list(&self.fifo, frame) {
            self.fifo_links.remove(&mut self.fifo, frame);
        }
        self.pages -= 1;
        if stream.pages.is_empty() {
            self.free_stream(s);
        }
    }

    fn free_stream(&mut self, s: u32) {
        let stream = self.streams[s as usize];
        let o = stream.owner as usize;
        let owner = &mut self.owners[o];
        let list = if owner.exited { &mut self.exited } else { &mut self.live };
        self.stream_links.remove(list, s);
        // The index may already name a newer owner's stream under a reused id (`owner_opened`).
        let key = stream_key(owner.id, stream.file);
        if self.stream_index.get(&key) == Some(&s) {
            self.stream_index.remove(&key);
        }
        self.free_streams.push(s);
        owner.streams -= 1;
        if owner.streams == 0 {
            if self.owner_index.get(&owner.id.0) == Some(&(o as u32)) {
                self.owner_index.remove(&owner.id.0);
            }
            self.free_owners.push(o as u32);
        }
    }

    /// Stream id `owner` begins. An exited owner of the same id whose pages are still here (a live driver
    /// reuses ids) keeps them as an exited owner's, under no name: the new owner's pages start their own
    /// streams.
    pub fn owner_opened(&mut self, owner: StreamId) {
        let Some(&o) = self.owner_index.get(&owner.0) else {
            return;
        };
        if !self.owners[o as usize].exited {
            return;
        }
        self.owner_index.remove(&owner.0);
        for s in self.streams_of(o, &self.exited) {
            self.stream_index.remove(&stream_key(owner, self.streams[s as usize].file));
        }
    }

    /// The streams of owner slot `o` in `list` (live or exited); bounded by the list's length.
    fn streams_of(&self, o: u32, list: &List) -> Vec<u32> {
        self.stream_links.iter(list).filter(|&s| self.streams[s as usize].owner == o).collect()
    }

    /// `owner` used `cpu_ns` more CPU (Coldest+ ranks streams by their owner's CPU since last access).
    pub fn owner_cpu(&mut self, owner: StreamId, cpu_ns: u64) {
        if let Some(&o) = self.owner_index.get(&owner.0) {
            self.owners[o as usize].cpu_ns += cpu_ns;
        }
    }

    /// `owner` exited: its streams' pages become the first victims (heuristic #1); what it declared is
    /// forgotten.
    pub fn owner_exited(&mut self, owner: StreamId) {
        self.declared.remove(&owner.0);
        let Some(&o) = self.owner_index.get(&owner.0) else {
            return;
        };
        let record = &mut self.owners[o as usize];
        if record.exited {
            return;
        }
        record.exited = true;
        // Its streams move from the live list to the exited list; bounded by the live streams.
        for s in self.streams_of(o, &self.live) {
            self.stream_links.remove(&mut self.live, s);
            self.stream_links.push_front(&mut self.exited, s);
        }
    }

    /// Choose up to `n` victims at `now`, take them out, and push their frames to `out` (in eviction order).
    pub fn reclaim(&mut self, n: u32, now: Nanos, out: &mut Vec<FrameId>) {
        self.partitioner.advance(now);
        let mut left = n.min(self.pages);
        // Each round takes at least one page, so the loop is bounded by `n`.
        while left > 0 {
            let taken = order::take_victims(self, left, out);
            assert!(taken > 0 && taken <= left, "a prefetch cache with pages yielded no victim");
            left -= taken;
        }
    }

    /// Asserts the prefetch cache's invariants: page counts agree with the streams', every stream in its
    /// owner's list, no empty stream kept.
    pub fn check(&self) {
        let mut pages = 0;
        for (list, exited) in [(&self.live, false), (&self.exited, true)] {
            for s in self.stream_links.iter(list) {
                let stream = &self.streams[s as usize];
                assert!(!stream.pages.is_empty(), "an empty prefetch stream kept");
                assert_eq!(self.owners[stream.owner as usize].exited, exited, "stream in the wrong list");
                pages += stream.pages.len();
            }
        }
        assert_eq!(pages, self.pages, "prefetch cache pages != pages in its streams");
        assert!(self.stream_index.len() as u32 <= self.streams(), "stream index names a freed stream");
        for (&key, &s) in &self.stream_index {
            let stream = &self.streams[s as usize];
            let id = self.owners[stream.owner as usize].id;
            assert_eq!(key, stream_key(id, stream.file), "stream index out of step");
            assert!(!stream.pages.is_empty(), "stream index names an empty stream");
        }
        assert!(self.fifo.len() <= self.pages);
        if self.order == ReclaimOrder::AccessHistory {
            assert_eq!(self.fifo.len(), self.pages, "FIFO out of step");
        }
    }
}

#[cfg(test)]
mod tests;
