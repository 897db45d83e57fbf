//! No prefetching: a miss reads exactly the pages the `read()` call still needs, and nothing is marked.
//!
//! The baseline every prefetcher is measured against (Li & Shen, papers/000 §4, compare prefetching
//! depths down to none). Linux's nearest behaviour is `POSIX_FADV_RANDOM`'s "be dumb" path
//! (`force_page_cache_ra()`, readahead.md §3), which also reads the whole request at once; pagelab does
//! not split it into 2 MiB chunks, since the cache already issues one fetch per contiguous disk run. No
//! state is kept, so stream and file closes are free.

use super::{check_sync_window, CacheView, FileRaState, Prefetcher, ReadCtx, Window};
use crate::key::{FileId, StreamId};
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoPrefetch;

impl Prefetcher for NoPrefetch {
    fn name(&self) -> &'static str {
        "none"
    }

    /// `[index, index + req_pages)`: the rest of the read; the cache skips the pages already cached.
    fn on_sync_miss(&mut self, ctx: &ReadCtx, _: &dyn CacheView) -> Window {
        assert!(ctx.req_pages >= 1, "a read of no pages: {ctx:?}");
        let w = Window::exact(ctx.index, ctx.req_pages);
        check_sync_window(&w, ctx, ctx.req_pages);
        w
    }

    /// Never called by a correct cache (nothing is ever marked); does nothing.
    fn on_marker_hit(&mut self, _: &ReadCtx, _: &dyn CacheView) -> Option<Window> {
        None
    }

    fn read_done(&mut self, _: Nanos, _: StreamId, _: FileId, _: std::ops::Range<u64>) {}

    fn stream_closed(&mut self, _: StreamId) {}

    fn file_closed(&mut self, _: StreamId, _: FileId) {}

    fn window_pages_max(&self, req_pages: u64) -> u64 {
        req_pages
    }

    fn ra_state(&self, _: StreamId, _: FileId) -> Option<FileRaState> {
        None
    }

    fn tracked_states(&self) -> usize {
        0
    }
}

// Expected submissions are lists of page runs, most often of one run.
#[allow(clippy::single_range_in_vec_init)]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefetch::testing::Driver;

    const F: FileId = FileId(1);

    #[test]
    fn reads_exactly_the_request() {
        let mut d = Driver::new(NoPrefetch);
        let s = StreamId(1);
        let got = d.read(s, F, 5..9);
        assert_eq!(got.sync_windows, [Window::exact(5, 4)]);
        assert_eq!(got.submitted, [5..9]);
        assert!(got.marked.is_empty());
        // Sequential reads get no readahead: every new page is a miss.
        for p in 9..12 {
            let got = d.read_page(s, F, p);
            assert_eq!((got.sync_windows, got.submitted), (vec![Window::exact(p, 1)], vec![p..p + 1]));
        }
        // The miss at 12 asks for the rest of the read; a page already cached splits the batch.
        d.cache(F, 14..15);
        let got = d.read(s, F, 12..17);
        assert_eq!(got.sync_windows, [Window::exact(12, 5)]);
        assert_eq!(got.submitted, [12..14, 15..17]);
        // A read whose first pages are cached misses later and asks only for what is left.
        let got = d.read(s, F, 15..19);
        assert_eq!((got.sync_windows, got.submitted), (vec![Window::exact(17, 2)], vec![17..19]));
        assert_eq!((d.cached_pages(), d.pf.tracked_states()), (14, 0));
    }
}
