//! Type constraints as a `variable` block writes them: the value types of [`Type`] plus the object
//! attributes marked `optional(T)` or `optional(T, default)`, and the conversion of a value to one as
//! Terraform converts variable values.
//!
//! A constraint holds expressions (an optional attribute's default), never values: the defaults are
//! evaluated by the caller, through the `default` closure [`conform`] takes. Conversion never quotes the
//! value it refuses: a value may be a secret.

use std::collections::BTreeMap;
use std::fmt;

use super::expr::Expr;
use crate::value::{Type, Value, convert};

/// A variable's type constraint.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeConstraint {
    /// `any`.
    Any,
    /// `bool`.
    Bool,
    /// `number`.
    Number,
    /// `string`.
    String,
    /// `list(T)`.
    List(Box<TypeConstraint>),
    /// `set(T)`.
    Set(Box<TypeConstraint>),
    /// `map(T)`.
    Map(Box<TypeConstraint>),
    /// `object({ name = T, other = optional(T, default) })`.
    Object(BTreeMap<String, ObjectAttribute>),
    /// `tuple([T, ...])`.
    Tuple(Vec<TypeConstraint>),
}

/// One attribute of an `object({...})` constraint.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectAttribute {
    /// The attribute's type.
    pub ty: TypeConstraint,
    /// Written `optional(T)` or `optional(T, default)`: a value may leave it out.
    pub optional: bool,
    /// The default of `optional(T, default)`, used when the attribute is left out or null.
    pub default: Option<Expr>,
}

impl TypeConstraint {
    /// The value type the constraint converts to (an optional attribute is an attribute like any).
    pub fn to_type(&self) -> Type {
        match self {
            TypeConstraint::Any => Type::Any,
            TypeConstraint::Bool => Type::Bool,
            TypeConstraint::Number => Type::Number,
            TypeConstraint::String => Type::String,
            TypeConstraint::List(t) => Type::List(Box::new(t.to_type())),
            TypeConstraint::Set(t) => Type::Set(Box::new(t.to_type())),
            TypeConstraint::Map(t) => Type::Map(Box::new(t.to_type())),
            TypeConstraint::Object(attrs) => Type::Object(
                attrs
                    .iter()
                    .map(|(k, a)| (k.clone(), a.ty.to_type()))
                    .collect(),
            ),
            TypeConstraint::Tuple(items) => {
                Type::Tuple(items.iter().map(TypeConstraint::to_type).collect())
            }
        }
    }

    /// Whether an `optional(...)` attribute sits anywhere in the constraint.
    fn has_optional(&self) -> bool {
        match self {
            TypeConstraint::Any
            | TypeConstraint::Bool
            | TypeConstraint::Number
            | TypeConstraint::String => false,
            TypeConstraint::List(t) | TypeConstraint::Set(t) | TypeConstraint::Map(t) => {
                t.has_optional()
            }
            TypeConstraint::Object(attrs) => {
                attrs.values().any(|a| a.optional || a.ty.has_optional())
            }
            TypeConstraint::Tuple(items) => items.iter().any(TypeConstraint::has_optional),
        }
    }
}

impl From<Type> for TypeConstraint {
    /// The constraint of a value type, with no optional attribute.
    fn from(ty: Type) -> Self {
        match ty {
            Type::Any => TypeConstraint::Any,
            Type::Bool => TypeConstraint::Bool,
            Type::Number => TypeConstraint::Number,
            Type::String => TypeConstraint::String,
            Type::List(t) => TypeConstraint::List(Box::new((*t).into())),
            Type::Set(t) => TypeConstraint::Set(Box::new((*t).into())),
            Type::Map(t) => TypeConstraint::Map(Box::new((*t).into())),
            Type::Object(fields) => TypeConstraint::Object(
                fields
                    .into_iter()
                    .map(|(k, t)| {
                        let attr = ObjectAttribute {
                            ty: t.into(),
                            optional: false,
                            default: None,
                        };
                        (k, attr)
                    })
                    .collect(),
            ),
            Type::Tuple(items) => {
                TypeConstraint::Tuple(items.into_iter().map(Into::into).collect())
            }
        }
    }
}

impl fmt::Display for TypeConstraint {
    /// As Terraform writes it; an optional attribute shows as `optional(T)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeConstraint::Object(attrs) => {
                f.write_str("object({")?;
                for (i, (k, a)) in attrs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    if a.optional {
                        write!(f, "{k}=optional({})", a.ty)?;
                    } else {
                        write!(f, "{k}={}", a.ty)?;
                    }
                }
                f.write_str("})")
            }
            TypeConstraint::List(t) => write!(f, "list({t})"),
            TypeConstraint::Set(t) => write!(f, "set({t})"),
            TypeConstraint::Map(t) => write!(f, "map({t})"),
            TypeConstraint::Tuple(items) => {
                f.write_str("tuple([")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str("])")
            }
            other => write!(f, "{}", other.to_type()),
        }
    }
}

/// Evaluates the default of an `optional(T, default)` attribute.
pub type DefaultEval<'d> = &'d dyn Fn(&Expr) -> Result<Value, String>;

/// Converts `v` to the constraint as Terraform converts a variable value: as [`convert`] does, and an
/// object attribute marked optional that the value leaves out (or sets to null) becomes its default, or
/// null when it has none. A default is converted to its attribute's type in turn, so nested defaults
/// apply. Sensitive and unknown values keep their state.
pub fn conform(v: Value, tc: &TypeConstraint, default: DefaultEval<'_>) -> Result<Value, String> {
    if !tc.has_optional() {
        return convert(v, &tc.to_type());
    }
    let (v, marked) = v.unmark();
    if matches!(v, Value::Null | Value::Unknown(_)) {
        return Ok(v.mark_sensitive_if(marked));
    }
    let each = |items: Vec<Value>, t: &TypeConstraint| -> Result<Vec<Value>, String> {
        items
            .into_iter()
            .enumerate()
            .map(|(i, x)| conform(x, t, default).map_err(|why| format!("[{i}]: {why}")))
            .collect()
    };
    let out = match (tc, v) {
        (TypeConstraint::List(t), Value::List(items)) => Value::List(each(items, t)?),
        (TypeConstraint::List(t), Value::Set(items)) => {
            Value::List(each(items.into_iter().collect(), t)?)
        }
        (TypeConstraint::Set(t), Value::List(items)) => {
            Value::Set(each(items, t)?.into_iter().collect())
        }
        (TypeConstraint::Set(t), Value::Set(items)) => {
            Value::Set(each(items.into_iter().collect(), t)?.into_iter().collect())
        }
        (TypeConstraint::Map(t), Value::Map(entries)) => {
            let mut out = BTreeMap::new();
            for (k, x) in entries {
                let x = conform(x, t, default).map_err(|why| format!("[{k:?}]: {why}"))?;
                out.insert(k, x);
            }
            Value::Map(out)
        }
        (TypeConstraint::Object(attrs), Value::Map(entries)) => {
            Value::Map(conform_object(entries, attrs, default)?)
        }
        (TypeConstraint::Tuple(types), Value::List(items)) => {
            if items.len() != types.len() {
                return Err(format!(
                    "{} element(s) given, {} expected",
                    items.len(),
                    types.len()
                ));
            }
            let mut out = Vec::new();
            for (i, (x, t)) in items.into_iter().zip(types).enumerate() {
                out.push(conform(x, t, default).map_err(|why| format!("[{i}]: {why}"))?);
            }
            Value::List(out)
        }
        (tc, v) => return convert(v, &tc.to_type()).map(|v| v.mark_sensitive_if(marked)),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// The attributes of an object value converted to `attrs`: extra attributes are dropped, a required one
/// left out is refused, an optional one left out or null takes its default.
fn conform_object(
    mut entries: BTreeMap<String, Value>,
    attrs: &BTreeMap<String, ObjectAttribute>,
    default: DefaultEval<'_>,
) -> Result<BTreeMap<String, Value>, String> {
    let mut out = BTreeMap::new();
    for (k, a) in attrs {
        let given = entries.remove(k);
        let x = match given {
            Some(x) if !x.is_null() => x,
            missing => match (&a.default, a.optional) {
                (Some(d), _) => default(d).map_err(|why| format!(".{k} default: {why}"))?,
                (None, true) => Value::Null,
                (None, false) => match missing {
                    Some(null) => null,
                    None => return Err(format!("attribute {k:?} is required")),
                },
            },
        };
        out.insert(
            k.clone(),
            conform(x, &a.ty, default).map_err(|why| format!(".{k}: {why}"))?,
        );
    }
    Ok(out)
}
