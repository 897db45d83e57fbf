//! Synthetic traces, usable wherever a trace path is: `synth:KIND?key=value&key=value`.
//!
//! Every request is a read of one page: `addr` is a page number (`AddrUnit::Object`, size 0), so that
//! consecutive numbers are neighbouring pages and `mixed` carries spatial locality. Time is 0 (the
//! synthetic workloads are closed-loop; whoever replays them supplies time). Every parameter has a
//! default; an unknown parameter, one the kind does not use, or one given twice is an error naming it.
//!
//! | kind | requests | parameters (default) |
//! |---|---|---|
//! | `zipf` | page of popularity rank k (1-based) with probability ∝ 1/k^alpha | `alpha` (1.0), `objects` (1000000), `requests` (10000000), `seed` |
//! | `uniform` | every page of `0..objects` equally likely | `objects`, `requests`, `seed` |
//! | `scan` | one sequential pass `start, start+1, ..., start+objects-1` | `objects`, `start` (0) |
//! | `loop` | repeated passes over `start..start+objects` | `objects`, `requests`, `start` |
//! | `mixed` | `streams` sequential streams interleaved with random pages | `objects`, `requests`, `run` (64), `random` (0.2), `streams` (4), `seed` |
//!
//! `zipf`: popularity ranks map to page numbers through a seeded permutation (Fisher–Yates), so that hot
//! pages are not neighbours on disk (a rank-ordered layout would hand prefetching and DULO's sequence
//! detection a locality no real workload has). Sampling uses Walker's alias method (Vose's O(n) build)
//! in two levels: a 65536-outcome table of the most popular pages plus "the rest", which stays in cache,
//! and a table over all pages for the rest. The permutation is folded into the tables (they are built
//! over page numbers, each page weighing what its rank does), so it costs nothing per request. Random
//! numbers are drawn a chunk of 64 at a time before the tables are read, so that the misses of the large
//! table overlap: together this is what makes 50 M+ requests/s over 10^6 pages possible. Building costs
//! ~20 bytes and a `powf` per page, once.
//!
//! `mixed`: each request is, with probability `random`, a uniformly random page (stream 0); otherwise
//! the next page of one of `streams` sequential streams (chosen uniformly; `stream` = 1..=streams). A
//! stream whose run is exhausted starts a new run at a uniformly random page, with a length drawn from a
//! geometric distribution of mean `run` pages — so `random` is the fraction of requests that are random,
//! and runs of different streams interleave as concurrent sequential readers do.
//!
//! `seed` defaults to the run's seed (`OpenOptions::seed`), else 1. ChaCha8 (`rand_chacha`) is the
//! generator: the same spec gives the same trace on every machine (up to `f64::powf` rounding in the
//! zipf weights, which the platform's libm computes).

use crate::error::TraceError;
use crate::request::{AddrUnit, Op, Request, NO_NEXT};
use crate::TraceReader;
use pagelab_core::spec::{needs_value, refuse_repeat};
use pagelab_core::units::fmt_f64;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The kinds, for messages.
pub const KINDS: &str = "zipf, uniform, scan, loop, mixed";

const OBJECTS_DEFAULT: u64 = 1_000_000;
const REQUESTS_DEFAULT: u64 = 10_000_000;
const ALPHA_DEFAULT: f64 = 1.0;
const RUN_DEFAULT: f64 = 64.0;
const RANDOM_DEFAULT: f64 = 0.2;
const STREAMS_DEFAULT: u32 = 4;
const SEED_DEFAULT: u64 = 1;

/// Largest `streams` for `mixed` (a bound on the per-stream state).
pub const STREAMS_MAX: u32 = 1 << 16;

/// Largest `requests` (and `objects` for `scan`, which is one request per object): 10^12 requests take
/// hours at tens of millions per second; 2^64 would never end.
pub const REQUESTS_MAX: u64 = 1_000_000_000_000;

/// Largest `objects` for `zipf`, whose tables take ~20 bytes per object (2 GB at the limit), built before
/// the first request.
pub const ZIPF_OBJECTS_MAX: u64 = 100_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthKind {
    Zipf,
    Uniform,
    Scan,
    Loop,
    Mixed,
}

impl SynthKind {
    fn name(self) -> &'static str {
        match self {
            SynthKind::Zipf => "zipf",
            SynthKind::Uniform => "uniform",
            SynthKind::Scan => "scan",
            SynthKind::Loop => "loop",
            SynthKind::Mixed => "mixed",
        }
    }

    /// The parameters this kind accepts.
    fn params(self) -> &'static [&'static str] {
        match self {
            SynthKind::Zipf => &["alpha", "objects", "requests", "seed"],
            SynthKind::Uniform => &["objects", "requests", "seed"],
            SynthKind::Scan => &["objects", "start"],
            SynthKind::Loop => &["objects", "requests", "start"],
            SynthKind::Mixed => &["objects", "requests", "run", "random", "streams", "seed"],
        }
    }
}

/// A parsed `synth:` spec with every default filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthSpec {
    pub kind: SynthKind,
    /// Pages in the address space (zipf, uniform, mixed) or in one pass (scan, loop).
    pub objects: u64,
    pub requests: u64,
    pub alpha: f64,
    pub start: u64,
    /// Mean sequential run length in pages (mixed).
    pub run: f64,
    /// Fraction of requests that are random pages (mixed).
    pub random: f64,
    pub streams: u32,
    pub seed: u64,
}

impl SynthSpec {
    /// Parses `synth:KIND[?key=value[&key=value...]]`; `default_seed` is used when the spec has no
    /// `seed` (kinds without randomness ignore it).
    pub fn parse(spec: &str, default_seed: Option<u64>) -> Result<SynthSpec, TraceError> {
        let what = format!("synthetic trace `{spec}`");
        let invalid = |why: String| TraceError::invalid(&what, why);
        let body = spec.strip_prefix("synth:").ok_or_else(|| invalid("expected `synth:KIND?...`".into()))?;
        let (kind_name, query) = body.split_once('?').unwrap_or((body, ""));
        let kind = match kind_name {
            "zipf" => SynthKind::Zipf,
            "uniform" => SynthKind::Uniform,
            "scan" => SynthKind::Scan,
            "loop" => SynthKind::Loop,
            "mixed" => SynthKind::Mixed,
            other => return Err(invalid(format!("unknown kind `{other}`: expected one of {KINDS}"))),
        };
        let mut s = SynthSpec {
            kind,
            objects: OBJECTS_DEFAULT,
            requests: REQUESTS_DEFAULT,
            alpha: ALPHA_DEFAULT,
            start: 0,
            run: RUN_DEFAULT,
            random: RANDOM_DEFAULT,
            streams: STREAMS_DEFAULT,
            seed: default_seed.unwrap_or(SEED_DEFAULT),
        };
        let mut seen: Vec<&str> = Vec::new();
        for item in query.split('&').filter(|i| !i.is_empty()) {
            let (key, value) = split_item(kind, item).map_err(&invalid)?;
            refuse_repeat(seen.iter().copied(), key).map_err(&invalid)?;
            seen.push(key);
            let bad = |expected: &str| invalid(format!("bad `{key}={value}`: expected {expected}"));
            let int = || value.parse::<u64>().map_err(|_| bad("an unsigned integer"));
            let float = || value.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad("a number"));
            match key {
                "objects" => s.objects = int()?,
                "requests" => s.requests = int()?,
                "start" => s.start = int()?,
                "seed" => s.seed = int()?,
                "alpha" => s.alpha = float()?,
                "run" => s.run = float()?,
                "random" => s.random = float()?,
                "streams" => s.streams = u32::try_from(int()?).map_err(|_| bad("a stream count"))?,
                _ => unreachable!("params() lists only the keys handled here"),
            }
        }
        s.validate().map_err(invalid)?;
        if kind == SynthKind::Scan {
            s.requests = s.objects;
        }
        Ok(s)
    }

    fn validate(&self) -> Result<(), String> {
        if self.objects == 0 {
            return Err("`objects` must be at least 1".into());
        }
        if self.kind == SynthKind::Zipf && self.objects > ZIPF_OBJECTS_MAX {
            return Err(format!(
                "`objects={}` is too many for zipf: at most {ZIPF_OBJECTS_MAX} (its tables take ~20 bytes per \
                 object, built before the first request)",
                self.objects
            ));
        }
        if self.kind == SynthKind::Scan && self.objects > REQUESTS_MAX {
            return Err(format!(
                "`objects={}` is too many for scan (one request per object): at most {REQUESTS_MAX}",
                self.objects
            ));
        }
        if self.kind != SynthKind::Scan && self.requests == 0 {
            return Err("`requests=0`: a trace with no requests has nothing to simulate".into());
        }
        if self.requests > REQUESTS_MAX {
            return Err(format!(
                "`requests={}` is too many: at most {REQUESTS_MAX} (hours at tens of millions of requests per \
                 second)",
                self.requests
            ));
        }
        if self.start.checked_add(self.objects).is_none() {
            return Err("`start + objects` overflows a page number".into());
        }
        if self.alpha < 0.0 {
            return Err(format!("`alpha={}` must be ≥ 0", fmt_f64(self.alpha)));
        }
        if self.run < 1.0 {
            return Err(format!("`run={}` must be ≥ 1 page", fmt_f64(self.run)));
        }
        if !(0.0..=1.0).contains(&self.random) {
            return Err(format!("`random={}` must be a fraction in [0, 1]", fmt_f64(self.random)));
        }
        if !(1..=STREAMS_MAX).contains(&self.streams) {
            return Err(format!("`streams={}` must be in 1..={STREAMS_MAX}", self.streams));
        }
        Ok(())
    }

    /// A bound on the trace's distinct pages, known without generating it: every page is one of `objects`
    /// (from `start`), and there is one per request.
    pub fn distinct_bound(&self) -> u64 {
        self.objects.min(self.requests)
    }

    /// The canonical spec, every parameter explicit (what [`TraceReader::describe`] reports).
    pub fn canonical(&self) -> String {
        let values: Vec<String> = self
            .kind
            .params()
            .iter()
            .map(|&p| {
                let v = match p {
                    "objects" => self.objects.to_string(),
                    "requests" => self.requests.to_string(),
                    "start" => self.start.to_string(),
                    "seed" => self.seed.to_string(),
                    "alpha" => fmt_f64(self.alpha),
                    "run" => fmt_f64(self.run),
                    "random" => fmt_f64(self.random),
                    "streams" => self.streams.to_string(),
                    _ => unreachable!("every param has a value"),
                };
                format!("{p}={v}")
            })
            .collect();
        format!("synth:{}?{}", self.kind.name(), values.join("&"))
    }
}

/// Splits one `key=value` item of `kind`'s query, refusing a key the kind does not take and a known key
/// without its value (in the words of every other spec: [`needs_value`]).
fn split_item(kind: SynthKind, item: &str) -> Result<(&str, &str), String> {
    let Some((key, value)) = item.split_once('=') else {
        return Err(if kind.params().contains(&item) {
            needs_value(item)
        } else {
            format!("`{item}` is not key=value")
        });
    };
    if !kind.params().contains(&key) {
        let allowed = kind.params().join(", ");
        return Err(format!("unknown parameter `{key}` for {}: expected {allowed}", kind.name()));
    }
    Ok((key, value))
}

/// A uniform draw from `0..bound` (Lemire's multiply-shift; the bias, below `bound / 2^64`, is
/// irrelevant here and the method is branch-free).
#[inline(always)]
fn below(r: u64, bound: u64) -> u64 {
    ((r as u128 * bound as u128) >> 64) as u64
}

/// A uniform draw from `[0, 1)` with 53 random bits.
#[inline(always)]
fn unit_interval(r: u64) -> f64 {
    (r >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// One slot of an alias table: keep the slot with probability `threshold / 2^32`, else take `alias`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AliasSlot {
    threshold: u32,
    alias: u32,
}

/// Walker's alias table over `0..n`, built by Vose's method in O(n).
#[derive(Clone, Debug)]
pub(crate) struct AliasTable {
    slots: Vec<AliasSlot>,
}

impl AliasTable {
    /// A table drawing `i` with probability `weights[i] / sum(weights)`. Caller guarantees a non-empty
    /// slice of at most 2^32 finite, non-negative weights with a positive sum.
    pub fn new(weights: &[f64]) -> AliasTable {
        let n = weights.len();
        assert!(n > 0 && n <= u32::MAX as usize + 1, "alias table over {n} outcomes");
        let sum: f64 = weights.iter().sum();
        assert!(sum > 0.0 && sum.is_finite(), "alias weights sum to {sum}");
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * n as f64 / sum).collect();
        let mut slots: Vec<AliasSlot> =
            (0..n).map(|i| AliasSlot { threshold: u32::MAX, alias: i as u32 }).collect();
        let (mut small, mut large): (Vec<u32>, Vec<u32>) =
            (0..n as u32).partition(|&i| scaled[i as usize] < 1.0);
        // Bounded: every pass retires one slot of `small` for good (n passes at most).
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            large.pop();
            let (s, l) = (s as usize, l as usize);
            slots[s] = AliasSlot { threshold: to_threshold(scaled[s]), alias: l as u32 };
            scaled[l] = (scaled[l] + scaled[s]) - 1.0;
            if scaled[l] < 1.0 {
                small.push(l as u32);
            } else {
                large.push(l as u32);
            }
        }
        // What is left (on one side only, through rounding) has probability 1: it keeps its own slot.
        AliasTable { slots }
    }

    /// The outcome for one 64-bit random number: the slot from its product with n (high bits), the coin
    /// from its low 32 bits (independent of the slot to within 2^-32).
    #[inline(always)]
    pub fn sample(&self, r: u64) -> u32 {
        let slot = below(r, self.slots.len() as u64) as usize;
        let s = self.slots[slot];
        if (r as u32) < s.threshold {
            slot as u32
        } else {
            s.alias
        }
    }

    /// The probability of outcome `i` the table encodes (for tests).
    #[cfg(test)]
    fn probability(&self, i: u32) -> f64 {
        let n = self.slots.len() as f64;
        let own =
            |s: &AliasSlot| if s.threshold == u32::MAX { 1.0 } else { s.threshold as f64 / 4294967296.0 };
        let mut p = own(&self.slots[i as usize]) / n;
        for s in &self.slots {
            if s.alias == i && s.threshold != u32::MAX {
                p += (1.0 - own(s)) / n;
            }
        }
        p
    }
}

fn to_threshold(p: f64) -> u32 {
    (p * 4294967296.0).clamp(0.0, u32::MAX as f64) as u32
}

/// Outcomes of the head table of a [`TwoLevelSampler`]: its table and pages (768 KiB) stay in L2, and
/// for zipf alpha=1 over 10^6 pages four fifths of the draws end there (measured: 65536 outcomes beat
/// 4096 by a third).
const HEAD_OUTCOMES: usize = 65536;

/// An alias table split in two levels: a small table over the `head` outcomes (the most likely ones)
/// plus one "tail" outcome, and a large table over everything else. For skewed distributions most draws
/// end in the small, cache-resident table (four fifths for zipf alpha=1 over 10^6 pages); only the rest
/// pay a cache miss in the large one. The result has exactly the distribution of one alias table over the
/// weights (see the tests).
#[derive(Clone, Debug)]
pub(crate) struct TwoLevelSampler {
    /// Alias table over `head.len() + 1` outcomes; the last one means "draw from `tail`".
    head_table: AliasTable,
    /// The page of each head outcome.
    head: Vec<u32>,
    /// Alias table over all pages, head pages having weight 0; `None` when there is no tail.
    tail: Option<AliasTable>,
}

impl TwoLevelSampler {
    /// A sampler drawing page `p` with probability `weights[p] / sum(weights)`; `head` names the pages
    /// of the first level (any distinct pages; the most likely ones make it fast). Caller guarantees the
    /// [`AliasTable::new`] conditions.
    pub fn new(mut weights: Vec<f64>, head: Vec<u32>) -> TwoLevelSampler {
        let mut head_weights: Vec<f64> = head.iter().map(|&p| weights[p as usize]).collect();
        for &p in &head {
            weights[p as usize] = 0.0;
        }
        let tail_mass: f64 = weights.iter().sum();
        head_weights.push(tail_mass);
        let tail = (tail_mass > 0.0).then(|| AliasTable::new(&weights));
        TwoLevelSampler { head_table: AliasTable::new(&head_weights), head, tail }
    }

    /// The head pages, most likely first.
    #[cfg(test)]
    pub fn head(&self) -> &[u32] {
        &self.head
    }

    /// Appends one page per random number of `randoms` to `out`; tail draws take one more random number
    /// each from `rng`, in order. Two passes, so that the tail's cache misses are independent loads.
    #[inline]
    fn sample_chunk(&self, randoms: &[u64; CHUNK], k: usize, rng: &mut ChaCha8Rng, out: &mut Vec<Request>) {
        let mut pages = [0u32; CHUNK];
        let mut tails = [0u8; CHUNK];
        let mut tail_count = 0;
        for i in 0..k {
            let o = self.head_table.sample(randoms[i]) as usize;
            if o < self.head.len() {
                pages[i] = self.head[o];
            } else {
                tails[tail_count] = i as u8;
                tail_count += 1;
            }
        }
        if tail_count > 0 {
            let tail = self.tail.as_ref().expect("a tail outcome has a tail table");
            let mut tail_randoms = [0u64; CHUNK];
            tail_randoms[..tail_count].iter_mut().for_each(|r| *r = rng.next_u64());
            for (&i, &r) in tails[..tail_count].iter().zip(&tail_randoms[..tail_count]) {
                pages[i as usize] = tail.sample(r);
            }
        }
        out.extend(pages[..k].iter().map(|&p| request(p as u64, 0)));
    }

    /// The probability of page `p` the two tables encode (for tests).
    #[cfg(test)]
    fn probability(&self, p: u32) -> f64 {
        if let Some(i) = self.head.iter().position(|&h| h == p) {
            return self.head_table.probability(i as u32);
        }
        let tail = self.tail.as_ref().map_or(0.0, |t| t.probability(p));
        self.head_table.probability(self.head.len() as u32) * tail
    }
}

/// Zipf weights of every page and the most popular pages: rank k (1-based) has weight `1/k^alpha` and is
/// page `perm[k-1]` of a seeded permutation. Returns (weights by page, the pages of the first `head`
/// ranks).
fn zipf_weights(objects: u64, alpha: f64, head: usize, rng: &mut ChaCha8Rng) -> (Vec<f64>, Vec<u32>) {
    let n = objects as usize;
    let mut perm: Vec<u32> = (0..n as u64).map(|i| i as u32).collect();
    // Fisher–Yates, written out (rather than `SliceRandom::shuffle`) so that the trace for a seed cannot
    // change with the `rand` version.
    for i in (1..n).rev() {
        let j = below(rng.next_u64(), i as u64 + 1) as usize;
        perm.swap(i, j);
    }
    let mut weights = vec![0.0f64; n];
    for (rank0, &page) in perm.iter().enumerate() {
        let rank = (rank0 + 1) as f64;
        weights[page as usize] = if alpha == 1.0 { 1.0 / rank } else { rank.powf(-alpha) };
    }
    perm.truncate(head.min(n));
    (weights, perm)
}

/// One sequential stream of `mixed`.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    next_page: u64,
    pages_left: u64,
}

enum Generator {
    Zipf(TwoLevelSampler),
    Uniform,
    Sequential,
    Mixed { runs: Vec<Run>, log_continue: f64 },
}

/// A synthetic trace as a [`TraceReader`].
pub struct SynthTrace {
    spec: SynthSpec,
    rng: ChaCha8Rng,
    generator: Generator,
    /// Requests generated so far (handed out or waiting in `pending`).
    issued: u64,
    /// Generated ahead for [`TraceReader::next_request`], which hands them out from `pending_pos`; the
    /// sequence is the same as [`TraceReader::next_batch`] would produce.
    pending: Vec<Request>,
    pending_pos: usize,
}

/// Requests generated per chunk: the random numbers of a chunk are drawn first, then the table is read
/// for all of them, so that the (independent) cache misses of a large zipf table overlap.
const CHUNK: usize = 64;

/// Requests [`TraceReader::next_request`] generates ahead.
const PENDING: usize = 256;

fn request(addr: u64, stream: u32) -> Request {
    Request { time_ns: 0, addr, size_bytes: 0, op: Op::Read, volume: 0, stream, next_vtime: NO_NEXT }
}

impl SynthTrace {
    pub fn new(spec: SynthSpec) -> SynthTrace {
        let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
        let generator = match spec.kind {
            SynthKind::Zipf => {
                let (weights, head) = zipf_weights(spec.objects, spec.alpha, HEAD_OUTCOMES, &mut rng);
                Generator::Zipf(TwoLevelSampler::new(weights, head))
            }
            SynthKind::Uniform => Generator::Uniform,
            SynthKind::Scan | SynthKind::Loop => Generator::Sequential,
            SynthKind::Mixed => Generator::Mixed {
                runs: vec![Run::default(); spec.streams as usize],
                // P(run continues) = 1 - 1/run; its log (via ln_1p, exact for long runs) for
                // inverse-transform geometric lengths.
                log_continue: (-1.0 / spec.run).ln_1p(),
            },
        };
        SynthTrace { spec, rng, generator, issued: 0, pending: Vec::with_capacity(PENDING), pending_pos: 0 }
    }

    pub fn spec(&self) -> &SynthSpec {
        &self.spec
    }

    /// Appends the next `n` requests of the trace to `out`.
    fn generate(&mut self, out: &mut Vec<Request>, n: usize) {
        debug_assert!(self.issued + n as u64 <= self.spec.requests, "generating past the end");
        out.reserve(n);
        let s = &self.spec;
        match &mut self.generator {
            Generator::Zipf(sampler) => {
                let mut randoms = [0u64; CHUNK];
                // Bounded: `n / CHUNK + 1` chunks.
                for start in (0..n).step_by(CHUNK) {
                    let k = CHUNK.min(n - start);
                    randoms[..k].iter_mut().for_each(|r| *r = self.rng.next_u64());
                    sampler.sample_chunk(&randoms, k, &mut self.rng, out);
                }
            }
            Generator::Uniform => {
                let objects = s.objects;
                out.extend((0..n).map(|_| request(below(self.rng.next_u64(), objects), 0)));
            }
            Generator::Sequential => {
                let (start, objects, issued) = (s.start, s.objects, self.issued);
                out.extend((issued..issued + n as u64).map(|i| request(start + i % objects, 0)));
            }
            Generator::Mixed { runs, log_continue } => {
                for _ in 0..n {
                    let (page, stream) = mixed_page(&mut self.rng, s, runs, *log_continue);
                    out.push(request(page, stream));
                }
            }
        }
        self.issued += n as u64;
    }
}

/// The next request of `mixed`: a random page (stream 0), or the next page of a random stream's run.
fn mixed_page(rng: &mut ChaCha8Rng, s: &SynthSpec, runs: &mut [Run], log_continue: f64) -> (u64, u32) {
    if s.random > 0.0 && unit_interval(rng.next_u64()) < s.random {
        return (below(rng.next_u64(), s.objects), 0);
    }
    let stream = below(rng.next_u64(), runs.len() as u64) as usize;
    let run = &mut runs[stream];
    if run.pages_left == 0 {
        let length = geometric(rng, log_continue).min(s.objects);
        run.next_page = below(rng.next_u64(), s.objects - length + 1);
        run.pages_left = length;
    }
    let page = run.next_page;
    run.next_page += 1;
    run.pages_left -= 1;
    (page, stream as u32 + 1)
}

/// A geometric run length ≥ 1 with `ln(P(continue)) = log_continue` (mean `1 / (1 - P)`).
fn geometric(rng: &mut ChaCha8Rng, log_continue: f64) -> u64 {
    if log_continue == f64::NEG_INFINITY {
        return 1; // run = 1: every run is one page
    }
    if log_continue == 0.0 {
        return u64::MAX; // a run too long for f64 to tell from endless; the caller caps at `objects`
    }
    // 1 - U is in (0, 1], so its log is finite and ≤ 0 and the quotient is ≥ 0.
    let u = 1.0 - unit_interval(rng.next_u64());
    // The cast saturates for astronomically long runs; the caller caps at `objects`.
    ((u.ln() / log_continue).floor() as u64).saturating_add(1)
}

impl TraceReader for SynthTrace {
    fn addr_unit(&self) -> AddrUnit {
        AddrUnit::Object
    }

    #[inline]
    fn next_request(&mut self) -> Result<Option<Request>, TraceError> {
        if self.pending_pos == self.pending.len() {
            let n = (self.spec.requests - self.issued).min(PENDING as u64) as usize;
            if n == 0 {
                return Ok(None);
            }
            let mut pending = std::mem::take(&mut self.pending);
            pending.clear();
            self.generate(&mut pending, n);
            self.pending = pending;
            self.pending_pos = 0;
        }
        let r = self.pending[self.pending_pos];
        self.pending_pos += 1;
        Ok(Some(r))
    }

    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        let from_pending = (self.pending.len() - self.pending_pos).min(max);
        out.extend_from_slice(&self.pending[self.pending_pos..self.pending_pos + from_pending]);
        self.pending_pos += from_pending;
        let n = (self.spec.requests - self.issued).min((max - from_pending) as u64) as usize;
        self.generate(out, n);
        Ok(from_pending + n)
    }

    fn describe(&self) -> String {
        self.spec.canonical()
    }

    fn requests_hint(&self) -> Option<u64> {
        Some(self.spec.requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(spec: &str) -> Vec<u64> {
        let mut t = SynthTrace::new(SynthSpec::parse(spec, None).unwrap());
        let mut out = Vec::new();
        while let Some(r) = t.next_request().unwrap() {
            out.push(r.addr);
        }
        out
    }

    #[test]
    fn defaults_and_canonical_form() {
        let s = SynthSpec::parse("synth:zipf", None).unwrap();
        assert_eq!(s.canonical(), "synth:zipf?alpha=1&objects=1000000&requests=10000000&seed=1");
        let s = SynthSpec::parse("synth:mixed?random=0.5", Some(9)).unwrap();
        assert_eq!(
            s.canonical(),
            "synth:mixed?objects=1000000&requests=10000000&run=64&random=0.5&streams=4&seed=9"
        );
        let s = SynthSpec::parse("synth:scan?objects=10&start=5", None).unwrap();
        assert_eq!((s.requests, s.canonical().as_str()), (10, "synth:scan?objects=10&start=5"));
    }

    #[test]
    fn bad_specs_name_the_parameter() {
        let err = |spec: &str| SynthSpec::parse(spec, None).unwrap_err().to_string();
        assert_eq!(
            err("synth:zipf?alpah=1"),
            "synthetic trace `synth:zipf?alpah=1`: unknown parameter `alpah` for zipf: expected alpha, objects, \
             requests, seed"
        );
        assert_eq!(
            err("synth:scan?seed=3"),
            "synthetic trace `synth:scan?seed=3`: unknown parameter `seed` for scan: expected objects, start"
        );
        assert_eq!(
            err("synth:uniform?objects=many"),
            "synthetic trace `synth:uniform?objects=many`: bad `objects=many`: expected an unsigned integer"
        );
        assert_eq!(
            err("synth:zipf?alpha=-1"),
            "synthetic trace `synth:zipf?alpha=-1`: `alpha=-1` must be ≥ 0"
        );
        assert_eq!(
            err("synth:pareto"),
            "synthetic trace `synth:pareto`: unknown kind `pareto`: expected one of zipf, uniform, scan, loop, mixed"
        );
        assert_eq!(
            err("synth:mixed?random=1.5"),
            "synthetic trace `synth:mixed?random=1.5`: `random=1.5` must be a fraction in [0, 1]"
        );
        assert_eq!(
            err("synth:loop?objects=0"),
            "synthetic trace `synth:loop?objects=0`: `objects` must be at least 1"
        );
        assert_eq!(
            err("synth:loop?objects"),
            "synthetic trace `synth:loop?objects`: `objects` needs a value (objects=…)"
        );
        assert_eq!(
            err("synth:loop?colour"),
            "synthetic trace `synth:loop?colour`: `colour` is not key=value"
        );
    }

    /// A number echoed in an error or the canonical spec stays short and parses back (`alpha=-1e300` used to
    /// be written out in 301 digits).
    #[test]
    fn extreme_numbers_are_echoed_briefly() {
        let err = |s: &str| SynthSpec::parse(s, None).unwrap_err().to_string();
        assert_eq!(
            err("synth:zipf?alpha=-1e300"),
            "synthetic trace `synth:zipf?alpha=-1e300`: `alpha=-1e300` must be ≥ 0"
        );
        assert!(err("synth:mixed?run=1e-300").ends_with("`run=1e-300` must be ≥ 1 page"));
        assert!(err("synth:mixed?random=1e300").ends_with("`random=1e300` must be a fraction in [0, 1]"));
        let tiny = SynthSpec::parse("synth:zipf?alpha=1e-300&objects=10&requests=10", None).unwrap();
        assert_eq!(tiny.canonical(), "synth:zipf?alpha=1e-300&objects=10&requests=10&seed=1");
        assert_eq!(SynthSpec::parse(&tiny.canonical(), None).unwrap(), tiny);
    }

    /// A key given twice is refused as `name:key=value` specs refuse it: the last used to win in silence
    /// (`synth:zipf?objects=10&objects=20` was 20 objects).
    #[test]
    fn a_repeated_key_is_refused() {
        let err = |s: &str| SynthSpec::parse(s, None).unwrap_err().to_string();
        assert_eq!(
            err("synth:zipf?objects=10&requests=5&objects=20"),
            "synthetic trace `synth:zipf?objects=10&requests=5&objects=20`: `objects` is given twice"
        );
        assert_eq!(
            err("synth:mixed?seed=1&seed=1"),
            "synthetic trace `synth:mixed?seed=1&seed=1`: `seed` is given twice"
        );
    }

    #[test]
    fn absurd_sizes_are_refused_naming_the_limit() {
        let err = |s: &str| SynthSpec::parse(s, None).unwrap_err().to_string();
        assert_eq!(
            err("synth:uniform?requests=0"),
            "synthetic trace `synth:uniform?requests=0`: `requests=0`: a trace with no requests has nothing to simulate"
        );
        assert!(err("synth:uniform?requests=18446744073709551615").ends_with(
            "`requests=18446744073709551615` is too many: at most 1000000000000 (hours at tens of millions of \
             requests per second)"
        ));
        assert!(err("synth:zipf?objects=4000000000").contains("at most 100000000"));
        assert!(err("synth:scan?objects=2000000000000").contains("at most 1000000000000"));
        for fine in ["synth:uniform?requests=1000000000000", "synth:zipf?objects=100000000&requests=1"] {
            SynthSpec::parse(fine, None).unwrap();
        }
    }

    #[test]
    fn scan_and_loop_are_sequential() {
        assert_eq!(pages("synth:scan?objects=4&start=10"), vec![10, 11, 12, 13]);
        assert_eq!(pages("synth:loop?objects=3&requests=7&start=1"), vec![1, 2, 3, 1, 2, 3, 1]);
    }

    #[test]
    fn same_seed_same_trace_other_seed_other_trace() {
        for kind in ["zipf", "uniform", "mixed"] {
            let a = pages(&format!("synth:{kind}?objects=1000&requests=2000&seed=7"));
            let b = pages(&format!("synth:{kind}?objects=1000&requests=2000&seed=7"));
            let c = pages(&format!("synth:{kind}?objects=1000&requests=2000&seed=8"));
            assert_eq!(a, b, "{kind}: same seed must give the same trace");
            assert_ne!(a, c, "{kind}: another seed must give another trace");
            assert!(a.iter().all(|&p| p < 1000), "{kind}: page outside 0..objects");
        }
    }

    #[test]
    fn batches_equal_single_requests() {
        let spec = SynthSpec::parse("synth:mixed?objects=500&requests=1000&seed=3", None).unwrap();
        let single = pages("synth:mixed?objects=500&requests=1000&seed=3");
        let mut t = SynthTrace::new(spec);
        let mut out = Vec::new();
        while t.next_batch(&mut out, 333).unwrap() > 0 {}
        assert_eq!(out.iter().map(|r| r.addr).collect::<Vec<_>>(), single);
    }

    #[test]
    fn alias_table_encodes_the_weights() {
        let weights = [1.0, 2.0, 0.0, 5.0, 0.5];
        let t = AliasTable::new(&weights);
        let sum: f64 = weights.iter().sum();
        for (i, w) in weights.iter().enumerate() {
            let p = t.probability(i as u32);
            assert!((p - w / sum).abs() < 1e-9, "outcome {i}: table gives {p}, weight {}", w / sum);
        }
        // Outcome 2 has weight 0: no random number may draw it.
        assert!((0..10_000u64).all(|k| t.sample(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) != 2));
    }

    #[test]
    fn zipf_top_ranks_match_theory_and_are_scattered() {
        let (objects, requests) = (1000u64, 200_000u64);
        let pages = pages(&format!("synth:zipf?alpha=1&objects={objects}&requests={requests}&seed=11"));
        let mut counts = vec![0u64; objects as usize];
        for &p in &pages {
            counts[p as usize] += 1;
        }
        let mut by_count: Vec<(u64, u64)> = counts.iter().enumerate().map(|(p, &c)| (c, p as u64)).collect();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        let harmonic: f64 = (1..=objects).map(|k| 1.0 / k as f64).sum();
        for rank in 1..=3u64 {
            let p = 1.0 / rank as f64 / harmonic;
            let expected = requests as f64 * p;
            let sigma = (requests as f64 * p * (1.0 - p)).sqrt();
            let got = by_count[rank as usize - 1].0 as f64;
            assert!(
                (got - expected).abs() < 5.0 * sigma,
                "rank {rank}: {got} requests, theory {expected:.0} ± {sigma:.0}"
            );
        }
        let hottest: Vec<u64> = by_count[..5].iter().map(|&(_, p)| p).collect();
        assert_ne!(hottest, vec![0, 1, 2, 3, 4], "ranks must be permuted onto pages");
        let adjacent = hottest.windows(2).filter(|w| w[0].abs_diff(w[1]) == 1).count();
        assert!(adjacent < 4, "hot pages {hottest:?} are neighbours");
    }

    proptest::proptest! {
        #[test]
        fn two_level_sampler_encodes_the_weights(
            weights in proptest::collection::vec(0.0f64..10.0, 1..40),
            head_len in 0usize..40,
            shift in 0usize..40,
        ) {
            proptest::prop_assume!(weights.iter().sum::<f64>() > 0.0);
            let n = weights.len();
            let head: Vec<u32> = (0..head_len.min(n)).map(|i| ((i + shift) % n) as u32).collect();
            let sum: f64 = weights.iter().sum();
            let sampler = TwoLevelSampler::new(weights.clone(), head);
            for (p, w) in weights.iter().enumerate() {
                let got = sampler.probability(p as u32);
                proptest::prop_assert!((got - w / sum).abs() < 1e-9, "page {}: {} vs {}", p, got, w / sum);
            }
        }
    }

    #[test]
    fn zipf_beyond_the_head_table_matches_theory() {
        let (objects, requests) = (4 * HEAD_OUTCOMES as u64, 200_000u64);
        let spec = format!("synth:zipf?alpha=0.9&objects={objects}&requests={requests}&seed=3");
        let mut t = SynthTrace::new(SynthSpec::parse(&spec, None).unwrap());
        let Generator::Zipf(sampler) = &t.generator else { panic!("zipf") };
        let head: std::collections::HashSet<u64> = sampler.head().iter().map(|&p| p as u64).collect();
        let top = sampler.head()[0] as u64;
        assert_eq!(head.len(), HEAD_OUTCOMES);
        let (mut in_head, mut on_top) = (0u64, 0u64);
        let mut seen = std::collections::HashSet::new();
        while let Some(r) = t.next_request().unwrap() {
            in_head += head.contains(&r.addr) as u64;
            on_top += (r.addr == top) as u64;
            seen.insert(r.addr);
        }
        let weight = |k: u64| (k as f64).powf(-0.9);
        let total: f64 = (1..=objects).map(weight).sum();
        let head_mass: f64 = (1..=HEAD_OUTCOMES as u64).map(weight).sum::<f64>() / total;
        let check = |what: &str, got: u64, p: f64| {
            let (mean, sigma) = (requests as f64 * p, (requests as f64 * p * (1.0 - p)).sqrt());
            assert!((got as f64 - mean).abs() < 5.0 * sigma, "{what}: {got}, theory {mean:.0} ± {sigma:.0}");
        };
        check("requests to the head pages", in_head, head_mass);
        check("requests to rank 1", on_top, 1.0 / total);
        assert!(seen.len() > HEAD_OUTCOMES, "the tail is drawn from: {} distinct pages", seen.len());
    }

    #[test]
    fn alpha_zero_is_uniform() {
        let pages = pages("synth:zipf?alpha=0&objects=10&requests=100000&seed=2");
        let mut counts = [0u64; 10];
        for &p in &pages {
            counts[p as usize] += 1;
        }
        // 10000 expected per page, sigma ≈ 95.
        assert!(counts.iter().all(|&c| c.abs_diff(10_000) < 500), "{counts:?}");
    }

    #[test]
    fn uniform_covers_the_space_evenly() {
        let pages = pages("synth:uniform?objects=8&requests=80000&seed=5");
        let mut counts = [0u64; 8];
        for &p in &pages {
            counts[p as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c.abs_diff(10_000) < 500), "{counts:?}");
    }

    #[test]
    fn mixed_has_the_requested_fraction_of_random_requests_and_long_runs() {
        let spec = SynthSpec::parse(
            "synth:mixed?objects=1000000&requests=200000&run=32&random=0.25&streams=3&seed=4",
            None,
        )
        .unwrap();
        let mut t = SynthTrace::new(spec);
        let mut random = 0u64;
        let mut last = [u64::MAX; 4];
        let (mut continued, mut sequential) = (0u64, 0u64);
        while let Some(r) = t.next_request().unwrap() {
            let s = r.stream as usize;
            assert!(s <= 3, "stream {s} beyond streams=3");
            if s == 0 {
                random += 1;
                continue;
            }
            sequential += 1;
            continued += (last[s] != u64::MAX && r.addr == last[s] + 1) as u64;
            last[s] = r.addr;
        }
        let fraction = random as f64 / 200_000.0;
        assert!((fraction - 0.25).abs() < 0.01, "random fraction {fraction}");
        // A run of mean 32 continues 31 times out of 32.
        let continuing = continued as f64 / sequential as f64;
        assert!((continuing - 31.0 / 32.0).abs() < 0.01, "runs continue with probability {continuing}");
    }

    #[test]
    fn mixed_without_randomness_or_runs_still_works() {
        let all_random = pages("synth:mixed?objects=50&requests=100&random=1&seed=1");
        assert_eq!(all_random.len(), 100);
        // Runs longer than the address space are cut to it: one stream then scans 0..10 over and over.
        let endless =
            pages("synth:mixed?objects=10&requests=30&random=0&run=1000000000000000000000&streams=1");
        assert_eq!(endless, (0..30).map(|i| i % 10).collect::<Vec<u64>>());
        let single_pages = pages("synth:mixed?objects=50&requests=100&random=0&run=1&streams=1&seed=1");
        assert_eq!(single_pages.len(), 100);
        assert!(single_pages.iter().all(|&p| p < 50));
    }
}
