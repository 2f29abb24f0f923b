//! The expression walk: one expression evaluated by its kind, literals and collections here, the other
//! families handed to their modules (roots, steps, templates, `for`, operators, functions).
//!
//! The walk bounds its own depth, so hostile nesting is an error rather than a stack overflow.

use std::collections::BTreeMap;

use super::operators::binary;
use super::{
    Bindings, EvalError, Evaluator, Instance, bad, functions, primitive_text, to_bool, to_number,
};
use crate::config::{Expr, ExprKind, Loc, UnaryOp};
use crate::value::{Type, Value};

/// How deep an expression is evaluated; the parser's own nesting limit is far below this.
const MAX_EVAL_DEPTH: usize = 256;

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
            return Err(bad(&expr.loc, "expression nested too deeply"));
        }
        let d = depth + 1;
        let loc = &expr.loc;
        match &expr.kind {
            ExprKind::Null => Ok(Value::Null),
            ExprKind::Bool(v) => Ok(Value::Bool(*v)),
            ExprKind::Number(n) => {
                Value::number_f64(*n).map_err(|_| bad(loc, "number is not finite"))
            }
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
            ExprKind::Binary(op, l, r) => {
                let lv = self.eval_in(l, inst, b, d)?;
                let rv = self.eval_in(r, inst, b, d)?;
                binary(*op, lv, rv, &l.loc, &r.loc)
            }
            ExprKind::Conditional(c, t, f) => self.eval_conditional([c, t, f], inst, b, d),
            ExprKind::For(fe) => self.eval_for(fe, loc, inst, b, d),
            ExprKind::Blocks(blocks) => self.eval_blocks(blocks, loc, inst, b, d),
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
        let mut out = BTreeMap::new();
        let mut unknown_key = false;
        let mut marked = false;
        for (k, v) in items {
            let key = self.eval_in(k, inst, b, d)?;
            let value = self.eval_in(v, inst, b, d)?;
            marked |= key.contains_sensitive();
            match key.peel() {
                Value::Unknown(_) => unknown_key = true,
                Value::Null => return Err(bad(&k.loc, "an object key is null")),
                other => {
                    let name = primitive_text(other)
                        .ok_or_else(|| bad(&k.loc, "an object key must be a string"))?;
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

    /// `c ? t : f`: the chosen branch, or an unknown of the branches' type when `c` is unknown.
    fn eval_conditional(
        &self,
        [c, t, f]: [&Expr; 3],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let cv = self.eval_in(c, inst, b, d)?;
        let marked = cv.contains_sensitive();
        match cv.peel() {
            Value::Unknown(_) => {
                // Both branches are still evaluated, so that their errors are reported now.
                let tv = self.eval_in(t, inst, b, d)?;
                let fv = self.eval_in(f, inst, b, d)?;
                let ty = if tv.type_of() == fv.type_of() {
                    tv.type_of()
                } else {
                    Type::Any
                };
                let marked = marked || tv.contains_sensitive() || fv.contains_sensitive();
                Ok(Value::Unknown(ty).mark_sensitive_if(marked))
            }
            other => {
                let chosen = if to_bool(other, &c.loc)? { t } else { f };
                Ok(self.eval_in(chosen, inst, b, d)?.mark_sensitive_if(marked))
            }
        }
    }
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
        _ => return Err(bad(loc, "only a list can be expanded with `...`")),
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
        (UnaryOp::Not, _) => Value::Bool(!to_bool(&v, loc)?),
    };
    Ok(out.mark_sensitive_if(marked || v.contains_sensitive()))
}
