//! The verdicts of one plan: each declared instance's binding, the objects already judged, the claims
//! and foreign objects waiting for a verdict, the reports and the findings, built from the evidence by
//! the admission paths in stage order.
//!
//! A verdict is written here and nowhere else; the evidence it rests on is never changed by it. Nothing
//! here calls the provider or formats a diagnostic (see [`super::diagnostics`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use admission::marker::{MalformedReason, Slot, SlotMarker};
use admission::{BlockAddress, InstanceAddress, InstanceKey};
use provider::AdmissionPath;
use provider::Catalog;
use provider::{LiveObject, ProviderError};

use super::diagnostics::{CountFault, Finding, Unread};
use super::evidence::ObjectKey;
use crate::declared::Declared;
use crate::output::{
    Binding, DeposedObject, InstanceState, OwnedUndeclared, UnownedObject, Withheld,
};

/// A listed object carrying this estate's marker, waiting for the instance it names.
#[derive(Debug)]
pub(crate) struct Claim {
    /// The object.
    pub(crate) object: LiveObject,
    /// Its slot marker.
    pub(crate) slot: SlotMarker,
}

/// The live objects already bound, reported or set aside, by type and then id: each is judged once.
/// Looked up by borrowed type and id, so asking costs no copy of either.
#[derive(Debug, Default)]
pub(crate) struct Consumed(HashMap<String, HashSet<String>>);

impl Consumed {
    /// Marks `object` judged.
    pub(crate) fn insert(&mut self, object: &LiveObject) {
        self.insert_id(&object.type_name, &object.id);
    }

    fn insert_id(&mut self, type_name: &str, id: &str) {
        match self.0.get_mut(type_name) {
            Some(ids) => {
                if !ids.contains(id) {
                    ids.insert(id.to_owned());
                }
            }
            None => {
                self.0
                    .insert(type_name.to_owned(), HashSet::from([id.to_owned()]));
            }
        }
    }

    /// Whether `object` is judged already.
    pub(crate) fn contains(&self, object: &LiveObject) -> bool {
        self.contains_id(&object.type_name, &object.id)
    }

    /// Whether the object `id` of `type_name` is judged already.
    pub(crate) fn contains_id(&self, type_name: &str, id: &str) -> bool {
        self.0.get(type_name).is_some_and(|ids| ids.contains(id))
    }
}

/// Everything the stages have decided so far.
pub(crate) struct Verdicts<'s> {
    catalog: &'s Catalog,
    /// Each declared instance's state, once its path has bound it.
    pub(crate) instances: BTreeMap<InstanceAddress, InstanceState>,
    /// The live objects judged already.
    pub(crate) consumed: Consumed,
    /// Owned listed objects by the escaped address they carry, until an instance takes them.
    pub(crate) claims: BTreeMap<String, Vec<Claim>>,
    /// Objects carrying no estate marker, for the foreign report and the bind candidates.
    pub(crate) foreign_pool: Vec<LiveObject>,
    /// What the user is told.
    pub(crate) findings: Vec<Finding>,
    /// Objects blocking a declared client-named identity.
    pub(crate) unowned: Vec<UnownedObject>,
    /// Owned objects no declared instance takes.
    pub(crate) owned_undeclared: Vec<OwnedUndeclared>,
    /// Deposed objects of the records, present or not.
    pub(crate) deposed: Vec<DeposedObject>,
    /// How many listed objects each other estate owns.
    pub(crate) other_estates: BTreeMap<String, u64>,
    /// Types whose deletions cannot be planned, for a failed listing or read.
    pub(crate) withheld_types: BTreeSet<String>,
}

impl<'s> Verdicts<'s> {
    /// No verdict yet; `catalog` gives each instance its admission path.
    pub(crate) fn new(catalog: &'s Catalog) -> Verdicts<'s> {
        Verdicts {
            catalog,
            instances: BTreeMap::new(),
            consumed: Consumed::default(),
            claims: BTreeMap::new(),
            foreign_pool: Vec::new(),
            findings: Vec::new(),
            unowned: Vec::new(),
            owned_undeclared: Vec::new(),
            deposed: Vec::new(),
            other_estates: BTreeMap::new(),
            withheld_types: BTreeSet::new(),
        }
    }

    /// Gives `address` its `binding` (and `slot`); a bound object is consumed.
    pub(crate) fn set(&mut self, address: &InstanceAddress, binding: Binding, slot: Option<Slot>) {
        let admission = self
            .catalog
            .get(address.type_name())
            .and_then(|s| s.admission)
            .unwrap_or(AdmissionPath::Marker);
        if let Binding::Bound { object, .. } = &binding {
            self.consumed.insert(object);
        }
        self.instances.insert(
            address.clone(),
            InstanceState {
                address: address.clone(),
                admission,
                binding,
                slot,
                // Filled in from the records when the projection is finished.
                residue: BTreeMap::new(),
                intent: None,
            },
        );
    }

    /// Binds `address` to `object`, whose markers need no repair.
    pub(crate) fn bind(
        &mut self,
        address: &InstanceAddress,
        object: LiveObject,
        slot: Option<Slot>,
    ) {
        let repairs = Vec::new();
        self.set(address, Binding::Bound { object, repairs }, slot);
    }

    /// Plans a create for `address`.
    pub(crate) fn create(&mut self, address: &InstanceAddress) {
        self.set(address, Binding::Create, None);
    }

    /// Plans nothing for `address`, for `reason`.
    pub(crate) fn withhold(&mut self, address: &InstanceAddress, reason: Withheld) {
        self.set(address, Binding::Withheld(reason), None);
    }

    /// Plans nothing for `address`: a call it depends on failed.
    pub(crate) fn withhold_unread(&mut self, address: &InstanceAddress) {
        self.withhold(address, Withheld::DiscoveryIncomplete);
    }

    /// The read at the identity of `address` failed with `error`: reported, and nothing is planned.
    pub(crate) fn unread_identity(&mut self, address: &InstanceAddress, error: ProviderError) {
        self.incomplete(Unread::Identity(address.clone()), error);
        self.withhold_unread(address);
    }

    /// Reports a call that failed after retries.
    pub(crate) fn incomplete(&mut self, what: Unread, error: ProviderError) {
        self.findings.push(Finding::Incomplete { what, error });
    }

    /// Reports `object`'s malformed marker, found for the instance `at` if any.
    pub(crate) fn malformed(
        &mut self,
        object: &LiveObject,
        reason: &MalformedReason,
        at: Option<&InstanceAddress>,
    ) {
        self.findings.push(Finding::MalformedMarker {
            object: ObjectKey::of(object),
            reason: reason.clone(),
            at: at.cloned(),
        });
    }

    /// Reports `object`'s `tofu-slot` outside the slot grammar (`problem`), its marker naming (or found
    /// for) `at`: the object is judged, and neither bound nor deleted.
    pub(crate) fn malformed_slot(
        &mut self,
        object: &LiveObject,
        problem: String,
        at: Option<&InstanceAddress>,
    ) {
        self.consumed.insert(object);
        self.findings.push(Finding::MalformedSlot {
            object: ObjectKey::of(object),
            problem,
            at: at.cloned(),
        });
    }

    /// Several objects (`ids`) claim `address`: reported, and nothing is planned for it if declared.
    pub(crate) fn collision(
        &mut self,
        declared: &Declared,
        address: &InstanceAddress,
        ids: Vec<String>,
    ) {
        self.findings.push(Finding::Collision {
            address: address.clone(),
            ids,
        });
        if declared.is_declared(address) {
            self.withhold(address, Withheld::Collision);
        }
    }

    /// The count set `block` (`count = n`) cannot be bound for `fault` in the objects `ids`: reported,
    /// and every index withheld.
    pub(crate) fn count_set_error(
        &mut self,
        fault: CountFault,
        block: &BlockAddress,
        n: u64,
        ids: Vec<String>,
    ) {
        self.findings.push(Finding::CountSet {
            fault,
            block: block.clone(),
            ids,
        });
        for i in 0..n {
            self.withhold(&block.instance(InstanceKey::Int(i)), Withheld::CountSet);
        }
    }
}
