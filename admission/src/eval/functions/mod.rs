//! The built-in functions of Terraform 1.9, with Terraform's semantics: a registry that maps each name to
//! its arity, the type of its result and its implementation, and one module per family.
//!
//! Most functions see their arguments wholly known and without marks: the registry answers an unknown
//! argument with an unknown result of the function's type, and marks the result sensitive when any
//! argument carried a mark. The functions that need to see unknowns or marks themselves (`length` of a
//! list with unknown elements, `coalesce`, `sensitive`, `nonsensitive`...) say so in the registry. `try`
//! and `can` evaluate their arguments lazily and are handled by the evaluator ([`typeconv`]).
//!
//! Impure functions (`uuid`, `timestamp`, `bcrypt`) are unknown unless the caller gives [`ImpureValues`]
//! (at apply). Functions never read the clock, the environment or randomness themselves; the filesystem
//! functions read files below the module directory of the [`ModuleContext`]. An error never quotes a
//! sensitive argument, and no input makes a function panic.

mod collection;
mod datetime;
mod encoding;
mod filesystem;
mod format;
mod hash;
mod ipnet;
mod numeric;
mod registry;
mod sets;
mod string;
mod textregex;
mod typeconv;
mod yaml;

use std::collections::BTreeMap;
use std::fmt::Display;

pub(crate) use registry::IMPURE;

use super::redact::unquoted;
use super::{EvalError, ImpureValues, ModuleContext, primitive_text, to_bool, to_number};
use crate::config::Loc;
use crate::diag::{Code, Diagnostic};
use crate::value::{Number, Type, Value};
use registry::{Mode, lookup_function};

/// What a function call knows besides its arguments.
pub(super) struct Ctx<'a> {
    /// The function's name, for messages.
    pub name: &'a str,
    /// Where the call is written.
    pub loc: &'a Loc,
    /// The impure values, at apply only.
    pub impure: Option<&'a dyn ImpureValues>,
    /// `path.module`, the workspace and the plan's timestamp.
    pub module: &'a ModuleContext,
    /// Whether the call is inside a template that `templatefile` or `templatestring` renders (they cannot
    /// recurse).
    pub in_template: bool,
}

impl Ctx<'_> {
    /// The function's refusal of its arguments (`invalid-function-argument`), worded `name(): msg`.
    pub fn err(&self, msg: impl Display) -> EvalError {
        EvalError::Invalid(Box::new(
            Diagnostic::new(
                Code::InvalidFunctionArgument,
                format!("invalid function argument: {}(): {msg}", self.name),
                "give the function arguments of the types and values its documentation names",
            )
            .at(self.loc.to_pos()),
        ))
    }

    /// A string argument (numbers and bools convert to their text, as Terraform converts).
    pub fn str(&self, v: &Value) -> Result<String, EvalError> {
        match v.peel() {
            Value::Null => Err(self.err("a string is required, found null")),
            other => primitive_text(other).ok_or_else(|| self.err("a string is required")),
        }
    }

    /// A number argument (strings holding one convert).
    pub fn num(&self, v: &Value) -> Result<Number, EvalError> {
        match v.peel() {
            Value::Null => Err(self.err("a number is required, found null")),
            Value::Number(n) => Ok(n.clone()),
            Value::String(_) => to_number(v, self.loc).map_err(|_| {
                if v.contains_sensitive() {
                    self.err("a number is required")
                } else {
                    self.err(format!("a number is required, found {}", show(v)))
                }
            }),
            _ => Err(self.err("a number is required")),
        }
    }

    /// A whole-number argument within `i64`.
    pub fn int(&self, v: &Value) -> Result<i64, EvalError> {
        let n = self.num(v)?;
        n.as_i64()
            .ok_or_else(|| self.err("a whole number is required"))
    }

    /// A bool argument (the strings `"true"` and `"false"` convert).
    pub fn bool(&self, v: &Value) -> Result<bool, EvalError> {
        match v.peel() {
            Value::Null => Err(self.err("a bool is required, found null")),
            _ => to_bool(v, self.loc).map_err(|_| self.err("a bool is required")),
        }
    }

    /// The elements of a list, tuple or set argument.
    pub fn list(&self, v: &Value) -> Result<Vec<Value>, EvalError> {
        match v.peel() {
            Value::List(items) => Ok(items.clone()),
            Value::Set(items) => Ok(items.iter().cloned().collect()),
            Value::Null => Err(self.err("a list is required, found null")),
            _ => Err(self.err("a list, tuple or set is required")),
        }
    }

    /// The entries of a map or object argument.
    pub fn map(&self, v: &Value) -> Result<BTreeMap<String, Value>, EvalError> {
        match v.peel() {
            Value::Map(m) => Ok(m.clone()),
            Value::Null => Err(self.err("a map is required, found null")),
            _ => Err(self.err("a map or object is required")),
        }
    }
}

/// A value as a message may quote it (never called on a sensitive value: the registry strips marks and
/// the messages that see marks check first).
pub(super) fn show(v: &Value) -> String {
    match v.peel() {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// Calls the function `name` with `args`. Its error never quotes a sensitive argument.
pub(super) fn call(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, EvalError> {
    call_marked(ctx, &args).map_err(|e| unquoted(ctx.name, e, &args))
}

/// The message for a name that is no built-in function: `unsupported-construct` for the functions
/// Terraform has and liveplan does not implement, `invalid-expression` for a name Terraform does not know
/// either (its "Call to unknown function").
fn unknown_function(ctx: &Ctx<'_>) -> EvalError {
    let (code, summary, detail) = match ctx.name {
        "rsadecrypt" => (
            Code::UnsupportedConstruct,
            "function `rsadecrypt` is not implemented by liveplan".to_owned(),
            "decrypt the value outside the configuration and pass it in as a sensitive variable",
        ),
        n if n.contains("::") => (
            Code::UnsupportedConstruct,
            format!(
                "function `{n}` is provider-defined, and liveplan does not implement provider-defined functions"
            ),
            "compute the value with Terraform's built-in functions, or pass it in as a variable",
        ),
        "type" => (
            Code::InvalidExpression,
            "Call to unknown function: `type` exists only in `terraform console`".to_owned(),
            "remove the call; `type()` is not available in configuration files",
        ),
        n @ ("list" | "map") => (
            Code::InvalidExpression,
            format!("Call to unknown function: `{n}` was removed in Terraform 0.15"),
            "use `tolist()` or `tomap()`",
        ),
        n => (
            Code::InvalidExpression,
            format!("Call to unknown function: there is no function named `{n}`"),
            "check the name against Terraform's built-in functions",
        ),
    };
    EvalError::Invalid(Box::new(
        Diagnostic::new(code, summary, detail).at(ctx.loc.to_pos()),
    ))
}

/// [`call`], its error as the function words it.
fn call_marked(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let Some(f) = lookup_function(ctx.name) else {
        return Err(unknown_function(ctx));
    };
    if args.len() < f.min || args.len() > f.max {
        let want = if f.min == f.max {
            format!("{}", f.min)
        } else if f.max == usize::MAX {
            format!("at least {}", f.min)
        } else {
            format!("{} to {}", f.min, f.max)
        };
        return Err(ctx.err(format!("takes {want} argument(s), {} given", args.len())));
    }
    match f.mode {
        Mode::Raw => (f.run)(ctx, args),
        Mode::Known | Mode::Impure => {
            if f.mode == Mode::Impure && ctx.impure.is_none() {
                return Ok(Value::Unknown(f.ret.ty()));
            }
            let marked = args.iter().any(Value::contains_sensitive);
            if args.iter().any(|a| !a.is_known()) {
                return Ok(Value::Unknown(f.ret.ty()).mark_sensitive_if(marked));
            }
            let plain: Vec<Value> = args.iter().map(|a| a.clone().unmark_deep().0).collect();
            Ok((f.run)(ctx, &plain)?.mark_sensitive_if(marked))
        }
    }
}

/// The type of an unknown list of `t`.
pub(super) fn list_of(t: Type) -> Type {
    Type::List(Box::new(t))
}
