//! Opening trace inputs: a file, a FIFO, `/dev/stdin` or standard input itself (`-`), opened once and
//! read front to back; compression by magic bytes; and the two buffered sources every reader is built on
//! ([`LineSource`] for text, blocks of fixed-size records for oracle-general).
//!
//! An input is opened exactly once. Whatever is read to recognise it — the compression's magic bytes,
//! the first 64 KiB of content for format detection — is handed back in front of the rest by [`Peeked`],
//! so that a pipe (which cannot be re-read) loses nothing: `printf '1\n1\n2\n' | pagelab trace inspect -`
//! sees all three lines. Only a regular file is also memory-mapped (by the oracle-general reader), through
//! the same open handle.
//!
//! Compression is recognised by content, never by name, because renamed and extension-less traces are
//! common: gzip (`1f 8b`), zstd (`28 b5 2f fd`) and xz (`fd 37 7a 58 5a 00`). Multi-member gzip and xz
//! streams (as `pigz` and `pixz` write them) are read to the end. Decoders' memory is bounded whatever the
//! stream's header asks for: gzip needs its 32 KiB window, zstd refuses windows over 128 MiB (its default
//! `window_log_max`), xz is given a memory limit of [`XZ_MEMORY_LIMIT_BYTES`]. A decoder's error (a
//! truncated or corrupt stream) says which codec failed and that the file is truncated or damaged; the
//! reader adds the file and the line or record where it happened.

use crate::error::TraceError;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Bytes of the text input buffer. A line longer than this is a bad record (no supported format comes
/// near it); 256 KiB amortises the `read` calls to nothing.
pub(crate) const LINE_BUFFER_BYTES: usize = 256 * 1024;

/// The trace name that means standard input.
pub const STDIN: &str = "-";

/// How standard input is named in messages.
pub(crate) const STDIN_LABEL: &str = "<stdin>";

/// The most memory an xz stream may take to decode: the largest preset (`xz -9`, 64 MiB dictionary)
/// needs 65 MiB; a header asking for more is refused instead of allocated.
pub const XZ_MEMORY_LIMIT_BYTES: u64 = 256 << 20;

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
    /// Bytes [`Compression::from_magic`] needs to see.
    const MAGIC_BYTES_MAX: usize = 6;

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

    fn name(self) -> &'static str {
        match self {
            Compression::None => "uncompressed",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }
}

/// `head` (bytes already read from `rest`, and the error that stopped that read, if any), then `rest`:
/// how the start of an input is looked at without being lost.
pub(crate) struct Peeked<R> {
    head: Vec<u8>,
    pos: usize,
    /// Handed out once, where it happened: after the bytes that were read before it.
    error: Option<io::Error>,
    rest: R,
}

impl<R: Read> Peeked<R> {
    /// Reads up to `limit` bytes of `input` (fewer only at its end or at an error, which is kept for later).
    pub fn new(mut input: R, limit: usize) -> Peeked<R> {
        let mut head = vec![0u8; limit];
        let (n, error) = match read_full(&mut input, &mut head) {
            Ok(n) => (n, None),
            Err((n, e)) => (n, Some(e)),
        };
        head.truncate(n);
        Peeked { head, pos: 0, error, rest: input }
    }

    /// The bytes read ahead.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The error that stopped the read ahead, taken out of the stream (which then ends after the head).
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// Whether the read ahead stopped short of `limit` at the end of the input (not at an error).
    pub fn ended(&self, limit: usize) -> bool {
        self.head.len() < limit && self.error.is_none()
    }
}

impl<R: Read> Read for Peeked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.head.len() {
            let n = buf.len().min(self.head.len() - self.pos);
            buf[..n].copy_from_slice(&self.head[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.head.len() {
                self.head = Vec::new(); // read once: the memory goes back now
                self.pos = 0;
            }
            return Ok(n);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.rest.read(buf)
    }
}

/// A decoder whose errors say which codec failed and what that means for the file.
struct Decoder<R> {
    inner: R,
    codec: Compression,
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                return e;
            }
            let codec = self.codec.name();
            io::Error::new(
                e.kind(),
                format!("the {codec} data ends early or is corrupt ({e}): the file is truncated or damaged"),
            )
        })
    }
}

/// A trace input, opened once.
pub(crate) struct RawInput {
    /// The name used in messages.
    pub path: PathBuf,
    pub read: Box<dyn Read + Send>,
    /// The same file, when it is a regular one: it can be mapped.
    pub regular: Option<File>,
}

impl RawInput {
    /// Opens `spec`: [`STDIN`] or a path (a regular file, a FIFO, a character device such as
    /// `/dev/stdin`). A directory is refused here, not at its first read.
    pub fn open(spec: &str) -> Result<RawInput, TraceError> {
        if spec == STDIN {
            let read: Box<dyn Read + Send> = Box::new(io::stdin());
            return Ok(RawInput { path: PathBuf::from(STDIN_LABEL), read, regular: None });
        }
        let path = Path::new(spec);
        let io_err = |e| TraceError::io(path, e);
        let file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if meta.is_dir() {
            return Err(TraceError::invalid(spec, "is a directory, not a trace file"));
        }
        let regular = if meta.is_file() { Some(file.try_clone().map_err(io_err)?) } else { None };
        Ok(RawInput { path: path.to_path_buf(), read: Box::new(file), regular })
    }

    /// Undoes the input's compression (recognised by its magic bytes, which are not lost).
    pub fn decompress(self) -> (Box<dyn Read + Send>, Compression, Option<File>) {
        let peeked = Peeked::new(self.read, Compression::MAGIC_BYTES_MAX);
        let codec = Compression::from_magic(peeked.head());
        let decoded: Box<dyn Read + Send> = match codec {
            Compression::None => Box::new(peeked),
            Compression::Gzip => Box::new(Decoder {
                inner: flate2::read::MultiGzDecoder::new(io::BufReader::new(peeked)),
                codec,
            }),
            Compression::Zstd => match zstd::stream::read::Decoder::new(peeked) {
                Ok(inner) => Box::new(Decoder { inner, codec }),
                // Only allocation can fail here: report it where the data would have been read.
                Err(e) => Box::new(Peeked { head: Vec::new(), pos: 0, error: Some(e), rest: io::empty() }),
            },
            Compression::Xz => {
                let stream =
                    xz2::stream::Stream::new_stream_decoder(XZ_MEMORY_LIMIT_BYTES, xz2::stream::CONCATENATED);
                match stream {
                    Ok(stream) => Box::new(Decoder {
                        inner: xz2::read::XzDecoder::new_stream(io::BufReader::new(peeked), stream),
                        codec,
                    }),
                    Err(e) => Box::new(Peeked {
                        head: Vec::new(),
                        pos: 0,
                        error: Some(io::Error::other(e)),
                        rest: io::empty(),
                    }),
                }
            }
        };
        // A compressed file is never mapped: its records exist only once decoded.
        let regular = if codec == Compression::None { self.regular } else { None };
        (decoded, codec, regular)
    }
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

/// Maps the regular file `file` (named `path` in errors); `None` when it is empty or the mapping fails (the
/// caller then reads it as a stream). Caller guarantees the file is uncompressed.
pub(crate) fn map_file(file: &File, path: &Path) -> Result<Option<TraceBytes>, TraceError> {
    let meta = file.metadata().map_err(|e| TraceError::io(path, e))?;
    if !meta.is_file() || meta.len() == 0 {
        return Ok(None);
    }
    // SAFETY: the mapping is read-only and private, and nothing in pagelab writes trace files while reading
    // them. Another process that truncates the file during the read makes the next access fault (SIGBUS):
    // the process ends, memory is never misread. That is the accepted risk of every tool that maps its
    // input (ripgrep, libCacheSim); see the oracle-general reader's module doc.
    let map = match unsafe { memmap2::Mmap::map(file) } {
        Ok(map) => map,
        Err(_) => return Ok(None),
    };
    // A hint for the kernel's readahead; the reader is correct whatever it does with it.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Some(TraceBytes { map, released: 0 }))
}

/// Reads until `buf` is full or the input ends; returns the bytes read, or the error that stopped it with
/// the bytes read before it (they are in `buf`).
pub(crate) fn read_full(input: &mut dyn Read, buf: &mut [u8]) -> Result<usize, (usize, io::Error)> {
    let mut filled = 0;
    // Bounded: every successful read adds at least one byte; a read of 0 ends the loop.
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err((filled, e)),
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
                // The line being read is the one after the last returned.
                Err(e) => return Err(TraceError::read(&self.path, self.line_no + 1, e)),
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
