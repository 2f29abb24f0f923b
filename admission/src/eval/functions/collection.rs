//! Collection functions: lists, tuples, maps and objects (the set operations are in [`super::sets`]).
//!
//! The functions the registry marks `Raw` (`length`, `keys`, `values`, `concat`, `contains`, `element`,
//! `lookup`, `merge`, `coalesce`) see unknowns and marks themselves: they answer what is known already
//! (the length of a list whose elements are unknown) and keep the marks of the elements they return.

use std::collections::{BTreeMap, BTreeSet};

use super::string::grapheme_len;
use super::typeconv::unify;
use super::{Ctx, list_of};
use crate::eval::EvalError;
use crate::value::{Number, Type, Value};

/// The most elements `range()` may produce, as in Terraform.
const RANGE_LIMIT: usize = 1024;

/// The items of a list or set argument under any mark (the mark moves to each item); `None` when the
/// argument is unknown.
fn items(ctx: &Ctx<'_>, v: &Value) -> Result<Option<Vec<Value>>, EvalError> {
    let marked = v.is_sensitive();
    let list: Vec<Value> = match v.peel() {
        Value::Unknown(_) => return Ok(None),
        Value::List(items) => items.clone(),
        Value::Set(items) => items.iter().cloned().collect(),
        Value::Null => return Err(ctx.err("argument must not be null")),
        _ => return Err(ctx.err("a list, tuple or set is required")),
    };
    Ok(Some(
        list.into_iter()
            .map(|x| x.mark_sensitive_if(marked))
            .collect(),
    ))
}

/// `length(v)`: the elements of a collection or the grapheme clusters of a string.
pub(super) fn length(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let v = &args[0];
    let out = match v.peel() {
        Value::Unknown(_) => Value::Unknown(Type::Number),
        Value::String(s) => Value::from(grapheme_len(s)),
        Value::List(items) => Value::from(items.len()),
        Value::Set(items) if items.iter().all(Value::is_known) => Value::from(items.len()),
        // Unknown members of a set may turn out equal and merge.
        Value::Set(_) => Value::Unknown(Type::Number),
        Value::Map(entries) => Value::from(entries.len()),
        Value::Null => return Err(ctx.err("argument must not be null")),
        _ => {
            return Err(
                ctx.err("argument must be a string, a collection type, or a structural type")
            );
        }
    };
    Ok(out.mark_sensitive_if(v.is_sensitive()))
}

/// `keys(map)`: the keys, sorted.
pub(super) fn keys(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let v = &args[0];
    let out = match v.peel() {
        Value::Unknown(_) => Value::Unknown(list_of(Type::String)),
        Value::Map(entries) => {
            Value::List(entries.keys().map(|k| Value::String(k.clone())).collect())
        }
        _ => return Err(ctx.err("must have map or object type")),
    };
    Ok(out.mark_sensitive_if(v.is_sensitive()))
}

/// `values(map)`: the values, in the order of their keys.
pub(super) fn values(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let v = &args[0];
    let out = match v.peel() {
        Value::Unknown(_) => Value::Unknown(list_of(Type::Any)),
        Value::Map(entries) => Value::List(entries.values().cloned().collect()),
        _ => return Err(ctx.err("must have map or object type")),
    };
    Ok(out.mark_sensitive_if(v.is_sensitive()))
}

/// `concat(lists...)`: the lists one after the other.
pub(super) fn concat(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut out = Vec::new();
    for a in args {
        match items(ctx, a)? {
            Some(list) => out.extend(list),
            None => return Ok(Value::Unknown(list_of(Type::Any))),
        }
    }
    Ok(Value::List(out))
}

/// `merge(maps...)`: later keys win; null arguments are skipped.
pub(super) fn merge(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut out = BTreeMap::new();
    for a in args {
        let marked = a.is_sensitive();
        match a.peel() {
            Value::Null => {}
            Value::Unknown(_) => return Ok(Value::unknown().mark_sensitive_if(marked)),
            Value::Map(entries) => {
                for (k, v) in entries {
                    out.insert(k.clone(), v.clone().mark_sensitive_if(marked));
                }
            }
            _ => return Err(ctx.err("arguments must be maps or objects")),
        }
    }
    Ok(Value::Map(out))
}

/// `lookup(map, key, default)`: the value at `key`, else the default.
pub(super) fn lookup(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let key_marked = args[1].contains_sensitive();
    let key = match args[1].peel() {
        Value::Unknown(_) => return Ok(Value::unknown().mark_sensitive_if(key_marked)),
        _ => ctx.str(&args[1])?,
    };
    let marked = args[0].is_sensitive() || key_marked;
    let out = match args[0].peel() {
        Value::Unknown(_) => Value::unknown(),
        Value::Map(entries) => match (entries.get(&key), args.get(2)) {
            (Some(v), _) => v.clone(),
            (None, Some(default)) => default.clone(),
            (None, None) if key_marked => {
                return Err(ctx.err("lookup failed to find the (sensitive) key"));
            }
            (None, None) => return Err(ctx.err(format!("lookup failed to find key {key:?}"))),
        },
        Value::Null => return Err(ctx.err("argument must not be null")),
        _ => return Err(ctx.err("the first argument must be a map or object")),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// `element(list, index)`: the element at `index`, wrapping around (a negative index counts from the
/// end).
pub(super) fn element(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let Some(list) = items(ctx, &args[0])? else {
        return Ok(Value::unknown());
    };
    if args[1].is_unknown() {
        return Ok(Value::unknown());
    }
    let marked = args[1].contains_sensitive();
    let i = ctx
        .num(&args[1])?
        .as_i64()
        .ok_or_else(|| ctx.err("invalid index: a whole number is required"))?;
    if list.is_empty() {
        return Err(ctx.err("cannot use element function with an empty list"));
    }
    let len = list.len() as i128;
    let at = (i128::from(i) % len + len) % len;
    Ok(list[at as usize].clone().mark_sensitive_if(marked))
}

/// `contains(list, value)`.
pub(super) fn contains(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let Some(list) = items(ctx, &args[0])? else {
        return Ok(Value::Unknown(Type::Bool));
    };
    let marked = args[0].contains_sensitive() || args[1].contains_sensitive();
    let mut open = false;
    for item in &list {
        match item.equals(&args[1]).peel() {
            Value::Bool(true) => return Ok(Value::Bool(true).mark_sensitive_if(marked)),
            Value::Bool(false) => {}
            _ => open = true,
        }
    }
    let out = if open {
        Value::Unknown(Type::Bool)
    } else {
        Value::Bool(false)
    };
    Ok(out.mark_sensitive_if(marked))
}

/// `coalesce(vals...)`: the first argument that is neither null nor an empty string, all arguments
/// first converted to one type.
pub(super) fn coalesce(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let unified =
        unify(ctx, args.to_vec()).map_err(|_| ctx.err("all arguments must have the same type"))?;
    for a in unified {
        match a.peel() {
            // An unknown before any usable value could itself be the first usable one.
            Value::Unknown(_) => return Ok(Value::unknown()),
            Value::Null => {}
            Value::String(s) if s.is_empty() => {}
            _ => return Ok(a),
        }
    }
    Err(ctx.err("no non-null, non-empty-string arguments"))
}

/// `coalescelist(lists...)`: the first list that is not empty.
pub(super) fn coalescelist(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    for a in args {
        if a.is_null() {
            continue;
        }
        if !ctx.list(a)?.is_empty() {
            return Ok(a.clone());
        }
    }
    Err(ctx.err("no non-null arguments"))
}

/// `alltrue(list)`: whether every element is true (an empty list: true).
pub(super) fn alltrue(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    for v in ctx.list(&args[0])? {
        if v.is_null() || !ctx.bool(&v)? {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `anytrue(list)`: whether any element is true.
pub(super) fn anytrue(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    for v in ctx.list(&args[0])? {
        if !v.is_null() && ctx.bool(&v)? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// `chunklist(list, size)`: the list cut into lists of `size` (0: one chunk of everything).
pub(super) fn chunklist(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let list = ctx.list(&args[0])?;
    let size = ctx.int(&args[1])?;
    if size < 0 {
        return Err(ctx.err("the size argument must be positive"));
    }
    if list.is_empty() {
        return Ok(Value::List(Vec::new()));
    }
    if size == 0 {
        return Ok(Value::List(vec![Value::List(list)]));
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    Ok(Value::List(
        list.chunks(size).map(|c| Value::List(c.to_vec())).collect(),
    ))
}

/// `compact(list)`: the strings that are neither null nor empty.
pub(super) fn compact(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut out = Vec::new();
    for v in ctx.list(&args[0])? {
        if v.is_null() {
            continue;
        }
        let s = ctx.str(&v)?;
        if !s.is_empty() {
            out.push(Value::String(s));
        }
    }
    Ok(Value::List(out))
}

/// `distinct(list)`: the first occurrence of each element, in order.
pub(super) fn distinct(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let list = unify(ctx, ctx.list(&args[0])?)?;
    let mut seen = BTreeSet::new();
    Ok(Value::List(
        list.into_iter()
            .filter(|v| seen.insert(v.clone()))
            .collect(),
    ))
}

/// `flatten(list)`: nested lists and sets replaced by their elements, at any depth.
pub(super) fn flatten(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    fn walk(items: Vec<Value>, out: &mut Vec<Value>, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        for v in items {
            match v {
                Value::List(inner) => {
                    if !walk(inner, out, depth + 1) {
                        return false;
                    }
                }
                Value::Set(inner) => {
                    if !walk(inner.into_iter().collect(), out, depth + 1) {
                        return false;
                    }
                }
                other => out.push(other),
            }
        }
        true
    }
    let mut out = Vec::new();
    if !walk(ctx.list(&args[0])?, &mut out, 0) {
        return Err(ctx.err("the list is nested too deeply"));
    }
    Ok(Value::List(out))
}

/// `index(list, value)`: the index of the first element equal to `value`.
pub(super) fn index(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    match args[0] {
        Value::List(_) => {}
        Value::Set(_) => return Err(ctx.err("argument must be a list or tuple")),
        _ => return Err(ctx.err("argument must be a list or tuple")),
    }
    let list = ctx.list(&args[0])?;
    list.iter()
        .position(|v| v.same_as(&args[1]))
        .map(Value::from)
        .ok_or_else(|| ctx.err("item not found"))
}

/// `matchkeys(values, keys, searchset)`: the values whose key (at the same index) is in the search set.
pub(super) fn matchkeys(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let values = ctx.list(&args[0])?;
    let keys = ctx.list(&args[1])?;
    let search = ctx.list(&args[2])?;
    if values.len() != keys.len() {
        return Err(ctx.err("length of keys and values should be equal"));
    }
    Ok(Value::List(
        values
            .into_iter()
            .zip(keys)
            .filter(|(_, k)| search.iter().any(|s| loose_eq(s, k)))
            .map(|(v, _)| v)
            .collect(),
    ))
}

/// Equality after converting primitives to one type (`"1"` matches `1`).
fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(_), Value::Number(_) | Value::Bool(_))
        | (Value::Number(_) | Value::Bool(_), Value::String(_)) => {
            super::primitive_text(a) == super::primitive_text(b)
        }
        _ => a.same_as(b),
    }
}

/// `one(list)`: null for an empty collection, the element of a one-element one, else an error.
pub(super) fn one(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let list = ctx.list(&args[0])?;
    match list.as_slice() {
        [] => Ok(Value::Null),
        [v] => Ok(v.clone()),
        _ => Err(ctx.err("must be a list, set, or tuple value with either zero or one elements")),
    }
}

/// `reverse(list)`.
pub(super) fn reverse(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    if matches!(args[0], Value::Set(_)) {
        return Err(ctx.err("a set has no order to reverse: convert it with tolist()"));
    }
    let mut list = ctx.list(&args[0])?;
    list.reverse();
    Ok(Value::List(list))
}

/// `slice(list, start, end)`: the elements from `start` up to, not including, `end`.
pub(super) fn slice(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let list = ctx.list(&args[0])?;
    let start = ctx.int(&args[1])?;
    let end = ctx.int(&args[2])?;
    if start < 0 {
        return Err(ctx.err("the start index must not be negative"));
    }
    if end > list.len() as i64 {
        return Err(ctx.err("the end index must not be greater than the length of the list"));
    }
    if start > end {
        return Err(ctx.err("the start index must not be greater than the end index"));
    }
    Ok(Value::List(list[start as usize..end as usize].to_vec()))
}

/// `sort(list)`: the strings in lexicographic order.
pub(super) fn sort(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut out = Vec::new();
    for v in ctx.list(&args[0])? {
        if v.is_null() {
            return Err(ctx.err("given list element is null"));
        }
        out.push(ctx.str(&v)?);
    }
    out.sort();
    Ok(Value::List(out.into_iter().map(Value::String).collect()))
}

/// `sum(list)`: the sum of the numbers.
pub(super) fn sum(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let list = ctx.list(&args[0])?;
    if list.is_empty() {
        return Err(ctx.err("cannot sum an empty list"));
    }
    let mut total = Number::from(0);
    for v in &list {
        if v.is_null() {
            return Err(ctx.err("argument must be list, set, or tuple of number values"));
        }
        total = total
            .checked_add(&ctx.num(v)?)
            .ok_or_else(|| ctx.err("the sum is not a finite number"))?;
    }
    Ok(Value::Number(total))
}

/// `zipmap(keys, values)`: a map of each key to the value at the same index.
pub(super) fn zipmap(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let keys = ctx.list(&args[0])?;
    let values = ctx.list(&args[1])?;
    if keys.len() != values.len() {
        return Err(ctx.err(format!(
            "number of keys ({}) does not match number of values ({})",
            keys.len(),
            values.len()
        )));
    }
    let mut out = BTreeMap::new();
    for (k, v) in keys.iter().zip(values) {
        out.insert(ctx.str(k)?, v);
    }
    Ok(Value::Map(out))
}

/// `range(limit)`, `range(start, limit)`, `range(start, limit, step)`.
pub(super) fn range(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    // Terraform's own arithmetic: each value is the one before plus the step, at 512 bits.
    let nums: Vec<Number> = args.iter().map(|a| ctx.num(a)).collect::<Result<_, _>>()?;
    let zero = Number::from(0);
    let toward = |start: &Number, limit: &Number| Number::from(if limit >= start { 1 } else { -1 });
    let (start, limit, step) = match nums.as_slice() {
        [limit] => (zero.clone(), limit.clone(), toward(&zero, limit)),
        [start, limit] => (start.clone(), limit.clone(), toward(start, limit)),
        [start, limit, step] => (start.clone(), limit.clone(), step.clone()),
        _ => return Err(ctx.err("takes 1 to 3 numbers")),
    };
    if step.is_zero() {
        return Err(ctx.err("step must not be zero"));
    }
    let up = step > zero;
    if up && limit < start {
        return Err(ctx.err("end must be greater than start when step is positive"));
    }
    if !up && limit > start {
        return Err(ctx.err("end must be less than start when step is negative"));
    }
    let mut out = Vec::new();
    let mut x = start;
    while (up && x < limit) || (!up && x > limit) {
        if out.len() >= RANGE_LIMIT {
            return Err(ctx.err(format!(
                "more than {RANGE_LIMIT} values were generated; either decrease the difference between start and end or use a smaller step"
            )));
        }
        let next = x
            .checked_add(&step)
            .ok_or_else(|| ctx.err("a number is out of range"))?;
        out.push(Value::Number(std::mem::replace(&mut x, next)));
    }
    Ok(Value::List(out))
}
