//! String functions: case, trimming, splitting and joining, substrings and the tests on strings. Text is
//! measured in grapheme clusters (what a reader sees as one character), as Terraform measures it; case
//! mapping is Go's simple per-character mapping.
//!
//! `format`, `formatlist` and the regular-expression functions have modules of their own.

use unicode_segmentation::UnicodeSegmentation;

use super::Ctx;
use crate::eval::EvalError;
use crate::value::Value;

/// `upper(s)`: each character's simple uppercase (a character whose uppercase is several, like `ß`,
/// stays as it is).
pub(super) fn upper(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    Ok(Value::String(s.chars().map(simple_upper).collect()))
}

/// `lower(s)`: each character's simple lowercase.
pub(super) fn lower(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    Ok(Value::String(s.chars().map(simple_lower).collect()))
}

fn simple_upper(c: char) -> char {
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

fn simple_lower(c: char) -> char {
    // Only U+0130 has a lowercase of several characters; its simple lowercase is the first.
    c.to_lowercase().next().unwrap_or(c)
}

/// `title(s)`: the first letter of each word in uppercase, as Go's `strings.Title`.
pub(super) fn title(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let mut out = String::with_capacity(s.len());
    let mut prev_separates = true;
    for c in s.chars() {
        out.push(if prev_separates { simple_upper(c) } else { c });
        prev_separates = !(c.is_alphanumeric() || c == '_');
    }
    Ok(Value::String(out))
}

/// `chomp(s)`: `s` without its trailing newlines (`\n`, `\r\n`).
pub(super) fn chomp(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let mut end = s.as_str();
    loop {
        if let Some(rest) = end.strip_suffix("\r\n") {
            end = rest;
        } else if let Some(rest) = end.strip_suffix(['\n', '\r']) {
            end = rest;
        } else {
            break;
        }
    }
    Ok(Value::String(end.to_owned()))
}

/// `indent(n, s)`: every line but the first indented by `n` spaces.
pub(super) fn indent(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let n = ctx.int(&args[0])?;
    let s = ctx.str(&args[1])?;
    let n = usize::try_from(n).map_err(|_| ctx.err("the number of spaces must not be negative"))?;
    if n > 1024 {
        return Err(ctx.err("the number of spaces is over 1024"));
    }
    let pad = format!("\n{}", " ".repeat(n));
    Ok(Value::String(s.replace('\n', &pad)))
}

/// `join(sep, list...)`: the strings of the lists, `sep` between them.
pub(super) fn join(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let sep = ctx.str(&args[0])?;
    let mut parts = Vec::new();
    for list in &args[1..] {
        for item in ctx.list(list)? {
            if item.is_null() {
                return Err(ctx.err(format!(
                    "element {} is null; cannot concatenate null values",
                    parts.len()
                )));
            }
            parts.push(ctx.str(&item)?);
        }
    }
    Ok(Value::String(parts.join(&sep)))
}

/// `split(sep, s)`: `s` cut at each `sep` (an empty `sep` cuts between characters), as Go's
/// `strings.Split`.
pub(super) fn split(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let sep = ctx.str(&args[0])?;
    let s = ctx.str(&args[1])?;
    let parts: Vec<Value> = if sep.is_empty() {
        s.chars().map(|c| Value::String(c.to_string())).collect()
    } else {
        s.split(sep.as_str()).map(Value::from).collect()
    };
    Ok(Value::List(parts))
}

/// `strrev(s)`: the grapheme clusters of `s` in reverse order.
pub(super) fn strrev(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    Ok(Value::String(s.graphemes(true).rev().collect()))
}

/// `substr(s, offset, length)`: grapheme clusters from `offset` (negative: from the end), `length` of them
/// (`-1`: to the end).
pub(super) fn substr(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let offset = ctx.int(&args[1])?;
    let length = ctx.int(&args[2])?;
    let g: Vec<&str> = s.graphemes(true).collect();
    let total = i64::try_from(g.len()).unwrap_or(i64::MAX);
    let start = if offset < 0 {
        if -offset > total {
            return Err(ctx.err("offset out of bounds"));
        }
        total + offset
    } else {
        offset
    };
    if start >= total {
        return Ok(Value::from(""));
    }
    let end = if length < 0 {
        total
    } else {
        start.saturating_add(length).min(total)
    };
    let (start, end) = (start as usize, end as usize);
    Ok(Value::String(g[start..end].concat()))
}

/// `trim(s, cutset)`: `s` without the leading and trailing characters that are in `cutset`.
pub(super) fn trim(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let cut = ctx.str(&args[1])?;
    Ok(Value::String(
        s.trim_matches(|c| cut.contains(c)).to_owned(),
    ))
}

/// `trimprefix(s, prefix)`: `s` without `prefix`, once, if it starts with it.
pub(super) fn trimprefix(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let p = ctx.str(&args[1])?;
    Ok(Value::String(
        s.strip_prefix(p.as_str()).unwrap_or(&s).to_owned(),
    ))
}

/// `trimsuffix(s, suffix)`: `s` without `suffix`, once, if it ends with it.
pub(super) fn trimsuffix(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let p = ctx.str(&args[1])?;
    Ok(Value::String(
        s.strip_suffix(p.as_str()).unwrap_or(&s).to_owned(),
    ))
}

/// `trimspace(s)`: `s` without leading and trailing white space.
pub(super) fn trimspace(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    Ok(Value::String(s.trim().to_owned()))
}

/// `startswith(s, prefix)`.
pub(super) fn startswith(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let p = ctx.str(&args[1])?;
    Ok(Value::Bool(s.starts_with(p.as_str())))
}

/// `endswith(s, suffix)`.
pub(super) fn endswith(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let p = ctx.str(&args[1])?;
    Ok(Value::Bool(s.ends_with(p.as_str())))
}

/// `strcontains(s, substr)`.
pub(super) fn strcontains(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let p = ctx.str(&args[1])?;
    Ok(Value::Bool(s.contains(p.as_str())))
}

/// The length of `s` in grapheme clusters, as `length` measures a string.
pub(super) fn grapheme_len(s: &str) -> usize {
    s.graphemes(true).count()
}
