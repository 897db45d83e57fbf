//! The FUSE file system: a read-only view of the source directory whose file reads the engine serves.
//!
//! Inodes are the source's paths, numbered as the kernel first looks them up (the root is 1); a file's
//! number is also its [`FileId`] in the engine. Every `open()` is a stream (its `release()` is the owner's
//! exit); files are opened `direct_io`, so the kernel keeps no copy of their data and every read reaches the
//! engine. Lookups and getattrs go through the metadata cache when the mount has one (papers/004).
//! Attributes are the source's, served with a TTL (`--attr-ttl`, default 1 s; 0 sends every lookup here).
//!
//! The source is assumed not to change while mounted: a file's cached pages are not invalidated when the
//! source file is rewritten (the size is read at each open).

use crate::baseline::{self, Backend};
use crate::engine::Engine;
use crate::source::{FallbackDisk, SourceFile};
use crate::stats::STATS_XATTR;
use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyStatfs, ReplyXattr, Request,
};
use pagelab_core::{FileId, StreamId};
use rustc_hash::FxHashMap;
use std::ffi::{OsStr, OsString};
use std::fs::Metadata;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often a stream's owner's CPU time is sampled from /proc at most (Coldest+).
const CPU_SAMPLE_NS: u64 = 10_000_000;

struct Handle {
    source: Arc<SourceFile>,
    stream: StreamId,
    /// The thread last sampled, its CPU time then, and when (Coldest+).
    cpu: Mutex<(u32, u64, u64)>,
}

#[derive(Default)]
struct Tables {
    /// Path of inode `i + 1`, relative to the source (the root is the empty path).
    paths: Vec<PathBuf>,
    by_path: FxHashMap<PathBuf, u64>,
    handles: FxHashMap<u64, Arc<Handle>>,
    dirs: FxHashMap<u64, Vec<(u64, FileType, OsString)>>,
    next_fh: u64,
    /// Open source files by inode, shared by their handles.
    open: FxHashMap<u64, Weak<SourceFile>>,
}

pub struct PagelabFs {
    source: PathBuf,
    engine: Arc<Engine>,
    tables: Mutex<Tables>,
    fallback: FallbackDisk,
    attr_ttl: Duration,
    /// Sample owners' CPU time (the prefetch cache orders by it: Coldest+).
    wants_cpu: bool,
    backend: Backend,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn errno(e: &std::io::Error) -> Errno {
    Errno::from_i32(e.raw_os_error().unwrap_or(libc::EIO))
}

impl PagelabFs {
    pub fn new(
        source: PathBuf,
        engine: Arc<Engine>,
        attr_ttl: Duration,
        wants_cpu: bool,
        backend: Backend,
    ) -> PagelabFs {
        let tables = Tables {
            paths: vec![PathBuf::new()],
            by_path: [(PathBuf::new(), 1)].into_iter().collect(),
            next_fh: 1,
            ..Tables::default()
        };
        let fallback = FallbackDisk::default();
        PagelabFs { source, engine, tables: Mutex::new(tables), fallback, attr_ttl, wants_cpu, backend }
    }

    fn path(&self, ino: INodeNo) -> Result<PathBuf, Errno> {
        let t = lock(&self.tables);
        let i = usize::try_from(ino.0).ok().and_then(|i| i.checked_sub(1)).ok_or(Errno::ENOENT)?;
        t.paths.get(i).cloned().ok_or(Errno::ENOENT)
    }

    /// The inode of `rel`, numbered now if new. Numbers are file ids: bounded by what a page key can name.
    fn intern(&self, rel: PathBuf) -> Result<u64, Errno> {
        let mut t = lock(&self.tables);
        if let Some(&ino) = t.by_path.get(&rel) {
            return Ok(ino);
        }
        let ino = t.paths.len() as u64 + 1;
        if ino >= FileId::ANON_FIRST as u64 {
            return Err(Errno::ENFILE);
        }
        t.paths.push(rel.clone());
        t.by_path.insert(rel, ino);
        Ok(ino)
    }

    fn attr(&self, ino: u64, md: &Metadata) -> FileAttr {
        let kind = kind_of(md.file_type());
        let time = |s: i64, ns: i64| {
            if s >= 0 {
                UNIX_EPOCH + Duration::new(s as u64, ns as u32)
            } else {
                UNIX_EPOCH
            }
        };
        FileAttr {
            ino: INodeNo(ino),
            size: md.len(),
            blocks: md.blocks(),
            atime: time(md.atime(), md.atime_nsec()),
            mtime: time(md.mtime(), md.mtime_nsec()),
            ctime: time(md.ctime(), md.ctime_nsec()),
            crtime: SystemTime::UNIX_EPOCH,
            kind,
            // Read-only: the write bits are dropped so tools see what the mount allows.
            perm: (md.mode() & 0o7555) as u16,
            nlink: md.nlink() as u32,
            uid: md.uid(),
            gid: md.gid(),
            rdev: md.rdev() as u32,
            blksize: 4096,
            flags: 0,
        }
    }

    fn stat_source(&self, ino: u64, rel: &Path) -> Result<FileAttr, Errno> {
        let md = std::fs::symlink_metadata(self.source.join(rel)).map_err(|e| errno(&e))?;
        self.engine.stat(ino);
        Ok(self.attr(ino, &md))
    }

    /// The open source file of `ino`, shared with its other handles; opened (O_DIRECT, FIEMAP) outside the
    /// engine's lock.
    fn source_file(&self, ino: u64) -> Result<Arc<SourceFile>, Errno> {
        if let Some(f) = lock(&self.tables).open.get(&ino).and_then(Weak::upgrade) {
            return Ok(f);
        }
        let rel = self.path(INodeNo(ino))?;
        let direct = self.backend.direct();
        let file = SourceFile::open_with(FileId(ino as u32), &self.source.join(rel), &self.fallback, direct)
            .map_err(|e| errno(&e))?;
        let file = Arc::new(file);
        let mut t = lock(&self.tables);
        // Another open may have raced this one: keep the first.
        if let Some(f) = t.open.get(&ino).and_then(Weak::upgrade) {
            return Ok(f);
        }
        t.open.retain(|_, w| w.strong_count() > 0);
        t.open.insert(ino, Arc::downgrade(&file));
        Ok(file)
    }

    /// Report the reading thread's CPU time since this stream's last sample (Coldest+). Outside any lock.
    fn sample_cpu(&self, h: &Handle, tid: u32) {
        if !self.wants_cpu || tid == 0 {
            return;
        }
        let now = self.engine.clock().now().0;
        let (last_tid, last_cpu, last_at) = *lock(&h.cpu);
        if last_tid == tid && now.saturating_sub(last_at) < CPU_SAMPLE_NS {
            return;
        }
        let Some(cpu) = thread_cpu_ns(tid) else { return };
        *lock(&h.cpu) = (tid, cpu, now);
        if last_tid == tid && cpu > last_cpu {
            self.engine.stream_cpu(h.stream, cpu - last_cpu);
        }
    }
}

/// CPU time a thread has run, from /proc/TID/schedstat (nanoseconds on a CPU).
fn thread_cpu_ns(tid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/schedstat")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn kind_of(t: std::fs::FileType) -> FileType {
    if t.is_dir() {
        FileType::Directory
    } else if t.is_symlink() {
        FileType::Symlink
    } else if t.is_block_device() {
        FileType::BlockDevice
    } else if t.is_char_device() {
        FileType::CharDevice
    } else if t.is_fifo() {
        FileType::NamedPipe
    } else if t.is_socket() {
        FileType::Socket
    } else {
        FileType::RegularFile
    }
}

impl Filesystem for PagelabFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // mmap of a direct_io file (kernels 6.6 and later); refused by older kernels, which is fine.
        let _ = config.add_capabilities(InitFlags::FUSE_DIRECT_IO_ALLOW_MMAP);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let result = self.path(parent).and_then(|p| {
            let rel = p.join(name);
            let ino = self.intern(rel.clone())?;
            self.stat_source(ino, &rel)
        });
        match result {
            Ok(attr) => reply.entry(&self.attr_ttl, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.path(ino).and_then(|rel| self.stat_source(ino.0, &rel)) {
            Ok(attr) => reply.attr(&self.attr_ttl, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match self.path(ino).and_then(|rel| std::fs::read_link(self.source.join(rel)).map_err(|e| errno(&e)))
        {
            Ok(target) => reply.data(target.as_os_str().as_bytes()),
            Err(e) => reply.error(e),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if flags.0 & libc::O_ACCMODE != libc::O_RDONLY || flags.0 & libc::O_TRUNC != 0 {
            reply.error(Errno::EROFS);
            return;
        }
        let source = match self.source_file(ino.0) {
            Ok(s) => s,
            Err(e) => return reply.error(e),
        };
        let stream = self.engine.open_stream(&source);
        let handle = Arc::new(Handle { source, stream, cpu: Mutex::new((0, 0, 0)) });
        let fh = {
            let mut t = lock(&self.tables);
            let fh = t.next_fh;
            t.next_fh += 1;
            t.handles.insert(fh, handle);
            fh
        };
        reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
    }

    fn read(
        &self,
        req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let Some(h) = lock(&self.tables).handles.get(&fh.0).cloned() else {
            reply.error(Errno::EBADF);
            return;
        };
        let baseline = match &self.backend {
            Backend::Engine => None,
            Backend::Passthrough => Some(baseline::pread(&h.source, offset, size)),
            Backend::Naive(cache) => Some(cache.read(&h.source, offset, size)),
        };
        if let Some(result) = baseline {
            return match result {
                Ok(data) => reply.data(&data),
                Err(e) => reply.error(errno(&e)),
            };
        }
        let issuer = req.pid();
        self.sample_cpu(&h, issuer);
        let answer = Box::new(move |r: Result<&[u8], i32>| match r {
            Ok(data) => reply.data(data),
            Err(e) => reply.error(Errno::from_i32(e)),
        });
        // A panic here is a broken invariant: the engine records it and the daemon stops (the unanswered
        // request gets EIO from fuser).
        let call = std::panic::AssertUnwindSafe(|| {
            self.engine.read(h.stream, issuer, Arc::clone(&h.source), offset, size, answer)
        });
        if let Err(panic) = std::panic::catch_unwind(call) {
            self.engine.record_failure(panic.as_ref());
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        if let Some(h) = lock(&self.tables).handles.remove(&fh.0) {
            self.engine.close_stream(h.stream, h.source.file);
        }
        reply.ok();
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let rel = match self.path(ino) {
            Ok(p) => p,
            Err(e) => return reply.error(e),
        };
        let entries = match std::fs::read_dir(self.source.join(&rel)) {
            Ok(it) => it,
            Err(e) => return reply.error(errno(&e)),
        };
        let mut list = vec![(ino.0, FileType::Directory, OsString::from("."))];
        let parent = rel.parent().map(|p| *lock(&self.tables).by_path.get(p).unwrap_or(&1)).unwrap_or(1);
        list.push((parent, FileType::Directory, OsString::from("..")));
        for entry in entries.flatten() {
            let kind = entry.file_type().map(kind_of).unwrap_or(FileType::RegularFile);
            match self.intern(rel.join(entry.file_name())) {
                Ok(child) => list.push((child, kind, entry.file_name())),
                Err(e) => return reply.error(e),
            }
        }
        let mut t = lock(&self.tables);
        let fh = t.next_fh;
        t.next_fh += 1;
        t.dirs.insert(fh, list);
        reply.opened(FileHandle(fh), FopenFlags::empty());
    }

    fn readdir(&self, _req: &Request, _ino: INodeNo, fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        let t = lock(&self.tables);
        let Some(list) = t.dirs.get(&fh.0) else {
            return reply.error(Errno::EBADF);
        };
        for (i, (ino, kind, name)) in list.iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(*ino), i as u64 + 1, *kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        lock(&self.tables).dirs.remove(&fh.0);
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let path = std::ffi::CString::new(self.source.as_os_str().as_bytes()).unwrap_or_default();
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: a valid C string and a statvfs to fill.
        if unsafe { libc::statvfs(path.as_ptr(), &mut s) } != 0 {
            return reply.error(errno(&std::io::Error::last_os_error()));
        }
        reply.statfs(
            s.f_blocks,
            s.f_bfree,
            s.f_bavail,
            s.f_files,
            s.f_ffree,
            s.f_bsize as u32,
            s.f_namemax as u32,
            s.f_frsize as u32,
        );
    }

    fn getxattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, size: u32, reply: ReplyXattr) {
        if ino != INodeNo::ROOT || name != STATS_XATTR {
            return reply.error(Errno::NO_XATTR);
        }
        let json = serde_json::to_vec(&self.engine.stats()).unwrap_or_default();
        if size == 0 {
            reply.size(json.len() as u32);
        } else if (size as usize) < json.len() {
            reply.error(Errno::ERANGE);
        } else {
            reply.data(&json);
        }
    }

    fn listxattr(&self, _req: &Request, _ino: INodeNo, size: u32, reply: ReplyXattr) {
        if size == 0 {
            reply.size(0);
        } else {
            reply.data(&[]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_cpu_time_grows_as_it_runs() {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() } as u32;
        let before = thread_cpu_ns(tid).expect("/proc/TID/schedstat");
        // The kernel updates a running thread's sum at scheduler ticks: spin until one has passed (a few
        // ms; bounded at 5 s of wall time, far beyond any tick).
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while thread_cpu_ns(tid).unwrap() <= before && start.elapsed().as_secs() < 5 {
            for i in 0..1_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        }
        assert!(thread_cpu_ns(tid).unwrap() > before, "no CPU time in {:?}", start.elapsed());
        assert_eq!(thread_cpu_ns(u32::MAX), None);
    }
}
