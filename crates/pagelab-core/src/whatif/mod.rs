//! What-if analysis: how would the cache behave with a different amount of memory?
//!
//! - [`stack_distance`]: exact LRU stack distances in one pass, hence the exact LRU miss-ratio curve.
//! - [`shards`]: SHARDS spatially-hashed sampling of the same (fixed-rate and fixed-size, with `_adj`).
//! - [`engine`]: either of the two behind one interface.
//! - [`mrc`]: the miss-ratio curve both produce, and the mean absolute error between two curves.
//! - [`vec`](mod@vec) and [`memrx`]: MemRx (papers/003): the virtual extended cache of evicted pages and the
//!   performance prediction module, an observer of the buffer cache that predicts runtime and misses at
//!   larger memory sizes from one run.

pub mod engine;
pub mod memrx;
pub mod mrc;
pub mod shards;
pub mod stack_distance;
pub mod vec;

pub use engine::MrcEngine;
pub use memrx::{MemRx, MemRxConfig, PpmMode, Prediction, PredictionStep};
pub use mrc::{evenly_spaced_sizes, mean_absolute_error, MissRatioCurve, MrcStep};
pub use shards::{Shards, ShardsConfig, ShardsMode};
pub use stack_distance::StackDistance;
pub use vec::{VecGeometry, VecMode};
