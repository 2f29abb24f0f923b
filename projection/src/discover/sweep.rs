//! Owned objects outside their paths: the sweep hits and `located` records no path took, confirmed by
//! a read before they count as owned; deposed objects no listing showed, checked the same way; and the
//! claims no declared instance took.
//!
//! An object is planned for deletion only once a read confirms it is there and still this estate's;
//! a stale index entry or a record of an object that is gone is never a deletion.

use admission::marker::{self, ESTATE_TAG, MalformedReason, Ownership};
use admission::{InstanceAddress, InstanceKey};
use provider::AdmissionPath;
use provider::LiveObject;

use super::classify::{malformed_slot, valid_slot};
use super::diagnostics::Unread;
use super::evidence::{Evidence, ObjectKey};
use super::fetch::{Answer, ReadRequest, Reader};
use super::scope::Scope;
use super::verdicts::{Claim, Verdicts};
use crate::output::{Binding, DeposedObject, OwnedUndeclared, Removal, UndeclaredAction, Withheld};

/// Why an object is read to confirm it.
enum ConfirmSource {
    /// The tagging sweep shows it, and no path took it.
    Sweep,
    /// The located record of this instance names it.
    Located(InstanceAddress),
    /// The deposed record of this instance names it.
    Deposed(InstanceAddress),
}

/// Confirms, by one read each, the owned objects only the sweep or a record points at, and the deposed
/// objects no listing showed.
#[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "sweep"))]
pub(crate) async fn confirm_owned(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    reader: &mut Reader<'_>,
) {
    let mut requests = sweep_requests(scope, evidence, verdicts);
    let seen_inline = located_requests(scope, evidence, verdicts, &mut requests);
    deposed_requests(evidence, verdicts, &mut requests);
    for (address, child) in seen_inline {
        owned_found(scope, verdicts, &address, child);
    }
    let (sources, reads): (Vec<ConfirmSource>, Vec<ReadRequest>) = requests.into_iter().unzip();
    let answers = reader.read_many(&reads).await;
    for (source, (read, answer)) in sources.into_iter().zip(reads.iter().zip(answers)) {
        if let ReadRequest::Id(key) = read {
            on_confirmed(scope, verdicts, source, key.clone(), answer);
        }
    }
}

/// The sweep hits to confirm: those no path judged, of a type no listing with tags covers, that the
/// type's listing (if any) shows as well.
fn sweep_requests(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &Verdicts<'_>,
) -> Vec<(ConfirmSource, ReadRequest)> {
    let mut requests = Vec::new();
    let Some(hits) = &evidence.sweep else {
        return requests;
    };
    // Whether the hits of a type are settled by the type alone (unknown, listed with its tags, or
    // failed), asked once per run of hits of one type.
    let mut settled: Option<(&str, bool)> = None;
    for hit in hits {
        let type_settled = match settled {
            Some((t, answer)) if t == hit.type_name => answer,
            _ => {
                let answer = scope.catalog.get(&hit.type_name).is_none()
                    || evidence.listed_with_tags(&hit.type_name)
                    || evidence.failed_types.contains(&hit.type_name);
                settled = Some((&hit.type_name, answer));
                answer
            }
        };
        if type_settled || verdicts.consumed.contains_id(&hit.type_name, &hit.id) {
            continue;
        }
        if let Some(l) = evidence.listings.get(&hit.type_name)
            && l.get(&hit.id).is_none_or(|o| o.id != hit.id)
        {
            // The strongly consistent listing does not show it: a stale index entry.
            continue;
        }
        requests.push((
            ConfirmSource::Sweep,
            ReadRequest::Id(ObjectKey::new(&hit.type_name, &hit.id)),
        ));
    }
    requests
}

/// The located records to confirm, added to `requests`; the inline children a parent's listing
/// already shows are returned instead, with the instance whose record names them.
fn located_requests(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &Verdicts<'_>,
    requests: &mut Vec<(ConfirmSource, ReadRequest)>,
) -> Vec<(InstanceAddress, LiveObject)> {
    let mut seen_inline = Vec::new();
    for (address, record) in &evidence.records.located {
        let type_name = address.type_name();
        let Some(schema) = scope.catalog.get(type_name) else {
            continue;
        };
        if (schema.in_tagging_index && evidence.sweep.is_some())
            || verdicts.consumed.contains_id(type_name, &record.body.id)
        {
            continue;
        }
        let declared = scope.declared.is_declared(address);
        // A declared instance's own path has looked for it: a list-and-match one under its parent, any
        // other at its identity, which only a create leaves to be confirmed here.
        if declared
            && (schema.admission == Some(AdmissionPath::ListMatch)
                || !matches!(
                    verdicts.instances.get(address).map(|s| &s.binding),
                    Some(Binding::Create)
                ))
        {
            continue;
        }
        let inline = schema
            .parent
            .as_ref()
            .filter(|l| l.inline)
            .map(|l| l.parent_type.as_str());
        if let Some(p) = inline
            && evidence.listings.contains_key(p)
        {
            let key = ObjectKey::new(type_name, &record.body.id);
            if let Some(child) = evidence.inline_child_by_id(&key) {
                seen_inline.push((address.clone(), child.clone()));
            }
            continue;
        }
        requests.push((
            ConfirmSource::Located(address.clone()),
            ReadRequest::Id(ObjectKey::new(type_name, &record.body.id)),
        ));
    }
    seen_inline
}

/// The deposed objects to check, added to `requests`; one of a type listed with its tags that no
/// listing showed is gone, without a read.
fn deposed_requests(
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    requests: &mut Vec<(ConfirmSource, ReadRequest)>,
) {
    for (address, record) in &evidence.records.deposed {
        let type_name = address.type_name();
        for id in &record.body.ids {
            if verdicts.consumed.contains_id(type_name, id) {
                continue;
            }
            if evidence.listed_with_tags(type_name) {
                verdicts.deposed.push(DeposedObject {
                    address: address.clone(),
                    type_name: type_name.to_owned(),
                    id: id.clone(),
                    present: false,
                });
                continue;
            }
            requests.push((
                ConfirmSource::Deposed(address.clone()),
                ReadRequest::Id(ObjectKey::new(type_name, id)),
            ));
        }
    }
}

/// What the confirming read of `key`, made for `source`, answered.
fn on_confirmed(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
    source: ConfirmSource,
    key: ObjectKey,
    answer: Answer,
) {
    match (source, answer) {
        (_, Err(e)) => {
            // Without the confirming read no deletion of the type may be planned.
            verdicts.withheld_types.insert(key.type_name.clone());
            verdicts.incomplete(Unread::Object(key), e);
        }
        (ConfirmSource::Deposed(address), Ok(found)) => verdicts.deposed.push(DeposedObject {
            address,
            type_name: key.type_name,
            id: key.id,
            present: found.is_some(),
        }),
        (_, Ok(None)) => {}
        (ConfirmSource::Sweep, Ok(Some(object))) => {
            match marker::ownership(scope.estate, &key.type_name, &object.tags) {
                Ownership::Owned {
                    escaped_address, ..
                } => match marker::decode_address(&escaped_address) {
                    Ok(address) => owned_found(scope, verdicts, &address, object),
                    Err(_) => verdicts.malformed(
                        &object,
                        &MalformedReason::Unparseable(escaped_address.clone()),
                        None,
                    ),
                },
                Ownership::Malformed(reason) => verdicts.malformed(&object, &reason, None),
                // The index was stale about its tags: not ours (any more).
                Ownership::Foreign | Ownership::OtherEstate(_) => {}
            }
        }
        (ConfirmSource::Located(address), Ok(Some(object))) => {
            let owned = !scope.schema(&key.type_name).taggable
                || object.tag(ESTATE_TAG) == Some(scope.estate.as_str());
            if owned {
                owned_found(scope, verdicts, &address, object);
            }
        }
    }
}

/// An owned object found outside its path: bound if its declared instance found nothing at the
/// identity (the identity changed: the engine replaces), else owned and undeclared.
pub(crate) fn owned_found(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
    address: &InstanceAddress,
    object: LiveObject,
) {
    if verdicts.consumed.contains(&object) {
        return;
    }
    verdicts.consumed.insert(&object);
    if let Some(problem) = malformed_slot(&object) {
        // Whatever its address: a slot outside the grammar is never bound, never destroyed.
        let declared = scope.declared.is_declared(address);
        if declared
            && matches!(
                verdicts.instances.get(address).map(|s| &s.binding),
                Some(Binding::Create) | None
            )
        {
            verdicts.withhold(address, Withheld::MalformedMarker);
        }
        verdicts.malformed_slot(&object, problem, Some(address));
        return;
    }
    if scope.declared.is_declared(address) {
        match verdicts.instances.get(address).map(|s| &s.binding) {
            Some(Binding::Create) | None => {
                let slot = valid_slot(&object);
                verdicts.bind(address, object, slot);
            }
            Some(Binding::Bound { object: other, .. }) => {
                let ids = vec![other.id.clone(), object.id.clone()];
                verdicts.collision(scope.declared, address, ids);
            }
            Some(_) => {}
        }
        return;
    }
    let reason = match (scope.declared.count_of(address.block()), address.key()) {
        (Some(_), InstanceKey::Int(_)) => Removal::CountSurplus {
            slot: valid_slot(&object),
        },
        _ => Removal::NoLongerDeclared,
    };
    verdicts.owned_undeclared.push(OwnedUndeclared {
        address: address.clone(),
        type_name: object.type_name.clone(),
        id: object.id.clone(),
        reason,
        action: UndeclaredAction::Delete,
        object: Some(object),
    });
}

/// Claims of listed marker types that no declared instance took: malformed if their address cannot
/// be read, a collision if several claim one address, else owned objects found outside their path.
pub(crate) fn report_unclaimed(scope: &Scope<'_>, verdicts: &mut Verdicts<'_>) {
    let claims = std::mem::take(&mut verdicts.claims);
    for (escaped, claims) in claims {
        let claims: Vec<Claim> = claims
            .into_iter()
            .filter(|c| !verdicts.consumed.contains(&c.object))
            .collect();
        if claims.is_empty() {
            continue;
        }
        let Ok(address) = marker::decode_address(&escaped) else {
            for c in &claims {
                verdicts.malformed(
                    &c.object,
                    &MalformedReason::Unparseable(escaped.clone()),
                    None,
                );
            }
            continue;
        };
        if claims.len() > 1 {
            for c in &claims {
                verdicts.consumed.insert(&c.object);
            }
            let ids = claims.iter().map(|c| c.object.id.clone()).collect();
            verdicts.collision(scope.declared, &address, ids);
            continue;
        }
        for claim in claims {
            owned_found(scope, verdicts, &address, claim.object);
        }
    }
}
