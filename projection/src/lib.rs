//! The projection: the live system read through the four admission paths into an ephemeral prior state.
//!
//! This crate does the reads of a plan (discovery, binding, count slots, micro-state records) and reports
//! what it found. It never writes: not to the cloud, not to the store, and nothing it builds is persisted.

mod b64;
pub mod error;
pub mod record;
pub mod verdict;

pub use error::ProjectionError;
pub use record::{RecordKeys, RecordSet, load_records};
pub use verdict::Verdict;
