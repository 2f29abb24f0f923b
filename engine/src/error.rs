//! The engine's error type: what makes a plan, an apply or a library operation impossible to even begin.
//!
//! Problems a user should read about (a refused adoption, a failed create) are diagnostics inside the
//! result, never errors here; this enum is for broken inputs and unreachable stores. It must never carry a
//! secret in its message.

use staterecord::StoreError;

/// Why an engine operation could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The micro-state store could not be read or written.
    #[error("record store unavailable")]
    Store(#[from] StoreError),
    /// The projection could not be built (unreadable records, a declared model that breaks its rules).
    #[error("the live system could not be projected")]
    Projection(#[from] projection::ProjectionError),
    /// The plan carries error diagnostics, so it cannot be reviewed or applied.
    #[error("the plan is not applicable: {errors} error diagnostic(s)")]
    NotApplicable {
        /// How many error diagnostics the plan holds.
        errors: usize,
    },
    /// The execution graph built for the plan is not well-formed.
    #[error("the execution graph is invalid: {0}")]
    InvalidGraph(String),
    /// An address given by the caller does not parse.
    #[error("invalid address {input:?}: {reason}")]
    InvalidAddress {
        /// The text given.
        input: String,
        /// Why it does not parse.
        reason: String,
    },
}
