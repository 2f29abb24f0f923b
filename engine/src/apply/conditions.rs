//! Custom conditions after an apply: each applied instance's `postcondition`s, judged on the object the
//! live system returned (`self`) and the final values of the blocks they read, and the `check` blocks'
//! assertions on the final values.
//!
//! The plan judges every condition it can from planned values; what it could not (a postcondition on an
//! id or another attribute known only after apply) is judged here. A false postcondition is a
//! `condition-failed` error naming the instance (the object exists, as the live system made it; the next
//! plan judges it again), a false assertion a `check-failed` warning. Conditions that still read an unknown
//! value are not judged. This module reads only what the apply produced; it never calls the provider.

use std::collections::BTreeMap;
use std::sync::PoisonError;

use admission::{BlockAddress, Code, Diagnostic, Evaluator, Instance, Value};

use super::Executor;
use crate::graph;
use crate::planner::conditions::failure;

impl Executor {
    /// The postconditions of every instance created or updated by this apply, and the check blocks, judged
    /// on `values` (every block's value after the apply); their failures are added to `diagnostics`.
    pub(super) fn judge_conditions(
        &self,
        values: &BTreeMap<BlockAddress, Value>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let ev = Evaluator::with_resources(&self.ctx.config, &self.ctx.variables, values);
        let applied: Vec<_> = self
            .results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(|(a, o)| Some((a.clone(), o.clone()?)))
            .collect();
        for (address, object) in applied {
            let Some(res) = self.ctx.config.resource_at(address.block()) else {
                continue;
            };
            if res.lifecycle.postconditions.is_empty() {
                continue;
            }
            let repetition = self
                .ctx
                .declared
                .get(&address)
                .cloned()
                .unwrap_or(Instance::Single);
            let bound = [("self".to_owned(), graph::object_value(&object))];
            let what = format!("`{address}`");
            for c in &res.lifecycle.postconditions {
                let outcome = ev.condition_with(c, &repetition, &bound);
                if let Some(d) = failure(Code::ConditionFailed, c, outcome, &what) {
                    diagnostics.push(d.with_address(address.to_string()));
                }
            }
        }
        for check in self.ctx.config.checks().values() {
            let what = format!("check `{}`", check.name);
            for c in &check.asserts {
                let outcome = ev.condition(c, &Instance::Single);
                diagnostics.extend(failure(Code::CheckFailed, c, outcome, &what));
            }
        }
    }
}
