//! `pagelab`: the command-line front end. Argument parsing, progress, tables, JSON/CSV, plots, reports;
//! all the work is in the library crates.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pagelab", version, about = "Buffer-cache research systems for data-intensive storage servers, \
simulated, measured and compared.", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {}
}
