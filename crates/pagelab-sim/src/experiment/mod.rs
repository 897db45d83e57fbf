//! Experiments: a paper's (or the model's) headline result as a sweep of independent jobs — mostly
//! `simulate` runs, sometimes direct device measurements — and the analysis that sets the measured result
//! beside the claim.
//!
//! The sim crate defines what to run and what it means; the CLI runs the jobs in parallel, writes
//! `results.csv` (one row per job: parameters and metrics), `summary.json`, the figure (SVG and PNG) and
//! `report.md`. Jobs are pure functions of their parameters and the seed, so a sweep's results do not
//! depend on how many threads ran it.

pub mod dulo;
pub mod kernel_baseline;
pub mod memrx;
pub mod prefetch_memory;
pub mod scm_prefetch;
pub mod split_reclaim;
pub mod system_model;
pub mod vm_sequential;

use crate::error::SimError;
use std::fmt;

/// A parameter or metric value in a result row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Text(String),
    Num(f64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Text(s) => f.write_str(s),
            Value::Num(x) => write!(f, "{x}"),
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Num(x)
    }
}
impl From<u64> for Value {
    fn from(x: u64) -> Value {
        Value::Num(x as f64)
    }
}

/// One job's parameters and measured metrics, in column order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub params: Vec<(String, Value)>,
    pub metrics: Vec<(String, f64)>,
    /// Curves the job measured over time (a gauge's samples: `(seconds, value)`), for the experiment's
    /// charts; not written to `results.csv`, which has one row of numbers per job.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

impl Row {
    pub fn param(&self, key: &str) -> Option<&Value> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn text(&self, key: &str) -> &str {
        match self.param(key) {
            Some(Value::Text(s)) => s,
            _ => "",
        }
    }
    pub fn num(&self, key: &str) -> f64 {
        match self.param(key) {
            Some(Value::Num(x)) => *x,
            _ => self.metric(key),
        }
    }
    pub fn metric(&self, key: &str) -> f64 {
        self.metrics.iter().find(|(k, _)| k == key).map_or(f64::NAN, |(_, v)| *v)
    }
}

/// A unit of work: a label for progress and errors, and the closure that measures it.
pub struct Job {
    pub label: String,
    pub run: Box<dyn Fn() -> Result<Row, SimError> + Send + Sync>,
}

impl Job {
    pub fn new(
        label: impl Into<String>,
        run: impl Fn() -> Result<Row, SimError> + Send + Sync + 'static,
    ) -> Job {
        Job { label: label.into(), run: Box::new(run) }
    }
}

/// One panel of the figure: lines over a shared x axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// How a measured result compares with the claim it is set beside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The result agrees within the stated tolerance.
    Reproduced,
    /// The direction agrees but the size does not (or only partly).
    Partial,
    /// The result disagrees.
    NotReproduced,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Partial => "partly reproduced",
            Verdict::NotReproduced => "not reproduced",
        })
    }
}

/// A claim, what pagelab measured, and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub claim: String,
    pub source: String,
    pub measured: String,
    pub verdict: Verdict,
}

/// What an experiment concluded from its rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Findings {
    /// Headline numbers for `summary.json`.
    pub summary: Vec<(String, f64)>,
    pub charts: Vec<Chart>,
    pub checks: Vec<Check>,
    /// The report's body in Markdown: what was run and what it shows (the CLI adds the header, the
    /// claims table and the file list).
    pub markdown: String,
}

pub trait Experiment: Sync {
    /// The name users type (`system-model`).
    fn name(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// One paragraph: what is run and why.
    fn description(&self) -> &'static str;
    /// The sweep. `quick` must finish in well under a minute on 2 cores.
    fn jobs(&self, quick: bool, seed: u64) -> Vec<Job>;
    /// The sweep at a scale factor the user chose (`--scale`; papers/004's machine divided by it). `None`:
    /// [`Experiment::jobs`]. Experiments without a scaled model refuse a scale.
    fn jobs_at_scale(&self, quick: bool, seed: u64, scale: Option<u64>) -> Result<Vec<Job>, SimError> {
        match scale {
            None => Ok(self.jobs(quick, seed)),
            Some(_) => Err(SimError::invalid(
                "--scale",
                format!("experiment {} has no scale to set (only split-reclaim has)", self.name()),
            )),
        }
    }
    /// Conclusions from the rows, in the order `jobs` returned them.
    fn analyze(&self, rows: &[Row], quick: bool) -> Findings;
    /// The rows of `results.csv`: one per job unless an experiment's jobs are parts of a larger unit (MemRx's
    /// base run and its reruns make one row per predicted size).
    fn result_rows(&self, rows: &[Row]) -> Vec<Row> {
        rows.to_vec()
    }
}

/// Every built-in experiment.
pub fn all() -> Vec<&'static dyn Experiment> {
    vec![
        &system_model::SystemModel,
        &vm_sequential::VmSequential,
        &kernel_baseline::KernelBaseline,
        &prefetch_memory::PrefetchMemory,
        &memrx::MemRxExperiment,
        &scm_prefetch::ScmPrefetch,
        &dulo::DuloExperiment,
        &split_reclaim::SplitReclaim,
    ]
}

/// `fraction` as a signed percentage with `decimals` places ("+4.2 %", "-0.7 %"). A value that rounds to
/// zero prints as "0.0 %": a change too small to show has no direction, and "-0.0 %" (what the float's sign
/// alone gives for a run identical to its baseline) reads as a loss.
pub fn signed_pct(fraction: f64, decimals: usize) -> String {
    let text = format!("{:+.decimals$}", 100.0 * fraction);
    if text.len() > 1 && text[1..].bytes().all(|b| b == b'0' || b == b'.') {
        format!("{:.decimals$} %", 0.0)
    } else {
        format!("{text} %")
    }
}

/// The least and the greatest of the finite `values` (a report's "from … to …"), `None` if there is none.
pub fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().filter(|x| x.is_finite()).fold(None, |range, x| match range {
        None => Some((x, x)),
        Some((lo, hi)) => Some((f64::min(lo, x), f64::max(hi, x))),
    })
}

/// The `n` seeds of a sweep that starts at `first`: `first`, `first + 1`, ..., wrapping past `u64::MAX`, so
/// that every `--seed` gets all its seeds (`first..first + n` overflowed at the top, and a sweep then ran
/// with none or fewer, and said nothing).
pub fn seeds(first: u64, n: u64) -> impl Iterator<Item = u64> {
    (0..n).map(move |i| first.wrapping_add(i))
}

pub fn find(name: &str) -> Option<&'static dyn Experiment> {
    all().into_iter().find(|e| e.name() == name)
}

#[cfg(test)]
mod format_tests {
    use super::signed_pct;

    #[test]
    fn a_change_that_rounds_to_nothing_has_no_sign() {
        assert_eq!(signed_pct(0.042, 1), "+4.2 %");
        assert_eq!(signed_pct(-0.007, 1), "-0.7 %");
        assert_eq!(signed_pct(-0.0, 1), "0.0 %");
        assert_eq!(signed_pct(-0.0004, 1), "0.0 %");
        assert_eq!(signed_pct(0.0004, 0), "0 %");
        assert_eq!(signed_pct(-0.004, 0), "0 %");
        assert_eq!(signed_pct(-0.006, 0), "-1 %");
        assert_eq!(signed_pct(f64::NAN, 1), "NaN %");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--seed 18446744073709551615` ran prefetch-memory's quick sweep as 3 runs of 29, and left
    /// scm-prefetch with no job at all.
    #[test]
    fn every_seed_gets_its_whole_sweep() {
        assert_eq!(seeds(5, 3).collect::<Vec<_>>(), [5, 6, 7]);
        assert_eq!(seeds(u64::MAX - 1, 3).collect::<Vec<_>>(), [u64::MAX - 1, u64::MAX, 0]);
        assert_eq!(seeds(u64::MAX, 1).count(), 1);
    }
}
