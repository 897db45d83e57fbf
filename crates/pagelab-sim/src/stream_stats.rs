//! Per-stream counts for workloads of persistent streams (papers/002's per-stream metrics): what each
//! stream's page accesses found, how many prefetch cycles (read fetches) it issued, and the time integral
//! of its inventory (pages it prefetched that nobody has accessed yet, in flight included). A buffer-cache
//! [`Observer`]; the server adds response times and turns both into [`crate::metrics::StreamMetrics`].

use pagelab_core::buffer::{AccessOutcome, Eviction, Fetch, Observer};
use pagelab_core::{Nanos, PageKey, StreamId};

/// One stream's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StreamCount {
    pub hits: u64,
    /// Accesses that found the page absent or under I/O.
    pub shortages: u64,
    /// Read fetches issued for the stream, and their pages.
    pub fetches: u64,
    pub pages_fetched: u64,
    /// Pages the stream prefetched that no one has accessed yet (resident or in flight).
    pub inventory_pages: u64,
    /// The inventory's integral over time since the counts began, page-nanoseconds, up to `since`.
    pub inventory_page_ns: f64,
    pub since: Nanos,
}

impl StreamCount {
    /// The inventory changes by `delta` pages at `now`.
    fn inventory(&mut self, now: Nanos, delta: i64) {
        self.inventory_page_ns += self.inventory_pages as f64 * now.saturating_sub(self.since).0 as f64;
        self.since = self.since.max(now);
        self.inventory_pages = self.inventory_pages.saturating_add_signed(delta);
    }

    /// The time-average inventory from `start` to `end`, pages.
    pub fn inventory_pages_mean(&self, start: Nanos, end: Nanos) -> f64 {
        let span = end.saturating_sub(start).0 as f64;
        if span <= 0.0 {
            return 0.0;
        }
        let area =
            self.inventory_page_ns + self.inventory_pages as f64 * end.saturating_sub(self.since).0 as f64;
        area / span
    }
}

/// Counts per stream id `1..=streams` (a persistent stream is `StreamId(slot + 1)`); other ids (kernel
/// threads, id 0) are not counted. Memory: one entry per stream, fixed at construction.
#[derive(Clone, Debug, Default)]
pub struct StreamCounters {
    counts: Vec<StreamCount>,
}

impl StreamCounters {
    pub fn new(streams: u32) -> StreamCounters {
        StreamCounters { counts: vec![StreamCount::default(); streams as usize] }
    }

    /// Counts start again from zero at `now` (the measured period begins); the inventory carries over.
    pub fn reset(&mut self, now: Nanos) {
        for c in &mut self.counts {
            *c = StreamCount { inventory_pages: c.inventory_pages, since: now, ..StreamCount::default() };
        }
    }

    /// The counts of the stream of handler slot `slot`.
    pub fn of_slot(&self, slot: u32) -> StreamCount {
        self.counts.get(slot as usize).copied().unwrap_or_default()
    }

    fn entry(&mut self, stream: StreamId) -> Option<&mut StreamCount> {
        (stream.0 as usize).checked_sub(1).and_then(|i| self.counts.get_mut(i))
    }
}

impl Observer for StreamCounters {
    fn accessed(&mut self, _: Nanos, stream: StreamId, _: PageKey, outcome: AccessOutcome) {
        if let Some(c) = self.entry(stream) {
            match outcome {
                AccessOutcome::Hit => c.hits += 1,
                AccessOutcome::Miss | AccessOutcome::Wait => c.shortages += 1,
            }
        }
    }

    fn allocated(&mut self, now: Nanos, _: PageKey, owner: StreamId, demand: bool) {
        if let (false, Some(c)) = (demand, self.entry(owner)) {
            c.inventory(now, 1);
        }
    }

    fn prefetch_used(&mut self, now: Nanos, _: PageKey, owner: StreamId, _: StreamId) {
        if let Some(c) = self.entry(owner) {
            c.inventory(now, -1);
        }
    }

    fn evicted(&mut self, now: Nanos, _: PageKey, owner: StreamId, what: Eviction) {
        if let (Eviction::PrefetchedUnused, Some(c)) = (what, self.entry(owner)) {
            c.inventory(now, -1);
        }
    }

    /// A prefetched page dropped unused (its file invalidated, its read failed) leaves its owner's
    /// inventory as an eviction does.
    fn removed(&mut self, now: Nanos, _: PageKey, owner: StreamId, prefetched_unused: bool) {
        if let (true, Some(c)) = (prefetched_unused, self.entry(owner)) {
            c.inventory(now, -1);
        }
    }

    fn fetch_issued(&mut self, _: Nanos, fetch: &Fetch) {
        if fetch.write {
            return;
        }
        if let Some(c) = self.entry(fetch.owner) {
            c.fetches += 1;
            c.pages_fetched += u64::from(fetch.pages);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagelab_core::{FileId, Lbn};

    #[test]
    fn counts_go_to_their_stream_and_kernel_threads_are_not_counted() {
        let mut c = StreamCounters::new(2);
        let key = PageKey::new(FileId(1), 0);
        c.accessed(Nanos::ZERO, StreamId(1), key, AccessOutcome::Hit);
        c.accessed(Nanos::ZERO, StreamId(2), key, AccessOutcome::Wait);
        c.accessed(Nanos::ZERO, StreamId(2), key, AccessOutcome::Miss);
        c.accessed(Nanos::ZERO, StreamId(0), key, AccessOutcome::Miss);
        c.accessed(Nanos::ZERO, StreamId(3), key, AccessOutcome::Miss);
        let fetch = |owner, write| Fetch {
            id: 1,
            file: FileId(1),
            first_page: 0,
            lbn: Lbn(0),
            pages: 48,
            sync: false,
            write,
            owner: StreamId(owner),
        };
        c.fetch_issued(Nanos::ZERO, &fetch(2, false));
        c.fetch_issued(Nanos::ZERO, &fetch(2, true));
        assert_eq!(c.of_slot(0), StreamCount { hits: 1, ..StreamCount::default() });
        let s1 = c.of_slot(1);
        assert_eq!((s1.hits, s1.shortages, s1.fetches, s1.pages_fetched), (0, 2, 1, 48));
        assert_eq!(c.of_slot(2), StreamCount::default());
        c.reset(Nanos::ZERO);
        assert_eq!(c.of_slot(1), StreamCount::default());
    }

    /// Two pages prefetched at 0 and 10 ms, one used at 20 ms, the other evicted unused at 30 ms: over
    /// 0–40 ms the inventory averages (1×10 + 2×10 + 1×10) / 40 = 1 page.
    #[test]
    fn the_inventory_is_averaged_over_time() {
        let mut c = StreamCounters::new(1);
        let (s, key) = (StreamId(1), PageKey::new(FileId(1), 0));
        c.allocated(Nanos::ZERO, key, s, false);
        c.allocated(Nanos::from_ms(10), key, s, false);
        c.allocated(Nanos::from_ms(15), key, s, true);
        c.prefetch_used(Nanos::from_ms(20), key, s, s);
        c.evicted(Nanos::from_ms(30), key, s, Eviction::PrefetchedUnused);
        c.evicted(Nanos::from_ms(35), key, s, Eviction::Accessed);
        let mean = c.of_slot(0).inventory_pages_mean(Nanos::ZERO, Nanos::from_ms(40));
        assert!((mean - 1.0).abs() < 1e-12, "{mean}");
        assert_eq!(c.of_slot(0).inventory_pages, 0);
    }

    /// A prefetched page dropped unused (an invalidation, a failed read) leaves its owner's inventory; a
    /// used or demanded page dropped was in no inventory.
    #[test]
    fn a_prefetched_page_dropped_unused_leaves_the_inventory() {
        let mut c = StreamCounters::new(1);
        let (s, key) = (StreamId(1), PageKey::new(FileId(1), 0));
        c.allocated(Nanos::ZERO, key, s, false);
        c.allocated(Nanos::ZERO, key, s, false);
        c.removed(Nanos::from_ms(10), key, s, true);
        c.removed(Nanos::from_ms(10), key, s, false);
        assert_eq!(c.of_slot(0).inventory_pages, 1);
    }
}
