//! Type unification as cty performs it for Terraform: the one type that the results of a conditional's two
//! branches (or a function's arguments) can all be converted to.
//!
//! The rules: equal types unify to themselves; `any` (a literal `null`, an unknown of unknown type) yields
//! to the others; objects unify attribute by attribute when their names match and into a map of the
//! unified attribute types when they do not; tuples likewise element by element, or into a list; object
//! and tuple types never unify with each other. Otherwise the most general of the given types that every
//! other converts to is chosen, string first among primitives (so number and string give string, bool and
//! string give string; number and bool alone do not unify, as in cty, which has no conversion between
//! them). This module only computes types; [`super::convert`] converts the values.

use std::collections::BTreeMap;

use super::Type;

/// The unified type of `types`, or `None` when they have none in common (Terraform's "Inconsistent
/// conditional result types", "all arguments must have the same type").
pub fn unify(types: &[Type]) -> Option<Type> {
    let first = types.first()?;
    if types.iter().all(|t| t == first) {
        return Some(first.clone());
    }
    let known: Vec<&Type> = types.iter().filter(|t| **t != Type::Any).collect();
    let Some(&one) = known.first() else {
        return Some(Type::Any);
    };
    if known.iter().all(|t| *t == one) {
        return Some(one.clone());
    }
    let objects = known
        .iter()
        .filter(|t| matches!(t, Type::Object(_)))
        .count();
    let tuples = known.iter().filter(|t| matches!(t, Type::Tuple(_))).count();
    match (objects, tuples) {
        (o, t) if o > 0 && t > 0 => return None,
        (o, _) if o == known.len() => return unify_objects(&known),
        (_, t) if t == known.len() => return unify_tuples(&known),
        _ => {}
    }
    let mut order = known.clone();
    order.sort_by_key(|t| generality(t));
    order
        .into_iter()
        .find(|want| known.iter().all(|t| converts(t, want)))
        .cloned()
}

/// Objects: attribute by attribute when every object has the same names, else a map of every attribute's
/// type unified.
fn unify_objects(objects: &[&Type]) -> Option<Type> {
    let fields: Vec<&BTreeMap<String, Type>> = objects
        .iter()
        .filter_map(|t| match t {
            Type::Object(f) => Some(f),
            _ => None,
        })
        .collect();
    let same_names = fields.iter().all(|f| f.keys().eq(fields[0].keys()));
    if same_names {
        let mut out = BTreeMap::new();
        for name in fields[0].keys() {
            let across: Vec<Type> = fields.iter().map(|f| f[name].clone()).collect();
            out.insert(name.clone(), unify(&across)?);
        }
        return Some(Type::Object(out));
    }
    let all: Vec<Type> = fields.iter().flat_map(|f| f.values().cloned()).collect();
    Some(Type::Map(Box::new(unify(&all)?)))
}

/// Tuples: element by element when every tuple has the same length, else a list of every element's type
/// unified.
fn unify_tuples(tuples: &[&Type]) -> Option<Type> {
    let elems: Vec<&Vec<Type>> = tuples
        .iter()
        .filter_map(|t| match t {
            Type::Tuple(e) => Some(e),
            _ => None,
        })
        .collect();
    if elems.iter().all(|e| e.len() == elems[0].len()) {
        let mut out = Vec::with_capacity(elems[0].len());
        for i in 0..elems[0].len() {
            let across: Vec<Type> = elems.iter().map(|e| e[i].clone()).collect();
            out.push(unify(&across)?);
        }
        return Some(Type::Tuple(out));
    }
    let all: Vec<Type> = elems.iter().flat_map(|e| e.iter().cloned()).collect();
    Some(Type::List(Box::new(unify(&all)?)))
}

/// A preference rank, as cty orders types: more general first (string among primitives, a list before a
/// set or a tuple, a map before an object).
fn generality(t: &Type) -> u8 {
    match t {
        Type::String | Type::List(_) | Type::Map(_) => 0,
        Type::Set(_) | Type::Tuple(_) | Type::Object(_) => 1,
        _ => 2,
    }
}

/// Whether a value of type `from` can be converted to `to`, unsafe conversions included (a string to a
/// number may still fail for its value).
pub fn converts(from: &Type, to: &Type) -> bool {
    match (from, to) {
        (_, Type::Any) | (Type::Any, _) => true,
        (a, b) if a == b => true,
        (Type::Number | Type::Bool, Type::String) | (Type::String, Type::Number | Type::Bool) => {
            true
        }
        (Type::List(a) | Type::Set(a), Type::List(b) | Type::Set(b)) => converts(a, b),
        (Type::Tuple(items), Type::List(b) | Type::Set(b)) => items.iter().all(|t| converts(t, b)),
        (Type::List(a) | Type::Set(a), Type::Tuple(items)) => items.iter().all(|t| converts(a, t)),
        (Type::Tuple(xs), Type::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| converts(x, y))
        }
        (Type::Map(a), Type::Map(b)) => converts(a, b),
        (Type::Object(fields), Type::Map(b)) => fields.values().all(|t| converts(t, b)),
        (Type::Map(a), Type::Object(fields)) => fields.values().all(|t| converts(a, t)),
        (Type::Object(xs), Type::Object(ys)) => ys
            .iter()
            .all(|(k, y)| xs.get(k).is_none_or(|x| converts(x, y))),
        _ => false,
    }
}
