//! Paths into a value (`tags.Name`, `ingress.0.cidr`, `tags["a.b"]`) and their text form.
//!
//! A path's display reads back to the same path; this module must never accept text it cannot print back.

use std::fmt;
use std::str::FromStr;

use super::syntax::{is_identifier, read_quoted, write_quoted};
use crate::error::ValueError as Error;

/// One step into a value: a map key or a list index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathStep {
    /// A map key or object attribute.
    Key(String),
    /// A list index.
    Index(usize),
}

/// Where a nested value sits inside a value: `tags.Name`, `ingress.0.cidr`, `tags["a.b"]`.
///
/// Paths display dotted, as plan JSON lists them (`after_unknown`); a key that is not an identifier is shown
/// in brackets and quotes so that the text reads back to the same path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValuePath(pub Vec<PathStep>);

impl ValuePath {
    /// The empty path: the whole value.
    pub fn root() -> ValuePath {
        ValuePath(Vec::new())
    }

    /// This path extended by a key.
    pub fn key(&self, k: impl Into<String>) -> ValuePath {
        let mut steps = self.0.clone();
        steps.push(PathStep::Key(k.into()));
        ValuePath(steps)
    }

    /// This path extended by an index.
    pub fn index(&self, i: usize) -> ValuePath {
        let mut steps = self.0.clone();
        steps.push(PathStep::Index(i));
        ValuePath(steps)
    }

    /// Whether this is the whole value.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `self` is `other` or lies inside it.
    pub fn starts_with(&self, other: &ValuePath) -> bool {
        self.0.starts_with(&other.0)
    }
}

impl fmt::Display for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                PathStep::Key(k) if is_identifier(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                PathStep::Key(k) => {
                    f.write_str("[")?;
                    write_quoted(f, k, false)?;
                    f.write_str("]")?;
                }
                PathStep::Index(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    write!(f, "{n}")?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for ValuePath {
    type Err = Error;

    /// Parses `a.b`, `a.0`, `a[0]` and `a["k"]` (the forms [`ValuePath`]'s display and `ignore_changes` use).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| Error::InvalidValuePath {
            input: s.to_owned(),
            reason: reason.to_owned(),
        };
        let mut steps = Vec::new();
        let mut rest = s;
        let mut first = true;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[') {
                if let Some(after_quote) = after.strip_prefix('"') {
                    let (key, used) =
                        read_quoted(after_quote).ok_or_else(|| fail("unterminated key string"))?;
                    let tail = &after_quote[used..];
                    rest = tail
                        .strip_prefix(']')
                        .ok_or_else(|| fail("expected ] after key"))?;
                    steps.push(PathStep::Key(key));
                } else {
                    let end = after.find(']').ok_or_else(|| fail("expected ]"))?;
                    let n = after[..end]
                        .parse::<usize>()
                        .map_err(|_| fail("index is not a number"))?;
                    steps.push(PathStep::Index(n));
                    rest = &after[end + 1..];
                }
            } else {
                if !first {
                    rest = rest
                        .strip_prefix('.')
                        .ok_or_else(|| fail("expected . or ["))?;
                }
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                let word = &rest[..end];
                if word.is_empty() {
                    return Err(fail("empty step"));
                }
                if word.bytes().all(|b| b.is_ascii_digit()) {
                    steps.push(PathStep::Index(
                        word.parse().map_err(|_| fail("index out of range"))?,
                    ));
                } else if is_identifier(word) {
                    steps.push(PathStep::Key(word.to_owned()));
                } else {
                    return Err(fail("a step is neither an identifier nor an index"));
                }
                rest = &rest[end..];
            }
            first = false;
        }
        Ok(ValuePath(steps))
    }
}
