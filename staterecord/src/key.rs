//! Key validation shared by every backend.
//!
//! A key is a `/`-separated path of non-empty segments. The rules exist so that a local store can never be
//! steered outside its directory and so that every backend refuses the same keys.

use thiserror::Error;

/// Why a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    /// The key is the empty string.
    #[error("record key is empty")]
    Empty,
    /// The key holds a NUL character.
    #[error("record key {key:?} contains a NUL character")]
    Nul {
        /// The refused key.
        key: String,
    },
    /// The key starts with `/`.
    #[error("record key {key:?} starts with '/'")]
    LeadingSlash {
        /// The refused key.
        key: String,
    },
    /// The key has an empty segment (`a//b`) or ends with `/`.
    #[error("record key {key:?} has an empty segment")]
    EmptySegment {
        /// The refused key.
        key: String,
    },
    /// The key has a `.` or `..` segment.
    #[error("record key {key:?} has a '.' or '..' segment")]
    DotSegment {
        /// The refused key.
        key: String,
    },
}

/// Checks `key` against the rules every backend enforces.
pub fn validate_key(key: &str) -> Result<(), KeyError> {
    if key.is_empty() {
        return Err(KeyError::Empty);
    }
    let owned = || key.to_owned();
    if key.contains('\0') {
        return Err(KeyError::Nul { key: owned() });
    }
    if key.starts_with('/') {
        return Err(KeyError::LeadingSlash { key: owned() });
    }
    for segment in key.split('/') {
        match segment {
            "" => return Err(KeyError::EmptySegment { key: owned() }),
            "." | ".." => return Err(KeyError::DotSegment { key: owned() }),
            _ => {}
        }
    }
    Ok(())
}
