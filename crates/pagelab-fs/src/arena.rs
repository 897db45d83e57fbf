//! The frames: one 4 KiB-aligned allocation holding every slot's page, so O_DIRECT reads land in place and a
//! request is answered with one gather copy out of it. It is an anonymous mapping, whose pages the kernel
//! maps (zeroed) on first touch, so an idle budget costs no memory: the allocator's zeroed allocation at
//! this alignment is `posix_memalign` and a `memset` of every byte, which made a 1 GiB mount resident at
//! once.
//!
//! Who may touch a slot is the buffer cache's protocol, not this type's: a slot of a fetch in flight belongs
//! to the I/O thread reading that fetch ([`BufferCache::fetch_slots`]), and a delivered page is read only
//! under the engine's lock while the read holds its pin. Both accessors are `unsafe` for that reason.
//!
//! [`BufferCache::fetch_slots`]: pagelab_core::buffer::BufferCache::fetch_slots

use pagelab_core::buffer::Slot;
use pagelab_core::PAGE_SIZE_BYTES;
use std::ptr::NonNull;

const PAGE: usize = PAGE_SIZE_BYTES as usize;

pub struct Arena {
    /// The start of `map`, taken once from its mutable view: writes go through this pointer only.
    ptr: NonNull<u8>,
    pages: u32,
    /// Owns the memory (unmapped when dropped).
    _map: memmap2::MmapMut,
}

// SAFETY: the arena is plain memory; access is ordered by the buffer cache's slot protocol (module doc), and
// the engine's mutex orders a fetch's writes before the reads of the pages it delivered.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

impl Arena {
    /// `pages` zeroed page frames, mapped on first touch (module doc). `None` if the mapping fails or
    /// `pages` is 0.
    pub fn new(pages: u32) -> Option<Arena> {
        if pages == 0 {
            return None;
        }
        let mut map = memmap2::MmapMut::map_anon((pages as usize).checked_mul(PAGE)?).ok()?;
        // A mapping starts on a page boundary: O_DIRECT's alignment holds for every slot.
        debug_assert_eq!(map.as_ptr() as usize % PAGE, 0);
        let ptr = NonNull::new(map.as_mut_ptr())?;
        Some(Arena { ptr, pages, _map: map })
    }

    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// The page in `slot`.
    ///
    /// # Safety
    /// Caller guarantees no thread writes `slot` meanwhile: it holds the engine's lock and a pin on a page
    /// delivered in this slot (the I/O that filled it completed before the delivery, under the same lock).
    pub unsafe fn page(&self, slot: Slot) -> &[u8] {
        assert!(slot < self.pages, "slot {slot} outside an arena of {} pages", self.pages);
        // SAFETY: in bounds (asserted); no writer (caller's guarantee).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(slot as usize * PAGE), PAGE) }
    }

    /// Where `slot`'s page starts, for an O_DIRECT read into it (4 KiB-aligned).
    ///
    /// # Safety
    /// Caller guarantees it owns `slot` exclusively: the slot belongs to a fetch in flight that this caller
    /// is reading, so no reader is given the page until the fetch completes.
    pub unsafe fn page_ptr(&self, slot: Slot) -> *mut u8 {
        assert!(slot < self.pages, "slot {slot} outside an arena of {} pages", self.pages);
        // SAFETY: in bounds (asserted).
        unsafe { self.ptr.as_ptr().add(slot as usize * PAGE) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_page_aligned_zeroed_and_disjoint() {
        let arena = Arena::new(3).unwrap();
        for slot in 0..3 {
            // SAFETY: single-threaded test; nothing else holds the arena.
            let ptr = unsafe { arena.page_ptr(slot) };
            assert_eq!(ptr as usize % PAGE, 0);
            unsafe { std::ptr::write_bytes(ptr, slot as u8 + 1, PAGE) };
        }
        for slot in 0..3 {
            let page = unsafe { arena.page(slot) };
            assert!(page.iter().all(|&b| b == slot as u8 + 1));
        }
        assert!(Arena::new(0).is_none());
    }

    #[test]
    #[should_panic(expected = "outside an arena")]
    fn a_slot_past_the_end_is_refused() {
        let arena = Arena::new(1).unwrap();
        let _ = unsafe { arena.page(1) };
    }
}
