//! Key validation shared by every backend.
//!
//! A key is a `/`-separated path of non-empty segments. The rules exist so that a local store can never be
//! steered outside its directory and so that every backend refuses the same keys, with the same typed
//! error, before any I/O. Validation never rewrites a key: a key is accepted exactly as written or refused.

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
    /// The key is longer than [`MAX_KEY_LEN`] bytes (S3 object keys stop at 1024, and a prefix may be
    /// joined in front).
    #[error("record key of {len} bytes is longer than {MAX_KEY_LEN}")]
    TooLong {
        /// The key's length in bytes.
        len: usize,
    },
    /// A segment is longer than [`MAX_SEGMENT_LEN`] bytes (a local file name, with its suffixes, must
    /// stay under 255).
    #[error("record key {key:?} has a segment longer than {MAX_SEGMENT_LEN} bytes")]
    SegmentTooLong {
        /// The refused key.
        key: String,
    },
    /// The key keeps the rules every backend enforces but not one of this backend's own (an SSM parameter
    /// name's depth or length), checked before any call.
    #[error("record key {key:?} cannot be stored here: {reason}")]
    Unstorable {
        /// The refused key.
        key: String,
        /// Which of the backend's rules it breaks.
        reason: String,
    },
}

/// The longest key, in bytes, that every backend accepts.
pub const MAX_KEY_LEN: usize = 768;

/// The longest key segment, in bytes, that every backend accepts.
pub const MAX_SEGMENT_LEN: usize = 200;

/// Checks `key` against the rules every backend enforces: not empty, no NUL, no leading `/`, no empty,
/// `.` or `..` segment (so no trailing `/` or `//` either), at most [`MAX_KEY_LEN`] bytes and segments of
/// at most [`MAX_SEGMENT_LEN`] bytes.
pub fn validate_key(key: &str) -> Result<(), KeyError> {
    if key.is_empty() {
        return Err(KeyError::Empty);
    }
    let owned = || key.to_owned();
    if key.contains('\0') {
        return Err(KeyError::Nul { key: owned() });
    }
    if key.len() > MAX_KEY_LEN {
        return Err(KeyError::TooLong { len: key.len() });
    }
    if key.starts_with('/') {
        return Err(KeyError::LeadingSlash { key: owned() });
    }
    for segment in key.split('/') {
        match segment {
            "" => return Err(KeyError::EmptySegment { key: owned() }),
            "." | ".." => return Err(KeyError::DotSegment { key: owned() }),
            s if s.len() > MAX_SEGMENT_LEN => {
                return Err(KeyError::SegmentTooLong { key: owned() });
            }
            _ => {}
        }
    }
    Ok(())
}
