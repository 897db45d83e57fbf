//! Helpers for hand-traced policy tests.

use super::{Access, FrameId, Replacement, NEVER};
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

/// The driver side of the hook protocol, one call at a time, for tests that take paths a demand cache never
/// takes (evictions ahead of insertions, removals, pages that reach the policy late).
pub struct Driver<P> {
    pub table: FrameTable,
    pub policy: P,
}

impl<P: Replacement> Driver<P> {
    pub fn new(policy: P) -> Driver<P> {
        Driver { table: FrameTable::with_shadows(policy.capacity(), policy.shadow_slots()), policy }
    }

    /// A new page for `key` in the frame the table picks, inserted into the policy at once.
    pub fn insert(&mut self, key: u64, vtime: u64) -> FrameId {
        let frame = self.table.insert(key);
        self.policy.on_insert(frame, &Access::demand(key, vtime), &mut self.table.shadows());
        frame
    }

    pub fn hit(&mut self, frame: FrameId, vtime: u64) {
        let key = self.table.key(frame);
        self.policy.on_hit(frame, &Access::demand(key, vtime), &mut self.table.shadows());
    }

    /// Room for a reference to `incoming`: the policy's victim, freed. Returns its frame.
    pub fn evict(&mut self, incoming: u64, vtime: u64) -> FrameId {
        let victim = self.policy.evict(&Access::demand(incoming, vtime), &mut self.table.shadows());
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
