//! The process's allocator: the system's, except that a large block is mapped on its own, aligned to 2 MiB,
//! and asked for transparent huge pages (`madvise(MADV_HUGEPAGE)`).
//!
//! Why: the simulator's per-page state is a few large arrays (the frames' records, the page index's
//! buckets, the policy's links) read at random as pages come and go. At 512 MiB simulated, they span about
//! 20 MB, five thousand 4 KiB pages, more than the TLB maps, so most of their accesses cost a page walk.
//! Debian's and Ubuntu's kernels give huge pages only where asked (`transparent_hugepage/enabled` is
//! `madvise`), and glibc's `malloc` does not ask. With them, the bench's simulation ran about 5 % faster
//! (BENCHMARKS.md §4), with the same results, since no result depends on where memory lies.
//!
//! What it does not change:
//! - **A block that is never touched costs nothing.** The mapping is anonymous: its pages, huge or not,
//!   appear at their first touch, zeroed, as `calloc`'s large blocks do. This keeps a large simulated memory
//!   costing what the run touches (the frames' records are allocated zeroed for that reason). A huge page
//!   is 2 MiB where a 4 KiB page was touched, so a block touched sparsely can cost up to 512 times what it
//!   touches; the large arrays here are filled from their start (frames are handed out in order) or sized
//!   to their load (the page index grows eightfold as it fills), so they are not.
//! - **Small blocks** (under [`LARGE_BYTES_MIN`]) go to the system allocator untouched: a large block's
//!   mapping is whole huge pages, up to 2 MiB past its end, which a small block would mostly waste.
//! - **Where huge pages are off** (`never`, another OS), the advice is refused or absent, and the block is
//!   an ordinary mapping.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr;

/// Blocks at least this large are mapped on their own with huge pages asked for. The simulator's per-page
/// arrays at 512 MiB are 1 to 6 MB each (the page index's buckets 1.4 MB, the policy's links 1 MB).
pub const LARGE_BYTES_MIN: usize = 1 << 20;

const HUGE_PAGE_BYTES: usize = 2 << 20;
const PAGE_BYTES: usize = 4096;

/// The system's allocator, with large blocks mapped for huge pages (module doc).
pub struct HugePageAlloc;

fn is_large(layout: Layout) -> bool {
    layout.size() >= LARGE_BYTES_MIN && layout.align() <= HUGE_PAGE_BYTES
}

/// Bytes mapped for a large block of `size` bytes: whole huge pages, since the kernel backs only a whole,
/// aligned 2 MiB of a mapping with a huge page. At most 2 MiB more than the block, taken only if touched.
fn mapped_bytes(size: usize) -> usize {
    size.next_multiple_of(HUGE_PAGE_BYTES)
}

/// A new anonymous mapping of `size` bytes at a 2 MiB boundary, huge pages asked for; null if the system
/// refuses.
///
/// # Safety
/// The caller owns the mapping and releases it with [`unmap`] and the same `size`.
unsafe fn map(size: usize) -> *mut u8 {
    let len = mapped_bytes(size);
    let Some(span) = len.checked_add(HUGE_PAGE_BYTES) else {
        return ptr::null_mut();
    };
    let prot = libc::PROT_READ | libc::PROT_WRITE;
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
    // SAFETY: a fresh anonymous mapping that aliases nothing.
    let p = unsafe { libc::mmap(ptr::null_mut(), span, prot, flags, -1, 0) };
    if p == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    // Over-map by a huge page, then give back the head before the boundary and the tail after the block.
    let start = p as usize;
    let aligned = start.next_multiple_of(HUGE_PAGE_BYTES);
    let (head, tail) = (aligned - start, span - (aligned - start) - len);
    // SAFETY: both ranges lie inside the mapping just made, outside the block handed out.
    unsafe {
        if head > 0 {
            libc::munmap(p, head);
        }
        if tail > 0 {
            libc::munmap((aligned + len) as *mut libc::c_void, tail);
        }
        advise_huge(aligned as *mut u8, len);
    }
    aligned as *mut u8
}

/// Ask for huge pages over `[p, p + len)`. Advice only: refused where huge pages are off, and the memory
/// is good either way, so the result is not checked.
///
/// # Safety
/// `[p, p + len)` is a mapping the caller owns.
unsafe fn advise_huge(p: *mut u8, len: usize) {
    // SAFETY: advice on the caller's own mapping; it changes no contents.
    unsafe { libc::madvise(p.cast(), len, libc::MADV_HUGEPAGE) };
}

/// # Safety
/// `p` and `size` are a block [`map`] (or [`HugePageAlloc::realloc`]'s remap) handed out.
unsafe fn unmap(p: *mut u8, size: usize) {
    // SAFETY: the caller's own mapping, whole.
    unsafe { libc::munmap(p.cast(), mapped_bytes(size)) };
}

// SAFETY: large blocks are whole mappings aligned to 2 MiB (which satisfies every alignment `is_large`
// admits) and released whole; every other block is the system allocator's, with its own layout.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout) {
            // SAFETY: released by `dealloc` with the same layout.
            unsafe { map(layout.size()) }
        } else {
            // SAFETY: the caller's guarantees, passed on.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout) {
            // SAFETY: as `alloc`; an anonymous mapping reads as zeros until written.
            unsafe { map(layout.size()) }
        } else {
            // SAFETY: the caller's guarantees, passed on.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if is_large(layout) {
            // SAFETY: a large layout's block is a mapping of its size.
            unsafe { unmap(p, layout.size()) }
        } else {
            // SAFETY: the caller's guarantees, passed on.
            unsafe { System.dealloc(p, layout) }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded to the alignment, does not overflow `isize`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (is_large(layout), is_large(new_layout)) {
            // SAFETY: a system block stays one.
            (false, false) => unsafe { System.realloc(p, layout, new_size) },
            // A large block grows or shrinks by moving its page tables, not its bytes, as glibc's do. The
            // new place may not be 2 MiB-aligned; page alignment is all the layout asks for here.
            (true, true) if layout.align() <= PAGE_BYTES => {
                let (old_len, new_len) = (mapped_bytes(layout.size()), mapped_bytes(new_size));
                // SAFETY: `p` is a mapping of `old_len` bytes that the caller gives up.
                let q = unsafe { libc::mremap(p.cast(), old_len, new_len, libc::MREMAP_MAYMOVE) };
                if q == libc::MAP_FAILED {
                    return ptr::null_mut();
                }
                // SAFETY: the mapping just made.
                unsafe { advise_huge(q.cast(), new_len) };
                q.cast()
            }
            _ => {
                // SAFETY: a new block of the new layout, the old one's bytes copied, then the old released.
                unsafe {
                    let q = self.alloc(new_layout);
                    if !q.is_null() {
                        ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                        self.dealloc(p, layout);
                    }
                    q
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the mapping holding `p` is eligible for huge pages, from /proc/self/smaps; `None` where the
    /// kernel does not say (no smaps, or huge pages off).
    fn thp_eligible(p: *const u8) -> Option<bool> {
        let enabled = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
        if enabled.contains("[never]") {
            return None;
        }
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let addr = p as usize;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = range.split_once('-') {
                if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)) {
                    inside = (lo..hi).contains(&addr);
                    continue;
                }
            }
            if inside {
                if let Some(v) = line.strip_prefix("THPeligible:") {
                    return Some(v.trim() == "1");
                }
            }
        }
        None
    }

    #[test]
    fn a_large_block_is_zeroed_aligned_and_advised_and_keeps_its_bytes_through_reallocation() {
        let a = HugePageAlloc;
        let size = LARGE_BYTES_MIN + 12_345;
        let layout = Layout::from_size_align(size, 64).unwrap();
        unsafe {
            let p = a.alloc_zeroed(layout);
            assert!(!p.is_null());
            assert!(
                (p as usize).is_multiple_of(HUGE_PAGE_BYTES),
                "a large block starts at a huge-page boundary"
            );
            let block = std::slice::from_raw_parts_mut(p, size);
            assert!(block.iter().step_by(4093).all(|&b| b == 0), "allocated zeroed");
            if let Some(eligible) = thp_eligible(p) {
                assert!(eligible, "huge pages asked for");
            }
            for (i, b) in block.iter_mut().enumerate().step_by(997) {
                *b = (i % 251) as u8;
            }
            // Grow (remapped), shrink below the threshold (copied to the system allocator), grow again.
            let p = a.realloc(p, layout, 3 * size);
            assert!(!p.is_null());
            let check = |p: *mut u8, len: usize| {
                let block = std::slice::from_raw_parts(p, len);
                for (i, &b) in block.iter().enumerate().step_by(997) {
                    assert_eq!(b, (i % 251) as u8, "byte {i} lost");
                }
            };
            check(p, size);
            let grown = Layout::from_size_align(3 * size, 64).unwrap();
            let p = a.realloc(p, grown, 100_000);
            check(p, 100_000);
            let small = Layout::from_size_align(100_000, 64).unwrap();
            let p = a.realloc(p, small, size);
            assert!((p as usize).is_multiple_of(HUGE_PAGE_BYTES), "large again: mapped afresh");
            check(p, 100_000);
            a.dealloc(p, layout);
        }
    }

    #[test]
    fn alignments_up_to_a_huge_page_are_kept_and_small_blocks_are_the_systems() {
        let a = HugePageAlloc;
        unsafe {
            for align in [8, 4096, HUGE_PAGE_BYTES] {
                let layout = Layout::from_size_align(LARGE_BYTES_MIN, align).unwrap();
                let p = a.alloc(layout);
                assert!(!p.is_null() && (p as usize).is_multiple_of(align), "alignment {align}");
                p.write_bytes(7, LARGE_BYTES_MIN);
                // Grown with an alignment above a page: copied, the alignment kept.
                let p = a.realloc(p, layout, 2 * LARGE_BYTES_MIN);
                assert!(
                    !p.is_null() && (p as usize).is_multiple_of(align),
                    "alignment {align} after growing"
                );
                assert_eq!(*p.add(LARGE_BYTES_MIN - 1), 7);
                a.dealloc(p, Layout::from_size_align(2 * LARGE_BYTES_MIN, align).unwrap());
            }
            let layout = Layout::from_size_align(1000, 8).unwrap();
            let p = a.alloc(layout);
            assert!(!p.is_null());
            a.dealloc(p, layout);
        }
    }
}
