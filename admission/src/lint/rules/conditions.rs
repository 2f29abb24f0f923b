//! The condition rules: every `precondition`, `postcondition` and check `assert` reads only what is
//! declared and evaluates without error; `replace_triggered_by` and an output's `depends_on` name
//! declared resources; an output whose value is sensitive says so (`sensitive = true`), as Terraform
//! requires.
//!
//! Whether a condition holds is the plan's question (the lint knows no resource values); this rule only
//! reports what is wrong whatever the values are.

use crate::config::{Condition, ConditionKind, Loc, Repetition, Resource};
use crate::diag::{Code, Diagnostic};
use crate::eval::Instance;
use crate::lint::Lint;
use crate::value::Value;

impl Lint<'_, '_, '_> {
    /// The conditions and references of every resource's `lifecycle`, output and check block.
    pub(crate) fn conditions(&mut self) {
        let config = self.input.config;
        for res in config.resources() {
            let inst = match res.repetition {
                Repetition::Single => Instance::Single,
                Repetition::Count(_) => Instance::AnyIndex,
                Repetition::ForEach(_) => Instance::AnyKey,
            };
            let address = res.address().to_string();
            for c in res
                .lifecycle
                .preconditions
                .iter()
                .chain(&res.lifecycle.postconditions)
            {
                self.condition(c, Some(res), &inst, Some(&address));
            }
            for (path, loc) in &res.lifecycle.replace_triggered_by {
                self.declared_resource(path, loc, "replace_triggered_by", Some(&address));
            }
        }
        for output in config.outputs().values() {
            for c in &output.preconditions {
                self.condition(c, None, &Instance::Single, None);
            }
            for (path, loc) in &output.depends_on {
                self.declared_resource(path, loc, "depends_on", None);
            }
        }
        for check in config.checks().values() {
            for c in &check.asserts {
                self.condition(c, None, &Instance::Single, None);
            }
        }
    }

    /// One condition: its references declared (`self` in a postcondition), both expressions evaluating
    /// without error with every resource unknown.
    fn condition(
        &mut self,
        c: &Condition,
        res: Option<&Resource>,
        inst: &Instance,
        address: Option<&str>,
    ) {
        let postcondition = c.kind == ConditionKind::Postcondition;
        for expr in [&c.condition, &c.error_message] {
            for (path, loc) in expr.references() {
                if postcondition && path[0] == "self" {
                    continue;
                }
                if let Some(summary) = self.reference_problem(&path, res) {
                    let mut d = Diagnostic::new(
                        Code::UnknownReference,
                        summary,
                        "declare it or fix the reference",
                    )
                    .at(loc.to_pos());
                    if let Some(a) = address {
                        d = d.with_address(a);
                    }
                    self.push(d);
                }
            }
        }
        let bound = if postcondition {
            vec![("self".to_string(), Value::unknown())]
        } else {
            Vec::new()
        };
        if let Err(e) = self.dynamic.condition_with(c, inst, &bound) {
            let mut d = e.into_diagnostic(Code::InvalidExpression);
            if let Some(a) = address {
                d = d.with_address(a);
            }
            self.push(d);
        }
    }

    /// A `replace_triggered_by` or `depends_on` entry names a declared resource block.
    fn declared_resource(&mut self, path: &[String], loc: &Loc, what: &str, address: Option<&str>) {
        if self.input.config.resource(&path[0], &path[1]).is_some() {
            return;
        }
        let mut d = Diagnostic::new(
            Code::UnknownReference,
            format!(
                "`{what}` names `{}.{}`, which is not declared",
                path[0], path[1]
            ),
            "declare the resource or fix the reference",
        )
        .at(loc.to_pos());
        if let Some(a) = address {
            d = d.with_address(a);
        }
        self.push(d);
    }

    /// An output whose value carries a sensitive value must be declared `sensitive = true`.
    pub(crate) fn sensitive_output(
        &mut self,
        name: &str,
        value: &Value,
        sensitive: bool,
        loc: &Loc,
    ) {
        if sensitive || !value.contains_sensitive() {
            return;
        }
        self.push(
            Diagnostic::new(
                Code::SensitiveOutput,
                format!("output `{name}` refers to sensitive values"),
                "an output that holds a sensitive value must say so: add `sensitive = true` to the \
                 output block (its value is then hidden in plan and apply output)",
            )
            .at(loc.to_pos()),
        );
    }
}
