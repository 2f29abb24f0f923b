//! The configuration model and the rules that decide what may enter stateless mode.
//!
//! This crate holds the model every other crate speaks: the admission paths by which a live object's identity
//! is recovered, and (as it grows) the parsed configuration, values with unknowns, addresses, the marker
//! grammar, the provider protocol and the lint. It does no I/O: no cloud calls, no store access, no printing.

pub mod address;
pub mod catalog;
pub mod config;
pub mod diag;
pub mod error;
pub mod eval;
pub mod lint;
pub mod marker;
pub mod path;
pub mod provider;
pub mod schema;
pub mod value;

pub use address::{BlockAddress, InstanceAddress, InstanceKey};
pub use catalog::Catalog;
pub use diag::{Code, Diagnostic, Severity, SourcePos};
pub use error::Error;
pub use marker::{Estate, Slot};
pub use path::AdmissionPath;
pub use provider::{LiveObject, Provider, ProviderError, ProviderErrorKind};
pub use schema::ResourceTypeSchema;
pub use value::{Number, Type, Value, ValuePath};
