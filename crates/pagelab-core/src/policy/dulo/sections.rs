//! DULO's stack below the part a host policy keeps for itself: the staging section (correlation buffer,
//! sequencing bank) and the evicting section of sequences, with the block table and GreedyDual-Size
//! values. [`super::Dulo`] runs it as its whole stack (on CLOCK); [`super::DuloLinux`] as the Linux
//! inactive list (§4.2). The module doc of [`super`] describes the algorithm and its reconstruction.

use super::block_table::BlockTable;
use super::{DuloConfig, DuloStats, SequenceRule};
use crate::frames::FrameTable;
use crate::key::Lbn;
use crate::list::{Links, List, NIL};
use crate::policy::FrameId;

/// Where a frame's page is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Section {
    /// Not in the sections (untracked, or kept by the host: Linux's active list).
    Out = 0,
    Buffer,
    Bank,
    Evicting,
}

/// One sequence in the evicting section.
#[derive(Clone, Debug)]
struct Sequence {
    /// GreedyDual-Size value: smaller leaves first.
    h: f64,
    /// Its blocks, in disk order from the front.
    blocks: List,
}

/// Per-frame state the sections keep.
#[derive(Clone, Copy, Debug)]
struct FrameState {
    section: Section,
    /// The page's disk location (pages): kept while the page is out of the sections (promoted to Linux's
    /// active list, taken for a second chance), for its [`DualSections::readmit`].
    lbn: Lbn,
    /// Pages of different groups never join one sequence (§4.2: demoted active pages are marked and
    /// sequenced apart from newly accessed ones).
    group: u8,
    /// The order in which the frame entered the bank: ties among equal `H` go to the oldest first.
    arrival: u64,
    /// Its sequence in the evicting section, or [`NIL`].
    seq: u32,
    /// Its block's stamp before the current bank's (0: none), recorded when the bank is stamped: rule 3
    /// compares these.
    prev_stamp: u32,
}

const OUT: FrameState =
    FrameState { section: Section::Out, lbn: Lbn(0), group: 0, arrival: 0, seq: NIL, prev_stamp: 0 };

// SAFETY: integers and a `u8`-represented enum whose zero discriminant is `Section::Out`. A frame never
// admitted reads as zeroed: `Out`, as [`OUT`] (its `seq` differs, and is read only in the evicting
// section), so the frames' states are allocated zeroed (`crate::zeroed_vec`).
unsafe impl bytemuck::Zeroable for FrameState {}

#[derive(Clone, Debug)]
pub(super) struct DualSections {
    cfg: DuloConfig,
    bank_max: u32,
    sequence_max: u32,
    /// One links arena for the frames: each frame is in the buffer, the bank or one sequence's list.
    links: Links,
    /// Newest at the front.
    buffer: List,
    /// Newest at the front.
    bank: List,
    frames: Vec<FrameState>,
    arrivals: u64,
    /// The evicting section: sequences by id, linked bottom (front) to top (back).
    seqs: Vec<Sequence>,
    seq_links: Links,
    evicting: List,
    free_seqs: Vec<u32>,
    /// Frames in the sections.
    len: u32,
    /// GreedyDual-Size's inflation value `L`: the `H` of the most recently evicted sequence.
    inflation: f64,
    /// The sequence the last victim came from ([`NIL`]: none, or it is gone).
    victim_seq: u32,
    table: BlockTable,
    clock: u32,
    /// Sequencings between block-table reclamations.
    reclaim_window: u32,
    stats: DuloStats,
    /// Scratch for sequencing.
    walk: Vec<Lbn>,
    sorted: Vec<(Lbn, u64, FrameId)>,
}

impl DualSections {
    /// Sections for `capacity` frames; the bank holds at most `capacity` of them.
    pub fn new(capacity: u32, cfg: DuloConfig) -> DualSections {
        let bank_max = cfg.bank_pages.clamp(1, capacity);
        let sequence_max = if cfg.sequence_pages_max == 0 { bank_max } else { cfg.sequence_pages_max };
        DualSections {
            bank_max,
            sequence_max,
            links: Links::new(capacity),
            buffer: List::new(),
            bank: List::new(),
            frames: crate::zeroed_vec(capacity as usize),
            arrivals: 0,
            seqs: Vec::new(),
            seq_links: Links::new(0),
            evicting: List::new(),
            free_seqs: Vec::new(),
            len: 0,
            inflation: 0.0,
            victim_seq: NIL,
            table: BlockTable::new(),
            clock: 0,
            reclaim_window: 2 * capacity.div_ceil(bank_max),
            stats: DuloStats::default(),
            walk: Vec::new(),
            sorted: Vec::new(),
            cfg,
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn section(&self, frame: FrameId) -> Section {
        self.frames[frame as usize].section
    }

    pub fn stats(&self) -> DuloStats {
        DuloStats { table_bytes: self.table.bytes(), table_bytes_max: self.table.bytes_max(), ..self.stats }
    }

    pub fn count_second_chance(&mut self) {
        self.stats.second_chances += 1;
    }

    /// The page in `frame` (at disk location `lbn`, of sequencing group `group`) enters the top of the
    /// correlation buffer; the blocks beyond `buffer_max` at the buffer's bottom go to the bank, and a bank
    /// that has received `BANK_MAX` blocks is sequenced. Caller guarantees `frame` is not in the sections.
    pub fn admit(&mut self, frame: FrameId, lbn: Lbn, group: u8, buffer_max: u32) {
        let f = &mut self.frames[frame as usize];
        assert_eq!(f.section, Section::Out, "frame {frame} admitted twice");
        *f = FrameState { section: Section::Buffer, lbn, group, ..OUT };
        self.len += 1;
        self.links.push_front(&mut self.buffer, frame);
        while self.buffer.len() > buffer_max {
            let f = self.links.pop_back(&mut self.buffer).expect("the buffer is over its size");
            self.enter_bank(f);
        }
    }

    /// Records the disk location of the page in `frame`, which is not in the sections (a page that starts
    /// on the active list), for its [`DualSections::readmit`]. Caller guarantees `frame` is not in the
    /// sections.
    pub fn locate(&mut self, frame: FrameId, lbn: Lbn) {
        let f = &mut self.frames[frame as usize];
        assert_eq!(f.section, Section::Out, "frame {frame} located while in the sections");
        *f = FrameState { lbn, ..OUT };
    }

    /// Admits again the page in `frame`, which left the sections ([`DualSections::remove`]), at the disk
    /// location it was last admitted with.
    pub fn readmit(&mut self, frame: FrameId, group: u8, buffer_max: u32) {
        let lbn = self.frames[frame as usize].lbn;
        self.admit(frame, lbn, group, buffer_max);
    }

    fn enter_bank(&mut self, frame: FrameId) {
        let f = &mut self.frames[frame as usize];
        f.section = Section::Bank;
        f.arrival = self.arrivals;
        self.arrivals += 1;
        self.links.push_front(&mut self.bank, frame);
        if self.bank.len() >= self.bank_max {
            self.sequence_bank();
        }
    }

    /// Takes `frame` out of the sections (a second chance, a promotion, a removal); its location stays
    /// for a [`DualSections::readmit`].
    pub fn remove(&mut self, frame: FrameId) {
        match self.frames[frame as usize].section {
            Section::Out => panic!("frame {frame} is not in DULO's sections"),
            Section::Buffer => self.links.remove(&mut self.buffer, frame),
            Section::Bank => self.links.remove(&mut self.bank, frame),
            Section::Evicting => self.leave_sequence(frame),
        }
        let lbn = self.frames[frame as usize].lbn;
        self.frames[frame as usize] = FrameState { lbn, ..OUT };
        self.len -= 1;
    }

    /// The frame at the bottom of the evicting section (refilled from the staging section when it is
    /// empty), or `None` when the sections are empty.
    pub fn bottom(&mut self) -> Option<FrameId> {
        if self.len == 0 {
            return None;
        }
        if self.evicting.is_empty() {
            self.refill();
        }
        let seq = self.evicting.front().expect("a refill gives the evicting section a sequence");
        Some(self.seqs[seq as usize].blocks.front().expect("sequences are not empty"))
    }

    /// Evicts the bottom frame ([`DualSections::bottom`]): `L` becomes its sequence's `H` when the
    /// sequence gives its first victim.
    pub fn evict_bottom(&mut self) -> FrameId {
        let frame = self.bottom().expect("evict from empty DULO sections");
        let seq = self.frames[frame as usize].seq;
        if self.victim_seq != seq {
            self.victim_seq = seq;
            debug_assert!(self.seqs[seq as usize].h >= self.inflation, "L never decreases");
            self.inflation = self.seqs[seq as usize].h;
        }
        self.remove(frame);
        frame
    }

    /// Refills an empty evicting section from the staging section: the bank as it is, after taking the
    /// buffer's bottom block if the bank is empty.
    fn refill(&mut self) {
        if self.bank.is_empty() {
            let f =
                self.links.pop_back(&mut self.buffer).expect("the sections hold pages, so staging has some");
            self.enter_bank(f); // sequences the bank itself when BANK_MAX is one
        }
        self.sequence_bank();
        debug_assert!(!self.evicting.is_empty(), "a refill gives the evicting section a sequence");
    }

    /// Forms sequences from the bank and merges them into the evicting section (§3.2, §3.3).
    fn sequence_bank(&mut self) {
        if self.bank.is_empty() {
            return;
        }
        self.clock = self.clock.checked_add(1).expect("bank clock overflow");
        self.stats.sequencings += 1;
        self.stamp_and_sort_bank();
        let sorted = std::mem::take(&mut self.sorted);
        let mut new: Vec<(f64, u64, u32)> = Vec::new();
        let mut i = 0;
        while i < sorted.len() {
            let mut j = i + 1;
            while j < sorted.len()
                && (j - i) < self.sequence_max as usize
                && self.joins(sorted[j - 1].2, sorted[j].2)
            {
                j += 1;
            }
            let id = self.new_sequence();
            let mut blocks = List::new();
            for &(_, _, frame) in &sorted[i..j] {
                let f = &mut self.frames[frame as usize];
                f.section = Section::Evicting;
                f.seq = id;
                self.links.push_back(&mut blocks, frame);
            }
            let h = self.inflation + 1.0 / (j - i) as f64;
            self.seqs[id as usize] = Sequence { h, blocks };
            let oldest = sorted[i..j].iter().map(|s| s.1).min().expect("a sequence has a block");
            new.push((h, oldest, id));
            i = j;
        }
        self.stats.blocks_sequenced += sorted.len() as u64;
        self.stats.sequences += new.len() as u64;
        self.sorted = sorted;
        // Bottom first: smallest H, then the oldest arrival.
        new.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        self.merge(&new);
        if self.clock.is_multiple_of(self.reclaim_window) {
            self.table.reclaim(self.clock.saturating_sub(self.reclaim_window) + 1);
        }
    }

    /// Empties the bank into `self.sorted` by disk location (then arrival), stamping each block in the
    /// block table (and noting its previous stamp); checks the table's walk yields the same disk order.
    fn stamp_and_sort_bank(&mut self) {
        let clock = self.clock;
        self.sorted.clear();
        while let Some(frame) = self.links.pop_back(&mut self.bank) {
            let f = &mut self.frames[frame as usize];
            if BlockTable::covers(f.lbn) {
                f.prev_stamp = self.table.stamp(f.lbn, clock);
            }
            self.sorted.push((f.lbn, f.arrival, frame));
        }
        self.sorted.sort_unstable();
        self.walk.clear();
        self.stats.table_entries_walked += self.table.walk_current(clock, &mut self.walk);
        // Two paths to the bank's disk order (the table's walk, the sort) must agree, duplicates aside.
        let mut walked = self.walk.iter();
        let mut last = None;
        for lbn in self.sorted.iter().map(|s| s.0).filter(|&l| BlockTable::covers(l)) {
            if last != Some(lbn) {
                assert_eq!(walked.next(), Some(&lbn), "the block table's walk and the bank disagree");
            }
            last = Some(lbn);
        }
        assert_eq!(walked.next(), None, "the block table's walk found a block outside the bank");
    }

    /// Whether the page in frame `b`, the next current block after frame `a`'s in disk order, joins
    /// `a`'s sequence.
    fn joins(&mut self, a: FrameId, b: FrameId) -> bool {
        let (fa, fb) = (self.frames[a as usize], self.frames[b as usize]);
        if fa.group != fb.group || !BlockTable::covers(fa.lbn) || !BlockTable::covers(fb.lbn) {
            return false;
        }
        if fb.lbn.0 != fa.lbn.0 + 1 {
            return false;
        }
        if let Some(tracks) = &self.cfg.tracks {
            if !tracks.same_track(fa.lbn) {
                return false;
            }
        }
        // Counted under either rule, so that a run with adjacency alone says what rule 3 would have cut.
        let differ = fa.prev_stamp != fb.prev_stamp;
        self.stats.adjacent_pairs += 1;
        self.stats.adjacent_pairs_stamps_differ += u64::from(differ);
        match self.cfg.rule {
            SequenceRule::Adjacent => true,
            SequenceRule::Stable => !differ,
        }
    }

    fn new_sequence(&mut self) -> u32 {
        match self.free_seqs.pop() {
            Some(id) => id,
            None => {
                self.seqs.push(Sequence { h: 0.0, blocks: List::new() });
                let id = (self.seqs.len() - 1) as u32;
                self.seq_links.grow(id + 1);
                id
            }
        }
    }

    /// Merges `new` (sorted bottom first) into the evicting section from its top down: each new sequence
    /// goes above the highest old one whose `H` is not larger (a tie leaves the older sequence below).
    fn merge(&mut self, new: &[(f64, u64, u32)]) {
        let mut below = self.evicting.back();
        for &(h, _, id) in new.iter().rev() {
            while let Some(old) = below {
                self.stats.merge_comparisons += 1;
                if self.seqs[old as usize].h <= h {
                    break;
                }
                below = self.seq_links.prev(old);
            }
            match below {
                Some(old) => self.seq_links.insert_after(&mut self.evicting, old, id),
                None => self.seq_links.push_front(&mut self.evicting, id),
            }
        }
    }

    /// Takes `frame` out of its sequence, freeing the sequence when it is left empty.
    fn leave_sequence(&mut self, frame: FrameId) {
        let id = self.frames[frame as usize].seq;
        let mut blocks = self.seqs[id as usize].blocks;
        self.links.remove(&mut blocks, frame);
        self.seqs[id as usize].blocks = blocks;
        if blocks.is_empty() {
            self.seq_links.remove(&mut self.evicting, id);
            self.free_seqs.push(id);
            if self.victim_seq == id {
                self.victim_seq = NIL;
            }
        }
    }

    /// `C=[…] B=[…] E=[{…}h …]`: the correlation buffer and the bank newest first, the evicting section
    /// top first (each sequence's blocks in disk order, then its `H`); `mark` decorates a frame's key.
    pub fn state(&self, table: &FrameTable, mark: impl Fn(FrameId) -> &'static str) -> String {
        let keys = |list: &List| {
            let keys: Vec<String> =
                self.links.iter(list).map(|f| format!("{}{}", table.key(f), mark(f))).collect();
            keys.join(" ")
        };
        let seqs: Vec<String> = self
            .seq_links
            .iter_back(&self.evicting)
            .map(|id| format!("{{{}}}{}", keys(&self.seqs[id as usize].blocks), self.seqs[id as usize].h))
            .collect();
        format!("C=[{}] B=[{}] E=[{}]", keys(&self.buffer), keys(&self.bank), seqs.join(" "))
    }
}
