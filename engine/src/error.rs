//! The engine's error type: what makes a plan, an apply or a library operation impossible to even begin.
//!
//! Problems a user should read about (a refused adoption, a failed create) are diagnostics inside the
//! result, never errors here; this enum is for broken inputs and unreachable stores. It must never carry a
//! secret in its message.

use admission::{Code, Diagnostic};
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
    /// A saved plan's sensitive values could not be sealed (no random bytes from the operating system).
    #[error("the saved plan could not be sealed: {0}")]
    Seal(String),
    /// The provider cannot be configured for a region the plan changes objects in.
    #[error("{0}")]
    RegionUnreachable(String),
    /// An address given by the caller does not parse.
    #[error("invalid address {input:?}: {reason}")]
    InvalidAddress {
        /// The text given.
        input: String,
        /// Why it does not parse.
        reason: String,
    },
}

impl Error {
    /// The error as a diagnostic with a stable code, for a caller that reports a plan that could not be made
    /// (the CLI's `plan --json` prints one JSON object also then). Never quotes a record's payload.
    pub fn to_diagnostic(&self) -> Diagnostic {
        use projection::ProjectionError as P;
        match self {
            Error::Store(e) | Error::Projection(P::RecordsUnreadable { source: e, .. }) => {
                kms_denied(e).unwrap_or_else(|| {
                    Diagnostic::new(
                        Code::DiscoveryIncomplete,
                        format!("the record store could not be read: {}", chain(self)),
                        "nothing is planned without the estate's records (they tell what the estate owns); \
                         fix access to the record store and plan again",
                    )
                })
            }
            Error::Projection(P::UndeclaredParent { address, parent }) => Diagnostic::new(
                Code::UnknownReference,
                format!("{parent} is not declared, but the identity of {address} reads it"),
                "declare that instance (check its block's `count` or `for_each`) or fix the reference",
            )
            .with_address(address.clone()),
            Error::Projection(P::UnsupportedType {
                address, type_name, ..
            }) => Diagnostic::new(
                Code::UnsupportedType,
                format!("resource type {type_name} is not served or has no admission path"),
                "use a resource type the provider serves",
            )
            .with_address(address.clone()),
            _ => Diagnostic::new(
                Code::UnsupportedConstruct,
                chain(self),
                "the configuration could not be turned into a plan; fix what the message names",
            ),
        }
    }
}

/// A KMS denial inside a store error, as the `kms-denied` diagnostic (store.md: the key policy is what to
/// fix, which the error's remedy says).
pub fn kms_denied(e: &StoreError) -> Option<Diagnostic> {
    match e {
        StoreError::KmsDenied(k) => {
            Some(Diagnostic::new(Code::KmsDenied, k.headline(), k.remedy()))
        }
        _ => None,
    }
}

/// An error and its sources, joined as `outer: inner: ...`.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(source) = next {
        text.push_str(": ");
        text.push_str(&source.to_string());
        next = source.source();
    }
    text
}
