//! From requests to the page keys a cache sees.
//!
//! A block request's pages are keyed `PageKey(volume, page)`: 24 bits of volume and 40 of page index. Its
//! byte range must therefore end at or below [`ADDRESS_BYTES_MAX`] (2^40 pages of the smallest page size,
//! 512 bytes) and its volume fit 24 bits; the readers refuse a record that does not, naming its line
//! ([`block_range_error`]), so that no two addresses ever share a key by wrapping or clamping.

use crate::request::{AddrUnit, Request};
use pagelab_core::hash::mix64;
use pagelab_core::{FileId, PageKey};

/// The smallest page size a [`PageExpander`] takes.
pub const PAGE_SIZE_MIN: u32 = 512;

/// Bytes a block trace's addresses may reach: requests end at or below 2^49 (512 TiB), so that every page
/// index, for any page size from `PAGE_SIZE_MIN`, fits a [`PageKey`].
pub const ADDRESS_BYTES_MAX: u64 = (PageKey::INDEX_MAX + 1) * PAGE_SIZE_MIN as u64;

/// What is wrong with a block request (`addr` in units of `unit` bytes) whose pages cannot be keyed: its
/// byte range overflows 2^64 or ends past [`ADDRESS_BYTES_MAX`], or its volume does not fit; `None` when
/// it is fine. The readers turn it into a bad record on the request's line.
pub fn block_range_error(r: &Request, unit: u32) -> Option<String> {
    let size = (r.size_bytes as u64).max(1);
    let end = r.addr.checked_mul(unit as u64).and_then(|start| start.checked_add(size));
    match end {
        None => {
            Some(format!("an address whose bytes fit: {} · {unit} + {size} bytes overflows 2^64", r.addr))
        }
        Some(end) if end > ADDRESS_BYTES_MAX => Some(format!(
            "a request ending at most at byte 2^49 (512 TiB, the largest address a page key holds); \
             this one ends at byte {end}"
        )),
        Some(_) if r.volume > FileId::MAX => {
            Some(format!("a volume number at most {} (24 bits); found {}", FileId::MAX, r.volume))
        }
        Some(_) => None,
    }
}

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
    /// Caller guarantees `page_size` is a power of two of at least `PAGE_SIZE_MIN`.
    pub fn new(unit: AddrUnit, page_size: u32, ignore_size: bool) -> PageExpander {
        assert!(
            page_size.is_power_of_two() && page_size >= PAGE_SIZE_MIN,
            "page size {page_size} is not a power of two of at least {PAGE_SIZE_MIN}"
        );
        PageExpander { unit, page_size, ignore_size }
    }

    /// Number of pages `req` expands to (≥ 1). Caller guarantees a block request passes
    /// `block_range_error` (every reader's requests do).
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
    /// number for block traces; the key for objects). Caller guarantees a block request passes
    /// `block_range_error` (every reader's requests do); one that does not is a bug, and panics rather
    /// than give two pages one key.
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
                    f(PageKey::new(FileId(req.volume), page).raw(), page);
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

    #[test]
    fn block_ranges_that_cannot_be_keyed_are_named() {
        let err = |addr, size, unit| block_range_error(&Request::read(addr, size), unit);
        assert_eq!(err(7, 1024, 512), None);
        // The last 512-byte sector a page key holds, and the first past it.
        assert_eq!(err(ADDRESS_BYTES_MAX / 512 - 1, 512, 512), None);
        assert!(err(ADDRESS_BYTES_MAX / 512, 512, 512).unwrap().contains("2^49"));
        assert!(err(u64::MAX, 0, 1).unwrap().contains("overflows 2^64"));
        assert!(err(u64::MAX / 512 + 1, 0, 512).unwrap().contains("overflows 2^64"));
        let mut r = Request::read(0, 512);
        r.volume = FileId::MAX + 1;
        assert!(block_range_error(&r, 512).unwrap().contains("volume"));
        // Every key of the largest allowed range is distinct and in range.
        let e = PageExpander::new(AddrUnit::Bytes(512), 512, false);
        let last = Request::read(ADDRESS_BYTES_MAX / 512 - 2, 1024);
        assert_eq!(pages(&e, &last), vec![PageKey::INDEX_MAX - 1, PageKey::INDEX_MAX]);
    }
}
