//! What goes wrong when a caller hands the value model text or values it cannot accept.
//!
//! These are programming-level refusals (a number that does not parse, an unknown value sent to JSON); a
//! live system's failures are [`crate::ProviderError`]s. This module must never grow a variant that wraps a
//! foreign error without naming the condition.

use thiserror::Error;

/// Everything the value model refuses, one variant per condition.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ValueError {
    /// A value path (`tags.Name`, `list[0]`) that does not parse.
    #[error("invalid value path {input:?}: {reason}")]
    InvalidValuePath {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A value that is not yet known was asked for in a form that needs it known (JSON, a record).
    #[error("value at {path:?} is unknown and cannot be written out")]
    UnknownValue {
        /// Where in the value the unknown sits (dotted; empty for the whole value).
        path: String,
    },
    /// A number that is NaN or infinite.
    #[error("number is not finite")]
    NonFiniteNumber,
    /// A number past the supported range (about 10^±19700), in text or as a result.
    #[error("{text:?} is out of the range of numbers")]
    NumberOutOfRange {
        /// The text given.
        text: String,
    },
    /// Text that is not a decimal number.
    #[error("{text:?} is not a number")]
    InvalidNumber {
        /// The text given.
        text: String,
    },
}
