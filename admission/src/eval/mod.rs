//! The expression evaluator: configuration expressions to [`Value`]s, with unknowns and sensitivity.
//!
//! An [`Evaluator`] is built for one configuration and one set of variable values. It reads `var.*` and
//! `local.*` itself (locals lazily, each once, cycles refused), `count.index` and `each.*` from the
//! [`Instance`] being evaluated, and resource attributes through a [`ResourceResolver`] the caller supplies:
//! the engine passes instance values, unknown for resources not yet created. A static evaluator has no
//! resolver and refuses resource references with [`EvalError::NotStatic`]; the lint uses it for identities,
//! `count` and `for_each`.
//!
//! Unknowns propagate through every operator and function (an unknown operand gives an unknown result);
//! `uuid()` and `timestamp()` are unknown at plan time. Anything derived from a sensitive value stays
//! sensitive. The evaluator never reads the environment, the clock or the network, and never panics on
//! user input: every problem is an [`EvalError`].
//!
//! ```
//! use std::collections::BTreeMap;
//! use admission::config::parse_expression;
//! use admission::eval::{Evaluator, Instance};
//! use admission::config::Config;
//! use admission::value::Value;
//!
//! let config = Config::default();
//! let vars = BTreeMap::new();
//! let ev = Evaluator::new(&config, &vars);
//! let expr = parse_expression("x.tf", r#"format("%s-%03d", upper("web"), 7)"#).unwrap();
//! assert_eq!(ev.eval(&expr, &Instance::Single).unwrap(), Value::from("WEB-007"));
//! ```

mod functions;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

use crate::config::{BinaryOp, Config, Expr, ExprKind, ForExpr, Loc, Step, TemplatePart, UnaryOp};
use crate::diag::{Code, Diagnostic};
use crate::value::{Number, Type, Value};

/// Gives the value of a declared resource block, as expressions see it: the instance object for a block
/// without `count`/`for_each`, a list of instance objects for `count`, a map by key for `for_each`.
/// Returning `None` means "not known yet": the reference evaluates to an unknown value.
pub trait ResourceResolver {
    /// The value of the block `type_name.name`.
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value>;

    /// The value of one member, `type_name.name[key]` (`key` without sensitivity marks), where the
    /// resolver can give it without building the whole block: a reference to one instance of a large
    /// `count` or `for_each` block then costs one lookup, not a copy of the block. `None` (the default)
    /// makes the evaluator index the value of [`resolve`](Self::resolve) instead, so an answer must be
    /// exactly what that indexing gives; a key that is no member is left to it, for its diagnostic.
    fn resolve_member(&self, type_name: &str, name: &str, key: &Value) -> Option<Value> {
        let _ = (type_name, name, key);
        None
    }

    /// The attribute `attr` of one member, `type_name.name[key].attr`, where the resolver can give it
    /// without copying the member's other attributes: reading `aws_vpc.v[0].id` then copies one string.
    /// `None` (the default) makes the evaluator read the attribute of the member itself, so an answer must
    /// be exactly what that reading gives (sensitivity marks included); a member or attribute that is
    /// missing is left to it, for its diagnostic.
    fn resolve_member_attr(
        &self,
        type_name: &str,
        name: &str,
        key: &Value,
        attr: &str,
    ) -> Option<Value> {
        let _ = (type_name, name, key, attr);
        None
    }
}

impl ResourceResolver for BTreeMap<String, Value> {
    /// Looks the block up by its address `type.name`.
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        self.get(&format!("{type_name}.{name}")).cloned()
    }
}

/// Resolves every resource to an unknown value: planning before anything exists.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllUnknown;

impl ResourceResolver for AllUnknown {
    fn resolve(&self, _type_name: &str, _name: &str) -> Option<Value> {
        None
    }
}

/// Which instance of a block an expression is evaluated for: what `count.index` and `each.*` mean.
#[derive(Debug, Clone, PartialEq)]
pub enum Instance {
    /// Outside any repeated block: `count` and `each` are not available.
    Single,
    /// The instance `index` of a `count` block.
    Count(u64),
    /// The instance of a `for_each` block with this key and value.
    Each {
        /// `each.key`.
        key: String,
        /// `each.value`.
        value: Value,
    },
}

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// A static evaluation read a resource attribute (or a local that does).
    NotStatic {
        /// The reference, as written (`aws_vpc.main.id`).
        reference: String,
        /// Where it is written.
        loc: Loc,
    },
    /// Any other problem, as the diagnostic to report (`unknown-reference`, `unsupported-construct`).
    Invalid(Box<Diagnostic>),
}

impl EvalError {
    /// The error as a diagnostic; a non-static reference becomes `code` (the lint passes the
    /// `non-static-*` code of the argument being judged).
    pub fn into_diagnostic(self, non_static_code: Code) -> Diagnostic {
        match self {
            EvalError::NotStatic { reference, loc } => Diagnostic::new(
                non_static_code,
                format!("`{reference}` is not known before the live system is read"),
                "compute this from variables, locals and literals only",
            )
            .at(loc.to_pos()),
            EvalError::Invalid(d) => *d,
        }
    }

    fn invalid(code: Code, loc: &Loc, summary: String, detail: &str) -> EvalError {
        EvalError::Invalid(Box::new(
            Diagnostic::new(code, summary, detail).at(loc.to_pos()),
        ))
    }
}

pub(crate) fn bad(loc: &Loc, summary: impl Into<String>) -> EvalError {
    EvalError::invalid(
        Code::UnsupportedConstruct,
        loc,
        format!("invalid expression: {}", summary.into()),
        "fix the expression so that its operands have the types it needs",
    )
}

fn unknown_ref(loc: &Loc, summary: String, detail: &str) -> EvalError {
    EvalError::invalid(Code::UnknownReference, loc, summary, detail)
}

/// Why a root name Terraform knows is not available in this subset, if it is one of them.
pub(crate) fn reserved_root(name: &str) -> Option<&'static str> {
    match name {
        "path" => Some("configurations are read from one directory, with no modules"),
        "terraform" => Some("there are no workspaces in stateless mode"),
        "self" => Some("`self` exists only in provisioners, which are not supported"),
        "data" => Some("data sources are not supported"),
        "module" => Some("modules are not supported"),
        _ => None,
    }
}

/// A local's value once evaluated, and whether evaluating it read a resource.
type EvaluatedLocal = (Result<Value, EvalError>, bool);

/// Evaluates expressions of one configuration with one set of variable values.
pub struct Evaluator<'a> {
    config: &'a Config,
    vars: &'a BTreeMap<String, Value>,
    resources: Option<&'a dyn ResourceResolver>,
    impure: Option<&'a dyn ImpureValues>,
    locals: RefCell<BTreeMap<String, EvaluatedLocal>>,
    in_progress: RefCell<BTreeSet<String>>,
    /// Whether the evaluation under way has read a resource (see [`Evaluator::eval_tracked`]).
    read_resource: Cell<bool>,
}

impl std::fmt::Debug for Evaluator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluator")
            .field("static", &self.resources.is_none())
            .finish_non_exhaustive()
    }
}

/// The values of the impure functions, which only an apply knows: this crate reads no clock and draws no
/// random numbers.
pub trait ImpureValues {
    /// The value of `timestamp()`: the current time in RFC 3339 form, UTC, to the second.
    fn timestamp(&self) -> String;
    /// The value of `uuid()`: a fresh random (version 4) UUID, different at every call.
    fn uuid(&self) -> String;
}

/// The longest chain of locals reading locals that is evaluated (deeper chains would only exhaust the stack).
const MAX_LOCAL_CHAIN: usize = 64;

/// A template being rendered: the text so far, and whether any part was unknown or sensitive.
#[derive(Default)]
struct TemplateAcc {
    text: String,
    unknown: bool,
    marked: bool,
}

/// Names bound by enclosing `for` expressions, innermost last.
type Bindings = Vec<(String, Value)>;

impl<'a> Evaluator<'a> {
    /// A static evaluator: variables, locals and literals only; a resource reference is
    /// [`EvalError::NotStatic`]. `vars` holds every declared variable's value (see
    /// [`crate::config::resolve_variables`]).
    pub fn new(config: &'a Config, vars: &'a BTreeMap<String, Value>) -> Self {
        Evaluator {
            config,
            vars,
            resources: None,
            impure: None,
            locals: RefCell::default(),
            in_progress: RefCell::default(),
            read_resource: Cell::new(false),
        }
    }

    /// An evaluator that reads resource attributes through `resources`.
    pub fn with_resources(
        config: &'a Config,
        vars: &'a BTreeMap<String, Value>,
        resources: &'a dyn ResourceResolver,
    ) -> Self {
        Evaluator {
            config,
            vars,
            resources: Some(resources),
            impure: None,
            locals: RefCell::default(),
            in_progress: RefCell::default(),
            read_resource: Cell::new(false),
        }
    }

    /// The same evaluator, answering `uuid()` and `timestamp()` from `impure`: at apply, as Terraform
    /// evaluates them then (before, they are unknown).
    pub fn with_impure(mut self, impure: &'a dyn ImpureValues) -> Self {
        self.impure = Some(impure);
        self
    }

    /// Whether this evaluator refuses resource references.
    pub fn is_static(&self) -> bool {
        self.resources.is_none()
    }

    /// Evaluates `expr` for `instance`.
    pub fn eval(&self, expr: &Expr, instance: &Instance) -> Result<Value, EvalError> {
        let mut bindings = Bindings::new();
        self.eval_in(expr, instance, &mut bindings, 0)
    }

    /// Evaluates `expr` for `instance`, and tells whether the evaluation read a resource (directly or
    /// through a local that does).
    ///
    /// Evaluation runs in a fixed order, and a static evaluator ([`Evaluator::new`]) of the same
    /// configuration and variables differs only where a resource is read, where it stops with
    /// [`EvalError::NotStatic`]. So when no resource was read, the static evaluator gives exactly this
    /// result; when one was, it refuses the expression. One evaluation answers both questions.
    pub fn eval_tracked(
        &self,
        expr: &Expr,
        instance: &Instance,
    ) -> (Result<Value, EvalError>, bool) {
        let outer = self.read_resource.replace(false);
        let result = self.eval(expr, instance);
        let read = self.read_resource.get();
        self.read_resource.set(outer || read);
        (result, read)
    }

    /// The value of the local `name` (evaluated once, then remembered).
    pub fn local(&self, name: &str, loc: &Loc) -> Result<Value, EvalError> {
        self.local_at(name, loc, 0)
    }

    /// The local `name`, evaluated `depth` levels deep into the expression that reads it: the depth limit
    /// counts across locals, so a long chain of them cannot exhaust the stack either.
    fn local_at(&self, name: &str, loc: &Loc, depth: usize) -> Result<Value, EvalError> {
        if let Some((v, read)) = self.locals.borrow().get(name) {
            if *read {
                self.read_resource.set(true);
            }
            return v.clone();
        }
        let Some(attr) = self.config.locals.get(name) else {
            return Err(unknown_ref(
                loc,
                format!("local `{name}` is not declared"),
                "declare it in a `locals` block or fix the name",
            ));
        };
        if self.in_progress.borrow().len() >= MAX_LOCAL_CHAIN {
            return Err(bad(
                loc,
                format!(
                    "local `{name}` sits at the end of a chain of over {MAX_LOCAL_CHAIN} locals"
                ),
            ));
        }
        if !self.in_progress.borrow_mut().insert(name.to_string()) {
            return Err(bad(loc, format!("local `{name}` refers to itself")));
        }
        let outer = self.read_resource.replace(false);
        let result = self.eval_in(&attr.expr, &Instance::Single, &mut Bindings::new(), depth);
        let read = self.read_resource.get();
        self.read_resource.set(outer || read);
        self.in_progress.borrow_mut().remove(name);
        self.locals
            .borrow_mut()
            .insert(name.to_string(), (result.clone(), read));
        result
    }

    /// Whether `expr` calls `uuid()` or `timestamp()`, directly or through the locals it reads.
    pub fn reads_impure(&self, expr: &Expr) -> bool {
        // A worklist rather than recursion: a long chain of locals must not deepen the stack.
        let mut seen = BTreeSet::new();
        let mut todo = vec![expr];
        while let Some(e) = todo.pop() {
            if e.calls_any(&["uuid", "timestamp"]) {
                return true;
            }
            for (path, _) in e.references() {
                if path.len() >= 2
                    && path[0] == "local"
                    && seen.insert(path[1].clone())
                    && let Some(attr) = self.config.locals.get(&path[1])
                {
                    todo.push(&attr.expr);
                }
            }
        }
        false
    }

    fn eval_in(
        &self,
        expr: &Expr,
        inst: &Instance,
        b: &mut Bindings,
        depth: usize,
    ) -> Result<Value, EvalError> {
        // Deeply nested input cannot exhaust the stack: the parser's own nesting limit is far below this.
        if depth > 256 {
            return Err(bad(&expr.loc, "expression nested too deeply"));
        }
        let d = depth + 1;
        let loc = &expr.loc;
        match &expr.kind {
            ExprKind::Null => Ok(Value::Null),
            ExprKind::Bool(v) => Ok(Value::Bool(*v)),
            ExprKind::Number(n) => {
                Value::number_f64(*n).map_err(|_| bad(loc, "number is not finite"))
            }
            ExprKind::String(s) => Ok(Value::String(s.clone())),
            ExprKind::Template(parts) => {
                let mut acc = TemplateAcc::default();
                self.eval_parts(parts, inst, b, d, &mut acc)?;
                let v = if acc.unknown {
                    Value::Unknown(Type::String)
                } else {
                    Value::String(acc.text)
                };
                Ok(v.mark_sensitive_if(acc.marked))
            }
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval_in(item, inst, b, d)?);
                }
                Ok(Value::List(out))
            }
            ExprKind::Object(items) => {
                let mut out = BTreeMap::new();
                let mut unknown_key = false;
                let mut marked = false;
                for (k, v) in items {
                    let key = self.eval_in(k, inst, b, d)?;
                    let value = self.eval_in(v, inst, b, d)?;
                    marked |= key.contains_sensitive();
                    match key.peel() {
                        Value::Unknown(_) => unknown_key = true,
                        Value::Null => return Err(bad(&k.loc, "an object key is null")),
                        other => {
                            let name = primitive_text(other)
                                .ok_or_else(|| bad(&k.loc, "an object key must be a string"))?;
                            out.insert(name, value);
                        }
                    }
                }
                let v = if unknown_key {
                    Value::unknown()
                } else {
                    Value::Map(out)
                };
                Ok(v.mark_sensitive_if(marked))
            }
            ExprKind::Variable(name) => self.root(name, &[], loc, inst, b, d),
            ExprKind::Traversal(base, steps) => match &base.kind {
                ExprKind::Variable(name) => self.root(name, steps, loc, inst, b, d),
                _ => {
                    let v = self.eval_in(base, inst, b, d)?;
                    self.apply_steps(v, steps, loc, inst, b, d)
                }
            },
            ExprKind::Call { name, args, expand } => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval_in(arg, inst, b, d)?);
                }
                if *expand {
                    let last = values.pop().unwrap_or(Value::Null);
                    let marked = last.is_sensitive();
                    match last.peel() {
                        Value::List(items) => {
                            values.extend(items.iter().map(|x| x.clone().mark_sensitive_if(marked)))
                        }
                        Value::Set(items) => {
                            values.extend(items.iter().map(|x| x.clone().mark_sensitive_if(marked)))
                        }
                        Value::Unknown(_) => return Ok(Value::unknown().mark_sensitive_if(marked)),
                        _ => return Err(bad(loc, "only a list can be expanded with `...`")),
                    }
                }
                functions::call(name, values, loc, self.impure)
            }
            ExprKind::Unary(op, e) => {
                let v = self.eval_in(e, inst, b, d)?;
                let (v, marked) = v.unmark();
                let out = match (op, &v) {
                    (_, Value::Unknown(_)) => Value::Unknown(if *op == UnaryOp::Neg {
                        Type::Number
                    } else {
                        Type::Bool
                    }),
                    (UnaryOp::Neg, _) => Value::Number(to_number(&v, &e.loc)?.negate()),
                    (UnaryOp::Not, _) => Value::Bool(!to_bool(&v, &e.loc)?),
                };
                Ok(out.mark_sensitive_if(marked || v.contains_sensitive()))
            }
            ExprKind::Binary(op, l, r) => {
                let lv = self.eval_in(l, inst, b, d)?;
                let rv = self.eval_in(r, inst, b, d)?;
                binary(*op, lv, rv, &l.loc, &r.loc)
            }
            ExprKind::Conditional(c, t, f) => {
                let cv = self.eval_in(c, inst, b, d)?;
                let marked = cv.contains_sensitive();
                match cv.peel() {
                    Value::Unknown(_) => {
                        // Both branches are still evaluated, so that their errors are reported now.
                        let tv = self.eval_in(t, inst, b, d)?;
                        let fv = self.eval_in(f, inst, b, d)?;
                        let ty = if tv.type_of() == fv.type_of() {
                            tv.type_of()
                        } else {
                            Type::Any
                        };
                        let marked = marked || tv.contains_sensitive() || fv.contains_sensitive();
                        Ok(Value::Unknown(ty).mark_sensitive_if(marked))
                    }
                    other => {
                        let chosen = if to_bool(other, &c.loc)? { t } else { f };
                        Ok(self.eval_in(chosen, inst, b, d)?.mark_sensitive_if(marked))
                    }
                }
            }
            ExprKind::For(fe) => self.eval_for(fe, loc, inst, b, d),
        }
    }

    /// Renders template parts into `acc`; directives (`%{if}`, `%{for}`) follow the same unknown and
    /// sensitivity rules as expressions.
    fn eval_parts(
        &self,
        parts: &[TemplatePart],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
        acc: &mut TemplateAcc,
    ) -> Result<(), EvalError> {
        for part in parts {
            match part {
                TemplatePart::Literal(s) => acc.text.push_str(s),
                TemplatePart::Interpolation(e) => {
                    let v = self.eval_in(e, inst, b, d)?;
                    acc.marked |= v.contains_sensitive();
                    match v.peel() {
                        Value::Unknown(_) => acc.unknown = true,
                        other => acc.text.push_str(&template_text(other, &e.loc)?),
                    }
                }
                TemplatePart::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let c = self.eval_in(cond, inst, b, d)?;
                    acc.marked |= c.contains_sensitive();
                    match c.peel() {
                        Value::Unknown(_) => {
                            // Both branches are rendered for their errors and marks; the text is unknown.
                            acc.unknown = true;
                            self.eval_parts(then, inst, b, d, acc)?;
                            self.eval_parts(otherwise, inst, b, d, acc)?;
                        }
                        other => {
                            let chosen = if to_bool(other, &cond.loc)? {
                                then
                            } else {
                                otherwise
                            };
                            self.eval_parts(chosen, inst, b, d, acc)?;
                        }
                    }
                }
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                } => {
                    let coll = self.eval_in(collection, inst, b, d)?;
                    let (coll, marked) = coll.unmark();
                    acc.marked |= marked;
                    let pairs: Vec<(Value, Value)> = match coll {
                        Value::Unknown(_) => {
                            acc.unknown = true;
                            continue;
                        }
                        Value::List(items) => items
                            .into_iter()
                            .enumerate()
                            .map(|(i, v)| (Value::from(i), v))
                            .collect(),
                        Value::Set(items) => items.into_iter().map(|v| (v.clone(), v)).collect(),
                        Value::Map(entries) => entries
                            .into_iter()
                            .map(|(k, v)| (Value::String(k), v))
                            .collect(),
                        _ => {
                            return Err(bad(
                                &collection.loc,
                                "a template `for` needs a list, set or map",
                            ));
                        }
                    };
                    for (k, v) in pairs {
                        let depth = b.len();
                        if let Some(kv) = key_var {
                            b.push((kv.clone(), k));
                        }
                        b.push((value_var.clone(), v));
                        let result = self.eval_parts(body, inst, b, d + 1, acc);
                        b.truncate(depth);
                        result?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Evaluates a root name and the steps that follow it.
    fn root(
        &self,
        name: &str,
        steps: &[Step],
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        if let Some((_, v)) = b.iter().rev().find(|(n, _)| n == name) {
            let v = v.clone();
            return self.apply_steps(v, steps, loc, inst, b, d);
        }
        let attr = |i: usize| match steps.get(i) {
            Some(Step::Attr(a)) => Some(a.as_str()),
            _ => None,
        };
        let rest = steps.get(1..).unwrap_or(&[]);
        match name {
            "var" => {
                let Some(var) = attr(0) else {
                    return Err(bad(loc, "`var` must be followed by a variable name"));
                };
                if self.config.variables.contains_key(var) && !self.vars.contains_key(var) {
                    return Err(EvalError::invalid(
                        Code::InvalidVariable,
                        loc,
                        format!("variable `{var}` has no value"),
                        "give it a value with --var, a var file or TF_VAR_, or a default",
                    ));
                }
                let Some(v) = self.vars.get(var) else {
                    return Err(unknown_ref(
                        loc,
                        format!("variable `{var}` is not declared"),
                        "declare it with a `variable` block or fix the name",
                    ));
                };
                let marked = self
                    .config
                    .variables
                    .get(var)
                    .is_some_and(|decl| decl.sensitive);
                self.apply_steps(v.clone().mark_sensitive_if(marked), rest, loc, inst, b, d)
            }
            "local" => {
                let Some(local) = attr(0) else {
                    return Err(bad(loc, "`local` must be followed by a local name"));
                };
                let v = self.local_at(local, loc, d)?;
                self.apply_steps(v, rest, loc, inst, b, d)
            }
            "count" => match (attr(0), inst) {
                (Some("index"), Instance::Count(i)) => {
                    self.apply_steps(Value::from(*i), rest, loc, inst, b, d)
                }
                (Some("index"), _) => Err(unknown_ref(
                    loc,
                    "`count.index` is used outside a block with `count`".into(),
                    "set `count` on the block or remove the reference",
                )),
                _ => Err(unknown_ref(
                    loc,
                    "`count` has only the attribute `index`".into(),
                    "write `count.index`",
                )),
            },
            "each" => match (attr(0), inst) {
                (Some("key"), Instance::Each { key, .. }) => {
                    self.apply_steps(Value::String(key.clone()), rest, loc, inst, b, d)
                }
                (Some("value"), Instance::Each { value, .. }) => {
                    self.apply_steps(value.clone(), rest, loc, inst, b, d)
                }
                (Some("key" | "value"), _) => Err(unknown_ref(
                    loc,
                    "`each` is used outside a block with `for_each`".into(),
                    "set `for_each` on the block or remove the reference",
                )),
                _ => Err(unknown_ref(
                    loc,
                    "`each` has only the attributes `key` and `value`".into(),
                    "write `each.key` or `each.value`",
                )),
            },
            type_name if reserved_root(type_name).is_some() => Err(unknown_ref(
                loc,
                format!(
                    "`{type_name}` references are not available: {}",
                    reserved_root(type_name).unwrap_or_default()
                ),
                "refer to `var.NAME`, `local.NAME` or a resource as `TYPE.NAME.ATTR`",
            )),
            type_name => {
                let Some(block) = attr(0) else {
                    return Err(unknown_ref(
                        loc,
                        format!("`{type_name}` is not declared"),
                        "refer to `var.NAME`, `local.NAME` or a resource as `TYPE.NAME.ATTR`",
                    ));
                };
                if self.config.resource(type_name, block).is_none() {
                    return Err(unknown_ref(
                        loc,
                        format!("resource `{type_name}.{block}` is not declared"),
                        "declare the resource or fix the reference",
                    ));
                }
                // Here, and only here, a static evaluation stops: see `eval_tracked`.
                self.read_resource.set(true);
                let Some(resolver) = self.resources else {
                    let mut reference = format!("{type_name}.{block}");
                    for step in rest {
                        match step {
                            Step::Attr(a) => reference = format!("{reference}.{a}"),
                            Step::Index(_) => reference.push_str("[...]"),
                            Step::Splat => reference.push_str("[*]"),
                        }
                    }
                    return Err(EvalError::NotStatic {
                        reference,
                        loc: loc.clone(),
                    });
                };
                if let Some((Step::Index(e), after)) = rest.split_first() {
                    // One member: ask for it alone before building the block.
                    let key = self.eval_in(e, inst, b, d)?;
                    let (plain, marked) = key.clone().unmark();
                    if let Some((Step::Attr(attr), after_attr)) = after.split_first()
                        && let Some(v) =
                            resolver.resolve_member_attr(type_name, block, &plain, attr)
                    {
                        return self.apply_steps(
                            v.mark_sensitive_if(marked),
                            after_attr,
                            loc,
                            inst,
                            b,
                            d,
                        );
                    }
                    if let Some(v) = resolver.resolve_member(type_name, block, &plain) {
                        return self.apply_steps(
                            v.mark_sensitive_if(marked),
                            after,
                            loc,
                            inst,
                            b,
                            d,
                        );
                    }
                    let whole = resolver
                        .resolve(type_name, block)
                        .unwrap_or_else(Value::unknown);
                    let v = index(whole, key, &e.loc)?;
                    return self.apply_steps(v, after, loc, inst, b, d);
                }
                match resolver.resolve(type_name, block) {
                    Some(v) => self.apply_steps(v, rest, loc, inst, b, d),
                    None => {
                        // Still evaluate index expressions, so that their own errors are reported.
                        self.apply_steps(Value::unknown(), rest, loc, inst, b, d)
                    }
                }
            }
        }
    }

    fn apply_steps(
        &self,
        mut v: Value,
        steps: &[Step],
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Attr(name) => v = get_attr(v, name, loc)?,
                Step::Index(e) => {
                    let key = self.eval_in(e, inst, b, d)?;
                    v = index(v, key, &e.loc)?;
                }
                Step::Splat => {
                    let rest = &steps[i + 1..];
                    let (coll, marked) = v.unmark();
                    let items: Vec<Value> = match coll {
                        Value::Unknown(_) => {
                            // The rest still has to be checked for errors; apply it to an unknown element.
                            self.apply_steps(Value::unknown(), rest, loc, inst, b, d)?;
                            return Ok(Value::Unknown(Type::List(Box::new(Type::Any)))
                                .mark_sensitive_if(marked));
                        }
                        Value::Null => Vec::new(),
                        Value::List(items) => items,
                        Value::Set(items) => items.into_iter().collect(),
                        other => vec![other],
                    };
                    let mut out = Vec::with_capacity(items.len());
                    for item in items {
                        out.push(self.apply_steps(item, rest, loc, inst, b, d)?);
                    }
                    return Ok(Value::List(out).mark_sensitive_if(marked));
                }
            }
        }
        Ok(v)
    }

    fn eval_for(
        &self,
        fe: &ForExpr,
        loc: &Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Value, EvalError> {
        let coll = self.eval_in(&fe.collection, inst, b, d)?;
        let (coll, marked) = coll.unmark();
        let pairs: Vec<(Value, Value)> = match coll {
            Value::Unknown(_) => {
                let ty = if fe.key.is_some() {
                    Type::Any
                } else {
                    Type::List(Box::new(Type::Any))
                };
                return Ok(Value::Unknown(ty).mark_sensitive_if(marked));
            }
            Value::List(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (Value::from(i), v))
                .collect(),
            Value::Set(items) => items.into_iter().map(|v| (v.clone(), v)).collect(),
            Value::Map(entries) => entries
                .into_iter()
                .map(|(k, v)| (Value::String(k), v))
                .collect(),
            Value::Null => {
                return Err(bad(
                    &fe.collection.loc,
                    "a `for` expression iterates over null",
                ));
            }
            _ => {
                return Err(bad(
                    &fe.collection.loc,
                    "a `for` expression needs a list, set or map",
                ));
            }
        };
        let mut list = Vec::new();
        let mut map: BTreeMap<String, Value> = BTreeMap::new();
        let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut unknown = false;
        let mut inner_marked = false;
        for (k, v) in pairs {
            let depth = b.len();
            if let Some(kv) = &fe.key_var {
                b.push((kv.clone(), k));
            }
            b.push((fe.value_var.clone(), v));
            let result = (|| -> Result<(), EvalError> {
                if let Some(cond) = &fe.cond {
                    let c = self.eval_in(cond, inst, b, d)?;
                    inner_marked |= c.contains_sensitive();
                    match c.peel() {
                        Value::Unknown(_) => {
                            unknown = true;
                            return Ok(());
                        }
                        other => {
                            if !to_bool(other, &cond.loc)? {
                                return Ok(());
                            }
                        }
                    }
                }
                let value = self.eval_in(&fe.value, inst, b, d)?;
                match &fe.key {
                    None => list.push(value),
                    Some(key_expr) => {
                        let key = self.eval_in(key_expr, inst, b, d)?;
                        inner_marked |= key.contains_sensitive();
                        match key.peel() {
                            Value::Unknown(_) => unknown = true,
                            other => {
                                let key = primitive_text(other).ok_or_else(|| {
                                    bad(&key_expr.loc, "a `for` key must be a string")
                                })?;
                                if fe.grouping {
                                    groups.entry(key).or_default().push(value);
                                } else if map.insert(key.clone(), value).is_some() {
                                    return Err(bad(
                                        &key_expr.loc,
                                        format!(
                                            "duplicate key {key:?} in a `for` expression (add `...` to group)"
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                }
                Ok(())
            })();
            b.truncate(depth);
            result?;
        }
        let out = if unknown {
            Value::unknown()
        } else if fe.key.is_none() {
            Value::List(list)
        } else if fe.grouping {
            Value::Map(
                groups
                    .into_iter()
                    .map(|(k, v)| (k, Value::List(v)))
                    .collect(),
            )
        } else {
            Value::Map(map)
        };
        let _ = loc;
        Ok(out.mark_sensitive_if(marked || inner_marked))
    }
}

/// `v.name`.
fn get_attr(v: Value, name: &str, loc: &Loc) -> Result<Value, EvalError> {
    let (v, marked) = v.unmark();
    let out = match v {
        Value::Unknown(_) => Value::unknown(),
        Value::Map(mut entries) => match entries.remove(name) {
            Some(x) => x,
            None => return Err(bad(loc, format!("this object has no attribute `{name}`"))),
        },
        Value::Null => return Err(bad(loc, format!("attribute `{name}` of a null value"))),
        _ => {
            return Err(bad(
                loc,
                format!("attribute `{name}` of a value that is not an object"),
            ));
        }
    };
    Ok(out.mark_sensitive_if(marked))
}

/// `v[key]`.
fn index(v: Value, key: Value, loc: &Loc) -> Result<Value, EvalError> {
    let (v, marked) = v.unmark();
    let (key, key_marked) = key.unmark();
    let marked = marked || key_marked;
    if v.is_unknown() || key.is_unknown() {
        return Ok(Value::unknown().mark_sensitive_if(marked));
    }
    let out = match v {
        Value::List(items) => {
            let n = to_number(&key, loc)?;
            let i = n.as_u64().ok_or_else(|| {
                bad(
                    loc,
                    format!("index {n} is not a whole number of at least 0"),
                )
            })?;
            let len = items.len();
            usize::try_from(i)
                .ok()
                .and_then(|i| items.into_iter().nth(i))
                .ok_or_else(|| {
                    bad(
                        loc,
                        format!("index {i} is out of range for a list of {len} element(s)"),
                    )
                })?
        }
        Value::Map(mut entries) => {
            let k = primitive_text(&key).ok_or_else(|| bad(loc, "a map key must be a string"))?;
            entries
                .remove(&k)
                .ok_or_else(|| bad(loc, format!("the map has no key {k:?}")))?
        }
        Value::Set(_) => {
            return Err(bad(
                loc,
                "a set cannot be indexed; convert it with tolist()",
            ));
        }
        Value::Null => return Err(bad(loc, "cannot index a null value")),
        _ => return Err(bad(loc, "only lists and maps can be indexed")),
    };
    Ok(out.mark_sensitive_if(marked))
}

/// The text of a known string, number or bool (what templates and map keys accept).
pub(crate) fn primitive_text(v: &Value) -> Option<String> {
    match v.peel() {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn template_text(v: &Value, loc: &Loc) -> Result<String, EvalError> {
    match v {
        Value::Null => Err(bad(loc, "a template interpolates null")),
        other => primitive_text(other).ok_or_else(|| {
            bad(
                loc,
                "a template can interpolate only strings, numbers and bools",
            )
        }),
    }
}

/// A known value as a number (numbers, and strings holding one, as Terraform converts).
pub(crate) fn to_number(v: &Value, loc: &Loc) -> Result<Number, EvalError> {
    match v.peel() {
        Value::Number(n) => Ok(*n),
        Value::String(s) => s.parse::<Number>().map_err(|_| {
            if v.is_sensitive() {
                bad(
                    loc,
                    "a number is required, found a (sensitive) string that is not one",
                )
            } else {
                bad(loc, format!("{s:?} is not a number"))
            }
        }),
        Value::Null => Err(bad(loc, "a number is required, found null")),
        _ => Err(bad(loc, "a number is required")),
    }
}

/// A known value as a bool (bools, and the strings `"true"` / `"false"`).
pub(crate) fn to_bool(v: &Value, loc: &Loc) -> Result<bool, EvalError> {
    match v.peel() {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        Value::Null => Err(bad(loc, "a bool is required, found null")),
        _ => Err(bad(loc, "a bool is required")),
    }
}

fn binary(op: BinaryOp, l: Value, r: Value, lloc: &Loc, rloc: &Loc) -> Result<Value, EvalError> {
    let marked = l.contains_sensitive() || r.contains_sensitive();
    let result_type = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => {
            Type::Number
        }
        _ => Type::Bool,
    };
    let out = match op {
        BinaryOp::Eq | BinaryOp::NotEq => {
            let eq = l.equals(&r);
            match eq.peel() {
                Value::Bool(b) => Value::Bool(if op == BinaryOp::Eq { *b } else { !*b }),
                _ => Value::Unknown(Type::Bool),
            }
        }
        BinaryOp::And | BinaryOp::Or => {
            let lb = if l.is_unknown() {
                None
            } else {
                Some(to_bool(&l, lloc)?)
            };
            let rb = if r.is_unknown() {
                None
            } else {
                Some(to_bool(&r, rloc)?)
            };
            let is_and = op == BinaryOp::And;
            match (lb, rb) {
                (Some(a), Some(b)) => Value::Bool(if is_and { a && b } else { a || b }),
                // A known operand that decides the result on its own makes the other's unknown irrelevant.
                (Some(x), None) | (None, Some(x)) if x != is_and => Value::Bool(x),
                _ => Value::Unknown(Type::Bool),
            }
        }
        _ if l.is_unknown() || r.is_unknown() => {
            // Type-check the known side, so `"a" + unknown` is still an error.
            for (v, loc) in [(&l, lloc), (&r, rloc)] {
                if !v.is_unknown() {
                    to_number(v, loc)?;
                }
            }
            Value::Unknown(result_type)
        }
        _ => {
            let a = to_number(&l, lloc)?;
            let b = to_number(&r, rloc)?;
            let overflow = || bad(lloc, "the result is not a finite number");
            match op {
                BinaryOp::Add => Value::Number(a.checked_add(b).ok_or_else(overflow)?),
                BinaryOp::Sub => Value::Number(a.checked_sub(b).ok_or_else(overflow)?),
                BinaryOp::Mul => Value::Number(a.checked_mul(b).ok_or_else(overflow)?),
                BinaryOp::Div => Value::Number(
                    a.checked_div(b)
                        .ok_or_else(|| bad(rloc, "division by zero"))?,
                ),
                BinaryOp::Mod => Value::Number(
                    a.checked_rem(b)
                        .ok_or_else(|| bad(rloc, "modulo by zero"))?,
                ),
                BinaryOp::Less => Value::Bool(a < b),
                BinaryOp::LessEq => Value::Bool(a <= b),
                BinaryOp::Greater => Value::Bool(a > b),
                BinaryOp::GreaterEq => Value::Bool(a >= b),
                _ => Value::Unknown(result_type),
            }
        }
    };
    Ok(out.mark_sensitive_if(marked))
}
