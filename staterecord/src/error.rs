//! The one error type of the crate, and the typed compare-and-swap conflict every backend reports.
//!
//! Variants mean the same thing on every backend, so a caller can react to a [`VersionConflict`] without
//! knowing which store it talks to. This module must never turn a conflict into a string a caller has to
//! parse.

use std::fmt;

use thiserror::Error;

use crate::key::KeyError;
use crate::kms::KmsDenied;
use crate::record::Version;

/// A boxed error from a backend's client library, kept as the source of a [`StoreError`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A conditional operation found a different version than the one it expected.
///
/// `expected` is the version the caller named (`None`: "no record may exist"); `actual` is what the store
/// holds (`None`: no record at all). The message names both sides.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct VersionConflict {
    /// The record key the operation was about.
    pub key: String,
    /// The version the caller expected; `None` means the caller expected no record.
    pub expected: Option<Version>,
    /// The version the store actually holds; `None` means there is no record.
    pub actual: Option<Version>,
}

impl VersionConflict {
    /// The conflict of an operation on `key` that expected `expected` and found `actual`.
    pub fn new(key: &str, expected: Option<&Version>, actual: Option<Version>) -> Self {
        VersionConflict {
            key: key.to_owned(),
            expected: expected.cloned(),
            actual,
        }
    }
}

impl fmt::Display for VersionConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "version conflict on record {:?}: expected ", self.key)?;
        match &self.expected {
            Some(v) => write!(f, "version {v}")?,
            None => f.write_str("no record")?,
        }
        f.write_str(", found ")?;
        match &self.actual {
            Some(v) => write!(f, "version {v}"),
            None => f.write_str("no record"),
        }
    }
}

/// Everything a store operation can fail with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The key breaks the rules every backend enforces.
    #[error(transparent)]
    InvalidKey(#[from] KeyError),
    /// A conditional write or delete found another version than the expected one.
    #[error(transparent)]
    VersionConflict(#[from] VersionConflict),
    /// A write on a store whose update conflicts are only detected (see
    /// [`Guarantees`](crate::Guarantees)) landed over another writer's change: `actual` is the version this
    /// write made, past the expected one plus one. A conflict all the same ([`StoreError::as_conflict`]),
    /// but the other writer's change is gone.
    #[error("{0}; this write landed over another writer's change")]
    Overwrote(VersionConflict),
    /// The local store could not read or write a file. The message ends with the operating system's
    /// reason ("Permission denied", "No space left on device"), so it is not also given as the error's
    /// `source` (a caller joining sources would print it twice).
    #[error("local store could not {op} {path}: {error}")]
    Io {
        /// What the store was doing ("read", "create", "rename", ...).
        op: &'static str,
        /// The file or directory involved.
        path: std::path::PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// A remote backend refused or failed a request for a reason other than a version mismatch.
    #[error("{backend} {op} of {key:?} failed")]
    Backend {
        /// The backend ("s3").
        backend: &'static str,
        /// The API operation ("GetObject", "PutObject", ...).
        op: &'static str,
        /// The record key or list prefix the request was about.
        key: String,
        /// The client library's error.
        #[source]
        source: BoxError,
    },
    /// The bucket's KMS key refused S3 on the caller's behalf.
    #[error(transparent)]
    KmsDenied(#[from] KmsDenied),
    /// A line of a trip log could not be read back.
    #[error("trip log line {line} is malformed: {reason}")]
    MalformedTripLog {
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A payload larger than the backend stores under one key (an SSM parameter's value in its tier),
    /// refused before any call.
    #[error("record {key:?} is {size} bytes as stored; {backend} stores at most {limit} ({hint})")]
    TooLarge {
        /// The backend ("ssm").
        backend: &'static str,
        /// The record key.
        key: String,
        /// The size the payload takes as stored (base64 and its marker, for SSM).
        size: usize,
        /// The most the backend stores.
        limit: usize,
        /// What would make room.
        hint: &'static str,
    },
    /// A background part of an operation stopped without finishing (its thread panicked or was cancelled).
    #[error("store operation on {key:?} was interrupted")]
    Interrupted {
        /// The record key or prefix the operation was about.
        key: String,
    },
}

impl StoreError {
    /// The conflict, when this error is a compare-and-swap mismatch.
    pub fn as_conflict(&self) -> Option<&VersionConflict> {
        match self {
            StoreError::VersionConflict(c) | StoreError::Overwrote(c) => Some(c),
            _ => None,
        }
    }

    /// Whether this error is a compare-and-swap mismatch (the caller may re-read and retry).
    pub fn is_conflict(&self) -> bool {
        self.as_conflict().is_some()
    }
}
