//! The `pagelab` binary as users meet it: exit status 2 and a clear message on bad input, byte-identical
//! JSON for the same seed, the documented JSON fields.

mod common;

use common::trace_path;
use std::process::{Command, Output};

fn pagelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagelab")).args(args).output().expect("run pagelab")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_bad_trace_line_names_file_line_text_and_form() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.trace");
    std::fs::write(&path, "1\n2\nthree\n4\n").unwrap();
    let o = pagelab(&["cachesim", "--trace", path.to_str().unwrap(), "--format", "lirs", "--size", "10"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("bad.trace:3") && e.contains("`three`") && e.contains("expected"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn bad_arguments_exit_2_with_the_expected_form() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "cachesim",
                "--trace",
                "synth:zipf?objects=100&requests=100",
                "--size",
                "10",
                "--policy",
                "lfu",
            ],
            "--policy: unknown replacement policy `lfu`",
        ),
        (
            &["cachesim", "--trace", "synth:zipf?objects=100&requests=100", "--size", "12parsecs"],
            "--size: invalid cache size: `12parsecs`: expected pages (1000), bytes (64MiB) or a percentage (5%)",
        ),
        (
            &["cachesim", "--trace", "synth:zipf?objects=100&requests=100", "--size", "99999999999TiB"],
            "--size: invalid cache size: `99999999999TiB`: out of range",
        ),
        (&["cachesim", "--trace", "/nonexistent/trace.lis", "--size", "10"], "/nonexistent/trace.lis"),
        // A missing file was "cannot be read twice (standard input or a pipe)".
        (
            &["cachesim", "--trace", "/nonexistent/trace.lis", "--size", "10", "--stream"],
            "/nonexistent/trace.lis: No such file or directory",
        ),
        (
            &["cachesim", "--trace", "synth:zipf?objects=100&requests=100", "--size", "18446744073709551615"],
            "18446744073709551615 pages of 4096 bytes is more than 2^64 bytes",
        ),
        (&["simulate", "--device", "simple:1e-300MB/s"], "must be a media rate from 0.001 to 1000000 MB/s"),
        (&["simulate", "--memory", "1 potato"], "--memory"),
        (&["simulate", "--workload", "five-rand"], "unknown workload `five-rand`"),
        (&["simulate", "--policy", "lfu"], "expected one of: lru, fifo, clock, linux, 2q, arc, lirs, dulo, dulo-linux\n"),
        (&["simulate", "--policy", "opt"], "OPT needs the future of every reference"),
        (&["simulate", "--prefetch", "tp:48-24"], "trigger distance"),
        (&["simulate", "--duration", "10"], "missing unit"),
        (&["experiment", "no-such-experiment"], "unknown experiment"),
        (&["simulate", "--metadata", "split"], "--metadata: split: split reclaim needs its metadata cache ratio"),
        (&["simulate", "--metadata", "split:p=150%"], "ratio P must be 1..=100 %"),
        (&["simulate", "--metadata", "lru"], "--metadata: lru: expected none, conventional or split:p=PERCENT"),
        (&["simulate", "--metadata", "conventional:first_put=maybe"], "expected referenced or unreferenced"),
        (&["simulate", "--metadata", "conventional:prune_count=all"], "expected freed or examined"),
        (&["simulate", "--metadata", "split:p=50%,inode_lru=shared"], "expected own or joint"),
        (&["experiment", "dulo", "--scale", "4"], "--scale: experiment dulo has no scale to set"),
        (&["experiment", "split-reclaim", "--scale", "100000000"], "the largest scale that fits is 3917"),
        (&["whatif", "--memory", "0"], "bad --memory `0`: at least one 4 KiB page"),
        (&["simulate", "--memory", "0", "--whatif", "up-to=1GiB"], "bad --memory `0`: at least one 4 KiB page"),
        (&["mrc", "--trace", "synth:zipf?objects=100&requests=100", "--sample-rate", "2"], "(0, 1]"),
        // A length key of another kind of length was "unknown" in a message that listed it as accepted.
        (&["simulate", "--workload", "random:length_max=0"], "length_max: applies with length=uniform only"),
        // A plot that cannot be written is refused before the run it plots (its result was lost at the end).
        (&["mrc", "--trace", "synth:zipf?objects=100&requests=100", "--plot", "m.pdf"], "--plot m.pdf: expected a .svg"),
        (&["whatif", "--workload", "fs-random", "--plot", "/nonexistent/w.svg"], "the directory /nonexistent does not"),
        // A user's float is echoed briefly (these were written out in 300 digits).
        (
            &["mrc", "--trace", "synth:zipf?objects=100&requests=100", "--sample-rate", "1e-300"],
            "sampling rate 1e-300 is below 2^-64",
        ),
        (&["simulate", "--arrival-rate=-1e300"], "bad --arrival-rate -1e300: expected a positive number"),
        (&["simulate", "--workload", "media-clips:zipf=-1e300"], "zipf=-1e300: expected a finite exponent >= 0"),
        (&["simulate", "--workload", "cpu-sim:cold=1e300"], "cold=1e300: expected 0 to 1"),
        (&["simulate", "--workload", "nfs-mix:rate=-1e300"], "rate=-1e300: expected a positive rate"),
        (&["simulate", "--workload", "glimpse-like:scale=1e-300"], "scale=1e-300: expected a number from"),
        (&["simulate", "--workload", "write:read_fraction=1e300"], "read_fraction=1e300: expected 0 to 1"),
        (
            &["experiment", "memrx", "--quick", "--out", concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")],
            "Cargo.toml: exists and is not a directory",
        ),
        (
            &["simulate", "--workload", "one-rand:files=1", "--cpu-per-page", "0us", "--warmup", "0s"],
            "give --cpu-per-page a positive time",
        ),
        (&["simulate", "--memory", "64MiB", "--app-memory", "65MiB"], "is more than the server's memory"),
        (&["simulate", "--app-memory", "101%"], "a share of --memory from 0% to 100%"),
        (&["simulate", "--memory", "64MiB", "--app-memory", "63MiB"], "pages processes hold"),
    ];
    for (args, needle) in cases {
        let o = pagelab(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: expected `{needle}` in: {}", stderr(&o));
    }
}

/// A flag the run's mode would ignore is refused when the user gives it: each of these ran and reported a
/// result that the flag had not changed (a trace replay at `--concurrency 50` ran the trace's one stream).
#[test]
fn a_flag_the_mode_ignores_is_refused_when_given() {
    let trace = "synth:zipf?objects=100&requests=100";
    let quick = ["whatif", "--trace", trace, "--memory", "64KiB", "--up-to", "128KiB", "--step", "32KiB"];
    let with = |base: &[&'static str], more: &[&'static str]| [base, more].concat();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["simulate", "--trace", trace, "--concurrency", "50"],
            "--concurrency is not used by `replay:trace=synth:",
        ),
        (
            vec!["simulate", "--trace", trace, "--placement", "random", "--extent-size", "1MiB"],
            "--placement, --extent-size are not used by",
        ),
        (
            vec!["simulate", "--workload", "fs-seq-mt:threads=8", "--concurrency", "50"],
            "the workload runs its own 8 handlers",
        ),
        (vec!["simulate", "--workload", "one-rand", "--metadata", "conventional"], "calls no stat()"),
        (with(&quick, &["--policy", "lru", "--validate"]), "--policy, --validate are not used by --trace"),
        (with(&quick, &["--memory-model", "exact"]), "add --replay to simulate the replay"),
        (with(&quick, &["--concurrency", "4", "--metadata", "split:p=50%"]), "--metadata, --concurrency are"),
        // The hint to fold was added to every refusal of a trace replay, this one included.
        (vec!["simulate", "--trace", trace, "--arrival-rate", "100"], "it takes no arrival rate"),
    ];
    for (args, needle) in &cases {
        let o = pagelab(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: expected `{needle}` in: {}", stderr(&o));
        assert!(!stderr(&o).contains("--fold"), "{args:?}: {}", stderr(&o));
    }
    // What the mode reads, and a count equal to the workload's own, are accepted.
    let accepted: Vec<Vec<&str>> = vec![
        with(&quick, &["--seed", "3", "--device", "ssd", "--skip-bad-lines", "--json"]),
        vec!["simulate", "--trace", trace, "--concurrency", "1", "--memory", "16MiB", "--json"],
    ];
    for args in &accepted {
        let o = pagelab(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
}

/// An output whose directory does not exist is named as the user gave it (it used to be the temporary
/// file beside it: "… at path "/x/no-such-dir/.tmp-Ab12Cd-x.csv"").
#[test]
fn a_missing_output_directory_names_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    let trace = "synth:zipf?objects=100&requests=100";
    for name in ["x.csv", "x.bin.zst", "x.svg"] {
        let out = missing.join(name);
        let out = out.to_str().unwrap();
        let args: Vec<&str> = match name {
            "x.csv" => vec!["trace", "convert", trace, "--to", "csv", out],
            "x.bin.zst" => vec!["trace", "convert", trace, "--to", "oracle-general", out],
            _ => vec!["mrc", "--trace", trace, "--plot", out],
        };
        let o = pagelab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let want = format!("{out}: the directory {} does not exist", missing.display());
        assert!(stderr(&o).contains(&want) && !stderr(&o).contains(".tmp-"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn simulate_json_is_byte_identical_for_a_seed_and_has_the_documented_fields() {
    let args = [
        "simulate",
        "--workload",
        "two-rand:files=500",
        "--concurrency",
        "20",
        "--memory",
        "64MiB",
        "--duration",
        "20s",
        "--seed",
        "7",
        "--json",
    ];
    let a = pagelab(&args);
    let b = pagelab(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout, "same command, same seed, different output");
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    for field in ["throughput_mib_s", "requests_completed", "hit_ratio", "sim_seconds"] {
        assert!(v[field].is_number(), "missing {field}");
    }
    for (obj, fields) in [
        ("latency_ms", &["mean", "p50", "p99", "max"][..]),
        ("disk", &["requests", "pages_read", "mean_request_pages", "busy_fraction"][..]),
        ("prefetch", &["pages_prefetched", "evicted_unused", "thrash_pages"][..]),
    ] {
        for f in fields {
            assert!(v[obj][f].is_number(), "missing {obj}.{f}");
        }
    }
    assert!(v["requests_completed"].as_u64().unwrap() > 0);
    let other = pagelab(&[&args[..args.len() - 3], &["--seed", "8", "--json"]].concat());
    assert_ne!(a.stdout, other.stdout, "the seed must matter");
}

/// Li & Shen's workloads run at the paper's scale (6000 files of 4 MiB, 25 GB) on their default device,
/// the Ultrastar 36LZX, and say so; `--device` wins, and a disk too small for the dataset is refused with
/// the device named and the ways out.
#[test]
fn li_shen_workloads_run_at_full_scale_on_the_ultrastar_by_default() {
    let o = pagelab(&["simulate", "--workload", "one-rand", "--duration", "2s"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("workload      one-rand:files=6000,"), "{text}");
    assert!(
        text.contains(
            "device        IBM Ultrastar 36LZX (DDYS-T36950) (the workload's default; --device to change)"
        ),
        "{text}"
    );
    let json = pagelab(&["simulate", "--workload", "four-64kb", "--duration", "2s", "--json"]);
    assert!(json.status.success(), "{}", stderr(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["config"]["device"], "IBM Ultrastar 36LZX (DDYS-T36950)");
    assert!(v["requests_completed"].as_u64().unwrap() > 0);
    // Another workload keeps the shared default; the user's choice wins over the workload's.
    let other = pagelab(&["simulate", "--workload", "random", "--duration", "1s", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&other.stdout).unwrap();
    assert_eq!(v["config"]["device"], "Seagate ST39102LW (Cheetah 9LP)");
    let chosen =
        pagelab(&["simulate", "--workload", "one-rand:files=2000", "--device", "hdd", "--duration", "1s"]);
    let text = String::from_utf8_lossy(&chosen.stdout);
    assert!(text.contains("device        Seagate ST39102LW (Cheetah 9LP)\n"), "{text}{}", stderr(&chosen));
    let refused = pagelab(&["simulate", "--workload", "one-rand", "--device", "hdd", "--duration", "1s"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let e = stderr(&refused);
    assert!(
        e.contains("(Seagate ST39102LW (Cheetah 9LP), 9.1 GB)") && e.contains("--device ultrastar36lzx"),
        "{e}"
    );
    assert!(e.contains("fewer files") && !e.contains("panicked"), "{e}");
}

/// Li & Shen's applications at the paper's scale: their 19.0 and 20.4 GB datasets fit the 2 TB `ssd` (the
/// default 9.1 GB disk cannot hold them), and a short run completes requests.
#[test]
fn paper_applications_parse_and_run_briefly() {
    for (workload, prefix) in [
        ("index-search", "index-search:terms=500000,zipf=1,keywords=web,block=64KiB"),
        ("media-clips:zipf=0.9", "media-clips:files=137432,zipf=0.9,block=64KiB"),
    ] {
        let args = [
            "simulate",
            "--workload",
            workload,
            "--device",
            "ssd",
            "--concurrency",
            "16",
            "--memory",
            "64MiB",
            "--warmup",
            "0s",
            "--duration",
            "2s",
            "--json",
        ];
        let o = pagelab(&args);
        assert!(o.status.success(), "{workload}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["config"]["workload"].as_str().unwrap().starts_with(prefix), "{}", v["config"]);
        assert!(v["requests_completed"].as_u64().unwrap() > 0, "{workload}: no request completed");
    }
    // Their default disk is the Ultrastar 36LZX; on the 9.1 GB Cheetah the dataset does not fit, and the
    // message says so.
    let o = pagelab(&["simulate", "--workload", "index-search", "--device", "hdd", "--duration", "1s"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the dataset needs"), "{}", stderr(&o));
}

#[test]
fn trace_replay_runs_until_the_trace_ends() {
    let o = pagelab(&["simulate", "--trace", &trace_path("lirs/multi1.trace.gz"), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["requests_completed"], 15_858);
    assert_eq!(v["replay"]["requests"], 15_858);
    assert!(v["sim_seconds"].as_f64().unwrap() < 120.0, "the run ends with the trace");
    assert_eq!(v["workload_completed"], true);
}

/// cloudPhysicsIO's writes (59 % of its requests) replayed as writes dirty pages that pdflush and reclaim
/// write back: the disk sees write requests beside the reads, counted apart; skipped, it sees reads only,
/// and fewer requests complete.
#[test]
fn trace_writes_are_replayed_as_writes_by_default() {
    let json = |writes: &str| {
        let trace = trace_path("libcachesim/cloudPhysicsIO.csv");
        let args =
            ["simulate", "--trace", &trace, "--fold", "--memory", "64MiB", "--writes", writes, "--json"];
        let o = pagelab(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let replay = json("replay");
    assert_eq!(replay["replay"]["writes_replayed"], 66_898);
    assert_eq!(replay["requests_completed"], 113_872);
    let disk = &replay["disk"];
    assert!(disk["write_requests"].as_u64().unwrap() > 0 && disk["pages_written"].as_u64().unwrap() > 0);
    assert_eq!(
        disk["requests"].as_u64().unwrap(),
        disk["read_requests"].as_u64().unwrap() + disk["write_requests"].as_u64().unwrap()
    );
    let w = &replay["writes"];
    assert!(w["pages_dirtied"].as_u64().unwrap() > 0);
    assert_eq!(
        disk["pages_written"].as_u64().unwrap(),
        w["written_writeback"].as_u64().unwrap() + w["written_reclaim"].as_u64().unwrap(),
        "every page written was started by writeback or reclaim (no swap here)"
    );
    let skip = json("skip");
    assert_eq!(skip["replay"]["skipped_writes"], 66_898);
    assert_eq!(skip["requests_completed"], 113_872 - 66_898);
    assert_eq!(
        (skip["disk"]["write_requests"].as_u64(), skip["writes"]["pages_dirtied"].as_u64()),
        (Some(0), Some(0))
    );
}

/// Issue 12: "a replay that was cut short says so". 2,000 uniform random one-page reads over 4 GiB
/// without readahead cost a seek each (about 7 ms on the Cheetah 9LP: some 14 s of simulated disk time),
/// so `--duration 1s` stops the replay long before its end; the summary and the JSON say so. multi1 with
/// files runs to its end (0.69 s), and says that too.
#[test]
fn a_trace_replay_cut_short_says_so() {
    let random = "synth:uniform?objects=1000000&requests=2000";
    let short = ["simulate", "--trace", random, "--prefetch", "none", "--duration", "1s"];
    let o = pagelab(&short);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("the whole run (CUT SHORT by --duration or --requests)"), "{text}");
    let o = pagelab(&[&short[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((&v["workload_completed"], &v["config"]["runs_to_completion"]), (&false.into(), &true.into()));
    assert_eq!(v["config"]["duration_s"], 1.0);
    let done = v["requests_completed"].as_u64().unwrap();
    assert!(done > 0 && done < 2_000, "{done} requests in 1 s");
    let multi1 = trace_path("lirs/multi1.trace.gz");
    let o = pagelab(&["simulate", "--trace", &multi1, "--file-size", "64KiB"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("the whole run (ran to completion)"), "{text}");
    assert!(text.contains(",file_size=65536B"), "the workload line names the file size: {text}");
}

/// `--file-size`: whole pages, positive, and large enough that the files fit the file ids; each refusal
/// names the flag and what it expected, with exit status 2.
#[test]
fn bad_file_sizes_exit_2_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    // One request at page 2^23 (32 GiB): 2^23 + 1 pages, one file too many at 4 KiB a file.
    let far = dir.path().join("far.csv");
    std::fs::write(&far, "time_ns,addr,size,op,volume,stream\n0,34359738368,4096,R,0,0\n").unwrap();
    let multi1 = trace_path("lirs/multi1.trace.gz");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--trace", &multi1, "--file-size", "0"],
            "bad --file-size `0`: 0 B is not a positive multiple of the 4096 B page",
        ),
        (
            &["--trace", &multi1, "--file-size", "6KiB"],
            "bad --file-size `6KiB`: 6144 B is not a positive multiple",
        ),
        (&["--trace", &multi1, "--file-size", "big"], "bad --file-size `big`: expected a size like 256KiB"),
        (
            &["--trace", &multi1, "--file-size", "99999999999TiB"],
            "bad --file-size `99999999999TiB`: out of range",
        ),
        (
            &["--trace", far.to_str().unwrap(), "--file-size", "4KiB"],
            "into 8388609 files, more than the 8388608 file ids; the file size must be at least 8192 B",
        ),
        (&["--file-size", "64KiB"], "--trace"),
    ];
    for (args, needle) in cases {
        let o = pagelab(&[&["simulate"][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: expected `{needle}` in: {}", stderr(&o));
        assert!(stderr(&o).contains("--file-size") && !stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}

#[test]
fn experiment_quick_writes_every_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sm");
    let o = pagelab(&["experiment", "system-model", "--quick", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["results.csv", "summary.json", "plot.svg", "plot.png", "report.md"] {
        assert!(out.join(f).metadata().map(|m| m.len() > 100).unwrap_or(false), "{f} missing or empty");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary["checks"].as_array().unwrap().len() >= 4);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("plot.png"), "the plot's path is printed");
    // The claims table fits a terminal: long claims wrap within their column.
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 100, "a line of {widest} columns:\n{text}");
}

/// `--prefetch-cache`: the JSON reports the prefetch cache (its spec, its pages, why they left) and the
/// memory gauges hold its mean size; without it there is no such object; a bad order or share is refused.
#[test]
fn the_prefetch_cache_is_chosen_and_reported() {
    let run = |pc: &str| {
        let args = [
            "simulate",
            "--workload",
            "two-rand:files=200",
            "--concurrency",
            "50",
            "--memory",
            "64MiB",
            "--prefetch",
            "linux-2.6:512KiB",
            "--duration",
            "5s",
            "--prefetch-cache",
            pc,
            "--json",
        ];
        let o = pagelab(&args);
        assert!(o.status.success(), "{pc}: {}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let v = run("pc-coldest+:fixed=10%");
    assert_eq!(v["config"]["prefetch_cache"], "pc-coldest+:fixed=10%");
    let pc = &v["prefetch_cache"];
    assert!(pc["inserted_pages"].as_u64().unwrap() > 0, "{pc}");
    assert_eq!(pc["allocation_bytes_final"], 6_709_248u64, "10 % of 64 MiB, in whole pages");
    assert!(v["memory"]["prefetch_cache_bytes_mean"].as_f64().unwrap() > 0.0);
    let none = run("access-history");
    assert!(none.get("prefetch_cache").is_none(), "{none}");
    assert_eq!(none["memory"]["prefetch_cache_bytes_mean"], 0.0);
    for bad in ["pc-warmest", "pc-coldest:fixed=200%"] {
        let o = pagelab(&["simulate", "--workload", "two-rand:files=20", "--prefetch-cache", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--prefetch-cache"), "{}", stderr(&o));
    }
}

/// Zhang et al.'s streams: `--json` reports every stream (its response time, ESC, fill rate, inventory), the
/// text output prints them as a table, the default device is the Barracuda 7200.11, and `--prefetch ets`
/// round-trips; a bad key is refused with what was expected.
#[test]
fn streams_are_reported_one_by_one() {
    let args = |json: bool| {
        let mut a = vec![
            "simulate",
            "--workload",
            "rate-streams:rates=1000/3000,cv=1/3",
            "--memory",
            "1GiB",
            "--prefetch",
            "ets",
            "--duration",
            "3s",
            "--warmup",
            "1s",
        ];
        if json {
            a.push("--json");
        }
        a
    };
    let o = pagelab(&args(true));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["config"]["prefetch"], "ets:24-48");
    assert!(v["config"]["device"].as_str().unwrap().contains("ST3500320AS"), "{}", v["config"]["device"]);
    let streams = v["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 2);
    assert_eq!(streams[1]["kind"], "sequential 3000 pages/s, cv 3");
    for s in streams {
        assert!(s["requests"].as_u64().unwrap() > 2000, "{s}");
        for key in
            ["response_time_us_mean", "esc", "fill_rate", "prefetch_memory_pages_mean", "throughput_pages_s"]
        {
            assert!(s[key].as_f64().is_some_and(|x| x >= 0.0), "{key}: {s}");
        }
    }
    let o = pagelab(&args(false));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("fill rate") && text.contains("sequential 1000 pages/s, cv 1"), "{text}");

    let o = pagelab(&["simulate", "--workload", "spc2-vod:rates=5", "--duration", "1s"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("unknown parameter"), "{}", stderr(&o));
}

/// A workload with its own processes runs that many handlers whatever `--concurrency` says, and the report
/// says so; DULO's parameters are echoed as a spec that parses back; a bad DULO parameter exits 2.
#[test]
fn the_echo_reports_the_handlers_and_the_policy_that_ran() {
    let o = pagelab(&[
        "simulate",
        "--workload",
        "multi1-like:scale=0.05",
        "--memory",
        "16MiB",
        "--policy",
        "dulo:bank=1MiB,evicting=4MiB",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["config"]["concurrency"], 3, "cscope, gcc and viewperf");
    assert_eq!(json["config"]["policy"], "dulo:bank=1MiB,evicting=4MiB,rule=stable");
    assert!(json["dulo"]["sequencings"].as_u64().unwrap() > 0, "metrics are flattened beside `config`");
    let o = pagelab(&["simulate", "--policy", "dulo:rule=sideways"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("expected stable or adjacent"), "{}", stderr(&o));
}

/// `--app-memory` takes its share out of what the caches may use, in bytes or as a share of `--memory`,
/// leaves the kernel's reserve and the watermarks as they were, and is echoed and reported.
#[test]
fn memory_the_applications_hold_is_no_cache_memory() {
    let run = |held: &str| -> serde_json::Value {
        let o = pagelab(&[
            "simulate",
            "--workload",
            "one-rand:files=20",
            "--memory",
            "64MiB",
            "--app-memory",
            held,
            "--duration",
            "2s",
            "--warmup",
            "0s",
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (none, mib, share) = (run("0"), run("16MiB"), run("25%"));
    let mem = |v: &serde_json::Value, k: &str| v["memory"][k].as_u64().unwrap();
    assert_eq!(mem(&none, "app_memory_bytes"), 0);
    assert_eq!(mem(&mib, "app_memory_bytes"), 16 << 20);
    assert_eq!(mem(&none, "usable_bytes") - mem(&mib, "usable_bytes"), 16 << 20);
    for k in ["kernel_reserve_bytes", "watermark_min_bytes", "watermark_high_bytes"] {
        assert_eq!(mem(&none, k), mem(&mib, k), "{k}");
    }
    assert_eq!(mem(&share, "usable_bytes"), mem(&mib, "usable_bytes"), "25 % of 64 MiB is 16 MiB");
    assert_eq!(share["config"]["app_memory_bytes"].as_u64(), Some(16 << 20));
}
