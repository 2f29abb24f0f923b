//! How values print: Terraform's compact one-line form and its indented multi-line form.
//!
//! A sensitive value prints as `(sensitive value)` and an unknown as `(known after apply)`; this module must
//! never print a sensitive value's content.

use std::fmt;

use super::Value;
use super::syntax::{is_identifier, write_quoted};

fn fmt_seq_compact<'a>(
    f: &mut fmt::Formatter<'_>,
    items: impl ExactSizeIterator<Item = &'a Value>,
) -> fmt::Result {
    f.write_str("[")?;
    for (i, v) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        v.fmt_compact(f)?;
    }
    f.write_str("]")
}

fn fmt_seq_pretty<'a>(
    f: &mut fmt::Formatter<'_>,
    items: impl Iterator<Item = &'a Value>,
    indent: usize,
    pad: impl Fn(&mut fmt::Formatter<'_>, usize) -> fmt::Result,
) -> fmt::Result {
    f.write_str("[\n")?;
    for v in items {
        pad(f, indent + 1)?;
        v.fmt_pretty(f, indent + 1)?;
        f.write_str(",\n")?;
    }
    pad(f, indent)?;
    f.write_str("]")
}

fn key_text(k: &str) -> String {
    if is_identifier(k) {
        k.to_owned()
    } else {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = write_quoted(&mut s, k, true);
        s
    }
}

fn write_key(f: &mut fmt::Formatter<'_>, k: &str) -> fmt::Result {
    f.write_str(&key_text(k))
}

impl fmt::Display for Value {
    /// `{}` prints one line (`["a", "b"]`, `{ a = 1 }`); `{:#}` prints Terraform console's multi-line layout.
    /// Unknowns print `(known after apply)` and sensitive values `(sensitive value)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            self.fmt_pretty(f, 0)
        } else {
            self.fmt_compact(f)
        }
    }
}

impl Value {
    fn fmt_compact(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::String(s) => write_quoted(f, s, true),
            Value::List(items) => fmt_seq_compact(f, items.iter()),
            Value::Set(items) => fmt_seq_compact(f, items.iter()),
            Value::Map(entries) => {
                if entries.is_empty() {
                    return f.write_str("{}");
                }
                f.write_str("{ ")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_key(f, k)?;
                    f.write_str(" = ")?;
                    v.fmt_compact(f)?;
                }
                f.write_str(" }")
            }
            Value::Unknown(_) => f.write_str("(known after apply)"),
            Value::Sensitive(_) => f.write_str("(sensitive value)"),
        }
    }

    fn fmt_pretty(&self, f: &mut fmt::Formatter<'_>, indent: usize) -> fmt::Result {
        let pad = |f: &mut fmt::Formatter<'_>, n: usize| -> fmt::Result {
            for _ in 0..n {
                f.write_str("  ")?;
            }
            Ok(())
        };
        match self {
            Value::List(items) if !items.is_empty() => fmt_seq_pretty(f, items.iter(), indent, pad),
            Value::Set(items) if !items.is_empty() => fmt_seq_pretty(f, items.iter(), indent, pad),
            Value::Map(entries) if !entries.is_empty() => {
                f.write_str("{\n")?;
                let width = entries
                    .keys()
                    .map(|k| key_text(k).chars().count())
                    .max()
                    .unwrap_or(0);
                for (k, v) in entries {
                    pad(f, indent + 1)?;
                    let key = key_text(k);
                    write!(f, "{key:<width$} = ")?;
                    v.fmt_pretty(f, indent + 1)?;
                    f.write_str("\n")?;
                }
                pad(f, indent)?;
                f.write_str("}")
            }
            other => other.fmt_compact(f),
        }
    }
}
