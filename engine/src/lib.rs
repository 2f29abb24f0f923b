//! Plan and apply: the desired configuration diffed against the live system, and the plan applied through
//! the execution graph.
//!
//! An [`Engine`] is built once from a provider and a record store; its methods are the operations:
//!
//! - [`Engine::plan`] parses, lints, reads the live system and the estate's records (one bulk trip), and
//!   diffs: a [`Plan`] with every change, report and diagnostic.
//! - [`render`] turns a plan into the human text and the `--json` document, byte-identical for the same
//!   inputs.
//! - [`tfjson`] writes a plan as Terraform's JSON plan representation (`show -json`), and what it read
//!   as Terraform's state representation.
//! - [`graph`] builds the execution graph of a plan.
//! - [`Engine::apply`] runs a [`ReviewedPlan`] through the provider with a parallelism limit and
//!   cancellation, writing create intents, markers and records with compare-and-swap, and reporting
//!   [`ApplyEvent`]s.
//! - [`Engine::save`] keeps a plan as a [`SavedPlan`] (`plan -out FILE`), and [`Engine::review_saved`]
//!   checks one before [`Engine::apply`] applies it (`apply FILE`): a plan something moved under is
//!   refused with `stale-plan`.
//! - [`Engine::adopt`] and [`Engine::mv`] are the explicit ownership operations.
//! - [`validate`] is the configuration's own findings, with no live system at all.
//! - [`Clock`] is where every operation reads the time of day ([`Engine::with_clock`]).
//!
//! Planning writes nothing anywhere; applying writes only through the provider and the store's
//! compare-and-swap. This crate never prints and never installs a tracing subscriber: the CLI does.

mod adopt;
mod apply;
mod builtin;
mod claim;
mod clock;
mod data;
mod error;
pub mod graph;
mod handle;
mod journal;
mod model;
mod planner;
mod refs;
mod regions;
mod release;
mod rename;
pub mod render;
mod saved;
mod summary;
pub mod tfjson;

pub use admission::Sources;
pub use adopt::OwnershipOutcome;
pub use apply::{ApplyConfig, ApplyEvent, ApplyEventKind, ApplyOutcome, EventSink};
pub use builtin::builtin_catalog;
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{Error, kms_denied};
pub use handle::{Engine, MvOptions, Validation, full_catalog, validate};
pub use model::{
    Action, BindCandidate, Cost, ForeignObject, OwnedUndeclared, Plan, RemovalCause, RenameHint,
    RenameTarget, ReplaceOrder, ResourceChange, ReviewedPlan, SetRemoval, UndeclaredAction,
    UnownedObject, UnownedVerdict, WithheldCause, WithheldChange,
};
pub use planner::{PlanMode, PlanOptions, Target};
pub use projection::{Backoff, RetryConfig, Retrying};
pub use saved::{
    SAVED_PLAN_FORMAT, SAVED_PLAN_VERSION, SavedFile, SavedPlan, SavedPlanError, SavedReview,
};
pub use summary::{PLANNING_FAILED, Summary};
