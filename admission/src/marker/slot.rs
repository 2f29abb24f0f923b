//! Count-set slots: the `tofu-slot` value grammar, what a slot tag says, and minting new slots above a
//! block's high-water mark.
//!
//! Minting never fills a gap: a slot once used is never handed out again.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A count-set member's slot: an unsigned base-10 integer up to 4294967295, no leading zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Slot(pub u32);

impl Slot {
    /// The first slot minted for a block.
    pub const FIRST: Slot = Slot(0);

    /// The slot after this one, if there is one.
    pub fn next(self) -> Option<Slot> {
        self.0.checked_add(1).map(Slot)
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Slot {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| Error::MalformedSlot {
            value: s.to_owned(),
            reason: reason.to_owned(),
        };
        if s.is_empty() {
            return Err(fail("it is empty"));
        }
        if !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(fail("it must be ASCII digits only"));
        }
        if s.len() > 1 && s.starts_with('0') {
            return Err(fail("it has a leading zero"));
        }
        s.parse::<u32>()
            .map(Slot)
            .map_err(|_| fail("it is over 4294967295"))
    }
}

/// The next `n` slots for a block: above the larger of the highest live slot and the highest slot ever
/// recorded for it, starting at 0 for a block that never had one. Gaps are never filled.
pub fn mint_slots(
    live_high: Option<Slot>,
    recorded_high: Option<Slot>,
    n: usize,
) -> Result<Vec<Slot>, Error> {
    let high = live_high.max(recorded_high);
    let mut next = match high {
        None => Some(Slot::FIRST),
        Some(h) => h.next(),
    };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let s = next.ok_or(Error::SlotsExhausted {
            highest: high.map_or(0, |h| h.0),
        })?;
        out.push(s);
        next = s.next();
    }
    Ok(out)
}

/// What a slot tag says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotMarker {
    /// No `tofu-slot` tag.
    Absent,
    /// A valid slot.
    Valid(Slot),
    /// A value outside the grammar (`malformed-slot`).
    Malformed(String),
}
