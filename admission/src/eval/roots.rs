//! Root names: what the first name of a reference means (`var`, `local`, `count`, `each`, a `for`
//! variable, a resource block, or a name Terraform reserves), one function per root.
//!
//! Only here does an evaluation read a resource, through the caller's resolver; a static evaluator
//! stops at it with [`EvalError::NotStatic`].

use super::steps::index;
use super::{
    Bindings, EvalError, Evaluator, Fault, Instance, ResourceResolver, bad, reserved_root,
    unknown_ref,
};
use crate::config::{Loc, Step};
use crate::diag::Code;
use crate::value::Value;

/// A reference being resolved below its root name: the steps that follow the root, where the reference
/// is written, and the instance and depth it is evaluated at.
struct Reference<'r> {
    steps: &'r [Step],
    loc: &'r Loc,
    inst: &'r Instance,
    d: usize,
}

impl Reference<'_> {
    /// The attribute name the first step gives (`var.NAME`, `count.index`), if it is one.
    fn first_attr(&self) -> Option<&str> {
        match self.steps.first() {
            Some(Step::Attr(a)) => Some(a.as_str()),
            _ => None,
        }
    }

    /// The steps after the first.
    fn rest(&self) -> &[Step] {
        self.steps.get(1..).unwrap_or(&[])
    }
}

impl Evaluator<'_> {
    /// Evaluates a root name and the steps that follow it.
    pub(super) fn root(
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
        let r = Reference {
            steps,
            loc,
            inst,
            d,
        };
        match name {
            "var" => self.var_root(&r, b),
            "local" => self.local_root(&r, b),
            "count" => self.count_root(&r, b),
            "each" => self.each_root(&r, b),
            "path" | "terraform" => self.context_root(name, &r, b),
            "data" => self.data_root(&r, b),
            type_name if reserved_root(type_name).is_some() => Err(unknown_ref(
                loc,
                format!(
                    "`{type_name}` references are not available: {}",
                    reserved_root(type_name).unwrap_or_default()
                ),
                "refer to `var.NAME`, `local.NAME` or a resource as `TYPE.NAME.ATTR`",
            )),
            type_name => self.resource_root(type_name, &r, b),
        }
    }

    /// `var.NAME...`: a declared variable's value, sensitive when the variable is.
    fn var_root(&self, r: &Reference<'_>, b: &mut Bindings) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        let Some(var) = r.first_attr() else {
            return Err(bad(
                loc,
                Fault::InvalidReference,
                "`var` must be followed by a variable name",
            ));
        };
        if self.config.variables().contains_key(var) && !self.vars.contains_key(var) {
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
            .variables()
            .get(var)
            .is_some_and(|decl| decl.sensitive);
        let v = v.clone().mark_sensitive_if(marked);
        self.apply_steps(v, r.rest(), loc, inst, b, d)
    }

    /// `local.NAME...`: the local's value, evaluated once.
    fn local_root(&self, r: &Reference<'_>, b: &mut Bindings) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        let Some(local) = r.first_attr() else {
            return Err(bad(
                loc,
                Fault::InvalidReference,
                "`local` must be followed by a local name",
            ));
        };
        let v = self.local_at(local, loc, d)?;
        self.apply_steps(v, r.rest(), loc, inst, b, d)
    }

    /// `count.index`, inside a `count` block only.
    fn count_root(&self, r: &Reference<'_>, b: &mut Bindings) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        match (r.first_attr(), inst) {
            (Some("index"), Instance::Count(i)) => {
                self.apply_steps(Value::from(*i), r.rest(), loc, inst, b, d)
            }
            (Some("index"), Instance::AnyIndex) => self.apply_steps(
                Value::unknown_of(crate::value::Type::Number),
                r.rest(),
                loc,
                inst,
                b,
                d,
            ),
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
        }
    }

    /// `each.key` and `each.value`, inside a `for_each` block only.
    fn each_root(&self, r: &Reference<'_>, b: &mut Bindings) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        let rest = r.rest();
        match (r.first_attr(), inst) {
            (Some("key"), Instance::Each { key, .. }) => {
                self.apply_steps(Value::String(key.clone()), rest, loc, inst, b, d)
            }
            (Some("value"), Instance::Each { value, .. }) => {
                self.apply_steps(value.clone(), rest, loc, inst, b, d)
            }
            (Some("key"), Instance::AnyKey) => self.apply_steps(
                Value::unknown_of(crate::value::Type::String),
                rest,
                loc,
                inst,
                b,
                d,
            ),
            (Some("value"), Instance::AnyKey) => {
                self.apply_steps(Value::unknown(), rest, loc, inst, b, d)
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
        }
    }

    /// `path.module`, `path.root`, `path.cwd` and `terraform.workspace`, from the module context.
    fn context_root(
        &self,
        root: &str,
        r: &Reference<'_>,
        b: &mut Bindings,
    ) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        let v = match (root, r.first_attr()) {
            ("path", Some("module" | "root")) => Value::from("."),
            ("path", Some("cwd")) => Value::from(self.module.cwd.as_str()),
            ("terraform", Some("workspace")) => Value::from(self.module.workspace.as_str()),
            ("path", _) => {
                return Err(unknown_ref(
                    loc,
                    "`path` has only the attributes `module`, `root` and `cwd`".into(),
                    "write `path.module`, `path.root` or `path.cwd`",
                ));
            }
            _ => {
                return Err(unknown_ref(
                    loc,
                    "`terraform` has only the attribute `workspace`".into(),
                    "write `terraform.workspace`",
                ));
            }
        };
        self.apply_steps(v, r.rest(), loc, inst, b, d)
    }

    /// `data.TYPE.NAME...`: a declared data block's value as read, or unknown while it is not (its
    /// arguments are known only at apply, or nothing was read: `validate`).
    fn data_root(&self, r: &Reference<'_>, b: &mut Bindings) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        let (Some(Step::Attr(type_name)), Some(Step::Attr(block))) =
            (r.steps.first(), r.steps.get(1))
        else {
            return Err(unknown_ref(
                loc,
                "`data` must be followed by a data source type and name".into(),
                "refer to a data source as `data.TYPE.NAME.ATTR`",
            ));
        };
        if self.config.data_source(type_name, block).is_none() {
            return Err(unknown_ref(
                loc,
                format!("data source `data.{type_name}.{block}` is not declared"),
                "declare the `data` block or fix the reference",
            ));
        }
        let rest = r.steps.get(2..).unwrap_or(&[]);
        let value =
            crate::address::BlockAddress::from_reference(type_name.as_str(), block.as_str())
                .ok()
                .and_then(|a| self.data_value(&a).cloned())
                .unwrap_or_else(Value::unknown);
        self.apply_steps(value, rest, loc, inst, b, d)
    }

    /// `TYPE.NAME...`: a declared resource block, read through the resolver.
    fn resource_root(
        &self,
        type_name: &str,
        r: &Reference<'_>,
        b: &mut Bindings,
    ) -> Result<Value, EvalError> {
        let (loc, inst, d) = (r.loc, r.inst, r.d);
        let Some(block) = r.first_attr() else {
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
        let rest = r.rest();
        let Some(resolver) = self.resources else {
            return Err(not_static(type_name, block, rest, loc));
        };
        // A block the resolver leaves unknown is still read with its schema's sensitivity.
        let secret =
            first_attribute(rest).is_some_and(|a| resolver.sensitive_attribute(type_name, a));
        if let Some((Step::Index(e), after)) = rest.split_first() {
            // One member: ask for it alone before building the block.
            let key = self.eval_in(e, inst, b, d)?;
            let (plain, marked) = key.clone().unmark();
            let (v, after) = match member(resolver, type_name, block, &plain, after) {
                Some((v, after)) => (v.mark_sensitive_if(marked), after),
                None => match resolver.resolve(type_name, block) {
                    Some(whole) => (index(whole, key, &e.loc)?, after),
                    None => (
                        index(Value::unknown(), key, &e.loc)?.mark_sensitive_if(secret),
                        after,
                    ),
                },
            };
            return self.apply_steps(v, after, loc, inst, b, d);
        }
        match resolver.resolve(type_name, block) {
            Some(v) => self.apply_steps(v, rest, loc, inst, b, d),
            None => {
                // Still evaluate index expressions, so that their own errors are reported.
                let v = self.apply_steps(Value::unknown(), rest, loc, inst, b, d)?;
                Ok(v.mark_sensitive_if(secret))
            }
        }
    }
}

/// The first attribute a reference's steps read after the block (`secret` in `aws_iam_access_key.k[0].secret`
/// and in `aws_iam_access_key.k[*].secret`).
fn first_attribute(steps: &[Step]) -> Option<&str> {
    steps.iter().find_map(|s| match s {
        Step::Attr(a) => Some(a.as_str()),
        _ => None,
    })
}

/// One member of `type_name.block` (the member's key `plain`, unmarked) as the resolver gives it alone,
/// with the steps still to apply: its attribute, when `after` starts with one the resolver answers, or the
/// member itself. `None` when the resolver leaves the member to indexing the whole block.
fn member<'s>(
    resolver: &dyn ResourceResolver,
    type_name: &str,
    block: &str,
    plain: &Value,
    after: &'s [Step],
) -> Option<(Value, &'s [Step])> {
    if let Some((Step::Attr(attr), after_attr)) = after.split_first()
        && let Some(v) = resolver.resolve_member_attr(type_name, block, plain, attr)
    {
        return Some((v, after_attr));
    }
    resolver
        .resolve_member(type_name, block, plain)
        .map(|v| (v, after))
}

/// The refusal of a static evaluation that reads `type_name.block` and the steps `rest` after it, naming
/// the reference as written (an index shown as `[...]`).
fn not_static(type_name: &str, block: &str, rest: &[Step], loc: &Loc) -> EvalError {
    let mut reference = format!("{type_name}.{block}");
    for step in rest {
        match step {
            Step::Attr(a) => reference = format!("{reference}.{a}"),
            Step::Index(_) => reference.push_str("[...]"),
            Step::Splat => reference.push_str("[*]"),
            Step::AttrSplat => reference.push_str(".*"),
        }
    }
    EvalError::NotStatic {
        reference,
        loc: loc.clone(),
    }
}
