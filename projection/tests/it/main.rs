//! Integration tests of the projection, one binary for the crate.

mod binding_client_named;
mod binding_marker;
mod count_slots;
mod declared_model;
mod discovery_concurrency;
mod discovery_cost;
mod discovery_faults;
mod malformed_slots;
mod marker_forms;
mod paths_parent_and_content;
mod property_ownership;
mod records_long_keys;
mod records_state;
mod records_store;
mod retrying;
mod shell_words;
mod support;
mod verdict_rules;
