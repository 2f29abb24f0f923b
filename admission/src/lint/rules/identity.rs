//! The identity rules: a block's identity arguments obey the `count.index` injectivity rule, each
//! instance's identity is set, not null, static (or read from a parent where the path allows) and pure,
//! and no two client-named instances of one type claim the same identity.
//!
//! The rules judge the values discovery will look for; they never look for them.

use std::collections::{BTreeMap, BTreeSet};

use super::count_index;
use crate::address::InstanceAddress;
use crate::config::{Expr, Repetition, Resource};
use crate::diag::{Code, Diagnostic};
use crate::eval::{EvalError, Instance};
use crate::lint::Lint;
use crate::lint::expand::{BlockFacts, ExpandedInstance, IdentityValue, StaticResult};
use crate::schema::ResourceTypeSchema;
use crate::value::Value;
use ::provider::AdmissionPath;

impl Lint<'_, '_, '_> {
    /// The block-level identity rules: the `count.index` injectivity rule.
    pub(crate) fn identity_rules(
        &mut self,
        res: &Resource,
        schema: &ResourceTypeSchema,
        path: AdmissionPath,
    ) {
        if !matches!(res.repetition, Repetition::Count(_))
            || !matches!(
                path,
                AdmissionPath::ClientNamed | AdmissionPath::ParentDerived
            )
        {
            return;
        }
        let args: Vec<(&str, &Expr)> = schema
            .identity_arguments()
            .iter()
            .filter_map(|a| res.attrs.get(a).map(|attr| (a.as_str(), &attr.expr)))
            .collect();
        let composite =
            path == AdmissionPath::ParentDerived && schema.identity_arguments().len() > 1;
        for (arg, expr) in count_index::violations(&args, composite) {
            let detail = if composite {
                "make at least one identity component injective in the index: the bare index, index ± a constant, \
                 index × a nonzero literal, or another block's instance at such an index"
            } else {
                "use the bare index, index ± a constant, index × a nonzero literal, another block's instance at \
                 such an index, or format()/a template of those"
            };
            self.push(
                Diagnostic::new(
                    Code::CountIndex,
                    format!(
                        "identity argument `{arg}` of `{}` may give two instances one identity",
                        res.address()
                    ),
                    detail,
                )
                .with_address(res.address().to_string())
                .at(expr.loc.to_pos()),
            );
        }
    }

    /// The identity arguments of one instance: set, not null, static (or from parents where the path allows),
    /// and pure.
    pub(crate) fn identity(
        &mut self,
        res: &Resource,
        facts: &BlockFacts<'_>,
        inst: &Instance,
        address: &str,
        mut statics: Vec<(&str, StaticResult)>,
    ) -> Vec<(String, IdentityValue)> {
        let path = facts.path;
        if !facts.has_identity {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (arg, impure) in facts.schema.identity_arguments().iter().zip(&facts.impure) {
            let Some(attr) = res.attrs.get(arg) else {
                self.push(
                    Diagnostic::new(
                        Code::IdentityNotSet,
                        format!("identity argument `{arg}` of `{address}` is not set"),
                        format!("set `{arg}`: it is how the live object is found again"),
                    )
                    .with_address(address)
                    .at(res.loc.to_pos()),
                );
                continue;
            };
            let expr = &attr.expr;
            if *impure {
                self.push(
                    Diagnostic::new(
                        Code::ImpureIdentity,
                        format!("identity argument `{arg}` of `{address}` is derived from uuid() or timestamp()"),
                        "a new value every plan would lose the object; use a variable, a literal or random_id",
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                continue;
            }
            let known = statics
                .iter()
                .position(|(name, _)| name == arg)
                .map(|i| statics.swap_remove(i).1);
            let result = match known {
                Some(StaticResult::Same(result)) => result,
                // A static evaluation stops at the resource it reads: the component comes from a parent.
                Some(StaticResult::ReadsResource) if path != AdmissionPath::ClientNamed => {
                    out.push((arg.clone(), IdentityValue::FromParent));
                    continue;
                }
                _ => self.statics.eval(expr, inst),
            };
            let value = match result {
                Ok(v) => v,
                Err(EvalError::NotStatic { .. }) if path != AdmissionPath::ClientNamed => {
                    out.push((arg.clone(), IdentityValue::FromParent));
                    continue;
                }
                Err(e) => {
                    let mut d = e.into_diagnostic(Code::NonStaticIdentity);
                    if d.code == Code::NonStaticIdentity {
                        d.summary = format!(
                            "identity argument `{arg}` of `{address}` reads a resource attribute"
                        );
                        d.detail = "a client-named identity must be computable from variables, locals and literals"
                            .to_string();
                    }
                    self.push(d.with_address(address));
                    continue;
                }
            };
            if value.is_null() {
                self.push(
                    Diagnostic::new(
                        Code::IdentityNotSet,
                        format!("identity argument `{arg}` of `{address}` is null"),
                        format!("give `{arg}` a value: it is how the live object is found again"),
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                continue;
            }
            // At validate, an identity from a variable without a value is checked by the plan.
            if !value.is_known() && self.validating() {
                continue;
            }
            if !value.is_known() {
                self.push(
                    Diagnostic::new(
                        Code::NonStaticIdentity,
                        format!(
                            "identity argument `{arg}` of `{address}` is not known until apply"
                        ),
                        "compute it from variables, locals and literals only",
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                continue;
            }
            out.push((arg.clone(), IdentityValue::Static(value)));
        }
        out
    }

    /// Two client-named instances of one type may not claim the same identity.
    pub(crate) fn duplicate_identities<'d>(
        &mut self,
        instances: impl Iterator<Item = &'d ExpandedInstance>,
    ) {
        let mut seen: BTreeMap<Claim<'d>, &'d InstanceAddress> = BTreeMap::new();
        let mut reported: BTreeSet<&'d InstanceAddress> = BTreeSet::new();
        for inst in instances.filter(|i| i.admission == AdmissionPath::ClientNamed) {
            let values: Option<Vec<Value>> = inst
                .identity
                .iter()
                .map(|(_, v)| match v {
                    IdentityValue::Static(v) => Some(v.clone().unmark_deep().0),
                    IdentityValue::FromParent => None,
                })
                .collect();
            let Some(values) = values.filter(|v| !v.is_empty()) else {
                continue;
            };
            let claim = Claim {
                type_name: inst.address.type_name(),
                values,
            };
            match seen.get(&claim) {
                Some(first) if reported.insert(&inst.address) => {
                    let address = inst.address.to_string();
                    let shown: Vec<String> = claim.values.iter().map(Value::to_string).collect();
                    let pos = self
                        .input
                        .config
                        .resource_at(inst.address.block())
                        .map(|r| r.loc.to_pos());
                    let mut d = Diagnostic::new(
                        Code::DuplicateIdentity,
                        format!(
                            "`{address}` and `{first}` both declare {} {}",
                            claim.type_name,
                            shown.join(", ")
                        ),
                        "give every instance its own identity (bucket or name)",
                    )
                    .with_address(&address);
                    if let Some(p) = pos {
                        d = d.at(p);
                    }
                    self.push(d);
                }
                Some(_) => {}
                None => {
                    seen.insert(claim, &inst.address);
                }
            }
        }
    }
}

/// The identity a client-named instance claims: its type and its identity's values, in schema order.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Claim<'d> {
    type_name: &'d str,
    values: Vec<Value>,
}
