//! JSON text into a tree that keeps the byte offset of every value and property name, which the JSON
//! configuration syntax needs for its diagnostics (serde_json keeps none), and repeated property names in
//! their order (HCL's JSON syntax gives each its own block).
//!
//! It is RFC 8259 JSON, nothing more: no comments, no trailing commas. Nesting is bounded so that hostile
//! input is an error, never a stack overflow. It never interprets what the JSON means.

/// One JSON value with the offset of its first byte.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Json {
    /// The value.
    pub kind: JsonKind,
    /// Where it starts (for a string, its opening quote).
    pub offset: usize,
}

/// The kinds of JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonKind {
    Null,
    Bool(bool),
    Number(f64),
    String(JsonString),
    Array(Vec<Json>),
    Object(Vec<JsonProperty>),
}

/// A string's value, and whether its text in the file is that value byte for byte (no escapes), so that
/// an offset inside the value is an offset inside the file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonString {
    pub value: String,
    pub verbatim: bool,
}

/// One property of an object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonProperty {
    pub key: String,
    /// Where the name starts (its opening quote).
    pub key_offset: usize,
    pub value: Json,
}

/// Why the text is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub offset: usize,
    pub message: String,
}

/// The deepest nesting of arrays and objects accepted.
const MAX_DEPTH: usize = 128;

/// Parses one JSON document (a leading byte order mark is skipped).
pub(crate) fn parse(text: &str) -> Result<Json, JsonError> {
    let mut p = JsonParser {
        text,
        bytes: text.as_bytes(),
        pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
        depth: 0,
    };
    p.skip_ws();
    let value = p.value()?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok(value)
}

struct JsonParser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    depth: usize,
}

impl JsonParser<'_> {
    fn error(&self, message: &str) -> JsonError {
        JsonError {
            offset: self.pos,
            message: message.to_owned(),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Json, JsonError> {
        let offset = self.pos;
        let kind = match self.bytes.get(self.pos) {
            None => return Err(self.error("expected a value, found the end of the file")),
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') => JsonKind::String(self.string()?),
            Some(b't') => self.word("true", JsonKind::Bool(true))?,
            Some(b'f') => self.word("false", JsonKind::Bool(false))?,
            Some(b'n') => self.word("null", JsonKind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return Err(self.error("expected a value")),
        };
        Ok(Json { kind, offset })
    }

    fn word(&mut self, word: &str, kind: JsonKind) -> Result<JsonKind, JsonError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.error("expected a value"))
        }
    }

    /// Steps into an array or object: true when it is empty (`close` follows at once, and is passed).
    fn enter(&mut self, close: u8) -> Result<bool, JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("JSON nested too deeply"));
        }
        self.pos += 1;
        self.skip_ws();
        let empty = self.bytes.get(self.pos) == Some(&close);
        if empty {
            self.pos += 1;
            self.depth -= 1;
        }
        Ok(empty)
    }

    fn object(&mut self) -> Result<JsonKind, JsonError> {
        let mut props = Vec::new();
        if self.enter(b'}')? {
            return Ok(JsonKind::Object(props));
        }
        loop {
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.error("expected a property name in double quotes"));
            }
            let key_offset = self.pos;
            let key = self.string()?.value;
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.error("expected `:` after the property name"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value()?;
            props.push(JsonProperty {
                key,
                key_offset,
                value,
            });
            if self.separator_or_end(b'}', "expected `,` or `}`")? {
                return Ok(JsonKind::Object(props));
            }
        }
    }

    /// After an item: a `,` (false, another item follows) or the closing `close` (true, the container
    /// ends).
    fn separator_or_end(&mut self, close: u8, expected: &str) -> Result<bool, JsonError> {
        self.skip_ws();
        match self.bytes.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                self.skip_ws();
                Ok(false)
            }
            Some(&b) if b == close => {
                self.pos += 1;
                self.depth -= 1;
                Ok(true)
            }
            _ => Err(self.error(expected)),
        }
    }

    fn array(&mut self) -> Result<JsonKind, JsonError> {
        let mut items = Vec::new();
        if self.enter(b']')? {
            return Ok(JsonKind::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.separator_or_end(b']', "expected `,` or `]`")? {
                return Ok(JsonKind::Array(items));
            }
        }
    }

    fn number(&mut self) -> Result<JsonKind, JsonError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while p.bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        if self.bytes.get(self.pos) == Some(&b'0') {
            self.pos += 1;
        } else if !digits(self) {
            return Err(self.error("expected a digit"));
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.error("expected a digit after the decimal point"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        let text = &self.text[start..self.pos];
        text.parse::<f64>()
            .map(JsonKind::Number)
            .map_err(|_| JsonError {
                offset: start,
                message: "not a number".into(),
            })
    }

    fn string(&mut self) -> Result<JsonString, JsonError> {
        self.pos += 1;
        let mut value = String::new();
        let mut verbatim = true;
        loop {
            let run_start = self.pos;
            while let Some(&b) = self.bytes.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            value.push_str(&self.text[run_start..self.pos]);
            match self.bytes.get(self.pos) {
                None => return Err(self.error("the string is not closed")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(JsonString { value, verbatim });
                }
                Some(b'\\') => {
                    verbatim = false;
                    self.pos += 1;
                    self.escape(&mut value)?;
                }
                Some(_) => {
                    return Err(self.error("a control character must be escaped in a string"));
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let c = match self.bytes.get(self.pos) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let high = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&high) {
                    if !self.text[self.pos..].starts_with("\\u") {
                        return Err(self.error("a lone surrogate in a \\u escape"));
                    }
                    self.pos += 2;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(self.error("a lone surrogate in a \\u escape"));
                    }
                    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    high
                };
                out.push(
                    char::from_u32(code)
                        .ok_or_else(|| self.error("a lone surrogate in a \\u escape"))?,
                );
                return Ok(());
            }
            _ => return Err(self.error("unknown escape in a string")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("expected four hex digits after \\u"))?;
        self.pos += 4;
        u32::from_str_radix(digits, 16).map_err(|_| self.error("expected four hex digits"))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::{JsonKind, parse};

    /// Whether our tree holds what serde_json's value holds (numbers compared as floats).
    fn same(ours: &super::Json, theirs: &Value) -> bool {
        match (&ours.kind, theirs) {
            (JsonKind::Null, Value::Null) => true,
            (JsonKind::Bool(a), Value::Bool(b)) => a == b,
            (JsonKind::Number(a), Value::Number(b)) => Some(*a) == b.as_f64(),
            (JsonKind::String(a), Value::String(b)) => &a.value == b,
            (JsonKind::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
            }
            (JsonKind::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|p| b.get(&p.key).is_some_and(|v| same(&p.value, v)))
            }
            _ => false,
        }
    }

    fn values() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e300f64..1e300).prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Any document serde_json writes, compact or pretty, reads back as the same values.
        #[test]
        fn json_reads_what_serde_json_writes(value in values()) {
            for text in [
                serde_json::to_string(&value).unwrap(),
                serde_json::to_string_pretty(&value).unwrap(),
            ] {
                let parsed = parse(&text).unwrap();
                prop_assert!(same(&parsed, &value), "{text}");
            }
        }

        /// Arbitrary text never panics the parser.
        #[test]
        fn json_never_panics(text in any::<String>()) {
            let _ = parse(&text);
        }
    }
}
