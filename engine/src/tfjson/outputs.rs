//! `output_changes`, the outputs of `planned_values`, and `checks`: what the plan's values make of the
//! outputs and the `check` blocks, evaluated on the planned values (an instance's `after`, unknowns
//! included) and compared with the outputs' recorded values.
//!
//! An output that reads a value known only after apply is unknown here, as in Terraform's plan; one that
//! cannot be evaluated is left out. Nothing here writes a sensitive output's value.

use std::collections::BTreeMap;

use admission::{BlockAddress, ConditionOutcome, Evaluator, Instance, Value};
use serde_json::{Map, Value as Json, json};

use super::values::{redacted, sensitive_mask, unknown_mask};
use crate::model::Plan;
use crate::refs;

/// Every declared block's value as the plan leaves it: each instance's planned value, else unknown.
fn planned_blocks(plan: &Plan) -> BTreeMap<BlockAddress, Value> {
    let after: BTreeMap<_, _> = plan
        .changes
        .iter()
        .filter(|c| c.deposed.is_none())
        .filter_map(|c| Some((&c.address, c.after.as_ref()?)))
        .collect();
    let ctx = &plan.context;
    ctx.config
        .resources()
        .iter()
        .filter_map(|res| Some((res, refs::block_of(res)?)))
        .map(|(res, block)| {
            let members = ctx.blocks.get(&block).map(Vec::as_slice).unwrap_or(&[]);
            let value = refs::block_value(res, members, None, |a| {
                after
                    .get(a)
                    .map_or_else(Value::unknown, |m| Value::Map((*m).clone()))
            });
            (block, value)
        })
        .collect()
}

/// One output's planned value (marked sensitive when the output is), or `None` when it does not evaluate.
struct PlannedOutput {
    value: Option<Value>,
    sensitive: bool,
}

fn planned_outputs(plan: &Plan) -> BTreeMap<String, PlannedOutput> {
    let ctx = &plan.context;
    let blocks = planned_blocks(plan);
    let ev = Evaluator::with_resources(&ctx.config, &ctx.variables, &blocks);
    ctx.config
        .outputs()
        .values()
        .map(|o| {
            let value = if ctx.destroy {
                None
            } else {
                ev.eval(&o.value, &Instance::Single)
                    .ok()
                    .map(|v| v.mark_sensitive_if(o.sensitive))
            };
            let sensitive = o.sensitive || value.as_ref().is_some_and(Value::contains_sensitive);
            (o.name.clone(), PlannedOutput { value, sensitive })
        })
        .collect()
}

/// The outputs of `planned_values`: `sensitive`, and `value` when known (`null` when sensitive).
pub(crate) fn planned_values_outputs(plan: &Plan) -> Json {
    let mut out = Map::new();
    for (name, o) in planned_outputs(plan) {
        let Some(value) = o.value else { continue };
        let mut entry = json!({ "sensitive": o.sensitive });
        if value.is_known()
            && let Some(map) = entry.as_object_mut()
        {
            map.insert("value".into(), redacted(&value));
        }
        out.insert(name, entry);
    }
    Json::Object(out)
}

/// `output_changes`: each declared output against its recorded value, and each recorded output the
/// configuration no longer declares (a delete).
pub(crate) fn output_changes(plan: &Plan) -> Json {
    let recorded = &plan.context.records.outputs;
    let mut out = Map::new();
    let planned = planned_outputs(plan);
    let names: std::collections::BTreeSet<&String> =
        planned.keys().chain(recorded.keys()).collect();
    for name in names {
        let before = recorded
            .get(name)
            .map(|r| Value::from_json(r.body.value.clone()).mark_sensitive_if(r.body.sensitive));
        let after = planned.get(name).and_then(|o| o.value.clone());
        let actions = match (&before, &after) {
            (None, None) => continue,
            (None, Some(_)) => "create",
            (Some(_), None) => "delete",
            (Some(b), Some(a)) => {
                let same = a.is_known()
                    && a.clone().unmark_deep().0.to_json().ok()
                        == b.clone().unmark_deep().0.to_json().ok();
                if same { "no-op" } else { "update" }
            }
        };
        let side = |v: &Option<Value>| match v {
            Some(v) => (redacted(v), sensitive_mask(v)),
            None => (Json::Null, Json::Bool(false)),
        };
        let (before_json, before_sensitive) = side(&before);
        let (after_json, after_sensitive) = side(&after);
        let after_unknown = after
            .as_ref()
            .map_or(Json::Bool(false), |v| unknown_mask(v, Json::Bool(false)));
        out.insert(
            name.clone(),
            json!({
                "actions": [actions],
                "before": before_json,
                "after": after_json,
                "after_unknown": after_unknown,
                "before_sensitive": before_sensitive,
                "after_sensitive": after_sensitive,
            }),
        );
    }
    Json::Object(out)
}

/// `checks`: each `check` block's assertions judged on the planned values: `pass`, `fail` (with the
/// failing assertions' messages), `unknown` when one reads a value known only after apply, or `error`.
pub(crate) fn checks(plan: &Plan) -> Json {
    let ctx = &plan.context;
    if ctx.config.checks().is_empty() {
        return json!([]);
    }
    let blocks = planned_blocks(plan);
    let ev = Evaluator::with_resources(&ctx.config, &ctx.variables, &blocks);
    let mut out = Vec::new();
    for check in ctx.config.checks().values() {
        let mut status = "pass";
        let mut problems = Vec::new();
        for c in &check.asserts {
            match ev.condition(c, &Instance::Single) {
                Ok(ConditionOutcome::Holds) => {}
                Ok(ConditionOutcome::Unknown) if status == "pass" => status = "unknown",
                Ok(ConditionOutcome::Unknown) => {}
                Ok(ConditionOutcome::Fails(message)) => {
                    if status != "error" {
                        status = "fail";
                    }
                    problems.push(json!({ "message": message }));
                }
                Err(_) => status = "error",
            }
        }
        let display = format!("check.{}", check.name);
        let mut instance = json!({ "address": { "to_display": display }, "status": status });
        if !problems.is_empty()
            && let Some(map) = instance.as_object_mut()
        {
            map.insert("problems".into(), Json::Array(problems));
        }
        out.push(json!({
            "address": { "kind": "check", "name": check.name, "to_display": display },
            "status": status,
            "instances": [instance],
        }));
    }
    Json::Array(out)
}
