//! Override files merged into the primary files, as Terraform merges them: each top-level block of an
//! override file changes the primary block with the same header (type and labels), attribute by
//! attribute; a nested block type the override writes replaces every block of that type (a `lifecycle`
//! block merges argument by argument); `locals` merge by name wherever they were declared; a `terraform`
//! block's settings merge one by one (`required_providers` per provider, a `backend` or `cloud` block
//! replacing both). Overrides apply in file-name order, then in their order in each file.
//!
//! An override of a block no primary file declares is `invalid-override`, as is an override of
//! `depends_on` or a `moved` block. The merge never lowers an expression.

use super::raw::{RawAttr, RawBlock, RawBody, RawItem};
use crate::config::expr::Loc;
use crate::diag::{Code, Diagnostic};

/// Merges the blocks of override files (`overrides`, in the order they apply) into `primary`.
pub(crate) fn merge_overrides<'s>(
    primary: &mut Vec<RawBlock<'s>>,
    overrides: Vec<RawBlock<'s>>,
    diags: &mut Vec<Diagnostic>,
) {
    for block in overrides {
        match block.ident.as_str() {
            "locals" => merge_locals(primary, block, diags),
            "terraform" => merge_terraform(primary, block),
            "moved" => diags.push(invalid(
                &block.loc,
                "a `moved` block cannot be in an override file".into(),
                "move it to a primary configuration file",
            )),
            "resource" | "data" | "variable" | "output" | "provider" | "module" | "live" => {
                merge_keyed(primary, block, diags)
            }
            // Blocks the lowering refuses anyway are refused where they are written.
            _ => primary.push(block),
        }
    }
}

fn invalid(loc: &Loc, summary: String, detail: &str) -> Diagnostic {
    Diagnostic::new(Code::InvalidOverride, summary, detail).at(loc.to_pos())
}

/// What a block is called in a report (`resource "aws_vpc" "main"`).
fn header(block: &RawBlock<'_>) -> String {
    let mut out = block.ident.clone();
    for label in &block.labels {
        out.push_str(&format!(" {label:?}"));
    }
    out
}

/// The `alias` a provider block gives itself, when written as a plain string (the one form Terraform
/// accepts).
fn alias(block: &RawBlock<'_>) -> Option<String> {
    let attr = block.body.attr("alias")?;
    match attr.value {
        super::raw::RawValue::Hcl(hcl_edit::expr::Expression::String(s)) => {
            Some(s.value().to_string())
        }
        super::raw::RawValue::Json(j) => match &j.kind {
            super::json::JsonKind::String(s) => Some(s.value.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `base` is the primary block `over` overrides.
fn same_block(base: &RawBlock<'_>, over: &RawBlock<'_>) -> bool {
    base.ident == over.ident
        && base.labels == over.labels
        && (base.ident != "provider" || alias(base) == alias(over))
}

/// A block with a header merged into the primary block with the same one.
fn merge_keyed<'s>(
    primary: &mut Vec<RawBlock<'s>>,
    over: RawBlock<'s>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(base) = primary.iter_mut().find(|b| same_block(b, &over)) else {
        // As in Terraform, a default provider configuration may be overridden without one: an absent
        // configuration is an empty one.
        if over.ident == "provider" && alias(&over).is_none() {
            primary.push(over);
            return;
        }
        diags.push(invalid(
            &over.loc,
            format!(
                "{} overrides nothing: no primary file declares it",
                header(&over)
            ),
            "an override file changes blocks that primary configuration files declare; declare the \
             block in a primary file, or give the file a name that does not end in `override`",
        ));
        return;
    };
    let mut over_body = over.body;
    if matches!(over.ident.as_str(), "resource" | "data" | "output")
        && let Some(dep) = over_body.attr("depends_on")
    {
        diags.push(invalid(
            &dep.loc,
            format!("{} overrides `depends_on`", header(base)),
            "`depends_on` may not be overridden: set it in the primary file",
        ));
        over_body
            .items
            .retain(|i| !matches!(i, RawItem::Attr(a) if a.name == "depends_on"));
    }
    if over.ident == "resource" || over.ident == "data" {
        // `count` and `for_each` exclude each other: the override's choice replaces the base's.
        for (set, drop) in [("count", "for_each"), ("for_each", "count")] {
            if over_body.attr(set).is_some() {
                remove_attrs(&mut base.body, drop);
            }
        }
    }
    let merges_lifecycle = over.ident == "resource" || over.ident == "data";
    merge_body(&mut base.body, over_body, merges_lifecycle);
}

/// Removes every attribute `name` of `body`.
fn remove_attrs(body: &mut RawBody<'_>, name: &str) {
    body.items
        .retain(|i| !matches!(i, RawItem::Attr(a) if a.name == name));
}

/// Sets `attr` in `body`, replacing any attribute of the same name.
fn set_attr<'s>(body: &mut RawBody<'s>, attr: RawAttr<'s>) {
    if let Some(slot) = body.items.iter_mut().find_map(|i| match i {
        RawItem::Attr(a) if a.name == attr.name => Some(a),
        _ => None,
    }) {
        *slot = attr;
        let name = slot.name.clone();
        let mut seen = false;
        body.items.retain(|i| match i {
            RawItem::Attr(a) if a.name == name => !std::mem::replace(&mut seen, true),
            _ => true,
        });
    } else {
        body.items.push(RawItem::Attr(attr));
    }
}

/// The block type a block of a body is, for merging: a `dynamic "NAME"` block is of type `NAME`.
fn block_type<'b>(block: &'b RawBlock<'_>) -> &'b str {
    match (block.ident.as_str(), block.labels.as_slice()) {
        ("dynamic", [name]) => name,
        (ident, _) => ident,
    }
}

/// The general rule: attributes replace by name; each nested block type written (as static or `dynamic`
/// blocks) replaces all base blocks of that type (`lifecycle` merges argument by argument when
/// `merges_lifecycle`). In the JSON syntax a nested block is written as an argument, so an argument and
/// the blocks of its name replace each other.
fn merge_body<'s>(base: &mut RawBody<'s>, over: RawBody<'s>, merges_lifecycle: bool) {
    let mut replaced: Vec<String> = Vec::new();
    for item in over.items {
        match item {
            RawItem::Attr(a) => {
                let name = a.name.clone();
                base.items
                    .retain(|i| !matches!(i, RawItem::Block(x) if block_type(x) == name));
                set_attr(base, a);
            }
            RawItem::Block(b) if merges_lifecycle && b.ident == "lifecycle" => {
                let existing = base.items.iter_mut().find_map(|i| match i {
                    RawItem::Block(lb) if lb.ident == "lifecycle" => Some(lb),
                    _ => None,
                });
                match existing {
                    Some(lifecycle) => merge_body(&mut lifecycle.body, b.body, false),
                    None => base.items.push(RawItem::Block(b)),
                }
            }
            RawItem::Block(b) => {
                let kind = block_type(&b).to_owned();
                if !replaced.contains(&kind) {
                    base.items.retain(|i| match i {
                        RawItem::Block(x) => block_type(x) != kind,
                        RawItem::Attr(a) => a.name != kind,
                    });
                    replaced.push(kind);
                }
                base.items.push(RawItem::Block(b));
            }
        }
    }
}

/// `locals` overrides: each value replaces the primary one of its name, wherever it was declared.
fn merge_locals<'s>(
    primary: &mut Vec<RawBlock<'s>>,
    over: RawBlock<'s>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut rest = RawBody::default();
    for item in over.body.items {
        let RawItem::Attr(attr) = item else {
            // Refused by the lowering, where it is written.
            rest.items.push(item);
            continue;
        };
        let slot = primary
            .iter_mut()
            .filter(|b| b.ident == "locals")
            .flat_map(|b| b.body.items.iter_mut())
            .find_map(|i| match i {
                RawItem::Attr(a) if a.name == attr.name => Some(a),
                _ => None,
            });
        match slot {
            Some(slot) => *slot = attr,
            None => diags.push(invalid(
                &attr.loc,
                format!("local `{}` overrides nothing: no primary file declares it", attr.name),
                "an override file changes locals that primary configuration files declare; declare it \
                 in a primary file's `locals` block",
            )),
        }
    }
    if !rest.items.is_empty() {
        primary.push(RawBlock { body: rest, ..over });
    }
}

/// A `terraform` block override: each setting replaces the primary one wherever it was written; the
/// merged settings go to the first primary `terraform` block (the override's own when there is none).
fn merge_terraform<'s>(primary: &mut Vec<RawBlock<'s>>, over: RawBlock<'s>) {
    let target = match primary.iter().position(|b| b.ident == "terraform") {
        Some(i) => i,
        None => {
            primary.push(RawBlock {
                body: RawBody::default(),
                ..over.clone()
            });
            primary.len() - 1
        }
    };
    let others = |primary: &mut Vec<RawBlock<'s>>, f: &mut dyn FnMut(&mut RawBody<'s>)| {
        for block in primary.iter_mut().filter(|b| b.ident == "terraform") {
            f(&mut block.body);
        }
    };
    for item in over.body.items {
        match item {
            RawItem::Attr(a) => {
                others(primary, &mut |body| remove_attrs(body, &a.name));
                primary[target].body.items.push(RawItem::Attr(a));
            }
            RawItem::Block(b) if b.ident == "required_providers" => {
                for entry in b.body.attrs() {
                    others(primary, &mut |body| {
                        for rp in body.items.iter_mut() {
                            if let RawItem::Block(rp) = rp
                                && rp.ident == "required_providers"
                            {
                                remove_attrs(&mut rp.body, &entry.name);
                            }
                        }
                    });
                }
                let body = &mut primary[target].body;
                match body.items.iter_mut().find_map(|i| match i {
                    RawItem::Block(rp) if rp.ident == "required_providers" => Some(rp),
                    _ => None,
                }) {
                    Some(rp) => rp.body.items.extend(b.body.items),
                    None => body.items.push(RawItem::Block(b)),
                }
            }
            RawItem::Block(b) if b.ident == "backend" || b.ident == "cloud" => {
                others(primary, &mut |body| {
                    body.items.retain(|i| {
                        !matches!(i, RawItem::Block(x) if x.ident == "backend" || x.ident == "cloud")
                    })
                });
                primary[target].body.items.push(RawItem::Block(b));
            }
            RawItem::Block(b) => primary[target].body.items.push(RawItem::Block(b)),
        }
    }
}
