//! The argument rules: an instance's evaluated arguments match its resource type's schema (required
//! arguments set, no unknown or computed ones, values of the declared types).
//!
//! Missing identity arguments are left to the identity rules, which say why an identity must be set.

use std::collections::BTreeMap;

use crate::config::Resource;
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;
use crate::schema::ResourceTypeSchema;
use crate::value::Value;

impl Lint<'_, '_> {
    /// Reports every way the `configured` arguments of the instance `text` of `res` break `schema`.
    pub(crate) fn arguments(
        &mut self,
        res: &Resource,
        schema: &ResourceTypeSchema,
        configured: &BTreeMap<String, Value>,
        text: &str,
    ) {
        for problem in schema.check_configured(configured) {
            use crate::schema::AttributeProblem as P;
            let attr_loc = res
                .attrs
                .get(problem.attribute())
                .map_or(&res.loc, |a| &a.loc);
            let (code, summary) = match &problem {
                P::Missing(a) if schema.identity_arguments().contains(a) => continue, // the identity rules judge it
                P::Missing(a) => (
                    Code::UnsupportedConstruct,
                    format!("required argument `{a}` is not set"),
                ),
                P::Unknown(a) => (
                    Code::UnsupportedConstruct,
                    format!("`{}` has no argument `{a}`", res.type_name),
                ),
                P::Computed(a) => (
                    Code::UnsupportedConstruct,
                    format!("`{a}` is computed by the provider and cannot be set"),
                ),
                P::WrongType { name, why } => (
                    Code::UnsupportedConstruct,
                    format!("inappropriate value for `{name}`: {why}"),
                ),
                other => (Code::UnsupportedConstruct, format!("{other}")),
            };
            self.push(
                Diagnostic::new(
                    code,
                    summary,
                    "fix the arguments to match the resource type's schema",
                )
                .with_address(text)
                .at(attr_loc.to_pos()),
            );
        }
    }
}
