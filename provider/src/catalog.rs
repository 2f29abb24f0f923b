//! A catalog: the resource type schemas a provider serves, sorted by type name, and the data sources it
//! reads.
//!
//! A provider hands its catalog out by reference, built once; an embedder builds one from its own types and
//! merges it with others. This module is a container; it must never know which types exist.

use std::collections::BTreeMap;

use crate::schema::{DataSourceSchema, ResourceTypeSchema};

/// A set of resource type schemas, sorted by type name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    types: BTreeMap<String, ResourceTypeSchema>,
    data_sources: BTreeMap<String, DataSourceSchema>,
}

impl Catalog {
    /// A catalog of `schemas` (a later schema of the same type name replaces an earlier one).
    pub fn new(schemas: impl IntoIterator<Item = ResourceTypeSchema>) -> Catalog {
        let mut c = Catalog::default();
        for s in schemas {
            c.insert(s);
        }
        c
    }

    /// Adds or replaces the schema of its type.
    pub fn insert(&mut self, schema: ResourceTypeSchema) {
        self.types.insert(schema.type_name.clone(), schema);
    }

    /// The schema of `type_name`, if the catalog has the type.
    pub fn get(&self, type_name: &str) -> Option<&ResourceTypeSchema> {
        self.types.get(type_name)
    }

    /// Whether the catalog has the type.
    pub fn contains(&self, type_name: &str) -> bool {
        self.types.contains_key(type_name)
    }

    /// This catalog with the data source `schema` added (replacing one of the same type).
    pub fn with_data_source(mut self, schema: DataSourceSchema) -> Catalog {
        self.data_sources.insert(schema.type_name.clone(), schema);
        self
    }

    /// The schema of the data source `type_name`, if the catalog reads it.
    pub fn data_source(&self, type_name: &str) -> Option<&DataSourceSchema> {
        self.data_sources.get(type_name)
    }

    /// The data source schemas, sorted by type name.
    pub fn data_sources(&self) -> impl Iterator<Item = &DataSourceSchema> {
        self.data_sources.values()
    }

    /// The schemas, sorted by type name.
    pub fn iter(&self) -> impl Iterator<Item = &ResourceTypeSchema> {
        self.types.values()
    }

    /// The type names, sorted.
    pub fn type_names(&self) -> impl Iterator<Item = &str> {
        self.types.keys().map(String::as_str)
    }

    /// How many types the catalog has.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the catalog has no types.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// This catalog with `other`'s types added; where both have a type, `other`'s schema wins.
    pub fn merged(mut self, other: Catalog) -> Catalog {
        self.types.extend(other.types);
        self.data_sources.extend(other.data_sources);
        self
    }
}

impl FromIterator<ResourceTypeSchema> for Catalog {
    fn from_iter<I: IntoIterator<Item = ResourceTypeSchema>>(iter: I) -> Self {
        Catalog::new(iter)
    }
}
