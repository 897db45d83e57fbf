//! Opening trace files: compression by magic bytes, and the two buffered sources every reader is built on
//! ([`LineSource`] for text, [`BlockSource`] for fixed-size binary records).
//!
//! Compression is recognised by content, never by name, because renamed and extension-less traces are
//! common: gzip (`1f 8b`), zstd (`28 b5 2f fd`) and xz (`fd 37 7a 58 5a 00`). Multi-member gzip and xz
//! streams (as `pigz` and `pixz` write them) are read to the end.

use crate::error::TraceError;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Bytes of the text input buffer. A line longer than this is a bad record (no supported format comes
/// near it); 256 KiB amortises the `read` calls to nothing.
pub(crate) const LINE_BUFFER_BYTES: usize = 256 * 1024;

/// How a file is compressed, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Xz,
}

impl Compression {
    const GZIP_MAGIC: &'static [u8] = &[0x1f, 0x8b];
    const ZSTD_MAGIC: &'static [u8] = &[0x28, 0xb5, 0x2f, 0xfd];
    const XZ_MAGIC: &'static [u8] = &[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];

    /// The compression whose magic `head` starts with.
    pub fn from_magic(head: &[u8]) -> Compression {
        if head.starts_with(Self::GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(Self::ZSTD_MAGIC) {
            Compression::Zstd
        } else if head.starts_with(Self::XZ_MAGIC) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// Opens `path` and undoes its compression. Also returns the compression found and the file's size on
/// disk (the size of the *compressed* data when compressed).
pub(crate) fn open_decompressed(path: &Path) -> Result<(Box<dyn Read + Send>, Compression, u64), TraceError> {
    let io_err = |e| TraceError::io(path, e);
    let mut file = File::open(path).map_err(io_err)?;
    let size_bytes = file.metadata().map_err(io_err)?.len();
    let mut head = [0u8; 6];
    let head_len = read_full(&mut file, &mut head).map_err(io_err)?;
    let compression = Compression::from_magic(&head[..head_len]);
    // Re-read from the start rather than chaining the peeked bytes back in: `File` seeks for free.
    let file = File::open(path).map_err(io_err)?;
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(file),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(io::BufReader::new(file))),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(file).map_err(io_err)?),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(io::BufReader::new(file))),
    };
    Ok((reader, compression, size_bytes))
}

/// A whole uncompressed trace file, memory-mapped read-only: binary readers decode it where it lies, front to
/// back, and hand back what they have read ([`TraceBytes::release_before`]) so that the process's resident
/// memory stays bounded however long the file is, as a reader's should.
pub(crate) struct TraceBytes {
    map: memmap2::Mmap,
    /// Bytes `0..released` have been handed back to the kernel.
    released: usize,
}

/// Read bytes are handed back in steps of this many (a multiple of every page size Linux uses): one
/// `madvise` per 8 MiB read.
const RELEASE_STEP_BYTES: usize = 8 << 20;

impl TraceBytes {
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.map
    }

    #[cfg(test)]
    pub(crate) fn released_bytes(&self) -> usize {
        self.released
    }

    /// The reader is done with bytes `0..end`: unmap their pages from the process (they stay in the page
    /// cache) once a whole step has been read. Caller guarantees it never reads below `end` again.
    #[inline]
    pub(crate) fn release_before(&mut self, end: usize) {
        let end = end / RELEASE_STEP_BYTES * RELEASE_STEP_BYTES;
        if end <= self.released {
            return;
        }
        #[cfg(unix)]
        {
            // SAFETY: MADV_DONTNEED on a private, read-only file mapping drops this process's page-table
            // entries for the range; a later access would fault the file's pages back in, never zeros. The
            // reader reads the file front to back and never returns below `end` (the caller's guarantee),
            // and no slice into the range outlives this call: `as_slice` borrows `self`.
            let dropped = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    self.released,
                    end - self.released,
                )
            };
            // A refusal only leaves the pages mapped: memory, not correctness.
            let _ = dropped;
        }
        self.released = end;
    }
}

/// Maps `path` if it is a non-empty regular file; `None` when it is not one or the mapping fails (the caller
/// then reads it through [`open_decompressed`]). Caller guarantees the file is uncompressed.
pub(crate) fn map_file(path: &Path) -> Result<Option<TraceBytes>, TraceError> {
    let io_err = |e| TraceError::io(path, e);
    let file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() || meta.len() == 0 {
        return Ok(None);
    }
    // SAFETY: the mapping is read-only and private, and nothing in pagelab writes trace files while reading
    // them. Another process that truncates the file during the read makes the next access fault (SIGBUS):
    // the process ends, memory is never misread. That is the accepted risk of every tool that maps its
    // input (ripgrep, libCacheSim); see the oracle-general reader's module doc.
    let map = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(map) => map,
        Err(_) => return Ok(None),
    };
    // A hint for the kernel's readahead; the reader is correct whatever it does with it.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Some(TraceBytes { map, released: 0 }))
}

/// The first (at most) `limit` decompressed bytes of `path`, for format sniffing.
pub(crate) fn peek_decompressed(path: &Path, limit: usize) -> Result<(Vec<u8>, Compression), TraceError> {
    let (mut reader, compression, _) = open_decompressed(path)?;
    let mut head = vec![0u8; limit];
    let n = read_full(&mut reader, &mut head).map_err(|e| TraceError::io(path, e))?;
    head.truncate(n);
    Ok((head, compression))
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full(input: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    // Bounded: every successful read adds at least one byte; a read of 0 ends the loop.
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Bytes looked at one by one before handing the search to `memchr`: most trace lines are shorter, and
/// for them a plain loop beats `memchr`'s setup.
const SHORT_LINE_BYTES: usize = 32;

/// The position of the first `\n` in `hay`.
#[inline(always)]
fn find_newline(hay: &[u8]) -> Option<usize> {
    let short = hay.len().min(SHORT_LINE_BYTES);
    match hay[..short].iter().position(|&b| b == b'\n') {
        Some(i) => Some(i),
        None if hay.len() > short => memchr::memchr(b'\n', &hay[short..]).map(|i| i + short),
        None => None,
    }
}

/// One line handed out by [`LineSource::next_line`].
pub(crate) enum NextLine<'a> {
    /// A line without its `\n` (and without a `\r` before it).
    Line(&'a [u8]),
    /// A line longer than the buffer: its first [`LINE_BUFFER_BYTES`] bytes; the rest is skipped.
    TooLong(&'a [u8]),
    End,
}

/// Lines of a text input, handed out as slices of one reused buffer (no allocation per line).
pub(crate) struct LineSource {
    input: Box<dyn Read + Send>,
    path: PathBuf,
    buf: Box<[u8]>,
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// Skipping the rest of an over-long line.
    discarding: bool,
    /// 1-based number of the line last returned.
    line_no: u64,
}

impl LineSource {
    pub fn new(input: Box<dyn Read + Send>, path: PathBuf) -> LineSource {
        Self::with_capacity(input, path, LINE_BUFFER_BYTES)
    }

    /// A source with a `capacity`-byte buffer (small capacities let tests reach the refill paths).
    pub fn with_capacity(input: Box<dyn Read + Send>, path: PathBuf, capacity: usize) -> LineSource {
        assert!(capacity > 0, "a line buffer needs room for at least one byte");
        let buf = vec![0u8; capacity].into_boxed_slice();
        LineSource { input, path, buf, start: 0, end: 0, eof: false, discarding: false, line_no: 0 }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next line and its 1-based number. A final line without `\n` is still a line; a `\r` before
    /// the `\n` is dropped.
    pub fn next_line(&mut self) -> Result<(u64, NextLine<'_>), TraceError> {
        // Terminates: every pass returns, or consumes buffered bytes, or reads more input (at least one
        // byte, or reaching the end of input).
        let (a, b, too_long) = loop {
            if self.discarding {
                self.discard_to_newline()?;
                continue;
            }
            if let Some(i) = find_newline(&self.buf[self.start..self.end]) {
                let a = self.start;
                self.start += i + 1;
                break (a, a + i, false);
            }
            if self.eof {
                if self.start == self.end {
                    return Ok((self.line_no, NextLine::End));
                }
                let a = self.start;
                self.start = self.end;
                break (a, self.end, false);
            }
            if self.start == 0 && self.end == self.buf.len() {
                self.start = self.end;
                self.discarding = true;
                break (0, self.end, true);
            }
            self.refill()?;
        };
        self.line_no += 1;
        let mut line = &self.buf[a..b];
        if too_long {
            return Ok((self.line_no, NextLine::TooLong(line)));
        }
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        Ok((self.line_no, NextLine::Line(line)))
    }

    fn discard_to_newline(&mut self) -> Result<(), TraceError> {
        match memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
            Some(i) => {
                self.start += i + 1;
                self.discarding = false;
            }
            None if self.eof => {
                self.start = self.end;
                self.discarding = false;
            }
            None => {
                self.start = self.end;
                self.refill()?;
            }
        }
        Ok(())
    }

    /// Moves the unconsumed bytes to the front and reads more after them.
    fn refill(&mut self) -> Result<(), TraceError> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        debug_assert!(self.end < self.buf.len(), "refill of a full buffer");
        // Bounded: retried only on EINTR.
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(TraceError::io(&self.path, e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &'static [u8], capacity: usize) -> Vec<String> {
        let mut src = LineSource::with_capacity(Box::new(data), PathBuf::from("t"), capacity);
        let mut out = Vec::new();
        for _ in 0..1000 {
            match src.next_line().unwrap() {
                (no, NextLine::Line(l)) => out.push(format!("{no}:{}", String::from_utf8_lossy(l))),
                (no, NextLine::TooLong(l)) => out.push(format!("{no}:LONG {}", String::from_utf8_lossy(l))),
                (_, NextLine::End) => return out,
            }
        }
        panic!("no end");
    }

    #[test]
    fn lines_cross_buffer_refills_and_strip_cr() {
        let want = vec!["1:12", "2:345", "3:", "4:6"];
        for capacity in [4, 5, 8, 64] {
            assert_eq!(lines(b"12\r\n345\n\n6", capacity), want, "capacity {capacity}");
        }
        assert_eq!(lines(b"", 4), Vec::<String>::new());
        assert_eq!(lines(b"\n", 4), vec!["1:"]);
    }

    #[test]
    fn over_long_lines_are_reported_once_and_skipped() {
        assert_eq!(lines(b"1\n123456789\n2\n", 4), vec!["1:1", "2:LONG 1234", "3:2"]);
        assert_eq!(lines(b"123456789", 4), vec!["1:LONG 1234"]);
    }

    #[test]
    fn magic_bytes() {
        assert_eq!(Compression::from_magic(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::from_magic(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Compression::Zstd);
        assert_eq!(Compression::from_magic(&[0xfd, b'7', b'z', b'X', b'Z', 0]), Compression::Xz);
        assert_eq!(Compression::from_magic(b"1f8b"), Compression::None);
        assert_eq!(Compression::from_magic(&[0x1f]), Compression::None);
    }
}
