//! tpch-like: TPC-H on MySQL (papers/001 §4.1.1: "TPC-H performs random references to several large
//! database files, resulting in only 3% references to concecutive blocks in the trace"). See the module
//! doc of `dulo` for every size and why.

use super::{read_range, scaled, Disk, Op, Process};
use crate::workload::ZipfRanks;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The tables' data files (MiB, at scale 1): lineitem, orders, partsupp, part, customer.
pub const TABLE_MIB: [u64; 5] = [144, 40, 32, 8, 8];
/// The index file (MiB, at scale 1): the tables' B-tree indexes.
pub const INDEX_MIB: u64 = 24;
/// Row lookups at scale 1: each an index page, then the row's data page(s).
pub const LOOKUPS: u64 = 115_000;
/// Zipf exponent of the index pages' popularity (the upper levels of a B-tree are read by every lookup).
pub const INDEX_ZIPF: f64 = 0.9;
/// The chance that a lookup reads a short range of rows rather than one: [`RUN_PAGES`] consecutive
/// pages, the trace's only sequential references (3 %).
pub const RUN_PROBABILITY: f64 = 0.02;
pub const RUN_PAGES: u64 = 4;
/// Computing per lookup (MySQL's row evaluation).
pub const CPU_NS_PER_LOOKUP: u32 = 50_000;

/// The index file, then the tables, contiguous in a region of their own; the process's lookups.
pub fn process(disk: &mut Disk, scale: f64, rng: &mut ChaCha8Rng) -> Process {
    disk.region();
    let index = disk.file(scaled(INDEX_MIB * 256, scale));
    let tables: Vec<u32> = TABLE_MIB.iter().map(|&mib| disk.file(scaled(mib * 256, scale))).collect();
    let index_pages = disk.pages(index);
    // Popularity rank → index page: hot pages spread over the file, as a B-tree's upper levels are.
    let mut by_rank: Vec<u32> = (0..index_pages as u32).collect();
    by_rank.shuffle(rng);
    let ranks = ZipfRanks::new(index_pages, INDEX_ZIPF).expect("a valid exponent");
    let data_pages: u64 = tables.iter().map(|&t| disk.pages(t)).sum();
    let mut ops: Vec<Op> = Vec::new();
    for _ in 0..scaled(LOOKUPS, scale) {
        let page = by_rank[ranks.draw(rng) as usize - 1];
        ops.push(Op { file: index, page, pages: 1, cpu_ns: 0 });
        // A row anywhere in the data, each table in proportion to its size.
        let mut at = rng.gen_range(0..data_pages);
        let table = *tables
            .iter()
            .find(|&&t| {
                let inside = at < disk.pages(t);
                if !inside {
                    at -= disk.pages(t);
                }
                inside
            })
            .expect("a page within the data");
        let pages = if rng.gen::<f64>() < RUN_PROBABILITY { RUN_PAGES.min(disk.pages(table)) } else { 1 };
        let first = at.min(disk.pages(table) - pages);
        read_range(&mut ops, table, first, pages, pages as u32, CPU_NS_PER_LOOKUP);
        ops.last_mut().expect("a read").cpu_ns = CPU_NS_PER_LOOKUP;
    }
    Process { program: "tpch", ops }
}
