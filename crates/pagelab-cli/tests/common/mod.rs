//! Shared by the integration tests: where the repository's traces are, and the libCacheSim venv.

#![allow(dead_code)]

use pagelab_cli::libcachesim::LibCacheSim;
use pagelab_cli::traceio::{load_pages, PageTrace, TraceArgs};
use std::path::PathBuf;
use std::sync::OnceLock;

/// `<repo>/data/traces`: the real traces the repository ships (their origins in its README).
pub fn traces_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/traces");
    assert!(dir.is_dir(), "{} is missing: the repository ships its traces there", dir.display());
    dir
}

pub fn trace_path(rel: &str) -> String {
    traces_dir().join(rel).display().to_string()
}

pub fn args(rel: &str, ignore_size: bool) -> TraceArgs {
    TraceArgs::new(&trace_path(rel), "auto", ignore_size)
}

pub fn pages(rel: &str, ignore_size: bool) -> PageTrace {
    load_pages(&args(rel, ignore_size), None).expect("the shipped trace loads")
}

/// The libCacheSim venv, created once per test process (pip from the package registry).
pub fn libcachesim() -> &'static LibCacheSim {
    static LCS: OnceLock<LibCacheSim> = OnceLock::new();
    LCS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("libcachesim-venv");
        LibCacheSim::ensure(&dir).expect("creating the libcachesim venv (needs python3 and PyPI)")
    })
}
