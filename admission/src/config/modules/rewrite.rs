//! Scoping by rewriting: an expression of a called module (or a module call's argument) rewritten so that
//! it means the same in the one flat configuration the calls expand into.
//!
//! Inside the module instance `module.net`: `var.x` reads the instance's input (the local
//! `module.net:var.x`), `local.y` its local `module.net:y`, `aws_vpc.this` its block
//! `module.net.aws_vpc.this`, `data.aws_region.current` its data block, `path.module` its directory.
//! In any scope, `module.CALL.OUT` reads the output local `…module.CALL:output.OUT` and `module.CALL` the
//! object of all the call's instances. A call's arguments are rewritten in the caller's scope, with
//! `count.index`, `each.key` and `each.value` replaced by the instance's own values. Names bound by a
//! `for`, a template `for` or a `dynamic` block are never rewritten.

use std::collections::BTreeMap;

use crate::address::{InstanceKey, ModulePath};
use crate::config::{
    BlockBody, DynamicBlock, Expr, ExprKind, ForExpr, Loc, ModuleCall, NestedBlock, Repetition,
    Step, TemplatePart,
};
use crate::value::{Number, Value};

/// The local that holds the input `name` of the module instance `path`.
pub(crate) fn input_local(path: &ModulePath, name: &str) -> String {
    format!("{path}:var.{name}")
}

/// The local that holds the output `name` of the module instance `path`.
pub(crate) fn output_local(path: &ModulePath, name: &str) -> String {
    format!("{path}:output.{name}")
}

/// The local of the module instance `path` named `name` in its module.
pub(crate) fn scoped_local(path: &ModulePath, name: &str) -> String {
    if path.is_root() {
        name.to_owned()
    } else {
        format!("{path}:{name}")
    }
}

/// The local that holds the value of the call `call` made in `path`: all its instances' outputs.
pub(crate) fn call_local(path: &ModulePath, call: &str) -> String {
    format!("{path}:module.{call}")
}

/// Where an expression is written: the module instance, its directory (for `path.module`), the calls
/// its module makes, and the instance of a call whose argument it is.
pub(crate) struct Scope<'s> {
    /// The module instance (the root module for the root's own expressions).
    pub path: &'s ModulePath,
    /// The module's directory relative to the root module's (`.` for the root).
    pub dir: &'s str,
    /// The `module` blocks of the module, by name.
    pub calls: &'s BTreeMap<String, ModuleCall>,
    /// For a call's argument: what `count.index` or `each` mean there.
    pub instance: Option<&'s CallInstance>,
}

/// One instance of a module call, as its arguments see it.
#[derive(Debug, Clone)]
pub(crate) enum CallInstance {
    /// A call without `count` or `for_each`.
    Single,
    /// `count.index`.
    Count(u64),
    /// `each.key` and `each.value`.
    Each(String, Value),
}

impl Scope<'_> {
    /// `expr` rewritten for this scope.
    pub fn rewrite(&self, expr: &Expr) -> Expr {
        let mut bound = Vec::new();
        self.expr(expr, &mut bound)
    }

    /// A reference path written in `depends_on` or `replace_triggered_by` (`aws_vpc.main`), rewritten
    /// for this scope; `module.CALL` becomes the call's local (which the caller expands).
    pub fn rewrite_path(&self, path: &[String]) -> Vec<String> {
        match path.first().map(String::as_str) {
            Some("data") if path.len() >= 2 && !self.path.is_root() => {
                let mut out = path.to_vec();
                out[1] = format!("{}{}", self.path.prefix(), path[1]);
                out
            }
            Some("module") if path.len() >= 2 => {
                vec![
                    "module".to_owned(),
                    format!("{}module.{}", self.path.prefix(), path[1]),
                ]
            }
            Some("module" | "data" | "var" | "local") | None => path.to_vec(),
            Some(type_name) if !self.path.is_root() => {
                let mut out = path.to_vec();
                out[0] = format!("{}{type_name}", self.path.prefix());
                out
            }
            Some(_) => path.to_vec(),
        }
    }

    fn expr(&self, e: &Expr, bound: &mut Vec<String>) -> Expr {
        let loc = e.loc.clone();
        let kind = match &e.kind {
            ExprKind::Variable(name) => return self.reference(name, &[], &loc, bound),
            ExprKind::Traversal(base, steps) => {
                if let ExprKind::Variable(name) = &base.kind {
                    return self.reference(name, steps, &loc, bound);
                }
                ExprKind::Traversal(Box::new(self.expr(base, bound)), self.steps(steps, bound))
            }
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Number(_)
            | ExprKind::String(_)
            | ExprKind::ModuleInput(_) => e.kind.clone(),
            ExprKind::Template(parts) => ExprKind::Template(self.parts(parts, bound)),
            ExprKind::List(items) => {
                ExprKind::List(items.iter().map(|i| self.expr(i, bound)).collect())
            }
            ExprKind::Object(items) => ExprKind::Object(
                items
                    .iter()
                    .map(|(k, v)| (self.key(k, bound), self.expr(v, bound)))
                    .collect(),
            ),
            ExprKind::Call { name, args, expand } => ExprKind::Call {
                name: name.clone(),
                args: args.iter().map(|a| self.expr(a, bound)).collect(),
                expand: *expand,
            },
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(self.expr(x, bound))),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(
                *op,
                Box::new(self.expr(a, bound)),
                Box::new(self.expr(b, bound)),
            ),
            ExprKind::Conditional(c, a, b) => ExprKind::Conditional(
                Box::new(self.expr(c, bound)),
                Box::new(self.expr(a, bound)),
                Box::new(self.expr(b, bound)),
            ),
            ExprKind::For(fe) => ExprKind::For(Box::new(self.for_expr(fe, bound))),
            ExprKind::Blocks(blocks) => {
                ExprKind::Blocks(blocks.iter().map(|b| self.block(b, bound)).collect())
            }
        };
        Expr { kind, loc }
    }

    /// An object key: a bare name is a literal key, never a reference.
    fn key(&self, k: &Expr, bound: &mut Vec<String>) -> Expr {
        match &k.kind {
            ExprKind::Variable(_) => k.clone(),
            _ => self.expr(k, bound),
        }
    }

    fn steps(&self, steps: &[Step], bound: &mut Vec<String>) -> Vec<Step> {
        steps
            .iter()
            .map(|s| match s {
                Step::Index(i) => Step::Index(self.expr(i, bound)),
                other => other.clone(),
            })
            .collect()
    }

    fn for_expr(&self, fe: &ForExpr, bound: &mut Vec<String>) -> ForExpr {
        let collection = self.expr(&fe.collection, bound);
        let before = bound.len();
        bound.push(fe.value_var.clone());
        bound.extend(fe.key_var.clone());
        let out = ForExpr {
            key_var: fe.key_var.clone(),
            value_var: fe.value_var.clone(),
            collection,
            key: fe.key.as_ref().map(|k| self.expr(k, bound)),
            value: self.expr(&fe.value, bound),
            grouping: fe.grouping,
            cond: fe.cond.as_ref().map(|c| self.expr(c, bound)),
        };
        bound.truncate(before);
        out
    }

    fn parts(&self, parts: &[TemplatePart], bound: &mut Vec<String>) -> Vec<TemplatePart> {
        parts
            .iter()
            .map(|p| match p {
                TemplatePart::Literal(s) => TemplatePart::Literal(s.clone()),
                TemplatePart::Interpolation(e) => TemplatePart::Interpolation(self.expr(e, bound)),
                TemplatePart::If {
                    cond,
                    then,
                    otherwise,
                } => TemplatePart::If {
                    cond: self.expr(cond, bound),
                    then: self.parts(then, bound),
                    otherwise: self.parts(otherwise, bound),
                },
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                } => {
                    let collection = self.expr(collection, bound);
                    let before = bound.len();
                    bound.push(value_var.clone());
                    bound.extend(key_var.clone());
                    let body = self.parts(body, bound);
                    bound.truncate(before);
                    TemplatePart::For {
                        key_var: key_var.clone(),
                        value_var: value_var.clone(),
                        collection,
                        body,
                    }
                }
            })
            .collect()
    }

    fn block(&self, b: &NestedBlock, bound: &mut Vec<String>) -> NestedBlock {
        match b {
            NestedBlock::Static(body) => NestedBlock::Static(BlockBody {
                labels: body.labels.clone(),
                attrs: self.attrs(&body.attrs, bound),
                loc: body.loc.clone(),
            }),
            NestedBlock::Dynamic(d) => {
                let for_each = self.expr(&d.for_each, bound);
                bound.push(d.iterator.clone());
                let out = DynamicBlock {
                    for_each,
                    iterator: d.iterator.clone(),
                    labels: d.labels.iter().map(|l| self.expr(l, bound)).collect(),
                    content: self.attrs(&d.content, bound),
                    loc: d.loc.clone(),
                };
                bound.pop();
                NestedBlock::Dynamic(Box::new(out))
            }
        }
    }

    fn attrs(&self, attrs: &[(String, Expr)], bound: &mut Vec<String>) -> Vec<(String, Expr)> {
        attrs
            .iter()
            .map(|(n, e)| (n.clone(), self.expr(e, bound)))
            .collect()
    }

    /// A reference `root.steps…` rewritten (see the module docs).
    fn reference(&self, root: &str, steps: &[Step], loc: &Loc, bound: &mut Vec<String>) -> Expr {
        let steps = self.steps(steps, bound);
        if bound.iter().any(|b| b == root) {
            return traversal(ExprKind::Variable(root.to_owned()), steps, loc);
        }
        let child = !self.path.is_root();
        let first = match steps.first() {
            Some(Step::Attr(a)) => Some(a.as_str()),
            _ => None,
        };
        let rest = steps.get(1..).unwrap_or(&[]).to_vec();
        match (root, first) {
            ("var", Some(name)) if child => local_ref(input_local(self.path, name), rest, loc),
            ("local", Some(name)) if child => local_ref(scoped_local(self.path, name), rest, loc),
            ("module", Some(call)) => self.module_ref(call, rest, loc, steps.clone()),
            ("path", Some("module")) if child => {
                traversal(ExprKind::String(self.dir.to_owned()), rest, loc)
            }
            ("data", Some(type_name)) if child => {
                let mut steps = steps.clone();
                steps[0] = Step::Attr(format!("{}{type_name}", self.path.prefix()));
                traversal(ExprKind::Variable("data".to_owned()), steps, loc)
            }
            ("count", Some("index")) => match self.instance {
                Some(CallInstance::Count(i)) => {
                    traversal(ExprKind::Number(Number::from(*i)), rest, loc)
                }
                _ => traversal(ExprKind::Variable(root.to_owned()), steps, loc),
            },
            ("each", Some(which @ ("key" | "value"))) => match self.instance {
                Some(CallInstance::Each(key, value)) => {
                    let base = if which == "key" {
                        ExprKind::String(key.clone())
                    } else {
                        literal(value, loc).kind
                    };
                    traversal(base, rest, loc)
                }
                _ => traversal(ExprKind::Variable(root.to_owned()), steps, loc),
            },
            ("var" | "local" | "count" | "each" | "path" | "data" | "self" | "terraform", _) => {
                traversal(ExprKind::Variable(root.to_owned()), steps, loc)
            }
            (type_name, _) if child => traversal(
                ExprKind::Variable(format!("{}{type_name}", self.path.prefix())),
                steps,
                loc,
            ),
            _ => traversal(ExprKind::Variable(root.to_owned()), steps, loc),
        }
    }

    /// `module.CALL…`: one output of one instance when the steps name it, else the call's whole value.
    fn module_ref(&self, call: &str, rest: Vec<Step>, loc: &Loc, all: Vec<Step>) -> Expr {
        let Some(decl) = self.calls.get(call) else {
            // Left as written: the evaluator and the lint report the call as not declared.
            return traversal(ExprKind::Variable("module".to_owned()), all, loc);
        };
        let direct = |key: InstanceKey, after: &[Step]| -> Option<Expr> {
            let Some(Step::Attr(out)) = after.first() else {
                return None;
            };
            let path = self.path.child(call, key).ok()?;
            Some(local_ref(
                output_local(&path, out),
                after[1..].to_vec(),
                loc,
            ))
        };
        let found = match (&decl.repetition, rest.first()) {
            (Repetition::Single, _) => direct(InstanceKey::None, &rest),
            (Repetition::Count(_), Some(Step::Index(i))) => match &i.kind {
                ExprKind::Number(n) => n
                    .as_u64()
                    .and_then(|n| direct(InstanceKey::Int(n), &rest[1..])),
                _ => None,
            },
            (Repetition::ForEach(_), Some(Step::Index(i))) => match &i.kind {
                ExprKind::String(k) => direct(InstanceKey::Str(k.clone()), &rest[1..]),
                _ => None,
            },
            _ => None,
        };
        found.unwrap_or_else(|| local_ref(call_local(self.path, call), rest, loc))
    }
}

/// `local.NAME` followed by `steps`.
fn local_ref(name: String, mut steps: Vec<Step>, loc: &Loc) -> Expr {
    steps.insert(0, Step::Attr(name));
    traversal(ExprKind::Variable("local".to_owned()), steps, loc)
}

/// `base` followed by `steps` (just `base` when there are none).
fn traversal(base: ExprKind, steps: Vec<Step>, loc: &Loc) -> Expr {
    let base = Expr {
        kind: base,
        loc: loc.clone(),
    };
    if steps.is_empty() {
        base
    } else {
        Expr {
            kind: ExprKind::Traversal(Box::new(base), steps),
            loc: loc.clone(),
        }
    }
}

/// A known value written as the expression that gives it (an `each.value` put in place).
pub(crate) fn literal(v: &Value, loc: &Loc) -> Expr {
    let kind = match v.peel() {
        Value::Null => ExprKind::Null,
        Value::Bool(b) => ExprKind::Bool(*b),
        Value::Number(n) => ExprKind::Number(n.clone()),
        Value::String(s) => ExprKind::String(s.clone()),
        Value::List(items) => ExprKind::List(items.iter().map(|i| literal(i, loc)).collect()),
        Value::Set(items) => ExprKind::List(items.iter().map(|i| literal(i, loc)).collect()),
        Value::Map(entries) => ExprKind::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = Expr {
                        kind: ExprKind::String(k.clone()),
                        loc: loc.clone(),
                    };
                    (key, literal(v, loc))
                })
                .collect(),
        ),
        _ => ExprKind::Null,
    };
    Expr {
        kind,
        loc: loc.clone(),
    }
}
