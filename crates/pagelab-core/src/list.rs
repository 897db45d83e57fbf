//! Intrusive doubly-linked lists over `u32` node indices.
//!
//! One [`Links`] arena holds the `prev`/`next` links of every node; any number of [`List`] heads thread
//! disjoint subsets of those nodes (ARC's T1/T2/B1/B2, Linux's active and inactive lists, ...). A node is
//! in at most one list at a time. The front is the most recently inserted end (MRU); the back is the
//! eviction end (LRU). All operations are O(1) and allocation-free.
//!
//! Inside an arena a node `n` lives in slot `n + 1`, and links and list ends name slots, slot 0 being "no
//! node". An unlinked node's links are then all zero bytes, so the arena is allocated zeroed and the
//! system maps its pages on first touch: a policy sized for a large simulated memory costs only the nodes
//! a run uses (a 1-s run at 400 GiB wrote 0.8 GB of empty links before its first event). The shift is paid
//! only where a node enters or leaves the API (a `+ 1` or a `- 1`); links followed inside the arena are
//! slots already. Measured against the two other ways to get there (callgrind, `codegen-units = 1`): links
//! stored inverted (`!node`, a `not` per link read or written) and an arena that grows as nodes are first
//! linked (a test in every push) each cost more.

/// "No node": the value other structures use for an absent node (the lists themselves use slot 0).
pub const NIL: u32 = u32::MAX;

/// "No node" among slots.
const NO_SLOT: u32 = 0;

/// A node's links, as slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Link {
    prev: u32,
    next: u32,
}

// SAFETY: two `u32`s, for which all-zero bytes are a valid value (and mean "unlinked").
unsafe impl bytemuck::Zeroable for Link {}

const UNLINKED: Link = Link { prev: NO_SLOT, next: NO_SLOT };

/// The slot of `node`, as a link stores it. [`NIL`] has none: it would wrap to [`NO_SLOT`], so every
/// operation first indexes the arena at [`at`]`(node)`, which for `NIL` is out of bounds and panics, as an
/// index of `NIL` did before slots.
#[inline(always)]
fn slot(node: u32) -> u32 {
    node.wrapping_add(1)
}

/// The arena index of `node`'s slot (computed without wrapping: `NIL`'s is past any arena).
#[inline(always)]
fn at(node: u32) -> usize {
    node as usize + 1
}

/// The node in `slot`, or `None` for [`NO_SLOT`].
#[inline(always)]
fn node(slot: u32) -> Option<u32> {
    (slot != NO_SLOT).then(|| slot - 1)
}

/// The head of one list threaded through a [`Links`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct List {
    /// Slots of the ends ([`NO_SLOT`] when empty).
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
        List { head: NO_SLOT, tail: NO_SLOT, len: 0 }
    }
    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The most recently pushed-front node.
    #[inline]
    pub fn front(&self) -> Option<u32> {
        node(self.head)
    }
    /// The eviction end.
    #[inline]
    pub fn back(&self) -> Option<u32> {
        node(self.tail)
    }
}

/// Link storage for nodes `0..capacity` (slots `1..=capacity`).
#[derive(Clone, Debug)]
pub struct Links {
    links: Vec<Link>,
}

impl Links {
    pub fn new(capacity: u32) -> Links {
        // Zeroed is unlinked (module doc).
        Links { links: crate::zeroed_vec(capacity as usize + 1) }
    }

    pub fn capacity(&self) -> u32 {
        (self.links.len() - 1) as u32
    }

    /// Grow the arena so that nodes `0..capacity` exist (new nodes are unlinked).
    pub fn grow(&mut self, capacity: u32) {
        if capacity as usize + 1 > self.links.len() {
            self.links.resize(capacity as usize + 1, UNLINKED);
        }
    }

    /// Caller guarantees `node` is in no list.
    #[inline]
    pub fn push_front(&mut self, list: &mut List, node: u32) {
        debug_assert!(!self.is_linked(list, node), "node {node} pushed twice");
        let old = list.head;
        self.links[at(node)] = Link { prev: NO_SLOT, next: old };
        let s = slot(node);
        if old == NO_SLOT {
            list.tail = s;
        } else {
            self.links[old as usize].prev = s;
        }
        list.head = s;
        list.len += 1;
    }

    /// Caller guarantees `node` is in no list.
    #[inline]
    pub fn push_back(&mut self, list: &mut List, node: u32) {
        debug_assert!(!self.is_linked(list, node), "node {node} pushed twice");
        let old = list.tail;
        self.links[at(node)] = Link { prev: old, next: NO_SLOT };
        let s = slot(node);
        if old == NO_SLOT {
            list.head = s;
        } else {
            self.links[old as usize].next = s;
        }
        list.tail = s;
        list.len += 1;
    }

    /// Links `node` right after `at` (toward the back). Caller guarantees `at` is in `list` and `node` is
    /// in no list.
    #[inline]
    pub fn insert_after(&mut self, list: &mut List, at: u32, node: u32) {
        debug_assert!(!self.is_linked(list, node), "node {node} inserted twice");
        let next = self.links[self::at(at)].next;
        if next == NO_SLOT {
            self.push_back(list, node);
            return;
        }
        let a = slot(at);
        self.links[self::at(node)] = Link { prev: a, next };
        let s = slot(node);
        self.links[a as usize].next = s;
        self.links[next as usize].prev = s;
        list.len += 1;
    }

    /// Caller guarantees `node` is in `list`.
    #[inline]
    pub fn remove(&mut self, list: &mut List, node: u32) {
        debug_assert!(list.len > 0, "remove from an empty list");
        let Link { prev, next } = self.links[at(node)];
        let s = slot(node);
        if prev == NO_SLOT {
            debug_assert_eq!(list.head, s, "node {node} is not in this list");
            list.head = next;
        } else {
            self.links[prev as usize].next = next;
        }
        if next == NO_SLOT {
            debug_assert_eq!(list.tail, s, "node {node} is not in this list");
            list.tail = prev;
        } else {
            self.links[next as usize].prev = prev;
        }
        self.links[at(node)] = UNLINKED;
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
        if list.head != slot(node) {
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
        self::node(self.links[at(node)].next)
    }

    /// The node before `node` towards the front, if any.
    #[inline]
    pub fn prev(&self, node: u32) -> Option<u32> {
        self::node(self.links[at(node)].prev)
    }

    /// Nodes from front (MRU) to back; bounded by the list length.
    pub fn iter<'a>(&'a self, list: &List) -> impl Iterator<Item = u32> + 'a {
        self.walk(list.head, list.len, |l| l.next)
    }

    /// Nodes from back (the eviction end) to front; bounded by the list length.
    pub fn iter_back<'a>(&'a self, list: &List) -> impl Iterator<Item = u32> + 'a {
        self.walk(list.tail, list.len, |l| l.prev)
    }

    /// `len` nodes from slot `first`, following `step`; asserts the links agree with the length.
    fn walk<'a>(&'a self, first: u32, len: u32, step: fn(&Link) -> u32) -> impl Iterator<Item = u32> + 'a {
        let mut cur = first;
        let mut left = len;
        std::iter::from_fn(move || {
            if cur == NO_SLOT {
                assert_eq!(left, 0, "list shorter than its length");
                return None;
            }
            assert!(left > 0, "list longer than its length (cycle?)");
            left -= 1;
            let s = cur;
            cur = step(&self.links[s as usize]);
            node(s)
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
        let l = self.links[at(node)];
        l.prev != NO_SLOT || l.next != NO_SLOT || list.head == slot(node)
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

    /// A fresh arena is zeroed memory, and every node in it is unlinked: the first and the last node can be
    /// linked and are not taken for linked before (slot 0 is "no node", node `n` is slot `n + 1`).
    #[test]
    fn a_fresh_arena_is_zeroed_and_unlinked_to_its_last_node() {
        let mut links = Links::new(4);
        assert_eq!(links.capacity(), 4);
        assert!(links.links.iter().all(|l| *l == UNLINKED && l.prev == 0 && l.next == 0));
        let mut a = List::new();
        for n in 0..4 {
            assert!(!links.in_list(&a, n), "node {n} of a fresh arena is unlinked");
        }
        links.push_back(&mut a, 3);
        links.push_back(&mut a, 0);
        links.insert_after(&mut a, 3, 2);
        assert_eq!(links.to_vec(&a), vec![3, 2, 0]);
        assert_eq!(links.iter_back(&a).collect::<Vec<_>>(), vec![0, 2, 3]);
        assert_eq!((a.front(), a.back()), (Some(3), Some(0)));
        assert_eq!(
            (links.next(0), links.prev(3), links.next(3), links.prev(0)),
            (None, None, Some(2), Some(2))
        );
        assert!(links.in_list(&a, 0) && links.in_list(&a, 3) && !links.in_list(&a, 1));
        links.grow(6);
        assert_eq!(links.capacity(), 6);
        links.push_front(&mut a, 5);
        assert_eq!(links.to_vec(&a), vec![5, 3, 2, 0]);
        for n in [5, 3, 2, 0] {
            links.remove(&mut a, n);
        }
        assert!(a.is_empty() && (a.front(), a.back()) == (None, None));
        assert!(links.links.iter().all(|l| *l == UNLINKED), "removed nodes are unlinked again");
    }

    /// `NIL` is no node: every operation on it panics, as it did when it indexed the arena directly
    /// (its slot would wrap to "no node").
    #[test]
    fn nil_is_refused_by_every_operation() {
        let mut links = Links::new(4);
        let mut a = List::new();
        links.push_back(&mut a, 1);
        let refused = |f: &dyn Fn(&mut Links, &mut List)| {
            let (mut l, mut list) = (links.clone(), a);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut l, &mut list))).is_err()
        };
        assert!(refused(&|l, list| l.push_front(list, NIL)));
        assert!(refused(&|l, list| l.push_back(list, NIL)));
        assert!(refused(&|l, list| l.insert_after(list, 1, NIL)));
        assert!(refused(&|l, list| l.insert_after(list, NIL, 2)));
        assert!(refused(&|l, list| l.remove(list, NIL)));
        assert!(refused(&|l, _| {
            let _ = l.next(NIL);
        }));
        assert!(refused(&|l, list| {
            let _ = l.in_list(list, NIL);
        }));
    }
}
