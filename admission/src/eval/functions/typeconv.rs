//! Type conversion and marks: `try` and `can` (whose arguments are evaluated lazily, by the evaluator),
//! `tobool`, `tonumber`, `tostring`, `tolist`, `toset`, `tomap`, `sensitive`, `nonsensitive` and
//! `issensitive`.
//!
//! `try` and `can` catch only the dynamic errors of their own arguments: a static evaluation that reaches
//! a resource ([`EvalError::NotStatic`]) and a reference to something not declared pass through, as in
//! Terraform.

use std::collections::BTreeSet;

use super::{Ctx, primitive_text};
use crate::config::{Expr, Loc};
use crate::diag::{Code, Diagnostic};
use crate::eval::{Bindings, EvalError, Evaluator, Instance};
use crate::value::{Number, Type, Value, convert, unify_types};

impl Evaluator<'_> {
    /// `try(...)` and `can(expr)`: each argument evaluated only when the ones before it failed.
    pub(in crate::eval) fn eval_lazy(
        &self,
        name: &str,
        args: &[Expr],
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let is_can = name == "can";
        let refuse = |summary: String, detail: String| {
            EvalError::Invalid(Box::new(
                Diagnostic::new(Code::InvalidFunctionArgument, summary, detail).at(loc.to_pos()),
            ))
        };
        if args.is_empty() || (is_can && args.len() > 1) {
            let want = if is_can { "1" } else { "at least 1" };
            return Err(refuse(
                format!(
                    "invalid function argument: {name}() takes {want} argument(s), {} given",
                    args.len()
                ),
                "give the function arguments of the types and values its documentation names"
                    .into(),
            ));
        }
        let mut failures = Vec::new();
        for arg in args {
            match self.eval_in(arg, inst, b, d) {
                Err(e @ EvalError::NotStatic { .. }) => return Err(e),
                // A reference to something never declared is wrong for any input: not caught.
                Err(EvalError::Invalid(diag)) if diag.code == Code::UnknownReference => {
                    return Err(EvalError::Invalid(diag));
                }
                Err(EvalError::Invalid(diag)) => failures.push(diag.summary),
                // A value with unknowns in it might still fail once known: the answer waits.
                Ok(v) if !v.is_known() => {
                    return Ok(if is_can {
                        Value::Unknown(Type::Bool)
                    } else {
                        Value::unknown().mark_sensitive_if(v.contains_sensitive())
                    });
                }
                Ok(v) => return Ok(if is_can { Value::Bool(true) } else { v }),
            }
        }
        if is_can {
            return Ok(Value::Bool(false));
        }
        Err(refuse(
            "invalid function argument: try(): no expression succeeded".into(),
            format!(
                "every argument failed: {}; add a last argument that cannot fail",
                failures.join("; ")
            ),
        ))
    }
}

/// The implementation the registry lists for `try` and `can`, which the evaluator intercepts before any
/// argument is evaluated: reached only when they are called with `...`.
pub(super) fn lazy_only(ctx: &Ctx<'_>, _args: &[Value]) -> Result<Value, EvalError> {
    Err(ctx.err("cannot expand its arguments with `...`"))
}

/// `sensitive(v)`: `v`, marked.
pub(super) fn sensitive(_ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(args[0].clone().sensitive())
}

/// `nonsensitive(v)`: `v` without its own mark (marks inside it stay); no error on an unmarked value,
/// as since Terraform 1.6.
pub(super) fn nonsensitive(_ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(args[0].clone().unmark().0)
}

/// `issensitive(v)`: whether `v` carries the mark; never itself sensitive.
pub(super) fn issensitive(_ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(args[0].is_sensitive()))
}

/// `tobool(v)`: bools, and the strings `"true"` and `"false"`; null stays null.
pub(super) fn tobool(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) if s == "true" => Ok(Value::Bool(true)),
        Value::String(s) if s == "false" => Ok(Value::Bool(false)),
        Value::String(_) => {
            Err(ctx
                .err("cannot convert this string to bool: only \"true\" or \"false\" are allowed"))
        }
        Value::Number(_) => Err(ctx.err("cannot convert number to bool")),
        _ => Err(ctx.err("cannot convert this value to bool")),
    }
}

/// `tonumber(v)`: numbers, and strings holding a decimal number; null stays null.
pub(super) fn tonumber(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        Value::Number(n) => Ok(Value::Number(n.clone())),
        Value::String(s) => s.parse::<Number>().map(Value::Number).map_err(|_| {
            ctx.err(format!(
                "cannot convert {s:?} to number: string must be a decimal representation of a number"
            ))
        }),
        Value::Bool(_) => Err(ctx.err("cannot convert bool to number")),
        _ => Err(ctx.err("cannot convert this value to number")),
    }
}

/// `tostring(v)`: strings, numbers and bools as their text; null stays null.
pub(super) fn tostring(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        other => primitive_text(other)
            .map(Value::String)
            .ok_or_else(|| ctx.err("cannot convert this value to string")),
    }
}

/// `tolist(v)`: a list or set as a list whose elements have one type.
pub(super) fn tolist(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let marked = args[0].is_sensitive();
    let out = match args[0].peel() {
        Value::Null => Value::Null,
        Value::Unknown(_) => Value::Unknown(Type::List(Box::new(Type::Any))),
        Value::List(items) => Value::List(unify(ctx, items.clone())?),
        Value::Set(items) => Value::List(items.iter().cloned().collect()),
        _ => return Err(ctx.err("cannot convert this value to a list")),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// `toset(v)`: a list or set as a set whose elements have one type.
pub(super) fn toset(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let marked = args[0].is_sensitive();
    let out = match args[0].peel() {
        Value::Null => Value::Null,
        Value::Unknown(_) => Value::Unknown(Type::Set(Box::new(Type::Any))),
        Value::List(items) => Value::Set(unify(ctx, items.clone())?.into_iter().collect()),
        Value::Set(items) => Value::Set(items.clone()),
        _ => return Err(ctx.err("cannot convert this value to a set")),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// `tomap(v)`: a map or object as a map whose values have one type.
pub(super) fn tomap(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let marked = args[0].is_sensitive();
    let out = match args[0].peel() {
        Value::Null => Value::Null,
        Value::Unknown(_) => Value::Unknown(Type::Map(Box::new(Type::Any))),
        Value::Map(entries) => {
            let values = unify(ctx, entries.values().cloned().collect())?;
            Value::Map(entries.keys().cloned().zip(values).collect())
        }
        _ => return Err(ctx.err("cannot convert this value to a map")),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// The kind of a value, for unifying the elements of a collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    String,
    Number,
    Bool,
    Sequence,
    Set,
    Map,
}

fn kind(v: &Value) -> Option<Kind> {
    match v.peel() {
        Value::String(_) => Some(Kind::String),
        Value::Number(_) => Some(Kind::Number),
        Value::Bool(_) => Some(Kind::Bool),
        Value::List(_) => Some(Kind::Sequence),
        Value::Set(_) => Some(Kind::Set),
        Value::Map(_) => Some(Kind::Map),
        _ => None,
    }
}

/// Terraform's element type unification: the elements converted to the type they all unify to
/// ([`unify_types`]: `[1, "a"]` to strings, objects with different attributes to a map, ...). Elements
/// whose types do not unify keep the old kind-level rule below, which only refuses what Terraform refuses
/// whatever the element types (a primitive with a collection, numbers with bools).
pub(super) fn unify(ctx: &Ctx<'_>, items: Vec<Value>) -> Result<Vec<Value>, EvalError> {
    let types: Vec<Type> = items.iter().map(Value::type_of).collect();
    match unify_types(&types) {
        Some(t) => items
            .into_iter()
            .map(|v| convert(v, &t).map_err(|_| ctx.err("all elements must have the same type")))
            .collect(),
        None => unify_kinds(ctx, items),
    }
}

/// Strings, numbers and bools together become strings (numbers and bools without a string do not
/// unify); a primitive and a collection never unify.
fn unify_kinds(ctx: &Ctx<'_>, items: Vec<Value>) -> Result<Vec<Value>, EvalError> {
    let kinds: BTreeSet<Kind> = items.iter().filter_map(kind).collect();
    if kinds.len() <= 1 {
        return Ok(items);
    }
    let primitive = |k: &Kind| matches!(k, Kind::String | Kind::Number | Kind::Bool);
    if !kinds.iter().all(primitive) {
        if kinds.iter().any(primitive) || kinds.contains(&Kind::Map) {
            return Err(ctx.err("all elements must have the same type"));
        }
        // Sequences and sets both become lists of their elements.
        return Ok(items);
    }
    if !kinds.contains(&Kind::String) {
        return Err(ctx.err("all elements must have the same type"));
    }
    Ok(items
        .into_iter()
        .map(|v| {
            let marked = v.is_sensitive();
            match primitive_text(&v) {
                Some(s) if !matches!(v.peel(), Value::String(_)) => {
                    Value::String(s).mark_sensitive_if(marked)
                }
                _ => v,
            }
        })
        .collect())
}
