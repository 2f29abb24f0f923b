//! An attribute's value lowered into an [`Expr`], read the way its argument asks: HCL's native syntax is
//! always an expression, while a JSON value is an expression (strings are templates), a literal (strings
//! taken as they are) or a reference (a string holding `aws_vpc.main`, a keyword or a type), as
//! Terraform's JSON configuration syntax maps each argument.
//!
//! A JSON string is parsed by the same HCL parser as a `.tf` file; its positions are those of the string
//! in the JSON file (every position inside a string with escapes is the string's start). Nothing here
//! evaluates an expression.

use super::Parser;
use super::json::{Json, JsonKind, JsonString};
use super::raw::{RawAttr, RawValue};
use crate::config::Attr;
use crate::config::expr::{Expr, ExprKind, Loc, TemplatePart};
use crate::diag::{Code, Diagnostic};
use crate::value::Number;

/// How a JSON value is read (HCL's native syntax has one reading: an expression).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// An arbitrary expression: a string is a template.
    Expression,
    /// A literal value: a string is taken as it is (`variable` defaults and descriptions, the `terraform`
    /// block).
    Literal,
    /// A string holding an expression written as in HCL: a reference (`depends_on`, `provider`,
    /// `ignore_changes`), a keyword (`all`) or a type constraint (`list(string)`).
    Reference,
}

impl<'a> Parser<'a> {
    /// One attribute as an expression.
    pub(super) fn attr(&mut self, a: &RawAttr<'a>) -> Option<Attr> {
        self.attr_as(a, Mode::Expression)
    }

    /// One attribute, its JSON value read in `mode`.
    pub(super) fn attr_as(&mut self, a: &RawAttr<'a>, mode: Mode) -> Option<Attr> {
        let saved = std::mem::replace(&mut self.map, a.map.clone());
        let expr = match a.value {
            RawValue::Hcl(e) => self.expr(e, &a.loc),
            RawValue::Json(j) => self.json_expr(j, mode),
        };
        self.map = saved;
        Some(Attr {
            name: a.name.clone(),
            expr: expr?,
            loc: a.loc.clone(),
        })
    }

    /// A JSON value as an expression, with a bound on nesting as for HCL.
    fn json_expr(&mut self, j: &Json, mode: Mode) -> Option<Expr> {
        self.nested(
            |p| p.map.loc(j.offset),
            |p| {
                let loc = p.map.loc(j.offset);
                p.json_expr_inner(j, mode, loc)
            },
        )
    }

    fn json_expr_inner(&mut self, j: &Json, mode: Mode, loc: Loc) -> Option<Expr> {
        let kind = match &j.kind {
            JsonKind::Null => ExprKind::Null,
            JsonKind::Bool(b) => ExprKind::Bool(*b),
            JsonKind::Number(n) => match Number::from_f64(*n) {
                Some(n) => ExprKind::Number(n),
                None => {
                    self.number_out_of_range(&loc);
                    return None;
                }
            },
            JsonKind::String(s) => match mode {
                Mode::Literal => ExprKind::String(s.value.clone()),
                Mode::Expression => return self.json_template(s, j.offset),
                Mode::Reference => return self.json_hcl(s, j.offset),
            },
            JsonKind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.json_expr(item, mode)?);
                }
                ExprKind::List(out)
            }
            JsonKind::Object(props) => {
                let mut out = Vec::with_capacity(props.len());
                for prop in props {
                    let key_loc = self.map.loc(prop.key_offset);
                    let key = match mode {
                        // In an expression, a property name is a template too.
                        Mode::Expression => {
                            let name = JsonString {
                                value: prop.key.clone(),
                                verbatim: false,
                            };
                            self.json_template(&name, prop.key_offset)?
                        }
                        _ => Expr {
                            kind: ExprKind::String(prop.key.clone()),
                            loc: key_loc,
                        },
                    };
                    out.push((key, self.json_expr(&prop.value, mode)?));
                }
                ExprKind::Object(out)
            }
        };
        Some(Expr { kind, loc })
    }

    /// A JSON string read as a template; a template of one interpolation and nothing else is that
    /// interpolation's value, not its text, as in Terraform's JSON syntax.
    fn json_template(&mut self, s: &JsonString, offset: usize) -> Option<Expr> {
        let loc = self.map.loc(offset);
        if !s.value.contains("${") && !s.value.contains("%{") {
            return Some(Expr {
                kind: ExprKind::String(s.value.clone()),
                loc,
            });
        }
        let kind = self.inside_string(s, offset, hcl_edit::parser::parse_template, |p, t| {
            p.template(t, &loc)
        })?;
        match kind {
            ExprKind::Template(mut parts)
                if parts.len() == 1 && matches!(parts[0], TemplatePart::Interpolation(_)) =>
            {
                match parts.pop() {
                    Some(TemplatePart::Interpolation(e)) => Some(e),
                    _ => None,
                }
            }
            kind => Some(Expr { kind, loc }),
        }
    }

    /// A JSON string holding an expression in HCL's syntax.
    fn json_hcl(&mut self, s: &JsonString, offset: usize) -> Option<Expr> {
        let loc = self.map.loc(offset);
        self.inside_string(s, offset, hcl_edit::parser::parse_expr, |p, e| {
            p.expr(e, &loc)
        })
    }

    /// Parses the JSON string `s` (whose quote is at `offset`) with `parse` and lowers the tree with
    /// `lower`, positions mapped into the string; a parse error is reported where it is.
    fn inside_string<T, U>(
        &mut self,
        s: &JsonString,
        offset: usize,
        parse: fn(&str) -> Result<T, hcl_edit::parser::Error>,
        lower: impl FnOnce(&mut Self, &T) -> Option<U>,
    ) -> Option<U> {
        let tree = match parse(&s.value) {
            Ok(tree) => tree,
            Err(err) => {
                self.json_syntax_error(s, offset, &err);
                return None;
            }
        };
        let view = self.map.inside_string(offset, s.verbatim);
        let saved = std::mem::replace(&mut self.map, view);
        let out = lower(self, &tree);
        self.map = saved;
        out
    }

    /// A string of a JSON file whose expression does not parse, reported where the string is.
    fn json_syntax_error(&mut self, s: &JsonString, offset: usize, err: &hcl_edit::parser::Error) {
        let loc = if s.verbatim {
            // The error's line and column are inside the string's value, which is its text in the file.
            let line_offset: usize = s
                .value
                .split_inclusive('\n')
                .take(err.location().line().saturating_sub(1))
                .map(str::len)
                .sum();
            let column_offset: usize = s.value[line_offset..]
                .chars()
                .take(err.location().column().saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            self.map.loc(offset + 1 + line_offset + column_offset)
        } else {
            self.map.loc(offset)
        };
        self.diags.push(
            Diagnostic::new(
                Code::ConfigSyntax,
                format!("invalid expression in a JSON string: {}", err.message()),
                "fix the expression at the position shown",
            )
            .at(loc.to_pos()),
        );
    }
}
