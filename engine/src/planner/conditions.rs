//! Custom conditions at plan: a resource's `precondition`s and `postcondition`s for each instance,
//! `replace_triggered_by`, and, once every instance is planned, the outputs' `precondition`s and the
//! `check` blocks' assertions.
//!
//! A false precondition or postcondition is a `condition-failed` error and nothing is planned for the
//! instance; a false output precondition is the same error; a false assertion is a `check-failed`
//! warning that stops nothing. A condition that reads a value known only after apply is not judged at
//! plan (Terraform checks it during apply). Like the rest of the planner, this module reads only values
//! already planned; it never reads the live system.

use std::collections::{BTreeMap, BTreeSet};

use admission::{
    BlockAddress, Code, Condition, ConditionOutcome, Diagnostic, Evaluator, ExpandedInstance,
    Instance, InstanceAddress, Resource, Value,
};

use super::evaluate::Planner;
use crate::model::{Action, ResourceChange};
use crate::refs;

/// The resource blocks the outputs' preconditions and the check blocks read.
pub(crate) fn top_condition_blocks(config: &admission::Config) -> BTreeSet<BlockAddress> {
    let mut out = BTreeSet::new();
    let conditions = config
        .outputs()
        .values()
        .flat_map(|o| &o.preconditions)
        .chain(config.checks().values().flat_map(|c| &c.asserts));
    for c in conditions {
        refs::expr_blocks(config, &c.condition, &mut out);
        refs::expr_blocks(config, &c.error_message, &mut out);
    }
    out
}

/// A condition's failure (or evaluation problem) as the diagnostic `code` gives; `None` when it holds or
/// cannot be judged yet. Apply judges the conditions again with the same words.
pub(crate) fn failure(
    code: Code,
    c: &Condition,
    outcome: Result<ConditionOutcome, admission::EvalError>,
    what: &str,
) -> Option<Diagnostic> {
    let d = match outcome {
        Ok(ConditionOutcome::Holds | ConditionOutcome::Unknown) => return None,
        Ok(ConditionOutcome::Fails(message)) => Diagnostic::new(
            code,
            message,
            format!("the {} of {what} at {} is false", c.kind.as_str(), c.loc),
        ),
        Err(e) => {
            let mut d = e.into_diagnostic(code);
            d.code = code;
            d.summary = format!(
                "the {} of {what} cannot be checked: {}",
                c.kind.as_str(),
                d.summary
            );
            d
        }
    };
    Some(d.at(c.loc.to_pos()))
}

impl Planner<'_> {
    /// The values of the blocks in `blocks`, from what is planned so far (unknown where nothing is).
    fn block_values(&self, blocks: &BTreeSet<BlockAddress>) -> BTreeMap<BlockAddress, Value> {
        let mut out = BTreeMap::new();
        for block in blocks {
            let (Some(res), Some(members)) = (self.resource(block), self.blocks.get(block)) else {
                continue;
            };
            let value = refs::block_value(res, members, None, |a| {
                self.values.get(a).cloned().unwrap_or_else(Value::unknown)
            });
            out.insert(block.clone(), value);
        }
        out
    }

    /// The preconditions and postconditions of one instance whose change is `change` (its planned object
    /// is `self` in a postcondition): the diagnostics of those that are false.
    pub(super) fn lifecycle_conditions(
        &self,
        res: &Resource,
        d: &ExpandedInstance,
        change: &ResourceChange,
    ) -> Vec<Diagnostic> {
        let lc = &res.lifecycle;
        if lc.preconditions.is_empty() && lc.postconditions.is_empty() {
            return Vec::new();
        }
        let values = self.block_values(&refs::condition_blocks(self.config, res));
        let ev = Evaluator::with_resources(self.config, self.variables, &values);
        let what = format!("`{}`", d.address);
        let mut out: Vec<Diagnostic> = lc
            .preconditions
            .iter()
            .filter_map(|c| {
                let outcome = ev.condition(c, &d.repetition);
                failure(Code::ConditionFailed, c, outcome, &what)
            })
            .collect();
        if change.action != Action::Delete {
            let planned = change
                .after
                .clone()
                .map(Value::Map)
                .unwrap_or_else(Value::unknown);
            let bound = [("self".to_string(), planned)];
            out.extend(lc.postconditions.iter().filter_map(|c| {
                let outcome = ev.condition_with(c, &d.repetition, &bound);
                failure(Code::ConditionFailed, c, outcome, &what)
            }));
        }
        out.into_iter()
            .map(|x| x.with_address(d.address.to_string()))
            .collect()
    }

    /// The `replace_triggered_by` entry of `res` that fires for the instance `d`, if one does: the
    /// resource it names has a planned change (create, update or replace) or, for an attribute
    /// reference, a change of that attribute. The member of a repeated block with `d`'s own key is the
    /// one looked at when it exists, else every member.
    pub(super) fn triggered_by(&self, res: &Resource, d: &ExpandedInstance) -> Option<String> {
        for (path, _) in &res.lifecycle.replace_triggered_by {
            let Some(block) = self
                .config
                .resource(&path[0], &path[1])
                .and_then(refs::block_of)
            else {
                continue;
            };
            let members = self.blocks.get(&block)?;
            let own: InstanceAddress = block.instance(d.address.key().clone());
            let candidates: Vec<&InstanceAddress> = if members.contains(&own) {
                vec![&own]
            } else {
                members.iter().collect()
            };
            let attr = path.get(2);
            let fired = self.changes.iter().any(|c| {
                candidates.contains(&&c.address)
                    && match c.action {
                        Action::Create | Action::Replace => true,
                        Action::Update => attr.is_none_or(|a| c.changed.contains(a)),
                        _ => false,
                    }
            });
            if fired {
                return Some(path.join("."));
            }
        }
        None
    }

    /// The outputs' preconditions (errors) and the check blocks' assertions (warnings), on the values
    /// planned.
    pub(super) fn top_conditions(&mut self) {
        let config = self.config;
        if config.checks().is_empty()
            && config
                .outputs()
                .values()
                .all(|o| o.preconditions.is_empty())
        {
            return;
        }
        let values = self.block_values(&top_condition_blocks(config));
        let ev = Evaluator::with_resources(config, self.variables, &values);
        let mut found = Vec::new();
        for output in config.outputs().values() {
            let what = format!("output `{}`", output.name);
            for c in &output.preconditions {
                let outcome = ev.condition(c, &Instance::Single);
                found.extend(failure(Code::ConditionFailed, c, outcome, &what));
            }
        }
        for check in config.checks().values() {
            let what = format!("check `{}`", check.name);
            for c in &check.asserts {
                let outcome = ev.condition(c, &Instance::Single);
                found.extend(failure(Code::CheckFailed, c, outcome, &what));
            }
        }
        self.diagnostics.extend(found);
    }
}
