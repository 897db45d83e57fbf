//! [`MissRatioCurve`]: LRU misses as a function of cache size, the output of both the exact stack-distance
//! pass and SHARDS (`../shared/reference/mrc.md`).
//!
//! The curve is stored as its steps: the sizes at which the miss count drops, with the count from that
//! size on. An exact curve has one step per distinct stack distance (at most the distinct keys); a SHARDS
//! curve one per histogram bucket; every size in between is answered by a binary search, so "every size
//! 1..=max" costs no memory. Misses are `f64` because sampled curves carry scaled, fractional counts; an
//! exact curve's counts are integers below 2^53 and therefore exact.

/// From `size_pages` on (up to the next step), a cache has `misses` misses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MrcStep {
    pub size_pages: u64,
    pub misses: f64,
}

/// Misses of an LRU cache at every size, for one reference string.
///
/// Invariants (checked on construction): step sizes strictly increase from 1; misses lie in
/// `[0, requests]` and strictly decrease from step to step. Below the first step every reference misses.
#[derive(Clone, Debug, PartialEq)]
pub struct MissRatioCurve {
    requests: u64,
    steps: Vec<MrcStep>,
}

impl MissRatioCurve {
    /// The curve of `requests` references whose hits, as `(distance, weight)` pairs, are `hits`: a
    /// reference at stack distance `d` hits in every cache of `d` pages or more.
    ///
    /// Caller guarantees distances are at least 1 and non-decreasing (equal distances are merged) and
    /// weights are finite. A weight may be negative (SHARDS_adj's correction): the misses at a size are
    /// then clamped to `requests`, and never above those of a smaller size, because a larger LRU cache
    /// never misses more; likewise clamped at 0.
    pub fn from_hits(requests: u64, hits: impl IntoIterator<Item = (u64, f64)>) -> MissRatioCurve {
        let total = requests as f64;
        let mut steps: Vec<MrcStep> = Vec::new();
        let mut hits_sum = 0.0;
        let mut misses_before = total;
        let mut distance_before = 0;
        for (distance, weight) in hits {
            assert!(
                distance >= 1 && distance >= distance_before,
                "distance {distance} after {distance_before}"
            );
            assert!(weight.is_finite(), "weight {weight} at distance {distance}");
            distance_before = distance;
            hits_sum += weight;
            let misses = (total - hits_sum).clamp(0.0, misses_before);
            if misses >= misses_before {
                continue;
            }
            match steps.last_mut() {
                Some(last) if last.size_pages == distance => last.misses = misses,
                _ => steps.push(MrcStep { size_pages: distance, misses }),
            }
            misses_before = misses;
        }
        let curve = MissRatioCurve { requests, steps };
        curve.check();
        curve
    }

    fn check(&self) {
        let mut before = MrcStep { size_pages: 0, misses: self.requests as f64 };
        for step in &self.steps {
            assert!(step.size_pages > before.size_pages, "step sizes must increase: {before:?} {step:?}");
            assert!(
                step.misses < before.misses && step.misses >= 0.0,
                "misses must drop: {before:?} {step:?}"
            );
            before = *step;
        }
    }

    /// References the curve describes.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Misses of an infinite cache: first references (estimated, for a sampled curve).
    pub fn cold_misses(&self) -> f64 {
        self.steps.last().map_or(self.requests as f64, |s| s.misses)
    }

    /// The sizes where the miss count drops, ascending.
    pub fn steps(&self) -> &[MrcStep] {
        &self.steps
    }

    /// The smallest size with the fewest misses (0 if no reference ever hits): larger caches gain nothing.
    pub fn size_pages_max(&self) -> u64 {
        self.steps.last().map_or(0, |s| s.size_pages)
    }

    /// Misses of an LRU cache of `size_pages` pages (0 pages: every reference misses).
    pub fn misses_at(&self, size_pages: u64) -> f64 {
        match self.steps.partition_point(|s| s.size_pages <= size_pages) {
            0 => self.requests as f64,
            i => self.steps[i - 1].misses,
        }
    }

    /// Misses over requests at `size_pages`; 0 for an empty reference string.
    pub fn miss_ratio_at(&self, size_pages: u64) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.misses_at(size_pages) / self.requests as f64
        }
    }
}

/// Mean over `sizes_pages` of `|a.miss_ratio_at(size) − b.miss_ratio_at(size)|`: the accuracy measure of
/// the SHARDS paper. Caller guarantees `sizes_pages` is not empty.
pub fn mean_absolute_error(a: &MissRatioCurve, b: &MissRatioCurve, sizes_pages: &[u64]) -> f64 {
    assert!(!sizes_pages.is_empty(), "mean absolute error over no sizes");
    let sum: f64 = sizes_pages.iter().map(|&s| (a.miss_ratio_at(s) - b.miss_ratio_at(s)).abs()).sum();
    sum / sizes_pages.len() as f64
}

/// `count` sizes evenly spaced up to `size_pages_max`: `round(size_pages_max · i / count)` for
/// `i = 1..=count`, at least 1 page each (sizes repeat when `size_pages_max < count`).
pub fn evenly_spaced_sizes(size_pages_max: u64, count: u32) -> Vec<u64> {
    (1..=count as u64)
        .map(|i| ((size_pages_max as u128 * i as u128 + count as u128 / 2) / count as u128) as u64)
        .map(|s| s.max(1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(size_pages: u64, misses: f64) -> MrcStep {
        MrcStep { size_pages, misses }
    }

    #[test]
    fn steps_merge_equal_distances_and_skip_empty_ones() {
        let c = MissRatioCurve::from_hits(10, [(1, 2.0), (3, 1.0), (3, 2.0), (5, 0.0), (8, 1.0)]);
        assert_eq!(c.steps(), &[step(1, 8.0), step(3, 5.0), step(8, 4.0)]);
        let expected = [10.0, 8.0, 8.0, 5.0, 5.0, 5.0, 5.0, 5.0, 4.0, 4.0];
        for (size, &m) in expected.iter().enumerate() {
            assert_eq!(c.misses_at(size as u64), m, "size {size}");
        }
        assert_eq!(c.miss_ratio_at(3), 0.5);
        assert_eq!((c.cold_misses(), c.size_pages_max()), (4.0, 8));
    }

    #[test]
    fn negative_and_excess_weights_are_clamped() {
        // A negative first bucket (SHARDS_adj when hot keys were over-sampled) cannot raise misses above
        // the requests; the later hits are still counted from the true cumulative sum.
        let c = MissRatioCurve::from_hits(10, [(2, -3.0), (4, 5.0), (6, 20.0)]);
        assert_eq!(c.steps(), &[step(4, 8.0), step(6, 0.0)]);
        assert_eq!(c.misses_at(3), 10.0);
    }

    #[test]
    fn empty_curve() {
        let c = MissRatioCurve::from_hits(0, std::iter::empty());
        assert_eq!(
            (c.misses_at(5), c.miss_ratio_at(5), c.cold_misses(), c.size_pages_max()),
            (0.0, 0.0, 0.0, 0)
        );
        let no_hits = MissRatioCurve::from_hits(7, std::iter::empty());
        assert_eq!((no_hits.miss_ratio_at(1_000), no_hits.cold_misses()), (1.0, 7.0));
    }

    #[test]
    #[should_panic(expected = "distance 2 after 3")]
    fn unsorted_distances_are_rejected() {
        MissRatioCurve::from_hits(10, [(3, 1.0), (2, 1.0)]);
    }

    #[test]
    fn mean_absolute_error_by_hand() {
        let a = MissRatioCurve::from_hits(10, [(1, 5.0)]); // 1.0 then 0.5
        let b = MissRatioCurve::from_hits(10, [(2, 2.0)]); // 1.0, 1.0, then 0.8
                                                           // sizes 1, 2, 3: |0.5 − 1.0| + |0.5 − 0.8| + |0.5 − 0.8| = 1.1
        assert!((mean_absolute_error(&a, &b, &[1, 2, 3]) - 1.1 / 3.0).abs() < 1e-12);
        assert_eq!(mean_absolute_error(&a, &a, &[1, 2, 3]), 0.0);
    }

    #[test]
    fn evenly_spaced() {
        assert_eq!(evenly_spaced_sizes(1000, 4), [250, 500, 750, 1000]);
        assert_eq!(evenly_spaced_sizes(10, 4), [3, 5, 8, 10]);
        assert_eq!(evenly_spaced_sizes(2, 4), [1, 1, 2, 2]);
    }
}
