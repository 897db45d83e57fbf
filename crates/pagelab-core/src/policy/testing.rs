//! Helpers for hand-traced policy tests.

use super::{Access, FrameId, History, Replacement, NEVER};
use crate::cache::KeyedCache;
use crate::frames::FrameTable;
use std::collections::HashMap;

/// Demand accesses for `keys` with `next_vtime` filled in (what OPT needs; harmless for the others).
pub fn with_next_use(keys: &[u64]) -> Vec<Access> {
    let mut next_seen: HashMap<u64, u64> = HashMap::new();
    let mut out: Vec<Access> = keys.iter().enumerate().map(|(t, &k)| Access::demand(k, t as u64)).collect();
    for (t, a) in out.iter_mut().enumerate().rev() {
        a.next_vtime = next_seen.get(&a.key).copied().unwrap_or(NEVER);
        next_seen.insert(a.key, t as u64);
    }
    out
}

/// Replays `steps` — (key, expected hit, expected state after) — and checks each step, naming the step
/// that diverges.
pub fn trace<P: Replacement>(policy: P, steps: &[(u64, bool, &str)]) {
    let keys: Vec<u64> = steps.iter().map(|s| s.0).collect();
    let mut cache = KeyedCache::new(policy);
    for (i, (access, &(key, hit, state))) in with_next_use(&keys).iter().zip(steps).enumerate() {
        let got = cache.access(access);
        assert_eq!(got, hit, "step {i} (key {key}): expected {}", if hit { "hit" } else { "miss" });
        assert_eq!(cache.state(), state, "step {i} (key {key}): wrong state");
    }
}

/// The driver side of the hook protocol, one call at a time, for tests that take the paths a buffer cache
/// takes (evictions ahead of insertions, pages that reach the policy when their I/O completes, removals).
pub struct Driver<P> {
    pub table: FrameTable,
    pub policy: P,
}

impl<P: Replacement> Driver<P> {
    pub fn new(policy: P) -> Driver<P> {
        Driver { table: FrameTable::with_shadows(policy.capacity(), policy.shadow_slots()), policy }
    }

    /// A demand miss on `key` with a free frame: `on_miss`, the frame, `on_insert` at once.
    pub fn insert(&mut self, key: u64, vtime: u64) -> FrameId {
        let (frame, history) = self.announce(Access::demand(key, vtime));
        self.arrive(frame, Access::demand(key, vtime), history);
        frame
    }

    /// A readahead page for `key` with a free frame, inserted at once.
    pub fn insert_prefetched(&mut self, key: u64, vtime: u64) -> FrameId {
        let (frame, history) = self.announce(Access::prefetched(key, vtime));
        self.arrive(frame, Access::prefetched(key, vtime), history);
        frame
    }

    /// The page `access.key` is about to be fetched: `on_miss`, then a free frame for it (its I/O in
    /// flight, not yet in the policy). Returns the frame and the history to hand to `arrive`.
    pub fn announce(&mut self, access: Access) -> (FrameId, History) {
        let history = self.policy.on_miss(&access, &mut self.table.shadows());
        (self.table.insert(access.key), history)
    }

    /// The fetch of the page in `frame` completed: `on_insert`.
    pub fn arrive(&mut self, frame: FrameId, access: Access, history: History) {
        assert_eq!(self.table.key(frame), access.key, "frame {frame} holds another key");
        self.policy.on_insert(frame, &access, history, &mut self.table.shadows());
    }

    pub fn hit(&mut self, frame: FrameId, vtime: u64) {
        let key = self.table.key(frame);
        self.policy.on_hit(frame, &Access::demand(key, vtime), &mut self.table.shadows());
    }

    /// Room for a page whose `on_miss` returned `incoming` (or for none: [`History::NONE`]): the policy's
    /// victim, freed. Returns its frame.
    pub fn evict(&mut self, incoming: History) -> FrameId {
        let victim = self.policy.evict(incoming, &mut self.table.shadows());
        self.table.remove(victim);
        victim
    }

    /// The driver drops the page in `frame` on its own.
    pub fn remove(&mut self, frame: FrameId) {
        self.policy.on_remove(frame, &mut self.table.shadows());
        self.table.remove(frame);
    }

    pub fn state(&self) -> String {
        self.policy.state(&self.table)
    }
}
