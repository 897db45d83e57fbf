//! [`MrcEngine`]: one of the two ways to build an LRU miss-ratio curve in one pass, behind one interface,
//! so that `pagelab mrc` and the benchmark drive the same code.

use super::{MissRatioCurve, Shards, ShardsConfig, StackDistance};
use crate::CoreError;

#[derive(Clone, Debug)]
pub enum MrcEngine {
    /// Every reference's exact stack distance.
    Exact(StackDistance),
    /// SHARDS: the exact algorithm over a spatially-hashed sample of the keys.
    Sampled(Shards),
}

impl MrcEngine {
    /// SHARDS with `config`, or the exact curve when `config` is `None`.
    pub fn new(config: Option<ShardsConfig>) -> Result<MrcEngine, CoreError> {
        Ok(match config {
            Some(c) => MrcEngine::Sampled(Shards::new(c)?),
            None => MrcEngine::Exact(StackDistance::new()),
        })
    }

    /// Reference `keys` in order.
    pub fn process(&mut self, keys: &[u64]) {
        match self {
            MrcEngine::Exact(s) => s.process(keys),
            MrcEngine::Sampled(s) => s.process(keys),
        }
    }

    /// References processed so far (all of them, sampled or not).
    pub fn requests(&self) -> u64 {
        match self {
            MrcEngine::Exact(s) => s.requests(),
            MrcEngine::Sampled(s) => s.requests(),
        }
    }

    pub fn curve(&self) -> MissRatioCurve {
        match self {
            MrcEngine::Exact(s) => s.curve(),
            MrcEngine::Sampled(s) => s.curve(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_engines_count_every_reference_and_agree_on_a_full_sample() {
        let keys: Vec<u64> = (0..200u64).map(|i| (i * 7) % 23).collect();
        let mut exact = MrcEngine::new(None).unwrap();
        let mut sampled = MrcEngine::new(Some(ShardsConfig::fixed_rate(1.0))).unwrap();
        exact.process(&keys[..50]);
        exact.process(&keys[50..]);
        sampled.process(&keys);
        assert_eq!((exact.requests(), sampled.requests()), (200, 200));
        for size in [1, 5, 22, 23, 40] {
            let (e, s) = (exact.curve().miss_ratio_at(size), sampled.curve().miss_ratio_at(size));
            assert!((e - s).abs() < 1e-12, "size {size}: exact {e}, SHARDS at R = 1 {s}");
        }
    }
}
