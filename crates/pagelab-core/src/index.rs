//! [`BucketIndex`]: the hash index behind [`crate::frames::FrameTable`] — from a key's hash to a `u32` id
//! (a frame or a shadow entry) in one cache line.
//!
//! A cache simulator spends most of its time here: every reference is a lookup, and every miss of a full
//! cache adds one entry and removes another. The index is built for that churn:
//! - **One cache line per bucket.** A 64-byte bucket holds 12 one-byte tags (8 bits of the hash), an
//!   overflow count and the 12 `u32` values. A lookup reads one line, compares the 12 tags at once (one
//!   SSE2 compare on x86-64), and touches the owner's key array only for a matching tag (a false match
//!   costs one key compare, for about 1 probe in 40 at the load below).
//! - **No tombstones.** A full bucket sends an insertion on to the next bucket and counts it in its
//!   overflow count (the scheme of folly's F14 tables); a lookup goes on past a bucket only while that
//!   count is non-zero; a removal decrements the counts between the entry's home bucket and where it
//!   lies. So deleting is exact, a table under constant churn never degrades or rehashes, and the steady
//!   state never allocates.
//! - **Any number of buckets.** The home bucket is the hash's high bits scaled to the bucket count
//!   (Lemire's multiply-shift range reduction), so the table is sized for its load, not to a power of two.
//! - **Grown as it fills.** A table starts at 64 buckets and grows eightfold (filing every entry again) when
//!   its entries reach the design load, up to the size its capacity needs: a cache sized for a large
//!   memory costs what a run puts in it. A full table is the one sized up front, and churn never grows it.
//!
//! Measured against `hashbrown::HashTable<u32>` (the previous index, SwissTable control bytes in one array,
//! values in another, tombstones on delete) with the same keys and the same policy code: LRU on the ARC
//! paper's P3 trace went from 19 to 12 ns per reference at 10 % of its pages, and from 13 to 11 ns at 50 %
//! (BENCHMARKS.md). hashbrown's lookup reads its control group and then, in another cache line, the
//! bucket; its delete leaves tombstones that insertions then probe past.
//!
//! The caller owns the keys: [`BucketIndex::find`] takes the hash and an equality test on the stored value
//! (`|frame| keys[frame] == key`). Values must be unique among live entries; [`BucketIndex::remove`] finds
//! an entry by value, so removing an entry that is not there is a detected error, not a silent no-op.

/// Tag slots per bucket.
pub const SLOTS: usize = 12;

/// Entries per bucket at full capacity: a bucket overflows at 13 entries, which at a mean of 6 a
/// Poisson-distributed load makes rare (about 1 bucket in 100), while the index costs
/// 64 / 6 ≈ 10.7 bytes per entry.
const ENTRIES_PER_BUCKET: u32 = 6;

/// The tag of an empty slot. Live tags are 1..=255.
const EMPTY: u8 = 0;

/// Byte of `tags` that holds the bucket's overflow count (the tag compare masks it out).
const OVERFLOW_BYTE: usize = SLOTS;

/// An overflow count that reached this value stays there: lookups through the bucket then always go on to
/// the next one (correct, only slower). 255 entries displaced past one bucket does not happen short of an
/// adversarial key set.
const OVERFLOW_STICKY: u8 = u8::MAX;

/// Mask of the tag slots in a 16-bit compare result.
const SLOT_MASK: u32 = (1 << SLOTS) - 1;

#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
struct Bucket {
    /// `tags[0..12]`: the slots' tags ([`EMPTY`] when free); `tags[12]`: the overflow count; the rest 0.
    tags: [u8; 16],
    values: [u32; SLOTS],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64, "a bucket is one cache line");

impl Bucket {
    const EMPTY: Bucket = Bucket { tags: [EMPTY; 16], values: [0; SLOTS] };

    /// Bit `i` set for each slot `i` whose tag is `tag`.
    #[inline(always)]
    fn matches(&self, tag: u8) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_load_si128, _mm_movemask_epi8, _mm_set1_epi8};
            // SAFETY: SSE2 is part of the x86-64 baseline; `tags` is 16 bytes at the start of a 64-byte
            // aligned struct, so the aligned load reads exactly it.
            let bits = unsafe {
                let v = _mm_load_si128(self.tags.as_ptr().cast());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(tag as i8)))
            };
            bits as u32 & SLOT_MASK
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.matches_scalar(tag)
        }
    }

    /// The portable form of [`Bucket::matches`] (tested against it on x86-64).
    #[inline(always)]
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn matches_scalar(&self, tag: u8) -> u32 {
        let mut bits = 0;
        for (i, &t) in self.tags[..SLOTS].iter().enumerate() {
            bits |= ((t == tag) as u32) << i;
        }
        bits
    }

    /// The first slot whose tag is `tag` and whose value satisfies `eq`.
    #[inline(always)]
    fn slot_where(&self, tag: u8, mut eq: impl FnMut(u32) -> bool) -> Option<usize> {
        let mut m = self.matches(tag);
        while m != 0 {
            let slot = m.trailing_zeros() as usize;
            if eq(self.values[slot]) {
                return Some(slot);
            }
            m &= m - 1;
        }
        None
    }

    /// Put `(tag, value)` in a free slot; `false` if the bucket is full.
    #[inline(always)]
    fn put(&mut self, tag: u8, value: u32) -> bool {
        let free = self.matches(EMPTY);
        if free == 0 {
            return false;
        }
        let slot = free.trailing_zeros() as usize;
        self.tags[slot] = tag;
        self.values[slot] = value;
        true
    }

    #[inline(always)]
    fn overflow(&self) -> u8 {
        self.tags[OVERFLOW_BYTE]
    }

    #[inline(always)]
    fn add_overflow(&mut self) {
        let o = &mut self.tags[OVERFLOW_BYTE];
        if *o != OVERFLOW_STICKY {
            *o += 1;
        }
    }

    #[inline(always)]
    fn sub_overflow(&mut self) {
        let o = &mut self.tags[OVERFLOW_BYTE];
        debug_assert!(*o > 0, "overflow count below zero");
        if *o != OVERFLOW_STICKY {
            *o -= 1;
        }
    }
}

/// The tag of a hash: its low 8 bits, 0 mapped to 1 (0 marks an empty slot). The bucket comes from the high
/// bits, so the two are independent for a well-mixed hash.
#[inline(always)]
fn tag_of(hash: u64) -> u8 {
    (hash as u8).max(1)
}

/// A hash index of at most `capacity` entries, each a `u32` value filed under a 64-bit hash. See the
/// module doc for the layout.
#[derive(Clone, Debug)]
pub struct BucketIndex {
    buckets: Box<[Bucket]>,
    len: u32,
    capacity: u32,
    /// Entries at which an insertion first grows the table: the current buckets at the design load
    /// ([`ENTRIES_PER_BUCKET`]), or `capacity` once the table has its full size.
    grow_at: u32,
}

/// Buckets a new index starts with (or fewer, if its capacity needs fewer).
const BUCKETS_INITIAL: usize = 64;

/// Factor by which a growing index multiplies its buckets. Eightfold: filling a table of a million frames
/// files about 1.14 entries per frame in all (each growth files again the entries it finds, an eighth of
/// the new table's design load), where doubling files two; a table is then at most 8 times what its
/// entries need (85 bytes an entry right after a growth, against 10.7 at the design load).
const GROWTH: usize = 8;

impl BucketIndex {
    /// An index for up to `capacity` entries. It starts small and grows as entries arrive
    /// ([`BucketIndex::insert`]), up to the size `capacity` needs: a cache sized for a large memory costs
    /// what the run puts in it (a 1-s run at 400 GiB wrote 1.1 GB of empty buckets before its first event).
    /// A full table is the one a table sized up front would be; under constant churn it never grows again.
    pub fn with_capacity(capacity: u32) -> BucketIndex {
        Self::starting_with(capacity, BUCKETS_INITIAL)
    }

    /// [`BucketIndex::with_capacity`], starting from at most `buckets` buckets.
    fn starting_with(capacity: u32, buckets: usize) -> BucketIndex {
        let n = Self::buckets_full(capacity).min(buckets.max(1));
        let mut index =
            BucketIndex { buckets: vec![Bucket::EMPTY; n].into_boxed_slice(), len: 0, capacity, grow_at: 0 };
        index.grow_at = index.grow_at_now();
        index
    }

    /// Buckets the table has at its full size.
    fn buckets_full(capacity: u32) -> usize {
        capacity.div_ceil(ENTRIES_PER_BUCKET).max(1) as usize
    }

    fn grow_at_now(&self) -> u32 {
        if self.buckets.len() == Self::buckets_full(self.capacity) {
            self.capacity
        } else {
            self.buckets.len() as u32 * ENTRIES_PER_BUCKET
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    /// Bytes of bucket storage.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.buckets)
    }

    /// The bucket a probe for `hash` starts at: `hash`'s high bits scaled to `0..buckets`.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    #[inline(always)]
    fn next(&self, b: usize) -> usize {
        if b + 1 == self.buckets.len() {
            0
        } else {
            b + 1
        }
    }

    /// The value filed under `hash` for which `eq` holds, if any. `eq` is called only for values whose tag
    /// matches, at most once each.
    #[inline(always)]
    pub fn find(&self, hash: u64, mut eq: impl FnMut(u32) -> bool) -> Option<u32> {
        let tag = tag_of(hash);
        let home = self.home(hash);
        // The home bucket settles almost every probe; the rest of the chain is a cold path of its own, so
        // that the hot one stays a few instructions.
        let bucket = &self.buckets[home];
        if let Some(slot) = bucket.slot_where(tag, &mut eq) {
            return Some(bucket.values[slot]);
        }
        if bucket.overflow() == 0 {
            return None;
        }
        self.find_past(home, tag, eq)
    }

    #[cold]
    #[inline(never)]
    fn find_past(&self, home: usize, tag: u8, mut eq: impl FnMut(u32) -> bool) -> Option<u32> {
        let mut b = self.next(home);
        // Bounded by the bucket count: an overflow chain never wraps all the way round, since at least half
        // of all slots are empty.
        for _ in 1..self.buckets.len() {
            let bucket = &self.buckets[b];
            if let Some(slot) = bucket.slot_where(tag, &mut eq) {
                return Some(bucket.values[slot]);
            }
            if bucket.overflow() == 0 {
                return None;
            }
            b = self.next(b);
        }
        None
    }

    /// File `value` under `hash`. Caller guarantees `len() < capacity()`, that no live entry is equal (by
    /// the owner's equality) to the one being inserted, and that `hash_of(v)` is the hash each live value
    /// `v` was filed under (a growing table files them again).
    #[inline(always)]
    pub fn insert(&mut self, hash: u64, value: u32, hash_of: impl Fn(u32) -> u64) {
        // One test for both: below `grow_at` the table has room, and at its full size `grow_at` is the
        // capacity, which `grow` enforces.
        if self.len >= self.grow_at {
            self.grow(hash_of);
        }
        self.file(hash, value);
    }

    /// Put `value` in `hash`'s probe chain: its home bucket, or the first with a free slot after it. Caller
    /// guarantees the table has room.
    #[inline(always)]
    fn file(&mut self, hash: u64, value: u32) {
        let tag = tag_of(hash);
        let home = self.home(hash);
        self.len += 1;
        if !self.buckets[home].put(tag, value) {
            self.insert_past(home, tag, value);
        }
    }

    /// Multiply the buckets by [`GROWTH`] (at most to the full size) and file every entry again; or, at the
    /// full size, refuse an insertion beyond `capacity`.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, hash_of: impl Fn(u32) -> u64) {
        assert!(self.len < self.capacity, "insert into a full index ({} entries)", self.capacity);
        let n = (self.buckets.len() * GROWTH).min(Self::buckets_full(self.capacity));
        let old = std::mem::replace(&mut self.buckets, vec![Bucket::EMPTY; n].into_boxed_slice());
        let len = self.len;
        self.len = 0;
        for bucket in old.iter() {
            for slot in 0..SLOTS {
                if bucket.tags[slot] != EMPTY {
                    let value = bucket.values[slot];
                    let hash = hash_of(value);
                    debug_assert_eq!(
                        tag_of(hash),
                        bucket.tags[slot],
                        "value {value} filed under another hash"
                    );
                    self.file(hash, value);
                }
            }
        }
        assert_eq!(self.len, len, "a grown index lost entries");
        self.grow_at = self.grow_at_now();
    }

    #[cold]
    #[inline(never)]
    fn insert_past(&mut self, home: usize, tag: u8, value: u32) {
        self.buckets[home].add_overflow();
        let mut b = self.next(home);
        for _ in 1..self.buckets.len() {
            if self.buckets[b].put(tag, value) {
                return;
            }
            self.buckets[b].add_overflow();
            b = self.next(b);
        }
        unreachable!("no free slot in an index below capacity");
    }

    /// Remove the entry holding `value`, filed under `hash`; `false` if there is none.
    #[inline(always)]
    pub fn remove(&mut self, hash: u64, value: u32) -> bool {
        let tag = tag_of(hash);
        let home = self.home(hash);
        let bucket = &mut self.buckets[home];
        if let Some(slot) = bucket.slot_where(tag, |v| v == value) {
            bucket.tags[slot] = EMPTY;
            self.len -= 1;
            return true;
        }
        bucket.overflow() != 0 && self.remove_past(home, tag, value)
    }

    #[cold]
    #[inline(never)]
    fn remove_past(&mut self, home: usize, tag: u8, value: u32) -> bool {
        let mut b = self.next(home);
        for _ in 1..self.buckets.len() {
            let bucket = &mut self.buckets[b];
            if let Some(slot) = bucket.slot_where(tag, |v| v == value) {
                bucket.tags[slot] = EMPTY;
                self.len -= 1;
                // The entry no longer passes through the buckets between its home and here.
                let mut c = home;
                while c != b {
                    self.buckets[c].sub_overflow();
                    c = self.next(c);
                }
                return true;
            }
            if bucket.overflow() == 0 {
                return false;
            }
            b = self.next(b);
        }
        false
    }

    /// Every live entry as (bucket, slot, value). For checks and tests.
    fn entries(&self) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
        self.buckets.iter().enumerate().flat_map(|(b, bucket)| {
            (0..SLOTS).filter(move |&s| bucket.tags[s] != EMPTY).map(move |s| (b, s, bucket.values[s]))
        })
    }

    /// Full consistency check, O(buckets): the live count, and every overflow count equal to the entries
    /// that pass the bucket (at least, for a sticky count). `hash_of(value)` is the hash the value was
    /// filed under.
    pub fn check(&self, hash_of: impl Fn(u32) -> u64) {
        let mut passing = vec![0u32; self.buckets.len()];
        let mut live = 0u32;
        for (b, slot, value) in self.entries() {
            live += 1;
            let hash = hash_of(value);
            assert_eq!(self.buckets[b].tags[slot], tag_of(hash), "value {value} has a stale tag");
            let mut c = self.home(hash);
            let mut steps = 0;
            while c != b {
                passing[c] += 1;
                c = self.next(c);
                steps += 1;
                assert!(steps < self.buckets.len(), "value {value} lies outside its probe chain");
            }
        }
        assert_eq!(live, self.len, "live entries and count disagree");
        assert!(self.len <= self.capacity, "index over capacity");
        for (b, bucket) in self.buckets.iter().enumerate() {
            let stored = bucket.overflow();
            let ok = if stored == OVERFLOW_STICKY {
                passing[b] >= stored as u32
            } else {
                passing[b] == stored as u32
            };
            assert!(ok, "bucket {b}: overflow count {stored}, but {} entries pass it", passing[b]);
            assert!(bucket.tags[OVERFLOW_BYTE + 1..].iter().all(|&t| t == 0), "bucket {b}: padding written");
        }
    }

    /// (bucket, tags in slot order with `.` for empty, overflow) of every non-empty bucket: the index's
    /// state for hand-traced tests.
    #[cfg(test)]
    fn layout(&self) -> Vec<(usize, Vec<u32>, u8)> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, bk)| bk.tags[..SLOTS].iter().any(|&t| t != EMPTY) || bk.overflow() != 0)
            .map(|(b, bk)| {
                let values = (0..SLOTS).filter(|&s| bk.tags[s] != EMPTY).map(|s| bk.values[s]).collect();
                (b, values, bk.overflow())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// A hash whose home bucket (of `n`) is `bucket` and whose tag is `tag`: high bits pick the bucket.
    fn hash_at(bucket: usize, n: usize, tag: u8) -> u64 {
        // The first multiple of 256 at or after the bucket's start: its low byte is free for the tag.
        let start = bucket as u64 * (u64::MAX / n as u64 + 1);
        ((start + 0xff) & !0xff) | tag as u64
    }

    #[test]
    fn tags_skip_the_empty_value_and_buckets_follow_the_high_bits() {
        assert_eq!(tag_of(0x100), 1);
        assert_eq!(tag_of(0x1ff), 0xff);
        let idx = BucketIndex::with_capacity(60); // 10 buckets
        assert_eq!(idx.buckets.len(), 10);
        for b in 0..10 {
            assert_eq!(idx.home(hash_at(b, 10, 7)), b);
        }
        assert_eq!(idx.home(u64::MAX), 9);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_and_scalar_matches_agree() {
        let mut bucket = Bucket::EMPTY;
        bucket.tags[..SLOTS].copy_from_slice(&[3, 0, 3, 9, 255, 0, 1, 3, 0, 0, 9, 3]);
        bucket.tags[OVERFLOW_BYTE] = 3; // never reported as a tag
        for tag in [0u8, 1, 3, 9, 255, 7] {
            assert_eq!(bucket.matches(tag), bucket.matches_scalar(tag), "tag {tag}");
        }
        assert_eq!(bucket.matches(3), 0b1000_1000_0101);
    }

    /// Thirteen entries homed in one bucket of a 3-bucket index: the thirteenth overflows into the next
    /// bucket, lookups follow it there, and removing it (or any entry before it is moved) keeps the count
    /// exact.
    #[test]
    fn hand_traced_overflow_and_removal() {
        let mut idx = BucketIndex::with_capacity(18);
        let n = idx.buckets.len();
        assert_eq!(n, 3);
        let h = |v: u32| hash_at(1, n, 10 + v as u8);
        for v in 0..12 {
            idx.insert(h(v), v, h);
        }
        assert_eq!(idx.layout(), vec![(1, (0..12).collect(), 0)]);
        idx.insert(h(12), 12, h);
        assert_eq!(idx.layout(), vec![(1, (0..12).collect(), 1), (2, vec![12], 0)]);
        assert_eq!(idx.find(h(12), |v| v == 12), Some(12), "found past its full home bucket");
        // A key homed in bucket 2 shares the bucket without touching bucket 1's count.
        let other = hash_at(2, n, 99);
        idx.insert(other, 40, |v| if v == 40 { other } else { h(v) });
        assert_eq!(idx.layout(), vec![(1, (0..12).collect(), 1), (2, vec![12, 40], 0)]);
        // Removing an entry from the home bucket leaves the overflow: entry 12 still lies beyond it.
        assert!(idx.remove(h(3), 3));
        assert_eq!(idx.layout()[0].2, 1);
        assert_eq!(idx.find(h(12), |v| v == 12), Some(12));
        // Removing the displaced entry clears the count; a lookup then stops at the home bucket.
        assert!(idx.remove(h(12), 12));
        assert_eq!(idx.layout(), vec![(1, vec![0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11], 0), (2, vec![40], 0)]);
        assert_eq!(idx.find(h(12), |_| true), None);
        assert!(!idx.remove(h(12), 12), "removing an absent entry is reported");
        // The free slot is reused first.
        idx.insert(h(20), 20, |v| if v == 40 { other } else { h(v) });
        assert_eq!(idx.layout()[0], (1, vec![0, 1, 2, 20, 4, 5, 6, 7, 8, 9, 10, 11], 0));
        idx.check(|v| if v == 40 { other } else { h(v) });
        assert_eq!(idx.len(), 13);
    }

    /// An index for 10,000 entries starts at 64 buckets and grows eightfold as entries arrive, to the
    /// 1,667 buckets its capacity needs, every entry still found.
    #[test]
    fn grows_eightfold_to_its_full_size() {
        let mut idx = BucketIndex::with_capacity(10_000);
        let h = |v: u32| crate::hash::mix64(v as u64 + 1);
        assert_eq!(idx.buckets.len(), 64);
        let mut sizes = vec![64];
        for v in 0..10_000 {
            idx.insert(h(v), v, h);
            if *sizes.last().unwrap() != idx.buckets.len() {
                sizes.push(idx.buckets.len());
            }
        }
        assert_eq!(sizes, vec![64, 512, 1667], "grown at 384 and 3,072 entries, then capped");
        idx.check(h);
        assert!((0..10_000).all(|v| idx.find(h(v), |x| x == v) == Some(v)));
        assert!(
            std::panic::catch_unwind(|| idx.clone().insert(h(10_000), 10_000, h)).is_err(),
            "capacity is enforced"
        );
    }

    /// Overflow chains wrap from the last bucket to the first.
    #[test]
    fn chains_wrap_around() {
        let mut idx = BucketIndex::with_capacity(12); // 2 buckets
        let n = idx.buckets.len();
        let h = |v: u32| hash_at(1, n, 1 + v as u8);
        for v in 0..12 {
            idx.insert(h(v), v, h);
        }
        assert!(
            std::panic::catch_unwind(|| idx.clone().insert(h(12), 12, h)).is_err(),
            "capacity is enforced"
        );
        // The same two buckets with room for more entries: no growth, so the chain must wrap.
        let mut idx = BucketIndex { capacity: 24, grow_at: 24, ..idx };
        idx.insert(h(12), 12, h);
        assert_eq!(idx.layout(), vec![(0, vec![12], 0), (1, (0..12).collect(), 1)]);
        assert_eq!(idx.find(h(12), |v| v == 12), Some(12));
        assert!(idx.remove(h(12), 12));
        assert_eq!(idx.layout(), vec![(1, (0..12).collect(), 0)]);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u64),
        Remove(usize),
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// Against a `HashMap`, with hashes squeezed into few bits so that buckets overflow and tags collide,
        /// from a table of a few buckets that grows as entries arrive.
        #[test]
        fn behaves_like_a_map(
            capacity in 1u32..200,
            initial_buckets in 1usize..8,
            hash_bits in 1u32..12,
            ops in proptest::collection::vec(
                prop_oneof![(0u64..4096).prop_map(Op::Insert), (0usize..64).prop_map(Op::Remove)],
                0..300,
            ),
        ) {
            let mut idx = BucketIndex::starting_with(capacity, initial_buckets);
            let mut model: HashMap<u32, u64> = HashMap::new(); // value → hash
            let mut next_value = 0u32;
            // Hashes with only `hash_bits` distinct values, spread over the high and the low bits.
            let squeeze = |x: u64| {
                let k = x % (1 << hash_bits);
                (k << (64 - hash_bits)) | (k & 0xff)
            };
            for op in ops {
                match op {
                    Op::Insert(x) if (model.len() as u32) < capacity => {
                        let hash = squeeze(x);
                        idx.insert(hash, next_value, |v| model[&v]);
                        model.insert(next_value, hash);
                        next_value += 1;
                    }
                    Op::Insert(_) => {}
                    Op::Remove(i) => {
                        let mut live: Vec<_> = model.keys().copied().collect();
                        live.sort_unstable();
                        if let Some(&value) = live.get(i % live.len().max(1)) {
                            let hash = model.remove(&value).unwrap();
                            prop_assert!(idx.remove(hash, value));
                            prop_assert!(!idx.remove(squeeze(value as u64), value));
                        }
                    }
                }
                idx.check(|v| model[&v]);
                for (&value, &hash) in &model {
                    prop_assert_eq!(idx.find(hash, |v| v == value), Some(value));
                }
                prop_assert_eq!(idx.len() as usize, model.len());
            }
        }
    }
}
