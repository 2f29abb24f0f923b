//! The crate's error type: what goes wrong when a caller hands the model text or values it cannot accept.
//!
//! These are programming-level refusals (an address that does not parse, an unknown value sent to JSON, a
//! slot outside the grammar); the user-facing problems of a configuration are [`crate::Diagnostic`]s, and a
//! live system's failures are [`ProviderError`](::provider::ProviderError)s. This module must never grow a variant that
//! wraps a foreign error without naming the condition.

use thiserror::Error;

/// Everything the model refuses, one variant per condition.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A resource address that does not follow `TYPE.NAME`, `TYPE.NAME[N]` or `TYPE.NAME["key"]`.
    #[error("invalid resource address {input:?}: {reason}")]
    InvalidAddress {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An estate name outside `^[a-z][a-z0-9-]{0,127}$`.
    #[error("invalid estate name {name:?}: {reason}")]
    InvalidEstate {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `for_each` key that may not be used in an address.
    #[error("invalid for_each key {key:?}: {reason}")]
    InvalidForEachKey {
        /// The key given.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An escaped key that does not decode.
    #[error("escaped key {escaped:?} does not decode: {reason}")]
    UndecodableKey {
        /// The escaped key.
        escaped: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An escaped address longer than four tag values can hold.
    #[error("escaped address is {chars} characters long, over the limit of 1024")]
    OverlongAddress {
        /// The length in Unicode characters.
        chars: usize,
    },
    /// A slot value outside the slot grammar.
    #[error("malformed slot {value:?}: {reason}")]
    MalformedSlot {
        /// The tag value found.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Every slot up to the largest allowed one has been minted for the block.
    #[error("no slot left to mint above {highest}")]
    SlotsExhausted {
        /// The highest slot already minted.
        highest: u32,
    },
    /// Address marker tags that do not form a readable chain.
    #[error("malformed address marker: {reason}")]
    MalformedMarker {
        /// What is wrong with the tags.
        reason: String,
    },
}
