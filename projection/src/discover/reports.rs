//! What is read off the bindings once every path has bound: create intents attached (and a young
//! pending one holding its create back), the foreign objects an unbound instance could adopt, and the
//! owned-undeclared objects that look renamed.
//!
//! These reports only offer adoptions and renames (the engine's renderer writes their commands) and
//! hold back removals; nothing here binds an object to an instance or reads the live system.

use std::collections::BTreeMap;

use admission::{BlockAddress, InstanceAddress, InstanceKey};
use provider::AdmissionPath;
use provider::LiveObject;
use provider::schema::BindMatch;

use super::INTENT_PATIENCE_SECS;
use super::diagnostics::{Finding, IntentOutcome};
use super::evidence::{Evidence, ObjectKey};
use super::list_match::declared_field_value;
use super::scope::Scope;
use super::verdicts::Verdicts;
use crate::output::{
    BindCandidate, Binding, Removal, RenameHint, RenameTarget, UndeclaredAction, Withheld,
};
use crate::record::IntentState;

/// Create intents: attached to their instances; a `pending` one is reported, and a young one keeps
/// its instance from being created again.
pub(crate) fn apply_intents(scope: &Scope<'_>, evidence: &Evidence, verdicts: &mut Verdicts<'_>) {
    // Both maps are sorted by address: walk them side by side instead of looking each intent up.
    let mut states = verdicts.instances.iter_mut().peekable();
    for (address, intent) in &evidence.records.intents {
        while states.next_if(|(a, _)| *a < address).is_some() {}
        let Some((_, state)) = states.next_if(|(a, _)| *a == address) else {
            continue;
        };
        state.intent = Some(intent.clone());
        if intent.body.state != IntentState::Pending {
            continue;
        }
        let age = scope.config.now.saturating_sub(intent.body.time);
        let young = age < INTENT_PATIENCE_SECS;
        let outcome = match (&state.binding, young) {
            (Binding::Bound { object, .. }, _) => IntentOutcome::Bound(object.id.clone()),
            (Binding::Create, true) => {
                let retry_after = intent.body.time.saturating_add(INTENT_PATIENCE_SECS);
                state.binding = Binding::Withheld(Withheld::CreateInProgress { retry_after });
                IntentOutcome::InProgress(age)
            }
            (Binding::Create, false) => IntentOutcome::CreateAgain(age),
            _ => IntentOutcome::Nothing,
        };
        verdicts.findings.push(Finding::InterruptedCreate {
            address: address.clone(),
            outcome,
        });
    }
}

/// The bind-candidate values of the unbound, unkeyed marker instances whose every such field is
/// known before apply.
fn wanted_candidates(
    scope: &Scope<'_>,
    verdicts: &Verdicts<'_>,
) -> Vec<(InstanceAddress, BTreeMap<String, String>)> {
    let mut wanted = Vec::new();
    for (address, state) in &verdicts.instances {
        if state.admission != AdmissionPath::Marker
            || *address.key() != InstanceKey::None
            || state.binding != Binding::Create
        {
            continue;
        }
        let schema = scope.schema(address.type_name());
        let BindMatch::Fields(fields) = &schema.bind_match else {
            continue;
        };
        let instance = scope.declared.values_of(address);
        let mut values = BTreeMap::new();
        for field in fields {
            let declared = instance.and_then(|i| i.bind_values.get(field));
            match declared_field_value(declared, &verdicts.instances, schema, field, &scope.region)
            {
                Some(v) => {
                    values.insert(field.clone(), v);
                }
                None => break,
            }
        }
        if values.len() == fields.len() {
            wanted.push((address.clone(), values));
        }
    }
    wanted
}

/// Foreign objects whose bind-candidate fields equal an unbound, unkeyed marker instance's values:
/// the one-to-one matches (offered), then the others (ambiguous, named by a warning).
pub(crate) fn bind_candidates(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
) -> (Vec<BindCandidate>, Vec<BindCandidate>) {
    let wanted = wanted_candidates(scope, verdicts);
    let matches: Vec<Vec<&LiveObject>> = wanted
        .iter()
        .map(|(address, values)| {
            verdicts
                .foreign_pool
                .iter()
                .filter(|o| o.type_name == address.type_name())
                .filter(|o| {
                    values
                        .iter()
                        .all(|(f, v)| o.attribute_str(f) == Some(v.as_str()))
                })
                .collect()
        })
        .collect();
    let mut claimants: BTreeMap<ObjectKey, usize> = BTreeMap::new();
    for m in &matches {
        for o in m {
            *claimants.entry(ObjectKey::of(o)).or_insert(0) += 1;
        }
    }
    let mut out = Vec::new();
    let mut ambiguous = Vec::new();
    let mut warnings = Vec::new();
    let candidate =
        |address: &InstanceAddress, values: &BTreeMap<String, String>, o: &LiveObject| {
            BindCandidate {
                address: address.clone(),
                type_name: address.type_name().to_owned(),
                id: o.id.clone(),
                matched: values.clone(),
            }
        };
    for ((address, values), m) in wanted.iter().zip(&matches) {
        match m.as_slice() {
            [] => {}
            [one] if claimants[&ObjectKey::of(one)] == 1 => {
                out.push(candidate(address, values, one))
            }
            several => {
                ambiguous.extend(several.iter().map(|o| candidate(address, values, o)));
                warnings.push(Finding::AmbiguousCandidates {
                    address: address.clone(),
                    ids: several.iter().map(|o| o.id.clone()).collect(),
                });
            }
        }
    }
    verdicts.findings.extend(warnings);
    (out, ambiguous)
}

/// Owned-undeclared objects whose rename is plausible (an instance of their block, or of a block of their
/// type with nothing live, has no object yet) are kept and hinted instead of deleted.
pub(crate) fn rename_hints(scope: &Scope<'_>, verdicts: &mut Verdicts<'_>) -> Vec<RenameHint> {
    let instances = &verdicts.instances;
    let members = |block: &BlockAddress| {
        scope
            .by_block
            .get(block)
            .into_iter()
            .flatten()
            .filter_map(|a| instances.get(a))
    };
    // A create withheld for its pending intent is unbound too: the intent may be the claim of a rename
    // under way (`liveplan mv` takes the new address that way before it retags), so the old object is
    // kept for it rather than deleted.
    let unbound = |block: &BlockAddress| -> Vec<InstanceAddress> {
        members(block)
            .filter(|s| {
                matches!(
                    s.binding,
                    Binding::Create | Binding::Withheld(Withheld::CreateInProgress { .. })
                )
            })
            .map(|s| s.address.clone())
            .collect()
    };
    let has_live = |block: &BlockAddress| members(block).any(|s| s.binding.object().is_some());
    let mut targets: Vec<(usize, Vec<InstanceAddress>)> = Vec::new();
    for (i, orphan) in verdicts.owned_undeclared.iter().enumerate() {
        if orphan.reason != Removal::NoLongerDeclared {
            continue;
        }
        let block = orphan.address.block();
        let t: Vec<InstanceAddress> = if scope.declared.expansion(block).is_some() {
            unbound(block)
        } else {
            scope
                .declared
                .blocks()
                .filter(|(b, _)| b.type_name() == block.type_name() && !has_live(b))
                .flat_map(|(b, _)| unbound(b))
                .collect()
        };
        if !t.is_empty() {
            targets.push((i, t));
        }
    }
    let mut hints = Vec::new();
    for (i, to) in &targets {
        let shared = targets
            .iter()
            .any(|(j, other)| j != i && other.iter().any(|a| to.contains(a)));
        let orphan = &mut verdicts.owned_undeclared[*i];
        orphan.action = UndeclaredAction::WithheldForRename;
        let target = match to.as_slice() {
            [one] if !shared => RenameTarget::One(one.clone()),
            _ => RenameTarget::Ambiguous(to.clone()),
        };
        hints.push(RenameHint {
            from: orphan.address.clone(),
            to: target,
            id: orphan.id.clone(),
        });
    }
    hints
}
