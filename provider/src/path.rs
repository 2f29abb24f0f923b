//! The admission paths: how the identity of a managed live object is recovered without a state file.

use std::fmt;

/// How a resource type's live objects are found and bound to declared instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AdmissionPath {
    /// The client chooses the identity (a bucket name); a read by that name finds the object.
    ClientNamed,
    /// The server mints the identity; the object is found by this estate's marker tags.
    Marker,
    /// The identity is derived from the parent object's identity (a route inside its route table).
    ParentDerived,
    /// The object is listed under its parent and matched by content (access keys of a user).
    ListMatch,
    /// The object exists only as a micro-state record (`random_id`).
    Record,
}

impl AdmissionPath {
    /// The stable name used in plan JSON (`admission` field) and diagnostics.
    pub fn as_str(self) -> &'static str {
        match self {
            AdmissionPath::ClientNamed => "client-named",
            AdmissionPath::Marker => "marker",
            AdmissionPath::ParentDerived => "parent-derived",
            AdmissionPath::ListMatch => "list-match",
            AdmissionPath::Record => "record",
        }
    }
}

impl fmt::Display for AdmissionPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
