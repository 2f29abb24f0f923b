//! The slot high-water marks an apply of this plan raises before it changes anything: for each count
//! block, the highest slot the plan saw live (a mark an interrupted run left below it is repaired) and
//! the highest slot it gives out (a new member's, or an unslotted member's), when the recorded mark is
//! below either.
//!
//! Pure: it reads the plan's changes, its bound objects and the records it saw.

use std::collections::BTreeMap;

use admission::marker::SLOT_TAG;
use admission::{BlockAddress, InstanceAddress, InstanceKey, Slot};
use provider::LiveObject;

use crate::model::{Action, ResourceChange, SlotMark};

/// The marks to raise, in block order.
pub(super) fn slot_marks(
    changes: &[ResourceChange],
    bound: &BTreeMap<InstanceAddress, LiveObject>,
    records: &projection::RecordSet,
) -> Vec<SlotMark> {
    // Per block: the highest slot live, the highest given out.
    let mut blocks: BTreeMap<&BlockAddress, (Option<Slot>, Option<Slot>)> = BTreeMap::new();
    for (address, object) in bound.iter().filter(|(a, _)| indexed(a)) {
        if let Some(slot) = object.tag(SLOT_TAG).and_then(|v| v.parse::<Slot>().ok()) {
            let entry = blocks.entry(address.block()).or_default();
            entry.0 = entry.0.max(Some(slot));
        }
    }
    for c in changes.iter().filter(|c| indexed(&c.address)) {
        if c.action != Action::Delete && c.slot.is_some() {
            let entry = blocks.entry(c.address.block()).or_default();
            entry.1 = entry.1.max(c.slot);
        }
    }
    blocks
        .into_iter()
        .filter_map(|(block, (live, given))| {
            let recorded = records.slots.get(block).map(|r| r.body.highest);
            let target = live.max(given)?;
            (Some(target) > recorded).then(|| SlotMark {
                block: block.clone(),
                target,
                fresh_above: recorded.max(live),
            })
        })
        .collect()
}

/// Whether `address` is a count member's (an index key).
fn indexed(address: &InstanceAddress) -> bool {
    matches!(address.key(), InstanceKey::Int(_))
}
