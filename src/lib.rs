//! liveplan: the plan/apply core of an infrastructure-as-code tool that runs in stateless mode.
//!
//! There is no state file. Each plan reads the live system into an ephemeral prior state, reports what it
//! does not own without ever deleting it, and applies changes through an execution graph; the few facts the
//! live system cannot give back are kept as micro-state records in a compare-and-swap store.
//!
//! # Embedding liveplan
//!
//! An embedder brings three things and gets a plan back:
//!
//! - a **configuration**: built in code with [`Configuration`], or read from configuration files
//!   (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`, `liveplan.hcl`) as [`SourceFile`]s and planned as
//!   [`Sources`];
//! - a **live system**: anything that implements the [`Provider`] protocol (its resource types as
//!   [`ResourceTypeSchema`]s with their [`AdmissionPath`], then paged `list`, `create`, `update` and
//!   `delete`); [`SimCloud`] is a ready-made simulated cloud;
//! - a **record store**: a [`Store`] for the micro-state records: [`MemoryStore`] for tests,
//!   [`LocalStore`] (a directory) by default, `S3Store` (feature `aws`) for teams.
//!
//! An [`Engine`] is built once from the two collaborators; [`Configuration::plan`] (or [`Engine::plan`])
//! reads the live system and the records and returns a [`Plan`]:
//! its [`ResourceChange`]s, the reports (foreign objects, adoption candidates, renames) and the
//! [`Diagnostic`]s, each with a stable [`Code`]. Planning writes nothing anywhere. [`render::text`] and
//! [`render::json`] print it as the `liveplan` CLI does. A plan with no error diagnostic can be
//! [reviewed](Plan::review) and handed to [`Engine::apply`], which reports an [`ApplyEvent`] as each
//! operation starts and finishes. [`Engine::adopt`], [`Engine::release`] and [`Engine::mv`] are the
//! ownership operations.
//!
//! A library-only dependency leaves out the `liveplan` binary and its command-line crates:
//! `liveplan = { version = "0.1", default-features = false }`.
//!
//! ```
//! use std::sync::Arc;
//! use liveplan::{
//!     ApplyConfig, Configuration, Engine, MemoryStore, Resource, SimCloud, SimConfig, Store,
//! };
//! use liveplan::render::{self, RenderOptions};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // An empty simulated cloud and an in-memory record store.
//! let cloud = Arc::new(SimCloud::from_json(r#"{"resources": []}"#, SimConfig::default())?);
//! let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
//! let engine = Engine::new(cloud.clone(), Arc::clone(&store));
//!
//! // A bucket (named by the client) and a VPC (named by the server, found again by its markers).
//! let config = Configuration::new("acme-net")
//!     .resource(Resource::new("aws_s3_bucket", "logs").set("bucket", "acme-logs"))
//!     .resource(Resource::new("aws_vpc", "main").set("cidr_block", "10.42.0.0/16"));
//!
//! let plan = config.plan(&engine).await?;
//! let text = render::text(&plan, RenderOptions::default());
//! assert!(text.contains("  + resource \"aws_vpc\" \"main\" {"));
//! assert!(text.ends_with("Plan: 2 to add, 0 to change, 0 to destroy.\n"));
//!
//! // Apply what was planned, watching each operation.
//! let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
//! let seen = Arc::clone(&lines);
//! let apply_config = ApplyConfig {
//!     events: Some(Arc::new(move |event: &liveplan::ApplyEvent| {
//!         seen.lock().unwrap().push(event.line());
//!     })),
//!     ..ApplyConfig::default()
//! };
//! let outcome = engine.apply(&plan.review()?, apply_config).await?;
//! assert!(outcome.succeeded());
//! assert!(lines.lock().unwrap().contains(&"aws_vpc.main: Creating...".to_owned()));
//!
//! // The next plan recovers both objects from the live system alone: nothing left to do.
//! let again = config.plan(&engine).await?;
//! assert_eq!(
//!     render::text(&again, RenderOptions::default()),
//!     "No changes. The live system matches the configuration.\n",
//! );
//! # Ok(())
//! # }
//! ```
//!
//! `examples/embed.rs` goes further: a provider of its own (an in-memory key/value cloud), records in a
//! local directory, and the plan printed before it is applied.
//!
//! # Observing a run
//!
//! The library emits [`tracing`] spans and never installs a subscriber: install your own to see them.
//! Every span that does I/O carries the fields a user filters on:
//!
//! | span | target | fields |
//! |---|---|---|
//! | `plan` | `engine::planner` | (none yet) |
//! | `project` (the reads of one plan) | `projection::discover` | `estate` |
//! | `discover` (one stage of discovery) | `projection::discover` | `estate`, `path` (`bulk`, `client-named`, `marker`, `parent-derived`, `list-match`, `record`, `sweep`) |
//! | `provider_call` (each attempt of each [`Provider`] call of a plan) | `projection::discover` | `estate`, `operation` (`list`, `read`, `read_by_id`, `tagged_resources`), `type_name`, `identity` |
//! | `call` (each API call of the simulated cloud) | `fixtures::cloud` | `operation` (`ec2:DescribeVpcs`) |
//! | `apply` | `engine::apply` | `estate` |
//! | `graph_op` (each operation of the execution graph, level debug) | `execgraph::exec` | `op`, `address` |
//! | store operations (`get`, `put_if_version`, `delete`, `list`, `get_all`) | `staterecord::memory`, `staterecord::local`, `staterecord::s3::store` | `key` or `prefix` |
//!
//! The `project`, `discover` and `provider_call` spans of a plan, the `apply` span and the store
//! operations are at level info; a subscriber that keeps the spans whose `estate` is yours follows every
//! read and write made for one estate.
//!
//! # The crates
//!
//! The flat re-exports above cover a plan and an apply. Everything else is in the workspace crates,
//! re-exported whole: [`provider`] (values, schemas, the provider protocol and its conformance checks),
//! [`admission`] (the configuration language: model, evaluation, the lint, addresses, markers),
//! [`projection`] (discovery and binding), [`engine`] (plan, apply, rendering, adopt and mv),
//! [`execgraph`] (the execution graph), [`staterecord`] (the record stores), [`fixtures`] (the
//! simulated cloud and the golden cases) and, with the `aws` feature, [`aws`] (the real AWS provider).
//!
//! This crate never prints and never installs a tracing subscriber; only the `liveplan` binary does.

pub mod configuration;

pub use admission;
/// The real AWS provider (the `awsprovider` crate).
#[cfg(feature = "aws")]
pub use awsprovider as aws;
pub use engine;
pub use execgraph;
pub use fixtures;
pub use projection;
pub use provider;
pub use staterecord;

pub use admission::{Code, Diagnostic, Estate, InstanceAddress, Severity, Type, Value};
pub use admission::{SourceFile, VariableInputs};
pub use configuration::{Argument, Block, Configuration, ConfigurationError, Resource};
pub use engine::render;
pub use engine::{
    Action, ApplyConfig, ApplyEvent, ApplyEventKind, ApplyOutcome, Engine, MvOptions,
    OwnershipOutcome, Plan, PlanOptions, ResourceChange, RetryConfig, ReviewedPlan, SavedPlan,
    SavedReview, Sources, Summary,
};
pub use fixtures::{SimCloud, SimConfig};
pub use provider::schema::AttributeSchema;
pub use provider::{
    AdmissionPath, Catalog, LiveObject, Provider, ProviderError, ProviderErrorKind,
    ResourceTypeSchema,
};
pub use provider::{
    Call, CallCounts, Counting, CreateRequest, ListPage, ListRequest, Recorder, TagChange,
    UpdateRequest,
};
pub use staterecord::{LocalStore, MemoryStore, Store, StoreError};

/// Why a plan or an apply started through the facade could not run.
///
/// Problems in the configuration or the live system that a user should read about are
/// [`Diagnostic`]s in the [`Plan`]; this is only for what stops a run before it has a result.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration built in code cannot be written out.
    #[error(transparent)]
    Configuration(#[from] ConfigurationError),
    /// The engine could not run (unreadable record store, a plan that is not applicable, ...).
    #[error(transparent)]
    Engine(#[from] engine::Error),
}
