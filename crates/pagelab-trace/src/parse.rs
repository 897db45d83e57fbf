//! Hand-written field and number parsing for the text formats.
//!
//! The readers parse straight from the bytes of a line in the input buffer: no `str` validation, no
//! allocation, no `FromStr`. Every parser here is strict (no sign, no surrounding spaces unless the caller
//! trims, no scientific notation) and returns `None` rather than guessing, so that a malformed record
//! becomes a [`crate::TraceError::BadRecord`] and never a silently different number.

/// Longest decimal that fits a `u64` (`18446744073709551615` has 20 digits).
const U64_DIGITS_MAX: usize = 20;

/// Fraction digits kept when converting a decimal time: beyond 18 digits the value cannot change a
/// nanosecond count for any unit up to one second (`10^18 · 10^9` still fits in a `u128`).
const FRACTION_DIGITS_MAX: usize = 18;

/// An unsigned decimal integer, all of `s` (`None` on an empty field, any non-digit, or overflow).
#[inline]
pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > U64_DIGITS_MAX {
        return None;
    }
    let mut value: u64 = 0;
    for &b in s {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(digit as u64)?;
    }
    Some(value)
}

/// An unsigned decimal integer that fits a `u32`.
#[inline]
pub(crate) fn parse_u32(s: &[u8]) -> Option<u32> {
    parse_u64(s).and_then(|v| u32::try_from(v).ok())
}

/// A non-negative decimal number `INT[.FRACTION]` (either part may be empty, not both) in units of
/// `unit_ns` nanoseconds, converted to whole nanoseconds (truncated). Exact: the fraction is applied in
/// integer arithmetic, so `0.000001` seconds is exactly 1000 ns.
pub(crate) fn parse_decimal_ns(s: &[u8], unit_ns: u64) -> Option<u64> {
    let (int_part, frac_part) = match memchr::memchr(b'.', s) {
        Some(dot) => (&s[..dot], &s[dot + 1..]),
        None => (s, &s[s.len()..]),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let whole = if int_part.is_empty() { 0 } else { parse_u64(int_part)? };
    let mut total = (whole as u128).checked_mul(unit_ns as u128)?;
    if !frac_part.is_empty() {
        if !frac_part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let kept = &frac_part[..frac_part.len().min(FRACTION_DIGITS_MAX)];
        let numerator = parse_u64(kept)? as u128;
        let denominator = 10u128.pow(kept.len() as u32);
        total += numerator * unit_ns as u128 / denominator;
    }
    u64::try_from(total).ok()
}

/// Exactly `N` unsigned integers of at most 19 digits separated (and optionally surrounded) by spaces and
/// tabs, in one pass; `None` for anything else. A fast path only: callers fall back to the careful field
/// parsers on `None`, which accept what this rejects for speed (20-digit numbers) and explain the rest.
#[inline]
pub(crate) fn blank_separated_u64s<const N: usize>(line: &[u8]) -> Option<[u64; N]> {
    const DIGITS_MAX: usize = 19; // 10^19 - 1 < 2^64: no overflow check per digit
    let mut out = [0u64; N];
    let n = line.len();
    let mut i = 0;
    let is_blank = |b: u8| b == b' ' || b == b'\t';
    for slot in out.iter_mut() {
        while i < n && is_blank(line[i]) {
            i += 1;
        }
        let start = i;
        let mut value = 0u64;
        while i < n {
            let digit = line[i].wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            // A twentieth digit goes to the careful path before it is multiplied in (found by fuzzing:
            // checked after the multiplication, it overflowed first).
            if i - start == DIGITS_MAX {
                return None;
            }
            value = value * 10 + digit as u64;
            i += 1;
        }
        if i == start || (i < n && !is_blank(line[i])) {
            return None;
        }
        *slot = value;
    }
    line[i..].iter().all(|&b| is_blank(b)).then_some(out)
}

/// Strips ASCII spaces and tabs at both ends.
#[inline]
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// Whether a line holds nothing but spaces and tabs (blank lines are not records in any format).
#[inline]
pub(crate) fn is_blank(s: &[u8]) -> bool {
    s.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Splits `line` at every `delimiter` into at most `N` fields; returns how many fields the line has,
/// counting past `N` (so that the caller can tell "too many"). Fields are not unquoted: none of the
/// supported formats quotes.
#[inline]
pub(crate) fn split_fields<'a, const N: usize>(
    line: &'a [u8],
    delimiter: u8,
    fields: &mut [&'a [u8]; N],
) -> usize {
    let mut count = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(delimiter, line) {
        if count < N {
            fields[count] = &line[start..end];
        }
        count += 1;
        start = end + 1;
    }
    if count < N {
        fields[count] = &line[start..];
    }
    count + 1
}

/// Splits `line` into runs of non-blank bytes (spaces and tabs separate), at most `N` of them; returns
/// how many were found, counting past `N` (so that the caller can tell "too many").
#[inline]
pub(crate) fn split_whitespace<'a, const N: usize>(line: &'a [u8], fields: &mut [&'a [u8]; N]) -> usize {
    let mut count = 0;
    let mut i = 0;
    let n = line.len();
    // Bounded by the line length: every pass of either inner loop advances `i`.
    while i < n {
        while i < n && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        while i < n && line[i] != b' ' && line[i] != b'\t' {
            i += 1;
        }
        if count < N {
            fields[count] = &line[start..i];
        }
        count += 1;
    }
    count
}

/// A time unit of a trace's timestamps, as a number of nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeUnit {
    pub unit_ns: u64,
}

impl TimeUnit {
    pub const NS: TimeUnit = TimeUnit { unit_ns: 1 };
    pub const US: TimeUnit = TimeUnit { unit_ns: 1_000 };
    pub const MS: TimeUnit = TimeUnit { unit_ns: 1_000_000 };
    pub const S: TimeUnit = TimeUnit { unit_ns: 1_000_000_000 };
    /// Windows FILETIME ticks (MSR Cambridge traces).
    pub const FILETIME: TimeUnit = TimeUnit { unit_ns: 100 };

    /// The names accepted in format specs.
    pub const NAMES: &'static str = "ns, us, ms, s, 100ns (Windows filetime ticks)";

    /// `ns`, `us`, `ms`, `s` or `100ns`; `None` for anything else.
    pub fn from_name(name: &str) -> Option<TimeUnit> {
        match name {
            "ns" => Some(TimeUnit::NS),
            "us" => Some(TimeUnit::US),
            "ms" => Some(TimeUnit::MS),
            "s" => Some(TimeUnit::S),
            "100ns" | "filetime" => Some(TimeUnit::FILETIME),
            _ => None,
        }
    }

    /// The spec name of this unit (inverse of [`TimeUnit::from_name`]).
    pub fn name(self) -> String {
        match self.unit_ns {
            1 => "ns".into(),
            1_000 => "us".into(),
            1_000_000 => "ms".into(),
            1_000_000_000 => "s".into(),
            100 => "100ns".into(),
            n => format!("{n}ns"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn integers_are_strict() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"007"), Some(7));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None, "overflow");
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b" 1"), None);
        assert_eq!(parse_u64(b"+1"), None);
        assert_eq!(parse_u64(b"1x"), None);
        assert_eq!(parse_u32(b"4294967296"), None);
    }

    #[test]
    fn decimals_convert_exactly() {
        assert_eq!(parse_decimal_ns(b"0.551706", TimeUnit::S.unit_ns), Some(551_706_000));
        assert_eq!(parse_decimal_ns(b"12.000000001", TimeUnit::S.unit_ns), Some(12_000_000_001));
        assert_eq!(parse_decimal_ns(b"5633898", TimeUnit::US.unit_ns), Some(5_633_898_000));
        assert_eq!(parse_decimal_ns(b".5", TimeUnit::MS.unit_ns), Some(500_000));
        assert_eq!(parse_decimal_ns(b"3.", TimeUnit::NS.unit_ns), Some(3));
        assert_eq!(parse_decimal_ns(b"1.9", TimeUnit::NS.unit_ns), Some(1), "truncates below 1 ns");
        assert_eq!(parse_decimal_ns(b".", 1), None);
        assert_eq!(parse_decimal_ns(b"1.2.3", 1), None);
        assert_eq!(parse_decimal_ns(b"-1", 1), None);
        assert_eq!(parse_decimal_ns(b"1e5", 1), None);
        assert_eq!(parse_decimal_ns(b"18446744073709551615", TimeUnit::S.unit_ns), None, "overflow");
    }

    #[test]
    fn splitting() {
        let mut f = [&b"?"[..]; 3];
        assert_eq!(split_fields(b"a,,b", b',', &mut f), 3);
        assert_eq!(f, [&b"a"[..], b"", b"b"]);
        assert_eq!(split_fields(b"", b',', &mut f), 1);
        assert_eq!(f[0], b"");
        assert_eq!(split_fields(b"1,2,3,4,5", b',', &mut f), 5);
        assert_eq!(f, [&b"1"[..], b"2", b"3"]);
        let mut w = [&b""[..]; 3];
        assert_eq!(split_whitespace(b"  1 \t22  333 4 ", &mut w), 4);
        assert_eq!(w, [&b"1"[..], b"22", b"333"]);
        assert_eq!(split_whitespace(b" \t ", &mut w), 0);
        assert_eq!(trim(b" \tx y\t "), b"x y");
        assert!(is_blank(b" \t"));
        assert!(!is_blank(b" x"));
    }

    #[test]
    fn blank_separated_fast_path() {
        assert_eq!(blank_separated_u64s::<4>(b"230027 8 0 0"), Some([230027, 8, 0, 0]));
        assert_eq!(blank_separated_u64s::<2>(b" \t1\t 2  "), Some([1, 2]));
        assert_eq!(blank_separated_u64s::<2>(b"1 2 3"), None);
        assert_eq!(blank_separated_u64s::<2>(b"1"), None);
        assert_eq!(blank_separated_u64s::<2>(b"1 2x"), None);
        assert_eq!(blank_separated_u64s::<2>(b"1 -2"), None);
        assert_eq!(blank_separated_u64s::<1>(b"9999999999999999999"), Some([9_999_999_999_999_999_999]));
        assert_eq!(blank_separated_u64s::<1>(b"18446744073709551615"), None, "20 digits: slow path");
        // Found by fuzzing: the twentieth digit overflowed before the length check.
        assert_eq!(blank_separated_u64s::<1>(b"99999999999999999999"), None, "20 digits: slow path");
    }

    proptest! {
        #[test]
        fn fast_path_agrees_with_the_careful_parsers(a: u64, b: u64, pad in "[ \t]{0,3}", sep in "[ \t]{1,3}") {
            let line = format!("{pad}{a}{sep}{b}{pad}");
            let mut fields = [&b""[..]; 3];
            let count = split_whitespace(line.as_bytes(), &mut fields);
            let careful = (count == 2).then(|| (parse_u64(fields[0]), parse_u64(fields[1])));
            match blank_separated_u64s::<2>(line.as_bytes()) {
                Some(v) => prop_assert_eq!(careful, Some((Some(v[0]), Some(v[1])))),
                None => prop_assert!(a.to_string().len() == 20 || b.to_string().len() == 20),
            }
        }

        #[test]
        fn u64_round_trips(v: u64) {
            prop_assert_eq!(parse_u64(v.to_string().as_bytes()), Some(v));
        }

        #[test]
        fn decimal_seconds_match_integer_arithmetic(secs in 0u64..1_000_000, nanos in 0u64..1_000_000_000) {
            let text = format!("{secs}.{nanos:09}");
            prop_assert_eq!(parse_decimal_ns(text.as_bytes(), TimeUnit::S.unit_ns), Some(secs * 1_000_000_000 + nanos));
        }
    }
}
