//! Templates: string and heredoc templates rendered with their `%{if}` and `%{for}` directives, under the
//! same unknown and sensitivity rules as every other expression.
//!
//! Rendering only concatenates; it never reformats an interpolated value beyond its plain text. The one
//! exception is HCL's unwrapping: a template of a single interpolation is that interpolation's value.

use super::for_expr::iteration_pairs;
use super::operators::{BoolPlace, bool_at};
use super::{Bindings, EvalError, Evaluator, Fault, Instance, bad, primitive_text};
use crate::config::{Loc, TemplatePart};
use crate::value::{Type, Value};

/// A template being rendered: the text so far, and whether any part was unknown or sensitive.
#[derive(Default)]
struct TemplateAcc {
    text: String,
    unknown: bool,
    marked: bool,
}

impl Evaluator<'_> {
    /// A template's value: its text, unknown when any part is, sensitive when any part is. A template that
    /// is one interpolation and nothing else (`"${var.list}"`) is the interpolated value itself, of any type
    /// and null included, as HCL unwraps it.
    pub(super) fn eval_template(
        &self,
        parts: &[TemplatePart],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        if let [TemplatePart::Interpolation(only)] = parts {
            return self.eval_in(only, inst, b, d);
        }
        let mut acc = TemplateAcc::default();
        self.eval_parts(parts, inst, b, d, &mut acc)?;
        let v = if acc.unknown {
            Value::Unknown(Type::String)
        } else {
            Value::String(acc.text)
        };
        Ok(v.mark_sensitive_if(acc.marked))
    }

    /// Renders template parts into `acc`; directives (`%{if}`, `%{for}`) follow the same unknown and
    /// sensitivity rules as expressions.
    fn eval_parts(
        &self,
        parts: &[TemplatePart],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
        acc: &mut TemplateAcc,
    ) -> Result<(), EvalError> {
        for part in parts {
            match part {
                TemplatePart::Literal(s) => acc.text.push_str(s),
                TemplatePart::Interpolation(e) => {
                    let v = self.eval_in(e, inst, b, d)?;
                    acc.marked |= v.contains_sensitive();
                    match v.peel() {
                        Value::Unknown(_) => acc.unknown = true,
                        other => acc.text.push_str(&template_text(other, &e.loc)?),
                    }
                }
                TemplatePart::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let c = self.eval_in(cond, inst, b, d)?;
                    acc.marked |= c.contains_sensitive();
                    match c.peel() {
                        Value::Unknown(_) => {
                            // Both branches are rendered for their errors and marks; the text is unknown.
                            acc.unknown = true;
                            self.eval_parts(then, inst, b, d, acc)?;
                            self.eval_parts(otherwise, inst, b, d, acc)?;
                        }
                        other => {
                            let chosen = if bool_at(other, &cond.loc, BoolPlace::TemplateIf)? {
                                then
                            } else {
                                otherwise
                            };
                            self.eval_parts(chosen, inst, b, d, acc)?;
                        }
                    }
                }
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                } => {
                    let coll = self.eval_in(collection, inst, b, d)?;
                    let (coll, marked) = coll.unmark();
                    acc.marked |= marked;
                    let pairs: Vec<(Value, Value)> = match coll {
                        Value::Unknown(_) => {
                            acc.unknown = true;
                            continue;
                        }
                        other => iteration_pairs(other).ok_or_else(|| {
                            bad(
                                &collection.loc,
                                Fault::NotIterable,
                                "a template `for` needs a list, set or map",
                            )
                        })?,
                    };
                    for (k, v) in pairs {
                        let depth = b.len();
                        if let Some(kv) = key_var {
                            b.push((kv.clone(), k));
                        }
                        b.push((value_var.clone(), v));
                        let result = self.eval_parts(body, inst, b, d + 1, acc);
                        b.truncate(depth);
                        result?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The text an interpolation adds: a known string, number or bool.
fn template_text(v: &Value, loc: &Loc) -> Result<String, EvalError> {
    match v {
        Value::Null => Err(bad(
            loc,
            Fault::InvalidTemplateValue,
            "a template interpolates null",
        )),
        other => primitive_text(other).ok_or_else(|| {
            bad(
                loc,
                Fault::InvalidTemplateValue,
                "a template can interpolate only strings, numbers and bools",
            )
        }),
    }
}
