//! pagelab-sim: the discrete-event simulator of a data-intensive storage server (see DESIGN.md):
//! request handlers, CPU, the buffer cache from `pagelab-core`, prefetching, an I/O scheduler and a
//! device model, all in virtual nanoseconds.

pub mod io;
