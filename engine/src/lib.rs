//! Plan and apply: the desired configuration diffed against the projection, and the plan applied through the
//! execution graph.
//!
//! Planning writes nothing anywhere; applying writes only through the provider and the store's
//! compare-and-swap. This crate never prints and never installs a tracing subscriber: the CLI does.

pub mod summary;

pub use summary::Summary;
