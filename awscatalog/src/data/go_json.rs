//! JSON text exactly as Go's `encoding/json` writes it, which is how the AWS provider renders
//! `aws_iam_policy_document`: `Marshal` for `minified_json` (no whitespace), `MarshalIndent` with a
//! two-space indent for `json`, and Go's string escaping (`<`, `>` and `&` as `\u003c`, `\u003e`,
//! `\u0026`; U+2028 and U+2029 escaped; control characters as `\n`, `\r`, `\t`, `\b`, `\f` or
//! `\u00XX`).
//!
//! Only text is produced here: what goes into a document, and in which order, is the caller's.

use std::fmt::Write as _;

/// A JSON value whose object keys keep the order they were given in (Go writes a struct's fields in
/// declaration order and a map's keys sorted: the caller orders them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its JSON text.
    Number(String),
    /// A string.
    Str(String),
    /// An array.
    List(Vec<Json>),
    /// An object, keys in the order given.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// A JSON value parsed by serde_json, object keys sorted as Go writes a map.
    pub(crate) fn from_serde(value: &serde_json::Value) -> Json {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(*b),
            serde_json::Value::Number(n) => Json::Number(n.to_string()),
            serde_json::Value::String(s) => Json::Str(s.clone()),
            serde_json::Value::Array(items) => {
                Json::List(items.iter().map(Json::from_serde).collect())
            }
            serde_json::Value::Object(map) => {
                let mut entries: Vec<(String, Json)> = map
                    .iter()
                    .map(|(k, v)| (k.clone(), Json::from_serde(v)))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Json::Object(entries)
            }
        }
    }

    /// The text `json.Marshal` writes.
    pub(crate) fn minified(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None, 0);
        out
    }

    /// The text `json.MarshalIndent(v, "", "  ")` writes.
    pub(crate) fn indented(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some("  "), 0);
        out
    }

    fn write(&self, out: &mut String, indent: Option<&str>, depth: usize) {
        let newline = |out: &mut String, depth: usize| {
            if let Some(unit) = indent {
                out.push('\n');
                for _ in 0..depth {
                    out.push_str(unit);
                }
            }
        };
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::Str(s) => write_string(out, s),
            Json::List(items) if items.is_empty() => out.push_str("[]"),
            Json::Object(entries) if entries.is_empty() => out.push_str("{}"),
            Json::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    item.write(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push(']');
            }
            Json::Object(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    write_string(out, key);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    value.write(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push('}');
            }
        }
    }
}

/// `s` as a JSON string with Go's escaping (HTML-safe).
fn write_string(out: &mut String, s: &str) {
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
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The CRC-32 (IEEE) checksum of `bytes`, as Go's `crc32.ChecksumIEEE` computes it: the AWS provider
/// names a policy document by the checksum of its `json` text.
pub(crate) fn crc32_ieee(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_go_escapes_them() {
        let s = Json::Str("a<b>&c\u{2028}\n\u{1}\"\\".into());
        assert_eq!(s.minified(), r#""a\u003cb\u003e\u0026c\u2028\n\u0001\"\\""#);
    }

    #[test]
    fn empty_containers_stay_compact_when_indented() {
        let v = Json::Object(vec![
            ("a".into(), Json::List(vec![])),
            ("b".into(), Json::List(vec![Json::Str("x".into())])),
        ]);
        assert_eq!(
            v.indented(),
            "{\n  \"a\": [],\n  \"b\": [\n    \"x\"\n  ]\n}"
        );
        assert_eq!(v.minified(), r#"{"a":[],"b":["x"]}"#);
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        // The CRC-32/ISO-HDLC check value of "123456789".
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
    }
}
