//! DULO's workloads (papers/001: Jiang, Ding, Chen, Xiao, Zhang, "DULO: an effective buffer cache
//! management scheme to exploit both temporal and spatial locality", FAST 2005, §4.1.1 and Table 2):
//! synthetic programs modelled on the paper's five traces, whose own data is not public. (The LIRS traces
//! in `data/traces/lirs` share two of the names, not the contents: see `data/traces/README.md`.)
//!
//! DOCS_PLACEHOLDER

pub mod cscope;
pub mod gcc;
pub mod glimpse;
pub mod multi;
pub mod tpch;
pub mod viewperf;

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
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
                format!("scale={scale}"),
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

    #[test]
    fn print_stats() {
        for name in DULO_PROGRAMS {
            let w = Dulo::new(name, 1.0, SEED_DEFAULT).unwrap();
            let s = w.stats();
            let per: Vec<String> = s
                .per_process
                .iter()
                .map(|(p, r, q)| format!("{p}: {r} refs {:.2}%", 100.0 * *q as f64 / *r as f64))
                .collect();
            let reqs: usize = w.processes().iter().map(|p| p.ops.len()).sum();
            println!(
                "{name}: files {} refs {} seq {:.2}% distinct {} ({:.1} MiB) reads {reqs} [{}] last lbn {}",
                w.file_pages.len(),
                s.refs,
                s.sequential_percent(),
                s.distinct_pages,
                s.distinct_pages as f64 / 256.0,
                per.join("; "),
                w.first_lbns.iter().zip(&w.file_pages).map(|(l, p)| l + p).max().unwrap()
            );
        }
    }
}
