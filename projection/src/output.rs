//! What a projection hands the planner: the prior state (each declared instance's binding to a live
//! object, or why it has none), the reports, the diagnostics and the cost of building it.
//!
//! Everything here is plain data, sorted, so that the same live system, configuration and records give
//! the same projection. Nothing here may ever be persisted: a projection is rebuilt on every plan, and a
//! wrong one costs a re-plan, never a wrong write.

use std::collections::{BTreeMap, BTreeSet};

use admission::Diagnostic;
use admission::InstanceAddress;
use admission::Value;
use admission::marker::{Estate, Slot};
use provider::AdmissionPath;
use provider::{LiveObject, TagChange};

use crate::record::{IntentRecord, RecordSet, Stored};
use crate::verdict::UnownedVerdict;

/// A marker repair the next apply makes with a tags-only update.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Repair {
    /// The address marker is missing or names another (undeclared or stale) address.
    Address {
        /// The escaped address the object carries now, if any.
        from: Option<String>,
    },
    /// The count member carries no slot yet; it is given this one.
    Slot(Slot),
}

/// Why a declared instance gets no change at all in this plan.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Withheld {
    /// A listing or read it depends on failed (`discovery-incomplete`).
    DiscoveryIncomplete,
    /// Several live objects claim its address (`marker-collision`).
    Collision,
    /// The object at its identity carries this estate's marker for another declared address.
    MarkedForAnotherAddress,
    /// The object at its identity (or claiming its address) carries a malformed marker: an address that
    /// cannot be read, or a `tofu-slot` outside the slot grammar.
    MalformedMarker,
    /// Its count set cannot be bound (`malformed-slot`, `duplicate-slot`, `indistinguishable-instances`).
    CountSet,
    /// It matches several live objects that are not a fungible set (`ambiguous-content-match`).
    AmbiguousContentMatch,
    /// A create intent younger than ten minutes: another apply may be creating it right now.
    CreateInProgress {
        /// When the intent's patience ends and the create may be retried, in seconds since the Unix
        /// epoch (the intent's time plus [`INTENT_PATIENCE_SECS`](crate::INTENT_PATIENCE_SECS)).
        retry_after: u64,
    },
    /// The parent it derives from is blocked or withheld.
    Parent(InstanceAddress),
}

/// How a declared instance meets the live system.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// Bound to a live object this estate owns (or, for a parent-derived or list-and-match instance, found
    /// at its identity); `repairs` are the marker fixes the next apply makes.
    Bound {
        /// The live object, as read.
        object: LiveObject,
        /// Marker repairs (empty: the markers are right).
        repairs: Vec<Repair>,
    },
    /// An object this estate does not own sits at the instance's client-named identity: no change is
    /// planned for the instance.
    Blocked {
        /// The object's id.
        id: String,
        /// Adoptable, or in another estate's way.
        verdict: UnownedVerdict,
    },
    /// Nothing live: a new object to create (with [`InstanceState::slot`] minted for count members).
    Create,
    /// Nothing may be planned for the instance.
    Withheld(Withheld),
}

impl Binding {
    /// The bound object, if any.
    pub fn object(&self) -> Option<&LiveObject> {
        match self {
            Binding::Bound { object, .. } => Some(object),
            _ => None,
        }
    }
}

/// One declared instance in the prior state.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceState {
    /// The address.
    pub address: InstanceAddress,
    /// How the type is admitted.
    pub admission: AdmissionPath,
    /// The binding.
    pub binding: Binding,
    /// The count slot the instance holds or is minted (count blocks of taggable types only).
    pub slot: Option<Slot>,
    /// Residue values from the record store (applied values a read never returns), marks restored.
    pub residue: BTreeMap<String, Value>,
    /// The create intent the plan saw, if any (a create must be written over its version).
    pub intent: Option<Stored<IntentRecord>>,
}

/// A live object of a declared type with no markers and no binding: reported, never changed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ForeignObject {
    /// Its type.
    pub type_name: String,
    /// Its id.
    pub id: String,
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// A foreign object whose bind-candidate fields equal an unbound instance's values, one to one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct BindCandidate {
    /// The unbound instance.
    pub address: InstanceAddress,
    /// Its type.
    pub type_name: String,
    /// The foreign object's id.
    pub id: String,
    /// The fields that matched, with their values.
    pub matched: BTreeMap<String, String>,
}

/// An object this estate does not own at a declared client-named identity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UnownedObject {
    /// The declared instance it blocks.
    pub address: InstanceAddress,
    /// Its type.
    pub type_name: String,
    /// Its id.
    pub id: String,
    /// Adoptable (no estate tag), or in another estate's way.
    pub verdict: UnownedVerdict,
}

/// Why an owned object is to be removed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Removal {
    /// Its address is no longer declared.
    NoLongerDeclared,
    /// It is beyond its block's count.
    CountSurplus {
        /// Its slot, if it carries one.
        slot: Option<Slot>,
    },
}

/// What happens to an owned, undeclared object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UndeclaredAction {
    /// Planned for deletion.
    Delete,
    /// Kept: a rename is plausible (see the rename hints).
    WithheldForRename,
    /// Kept: it lives in a region the estate wrote to that no provider configuration names any more,
    /// so nothing may delete it (an error says so).
    Unreachable,
}

/// An object this estate owns whose address the configuration no longer declares (or a count surplus).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedUndeclared {
    /// The address its markers (or record) name.
    pub address: InstanceAddress,
    /// Its type.
    pub type_name: String,
    /// Its id.
    pub id: String,
    /// Why it is to go.
    pub reason: Removal,
    /// Delete, or kept for a rename.
    pub action: UndeclaredAction,
    /// The object, as read (`None` for a record-backed object).
    pub object: Option<LiveObject>,
}

/// A plausible rename of an owned, undeclared object to an unbound declared instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameHint {
    /// The address the object carries.
    pub from: InstanceAddress,
    /// The unbound instance it may have been renamed to, or the several that leave it open.
    pub to: RenameTarget,
    /// The object's id.
    pub id: String,
}

impl RenameHint {
    /// The order of the report: by the object's address, then the instances that fit it, then its id.
    pub fn sort_key(&self) -> (&InstanceAddress, &[InstanceAddress], &str) {
        (&self.from, self.to.candidates(), &self.id)
    }
}

/// Where an owned, undeclared object may have been renamed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameTarget {
    /// Exactly one orphan meets exactly one unbound instance: a `liveplan mv` to it is suggested.
    One(InstanceAddress),
    /// Several unbound instances fit the orphan, or the one that fits it fits another orphan too: no
    /// rename is suggested. Holds the instances that fit this orphan.
    Ambiguous(Vec<InstanceAddress>),
}

impl RenameTarget {
    /// The unbound instances that fit the orphan (one, for [`RenameTarget::One`]).
    pub fn candidates(&self) -> &[InstanceAddress] {
        match self {
            RenameTarget::One(address) => std::slice::from_ref(address),
            RenameTarget::Ambiguous(addresses) => addresses,
        }
    }
}

/// A deposed object awaiting deletion (create-before-destroy).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DeposedObject {
    /// The instance it was deposed from.
    pub address: InstanceAddress,
    /// Its type.
    pub type_name: String,
    /// Its id.
    pub id: String,
    /// Whether it still exists (a deposed record of a vanished object only needs its record cleaned).
    pub present: bool,
}

/// What building the projection cost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cost {
    /// Provider API calls, every attempt counted.
    pub api_calls: u64,
    /// The same, by operation name.
    pub api_calls_by_operation: BTreeMap<String, u64>,
    /// Calls that reached the record store.
    pub store_trips: u64,
    /// Requests the record store's backend made for them (a listing's pages each count).
    pub store_requests: u64,
    /// Provider API calls by region, for a plan that read more than one region (empty for one: every
    /// call was made in the plan's region).
    pub api_calls_by_region: BTreeMap<String, u64>,
}

/// The ephemeral prior state of one plan, and everything discovery has to report.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// The estate projected.
    pub estate: Estate,
    /// The region read.
    pub region: String,
    /// Every declared instance, by address.
    pub instances: BTreeMap<InstanceAddress, InstanceState>,
    /// Foreign objects of declared types, by (type, id).
    pub foreign: Vec<ForeignObject>,
    /// Adoption candidates, by address.
    pub bind_candidates: Vec<BindCandidate>,
    /// Foreign objects the bind-candidate test matches to an unbound instance, but not one to one (several
    /// objects match the instance, or the object matches several instances), by address: not offered, and
    /// named by an `ambiguous-candidates` warning; `liveplan adopt --id` may still take one the user chose.
    pub ambiguous_candidates: Vec<BindCandidate>,
    /// Objects blocking declared client-named instances, by address.
    pub unowned: Vec<UnownedObject>,
    /// Owned objects to remove (or kept for a rename), by address.
    pub owned_undeclared: Vec<OwnedUndeclared>,
    /// Plausible renames, by address.
    pub rename_hints: Vec<RenameHint>,
    /// Deposed objects, by address.
    pub deposed: Vec<DeposedObject>,
    /// How many listed objects carry another estate's marker, by estate (never bound, never touched).
    pub other_estates: BTreeMap<String, u64>,
    /// Types whose removal picture is incomplete (a listing, the tagging sweep or a confirming read
    /// failed): no deletion of an owned, undeclared object of these types may be planned from this
    /// projection. Declared instances that depended on a failed call are [`Withheld`] one by one.
    pub withheld_types: BTreeSet<String>,
    /// Findings, sorted by severity, code, address and ids.
    pub diagnostics: Vec<Diagnostic>,
    /// The estate's records as loaded (with the versions a compare-and-swap must name).
    pub records: RecordSet,
    /// What it cost.
    pub cost: Cost,
}

impl Projection {
    /// The state of the instance at `address`.
    pub fn instance(&self, address: &InstanceAddress) -> Option<&InstanceState> {
        self.instances.get(address)
    }

    /// Whether an error diagnostic makes the plan not applicable.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == admission::Severity::Error)
    }

    /// The tag change that repairs a bound object's markers, for the engine's tags-only update.
    pub fn marker_change(
        &self,
        address: &InstanceAddress,
    ) -> Option<Result<TagChange, admission::Error>> {
        let state = self.instances.get(address)?;
        let Binding::Bound { object, repairs } = &state.binding else {
            return None;
        };
        if repairs.is_empty() {
            return None;
        }
        let mut change = TagChange::default();
        for repair in repairs {
            match repair {
                Repair::Address { .. } => {
                    let escaped = match admission::marker::escape_address(address) {
                        Ok(e) => e,
                        Err(e) => return Some(Err(e)),
                    };
                    match admission::marker::address_tag_change(&object.tags, &escaped) {
                        Ok(c) => {
                            change.set.extend(c.set);
                            change.remove.extend(c.remove);
                        }
                        Err(e) => return Some(Err(e)),
                    }
                    if object.tag(admission::marker::ESTATE_TAG) != Some(self.estate.as_str()) {
                        change.set.insert(
                            admission::marker::ESTATE_TAG.to_owned(),
                            self.estate.as_str().to_owned(),
                        );
                    }
                }
                Repair::Slot(slot) => {
                    change
                        .set
                        .insert(admission::marker::SLOT_TAG.to_owned(), slot.to_string());
                }
            }
        }
        Some(Ok(change))
    }
}
