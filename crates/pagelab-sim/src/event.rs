//! The discrete-event core: a heap of events in virtual nanoseconds. Ties are broken by the order in which
//! events were scheduled (a sequence number), so a run is a pure function of its inputs and seed.

use pagelab_core::Nanos;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: Nanos,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed: `BinaryHeap` is a max-heap and the earliest event must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Pending events ordered by (time, scheduling order).
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Nanos,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> EventQueue<E> {
        EventQueue { heap: BinaryHeap::new(), seq: 0, now: Nanos::ZERO }
    }

    /// The time of the event last popped (virtual "now").
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Caller guarantees `at >= now()`: the simulation never schedules into the past.
    pub fn schedule(&mut self, at: Nanos, event: E) {
        assert!(at >= self.now, "event scheduled in the past: {at:?} < {:?}", self.now);
        self.heap.push(Entry { at, seq: self.seq, event });
        self.seq += 1;
    }

    pub fn schedule_after(&mut self, delay: Nanos, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// The earliest event; advances `now()` to its time.
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        let e = self.heap.pop()?;
        debug_assert!(e.at >= self.now);
        self.now = e.at;
        Some((e.at, e.event))
    }

    pub fn peek_time(&self) -> Option<Nanos> {
        self.heap.peek().map(|e| e.at)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(Nanos(30), "c");
        q.schedule(Nanos(10), "a1");
        q.schedule(Nanos(10), "a2");
        q.schedule(Nanos(20), "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec!["a1", "a2", "b", "c"]);
        assert_eq!(q.now(), Nanos(30));
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_into_the_past_is_a_bug() {
        let mut q = EventQueue::new();
        q.schedule(Nanos(10), ());
        q.pop();
        q.schedule(Nanos(5), ());
    }
}
