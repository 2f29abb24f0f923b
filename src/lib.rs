//! liveplan: the plan/apply core of an infrastructure-as-code tool that runs in stateless mode.
//!
//! There is no state file. Each plan reads the live system into an ephemeral prior state, reports what it
//! does not own without ever deleting it, and applies changes through an execution graph; the few facts the
//! live system cannot give back are kept as micro-state records in a compare-and-swap store.
//!
//! This crate is the facade: it re-exports the workspace crates an embedder needs. It never prints and
//! never installs a tracing subscriber; only the `liveplan` binary does.

#[cfg(feature = "aws")]
pub mod aws;

pub use admission;
pub use engine;
pub use execgraph;
pub use fixtures;
pub use projection;
pub use staterecord;
