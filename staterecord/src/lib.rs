//! Micro-state records: the few facts the live system cannot give back, kept as small opaque payloads in a
//! compare-and-swap key/value store.
//!
//! This crate knows nothing of estates, addresses or resources: keys and payloads are opaque. It must never
//! write unconditionally: every write names the version it expects to replace.

pub mod key;
#[cfg(feature = "s3")]
pub mod s3;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use key::{KeyError, validate_key};
