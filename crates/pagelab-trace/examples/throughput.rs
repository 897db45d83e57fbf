//! Reading speed of any trace, by hand (not a test): `cargo run --release -p pagelab-trace --example
//! throughput -- SPEC [FORMAT]`. Reads the whole trace twice — one `next_request` call per record, then
//! in batches of 64 Ki — and prints records per second for each, by wall time and by the thread's own
//! CPU time (from `/proc/thread-self/schedstat`, Linux only), which stays meaningful on a busy machine.

use pagelab_trace::{open_trace, OpenOptions, Request};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(spec) = args.first() else {
        eprintln!("usage: throughput SPEC [FORMAT]");
        std::process::exit(2);
    };
    let format = args.get(1).map_or("auto", String::as_str);
    let open = || {
        open_trace(spec, format, &OpenOptions::default()).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })
    };

    let mut reader = open();
    let (start, cpu_start) = (Instant::now(), cpu_ns());
    let (mut n, mut checksum) = (0u64, 0u64);
    while let Some(r) = reader.next_request().expect("read") {
        n += 1;
        checksum = checksum.wrapping_add(r.addr ^ r.size_bytes as u64);
    }
    report(
        "next_request",
        n,
        start.elapsed().as_secs_f64(),
        cpu_ns() - cpu_start,
        checksum,
        &reader.describe(),
    );

    let mut reader = open();
    let (start, cpu_start) = (Instant::now(), cpu_ns());
    let mut batch: Vec<Request> = Vec::with_capacity(1 << 16);
    let (mut n, mut checksum) = (0u64, 0u64);
    while reader.next_batch(&mut batch, 1 << 16).expect("read") > 0 {
        n += batch.len() as u64;
        checksum = batch.iter().fold(checksum, |c, r| c.wrapping_add(r.addr ^ r.size_bytes as u64));
        batch.clear();
    }
    report(
        "next_batch",
        n,
        start.elapsed().as_secs_f64(),
        cpu_ns() - cpu_start,
        checksum,
        &reader.describe(),
    );
}

/// Nanoseconds this thread has run on a CPU (0 where `/proc` does not say).
fn cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn report(how: &str, n: u64, secs: f64, cpu_ns: u64, checksum: u64, what: &str) {
    let cpu_secs = cpu_ns as f64 / 1e9;
    println!(
        "{how:>12}: {n} records, wall {secs:.3} s = {:.1} M/s, cpu {cpu_secs:.3} s = {:.1} M/s  (checksum {checksum:x})  {what}",
        n as f64 / secs / 1e6,
        n as f64 / cpu_secs / 1e6,
    );
}
