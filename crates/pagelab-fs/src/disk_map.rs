//! [`DiskMap`]: where the emulated device holds each block of the mounted tree.
//!
//! The emulated disk holds the mounted tree only, as the papers' servers had their data set on a disk of
//! its own: the real disk's extents of the source's files, in their real on-disk order, with the space the
//! host's other data takes between them removed. The engine (and DULO) keep seeing the real locations; only
//! the emulated device's seek distances come from the packed ones. Why: a shared host disk scatters a data
//! set written at once over a large span (here, 500 files of 4 MiB written one after another lay over
//! 146 GB of an 87 %-full 252 GB disk), which on a 36.7 GB model disk would make every seek a long one, where the
//! paper's and the simulator's data sets lie together (the simulator's default `--placement sequential`).
//!
//! Built once at mount by walking the source (symbolic links not followed) and asking FIEMAP for each
//! regular file, bounded by [`FILES_MAX`] files and [`INTERVALS_MAX`] intervals; a block outside the map (a
//! file created after the mount, one past the bounds, a file system without FIEMAP) keeps its real location,
//! as before, wrapped into the model's capacity by the device.

use crate::source::disk_extents;
use pagelab_core::Lbn;
use std::path::Path;

/// Files the walk looks at most.
pub const FILES_MAX: u64 = 1_000_000;
/// Disjoint intervals of real blocks kept at most (24 bytes each: 48 MiB at most).
pub const INTERVALS_MAX: usize = 1 << 21;

/// Packed locations of the real disk's blocks that hold the tree.
#[derive(Clone, Debug, Default)]
pub struct DiskMap {
    /// `(real_start, pages, packed_start)`, sorted by `real_start`, disjoint.
    intervals: Vec<(u64, u64, u64)>,
    /// Regular files whose extents are in the map.
    pub files: u64,
    /// Whether the walk stopped at a bound before the end of the tree.
    pub truncated: bool,
}

impl DiskMap {
    /// Walk `root` and pack the extents of its files.
    pub fn scan(root: &Path) -> DiskMap {
        let mut extents = Vec::new();
        let mut files = 0u64;
        let mut truncated = false;
        let mut dirs = vec![root.to_path_buf()];
        'walk: while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else { continue };
                if kind.is_dir() {
                    dirs.push(entry.path());
                } else if kind.is_file() {
                    if files == FILES_MAX || extents.len() >= INTERVALS_MAX {
                        truncated = true;
                        break 'walk;
                    }
                    if let Ok(e) = disk_extents(&entry.path()) {
                        files += !e.is_empty() as u64;
                        extents.extend(e);
                    }
                }
            }
        }
        let mut map = DiskMap::from_extents(extents);
        map.files = files;
        map.truncated = truncated;
        map
    }

    /// The map of these `(lbn, pages)` extents: sorted, overlaps and adjacent extents joined, then packed
    /// from block 0 in their order.
    pub fn from_extents(mut extents: Vec<(u64, u64)>) -> DiskMap {
        extents.retain(|&(_, pages)| pages > 0);
        extents.sort_unstable();
        let mut joined: Vec<(u64, u64)> = Vec::with_capacity(extents.len());
        for (start, pages) in extents {
            match joined.last_mut() {
                Some(last) if start <= last.0 + last.1 => last.1 = last.1.max(start + pages - last.0),
                _ => joined.push((start, pages)),
            }
        }
        joined.truncate(INTERVALS_MAX);
        let mut packed = 0;
        let intervals = joined
            .into_iter()
            .map(|(start, pages)| {
                let at = packed;
                packed += pages;
                (start, pages, at)
            })
            .collect();
        DiskMap { intervals, files: 0, truncated: false }
    }

    /// Where the emulated disk holds real block `lbn`: its packed location, or `lbn` itself outside the map.
    pub fn map(&self, lbn: Lbn) -> Lbn {
        let i = self.intervals.partition_point(|&(start, _, _)| start <= lbn.0);
        match i.checked_sub(1).map(|i| self.intervals[i]) {
            Some((start, pages, packed)) if lbn.0 < start + pages => Lbn(packed + (lbn.0 - start)),
            _ => lbn,
        }
    }

    /// Pages the tree takes on the emulated disk.
    pub fn packed_pages(&self) -> u64 {
        self.intervals.last().map_or(0, |&(_, pages, packed)| packed + pages)
    }

    /// Pages from the tree's first block to its last on the real disk.
    pub fn real_span_pages(&self) -> u64 {
        match (self.intervals.first(), self.intervals.last()) {
            (Some(first), Some(last)) => last.0 + last.1 - first.0,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_keep_their_order_and_lose_the_gaps_between_them() {
        // Two files far apart, one in two extents with another file between them, and an overlap.
        let map = DiskMap::from_extents(vec![(1000, 8), (50, 4), (500, 2), (1008, 4), (52, 4), (9000, 0)]);
        assert_eq!(map.map(Lbn(50)), Lbn(0));
        assert_eq!(map.map(Lbn(55)), Lbn(5), "(50, 4) and (52, 4) join into 50..56");
        assert_eq!(map.map(Lbn(500)), Lbn(6));
        assert_eq!(map.map(Lbn(1000)), Lbn(8), "adjacent extents stay adjacent");
        assert_eq!(map.map(Lbn(1011)), Lbn(19));
        assert_eq!(map.packed_pages(), 20);
        assert_eq!(map.real_span_pages(), 1012 - 50);
        // Outside the map: the real location.
        assert_eq!(map.map(Lbn(49)), Lbn(49));
        assert_eq!(map.map(Lbn(600)), Lbn(600));
        assert_eq!(map.map(Lbn(5000)), Lbn(5000));
        assert_eq!(DiskMap::default().map(Lbn(7)), Lbn(7));
    }

    #[test]
    fn a_scan_finds_the_files_of_a_tree() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("a"), vec![1u8; 64 << 10]).unwrap();
        std::fs::write(dir.path().join("sub/b"), vec![2u8; 32 << 10]).unwrap();
        let map = DiskMap::scan(dir.path());
        assert!(!map.truncated);
        if map.files == 0 {
            return; // no FIEMAP here (tmpfs): the map is empty and every block keeps its location
        }
        assert_eq!(map.files, 2);
        assert_eq!(map.packed_pages(), 16 + 8);
        let a = disk_extents(&dir.path().join("a")).unwrap();
        assert!(map.map(Lbn(a[0].0)).0 < 24, "a's first block is packed");
    }
}
