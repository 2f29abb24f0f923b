//! Regular expressions: `regex`, `regexall`, and `replace`, whose substring written as `/.../` is a
//! pattern. The syntax is RE2's, which Terraform uses and the `regex` crate implements; replacements use
//! `$1`, `$name` and `${name}` as Go's `Regexp.Expand` does.
//!
//! A pattern is compiled with bounded size, so no pattern can exhaust memory; matching is linear.

use std::collections::BTreeMap;

use regex::{Captures, Regex, RegexBuilder};

use super::Ctx;
use crate::eval::EvalError;
use crate::value::Value;

/// The most memory a compiled pattern may take.
const PATTERN_SIZE_LIMIT: usize = 1 << 22;

fn compile(ctx: &Ctx<'_>, pattern: &str) -> Result<Regex, EvalError> {
    RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            ctx.err(format!(
                "invalid regular expression pattern: {}",
                first_line(&e)
            ))
        })
}

/// The first line of a `regex` error: the rest repeats the pattern under a caret.
fn first_line(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim().to_owned())
        .unwrap_or_else(|| "the pattern does not parse".to_owned())
}

/// How a pattern's matches are shaped: the match itself, a list of its groups, or an object of its
/// named groups.
enum Shape {
    Whole,
    Groups,
    Named(Vec<(usize, String)>),
}

fn shape(ctx: &Ctx<'_>, re: &Regex) -> Result<Shape, EvalError> {
    let names: Vec<Option<&str>> = re.capture_names().skip(1).collect();
    if names.is_empty() {
        return Ok(Shape::Whole);
    }
    let named: Vec<(usize, String)> = names
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.map(|n| (i + 1, n.to_owned())))
        .collect();
    match (named.len(), names.len()) {
        (0, _) => Ok(Shape::Groups),
        (n, all) if n == all => Ok(Shape::Named(named)),
        _ => Err(ctx.err("named and unnamed capture groups cannot be mixed in a pattern")),
    }
}

fn group(c: &Captures<'_>, i: usize) -> Value {
    c.get(i)
        .map(|m| Value::from(m.as_str()))
        .unwrap_or(Value::Null)
}

fn result(shape: &Shape, c: &Captures<'_>) -> Value {
    match shape {
        Shape::Whole => group(c, 0),
        Shape::Groups => Value::List((1..c.len()).map(|i| group(c, i)).collect()),
        Shape::Named(names) => Value::Map(
            names
                .iter()
                .map(|(i, n)| (n.clone(), group(c, *i)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// `regex(pattern, s)`: the first match (or its groups); an error when nothing matches.
pub(super) fn regex(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let re = compile(ctx, &ctx.str(&args[0])?)?;
    let s = ctx.str(&args[1])?;
    let shape = shape(ctx, &re)?;
    match re.captures(&s) {
        Some(c) => Ok(result(&shape, &c)),
        None => Err(ctx.err("pattern did not match any part of the given string")),
    }
}

/// `regexall(pattern, s)`: every non-overlapping match (or its groups), possibly none.
pub(super) fn regexall(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let re = compile(ctx, &ctx.str(&args[0])?)?;
    let s = ctx.str(&args[1])?;
    let shape = shape(ctx, &re)?;
    Ok(Value::List(
        re.captures_iter(&s).map(|c| result(&shape, &c)).collect(),
    ))
}

/// `replace(s, substr, replacement)`: every occurrence of `substr` replaced, or of the pattern when
/// `substr` is written `/pattern/` (an empty substring inserts between every character, as Go does).
pub(super) fn replace(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let from = ctx.str(&args[1])?;
    let to = ctx.str(&args[2])?;
    if from.len() > 1 && from.starts_with('/') && from.ends_with('/') {
        let re = compile(ctx, &from[1..from.len() - 1])?;
        return Ok(Value::String(re.replace_all(&s, to.as_str()).into_owned()));
    }
    Ok(Value::String(s.replace(&from, &to)))
}
