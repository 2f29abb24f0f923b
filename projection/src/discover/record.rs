//! The record path: instances whose object lives only in the records, and whose record is the object.
//!
//! Nothing here reads the live system; a record-backed object the configuration no longer declares is
//! owned and undeclared.

use std::collections::BTreeMap;

use admission::InstanceAddress;
use provider::AdmissionPath;
use provider::LiveObject;

use super::evidence::Evidence;
use super::scope::Scope;
use super::verdicts::Verdicts;
use crate::output::{OwnedUndeclared, Removal, UndeclaredAction};
use crate::record::{ObjectRecord, marked_attributes};

/// The live object `record` stands for at `address`, in `region`.
fn record_object(region: &str, address: &InstanceAddress, record: &ObjectRecord) -> LiveObject {
    let mut attributes = marked_attributes(&record.attributes, &record.sensitive_paths);
    attributes.insert("id".to_owned(), record.id.clone().into());
    LiveObject {
        type_name: address.type_name().to_owned(),
        id: record.id.clone(),
        region: region.to_owned(),
        attributes,
        tags: BTreeMap::new(),
    }
}

/// Binds every declared record-backed instance to its record; the undeclared records are owned and
/// undeclared.
#[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "record"))]
pub(crate) fn bind_record_backed(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
) {
    let objects = &evidence.records.objects;
    for address in scope.addresses_on(AdmissionPath::Record) {
        match objects.get(&address) {
            Some(r) => verdicts.bind(
                &address,
                record_object(&scope.region, &address, &r.body),
                None,
            ),
            None => verdicts.create(&address),
        }
    }
    for (address, r) in objects
        .iter()
        .filter(|(a, _)| !scope.declared.is_declared(a))
    {
        let object = record_object(&scope.region, address, &r.body);
        verdicts.owned_undeclared.push(OwnedUndeclared {
            type_name: address.type_name().to_owned(),
            address: address.clone(),
            id: object.id.clone(),
            reason: Removal::NoLongerDeclared,
            action: UndeclaredAction::Delete,
            object: Some(object),
        });
    }
}
