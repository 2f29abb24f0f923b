//! What discovery concludes about a live object this estate does not own, found at a declared
//! client-named identity: the verdict a blocked instance and its report both carry.
//!
//! This module is vocabulary only. Each layer has one: the marker grammar's verdict on any object is
//! `admission::marker::Ownership`, how a declared instance meets the live system is [`crate::Binding`],
//! and this is why a [`crate::Binding::Blocked`] instance is blocked. It must never decide a verdict
//! itself (that is [`crate::discover`]'s work, from the marker grammar in `admission`).

/// Why an object this estate does not own blocks the declared instance whose identity it holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnownedVerdict {
    /// It carries no estate marker: `liveplan adopt` may take it.
    Adoptable,
    /// It carries another estate's marker: only that estate may change it.
    InTheWay {
        /// The estate holding it.
        estate: String,
    },
}
