//! The record-backed types the engine serves itself with any provider (`random_id`, `terraform_data`):
//! each type's schema and what it does at apply, one module per type, reached through
//! [`builtin_catalog`] and [`behaviour`].
//!
//! An object of these types lives only in its record: apply makes it from the desired values and writes
//! the record, with no provider call. Plan, lint and adopt judge a configuration against the provider's
//! catalog merged with [`builtin_catalog`]. This module
//! never touches the store or the provider, and never panics when the operating system's random generator
//! fails: that is an apply error of the instance.

pub(crate) mod entropy;
mod impure;
mod random_id;
mod terraform_data;

use std::collections::BTreeMap;

use admission::{InstanceAddress, Value};
use provider::Catalog;

pub(crate) use impure::ApplyTime;

/// Why a record-backed object could not be made: told on the instance as `apply-failed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BuiltinError {
    /// What went wrong.
    pub summary: String,
    /// What to do about it.
    pub detail: String,
}

/// The behaviour of one record-backed type at apply.
pub(crate) trait Builtin: Sync {
    /// Completes a new object's `attributes` (its configured, known, non-computed values) with the computed
    /// ones, and gives its id.
    fn create(
        &self,
        address: &InstanceAddress,
        attributes: &mut BTreeMap<String, Value>,
    ) -> Result<String, BuiltinError>;

    /// Recomputes what an in-place update changes in `attributes` (already holding the new configured
    /// values). Nothing, unless the type derives a computed value from an updatable one.
    fn update(&self, _attributes: &mut BTreeMap<String, Value>) {}
}

/// The schemas of the record-backed types the engine serves with any provider: `random_id` and
/// `terraform_data`. Merge them into a provider's catalog to judge a configuration as a plan does.
pub fn builtin_catalog() -> Catalog {
    Catalog::new([random_id::schema(), terraform_data::schema()])
}

/// The behaviour of the record-backed type `type_name`, if the engine serves it.
pub(crate) fn behaviour(type_name: &str) -> Option<&'static dyn Builtin> {
    match type_name {
        "random_id" => Some(&random_id::RandomId),
        "terraform_data" => Some(&terraform_data::TerraformData),
        _ => None,
    }
}

/// The error of a draw from the operating system's random generator for `address`.
fn draw_failed(address: &InstanceAddress, e: getrandom::Error) -> BuiltinError {
    BuiltinError {
        summary: format!("{address}: the operating system's random generator failed: {e}"),
        detail: "nothing was created; apply again".to_owned(),
    }
}
