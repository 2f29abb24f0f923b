//! Nested blocks: the value of the blocks of one type in a resource body, `dynamic` ones expanded.
//!
//! Static blocks give one object each; a `dynamic` block gives one per element of its `for_each`, with its
//! iterator bound to `{ key, value }` in its labels and content (nested dynamics see every enclosing
//! iterator). Unlabelled blocks make a list of objects, labelled ones a map by their first label; the
//! resource type's schema gives the value its nesting. The iterator never escapes the block.

use std::collections::BTreeMap;

use super::for_expr::iteration_pairs;
use super::{Bindings, EvalError, Evaluator, Fault, Instance, bad, primitive_text, quoted};
use crate::config::{DynamicBlock, Expr, Loc, NestedBlock};
use crate::value::{Type, Value};

/// The blocks evaluated so far: bodies with their first label, and whether anything is unknown.
#[derive(Default)]
struct Built {
    bodies: Vec<(Option<String>, Value)>,
    unknown: bool,
    marked: bool,
}

impl Evaluator<'_> {
    /// The value of the blocks `blocks`, written at `loc`.
    pub(super) fn eval_blocks(
        &self,
        blocks: &[NestedBlock],
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let mut built = Built::default();
        for block in blocks {
            match block {
                NestedBlock::Static(body) => {
                    let value = self.eval_body(&body.attrs, inst, b, d)?;
                    built.bodies.push((body.labels.first().cloned(), value));
                }
                NestedBlock::Dynamic(dynamic) => {
                    self.eval_dynamic(dynamic, inst, b, d, &mut built)?
                }
            }
        }
        if built.unknown {
            return Ok(
                Value::Unknown(Type::List(Box::new(Type::Any))).mark_sensitive_if(built.marked)
            );
        }
        let labelled = built.bodies.iter().any(|(l, _)| l.is_some());
        let out = if labelled {
            let mut map = BTreeMap::new();
            for (label, body) in built.bodies {
                let label = label.unwrap_or_default();
                if map.contains_key(&label) {
                    let shown = quoted(&label, false);
                    return Err(bad(
                        loc,
                        Fault::DuplicateKey,
                        format!("two blocks have the label {shown}"),
                    ));
                }
                map.insert(label, body);
            }
            Value::Map(map)
        } else {
            Value::List(built.bodies.into_iter().map(|(_, v)| v).collect())
        };
        Ok(out.mark_sensitive_if(built.marked))
    }

    /// One block body as an object.
    fn eval_body(
        &self,
        attrs: &[(String, Expr)],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let mut out = BTreeMap::new();
        for (name, expr) in attrs {
            out.insert(name.clone(), self.eval_in(expr, inst, b, d)?);
        }
        Ok(Value::Map(out))
    }

    /// The blocks one `dynamic` block generates, added to `built`.
    fn eval_dynamic(
        &self,
        dynamic: &DynamicBlock,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
        built: &mut Built,
    ) -> Result<(), EvalError> {
        let coll = self.eval_in(&dynamic.for_each, inst, b, d)?;
        let (coll, marked) = coll.unmark();
        built.marked |= marked;
        let pairs = match coll {
            Value::Unknown(_) => {
                built.unknown = true;
                return Ok(());
            }
            Value::Null => {
                return Err(bad(
                    &dynamic.for_each.loc,
                    Fault::NotIterable,
                    "a `dynamic` block's `for_each` is null",
                ));
            }
            other => iteration_pairs(other).ok_or_else(|| {
                bad(
                    &dynamic.for_each.loc,
                    Fault::NotIterable,
                    "a `dynamic` block's `for_each` needs a list, set or map",
                )
            })?,
        };
        for (key, value) in pairs {
            let depth = b.len();
            let element = Value::Map(BTreeMap::from([
                ("key".to_owned(), key),
                ("value".to_owned(), value),
            ]));
            b.push((dynamic.iterator.clone(), element));
            let result = self.eval_generated(dynamic, inst, b, d);
            b.truncate(depth);
            match result? {
                Some(block) => built.bodies.push(block),
                None => built.unknown = true,
            }
        }
        Ok(())
    }

    /// One generated block: its first label and body; `None` when a label is unknown.
    fn eval_generated(
        &self,
        dynamic: &DynamicBlock,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Option<(Option<String>, Value)>, EvalError> {
        let mut first = None;
        for (i, label) in dynamic.labels.iter().enumerate() {
            let v = self.eval_in(label, inst, b, d)?;
            match v.peel() {
                Value::Unknown(_) => return Ok(None),
                other => {
                    let text = primitive_text(other).ok_or_else(|| {
                        bad(
                            &label.loc,
                            Fault::InvalidKey,
                            "a block label must be a string",
                        )
                    })?;
                    if i == 0 {
                        first = Some(text);
                    }
                }
            }
        }
        let body = self.eval_body(&dynamic.content, inst, b, d)?;
        Ok(Some((first, body)))
    }
}
