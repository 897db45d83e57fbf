//! The Linux 2.6 page-reclaim lists: an active and an inactive LRU list with a referenced bit per page.
//!
//! As Li & Shen (papers/000, §2 "Measured performance") and Jiang et al. (papers/001, §4, "Linux adopts an
//! LRU variant similar to the 2Q replacement") describe it, modelled on Linux 2.6.10 (`mm/swap.c`,
//! `mm/vmscan.c`, `mm/filemap.c`) for unmapped file pages read through `read()`:
//! - `mark_page_accessed`: an inactive page without `PG_referenced` gets the bit; an inactive page with it
//!   moves to the head of the active list and loses the bit; an active page gets the bit (and does not
//!   move: the active list is ordered by activation, not by recency).
//! - A demand-missed page enters the inactive head with the bit set: `do_generic_mapping_read` adds it with
//!   `add_to_page_cache_lru` and then calls `mark_page_accessed` once, so its second access promotes it. A
//!   page inserted by readahead (`access.prefetch`) enters without the bit: its first access sets it, its
//!   second promotes it. A prefetch reference to a page already resident does nothing, as readahead skips
//!   pages already in the page cache.
//! - The victim is the inactive tail, referenced or not: 2.6.10's `shrink_list` activates a referenced page
//!   only if `page_mapping_inuse()`, which is false for a file nobody maps.
//! - Aging (`refill_inactive_zone`) runs only during reclaim, in proportion to the list sizes as
//!   `shrink_zone` scans them (`nr_scan_active += nr_active >> priority`, `nr_scan_inactive += nr_inactive
//!   >> priority`): for every page taken from the inactive list, `active_len / inactive_len` pages move from
//!   the active tail to the inactive head, one at a time (so the oldest demoted page ends up deepest). The
//!   fractional part is carried to the next eviction as a 32.32 fixed-point credit, each ratio rounded up
//!   to the next 2^-32 page so that ratios such as 1/3 + 1/3 + 1/3 make a whole page on time
//!   (deterministic; the upward drift is under one page per 2^32 evictions). As in `shrink_zone`, the
//!   active list is aged before the inactive list is scanned. Demoted pages keep their referenced bit:
//!   2.6.10 calls `page_referenced()` only for mapped pages.
//!
//! Li & Shen name the list ends the other way round (prefetched pages "attached to the tail", eviction
//! from "the head"); the order is the same as here, where the head is the end `list_add` inserts at.
//!
//! Where pagelab departs from the kernel, and why:
//! - One list pair, no zones: pagelab's buffer cache is one memory pool.
//! - No reclaim priorities and no scan batches of `SWAP_CLUSTER_MAX` (32): the kernel scans in batches to
//!   amortise the zone lock, and lowers the priority when a pass frees too little; a simulated cache evicts
//!   exactly one page when it needs one frame, and keeps the ratio the batches aim at. The kernel's `+ 1`
//!   per pass (a floor that makes lists shorter than 2^priority pages scan 1:1 at the default priority)
//!   is not modelled either: it exists to guarantee progress, which one-page eviction already has.
//! - If the inactive list is empty when a victim is needed, exactly one page is demoted from the active
//!   tail and becomes the victim (the kernel would demote a batch of 32 and then evict from it).
//! - No mapped or anonymous pages (no pte referenced bits, no `reclaim_mapped`/`swap_tendency`), no dirty
//!   pages or writeback (a clean file page is freed at once): pagelab's pages are clean pages of files read
//!   through `read()`, as in the papers' server workloads.
//!
//! Cost: O(1) per access; an eviction demotes `active_len / inactive_len` pages, amortised O(1) because a
//! page is demoted at most once per activation.

use super::{Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};

/// One page in the 32.32 fixed-point aging credit.
const CREDIT_ONE: u64 = 1 << 32;

/// `shrink_zone`'s proportional aging (module doc): the active pages owed to the inactive list, carried
/// between evictions as a 32.32 fixed-point credit below one page. Shared with `dulo-linux`, whose lists
/// age alike.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AgingCredit(u64);

impl AgingCredit {
    /// The active pages to demote before one inactive page is scanned: `active / inactive` of a page,
    /// the fraction carried; one when the inactive list is empty (the victim must come from somewhere).
    /// Bounded by the active list: the credit beyond it is dropped (there is nothing left to age).
    pub fn owed(&mut self, active_len: u32, inactive_len: u32) -> u64 {
        if inactive_len == 0 {
            return 1;
        }
        self.0 += (active_len as u64 * CREDIT_ONE).div_ceil(inactive_len as u64);
        let owed_pages = self.0 / CREDIT_ONE;
        self.0 %= CREDIT_ONE;
        debug_assert!(self.0 < CREDIT_ONE, "aging credit not carried");
        owed_pages.min(active_len as u64)
    }
}

#[derive(Clone, Debug)]
pub struct TwoList {
    links: Links,
    active: List,
    inactive: List,
    /// By frame: `PageActive`.
    active_bit: Vec<bool>,
    /// By frame: `PG_referenced`.
    referenced: Vec<bool>,
    /// Active pages owed to the inactive list.
    aging: AgingCredit,
    /// Active pages demoted by aging in all evictions (`refill_inactive_zone`'s scan).
    demoted: u64,
}

impl TwoList {
    pub fn new(capacity: u32) -> TwoList {
        assert!(capacity >= 1, "the two-list policy needs at least one frame");
        TwoList {
            links: Links::new(capacity),
            active: List::new(),
            inactive: List::new(),
            active_bit: vec![false; capacity as usize],
            referenced: vec![false; capacity as usize],
            aging: AgingCredit::default(),
            demoted: 0,
        }
    }

    /// `(active, inactive)` list lengths.
    pub fn list_lens(&self) -> (u32, u32) {
        (self.active.len(), self.inactive.len())
    }

    /// `refill_inactive_zone` for one page: the active tail goes to the inactive head, keeping its
    /// referenced bit.
    fn demote_one(&mut self) {
        let frame = self.links.pop_back(&mut self.active).expect("demote from an empty active list");
        self.demoted += 1;
        self.active_bit[frame as usize] = false;
        self.links.push_front(&mut self.inactive, frame);
    }

    /// Age the active list in proportion to the lists' sizes before one inactive page is scanned.
    fn age(&mut self) {
        for _ in 0..self.aging.owed(self.active.len(), self.inactive.len()) {
            self.demote_one();
        }
    }

    fn check(&self) {
        assert!(self.active.len() + self.inactive.len() <= self.links.capacity(), "more than c pages");
    }

    fn format_list(&self, list: &List, table: &FrameTable) -> String {
        let marked: Vec<String> = self
            .links
            .iter(list)
            .map(|f| {
                let star = if self.referenced[f as usize] { "*" } else { "" };
                format!("{}{star}", table.key(f))
            })
            .collect();
        format!("[{}]", marked.join(" "))
    }
}

impl Replacement for TwoList {
    fn name(&self) -> &'static str {
        "Linux"
    }

    fn capacity(&self) -> u32 {
        self.links.capacity()
    }

    fn len(&self) -> u32 {
        self.active.len() + self.inactive.len()
    }

    /// The inactive head; referenced for a demand miss, unreferenced for a readahead page.
    #[inline]
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        assert!(self.len() < self.capacity(), "insert into a full two-list cache");
        self.active_bit[frame as usize] = false;
        self.referenced[frame as usize] = !access.prefetch;
        self.links.push_front(&mut self.inactive, frame);
    }

    /// `mark_page_accessed`; a prefetch reference to a resident page is not an access.
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        let f = frame as usize;
        if !self.active_bit[f] && self.referenced[f] {
            self.active_bit[f] = true;
            self.referenced[f] = false;
            self.links.move_to_front_of(&mut self.inactive, &mut self.active, frame);
        } else {
            self.referenced[f] = true;
        }
    }

    /// Age the active list, then free the inactive tail.
    #[inline]
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty two-list cache");
        self.age();
        let victim =
            self.links.pop_back(&mut self.inactive).expect("aging leaves the inactive list non-empty");
        self.check();
        victim
    }

    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        let list = if self.active_bit[frame as usize] { &mut self.active } else { &mut self.inactive };
        self.links.remove(list, frame);
        self.check();
    }

    /// The active pages aging demoted: `refill_inactive_zone` scans them on the way.
    fn pages_scanned(&self) -> u64 {
        self.demoted
    }

    fn pages_aged(&self) -> u64 {
        self.demoted
    }

    fn reclaim_list_len(&self) -> u32 {
        self.inactive.len()
    }

    /// `"active=[5* 2] inactive=[7 3*]"`, heads first, `*` = `PG_referenced`.
    fn state(&self, table: &FrameTable) -> String {
        format!(
            "active={} inactive={}",
            self.format_list(&self.active, table),
            self.format_list(&self.inactive, table)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyedCache;
    use crate::policy::testing::trace;
    use proptest::prelude::*;
    use std::collections::{HashSet, VecDeque};

    /// c = 4, demand references only.
    #[test]
    fn hand_traced() {
        trace(
            TwoList::new(4),
            &[
                // A demand miss enters the inactive head already referenced.
                (1, false, "active=[] inactive=[1*]"),
                (2, false, "active=[] inactive=[2* 1*]"),
                // Second access: inactive and referenced -> active head, bit cleared.
                (1, true, "active=[1] inactive=[2*]"),
                // Active: the bit is set, the page does not move.
                (1, true, "active=[1*] inactive=[2*]"),
                (3, false, "active=[1*] inactive=[3* 2*]"),
                (4, false, "active=[1*] inactive=[4* 3* 2*]"),
                (2, true, "active=[2 1*] inactive=[4* 3*]"),
                (3, true, "active=[3 2 1*] inactive=[4*]"),
                // Reclaim: 3 active / 1 inactive -> 3 pages aged, oldest first, keeping their bits; then the
                // inactive tail (4, referenced but unmapped) is the victim.
                (5, false, "active=[] inactive=[5* 3 2 1*]"),
                (1, true, "active=[1] inactive=[5* 3 2]"),
                // 1 active / 3 inactive: a third of a page per eviction, carried over.
                (6, false, "active=[1] inactive=[6* 5* 3]"),
                (7, false, "active=[1] inactive=[7* 6* 5*]"),
                // Third eviction: the credit reaches one page and 1 is aged before the victim (5) is taken.
                (8, false, "active=[] inactive=[8* 1 7* 6*]"),
                // Aged without its bit: one access sets it, the next promotes.
                (1, true, "active=[] inactive=[8* 1* 7* 6*]"),
                (1, true, "active=[1] inactive=[8* 7* 6*]"),
                (8, true, "active=[8 1] inactive=[7* 6*]"),
                (7, true, "active=[7 8 1] inactive=[6*]"),
                (6, true, "active=[6 7 8 1] inactive=[]"),
                // The inactive list is empty: one page is aged from the active tail and is the victim.
                (9, false, "active=[6 7 8] inactive=[9*]"),
                (10, false, "active=[] inactive=[10* 6 7 8]"),
            ],
        );
    }

    /// Replays `(access, expected hit, expected state)` through a cache.
    fn replay(capacity: u32, steps: &[(Access, bool, &str)]) {
        let mut cache = KeyedCache::new(TwoList::new(capacity));
        for (i, (access, hit, state)) in steps.iter().enumerate() {
            assert_eq!(cache.access(access), *hit, "step {i} (key {})", access.key);
            assert_eq!(cache.state(), *state, "step {i} (key {})", access.key);
        }
    }

    #[test]
    fn prefetched_pages_enter_unreferenced() {
        let prefetch = |key, vtime| Access { prefetch: true, ..Access::demand(key, vtime) };
        replay(
            3,
            &[
                (prefetch(1, 0), false, "active=[] inactive=[1]"),
                (Access::demand(1, 1), true, "active=[] inactive=[1*]"),
                (Access::demand(1, 2), true, "active=[1] inactive=[]"),
                (prefetch(2, 3), false, "active=[1] inactive=[2]"),
                // Readahead over a resident page does not count as an access.
                (prefetch(2, 4), true, "active=[1] inactive=[2]"),
                (Access::demand(3, 5), false, "active=[1] inactive=[3* 2]"),
                // Full: 1 active / 2 inactive -> half a page of credit, nothing aged; victim is 2.
                (Access::demand(4, 6), false, "active=[1] inactive=[4* 3*]"),
                // Another half page: 1 is aged, then 3 is the victim.
                (prefetch(5, 7), false, "active=[] inactive=[5 1 4*]"),
            ],
        );
    }

    /// The kernel's lists over `VecDeque`s of keys (front = head), with the aging credit kept exactly as a
    /// multiple of 1/2520 (= lcm(1..=10), so every ratio with an inactive list of at most 10 pages is exact).
    struct Kernel {
        c: usize,
        active: VecDeque<u64>,
        inactive: VecDeque<u64>,
        referenced: HashSet<u64>,
        credit: usize,
    }

    const ONE: usize = 2520;

    impl Kernel {
        fn mark_page_accessed(&mut self, key: u64) {
            if let Some(i) = self.inactive.iter().position(|&k| k == key) {
                if self.referenced.remove(&key) {
                    self.inactive.remove(i);
                    self.active.push_front(key);
                    return;
                }
            }
            self.referenced.insert(key);
        }

        fn reclaim_one(&mut self) {
            if self.inactive.is_empty() {
                let k = self.active.pop_back().unwrap();
                self.inactive.push_front(k);
            } else {
                self.credit += self.active.len() * ONE / self.inactive.len();
                let n = self.credit / ONE;
                self.credit %= ONE;
                for _ in 0..n.min(self.active.len()) {
                    let k = self.active.pop_back().unwrap();
                    self.inactive.push_front(k);
                }
            }
            let victim = self.inactive.pop_back().unwrap();
            self.referenced.remove(&victim);
        }

        fn access(&mut self, key: u64, prefetch: bool) -> bool {
            if self.active.contains(&key) || self.inactive.contains(&key) {
                if !prefetch {
                    self.mark_page_accessed(key);
                }
                return true;
            }
            if self.active.len() + self.inactive.len() == self.c {
                self.reclaim_one();
            }
            self.inactive.push_front(key);
            if !prefetch {
                self.referenced.insert(key);
            }
            false
        }

        fn state(&self) -> String {
            let show = |l: &VecDeque<u64>| {
                let keys: Vec<String> = l
                    .iter()
                    .map(|k| format!("{k}{}", if self.referenced.contains(k) { "*" } else { "" }))
                    .collect();
                format!("[{}]", keys.join(" "))
            };
            format!("active={} inactive={}", show(&self.active), show(&self.inactive))
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn agrees_with_an_exact_model_step_by_step(
            capacity in 1u32..=10,
            refs in proptest::collection::vec((0u64..20, proptest::bool::weighted(0.2)), 0..300),
        ) {
            let mut cache = KeyedCache::new(TwoList::new(capacity));
            let mut model = Kernel {
                c: capacity as usize, active: VecDeque::new(), inactive: VecDeque::new(),
                referenced: HashSet::new(), credit: 0,
            };
            for (t, &(k, prefetch)) in refs.iter().enumerate() {
                let access = Access { prefetch, ..Access::demand(k, t as u64) };
                let hit = cache.access(&access);
                prop_assert_eq!(hit, model.access(k, prefetch), "step {} key {}", t, k);
                prop_assert_eq!(cache.state(), model.state(), "step {} key {}", t, k);
                // Reclaim scans the inactive list.
                prop_assert_eq!(cache.policy().reclaim_list_len() as usize, model.inactive.len());
            }
        }

        #[test]
        fn removals_keep_the_lists_consistent(
            capacity in 1u32..10,
            ops in proptest::collection::vec((0u64..20, any::<bool>()), 0..300),
        ) {
            let mut cache = KeyedCache::new(TwoList::new(capacity));
            for (t, &(k, remove)) in ops.iter().enumerate() {
                if remove {
                    cache.remove(k);
                } else {
                    cache.access(&Access::demand(k, t as u64));
                }
                let lists = cache.policy();
                for f in lists.links.iter(&lists.active) {
                    prop_assert!(lists.active_bit[f as usize], "frame {} active without PageActive", f);
                }
                for f in lists.links.iter(&lists.inactive) {
                    prop_assert!(!lists.active_bit[f as usize], "frame {} inactive with PageActive", f);
                }
            }
        }
    }
}
