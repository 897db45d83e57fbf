//! `index-search`: Li & Shen's Ask Jeeves index-searching server (papers/000 §2, §4.1, Table 1, §4.3).
//!
//! The paper (§4.1): "The dataset contains the search index for 12.6 million Web pages. It includes a 522MB
//! mapping file that maps MD5-encoded keywords to proper locations in the search index. The search index
//! itself is approximately 18.5GB, divided into 8 partitions. For each keyword in an input query, a binary
//! search is first performed on the mapping file and then the search index is accessed following a
//! sequential access pattern. Multiple prefetching streams on the search index are accessed for each
//! multi-keyword query. The search query words in our test workload are based on a trace recorded at the
//! Ask Jeeves online site in early 2002." §2: "the index searching server needs to produce the
//! intersection of multiple sequential keyword indexes when answering multi-keyword queries". Table 1:
//! not whole-file access, multiple streams per request, 19.0 GB in total. Each request is one handler
//! thread that exits when the request ends (§4.1, "the server spawns a thread to process it"). §4.3
//! measures it with 512 MB of memory and a 512 KB prefetching depth.
//!
//! The dataset is 9 files laid out in this order: `FileId(0)` the mapping file, `FileId(1..=8)` the
//! partitions. A request (a query) has `k` keywords. For each keyword in turn it binary-searches the
//! mapping file (dependent one-page reads at the probe points), then it reads the keywords' posting lists
//! as `k` interleaved sequential streams, each in the partition that holds it.
//!
//! The paper is silent on everything else; pagelab's choices, fixed (a `key=value` overrides those marked
//! *key*):
//!
//! - **Units.** Table 1 writes 6000 files of 4 MB as "24.0GB", so its GB is 1000 binary MB: the mapping
//!   file is 522 MiB, the index 18,500 MiB (8 partitions of 2312.5 MiB, 592,000 pages each), 19,022 MiB in
//!   all — Table 1's "19.0GB".
//! - **Mapping entries: 32 bytes.** An entry holds the 16-byte MD5 of the keyword and where its list is:
//!   a partition, an offset (beyond 4 GiB within a partition needs 8 bytes) and a length — 16 + 8 + 4 +
//!   the partition, padded to 32 (a 16-byte entry would hold the key and nothing else). 522 MiB / 32 B =
//!   17,104,896 entries: a vocabulary of 17 million terms for 12.6 million pages, as Web crawls have (most
//!   "terms" occur once). A binary search makes at most ⌊log2 17,104,896⌋ + 1 = 25 probes.
//! - **Probe reads: one page.** A probe reads one entry, but the page cache reads whole pages; pagelab's
//!   reads are page-granular, so a probe reads the 4 KiB page holding its entry. The last ~7 probes of a
//!   search fall in one page (128 entries a page): a probe in the page the previous probe read is not
//!   issued again — the server has the page in hand, and Linux marks a page accessed once for successive
//!   reads of it (`do_generic_mapping_read`'s `prev_index` test), so it would change nothing but the step
//!   count. About 18 page reads a keyword remain (18.05, measured in the tests). The top of the search
//!   tree is shared: the first probe's page is read by every keyword, the 13th level's 4,096 pages each by
//!   one keyword in 4,096 — hot pages a cache keeps — while the deeper probes are random reads: the
//!   mapping file is the workload's random part.
//! - **Where a keyword is.** An MD5 key sorts to an effectively random place: a term's entry is a hash of
//!   its rank (splitmix64 of the dataset seed and the rank) modulo the entry count. Its posting list is in
//!   one partition (a term-partitioned index: "maps ... keywords to proper locations"), chosen uniformly
//!   from the dataset seed as a hash would; the lists queried in a partition lie at seeded random,
//!   non-overlapping places within it, the space between them being the lists of the 16.6 million
//!   vocabulary terms no query uses.
//! - **Query terms** (*key* `terms`, default 500,000): the distinct terms the query trace uses, drawn by
//!   popularity rank. The paper gives neither the trace's length nor its vocabulary; 500,000 is pagelab's
//!   estimate for a trace of a few million queries, and under the length model below its lists occupy
//!   ≈ 11 GiB of the 18.5 GB index — most of the index, not all of it (most of the vocabulary is never
//!   queried).
//! - **Popularity** (*key* `zipf`, default 1.0): query-term frequencies in Web search logs of the time are
//!   Zipf-like (reported exponents range from about 0.6 to 1.2 with the log and the fit); 1.0 is Zipf's
//!   law itself. Sampling is `rand_distr::Zipf` (rejection-inversion, constant memory).
//! - **Keywords per query** (*key* `keywords`, default `web`): `web` draws 1–8 keywords with
//!   probabilities 32.5, 32.7, 18.9, 8.0, 4.0, 2.0, 1.0 and 0.9 %, mean 2.33: Web queries of 1997–2002
//!   average 2.3–2.6 terms (AltaVista 1998: 2.35, Silverstein et al., SIGIR Forum 1999; Excite 1997 and
//!   2001: 2.4–2.6, Spink et al.), about a third of them one term, a third two, a fifth three. `keywords=N`
//!   gives every query exactly `N` (1 to 16). A query's keywords are distinct terms (redrawn when a draw
//!   repeats one; after 64 draws a keyword takes the most popular term not yet in the query, which only a
//!   very large exponent ever needs).
//! - **Posting-list length** (*key* `list_max`, default 8 MiB): the list of the term of popularity rank `r`
//!   is `list_max × r^-0.5` rounded to whole pages (at least one). Popular query terms are common words,
//!   whose lists are long: 18.5 GB over 12.6 million pages is ~1.5 KB of index per page — ~6 bytes per
//!   posting for a few hundred distinct terms a page — so a term in 10 % of the pages has a list of ~7 MB,
//!   and 8 MiB is the most popular term's. The square root makes the correlation partial (many popular
//!   query terms — names, titles — are rarer in pages than in queries): rank 100 has 0.8 MiB (a term in
//!   ~1 % of pages), rank 10,000 80 KiB, rank 500,000 12 KiB. A keyword's list is read whole, so its
//!   stream is its list; the mean is ≈ 1.5 MiB a keyword and ≈ 3.4 MiB a query (measured in the tests),
//!   on the scale of the microbenchmarks' One-Rand (2 MiB) and Two-Rand (4 MiB).
//! - **Read size** (*key* `block`, default 64 KiB): the paper's microbenchmarks' read size, so that a
//!   two-keyword query is Two-Rand's pattern over the real dataset. The last read of a list stops at its end.
//! - **Interleaving** (*key* `interleave`, default `merge`): the intersection reads every list in document
//!   order, so a list advances in proportion to its length: the next read is of the list whose read
//!   fraction is smallest (block `j` of a list of `n` blocks is read when the merge reaches `j / n` of the
//!   document range; ties go to the earlier keyword). Two lists of equal length alternate block by block,
//!   as Two-Rand's files do; every stream stays open until the query ends, which is the multi-stream
//!   memory pressure §2 describes. `interleave=round-robin` alternates one block from each list still
//!   unfinished (Two-Rand's rule: short lists end early).
//! - **Dataset seed.** Partitions, places and entries come from a constant seed ([`DATASET_SEED`]), not the
//!   run's `--seed`: every policy and run sees the same index (`--seed` varies only the queries).
//! - **CPU.** None beyond the simulator's per-page processing cost, as for the microbenchmarks.
//!
//! Two keywords whose lists are in the same partition read one file: the simulator keeps one readahead
//! state per (handler, file), as Linux keeps one per open file, so the two streams share it — as they would
//! in a server that opens each partition once per thread.

use super::pattern::compact_bytes;
use super::{RequestProgram, Step, Workload, ZipfRanks};
use crate::error::SimError;
use pagelab_core::spec::Spec;
use pagelab_core::units::fmt_f64;
use pagelab_core::{FileId, PAGE_SIZE_BYTES};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// "a 522MB mapping file".
pub const MAPPING_BYTES: u64 = 522 << 20;
/// A mapping entry: a 16-byte MD5 key and the list's place, padded (see the module doc).
pub const ENTRY_BYTES: u64 = 32;
pub const MAPPING_ENTRIES: u64 = MAPPING_BYTES / ENTRY_BYTES;
/// "divided into 8 partitions".
pub const PARTITIONS: u64 = 8;
/// "approximately 18.5GB", GB = 1000 MiB as in Table 1.
pub const INDEX_BYTES: u64 = 18_500 << 20;
pub const PARTITION_PAGES: u64 = INDEX_BYTES / PARTITIONS / PAGE_SIZE_BYTES;
pub const TERMS_DEFAULT: u64 = 500_000;
/// Most terms a `terms=` may ask for: laying the index out takes ~8.5 bytes a term (`place_lists`), 72 MB
/// here, within the 160 MiB a spec may take (`fuzzing::HEAP_BOUND_BYTES`); at the default `list_max` the
/// lists of more than ~1.3 million terms do not fit the partitions anyway.
pub const TERMS_MAX: u64 = 1 << 23;
/// A place packs the partition above this bit and the start page below it (`PARTITION_PAGES < 2^29`).
const PARTITION_SHIFT: u32 = 29;
const _: () = assert!(PARTITION_PAGES < 1 << PARTITION_SHIFT);
pub const ZIPF_DEFAULT: f64 = 1.0;
pub const BLOCK_DEFAULT_BYTES: u64 = 64 << 10;
/// The posting list of the most popular term.
pub const LIST_MAX_DEFAULT_BYTES: u64 = 8 << 20;
/// A list's length falls as `rank^-LIST_EXPONENT`.
pub const LIST_EXPONENT: f64 = 0.5;
/// `keywords=web`: P(1 keyword), P(2), ... P(8), per mille (see the module doc).
pub const KEYWORDS_WEB_PER_MILLE: [u32; 8] = [325, 327, 189, 80, 40, 20, 10, 9];
/// The most keywords `keywords=N` may give a query (a bound on the streams a handler opens).
pub const KEYWORDS_MAX: u32 = 16;
/// The constant seed of the index's layout ("askjeevs" in ASCII).
pub const DATASET_SEED: u64 = 0x6173_6b6a_6565_7673;
/// Zipf draws per keyword before the most popular unused term is taken (see the module doc).
const DRAWS_PER_KEYWORD_MAX: u32 = 64;
/// The most probes a binary search over `MAPPING_ENTRIES` makes is 25; this bounds the loop for any count.
const PROBES_MAX: u32 = 64;

pub const KEYS: [&str; 6] = ["terms", "zipf", "keywords", "block", "list_max", "interleave"];

/// How many keywords a query has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keywords {
    /// Drawn from [`KEYWORDS_WEB_PER_MILLE`].
    Web,
    Fixed(u32),
}

impl Keywords {
    fn most(self) -> u32 {
        match self {
            Keywords::Web => KEYWORDS_WEB_PER_MILLE.len() as u32,
            Keywords::Fixed(n) => n,
        }
    }
}

/// The order of a query's reads among its lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interleave {
    /// Each list in proportion to its length (document order), see the module doc.
    Merge,
    /// One block of each unfinished list in turn.
    RoundRobin,
}

/// Where a queried term's posting list lies (stored packed: [`PARTITION_SHIFT`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    /// 0-based; the file is `FileId(1 + partition)`.
    partition: u8,
    start_page: u32,
}

/// The index-search workload (see the module doc).
pub struct IndexSearch {
    terms: u64,
    zipf_alpha: f64,
    keywords: Keywords,
    block_bytes: u64,
    list_max_bytes: u64,
    interleave: Interleave,
    /// The mapping file, then the partitions.
    file_pages: Vec<u64>,
    /// The list of the term of rank `r` (1-based) is at `places[r - 1]`, packed ([`IndexSearch::place`]).
    places: Vec<u32>,
    zipf: ZipfRanks,
}

/// One posting list being read.
#[derive(Clone, Copy, Debug)]
struct Stream {
    file: FileId,
    start_bytes: u64,
    len_bytes: u64,
    blocks: u64,
    done: u64,
}

impl IndexSearch {
    /// `index-search:terms=N,zipf=A,keywords=web|N,block=SIZE,list_max=SIZE,interleave=merge|round-robin`.
    pub fn from_spec(spec: &Spec) -> Result<IndexSearch, SimError> {
        let e = SimError::Core;
        let terms = spec.u64("terms", TERMS_DEFAULT).map_err(e)?;
        let zipf_alpha = spec.f64("zipf", ZIPF_DEFAULT).map_err(e)?;
        let keywords = match spec.string("keywords").as_deref() {
            None | Some("web") => Keywords::Web,
            Some(n) => match n.parse::<u32>() {
                Ok(n) if (1..=KEYWORDS_MAX).contains(&n) => Keywords::Fixed(n),
                _ => {
                    return Err(SimError::invalid(
                        format!("keywords=`{n}`"),
                        format!("expected web or a whole number from 1 to {KEYWORDS_MAX}"),
                    ))
                }
            },
        };
        let block_bytes = spec.bytes("block", BLOCK_DEFAULT_BYTES).map_err(e)?;
        let list_max_bytes = spec.bytes("list_max", LIST_MAX_DEFAULT_BYTES).map_err(e)?;
        let interleave = match spec.string("interleave").as_deref() {
            None | Some("merge") => Interleave::Merge,
            Some("round-robin") => Interleave::RoundRobin,
            Some(other) => {
                return Err(SimError::invalid(
                    format!("interleave=`{other}`"),
                    "expected merge or round-robin",
                ))
            }
        };
        spec.finish(&KEYS).map_err(e)?;
        IndexSearch::new(terms, zipf_alpha, keywords, block_bytes, list_max_bytes, interleave)
    }

    pub fn new(
        terms: u64,
        zipf_alpha: f64,
        keywords: Keywords,
        block_bytes: u64,
        list_max_bytes: u64,
        interleave: Interleave,
    ) -> Result<IndexSearch, SimError> {
        if !(1..=TERMS_MAX).contains(&terms) {
            return Err(SimError::invalid(format!("terms={terms}"), format!("expected 1 to {TERMS_MAX}")));
        }
        if u64::from(keywords.most()) > terms {
            return Err(SimError::invalid(
                format!("terms={terms}"),
                format!("expected at least as many terms as a query's keywords ({})", keywords.most()),
            ));
        }
        let zipf = ZipfRanks::new(terms, zipf_alpha)?;
        let page = PAGE_SIZE_BYTES;
        if block_bytes == 0 || !block_bytes.is_multiple_of(page) {
            return Err(SimError::invalid(
                format!("block ({block_bytes} B)"),
                format!("expected a positive multiple of the {page} B page"),
            ));
        }
        if list_max_bytes == 0
            || !list_max_bytes.is_multiple_of(page)
            || list_max_bytes > PARTITION_PAGES * page
        {
            return Err(SimError::invalid(
                format!("list_max ({list_max_bytes} B)"),
                format!(
                    "expected a positive multiple of the {page} B page, at most a partition's {} B",
                    PARTITION_PAGES * page
                ),
            ));
        }
        let list_max_pages = list_max_bytes / page;
        let places = place_lists(terms, list_max_pages).map_err(|(partition, used)| {
            SimError::invalid(
                format!("terms={terms}, list_max={}", compact_bytes(list_max_bytes)),
                format!(
                    "expected the queried terms' posting lists to fit the partitions: partition {partition} \
                     would hold {used} pages of them, more than its {PARTITION_PAGES}"
                ),
            )
        })?;
        let mut file_pages = vec![MAPPING_BYTES / page];
        file_pages.extend([PARTITION_PAGES; PARTITIONS as usize]);
        Ok(IndexSearch {
            terms,
            zipf_alpha,
            keywords,
            block_bytes,
            list_max_bytes,
            interleave,
            file_pages,
            places,
            zipf,
        })
    }

    /// Where the rank-`rank` term's list is.
    fn place(&self, rank: u64) -> Place {
        let packed = self.places[(rank - 1) as usize];
        Place {
            partition: (packed >> PARTITION_SHIFT) as u8,
            start_page: packed & ((1 << PARTITION_SHIFT) - 1),
        }
    }

    fn list_pages(&self, rank: u64) -> u64 {
        list_pages(self.list_max_bytes / PAGE_SIZE_BYTES, rank)
    }

    fn draw_keywords(&self, rng: &mut ChaCha8Rng) -> u32 {
        match self.keywords {
            Keywords::Fixed(n) => n,
            Keywords::Web => {
                let mut x = rng.gen_range(0..1000);
                for (i, &p) in KEYWORDS_WEB_PER_MILLE.iter().enumerate() {
                    if x < p {
                        return i as u32 + 1;
                    }
                    x -= p;
                }
                KEYWORDS_WEB_PER_MILLE.len() as u32
            }
        }
    }

    /// `k` distinct term ranks (1-based), Zipf-drawn (see the module doc). `k <= terms`.
    fn draw_terms(&self, k: u32, rng: &mut ChaCha8Rng) -> Vec<u64> {
        let k = k as usize;
        let mut chosen: Vec<u64> = Vec::with_capacity(k);
        for _ in 0..k as u32 * DRAWS_PER_KEYWORD_MAX {
            if chosen.len() == k {
                return chosen;
            }
            let rank = self.zipf.draw(rng);
            if !chosen.contains(&rank) {
                chosen.push(rank);
            }
        }
        for rank in 1..=self.terms {
            if chosen.len() == k {
                break;
            }
            if !chosen.contains(&rank) {
                chosen.push(rank);
            }
        }
        chosen
    }

    /// The program of a query for the terms of these ranks: the binary searches, then the lists.
    fn program(&self, ranks: &[u64]) -> RequestProgram {
        let mut steps = Vec::new();
        let mut pages = Vec::with_capacity(PROBES_MAX as usize);
        for &rank in ranks {
            probe_pages(entry_of(rank), &mut pages);
            steps.extend(pages.iter().map(|&p| Step::Read {
                file: FileId(0),
                offset_bytes: p * PAGE_SIZE_BYTES,
                len_bytes: PAGE_SIZE_BYTES,
            }));
        }
        let mut streams: Vec<Stream> = ranks
            .iter()
            .map(|&rank| {
                let place = self.place(rank);
                let len_bytes = self.list_pages(rank) * PAGE_SIZE_BYTES;
                Stream {
                    file: FileId(1 + u32::from(place.partition)),
                    start_bytes: u64::from(place.start_page) * PAGE_SIZE_BYTES,
                    len_bytes,
                    blocks: len_bytes.div_ceil(self.block_bytes),
                    done: 0,
                }
            })
            .collect();
        let reads: u64 = streams.iter().map(|s| s.blocks).sum();
        let mut next = 0; // round-robin: where the next turn starts
        for _ in 0..reads {
            let unfinished = |i: &usize| streams[*i].done < streams[*i].blocks;
            let i = match self.interleave {
                // The smallest fraction read, done_i / blocks_i, compared exactly; ties to the earlier list.
                Interleave::Merge => (0..streams.len()).filter(unfinished).reduce(|a, b| {
                    let (sa, sb) = (&streams[a], &streams[b]);
                    if u128::from(sb.done) * u128::from(sa.blocks)
                        < u128::from(sa.done) * u128::from(sb.blocks)
                    {
                        b
                    } else {
                        a
                    }
                }),
                Interleave::RoundRobin => (next..streams.len()).chain(0..next).find(unfinished),
            }
            .expect("a read left means an unfinished stream");
            next = (i + 1) % streams.len();
            let s = &mut streams[i];
            let offset = s.done * self.block_bytes;
            steps.push(Step::Read {
                file: s.file,
                offset_bytes: s.start_bytes + offset,
                len_bytes: self.block_bytes.min(s.len_bytes - offset),
            });
            s.done += 1;
        }
        RequestProgram { steps }
    }
}

/// Pages of the rank-`rank` term's list: `list_max_pages × rank^-0.5`, rounded, at least one.
fn list_pages(list_max_pages: u64, rank: u64) -> u64 {
    ((list_max_pages as f64) * (rank as f64).powf(-LIST_EXPONENT)).round().max(1.0) as u64
}

/// The mapping entry of the rank-`rank` term: where its MD5 key sorts, a hash (see the module doc).
fn entry_of(rank: u64) -> u64 {
    splitmix64(DATASET_SEED ^ rank) % MAPPING_ENTRIES
}

/// SplitMix64's output function: a well-mixed 64-bit hash.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The mapping-file pages a binary search for entry `target` reads, in order, into `out` (cleared):
/// one per probe, a probe in the page the previous probe read not repeated (see the module doc).
fn probe_pages(target: u64, out: &mut Vec<u64>) {
    out.clear();
    let (mut lo, mut hi) = (0, MAPPING_ENTRIES);
    for _ in 0..PROBES_MAX {
        if lo >= hi {
            break;
        }
        let mid = lo + (hi - lo) / 2;
        let page = mid * ENTRY_BYTES / PAGE_SIZE_BYTES;
        if out.last() != Some(&page) {
            out.push(page);
        }
        match mid.cmp(&target) {
            std::cmp::Ordering::Equal => break,
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
}

/// Each queried term's place, packed (see [`PARTITION_SHIFT`] and the module doc), or the first
/// partition whose lists do not fit, with the pages they need. `terms <= TERMS_MAX`. The heap it takes is
/// 4 bytes a term for the places, 4 for the ranks grouped by partition, and 4 for one partition's gaps.
fn place_lists(terms: u64, list_max_pages: u64) -> Result<Vec<u32>, (u64, u64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(DATASET_SEED);
    let n = PARTITIONS as usize;
    // Each term's partition, kept in `places` until its place replaces it, and each partition's load.
    let mut places: Vec<u32> = Vec::with_capacity(terms as usize);
    let (mut used, mut count) = ([0u64; PARTITIONS as usize], [0usize; PARTITIONS as usize]);
    for rank in 1..=terms {
        let partition = rng.gen_range(0..n);
        places.push(partition as u32);
        used[partition] += list_pages(list_max_pages, rank);
        count[partition] += 1;
    }
    if let Some(partition) = used.iter().position(|&u| u > PARTITION_PAGES) {
        return Err((partition as u64, used[partition]));
    }
    // The ranks grouped by partition (a counting sort).
    let mut first = [0usize; PARTITIONS as usize + 1];
    for p in 0..n {
        first[p + 1] = first[p] + count[p];
    }
    let mut ranks = vec![0u32; terms as usize];
    let mut next = first;
    for (i, &partition) in places.iter().enumerate() {
        ranks[next[partition as usize]] = i as u32 + 1;
        next[partition as usize] += 1;
    }
    for partition in 0..n {
        // The lists in a random order, the free pages split into random gaps between them: the gaps
        // before each list are the sorted uniform points in 0..=free (spacings of uniform order statistics).
        let members = &mut ranks[first[partition]..first[partition + 1]];
        members.shuffle(&mut rng);
        // Every page count here is below PARTITION_PAGES (592,000), so u32 holds it.
        let free = (PARTITION_PAGES - used[partition]) as u32;
        let mut gaps: Vec<u32> = (0..members.len()).map(|_| rng.gen_range(0..=free)).collect();
        gaps.sort_unstable();
        let mut lists_before = 0;
        for (&rank, &gap) in members.iter().zip(&gaps) {
            let start_page = gap + lists_before;
            places[(rank - 1) as usize] = (partition as u32) << PARTITION_SHIFT | start_page;
            lists_before += list_pages(list_max_pages, u64::from(rank)) as u32;
        }
    }
    Ok(places)
}

impl Workload for IndexSearch {
    /// The paper's testbed disk class (papers/000 §4: "a 36.4GB IBM 10KRPM SCSI drive"), which holds the
    /// dataset; the shared default (the 9.1 GB Cheetah 9LP) does not.
    fn default_device(&self) -> Option<&'static str> {
        Some(crate::device::spec::ULTRASTAR)
    }

    fn describe(&self) -> String {
        let keywords = match self.keywords {
            Keywords::Web => "web".to_string(),
            Keywords::Fixed(n) => n.to_string(),
        };
        let interleave = match self.interleave {
            Interleave::Merge => "merge",
            Interleave::RoundRobin => "round-robin",
        };
        format!(
            "index-search:terms={},zipf={},keywords={keywords},block={},list_max={},interleave={interleave}",
            self.terms,
            fmt_f64(self.zipf_alpha),
            compact_bytes(self.block_bytes),
            compact_bytes(self.list_max_bytes)
        )
    }

    fn file_pages(&self) -> &[u64] {
        &self.file_pages
    }

    fn next_request(&mut self, _slot: u32, rng: &mut ChaCha8Rng) -> Option<RequestProgram> {
        let k = self.draw_keywords(rng);
        let ranks = self.draw_terms(k, rng);
        Some(self.program(&ranks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper() -> IndexSearch {
        IndexSearch::from_spec(&Spec::parse("index-search").unwrap()).unwrap()
    }

    #[test]
    fn dataset_matches_the_papers_figures() {
        let w = paper();
        let pages = w.file_pages();
        let mib = |p: u64| (p * PAGE_SIZE_BYTES) >> 20;
        assert_eq!(pages.len(), 9, "the mapping file and 8 partitions");
        assert_eq!(mib(pages[0]), 522);
        assert!(pages[1..].iter().all(|&p| p == 592_000), "{pages:?}");
        // 18.5 GB of index, 19.0 GB in all (GB = 1000 MiB as in Table 1), within 0.5 %.
        let index_mib = pages[1..].iter().map(|&p| p as f64 * 4096.0 / 1048576.0).sum::<f64>();
        assert!((index_mib / 18_500.0 - 1.0).abs() < 0.005, "{index_mib}");
        let total_mib = mib(pages.iter().sum());
        assert!((total_mib as f64 / 19_000.0 - 1.0).abs() < 0.005, "{total_mib}");
        assert_eq!(MAPPING_ENTRIES, 17_104_896);
        // The queried lists fit their partitions, without overlapping.
        let mut per_partition: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 8];
        for rank in 1..=w.terms {
            let place = w.place(rank);
            per_partition[place.partition as usize].push((u64::from(place.start_page), w.list_pages(rank)));
        }
        for (p, lists) in per_partition.iter_mut().enumerate() {
            lists.sort_unstable();
            assert!(lists.windows(2).all(|l| l[0].0 + l[0].1 <= l[1].0), "partition {p} overlaps");
            let last = lists.last().unwrap();
            assert!(last.0 + last.1 <= PARTITION_PAGES);
            let used: u64 = lists.iter().map(|l| l.1).sum();
            eprintln!("partition {p}: {} queried lists, {} MiB of them", lists.len(), mib(used));
        }
        let queried_gib: f64 = (1..=w.terms).map(|r| w.list_pages(r)).sum::<u64>() as f64 / 262_144.0;
        eprintln!("queried lists: {queried_gib:.2} GiB");
        assert!((8.0..14.0).contains(&queried_gib), "{queried_gib}");
    }

    #[test]
    fn binary_search_probes_narrow_to_the_entry() {
        let mut pages = Vec::new();
        let middle_page = MAPPING_ENTRIES / 2 * ENTRY_BYTES / PAGE_SIZE_BYTES;
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let targets = [0, 1, MAPPING_ENTRIES / 2, MAPPING_ENTRIES - 1].into_iter();
        for target in targets.chain((0..500).map(|_| rng.gen_range(0..MAPPING_ENTRIES))) {
            probe_pages(target, &mut pages);
            assert_eq!(pages[0], middle_page, "the first probe is the middle entry");
            assert_eq!(*pages.last().unwrap(), target * ENTRY_BYTES / PAGE_SIZE_BYTES, "ends at the entry");
            assert!(pages.len() <= 25, "{} probes", pages.len());
            assert!(pages.windows(2).all(|p| p[0] != p[1]));
            // The interval halves: each step between probes is at most half the one before (a page of
            // rounding either way).
            let steps: Vec<u64> = pages.windows(2).map(|p| p[0].abs_diff(p[1])).collect();
            assert!(steps.windows(2).all(|s| s[1] <= s[0] / 2 + 2), "{target}: {pages:?}");
        }
    }

    #[test]
    fn a_query_searches_the_mapping_file_then_interleaves_its_lists() {
        let w = paper();
        let ranks = [1, 7, 300];
        let r = w.program(&ranks).reads();
        let probes = r.iter().take_while(|x| x.0 == 0).count();
        let mut expected_probes = Vec::new();
        let mut pages = Vec::new();
        for &rank in &ranks {
            probe_pages(entry_of(rank), &mut pages);
            expected_probes.extend(pages.iter().map(|&p| (0, p * 4096, 4096)));
        }
        assert_eq!(r[..probes], expected_probes[..], "the binary searches first, in keyword order");
        let lists = &r[probes..];
        assert!(lists.iter().all(|x| (1..=8).contains(&x.0)), "then only the partitions");
        // Each keyword's stream: in its partition, sequential from its list's start, the list whole.
        let mut seen = 0;
        for &rank in &ranks {
            let place = w.place(rank);
            let start = u64::from(place.start_page) * 4096;
            let len = w.list_pages(rank) * 4096;
            let mine: Vec<_> = lists
                .iter()
                .filter(|x| x.0 == 1 + u32::from(place.partition) && (start..start + len).contains(&x.1))
                .collect();
            let mut at = start;
            for &&(_, offset, bytes) in &mine {
                assert_eq!(offset, at, "rank {rank}: sequential");
                at += bytes;
            }
            assert_eq!(at, start + len, "rank {rank}: the whole list");
            seen += mine.len();
        }
        assert_eq!(seen, lists.len());
        // Interleaved: the stream changes between consecutive reads while more than one is open.
        let switches = lists.windows(2).filter(|x| x[0].0 != x[1].0 || x[0].1 + x[0].2 != x[1].1).count();
        assert!(switches >= 2 * (w.list_pages(300) * 4096).div_ceil(64 << 10) as usize - 1, "{switches}");
    }

    #[test]
    fn merge_reads_lists_in_proportion_and_round_robin_in_turn() {
        let order = |interleave: Interleave, ranks: &[u64]| {
            let mut w = paper();
            w.interleave = interleave;
            let r = w.program(ranks).reads();
            let starts: Vec<(u32, u64)> = ranks
                .iter()
                .map(|&k| {
                    let p = w.place(k);
                    (1 + u32::from(p.partition), u64::from(p.start_page) * 4096)
                })
                .collect();
            let lens: Vec<u64> = ranks.iter().map(|&k| w.list_pages(k) * 4096).collect();
            r.iter()
                .filter(|x| x.0 != 0)
                .map(|x| {
                    (0..ranks.len())
                        .find(|&i| x.0 == starts[i].0 && (starts[i].1..starts[i].1 + lens[i]).contains(&x.1))
                        .unwrap()
                })
                .collect::<Vec<usize>>()
        };
        // Ranks 4 and 16 have lists of 4 MiB and 2 MiB (64 and 32 blocks).
        let w = paper();
        assert_eq!((w.list_pages(4), w.list_pages(16)), (1024, 512));
        let merge = order(Interleave::Merge, &[4, 16]);
        assert_eq!(merge[..6], [0, 1, 0, 0, 1, 0]);
        assert_eq!(*merge.last().unwrap(), 0);
        // Merge: both lists stay open to the end; round-robin: the short list ends at the half.
        let last_of_short = |o: &[usize]| o.iter().rposition(|&i| i == 1).unwrap();
        assert!(last_of_short(&merge) >= merge.len() - 3);
        let rr = order(Interleave::RoundRobin, &[4, 16]);
        assert_eq!(rr[..6], [0, 1, 0, 1, 0, 1]);
        assert_eq!(last_of_short(&rr), 63);
        // Equal lengths (20 pages, 2 blocks each) alternate under both rules.
        assert_eq!(w.list_pages(10_000), w.list_pages(10_001));
        assert_eq!(order(Interleave::Merge, &[10_000, 10_001]), [0, 1, 0, 1]);
        assert_eq!(order(Interleave::RoundRobin, &[10_000, 10_001]), [0, 1, 0, 1]);
    }

    #[test]
    fn queries_are_deterministic_for_a_seed() {
        let run = |seed: u64| {
            let mut w = paper();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..100).map(|_| w.next_request(0, &mut rng).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
        // The dataset does not depend on the run.
        assert_eq!(paper().places, paper().places);
    }

    #[test]
    fn query_statistics() {
        let w = paper();
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let queries = 20_000;
        let (mut keywords, mut probes, mut list_bytes) = (0u64, 0u64, 0u64);
        let mut histogram = [0u64; 9];
        for _ in 0..queries {
            let k = w.draw_keywords(&mut rng);
            let ranks = w.draw_terms(k, &mut rng);
            assert_eq!(ranks.len(), k as usize);
            let r = w.program(&ranks).reads();
            keywords += u64::from(k);
            histogram[k as usize] += 1;
            probes += r.iter().filter(|x| x.0 == 0).count() as u64;
            list_bytes += r.iter().filter(|x| x.0 != 0).map(|x| x.2).sum::<u64>();
        }
        let streams = keywords as f64 / queries as f64;
        let probes_per_keyword = probes as f64 / keywords as f64;
        let mib_per_query = list_bytes as f64 / queries as f64 / 1048576.0;
        eprintln!(
            "index-search: {streams:.3} streams/query, {probes_per_keyword:.2} probe reads/keyword, \
             {mib_per_query:.2} MiB of lists/query, keywords histogram {histogram:?}"
        );
        assert!((streams - 2.33).abs() < 0.05, "{streams}");
        assert!((14.0..=25.0).contains(&probes_per_keyword), "{probes_per_keyword}");
        assert!((2.5..5.0).contains(&mib_per_query), "{mib_per_query}");
        assert!(histogram[1] > histogram[3] && histogram[2] > histogram[3] && histogram[8] > 0);
    }

    #[test]
    fn term_popularity_is_zipf() {
        let w = paper();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let draws = 200_000;
        let mut counts = vec![0u32; w.terms as usize + 1];
        for _ in 0..draws {
            counts[w.draw_terms(1, &mut rng)[0] as usize] += 1;
        }
        let harmonic: f64 = (1..=w.terms).map(|r| 1.0 / r as f64).sum();
        let expected = draws as f64 / harmonic;
        assert!((counts[1] as f64 / expected - 1.0).abs() < 0.05, "rank 1: {} of {expected:.0}", counts[1]);
        assert_eq!(counts[1], *counts.iter().max().unwrap());
        // Rank 10 is drawn about a tenth as often; the 100 terms around the median rank together far less.
        assert!((counts[10] as f64 / counts[1] as f64 - 0.1).abs() < 0.02, "rank 10: {}", counts[10]);
        let median: u32 = counts[w.terms as usize / 2..][..100].iter().sum();
        assert!(median * 50 < counts[1], "median terms {median}, rank 1 {}", counts[1]);
        // A query's keywords are distinct even when one term takes nearly every draw.
        let steep =
            IndexSearch::new(100, 8.0, Keywords::Fixed(16), 64 << 10, 8 << 20, Interleave::Merge).unwrap();
        let mut ranks = steep.draw_terms(16, &mut rng);
        ranks.sort_unstable();
        ranks.dedup();
        assert_eq!(ranks.len(), 16);
    }

    #[test]
    fn parameters_and_their_errors() {
        let w = IndexSearch::from_spec(
            &Spec::parse("index-search:terms=1000,zipf=0.8,keywords=3,block=16KiB,interleave=round-robin")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            w.describe(),
            "index-search:terms=1000,zipf=0.8,keywords=3,block=16KiB,list_max=8MiB,interleave=round-robin"
        );
        assert_eq!(
            paper().describe(),
            "index-search:terms=500000,zipf=1,keywords=web,block=64KiB,list_max=8MiB,interleave=merge"
        );
        let err = |text: &str| {
            IndexSearch::from_spec(&Spec::parse(text).unwrap()).err().expect("refused").to_string()
        };
        assert!(err("index-search:terms=0").starts_with("terms=0: expected 1 to 8388608"));
        assert!(err("index-search:terms=5").contains("at least as many terms as a query's keywords (8)"));
        assert!(err("index-search:keywords=17").starts_with("keywords=`17`: expected web or"));
        assert!(err("index-search:zipf=-0.5").starts_with("zipf=-0.5"));
        assert!(err("index-search:block=6KiB").starts_with("block (6144 B)"));
        assert!(err("index-search:interleave=zip").starts_with("interleave=`zip`"));
        let e = err("index-search:terms=1000000,list_max=1GiB");
        assert!(e.contains("expected the queried terms' posting lists to fit the partitions"), "{e}");
        assert!(err("index-search:files=3").contains("unknown parameter(s) files"));
    }
}
