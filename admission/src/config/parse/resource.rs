//! Resource blocks lowered into the model: a resource's meta-arguments (`count`, `for_each`,
//! `depends_on`), its `lifecycle` block ([`super::lifecycle`]) and its arguments.
//!
//! Nothing here evaluates an expression: `count`, `for_each` and the arguments stay expressions for the
//! lint and the evaluator.

use std::collections::BTreeMap;

use super::nested::BlockGroups;
use super::raw::{RawBlock, RawItem};
use super::value::Mode;
use super::{Parser, Refusal};
use crate::config::expr::Loc;
use crate::config::{Attr, Lifecycle, ProviderRef, Repetition, Resource};

/// The meta-arguments and nested blocks Terraform accepts on a resource that this subset does not.
const UNSUPPORTED_RESOURCE_META: &[&str] = &["connection", "provisioner"];

impl<'a> Parser<'a> {
    /// The body of a `resource` block: meta-arguments, arguments and one `lifecycle` block.
    pub(super) fn resource(
        &mut self,
        block: &RawBlock<'a>,
        type_name: String,
        name: String,
        loc: Loc,
    ) -> Option<Resource> {
        let mut res = Resource {
            type_name,
            name,
            repetition: Repetition::Single,
            depends_on: Vec::new(),
            lifecycle: Lifecycle::default(),
            provider: None,
            attrs: BTreeMap::new(),
            loc,
            module: crate::address::ModulePath::root(),
        };
        let (mut count, mut for_each) = (None, None);
        let mut seen_lifecycle = false;
        let mut groups = BlockGroups::new();
        for item in &block.body.items {
            match item {
                RawItem::Attr(a) => {
                    let aloc = a.loc.clone();
                    let key = a.name.as_str();
                    if UNSUPPORTED_RESOURCE_META.contains(&key) {
                        self.unsupported(
                            &aloc,
                            format!("meta-argument `{key}` is not supported"),
                            "remove it: liveplan runs no provisioners",
                        );
                        continue;
                    }
                    if res.attrs.contains_key(key)
                        || (key == "provider" && res.provider.is_some())
                        || (key == "count" && count.is_some())
                        || (key == "for_each" && for_each.is_some())
                    {
                        self.refuse(
                            Refusal::DuplicateArgument,
                            &aloc,
                            format!("argument `{key}` is set twice"),
                            "set it once",
                        );
                        continue;
                    }
                    let mode = if key == "depends_on" || key == "provider" {
                        Mode::Reference
                    } else {
                        Mode::Expression
                    };
                    let Some(attr) = self.attr_as(a, mode) else {
                        continue;
                    };
                    match key {
                        "count" => count = Some(attr),
                        "for_each" => for_each = Some(attr),
                        "provider" => res.provider = self.provider_ref(&attr),
                        "depends_on" => {
                            if let Some(deps) = self.depends_on_list(&attr.expr) {
                                res.depends_on = deps;
                            }
                        }
                        _ => {
                            res.attrs.insert(key.to_string(), attr);
                        }
                    }
                }
                RawItem::Block(b) => {
                    let bloc = b.loc.clone();
                    let ident = b.ident.as_str();
                    if ident == "lifecycle" && !seen_lifecycle && b.labels.is_empty() {
                        seen_lifecycle = true;
                        res.lifecycle = self.lifecycle(b);
                    } else if ident == "lifecycle" {
                        self.refuse(
                            Refusal::DuplicateBlock,
                            &bloc,
                            "a second `lifecycle` block".into(),
                            "declare one `lifecycle` block",
                        );
                    } else if UNSUPPORTED_RESOURCE_META.contains(&ident) {
                        self.unsupported(
                            &bloc,
                            format!("`{ident}` blocks are not supported"),
                            "remove it: liveplan runs no provisioners",
                        );
                    } else {
                        self.nested_block(b, &mut groups);
                    }
                }
            }
        }
        self.resource_blocks(groups, &mut res);
        res.repetition = self.repetition(count, for_each, &res)?;
        Some(res)
    }

    /// The nested block types of a resource body as its arguments; one also set as an argument is refused.
    fn resource_blocks(&mut self, groups: BlockGroups, res: &mut Resource) {
        let mut blocks = Vec::new();
        self.block_arguments(groups, &mut blocks);
        for (name, expr) in blocks {
            if res.attrs.contains_key(&name) {
                self.refuse(
                    Refusal::DuplicateArgument,
                    &expr.loc,
                    format!("`{name}` is set both as an argument and as blocks"),
                    "write it one way: as blocks for a nested block type",
                );
                continue;
            }
            let loc = expr.loc.clone();
            res.attrs.insert(name.clone(), Attr { name, expr, loc });
        }
    }

    /// The `provider` meta-argument: `aws` or `aws.ALIAS`, a bare reference as Terraform requires.
    fn provider_ref(&mut self, attr: &Attr) -> Option<(ProviderRef, Loc)> {
        let provider = match attr.expr.as_static_path().as_deref() {
            Some([name]) => ProviderRef::default_of(name.clone()),
            Some([name, alias]) => ProviderRef {
                name: name.clone(),
                alias: Some(alias.clone()),
            },
            _ => {
                self.refuse(
                    Refusal::InvalidValue,
                    &attr.expr.loc,
                    "`provider` must name a provider configuration".into(),
                    "write `provider = aws` or `provider = aws.ALIAS`, without quotes",
                );
                return None;
            }
        };
        Some((provider, attr.expr.loc.clone()))
    }

    /// How a resource block repeats; a block that sets both `count` and `for_each` is refused.
    fn repetition(
        &mut self,
        count: Option<Attr>,
        for_each: Option<Attr>,
        res: &Resource,
    ) -> Option<Repetition> {
        Some(match (count, for_each) {
            (Some(_), Some(fe)) => {
                self.refuse(
                    Refusal::InvalidValue,
                    &fe.loc,
                    format!(
                        "resource `{}` sets both `count` and `for_each`",
                        res.address()
                    ),
                    "use one of them",
                );
                return None;
            }
            (Some(c), None) => Repetition::Count(c),
            (None, Some(fe)) => Repetition::ForEach(fe),
            (None, None) => Repetition::Single,
        })
    }

    /// The body of a `lifecycle` block (see [`super::lifecycle`]).
    fn lifecycle(&mut self, block: &RawBlock<'a>) -> Lifecycle {
        self.lifecycle_block(block)
    }
}
