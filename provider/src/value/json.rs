//! Values to and from JSON: serde for known content (records, snapshots), plan JSON for what users see.
//!
//! An unknown value must never serialize; a sensitive one serializes as its content only through serde and
//! [`Value::to_json`], never through [`Value::to_plan_json`].

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

use super::{Number, Value};

use crate::error::ValueError as Error;

fn json_number(n: &serde_json::Number) -> Number {
    if let Some(i) = n.as_i64() {
        Number::from(i)
    } else if let Some(u) = n.as_u64() {
        Number::from(u)
    } else {
        // serde_json never holds a non-finite float.
        n.as_f64()
            .and_then(Number::from_f64)
            .unwrap_or(Number::from(0))
    }
}

/// A number as JSON carries it: integers exactly within `i64` and `u64`, anything else as the nearest
/// `f64` (digits past its 17 are lost, and past its range the number becomes `null`).
fn number_json(n: &Number) -> serde_json::Value {
    if let Some(i) = n.as_i64() {
        serde_json::Value::Number(i.into())
    } else if let Some(u) = n.as_u64() {
        serde_json::Value::Number(u.into())
    } else {
        serde_json::Number::from_f64(n.as_f64())
            .map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

impl Serialize for Value {
    /// Serializes known content; sensitive values serialize as their content, and an unknown is an error.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    serializer.serialize_i64(i)
                } else if let Some(u) = n.as_u64() {
                    serializer.serialize_u64(u)
                } else {
                    let f = n.as_f64();
                    if !f.is_finite() {
                        return Err(ser::Error::custom(
                            "a number past the range of JSON numbers",
                        ));
                    }
                    serializer.serialize_f64(f)
                }
            }
            Value::String(s) => serializer.serialize_str(s),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Set(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Value::Unknown(_) => Err(ser::Error::custom("an unknown value cannot be serialized")),
            Value::Sensitive(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        Value::number_f64(f).map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = BTreeMap::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            entries.insert(k, v);
        }
        Ok(Value::Map(entries))
    }
}

impl Value {
    /// Builds a value from JSON (integers stay exact within `i64`).
    pub fn from_json(json: serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(json_number(&n)),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => {
                Value::List(items.into_iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// The value as JSON, sensitive content included (for records); `Err` when any part is unknown.
    pub fn to_json(&self) -> Result<serde_json::Value, Error> {
        if let Some(p) = self.unknown_paths().first() {
            return Err(Error::UnknownValue {
                path: p.to_string(),
            });
        }
        Ok(self.to_json_with(false))
    }

    /// The value as plan JSON shows it: a sensitive value becomes the string `"(sensitive)"`; a map entry
    /// that is wholly unknown is left out (plan JSON lists it in `after_unknown`), and any other unknown
    /// becomes `null`.
    pub fn to_plan_json(&self) -> serde_json::Value {
        self.to_json_with(true)
    }

    fn to_json_with(&self, plan: bool) -> serde_json::Value {
        match self {
            Value::Null | Value::Unknown(_) => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => number_json(n),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::List(items) => {
                serde_json::Value::Array(items.iter().map(|x| x.to_json_with(plan)).collect())
            }
            Value::Set(items) => {
                serde_json::Value::Array(items.iter().map(|x| x.to_json_with(plan)).collect())
            }
            Value::Map(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .filter(|(_, v)| !(plan && v.is_unknown()))
                    .map(|(k, v)| (k.clone(), v.to_json_with(plan)))
                    .collect(),
            ),
            Value::Sensitive(_) if plan => serde_json::Value::String("(sensitive)".to_owned()),
            Value::Sensitive(v) => v.to_json_with(plan),
        }
    }
}
