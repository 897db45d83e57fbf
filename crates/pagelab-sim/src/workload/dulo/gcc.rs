//! gcc-like: gcc compiling the Linux 2.4.20 source (papers/001 §4.1.1: "gcc is a GNU compiler"; it and
//! cscope "take Linux kernel 2.4.20 source code as their inputs"): each compile reads one C file of
//! cscope-like's [`SourceTree`], then the headers it includes, popular headers in every compile. See
//! the module doc of `dulo` for every size and why.

use super::cscope::SourceTree;
use super::{read_whole, scaled, Disk, Op, Process};
use crate::workload::ZipfRanks;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Compiles at scale 1 (the C files of the tree in make's order, directory by directory).
pub const COMPILES: u64 = 700;
/// Headers every compile includes (`linux/config.h`, `linux/kernel.h`, ...).
pub const CORE_HEADERS: u64 = 20;
/// Other headers a compile includes: uniformly this many, drawn by popularity.
pub const EXTRA_HEADERS: (u64, u64) = (10, 30);
/// Zipf exponent of the other headers' popularity.
pub const HEADER_ZIPF: f64 = 1.0;
/// The `read()` size for C files: 64 KiB (a header is read in one call).
pub const CALL_PAGES: u32 = 16;
/// Computing per compile (a token: see the module doc).
pub const CPU_NS_PER_COMPILE: u32 = 2_000_000;

/// The process: [`COMPILES`] compiles of the tree's C files in order (from the first again if the tree
/// has fewer).
pub fn process(tree: &SourceTree, disk: &Disk, scale: f64, rng: &mut ChaCha8Rng) -> Process {
    let mut by_rank: Vec<u32> = tree.headers().to_vec();
    by_rank.shuffle(rng);
    let core = (CORE_HEADERS as usize).min(by_rank.len());
    let (core_headers, others) = by_rank.split_at(core);
    let popularity =
        (!others.is_empty()).then(|| ZipfRanks::new(others.len() as u64, HEADER_ZIPF).expect("valid"));
    let sources: Vec<u32> =
        tree.dirs.iter().filter(|d| !d.headers).flat_map(|d| d.files.iter().copied()).collect();
    let mut ops: Vec<Op> = Vec::new();
    let mut included: Vec<u32> = Vec::new();
    for c in sources.iter().cycle().take(scaled(COMPILES, scale) as usize) {
        read_whole(&mut ops, *c, disk.pages(*c), CALL_PAGES, 0);
        included.clear();
        included.extend_from_slice(core_headers);
        if let Some(popularity) = &popularity {
            for _ in 0..rng.gen_range(EXTRA_HEADERS.0..=EXTRA_HEADERS.1) {
                let h = others[popularity.draw(rng) as usize - 1];
                // A header included twice is read once (include guards; gcc remembers them).
                if !included.contains(&h) {
                    included.push(h);
                }
            }
        }
        for &h in &included {
            read_whole(&mut ops, h, disk.pages(h), u32::MAX, 0);
        }
        ops.last_mut().expect("a compile reads").cpu_ns = CPU_NS_PER_COMPILE;
    }
    Process { program: "gcc", ops }
}
