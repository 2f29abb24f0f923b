//! The slots of an apply: before anything changes, each count block's slot high-water mark is raised
//! to the highest slot the plan saw live and to every slot it gives out (`PlanContext::slot_marks`), so
//! that a mark an interrupted run left below the live slots is repaired, and no object carries a slot
//! the mark does not cover.
//!
//! A block whose mark cannot be written changes nothing: its members' slots could be minted again once
//! the highest of them are gone. A block whose mark another run raised above what the plan saw gives
//! out none of the slots the plan minted up to that mark: the other run may have given them out already.
//! This module writes only the marks, each with compare-and-swap.

use std::collections::HashMap;

use admission::marker::SLOT_TAG;
use admission::{BlockAddress, Code, Slot};
use execgraph::Diagnostic as GraphDiagnostic;

use super::{Executor, gdiag};
use crate::graph::{FinalKind, FinalPlan};
use crate::model::SlotMark;

/// What the claim of one block's slots left an apply with, when it holds its changes back.
pub(super) enum SlotVerdict {
    /// Another run recorded slots up to this one since the plan: the plan's minted slots up to it are
    /// not used.
    Taken(SlotMark, Slot),
    /// The mark could not be written (the store's error, with the record's key).
    Unrecorded(String),
}

impl Executor {
    /// Claims every block's slots the plan needs, blocks side by side; what holds a block back, by block.
    pub(super) async fn claim_slots(&self) -> HashMap<BlockAddress, SlotVerdict> {
        let claims = self.ctx.slot_marks.iter().map(|mark| async move {
            let claimed = self
                .journal
                .claim_slots(&mark.block, mark.target, mark.fresh_above)
                .await;
            let verdict = match claimed {
                Ok(claim) => claim.taken.map(|t| SlotVerdict::Taken(mark.clone(), t)),
                Err(e) => Some(SlotVerdict::Unrecorded(format!(
                    "its record {} could not be written: {}",
                    e.key, e.error
                ))),
            };
            verdict.map(|v| (mark.block.clone(), v))
        });
        futures::future::join_all(claims)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Why `plan` must not start, if its block's slots hold it back: every change of a block whose mark
    /// could not be written, and a change giving out a minted slot another run may have given out too.
    pub(super) fn slot_refusal(&self, plan: &FinalPlan) -> Option<GraphDiagnostic> {
        let address = &plan.address;
        let block = address.block();
        match self.slot_verdicts.get(block)? {
            SlotVerdict::Unrecorded(why) => Some(gdiag(
                Code::ApplyFailed,
                format!(
                    "{address} was not changed: the slot high-water mark of {block} is not recorded"
                ),
                format!(
                    "{why}. Nothing of {block} is changed without it, since its slots could be given \
                     out again; fix the record store and apply again"
                ),
                address,
            )),
            SlotVerdict::Taken(mark, taken) => {
                let slot = slot_given(plan)?;
                (mark.minted(slot) && slot <= *taken).then(|| {
                    gdiag(
                        Code::VersionConflict,
                        format!(
                            "{address} was given up: another run gave out the slots of {block} up to \
                             {taken} since the plan read them, and this plan gave it slot {slot}"
                        ),
                        "another apply of this estate ran at the same time; nothing was changed for \
                         this instance: plan again to see what it did",
                        address,
                    )
                })
            }
        }
    }
}

/// The slot `plan` puts on an object: a create's, or the one a tags-only update writes.
fn slot_given(plan: &FinalPlan) -> Option<Slot> {
    match plan.kind {
        FinalKind::Create => plan.change.slot,
        FinalKind::Update => plan.tag_change.set.get(SLOT_TAG)?.parse().ok(),
        FinalKind::Delete => None,
    }
}
