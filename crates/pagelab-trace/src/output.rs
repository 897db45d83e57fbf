//! Output files that never lose data: written beside their destination and renamed over it only once
//! complete, and never the input they were made from.
//!
//! - [`AtomicFile`]: a temporary file in the destination's directory (so that the rename cannot cross a
//!   file system), renamed into place by [`AtomicFile::commit`]. Dropped without a commit — an error, a
//!   panic — it is removed and the destination is left exactly as it was: absent, or its old content.
//! - [`Output`]: a trace output, compressed according to its name (`.gz`, `.zst`, `.xz`; a name ending
//!   in another compression's suffix, such as `.bz2`, is refused rather than written uncompressed), on an
//!   [`AtomicFile`]; or written straight to standard output (`-`) or to an existing FIFO or device, which
//!   cannot be replaced by a rename.
//! - [`ensure_not_input`]: refuses a destination that is the input file under any name (a second
//!   spelling, a symbolic or hard link): the same device and inode.
//! - [`remove_temporaries`]: removes every [`AtomicFile`]'s temporary file that exists now. A process
//!   ended by a signal runs no destructor, so without this an interrupted `trace convert` left its
//!   `.tmp-…` file beside the destination; the command line calls it from its signal thread.

use crate::error::TraceError;
use crate::input::STDIN;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The output name that means standard output.
pub const STDOUT: &str = "-";

/// Compression suffixes pagelab writes.
const WRITTEN: &str = ".gz, .zst, .xz";

/// Suffixes of compressions pagelab does not write: refused, so that a `.bz2` file is never plain text.
const NOT_WRITTEN: [&str; 10] = [".bz2", ".bz", ".lz4", ".lzma", ".lz", ".lzo", ".z", ".zip", ".br", ".7z"];

/// The temporary files of the [`AtomicFile`]s alive now, for [`remove_temporaries`]. Bounded by the
/// files a command has open at once (one per output).
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes the temporary file of every [`AtomicFile`] alive now, and keeps any more from being listed.
/// For a signal handler's thread, just before the process ends: the destinations are untouched (each
/// keeps what it had before the command began). Must not be called while the process goes on (the files'
/// writers would write into removed files, and their commits would fail).
pub fn remove_temporaries() {
    let mut listed = TEMPORARIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for path in listed.drain(..) {
        // Already gone (committed a moment ago, or never fully created): nothing to remove.
        let _ = std::fs::remove_file(&path);
    }
    // The lock is held until the process ends (the caller exits next), so that no file created after
    // this is left behind unlisted: its creator blocks in `Listed::create`.
    std::mem::forget(listed);
}

/// An entry of [`TEMPORARIES`], taken off the list when dropped (the file was committed or removed).
struct Listed(PathBuf);

impl Listed {
    /// Creates a temporary file with `create` and lists it, both under the list's lock: a signal's
    /// [`remove_temporaries`] waits for the lock, so it cannot come between the two and miss the file.
    fn create(
        create: impl FnOnce() -> io::Result<tempfile::NamedTempFile>,
    ) -> io::Result<(tempfile::NamedTempFile, Listed)> {
        let mut listed = TEMPORARIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let temp = create()?;
        listed.push(temp.path().to_path_buf());
        let entry = Listed(temp.path().to_path_buf());
        Ok((temp, entry))
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        let mut listed = TEMPORARIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(i) = listed.iter().position(|p| *p == self.0) {
            listed.swap_remove(i);
        }
    }
}

/// A file written beside `dest` and renamed over it by [`AtomicFile::commit`].
pub struct AtomicFile {
    temp: tempfile::NamedTempFile,
    dest: PathBuf,
    /// Declared after `temp`, so dropped after it: the file is off the list only once it is gone.
    _listed: Listed,
}

impl AtomicFile {
    /// A temporary file in `dest`'s directory (after resolving `dest` if it is a symbolic link, so that
    /// the link's target is replaced, not the link). Its name ends in `dest`'s name, extension included,
    /// for writers that choose a format by extension. Errors name `dest`, never the temporary file, which
    /// the user did not name (see [`temp_error`]).
    pub fn create(dest: &Path) -> Result<AtomicFile, TraceError> {
        let given = dest;
        if let Some(why) = not_a_file(given) {
            return Err(TraceError::invalid(given.display().to_string(), why));
        }
        let dest = match std::fs::canonicalize(dest) {
            Ok(real) => real,
            // It does not exist yet, or it is a link to a file that does not: the link's target is created,
            // as a shell's `>` creates it, and the link is kept.
            Err(_) => link_target(dest),
        };
        let dir = directory_of(&dest).to_path_buf();
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let suffix = format!("-{name}");
        let (temp, listed) =
            Listed::create(|| tempfile::Builder::new().prefix(TEMP_PREFIX).suffix(&suffix).tempfile_in(&dir))
                .map_err(|e| temp_error(given, &dir, e))?;
        // A new file gets the permissions files usually get (the temporary one is private); a replaced
        // file keeps its own.
        let permissions = match std::fs::metadata(&dest) {
            Ok(meta) => Some(meta.permissions()),
            Err(_) => default_permissions(),
        };
        // Made before the permissions, so that a failure drops the file before its entry (field order).
        let file = AtomicFile { temp, dest, _listed: listed };
        if let Some(p) = permissions {
            file.temp.as_file().set_permissions(p).map_err(|e| TraceError::io(given, e))?;
        }
        Ok(file)
    }

    /// The temporary file's path, for writers that take a path.
    pub fn path(&self) -> &Path {
        self.temp.path()
    }

    /// The destination the commit replaces.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    pub fn file(&mut self) -> &mut File {
        self.temp.as_file_mut()
    }

    /// Makes the written content durable and renames it over the destination.
    pub fn commit(self) -> Result<(), TraceError> {
        self.temp.as_file().sync_all().map_err(|e| TraceError::io(&self.dest, e))?;
        let AtomicFile { temp, dest, _listed } = self;
        temp.persist(&dest).map_err(|e| TraceError::io(&dest, e.error))?;
        Ok(()) // `_listed` goes after the rename: a signal before it removes no file (the name is gone)
    }
}

/// The temporary files' prefix (hidden, and recognisable as pagelab's if one is ever left behind).
const TEMP_PREFIX: &str = ".tmp-";

/// Why the temporary file for `given` (in `dir`) could not be created, in terms of `given`: the directory
/// the user named does not exist or is not one, or the I/O error without the temporary name tempfile
/// appends to it (` at path "/x/.tmp-Ab12Cd-out.csv"`, a name the user never gave).
fn temp_error(given: &Path, dir: &Path, e: io::Error) -> TraceError {
    match directory_problem(dir) {
        Some(why) => TraceError::invalid(given.display().to_string(), why),
        None => TraceError::io(given, without_temp_name(e)),
    }
}

/// The directory a file `dest` goes in (`.` for a bare name).
fn directory_of(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Where the chain of symbolic links from `path` ends (`path` itself when it is no link), relative targets
/// taken from each link's directory; at most 40 links are followed, as Linux's `ELOOP` limit.
fn link_target(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(target) if target.is_absolute() => at = target,
            Ok(target) => at = directory_of(&at).join(target),
            Err(_) => break,
        }
    }
    at
}

/// Why `dest` names no file a rename can put in place: an existing directory, or a path that ends in a
/// slash (`x.svg/`), whose rename fails with "Not a directory" once the work is done.
fn not_a_file(dest: &Path) -> Option<&'static str> {
    if dest.is_dir() {
        return Some("is a directory (name a file)");
    }
    let ends_in_slash = dest.as_os_str().as_encoded_bytes().last() == Some(&b'/');
    (ends_in_slash || dest.file_name().is_none())
        .then_some("names a directory, not a file (drop the final /)")
}

/// What keeps `dir` from holding a new file, when it is missing or not a directory.
fn directory_problem(dir: &Path) -> Option<String> {
    match std::fs::metadata(dir) {
        Err(m) if m.kind() == io::ErrorKind::NotFound => {
            Some(format!("the directory {} does not exist", dir.display()))
        }
        Ok(m) if !m.is_dir() => Some(format!("{} is not a directory", dir.display())),
        _ => None,
    }
}

/// Refuses, before any work, a destination [`AtomicFile::create`] would refuse at its end: a directory, or a
/// file whose directory is missing or is not one. In the same words, naming `dest` as the user gave it.
pub fn check_destination(dest: &Path) -> Result<(), TraceError> {
    if let Some(why) = not_a_file(dest) {
        return Err(TraceError::invalid(dest.display().to_string(), why));
    }
    match directory_problem(directory_of(dest)) {
        Some(why) => Err(TraceError::invalid(dest.display().to_string(), why)),
        None => Ok(()),
    }
}

/// `e` without the temporary file's name: its message up to tempfile's ` at path "…"`, or, failing that,
/// only its kind when the message still holds the name.
fn without_temp_name(e: io::Error) -> io::Error {
    let text = e.to_string();
    match text.find(" at path \"") {
        Some(at) => io::Error::new(e.kind(), &text[..at]),
        None if text.contains(TEMP_PREFIX) => io::Error::from(e.kind()),
        None => e,
    }
}

#[cfg(unix)]
fn default_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Whether `a` and `b` name the same existing file (same device and inode on Unix).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// Refuses to write `output` when it is the input `input` (a trace spec: standard input and synthetic
/// specs are never files).
pub fn ensure_not_input(output: &Path, input: &str) -> Result<(), TraceError> {
    if input != STDIN && !input.starts_with("synth:") && same_file(output, Path::new(input)) {
        return Err(TraceError::invalid(
            output.display().to_string(),
            format!("is the input `{input}`: refusing to overwrite it (write the output elsewhere)"),
        ));
    }
    Ok(())
}

enum Sink {
    Plain(BufWriter<Box<dyn Write + Send>>),
    Gzip(flate2::write::GzEncoder<BufWriter<Box<dyn Write + Send>>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<Box<dyn Write + Send>>>),
    Xz(xz2::write::XzEncoder<BufWriter<Box<dyn Write + Send>>>),
}

/// A trace output: see the module doc.
pub struct Output {
    sink: Sink,
    path: PathBuf,
    /// `None` when written in place (standard output, a FIFO, a device).
    file: Option<AtomicFile>,
}

impl Output {
    /// `path` ([`STDOUT`] for standard output), compressed according to its name.
    pub fn create(path: &Path) -> Result<Output, TraceError> {
        let io_err = |e| TraceError::io(path, e);
        let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        if let Some(suffix) = NOT_WRITTEN.iter().find(|s| name.ends_with(*s)) {
            return Err(TraceError::invalid(
                path.display().to_string(),
                format!("pagelab cannot write {suffix} compression: name the output with {WRITTEN} or no compression suffix"),
            ));
        }
        let (raw, file): (Box<dyn Write + Send>, Option<AtomicFile>) = if path == Path::new(STDOUT) {
            (Box::new(io::stdout()), None)
        } else if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            // A FIFO or a device: there is nothing to replace, only something to write to.
            let f = std::fs::OpenOptions::new().write(true).open(path).map_err(io_err)?;
            (Box::new(f), None)
        } else {
            let mut atomic = AtomicFile::create(path)?;
            let f = atomic.file().try_clone().map_err(io_err)?;
            (Box::new(f), Some(atomic))
        };
        let buffered = BufWriter::with_capacity(1 << 20, raw);
        let sink = if name.ends_with(".gz") {
            Sink::Gzip(flate2::write::GzEncoder::new(buffered, flate2::Compression::default()))
        } else if name.ends_with(".zst") || name.ends_with(".zstd") {
            Sink::Zstd(zstd::stream::write::Encoder::new(buffered, 3).map_err(io_err)?)
        } else if name.ends_with(".xz") {
            Sink::Xz(xz2::write::XzEncoder::new(buffered, 6))
        } else {
            Sink::Plain(buffered)
        };
        Ok(Output { sink, path: path.to_path_buf(), file })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ends the compressed stream, flushes, and renames the file into place. Without this call (an error
    /// on the way) the destination is untouched.
    pub fn finish(self) -> Result<(), TraceError> {
        let io_err = |e| TraceError::io(&self.path, e);
        let buffered = match self.sink {
            Sink::Plain(f) => f,
            Sink::Gzip(e) => e.finish().map_err(io_err)?,
            Sink::Zstd(e) => e.finish().map_err(io_err)?,
            Sink::Xz(e) => e.finish().map_err(io_err)?,
        };
        // Flushing the buffer is where a full disk (or a closed pipe) shows.
        buffered.into_inner().map_err(|e| io_err(e.into_error()))?.flush().map_err(io_err)?;
        match self.file {
            Some(file) => file.commit(),
            None => Ok(()),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Plain(w) => w.write(buf),
            Sink::Gzip(w) => w.write(buf),
            Sink::Zstd(w) => w.write(buf),
            Sink::Xz(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Plain(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
            Sink::Zstd(w) => w.flush(),
            Sink::Xz(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfinished_output_leaves_the_destination_alone() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.csv");
        std::fs::write(&dest, "old\n").unwrap();
        let mut out = Output::create(&dest).unwrap();
        out.write_all(b"new\n").unwrap();
        drop(out);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old\n");
        let mut out = Output::create(&dest).unwrap();
        out.write_all(b"new\n").unwrap();
        out.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
    }

    fn listed(path: &Path) -> bool {
        TEMPORARIES.lock().unwrap().iter().any(|p| p == path)
    }

    /// What [`remove_temporaries`] would remove: every temporary file alive, and none committed or dropped.
    /// (It is not called here: it keeps the list locked for the rest of the process. The command line's
    /// reliability test interrupts a conversion and checks that nothing is left.)
    #[test]
    fn a_temporary_file_is_listed_exactly_while_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let committed = AtomicFile::create(&dir.path().join("a.csv")).unwrap();
        let dropped = AtomicFile::create(&dir.path().join("b.csv")).unwrap();
        let (a, b) = (committed.path().to_path_buf(), dropped.path().to_path_buf());
        assert!(listed(&a) && listed(&b));
        committed.commit().unwrap();
        drop(dropped);
        assert!(!listed(&a) && !listed(&b), "a committed or dropped file is off the list");
        assert!(!a.exists() && !b.exists());
        assert!(dir.path().join("a.csv").exists(), "the commit renamed it into place");
    }

    #[test]
    fn a_link_is_followed_and_the_input_is_recognised_under_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.csv");
        std::fs::write(&target, "old\n").unwrap();
        let hard = dir.path().join("hard.csv");
        std::fs::hard_link(&target, &hard).unwrap();
        let spelled = dir.path().join(".").join("target.csv");
        for name in [&target, &hard, &spelled] {
            let err = ensure_not_input(name, target.to_str().unwrap()).unwrap_err().to_string();
            assert!(err.contains("is the input"), "{err}");
        }
        ensure_not_input(&dir.path().join("other.csv"), target.to_str().unwrap()).unwrap();
        ensure_not_input(&target, "-").unwrap();
        #[cfg(unix)]
        {
            let link = dir.path().join("link.csv");
            std::os::unix::fs::symlink(&target, &link).unwrap();
            assert!(ensure_not_input(&link, target.to_str().unwrap()).is_err());
            let mut out = Output::create(&link).unwrap();
            out.write_all(b"through the link\n").unwrap();
            out.finish().unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays");
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "through the link\n");
            // A link to a file not yet there (a relative one, through a second link): its target is
            // created and the links stay, where the first link used to be replaced by a plain file.
            let dangling = dir.path().join("dangling.svg");
            let second = dir.path().join("second.svg");
            std::os::unix::fs::symlink("new-target.svg", &second).unwrap();
            std::os::unix::fs::symlink(&second, &dangling).unwrap();
            let mut out = Output::create(&dangling).unwrap();
            out.write_all(b"<svg/>\n").unwrap();
            out.finish().unwrap();
            for link in [&dangling, &second] {
                assert!(std::fs::symlink_metadata(link).unwrap().file_type().is_symlink(), "{link:?} stays");
            }
            assert_eq!(std::fs::read_to_string(dir.path().join("new-target.svg")).unwrap(), "<svg/>\n");
        }
    }

    /// A destination whose directory is missing (or is a file) is named as the user gave it, with what is
    /// wrong with its directory; the temporary file's name (`/x/.tmp-Ab12Cd-out.csv`) used to be the one
    /// named: "/nonexistent/dir: No such file or directory (os error 2) at path "/nonexistent/dir/.tmp-…"".
    #[test]
    fn a_missing_directory_is_named_with_the_destination_not_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-dir");
        let dest = missing.join("out.csv");
        let err = Output::create(&dest).err().expect("refused").to_string();
        assert_eq!(err, format!("{}: the directory {} does not exist", dest.display(), missing.display()));
        // Checked before any work, in the same words.
        assert_eq!(check_destination(&dest).unwrap_err().to_string(), err);
        assert!(check_destination(dir.path())
            .unwrap_err()
            .to_string()
            .ends_with("is a directory (name a file)"));
        check_destination(&dir.path().join("new.csv")).unwrap();
        // A trailing slash: the rename at the end failed ("Not a directory") after all the work.
        let slashed = format!("{}/", dir.path().join("new.csv").display());
        let err = check_destination(Path::new(&slashed)).unwrap_err().to_string();
        assert!(err.ends_with("names a directory, not a file (drop the final /)"), "{err}");
        assert_eq!(AtomicFile::create(Path::new(&slashed)).err().expect("refused").to_string(), err);
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let dest = file.join("out.csv");
        let err = AtomicFile::create(&dest).err().expect("refused").to_string();
        assert_eq!(err, format!("{}: {} is not a directory", dest.display(), file.display()));
        let e = io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Permission denied (os error 13) at path \"/x/.tmp-Ab12-o\"",
        );
        assert_eq!(without_temp_name(e).to_string(), "Permission denied (os error 13)");
        let e = io::Error::new(io::ErrorKind::PermissionDenied, "cannot create /x/.tmp-Ab12-o");
        assert_eq!(without_temp_name(e).to_string(), "permission denied");
    }

    #[test]
    fn compressions_pagelab_cannot_write_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["t.csv.bz2", "t.lz4", "T.ZIP"] {
            let path = dir.path().join(name);
            let err = Output::create(&path).err().expect("refused").to_string();
            assert!(err.contains("cannot write") && err.contains(".gz, .zst, .xz"), "{err}");
            assert!(!path.exists());
        }
    }
}
