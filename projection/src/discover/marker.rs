//! Path 2, marker: declared marker-path instances against the claims of their type's listing; a
//! count block's members through their slots.
//!
//! An instance binds only an object whose marker names it. Several claims on one address are a
//! collision and bind nothing; a count set whose members cannot be told apart binds nothing either.

use std::collections::HashMap;

use admission::marker::{
    self, CountBinding, CountMember, CountSetError, HeldSlot, Slot, SlotMarker,
};
use admission::{BlockAddress, InstanceAddress, InstanceKey};
use provider::AdmissionPath;

use super::classify::malformed_slot;
use super::diagnostics::CountFault;
use super::evidence::Evidence;
use super::scope::Scope;
use super::verdicts::{Claim, Verdicts};
use crate::declared::Expansion;
use crate::output::{Binding, OwnedUndeclared, Removal, Repair, UndeclaredAction, Withheld};
use crate::record::IntentState;

/// Binds every declared marker-path block from the claims.
#[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "marker"))]
pub(crate) fn bind_marker_blocks(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
) {
    let blocks: Vec<(&BlockAddress, Expansion)> = scope
        .declared
        .blocks()
        .filter(|(b, _)| scope.admission(b.type_name()) == Some(AdmissionPath::Marker))
        .collect();
    for (block, expansion) in blocks {
        let addresses = scope.by_block.get(block).map_or(&[][..], Vec::as_slice);
        if evidence.failed_types.contains(block.type_name()) {
            for a in addresses {
                verdicts.withhold_unread(a);
            }
            continue;
        }
        match expansion {
            Expansion::Count(n) => bind_count_block(evidence, verdicts, block, n),
            Expansion::Single | Expansion::ForEach => bind_keyed(scope, verdicts, addresses),
        }
    }
}

/// Binds the instances of a keyless or `for_each` block, each to the one claim on its address.
fn bind_keyed(scope: &Scope<'_>, verdicts: &mut Verdicts<'_>, addresses: &[InstanceAddress]) {
    // Every instance takes the claims in its current form first, and only then those in an older
    // grammar's form: a marker written today for one key (`x+y` as `x++y`) is never read as another
    // key's older form (`x++y` before the separators were escaped).
    let forms: Vec<Vec<String>> = addresses.iter().map(marker::escaped_forms).collect();
    let mut matched: Vec<Vec<Claim>> = forms
        .iter()
        .map(|f| verdicts.claims.remove(&f[0]).unwrap_or_default())
        .collect();
    for (older, m) in forms.iter().zip(matched.iter_mut()) {
        for form in &older[1..] {
            m.extend(verdicts.claims.remove(form).unwrap_or_default());
        }
    }
    for (address, mut matched) in addresses.iter().zip(matched) {
        match matched.len() {
            0 => verdicts.create(address),
            1 => {
                let claim = matched.pop().expect("one claim");
                if let SlotMarker::Malformed(_) = claim.slot
                    && let Some(problem) = malformed_slot(&claim.object)
                {
                    verdicts.malformed_slot(&claim.object, problem, Some(address));
                    verdicts.withhold(address, Withheld::MalformedMarker);
                } else {
                    verdicts.bind(address, claim.object, None);
                }
            }
            _ => {
                let ids: Vec<String> = matched.iter().map(|c| c.object.id.clone()).collect();
                for c in &matched {
                    verdicts.consumed.insert(&c.object);
                }
                verdicts.collision(scope.declared, address, ids);
            }
        }
    }
}

/// Binds the members of the count block `block` (`count = n`) from the claims on its indices.
fn bind_count_block(
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    block: &BlockAddress,
    n: u64,
) {
    let head = format!(
        "{}:",
        admission::marker::escape_address_with(
            &block.instance(InstanceKey::None),
            admission::marker::KeyGrammar::Current
        )
    );
    let keys: Vec<String> = verdicts
        .claims
        .range(head.clone()..)
        .map(|(k, _)| k)
        .take_while(|k| k.starts_with(&head))
        .filter(|k| is_index(&k[head.len()..]))
        .cloned()
        .collect();
    let mut members: Vec<(u64, String, Claim)> = Vec::new();
    for key in keys {
        let index: u64 = key[head.len()..].parse().unwrap_or(u64::MAX);
        for claim in verdicts.claims.remove(&key).unwrap_or_default() {
            members.push((index, key.clone(), claim));
        }
    }
    // Every member is consumed here, whatever becomes of it: a bound one when it is set, the
    // others below.
    let input: Vec<CountMember> = members
        .iter()
        .map(|(index, _, c)| CountMember {
            id: c.object.id.clone(),
            slot: valid(&c.slot),
            address_index: *index,
        })
        .collect();
    let Some(binding) = count_binding(evidence, verdicts, block, n, &members, &input) else {
        for (_, _, claim) in &members {
            verdicts.consumed.insert(&claim.object);
        }
        return;
    };
    // The claims by id, looked up through the ids of `input`; a repeated id finds its last claim.
    let position: HashMap<&str, usize> = input
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id.as_str(), i))
        .collect();
    let mut claims: Vec<Option<(String, Claim)>> = members
        .into_iter()
        .map(|(_, key, claim)| Some((key, claim)))
        .collect();
    let mut take = |id: &str| position.get(id).and_then(|&i| claims[i].take());
    for (index, bound) in binding.bound {
        let Some((key, claim)) = take(&bound.id) else {
            continue;
        };
        let mut repairs = Vec::new();
        if bound.stale_address {
            repairs.push(Repair::Address { from: Some(key) });
        }
        if bound.needs_slot {
            repairs.push(Repair::Slot(bound.slot));
        }
        let object = claim.object;
        verdicts.set(
            &block.instance(InstanceKey::Int(index)),
            Binding::Bound { object, repairs },
            Some(bound.slot),
        );
    }
    for (index, slot) in binding.create {
        verdicts.set(
            &block.instance(InstanceKey::Int(index)),
            Binding::Create,
            Some(slot),
        );
    }
    for id in binding.surplus {
        let Some((key, claim)) = take(&id) else {
            continue;
        };
        verdicts.consumed.insert(&claim.object);
        let address =
            marker::decode_address(&key).unwrap_or_else(|_| block.instance(InstanceKey::None));
        verdicts.owned_undeclared.push(OwnedUndeclared {
            address,
            type_name: block.type_name().to_owned(),
            id,
            reason: Removal::CountSurplus {
                slot: valid(&claim.slot),
            },
            action: UndeclaredAction::Delete,
            object: Some(claim.object),
        });
    }
    for (_, claim) in claims.iter().flatten() {
        verdicts.consumed.insert(&claim.object);
    }
}

/// The slot of a valid slot marker.
fn valid(slot: &SlotMarker) -> Option<Slot> {
    match slot {
        SlotMarker::Valid(s) => Some(*s),
        _ => None,
    }
}

/// How the members of the count block `block` (`count = n`) meet its indices, or `None` when the
/// set cannot be bound (the error is reported and every index withheld).
fn count_binding(
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    block: &BlockAddress,
    n: u64,
    members: &[(u64, String, Claim)],
    input: &[CountMember],
) -> Option<CountBinding> {
    let bad: Vec<String> = members
        .iter()
        .filter(|(_, _, c)| matches!(c.slot, SlotMarker::Malformed(_)))
        .map(|(_, _, c)| c.object.id.clone())
        .collect();
    if !bad.is_empty() {
        verdicts.count_set_error(CountFault::MalformedSlot, block, n, bad);
        return None;
    }
    let recorded = evidence.records.slots.get(block).map(|s| s.body.highest);
    let held = held_slots(evidence, block);
    let (fault, ids) = match marker::bind_count_set_holding(input, &held, n, recorded) {
        Ok(b) => return Some(b),
        Err(CountSetError::DuplicateSlot { slot, ids }) => (CountFault::DuplicateSlot(slot), ids),
        Err(CountSetError::Indistinguishable { index, ids }) => {
            (CountFault::Indistinguishable(index), ids)
        }
        Err(CountSetError::SlotsExhausted) => (
            CountFault::SlotsExhausted,
            input.iter().map(|m| m.id.clone()).collect(),
        ),
    };
    verdicts.count_set_error(fault, block, n, ids);
    None
}

/// The slots the create intents of `block`'s members hold (`pending`, or `replacing`: written before
/// a replace's delete), by index: while no live object carries one, it stays its index's.
pub(crate) fn held_slots(evidence: &Evidence, block: &BlockAddress) -> Vec<HeldSlot> {
    let members = block.instance(InstanceKey::Int(0))..=block.instance(InstanceKey::Int(u64::MAX));
    evidence
        .records
        .intents
        .range(members)
        .filter(|(_, i)| matches!(i.body.state, IntentState::Pending | IntentState::Replacing))
        .filter_map(|(address, i)| match (address.key(), i.body.slot) {
            (InstanceKey::Int(index), Some(slot)) => Some(HeldSlot {
                index: *index,
                slot,
            }),
            _ => None,
        })
        .collect()
}

/// Whether `escaped` is one of the escaped forms of `address` that a marker may carry, as
/// [`marker::escaped_forms`] gives them. A keyless or indexed address has one form in every grammar
/// (`TYPE.NAME`, `TYPE.NAME:INDEX`), compared here without writing it out; only a `for_each` key, whose
/// escaping changed between grammars, is compared against each form.
pub fn marks(address: &InstanceAddress, escaped: &str) -> bool {
    let block = address.block();
    if !block.module().is_root() {
        return marker::escaped_forms(address)
            .iter()
            .any(|form| form == escaped);
    }
    let Some(rest) = escaped
        .strip_prefix(block.type_name())
        .and_then(|r| r.strip_prefix('.'))
        .and_then(|r| r.strip_prefix(block.name()))
    else {
        return false;
    };
    match address.key() {
        InstanceKey::None => rest.is_empty(),
        // The decimal digits of the index, without a leading zero: the index's one spelling.
        InstanceKey::Int(i) => rest.strip_prefix(':').is_some_and(|digits| {
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits.len() == 1 || !digits.starts_with('0'))
                && digits.parse::<u64>() == Ok(*i)
        }),
        InstanceKey::Str(_) => marker::escaped_forms(address)
            .iter()
            .any(|form| form == escaped),
    }
}

fn is_index(k: &str) -> bool {
    !k.is_empty()
        && k.bytes().all(|b| b.is_ascii_digit())
        && (k == "0" || !k.starts_with('0'))
        && k.len() < 20
}
