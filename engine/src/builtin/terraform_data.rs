//! `terraform_data`: `output` mirrors `input`, on create and on every update; the id is random, in the
//! shape of a UUID.
//!
//! This module never reads `triggers_replace` (the plan replaces the object when it changes).

use std::collections::BTreeMap;

use admission::{InstanceAddress, Type, Value};
use provider::AdmissionPath;
use provider::schema::{AttributeSchema, ResourceTypeSchema};

use super::{Builtin, BuiltinError, draw_failed, entropy};

/// The schema of `terraform_data`: `input` updates in place, `triggers_replace` forces a replacement,
/// `output` is computed.
pub(super) fn schema() -> ResourceTypeSchema {
    ResourceTypeSchema::new("terraform_data", Some(AdmissionPath::Record))
        .with_attribute(AttributeSchema::optional("input", Type::Any, Value::Null))
        .with_attribute(
            AttributeSchema::optional("triggers_replace", Type::Any, Value::Null).force_new(),
        )
        .with_attribute(AttributeSchema::computed("output", Type::Any))
}

/// The behaviour of `terraform_data`.
pub(crate) struct TerraformData;

impl Builtin for TerraformData {
    fn create(
        &self,
        address: &InstanceAddress,
        attributes: &mut BTreeMap<String, Value>,
    ) -> Result<String, BuiltinError> {
        self.update(attributes);
        let b = entropy::bytes16().map_err(|e| draw_failed(address, e))?;
        Ok(format!(
            "{}-{}-{}-{}-{}",
            entropy::hex(&b[0..4]),
            entropy::hex(&b[4..6]),
            entropy::hex(&b[6..8]),
            entropy::hex(&b[8..10]),
            entropy::hex(&b[10..16])
        ))
    }

    fn update(&self, attributes: &mut BTreeMap<String, Value>) {
        let output = attributes.get("input").cloned().unwrap_or(Value::Null);
        attributes.insert("output".to_owned(), output);
    }
}
