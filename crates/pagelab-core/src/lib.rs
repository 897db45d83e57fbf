//! pagelab-core: the engine of pagelab, taken out of the kernel.
//!
//! Everything here is a pure, deterministic state machine: no I/O, no threads, no clock, no randomness it
//! does not own. Drivers (the simulator in `pagelab-sim`, the trace-driven tools in `pagelab-cli`, later a
//! live FUSE driver) pass time in explicitly and carry out the decisions the engine returns.
//!
//! Layout (see `docs/ARCHITECTURE.md`):
//! - [`policy`]: replacement policies over resident, already-accessed pages, one file each, behind
//!   [`policy::Replacement`].
//! - [`buffer`]: [`buffer::BufferCache`], the OS buffer cache: policy + prefetcher + in-flight pages under
//!   one memory budget; the contract between the engine and its drivers, with its observer seam.
//! - [`memory`]: the memory model: the kernel's reserve, watermarks, kswapd, direct reclaim, and the
//!   reclaim interface every cache section implements.
//! - [`metadata`]: the file-metadata cache (dentry + inode objects in slab pages), conventional and split
//!   reclaim (papers/004).
//! - [`prefetch`]: what to read ahead (none, Linux on-demand readahead, fixed T-P).
//! - [`cache`]: [`cache::KeyedCache`], a hit/miss cache of opaque 64-bit keys driven by one policy
//!   (what `pagelab cachesim` runs).
//! - [`frames`]: the key → frame table every cache shares, over [`index::BucketIndex`].
//! - [`list`]: intrusive doubly-linked lists over `u32` indices, the building block of the policies.
//! - [`whatif`]: miss-ratio curves (exact stack distances, SHARDS).

pub mod buffer;
pub mod cache;
pub mod error;
pub mod frames;
pub mod hash;
pub mod history;
pub mod index;
pub mod key;
pub mod list;
pub mod memory;
pub mod metadata;
pub mod pcache;
pub mod policy;
pub mod prefetch;
pub mod spec;
pub mod time;
pub mod units;
pub mod whatif;

pub use error::CoreError;
pub use key::{FileId, Lbn, PageKey, StreamId};
pub use time::Nanos;

/// The engine's page size. Traces may be expanded with another page size (`--page-size`), but the buffer
/// cache, its prefetchers and the simulator work in 4 KiB pages, as the papers' Linux kernels did.
pub const PAGE_SIZE_BYTES: u64 = 4096;

/// `n` values of all-zero bytes, allocated zeroed: the system maps the pages on first touch, so per-frame
/// state sized for a large simulated memory costs what a run touches of it (`vec!` writes every value,
/// except for a few primitive types). As `vec!` fails when the memory cannot be had: the allocator's abort,
/// naming the size (the CLI checks first that a memory's frames fit this machine).
pub(crate) fn zeroed_vec<T: bytemuck::Zeroable>(n: usize) -> Vec<T> {
    bytemuck::allocation::try_zeroed_vec(n).unwrap_or_else(|_| {
        std::alloc::handle_alloc_error(std::alloc::Layout::array::<T>(n).expect("a per-frame array's layout"))
    })
}
