//! Mounting and unmounting: the checks that give each failure its own clear error, the FUSE session, and
//! a clean unmount (umount2 by the daemon) on SIGINT/SIGTERM or `pagelab umount`.

use crate::baseline::Backend;
use crate::disk_map::DiskMap;
use crate::engine::{Engine, EngineConfig};
use crate::fs::PagelabFs;
use crate::stats::{serve_prometheus, LiveStats, STATS_XATTR};
use crate::FsError;
use fuser::{MountOption, Session, SessionACL};
use std::ffi::CString;
use std::net::SocketAddr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a pagelab mount's source appears in /proc/mounts: `pagelab:SOURCE` (its type is `fuse`, or
/// `fuse.pagelab` when fusermount3 mounted it).
pub const FS_NAME_PREFIX: &str = "pagelab:";
/// How long an unmount waits for the session's threads to end before it reports them stuck.
const SESSION_END_WAIT: Duration = Duration::from_secs(10);

pub struct MountConfig {
    pub source: PathBuf,
    pub mountpoint: PathBuf,
    pub engine: EngineConfig,
    /// Threads reading FUSE requests (a read that misses does not hold one).
    pub fuse_threads: usize,
    pub attr_ttl: Duration,
    pub wants_cpu: bool,
    pub stats_addr: Option<SocketAddr>,
    /// What serves file reads: the engine, or a benchmark baseline ([`Backend`]).
    pub backend: Backend,
}

/// A live mount. Dropping it unmounts (lazily if busy).
pub struct Mounted {
    mountpoint: PathBuf,
    engine: Arc<Engine>,
    session: Option<JoinHandle<std::io::Result<()>>>,
    /// Mounted with `allow_other` ([`everyone_may_read`], decided once, at the mount).
    everyone_reads: bool,
}

/// Mount `config.source` at `config.mountpoint`, served by a new engine. Every refusal is a distinct error.
pub fn mount(config: MountConfig) -> Result<Mounted, FsError> {
    let source = std::fs::canonicalize(&config.source)
        .map_err(|e| FsError::Source { path: config.source.clone(), why: e.to_string() })?;
    if !source.is_dir() {
        return Err(FsError::Source { path: source, why: "not a directory".into() });
    }
    let mountpoint = std::fs::canonicalize(&config.mountpoint)
        .map_err(|e| FsError::Mountpoint { path: config.mountpoint.clone(), why: e.to_string() })?;
    // Before looking at the directory: a mount whose daemon died cannot be stat()ed (ENOTCONN).
    if let Some(m) = mounted_at(&mountpoint)? {
        let how = if m.is_pagelab() { "pagelab umount" } else { "umount" };
        let why = format!(
            "already a mount point ({} from {}); unmount it first ({how} {})",
            m.fstype,
            m.source,
            mountpoint.display()
        );
        return Err(FsError::Mountpoint { path: mountpoint, why });
    }
    if !mountpoint.is_dir() {
        return Err(FsError::Mountpoint { path: mountpoint, why: "not a directory".into() });
    }
    if mountpoint.starts_with(&source) {
        return Err(FsError::Mountpoint {
            path: mountpoint,
            why: format!("inside the source {}: the mount would serve itself", source.display()),
        });
    }
    if source.starts_with(&mountpoint) {
        let why = format!("contains the source {}: the mount would hide what it serves", source.display());
        return Err(FsError::Mountpoint { path: mountpoint, why });
    }
    // The mount would hide the directory's files until it ends: refused, as its help says.
    let mut entries = std::fs::read_dir(&mountpoint)
        .map_err(|e| FsError::Mountpoint { path: mountpoint.clone(), why: e.to_string() })?;
    if entries.next().is_some() {
        let why = "not empty: the mount would hide its files (mount on an empty directory)".to_string();
        return Err(FsError::Mountpoint { path: mountpoint, why });
    }
    check_dev_fuse()?;
    let mut config = config;
    if let Some(device) = config.engine.device.as_mut() {
        device.pack(DiskMap::scan(&source));
    }
    let engine = Engine::start(config.engine).map_err(FsError::Config)?;
    if let Some(addr) = config.stats_addr {
        if let Err(e) = serve_prometheus(addr, Arc::clone(&engine)) {
            engine.shutdown();
            return Err(FsError::Config(format!("--stats {addr}: {e}")));
        }
    }
    let fs = PagelabFs::new(
        source.clone(),
        Arc::clone(&engine),
        config.attr_ttl,
        config.wants_cpu,
        config.backend,
    );
    let mut options = fuser::Config::default();
    options.mount_options = vec![
        MountOption::FSName(format!("{FS_NAME_PREFIX}{}", source.display())),
        MountOption::Subtype("pagelab".into()),
        MountOption::RO,
        MountOption::NoAtime,
        MountOption::DefaultPermissions,
    ];
    // Servers drop privileges (nginx's workers run as www-data): everyone may read, as on the source,
    // where the mounting user may allow it.
    let everyone_reads = everyone_may_read();
    options.acl = if everyone_reads { SessionACL::All } else { SessionACL::Owner };
    options.n_threads = Some(config.fuse_threads.max(1));
    options.clone_fd = true;
    let session = match Session::new(fs, &mountpoint, &options) {
        Ok(s) => s,
        Err(e) => {
            engine.shutdown();
            return Err(mount_failed(&mountpoint, e));
        }
    };
    let thread = std::thread::Builder::new().name("pagelab-fuse".into()).spawn(move || session.run());
    let session = match thread {
        Ok(t) => t,
        Err(e) => {
            engine.shutdown();
            let _ = umount2(&mountpoint, libc::MNT_DETACH);
            return Err(FsError::Io(format!("cannot start the FUSE session: {e}")));
        }
    };
    Ok(Mounted { mountpoint, engine, session: Some(session), everyone_reads })
}

impl Mounted {
    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Every user may read through the mount (`allow_other`); `false`: only the user who mounted it.
    pub fn everyone_reads(&self) -> bool {
        self.everyone_reads
    }

    /// The session ended: someone unmounted the file system (`pagelab umount`, `umount`).
    pub fn ended(&self) -> bool {
        self.session.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Unmount and stop. A busy mount (a process has a file open there) is detached instead: it disappears
    /// now and goes away when the last user closes it. `Ok(true)` if it had to be detached.
    pub fn unmount(mut self) -> Result<bool, FsError> {
        self.unmount_inner()
    }

    fn unmount_inner(&mut self) -> Result<bool, FsError> {
        let Some(session) = self.session.take() else { return Ok(false) };
        let mut detached = false;
        if !session.is_finished() {
            match umount2(&self.mountpoint, 0) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    umount2(&self.mountpoint, libc::MNT_DETACH)
                        .map_err(|e| FsError::Io(format!("unmounting {}: {e}", self.mountpoint.display())))?;
                    detached = true;
                }
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {} // already unmounted
                Err(e) => return Err(FsError::Io(format!("unmounting {}: {e}", self.mountpoint.display()))),
            }
        }
        let deadline = Instant::now() + SESSION_END_WAIT;
        while !session.is_finished() && !detached {
            if Instant::now() > deadline {
                self.engine.shutdown();
                return Err(FsError::Io(format!(
                    "the FUSE session at {} did not end {} s after unmounting",
                    self.mountpoint.display(),
                    SESSION_END_WAIT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let ended = if session.is_finished() { session.join().ok() } else { None };
        self.engine.shutdown();
        match ended {
            Some(Err(e)) => {
                Err(FsError::Io(format!("the FUSE session at {} ended with: {e}", self.mountpoint.display())))
            }
            _ => Ok(detached),
        }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = self.unmount_inner();
    }
}

/// For a process about to end with its own mount up (a benchmark stopped by a signal): aborts the mount's
/// FUSE connection, then detaches the mount. Best effort, and it never reads through the mount. Without the
/// abort, a thread of this process blocked in a read of its own mount keeps the process from ending: the
/// exit kills the daemon's threads first, the read waits for their answer in uninterruptible sleep, and
/// the device is closed only once every thread has gone. `mountpoint` must be the mount's absolute,
/// canonical path, as `/proc/self/mountinfo` spells it.
pub fn abort_and_detach(mountpoint: &Path) {
    let entry = mounted_at(mountpoint).ok().flatten().filter(|m| m.fstype.starts_with("fuse"));
    if let Some(connection) = entry.and_then(|m| m.minor) {
        let ctl = Path::new("/sys/fs/fuse/connections");
        if !ctl.join(connection.to_string()).exists() {
            // The control file system is not mounted by default everywhere; as root it can be.
            if let (Ok(src), Ok(dst)) = (CString::new("fusectl"), CString::new(ctl.as_os_str().as_bytes())) {
                // SAFETY: valid C strings; a null data pointer is allowed.
                unsafe { libc::mount(src.as_ptr(), dst.as_ptr(), src.as_ptr(), 0, std::ptr::null()) };
            }
        }
        let _ = std::fs::write(ctl.join(connection.to_string()).join("abort"), "1");
    }
    let _ = umount2(mountpoint, libc::MNT_DETACH);
}

/// Unmount `path` (`flags`: 0, or `MNT_DETACH`). A user who is not root mounted through the setuid
/// fusermount3 and may not call umount2 (EPERM): fusermount3 unmounts for them, as libfuse's
/// `fuse_unmount` does, and its failures are mapped back to the errno umount2 would have given.
fn umount2(path: &Path, flags: libc::c_int) -> std::io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|_| std::io::ErrorKind::InvalidInput)?;
    // SAFETY: a valid C string.
    if unsafe { libc::umount2(c.as_ptr(), flags) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::EPERM) || running_as_root() {
        return Err(e);
    }
    fusermount_unmount(path, flags & libc::MNT_DETACH != 0)
}

/// `fusermount3 -u [-z] PATH` (or fuse 2's `fusermount`), for a mount its user made without root.
fn fusermount_unmount(path: &Path, lazy: bool) -> std::io::Result<()> {
    let mut last = std::io::Error::from_raw_os_error(libc::EPERM);
    for bin in ["fusermount3", "fusermount"] {
        let mut cmd = std::process::Command::new(bin);
        cmd.arg("-u").args(lazy.then_some("-z")).arg("--").arg(path);
        let out = match cmd.stdin(std::process::Stdio::null()).output() {
            Ok(out) => out,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if out.status.success() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&out.stderr).trim().to_string();
        last = fusermount_error(&text);
        break;
    }
    Err(last)
}

/// The errno umount2 would have given for fusermount's complaint `text` (its strerror is in the text).
fn fusermount_error(text: &str) -> std::io::Error {
    if text.contains("Device or resource busy") {
        std::io::Error::from_raw_os_error(libc::EBUSY)
    } else if text.contains("Invalid argument") || text.contains("not found in") {
        std::io::Error::from_raw_os_error(libc::EINVAL)
    } else {
        std::io::Error::other(format!("fusermount3: {text}"))
    }
}

/// Unmount the pagelab mount at `mountpoint` (`pagelab umount`): its daemon sees the session end and exits.
/// `lazy` detaches a busy mount. Refuses a path that is not a pagelab mount.
pub fn umount(mountpoint: &Path, lazy: bool) -> Result<(), FsError> {
    let path = std::fs::canonicalize(mountpoint)
        .map_err(|e| FsError::Mountpoint { path: mountpoint.to_path_buf(), why: e.to_string() })?;
    match mounted_at(&path)? {
        Some(m) if m.is_pagelab() => {}
        Some(m) => {
            return Err(FsError::Mountpoint {
                path,
                why: format!("a {} mount of {}, not pagelab's", m.fstype, m.source),
            })
        }
        None => return Err(FsError::Mountpoint { path, why: "not a mount point".into() }),
    }
    umount2(&path, if lazy { libc::MNT_DETACH } else { 0 }).map_err(|e| {
        let busy = e.raw_os_error() == Some(libc::EBUSY);
        FsError::Mountpoint {
            path: path.clone(),
            why: if busy { "busy (a process uses it); --lazy detaches it now".into() } else { e.to_string() },
        }
    })
}

/// The statistics of the pagelab mount at `mountpoint` (its root's [`STATS_XATTR`]).
pub fn read_stats(mountpoint: &Path) -> Result<LiveStats, FsError> {
    let bad = |why: String| FsError::Mountpoint { path: mountpoint.to_path_buf(), why };
    let path =
        CString::new(mountpoint.as_os_str().as_bytes()).map_err(|_| bad("a path with a NUL byte".into()))?;
    let name = CString::new(STATS_XATTR).expect("a constant without NUL");
    let mut buf = vec![0u8; 1 << 16];
    for _ in 0..4 {
        // SAFETY: valid C strings and a buffer of the given length.
        let n = unsafe { libc::getxattr(path.as_ptr(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            buf.truncate(n as usize);
            return serde_json::from_slice(&buf).map_err(|e| bad(format!("unreadable statistics: {e}")));
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ERANGE) => buf.resize(buf.len() * 4, 0),
            Some(libc::ENODATA) | Some(libc::ENOTSUP) => return Err(bad("not a pagelab mount".into())),
            Some(libc::ENOTCONN) => {
                return Err(bad(format!(
                    "the mount's daemon is gone (transport endpoint not connected); `pagelab umount {}` removes it",
                    mountpoint.display()
                )))
            }
            _ => return Err(bad(e.to_string())),
        }
    }
    Err(bad("statistics larger than 4 MiB".into()))
}

/// A mount, as /proc/self/mountinfo lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountEntry {
    pub fstype: String,
    pub source: String,
    /// The device's minor number (`MAJ:MIN`): a FUSE mount's connection in `/sys/fs/fuse/connections`.
    pub minor: Option<u32>,
}

impl MountEntry {
    pub fn is_pagelab(&self) -> bool {
        self.fstype.starts_with("fuse") && self.source.starts_with(FS_NAME_PREFIX)
    }
}

/// What is mounted exactly at `path`, if anything (the topmost of stacked mounts).
pub fn mounted_at(path: &Path) -> Result<Option<MountEntry>, FsError> {
    let text = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| FsError::Io(format!("/proc/self/mountinfo: {e}")))?;
    let want = path.as_os_str().as_bytes();
    let mut found = None;
    for line in text.lines() {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.len() < 5 || unescape(fields[4]) != want {
            continue;
        }
        let at = fields.iter().position(|&f| f == "-");
        let field = |k: usize| {
            at.and_then(|i| fields.get(i + k))
                .map_or("unknown".to_string(), |f| String::from_utf8_lossy(&unescape(f)).into_owned())
        };
        let minor = fields[2].split(':').nth(1).and_then(|m| m.parse().ok());
        found = Some(MountEntry { fstype: field(1), source: field(2), minor });
    }
    Ok(found)
}

/// /proc/self/mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape(field: &str) -> Vec<u8> {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn check_dev_fuse() -> Result<(), FsError> {
    check_fuse_device(Path::new("/dev/fuse"))
}

/// Whether this process runs as root (mounts with mount(2), unmounts with umount2).
pub fn running_as_root() -> bool {
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    euid == 0
}

/// Whether a mount by this process lets every user read through it (`allow_other`): always as root; for
/// another user only where /etc/fuse.conf has `user_allow_other`, without which fusermount3 refuses the
/// option (and then only the mounting user may read).
pub fn everyone_may_read() -> bool {
    running_as_root()
        || fuse_conf_allows_other(&std::fs::read_to_string("/etc/fuse.conf").unwrap_or_default())
}

/// Whether this process can mount a pagelab file system, or why not: /dev/fuse opens for reading and
/// writing, and the process is root (mount(2)) or has fusermount3 on its PATH (the setuid helper fuser
/// mounts through otherwise). The live tests run where this holds and say why where it does not.
pub fn mount_possible() -> Result<(), String> {
    check_dev_fuse().map_err(|e| e.to_string())?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    if running_as_root() || std::env::split_paths(&path).any(|dir| dir.join("fusermount3").is_file()) {
        Ok(())
    } else {
        Err("not root, and no fusermount3 on PATH (apt-get install fuse3)".into())
    }
}

/// /etc/fuse.conf's text has an uncommented `user_allow_other`.
fn fuse_conf_allows_other(text: &str) -> bool {
    text.lines().any(|line| line.split('#').next().unwrap_or_default().trim() == "user_allow_other")
}

/// The FUSE device at `path` opens for reading and writing; else why not, and what to do.
fn check_fuse_device(path: &Path) -> Result<(), FsError> {
    std::fs::OpenOptions::new().read(true).write(true).open(path).map(drop).map_err(fuse_device_error)
}

/// Why the FUSE device would not open, and what to do.
fn fuse_device_error(e: std::io::Error) -> FsError {
    match e {
        e if e.kind() == std::io::ErrorKind::NotFound => FsError::Fuse(
            "/dev/fuse does not exist: load the fuse module (modprobe fuse), or in a container pass the device \
             (docker run --device /dev/fuse --cap-add SYS_ADMIN)"
                .into(),
        ),
        e if e.kind() == std::io::ErrorKind::PermissionDenied => FsError::Permission(
            "no permission to open /dev/fuse: run as root, or install fuse3 (apt-get install fuse3) so \
             fusermount3 can mount for you"
                .into(),
        ),
        e => FsError::Fuse(format!("/dev/fuse: {e}")),
    }
}

fn mount_failed(mountpoint: &Path, e: std::io::Error) -> FsError {
    match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => FsError::Permission(format!(
            "mounting {} was refused ({e}): mounting needs root (CAP_SYS_ADMIN), or fusermount3 from fuse3",
            mountpoint.display()
        )),
        _ if e.kind() == std::io::ErrorKind::NotFound => FsError::Permission(format!(
            "mounting {} needs root, or fusermount3 (apt-get install fuse3): {e}",
            mountpoint.display()
        )),
        _ => FsError::Io(format!("mounting {}: {e}", mountpoint.display())),
    }
}

/// Block SIGINT, SIGTERM and SIGHUP in this thread and every thread it starts after, so that
/// [`wait_for_signal`] receives them. Call before [`mount`].
pub fn block_termination_signals() {
    // SAFETY: plain signal-mask calls on a stack-allocated set.
    unsafe {
        let set = termination_set();
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

unsafe fn termination_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initializes the set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        set
    }
}

/// Why the daemon stops.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    Signal(i32),
    /// Unmounted from outside (`pagelab umount`, `umount`).
    Unmounted,
    /// An engine thread failed (a bug): the mount cannot serve reads any more.
    Failed(String),
}

/// Wait until a termination signal arrives (blocked by [`block_termination_signals`]) or the mount goes
/// away from outside.
pub fn wait_for_signal(mounted: &Mounted) -> Stop {
    // SAFETY: sigtimedwait on an initialized set with a valid timeout.
    let set = unsafe { termination_set() };
    let timeout = libc::timespec { tv_sec: 0, tv_nsec: 200_000_000 };
    loop {
        if let Some(why) = mounted.engine.failure() {
            return Stop::Failed(why);
        }
        if mounted.ended() {
            return Stop::Unmounted;
        }
        let sig = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &timeout) };
        if sig > 0 {
            return Stop::Signal(sig);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes_are_decoded() {
        assert_eq!(unescape(r"/mnt/a\040b\134c"), b"/mnt/a b\\c".to_vec());
        assert_eq!(unescape(r"/plain"), b"/plain".to_vec());
        assert_eq!(unescape(r"\04"), b"\\04".to_vec());
    }

    #[test]
    fn a_missing_or_forbidden_fuse_device_says_what_to_do() {
        let err = check_fuse_device(Path::new("/nonexistent/fuse")).unwrap_err();
        assert!(matches!(err, FsError::Fuse(_)) && err.to_string().contains("modprobe fuse"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = check_fuse_device(dir.path()).unwrap_err(); // a directory does not open read-write
        assert!(matches!(err, FsError::Fuse(_)), "{err}");
        // As root a mode-0600 device opens anyway, so the refusal a user meets is checked by its errno.
        let err = fuse_device_error(std::io::Error::from_raw_os_error(libc::EACCES));
        assert!(matches!(err, FsError::Permission(_)) && err.to_string().contains("fusermount3"), "{err}");
        let refused = mount_failed(Path::new("/mnt/x"), std::io::Error::from_raw_os_error(libc::EPERM));
        assert!(
            matches!(refused, FsError::Permission(_)) && refused.to_string().contains("root"),
            "{refused}"
        );
    }

    #[test]
    fn only_an_uncommented_user_allow_other_lets_everyone_read() {
        assert!(fuse_conf_allows_other("# comment\nuser_allow_other\n"));
        assert!(fuse_conf_allows_other("  user_allow_other  # why\n"));
        assert!(!fuse_conf_allows_other("#user_allow_other\nmount_max = 1000\n"));
        assert!(!fuse_conf_allows_other(""));
    }

    #[test]
    fn fusermounts_complaints_map_to_umount2s_errnos() {
        let busy = fusermount_error("fusermount3: failed to unmount /mnt/x: Device or resource busy");
        assert_eq!(busy.raw_os_error(), Some(libc::EBUSY));
        let gone = fusermount_error("fusermount3: entry for /mnt/x not found in /etc/mtab");
        assert_eq!(gone.raw_os_error(), Some(libc::EINVAL));
        let other = fusermount_error("fusermount3: something else");
        assert!(other.raw_os_error().is_none() && other.to_string().contains("something else"), "{other}");
    }

    #[test]
    fn the_root_is_a_mount_point_and_a_fresh_directory_is_not() {
        assert!(mounted_at(Path::new("/")).unwrap().is_some());
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(mounted_at(&std::fs::canonicalize(dir.path()).unwrap()).unwrap(), None);
    }
}
