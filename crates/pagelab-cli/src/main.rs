//! `pagelab`: parse the command line, dispatch, and turn errors into one clear message and exit status 2.

use clap::{Parser, Subcommand};
use pagelab_cli::{cachesim, mrc, trace_cmd};
use std::process::ExitCode;

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
    /// Trace-driven cache simulation: many policies × many sizes, hit/miss only, in parallel.
    Cachesim(cachesim::CachesimArgs),
    /// LRU miss-ratio curve of a trace, exact or sampled (SHARDS), in one pass.
    Mrc(mrc::MrcArgs),
    /// Inspect or convert traces.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Cachesim(a) => cachesim::run(a),
        Command::Mrc(a) => mrc::run(a),
        Command::Trace(t) => trace_cmd::run(t),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
