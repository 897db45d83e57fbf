//! cscope-like: cscope examining the Linux 2.4.20 source (papers/001 §4.1.1: "Cscope is a source code
//! examination tool"; it and gcc "take Linux kernel 2.4.20 source code as their inputs"; "Cscope and
//! glimpse have a similar access pattern. They contain 76% and 74% sequential accesses"): repeated
//! scans of the source tree in disk order, a looping pattern. The tree ([`SourceTree`]) is gcc-like's
//! input too. See the module doc of `dulo` for every size and why.

use super::{read_whole, scaled, Disk, Op, Process};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Directories of C files at scale 1.
pub const DIRS: u64 = 480;
/// C files in a directory: uniformly this many.
pub const FILES_PER_DIR: (u64, u64) = (4, 36);
/// A C file's size: 1 + an exponential number of pages of this mean, at most [`SOURCE_PAGES_MAX`].
pub const SOURCE_EXTRA_PAGES_MEAN: f64 = 3.6;
pub const SOURCE_PAGES_MAX: u64 = 48;
/// Headers (`include/`) at scale 1: 70 % of one page, 20 % of two, 10 % of three to six.
pub const HEADERS: u64 = 1200;
/// The chance that a file follows pages cscope does not read (a Makefile, a `.S`, documentation) rather
/// than the previous file it reads, and how many such pages at most.
pub const GAP_PROBABILITY: f64 = 0.9;
pub const GAP_PAGES_MAX: u64 = 8;
/// Unread pages before each directory (its block group's other contents): this range.
pub const DIR_GAP_PAGES: (u64, u64) = (64, 1024);
/// Scans of the whole tree.
pub const PASSES: u64 = 5;
/// The `read()` size: 8 KiB (stdio's buffer).
pub const CALL_PAGES: u32 = 2;
/// Computing (cscope's lexer) per page.
pub const CPU_NS_PER_PAGE: u32 = 10_000;

/// A directory of the tree: its files in disk order, and whether they are `include/`'s headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dir {
    pub files: Vec<u32>,
    pub headers: bool,
}

/// The source tree: directories in disk order, `include/` among them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceTree {
    pub dirs: Vec<Dir>,
}

impl SourceTree {
    /// The tree in a region of its own: half the C directories, `include/`, the other half.
    pub fn build(disk: &mut Disk, scale: f64, rng: &mut ChaCha8Rng) -> SourceTree {
        disk.region();
        let dirs = scaled(DIRS, scale);
        let mut tree = SourceTree { dirs: Vec::new() };
        for d in 0..=dirs {
            disk.skip(rng.gen_range(DIR_GAP_PAGES.0..=DIR_GAP_PAGES.1));
            let headers = d == dirs / 2;
            let n = if headers {
                scaled(HEADERS, scale)
            } else {
                rng.gen_range(FILES_PER_DIR.0..=FILES_PER_DIR.1)
            };
            let mut files = Vec::new();
            for _ in 0..n {
                if rng.gen::<f64>() < GAP_PROBABILITY {
                    disk.skip(rng.gen_range(1..=GAP_PAGES_MAX));
                }
                let pages = if headers {
                    match rng.gen::<f64>() {
                        x if x < 0.7 => 1,
                        x if x < 0.9 => 2,
                        _ => rng.gen_range(3..=6),
                    }
                } else {
                    let extra = -SOURCE_EXTRA_PAGES_MEAN * (1.0 - rng.gen::<f64>()).ln();
                    (1 + extra as u64).min(SOURCE_PAGES_MAX)
                };
                files.push(disk.file(pages));
            }
            tree.dirs.push(Dir { files, headers });
        }
        tree
    }

    /// The headers, in disk order.
    pub fn headers(&self) -> &[u32] {
        self.dirs.iter().find(|d| d.headers).map_or(&[], |d| &d.files)
    }
}

/// The process: [`PASSES`] scans of every file of the tree, in disk order, each file whole.
pub fn process(tree: &SourceTree, disk: &Disk) -> Process {
    let mut ops: Vec<Op> = Vec::new();
    for _ in 0..PASSES {
        for dir in &tree.dirs {
            for &f in &dir.files {
                read_whole(&mut ops, f, disk.pages(f), CALL_PAGES, CPU_NS_PER_PAGE);
            }
        }
    }
    Process { program: "cscope", ops }
}
