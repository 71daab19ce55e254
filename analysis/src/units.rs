//! Human units for nanosecond figures: three significant digits, in s, ms, µs or ns.

/// A display unit for durations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl Unit {
    /// The unit a value of `ns` nanoseconds reads best in (the largest with a value ≥ 1).
    pub fn for_ns(ns: f64) -> Unit {
        let a = ns.abs();
        if a >= 1e9 {
            Unit::S
        } else if a >= 1e6 {
            Unit::Ms
        } else if a >= 1e3 {
            Unit::Us
        } else {
            Unit::Ns
        }
    }

    /// Nanoseconds in one unit.
    pub fn scale(self) -> f64 {
        match self {
            Unit::Ns => 1.0,
            Unit::Us => 1e3,
            Unit::Ms => 1e6,
            Unit::S => 1e9,
        }
    }

    /// The unit's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Us => "µs",
            Unit::Ms => "ms",
            Unit::S => "s",
        }
    }
}

/// `value` with three significant digits, no unit (e.g. `41.2`, `0.215`, `1230`).
pub fn sig3(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let digits = value.abs().log10().floor() as i32;
    let decimals = (2 - digits).max(0) as usize;
    let rounded = format!("{value:.decimals$}");
    // Rounding can carry into a new digit (999.6 → "1000"): that is still 3 significant digits.
    rounded
}

/// `ns` nanoseconds in the given unit, three significant digits, without the symbol.
pub fn in_unit(ns: f64, unit: Unit) -> String {
    sig3(ns / unit.scale())
}

/// `ns` nanoseconds in its best unit, three significant digits, with the symbol (`41.2 µs`).
pub fn human(ns: f64) -> String {
    let unit = Unit::for_ns(ns);
    format!("{} {}", in_unit(ns, unit), unit.symbol())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(human(41_234.0), "41.2 µs");
        assert_eq!(human(17_049_000.0), "17.0 ms");
        assert_eq!(human(215.4), "215 ns");
        assert_eq!(human(1_234_567_890.0), "1.23 s");
        assert_eq!(human(999.0), "999 ns");
        assert_eq!(in_unit(215.0, Unit::Us), "0.215");
        assert_eq!(in_unit(0.0, Unit::Ms), "0");
        assert_eq!(sig3(123_456.0), "123456");
    }
}
