//! The request record every reader produces.

/// `Request::next_vtime` when the trace does not say (or the object is never referenced again).
pub const NO_NEXT: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Read,
    Write,
    /// Anything else the trace records (flush, discard, ...). Counted, cached like a read.
    Other,
}

/// What a request's `addr` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrUnit {
    /// `addr` is a disk address in units of this many bytes (512 for sector-addressed traces, 1 for
    /// byte offsets); `size_bytes` is the request length. Expands to the pages it covers.
    Bytes(u32),
    /// `addr` is an opaque object (or page) id. With size 0 or `--ignore-size` it is one page; otherwise it
    /// expands to `ceil(size / page)` pages of the object.
    Object,
}

/// One I/O request of a trace, in the trace's own units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Timestamp converted to nanoseconds from the trace's unit; 0 where the trace has none.
    pub time_ns: u64,
    /// Address or object id; see [`AddrUnit`].
    pub addr: u64,
    /// Length in bytes; 0 where the trace has none (then one page / one object).
    pub size_bytes: u32,
    pub op: Op,
    /// Device or volume the address belongs to (MSR disk number, SPC ASU); 0 for single-volume traces.
    pub volume: u32,
    /// Issuing process or stream (blkparse pid); 0 where the trace has none.
    pub stream: u32,
    /// 0-based index (in this trace's request sequence) of the next request to the same object, as
    /// oracle-general traces record it (they count from 1; the reader converts); [`NO_NEXT`] where unknown
    /// or never.
    pub next_vtime: u64,
}

impl Request {
    /// A read of `size_bytes` at `addr` with every optional field empty.
    pub fn read(addr: u64, size_bytes: u32) -> Request {
        Request { time_ns: 0, addr, size_bytes, op: Op::Read, volume: 0, stream: 0, next_vtime: NO_NEXT }
    }
}
