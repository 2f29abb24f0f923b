//! Values as Terraform's JSON representations write them: the value itself with every sensitive leaf
//! written as `null`, and the two masks beside it (`after_unknown`, `after_sensitive`, `sensitive_values`).
//!
//! A mask mirrors its value: `true` at a leaf that is unknown (or sensitive), an object keeping only its
//! entries that are not `false`, a list keeping every element. This module must never write a sensitive
//! value's content, nor an unknown as if it were known.

use admission::Value;
use serde_json::{Map, Value as Json};

/// `value` with every sensitive part written as `null` and every unknown left out of its object (or written
/// as `null` in a list), as Terraform leaves unknowns out of `after`.
pub(crate) fn redacted(value: &Value) -> Json {
    match value {
        Value::Null | Value::Unknown(_) | Value::Sensitive(_) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Map(entries) => Json::Object(
            entries
                .iter()
                .filter(|(_, v)| !v.is_unknown())
                .map(|(k, v)| (k.clone(), redacted(v)))
                .collect(),
        ),
        Value::List(items) => Json::Array(items.iter().map(redacted).collect()),
        Value::Set(items) => Json::Array(items.iter().map(redacted).collect()),
        // Numbers and strings: the plan JSON of a known, unmarked leaf is its plain JSON.
        leaf => leaf.to_plan_json(),
    }
}

/// The mask of `value`'s unknown leaves (`after_unknown`), or `known` when the value is wholly known
/// (Terraform writes `{}` for a resource's, `false` for an output's).
pub(crate) fn unknown_mask(value: &Value, known: Json) -> Json {
    if value.is_known() {
        return known;
    }
    mask(value, &Value::is_unknown)
}

/// The mask of `value`'s sensitive parts (`before_sensitive`, `after_sensitive`, `sensitive_values`).
pub(crate) fn sensitive_mask(value: &Value) -> Json {
    mask(value, &|v| matches!(v, Value::Sensitive(_)))
}

/// `true` where `hit` holds, else the structure of the value with its `true`s (objects drop `false`s).
fn mask(value: &Value, hit: &dyn Fn(&Value) -> bool) -> Json {
    if hit(value) {
        return Json::Bool(true);
    }
    match value.peel() {
        Value::Map(entries) => {
            let mut out = Map::new();
            for (k, v) in entries {
                let m = mask(v, hit);
                if m != Json::Bool(false) {
                    out.insert(k.clone(), m);
                }
            }
            Json::Object(out)
        }
        Value::List(items) => Json::Array(items.iter().map(|v| mask(v, hit)).collect()),
        Value::Set(items) => Json::Array(items.iter().map(|v| mask(v, hit)).collect()),
        _ => Json::Bool(false),
    }
}

/// An attribute map as one object value.
pub(crate) fn object(attributes: &std::collections::BTreeMap<String, Value>) -> Value {
    Value::Map(attributes.clone())
}
