//! What a saved plan relies on, pinned item by item, so that `apply FILE` can tell whether it still
//! holds: the objects it changes and the objects whose attributes feed its planned values (id and a
//! digest of what the plan read), the identity of each create (still free), every record of those
//! instances and of their count blocks (by version; output records are not pinned, an apply rewrites
//! them), and each planned change itself (a digest of what the plan shows of it).
//!
//! Foreign objects, bind candidates, other instances of the estate and other estates are never pinned,
//! so that two saved plans on disjoint objects of one estate both apply, in either order. A pin holds no
//! value in the clear: an object's pin is a SHA-256 digest of what the plan read, which the plan file's
//! JSON representation already shows, and a change's pin digests the change as that representation shows
//! it (sensitive values hidden). This module does no I/O.

use std::collections::{BTreeMap, BTreeSet};

use admission::{InstanceAddress, InstanceKey, Value};
use serde::{Deserialize, Serialize};

use crate::model::{Action, Plan, ResourceChange};

/// What one pin is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PinKind {
    /// The live object bound to an instance: its id and a digest of its attributes and tags.
    Object,
    /// A deposed object of an instance, by id.
    Deposed,
    /// The identity a create takes: still free (no object at a client-named identity, none carrying
    /// the estate's markers for the address).
    Identity,
    /// A record of the estate, by version.
    Record,
    /// A planned change, as the plan shows it.
    Change,
}

impl PinKind {
    /// The thing pinned, as a diagnostic names it.
    fn noun(self) -> &'static str {
        match self {
            PinKind::Object => "object",
            PinKind::Deposed => "deposed object",
            PinKind::Identity => "the identity of the create of",
            PinKind::Record => "record",
            PinKind::Change => "the planned change of",
        }
    }
}

/// One item a saved plan relies on, and what it was when the plan was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pin {
    /// What it is about.
    pub kind: PinKind,
    /// Which one (an address, `ADDRESS ID` for a deposed object, `NAMESPACE ADDRESS` for a record).
    pub subject: String,
    /// What it was (an id and digest, a version, `free`).
    pub value: String,
}

/// How one pinned item moved since the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Moved {
    /// What it is about.
    pub kind: PinKind,
    /// Which one.
    pub subject: String,
    /// The instance it is about, when it is an object or an identity.
    pub address: Option<String>,
    /// How it moved.
    pub how: Movement,
}

/// How a pinned item moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Movement {
    /// It is still there, and differs.
    Changed,
    /// It was there and is gone.
    Gone,
    /// It was not there and now is.
    Appeared,
}

impl Moved {
    /// The sentence a `stale-plan` diagnostic says.
    pub fn summary(&self) -> String {
        let how = match (self.kind, self.how) {
            (PinKind::Identity, Movement::Gone) => "is no longer free",
            (PinKind::Change, Movement::Appeared) => "is now planned, and the saved plan lacks it",
            (PinKind::Change, Movement::Gone) => "is no longer planned",
            (_, Movement::Changed) => "changed since the plan",
            (_, Movement::Gone) => "is gone since the plan",
            (_, Movement::Appeared) => "appeared since the plan",
        };
        format!(
            "the saved plan is stale: {} {} {how}",
            self.kind.noun(),
            self.subject
        )
    }
}

/// The instances a plan relies on: those it changes and, transitively, those they read or depend on.
pub(crate) fn relied_on(plan: &Plan) -> BTreeSet<InstanceAddress> {
    let by_address: BTreeMap<&InstanceAddress, &ResourceChange> =
        plan.changes.iter().map(|c| (&c.address, c)).collect();
    let mut todo: Vec<&InstanceAddress> = plan.effective_changes().map(|c| &c.address).collect();
    let mut out = BTreeSet::new();
    while let Some(address) = todo.pop() {
        if !out.insert(address.clone()) {
            continue;
        }
        if let Some(change) = by_address.get(address) {
            todo.extend(change.depends_on.iter());
        }
    }
    out
}

/// The pins of `plan` over the instances `relied` (see [`relied_on`]), sorted.
pub(crate) fn pins(plan: &Plan, relied: &BTreeSet<InstanceAddress>) -> Vec<Pin> {
    let context = &plan.context;
    let mut out = Vec::new();
    let mut pin = |kind, subject: String, value: String| {
        out.push(Pin {
            kind,
            subject,
            value,
        })
    };
    for address in relied {
        if let Some(object) = context.priors.get(address) {
            let read = format!("{:?} {:?}", object.attributes, object.tags);
            pin(
                PinKind::Object,
                address.to_string(),
                format!("{} {}", object.id, digest(&read)),
            );
        }
        for object in context.deposed.get(address).into_iter().flatten() {
            let read = format!("{:?} {:?}", object.attributes, object.tags);
            pin(
                PinKind::Deposed,
                format!("{address} {}", object.id),
                digest(&read),
            );
        }
        for (namespace, version) in record_versions(plan, address) {
            pin(PinKind::Record, format!("{namespace} {address}"), version);
        }
    }
    let blocks: BTreeSet<_> = relied
        .iter()
        .filter(|a| matches!(a.key(), InstanceKey::Int(_)))
        .map(|a| a.block().clone())
        .collect();
    for block in blocks {
        if let Some(stored) = context.records.slots.get(&block) {
            pin(
                PinKind::Record,
                format!("slots {block}"),
                stored.version.as_str().to_owned(),
            );
        }
    }
    for change in plan.effective_changes() {
        let subject = match &change.deposed {
            Some(id) => format!("{} (deposed {id})", change.address),
            None => change.address.to_string(),
        };
        if matches!(change.action, Action::Create | Action::Replace)
            && change.deposed.is_none()
            && !context.priors.contains_key(&change.address)
        {
            pin(PinKind::Identity, subject.clone(), "free".to_owned());
        }
        pin(PinKind::Change, subject, digest(&change_shape(change)));
    }
    out.sort_by(|a, b| (a.kind, &a.subject).cmp(&(b.kind, &b.subject)));
    out.dedup_by(|a, b| a.kind == b.kind && a.subject == b.subject);
    out
}

/// The versions of the records the plan read about `address`, by namespace.
fn record_versions(plan: &Plan, address: &InstanceAddress) -> Vec<(&'static str, String)> {
    let records = &plan.context.records;
    let mut out = Vec::new();
    let mut add = |namespace, version: Option<&staterecord::Version>| {
        if let Some(version) = version {
            out.push((namespace, version.as_str().to_owned()));
        }
    };
    add("object", records.objects.get(address).map(|s| &s.version));
    add("residue", records.residue.get(address).map(|s| &s.version));
    add("deposed", records.deposed.get(address).map(|s| &s.version));
    add("intent", records.intents.get(address).map(|s| &s.version));
    add("located", records.located.get(address).map(|s| &s.version));
    out
}

/// A change as the plan shows it, with sensitive values hidden and unknowns as the plan leaves them.
fn change_shape(change: &ResourceChange) -> String {
    let shown = |side: &Option<BTreeMap<String, Value>>| {
        side.as_ref()
            .map(|m| Value::Map(m.clone()).to_plan_json().to_string())
    };
    format!(
        "{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        change.action.as_str(),
        change.id,
        shown(&change.before),
        shown(&change.after),
        change.after_unknown(),
        change.replace_order.map(|o| o.as_str()),
        change.forces,
        change.slot,
        change.tag_change.remove,
        change.tag_change.set.keys().collect::<Vec<_>>(),
    )
}

/// The SHA-256 digest of `text`, in hex.
pub(crate) fn digest(text: &str) -> String {
    hex(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref())
}

/// `bytes` in lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How the pins `now` differ from the pins `saved`, in pin order.
pub(crate) fn moved(saved: &[Pin], now: &[Pin]) -> Vec<Moved> {
    let index = |pins: &[Pin]| -> BTreeMap<(PinKind, String), String> {
        pins.iter()
            .map(|p| ((p.kind, p.subject.clone()), p.value.clone()))
            .collect()
    };
    let (saved, now) = (index(saved), index(now));
    let mut out = Vec::new();
    let keys: BTreeSet<&(PinKind, String)> = saved.keys().chain(now.keys()).collect();
    for key in keys {
        let how = match (saved.get(key), now.get(key)) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(_), Some(_)) => Movement::Changed,
            (Some(_), None) => Movement::Gone,
            (None, Some(_)) => Movement::Appeared,
            (None, None) => continue,
        };
        // An object is named with its id, as the plan read it (or as it is now, for one that appeared).
        let id = saved
            .get(key)
            .or_else(|| now.get(key))
            .and_then(|v| v.split(' ').next());
        let subject = match (key.0, id) {
            (PinKind::Object, Some(id)) => format!("{} (id {id})", key.1),
            _ => key.1.clone(),
        };
        out.push(Moved {
            kind: key.0,
            subject,
            address: matches!(key.0, PinKind::Object | PinKind::Identity).then(|| key.1.clone()),
            how,
        });
    }
    out
}
