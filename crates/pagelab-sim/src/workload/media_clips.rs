//! `media-clips`: Li & Shen's Apache server hosting media clips (papers/000 §4.1, Table 1, §4.3).
//!
//! The paper: "we use a workload containing a set of media clips, following the file size and access
//! distribution of the video/audio clips portion of the 1998 World Cup workload. About 9% of files in the
//! workload are large video clips while the rest are small audio clips. The overall file size range is
//! 24KB-1418KB with an average of 152KB. The total dataset size is 20.4GB. During the tests, individual
//! media files are chosen in the client requests according to a Zipf distribution. A random-size portion
//! of each chosen file is accessed." Table 1: not whole-file access, a single stream per request, 20.4 GB
//! in total. "On the arrival of each request, the server spawns a thread to process it" (§4.1): each
//! request is one handler that exits when the request ends, as for every synthetic workload here. §4.3
//! measures it with 256 MB of memory and a 512 KB prefetching depth.
//!
//! The paper leaves the following open; pagelab's choices, fixed (a `key=value` overrides the three
//! marked *key*):
//!
//! - **Units.** Table 1 gives the microbenchmarks' 6000 files of 4 MB as "24.0GB": its GB is 1000 MB, its
//!   MB and KB binary (the 4 MB files are read in 64 KB blocks, so 4 MB is 4 MiB). Read the same way,
//!   20.4 GB is 20,400 MiB, the sizes are KiB, and sizes are whole 4 KiB pages (pagelab reads pages).
//! - **File count** (*key* `files`, default 137,432): the dataset divided by the mean file size,
//!   20,400 MiB / 152 KiB = 137,431.6, rounded. A smaller `files` keeps the same size distributions (a
//!   smaller dataset for a smaller disk).
//! - **Classes.** 9 % of the files (rounded) are video, the rest audio; which files are video is a seeded
//!   shuffle, so videos and audio clips are interleaved on disk as a directory of clips would be.
//! - **Sizes.** Each class is lognormal (the body of Web file sizes is lognormal, as in Barford & Crovella's
//!   SURGE model), truncated to the class's range by redrawing, then rounded to whole pages. Audio:
//!   median 92 KiB, σ = 0.5 (of ln size), within 24 KiB–252 KiB (6–63 pages). Video:
//!   median 640 KiB, σ = 0.45, within 256 KiB–1416 KiB (64–354 pages; 1416 KiB is the largest whole-page
//!   size within 1418 KB). The ranges do not overlap — the paper's "large video clips" and "small audio
//!   clips" — and their union is the paper's 24 KB–1418 KB. The two medians were solved for (numerically,
//!   with the truncations) so that the overall mean is the paper's 152 KiB: the truncated audio mean is
//!   ≈ 100 KiB and the video mean ≈ 678 KiB, and 0.91 × 100 + 0.09 × 678 ≈ 152. A 1998 audio clip of
//!   half a minute to a minute at RealAudio's 16–20 kbit/s is 60–150 KB; a video clip of two to four
//!   minutes at 20–40 kbit/s is 0.3–1.2 MB — the classes' bodies.
//! - **Dataset seed.** The population is drawn from a constant seed ([`DATASET_SEED`]), not the run's
//!   `--seed`: every policy and every run sees the same files (`--seed` varies only the requests).
//!   Lognormal draws use `exp`, whose last bit the platform's libm decides, so a size at a page boundary
//!   could round differently on another platform (the tests check statistics, not individual files).
//! - **Popularity** (*key* `zipf`, default 1.0): the paper says "a Zipf distribution" without an exponent;
//!   1.0 is Zipf's law itself, and Web-server file popularity is commonly modelled as Zipf-like with an
//!   exponent near 1 (SURGE uses 1). The popularity ranks are assigned to files by a seeded permutation
//!   (from the dataset seed), independent of size and class: the popular clips are neither the small nor
//!   the large ones, and not neighbours on disk. Sampling is `rand_distr::Zipf` (rejection-inversion,
//!   constant memory).
//! - **Portion.** "A random-size portion": from the file's first byte (as One-Rand, `pattern.rs`), a
//!   length uniform in whole pages between one page and the whole file, read in `block`-sized reads, the
//!   last one ending where the portion does. A client that stops a clip early has been sent a prefix; a
//!   server reads a prefix. The size is uniform in pages rather than in blocks (One-Rand's rule, whose
//!   4 MB files are whole blocks) because a clip is not: at 64 KiB a block is 42 % of the mean file, and
//!   drawing whole blocks would read every clip under 64 KiB — nearly a quarter of the audio clips — whole,
//!   and half the requests (52 %, measured) would read their clip whole, where Table 1 says the clips are
//!   not whole-file accesses; uniform in pages, 4 % do (measured).
//!   Table 1 lists the clips' stream sizes as "24KB-152KB-1418KB", the file sizes; the text's random
//!   portion (and Table 1's own "whole-file access? No") cannot have the file size as its mean, so
//!   pagelab follows the text: the mean portion is about half a file.
//! - **Read size** (*key* `block`, default 64 KiB): the paper gives none for Apache. Apache 2.0 on Linux
//!   sends static files with `sendfile()` by default, so the application never reads in its own buffer
//!   size: the kernel consumes the file as the socket drains, and the page cache sees one sequential
//!   stream whose pace readahead sets. 64 KiB is the size the paper's microbenchmarks read in, so the
//!   clips differ from One-Rand only in their dataset and popularity. `block=8KiB` models an Apache
//!   with `EnableSendfile off` reading through its 8 KB buffers.
//! - **CPU.** None beyond the simulator's per-page processing cost, as for the microbenchmarks.

use super::pattern::compact_bytes;
use super::{RequestProgram, Step, Workload, ZipfRanks};
use crate::error::SimError;
use pagelab_core::spec::Spec;
use pagelab_core::units::fmt_f64;
use pagelab_core::{FileId, PAGE_SIZE_BYTES};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, LogNormal};

/// The paper's dataset: 20,400 MiB of files averaging 152 KiB (see the module doc).
pub const FILES_PAPER: u64 = 137_432;
/// Files of the population that are video clips, per mille ("About 9% of files").
pub const VIDEO_PER_MILLE: u64 = 90;
/// 24 KiB, the paper's smallest file.
pub const SIZE_MIN_PAGES: u64 = 6;
/// 1416 KiB: the largest whole-page size within the paper's 1418 KB.
pub const SIZE_MAX_PAGES: u64 = 354;
/// 256 KiB: the smallest video clip; audio clips are smaller.
pub const VIDEO_MIN_PAGES: u64 = 64;
pub const ZIPF_DEFAULT: f64 = 1.0;
pub const BLOCK_DEFAULT_BYTES: u64 = 64 << 10;
/// The constant seed of the file population and of the popularity ranks ("mediaclp" in ASCII).
pub const DATASET_SEED: u64 = 0x6d65_6469_6163_6c70;
/// Most files a `files=` may ask for: file ids from 2^23 up name anonymous memory regions.
pub const FILES_MAX: u64 = FileId::ANON_FIRST as u64;

const AUDIO_MEDIAN_KIB: f64 = 92.0;
const AUDIO_SIGMA: f64 = 0.5;
const VIDEO_MEDIAN_KIB: f64 = 640.0;
const VIDEO_SIGMA: f64 = 0.45;
/// Redraws of a size outside its class's range before it is clamped into it: the class bodies lie
/// within their ranges (a draw falls outside with probability under 6 %), so 64 redraws never all miss
/// in practice, and the bound keeps the loop finite whatever the floating point does.
const REDRAWS_MAX: u32 = 64;

pub const KEYS: [&str; 3] = ["files", "zipf", "block"];

/// The media-clips workload (see the module doc).
pub struct MediaClips {
    zipf_alpha: f64,
    block_bytes: u64,
    /// Sizes of the files in pages; file `i` is `FileId(i)`.
    file_pages: Vec<u64>,
    /// The file of popularity rank `r` (1-based) is `rank_file[r - 1]`.
    rank_file: Vec<u32>,
    zipf: ZipfRanks,
}

impl MediaClips {
    /// `media-clips:files=N,zipf=A,block=SIZE` (all optional).
    pub fn from_spec(spec: &Spec) -> Result<MediaClips, SimError> {
        let e = SimError::Core;
        let files = spec.u64("files", FILES_PAPER).map_err(e)?;
        let zipf_alpha = spec.f64("zipf", ZIPF_DEFAULT).map_err(e)?;
        let block_bytes = spec.bytes("block", BLOCK_DEFAULT_BYTES).map_err(e)?;
        spec.finish(&KEYS).map_err(e)?;
        MediaClips::new(files, zipf_alpha, block_bytes)
    }

    pub fn new(files: u64, zipf_alpha: f64, block_bytes: u64) -> Result<MediaClips, SimError> {
        if !(1..=FILES_MAX).contains(&files) {
            return Err(SimError::invalid(
                format!("files={files}"),
                format!("expected 1 to {FILES_MAX} (file ids below the anonymous regions')"),
            ));
        }
        let zipf = ZipfRanks::new(files, zipf_alpha)?;
        if block_bytes == 0 || !block_bytes.is_multiple_of(PAGE_SIZE_BYTES) {
            return Err(SimError::invalid(
                format!("block ({block_bytes} B)"),
                format!("expected a positive multiple of the {PAGE_SIZE_BYTES} B page"),
            ));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(DATASET_SEED);
        let file_pages = population(files, &mut rng);
        let mut rank_file: Vec<u32> = (0..files as u32).collect();
        rank_file.shuffle(&mut rng);
        Ok(MediaClips { zipf_alpha, block_bytes, file_pages, rank_file, zipf })
    }

    /// The file of a Zipf-drawn popularity rank.
    fn draw_file(&self, rng: &mut ChaCha8Rng) -> u32 {
        let rank = self.zipf.draw(rng);
        self.rank_file[(rank - 1) as usize]
    }

    /// One request: the file (Zipf-drawn) and the bytes read from its start (see the module doc). The live
    /// benchmark's HTTP client asks for the same (`pagelab bench --live nginx`).
    pub fn draw_request(&self, rng: &mut ChaCha8Rng) -> (u32, u64) {
        let file = self.draw_file(rng);
        let file_bytes = self.file_pages[file as usize] * PAGE_SIZE_BYTES;
        (file, rng.gen_range(1..=file_bytes / PAGE_SIZE_BYTES) * PAGE_SIZE_BYTES)
    }
}

/// The file sizes in pages: `files` files, 9 % video at shuffled positions, each size drawn from its
/// class's truncated lognormal (see the module doc).
fn population(files: u64, rng: &mut ChaCha8Rng) -> Vec<u64> {
    let videos = (files * VIDEO_PER_MILLE + 500) / 1000;
    let mut is_video: Vec<bool> = (0..files).map(|i| i < videos).collect();
    is_video.shuffle(rng);
    let class = |median_kib: f64, sigma: f64| {
        // Parameters are constants: ln of a positive median and a positive sigma always make a lognormal.
        LogNormal::new((median_kib / 4.0).ln(), sigma).expect("valid lognormal")
    };
    let audio = (class(AUDIO_MEDIAN_KIB, AUDIO_SIGMA), SIZE_MIN_PAGES, VIDEO_MIN_PAGES - 1);
    let video = (class(VIDEO_MEDIAN_KIB, VIDEO_SIGMA), VIDEO_MIN_PAGES, SIZE_MAX_PAGES);
    is_video
        .iter()
        .map(|&v| {
            let (dist, lo, hi) = if v { &video } else { &audio };
            let mut pages = dist.sample(rng).round();
            for _ in 0..REDRAWS_MAX {
                if (*lo as f64..=*hi as f64).contains(&pages) {
                    break;
                }
                pages = dist.sample(rng).round();
            }
            (pages as u64).clamp(*lo, *hi)
        })
        .collect()
}

impl Workload for MediaClips {
    /// The paper's testbed disk class (papers/000 §4: "a 36.4GB IBM 10KRPM SCSI drive"), which holds the
    /// dataset; the shared default (the 9.1 GB Cheetah 9LP) does not.
    fn default_device(&self) -> Option<&'static str> {
        Some(crate::device::spec::ULTRASTAR)
    }

    fn describe(&self) -> String {
        format!(
            "media-clips:files={},zipf={},block={}",
            self.file_pages.len(),
            fmt_f64(self.zipf_alpha),
            compact_bytes(self.block_bytes)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn next_request(&mut self, _slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let (file, portion_bytes) = self.draw_request(rng);
        let steps = (0..portion_bytes.div_ceil(self.block_bytes))
            .map(|i| {
                let offset_bytes = i * self.block_bytes;
                let len_bytes = self.block_bytes.min(portion_bytes - offset_bytes);
                Step::Read { file: FileId(file), offset_bytes, len_bytes }
            })
            .collect();
        Some(RequestProgram { steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper() -> MediaClips {
        MediaClips::new(FILES_PAPER, ZIPF_DEFAULT, BLOCK_DEFAULT_BYTES).unwrap()
    }

    #[test]
    fn population_matches_the_papers_figures() {
        let w = paper();
        let sizes = w.file_pages();
        let kib = |pages: u64| pages * PAGE_SIZE_BYTES / 1024;
        let n = sizes.len() as u64;
        let total_pages: u64 = sizes.iter().sum();
        let total_mib = total_pages as f64 * PAGE_SIZE_BYTES as f64 / (1 << 20) as f64;
        let mean_kib = kib(total_pages) as f64 / n as f64;
        let videos = sizes.iter().filter(|&&p| p >= VIDEO_MIN_PAGES).count() as f64;
        eprintln!(
            "media-clips: {n} files, {videos} video, sizes {}-{mean_kib:.1}-{} KiB, {total_mib:.0} MiB",
            kib(*sizes.iter().min().unwrap()),
            kib(*sizes.iter().max().unwrap())
        );
        assert_eq!(n, 137_432);
        // "24KB-1418KB": the extremes are reached, in whole pages.
        assert_eq!(kib(*sizes.iter().min().unwrap()), 24);
        assert_eq!(kib(*sizes.iter().max().unwrap()), 1416);
        // "an average of 152KB", "20.4GB" (20,400 MiB): within 1 %.
        assert!((mean_kib / 152.0 - 1.0).abs() < 0.01, "mean {mean_kib} KiB");
        assert!((total_mib / 20_400.0 - 1.0).abs() < 0.01, "total {total_mib} MiB");
        // "About 9% of files ... are large video clips".
        assert!((videos / n as f64 - 0.09).abs() < 0.0005, "video fraction {}", videos / n as f64);
    }

    #[test]
    fn the_dataset_does_not_depend_on_the_run() {
        let (a, b) = (paper(), paper());
        assert_eq!(a.file_pages(), b.file_pages());
        assert_eq!(a.rank_file, b.rank_file);
        // A smaller dataset keeps the distributions: the same class mix and a mean within 2 %.
        let small = MediaClips::new(10_000, 1.0, 64 << 10).unwrap();
        let mean_kib = small.file_pages().iter().sum::<u64>() as f64 * 4.0 / 10_000.0;
        assert!((mean_kib / 152.0 - 1.0).abs() < 0.02, "mean {mean_kib} KiB");
        assert_eq!(small.file_pages().iter().filter(|&&p| p >= VIDEO_MIN_PAGES).count(), 900);
    }

    #[test]
    fn a_request_reads_one_prefix_of_one_file_sequentially() {
        let mut w = paper();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut whole, mut partial) = (0, 0);
        for _ in 0..2000 {
            let r = w.next_request(0, &mut rng).unwrap().reads();
            let file = r[0].0;
            let file_bytes = w.file_pages()[file as usize] * PAGE_SIZE_BYTES;
            let mut expected_offset = 0;
            for &(f, offset, len) in &r {
                assert_eq!(f, file, "one stream per request");
                assert_eq!(offset, expected_offset, "sequential from offset 0");
                assert!(len > 0 && len <= 64 << 10 && len % PAGE_SIZE_BYTES == 0);
                expected_offset += len;
            }
            assert!(expected_offset <= file_bytes);
            // Every read but the last is a whole block; the last ends the portion, within the file.
            assert!(r[..r.len() - 1].iter().all(|&(_, _, len)| len == 64 << 10));
            if expected_offset == file_bytes {
                whole += 1;
            } else {
                partial += 1;
            }
        }
        eprintln!("media-clips: {whole} of 2000 requests read their whole file");
        // A random-size portion: now and then the whole file (one chance in its pages), mostly not.
        assert!(whole > 10 && partial > 1800, "whole {whole}, partial {partial}");
    }

    #[test]
    fn requests_are_deterministic_for_a_seed() {
        let run = |seed: u64| {
            let mut w = paper();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..200).map(|_| w.next_request(0, &mut rng).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn popularity_is_zipf() {
        let w = paper();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let draws = 200_000;
        let mut counts = vec![0u32; w.file_pages().len()];
        for _ in 0..draws {
            counts[w.draw_file(&mut rng) as usize] += 1;
        }
        let top_file = w.rank_file[0];
        let top = counts[top_file as usize];
        // The most popular file is drawn about 1 / H(n) of the time (Zipf with exponent 1), and it is the
        // file drawn most often.
        let harmonic: f64 = (1..=FILES_PAPER).map(|r| 1.0 / r as f64).sum();
        let expected = draws as f64 / harmonic;
        assert!((top as f64 / expected - 1.0).abs() < 0.05, "top file {top} draws, expected {expected:.0}");
        assert_eq!(top, *counts.iter().max().unwrap());
        // The files around the median popularity rank, together, are drawn far less than the top one.
        let median: u32 =
            w.rank_file[FILES_PAPER as usize / 2..][..100].iter().map(|&f| counts[f as usize]).sum();
        assert!(median * 50 < top, "100 median files {median} draws, top file {top}");
        // Uniform popularity (zipf=0) has no such head: its busiest file is drawn a few times at most.
        let flat = MediaClips::new(FILES_PAPER, 0.0, 64 << 10).unwrap();
        let mut counts = vec![0u32; flat.file_pages().len()];
        for _ in 0..draws {
            counts[flat.draw_file(&mut rng) as usize] += 1;
        }
        assert!(*counts.iter().max().unwrap() < 20, "uniform busiest {}", counts.iter().max().unwrap());
    }

    #[test]
    fn mean_portion_is_about_half_a_file() {
        let mut w = paper();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut read, mut sizes) = (0u64, 0u64);
        for _ in 0..20_000 {
            let p = w.next_request(0, &mut rng).unwrap();
            let Step::Read { file, .. } = p.steps[0] else { unreachable!() };
            read += p.bytes_read();
            sizes += w.file_pages()[file.0 as usize] * PAGE_SIZE_BYTES;
        }
        let fraction = read as f64 / sizes as f64;
        eprintln!("media-clips: portions read {fraction:.3} of the chosen files' bytes");
        // A uniform length of 1..=n pages has mean (n + 1) / 2: a little over half.
        assert!((0.5..0.56).contains(&fraction), "portion {fraction:.3} of the files' bytes");
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let err = |text: &str| {
            MediaClips::from_spec(&Spec::parse(text).unwrap()).err().expect("refused").to_string()
        };
        assert!(err("media-clips:files=0").starts_with("files=0: expected 1 to"));
        assert!(err("media-clips:zipf=-1").starts_with("zipf=-1: expected a finite exponent"));
        assert!(err("media-clips:block=1000").starts_with("block (1000 B): expected a positive multiple"));
        assert!(err("media-clips:size=3").contains("unknown parameter(s) size"));
    }
}
