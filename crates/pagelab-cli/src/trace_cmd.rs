//! `pagelab trace inspect` and `pagelab trace convert`.
//!
//! A conversion never loses data: the output is written beside its destination and renamed into place
//! only once complete (a failed conversion leaves the destination as it was), and an output that is the
//! input, under any name, is refused before anything is opened for writing.

use crate::output::{emit, note, print_json, Table};
use crate::traceio::{ensure_requests, ensure_room, for_each_batch, ReadArgs, TraceArgs};
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use pagelab_core::units::fmt_bytes;
use pagelab_trace::output::ensure_not_input;
use pagelab_trace::stats::{trace_stats, TraceStats, SIZE_BUCKETS};
use pagelab_trace::write::{
    next_vtimes, write_csv, write_oracle_general, CsvWriter, OracleOptions, OracleRecord, OracleWriter,
    Output,
};
use pagelab_trace::{AddrUnit, Request, NO_NEXT};
use serde::Serialize;
use std::fmt::Write as _;
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

The output is written beside its destination and renamed into place only when complete; `-` writes to standard output, and an output that is the input is refused.

Examples:
  pagelab trace convert data/traces/arc/P3.lis.zst \\
      --to oracle-general P3.pages.oracleGeneral.bin
  pagelab trace convert data/traces/libcachesim/cloudPhysicsIO.csv \\
      --to csv --requests cloudPhysicsIO.pagelab.csv.zst"
    )]
    Convert(ConvertArgs),
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Trace file, `-` for standard input, or synth:... spec.
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
    /// Output file; .gz, .zst or .xz compresses; `-` is standard output.
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
    let s: TraceStats = trace_stats(reader.as_mut(), expander, crate::limits::distinct_pages_max())?;
    ensure_requests(&reader.describe(), s.pages, reader.skipped_records())?;
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
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "trace               {}", r.trace);
    let _ = writeln!(out, "requests            {}", r.requests);
    let _ = writeln!(
        out,
        "pages               {} ({} pages of {})",
        r.pages,
        r.pages,
        fmt_bytes(r.page_size_bytes)
    );
    let _ = writeln!(
        out,
        "distinct pages      {} ({})",
        r.distinct_pages,
        fmt_bytes(r.distinct_pages.saturating_mul(r.page_size_bytes))
    );
    let _ = writeln!(out, "reads/writes/other  {} / {} / {}", r.reads, r.writes, r.others);
    let _ = writeln!(out, "sequential requests {:.1} %", 100.0 * r.sequential_fraction);
    let _ = writeln!(out, "streams             {}", r.streams);
    if let (Some(first), Some(last)) = (r.first_time_ns, r.last_time_ns) {
        let _ = writeln!(out, "time span           {:.3} s", (last.saturating_sub(first)) as f64 / 1e9);
    }
    if r.skipped_records > 0 {
        let _ = writeln!(out, "skipped (bad)       {}", r.skipped_records);
    }
    if r.ignored_records > 0 {
        let _ = writeln!(out, "ignored (not I/O)   {}", r.ignored_records);
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
    out.push('\n');
    out += &t.render();
    emit(&out)
}

fn convert(a: &ConvertArgs) -> Result<()> {
    ensure_not_input(&a.out, &a.trace)?;
    let args = a.read.with_trace(&a.trace);
    let mut reader = args.open(None)?;
    // Created only now, and renamed into place only by `finish`: any error below leaves no output.
    let mut out = Output::create(&a.out)?;
    let label = a.out.clone();
    let records = match (a.requests, a.to) {
        (true, ConvertTo::OracleGeneral) => {
            write_oracle_general(reader.as_mut(), &mut out, &label, OracleOptions::default())?
        }
        (true, ConvertTo::Csv) => write_csv(reader.as_mut(), &mut out, &label)?,
        (false, to) => convert_pages(&args, reader.as_mut(), &mut out, to)?,
    };
    ensure_requests(&reader.describe(), records, reader.skipped_records())?;
    out.finish()?;
    note(&format!("wrote {records} records to {}", a.out.display()));
    Ok(())
}

/// One record per page: (time, page key, page size). CSV streams; oracle-general holds the keys and
/// times (12 bytes per page, plus the next-access pass) to compute next accesses.
fn convert_pages(
    args: &TraceArgs,
    reader: &mut dyn pagelab_trace::TraceReader,
    out: &mut Output,
    to: ConvertTo,
) -> Result<u64> {
    let expander = args.expander(reader)?;
    let page_size = u32::try_from(args.page_size_bytes()?)?;
    let label = out.path().to_path_buf();
    match to {
        ConvertTo::OracleGeneral => {
            // 8 bytes of key and 4 of time per page, then 8 of next access and the pass's hash map.
            const BYTES_PER_PAGE: u64 = 32;
            let (mut keys, mut times): (Vec<u64>, Vec<u32>) = (Vec::new(), Vec::new());
            let mut refused = None;
            for_each_batch(reader, |batch| {
                for r in batch {
                    if refused.is_none() && keys.len() == keys.capacity() {
                        refused =
                            ensure_room("converting to oracle-general", keys.len(), BYTES_PER_PAGE).err();
                    }
                    if refused.is_some() {
                        return;
                    }
                    let time = u32::try_from(r.time_ns / 1_000_000_000).unwrap_or(u32::MAX);
                    expander.for_each_page(r, |key, _| {
                        keys.push(key);
                        times.push(time);
                    });
                }
            })?;
            if let Some(e) = refused {
                return Err(e);
            }
            let next = next_vtimes(&keys);
            let mut w = OracleWriter::new(&mut *out, &label);
            for ((&id, &time), n) in keys.iter().zip(&times).zip(next) {
                w.write(&OracleRecord { time, id, size_bytes: page_size, next_vtime: n })?;
            }
            let n = w.records();
            w.finish()?;
            Ok(n)
        }
        ConvertTo::Csv => {
            let mut w = CsvWriter::new(&mut *out, AddrUnit::Object, &label)?;
            let mut failed = None;
            for_each_batch(reader, |batch| {
                for r in batch {
                    expander.for_each_page(r, |key, _| {
                        let page = Request {
                            time_ns: r.time_ns,
                            addr: key,
                            size_bytes: page_size,
                            op: r.op,
                            volume: 0,
                            stream: r.stream,
                            next_vtime: NO_NEXT,
                        };
                        if failed.is_none() {
                            failed = w.write(&page).err();
                        }
                    });
                }
            })?;
            if let Some(e) = failed {
                return Err(e.into());
            }
            let n = w.records();
            w.finish()?;
            Ok(n)
        }
    }
}
