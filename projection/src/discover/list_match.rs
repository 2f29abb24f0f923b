//! Path 4, list-and-match: instances with no identity of their own, listed under each parent and bound
//! by content; identical siblings are one fungible set bound by cardinality.
//!
//! A located record is honoured before any content, an instance that fits objects that differ binds
//! none of them, and a listed object no instance takes is reported, never bound.

use std::collections::{BTreeMap, BTreeSet};

use admission::InstanceAddress;
use futures::StreamExt;
use provider::AdmissionPath;
use provider::schema::ResourceTypeSchema;
use provider::{ListRequest, LiveObject, ParentScope};

use super::diagnostics::{Finding, Unread};
use super::evidence::Evidence;
use super::fetch::{Listed, Reader};
use super::parent_derived::{Resolved, resolve};
use super::scope::Scope;
use super::verdicts::Verdicts;
use crate::declared::DeclaredValue;
use crate::error::ProjectionError;
use crate::output::{InstanceState, OwnedUndeclared, Removal, UndeclaredAction, Withheld};

/// The siblings of one type under one parent.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ParentKey {
    type_name: String,
    parent_id: String,
}

/// A declared member's content: each match field's value (None: unknown until apply).
type Content = BTreeMap<String, Option<String>>;

/// Declared list-and-match members under each parent, with their content.
type ContentGroups = BTreeMap<ParentKey, Vec<(InstanceAddress, Content)>>;

/// The value a declared field has before apply: the declared one (a parent's id once the parent is
/// bound), else the schema's default in `region`; `None` when it is unknown until apply.
pub(crate) fn declared_field_value(
    value: Option<&DeclaredValue>,
    instances: &BTreeMap<InstanceAddress, InstanceState>,
    schema: &ResourceTypeSchema,
    field: &str,
    region: &str,
) -> Option<String> {
    match value {
        Some(DeclaredValue::Known(s)) => Some(s.clone()),
        Some(DeclaredValue::IdOf(p)) => instances
            .get(p)
            .and_then(|s| s.binding.object())
            .map(|o| o.id.clone()),
        Some(DeclaredValue::Unknown) => None,
        None => schema
            .attribute(field)
            .and_then(|a| a.default_in(region))
            .and_then(|v| v.as_str().map(str::to_owned)),
    }
}

/// Binds every declared list-and-match instance: one listing per (type, parent), then by content.
#[tracing::instrument(target = "projection::discover", name = "discover", skip_all, fields(estate = %scope.estate, path = "list-match"), err)]
pub(crate) async fn bind_list_match(
    scope: &Scope<'_>,
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    reader: &Reader<'_>,
) -> Result<(), ProjectionError> {
    let groups = group_by_parent(scope, verdicts)?;
    let listed: Vec<(ParentKey, Listed)> = futures::stream::iter(groups.keys().cloned())
        .map(|key| async move {
            let link = scope
                .schema(&key.type_name)
                .parent
                .clone()
                .expect("grouped by parent");
            let request = ListRequest {
                parent: Some(ParentScope {
                    type_name: link.parent_type,
                    id: key.parent_id.clone(),
                }),
                ..ListRequest::all(key.type_name.clone())
            };
            let listed = reader.list_all(request).await;
            (key, listed)
        })
        .buffer_unordered(scope.config.read_concurrency.max(1))
        .collect()
        .await;
    let mut listed: BTreeMap<ParentKey, Listed> = listed.into_iter().collect();
    for (key, members) in groups {
        let objects = match listed.remove(&key) {
            Some(Ok((listing, _))) => listing.objects,
            Some(Err(e)) => {
                let ParentKey {
                    type_name,
                    parent_id,
                } = key;
                verdicts.withheld_types.insert(type_name.clone());
                verdicts.incomplete(
                    Unread::Children {
                        type_name,
                        parent_id,
                    },
                    e,
                );
                for (a, _) in members {
                    verdicts.withhold_unread(&a);
                }
                continue;
            }
            None => continue,
        };
        match_content(evidence, verdicts, &key.type_name, members, objects);
    }
    Ok(())
}

/// The declared members grouped by their type and parent id, each with its content; a member whose
/// parent is not bound is created or withheld here.
fn group_by_parent(
    scope: &Scope<'_>,
    verdicts: &mut Verdicts<'_>,
) -> Result<ContentGroups, ProjectionError> {
    let mut groups: ContentGroups = BTreeMap::new();
    for address in scope.addresses_on(AdmissionPath::ListMatch) {
        let type_name = address.type_name().to_owned();
        let schema = scope.schema(&type_name);
        let Some(link) = &schema.parent else {
            verdicts.create(&address);
            continue;
        };
        let instance = scope.declared.values_of(&address);
        let parent_value = instance
            .and_then(|i| i.identity.get(&link.argument))
            .cloned()
            .unwrap_or(DeclaredValue::Unknown);
        let single = BTreeMap::from([(link.argument.clone(), parent_value)]);
        let parent_id = match resolve(scope, verdicts, &address, &single)? {
            Resolved::Parts(p) => p.get(&link.argument).cloned().unwrap_or_default(),
            Resolved::Create | Resolved::Waiting => {
                verdicts.create(&address);
                continue;
            }
            Resolved::Withheld(parent) => {
                verdicts.withhold(&address, Withheld::Parent(parent));
                continue;
            }
        };
        let mut content = BTreeMap::new();
        for field in &schema.match_content {
            let value = if *field == link.argument {
                Some(parent_id.clone())
            } else {
                let declared = instance.and_then(|i| i.content.get(field));
                declared_field_value(declared, &verdicts.instances, schema, field, &scope.region)
            };
            content.insert(field.clone(), value);
        }
        groups
            .entry(ParentKey {
                type_name,
                parent_id,
            })
            .or_default()
            .push((address, content));
    }
    Ok(groups)
}

/// Whether `o` has every known value of `content`.
fn fits(content: &Content, o: &LiveObject) -> bool {
    content
        .iter()
        .all(|(f, v)| v.as_deref().is_none_or(|v| o.attribute_str(f) == Some(v)))
}

/// Binds the `members` of one (type, parent) to the `objects` listed under it.
fn match_content(
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    type_name: &str,
    mut members: Vec<(InstanceAddress, Content)>,
    mut objects: Vec<LiveObject>,
) {
    objects.sort_by(|a, b| a.id.cmp(&b.id));
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let open = honour_located(evidence, verdicts, members, &mut objects);
    let (full, partial): (Vec<_>, Vec<_>) = open
        .into_iter()
        .partition(|(_, c)| c.values().all(Option::is_some));
    for (address, content) in full {
        match objects.iter().position(|o| fits(&content, o)) {
            Some(i) => {
                let object = objects.remove(i);
                verdicts.bind(&address, object, None);
            }
            None => verdicts.create(&address),
        }
    }
    for (address, content) in partial {
        match_partial(verdicts, address, &content, &mut objects);
    }
    for object in objects {
        let owner = evidence.located_owner(&object);
        verdicts.consumed.insert(&object);
        match owner {
            Some(address) => verdicts.owned_undeclared.push(OwnedUndeclared {
                address,
                type_name: type_name.to_owned(),
                id: object.id.clone(),
                reason: Removal::NoLongerDeclared,
                action: UndeclaredAction::Delete,
                object: Some(object),
            }),
            None => verdicts.foreign_pool.push(object),
        }
    }
}

/// Binds each member a located record names to that object, whatever its content now; the others are
/// left open.
///
/// A located record names the object an instance was created as. It is listed under the instance's
/// parent; a field that changed, such as an access key's `status`, is an update of that object, not a
/// reason to create another.
fn honour_located(
    evidence: &Evidence,
    verdicts: &mut Verdicts<'_>,
    members: Vec<(InstanceAddress, Content)>,
    objects: &mut Vec<LiveObject>,
) -> Vec<(InstanceAddress, Content)> {
    let mut open = Vec::new();
    for (address, content) in members {
        let located = evidence.records.located.get(&address).map(|r| &r.body.id);
        match located.and_then(|id| objects.iter().position(|o| o.id == *id)) {
            Some(i) => {
                let object = objects.remove(i);
                verdicts.bind(&address, object, None);
            }
            None => open.push((address, content)),
        }
    }
    open
}

/// Binds a member whose content is partly unknown: to the objects it fits when they are all alike
/// (a fungible set), to none when they differ.
fn match_partial(
    verdicts: &mut Verdicts<'_>,
    address: InstanceAddress,
    content: &Content,
    objects: &mut Vec<LiveObject>,
) {
    let candidates: Vec<usize> = (0..objects.len())
        .filter(|&i| fits(content, &objects[i]))
        .collect();
    let distinct: BTreeSet<Vec<Option<&str>>> = candidates
        .iter()
        .map(|&i| {
            content
                .keys()
                .map(|f| objects[i].attribute_str(f))
                .collect()
        })
        .collect();
    match distinct.len() {
        0 => verdicts.create(&address),
        1 => {
            let object = objects.remove(candidates[0]);
            verdicts.bind(&address, object, None);
        }
        _ => {
            let ids: Vec<String> = candidates.iter().map(|&i| objects[i].id.clone()).collect();
            verdicts.findings.push(Finding::AmbiguousContent {
                address: address.clone(),
                ids,
            });
            verdicts.withhold(&address, Withheld::AmbiguousContentMatch);
        }
    }
}
