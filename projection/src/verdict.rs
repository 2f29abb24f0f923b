//! What discovery concludes about a live object found under one of this estate's identities or markers.
//!
//! This module is vocabulary only: it names the verdicts and which of them allow a change. It must never
//! decide a verdict itself (that is [`crate::discover`]'s work, from the marker grammar in `admission`).

/// The ownership verdict of a live object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// Carries this estate's markers for a declared address: bound to that instance.
    Owned,
    /// Carries no estate marker at a declared client-named identity: blocks the instance, may be adopted.
    Adoptable,
    /// Carries another estate's marker at a declared client-named identity: blocks the instance.
    InTheWay,
    /// Carries no marker of this estate and is not at a declared identity: reported, never changed.
    Foreign,
    /// Carries this estate's marker but an unreadable address: an error, never changed.
    Malformed,
}

impl Verdict {
    /// Whether the engine may ever update or delete an object with this verdict.
    pub fn may_change(self) -> bool {
        matches!(self, Verdict::Owned)
    }
}
