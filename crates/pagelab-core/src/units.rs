//! Units on the command line: sizes (`512MiB`, `4KiB`, `1000`, `5%`) and durations (`120s`, `500us`),
//! parsed into bytes and nanoseconds, and printed back with their units. Pure functions: the CLI and every
//! `name:key=value` spec (workloads, devices, schedulers, prefetchers) parse through here.

use crate::error::CoreError;

type Result<T> = std::result::Result<T, CoreError>;

fn bad(what: &'static str, why: String) -> CoreError {
    CoreError::InvalidParameter { what, why }
}

/// Bytes from `4096`, `4KiB`, `64MiB`, `1GiB`, `1.5GB`, `4k` (binary for `k`/`KiB`, decimal for `KB`).
pub fn parse_bytes(text: &str) -> Result<u64> {
    parse_bytes_why(text).map_err(|e| bad("size", format!("`{text}`: {e}")))
}

/// Why a text is not a byte count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BytesError {
    /// Not a number with a known unit; the message says what a size looks like. Only this one may be
    /// replaced by a caller that takes other forms too (pages, a percentage, `true`) with what it expects:
    /// the others are about a value that was understood, and "expected a size" would deny it.
    NotASize(String),
    /// A size, but negative or beyond `u64` bytes.
    OutOfRange,
    /// A size, but not a whole number of bytes (`0.5`, `0.3KiB`).
    NotWholeBytes,
}

impl std::fmt::Display for BytesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BytesError::NotASize(why) => f.write_str(why),
            BytesError::OutOfRange => f.write_str("out of range"),
            BytesError::NotWholeBytes => f.write_str("not a whole number of bytes"),
        }
    }
}

/// [`parse_bytes`], saying whether the text was no size at all or a size whose value does not fit (the
/// message has no quote of the text: the caller quotes it where it fits).
pub fn parse_bytes_why(text: &str) -> std::result::Result<u64, BytesError> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| {
        BytesError::NotASize("expected a number with an optional unit like 4KiB, 64MiB, 1GiB".into())
    })?;
    let scale = byte_unit(unit.trim())?;
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(BytesError::OutOfRange);
    }
    if bytes.fract() != 0.0 {
        return Err(BytesError::NotWholeBytes);
    }
    Ok(bytes as u64)
}

/// Bytes per `unit` (`KiB`, `MB`, ...; ASCII case aside, empty for bytes).
fn byte_unit(unit: &str) -> std::result::Result<f64, BytesError> {
    Ok(match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(BytesError::NotASize(format!(
                "unknown unit `{other}` (expected B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
            )))
        }
    })
}

/// Nanoseconds from `120s`, `500us`, `2.5ms`, `100ns`, `2m`, `1h`. A bare number is an error: the unit matters.
pub fn parse_duration_ns(text: &str) -> Result<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| {
        bad("duration", format!("`{text}`: expected a number with a unit like 120s, 500us, 2.5ms"))
    })?;
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        // Zero is zero in any unit (`--attr-ttl 0`).
        "" if value == 0.0 => return Ok(0),
        "" => return Err(bad("duration", format!("`{text}`: missing unit (ns, us, ms, s, m, h)"))),
        other => {
            return Err(bad(
                "duration",
                format!("`{text}`: unknown unit `{other}` (expected ns, us, ms, s, m, h)"),
            ))
        }
    };
    let ns = value * scale;
    if !ns.is_finite() || ns < 0.0 || ns > u64::MAX as f64 {
        return Err(bad("duration", format!("`{text}`: out of range")));
    }
    Ok(ns.round() as u64)
}

/// A cache size as the user wrote it: pages, bytes, or a percentage of the trace's distinct pages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CacheSize {
    Pages(u64),
    Bytes(u64),
    Percent(f64),
}

impl CacheSize {
    /// `1000` (pages), `64MiB` (bytes), `5%` (of distinct pages).
    pub fn parse(text: &str) -> Result<CacheSize> {
        let t = text.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| bad("cache size", format!("`{text}`: expected a percentage like 5%")))?;
            if !(v > 0.0 && v <= 100.0) {
                return Err(bad("cache size", format!("`{text}`: a percentage must be in (0, 100]")));
            }
            return Ok(CacheSize::Percent(v));
        }
        if t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() {
            let v: u64 = t.parse().map_err(|_| bad("cache size", format!("`{text}`: too large")))?;
            if v == 0 {
                return Err(bad("cache size", format!("`{text}`: a cache needs at least one page")));
            }
            return Ok(CacheSize::Pages(v));
        }
        match parse_bytes_why(t) {
            Ok(bytes) => Ok(CacheSize::Bytes(bytes)),
            // Neither pages nor a percentage nor bytes: say what a cache size looks like.
            Err(BytesError::NotASize(_)) => Err(bad(
                "cache size",
                format!("`{text}`: expected pages (1000), bytes (64MiB) or a percentage (5%)"),
            )),
            // Bytes whose value does not fit: that, not "expected bytes".
            Err(e) => Err(bad("cache size", format!("`{text}`: {e}"))),
        }
    }

    /// Pages, given the page size and the trace's distinct page count (for percentages). At least 1.
    pub fn pages(self, page_size: u64, distinct_pages: u64) -> u64 {
        let p = match self {
            CacheSize::Pages(p) => p,
            CacheSize::Bytes(b) => b / page_size,
            CacheSize::Percent(pct) => ((distinct_pages as f64) * pct / 100.0).round() as u64,
        };
        p.max(1)
    }

    pub fn needs_distinct_count(self) -> bool {
        matches!(self, CacheSize::Percent(_))
    }
}

/// A comma-separated list of sizes.
pub fn parse_sizes(text: &str) -> Result<Vec<CacheSize>> {
    let sizes: Vec<CacheSize> =
        text.split(',').filter(|s| !s.trim().is_empty()).map(CacheSize::parse).collect::<Result<_>>()?;
    if sizes.is_empty() {
        return Err(bad("cache size", "none given: expected e.g. --size 1000,10000,5%,64MiB".into()));
    }
    Ok(sizes)
}

/// Refuses a size in bytes below one page of `page_size` bytes (`0B`, `1B`): it would run as a cache of one
/// page, as the rounding up of [`CacheSize::pages`] makes it, while `0` pages is refused. A size of a
/// page or more is rounded down to whole pages.
pub fn check_sizes_hold_a_page(sizes: &[CacheSize], page_size: u64) -> Result<()> {
    for s in sizes {
        if let CacheSize::Bytes(b) = *s {
            if b < page_size {
                let why = format!(
                    "{b} bytes is less than one page of {page_size} bytes: a cache needs at least one"
                );
                return Err(bad("cache size", why));
            }
        }
    }
    Ok(())
}

/// A float as it parses back (the shortest digits that do), in exponent form outside 1e-6 ≤ |x| < 1e16
/// (`1e-300`, `-1e300`): `{}` writes out the whole fixed-point expansion, 300 digits for `1e-300`, and a
/// user's number echoed in a message or a description must not flood the terminal. Inside that range it
/// is `{}`'s text, so ordinary values print as they always have.
pub fn fmt_f64(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || !a.is_finite() || (1e-6..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// `4.00 KiB`, `512.00 MiB`, ...
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// A count with a metric suffix: `12.3M`, `850`, `1.2k`.
pub fn fmt_count(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.2}G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_every_form() {
        assert_eq!(parse_bytes("4KiB").unwrap(), 4096);
        assert_eq!(parse_bytes("4k").unwrap(), 4096);
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("1.5GB").unwrap(), 1_500_000_000);
        assert_eq!(parse_bytes("100").unwrap(), 100);
        assert!(parse_bytes("12 parsecs").unwrap_err().to_string().contains("unknown unit"));
        assert!(parse_bytes("0.5").is_err());
        assert_eq!(CacheSize::parse("1000").unwrap(), CacheSize::Pages(1000));
        assert_eq!(CacheSize::parse("64MiB").unwrap(), CacheSize::Bytes(64 << 20));
        assert_eq!(CacheSize::parse("5%").unwrap(), CacheSize::Percent(5.0));
        assert!(CacheSize::parse("0").is_err());
        assert!(CacheSize::parse("150%").is_err());
        assert!(CacheSize::parse("12parsecs").unwrap_err().to_string().contains("expected pages (1000)"));
        assert_eq!(CacheSize::Bytes(64 << 20).pages(4096, 0), 16384);
        assert_eq!(CacheSize::Percent(5.0).pages(4096, 1000), 50);
        assert_eq!(CacheSize::Percent(0.01).pages(4096, 10), 1, "never a zero-page cache");
        assert_eq!(parse_sizes("1000, 5%,64MiB").unwrap().len(), 3);
        for below_a_page in ["0B", "1B", "4095B"] {
            let sizes = parse_sizes(&format!("1000,{below_a_page}")).unwrap();
            let e = check_sizes_hold_a_page(&sizes, 4096).unwrap_err().to_string();
            assert!(e.contains("less than one page of 4096 bytes"), "{e}");
        }
        check_sizes_hold_a_page(&parse_sizes("1,4KiB,5%,6KiB").unwrap(), 4096).unwrap();
    }

    /// A size whose number and unit were understood but whose value does not fit says so: the cache size
    /// used to answer "expected pages (1000), bytes (64MiB) or a percentage (5%)" to `99999999999TiB`.
    #[test]
    fn a_size_out_of_range_is_not_called_no_size() {
        let err = |t: &str| CacheSize::parse(t).unwrap_err().to_string();
        assert_eq!(err("99999999999TiB"), "invalid cache size: `99999999999TiB`: out of range");
        assert_eq!(err("0.3KiB"), "invalid cache size: `0.3KiB`: not a whole number of bytes");
        assert_eq!(
            parse_bytes_why("12 parsecs").unwrap_err().to_string(),
            "unknown unit `parsecs` (expected B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
        );
        assert!(matches!(parse_bytes_why("lots"), Err(BytesError::NotASize(_))));
        assert_eq!(
            parse_bytes("99999999999TiB").unwrap_err().to_string(),
            "invalid size: `99999999999TiB`: out of range"
        );
    }

    #[test]
    fn durations_need_units() {
        assert_eq!(parse_duration_ns("120s").unwrap(), 120_000_000_000);
        assert_eq!(parse_duration_ns("500us").unwrap(), 500_000);
        assert_eq!(parse_duration_ns("2.5ms").unwrap(), 2_500_000);
        assert!(parse_duration_ns("120").unwrap_err().to_string().contains("missing unit"));
        assert_eq!(parse_duration_ns("0").unwrap(), 0, "zero needs no unit");
        assert_eq!(parse_duration_ns("0.0").unwrap(), 0);
        assert!(parse_duration_ns("0.5").unwrap_err().to_string().contains("missing unit"));
    }

    /// A user's float echoed back is at most a few dozen characters (`1e-300` used to print 300 digits), and
    /// still parses to the same number.
    #[test]
    fn floats_are_echoed_briefly_and_exactly() {
        for (x, shown) in [(1e-300, "1e-300"), (-1e300, "-1e300"), (0.01, "0.01"), (1.0, "1"), (0.0, "0")] {
            assert_eq!(fmt_f64(x), shown);
        }
        assert_eq!(fmt_f64(60000.0), "60000");
        for x in [1e-300, 5.421010862427522e-20, 0.3333333333333333, 123456.789, f64::MAX, -f64::MIN_POSITIVE]
        {
            let s = fmt_f64(x);
            assert!(s.len() <= 26, "{s}");
            assert_eq!(s.parse::<f64>().unwrap(), x, "{s}");
        }
    }

    #[test]
    fn formatting_shows_units() {
        assert_eq!(fmt_bytes(4096), "4.00 KiB");
        assert_eq!(fmt_bytes(100), "100 B");
        assert_eq!(fmt_count(12_345_678.0), "12.35M");
    }
}
