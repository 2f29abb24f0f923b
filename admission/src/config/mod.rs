//! The configuration model: what a directory of configuration files (`*.tf`, `*.tf.json`, `*.tofu`,
//! `*.tofu.json`, their override files and `liveplan.hcl`) declares, as written, before evaluation.
//!
//! Parsing turns the files into this model and reports everything outside the supported subset as a
//! diagnostic with its file, line and column. The model holds expressions, never values: evaluating them is
//! the evaluator's job, judging them the lint's. Nothing here reads the process environment or prints; the
//! only I/O is [`read_dir`], which reads the files the caller points it at.

mod conditions;
mod expr;
mod files;
mod module_call;
mod modules;
mod nested;
mod parse;
mod provider;
mod settings;
mod types;
mod vars;
mod version;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::address::{BlockAddress, ModulePath};
use crate::eval::ModuleContext;
use crate::value::Value;

pub use conditions::{Check, Condition, ConditionKind};
pub use expr::{BinaryOp, Expr, ExprKind, ForExpr, Loc, Step, TemplatePart, UnaryOp};
pub use files::{
    Dialect, FileRole, LIVEPLAN_FILE, Syntax, config_file_names, file_role, is_shadowed,
};
pub use module_call::{ModuleCall, ModuleInput};
pub use modules::{MANIFEST as MODULES_MANIFEST, expand_modules, module_dir, module_source_dirs};
pub use nested::{BlockBody, DynamicBlock, NestedBlock};
pub use parse::{RESERVED_VARIABLE_NAMES, is_identifier};
pub use parse::{parse_config, parse_expression};
pub(crate) use parse::{parse_module_dir, parse_template};
pub use provider::{
    AWS_PROVIDER_ARGS, AWS_PROVIDER_VERSION, ProviderArg, ProviderArgUse, ProviderBlock,
    ProviderNested, ProviderRef, aws_nested_args, aws_provider_arg,
};
pub use settings::{
    BackendBlock, BackendKind, RequiredProvider, RequiredSource, TerraformSettings,
};
pub use types::{ObjectAttribute, TypeConstraint, conform};
pub use vars::{
    VarInput, VariableInputs, VariableMode, resolve_variables, resolve_variables_for,
    var_file_names,
};
pub use version::{
    ConstraintError, LANGUAGE_ADDITIONS, OPENTOFU_VERSION, TERRAFORM_VERSION, VersionConstraint,
    implemented_version,
};

/// One configuration or variable file: its name relative to the configuration directory and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The file name as diagnostics show it.
    pub name: String,
    /// The file's contents.
    pub text: String,
}

impl SourceFile {
    /// A file from its name and text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// The files of a configuration directory, read once so that parsing and lint stay pure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigDir {
    /// The configuration files ([`config_file_names`]: `*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`
    /// but those a `.tofu` file shadows, and `liveplan.hcl`), sorted by name.
    pub config_files: Vec<SourceFile>,
    /// `terraform.tfvars` then the `*.auto.tfvars` files sorted by name, the order Terraform reads them in.
    pub var_files: Vec<SourceFile>,
}

/// Reads the configuration files ([`config_file_names`]), `terraform.tfvars` and `*.auto.tfvars` files
/// of `dir`, and the configuration files of every module directory its module calls read (local
/// sources, and those `.terraform/modules/modules.json` names, which is read too), named by their path
/// relative to `dir` (`modules/net/main.tf`). The error names the path that failed; a file that is not UTF-8
/// text fails with `InvalidData`.
pub fn read_dir(dir: &Path) -> std::io::Result<ConfigDir> {
    let mut out = read_files(dir)?;
    let manifest = dir.join(modules::MANIFEST);
    if manifest.is_file() {
        let text = std::fs::read_to_string(&manifest)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", manifest.display())))?;
        out.config_files
            .push(SourceFile::new(modules::MANIFEST, text));
    }
    let mut failed = None;
    let mut read_module = |module_dir: &str| -> Vec<SourceFile> {
        match read_module_dir(dir, module_dir) {
            Ok(files) => files,
            Err(e) => {
                failed.get_or_insert(e);
                Vec::new()
            }
        }
    };
    let module_files = module_source_dirs(&out.config_files, &mut read_module);
    if let Some(e) = failed {
        return Err(e);
    }
    out.config_files.extend(module_files);
    Ok(out)
}

/// The configuration and variable files of `dir` itself.
fn read_files(dir: &Path) -> std::io::Result<ConfigDir> {
    let context = |path: &Path, e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| context(dir, e))? {
        let path = entry.map_err(|e| context(dir, e))?.path();
        if path.is_file()
            && let Some(name) = path.file_name().and_then(|n| n.to_str())
        {
            names.push(name.to_string());
        }
    }
    names.sort();
    let read = |name: &str| -> std::io::Result<SourceFile> {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).map_err(|e| context(&path, e))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: not UTF-8 text", path.display()),
            )
        })?;
        Ok(SourceFile::new(name, text))
    };
    let mut out = ConfigDir::default();
    for name in config_file_names(&names) {
        out.config_files.push(read(&name)?);
    }
    for name in var_file_names(&names) {
        out.var_files.push(read(&name)?);
    }
    Ok(out)
}

/// The configuration files of the module directory `module_dir` (relative to `root`), each named
/// `module_dir/NAME`; a directory that does not exist has none (the module call reports it).
fn read_module_dir(root: &Path, module_dir: &str) -> std::io::Result<Vec<SourceFile>> {
    let dir = root.join(module_dir);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    Ok(read_files(&dir)?
        .config_files
        .into_iter()
        .map(|f| SourceFile::new(format!("{module_dir}/{}", f.name), f.text))
        .collect())
}

/// An attribute as written: its name, its expression and where the name starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    /// The attribute name.
    pub name: String,
    /// The value expression.
    pub expr: Expr,
    /// Where the attribute starts.
    pub loc: Loc,
}

/// A parsed configuration: every block of the subset, from every file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The file names parsed, in order.
    pub files: Vec<String>,
    /// The `terraform` blocks' settings.
    pub terraform: TerraformSettings,
    /// The `live` block, if any (from `liveplan.hcl` or a `.tf` file).
    pub live: Option<LiveBlock>,
    /// The `provider` blocks.
    pub providers: Vec<ProviderBlock>,
    /// The `variable` blocks by name (each key is its variable's name).
    variables: BTreeMap<String, Variable>,
    /// The `locals` entries by name (each key is its attribute's name).
    locals: BTreeMap<String, Attr>,
    /// The `resource` blocks, in file order; changed only through [`Config::add_resource`], which keeps
    /// `resource_index` in step.
    resources: Vec<Resource>,
    /// The `output` blocks by name (each key is its output's name).
    outputs: BTreeMap<String, Output>,
    /// The `check` blocks by name (each key is its check's name).
    checks: BTreeMap<String, Check>,
    /// The `module` blocks by name (each key is its call's name); emptied when the calls are expanded.
    pub(crate) module_calls: BTreeMap<String, ModuleCall>,
    /// The module calls expanded, by their key (`net`, `net.routing`: the call names from the root
    /// down), with the source each read.
    pub(crate) expanded_calls: BTreeMap<String, String>,
    /// The module calls that could not be read (reported when expanded), as the module instance path of
    /// their caller and their name (`module.net.module.db`).
    pub(crate) unread_calls: BTreeSet<String>,
    /// Where each resource sits in `resources`, by type then name: references are resolved once per
    /// expression, so a linear search would make large configurations quadratic.
    resource_index: BTreeMap<String, BTreeMap<String, usize>>,
    /// Where the configuration's expressions run (set by [`Config::set_module`]; the default until then).
    module: ModuleContext,
    /// The `data` blocks, in file order; changed only through [`Config::add_data_source`].
    data_sources: Vec<Resource>,
    /// Where each data block sits in `data_sources`, by type then name.
    data_index: BTreeMap<String, BTreeMap<String, usize>>,
    /// The data blocks read so far, by block (set by [`Config::set_data_values`]): what
    /// `data.TYPE.NAME` evaluates to. A block not here is not read yet, and its attributes are unknown.
    data_values: BTreeMap<BlockAddress, Value>,
}

impl Config {
    /// The provider block whose configuration the live system is opened with: the default `aws`
    /// configuration (its region is the home region, the one a configuration without `region` means),
    /// else the one the first `aws` resource uses, else any `aws` block, else a `sim` block. Every other
    /// region a provider configuration names is reached from it.
    pub fn live_provider(&self) -> Option<&ProviderBlock> {
        let aws = || {
            self.providers
                .iter()
                .filter(|p| p.kind == ProviderKind::Aws)
        };
        let used = || {
            self.resources
                .iter()
                .filter(|r| r.type_name.starts_with("aws_"))
                .find_map(|r| {
                    let wanted = r.provider_ref();
                    aws().find(|p| p.reference() == wanted)
                })
        };
        aws()
            .find(|p| p.alias.is_none())
            .or_else(used)
            .or_else(|| aws().next())
            .or_else(|| self.providers.iter().find(|p| p.kind == ProviderKind::Sim))
    }

    /// The declared resource blocks one reference reads, each passed to `found`: the block it names, or,
    /// for `local.NAME`, those the local's expression reads. Each local is followed once per `seen`, so a
    /// cycle of locals (an error reported elsewhere) ends.
    pub fn reference_blocks<'c>(
        &'c self,
        path: &[String],
        seen: &mut BTreeSet<String>,
        found: &mut dyn FnMut(&'c Resource),
    ) {
        match path.first().map(String::as_str) {
            Some("local") => {
                if let Some(name) = path.get(1)
                    && seen.insert(name.clone())
                    && let Some(attr) = self.locals.get(name)
                {
                    for (inner, _) in attr.expr.references() {
                        self.reference_blocks(&inner, seen, found);
                    }
                }
            }
            Some("var" | "count" | "each" | "self" | "path" | "terraform") | None => {}
            Some(type_name) => {
                if let Some(name) = path.get(1)
                    && let Some(res) = self.resource(type_name, name)
                {
                    found(res);
                }
            }
        }
    }

    /// The resource block `type_name.name`, if declared; `type_name` is qualified by the module path for
    /// a block of a called module (`module.net.aws_vpc`, see [`Resource::qualified_type`]).
    pub fn resource(&self, type_name: &str, name: &str) -> Option<&Resource> {
        let i = *self.resource_index.get(type_name)?.get(name)?;
        self.resources.get(i)
    }

    /// The resource block at `block` (its module path, type and name), if declared.
    pub fn resource_at(&self, block: &BlockAddress) -> Option<&Resource> {
        self.resource(&block.qualified_type(), block.name())
    }

    /// Where the configuration's expressions run: what `path.*`, `terraform.workspace` and
    /// `plantimestamp()` give and where the filesystem functions read. Every evaluator of this
    /// configuration starts from it.
    pub fn module(&self) -> &ModuleContext {
        &self.module
    }

    /// Sets where the configuration's expressions run (parsing leaves [`ModuleContext::default`]).
    pub fn set_module(&mut self, module: ModuleContext) {
        self.module = module;
    }

    /// The `resource` blocks, in file order.
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The `variable` blocks by name.
    pub fn variables(&self) -> &BTreeMap<String, Variable> {
        &self.variables
    }

    /// The `locals` entries by name.
    pub fn locals(&self) -> &BTreeMap<String, Attr> {
        &self.locals
    }

    /// The `output` blocks by name.
    pub fn outputs(&self) -> &BTreeMap<String, Output> {
        &self.outputs
    }

    /// The module calls expanded into this configuration, by key (`net`, `net.routing`), with their
    /// sources as written.
    pub fn expanded_calls(&self) -> &BTreeMap<String, String> {
        &self.expanded_calls
    }

    /// Whether the local `name` is one a module call that could not be read would have made (its
    /// inputs, locals and outputs): expressions reading it are unknown rather than a second error.
    pub fn is_of_unread_module(&self, name: &str) -> bool {
        self.unread_calls.iter().any(|call| {
            name.strip_prefix(call.as_str())
                .is_some_and(|rest| rest.starts_with([':', '[', '.']))
        })
    }

    /// The `module` blocks not expanded yet, by name.
    pub fn module_calls(&self) -> &BTreeMap<String, ModuleCall> {
        &self.module_calls
    }

    /// The `check` blocks by name.
    pub fn checks(&self) -> &BTreeMap<String, Check> {
        &self.checks
    }

    /// The `data` blocks, in file order.
    pub fn data_sources(&self) -> &[Resource] {
        &self.data_sources
    }

    /// The data block `data.type_name.name`, if declared.
    pub fn data_source(&self, type_name: &str, name: &str) -> Option<&Resource> {
        let i = *self.data_index.get(type_name)?.get(name)?;
        self.data_sources.get(i)
    }

    /// Adds a data block, keeping its lookup index up to date (a later block of the same type and name
    /// is found by lookups, as with [`Config::add_resource`]).
    pub fn add_data_source(&mut self, data: Resource) {
        self.data_index
            .entry(data.qualified_type())
            .or_default()
            .insert(data.name.clone(), self.data_sources.len());
        self.data_sources.push(data);
    }

    /// The value of the data block at `block` (its type and name) as expressions see it, if it was read:
    /// the read's object, a list of them for `count`, a map by key for `for_each`.
    pub fn data_value(&self, block: &BlockAddress) -> Option<&Value> {
        self.data_values.get(block)
    }

    /// The data blocks read, by block.
    pub fn data_values(&self) -> &BTreeMap<BlockAddress, Value> {
        &self.data_values
    }

    /// Sets the values of the data blocks read (the engine reads them before the lint judges the
    /// identities that need them); a block left out stays unread.
    pub fn set_data_values(&mut self, values: BTreeMap<BlockAddress, Value>) {
        self.data_values = values;
    }

    /// Adds a resource block, keeping the lookup index up to date. A block of the same type and name as
    /// an earlier one is added too (the parser reports it as declared twice); lookups find the later one.
    pub fn add_resource(&mut self, resource: Resource) {
        self.resource_index
            .entry(resource.qualified_type())
            .or_default()
            .insert(resource.name.clone(), self.resources.len());
        self.resources.push(resource);
    }
}

/// `live { estate = "...", record_store "local"|"s3" { ... } }`.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveBlock {
    /// The `estate` attribute.
    pub estate: Option<Attr>,
    /// The `record_store` block.
    pub record_store: Option<RecordStoreBlock>,
    /// Where the block starts.
    pub loc: Loc,
}

/// Which store keeps the micro-state records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordStoreKind {
    /// A local directory.
    Local,
    /// An S3 bucket.
    S3,
    /// SSM Parameter Store.
    Ssm,
}

/// `record_store "local" { path }`, `record_store "s3" { bucket, key_prefix, region, allow_insecure }` or
/// `record_store "ssm" { key_prefix, region, tier, kms_key_id }`.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordStoreBlock {
    /// The backend.
    pub kind: RecordStoreKind,
    /// Its settings by name.
    pub settings: BTreeMap<String, Attr>,
    /// Where the block starts.
    pub loc: Loc,
}

/// Which live system a `provider` block selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProviderKind {
    /// The AWS provider (real AWS, or the simulated cloud with `--sim FILE`).
    Aws,
    /// The random provider (`random_*` types, built into the engine).
    Random,
    /// The simulated cloud, liveplan's own provider name.
    Sim,
}

impl ProviderKind {
    /// The provider name as written in the block label.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Aws => "aws",
            ProviderKind::Random => "random",
            ProviderKind::Sim => "sim",
        }
    }
}

/// `variable "name" { type, default, description, sensitive, nullable, validation { ... } }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// The variable name.
    pub name: String,
    /// The type constraint (`any` when not given).
    pub var_type: TypeConstraint,
    /// The default; a variable without one is required.
    pub default: Option<Expr>,
    /// The description.
    pub description: Option<String>,
    /// Whether the value is sensitive.
    pub sensitive: bool,
    /// Whether the value may be null (`nullable = false` makes a null value take the default).
    pub nullable: bool,
    /// The `validation` blocks, in order.
    pub validations: Vec<Condition>,
    /// Where the block starts.
    pub loc: Loc,
}

/// What `lifecycle { ignore_changes = ... }` covers.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum IgnoreChanges {
    /// Nothing is ignored.
    #[default]
    None,
    /// `ignore_changes = all`.
    All(Loc),
    /// The listed attribute paths (`tags`, `tags["Name"]`).
    Paths(Vec<(Vec<String>, Loc)>),
}

/// `lifecycle { create_before_destroy, prevent_destroy, ignore_changes }`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lifecycle {
    /// Replace by creating the new object first.
    pub create_before_destroy: bool,
    /// Refuse plans that destroy or replace an instance.
    pub prevent_destroy: bool,
    /// Attributes whose drift is not planned.
    pub ignore_changes: IgnoreChanges,
    /// `precondition` blocks, checked before the instance's change is planned.
    pub preconditions: Vec<Condition>,
    /// `postcondition` blocks, checked on the planned object (at apply when it is not known at plan).
    pub postconditions: Vec<Condition>,
    /// `replace_triggered_by`: references to resources (or their attributes) whose change replaces
    /// this instance, with where each is written.
    pub replace_triggered_by: Vec<(Vec<String>, Loc)>,
}

/// A `resource "type" "name" { ... }` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// The resource type (`aws_vpc`).
    pub type_name: String,
    /// The block name (`main`).
    pub name: String,
    /// How the block repeats: once, `count` times or once per `for_each` key.
    pub repetition: Repetition,
    /// `depends_on`: the referenced resource addresses with where each is written.
    pub depends_on: Vec<(Vec<String>, Loc)>,
    /// The `lifecycle` block.
    pub lifecycle: Lifecycle,
    /// The `provider` meta-argument (`provider = aws.west`) and where it is written; `None` uses the
    /// default configuration of the type's provider.
    pub provider: Option<(ProviderRef, Loc)>,
    /// The provider arguments by name.
    pub attrs: BTreeMap<String, Attr>,
    /// Where the block starts.
    pub loc: Loc,
    /// The module instance the block is declared in (the root module for a block of the root
    /// configuration; a called module's blocks are added with theirs when the calls are expanded).
    pub module: ModulePath,
}

/// How a resource block repeats. A block sets at most one of `count` and `for_each` (the parser refuses
/// both), so one enum says which, and a match over it is exhaustive.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Repetition {
    /// Neither: one instance, with a keyless address.
    #[default]
    Single,
    /// `count = N`: instances `[0]` to `[N-1]`.
    Count(Attr),
    /// `for_each = map or set`: one instance per key.
    ForEach(Attr),
}

impl Repetition {
    /// The repeating argument, whichever it is.
    pub fn argument(&self) -> Option<&Attr> {
        match self {
            Repetition::Single => None,
            Repetition::Count(a) | Repetition::ForEach(a) => Some(a),
        }
    }

    /// Whether the block has more than a keyless instance's address (`count` or `for_each`).
    pub fn is_repeated(&self) -> bool {
        !matches!(self, Repetition::Single)
    }
}

impl Resource {
    /// The provider configuration the block uses: its `provider` meta-argument, else the default
    /// configuration of the provider its type belongs to (`aws` for `aws_vpc`), as Terraform picks it.
    pub fn provider_ref(&self) -> ProviderRef {
        match &self.provider {
            Some((p, _)) => p.clone(),
            None => {
                ProviderRef::default_of(self.type_name.split('_').next().unwrap_or(&self.type_name))
            }
        }
    }

    /// The block's labels, which display as its address `type.name` (with its module path in front).
    pub fn address(&self) -> BlockLabels<'_> {
        BlockLabels::new(&self.type_name, &self.name).in_module(&self.module)
    }

    /// The block's address, with its module path; `None` when its labels make no address (the lint
    /// refuses such a block).
    pub fn block_address(&self) -> Option<BlockAddress> {
        BlockAddress::in_module(
            self.module.clone(),
            self.type_name.as_str(),
            self.name.as_str(),
        )
        .ok()
    }

    /// The type as references in the block's module name it: the module path in front of the type
    /// (`module.net.aws_vpc`), the plain type in the root module. Lookups of [`Config::resource`] take it.
    pub fn qualified_type(&self) -> String {
        format!("{}{}", self.module.prefix(), self.type_name)
    }
}

/// A resource block's two labels, `resource "TYPE" "NAME"`, as written: what the lint names a block by,
/// displayed as `TYPE.NAME`. Unlike a [`BlockAddress`](crate::BlockAddress), either label may be any text
/// (the lint refuses a block whose labels make no address), so every declared block has one; two blocks
/// have equal labels exactly when they declare the same block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockLabels<'c> {
    module: Option<&'c ModulePath>,
    type_name: &'c str,
    name: &'c str,
}

impl<'c> BlockLabels<'c> {
    /// The labels of `resource "type_name" "name"`.
    pub fn new(type_name: &'c str, name: &'c str) -> BlockLabels<'c> {
        BlockLabels {
            module: None,
            type_name,
            name,
        }
    }

    /// The same labels in the module instance `module`.
    pub fn in_module(mut self, module: &'c ModulePath) -> BlockLabels<'c> {
        self.module = (!module.is_root()).then_some(module);
        self
    }
}

impl std::fmt::Display for BlockLabels<'_> {
    /// `TYPE.NAME`, with the module path in front (`module.net.TYPE.NAME`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(module) = self.module {
            write!(f, "{module}.")?;
        }
        write!(f, "{}.{}", self.type_name, self.name)
    }
}

/// `output "name" { value, sensitive, description, depends_on, precondition { ... } }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The output name.
    pub name: String,
    /// The value expression.
    pub value: Expr,
    /// Whether the value is hidden in plan output.
    pub sensitive: bool,
    /// The description.
    pub description: Option<String>,
    /// `depends_on`: the resource blocks the output waits on, with where each is written.
    pub depends_on: Vec<(Vec<String>, Loc)>,
    /// The `precondition` blocks, checked before the value is recorded.
    pub preconditions: Vec<Condition>,
    /// Where the block starts.
    pub loc: Loc,
}
