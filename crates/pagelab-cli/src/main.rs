//! `pagelab`: parse the command line, dispatch, and turn errors into one clear message and exit status 2.
//!
//! Exit status: 0 on success, and when stdout is a pipe whose reader has gone (`pagelab ... | head`: the
//! output is cut short on purpose, so the command ends quietly as Unix tools do); 1 when a run completed
//! but its verdict is a failure (a `pagelab bench` target missed); 2 for bad input of any kind.
//!
//! A closed standard stream (`>&-`) is /dev/null: Rust's runtime opens it there before `main`, so no file
//! this command opens becomes descriptor 1 and receives the results. Ended by SIGINT, SIGTERM or SIGHUP, a
//! command first undoes what it leaves half done ([`interrupt`]: temporary files, a benchmark's mounts),
//! then ends as the signal's default action ends it (a shell sees 130 for Ctrl-C); `pagelab mount` handles
//! these signals itself (a clean unmount).

use anyhow::Context;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use pagelab_cli::output::{is_broken_pipe, note, Failed};
use pagelab_cli::{bench, cachesim, experiment, interrupt, live, mrc, simulate, trace_cmd, whatif};
use std::process::ExitCode;

/// Large blocks get transparent huge pages (the simulator's per-page arrays: [`pagelab_cli::huge_pages`]).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: pagelab_cli::huge_pages::HugePageAlloc = pagelab_cli::huge_pages::HugePageAlloc;

#[derive(Parser)]
#[command(
    name = "pagelab",
    version,
    about = "Buffer-cache research systems for data-intensive storage servers: simulated, measured, compared.",
    long_about = "pagelab reimplements five research buffer-cache systems (prefetch memory management, DULO, \
rate-aware prefetching, MemRx what-if prediction, split metadata reclaim) in one engine, and gives you the \
instruments to evaluate them: a discrete-event simulator of the whole server, paper experiments, miss-ratio \
curves and a fast trace-driven cache simulator.",
    after_help = "Start here:\n  pagelab experiment system-model --quick     validate the server model, plot included\n  \
pagelab cachesim --help                      compare replacement policies on a trace"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The committed speed/memory benchmark: ratios against libCacheSim, PASS/FAIL per target.
    Bench(bench::BenchArgs),
    /// Trace-driven cache simulation: many policies × many sizes, hit/miss only, in parallel.
    Cachesim(cachesim::CachesimArgs),
    /// Reproduce an experiment (a sweep of simulations): results.csv, summary.json, plot, report.md.
    Experiment(experiment::ExperimentArgs),
    /// LRU miss-ratio curve of a trace, exact or sampled (SHARDS), in one pass.
    Mrc(mrc::MrcArgs),
    /// Serve a directory through pagelab's buffer cache as a read-only FUSE file system, so a real,
    /// unmodified server runs on any policy (runs in the foreground until Ctrl-C or `pagelab umount`).
    Mount(Box<live::MountArgs>),
    /// Statistics of a live mount: hit ratio, prefetch thrashing, memory by section, MemRx's what-if.
    Stats(live::StatsArgs),
    /// Unmount a live mount (its `pagelab mount` exits cleanly).
    Umount(live::UmountArgs),
    /// Run a workload through the simulated server (handlers, CPU, cache, prefetcher, scheduler, disk).
    Simulate(Box<simulate::SimulateArgs>),
    /// Inspect or convert traces.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCommand),
    /// MemRx what-if: predicted runtime and miss ratio at larger memory sizes from one run; --validate reruns.
    Whatif(Box<whatif::WhatIfArgs>),
}

fn main() -> ExitCode {
    let mut command = Cli::command();
    let matches = match command.try_get_matches_from_mut(std::env::args_os()) {
        Ok(matches) => matches,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            // clap's own exit ignores a failed write: help sent to a full disk would say success. Its write
            // goes through the commands' exit rule instead (a closed pipe is still success).
            let written = e.print().context("writing the help to stdout");
            return exit_code(written);
        }
        Err(e) => e.exit(),
    };
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // A run's mode may ignore some flags (a trace replay has its own handlers); it refuses them only when
    // the user gave them, so it needs to know which were given.
    let given = matches
        .subcommand()
        .and_then(|(name, sub)| Some(given_flags(command.find_subcommand(name)?, sub)))
        .unwrap_or_default();
    match &mut cli.command {
        Command::Simulate(a) => a.given = given,
        Command::Whatif(a) => a.sim.given = given,
        _ => {}
    }
    if !matches!(cli.command, Command::Mount(_)) {
        interrupt::install(); // `pagelab mount` waits for the signals itself, for a clean unmount
    }
    exit_code(match &cli.command {
        Command::Bench(a) => bench::run(a),
        Command::Cachesim(a) => cachesim::run(a),
        Command::Experiment(a) => experiment::run(a),
        Command::Mrc(a) => mrc::run(a),
        Command::Mount(a) => live::run_mount(a),
        Command::Stats(a) => live::run_stats(a),
        Command::Umount(a) => live::run_umount(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Trace(t) => trace_cmd::run(t),
        Command::Whatif(a) => whatif::run(a),
    })
}

/// The options of `command` given on its command line (not defaulted), spelled as typed
/// (`--memory-model`). Argument groups (a flattened struct's) are no options and are left out.
fn given_flags(command: &clap::Command, matches: &ArgMatches) -> Vec<String> {
    command
        .get_arguments()
        .filter(|arg| matches.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine))
        .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
        .collect()
}

/// The exit status of a command's result (module doc), its error reported on stderr.
fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.is::<Failed>() => {
            note(&format!("{e}"));
            ExitCode::from(1)
        }
        Err(e) => {
            note(&format!("error: {e:#}"));
            ExitCode::from(2)
        }
    }
}
