//! What a plan takes from the projection besides bindings: its reports (foreign objects, bind candidates,
//! unowned objects, owned undeclared ones, rename hints), deposed objects, records, cost and diagnostics.
//!
//! The projection's reports are the plan's, taken as they are; this module must never judge an object
//! itself.

use std::collections::BTreeMap;

use admission::{Diagnostic, InstanceAddress};
use projection::{Projection, Removal};
use provider::LiveObject;

use crate::model::{
    BindCandidate, Cost, ForeignObject, OwnedUndeclared, RenameHint, UnownedObject,
};

/// What the plan takes from the projection; empty when nothing was projected (the configuration has
/// errors, or names no estate).
#[derive(Default)]
pub(super) struct Projected {
    pub(super) reports: Reports,
    /// The diagnostics of discovery.
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The deposed objects still present, by instance.
    pub(super) deposed: BTreeMap<InstanceAddress, Vec<LiveObject>>,
    /// Deposed records naming objects that are gone.
    pub(super) stale_deposed: Vec<(InstanceAddress, String)>,
    pub(super) records: projection::RecordSet,
    pub(super) cost: Cost,
}

impl Projected {
    /// Takes what the plan needs of `p`.
    pub(super) fn of(p: Projection, region: &str) -> Projected {
        let stale_deposed = p
            .deposed
            .iter()
            .filter(|d| !d.present)
            .map(|d| (d.address.clone(), d.id.clone()))
            .collect();
        let mut deposed = BTreeMap::new();
        for d in p.deposed.iter().filter(|d| d.present) {
            deposed
                .entry(d.address.clone())
                .or_insert_with(Vec::new)
                .push(LiveObject {
                    type_name: d.type_name.clone(),
                    id: d.id.clone(),
                    region: region.to_owned(),
                    attributes: BTreeMap::new(),
                    tags: BTreeMap::new(),
                });
        }
        let mut owned_undeclared = p.owned_undeclared;
        // A count surplus is reported as its delete only: the report names what is no longer declared.
        owned_undeclared.retain(|o| o.reason == Removal::NoLongerDeclared);
        Projected {
            reports: Reports {
                foreign: p.foreign,
                bind_candidates: p.bind_candidates,
                unowned: p.unowned,
                owned_undeclared,
                rename_hints: p.rename_hints,
            },
            diagnostics: p.diagnostics,
            deposed,
            stale_deposed,
            cost: p.cost,
            records: p.records,
        }
    }
}

/// The reports of a plan, as the projection made them.
#[derive(Default)]
pub(super) struct Reports {
    pub(super) foreign: Vec<ForeignObject>,
    pub(super) bind_candidates: Vec<BindCandidate>,
    pub(super) unowned: Vec<UnownedObject>,
    pub(super) owned_undeclared: Vec<OwnedUndeclared>,
    pub(super) rename_hints: Vec<RenameHint>,
}
