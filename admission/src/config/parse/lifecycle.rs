//! A resource's `lifecycle` block lowered into the model: `create_before_destroy`, `prevent_destroy`,
//! `ignore_changes`, `replace_triggered_by` and the `precondition` and `postcondition` blocks.
//!
//! Nothing here evaluates an expression or judges what `ignore_changes` covers (the lint does).

use super::raw::{RawAttr, RawBlock, RawItem};
use super::value::Mode;
use super::{Parser, Refusal};
use crate::config::conditions::ConditionKind;
use crate::config::expr::{Expr, ExprKind, Loc, Step};
use crate::config::{IgnoreChanges, Lifecycle};

const LIFECYCLE_ARGS: &[&str] = &[
    "create_before_destroy",
    "prevent_destroy",
    "ignore_changes",
    "replace_triggered_by",
];

impl<'a> Parser<'a> {
    /// The body of a `lifecycle` block.
    pub(super) fn lifecycle_block(&mut self, block: &RawBlock<'a>) -> Lifecycle {
        let mut lc = Lifecycle::default();
        let mut attrs: Vec<&RawAttr<'a>> = Vec::new();
        for item in &block.body.items {
            match item {
                RawItem::Block(b) if b.labels.is_empty() && b.ident == "precondition" => {
                    lc.preconditions
                        .extend(self.condition(b, ConditionKind::Precondition));
                }
                RawItem::Block(b) if b.labels.is_empty() && b.ident == "postcondition" => {
                    lc.postconditions
                        .extend(self.condition(b, ConditionKind::Postcondition));
                }
                RawItem::Block(b) => self.refuse(
                    Refusal::UnsupportedBlock,
                    &b.loc,
                    format!("block `{}` is not supported in `lifecycle`", b.ident),
                    "a lifecycle takes create_before_destroy, prevent_destroy, ignore_changes, \
                     replace_triggered_by and `precondition`/`postcondition` blocks",
                ),
                RawItem::Attr(a) if !LIFECYCLE_ARGS.contains(&a.name.as_str()) => self.refuse(
                    Refusal::UnsupportedArgument,
                    &a.loc,
                    format!("argument `{}` is not supported in `lifecycle`", a.name),
                    &format!("the supported arguments are: {}", LIFECYCLE_ARGS.join(", ")),
                ),
                RawItem::Attr(a) if attrs.iter().any(|x| x.name == a.name) => self.refuse(
                    Refusal::DuplicateArgument,
                    &a.loc,
                    format!("argument `{}` is set twice", a.name),
                    "set it once",
                ),
                RawItem::Attr(a) => attrs.push(a),
            }
        }
        for a in attrs {
            // In JSON, `ignore_changes` and `replace_triggered_by` hold references (or the keyword `all`)
            // written as strings.
            let mode = match a.name.as_str() {
                "ignore_changes" | "replace_triggered_by" => Mode::Reference,
                _ => Mode::Literal,
            };
            let Some(attr) = self.attr_as(a, mode) else {
                continue;
            };
            match attr.name.as_str() {
                "create_before_destroy" => {
                    lc.create_before_destroy = self.literal_bool(&attr).unwrap_or(false)
                }
                "prevent_destroy" => lc.prevent_destroy = self.literal_bool(&attr).unwrap_or(false),
                "replace_triggered_by" => lc.replace_triggered_by = self.triggers(&attr.expr),
                _ => lc.ignore_changes = self.ignore_changes(&attr.expr),
            }
        }
        lc
    }

    /// `ignore_changes = all` or a list of attribute paths.
    fn ignore_changes(&mut self, expr: &Expr) -> IgnoreChanges {
        match &expr.kind {
            ExprKind::Variable(v) if v == "all" => IgnoreChanges::All(expr.loc.clone()),
            ExprKind::List(items) => {
                let mut paths = Vec::new();
                for item in items {
                    match item.as_static_path() {
                        Some(p) => paths.push((p, item.loc.clone())),
                        None => self.refuse(Refusal::InvalidValue,
                            &item.loc,
                            "`ignore_changes` entries must be attribute paths".into(),
                            "write attribute names as bare paths: `ignore_changes = [tags[\"Name\"]]`, \
                             or `ignore_changes = all`",
                        ),
                    }
                }
                IgnoreChanges::Paths(paths)
            }
            _ => {
                self.refuse(
                    Refusal::InvalidValue,
                    &expr.loc,
                    "`ignore_changes` must be `all` or a list of attribute paths".into(),
                    "write `ignore_changes = all` or `ignore_changes = [tags[\"Name\"]]`",
                );
                IgnoreChanges::None
            }
        }
    }

    /// `replace_triggered_by = [aws_vpc.main, aws_vpc.main.cidr_block]`: references to managed
    /// resources, instances or their attributes, as Terraform requires.
    fn triggers(&mut self, expr: &Expr) -> Vec<(Vec<String>, Loc)> {
        let ExprKind::List(items) = &expr.kind else {
            self.refuse(
                Refusal::InvalidValue,
                &expr.loc,
                "`replace_triggered_by` must be a list of resource references".into(),
                "write `replace_triggered_by = [aws_vpc.main.id]`",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            match trigger_path(item) {
                Some(path)
                    if path.len() >= 2
                        && !matches!(
                            path[0].as_str(),
                            "var" | "local" | "count" | "each" | "path" | "terraform" | "self"
                        ) =>
                {
                    out.push((path, item.loc.clone()))
                }
                _ => self.refuse(
                    Refusal::InvalidValue,
                    &item.loc,
                    "`replace_triggered_by` entries must reference a managed resource or its \
                     attributes"
                        .into(),
                    "write `aws_vpc.main`, `aws_vpc.main.id` or `aws_subnet.a[count.index]`; \
                     variables, locals and function calls are not allowed here",
                ),
            }
        }
        out
    }
}

/// The names a `replace_triggered_by` entry reads (`aws_vpc.main.id` is `[aws_vpc, main, id]`), index
/// steps left out: an index may be a literal, `count.index` or `each.key`, and the block is what
/// triggers. `None` for anything but a traversal of attribute and index steps.
fn trigger_path(expr: &Expr) -> Option<Vec<String>> {
    match &expr.kind {
        ExprKind::Variable(name) => Some(vec![name.clone()]),
        ExprKind::Traversal(base, steps) => {
            let mut path = trigger_path(base)?;
            for step in steps {
                match step {
                    Step::Attr(a) => path.push(a.clone()),
                    Step::Index(_) => {}
                    Step::Splat | Step::AttrSplat => return None,
                }
            }
            Some(path)
        }
        _ => None,
    }
}
