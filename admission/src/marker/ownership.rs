//! The ownership verdict: what one live object's tags say about who owns it, for one estate.
//!
//! A verdict is read from tags alone; it never binds an object to a declared address.

use std::collections::BTreeMap;
use std::fmt;

use super::escape::split_escaped;
use super::tags::read_address;
use super::{ESTATE_TAG, Estate, SLOT_TAG, SlotMarker};
use crate::error::Error;

/// Why an object carrying this estate's name is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MalformedReason {
    /// No address tag at all (bound anyway when found at a declared client-named identity).
    MissingAddress,
    /// The address chain is broken.
    BrokenChain(String),
    /// The address is not `TYPE.NAME` or `TYPE.NAME:KEY`.
    Unparseable(String),
    /// The address names another resource type.
    OtherType(String),
}

impl fmt::Display for MalformedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedReason::MissingAddress => f.write_str("the tofu-address tag is missing"),
            MalformedReason::BrokenChain(r) => write!(f, "the address chain is broken: {r}"),
            MalformedReason::Unparseable(a) => write!(f, "the address {a:?} does not parse"),
            MalformedReason::OtherType(t) => {
                write!(f, "the address names another resource type, {t}")
            }
        }
    }
}

/// The ownership verdict of one live object's tags, for one estate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// This estate's object at a parseable address of its own type (escaped, as the tag holds it).
    Owned {
        /// The escaped address the markers carry.
        escaped_address: String,
        /// What the slot tag says.
        slot: SlotMarker,
    },
    /// No estate tag: reported, protected, never deleted.
    Foreign,
    /// Another estate's object: counted, never bound, never touched.
    OtherEstate(String),
    /// This estate's name with an unreadable address: an error, never changed.
    Malformed(MalformedReason),
}

/// Judges an object of `type_name` by its tags for `estate` (markers.md, ownership verdicts).
pub fn ownership(estate: &Estate, type_name: &str, tags: &BTreeMap<String, String>) -> Ownership {
    match tags.get(ESTATE_TAG) {
        None => return Ownership::Foreign,
        Some(e) if e != estate.as_str() => return Ownership::OtherEstate(e.clone()),
        Some(_) => {}
    }
    let escaped = match read_address(tags) {
        Ok(Some(a)) => a,
        Ok(None) => return Ownership::Malformed(MalformedReason::MissingAddress),
        Err(Error::MalformedMarker { reason }) => {
            return Ownership::Malformed(MalformedReason::BrokenChain(reason));
        }
        Err(other) => return Ownership::Malformed(MalformedReason::BrokenChain(other.to_string())),
    };
    match split_escaped(&escaped) {
        None => Ownership::Malformed(MalformedReason::Unparseable(escaped)),
        Some((t, _, _)) if t != type_name => {
            Ownership::Malformed(MalformedReason::OtherType(t.to_owned()))
        }
        Some(_) => {
            let slot = match tags.get(SLOT_TAG) {
                None => SlotMarker::Absent,
                Some(v) => match v.parse() {
                    Ok(s) => SlotMarker::Valid(s),
                    Err(_) => SlotMarker::Malformed(v.clone()),
                },
            };
            Ownership::Owned {
                escaped_address: escaped,
                slot,
            }
        }
    }
}
