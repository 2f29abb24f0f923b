//! Condition blocks (`validation`, `precondition`, `postcondition`, `assert`), `output` blocks (with
//! `depends_on` and preconditions) and `check` blocks lowered into the model.
//!
//! Nothing here evaluates an expression: a condition is evaluated where its block is checked (variable
//! resolution, the lint, the plan, the apply).

use super::raw::{RawBlock, RawItem};
use super::value::Mode;
use super::{Parser, Refusal};
use crate::config::Output;
use crate::config::conditions::{Check, Condition, ConditionKind};
use crate::config::expr::{ExprKind, Loc, Step};

impl<'a> Parser<'a> {
    /// A block of `condition` and `error_message`, both required.
    pub(super) fn condition(&mut self, b: &RawBlock<'a>, kind: ConditionKind) -> Option<Condition> {
        let what = kind.as_str();
        let raw = self.flat_body(&b.body, &["condition", "error_message"], what);
        let (mut condition, mut error_message) = (None, None);
        for a in raw {
            let attr = self.attr(a)?;
            match attr.name.as_str() {
                "condition" => condition = Some(attr.expr),
                _ => error_message = Some(attr.expr),
            }
        }
        let missing = match (&condition, &error_message) {
            (None, _) => Some("condition"),
            (_, None) => Some("error_message"),
            _ => None,
        };
        if let Some(arg) = missing {
            self.refuse(Refusal::MissingArgument,
                &b.loc,
                format!("`{what}` block has no `{arg}`"),
                "a condition block needs `condition = <bool expression>` and `error_message = \"...\"`",
            );
            return None;
        }
        Some(Condition {
            kind,
            condition: condition?,
            error_message: error_message?,
            loc: b.loc.clone(),
        })
    }

    /// The body of an `output` block; `None` when it has no `value` or its name is refused.
    pub(super) fn output(
        &mut self,
        block: &RawBlock<'a>,
        name: String,
        loc: Loc,
    ) -> Option<Output> {
        if !self.valid_name(&name, &loc, "output") {
            return None;
        }
        let mut value = None;
        let mut out = Output {
            name,
            value: crate::config::Expr {
                kind: ExprKind::Null,
                loc: loc.clone(),
            },
            sensitive: false,
            description: None,
            depends_on: Vec::new(),
            preconditions: Vec::new(),
            loc,
        };
        let mut attrs = Vec::new();
        for item in &block.body.items {
            match item {
                RawItem::Block(b) if b.ident == "precondition" && b.labels.is_empty() => {
                    if let Some(c) = self.condition(b, ConditionKind::Precondition) {
                        out.preconditions.push(c);
                    }
                }
                RawItem::Block(b) => self.refuse(
                    Refusal::UnsupportedBlock,
                    &b.loc,
                    format!("block `{}` is not supported in `output`", b.ident),
                    "an output takes value, description, sensitive, depends_on and `precondition` \
                     blocks",
                ),
                RawItem::Attr(a) => attrs.push(a),
            }
        }
        let body = super::raw::RawBody {
            items: attrs.into_iter().cloned().map(RawItem::Attr).collect(),
        };
        let raw = self.flat_body(
            &body,
            &["value", "sensitive", "description", "depends_on"],
            "output",
        );
        for a in raw {
            match a.name.as_str() {
                "value" => value = self.attr(a).map(|attr| attr.expr),
                "sensitive" => {
                    let attr = self.attr_as(a, Mode::Literal)?;
                    out.sensitive = self.literal_bool(&attr)?;
                }
                "depends_on" => {
                    let attr = self.attr_as(a, Mode::Reference)?;
                    out.depends_on = self.depends_on_list(&attr.expr)?;
                }
                _ => {
                    let attr = self.attr_as(a, Mode::Literal)?;
                    out.description = Some(self.literal_string(&attr)?);
                }
            }
        }
        let Some(value) = value else {
            self.refuse(
                Refusal::MissingArgument,
                &out.loc,
                format!("output `{}` has no `value`", out.name),
                "set `value = ...`",
            );
            return None;
        };
        out.value = value;
        Some(out)
    }

    /// `depends_on = [aws_vpc.main, ...]`: each entry a resource block (or one of its instances).
    pub(super) fn depends_on_list(
        &mut self,
        expr: &crate::config::Expr,
    ) -> Option<Vec<(Vec<String>, Loc)>> {
        let ExprKind::List(items) = &expr.kind else {
            self.refuse(
                Refusal::InvalidValue,
                &expr.loc,
                "`depends_on` must be a list of resource references".into(),
                "write `depends_on = [aws_vpc.main]`",
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match item.as_static_path() {
                // `data.TYPE.NAME`: a data block, read before anything it could wait for.
                Some(path) if path.len() >= 3 && path[0] == "data" => {
                    if names_a_data_attribute(item) {
                        self.refuse(
                            Refusal::InvalidValue,
                            &item.loc,
                            "`depends_on` entries must name a whole data source, not one of its attributes"
                                .into(),
                            &format!("write `depends_on = [data.{}.{}]`", path[1], path[2]),
                        );
                        continue;
                    }
                    out.push((path[..3].to_vec(), item.loc.clone()))
                }
                Some(path) if path.len() >= 2 && path[0] != "var" && path[0] != "local" => {
                    if names_an_attribute(item) {
                        self.refuse(
                            Refusal::InvalidValue,
                            &item.loc,
                            "`depends_on` entries must name a whole resource, not one of its attributes"
                                .into(),
                            &format!("write `depends_on = [{}.{}]`", path[0], path[1]),
                        );
                        continue;
                    }
                    out.push((path[..2].to_vec(), item.loc.clone()))
                }
                _ => self.refuse(
                    Refusal::InvalidValue,
                    &item.loc,
                    "`depends_on` entries must name a resource block".into(),
                    "write `depends_on = [aws_vpc.main]`",
                ),
            }
        }
        Some(out)
    }

    /// `check "name" { assert { ... } }`; a scoped `data` block inside it is refused (liveplan reads no
    /// data sources).
    pub(super) fn check(&mut self, block: &RawBlock<'a>, name: String, loc: Loc) -> Option<Check> {
        if !self.valid_name(&name, &loc, "check") {
            return None;
        }
        let mut check = Check {
            name,
            asserts: Vec::new(),
            loc,
        };
        for item in &block.body.items {
            match item {
                RawItem::Block(b) if b.ident == "assert" && b.labels.is_empty() => {
                    if let Some(c) = self.condition(b, ConditionKind::Assert) {
                        check.asserts.push(c);
                    }
                }
                RawItem::Block(b) if b.ident == "data" => self.unsupported(
                    &b.loc,
                    "a scoped `data` block in a `check` block is not supported".into(),
                    "liveplan reads no data sources; write the assertions over resources, \
                     variables and locals",
                ),
                RawItem::Block(b) => self.refuse(
                    Refusal::UnsupportedBlock,
                    &b.loc,
                    format!("block `{}` is not supported in `check`", b.ident),
                    "a check holds `assert` blocks",
                ),
                RawItem::Attr(a) => self.refuse(
                    Refusal::UnsupportedArgument,
                    &a.loc,
                    format!("argument `{}` is not supported in `check`", a.name),
                    "a check holds `assert` blocks",
                ),
            }
        }
        if check.asserts.is_empty() {
            self.refuse(
                Refusal::MissingBlock,
                &check.loc,
                format!("check `{}` has no `assert` block", check.name),
                "add `assert { condition = ..., error_message = \"...\" }`",
            );
            return None;
        }
        Some(check)
    }
}

/// Whether a `depends_on` entry reads past its resource (`aws_vpc.a.id`): Terraform takes a resource,
/// or one of its instances (`aws_vpc.a[0]`), as a whole only.
/// Whether a `depends_on` entry `data.TYPE.NAME...` goes past the block to one of its attributes.
fn names_a_data_attribute(item: &crate::config::Expr) -> bool {
    let ExprKind::Traversal(_, steps) = &item.kind else {
        return false;
    };
    !matches!(steps.as_slice(), [_, _] | [_, _, Step::Index(_)])
}

fn names_an_attribute(item: &crate::config::Expr) -> bool {
    let ExprKind::Traversal(_, steps) = &item.kind else {
        return false;
    };
    !matches!(steps.as_slice(), [_] | [_, Step::Index(_)])
}
