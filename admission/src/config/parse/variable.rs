//! `variable` blocks lowered into the model: the name checked as Terraform checks it, the type constraint
//! (`optional(T, default)` attributes included), the default, `description`, `sensitive`, `nullable` and
//! the `validation` blocks.
//!
//! Nothing here evaluates an expression: defaults and conditions stay expressions for the variable
//! resolution ([`crate::config::resolve_variables`]).

use std::collections::BTreeMap;

use super::raw::{RawBlock, RawItem};
use super::value::Mode;
use super::{Parser, Refusal};
use crate::config::Variable;
use crate::config::conditions::ConditionKind;
use crate::config::expr::{Expr, ExprKind, Loc};
use crate::config::types::{ObjectAttribute, TypeConstraint};
use crate::diag::{Code, Diagnostic};

/// The names a variable may not have: Terraform keeps them for the arguments of a `module` block.
pub const RESERVED_VARIABLE_NAMES: &[&str] = &[
    "count",
    "depends_on",
    "for_each",
    "lifecycle",
    "locals",
    "providers",
    "source",
    "version",
];

/// Whether `name` is an identifier as HCL defines one: a letter or `_`, then letters, digits, `_` and `-`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

const TYPE_HINT: &str = "use string, number, bool, any, list(T), set(T), map(T), object({...}) with \
                         optional(T, default) attributes, or tuple([...])";

impl<'a> Parser<'a> {
    /// Reports a block name that is not an identifier (`what` names the block kind); true when it is one.
    pub(super) fn valid_name(&mut self, name: &str, loc: &Loc, what: &str) -> bool {
        if is_identifier(name) {
            return true;
        }
        self.diags.push(
            Diagnostic::new(
                Code::InvalidName,
                format!("invalid {what} name `{name}`"),
                "a name must start with a letter or underscore and may contain only letters, digits, \
                 underscores and dashes",
            )
            .at(loc.to_pos()),
        );
        false
    }

    /// The body of a `variable` block; `None` when its name, type, description or sensitivity is refused.
    pub(super) fn variable(
        &mut self,
        block: &RawBlock<'a>,
        name: String,
        loc: Loc,
    ) -> Option<Variable> {
        if !self.valid_name(&name, &loc, "variable") {
            return None;
        }
        if RESERVED_VARIABLE_NAMES.contains(&name.as_str()) {
            self.diags.push(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("invalid variable name `{name}`"),
                    format!(
                        "the name `{name}` is reserved for the arguments of a module call; choose \
                         another name"
                    ),
                )
                .at(loc.to_pos()),
            );
            return None;
        }
        let mut var = Variable {
            name,
            var_type: TypeConstraint::Any,
            default: None,
            description: None,
            sensitive: false,
            nullable: true,
            validations: Vec::new(),
            loc,
        };
        let mut ok = true;
        let mut seen: Vec<&str> = Vec::new();
        for item in &block.body.items {
            let a = match item {
                RawItem::Block(b) if b.ident == "validation" && b.labels.is_empty() => {
                    match self.condition(b, ConditionKind::Validation) {
                        Some(c) => var.validations.push(c),
                        None => ok = false,
                    }
                    continue;
                }
                RawItem::Block(b) => {
                    self.refuse(
                        Refusal::UnsupportedBlock,
                        &b.loc,
                        format!("`variable` has no block type `{}`", b.ident),
                        "a variable takes type, default, description, sensitive, nullable and \
                         `validation` blocks",
                    );
                    continue;
                }
                RawItem::Attr(a) => a,
            };
            let key = a.name.as_str();
            if !["type", "default", "description", "sensitive", "nullable"].contains(&key) {
                self.unexpected_argument(
                    &a.loc,
                    key,
                    "variable",
                    "the arguments of `variable` are: type, default, description, sensitive, nullable",
                );
                continue;
            }
            if seen.contains(&key) {
                self.refuse(
                    Refusal::DuplicateArgument,
                    &a.loc,
                    format!("argument `{key}` is set twice"),
                    "set it once",
                );
                continue;
            }
            seen.push(key);
            // In JSON, `type` is a string holding a type and every other argument a literal value.
            let mode = if key == "type" {
                Mode::Reference
            } else {
                Mode::Literal
            };
            let Some(attr) = self.attr_as(a, mode) else {
                ok = false;
                continue;
            };
            let read = match key {
                "type" => self.type_constraint(&attr.expr).map(|t| var.var_type = t),
                "default" => {
                    var.default = Some(attr.expr);
                    Some(())
                }
                "description" => self
                    .literal_string(&attr)
                    .map(|d| var.description = Some(d)),
                "sensitive" => self.literal_bool(&attr).map(|b| var.sensitive = b),
                _ => self.literal_bool(&attr).map(|b| var.nullable = b),
            };
            ok &= read.is_some();
        }
        ok.then_some(var)
    }

    /// A variable's `type`, written as Terraform writes type constraints.
    pub(super) fn type_constraint(&mut self, expr: &Expr) -> Option<TypeConstraint> {
        let bad = |p: &mut Self, what: String| {
            p.refuse(Refusal::InvalidType, &expr.loc, what, TYPE_HINT);
            None
        };
        let (name, args) = match &expr.kind {
            ExprKind::Variable(name) => {
                return match name.as_str() {
                    "string" => Some(TypeConstraint::String),
                    "number" => Some(TypeConstraint::Number),
                    "bool" => Some(TypeConstraint::Bool),
                    "any" => Some(TypeConstraint::Any),
                    "list" => Some(TypeConstraint::List(Box::new(TypeConstraint::Any))),
                    "set" => Some(TypeConstraint::Set(Box::new(TypeConstraint::Any))),
                    "map" => Some(TypeConstraint::Map(Box::new(TypeConstraint::Any))),
                    other => bad(self, format!("unknown type `{other}`")),
                };
            }
            ExprKind::Call {
                name,
                args,
                expand: false,
            } => (name.as_str(), args),
            ExprKind::String(s) => {
                return bad(
                    self,
                    format!(
                        "quoted type constraints are not allowed: remove the quotes and write `{s}`"
                    ),
                );
            }
            _ => return bad(self, "invalid type constraint".into()),
        };
        if name == "optional" {
            return bad(
                self,
                "`optional(...)` is allowed only for an attribute of an object type".into(),
            );
        }
        let [arg] = args.as_slice() else {
            return bad(self, format!("`{name}(...)` takes exactly one argument"));
        };
        match name {
            "list" => Some(TypeConstraint::List(Box::new(self.type_constraint(arg)?))),
            "set" => Some(TypeConstraint::Set(Box::new(self.type_constraint(arg)?))),
            "map" => Some(TypeConstraint::Map(Box::new(self.type_constraint(arg)?))),
            "object" => {
                let ExprKind::Object(items) = &arg.kind else {
                    return bad(self, "object() takes an object of attribute types".into());
                };
                let mut fields = BTreeMap::new();
                for (k, v) in items {
                    let key = match &k.kind {
                        ExprKind::String(s) | ExprKind::Variable(s) => s.clone(),
                        _ => return bad(self, "object() attribute names must be literal".into()),
                    };
                    let attr = self.object_attribute(v)?;
                    fields.insert(key, attr);
                }
                Some(TypeConstraint::Object(fields))
            }
            "tuple" => {
                let ExprKind::List(items) = &arg.kind else {
                    return bad(self, "tuple() takes a list of element types".into());
                };
                let mut types = Vec::new();
                for item in items {
                    types.push(self.type_constraint(item)?);
                }
                Some(TypeConstraint::Tuple(types))
            }
            other => bad(self, format!("unknown type constructor `{other}`")),
        }
    }

    /// One attribute type of `object({...})`: a type, `optional(T)` or `optional(T, default)`.
    fn object_attribute(&mut self, expr: &Expr) -> Option<ObjectAttribute> {
        let ExprKind::Call {
            name,
            args,
            expand: false,
        } = &expr.kind
        else {
            return Some(ObjectAttribute {
                ty: self.type_constraint(expr)?,
                optional: false,
                default: None,
            });
        };
        if name != "optional" {
            return Some(ObjectAttribute {
                ty: self.type_constraint(expr)?,
                optional: false,
                default: None,
            });
        }
        match args.as_slice() {
            [ty] => Some(ObjectAttribute {
                ty: self.type_constraint(ty)?,
                optional: true,
                default: None,
            }),
            [ty, default] => Some(ObjectAttribute {
                ty: self.type_constraint(ty)?,
                optional: true,
                default: Some(default.clone()),
            }),
            _ => {
                self.refuse(
                    Refusal::InvalidType,
                    &expr.loc,
                    "`optional(...)` takes a type and an optional default".into(),
                    "write `optional(string)` or `optional(string, \"default\")`",
                );
                None
            }
        }
    }
}
