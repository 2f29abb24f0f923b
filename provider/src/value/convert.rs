//! Converting a value to a type constraint, as Terraform converts variables and resource arguments.
//!
//! Conversion never quotes the value it refuses in its reason: a value may be a secret.

use std::collections::BTreeMap;

use super::{Type, Value};

/// Converts a value to a type constraint as Terraform does: primitives convert between strings, numbers
/// and bools where the text allows; collections convert element-wise; object types keep their attributes and
/// drop others. `null` fits every type. Unknown and sensitive values keep their state.
pub fn convert(v: Value, ty: &Type) -> Result<Value, String> {
    let (v, marked) = v.unmark();
    if matches!(v, Value::Null | Value::Unknown(_)) || *ty == Type::Any {
        return Ok(v.mark_sensitive_if(marked));
    }
    let out = match (ty, v) {
        (Type::String, Value::String(s)) => Value::String(s),
        (Type::String, Value::Number(n)) => Value::String(n.to_string()),
        (Type::String, Value::Bool(b)) => Value::String(b.to_string()),
        (Type::Number, Value::Number(n)) => Value::Number(n),
        (Type::Number, Value::String(s)) => {
            // The value is never quoted back: a variable's value may be a secret (as Terraform, which says
            // only what was required).
            Value::Number(s.parse().map_err(|_| "a number is required".to_string())?)
        }
        (Type::Bool, Value::Bool(b)) => Value::Bool(b),
        (Type::Bool, Value::String(s)) if s == "true" => Value::Bool(true),
        (Type::Bool, Value::String(s)) if s == "false" => Value::Bool(false),
        (Type::Bool, Value::String(_)) => return Err("true or false is required".to_string()),
        (Type::List(t), Value::List(items)) => Value::List(convert_all(items, t)?),
        (Type::List(t), Value::Set(items)) => {
            Value::List(convert_all(items.into_iter().collect(), t)?)
        }
        (Type::Set(t), Value::List(items)) => {
            Value::Set(convert_all(items, t)?.into_iter().collect())
        }
        (Type::Set(t), Value::Set(items)) => Value::Set(
            convert_all(items.into_iter().collect(), t)?
                .into_iter()
                .collect(),
        ),
        (Type::Map(t), Value::Map(entries)) => {
            let mut out = BTreeMap::new();
            for (k, x) in entries {
                let x = convert(x, t).map_err(|why| format!("[{k:?}]: {why}"))?;
                out.insert(k, x);
            }
            Value::Map(out)
        }
        (Type::Object(fields), Value::Map(mut entries)) => {
            let mut out = BTreeMap::new();
            for (k, t) in fields {
                let x = entries
                    .remove(k)
                    .ok_or_else(|| format!("attribute {k:?} is required"))?;
                out.insert(
                    k.clone(),
                    convert(x, t).map_err(|why| format!(".{k}: {why}"))?,
                );
            }
            Value::Map(out)
        }
        (Type::Tuple(types), Value::List(items)) => {
            if items.len() != types.len() {
                return Err(format!(
                    "{} element(s) given, {} expected",
                    items.len(),
                    types.len()
                ));
            }
            let mut out = Vec::new();
            for (i, (x, t)) in items.into_iter().zip(types).enumerate() {
                out.push(convert(x, t).map_err(|why| format!("[{i}]: {why}"))?);
            }
            Value::List(out)
        }
        (ty, v) => return Err(format!("{} is not a {ty}", describe(&v))),
    };
    Ok(out.mark_sensitive_if(marked))
}

fn convert_all(items: Vec<Value>, t: &Type) -> Result<Vec<Value>, String> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, x)| convert(x, t).map_err(|why| format!("[{i}]: {why}")))
        .collect()
}

fn describe(v: &Value) -> &'static str {
    match v.peel() {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::List(_) => "a list",
        Value::Set(_) => "a set",
        Value::Map(_) => "a map",
        Value::Unknown(_) => "an unknown value",
        Value::Sensitive(_) => "a sensitive value",
    }
}
