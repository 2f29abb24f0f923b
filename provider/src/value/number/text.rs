//! Numbers to and from decimal text, as Terraform reads and prints them.
//!
//! Reading follows Go's `big.ParseFloat` at 512 bits, which cty uses for literals, `tonumber` and JSON: the
//! digits are one exact integer, scaled by a power of five computed at 64 bits more than the target (exact
//! up to 5^248) and a power of two, rounded once. Printing follows Go's `Text('f', -1)`: the shortest digits
//! that read back to the same 512-bit number, never in exponent form. Both are bounded: an exponent past
//! [`super::float::MAX_TOP`] is refused before any work is done.

use num_bigint::BigUint;
use num_traits::Zero;

use super::float::{Float, MAX_TOP, PREC};

/// The most significant digits a number's text may have (the supported range has about 19,700).
const MAX_DIGITS: usize = 40_000;

/// Why text is not a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseFailure {
    /// Not decimal number syntax.
    Syntax,
    /// A number so large (or so small) that it is out of the supported range.
    Range,
}

/// Reads decimal text: an optional sign, digits with an optional `.`, an optional exponent (`e`/`E`, an
/// optional sign, digits). At least one mantissa digit is required; `.5` and `5.` are numbers, as in Go.
pub(crate) fn parse(s: &str) -> Result<Float, ParseFailure> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let neg = match bytes.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let mut digits = Vec::new();
    let mut frac: i64 = 0;
    let mut seen_point = false;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'0'..=b'9' => {
                if !(digits.is_empty() && c == b'0') {
                    digits.push(c);
                }
                if seen_point {
                    frac += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    let mantissa_digits = bytes[usize::from(neg || bytes.first() == Some(&b'+'))..i]
        .iter()
        .any(u8::is_ascii_digit);
    if !mantissa_digits {
        return Err(ParseFailure::Syntax);
    }
    let mut exp10: i64 = 0;
    if let Some(&(b'e' | b'E')) = bytes.get(i) {
        i += 1;
        let eneg = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while let Some(&c @ b'0'..=b'9') = bytes.get(i) {
            // Saturate: an exponent this large is out of range whatever the mantissa.
            exp10 = exp10.saturating_mul(10).saturating_add(i64::from(c - b'0'));
            i += 1;
        }
        if i == start {
            return Err(ParseFailure::Syntax);
        }
        if eneg {
            exp10 = -exp10;
        }
    }
    if i != bytes.len() {
        return Err(ParseFailure::Syntax);
    }
    if digits.is_empty() {
        return Ok(Float::zero());
    }
    // Reading a decimal mantissa costs its length squared; none that long has a use.
    if digits.len() > MAX_DIGITS {
        return Err(ParseFailure::Range);
    }
    let exp10 = exp10.saturating_sub(frac);
    // The value is digits × 10^exp10; its magnitude is about 10^(exp10 + len).
    let magnitude = exp10.saturating_add(i64::try_from(digits.len()).unwrap_or(i64::MAX));
    // 10^x < 2^(3.33x): bound in decimal digits first, so that no huge power is ever computed.
    if magnitude.saturating_mul(10) / 3 > MAX_TOP || magnitude.saturating_mul(10) / 3 < -MAX_TOP {
        return Err(ParseFailure::Range);
    }
    let mant = BigUint::parse_bytes(&digits, 10).ok_or(ParseFailure::Syntax)?;
    // 10^e = 5^e × 2^e: the power of two goes into the exponent, the power of five is multiplied in.
    let z = Float::exact(neg, mant, exp10);
    let out = match exp10 {
        0 => z.rounded(PREC, false),
        e if e > 0 => Float::mul(&z, &pow5(e.unsigned_abs(), PREC + 64), PREC),
        e => Float::div(&z, &pow5(e.unsigned_abs(), PREC + 64), PREC).ok_or(ParseFailure::Range)?,
    };
    Ok(out)
}

/// 5^n at `prec` bits, computed as Go computes it: exact up to 5^27, then by squaring a factor kept at
/// `prec + 64` bits.
fn pow5(n: u64, prec: u64) -> Float {
    const EXACT: u64 = 27;
    let exact = |k: u64| Float::exact(false, BigUint::from(5u32).pow(k as u32), 0);
    if n <= EXACT {
        return exact(n);
    }
    let mut z = exact(EXACT);
    let mut n = n - EXACT;
    let mut f = Float::exact(false, BigUint::from(5u32), 0);
    while n > 0 {
        if n & 1 != 0 {
            z = Float::mul(&z, &f, prec);
        }
        f = Float::mul(&f, &f, prec + 64);
        n >>= 1;
    }
    z
}

/// A decimal number as Go's `big` package formats it: digits without trailing zeros and the position of
/// the decimal point (`0.digits × 10^point`).
struct Decimal {
    digits: Vec<u8>,
    point: i64,
}

impl Decimal {
    /// `m × 2^shift` exactly.
    fn of(m: &BigUint, shift: i64) -> Decimal {
        if m.is_zero() {
            return Decimal {
                digits: Vec::new(),
                point: 0,
            };
        }
        let (n, down) = if shift >= 0 {
            (m << shift.unsigned_abs(), 0)
        } else {
            // m / 2^s = m × 5^s / 10^s.
            let s = shift.unsigned_abs();
            (
                m * BigUint::from(5u32).pow(u32::try_from(s).unwrap_or(u32::MAX)),
                s,
            )
        };
        let mut digits = n.to_str_radix(10).into_bytes();
        let point =
            i64::try_from(digits.len()).unwrap_or(i64::MAX) - i64::try_from(down).unwrap_or(0);
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        Decimal { digits, point }
    }

    /// The digit at `i`, `0` past the end.
    fn at(&self, i: usize) -> u8 {
        self.digits.get(i).copied().unwrap_or(b'0')
    }

    fn trim(&mut self) {
        while self.digits.last() == Some(&b'0') {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.point = 0;
        }
    }

    /// Keeps the first `n` digits.
    fn round_down(&mut self, n: usize) {
        if n < self.digits.len() {
            self.digits.truncate(n);
            self.trim();
        }
    }

    /// Keeps the first `n` digits and adds one unit in the last of them.
    fn round_up(&mut self, n: usize) {
        if n >= self.digits.len() {
            return;
        }
        let mut i = n;
        while i > 0 && self.digits[i - 1] == b'9' {
            i -= 1;
        }
        if i == 0 {
            self.digits = vec![b'1'];
            self.point += 1;
        } else {
            self.digits[i - 1] += 1;
            self.digits.truncate(i);
        }
    }

    /// Keeps `n` digits, rounding to nearest with ties to even.
    fn round(&mut self, n: usize) {
        if n >= self.digits.len() {
            return;
        }
        let up = if self.digits[n] == b'5' && n + 1 == self.digits.len() {
            n > 0 && (self.digits[n - 1] - b'0') % 2 == 1
        } else {
            self.digits[n] >= b'5'
        };
        if up {
            self.round_up(n);
        } else {
            self.round_down(n);
        }
    }
}

/// The shortest decimal digits that identify `x` among 512-bit numbers (Go's `roundShortest`: the interval
/// is half a unit either side at the full precision, inclusive when the mantissa is even).
fn shortest(x: &Float) -> Decimal {
    let mut d = Decimal::of(&x.mant, x.exp);
    if d.digits.is_empty() {
        return d;
    }
    // The mantissa widened to prec + 1 bits, so that one unit of it is half a unit of x.
    let len = x.mant.bits();
    let widen = (PREC + 1).saturating_sub(len);
    let mant = &x.mant << widen;
    let exp = x.exp - i64::try_from(widen).unwrap_or(0);
    let lower = Decimal::of(&(&mant - 1u32), exp);
    let upper = Decimal::of(&(&mant + 1u32), exp);
    let inclusive = !mant.bit(1);
    for i in 0..d.digits.len() {
        let (m, l, u) = (d.digits[i], lower.at(i), upper.at(i));
        let ok_down = l != m || inclusive && i + 1 == lower.digits.len();
        let ok_up = m != u && (inclusive || m + 1 < u || i + 1 < upper.digits.len());
        match (ok_down, ok_up) {
            (true, true) => {
                d.round(i + 1);
                break;
            }
            (true, false) => {
                d.round_down(i + 1);
                break;
            }
            (false, true) => {
                d.round_up(i + 1);
                break;
            }
            (false, false) => {}
        }
    }
    d
}

/// `x` as Terraform prints a number: the shortest round-trip digits in plain positional form
/// (`0.3`, `100000000000000000000`, `0.0000001`).
pub(crate) fn to_text(x: &Float) -> String {
    let d = shortest(x);
    let mut out = String::new();
    if x.neg && !d.digits.is_empty() {
        out.push('-');
    }
    let len = i64::try_from(d.digits.len()).unwrap_or(i64::MAX);
    if d.point > 0 {
        let whole = usize::try_from(d.point.min(len)).unwrap_or(0);
        out.extend(d.digits[..whole].iter().map(|&c| char::from(c)));
        for _ in len..d.point {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    let frac = (len - d.point).max(0);
    if frac > 0 {
        out.push('.');
        for k in 0..frac {
            let i = d.point + k;
            out.push(char::from(usize::try_from(i).map_or(b'0', |i| d.at(i))));
        }
    }
    out
}

/// `x` rounded to `places` digits after the point, in positional form (Go's `Text('f', places)`), for
/// `format("%.2f")`.
pub(crate) fn to_fixed(x: &Float, places: usize) -> String {
    let mut d = Decimal::of(&x.mant, x.exp);
    let keep = d
        .point
        .saturating_add(i64::try_from(places).unwrap_or(i64::MAX));
    match usize::try_from(keep) {
        Ok(n) => d.round(n),
        // Every digit is below the precision asked for: the number rounds to zero.
        Err(_) => {
            d = Decimal {
                digits: Vec::new(),
                point: 0,
            }
        }
    }
    let mut out = String::new();
    if x.neg {
        out.push('-');
    }
    let len = i64::try_from(d.digits.len()).unwrap_or(i64::MAX);
    if d.point > 0 {
        let whole = usize::try_from(d.point.min(len)).unwrap_or(0);
        out.extend(d.digits[..whole].iter().map(|&c| char::from(c)));
        for _ in len..d.point {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    if places > 0 {
        out.push('.');
        for k in 0..places {
            let i = d.point + i64::try_from(k).unwrap_or(i64::MAX);
            out.push(char::from(usize::try_from(i).map_or(b'0', |i| d.at(i))));
        }
    }
    out
}
