//! `dulo-linux`: DULO adapted to Linux 2.6's two lists, as Jiang et al. built it into 2.6.11 (papers/001
//! §4.2).
//!
//! "In Linux, we partition the inactive list into a staging section and an evicting section because the
//! list is the place where new blocks are added and old blocks are replaced." The active list, the
//! referenced bit and aging are [`crate::policy::TwoList`]'s (2.6.10's `mark_page_accessed`,
//! `refill_inactive_zone` in proportion to the lists); the inactive list is DULO's stack
//! ([`super::sections::DualSections`]): a new page and a demoted active page enter the top of its
//! correlation buffer, and the victim is the bottom of its evicting section, referenced or not (the
//! two-list policy's victim is the inactive tail, referenced or not: 2.6.10 keeps a referenced inactive
//! page only if it is mapped). A page promoted to the active list leaves the sections from wherever it is.
//!
//! "With two lists, both newly accessed pages and not recently accessed active pages demoted from the
//! active list might be added into the inactive list and probably be sequenced in the same bank. Hence,
//! two spatially sequential but temporally remote pages can possibly be grouped into one sequence … We
//! address this issue by marking the demoted active pages and sequencing each type of page separately":
//! demoted pages form sequences only with demoted pages, new pages only with new pages.
//!
//! Section sizes: the inactive list's length changes with aging, so the correlation buffer is what the
//! inactive list holds beyond the evicting section (`inactive − evicting`, none when the list is shorter;
//! [`super`] explains why the evicting section's size is its size after a refill), recomputed at every
//! admission (ours; §4.2 gives the 8 MiB bank and 64 MiB evicting section, not how the buffer follows the
//! list).
//!
//! Departures are [`crate::policy::TwoList`]'s (one list pair, exact one-page eviction), plus DULO's own
//! ([`super`]).

use super::sections::{DualSections, Section};
use super::{DuloConfig, DuloStats};
use crate::frames::{FrameTable, Shadows};
use crate::list::{Links, List};
use crate::policy::two_list::AgingCredit;
use crate::policy::{Access, FrameId, History, Replacement};

/// Sequencing groups (§4.2's mark).
const NEW: u8 = 0;
const DEMOTED: u8 = 1;

#[derive(Clone, Debug)]
pub struct DuloLinux {
    /// The inactive list.
    inactive: DualSections,
    evicting_pages: u32,
    links: Links,
    active: List,
    /// By frame: `PageActive`.
    active_bit: Vec<bool>,
    /// By frame: `PG_referenced`.
    referenced: Vec<bool>,
    aging: AgingCredit,
    demoted: u64,
}

impl DuloLinux {
    pub fn new(capacity: u32) -> DuloLinux {
        DuloLinux::with_config(capacity, DuloConfig::default())
    }

    /// Caller guarantees `capacity >= 1`.
    pub fn with_config(capacity: u32, cfg: DuloConfig) -> DuloLinux {
        assert!(capacity >= 1, "dulo-linux needs at least one frame");
        DuloLinux {
            evicting_pages: cfg.evicting_pages,
            inactive: DualSections::new(capacity, cfg),
            links: Links::new(capacity),
            active: List::new(),
            active_bit: vec![false; capacity as usize],
            referenced: vec![false; capacity as usize],
            aging: AgingCredit::default(),
            demoted: 0,
        }
    }

    pub fn stats(&self) -> DuloStats {
        self.inactive.stats()
    }

    /// The inactive list's correlation buffer for one more page: what the list holds beyond the evicting
    /// section.
    fn buffer_max(&self) -> u32 {
        (self.inactive.len() + 1).saturating_sub(self.evicting_pages)
    }

    /// `refill_inactive_zone` for one page: the active tail goes to the inactive list, marked demoted,
    /// keeping its referenced bit.
    fn demote_one(&mut self) {
        let frame = self.links.pop_back(&mut self.active).expect("demote from an empty active list");
        self.demoted += 1;
        self.active_bit[frame as usize] = false;
        // The sections kept its location when it was promoted out of them.
        self.inactive.readmit(frame, DEMOTED, self.buffer_max());
    }

    /// Ages the active list in proportion to the lists' sizes before one inactive page is scanned
    /// ([`crate::policy::TwoList`]'s rule).
    fn age(&mut self) {
        for _ in 0..self.aging.owed(self.active.len(), self.inactive.len()) {
            self.demote_one();
        }
    }
}

impl Replacement for DuloLinux {
    fn name(&self) -> &'static str {
        "DULO-Linux"
    }
    fn capacity(&self) -> u32 {
        self.links.capacity()
    }
    fn len(&self) -> u32 {
        self.active.len() + self.inactive.len()
    }
    /// The inactive list's top; referenced for a demand miss, unreferenced for a readahead page.
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        assert!(self.len() < self.capacity(), "insert into a full dulo-linux cache");
        self.active_bit[frame as usize] = false;
        self.referenced[frame as usize] = !access.prefetch;
        self.inactive.admit(frame, access.lbn.0, NEW, self.buffer_max());
    }
    /// `mark_page_accessed`: a referenced inactive page is promoted out of DULO's sections.
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        let f = frame as usize;
        if !self.active_bit[f] && self.referenced[f] {
            self.inactive.remove(frame);
            self.active_bit[f] = true;
            self.referenced[f] = false;
            self.links.push_front(&mut self.active, frame);
        } else {
            self.referenced[f] = true;
        }
    }
    /// Age the active list, then evict the bottom of the evicting section.
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty dulo-linux cache");
        self.age();
        let victim = self.inactive.evict_bottom();
        self.referenced[victim as usize] = false;
        victim
    }
    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        if self.active_bit[frame as usize] {
            self.links.remove(&mut self.active, frame);
            self.active_bit[frame as usize] = false;
        } else {
            debug_assert_ne!(self.inactive.section(frame), Section::Out);
            self.inactive.remove(frame);
        }
        self.referenced[frame as usize] = false;
    }
    fn pages_scanned(&self) -> u64 {
        self.demoted
    }
    fn pages_aged(&self) -> u64 {
        self.demoted
    }
    /// The inactive list, staging and evicting sections together.
    fn reclaim_list_len(&self) -> u32 {
        self.inactive.len()
    }
    /// `active=[…] C=[…] B=[…] E=[…]`: the active list head first, then the inactive list as DULO's
    /// sections; `*` = `PG_referenced`.
    fn state(&self, table: &FrameTable) -> String {
        let mark = |f: FrameId| if self.referenced[f as usize] { "*" } else { "" };
        let active: Vec<String> =
            self.links.iter(&self.active).map(|f| format!("{}{}", table.key(f), mark(f))).collect();
        format!("active=[{}] {}", active.join(" "), self.inactive.state(table, mark))
    }
}
