//! Time as the engine sees it: nanoseconds passed in by the driver, never read from a clock.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in time or a duration, in nanoseconds. In the simulator it is virtual time; live, it is a
/// monotonic clock reading taken by the driver. The engine only compares and subtracts these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(pub u64);

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);
    pub const MAX: Nanos = Nanos(u64::MAX);

    pub const fn from_us(us: u64) -> Nanos {
        Nanos(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Nanos {
        Nanos(s * 1_000_000_000)
    }
    /// From fractional milliseconds, rounded to the nearest nanosecond (device tables are in ms).
    pub fn from_ms_f64(ms: f64) -> Nanos {
        debug_assert!(ms >= 0.0 && ms.is_finite(), "negative or non-finite duration {ms} ms");
        Nanos((ms * 1e6).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    pub fn saturating_sub(self, other: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(other.0))
    }
}

impl Add for Nanos {
    type Output = Nanos;
    fn add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.checked_add(rhs.0).expect("time overflow"))
    }
}

impl AddAssign for Nanos {
    fn add_assign(&mut self, rhs: Nanos) {
        *self = *self + rhs;
    }
}

impl Sub for Nanos {
    type Output = Nanos;
    fn sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.checked_sub(rhs.0).expect("time went backwards"))
    }
}

impl fmt::Display for Nanos {
    /// Human form with a unit: `850ns`, `12.5us`, `8.91ms`, `3.20s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0 as f64;
        if self.0 < 1_000 {
            write!(f, "{}ns", self.0)
        } else if self.0 < 1_000_000 {
            write!(f, "{:.3}us", n / 1e3)
        } else if self.0 < 1_000_000_000 {
            write!(f, "{:.3}ms", n / 1e6)
        } else {
            write!(f, "{:.3}s", n / 1e9)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_picks_unit() {
        assert_eq!(Nanos(850).to_string(), "850ns");
        assert_eq!(Nanos::from_us(12).to_string(), "12.000us");
        assert_eq!(Nanos::from_ms_f64(8.91).to_string(), "8.910ms");
        assert_eq!(Nanos::from_secs(3).to_string(), "3.000s");
    }

    #[test]
    #[should_panic(expected = "time went backwards")]
    fn subtraction_never_wraps() {
        let _ = Nanos(1) - Nanos(2);
    }
}
