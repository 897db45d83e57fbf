//! A source file as the engine reads it: its descriptor (opened with O_DIRECT, so no kernel cache holds the
//! data a second time), its size, and where its pages lie on disk.
//!
//! Disk locations come from FIEMAP (`FS_IOC_FIEMAP`), so DULO's sequences and the emulated disk see the real
//! layout. Where the file system has no FIEMAP (tmpfs, many network file systems), the stated fallback lays
//! each file out contiguously after the previous one first opened, as a freshly written file system would,
//! and keeps it there ([`FallbackDisk`]). Holes and unwritten tails continue the preceding extent.
//!
//! Both are resolved when the file is opened, outside the engine's lock; [`Layout::runs`] then answers from
//! the extent list under it.

use pagelab_core::buffer::{DiskRun, Layout};
use pagelab_core::{FileId, Lbn, PAGE_SIZE_BYTES};
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Mutex;

/// Extents one FIEMAP call returns at most; a file with more takes more calls.
const FIEMAP_BATCH: usize = 256;
/// Extents kept per file at most: a file more fragmented than this keeps its first ones and continues the
/// last (bounded memory per open file).
const EXTENTS_MAX: usize = 1 << 16;

/// The fallback layout, one per mount: each file contiguous after the previous one placed, where it stays
/// when it is opened again (a file does not move on disk between two opens).
#[derive(Debug, Default)]
pub struct FallbackDisk {
    placed: Mutex<(u64, FxHashMap<FileId, Lbn>)>,
}

impl FallbackDisk {
    fn place(&self, file: FileId, pages: u64) -> Lbn {
        let mut placed = self.placed.lock().unwrap_or_else(|e| e.into_inner());
        let (next, at) = &mut *placed;
        *at.entry(file).or_insert_with(|| {
            let lbn = Lbn(*next);
            *next += pages.max(1);
            lbn
        })
    }
}

/// One extent: pages `[file_page, file_page + pages)` at `lbn` onwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Extent {
    file_page: u64,
    lbn: u64,
    pages: u64,
}

/// How a file's disk locations were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutSource {
    Fiemap,
    /// FIEMAP unsupported: contiguous after the previous file opened.
    Fallback,
}

#[derive(Debug)]
pub struct SourceFile {
    pub file: FileId,
    fd: File,
    pub size_bytes: u64,
    /// The descriptor bypasses the kernel's page cache (O_DIRECT); `false` where the file system refuses it.
    pub direct: bool,
    pub layout_source: LayoutSource,
    extents: Vec<Extent>,
}

impl SourceFile {
    /// Open `path` for reading through the engine: O_DIRECT if the file system allows it, FIEMAP if it has it.
    pub fn open(file: FileId, path: &Path, fallback: &FallbackDisk) -> io::Result<SourceFile> {
        Self::open_with(file, path, fallback, true)
    }

    /// [`SourceFile::open`], or through the kernel's page cache when `direct` is false (the benchmark
    /// baselines of [`crate::baseline`]).
    pub fn open_with(
        file: FileId,
        path: &Path,
        fallback: &FallbackDisk,
        direct: bool,
    ) -> io::Result<SourceFile> {
        let opened = if direct {
            std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path)
        } else {
            Err(io::Error::from_raw_os_error(libc::EINVAL))
        };
        let (fd, direct) = match opened {
            Ok(fd) => (fd, true),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => (File::open(path)?, false),
            Err(e) => return Err(e),
        };
        let size_bytes = fd.metadata()?.len();
        let pages = size_bytes.div_ceil(PAGE_SIZE_BYTES);
        let (extents, layout_source) = match fiemap(&fd, size_bytes) {
            Ok(extents) if !extents.is_empty() => (cover(extents, pages), LayoutSource::Fiemap),
            _ => (
                vec![Extent { file_page: 0, lbn: fallback.place(file, pages).0, pages: pages.max(1) }],
                LayoutSource::Fallback,
            ),
        };
        Ok(SourceFile { file, fd, size_bytes, direct, layout_source, extents })
    }

    pub fn pages(&self) -> u64 {
        self.size_bytes.div_ceil(PAGE_SIZE_BYTES)
    }

    /// Read `bufs` (whole pages, 4 KiB-aligned) from page `first_page` on, as one `preadv`; bytes past the
    /// end of the file read as zeros. Retries interrupted and short reads (bounded: every pass advances).
    ///
    /// # Safety
    /// Caller guarantees each pointer is a 4 KiB-aligned page it owns exclusively for the call.
    pub unsafe fn read_pages(&self, first_page: u64, bufs: &[*mut u8]) -> io::Result<()> {
        let page = PAGE_SIZE_BYTES as usize;
        let total = bufs.len() * page;
        let mut done = 0usize;
        while done < total {
            let iov: Vec<libc::iovec> = bufs
                .iter()
                .enumerate()
                .filter(|&(i, _)| (i + 1) * page > done)
                .map(|(i, &p)| {
                    let skip = done.saturating_sub(i * page);
                    // SAFETY: within the page (skip < page by the filter).
                    libc::iovec { iov_base: unsafe { p.add(skip) }.cast(), iov_len: page - skip }
                })
                .take(libc::UIO_MAXIOV as usize)
                .collect();
            let offset = first_page * PAGE_SIZE_BYTES + done as u64;
            // SAFETY: the iovecs name memory the caller owns (this function's contract).
            let n = unsafe {
                libc::preadv(
                    self.fd.as_raw_fd(),
                    iov.as_ptr(),
                    iov.len() as libc::c_int,
                    offset as libc::off_t,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                break; // end of file: the rest reads as zeros
            }
            done += n as usize;
        }
        if done < total {
            for (i, &p) in bufs.iter().enumerate().filter(|&(i, _)| (i + 1) * page > done) {
                let skip = done.saturating_sub(i * page);
                // SAFETY: within the caller's page.
                unsafe { std::ptr::write_bytes(p.add(skip), 0, page - skip) };
            }
        }
        Ok(())
    }

    /// A plain positioned read, for tests and checks (goes through the kernel unless O_DIRECT).
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.fd.read_at(buf, offset)
    }
}

impl Layout for SourceFile {
    fn runs(&self, file: FileId, start: u64, n: u64, out: &mut Vec<DiskRun>) {
        debug_assert_eq!(file, self.file, "a read's layout is its own file's");
        let end = start + n;
        let pushed_before = out.len();
        let first = self.extents.partition_point(|e| e.file_page + e.pages <= start);
        let mut at = start;
        for e in &self.extents[first..] {
            if at >= end {
                break;
            }
            let upto = end.min(e.file_page + e.pages);
            if upto > at {
                out.push(DiskRun { file_page: at, lbn: Lbn(e.lbn + (at - e.file_page)), pages: upto - at });
                at = upto;
            }
        }
        let ours = out.len() > pushed_before;
        if at < end {
            // Past the last extent (`cover` extends it to the file's size; the file grew since): continue it.
            let last = self.extents.last().expect("a file has one extent at least");
            let lbn = Lbn(last.lbn + (at - last.file_page));
            match out.last_mut() {
                Some(run) if ours && run.lbn.0 + run.pages == lbn.0 => run.pages += end - at,
                _ => out.push(DiskRun { file_page: at, lbn, pages: end - at }),
            }
        }
    }
}

/// Where `path`'s pages lie on disk, from FIEMAP: `(lbn, pages)` per extent, in file order. An error where the
/// file system has no FIEMAP.
pub fn disk_extents(path: &Path) -> io::Result<Vec<(u64, u64)>> {
    let fd = File::open(path)?;
    let size_bytes = fd.metadata()?.len();
    Ok(fiemap(&fd, size_bytes)?.into_iter().map(|e| (e.lbn, e.pages)).collect())
}

/// The file's extents from FIEMAP, in page units, in file order. Unsupported file systems give an error
/// (`EOPNOTSUPP`, `ENOTTY`).
fn fiemap(fd: &File, size_bytes: u64) -> io::Result<Vec<Extent>> {
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct FiemapExtent {
        logical: u64,
        physical: u64,
        length: u64,
        reserved64: [u64; 2],
        flags: u32,
        reserved: [u32; 3],
    }
    #[repr(C)]
    struct Fiemap {
        start: u64,
        length: u64,
        flags: u32,
        mapped_extents: u32,
        extent_count: u32,
        reserved: u32,
        extents: [FiemapExtent; FIEMAP_BATCH],
    }
    const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
    const FIEMAP_FLAG_SYNC: u32 = 1;
    const FIEMAP_EXTENT_LAST: u32 = 1;
    let page = PAGE_SIZE_BYTES;
    let mut out = Vec::new();
    let mut start = 0u64;
    while start < size_bytes && out.len() < EXTENTS_MAX {
        let mut map = Box::new(Fiemap {
            start,
            length: size_bytes - start,
            flags: FIEMAP_FLAG_SYNC,
            mapped_extents: 0,
            extent_count: FIEMAP_BATCH as u32,
            reserved: 0,
            extents: [FiemapExtent::default(); FIEMAP_BATCH],
        });
        // SAFETY: `map` is a `struct fiemap` with room for `extent_count` extents.
        let rc = unsafe { libc::ioctl(fd.as_raw_fd(), FS_IOC_FIEMAP as _, &mut *map as *mut Fiemap) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        let got = &map.extents[..(map.mapped_extents as usize).min(FIEMAP_BATCH)];
        if got.is_empty() {
            break;
        }
        for e in got {
            out.push(Extent {
                file_page: e.logical / page,
                lbn: e.physical / page,
                pages: e.length.div_ceil(page),
            });
        }
        let last = got[got.len() - 1];
        if last.flags & FIEMAP_EXTENT_LAST != 0 {
            break;
        }
        let next = last.logical + last.length;
        if next <= start {
            break; // no progress: never loop
        }
        start = next;
    }
    Ok(out)
}

/// Extents covering pages `[0, pages)` in order: a hole continues the extent before it (the first extent
/// extends back to page 0), the last one runs to the end of the file.
fn cover(mut extents: Vec<Extent>, pages: u64) -> Vec<Extent> {
    extents.sort_by_key(|e| e.file_page);
    extents.truncate(EXTENTS_MAX);
    let mut out: Vec<Extent> = Vec::with_capacity(extents.len());
    for e in extents {
        match out.last_mut() {
            None => {
                let lbn = e.lbn.saturating_sub(e.file_page);
                out.push(Extent { file_page: 0, lbn, pages: e.pages + e.file_page });
            }
            Some(prev) if e.file_page <= prev.file_page + prev.pages => {
                // Overlap (a page shared by two extents' rounding): trim the new one.
                let skip = prev.file_page + prev.pages - e.file_page;
                if e.pages > skip {
                    out.push(Extent {
                        file_page: e.file_page + skip,
                        lbn: e.lbn + skip,
                        pages: e.pages - skip,
                    });
                }
            }
            Some(prev) => {
                prev.pages = e.file_page - prev.file_page; // the hole continues the previous extent
                out.push(e);
            }
        }
    }
    if let Some(last) = out.last_mut() {
        last.pages = last.pages.max(pages.saturating_sub(last.file_page));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn layout_of(extents: Vec<Extent>) -> SourceFile {
        SourceFile {
            file: FileId(5),
            fd: File::open("/dev/null").unwrap(),
            size_bytes: 20 * PAGE_SIZE_BYTES,
            direct: false,
            layout_source: LayoutSource::Fiemap,
            extents,
        }
    }

    #[test]
    fn the_fallback_layout_places_each_file_once() {
        let disk = FallbackDisk::default();
        assert_eq!(disk.place(FileId(7), 10), Lbn(0));
        assert_eq!(disk.place(FileId(8), 0), Lbn(10), "an empty file takes a page");
        assert_eq!(disk.place(FileId(7), 10), Lbn(0), "opened again, the file has not moved");
        assert_eq!(disk.place(FileId(9), 3), Lbn(11));
    }

    #[test]
    fn holes_continue_the_previous_extent_and_runs_split_at_extents() {
        let extents = cover(
            vec![Extent { file_page: 8, lbn: 500, pages: 4 }, Extent { file_page: 0, lbn: 100, pages: 4 }],
            20,
        );
        assert_eq!(
            extents,
            vec![Extent { file_page: 0, lbn: 100, pages: 8 }, Extent { file_page: 8, lbn: 500, pages: 12 }]
        );
        let f = layout_of(extents);
        let mut runs = Vec::new();
        f.runs(FileId(5), 6, 4, &mut runs);
        assert_eq!(
            runs,
            vec![
                DiskRun { file_page: 6, lbn: Lbn(106), pages: 2 },
                DiskRun { file_page: 8, lbn: Lbn(500), pages: 2 }
            ]
        );
        runs.clear();
        f.runs(FileId(5), 19, 3, &mut runs); // the file grew: the last extent continues
        assert_eq!(runs, vec![DiskRun { file_page: 19, lbn: Lbn(511), pages: 3 }]);
    }

    #[test]
    fn reads_whole_pages_zero_filled_past_the_end_and_finds_a_layout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..3 * 4096 + 100).map(|i| (i % 251) as u8).collect();
        std::fs::File::create(&path).unwrap().write_all(&data).unwrap();
        let fallback = FallbackDisk::default();
        let f = SourceFile::open(FileId(3), &path, &fallback).unwrap();
        assert_eq!(f.pages(), 4);
        let arena = crate::arena::Arena::new(4).unwrap();
        let ptrs: Vec<*mut u8> = (0..4).map(|s| unsafe { arena.page_ptr(s) }).collect();
        unsafe { std::ptr::write_bytes(ptrs[3], 0xEE, 4096) };
        unsafe { f.read_pages(0, &ptrs).unwrap() };
        for (i, &b) in data.iter().enumerate() {
            assert_eq!(unsafe { arena.page((i / 4096) as u32) }[i % 4096], b);
        }
        assert!(unsafe { arena.page(3) }[100..].iter().all(|&b| b == 0));
        let mut runs = Vec::new();
        f.runs(FileId(3), 0, 4, &mut runs);
        assert_eq!(runs.iter().map(|r| r.pages).sum::<u64>(), 4);
    }
}
