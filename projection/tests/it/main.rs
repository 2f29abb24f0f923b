//! Integration tests of the projection, one binary for the crate.

mod binding_client_named;
mod binding_marker;
mod count_slots;
mod discovery_cost;
mod discovery_faults;
mod records_state;
mod records_store;
mod support;
mod verdict_rules;
