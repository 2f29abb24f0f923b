//! Custom conditions evaluated: a `validation`, `precondition`, `postcondition` or `assert` block's
//! condition, and its `error_message` when the condition is false.
//!
//! What a failure means (an error, or a check's warning) is the caller's to decide; this module only
//! says whether the condition holds, fails (with the message to show) or is not known yet.

use super::{Bindings, EvalError, Evaluator, Fault, Instance, bad, to_bool};
use crate::config::Condition;
use crate::value::Value;

/// What evaluating a condition gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConditionOutcome {
    /// The condition is true.
    Holds,
    /// The condition is false; the message to report (the block's `error_message`, or a placeholder when
    /// the message is sensitive or not known).
    Fails(String),
    /// The condition reads a value not known yet: it is checked later (at apply), or never at validate.
    Unknown,
}

/// The message shown in place of a sensitive `error_message`, which must never be printed.
pub const SENSITIVE_MESSAGE: &str =
    "the error message includes a sensitive value, so it is not displayed";

impl Evaluator<'_> {
    /// Evaluates `c` for `instance`. A condition that is null or not a bool is an error, as in Terraform.
    pub fn condition(
        &self,
        c: &Condition,
        instance: &Instance,
    ) -> Result<ConditionOutcome, EvalError> {
        self.condition_with(c, instance, &[])
    }

    /// Evaluates `c` for `instance` with names bound before any other (`self` for a postcondition).
    pub fn condition_with(
        &self,
        c: &Condition,
        instance: &Instance,
        bound: &[(String, Value)],
    ) -> Result<ConditionOutcome, EvalError> {
        let mut b: Bindings = bound.to_vec();
        let v = self.eval_in(&c.condition, instance, &mut b, 0)?;
        if !v.is_known() {
            return Ok(ConditionOutcome::Unknown);
        }
        if v.is_null() {
            return Err(bad(
                &c.condition.loc,
                Fault::InvalidCondition,
                format!(
                    "the {} condition is null; it must be true or false",
                    c.kind.as_str()
                ),
            ));
        }
        let holds = to_bool(&v, &c.condition.loc).map_err(|_| {
            bad(
                &c.condition.loc,
                Fault::InvalidCondition,
                format!(
                    "the {} condition must be bool, not {}",
                    c.kind.as_str(),
                    v.peel().type_of()
                ),
            )
        })?;
        if holds {
            return Ok(ConditionOutcome::Holds);
        }
        let mut b: Bindings = bound.to_vec();
        let message = match self.eval_in(&c.error_message, instance, &mut b, 0) {
            Ok(m) if m.contains_sensitive() => SENSITIVE_MESSAGE.to_string(),
            Ok(m) if !m.is_known() => "the error message is not known until apply".to_string(),
            Ok(Value::String(s)) => s,
            Ok(other) => other.to_string(),
            Err(e) => return Err(e),
        };
        Ok(ConditionOutcome::Fails(message))
    }
}
