//! Saving a plan for a later `apply FILE`, and checking a saved plan before it is applied.
//!
//! [`Engine::save`] records, beside the plan, what applying it needs: the options and variable values it
//! was made with and the pins of everything it relies on ([`super::pins`]). [`Engine::review_saved`]
//! makes the plan again from the file alone (its configuration, its variables, its options, restricted to
//! the instances it changes), compares the pins, and hands back the plan to apply only when nothing it
//! relies on moved: then the plan applied is the saved one, change for change. Otherwise it refuses with
//! one `stale-plan` diagnostic per item that moved, and nothing is changed anywhere.
//!
//! It never takes variables from anywhere but the file, and never writes but the estate's sealing key
//! (once, when a plan with sensitive variables is saved).

use std::collections::{BTreeMap, BTreeSet};

use admission::{
    Code, Diagnostic, InstanceAddress, ModuleContext, Severity, SourceFile, Sources, VarInput,
    VariableInputs,
};

use super::pins::{self, Moved};

use super::seal::{self, SealError};
use super::{ApplyInputs, SavedPlan};
use crate::handle::Engine;
use crate::model::{Plan, ReviewedPlan};
use crate::planner::{PlanMode, PlanOptions, Target};

/// The name the saved variable values are read under, as a JSON variable file.
const SAVED_VARIABLES: &str = "saved-plan.tfvars.json";

/// A saved plan checked against the live system and the records.
#[derive(Debug)]
pub enum SavedReview {
    /// Nothing the plan relies on moved: the plan, made again from the file, ready for
    /// [`Engine::apply`]. It makes exactly the saved plan's changes.
    Current(Box<ReviewedPlan>),
    /// The saved plan cannot be applied, and nothing was changed: `stale-plan` for each item it relies on
    /// that moved since it was made, `invalid-plan-file` for a plan with errors or a file without what
    /// apply needs.
    Refused(Vec<Diagnostic>),
}

impl Engine {
    /// `plan`, made from `sources` with `options`, as a saved plan that [`Engine::review_saved`] can check
    /// and apply later. A plan with errors is saved marked errored, with nothing to apply. The sensitive
    /// variables' values are sealed under the estate's key, which is written to the store the first time.
    pub async fn save(
        &self,
        plan: &Plan,
        sources: Sources<'_>,
        options: &PlanOptions,
    ) -> Result<SavedPlan, crate::Error> {
        let mut saved = SavedPlan::of(plan, sources.files, self.clock().as_ref());
        if !plan.applicable() {
            return Ok(saved);
        }
        let context = &plan.context;
        let mut variables = BTreeMap::new();
        let mut sensitive = serde_json::Map::new();
        for (name, value) in &context.variables {
            let Ok(json) = value.to_json() else { continue };
            let secret = value.contains_sensitive()
                || context
                    .config
                    .variables()
                    .get(name)
                    .is_some_and(|v| v.sensitive);
            if secret {
                sensitive.insert(name.clone(), json);
            } else {
                variables.insert(name.clone(), json);
            }
        }
        let sealed_variables = if sensitive.is_empty() {
            None
        } else {
            let record = seal::key_record(self.key_prefix(), &plan.estate);
            let key = seal::key_for_sealing(self.store().as_ref(), &record)
                .await
                .map_err(seal_error)?;
            let plain = serde_json::Value::Object(sensitive).to_string();
            Some(seal::seal(&key, &plan.estate, plain.as_bytes()).map_err(seal_error)?)
        };
        let relied = pins::relied_on(plan);
        let changed: BTreeSet<String> = plan
            .effective_changes()
            .map(|c| c.address.to_string())
            .collect();
        saved.apply = Some(ApplyInputs {
            outside_estate: sources.outside_estate.map(|o| o.name.to_owned()),
            destroy: options.mode == PlanMode::Destroy,
            replace: options.replace.iter().map(ToString::to_string).collect(),
            targets: options.targets.iter().map(ToString::to_string).collect(),
            changed: changed.into_iter().collect(),
            variables,
            sealed_variables,
            relied_on: relied.iter().map(ToString::to_string).collect(),
            pins: pins::pins(plan, &relied),
        });
        Ok(saved)
    }

    /// Checks `saved` before it is applied: makes the plan again from the file alone (with `module`, the
    /// directory and workspace its expressions run in; `None`: the defaults), restricted to the instances
    /// it changes, and compares every item it relies on. Reads the live system and the records; writes
    /// nothing.
    pub async fn review_saved(
        &self,
        saved: &SavedPlan,
        module: Option<&ModuleContext>,
    ) -> Result<SavedReview, crate::Error> {
        if saved.errored() {
            return Ok(refused(invalid(
                "the saved plan has errors, so it cannot be applied",
            )));
        }
        let Some(inputs) = &saved.apply else {
            return Ok(refused(invalid(
                "the saved plan holds nothing to apply it from (it was written by an older liveplan)",
            )));
        };
        let variables = match self.variables(saved, inputs).await? {
            Ok(variables) => variables,
            Err(d) => return Ok(refused(d)),
        };
        let Some(options) = options(inputs) else {
            return Ok(refused(invalid("the saved plan names an invalid address")));
        };
        let Some(relied) = inputs
            .relied_on
            .iter()
            .map(|a| a.parse::<InstanceAddress>().ok())
            .collect::<Option<BTreeSet<_>>>()
        else {
            return Ok(refused(invalid("the saved plan names an invalid address")));
        };
        let files: Vec<SourceFile> = saved
            .configuration()
            .iter()
            .map(|f| SourceFile::new(f.name.clone(), f.text.clone()))
            .collect();
        let mut sources =
            Sources::new(&files, &variables).with_estate(inputs.outside_estate.as_deref());
        if let Some(module) = module {
            sources = sources.with_module(module);
        }
        let fresh = self.plan_with(sources, &options).await?;
        if !fresh.applicable() {
            let mut out: Vec<Diagnostic> = fresh
                .diagnostics
                .iter()
                .filter(|d| d.severity() == Severity::Error)
                .cloned()
                .collect();
            out.push(stale(
                "the saved plan is stale: planned again from the file, it has errors".to_owned(),
            ));
            return Ok(SavedReview::Refused(out));
        }
        let moved = pins::moved(&inputs.pins, &pins::pins(&fresh, &relied));
        if !moved.is_empty() {
            return Ok(SavedReview::Refused(moved.iter().map(stale_item).collect()));
        }
        Ok(SavedReview::Current(Box::new(fresh.review()?)))
    }

    /// The variable values the saved plan was made with, the sealed ones opened, as one JSON variable
    /// file; `Err` the diagnostic of a file or key that cannot give them.
    async fn variables(
        &self,
        saved: &SavedPlan,
        inputs: &ApplyInputs,
    ) -> Result<Result<VariableInputs, Diagnostic>, crate::Error> {
        let mut all: serde_json::Map<String, serde_json::Value> = inputs
            .variables
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(sealed) = &inputs.sealed_variables {
            let record = seal::key_record(self.key_prefix(), saved.estate());
            let opened = match seal::key_for_opening(self.store().as_ref(), &record).await {
                Ok(key) => seal::open(&key, saved.estate(), sealed),
                Err(e) => Err(e),
            };
            let plain = match opened {
                Ok(plain) => plain,
                Err(SealError::Store(e)) => return Err(e.into()),
                Err(e @ SealError::NoKey { .. }) => {
                    return Ok(Err(stale(format!("the saved plan is stale: {e}"))));
                }
                Err(e) => return Ok(Err(invalid(&e.to_string()))),
            };
            let Ok(serde_json::Value::Object(values)) = serde_json::from_slice(&plain) else {
                return Ok(Err(invalid(
                    "the sealed variable values are not a JSON object",
                )));
            };
            all.extend(values);
        }
        Ok(Ok(variable_inputs(all)))
    }
}

/// `values` as variable inputs: one JSON variable file.
pub(super) fn variable_inputs(
    values: serde_json::Map<String, serde_json::Value>,
) -> VariableInputs {
    let file = SourceFile::new(
        SAVED_VARIABLES,
        serde_json::Value::Object(values).to_string(),
    );
    VariableInputs {
        cli: vec![VarInput::File(file)],
        ..VariableInputs::default()
    }
}

/// The options of the plan made again: the saved mode and replacements, restricted to the instances the
/// saved plan changes (or to its own targets when it changes nothing); `None` when an address is invalid.
fn options(inputs: &ApplyInputs) -> Option<PlanOptions> {
    let mut options = PlanOptions::default();
    if inputs.destroy {
        options = options.with_mode(PlanMode::Destroy);
    }
    for address in &inputs.replace {
        options = options.with_replace(address.parse().ok()?);
    }
    let targets = if inputs.changed.is_empty() {
        &inputs.targets
    } else {
        &inputs.changed
    };
    for target in targets {
        options = options.with_target(target.parse::<Target>().ok()?);
    }
    Some(options)
}

fn seal_error(e: SealError) -> crate::Error {
    match e {
        SealError::Store(e) => crate::Error::Store(e),
        other => crate::Error::Seal(other.to_string()),
    }
}

fn refused(d: Diagnostic) -> SavedReview {
    SavedReview::Refused(vec![d])
}

fn invalid(why: &str) -> Diagnostic {
    Diagnostic::new(
        Code::InvalidPlanFile,
        why.to_owned(),
        "nothing was applied; make a new plan with `liveplan plan -out FILE` and apply that file",
    )
}

fn stale(summary: String) -> Diagnostic {
    Diagnostic::new(
        Code::StalePlan,
        summary,
        "nothing was applied: the saved plan relied on it as it was when the plan was made. Plan again \
         (`liveplan plan -out FILE`), review the new plan and apply that file",
    )
}

fn stale_item(moved: &Moved) -> Diagnostic {
    let d = stale(moved.summary());
    match &moved.address {
        Some(address) => d.with_address(address.clone()),
        None => d,
    }
}
