//! Variable inputs: defaults, `TF_VAR_` values, var files and `--var`, merged with Terraform's precedence
//! and typed by each variable's declared `type`.
//!
//! Everything arrives as data: the caller reads the files and passes the environment map, so resolution is
//! a pure function and this module never touches the process environment or the disk. Later sources win:
//! default, then `TF_VAR_name`, then `terraform.tfvars`, then `*.auto.tfvars` by name, then `--var` and
//! `--var-file` in command-line order. Each value is converted to the variable's type constraint as
//! Terraform converts it (`optional(T, default)` attributes take their defaults); a null value of a
//! `nullable = false` variable takes the default. A value that does not parse or fit its type, an
//! undeclared `--var`, a required variable left unset (when planning; `validate` takes it as unknown) and
//! a `validation` block whose condition is false are `invalid-variable`, the last with the block's
//! `error_message` as its summary.

use std::collections::{BTreeMap, BTreeSet};

use super::parse::{parse_expression, parse_var_file};
use super::types::{TypeConstraint, conform};
use super::{Config, SourceFile};
use crate::diag::{Code, Diagnostic};
use crate::eval::{ConditionOutcome, EvalError, Evaluator, Instance};
use crate::value::Value;

/// What a variable without a value is: an error when planning, unknown when validating.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VariableMode {
    /// `plan` and `apply`: a required variable must have a value.
    #[default]
    Plan,
    /// `validate`: a required variable without a value is unknown, as `terraform validate` takes it.
    Validate,
}

/// One command-line input, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarInput {
    /// `--var NAME=VALUE`, as written.
    Var(String),
    /// `--var-file FILE`, already read (HCL, or JSON when the name ends in `.json`).
    File(SourceFile),
    /// `--var-file FILE` that could not be read: the path and why, reported as `invalid-variable`.
    Unreadable {
        /// The path as given.
        path: String,
        /// Why it could not be read.
        reason: String,
    },
}

/// Every source of variable values, as data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VariableInputs {
    /// The environment (only `TF_VAR_*` entries are looked at).
    pub env: BTreeMap<String, String>,
    /// `terraform.tfvars` and the `*.auto.tfvars` files, in the order [`var_file_names`] gives.
    pub auto_files: Vec<SourceFile>,
    /// `--var` and `--var-file`, in command-line order.
    pub cli: Vec<VarInput>,
}

/// The names among `names` that Terraform reads automatically, in its order: `terraform.tfvars` (and its
/// JSON form), then `*.auto.tfvars` (and `*.auto.tfvars.json`) sorted by name.
pub fn var_file_names(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = ["terraform.tfvars", "terraform.tfvars.json"]
        .iter()
        .filter(|n| names.iter().any(|x| x == *n))
        .map(|n| n.to_string())
        .collect();
    let mut auto: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(".auto.tfvars") || n.ends_with(".auto.tfvars.json"))
        .cloned()
        .collect();
    auto.sort();
    out.extend(auto);
    out
}

/// Resolves the value of every declared variable as a plan does ([`VariableMode::Plan`]). The map holds
/// every variable that resolved; the diagnostics are all `invalid-variable`. Values are not marked
/// sensitive here: the evaluator marks `var.NAME` of a sensitive variable where it is read.
pub fn resolve_variables(
    config: &Config,
    inputs: &VariableInputs,
) -> (BTreeMap<String, Value>, Vec<Diagnostic>) {
    resolve_variables_for(config, inputs, VariableMode::Plan)
}

/// Resolves the value of every declared variable in `mode`: as [`resolve_variables`], but with
/// [`VariableMode::Validate`] a required variable without a value is unknown (of its type) instead of an
/// error, and validations that read it are not judged.
pub fn resolve_variables_for(
    config: &Config,
    inputs: &VariableInputs,
    mode: VariableMode,
) -> (BTreeMap<String, Value>, Vec<Diagnostic>) {
    let empty = Config::default();
    let no_vars = BTreeMap::new();
    let mut r = Resolution {
        config,
        literal_eval: Evaluator::new(&empty, &no_vars),
        set: BTreeMap::new(),
        refused: BTreeSet::new(),
        diags: Vec::new(),
    };
    r.defaults();
    for (key, raw) in &inputs.env {
        let Some(name) = key.strip_prefix("TF_VAR_") else {
            continue;
        };
        let Some(var) = config.variables.get(name) else {
            continue;
        };
        let value = raw_value(raw, &var.var_type, key).and_then(|v| r.conform_from(v, var, key));
        r.offer(name, value);
    }
    for file in &inputs.auto_files {
        r.file(file);
    }
    for input in &inputs.cli {
        match input {
            VarInput::File(file) => r.file(file),
            VarInput::Unreadable { path, reason } => r.diags.push(Diagnostic::new(
                Code::InvalidVariable,
                format!("the variable file {path} cannot be read: {reason}"),
                "check the path given to --var-file",
            )),
            VarInput::Var(arg) => r.cli_var(arg),
        }
    }
    r.required(mode);
    r.nullability();
    r.validations();
    (r.set, r.diags)
}

/// Variable values being resolved, source after source: each later value overrides.
struct Resolution<'c, 'e> {
    config: &'c Config,
    /// Evaluates defaults and var-file values, which may only be literals.
    literal_eval: Evaluator<'e>,
    set: BTreeMap<String, Value>,
    /// Variables given a value that was refused: already reported, so not "required and unset" as well.
    refused: BTreeSet<String>,
    diags: Vec<Diagnostic>,
}

impl Resolution<'_, '_> {
    /// Sets `name` to `value` from one source, or reports the refused value and remembers the refusal.
    fn offer(&mut self, name: &str, value: Result<Value, Box<Diagnostic>>) {
        match value {
            Ok(v) => {
                self.set.insert(name.to_string(), v);
            }
            Err(d) => {
                self.refused.insert(name.to_string());
                self.diags.push(*d);
            }
        }
    }

    /// Every declared default, typed by its variable's `type`.
    fn defaults(&mut self) {
        for (name, var) in &self.config.variables {
            let Some(default) = &var.default else {
                continue;
            };
            match self.literal_eval.eval(default, &Instance::Single) {
                Ok(v) => match self.conform(v, &var.var_type) {
                    Ok(v) => {
                        self.set.insert(name.clone(), v);
                    }
                    Err(why) => self.diags.push(
                        invalid(format!(
                            "the default of variable `{name}` does not fit its type: {why}"
                        ))
                        .at(default.loc.to_pos()),
                    ),
                },
                Err(e) => self
                    .diags
                    .push(retag(e, &format!("the default of variable `{name}`"))),
            }
        }
    }

    /// The values of one variable file, for the variables declared.
    fn file(&mut self, file: &SourceFile) {
        for (name, value, pos) in read_var_file(file, &self.literal_eval, &mut self.diags) {
            let Some(var) = self.config.variables.get(&name) else {
                // Terraform only warns about values for undeclared variables in files; nothing to do.
                continue;
            };
            let value = self.conform(value, &var.var_type).map_err(|why| {
                let mut d = invalid(format!(
                    "the value of `{name}` in {} does not fit its type: {why}",
                    file.name
                ));
                d.pos = pos;
                Box::new(d)
            });
            self.offer(&name, value);
        }
    }

    /// One `--var NAME=VALUE`, for a declared variable only.
    fn cli_var(&mut self, arg: &str) {
        let Some((name, raw)) = arg.split_once('=') else {
            self.diags
                .push(invalid(format!("`--var {arg}` is not NAME=VALUE")));
            return;
        };
        let name = name.trim();
        let Some(var) = self.config.variables.get(name) else {
            self.diags.push(Diagnostic::new(
                Code::InvalidVariable,
                format!("`--var {name}` sets a variable that is not declared"),
                format!(
                    "declare it with a `variable \"{name}\" {{}}` block, or fix the name on \
                     the command line"
                ),
            ));
            return;
        };
        let source = format!("--var {name}");
        let value =
            raw_value(raw, &var.var_type, &source).and_then(|v| self.conform_from(v, var, &source));
        self.offer(name, value);
    }

    /// A value converted to a variable's type constraint, optional attributes' defaults evaluated as
    /// literals.
    fn conform(&self, v: Value, tc: &TypeConstraint) -> Result<Value, String> {
        let default = |e: &crate::config::Expr| {
            self.literal_eval
                .eval(e, &Instance::Single)
                .map_err(|e| e.into_diagnostic(Code::InvalidVariable).summary)
        };
        conform(v, tc, &default)
    }

    /// A value from `source` converted to the type of `var`, the refusal naming the source.
    fn conform_from(
        &self,
        v: Value,
        var: &crate::config::Variable,
        source: &str,
    ) -> Result<Value, Box<Diagnostic>> {
        self.conform(v, &var.var_type).map_err(|why| {
            Box::new(invalid(format!(
                "`{source}` does not fit type {}: {why}",
                var.var_type
            )))
        })
    }

    /// Reports every variable without a default that no source set (and none was refused); when
    /// validating, such a variable is unknown instead.
    fn required(&mut self, mode: VariableMode) {
        for (name, var) in &self.config.variables {
            if !self.set.contains_key(name) && var.default.is_none() && !self.refused.contains(name)
            {
                if mode == VariableMode::Validate {
                    let unknown = Value::unknown_of(var.var_type.to_type());
                    self.set.insert(name.clone(), unknown);
                    continue;
                }
                self.diags.push(
                    Diagnostic::new(
                        Code::InvalidVariable,
                        format!("variable `{name}` is required and has no value"),
                        format!("set it with `--var {name}=...`, a var file or TF_VAR_{name}"),
                    )
                    .at(var.loc.to_pos()),
                );
            }
        }
    }
}

impl Resolution<'_, '_> {
    /// A null value of a `nullable = false` variable takes the default; with no default it is refused.
    fn nullability(&mut self) {
        for (name, var) in &self.config.variables {
            if var.nullable || !self.set.get(name).is_some_and(Value::is_null) {
                continue;
            }
            let default = var
                .default
                .as_ref()
                .and_then(|d| self.literal_eval.eval(d, &Instance::Single).ok())
                .and_then(|v| self.conform(v, &var.var_type).ok())
                .filter(|v| !v.is_null());
            match default {
                Some(v) => {
                    self.set.insert(name.clone(), v);
                }
                None => {
                    self.set.remove(name);
                    self.diags.push(
                        Diagnostic::new(
                            Code::InvalidVariable,
                            format!("variable `{name}` must not be null"),
                            "the variable is declared `nullable = false`: give it a value that is not \
                             null",
                        )
                        .at(var.loc.to_pos()),
                    );
                }
            }
        }
    }

    /// Every `validation` block of every variable with a value, judged on the resolved values: a false
    /// condition is reported with its `error_message` as the summary. A condition that reads what is not
    /// known yet (a variable without a value at validate, a resource) is not judged.
    fn validations(&mut self) {
        let ev = Evaluator::new(self.config, &self.set);
        let mut found = Vec::new();
        for (name, var) in &self.config.variables {
            if !self.set.contains_key(name) {
                continue;
            }
            for rule in &var.validations {
                match ev.condition(rule, &Instance::Single) {
                    Ok(ConditionOutcome::Holds | ConditionOutcome::Unknown) => {}
                    Ok(ConditionOutcome::Fails(message)) => found.push(
                        Diagnostic::new(
                            Code::InvalidVariable,
                            message,
                            format!(
                                "the value of variable `{name}` failed the validation rule at {}",
                                rule.loc
                            ),
                        )
                        .at(rule.loc.to_pos()),
                    ),
                    Err(EvalError::NotStatic { .. }) => {}
                    Err(e) => {
                        let mut d = e.into_diagnostic(Code::InvalidVariable);
                        d.summary = format!(
                            "the validation rule of variable `{name}` cannot be checked: {}",
                            d.summary
                        );
                        d.code = Code::InvalidVariable;
                        found.push(d);
                    }
                }
            }
        }
        self.diags.extend(found);
    }
}

fn invalid(summary: String) -> Diagnostic {
    Diagnostic::new(
        Code::InvalidVariable,
        summary,
        "give a value of the variable's declared type (strings as-is on the command line, lists and maps in HCL syntax)",
    )
}

/// An evaluation problem of a variable value, reported as `invalid-variable` wherever it came from.
fn retag(e: EvalError, what: &str) -> Diagnostic {
    let mut d = e.into_diagnostic(Code::InvalidVariable);
    d.summary = format!("{what} is not a literal value: {}", d.summary);
    d.code = Code::InvalidVariable;
    d
}

/// A `--var` or `TF_VAR_` value, before conversion to the variable's type: primitive and `any` types
/// take the raw text, others are HCL.
fn raw_value(raw: &str, ty: &TypeConstraint, source: &str) -> Result<Value, Box<Diagnostic>> {
    let primitive = matches!(
        ty,
        TypeConstraint::Any
            | TypeConstraint::String
            | TypeConstraint::Number
            | TypeConstraint::Bool
    );
    let value = if primitive {
        Value::String(raw.to_string())
    } else {
        let expr = parse_expression(source, raw).map_err(|mut d| {
            d.code = Code::InvalidVariable;
            d.summary = format!("`{source}` does not parse: {}", d.summary);
            d
        })?;
        let empty = Config::default();
        let no_vars = BTreeMap::new();
        Evaluator::new(&empty, &no_vars)
            .eval(&expr, &Instance::Single)
            .map_err(|e| Box::new(retag(e, &format!("`{source}`"))))?
    };
    Ok(value)
}

fn read_var_file(
    file: &SourceFile,
    ev: &Evaluator<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, Value, Option<crate::diag::SourcePos>)> {
    if file.name.ends_with(".json") {
        return match serde_json::from_str::<serde_json::Value>(&file.text) {
            Ok(serde_json::Value::Object(entries)) => entries
                .into_iter()
                .map(|(k, v)| (k, Value::from_json(v), None))
                .collect(),
            Ok(_) => {
                diags.push(invalid(format!(
                    "{} does not hold a JSON object",
                    file.name
                )));
                Vec::new()
            }
            Err(e) => {
                diags.push(invalid(format!("{} is not valid JSON: {e}", file.name)));
                Vec::new()
            }
        };
    }
    let (attrs, file_diags) = parse_var_file(file);
    diags.extend(file_diags.into_iter().map(|mut d| {
        d.code = Code::InvalidVariable;
        d
    }));
    let mut out = Vec::new();
    for attr in attrs {
        match ev.eval(&attr.expr, &Instance::Single) {
            Ok(v) => out.push((attr.name.clone(), v, Some(attr.loc.to_pos()))),
            Err(e) => diags.push(retag(
                e,
                &format!("the value of `{}` in {}", attr.name, file.name),
            )),
        }
    }
    out
}
