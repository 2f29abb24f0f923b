//! HCL's text rules that values and addresses share: identifiers and quoted strings with their escapes.
//!
//! These are rules of the language's spelling, not of values; they must never allocate more than the text
//! they return.

use std::fmt;

/// Whether `s` is an identifier as HCL spells attribute names: a letter or `_`, then letters, digits, `_`, `-`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Reads an HCL string body after its opening quote; returns the text and the bytes used, closing quote
/// included.
pub fn read_quoted(s: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' | 'U' => {
                        let len = if e == 'u' { 4 } else { 8 };
                        let mut code = 0u32;
                        for _ in 0..len {
                            let (_, h) = chars.next()?;
                            code = code * 16 + h.to_digit(16)?;
                        }
                        out.push(char::from_u32(code)?);
                    }
                    _ => return None,
                }
            }
            c if c.is_control() => return None,
            c => out.push(c),
        }
    }
    None
}

/// Writes `s` as an HCL quoted string; with `template` set, `${` and `%{` are escaped as HCL requires.
pub fn write_quoted(out: &mut impl fmt::Write, s: &str, template: bool) -> fmt::Result {
    out.write_char('"')?;
    let mut prev_dollar_or_percent = None;
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            '{' if template && prev_dollar_or_percent.is_some() => {
                out.write_char(prev_dollar_or_percent.unwrap_or('$'))?;
                out.write_char('{')?;
            }
            c if c.is_control() => write!(out, "\\u{:04X}", c as u32)?,
            c => out.write_char(c)?,
        }
        prev_dollar_or_percent = if matches!(c, '$' | '%') {
            Some(c)
        } else {
            None
        };
    }
    out.write_char('"')
}
