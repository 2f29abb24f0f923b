//! What a provider returns for one object of a live system.
//!
//! A live object is plain data as the provider read it; it must never carry anything the provider did not
//! return.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// One object of a live system, as a provider reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveObject {
    /// The resource type (`aws_vpc`).
    #[serde(rename = "type")]
    pub type_name: String,
    /// The object's id (`vpc-00000001`, a bucket's name).
    pub id: String,
    /// The region the object lives in.
    pub region: String,
    /// The attributes the read returned (residue attributes are absent, except in a create's answer).
    #[serde(default)]
    pub attributes: BTreeMap<String, Value>,
    /// The object's tags (empty when it has none or the type is not taggable).
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

impl LiveObject {
    /// The attribute `name`, if the read returned it.
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes.get(name)
    }

    /// The attribute `name` as a string, if it is one.
    pub fn attribute_str(&self, name: &str) -> Option<&str> {
        self.attributes.get(name).and_then(Value::as_str)
    }

    /// The tag `key`, if the object carries it.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.get(key).map(String::as_str)
    }
}
