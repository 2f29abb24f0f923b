//! The slot high-water mark of a count block: the highest slot ever given out for it, recorded before
//! any object carries a new slot, so that no slot is minted twice.
//!
//! An apply claims each block's slots once, before it changes anything (`claim_slots`): the mark is
//! raised to the highest slot the plan saw live (repairing a mark an interrupted run left behind) and
//! to every slot the plan mints. A raise only ever goes up, so a lost compare-and-swap is read again and
//! the higher value written: the one write of this journal that is retried, since two raises merge by
//! taking the larger. What the re-read shows tells the apply whether another run gave out some of the
//! slots its plan minted. `adopt` raises the mark for the one slot it gives (`raise_slots`), against the
//! version its run saw, and loses to any run that raised it since. This module never lowers a mark.

use admission::{BlockAddress, Slot};
use projection::record::{RecordBody, SlotsRecord};

use super::{RecordError, RecordJournal};

/// How many times a claim reads the mark again after losing its compare-and-swap to another run.
const CLAIM_ATTEMPTS: usize = 5;

/// What the claim of a block's slots found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlotClaim {
    /// The mark another run recorded since the plan read it, when it reaches above `fresh_above`: the
    /// slots of this plan up to it may have been given to other objects, and must not be used.
    pub(crate) taken: Option<Slot>,
}

impl RecordJournal {
    /// Raises `block`'s mark to at least `target` (the highest slot live or given out by the plan),
    /// against the version the plan saw; a lost compare-and-swap reads the mark again and writes the
    /// larger, up to [`CLAIM_ATTEMPTS`] times. `fresh_above` is the highest slot the plan saw recorded
    /// or live: a mark above it written by another run is reported as taken.
    pub(crate) async fn claim_slots(
        &self,
        block: &BlockAddress,
        target: Slot,
        fresh_above: Option<Slot>,
    ) -> Result<SlotClaim, RecordError> {
        let key = self.keys.slots(block);
        let _turn = self.turns.take(&key).await;
        let mut claim = SlotClaim { taken: None };
        let mut current = highest(self.seen(&key));
        let mut attempts = 0;
        loop {
            if current.is_some_and(|h| h >= target) {
                return Ok(claim);
            }
            let body = RecordBody::Slots(SlotsRecord { highest: target });
            let payload = self.payload(&key, &block.to_string(), &body);
            match self.put_payload_now(&key, &payload).await {
                Ok(_) => return Ok(claim),
                Err(e) if e.error.is_conflict() && attempts + 1 < CLAIM_ATTEMPTS => {
                    attempts += 1;
                    current = highest(self.read_now(&key).await?.as_ref());
                    if current > fresh_above {
                        claim.taken = claim.taken.max(current);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Makes `block`'s mark at least `slot`, against the version the run saw: a mark raised since is
    /// another run's, and the write loses (`adopt`, whose slot came from what it saw).
    pub(crate) async fn raise_slots(
        &self,
        block: &BlockAddress,
        slot: Slot,
    ) -> Result<(), RecordError> {
        let key = self.keys.slots(block);
        let _turn = self.turns.take(&key).await;
        if highest(self.seen(&key)).is_some_and(|h| h >= slot) {
            return Ok(());
        }
        let body = RecordBody::Slots(SlotsRecord { highest: slot });
        self.put_payload_now(&key, &self.payload(&key, &block.to_string(), &body))
            .await
            .map(|_| ())
    }
}

/// The mark a slots record holds (`None`: no record, or one this version cannot read).
fn highest(body: Option<&RecordBody>) -> Option<Slot> {
    match body {
        Some(RecordBody::Slots(r)) => Some(r.highest),
        _ => None,
    }
}
