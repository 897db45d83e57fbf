//! From requests to the page keys a cache sees.

use crate::request::{AddrUnit, Request};
use pagelab_core::hash::mix64;
use pagelab_core::{FileId, PageKey};

/// Turns requests into page keys.
///
/// - `AddrUnit::Bytes(u)`: the request covers bytes `[addr·u, addr·u + size)`; each 4 KiB (by default)
///   page it touches is the key `PageKey(volume, page)`. A size of 0 touches one page.
/// - `AddrUnit::Object`: the object id itself is the key of its first page; further pages of a sized
///   object are keyed by a 64-bit hash of (id, page).
/// - `ignore_size`: every request is exactly one key — the address in the trace's own unit (libCacheSim's
///   object view of a block trace), or the object id.
#[derive(Clone, Copy, Debug)]
pub struct PageExpander {
    pub unit: AddrUnit,
    pub page_size: u32,
    pub ignore_size: bool,
}

impl PageExpander {
    /// Caller guarantees `page_size` is a power of two.
    pub fn new(unit: AddrUnit, page_size: u32, ignore_size: bool) -> PageExpander {
        assert!(page_size.is_power_of_two(), "page size {page_size} is not a power of two");
        PageExpander { unit, page_size, ignore_size }
    }

    /// Number of pages `req` expands to (≥ 1).
    pub fn page_count(&self, req: &Request) -> u64 {
        let ps = self.page_size as u64;
        match (self.ignore_size, self.unit) {
            (true, _) => 1,
            (false, AddrUnit::Object) => (req.size_bytes as u64).div_ceil(ps).max(1),
            (false, AddrUnit::Bytes(u)) => {
                let start = req.addr.saturating_mul(u as u64);
                let end = start.saturating_add((req.size_bytes as u64).max(1));
                (end - 1) / ps - start / ps + 1
            }
        }
    }

    /// Call `f` with each page key of `req`, in address order, and the page's disk location (the page
    /// number for block traces; the key for objects).
    #[inline]
    pub fn for_each_page(&self, req: &Request, mut f: impl FnMut(u64, u64)) {
        let ps = self.page_size as u64;
        match (self.ignore_size, self.unit) {
            (true, AddrUnit::Bytes(_)) | (true, AddrUnit::Object) => f(req.addr, req.addr),
            (false, AddrUnit::Object) => {
                f(req.addr, req.addr);
                for i in 1..self.page_count(req) {
                    let k = mix64(req.addr ^ mix64(i));
                    f(k, k);
                }
            }
            (false, AddrUnit::Bytes(u)) => {
                let start = req.addr.saturating_mul(u as u64) / ps;
                let n = self.page_count(req);
                for page in start..start + n {
                    let page = page.min(PageKey::INDEX_MAX);
                    f(PageKey::new(FileId(req.volume.min(FileId::MAX)), page).raw(), page);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(e: &PageExpander, r: &Request) -> Vec<u64> {
        let mut v = Vec::new();
        e.for_each_page(r, |k, _| v.push(k));
        assert_eq!(v.len() as u64, e.page_count(r));
        v
    }

    #[test]
    fn sector_requests_cover_the_pages_they_touch() {
        let e = PageExpander::new(AddrUnit::Bytes(512), 4096, false);
        // Sectors 7..9 = bytes 3584..4608: pages 0 and 1.
        assert_eq!(pages(&e, &Request::read(7, 1024)), vec![0, 1]);
        // Exactly one aligned page.
        assert_eq!(pages(&e, &Request::read(8, 4096)), vec![1]);
        // Size 0 touches one page.
        assert_eq!(pages(&e, &Request::read(16, 0)), vec![2]);
        let mut r = Request::read(0, 512);
        r.volume = 3;
        assert_eq!(pages(&e, &r), vec![PageKey::new(FileId(3), 0).raw()]);
    }

    #[test]
    fn ignore_size_keeps_the_native_address() {
        let e = PageExpander::new(AddrUnit::Bytes(512), 4096, true);
        assert_eq!(pages(&e, &Request::read(42932745, 6656)), vec![42932745]);
    }

    #[test]
    fn objects_expand_by_size() {
        let e = PageExpander::new(AddrUnit::Object, 4096, false);
        let p = pages(&e, &Request::read(99, 9000));
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], 99);
        assert_ne!(p[1], p[2]);
    }
}
