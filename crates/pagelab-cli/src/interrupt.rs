//! What a command undoes when SIGINT, SIGTERM or SIGHUP ends it.
//!
//! A signal's default action ends the process before any destructor runs, so everything a destructor
//! would have cleaned up stays: each unfinished output's `.tmp-…` file beside its destination, and under
//! `bench --live` a FUSE mount whose daemon is gone (its directory answers "Transport endpoint is not
//! connected" until someone unmounts it), an nginx that outlives the benchmark, and the datasets the
//! benchmark wrote. [`install`] starts a thread that waits for those signals and then, in order:
//! 1. gives the signals back their default actions, so that a second Ctrl-C ends a cleanup that hangs;
//! 2. runs the undo actions registered with [`on_signal`], the newest first (as destructors would run:
//!    nginx stopped and waited for, up to 5 s, before the mounts it reads are detached, the mounts before
//!    their directory goes);
//! 3. removes every output's temporary file ([`pagelab_trace::output::remove_temporaries`]), last, since
//!    a writer that opens its file by path could make it again while the actions run;
//! 4. ends the process as the signal's default action would, so a shell sees 130 for Ctrl-C.
//!
//! `pagelab mount` does not install it: it blocks these signals and waits for them itself, for a clean
//! unmount. Child processes start with the default actions (exec resets handled signals).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

type Undo = Box<dyn FnOnce() + Send>;

/// The registered undo actions, each with its registration's number. Bounded by what a command holds at
/// once (a benchmark: its work directory, its mounts, one nginx).
static UNDO: Mutex<Vec<(u64, Undo)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(1);

/// A registered undo action, taken off the list when dropped: the owner cleaned up itself.
#[must_use = "dropping the registration at once unregisters the action"]
pub struct OnSignal(u64);

/// Registers `undo` to run if a signal ends the process while the returned registration lives. `undo`
/// must be quick and must not panic (the process is ending; it runs on the signal thread).
pub fn on_signal(undo: impl FnOnce() + Send + 'static) -> OnSignal {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    UNDO.lock().unwrap_or_else(|p| p.into_inner()).push((id, Box::new(undo)));
    OnSignal(id)
}

impl Drop for OnSignal {
    fn drop(&mut self) {
        let mut undo = UNDO.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = undo.iter().position(|(id, _)| *id == self.0) {
            // Dropped without running: the owner undoes its own work.
            drop(undo.remove(i));
        }
    }
}

/// A work directory (a benchmark's traces, datasets, mount points), removed with its contents when dropped
/// and when a signal ends the process.
pub struct WorkDir {
    dir: tempfile::TempDir,
    _remove: OnSignal,
}

impl WorkDir {
    /// A new directory in `parent` whose name starts with `prefix`. Its path is absolute and canonical, as
    /// `/proc/self/mountinfo` spells the mounts a benchmark makes inside it.
    pub fn new_in(parent: &Path, prefix: &str) -> std::io::Result<WorkDir> {
        // The error names the directory: "No such file or directory" alone does not say which.
        let named = |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", parent.display()));
        let parent = std::fs::canonicalize(parent).map_err(named)?;
        let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(&parent).map_err(named)?;
        let path = dir.path().to_path_buf();
        let _remove = on_signal(move || remove_while_in_use(&path));
        Ok(WorkDir { dir, _remove })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Remove the directory `path` and everything in it while the command's other threads, still running
/// when a signal's undo actions run, may be creating entries in it (the next target's mount point, a
/// dataset's next file): one made between `remove_dir_all`'s listing and its last `rmdir` left the
/// directory behind. So it is first renamed aside, after which whatever they create by its path fails,
/// and then removed; a few bounded retries cover an entry created through a handle opened before.
fn remove_while_in_use(path: &Path) {
    let mut aside = path.as_os_str().to_owned();
    aside.push(".removing");
    let target = if std::fs::rename(path, &aside).is_ok() { Path::new(&aside) } else { path };
    for _ in 0..20 {
        if std::fs::remove_dir_all(target).is_ok() || !target.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// `cmd`'s output, as [`Command::output`] gives it (standard input closed, the other two captured), with
/// the child sent SIGTERM if a signal ends this process while it runs: a benchmark's `cachesim` or
/// libCacheSim child otherwise ran on to its end, its reader gone.
///
/// The action is registered before the spawn, and the spawn happens under the lock the action takes: a
/// registration made after the spawn waited while the undo actions ran, so a child started just then
/// was never stopped (and failed once its work directory had gone). A child is reaped only after the
/// action is off the list (`waitid` with `WNOWAIT` waits for its exit and leaves it a zombie): an action
/// must never `kill()` a pid that was waited for and may have been reused.
pub fn output_of(cmd: &mut Command) -> std::io::Result<Output> {
    let state = std::sync::Arc::new(Mutex::new(ChildState::default()));
    let theirs = std::sync::Arc::clone(&state);
    let stop = on_signal(move || {
        let mut child = theirs.lock().unwrap_or_else(|p| p.into_inner());
        child.stopped = true;
        if let Some(pid) = child.pid {
            stop_child(pid);
        }
    });
    let mut child = {
        let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
        if s.stopped {
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "the command is ending"));
        }
        let child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        s.pid = Some(child.id() as libc::pid_t);
        child
    };
    // Both pipes read to their ends at once, so that a child filling one is never blocked on the other.
    let mut stderr_pipe = child.stderr.take().expect("stderr piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr_pipe.read_to_end(&mut bytes).map(|_| bytes)
    });
    let mut stdout = Vec::new();
    let read = child.stdout.take().expect("stdout piped").read_to_end(&mut stdout);
    let stderr = stderr_reader.join().unwrap_or_else(|_| Ok(Vec::new()));
    wait_without_reaping(child.id() as libc::pid_t)?;
    drop(stop);
    let status = child.wait()?;
    read?;
    Ok(Output { status, stdout, stderr: stderr? })
}

/// What [`output_of`]'s undo action knows of its child.
#[derive(Default)]
struct ChildState {
    /// The child, once spawned.
    pid: Option<libc::pid_t>,
    /// The action ran: no child may be spawned after it.
    stopped: bool,
}

/// Sends child `pid` SIGTERM and waits up to a second for it to exit (its work directory is removed
/// next), then SIGKILL.
fn stop_child(pid: libc::pid_t) {
    // SAFETY: kill(2) on our own child, never reaped while `output_of`'s registration lives.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    for _ in 0..100 {
        if has_exited(pid) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}

/// Whether child `pid` has exited (it is not reaped: `WNOWAIT`).
fn has_exited(pid: libc::pid_t) -> bool {
    exited(pid, libc::WNOHANG).unwrap_or(true)
}

/// Waits until child `pid` has exited, leaving it unreaped.
fn wait_without_reaping(pid: libc::pid_t) -> std::io::Result<()> {
    loop {
        match exited(pid, 0) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other.map(drop),
        }
    }
}

/// `waitid(P_PID, pid, WEXITED | WNOWAIT | flags)`: whether child `pid` has exited, leaving it unreaped.
/// Without `WNOHANG` in `flags`, it waits for the exit.
fn exited(pid: libc::pid_t, flags: libc::c_int) -> std::io::Result<bool> {
    // SAFETY: `info` is a plain C struct the call fills; `pid` is our own child, not yet reaped.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOWAIT | flags;
    if unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // With WNOHANG, a child that has not exited leaves `si_pid` 0.
    Ok(unsafe { info.si_pid() } != 0)
}

/// Runs every registered action, newest first, and keeps the list locked: nothing registered after this
/// is left unrun, because its registration blocks until the process ends.
fn undo_all() {
    let mut undo = UNDO.lock().unwrap_or_else(|p| p.into_inner());
    while let Some((_, action)) = undo.pop() {
        action();
    }
    std::mem::forget(undo);
}

/// Starts the signal thread (module doc). On failure the process keeps the default actions, and says so.
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let warn = || {
        crate::output::note("warning: no signal thread: an interrupted run may leave temporary files behind")
    };
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return warn();
    };
    let handle = signals.handle();
    let waiting = std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // A second Ctrl-C while the cleanup runs (an unmount that hangs) ends the process at once.
            for s in [SIGINT, SIGTERM, SIGHUP] {
                // SAFETY: restores a default action; nothing in this process relies on the handler now.
                unsafe { libc::signal(s, libc::SIG_DFL) };
            }
            undo_all();
            // Last: a writer that opens its temporary file by path could make it again while the undo
            // actions run (the main thread goes on until the process ends).
            pagelab_trace::output::remove_temporaries();
            // The default action ends the process, with the status a shell reports for the signal.
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
    if waiting.is_err() {
        // Nobody would read the signals: give them back their default actions.
        handle.close();
        warn();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// A work directory goes, whole, while another thread keeps making entries in it by path (a
    /// benchmark's next mount point): nothing of it is left, under its name or the one it was moved to.
    #[test]
    fn a_work_directory_in_use_is_removed_whole() {
        let parent = tempfile::tempdir().unwrap();
        let work = parent.path().join("work");
        std::fs::create_dir(&work).unwrap();
        for i in 0..200 {
            std::fs::write(work.join(format!("f{i}")), b"x").unwrap();
        }
        let stop = Arc::new(AtomicBool::new(false));
        let maker = {
            let (work, stop) = (work.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut made = 0u32;
                // Bounded: the test stops it, or 100,000 attempts.
                for i in 0..100_000 {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    made += std::fs::create_dir(work.join(format!("d{i}"))).is_ok() as u32;
                }
                made
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(5));
        remove_while_in_use(&work);
        stop.store(true, Ordering::SeqCst);
        assert!(maker.join().unwrap() > 0, "the other thread made entries while the directory was there");
        let left: Vec<_> =
            std::fs::read_dir(parent.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "left: {left:?}");
    }

    fn listed(id: u64) -> bool {
        UNDO.lock().unwrap().iter().any(|(i, _)| *i == id)
    }

    /// An action is listed exactly while its registration lives, and dropping the registration does not
    /// run it. (`undo_all` is not called here: it keeps the list locked for the rest of the process; the
    /// reliability tests interrupt real runs.)
    #[test]
    fn an_action_is_listed_while_its_registration_lives_and_never_run_by_a_drop() {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let a = on_signal(move || flag.store(true, Ordering::SeqCst));
        let b = on_signal(|| {});
        let (ia, ib) = (a.0, b.0);
        assert!(ia < ib && listed(ia) && listed(ib));
        drop(a);
        assert!(!listed(ia) && listed(ib));
        drop(b);
        assert!(!listed(ib));
        assert!(!ran.load(Ordering::SeqCst), "a dropped registration's action never runs");
    }
}
