//! A called module's input variable: the caller's argument (or the variable's default) converted to the
//! variable's type, marked sensitive when the variable is, and checked against its `validation` blocks,
//! as Terraform gives a module its variables. Its problems are `invalid-argument` diagnostics at the
//! module block's argument: the caller set a value the module refuses.

use super::{Bindings, EvalError, Evaluator, Instance};
use crate::config::{Loc, ModuleInput, conform};
use crate::diag::Code;
use crate::eval::ConditionOutcome;
use crate::value::Value;

impl Evaluator<'_> {
    /// The value of `input` (see the module docs).
    pub(super) fn eval_module_input(
        &self,
        input: &ModuleInput,
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let var = &input.variable;
        let name = format!("{}.var.{}", input.module, var.name);
        let given = match &input.value {
            Some(e) => Some(self.eval_in(e, &Instance::Single, b, d + 1)?),
            None => None,
        };
        let value = match (given, &var.default) {
            (Some(v), _) if !v.is_null() || var.nullable => v,
            (_, Some(default)) => self.eval_in(default, &Instance::Single, b, d + 1)?,
            (Some(v), None) if var.nullable => v,
            (_, None) => {
                return Err(EvalError::invalid(
                    Code::InvalidArgument,
                    loc,
                    format!("variable `{name}` has no value"),
                    "set it in the module block, or give the variable a default",
                ));
            }
        };
        let default_of = |e: &crate::config::Expr| {
            self.eval_in(e, &Instance::Single, &mut Bindings::new(), d + 1)
                .map_err(|e| e.into_diagnostic(Code::InvalidArgument).summary)
        };
        let value = conform(value, &var.var_type, &default_of).map_err(|why| {
            EvalError::invalid(
                Code::InvalidArgument,
                loc,
                format!("invalid value for variable `{name}`: {why}"),
                "give a value of the variable's declared type",
            )
        })?;
        let value = value.mark_sensitive_if(var.sensitive);
        let _ = inst;
        self.check_validations(input, &name, &value)?;
        Ok(value)
    }

    /// The variable's `validation` blocks, judged on `value` (`var.NAME` in a condition reads it); a
    /// condition that is not known yet is not judged.
    fn check_validations(
        &self,
        input: &ModuleInput,
        name: &str,
        value: &Value,
    ) -> Result<(), EvalError> {
        let var = &input.variable;
        if var.validations.is_empty() || !value.is_known() {
            return Ok(());
        }
        let own = Value::Map([(var.name.clone(), value.clone())].into_iter().collect());
        let bound = [("var".to_owned(), own)];
        for rule in &var.validations {
            match self.condition_with(rule, &Instance::Single, &bound)? {
                ConditionOutcome::Holds | ConditionOutcome::Unknown => {}
                ConditionOutcome::Fails(message) => {
                    return Err(EvalError::invalid(
                        Code::InvalidArgument,
                        &rule.loc,
                        message,
                        &format!("the value of variable `{name}` failed this validation rule"),
                    ));
                }
            }
        }
        Ok(())
    }
}
