//! The slot high-water mark of a count block: the highest slot ever minted for it, raised as objects get
//! their slots, so that no slot is minted twice.
//!
//! Every member of a block shares the one record, so its raises are one at a time; raises that wait
//! meanwhile are taken together by the next one (which writes the highest of them), so a large block
//! costs one read and one write per round of the store, not per member. A raise that waited alone costs
//! what it did on its own: one read, and a write when the mark must rise. This module never lowers a mark.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use admission::{BlockAddress, Slot};
use projection::record::{RecordBody, SlotsRecord};

use super::{RecordError, RecordJournal};

/// Where a raise learns the current mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotsBasis {
    /// Read from the store first (apply: other members may have raised it since the plan).
    Store,
    /// As the run saw it (adopt: a mark raised since is another run's, and the write loses).
    Seen,
}

/// The raises of each block's mark, by record key.
#[derive(Default)]
pub(super) struct SlotRaises {
    blocks: Mutex<HashMap<String, Raises>>,
}

/// The raises of one block's mark.
#[derive(Default)]
struct Raises {
    /// The ticket of the next raise asked for.
    next_ticket: u64,
    /// The highest slot asked for so far.
    wanted: Option<Slot>,
    /// Every raise with a lower ticket is durable.
    covered: u64,
}

impl SlotRaises {
    fn with<T>(&self, key: &str, f: impl FnOnce(&mut Raises) -> T) -> T {
        let mut blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        f(blocks.entry(key.to_owned()).or_default())
    }
}

impl RecordJournal {
    /// Makes `block`'s slot high-water mark at least `slot`.
    pub(crate) async fn raise_slots(
        &self,
        block: &BlockAddress,
        slot: Slot,
        basis: SlotsBasis,
    ) -> Result<(), RecordError> {
        let key = self.keys.slots(block);
        let ticket = self.raises.with(&key, |r| {
            r.wanted = r.wanted.max(Some(slot));
            r.next_ticket += 1;
            r.next_ticket - 1
        });
        let _turn = self.turns.take(&key).await;
        let round = self.raises.with(&key, |r| {
            (ticket >= r.covered).then_some((r.wanted.unwrap_or(slot), r.next_ticket))
        });
        // A raise that waited was taken by the one before it.
        let Some((target, upto)) = round else {
            return Ok(());
        };
        let current = match basis {
            SlotsBasis::Store => self.read_now(&key).await?,
            SlotsBasis::Seen => self.seen(&key).cloned(),
        };
        let highest = match current {
            Some(RecordBody::Slots(r)) => Some(r.highest),
            _ => None,
        };
        if let Some(raised) = raised_slots(highest, target) {
            let body = RecordBody::Slots(raised);
            self.put_payload_now(&key, &self.payload(&key, &block.to_string(), &body))
                .await?;
        }
        self.raises.with(&key, |r| r.covered = r.covered.max(upto));
        Ok(())
    }
}

/// The slot high-water record after `slot` is given to an object, when it must rise (`highest` is the
/// mark now, `None` without a record).
fn raised_slots(highest: Option<Slot>, slot: Slot) -> Option<SlotsRecord> {
    highest
        .is_none_or(|h| h < slot)
        .then_some(SlotsRecord { highest: slot })
}
