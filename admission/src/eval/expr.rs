//! The expression walk: one expression evaluated by its kind, literals and collections here, the other
//! families handed to their modules (roots, steps, templates, `for`, operators, functions).
//!
//! The walk bounds its own depth, so hostile nesting is an error rather than a stack overflow.

use std::collections::BTreeMap;

use super::operators::{BoolPlace, binary, bool_at};
use super::structural::{Typed, refined, types_differ, value_needs_types};
use super::{
    Bindings, EvalError, Evaluator, Fault, Instance, bad, functions, primitive_text, to_number,
};
use crate::config::BinaryOp;
use crate::config::{Expr, ExprKind, Loc, UnaryOp};
use crate::value::{Type, Value, convert, unify_types};

/// How deep an expression is evaluated; the parser's own nesting limit is far below this.
pub(super) const MAX_EVAL_DEPTH: usize = 256;

impl Evaluator<'_> {
    /// Evaluates `expr` for `inst` under the `for` bindings `b`, `depth` levels deep.
    pub(super) fn eval_in(
        &self,
        expr: &Expr,
        inst: &Instance,
        b: &mut Bindings,
        depth: usize,
    ) -> Result<Value, EvalError> {
        // Deeply nested input cannot exhaust the stack.
        if depth > MAX_EVAL_DEPTH {
            return Err(bad(
                &expr.loc,
                Fault::TooComplex,
                "expression nested too deeply",
            ));
        }
        let d = depth + 1;
        let loc = &expr.loc;
        match &expr.kind {
            ExprKind::Null => Ok(Value::Null),
            ExprKind::Bool(v) => Ok(Value::Bool(*v)),
            ExprKind::Number(n) => Ok(Value::Number(n.clone())),
            ExprKind::String(s) => Ok(Value::String(s.clone())),
            ExprKind::Template(parts) => self.eval_template(parts, inst, b, d),
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval_in(item, inst, b, d)?);
                }
                Ok(Value::List(out))
            }
            ExprKind::Object(items) => self.eval_object(items, inst, b, d),
            ExprKind::Variable(name) => self.root(name, &[], loc, inst, b, d),
            ExprKind::Traversal(base, steps) => match &base.kind {
                ExprKind::Variable(name) => self.root(name, steps, loc, inst, b, d),
                _ => {
                    let v = self.eval_in(base, inst, b, d)?;
                    self.apply_steps(v, steps, loc, inst, b, d)
                }
            },
            ExprKind::Call { name, args, .. } if name == "try" || name == "can" => {
                self.eval_lazy(name, args, loc, inst, b, d)
            }
            ExprKind::Call { name, args, expand } if !*expand && value_needs_types(name) => {
                self.call_typed(name, args, loc, inst, b, d).map(|(v, _)| v)
            }
            ExprKind::Call { name, args, expand } => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval_in(arg, inst, b, d)?);
                }
                if *expand && let Some(unknown) = expand_last(&mut values, loc)? {
                    return Ok(unknown);
                }
                let ctx = functions::Ctx {
                    name,
                    loc,
                    impure: self.impure,
                    module: self.module,
                    in_template: self.in_template,
                };
                functions::call(&ctx, values)
            }
            ExprKind::Unary(op, e) => {
                let v = self.eval_in(e, inst, b, d)?;
                unary(*op, v, &e.loc)
            }
            ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::NotEq), l, r) => {
                // `==` compares types as well as values: a list never equals a tuple.
                let lt = self.eval_typed(l, inst, b, d)?;
                let rt = self.eval_typed(r, inst, b, d)?;
                if types_differ(&lt, &rt) {
                    let marked = lt.0.contains_sensitive() || rt.0.contains_sensitive();
                    return Ok(Value::Bool(*op == BinaryOp::NotEq).mark_sensitive_if(marked));
                }
                binary(*op, lt.0, rt.0, &l.loc, &r.loc)
            }
            ExprKind::Binary(op, l, r) => {
                let lv = self.eval_in(l, inst, b, d)?;
                if let Some(decided) = short_circuit(*op, &lv) {
                    return Ok(decided);
                }
                let rv = self.eval_in(r, inst, b, d)?;
                binary(*op, lv, rv, &l.loc, &r.loc)
            }
            ExprKind::Conditional(c, t, f) => self
                .eval_conditional_typed([c, t, f], inst, b, d)
                .map(|(v, _)| v),
            ExprKind::For(fe) => self.eval_for(fe, loc, inst, b, d),
            ExprKind::Blocks(blocks) => self.eval_blocks(blocks, loc, inst, b, d),
            ExprKind::ModuleInput(input) => self.eval_module_input(input, loc, inst, b, d),
        }
    }

    /// `{ key = value, ... }`: keys are known strings (numbers and bools as their text); an unknown key
    /// makes the whole object unknown.
    fn eval_object(
        &self,
        items: &[(Expr, Expr)],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let mut pairs = Vec::with_capacity(items.len());
        for (k, v) in items {
            let key = self.eval_in(k, inst, b, d)?;
            let value = self.eval_in(v, inst, b, d)?;
            pairs.push((k, key, value));
        }
        object_from(pairs)
    }

    /// `c ? t : f`: the chosen branch converted to the type both branches unify to (`true ? 12 : "x"` is
    /// `"12"`), or an unknown of that type when `c` is unknown. As in Terraform, both branches are evaluated
    /// for their types, and only the chosen one's errors count (an unknown condition chooses both). The
    /// branches' static types decide (`tomap(...)` is a map, `{...}` an object), and where they say
    /// nothing, what the values show.
    pub(super) fn eval_conditional_typed(
        &self,
        [c, t, f]: [&Expr; 3],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Typed, EvalError> {
        let cv = self.eval_in(c, inst, b, d)?;
        let marked = cv.contains_sensitive();
        let choice = match cv.peel() {
            Value::Unknown(_) => None,
            other => Some(bool_at(other, &c.loc, BoolPlace::Conditional)?),
        };
        let tv = self.eval_typed(t, inst, b, d);
        let fv = self.eval_typed(f, inst, b, d);
        let type_of =
            |r: &Result<Typed, EvalError>| r.as_ref().map_or(Type::Any, |(v, t)| refined(t, v));
        let static_of =
            |r: &Result<Typed, EvalError>| r.as_ref().map_or(Type::Any, |(_, t)| t.clone());
        let (tt, ft) = (type_of(&tv), type_of(&fv));
        let result_type = unify_types(&[static_of(&tv), static_of(&fv)]).unwrap_or(Type::Any);
        let primitive = |t: &Type| matches!(t, Type::String | Type::Number | Type::Bool);
        let unified = match unify_types(&[tt.clone(), ft.clone()]) {
            Some(t) => t,
            // A primitive against anything it cannot become is Terraform's error. Two collections that do
            // not unify may only look different here (values carry no declared element types): the chosen
            // one is kept as it is.
            None if !primitive(&tt) && !primitive(&ft) => Type::Any,
            None => {
                return Err(bad(
                    &c.loc,
                    Fault::InconsistentConditional,
                    format!(
                        "the true result is {tt} and the \
                         false result is {ft}, which have no type in common"
                    ),
                ));
            }
        };
        let chosen = match choice {
            Some(true) => tv?.0,
            Some(false) => fv?.0,
            None => {
                let (tv, fv) = (tv?.0, fv?.0);
                let marked = marked || tv.contains_sensitive() || fv.contains_sensitive();
                return Ok((
                    Value::Unknown(unified).mark_sensitive_if(marked),
                    result_type,
                ));
            }
        };
        let at = if choice == Some(true) { &t.loc } else { &f.loc };
        let converted = convert(chosen, &unified).map_err(|why| {
            bad(
                at,
                Fault::InconsistentConditional,
                format!("the conditional's result does not convert to {unified}: {why}"),
            )
        })?;
        Ok((converted.mark_sensitive_if(marked), result_type))
    }
}

/// An object from its evaluated `(key expression, key, value)` entries: keys are known strings
/// (numbers and bools as their text); an unknown key makes the whole object unknown.
pub(super) fn object_from(pairs: Vec<(&Expr, Value, Value)>) -> Result<Value, EvalError> {
    let mut out = BTreeMap::new();
    let mut unknown_key = false;
    let mut marked = false;
    for (k, key, value) in pairs {
        marked |= key.contains_sensitive();
        match key.peel() {
            Value::Unknown(_) => unknown_key = true,
            Value::Null => return Err(bad(&k.loc, Fault::InvalidKey, "an object key is null")),
            other => {
                let name = primitive_text(other).ok_or_else(|| {
                    bad(&k.loc, Fault::InvalidKey, "an object key must be a string")
                })?;
                out.insert(name, value);
            }
        }
    }
    let v = if unknown_key {
        Value::unknown()
    } else {
        Value::Map(out)
    };
    Ok(v.mark_sensitive_if(marked))
}

/// `&&` and `||` decided by a known left operand alone (`false && x`, `true || x`): the right operand is
/// then not evaluated, so its errors do not count. This is Terraform 1.12's rule, an addition beyond the
/// 1.9 language level (whose operators evaluate both sides); see [`crate::LANGUAGE_ADDITIONS`].
fn short_circuit(op: BinaryOp, left: &Value) -> Option<Value> {
    let decides = match op {
        BinaryOp::And => false,
        BinaryOp::Or => true,
        _ => return None,
    };
    (left.as_bool() == Some(decides))
        .then(|| Value::Bool(decides).mark_sensitive_if(left.contains_sensitive()))
}

/// Expands the last argument of a call written `f(a, list...)` into the arguments. An unknown list makes
/// the call's result unknown, returned as `Some`.
fn expand_last(values: &mut Vec<Value>, loc: &Loc) -> Result<Option<Value>, EvalError> {
    let last = values.pop().unwrap_or(Value::Null);
    let marked = last.is_sensitive();
    match last.peel() {
        Value::List(items) => {
            values.extend(items.iter().map(|x| x.clone().mark_sensitive_if(marked)))
        }
        Value::Set(items) => {
            values.extend(items.iter().map(|x| x.clone().mark_sensitive_if(marked)))
        }
        Value::Unknown(_) => return Ok(Some(Value::unknown().mark_sensitive_if(marked))),
        _ => {
            return Err(bad(
                loc,
                Fault::InvalidExpansion,
                "only a list can be expanded with `...`",
            ));
        }
    }
    Ok(None)
}

/// `-v` and `!v`; `loc` is where the operand is written.
fn unary(op: UnaryOp, v: Value, loc: &Loc) -> Result<Value, EvalError> {
    let (v, marked) = v.unmark();
    let out = match (op, &v) {
        (_, Value::Unknown(_)) => Value::Unknown(if op == UnaryOp::Neg {
            Type::Number
        } else {
            Type::Bool
        }),
        (UnaryOp::Neg, _) => Value::Number(to_number(&v, loc)?.negate()),
        (UnaryOp::Not, _) => Value::Bool(!bool_at(&v, loc, BoolPlace::Negated)?),
    };
    Ok(out.mark_sensitive_if(marked || v.contains_sensitive()))
}
