//! Where files live on the disk: each file's pages mapped to extents of LBNs (in pages), so that the
//! simulator knows both file offsets (readahead works on those) and disk locations (seeks, DULO's
//! sequences work on those).
//!
//! Files are contiguous by default and placed one after another in file-id order from `start_lbn`. Two
//! knobs age the layout: `extent_pages_mean` cuts files into extents of geometric size around that mean,
//! and `placement = random` lays the extents (or whole files) out in a seeded random order. Block traces
//! use [`FileLayout::identity`]: one pseudo-file whose page index is its LBN.

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

#[derive(Clone, Debug)]
pub struct FileLayout {
    files: Vec<FileMap>,
    /// `Some(n)`: identity layout of one pseudo-file of `n` pages.
    identity_pages: Option<u64>,
    used_pages: u64,
}

impl FileLayout {
    /// One pseudo-file (FileId 0) of `pages` pages whose page index is its LBN (block traces).
    pub fn identity(pages: u64) -> FileLayout {
        FileLayout { files: Vec::new(), identity_pages: Some(pages), used_pages: pages }
    }

    /// Lay out files of the given sizes (pages) on a device of `device_pages` pages.
    /// Errors (as text for the caller to wrap) if the data does not fit.
    pub fn build(
        file_pages: &[u64],
        spec: &LayoutSpec,
        device_pages: u64,
        rng: &mut impl Rng,
    ) -> Result<FileLayout, String> {
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
            return Err(format!(
                "the dataset needs {used} pages of disk (from LBN {} with gaps) but the device has {device_pages}",
                spec.start_lbn
            ));
        }
        let mut files: Vec<FileMap> =
            file_pages.iter().map(|&pages| FileMap { pages, extents: Vec::new() }).collect();
        for (f, e) in pieces {
            files[f as usize].extents.push(e);
        }
        for fm in files.iter_mut() {
            fm.extents.sort_by_key(|e| e.file_page);
        }
        Ok(FileLayout { files, identity_pages: None, used_pages: used })
    }

    pub fn file_count(&self) -> u32 {
        if self.identity_pages.is_some() {
            1
        } else {
            self.files.len() as u32
        }
    }

    /// Size of `file` in pages (EOF for readahead).
    pub fn file_pages(&self, file: FileId) -> u64 {
        match self.identity_pages {
            Some(n) => n,
            None => self.files[file.0 as usize].pages,
        }
    }

    /// Highest LBN (exclusive, in pages) the layout uses.
    pub fn used_pages(&self) -> u64 {
        self.used_pages
    }

    /// The disk location of page `index` of `file`. Caller guarantees the page exists.
    pub fn lbn(&self, file: FileId, index: u64) -> Lbn {
        if self.identity_pages.is_some() {
            return Lbn(index);
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
        if self.identity_pages.is_some() {
            out.push(Extent { file_page: start, lbn: Lbn(start), pages: n });
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

    #[test]
    fn too_large_a_dataset_is_refused() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let err = FileLayout::build(&[10, 10], &LayoutSpec::default(), 15, &mut rng).unwrap_err();
        assert!(err.contains("needs 20 pages"), "{err}");
    }
}
