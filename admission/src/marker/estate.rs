//! The estate name: the owner a `tofu-estate` tag names, held only in the grammar
//! `^[a-z][a-z0-9-]{0,127}$`.
//!
//! A value of [`Estate`] is valid by construction; this module never reads or writes a tag.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// A valid estate name: `^[a-z][a-z0-9-]{0,127}$`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Estate(String);

impl Estate {
    /// The estate `name`, or why it is outside the grammar.
    pub fn new(name: impl Into<String>) -> Result<Estate, Error> {
        let name = name.into();
        let reason = if name.is_empty() {
            Some("it is empty")
        } else if name.chars().count() > 128 {
            Some("it is longer than 128 characters")
        } else if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            Some("it must start with a lowercase letter")
        } else if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            Some("it may hold only lowercase letters, digits and hyphens")
        } else {
            None
        };
        match reason {
            Some(r) => Err(Error::InvalidEstate {
                name,
                reason: r.to_owned(),
            }),
            None => Ok(Estate(name)),
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Estate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Estate {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Estate::new(s)
    }
}

impl Serialize for Estate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Estate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Estate::new(String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}
