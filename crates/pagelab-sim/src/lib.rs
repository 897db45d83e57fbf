//! pagelab-sim: the discrete-event simulator of a data-intensive storage server (see DESIGN.md):
//! request handlers, CPU, the buffer cache from `pagelab-core`, prefetching, an I/O scheduler and a
//! device model, all in virtual nanoseconds.

pub mod blk;
pub mod config;
pub mod cpu;
pub mod device;
pub mod error;
pub mod event;
pub mod experiment;
#[doc(hidden)]
pub mod fuzzing;
pub mod io;
pub mod layout;
pub mod metrics;
pub mod sched;
pub mod server;
pub mod stream_stats;
pub mod workload;

pub use error::SimError;
