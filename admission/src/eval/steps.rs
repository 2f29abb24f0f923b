//! Traversal steps: `.attr`, `[index]` and splats applied to a value, with unknowns and sensitivity
//! carried through.
//!
//! A step never reads a resource itself; the root of a traversal is resolved in [`super::roots`].

use super::{
    Bindings, EvalError, Evaluator, Fault, Instance, bad, primitive_text, quoted, to_number,
};
use crate::config::{Loc, Step};
use crate::value::{Type, Value};

impl Evaluator<'_> {
    /// Applies `steps` to `v` in order; a splat applies the steps after it to every element.
    pub(super) fn apply_steps(
        &self,
        mut v: Value,
        steps: &[Step],
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Attr(name) => v = get_attr(v, name, loc)?,
                Step::Index(e) => {
                    let key = self.eval_in(e, inst, b, d)?;
                    v = index(v, key, &e.loc)?;
                }
                Step::Splat => {
                    return self.splat(v, &steps[i + 1..], loc, inst, b, d);
                }
                Step::AttrSplat => {
                    // Only the attribute steps right after `.*` apply per element; the rest applies to the
                    // list they make.
                    let rest = &steps[i + 1..];
                    let per_item = rest
                        .iter()
                        .take_while(|s| matches!(s, Step::Attr(_)))
                        .count();
                    let list = self.splat(v, &rest[..per_item], loc, inst, b, d)?;
                    return self.apply_steps(list, &rest[per_item..], loc, inst, b, d);
                }
            }
        }
        Ok(v)
    }
}

impl Evaluator<'_> {
    /// `steps` applied to every element of `v`, as a list. A value that is not a list, tuple or set counts
    /// as a list of itself, and null as an empty list (HCL's splat rules).
    fn splat(
        &self,
        v: Value,
        steps: &[Step],
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let (coll, marked) = v.unmark();
        let items: Vec<Value> = match coll {
            Value::Unknown(_) => {
                // The steps still have to be checked for errors; apply them to an unknown element.
                self.apply_steps(Value::unknown(), steps, loc, inst, b, d)?;
                return Ok(
                    Value::Unknown(Type::List(Box::new(Type::Any))).mark_sensitive_if(marked)
                );
            }
            Value::Null => Vec::new(),
            Value::List(items) => items,
            Value::Set(items) => items.into_iter().collect(),
            other => vec![other],
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(self.apply_steps(item, steps, loc, inst, b, d)?);
        }
        Ok(Value::List(out).mark_sensitive_if(marked))
    }
}

/// `v.name`.
fn get_attr(v: Value, name: &str, loc: &Loc) -> Result<Value, EvalError> {
    let (v, marked) = v.unmark();
    let out = match v {
        Value::Unknown(_) => Value::unknown(),
        Value::Map(mut entries) => match entries.remove(name) {
            Some(x) => x,
            None => {
                return Err(bad(
                    loc,
                    Fault::UnsupportedAttribute,
                    format!("this object has no attribute `{name}`"),
                ));
            }
        },
        Value::Null => {
            return Err(bad(
                loc,
                Fault::NullAttribute,
                format!("attribute `{name}` of a null value"),
            ));
        }
        _ => {
            return Err(bad(
                loc,
                Fault::UnsupportedAttribute,
                format!("attribute `{name}` of a value that is not an object"),
            ));
        }
    };
    Ok(out.mark_sensitive_if(marked))
}

/// `v[key]`.
pub(super) fn index(v: Value, key: Value, loc: &Loc) -> Result<Value, EvalError> {
    let (v, marked) = v.unmark();
    let (key, key_marked) = key.unmark();
    let marked = marked || key_marked;
    if v.is_unknown() || key.is_unknown() {
        return Ok(Value::unknown().mark_sensitive_if(marked));
    }
    // A key computed from a secret is never quoted: the index or key is shown as `(sensitive)`.
    let shown = |text: String| {
        if key_marked {
            "(sensitive)".to_owned()
        } else {
            text
        }
    };
    let out = match v {
        Value::List(items) => {
            let n = to_number(&key.clone().mark_sensitive_if(key_marked), loc)?;
            let i = n.as_u64().ok_or_else(|| {
                bad(
                    loc,
                    Fault::InvalidIndex,
                    format!(
                        "index {} is not a whole number of at least 0",
                        shown(n.to_string())
                    ),
                )
            })?;
            let len = items.len();
            usize::try_from(i)
                .ok()
                .and_then(|i| items.into_iter().nth(i))
                .ok_or_else(|| {
                    bad(
                        loc,
                        Fault::InvalidIndex,
                        format!(
                            "index {} is out of range for a list of {len} element(s)",
                            shown(i.to_string())
                        ),
                    )
                })?
        }
        Value::Map(mut entries) => {
            let k = primitive_text(&key)
                .ok_or_else(|| bad(loc, Fault::InvalidIndex, "a map key must be a string"))?;
            entries.remove(&k).ok_or_else(|| {
                bad(
                    loc,
                    Fault::InvalidIndex,
                    format!("the map has no key {}", quoted(&k, key_marked)),
                )
            })?
        }
        Value::Set(_) => {
            return Err(bad(
                loc,
                Fault::InvalidIndex,
                "a set cannot be indexed; convert it with tolist()",
            ));
        }
        Value::Null => return Err(bad(loc, Fault::NullIndex, "cannot index a null value")),
        _ => {
            return Err(bad(
                loc,
                Fault::InvalidIndex,
                "only lists and maps can be indexed",
            ));
        }
    };
    Ok(out.mark_sensitive_if(marked))
}
