//! Numeric functions: `abs`, `ceil`, `floor`, `log`, `max`, `min`, `parseint`, `pow`, `signum`.
//!
//! Numbers are the value model's 512-bit floats. `abs`, `ceil`, `floor`, `max`, `min`, `signum` and
//! `parseint` are exact, as in Terraform; `log` and `pow` compute in 64-bit floating point, as Terraform's
//! do (cty converts their arguments to `float64`), and their result reads as that float's shortest text.

use super::Ctx;
use crate::eval::EvalError;
use crate::value::{Number, Value};

fn finite(ctx: &Ctx<'_>, f: f64) -> Result<Value, EvalError> {
    Value::number_f64(f).map_err(|_| ctx.err("the result is not a finite number"))
}

/// `abs(n)`.
pub(super) fn abs(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Number(ctx.num(&args[0])?.abs()))
}

/// `ceil(n)`: the smallest whole number not less than `n`.
pub(super) fn ceil(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Number(ctx.num(&args[0])?.ceil()))
}

/// `floor(n)`: the largest whole number not greater than `n`.
pub(super) fn floor(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Number(ctx.num(&args[0])?.floor()))
}

/// `log(n, base)`.
pub(super) fn log(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let n = ctx.num(&args[0])?.as_f64();
    let base = ctx.num(&args[1])?.as_f64();
    finite(ctx, n.ln() / base.ln())
}

/// `pow(base, exponent)`.
pub(super) fn pow(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let base = ctx.num(&args[0])?;
    let exp = ctx.num(&args[1])?;
    finite(ctx, base.as_f64().powf(exp.as_f64()))
}

/// `signum(n)`: -1, 0 or 1.
pub(super) fn signum(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let n = ctx.num(&args[0])?;
    let zero = Number::from(0);
    Ok(Value::from(match n.cmp(&zero) {
        std::cmp::Ordering::Less => -1i64,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }))
}

/// `max(numbers...)`.
pub(super) fn max(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    extreme(ctx, args, std::cmp::Ordering::Greater)
}

/// `min(numbers...)`.
pub(super) fn min(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    extreme(ctx, args, std::cmp::Ordering::Less)
}

fn extreme(ctx: &Ctx<'_>, args: &[Value], keep: std::cmp::Ordering) -> Result<Value, EvalError> {
    let mut best: Option<Number> = None;
    for a in args {
        let n = ctx.num(a)?;
        best = match best {
            Some(b) if b.cmp(&n) != keep.reverse() => Some(b),
            _ => Some(n),
        };
    }
    best.map(Value::Number)
        .ok_or_else(|| ctx.err("at least one number is required"))
}

/// `parseint(s, base)`: `s` read as an integer in `base` (2 to 62; above 36, lowercase letters are the
/// digits 10 to 35 and uppercase 36 to 61).
pub(super) fn parseint(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let base = ctx.int(&args[1])?;
    if !(2..=62).contains(&base) {
        return Err(ctx.err("base must be a whole number between 2 and 62 inclusive"));
    }
    let fail = || ctx.err(format!("cannot parse {s:?} as a base {base} integer"));
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    if digits.is_empty() {
        return Err(fail());
    }
    // Exact, at Terraform's precision: each digit is folded in with the value model's arithmetic.
    let radix = Number::from(base);
    let mut value = Number::from(0);
    for c in digits.chars() {
        let d = match c {
            '0'..='9' => c as i64 - '0' as i64,
            'a'..='z' => c as i64 - 'a' as i64 + 10,
            'A'..='Z' if base <= 36 => c as i64 - 'A' as i64 + 10,
            'A'..='Z' => c as i64 - 'A' as i64 + 36,
            _ => return Err(fail()),
        };
        if d >= base {
            return Err(fail());
        }
        value = value
            .checked_mul(&radix)
            .and_then(|x| x.checked_add(&Number::from(d)))
            .ok_or_else(|| ctx.err(format!("{s:?} is out of the range of numbers")))?;
    }
    Ok(Value::Number(if negative { value.negate() } else { value }))
}
