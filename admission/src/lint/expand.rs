//! Expansion: a resource block's `count` or `for_each` turned into its declared instances, each with the
//! values of its arguments known before any read and its identity values, which discovery needs.
//!
//! Expansion reports only what stops it (a `count` or `for_each` that is not static or not a whole number,
//! a map or a set of strings); every other rule lives in [`super::rules`] and is called where it applies.
//! It never reads the live system.

use std::collections::BTreeMap;

use crate::address::{InstanceAddress, InstanceKey};
use crate::config::{Attr, Expr, ExprKind, Repetition, Resource};
use crate::diag::{Code, Diagnostic};
use crate::eval::{EvalError, Instance};
use crate::lint::Lint;
use crate::lint::rules::addresses::all_indices_fit;
use crate::schema::ResourceTypeSchema;
use crate::value::Value;
use ::provider::AdmissionPath;

/// The instance keys of a block, each with what `count.index` or `each.*` mean for it.
pub(crate) type Repetitions = Vec<(InstanceKey, Instance)>;

/// How one identity argument of a declared instance is known before any read.
#[derive(Debug, Clone, PartialEq)]
pub enum IdentityValue {
    /// Computed from variables, locals and literals.
    Static(Value),
    /// A component that reads a declared parent's attributes (a parent-derived identity); it is resolved in
    /// dependency order, after the parent is bound.
    FromParent,
}

/// One instance the configuration declares, as discovery needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpandedInstance {
    /// The instance address.
    pub address: InstanceAddress,
    /// What `count.index` or `each.*` mean for it (to evaluate its arguments later).
    pub repetition: Instance,
    /// The type's admission path.
    pub admission: AdmissionPath,
    /// The identity arguments in the schema's order, for the instances whose identity passed lint.
    pub identity: Vec<(String, IdentityValue)>,
    /// Every argument whose value is known before any read (bind-candidate matching compares these).
    pub static_values: BTreeMap<String, Value>,
}

/// What a static evaluation of an identity argument gives, as the plan's evaluation of it showed.
pub(crate) enum StaticResult {
    /// No resource was read: the same result.
    Same(Result<Value, EvalError>),
    /// A resource was read: the static evaluation refuses it ([`EvalError::NotStatic`]).
    ReadsResource,
}

/// How an argument's evaluation is shared among the instances of its block.
enum Shared {
    /// It reads `count` or `each`: evaluated for each instance.
    PerInstance,
    /// It reads neither, so every instance gets the same result (and the same diagnostics): evaluated
    /// for the first instance, then remembered with whether it read a resource.
    Once(Option<(Result<Value, EvalError>, bool)>),
}

/// What is the same for every instance of one resource block, worked out once.
pub(crate) struct BlockFacts<'r> {
    pub(crate) schema: &'r ResourceTypeSchema,
    pub(crate) path: AdmissionPath,
    /// Per argument, in the block's order.
    shared: Vec<Shared>,
    /// Whether the path finds objects by identity arguments (client-named, parent-derived, list-and-match).
    pub(crate) has_identity: bool,
    /// Per identity argument (schema order): whether it calls `uuid()` or `timestamp()`.
    pub(crate) impure: Vec<bool>,
}

impl<'r> BlockFacts<'r> {
    fn new(
        cx: &Lint<'_, '_, '_>,
        res: &Resource,
        schema: &'r ResourceTypeSchema,
        path: AdmissionPath,
    ) -> Self {
        let has_identity = matches!(
            path,
            AdmissionPath::ClientNamed | AdmissionPath::ParentDerived | AdmissionPath::ListMatch
        );
        let impure = schema
            .identity_arguments()
            .iter()
            .map(|arg| {
                has_identity
                    && res
                        .attrs
                        .get(arg)
                        .is_some_and(|attr| cx.statics.reads_impure(&attr.expr))
            })
            .collect();
        let shared = res
            .attrs
            .values()
            .map(|attr| {
                if reads_repetition(&attr.expr) {
                    Shared::PerInstance
                } else {
                    Shared::Once(None)
                }
            })
            .collect();
        BlockFacts {
            schema,
            path,
            shared,
            has_identity,
            impure,
        }
    }

    /// Whether the argument `name` is an identity argument the lint judges.
    fn is_identity(&self, name: &str) -> bool {
        self.has_identity && self.schema.identity_arguments().iter().any(|a| a == name)
    }
}

/// Whether `expr` names `count` or `each` anywhere (the only names whose value differs between the
/// instances of a block; a `for` variable of either name counts too, which errs on the safe side).
fn reads_repetition(expr: &Expr) -> bool {
    let mut found = false;
    expr.walk(&mut |e| {
        if let ExprKind::Variable(name) = &e.kind
            && (name == "count" || name == "each")
        {
            found = true;
        }
    });
    found
}

impl Lint<'_, '_, '_> {
    /// Lints one resource block and returns its declared instances.
    pub(crate) fn resource(&mut self, res: &Resource) -> Vec<ExpandedInstance> {
        let Some((schema, path, block)) = self.admitted_type(res) else {
            return Vec::new();
        };
        self.lifecycle(res);
        self.identity_rules(res, schema, path);
        let mut facts = BlockFacts::new(self, res, schema, path);
        let repetitions = match self.repetitions(res) {
            Some(r) if !r.is_empty() => r,
            _ => {
                // `count = 0`, an empty `for_each`, or one not known (at validate): the block is still
                // checked, for some instance, as `terraform validate` does.
                self.unexpanded(res, &facts);
                return Vec::new();
            }
        };
        let all_fit = all_indices_fit(&block, &repetitions);
        let mut out = Vec::with_capacity(repetitions.len());
        for (key, inst) in repetitions {
            let address = block.instance(key);
            let address_text = address.to_string();
            if !all_fit {
                self.address_length(res, &address, &address_text);
            }
            out.push(self.instance(res, &mut facts, address, address_text, inst));
        }
        out
    }

    /// The instance keys of a block, or `None` when `count`/`for_each` cannot be expanded.
    fn repetitions(&mut self, res: &Resource) -> Option<Repetitions> {
        let address = res.address().to_string();
        let (attr, code, what) = match &res.repetition {
            Repetition::Single => return Some(vec![(InstanceKey::None, Instance::Single)]),
            Repetition::Count(count) => (count, Code::NonStaticCount, "count"),
            Repetition::ForEach(for_each) => (for_each, Code::NonStaticForEach, "for_each"),
        };
        let v = self.static_value(&attr.expr, &Instance::Single, code, &address, what)?;
        if matches!(res.repetition, Repetition::Count(_)) {
            self.count_indices(v, attr, &address)
        } else {
            self.for_each_keys(v, attr, &address)
        }
    }

    /// The indices `count` (of the block `address`, statically `v`) declares: 0, 1, ... up to a whole
    /// number.
    fn count_indices(&mut self, v: Value, count: &Attr, address: &str) -> Option<Repetitions> {
        // `count` is a number, converted as Terraform converts (`"3"` from an untyped variable is 3).
        let n = crate::value::convert(v.clone(), &crate::value::Type::Number)
            .ok()
            .and_then(|n| n.as_number().and_then(|n| n.as_u64()))
            .filter(|_| !v.contains_sensitive());
        let Some(n) = n else {
            self.push(
                Diagnostic::new(
                    Code::InvalidArgument,
                    format!("Invalid count argument: `count` of `{address}` must be a whole number of at least 0, not {v}"),
                    "give count a non-negative whole number",
                )
                .with_address(address)
                .at(count.expr.loc.to_pos()),
            );
            return None;
        };
        Some(
            (0..n)
                .map(|i| (InstanceKey::Int(i), Instance::Count(i)))
                .collect(),
        )
    }

    /// The keys `for_each` (of the block `address`, statically `v`) declares: a map's keys, or a set of
    /// strings, each admitted as part of an address.
    fn for_each_keys(&mut self, v: Value, for_each: &Attr, address: &str) -> Option<Repetitions> {
        let bad = |what: &str| {
            Diagnostic::new(
                Code::InvalidArgument,
                format!("Invalid for_each argument: `for_each` of `{address}` {what}"),
                "give for_each a map, or a set of strings (toset([...]))",
            )
            .with_address(address)
            .at(for_each.expr.loc.to_pos())
        };
        if v.is_sensitive() {
            self.push(bad(
                "is sensitive, and instance keys are shown in every plan",
            ));
            return None;
        }
        let pairs: Vec<(String, Value)> = match v.peel() {
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            Value::Set(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item.as_str() {
                        Some(s) if !item.is_sensitive() => out.push((s.to_string(), item.clone())),
                        _ => {
                            self.push(bad("holds a value that is not a plain string"));
                            return None;
                        }
                    }
                }
                out
            }
            Value::List(_) => {
                self.push(bad(
                    "is a list; convert it with toset() so that keys are unique",
                ));
                return None;
            }
            _ => {
                self.push(bad("is not a map or a set of strings"));
                return None;
            }
        };
        let mut out = Vec::new();
        for (key, value) in pairs {
            if !self.for_each_key_admitted(&key, address, &for_each.expr.loc) {
                continue;
            }
            out.push((InstanceKey::Str(key.clone()), Instance::Each { key, value }));
        }
        Some(out)
    }

    /// A value that must be known before any read; reports `code` when it is not.
    fn static_value(
        &mut self,
        expr: &Expr,
        inst: &Instance,
        code: Code,
        address: &str,
        what: &str,
    ) -> Option<Value> {
        match self.statics.eval(expr, inst) {
            Ok(v) if v.is_known() => Some(v),
            // At validate a variable without a value is unknown: the plan judges what it gives.
            Ok(_) if self.validating() && !self.statics.reads_impure(expr) => None,
            Ok(_) => {
                let impure = self.statics.reads_impure(expr);
                let why = if impure {
                    "calls uuid() or timestamp()"
                } else {
                    "is not known until apply"
                };
                self.push(
                    Diagnostic::new(
                        code,
                        format!("`{what}` of `{address}` {why}"),
                        "compute it from variables, locals and literals only",
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                None
            }
            Err(e) => {
                let mut d = e.into_diagnostic(code);
                if d.address.is_none() {
                    d = d.with_address(address);
                }
                self.push(d);
                None
            }
        }
    }

    /// A block that expands to no instance: every argument evaluated for some instance (`count.index`
    /// and `each.*` unknown) and judged against the schema, so that its errors show though nothing is
    /// planned for it.
    fn unexpanded(&mut self, res: &Resource, facts: &BlockFacts<'_>) {
        let inst = match res.repetition {
            Repetition::Single => Instance::Single,
            Repetition::Count(_) => Instance::AnyIndex,
            Repetition::ForEach(_) => Instance::AnyKey,
        };
        let address = res.address().to_string();
        let mut configured = BTreeMap::new();
        for (name, attr) in &res.attrs {
            let v = match self.dynamic.eval(&attr.expr, &inst) {
                Ok(v) => v,
                Err(e) => {
                    let d = e.into_diagnostic(Code::InvalidExpression);
                    self.push(d.with_address(&address));
                    Value::unknown()
                }
            };
            configured.insert(name.clone(), v);
        }
        self.arguments(res, facts.schema, &configured, &address);
    }

    /// One declared instance of `res`: every argument evaluated as the plan will, its tags, arguments
    /// and identity judged, and the values known before any read kept.
    pub(crate) fn instance(
        &mut self,
        res: &Resource,
        facts: &mut BlockFacts<'_>,
        address: InstanceAddress,
        text: String,
        inst: Instance,
    ) -> ExpandedInstance {
        let (schema, path) = (facts.schema, facts.path);
        // Every argument is evaluated as the plan will, so that type errors surface in validate. The one
        // evaluation also tells what a static evaluation would give (see `Evaluator::eval_tracked`).
        let mut static_values = BTreeMap::new();
        let mut configured = BTreeMap::new();
        let mut identity_statics: Vec<(&str, StaticResult)> = Vec::new();
        let mut shared_results = std::mem::take(&mut facts.shared);
        for ((name, attr), shared) in res.attrs.iter().zip(&mut shared_results) {
            let (result, read_resource) = match shared {
                Shared::PerInstance => self.dynamic.eval_tracked(&attr.expr, &inst),
                Shared::Once(Some(evaluated)) => evaluated.clone(),
                Shared::Once(first) => first
                    .insert(self.dynamic.eval_tracked(&attr.expr, &inst))
                    .clone(),
            };
            if facts.is_identity(name) {
                let statics = if read_resource {
                    StaticResult::ReadsResource
                } else {
                    StaticResult::Same(result.clone())
                };
                identity_statics.push((name, statics));
            }
            match result {
                Ok(v) => {
                    if name == "tags" {
                        self.tag_keys(&v, &text, &attr.expr);
                    }
                    if v.is_known() && !read_resource {
                        static_values.insert(name.clone(), v.clone());
                    }
                    configured.insert(name.clone(), v);
                }
                Err(e) => {
                    let d = e.into_diagnostic(Code::InvalidExpression);
                    self.push(d.with_address(&text));
                    // An argument that fails to evaluate is still set.
                    configured.insert(name.clone(), Value::unknown());
                }
            }
        }
        facts.shared = shared_results;
        self.arguments(res, schema, &configured, &text);
        let identity = self.identity(res, facts, &inst, &text, identity_statics);
        ExpandedInstance {
            address,
            repetition: inst,
            admission: path,
            identity,
            static_values,
        }
    }
}
