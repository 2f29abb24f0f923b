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
//! and the result is sorted. It also expands `count` and `for_each` into [`ExpandedInstance`]s with their
//! static identity values, which discovery needs before any read.
//!
//! The lint never reads the live system, the store, the environment or the clock: it is a pure function of
//! its inputs, so `validate` and `plan` report the same problems.

mod expand;
mod rules;

use std::collections::{BTreeMap, BTreeSet};

pub use expand::{ExpandedInstance, IdentityValue};

use crate::config::{
    Config, Expr, SourceFile, VariableInputs, VariableMode, parse_config, resolve_variables_for,
};
use crate::diag::{Code, Diagnostic};
use crate::eval::{Evaluator, Instance, ModuleContext, UnknownPerSchema};
use crate::value::Value;
use ::provider::Catalog;

/// What the lint judges.
#[derive(Debug, Clone, Copy)]
pub struct LintInput<'a> {
    /// The parsed configuration.
    pub config: &'a Config,
    /// The value of every declared variable ([`resolve_variables`](crate::resolve_variables)).
    pub variables: &'a BTreeMap<String, Value>,
    /// The resource types the provider and the engine know.
    pub catalog: &'a Catalog,
    /// The estate named from outside the configuration (`--estate`, `LIVEPLAN_ESTATE`), if any.
    pub outside_estate: Option<OutsideEstate<'a>>,
    /// Planning, or validating: at validate a value not known (a required variable without a value) is
    /// not an error where a plan needs it known (`count`, `for_each`, identities); the plan checks it.
    pub mode: VariableMode,
}

/// Where an estate named from outside the configuration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EstateSource {
    /// The `--estate` flag.
    Flag,
    /// The `LIVEPLAN_ESTATE` environment variable.
    Environment,
}

impl EstateSource {
    /// How diagnostics name the source.
    pub fn as_str(self) -> &'static str {
        match self {
            EstateSource::Flag => "--estate",
            EstateSource::Environment => "LIVEPLAN_ESTATE",
        }
    }
}

/// An estate named from outside the configuration, with where it comes from (a `live` block naming
/// another is `estate-conflict`, naming both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutsideEstate<'a> {
    /// The estate name.
    pub name: &'a str,
    /// Where it was given.
    pub source: EstateSource,
}

impl<'a> OutsideEstate<'a> {
    /// The estate of `--estate NAME`.
    pub fn flag(name: &'a str) -> Self {
        OutsideEstate {
            name,
            source: EstateSource::Flag,
        }
    }

    /// The estate of `LIVEPLAN_ESTATE=NAME`.
    pub fn environment(name: &'a str) -> Self {
        OutsideEstate {
            name,
            source: EstateSource::Environment,
        }
    }
}

/// What a run reads besides the live system and the records: the configuration's files, the variable
/// inputs, the estate named from outside the configuration (`--estate`, `LIVEPLAN_ESTATE`) and the
/// module context its expressions run in (`path.*`, `terraform.workspace`, `plantimestamp()`, where
/// `file()` reads).
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The configuration files (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`, `liveplan.hcl`).
    pub files: &'a [SourceFile],
    /// Variable values from files, the environment and the command line.
    pub inputs: &'a VariableInputs,
    /// The estate named from outside, if any (the configuration's `live` block names it otherwise).
    pub outside_estate: Option<OutsideEstate<'a>>,
    /// Where the configuration's expressions run; `None`: the current directory, the `default`
    /// workspace and an unknown plan timestamp ([`ModuleContext::default`]).
    pub module: Option<&'a ModuleContext>,
}

impl<'a> Sources<'a> {
    /// The files and inputs of a configuration whose `live` block names its estate.
    pub fn new(files: &'a [SourceFile], inputs: &'a VariableInputs) -> Sources<'a> {
        Sources {
            files,
            inputs,
            outside_estate: None,
            module: None,
        }
    }

    /// The same sources with the estate given by `--estate`.
    pub fn with_estate(self, estate: Option<&'a str>) -> Sources<'a> {
        self.with_outside_estate(estate.map(OutsideEstate::flag))
    }

    /// The same sources with the estate named from outside the configuration, with where it comes from.
    pub fn with_outside_estate(self, estate: Option<OutsideEstate<'a>>) -> Sources<'a> {
        Sources {
            outside_estate: estate,
            ..self
        }
    }

    /// The same sources, their expressions running in `module` (see [`ModuleContext::from_environment`]).
    pub fn with_module(self, module: &'a ModuleContext) -> Sources<'a> {
        Sources {
            module: Some(module),
            ..self
        }
    }
}

/// The lint's verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Linted {
    /// Every problem found, sorted (severity, code, address, ids, then position).
    pub diagnostics: Vec<Diagnostic>,
    /// The estate, when one is given and valid.
    pub estate: Option<String>,
    /// The declared instances of supported, admitted types, sorted by address.
    pub instances: Vec<ExpandedInstance>,
}

impl Linted {
    /// Whether any error was found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == crate::diag::Severity::Error)
    }
}

/// Parses, resolves variables and lints in one go, as a plan does: the configuration as far as it
/// parsed, and every diagnostic of the three steps, sorted. A syntax error stops after parsing.
pub fn check(sources: &Sources<'_>, catalog: &Catalog) -> (Config, Linted) {
    check_in(sources, catalog, VariableMode::Plan)
}

/// As [`check`], for `liveplan validate` (as `terraform validate`): a required variable without a value
/// is unknown, not an error, and what a plan needs known but is not (a `count`, `for_each` or identity
/// from such a variable) is left to the plan; every block is still checked, those whose `count` or
/// `for_each` expands to nothing too.
pub fn validate(sources: &Sources<'_>, catalog: &Catalog) -> (Config, Linted) {
    check_in(sources, catalog, VariableMode::Validate)
}

fn check_in(sources: &Sources<'_>, catalog: &Catalog, mode: VariableMode) -> (Config, Linted) {
    lint_prepared(prepare(sources, mode), catalog)
}

/// A configuration parsed and its variables resolved, not linted yet: what a plan reads its data
/// blocks from ([`Prepared::config`]'s [`Config::set_data_values`]) before [`lint_prepared`] judges the
/// identities that read them.
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    /// The configuration as far as it parsed.
    pub config: Config,
    /// The value of every declared variable.
    pub variables: BTreeMap<String, Value>,
    /// The problems of parsing and of the variables.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether a file does not parse: the lint then stops, as [`check`] does.
    pub syntax_error: bool,
    /// The estate named from outside the configuration, if any.
    pub outside_estate: Option<OutsideEstate<'a>>,
    /// Planning or validating.
    pub mode: VariableMode,
}

/// Parses `sources` and resolves their variables for `mode`: the first half of [`check`].
pub fn prepare<'a>(sources: &Sources<'a>, mode: VariableMode) -> Prepared<'a> {
    let Sources {
        files,
        inputs,
        outside_estate,
        module,
    } = *sources;
    let (mut config, diagnostics) = parse_config(files);
    if let Some(module) = module {
        config.set_module(module.clone());
    }
    let syntax_error = diagnostics.iter().any(|d| d.code == Code::ConfigSyntax);
    let mut prepared = Prepared {
        config,
        variables: BTreeMap::new(),
        diagnostics,
        syntax_error,
        outside_estate,
        mode,
    };
    if !syntax_error {
        let (variables, var_diags) = resolve_variables_for(&prepared.config, inputs, mode);
        prepared.variables = variables;
        prepared.diagnostics.extend(var_diags);
        let module_diags =
            crate::config::expand_modules(&mut prepared.config, files, &prepared.variables);
        prepared.syntax_error = module_diags.iter().any(|d| d.code == Code::ConfigSyntax);
        prepared.diagnostics.extend(module_diags);
    }
    prepared
}

/// Lints a [`Prepared`] configuration: the second half of [`check`], every diagnostic sorted.
pub fn lint_prepared(prepared: Prepared<'_>, catalog: &Catalog) -> (Config, Linted) {
    let Prepared {
        config,
        variables,
        mut diagnostics,
        syntax_error,
        outside_estate,
        mode,
    } = prepared;
    if syntax_error {
        // As in Terraform, a file that does not parse stops validation: whatever it declared would otherwise
        // show up as undeclared references and a missing estate.
        return (
            config,
            Linted {
                diagnostics: sorted(diagnostics),
                ..Linted::default()
            },
        );
    }
    let mut linted = lint(&LintInput {
        config: &config,
        variables: &variables,
        catalog,
        outside_estate,
        mode,
    });
    diagnostics.append(&mut linted.diagnostics);
    linted.diagnostics = sorted(diagnostics);
    (config, linted)
}

/// Lints a configuration; see the module documentation for the rules.
pub fn lint(input: &LintInput<'_>) -> Linted {
    let unplanned = UnknownPerSchema(input.catalog);
    let mut cx = Lint {
        input,
        statics: Evaluator::new(input.config, input.variables),
        dynamic: Evaluator::with_resources(input.config, input.variables, &unplanned),
        diags: Vec::new(),
    };
    let estate = cx.estate();
    cx.references();
    cx.diags.extend(rules::cycles::cycles(input.config));
    cx.data_blocks();
    cx.settings();
    cx.inline_and_standalone();
    cx.tag_settings();
    // One run of instances per block, in configuration order; each run is sorted by key already.
    let mut runs: Vec<Vec<ExpandedInstance>> = Vec::new();
    for res in input.config.resources() {
        runs.push(cx.resource(res));
    }
    cx.duplicate_identities(runs.iter().flatten());
    // Every local and output is evaluated as the plan will, referenced or not, so that their errors show.
    for (name, attr) in input.config.locals() {
        if let Err(e) = cx.dynamic.local(name, &attr.loc) {
            cx.push(e.into_diagnostic(Code::InvalidExpression));
        }
    }
    for output in input.config.outputs().values() {
        if let Some(v) = cx.evaluate(&output.value, &Instance::Single, None) {
            cx.sensitive_output(&output.name, &v, output.sensitive, &output.loc);
        }
    }
    cx.conditions();
    // Sorting the runs by block puts every instance in address order unless two runs share a block
    // (or a run is out of order), which the full sort then settles. Either way equal addresses keep
    // their configuration order, as one stable sort of all instances would.
    runs.retain(|run| !run.is_empty());
    runs.sort_by(|a, b| a[0].address.block().cmp(b[0].address.block()));
    let mut instances: Vec<ExpandedInstance> = runs.into_iter().flatten().collect();
    if !instances.is_sorted_by(|a, b| a.address <= b.address) {
        instances.sort_by(|a, b| a.address.cmp(&b.address));
    }
    Linted {
        diagnostics: sorted(cx.diags),
        estate,
        instances,
    }
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

/// The context every rule works in: what is judged, the two evaluators and the diagnostics so far.
struct Lint<'i, 'a, 'r> {
    input: &'i LintInput<'a>,
    /// Evaluates as discovery must, before any read: a resource reference is an error.
    statics: Evaluator<'a>,
    /// Evaluates as the plan will, with every resource attribute unknown (sensitive where the schema
    /// says so).
    dynamic: Evaluator<'r>,
    diags: Vec<Diagnostic>,
}

impl Lint<'_, '_, '_> {
    /// Whether this is `validate`, where what is not known is left to the plan.
    fn validating(&self) -> bool {
        self.input.mode == VariableMode::Validate
    }

    /// Adds a diagnostic, unless it only repeats a variable problem reported where the variable is set.
    fn push(&mut self, d: Diagnostic) {
        // A variable without a value was reported where its value was refused or missing; the expressions
        // that read it add nothing.
        if d.code != Code::InvalidVariable {
            self.diags.push(d);
        }
    }

    /// Evaluates an expression as the plan will (resources unknown), reporting what fails.
    fn evaluate(&mut self, expr: &Expr, inst: &Instance, address: Option<&str>) -> Option<Value> {
        match self.dynamic.eval(expr, inst) {
            Ok(v) => Some(v),
            Err(e) => {
                let mut d = e.into_diagnostic(Code::InvalidExpression);
                if let Some(a) = address {
                    d = d.with_address(a);
                }
                self.push(d);
                None
            }
        }
    }
}
