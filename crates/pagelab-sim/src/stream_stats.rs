//! Per-stream counts for workloads of persistent streams (papers/002's per-stream metrics): what each
//! stream's page accesses found and how many prefetch cycles (read fetches) it issued. A buffer-cache
//! [`Observer`]; the server adds response times and turns both into [`crate::metrics::StreamMetrics`].

use pagelab_core::buffer::{AccessOutcome, Fetch, Observer};
use pagelab_core::{Nanos, PageKey, StreamId};

/// One stream's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamCount {
    pub hits: u64,
    /// Accesses that found the page absent or under I/O.
    pub shortages: u64,
    /// Read fetches issued for the stream, and their pages.
    pub fetches: u64,
    pub pages_fetched: u64,
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

    /// Counts start again from zero (the measured period begins).
    pub fn reset(&mut self) {
        self.counts.fill(StreamCount::default());
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
        assert_eq!(c.of_slot(1), StreamCount { hits: 0, shortages: 2, fetches: 1, pages_fetched: 48 });
        assert_eq!(c.of_slot(2), StreamCount::default());
        c.reset();
        assert_eq!(c.of_slot(1), StreamCount::default());
    }
}
