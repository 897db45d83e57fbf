//! `pagelab mount` / `stats` / `umount` as a user runs them: the daemon serves the source's bytes, stops
//! cleanly on SIGTERM and on `pagelab umount` (exit 0, final statistics on stdout, no mount left behind),
//! and every bad input is one clear error with exit status 2. The mounting tests need /dev/fuse and root
//! (or fusermount3); without them they say so and pass.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn pagelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagelab")).args(args).output().expect("run pagelab")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fuse_available() -> bool {
    match pagelab_fs::mount::mount_possible() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIPPED: mounting is not possible here: {why}");
            false
        }
    }
}

fn mounted(path: &Path) -> bool {
    let want = std::fs::canonicalize(path).unwrap();
    std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap()
        .lines()
        .any(|l| l.split(' ').nth(4) == Some(want.to_str().unwrap()))
}

/// Start `pagelab mount` (8 MiB) and wait (bounded) until the mount is there.
/// A running `pagelab mount`. Dropped while it still runs (a failed assertion before [`finish`]), it
/// stops the daemon with SIGTERM, which unmounts, so a failing test leaves no daemon serving a mount.
struct Daemon(Option<Child>);

impl Daemon {
    fn id(&self) -> u32 {
        self.0.as_ref().expect("a running daemon").id()
    }

    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("a running daemon")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let Some(mut child) = self.0.take() else { return };
        if !matches!(child.try_wait(), Ok(None)) {
            return; // exited (and reaped: its pid may be another process's now)
        }
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn start(src: &Path, mnt: &Path, extra: &[&str]) -> Daemon {
    start_with_memory(src, mnt, "8MiB", extra)
}

fn start_with_memory(src: &Path, mnt: &Path, memory: &str, extra: &[&str]) -> Daemon {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pagelab"))
        .args(["mount", src.to_str().unwrap(), mnt.to_str().unwrap(), "--memory", memory])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !mounted(mnt) {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            panic!("pagelab mount exited with {} before mounting: {}", out.status, stderr(&out));
        }
        if Instant::now() > deadline {
            drop(Daemon(Some(child)));
            panic!("not mounted after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Daemon(Some(child))
}

/// Wait (bounded) for the daemon to exit; its output.
fn finish(mut daemon: Daemon) -> Output {
    let mut child = daemon.0.take().expect("a running daemon");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("pagelab mount did not exit 20 s after being told to stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn source() -> (tempfile::TempDir, Vec<u8>) {
    let src = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    std::fs::write(src.path().join("clip"), &data).unwrap();
    (src, data)
}

#[test]
fn the_daemon_serves_the_source_and_stops_cleanly_on_sigterm() {
    if !fuse_available() {
        return;
    }
    let (src, data) = source();
    let mnt = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let args = [
        "--prefetch-cache",
        "pc-coldest+",
        "--emulate-device",
        "ssd",
        "--scheduler",
        "deadline",
        "--nr-requests",
        "32",
        "--stats",
        &addr,
    ];
    let daemon = start(src.path(), mnt.path(), &args);
    assert_eq!(std::fs::read(mnt.path().join("clip")).unwrap(), data);
    // The Prometheus endpoint serves the same numbers.
    let mut conn = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(&mut conn, b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut conn, &mut text).unwrap();
    assert!(text.starts_with("HTTP/1.0 200"), "{text}");
    assert!(text.contains(&format!("pagelab_read_bytes_total {}", data.len())), "{text}");
    let stats = pagelab(&["stats", mnt.path().to_str().unwrap(), "--json"]);
    assert!(stats.status.success(), "{}", stderr(&stats));
    let json: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(json["read_bytes"].as_u64(), Some(data.len() as u64));
    assert_eq!(json["prefetch_cache"].as_str().map(|s| s.starts_with("pc-coldest+")), Some(true));
    assert!(json["device"]["requests"].as_u64().unwrap() > 0, "every miss went through the emulated device");
    assert_eq!(json["device"]["scheduler"].as_str(), Some("deadline"));
    assert!(json["pages"]["thrashing"].is_u64(), "Li & Shen's thrashing is counted: {json}");
    // MemRx's prediction (on by default): larger memories, each predicted no slower than the one before.
    let whatif = json["whatif"].as_array().expect("a what-if prediction");
    assert!(whatif.len() > 1, "{json}");
    assert_eq!(whatif[0]["memory_bytes"], json["usable_bytes"], "the first point is today's memory");
    let mut last = (0, f64::INFINITY);
    for point in whatif {
        let (memory, runtime) =
            (point["memory_bytes"].as_u64().unwrap(), point["runtime_s"].as_f64().unwrap());
        assert!(memory > last.0 && runtime <= last.1 + 1e-9, "{point} after {last:?}");
        last = (memory, runtime);
    }
    let text = pagelab(&["stats", mnt.path().to_str().unwrap()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("thrashing") && text.contains("what-if       MemRx"), "{text}");
    assert!(
        text.contains("reclaimed") && text.contains("CPU-time samples"),
        "the prefetch cache's work: {text}"
    );
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let out = finish(daemon);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("EMULATED"), "the startup line says the device is emulated");
    assert!(
        stderr(&out).contains("behind the deadline scheduler, 32 requests queued at most"),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("hit ratio"), "final statistics on stdout");
    assert!(!mounted(mnt.path()), "SIGTERM unmounts");
}

#[test]
fn ctrl_c_unmounts_too() {
    if !fuse_available() {
        return;
    }
    let (src, data) = source();
    let mnt = tempfile::tempdir().unwrap();
    let daemon = start(src.path(), mnt.path(), &["--metadata-ratio", "40%", "--attr-ttl", "0"]);
    assert_eq!(std::fs::read(mnt.path().join("clip")).unwrap(), data);
    let stats = pagelab(&["stats", mnt.path().to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(json["metadata"].as_str(), Some("split:p=40%"), "--metadata-ratio is split reclaim at P");
    assert!(json["metadata_work"]["lookups"].as_u64().unwrap() > 0, "{json}");
    unsafe { libc::kill(daemon.id() as i32, libc::SIGINT) };
    let out = finish(daemon);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("signal 2: unmounted"), "{}", stderr(&out));
    assert!(!mounted(mnt.path()), "SIGINT unmounts");
}

#[test]
fn pagelab_umount_stops_the_daemon_and_refuses_what_is_not_a_pagelab_mount() {
    if !fuse_available() {
        return;
    }
    let (src, _) = source();
    let mnt = tempfile::tempdir().unwrap();
    let daemon = start(src.path(), mnt.path(), &[]);
    // A second mount on top is refused, not stacked.
    let again = pagelab(&["mount", src.path().to_str().unwrap(), mnt.path().to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("already a mount point"), "{}", stderr(&again));
    let um = pagelab(&["umount", mnt.path().to_str().unwrap()]);
    assert!(um.status.success(), "{}", stderr(&um));
    let out = finish(daemon);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!mounted(mnt.path()));
    let um = pagelab(&["umount", mnt.path().to_str().unwrap()]);
    assert_eq!(um.status.code(), Some(2));
    assert!(stderr(&um).contains("not a mount point"), "{}", stderr(&um));
    let um = pagelab(&["umount", "/"]);
    assert_eq!(um.status.code(), Some(2));
    assert!(stderr(&um).contains("not pagelab's"), "{}", stderr(&um));
}

#[test]
fn bad_input_is_one_clear_error_with_status_2() {
    let (src, _) = source();
    let mnt = tempfile::tempdir().unwrap();
    let (s, m) = (src.path().to_str().unwrap(), mnt.path().to_str().unwrap());
    // A mountpoint that holds files, or holds the source, would hide them (its help: an empty directory).
    let full = tempfile::tempdir().unwrap();
    std::fs::write(full.path().join("mine.txt"), b"kept").unwrap();
    let inner = full.path().join("src");
    std::fs::create_dir(&inner).unwrap();
    let (f, inner) = (full.path().to_str().unwrap(), inner.to_str().unwrap());
    let cases: [(Vec<&str>, &str); 19] = [
        (vec!["mount", s, m, "--memory", "1000TiB"], "more than this machine's memory"),
        (vec!["mount", "/nonexistent/src", m], "source /nonexistent/src"),
        (vec!["mount", s, "/nonexistent/mnt"], "mountpoint /nonexistent/mnt"),
        (vec!["mount", s, m, "--policy", "nope"], "--policy"),
        (vec!["mount", s, m, "--memory", "lots"], "--memory"),
        (vec!["mount", s, m, "--emulate-device", "floppy"], "--emulate-device"),
        (vec!["mount", s, m, "--scheduler", "noop"], "give --emulate-device"),
        (
            vec!["mount", s, m, "--nr-requests", "8"],
            "--nr-requests: it bounds the emulated device's request queue",
        ),
        (
            vec!["mount", s, m, "--emulate-device", "hdd", "--nr-requests", "0"],
            "--nr-requests: 0: expected at least",
        ),
        (vec!["mount", s, m, "--emulate-device", "hdd", "--scheduler", "elevator"], "--scheduler"),
        (vec!["mount", s, m, "--stats", "10.1.2.3:9187"], "loopback"),
        (vec!["mount", s, m, "--metadata-ratio", "0%"], "--metadata-ratio 0%: expected a whole percentage"),
        (vec!["mount", s, m, "--metadata-ratio", "50%,pressure=1"], "--metadata-ratio 50%,pressure=1"),
        (vec!["mount", s, m, "--metadata-ratio", "50%", "--metadata", "conventional"], "cannot be used with"),
        (vec!["mount", s, f], "not empty: the mount would hide its files"),
        (vec!["mount", inner, f], "contains the source"),
        // A live mount cannot know the future.
        (vec!["mount", s, m, "--policy", "opt"], "OPT needs the future of every reference"),
        (vec!["mount", s, m, "--prefetch-cache", "pc-optimal"], "pc-optimal needs each request's reads"),
        // The list of policies named OPT, which the mount then refused.
        (
            vec!["mount", s, m, "--policy", "bogus"],
            "expected one of: lru, fifo, clock, linux, 2q, arc, lirs, dulo, dulo-linux\n",
        ),
    ];
    for (args, want) in cases {
        if args.contains(&"--stats") && !fuse_available() {
            continue; // the address is checked after the mount's own checks
        }
        let out = pagelab(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
        assert!(!mounted(mnt.path()));
    }
    assert_eq!(std::fs::read(full.path().join("mine.txt")).unwrap(), b"kept");
    let out = pagelab(&["stats", s]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a pagelab mount"), "{}", stderr(&out));
}

#[test]
fn a_mount_whose_daemon_was_killed_is_named_and_removed_by_pagelab_umount() {
    if !fuse_available() {
        return;
    }
    let (src, _) = source();
    let mnt = tempfile::tempdir().unwrap();
    let mut daemon = start(src.path(), mnt.path(), &[]);
    daemon.child().kill().unwrap(); // SIGKILL: no clean unmount
    daemon.child().wait().unwrap();
    assert!(mounted(mnt.path()), "a killed daemon leaves its mount behind");
    let m = mnt.path().to_str().unwrap();
    let again = pagelab(&["mount", src.path().to_str().unwrap(), m]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already a mount point") && stderr(&again).contains("pagelab umount"),
        "{}",
        stderr(&again)
    );
    let stats = pagelab(&["stats", m]);
    assert_eq!(stats.status.code(), Some(2));
    assert!(stderr(&stats).contains("daemon is gone"), "{}", stderr(&stats));
    let um = pagelab(&["umount", m]);
    assert!(um.status.success(), "{}", stderr(&um));
    assert!(!mounted(mnt.path()));
}

/// Every mount under `dir`.
fn mounts_under(dir: &Path) -> Vec<String> {
    let dir = std::fs::canonicalize(dir).unwrap();
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let points = mountinfo.lines().filter_map(|l| l.split(' ').nth(4)).map(str::to_owned);
    points.filter(|p| Path::new(p).starts_with(&dir)).collect()
}

/// `bench --live` stopped by SIGTERM or Ctrl-C while its mounts are up leaves no mount, no dataset and no
/// work directory behind, and ends. Before, the signal ended the process at once: its FUSE mounts stayed,
/// dead (ENOTCONN until someone unmounted them), over a work directory of datasets; and a signal while the
/// benchmark read through its own mount left the process unable to end (the read waited in uninterruptible
/// sleep for daemon threads the exit had killed). The first signal comes as the first mount appears, the
/// second while all three are being read.
#[test]
fn an_interrupted_live_benchmark_unmounts_and_removes_its_work() {
    use std::os::unix::process::ExitStatusExt;
    if !fuse_available() {
        return;
    }
    if !pagelab_fs::mount::running_as_root() {
        // The live benchmarks drop the kernel's caches and run nginx: they refuse to start without root.
        eprintln!("SKIPPED: the live benchmarks need root");
        return;
    }
    // A work directory that is not there is named in the error.
    let out = pagelab(&["bench", "--live", "overhead", "--quick", "--dir", "/nonexistent/work"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/work: No such file"), "{}", stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    for (signal, mounts) in [(libc::SIGTERM, 1), (libc::SIGINT, 3)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pagelab"))
            .args(["bench", "--live", "overhead", "--quick", "--dir", dir.path().to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while mounts_under(dir.path()).len() < mounts {
            assert!(child.try_wait().unwrap().is_none(), "the benchmark ended before mounting");
            assert!(Instant::now() < deadline, "no {mounts} mounts after 60 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        if mounts > 1 {
            std::thread::sleep(Duration::from_millis(200)); // the warm-up reads every target
        }
        // SAFETY: a signal to our own child, not yet waited for.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "signal {signal}: the benchmark did not end within 30 s");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.signal(), Some(signal), "ended by the signal's default action: {status:?}");
        assert_eq!(mounts_under(dir.path()), Vec::<String>::new(), "signal {signal} left mounts");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "signal {signal} left {left:?}");
    }
}

/// An idle mount holds what it uses, not its whole `--memory`: the frames are an anonymous mapping the
/// kernel fills on first touch. A zeroed 4 KiB-aligned allocation was `posix_memalign` and a `memset`, so
/// a 1 GiB mount was about 1 GiB resident before it served a byte.
#[test]
fn an_idle_mount_does_not_hold_its_whole_memory() {
    if !fuse_available() {
        return;
    }
    let (src, data) = source();
    let mnt = tempfile::tempdir().unwrap();
    let daemon = start_with_memory(src.path(), mnt.path(), "1GiB", &[]);
    assert_eq!(std::fs::read(mnt.path().join("clip")).unwrap(), data);
    let status = std::fs::read_to_string(format!("/proc/{}/status", daemon.id())).unwrap();
    let rss_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS");
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let out = finish(daemon);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(rss_kib < 256 << 10, "an idle 1 GiB mount holds {} MiB", rss_kib >> 10);
}
