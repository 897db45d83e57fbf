//! Helpers for hand-traced policy tests.

use super::{Access, Replacement, NEVER};
use crate::cache::KeyedCache;
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
