//! The one error type of the crate: what stops a projection from being built at all.
//!
//! Almost everything a projection meets is a finding, not an error: a throttled listing, a malformed
//! marker or an unreadable record becomes a [`Diagnostic`](admission::Diagnostic) in the
//! [`Projection`](crate::Projection). This enum is only for the few conditions under which no plan can be
//! made (the record store cannot be read, the declared model breaks its own rules). It must never carry
//! a record payload, which may hold secrets.

use staterecord::StoreError;
use thiserror::Error;

/// Why a projection could not be built.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ProjectionError {
    /// The bulk read of the estate's records failed.
    #[error("could not read the records of estate {estate}")]
    RecordsUnreadable {
        /// The estate whose records were wanted.
        estate: String,
        /// The store's error.
        #[source]
        source: StoreError,
    },
    /// A declared instance names a resource type that neither the provider nor the engine serves, or one
    /// with no admission path (lint refuses both before a projection is built).
    #[error("{address}: resource type {type_name} is not served or has no admission path")]
    UnsupportedType {
        /// The declared instance.
        address: String,
        /// Its type.
        type_name: String,
    },
    /// The declared model breaks one of its own rules (two instances at one address, a count index
    /// outside its block's count, a key kind that does not fit the block's expansion).
    #[error("declared model: {address}: {reason}")]
    InvalidDeclared {
        /// The instance or block concerned.
        address: String,
        /// What is wrong.
        reason: String,
    },
    /// A parent-derived identity reads an instance the configuration does not declare (an index past its
    /// block's `count`, a key not in its `for_each`).
    #[error("{parent} is not declared, but the identity of {address} reads it")]
    UndeclaredParent {
        /// The instance whose identity reads the parent.
        address: String,
        /// The instance read, which is not declared.
        parent: String,
    },
    /// The record key prefix is not empty and does not end with `/`.
    #[error("record key prefix {prefix:?} must be empty or end with a slash")]
    InvalidKeyPrefix {
        /// The prefix given.
        prefix: String,
    },
    /// The record key prefix is longer than [`MAX_KEY_PREFIX_LEN`](crate::record::MAX_KEY_PREFIX_LEN)
    /// bytes, past which the longest estate's keys could not fit the store's key limit.
    #[error(
        "record key prefix of {len} bytes is longer than {} bytes",
        crate::record::MAX_KEY_PREFIX_LEN
    )]
    KeyPrefixTooLong {
        /// The prefix's length in bytes.
        len: usize,
    },
}
