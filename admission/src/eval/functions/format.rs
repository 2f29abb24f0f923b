//! `format` and `formatlist`: Go's verbs as Terraform (cty) implements them: `%v %#v %s %q %t %d %f %e
//! %E %g %G %x %X %o %b %%`, flags `-+ 0#`, width, precision and explicit argument indexes `%[n]`.
//! Widths count grapheme clusters; integers print with a sign, never in two's complement.
//!
//! Numbers are the value model's 512-bit floats: `%d` and `%f` are exact as in Terraform; `%e` and `%g`
//! go through the nearest `f64`, so past its 17 digits they differ from Terraform's.

use unicode_segmentation::UnicodeSegmentation;

use super::encoding::json_text;
use super::string::grapheme_len;
use super::{Ctx, show};
use crate::eval::EvalError;
use crate::value::{Number, Value};

/// The widest width or precision accepted (larger ones only cost memory).
const MAX_WIDTH: usize = 1024;

/// One verb's flags, width and precision.
#[derive(Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    zero: bool,
    sharp: bool,
    width: usize,
    precision: Option<usize>,
}

/// `format(spec, args...)`.
pub(super) fn format(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let spec = ctx.str(&args[0])?;
    format_one(ctx, &spec, &args[1..]).map(Value::String)
}

/// `formatlist(spec, args...)`: `format` once per element of the list arguments (all of one length);
/// other arguments repeat.
pub(super) fn formatlist(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let spec = ctx.str(&args[0])?;
    let mut len: Option<usize> = None;
    for (i, a) in args[1..].iter().enumerate() {
        let n = match a {
            Value::List(items) => items.len(),
            Value::Set(items) => items.len(),
            _ => continue,
        };
        {
            match len {
                Some(l) if l != n => {
                    return Err(ctx.err(format!(
                        "argument {} has length {n}, which is inconsistent with {l} of the arguments before it",
                        i + 1
                    )));
                }
                _ => len = Some(n),
            }
        }
    }
    let n = len.unwrap_or(1);
    let lists: Vec<Option<Vec<Value>>> = args[1..]
        .iter()
        .map(|a| match a {
            Value::List(_) | Value::Set(_) => ctx.list(a).ok(),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let row: Vec<Value> = args[1..]
            .iter()
            .zip(&lists)
            .map(|(a, l)| match l {
                Some(items) => items[i].clone(),
                None => a.clone(),
            })
            .collect();
        out.push(Value::String(format_one(ctx, &spec, &row)?));
    }
    Ok(Value::List(out))
}

/// Formats `args` by `spec`.
fn format_one(ctx: &Ctx<'_>, spec: &str, args: &[Value]) -> Result<String, EvalError> {
    let mut out = String::new();
    let mut next = 0usize;
    let mut used = 0usize;
    let mut chars = spec.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek().map(|p| p.1) == Some('%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut s = Spec::default();
        while let Some(&(_, f)) = chars.peek() {
            match f {
                '-' => s.minus = true,
                '+' => s.plus = true,
                ' ' => s.space = true,
                '0' => s.zero = true,
                '#' => s.sharp = true,
                _ => break,
            }
            chars.next();
        }
        if chars.peek().map(|p| p.1) == Some('[') {
            chars.next();
            let mut digits = String::new();
            while let Some(&(_, d)) = chars.peek().filter(|p| p.1.is_ascii_digit()) {
                digits.push(d);
                chars.next();
            }
            if chars.next().map(|p| p.1) != Some(']') {
                return Err(ctx.err(format!("unclosed argument index at offset {at}")));
            }
            let n: usize = digits
                .parse()
                .map_err(|_| ctx.err(format!("invalid argument index at offset {at}")))?;
            if n == 0 {
                return Err(ctx.err(format!("invalid argument index at offset {at}")));
            }
            next = n - 1;
        }
        s.width = digits_at(&mut chars, ctx)?;
        if chars.peek().map(|p| p.1) == Some('.') {
            chars.next();
            s.precision = Some(digits_at(&mut chars, ctx)?);
        }
        let Some((_, verb)) = chars.next() else {
            return Err(ctx.err(format!("format string ends inside the verb at offset {at}")));
        };
        let arg = args.get(next).ok_or_else(|| {
            ctx.err(format!(
                "not enough arguments for \"%{verb}\" at {at}: need index {} but have {} total",
                next + 1,
                args.len()
            ))
        })?;
        next += 1;
        used = used.max(next);
        let body = verb_text(ctx, verb, &s, arg, at)?;
        pad(&mut out, &body, &s, verb);
    }
    if used < args.len() {
        return Err(ctx.err(if used == 0 {
            "too many arguments; no verbs in format string".to_owned()
        } else {
            format!("too many arguments; only {used} used by format string")
        }));
    }
    Ok(out)
}

fn digits_at(
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    ctx: &Ctx<'_>,
) -> Result<usize, EvalError> {
    let mut n = 0usize;
    while let Some(&(_, d)) = chars.peek().filter(|p| p.1.is_ascii_digit()) {
        n = n * 10 + (d as usize - '0' as usize);
        if n > MAX_WIDTH {
            return Err(ctx.err("a width or precision is over 1024"));
        }
        chars.next();
    }
    Ok(n)
}

/// Pads `body` to the width, counting grapheme clusters.
fn pad(out: &mut String, body: &str, s: &Spec, verb: char) {
    let len = grapheme_len(body);
    if len >= s.width {
        out.push_str(body);
    } else if s.minus {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', s.width - len));
    } else if s.zero && "dfeEgGxXob".contains(verb) {
        let (sign, digits) = match body.strip_prefix(['-', '+', ' ']) {
            Some(rest) => (&body[..1], rest),
            None => ("", body),
        };
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', s.width - len));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', s.width - len));
        out.push_str(body);
    }
}

/// The text of one verb applied to `arg`.
fn verb_text(
    ctx: &Ctx<'_>,
    verb: char,
    s: &Spec,
    arg: &Value,
    at: usize,
) -> Result<String, EvalError> {
    let unsupported =
        |why: &str| ctx.err(format!("unsupported value for \"%{verb}\" at {at}: {why}"));
    if arg.is_null() && verb != 'v' {
        return Err(unsupported("null value cannot be formatted"));
    }
    let signed = |negative: bool, digits: String| {
        if negative {
            format!("-{digits}")
        } else if s.plus {
            format!("+{digits}")
        } else if s.space {
            format!(" {digits}")
        } else {
            digits
        }
    };
    let number = |arg: &Value| match arg {
        Value::Number(n) => Ok(n.clone()),
        Value::String(_) => ctx.num(arg),
        Value::Bool(_) => Err(unsupported("number required, but have bool")),
        _ => Err(unsupported("number required")),
    };
    // Integers are formatted as Go's big integers: any size, a sign rather than two's complement.
    let integer = |arg: &Value| -> Result<i128, EvalError> {
        number(arg)?
            .as_i128()
            .ok_or_else(|| unsupported("an integer is required"))
    };
    Ok(match verb {
        'v' if s.sharp => json_text(ctx, arg)?,
        'v' => match arg {
            Value::Null => "null".to_owned(),
            Value::String(_) | Value::Number(_) | Value::Bool(_) => show_plain(arg),
            _ => json_text(ctx, arg)?,
        },
        's' => {
            let text = match arg {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => show_plain(arg),
                _ => return Err(unsupported("string required")),
            };
            match s.precision {
                Some(p) => text.graphemes(true).take(p).collect(),
                None => text,
            }
        }
        'q' => match arg {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                serde_json::to_string(&show_plain(arg)).unwrap_or_default()
            }
            _ => return Err(unsupported("string required")),
        },
        't' => match arg {
            Value::Bool(b) => b.to_string(),
            Value::String(_) => ctx.bool(arg)?.to_string(),
            _ => return Err(unsupported("bool required")),
        },
        'd' => {
            let n = number(arg)?;
            if !n.is_integer() {
                return Err(unsupported("an integer is required"));
            }
            // The exact digits of the whole number, however large.
            signed(n.is_negative(), n.abs().to_fixed(0))
        }
        'x' | 'X' | 'o' | 'b' => {
            let i = integer(arg)?;
            let u = i.unsigned_abs();
            let digits = match verb {
                'x' => format!("{u:x}"),
                'X' => format!("{u:X}"),
                'o' => format!("{u:o}"),
                _ => format!("{u:b}"),
            };
            signed(i < 0, digits)
        }
        'f' | 'F' => {
            // Rounded from the exact binary value, as Go formats a big float.
            let n = number(arg)?;
            signed(n.is_negative(), n.abs().to_fixed(s.precision.unwrap_or(6)))
        }
        'e' | 'E' | 'g' | 'G' => {
            let n = number(arg)?;
            let x = n.as_f64();
            signed(
                x.is_sign_negative() && x != 0.0,
                float_text(verb, x.abs(), s.precision, &n),
            )
        }
        other => {
            return Err(ctx.err(format!(
                "unsupported format verb '{other}' in \"%{other}\" at offset {at}"
            )));
        }
    })
}

/// A primitive's text, as `%v` and `%s` print it.
fn show_plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => show(other),
    }
}

/// `%f %e %g` (and their capitals) of the non-negative `x`.
fn float_text(verb: char, x: f64, precision: Option<usize>, n: &Number) -> String {
    let text = match verb.to_ascii_lowercase() {
        'f' => format!("{x:.p$}", p = precision.unwrap_or(6)),
        'e' => go_exponent(&format!("{x:.p$e}", p = precision.unwrap_or(6))),
        _ => {
            if precision.is_none() && n.as_i64().is_some_and(|i| i.unsigned_abs() < 1_000_000) {
                // The shortest form of a small integer is the integer.
                n.as_i64()
                    .map(|i| i.unsigned_abs().to_string())
                    .unwrap_or_default()
            } else {
                general(x, precision)
            }
        }
    };
    if verb.is_ascii_uppercase() {
        text.to_ascii_uppercase()
    } else {
        text
    }
}

/// Go's `%g`: exponent form for large and small exponents, plain digits otherwise.
fn general(x: f64, precision: Option<usize>) -> String {
    let e = match precision {
        None => format!("{x:e}"),
        Some(p) => format!("{x:.p$e}", p = p.max(1) - 1),
    };
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = if precision.is_none() {
        digits.trim_end_matches('0').to_owned()
    } else {
        digits
    };
    let digits = if digits.is_empty() {
        "0".to_owned()
    } else {
        digits
    };
    let nd = digits.len() as i32;
    let dp = exp + 1;
    let mut eprec = precision.map_or(6, |p| p.max(1) as i32);
    if precision.is_some() && eprec > nd && nd >= dp {
        eprec = nd;
    }
    if precision.is_none() {
        eprec = 6;
    }
    if exp < -4 || exp >= eprec {
        let (first, rest) = digits.split_at(1);
        let m = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        return go_exponent(&format!("{m}e{exp}"));
    }
    if dp <= 0 {
        format!("0.{}{digits}", "0".repeat((-dp) as usize))
    } else if dp >= nd {
        format!("{digits}{}", "0".repeat((dp - nd) as usize))
    } else {
        let (int, frac) = digits.split_at(dp as usize);
        format!("{int}.{frac}")
    }
}

/// Rust writes `1.5e3`; Go (and so Terraform) writes `1.5e+03`.
fn go_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s.to_string(),
    }
}
