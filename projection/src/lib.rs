//! The projection: the live system read through the four admission paths into an ephemeral prior state.
//!
//! This crate does the reads of a plan and reports what it found:
//! - [`record`]: the micro-state records of the estate, loaded in one bulk trip;
//! - [`declared`]: the plain model of what the configuration declares, independent of the HCL front end;
//! - [`discover`]: discovery (bulk listings, the tagging sweep, single reads for the exceptions) and
//!   binding, with every ownership verdict, count slots, parent-derived and list-and-match instances;
//! - [`output`]: the [`Projection`], the prior state plus the reports and the cost;
//! - [`retry`]: the bounded, jittered backoff shared with apply.
//!
//! It never writes: not to the cloud, not to the store, and nothing it builds is persisted.

mod b64;
pub mod declared;
pub mod discover;
pub mod error;
pub mod output;
pub mod record;
pub mod retry;
pub mod verdict;

pub use declared::{Declared, DeclaredInstance, DeclaredValue, Expansion};
pub use discover::{INTENT_PATIENCE_SECS, ProjectionConfig, project};
pub use error::ProjectionError;
pub use output::{
    BindCandidate, Binding, Cost, DeposedObject, ForeignObject, InstanceState, OwnedUndeclared,
    Projection, Removal, RenameHint, Repair, UndeclaredAction, UnownedObject, Withheld,
};
pub use record::{RecordKeys, RecordSet, load_records};
pub use retry::RetryPolicy;
pub use verdict::Verdict;
