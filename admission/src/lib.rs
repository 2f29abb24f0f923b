//! The configuration model and the rules that decide what may enter stateless mode.
//!
//! This crate holds the model every other crate speaks: values with unknowns and sensitivity marks
//! ([`value`]), resource addresses ([`address`]), the ownership-marker grammar ([`marker`]), resource type
//! schemas and the contract's catalog ([`schema`], [`catalog`]), the provider protocol a live system implements
//! ([`provider`]), the parsed configuration ([`config`]), expression evaluation ([`eval`]), the admission lint
//! ([`lint`]) and diagnostics with their stable codes ([`diag`]).
//!
//! It never calls a cloud, never touches a store and never prints. Its one read of the file system is
//! [`config::read_dir`], which loads a configuration directory's `*.tf` and variable files; everything else is
//! a pure function of its inputs (the process environment, too, is passed in by the caller).

pub mod address;
pub mod config;
pub mod diag;
pub mod error;
pub mod eval;
pub mod lint;
pub mod marker;
pub mod path;
pub mod provider;

/// Resource type schemas: the model of [`::provider`], under this crate's path.
pub use ::provider::schema;
/// Values with unknowns and the sensitive mark: the model of [`::provider`], under this crate's path.
pub use ::provider::value;

pub use ::provider::Catalog;
pub use address::{BlockAddress, InstanceAddress, InstanceKey};
pub use diag::{Code, Diagnostic, Severity, SourcePos};
pub use error::Error;
pub use marker::{Estate, Slot};
pub use path::AdmissionPath;
pub use provider::{LiveObject, Provider, ProviderError, ProviderErrorKind};
pub use schema::ResourceTypeSchema;
pub use value::{Number, Type, Value, ValuePath};
