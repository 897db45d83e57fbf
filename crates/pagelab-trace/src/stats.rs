//! One-pass trace statistics, for `pagelab trace inspect`.
//!
//! Counts requests and the pages they expand to (with a given [`PageExpander`]), distinct pages (an exact
//! hash set: 16–32 bytes per distinct page, so 100 M distinct pages take a few GiB — exactness is what
//! an inspection is for; `pagelab mrc --sample-rate` estimates), reads / writes / other, sequential
//! requests, a request-size histogram and the first and last timestamps. The caller bounds the set
//! ([`trace_stats`]'s `distinct_max`, from the machine's memory): a trace with more distinct pages is
//! refused with the bound named, rather than grown until the operating system kills the process.
//!
//! A request is *sequential* when it starts exactly where the previous request of the same (volume,
//! stream) ended: in bytes for block traces (`addr · unit`, ending `size` bytes later, or one unit for a
//! size-0 request), and at the next id for object traces (`addr == previous addr + 1`, because the object
//! traces pagelab reads — LIRS, synthetic — number pages). The first request of a (volume, stream) is
//! never sequential.

use crate::error::TraceError;
use crate::expand::PageExpander;
use crate::request::{AddrUnit, Op, Request};
use crate::TraceReader;
use pagelab_core::hash::KeyMap;

/// Buckets of the size histogram: size 0, then `[2^k, 2^(k+1))` for k = 0..=31.
pub const SIZE_BUCKETS: usize = 33;

/// Requests pulled per batch.
const BATCH_REQUESTS: usize = 4096;

/// The statistics of one trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStats {
    pub requests: u64,
    /// Pages after expansion (sum of [`PageExpander::page_count`]).
    pub pages: u64,
    pub distinct_pages: u64,
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
    pub sequential_requests: u64,
    /// `size_histogram[0]`: size 0; `size_histogram[k + 1]`: sizes in `[2^k, 2^(k+1))` bytes.
    pub size_histogram: [u64; SIZE_BUCKETS],
    /// Timestamps of the first and last request (`None` for an empty trace).
    pub first_time_ns: Option<u64>,
    pub last_time_ns: Option<u64>,
    /// Distinct (volume, stream) pairs.
    pub streams: u64,
}

impl TraceStats {
    /// Sequential requests over all requests (0 for an empty trace).
    pub fn sequential_fraction(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.sequential_requests as f64 / self.requests as f64
        }
    }

    /// The inclusive byte range `[low, high]` of histogram bucket `b` (bucket 0 is size 0).
    pub fn bucket_bounds_bytes(b: usize) -> (u64, u64) {
        assert!(b < SIZE_BUCKETS, "bucket {b} out of range");
        if b == 0 {
            (0, 0)
        } else {
            (1 << (b - 1), (1u64 << b) - 1)
        }
    }
}

/// The histogram bucket of a request size.
#[inline]
pub fn size_bucket(size_bytes: u32) -> usize {
    if size_bytes == 0 {
        0
    } else {
        (u32::BITS - size_bytes.leading_zeros()) as usize
    }
}

/// Accumulates [`TraceStats`] one request at a time (for callers that also show progress).
pub struct StatsBuilder {
    expander: PageExpander,
    stats: TraceStats,
    distinct: KeyMap<u64, ()>,
    /// (volume << 32 | stream) → where its last request ended (bytes, or id + 1).
    ends: KeyMap<u64, u64>,
    /// Most distinct pages counted; [`StatsBuilder::add`] says when a request went past it.
    distinct_max: u64,
}

impl StatsBuilder {
    /// A builder that counts any number of distinct pages.
    pub fn new(expander: PageExpander) -> StatsBuilder {
        StatsBuilder::with_distinct_max(expander, u64::MAX)
    }

    /// A builder that stops counting distinct pages past `distinct_max` (see [`StatsBuilder::add`]).
    pub fn with_distinct_max(expander: PageExpander, distinct_max: u64) -> StatsBuilder {
        let stats = TraceStats {
            requests: 0,
            pages: 0,
            distinct_pages: 0,
            reads: 0,
            writes: 0,
            others: 0,
            sequential_requests: 0,
            size_histogram: [0; SIZE_BUCKETS],
            first_time_ns: None,
            last_time_ns: None,
            streams: 0,
        };
        StatsBuilder { expander, stats, distinct: KeyMap::default(), ends: KeyMap::default(), distinct_max }
    }

    /// Count one request. Returns `false` when its pages took the distinct count past the bound: the count
    /// is no longer exact and the caller must stop (the pages past the bound are not kept).
    #[inline]
    pub fn add(&mut self, r: &Request) -> bool {
        let s = &mut self.stats;
        s.requests += 1;
        match r.op {
            Op::Read => s.reads += 1,
            Op::Write => s.writes += 1,
            Op::Other => s.others += 1,
        }
        s.size_histogram[size_bucket(r.size_bytes)] += 1;
        s.first_time_ns.get_or_insert(r.time_ns);
        s.last_time_ns = Some(r.time_ns);
        s.pages += self.expander.page_count(r);
        let (distinct, distinct_max) = (&mut self.distinct, self.distinct_max);
        let mut within = true;
        self.expander.for_each_page(r, |key, _| {
            if (distinct.len() as u64) < distinct_max {
                distinct.insert(key, ());
            } else {
                within &= distinct.contains_key(&key);
            }
        });
        let (start, end) = match self.expander.unit {
            AddrUnit::Bytes(u) => {
                let start = r.addr.saturating_mul(u as u64);
                (start, start.saturating_add(if r.size_bytes == 0 { u as u64 } else { r.size_bytes as u64 }))
            }
            AddrUnit::Object => (r.addr, r.addr.saturating_add(1)),
        };
        let stream_key = (r.volume as u64) << 32 | r.stream as u64;
        if let Some(previous_end) = self.ends.insert(stream_key, end) {
            s.sequential_requests += (previous_end == start) as u64;
        }
        within
    }

    pub fn finish(mut self) -> TraceStats {
        self.stats.distinct_pages = self.distinct.len() as u64;
        self.stats.streams = self.ends.len() as u64;
        let s = &self.stats;
        assert_eq!(s.reads + s.writes + s.others, s.requests, "every request has one op");
        assert_eq!(s.size_histogram.iter().sum::<u64>(), s.requests, "every request has one size bucket");
        assert!(
            s.distinct_pages <= s.pages && s.requests <= s.pages,
            "pages {} < distinct or requests",
            s.pages
        );
        self.stats
    }
}

/// Reads `reader` to the end and returns its statistics; refuses a trace with more than `distinct_max`
/// distinct pages (naming the bound and the trace) instead of counting them.
pub fn trace_stats(
    reader: &mut dyn TraceReader,
    expander: PageExpander,
    distinct_max: u64,
) -> Result<TraceStats, TraceError> {
    let mut builder = StatsBuilder::with_distinct_max(expander, distinct_max);
    let mut batch = Vec::with_capacity(BATCH_REQUESTS);
    // Bounded by the trace: every pass consumes a batch.
    while reader.next_batch(&mut batch, BATCH_REQUESTS)? > 0 {
        for r in batch.drain(..) {
            if !builder.add(&r) {
                return Err(TraceError::Invalid {
                    what: reader.describe(),
                    why: format!(
                        "more than {distinct_max} distinct pages, more than this machine's memory can count \
                         exactly; `pagelab mrc --sample-rate 0.01` estimates the footprint from a sample"
                    ),
                });
            }
        }
    }
    Ok(builder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::NO_NEXT;

    fn req(addr: u64, size_bytes: u32, op: Op, volume: u32, stream: u32, time_ns: u64) -> Request {
        Request { time_ns, addr, size_bytes, op, volume, stream, next_vtime: NO_NEXT }
    }

    #[test]
    fn size_buckets_are_powers_of_two() {
        assert_eq!(size_bucket(0), 0);
        assert_eq!(size_bucket(1), 1);
        assert_eq!(size_bucket(511), 9);
        assert_eq!(size_bucket(512), 10);
        assert_eq!(size_bucket(4096), 13);
        assert_eq!(size_bucket(u32::MAX), 32);
        for b in 1..SIZE_BUCKETS {
            let (low, high) = TraceStats::bucket_bounds_bytes(b);
            assert_eq!(size_bucket(low as u32), b);
            assert_eq!(size_bucket(high.min(u32::MAX as u64) as u32), b);
        }
    }

    /// A hand-worked block trace: sectors of 512 bytes, 4 KiB pages.
    #[test]
    fn hand_worked_block_trace() {
        let trace = [
            req(0, 4096, Op::Read, 0, 1, 10),   // pages 0; first of (0,1): not sequential
            req(8, 8192, Op::Read, 0, 1, 20),   // pages 1,2; starts at byte 4096 = previous end: sequential
            req(24, 512, Op::Write, 0, 2, 30),  // page 3; first of (0,2)
            req(25, 512, Op::Write, 0, 1, 40),  // page 3; (0,1) ended at byte 12288 ≠ 12800
            req(26, 1024, Op::Other, 0, 1, 50), // page 3; (0,1) ended at 13312 = 26·512: sequential
            req(0, 0, Op::Read, 1, 1, 60),      // volume 1 page 0: first of (1,1)
        ];
        let mut b = StatsBuilder::new(PageExpander::new(AddrUnit::Bytes(512), 4096, false));
        for r in &trace {
            assert!(b.add(r));
        }
        let s = b.finish();
        assert_eq!((s.requests, s.pages, s.distinct_pages), (6, 7, 5));
        assert_eq!((s.reads, s.writes, s.others), (3, 2, 1));
        assert_eq!(s.sequential_requests, 2);
        assert_eq!(s.streams, 3);
        let mut want = [0u64; SIZE_BUCKETS];
        want[0] = 1; // size 0
        want[10] = 2; // 512
        want[11] = 1; // 1024
        want[13] = 1; // 4096
        want[14] = 1; // 8192
        assert_eq!(s.size_histogram, want);
        assert_eq!((s.first_time_ns, s.last_time_ns), (Some(10), Some(60)));
    }

    #[test]
    fn object_traces_are_sequential_by_id() {
        let mut b = StatsBuilder::new(PageExpander::new(AddrUnit::Object, 4096, false));
        for id in [5, 6, 7, 3, 4, 4] {
            assert!(b.add(&Request::read(id, 0)));
        }
        let s = b.finish();
        assert_eq!((s.requests, s.pages, s.distinct_pages, s.sequential_requests), (6, 6, 5, 3));
        assert_eq!(s.first_time_ns, Some(0));
    }

    /// With room for 3 distinct pages, pages already counted pass; the 4th distinct page stops the count.
    #[test]
    fn the_distinct_bound_stops_the_count() {
        let mut b = StatsBuilder::with_distinct_max(PageExpander::new(AddrUnit::Object, 4096, false), 3);
        let added: Vec<bool> =
            [1, 2, 3, 1, 3, 4].into_iter().map(|id| b.add(&Request::read(id, 0))).collect();
        assert_eq!(added, [true, true, true, true, true, false]);
    }

    #[test]
    fn empty_trace() {
        let s = StatsBuilder::new(PageExpander::new(AddrUnit::Object, 4096, false)).finish();
        assert_eq!((s.requests, s.first_time_ns, s.sequential_fraction()), (0, None, 0.0));
    }
}
