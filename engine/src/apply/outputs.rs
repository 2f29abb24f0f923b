//! The outputs after an apply: evaluated with the final objects (the priors of instances not applied),
//! written to their records when changed, and dropped from the records when no longer declared.
//!
//! An output that cannot be evaluated is left out, as Terraform leaves it unset. This module never writes
//! an output record that already holds the value, and never writes a value it could not draw.

use std::collections::BTreeMap;
use std::sync::PoisonError;

use admission::Evaluator;
use admission::{BlockAddress, Code, Diagnostic, InstanceAddress, Value};
use projection::record::{OutputRecord, RecordBody};

use super::{Executor, to_diagnostic};
use crate::graph;
use crate::refs;

impl Executor {
    /// Judges the conditions left to apply ([`Executor::judge_conditions`]), then evaluates the outputs
    /// with the final values and writes the changed ones.
    pub(super) async fn write_outputs(
        &self,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> BTreeMap<String, Value> {
        // An output no longer declared keeps no record, as Terraform drops it from its state.
        for name in self.ctx.removed_outputs() {
            let key = self.journal.keys().output(name);
            if let Ok(address) = InstanceAddress::single("output", name)
                && let Err(e) = self.journal.write_of(&key, &address, None).await
            {
                diagnostics.push(to_diagnostic(e.diagnostic(&address)));
            }
        }
        let config = &self.ctx.config;
        let conditions = !config.checks().is_empty()
            || config
                .resources()
                .iter()
                .any(|r| !r.lifecycle.postconditions.is_empty());
        if config.outputs().is_empty() && !conditions {
            return BTreeMap::new();
        }
        let values = self.final_blocks();
        if conditions {
            self.judge_conditions(&values, diagnostics);
        }
        if config.outputs().is_empty() {
            return BTreeMap::new();
        }
        let mut out = BTreeMap::new();
        for (name, value, sensitive) in self.evaluate_outputs(&values, diagnostics) {
            let value = value.mark_sensitive_if(sensitive);
            let (plain, _) = value.clone().unmark_deep();
            if let Ok(json) = plain.to_json() {
                let key = self.journal.keys().output(&name);
                let payload = RecordBody::Output(OutputRecord {
                    value: json,
                    sensitive: value.contains_sensitive(),
                });
                if self.journal.seen(&key) != Some(&payload)
                    && let Ok(address) = InstanceAddress::single("output", &name)
                    && let Err(e) = self.journal.write(&key, &name, Some(&payload)).await
                {
                    diagnostics.push(to_diagnostic(e.diagnostic(&address)));
                }
            }
            out.insert(name, value);
        }
        out
    }

    /// Every declared block's value after the apply: each instance's object after its apply, else its
    /// prior, else unknown.
    fn final_blocks(&self) -> BTreeMap<BlockAddress, Value> {
        let results = self
            .results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        self.ctx
            .config
            .resources()
            .iter()
            // A block no address can name (which lint refuses) has no value, as it has no instances.
            .filter_map(|res| Some((res, refs::block_of(res)?)))
            .map(|(res, block)| {
                let value =
                    refs::block_value(res, self.members(&block), None, |a| match results.get(a) {
                        Some(Some(o)) => graph::object_value(o),
                        Some(None) => Value::Null,
                        None => self
                            .ctx
                            .priors
                            .get(a)
                            .map(graph::object_value)
                            .unwrap_or(Value::unknown()),
                    });
                (block, value)
            })
            .collect()
    }

    /// Each output that evaluates, with its value and whether it is declared sensitive; an output whose
    /// `uuid()` could not draw is told in `diagnostics` instead.
    fn evaluate_outputs(
        &self,
        values: &BTreeMap<BlockAddress, Value>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<(String, Value, bool)> {
        let draws = self.impure.draws();
        let ev = Evaluator::with_resources(&self.ctx.config, &self.ctx.variables, values)
            .with_impure(&draws);
        let mut out = Vec::new();
        for o in self.ctx.config.outputs().values() {
            let value = ev.eval(&o.value, &admission::Instance::Single);
            if let Some(e) = draws.take_failure() {
                diagnostics.push(
                    Diagnostic::new(
                        Code::ApplyFailed,
                        format!("output {}: uuid() could not draw random bytes: {e}", o.name),
                        "the operating system's random generator failed; apply again",
                    )
                    .with_address(format!("output.{}", o.name)),
                );
                continue;
            }
            if let Ok(v) = value {
                out.push((o.name.clone(), v, o.sensitive));
            }
        }
        out
    }
}
