//! YAML: `yamlencode` in the block style Terraform (go-cty-yaml) writes, every string double-quoted
//! (multi-line strings as literal blocks), and `yamldecode` of one YAML 1.2 document.
//!
//! Decoding resolves anchors and aliases through the parser, which bounds their expansion.

use std::collections::BTreeMap;

use yaml_rust2::{Yaml, YamlLoader};

use super::Ctx;
use crate::eval::EvalError;
use crate::value::{Number, Value};

/// `yamlencode(v)`.
pub(super) fn yamlencode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut out = String::new();
    block(ctx, &args[0], 0, &mut out, 0)?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(Value::String(out))
}

/// Writes `v` as a block at `indent` (the current line already holds what precedes it).
fn block(
    ctx: &Ctx<'_>,
    v: &Value,
    indent: usize,
    out: &mut String,
    depth: usize,
) -> Result<(), EvalError> {
    if depth > 128 {
        return Err(ctx.err("the value is nested too deeply"));
    }
    let pad = " ".repeat(indent);
    match v {
        Value::List(_) | Value::Set(_) => {
            let items = ctx.list(v)?;
            if items.is_empty() {
                out.push_str("[]\n");
                return Ok(());
            }
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&pad);
                }
                out.push_str("- ");
                block(ctx, x, indent + 2, out, depth + 1)?;
            }
        }
        Value::Map(entries) => {
            if entries.is_empty() {
                out.push_str("{}\n");
                return Ok(());
            }
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(&pad);
                }
                out.push_str(&quoted(k));
                out.push(':');
                match x {
                    Value::Map(m) if !m.is_empty() => {
                        out.push('\n');
                        out.push_str(&" ".repeat(indent + 2));
                        block(ctx, x, indent + 2, out, depth + 1)?;
                    }
                    Value::List(l) if !l.is_empty() => {
                        out.push('\n');
                        out.push_str(&pad);
                        block(ctx, x, indent, out, depth + 1)?;
                    }
                    Value::Set(s) if !s.is_empty() => {
                        out.push('\n');
                        out.push_str(&pad);
                        block(ctx, x, indent, out, depth + 1)?;
                    }
                    _ => {
                        out.push(' ');
                        block(ctx, x, indent + 2, out, depth + 1)?;
                    }
                }
            }
        }
        Value::String(s) if s.contains('\n') => literal(s, indent, out),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    Ok(())
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quoted(s),
        _ => String::new(),
    }
}

/// A literal block scalar (`|`), with the chomping indicator its trailing newlines need.
fn literal(s: &str, indent: usize, out: &mut String) {
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    out.push_str(match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    });
    out.push('\n');
    let pad = " ".repeat(indent.max(2));
    for line in s.split_terminator('\n') {
        if !line.is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// A double-quoted YAML string, escaped as Go's YAML emitter escapes it.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\u{85}' => out.push_str("\\N"),
            '\u{a0}' => out.push_str("\\_"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `yamldecode(s)`: the value of the one YAML document in `s` (none: null).
pub(super) fn yamldecode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let docs = YamlLoader::load_from_str(&s).map_err(|e| {
        let m = e.marker();
        ctx.err(format!(
            "on line {}, column {}: {}",
            m.line(),
            m.col() + 1,
            e.info()
        ))
    })?;
    match docs.as_slice() {
        [] => Ok(Value::Null),
        [doc] => from_yaml(ctx, doc, 0),
        _ => Err(ctx.err("only one YAML document is allowed")),
    }
}

fn from_yaml(ctx: &Ctx<'_>, y: &Yaml, depth: usize) -> Result<Value, EvalError> {
    if depth > 256 {
        return Err(ctx.err("the document is nested too deeply"));
    }
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(text) => {
            let n: Number = text
                .parse()
                .or_else(|_| {
                    text.parse::<f64>()
                        .ok()
                        .and_then(Number::from_f64)
                        .ok_or(())
                })
                .map_err(|_| ctx.err("a number in the document is not finite"))?;
            Value::Number(n)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::List(
            items
                .iter()
                .map(|x| from_yaml(ctx, x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(entries) => {
            let mut out = BTreeMap::new();
            for (k, x) in entries {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Real(r) => r.clone(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Null => "null".to_owned(),
                    _ => return Err(ctx.err("a mapping key must be a scalar")),
                };
                out.insert(key, from_yaml(ctx, x, depth + 1)?);
            }
            Value::Map(out)
        }
        Yaml::Alias(_) | Yaml::BadValue => {
            return Err(ctx.err("the document holds a value that cannot be read"));
        }
    })
}
