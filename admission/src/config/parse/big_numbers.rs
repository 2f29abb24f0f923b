//! Number literals past a 64-bit float (`1e400`, a 400-digit integer): valid Terraform, whose numbers
//! have a 512-bit mantissa, but the HCL parser reads every literal as an `f64` and refuses an infinite
//! one as a syntax error. Before parsing, [`shield`] writes each such literal with its digits as `0`
//! (same length, so every position stays where it was); the lowering reads a literal's value from the
//! original text at its span ([`literal_text`]), so the value is the one written.
//!
//! The scan skips comments, quoted strings (and their interpolations) and heredocs; a literal is a run of
//! digits not glued to a name or a `.` before it, with an optional fraction and exponent.

use std::borrow::Cow;

/// `text` with every number literal that overflows an `f64` written as zeros; borrowed when there is none.
pub(crate) fn shield(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = block_comment_end(bytes, i + 2),
            b'"' => i = string_end(bytes, i + 1),
            b'<' if bytes.get(i + 1) == Some(&b'<') => i = heredoc_end(text, i + 2),
            b'0'..=b'9' if i == 0 || !glued(bytes[i - 1]) => {
                let end = literal_end(bytes, i);
                let literal = &text[i..end];
                if literal.parse::<f64>().is_ok_and(f64::is_infinite) {
                    let buf = out.get_or_insert_with(|| bytes.to_vec());
                    for b in &mut buf[i..end] {
                        if b.is_ascii_digit() {
                            *b = b'0';
                        }
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    match out {
        // Only ASCII digits were replaced by ASCII digits: still UTF-8.
        Some(buf) => Cow::Owned(String::from_utf8(buf).unwrap_or_else(|_| text.to_owned())),
        None => Cow::Borrowed(text),
    }
}

/// `text` (the original source at a number's span), when it is a number literal there.
pub(crate) fn literal_text(text: &str) -> Option<&str> {
    Some(text).filter(|t| {
        t.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'-')
    })
}

/// Whether a digit after `b` continues a name or a number (`a1`, `x.0`, `1.5`).
fn glued(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

fn block_comment_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len(), |p| from + p + 2)
}

/// The end of a quoted string starting after its quote, interpolations (with strings inside) included.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' if depth == 0 => return i + 1,
            b'"' => i = string_end(bytes, i + 1),
            b'$' | b'%' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 2;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            b'\n' if depth == 0 => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a heredoc whose `<<` ends before `from`: the line after the one holding its closing marker.
fn heredoc_end(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    let rest_trimmed = rest.strip_prefix('-').unwrap_or(rest);
    let marker: String = rest_trimmed
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if marker.is_empty() {
        return from;
    }
    let Some(first_line) = rest.find('\n') else {
        return text.len();
    };
    let mut at = from + first_line + 1;
    for line in text[at..].split_inclusive('\n') {
        at += line.len();
        if line.trim() == marker {
            return at;
        }
    }
    text.len()
}

/// The end of the number literal starting at `i`: digits, a fraction, an exponent.
fn literal_end(bytes: &[u8], mut i: usize) -> usize {
    let digits = |mut j: usize| {
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    i = digits(i);
    if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i = digits(i + 1);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            i = digits(j);
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_literals_past_a_float_are_shielded_and_positions_stay() {
        let text = "a = 1e400\nb = 1e300\nc = \"1e400\"\n# 1e400\nd = x1e400\n";
        let shielded = shield(text);
        assert_eq!(
            shielded,
            "a = 0e000\nb = 1e300\nc = \"1e400\"\n# 1e400\nd = x1e400\n"
        );
        assert_eq!(shielded.len(), text.len());
        assert!(matches!(shield("a = 1.5e10\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn heredocs_and_interpolations_are_skipped_and_long_integers_shielded() {
        let long = "9".repeat(400);
        let text = format!("a = <<EOT\n1e400\nEOT\nb = \"${{\"x\"}}-1e400\"\nc = {long}\n");
        let shielded = shield(&text);
        let expected = format!(
            "a = <<EOT\n1e400\nEOT\nb = \"${{\"x\"}}-1e400\"\nc = {}\n",
            "0".repeat(400)
        );
        assert_eq!(shielded, expected);
        assert_eq!(literal_text(&text[4..9]), None);
        assert_eq!(literal_text("1e400"), Some("1e400"));
    }
}
