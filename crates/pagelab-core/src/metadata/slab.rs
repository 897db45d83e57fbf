//! Slab pages: where the metadata objects live, several to a 4 KiB page (papers/004 Figure 3).
//!
//! The slab allocator hands out an object slot from a page that has one free (a partial page), and asks the
//! page allocator for a new page only when no page has a free slot. A page goes back to the page allocator
//! only when every object on it has been freed: one live object pins its whole page, which is why freeing
//! pages from a metadata cache whose objects are scattered in the LRU costs many object frees per page.
//!
//! Departures from Linux, and why:
//! - The partial page a slot comes from is the one that most recently had a slot freed (a stack). SLAB
//!   serves allocations from a per-CPU array of recently freed objects and then from the partial slabs'
//!   list; SLUB from a per-CPU slab and then its partial list. All of them reuse recently freed slots first;
//!   which partial page exactly does not change how many pages the cache holds.
//! - An empty page is returned at once. SLAB keeps up to `free_limit` empty slabs per node and SLUB
//!   `min_partial`; both are a few pages, nothing beside a metadata cache of millions of objects.

/// The slab pages of one metadata cache, by page id (`0..`), each with a count of objects in use.
#[derive(Clone, Debug)]
pub struct SlabPages {
    per_page: u16,
    /// Objects in use per page id; 0 for an id not in use.
    used: Vec<u16>,
    /// Page ids with a free slot, most recently freed-into last. An entry whose page has since filled (or
    /// been returned) is skipped when popped (`in_partial` says whether it is current).
    partial: Vec<u32>,
    in_partial: Vec<bool>,
    /// Page ids returned, for reuse.
    free_ids: Vec<u32>,
    held: u32,
}

impl SlabPages {
    /// Caller guarantees `per_page >= 1`.
    pub fn new(per_page: u16) -> SlabPages {
        assert!(per_page >= 1, "a slab page holds at least one object");
        SlabPages {
            per_page,
            used: Vec::new(),
            partial: Vec::new(),
            in_partial: Vec::new(),
            free_ids: Vec::new(),
            held: 0,
        }
    }

    pub fn per_page(&self) -> u16 {
        self.per_page
    }

    /// Pages the slab holds (counted in the memory budget).
    pub fn pages(&self) -> u32 {
        self.held
    }

    /// Objects on `page`.
    pub fn used(&self, page: u32) -> u16 {
        self.used[page as usize]
    }

    /// Whether a slot is free on some page held (an allocation needs no new page).
    pub fn has_free_slot(&mut self) -> bool {
        self.top_partial().is_some()
    }

    /// A slot on a partial page, or `None` when every page is full (the caller must get a page from the
    /// page allocator and call [`SlabPages::add_page`]).
    pub fn alloc(&mut self) -> Option<u32> {
        let page = self.top_partial()?;
        let used = &mut self.used[page as usize];
        *used += 1;
        if *used == self.per_page {
            self.partial.pop();
            self.in_partial[page as usize] = false;
        }
        Some(page)
    }

    /// A page the caller obtained from the memory budget, with one object placed on it.
    pub fn add_page(&mut self) -> u32 {
        let page = match self.free_ids.pop() {
            Some(page) => page,
            None => {
                self.used.push(0);
                self.in_partial.push(false);
                (self.used.len() - 1) as u32
            }
        };
        debug_assert_eq!(self.used[page as usize], 0);
        self.used[page as usize] = 1;
        self.held += 1;
        if self.per_page > 1 {
            self.partial.push(page);
            self.in_partial[page as usize] = true;
        }
        page
    }

    /// An object on `page` is freed. `true`: the page is empty and was returned (the caller releases it
    /// from the memory budget).
    pub fn free(&mut self, page: u32) -> bool {
        let used = &mut self.used[page as usize];
        assert!(*used > 0, "an object freed from slab page {page}, which holds none");
        *used -= 1;
        if *used == 0 {
            self.in_partial[page as usize] = false;
            self.free_ids.push(page);
            self.held -= 1;
            return true;
        }
        if !self.in_partial[page as usize] {
            self.in_partial[page as usize] = true;
            self.partial.push(page);
        }
        false
    }

    /// The current partial page on top of the stack, dropping stale entries. Bounded: each stale entry is
    /// popped once.
    fn top_partial(&mut self) -> Option<u32> {
        while let Some(&page) = self.partial.last() {
            if self.in_partial[page as usize] && self.used[page as usize] < self.per_page {
                return Some(page);
            }
            self.partial.pop();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_returned_only_when_its_last_object_is_freed() {
        let mut s = SlabPages::new(4);
        assert_eq!(s.alloc(), None, "no page yet");
        let a = s.add_page();
        assert_eq!((s.alloc(), s.alloc(), s.alloc()), (Some(a), Some(a), Some(a)));
        assert_eq!(s.alloc(), None, "page full");
        let b = s.add_page();
        assert_eq!(s.pages(), 2);
        assert!(!s.free(a) && !s.free(a) && !s.free(a));
        assert_eq!(s.alloc(), Some(a), "the page freed into last is used first");
        assert!(!s.free(a));
        assert!(s.free(a), "last object gone: page returned");
        assert_eq!(s.pages(), 1);
        assert_eq!(s.alloc(), Some(b), "the returned page is no partial page");
        assert!(!s.free(b));
        assert!(s.free(b));
        assert_eq!((s.pages(), s.add_page()), (0, b), "ids are reused");
    }

    #[test]
    fn one_object_per_page_never_lists_a_partial_page() {
        let mut s = SlabPages::new(1);
        let a = s.add_page();
        assert_eq!(s.alloc(), None);
        assert!(s.free(a));
        assert_eq!(s.pages(), 0);
    }
}
