//! MemRx's evaluation workloads: jobs of fixed work whose runtime is the result (papers/003, Jones et al.,
//! "MemRx", UW-Madison TR 1573, 2006, §5). Each "is initially executed with 128 MB of available memory" and
//! rerun "at each larger 32 MB interval up to 512 MB"; §5.1.1: "The workloads are configured to require a
//! working set of approximately 256 MB." The paper ran them on a 2.4 GHz Pentium 4 with a Western Digital
//! WD1200BB ATA disk under Linux 2.4.30 (§5), so every workload here names that disk
//! ([`Workload::default_device`] `wd1200bb`). The VM microbenchmarks are `vm-seq` and `vm-random`
//! (`workload::memory`).
//!
//! Every workload runs to completion ([`Workload::runs_to_completion`]): each handler slot is one process
//! (or thread) for the whole run, and the run ends when every slot's program has ended. A slot's program
//! is emitted request by request, each request at most [`STEPS_MAX`] steps (a request is cut once it
//! reaches [`STEPS_CUT`] steps, and no unit of work adds more than the difference), as
//! `workload::memory`'s `PASS_PAGES_MAX` keeps `vm-seq`'s.
//!
//! # `fs-seq` — FS Sequential and FS Sequential-MT (Table 1)
//!
//! Table 1: "Sequentially scan a fixed size section of a filesystem file repeatedly"; §5.1.1: "FS
//! Sequential sequentially reads 256 MB of a 1 GB file 10 times". Keys `file_size` (1GiB), `size`
//! (256MiB, the section, from offset 0), `passes` (10), `block` (128KiB), `threads` (1). Choices:
//! - The section starts at offset 0 of the file (the paper does not say where it lies; only its size
//!   matters to a sequential scan).
//! - `block`, the `read()` size, is 128 KiB: the paper does not give it. A sequential scan touches the same
//!   pages in the same order whatever the size; the size only sets how many calls a pass takes. 128 KiB is
//!   Linux 2.6's default readahead window (pagelab's default prefetcher), so each call asks for about one
//!   window, and a 256 MiB pass is 2,048 calls.
//! - `threads=N` (FS Sequential-MT, Table 1: "A multi-threaded version of FS Sequential"; §5.1.2: it
//!   "repeatedly does a fixed-size linear scan using a specified number of worker threads"): N handler
//!   slots ([`Workload::natural_concurrency`]) and, by default (`scan=shared`), one scan: each thread, when
//!   free, takes the scan's next `block` — we read "a fixed-size linear scan using … worker threads" as
//!   one scan the workers share. The total work (`size` × `passes` bytes), the working set and the order
//!   in which pages are first asked for are then the same for every N, so the runs of Figure 4 differ only
//!   in their concurrency, which is what that figure measures. `scan=split` cuts the section into N
//!   contiguous parts of whole pages (part i is pages `[i·P/N, (i+1)·P/N)` of the section's P pages) and
//!   thread i scans its part `passes` times. Split scans are not a stack workload: a thread whose part
//!   hits in memory runs ahead of the others, so pages' reuse distances depend on the memory size (at
//!   256 MiB the four parts mostly hit, where MemRx's run at 128 MiB, all threads at the disk's pace,
//!   saw every page reused 256 MiB later). `fs-seq-mt` is `fs-seq` with `threads=4` by default (the
//!   paper's thread counts are in Figure 4, which our copy lost).
//!
//! # `fs-random` — FS Random (Table 1)
//!
//! Table 1: "Randomly read page-sized blocks from a fixed-size filesystem file repeatedly"; §5.1.1: "FS
//! Random randomly reads 512 MB from the same 256 MB section of a 1 GB file". Keys `file_size` (1GiB),
//! `section` (256MiB, from offset 0), `total` (512MiB), `block` (4KiB, "page-sized"), `threads` (1).
//! Each read is one `block` at an offset drawn uniformly from the section's block-aligned offsets with the
//! run's random generator (deterministic per seed). With `threads=N` thread i reads blocks
//! `[i·B/N, (i+1)·B/N)` of the B = `total`/`block` (same total work for every N, as `fs-seq`'s).
//!
//! # `dbench` — a dbench-like file server (Table 3)
//!
//! Table 3: "Network file server benchmark, simulates network file I/O from many clients"; §5.1.5: "Dbench
//! was invoked using its standard file access patterns and configured to simulate 20 remote, concurrent
//! clients"; "MemRx reports an optimal operating point of 224 MB rather than the true 160 MB". What is
//! public about dbench (its README and dbench.samba.org, found with the search tool): every client replays
//! the same loadfile, `client.txt`, "derived from a network sniffer dump" of a NetBench run, a sequence of
//! SMB operations (NTCreateX, ReadX, WriteX, Close, QUERY_FILE_INFORMATION, ...), each client in its own
//! directory (`clients/clientN`). We did not use the loadfile itself (its operations are not reproduced
//! here); the mix below is a loadfile-like stand-in whose every size is our choice:
//! - `clients` (20, the paper's): one handler slot each, each with its own `files` files (12) of
//!   `file_size` (640KiB): 7.5 MiB a client, 150 MiB for 20. The paper gives no sizes; we chose the total
//!   so that it exceeds 128 MB (the start, thrashing) and fits in the 160 MB the paper found to be the true
//!   optimal operating point (150 MiB of files plus the kernel's ~6 MiB and its free-page reserve).
//! - One request is one file's session: an open (NTCreateX), the whole file read sequentially in `block`
//!   (64KiB) reads (SMB1's ReadX moves at most 64 KiB a call), a partial overwrite of `write` (16KiB) at a
//!   page-aligned offset drawn from the run's generator, and a close. Each operation costs the server
//!   `op_cpu` (50us: our estimate of Samba's per-SMB work on a 2.4 GHz Pentium 4) on top of the copy
//!   (`--cpu-per-page`). A client visits its files in order, `iterations` (10) times; every client thus
//!   loops over its own 7.5 MiB and together they cycle through 150 MiB.
//! - The overwrite is small (2.5 % of the bytes a session moves) so that the optimal operating point is set
//!   by the files read, as the paper's 160 MB is: with `write=64KiB` the pages dirtied over the run (most
//!   of every file after 10 iterations) make writeback cost fall gradually up to 256 MiB in pagelab
//!   (27.6 s at 128 MiB, 16.9 s at 160, 13.4 s at 224, 11.7 s at 256 on the `hdd`), where with 16 KiB
//!   the runtime drops from 23.7 s at 128 MiB to 11.0 s at 160 MiB and stays there.
//! - Left out: dbench's file creation and deletion, directory operations and its fixed-duration run
//!   (MemRx's runtime metric needs fixed work: `iterations` fixes it). At the defaults the job takes about
//!   24 s of simulated time at 128 MiB and 11 s (its first, cold, iteration and its CPU) at 512 MiB on the
//!   `hdd`.
//!
//! # `mogrify` — ImageMagick `mogrify -resize` (Table 3)
//!
//! Table 3: "Image processing application used to scale a large bitmap image"; §5.1.5: "MemRx clearly
//! identifies the workload's optimal operating point at 288 MB". One process: it reads the bitmap file
//! sequentially and decodes it into its pixel cache (anonymous memory, stores), resizes it in two passes
//! (horizontal, then vertical) into an intermediate and an output image, and encodes the output into a
//! second file. Keys `width` (5000), `height` (3600), `scale` (50, percent), `block` (64KiB),
//! `page_cpu` (50us), `decode_cpu` (5us). Choices (the paper names no image):
//! - The image: 5000 × 3600 pixels, a 24-bit BMP of 54 MB (rows padded to 4 bytes, a 54-byte header).
//!   ImageMagick's Q16 build (its default) keeps 8 bytes a pixel (four 16-bit channels): the decoded image
//!   is 144 MB, the intermediate (2500 × 3600) 72 MB and the output (2500 × 1800) 36 MB: 252 MB (240 MiB)
//!   of anonymous memory, which with the kernel's share puts the optimal operating point near the paper's
//!   288 MB and makes the job thrash at 128 MB.
//! - `block` (64KiB) is the size of the reads of the bitmap and of the writes of the output (stdio's
//!   buffering is smaller, but readahead turns a sequential file into large disk reads anyway).
//! - Decoding: each read is followed by stores to the pixel pages it decodes into (in proportion: 8/3
//!   pixel pages a file page) and `decode_cpu` (5us: ~10 ns a pixel, 512 pixels a page) per pixel page.
//! - The resize (ImageMagick's `ResizeImage`, two 1-D filter passes): the horizontal pass reads each source
//!   page once, in order, and stores the intermediate pages its rows produce; the vertical pass reads each
//!   intermediate page once and stores the output. A filter's few neighbouring rows are touched within
//!   microseconds of each other, so they count once (page-granular). `page_cpu` (50us: ~100 ns a pixel
//!   for a Lanczos filter's taps over four channels on a 2.4 GHz Pentium 4, our estimate) per page read.
//!   At the defaults the job computes for about 3 s plus decoding and encoding.
//! - Encoding: the output pixels are read in order and written to the output file in `block` writes.
//!
//! # `cpu-sim` — SimpleScalar (Table 3)
//!
//! Table 3: "Architecture simulator for the Alpha microprocessor"; §5.1.5: "SimpleScalar was used to
//! simulate 10 million instructions from the gzip portion of the SPEC microprocessor benchmarks"; "although
//! its working set exceeds 128 MB, the application is CPU-bound and its runtime benefits very little from
//! additional memory". One process with `size` (160MiB) of anonymous memory that simulates
//! `instructions` (10000000) at `insn_cpu` (3us each: about 330,000 instructions a second for sim-outorder
//! on a 2.4 GHz Pentium 4, our estimate) and loads from its memory once every `touch_every` (100)
//! instructions. Choices (the paper gives only the instruction count and that the working set exceeds
//! 128 MB):
//! - The footprint grows: SimpleScalar allocates a page of simulated memory when the simulated program
//!   first touches it, so the 160 MiB are stored page by page, in order, spread evenly over the first half
//!   of the loads (not all at the start: a simulator computes while its memory grows, and the swap-out
//!   of what does not fit then overlaps its computing).
//! - Locality: the first `hot` (16MiB: the simulator's own tables and the simulated program's active data)
//!   take every load but a fraction `cold` (0.002: 200 of the 100,000 loads) that goes to a random page of
//!   the cold rest; every load is to a page already stored.
//! - These numbers make the job compute for 30 s. They were chosen when the two lists treated a load as
//!   `mark_page_accessed()`: paging then added 6.5 % at 128 MiB on the `hdd` (32.0 s), 1 % at 160 MiB and
//!   nothing from 192 MiB. With anonymous pages kept as 2.6.11 keeps them (on the active list, by their
//!   accessed bit: [`pagelab_core::policy::TwoList`]), the first reclaim finds every bit set, clears them
//!   all and evicts in the order of first touch, the hot part first, and paging adds 21 % at 128 MiB on
//!   the `wd1200bb` (36.4 s against 30.1 s; 27 % on the `hdd`, the table below): the job is no longer CPU-bound at 128 MiB. The numbers were
//!   not changed to make it so again (the paper gives none of them). With a 32 MiB hot part loaded once
//!   every 1,000 instructions instead, paging cost 42 % at 128 MiB under the old rule.
//!
//! # Runtimes at the defaults
//!
//! Simulated seconds on the `hdd` (the Cheetah 9LP: the `wd1200bb` was not yet built in when these were
//! written) from 128 to 512 MiB, the `memrx_runtimes` test (`#[ignore]`d) that prints every 32 MiB step
//! (the `mogrify` and `cpu-sim` rows measured again when anonymous pages took 2.6.11's accessed-bit rule):
//!
//! | workload    | 128 MiB | 160 | 192 | 224 | 256 | 288 | 512 MiB |
//! |-------------|---------|-----|-----|-----|-----|-----|---------|
//! | `fs-seq`    | 171.8 | 171.8 | 171.8 | 171.8 | 171.8 | 18.4 | 18.4 |
//! | `fs-seq-mt` | 179.7 | 179.7 | 179.7 | 179.7 | 33.3 | 18.5 | 18.5 |
//! | `fs-random` | 471.7 | 431.6 | 388.5 | 336.5 | 282.5 | 278.2 | 278.2 |
//! | `dbench`    | 23.7 | 11.0 | 10.9 | 10.9 | 10.9 | 10.9 | 10.9 |
//! | `mogrify`   | 75.7 | 40.5 | 27.1 | 10.3 | 6.9 | 6.2 | 6.2 |
//! | `cpu-sim`   | 38.2 | 36.0 | 30.1 | 30.1 | 30.1 | 30.1 | 30.1 |
//!
//! `fs-random`'s floor is its first reads of the section (65,536 random blocks, all misses whatever the
//! memory); `fs-seq`'s scan is LRU's worst case (nothing hits until the section fits).

use super::{RequestProgram, Step, Workload};
use crate::error::SimError;
use pagelab_core::spec::Spec;
use pagelab_core::units::fmt_f64;
use pagelab_core::{FileId, Nanos, PAGE_SIZE_BYTES};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Steps in one request at most.
pub const STEPS_MAX: usize = 1 << 16;
/// A request is cut once it has this many steps; one unit of work (a read with its decoding, a page with
/// its outputs) adds fewer than `STEPS_MAX - STEPS_CUT`.
pub const STEPS_CUT: usize = 1 << 15;

/// The paper's disk (§5), as a [`crate::device::DeviceSpec::parse`] name.
pub const WD1200BB: &str = "wd1200bb";

/// The names [`memrx_workload`] knows.
pub const MEMRX_WORKLOADS: [&str; 6] = ["fs-seq", "fs-seq-mt", "fs-random", "dbench", "mogrify", "cpu-sim"];

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;
const SECOND_NS: u64 = 1_000_000_000;

/// A size as the largest binary unit it is a whole number of (`1GiB`, `640KiB`, `12345`).
fn fmt_size(bytes: u64) -> String {
    for (unit, name) in [(TIB, "TiB"), (GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{name}", bytes / unit);
        }
    }
    bytes.to_string()
}

/// A duration as the largest unit it is a whole number of (`50us`, `2us`, `100ns`).
fn fmt_ns(ns: u64) -> String {
    for (unit, name) in [(SECOND_NS, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns >= unit && ns.is_multiple_of(unit) {
            return format!("{}{name}", ns / unit);
        }
    }
    format!("{ns}ns")
}

/// A size key in whole pages within `[min, max]`.
fn pages_key(spec: &Spec, key: &str, default: u64, min: u64, max: u64) -> Result<u64, SimError> {
    let v = spec.bytes(key, default).map_err(SimError::Core)?;
    if !(min..=max).contains(&v) || !v.is_multiple_of(PAGE_SIZE_BYTES) {
        return Err(SimError::invalid(
            format!("{key}={v}"),
            format!("expected whole {PAGE_SIZE_BYTES} B pages from {} to {}", fmt_size(min), fmt_size(max)),
        ));
    }
    Ok(v)
}

/// A count key within `[min, max]`.
fn count_key(spec: &Spec, key: &str, default: u64, min: u64, max: u64) -> Result<u64, SimError> {
    let v = spec.u64(key, default).map_err(SimError::Core)?;
    if !(min..=max).contains(&v) {
        return Err(SimError::invalid(format!("{key}={v}"), format!("expected {min} to {max}")));
    }
    Ok(v)
}

/// A duration key within `[min, max]` nanoseconds.
fn ns_key(spec: &Spec, key: &str, default: Nanos, min: u64, max: u64) -> Result<Nanos, SimError> {
    let v = spec.duration_ns(key, default.0).map_err(SimError::Core)?;
    if !(min..=max).contains(&v) {
        return Err(SimError::invalid(
            format!("{key}={}", fmt_ns(v)),
            format!("expected {} to {}", fmt_ns(min), fmt_ns(max)),
        ));
    }
    Ok(Nanos(v))
}

/// `fs-seq:...`, `fs-seq-mt:...`, `fs-random:...`, `dbench:...`, `mogrify:...`, `cpu-sim:...`; `None` for
/// another name.
pub fn memrx_workload(spec: &Spec) -> Result<Option<Box<dyn Workload>>, SimError> {
    let w: Box<dyn Workload> = match spec.name.as_str() {
        "fs-seq" => Box::new(FsSeq::from_spec(spec, 1)?),
        "fs-seq-mt" => Box::new(FsSeq::from_spec(spec, FsSeq::MT_THREADS)?),
        "fs-random" => Box::new(FsRandom::from_spec(spec)?),
        "dbench" => Box::new(Dbench::from_spec(spec)?),
        "mogrify" => Box::new(Mogrify::from_spec(spec)?),
        "cpu-sim" => Box::new(CpuSim::from_spec(spec)?),
        _ => return Ok(None),
    };
    Ok(Some(w))
}

/// Threads: 1 to this.
const THREADS_MAX: u64 = 1024;

/// Per slot: `[start, end)` of its share of `n` units split in `parts` contiguous parts.
fn share(n: u64, parts: u32, i: u32) -> (u64, u64) {
    let (parts, i) = (parts as u64, i as u64);
    (n * i / parts, n * (i + 1) / parts)
}

/// FS Sequential (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct FsSeq {
    pub file_bytes: u64,
    /// The section scanned, from offset 0.
    pub size_bytes: u64,
    pub passes: u64,
    /// The `read()` size.
    pub block_bytes: u64,
    pub threads: u32,
    /// How the threads share the scan (`scan=shared|split`).
    pub scan: Scan,
    file_pages: Vec<u64>,
    /// Per slot (`Split`), or slot 0's entry for all (`Shared`): bytes done in the current pass, and passes
    /// completed.
    progress: Vec<(u64, u64)>,
}

/// How FS Sequential-MT's threads share the scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// One linear scan: each thread takes the next block of it when it is free (the paper's "a fixed-size
    /// linear scan using a specified number of worker threads").
    Shared,
    /// Each thread scans its own contiguous part of the section.
    Split,
}

impl FsSeq {
    pub const FILE_BYTES: u64 = GIB;
    pub const SIZE_BYTES: u64 = 256 * MIB;
    pub const PASSES: u64 = 10;
    pub const BLOCK_BYTES: u64 = 128 * KIB;
    /// `fs-seq-mt`'s default thread count.
    pub const MT_THREADS: u64 = 4;

    pub fn from_spec(spec: &Spec, default_threads: u64) -> Result<FsSeq, SimError> {
        let e = SimError::Core;
        let file_bytes = pages_key(spec, "file_size", Self::FILE_BYTES, PAGE_SIZE_BYTES, TIB)?;
        let size_bytes = pages_key(spec, "size", Self::SIZE_BYTES, PAGE_SIZE_BYTES, TIB)?;
        let passes = count_key(spec, "passes", Self::PASSES, 1, 1_000_000)?;
        let block_bytes = pages_key(spec, "block", Self::BLOCK_BYTES, PAGE_SIZE_BYTES, 64 * MIB)?;
        let threads = count_key(spec, "threads", default_threads, 1, THREADS_MAX)?;
        let scan = match spec.string("scan").as_deref() {
            None | Some("shared") => Scan::Shared,
            Some("split") => Scan::Split,
            Some(other) => {
                return Err(SimError::invalid(format!("scan={other}"), "expected shared or split"))
            }
        };
        spec.finish(&["file_size", "size", "passes", "block", "threads", "scan"]).map_err(e)?;
        let mut w = FsSeq::new(file_bytes, size_bytes, passes, block_bytes, threads as u32)?;
        w.scan = scan;
        Ok(w)
    }

    /// Sizes in whole pages, `threads >= 1`, `passes >= 1` (the parser's checks); refused here: a section
    /// larger than the file, more threads than the section has pages.
    pub fn new(
        file_bytes: u64,
        size_bytes: u64,
        passes: u64,
        block_bytes: u64,
        threads: u32,
    ) -> Result<FsSeq, SimError> {
        assert!(passes >= 1 && threads >= 1 && block_bytes >= PAGE_SIZE_BYTES);
        if size_bytes > file_bytes {
            return Err(SimError::invalid(
                format!("size={size_bytes}, file_size={file_bytes}"),
                "expected size <= file_size",
            ));
        }
        let pages = size_bytes / PAGE_SIZE_BYTES;
        if threads as u64 > pages {
            return Err(SimError::invalid(
                format!("threads={threads}"),
                format!("expected at most one thread per page of the section ({pages} pages)"),
            ));
        }
        let file_pages = vec![file_bytes / PAGE_SIZE_BYTES];
        Ok(FsSeq {
            file_bytes,
            size_bytes,
            passes,
            block_bytes,
            threads,
            scan: Scan::Shared,
            file_pages,
            progress: vec![(0, 0); threads as usize],
        })
    }

    /// Thread `i`'s part of the section, `[start, end)` in bytes.
    pub fn part(&self, i: u32) -> (u64, u64) {
        let (first, last) = share(self.size_bytes / PAGE_SIZE_BYTES, self.threads, i);
        (first * PAGE_SIZE_BYTES, last * PAGE_SIZE_BYTES)
    }
}

impl Workload for FsSeq {
    fn describe(&self) -> String {
        format!(
            "fs-seq:file_size={},size={},passes={},block={},threads={}{}",
            fmt_size(self.file_bytes),
            fmt_size(self.size_bytes),
            self.passes,
            fmt_size(self.block_bytes),
            self.threads,
            if self.scan == Scan::Split && self.threads > 1 { ",scan=split" } else { "" }
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn default_device(&self) -> Option<&'static str> {
        Some(WD1200BB)
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.threads)
    }

    fn next_request(&mut self, slot: u32, _: &mut ChaCha8Rng) -> Option<RequestProgram> {
        if slot >= self.threads {
            return None;
        }
        // Shared: every thread moves the one scan on, a block a request; split: each its own part.
        let (s, (start, end), blocks_max) = match self.scan {
            Scan::Shared if self.threads > 1 => (0, (0, self.size_bytes), 1),
            _ => (slot as usize, self.part(slot), STEPS_CUT),
        };
        let (done, passes) = self.progress[s];
        if passes == self.passes {
            return None;
        }
        let mut at = start + done;
        let mut steps = Vec::new();
        // One request never crosses the end of a pass.
        while at < end && steps.len() < blocks_max {
            let len_bytes = self.block_bytes.min(end - at);
            steps.push(Step::Read { file: FileId(0), offset_bytes: at, len_bytes });
            at += len_bytes;
        }
        self.progress[s] = if at == end { (0, passes + 1) } else { (at - start, passes) };
        Some(RequestProgram { steps })
    }
}

/// FS Random (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct FsRandom {
    pub file_bytes: u64,
    /// The section read, from offset 0.
    pub section_bytes: u64,
    /// Bytes read in all.
    pub total_bytes: u64,
    pub block_bytes: u64,
    pub threads: u32,
    file_pages: Vec<u64>,
    /// Per slot: blocks read.
    done: Vec<u64>,
}

impl FsRandom {
    pub const FILE_BYTES: u64 = GIB;
    pub const SECTION_BYTES: u64 = 256 * MIB;
    pub const TOTAL_BYTES: u64 = 512 * MIB;
    pub const BLOCK_BYTES: u64 = PAGE_SIZE_BYTES;

    pub fn from_spec(spec: &Spec) -> Result<FsRandom, SimError> {
        let e = SimError::Core;
        let file_bytes = pages_key(spec, "file_size", Self::FILE_BYTES, PAGE_SIZE_BYTES, TIB)?;
        let section_bytes = pages_key(spec, "section", Self::SECTION_BYTES, PAGE_SIZE_BYTES, TIB)?;
        let total_bytes = pages_key(spec, "total", Self::TOTAL_BYTES, PAGE_SIZE_BYTES, 16 * TIB)?;
        let block_bytes = pages_key(spec, "block", Self::BLOCK_BYTES, PAGE_SIZE_BYTES, 64 * MIB)?;
        let threads = count_key(spec, "threads", 1, 1, THREADS_MAX)?;
        spec.finish(&["file_size", "section", "total", "block", "threads"]).map_err(e)?;
        FsRandom::new(file_bytes, section_bytes, total_bytes, block_bytes, threads as u32)
    }

    /// Sizes in whole pages, `threads >= 1` (the parser's checks); refused here: a section larger than the
    /// file, a block that does not divide the section and the total, more threads than blocks.
    pub fn new(
        file_bytes: u64,
        section_bytes: u64,
        total_bytes: u64,
        block_bytes: u64,
        threads: u32,
    ) -> Result<FsRandom, SimError> {
        assert!(threads >= 1 && block_bytes >= PAGE_SIZE_BYTES);
        if section_bytes > file_bytes {
            return Err(SimError::invalid(
                format!("section={section_bytes}, file_size={file_bytes}"),
                "expected section <= file_size",
            ));
        }
        if !section_bytes.is_multiple_of(block_bytes) || !total_bytes.is_multiple_of(block_bytes) {
            return Err(SimError::invalid(
                format!("block={block_bytes}, section={section_bytes}, total={total_bytes}"),
                "expected section and total to be whole blocks",
            ));
        }
        let blocks = total_bytes / block_bytes;
        if threads as u64 > blocks {
            return Err(SimError::invalid(
                format!("threads={threads}"),
                format!("expected at most one thread per block read ({blocks} blocks)"),
            ));
        }
        let file_pages = vec![file_bytes / PAGE_SIZE_BYTES];
        Ok(FsRandom {
            file_bytes,
            section_bytes,
            total_bytes,
            block_bytes,
            threads,
            file_pages,
            done: vec![0; threads as usize],
        })
    }

    /// Blocks thread `i` reads.
    pub fn blocks_of(&self, i: u32) -> u64 {
        let (first, last) = share(self.total_bytes / self.block_bytes, self.threads, i);
        last - first
    }
}

impl Workload for FsRandom {
    fn describe(&self) -> String {
        format!(
            "fs-random:file_size={},section={},total={},block={},threads={}",
            fmt_size(self.file_bytes),
            fmt_size(self.section_bytes),
            fmt_size(self.total_bytes),
            fmt_size(self.block_bytes),
            self.threads
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn default_device(&self) -> Option<&'static str> {
        Some(WD1200BB)
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.threads)
    }

    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        if slot >= self.threads {
            return None;
        }
        let s = slot as usize;
        let left = self.blocks_of(slot) - self.done[s];
        if left == 0 {
            return None;
        }
        let n = left.min(STEPS_CUT as u64);
        self.done[s] += n;
        let section_blocks = self.section_bytes / self.block_bytes;
        let steps = (0..n)
            .map(|_| Step::Read {
                file: FileId(0),
                offset_bytes: rng.gen_range(0..section_blocks) * self.block_bytes,
                len_bytes: self.block_bytes,
            })
            .collect();
        Some(RequestProgram { steps })
    }
}

/// The dbench-like file server (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Dbench {
    pub clients: u32,
    /// Files per client.
    pub files: u32,
    pub file_bytes: u64,
    pub iterations: u64,
    /// The ReadX size.
    pub block_bytes: u64,
    /// The overwrite per file session (0: none).
    pub write_bytes: u64,
    /// Server CPU per operation.
    pub op_cpu: Nanos,
    file_pages: Vec<u64>,
    /// Per slot: file sessions done (`iterations × files` in all).
    sessions: Vec<u64>,
}

impl Dbench {
    pub const CLIENTS: u64 = 20;
    pub const FILES: u64 = 12;
    pub const FILE_BYTES: u64 = 640 * KIB;
    pub const ITERATIONS: u64 = 10;
    pub const BLOCK_BYTES: u64 = 64 * KIB;
    pub const WRITE_BYTES: u64 = 16 * KIB;
    pub const OP_CPU: Nanos = Nanos::from_us(50);
    /// Reads of one file at most (`file_size` / `block`): a session is one request of two steps a read.
    pub const READS_MAX: u64 = 16_384;

    pub fn from_spec(spec: &Spec) -> Result<Dbench, SimError> {
        let e = SimError::Core;
        let clients = count_key(spec, "clients", Self::CLIENTS, 1, 1024)?;
        let files = count_key(spec, "files", Self::FILES, 1, 10_000)?;
        let file_bytes = pages_key(spec, "file_size", Self::FILE_BYTES, PAGE_SIZE_BYTES, GIB)?;
        let iterations = count_key(spec, "iterations", Self::ITERATIONS, 1, 1_000_000)?;
        let block_bytes = pages_key(spec, "block", Self::BLOCK_BYTES, PAGE_SIZE_BYTES, 64 * MIB)?;
        let write = spec.bytes("write", Self::WRITE_BYTES).map_err(e)?;
        if write > file_bytes || !write.is_multiple_of(PAGE_SIZE_BYTES) {
            return Err(SimError::invalid(
                format!("write={write}"),
                format!("expected whole {PAGE_SIZE_BYTES} B pages from 0 to file_size ({file_bytes})"),
            ));
        }
        let op_cpu = ns_key(spec, "op_cpu", Self::OP_CPU, 0, SECOND_NS)?;
        spec.finish(&["clients", "files", "file_size", "iterations", "block", "write", "op_cpu"])
            .map_err(e)?;
        // A session is one request: its reads (and their CPU steps) stay within the step bound.
        if file_bytes.div_ceil(block_bytes) > Self::READS_MAX {
            return Err(SimError::invalid(
                format!("file_size={file_bytes}, block={block_bytes}"),
                format!("expected at most {} reads a file", Self::READS_MAX),
            ));
        }
        if clients * files > 1_000_000 {
            return Err(SimError::invalid(
                format!("clients={clients}, files={files}"),
                "expected at most 1000000 files in all",
            ));
        }
        let file_pages = vec![file_bytes / PAGE_SIZE_BYTES; (clients * files) as usize];
        Ok(Dbench {
            clients: clients as u32,
            files: files as u32,
            file_bytes,
            iterations,
            block_bytes,
            write_bytes: write,
            op_cpu,
            file_pages,
            sessions: vec![0; clients as usize],
        })
    }

    /// The program of client `client`'s session with its file `j`: open, the whole file read in order,
    /// the overwrite, close, each operation followed by its CPU.
    fn session(&self, client: u32, j: u32, rng: &mut ChaCha8Rng) -> Vec<Step> {
        let file = FileId(client * self.files + j);
        let cpu = Step::Cpu(self.op_cpu);
        let mut steps = vec![cpu]; // NTCreateX
        let mut at = 0;
        while at < self.file_bytes {
            let len_bytes = self.block_bytes.min(self.file_bytes - at);
            steps.extend([Step::Read { file, offset_bytes: at, len_bytes }, cpu]);
            at += len_bytes;
        }
        if self.write_bytes > 0 {
            let slots = (self.file_bytes - self.write_bytes) / PAGE_SIZE_BYTES;
            let offset_bytes = rng.gen_range(0..=slots) * PAGE_SIZE_BYTES;
            steps.extend([Step::Write { file, offset_bytes, len_bytes: self.write_bytes }, cpu]);
        }
        steps.push(cpu); // Close
        if self.op_cpu == Nanos::ZERO {
            steps.retain(|s| !matches!(s, Step::Cpu(_)));
        }
        steps
    }

    pub fn working_set_bytes(&self) -> u64 {
        self.file_bytes * self.files as u64 * self.clients as u64
    }
}

impl Workload for Dbench {
    fn describe(&self) -> String {
        format!(
            "dbench:clients={},files={},file_size={},iterations={},block={},write={},op_cpu={}",
            self.clients,
            self.files,
            fmt_size(self.file_bytes),
            self.iterations,
            fmt_size(self.block_bytes),
            fmt_size(self.write_bytes),
            fmt_ns(self.op_cpu.0)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn default_device(&self) -> Option<&'static str> {
        Some(WD1200BB)
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(self.clients)
    }

    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        if slot >= self.clients {
            return None;
        }
        let s = slot as usize;
        let done = self.sessions[s];
        if done == self.iterations * self.files as u64 {
            return None;
        }
        self.sessions[s] = done + 1;
        let j = (done % self.files as u64) as u32;
        Some(RequestProgram { steps: self.session(slot, j, rng) })
    }
}

/// `mogrify -resize` (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Mogrify {
    pub width: u64,
    pub height: u64,
    /// Percent.
    pub scale: u64,
    /// Read and write size of the files.
    pub block_bytes: u64,
    /// Resize CPU per page of pixels read.
    pub page_cpu: Nanos,
    /// Decode (encode) CPU per page of pixels stored (read).
    pub decode_cpu: Nanos,
    file_pages: Vec<u64>,
    /// The next unit of work: (phase, unit).
    cursor: (usize, u64),
}

/// The phases of `mogrify`, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Decode,
    Horizontal,
    Vertical,
    Encode,
}

const PHASES: [Phase; 4] = [Phase::Decode, Phase::Horizontal, Phase::Vertical, Phase::Encode];

impl Mogrify {
    pub const WIDTH: u64 = 5000;
    pub const HEIGHT: u64 = 3600;
    pub const SCALE: u64 = 50;
    pub const BLOCK_BYTES: u64 = 64 * KIB;
    pub const PAGE_CPU: Nanos = Nanos::from_us(50);
    pub const DECODE_CPU: Nanos = Nanos::from_us(5);
    /// ImageMagick Q16: four 16-bit channels a pixel.
    pub const PIXEL_BYTES: u64 = 8;
    /// A BMP's file and info headers.
    pub const BMP_HEADER_BYTES: u64 = 54;
    /// Pixels in the source image at most (2^31: 16 GiB of pixel cache).
    pub const PIXELS_MAX: u64 = 1 << 31;

    pub fn from_spec(spec: &Spec) -> Result<Mogrify, SimError> {
        let e = SimError::Core;
        let width = count_key(spec, "width", Self::WIDTH, 1, 1_000_000)?;
        let height = count_key(spec, "height", Self::HEIGHT, 1, 1_000_000)?;
        let scale = count_key(spec, "scale", Self::SCALE, 1, 100)?;
        let block_bytes = pages_key(spec, "block", Self::BLOCK_BYTES, PAGE_SIZE_BYTES, MIB)?;
        let page_cpu = ns_key(spec, "page_cpu", Self::PAGE_CPU, 0, SECOND_NS)?;
        let decode_cpu = ns_key(spec, "decode_cpu", Self::DECODE_CPU, 0, SECOND_NS)?;
        spec.finish(&["width", "height", "scale", "block", "page_cpu", "decode_cpu"]).map_err(e)?;
        if width * height > Self::PIXELS_MAX {
            return Err(SimError::invalid(
                format!("width={width}, height={height}"),
                format!("expected at most {} pixels", Self::PIXELS_MAX),
            ));
        }
        let mut m = Mogrify {
            width,
            height,
            scale,
            block_bytes,
            page_cpu,
            decode_cpu,
            file_pages: Vec::new(),
            cursor: (0, 0),
        };
        m.file_pages = vec![m.bmp_bytes(width, height).div_ceil(PAGE_SIZE_BYTES), m.output_file_pages()];
        Ok(m)
    }

    /// A 24-bit BMP: the header and rows of 3 bytes a pixel padded to 4 bytes.
    fn bmp_bytes(&self, width: u64, height: u64) -> u64 {
        Self::BMP_HEADER_BYTES + (3 * width).next_multiple_of(4) * height
    }

    /// The output's size in pixels (at least one each way).
    pub fn output_size(&self) -> (u64, u64) {
        ((self.width * self.scale / 100).max(1), (self.height * self.scale / 100).max(1))
    }

    fn output_file_pages(&self) -> u64 {
        let (w, h) = self.output_size();
        self.bmp_bytes(w, h).div_ceil(PAGE_SIZE_BYTES)
    }

    /// Pages of the source, intermediate (output width × source height) and output pixel images.
    pub fn image_pages(&self) -> [u64; 3] {
        let (w, h) = self.output_size();
        let pages = |pixels: u64| (pixels * Self::PIXEL_BYTES).div_ceil(PAGE_SIZE_BYTES);
        [pages(self.width * self.height), pages(w * self.height), pages(w * h)]
    }

    /// The process's anonymous memory: the three images, each from a page boundary.
    pub fn anonymous_bytes(&self) -> u64 {
        self.image_pages().iter().sum::<u64>() * PAGE_SIZE_BYTES
    }

    fn units(&self, phase: Phase) -> u64 {
        let [src, mid, _] = self.image_pages();
        let blocks = |pages: u64| (pages * PAGE_SIZE_BYTES).div_ceil(self.block_bytes);
        match phase {
            Phase::Decode => blocks(self.file_pages[0]),
            Phase::Horizontal => src,
            Phase::Vertical => mid,
            Phase::Encode => blocks(self.file_pages[1]),
        }
    }

    /// Unit `k` of `phase` into `steps`.
    fn unit(&self, phase: Phase, k: u64, steps: &mut Vec<Step>) {
        let [src, mid, out] = self.image_pages();
        let (mid_base, out_base) = (src, src + mid);
        let n = self.units(phase);
        // Pages [k m / n, (k + 1) m / n) of an image of m pages: unit k's share, every page once in all.
        let span = |m: u64| (k * m / n, (k + 1) * m / n);
        let touches = |steps: &mut Vec<Step>, base: u64, (a, b): (u64, u64), write: bool| {
            steps.extend((a..b).map(|p| Step::Touch { region: 0, page: base + p, write }));
            b - a
        };
        let cpu = |steps: &mut Vec<Step>, work: u64| {
            if work > 0 {
                steps.push(Step::Cpu(Nanos(work)));
            }
        };
        match phase {
            Phase::Decode | Phase::Encode => {
                let (file, out_image) = if phase == Phase::Decode { (0, false) } else { (1, true) };
                let file_bytes = self.file_pages[file] * PAGE_SIZE_BYTES;
                let offset_bytes = k * self.block_bytes;
                let len_bytes = self.block_bytes.min(file_bytes - offset_bytes);
                let file = FileId(file as u32);
                let pages = if out_image {
                    let pages = touches(steps, out_base, span(out), false);
                    steps.push(Step::Write { file, offset_bytes, len_bytes });
                    pages
                } else {
                    steps.push(Step::Read { file, offset_bytes, len_bytes });
                    touches(steps, 0, span(src), true)
                };
                cpu(steps, self.decode_cpu.0 * pages);
            }
            Phase::Horizontal => {
                touches(steps, 0, (k, k + 1), false);
                touches(steps, mid_base, span(mid), true);
                cpu(steps, self.page_cpu.0);
            }
            Phase::Vertical => {
                touches(steps, mid_base, (k, k + 1), false);
                touches(steps, out_base, span(out), true);
                cpu(steps, self.page_cpu.0);
            }
        }
    }
}

impl Workload for Mogrify {
    fn describe(&self) -> String {
        format!(
            "mogrify:width={},height={},scale={},block={},page_cpu={},decode_cpu={}",
            self.width,
            self.height,
            self.scale,
            fmt_size(self.block_bytes),
            fmt_ns(self.page_cpu.0),
            fmt_ns(self.decode_cpu.0)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn default_device(&self) -> Option<&'static str> {
        Some(WD1200BB)
    }

    fn uses_anonymous_memory(&self) -> bool {
        true
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(1)
    }

    fn next_request(&mut self, slot: u32, _: &mut ChaCha8Rng) -> Option<RequestProgram> {
        if slot != 0 {
            return None;
        }
        let mut steps = Vec::new();
        while steps.len() < STEPS_CUT {
            let (phase, k) = self.cursor;
            let Some(&p) = PHASES.get(phase) else { break };
            if k == self.units(p) {
                self.cursor = (phase + 1, 0);
                continue;
            }
            self.unit(p, k, &mut steps);
            self.cursor = (phase, k + 1);
        }
        (!steps.is_empty()).then_some(RequestProgram { steps })
    }
}

/// The SimpleScalar-like CPU-bound simulator (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct CpuSim {
    pub size_bytes: u64,
    /// The hot part: the region's first bytes.
    pub hot_bytes: u64,
    pub instructions: u64,
    /// CPU per simulated instruction.
    pub insn_cpu: Nanos,
    /// Instructions between two loads from memory (a burst).
    pub touch_every: u64,
    /// Probability that a load goes to the cold part.
    pub cold: f64,
    /// Pages stored so far (the footprint), bursts done.
    cursor: (u64, u64),
}

impl CpuSim {
    pub const SIZE_BYTES: u64 = 160 * MIB;
    pub const HOT_BYTES: u64 = 16 * MIB;
    pub const INSTRUCTIONS: u64 = 10_000_000;
    pub const INSN_CPU: Nanos = Nanos::from_us(3);
    pub const TOUCH_EVERY: u64 = 100;
    pub const COLD: f64 = 0.002;

    pub fn from_spec(spec: &Spec) -> Result<CpuSim, SimError> {
        let e = SimError::Core;
        let size_bytes = pages_key(spec, "size", Self::SIZE_BYTES, PAGE_SIZE_BYTES, TIB)?;
        let hot_bytes = pages_key(spec, "hot", Self::HOT_BYTES, PAGE_SIZE_BYTES, TIB)?;
        if hot_bytes > size_bytes {
            return Err(SimError::invalid(
                format!("hot={hot_bytes}, size={size_bytes}"),
                "expected hot <= size",
            ));
        }
        let instructions = count_key(spec, "instructions", Self::INSTRUCTIONS, 1, 1_000_000_000_000)?;
        let insn_cpu = ns_key(spec, "insn_cpu", Self::INSN_CPU, 1, 1_000_000)?;
        let touch_every =
            count_key(spec, "touch_every", Self::TOUCH_EVERY.min(instructions), 1, instructions)?;
        let cold = spec.f64("cold", Self::COLD).map_err(e)?;
        if !(0.0..=1.0).contains(&cold) {
            return Err(SimError::invalid(format!("cold={}", fmt_f64(cold)), "expected 0 to 1"));
        }
        spec.finish(&["size", "hot", "instructions", "insn_cpu", "touch_every", "cold"]).map_err(e)?;
        Ok(CpuSim { size_bytes, hot_bytes, instructions, insn_cpu, touch_every, cold, cursor: (0, 0) })
    }

    fn pages(&self) -> u64 {
        self.size_bytes / PAGE_SIZE_BYTES
    }

    /// Bursts in the run: one load each, after `touch_every` instructions (at least one).
    pub fn bursts(&self) -> u64 {
        self.instructions / self.touch_every
    }

    /// The footprint after the stores of burst `i`: the pages grow in order over the first half of the
    /// bursts.
    fn footprint(&self, i: u64) -> u64 {
        let growing = (self.bursts() / 2).max(1);
        // u128: a terabyte of pages times 10^12 bursts.
        ((self.pages() as u128 * (i + 1).min(growing) as u128).div_ceil(growing as u128)) as u64
    }
}

impl Workload for CpuSim {
    fn describe(&self) -> String {
        format!(
            "cpu-sim:size={},hot={},instructions={},insn_cpu={},touch_every={},cold={}",
            fmt_size(self.size_bytes),
            fmt_size(self.hot_bytes),
            self.instructions,
            fmt_ns(self.insn_cpu.0),
            self.touch_every,
            fmt_f64(self.cold)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &[]
    }

    fn default_device(&self) -> Option<&'static str> {
        Some(WD1200BB)
    }

    fn uses_anonymous_memory(&self) -> bool {
        true
    }

    fn natural_concurrency(&self) -> Option<u32> {
        Some(1)
    }

    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let bursts = self.bursts();
        if slot != 0 || self.cursor.1 > bursts {
            return None;
        }
        let hot = self.hot_bytes / PAGE_SIZE_BYTES;
        let burst = Step::Cpu(Nanos(self.insn_cpu.0 * self.touch_every));
        let mut steps = Vec::new();
        while steps.len() < STEPS_CUT {
            let (stored, i) = self.cursor;
            if i == bursts {
                // The instructions after the last load, then the end.
                let rest = self.instructions - bursts * self.touch_every;
                if rest > 0 {
                    steps.push(Step::Cpu(Nanos(self.insn_cpu.0 * rest)));
                }
                self.cursor.1 = bursts + 1;
                break;
            }
            let target = self.footprint(i);
            if stored < target {
                // The footprint grows: the simulator allocates the pages the simulated program first
                // touches, a store to each.
                let n = (target - stored).min((STEPS_CUT - steps.len()) as u64);
                steps.extend((stored..stored + n).map(|page| Step::Touch { region: 0, page, write: true }));
                self.cursor.0 = stored + n;
                continue;
            }
            // The burst's instructions, then its load: to the cold part (what of it exists) with
            // probability `cold`, else to the hot part (what of it exists).
            let page = if stored > hot && rng.gen_bool(self.cold) {
                rng.gen_range(hot..stored)
            } else {
                rng.gen_range(0..hot.min(stored))
            };
            steps.extend([burst, Step::Touch { region: 0, page, write: false }]);
            self.cursor.1 = i + 1;
        }
        (!steps.is_empty()).then_some(RequestProgram { steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimConfig;
    use crate::device::DeviceSpec;
    use crate::workload::spec::parse_workload;
    use rand::SeedableRng;

    fn parse(text: &str) -> Box<dyn Workload> {
        parse_workload(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn message(text: &str) -> String {
        parse_workload(text).err().expect("refused").to_string()
    }

    /// Every request of slot `slot` until it ends, each within the step bound.
    fn programs(w: &mut dyn Workload, slot: u32, rng: &mut ChaCha8Rng) -> Vec<RequestProgram> {
        let mut out = Vec::new();
        while let Some(p) = w.next_request(slot, rng) {
            assert!(!p.steps.is_empty() && p.steps.len() <= STEPS_MAX, "{} steps", p.steps.len());
            out.push(p);
        }
        out
    }

    #[test]
    fn defaults_and_round_trips() {
        let cases = [
            ("fs-seq", "fs-seq:file_size=1GiB,size=256MiB,passes=10,block=128KiB,threads=1"),
            ("fs-seq-mt", "fs-seq:file_size=1GiB,size=256MiB,passes=10,block=128KiB,threads=4"),
            ("fs-random", "fs-random:file_size=1GiB,section=256MiB,total=512MiB,block=4KiB,threads=1"),
            (
                "dbench",
                "dbench:clients=20,files=12,file_size=640KiB,iterations=10,block=64KiB,write=16KiB,op_cpu=50us",
            ),
            ("mogrify", "mogrify:width=5000,height=3600,scale=50,block=64KiB,page_cpu=50us,decode_cpu=5us"),
            (
                "cpu-sim",
                "cpu-sim:size=160MiB,hot=16MiB,instructions=10000000,insn_cpu=3us,touch_every=100,cold=0.002",
            ),
        ];
        for (name, described) in cases {
            let w = parse(name);
            assert_eq!(w.describe(), described);
            assert_eq!(parse(&w.describe()).describe(), described, "round trip of {name}");
            assert!(w.runs_to_completion(), "{name}");
            assert_eq!(w.default_device(), Some("wd1200bb"), "{name}");
        }
        let w = parse("fs-seq:file_size=64MiB,size=6MiB,passes=3,block=20KiB,threads=3");
        assert_eq!(parse(&w.describe()).describe(), w.describe());
        assert_eq!(w.natural_concurrency(), Some(3));
        assert_eq!(parse("fs-seq-mt:threads=8").natural_concurrency(), Some(8));
        assert_eq!(parse("dbench").natural_concurrency(), Some(20));
        assert_eq!(parse("dbench").file_pages().len(), 240);
        assert!(parse("mogrify").uses_anonymous_memory() && parse("cpu-sim").uses_anonymous_memory());
        assert!(!parse("fs-seq").uses_anonymous_memory() && !parse("dbench").uses_anonymous_memory());
        let w = parse("dbench:write=0,op_cpu=1500ns");
        assert_eq!(parse(&w.describe()).describe(), w.describe());
        assert!(w.describe().ends_with("write=0,op_cpu=1500ns"), "{}", w.describe());
    }

    #[test]
    fn range_errors_name_the_value_and_the_range() {
        let cases = [
            ("fs-seq:passes=0", "passes=0: expected 1 to 1000000"),
            ("fs-seq:threads=0", "threads=0: expected 1 to 1024"),
            ("fs-seq:size=1000", "size=1000: expected whole 4096 B pages from 4KiB to 1TiB"),
            ("fs-seq:block=0", "block=0: expected whole 4096 B pages from 4KiB to 64MiB"),
            ("fs-seq:size=2GiB", "size=2147483648, file_size=1073741824: expected size <= file_size"),
            ("fs-seq:size=8KiB,threads=3", "threads=3: expected at most one thread per page of the section (2 pages)"),
            ("fs-random:section=2GiB", "section=2147483648, file_size=1073741824: expected section <= file_size"),
            (
                "fs-random:block=12KiB",
                "block=12288, section=268435456, total=536870912: expected section and total to be whole blocks",
            ),
            ("fs-random:total=8KiB,threads=3", "threads=3: expected at most one thread per block read (2 blocks)"),
            ("fs-random:total=0", "total=0: expected whole 4096 B pages from 4KiB to 16TiB"),
            ("dbench:clients=0", "clients=0: expected 1 to 1024"),
            ("dbench:files=0", "files=0: expected 1 to 10000"),
            ("dbench:iterations=0", "iterations=0: expected 1 to 1000000"),
            ("dbench:file_size=2GiB", "file_size=2147483648: expected whole 4096 B pages from 4KiB to 1GiB"),
            ("dbench:write=1MiB", "write=1048576: expected whole 4096 B pages from 0 to file_size (655360)"),
            ("dbench:op_cpu=2s", "op_cpu=2s: expected 0ns to 1s"),
            (
                "dbench:file_size=1GiB,block=4KiB",
                "file_size=1073741824, block=4096: expected at most 16384 reads a file",
            ),
            ("dbench:clients=1000,files=10000", "clients=1000, files=10000: expected at most 1000000 files in all"),
            ("mogrify:scale=0", "scale=0: expected 1 to 100"),
            ("mogrify:width=0", "width=0: expected 1 to 1000000"),
            ("mogrify:height=2000000", "height=2000000: expected 1 to 1000000"),
            ("mogrify:width=100000,height=100000", "width=100000, height=100000: expected at most 2147483648 pixels"),
            ("mogrify:block=2MiB", "block=2097152: expected whole 4096 B pages from 4KiB to 1MiB"),
            ("mogrify:page_cpu=3s", "page_cpu=3s: expected 0ns to 1s"),
            ("cpu-sim:hot=200MiB", "hot=209715200, size=167772160: expected hot <= size"),
            ("cpu-sim:instructions=0", "instructions=0: expected 1 to 1000000000000"),
            ("cpu-sim:insn_cpu=2ms", "insn_cpu=2ms: expected 1ns to 1ms"),
            ("cpu-sim:touch_every=0", "touch_every=0: expected 1 to 10000000"),
            ("cpu-sim:instructions=10,touch_every=11", "touch_every=11: expected 1 to 10"),
            ("cpu-sim:cold=1.5", "cold=1.5: expected 0 to 1"),
        ];
        for (text, expected) in cases {
            assert_eq!(message(text), format!("workload `{text}`: {expected}"));
        }
        let e = message("dbench:threads=2");
        assert!(e.contains("unknown parameter(s) threads"), "{e}");
        let e = message("fs-sequential");
        assert!(e.contains("fs-seq, fs-seq-mt, fs-random, dbench, mogrify, cpu-sim"), "{e}");
    }

    #[test]
    fn fs_seq_reads_its_part_in_order_each_pass() {
        let mut w = FsSeq::new(64 * MIB, 16 * MIB, 2, 128 * KIB, 1).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let reads: Vec<_> = programs(&mut w, 0, &mut rng).iter().flat_map(|p| p.reads()).collect();
        let pass: Vec<_> = (0..128).map(|i| (0, i * 128 * KIB, 128 * KIB)).collect();
        assert_eq!(reads, [pass.clone(), pass].concat(), "16 MiB from offset 0, in order, twice");
        // The default: 2,048 reads a pass, 2.5 GiB in all.
        let mut w = FsSeq::new(GIB, 256 * MIB, 10, 128 * KIB, 1).unwrap();
        let requests = programs(&mut w, 0, &mut rng);
        assert_eq!(requests.len(), 10, "one request a pass");
        assert_eq!(requests.iter().map(|p| p.bytes_read()).sum::<u64>(), 10 * 256 * MIB);
    }

    #[test]
    fn fs_seq_threads_split_the_section_once_per_pass() {
        // 1001 pages in 3 parts, 20 KiB reads (a part's last read is shorter), 3 passes.
        let size = 1001 * PAGE_SIZE_BYTES;
        let mut w = FsSeq::new(8 * MIB, size, 3, 20 * KIB, 3).unwrap();
        w.scan = Scan::Split;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut pages = vec![0u64; 1001];
        let mut total = 0;
        for t in 0..3 {
            let (start, end) = w.part(t);
            let reads: Vec<_> = programs(&mut w, t, &mut rng).iter().flat_map(|p| p.reads()).collect();
            let mut at = start;
            for (i, &(file, offset, len)) in reads.iter().enumerate() {
                assert_eq!(file, 0);
                assert_eq!(offset, at, "thread {t}, read {i}: in order within the part");
                at += len;
                if at == end {
                    at = start; // the next pass
                }
                for p in offset / PAGE_SIZE_BYTES..(offset + len) / PAGE_SIZE_BYTES {
                    pages[p as usize] += 1;
                }
                total += len;
            }
            assert_eq!(at, start, "thread {t} ends at the end of a pass");
        }
        assert_eq!(total, 3 * size, "the same work as one thread");
        assert!(pages.iter().all(|&n| n == 3), "each page once a pass");
        assert!(w.next_request(3, &mut rng).is_none());
    }

    /// The shared scan: whichever thread asks takes the next block, so the threads together read the
    /// section in order, `passes` times, and each stops when the scan is done.
    #[test]
    fn fs_seq_threads_share_one_scan_a_block_at_a_time() {
        let size = 100 * PAGE_SIZE_BYTES;
        let mut w = parse("fs-seq:file_size=1MiB,size=400KiB,passes=2,block=40KiB,threads=3");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut reads = Vec::new();
        // Threads ask in a scrambled order, as completions would have them.
        for i in 0..40u32 {
            let slot = (i * 7) % 3;
            if let Some(p) = w.next_request(slot, &mut rng) {
                reads.extend(p.reads());
            }
        }
        let offsets: Vec<u64> = reads.iter().map(|r| r.1).collect();
        let expected: Vec<u64> = (0..2).flat_map(|_| (0..10).map(|b| b * 40 * KIB)).collect();
        assert_eq!(offsets, expected, "one scan in order, twice");
        assert_eq!(reads.iter().map(|r| r.2).sum::<u64>(), 2 * size);
        assert!((0..3).all(|slot| w.next_request(slot, &mut rng).is_none()));
        let e = message("fs-seq:threads=2,scan=diagonal");
        assert!(e.contains("scan=diagonal: expected shared or split"), "{e}");
    }

    #[test]
    fn fs_random_reads_the_total_inside_the_section() {
        let mut w = FsRandom::new(64 * MIB, 4 * MIB, 300 * MIB, 4 * KIB, 2).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut total = 0;
        let mut seen = std::collections::HashSet::new();
        for t in 0..2 {
            let requests = programs(&mut w, t, &mut rng);
            assert!(requests.len() > 1, "{} blocks cut into requests", w.blocks_of(t));
            for (file, offset, len) in requests.iter().flat_map(|p| p.reads()) {
                assert_eq!((file, len, offset % len), (0, 4 * KIB, 0));
                assert!(offset + len <= 4 * MIB, "offset {offset} outside the section");
                seen.insert(offset);
                total += len;
            }
        }
        assert_eq!(total, 300 * MIB);
        assert_eq!(seen.len(), 1024, "uniform over the section's 1024 blocks");
        // Deterministic per seed.
        let offsets = |seed| {
            let mut w = FsRandom::new(GIB, 256 * MIB, MIB, 4 * KIB, 1).unwrap();
            w.next_request(0, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap()
        };
        assert_eq!(offsets(3), offsets(3));
        assert_ne!(offsets(3), offsets(4));
    }

    #[test]
    fn dbench_clients_read_their_own_files_and_overwrite_part() {
        let mut w = parse_dbench("dbench:clients=3,files=2,file_size=100KiB,iterations=2");
        assert_eq!(w.working_set_bytes(), 600 * KIB);
        assert_eq!(
            Dbench::from_spec(&Spec::parse("dbench").unwrap()).unwrap().working_set_bytes(),
            150 * MIB
        );
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for client in 0..3 {
            let requests = programs(&mut w, client, &mut rng);
            assert_eq!(requests.len(), 4, "2 files × 2 iterations");
            for (i, p) in requests.iter().enumerate() {
                let file = client * 2 + (i % 2) as u32;
                let reads: Vec<_> = p
                    .steps
                    .iter()
                    .filter_map(|s| match *s {
                        Step::Read { file, offset_bytes, len_bytes } => {
                            Some((file.0, offset_bytes, len_bytes))
                        }
                        _ => None,
                    })
                    .collect();
                assert_eq!(reads, vec![(file, 0, 64 * KIB), (file, 64 * KIB, 36 * KIB)], "the whole file");
                let writes: Vec<_> = p
                    .steps
                    .iter()
                    .filter_map(|s| match *s {
                        Step::Write { file, offset_bytes, len_bytes } => {
                            Some((file.0, offset_bytes, len_bytes))
                        }
                        _ => None,
                    })
                    .collect();
                assert_eq!(writes.len(), 1);
                let (f, offset, len) = writes[0];
                assert_eq!((f, len, offset % PAGE_SIZE_BYTES), (file, 16 * KIB, 0));
                assert!(offset + len <= 100 * KIB);
                let cpus =
                    p.steps.iter().filter(|s| matches!(s, Step::Cpu(c) if *c == Dbench::OP_CPU)).count();
                assert_eq!(cpus, 5, "open, two reads, the write, close");
            }
        }
    }

    fn parse_dbench(text: &str) -> Dbench {
        Dbench::from_spec(&Spec::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn mogrify_decodes_resizes_and_encodes_each_page_once() {
        let mut w = Mogrify::from_spec(&Spec::parse("mogrify").unwrap()).unwrap();
        assert_eq!(w.output_size(), (2500, 1800));
        assert_eq!(w.image_pages(), [35157, 17579, 8790]);
        assert_eq!(w.anonymous_bytes() >> 20, 240, "252 MB of pixels");
        assert_eq!(w.file_pages(), &[13184, 3296]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let requests = programs(&mut w, 0, &mut rng);
        let [src, mid, out] = w.image_pages();
        let mut stores = vec![0u32; (src + mid + out) as usize];
        let mut loads = vec![0u32; (src + mid + out) as usize];
        let (mut read, mut written) = (0, 0);
        let mut last_read = None;
        for step in requests.iter().flat_map(|p| &p.steps) {
            match *step {
                Step::Touch { region: 0, page, write: true } => stores[page as usize] += 1,
                Step::Touch { region: 0, page, write: false } => loads[page as usize] += 1,
                Step::Read { file: FileId(0), offset_bytes, len_bytes } => {
                    assert_eq!(offset_bytes, last_read.unwrap_or(0), "the bitmap in order");
                    last_read = Some(offset_bytes + len_bytes);
                    read += len_bytes;
                }
                Step::Write { file: FileId(1), len_bytes, .. } => written += len_bytes,
                Step::Cpu(_) => {}
                other => panic!("{other:?}"),
            }
        }
        assert_eq!((read, written), (13184 * PAGE_SIZE_BYTES, 3296 * PAGE_SIZE_BYTES), "both files whole");
        assert!(stores.iter().all(|&n| n == 1), "each pixel page stored once");
        assert!(loads.iter().all(|&n| n == 1), "and read once");
    }

    #[test]
    fn cpu_sim_grows_its_footprint_then_loads_mostly_hot_pages() {
        let mut w = CpuSim::from_spec(&Spec::parse("cpu-sim").unwrap()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let requests = programs(&mut w, 0, &mut rng);
        let steps: Vec<Step> = requests.iter().flat_map(|p| p.steps.iter().copied()).collect();
        let (pages, hot) = (160 * 256, 16 * 256);
        let mut stored = 0;
        let mut loads = Vec::new();
        let mut stores_at = Vec::new();
        for step in &steps {
            match *step {
                Step::Touch { page, write: true, .. } => {
                    assert_eq!(page, stored, "the footprint grows in order");
                    stored += 1;
                    stores_at.push(loads.len());
                }
                Step::Touch { page, write: false, .. } => {
                    assert!(page < stored, "a load of page {page} before it was stored");
                    loads.push(page);
                }
                Step::Cpu(_) => {}
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(stored, pages, "every page stored once");
        let last_store = *stores_at.last().unwrap();
        assert!((49_990..50_000).contains(&last_store), "the footprint is whole after the first half");
        assert_eq!(loads.len(), 100_000);
        let late_cold = loads[50_000..].iter().filter(|&&p| p >= hot).count();
        assert!((60..140).contains(&late_cold), "{late_cold} cold loads of 0.2 % of 50,000");
        let compute: u64 = steps.iter().map(|s| if let Step::Cpu(n) = s { n.0 } else { 0 }).sum();
        assert_eq!(compute, 10_000_000 * 3_000, "30 s of instructions");
        // Instructions left after the last load are computed at the end.
        let spec = Spec::parse("cpu-sim:size=64KiB,hot=8KiB,instructions=2500,touch_every=1000").unwrap();
        let mut w = CpuSim::from_spec(&spec).unwrap();
        let steps: Vec<Step> = programs(&mut w, 0, &mut rng).into_iter().flat_map(|p| p.steps).collect();
        assert_eq!(steps.last(), Some(&Step::Cpu(Nanos(500 * 3_000))));
        assert_eq!(steps.iter().filter(|s| matches!(s, Step::Touch { write: false, .. })).count(), 2);
    }

    /// Large units of work (a 1 MiB read decoded into ~680 pages, a footprint stored in one burst, 16,384
    /// reads of a file) still make requests within [`STEPS_MAX`] (`programs` checks each).
    #[test]
    fn requests_stay_within_the_step_bound_at_extreme_keys() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for text in [
            "mogrify:width=3000,height=2000,block=1MiB",
            "cpu-sim:size=400MiB,instructions=1000,touch_every=1000",
            "dbench:clients=1,files=1,file_size=64MiB,block=4KiB,iterations=1",
            "fs-random:total=1GiB",
        ] {
            let mut w = parse(text);
            let requests = programs(w.as_mut(), 0, &mut rng);
            assert!(!requests.is_empty(), "{text}");
        }
    }

    /// A run of `workload` on the `hdd` (until the `wd1200bb` exists) in `memory` MiB, to its end.
    fn run(workload: &str, memory_mib: u64) -> crate::metrics::RunMetrics {
        let cfg = SimConfig {
            memory_bytes: memory_mib << 20,
            device: DeviceSpec::parse("hdd").unwrap(),
            duration: SimConfig::UNTIL_DONE,
            ..SimConfig::default()
        };
        let m = crate::server::simulate(cfg, parse(workload)).unwrap();
        assert!(m.workload_completed, "{workload} in {memory_mib} MiB did not complete");
        m
    }

    #[test]
    fn each_workload_runs_to_completion_at_a_reduced_size() {
        let pages = |bytes: u64| bytes / PAGE_SIZE_BYTES;
        let m = run("fs-seq:file_size=64MiB,size=16MiB,passes=2", 32);
        assert_eq!(m.pages_accessed, pages(32 * MIB));
        let m = run("fs-seq-mt:file_size=64MiB,size=16MiB,passes=2,threads=3", 32);
        assert_eq!(m.pages_accessed, pages(32 * MIB));
        let m = run("fs-random:file_size=64MiB,section=16MiB,total=8MiB", 32);
        assert_eq!(m.pages_accessed, pages(8 * MIB));
        let m = run("dbench:clients=4,files=3,file_size=256KiB,iterations=2,write=16KiB", 32);
        // Reads of every file twice, and the overwrites.
        assert_eq!(m.pages_accessed, 4 * 3 * 2 * (64 + 4));
        let m = run("mogrify:width=600,height=400,scale=50", 32);
        let w = Mogrify::from_spec(&Spec::parse("mogrify:width=600,height=400,scale=50").unwrap()).unwrap();
        assert!(m.pages_accessed >= w.file_pages()[0] + w.file_pages()[1], "{}", m.pages_accessed);
        let m = run("cpu-sim:size=8MiB,hot=2MiB,instructions=100000,insn_cpu=10ns", 32);
        assert!(m.pages_accessed >= pages(8 * MIB), "{}", m.pages_accessed);
    }

    /// The defaults from 128 to 512 MiB in 32 MiB steps on the `hdd`, as the paper ran them (a report, not
    /// a check: `cargo test -p pagelab-sim --lib memrx_runtimes -- --ignored --nocapture`; `MEMRX=spec;spec`
    /// chooses the workloads).
    #[test]
    #[ignore]
    fn memrx_runtimes() {
        let chosen = std::env::var("MEMRX").unwrap_or_else(|_| MEMRX_WORKLOADS.join(";"));
        for w in chosen.split(';') {
            for mib in (128..=512).step_by(32) {
                let t = std::time::Instant::now();
                let m = run(w, mib);
                eprintln!(
                    "{w} {mib} MiB: {:.2} s simulated, {} pages accessed ({:.1} s wall)",
                    m.sim_seconds,
                    m.pages_accessed,
                    t.elapsed().as_secs_f64()
                );
            }
        }
    }
}
