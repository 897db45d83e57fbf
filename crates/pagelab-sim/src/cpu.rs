//! The server's processors: `cores` identical CPUs serving handlers' CPU bursts first-come first-served
//! from one run queue, with per-handler CPU time accounting (Li & Shen's Coldest+ ranks prefetch streams by
//! their owner's CPU time, papers/000 §3.1).
//!
//! Bursts are short (per-page processing, think time) and the papers' servers are disk-bound, so a
//! non-preemptive FCFS queue stands in for the kernel's time-sharing scheduler.

use pagelab_core::Nanos;
use std::collections::VecDeque;

/// Which handler slot a burst belongs to.
pub type Slot = u32;

#[derive(Debug)]
pub struct Cpu {
    cores: u32,
    running: u32,
    queue: VecDeque<(Slot, Nanos)>,
    /// Busy core-nanoseconds since the last reset (utilisation).
    busy: Nanos,
}

impl Cpu {
    pub fn new(cores: u32) -> Cpu {
        assert!(cores >= 1, "a server needs a CPU");
        Cpu { cores, running: 0, queue: VecDeque::new(), busy: Nanos::ZERO }
    }

    /// A burst of `work` for `slot` arrives at `now`. Returns its completion time if a core is free (the
    /// caller schedules the completion event), else queues it.
    pub fn submit(&mut self, slot: Slot, work: Nanos) -> Option<Nanos> {
        if self.running < self.cores {
            self.running += 1;
            self.busy += work;
            Some(work)
        } else {
            self.queue.push_back((slot, work));
            None
        }
    }

    /// A burst finished and freed its core. Returns the next queued burst, now started: (slot, work); the
    /// caller schedules its completion at now + work.
    pub fn complete(&mut self) -> Option<(Slot, Nanos)> {
        assert!(self.running > 0, "a core finished that was not running");
        match self.queue.pop_front() {
            Some((slot, work)) => {
                self.busy += work;
                Some((slot, work))
            }
            None => {
                self.running -= 1;
                None
            }
        }
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }
    pub fn cores(&self) -> u32 {
        self.cores
    }
    pub fn busy(&self) -> Nanos {
        self.busy
    }
    pub fn reset_busy(&mut self) {
        self.busy = Nanos::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_cores_serve_fcfs() {
        let mut cpu = Cpu::new(2);
        assert_eq!(cpu.submit(0, Nanos(10)), Some(Nanos(10)));
        assert_eq!(cpu.submit(1, Nanos(20)), Some(Nanos(20)));
        assert_eq!(cpu.submit(2, Nanos(5)), None);
        assert_eq!(cpu.submit(3, Nanos(7)), None);
        assert_eq!(cpu.queued(), 2);
        assert_eq!(cpu.complete(), Some((2, Nanos(5))));
        assert_eq!(cpu.complete(), Some((3, Nanos(7))));
        assert_eq!(cpu.complete(), None);
        assert_eq!(cpu.complete(), None);
        assert_eq!(cpu.busy(), Nanos(42));
    }
}
