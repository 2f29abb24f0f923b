//! Variable inputs: defaults, `TF_VAR_` values, var files and `--var`, merged with Terraform's precedence
//! and typed by each variable's declared `type`.
//!
//! Everything arrives as data: the caller reads the files and passes the environment map, so resolution is
//! a pure function and this module never touches the process environment or the disk. Later sources win:
//! default, then `TF_VAR_name`, then `terraform.tfvars`, then `*.auto.tfvars` by name, then `--var` and
//! `--var-file` in command-line order. A value that does not parse or fit its type, an undeclared `--var`,
//! and a required variable left unset are `invalid-variable`.

use std::collections::BTreeMap;

use super::parse::{parse_expression, parse_var_file};
use super::{Config, SourceFile};
use crate::diag::{Code, Diagnostic};
use crate::eval::{EvalError, Evaluator, Instance};
use crate::value::{Type, Value, convert};

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

/// Resolves the value of every declared variable. The map holds every variable that resolved; the
/// diagnostics are all `invalid-variable`. Values are not marked sensitive here: the evaluator marks
/// `var.NAME` of a sensitive variable where it is read.
pub fn resolve_variables(
    config: &Config,
    inputs: &VariableInputs,
) -> (BTreeMap<String, Value>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut set: BTreeMap<String, Value> = BTreeMap::new();
    // Variables given a value that was refused: already reported, so not "required and unset" as well.
    let mut refused: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let empty = Config::default();
    let no_vars = BTreeMap::new();
    let literal_eval = Evaluator::new(&empty, &no_vars);

    for (name, var) in &config.variables {
        if let Some(default) = &var.default {
            match literal_eval.eval(default, &Instance::Single) {
                Ok(v) => match convert(v, &var.var_type) {
                    Ok(v) => {
                        set.insert(name.clone(), v);
                    }
                    Err(why) => diags.push(
                        invalid(format!(
                            "the default of variable `{name}` does not fit its type: {why}"
                        ))
                        .at(default.loc.to_pos()),
                    ),
                },
                Err(e) => diags.push(retag(e, &format!("the default of variable `{name}`"))),
            }
        }
    }

    for (key, raw) in &inputs.env {
        let Some(name) = key.strip_prefix("TF_VAR_") else {
            continue;
        };
        let Some(var) = config.variables.get(name) else {
            continue;
        };
        match raw_value(raw, &var.var_type, key) {
            Ok(v) => {
                set.insert(name.to_string(), v);
            }
            Err(d) => {
                refused.insert(name.to_string());
                diags.push(*d);
            }
        }
    }

    let apply_file = |file: &SourceFile,
                      set: &mut BTreeMap<String, Value>,
                      refused: &mut std::collections::BTreeSet<String>,
                      diags: &mut Vec<Diagnostic>| {
        for (name, value, pos) in read_var_file(file, &literal_eval, diags) {
            let Some(var) = config.variables.get(&name) else {
                // Terraform only warns about values for undeclared variables in files; nothing to do.
                continue;
            };
            match convert(value, &var.var_type) {
                Ok(v) => {
                    set.insert(name, v);
                }
                Err(why) => {
                    refused.insert(name.clone());
                    let mut d = invalid(format!(
                        "the value of `{name}` in {} does not fit its type: {why}",
                        file.name
                    ));
                    d.pos = pos;
                    diags.push(d);
                }
            }
        }
    };
    for file in &inputs.auto_files {
        apply_file(file, &mut set, &mut refused, &mut diags);
    }
    for input in &inputs.cli {
        match input {
            VarInput::File(file) => apply_file(file, &mut set, &mut refused, &mut diags),
            VarInput::Unreadable { path, reason } => diags.push(Diagnostic::new(
                Code::InvalidVariable,
                format!("the variable file {path} cannot be read: {reason}"),
                "check the path given to --var-file",
            )),
            VarInput::Var(arg) => {
                let Some((name, raw)) = arg.split_once('=') else {
                    diags.push(invalid(format!("`--var {arg}` is not NAME=VALUE")));
                    continue;
                };
                let name = name.trim();
                let Some(var) = config.variables.get(name) else {
                    diags.push(Diagnostic::new(
                        Code::InvalidVariable,
                        format!("`--var {name}` sets a variable that is not declared"),
                        format!(
                            "declare it with a `variable \"{name}\" {{}}` block, or fix the name on \
                             the command line"
                        ),
                    ));
                    continue;
                };
                match raw_value(raw, &var.var_type, &format!("--var {name}")) {
                    Ok(v) => {
                        set.insert(name.to_string(), v);
                    }
                    Err(d) => {
                        refused.insert(name.to_string());
                        diags.push(*d);
                    }
                }
            }
        }
    }

    for (name, var) in &config.variables {
        if !set.contains_key(name) && var.default.is_none() && !refused.contains(name) {
            diags.push(
                Diagnostic::new(
                    Code::InvalidVariable,
                    format!("variable `{name}` is required and has no value"),
                    format!("set it with `--var {name}=...`, a var file or TF_VAR_{name}"),
                )
                .at(var.loc.to_pos()),
            );
        }
    }
    (set, diags)
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

/// A `--var` or `TF_VAR_` value: primitive and `any` types take the raw text, others are HCL.
fn raw_value(raw: &str, ty: &Type, source: &str) -> Result<Value, Box<Diagnostic>> {
    let value = if matches!(ty, Type::Any | Type::String | Type::Number | Type::Bool) {
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
    convert(value, ty)
        .map_err(|why| Box::new(invalid(format!("`{source}` does not fit type {ty}: {why}"))))
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
