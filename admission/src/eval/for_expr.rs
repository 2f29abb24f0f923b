//! `for` expressions: a list or map built from a collection, filtered by an `if` clause and grouped
//! with `...`.
//!
//! The loop variables are bound for the body only and never escape the expression.

use std::collections::BTreeMap;

use super::operators::{BoolPlace, bool_at};
use super::{Bindings, EvalError, Evaluator, Fault, Instance, bad, primitive_text, quoted};
use crate::config::{ForExpr, Loc};
use crate::value::{Type, Value};

impl Evaluator<'_> {
    /// The value of the `for` expression `fe`.
    pub(super) fn eval_for(
        &self,
        fe: &ForExpr,
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let coll = self.eval_in(&fe.collection, inst, b, d)?;
        let (coll, marked) = coll.unmark();
        let pairs: Vec<(Value, Value)> = match coll {
            Value::Unknown(_) => {
                let ty = if fe.key.is_some() {
                    Type::Any
                } else {
                    Type::List(Box::new(Type::Any))
                };
                return Ok(Value::Unknown(ty).mark_sensitive_if(marked));
            }
            Value::Null => {
                return Err(bad(
                    &fe.collection.loc,
                    Fault::NotIterable,
                    "a `for` expression iterates over null",
                ));
            }
            other => iteration_pairs(other).ok_or_else(|| {
                bad(
                    &fe.collection.loc,
                    Fault::NotIterable,
                    "a `for` expression needs a list, set or map",
                )
            })?,
        };
        let mut list = Vec::new();
        let mut map: BTreeMap<String, Value> = BTreeMap::new();
        let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut unknown = false;
        let mut inner_marked = false;
        for (k, v) in pairs {
            let depth = b.len();
            if let Some(kv) = &fe.key_var {
                b.push((kv.clone(), k));
            }
            b.push((fe.value_var.clone(), v));
            let result = (|| -> Result<(), EvalError> {
                if let Some(cond) = &fe.cond {
                    let c = self.eval_in(cond, inst, b, d)?;
                    inner_marked |= c.contains_sensitive();
                    match c.peel() {
                        Value::Unknown(_) => {
                            unknown = true;
                            return Ok(());
                        }
                        other => {
                            if !bool_at(other, &cond.loc, BoolPlace::ForCondition)? {
                                return Ok(());
                            }
                        }
                    }
                }
                let value = self.eval_in(&fe.value, inst, b, d)?;
                match &fe.key {
                    None => list.push(value),
                    Some(key_expr) => {
                        let key = self.eval_in(key_expr, inst, b, d)?;
                        let key_marked = key.contains_sensitive();
                        inner_marked |= key_marked;
                        match key.peel() {
                            Value::Unknown(_) => unknown = true,
                            other => {
                                let key = primitive_text(other).ok_or_else(|| {
                                    bad(
                                        &key_expr.loc,
                                        Fault::InvalidKey,
                                        "a `for` key must be a string",
                                    )
                                })?;
                                if fe.grouping {
                                    groups.entry(key).or_default().push(value);
                                } else if map.insert(key.clone(), value).is_some() {
                                    let shown = quoted(&key, key_marked);
                                    return Err(bad(
                                        &key_expr.loc,
                                        Fault::DuplicateKey,
                                        format!(
                                            "duplicate key {shown} in a `for` expression (add `...` to group)"
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                }
                Ok(())
            })();
            b.truncate(depth);
            result?;
        }
        let out = if unknown {
            Value::unknown()
        } else if fe.key.is_none() {
            Value::List(list)
        } else if fe.grouping {
            Value::Map(
                groups
                    .into_iter()
                    .map(|(k, v)| (k, Value::List(v)))
                    .collect(),
            )
        } else {
            Value::Map(map)
        };
        let _ = loc;
        Ok(out.mark_sensitive_if(marked || inner_marked))
    }
}

/// The (key, value) pairs a `for` (an expression or a template directive) iterates over: index and element
/// of a list, each element twice for a set, key and value of a map. `None` for a value of another kind.
pub(super) fn iteration_pairs(coll: Value) -> Option<Vec<(Value, Value)>> {
    match coll {
        Value::List(items) => Some(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (Value::from(i), v))
                .collect(),
        ),
        Value::Set(items) => Some(items.into_iter().map(|v| (v.clone(), v)).collect()),
        Value::Map(entries) => Some(
            entries
                .into_iter()
                .map(|(k, v)| (Value::String(k), v))
                .collect(),
        ),
        _ => None,
    }
}
