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

use std::path::Path;
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
        let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(std::fs::canonicalize(parent)?)?;
        let path = dir.path().to_path_buf();
        let _remove = on_signal(move || {
            let _ = std::fs::remove_dir_all(&path);
        });
        Ok(WorkDir { dir, _remove })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
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
