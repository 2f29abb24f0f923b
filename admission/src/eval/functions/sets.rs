//! Set functions (`setunion`, `setintersection`, `setsubtract`, `setproduct`) and `transpose`.
//!
//! Sets hold their elements sorted (strings lexicographically, numbers by value), which is the order
//! Terraform gives them; elements of different primitive types unify to strings first.

use std::collections::{BTreeMap, BTreeSet};

use super::Ctx;
use super::typeconv::unify;
use crate::eval::EvalError;
use crate::value::Value;

/// The elements of every argument, unified to one type, as sets.
fn sets(ctx: &Ctx<'_>, args: &[Value]) -> Result<Vec<BTreeSet<Value>>, EvalError> {
    let mut lists = Vec::with_capacity(args.len());
    let mut all = Vec::new();
    for a in args {
        let items = ctx.list(a)?;
        lists.push(items.len());
        all.extend(items);
    }
    let mut unified = unify(ctx, all)?.into_iter();
    Ok(lists
        .into_iter()
        .map(|n| unified.by_ref().take(n).collect())
        .collect())
}

/// `setunion(sets...)`.
pub(super) fn setunion(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Set(sets(ctx, args)?.into_iter().flatten().collect()))
}

/// `setintersection(sets...)`.
pub(super) fn setintersection(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut sets = sets(ctx, args)?.into_iter();
    let first = sets.next().unwrap_or_default();
    Ok(Value::Set(sets.fold(first, |acc, s| {
        acc.intersection(&s).cloned().collect()
    })))
}

/// `setsubtract(a, b)`: the elements of `a` that are not in `b`.
pub(super) fn setsubtract(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let sets = sets(ctx, args)?;
    Ok(Value::Set(sets[0].difference(&sets[1]).cloned().collect()))
}

/// The most elements `setproduct` builds.
const PRODUCT_LIMIT: usize = 1 << 16;

/// `setproduct(sets...)`: every combination of one element of each argument; a set when every argument
/// is a set, a list otherwise.
pub(super) fn setproduct(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    if args.len() < 2 {
        return Err(ctx.err("at least two arguments are required"));
    }
    let lists: Vec<Vec<Value>> = args.iter().map(|a| ctx.list(a)).collect::<Result<_, _>>()?;
    let total = lists
        .iter()
        .try_fold(1usize, |acc, l| acc.checked_mul(l.len()))
        .filter(|n| *n <= PRODUCT_LIMIT)
        .ok_or_else(|| {
            ctx.err(format!(
                "the product has more than {PRODUCT_LIMIT} elements"
            ))
        })?;
    let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
    for list in &lists {
        let mut next = Vec::with_capacity(total);
        for row in &rows {
            for v in list {
                let mut r = row.clone();
                r.push(v.clone());
                next.push(r);
            }
        }
        rows = next;
    }
    let rows = rows.into_iter().map(Value::List);
    if args.iter().all(|a| matches!(a, Value::Set(_))) {
        Ok(Value::Set(rows.collect()))
    } else {
        Ok(Value::List(rows.collect()))
    }
}

/// `transpose(map)`: a map of lists of strings with keys and values swapped.
pub(super) fn transpose(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, list) in ctx.map(&args[0])? {
        for v in ctx.list(&list)? {
            if v.is_null() {
                return Err(ctx.err("input must not contain null values"));
            }
            out.entry(ctx.str(&v)?).or_default().push(k.clone());
        }
    }
    Ok(Value::Map(
        out.into_iter()
            .map(|(k, vs)| (k, Value::List(vs.into_iter().map(Value::String).collect())))
            .collect(),
    ))
}
