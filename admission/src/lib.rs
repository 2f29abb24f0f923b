//! The configuration language: what a directory of configuration files (`*.tf`, `*.tf.json`, `*.tofu`,
//! `*.tofu.json`, override files, `liveplan.hcl`) declares, how its expressions evaluate, and the rules
//! that decide what may enter stateless mode.
//!
//! The crate's API is the list below; its modules are private but for [`marker`]:
//! - the configuration model, as written: [`Config`] with its [`Resource`] blocks (each named by its
//!   [`BlockLabels`]), variables, locals and outputs, the expression model ([`Expr`], [`ExprKind`],
//!   [`Loc`]), [`parse_config`], and the variable inputs with Terraform's precedence ([`VariableInputs`],
//!   [`resolve_variables`]);
//! - evaluation of expressions into values ([`Evaluator`], with the [`ResourceResolver`] and
//!   [`ImpureValues`] its caller supplies);
//! - the admission lint ([`lint()`], and [`check`] for parse, variables and lint in one go) and the
//!   [`ExpandedInstance`]s it expands `count` and `for_each` into;
//! - resource addresses whose parse and display are exact inverses ([`BlockAddress`], [`InstanceAddress`],
//!   [`InstanceKey`]);
//! - the ownership-marker grammar ([`marker`], a namespace of free functions and tag keys, with [`Estate`]
//!   and [`Slot`] also here);
//! - diagnostics with their stable codes ([`Diagnostic`], [`Code`], [`Severity`]) and the crate's
//!   [`Error`].
//!
//! It re-exports the value model of the `provider` crate ([`Value`], [`Type`], [`Number`], [`ValuePath`]),
//! which every expression evaluates to, so that the language's users name values from here. The rest of
//! the provider seam (schemas, the [`Catalog`](::provider::Catalog) the lint judges types against, the
//! `Provider` protocol) is named from `provider` itself; no resource type is defined here: the AWS types
//! are the `awscatalog` crate's, the record-backed ones the engine's.
//!
//! ```
//! use admission::{SourceFile, VariableInputs};
//!
//! let main = SourceFile::new("main.tf", r#"
//! live {
//!   estate = "acme"
//! }
//! resource "aws_s3_bucket" "data" {
//!   bucket = "acme-data"
//! }
//! "#);
//! let files = [main];
//! let inputs = VariableInputs::default();
//! let (config, linted) = admission::check(&admission::Sources::new(&files, &inputs), &awscatalog::catalog());
//! assert_eq!(config.resources().len(), 1);
//! assert!(!linted.has_errors());
//! assert_eq!(linted.instances[0].address.to_string(), "aws_s3_bucket.data");
//! ```
//!
//! It never calls a cloud, never touches a store and never prints. Its one read of the file system is
//! [`read_dir`], which loads a configuration directory's configuration and variable files; everything else is a
//! pure function of its inputs (the process environment, too, is passed in by the caller).

mod address;
mod config;
mod data;
mod diag;
mod error;
mod eval;
mod lint;
pub mod marker;
mod provider_settings;

// The provider seam's modules under this crate's paths, for its own code.
use ::provider::{schema, value};

pub use ::provider::{Number, Type, Value, ValuePath};
pub use address::{
    BlockAddress, InstanceAddress, InstanceKey, ModulePath, ModuleStep, unqualified_type,
};
pub use config::{
    AWS_PROVIDER_ARGS, AWS_PROVIDER_VERSION, Attr, BackendBlock, BackendKind, BinaryOp, BlockBody,
    BlockLabels, Config, ConfigDir, ConstraintError, Dialect, DynamicBlock, Expr, ExprKind,
    FileRole, ForExpr, IgnoreChanges, LANGUAGE_ADDITIONS, LIVEPLAN_FILE, Lifecycle, LiveBlock, Loc,
    NestedBlock, OPENTOFU_VERSION, Output, ProviderArg, ProviderArgUse, ProviderBlock,
    ProviderKind, ProviderNested, ProviderRef, RecordStoreBlock, RecordStoreKind, Repetition,
    RequiredProvider, RequiredSource, Resource, SourceFile, Step, Syntax, TERRAFORM_VERSION,
    TemplatePart, TerraformSettings, UnaryOp, VarInput, Variable, VariableInputs,
    VersionConstraint, aws_nested_args, aws_provider_arg, config_file_names, file_role,
    implemented_version, is_shadowed, parse_config, parse_expression, read_dir, resolve_variables,
    var_file_names,
};
pub use config::{
    Check, Condition, ConditionKind, MODULES_MANIFEST, ModuleCall, ModuleInput, ObjectAttribute,
    RESERVED_VARIABLE_NAMES, TypeConstraint, VariableMode, conform, expand_modules, is_identifier,
    module_dir, module_source_dirs, resolve_variables_for,
};
pub use data::{DataReads, data_block, data_read_order, data_reads};
pub use diag::{Code, Diagnostic, Severity, SourcePos};
pub use error::Error;
pub use eval::{
    AllUnknown, ConditionOutcome, EvalError, Evaluator, ImpureValues, Instance, ModuleContext,
    ResourceResolver, SENSITIVE_MESSAGE, UnknownPerSchema,
};
pub use lint::{
    EstateSource, ExpandedInstance, IdentityValue, LintInput, Linted, OutsideEstate, Prepared,
    Sources, check, lint, lint_prepared, prepare, validate,
};
pub use marker::{Estate, Slot};
pub use provider_settings::{IgnoredTags, ProviderSettings, TagSettings};
