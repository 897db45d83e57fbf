//! What-if analysis: how would the cache behave with a different amount of memory?
//!
//! - [`stack_distance`]: exact LRU stack distances in one pass, hence the exact LRU miss-ratio curve.
//! - [`shards`]: SHARDS spatially-hashed sampling of the same (fixed-rate and fixed-size, with `_adj`).
