//! The expression tree of the configuration subset, with a source location on every node.
//!
//! The HCL parser's own tree keeps whitespace and comments for round-tripping; this tree keeps only what the
//! evaluator and the lint need, so the rest of the crate never depends on the parser's types. It must never
//! hold evaluated values: it is the configuration as written.

use std::fmt;
use std::sync::Arc;

use super::nested::{DynamicBlock, NestedBlock};
use crate::diag::SourcePos;
use crate::value::Number;

/// Where a configuration element starts: file, line and column (both from 1, columns in characters).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// The file name relative to the configuration directory.
    pub file: Arc<str>,
    /// The line, from 1.
    pub line: usize,
    /// The column in characters, from 1.
    pub column: usize,
}

impl Loc {
    /// The location as the diagnostic type carries it.
    pub fn to_pos(&self) -> SourcePos {
        SourcePos {
            file: self.file.to_string(),
            line: self.line,
            column: self.column,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One expression with the place it starts at.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it starts.
    pub loc: Loc,
}

/// The kinds of expression in the subset.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number literal, read as Terraform reads it (512-bit binary float, integers exact).
    Number(Number),
    /// A string with no interpolation.
    String(String),
    /// A string with `${...}` interpolations (or a heredoc).
    Template(Vec<TemplatePart>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{ k = v }`; a bare identifier key is a string literal key.
    Object(Vec<(Expr, Expr)>),
    /// A root name: `var`, `local`, `count`, `each`, a resource type, or a `for` variable.
    Variable(String),
    /// Attribute, index and splat steps applied to an expression.
    Traversal(Box<Expr>, Vec<Step>),
    /// A function call; `expand` is true when the last argument is followed by `...`.
    Call {
        /// The function name.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
        /// Whether the last argument is expanded into several.
        expand: bool,
    },
    /// `-x` or `!x`.
    Unary(UnaryOp, Box<Expr>),
    /// `a op b`.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A `for` expression.
    For(Box<ForExpr>),
    /// The blocks of one nested block type in a body (static and `dynamic` ones, in the order written).
    Blocks(Vec<NestedBlock>),
    /// The value of a called module's input variable, made when module calls are expanded (never
    /// written in a file): the caller's argument converted to the variable's type, or its default.
    ModuleInput(Box<super::ModuleInput>),
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub enum TemplatePart {
    /// Literal text.
    Literal(String),
    /// A `${...}` interpolation.
    Interpolation(Expr),
    /// `%{if cond}...%{else}...%{endif}`.
    If {
        /// The condition.
        cond: Expr,
        /// The parts used when it holds.
        then: Vec<TemplatePart>,
        /// The parts used otherwise (empty without `%{else}`).
        otherwise: Vec<TemplatePart>,
    },
    /// `%{for k, v in coll}...%{endfor}`.
    For {
        /// The name bound to the key or index, if given.
        key_var: Option<String>,
        /// The name bound to the element.
        value_var: String,
        /// The collection iterated.
        collection: Expr,
        /// The parts repeated for every element.
        body: Vec<TemplatePart>,
    },
}

impl TemplatePart {
    /// The expressions directly inside this part and its nested parts, in source order.
    fn exprs<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        match self {
            TemplatePart::Literal(_) => {}
            TemplatePart::Interpolation(e) => out.push(e),
            TemplatePart::If {
                cond,
                then,
                otherwise,
            } => {
                out.push(cond);
                then.iter().chain(otherwise).for_each(|p| p.exprs(out));
            }
            TemplatePart::For {
                collection, body, ..
            } => {
                out.push(collection);
                body.iter().for_each(|p| p.exprs(out));
            }
        }
    }
}

/// One traversal step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `.name`.
    Attr(String),
    /// `[expr]` (and the legacy `.0`).
    Index(Expr),
    /// `[*]`: the following steps apply to every element.
    Splat,
    /// `.*`, the legacy attribute-only splat: the attribute steps right after it apply to every element,
    /// and an index after them applies to the resulting list (`list.*.id[0]` is the first id).
    AttrSplat,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// Arithmetic negation.
    Neg,
    /// Logical not.
    Not,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `==`.
    Eq,
    /// `!=`.
    NotEq,
    /// `<`.
    Less,
    /// `<=`.
    LessEq,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterEq,
    /// `&&`.
    And,
    /// `||`.
    Or,
}

impl BinaryOp {
    /// The operator as written in HCL.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Eq => "==",
            BinaryOp::NotEq => "!=",
            BinaryOp::Less => "<",
            BinaryOp::LessEq => "<=",
            BinaryOp::Greater => ">",
            BinaryOp::GreaterEq => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

/// `[for k, v in coll : value if cond]` or `{for k, v in coll : key => value... if cond}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForExpr {
    /// The name bound to the key or index, if given.
    pub key_var: Option<String>,
    /// The name bound to the element.
    pub value_var: String,
    /// The collection iterated.
    pub collection: Expr,
    /// The key expression: present for an object-producing `for`.
    pub key: Option<Expr>,
    /// The value expression.
    pub value: Expr,
    /// Whether `...` groups values by key.
    pub grouping: bool,
    /// The filter condition.
    pub cond: Option<Expr>,
}

impl Expr {
    /// The direct sub-expressions, in source order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Number(_)
            | ExprKind::String(_)
            | ExprKind::Variable(_) => Vec::new(),
            ExprKind::Template(parts) => {
                let mut out = Vec::new();
                parts.iter().for_each(|p| p.exprs(&mut out));
                out
            }
            ExprKind::List(items) => items.iter().collect(),
            ExprKind::Object(items) => items.iter().flat_map(|(k, v)| [k, v]).collect(),
            ExprKind::Traversal(base, steps) => std::iter::once(&**base)
                .chain(steps.iter().filter_map(|s| match s {
                    Step::Index(e) => Some(e),
                    _ => None,
                }))
                .collect(),
            ExprKind::Call { args, .. } => args.iter().collect(),
            ExprKind::Unary(_, e) => vec![&**e],
            ExprKind::Binary(_, a, b) => vec![&**a, &**b],
            ExprKind::Conditional(c, a, b) => vec![&**c, &**a, &**b],
            ExprKind::For(fe) => {
                let mut out = vec![&fe.collection];
                out.extend(fe.key.as_ref());
                out.push(&fe.value);
                out.extend(fe.cond.as_ref());
                out
            }
            ExprKind::Blocks(blocks) => blocks.iter().flat_map(NestedBlock::children).collect(),
            ExprKind::ModuleInput(input) => {
                input.value.iter().chain(&input.variable.default).collect()
            }
        }
    }

    /// Every node of the expression, this one first, depth first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        for child in self.children() {
            child.walk(f);
        }
    }

    /// The references the expression makes, as root name plus the attribute names that follow it
    /// (`aws_vpc.main.id` gives `["aws_vpc", "main", "id"]`), with where each starts. Names bound by an
    /// enclosing `for` are left out.
    pub fn references(&self) -> Vec<(Vec<String>, Loc)> {
        fn collect(e: &Expr, out: &mut Vec<(Vec<String>, Loc)>) {
            match &e.kind {
                ExprKind::Variable(name) => out.push((vec![name.clone()], e.loc.clone())),
                ExprKind::Traversal(base, steps) if matches!(base.kind, ExprKind::Variable(_)) => {
                    let mut path = base.as_static_path().unwrap_or_default();
                    path.extend(steps.iter().map_while(|s| match s {
                        Step::Attr(a) => Some(a.clone()),
                        _ => None,
                    }));
                    out.push((path, e.loc.clone()));
                    for step in steps {
                        if let Step::Index(i) = step {
                            collect(i, out);
                        }
                    }
                }
                ExprKind::Template(parts) => collect_parts(parts, out),
                ExprKind::Blocks(blocks) => {
                    for block in blocks {
                        match block {
                            NestedBlock::Static(b) => {
                                b.attrs.iter().for_each(|(_, e)| collect(e, out))
                            }
                            NestedBlock::Dynamic(d) => collect_dynamic(d, out),
                        }
                    }
                }
                ExprKind::For(fe) => {
                    collect(&fe.collection, out);
                    let mut inner = Vec::new();
                    for part in fe.key.iter().chain([&fe.value]).chain(fe.cond.iter()) {
                        collect(part, &mut inner);
                    }
                    let bound =
                        |name: &str| fe.value_var == name || fe.key_var.as_deref() == Some(name);
                    out.extend(inner.into_iter().filter(|(path, _)| !bound(&path[0])));
                }
                _ => {
                    for child in e.children() {
                        collect(child, out);
                    }
                }
            }
        }
        // The iterator is bound in the labels and the content, as a `for` variable is in its body.
        fn collect_dynamic(d: &DynamicBlock, out: &mut Vec<(Vec<String>, Loc)>) {
            collect(&d.for_each, out);
            let mut inner = Vec::new();
            for e in d.labels.iter().chain(d.content.iter().map(|(_, e)| e)) {
                collect(e, &mut inner);
            }
            out.extend(inner.into_iter().filter(|(path, _)| path[0] != d.iterator));
        }
        fn collect_parts(parts: &[TemplatePart], out: &mut Vec<(Vec<String>, Loc)>) {
            for part in parts {
                match part {
                    TemplatePart::Literal(_) => {}
                    TemplatePart::Interpolation(e) => collect(e, out),
                    TemplatePart::If {
                        cond,
                        then,
                        otherwise,
                    } => {
                        collect(cond, out);
                        collect_parts(then, out);
                        collect_parts(otherwise, out);
                    }
                    TemplatePart::For {
                        key_var,
                        value_var,
                        collection,
                        body,
                    } => {
                        collect(collection, out);
                        let mut inner = Vec::new();
                        collect_parts(body, &mut inner);
                        let bound =
                            |name: &str| value_var == name || key_var.as_deref() == Some(name);
                        out.extend(inner.into_iter().filter(|(path, _)| !bound(&path[0])));
                    }
                }
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }

    /// Whether any function named in `names` is called anywhere inside.
    pub fn calls_any(&self, names: &[&str]) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let ExprKind::Call { name, .. } = &e.kind
                && names.contains(&name.as_str())
            {
                found = true;
            }
        });
        found
    }

    /// The string if the expression is a plain string literal (a template with only literal text counts).
    pub fn as_literal_str(&self) -> Option<String> {
        match &self.kind {
            ExprKind::String(s) => Some(s.clone()),
            ExprKind::Template(parts) => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        TemplatePart::Literal(s) => out.push_str(s),
                        _ => return None,
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// The traversal as a static path of names (`var.x`, `aws_vpc.main.id`), if it is one with only
    /// attribute steps (used for `depends_on`, `ignore_changes` and types).
    pub fn as_static_path(&self) -> Option<Vec<String>> {
        match &self.kind {
            ExprKind::Variable(name) => Some(vec![name.clone()]),
            ExprKind::Traversal(base, steps) => {
                let mut path = base.as_static_path()?;
                for step in steps {
                    match step {
                        Step::Attr(a) => path.push(a.clone()),
                        Step::Index(e) => match &e.kind {
                            ExprKind::String(s) => path.push(s.clone()),
                            ExprKind::Number(n) => path.push(n.to_string()),
                            _ => return None,
                        },
                        Step::Splat | Step::AttrSplat => return None,
                    }
                }
                Some(path)
            }
            _ => None,
        }
    }
}
