//! Data source schemas: what a provider says about each data source it reads (Terraform's
//! `data "TYPE" "NAME" { ... }`), its arguments and the attributes a read returns.
//!
//! A data source is only ever read, never written, so its schema has no admission path, identity or
//! lifecycle: its arguments (required or optional) and its computed attributes, nothing more.
//!
//! ```
//! use provider::schema::{AttributeSchema, DataSourceSchema};
//! use provider::Type;
//!
//! let region = DataSourceSchema::new("kv_region")
//!     .with_attribute(AttributeSchema::optional_computed("name", Type::String))
//!     .with_attribute(AttributeSchema::computed("endpoint", Type::String));
//! assert!(region.argument("name").is_some());
//! assert!(region.argument("endpoint").is_none());
//! ```

use std::collections::BTreeMap;

use super::{AttributeMode, AttributeSchema};

/// One data source type: its arguments and attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataSourceSchema {
    /// The data source's type (`aws_caller_identity`).
    pub type_name: String,
    /// Its arguments and attributes, by name: required and optional ones may be configured, computed ones
    /// only a read gives.
    pub attributes: BTreeMap<String, AttributeSchema>,
}

impl DataSourceSchema {
    /// A data source with no arguments and no attributes yet.
    pub fn new(type_name: impl Into<String>) -> DataSourceSchema {
        DataSourceSchema {
            type_name: type_name.into(),
            attributes: BTreeMap::new(),
        }
    }

    /// This schema with `attribute` added (replacing one of the same name).
    pub fn with_attribute(mut self, attribute: AttributeSchema) -> Self {
        self.attributes.insert(attribute.name.clone(), attribute);
        self
    }

    /// The attribute `name`, whatever its mode.
    pub fn attribute(&self, name: &str) -> Option<&AttributeSchema> {
        self.attributes.get(name)
    }

    /// The argument `name`: an attribute the configuration may set (required or optional).
    pub fn argument(&self, name: &str) -> Option<&AttributeSchema> {
        self.attributes
            .get(name)
            .filter(|a| a.mode != AttributeMode::Computed)
    }

    /// The arguments the configuration may set, sorted by name.
    pub fn arguments(&self) -> impl Iterator<Item = &AttributeSchema> {
        self.attributes
            .values()
            .filter(|a| a.mode != AttributeMode::Computed)
    }
}
