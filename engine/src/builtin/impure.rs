//! What the impure functions give during one apply: `timestamp()` is the time the apply started (one value
//! for the whole run), `uuid()` a fresh random UUID at every call, `bcrypt()` a fresh salt at every call.
//!
//! The evaluator's interface cannot fail, so a failed draw is kept by the [`Draws`] of one evaluation and
//! told by its caller as that instance's (or output's) error; the value given in its place is never
//! applied.

use std::sync::{Mutex, PoisonError};

use super::entropy;

/// The start time of one apply, as `timestamp()` gives it.
pub(crate) struct ApplyTime {
    started: String,
}

impl ApplyTime {
    /// The apply's start time `at`, to the second, in RFC 3339 form (UTC).
    pub(crate) fn at(at: std::time::SystemTime) -> ApplyTime {
        ApplyTime {
            started: crate::clock::rfc3339(at),
        }
    }

    /// The impure values of one evaluation, remembering a failed draw.
    pub(crate) fn draws(&self) -> Draws<'_> {
        Draws {
            time: self,
            failure: Mutex::new(None),
        }
    }
}

/// The impure values of one evaluation: the apply's start time, and fresh UUIDs.
pub(crate) struct Draws<'a> {
    time: &'a ApplyTime,
    failure: Mutex<Option<getrandom::Error>>,
}

impl Draws<'_> {
    /// The first failed draw since the last call, if any.
    pub(crate) fn take_failure(&self) -> Option<getrandom::Error> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl admission::ImpureValues for Draws<'_> {
    fn timestamp(&self) -> String {
        self.time.started.clone()
    }

    fn uuid(&self) -> String {
        entropy::uuid().unwrap_or_else(|e| {
            self.failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(e);
            // Never applied: the caller refuses the evaluation.
            uuid::Uuid::nil().to_string()
        })
    }

    fn bcrypt_salt(&self) -> Option<[u8; 16]> {
        match entropy::bytes16() {
            Ok(salt) => Some(salt),
            Err(e) => {
                self.failure
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(e);
                // Never applied: the caller refuses the evaluation.
                Some([0; 16])
            }
        }
    }
}
