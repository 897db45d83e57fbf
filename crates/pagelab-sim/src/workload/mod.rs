//! Workloads: what the request handlers do.
//!
//! A workload is a dataset (files and their sizes) and a source of requests; each request is a program of
//! [`Step`]s — file reads and CPU work — that one handler runs from start to end and then exits. Synthetic
//! workloads are all [`pattern::Pattern`]s (the papers' microbenchmarks are named instances, one file each
//! where the paper names them); a TOML file describes new ones with the same fields; trace replay turns a
//! block trace's streams into handlers. Li & Shen's two application workloads have their own datasets and
//! request programs: [`index_search`] (the Ask Jeeves index server) and [`media_clips`] (Apache serving
//! the World Cup '98 media clips). MemRx's evaluation jobs (file scans, a dbench-like file server, an image
//! scaler, a CPU-bound simulator) are in [`memrx`].

pub mod dulo;
pub mod index_search;
pub mod media_clips;
pub mod memory;
pub mod memrx;
pub mod metadata;
pub mod pattern;
pub mod replay;
pub mod scm;
pub mod spec;

use crate::error::SimError;
use pagelab_core::units::fmt_f64;
use pagelab_core::{FileId, Nanos};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};

/// Zipf-distributed popularity ranks `1..=n` (Li & Shen's application workloads: query terms, media
/// files).
#[derive(Clone, Debug)]
pub struct ZipfRanks {
    zipf: Zipf<f64>,
    n: u64,
}

impl ZipfRanks {
    /// Ranks `1..=n` (`n >= 1`, checked by the caller) with exponent `zipf_alpha` (`zipf=`), refused unless
    /// finite and non-negative.
    pub fn new(n: u64, zipf_alpha: f64) -> Result<ZipfRanks, SimError> {
        let bad = |why: String| SimError::invalid(format!("zipf={}", fmt_f64(zipf_alpha)), why);
        if !(zipf_alpha >= 0.0 && zipf_alpha.is_finite()) {
            return Err(bad("expected a finite exponent >= 0".to_string()));
        }
        let zipf = Zipf::new(n, zipf_alpha).map_err(|why| bad(why.to_string()))?;
        Ok(ZipfRanks { zipf, n })
    }

    /// One rank. The sampler returns a float in `1..=n`; the clamp guards its floating-point edge.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> u64 {
        (self.zipf.sample(rng) as u64).clamp(1, self.n)
    }
}

/// One thing a request handler does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `read()` of `len_bytes` at `offset_bytes` of `file` (page-aligned in every built-in workload).
    Read { file: FileId, offset_bytes: u64, len_bytes: u64 },
    /// `write()` of `len_bytes` at `offset_bytes` of `file`, inside the file (a page written in part is
    /// read first if it is not cached).
    Write { file: FileId, offset_bytes: u64, len_bytes: u64 },
    /// A load (or a store, `write`) to page `page` of anonymous memory region `region`: the handler's process
    /// memory (a page fault if the page is not resident).
    Touch { region: u32, page: u64, write: bool },
    /// The process owning anonymous region `region` exits: its memory and swap slots are freed.
    Release { region: u32 },
    /// Computation between reads.
    Cpu(Nanos),
    /// `stat()` of file `ino` (papers/004): a hit in the metadata cache costs the CPU of a cached `stat`;
    /// a miss reads, through the page cache, the directory block holding the file's entry (page `dir.1` of
    /// file `dir.0`) and then the inode table's page holding its inode (`inode`), and caches the file's
    /// dentry + inode object, which may need a slab page (and reclaim).
    Stat { ino: u64, dir: (FileId, u64), inode: (FileId, u64) },
    /// The file system reads one of its own directory blocks (page `block.1` of file `block.0`) as
    /// `readdir()` of a hashed directory reads a leaf: through the page cache, alone, in `GFP_NOFS` context
    /// ([`metadata::ext4_metadata_read`]).
    ReadDirBlock { block: (FileId, u64) },
    /// Wait until every handler slot has reached its barrier; the measured period starts there (what came
    /// before is the workload's preparation, such as papers/004's random metadata accesses or SFS's file
    /// set creation) and paced slots start pacing from it. Only in workloads whose slots are persistent
    /// ([`Workload::persistent_slots`]), each slot passing exactly one barrier, in a closed loop.
    Barrier,
    /// Open loop within one persistent stream: this request arrives `gap` after the slot's previous
    /// paced arrival (the first after time zero). The handler sleeps until then if it is early, starts at
    /// once if it is late (the arrivals do not wait for the service), and the request's response time is
    /// measured from the arrival. First step of a request, only in workloads with
    /// [`Workload::persistent_slots`], or right after its [`Step::Barrier`].
    Pace(Nanos),
}

/// The program of one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestProgram {
    pub steps: Vec<Step>,
}

impl RequestProgram {
    /// (file, offset, length) of each step, which must all be reads (the workloads' tests).
    #[cfg(test)]
    pub(crate) fn reads(&self) -> Vec<(u32, u64, u64)> {
        self.steps
            .iter()
            .map(|s| match *s {
                Step::Read { file, offset_bytes, len_bytes } => (file.0, offset_bytes, len_bytes),
                other => panic!("a request of reads only, found {other:?}"),
            })
            .collect()
    }

    pub fn bytes_read(&self) -> u64 {
        self.steps.iter().map(|s| if let Step::Read { len_bytes, .. } = s { *len_bytes } else { 0 }).sum()
    }
}

/// A source of requests over a fixed dataset.
pub trait Workload: Send {
    /// Name with parameters, for reports (`one-rand:files=6000,file_size=4MiB,block=64KiB`).
    fn describe(&self) -> String;

    /// Sizes of the dataset's files in pages (file `i` is `FileId(i)`); empty for block-trace replay, which
    /// addresses the disk directly through one pseudo-file ([`Workload::block_device_pages`]).
    fn file_pages(&self) -> &[u64];

    /// Where each file lies, when the workload models its placement (DULO's glimpse-like partitions, whose
    /// isolated files lie away from the rest): the first LBN (in 4 KiB pages) of each file of
    /// [`Workload::file_pages`], in file order, each file contiguous from there. The server then lays the
    /// files out exactly so ([`crate::layout::FileLayout::explicit`], which refuses files that overlap or
    /// end beyond the device), ignoring `--placement` and `--extent-size`. Implementors return as many
    /// LBNs as files; `None` (the default): the server places the files itself.
    fn file_lbns(&self) -> Option<&[u64]> {
        None
    }

    /// For block-trace replay: the size of the pseudo-file (the highest LBN + 1, in pages).
    fn block_device_pages(&self) -> Option<u64> {
        None
    }

    /// For block-trace replay cut into files (`--file-size`): the pages of each file. The
    /// [`Workload::block_device_pages`] pages are then files `0, 1, ...` of this many pages end to end
    /// from LBN 0 (the last one shorter), file `f`'s page `i` at LBN `f × size + i`, and the workload
    /// addresses page `i` of `FileId(f)`. `None`: one pseudo-file, [`pagelab_core::FileId::BLOCK_DEVICE`].
    fn block_file_pages(&self) -> Option<u64> {
        None
    }

    /// The built-in device ([`crate::device::DeviceSpec::parse`] name) this workload runs on when the user
    /// names none; `None`: the shared default (`hdd`, the Cheetah 9LP). Li & Shen's microbenchmarks
    /// and application workloads name the Ultrastar 36LZX ([`crate::device::spec::ULTRASTAR`]): their
    /// 19–25 GB datasets need a disk of their testbed's class. A user's `--device` always wins.
    fn default_device(&self) -> Option<&'static str> {
        None
    }

    /// Whether requests touch anonymous memory ([`Step::Touch`]): the server then has swap by default.
    fn uses_anonymous_memory(&self) -> bool {
        false
    }

    /// Whether requests call `stat()` ([`Step::Stat`]): only then does a metadata cache (`--metadata`)
    /// hold anything.
    fn issues_stat(&self) -> bool {
        false
    }

    /// How many handlers the workload itself defines (a trace: one per stream id; Zhang et al.'s streams:
    /// one per stream and random reader; MemRx's jobs: their processes); `None` for the synthetic workloads
    /// whose concurrency the run chooses (`--concurrency`).
    fn natural_concurrency(&self) -> Option<u32> {
        None
    }

    /// Whether this is a program that runs to completion (a trace replay, MemRx's passes, DULO's
    /// multiplications) rather than a steady stream of requests: each handler slot is one process for the
    /// whole run (its stream, readahead state and anonymous memory persist), the run is measured whole
    /// (no warm-up: its execution time is the result) and ends when every slot's program has ended.
    fn runs_to_completion(&self) -> bool {
        self.natural_concurrency().is_some()
    }

    /// Whether each handler slot is one process for the whole run (its stream, readahead state and
    /// anonymous memory persist across its requests), rather than a thread per request. Programs that run
    /// to completion are; so are the steady streams of Zhang et al.'s workloads, which run for the
    /// configured duration.
    fn persistent_slots(&self) -> bool {
        self.runs_to_completion()
    }

    /// Whether every slot passes a [`Step::Barrier`] after the workload's preparation: the measured period
    /// then starts there (the automatic warm-up rule does not apply), or a fixed warm-up after it.
    fn measured_from_barrier(&self) -> bool {
        false
    }

    /// For workloads whose slots are streams worth reporting one by one (papers/002): what the stream in
    /// `slot` is (`sequential 1000 pages/s, cv 1`). `None`: no per-stream report.
    fn stream_kind(&self, slot: u32) -> Option<String> {
        let _ = slot;
        None
    }

    /// The next request for handler slot `slot` (0-based, `< concurrency`), or `None` when the workload
    /// has no more requests for that slot. Synthetic workloads never run out.
    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram>;
}
