//! `Lineage`: the name of the live system a provider reads and writes, as the records written through it
//! carry it, so that the records of one live system are never read for another.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The live system a provider serves, named as text (`sim cloud 3f9c…`; for AWS, the account and the
/// region). Two providers with the same lineage read and write the same objects; records stamped with one
/// lineage are refused by a provider of another. Compare lineages only for equality.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Lineage(String);

impl Lineage {
    /// The lineage named `name`; `None` when it is empty (an empty name could not tell two systems apart).
    pub fn new(name: impl Into<String>) -> Option<Lineage> {
        let name = name.into();
        (!name.trim().is_empty()).then_some(Lineage(name))
    }

    /// The lineage as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Lineage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
