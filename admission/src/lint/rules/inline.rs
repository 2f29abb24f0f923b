//! The inline-and-standalone rule: a parent whose inline set is declared (a route table's `route`
//! blocks, a security group's `ingress` or `egress` blocks) claims the whole set, so a standalone
//! resource of the same configuration that manages one entry of it (an `aws_route` in that table) is an
//! error: each apply would remove what the other adds.
//!
//! The rule reads the schemas and the references a standalone resource's parent argument makes; it never
//! evaluates an expression.

use std::collections::BTreeSet;

use crate::config::Resource;
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;

impl Lint<'_, '_, '_> {
    /// Every standalone resource whose parent argument names a declared parent with the inline set of the
    /// same entries declared.
    pub(crate) fn inline_and_standalone(&mut self) {
        let config = self.input.config;
        let catalog = self.input.catalog;
        let mut found = Vec::new();
        for child in config.resources() {
            let Some(link) = catalog
                .get(&child.type_name)
                .and_then(|s| s.parent.as_ref())
            else {
                continue;
            };
            let Some(parent_schema) = catalog.get(&link.parent_type) else {
                continue;
            };
            let inline: Vec<&str> = parent_schema
                .attributes
                .values()
                .filter(|a| {
                    a.block.as_ref().and_then(|b| b.standalone.as_deref())
                        == Some(child.type_name.as_str())
                })
                .map(|a| a.name.as_str())
                .collect();
            let Some(argument) = child.attrs.get(&link.argument) else {
                continue;
            };
            if inline.is_empty() {
                continue;
            }
            let mut parents: Vec<&Resource> = Vec::new();
            for (path, _) in argument.expr.references() {
                config.reference_blocks(&path, &mut BTreeSet::new(), &mut |p| {
                    if p.type_name == link.parent_type
                        && inline.iter().any(|b| p.attrs.contains_key(*b))
                        && !parents.iter().any(|q| q.name == p.name)
                    {
                        parents.push(p);
                    }
                });
            }
            for parent in parents {
                let block = inline
                    .iter()
                    .find(|b| parent.attrs.contains_key(**b))
                    .copied()
                    .unwrap_or_default();
                found.push(inline_and_standalone(child, parent, block, &argument.loc));
            }
        }
        for d in found {
            self.push(d);
        }
    }
}

fn inline_and_standalone(
    child: &Resource,
    parent: &Resource,
    block: &str,
    loc: &crate::config::Loc,
) -> Diagnostic {
    let child_address = format!("{}.{}", child.type_name, child.name);
    let parent_address = format!("{}.{}", parent.type_name, parent.name);
    Diagnostic::new(
        Code::InlineAndStandalone,
        format!(
            "`{child_address}` manages an entry of `{parent_address}`, whose inline `{block}` blocks are declared"
        ),
        format!(
            "declared `{block}` blocks are the whole set: apply would remove `{child_address}`'s entry again. \
             Write the entry as a `{block}` block of `{parent_address}`, or remove `{parent_address}`'s \
             `{block}` blocks to leave the set unmanaged"
        ),
    )
    .with_address(child_address)
    .at(loc.to_pos())
}
