//! DULO's block table (papers/001 §3.2): the times of recent accesses of disk blocks, indexed by disk
//! location, in the shape of a multi-level page table.
//!
//! "The block table is analogous in structure to the multi-level page table … the block table covers disk
//! space in the unit of block, and block disk location is an index into the table … used to provide the
//! times of recent accesses for a given disk block." A leaf entry (the paper's BTE) holds "at most two most
//! recent access times"; "each time the block table is looked up in a hierarchical way to record a new
//! access time, the time is also recorded as a timestamp in each directory entry that has been passed", so
//! that a directory entry holds the newest stamp below it: sequencing visits only the directories stamped
//! with the current bank clock, and reclamation drops a directory whose stamp is older than a threshold
//! with everything under it. Entries are allocated on demand.
//!
//! Shape (ours; the paper gives none): [`LEVELS`] levels of [`FANOUT`] entries, five directory levels and a
//! leaf level, covering 2^36 pages (256 TiB of 4 KiB blocks). A node is 64 entries of two `u32`s, 512 bytes,
//! so that a sparse table (random blocks) costs 512 bytes per touched leaf rather than 4 KiB as a
//! 512-entry page-table node would. A location beyond 2^36 pages has no entry: the policy treats such a page
//! as a random block. So is [`crate::key::Lbn::NONE`], the location of an anonymous page never swapped
//! (§4.2 treats anonymous pages "that do not yet have mappings on disk … as random blocks").
//!
//! Stamps are bank-clock values from 1; 0 means "no stamp".

use crate::key::Lbn;
use crate::list::NIL;

/// Bits of the location each level indexes.
const BITS: u32 = 6;
/// Entries per node.
pub const FANOUT: usize = 1 << BITS;
/// Levels, the leaf level included.
pub const LEVELS: u32 = 6;
/// Locations the table covers: `0..LBN_LIMIT`.
pub const LBN_LIMIT: u64 = 1 << (BITS * LEVELS);
/// Bytes of one node (directory or leaf): 64 entries of two `u32`s.
pub const NODE_BYTES: u64 = (FANOUT * 8) as u64;

/// A directory node: per entry, the newest stamp below it and the child node (or [`NIL`]).
#[derive(Clone, Debug)]
struct Dir {
    stamp: [u32; FANOUT],
    child: [u32; FANOUT],
}

/// A leaf node: per block, the previous and the last stamp (the BTE's two access times).
#[derive(Clone, Debug)]
struct Leaf {
    prev: [u32; FANOUT],
    last: [u32; FANOUT],
}

const EMPTY_DIR: Dir = Dir { stamp: [0; FANOUT], child: [NIL; FANOUT] };
const EMPTY_LEAF: Leaf = Leaf { prev: [0; FANOUT], last: [0; FANOUT] };

#[derive(Clone, Debug)]
pub struct BlockTable {
    /// `dirs[0]` is the root; freed nodes are kept for reuse in `free_dirs`.
    dirs: Vec<Dir>,
    leaves: Vec<Leaf>,
    free_dirs: Vec<u32>,
    free_leaves: Vec<u32>,
    /// The most nodes ever in use at once, for the overhead report.
    nodes_max: u64,
}

impl Default for BlockTable {
    fn default() -> Self {
        BlockTable::new()
    }
}

/// The entry index of `lbn` at `level` (0 = root).
fn slot(lbn: u64, level: u32) -> usize {
    ((lbn >> (BITS * (LEVELS - 1 - level))) as usize) & (FANOUT - 1)
}

impl BlockTable {
    pub fn new() -> BlockTable {
        BlockTable {
            dirs: vec![EMPTY_DIR],
            leaves: Vec::new(),
            free_dirs: Vec::new(),
            free_leaves: Vec::new(),
            nodes_max: 1,
        }
    }

    /// Whether `lbn` has an entry in the table (a disk location the table covers).
    pub fn covers(lbn: Lbn) -> bool {
        lbn.0 < LBN_LIMIT
    }

    /// Nodes in use now.
    pub fn nodes(&self) -> u64 {
        (self.dirs.len() - self.free_dirs.len() + self.leaves.len() - self.free_leaves.len()) as u64
    }

    /// Bytes the table's nodes in use take now.
    pub fn bytes(&self) -> u64 {
        self.nodes() * NODE_BYTES
    }

    /// The most bytes the table ever took.
    pub fn bytes_max(&self) -> u64 {
        self.nodes_max * NODE_BYTES
    }

    fn new_dir(&mut self) -> u32 {
        match self.free_dirs.pop() {
            Some(d) => d,
            None => {
                self.dirs.push(EMPTY_DIR);
                (self.dirs.len() - 1) as u32
            }
        }
    }

    fn new_leaf(&mut self) -> u32 {
        match self.free_leaves.pop() {
            Some(l) => l,
            None => {
                self.leaves.push(EMPTY_LEAF);
                (self.leaves.len() - 1) as u32
            }
        }
    }

    /// Records an access at bank clock `clock` (>= 1, never older than a stamp already recorded) for
    /// block `lbn`, allocating the nodes on its path, and stamps every directory entry passed; returns the
    /// block's stamp before `clock` (0: none), what [`BlockTable::stamps`] would now give first. A second
    /// stamp of the same clock changes nothing. Caller guarantees `covers(lbn)`.
    pub fn stamp(&mut self, lbn: Lbn, clock: u32) -> u32 {
        assert!(Self::covers(lbn) && clock >= 1, "stamp {clock} at {lbn:?}");
        let lbn = lbn.0;
        let mut dir = 0u32;
        for level in 0..LEVELS - 1 {
            let s = slot(lbn, level);
            debug_assert!(self.dirs[dir as usize].stamp[s] <= clock, "stamps go forward");
            self.dirs[dir as usize].stamp[s] = clock;
            let mut child = self.dirs[dir as usize].child[s];
            if child == NIL {
                child = if level == LEVELS - 2 { self.new_leaf() } else { self.new_dir() };
                self.dirs[dir as usize].child[s] = child;
            }
            if level == LEVELS - 2 {
                let leaf = &mut self.leaves[child as usize];
                let e = slot(lbn, LEVELS - 1);
                if leaf.last[e] != clock {
                    leaf.prev[e] = leaf.last[e];
                    leaf.last[e] = clock;
                }
                let prev = leaf.prev[e];
                self.nodes_max = self.nodes_max.max(self.nodes());
                return prev;
            }
            dir = child;
        }
        unreachable!("the loop returns at the leaf level")
    }

    /// The block's two stamps `(previous, last)`, 0 for none; `(0, 0)` for a block without an entry.
    pub fn stamps(&self, lbn: Lbn) -> (u32, u32) {
        if !Self::covers(lbn) {
            return (0, 0);
        }
        let lbn = lbn.0;
        let mut dir = 0u32;
        for level in 0..LEVELS - 1 {
            let child = self.dirs[dir as usize].child[slot(lbn, level)];
            if child == NIL {
                return (0, 0);
            }
            if level == LEVELS - 2 {
                let leaf = &self.leaves[child as usize];
                let e = slot(lbn, LEVELS - 1);
                return (leaf.prev[e], leaf.last[e]);
            }
            dir = child;
        }
        unreachable!("the loop returns at the leaf level")
    }

    /// Appends to `out`, in increasing disk order, every block whose last stamp is `clock`, visiting only
    /// the directory entries stamped `clock` (§3.2: "the traversal goes into only those directories
    /// containing the blocks in the bank"). Returns the entries examined (the walk's cost).
    pub fn walk_current(&self, clock: u32, out: &mut Vec<Lbn>) -> u64 {
        let mut examined = 0;
        self.walk_dir(0, 0, 0, clock, out, &mut examined);
        examined
    }

    fn walk_dir(
        &self,
        dir: u32,
        level: u32,
        prefix: u64,
        clock: u32,
        out: &mut Vec<Lbn>,
        examined: &mut u64,
    ) {
        let d = &self.dirs[dir as usize];
        for s in 0..FANOUT {
            *examined += 1;
            if d.stamp[s] != clock {
                continue;
            }
            let child = d.child[s];
            debug_assert_ne!(child, NIL, "a stamped entry has a child");
            let p = (prefix << BITS) | s as u64;
            if level == LEVELS - 2 {
                let leaf = &self.leaves[child as usize];
                for e in 0..FANOUT {
                    *examined += 1;
                    if leaf.last[e] == clock {
                        out.push(Lbn((p << BITS) | e as u64));
                    }
                }
            } else {
                self.walk_dir(child, level + 1, p, clock, out, examined);
            }
        }
    }

    /// Drops every subtree whose newest stamp is older than `threshold` (§3.2: "the system will remove a
    /// directory once it finds its timestamp is smaller than the threshold, and all the subdirectories
    /// and BTEs under it"). Returns the nodes freed.
    pub fn reclaim(&mut self, threshold: u32) -> u64 {
        let before = self.nodes();
        self.reclaim_dir(0, 0, threshold);
        before - self.nodes()
    }

    fn reclaim_dir(&mut self, dir: u32, level: u32, threshold: u32) {
        for s in 0..FANOUT {
            let child = self.dirs[dir as usize].child[s];
            if child == NIL {
                continue;
            }
            if self.dirs[dir as usize].stamp[s] < threshold {
                self.free_subtree(child, level + 1);
                self.dirs[dir as usize].child[s] = NIL;
                self.dirs[dir as usize].stamp[s] = 0;
            } else if level < LEVELS - 2 {
                self.reclaim_dir(child, level + 1, threshold);
            }
        }
    }

    /// Frees node `node` at `level` (a leaf at `LEVELS - 1`) and everything under it.
    fn free_subtree(&mut self, node: u32, level: u32) {
        if level == LEVELS - 1 {
            self.leaves[node as usize] = EMPTY_LEAF;
            self.free_leaves.push(node);
            return;
        }
        for s in 0..FANOUT {
            let child = self.dirs[node as usize].child[s];
            if child != NIL {
                self.free_subtree(child, level + 1);
            }
        }
        self.dirs[node as usize] = EMPTY_DIR;
        self.free_dirs.push(node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_keep_the_two_most_recent() {
        let mut t = BlockTable::new();
        assert_eq!(t.stamps(Lbn(77)), (0, 0));
        assert_eq!(t.stamp(Lbn(77), 1), 0);
        assert_eq!(t.stamps(Lbn(77)), (0, 1));
        assert_eq!(t.stamp(Lbn(77), 1), 0);
        assert_eq!(t.stamps(Lbn(77)), (0, 1), "a second stamp of the same clock changes nothing");
        assert_eq!(t.stamp(Lbn(77), 3), 1);
        assert_eq!(t.stamp(Lbn(77), 4), 3);
        assert_eq!(t.stamps(Lbn(77)), (3, 4));
        assert_eq!(t.stamps(Lbn(78)), (0, 0));
        assert_eq!(t.stamps(Lbn(LBN_LIMIT + 5)), (0, 0));
    }

    #[test]
    fn the_walk_finds_current_blocks_in_disk_order_and_skips_old_subtrees() {
        let mut t = BlockTable::new();
        let far = LBN_LIMIT - 1;
        for lbn in [5_000_000, 3, 4, far, 64, 63] {
            t.stamp(Lbn(lbn), 1);
        }
        for lbn in [4, 9_999, 64] {
            t.stamp(Lbn(lbn), 2);
        }
        let mut out = Vec::new();
        let examined = t.walk_current(2, &mut out);
        assert_eq!(out, [4, 64, 9_999].map(Lbn));
        // The root (64 entries) and only the paths to the three current blocks' leaves: far fewer entries
        // than the table has.
        assert!(examined < 64 * 16, "examined {examined}");
        // A walk is for the current clock: a directory entry holds only its newest stamp, so the blocks
        // still stamped 1 are found only where no stamp 2 passed (the subtree of `far`).
        out.clear();
        t.walk_current(1, &mut out);
        assert_eq!(out, vec![Lbn(far)]);
    }

    #[test]
    fn reclaim_drops_old_subtrees_and_keeps_new_ones() {
        let mut t = BlockTable::new();
        t.stamp(Lbn(10), 1);
        t.stamp(Lbn(1 << 30), 1);
        let with_two = t.nodes();
        t.stamp(Lbn(11), 5);
        assert_eq!(t.nodes(), with_two, "11 shares 10's leaf");
        let freed = t.reclaim(3);
        assert_eq!(freed, 5, "the path under the root to 2^30's leaf: four directories and a leaf");
        assert_eq!(t.stamps(Lbn(1 << 30)), (0, 0));
        assert_eq!(t.stamps(Lbn(10)), (0, 1), "10's subtree is kept: its directories hold stamp 5");
        assert_eq!(t.stamps(Lbn(11)), (0, 5));
        assert!(t.bytes_max() >= t.bytes());
        t.reclaim(6);
        assert_eq!(t.nodes(), 1, "only the root is left");
        t.stamp(Lbn(1 << 30), 7);
        assert_eq!(t.nodes(), with_two - 5, "freed nodes are reused");
    }
}
