//! Expressions: the `hcl-edit` expression tree lowered into [`Expr`], one family at a time (literals,
//! operators, collections, traversals and calls, templates), with a bound on nesting depth.
//!
//! Lowering keeps every node's position and refuses what the subset lacks; it never evaluates.

use hcl_edit::Span;
use hcl_edit::expr as hx;
use hcl_edit::template as ht;

use super::{MAX_EXPR_DEPTH, Parser, heredoc};
use crate::config::expr::{BinaryOp, Expr, ExprKind, ForExpr, Loc, Step, TemplatePart, UnaryOp};
use crate::diag::{Code, Diagnostic};
use crate::value::Number;

/// A number literal as written, read at Terraform's precision (the parser's own value is a 64-bit float);
/// `None` past the supported range.
fn literal_number(
    n: &hcl_edit::Formatted<hcl_edit::Number>,
    original: Option<&str>,
) -> Option<Number> {
    // The text as written (a literal past a float was shielded before parsing: see `big_numbers`).
    if let Some(text) = original.or_else(|| n.as_repr().map(|r| &**r)) {
        // A negative literal is written `-` then the number, possibly with blanks between.
        let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if let Ok(parsed) = text.parse() {
            return Some(parsed);
        }
    }
    let v = n.value();
    v.as_i64()
        .map(Number::from)
        .or_else(|| v.as_u64().map(Number::from))
        .or_else(|| v.as_f64().and_then(Number::from_f64))
}

impl Parser<'_> {
    /// Lowers one expression; reports and returns `None` for anything outside the subset.
    pub(crate) fn expr(&mut self, e: &hx::Expression, parent: &Loc) -> Option<Expr> {
        self.nested(
            |p| p.map.loc_of(e.span(), parent),
            |p| p.expr_inner(e, parent),
        )
    }

    /// Runs `lower` one level deeper, refusing an expression nested deeper than [`MAX_EXPR_DEPTH`]
    /// (reported where `loc` says; worked out only then).
    pub(super) fn nested(
        &mut self,
        loc: impl FnOnce(&Self) -> Loc,
        lower: impl FnOnce(&mut Self) -> Option<Expr>,
    ) -> Option<Expr> {
        if self.depth >= MAX_EXPR_DEPTH {
            let loc = loc(self);
            self.diags.push(
                Diagnostic::new(
                    Code::InvalidExpression,
                    "Expression too complex: expression nested too deeply",
                    "split it into locals",
                )
                .at(loc.to_pos()),
            );
            return None;
        }
        self.depth += 1;
        let out = lower(self);
        self.depth -= 1;
        out
    }

    /// Lowers one expression below the depth check, by its family.
    fn expr_inner(&mut self, e: &hx::Expression, parent: &Loc) -> Option<Expr> {
        let loc = self.map.loc_of(e.span(), parent);
        let kind = match e {
            hx::Expression::Null(_) => ExprKind::Null,
            hx::Expression::Bool(b) => ExprKind::Bool(*b.value()),
            hx::Expression::Number(n) => match literal_number(
                n,
                e.span()
                    .and_then(|r| self.map.text_of(r))
                    .and_then(super::big_numbers::literal_text),
            ) {
                Some(n) => ExprKind::Number(n),
                None => {
                    self.number_out_of_range(&loc);
                    return None;
                }
            },
            hx::Expression::String(s) => ExprKind::String(s.value().clone()),
            hx::Expression::Variable(v) => ExprKind::Variable(v.as_str().to_string()),
            hx::Expression::Parenthesis(p) => return self.expr(p.inner(), &loc),
            hx::Expression::Array(items) => self.list(items, &loc)?,
            hx::Expression::Object(obj) => self.object(obj, &loc)?,
            hx::Expression::ForExpr(f) => self.for_expr(f, &loc)?,
            hx::Expression::StringTemplate(t) => self.template(t, &loc)?,
            hx::Expression::HeredocTemplate(h) => self.heredoc(h, &loc)?,
            hx::Expression::Conditional(c) => self.conditional(c, &loc)?,
            hx::Expression::UnaryOp(u) => self.unary(u, &loc)?,
            hx::Expression::BinaryOp(b) => self.binary(b, &loc)?,
            hx::Expression::FuncCall(call) => self.call(call, &loc)?,
            hx::Expression::Traversal(t) => self.traversal(t, &loc)?,
        };
        Some(Expr { kind, loc })
    }

    // Operators.

    /// `cond ? a : b`.
    fn conditional(&mut self, c: &hx::Conditional, loc: &Loc) -> Option<ExprKind> {
        Some(ExprKind::Conditional(
            Box::new(self.expr(&c.cond_expr, loc)?),
            Box::new(self.expr(&c.true_expr, loc)?),
            Box::new(self.expr(&c.false_expr, loc)?),
        ))
    }

    /// `-x` and `!x`.
    fn unary(&mut self, u: &hx::UnaryOp, loc: &Loc) -> Option<ExprKind> {
        let op = match u.operator.value() {
            hx::UnaryOperator::Neg => UnaryOp::Neg,
            hx::UnaryOperator::Not => UnaryOp::Not,
        };
        Some(ExprKind::Unary(op, Box::new(self.expr(&u.expr, loc)?)))
    }

    /// `a OP b`: comparison, arithmetic and logic.
    fn binary(&mut self, b: &hx::BinaryOp, loc: &Loc) -> Option<ExprKind> {
        use hx::BinaryOperator as B;
        let op = match b.operator.value() {
            B::Eq => BinaryOp::Eq,
            B::NotEq => BinaryOp::NotEq,
            B::LessEq => BinaryOp::LessEq,
            B::GreaterEq => BinaryOp::GreaterEq,
            B::Less => BinaryOp::Less,
            B::Greater => BinaryOp::Greater,
            B::Plus => BinaryOp::Add,
            B::Minus => BinaryOp::Sub,
            B::Mul => BinaryOp::Mul,
            B::Div => BinaryOp::Div,
            B::Mod => BinaryOp::Mod,
            B::And => BinaryOp::And,
            B::Or => BinaryOp::Or,
        };
        Some(ExprKind::Binary(
            op,
            Box::new(self.expr(&b.lhs_expr, loc)?),
            Box::new(self.expr(&b.rhs_expr, loc)?),
        ))
    }

    // Collections.

    /// `[a, b, ...]`.
    fn list(&mut self, items: &hx::Array, loc: &Loc) -> Option<ExprKind> {
        let mut out = Vec::new();
        for item in items.iter() {
            out.push(self.expr(item, loc)?);
        }
        Some(ExprKind::List(out))
    }

    /// `{ key = value, ... }`.
    fn object(&mut self, obj: &hx::Object, loc: &Loc) -> Option<ExprKind> {
        let mut out = Vec::new();
        for (k, v) in obj.iter() {
            let key = match k {
                hx::ObjectKey::Ident(i) => Expr {
                    kind: ExprKind::String(i.as_str().to_string()),
                    loc: self.map.loc_of(i.span(), loc),
                },
                hx::ObjectKey::Expression(ke) => {
                    // A bare name as key is the name itself, as in Terraform.
                    let lowered = self.expr(ke, loc)?;
                    match lowered.kind {
                        ExprKind::Variable(name) => Expr {
                            kind: ExprKind::String(name),
                            loc: lowered.loc,
                        },
                        _ => lowered,
                    }
                }
            };
            let value = self.expr(v.expr(), loc)?;
            out.push((key, value));
        }
        Some(ExprKind::Object(out))
    }

    /// `[for ...]` and `{for ...}`.
    fn for_expr(&mut self, f: &hx::ForExpr, loc: &Loc) -> Option<ExprKind> {
        let collection = self.expr(&f.intro.collection_expr, loc)?;
        let key = match &f.key_expr {
            Some(k) => Some(self.expr(k, loc)?),
            None => None,
        };
        let value = self.expr(&f.value_expr, loc)?;
        let cond = match &f.cond {
            Some(c) => Some(self.expr(&c.expr, loc)?),
            None => None,
        };
        Some(ExprKind::For(Box::new(ForExpr {
            key_var: f.intro.key_var.as_ref().map(|k| k.as_str().to_string()),
            value_var: f.intro.value_var.as_str().to_string(),
            collection,
            key,
            value,
            grouping: f.grouping,
            cond,
        })))
    }

    // Traversals and calls.

    /// `name(args...)`, a built-in function only.
    fn call(&mut self, call: &hx::FuncCall, loc: &Loc) -> Option<ExprKind> {
        if call.name.is_namespaced() {
            self.unsupported(
                loc,
                "provider-defined functions are not supported".into(),
                "use the built-in functions",
            );
            return None;
        }
        let mut args = Vec::new();
        for arg in call.args.iter() {
            args.push(self.expr(arg, loc)?);
        }
        Some(ExprKind::Call {
            name: call.name.name.as_str().to_string(),
            args,
            expand: call.args.expand_final(),
        })
    }

    /// `base.attr`, `base[index]`, `base.0` and splats.
    fn traversal(&mut self, t: &hx::Traversal, loc: &Loc) -> Option<ExprKind> {
        let base = self.expr(&t.expr, loc)?;
        let mut steps = Vec::new();
        for op in &t.operators {
            steps.push(match op.value() {
                hx::TraversalOperator::AttrSplat(_) => Step::AttrSplat,
                hx::TraversalOperator::FullSplat(_) => Step::Splat,
                hx::TraversalOperator::GetAttr(i) => Step::Attr(i.as_str().to_string()),
                hx::TraversalOperator::Index(ie) => Step::Index(self.expr(ie, loc)?),
                hx::TraversalOperator::LegacyIndex(n) => Step::Index(Expr {
                    kind: ExprKind::Number(Number::from(*n.value())),
                    loc: self.map.loc_of(op.span(), loc),
                }),
            });
        }
        Some(ExprKind::Traversal(Box::new(base), steps))
    }

    // Templates.

    /// A quoted string template: a plain string when it interpolates nothing.
    pub(super) fn template(&mut self, t: &ht::Template, loc: &Loc) -> Option<ExprKind> {
        let mut strip_next = false;
        let parts = self.template_parts(t, loc, &mut strip_next, Shape::QUOTED)?;
        Some(template_kind(parts))
    }

    /// A heredoc: its literal text is one token per line for the strip markers, and a flush heredoc
    /// (`<<-`) is trimmed after them, as HCL does (the `heredoc` module).
    fn heredoc(&mut self, h: &ht::HeredocTemplate, loc: &Loc) -> Option<ExprKind> {
        let mut strip_next = false;
        let shape = Shape {
            lines: true,
            reindent: h.indent(),
        };
        let mut parts = self.template_parts(&h.template, loc, &mut strip_next, shape)?;
        if h.indent().is_some() {
            heredoc::flush(&mut parts);
        }
        Some(template_kind(parts))
    }

    /// Lowers the elements of a template. `strip_next` carries a `~}` over to the next literal, which may
    /// be the first one of the enclosing sequence after a directive ends.
    fn template_parts(
        &mut self,
        t: &ht::Template,
        loc: &Loc,
        strip_next: &mut bool,
        shape: Shape,
    ) -> Option<Vec<TemplatePart>> {
        let inner = Shape {
            reindent: None,
            ..shape
        };
        // Whether the next literal starts a line, as `hcl-edit` judged when it dedented the top level.
        let mut line_start = true;
        let mut parts: Vec<TemplatePart> = Vec::new();
        let elements: Vec<&ht::Element> = t.iter().collect();
        for (i, element) in elements.iter().enumerate() {
            match element {
                ht::Element::Literal(s) => {
                    let mut text = s.value().as_str().to_owned();
                    if let Some(n) = shape.reindent {
                        let before_sequence = elements
                            .get(i + 1)
                            .is_some_and(|e| !matches!(e, ht::Element::Literal(_)));
                        text = heredoc::reindent(&text, n, line_start, before_sequence);
                        line_start = text.ends_with('\n');
                    }
                    if std::mem::take(strip_next) {
                        text = if shape.lines {
                            heredoc::ltrim_first_line(&text)
                        } else {
                            text.trim_start().to_string()
                        };
                    }
                    parts.push(TemplatePart::Literal(text));
                }
                other => {
                    line_start = false;
                    self.template_element(other, loc, strip_next, inner, &mut parts)?;
                }
            }
        }
        Some(parts)
    }
}

/// How a template's literal text is read: a quoted string's literals are whole tokens; a heredoc's are a
/// token per line, and a flush heredoc's top-level lines get back the indentation `hcl-edit` removed.
#[derive(Clone, Copy)]
struct Shape {
    lines: bool,
    reindent: Option<usize>,
}

impl Shape {
    const QUOTED: Shape = Shape {
        lines: false,
        reindent: None,
    };
}

/// A template's parts as an expression: a plain string when there is nothing but literal text.
fn template_kind(parts: Vec<TemplatePart>) -> ExprKind {
    if parts.iter().all(|p| matches!(p, TemplatePart::Literal(_))) {
        let text: String = parts
            .into_iter()
            .map(|p| match p {
                TemplatePart::Literal(s) => s,
                _ => String::new(),
            })
            .collect();
        return ExprKind::String(text);
    }
    ExprKind::Template(parts)
}

/// Removes the whitespace a `~` before a sequence strips from the literal before it.
fn trim_last(parts: &mut [TemplatePart], shape: Shape) {
    if let Some(TemplatePart::Literal(prev)) = parts.last_mut() {
        *prev = if shape.lines {
            heredoc::rtrim_last_line(prev)
        } else {
            prev.trim_end().to_string()
        };
    }
}

impl Parser<'_> {
    /// Lowers one interpolation or directive of a template into `parts`.
    fn template_element(
        &mut self,
        element: &ht::Element,
        loc: &Loc,
        strip_next: &mut bool,
        shape: Shape,
        parts: &mut Vec<TemplatePart>,
    ) -> Option<()> {
        *strip_next = false;
        match element {
            ht::Element::Literal(_) => {}
            ht::Element::Interpolation(i) => {
                if i.strip.strip_start() {
                    trim_last(parts, shape);
                }
                parts.push(TemplatePart::Interpolation(self.expr(&i.expr, loc)?));
                *strip_next = i.strip.strip_end();
            }
            ht::Element::Directive(d) => match &**d {
                ht::Directive::If(dir) => {
                    if dir.if_expr.strip.strip_start() {
                        trim_last(parts, shape);
                    }
                    let cond = self.expr(&dir.if_expr.cond_expr, loc)?;
                    let mut inner = dir.if_expr.strip.strip_end();
                    let mut then =
                        self.template_parts(&dir.if_expr.template, loc, &mut inner, shape)?;
                    let mut otherwise = Vec::new();
                    if let Some(else_expr) = &dir.else_expr {
                        if else_expr.strip.strip_start() {
                            trim_last(&mut then, shape);
                        }
                        inner = else_expr.strip.strip_end();
                        otherwise =
                            self.template_parts(&else_expr.template, loc, &mut inner, shape)?;
                    }
                    if dir.endif_expr.strip.strip_start() {
                        let last = if dir.else_expr.is_some() {
                            &mut otherwise
                        } else {
                            &mut then
                        };
                        trim_last(last, shape);
                    }
                    parts.push(TemplatePart::If {
                        cond,
                        then,
                        otherwise,
                    });
                    *strip_next = dir.endif_expr.strip.strip_end();
                }
                ht::Directive::For(dir) => {
                    let f = &dir.for_expr;
                    if f.strip.strip_start() {
                        trim_last(parts, shape);
                    }
                    let collection = self.expr(&f.collection_expr, loc)?;
                    let mut inner = f.strip.strip_end();
                    let mut body = self.template_parts(&f.template, loc, &mut inner, shape)?;
                    if dir.endfor_expr.strip.strip_start() {
                        trim_last(&mut body, shape);
                    }
                    parts.push(TemplatePart::For {
                        key_var: f.key_var.as_ref().map(|k| k.as_str().to_string()),
                        value_var: f.value_var.as_str().to_string(),
                        collection,
                        body,
                    });
                    *strip_next = dir.endfor_expr.strip.strip_end();
                }
            },
        }
        Some(())
    }
}
