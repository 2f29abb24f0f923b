//! The block structure of one file, whichever its syntax: blocks with their labels and bodies, and
//! attributes whose expressions are still the parser's (an HCL expression, or a JSON value read the way
//! its argument asks). Override files merge at this level, block by block and attribute by attribute,
//! before anything is lowered into the model.
//!
//! HCL's native syntax says which items are blocks; the JSON syntax does not, so a JSON body is split by
//! the nested block types Terraform's schema gives each block ([`nested_blocks`]), and every other
//! property is an attribute. Nothing here lowers or evaluates an expression.

use hcl_edit::Span;
use hcl_edit::expr as hx;
use hcl_edit::structure::{BlockLabel, Body, Structure};

use super::SourceMap;
use super::json::{Json, JsonKind, JsonProperty};
use crate::config::expr::Loc;
use crate::diag::{Code, Diagnostic};

/// An attribute's expression as its file holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RawValue<'s> {
    /// HCL's native syntax.
    Hcl(&'s hx::Expression),
    /// HCL's JSON syntax: read as an expression, a literal or a reference, as the argument asks.
    Json(&'s Json),
}

/// `name = value`, with the map of the file it is written in.
#[derive(Debug, Clone)]
pub(crate) struct RawAttr<'s> {
    pub name: String,
    pub value: RawValue<'s>,
    pub loc: Loc,
    pub map: &'s SourceMap,
}

/// `ident "label"... { body }`.
#[derive(Debug, Clone)]
pub(crate) struct RawBlock<'s> {
    pub ident: String,
    pub labels: Vec<String>,
    pub body: RawBody<'s>,
    pub loc: Loc,
}

/// A body's attributes and blocks, in the order written.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawBody<'s> {
    pub items: Vec<RawItem<'s>>,
}

/// One item of a body.
#[derive(Debug, Clone)]
pub(crate) enum RawItem<'s> {
    Attr(RawAttr<'s>),
    Block(RawBlock<'s>),
}

impl<'s> RawBody<'s> {
    /// The attributes, in order.
    pub fn attrs(&self) -> impl Iterator<Item = &RawAttr<'s>> {
        self.items.iter().filter_map(|i| match i {
            RawItem::Attr(a) => Some(a),
            RawItem::Block(_) => None,
        })
    }

    /// The attribute `name`, if set.
    pub fn attr(&self, name: &str) -> Option<&RawAttr<'s>> {
        self.attrs().find(|a| a.name == name)
    }
}

/// The top level of one file: its blocks, and the attributes written outside any block (which only HCL's
/// native syntax can write, and the lowering refuses).
#[derive(Debug, Clone, Default)]
pub(crate) struct RawFile<'s> {
    pub blocks: Vec<RawBlock<'s>>,
    pub attrs: Vec<RawAttr<'s>>,
}

/// The labels each top-level block type takes, for the JSON syntax, which writes labels as nested
/// objects. A type not listed takes none.
fn top_level_labels(ident: &str) -> usize {
    match ident {
        "resource" | "data" | "ephemeral" => 2,
        "module" | "provider" | "variable" | "output" | "check" => 1,
        _ => 0,
    }
}

/// The nested block types (with their label counts) a block of type `ident` holds: in the JSON syntax a
/// property of one of these names is a block, any other an attribute.
pub(crate) fn nested_blocks(ident: &str) -> &'static [(&'static str, usize)] {
    match ident {
        "resource" | "data" => &[
            ("lifecycle", 0),
            ("provisioner", 1),
            ("connection", 0),
            ("dynamic", 1),
        ],
        "lifecycle" | "output" => &[("precondition", 0), ("postcondition", 0)],
        "provisioner" => &[("connection", 0)],
        "variable" => &[("validation", 0)],
        "provider" => &[
            ("assume_role", 0),
            ("assume_role_with_web_identity", 0),
            ("default_tags", 0),
            ("ignore_tags", 0),
            ("endpoints", 0),
        ],
        "terraform" => &[
            ("required_providers", 0),
            ("backend", 1),
            ("cloud", 0),
            ("provider_meta", 1),
            ("encryption", 0),
        ],
        "cloud" => &[("workspaces", 0)],
        // A resource's own nested blocks are arguments in JSON (only its schema tells them apart); the
        // `dynamic` blocks that generate them, and their `content`, are blocks.
        "dynamic" => &[("content", 0)],
        "content" => &[("dynamic", 1)],
        "live" => &[("record_store", 1)],
        "check" => &[("data", 2), ("assert", 0)],
        _ => &[],
    }
}

/// The structure of one file in HCL's native syntax.
pub(crate) fn from_hcl<'s>(body: &'s Body, map: &'s SourceMap) -> RawFile<'s> {
    let top = map.loc(0);
    let mut file = RawFile::default();
    for item in hcl_items(body, map, &top).items {
        match item {
            RawItem::Attr(a) => file.attrs.push(a),
            RawItem::Block(b) => file.blocks.push(b),
        }
    }
    file
}

fn hcl_items<'s>(body: &'s Body, map: &'s SourceMap, parent: &Loc) -> RawBody<'s> {
    let items = body
        .iter()
        .map(|structure| match structure {
            Structure::Attribute(a) => RawItem::Attr(RawAttr {
                name: a.key.as_str().to_owned(),
                value: RawValue::Hcl(&a.value),
                loc: map.loc_of(a.span(), parent),
                map,
            }),
            Structure::Block(b) => {
                let loc = map.loc_of(b.span(), parent);
                RawItem::Block(RawBlock {
                    ident: b.ident.as_str().to_owned(),
                    labels: b
                        .labels
                        .iter()
                        .map(|l| match l {
                            BlockLabel::Ident(i) => i.as_str().to_owned(),
                            BlockLabel::String(s) => s.as_str().to_owned(),
                        })
                        .collect(),
                    body: hcl_items(&b.body, map, &loc),
                    loc,
                })
            }
        })
        .collect();
    RawBody { items }
}

/// The structure of one file in HCL's JSON syntax: the root object's properties are top-level block
/// types (`"//"` is a comment), each holding one nested object per label and then the body.
pub(crate) fn from_json<'s>(
    root: &'s Json,
    map: &'s SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> RawFile<'s> {
    let mut file = RawFile::default();
    let mut cx = JsonBlocks { map, diags };
    let JsonKind::Object(props) = &root.kind else {
        cx.refuse(
            root.offset,
            "the file must hold one JSON object of top-level blocks",
        );
        return file;
    };
    for prop in props.iter().filter(|p| p.key != "//") {
        if prop.key == "locals" {
            // Each locals object is a body of attributes, and nothing else.
            cx.bodies(
                &prop.key,
                &[],
                &prop.value,
                prop.key_offset,
                &mut file.blocks,
            );
            continue;
        }
        let mut labels = Vec::new();
        cx.labelled(
            &prop.key,
            top_level_labels(&prop.key),
            &mut labels,
            &prop.value,
            prop.key_offset,
            &mut file.blocks,
        );
    }
    file
}

/// Splits JSON values into blocks, reporting shapes the syntax does not allow.
struct JsonBlocks<'s, 'd> {
    map: &'s SourceMap,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'s> JsonBlocks<'s, '_> {
    fn refuse(&mut self, offset: usize, summary: &str) {
        self.diags.push(
            Diagnostic::new(
                Code::ConfigSyntax,
                format!("invalid JSON configuration: {summary}"),
                "write the block as Terraform's JSON configuration syntax does: one nested object per \
                 label, then an object (or an array of objects) for the body",
            )
            .at(self.map.loc(offset).to_pos()),
        );
    }

    /// The blocks of type `ident` in `value`, which still holds `remaining` levels of labels.
    fn labelled(
        &mut self,
        ident: &str,
        remaining: usize,
        labels: &mut Vec<String>,
        value: &'s Json,
        offset: usize,
        out: &mut Vec<RawBlock<'s>>,
    ) {
        if remaining == 0 {
            self.bodies(ident, labels, value, offset, out);
            return;
        }
        match &value.kind {
            JsonKind::Object(props) => {
                for prop in props {
                    labels.push(prop.key.clone());
                    self.labelled(
                        ident,
                        remaining - 1,
                        labels,
                        &prop.value,
                        prop.key_offset,
                        out,
                    );
                    labels.pop();
                }
            }
            JsonKind::Array(items) => {
                for item in items {
                    if matches!(item.kind, JsonKind::Object(_)) {
                        self.labelled(ident, remaining, labels, item, item.offset, out);
                    } else {
                        self.refuse(
                            item.offset,
                            &format!("expected an object of `{ident}` labels"),
                        );
                    }
                }
            }
            _ => self.refuse(
                value.offset,
                &format!("expected an object of `{ident}` labels"),
            ),
        }
    }

    /// One block per body in `value`: an object is one body, an array of objects one block each.
    fn bodies(
        &mut self,
        ident: &str,
        labels: &[String],
        value: &'s Json,
        offset: usize,
        out: &mut Vec<RawBlock<'s>>,
    ) {
        match &value.kind {
            JsonKind::Object(props) => out.push(RawBlock {
                ident: ident.to_owned(),
                labels: labels.to_vec(),
                body: self.body(ident, props),
                loc: self.map.loc(offset),
            }),
            JsonKind::Array(items) => {
                for item in items {
                    if let JsonKind::Object(props) = &item.kind {
                        out.push(RawBlock {
                            ident: ident.to_owned(),
                            labels: labels.to_vec(),
                            body: self.body(ident, props),
                            loc: self.map.loc(item.offset),
                        });
                    } else {
                        self.refuse(
                            item.offset,
                            &format!("expected an object for a `{ident}` body"),
                        );
                    }
                }
            }
            _ => self.refuse(
                value.offset,
                &format!("expected an object for a `{ident}` body"),
            ),
        }
    }

    /// A block body: the nested block types of `ident` are blocks, `"//"` a comment, the rest attributes.
    fn body(&mut self, ident: &str, props: &'s [JsonProperty]) -> RawBody<'s> {
        let nested = if ident == "locals" {
            &[][..]
        } else {
            nested_blocks(ident)
        };
        let mut body = RawBody::default();
        for prop in props.iter().filter(|p| p.key != "//") {
            if let Some((name, labels)) = nested.iter().find(|(n, _)| *n == prop.key) {
                let mut blocks = Vec::new();
                self.labelled(
                    name,
                    *labels,
                    &mut Vec::new(),
                    &prop.value,
                    prop.key_offset,
                    &mut blocks,
                );
                body.items.extend(blocks.into_iter().map(RawItem::Block));
            } else {
                body.items.push(RawItem::Attr(RawAttr {
                    name: prop.key.clone(),
                    value: RawValue::Json(&prop.value),
                    loc: self.map.loc(prop.key_offset),
                    map: self.map,
                }));
            }
        }
        body
    }
}
