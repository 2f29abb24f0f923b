//! Terraform's JSON representations of a plan and of the state, so that the tools Terraform users run on
//! every change (policy checkers, compliance suites, cost estimators, pull-request bots) read liveplan's
//! plans unchanged: [`plan_document`] is what `terraform show -json PLANFILE` prints, [`state_document`]
//! what `terraform show -json` prints with no plan.
//!
//! The plan representation is format [`FORMAT_VERSION`] (Terraform 1.9's), its `terraform_version` the
//! language level liveplan implements ([`admission::TERRAFORM_VERSION`]). Every instance is listed in
//! `resource_changes`, no-ops included. liveplan's own reports (estate, foreign objects, bind candidates,
//! diagnostics with their codes, cost...) sit under one top-level key, `liveplan`, with the names and shapes
//! of [`crate::render::json`], and each resource change carries its own under a `liveplan` key.
//!
//! Two documented differences from Terraform: a sensitive leaf is written as `null` wherever a value is
//! written (its mask says `true`, its siblings stay in the clear), where Terraform writes it in the clear;
//! and `resource_drift` is always empty, since a plan with no state file has no "last known state" to drift
//! from: an out-of-band change is an ordinary planned change. Like the rest of rendering, this module is
//! a pure function of the plan and never shows a secret.
//!
//! ```
//! # use engine::{Plan, SystemClock};
//! fn policy_input(plan: &Plan) -> String {
//!     engine::tfjson::plan_json(plan, &SystemClock)
//! }
//! ```

mod changes;
mod config;
mod outputs;
mod values;

use serde_json::{Map, Value as Json, json};

use crate::clock::{Clock, rfc3339};
use crate::model::{Action, Plan};
use crate::render::{self, RenderOptions};

/// The version of Terraform's plan representation written (the one Terraform 1.9 writes).
pub const FORMAT_VERSION: &str = "1.2";

/// The version of Terraform's state representation written in `prior_state` and [`state_document`].
pub const STATE_FORMAT_VERSION: &str = "1.0";

/// The keys of [`render::json`]'s document that are liveplan's own reports, kept under `liveplan`.
const REPORT_KEYS: &[&str] = &[
    "estate",
    "foreign",
    "unowned",
    "owned_undeclared",
    "bind_candidates",
    "rename_hints",
    "diagnostics",
    "cost",
    "summary",
    "withheld",
];

/// liveplan's reports of `plan`, as its own plan JSON names and shapes them.
fn reports(plan: &Plan) -> Json {
    let own: Json = serde_json::from_str(&render::json(plan, RenderOptions::default()))
        .unwrap_or_else(|_| json!({}));
    let mut out = Map::new();
    for key in REPORT_KEYS {
        if let Some(v) = own.get(*key) {
            out.insert((*key).to_owned(), v.clone());
        }
    }
    // Present whether or not anything is held back, so a consumer can rely on the key.
    out.entry("withheld").or_insert_with(|| json!([]));
    Json::Object(out)
}

/// `variables`: every root variable's value (defaults included); a sensitive one's is `null`.
fn variables(plan: &Plan) -> Json {
    let ctx = &plan.context;
    Json::Object(
        ctx.variables
            .iter()
            .map(|(name, v)| {
                let sensitive = ctx
                    .config
                    .variables()
                    .get(name)
                    .is_some_and(|d| d.sensitive);
                let value = v.clone().mark_sensitive_if(sensitive);
                (name.clone(), json!({ "value": values::redacted(&value) }))
            })
            .collect(),
    )
}

/// The time the plan was made, from the engine's clock: the plan's own `plantimestamp()`, else `clock`'s
/// now (a plan that could not be made at all has none).
fn timestamp(plan: &Plan, clock: &dyn Clock) -> String {
    plan.context
        .config
        .module()
        .plan_timestamp
        .clone()
        .unwrap_or_else(|| rfc3339(clock.now()))
}

/// A values representation of `resources` (and `outputs`, for the planned values).
fn values_of(resources: Vec<Json>, outputs: Option<Json>) -> Json {
    let mut o = json!({ "root_module": module_tree(resources) });
    if let (Some(outputs), Some(map)) = (outputs, o.as_object_mut()) {
        map.insert("outputs".into(), outputs);
    }
    o
}

/// The root module of a values representation: its own resources, and each module instance's under
/// `child_modules` (`address`, `resources`, its own `child_modules`), nested as the calls are.
fn module_tree(resources: Vec<Json>) -> Json {
    let mut by_module: std::collections::BTreeMap<String, Vec<Json>> = Default::default();
    for r in resources {
        let module = r["module_address"].as_str().unwrap_or_default().to_owned();
        by_module.entry(module).or_default().push(r);
    }
    let modules: Vec<String> = by_module
        .keys()
        .filter(|m| !m.is_empty())
        .cloned()
        .collect();
    fn build(
        address: &str,
        by_module: &mut std::collections::BTreeMap<String, Vec<Json>>,
        modules: &[String],
    ) -> Json {
        let resources = by_module.remove(address).unwrap_or_default();
        let children: Vec<Json> = modules
            .iter()
            .filter(|m| is_child(address, m, modules))
            .map(|m| build(m, by_module, modules))
            .collect();
        let mut o = serde_json::Map::new();
        if !address.is_empty() {
            o.insert("address".into(), json!(address));
        }
        o.insert("resources".into(), json!(resources));
        if !children.is_empty() {
            o.insert("child_modules".into(), json!(children));
        }
        Json::Object(o)
    }
    build("", &mut by_module, &modules)
}

/// Whether the module instance `m` is called from `parent` directly (no module instance between).
fn is_child(parent: &str, m: &str, modules: &[String]) -> bool {
    let below = |outer: &str, inner: &str| {
        outer.is_empty() && !inner.is_empty() || inner.starts_with(&format!("{outer}."))
    };
    below(parent, m)
        && !modules
            .iter()
            .any(|between| between != m && below(parent, between) && below(between, m))
}

/// The state representation of what the plan read: every bound instance as it was read.
pub fn state_document(plan: &Plan) -> Json {
    json!({
        "format_version": STATE_FORMAT_VERSION,
        "terraform_version": admission::TERRAFORM_VERSION,
        "values": values_of(changes::prior_resources(plan), None),
    })
}

/// Terraform's JSON plan representation of `plan` (see the module doc); `clock` gives the timestamp of a
/// plan that holds none of its own.
pub fn plan_document(plan: &Plan, clock: &dyn Clock) -> Json {
    let output_changes = outputs::output_changes(plan);
    let outputs_change = output_changes
        .as_object()
        .is_some_and(|m| m.values().any(|c| c["actions"] != json!(["no-op"])));
    let errored = !plan.applicable();
    let changes_something = plan.changes.iter().any(|c| c.action != Action::NoOp);
    json!({
        "format_version": FORMAT_VERSION,
        "terraform_version": admission::TERRAFORM_VERSION,
        "variables": variables(plan),
        "planned_values": values_of(
            changes::planned_resources(plan),
            Some(outputs::planned_values_outputs(plan)),
        ),
        "resource_drift": [],
        "resource_changes": changes::resource_changes(plan),
        "output_changes": output_changes,
        "prior_state": state_document(plan),
        "configuration": config::configuration(&plan.context.config),
        "relevant_attributes": changes::relevant_attributes(plan),
        "checks": outputs::checks(plan),
        "timestamp": timestamp(plan, clock),
        "applyable": !errored && (changes_something || outputs_change),
        "complete": !plan.context.targeted && plan.withheld.is_empty(),
        "errored": errored,
        "liveplan": reports(plan),
    })
}

/// [`plan_document`] on one line with a trailing newline, as `terraform show -json` prints it.
pub fn plan_json(plan: &Plan, clock: &dyn Clock) -> String {
    let mut s = plan_document(plan, clock).to_string();
    s.push('\n');
    s
}
