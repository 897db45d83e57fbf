//! `pagelab whatif` and `simulate --whatif` against the built binary: MemRx's predictions checked against
//! real reruns where the theory says they must agree, and the refusals a user meets.

mod common;

use common::trace_path;
use serde_json::Value;
use std::process::{Command, Output};

fn pagelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagelab")).args(args).output().expect("run pagelab")
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The exactness test: with LRU, exact memory, no readahead and one-page requests (multi1), the
/// exact VEC's predicted miss ratio equals the rerun's at every increment, to the last miss.
#[test]
fn with_lru_the_exact_vec_predicts_every_reruns_miss_ratio() {
    let trace = trace_path("lirs/multi1.trace.gz");
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("whatif.png");
    let out = pagelab(&[
        "whatif",
        "--plot",
        plot.to_str().unwrap(),
        "--trace",
        &trace,
        "--replay",
        "--memory-model",
        "exact",
        "--policy",
        "lru",
        "--prefetch",
        "none",
        "--memory",
        "1MiB",
        "--up-to",
        "4MiB",
        "--step",
        "256KiB",
        "--vec",
        "all",
        "--validate",
        "--jobs",
        "2",
        "--json",
    ]);
    let v = json(&out);
    assert_eq!(v["method"], "simulation");
    let actual = v["actual"].as_array().expect("the reruns");
    assert_eq!(actual.len(), 13, "1 MiB to 4 MiB in 256 KiB steps");
    let vecs = v["whatif"]["vecs"].as_array().expect("one prediction per VEC");
    assert_eq!(vecs.len(), 3);
    let exact = vecs.iter().find(|x| x["vec"] == "exact").expect("the exact VEC");
    let sizes = exact["sizes"].as_array().expect("sizes");
    let mut reloads = 0;
    for (s, a) in sizes.iter().zip(actual) {
        assert_eq!(s["memory_bytes"], a["memory_bytes"]);
        assert_eq!(
            s["predicted_miss_ratio"].as_f64(),
            a["miss_ratio"].as_f64(),
            "at {} bytes",
            a["memory_bytes"]
        );
        reloads += s["reloads"].as_u64().unwrap();
    }
    assert!(reloads > 500, "the curve must be tested where it moves: {reloads} reloads");
    assert!(plot.metadata().map(|m| m.len() > 10_000).unwrap_or(false), "the plot was written");
    // The paper's sub-queues never report a reload shallower than it is: never fewer misses than exact.
    let sub = vecs.iter().find(|x| x["vec"] == "subqueue").expect("the sub-queue VEC");
    for (s, e) in sub["sizes"].as_array().unwrap().iter().zip(sizes) {
        assert!(s["predicted_misses"].as_u64() >= e["predicted_misses"].as_u64());
    }
}

#[test]
fn simulate_reports_the_prediction_in_its_json_and_text() {
    let args = [
        "simulate",
        "--workload",
        "vm-seq:size=24MiB,passes=2",
        "--memory",
        "16MiB",
        "--device",
        "hdd",
        "--whatif",
        "up-to=48MiB,step=8MiB",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&pagelab(&with_json));
    let w = &v["whatif"];
    assert_eq!(w["memory_bytes"], 16 << 20);
    assert_eq!(w["step_bytes"], 8 << 20);
    let sizes = w["vecs"][0]["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 5, "16 MiB as run, then 24, 32, 40, 48 MiB");
    let first = sizes[0]["predicted_runtime_s"].as_f64().unwrap();
    assert_eq!(first, v["sim_seconds"].as_f64().unwrap(), "step 0 is the run itself");
    assert!(sizes[4]["predicted_runtime_s"].as_f64().unwrap() < 0.5 * first, "24 MiB fits in 32 MiB");
    let text = pagelab(&args);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("VEC subqueue") && text.contains("optimal operating point"), "{text}");
}

#[test]
fn the_trace_alone_gives_the_exact_curve_and_an_io_time() {
    let trace = trace_path("lirs/multi1.trace.gz");
    let out =
        pagelab(&["whatif", "--trace", &trace, "--memory", "1MiB", "--up-to", "2MiB", "--step", "512KiB"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("the exact LRU miss-ratio curve"), "{text}");
    assert!(text.contains("a miss") && text.contains("optimal operating point"), "{text}");
    let rows = text.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" MiB "));
    assert_eq!(rows.count(), 3, "1, 1.5 and 2 MiB: {text}");
}

#[test]
fn bad_what_if_parameters_are_refused_with_what_was_expected() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["whatif", "--memory", "128MiB", "--up-to", "64MiB"],
            "not one step above the run's memory (128.00 MiB): predict up to 160MiB or more",
        ),
        (
            &["whatif", "--memory", "1MiB", "--up-to", "1GiB", "--step", "1MiB"],
            "1023 steps above the run's memory (1.00 MiB), where a VEC has at most 255: take a step of 5MiB",
        ),
        (
            &["simulate", "--memory", "64MiB", "--whatif", "up-to=100GiB,step=512MiB"],
            "--whatif: up-to 100.00 GiB with steps of 512.00 MiB: 26083328 pages above the run's memory",
        ),
        (&["whatif", "--vec", "lru"], "[possible values: subqueue, exact, shadow, all]"),
        (&["whatif", "--step", "1000"], "expected whole 4 KiB pages"),
        (&["simulate", "--whatif", "upto=1GiB"], "expected up-to, step or vec"),
        (
            &["whatif", "--workload", "one-rand:files=100", "--validate"],
            "--validate needs a job of fixed work",
        ),
    ];
    for (args, expected) in cases {
        let out = pagelab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}
