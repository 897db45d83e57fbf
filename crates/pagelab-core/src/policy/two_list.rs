//! The Linux 2.6 page-reclaim lists: an active and an inactive LRU list with a referenced bit per page.
//!
//! As Li & Shen (papers/000, §2 "Measured performance") and Jiang et al. (papers/001, §4, "Linux adopts an
//! LRU variant similar to the 2Q replacement") describe it, modelled on Linux 2.6.10 (`mm/swap.c`,
//! `mm/vmscan.c`, `mm/filemap.c`) for unmapped file pages read through `read()` (mapped pages: below):
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
//!   `shrink_zone` scans them (`nr_scan_active += (nr_active >> priority) + 1`, `nr_scan_inactive +=
//!   (nr_inactive >> priority) + 1`): for every page taken from the inactive list, `active_len /
//!   inactive_len` pages are taken from the active tail, one at a time (so the oldest demoted page ends up
//!   deepest). While the inactive list holds pages this is the kernel's ratio within about 10 %: with its
//!   `+ 1`s and `balance_pgdat`'s descent from priority 12 until the inactive list's batch of 32 is due,
//!   computed by hand for lists of 100 to a million pages. The fractional part is carried to the next
//!   eviction as a 32.32 fixed-point credit, each ratio rounded up to the next 2^-32 page so that ratios
//!   such as 1/3 + 1/3 + 1/3 make a whole page on time (deterministic; the upward drift is under one page
//!   per 2^32 evictions). As in `shrink_zone`, the active list is aged before the inactive list is scanned.
//!   Demoted unmapped pages keep their referenced bit: 2.6.10 calls `page_referenced()` only for mapped
//!   pages.
//! - An empty inactive list has no ratio: the kernel then scans the active list in a burst, its batches of
//!   32 falling due at each priority of the descent until the inactive list's batch is due, which takes
//!   the whole active list (about twice over, at priority 0) when nothing is demoted before. [`descent`]
//!   does that, with the scan counts kept between descents as the zone keeps them. (Demoting one page and
//!   evicting it, as pagelab did before, leaves the inactive list empty for ever once pages start on the
//!   active list, as anonymous pages do: every page demoted is evicted at once.)
//!
//! Mapped pages ([`Access::mapped`]: anonymous memory, which processes load from and store to), as 2.6.11
//! treats them (`mm/memory.c`, `mm/swap_state.c`, `mm/vmscan.c`, `mm/rmap.c`):
//! - They start on the active list: `do_anonymous_page()` and `read_swap_cache_async()` add them with
//!   `lru_cache_add_active()`. A faulted page is referenced (the access that faulted sets the page table's
//!   accessed bit; a swap-in fault also calls `mark_page_accessed()`); a page swap readahead brought in is
//!   not, and is not mapped until a fault finds it in the swap cache.
//! - A load or store sets the accessed bit and moves nothing: the kernel never hears of it until reclaim
//!   scans the page. One bit per page stands for `PG_referenced` and the accessed bits together, because
//!   `page_referenced()` reads and clears both.
//! - Aging: a mapped page at the active tail goes back to the active head if `reclaim_mapped` is off, or if
//!   it was referenced (the bit is cleared); otherwise it is demoted. `reclaim_mapped` is `swap_tendency =
//!   mapped_ratio / 2 + distress + vm_swappiness >= 100`, with `vm_swappiness` = 60, `mapped_ratio` the
//!   mapped pages' share of the policy's frames (the kernel's `nr_mapped * 100 / total_memory`) and
//!   `distress` 0, the kernel's at `DEF_PRIORITY`, or 100 when the inactive list is empty and the victim
//!   must come from the active list (reclaim at priority 0).
//! - Reclaim: a mapped page at the inactive tail that was referenced is activated (`shrink_list`'s
//!   `activate_locked`, bit cleared) and the next page is tried; an unreferenced one is the victim.
//!
//! Li & Shen name the list ends the other way round (prefetched pages "attached to the tail", eviction
//! from "the head"); the order is the same as here, where the head is the end `list_add` inserts at.
//!
//! Where pagelab departs from the kernel, and why:
//! - One list pair, no zones: pagelab's buffer cache is one memory pool.
//! - No scan batches of `SWAP_CLUSTER_MAX` (32) and no priorities while the inactive list holds pages: the
//!   kernel scans in batches to amortise the zone lock, and lowers the priority when a pass frees too
//!   little; a simulated cache evicts exactly one page when it needs one frame, and keeps the ratio the
//!   batches come to (above).
//! - A descent's scan happens inside one `evict`, in no simulated time; the kernel's takes as long as its
//!   `page_referenced()` calls.
//! - Dirty pages and writeback are the buffer cache's ([`crate::buffer`]): the policy only orders pages.
//! - No swap token (`mm/thrash.c`: `page_referenced_one()` counts a page of the token holder as referenced
//!   when another context scans it): a patch for 2.6.10-rc3 made its timeout 0 by default, which disables
//!   it ("Currently disabled; Needs further code to work at HZ * 300"), and a patch against 2.6.12 set it
//!   back to 300 (both read as posted to the lists, not in a release tree); 2.6.11, DULO's kernel, falls
//!   between them.
//!
//! Cost: O(1) per access; an eviction scans the active pages owed, amortised O(1) because a page is
//! demoted at most once per activation and a mapped page is rotated at most once per reference (or, while
//! `reclaim_mapped` is off, once per active page scanned). An eviction that finds every page referenced
//! clears every bit: O(capacity), once.

use super::{Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};
use crate::memory::{DEF_PRIORITY, SWAP_CLUSTER_MAX};

/// One page in the 32.32 fixed-point aging credit.
const CREDIT_ONE: u64 = 1 << 32;

/// `shrink_zone`'s proportional aging (module doc): the active pages owed to the inactive list, carried
/// between evictions as a 32.32 fixed-point credit below one page; and the scan counts of [`descent`]s,
/// kept between them as the zone keeps `nr_scan_active` and `nr_scan_inactive`. Shared with
/// `dulo-linux`, whose lists age alike.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AgingCredit {
    credit: u64,
    /// `(nr_scan_active, nr_scan_inactive)`: pages each list owes a scan, below a batch.
    descent: (u64, u64),
}

impl AgingCredit {
    /// The active pages to scan before one inactive page is scanned: `active / inactive` of a page, the
    /// fraction carried. Bounded by the active list: the credit beyond it is dropped (there is nothing
    /// left to age). Caller guarantees `inactive_len > 0` (an empty inactive list is [`descent`]'s).
    pub fn owed(&mut self, active_len: u32, inactive_len: u32) -> u64 {
        assert!(inactive_len > 0, "proportional aging of an empty inactive list");
        self.credit += (active_len as u64 * CREDIT_ONE).div_ceil(inactive_len as u64);
        let owed_pages = self.credit / CREDIT_ONE;
        self.credit %= CREDIT_ONE;
        debug_assert!(self.credit < CREDIT_ONE, "aging credit not carried");
        owed_pages.min(active_len as u64)
    }
}

/// The aging the Linux lists share (the two lists, and `dulo-linux`, whose inactive list is DULO's
/// sections): what it needs of the policy, and [`ActiveAging::age`] itself.
pub(crate) trait ActiveAging {
    /// `(active, inactive)` list lengths.
    fn lens(&self) -> (u32, u32);
    /// Frames the policy was built for (`reclaim_mapped`'s `total_memory`).
    fn frames(&self) -> u32;
    fn mapped(&self) -> &Mapped;
    fn aging(&mut self) -> &mut AgingCredit;
    /// `refill_inactive_zone` for one page: the active tail is demoted, or put back at the active head if
    /// it is a mapped page kept active (`reclaim_mapped` off, or referenced: the bit is cleared).
    fn demote_one(&mut self, reclaim_mapped: bool);

    /// Age the active list before one inactive page is scanned: in proportion to the lists' sizes, or by
    /// [`descent`] when the inactive list is empty (module doc).
    #[inline]
    fn age(&mut self) {
        let (active, inactive) = self.lens();
        let reclaim_mapped = self.mapped().reclaim_mapped(self.frames(), inactive == 0);
        if inactive == 0 {
            debug_assert!(reclaim_mapped, "an empty inactive list is distress");
            descent(self);
            return;
        }
        for _ in 0..self.aging().owed(active, inactive) {
            self.demote_one(reclaim_mapped);
        }
    }
}

/// `balance_pgdat()`'s descent when the inactive list is empty: at each priority from `DEF_PRIORITY` down
/// to 0, `shrink_zone` adds `(active >> p) + 1` to the active list's scan count and `(inactive >> p) + 1`
/// to the inactive list's, scans the active list in batches once its count reaches `SWAP_CLUSTER_MAX`
/// (each page demoted, or rotated if it is a mapped page kept active), and stops once the inactive list's
/// count reaches a batch, which is then due (its count is spent). The counts below a batch are kept from
/// one descent to the next ([`AgingCredit`]), as the zone keeps them. The active list is scanned about
/// twice over at most (`Σ active >> p`), when no earlier priority made the inactive batch due; lists of a
/// few pages may need three descents before a batch is due.
fn descent<L: ActiveAging + ?Sized>(lists: &mut L) {
    let (mut scan_a, mut scan_i) = lists.aging().descent;
    for priority in (0..=DEF_PRIORITY).rev() {
        let (active, inactive) = lists.lens();
        scan_a += (active >> priority) as u64 + 1;
        scan_i += (inactive >> priority) as u64 + 1;
        if scan_a >= SWAP_CLUSTER_MAX as u64 {
            for _ in 0..std::mem::take(&mut scan_a).min(active as u64) {
                lists.demote_one(true);
            }
        }
        if scan_i >= SWAP_CLUSTER_MAX as u64 {
            scan_i = 0;
            break;
        }
    }
    lists.aging().descent = (scan_a, scan_i);
}

/// An eviction's passes (age, then try the inactive tail) at most: each pass activates a referenced
/// mapped page (clearing its bit), or ages pages (clearing bits or demoting), or returns; a descent over
/// lists of a few pages may scan nothing until its third try.
pub(crate) const EVICT_PASSES_PER_FRAME: u64 = 2;
pub(crate) const EVICT_PASSES_MIN: u64 = 4;

/// `vm_swappiness` (`mm/vmscan.c`, 2.6): 60 by default.
const VM_SWAPPINESS: u32 = 60;

/// Which frames hold mapped pages, and how many: `refill_inactive_zone`'s `reclaim_mapped` decision
/// reads the count. Shared with `dulo-linux`.
#[derive(Clone, Debug)]
pub(crate) struct Mapped {
    by_frame: Vec<bool>,
    pages: u32,
}

impl Mapped {
    pub fn new(capacity: u32) -> Mapped {
        Mapped { by_frame: vec![false; capacity as usize], pages: 0 }
    }

    /// Whether `frame` holds a mapped page. With none mapped (a file server's whole run) the frame's entry
    /// is not read: eviction, aging and removal ask this of every page they touch, and the entries of
    /// scattered frames would each cost a cache miss.
    #[inline]
    pub fn get(&self, frame: FrameId) -> bool {
        self.pages > 0 && self.by_frame[frame as usize]
    }

    /// A page comes into the free `frame`: mapped if it was faulted in (not brought by swap readahead).
    /// Returns whether it starts on the active list: every anonymous page does (`lru_cache_add_active`).
    #[inline]
    pub fn insert(&mut self, frame: FrameId, access: &Access) -> bool {
        debug_assert!(!self.get(frame), "a free frame holds no mapped page");
        if access.mapped && !access.prefetch {
            self.set(frame, true);
        }
        access.mapped
    }

    #[inline]
    pub fn set(&mut self, frame: FrameId, mapped: bool) {
        if !mapped && self.pages == 0 {
            return; // no frame is mapped ([`Mapped::get`])
        }
        let was = std::mem::replace(&mut self.by_frame[frame as usize], mapped);
        self.pages = self.pages + mapped as u32 - was as u32;
    }

    /// `refill_inactive_zone`'s `reclaim_mapped`: `swap_tendency = mapped_ratio / 2 + distress +
    /// vm_swappiness >= 100`, with `mapped_ratio` the mapped share of memory in percent (of the policy's
    /// frames) and `distress` 0 (reclaim at its default priority) unless the inactive list is empty,
    /// when the victim must come from the active list (distress 100: priority 0).
    #[inline]
    pub fn reclaim_mapped(&self, capacity: u32, inactive_empty: bool) -> bool {
        if self.pages == 0 {
            return inactive_empty; // no mapped page to keep (and no division on the file-only path)
        }
        let mapped_ratio = self.pages as u64 * 100 / capacity.max(1) as u64;
        let distress = if inactive_empty { 100 } else { 0 };
        mapped_ratio / 2 + distress + VM_SWAPPINESS as u64 >= 100
    }

    /// `refill_inactive_zone`'s rule for the active page in `frame` that aging takes off the tail: a mapped
    /// page goes back to the active head while mapped pages are not reclaimed, or when its accessed bit
    /// (`referenced`, which the test clears, as `page_referenced()` does) was set. `false`: it is demoted.
    #[inline]
    pub fn stays_active(&self, frame: FrameId, reclaim_mapped: bool, referenced: &mut bool) -> bool {
        self.get(frame) && (!reclaim_mapped || std::mem::take(referenced))
    }
}

/// One frame's page flags ([`TwoList::bits`]).
#[derive(Clone, Copy, Debug)]
struct PageBits {
    active: bool,
    referenced: bool,
}

// SAFETY: two `bool`s, for which all-zero bytes are a valid value (`false`, as a free frame has them). The
// array is allocated zeroed: a policy sized for a large simulated memory costs only the frames a run uses.
unsafe impl bytemuck::Zeroable for PageBits {}

#[derive(Clone, Debug)]
pub struct TwoList {
    links: Links,
    active: List,
    inactive: List,
    /// By frame: `PageActive` and `PG_referenced` (for a mapped page, its page-table accessed bit:
    /// `page_referenced()` reads and clears both). Side by side, as the kernel keeps them in one `flags`
    /// word: every list operation reads or writes both of a frame met in replacement order, scattered in
    /// memory, and two arrays cost two cache misses where one costs one.
    bits: Vec<PageBits>,
    /// By frame: the page is mapped (see [`Mapped`]).
    mapped: Mapped,
    /// Active pages owed to the inactive list.
    aging: AgingCredit,
    /// Active pages demoted by aging in all evictions (`refill_inactive_zone`'s scan).
    demoted: u64,
    /// Mapped active pages aging found referenced (or kept because mapped pages are not reclaimed) and
    /// put back at the active head; and mapped inactive pages reclaim found referenced and activated.
    rotated: u64,
    activated: u64,
}

impl TwoList {
    pub fn new(capacity: u32) -> TwoList {
        assert!(capacity >= 1, "the two-list policy needs at least one frame");
        TwoList {
            links: Links::new(capacity),
            active: List::new(),
            inactive: List::new(),
            bits: crate::zeroed_vec(capacity as usize),
            mapped: Mapped::new(capacity),
            aging: AgingCredit::default(),
            demoted: 0,
            rotated: 0,
            activated: 0,
        }
    }

    /// `(active, inactive)` list lengths.
    pub fn list_lens(&self) -> (u32, u32) {
        (self.active.len(), self.inactive.len())
    }

    fn check(&self) {
        assert!(self.active.len() + self.inactive.len() <= self.links.capacity(), "more than c pages");
    }

    /// One eviction: age the active list, then free the inactive tail (a referenced mapped page there is
    /// activated instead, and the next pass tries again).
    #[inline(always)]
    fn evict_one(&mut self) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty two-list cache");
        // Bounded: see `EVICT_PASSES_PER_FRAME`.
        for _ in 0..EVICT_PASSES_PER_FRAME * self.links.capacity() as u64 + EVICT_PASSES_MIN {
            self.age();
            let Some(victim) = self.links.pop_back(&mut self.inactive) else {
                continue; // aging put every page it scanned back on the active list
            };
            let f = victim as usize;
            if self.mapped.get(victim) {
                if std::mem::take(&mut self.bits[f].referenced) {
                    // `shrink_list`: a referenced mapped page is in active use (`activate_locked`).
                    self.activated += 1;
                    self.bits[f].active = true;
                    self.links.push_front(&mut self.active, victim);
                    continue;
                }
                self.mapped.set(victim, false);
            }
            self.check();
            return victim;
        }
        unreachable!("two-list eviction ran past its bound");
    }

    fn format_list(&self, list: &List, table: &FrameTable) -> String {
        let marked: Vec<String> = self
            .links
            .iter(list)
            .map(|f| {
                let star = if self.bits[f as usize].referenced { "*" } else { "" };
                format!("{}{star}", table.key(f))
            })
            .collect();
        format!("[{}]", marked.join(" "))
    }
}

impl ActiveAging for TwoList {
    fn lens(&self) -> (u32, u32) {
        self.list_lens()
    }

    fn frames(&self) -> u32 {
        self.links.capacity()
    }

    fn mapped(&self) -> &Mapped {
        &self.mapped
    }

    fn aging(&mut self) -> &mut AgingCredit {
        &mut self.aging
    }

    /// The active tail goes to the inactive head, keeping its referenced bit; or a mapped page kept
    /// active goes back to the active head.
    fn demote_one(&mut self, reclaim_mapped: bool) {
        let frame = self.links.pop_back(&mut self.active).expect("demote from an empty active list");
        let f = frame as usize;
        if self.mapped.stays_active(frame, reclaim_mapped, &mut self.bits[f].referenced) {
            self.rotated += 1;
            self.links.push_front(&mut self.active, frame);
            return;
        }
        self.demoted += 1;
        self.bits[f].active = false;
        self.links.push_front(&mut self.inactive, frame);
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

    /// The inactive head; referenced for a demand miss, unreferenced for a readahead page. An anonymous
    /// page goes to the active head (`lru_cache_add_active`), mapped and referenced if faulted in,
    /// unmapped and unreferenced if swap readahead brought it.
    #[inline(always)]
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        assert!(self.len() < self.capacity(), "insert into a full two-list cache");
        let active = self.mapped.insert(frame, access);
        self.bits[frame as usize] = PageBits { active, referenced: !access.prefetch };
        let list = if active { &mut self.active } else { &mut self.inactive };
        self.links.push_front(list, frame);
    }

    /// `mark_page_accessed`; a prefetch reference to a resident page is not an access. A load or store to
    /// an anonymous page sets its accessed bit and maps it (a swap-cache page's first touch: `do_swap_page`'s
    /// `mark_page_accessed` sets the same bit, on a page no one referenced yet), and moves nothing.
    #[inline]
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        if access.mapped {
            self.mapped.set(frame, true);
            self.bits[frame as usize].referenced = true;
            return;
        }
        let bits = &mut self.bits[frame as usize];
        if !bits.active && bits.referenced {
            *bits = PageBits { active: true, referenced: false };
            self.links.move_to_front_of(&mut self.inactive, &mut self.active, frame);
        } else {
            bits.referenced = true;
        }
    }

    /// Age the active list, then free the inactive tail. Inlined into the trait's `evict_batch` (kswapd's
    /// and direct reclaim's batches): a call per victim there cost about 1 % of a default-model run.
    #[inline(always)]
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        self.evict_one()
    }

    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        let list = if self.bits[frame as usize].active { &mut self.active } else { &mut self.inactive };
        self.links.remove(list, frame);
        self.mapped.set(frame, false);
        self.check();
    }

    /// The active pages aging demoted or rotated (`refill_inactive_zone` scans them on the way), and the
    /// mapped pages reclaim activated from the inactive tail.
    fn pages_scanned(&self) -> u64 {
        self.demoted + self.rotated + self.activated
    }

    fn pages_aged(&self) -> u64 {
        self.demoted + self.rotated
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
                // The inactive list is empty: `balance_pgdat`'s descent. Four active pages add 20 to the
                // active scan count over priorities 12..0 and nothing is scanned; the second descent reaches
                // a batch (32) at priority 2 and scans all four (demoted, oldest first), and at priority 0
                // the inactive list's count (24 + 3 + 5) makes its batch due: the tail, 1, is the victim.
                (9, false, "active=[] inactive=[9* 6 7 8]"),
                (10, false, "active=[] inactive=[10* 9* 6 7]"),
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

    /// Anonymous pages, c = 4, traced by hand from 2.6.11's `refill_inactive_zone` and `shrink_list`.
    #[test]
    fn mapped_pages_are_kept_by_their_accessed_bit() {
        let mapped = |key, vtime| Access { mapped: true, ..Access::demand(key, vtime) };
        let swap_readahead = |key, vtime| Access { prefetch: true, ..mapped(key, vtime) };
        replay(
            4,
            &[
                // Faulted pages start at the active head, referenced.
                (mapped(1, 0), false, "active=[1*] inactive=[]"),
                (mapped(2, 1), false, "active=[2* 1*] inactive=[]"),
                // A load or store sets the bit and moves nothing.
                (mapped(1, 2), true, "active=[2* 1*] inactive=[]"),
                // Swap readahead: active too (`read_swap_cache_async`), unreferenced and not yet mapped.
                (swap_readahead(3, 3), false, "active=[3 2* 1*] inactive=[]"),
                (mapped(4, 4), false, "active=[4* 3 2* 1*] inactive=[]"),
                // Full, the inactive list empty: the first descent (priorities 12..0) adds 20 to the active
                // scan count and scans nothing; the second reaches 32 at priority 2 and scans all four from
                // the tail: 1, 2 and 4 are mapped and referenced and go back to the active head with their
                // bits cleared, 3 (never mapped) is demoted. The descent ends without the inactive batch
                // due (27 of 32); 3 is the victim.
                (mapped(5, 5), false, "active=[5* 4 2 1] inactive=[]"),
                (mapped(2, 6), true, "active=[5* 4 2* 1] inactive=[]"),
                // The inactive count (27) reaches 32 at priority 8 of the next descent, with nothing
                // scanned; the one after leaves the active count at 31; the third scans all four: 1 and
                // 4 are demoted, 2 and 5 rotate. 1 is the victim.
                (mapped(6, 7), false, "active=[6* 5 2] inactive=[4]"),
                (mapped(4, 8), true, "active=[6* 5 2] inactive=[4*]"),
                // 3 active / 1 inactive: 2 and 5 are demoted, 6 rotates; the tail, 4, is referenced and
                // mapped: activated (`activate_locked`), bit cleared. Then 2 active / 2 inactive: 6 is
                // demoted, and the tail, 2, is the victim.
                (mapped(7, 9), false, "active=[7* 4] inactive=[6 5]"),
            ],
        );
    }

    #[test]
    fn mapped_pages_are_reclaimed_from_a_swap_tendency_of_100() {
        let mut m = Mapped::new(100);
        for frame in 0..79 {
            m.set(frame, true);
        }
        // 79 % mapped: 39 + 0 + 60 < 100; an empty inactive list is distress 100.
        assert!(!m.reclaim_mapped(100, false));
        assert!(m.reclaim_mapped(100, true));
        m.set(79, true);
        assert!(m.reclaim_mapped(100, false));
        m.set(79, false);
        m.set(0, false);
        assert_eq!(m.pages, 78);
    }

    /// The kernel's lists over `VecDeque`s of keys (front = head), with the aging credit kept exactly as a
    /// multiple of 1/2520 (= lcm(1..=10), so every ratio with an inactive list of at most 10 pages is exact).
    struct Kernel {
        c: usize,
        active: VecDeque<u64>,
        inactive: VecDeque<u64>,
        referenced: HashSet<u64>,
        credit: usize,
        /// `zone->nr_scan_active`, `zone->nr_scan_inactive` of the descents.
        nr_scan: (usize, usize),
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
                while self.inactive.is_empty() {
                    // `balance_pgdat` from priority 12 down, `shrink_zone` at each: scan counts grow by
                    // `(len >> priority) + 1`; a list is scanned once its count reaches 32.
                    for priority in (0..=12).rev() {
                        self.nr_scan.0 += (self.active.len() >> priority) + 1;
                        self.nr_scan.1 += (self.inactive.len() >> priority) + 1;
                        if self.nr_scan.0 >= 32 {
                            for _ in 0..std::mem::take(&mut self.nr_scan.0).min(self.active.len()) {
                                let k = self.active.pop_back().unwrap();
                                self.inactive.push_front(k);
                            }
                        }
                        if self.nr_scan.1 >= 32 {
                            self.nr_scan.1 = 0;
                            break;
                        }
                    }
                }
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
                referenced: HashSet::new(), credit: 0, nr_scan: (0, 0),
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
                    prop_assert!(lists.bits[f as usize].active, "frame {} active without PageActive", f);
                }
                for f in lists.links.iter(&lists.inactive) {
                    prop_assert!(!lists.bits[f as usize].active, "frame {} inactive with PageActive", f);
                }
            }
        }
    }
}
