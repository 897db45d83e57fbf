//! glimpse-like: the glimpse indexing and query tool searching text files (papers/001 §4.1.1: "74%
//! sequential accesses"; §4.2: glimpse "searches the index file first, then accesses the files included
//! in the partitions matched in the index files", and "There are a small percentage of files in a
//! partition that are located non-continuously with the rest of its files"). See the module doc of
//! `dulo` for every size and why.

use super::{read_whole, scaled, Disk, Op, Process};
use crate::workload::ZipfRanks;
use rand::seq::{index::sample, SliceRandom};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Partitions at scale 1 (LXR's glimpse "divides the files into 256 partitions", §4.2).
pub const PARTITIONS: u64 = 256;
/// Text files in a partition.
pub const FILES_PER_PARTITION: u64 = 32;
/// Of them, placed away from the rest of their partition (isolated).
pub const ISOLATED_PER_PARTITION: u64 = 3;
/// A text file's size: 1 + an exponential number of pages of this mean, at most [`FILE_PAGES_MAX`].
pub const FILE_EXTRA_PAGES_MEAN: f64 = 6.2;
pub const FILE_PAGES_MAX: u64 = 32;
/// Unread pages (files glimpse does not index) between two partitions: up to this many.
pub const PARTITION_GAP_PAGES_MAX: u64 = 256;
/// Unread pages before each isolated file: 1 up to this many.
pub const ISOLATED_GAP_PAGES_MAX: u64 = 64;
/// The index file (MiB at scale 1).
pub const INDEX_MIB: u64 = 4;
/// Pages of the index a keyword's entry takes (read after the index's first page).
pub const INDEX_RUN_PAGES: u64 = 8;
/// The pool of keywords the queries draw from (§4.2's pool of 50), each matching 1 to
/// [`KEYWORD_PARTITIONS_MAX`] partitions.
pub const KEYWORDS: u64 = 50;
pub const KEYWORD_PARTITIONS_MAX: u64 = 4;
/// Zipf exponent of the keywords' popularity.
pub const KEYWORD_ZIPF: f64 = 0.5;
/// Queries at scale 1.
pub const QUERIES: u64 = 90;
/// The `read()` size for text files: 64 KiB.
pub const CALL_PAGES: u32 = 16;
/// Computing (agrep) per page searched.
pub const CPU_NS_PER_PAGE: u32 = 20_000;

/// The index, the inode blocks, the partitions and the isolated files, in a region of their own (the
/// isolated ones in the next); the process's queries.
pub fn process(disk: &mut Disk, scale: f64, rng: &mut ChaCha8Rng) -> Process {
    disk.region();
    let partitions = scaled(PARTITIONS, scale);
    let index = disk.file(scaled(INDEX_MIB * 256, scale).max(INDEX_RUN_PAGES + 1));
    disk.skip(PARTITION_GAP_PAGES_MAX);
    // One inode block per partition: its 32 files' inodes (128 B each) in one 4 KiB block.
    let inodes = disk.file(partitions);
    let mut members: Vec<Vec<Option<u32>>> = Vec::new();
    let mut isolated: Vec<(usize, usize, u64)> = Vec::new();
    for p in 0..partitions as usize {
        disk.skip(rng.gen_range(0..=PARTITION_GAP_PAGES_MAX));
        let away = sample(rng, FILES_PER_PARTITION as usize, ISOLATED_PER_PARTITION as usize).into_vec();
        let mut files = Vec::new();
        for i in 0..FILES_PER_PARTITION as usize {
            let extra = -FILE_EXTRA_PAGES_MEAN * (1.0 - rng.gen::<f64>()).ln();
            let pages = (1 + extra as u64).min(FILE_PAGES_MAX);
            if away.contains(&i) {
                isolated.push((p, i, pages));
                files.push(None);
            } else {
                files.push(Some(disk.file(pages)));
            }
        }
        members.push(files);
    }
    // The isolated files elsewhere on the disk, in no order of theirs, apart from each other.
    disk.region();
    isolated.shuffle(rng);
    for (p, i, pages) in isolated {
        disk.skip(rng.gen_range(1..=ISOLATED_GAP_PAGES_MAX));
        members[p][i] = Some(disk.file(pages));
    }
    let members: Vec<Vec<u32>> = members
        .into_iter()
        .map(|files| files.into_iter().map(|f| f.expect("every file placed")).collect())
        .collect();
    // Each keyword: where its entry lies in the index and which partitions it matches (in order).
    let index_pages = disk.pages(index);
    let keywords: Vec<(u64, Vec<u64>)> = (0..KEYWORDS)
        .map(|_| {
            let entry = rng.gen_range(1..=index_pages - INDEX_RUN_PAGES);
            let n = rng.gen_range(1..=KEYWORD_PARTITIONS_MAX.min(partitions));
            let mut matched: Vec<u64> =
                sample(rng, partitions as usize, n as usize).into_iter().map(|p| p as u64).collect();
            matched.sort_unstable();
            (entry, matched)
        })
        .collect();
    let popularity = ZipfRanks::new(KEYWORDS, KEYWORD_ZIPF).expect("a valid exponent");
    let mut ops: Vec<Op> = Vec::new();
    for _ in 0..scaled(QUERIES, scale) {
        let (entry, matched) = &keywords[popularity.draw(rng) as usize - 1];
        ops.push(Op { file: index, page: 0, pages: 1, cpu_ns: 0 });
        ops.push(Op { file: index, page: *entry as u32, pages: INDEX_RUN_PAGES as u32, cpu_ns: 0 });
        for &p in matched {
            for &f in &members[p as usize] {
                // open() reads the file's inode, then agrep reads the file.
                ops.push(Op { file: inodes, page: p as u32, pages: 1, cpu_ns: 0 });
                read_whole(&mut ops, f, disk.pages(f), CALL_PAGES, CPU_NS_PER_PAGE);
            }
        }
    }
    Process { program: "glimpse", ops }
}
