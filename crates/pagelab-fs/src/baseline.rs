//! Benchmark baselines (`pagelab mount --backend`), against which the engine's hit path is measured in the
//! same run (`pagelab bench --live overhead`). Neither is a product: they exist so that the overhead claims
//! are ratios, not remembered numbers.
//!
//! - [`Backend::Passthrough`]: a plain FUSE passthrough. Each read is one `pread` of the source through the
//!   kernel's page cache: what any FUSE file system pays before it caches anything itself.
//! - [`Backend::Naive`]: the naive user-space cache the issue measured: a boxed page per entry in one hash
//!   map under one lock, a hash lookup per 4 KiB, the page copied out under the lock and copied again into
//!   the reply; misses read the source through the kernel a page at a time; when full, an arbitrary entry
//!   goes.

use crate::source::SourceFile;
use pagelab_core::PAGE_SIZE_BYTES;
use rustc_hash::FxHashMap;
use std::io;
use std::sync::Mutex;

const PAGE: usize = PAGE_SIZE_BYTES as usize;

/// What serves a mount's file reads.
pub enum Backend {
    /// pagelab's engine: the product.
    Engine,
    Passthrough,
    Naive(NaiveCache),
}

impl Backend {
    /// `engine`, `passthrough`, or `naive` (a cache of `capacity_pages`).
    pub fn parse(text: &str, capacity_pages: u32) -> Option<Backend> {
        match text {
            "engine" => Some(Backend::Engine),
            "passthrough" => Some(Backend::Passthrough),
            "naive" => Some(Backend::Naive(NaiveCache::new(capacity_pages))),
            _ => None,
        }
    }

    /// Whether source files are read with O_DIRECT (only the engine: the baselines use the kernel's cache).
    pub fn direct(&self) -> bool {
        matches!(self, Backend::Engine)
    }
}

/// Read bytes `[offset, offset + size)` of `source` through the kernel (short at the end of the file).
pub fn pread(source: &SourceFile, offset: u64, size: u32) -> io::Result<Vec<u8>> {
    let end = offset.saturating_add(size as u64).min(source.size_bytes);
    let mut buf = vec![0u8; end.saturating_sub(offset) as usize];
    let mut done = 0;
    while done < buf.len() {
        match source.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

/// (file, page index) → the page, boxed.
type PageMap = FxHashMap<(u32, u64), Box<[u8; PAGE]>>;

pub struct NaiveCache {
    pages: Mutex<PageMap>,
    capacity_pages: usize,
}

impl NaiveCache {
    pub fn new(capacity_pages: u32) -> NaiveCache {
        NaiveCache { pages: Mutex::new(FxHashMap::default()), capacity_pages: capacity_pages.max(1) as usize }
    }

    pub fn read(&self, source: &SourceFile, offset: u64, size: u32) -> io::Result<Vec<u8>> {
        let end = offset.saturating_add(size as u64).min(source.size_bytes);
        let mut out = Vec::with_capacity(end.saturating_sub(offset) as usize);
        let mut page = Box::new([0u8; PAGE]);
        let mut at = offset;
        while at < end {
            let index = at / PAGE_SIZE_BYTES;
            let hit = {
                let map = self.pages.lock().unwrap_or_else(|e| e.into_inner());
                map.get(&(source.file.0, index)).map(|p| page.copy_from_slice(&p[..])).is_some()
            };
            if !hit {
                page.fill(0);
                let got = pread(source, index * PAGE_SIZE_BYTES, PAGE as u32)?;
                page[..got.len()].copy_from_slice(&got);
                let mut map = self.pages.lock().unwrap_or_else(|e| e.into_inner());
                if map.len() >= self.capacity_pages {
                    let victim = *map.keys().next().expect("a full map has a key");
                    map.remove(&victim);
                }
                map.insert((source.file.0, index), page.clone());
            }
            let from = (at - index * PAGE_SIZE_BYTES) as usize;
            let to = (end - index * PAGE_SIZE_BYTES).min(PAGE_SIZE_BYTES) as usize;
            out.extend_from_slice(&page[from..to]);
            at = (index + 1) * PAGE_SIZE_BYTES;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FallbackDisk;
    use pagelab_core::FileId;

    #[test]
    fn both_baselines_read_the_source_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..20_000u32).map(|i| (i % 253) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let f = SourceFile::open_with(FileId(2), &path, &FallbackDisk::default(), false).unwrap();
        assert!(!f.direct);
        let cache = NaiveCache::new(2);
        for (off, size) in [(0u64, 5000u32), (4095, 3), (19_990, 100), (30_000, 10), (100, 12_000)] {
            let want = &data[(off as usize).min(data.len())..((off + size as u64) as usize).min(data.len())];
            assert_eq!(pread(&f, off, size).unwrap(), want);
            assert_eq!(cache.read(&f, off, size).unwrap(), want, "{off} {size}");
            assert_eq!(cache.read(&f, off, size).unwrap(), want, "{off} {size} again");
        }
        assert!(cache.pages.lock().unwrap().len() <= 2);
    }
}
