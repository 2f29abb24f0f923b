//! Nested blocks of a resource body lowered into the model: static blocks and `dynamic` blocks (with their
//! own nested blocks and dynamics), each block type becoming one argument whose expression is
//! [`ExprKind::Blocks`].
//!
//! The parser knows no schema: which block types a resource type has, how they nest and how many there may
//! be is the lint's to judge. In the JSON syntax a nested block is a property like any argument (only the
//! schema tells them apart), so it reaches the model as an object or array expression; `dynamic` and its
//! `content` are blocks in both syntaxes.

use super::raw::{RawAttr, RawBlock, RawBody, RawItem};
use super::value::Mode;
use super::{Parser, Refusal};
use crate::config::expr::{Expr, ExprKind, Loc};
use crate::config::{BlockBody, DynamicBlock, NestedBlock};
use crate::diag::{Code, Diagnostic};

/// The blocks of one type in one body, in the order written, with where the first starts.
pub(super) type BlockGroups = Vec<(String, Loc, Vec<NestedBlock>)>;

/// The meta-argument blocks `dynamic` cannot generate, as in Terraform.
const NOT_DYNAMIC: &[&str] = &[
    "lifecycle",
    "provisioner",
    "connection",
    "dynamic",
    "content",
];

impl<'a> Parser<'a> {
    /// Adds the block `b` of a body (a static block, or a `dynamic` one for the type it labels) to
    /// `groups`.
    pub(super) fn nested_block(&mut self, b: &RawBlock<'a>, groups: &mut BlockGroups) {
        let (name, block) = if b.ident == "dynamic" {
            match self.dynamic(b) {
                Some(found) => found,
                None => return,
            }
        } else {
            let attrs = self.block_body(&b.body);
            let body = BlockBody {
                labels: b.labels.clone(),
                attrs,
                loc: b.loc.clone(),
            };
            (b.ident.clone(), NestedBlock::Static(body))
        };
        match groups.iter_mut().find(|(n, _, _)| *n == name) {
            Some((_, _, blocks)) => blocks.push(block),
            None => groups.push((name, b.loc.clone(), vec![block])),
        }
    }

    /// The groups as arguments of a body, each block type one [`ExprKind::Blocks`] argument; a type that is
    /// also set as an argument of the body is refused.
    pub(super) fn block_arguments(&mut self, groups: BlockGroups, attrs: &mut Vec<(String, Expr)>) {
        for (name, loc, blocks) in groups {
            if attrs.iter().any(|(n, _)| *n == name) {
                self.refuse(
                    Refusal::DuplicateArgument,
                    &loc,
                    format!("`{name}` is set both as an argument and as blocks"),
                    "write it one way: as blocks for a nested block type",
                );
                continue;
            }
            let expr = Expr {
                kind: ExprKind::Blocks(blocks),
                loc: loc.clone(),
            };
            attrs.push((name, expr));
        }
    }

    /// A nested block's body: its arguments and its own nested blocks.
    fn block_body(&mut self, body: &RawBody<'a>) -> Vec<(String, Expr)> {
        let mut attrs: Vec<(String, Expr)> = Vec::new();
        let mut groups = BlockGroups::new();
        for item in &body.items {
            match item {
                RawItem::Attr(a) => {
                    if attrs.iter().any(|(n, _)| *n == a.name) {
                        self.refuse(
                            Refusal::DuplicateArgument,
                            &a.loc,
                            format!("argument `{}` is set twice", a.name),
                            "set it once",
                        );
                        continue;
                    }
                    if let Some(attr) = self.attr_as(a, Mode::Expression) {
                        attrs.push((attr.name, attr.expr));
                    }
                }
                RawItem::Block(b) => self.nested_block(b, &mut groups),
            }
        }
        self.block_arguments(groups, &mut attrs);
        attrs
    }

    fn invalid_dynamic(&mut self, loc: &Loc, summary: String, detail: &str) {
        self.diags
            .push(Diagnostic::new(Code::InvalidDynamicBlock, summary, detail).at(loc.to_pos()));
    }

    /// `dynamic "name" { for_each, iterator, labels, content { … } }`: the block type it generates and
    /// the block; `None` when it is malformed (reported).
    fn dynamic(&mut self, b: &RawBlock<'a>) -> Option<(String, NestedBlock)> {
        const USAGE: &str = "write `dynamic \"NAME\" { for_each = COLLECTION, content { ... } }` \
                             (`iterator` and `labels` are optional)";
        let [name] = b.labels.as_slice() else {
            self.invalid_dynamic(&b.loc, "a `dynamic` block takes one label".into(), USAGE);
            return None;
        };
        if NOT_DYNAMIC.contains(&name.as_str()) {
            self.invalid_dynamic(
                &b.loc,
                format!("`{name}` blocks cannot be generated by `dynamic`"),
                "write the block itself; `dynamic` generates the nested blocks of a resource type",
            );
            return None;
        }
        let (mut for_each, mut iterator, mut labels, mut content) = (None, None, Vec::new(), None);
        for item in &b.body.items {
            match item {
                RawItem::Attr(a) if a.name == "for_each" && for_each.is_none() => {
                    for_each = self.attr_as(a, Mode::Expression).map(|x| x.expr);
                }
                RawItem::Attr(a) if a.name == "iterator" && iterator.is_none() => {
                    let attr = self.attr_as(a, Mode::Reference)?;
                    match attr.expr.kind {
                        ExprKind::Variable(v) => iterator = Some(v),
                        _ => {
                            self.invalid_dynamic(
                                &attr.expr.loc,
                                "`iterator` must be a bare name".into(),
                                "write `iterator = NAME`, without quotes",
                            );
                            return None;
                        }
                    }
                }
                RawItem::Attr(a) if a.name == "labels" && labels.is_empty() => {
                    let attr = self.attr_as(a, Mode::Expression)?;
                    match attr.expr.kind {
                        ExprKind::List(items) => labels = items,
                        _ => {
                            self.invalid_dynamic(
                                &attr.expr.loc,
                                "`labels` must be a list of label expressions".into(),
                                "write `labels = [each_label]`",
                            );
                            return None;
                        }
                    }
                }
                RawItem::Block(c) if c.ident == "content" && c.labels.is_empty() => {
                    if content.is_some() {
                        self.invalid_dynamic(&c.loc, "a second `content` block".into(), USAGE);
                        return None;
                    }
                    content = Some(self.block_body(&c.body));
                }
                RawItem::Attr(RawAttr { name, loc, .. })
                | RawItem::Block(RawBlock {
                    ident: name, loc, ..
                }) => {
                    self.invalid_dynamic(
                        loc,
                        format!("`{name}` is not expected in a `dynamic` block"),
                        USAGE,
                    );
                    return None;
                }
            }
        }
        let (Some(for_each), Some(content)) = (for_each, content) else {
            self.invalid_dynamic(
                &b.loc,
                format!("the `dynamic \"{name}\"` block needs `for_each` and a `content` block"),
                USAGE,
            );
            return None;
        };
        let dynamic = DynamicBlock {
            for_each,
            iterator: iterator.unwrap_or_else(|| name.clone()),
            labels,
            content,
            loc: b.loc.clone(),
        };
        Some((name.clone(), NestedBlock::Dynamic(Box::new(dynamic))))
    }
}
