//! The findings of discovery as data, and the one place their prose is written: each [`Finding`]
//! becomes one [`Diagnostic`] through the function of its code.
//!
//! The admission paths say what they found (which object, which address, which call failed); how that
//! reads to a user, and what to do about it, is decided here and nowhere else. Nothing here looks at the
//! live system or at a verdict: a finding carries everything its text needs.

use std::fmt;

use admission::marker::{MalformedReason, Slot};
use admission::{BlockAddress, InstanceAddress};
use admission::{Code, Diagnostic};
use provider::ProviderError;

use super::INTENT_PATIENCE_SECS;
use super::evidence::ObjectKey;
use crate::shell::shell_word;

/// Something discovery found that the user is told about.
#[derive(Debug)]
pub(crate) enum Finding {
    /// An object without this estate's marker sits at a declared client-named identity (`unowned`).
    Unowned {
        /// The declared instance whose identity it holds.
        address: InstanceAddress,
        /// The object.
        object: ObjectKey,
    },
    /// Another estate's object sits at a declared client-named identity (`in-the-way`).
    InTheWay {
        /// The declared instance whose identity it holds.
        address: InstanceAddress,
        /// The object.
        object: ObjectKey,
        /// The estate it belongs to.
        estate: String,
    },
    /// The object at a declared identity is marked for another declared address.
    MarkedForAnother {
        /// The declared instance whose identity it holds.
        address: InstanceAddress,
        /// The object.
        object: ObjectKey,
        /// The declared address its marker names.
        other: InstanceAddress,
    },
    /// An object carries this estate's tag but an address marker that cannot be read.
    MalformedMarker {
        /// The object.
        object: ObjectKey,
        /// What is wrong with the marker.
        reason: MalformedReason,
        /// The declared instance it was found for, if any.
        at: Option<InstanceAddress>,
    },
    /// An object carries this estate's markers but a `tofu-slot` outside the slot grammar
    /// (`malformed-slot`): never bound, never deleted.
    MalformedSlot {
        /// The object.
        object: ObjectKey,
        /// What is wrong with the slot, its value quoted.
        problem: String,
        /// The address its marker names, or the declared instance it was found for.
        at: Option<InstanceAddress>,
    },
    /// Several live objects claim one address (`marker-collision`).
    Collision {
        /// The address they claim.
        address: InstanceAddress,
        /// Their ids.
        ids: Vec<String>,
    },
    /// The members of a count block cannot be told apart or slotted.
    CountSet {
        /// What keeps the set from being bound.
        fault: CountFault,
        /// The count block.
        block: BlockAddress,
        /// The objects at fault.
        ids: Vec<String>,
    },
    /// A list-and-match instance fits several live objects that differ (`ambiguous-content-match`).
    AmbiguousContent {
        /// The declared instance.
        address: InstanceAddress,
        /// The objects it fits.
        ids: Vec<String>,
    },
    /// A `pending` create intent: an earlier apply did not finish creating the instance.
    InterruptedCreate {
        /// The instance.
        address: InstanceAddress,
        /// What this plan makes of it.
        outcome: IntentOutcome,
    },
    /// Several foreign objects could be adopted by one instance, or one by several.
    AmbiguousCandidates {
        /// The declared instance.
        address: InstanceAddress,
        /// The objects it could adopt.
        ids: Vec<String>,
    },
    /// A call failed after its retries (`discovery-incomplete`).
    Incomplete {
        /// What could not be read.
        what: Unread,
        /// How the last attempt failed.
        error: ProviderError,
    },
}

/// Why the members of a count set cannot be bound.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CountFault {
    /// A member's `tofu-slot` is not a slot.
    MalformedSlot,
    /// Several members carry the same slot.
    DuplicateSlot(Slot),
    /// Several members carry the same index and no slot.
    Indistinguishable(u64),
    /// No slot is left to mint for a new member.
    SlotsExhausted,
}

/// What a pending create intent means for this plan.
#[derive(Debug)]
pub(crate) enum IntentOutcome {
    /// The object exists (with this id) and is bound.
    Bound(String),
    /// No object yet, and the intent is this young (in seconds): another apply may be creating it.
    InProgress(u64),
    /// No object, and the intent is this old (in seconds): the create is planned again.
    CreateAgain(u64),
    /// The instance gets no change for another reason.
    Nothing,
}

/// What a failed call would have read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Unread {
    /// The tagging sweep over the estate.
    TaggingIndex,
    /// The bulk listing of one type.
    Listing(String),
    /// The object at the identity of a declared instance.
    Identity(InstanceAddress),
    /// The objects of a type under one parent.
    Children {
        /// The listed type.
        type_name: String,
        /// The parent's id.
        parent_id: String,
    },
    /// One object, read by id to confirm it.
    Object(ObjectKey),
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unread::TaggingIndex => f.write_str("the tagging index"),
            Unread::Listing(type_name) => f.write_str(type_name),
            Unread::Identity(address) => write!(f, "the object at the identity of {address}"),
            Unread::Children {
                type_name,
                parent_id,
            } => write!(f, "{type_name} under {parent_id}"),
            Unread::Object(key) => write!(f, "{key}"),
        }
    }
}

impl Finding {
    /// The diagnostic that tells the user about this finding.
    pub(crate) fn into_diagnostic(self) -> Diagnostic {
        match self {
            Finding::Unowned { address, object } => unowned(&address, object),
            Finding::InTheWay {
                address,
                object,
                estate,
            } => in_the_way(&address, object, &estate),
            Finding::MarkedForAnother {
                address,
                object,
                other,
            } => marked_for_another(&address, object, &other),
            Finding::MalformedMarker { object, reason, at } => {
                malformed_marker(object, &reason, at.as_ref())
            }
            Finding::MalformedSlot {
                object,
                problem,
                at,
            } => malformed_slot(object, &problem, at.as_ref()),
            Finding::Collision { address, ids } => collision(&address, ids),
            Finding::CountSet { fault, block, ids } => count_set(fault, &block, ids),
            Finding::AmbiguousContent { address, ids } => ambiguous_content(&address, ids),
            Finding::InterruptedCreate { address, outcome } => {
                interrupted_create(&address, outcome)
            }
            Finding::AmbiguousCandidates { address, ids } => ambiguous_candidates(&address, ids),
            Finding::Incomplete { what, error } => incomplete(&what, &error),
        }
    }
}

fn unowned(address: &InstanceAddress, object: ObjectKey) -> Diagnostic {
    // The same command the plan's report of unowned objects suggests, quoted by the same rule.
    let word = shell_word(&address.to_string());
    Diagnostic::new(
        Code::Unowned,
        format!("{object} exists but carries no estate marker"),
        format!(
            "No change is planned for {address}. To manage the object, run `liveplan adopt {word}`."
        ),
    )
    .with_address(address.to_string())
    .with_ids([object.id])
}

fn in_the_way(address: &InstanceAddress, object: ObjectKey, estate: &str) -> Diagnostic {
    Diagnostic::new(
        Code::InTheWay,
        format!("{object} belongs to estate {estate}"),
        format!(
            "No change is planned for {address}. Choose another identity, or remove the object from \
             estate {estate} first."
        ),
    )
    .with_address(address.to_string())
    .with_ids([object.id])
}

fn marked_for_another(
    address: &InstanceAddress,
    object: ObjectKey,
    other: &InstanceAddress,
) -> Diagnostic {
    Diagnostic::new(
        Code::MarkedForAnotherAddress,
        format!("{object} at the identity of {address} is marked for {other}"),
        "Both addresses are declared, so which one owns the object cannot be decided. Give one of \
         them another identity, or run `liveplan mv` to move the marker.",
    )
    .with_address(address.to_string())
    .with_ids([object.id])
}

fn malformed_marker(
    object: ObjectKey,
    reason: &MalformedReason,
    at: Option<&InstanceAddress>,
) -> Diagnostic {
    let d = Diagnostic::new(
        Code::MalformedMarker,
        format!("{object} carries this estate's tag but a malformed address marker: {reason}"),
        // `liveplan adopt` takes only objects with no estate tag (contract.md), so the way to it is
        // through removing the markers.
        "The object is bound to no instance and is never changed. Fix its tofu-* tags by hand, or \
         remove them all so that it is foreign and run the liveplan adopt command the next plan offers \
         for it.",
    )
    .with_ids([object.id]);
    match at {
        Some(a) => d.with_address(a.to_string()),
        None => d,
    }
}

fn malformed_slot(object: ObjectKey, problem: &str, at: Option<&InstanceAddress>) -> Diagnostic {
    let d = Diagnostic::new(
        Code::MalformedSlot,
        format!("{object} carries this estate's markers but a {problem}"),
        "The object is bound to no instance and is never changed or destroyed. Fix its tofu-slot tag by \
         hand (an unsigned integer with no leading zeros), or remove it, then plan again.",
    )
    .with_ids([object.id]);
    match at {
        Some(a) => d.with_address(a.to_string()),
        None => d,
    }
}

fn collision(address: &InstanceAddress, ids: Vec<String>) -> Diagnostic {
    Diagnostic::new(
        Code::MarkerCollision,
        format!(
            "{} live objects claim {address}: {}",
            ids.len(),
            ids.join(", ")
        ),
        "Nothing is planned for this address and none of these objects is changed. Remove the \
         estate's tofu-* tags from all but one of them by hand, then plan again.",
    )
    .with_address(address.to_string())
    .with_ids(ids)
}

fn count_set(fault: CountFault, block: &BlockAddress, ids: Vec<String>) -> Diagnostic {
    let (code, what) = match fault {
        CountFault::MalformedSlot => (
            Code::MalformedSlot,
            "carries a malformed tofu-slot".to_owned(),
        ),
        CountFault::DuplicateSlot(slot) => {
            (Code::DuplicateSlot, format!("carry the same slot {slot}"))
        }
        CountFault::Indistinguishable(index) => (
            Code::IndistinguishableInstances,
            format!("carry the same address {block}[{index}] and no slot"),
        ),
        CountFault::SlotsExhausted => (Code::MalformedSlot, "leave no slot to mint".to_owned()),
    };
    Diagnostic::new(
        code,
        format!(
            "the count set {block} cannot be bound: {} {what}",
            ids.join(", ")
        ),
        "Nothing is planned for the block. Fix the tofu-slot and tofu-address tags of the named \
         objects by hand (each member needs its own slot), then plan again.",
    )
    .with_address(block.to_string())
    .with_ids(ids)
}

fn ambiguous_content(address: &InstanceAddress, ids: Vec<String>) -> Diagnostic {
    Diagnostic::new(
        Code::AmbiguousContentMatch,
        format!("{address} matches {} live objects that differ: {}", ids.len(), ids.join(", ")),
        "Set the instance's content arguments so that it matches one kind of object, then plan again.",
    )
    .with_address(address.to_string())
    .with_ids(ids)
}

fn interrupted_create(address: &InstanceAddress, outcome: IntentOutcome) -> Diagnostic {
    let (detail, id) = match outcome {
        IntentOutcome::Bound(id) => (
            format!("The object {id} exists and is bound; the next apply marks the intent done."),
            Some(id),
        ),
        IntentOutcome::InProgress(age) => (
            format!(
                "The intent is {age}s old and another apply may be creating the object right now, so no \
                 create is planned. Plan again in {} seconds.",
                INTENT_PATIENCE_SECS - age
            ),
            None,
        ),
        IntentOutcome::CreateAgain(age) => (
            format!(
                "The intent is {age}s old and no object was found, so the create is planned again."
            ),
            None,
        ),
        IntentOutcome::Nothing => (
            "Nothing is planned for the instance in this plan.".to_owned(),
            None,
        ),
    };
    let d = Diagnostic::new(
        Code::InterruptedCreate,
        format!("an earlier apply started creating {address} and did not finish"),
        detail,
    )
    .with_address(address.to_string());
    match id {
        Some(id) => d.with_ids([id]),
        None => d,
    }
}

fn ambiguous_candidates(address: &InstanceAddress, ids: Vec<String>) -> Diagnostic {
    Diagnostic::new(
        Code::AmbiguousCandidates,
        format!(
            "{address} could adopt any of {}; none is offered",
            ids.join(", ")
        ),
        "The objects match one to many, so none is proposed for adoption; the plan creates a new \
         object. Adopt the right one with liveplan adopt --id ID, or tag the others.",
    )
    .with_address(address.to_string())
    .with_ids(ids)
}

fn incomplete(what: &Unread, error: &ProviderError) -> Diagnostic {
    let d = Diagnostic::new(
        Code::DiscoveryIncomplete,
        format!("could not read {what}: {error}"),
        "The call failed after retries, so what it would have shown is unknown. Nothing that depends \
         on it is planned; fix the permission or wait for the API to recover, then plan again.",
    );
    match what {
        Unread::Identity(address) => d.with_address(address.to_string()),
        _ => d,
    }
}
