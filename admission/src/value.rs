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
//! use admission::value::Value;
//!
//! let v = Value::from_json(serde_json::json!({"cidr_block": "10.0.0.0/16", "tags": {}}));
//! assert_eq!(v.to_string(), r#"{ cidr_block = "10.0.0.0/16", tags = {} }"#);
//! assert_eq!(Value::unknown().to_string(), "(known after apply)");
//! assert_eq!(Value::from("s3cr3t").sensitive().to_string(), "(sensitive value)");
//! ```

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// A finite number: an exact integer when the value is integral and fits `i64`, a float otherwise.
///
/// The representation is normalized on construction, so `Number::from(2)` and `Number::from_f64(2.0)` are
/// the same value and compare, hash and print alike (`2`).
#[derive(Debug, Clone, Copy)]
pub struct Number(Repr);

#[derive(Debug, Clone, Copy)]
enum Repr {
    Int(i64),
    Float(f64),
}

impl Number {
    /// The number `f`, or `None` when it is NaN or infinite.
    pub fn from_f64(f: f64) -> Option<Number> {
        if !f.is_finite() {
            return None;
        }
        // Integral floats inside the i64 range become exact integers; -0.0 becomes 0.
        if f.fract() == 0.0
            && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
        {
            return Some(Number(Repr::Int(f as i64)));
        }
        Some(Number(Repr::Float(f)))
    }

    /// The number as an `i64` when it is an integer in range.
    pub fn as_i64(self) -> Option<i64> {
        match self.0 {
            Repr::Int(i) => Some(i),
            Repr::Float(_) => None,
        }
    }

    /// The number as a `u64` when it is a non-negative integer in range.
    pub fn as_u64(self) -> Option<u64> {
        self.as_i64().and_then(|i| u64::try_from(i).ok())
    }

    /// The number as an `f64` (possibly rounded for integers beyond 2^53).
    pub fn as_f64(self) -> f64 {
        match self.0 {
            Repr::Int(i) => i as f64,
            Repr::Float(f) => f,
        }
    }

    /// Whether the number is an integer (every integer within `i64` is held exactly).
    pub fn is_integer(self) -> bool {
        match self.0 {
            Repr::Int(_) => true,
            Repr::Float(f) => f.fract() == 0.0,
        }
    }

    fn float_op(self, other: Number, op: fn(f64, f64) -> f64) -> Option<Number> {
        Number::from_f64(op(self.as_f64(), other.as_f64()))
    }

    /// The sum; exact for integers, `None` only when the result is not finite.
    pub fn checked_add(self, other: Number) -> Option<Number> {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => match a.checked_add(b) {
                Some(s) => Some(Number(Repr::Int(s))),
                None => self.float_op(other, |a, b| a + b),
            },
            _ => self.float_op(other, |a, b| a + b),
        }
    }

    /// The difference; exact for integers, `None` only when the result is not finite.
    pub fn checked_sub(self, other: Number) -> Option<Number> {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => match a.checked_sub(b) {
                Some(s) => Some(Number(Repr::Int(s))),
                None => self.float_op(other, |a, b| a - b),
            },
            _ => self.float_op(other, |a, b| a - b),
        }
    }

    /// The product; exact for integers, `None` only when the result is not finite.
    pub fn checked_mul(self, other: Number) -> Option<Number> {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => match a.checked_mul(b) {
                Some(s) => Some(Number(Repr::Int(s))),
                None => self.float_op(other, |a, b| a * b),
            },
            _ => self.float_op(other, |a, b| a * b),
        }
    }

    /// The quotient (`5 / 2` is `2.5`, as in Terraform); `None` when dividing by zero.
    pub fn checked_div(self, other: Number) -> Option<Number> {
        if other.as_f64() == 0.0 {
            return None;
        }
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) if b != 0 && a % b == 0 => {
                a.checked_div(b).map(|q| Number(Repr::Int(q)))
            }
            _ => self.float_op(other, |a, b| a / b),
        }
    }

    /// The remainder with the sign of the dividend (`-7 % 3` is `-1`); `None` when dividing by zero.
    pub fn checked_rem(self, other: Number) -> Option<Number> {
        if other.as_f64() == 0.0 {
            return None;
        }
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => Some(Number(Repr::Int(a.checked_rem(b).unwrap_or(0)))),
            _ => self.float_op(other, |a, b| a % b),
        }
    }

    /// The negation.
    pub fn negate(self) -> Number {
        match self.0 {
            Repr::Int(i) => match i.checked_neg() {
                Some(n) => Number(Repr::Int(n)),
                None => Number(Repr::Float(-(i as f64))),
            },
            Repr::Float(f) => Number(Repr::Float(-f)),
        }
    }
}

impl From<i64> for Number {
    fn from(i: i64) -> Self {
        Number(Repr::Int(i))
    }
}

impl From<i32> for Number {
    fn from(i: i32) -> Self {
        Number(Repr::Int(i64::from(i)))
    }
}

impl From<u32> for Number {
    fn from(i: u32) -> Self {
        Number(Repr::Int(i64::from(i)))
    }
}

impl From<u64> for Number {
    fn from(u: u64) -> Self {
        match i64::try_from(u) {
            Ok(i) => Number(Repr::Int(i)),
            Err(_) => Number(Repr::Float(u as f64)),
        }
    }
}

impl From<usize> for Number {
    fn from(u: usize) -> Self {
        Number::from(u as u64)
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Number {}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.0, other.0) {
            (Repr::Int(a), Repr::Int(b)) => a.cmp(&b),
            (Repr::Float(a), Repr::Float(b)) => a.total_cmp(&b),
            // Normalization keeps integral values in range as Int, so a tie here is only a rounding
            // artefact; ordering Int first keeps the order total and consistent with equality.
            (Repr::Int(a), Repr::Float(b)) => (a as f64).total_cmp(&b).then(Ordering::Less),
            (Repr::Float(a), Repr::Int(b)) => a.total_cmp(&(b as f64)).then(Ordering::Greater),
        }
    }
}

impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.0 {
            Repr::Int(i) => {
                0u8.hash(state);
                i.hash(state);
            }
            Repr::Float(f) => {
                1u8.hash(state);
                f.to_bits().hash(state);
            }
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Repr::Int(i) => write!(f, "{i}"),
            // Rust prints the shortest text that reads back to the same float, never in exponent form.
            Repr::Float(x) => write!(f, "{x}"),
        }
    }
}

impl FromStr for Number {
    type Err = Error;

    /// Parses decimal text as Terraform's `tonumber` does: an optional sign, digits, an optional fraction and
    /// exponent (`"10"`, `"-2.5"`, `"1e3"`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || Error::InvalidNumber { text: s.to_owned() };
        let plausible = s
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
            && s.chars().any(|c| c.is_ascii_digit());
        if !plausible {
            return Err(invalid());
        }
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Number(Repr::Int(i)));
        }
        s.parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .ok_or_else(invalid)
    }
}

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

/// Whether `s` is an identifier as HCL spells attribute names: a letter or `_`, then letters, digits, `_`, `-`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
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

/// Reads an HCL string body after its opening quote; returns the text and the bytes used, closing quote
/// included.
pub(crate) fn read_quoted(s: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' | 'U' => {
                        let len = if e == 'u' { 4 } else { 8 };
                        let mut code = 0u32;
                        for _ in 0..len {
                            let (_, h) = chars.next()?;
                            code = code * 16 + h.to_digit(16)?;
                        }
                        out.push(char::from_u32(code)?);
                    }
                    _ => return None,
                }
            }
            c if c.is_control() => return None,
            c => out.push(c),
        }
    }
    None
}

/// Writes `s` as an HCL quoted string; with `template` set, `${` and `%{` are escaped as HCL requires.
pub(crate) fn write_quoted(out: &mut impl fmt::Write, s: &str, template: bool) -> fmt::Result {
    out.write_char('"')?;
    let mut prev_dollar_or_percent = None;
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            '{' if template && prev_dollar_or_percent.is_some() => {
                out.write_char(prev_dollar_or_percent.unwrap_or('$'))?;
                out.write_char('{')?;
            }
            c if c.is_control() => write!(out, "\\u{:04X}", c as u32)?,
            c => out.write_char(c)?,
        }
        prev_dollar_or_percent = if matches!(c, '$' | '%') {
            Some(c)
        } else {
            None
        };
    }
    out.write_char('"')
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
            Value::Number(n) => Some(*n),
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
            Value::Number(n) => number_json(*n),
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

fn number_json(n: Number) -> serde_json::Value {
    match n.0 {
        Repr::Int(i) => serde_json::Value::Number(i.into()),
        Repr::Float(f) => serde_json::Number::from_f64(f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
    }
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

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Number(Number::from(i))
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Self {
        Value::Number(Number::from(i))
    }
}

impl From<u32> for Value {
    fn from(i: u32) -> Self {
        Value::Number(Number::from(i))
    }
}

impl From<u64> for Value {
    fn from(u: u64) -> Self {
        Value::Number(Number::from(u))
    }
}

impl From<usize> for Value {
    fn from(u: usize) -> Self {
        Value::Number(Number::from(u))
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::List(items)
    }
}

impl From<BTreeMap<String, Value>> for Value {
    fn from(entries: BTreeMap<String, Value>) -> Self {
        Value::Map(entries)
    }
}

impl From<BTreeMap<String, String>> for Value {
    fn from(entries: BTreeMap<String, String>) -> Self {
        Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        )
    }
}

impl From<serde_json::Value> for Value {
    fn from(json: serde_json::Value) -> Self {
        Value::from_json(json)
    }
}

impl Serialize for Value {
    /// Serializes known content; sensitive values serialize as their content, and an unknown is an error.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => match n.0 {
                Repr::Int(i) => serializer.serialize_i64(i),
                Repr::Float(f) => serializer.serialize_f64(f),
            },
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
