//! Dirty file pages and writeback, as Linux 2.6.10–2.6.18 keeps them (`mm/page-writeback.c`,
//! `fs/fs-writeback.c`).
//!
//! A file with dirty pages is a dirty inode, stamped with the time it became dirty (`dirtied_when`).
//! Writeback walks dirty inodes oldest first and writes each one's dirty pages in file order
//! (`mpage_writepages()`), skipping pages already under writeback; a page written is clean until dirtied
//! again. Three paths start writeback:
//! - `wb_kupdate()` every `dirty_writeback_centisecs` (5 s): inodes dirtied more than
//!   `dirty_expire_centisecs` (30 s) ago, all their pages;
//! - `background_writeout()`: while more than `dirty_background_ratio` (10 %) of memory is dirty.
//!
//!   Both write in passes of `MAX_WRITEBACK_PAGES` (1,024) with `wbc.nonblocking`: a pass stops when the
//!   disk's queue is write-congested, and the loop sleeps in `blk_congestion_wait(WRITE, HZ/10)` before the
//!   next (the driver runs the loops: `crate::buffer::write`'s `WriteRoom`);
//! - `balance_dirty_pages()`: a writer that finds more than `vm_dirty_ratio` (40 %) of memory dirty or
//!   under writeback writes `sync_writeback_pages()` = 48 pages itself (1.5 × `ratelimit_pages` of 32) and
//!   sleeps in `blk_congestion_wait(WRITE, HZ/10)` (100 ms at most: a write request freed below the
//!   queue's congestion-off threshold ends it), and tries again.
//!
//! Reclaim that meets a dirty page starts its writeback instead (`shrink_list()` → `pageout()`), and the page
//! is freed when the write completes (`rotate_reclaimable_page()` puts it at the tail for the next pass).
//!
//! Anonymous pages are not here: they are written only by reclaim, to swap (`crate::buffer::swap`).
//!
//! Where pagelab departs from the kernel, and why:
//! - The limits are fractions of the memory caches may use (`get_dirty_limits()` takes the free and the
//!   page-cache pages, adjusted by the unmapped ratio; pagelab's pages are all unmapped page cache).
//! - `balance_dirty_pages()` runs after each `write()` call instead of every 32 pages dirtied per CPU
//!   (`balance_dirty_pages_ratelimited()`): the calls of pagelab's workloads are at most a few hundred pages.
//! - pdflush's CPU time is not charged (writeback is bounded by the disk, not the CPU).

use crate::key::FileId;
use crate::time::Nanos;
use std::collections::{BTreeMap, BTreeSet};

/// The 2.6 writeback tunables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WritebackConfig {
    /// `vm_dirty_ratio`: percent of memory dirty or under writeback above which writers are throttled.
    pub dirty_ratio_pct: u32,
    /// `dirty_background_ratio`: percent of memory dirty above which pdflush writes in the background.
    pub background_ratio_pct: u32,
    /// `dirty_expire_centisecs`: how old a dirty inode must be for `wb_kupdate()`.
    pub expire: Nanos,
    /// `dirty_writeback_centisecs`: the period of `wb_kupdate()`.
    pub interval: Nanos,
    /// `sync_writeback_pages()`: pages a throttled writer writes per round.
    pub write_chunk_pages: u32,
    /// `blk_congestion_wait(WRITE, HZ/10)`'s timeout: the longest a throttled writer sleeps per round.
    pub throttle_sleep: Nanos,
}

impl WritebackConfig {
    /// Linux 2.6.10's defaults (`mm/page-writeback.c`).
    pub const LINUX_2_6: WritebackConfig = WritebackConfig {
        dirty_ratio_pct: 40,
        background_ratio_pct: 10,
        expire: Nanos::from_secs(30),
        interval: Nanos::from_secs(5),
        write_chunk_pages: 48,
        throttle_sleep: Nanos::from_ms(100),
    };
}

/// One dirty inode.
#[derive(Clone, Debug, Default)]
struct DirtyFile {
    since: Nanos,
    /// Dirty pages not under writeback, by index.
    pages: BTreeSet<u64>,
}

/// The dirty file pages, by inode and age.
#[derive(Clone, Debug, Default)]
pub(super) struct DirtyPages {
    files: BTreeMap<FileId, DirtyFile>,
    /// `(dirtied_when, file)`: writeback's order.
    by_age: BTreeSet<(Nanos, FileId)>,
    /// Dirty file pages (under writeback or not: a page re-dirtied during its write counts once).
    dirty: u64,
    /// File pages whose write is in flight.
    writeback: u64,
}

impl DirtyPages {
    pub fn dirty(&self) -> u64 {
        self.dirty
    }
    pub fn writeback(&self) -> u64 {
        self.writeback
    }

    /// Page `index` of `file` became dirty at `now` (it was clean).
    pub fn dirtied(&mut self, now: Nanos, file: FileId, index: u64) {
        let entry =
            self.files.entry(file).or_insert_with(|| DirtyFile { since: now, pages: BTreeSet::new() });
        if entry.pages.is_empty() {
            entry.since = now;
            self.by_age.insert((now, file));
        }
        let fresh = entry.pages.insert(index);
        assert!(fresh, "page {index} of file {} dirtied twice", file.0);
        self.dirty += 1;
    }

    /// A dirty page left the cache without being written (invalidation).
    pub fn dropped(&mut self, file: FileId, index: u64) {
        if self.take(file, index) {
            self.dirty -= 1;
        }
    }

    /// Take `index` out of `file`'s dirty set (its write starts, or it is dropped). Returns whether it was
    /// there.
    fn take(&mut self, file: FileId, index: u64) -> bool {
        let Some(f) = self.files.get_mut(&file) else { return false };
        let was = f.pages.remove(&index);
        if f.pages.is_empty() {
            self.by_age.remove(&(f.since, file));
            self.files.remove(&file);
        }
        was
    }

    /// The write of a dirty page starts (`clear_page_dirty_for_io()`): it is clean and under writeback.
    pub fn write_started(&mut self, file: FileId, index: u64) {
        let was = self.take(file, index);
        assert!(was, "page {index} of file {} written while not dirty", file.0);
        self.dirty -= 1;
        self.writeback += 1;
    }

    /// A page's write completed.
    pub fn write_done(&mut self) {
        assert!(self.writeback > 0, "a write completed that never started");
        self.writeback -= 1;
    }

    /// Up to `max` dirty pages to write, oldest inodes first and each inode in file order, from inodes
    /// dirtied at or before `older_than` (all if `None`). Pages are returned, not yet started.
    pub fn pick(&self, max: u64, older_than: Option<Nanos>, out: &mut Vec<(FileId, u64)>) {
        out.clear();
        for &(since, file) in &self.by_age {
            if older_than.is_some_and(|t| since > t) || out.len() as u64 >= max {
                break;
            }
            let room = (max - out.len() as u64) as usize;
            out.extend(self.files[&file].pages.iter().take(room).map(|&i| (file, i)));
        }
    }

    /// Pages in the dirty sets equal the count not under writeback. O(pages): for tests.
    #[cfg(test)]
    pub fn check(&self) {
        let queued: usize = self.files.values().map(|f| f.pages.len()).sum();
        assert!(queued as u64 <= self.dirty, "dirty sets hold more pages than are dirty");
        assert_eq!(self.by_age.len(), self.files.len(), "age index out of step");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writeback takes the oldest inode first, each in page order; wb_kupdate only those old enough.
    #[test]
    fn writeback_is_oldest_inode_first_in_file_order() {
        let mut d = DirtyPages::default();
        d.dirtied(Nanos(10), FileId(2), 7);
        d.dirtied(Nanos(11), FileId(2), 3);
        d.dirtied(Nanos(20), FileId(1), 5);
        d.dirtied(Nanos(21), FileId(2), 1);
        let mut out = Vec::new();
        d.pick(10, None, &mut out);
        assert_eq!(out, vec![(FileId(2), 1), (FileId(2), 3), (FileId(2), 7), (FileId(1), 5)]);
        d.pick(2, None, &mut out);
        assert_eq!(out, vec![(FileId(2), 1), (FileId(2), 3)]);
        d.pick(10, Some(Nanos(15)), &mut out);
        assert_eq!(out.len(), 3, "file 1 became dirty at 20, after the expiry line");
        for &(f, i) in &[(FileId(2), 1), (FileId(2), 3), (FileId(2), 7)] {
            d.write_started(f, i);
        }
        assert_eq!((d.dirty(), d.writeback()), (1, 3));
        d.pick(10, None, &mut out);
        assert_eq!(out, vec![(FileId(1), 5)], "file 2 is clean now");
        d.dirtied(Nanos(30), FileId(2), 9);
        d.pick(10, None, &mut out);
        assert_eq!(out, vec![(FileId(1), 5), (FileId(2), 9)], "re-dirtied file 2 is younger now");
        d.check();
    }
}
