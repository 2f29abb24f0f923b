//! Values of the configuration language and of live objects: null, booleans, numbers, strings, lists, sets
//! and maps, plus the two things a plan needs beyond JSON: *unknown* values (known only after apply) and the
//! *sensitive* mark (shown as `(sensitive value)`, never printed).
//!
//! A value is plain data with a total, deterministic order: maps are sorted by key and sets by value, so
//! anything built from values renders the same bytes every time. The sensitive mark is a wrapper
//! ([`Value::Sensitive`]) that may sit at any depth, so one secret attribute of an object stays marked while
//! its neighbours print normally; operations that derive a value from a marked one must keep the mark
//! ([`Value::mark_sensitive_if`], [`Value::equals`]). Known values serialize to and from JSON with serde;
//! an unknown value refuses to serialize instead of inventing a placeholder. Sensitive values serialize as
//! their content (records need it); use [`Value::to_plan_json`] for anything a user sees.
//!
//! This module must never print, and never treat an unknown value as equal to a known one.
//!
//! ```
//! use provider::value::Value;
//!
//! let v = Value::from_json(serde_json::json!({"cidr_block": "10.0.0.0/16", "tags": {}}));
//! assert_eq!(v.to_string(), r#"{ cidr_block = "10.0.0.0/16", tags = {} }"#);
//! assert_eq!(Value::unknown().to_string(), "(known after apply)");
//! assert_eq!(Value::from("s3cr3t").sensitive().to_string(), "(sensitive value)");
//! ```

mod convert;
mod display;
mod from;
mod json;
mod number;
mod path;
pub mod syntax;
mod types;
mod unify;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub use convert::convert;
pub use number::Number;
pub use path::{PathStep, ValuePath};
pub use syntax::is_identifier;
pub use types::Type;
pub use unify::{converts, unify as unify_types};

use crate::error::ValueError as Error;

/// A configuration or live value.
///
/// The derived equality is structural and sees marks: `Sensitive("a") != "a"`, and `Unknown` equals only an
/// unknown of the same type. For the language's `==` use [`Value::equals`]; to decide whether a desired value
/// differs from a live one use [`Value::same_as`].
///
/// `Debug` prints the structure as a derived implementation would, except inside a sensitive value: that
/// prints as `Sensitive(..)`, so a `{:?}` of a plan, a record or an error never shows a secret.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// `null`: the absence of a value.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A finite number.
    Number(Number),
    /// A string.
    String(String),
    /// A list or tuple, in order.
    List(Vec<Value>),
    /// A set: sorted, without duplicates.
    Set(BTreeSet<Value>),
    /// A map or object, sorted by key.
    Map(BTreeMap<String, Value>),
    /// A value known only after apply, of the given type ([`Type::Any`] when even that is unknown).
    Unknown(Type),
    /// A value marked sensitive: kept and compared as usual, never shown.
    Sensitive(Box<Value>),
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => f.debug_tuple("Bool").field(b).finish(),
            Value::Number(n) => f.debug_tuple("Number").field(n).finish(),
            Value::String(s) => f.debug_tuple("String").field(s).finish(),
            Value::List(items) => f.debug_tuple("List").field(items).finish(),
            Value::Set(items) => f.debug_tuple("Set").field(items).finish(),
            Value::Map(map) => f.debug_tuple("Map").field(map).finish(),
            Value::Unknown(t) => f.debug_tuple("Unknown").field(t).finish(),
            // The content is a secret: its shape is not shown either.
            Value::Sensitive(_) => f.write_str("Sensitive(..)"),
        }
    }
}

impl Value {
    /// An unknown value of any type.
    pub fn unknown() -> Value {
        Value::Unknown(Type::Any)
    }

    /// An unknown value of type `t`.
    pub fn unknown_of(t: Type) -> Value {
        Value::Unknown(t)
    }

    /// A number value from a float; `Err` when the float is NaN or infinite.
    pub fn number_f64(f: f64) -> Result<Value, Error> {
        Number::from_f64(f)
            .map(Value::Number)
            .ok_or(Error::NonFiniteNumber)
    }

    /// An empty map.
    pub fn empty_map() -> Value {
        Value::Map(BTreeMap::new())
    }

    /// A map from `(key, value)` pairs.
    pub fn map<K: Into<String>, V: Into<Value>>(pairs: impl IntoIterator<Item = (K, V)>) -> Value {
        Value::Map(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }

    /// A list of values.
    pub fn list<V: Into<Value>>(items: impl IntoIterator<Item = V>) -> Value {
        Value::List(items.into_iter().map(Into::into).collect())
    }

    /// This value marked sensitive (marking twice is marking once).
    pub fn sensitive(self) -> Value {
        match self {
            Value::Sensitive(_) => self,
            v => Value::Sensitive(Box::new(v)),
        }
    }

    /// This value, marked sensitive when `marked` is true: how an operation passes its operand's mark on.
    pub fn mark_sensitive_if(self, marked: bool) -> Value {
        if marked { self.sensitive() } else { self }
    }

    /// The value without its top-level sensitive mark, and whether it had one.
    pub fn unmark(self) -> (Value, bool) {
        let mut v = self;
        let mut marked = false;
        while let Value::Sensitive(inner) = v {
            v = *inner;
            marked = true;
        }
        (v, marked)
    }

    /// The value under any top-level sensitive mark, by reference.
    pub fn peel(&self) -> &Value {
        let mut v = self;
        while let Value::Sensitive(inner) = v {
            v = inner;
        }
        v
    }

    /// The value with every sensitive mark removed, and the paths that were marked (sorted).
    pub fn unmark_deep(self) -> (Value, Vec<ValuePath>) {
        let mut paths = Vec::new();
        let v = self.unmark_deep_at(&ValuePath::root(), &mut paths);
        paths.sort();
        (v, paths)
    }

    fn unmark_deep_at(self, at: &ValuePath, paths: &mut Vec<ValuePath>) -> Value {
        let (v, marked) = self.unmark();
        if marked {
            paths.push(at.clone());
        }
        match v {
            Value::List(items) => Value::List(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, x)| x.unmark_deep_at(&at.index(i), paths))
                    .collect(),
            ),
            Value::Set(items) => {
                // A set has no stable positions to remember, so a mark inside it moves to the whole set.
                let mut inner = Vec::new();
                let items: BTreeSet<Value> = items
                    .into_iter()
                    .map(|x| x.unmark_deep_at(at, &mut inner))
                    .collect();
                if !inner.is_empty() && !marked {
                    paths.push(at.clone());
                }
                Value::Set(items)
            }
            Value::Map(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, x)| {
                        let p = at.key(k.clone());
                        (k, x.unmark_deep_at(&p, paths))
                    })
                    .collect(),
            ),
            other => other,
        }
    }

    /// The value with the sensitive mark put back at each of `paths` (as [`Value::unmark_deep`] listed
    /// them); paths that do not exist in the value are ignored.
    pub fn mark_paths(self, paths: &[ValuePath]) -> Value {
        let mut v = self;
        for p in paths {
            v = v.mark_at(&p.0);
        }
        v
    }

    fn mark_at(self, steps: &[PathStep]) -> Value {
        let Some((first, rest)) = steps.split_first() else {
            return self.sensitive();
        };
        let (v, marked) = self.unmark();
        let v = match (v, first) {
            (Value::Map(mut entries), PathStep::Key(k)) => {
                if let Some(x) = entries.remove(k) {
                    entries.insert(k.clone(), x.mark_at(rest));
                }
                Value::Map(entries)
            }
            (Value::List(mut items), PathStep::Index(i)) => {
                if let Some(slot) = items.get_mut(*i) {
                    let x = std::mem::replace(slot, Value::Null);
                    *slot = x.mark_at(rest);
                }
                Value::List(items)
            }
            (other, _) => other,
        };
        v.mark_sensitive_if(marked)
    }

    /// Whether the value carries a sensitive mark at the top.
    pub fn is_sensitive(&self) -> bool {
        matches!(self, Value::Sensitive(_))
    }

    /// Whether the value carries a sensitive mark anywhere.
    pub fn contains_sensitive(&self) -> bool {
        match self {
            Value::Sensitive(_) => true,
            Value::List(items) => items.iter().any(Value::contains_sensitive),
            Value::Set(items) => items.iter().any(Value::contains_sensitive),
            Value::Map(entries) => entries.values().any(Value::contains_sensitive),
            _ => false,
        }
    }

    /// Whether the value is null (under any mark).
    pub fn is_null(&self) -> bool {
        matches!(self.peel(), Value::Null)
    }

    /// Whether the value as a whole is unknown (under any mark).
    pub fn is_unknown(&self) -> bool {
        matches!(self.peel(), Value::Unknown(_))
    }

    /// Whether the value is wholly known: no unknown anywhere inside it.
    pub fn is_known(&self) -> bool {
        match self {
            Value::Unknown(_) => false,
            Value::Sensitive(v) => v.is_known(),
            Value::List(items) => items.iter().all(Value::is_known),
            Value::Set(items) => items.iter().all(Value::is_known),
            Value::Map(entries) => entries.values().all(Value::is_known),
            _ => true,
        }
    }

    /// The paths of the unknown values inside this one, sorted (the root path when the whole is unknown).
    pub fn unknown_paths(&self) -> Vec<ValuePath> {
        let mut out = Vec::new();
        self.unknown_paths_at(&ValuePath::root(), &mut out);
        out.sort();
        out
    }

    fn unknown_paths_at(&self, at: &ValuePath, out: &mut Vec<ValuePath>) {
        match self {
            Value::Unknown(_) => out.push(at.clone()),
            Value::Sensitive(v) => v.unknown_paths_at(at, out),
            Value::List(items) => {
                for (i, x) in items.iter().enumerate() {
                    x.unknown_paths_at(&at.index(i), out);
                }
            }
            Value::Set(items) if items.iter().any(|x| !x.is_known()) => out.push(at.clone()),
            Value::Map(entries) => {
                for (k, x) in entries {
                    x.unknown_paths_at(&at.key(k.clone()), out);
                }
            }
            _ => {}
        }
    }

    /// The string content, under any mark.
    pub fn as_str(&self) -> Option<&str> {
        match self.peel() {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, under any mark.
    pub fn as_bool(&self) -> Option<bool> {
        match self.peel() {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, under any mark.
    pub fn as_number(&self) -> Option<Number> {
        match self.peel() {
            Value::Number(n) => Some(n.clone()),
            _ => None,
        }
    }

    /// The entries of a map or object, under any mark.
    pub fn as_map(&self) -> Option<&BTreeMap<String, Value>> {
        match self.peel() {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The entries of a map whose values are all strings (a `tags` value), under any marks.
    pub fn as_string_map(&self) -> Option<BTreeMap<String, String>> {
        self.as_map()?
            .iter()
            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect()
    }

    /// The items of a list, under any mark.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self.peel() {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// The attribute or map entry `name` (under any mark on the container; the entry keeps its own marks).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.as_map().and_then(|m| m.get(name))
    }

    /// The value at `path`, if it exists.
    pub fn at(&self, path: &ValuePath) -> Option<&Value> {
        let mut v = self;
        for step in &path.0 {
            v = match (v.peel(), step) {
                (Value::Map(m), PathStep::Key(k)) => m.get(k)?,
                (Value::List(items), PathStep::Index(i)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// The type of this value as far as it is known (`Type::Any` for an untyped unknown).
    pub fn type_of(&self) -> Type {
        match self {
            Value::Null | Value::Unknown(Type::Any) => Type::Any,
            Value::Unknown(t) => t.clone(),
            Value::Bool(_) => Type::Bool,
            Value::Number(_) => Type::Number,
            Value::String(_) => Type::String,
            Value::List(items) => Type::Tuple(items.iter().map(Value::type_of).collect()),
            Value::Set(items) => Type::Set(Box::new(unify(items.iter().map(Value::type_of)))),
            Value::Map(entries) => Type::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.type_of()))
                    .collect(),
            ),
            Value::Sensitive(v) => v.type_of(),
        }
    }

    /// The language's `==`: unknown when either side is unknown somewhere it matters, sensitive when either
    /// side is, otherwise a known boolean. Marks are ignored when comparing content.
    pub fn equals(&self, other: &Value) -> Value {
        let marked = self.contains_sensitive() || other.contains_sensitive();
        let result = match equals_known(self, other) {
            Some(b) => Value::Bool(b),
            None => Value::Unknown(Type::Bool),
        };
        result.mark_sensitive_if(marked)
    }

    /// Whether a desired value and a live value mean the same thing, for diffing: marks are ignored, and any
    /// unknown makes the answer `false` (an unknown is a change that apply will settle).
    pub fn same_as(&self, other: &Value) -> bool {
        self.is_known() && other.is_known() && equals_known(self, other) == Some(true)
    }
}

fn unify(types: impl Iterator<Item = Type>) -> Type {
    let mut seen: Option<Type> = None;
    for t in types {
        match &seen {
            None => seen = Some(t),
            Some(s) if *s == t => {}
            Some(_) => return Type::Any,
        }
    }
    seen.unwrap_or(Type::Any)
}

/// Compares content with marks ignored; `None` when unknowns leave the answer open.
fn equals_known(a: &Value, b: &Value) -> Option<bool> {
    let (a, b) = (a.peel(), b.peel());
    match (a, b) {
        (Value::Unknown(_), _) | (_, Value::Unknown(_)) => None,
        (Value::List(x), Value::List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            all_equal(x.iter().zip(y.iter()))
        }
        (Value::Set(x), Value::Set(y)) => {
            if x.iter().chain(y.iter()).any(|v| !v.is_known()) {
                return None;
            }
            let strip = |s: &BTreeSet<Value>| {
                s.iter()
                    .map(|v| v.clone().unmark_deep().0)
                    .collect::<BTreeSet<_>>()
            };
            Some(strip(x) == strip(y))
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.len() != y.len() || x.keys().ne(y.keys()) {
                return Some(false);
            }
            all_equal(x.values().zip(y.values()))
        }
        _ => Some(a == b),
    }
}

fn all_equal<'a>(pairs: impl Iterator<Item = (&'a Value, &'a Value)>) -> Option<bool> {
    let mut open = false;
    for (x, y) in pairs {
        match equals_known(x, y) {
            Some(false) => return Some(false),
            None => open = true,
            Some(true) => {}
        }
    }
    if open { None } else { Some(true) }
}
