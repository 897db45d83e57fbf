//! multi1-like and multi2-like: programs run concurrently, one process each (papers/001 §4.1.1: "Trace
//! multi1 was collected by running programs cscope, gcc, and viewperf concurrently"; "Trace multi2 was
//! collected by running programs glimpse and tpc-h concurrently. Multi2 has a lower sequential access
//! rate than Multi1 (16% vs. 75%)"). Each program is the one its own workload runs, on the same disk,
//! each in its own region. See the module doc of `dulo`.

use super::{cscope, gcc, glimpse, tpch, viewperf, Disk, Process, GCC, GLIMPSE, TPCH, TREE};
use rand_chacha::ChaCha8Rng;

/// cscope, gcc (both over one source tree, as both read the same kernel source) and viewperf.
pub fn multi1(disk: &mut Disk, scale: f64, rng: impl Fn(u64) -> ChaCha8Rng) -> Vec<Process> {
    let tree = cscope::SourceTree::build(disk, scale, &mut rng(TREE));
    let cscope = cscope::process(&tree, disk);
    let gcc = gcc::process(&tree, disk, scale, &mut rng(GCC));
    vec![cscope, gcc, viewperf::process(disk, scale)]
}

/// glimpse and tpc-h.
pub fn multi2(disk: &mut Disk, scale: f64, rng: impl Fn(u64) -> ChaCha8Rng) -> Vec<Process> {
    let glimpse = glimpse::process(disk, scale, &mut rng(GLIMPSE));
    vec![glimpse, tpch::process(disk, scale, &mut rng(TPCH))]
}
