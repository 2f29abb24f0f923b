//! Records and versions: the values a store hands out.
//!
//! A [`Version`] is never empty, so "no version" (`None`) is a stable sentinel for "no record". This module
//! must never interpret a payload: records are opaque bytes.

use std::fmt;

use sha2::{Digest, Sha256};

/// The version of one stored record: a content hash (`sha256:<hex>`) on the local and memory stores, the
/// ETag exactly as S3 returned it on S3.
///
/// A version is never empty. Compare versions only for equality; their form is the backend's business.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version(String);

impl Version {
    /// Wraps a backend's version string; `None` when it is empty, since an empty version would be
    /// indistinguishable from "no record".
    pub fn new(version: impl Into<String>) -> Option<Version> {
        let version = version.into();
        (!version.is_empty()).then_some(Version(version))
    }

    /// The content-hash version of `payload`: `sha256:` followed by 64 lowercase hex digits.
    pub fn content_hash(payload: &[u8]) -> Version {
        Version(format!("sha256:{:x}", Sha256::digest(payload)))
    }

    /// The version as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Version> for String {
    fn from(v: Version) -> String {
        v.0
    }
}

/// One stored record: its payload and the version a conditional write must name to replace it.
#[derive(Clone, PartialEq, Eq)]
pub struct Record {
    /// The opaque payload.
    pub payload: Vec<u8>,
    /// The record's current version.
    pub version: Version,
}

impl fmt::Debug for Record {
    // Payloads may hold secrets returned at creation: show their size, never their bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("payload_len", &self.payload.len())
            .field("version", &self.version)
            .finish()
    }
}
