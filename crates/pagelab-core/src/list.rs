//! Intrusive doubly-linked lists over `u32` node indices.
//!
//! One [`Links`] arena holds the `prev`/`next` links of every node; any number of [`List`] heads thread
//! disjoint subsets of those nodes (ARC's T1/T2/B1/B2, Linux's active and inactive lists, ...). A node is
//! in at most one list at a time. The front is the most recently inserted end (MRU); the back is the
//! eviction end (LRU). All operations are O(1) and allocation-free.
//!
//! An arena stores each link inverted (`!node`), so that an unlinked node, both of whose links are
//! [`NIL`], is all zero bytes: the arena is allocated zeroed, and the system maps its pages on first touch.
//! A policy sized for a large simulated memory then costs only the nodes a run uses (a 1-s run at 400 GiB
//! wrote 0.8 GB of empty links before its first event). The inversion is a `not` per link read or
//! written, folded into most tests against [`NIL`]; growing the arena lazily instead cost more (a growth
//! test in every push made the policy's insertion save registers it otherwise does not).

/// "No node": the link value of a list end.
pub const NIL: u32 = u32::MAX;

/// A node's links, as stored: each inverted (`!prev`, `!next`), so that [`UNLINKED`] is all zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Link {
    prev_inv: u32,
    next_inv: u32,
}

// SAFETY: two `u32`s, for which all-zero bytes are a valid value (and mean "unlinked").
unsafe impl bytemuck::Zeroable for Link {}

impl Link {
    #[inline(always)]
    const fn new(prev: u32, next: u32) -> Link {
        Link { prev_inv: !prev, next_inv: !next }
    }
    #[inline(always)]
    fn prev(self) -> u32 {
        !self.prev_inv
    }
    #[inline(always)]
    fn next(self) -> u32 {
        !self.next_inv
    }
    #[inline(always)]
    fn set_prev(&mut self, prev: u32) {
        self.prev_inv = !prev;
    }
    #[inline(always)]
    fn set_next(&mut self, next: u32) {
        self.next_inv = !next;
    }
}

const UNLINKED: Link = Link::new(NIL, NIL);
const _: () = assert!(UNLINKED.prev_inv == 0 && UNLINKED.next_inv == 0, "an unlinked node is all zeros");

/// The head of one list threaded through a [`Links`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct List {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

impl List {
    pub const fn new() -> List {
        List { head: NIL, tail: NIL, len: 0 }
    }
    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The most recently pushed-front node.
    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }
    /// The eviction end.
    pub fn back(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }
}

/// Link storage for nodes `0..capacity`.
#[derive(Clone, Debug)]
pub struct Links {
    links: Vec<Link>,
}

impl Links {
    pub fn new(capacity: u32) -> Links {
        // Zeroed is unlinked (module doc).
        Links { links: crate::zeroed_vec(capacity as usize) }
    }

    pub fn capacity(&self) -> u32 {
        self.links.len() as u32
    }

    /// Grow the arena so that nodes `0..capacity` exist (new nodes are unlinked).
    pub fn grow(&mut self, capacity: u32) {
        if capacity as usize > self.links.len() {
            self.links.resize(capacity as usize, UNLINKED);
        }
    }

    /// Caller guarantees `node` is in no list.
    #[inline]
    pub fn push_front(&mut self, list: &mut List, node: u32) {
        debug_assert!(!self.is_linked(list, node), "node {node} pushed twice");
        let old = list.head;
        self.links[node as usize] = Link::new(NIL, old);
        if old == NIL {
            list.tail = node;
        } else {
            self.links[old as usize].set_prev(node);
        }
        list.head = node;
        list.len += 1;
    }

    /// Caller guarantees `node` is in no list.
    #[inline]
    pub fn push_back(&mut self, list: &mut List, node: u32) {
        debug_assert!(!self.is_linked(list, node), "node {node} pushed twice");
        let old = list.tail;
        self.links[node as usize] = Link::new(old, NIL);
        if old == NIL {
            list.head = node;
        } else {
            self.links[old as usize].set_next(node);
        }
        list.tail = node;
        list.len += 1;
    }

    /// Links `node` right after `at` (toward the back). Caller guarantees `at` is in `list` and `node` is
    /// in no list.
    #[inline]
    pub fn insert_after(&mut self, list: &mut List, at: u32, node: u32) {
        debug_assert!(!self.is_linked(list, node), "node {node} inserted twice");
        let next = self.links[at as usize].next();
        if next == NIL {
            self.push_back(list, node);
            return;
        }
        self.links[node as usize] = Link::new(at, next);
        self.links[at as usize].set_next(node);
        self.links[next as usize].set_prev(node);
        list.len += 1;
    }

    /// Caller guarantees `node` is in `list`.
    #[inline]
    pub fn remove(&mut self, list: &mut List, node: u32) {
        debug_assert!(list.len > 0, "remove from an empty list");
        let link = self.links[node as usize];
        let (prev, next) = (link.prev(), link.next());
        if prev == NIL {
            debug_assert_eq!(list.head, node, "node {node} is not in this list");
            list.head = next;
        } else {
            self.links[prev as usize].set_next(next);
        }
        if next == NIL {
            debug_assert_eq!(list.tail, node, "node {node} is not in this list");
            list.tail = prev;
        } else {
            self.links[next as usize].set_prev(prev);
        }
        self.links[node as usize] = UNLINKED;
        list.len -= 1;
    }

    #[inline]
    pub fn pop_back(&mut self, list: &mut List) -> Option<u32> {
        let node = list.back()?;
        self.remove(list, node);
        Some(node)
    }

    #[inline]
    pub fn pop_front(&mut self, list: &mut List) -> Option<u32> {
        let node = list.front()?;
        self.remove(list, node);
        Some(node)
    }

    /// Caller guarantees `node` is in `list`.
    #[inline]
    pub fn move_to_front(&mut self, list: &mut List, node: u32) {
        if list.head != node {
            self.remove(list, node);
            self.push_front(list, node);
        }
    }

    /// Caller guarantees `node` is in `from`; afterwards it is at the front of `to`.
    #[inline]
    pub fn move_to_front_of(&mut self, from: &mut List, to: &mut List, node: u32) {
        self.remove(from, node);
        self.push_front(to, node);
    }

    /// The node after `node` towards the back, if any.
    #[inline]
    pub fn next(&self, node: u32) -> Option<u32> {
        let n = self.links[node as usize].next();
        (n != NIL).then_some(n)
    }

    /// The node before `node` towards the front, if any.
    #[inline]
    pub fn prev(&self, node: u32) -> Option<u32> {
        let p = self.links[node as usize].prev();
        (p != NIL).then_some(p)
    }

    /// Nodes from front (MRU) to back; bounded by the list length.
    pub fn iter<'a>(&'a self, list: &List) -> impl Iterator<Item = u32> + 'a {
        self.walk(list.head, list.len, |l| l.next())
    }

    /// Nodes from back (the eviction end) to front; bounded by the list length.
    pub fn iter_back<'a>(&'a self, list: &List) -> impl Iterator<Item = u32> + 'a {
        self.walk(list.tail, list.len, |l| l.prev())
    }

    /// `len` nodes from `first`, following `step`; asserts the links agree with the length.
    fn walk<'a>(&'a self, first: u32, len: u32, step: fn(&Link) -> u32) -> impl Iterator<Item = u32> + 'a {
        let mut cur = first;
        let mut left = len;
        std::iter::from_fn(move || {
            if cur == NIL {
                assert_eq!(left, 0, "list shorter than its length");
                return None;
            }
            assert!(left > 0, "list longer than its length (cycle?)");
            left -= 1;
            let node = cur;
            cur = step(&self.links[node as usize]);
            Some(node)
        })
    }

    /// Nodes front to back, collected (for tests and reports).
    pub fn to_vec(&self, list: &List) -> Vec<u32> {
        self.iter(list).collect()
    }

    /// Whether `node` is in `list`, in O(1). Caller guarantees `node` is in no other list of this arena
    /// (an arena whose nodes are in one list or none).
    #[inline]
    pub fn in_list(&self, list: &List, node: u32) -> bool {
        self.is_linked(list, node)
    }

    /// Whether `node` is linked into some list, or is `list`'s only node.
    fn is_linked(&self, list: &List, node: u32) -> bool {
        let l = self.links[node as usize];
        l.prev() != NIL || l.next() != NIL || list.head == node
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_remove_and_move_keep_order() {
        let mut links = Links::new(8);
        let mut a = List::new();
        let mut b = List::new();
        for n in [1, 2, 3] {
            links.push_front(&mut a, n);
        }
        assert_eq!(links.to_vec(&a), vec![3, 2, 1]);
        links.move_to_front(&mut a, 1);
        assert_eq!(links.to_vec(&a), vec![1, 3, 2]);
        links.move_to_front_of(&mut a, &mut b, 3);
        assert_eq!(links.to_vec(&a), vec![1, 2]);
        assert_eq!(links.to_vec(&b), vec![3]);
        links.push_back(&mut b, 5);
        assert_eq!(links.to_vec(&b), vec![3, 5]);
        assert_eq!(links.pop_back(&mut a), Some(2));
        assert_eq!(links.pop_front(&mut b), Some(3));
        assert_eq!((a.len(), b.len()), (1, 1));
        assert_eq!(links.pop_back(&mut a), Some(1));
        assert_eq!(links.pop_back(&mut a), None);
        assert!(a.is_empty());
        assert_eq!(links.prev(5), None);
        assert_eq!(links.next(5), None);
    }
}
