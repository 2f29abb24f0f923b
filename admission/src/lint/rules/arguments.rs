//! The argument rules: an instance's evaluated arguments match its resource type's schema (required
//! arguments set, no unknown or computed ones, values of the declared types), and its nested blocks are
//! written as blocks of the types the schema has, labelled as their nesting asks, as many as it allows.
//!
//! Missing identity arguments are left to the identity rules, which say why an identity must be set.

use std::collections::BTreeMap;

use crate::config::{Expr, ExprKind, Loc, NestedBlock, Resource};
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;
use crate::schema::{AttributeSchema, BlockSchema, Nesting, RefusedArgument, ResourceTypeSchema};
use crate::value::Value;

const FIX: &str = "fix the arguments to match the resource type's schema";

impl Lint<'_, '_, '_> {
    /// Reports every way the `configured` arguments of the instance `text` of `res` break `schema`.
    pub(crate) fn arguments(
        &mut self,
        res: &Resource,
        schema: &ResourceTypeSchema,
        configured: &BTreeMap<String, Value>,
        text: &str,
    ) {
        let mut judged = Vec::new();
        for (name, attr) in &res.attrs {
            if self.block_syntax(res, &schema.attributes, (name, &attr.loc), &attr.expr, text) {
                judged.push(name.as_str());
            }
        }
        for problem in schema.check_configured(configured) {
            use crate::schema::AttributeProblem as P;
            let top = problem.attribute().split('.').next().unwrap_or_default();
            if judged.contains(&top) {
                continue;
            }
            let attr = res.attrs.get(top);
            let attr_loc = attr.map_or(&res.loc, |a| &a.loc);
            let mut detail = FIX.to_owned();
            let (code, summary) = match &problem {
                P::Missing(a) if schema.identity_arguments().contains(a) => continue, // the identity rules judge it
                P::Missing(a) => (
                    Code::InvalidArgument,
                    format!("Missing required argument: `{a}` is required"),
                ),
                P::Unknown(a) if written_as_blocks(attr.map(|a| &a.expr), a) => (
                    Code::UnsupportedBlockType,
                    format!("`{}` has no block type `{a}`", res.type_name),
                ),
                P::Unknown(a) => {
                    if let Some(hint) = block_hint(schema, a) {
                        detail = hint;
                    }
                    (
                        Code::InvalidArgument,
                        format!(
                            "Unsupported argument: `{}` has no argument `{a}`",
                            res.type_name
                        ),
                    )
                }
                P::Refused { name, refusal } => {
                    detail = refused_detail(&res.type_name, refusal);
                    (
                        Code::UnsupportedConstruct,
                        format!(
                            "liveplan does not implement the argument `{name}` of `{}`",
                            res.type_name
                        ),
                    )
                }
                P::Computed(a) => (
                    Code::InvalidArgument,
                    format!(
                        "Value for unconfigurable attribute: `{a}` is computed by the provider and cannot be set"
                    ),
                ),
                P::WrongType { name, why } => (
                    Code::InvalidArgument,
                    format!(
                        "Incorrect attribute value type: inappropriate value for `{name}`: {why}"
                    ),
                ),
                P::NotABlock(name) => (
                    Code::BlockAsArgument,
                    format!("`{name}` is a nested block type and takes blocks"),
                ),
                P::BlockCount { .. } => (Code::BlockCount, format!("{problem}")),
                P::NotAllowed { .. } => {
                    (Code::InvalidArgument, format!("Invalid value: {problem}"))
                }
            };
            self.push(
                Diagnostic::new(code, summary, &detail)
                    .with_address(text)
                    .at(attr_loc.to_pos()),
            );
        }
    }

    /// Judges how the argument `name` of a body whose attributes are `attributes` is written: a block
    /// type as blocks (an argument only in the JSON syntax), blocks only for block types, labels as the
    /// nesting asks; recursing into the blocks' bodies. Returns whether a problem was reported, which the
    /// schema's own check would only repeat.
    fn block_syntax(
        &mut self,
        res: &Resource,
        attributes: &BTreeMap<String, AttributeSchema>,
        (name, loc): (&str, &Loc),
        expr: &Expr,
        text: &str,
    ) -> bool {
        let schema = attributes.get(name);
        let block = schema.and_then(|a| a.block.as_deref());
        let ExprKind::Blocks(blocks) = &expr.kind else {
            // Attributes-as-blocks types may be written as a list (`ingress = []`), as Terraform allows.
            let as_list = block.is_some_and(|b| b.attributes_as_blocks);
            if block.is_some() && !as_list && !expr.loc.file.ends_with(".json") {
                self.push(
                    Diagnostic::new(
                        Code::BlockAsArgument,
                        format!("`{name}` is a nested block type, not an argument"),
                        format!("write it as a block: `{name} {{ ... }}`, without `=`"),
                    )
                    .with_address(text)
                    .at(loc.to_pos()),
                );
                return true;
            }
            return false;
        };
        let Some(block) = block else {
            // Blocks of an argument's name; a type the schema lacks is the schema check's `Unknown`.
            if schema.is_some() {
                self.push(
                    Diagnostic::new(
                        Code::UnsupportedBlockType,
                        format!(
                            "`{name}` is an argument of `{}`, not a block type",
                            res.type_name
                        ),
                        format!("write it as an argument: `{name} = ...`"),
                    )
                    .with_address(text)
                    .at(expr.loc.to_pos()),
                );
                return true;
            }
            return false;
        };
        let mut reported = false;
        for nested in blocks {
            let (labels, body) = match nested {
                NestedBlock::Static(b) => (b.labels.len(), &b.attrs),
                NestedBlock::Dynamic(d) => (d.labels.len(), &d.content),
            };
            let expected = usize::from(block.nesting == Nesting::Map);
            if labels != expected {
                reported = true;
                self.push(
                    Diagnostic::new(
                        Code::UnsupportedBlockType,
                        format!("`{name}` blocks take {expected} label(s), {labels} written"),
                        label_usage(name, block),
                    )
                    .with_address(text)
                    .at(nested.loc().to_pos()),
                );
            }
            for (inner, e) in body {
                reported |= self.block_syntax(res, &block.attributes, (inner, &e.loc), e, text);
            }
        }
        reported
    }
}

/// What to do about a documented argument the type refuses: its note, and whether the provider
/// deprecates it.
fn refused_detail(type_name: &str, refusal: &RefusedArgument) -> String {
    let mut out = String::new();
    if refusal.deprecated {
        out.push_str(&if type_name.starts_with("aws_") {
            format!(
                "the AWS provider v{} documents it as deprecated",
                crate::config::AWS_PROVIDER_VERSION
            )
        } else {
            "its provider documents it as deprecated".to_owned()
        });
    }
    if !refusal.note.is_empty() {
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&refusal.note);
    }
    if out.is_empty() {
        out.push_str("remove it: liveplan plans and applies this type without it");
    }
    out
}

/// How blocks of type `name` are labelled.
fn label_usage(name: &str, block: &BlockSchema) -> String {
    match block.nesting {
        Nesting::Map => format!("write `{name} \"KEY\" {{ ... }}`"),
        _ => format!("write `{name} {{ ... }}`, without labels"),
    }
}

/// Whether the argument at the dotted `path` (below the top-level argument `expr`) is written as blocks.
fn written_as_blocks(expr: Option<&Expr>, path: &str) -> bool {
    let mut names = path.split('.');
    let Some(expr) = expr else {
        return false;
    };
    names.next();
    let mut current = vec![expr];
    for name in names {
        let mut next = Vec::new();
        for e in current {
            let ExprKind::Blocks(blocks) = &e.kind else {
                continue;
            };
            for b in blocks {
                let body = match b {
                    NestedBlock::Static(b) => &b.attrs,
                    NestedBlock::Dynamic(d) => &d.content,
                };
                next.extend(body.iter().filter(|(n, _)| n == name).map(|(_, e)| e));
            }
        }
        current = next;
    }
    current
        .iter()
        .any(|e| matches!(e.kind, ExprKind::Blocks(_)))
}

/// For an argument a resource type does not have at the top but one of its block types does (the flat
/// `status` of `aws_s3_bucket_versioning`), the block to write instead.
fn block_hint(schema: &ResourceTypeSchema, name: &str) -> Option<String> {
    let (block_name, block) = schema
        .attributes
        .values()
        .filter_map(|a| Some((&a.name, a.block.as_deref()?)))
        .find(|(_, b)| b.attributes.contains_key(name))?;
    let example = block
        .attributes
        .get(name)
        .and_then(|a| a.allowed.first().cloned())
        .map_or_else(|| "...".to_owned(), |v| format!("{v:?}"));
    Some(format!(
        "`{name}` is an argument of the nested block `{block_name}`: write `{block_name} {{ {name} = {example} }}`"
    ))
}
