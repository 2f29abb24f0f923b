//! Plan and apply: the desired configuration diffed against the live system, and the plan applied through
//! the execution graph.
//!
//! - [`plan()`] parses, lints, reads the live system and the estate's records (one bulk trip), and diffs:
//!   a [`Plan`] with every change, report and diagnostic.
//! - [`render`] turns a plan into the human text and the `--json` document, byte-identical for the same
//!   inputs.
//! - [`graph`] builds the execution graph of a plan.
//! - [`apply()`] runs a [`ReviewedPlan`] through the provider with a parallelism limit and cancellation,
//!   writing create intents, markers and records with compare-and-swap, and reporting [`ApplyEvent`]s.
//! - [`adopt()`] and [`mv()`] are the explicit ownership operations.
//!
//! Planning writes nothing anywhere; applying writes only through the provider and the store's
//! compare-and-swap. This crate never prints and never installs a tracing subscriber: the CLI does.

mod adopt;
mod apply;
mod builtin;
mod error;
pub mod graph;
mod journal;
mod model;
mod planner;
mod refs;
pub mod render;
mod summary;

pub use adopt::{AdoptRequest, MvRequest, OwnershipOutcome, adopt, mv};
pub use apply::{ApplyConfig, ApplyEvent, ApplyEventKind, ApplyOutcome, EventSink, apply};
pub use error::{Error, kms_denied};
pub use model::{
    Action, BindCandidate, Cost, ForeignObject, OwnedUndeclared, Plan, PlanContext, RenameHint,
    RenameTarget, ReplaceOrder, ResourceChange, ReviewedPlan, UndeclaredAction, UnownedObject,
    UnownedVerdict,
};
pub use planner::{PlanRequest, plan};
pub use projection::{Backoff, RetryConfig, Retrying};
pub use summary::Summary;
