//! [`KeyedCache`]: a hit/miss cache of opaque 64-bit keys driven by one replacement policy. This is the
//! whole of what `pagelab cachesim` simulates per (policy, size), and the reference against which the
//! miss-ratio curves are checked.

use crate::frames::FrameTable;
use crate::policy::{Access, Replacement};

/// Hit and miss counts of one cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HitStats {
    pub hits: u64,
    pub misses: u64,
}

impl HitStats {
    pub fn requests(&self) -> u64 {
        self.hits + self.misses
    }
    /// Misses over requests; 0 for an empty run.
    pub fn miss_ratio(&self) -> f64 {
        if self.requests() == 0 {
            0.0
        } else {
            self.misses as f64 / self.requests() as f64
        }
    }
}

#[derive(Clone, Debug)]
pub struct KeyedCache<P> {
    table: FrameTable,
    policy: P,
    stats: HitStats,
}

impl<P: Replacement> KeyedCache<P> {
    /// A cache with as many frames as the policy was built for.
    pub fn new(policy: P) -> KeyedCache<P> {
        assert!(
            P::KEEPS_SHADOWS || policy.shadow_slots() == 0,
            "{} keeps shadows unannounced",
            policy.name()
        );
        let table = FrameTable::with_shadows(policy.capacity(), policy.shadow_slots());
        KeyedCache { table, policy, stats: HitStats::default() }
    }

    /// Reference `access.key`: a hit updates the policy; a miss announces the page (`on_miss`), evicts if
    /// full, then inserts: the demand cache's order of the [`Replacement`] protocol.
    /// Returns whether it was a hit.
    #[inline]
    pub fn access(&mut self, access: &Access) -> bool {
        let hit = self.reference(access);
        self.stats.hits += hit as u64;
        self.stats.misses += !hit as u64;
        hit
    }

    /// Reference each of `keys` in order as a demand access, the first at logical time `vtime_first`, future
    /// unknown (every policy but OPT). The loop of the trace-driven tools.
    #[inline]
    pub fn access_keys(&mut self, keys: &[u64], vtime_first: u64) {
        // Counted in a local, which stays in a register through the loop.
        let mut hits = 0u64;
        for (i, &key) in keys.iter().enumerate() {
            hits += self.reference(&Access::demand(key, vtime_first + i as u64)) as u64;
        }
        self.stats.hits += hits;
        self.stats.misses += keys.len() as u64 - hits;
    }

    /// [`KeyedCache::access`] without the counting.
    #[inline(always)]
    fn reference(&mut self, access: &Access) -> bool {
        // `P::KEEPS_SHADOWS` is known once `P` is: one arm compiles away.
        if P::KEEPS_SHADOWS {
            self.reference_as::<true>(access)
        } else {
            self.reference_as::<false>(access)
        }
    }

    #[inline(always)]
    fn reference_as<const SHADOWS: bool>(&mut self, access: &Access) -> bool {
        let hash = FrameTable::hash(access.key);
        let hit = if let Some(frame) = self.table.lookup_reference::<SHADOWS>(access.key, hash) {
            self.policy.on_hit(frame, access, &mut self.table.shadows());
            true
        } else {
            let history = self.policy.on_miss(access, &mut self.table.shadows());
            let frame = if self.table.is_full() {
                let victim = self.policy.evict(history, &mut self.table.shadows());
                self.table.replace_hashed::<SHADOWS>(victim, access.key, hash)
            } else {
                self.table.insert_hashed::<SHADOWS>(access.key, hash)
            };
            self.policy.on_insert(frame, access, history, &mut self.table.shadows());
            false
        };
        debug_assert_eq!(self.table.len(), self.policy.len(), "table and policy disagree on residency");
        hit
    }

    /// Drop `key` if resident (not an eviction: the policy keeps no history of it).
    pub fn remove(&mut self, key: u64) -> bool {
        match self.table.lookup(key) {
            Some(frame) => {
                self.policy.on_remove(frame, &mut self.table.shadows());
                self.table.remove(frame);
                true
            }
            None => false,
        }
    }

    pub fn contains(&self, key: u64) -> bool {
        self.table.lookup(key).is_some()
    }
    pub fn len(&self) -> u32 {
        self.table.len()
    }
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
    pub fn capacity(&self) -> u32 {
        self.table.capacity()
    }
    pub fn stats(&self) -> HitStats {
        self.stats
    }
    pub fn policy(&self) -> &P {
        &self.policy
    }
    pub fn table(&self) -> &FrameTable {
        &self.table
    }
    /// The policy's queues with keys, see [`Replacement::state`].
    pub fn state(&self) -> String {
        self.policy.state(&self.table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{testing::with_next_use, AnyPolicy, PolicyKind};
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// The invariants every policy must keep on any reference string: capacity never exceeded, every
    /// reference is exactly one hit or miss, a hit only on a resident key, residency agrees between table
    /// and policy, and a cache that is not full never evicts.
    fn check_invariants(kind: PolicyKind, capacity: u32, keys: &[u64]) {
        let mut cache = KeyedCache::new(AnyPolicy::new(kind, capacity));
        let mut resident: HashSet<u64> = HashSet::new();
        for access in with_next_use(keys) {
            let was_resident = cache.contains(access.key);
            let len_before = cache.len();
            let hit = cache.access(&access);
            assert_eq!(hit, was_resident, "{kind}: hit must mean resident (key {})", access.key);
            assert!(cache.len() <= capacity, "{kind}: capacity exceeded");
            assert_eq!(cache.len(), cache.policy().len(), "{kind}: table/policy disagree");
            assert!(cache.contains(access.key), "{kind}: referenced key must be resident after");
            if !hit && len_before < capacity {
                assert_eq!(cache.len(), len_before + 1, "{kind}: evicted while not full");
            }
            resident.insert(access.key);
            resident.retain(|k| cache.contains(*k));
            assert_eq!(resident.len() as u32, cache.len(), "{kind}: a page was lost or duplicated");
        }
        let s = cache.stats();
        assert_eq!(s.requests(), keys.len() as u64);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn every_policy_keeps_the_cache_invariants(
            capacity in 1u32..12,
            keys in proptest::collection::vec(0u64..40, 0..400),
        ) {
            for kind in PolicyKind::ALL {
                check_invariants(kind, capacity, &keys);
            }
        }
    }

    #[test]
    fn removal_is_not_an_eviction() {
        let mut c = KeyedCache::new(AnyPolicy::new(PolicyKind::Lru, 2));
        c.access(&Access::demand(1, 0));
        assert!(c.remove(1));
        assert!(!c.remove(1));
        assert!(c.is_empty());
        assert_eq!(c.stats(), HitStats { hits: 0, misses: 1 });
    }
}
