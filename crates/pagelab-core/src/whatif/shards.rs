//! SHARDS: the LRU miss-ratio curve from a spatially hashed sample of the keys.
//!
//! Waldspurger, Park, Garthwaite, Ahmad, "Efficient MRC Construction with SHARDS", FAST 2015
//! (`../shared/reference/mrc.md` §2). A key is sampled iff `hash(key) mod P < T`, so every reference to a
//! sampled key is seen and none to the others: the sample is a rate-`R = T/P` sample of the keys, and a
//! sampled reference's stack distance among sampled keys, divided by `R`, estimates its true distance.
//! The sampled references run through the exact stack ([`super::stack_distance`]); each counts `1/R`
//! references at distance `d/R`.
//!
//! - Fixed-rate (mrc.md §2.1): `T` fixed; the sample holds about `R·M` keys.
//! - Fixed-size (mrc.md §2.2): at most `s_max` keys. When a new key would exceed it, the sampled key with
//!   the largest hash leaves and `T` drops to that hash, so the sample is always exactly the seen keys
//!   whose hash is below `T` (the `s_max` smallest), a fixed-rate sample at the current `R`. SHARDS
//!   rescales the histogram by `R_new/R_old` at each drop and divides by the final `R`; weighting each
//!   reference by `1/R` at the time it is counted is the same product of factors without the rescaling
//!   pass, and is what libCacheSim does.
//! - SHARDS_adj (mrc.md §2.3, on by default): the sample holds `N_s` references where `N·R` were
//!   expected, and the paper attributes the difference to a few hot keys that happen to be in or out of
//!   it. The difference `N − N_s/R` (in scaled units) is added to the first histogram bucket, the smallest
//!   distance the sample can resolve (`1/R`). Without it the counts are normalised by the sampled total.
//!
//! Accuracy is sampling variance, and it depends on how many keys the sample holds, not on `R` alone
//! (measured against the exact curve, mean absolute error over 100 sizes, mean of 100 seeds, 20 for Zipf):
//! R = 0.01, 0.016 on P3 (1 K sampled keys), 0.015 on cloudPhysicsIO pages (2.7 K) and 0.028 on its
//! objects (0.5 K), but 0.003 on a 10 M-reference Zipf(1.0) trace of 763 K keys (7.6 K); fixed-size with
//! `s_max` = 8 K, 0.003–0.007 on all three real traces. The curve averaged over the seeds is off by
//! only 0.001–0.003 (0.007 on the objects trace), so the estimator itself is nearly unbiased. _adj is
//! what makes hot keys harmless (objects trace: 0.028 with it, 0.076 without; Zipf: 0.003 against 0.057);
//! on P3, which has no hot keys, the deficit is mostly in how many keys fell in the sample, and
//! `adjust: false` is better (0.009 against 0.016).
//!
//! Departures, and why:
//! - `P = 2^64` and the hash is [`mix64`] of the key xored with a salt (from the seed): a bijection, so
//!   no two keys share a hash and fixed-size eviction never has ties. The salt keeps the sampled keys'
//!   hashes independent of the hash tables' (also `mix64`), whose control bytes come from the top bits
//!   that the sample forces to zero. Over 1,000 salts the number of sampled keys of each real trace has
//!   the binomial variance (ratio 0.9–1.1), as with SipHash.
//! - `T` is stored inclusive (`hash <= threshold_max`) so that `R = 1` is representable in a `u64`.
//! - Scaled distances are rounded to the nearest page (`1/R` is rarely an integer); at `R = 1` the curve
//!   is the exact one, bit for bit.
//! - Fixed-size histogram buckets are exact below `2^k > s_max` and log-linear above (1,024 buckets per
//!   power of two, relative width < 0.1 %), so the histogram stays bounded as `1/R` grows; a bucket's
//!   hits count from its lower bound. Fixed-rate buckets are the sampled distances themselves (exact).
//! - Misses of a curve are clamped to `[0, N]` and made non-increasing ([`MissRatioCurve::from_hits`]):
//!   a negative `_adj` correction must not predict more misses than references.

use super::mrc::MissRatioCurve;
use super::stack_distance::LruStack;
use crate::error::CoreError;
use crate::hash::mix64;
use crate::units::fmt_f64;
use std::collections::BinaryHeap;

/// `P`: hashes are uniform over `0..2^64`.
const HASH_SPACE: f64 = 18_446_744_073_709_551_616.0;
/// Mixed with the seed into the key before hashing; any odd constant far from 0 works.
const SAMPLE_SALT: u64 = 0x9e37_79b9_7f4a_7c15;
/// Log-linear buckets per power of two above the exact range (fixed-size only).
const SUB_BITS: u32 = 10;
/// Keeps the sample's distances inside the stack's `u32` range.
const SAMPLES_MAX: u32 = 1 << 29;

/// How SHARDS bounds its sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShardsMode {
    /// Sample a fixed fraction `rate` (`R`, in `(0, 1]`) of the keys.
    FixedRate { rate: f64 },
    /// Keep at most `samples_max` (`s_max`) keys, lowering the rate as more keys appear.
    FixedSize { samples_max: u32 },
}

/// A SHARDS configuration. `adjust` turns SHARDS_adj on; `seed` picks the hash (different seeds sample
/// different, independent key sets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShardsConfig {
    pub mode: ShardsMode,
    pub adjust: bool,
    pub seed: u64,
}

impl ShardsConfig {
    /// Fixed-rate `R = rate`, with SHARDS_adj, seed 0.
    pub fn fixed_rate(rate: f64) -> ShardsConfig {
        ShardsConfig { mode: ShardsMode::FixedRate { rate }, adjust: true, seed: 0 }
    }

    /// Fixed-size `s_max = samples_max`, with SHARDS_adj, seed 0.
    pub fn fixed_size(samples_max: u32) -> ShardsConfig {
        ShardsConfig { mode: ShardsMode::FixedSize { samples_max }, adjust: true, seed: 0 }
    }

    pub fn validate(&self) -> Result<(), CoreError> {
        let invalid = |why: String| Err(CoreError::InvalidParameter { what: "SHARDS configuration", why });
        match self.mode {
            ShardsMode::FixedRate { rate } if !(rate > 0.0 && rate <= 1.0) => {
                invalid(format!("sampling rate {} is not in (0, 1]", fmt_f64(rate)))
            }
            // The threshold is `R·2^64` hash values: below one, no key could ever be sampled. Rates above
            // that are kept, although below ~1e-13 they sample no key of any trace read in a day (at 50 M
            // references/s, ~4·10^12 references): such a run ends in "SHARDS kept none of the trace's
            // keys", which says what to do instead, and a tighter bound here would be a guess at how many
            // distinct keys a trace holds.
            ShardsMode::FixedRate { rate } if rate * HASH_SPACE < 1.0 => {
                invalid(format!("sampling rate {} is below 2^-64", fmt_f64(rate)))
            }
            ShardsMode::FixedSize { samples_max } if samples_max == 0 || samples_max > SAMPLES_MAX => {
                invalid(format!("sample size {samples_max} is not in 1..={SAMPLES_MAX}"))
            }
            _ => Ok(()),
        }
    }
}

/// Histogram buckets over sampled distances.
#[derive(Clone, Copy, Debug)]
enum Binning {
    /// Fixed rate: bucket `d` is sampled distance `d`; it stands for distance `round(d/R)`.
    Sampled,
    /// Fixed size: buckets over scaled distances, exact below `2^exact_bits`, log-linear above.
    LogLinear { exact_bits: u32 },
}

impl Binning {
    /// The bucket of sampled distance `d` at inverse rate `inv_rate`.
    #[inline]
    fn bucket(self, d: u32, inv_rate: f64) -> usize {
        match self {
            Binning::Sampled => d as usize,
            Binning::LogLinear { exact_bits } => {
                let scaled = scale_distance(d as u64, inv_rate);
                if scaled < 1 << exact_bits {
                    return scaled as usize;
                }
                let octave = 63 - scaled.leading_zeros();
                let offset = (scaled - (1 << octave)) >> (octave - SUB_BITS);
                ((1u64 << exact_bits) + (((octave - exact_bits) as u64) << SUB_BITS) + offset) as usize
            }
        }
    }

    /// The distance bucket `b` stands for (the lower bound of a log-linear bucket).
    fn distance(self, b: usize, inv_rate: f64) -> u64 {
        match self {
            Binning::Sampled => scale_distance(b as u64, inv_rate),
            Binning::LogLinear { exact_bits } => {
                let b = b as u64;
                if b < 1 << exact_bits {
                    return b;
                }
                let above = b - (1 << exact_bits);
                let octave = exact_bits + (above >> SUB_BITS) as u32;
                (1 << octave) + ((above & ((1 << SUB_BITS) - 1)) << (octave - SUB_BITS))
            }
        }
    }
}

/// `d / R` rounded to the nearest page, at least 1.
#[inline]
fn scale_distance(d: u64, inv_rate: f64) -> u64 {
    ((d as f64 * inv_rate).round() as u64).max(1)
}

/// The sampling rate `R` of an inclusive threshold.
fn inverse_rate(threshold_max: u64) -> f64 {
    HASH_SPACE / (threshold_max as f64 + 1.0)
}

/// A SHARDS miss-ratio-curve builder: feed it every reference, then ask for [`Shards::curve`].
///
/// The path of an unsampled reference is one hash and one comparison. Memory is O(sampled keys): about
/// `R·M` for fixed-rate, `s_max` for fixed-size. No allocation per reference once the sample stops
/// growing.
#[derive(Clone, Debug)]
pub struct Shards {
    config: ShardsConfig,
    salt: u64,
    /// `T` (inclusive): a key is sampled iff its hash is at most this.
    threshold_max: u64,
    /// `1/R` for the current threshold.
    inv_rate: f64,
    /// The sampled keys' stack.
    stack: LruStack,
    /// Fixed-size only: every sampled key as (hash, key), largest hash on top. Same keys as `stack`.
    samples: BinaryHeap<(u64, u64)>,
    samples_max: u32,
    binning: Binning,
    /// Hits (weighted `1/R` each) by bucket.
    buckets: Vec<f64>,
    requests: u64,
    sampled_requests: u64,
    /// `Σ 1/R` over sampled references, hits and cold misses: the estimate of `requests`.
    sampled_weight: f64,
}

impl Shards {
    /// A builder for `config`, or why the configuration is invalid.
    pub fn new(config: ShardsConfig) -> Result<Shards, CoreError> {
        config.validate()?;
        let (threshold_max, samples_max, binning) = match config.mode {
            ShardsMode::FixedRate { rate } => {
                let threshold = if rate >= 1.0 { u64::MAX } else { (rate * HASH_SPACE) as u64 - 1 };
                (threshold, SAMPLES_MAX, Binning::Sampled)
            }
            ShardsMode::FixedSize { samples_max } => {
                // 2^exact_bits > s_max: while R = 1 every distance (≤ s_max) has its own bucket.
                let exact_bits = (32 - samples_max.leading_zeros()).max(SUB_BITS);
                (u64::MAX, samples_max, Binning::LogLinear { exact_bits })
            }
        };
        Ok(Shards {
            config,
            salt: mix64(config.seed ^ SAMPLE_SALT),
            threshold_max,
            inv_rate: inverse_rate(threshold_max),
            stack: LruStack::new(),
            samples: BinaryHeap::new(),
            samples_max,
            binning,
            buckets: Vec::new(),
            requests: 0,
            sampled_requests: 0,
            sampled_weight: 0.0,
        })
    }

    /// The hash that decides sampling (uniform over `u64`, a bijection of the key).
    #[inline(always)]
    pub fn sample_hash(&self, key: u64) -> u64 {
        mix64(key ^ self.salt)
    }

    /// Whether a reference to `key` would be sampled at the current threshold.
    #[inline]
    pub fn would_sample(&self, key: u64) -> bool {
        self.sample_hash(key) <= self.threshold_max
    }

    /// Reference `key`.
    #[inline]
    pub fn access(&mut self, key: u64) {
        self.requests += 1;
        let hash = self.sample_hash(key);
        if hash <= self.threshold_max {
            self.sampled(key, hash);
        }
    }

    /// Reference every key of `keys` in order; same as calling [`Shards::access`] on each.
    pub fn process(&mut self, keys: &[u64]) {
        self.requests += keys.len() as u64;
        for &key in keys {
            let hash = self.sample_hash(key);
            // Re-read every time: a fixed-size sample lowers the threshold inside `sampled`.
            if hash <= self.threshold_max {
                self.sampled(key, hash);
            }
        }
    }

    #[inline(never)]
    fn sampled(&mut self, key: u64, hash: u64) {
        let distance = self.stack.access(key);
        if distance.is_none() && matches!(self.config.mode, ShardsMode::FixedSize { .. }) {
            self.samples.push((hash, key));
            if self.samples.len() > self.samples_max as usize {
                let (hash_max, evicted) = self.samples.pop().expect("sample over its size is not empty");
                // hash_max > 0: it is the largest of at least two distinct hashes.
                self.threshold_max = hash_max - 1;
                self.inv_rate = inverse_rate(self.threshold_max);
                assert!(self.stack.remove(evicted), "evicted key {evicted} was not sampled");
                if evicted == key {
                    // Outside the sample at the new rate: as if it had never been sampled.
                    return;
                }
            }
            assert_eq!(self.samples.len(), self.stack.len() as usize, "sample heap and stack disagree");
        }
        self.sampled_requests += 1;
        self.sampled_weight += self.inv_rate;
        if let Some(d) = distance {
            let bucket = self.binning.bucket(d, self.inv_rate);
            if bucket >= self.buckets.len() {
                self.buckets.resize(bucket + 1, 0.0);
            }
            self.buckets[bucket] += self.inv_rate;
        }
    }

    /// The estimated LRU miss-ratio curve of the references so far. With no sampled reference there is
    /// nothing to estimate from, and the curve says every reference misses.
    pub fn curve(&self) -> MissRatioCurve {
        if self.sampled_requests == 0 {
            return MissRatioCurve::from_hits(self.requests, std::iter::empty());
        }
        let requests = self.requests as f64;
        let (scale, adjustment) = if self.config.adjust {
            (1.0, requests - self.sampled_weight)
        } else {
            (requests / self.sampled_weight, 0.0)
        };
        let first = self.binning.bucket(1, self.inv_rate);
        let inv_rate = self.inv_rate;
        let hits = (1..self.buckets.len().max(first + 1)).filter_map(move |b| {
            let weight = self.buckets.get(b).copied().unwrap_or(0.0) * scale;
            let weight = if b == first { weight + adjustment } else { weight };
            (weight != 0.0).then(|| (self.binning.distance(b, inv_rate), weight))
        });
        MissRatioCurve::from_hits(self.requests, hits)
    }

    pub fn config(&self) -> &ShardsConfig {
        &self.config
    }
    /// `R` now (fixed-size: it only decreases).
    pub fn rate(&self) -> f64 {
        1.0 / self.inv_rate
    }
    /// `T`, inclusive: keys whose [`Shards::sample_hash`] is at most this are sampled.
    pub fn threshold_max(&self) -> u64 {
        self.threshold_max
    }
    pub fn requests(&self) -> u64 {
        self.requests
    }
    /// References counted from the sample (`N_s`).
    pub fn sampled_requests(&self) -> u64 {
        self.sampled_requests
    }
    /// Keys in the sample now.
    pub fn sampled_keys(&self) -> u32 {
        self.stack.len()
    }

    /// Heap bytes held (sample stack, heap, histogram).
    pub fn heap_bytes(&self) -> usize {
        self.stack.heap_bytes() + self.samples.capacity() * 16 + self.buckets.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whatif::stack_distance::StackDistance;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn exact(keys: &[u64]) -> MissRatioCurve {
        let mut sd = StackDistance::new();
        sd.process(keys);
        sd.curve()
    }

    fn shards(config: ShardsConfig, keys: &[u64]) -> Shards {
        let mut s = Shards::new(config).expect("valid configuration");
        s.process(keys);
        s
    }

    #[test]
    fn configurations_are_validated() {
        for rate in [0.0, -0.5, 1.5, f64::NAN, 1e-30] {
            assert!(Shards::new(ShardsConfig::fixed_rate(rate)).is_err(), "rate {rate}");
        }
        assert!(Shards::new(ShardsConfig::fixed_size(0)).is_err());
        // The rate is echoed briefly (1e-300 used to be written out in 300 digits).
        let err = |rate: f64| Shards::new(ShardsConfig::fixed_rate(rate)).err().unwrap().to_string();
        assert_eq!(err(1e-300), "invalid SHARDS configuration: sampling rate 1e-300 is below 2^-64");
        assert_eq!(err(1e300), "invalid SHARDS configuration: sampling rate 1e300 is not in (0, 1]");
        assert!(Shards::new(ShardsConfig::fixed_size(SAMPLES_MAX + 1)).is_err());
        let half = Shards::new(ShardsConfig::fixed_rate(0.5)).unwrap();
        assert_eq!((half.threshold_max(), half.rate()), (u64::MAX / 2, 0.5));
        assert_eq!(Shards::new(ShardsConfig::fixed_rate(1.0)).unwrap().threshold_max(), u64::MAX);
    }

    /// R = 1/2: key `a` sampled, key `b` not. Trace a a a b b b b b (N = 8).
    /// Sampled: a cold (weight 2), a at distance 1 twice (weight 2 each, scaled distance 2).
    /// W = 6, so SHARDS_adj adds N − W = 2 to the first bucket (distance 2): hits(≥2) = 4 + 2 = 6.
    /// Unadjusted: hits scaled by N/W = 4/3, so hits(≥2) = 16/3.
    #[test]
    fn hand_worked_fixed_rate_with_and_without_adjustment() {
        let probe = Shards::new(ShardsConfig::fixed_rate(0.5)).unwrap();
        let a = (0..).find(|&k| probe.would_sample(k)).unwrap();
        let b = (0..).find(|&k| !probe.would_sample(k)).unwrap();
        let trace = [a, a, a, b, b, b, b, b];

        let adjusted = shards(ShardsConfig::fixed_rate(0.5), &trace);
        assert_eq!((adjusted.sampled_requests(), adjusted.sampled_keys()), (3, 1));
        let c = adjusted.curve();
        assert_eq!((c.misses_at(1), c.misses_at(2), c.misses_at(100)), (8.0, 2.0, 2.0));
        // The true curve has 2 misses from size 1 on: the sample cannot resolve distances below 1/R.
        assert_eq!(exact(&trace).misses_at(1), 2.0);

        let plain = shards(ShardsConfig { adjust: false, ..ShardsConfig::fixed_rate(0.5) }, &trace);
        let c = plain.curve();
        assert_eq!(c.misses_at(1), 8.0);
        assert!((c.misses_at(2) - (8.0 - 16.0 / 3.0)).abs() < 1e-12, "{}", c.misses_at(2));
    }

    #[test]
    fn nothing_sampled_means_every_reference_misses() {
        let probe = Shards::new(ShardsConfig::fixed_rate(0.001)).unwrap();
        let cold: Vec<u64> = (0..).filter(|&k| !probe.would_sample(k)).take(5).collect();
        let c = shards(ShardsConfig::fixed_rate(0.001), &[cold[0], cold[1], cold[0], cold[4]]).curve();
        assert_eq!((c.requests(), c.miss_ratio_at(1_000_000)), (4, 1.0));
    }

    /// The sampling hash is uniform on sequential keys and independent of the hash tables' hash: the
    /// keys sampled at R = 1/100 still spread over all 128 hashbrown control tags (top 7 bits of mix64).
    #[test]
    fn sample_is_uniform_and_independent_of_table_hash() {
        let s = Shards::new(ShardsConfig::fixed_rate(0.01)).unwrap();
        let sampled: Vec<u64> = (0..1_000_000u64).filter(|&k| s.would_sample(k)).collect();
        assert!((9_500..=10_500).contains(&sampled.len()), "sampled {} of 1M", sampled.len());
        let mut tags = [0u32; 128];
        for &k in &sampled {
            tags[(mix64(k) >> 57) as usize] += 1;
        }
        // Expected ~78 per tag; a sample correlated with the table hash would leave most tags empty.
        assert!(tags.iter().all(|&n| (30..=140).contains(&n)), "tag counts {tags:?}");
    }

    #[test]
    fn log_linear_buckets_are_exact_below_the_limit_and_ordered_above() {
        let binning = Binning::LogLinear { exact_bits: 10 };
        let mut last = 0;
        for d in 1..200_000u32 {
            let b = binning.bucket(d, 1.0);
            let lower = binning.distance(b, 1.0);
            assert!(lower <= d as u64, "bucket {b} starts at {lower} > {d}");
            if d < 1024 {
                assert_eq!((b, lower), (d as usize, d as u64));
            } else {
                let width = 1u64 << ((63 - (d as u64).leading_zeros()) - SUB_BITS);
                assert!(d as u64 - lower < width, "distance {d} in bucket {b} from {lower}");
            }
            assert!(b >= last, "buckets must not go back");
            last = b;
        }
    }

    /// The s_max smallest hashes among the keys seen so far, by brute force.
    fn smallest_hashes(s: &Shards, seen: &HashSet<u64>, samples_max: usize) -> HashSet<u64> {
        let mut by_hash: Vec<(u64, u64)> = seen.iter().map(|&k| (s.sample_hash(k), k)).collect();
        by_hash.sort_unstable();
        by_hash.into_iter().take(samples_max).map(|(_, k)| k).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// At R = 1 nothing is sampled away: the curve is the exact one, with or without SHARDS_adj.
        #[test]
        fn rate_one_is_exact(keys in proptest::collection::vec(0u64..64, 0..800), adjust: bool) {
            let s = shards(ShardsConfig { adjust, ..ShardsConfig::fixed_rate(1.0) }, &keys);
            prop_assert_eq!(s.curve(), exact(&keys));
        }

        /// A fixed-size sample with room for every key never lowers the rate: exact.
        #[test]
        fn fixed_size_with_room_is_exact(keys in proptest::collection::vec(0u64..64, 0..800), extra in 0u32..3) {
            let distinct = keys.iter().collect::<HashSet<_>>().len() as u32;
            let s = shards(ShardsConfig::fixed_size(distinct.max(1) + extra), &keys);
            prop_assert_eq!(s.rate(), 1.0);
            prop_assert_eq!(s.curve(), exact(&keys));
        }

        /// Fixed rate R: the curve is the exact curve of the sampled sub-trace with distances and counts
        /// scaled by 1/R, plus SHARDS_adj's N − N_s/R at distance 1/R.
        #[test]
        fn fixed_rate_scales_the_sampled_subtrace(
            keys in proptest::collection::vec(0u64..200, 1..800),
            rate_per_mille in 100u32..=900,
            adjust: bool,
        ) {
            let rate = rate_per_mille as f64 / 1000.0;
            let s = shards(ShardsConfig { adjust, ..ShardsConfig::fixed_rate(rate) }, &keys);
            let sub: Vec<u64> = keys.iter().copied().filter(|&k| s.would_sample(k)).collect();
            prop_assert_eq!(s.sampled_requests(), sub.len() as u64);
            let mut sd = StackDistance::new();
            sd.process(&sub);
            let inv = 1.0 / s.rate();
            let n = keys.len() as f64;
            let w = sub.len() as f64 * inv;
            let curve = s.curve();
            for size in 1..=(220.0 * inv) as u64 {
                let hits: f64 = sd.histogram().iter().enumerate()
                    .filter(|&(d, _)| d >= 1 && ((d as f64 * inv).round() as u64) <= size)
                    .map(|(_, &h)| h as f64 * inv).sum();
                let expected = if sub.is_empty() {
                    n
                } else if adjust {
                    n - hits - if size >= inv.round() as u64 { n - w } else { 0.0 }
                } else {
                    n - hits * n / w
                };
                let expected = expected.clamp(0.0, n);
                prop_assert!((curve.misses_at(size) - expected).abs() < 1e-6 * n,
                    "size {}: {} vs {}", size, curve.misses_at(size), expected);
            }
        }

        /// Fixed size: after every reference the sample is the s_max smallest hashes seen, the stack holds
        /// exactly those keys, the rate never rises, and the sample never exceeds s_max.
        #[test]
        fn fixed_size_keeps_the_smallest_hashes(
            keys in proptest::collection::vec(0u64..300, 1..600),
            samples_max in 1u32..40,
        ) {
            let mut s = Shards::new(ShardsConfig::fixed_size(samples_max)).unwrap();
            let mut seen = HashSet::new();
            let mut rate_before = 1.0;
            for &k in &keys {
                s.access(k);
                seen.insert(k);
                prop_assert!(s.sampled_keys() <= samples_max);
                prop_assert!(s.rate() <= rate_before);
                rate_before = s.rate();
                let stacked: HashSet<u64> = s.stack.keys_by_recency().into_iter().collect();
                prop_assert_eq!(&stacked, &smallest_hashes(&s, &seen, samples_max as usize));
                prop_assert!(stacked.iter().all(|&k| s.would_sample(k)));
                prop_assert_eq!(s.samples.len(), stacked.len());
            }
            s.stack.check();
            let curve = s.curve();
            prop_assert!(curve.miss_ratio_at(1) <= 1.0 && curve.cold_misses() >= 0.0);
        }
    }
}
