//! Workloads that write and page: anonymous memory (MemRx's VM microbenchmarks, DULO's sparse matrix) and a
//! write-heavy file workload.
//!
//! - `vm-seq` — papers/003 Table 1, "VM Sequential": "Sequentially scan a fixed size section of allocated
//!   virtual memory repeatedly"; §5.1: "It allocates a fixed amount of anonymous memory, then sequentially
//!   writes to each page." One request is one pass over the allocation, a store to each page.
//! - `vm-random` — "VM Random": "Randomly touch virtual memory pages from a fixed-size virtual memory
//!   allocation repeatedly". One request touches as many random pages as the allocation holds; `write`
//!   chooses stores (default) or loads after the first pass.
//! - `smm` — papers/001 §4.2: SciMark2's sparse matrix-vector multiply in compressed-row form, "the matrix is
//!   stored in a compressed-row format so that all the non-zero elements are continuously placed in a
//!   one-dimensional array with two index arrays"; "SMM first initializes the arrays one by one"; then
//!   repeats the multiplication. Our copy of the paper lost the matrix's dimensions; pagelab keeps
//!   SciMark2's shape (`nz = 10 n` non-zeros, row `r`'s columns `0, s, 2s, …` with `s = max(r / 10, 1)`,
//!   SciMark2's `SparseCompRow` initialisation) and picks `n` so that the working set is the paper's
//!   "around 116MB": the values (8 bytes each), column indices (4), row pointers (4), the vector x and the
//!   result y (8 each) make 140 bytes per row, and n = 869,000 gives 116 MiB. One request is one row of one
//!   multiplication (the initialisation first), so each request is short however large the matrix.
//! - `write` — a file workload that writes: each request writes one `block` at a random aligned offset of
//!   a random file (`mode=random`), or continues the slot's file sequentially (`mode=seq`); `read_fraction`
//!   of requests read instead.
//!
//! The compute between touches is the workload's own CPU step at the end of each request (a touch of a
//! resident page is a load or store and costs the simulator nothing; a fault costs `--cpu-per-page`). The
//! papers give no CPU times, so these are estimates for their P4-era machines, and workload keys:
//! `touch_cpu` (default 100 ns: one load or store that misses the CPU caches and the TLB, about a DRAM
//! access of 2005) per page of a pass, and `row_cpu` (default 100 ns: a row's 10 multiply-adds, 20 flops,
//! at the ~200 Mflops SciMark2's sparse kernel reached on 1.7–2 GHz Pentium 4s) per row of `smm`. Without
//! them a pass that hits in memory would take no simulated time at all.
//!
//! Each handler slot is its own process: its anonymous region is the slot's (region `slot`), kept across
//! its requests (the process lives on; `vm-seq`'s passes re-touch the same memory).

use super::{RequestProgram, Step, Workload};
use pagelab_core::units::fmt_f64;
use pagelab_core::{FileId, Nanos, PAGE_SIZE_BYTES};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Pages in one request of `vm-seq` / `vm-random` at most: a pass over a larger allocation is split into
/// several requests, so that a program stays small.
const PASS_PAGES_MAX: u64 = 1 << 16;

/// `vm-seq` or `vm-random`.
#[derive(Clone, Debug, PartialEq)]
pub struct VmTouch {
    pub sequential: bool,
    pub bytes: u64,
    /// Stores (else loads, after the first pass has written every page).
    pub write: bool,
    /// Compute per page touched (see the module doc).
    pub touch_cpu: Nanos,
    /// Passes each process makes over its allocation (the first one initialises it).
    pub passes: u64,
    /// Per slot: pages done in the current pass (a pass larger than [`PASS_PAGES_MAX`] spans requests),
    /// and passes completed.
    progress: Vec<(u64, u64)>,
}

impl VmTouch {
    pub const TOUCH_CPU: Nanos = Nanos(100);
    /// MemRx's Figure 3 instance: "256 MB were allocated and accessed 10 times in a loop".
    pub const PASSES: u64 = 10;

    /// Caller guarantees `bytes >= 1` and `passes >= 1`.
    pub fn new(sequential: bool, bytes: u64, write: bool, touch_cpu: Nanos, passes: u64) -> VmTouch {
        assert!(bytes >= 1 && passes >= 1, "an allocation of {bytes} bytes touched {passes} times");
        VmTouch { sequential, bytes, write, touch_cpu, passes, progress: Vec::new() }
    }

    fn pages(&self) -> u64 {
        self.bytes.div_ceil(PAGE_SIZE_BYTES)
    }
}

impl Workload for VmTouch {
    fn describe(&self) -> String {
        let name = if self.sequential { "vm-seq" } else { "vm-random" };
        format!(
            "{name}:size={}MiB,passes={},write={},touch_cpu={}ns",
            self.bytes >> 20,
            self.passes,
            self.write,
            self.touch_cpu.0
        )
    }

    fn file_pages(&self) -> &[u64] {
        &[]
    }

    fn uses_anonymous_memory(&self) -> bool {
        true
    }

    fn runs_to_completion(&self) -> bool {
        true
    }

    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let s = slot as usize;
        if self.progress.len() <= s {
            self.progress.resize(s + 1, (0, 0));
        }
        let pages = self.pages();
        let (done, passes) = self.progress[s];
        if passes == self.passes {
            return None;
        }
        let initialised = passes > 0;
        let n = (pages - done).min(PASS_PAGES_MAX);
        // The first pass writes every page (the allocation is initialised); later ones store or load.
        let write = self.write || !initialised;
        let mut steps: Vec<Step> = (0..n)
            .map(|i| {
                let page = if self.sequential || !initialised { done + i } else { rng.gen_range(0..pages) };
                Step::Touch { region: slot, page, write }
            })
            .collect();
        steps.push(Step::Cpu(Nanos(self.touch_cpu.0 * n)));
        let done = done + n;
        self.progress[s] = if done == pages { (0, passes + 1) } else { (done, passes) };
        Some(RequestProgram { steps })
    }
}

/// DULO's sparse matrix-vector multiply (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct SparseMatVec {
    /// Rows (and columns) of the square matrix.
    pub n: u64,
    /// Non-zeros per row.
    pub per_row: u64,
    /// Compute per row of a multiplication (see the module doc).
    pub row_cpu: Nanos,
    /// Multiplications after the initialisation.
    pub multiplications: u64,
    /// Per slot: the next row (`n` rows of initialisation first, as pages of the arrays in order, then the
    /// multiplications).
    cursor: Vec<u64>,
}

impl SparseMatVec {
    /// 869,000 rows of 10 non-zeros: 116 MiB (see the module doc).
    pub const N_DEFAULT: u64 = 869_000;
    pub const PER_ROW: u64 = 10;
    pub const ROW_CPU: Nanos = Nanos(100);
    /// "The benchmark is designed to repeat the multiplication computation 15 times" (papers/001 §4.2).
    pub const MULTIPLICATIONS: u64 = 15;
    /// Rows in one request (see `SparseMatVec::chunk_steps`).
    pub const ROWS_PER_REQUEST: u64 = 256;

    /// Caller guarantees `1 <= per_row <= n` and `multiplications >= 1`.
    pub fn new(n: u64, per_row: u64, row_cpu: Nanos, multiplications: u64) -> SparseMatVec {
        assert!((1..=n).contains(&per_row) && multiplications >= 1, "smm n={n} per_row={per_row}");
        SparseMatVec { n, per_row, row_cpu, multiplications, cursor: Vec::new() }
    }

    /// Byte offsets of the arrays in the region: values, columns, row pointers, x, y.
    fn layout(&self) -> [u64; 5] {
        let nz = self.n * self.per_row;
        let val = 0;
        let col = val + 8 * nz;
        let row = col + 4 * nz;
        let x = row + 4 * (self.n + 1);
        let y = x + 8 * self.n;
        [val, col, row, x, y]
    }

    pub fn working_set_bytes(&self) -> u64 {
        self.layout()[4] + 8 * self.n
    }

    /// Pages touched in the initialisation (every page of every array, in order).
    fn init_pages(&self) -> u64 {
        self.working_set_bytes().div_ceil(PAGE_SIZE_BYTES)
    }

    /// The pages row `r` of a multiplication touches, in order, into `out`: its row pointers, its values and
    /// column indices (sequential), x at its columns (scattered), and y[r] (a store). The literal kernel,
    /// which the tests hold [`SparseMatVec::chunk_steps`] to.
    #[cfg(test)]
    fn row_pages(&self, r: u64, out: &mut Vec<(u64, bool)>) {
        let [val, col, row, x, y] = self.layout();
        let page = |byte: u64| byte / PAGE_SIZE_BYTES;
        let first = r * self.per_row;
        let step = (r / self.per_row).max(1);
        out.push((page(row + 4 * r), false));
        out.push((page(row + 4 * (r + 1)), false));
        for k in 0..self.per_row {
            out.push((page(val + 8 * (first + k)), false));
            out.push((page(col + 4 * (first + k)), false));
            out.push((page(x + 8 * (k * step).min(self.n - 1)), false));
        }
        out.push((page(y + 8 * r), true));
    }

    /// Rows `[first, first + rows)` of a multiplication as one request: each page they touch once, in the
    /// order of its first touch (a store if any touch stores), then their compute. Departure: within a
    /// request (256 rows, ~26 µs of compute) a page's repeated touches count once, at its first; the
    /// replacement policies see page-granular references anyway (a CLOCK reference bit, an LRU position
    /// 26 µs apart), and a row per request would cost the simulator 30 touches and an event per 100 ns.
    fn chunk_steps(&self, slot: u32, first: u64, rows: u64) -> Vec<Step> {
        let [val, col, row, x, y] = self.layout();
        let page = |byte: u64| byte / PAGE_SIZE_BYTES;
        // The rows' touches in order, less the repeats that are certain without a search: a sequential
        // array's page equal to its previous one, and a row's x pages when its step is its predecessor's
        // (the same columns). The rest are few (~300 for 256 rows) and merged by a sort below.
        let mut pages: Vec<(u64, bool)> = Vec::new();
        let mut last = [u64::MAX; 4]; // row pointers, values, columns, y
        let mut sequential = |array: usize, p: u64, write: bool, pages: &mut Vec<(u64, bool)>| {
            if std::mem::replace(&mut last[array], p) != p {
                pages.push((p, write));
            }
        };
        let mut last_step = u64::MAX;
        for r in first..first + rows {
            sequential(0, page(row + 4 * r), false, &mut pages);
            sequential(0, page(row + 4 * (r + 1)), false, &mut pages);
            let step = (r / self.per_row).max(1);
            for k in 0..self.per_row {
                let nz = r * self.per_row + k;
                sequential(1, page(val + 8 * nz), false, &mut pages);
                sequential(2, page(col + 4 * nz), false, &mut pages);
                if step != last_step {
                    pages.push((page(x + 8 * (k * step).min(self.n - 1)), false));
                }
            }
            last_step = step;
            sequential(3, page(y + 8 * r), true, &mut pages);
        }
        // (page, first position, any store): sorted by page to merge, then back into first-touch order.
        let mut touched: Vec<(u64, usize, bool)> =
            pages.iter().enumerate().map(|(i, &(p, w))| (p, i, w)).collect();
        touched.sort_unstable();
        let mut merged: Vec<(u64, usize, bool)> = Vec::with_capacity(touched.len());
        for (page, at, write) in touched {
            match merged.last_mut() {
                Some(last) if last.0 == page => last.2 |= write,
                _ => merged.push((page, at, write)),
            }
        }
        merged.sort_unstable_by_key(|&(_, at, _)| at);
        let touches = merged.into_iter().map(|(page, _, write)| Step::Touch { region: slot, page, write });
        touches.chain(std::iter::once(Step::Cpu(Nanos(self.row_cpu.0 * rows)))).collect()
    }
}

impl Workload for SparseMatVec {
    fn describe(&self) -> String {
        format!(
            "smm:n={},per_row={},multiplications={},row_cpu={}ns",
            self.n, self.per_row, self.multiplications, self.row_cpu.0
        )
    }

    fn file_pages(&self) -> &[u64] {
        &[]
    }

    fn uses_anonymous_memory(&self) -> bool {
        true
    }

    fn runs_to_completion(&self) -> bool {
        true
    }

    fn next_request(&mut self, slot: u32, _: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let s = slot as usize;
        if self.cursor.len() <= s {
            self.cursor.resize(s + 1, 0);
        }
        let init = self.init_pages();
        let at = self.cursor[s];
        let steps = if at < init {
            // Initialisation: the arrays one by one, a pass of stores in chunks.
            let n = (init - at).min(PASS_PAGES_MAX);
            self.cursor[s] = at + n;
            let stores = (at..at + n).map(|page| Step::Touch { region: slot, page, write: true });
            stores.chain(std::iter::once(Step::Cpu(Nanos(VmTouch::TOUCH_CPU.0 * n)))).collect()
        } else {
            let done = at - init;
            if done == self.n * self.multiplications {
                return None;
            }
            let r = done % self.n;
            let rows = (self.n - r).min(Self::ROWS_PER_REQUEST);
            self.cursor[s] = at + rows;
            self.chunk_steps(slot, r, rows)
        };
        Some(RequestProgram { steps })
    }
}

/// The write-heavy file workload (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct FileWrites {
    pub files: u32,
    pub file_bytes: u64,
    pub block_bytes: u64,
    pub sequential: bool,
    pub read_fraction: f64,
    file_pages: Vec<u64>,
    /// Per slot: (file, next offset) for sequential writes.
    next: Vec<(u32, u64)>,
}

impl FileWrites {
    /// Caller guarantees `files >= 1`, `block_bytes >= 1`, `file_bytes >= block_bytes`, a fraction in [0, 1].
    pub fn new(
        files: u32,
        file_bytes: u64,
        block_bytes: u64,
        sequential: bool,
        read_fraction: f64,
    ) -> FileWrites {
        let file_pages = vec![file_bytes / PAGE_SIZE_BYTES; files as usize];
        FileWrites { files, file_bytes, block_bytes, sequential, read_fraction, file_pages, next: Vec::new() }
    }
}

impl Workload for FileWrites {
    fn describe(&self) -> String {
        format!(
            "write:files={},file_size={}KiB,block={}KiB,mode={},read_fraction={}",
            self.files,
            self.file_bytes >> 10,
            self.block_bytes >> 10,
            if self.sequential { "seq" } else { "random" },
            fmt_f64(self.read_fraction)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn next_request(&mut self, slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let s = slot as usize;
        if self.next.len() <= s {
            self.next.resize(s + 1, (slot % self.files, 0));
        }
        let blocks = self.file_bytes / self.block_bytes;
        let (file, offset_bytes) = if self.sequential {
            let (file, offset) = self.next[s];
            let wrapped = offset + self.block_bytes > self.file_bytes;
            let (file, offset) = if wrapped { ((file + 1) % self.files, 0) } else { (file, offset) };
            self.next[s] = (file, offset + self.block_bytes);
            (file, offset)
        } else {
            (rng.gen_range(0..self.files), rng.gen_range(0..blocks) * self.block_bytes)
        };
        let (file, len_bytes) = (FileId(file), self.block_bytes);
        let step = if rng.gen::<f64>() < self.read_fraction {
            Step::Read { file, offset_bytes, len_bytes }
        } else {
            Step::Write { file, offset_bytes, len_bytes }
        };
        Some(RequestProgram { steps: vec![step] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The touches of a request, which ends in its compute.
    fn touches(p: &RequestProgram) -> Vec<(u64, bool)> {
        let (last, touches) = p.steps.split_last().expect("a request has steps");
        assert!(matches!(last, Step::Cpu(work) if work.0 > 0), "the request ends in compute: {last:?}");
        touches
            .iter()
            .map(|s| match *s {
                Step::Touch { page, write, .. } => (page, write),
                other => panic!("not a touch: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn vm_seq_writes_every_page_in_order_each_pass() {
        let mut w = VmTouch::new(true, 5 * PAGE_SIZE_BYTES, true, VmTouch::TOUCH_CPU, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let pass = (0..5).map(|p| (p, true)).collect::<Vec<_>>();
        assert_eq!(touches(&w.next_request(0, &mut rng).unwrap()), pass);
        assert_eq!(touches(&w.next_request(0, &mut rng).unwrap()), pass);
        assert!(w.next_request(0, &mut rng).is_none(), "two passes, then the process ends");
        assert_eq!(touches(&w.next_request(1, &mut rng).unwrap()), pass, "each slot is its own process");
        assert!(w.uses_anonymous_memory() && w.file_pages().is_empty() && w.runs_to_completion());
    }

    #[test]
    fn vm_random_initialises_then_touches_at_random() {
        let mut w = VmTouch::new(false, 64 * PAGE_SIZE_BYTES, false, VmTouch::TOUCH_CPU, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let first = touches(&w.next_request(0, &mut rng).unwrap());
        assert_eq!(first, (0..64).map(|p| (p, true)).collect::<Vec<_>>(), "the allocation is written first");
        let second = touches(&w.next_request(0, &mut rng).unwrap());
        assert_eq!(second.len(), 64);
        assert!(second.iter().all(|&(p, w)| p < 64 && !w), "loads within the allocation");
        assert_ne!(second.iter().map(|t| t.0).collect::<Vec<_>>(), (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn smm_is_116_mib_and_rows_touch_their_arrays() {
        let w = SparseMatVec::new(SparseMatVec::N_DEFAULT, SparseMatVec::PER_ROW, SparseMatVec::ROW_CPU, 15);
        assert_eq!(w.working_set_bytes(), 869_000 * 140 + 4, "140 bytes a row, plus the last row pointer");
        assert_eq!(w.working_set_bytes() >> 20, 116);
        let small = SparseMatVec::new(100_000, 10, SparseMatVec::ROW_CPU, 1);
        let steps = small.chunk_steps(0, 50_000, 1);
        let [_, _, _, x, y] = small.layout();
        let xs: Vec<u64> = steps
            .iter()
            .filter_map(|s| match *s {
                Step::Touch { page, .. } if page >= x / 4096 && page < y / 4096 => Some(page),
                _ => None,
            })
            .collect();
        // Step 5000: columns 0, 5000, ..., 45000 → bytes 40,000 apart → ten different pages of x.
        assert_eq!(xs.len(), 10);
        assert_eq!(steps.last(), Some(&Step::Cpu(SparseMatVec::ROW_CPU)), "the row's multiply-adds");
        assert!(matches!(steps[steps.len() - 2], Step::Touch { write: true, .. }), "y[r] is stored");
    }

    /// A request of rows touches each page once, in the order of its first touch, a store if any touch
    /// stored: hand-traced on a 4-row matrix of 2 non-zeros a row, whose arrays share page 0.
    #[test]
    fn smm_requests_merge_their_rows_touches_in_first_touch_order() {
        let w = SparseMatVec::new(4, 2, Nanos(7), 1);
        // Every array of 4 rows fits in page 0: one touch, a store (y is stored).
        assert_eq!(touches(&RequestProgram { steps: w.chunk_steps(0, 0, 4) }), vec![(0, true)]);
        // Against the literal kernel, row by row: small steps (x pages shared), large ones, a last chunk.
        let big = SparseMatVec::new(100_000, 10, Nanos(7), 1);
        for (first, rows) in [(0, 256), (50_000, 256), (99_990, 10)] {
            let steps = big.chunk_steps(3, first, rows);
            assert_eq!(steps.last(), Some(&Step::Cpu(Nanos(7 * rows))), "the rows' compute");
            let mut expected = Vec::new();
            for r in first..first + rows {
                big.row_pages(r, &mut expected);
            }
            let mut seen = std::collections::HashSet::new();
            let order: Vec<u64> = expected.iter().map(|t| t.0).filter(|p| seen.insert(*p)).collect();
            let got = touches(&RequestProgram { steps });
            assert_eq!(got.iter().map(|t| t.0).collect::<Vec<_>>(), order, "rows {first}+{rows}");
            for (page, write) in got {
                assert_eq!(write, expected.iter().any(|&(p, w)| p == page && w), "page {page}");
            }
            assert!(order.len() * 10 < expected.len(), "{} of {} touches kept", order.len(), expected.len());
        }
    }

    #[test]
    fn smm_initialises_then_multiplies_then_ends() {
        let mut w = SparseMatVec::new(600, 10, SparseMatVec::ROW_CPU, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let init = touches(&w.next_request(0, &mut rng).unwrap());
        assert_eq!(init.len() as u64, w.init_pages());
        assert!(init.iter().all(|t| t.1), "the initialisation stores");
        // 600 rows in requests of 256, 256 and 88, twice.
        let mut rows = 0;
        while let Some(p) = w.next_request(0, &mut rng) {
            let Some(Step::Cpu(work)) = p.steps.last() else { panic!("compute last") };
            rows += work.0 / SparseMatVec::ROW_CPU.0;
        }
        assert_eq!(rows, 1200);
    }

    #[test]
    fn file_writes_are_aligned_and_sequential_mode_continues() {
        let mut w = FileWrites::new(2, 4 * 16384, 16384, true, 0.0);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let offsets: Vec<(u32, u64)> = (0..5)
            .map(|_| match w.next_request(0, &mut rng).unwrap().steps[0] {
                Step::Write { file, offset_bytes, .. } => (file.0, offset_bytes),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(offsets, vec![(0, 0), (0, 16384), (0, 32768), (0, 49152), (1, 0)]);
    }
}
