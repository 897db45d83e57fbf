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
//! Mapped (anonymous) pages follow the two-list policy's rules for them: they start on the active list, so
//! they reach DULO's sections only demoted, and are sequenced with the other demoted pages; a load or
//! store sets the referenced bit and moves nothing; aging puts a referenced mapped page back at the active
//! head; and a referenced mapped page at the bottom of the evicting section is activated instead of
//! evicted (`shrink_list` runs on the page the paper's list hands it, so the kernel's check stays).
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
use crate::policy::two_list::{ActiveAging, AgingCredit, Mapped, EVICT_PASSES_MIN, EVICT_PASSES_PER_FRAME};
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
    /// By frame: `PG_referenced`, or a mapped page's accessed bit ([`crate::policy::TwoList`]).
    referenced: Vec<bool>,
    mapped: Mapped,
    aging: AgingCredit,
    demoted: u64,
    rotated: u64,
    activated: u64,
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
            mapped: Mapped::new(capacity),
            aging: AgingCredit::default(),
            demoted: 0,
            rotated: 0,
            activated: 0,
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
}

impl ActiveAging for DuloLinux {
    fn lens(&self) -> (u32, u32) {
        (self.active.len(), self.inactive.len())
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

    /// The active tail goes to the inactive list, marked demoted, keeping its referenced bit; or a mapped
    /// page kept active goes back to the active head ([`crate::policy::TwoList`]'s rule).
    fn demote_one(&mut self, reclaim_mapped: bool) {
        let frame = self.links.pop_back(&mut self.active).expect("demote from an empty active list");
        let f = frame as usize;
        if self.mapped.stays_active(frame, reclaim_mapped, &mut self.referenced[f]) {
            self.rotated += 1;
            self.links.push_front(&mut self.active, frame);
            return;
        }
        self.demoted += 1;
        self.active_bit[f] = false;
        // The sections kept its location when it was promoted out of them.
        self.inactive.readmit(frame, DEMOTED, self.buffer_max());
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
    /// The inactive list's top; referenced for a demand miss, unreferenced for a readahead page. An
    /// anonymous page starts at the active head, as under the two lists (it reaches DULO's sections
    /// demoted).
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        assert!(self.len() < self.capacity(), "insert into a full dulo-linux cache");
        let f = frame as usize;
        self.referenced[f] = !access.prefetch;
        self.active_bit[f] = self.mapped.insert(frame, access);
        if self.active_bit[f] {
            self.inactive.locate(frame, access.lbn);
            self.links.push_front(&mut self.active, frame);
        } else {
            self.inactive.admit(frame, access.lbn, NEW, self.buffer_max());
        }
    }
    /// `mark_page_accessed`: a referenced inactive page is promoted out of DULO's sections. A load or
    /// store to an anonymous page sets its accessed bit and moves nothing ([`crate::policy::TwoList`]).
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        if access.prefetch {
            return;
        }
        let f = frame as usize;
        if access.mapped {
            self.mapped.set(frame, true);
            self.referenced[f] = true;
            return;
        }
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
        // Bounded: see `EVICT_PASSES_PER_FRAME`.
        for _ in 0..EVICT_PASSES_PER_FRAME * self.links.capacity() as u64 + EVICT_PASSES_MIN {
            self.age();
            let Some(bottom) = self.inactive.bottom() else {
                continue; // aging put every page it scanned back on the active list
            };
            let f = bottom as usize;
            if self.mapped.get(bottom) && std::mem::take(&mut self.referenced[f]) {
                // `shrink_list`: a referenced mapped page is in active use (`activate_locked`).
                self.activated += 1;
                self.inactive.remove(bottom);
                self.active_bit[f] = true;
                self.links.push_front(&mut self.active, bottom);
                continue;
            }
            let victim = self.inactive.evict_bottom();
            debug_assert_eq!(victim, bottom);
            self.referenced[f] = false;
            self.mapped.set(victim, false);
            return victim;
        }
        unreachable!("dulo-linux eviction ran past its bound");
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
        self.mapped.set(frame, false);
    }
    fn pages_scanned(&self) -> u64 {
        self.demoted + self.rotated + self.activated
    }
    fn pages_aged(&self) -> u64 {
        self.demoted + self.rotated
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
