//! DULO: dual-locality replacement on CLOCK (Jiang, Ding, Chen, Tan, Zhang, "DULO: an effective buffer
//! cache management scheme to exploit both temporal and spatial locality", FAST 2005; papers/001 §3).
//!
//! Replacement policies minimise misses; a disk cares how many positionings the misses cost. DULO keeps
//! random blocks in preference to sequential blocks of similar recency, so that the misses that reach the
//! disk come in long sequential runs (which readahead then fetches in one request each).
//!
//! ## The structure (§3.1)
//!
//! The stack is cut into a **staging section** on top and an **evicting section** below it. The staging
//! section is a [`CorrelationBuffer`](Dulo) of fixed size (newly admitted blocks enter its top) followed by
//! the [`SequencingBank`](Dulo), which receives the blocks leaving the buffer's bottom and holds up to
//! `BANK_MAX` of them. When the bank has received `BANK_MAX` blocks it is **sequenced**: the bank clock
//! ticks, every bank block is stamped with it in the [`BlockTable`], the table is walked in disk order to
//! form sequences of the current blocks, each sequence `s` gets the value `H(s) = L + 1/size(s)`
//! (GreedyDual-Size with one cost for every sequence, §3.3; `L` is the value of the most recently evicted
//! sequence), and the new sequences are merge-sorted into the evicting section, smallest `H` at the bottom.
//! The victim is the bottom sequence's block. "When all sequences are random blocks (i.e., their sizes
//! are 1), the algorithm degenerates into the LRU replacement algorithm": here, into CLOCK exactly (a test
//! replays random references through both).
//!
//! **On CLOCK** (§3.3): "when a block is hit, it is only flagged as young block without being moved to the
//! stack top. When a block has to be replaced, the block at the stack bottom is examined. If it is a young
//! block, it is moved to the stack top and its young block status is revoked." A young block at the bottom
//! of the evicting section goes back to the top of the correlation buffer, from where it is sequenced again
//! with the blocks of its new bank. Only misses (and such second chances) move blocks.
//!
//! **Section sizes.** The paper gives the bank's maximum (`BANK_MAX`, 8 MiB by default) and the evicting
//! section's size (64 MiB), and says the correlation buffer's size is fixed without giving it. Its
//! description of the stack fixes the rest: "we start with an LRU stack whose staging section consists of
//! only the correlation buffer (the size of the sequencing bank is 0), and the evicting section holds the
//! rest of the stack"; the bank then grows as blocks leave the evicting section, until `BANK_MAX` of them
//! have. So the evicting section is at its stated size just after a refill and `BANK_MAX` smaller just
//! before the next, and the correlation buffer is `capacity − evicting` (none when the cache is not larger
//! than the evicting section). §4.1.3 confirms it: "a bank size must be less than the evicting section
//! size. When the bank size approaches the section size, the performance will degrade … a large bank size
//! causes the evicting section to be refilled too late and causes the random blocks in it to have to be
//! evicted" — which happens only if the section drains by the bank's size between refills. (The same
//! paragraph calls the parameter "the (minimal) evicting size"; a first version of this module read that
//! as the size just before a refill, `capacity − BANK_MAX − evicting` of buffer, under which a bank can
//! never drain the section and §4.1.3's degradation cannot occur.) With the paper's 8 + 64 MiB in a
//! 160 MiB cache the buffer is 96 MiB.
//!
//! ## Forming sequences (a reconstruction)
//!
//! Our copy of the paper lost the list of stability conditions of §3.2 and Figure 2's pseudocode, and no
//! copy reachable here has them. What survives: a sequence is "a number of blocks whose disk locations are
//! adjacent and have been accessed during a limited time period"; while walking the table, "the last block
//! of a developing sequence should not be coalesced with the next block in the table if the next block
//! belongs to one of the following cases: \[lost\]"; footnote 4 (§4.2) explains why the last stamps matter:
//! "two spatially sequential but temporally remote pages can possibly be grouped into one sequence"; a
//! track boundary breaks adjacency ("we also artificially place a dummy block between the blocks on a track
//! boundary"); sizes are "limited by bank size". From these, [`SequenceRule::Stable`] (the default): block
//! `b` joins the developing sequence that ends with block `a` only if
//! 1. both are in the current bank (stamped with the current clock: the walk yields only those);
//! 2. `b` is the disk block right after `a` and no track boundary lies between them ([`TrackMap`]);
//! 3. their previous stamps agree: not exactly one of them has one, and if both have, they are equal
//!    (blocks last sequenced in different banks were accessed at different times);
//! 4. the sequence is shorter than the maximum sequence size (default: `BANK_MAX`, the paper's bound).
//!
//! [`SequenceRule::Adjacent`] keeps 1, 2 and 4 only; `pagelab experiment dulo` measures the difference.
//!
//! ## Departures, and why
//! - **Eviction one block at a time.** §3 evicts sequences; [`Replacement::evict`] returns one frame, and
//!   the victim sequence's blocks are the next victims until it is gone: its `H` equals `L` from its first
//!   eviction on, and every sequence merged later has `H = L' + 1/size > L`, so nothing can get below the
//!   rest of a partly evicted sequence. The decisions are those of evicting it whole; only the moment its
//!   frames come free differs (a reclaim batch of 32 frees a sequence of up to 32 blocks at once). The one
//!   difference in decisions: a block of a partly evicted sequence hit meanwhile becomes young and gets its
//!   second chance, where whole eviction would already have dropped it.
//! - **Empty evicting section.** While the cache fills, or when second chances have drained the evicting
//!   section, a victim is needed before the bank is full: the bank is sequenced as it is, after taking
//!   blocks from the buffer's bottom if it is empty (the paper's cache starts full).
//! - **Prefetched pages** (the `Replacement` contract): a readahead page enters the correlation buffer
//!   like a demanded one but marked unused; its first use is its first reference (it becomes an ordinary
//!   page), its second makes it young — as in [`super::Clock`], so that the two make the same decisions.
//! - **Block table reclamation.** The paper reclaims the table "when system memory pressure is too high"
//!   with a threshold it does not give. We reclaim every `window` sequencings, `window` = twice the banks
//!   a cache holds (`2 × ⌈capacity / BANK_MAX⌉`), dropping the subtrees not stamped within the last
//!   `window` banks. A block not sequenced for two cache turnovers has usually left the cache, and its
//!   stamps then matter only to rule 3 if it comes back; one DULO kept that long (a random block near the
//!   top of the evicting section) loses its previous stamp too, which rule 3 reads when it is next
//!   sequenced. The table's memory stays bounded by the blocks of the last `window` banks.
//!
//! Costs (§4.1.3): "a miss is associated with one block sequencing operation … and 1.7 merge sort
//! comparison operations in average": [`DuloStats`] counts the comparisons, the blocks sequenced and the
//! table's bytes.

mod block_table;
mod linux;
mod sections;
#[cfg(test)]
mod tests;

pub use block_table::BlockTable;
pub use linux::DuloLinux;

use super::{Access, FrameId, History, Replacement};
use crate::frames::{FrameTable, Shadows};
use crate::key::Lbn;
use crate::PAGE_SIZE_BYTES;
use sections::{DualSections, Section};
use std::sync::Arc;

/// How sequences are formed from the bank (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SequenceRule {
    /// Adjacent on disk, same track, and the same previous stamps (the reconstruction of §3.2).
    #[default]
    Stable,
    /// Adjacent on disk and on the same track only.
    Adjacent,
}

impl SequenceRule {
    pub fn name(self) -> &'static str {
        match self {
            SequenceRule::Stable => "stable",
            SequenceRule::Adjacent => "adjacent",
        }
    }

    pub fn parse(text: &str) -> Option<SequenceRule> {
        match text.to_ascii_lowercase().as_str() {
            "stable" => Some(SequenceRule::Stable),
            "adjacent" => Some(SequenceRule::Adjacent),
            _ => None,
        }
    }
}

/// A disk's tracks, for rule 2: which 4 KiB blocks start on the same track. The sectors (512 bytes) at
/// which tracks start, as the drive's mapping (zones, skews, spared sectors) places them; a block's
/// track is the track of its first sector. §4.2 extracted the boundaries from the drive ("we use the
/// technique described in \[33\] to extract track boundaries"); the simulator reads them from its disk
/// model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackMap {
    /// Increasing; the first is 0.
    starts: Vec<u64>,
}

impl TrackMap {
    /// Sectors (512 bytes) per 4 KiB block.
    const SECTORS_PER_BLOCK: u64 = PAGE_SIZE_BYTES / 512;

    /// Caller guarantees the starts begin at sector 0 and increase.
    pub fn new(starts: Vec<u64>) -> TrackMap {
        assert!(starts.first() == Some(&0), "the first track starts at sector 0");
        assert!(starts.windows(2).all(|w| w[0] < w[1]), "track starts increase");
        TrackMap { starts }
    }

    /// Tracks of `sectors_per_track` sectors up to `sectors` (tests, and disks without zones).
    pub fn uniform(sectors_per_track: u64, sectors: u64) -> TrackMap {
        assert!(sectors_per_track >= 1, "tracks of at least one sector");
        TrackMap::new((0..sectors.max(1)).step_by(sectors_per_track as usize).collect())
    }

    pub fn tracks(&self) -> usize {
        self.starts.len()
    }

    fn track(&self, lbn: Lbn) -> usize {
        let sector = lbn.0.saturating_mul(Self::SECTORS_PER_BLOCK);
        self.starts.partition_point(|&first| first <= sector)
    }

    /// Whether blocks `a` and `a + 1` start on the same track.
    pub fn same_track(&self, a: Lbn) -> bool {
        self.track(a) == self.track(Lbn(a.0.saturating_add(1)))
    }
}

/// DULO's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DuloConfig {
    /// `BANK_MAX`, in pages.
    pub bank_pages: u32,
    /// The evicting section's size after a refill (it drains by up to the bank's size before the next), in
    /// pages; the correlation buffer is the rest of the cache.
    pub evicting_pages: u32,
    pub rule: SequenceRule,
    /// The longest sequence, in pages; 0: `bank_pages`.
    pub sequence_pages_max: u32,
    /// Track boundaries break sequences; `None`: the disk is one track (no boundaries).
    pub tracks: Option<Arc<TrackMap>>,
}

impl DuloConfig {
    /// The paper's defaults (§4.1.2): an 8 MiB bank, a 64 MiB evicting section.
    pub const BANK_BYTES: u64 = 8 << 20;
    pub const EVICTING_BYTES: u64 = 64 << 20;
    /// "Only in the cases where the demanded memory size is less than 80MB (such as for viewperf), we set
    /// the sequencing bank size as 4MB, and evicting section size as 16MB."
    pub const SMALL_BANK_BYTES: u64 = 4 << 20;
    pub const SMALL_EVICTING_BYTES: u64 = 16 << 20;
    pub const SMALL_BELOW_BYTES: u64 = 80 << 20;

    /// A bank and an evicting section of these sizes (rounded down to pages, at least one page of bank),
    /// the stable rule, no track map.
    pub fn of_bytes(bank_bytes: u64, evicting_bytes: u64) -> DuloConfig {
        let pages = |b: u64| (b / PAGE_SIZE_BYTES).min(u32::MAX as u64) as u32;
        DuloConfig {
            bank_pages: pages(bank_bytes).max(1),
            evicting_pages: pages(evicting_bytes),
            rule: SequenceRule::Stable,
            sequence_pages_max: 0,
            tracks: None,
        }
    }
}

impl Default for DuloConfig {
    fn default() -> Self {
        DuloConfig::of_bytes(DuloConfig::BANK_BYTES, DuloConfig::EVICTING_BYTES)
    }
}

/// What DULO did, for the overhead report (§4.1.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DuloStats {
    /// Banks sequenced (the bank clock).
    pub sequencings: u64,
    /// Blocks placed into the block table and compared with their neighbour.
    pub blocks_sequenced: u64,
    /// Sequences formed.
    pub sequences: u64,
    /// `H` comparisons of the merge into the evicting section.
    pub merge_comparisons: u64,
    /// Directory and leaf entries the sequencing walks examined.
    pub table_entries_walked: u64,
    /// The block table's size now and at most, in bytes.
    pub table_bytes: u64,
    pub table_bytes_max: u64,
    /// Young blocks given their second chance at the bottom.
    pub second_chances: u64,
    /// Current blocks disk-adjacent on one track to the block before them (pairs rules 1, 2 and 4 allow),
    /// and among them those whose previous stamps differ: the pairs rule 3 cuts under the stable rule
    /// (counted under either rule).
    pub adjacent_pairs: u64,
    pub adjacent_pairs_stamps_differ: u64,
}

impl DuloStats {
    /// The counts since `start` (an earlier snapshot of the same policy); the table's sizes stay as they
    /// are (a size now and a maximum are not counts).
    pub fn since(&self, start: &DuloStats) -> DuloStats {
        DuloStats {
            sequencings: self.sequencings - start.sequencings,
            blocks_sequenced: self.blocks_sequenced - start.blocks_sequenced,
            sequences: self.sequences - start.sequences,
            merge_comparisons: self.merge_comparisons - start.merge_comparisons,
            table_entries_walked: self.table_entries_walked - start.table_entries_walked,
            second_chances: self.second_chances - start.second_chances,
            adjacent_pairs: self.adjacent_pairs - start.adjacent_pairs,
            adjacent_pairs_stamps_differ: self.adjacent_pairs_stamps_differ
                - start.adjacent_pairs_stamps_differ,
            ..*self
        }
    }
}

/// DULO on CLOCK (§3): the whole stack is `sections::DualSections`; hits set a young bit, and a young
/// block at the bottom of the evicting section goes back to the top of the correlation buffer.
#[derive(Clone, Debug)]
pub struct Dulo {
    sections: DualSections,
    capacity: u32,
    /// The correlation buffer's fixed size, in frames.
    buffer_max: u32,
    /// By frame: hit since it last entered the stack's top.
    young: Vec<bool>,
    /// By frame: inserted by readahead and not used yet.
    unused: Vec<bool>,
}

impl Dulo {
    /// DULO with the paper's default sections for `capacity` frames.
    pub fn new(capacity: u32) -> Dulo {
        Dulo::with_config(capacity, DuloConfig::default())
    }

    /// Caller guarantees `capacity >= 1`.
    pub fn with_config(capacity: u32, cfg: DuloConfig) -> Dulo {
        assert!(capacity >= 1, "DULO needs at least one frame");
        let buffer_max = capacity.saturating_sub(cfg.evicting_pages);
        let sections = DualSections::new(capacity, cfg);
        Dulo {
            sections,
            capacity,
            buffer_max,
            young: vec![false; capacity as usize],
            unused: vec![false; capacity as usize],
        }
    }

    pub fn stats(&self) -> DuloStats {
        self.sections.stats()
    }
}

impl Replacement for Dulo {
    fn name(&self) -> &'static str {
        "DULO"
    }
    fn capacity(&self) -> u32 {
        self.capacity
    }
    fn len(&self) -> u32 {
        self.sections.len()
    }
    fn on_insert(&mut self, frame: FrameId, access: &Access, _: History, _: &mut Shadows<'_>) {
        self.unused[frame as usize] = access.prefetch;
        self.young[frame as usize] = false;
        self.sections.admit(frame, access.lbn, 0, self.buffer_max);
    }
    fn on_hit(&mut self, frame: FrameId, access: &Access, _: &mut Shadows<'_>) {
        let f = frame as usize;
        debug_assert_ne!(self.sections.section(frame), Section::Out, "hit on untracked frame {frame}");
        if access.prefetch {
            return;
        }
        if self.unused[f] {
            self.unused[f] = false;
        } else {
            self.young[f] = true;
        }
    }
    fn evict(&mut self, _: History, _: &mut Shadows<'_>) -> FrameId {
        assert!(!self.is_empty(), "evict from an empty DULO");
        // Each pass evicts or revokes a young bit; a block is young at most once per hit since it last
        // moved, so at most `len` passes revoke before one evicts.
        for _ in 0..=self.len() {
            let frame = self.sections.bottom().expect("DULO tracks pages");
            if !self.young[frame as usize] {
                let victim = self.sections.evict_bottom();
                debug_assert_eq!(victim, frame);
                self.unused[frame as usize] = false;
                return victim;
            }
            self.young[frame as usize] = false;
            self.sections.count_second_chance();
            self.sections.remove(frame);
            self.sections.readmit(frame, 0, self.buffer_max);
        }
        unreachable!("DULO found no victim among {} pages", self.len());
    }
    fn on_remove(&mut self, frame: FrameId, _: &mut Shadows<'_>) {
        self.sections.remove(frame);
        self.young[frame as usize] = false;
        self.unused[frame as usize] = false;
    }
    fn pages_scanned(&self) -> u64 {
        self.sections.stats().second_chances
    }
    /// `C=[…] B=[…] E=[{…}h …]`: the correlation buffer and the bank newest first, the evicting section
    /// top first (each sequence's blocks in disk order, then its `H`); `*` young, `+` prefetched unused.
    fn state(&self, table: &FrameTable) -> String {
        self.sections.state(table, |f| {
            if self.young[f as usize] {
                "*"
            } else if self.unused[f as usize] {
                "+"
            } else {
                ""
            }
        })
    }
}
