//! What a resource type says beyond its attributes about the arguments of its provider's documentation it
//! does not implement, and about how its objects are destroyed: the arguments it refuses by name, and the
//! boolean arguments that change what a destroy does (`force_destroy` empties a bucket first,
//! `skip_destroy` leaves a log group in place).
//!
//! This module holds data; it must never talk to a live system.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// A documented argument (or nested block) of the provider that the type does not implement: configuring
/// it is an error that names it, instead of an unknown-argument error.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RefusedArgument {
    /// The provider's documentation marks it deprecated.
    pub deprecated: bool,
    /// What to do instead (`use the aws_s3_bucket_acl resource`), or why it is refused; may be empty.
    pub note: String,
}

/// What a destroy does with an object, as the type's destroy arguments ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DestroyMode {
    /// The object is deleted; the live system refuses while it holds anything.
    #[default]
    Delete,
    /// What the object holds is deleted first (a bucket's object versions, a role's attached policies),
    /// then the object.
    DeleteWithContents,
    /// The object is left in place and only leaves the estate: its ownership markers are taken off.
    Release,
}

impl DestroyMode {
    /// A short phrase for the plan's reason (`the log group is kept`), `None` for a plain delete.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            DestroyMode::Delete => None,
            DestroyMode::DeleteWithContents => Some("what it holds is deleted first"),
            DestroyMode::Release => {
                Some("kept in place: only this estate's ownership tags are removed")
            }
        }
    }
}

/// The boolean arguments of a type that change what a destroy does. Their applied values are what counts
/// (as Terraform reads them from its state): the engine keeps them as residue.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DestroyArguments {
    /// True, what the object holds is deleted first (`force_destroy`, `force_detach_policies`).
    pub with_contents: Option<String>,
    /// True, the object is kept and only leaves the estate (`skip_destroy`).
    pub release: Option<String>,
}

impl DestroyArguments {
    /// What a destroy of an object whose applied values are `applied` does: releasing wins over emptying.
    pub fn mode(&self, applied: &BTreeMap<String, Value>) -> DestroyMode {
        let on = |name: &Option<String>| {
            name.as_ref()
                .and_then(|n| applied.get(n))
                .is_some_and(|v| v.peel() == &Value::Bool(true))
        };
        if on(&self.release) {
            DestroyMode::Release
        } else if on(&self.with_contents) {
            DestroyMode::DeleteWithContents
        } else {
            DestroyMode::Delete
        }
    }
}
