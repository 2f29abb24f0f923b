//! Integration tests of the micro-state store, one binary for the crate.

mod cache_trips;
mod counting_log;
mod keys;
mod kms_denied;
mod local_files;
mod local_processes;
#[cfg(feature = "s3")]
mod s3_conflicts;
#[cfg(feature = "s3")]
mod s3_contract;
#[cfg(feature = "s3")]
mod s3_emulator;
#[cfg(feature = "s3")]
mod s3_store;
#[cfg(feature = "ssm")]
mod ssm_store;
mod store_conformance;
