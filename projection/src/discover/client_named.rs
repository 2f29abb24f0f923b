//! Path 1, client-named: the object at each declared client-named identity, from the bulk pages where
//! they say enough, else from one read; then the slots of client-named count members.
//!
//! An identity is looked up, never searched for: an object elsewhere never binds here. The ownership
//! rules themselves are in [`super::classify`].

use std::collections::{BTreeSet, HashMap};

use admission::marker::{SLOT_TAG, Slot};
use admission::{BlockAddress, InstanceAddress, InstanceKey};
use provider::AdmissionPath;
use provider::{Identity, LiveObject};

use super::classify::judge_client_named;
use super::diagnostics::CountFault;
use super::evidence::{Evidence, IdentityKey};
use super::fetch::{ReadRequest, Reader};
use super::marker::held_slots;
use super::scope::Scope;
use super::verdicts::Verdicts;
use crate::declared::{DeclaredValue, Expansion};
use crate::error::ProjectionError;
use crate::output::{Binding, Repair};

/// Where each client-named instance's object is to be found.
#[derive(Default)]
struct Lookups {
    /// Instances whose object (or its absence) the bulk answers show.
    known: Vec<(InstanceAddress, Option<LiveObject>)>,
    /// Instances that need a read of their identity.
    to_read: Vec<(InstanceAddress, ReadRequest)>,
}

/// Binds every declared client-named instance, reading the identities the bulk answers do not settle.
#[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "client-named"), err)]
pub(crate) async fn bind_client_named(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    reader: &mut Reader<'_>,
) -> Result<(), ProjectionError> {
    let Lookups { mut known, to_read } = look_up(scope, evidence, verdicts)?;
    let (addresses, requests): (Vec<InstanceAddress>, Vec<ReadRequest>) =
        to_read.into_iter().unzip();
    let answers = reader.read_many(&requests).await;
    for (address, answer) in addresses.into_iter().zip(answers) {
        match answer {
            Ok(found) => known.push((address, found)),
            Err(e) => verdicts.unread_identity(&address, e),
        }
    }
    for (address, found) in known {
        judge_client_named(scope, verdicts, &address, found);
    }
    slot_client_named_counts(scope, evidence, verdicts);
    Ok(())
}

/// What the bulk answers show at each declared identity; an instance whose type's listing failed is
/// withheld here.
fn look_up(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
) -> Result<Lookups, ProjectionError> {
    let mut lookups = Lookups::default();
    for address in scope.addresses_on(AdmissionPath::ClientNamed) {
        let type_name = address.type_name().to_owned();
        let argument = scope
            .schema(&type_name)
            .identity
            .first()
            .cloned()
            .unwrap_or_default();
        let name = match scope.identity_of(&address).get(&argument) {
            Some(DeclaredValue::Known(n)) => n.clone(),
            _ => {
                return Err(ProjectionError::InvalidDeclared {
                    address: address.to_string(),
                    reason: format!("the client-named identity {argument:?} must be a known value"),
                });
            }
        };
        if evidence.failed_types.contains(&type_name) {
            verdicts.withhold_unread(&address);
            continue;
        }
        let request =
            ReadRequest::Identity(IdentityKey::new(&type_name, Identity::Name(name.clone())));
        let Some(listing) = evidence.listings.get(&type_name) else {
            lookups.to_read.push((address, request));
            continue;
        };
        match listing.find_named(Some(argument.as_str()), &name) {
            Some(o) if listing.tags_included => lookups.known.push((address, Some(o.clone()))),
            Some(o) => match evidence.sweep_tags(&type_name, &o.id) {
                Some(tags) => {
                    let mut o = o.clone();
                    o.tags = tags.clone();
                    lookups.known.push((address, Some(o)));
                }
                None => lookups.to_read.push((address, request)),
            },
            None => lookups.to_read.push((address, request)),
        }
    }
    Ok(lookups)
}

/// Client-named count members bind by identity; their slots ride along. Members without a slot and
/// new members are given slots above the high-water mark.
pub(crate) fn slot_client_named_counts(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
) {
    let blocks: Vec<(BlockAddress, u64)> = scope
        .declared
        .blocks()
        .filter_map(|(b, e)| match e {
            Expansion::Count(n) => Some((b.clone(), n)),
            _ => None,
        })
        .filter(|(b, _)| {
            scope.admission(b.type_name()) == Some(AdmissionPath::ClientNamed)
                && scope.schema(b.type_name()).taggable
        })
        .collect();
    for (block, n) in blocks {
        // The members `[0]` to `[n-1]`, in index order, as one range of the sorted instances.
        let members = block.instance(InstanceKey::Int(0))..block.instance(InstanceKey::Int(n));
        let mut bad = Vec::new();
        for (_, state) in verdicts.instances.range(members.clone()) {
            if let Binding::Bound { object, .. } = &state.binding
                && let Some(v) = object.tag(SLOT_TAG)
                && v.parse::<Slot>().is_err()
            {
                bad.push(object.id.clone());
            }
        }
        if !bad.is_empty() {
            verdicts.count_set_error(CountFault::MalformedSlot, &block, n, bad);
            continue;
        }
        let live_high = verdicts
            .instances
            .range(members.clone())
            .filter_map(|(_, s)| s.slot)
            .max();
        let recorded = evidence.records.slots.get(&block).map(|s| s.body.highest);
        // A slot held for an index whose object a replace destroyed stays its own, while no member
        // carries it.
        let live: BTreeSet<Slot> = verdicts
            .instances
            .range(members.clone())
            .filter_map(|(_, s)| s.slot)
            .collect();
        let held: HashMap<u64, Slot> = held_slots(evidence, &block)
            .into_iter()
            .filter(|h| !live.contains(&h.slot))
            .map(|h| (h.index, h.slot))
            .collect();
        let mut high = live_high.max(recorded).max(held.values().copied().max());
        for (address, state) in verdicts.instances.range_mut(members) {
            let needs = match &state.binding {
                Binding::Bound { .. } | Binding::Create => state.slot.is_none(),
                _ => false,
            };
            if !needs {
                continue;
            }
            if let (Binding::Create, InstanceKey::Int(i)) = (&state.binding, address.key())
                && let Some(slot) = held.get(i)
            {
                state.slot = Some(*slot);
                continue;
            }
            let next = match high {
                None => Some(Slot::FIRST),
                Some(h) => h.next(),
            };
            let Some(slot) = next else { break };
            high = Some(slot);
            state.slot = Some(slot);
            if let Binding::Bound { repairs, .. } = &mut state.binding {
                repairs.push(Repair::Slot(slot));
            }
        }
    }
}
