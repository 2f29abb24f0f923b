//! The deletes a plan holds beyond its declared instances: owned objects no longer declared, count
//! surplus, and deposed objects left by an interrupted create-before-destroy replace.
//!
//! The projection decides which objects these are; this module only turns its verdicts into changes and
//! must never delete an object the projection withheld.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use admission::marker;
use admission::{BlockAddress, Code, Diagnostic, Slot, Value};
use projection::{Projection, Removal, UndeclaredAction};
use provider::ResourceTypeSchema;
use provider::schema::TAGS_ALL;
use provider::{AdmissionPath, LiveObject};

use super::PlanMode;
use super::evaluate::Planner;
use super::tags::string_map;
use crate::model::{Action, ResourceChange};

impl Planner<'_> {
    /// Deletes of owned objects no longer declared, count surplus and deposed leftovers.
    pub(super) fn removals(&mut self, p: &Projection) {
        let hidden = self.hidden_by_block();
        for o in &p.owned_undeclared {
            if o.action == UndeclaredAction::Delete {
                self.undeclared_delete(o, p, hidden.get(o.address.block()));
            }
        }
        for d in p.deposed.iter().filter(|d| d.present) {
            let change = ResourceChange {
                id: Some(d.id.clone()),
                before: Some(BTreeMap::from([(
                    "id".to_owned(),
                    Value::from(d.id.clone()),
                )])),
                reason: Some("deposed object".to_owned()),
                deposed: Some(d.id.clone()),
                ..ResourceChange::planned(
                    d.address.clone(),
                    Action::Delete,
                    self.admission_of(&d.type_name),
                )
            };
            self.changes.push(change);
        }
    }

    /// The delete of one owned object that is no longer declared or is a count surplus; the object is
    /// bound to its address, so that apply finds it.
    fn undeclared_delete(
        &mut self,
        o: &projection::OwnedUndeclared,
        p: &Projection,
        hidden: Option<&Hidden>,
    ) {
        let object = o.object.clone().unwrap_or_else(|| {
            let mut obj = LiveObject {
                type_name: o.type_name.clone(),
                id: o.id.clone(),
                region: self.region.clone(),
                attributes: BTreeMap::new(),
                tags: BTreeMap::new(),
            };
            if let Some(stored) = p.records.objects.get(&o.address) {
                obj.attributes = projection::record::marked_attributes(
                    &stored.body.attributes,
                    &stored.body.sensitive_paths,
                );
            }
            obj
        });
        let destroying = self.options.mode == PlanMode::Destroy;
        let reason = match &o.reason {
            _ if destroying => "destroying the estate".to_owned(),
            Removal::NoLongerDeclared => "no longer declared".to_owned(),
            Removal::CountSurplus { slot: Some(s) } => format!("count surplus (slot {s})"),
            Removal::CountSurplus { slot: None } => "count surplus".to_owned(),
        };
        let protected = self
            .resource(o.address.block())
            .is_some_and(|r| r.lifecycle.prevent_destroy);
        let fix = match o.reason {
            _ if destroying => {
                Some("remove prevent_destroy from the block's lifecycle to destroy it")
            }
            Removal::CountSurplus { .. } => {
                Some("raise count back, or remove prevent_destroy from the block's lifecycle")
            }
            Removal::NoLongerDeclared => None,
        };
        if let (true, Some(fix)) = (protected, fix) {
            self.diagnostics.push(
                Diagnostic::new(
                    Code::PreventDestroy,
                    format!(
                        "the plan would destroy {} (prevent_destroy is set)",
                        o.address
                    ),
                    fix,
                )
                .with_address(o.address.to_string()),
            );
        }
        let mut before = object.attributes.clone();
        before.insert("id".to_owned(), Value::from(object.id.clone()));
        if !object.tags.is_empty() {
            before.insert(
                "tags".to_owned(),
                string_map(&marker::non_marker_tags(&object.tags)),
            );
            before.insert(TAGS_ALL.to_owned(), string_map(&object.tags));
        }
        hide_in_delete(&mut before, self.schema(&o.type_name), hidden);
        let slot = object
            .tags
            .get(marker::SLOT_TAG)
            .and_then(|s| s.parse::<Slot>().ok());
        let change = ResourceChange {
            id: Some(o.id.clone()),
            before: Some(before),
            reason: Some(reason),
            slot,
            blocks: self
                .schema(&o.type_name)
                .map(super::diff::block_types)
                .unwrap_or_default(),
            ..ResourceChange::planned(
                o.address.clone(),
                Action::Delete,
                self.admission_of(&o.type_name),
            )
        };
        let applied: BTreeMap<String, Value> = p
            .records
            .residue
            .get(&o.address)
            .map(|r| {
                r.body
                    .values
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v.clone())))
                    .collect()
            })
            .unwrap_or_default();
        let mut change = change;
        if let Some(schema) = self.schema(&o.type_name) {
            super::diff::note_destroy_mode(&mut change, schema.destroy_mode(&applied));
        }
        self.bound.insert(o.address.clone(), object);
        self.changes.push(change);
    }

    /// The admission path of a type (markers, for a type the catalog no longer describes).
    fn admission_of(&self, type_name: &str) -> AdmissionPath {
        self.schema(type_name)
            .and_then(|s| s.admission)
            .unwrap_or(AdmissionPath::Marker)
    }
}

/// What a declared block's planned instances show as sensitive: attributes, and tag keys (or the tags
/// whole). A surplus member of the block has no configured value of its own; its siblings' marks are the
/// configuration's word on what the live read of it holds.
#[derive(Default)]
pub(super) struct Hidden {
    attributes: BTreeSet<String>,
    tag_keys: BTreeSet<String>,
    all_tags: bool,
}

impl Planner<'_> {
    /// The sensitive attributes and tag keys of each block, from its planned instances.
    fn hidden_by_block(&self) -> HashMap<BlockAddress, Hidden> {
        let mut out: HashMap<BlockAddress, Hidden> = HashMap::new();
        for c in &self.changes {
            let Some(after) = &c.after else { continue };
            for (name, v) in after.iter().filter(|(_, v)| v.contains_sensitive()) {
                let hidden = out.entry(c.address.block().clone()).or_default();
                if name != "tags" && name != TAGS_ALL {
                    hidden.attributes.insert(name.clone());
                } else if v.is_sensitive() {
                    hidden.all_tags = true;
                } else if let Some(tags) = v.as_map() {
                    hidden.tag_keys.extend(
                        tags.iter()
                            .filter(|(_, t)| t.contains_sensitive())
                            .map(|(k, _)| k.clone()),
                    );
                }
            }
        }
        out
    }
}

/// Marks sensitive what a deleted object's live read holds of its schema's sensitive attributes and of its
/// block's sensitive attributes and tags (`hidden`), so that a destroy never shows a secret its
/// configuration marked.
fn hide_in_delete(
    before: &mut BTreeMap<String, Value>,
    schema: Option<&ResourceTypeSchema>,
    hidden: Option<&Hidden>,
) {
    let by_schema = schema
        .into_iter()
        .flat_map(|s| s.attributes.iter())
        .filter(|(_, a)| a.sensitive)
        .map(|(n, _)| n);
    let by_block = hidden.into_iter().flat_map(|h| h.attributes.iter());
    let names: BTreeSet<String> = by_schema.chain(by_block).cloned().collect();
    for name in names.iter().filter(|n| *n != "id") {
        if let Some(v) = before.remove(name) {
            before.insert(name.clone(), v.sensitive());
        }
    }
    let Some(h) = hidden else { return };
    for name in ["tags", TAGS_ALL] {
        let Some(tags) = before.remove(name) else {
            continue;
        };
        let tags = if h.all_tags {
            tags.sensitive()
        } else {
            match tags {
                Value::Map(m) => Value::Map(
                    m.into_iter()
                        .map(|(k, v)| {
                            let marked = h.tag_keys.contains(&k);
                            (k, v.mark_sensitive_if(marked))
                        })
                        .collect(),
                ),
                other => other,
            }
        };
        before.insert(name.to_owned(), tags);
    }
}
