//! The typed failure of a provider call, with kinds that mean the same on every provider.
//!
//! A failed look is an error, never an absence: only [`ProviderErrorKind::NotFound`] answered by the call
//! itself means "not there".

use std::fmt;

/// What kind of failure a provider call met; the same meaning on every provider.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// The API refused the call for its rate (retryable).
    Throttled,
    /// The API failed on its side (retryable).
    ServerError,
    /// The call did not finish in time (retryable).
    TimedOut,
    /// The caller lacks a permission.
    AccessDenied {
        /// The permission the call needs (`ec2:DescribeVpcs`).
        permission: String,
    },
    /// The object does not exist.
    NotFound,
    /// An object with that client-assigned name exists already, whoever owns it.
    AlreadyExists,
    /// The object cannot be deleted while others depend on it.
    DependencyViolation,
    /// An argument names an object that does not exist.
    InvalidReference,
    /// An argument has a value the API does not accept.
    InvalidArgument,
    /// The provider does not serve the type or does not offer the operation.
    Unsupported,
    /// The provider cannot be configured as a `provider` block asks: `setting` names the first argument
    /// it cannot honour (`region`, `assume_role`, `default_tags`).
    UnsupportedSetting {
        /// The block's argument.
        setting: String,
    },
}

impl fmt::Display for ProviderErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderErrorKind::Throttled => f.write_str("throttled"),
            ProviderErrorKind::ServerError => f.write_str("server error"),
            ProviderErrorKind::TimedOut => f.write_str("timed out"),
            ProviderErrorKind::AccessDenied { permission } => {
                write!(f, "access denied (missing permission {permission})")
            }
            ProviderErrorKind::NotFound => f.write_str("not found"),
            ProviderErrorKind::AlreadyExists => f.write_str("already exists"),
            ProviderErrorKind::DependencyViolation => f.write_str("dependency violation"),
            ProviderErrorKind::InvalidReference => f.write_str("invalid reference"),
            ProviderErrorKind::InvalidArgument => f.write_str("invalid argument"),
            ProviderErrorKind::Unsupported => f.write_str("unsupported"),
            ProviderErrorKind::UnsupportedSetting { setting } => {
                write!(f, "unsupported provider setting {setting}")
            }
        }
    }
}

/// A failed provider call: which API operation, what kind of failure, and the API's own words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{operation}: {kind}{}", if .message.is_empty() { String::new() } else { format!(": {}", .message) })]
pub struct ProviderError {
    /// The API operation, `service:Action` (`ec2:DescribeVpcs`).
    pub operation: String,
    /// The kind of failure.
    pub kind: ProviderErrorKind,
    /// The API's message, possibly empty.
    pub message: String,
}

impl ProviderError {
    /// An error of `kind` from `operation` with the API's `message`.
    pub fn new(
        operation: impl Into<String>,
        kind: ProviderErrorKind,
        message: impl Into<String>,
    ) -> ProviderError {
        ProviderError {
            operation: operation.into(),
            kind,
            message: message.into(),
        }
    }

    /// A throttling error from `operation`.
    pub fn throttled(operation: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::Throttled, "")
    }

    /// A server-side error from `operation`.
    pub fn server_error(operation: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::ServerError, "")
    }

    /// A denial of `operation` for lack of `permission`.
    pub fn access_denied(
        operation: impl Into<String>,
        permission: impl Into<String>,
    ) -> ProviderError {
        ProviderError::new(
            operation,
            ProviderErrorKind::AccessDenied {
                permission: permission.into(),
            },
            "",
        )
    }

    /// A not-found error from `operation` about `what`.
    pub fn not_found(operation: impl Into<String>, what: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::NotFound, what)
    }

    /// An `Unsupported` error from `operation` about `what` (a type, or an operation it does not offer).
    pub fn unsupported(operation: impl Into<String>, what: impl Into<String>) -> ProviderError {
        ProviderError::new(operation, ProviderErrorKind::Unsupported, what)
    }

    /// Whether trying the same call again may succeed (throttled, server error, timed out).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ProviderErrorKind::Throttled
                | ProviderErrorKind::ServerError
                | ProviderErrorKind::TimedOut
        )
    }

    /// Whether the object does not exist.
    pub fn is_not_found(&self) -> bool {
        self.kind == ProviderErrorKind::NotFound
    }
}
