//! Binary floating point with an arbitrary-precision mantissa: what Go's `big.Float` computes and
//! Terraform's numbers are made of.
//!
//! Every operation computes the exact result and rounds it once, to nearest with ties to even, to the
//! precision it is given (Terraform's numbers use [`PREC`] bits). A value is kept canonical (an odd mantissa,
//! or zero with exponent 0) so that equal values compare and hash alike. This module never allocates more
//! than the operands' size plus the precision: operands far apart in magnitude are added through a sticky
//! bit, never by shifting one of them by the gap.

use std::cmp::Ordering;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// The mantissa precision of Terraform's numbers, in bits (cty parses and computes at 512 bits).
pub(crate) const PREC: u64 = 512;

/// The largest binary magnitude a number may reach (its top bit position), either way. Beyond it a result is
/// out of range (an error) or, below it, zero. About ±19,700 decimal digits: far past any configuration's
/// need, and small enough that printing any number stays fast.
pub(crate) const MAX_TOP: i64 = 1 << 16;

/// `(-1)^neg × mant × 2^exp`; zero is `mant == 0` with `neg == false` and `exp == 0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Float {
    pub(crate) neg: bool,
    pub(crate) mant: BigUint,
    pub(crate) exp: i64,
}

impl Float {
    /// Zero.
    pub(crate) fn zero() -> Float {
        Float {
            neg: false,
            mant: BigUint::zero(),
            exp: 0,
        }
    }

    /// The integer `i`, exactly.
    pub(crate) fn from_i64(i: i64) -> Float {
        Float {
            neg: i < 0,
            mant: BigUint::from(i.unsigned_abs()),
            exp: 0,
        }
        .canonical()
    }

    /// The value `(-1)^neg × mant × 2^exp`, canonical but not rounded.
    pub(crate) fn exact(neg: bool, mant: BigUint, exp: i64) -> Float {
        Float { neg, mant, exp }.canonical()
    }

    /// Whether the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.mant.is_zero()
    }

    /// The position just above the top bit: `|x|` lies in `[2^(top-1), 2^top)`. Zero has none.
    pub(crate) fn top(&self) -> Option<i64> {
        (!self.is_zero()).then(|| self.exp.saturating_add(bits(&self.mant)))
    }

    /// Strips trailing zero bits, so that each value has one representation.
    fn canonical(mut self) -> Float {
        match self.mant.trailing_zeros() {
            None => Float::zero(),
            Some(0) => self,
            Some(tz) => {
                self.mant >>= tz;
                self.exp = self.exp.saturating_add(to_i64(tz));
                self
            }
        }
    }

    /// The value rounded to `prec` bits, to nearest with ties to even. `sticky` says that the true value
    /// lies strictly above `mant` by less than one unit of its last bit (callers set it only when the
    /// mantissa is longer than `prec`).
    pub(crate) fn rounded(self, prec: u64, sticky: bool) -> Float {
        let len = self.mant.bits();
        if len <= prec {
            return self.canonical();
        }
        let drop = len - prec;
        let half = self.mant.bit(drop - 1);
        let rest = sticky || self.mant.trailing_zeros().is_some_and(|tz| tz < drop - 1);
        let mut q = self.mant >> drop;
        if half && (rest || q.bit(0)) {
            q += 1u32;
        }
        Float::exact(self.neg, q, self.exp.saturating_add(to_i64(drop)))
    }

    /// `-x`.
    pub(crate) fn negated(&self) -> Float {
        if self.is_zero() {
            return Float::zero();
        }
        Float {
            neg: !self.neg,
            ..self.clone()
        }
    }

    /// `a + b` rounded to `prec` bits.
    pub(crate) fn add(a: &Float, b: &Float, prec: u64) -> Float {
        let (Some(ta), Some(tb)) = (a.top(), b.top()) else {
            let only = if a.is_zero() { b } else { a };
            return only.clone().rounded(prec, false);
        };
        let (hi, lo, lo_top) = if ta >= tb { (a, b, tb) } else { (b, a, ta) };
        // `hi` widened by `k` bits has at least prec + 3 bits and two trailing zeros.
        let k = (prec + 3).saturating_sub(hi.mant.bits()).max(2);
        let hi_low = hi.exp.saturating_sub(to_i64(k));
        if lo_top <= hi_low {
            // `lo` is less than one unit of the widened `hi`: it only decides which way `hi` rounds, so an
            // odd unit above or below stands for it (it can never sit on a rounding boundary).
            let wide = &hi.mant << k;
            let mant = if hi.neg == lo.neg {
                wide + 1u32
            } else {
                wide - 1u32
            };
            return Float::exact(hi.neg, mant, hi_low).rounded(prec, false);
        }
        let e = hi.exp.min(lo.exp);
        let x = &hi.mant << to_u64(hi.exp - e);
        let y = &lo.mant << to_u64(lo.exp - e);
        let (neg, mant) = if hi.neg == lo.neg {
            (hi.neg, x + y)
        } else {
            match x.cmp(&y) {
                Ordering::Less => (lo.neg, y - x),
                Ordering::Greater => (hi.neg, x - y),
                Ordering::Equal => return Float::zero(),
            }
        };
        Float::exact(neg, mant, e).rounded(prec, false)
    }

    /// `a - b` rounded to `prec` bits.
    pub(crate) fn sub(a: &Float, b: &Float, prec: u64) -> Float {
        Float::add(a, &b.negated(), prec)
    }

    /// `a × b` rounded to `prec` bits.
    pub(crate) fn mul(a: &Float, b: &Float, prec: u64) -> Float {
        if a.is_zero() || b.is_zero() {
            return Float::zero();
        }
        Float::exact(
            a.neg != b.neg,
            &a.mant * &b.mant,
            a.exp.saturating_add(b.exp),
        )
        .rounded(prec, false)
    }

    /// `a ÷ b` rounded to `prec` bits; `None` when `b` is zero.
    pub(crate) fn div(a: &Float, b: &Float, prec: u64) -> Option<Float> {
        if b.is_zero() {
            return None;
        }
        if a.is_zero() {
            return Some(Float::zero());
        }
        // Enough quotient bits to round from: at least prec + 2, plus the remainder as the sticky bit.
        let shift = (prec + 2 + b.mant.bits()).saturating_sub(a.mant.bits());
        let num = &a.mant << shift;
        let q = &num / &b.mant;
        let sticky = !(num - &q * &b.mant).is_zero();
        let exp = a.exp.saturating_sub(b.exp).saturating_sub(to_i64(shift));
        Some(
            Float {
                neg: a.neg != b.neg,
                mant: q,
                exp,
            }
            .rounded(prec, sticky),
        )
    }

    /// The integer part, truncated toward zero (exact).
    pub(crate) fn trunc(&self) -> Float {
        if self.exp >= 0 {
            return self.clone();
        }
        let drop = self.exp.unsigned_abs();
        if drop >= self.mant.bits() {
            return Float::zero();
        }
        Float::exact(self.neg, &self.mant >> drop, 0)
    }

    /// Whether the value is a whole number.
    pub(crate) fn is_integer(&self) -> bool {
        self.exp >= 0 || self.is_zero()
    }

    /// The largest whole number not above the value (exact).
    pub(crate) fn floor(&self) -> Float {
        let t = self.trunc();
        if self.neg && t != *self {
            t.step_away(true)
        } else {
            t
        }
    }

    /// The smallest whole number not below the value (exact).
    pub(crate) fn ceil(&self) -> Float {
        let t = self.trunc();
        if !self.neg && t != *self {
            t.step_away(false)
        } else {
            t
        }
    }

    /// A whole number moved by one: down when `down`, else up (exact).
    fn step_away(&self, down: bool) -> Float {
        let whole = &self.mant << to_u64(self.exp);
        if self.is_zero() {
            return Float::from_i64(if down { -1 } else { 1 });
        }
        // Moving away from zero grows the magnitude; toward zero shrinks it (it is at least 1).
        if self.neg == down {
            Float::exact(self.neg, whole + 1u32, 0)
        } else {
            Float::exact(self.neg, whole - 1u32, 0)
        }
    }

    /// The magnitude as a `u128` when the value is a whole number that fits.
    pub(crate) fn magnitude_u128(&self) -> Option<u128> {
        if self.is_zero() {
            return Some(0);
        }
        if !self.is_integer() || self.top()? > 128 {
            return None;
        }
        (&self.mant << to_u64(self.exp)).to_u128()
    }

    /// The value as an `i128` when it is a whole number in range.
    pub(crate) fn to_i128(&self) -> Option<i128> {
        let m = self.magnitude_u128()?;
        if self.neg {
            0i128.checked_sub_unsigned(m)
        } else {
            i128::try_from(m).ok()
        }
    }

    /// Compares by value.
    pub(crate) fn cmp_value(&self, other: &Float) -> Ordering {
        let sign = |x: &Float| match (x.is_zero(), x.neg) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        let (sa, sb) = (sign(self), sign(other));
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let magnitude = self.cmp_magnitude(other);
        if self.neg {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    /// Compares `|self|` with `|other|`, both nonzero.
    fn cmp_magnitude(&self, other: &Float) -> Ordering {
        match self.top().cmp(&other.top()) {
            Ordering::Equal => {
                // Same top bit: the exponents differ by less than the longer mantissa, so aligning is cheap.
                let e = self.exp.min(other.exp);
                let x = &self.mant << to_u64(self.exp - e);
                let y = &other.mant << to_u64(other.exp - e);
                x.cmp(&y)
            }
            unequal => unequal,
        }
    }
}

/// The bit length of a mantissa as a signed exponent.
fn bits(m: &BigUint) -> i64 {
    to_i64(m.bits())
}

fn to_i64(u: u64) -> i64 {
    i64::try_from(u).unwrap_or(i64::MAX)
}

/// A non-negative exponent difference as a shift (callers bound it by the operands' sizes).
fn to_u64(i: i64) -> u64 {
    u64::try_from(i).unwrap_or(0)
}
