//! Path 3, parent-derived: children whose identity is made of their parents' ids, bound in dependency
//! order, from their parents' inline answers where the parent's listing carries them, else one read each.
//!
//! A child whose parent is blocked or withheld is withheld, and one whose parent is to be created is
//! created: it is never looked for under a parent that is not there.

use std::collections::BTreeMap;

use admission::InstanceAddress;
use provider::AdmissionPath;
use provider::Identity;

use super::evidence::{Evidence, IdentityKey};
use super::fetch::{ReadRequest, Reader};
use super::scope::Scope;
use super::verdicts::Verdicts;
use crate::declared::DeclaredValue;
use crate::error::ProjectionError;
use crate::output::{Binding, Withheld};

/// An identity as far as the parents it names are bound.
pub(crate) enum Resolved {
    /// Every part is known.
    Parts(BTreeMap<String, String>),
    /// A parent is not bound yet.
    Waiting,
    /// A part is unknown until apply (a parent to create, an unknown value).
    Create,
    /// This parent is blocked or withheld.
    Withheld(InstanceAddress),
}

/// The identity parts of `address` from its declared `values`, as far as its parents are bound.
pub(crate) fn resolve(
    scope: &Scope<'_>,
    verdicts: &Verdicts<'_>,
    address: &InstanceAddress,
    values: &BTreeMap<String, DeclaredValue>,
) -> Result<Resolved, ProjectionError> {
    let mut parts = BTreeMap::new();
    let mut waiting = false;
    let mut create = false;
    for (argument, value) in values {
        match value {
            DeclaredValue::Known(s) => {
                parts.insert(argument.clone(), s.clone());
            }
            DeclaredValue::Unknown => create = true,
            DeclaredValue::IdOf(parent) => {
                let parent = &scope.canonical(parent);
                if !scope.declared.is_declared(parent) {
                    return Err(ProjectionError::UndeclaredParent {
                        address: address.to_string(),
                        parent: parent.to_string(),
                    });
                }
                match verdicts.instances.get(parent).map(|s| &s.binding) {
                    None => waiting = true,
                    Some(Binding::Bound { object, .. }) => {
                        parts.insert(argument.clone(), object.id.clone());
                    }
                    Some(Binding::Create) => create = true,
                    Some(Binding::Blocked { .. } | Binding::Withheld(_)) => {
                        return Ok(Resolved::Withheld(parent.clone()));
                    }
                }
            }
        }
    }
    Ok(if waiting {
        Resolved::Waiting
    } else if create {
        Resolved::Create
    } else {
        Resolved::Parts(parts)
    })
}

/// Binds every declared parent-derived instance, round after round as their parents are bound.
#[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "parent-derived"), err)]
pub(crate) async fn bind_parent_derived(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    reader: &mut Reader<'_>,
) -> Result<(), ProjectionError> {
    let mut pending = scope.addresses_on(AdmissionPath::ParentDerived);
    while !pending.is_empty() {
        let mut waiting = Vec::new();
        let mut to_read: Vec<(InstanceAddress, ReadRequest)> = Vec::new();
        let before = pending.len();
        for address in pending {
            match resolve(scope, verdicts, &address, scope.identity_of(&address))? {
                Resolved::Waiting => waiting.push(address),
                Resolved::Create => verdicts.create(&address),
                Resolved::Withheld(parent) => verdicts.withhold(&address, Withheld::Parent(parent)),
                Resolved::Parts(parts) => {
                    if let Some(read) = bind_inline(scope, evidence, verdicts, &address, parts) {
                        to_read.push((address, read));
                    }
                }
            }
        }
        let (addresses, requests): (Vec<InstanceAddress>, Vec<ReadRequest>) =
            to_read.into_iter().unzip();
        let answers = reader.read_many(&requests).await;
        for (address, answer) in addresses.into_iter().zip(answers) {
            match answer {
                Ok(Some(object)) => verdicts.bind(&address, object, None),
                Ok(None) => verdicts.create(&address),
                Err(e) => verdicts.unread_identity(&address, e),
            }
        }
        if waiting.len() == before {
            return Err(ProjectionError::InvalidDeclared {
                address: waiting[0].to_string(),
                reason: "its identity depends on itself through its parents".to_owned(),
            });
        }
        pending = waiting;
    }
    Ok(())
}

/// Binds `address`, whose identity is `parts`, from its parent's listing when that listing carries its
/// children inline; else the read that finds it.
fn bind_inline(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    address: &InstanceAddress,
    parts: BTreeMap<String, String>,
) -> Option<ReadRequest> {
    let type_name = address.type_name();
    let schema = scope.schema(type_name);
    let identity = Identity::Composite(parts);
    let inline_parent = schema
        .parent
        .as_ref()
        .filter(|l| l.inline)
        .map(|l| l.parent_type.as_str());
    match inline_parent {
        Some(p) if evidence.failed_types.contains(p) => verdicts.withhold_unread(address),
        Some(p) if evidence.listings.contains_key(p) => {
            match evidence.inline_child(type_name, &schema.identity, &identity) {
                Some(object) => verdicts.bind(address, object, None),
                None => verdicts.create(address),
            }
        }
        _ => return Some(ReadRequest::Identity(IdentityKey::new(type_name, identity))),
    }
    None
}
