//! Where files live on the disk: each file's pages mapped to extents of LBNs (in pages), so that the
//! simulator knows both file offsets (readahead works on those) and disk locations (seeks, DULO's
//! sequences work on those).
//!
//! Files are contiguous by default and placed one after another in file-id order from `start_lbn`. Two
//! knobs age the layout: `extent_pages_mean` cuts files into extents of geometric size around that mean,
//! and `placement = random` lays the extents (or whole files) out in a seeded random order. Block traces
//! use [`FileLayout::identity`]: one pseudo-file whose page index is its LBN; or, cut into files
//! (`simulate --trace --file-size`), [`FileLayout::block_files`]: consecutive files of one size laid end to
//! end from LBN 0, so that page `i` of file `f` is at LBN `f × size + i`, exactly where the uncut
//! pseudo-file had it. The placement is arithmetic rather than a [`FileLayout::build`] of equal files
//! (which gives the same LBNs under the default spec) for two reasons: a trace may be cut into millions of
//! files, and `build` keeps an extent list per file; and the disk addresses must not depend on
//! `--placement` or `--extent-size`, which describe a file system's aging, not a block device.
//! A workload that models where its files lie (DULO's glimpse-like partitions with isolated files) names
//! each file's first LBN ([`crate::workload::Workload::file_lbns`]): [`FileLayout::explicit`], each file
//! one extent there, whatever `--placement` says.

use crate::error::SimError;
use pagelab_core::buffer::{DiskRun, Layout};
use pagelab_core::{FileId, Lbn};
use rand::seq::SliceRandom;
use rand::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Files (extents) in file-id order.
    Sequential,
    /// Files (extents) in a seeded random order.
    Random,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutSpec {
    pub placement: Placement,
    /// 0: every file is one extent. Otherwise files are cut into extents of geometric size with this mean.
    pub extent_pages_mean: u64,
    /// First LBN (in pages) used for data.
    pub start_lbn: u64,
    /// Free pages left between consecutive extents.
    pub gap_pages: u64,
}

impl Default for LayoutSpec {
    fn default() -> Self {
        LayoutSpec { placement: Placement::Sequential, extent_pages_mean: 0, start_lbn: 0, gap_pages: 0 }
    }
}

/// A run of pages contiguous both in the file and on the disk.
pub type Extent = DiskRun;

#[derive(Clone, Debug)]
struct FileMap {
    pages: u64,
    /// Sorted by `file_page`, covering `0..pages` without gaps.
    extents: Vec<Extent>,
}

/// A block device's pages cut into consecutive files of `file_pages` pages (the last may be shorter).
#[derive(Clone, Copy, Debug)]
struct BlockFiles {
    /// The device's pages (the last file ends here).
    pages: u64,
    /// Every file's size but the last's; at least 1.
    file_pages: u64,
}

#[derive(Clone, Debug)]
pub struct FileLayout {
    files: Vec<FileMap>,
    /// `Some`: a block device's pages as files ([`FileLayout::identity`], [`FileLayout::block_files`]).
    block: Option<BlockFiles>,
    used_pages: u64,
}

impl FileLayout {
    /// One pseudo-file (FileId 0) of `pages` pages whose page index is its LBN (block traces).
    pub fn identity(pages: u64) -> FileLayout {
        FileLayout::block_files(pages, pages.max(1))
    }

    /// `pages` pages of a block device cut into files of `file_pages` pages, the last one shorter when
    /// `file_pages` does not divide `pages`: file `f` (`FileId(f)`) holds LBNs
    /// `[f × file_pages, min((f + 1) × file_pages, pages))`, its page `i` at LBN `f × file_pages + i`.
    /// Panics if `file_pages` is 0 (the caller checks its input).
    pub fn block_files(pages: u64, file_pages: u64) -> FileLayout {
        assert!(file_pages >= 1, "files of 0 pages");
        FileLayout { files: Vec::new(), block: Some(BlockFiles { pages, file_pages }), used_pages: pages }
    }

    /// Lay out files of the given sizes (pages) on a device of `device_pages` pages.
    /// Errors if the data does not fit (the caller names the device).
    pub fn build(
        file_pages: &[u64],
        spec: &LayoutSpec,
        device_pages: u64,
        rng: &mut impl Rng,
    ) -> Result<FileLayout, SimError> {
        let mut pieces: Vec<(u32, Extent)> = Vec::new();
        for (f, &pages) in file_pages.iter().enumerate() {
            let mut at = 0;
            while at < pages {
                let len = if spec.extent_pages_mean == 0 {
                    pages - at
                } else {
                    geometric(rng, spec.extent_pages_mean).min(pages - at)
                };
                pieces.push((f as u32, Extent { file_page: at, lbn: Lbn(0), pages: len }));
                at += len;
            }
        }
        if spec.placement == Placement::Random {
            pieces.shuffle(rng);
        }
        let mut lbn = spec.start_lbn;
        for (_, e) in pieces.iter_mut() {
            e.lbn = Lbn(lbn);
            lbn += e.pages + spec.gap_pages;
        }
        let used = lbn.saturating_sub(spec.gap_pages);
        if used > device_pages {
            return Err(SimError::Config(format!(
                "the dataset needs {used} pages of disk (from LBN {} with gaps) but the device has {device_pages}",
                spec.start_lbn
            )));
        }
        let mut files: Vec<FileMap> =
            file_pages.iter().map(|&pages| FileMap { pages, extents: Vec::new() }).collect();
        for (f, e) in pieces {
            files[f as usize].extents.push(e);
        }
        for fm in files.iter_mut() {
            fm.extents.sort_by_key(|e| e.file_page);
        }
        Ok(FileLayout { files, block: None, used_pages: used })
    }

    /// Files of `file_pages` pages, file `f` contiguous from LBN `first_lbns[f]` (in pages): a workload's
    /// own placement ([`crate::workload::Workload::file_lbns`]). Refused: a count of LBNs other than the
    /// count of files, two files that share an LBN, a file that ends beyond the device's `device_pages`.
    pub fn explicit(
        file_pages: &[u64],
        first_lbns: &[u64],
        device_pages: u64,
    ) -> Result<FileLayout, SimError> {
        if file_pages.len() != first_lbns.len() {
            return Err(SimError::invalid(
                format!("{} first LBNs for {} files", first_lbns.len(), file_pages.len()),
                "expected one first LBN per file",
            ));
        }
        let mut ends = Vec::with_capacity(file_pages.len());
        for (f, (&pages, &lbn)) in file_pages.iter().zip(first_lbns).enumerate() {
            let end = lbn.checked_add(pages).filter(|&end| end <= device_pages).ok_or_else(|| {
                SimError::invalid(
                    format!("file {f} ({pages} pages from LBN {lbn})"),
                    format!("expected to end within the device's {device_pages} pages"),
                )
            })?;
            // An empty file takes no LBN, so it overlaps nothing.
            if pages > 0 {
                ends.push((lbn, end, f));
            }
        }
        // Sorted by first LBN, a file overlaps an earlier one if it starts before the furthest end so far.
        ends.sort_unstable();
        let mut furthest: Option<(u64, u64, usize)> = None;
        for &(lbn, end, f) in &ends {
            if let Some((a_lbn, a_end, a)) = furthest.filter(|&(_, a_end, _)| lbn < a_end) {
                return Err(SimError::invalid(
                    format!("files {a} (LBNs {a_lbn}..{a_end}) and {f} (LBNs {lbn}..{end})"),
                    "expected files that do not overlap",
                ));
            }
            if furthest.is_none_or(|(_, a_end, _)| end > a_end) {
                furthest = Some((lbn, end, f));
            }
        }
        let files = file_pages
            .iter()
            .zip(first_lbns)
            .map(|(&pages, &lbn)| FileMap {
                pages,
                extents: if pages == 0 {
                    Vec::new()
                } else {
                    vec![Extent { file_page: 0, lbn: Lbn(lbn), pages }]
                },
            })
            .collect();
        let used_pages = ends.iter().map(|e| e.1).max().unwrap_or(0);
        Ok(FileLayout { files, block: None, used_pages })
    }

    pub fn file_count(&self) -> u32 {
        match self.block {
            // At least one: the identity layout of an empty device is still one (empty) pseudo-file.
            Some(b) => u32::try_from(b.pages.div_ceil(b.file_pages).max(1)).expect("file ids are 32-bit"),
            None => self.files.len() as u32,
        }
    }

    /// Size of `file` in pages (EOF for readahead).
    pub fn file_pages(&self, file: FileId) -> u64 {
        match self.block {
            Some(b) => b.file_pages.min(b.pages.saturating_sub(b.first_lbn(file))),
            None => self.files[file.0 as usize].pages,
        }
    }

    /// Highest LBN (exclusive, in pages) the layout uses.
    pub fn used_pages(&self) -> u64 {
        self.used_pages
    }

    /// The disk location of page `index` of `file`. Caller guarantees the page exists.
    pub fn lbn(&self, file: FileId, index: u64) -> Lbn {
        if let Some(b) = self.block {
            return Lbn(b.first_lbn(file) + index);
        }
        let fm = &self.files[file.0 as usize];
        assert!(index < fm.pages, "page {index} beyond the end of file {} ({} pages)", file.0, fm.pages);
        let e = extent_of(&fm.extents, index);
        e.lbn + (index - e.file_page)
    }

    /// Append to `out` the disk-contiguous runs covering pages `[start, start + n)` of `file`, in file
    /// order (each `Extent` here is the piece of a run inside the range).
    pub fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<Extent>) {
        if n == 0 {
            return;
        }
        if let Some(b) = self.block {
            out.push(Extent { file_page: start, lbn: Lbn(b.first_lbn(file) + start), pages: n });
            return;
        }
        let fm = &self.files[file.0 as usize];
        assert!(start + n <= fm.pages, "range beyond the end of file {}", file.0);
        let mut at = start;
        let end = start + n;
        let mut i = fm.extents.partition_point(|e| e.file_page + e.pages <= at);
        while at < end {
            let e = fm.extents[i];
            let off = at - e.file_page;
            let len = (e.pages - off).min(end - at);
            match out.last_mut() {
                // Adjacent extents that happen to be adjacent on disk too form one run.
                Some(last) if last.lbn + last.pages == e.lbn + off && last.file_page + last.pages == at => {
                    last.pages += len
                }
                _ => out.push(Extent { file_page: at, lbn: e.lbn + off, pages: len }),
            }
            at += len;
            i += 1;
        }
    }
}

impl Layout for FileLayout {
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        FileLayout::runs(self, file, start, n, out)
    }
}

impl BlockFiles {
    /// The LBN of `file`'s page 0.
    fn first_lbn(self, file: FileId) -> u64 {
        (file.0 as u64).checked_mul(self.file_pages).expect("a block file beyond 64-bit LBNs")
    }
}

fn extent_of(extents: &[Extent], index: u64) -> &Extent {
    let i = extents.partition_point(|e| e.file_page + e.pages <= index);
    &extents[i]
}

/// Geometric sample with the given mean (≥ 1).
fn geometric(rng: &mut impl Rng, mean: u64) -> u64 {
    if mean <= 1 {
        return 1;
    }
    let p = 1.0 / mean as f64;
    let u: f64 = rng.gen_range(f64::EPSILON..1.0);
    1 + (u.ln() / (1.0 - p).ln()).floor() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn contiguous_files_follow_each_other() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let l =
            FileLayout::build(&[10, 5], &LayoutSpec { start_lbn: 100, ..Default::default() }, 1000, &mut rng)
                .unwrap();
        assert_eq!(l.lbn(FileId(0), 0), Lbn(100));
        assert_eq!(l.lbn(FileId(1), 4), Lbn(114));
        let mut runs = Vec::new();
        l.runs(FileId(0), 3, 7, &mut runs);
        assert_eq!(runs, vec![Extent { file_page: 3, lbn: Lbn(103), pages: 7 }]);
        assert_eq!(l.used_pages(), 115);
    }

    #[test]
    fn fragmented_files_map_every_page_once() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let spec =
            LayoutSpec { placement: Placement::Random, extent_pages_mean: 4, gap_pages: 1, start_lbn: 0 };
        let sizes = [50, 33, 17];
        let l = FileLayout::build(&sizes, &spec, 10_000, &mut rng).unwrap();
        let mut seen = std::collections::HashSet::new();
        for (f, &n) in sizes.iter().enumerate() {
            let mut runs = Vec::new();
            l.runs(FileId(f as u32), 0, n, &mut runs);
            assert_eq!(runs.iter().map(|r| r.pages).sum::<u64>(), n);
            for i in 0..n {
                assert!(seen.insert(l.lbn(FileId(f as u32), i)), "two pages on one LBN");
            }
            for r in &runs {
                for k in 0..r.pages {
                    assert_eq!(l.lbn(FileId(f as u32), r.file_page + k), r.lbn + k);
                }
            }
        }
    }

    /// 10 pages cut into files of 4: files 0, 1 of 4 pages and file 2 of 2, every page at the LBN the
    /// uncut pseudo-file gives it; runs never leave their file.
    #[test]
    fn block_files_keep_the_identity_lbns() {
        let whole = FileLayout::identity(10);
        let cut = FileLayout::block_files(10, 4);
        assert_eq!((whole.file_count(), cut.file_count()), (1, 3));
        assert_eq!((0..3).map(|f| cut.file_pages(FileId(f))).collect::<Vec<_>>(), vec![4, 4, 2]);
        assert_eq!((cut.used_pages(), whole.used_pages()), (10, 10));
        for lbn in 0..10 {
            let (f, i) = (lbn / 4, lbn % 4);
            assert_eq!(cut.lbn(FileId(f as u32), i), whole.lbn(FileId(0), lbn), "LBN {lbn}");
        }
        let mut runs = Vec::new();
        cut.runs(FileId(2), 0, 2, &mut runs);
        assert_eq!(runs, vec![Extent { file_page: 0, lbn: Lbn(8), pages: 2 }]);
        // A size that divides the device: no short last file; a size beyond it: one file.
        assert_eq!(FileLayout::block_files(8, 4).file_count(), 2);
        assert_eq!(FileLayout::block_files(8, 4).file_pages(FileId(1)), 4);
        assert_eq!(FileLayout::block_files(3, 100).file_pages(FileId(0)), 3);
    }

    #[test]
    fn explicit_layouts_place_each_file_where_told() {
        // File 1 lies before file 0, file 2 far away; an empty file takes no LBN.
        let l = FileLayout::explicit(&[4, 3, 2, 0], &[10, 5, 100, 7], 200).unwrap();
        assert_eq!(
            (l.lbn(FileId(0), 0), l.lbn(FileId(1), 2), l.lbn(FileId(2), 1)),
            (Lbn(10), Lbn(7), Lbn(101))
        );
        assert_eq!((l.file_count(), l.file_pages(FileId(2)), l.used_pages()), (4, 2, 102));
        let mut runs = Vec::new();
        l.runs(FileId(0), 1, 3, &mut runs);
        assert_eq!(runs, vec![Extent { file_page: 1, lbn: Lbn(11), pages: 3 }]);
        // Files that touch end to start do not overlap.
        assert!(FileLayout::explicit(&[5, 5], &[5, 0], 10).is_ok());
        // An empty file between two that overlap does not hide the overlap.
        assert!(FileLayout::explicit(&[4, 0, 3], &[10, 11, 12], 100).is_err());
    }

    #[test]
    fn explicit_layouts_refuse_overlaps_and_files_beyond_the_device() {
        let e = FileLayout::explicit(&[4, 3], &[10, 12], 100).unwrap_err().to_string();
        assert_eq!(e, "files 0 (LBNs 10..14) and 1 (LBNs 12..15): expected files that do not overlap");
        let e = FileLayout::explicit(&[4, 3], &[0, 98], 100).unwrap_err().to_string();
        assert_eq!(e, "file 1 (3 pages from LBN 98): expected to end within the device's 100 pages");
        let e = FileLayout::explicit(&[1], &[u64::MAX], u64::MAX).unwrap_err().to_string();
        assert!(e.starts_with("file 0 (1 pages from LBN"), "{e}");
        let e = FileLayout::explicit(&[1, 1], &[0], 10).unwrap_err().to_string();
        assert_eq!(e, "1 first LBNs for 2 files: expected one first LBN per file");
    }

    #[test]
    fn too_large_a_dataset_is_refused() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let err = FileLayout::build(&[10, 10], &LayoutSpec::default(), 15, &mut rng).unwrap_err();
        assert!(err.to_string().contains("needs 20 pages"), "{err}");
    }
}
