//! Numbers of the value model: exact integers where they fit `i64`, finite floats otherwise.
//!
//! A number is normalized on construction so that equal numbers compare, hash and print alike; it must
//! never hold NaN or an infinity.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::error::ValueError as Error;

/// A finite number: an exact integer when the value is integral and fits `i64`, a float otherwise.
///
/// The representation is normalized on construction, so `Number::from(2)` and `Number::from_f64(2.0)` are
/// the same value and compare, hash and print alike (`2`).
#[derive(Debug, Clone, Copy)]
pub struct Number(pub(super) Repr);

#[derive(Debug, Clone, Copy)]
pub(super) enum Repr {
    Int(i64),
    Float(f64),
}

impl Number {
    /// The number `f`, or `None` when it is NaN or infinite.
    pub fn from_f64(f: f64) -> Option<Number> {
        if !f.is_finite() {
            return None;
        }
        // Integral floats inside the i64 range become exact integers; -0.0 becomes 0.
        if f.fract() == 0.0
            && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
        {
            return Some(Number(Repr::Int(f as i64)));
        }
        Some(Number(Repr::Float(f)))
    }

    /// The number as an `i64` when it is an integer in range.
    pub fn as_i64(self) -> Option<i64> {
        match self.0 {
            Repr::Int(i) => Some(i),
            Repr::Float(_) => None,
        }
    }

    /// The number as a `u64` when it is a non-negative integer in range.
    pub fn as_u64(self) -> Option<u64> {
        self.as_i64().and_then(|i| u64::try_from(i).ok())
    }

    /// The number as an `f64` (possibly rounded for integers beyond 2^53).
    pub fn as_f64(self) -> f64 {
        match self.0 {
            Repr::Int(i) => i as f64,
            Repr::Float(f) => f,
        }
    }

    /// Whether the number is an integer (every integer within `i64` is held exactly).
    pub fn is_integer(self) -> bool {
        match self.0 {
            Repr::Int(_) => true,
            Repr::Float(f) => f.fract() == 0.0,
        }
    }

    fn float_op(self, other: Number, op: fn(f64, f64) -> f64) -> Option<Number> {
        Number::from_f64(op(self.as_f64(), other.as_f64()))
    }

    /// The sum; exact for integers, `None` only when the result is not finite.
    pub fn checked_add(self, other: Number) -> Option<Number> {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => match a.checked_add(b) {
                Some(s) => Some(Number(Repr::Int(s))),
                None => self.float_op(other, |a, b| a + b),
            },
            _ => self.float_op(other, |a, b| a + b),
        }
    }

    /// The difference; exact for integers, `None` only when the result is not finite.
    pub fn checked_sub(self, other: Number) -> Option<Number> {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => match a.checked_sub(b) {
                Some(s) => Some(Number(Repr::Int(s))),
                None => self.float_op(other, |a, b| a - b),
            },
            _ => self.float_op(other, |a, b| a - b),
        }
    }

    /// The product; exact for integers, `None` only when the result is not finite.
    pub fn checked_mul(self, other: Number) -> Option<Number> {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => match a.checked_mul(b) {
                Some(s) => Some(Number(Repr::Int(s))),
                None => self.float_op(other, |a, b| a * b),
            },
            _ => self.float_op(other, |a, b| a * b),
        }
    }

    /// The quotient (`5 / 2` is `2.5`, as in Terraform); `None` when dividing by zero.
    pub fn checked_div(self, other: Number) -> Option<Number> {
        if other.as_f64() == 0.0 {
            return None;
        }
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) if b != 0 && a % b == 0 => {
                a.checked_div(b).map(|q| Number(Repr::Int(q)))
            }
            _ => self.float_op(other, |a, b| a / b),
        }
    }

    /// The remainder with the sign of the dividend (`-7 % 3` is `-1`); `None` when dividing by zero.
    pub fn checked_rem(self, other: Number) -> Option<Number> {
        if other.as_f64() == 0.0 {
            return None;
        }
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => Some(Number(Repr::Int(a.checked_rem(b).unwrap_or(0)))),
            _ => self.float_op(other, |a, b| a % b),
        }
    }

    /// The negation.
    pub fn negate(self) -> Number {
        match self.0 {
            Repr::Int(i) => match i.checked_neg() {
                Some(n) => Number(Repr::Int(n)),
                None => Number(Repr::Float(-(i as f64))),
            },
            Repr::Float(f) => Number(Repr::Float(-f)),
        }
    }
}

impl From<i64> for Number {
    fn from(i: i64) -> Self {
        Number(Repr::Int(i))
    }
}

impl From<i32> for Number {
    fn from(i: i32) -> Self {
        Number(Repr::Int(i64::from(i)))
    }
}

impl From<u32> for Number {
    fn from(i: u32) -> Self {
        Number(Repr::Int(i64::from(i)))
    }
}

impl From<u64> for Number {
    fn from(u: u64) -> Self {
        match i64::try_from(u) {
            Ok(i) => Number(Repr::Int(i)),
            Err(_) => Number(Repr::Float(u as f64)),
        }
    }
}

impl From<usize> for Number {
    fn from(u: usize) -> Self {
        Number::from(u as u64)
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Number {}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => a.cmp(&b),
            (Repr::Float(a), Repr::Float(b)) => a.total_cmp(&b),
            // Normalization keeps integral values in range as Int, so a tie here is only a rounding
            // artefact; ordering Int first keeps the order total and consistent with equality.
            (Repr::Int(a), Repr::Float(b)) => (a as f64).total_cmp(&b).then(Ordering::Less),
            (Repr::Float(a), Repr::Int(b)) => a.total_cmp(&(b as f64)).then(Ordering::Greater),
        }
    }
}

impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.0 {
            Repr::Int(i) => {
                0u8.hash(state);
                i.hash(state);
            }
            Repr::Float(f) => {
                1u8.hash(state);
                f.to_bits().hash(state);
            }
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Repr::Int(i) => write!(f, "{i}"),
            // Rust prints the shortest text that reads back to the same float, never in exponent form.
            Repr::Float(x) => write!(f, "{x}"),
        }
    }
}

impl FromStr for Number {
    type Err = Error;

    /// Parses decimal text as Terraform's `tonumber` does: an optional sign, digits, an optional fraction and
    /// exponent (`"10"`, `"-2.5"`, `"1e3"`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || Error::InvalidNumber { text: s.to_owned() };
        let plausible = s
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
            && s.chars().any(|c| c.is_ascii_digit());
        if !plausible {
            return Err(invalid());
        }
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Number(Repr::Int(i)));
        }
        s.parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .ok_or_else(invalid)
    }
}
