//! `pagelab experiment`: run a built-in experiment's sweep in parallel and write its results, summary,
//! figure and report.

use crate::limits::worker_threads;
use crate::output::{emit, write_atomically, Table};
use crate::panics;
use crate::plot::{write_figure, LineChart, Series};
use crate::progress;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use pagelab_sim::experiment::{self, Chart, Experiment, Findings, Row, Value};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  pagelab experiment --list
  pagelab experiment system-model --quick
  pagelab experiment system-model --out results/system-model --seed 7 --jobs 2

Each run writes, in --out (default out/NAME): results.csv (one row per run: parameters and metrics), summary.json (headline numbers and the claims with verdicts), plot.svg and plot.png, and report.md (what was run, the result, and the claim beside it). Each file replaces the one before only once it is complete. A run that fails (or panics: a bug, please report it) does not stop the others: the error names every failed run, the completed runs' rows go to results.partial.csv, and the files of an earlier complete sweep are left as they were (a later complete sweep leaves that file and says it is stale).")]
pub struct ExperimentArgs {
    /// The experiment to run (see --list).
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
    /// A smaller sweep that finishes in under a minute on 2 cores.
    #[arg(long)]
    pub quick: bool,
    /// Output directory (default out/NAME).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// split-reclaim only: the paper's machine divided by this factor (memory and files; default 64, 256
    /// with --quick; 1 is the paper's full 24 GB and 25.6 million files: about 1.5 hours on 2 cores
    /// and 5.2 GB of memory before the application-memory diagnostic, whose four full-size runs add about
    /// 13 minutes of CPU (P = 60 % 3 minutes, conventional reclaim 4); Table III then at 1/3).
    #[arg(long)]
    pub scale: Option<u64>,
    /// Parallel jobs, 1 to 1024 (default: all cores; never more threads than there are runs).
    #[arg(long)]
    pub jobs: Option<usize>,
}

pub fn run(args: &ExperimentArgs) -> Result<()> {
    if args.list {
        let mut t = Table::new(&["experiment", "what it shows"]);
        for e in experiment::all() {
            t.row(vec![e.name().to_string(), e.title().to_string()]);
        }
        return emit(&t.render());
    }
    let name = args.name.as_deref().expect("clap requires a name without --list");
    let exp = experiment::find(name).ok_or_else(|| {
        let names: Vec<&str> = experiment::all().iter().map(|e| e.name()).collect();
        anyhow!("unknown experiment `{name}`; expected one of: {}", names.join(", "))
    })?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("out").join(exp.name()));
    let jobs = exp.jobs_at_scale(args.quick, args.seed, args.scale).map_err(|e| anyhow!("{e}"))?;
    // Checked before any work or any directory is made.
    let threads = worker_threads(args.jobs, jobs.len())?;
    if out.exists() && !out.is_dir() {
        bail!(
            "--out {}: exists and is not a directory (the experiment writes several files into one)",
            out.display()
        );
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let start = Instant::now();
    let started_at = SystemTime::now();
    let total = jobs.len();
    let (rows, failures) = run_jobs(exp, jobs, threads)?;
    if !failures.is_empty() {
        return Err(keep_completed(&out, &rows, &failures, total));
    }
    let findings = exp.analyze(&rows, args.quick);
    let wall = start.elapsed().as_secs_f64();
    // Each file is written beside its destination and renamed into place only when complete.
    write_atomically(&out.join("results.csv"), &[], |p| write_results_csv(&exp.result_rows(&rows), p))?;
    write_atomically(&out.join("summary.json"), &[], |p| write_summary(exp, args, &findings, p))?;
    let panels: Vec<LineChart> = findings.charts.iter().map(to_line_chart).collect();
    if !panels.is_empty() {
        write_atomically(&out.join("plot.svg"), &[], |p| write_figure(&panels, p))?;
        write_atomically(&out.join("plot.png"), &[], |p| write_figure(&panels, p))?;
    }
    let md = report(exp, args, &findings, rows.len(), wall);
    write_atomically(&out.join("report.md"), &[], |p| Ok(std::fs::write(p, &md)?))?;
    let mut text = checks(exp, &findings, &out, rows.len(), wall, !panels.is_empty());
    if let Some(stale) = stale_partial(&out, started_at) {
        let _ = writeln!(
            text,
            "note      {} is from an earlier sweep that did not complete; this sweep's rows are in results.csv",
            stale.display()
        );
    }
    emit(&text)
}

/// The `results.partial.csv` of an earlier, failed sweep in `out`, if one is there from before `since`: a
/// complete sweep leaves it (the user may be reading it) and says it is stale.
fn stale_partial(out: &Path, since: SystemTime) -> Option<PathBuf> {
    let partial = out.join("results.partial.csv");
    let modified = std::fs::metadata(&partial).and_then(|m| m.modified()).ok()?;
    (modified < since).then_some(partial)
}

/// A run that did not produce its row: its label and why (its error, or the panic that ended it).
#[derive(Debug)]
struct JobFailure {
    label: String,
    why: String,
}

/// Run every job, in parallel: the rows of those that completed, in job order, and the failures. One run's
/// error or panic does not stop the others (a sweep at full scale is twenty minutes of work), and a panic
/// (a bug in pagelab) is caught here and reported as that run's failure instead of ending the process.
fn run_jobs(
    exp: &dyn Experiment,
    jobs: Vec<experiment::Job>,
    threads: usize,
) -> Result<(Vec<Row>, Vec<JobFailure>)> {
    if jobs.is_empty() {
        bail!("experiment {} has no jobs", exp.name());
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let pb = progress::bar(jobs.len() as u64, exp.name());
    let results = panics::quietly(|| {
        pool.install(|| {
            jobs.par_iter()
                .map(|job| {
                    let result = match panics::catch(|| (job.run)()) {
                        Ok(Ok(row)) => Ok(row),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(panic) => Err(format!("pagelab bug, please report it: {panic}")),
                    };
                    pb.inc(1);
                    result.map_err(|why| JobFailure { label: job.label.clone(), why })
                })
                .collect::<Vec<_>>()
        })
    });
    pb.finish_and_clear();
    let (mut rows, mut failures) = (Vec::new(), Vec::new());
    for r in results {
        match r {
            Ok(row) => rows.push(row),
            Err(f) => failures.push(f),
        }
    }
    Ok((rows, failures))
}

/// Some runs failed: the completed runs' rows go to `results.partial.csv` (the complete files of an earlier
/// sweep in `out` stay as they were: a partial sweep has no findings to replace them with), and the error
/// names every failed run.
fn keep_completed(out: &Path, rows: &[Row], failures: &[JobFailure], total: usize) -> anyhow::Error {
    // Every failed run by name, up to a screenful: a sweep whose runs all fail the same way says so once.
    const LISTED_MAX: usize = 12;
    let mut msg = format!("{} of {total} runs failed:", failures.len());
    for f in failures.iter().take(LISTED_MAX) {
        let _ = write!(msg, "\n  {}: {}", f.label, f.why);
    }
    if failures.len() > LISTED_MAX {
        let _ = write!(msg, "\n  … and {} more", failures.len() - LISTED_MAX);
    }
    if rows.is_empty() {
        return anyhow!("{msg}\nno run completed; nothing was written");
    }
    let partial = out.join("results.partial.csv");
    match write_atomically(&partial, &[], |p| write_results_csv(rows, p)) {
        Ok(()) => anyhow!("{msg}\nthe {} completed runs are in {}", rows.len(), partial.display()),
        Err(e) => anyhow!("{msg}\nand the completed runs could not be kept: {e:#}"),
    }
}

fn to_line_chart(c: &Chart) -> LineChart {
    LineChart {
        title: c.title.clone(),
        x_label: c.x_label.clone(),
        y_label: c.y_label.clone(),
        series: c.series.iter().map(|(n, p)| Series { name: n.clone(), points: p.clone() }).collect(),
        log_x: c.log_x,
        y_range: None,
    }
}

/// One row per job; columns are every parameter then every metric seen, in first-seen order.
fn write_results_csv(rows: &[Row], path: &Path) -> Result<()> {
    let mut params: Vec<String> = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    for r in rows {
        for (k, _) in &r.params {
            if !params.contains(k) {
                params.push(k.clone());
            }
        }
        for (k, _) in &r.metrics {
            if !metrics.contains(k) {
                metrics.push(k.clone());
            }
        }
    }
    let mut w = csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    w.write_record(params.iter().chain(metrics.iter()))?;
    for r in rows {
        let cells = params.iter().map(|k| r.param(k).map(Value::to_string).unwrap_or_default()).chain(
            metrics.iter().map(|k| {
                r.metrics.iter().find(|(m, _)| m == k).map(|(_, v)| v.to_string()).unwrap_or_default()
            }),
        );
        w.write_record(cells)?;
    }
    w.flush()?;
    Ok(())
}

fn write_summary(exp: &dyn Experiment, args: &ExperimentArgs, f: &Findings, path: &Path) -> Result<()> {
    let summary: serde_json::Map<String, serde_json::Value> =
        f.summary.iter().map(|(k, v)| (k.clone(), json_number(*v))).collect();
    let checks: Vec<serde_json::Value> = f
        .checks
        .iter()
        .map(|c| {
            serde_json::json!({
                "claim": c.claim, "source": c.source, "measured": c.measured, "verdict": c.verdict.to_string()
            })
        })
        .collect();
    let doc = serde_json::json!({
        "experiment": exp.name(),
        "title": exp.title(),
        "quick": args.quick,
        "seed": args.seed,
        "summary": summary,
        "checks": checks,
    });
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
    Ok(())
}

/// NaN/inf (a missing measurement) as JSON null rather than an invalid number.
fn json_number(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

fn report(exp: &dyn Experiment, args: &ExperimentArgs, f: &Findings, jobs: usize, wall: f64) -> String {
    let mut md = String::new();
    let quick = if args.quick { " --quick" } else { "" };
    let _ = writeln!(md, "# {}: {}\n", exp.name(), exp.title());
    let _ = writeln!(md, "{}\n", exp.description());
    let _ = writeln!(
        md,
        "Command: `pagelab experiment {}{quick} --seed {}` — {jobs} runs in {wall:.1} s of wall time.\n",
        exp.name(),
        args.seed
    );
    if !f.checks.is_empty() {
        let _ = writeln!(md, "## Claims and results\n");
        let _ = writeln!(md, "| claim | source | pagelab measured | verdict |\n|---|---|---|---|");
        for c in &f.checks {
            let _ = writeln!(md, "| {} | {} | {} | **{}** |", c.claim, c.source, c.measured, c.verdict);
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(md, "## Results\n");
    md.push_str(&f.markdown);
    let _ = writeln!(md, "\n![results](plot.png)\n");
    let _ = writeln!(md, "Files: `results.csv` (one row per run), `summary.json`, `plot.svg`, `plot.png`.");
    md
}

/// Column widths of the claims table: with the verdict, 100 columns at most, so that it reads on a
/// terminal (report.md has the full table).
const CLAIM_COLUMNS: usize = 44;
const MEASURED_COLUMNS: usize = 38;

fn checks(exp: &dyn Experiment, f: &Findings, out: &Path, jobs: usize, wall: f64, plotted: bool) -> String {
    let mut text = format!("{}: {} ({jobs} runs, {wall:.1} s)\n", exp.name(), exp.title());
    let mut t =
        Table::new(&["claim", "measured", "verdict"]).wrap(0, CLAIM_COLUMNS).wrap(1, MEASURED_COLUMNS);
    for c in &f.checks {
        t.row(vec![c.claim.clone(), c.measured.clone(), c.verdict.to_string()]);
    }
    text += &t.render();
    text += &format!("\nresults   {}\n", out.join("results.csv").display());
    text += &format!("summary   {}\n", out.join("summary.json").display());
    text += &format!("report    {}\n", out.join("report.md").display());
    if plotted {
        text += &format!("plot      {} (and plot.svg)\n", out.join("plot.png").display());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagelab_sim::error::SimError;
    use pagelab_sim::experiment::Job;

    /// An experiment whose sweep is given by the test.
    struct Sweep;

    impl Experiment for Sweep {
        fn name(&self) -> &'static str {
            "sweep"
        }
        fn title(&self) -> &'static str {
            "a test sweep"
        }
        fn description(&self) -> &'static str {
            "jobs that complete, fail and panic"
        }
        fn jobs(&self, _: bool, _: u64) -> Vec<Job> {
            Vec::new()
        }
        fn analyze(&self, _: &[Row], _: bool) -> Findings {
            unreachable!("a sweep with failures is not analysed")
        }
    }

    fn row(n: f64) -> Row {
        Row {
            params: vec![("n".into(), Value::Num(n))],
            metrics: vec![("m".into(), 2.0 * n)],
            series: vec![],
        }
    }

    /// One run's error and another's panic leave the other runs' rows, in job order; the panic is its run's
    /// failure, with its message and where it happened.
    #[test]
    fn a_failing_or_panicking_run_does_not_lose_the_others() {
        let jobs = vec![
            Job::new("first", || Ok(row(1.0))),
            Job::new("bad input", || Err(SimError::Config("no CPU".into()))),
            Job::new("bug", || -> Result<Row, SimError> { panic!("page conservation broken") }),
            Job::new("last", || Ok(row(4.0))),
        ];
        let (rows, failures) = run_jobs(&Sweep, jobs, 2).expect("the sweep runs");
        assert_eq!(rows.iter().map(|r| r.num("n")).collect::<Vec<_>>(), [1.0, 4.0]);
        assert_eq!(failures.len(), 2);
        assert_eq!((failures[0].label.as_str(), failures[0].why.as_str()), ("bad input", "no CPU"));
        assert_eq!(failures[1].label, "bug");
        assert!(failures[1].why.contains("page conservation broken"), "{}", failures[1].why);
        assert!(failures[1].why.contains("pagelab bug"), "{}", failures[1].why);
        assert!(failures[1].why.contains("experiment.rs"), "the panic's location: {}", failures[1].why);

        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("results.csv"), "an earlier complete sweep\n").expect("write");
        let err = keep_completed(dir.path(), &rows, &failures, 4).to_string();
        assert!(err.starts_with("2 of 4 runs failed:\n  bad input: no CPU\n  bug: "), "{err}");
        assert!(err.contains("the 2 completed runs are in"), "{err}");
        let partial = std::fs::read_to_string(dir.path().join("results.partial.csv")).expect("partial");
        assert_eq!(partial, "n,m\n1,2\n4,8\n");
        let earlier = std::fs::read_to_string(dir.path().join("results.csv")).expect("kept");
        assert_eq!(earlier, "an earlier complete sweep\n", "a partial sweep replaces nothing");

        let later = SystemTime::now() + std::time::Duration::from_secs(1);
        assert_eq!(stale_partial(dir.path(), later), Some(dir.path().join("results.partial.csv")));
        assert_eq!(stale_partial(dir.path(), SystemTime::UNIX_EPOCH), None, "written by this sweep");
        assert_eq!(stale_partial(&dir.path().join("elsewhere"), later), None);

        let none = keep_completed(dir.path(), &[], &failures, 2).to_string();
        assert!(none.ends_with("no run completed; nothing was written"), "{none}");

        let many: Vec<JobFailure> =
            (0..30).map(|i| JobFailure { label: format!("run {i}"), why: "files=0".into() }).collect();
        let text = keep_completed(dir.path(), &[], &many, 30).to_string();
        assert_eq!(text.lines().count(), 1 + 12 + 1 + 1, "{text}");
        assert!(text.contains("run 11: files=0\n  … and 18 more"), "{text}");
    }
}
