//! The prefetch cache's reclamation orders (papers/000 §3.1 and §4.2): which prefetched page goes first.
//!
//! - `pc-access-history`: the oldest prefetched page (FIFO), the order an access-history policy gives
//!   pages that were never accessed.
//! - `pc-longest`: heuristic #1 (pages of exited owners first), else the last page of the longest stream.
//! - `pc-coldest`: #1, else the last page of the stream whose last access is least recent (wall clock).
//! - `pc-coldest+`: #1, else the last page of the stream whose owner has used the most CPU since it last
//!   accessed the stream.
//! - `pc-optimal`: rule A (pages their owner declared it will not read, oldest first; exited owners will
//!   read nothing), else Coldest+.
//!
//! "The last page" of a stream is its newest: "each stream descriptor points to a list of ordered page
//! descriptors, with newly prefetched page in the tail" (§3.3), and the heuristics "discard the last page".
//!
//! Victims are chosen a run at a time where that changes nothing: taking a stream's pages does not change
//! its coldness (wall or CPU), so Coldest and Coldest+ take up to the whole batch from the chosen stream;
//! Longest takes pages from the longest stream until it is no longer than the second longest, then chooses
//! again. The result is the order page-by-page choice would give.
//!
//! Live streams are scanned from the oldest (the back of their list) to the newest, so every order's ties go
//! to the first met, the oldest stream.

use super::{PrefetchCache, NIL};
use crate::policy::FrameId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReclaimOrder {
    AccessHistory,
    Longest,
    Coldest,
    ColdestPlus,
    Optimal,
}

impl ReclaimOrder {
    pub fn name(self) -> &'static str {
        match self {
            ReclaimOrder::AccessHistory => "pc-access-history",
            ReclaimOrder::Longest => "pc-longest",
            ReclaimOrder::Coldest => "pc-coldest",
            ReclaimOrder::ColdestPlus => "pc-coldest+",
            ReclaimOrder::Optimal => "pc-optimal",
        }
    }
}

/// Why a victim was chosen.
#[derive(Clone, Copy)]
enum Reason {
    Exited,
    Unneeded,
    Ordered,
}

/// Take up to `n` (≥ 1) victims from a non-empty prefetch cache; returns how many (≥ 1).
pub(super) fn take_victims(pc: &mut PrefetchCache, n: u32, out: &mut Vec<FrameId>) -> u32 {
    debug_assert!(n > 0 && pc.pages > 0);
    match pc.order {
        ReclaimOrder::AccessHistory => return take_fifo(pc, n, out, Reason::Ordered),
        ReclaimOrder::Optimal if !pc.fifo.is_empty() => return take_fifo(pc, n, out, Reason::Unneeded),
        _ => {}
    }
    // Heuristic #1: the stream of the owner that exited first.
    if let Some(s) = pc.exited.back() {
        return take_from_stream(pc, s, n, out, Reason::Exited);
    }
    let (s, run) = match pc.order {
        ReclaimOrder::Longest => longest(pc),
        ReclaimOrder::Coldest => (coldest(pc), u32::MAX),
        ReclaimOrder::ColdestPlus | ReclaimOrder::Optimal => (coldest_plus(pc), u32::MAX),
        ReclaimOrder::AccessHistory => unreachable!("handled above"),
    };
    take_from_stream(pc, s, n.min(run), out, Reason::Ordered)
}

/// The oldest pages of the FIFO list.
fn take_fifo(pc: &mut PrefetchCache, n: u32, out: &mut Vec<FrameId>, reason: Reason) -> u32 {
    let mut taken = 0;
    while taken < n {
        let Some(frame) = pc.fifo.back() else { break };
        evict(pc, frame, reason, out);
        taken += 1;
    }
    taken
}

/// Up to `n` of stream `s`'s newest pages (fewer if it empties: it is then gone).
fn take_from_stream(pc: &mut PrefetchCache, s: u32, n: u32, out: &mut Vec<FrameId>, reason: Reason) -> u32 {
    let len = pc.streams[s as usize].pages.len();
    let k = n.min(len);
    for _ in 0..k {
        let frame = pc.streams[s as usize].pages.front().expect("the stream has pages left");
        evict(pc, frame, reason, out);
    }
    k
}

fn evict(pc: &mut PrefetchCache, frame: FrameId, reason: Reason, out: &mut Vec<FrameId>) {
    pc.unlink(frame);
    let stats = &mut pc.stats;
    match reason {
        Reason::Exited => stats.reclaimed_exited += 1,
        Reason::Unneeded => stats.reclaimed_unneeded += 1,
        Reason::Ordered => stats.reclaimed_ordered += 1,
    }
    out.push(frame);
}

/// The longest stream, and how many pages to take before it is no longer than the second longest.
fn longest(pc: &PrefetchCache) -> (u32, u32) {
    let (mut best, mut best_len, mut second_len) = (NIL, 0u32, 0u32);
    for s in pc.stream_links.iter_back(&pc.live) {
        let len = pc.streams[s as usize].pages.len();
        if len > best_len {
            second_len = best_len;
            (best, best_len) = (s, len);
        } else if len > second_len {
            second_len = len;
        }
    }
    assert_ne!(best, NIL, "no live stream to reclaim from");
    (best, (best_len - second_len).max(1))
}

/// The stream least recently accessed by wall clock.
fn coldest(pc: &PrefetchCache) -> u32 {
    let mut best = NIL;
    for s in pc.stream_links.iter_back(&pc.live) {
        if best == NIL || pc.streams[s as usize].last_access < pc.streams[best as usize].last_access {
            best = s;
        }
    }
    assert_ne!(best, NIL, "no live stream to reclaim from");
    best
}

/// The stream whose owner used the most CPU since it last accessed the stream; ties: the coldest by wall.
fn coldest_plus(pc: &PrefetchCache) -> u32 {
    let cpu_since = |s: u32| {
        let stream = &pc.streams[s as usize];
        pc.owners[stream.owner as usize].cpu_ns - stream.cpu_at_access_ns
    };
    let mut best = NIL;
    for s in pc.stream_links.iter_back(&pc.live) {
        let better = best == NIL || {
            let (c, b) = (cpu_since(s), cpu_since(best));
            c > b || (c == b && pc.streams[s as usize].last_access < pc.streams[best as usize].last_access)
        };
        if better {
            best = s;
        }
    }
    assert_ne!(best, NIL, "no live stream to reclaim from");
    best
}
