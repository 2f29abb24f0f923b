//! What a plan takes from the projection besides bindings: its reports (foreign objects, bind candidates,
//! unowned objects, owned undeclared ones, rename hints), deposed objects, records, cost and diagnostics.
//!
//! Plain conversions of the projection's findings; this module must never judge an object itself.

use std::collections::BTreeMap;

use admission::{Diagnostic, InstanceAddress, LiveObject, Value};
use projection::{Projection, Removal, UndeclaredAction};

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
        Projected {
            reports: Reports::from_projection(&p),
            diagnostics: p.diagnostics,
            deposed,
            stale_deposed,
            cost: Cost {
                api_calls: p.cost.api_calls,
                api_calls_by_operation: p.cost.api_calls_by_operation.clone(),
                store_trips: p.cost.store_trips,
            },
            records: p.records,
        }
    }
}

/// The reports of a plan, taken from the projection.
#[derive(Default)]
pub(super) struct Reports {
    pub(super) foreign: Vec<ForeignObject>,
    pub(super) bind_candidates: Vec<BindCandidate>,
    pub(super) unowned: Vec<UnownedObject>,
    pub(super) owned_undeclared: Vec<OwnedUndeclared>,
    pub(super) rename_hints: Vec<RenameHint>,
}

impl Reports {
    fn from_projection(p: &Projection) -> Reports {
        Reports {
            foreign: p
                .foreign
                .iter()
                .map(|f| ForeignObject {
                    type_name: f.type_name.clone(),
                    id: f.id.clone(),
                    tags: f.tags.clone(),
                })
                .collect(),
            bind_candidates: p
                .bind_candidates
                .iter()
                .map(|b| BindCandidate {
                    address: b.address.clone(),
                    id: b.id.clone(),
                    matched: b
                        .matched
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                        .collect(),
                })
                .collect(),
            unowned: p
                .unowned
                .iter()
                .map(|u| UnownedObject {
                    address: u.address.clone(),
                    id: u.id.clone(),
                    verdict: u.verdict.clone(),
                })
                .collect(),
            owned_undeclared: p
                .owned_undeclared
                .iter()
                .filter(|o| o.reason == Removal::NoLongerDeclared)
                .map(|o| OwnedUndeclared {
                    address: o.address.clone(),
                    id: o.id.clone(),
                    action: match o.action {
                        UndeclaredAction::Delete => "delete",
                        UndeclaredAction::WithheldForRename => "withheld",
                    },
                })
                .collect(),
            rename_hints: p
                .rename_hints
                .iter()
                .map(|h| RenameHint {
                    from: h.from.clone(),
                    to: if h.to.len() == 1 && h.command.is_some() {
                        h.to.first().cloned()
                    } else {
                        None
                    },
                    id: h.id.clone(),
                })
                .collect(),
        }
    }
}
