//! viewperf-like: SPEC viewperf reading its viewsets' model files (papers/001 §4.1.1: "over 99% of its
//! references are to consecutive blocks within a few large files"). See the module doc of `dulo` for
//! every size and why.

use super::{read_whole, scaled, Disk, Op, Process};

/// The files' sizes (MiB, at scale 1): five large model files, 66 MiB together.
pub const FILE_MIB: [u64; 5] = [24, 16, 12, 8, 6];
/// Passes over the files (each of viewperf's tests renders a model again, reading its file again).
pub const PASSES: u64 = 4;
/// The `read()` size: 128 KiB, "large calls".
pub const CALL_PAGES: u32 = 32;
/// Computing (geometry set-up) per page read.
pub const CPU_NS_PER_PAGE: u32 = 5_000;

/// The files, contiguous in a region of their own, and the process that reads them `PASSES` times,
/// each file from start to end, in file order.
pub fn process(disk: &mut Disk, scale: f64) -> Process {
    disk.region();
    let files: Vec<u32> = FILE_MIB.iter().map(|&mib| disk.file(scaled(mib * 256, scale))).collect();
    let mut ops: Vec<Op> = Vec::new();
    for _ in 0..PASSES {
        for &f in &files {
            read_whole(&mut ops, f, disk.pages(f), CALL_PAGES, CPU_NS_PER_PAGE);
        }
    }
    Process { program: "viewperf", ops }
}
