//! `pagelab trace inspect` and `pagelab trace convert`.

use crate::output::{print_json, Table};
use crate::traceio::{for_each_batch, ReadArgs, TraceArgs};
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use pagelab_core::units::fmt_bytes;
use pagelab_trace::stats::{trace_stats, TraceStats, SIZE_BUCKETS};
use pagelab_trace::write::{
    next_vtimes, write_csv, write_oracle_general, CsvWriter, OracleOptions, OracleRecord, OracleWriter,
    Output,
};
use pagelab_trace::{AddrUnit, Op, Request, NO_NEXT};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Summarize a trace: requests, pages, distinct pages, reads/writes, sequentiality, request sizes.
    Inspect(InspectArgs),
    /// Convert a trace to oracle-general (libCacheSim's binary form) or pagelab CSV.
    #[command(
        after_help = "By default every page becomes one record (id = page key, size = page size), the view \
pagelab's caches simulate, so that libCacheSim run on the output with ignore_obj_size sees the same reference \
string. --requests keeps the trace's requests as they are.

Examples:
  pagelab trace convert data/traces/arc/P3.lis.zst \\
      --to oracle-general P3.pages.oracleGeneral.bin
  pagelab trace convert msr.csv.gz --to csv --requests msr.pagelab.csv.zst"
    )]
    Convert(ConvertArgs),
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Trace file or synth:... spec.
    pub trace: String,
    #[command(flatten)]
    pub read: ReadArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    OracleGeneral,
    Csv,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Trace file or synth:... spec.
    pub trace: String,
    /// Output format.
    #[arg(long)]
    pub to: ConvertTo,
    /// Output file; .gz, .zst or .xz compresses.
    pub out: PathBuf,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Write the trace's requests unchanged instead of one record per page.
    #[arg(long)]
    pub requests: bool,
}

pub fn run(cmd: &TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Inspect(a) => inspect(a),
        TraceCommand::Convert(a) => convert(a),
    }
}

#[derive(Serialize)]
struct InspectReport {
    trace: String,
    requests: u64,
    pages: u64,
    distinct_pages: u64,
    page_size_bytes: u64,
    reads: u64,
    writes: u64,
    others: u64,
    sequential_fraction: f64,
    streams: u64,
    first_time_ns: Option<u64>,
    last_time_ns: Option<u64>,
    skipped_records: u64,
    ignored_records: u64,
    /// `[low_bytes, high_bytes, count]` per non-empty power-of-two bucket.
    size_histogram: Vec<(u64, u64, u64)>,
}

fn inspect(a: &InspectArgs) -> Result<()> {
    let args = a.read.with_trace(&a.trace);
    let mut reader = args.open(None)?;
    let expander = args.expander(reader.as_ref())?;
    let s: TraceStats = trace_stats(reader.as_mut(), expander)?;
    let report = InspectReport {
        trace: reader.describe(),
        requests: s.requests,
        pages: s.pages,
        distinct_pages: s.distinct_pages,
        page_size_bytes: args.page_size_bytes()?,
        reads: s.reads,
        writes: s.writes,
        others: s.others,
        sequential_fraction: s.sequential_fraction(),
        streams: s.streams,
        first_time_ns: s.first_time_ns,
        last_time_ns: s.last_time_ns,
        skipped_records: reader.skipped_records(),
        ignored_records: reader.ignored_records(),
        size_histogram: (0..SIZE_BUCKETS)
            .filter(|&b| s.size_histogram[b] > 0)
            .map(|b| {
                let (lo, hi) = TraceStats::bucket_bounds_bytes(b);
                (lo, hi, s.size_histogram[b])
            })
            .collect(),
    };
    if a.json {
        return print_json(&report);
    }
    let r = &report;
    println!("trace               {}", r.trace);
    println!("requests            {}", r.requests);
    println!("pages               {} ({} pages of {})", r.pages, r.pages, fmt_bytes(r.page_size_bytes));
    println!(
        "distinct pages      {} ({})",
        r.distinct_pages,
        fmt_bytes(r.distinct_pages * r.page_size_bytes)
    );
    println!("reads/writes/other  {} / {} / {}", r.reads, r.writes, r.others);
    println!("sequential requests {:.1} %", 100.0 * r.sequential_fraction);
    println!("streams             {}", r.streams);
    if let (Some(first), Some(last)) = (r.first_time_ns, r.last_time_ns) {
        println!("time span           {:.3} s", (last.saturating_sub(first)) as f64 / 1e9);
    }
    if r.skipped_records > 0 {
        println!("skipped (bad)       {}", r.skipped_records);
    }
    if r.ignored_records > 0 {
        println!("ignored (not I/O)   {}", r.ignored_records);
    }
    let mut t = Table::new(&[">request size", ">requests", ">share"]);
    for &(lo, hi, n) in &r.size_histogram {
        let label = if hi == 0 {
            "0 (unsized)".to_string()
        } else {
            format!("{} – {}", fmt_bytes(lo), fmt_bytes(hi))
        };
        t.row(vec![label, n.to_string(), format!("{:.1} %", 100.0 * n as f64 / r.requests.max(1) as f64)]);
    }
    print!("\n{}", t.render());
    Ok(())
}

fn convert(a: &ConvertArgs) -> Result<()> {
    let args = a.read.with_trace(&a.trace);
    let mut reader = args.open(None)?;
    let mut out = Output::create(&a.out)?;
    let label = a.out.clone();
    let records = match (a.requests, a.to) {
        (true, ConvertTo::OracleGeneral) => {
            write_oracle_general(reader.as_mut(), &mut out, &label, OracleOptions::default())?
        }
        (true, ConvertTo::Csv) => write_csv(reader.as_mut(), &mut out, &label)?,
        (false, to) => convert_pages(&args, reader.as_mut(), &mut out, to)?,
    };
    out.finish()?;
    eprintln!("wrote {records} records to {}", a.out.display());
    Ok(())
}

/// One record per page: (time, page key, page size).
fn convert_pages(
    args: &TraceArgs,
    reader: &mut dyn pagelab_trace::TraceReader,
    out: &mut Output,
    to: ConvertTo,
) -> Result<u64> {
    let expander = args.expander(reader)?;
    let page_size = u32::try_from(args.page_size_bytes()?)?;
    let label = out.path().to_path_buf();
    let mut pages: Vec<(u64, u64, Op, u32)> = Vec::new();
    for_each_batch(reader, |batch| {
        for r in batch {
            expander.for_each_page(r, |key, _| pages.push((r.time_ns, key, r.op, r.stream)));
        }
    })?;
    match to {
        ConvertTo::OracleGeneral => {
            let keys: Vec<u64> = pages.iter().map(|p| p.1).collect();
            let next = next_vtimes(&keys);
            let mut w = OracleWriter::new(&mut *out, &label);
            for (p, n) in pages.iter().zip(next) {
                let time = u32::try_from(p.0 / 1_000_000_000).unwrap_or(u32::MAX);
                w.write(&OracleRecord { time, id: p.1, size_bytes: page_size, next_vtime: n })?;
            }
            let n = w.records();
            w.finish()?;
            Ok(n)
        }
        ConvertTo::Csv => {
            let mut w = CsvWriter::new(&mut *out, AddrUnit::Object, &label)?;
            for p in &pages {
                let r = Request {
                    time_ns: p.0,
                    addr: p.1,
                    size_bytes: page_size,
                    op: p.2,
                    volume: 0,
                    stream: p.3,
                    next_vtime: NO_NEXT,
                };
                w.write(&r)?;
            }
            let n = w.records();
            w.finish()?;
            Ok(n)
        }
    }
}
