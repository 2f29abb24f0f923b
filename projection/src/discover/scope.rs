//! What one projection is about: the estate, the declared model grouped by block, the catalog of the
//! provider's types and the knobs.
//!
//! The scope is fixed before the first call and read by every stage. It holds nothing the live system
//! or the store said, and nothing in it changes during a run.

use std::collections::BTreeMap;

use admission::marker::Estate;
use admission::{BlockAddress, InstanceAddress};
use provider::AdmissionPath;
use provider::Catalog;
use provider::schema::ResourceTypeSchema;

use super::ProjectionConfig;
use crate::declared::{Declared, DeclaredValue};
use crate::error::ProjectionError;

/// The values of a declared instance that has none of its own (a count member added by its count).
static NO_VALUES: BTreeMap<String, DeclaredValue> = BTreeMap::new();

/// The fixed inputs of one projection.
pub(crate) struct Scope<'a> {
    /// The estate whose objects are looked for.
    pub(crate) estate: &'a Estate,
    /// What the configuration declares.
    pub(crate) declared: &'a Declared,
    /// Every type the plan knows: the provider's schemas and the record-backed types.
    pub(crate) catalog: &'a Catalog,
    /// The knobs of this projection.
    pub(crate) config: &'a ProjectionConfig,
    /// The provider's region.
    pub(crate) region: String,
    /// Declared addresses, grouped by block (so that binding stays linear in the size of the estate).
    pub(crate) by_block: BTreeMap<BlockAddress, Vec<InstanceAddress>>,
}

impl<'a> Scope<'a> {
    /// The scope of `declared` for `estate`, or the error of the first declared address whose type no
    /// admission path takes (the blocks in order, their members in order).
    pub(crate) fn new(
        estate: &'a Estate,
        declared: &'a Declared,
        catalog: &'a Catalog,
        config: &'a ProjectionConfig,
        region: String,
    ) -> Result<Scope<'a>, ProjectionError> {
        let by_block: BTreeMap<BlockAddress, Vec<InstanceAddress>> = declared
            .blocks()
            .map(|(block, expansion)| (block.clone(), declared.members(block, expansion).collect()))
            .collect();
        for (block, addresses) in &by_block {
            if let Some(first) = addresses.first()
                && catalog
                    .get(block.type_name())
                    .and_then(|s| s.admission)
                    .is_none()
            {
                return Err(ProjectionError::UnsupportedType {
                    address: first.to_string(),
                    type_name: block.type_name().to_owned(),
                });
            }
        }
        Ok(Scope {
            estate,
            declared,
            catalog,
            config,
            region,
            by_block,
        })
    }

    /// The schema of a declared type.
    pub(crate) fn schema(&self, type_name: &str) -> &ResourceTypeSchema {
        self.catalog
            .get(type_name)
            .expect("every declared type was checked against the catalog")
    }

    /// The admission path of `type_name`, if the catalog knows it.
    pub(crate) fn admission(&self, type_name: &str) -> Option<AdmissionPath> {
        self.catalog.get(type_name).and_then(|s| s.admission)
    }

    /// `address` with the parts of its block shared with the declared model (when the block is
    /// declared): looking it up in this run's maps then compares no text.
    pub(crate) fn canonical(&self, address: &InstanceAddress) -> InstanceAddress {
        match self.by_block.get_key_value(address.block()) {
            Some((block, _)) => block.instance(address.key().clone()),
            None => address.clone(),
        }
    }

    /// The identity values declared for `address` (none for a value-less count member).
    pub(crate) fn identity_of(
        &self,
        address: &InstanceAddress,
    ) -> &'a BTreeMap<String, DeclaredValue> {
        self.declared
            .values_of(address)
            .map_or(&NO_VALUES, |i| &i.identity)
    }

    /// The declared addresses of the types admitted on `path`, sorted.
    pub(crate) fn addresses_on(&self, path: AdmissionPath) -> Vec<InstanceAddress> {
        self.by_block
            .iter()
            .filter(|(block, _)| self.admission(block.type_name()) == Some(path))
            .flat_map(|(_, addresses)| addresses.iter().cloned())
            .collect()
    }
}
