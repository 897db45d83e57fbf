//! The synthetic request pattern every built-in workload is an instance of.
//!
//! A request chooses `files_per_request` files (uniformly at random, or round-robin), decides how much of
//! each to read, and reads it in `block`-sized `read()` calls — file after file, or alternating between
//! the files block by block (several simultaneous sequential streams per handler, papers/000 §4.1).
//!
//! Li & Shen's microbenchmarks (papers/000 §4.1: "a dataset of 6000 4MB disk-resident files", 64 KB
//! reads) are the named instances:
//! - `one-whole`: one random file, read whole;
//! - `one-rand`: one random file, read from its start up to a uniformly random length (64 KB … 4 MB);
//! - `two-rand`: two random files, alternating 64 KB blocks, the same random number of blocks from each;
//! - `four-64kb`: four random files, one random 64 KB block from each.
//!
//! The paper does not say where One-Rand's and Two-Rand's reads start; pagelab starts at the beginning of
//! the file (Table 1's "sequential access streams" of 64 KB–4 MB imply a sequential run from one point;
//! the start is immaterial to the disk but not to Linux readahead, which treats offset 0 as sequential).

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
use pagelab_core::{FileId, Nanos, PAGE_SIZE_BYTES};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Length {
    /// The whole file.
    Whole,
    /// Exactly this many bytes (a multiple of the block).
    Fixed(u64),
    /// A uniformly random number of blocks covering `min..=max` bytes.
    Uniform { min: u64, max: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Read from the file's first byte.
    Zero,
    /// From a uniformly random block-aligned offset at which the chosen length still fits.
    RandomAligned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Random,
    /// Files in order, continuing across requests (a scan of the dataset).
    RoundRobin,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub name: String,
    pub files: u32,
    pub file_bytes: u64,
    pub files_per_request: u32,
    /// Alternate between the request's files block by block (else one file after another).
    pub interleave: bool,
    pub block_bytes: u64,
    pub length: Length,
    /// Every file of a request gets the same drawn length (Two-Rand).
    pub same_length: bool,
    pub start: Start,
    pub choice: Choice,
    /// CPU work after each read, beyond the per-page processing cost the CPU model charges.
    pub think: Nanos,
}

/// Li & Shen's microbenchmarks (papers/000 §4.1), the patterns that run on their testbed's class of disk
/// by default ([`Workload::default_device`]).
pub const LI_SHEN: [&str; 4] = ["one-whole", "one-rand", "two-rand", "four-64kb"];

impl Pattern {
    fn li_shen(
        name: &str,
        files_per_request: u32,
        interleave: bool,
        length: Length,
        start: Start,
    ) -> Pattern {
        Pattern {
            name: name.to_string(),
            files: 6000,
            file_bytes: 4 << 20,
            files_per_request,
            interleave,
            block_bytes: 64 << 10,
            length,
            same_length: true,
            start,
            choice: Choice::Random,
            think: Nanos::ZERO,
        }
    }
    pub fn one_whole() -> Pattern {
        Pattern::li_shen("one-whole", 1, false, Length::Whole, Start::Zero)
    }
    pub fn one_rand() -> Pattern {
        Pattern::li_shen("one-rand", 1, false, Length::Uniform { min: 64 << 10, max: 4 << 20 }, Start::Zero)
    }
    pub fn two_rand() -> Pattern {
        Pattern::li_shen("two-rand", 2, true, Length::Uniform { min: 64 << 10, max: 4 << 20 }, Start::Zero)
    }
    pub fn four_64kb() -> Pattern {
        Pattern::li_shen("four-64kb", 4, false, Length::Fixed(64 << 10), Start::RandomAligned)
    }
    /// Sequential scan: each request reads the next file whole.
    pub fn seq() -> Pattern {
        Pattern {
            name: "seq".into(),
            files: 64,
            file_bytes: 64 << 20,
            files_per_request: 1,
            interleave: false,
            block_bytes: 64 << 10,
            length: Length::Whole,
            same_length: true,
            start: Start::Zero,
            choice: Choice::RoundRobin,
            think: Nanos::ZERO,
        }
    }
    /// Random reads: each request reads one random aligned block.
    pub fn random() -> Pattern {
        Pattern {
            name: "random".into(),
            files: 1000,
            file_bytes: 4 << 20,
            files_per_request: 1,
            interleave: false,
            block_bytes: 4 << 10,
            length: Length::Fixed(4 << 10),
            same_length: true,
            start: Start::RandomAligned,
            choice: Choice::Random,
            think: Nanos::ZERO,
        }
    }

    /// Check the pattern is self-consistent; the message names the offending field.
    pub fn validate(&self) -> Result<(), SimError> {
        let page = PAGE_SIZE_BYTES;
        if self.files == 0 || self.files_per_request == 0 {
            return Err(SimError::invalid("files and files_per_request", "expected at least 1"));
        }
        // Every file's pages are keyed by its id, which has 24 bits; the workload also keeps 8 bytes per
        // file, allocated before the run.
        if self.files > FileId::MAX + 1 {
            return Err(SimError::invalid(
                format!("files ({})", self.files),
                format!("expected at most {} (24-bit file ids)", FileId::MAX + 1),
            ));
        }
        if self.files_per_request > self.files {
            return Err(SimError::invalid(
                format!("files_per_request ({})", self.files_per_request),
                format!("expected at most files ({})", self.files),
            ));
        }
        if self.block_bytes == 0 || !self.block_bytes.is_multiple_of(page) {
            return Err(SimError::invalid(
                format!("block ({} B)", self.block_bytes),
                format!("expected a positive multiple of the {page} B page"),
            ));
        }
        if self.file_bytes < self.block_bytes || !self.file_bytes.is_multiple_of(self.block_bytes) {
            return Err(SimError::invalid(
                format!("file_size ({} B)", self.file_bytes),
                format!("expected a positive multiple of block ({} B)", self.block_bytes),
            ));
        }
        let (lo, hi) = match self.length {
            Length::Whole => (self.file_bytes, self.file_bytes),
            Length::Fixed(n) => (n, n),
            Length::Uniform { min, max } => (min, max),
        };
        if lo == 0
            || lo > hi
            || hi > self.file_bytes
            || !lo.is_multiple_of(self.block_bytes)
            || !hi.is_multiple_of(self.block_bytes)
        {
            return Err(SimError::invalid(
                format!("length {lo}..={hi} B"),
                format!(
                    "expected non-empty multiples of block ({} B) within file_size ({} B)",
                    self.block_bytes, self.file_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// `4MiB`, `64KiB`, `1000B`: the largest binary unit that divides the size, as a spec would write it.
pub(crate) fn compact_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{}GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}

/// A [`Pattern`] as a [`Workload`].
pub struct PatternWorkload {
    pattern: Pattern,
    file_pages: Vec<u64>,
    next_file: u32,
}

impl PatternWorkload {
    /// Caller guarantees `pattern.validate()` succeeded.
    pub fn new(pattern: Pattern) -> PatternWorkload {
        pattern.validate().expect("validated pattern");
        let file_pages = vec![pattern.file_bytes / PAGE_SIZE_BYTES; pattern.files as usize];
        PatternWorkload { pattern, file_pages, next_file: 0 }
    }

    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    fn choose_files(&mut self, rng: &mut ChaCha8Rng) -> Vec<u32> {
        let p = &self.pattern;
        let mut chosen: Vec<u32> = Vec::with_capacity(p.files_per_request as usize);
        // Distinct files; the loop is bounded because files_per_request <= files.
        while chosen.len() < p.files_per_request as usize {
            let f = match p.choice {
                Choice::Random => rng.gen_range(0..p.files),
                Choice::RoundRobin => {
                    let f = self.next_file;
                    self.next_file = (self.next_file + 1) % p.files;
                    f
                }
            };
            if !chosen.contains(&f) {
                chosen.push(f);
            }
        }
        chosen
    }

    fn draw_blocks(&self, rng: &mut ChaCha8Rng) -> u64 {
        let p = &self.pattern;
        match p.length {
            Length::Whole => p.file_bytes / p.block_bytes,
            Length::Fixed(n) => n / p.block_bytes,
            Length::Uniform { min, max } => rng.gen_range(min / p.block_bytes..=max / p.block_bytes),
        }
    }

    fn draw_start(&self, blocks: u64, rng: &mut ChaCha8Rng) -> u64 {
        let p = &self.pattern;
        match p.start {
            Start::Zero => 0,
            Start::RandomAligned => {
                let last_start = p.file_bytes / p.block_bytes - blocks;
                rng.gen_range(0..=last_start) * p.block_bytes
            }
        }
    }
}

impl Workload for PatternWorkload {
    fn describe(&self) -> String {
        let p = &self.pattern;
        format!(
            "{}:files={},file_size={},block={}",
            p.name,
            p.files,
            compact_bytes(p.file_bytes),
            compact_bytes(p.block_bytes)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    /// The Ultrastar 36LZX for Li & Shen's four named patterns, with or without parameters
    /// (`one-rand:files=2000` too: the paper's workload on the paper's class of disk); a TOML pattern
    /// keeps the name of its `base` unless it sets `name`.
    fn default_device(&self) -> Option<&'static str> {
        LI_SHEN.contains(&self.pattern.name.as_str()).then_some(crate::device::spec::ULTRASTAR)
    }

    fn next_request(&mut self, _slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let files = self.choose_files(rng);
        let shared = self.draw_blocks(rng);
        // (file, next offset, blocks left)
        let mut streams: Vec<(u32, u64, u64)> = Vec::with_capacity(files.len());
        for &f in &files {
            let blocks = if self.pattern.same_length { shared } else { self.draw_blocks(rng) };
            streams.push((f, self.draw_start(blocks, rng), blocks));
        }
        let p = &self.pattern;
        let mut steps = Vec::new();
        let push_read = |steps: &mut Vec<Step>, s: &mut (u32, u64, u64)| {
            steps.push(Step::Read { file: FileId(s.0), offset_bytes: s.1, len_bytes: p.block_bytes });
            if p.think > Nanos::ZERO {
                steps.push(Step::Cpu(p.think));
            }
            s.1 += p.block_bytes;
            s.2 -= 1;
        };
        if p.interleave {
            let rounds = streams.iter().map(|s| s.2).max().unwrap_or(0);
            for _ in 0..rounds {
                for s in streams.iter_mut().filter(|s| s.2 > 0) {
                    push_read(&mut steps, s);
                }
            }
        } else {
            for s in streams.iter_mut() {
                while s.2 > 0 {
                    push_read(&mut steps, s);
                }
            }
        }
        Some(RequestProgram { steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceSpec;
    use rand::SeedableRng;

    fn reads(p: &RequestProgram) -> Vec<(u32, u64)> {
        p.steps
            .iter()
            .filter_map(|s| match s {
                Step::Read { file, offset_bytes, .. } => Some((file.0, *offset_bytes)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn one_whole_reads_a_file_in_64k_blocks() {
        let mut w = PatternWorkload::new(Pattern::one_whole());
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let p = w.next_request(0, &mut rng).unwrap();
        let r = reads(&p);
        assert_eq!(r.len(), 64);
        assert!(r.iter().all(|&(f, _)| f == r[0].0));
        assert_eq!(
            r.iter().map(|&(_, o)| o).collect::<Vec<_>>(),
            (0..64).map(|i| i * 65536).collect::<Vec<_>>()
        );
        assert_eq!(p.bytes_read(), 4 << 20);
        assert_eq!(w.file_pages().len(), 6000);
        assert_eq!(w.file_pages()[0], 1024);
    }

    #[test]
    fn two_rand_alternates_two_files_with_equal_lengths() {
        let mut w = PatternWorkload::new(Pattern::two_rand());
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..50 {
            let r = reads(&w.next_request(0, &mut rng).unwrap());
            assert_eq!(r.len() % 2, 0);
            let (a, b) = (r[0].0, r[1].0);
            assert_ne!(a, b);
            for (i, &(f, off)) in r.iter().enumerate() {
                assert_eq!(f, if i % 2 == 0 { a } else { b });
                assert_eq!(off, (i as u64 / 2) * 65536);
            }
            assert!(r.len() / 2 >= 1 && r.len() / 2 <= 64);
        }
    }

    #[test]
    fn four_64kb_reads_one_aligned_block_from_each_of_four_files() {
        let mut w = PatternWorkload::new(Pattern::four_64kb());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let r = reads(&w.next_request(0, &mut rng).unwrap());
        assert_eq!(r.len(), 4);
        let mut files: Vec<u32> = r.iter().map(|x| x.0).collect();
        files.dedup();
        assert_eq!(files.len(), 4);
        assert!(r.iter().all(|&(_, o)| o % 65536 == 0 && o + 65536 <= 4 << 20));
    }

    #[test]
    fn one_rand_lengths_cover_64k_to_4m() {
        let mut w = PatternWorkload::new(Pattern::one_rand());
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let lens: Vec<u64> = (0..2000).map(|_| w.next_request(0, &mut rng).unwrap().bytes_read()).collect();
        assert_eq!(*lens.iter().min().unwrap(), 64 << 10);
        assert_eq!(*lens.iter().max().unwrap(), 4 << 20);
        let mean = lens.iter().sum::<u64>() as f64 / lens.len() as f64;
        assert!((mean / (2.03 * 1048576.0) - 1.0).abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn li_shen_patterns_default_to_the_ultrastar() {
        for p in [Pattern::one_whole(), Pattern::one_rand(), Pattern::two_rand(), Pattern::four_64kb()] {
            let name = p.name.clone();
            let w = PatternWorkload::new(p);
            assert_eq!(w.default_device(), Some("ultrastar36lzx"), "{name}");
            let DeviceSpec::Hdd(h) = DeviceSpec::parse(w.default_device().unwrap()).unwrap() else {
                panic!()
            };
            assert!(w.file_pages().iter().sum::<u64>() * 8 <= h.capacity_sectors, "{name} fits");
        }
        for p in [Pattern::seq(), Pattern::random()] {
            assert_eq!(PatternWorkload::new(p).default_device(), None);
        }
    }

    #[test]
    fn bad_patterns_name_the_field() {
        let mut p = Pattern::one_rand();
        p.block_bytes = 1000;
        assert!(p.validate().unwrap_err().to_string().contains("block"));
        let mut p = Pattern::four_64kb();
        p.files = 3;
        assert!(p.validate().unwrap_err().to_string().contains("files_per_request"));
    }
}
