//! The independent reference: libCacheSim's Python package in a private virtual environment.
//!
//! Differential tests and `pagelab bench` run the same trace through libCacheSim and through pagelab. The
//! venv is created on first use from the package registry (`pip install libcachesim==<pinned>`), in a
//! directory the caller chooses; the driver script and the pin are compiled into this binary so that no
//! file outside the venv is needed.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

const RUNNER: &str = include_str!("../../../tools/libcachesim/lcs_run.py");
const REQUIREMENTS: &str = include_str!("../../../tools/libcachesim/requirements.txt");

#[derive(Debug, Deserialize)]
pub struct LcsPoint {
    pub policy: String,
    pub size: u64,
    pub misses: u64,
    pub seconds: f64,
}

#[derive(Debug, Deserialize)]
pub struct LcsRun {
    pub requests: u64,
    pub results: Vec<LcsPoint>,
}

impl LcsRun {
    pub fn misses(&self, policy: &str, size: u64) -> Option<u64> {
        self.results.iter().find(|p| p.policy == policy && p.size == size).map(|p| p.misses)
    }
}

pub struct LibCacheSim {
    python: PathBuf,
    runner: PathBuf,
}

impl LibCacheSim {
    /// Use (or create) the venv in `venv_dir`. Creation needs `python3` and the package registry.
    pub fn ensure(venv_dir: &Path) -> Result<LibCacheSim> {
        let python = venv_dir.join("bin").join("python");
        let stamp = venv_dir.join("pagelab-requirements.txt");
        let current = std::fs::read_to_string(&stamp).ok();
        if !python.exists() || current.as_deref() != Some(REQUIREMENTS) {
            create_venv(venv_dir)?;
            std::fs::write(&stamp, REQUIREMENTS)?;
        }
        let runner = venv_dir.join("lcs_run.py");
        if std::fs::read_to_string(&runner).ok().as_deref() != Some(RUNNER) {
            std::fs::write(&runner, RUNNER).with_context(|| format!("writing {}", runner.display()))?;
        }
        Ok(LibCacheSim { python, runner })
    }

    /// Run `policies` × `sizes` (objects) on an oracleGeneral trace; `repeat` runs per point, fastest kept.
    pub fn run(
        &self,
        trace: &Path,
        policies: &[&str],
        sizes: &[u64],
        repeat: u32,
        hashpower: u32,
    ) -> Result<LcsRun> {
        let sizes_arg: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        let mut cmd = Command::new(&self.python);
        cmd.arg(&self.runner)
            .arg(trace)
            .arg("--policies")
            .arg(policies.join(","))
            .arg("--sizes")
            .arg(sizes_arg.join(","))
            .arg("--repeat")
            .arg(repeat.to_string())
            .arg("--hashpower")
            .arg(hashpower.to_string());
        let out = crate::interrupt::output_of(&mut cmd).context("running libcachesim")?;
        if !out.status.success() {
            bail!("libcachesim failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
        }
        serde_json::from_slice(&out.stdout).context("parsing libcachesim's output")
    }
}

fn create_venv(dir: &Path) -> Result<()> {
    crate::output::note(&format!(
        "creating a Python venv with libcachesim in {} (one time)...",
        dir.display()
    ));
    let mut cmd = Command::new("python3");
    cmd.arg("-m").arg("venv").arg(dir);
    let out = crate::interrupt::output_of(&mut cmd).context("running python3 -m venv")?;
    if !out.status.success() {
        bail!("python3 -m venv {} failed: {}", dir.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    let req = dir.join("requirements.txt");
    std::fs::write(&req, REQUIREMENTS)?;
    let pip = dir.join("bin").join("pip");
    let mut cmd = Command::new(&pip);
    cmd.args(["install", "--quiet", "--disable-pip-version-check", "-r"]).arg(&req);
    let out = crate::interrupt::output_of(&mut cmd).context("running pip")?;
    if !out.status.success() {
        bail!("pip install libcachesim failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}
