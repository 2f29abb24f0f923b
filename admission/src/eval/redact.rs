//! How an error refers to a sensitive value: never by its text. [`quoted`] is what every message that
//! names a value uses; [`unquoted`] is the safety net around a function call, for a message that still
//! quotes a sensitive argument's text.
//!
//! This module must never build a message holding a sensitive value's content.

use super::{EvalError, primitive_text};
use crate::value::Value;

/// A value's text as an error message quotes it: `"text"`, or `(sensitive)` when the value it came from
/// carries a sensitive mark: an error never quotes a secret.
pub(crate) fn quoted(text: &str, sensitive: bool) -> String {
    if sensitive {
        "(sensitive)".to_owned()
    } else {
        format!("{text:?}")
    }
}

/// `e` as it may be shown: when its message quotes the text of a sensitive argument (a function that
/// forgot to say `(sensitive)`), the message says only which function refused its sensitive arguments.
pub(super) fn unquoted(name: &str, e: EvalError, args: &[Value]) -> EvalError {
    let EvalError::Invalid(mut d) = e else {
        return e;
    };
    let mut secrets = Vec::new();
    for a in args {
        sensitive_texts(a, false, &mut secrets);
    }
    let quotes = |text: &str| {
        secrets.iter().any(|s| {
            let escaped = format!("{s:?}");
            text.contains(s.as_str()) || text.contains(escaped.trim_matches('"'))
        })
    };
    if quotes(&d.summary) || quotes(&d.detail) {
        let lead = if d.code == crate::diag::Code::InvalidFunctionArgument {
            "invalid function argument"
        } else {
            "invalid expression"
        };
        d.summary = format!("{lead}: {name}() cannot use its (sensitive) arguments");
    }
    EvalError::Invalid(d)
}

/// The texts of the primitive values under a sensitive mark in `v` (`marked`: `v` is under one).
fn sensitive_texts(v: &Value, marked: bool, out: &mut Vec<String>) {
    match v {
        Value::Sensitive(inner) => sensitive_texts(inner, true, out),
        Value::List(items) => items.iter().for_each(|x| sensitive_texts(x, marked, out)),
        Value::Set(items) => items.iter().for_each(|x| sensitive_texts(x, marked, out)),
        Value::Map(entries) => {
            for (k, x) in entries {
                if marked && !k.is_empty() {
                    out.push(k.clone());
                }
                sensitive_texts(x, marked, out);
            }
        }
        other if marked => out.extend(primitive_text(other).filter(|t| !t.is_empty())),
        _ => {}
    }
}
