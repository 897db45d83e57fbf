//! DULO's workloads (papers/001: Jiang, Ding, Chen, Xiao, Zhang, "DULO: an effective buffer cache
//! management scheme to exploit both temporal and spatial locality", FAST 2005, §4.1.1 and Table 2):
//! synthetic programs modelled on the paper's five traces, whose own data is not public. (The LIRS traces
//! in `data/traces/lirs` share two of the names, not the contents: see `data/traces/README.md`.)
//!
//! # What the paper says
//!
//! The paper drove its simulator (DULO, "Linux prefetching policy", the deadline scheduler, DiskSim's model of a
//! Seagate ST39102LW, a Cheetah 9LP: pagelab's default `hdd`) with five traces, "also used in \[5\]"
//! (§4.1.1). Table 2 lost its numbers in our copy; the text gives:
//!
//! | trace | §4.1.1 | sequential |
//! |---|---|---|
//! | viewperf | SPEC 2000 viewperf: "over 99% of its references are to consecutive blocks within a few large files" | > 99 % |
//! | tpc-h | TPC-H on MySQL: "random references to several large database files" | 3 % |
//! | glimpse | "search for text strings in the text files under the /usr directory" | 74 % |
//! | multi1 | "cscope, gcc, and viewperf concurrently"; cscope and gcc "take Linux kernel 2.4.20 source code as their inputs"; cscope alone 76 % | 75 % |
//! | multi2 | "glimpse and tpc-h concurrently" | 16 % |
//!
//! Sizes: the DULO parameters are smaller "where the demanded memory size is less than 80MB (such as for
//! viewperf)" and viewperf's "memory demand is very small" (§4.1.3); multi1's gap between LRU and DULO is
//! small at 80 MB and large at 160 MB (§4.1.2, Figure 4); the evicting section is 64 MB "because the
//! memory demands of our workloads are relatively small". Of glimpse, §4.2 (LXR on the 236 MB Linux
//! 2.6.11 source) adds: "Glimpse divides the files into 256 partitions", "searches the index file first,
//! then accesses the files included in the partitions matched", a pool of 50 keywords, and "There are a
//! small percentage of files in a partition that are located non-continuously with the rest of its
//! files".
//!
//! # What we built
//!
//! Each workload runs to completion ([`Workload::runs_to_completion`]): one handler slot per program,
//! each slot one process whose `read()` calls come one request at a time, in order (a read, then the
//! program's computing as a [`Step::Cpu`] when it computes), then `None`. multi1-like's slots are cscope,
//! gcc and viewperf; multi2-like's glimpse and tpc-h. The programs' files lie where the workload puts them
//! ([`Workload::file_lbns`]): each program in its own 256 MiB region of the disk ([`REGION_PAGES`]), as
//! different programs' files lie in different directories.
//!
//! **Sequential** here is what the tests measure: the share of page references (each page a read asks for
//! is one) to the page on disk right after the page the same process referenced before ([`Dulo::stats`]).
//! A multi-program trace's share is then its programs' shares weighted by their references, whatever the
//! interleaving; that is how multi2's 16 % comes from glimpse's 74 % and tpc-h's 3 % (glimpse makes 19 %
//! of multi2's references).
//!
//! **Randomness** comes from the `seed` key ([`SEED_DEFAULT`]), each program from its own ChaCha8 stream
//! ([`program_rng`]), never from the run's `--seed`: every policy and every run reads the same files in
//! the same order, as the paper's policies replayed the same traces, and a program is the same alone and
//! in a multi (multi1-like's viewperf is viewperf-like). All reads are generated when the workload is
//! built. **`scale`** multiplies the datasets (file sizes, or counts of files, partitions, directories)
//! and the lengths (lookups, queries, compiles); passes stay.
//!
//! **Computing** is a token (5–50 µs a page or a lookup, 2 ms a compile): the paper's simulator replays
//! block traces and reports I/O-bound execution times, and gives no compute times; the tokens only keep
//! a process from being infinitely fast (and let others' I/O overlap it).
//!
//! At scale 1 and the default seed (the `sizes_are_as_documented` test; the CLOCK runs: `pagelab simulate
//! --policy clock --prefetch linux-2.6 --scheduler deadline` on the `hdd`, each under half a second of wall
//! time):
//!
//! | workload | files | dataset | reads | page references | distinct pages | sequential | memory range it is sized for |
//! |---|---|---|---|---|---|---|---|
//! | viewperf-like | 5 | 66 MiB | 2,112 | 67,584 | 16,896 (66.0 MiB) | 99.99 % | 16–80 MB (demand under 80 MB; CLOCK: 17.7 s simulated at 32 MiB, 4.8 s at 128) |
//! | tpch-like | 6 | 256 MiB | 230,000 | 237,209 | 57,946 (226.4 MiB) | 3.04 % | 32–256 MB (CLOCK: hit ratio 41 % at 32 MiB, 65 % at 128) |
//! | glimpse-like | 8,194 | 220 MiB | 14,331 | 54,230 | 17,523 (68.4 MiB) | 74.77 % | 8–96 MB (CLOCK: hit ratio 27 % at 16 MiB, 53 % at 32, 69 % from 64) |
//! | multi1-like | 10,779 | 224 MiB | 145,620 | 313,598 | 57,291 (223.8 MiB) | 76.06 % | 64–224 MB (CLOCK thrashes on cscope's 158 MiB loop up to 160 MiB: 161 s simulated; 69 s at 192 MiB) |
//! | multi2-like | 8,200 | 476 MiB | 244,331 | 291,439 | 75,469 (294.8 MiB) | 16.39 % | 32–300 MB |
//! | cscope-like (multi1's) | 10,774 | 158 MiB | 117,105 | 201,975 | 40,395 (157.8 MiB) | 75.90 % | |
//! | gcc-like (multi1's) | 10,774 | 158 MiB | 26,403 | 44,039 | 4,435 (17.3 MiB) | 40.07 % | |
//!
//! (cscope-like and gcc-like, multi1's programs alone, are built by [`Dulo::new`] but not named on the
//! command line: Table 2 has no such traces.)
//!
//! # Each program, and our choices
//!
//! **viewperf** ([`viewperf`]): five model files of 24, 16, 12, 8 and 6 MiB (66 MiB: "a few large
//! files", a demand under 80 MB) laid end to end, read from start to end in file order in 128 KiB calls
//! ("large" reads), four passes (each viewperf test renders its model again). Only a pass's first page
//! is not sequential: 99.99 %, "over 99%". A loop of 66 MiB: LRU gets no hits below it.
//!
//! **tpc-h** ([`tpch`]): a 24 MiB index file (the tables' B-trees) and five table files of 144, 40, 32,
//! 8 and 8 MiB (lineitem, orders, partsupp, part, customer: 256 MiB, "several large database files"),
//! 115,000 row lookups: an index page (Zipf 0.9 popularity over the index's pages, hot pages spread over
//! the file: a B-tree's upper levels are read by every lookup), then a uniformly random data page of the
//! tables (each in proportion to its size). With probability 2 % a lookup reads a range of four
//! consecutive data pages instead of one: those are the only sequential references, 3 × 0.02 / (2 +
//! 3 × 0.02) = 2.9 %, the paper's 3 %. 50 µs of computing a lookup. Hit ratio grows about linearly with
//! memory up to the 226 MiB working set, the hot index first.
//!
//! **glimpse** ([`glimpse`]): 256 partitions (§4.2's count) of 32 text files each, of 1 + an exponential
//! number of pages of mean 6.2, at most 32 (4 KiB to 128 KiB, "a few KB to tens of KB"); a partition's
//! files lie contiguously in partition order except 3 of its 32 (9 %, "a small percentage"), which lie
//! in the next region, in random order, 1 to 64 pages apart (isolated). Up to 256 unread pages lie
//! between partitions (the files glimpse does not index). A 4 MiB index; 50 keywords (§4.2's pool), each
//! with an entry of 8 index pages at a random place and 1 to 4 matched partitions; 90 queries, each a
//! keyword by Zipf popularity of exponent 0.5 (a few keywords' partitions are reused often, most a few
//! times, at reuse distances of tens of MiB: the hit ratio grows from 16 to 64 MiB). A
//! query reads the index's first page and the keyword's entry, then each matched partition's files in
//! order; before each file, `open()` reads the file's inode from the partition's inode block (one page
//! of a 256-page inode-table file at the start of the region). Why the inode reads: with partitions
//! contiguous, as the brief and §4.2 have them, the data alone would be over 90 % sequential; a block
//! trace also records the file system's metadata, and the reference to each file's inode before its data
//! makes each file's first page non-sequential: (m − 1)/(m + 1) for a file of m pages, 74 % at the mean
//! size. 20 µs of computing (agrep) a page. The isolated files are what §4.2's DULO keeps: each is a
//! long seek away from its partition.
//!
//! **cscope** ([`cscope`]) reads the source tree ([`cscope::SourceTree`]): 480 directories of 4 to 36 C
//! files (1 + an exponential number of pages of mean 3.6, at most 48) and an `include/` directory in the
//! middle of 1,200 headers (70 % of one page, 20 % of two, 10 % of three to six), 158 MiB read. 90 % of
//! the files follow 1 to 8 pages cscope does not read (Makefiles, assembly, documentation: "the scan jumps
//! between files"), and each directory 64 to 1,024 unread pages (its block group's other files). Five
//! scans of every file in disk order (the "looping access pattern" §4.1.2 credits for multi1's gains), in 8 KiB calls (stdio's
//! buffer), 10 µs of computing a page: 75.9 %, the paper's 76 %. The tree's size is what puts multi1's
//! gap at 160 MB: a loop of 158 MiB (with gcc's and viewperf's pages beside it) does not fit in 160 MiB
//! of memory and does in 192.
//!
//! **gcc** ([`gcc`]) compiles the tree's C files in make's order, directory by directory, 700 of them:
//! each reads its C file (64 KiB calls), then its headers, one call each: 20 core headers every compile
//! includes, in one fixed order, and 10 to 30 others by Zipf-1 popularity, each read once a compile
//! (include guards). Headers are small and their include order is not their disk order: 40 % sequential
//! ("mostly random"; the paper gives no figure for gcc alone). 2 ms of computing a compile. gcc and cscope
//! read the same tree in multi1-like, as both took the kernel source as input, so gcc's 17 MiB are inside
//! cscope's 158.
//!
//! **multi1** ([`multi`]): cscope 201,975 references at 75.9 %, gcc 44,039 at 40.1 %, viewperf 67,584 at
//! 99.99 %: 76.1 % (paper: 75 %). Two loops (158 and 66 MiB; viewperf's ends first) over a 224 MiB
//! working set.
//!
//! **multi2**: glimpse 54,230 at 74.8 % and tpc-h 237,209 at 3.0 %: 16.4 % (paper: 16 %).
//!
//! Departures: the programs read and never write (gcc's object files, MySQL's temporary tables are
//! left out: the paper's traces are read references as far as its text says); file sizes and counts are
//! ours (the paper gives none); the multi traces' programs start together and run to their ends (the
//! traces' own timing is unknown).

pub mod cscope;
pub mod gcc;
pub mod glimpse;
pub mod multi;
pub mod tpch;
pub mod viewperf;

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
use pagelab_core::units::fmt_f64;
use pagelab_core::{FileId, Nanos, PAGE_SIZE_BYTES};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The `seed` key's default: every run and every policy sees the same files and the same reads, as the
/// paper's policies all replayed the same traces.
pub const SEED_DEFAULT: u64 = 2005;
/// `scale`: the smallest and largest factor on the datasets' sizes and the programs' lengths.
pub const SCALE_MIN: f64 = 0.01;
pub const SCALE_MAX: f64 = 4.0;
/// Pages in a region of the disk (256 MiB): each program's files start a new region, as different
/// programs' files lie in different directories, far apart on the disk.
pub const REGION_PAGES: u64 = 1 << 16;

/// One `read()`: `pages` pages from page `page` of file `file`, then `cpu_ns` of computing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub file: u32,
    pub page: u32,
    pub pages: u32,
    pub cpu_ns: u32,
}

/// The disk as it is filled: each file's size and first LBN (pages), placed at a moving cursor or where
/// a program puts it.
#[derive(Clone, Debug, Default)]
pub struct Disk {
    file_pages: Vec<u64>,
    first_lbns: Vec<u64>,
    cursor_lbn: u64,
}

impl Disk {
    pub fn new() -> Disk {
        Disk::default()
    }

    /// A file of `pages` pages at the cursor, which moves past it; its id.
    pub fn file(&mut self, pages: u64) -> u32 {
        let f = self.file_at(pages, self.cursor_lbn);
        self.cursor_lbn += pages;
        f
    }

    /// A file of `pages` pages from LBN `lbn` (the caller keeps files apart); the cursor stays.
    pub fn file_at(&mut self, pages: u64, lbn: u64) -> u32 {
        self.file_pages.push(pages);
        self.first_lbns.push(lbn);
        u32::try_from(self.file_pages.len() - 1).expect("fewer than 2^32 files")
    }

    /// Leave `pages` pages unused (files no program reads).
    pub fn skip(&mut self, pages: u64) {
        self.cursor_lbn += pages;
    }

    /// Move the cursor to the start of the next [`REGION_PAGES`] region (unless it is at one).
    pub fn region(&mut self) {
        self.cursor_lbn = self.cursor_lbn.next_multiple_of(REGION_PAGES);
    }

    pub fn cursor_lbn(&self) -> u64 {
        self.cursor_lbn
    }

    pub fn pages(&self, file: u32) -> u64 {
        self.file_pages[file as usize]
    }

    pub fn first_lbn(&self, file: u32) -> u64 {
        self.first_lbns[file as usize]
    }
}

/// `n × scale`, rounded, at least 1.
pub fn scaled(n: u64, scale: f64) -> u64 {
    ((n as f64 * scale).round() as u64).max(1)
}

/// Append the reads of pages `[0, pages)` of `file` in calls of at most `call_pages`, each followed by
/// `cpu_ns_per_page` for each page it read.
pub fn read_whole(ops: &mut Vec<Op>, file: u32, pages: u64, call_pages: u32, cpu_ns_per_page: u32) {
    read_range(ops, file, 0, pages, call_pages, cpu_ns_per_page)
}

/// Append the reads of pages `[first, first + pages)` of `file` (as [`read_whole`]).
pub fn read_range(
    ops: &mut Vec<Op>,
    file: u32,
    first: u64,
    pages: u64,
    call_pages: u32,
    cpu_ns_per_page: u32,
) {
    let mut at = first;
    while at < first + pages {
        let n = (first + pages - at).min(call_pages as u64) as u32;
        ops.push(Op { file, page: at as u32, pages: n, cpu_ns: cpu_ns_per_page * n });
        at += n as u64;
    }
}

/// A program's own random stream: the seed's ChaCha8 stream number `program`, so that a program's files
/// and reads are the same alone and beside others (multi1-like's viewperf is viewperf-like's).
pub fn program_rng(seed: u64, program: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(program);
    rng
}

/// One process: its program's name and its reads in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    pub program: &'static str,
    pub ops: Vec<Op>,
}

/// Counts over a workload's reads, per page: each page a read asks for is one reference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Page references in all.
    pub refs: u64,
    /// References to the page on disk right after the one the same process referenced before.
    pub sequential: u64,
    /// Distinct pages referenced (the working set).
    pub distinct_pages: u64,
    /// Per process: (program, references, sequential references).
    pub per_process: Vec<(&'static str, u64, u64)>,
}

impl Stats {
    /// Sequential references as a percentage of all.
    pub fn sequential_percent(&self) -> f64 {
        100.0 * self.sequential as f64 / self.refs.max(1) as f64
    }
}

/// One of DULO's workloads: processes that each read their program's files and end (module doc).
#[derive(Clone, Debug)]
pub struct Dulo {
    name: &'static str,
    scale: f64,
    seed: u64,
    file_pages: Vec<u64>,
    first_lbns: Vec<u64>,
    processes: Vec<Process>,
    /// Per process: the next read.
    cursors: Vec<usize>,
}

/// Programs' stream numbers ([`program_rng`]).
const TPCH: u64 = 2;
const GLIMPSE: u64 = 3;
const TREE: u64 = 4;
const GCC: u64 = 6;

/// The workloads [`Dulo::new`] builds: the five of Table 2 and multi1's two other programs alone.
pub const DULO_PROGRAMS: [&str; 7] =
    ["viewperf-like", "tpch-like", "glimpse-like", "multi1-like", "multi2-like", "cscope-like", "gcc-like"];

impl Dulo {
    /// The workload `name` (one of [`DULO_PROGRAMS`]) at `scale` (refused outside [`SCALE_MIN`] to
    /// [`SCALE_MAX`]) with files and reads drawn from `seed`.
    pub fn new(name: &str, scale: f64, seed: u64) -> Result<Dulo, SimError> {
        if !(SCALE_MIN..=SCALE_MAX).contains(&scale) {
            return Err(SimError::invalid(
                format!("scale={}", fmt_f64(scale)),
                format!("expected a number from {SCALE_MIN} to {SCALE_MAX}"),
            ));
        }
        let mut disk = Disk::new();
        let rng = |program| program_rng(seed, program);
        let (name, processes): (&'static str, Vec<Process>) = match name {
            "viewperf-like" => ("viewperf-like", vec![viewperf::process(&mut disk, scale)]),
            "tpch-like" => ("tpch-like", vec![tpch::process(&mut disk, scale, &mut rng(TPCH))]),
            "glimpse-like" => ("glimpse-like", vec![glimpse::process(&mut disk, scale, &mut rng(GLIMPSE))]),
            "cscope-like" => {
                let tree = cscope::SourceTree::build(&mut disk, scale, &mut rng(TREE));
                ("cscope-like", vec![cscope::process(&tree, &disk)])
            }
            "gcc-like" => {
                let tree = cscope::SourceTree::build(&mut disk, scale, &mut rng(TREE));
                ("gcc-like", vec![gcc::process(&tree, &disk, scale, &mut rng(GCC))])
            }
            "multi1-like" => ("multi1-like", multi::multi1(&mut disk, scale, rng)),
            "multi2-like" => ("multi2-like", multi::multi2(&mut disk, scale, rng)),
            other => {
                return Err(SimError::invalid(
                    format!("unknown DULO workload `{other}`"),
                    format!("expected one of {}", DULO_PROGRAMS.join(", ")),
                ))
            }
        };
        let cursors = vec![0; processes.len()];
        Ok(Dulo {
            name,
            scale,
            seed,
            file_pages: disk.file_pages,
            first_lbns: disk.first_lbns,
            processes,
            cursors,
        })
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn processes(&self) -> &[Process] {
        &self.processes
    }

    /// The LBN of page `page` of `file`.
    pub fn lbn(&self, file: u32, page: u64) -> u64 {
        self.first_lbns[file as usize] + page
    }

    /// References, sequential references and distinct pages of the whole run, from the reads and the
    /// layout.
    pub fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        let mut lbns: Vec<u64> = Vec::new();
        for p in &self.processes {
            let (mut refs, mut sequential) = (0, 0);
            let mut previous: Option<u64> = None;
            for op in &p.ops {
                for i in 0..op.pages as u64 {
                    let lbn = self.lbn(op.file, op.page as u64 + i);
                    refs += 1;
                    if previous.is_some_and(|prev| prev + 1 == lbn) {
                        sequential += 1;
                    }
                    previous = Some(lbn);
                    lbns.push(lbn);
                }
            }
            stats.refs += refs;
            stats.sequential += sequential;
            stats.per_process.push((p.program, refs, sequential));
        }
        lbns.sort_unstable();
        lbns.dedup();
        stats.distinct_pages = lbns.len() as u64;
        stats
    }
}

impl Workload for Dulo {
    fn describe(&self) -> String {
        format!("{}:scale={},seed={}", self.name, self.scale, self.seed)
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn file_lbns(&self) -> Option<&[u64]> {
        Some(&self.first_lbns)
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.processes.len() as u32)
    }

    fn next_request(&mut self, slot: u32, _: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let s = slot as usize;
        let op = *self.processes.get(s)?.ops.get(self.cursors[s])?;
        self.cursors[s] += 1;
        let mut steps = vec![Step::Read {
            file: FileId(op.file),
            offset_bytes: op.page as u64 * PAGE_SIZE_BYTES,
            len_bytes: op.pages as u64 * PAGE_SIZE_BYTES,
        }];
        if op.cpu_ns > 0 {
            steps.push(Step::Cpu(Nanos(op.cpu_ns as u64)));
        }
        Some(RequestProgram { steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::FileLayout;
    use crate::workload::spec::parse_workload;

    /// The workloads at scale 1 and the default seed, built once (each build takes milliseconds).
    fn built() -> &'static [Dulo] {
        static BUILT: std::sync::OnceLock<Vec<Dulo>> = std::sync::OnceLock::new();
        BUILT.get_or_init(|| DULO_PROGRAMS.iter().map(|n| Dulo::new(n, 1.0, SEED_DEFAULT).unwrap()).collect())
    }

    fn workload(name: &str) -> &'static Dulo {
        built().iter().find(|w| w.name() == name).expect("built")
    }

    /// Table 2's and §4.1.1's sequential shares, within 3 points (viewperf: over 99 %).
    #[test]
    fn sequential_shares_are_the_papers() {
        for (name, paper) in [
            ("tpch-like", 3.0),
            ("glimpse-like", 74.0),
            ("multi1-like", 75.0),
            ("multi2-like", 16.0),
            ("cscope-like", 76.0),
        ] {
            let got = workload(name).stats().sequential_percent();
            assert!((got - paper).abs() <= 3.0, "{name}: {got:.2} % sequential, the paper {paper} %");
        }
        let viewperf = workload("viewperf-like").stats().sequential_percent();
        assert!(viewperf > 99.0, "viewperf-like: {viewperf:.2} %");
        let gcc = workload("gcc-like").stats().sequential_percent();
        assert!((30.0..45.0).contains(&gcc), "gcc-like, mostly random: {gcc:.2} %");
        // A multi's programs are its parts alone (the same pages in the same order, elsewhere on the disk):
        // multi1's viewperf is viewperf-like's, multi2's tpc-h tpch-like's.
        let reads = |w: &Dulo, slot: usize| -> Vec<(u64, u32)> {
            let ops = &w.processes()[slot].ops;
            let base = w.lbn(ops[0].file, 0);
            ops.iter().map(|op| (w.lbn(op.file, op.page as u64) - base, op.pages)).collect()
        };
        assert!(reads(workload("multi1-like"), 2) == reads(workload("viewperf-like"), 0));
        assert!(reads(workload("multi2-like"), 1) == reads(workload("tpch-like"), 0));
    }

    /// The module doc's table: files, dataset, reads, references, distinct pages.
    #[test]
    fn sizes_are_as_documented() {
        for (name, files, dataset_mib, reads, refs, distinct) in [
            ("viewperf-like", 5, 66, 2_112, 67_584, 16_896),
            ("tpch-like", 6, 256, 230_000, 237_209, 57_946),
            ("glimpse-like", 8_194, 220, 14_331, 54_230, 17_523),
            ("multi1-like", 10_779, 224, 145_620, 313_598, 57_291),
            ("multi2-like", 8_200, 476, 244_331, 291_439, 75_469),
            ("cscope-like", 10_774, 158, 117_105, 201_975, 40_395),
            ("gcc-like", 10_774, 158, 26_403, 44_039, 4_435),
        ] {
            let w = workload(name);
            let s = w.stats();
            let dataset = w.file_pages().iter().sum::<u64>() as f64 / 256.0;
            let got_reads: usize = w.processes().iter().map(|p| p.ops.len()).sum();
            assert_eq!(
                (w.file_pages().len(), dataset.round() as u64, got_reads, s.refs, s.distinct_pages),
                (files, dataset_mib, reads, refs, distinct),
                "{name}"
            );
        }
    }

    /// Same seed, same files and reads; another seed, other ones.
    #[test]
    fn a_seed_fixes_the_files_and_the_reads() {
        for name in ["tpch-like", "glimpse-like", "multi1-like"] {
            let a = Dulo::new(name, 0.1, 7).unwrap();
            let b = Dulo::new(name, 0.1, 7).unwrap();
            assert_eq!(
                (&a.processes, &a.first_lbns, &a.file_pages),
                (&b.processes, &b.first_lbns, &b.file_pages)
            );
            let c = Dulo::new(name, 0.1, 8).unwrap();
            assert_ne!(a.processes, c.processes, "{name}");
        }
    }

    /// The requests are each process's reads in order, page-aligned and within their files, then `None`;
    /// the files fit the `hdd` without overlapping.
    #[test]
    fn requests_replay_the_reads_and_end() {
        let hdd_pages = crate::device::DeviceSpec::parse("hdd").unwrap().build().capacity_sectors() / 8;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for name in DULO_PROGRAMS {
            let mut w = Dulo::new(name, 0.05, SEED_DEFAULT).unwrap();
            let layout = FileLayout::explicit(w.file_pages(), w.file_lbns().unwrap(), hdd_pages);
            assert!(layout.is_ok(), "{name}: {layout:?}");
            let processes = w.processes.clone();
            assert_eq!(w.natural_concurrency(), Some(processes.len() as u32));
            assert!(w.runs_to_completion());
            for (slot, p) in processes.iter().enumerate() {
                for op in &p.ops {
                    let request = w.next_request(slot as u32, &mut rng).expect("a read left");
                    let (file, offset, len) = match request.steps[..] {
                        [Step::Read { file, offset_bytes, len_bytes }] => (file.0, offset_bytes, len_bytes),
                        [Step::Read { file, offset_bytes, len_bytes }, Step::Cpu(_)] => {
                            (file.0, offset_bytes, len_bytes)
                        }
                        ref other => panic!("{name}: a read and its computing, found {other:?}"),
                    };
                    assert_eq!((file, offset, len), (op.file, op.page as u64 * 4096, op.pages as u64 * 4096));
                    assert!(op.pages >= 1 && (op.page + op.pages) as u64 <= w.file_pages()[file as usize]);
                }
                assert!(w.next_request(slot as u32, &mut rng).is_none(), "{name}: slot {slot} ends");
            }
        }
    }

    /// glimpse-like's isolated files lie away from their partitions: 3 of each partition's 32 files in the
    /// region after the partitions'.
    #[test]
    fn glimpse_partitions_have_isolated_files() {
        let w = workload("glimpse-like");
        // The isolated files' region is the last one.
        let last_region = w.first_lbns.iter().max().unwrap() / REGION_PAGES * REGION_PAGES;
        let isolated = w.first_lbns.iter().filter(|&&lbn| lbn >= last_region).count() as u64;
        assert_eq!(isolated, glimpse::PARTITIONS * glimpse::ISOLATED_PER_PARTITION);
    }

    /// A small multi1-like runs to completion on the `hdd`, reading every page it asks for.
    #[test]
    fn a_small_multi1_runs_to_completion() {
        use crate::config::SimConfig;
        let w = parse_workload("multi1-like:scale=0.02").unwrap();
        let refs = Dulo::new("multi1-like", 0.02, SEED_DEFAULT).unwrap().stats().refs;
        let cfg =
            SimConfig { memory_bytes: 16 << 20, duration: SimConfig::UNTIL_DONE, ..SimConfig::default() };
        let m = crate::server::simulate(cfg, w).unwrap();
        assert!(m.workload_completed);
        assert_eq!(m.pages_accessed, refs);
    }
}
