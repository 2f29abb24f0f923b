//! The projection: the live system read through the four admission paths into an ephemeral prior state.
//!
//! This crate does the reads of a plan (discovery, binding, count slots, micro-state records) and reports
//! what it found. It never writes: not to the cloud, not to the store, and nothing it builds is persisted.

pub mod verdict;

pub use verdict::Verdict;
