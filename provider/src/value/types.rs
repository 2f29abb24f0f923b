//! The type of a value, as Terraform writes type constraints.
//!
//! This module only names types; converting a value to one is [`super::convert`]'s job.

use std::collections::BTreeMap;
use std::fmt;

/// The type of a value, as Terraform writes type constraints (`list(string)`, `map(any)`).
///
/// Values carry no declared type; a `Type` describes what an unknown value will become, and what a
/// variable's `type` constraint asks for.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Type {
    /// Any type at all (`any`): the type of an unknown whose shape is not known either.
    Any,
    /// `bool`.
    Bool,
    /// `number`.
    Number,
    /// `string`.
    String,
    /// `list(T)`.
    List(Box<Type>),
    /// `set(T)`.
    Set(Box<Type>),
    /// `map(T)`.
    Map(Box<Type>),
    /// `object({ name = T, ... })`.
    Object(BTreeMap<String, Type>),
    /// `tuple([T, ...])`.
    Tuple(Vec<Type>),
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Any => f.write_str("any"),
            Type::Bool => f.write_str("bool"),
            Type::Number => f.write_str("number"),
            Type::String => f.write_str("string"),
            Type::List(t) => write!(f, "list({t})"),
            Type::Set(t) => write!(f, "set({t})"),
            Type::Map(t) => write!(f, "map({t})"),
            Type::Object(fields) => {
                f.write_str("object({")?;
                for (i, (k, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{k}={t}")?;
                }
                f.write_str("})")
            }
            Type::Tuple(items) => {
                f.write_str("tuple([")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str("])")
            }
        }
    }
}
