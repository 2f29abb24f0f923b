//! Encoding functions: Base64 (`base64encode`, `base64decode`, `base64gzip`, `textencodebase64`,
//! `textdecodebase64`), JSON (`jsonencode`, `jsondecode`), CSV (`csvdecode`) and `urlencode`. YAML is
//! in [`super::yaml`].
//!
//! `jsonencode` writes what Terraform writes byte for byte: keys sorted, HTML-significant characters
//! escaped, numbers in plain decimal digits, never an exponent.

use std::collections::BTreeMap;
use std::io::Write;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::Ctx;
use crate::eval::EvalError;
use crate::value::Value;

/// `base64encode(s)`: the UTF-8 bytes of `s` in standard Base64.
pub(super) fn base64encode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::String(STANDARD.encode(ctx.str(&args[0])?)))
}

/// `base64decode(s)`: standard Base64 decoded; the bytes must be UTF-8.
pub(super) fn base64decode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let bytes = decode64(ctx, &ctx.str(&args[0])?)?;
    String::from_utf8(bytes)
        .map(Value::String)
        .map_err(|_| ctx.err("the result of decoding the provided string is not valid UTF-8"))
}

fn decode64(ctx: &Ctx<'_>, s: &str) -> Result<Vec<u8>, EvalError> {
    STANDARD
        .decode(s)
        .map_err(|_| ctx.err("the string is not valid Base64"))
}

/// `base64gzip(s)`: `s` compressed with gzip, then Base64-encoded. The header is Go's (no time, unknown
/// system); the compressed bytes may differ from Terraform's, the content they decompress to does not.
pub(super) fn base64gzip(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let mut gz = flate2::GzBuilder::new()
        .operating_system(255)
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    gz.write_all(s.as_bytes())
        .map_err(|_| ctx.err("failed to compress"))?;
    let bytes = gz.finish().map_err(|_| ctx.err("failed to compress"))?;
    Ok(Value::String(STANDARD.encode(bytes)))
}

/// The character encodings `textencodebase64` and `textdecodebase64` know.
#[derive(Clone, Copy)]
enum Charset {
    Utf8,
    Utf16Le,
    Utf16Be,
    Latin1,
    Ascii,
}

fn charset(ctx: &Ctx<'_>, name: &str) -> Result<Charset, EvalError> {
    Ok(match name.to_ascii_uppercase().replace('_', "-").as_str() {
        "UTF-8" | "UTF8" => Charset::Utf8,
        "UTF-16LE" => Charset::Utf16Le,
        "UTF-16BE" | "UTF-16" => Charset::Utf16Be,
        "ISO-8859-1" | "LATIN1" | "ISO8859-1" | "L1" => Charset::Latin1,
        "US-ASCII" | "ASCII" => Charset::Ascii,
        _ => {
            return Err(ctx.err(format!(
                "{name:?} is not a supported IANA encoding name or alias (supported: UTF-8, UTF-16LE, UTF-16BE, ISO-8859-1, US-ASCII)"
            )));
        }
    })
}

/// `textencodebase64(s, encoding)`: `s` in the named character encoding, Base64-encoded.
pub(super) fn textencodebase64(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let cs = charset(ctx, &ctx.str(&args[1])?)?;
    let unrepresentable = || {
        ctx.err("the given string contains characters that cannot be represented in the requested encoding")
    };
    let bytes: Vec<u8> = match cs {
        Charset::Utf8 => s.into_bytes(),
        Charset::Utf16Le => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        Charset::Utf16Be => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        Charset::Latin1 | Charset::Ascii => {
            let limit = if matches!(cs, Charset::Ascii) {
                0x80
            } else {
                0x100
            };
            s.chars()
                .map(|c| {
                    u8::try_from(c as u32)
                        .ok()
                        .filter(|b| u32::from(*b) < limit)
                })
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(unrepresentable)?
        }
    };
    Ok(Value::String(STANDARD.encode(bytes)))
}

/// `textdecodebase64(s, encoding)`: Base64-decoded bytes read in the named character encoding.
pub(super) fn textdecodebase64(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let bytes = decode64(ctx, &ctx.str(&args[0])?)?;
    let cs = charset(ctx, &ctx.str(&args[1])?)?;
    let invalid = || ctx.err("the decoded bytes are not valid in the given encoding");
    let text = match cs {
        Charset::Utf8 => String::from_utf8(bytes).map_err(|_| invalid())?,
        Charset::Utf16Le | Charset::Utf16Be => {
            if bytes.len() % 2 != 0 {
                return Err(invalid());
            }
            let units: Vec<u16> = bytes
                .chunks(2)
                .map(|p| match cs {
                    Charset::Utf16Le => u16::from_le_bytes([p[0], p[1]]),
                    _ => u16::from_be_bytes([p[0], p[1]]),
                })
                .collect();
            String::from_utf16(&units).map_err(|_| invalid())?
        }
        Charset::Latin1 => bytes.iter().map(|b| char::from(*b)).collect(),
        Charset::Ascii => {
            if bytes.iter().any(|b| *b >= 0x80) {
                return Err(invalid());
            }
            bytes.iter().map(|b| char::from(*b)).collect()
        }
    };
    Ok(Value::String(text))
}

/// `urlencode(s)`: as Go's `url.QueryEscape`: letters, digits and `-_.~` kept, space as `+`, every other
/// byte as `%XX`.
pub(super) fn urlencode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(Value::String(out))
}

/// `jsonencode(v)`.
pub(super) fn jsonencode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    json_text(ctx, &args[0]).map(Value::String)
}

/// The JSON text of a known, unmarked value, as Terraform writes it.
pub(super) fn json_text(ctx: &Ctx<'_>, v: &Value) -> Result<String, EvalError> {
    let mut out = String::new();
    write_json(ctx, v, &mut out, 0)?;
    Ok(out)
}

fn write_json(ctx: &Ctx<'_>, v: &Value, out: &mut String, depth: usize) -> Result<(), EvalError> {
    if depth > 256 {
        return Err(ctx.err("the value is nested too deeply"));
    }
    match v.peel() {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => json_string(s, out),
        Value::List(items) => json_seq(ctx, items.iter(), out, depth)?,
        Value::Set(items) => json_seq(ctx, items.iter(), out, depth)?,
        Value::Map(entries) => {
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(k, out);
                out.push(':');
                write_json(ctx, x, out, depth + 1)?;
            }
            out.push('}');
        }
        Value::Unknown(_) | Value::Sensitive(_) => {
            return Err(ctx.err("value is not known yet"));
        }
    }
    Ok(())
}

fn json_seq<'v>(
    ctx: &Ctx<'_>,
    items: impl Iterator<Item = &'v Value>,
    out: &mut String,
    depth: usize,
) -> Result<(), EvalError> {
    out.push('[');
    for (i, x) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json(ctx, x, out, depth + 1)?;
    }
    out.push(']');
    Ok(())
}

/// A JSON string as Go's encoder writes it: HTML-significant characters and the line and paragraph
/// separators escaped.
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `jsondecode(s)`: the value the JSON text `s` describes.
pub(super) fn jsondecode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let json: serde_json::Value = serde_json::from_str(&s).map_err(|e| {
        ctx.err(format!(
            "the string is not valid JSON: {} at line {} column {}",
            json_reason(&e),
            e.line(),
            e.column()
        ))
    })?;
    Ok(Value::from_json(json))
}

/// What is wrong with JSON text, without quoting it.
fn json_reason(e: &serde_json::Error) -> &'static str {
    use serde_json::error::Category;
    match e.classify() {
        Category::Eof => "unexpected end of input",
        Category::Syntax => "syntax error",
        Category::Data => "invalid data",
        Category::Io => "read error",
    }
}

/// `csvdecode(s)`: a list of objects, one per row after the header line, keyed by the header's names.
pub(super) fn csvdecode(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let s = ctx.str(&args[0])?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(s.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        None => return Err(ctx.err("missing header line")),
        Some(Err(e)) => return Err(csv_error(ctx, &e)),
        Some(Ok(h)) => h.iter().map(str::to_owned).collect::<Vec<_>>(),
    };
    let mut rows = Vec::new();
    for (line, record) in records.enumerate() {
        let record = record.map_err(|e| csv_error(ctx, &e))?;
        if record.len() != header.len() {
            return Err(ctx.err(format!(
                "record on line {}: wrong number of fields",
                line + 2
            )));
        }
        let row: BTreeMap<String, Value> = header
            .iter()
            .cloned()
            .zip(record.iter().map(Value::from))
            .collect();
        rows.push(Value::Map(row));
    }
    Ok(Value::List(rows))
}

fn csv_error(ctx: &Ctx<'_>, e: &csv::Error) -> EvalError {
    match e.position() {
        Some(p) => ctx.err(format!("invalid CSV on line {}", p.line())),
        None => ctx.err("invalid CSV"),
    }
}
