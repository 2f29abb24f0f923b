//! `liveplan output [NAME]`: the root module's outputs as the last apply recorded them, printed as
//! `terraform output` prints them.
//!
//! Every apply writes each output's value to an output record (`E/outputs/<name>`); this command reads
//! those records through the read-only plan `show` makes, and never evaluates an output again or writes
//! anything. The list view hides a sensitive value as `<sensitive>`; `output NAME`, `-json` and `-raw`
//! print it in the clear, as Terraform does. Warnings go to stdout and errors to stderr, so that
//! `$(liveplan output -raw NAME)` holds the value or nothing.

use std::collections::BTreeMap;

use admission::{Code, Diagnostic, Value};
use projection::record::OutputRecord;
use serde_json::{Map, Value as Json, json};

use super::commands::{self, diagnostics_text};
use super::target::{Access, Inputs};
use super::terminal::Terminal;
use super::{Common, Exit};

/// How the outputs are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    /// For a person: `name = value` lines, or one value.
    Human,
    /// `-json`.
    Json,
    /// `-raw`.
    Raw,
}

/// `liveplan output [NAME] [-json | -raw]`.
pub async fn output(
    common: &Common,
    term: &Terminal,
    name: Option<&str>,
    raw: bool,
) -> anyhow::Result<Exit> {
    let view = match (raw, common.json) {
        (true, true) => {
            let both = Diagnostic::new(
                Code::UnsupportedRawOutput,
                "-raw and -json cannot be given together",
                "choose one: -json for machine-readable values, -raw for one plain value",
            );
            term.err(&diagnostics_text(&[both]));
            return Ok(Exit::Failure);
        }
        (true, false) => View::Raw,
        (false, true) => View::Json,
        (false, false) => View::Human,
    };
    let inputs = Inputs::read(common)?;
    let planned = commands::make_plan(common, &inputs, Access::Read).await?;
    if !planned.plan.applicable() {
        // The records could not be read as this estate's; the diagnostics say why.
        commands::show_plan(common, term, &planned.plan);
        return Ok(Exit::Failure);
    }
    let outputs: BTreeMap<&str, &OutputRecord> = planned.plan.recorded_outputs().collect();
    match render(view, name, &outputs) {
        Ok(Printed::Text(text)) => {
            term.out(&text);
            Ok(Exit::Success)
        }
        Ok(Printed::Warning(warning)) => {
            term.plan_text(&diagnostics_text(&[warning]));
            Ok(Exit::Success)
        }
        Err(error) => {
            term.err(&diagnostics_text(&[*error]));
            Ok(Exit::Failure)
        }
    }
}

/// What the command prints on success.
enum Printed {
    /// The outputs, exactly as printed.
    Text(String),
    /// A warning instead (there are no outputs).
    Warning(Diagnostic),
}

/// The outputs in `view`: all of them, or `name`'s.
fn render(
    view: View,
    name: Option<&str>,
    outputs: &BTreeMap<&str, &OutputRecord>,
) -> Result<Printed, Box<Diagnostic>> {
    // Terraform's JSON view prints `{}` for no outputs; the others warn.
    if outputs.is_empty() && !(view == View::Json && name.is_none()) {
        return Ok(Printed::Warning(no_outputs()));
    }
    let Some(name) = name else {
        return match view {
            View::Human => Ok(Printed::Text(list_text(outputs))),
            View::Json => Ok(Printed::Text(list_json(outputs))),
            View::Raw => Err(Box::new(Diagnostic::new(
                Code::UnsupportedRawOutput,
                "Raw output format is only supported for single outputs",
                "give the name of one output: `liveplan output -raw NAME`",
            ))),
        };
    };
    let Some(record) = outputs.get(name) else {
        return Err(Box::new(Diagnostic::new(
            Code::OutputNotFound,
            format!("Output {name:?} not found"),
            "The output variable requested could not be found in the estate's records. If you recently \
             added it to the configuration, run `liveplan apply`: outputs are recorded only when an \
             apply runs",
        )));
    };
    match view {
        View::Human => Ok(Printed::Text(format!("{:#}\n", value_of(record)))),
        View::Json => Ok(Printed::Text(format!("{}\n", record.value))),
        View::Raw => raw_text(name, &record.value).map(Printed::Text),
    }
}

/// Terraform's "No outputs found" warning.
fn no_outputs() -> Diagnostic {
    Diagnostic::new(
        Code::NoOutputs,
        "No outputs found",
        "The estate's records hold no outputs: either the configuration declares none, or no apply has \
         recorded them yet. Declare an output with the `output` keyword and run `liveplan apply` for \
         it to become available",
    )
}

/// The recorded value as a value of the language.
fn value_of(record: &OutputRecord) -> Value {
    Value::from_json(record.value.clone())
}

/// Every output as `name = value`, by name, a sensitive one as `<sensitive>`.
fn list_text(outputs: &BTreeMap<&str, &OutputRecord>) -> String {
    let mut out = String::new();
    for (name, record) in outputs {
        if record.sensitive {
            out.push_str(&format!("{name} = <sensitive>\n"));
        } else {
            out.push_str(&format!("{name} = {:#}\n", value_of(record)));
        }
    }
    out
}

/// Every output as Terraform's `output -json` object: by name, `sensitive`, `type` and `value` (in the
/// clear), indented by two spaces.
fn list_json(outputs: &BTreeMap<&str, &OutputRecord>) -> String {
    let mut doc = Map::new();
    for (name, record) in outputs {
        doc.insert(
            (*name).to_owned(),
            json!({
                "sensitive": record.sensitive,
                "type": type_json(&record.value),
                "value": record.value,
            }),
        );
    }
    let text = serde_json::to_string_pretty(&Json::Object(doc)).unwrap_or_else(|_| "{}".into());
    format!("{text}\n")
}

/// The type of a recorded value in Terraform's JSON type syntax. A record holds the value's JSON, not
/// its type, so the type is the one Terraform gives that JSON (as `jsondecode` does): an array is a
/// tuple, an object an object, and null is `dynamic`.
fn type_json(value: &Json) -> Json {
    match value {
        Json::Null => json!("dynamic"),
        Json::Bool(_) => json!("bool"),
        Json::Number(_) => json!("number"),
        Json::String(_) => json!("string"),
        Json::Array(items) => json!(["tuple", items.iter().map(type_json).collect::<Vec<_>>()]),
        Json::Object(fields) => {
            let types: Map<String, Json> = fields
                .iter()
                .map(|(k, v)| (k.clone(), type_json(v)))
                .collect();
            json!(["object", types])
        }
    }
}

/// `name`'s value as `-raw` prints it: a string as it is, a number or bool as text, with no newline;
/// anything else is `unsupported-raw-output`.
fn raw_text(name: &str, value: &Json) -> Result<String, Box<Diagnostic>> {
    let refused = |detail: String| {
        Box::new(Diagnostic::new(
            Code::UnsupportedRawOutput,
            "Unsupported value for raw output",
            detail,
        ))
    };
    match value {
        Json::String(s) => Ok(s.clone()),
        Json::Bool(b) => Ok(b.to_string()),
        Json::Number(_) => Ok(Value::from_json(value.clone()).to_string()),
        Json::Null => Err(refused(format!(
            "The value for output value {name:?} is null, so -raw mode cannot print it"
        ))),
        Json::Array(_) | Json::Object(_) => {
            let kind = if value.is_array() { "tuple" } else { "object" };
            Err(refused(format!(
                "The -raw option only supports strings, numbers, and boolean values, but output value \
                 {name:?} is {kind}. Use the -json option for machine-readable representations of \
                 output values that have complex types"
            )))
        }
    }
}
