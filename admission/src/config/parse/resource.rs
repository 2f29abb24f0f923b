//! Resource and variable blocks lowered into the model: a resource's meta-arguments (`count`,
//! `for_each`, `depends_on`), its `lifecycle` block and its arguments; a variable's type constraint,
//! default, description and sensitivity.
//!
//! Nothing here evaluates an expression: `count`, `for_each` and the arguments stay expressions for the
//! lint and the evaluator.

use std::collections::BTreeMap;

use super::Parser;
use super::nested::BlockGroups;
use super::raw::{RawBlock, RawItem};
use super::value::Mode;
use crate::config::expr::{Expr, ExprKind, Loc};
use crate::config::{Attr, IgnoreChanges, Lifecycle, ProviderRef, Repetition, Resource, Variable};
use crate::value::Type;

/// The meta-arguments and nested blocks Terraform accepts on a resource that this subset does not.
const UNSUPPORTED_RESOURCE_META: &[&str] = &["connection", "provisioner"];

impl<'a> Parser<'a> {
    /// The body of a `variable` block; `None` when its type, description or sensitivity is refused.
    pub(super) fn variable(
        &mut self,
        block: &RawBlock<'a>,
        name: String,
        loc: Loc,
    ) -> Option<Variable> {
        let raw = self.flat_body(
            &block.body,
            &["type", "default", "description", "sensitive"],
            "variable",
        );
        let mut var = Variable {
            name,
            var_type: Type::Any,
            default: None,
            description: None,
            sensitive: false,
            loc,
        };
        for a in raw {
            // In JSON, `type` is a string holding a type and every other argument a literal value.
            let mode = if a.name == "type" {
                Mode::Reference
            } else {
                Mode::Literal
            };
            let attr = self.attr_as(a, mode)?;
            match attr.name.as_str() {
                "type" => var.var_type = self.type_constraint(&attr.expr)?,
                "default" => var.default = Some(attr.expr),
                "description" => var.description = Some(self.literal_string(&attr)?),
                _ => var.sensitive = self.literal_bool(&attr)?,
            }
        }
        Some(var)
    }

    /// A variable's `type`, written as Terraform writes type constraints.
    fn type_constraint(&mut self, expr: &Expr) -> Option<Type> {
        let bad = |p: &mut Self, what: String| {
            p.unsupported(
                &expr.loc,
                what,
                "use string, number, bool, any, list(T), set(T), map(T), object({...}) or tuple([...])",
            );
            None
        };
        match &expr.kind {
            ExprKind::Variable(name) => match name.as_str() {
                "string" => Some(Type::String),
                "number" => Some(Type::Number),
                "bool" => Some(Type::Bool),
                "any" => Some(Type::Any),
                "list" => Some(Type::List(Box::new(Type::Any))),
                "set" => Some(Type::Set(Box::new(Type::Any))),
                "map" => Some(Type::Map(Box::new(Type::Any))),
                other => bad(self, format!("unknown type `{other}`")),
            },
            ExprKind::Call {
                name,
                args,
                expand: false,
            } if args.len() == 1 => {
                let arg = &args[0];
                match name.as_str() {
                    "list" => Some(Type::List(Box::new(self.type_constraint(arg)?))),
                    "set" => Some(Type::Set(Box::new(self.type_constraint(arg)?))),
                    "map" => Some(Type::Map(Box::new(self.type_constraint(arg)?))),
                    "object" => {
                        let ExprKind::Object(items) = &arg.kind else {
                            return bad(self, "object() takes an object of attribute types".into());
                        };
                        let mut fields = std::collections::BTreeMap::new();
                        for (k, v) in items {
                            let key = match &k.kind {
                                ExprKind::String(s) => s.clone(),
                                ExprKind::Variable(s) => s.clone(),
                                _ => {
                                    return bad(
                                        self,
                                        "object() attribute names must be literal".into(),
                                    );
                                }
                            };
                            fields.insert(key, self.type_constraint(v)?);
                        }
                        Some(Type::Object(fields))
                    }
                    "tuple" => {
                        let ExprKind::List(items) = &arg.kind else {
                            return bad(self, "tuple() takes a list of element types".into());
                        };
                        let mut types = Vec::new();
                        for item in items {
                            types.push(self.type_constraint(item)?);
                        }
                        Some(Type::Tuple(types))
                    }
                    other => bad(self, format!("unknown type constructor `{other}`")),
                }
            }
            _ => bad(self, "invalid type constraint".into()),
        }
    }

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
                        self.unsupported(
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
                            let ExprKind::List(items) = &attr.expr.kind else {
                                self.unsupported(
                                    &attr.expr.loc,
                                    "`depends_on` must be a list of resource references".into(),
                                    "write `depends_on = [aws_vpc.main]`",
                                );
                                continue;
                            };
                            for item in items {
                                match item.as_static_path() {
                                    Some(path) if path.len() == 2 => {
                                        res.depends_on.push((path, item.loc.clone()))
                                    }
                                    _ => self.unsupported(
                                        &item.loc,
                                        "`depends_on` entries must name a resource block".into(),
                                        "write `depends_on = [aws_vpc.main]`",
                                    ),
                                }
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
                        self.unsupported(
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
                self.unsupported(
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
                self.unsupported(
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
                self.unsupported(
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

    /// The body of a `lifecycle` block.
    fn lifecycle(&mut self, block: &RawBlock<'a>) -> Lifecycle {
        let raw = self.flat_body(
            &block.body,
            &["create_before_destroy", "prevent_destroy", "ignore_changes"],
            "lifecycle",
        );
        let mut lc = Lifecycle::default();
        for a in raw {
            // In JSON, `ignore_changes` holds references (or the keyword `all`) written as strings.
            let mode = if a.name == "ignore_changes" {
                Mode::Reference
            } else {
                Mode::Literal
            };
            let Some(attr) = self.attr_as(a, mode) else {
                continue;
            };
            match attr.name.as_str() {
                "create_before_destroy" => {
                    lc.create_before_destroy = self.literal_bool(&attr).unwrap_or(false)
                }
                "prevent_destroy" => lc.prevent_destroy = self.literal_bool(&attr).unwrap_or(false),
                _ => {
                    lc.ignore_changes = match &attr.expr.kind {
                        ExprKind::Variable(v) if v == "all" => {
                            IgnoreChanges::All(attr.expr.loc.clone())
                        }
                        ExprKind::List(items) => {
                            let mut paths = Vec::new();
                            for item in items {
                                match item.as_static_path() {
                                    Some(p) => paths.push((p, item.loc.clone())),
                                    None => self.unsupported(
                                        &item.loc,
                                        "`ignore_changes` entries must be attribute paths".into(),
                                        "write `ignore_changes = [tags[\"Name\"]]`",
                                    ),
                                }
                            }
                            IgnoreChanges::Paths(paths)
                        }
                        _ => {
                            self.unsupported(
                                &attr.expr.loc,
                                "`ignore_changes` must be `all` or a list of attribute paths"
                                    .into(),
                                "write `ignore_changes = [tags[\"Name\"]]`",
                            );
                            IgnoreChanges::None
                        }
                    }
                }
            }
        }
        lc
    }
}
