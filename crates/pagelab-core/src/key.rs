//! The engine's vocabulary for pages, disk locations and their owners.

use std::fmt;

/// A file known to the engine. Block traces use [`FileId::BLOCK_DEVICE`], a single pseudo-file whose
/// page index is the LBN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

impl FileId {
    pub const BLOCK_DEVICE: FileId = FileId(0);
    /// Largest file id that packs into a [`PageKey`].
    pub const MAX: u32 = (1 << PageKey::FILE_BITS) - 1;
    /// Files `0..ANON_FIRST` are regular files; ids from here name anonymous memory regions.
    pub const ANON_FIRST: u32 = 1 << (PageKey::FILE_BITS - 1);
    /// Anonymous regions a key can name.
    pub const ANON_REGIONS: u32 = Self::MAX - Self::ANON_FIRST;
    /// The swap area, as the `file` of swap I/O (its pages are slots).
    pub const SWAP: FileId = FileId(Self::MAX);

    /// The pseudo-file of anonymous region `region` (a process's memory). Caller guarantees
    /// `region < ANON_REGIONS`.
    pub const fn anon(region: u32) -> FileId {
        assert!(region < Self::ANON_REGIONS, "anonymous region beyond the key space");
        FileId(Self::ANON_FIRST + region)
    }

    /// A regular file (not anonymous memory, not swap).
    pub const fn is_regular(self) -> bool {
        self.0 < Self::ANON_FIRST
    }

    /// An anonymous region.
    pub const fn is_anon(self) -> bool {
        self.0 >= Self::ANON_FIRST && self.0 < Self::MAX
    }
}

/// A disk location in pages (page-sized logical block number). The core's one unit of disk address, and
/// the only one its structs hold (DULO's track map is the one core structure in sectors, and names them
/// so). Devices and schedulers work in 512-byte sectors and name them `sector`, except the HDD model,
/// whose drive-level addresses keep DiskSim's name, LBN (there a sector, `device/hdd.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lbn(pub u64);

impl Lbn {
    /// No disk location: an anonymous page that was never swapped (zero-filled at its first touch). A
    /// policy that reads locations treats it as a random block (DULO, papers/001 §4.2: "anonymous pages
    /// that do not yet have mappings on disk are treated as random blocks"); adding to it panics.
    pub const NONE: Lbn = Lbn(u64::MAX);
}

impl std::ops::Add<u64> for Lbn {
    type Output = Lbn;
    /// The location `pages` further on. Panics on overflow (a disk address past 2^64 pages is a bug).
    fn add(self, pages: u64) -> Lbn {
        Lbn(self.0.checked_add(pages).expect("LBN overflow"))
    }
}

/// The owner of accesses and prefetches: a request handler in the simulator, an open file handle live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId(pub u32);

/// A cached page: `(file, index)` packed into one `u64` so that every table hashes and stores one word.
/// The top [`PageKey::FILE_BITS`] bits hold the file, the rest the page index within the file.
///
/// Policies see keys as opaque `u64`s ([`PageKey::raw`]); object traces (whose ids are arbitrary 64-bit
/// numbers) use [`PageKey::from_raw`] and never call [`PageKey::file`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PageKey(u64);

impl PageKey {
    pub const FILE_BITS: u32 = 24;
    pub const INDEX_BITS: u32 = 64 - Self::FILE_BITS;
    /// Largest page index that packs (2^40 pages = 4 PiB of 4 KiB pages per file).
    pub const INDEX_MAX: u64 = (1 << Self::INDEX_BITS) - 1;

    /// Caller guarantees `file.0 <= FileId::MAX` and `index <= PageKey::INDEX_MAX`.
    pub fn new(file: FileId, index: u64) -> PageKey {
        assert!(file.0 <= FileId::MAX, "file id {} does not fit in a PageKey", file.0);
        assert!(index <= Self::INDEX_MAX, "page index {index} does not fit in a PageKey");
        Self::in_checked_range(file, index)
    }
    /// [`PageKey::new`] for a page of a call whose file and pages were asserted to fit once, for the whole
    /// call (`ReadCursor::assert_keys_fit`): the per-page loops of the buffer cache build a key a page, and
    /// two assertions a key were a measurable part of them. Checked again in debug builds.
    #[inline(always)]
    pub(crate) fn in_checked_range(file: FileId, index: u64) -> PageKey {
        debug_assert!(
            file.0 <= FileId::MAX && index <= Self::INDEX_MAX,
            "page {index} of {file:?} asserted to fit"
        );
        PageKey(((file.0 as u64) << Self::INDEX_BITS) | index)
    }
    pub const fn from_raw(raw: u64) -> PageKey {
        PageKey(raw)
    }
    pub const fn raw(self) -> u64 {
        self.0
    }
    pub const fn file(self) -> FileId {
        FileId((self.0 >> Self::INDEX_BITS) as u32)
    }
    pub const fn index(self) -> u64 {
        self.0 & Self::INDEX_MAX
    }
}

impl fmt::Debug for PageKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PageKey({}:{})", self.file().0, self.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_key_round_trips() {
        let k = PageKey::new(FileId(77), 123_456_789);
        assert_eq!(k.file(), FileId(77));
        assert_eq!(k.index(), 123_456_789);
        let max = PageKey::new(FileId(FileId::MAX), PageKey::INDEX_MAX);
        assert_eq!(max.raw(), u64::MAX);
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn oversized_index_is_rejected() {
        PageKey::new(FileId(1), PageKey::INDEX_MAX + 1);
    }
}
