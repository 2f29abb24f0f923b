//! The lint: what a configuration must satisfy before anything is read, and the declared instances it
//! expands to.
//!
//! [`lint`] judges a parsed [`Config`] against the resource type [`Catalog`] of the configured provider (plus
//! the engine's record-backed types): types that are unknown or have no admission path, references to
//! undeclared things, resource blocks that wait on themselves (a dependency cycle), the static identity
//! rules (identities, `count` and `for_each` computable from variables, locals and literals; no
//! `uuid()`/`timestamp()`; set and not null; unique; `count.index` injective), the
//! marker rules (no `tofu-*` tags written by hand, `ignore_changes` never covering markers, `for_each` keys
//! and addresses that fit in tags) and the estate name. Every violation is reported, not just the first,
//! and the result is sorted. It also expands `count` and `for_each` into [`DeclaredInstance`]s with their
//! static identity values, which discovery needs before any read.
//!
//! The lint never reads the live system, the store, the environment or the clock: it is a pure function of
//! its inputs, so `validate` and `plan` report the same problems.

mod count_index;
mod cycles;

use std::collections::{BTreeMap, BTreeSet};

pub use count_index::{IndexUse, classify as classify_count_index};

use crate::address::{BlockAddress, InstanceAddress, InstanceKey};
use crate::catalog::Catalog;
use crate::config::{
    Config, Expr, ExprKind, IgnoreChanges, Resource, SourceFile, VariableInputs, parse_config,
    resolve_variables,
};
use crate::diag::{Code, Diagnostic};
use crate::error::Error;
use crate::eval::{AllUnknown, EvalError, Evaluator, Instance};
use crate::marker::{self, Estate, KeyGrammar, MARKER_PREFIX};
use crate::path::AdmissionPath;
use crate::schema::ResourceTypeSchema;
use crate::value::Value;

/// What the lint judges.
#[derive(Debug, Clone, Copy)]
pub struct LintInput<'a> {
    /// The parsed configuration.
    pub config: &'a Config,
    /// The value of every declared variable ([`resolve_variables`]).
    pub variables: &'a BTreeMap<String, Value>,
    /// The resource types the provider and the engine know.
    pub catalog: &'a Catalog,
    /// The estate given on the command line (`--estate`), if any.
    pub estate_flag: Option<&'a str>,
}

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
pub struct DeclaredInstance {
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

/// The lint's verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Linted {
    /// Every problem found, sorted (severity, code, address, ids, then position).
    pub diagnostics: Vec<Diagnostic>,
    /// The estate, when one is given and valid.
    pub estate: Option<String>,
    /// The declared instances of supported, admitted types, sorted by address.
    pub instances: Vec<DeclaredInstance>,
}

impl Linted {
    /// Whether any error was found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == crate::diag::Severity::Error)
    }
}

/// Parses, resolves variables and lints in one go (`liveplan validate`): the configuration as far as it
/// parsed, and every diagnostic of the three steps, sorted. A syntax error stops after parsing.
pub fn check(
    files: &[SourceFile],
    inputs: &VariableInputs,
    catalog: &Catalog,
    estate_flag: Option<&str>,
) -> (Config, Linted) {
    let (config, mut diags) = parse_config(files);
    if diags.iter().any(|d| d.code == Code::ConfigSyntax) {
        // As in Terraform, a file that does not parse stops validation: whatever it declared would otherwise
        // show up as undeclared references and a missing estate.
        return (
            config,
            Linted {
                diagnostics: sorted(diags),
                ..Linted::default()
            },
        );
    }
    let (variables, var_diags) = resolve_variables(&config, inputs);
    diags.extend(var_diags);
    let mut linted = lint(&LintInput {
        config: &config,
        variables: &variables,
        catalog,
        estate_flag,
    });
    diags.append(&mut linted.diagnostics);
    linted.diagnostics = sorted(diags);
    (config, linted)
}

/// Lints a configuration; see the module documentation for the rules.
pub fn lint(input: &LintInput<'_>) -> Linted {
    let mut cx = Lint {
        input,
        statics: Evaluator::new(input.config, input.variables),
        dynamic: Evaluator::with_resources(input.config, input.variables, &AllUnknown),
        diags: Vec::new(),
    };
    let estate = cx.estate();
    cx.references();
    cx.diags.extend(cycles::cycles(input.config));
    cx.settings();
    // One run of instances per block, in configuration order; each run is sorted by key already.
    let mut runs: Vec<Vec<DeclaredInstance>> = Vec::new();
    for res in &input.config.resources {
        runs.push(cx.resource(res));
    }
    cx.duplicate_identities(runs.iter().flatten());
    // Every local and output is evaluated as the plan will, referenced or not, so that their errors show.
    for (name, attr) in &input.config.locals {
        if let Err(e) = cx.dynamic.local(name, &attr.loc) {
            cx.push(e.into_diagnostic(Code::UnsupportedConstruct));
        }
    }
    for output in input.config.outputs.values() {
        cx.evaluate(&output.value, &Instance::Single, None);
    }
    // Sorting the runs by block puts every instance in address order unless two runs share a block
    // (or a run is out of order), which the full sort then settles. Either way equal addresses keep
    // their configuration order, as one stable sort of all instances would.
    runs.retain(|run| !run.is_empty());
    runs.sort_by(|a, b| a[0].address.block().cmp(b[0].address.block()));
    let mut instances: Vec<DeclaredInstance> = runs.into_iter().flatten().collect();
    if !instances.is_sorted_by(|a, b| a.address <= b.address) {
        instances.sort_by(|a, b| a.address.cmp(&b.address));
    }
    Linted {
        diagnostics: sorted(cx.diags),
        estate,
        instances,
    }
}

/// What a static evaluation of an identity argument gives, as the plan's evaluation of it showed.
enum StaticResult {
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
struct BlockFacts<'r> {
    schema: &'r ResourceTypeSchema,
    path: AdmissionPath,
    /// Per argument, in the block's order.
    shared: Vec<Shared>,
    /// Whether the path finds objects by identity arguments (client-named, parent-derived, list-and-match).
    has_identity: bool,
    /// Per identity argument (schema order): whether it calls `uuid()` or `timestamp()`.
    impure: Vec<bool>,
}

impl<'r> BlockFacts<'r> {
    fn new(
        cx: &Lint<'_, '_>,
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

/// Sorts diagnostics in plan order and drops exact repeats (one problem reached along two paths).
fn sorted(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.pos.cmp(&b.pos))
            .then_with(|| a.summary.cmp(&b.summary))
    });
    // One problem at one place is reported once: the reference check and the evaluation find the same
    // undeclared name, and every instance of a repeated block evaluates the same expression. The first in
    // order (the block address sorts before its instances) is kept.
    let mut seen = BTreeSet::new();
    diags.retain(|d| match &d.pos {
        Some(pos) => seen.insert((d.code, pos.clone(), d.summary.clone())),
        None => true,
    });
    diags
}

struct Lint<'i, 'a> {
    input: &'i LintInput<'a>,
    statics: Evaluator<'a>,
    dynamic: Evaluator<'a>,
    diags: Vec<Diagnostic>,
}

impl Lint<'_, '_> {
    fn push(&mut self, d: Diagnostic) {
        // A variable without a value was reported where its value was refused or missing; the expressions
        // that read it add nothing.
        if d.code != Code::InvalidVariable {
            self.diags.push(d);
        }
    }

    /// The estate from the `live` block and `--estate`: absent, conflicting or malformed names are errors.
    fn estate(&mut self) -> Option<String> {
        let config = self.input.config;
        let mut from_block = None;
        if let Some(attr) = config.live.as_ref().and_then(|l| l.estate.as_ref()) {
            match self.statics.eval(&attr.expr, &Instance::Single) {
                Ok(v) => match v.as_str() {
                    Some(s) if v.is_known() => {
                        from_block = Some((s.to_string(), attr.expr.loc.clone()))
                    }
                    _ => self.push(
                        Diagnostic::new(
                            Code::InvalidEstate,
                            "the `live` block's estate is not a known string",
                            "write the estate name as a string, e.g. `estate = \"acme-net\"`",
                        )
                        .at(attr.expr.loc.to_pos()),
                    ),
                },
                Err(e) => self.push(e.into_diagnostic(Code::InvalidEstate)),
            }
        }
        let flag = self.input.estate_flag;
        let mut ok = true;
        if let Some((name, loc)) = &from_block
            && let Some(why) = estate_problem(name)
        {
            ok = false;
            self.push(
                Diagnostic::new(
                    Code::InvalidEstate,
                    format!("estate name {name:?} is invalid: {why}"),
                    "use a lowercase letter, then up to 127 lowercase letters, digits and hyphens",
                )
                .at(loc.to_pos()),
            );
        }
        if let Some(name) = flag
            && let Some(why) = estate_problem(name)
        {
            ok = false;
            self.push(Diagnostic::new(
                Code::InvalidEstate,
                format!("--estate {name:?} is invalid: {why}"),
                "use a lowercase letter, then up to 127 lowercase letters, digits and hyphens",
            ));
        }
        match (&from_block, flag) {
            (None, None) => {
                let has_error = self.diags.iter().any(|d| d.code == Code::InvalidEstate);
                if !has_error {
                    let mut d = Diagnostic::new(
                        Code::NoEstate,
                        "no estate is given",
                        "add `live { estate = \"name\" }` to the configuration or pass `--estate name`",
                    );
                    if let Some(live) = &config.live {
                        d = d.at(live.loc.to_pos());
                    }
                    self.push(d);
                }
                None
            }
            (Some((a, loc)), Some(b)) if a != b => {
                self.push(
                    Diagnostic::new(
                        Code::EstateConflict,
                        format!("the `live` block names estate {a:?} but --estate names {b:?}"),
                        "drop --estate or make it match the `live` block",
                    )
                    .at(loc.to_pos()),
                );
                None
            }
            (Some((a, _)), _) => ok.then(|| a.clone()),
            (None, Some(b)) => ok.then(|| b.to_string()),
        }
    }

    /// Every reference in the configuration names something declared, and `count`/`each` only where the
    /// block repeats.
    fn references(&mut self) {
        let config = self.input.config;
        let mut exprs: Vec<(&Expr, Option<&Resource>)> = Vec::new();
        for attr in config.locals.values() {
            exprs.push((&attr.expr, None));
        }
        for output in config.outputs.values() {
            exprs.push((&output.value, None));
        }
        for p in &config.providers {
            exprs.extend(p.region.iter().map(|a| (&a.expr, None)));
        }
        if let Some(live) = &config.live {
            exprs.extend(live.estate.iter().map(|a| (&a.expr, None)));
            if let Some(store) = &live.record_store {
                exprs.extend(store.settings.values().map(|a| (&a.expr, None)));
            }
        }
        for res in &config.resources {
            for attr in res.attrs.values() {
                exprs.push((&attr.expr, Some(res)));
            }
            // `count` and `for_each` are evaluated before the repetition exists.
            exprs.extend(
                res.count
                    .iter()
                    .chain(res.for_each.iter())
                    .map(|a| (&a.expr, None)),
            );
            for (path, loc) in &res.depends_on {
                if config.resource(&path[0], &path[1]).is_none() {
                    self.push(
                        Diagnostic::new(
                            Code::UnknownReference,
                            format!(
                                "`depends_on` names `{}.{}`, which is not declared",
                                path[0], path[1]
                            ),
                            "declare the resource or fix the reference",
                        )
                        .with_address(res.address())
                        .at(loc.to_pos()),
                    );
                }
            }
        }
        for (expr, res) in exprs {
            for (path, loc) in expr.references() {
                if let Some(summary) = self.reference_problem(&path, res) {
                    let mut d = Diagnostic::new(
                        Code::UnknownReference,
                        summary,
                        "declare it or fix the reference",
                    )
                    .at(loc.to_pos());
                    if let Some(r) = res {
                        d = d.with_address(r.address());
                    }
                    self.push(d);
                }
            }
        }
    }

    fn reference_problem(&self, path: &[String], res: Option<&Resource>) -> Option<String> {
        let config = self.input.config;
        let second = path.get(1).map(String::as_str);
        match path[0].as_str() {
            "var" => match second {
                Some(v) if config.variables.contains_key(v) => None,
                Some(v) => Some(format!("variable `{v}` is not declared")),
                None => Some("`var` must be followed by a variable name".into()),
            },
            "local" => match second {
                Some(l) if config.locals.contains_key(l) => None,
                Some(l) => Some(format!("local `{l}` is not declared")),
                None => Some("`local` must be followed by a local name".into()),
            },
            "count" => match (second, res) {
                (Some("index"), Some(r)) if r.count.is_some() => None,
                (Some("index"), _) => {
                    Some("`count.index` is used outside a block with `count`".into())
                }
                _ => Some("`count` has only the attribute `index`".into()),
            },
            "each" => match (second, res) {
                (Some("key" | "value"), Some(r)) if r.for_each.is_some() => None,
                (Some("key" | "value"), _) => {
                    Some("`each` is used outside a block with `for_each`".into())
                }
                _ => Some("`each` has only the attributes `key` and `value`".into()),
            },
            type_name if crate::eval::reserved_root(type_name).is_some() => Some(format!(
                "`{type_name}` references are not available: {}",
                crate::eval::reserved_root(type_name).unwrap_or_default()
            )),
            type_name => {
                let Some(name) = second else {
                    return Some(format!("`{type_name}` is not declared"));
                };
                let Some(target) = config.resource(type_name, name) else {
                    return Some(format!("resource `{type_name}.{name}` is not declared"));
                };
                // An attribute of a single-instance block must exist in its type's schema.
                let attr = path.get(2)?;
                if target.count.is_some() || target.for_each.is_some() {
                    let how = if target.count.is_some() {
                        "[0]"
                    } else {
                        "[\"key\"]"
                    };
                    return Some(format!(
                        "`{type_name}.{name}` has several instances: pick one (`{type_name}.{name}{how}.{attr}`) or all \
                         (`{type_name}.{name}[*].{attr}`)"
                    ));
                }
                let schema = self.input.catalog.get(type_name)?;
                (schema.attribute(attr).is_none())
                    .then(|| format!("resource type `{type_name}` has no attribute `{attr}`"))
            }
        }
    }

    /// The provider region and record store settings must be static.
    fn settings(&mut self) {
        let config = self.input.config;
        let mut attrs = Vec::new();
        for p in &config.providers {
            attrs.extend(p.region.iter());
        }
        if let Some(store) = config.live.as_ref().and_then(|l| l.record_store.as_ref()) {
            attrs.extend(store.settings.values());
        }
        for attr in attrs {
            match self.statics.eval(&attr.expr, &Instance::Single) {
                Ok(v) if v.is_known() => {}
                Ok(_) => self.push(
                    Diagnostic::new(
                        Code::UnsupportedConstruct,
                        format!(
                            "`{}` is not known before the live system is read",
                            attr.name
                        ),
                        "compute it from variables, locals and literals only",
                    )
                    .at(attr.expr.loc.to_pos()),
                ),
                Err(e) => self.push(e.into_diagnostic(Code::UnsupportedConstruct)),
            }
        }
    }

    /// Evaluates an expression as the plan will (resources unknown), reporting what fails.
    fn evaluate(&mut self, expr: &Expr, inst: &Instance, address: Option<&str>) -> Option<Value> {
        match self.dynamic.eval(expr, inst) {
            Ok(v) => Some(v),
            Err(e) => {
                let mut d = e.into_diagnostic(Code::UnsupportedConstruct);
                if let Some(a) = address {
                    d = d.with_address(a);
                }
                self.push(d);
                None
            }
        }
    }

    /// Lints one resource block and returns its declared instances.
    fn resource(&mut self, res: &Resource) -> Vec<DeclaredInstance> {
        let block_addr = res.address();
        let catalog = self.input.catalog;
        let Some(schema) = catalog.get(&res.type_name) else {
            self.push(
                Diagnostic::new(
                    Code::UnsupportedType,
                    format!("resource type `{}` is not supported", res.type_name),
                    format!(
                        "neither the configured provider nor the engine knows it; the known types are: {}",
                        catalog.type_names().collect::<Vec<_>>().join(", ")
                    ),
                )
                .with_address(&block_addr)
                .at(res.loc.to_pos()),
            );
            return Vec::new();
        };
        let Some(path) = schema.admission else {
            self.push(
                Diagnostic::new(
                    Code::UnadmittedType,
                    format!("resource type `{}` has no admission path", res.type_name),
                    "its live objects cannot be found again without a state file (untaggable, server-named); \
                     manage it with another tool or leave it out",
                )
                .with_address(&block_addr)
                .at(res.loc.to_pos()),
            );
            return Vec::new();
        };
        let block = match BlockAddress::new(&res.type_name, &res.name) {
            Ok(b) => b,
            Err(e) => {
                self.push(
                    Diagnostic::new(
                        Code::UnsupportedConstruct,
                        e.to_string(),
                        "use identifiers for type and name",
                    )
                    .at(res.loc.to_pos()),
                );
                return Vec::new();
            }
        };
        self.lifecycle(res);
        self.identity_rules(res, schema, path);
        let Some(repetitions) = self.repetitions(res) else {
            return Vec::new();
        };
        let mut facts = BlockFacts::new(self, res, schema, path);
        // The indices of a `count` block come in order and an index's escaped address grows only with its
        // digits: when the last one fits in a tag, all do, and none needs escaping to be checked.
        let all_fit = match repetitions.last() {
            Some((last @ InstanceKey::Int(_), _)) => {
                let escaped =
                    marker::escape_address_with(&block.instance(last.clone()), KeyGrammar::Current);
                marker::check_address_length(&escaped).is_ok()
            }
            _ => false,
        };
        let mut out = Vec::with_capacity(repetitions.len());
        for (key, inst) in repetitions {
            let address = block.instance(key);
            let address_text = address.to_string();
            let overlong = if all_fit {
                Ok(())
            } else {
                let escaped = marker::escape_address_with(&address, KeyGrammar::Current);
                marker::check_address_length(&escaped)
            };
            if let Err(Error::OverlongAddress { chars: len }) = overlong {
                self.push(
                    Diagnostic::new(
                        Code::OverlongAddress,
                        format!(
                            "the address of `{address_text}` is {len} characters once escaped, over {}",
                            marker::MAX_ADDRESS_CHARS
                        ),
                        "shorten the resource name or the for_each key; addresses are never truncated",
                    )
                    .with_address(&address_text)
                    .at(res.loc.to_pos()),
                );
            }
            out.push(self.instance(res, &mut facts, address, address_text, inst));
        }
        out
    }

    fn lifecycle(&mut self, res: &Resource) {
        let address = res.address();
        let refuse = |what: String, loc: &crate::config::Loc| {
            Diagnostic::new(
                Code::IgnoreChangesMarkers,
                format!("`ignore_changes` covers {what}, which holds the ownership markers"),
                "list the individual non-marker tags to ignore (`tags[\"Name\"]`) instead",
            )
            .with_address(&address)
            .at(loc.to_pos())
        };
        match &res.lifecycle.ignore_changes {
            IgnoreChanges::None => {}
            IgnoreChanges::All(loc) => {
                let d = refuse("`all`".into(), loc);
                self.push(d);
            }
            IgnoreChanges::Paths(paths) => {
                for (path, loc) in paths {
                    let covers = match path.as_slice() {
                        [t] if t == "tags" || t == "tags_all" => Some(format!("`{t}`")),
                        [t, key, ..]
                            if (t == "tags" || t == "tags_all")
                                && key.starts_with(MARKER_PREFIX) =>
                        {
                            Some(format!("the marker tag `{key}`"))
                        }
                        _ => None,
                    };
                    if let Some(what) = covers {
                        let d = refuse(what, loc);
                        self.push(d);
                    }
                }
            }
        }
    }

    /// The block-level identity rules: the `count.index` injectivity rule.
    fn identity_rules(&mut self, res: &Resource, schema: &ResourceTypeSchema, path: AdmissionPath) {
        if res.count.is_none()
            || !matches!(
                path,
                AdmissionPath::ClientNamed | AdmissionPath::ParentDerived
            )
        {
            return;
        }
        let args: Vec<(&str, &Expr)> = schema
            .identity_arguments()
            .iter()
            .filter_map(|a| res.attrs.get(a).map(|attr| (a.as_str(), &attr.expr)))
            .collect();
        let composite =
            path == AdmissionPath::ParentDerived && schema.identity_arguments().len() > 1;
        for (arg, expr) in count_index::violations(&args, composite) {
            let detail = if composite {
                "make at least one identity component injective in the index: the bare index, index ± a constant, \
                 index × a nonzero literal, or another block's instance at such an index"
            } else {
                "use the bare index, index ± a constant, index × a nonzero literal, another block's instance at \
                 such an index, or format()/a template of those"
            };
            self.push(
                Diagnostic::new(
                    Code::CountIndex,
                    format!(
                        "identity argument `{arg}` of `{}` may give two instances one identity",
                        res.address()
                    ),
                    detail,
                )
                .with_address(res.address())
                .at(expr.loc.to_pos()),
            );
        }
    }

    /// The instance keys of a block, or `None` when `count`/`for_each` cannot be expanded.
    fn repetitions(&mut self, res: &Resource) -> Option<Vec<(InstanceKey, Instance)>> {
        let address = res.address();
        if let Some(count) = &res.count {
            let v = self.static_value(
                &count.expr,
                &Instance::Single,
                Code::NonStaticCount,
                &address,
                "count",
            )?;
            // `count` is a number, converted as Terraform converts (`"3"` from an untyped variable is 3).
            let n = crate::config::convert(v.clone(), &crate::value::Type::Number)
                .ok()
                .and_then(|n| n.as_number().and_then(|n| n.as_u64()))
                .filter(|_| !v.contains_sensitive());
            let Some(n) = n else {
                self.push(
                    Diagnostic::new(
                        Code::UnsupportedConstruct,
                        format!(
                            "`count` of `{address}` must be a whole number of at least 0, not {v}"
                        ),
                        "give count a non-negative whole number",
                    )
                    .with_address(&address)
                    .at(count.expr.loc.to_pos()),
                );
                return None;
            };
            return Some(
                (0..n)
                    .map(|i| (InstanceKey::Int(i), Instance::Count(i)))
                    .collect(),
            );
        }
        if let Some(for_each) = &res.for_each {
            let v = self.static_value(
                &for_each.expr,
                &Instance::Single,
                Code::NonStaticForEach,
                &address,
                "for_each",
            )?;
            let bad = |what: &str| {
                Diagnostic::new(
                    Code::UnsupportedConstruct,
                    format!("`for_each` of `{address}` {what}"),
                    "give for_each a map, or a set of strings (toset([...]))",
                )
                .with_address(&address)
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
                            Some(s) if !item.is_sensitive() => {
                                out.push((s.to_string(), item.clone()))
                            }
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
                if let Some(why) = for_each_key_problem(&key) {
                    self.push(
                        Diagnostic::new(
                            Code::ForEachKey,
                            format!("for_each key {key:?} of `{address}` cannot be used in an address: {why}"),
                            "keys must be non-empty and hold no `\"`, `\\`, `$`, `%`, `[`, `]` or control characters",
                        )
                        .with_address(&address)
                        .at(for_each.expr.loc.to_pos()),
                    );
                    continue;
                }
                out.push((InstanceKey::Str(key.clone()), Instance::Each { key, value }));
            }
            return Some(out);
        }
        Some(vec![(InstanceKey::None, Instance::Single)])
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

    fn instance(
        &mut self,
        res: &Resource,
        facts: &mut BlockFacts<'_>,
        address: InstanceAddress,
        text: String,
        inst: Instance,
    ) -> DeclaredInstance {
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
                    let d = e.into_diagnostic(Code::UnsupportedConstruct);
                    self.push(d.with_address(&text));
                    // An argument that fails to evaluate is still set.
                    configured.insert(name.clone(), Value::unknown());
                }
            }
        }
        facts.shared = shared_results;
        for problem in schema.check_configured(&configured) {
            use crate::schema::AttributeProblem as P;
            let attr_loc = res
                .attrs
                .get(problem.attribute())
                .map_or(&res.loc, |a| &a.loc);
            let (code, summary) = match &problem {
                P::Missing(a) if schema.identity_arguments().contains(a) => continue, // judged below
                P::Missing(a) => (
                    Code::UnsupportedConstruct,
                    format!("required argument `{a}` is not set"),
                ),
                P::Unknown(a) => (
                    Code::UnsupportedConstruct,
                    format!("`{}` has no argument `{a}`", res.type_name),
                ),
                P::Computed(a) => (
                    Code::UnsupportedConstruct,
                    format!("`{a}` is computed by the provider and cannot be set"),
                ),
                P::WrongType { name, why } => (
                    Code::UnsupportedConstruct,
                    format!("inappropriate value for `{name}`: {why}"),
                ),
                other => (Code::UnsupportedConstruct, format!("{other}")),
            };
            self.push(
                Diagnostic::new(
                    code,
                    summary,
                    "fix the arguments to match the resource type's schema",
                )
                .with_address(&text)
                .at(attr_loc.to_pos()),
            );
        }
        let identity = self.identity(res, facts, &inst, &text, identity_statics);
        DeclaredInstance {
            address,
            repetition: inst,
            admission: path,
            identity,
            static_values,
        }
    }

    /// Marker tags written by hand, in the evaluated `tags`; reported at the literal key when there is one.
    fn tag_keys(&mut self, tags: &Value, address: &str, expr: &Expr) {
        let Some(map) = tags.as_map() else { return };
        for key in map.keys().filter(|k| k.starts_with(MARKER_PREFIX)) {
            let mut loc = &expr.loc;
            expr.walk(&mut |e| {
                if let ExprKind::Object(items) = &e.kind {
                    for (k, _) in items {
                        if k.as_literal_str().as_deref() == Some(key.as_str()) {
                            loc = &k.loc;
                        }
                    }
                }
            });
            let d = marker_in_config(key, address, loc);
            self.push(d);
        }
    }

    /// The identity arguments of one instance: set, not null, static (or from parents where the path allows),
    /// and pure.
    fn identity(
        &mut self,
        res: &Resource,
        facts: &BlockFacts<'_>,
        inst: &Instance,
        address: &str,
        mut statics: Vec<(&str, StaticResult)>,
    ) -> Vec<(String, IdentityValue)> {
        let path = facts.path;
        if !facts.has_identity {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (arg, impure) in facts.schema.identity_arguments().iter().zip(&facts.impure) {
            let Some(attr) = res.attrs.get(arg) else {
                self.push(
                    Diagnostic::new(
                        Code::IdentityNotSet,
                        format!("identity argument `{arg}` of `{address}` is not set"),
                        format!("set `{arg}`: it is how the live object is found again"),
                    )
                    .with_address(address)
                    .at(res.loc.to_pos()),
                );
                continue;
            };
            let expr = &attr.expr;
            if *impure {
                self.push(
                    Diagnostic::new(
                        Code::ImpureIdentity,
                        format!("identity argument `{arg}` of `{address}` is derived from uuid() or timestamp()"),
                        "a new value every plan would lose the object; use a variable, a literal or random_id",
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                continue;
            }
            let known = statics
                .iter()
                .position(|(name, _)| name == arg)
                .map(|i| statics.swap_remove(i).1);
            let result = match known {
                Some(StaticResult::Same(result)) => result,
                // A static evaluation stops at the resource it reads: the component comes from a parent.
                Some(StaticResult::ReadsResource) if path != AdmissionPath::ClientNamed => {
                    out.push((arg.clone(), IdentityValue::FromParent));
                    continue;
                }
                _ => self.statics.eval(expr, inst),
            };
            let value = match result {
                Ok(v) => v,
                Err(EvalError::NotStatic { .. }) if path != AdmissionPath::ClientNamed => {
                    out.push((arg.clone(), IdentityValue::FromParent));
                    continue;
                }
                Err(e) => {
                    let mut d = e.into_diagnostic(Code::NonStaticIdentity);
                    if d.code == Code::NonStaticIdentity {
                        d.summary = format!(
                            "identity argument `{arg}` of `{address}` reads a resource attribute"
                        );
                        d.detail = "a client-named identity must be computable from variables, locals and literals"
                            .to_string();
                    }
                    self.push(d.with_address(address));
                    continue;
                }
            };
            if value.is_null() {
                self.push(
                    Diagnostic::new(
                        Code::IdentityNotSet,
                        format!("identity argument `{arg}` of `{address}` is null"),
                        format!("give `{arg}` a value: it is how the live object is found again"),
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                continue;
            }
            if !value.is_known() {
                self.push(
                    Diagnostic::new(
                        Code::NonStaticIdentity,
                        format!(
                            "identity argument `{arg}` of `{address}` is not known until apply"
                        ),
                        "compute it from variables, locals and literals only",
                    )
                    .with_address(address)
                    .at(expr.loc.to_pos()),
                );
                continue;
            }
            out.push((arg.clone(), IdentityValue::Static(value)));
        }
        out
    }

    /// Two client-named instances of one type may not claim the same identity.
    fn duplicate_identities<'d>(&mut self, instances: impl Iterator<Item = &'d DeclaredInstance>) {
        let mut seen: BTreeMap<(String, Vec<Value>), String> = BTreeMap::new();
        let mut reported = BTreeSet::new();
        for inst in instances.filter(|i| i.admission == AdmissionPath::ClientNamed) {
            let values: Option<Vec<Value>> = inst
                .identity
                .iter()
                .map(|(_, v)| match v {
                    IdentityValue::Static(v) => Some(v.clone().unmark_deep().0),
                    IdentityValue::FromParent => None,
                })
                .collect();
            let Some(values) = values.filter(|v| !v.is_empty()) else {
                continue;
            };
            let key = (inst.address.type_name().to_string(), values);
            let address = inst.address.to_string();
            match seen.get(&key) {
                Some(first) if reported.insert(address.clone()) => {
                    let shown: Vec<String> = key.1.iter().map(Value::to_string).collect();
                    let pos = self
                        .input
                        .config
                        .resource(inst.address.type_name(), inst.address.block().name())
                        .map(|r| r.loc.to_pos());
                    let mut d = Diagnostic::new(
                        Code::DuplicateIdentity,
                        format!(
                            "`{address}` and `{first}` both declare {} {}",
                            key.0,
                            shown.join(", ")
                        ),
                        "give every instance its own identity (bucket or name)",
                    )
                    .with_address(&address);
                    if let Some(p) = pos {
                        d = d.at(p);
                    }
                    self.push(d);
                }
                Some(_) => {}
                None => {
                    seen.insert(key, address);
                }
            }
        }
    }
}

fn marker_in_config(key: &str, address: &str, loc: &crate::config::Loc) -> Diagnostic {
    Diagnostic::new(
        Code::MarkerInConfig,
        format!("`{address}` sets the tag `{key}`, which is an ownership marker"),
        "remove it: the engine writes the `tofu-*` marker tags itself",
    )
    .with_address(address)
    .at(loc.to_pos())
}

/// Why `name` is outside the estate grammar, if it is.
fn estate_problem(name: &str) -> Option<String> {
    match Estate::new(name) {
        Err(Error::InvalidEstate { reason, .. }) => Some(reason),
        Err(other) => Some(other.to_string()),
        Ok(_) => None,
    }
}

/// Why `key` may not enter an address, if it may not.
fn for_each_key_problem(key: &str) -> Option<String> {
    match marker::check_for_each_key(key) {
        Err(Error::InvalidForEachKey { reason, .. }) => Some(reason),
        Err(other) => Some(other.to_string()),
        Ok(()) => None,
    }
}
