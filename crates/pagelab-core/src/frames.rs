//! The key → frame table: which page (opaque 64-bit key) sits in which frame, and the *shadow entries* of
//! pages that left.
//!
//! A frame is an id in `0..ids()`: a policy keeps its per-page state in arrays indexed by it. The table
//! stores only ids in its [`BucketIndex`] and compares through `keys[id]`, so a resident page costs 8 bytes
//! of key, about 11 bytes of index and whatever its policy adds (LRU: 8 bytes of links).
//!
//! **Shadow entries.** Policies that remember evicted pages (ARC's B1/B2, 2Q's A1out, LIRS's non-resident
//! HIR entries) keep those keys in this same table, through the [`Shadows`] view the driver lends them in
//! their hooks. This is how Linux does it: an evicted page-cache page leaves a shadow entry in its slot of
//! the mapping's index (`../shared/reference/refault-and-shrinkers.md` §1), and how libCacheSim's ARC keeps
//! its ghosts (a flag on the object in its one hash table). A page kept as a shadow ([`Shadows::keep`])
//! keeps its id, its key and its index entry: it only stops counting as resident, so demoting a victim to
//! a ghost costs no hash operation, and the policy's lists can hold the same id as a page and then as its
//! ghost. The page that comes in takes another id. A table for `capacity` resident pages and
//! `shadow_slots` shadows has `capacity + shadow_slots` ids; one without shadows has exactly `capacity`,
//! and its ids are the frames `0..capacity` (CLOCK's ring relies on it).
//!
//! A separate ghost table, which this replaced, cost ARC about five hash operations per miss, three of
//! them on cache lines nothing else touched; a ghost that moved from a frame to a node of its own also
//! cost a copy of its key (BENCHMARKS.md). Drivers do not see shadows: [`FrameTable::lookup`] finds
//! resident pages only, and a victim kept as a shadow is released by the same [`FrameTable::remove`] or
//! [`FrameTable::replace_hashed`] as any other.
//!
//! The per-reference path of a driver hashes each key once: [`FrameTable::hash`], then
//! [`FrameTable::lookup_reference`] and, on a miss, [`FrameTable::insert_hashed`] or
//! [`FrameTable::replace_hashed`] with the same hash.

use crate::hash::mix64;
use crate::index::BucketIndex;
use crate::list::NIL;
use crate::policy::FrameId;

/// A shadow entry's id: the id its page had when it was resident.
pub type ShadowId = u32;

/// A key's hash as the table files it (see [`FrameTable::hash`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyHash(u64);

/// What an id holds.
mod state {
    pub const FREE: u8 = 0;
    pub const RESIDENT: u8 = 1;
    pub const SHADOW: u8 = 2;
}

/// The free ids, first freed first out: a vector read from `head`, emptied whenever it drains. A full
/// cache frees an id and takes it again at once (evict, then insert), so the queue is mostly empty and
/// each push and pop is a store or a load and a count; `VecDeque`'s wrap-around arithmetic cost more. When
/// it does not drain (a batch of victims, then fewer allocations), the consumed front is cut off once it
/// is half the vector, so it holds at most twice the free ids.
#[derive(Clone, Debug, Default)]
struct FreeIds {
    ids: Vec<FrameId>,
    head: usize,
}

impl FreeIds {
    #[inline(always)]
    fn push_back(&mut self, id: FrameId) {
        self.ids.push(id);
    }

    #[inline(always)]
    fn pop_front(&mut self) -> Option<FrameId> {
        let id = *self.ids.get(self.head)?;
        self.head += 1;
        if self.head == self.ids.len() {
            self.ids.clear();
            self.head = 0;
        } else if 2 * self.head >= self.ids.len() {
            self.compact();
        }
        Some(id)
    }

    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        self.ids.drain(..self.head);
        self.head = 0;
    }

    fn len(&self) -> usize {
        self.ids.len() - self.head
    }

    /// The free ids, first to be handed out first.
    fn ids(&self) -> &[FrameId] {
        &self.ids[self.head..]
    }
}

/// "No id" in [`FrameTable::kept`] and [`FrameTable::incoming_shadow`].
const NONE: u32 = NIL;

#[derive(Clone, Debug)]
pub struct FrameTable {
    /// Resident pages and shadow entries, by key.
    index: BucketIndex,
    /// By id; a free id holds the stale key of its last use.
    keys: Vec<u64>,
    /// By id: [`state`].
    states: Vec<u8>,
    /// Never-used ids are handed out in order first, then freed ones, first freed first (FIFO). A batch of
    /// victims leaves in replacement order and the pages that replace them arrive together, so FIFO hands
    /// the batch's ids to the new pages in that same order: ids stay in the order the policy will meet them
    /// again, and reclaim walks memory in runs rather than at random (LIFO reversed every batch and, under
    /// interleaved streams, scattered the ids over time: One-Rand at 512 MiB ran 1.6x slower per page after
    /// 6000 simulated seconds than after 1500). CLOCK's ring also wants it: the pages of a batch take the
    /// hand's positions in the order they arrive.
    free: FreeIds,
    next_unused: FrameId,
    capacity: u32,
    shadow_slots: u32,
    resident: u32,
    shadows: u32,
    /// The victim a policy kept as a shadow during the current `evict`, until the driver releases it.
    kept: FrameId,
    /// What [`FrameTable::lookup_reference`] learned of `incoming_key`'s shadow entry (its id, or [`NONE`]),
    /// so that the policy's [`Shadows::get`] and [`Shadows::take`] for the same reference need no second
    /// search. Valid while `incoming_known`.
    incoming_shadow: ShadowId,
    incoming_key: u64,
    incoming_known: bool,
}

impl FrameTable {
    /// A table for `capacity` resident pages and no shadow entries. Caller guarantees `capacity >= 1`.
    pub fn new(capacity: u32) -> FrameTable {
        FrameTable::with_shadows(capacity, 0)
    }

    /// A table for `capacity` resident pages and up to `shadow_slots` shadow entries (a policy's
    /// [`crate::policy::Replacement::shadow_slots`]). Caller guarantees `capacity >= 1`.
    pub fn with_shadows(capacity: u32, shadow_slots: u32) -> FrameTable {
        assert!(capacity >= 1, "a cache needs at least one frame");
        let ids = capacity
            .checked_add(shadow_slots)
            .filter(|&n| n < NONE)
            .expect("frame and shadow ids overflow u32");
        FrameTable {
            index: BucketIndex::with_capacity(ids),
            keys: vec![0; ids as usize],
            states: vec![state::FREE; ids as usize],
            free: FreeIds::default(),
            next_unused: 0,
            capacity,
            shadow_slots,
            resident: 0,
            shadows: 0,
            kept: NONE,
            incoming_shadow: NONE,
            incoming_key: 0,
            incoming_known: false,
        }
    }

    /// Resident pages the table holds at most.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    /// Ids `0..ids()`: frames of resident pages and shadow entries alike. Per-page arrays are this long.
    pub fn ids(&self) -> u32 {
        self.capacity + self.shadow_slots
    }
    /// Occupied frames (resident pages, and pages whose I/O a driver has not finished).
    pub fn len(&self) -> u32 {
        self.resident
    }
    pub fn is_empty(&self) -> bool {
        self.resident == 0
    }
    pub fn is_full(&self) -> bool {
        self.resident == self.capacity
    }
    /// Live shadow entries.
    pub fn shadows_len(&self) -> u32 {
        self.shadows
    }

    /// The hash of `key`, for the `_hashed` methods.
    #[inline(always)]
    pub fn hash(key: u64) -> KeyHash {
        KeyHash(mix64(key))
    }

    /// The frame holding `key`, if it is resident (shadow entries are not resident).
    #[inline(always)]
    pub fn lookup(&self, key: u64) -> Option<FrameId> {
        self.lookup_hashed(key, Self::hash(key))
    }

    /// Caller guarantees `hash == FrameTable::hash(key)`.
    #[inline(always)]
    pub fn lookup_hashed(&self, key: u64, hash: KeyHash) -> Option<FrameId> {
        match self.find(key, hash) {
            Some(id) if self.has_shadows() && self.states[id as usize] != state::RESIDENT => {
                self.lookup_past_shadow(key, hash)
            }
            found => found,
        }
    }

    /// [`FrameTable::lookup_hashed`] for a reference the driver is about to hand to its policy: a shadow
    /// entry found on the way is remembered for the policy's [`Shadows::get`] and [`Shadows::take`]. Caller
    /// guarantees `hash == FrameTable::hash(key)`, and that between hook calls no key is both resident and
    /// a shadow (true of every driver that follows the policy protocol: `on_miss` takes a key's shadow
    /// before the driver gives the key a frame).
    ///
    /// `SHADOWS` is the policy's [`crate::policy::Replacement::KEEPS_SHADOWS`], as in every `_hashed`
    /// method: with `false` (the table has no shadow slots) the shadow bookkeeping compiles out of the
    /// driver's per-reference path, which it otherwise costs LRU 10–15 % on P3.
    #[inline(always)]
    pub fn lookup_reference<const SHADOWS: bool>(&mut self, key: u64, hash: KeyHash) -> Option<FrameId> {
        let found = self.find(key, hash);
        if !SHADOWS {
            debug_assert!(!self.has_shadows(), "a policy with shadows driven as one without");
            return found;
        }
        self.incoming_key = key;
        self.incoming_known = true;
        self.incoming_shadow = NONE;
        match found {
            Some(id) if self.has_shadows() && self.states[id as usize] == state::SHADOW => {
                debug_assert_eq!(self.lookup_past_shadow(key, hash), None, "key {key} resident and a shadow");
                self.incoming_shadow = id;
                None
            }
            found => found,
        }
    }

    /// The first entry filed under `key`. The probe compares keys only (a test of the id in the loop cost
    /// LRU 4–7 % on P3); a key has one entry, resident or shadow, when its driver follows the policy
    /// protocol (`on_miss` takes the shadow before the key gets a frame). A driver that does not still
    /// finds the resident entry past the shadow ([`FrameTable::lookup_hashed`]).
    #[inline(always)]
    fn find(&self, key: u64, hash: KeyHash) -> Option<u32> {
        debug_assert_eq!(hash, Self::hash(key), "hash of another key");
        let keys = &self.keys;
        self.index.find(hash.0, |id| keys[id as usize] == key)
    }

    #[cold]
    fn lookup_past_shadow(&self, key: u64, hash: KeyHash) -> Option<FrameId> {
        let (keys, states) = (&self.keys, &self.states);
        self.index.find(hash.0, |id| states[id as usize] == state::RESIDENT && keys[id as usize] == key)
    }

    /// The shadow entry of `key`, if any.
    #[inline]
    pub fn shadow(&self, key: u64) -> Option<ShadowId> {
        if self.shadows == 0 {
            return None;
        }
        let (keys, states) = (&self.keys, &self.states);
        self.index.find(mix64(key), |id| keys[id as usize] == key && states[id as usize] == state::SHADOW)
    }

    /// Place `key` in a free frame. Caller guarantees the key is not resident and the table is not full.
    #[inline]
    pub fn insert(&mut self, key: u64) -> FrameId {
        self.insert_hashed::<true>(key, Self::hash(key))
    }

    /// [`FrameTable::insert`] with the key's hash already known. Caller guarantees
    /// `hash == FrameTable::hash(key)`, the key is not resident and the table is not full.
    #[inline(always)]
    pub fn insert_hashed<const SHADOWS: bool>(&mut self, key: u64, hash: KeyHash) -> FrameId {
        assert!(!self.is_full(), "insert into a full frame table");
        debug_assert!(self.lookup(key).is_none(), "key {key} inserted twice");
        let id = match self.free.pop_front() {
            Some(id) => id,
            None => {
                let id = self.next_unused;
                assert!(id < self.ids(), "no free id with {} resident of {}", self.resident, self.capacity);
                self.next_unused += 1;
                id
            }
        };
        self.occupy::<SHADOWS>(id, key, hash);
        self.resident += 1;
        id
    }

    /// A full cache's miss: `victim` (the frame the policy just evicted) is released and `key` placed,
    /// in the victim's own frame unless the policy kept the victim as a shadow. Returns the new page's
    /// frame. Caller guarantees `hash == FrameTable::hash(key)`, the key is not resident and `victim` is
    /// the frame `evict` returned.
    #[inline(always)]
    pub fn replace_hashed<const SHADOWS: bool>(
        &mut self,
        victim: FrameId,
        key: u64,
        hash: KeyHash,
    ) -> FrameId {
        if SHADOWS && self.kept == victim {
            self.release_kept();
            return self.insert_hashed::<SHADOWS>(key, hash);
        }
        debug_assert!(self.lookup(key).is_none(), "key {key} inserted twice");
        self.unindex::<SHADOWS>(victim);
        self.occupy::<SHADOWS>(victim, key, hash);
        victim
    }

    /// Free `frame` and return the key it held. Caller guarantees the frame is resident (or is the victim
    /// the policy just kept as a shadow, which stays a shadow).
    #[inline(always)]
    pub fn remove(&mut self, frame: FrameId) -> u64 {
        let key = self.keys[frame as usize];
        if self.kept == frame {
            self.release_kept();
            return key;
        }
        self.unindex::<true>(frame);
        self.set_state::<true>(frame, state::FREE);
        self.free.push_back(frame);
        self.resident -= 1;
        key
    }

    /// Whether the table keeps shadow entries. Without them every indexed id is resident and `states`
    /// stays unread.
    #[inline(always)]
    fn has_shadows(&self) -> bool {
        self.shadow_slots > 0
    }

    #[inline(always)]
    fn set_state<const SHADOWS: bool>(&mut self, id: u32, s: u8) {
        if SHADOWS && self.has_shadows() {
            self.states[id as usize] = s;
        }
    }

    #[inline(always)]
    fn occupy<const SHADOWS: bool>(&mut self, id: FrameId, key: u64, hash: KeyHash) {
        self.keys[id as usize] = key;
        self.set_state::<SHADOWS>(id, state::RESIDENT);
        let keys = &self.keys;
        self.index.insert(hash.0, id, |id| mix64(keys[id as usize]));
    }

    /// Drop the index entry of the resident `frame`.
    #[inline(always)]
    fn unindex<const SHADOWS: bool>(&mut self, frame: FrameId) {
        if SHADOWS && self.has_shadows() {
            assert_eq!(self.kept, NONE, "a policy kept frame {} as a shadow but evicted {frame}", self.kept);
            assert_eq!(self.states[frame as usize], state::RESIDENT, "frame {frame} is not occupied");
        }
        // Removing by frame (not by key) makes removing a free frame a detected error: its stale key
        // hashes to a chain that no longer lists it.
        let removed = self.index.remove(mix64(self.keys[frame as usize]), frame);
        assert!(removed, "frame {frame} is not occupied");
    }

    /// The victim kept as a shadow leaves the resident pages; its id, key and index entry stay the shadow's.
    #[inline]
    fn release_kept(&mut self) {
        self.kept = NONE;
        self.resident -= 1;
    }

    /// The key of a frame or a shadow entry.
    #[inline]
    pub fn key(&self, id: u32) -> u64 {
        self.keys[id as usize]
    }

    /// Keys by id; a free id holds the stale key of its last use.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The shadow entries, as a policy may use them during a hook.
    #[inline]
    pub fn shadows(&mut self) -> Shadows<'_> {
        Shadows { table: self }
    }

    /// Conservation of ids (each handed out is resident, a shadow or free, and indexed unless free), no key
    /// both resident and a shadow, and the index's own consistency. O(ids): for tests and debug checks,
    /// not the per-reference path.
    pub fn check(&self) {
        assert_eq!(self.kept, NONE, "a frame kept as a shadow was never released");
        assert_eq!(
            self.resident as usize + self.shadows as usize + self.free.len(),
            self.next_unused as usize
        );
        let used = &self.states[..self.next_unused as usize];
        if self.has_shadows() {
            let count = |s| used.iter().filter(|&&x| x == s).count() as u32;
            assert_eq!(count(state::RESIDENT), self.resident, "resident count");
            assert_eq!(count(state::SHADOW), self.shadows, "shadow count");
            assert!(
                self.free.ids().iter().all(|&id| self.states[id as usize] == state::FREE),
                "a free id in use"
            );
        }
        assert!(self.resident <= self.capacity && self.shadows <= self.shadow_slots, "over capacity");
        assert_eq!(self.index.len(), self.resident + self.shadows, "index and states disagree");
        let keys = &self.keys;
        self.index.check(|id| mix64(keys[id as usize]));
        for (id, _) in used.iter().enumerate().filter(|(_, &s)| s == state::SHADOW) {
            let key = self.keys[id];
            assert_eq!(self.lookup(key), None, "key {key} both resident and a shadow");
        }
    }
}

/// The shadow entries of a [`FrameTable`], lent to a policy's hooks: keys of pages that left the cache,
/// remembered by the policy. The view can keep a victim as a shadow, find and drop shadows, and read keys;
/// it cannot touch resident pages, which stay the driver's.
pub struct Shadows<'a> {
    table: &'a mut FrameTable,
}

impl Shadows<'_> {
    /// The key of a frame or a shadow entry.
    #[inline]
    pub fn key(&self, id: u32) -> u64 {
        self.table.keys[id as usize]
    }

    pub fn len(&self) -> u32 {
        self.table.shadows
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn is_full(&self) -> bool {
        self.table.shadows == self.table.shadow_slots
    }

    /// The shadow entry of `key`, if any.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<ShadowId> {
        let t = &*self.table;
        if t.incoming_known && t.incoming_key == key {
            let known = (t.incoming_shadow != NONE).then_some(t.incoming_shadow);
            debug_assert_eq!(t.shadow(key), known, "stale knowledge of the incoming key's shadow");
            return known;
        }
        t.shadow(key)
    }

    /// Find `key`'s shadow entry and drop it; returns its id, now free. The caller must unlink the id from
    /// its lists before it is used again.
    #[inline(always)]
    pub fn take(&mut self, key: u64) -> Option<ShadowId> {
        let id = self.get(key)?;
        self.forget(id);
        Some(id)
    }

    /// The page in `frame` is being evicted (`frame` is the victim `evict` returns): keep it as a shadow
    /// entry, under the same id. Caller guarantees the frame is resident, no other frame was kept during
    /// this eviction and `!is_full()`.
    #[inline(always)]
    pub fn keep(&mut self, frame: FrameId) -> ShadowId {
        let t = &mut *self.table;
        assert_eq!(t.kept, NONE, "a second frame kept as a shadow in one eviction");
        assert!(t.shadows < t.shadow_slots, "shadow entries full");
        // A debug check only: the victim's state byte is a cache line nothing else on this path reads (5 %
        // of ARC's time on P3); `FrameTable::check` and the property tests cover the states.
        debug_assert_eq!(t.states[frame as usize], state::RESIDENT, "frame {frame} is not occupied");
        // The victim is resident, so it is not the incoming key, whose shadow knowledge stays valid.
        debug_assert!(
            !t.incoming_known || t.keys[frame as usize] != t.incoming_key,
            "evicting the key being referenced"
        );
        t.states[frame as usize] = state::SHADOW;
        t.shadows += 1;
        t.kept = frame;
        frame
    }

    /// Drop the live shadow entry `id` (already unlinked by the caller); the id becomes free.
    #[inline(always)]
    pub fn forget(&mut self, id: ShadowId) {
        let t = &mut *self.table;
        // As in `keep`, the state byte is checked in debug builds only; the index removal below fails on an
        // id that is not indexed under its key.
        debug_assert_eq!(t.states[id as usize], state::SHADOW, "shadow {id} is not live");
        // A victim kept in this very eviction stays the driver's to release first.
        assert_ne!(t.kept, id, "shadow {id} forgotten before its frame was released");
        let removed = t.index.remove(mix64(t.keys[id as usize]), id);
        assert!(removed, "shadow {id} is not live");
        t.states[id as usize] = state::FREE;
        t.shadows -= 1;
        t.free.push_back(id);
        if t.incoming_shadow == id {
            t.incoming_shadow = NONE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The free ids leave in the order they came, through drains (the vector emptied) and through
    /// compactions (the consumed front cut off once it is half the vector).
    #[test]
    fn free_ids_are_first_in_first_out_across_drains_and_compactions() {
        let mut f = FreeIds::default();
        let mut model = std::collections::VecDeque::new();
        let mut next = 0;
        for step in 0..200u32 {
            // Pushes in bursts of up to 5, pops one or two a step: the queue grows, drains and compacts.
            for _ in 0..(step * 7 % 6) {
                f.push_back(next);
                model.push_back(next);
                next += 1;
            }
            for _ in 0..(1 + step % 2) {
                assert_eq!(f.pop_front(), model.pop_front(), "step {step}");
            }
            assert_eq!(f.ids(), model.iter().copied().collect::<Vec<_>>().as_slice());
            assert!(f.ids.len() <= 2 * f.len() + 2, "the consumed front is cut off");
        }
    }

    #[test]
    fn frames_are_reused_and_keys_found() {
        let mut t = FrameTable::new(3);
        let a = t.insert(10);
        let b = t.insert(20);
        assert_eq!((a, b), (0, 1));
        assert_eq!(t.lookup(20), Some(1));
        assert_eq!(t.remove(a), 10);
        assert_eq!(t.lookup(10), None);
        assert_eq!(t.insert(30), 0, "freed frame is reused");
        assert_eq!(t.insert(40), 2);
        assert!(t.is_full());
        assert_eq!((t.len(), t.ids()), (3, 3));
        let h = FrameTable::hash(40);
        assert_eq!(t.lookup_hashed(40, h), Some(2));
        assert_eq!(t.replace_hashed::<false>(2, 50, FrameTable::hash(50)), 2, "the victim's frame, reused");
        assert_eq!((t.lookup(40), t.lookup(50), t.key(2), t.len()), (None, Some(2), 50, 3));
        t.check();
    }

    #[test]
    fn churn_at_capacity_keeps_every_key_findable() {
        let mut t = FrameTable::new(100);
        let mut resident = std::collections::VecDeque::new();
        for key in 0..10_000u64 {
            let key = key * 7919;
            if t.is_full() {
                let (old_key, frame) = resident.pop_front().unwrap();
                assert_eq!(t.remove(frame), old_key);
            }
            resident.push_back((key, t.insert_hashed::<false>(key, FrameTable::hash(key))));
        }
        for &(key, frame) in &resident {
            assert_eq!(t.lookup(key), Some(frame));
        }
        t.check();
    }

    /// A victim kept as a shadow keeps its id; lookups stop finding it; the incoming page takes another id;
    /// the shadow is found by key (and remembered from the driver's lookup) until taken or forgotten.
    #[test]
    fn kept_victims_become_shadows_under_their_own_ids() {
        let mut t = FrameTable::with_shadows(2, 2);
        assert_eq!(t.ids(), 4);
        let (a, b) = (t.insert(10), t.insert(20));
        assert_eq!(t.shadows().keep(a), a, "a shadow keeps its id");
        assert_eq!(t.lookup(10), None, "a shadow is not resident");
        assert_eq!(t.replace_hashed::<true>(a, 30, FrameTable::hash(30)), 2, "the new page takes another id");
        assert_eq!((t.lookup(30), t.len(), t.shadows_len(), t.key(a)), (Some(2), 2, 1, 10));
        assert_eq!((t.shadow(10), t.shadow(20)), (Some(a), None));
        // The driver's lookup of 10 finds the shadow and tells the policy without another search.
        assert_eq!(t.lookup_reference::<true>(10, FrameTable::hash(10)), None);
        assert_eq!(t.shadows().get(10), Some(a));
        t.shadows().keep(b);
        assert_eq!(t.remove(b), 20, "releasing a kept victim returns its key; it stays a shadow");
        assert_eq!((t.len(), t.shadows_len(), t.shadow(20)), (1, 2, Some(b)));
        let mut shadows = t.shadows();
        assert!(shadows.is_full());
        assert_eq!(shadows.take(10), Some(a));
        assert_eq!(shadows.take(10), None);
        shadows.forget(b);
        assert!(shadows.is_empty());
        t.check();
        assert_eq!((t.len(), t.insert(40)), (1, a), "freed ids are reused, first freed first");
        t.check();
    }

    /// The simulator's case: a page gets a frame (its I/O in flight) while its key is still a shadow; the
    /// driver's plain lookup finds the frame past the shadow.
    #[test]
    fn a_key_both_in_flight_and_a_shadow_is_found_resident() {
        let mut t = FrameTable::with_shadows(2, 1);
        t.insert(10);
        t.shadows().keep(0);
        t.remove(0);
        let frame = t.insert(10);
        assert_eq!((frame, t.lookup(10), t.shadow(10)), (1, Some(1), Some(0)));
        assert_eq!(t.shadows().take(10), Some(0));
        t.check();
    }

    #[test]
    #[should_panic(expected = "kept frame 0 as a shadow but evicted 1")]
    fn releasing_another_frame_than_the_kept_one_panics() {
        let mut t = FrameTable::with_shadows(2, 2);
        t.insert(10);
        t.insert(20);
        t.shadows().keep(0);
        t.remove(1);
    }

    #[test]
    #[should_panic(expected = "a second frame kept")]
    fn keeping_two_frames_in_one_eviction_panics() {
        let mut t = FrameTable::with_shadows(2, 2);
        t.insert(10);
        t.insert(20);
        t.shadows().keep(0);
        t.shadows().keep(1);
    }

    #[test]
    #[should_panic(expected = "shadow 0 is not live")]
    fn forgetting_a_free_shadow_panics() {
        let mut t = FrameTable::with_shadows(1, 1);
        t.insert(10);
        let s = t.shadows().keep(0);
        t.remove(0);
        t.shadows().forget(s);
        t.shadows().forget(s);
    }

    #[test]
    #[should_panic(expected = "not occupied")]
    fn removing_a_free_frame_panics() {
        let mut t = FrameTable::new(2);
        let f = t.insert(u64::MAX);
        t.remove(f);
        t.remove(f);
    }

    #[test]
    #[should_panic(expected = "not occupied")]
    fn replacing_in_a_free_frame_panics() {
        let mut t = FrameTable::new(2);
        let f = t.insert(1);
        t.remove(f);
        t.replace_hashed::<false>(f, 2, FrameTable::hash(2));
    }

    #[test]
    #[should_panic(expected = "full")]
    fn overfilling_panics() {
        let mut t = FrameTable::new(1);
        t.insert(1);
        t.insert(2);
    }
}
