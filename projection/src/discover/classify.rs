//! The ownership rules: what the bulk answers mean before any instance is bound (which types a failed
//! call withholds, which listed objects are claims, foreign, another estate's or malformed), and how
//! the object found at a declared client-named identity becomes that instance's binding.
//!
//! It never binds a foreign, malformed or other estate's object as owned, and never reads the live
//! system itself: every object it judges was listed or read already.

use std::borrow::Cow;

use admission::InstanceAddress;
use admission::marker::{self, MalformedReason, Ownership, SLOT_TAG, Slot};
use provider::AdmissionPath;
use provider::{LiveObject, ProviderError};

use super::diagnostics::{Finding, Unread};
use super::evidence::{Evidence, ObjectKey};
use super::marker::marks;
use super::scope::Scope;
use super::verdicts::{Claim, Verdicts};
use crate::output::{Binding, DeposedObject, Repair, UnownedObject, Withheld};
use crate::verdict::UnownedVerdict;

/// The slot `object` carries, if it carries a valid one.
pub(crate) fn valid_slot(object: &LiveObject) -> Option<Slot> {
    object.tag(SLOT_TAG).and_then(|v| v.parse().ok())
}

/// What is wrong with the `tofu-slot` tag `object` carries (its value quoted), when it carries one
/// outside the slot grammar.
pub(crate) fn malformed_slot(object: &LiveObject) -> Option<String> {
    let value = object.tag(SLOT_TAG)?;
    value.parse::<Slot>().err().map(|e| e.to_string())
}

/// Reports `object`, found for the declared `address` outside a count block, and withholds `address`
/// when the object's `tofu-slot` is outside the slot grammar (a count block's members are judged as a
/// set instead); whether it did.
fn withheld_for_slot(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
    address: &InstanceAddress,
    object: &LiveObject,
) -> bool {
    if scope.declared.count_of(address.block()).is_some() {
        return false;
    }
    let Some(problem) = malformed_slot(object) else {
        return false;
    };
    verdicts.malformed_slot(object, problem, Some(address));
    verdicts.withhold(address, Withheld::MalformedMarker);
    true
}

/// The first stage's failed calls: reported, with the types whose deletions they leave unknown.
pub(crate) fn withhold_unread(
    scope: &Scope<'_>,
    evidence: &Evidence,
    failures: Vec<(Unread, ProviderError)>,
    verdicts: &mut Verdicts<'_>,
) {
    verdicts
        .withheld_types
        .extend(evidence.failed_types.iter().cloned());
    for (what, error) in failures {
        verdicts.incomplete(what, error);
    }
    if evidence.sweep.is_none() {
        // Only the sweep finds undeclared owned objects of these types: their removal is unknown.
        let swept = scope
            .catalog
            .iter()
            .filter(|s| s.in_tagging_index)
            .filter(|s| !evidence.listed_with_tags(&s.type_name))
            .map(|s| s.type_name.clone());
        verdicts.withheld_types.extend(swept);
    }
}

/// Sorts every object of the listings that carry tags into claims, foreign objects, other estates'
/// objects and malformed ones.
///
/// Only the client-named binding reads a listing's objects again, so the objects of the other types
/// move into their claims instead of being copied (their listing keeps its flags, not its objects):
/// this is the one step that takes from the evidence.
pub(crate) fn classify_listed(
    scope: &Scope<'_>,
    evidence: &mut Evidence,
    verdicts: &mut Verdicts<'_>,
) {
    let mut listings = std::mem::take(&mut evidence.listings);
    for (type_name, listing) in &mut listings {
        if !listing.tags_included {
            continue;
        }
        if scope.admission(type_name) == Some(AdmissionPath::ClientNamed) {
            for object in &listing.objects {
                classify_object(scope, evidence, verdicts, type_name, Cow::Borrowed(object));
            }
        } else {
            listing.index.clear();
            for object in std::mem::take(&mut listing.objects) {
                classify_object(scope, evidence, verdicts, type_name, Cow::Owned(object));
            }
        }
    }
    evidence.listings = listings;
}

/// Sorts one listed object of `type_name` (see [`classify_listed`]).
fn classify_object(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    type_name: &str,
    object: Cow<'_, LiveObject>,
) {
    if let Some(address) = evidence.deposed_address(type_name, &object.id) {
        verdicts.consumed.insert(&object);
        verdicts.deposed.push(DeposedObject {
            address,
            type_name: type_name.to_owned(),
            id: object.id.clone(),
            present: true,
        });
        return;
    }
    match marker::ownership(scope.estate, type_name, &object.tags) {
        Ownership::Owned {
            escaped_address,
            slot,
        } => verdicts
            .claims
            .entry(escaped_address)
            .or_default()
            .push(Claim {
                object: object.into_owned(),
                slot,
            }),
        Ownership::Foreign => verdicts.foreign_pool.push(object.into_owned()),
        Ownership::OtherEstate(e) => *verdicts.other_estates.entry(e).or_insert(0) += 1,
        Ownership::Malformed(reason) => {
            verdicts.consumed.insert(&object);
            verdicts.malformed(&object, &reason, None);
        }
    }
}

/// The binding of the client-named instance `address` to the object `found` at its identity (none:
/// a create). The object is judged here, whatever the verdict.
pub(crate) fn judge_client_named(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
    address: &InstanceAddress,
    found: Option<LiveObject>,
) {
    let Some(object) = found else {
        verdicts.create(address);
        return;
    };
    verdicts.consumed.insert(&object);
    match marker::ownership(scope.estate, address.type_name(), &object.tags) {
        Ownership::Foreign => {
            verdicts.findings.push(Finding::Unowned {
                address: address.clone(),
                object: ObjectKey::new(address.type_name(), &object.id),
            });
            block(verdicts, address, object.id, UnownedVerdict::Adoptable);
        }
        Ownership::OtherEstate(estate) => {
            verdicts.findings.push(Finding::InTheWay {
                address: address.clone(),
                object: ObjectKey::new(address.type_name(), &object.id),
                estate: estate.clone(),
            });
            block(
                verdicts,
                address,
                object.id,
                UnownedVerdict::InTheWay { estate },
            );
        }
        Ownership::Malformed(MalformedReason::MissingAddress) => {
            if withheld_for_slot(scope, verdicts, address, &object) {
                return;
            }
            let slot = valid_slot(&object);
            let repairs = vec![Repair::Address { from: None }];
            verdicts.set(address, Binding::Bound { object, repairs }, slot);
        }
        Ownership::Malformed(reason) => {
            verdicts.malformed(&object, &reason, Some(address));
            verdicts.withhold(address, Withheld::MalformedMarker);
        }
        Ownership::Owned { .. } if withheld_for_slot(scope, verdicts, address, &object) => {}
        Ownership::Owned {
            escaped_address, ..
        } => judge_marked(scope, verdicts, address, object, escaped_address),
    }
}

/// The object at the identity of `address` carries this estate's marker for `escaped_address`.
fn judge_marked(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
    address: &InstanceAddress,
    object: LiveObject,
    escaped_address: String,
) {
    let slot = valid_slot(&object);
    if marks(address, &escaped_address) {
        verdicts.bind(address, object, slot);
        return;
    }
    let same_count_block = |other: &InstanceAddress| {
        other.block() == address.block() && scope.declared.count_of(address.block()).is_some()
    };
    match marker::decode_address(&escaped_address) {
        // Another index of its own count block: a stale address, repaired, never a rival.
        Ok(other)
            if other != *address
                && scope.declared.is_declared(&other)
                && !same_count_block(&other) =>
        {
            verdicts.findings.push(Finding::MarkedForAnother {
                address: address.clone(),
                object: ObjectKey::new(address.type_name(), &object.id),
                other,
            });
            verdicts.withhold(address, Withheld::MarkedForAnotherAddress);
        }
        _ => {
            let repairs = vec![Repair::Address {
                from: Some(escaped_address),
            }];
            verdicts.set(address, Binding::Bound { object, repairs }, slot);
        }
    }
}

/// Blocks `address` on the object `id` it does not own, and reports the object.
fn block(
    verdicts: &mut Verdicts<'_>,
    address: &InstanceAddress,
    id: String,
    verdict: UnownedVerdict,
) {
    verdicts.unowned.push(UnownedObject {
        address: address.clone(),
        type_name: address.type_name().to_owned(),
        id: id.clone(),
        verdict: verdict.clone(),
    });
    verdicts.set(address, Binding::Blocked { id, verdict }, None);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use admission::marker::{ADDRESS_TAG, ESTATE_TAG, Estate};

    use super::*;
    use crate::declared::{Declared, DeclaredInstance, DeclaredValue};
    use crate::discover::ProjectionConfig;

    fn bucket(tags: &[(&str, &str)]) -> LiveObject {
        LiveObject {
            type_name: "aws_s3_bucket".to_owned(),
            id: "acme-data".to_owned(),
            region: "us-east-1".to_owned(),
            attributes: BTreeMap::new(),
            tags: tags
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    /// Judges `found` at the identity of `aws_s3_bucket.data`: its binding and the findings.
    fn judge(found: LiveObject) -> (Binding, Vec<Finding>) {
        let estate = Estate::new("acme").unwrap();
        let address: InstanceAddress = "aws_s3_bucket.data".parse().unwrap();
        let mut declared = Declared::new();
        declared
            .add(
                DeclaredInstance::new(address.clone())
                    .identity("bucket", DeclaredValue::known("acme-data")),
            )
            .unwrap();
        let config = ProjectionConfig::at(0);
        let catalog = awscatalog::catalog();
        let scope = Scope::new(
            &estate,
            &declared,
            &catalog,
            &config,
            "us-east-1".to_owned(),
        )
        .unwrap();
        let mut verdicts = Verdicts::new(scope.catalog);
        judge_client_named(&scope, &mut verdicts, &address, Some(found));
        let binding = verdicts.instances.remove(&address).unwrap().binding;
        (binding, verdicts.findings)
    }

    #[test]
    fn an_object_without_the_estate_marker_blocks_the_identity_and_is_offered_for_adoption() {
        let (binding, findings) = judge(bucket(&[]));
        assert_eq!(
            binding,
            Binding::Blocked {
                id: "acme-data".to_owned(),
                verdict: UnownedVerdict::Adoptable,
            }
        );
        assert!(matches!(&findings[..], [Finding::Unowned { .. }]));
        let diagnostics: Vec<_> = findings.into_iter().map(Finding::into_diagnostic).collect();
        assert!(
            diagnostics[0]
                .detail
                .contains("run `liveplan adopt aws_s3_bucket.data`"),
            "{diagnostics:?}"
        );
    }

    #[test]
    fn an_object_marked_for_the_address_binds_without_repairs() {
        let object = bucket(&[(ESTATE_TAG, "acme"), (ADDRESS_TAG, "aws_s3_bucket.data")]);
        let (binding, findings) = judge(object.clone());
        assert_eq!(
            binding,
            Binding::Bound {
                object,
                repairs: Vec::new(),
            }
        );
        assert!(findings.is_empty());
    }
}
