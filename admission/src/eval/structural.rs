//! Structural types: whether a collection is a list or a tuple, a map or an object, as Terraform's type
//! system tells them apart. A [`Value`] does not say (`Value::List` holds lists and tuples alike), so
//! this module works the type out from the expression that made the value: a literal `[...]` or `{...}`
//! and a `for` expression make a tuple or an object, `tolist`, `toset` and `tomap` a list, a set or a
//! map, a variable has its declared type constraint, and a few functions (`concat`, `merge`, `keys`,
//! `values`, `lookup`) have a result type that follows their arguments' types, as cty computes it.
//!
//! A static type is [`Type::Any`] wherever the expression does not say (a resource attribute, a `for`
//! variable, most function results): an `Any` never makes two values differ. The types are consulted
//! where Terraform's answer depends on them: `==` and `!=` compare type and value, a conditional
//! unifies its two results' types, and `lookup` converts its default to a map's element type. This
//! module never changes a value and never reads anything the evaluation it follows did not read.

use std::collections::BTreeMap;

use super::expr::{MAX_EVAL_DEPTH, object_from};
use super::{Bindings, EvalError, Evaluator, Instance, functions};
use crate::config::{Expr, ExprKind, Step, TemplatePart, TypeConstraint};
use crate::value::{Type, Value, convert, unify_types};

/// A value with the static type of the expression that gave it.
pub(super) type Typed = (Value, Type);

/// The functions whose result type follows their arguments' static types (the others' is the type
/// their values show, or the registry's).
const TYPED_FUNCTIONS: &[&str] = &[
    "tolist",
    "toset",
    "tomap",
    "concat",
    "merge",
    "keys",
    "values",
    "lookup",
    "sensitive",
    "nonsensitive",
];

/// Whether the call `name` is evaluated through [`Evaluator::call_typed`] even when only its value is
/// wanted: `lookup`'s value depends on whether its first argument is a map or an object.
pub(super) fn value_needs_types(name: &str) -> bool {
    name == "lookup"
}

impl Evaluator<'_> {
    /// Evaluates `expr` as [`Evaluator::eval_in`] does, with its static type.
    pub(super) fn eval_typed(
        &self,
        expr: &Expr,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Typed, EvalError> {
        if d > MAX_EVAL_DEPTH {
            // Too deep: the plain walk gives the error.
            return self.untyped(expr, inst, b, d);
        }
        let d = d + 1;
        match &expr.kind {
            ExprKind::List(items) => {
                let mut values = Vec::with_capacity(items.len());
                let mut types = Vec::with_capacity(items.len());
                for item in items {
                    let (v, t) = self.eval_typed(item, inst, b, d)?;
                    values.push(v);
                    types.push(t);
                }
                Ok((Value::List(values), Type::Tuple(types)))
            }
            ExprKind::Object(items) => {
                let (v, fields) = self.eval_object_typed(items, inst, b, d)?;
                let t = match (v.peel(), fields) {
                    (Value::Map(_), Some(fields)) => Type::Object(fields),
                    _ => Type::Any,
                };
                Ok((v, t))
            }
            ExprKind::Template(parts) => match parts.as_slice() {
                [TemplatePart::Interpolation(only)] => self.eval_typed(only, inst, b, d),
                _ => self.untyped(expr, inst, b, d),
            },
            ExprKind::Variable(name) => self.root_typed(name, &[], expr, inst, b, d),
            ExprKind::Traversal(base, steps) => match &base.kind {
                ExprKind::Variable(name) => self.root_typed(name, steps, expr, inst, b, d),
                _ => {
                    let (v, t) = self.eval_typed(base, inst, b, d)?;
                    let t = step_type(&t, steps);
                    let v = self.apply_steps(v, steps, &expr.loc, inst, b, d)?;
                    Ok((v, t))
                }
            },
            ExprKind::Call { name, args, expand }
                if !*expand && TYPED_FUNCTIONS.contains(&name.as_str()) =>
            {
                self.call_typed(name, args, &expr.loc, inst, b, d)
            }
            ExprKind::Conditional(c, t, f) => self.eval_conditional_typed([c, t, f], inst, b, d),
            _ => self.untyped(expr, inst, b, d),
        }
    }

    /// An expression whose type is only what its value shows.
    fn untyped(
        &self,
        expr: &Expr,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Typed, EvalError> {
        let v = self.eval_in(expr, inst, b, d)?;
        let t = match (&expr.kind, v.peel()) {
            // A `for` expression makes a tuple or an object, whatever it iterates.
            (ExprKind::For(_), Value::List(items)) => {
                Type::Tuple(items.iter().map(shown_type).collect())
            }
            (ExprKind::For(_), Value::Map(entries)) => Type::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), shown_type(v)))
                    .collect(),
            ),
            _ => shown_type(&v),
        };
        Ok((v, t))
    }

    /// A root name and its steps: a variable has its declared type, a local the type of its expression.
    fn root_typed(
        &self,
        name: &str,
        steps: &[Step],
        expr: &Expr,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Typed, EvalError> {
        let v = self.root(name, steps, &expr.loc, inst, b, d)?;
        let bound = b.iter().any(|(n, _)| n == name);
        let declared = match (name, steps.first()) {
            (_, _) if bound => None,
            ("var", Some(Step::Attr(var))) => self.variable_type(var),
            ("local", Some(Step::Attr(local))) => self.local_type(local),
            _ => None,
        };
        let t = match declared {
            Some(t) => step_type(&t, &steps[1..]),
            None => shown_type(&v),
        };
        Ok((v, t))
    }

    /// The static type of the variable `var`: its type constraint, and for a variable without one (or
    /// `any`) the type of the literal that gave its value.
    fn variable_type(&self, var: &str) -> Option<Type> {
        let decl = self.config.variables().get(var)?;
        match &decl.var_type {
            TypeConstraint::Any => self.vars.get(var).map(literal_type),
            tc => Some(tc.to_type()),
        }
    }

    /// The static type of the local `name`'s expression, remembered when its value was evaluated.
    fn local_type(&self, name: &str) -> Option<Type> {
        self.local_types.borrow().get(name).cloned()
    }

    /// `{ key = value, ... }` as [`Evaluator::eval_object`] evaluates it, with each attribute's type
    /// (`None` when a key is unknown).
    fn eval_object_typed(
        &self,
        items: &[(Expr, Expr)],
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<(Value, Option<BTreeMap<String, Type>>), EvalError> {
        let mut pairs = Vec::with_capacity(items.len());
        let mut fields = Some(BTreeMap::new());
        for (k, v) in items {
            let key = self.eval_in(k, inst, b, d)?;
            let (value, t) = self.eval_typed(v, inst, b, d)?;
            match (super::primitive_text(&key), fields.as_mut()) {
                (Some(name), Some(fields)) => {
                    fields.insert(name, t);
                }
                _ => fields = None,
            }
            pairs.push((k, key, value));
        }
        Ok((object_from(pairs)?, fields))
    }

    /// A call of one of [`TYPED_FUNCTIONS`]: its arguments evaluated with their types, its result typed
    /// as cty types it.
    pub(super) fn call_typed(
        &self,
        name: &str,
        args: &[Expr],
        loc: &crate::config::Loc,
        inst: &Instance,
        b: &mut Bindings,
        d: usize,
    ) -> Result<Typed, EvalError> {
        let mut values = Vec::with_capacity(args.len());
        let mut types = Vec::with_capacity(args.len());
        for arg in args {
            let (v, t) = self.eval_typed(arg, inst, b, d)?;
            values.push(v);
            types.push(t);
        }
        if name == "lookup" {
            lookup_default(&mut values, &types);
        }
        let ctx = functions::Ctx {
            name,
            loc,
            impure: self.impure,
            module: self.module,
            in_template: self.in_template,
        };
        let v = functions::call(&ctx, values.clone())?;
        let t = result_type(name, &values, &types, &v);
        Ok((v, t))
    }
}

/// `lookup(map, key, default)` of a map converts the default to the map's element type (an object's
/// default stays as given). A default that does not convert is left for `lookup` to return as it is.
fn lookup_default(values: &mut [Value], types: &[Type]) {
    let [map, _, default] = values else { return };
    let Some(elem) = map_element(&types[0], map) else {
        return;
    };
    if let Ok(converted) = convert(default.clone(), &elem) {
        *default = converted;
    }
}

/// The element type of a value whose static type is a map; `None` for anything else.
fn map_element(t: &Type, v: &Value) -> Option<Type> {
    let Type::Map(elem) = t else { return None };
    if !has_any(elem) {
        return Some((**elem).clone());
    }
    // A `map(any)` holds elements of the one type its entries unified to.
    let shown: Vec<Type> = v.as_map()?.values().map(Value::type_of).collect();
    unify_types(&shown).filter(|t| *t != Type::Any)
}

/// The result type of a typed function, from its arguments' static types and its result.
fn result_type(name: &str, values: &[Value], types: &[Type], result: &Value) -> Type {
    let first = types.first().cloned().unwrap_or(Type::Any);
    match name {
        "tolist" => Type::List(Box::new(element_type(&first))),
        "toset" => Type::Set(Box::new(element_type(&first))),
        "tomap" => Type::Map(Box::new(match first {
            Type::Object(fields) => unified(fields.values()),
            Type::Map(t) => *t,
            _ => Type::Any,
        })),
        "concat" => concat_type(values, types),
        "merge" => merge_type(values, types),
        "keys" => match first {
            Type::Map(_) => Type::List(Box::new(Type::String)),
            Type::Object(fields) => Type::Tuple(vec![Type::String; fields.len()]),
            _ => Type::Any,
        },
        "values" => match first {
            Type::Map(t) => Type::List(t),
            Type::Object(fields) => Type::Tuple(fields.into_values().collect()),
            _ => Type::Any,
        },
        "lookup" => match (&first, values.get(1).and_then(Value::as_str)) {
            (Type::Map(t), _) => (**t).clone(),
            (Type::Object(fields), Some(key)) => match fields.get(key) {
                Some(t) => t.clone(),
                None => types.get(2).cloned().unwrap_or(Type::Any),
            },
            _ => shown_type(result),
        },
        "sensitive" | "nonsensitive" => first,
        _ => shown_type(result),
    }
}

/// The element type a list or set conversion gives a collection of static type `t`.
fn element_type(t: &Type) -> Type {
    match t {
        Type::Tuple(items) => unified(items.iter()),
        Type::List(t) | Type::Set(t) => (**t).clone(),
        _ => Type::Any,
    }
}

/// The unified type of `types`, `Any` when they have none.
fn unified<'t>(types: impl Iterator<Item = &'t Type>) -> Type {
    let types: Vec<Type> = types.cloned().collect();
    if types.is_empty() {
        return Type::Any;
    }
    unify_types(&types).unwrap_or(Type::Any)
}

/// `concat`: lists of one type give that list type; otherwise a tuple of every element's type.
fn concat_type(values: &[Value], types: &[Type]) -> Type {
    if let Some(first @ Type::List(_)) = types.first()
        && types.iter().all(|t| t == first)
    {
        return first.clone();
    }
    let mut elems = Vec::new();
    for (v, t) in values.iter().zip(types) {
        match (t, v.as_list()) {
            (Type::Tuple(items), _) => elems.extend(items.iter().cloned()),
            (Type::List(e), Some(items)) => {
                elems.extend(std::iter::repeat_n((**e).clone(), items.len()))
            }
            _ => return Type::Any,
        }
    }
    Type::Tuple(elems)
}

/// `merge`: arguments all of one type give that type; otherwise an object of every attribute.
fn merge_type(values: &[Value], types: &[Type]) -> Type {
    let Some(first) = types.first() else {
        return Type::Object(BTreeMap::new());
    };
    if types.contains(&Type::Any) {
        return Type::Any;
    }
    if types.iter().all(|t| t == first) {
        return first.clone();
    }
    let mut fields = BTreeMap::new();
    for (v, t) in values.iter().zip(types) {
        match (t, v.as_map()) {
            (Type::Object(attrs), Some(_)) => fields.extend(attrs.clone()),
            (Type::Map(e), Some(entries)) => {
                fields.extend(entries.keys().map(|k| (k.clone(), (**e).clone())))
            }
            _ => {}
        }
    }
    Type::Object(fields)
}

/// The static type after `steps`: an attribute or key of an object or map, an element of a list or
/// (at a literal index) of a tuple; `Any` past anything else.
fn step_type(t: &Type, steps: &[Step]) -> Type {
    let mut t = t.clone();
    for step in steps {
        t = match (t, step) {
            (Type::Object(mut fields), Step::Attr(name)) => {
                fields.remove(name).unwrap_or(Type::Any)
            }
            (Type::Map(e), Step::Attr(_) | Step::Index(_)) | (Type::List(e), Step::Index(_)) => *e,
            (Type::Object(mut fields), Step::Index(key)) => match &key.kind {
                ExprKind::String(k) => fields.remove(k).unwrap_or(Type::Any),
                _ => Type::Any,
            },
            (Type::Tuple(mut items), Step::Index(i)) => match &i.kind {
                ExprKind::Number(n) => n
                    .as_i64()
                    .and_then(|i| usize::try_from(i).ok())
                    .filter(|i| *i < items.len())
                    .map_or(Type::Any, |i| items.swap_remove(i)),
                _ => Type::Any,
            },
            _ => Type::Any,
        };
    }
    t
}

/// The type of a value written as a literal (a variable's default, a `--var`): sequences are tuples
/// and maps objects.
fn literal_type(v: &Value) -> Type {
    match v.peel() {
        Value::List(items) => Type::Tuple(items.iter().map(literal_type).collect()),
        Value::Map(entries) => Type::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), literal_type(v)))
                .collect(),
        ),
        Value::Set(_) | Value::Null | Value::Unknown(_) => Type::Any,
        _ => v.type_of(),
    }
}

/// What a value alone shows of its static type: a primitive's type, a set, and `Any` for a sequence
/// or a map, which may be either kind.
fn shown_type(v: &Value) -> Type {
    match v.peel() {
        Value::Bool(_) | Value::Number(_) | Value::String(_) => v.type_of(),
        Value::Set(_) => Type::Set(Box::new(Type::Any)),
        _ => Type::Any,
    }
}

/// Whether `Any` sits anywhere in `t`.
pub(super) fn has_any(t: &Type) -> bool {
    match t {
        Type::Any => true,
        Type::List(e) | Type::Set(e) | Type::Map(e) => has_any(e),
        Type::Object(fields) => fields.values().any(has_any),
        Type::Tuple(items) => items.iter().any(has_any),
        _ => false,
    }
}

/// The type a conditional unifies a branch by: its static type, with what the value shows wherever
/// the static type says nothing.
pub(super) fn refined(t: &Type, v: &Value) -> Type {
    match (t, v.peel()) {
        (Type::Any, _) => v.type_of(),
        (Type::List(e), Value::List(items)) => Type::List(Box::new(
            items.first().map_or((**e).clone(), |x| refined(e, x)),
        )),
        (Type::Set(e), Value::Set(items)) => Type::Set(Box::new(
            items.first().map_or((**e).clone(), |x| refined(e, x)),
        )),
        (Type::Map(e), Value::Map(entries)) => Type::Map(Box::new(
            entries
                .values()
                .next()
                .map_or((**e).clone(), |x| refined(e, x)),
        )),
        (Type::Tuple(ts), Value::List(items)) if ts.len() == items.len() => {
            Type::Tuple(ts.iter().zip(items).map(|(t, x)| refined(t, x)).collect())
        }
        (Type::Object(fields), Value::Map(entries)) => Type::Object(
            fields
                .iter()
                .map(|(k, t)| {
                    let t = entries.get(k).map_or(t.clone(), |x| refined(t, x));
                    (k.clone(), t)
                })
                .collect(),
        ),
        _ => t.clone(),
    }
}

/// Whether two values that `==` compares are of different types as far as their static types tell:
/// a list never equals a tuple, nor a map an object, whatever they hold. A null or unknown operand is
/// left to the value comparison (nulls of any types are equal, as in cty).
pub(super) fn types_differ(l: &Typed, r: &Typed) -> bool {
    let open = |v: &Value| v.is_null() || v.is_unknown();
    if open(&l.0) || open(&r.0) {
        return false;
    }
    differ(&l.1, &r.1)
}

fn differ(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Any, _) | (_, Type::Any) => false,
        (Type::List(x), Type::List(y))
        | (Type::Set(x), Type::Set(y))
        | (Type::Map(x), Type::Map(y)) => differ(x, y),
        (Type::Tuple(xs), Type::Tuple(ys)) => {
            xs.len() != ys.len() || xs.iter().zip(ys).any(|(x, y)| differ(x, y))
        }
        (Type::Object(xs), Type::Object(ys)) => {
            xs.keys().ne(ys.keys()) || xs.values().zip(ys.values()).any(|(x, y)| differ(x, y))
        }
        // Two primitives, or two kinds of collection.
        (a, b) => a != b,
    }
}
