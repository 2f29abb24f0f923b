//! `resource_changes`, `planned_values` and `prior_state`: every instance of a plan as Terraform's plan and
//! state representations describe it, with liveplan's own facts of each change under its `liveplan` key.
//!
//! Every instance is listed, no-ops included, as Terraform lists them. This module reads the plan through its
//! public types and the configuration the plan was made from; it never decides an action itself.

use std::collections::BTreeMap;

use admission::{Config, InstanceAddress, InstanceKey, Repetition, Value};
use serde_json::{Value as Json, json};

use super::values::{object, redacted, sensitive_mask, unknown_mask};
use crate::model::{Action, Plan, ReplaceOrder, ResourceChange};

/// The `replace_triggered_by` entry a replace's `forces` carries when a trigger caused it.
const TRIGGERED: &str = "replace_triggered_by";

/// The provider a resource type belongs to, by its full source address.
pub(crate) fn provider_name(config: &Config, type_name: &str) -> String {
    if type_name == "terraform_data" {
        return "terraform.io/builtin/terraform".to_owned();
    }
    let local = type_name.split('_').next().unwrap_or(type_name);
    match config.terraform.required_providers.get(local) {
        Some(required) => format!("registry.terraform.io/{}", required.source.as_str()),
        None => format!("registry.terraform.io/hashicorp/{local}"),
    }
}

/// The instance key as Terraform's `index` (a number for `count`, a string for `for_each`).
fn index(address: &InstanceAddress) -> Option<Json> {
    match address.key() {
        InstanceKey::None => None,
        InstanceKey::Int(i) => Some(json!(i)),
        InstanceKey::Str(s) => Some(json!(s)),
    }
}

/// The fields every resource entry starts with: address, mode, type, name, index, provider_name.
fn identity(config: &Config, address: &InstanceAddress) -> serde_json::Map<String, Json> {
    let mut o = serde_json::Map::new();
    o.insert("address".into(), json!(address.to_string()));
    let module = address.block().module();
    if !module.is_root() {
        o.insert("module_address".into(), json!(module.to_string()));
    }
    o.insert("mode".into(), json!("managed"));
    o.insert("type".into(), json!(address.type_name()));
    o.insert("name".into(), json!(address.block().name()));
    if let Some(i) = index(address) {
        o.insert("index".into(), i);
    }
    o.insert(
        "provider_name".into(),
        json!(provider_name(config, address.type_name())),
    );
    o
}

/// `change.actions`, as Terraform spells them.
fn actions(c: &ResourceChange) -> Vec<&'static str> {
    match (c.action, c.replace_order) {
        (Action::Create, _) => vec!["create"],
        (Action::Update, _) => vec!["update"],
        (Action::Delete, _) => vec!["delete"],
        (Action::NoOp, _) => vec!["no-op"],
        (Action::Replace, Some(ReplaceOrder::CreateBeforeDestroy)) => vec!["create", "delete"],
        (Action::Replace, _) => vec!["delete", "create"],
    }
}

/// Why an instance is replaced or deleted, in Terraform's vocabulary (`action_reason`).
fn action_reason(config: &Config, destroy: bool, c: &ResourceChange) -> Option<&'static str> {
    match c.action {
        Action::Replace if c.forces.iter().any(|f| f == TRIGGERED) => Some("replace_by_triggers"),
        Action::Replace if c.forces.is_empty() => Some("replace_by_request"),
        Action::Replace => Some("replace_because_cannot_update"),
        // A deposed object, or everything in a destroy plan, is deleted with no reason of its own.
        Action::Delete if c.deposed.is_some() || destroy => None,
        Action::Delete => {
            let block = c.address.block();
            let Some(res) = config.resource_at(block) else {
                return Some("delete_because_no_resource_config");
            };
            match (&res.repetition, c.address.key()) {
                (Repetition::Count(_), InstanceKey::Int(_)) => Some("delete_because_count_index"),
                (Repetition::ForEach(_), InstanceKey::Str(_)) => Some("delete_because_each_key"),
                _ => Some("delete_because_wrong_repetition"),
            }
        }
        Action::Create | Action::Update | Action::NoOp => None,
    }
}

/// One value side of a change and its sensitivity mask (`false` for a side that does not exist).
fn side(value: Option<&BTreeMap<String, Value>>) -> (Json, Json) {
    match value {
        Some(v) => {
            let v = object(v);
            (redacted(&v), sensitive_mask(&v))
        }
        None => (Json::Null, Json::Bool(false)),
    }
}

/// One entry of `resource_changes`.
fn resource_change(config: &Config, destroy: bool, c: &ResourceChange) -> Json {
    let mut o = identity(config, &c.address);
    if let Some(d) = &c.deposed {
        o.insert("deposed".into(), json!(d));
    }
    let (before, before_sensitive) = side(c.before.as_ref());
    let (after, after_sensitive) = side(c.after.as_ref());
    let known = Json::Object(serde_json::Map::new());
    let after_unknown = match &c.after {
        Some(a) => unknown_mask(&object(a), known),
        None => known,
    };
    let mut change = json!({
        "actions": actions(c),
        "before": before,
        "after": after,
        "after_unknown": after_unknown,
        "before_sensitive": before_sensitive,
        "after_sensitive": after_sensitive,
    });
    let paths: Vec<Json> = c
        .forces
        .iter()
        .filter(|f| *f != TRIGGERED)
        .map(|f| json!([f]))
        .collect();
    if c.action == Action::Replace
        && !paths.is_empty()
        && let Some(map) = change.as_object_mut()
    {
        map.insert("replace_paths".into(), Json::Array(paths));
    }
    o.insert("change".into(), change);
    if let Some(reason) = action_reason(config, destroy, c) {
        o.insert("action_reason".into(), json!(reason));
    }
    let mut extras = json!({
        "id": c.id,
        "admission": c.admission.as_str(),
        "reason": c.reason,
    });
    if let Some(order) = c.replace_order
        && let Some(map) = extras.as_object_mut()
    {
        map.insert("replace_order".into(), json!(order.as_str()));
    }
    o.insert("liveplan".into(), extras);
    Json::Object(o)
}

/// `resource_changes`: every instance, no-ops included, in the plan's order.
pub(crate) fn resource_changes(plan: &Plan) -> Json {
    let config = &plan.context.config;
    let destroy = plan.context.destroy;
    Json::Array(
        plan.changes
            .iter()
            .map(|c| resource_change(config, destroy, c))
            .collect(),
    )
}

/// One resource of a values representation (`planned_values`, `prior_state`).
fn resource_values(
    config: &Config,
    address: &InstanceAddress,
    attributes: &BTreeMap<String, Value>,
) -> Json {
    let mut o = identity(config, address);
    let v = object(attributes);
    o.insert("schema_version".into(), json!(0));
    o.insert("values".into(), redacted(&v));
    o.insert("sensitive_values".into(), sensitive_mask(&v));
    Json::Object(o)
}

/// The resources of `planned_values`: every instance the plan leaves in place or makes, as it will be.
pub(crate) fn planned_resources(plan: &Plan) -> Vec<Json> {
    let config = &plan.context.config;
    plan.changes
        .iter()
        .filter(|c| c.deposed.is_none())
        .filter_map(|c| Some(resource_values(config, &c.address, c.after.as_ref()?)))
        .collect()
}

/// The resources of `prior_state`: every instance bound to a live object, as the plan read it (its
/// `before`, deposed objects left out).
pub(crate) fn prior_resources(plan: &Plan) -> Vec<Json> {
    let config = &plan.context.config;
    plan.changes
        .iter()
        .filter(|c| c.deposed.is_none())
        .filter_map(|c| Some(resource_values(config, &c.address, c.before.as_ref()?)))
        .collect()
}

/// `relevant_attributes`: the attributes of other resources that the planned values of changed instances
/// read, as Terraform lists the sources of changes.
pub(crate) fn relevant_attributes(plan: &Plan) -> Json {
    let config = &plan.context.config;
    let mut out: Vec<(String, String)> = Vec::new();
    for c in plan.effective_changes() {
        let block = c.address.block();
        let Some(res) = config.resource_at(block) else {
            continue;
        };
        for attr in res.attrs.values() {
            for (path, _) in attr.expr.references() {
                if let [type_name, name, attribute, ..] = path.as_slice()
                    && config.resource(type_name, name).is_some()
                {
                    out.push((format!("{type_name}.{name}"), attribute.clone()));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    Json::Array(
        out.into_iter()
            .map(|(resource, attribute)| json!({"resource": resource, "attribute": [attribute]}))
            .collect(),
    )
}
