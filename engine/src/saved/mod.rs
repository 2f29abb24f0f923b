//! The saved plan file that `plan -out FILE` writes, `show FILE` reads and `apply FILE` applies: one JSON
//! document of format [`SAVED_PLAN_FORMAT`], version [`SAVED_PLAN_VERSION`].
//!
//! It holds the plan as the engine produced it: Terraform's JSON plan representation of every instance
//! with liveplan's reports ([`crate::tfjson::plan_document`], which carries the variables and the estate),
//! the human text of the plan (plain and with no-ops), and the configuration files the plan was made from,
//! as Terraform's plan files embed their configuration. A plan with errors is saved too, marked `errored`,
//! so that its diagnostics can be shown later; it is never applied.
//!
//! An applicable plan also carries what `apply FILE` needs ([`Engine::save`](crate::Engine::save)): the
//! plan options, the variables' values, and the pins of everything the plan relies on (`pins`), which
//! [`Engine::review_saved`](crate::Engine::review_saved) checks against the live system and the records
//! before anything is applied.
//!
//! Secrets: a sensitive value is never in the file in the clear. Sensitive leaves are `null` with their
//! mask `true` in the plan representation, the text shows `(sensitive value)`, variable files are not kept
//! (only the values they gave), and sensitive variables' values are sealed under a key of the estate kept
//! in the record store (`seal`). A sensitive variable's `default` written in a configuration file stays in
//! that file's text, as it is in the configuration directory. This module does no I/O but the sealing
//! key's record: the caller writes the bytes (owner-only) and reads them back.

mod pins;
mod review;
mod seal;

pub use review::SavedReview;

use std::collections::BTreeMap;

use admission::SourceFile;
use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::model::Plan;
use crate::render::{self, RenderOptions};

/// The `format` of a saved plan file.
pub const SAVED_PLAN_FORMAT: &str = "liveplan-plan";

/// The `format_version` written; a reader accepts every file of the same major version.
pub const SAVED_PLAN_VERSION: &str = "1.1";

/// Why a saved plan file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SavedPlanError {
    /// The bytes are not a JSON document of the saved plan's shape.
    #[error("not a liveplan plan file: {reason}")]
    Malformed {
        /// What is wrong.
        reason: String,
    },
    /// A JSON document of another format (a Terraform plan file, a plan JSON document...).
    #[error("not a liveplan plan file (its format is {found:?}, not {SAVED_PLAN_FORMAT:?})")]
    OtherFormat {
        /// The `format` it has.
        found: String,
    },
    /// A saved plan of a format version this liveplan does not read.
    #[error(
        "a liveplan plan file of format version {found}, which this liveplan (format {SAVED_PLAN_VERSION}) \
         does not read"
    )]
    UnsupportedVersion {
        /// The `format_version` it has.
        found: String,
    },
}

/// One configuration file as the plan read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedFile {
    /// The file name relative to the configuration directory.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// A plan as saved in a file: what `show FILE` prints, with no live read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPlan {
    format: String,
    format_version: String,
    liveplan_version: String,
    estate: String,
    errored: bool,
    configuration: Vec<SavedFile>,
    text: String,
    text_verbose: String,
    plan: serde_json::Value,
    /// What `apply FILE` needs; absent from a plan with errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    apply: Option<ApplyInputs>,
}

/// What `apply FILE` makes the plan again from, and what it checks first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ApplyInputs {
    /// The estate named from outside the configuration (`--estate`, `LIVEPLAN_ESTATE`), if any.
    outside_estate: Option<String>,
    /// Whether it is a destroy plan (`-destroy`).
    destroy: bool,
    /// The instances `-replace` named.
    replace: Vec<String>,
    /// The addresses `-target` named.
    targets: Vec<String>,
    /// The instances the plan changes, in address order.
    changed: Vec<String>,
    /// The values of the variables that are not sensitive, as JSON.
    variables: BTreeMap<String, serde_json::Value>,
    /// The values of the sensitive variables, as one JSON object, sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sealed_variables: Option<seal::Sealed>,
    /// The instances the plan relies on: those it changes and what they read.
    relied_on: Vec<String>,
    /// What each item the plan relies on was.
    pins: Vec<pins::Pin>,
}

impl SavedPlan {
    /// `plan`, made from `files`, ready to be written; `clock` times a plan that holds no time of its own.
    pub fn of(plan: &Plan, files: &[SourceFile], clock: &dyn Clock) -> SavedPlan {
        SavedPlan {
            format: SAVED_PLAN_FORMAT.to_owned(),
            format_version: SAVED_PLAN_VERSION.to_owned(),
            liveplan_version: env!("CARGO_PKG_VERSION").to_owned(),
            estate: plan.estate.clone(),
            errored: !plan.applicable(),
            configuration: files
                .iter()
                .map(|f| SavedFile {
                    name: f.name.clone(),
                    text: f.text.clone(),
                })
                .collect(),
            text: render::text(plan, RenderOptions { verbose: false }),
            text_verbose: render::text(plan, RenderOptions { verbose: true }),
            plan: crate::tfjson::plan_document(plan, clock),
            apply: None,
        }
    }

    /// The file's bytes: one JSON document with a trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// Reads a saved plan file's bytes, refusing another format or an unknown major version.
    pub fn from_slice(bytes: &[u8]) -> Result<SavedPlan, SavedPlanError> {
        let doc: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| SavedPlanError::Malformed {
                reason: e.to_string(),
            })?;
        let format = doc.get("format").and_then(|f| f.as_str()).unwrap_or("");
        if format != SAVED_PLAN_FORMAT {
            return Err(SavedPlanError::OtherFormat {
                found: format.to_owned(),
            });
        }
        let version = doc
            .get("format_version")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let major = |v: &str| v.split('.').next().map(str::to_owned);
        if major(version) != major(SAVED_PLAN_VERSION) {
            return Err(SavedPlanError::UnsupportedVersion {
                found: version.to_owned(),
            });
        }
        serde_json::from_value(doc).map_err(|e| SavedPlanError::Malformed {
            reason: e.to_string(),
        })
    }

    /// The plan's human text, as `plan` printed it (with the no-op instances when `verbose`).
    pub fn text(&self, verbose: bool) -> &str {
        if verbose {
            &self.text_verbose
        } else {
            &self.text
        }
    }

    /// Terraform's JSON plan representation of the plan (see [`crate::tfjson`]).
    pub fn plan_document(&self) -> &serde_json::Value {
        &self.plan
    }

    /// The plan representation on one line with a trailing newline, as `show -json FILE` prints it.
    pub fn plan_json(&self) -> String {
        let mut s = self.plan.to_string();
        s.push('\n');
        s
    }

    /// Whether the plan has errors (it cannot be applied).
    pub fn errored(&self) -> bool {
        self.errored
    }

    /// The estate planned.
    pub fn estate(&self) -> &str {
        &self.estate
    }

    /// The estate named from outside the configuration when the plan was made (`--estate`).
    pub fn outside_estate(&self) -> Option<&str> {
        self.apply.as_ref()?.outside_estate.as_deref()
    }

    /// The values of the variables that are not sensitive, as variable inputs: what a caller evaluates
    /// the configuration's settings with (the provider's region, the record store) before the sealed
    /// values can be opened. [`Engine::review_saved`](crate::Engine::review_saved) plans with all of them.
    pub fn clear_variables(&self) -> admission::VariableInputs {
        let values: serde_json::Map<String, serde_json::Value> = self
            .apply
            .iter()
            .flat_map(|a| a.variables.iter())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        review::variable_inputs(values)
    }

    /// The configuration files the plan was made from.
    pub fn configuration(&self) -> &[SavedFile] {
        &self.configuration
    }
}
