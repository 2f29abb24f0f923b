//! Integration tests of the projection, one binary for the crate.

mod records_store;
mod verdict_rules;
