//! Numbers of the value model, as Terraform's: binary floating point with a 512-bit mantissa (Go's
//! `big.Float`, which cty uses), so integers are exact far past 64 bits, `0.1 + 0.2` is `0.3` and `/` is
//! never integer division.
//!
//! Most numbers a plan sees are small integers (counts, indexes, ports), so those are held as a plain
//! `i64` and added, compared and printed without touching the big representation; anything else is a
//! shared, immutable binary float. A number is normalized on construction, so equal numbers compare, hash
//! and print alike. It must never hold NaN or an infinity: what Terraform would turn into an infinity
//! (`1 / 0`, a result past the supported range) is refused by the operation instead, and no operation
//! panics on any operands.
//!
//! ```
//! use provider::value::Number;
//!
//! let n = |s: &str| s.parse::<Number>().unwrap();
//! assert_eq!(n("0.1").checked_add(&n("0.2")).unwrap().to_string(), "0.3");
//! assert_eq!(n("-9223372036854775808").checked_div(&n("-1")).unwrap().to_string(), "9223372036854775808");
//! assert_eq!(n("1e20").to_string(), "100000000000000000000");
//! ```

mod float;
mod text;

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use float::{Float, MAX_TOP, PREC};
use text::ParseFailure;

use crate::error::ValueError as Error;

/// A finite number: an `i64` when it is an integer in that range, a 512-bit binary float otherwise.
///
/// Cloning is cheap (the big form is shared). `Debug` shows the representation; `Display` prints as
/// Terraform does: the shortest digits that identify the number, never in exponent form (`0.3`, `1e20` as
/// `100000000000000000000`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Number(pub(super) Repr);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Repr {
    /// An integer within `i64`; never held as `Big`.
    Int(i64),
    /// Anything else: a fraction, or an integer past `i64`, rounded to 512 bits.
    Big(Arc<Float>),
}

impl Number {
    /// A float result normalized into a number: `None` when it is past the supported range (about 10^19700),
    /// zero when it is below its reciprocal.
    fn from_float(f: Float) -> Option<Number> {
        let Some(top) = f.top() else {
            return Some(Number(Repr::Int(0)));
        };
        if top > MAX_TOP {
            return None;
        }
        if top < -MAX_TOP {
            return Some(Number(Repr::Int(0)));
        }
        if let Some(i) = f.to_i128().and_then(|i| i64::try_from(i).ok()) {
            return Some(Number(Repr::Int(i)));
        }
        Some(Number(Repr::Big(Arc::new(f))))
    }

    fn to_float(&self) -> std::borrow::Cow<'_, Float> {
        match &self.0 {
            Repr::Int(i) => std::borrow::Cow::Owned(Float::from_i64(*i)),
            Repr::Big(f) => std::borrow::Cow::Borrowed(f),
        }
    }

    fn big_op(
        &self,
        other: &Number,
        op: impl FnOnce(&Float, &Float) -> Option<Float>,
    ) -> Option<Number> {
        Number::from_float(op(&self.to_float(), &other.to_float())?)
    }

    /// The number nearest to `f` as Terraform reads a float from JSON: through its shortest decimal text, so
    /// that `0.1` stays `0.1`. `None` when `f` is NaN or infinite.
    pub fn from_f64(f: f64) -> Option<Number> {
        if !f.is_finite() {
            return None;
        }
        if f.fract() == 0.0
            && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
        {
            // Integral floats inside the i64 range are exact integers; -0.0 becomes 0.
            return Some(Number(Repr::Int(f as i64)));
        }
        format!("{f:e}").parse().ok()
    }

    /// The number as an `i64` when it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(i) => Some(*i),
            Repr::Big(_) => None,
        }
    }

    /// The number as a `u64` when it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(i) => u64::try_from(*i).ok(),
            Repr::Big(f) => f.to_i128().and_then(|i| u64::try_from(i).ok()),
        }
    }

    /// The number as an `i128` when it is an integer in range (network numbers of IPv6 prefixes).
    pub fn as_i128(&self) -> Option<i128> {
        match &self.0 {
            Repr::Int(i) => Some(i128::from(*i)),
            Repr::Big(f) => f.to_i128(),
        }
    }

    /// The number as a `u128` when it is a non-negative integer in range (IPv6 network numbers).
    pub fn as_u128(&self) -> Option<u128> {
        match &self.0 {
            Repr::Int(i) => u128::try_from(*i).ok(),
            Repr::Big(f) if !f.neg => f.magnitude_u128(),
            Repr::Big(_) => None,
        }
    }

    /// The nearest `f64` (infinite when the number is past `f64`'s range), for functions Terraform computes
    /// in 64-bit floating point (`log`, `pow`).
    pub fn as_f64(&self) -> f64 {
        match &self.0 {
            Repr::Int(i) => *i as f64,
            Repr::Big(f) => text::to_text(f).parse().unwrap_or(f64::NAN),
        }
    }

    /// Whether the number is an integer.
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Int(_) => true,
            Repr::Big(f) => f.is_integer(),
        }
    }

    /// Whether the number is zero.
    pub fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Int(0))
    }

    /// Whether the number is below zero.
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Int(i) => *i < 0,
            Repr::Big(f) => f.neg,
        }
    }

    /// The sum, rounded to 512 bits; `None` only past the supported range.
    pub fn checked_add(&self, other: &Number) -> Option<Number> {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(s) = a.checked_add(*b)
        {
            return Some(Number(Repr::Int(s)));
        }
        self.big_op(other, |a, b| Some(Float::add(a, b, PREC)))
    }

    /// The difference, rounded to 512 bits; `None` only past the supported range.
    pub fn checked_sub(&self, other: &Number) -> Option<Number> {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(s) = a.checked_sub(*b)
        {
            return Some(Number(Repr::Int(s)));
        }
        self.big_op(other, |a, b| Some(Float::sub(a, b, PREC)))
    }

    /// The product, rounded to 512 bits; `None` only past the supported range.
    pub fn checked_mul(&self, other: &Number) -> Option<Number> {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(s) = a.checked_mul(*b)
        {
            return Some(Number(Repr::Int(s)));
        }
        self.big_op(other, |a, b| Some(Float::mul(a, b, PREC)))
    }

    /// The quotient, never integer division (`5 / 2` is `2.5`, `10 / 3` has 155 digits, as in Terraform);
    /// `None` when dividing by zero (Terraform's infinity) or past the supported range.
    pub fn checked_div(&self, other: &Number) -> Option<Number> {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && a.checked_rem(*b) == Some(0)
            && let Some(q) = a.checked_div(*b)
        {
            return Some(Number(Repr::Int(q)));
        }
        self.big_op(other, |a, b| Float::div(a, b, PREC))
    }

    /// The remainder of the quotient truncated toward zero, with the sign of the dividend (`-7 % 3` is `-1`),
    /// as cty computes it; `x % 0` is `x`, as in Terraform. `None` only past the supported range.
    pub fn checked_rem(&self, other: &Number) -> Option<Number> {
        if other.is_zero() {
            return Some(self.clone());
        }
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0) {
            // i64::MIN % -1 overflows in Rust; its remainder is 0.
            return Some(Number(Repr::Int(a.checked_rem(*b).unwrap_or(0))));
        }
        self.big_op(other, |a, b| {
            let q = Float::div(a, b, PREC)?.trunc();
            Some(Float::sub(a, &Float::mul(b, &q, PREC), PREC))
        })
    }

    /// The negation (exact).
    pub fn negate(&self) -> Number {
        match &self.0 {
            Repr::Int(i) => match i.checked_neg() {
                Some(n) => Number(Repr::Int(n)),
                None => Number(Repr::Big(Arc::new(Float::from_i64(*i).negated()))),
            },
            Repr::Big(f) => Number(Repr::Big(Arc::new(f.negated()))),
        }
    }

    /// The absolute value (exact).
    pub fn abs(&self) -> Number {
        if self.is_negative() {
            self.negate()
        } else {
            self.clone()
        }
    }

    /// The largest whole number not above this one.
    pub fn floor(&self) -> Number {
        self.whole(Float::floor)
    }

    /// The smallest whole number not below this one.
    pub fn ceil(&self) -> Number {
        self.whole(Float::ceil)
    }

    /// The whole part, truncated toward zero.
    pub fn trunc(&self) -> Number {
        self.whole(Float::trunc)
    }

    fn whole(&self, f: fn(&Float) -> Float) -> Number {
        match &self.0 {
            Repr::Int(_) => self.clone(),
            // A whole number next to a 512-bit one has at most 513 bits: rounding it back is what Go's
            // `SetInt` at 512 bits does, and it stays within range.
            Repr::Big(x) => {
                Number::from_float(f(x).rounded(PREC, false)).unwrap_or_else(|| self.clone())
            }
        }
    }

    /// The number with `places` digits after the point, rounded to nearest with ties to even on the exact
    /// binary value (`format("%.2f")`, Go's `Text('f', places)`).
    pub fn to_fixed(&self, places: usize) -> String {
        text::to_fixed(&self.to_float(), places)
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
            Err(_) => Number::from(i128::from(u)),
        }
    }
}

impl From<i128> for Number {
    fn from(i: i128) -> Self {
        if let Ok(small) = i64::try_from(i) {
            return Number(Repr::Int(small));
        }
        let f = Float::exact(i < 0, num_bigint::BigUint::from(i.unsigned_abs()), 0);
        // 128 bits are far below both the precision and the range: exact, never refused.
        Number::from_float(f).unwrap_or(Number(Repr::Int(0)))
    }
}

impl From<usize> for Number {
    fn from(u: usize) -> Self {
        Number::from(u as u64)
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    /// Numeric order (the derived equality agrees: each value has one representation).
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => a.cmp(b),
            _ => self.to_float().cmp_value(&other.to_float()),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Int(i) => write!(f, "{i}"),
            Repr::Big(x) => f.write_str(&text::to_text(x)),
        }
    }
}

impl FromStr for Number {
    type Err = Error;

    /// Parses decimal text as Terraform's `tonumber` and number literals do: an optional sign, digits, an
    /// optional fraction and exponent (`"10"`, `"-2.5"`, `"1e3"`, `"12345678901234567890123"`), read at 512
    /// bits. Hexadecimal, `Inf` and `NaN` are not numbers.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Number(Repr::Int(i)));
        }
        let range = || Error::NumberOutOfRange { text: s.to_owned() };
        match text::parse(s) {
            Ok(f) => Number::from_float(f).ok_or_else(range),
            Err(ParseFailure::Range) => Err(range()),
            Err(ParseFailure::Syntax) => Err(Error::InvalidNumber { text: s.to_owned() }),
        }
    }
}
