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
//! use admission::{Config, Evaluator, Instance, Value, parse_expression};
//!
//! let config = Config::default();
//! let vars = BTreeMap::new();
//! let ev = Evaluator::new(&config, &vars);
//! let expr = parse_expression("x.tf", r#"format("%s-%03d", upper("web"), 7)"#).unwrap();
//! assert_eq!(ev.eval(&expr, &Instance::Single).unwrap(), Value::from("WEB-007"));
//! ```

mod blocks;
mod conditions;
mod expr;
mod for_expr;
mod functions;
mod module_input;
mod operators;
mod redact;
mod roots;
mod steps;
mod structural;
mod template;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use conditions::{ConditionOutcome, SENSITIVE_MESSAGE};
pub(crate) use operators::{primitive_text, to_bool, to_number};
pub(crate) use redact::quoted;

use crate::address::BlockAddress;
use crate::config::{Config, Expr, Loc};
use crate::diag::{Code, Diagnostic};
use crate::value::Value;

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

    /// Whether the attribute `attr` of every instance of `type_name` is sensitive: a reference the resolver
    /// leaves unknown (`None`) is then marked, so that an output or a condition that reads a secret the
    /// provider will choose (an access key's `secret`) is treated as sensitive before the secret exists.
    /// The default knows no schema and says `false`.
    fn sensitive_attribute(&self, type_name: &str, attr: &str) -> bool {
        let _ = (type_name, attr);
        false
    }
}

impl ResourceResolver for BTreeMap<BlockAddress, Value> {
    /// Looks the block up by its address; a block no address can name has no value.
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        self.get(&BlockAddress::from_reference(type_name, name).ok()?)
            .cloned()
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

/// Resolves every resource to an unknown value, as [`AllUnknown`], marked sensitive where the catalog's
/// schema says the attribute read is: what the lint sees of resources before anything is planned.
#[derive(Debug, Clone, Copy)]
pub struct UnknownPerSchema<'a>(pub &'a ::provider::Catalog);

impl ResourceResolver for UnknownPerSchema<'_> {
    fn resolve(&self, _type_name: &str, _name: &str) -> Option<Value> {
        None
    }

    fn sensitive_attribute(&self, type_name: &str, attr: &str) -> bool {
        self.0
            .get(crate::address::unqualified_type(type_name))
            .and_then(|schema| schema.attributes.get(attr))
            .is_some_and(|a| a.sensitive)
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
    /// Some instance of a `count` block not expanded (its `count` is 0 or not known at validate):
    /// `count.index` is an unknown number.
    AnyIndex,
    /// Some instance of a `for_each` block not expanded: `each.key` and `each.value` are unknown.
    AnyKey,
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

    /// The diagnostic `code` at `loc`, as an error.
    fn invalid(code: Code, loc: &Loc, summary: String, detail: &str) -> EvalError {
        EvalError::Invalid(Box::new(
            Diagnostic::new(code, summary, detail).at(loc.to_pos()),
        ))
    }
}

/// What is wrong with an expression of the configuration, named as Terraform names it in the summary of
/// its diagnostic (`invalid-expression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// An operator's operand of the wrong type or value.
    InvalidOperand,
    /// An attribute an object does not have, or of a value that is not an object.
    UnsupportedAttribute,
    /// An attribute of `null`.
    NullAttribute,
    /// An index or key a collection does not have, or a value that cannot be indexed.
    InvalidIndex,
    /// An index into `null`.
    NullIndex,
    /// Arithmetic that has no result (a division by zero, a number out of range).
    OperationFailed,
    /// A conditional whose two results have no type in common.
    InconsistentConditional,
    /// An object or `for` key that is null or not a string.
    InvalidKey,
    /// Two entries of one map with the same key.
    DuplicateKey,
    /// A `for` (expression, template directive or `dynamic` block) over `null` or over a value that is no
    /// collection.
    NotIterable,
    /// A template interpolating a value that has no string form.
    InvalidTemplateValue,
    /// `...` after a value that is not a list.
    InvalidExpansion,
    /// A reference that is cut short (`var` alone) or a local that reads itself.
    InvalidReference,
    /// A condition whose result is not a bool.
    InvalidCondition,
    /// The condition of a conditional expression or `%{ if }` directive that is not a bool.
    ConditionType,
    /// The `if` clause of a `for` expression that is not a bool.
    ForCondition,
    /// An expression past liveplan's bounds (nesting depth, chains of locals).
    TooComplex,
}

impl Fault {
    /// Terraform's summary words for this kind of error.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Fault::InvalidOperand => "Invalid operand",
            Fault::UnsupportedAttribute => "Unsupported attribute",
            Fault::NullAttribute => "Attempt to get attribute from null value",
            Fault::InvalidIndex => "Invalid index",
            Fault::NullIndex => "Attempt to index null value",
            Fault::OperationFailed => "Operation failed",
            Fault::InconsistentConditional => "Inconsistent conditional result types",
            Fault::InvalidKey => "Invalid object key",
            Fault::DuplicateKey => "Duplicate object key",
            Fault::NotIterable => "Iteration over non-iterable value",
            Fault::InvalidTemplateValue => "Invalid template interpolation value",
            Fault::InvalidExpansion => "Invalid expanding argument value",
            Fault::InvalidReference => "Invalid reference",
            Fault::InvalidCondition => "Invalid condition result",
            Fault::ConditionType => "Incorrect condition type",
            Fault::ForCondition => "Invalid 'for' condition",
            Fault::TooComplex => "Expression too complex",
        }
    }

    /// What to do about it.
    fn hint(self) -> &'static str {
        match self {
            Fault::InvalidOperand => {
                "give the operator operands of the type it takes (`tonumber()`, `tobool()` convert strings)"
            }
            Fault::UnsupportedAttribute => "check the attribute's name against the value's type",
            Fault::NullAttribute | Fault::NullIndex => {
                "guard the value with a conditional or `try()` where it may be null"
            }
            Fault::InvalidIndex => {
                "check the index or key, or use `lookup()` / `try()` with a fallback"
            }
            Fault::OperationFailed => "change the operands so that the operation has a result",
            Fault::InconsistentConditional => {
                "make both results the same type, or convert one with `tostring()`, `tolist()`, ..."
            }
            Fault::InvalidKey => "use a string (or a number or bool, converted) as the key",
            Fault::DuplicateKey => {
                "make the keys distinct, or add `...` after the value to group them"
            }
            Fault::NotIterable => "iterate over a list, set, map or object",
            Fault::InvalidTemplateValue => {
                "interpolate a string, number or bool (`jsonencode()` writes collections)"
            }
            Fault::InvalidExpansion => "expand a list or tuple with `...`",
            Fault::InvalidReference => "finish the reference, and let no local read itself",
            Fault::InvalidCondition | Fault::ConditionType | Fault::ForCondition => {
                "write a condition that is true or false (`tobool()` converts \"true\" and \"false\")"
            }
            Fault::TooComplex => "split the expression into locals",
        }
    }
}

/// An error in an expression of the configuration (`invalid-expression`), its summary in Terraform's words
/// (`fault`) followed by what exactly is wrong.
pub(crate) fn bad(loc: &Loc, fault: Fault, summary: impl Into<String>) -> EvalError {
    EvalError::invalid(
        Code::InvalidExpression,
        loc,
        format!("{}: {}", fault.title(), summary.into()),
        fault.hint(),
    )
}

/// A reference to something not declared, or not available where it is written (`unknown-reference`).
fn unknown_ref(loc: &Loc, summary: String, detail: &str) -> EvalError {
    EvalError::invalid(Code::UnknownReference, loc, summary, detail)
}

/// Why a root name Terraform knows is not available in this subset, if it is one of them.
pub(crate) fn reserved_root(name: &str) -> Option<&'static str> {
    match name {
        "self" => Some("`self` exists only in provisioners, which are not supported"),
        "module" => Some("no module call of that name is declared in this module"),
        _ => None,
    }
}

/// Where a configuration's expressions run: what `path.module`, `path.root`, `path.cwd`,
/// `terraform.workspace` and `plantimestamp()` give, and where the filesystem functions read.
///
/// As in Terraform run with `-chdir`, `path.module` and `path.root` are `"."`, and relative paths resolve
/// against [`ModuleContext::dir`], the configuration directory. Only [`ModuleContext::from_environment`]
/// reads the process's environment; the evaluator never does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleContext {
    /// The configuration directory: relative paths of `file`, `fileset`, `templatefile`... start here.
    pub dir: PathBuf,
    /// `path.cwd`: the directory the command was started in, as an absolute path (`"."` when unknown).
    pub cwd: String,
    /// `terraform.workspace`: `TF_WORKSPACE` when set, else `"default"`.
    pub workspace: String,
    /// `plantimestamp()`: when the plan started, in RFC 3339 form (UTC); unknown when `None`.
    pub plan_timestamp: Option<String>,
    /// The home directory that `pathexpand` and the file functions expand `~` to (`None`: they refuse).
    pub home: Option<PathBuf>,
}

impl Default for ModuleContext {
    /// The current directory, the `default` workspace, no plan timestamp.
    fn default() -> Self {
        ModuleContext {
            dir: PathBuf::from("."),
            cwd: ".".to_owned(),
            workspace: "default".to_owned(),
            plan_timestamp: None,
            home: None,
        }
    }
}

impl ModuleContext {
    /// The context of a run on the configuration directory `dir` (as after Terraform's `-chdir=DIR`):
    /// `path.cwd` is the process's working directory, where the command was started, as an absolute path
    /// (`dir`'s when it cannot be read); the workspace is `TF_WORKSPACE` when set and not empty, else
    /// `"default"`; `~` is `HOME`.
    pub fn from_environment(dir: &Path) -> ModuleContext {
        let cwd = std::env::current_dir()
            .or_else(|_| std::path::absolute(dir))
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| dir.display().to_string());
        let workspace = std::env::var("TF_WORKSPACE")
            .ok()
            .filter(|w| !w.is_empty())
            .unwrap_or_else(|| "default".to_owned());
        ModuleContext {
            dir: dir.to_path_buf(),
            cwd,
            workspace,
            plan_timestamp: None,
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
        }
    }

    /// The same context, `plantimestamp()` giving `at` (RFC 3339, UTC).
    pub fn with_plan_timestamp(mut self, at: impl Into<String>) -> Self {
        self.plan_timestamp = Some(at.into());
        self
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
    module: &'a ModuleContext,
    /// Whether this evaluator renders a template for `templatefile` or `templatestring`.
    in_template: bool,
    locals: RefCell<BTreeMap<String, EvaluatedLocal>>,
    in_progress: RefCell<BTreeSet<String>>,
    /// The static types of the locals evaluated so far (see [`structural`]).
    local_types: RefCell<BTreeMap<String, crate::value::Type>>,
    /// Whether the evaluation under way has read a resource (see [`Evaluator::eval_tracked`]).
    read_resource: Cell<bool>,
    /// The data blocks read, when not the configuration's own ([`Evaluator::with_data_values`]).
    data_values: Option<&'a BTreeMap<BlockAddress, Value>>,
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
    /// The salt of one `bcrypt()` call: 16 fresh random bytes; `None` (the default) leaves `bcrypt()`
    /// unknown.
    fn bcrypt_salt(&self) -> Option<[u8; 16]> {
        None
    }
}

/// The longest chain of locals reading locals that is evaluated (deeper chains would only exhaust the stack).
const MAX_LOCAL_CHAIN: usize = 64;

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
            module: config.module(),
            in_template: false,
            locals: RefCell::default(),
            in_progress: RefCell::default(),
            local_types: RefCell::default(),
            read_resource: Cell::new(false),
            data_values: None,
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
            module: config.module(),
            in_template: false,
            locals: RefCell::default(),
            in_progress: RefCell::default(),
            local_types: RefCell::default(),
            read_resource: Cell::new(false),
            data_values: None,
        }
    }

    /// The same evaluator, answering `uuid()` and `timestamp()` from `impure`: at apply, as Terraform
    /// evaluates them then (before, they are unknown).
    pub fn with_impure(mut self, impure: &'a dyn ImpureValues) -> Self {
        self.impure = Some(impure);
        self
    }

    /// The same evaluator in `module`: what `path.*`, `terraform.workspace` and `plantimestamp()` give,
    /// and where the filesystem functions read (without it: the configuration's own,
    /// [`Config::module`]).
    pub fn with_module(mut self, module: &'a ModuleContext) -> Self {
        self.module = module;
        self
    }

    /// The same evaluator, reading `data.TYPE.NAME` from `values` instead of the configuration's
    /// [`Config::data_values`]: the blocks read so far, while the data blocks are being read in order.
    pub fn with_data_values(mut self, values: &'a BTreeMap<BlockAddress, Value>) -> Self {
        self.data_values = Some(values);
        self
    }

    /// The value of the data block `block`, if it was read.
    pub(crate) fn data_value(&self, block: &BlockAddress) -> Option<&Value> {
        match self.data_values {
            Some(values) => values.get(block),
            None => self.config.data_value(block),
        }
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
        let Some(attr) = self.config.locals().get(name) else {
            if self.config.is_of_unread_module(name) {
                // The module could not be read (reported there): what it gives is not known.
                return Ok(Value::unknown());
            }
            return Err(match name.split_once(":output.") {
                // A module call's output that its module does not declare.
                Some((module, output)) => bad(
                    loc,
                    Fault::UnsupportedAttribute,
                    format!("`{module}` has no output `{output}`"),
                ),
                None => unknown_ref(
                    loc,
                    format!("local `{name}` is not declared"),
                    "declare it in a `locals` block or fix the name",
                ),
            });
        };
        if self.in_progress.borrow().len() >= MAX_LOCAL_CHAIN {
            return Err(bad(
                loc,
                Fault::TooComplex,
                format!(
                    "local `{name}` sits at the end of a chain of over {MAX_LOCAL_CHAIN} locals"
                ),
            ));
        }
        if !self.in_progress.borrow_mut().insert(name.to_string()) {
            return Err(bad(
                loc,
                Fault::InvalidReference,
                format!("local `{name}` refers to itself"),
            ));
        }
        let outer = self.read_resource.replace(false);
        // Evaluated with its static type, which `==` and conditionals reading the local consult.
        let (result, ty) =
            match self.eval_typed(&attr.expr, &Instance::Single, &mut Bindings::new(), depth) {
                Ok((v, t)) => (Ok(v), t),
                Err(e) => (Err(e), crate::value::Type::Any),
            };
        self.local_types.borrow_mut().insert(name.to_string(), ty);
        let read = self.read_resource.get();
        self.read_resource.set(outer || read);
        self.in_progress.borrow_mut().remove(name);
        self.locals
            .borrow_mut()
            .insert(name.to_string(), (result.clone(), read));
        result
    }

    /// Whether `expr` calls `uuid()`, `timestamp()` or `bcrypt()`, directly or through the locals it reads.
    pub fn reads_impure(&self, expr: &Expr) -> bool {
        // A worklist rather than recursion: a long chain of locals must not deepen the stack.
        let mut seen = BTreeSet::new();
        let mut todo = vec![expr];
        while let Some(e) = todo.pop() {
            if e.calls_any(functions::IMPURE) {
                return true;
            }
            for (path, _) in e.references() {
                if path.len() >= 2
                    && path[0] == "local"
                    && seen.insert(path[1].clone())
                    && let Some(attr) = self.config.locals().get(&path[1])
                {
                    todo.push(&attr.expr);
                }
            }
        }
        false
    }
}
