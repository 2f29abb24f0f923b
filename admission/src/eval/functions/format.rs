//! `format` and `formatlist`: Go's verbs as Terraform (cty) implements them: `%v %#v %s %q %t %d %f %e
//! %E %g %G %x %X %o %b %%`, flags `-+ 0#`, width, precision and explicit argument indexes `%[n]`
//! (after the flags, before the width). `%v`, `%s` and `%q` pad as cty pads them (grapheme clusters,
//! zeros under `0`), `%t` never pads, integer verbs pad as Go's big integers (`#` adds `0x`, `0X`, `0`
//! or `0b`; a precision is the fewest digits) and float verbs as Go's big floats. Integers print with
//! a sign, never in two's complement.
//!
//! Numbers are the value model's 512-bit floats: `%d`, `%f`, `%v` and `%g` without a precision are
//! exact as in Terraform; `%e`, and `%g` with a precision, go through the nearest `f64`, so past its 17
//! digits they differ from Terraform's.

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
        out.push_str(&verb_text(ctx, verb, &s, arg, at)?);
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

/// Pads the text of `%v`, `%s` or `%q` to the width in grapheme clusters, as cty pads it: with zeros
/// under the `0` flag (whatever the verb), on the right under `-`.
fn pad_text(body: String, s: &Spec) -> String {
    let len = grapheme_len(&body);
    if len >= s.width {
        return body;
    }
    let pads: String = std::iter::repeat_n(if s.zero { '0' } else { ' ' }, s.width - len).collect();
    if s.minus { body + &pads } else { pads + &body }
}

/// The sign a number prints with: `-`, or `+` / a space under those flags.
fn sign(negative: bool, s: &Spec) -> &'static str {
    match (negative, s.plus, s.space) {
        (true, _, _) => "-",
        (false, true, _) => "+",
        (false, false, true) => " ",
        _ => "",
    }
}

/// An integer verb as Go formats a big integer: a precision is the fewest digits (zeros added before
/// them; a zero with precision 0 prints nothing), `#` adds the base's prefix, and the width pads with
/// spaces on the right under `-`, with zeros after the sign under `0` (unless a precision is given),
/// else with spaces on the left.
fn integer_text(negative: bool, prefix: &str, digits: String, s: &Spec) -> String {
    let mut zeros = 0;
    let digits = match s.precision {
        Some(0) if digits == "0" => String::new(),
        Some(p) => {
            zeros = p.saturating_sub(digits.len());
            digits
        }
        None => digits,
    };
    let sign = sign(negative, s);
    let prefix = if s.sharp { prefix } else { "" };
    let len = sign.len() + prefix.len() + zeros + digits.len();
    let (mut left, mut right) = (0, 0);
    if len < s.width {
        let d = s.width - len;
        if s.minus {
            right = d;
        } else if s.zero && s.precision.is_none() {
            zeros += d;
        } else {
            left = d;
        }
    }
    format!(
        "{}{sign}{prefix}{}{digits}{}",
        " ".repeat(left),
        "0".repeat(zeros),
        " ".repeat(right)
    )
}

/// A float verb as Go formats a big float: zeros after the sign under `0` (which wins over `-`),
/// spaces on the right under `-`, else spaces on the left.
fn float_padded(negative: bool, body: String, s: &Spec) -> String {
    let sign = sign(negative, s);
    let pad = s.width.saturating_sub(sign.len() + body.len());
    if s.zero {
        format!("{sign}{}{body}", "0".repeat(pad))
    } else if s.minus {
        format!("{sign}{body}{}", " ".repeat(pad))
    } else {
        format!("{}{sign}{body}", " ".repeat(pad))
    }
}

/// A string cut to the precision in grapheme clusters (a precision of 0 cuts nothing, as in cty).
fn truncated(text: String, s: &Spec) -> String {
    match s.precision {
        Some(p) if p > 0 => text.graphemes(true).take(p).collect(),
        _ => text,
    }
}

/// The shortest `%g` form of `n`'s magnitude (Go's `Text('g', -1)`): the exact digits of the number,
/// in exponent form when the exponent is below -4 or at least 6.
fn shortest_general(n: &Number) -> String {
    let text = n.abs().to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all[lead..].trim_end_matches('0');
    if digits.is_empty() {
        return "0".to_owned();
    }
    // Where the decimal point sits, counted from the first significant digit.
    let dp = int.len() as i64 - lead as i64;
    let exp = dp - 1;
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let m = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        return go_exponent(&format!("{m}e{exp}"));
    }
    let nd = digits.len() as i64;
    if dp <= 0 {
        format!("0.{}{digits}", "0".repeat((-dp) as usize))
    } else if dp >= nd {
        format!("{digits}{}", "0".repeat((dp - nd) as usize))
    } else {
        let (i, f) = digits.split_at(dp as usize);
        format!("{i}.{f}")
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
        'v' if s.sharp => pad_text(json_text(ctx, arg)?, s),
        'v' => pad_text(
            match arg {
                Value::Null => "null".to_owned(),
                Value::Number(n) if n.is_negative() => format!("-{}", shortest_general(n)),
                Value::Number(n) => shortest_general(n),
                Value::String(text) => text.clone(),
                _ => json_text(ctx, arg)?,
            },
            s,
        ),
        's' => {
            let text = match arg {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => show_plain(arg),
                _ => return Err(unsupported("string required")),
            };
            pad_text(truncated(text, s), s)
        }
        'q' => match arg {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                let text = truncated(show_plain(arg), s);
                pad_text(serde_json::to_string(&text).unwrap_or_default(), s)
            }
            _ => return Err(unsupported("string required")),
        },
        // cty writes a bool without padding.
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
            integer_text(n.is_negative(), "", n.abs().to_fixed(0), s)
        }
        'x' | 'X' | 'o' | 'b' => {
            let i = integer(arg)?;
            let u = i.unsigned_abs();
            let (digits, prefix) = match verb {
                'x' => (format!("{u:x}"), "0x"),
                'X' => (format!("{u:X}"), "0X"),
                'o' => (format!("{u:o}"), "0"),
                _ => (format!("{u:b}"), "0b"),
            };
            integer_text(i < 0, prefix, digits, s)
        }
        'f' => {
            // Rounded from the exact binary value, as Go formats a big float.
            let n = number(arg)?;
            let text = n.abs().to_fixed(s.precision.unwrap_or(6));
            float_padded(n.is_negative(), text, s)
        }
        'g' | 'G' if s.precision.is_none() => {
            let n = number(arg)?;
            let text = shortest_general(&n);
            let text = if verb == 'G' {
                text.to_ascii_uppercase()
            } else {
                text
            };
            float_padded(n.is_negative(), text, s)
        }
        'e' | 'E' | 'g' | 'G' => {
            let n = number(arg)?;
            let x = n.as_f64();
            let text = float_text(verb, x.abs(), s.precision);
            float_padded(x.is_sign_negative() && x != 0.0, text, s)
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

/// `%e`, and `%g` with a precision (and their capitals), of the non-negative `x`.
fn float_text(verb: char, x: f64, precision: Option<usize>) -> String {
    let text = match verb.to_ascii_lowercase() {
        'e' => go_exponent(&format!("{x:.p$e}", p = precision.unwrap_or(6))),
        _ => general(x, precision),
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
