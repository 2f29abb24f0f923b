//! The change of one declared instance: its desired attributes and tags against its bound object, and
//! the action that follows (create, update, replace or nothing).
//!
//! It compares values already evaluated; it must never evaluate an expression or read the live system.

use std::collections::{BTreeMap, BTreeSet};

use admission::ExpandedInstance;
use admission::marker;
use admission::{IgnoreChanges, Lifecycle, Resource};
use admission::{InstanceAddress, Value};
use provider::LiveObject;
use provider::schema::{
    AttributeMode, AttributeSchema, DestroyMode, Nesting, ResourceTypeSchema, TAGS_ALL,
};

use super::evaluate::Planner;
use super::tags::{TagSides, tags_differ};
use crate::model::{Action, RemovalCause, ReplaceOrder, ResourceChange, SetRemoval};

/// What `ignore_changes` keeps as the object has it.
struct Ignored {
    /// Attributes by name.
    attributes: BTreeSet<String>,
    /// Tag keys (`tags["Name"]`) that keep what the object has.
    tags: BTreeSet<String>,
    /// `ignore_changes = all`, `[tags]` or `[tags_all]`: every non-marker tag keeps what the object has;
    /// the markers stay managed (they are never ignorable).
    all_tags: bool,
    /// Paths inside nested blocks (`versioning_configuration[0].status`), by block type: the rest of the
    /// block stays managed.
    nested: BTreeMap<String, Vec<Vec<String>>>,
}

/// The attributes and tag keys a lifecycle's `ignore_changes` names (every attribute of the schema for
/// `all`).
fn ignored_attributes(lifecycle: &Lifecycle, schema: &ResourceTypeSchema) -> Ignored {
    let mut ignored = Ignored {
        attributes: BTreeSet::new(),
        tags: BTreeSet::new(),
        all_tags: false,
        nested: BTreeMap::new(),
    };
    match &lifecycle.ignore_changes {
        IgnoreChanges::None => {}
        IgnoreChanges::All(_) => {
            ignored.attributes.extend(schema.attributes.keys().cloned());
            ignored.all_tags = true;
        }
        IgnoreChanges::Paths(paths) => {
            for (path, _) in paths {
                match path.as_slice() {
                    [t] if t == "tags" || t == "tags_all" => ignored.all_tags = true,
                    [t, key, ..] if t == "tags" || t == "tags_all" => {
                        ignored.tags.insert(key.clone());
                    }
                    [name, rest @ ..]
                        if !rest.is_empty()
                            && schema.attribute(name).is_some_and(|a| a.is_block()) =>
                    {
                        ignored
                            .nested
                            .entry(name.clone())
                            .or_default()
                            .push(rest.to_vec());
                    }
                    [name, ..] => {
                        ignored.attributes.insert(name.clone());
                    }
                    [] => {}
                }
            }
        }
    }
    ignored
}

/// The attributes of `schema` that are nested block types, which the plan text shows as blocks.
pub(crate) fn block_types(schema: &ResourceTypeSchema) -> Vec<String> {
    schema
        .attributes
        .values()
        .filter(|a| a.is_block())
        .map(|a| a.name.clone())
        .collect()
}

/// Marks sensitive, on both sides of the diff, every attribute whose configured value carries a sensitive
/// mark anywhere (or that the schema declares sensitive): the live read carries no mark, so without this the
/// old value of a rotated secret, or the unchanged one of a no-op, would be shown. The whole attribute is
/// hidden, not the marked paths alone: the old value's secret need not sit where the new value's does.
fn hide_sensitive_attributes(
    schema: &ResourceTypeSchema,
    desired: &BTreeMap<String, Value>,
    before: &mut BTreeMap<String, Value>,
    after: &mut BTreeMap<String, Value>,
) {
    for (name, attr) in &schema.attributes {
        if name == "tags" || name == TAGS_ALL || name == "id" {
            continue;
        }
        let hidden = attr.sensitive || desired.get(name).is_some_and(Value::contains_sensitive);
        if !hidden {
            continue;
        }
        for side in [&mut *before, &mut *after] {
            if let Some(v) = side.remove(name) {
                side.insert(name.clone(), v.sensitive());
            }
        }
    }
}

/// Sets the value at `path` inside `want` (list indices as numbers, object attributes by name) to what
/// `have` holds there, for an `ignore_changes` path inside a nested block. A path that either side lacks
/// changes nothing.
fn keep_live(want: &mut Value, have: &Value, path: &[String]) {
    let Some((first, rest)) = path.split_first() else {
        *want = have.clone();
        return;
    };
    match (want, have.peel()) {
        (Value::List(w), Value::List(h)) => {
            if let Ok(i) = first.parse::<usize>()
                && let (Some(w), Some(h)) = (w.get_mut(i), h.get(i))
            {
                keep_live(w, h, rest);
            }
        }
        (Value::Map(w), Value::Map(h)) => {
            if let (Some(w), Some(h)) = (w.get_mut(first), h.get(first)) {
                keep_live(w, h, rest);
            }
        }
        _ => {}
    }
}

/// The entries of the inline set `name` that the object has and the configuration does not declare: a
/// declared set of blocks is the whole set, so each is removed, and the plan says why.
fn set_removals(name: &str, attr: &AttributeSchema, want: &Value, have: &Value) -> Vec<SetRemoval> {
    let is_set = attr
        .block
        .as_ref()
        .is_some_and(|b| b.nesting == Nesting::Set);
    let (true, Value::Set(want), Value::Set(have)) = (is_set, want.peel(), have.peel()) else {
        return Vec::new();
    };
    have.iter()
        .filter(|entry| !want.iter().any(|w| w.same_as(entry)))
        .map(|entry| SetRemoval {
            block: name.to_owned(),
            entry: entry.clone(),
            cause: RemovalCause::NotDeclared,
        })
        .collect()
}

/// Sets what the delete leg of `change` does, and says so in its reason when it is not a plain delete.
pub(super) fn note_destroy_mode(change: &mut ResourceChange, mode: DestroyMode) {
    change.destroy = mode;
    if let Some(how) = mode.describe() {
        change.reason = Some(match change.reason.take() {
            Some(r) => format!("{r}; {how}"),
            None => how.to_owned(),
        });
    }
}

impl Planner<'_> {
    /// The change of one instance.
    pub(super) fn diff(
        &self,
        res: &Resource,
        d: &ExpandedInstance,
        schema: &ResourceTypeSchema,
        configured: &BTreeMap<String, Value>,
        prior: Option<&LiveObject>,
    ) -> ResourceChange {
        let mut desired = schema.desired(configured, &self.settings_region(res));
        desired.remove("tags");
        desired.remove(TAGS_ALL);
        let mut ignored = ignored_attributes(&res.lifecycle, schema);
        // Keys the provider configuration's `ignore_tags` names keep what the object has.
        if let (Some(tags), Some(prior)) = (self.provider_settings.tags_of(res), prior) {
            let by_provider = prior.tags.keys().filter(|k| tags.ignored.ignores(k));
            ignored.tags.extend(by_provider.cloned());
        }
        // Ignoring the tags as a whole ignores every key but the markers, configured or live.
        if let (true, Some(prior)) = (ignored.all_tags, prior) {
            let configured_keys = configured
                .get(TAGS_ALL)
                .and_then(|t| t.peel().as_map())
                .into_iter()
                .flat_map(|m| m.keys());
            let keys: Vec<String> = prior
                .tags
                .keys()
                .chain(configured_keys)
                .filter(|k| !marker::is_marker_key(k))
                .cloned()
                .collect();
            ignored.tags.extend(keys);
        }
        let mut change = ResourceChange {
            slot: self.slots.get(&d.address).copied(),
            blocks: block_types(schema),
            ..ResourceChange::planned(d.address.clone(), Action::Create, d.admission)
        };
        let Some(prior) = prior else {
            change.after = Some(self.diff_create(res, &d.address, schema, desired, configured));
            return change;
        };
        change.id = Some(prior.id.clone());
        let (mut before, mut after) =
            self.diff_attributes(&mut change, schema, &desired, &ignored, prior);
        if schema.taggable {
            let (live, planned) = self.diff_tags(res, &mut change, configured, prior, &ignored);
            self.insert_tags(&mut before, live, true);
            self.insert_tags(&mut after, planned, true);
        }
        change.before = Some(before);
        change.changed.sort();
        change.forces.sort();
        change.forces.dedup();
        let order = if res.lifecycle.create_before_destroy {
            ReplaceOrder::CreateBeforeDestroy
        } else {
            ReplaceOrder::DestroyBeforeCreate
        };
        let trigger = self.triggered_by(res, d);
        if trigger.is_some() {
            change.forces.push("replace_triggered_by".to_owned());
        }
        self.decide_action(res, &mut change, &mut after, schema, configured, order);
        if let Some(t) = trigger {
            change.reason = Some(format!(
                "replaced due to changes in replace_triggered_by ({t})"
            ));
        }
        if change.action == Action::Replace {
            let applied = self
                .residue
                .get(&change.address)
                .cloned()
                .unwrap_or_default();
            note_destroy_mode(&mut change, schema.destroy_mode(&applied));
        }
        change.after = Some(after);
        change
    }

    /// The planned value of a new object: computed attributes are unknown, markers are written with the
    /// object.
    fn diff_create(
        &self,
        res: &Resource,
        address: &InstanceAddress,
        schema: &ResourceTypeSchema,
        desired: BTreeMap<String, Value>,
        configured: &BTreeMap<String, Value>,
    ) -> BTreeMap<String, Value> {
        let mut after = desired;
        // What the live system chooses when unset (a minted name, the default VPC) is known after apply.
        for attr in schema.attributes.values() {
            if attr.is_optional_computed() && !after.contains_key(&attr.name) {
                after.insert(attr.name.clone(), Value::Unknown(attr.value_type.clone()));
            }
        }
        if schema.taggable {
            self.insert_tags(
                &mut after,
                self.new_object_tags(res, address, configured),
                false,
            );
        }
        after
    }

    /// The `tags` and `tags_all` a new object of `address` is given, as values.
    fn new_object_tags(
        &self,
        res: &Resource,
        address: &InstanceAddress,
        configured: &BTreeMap<String, Value>,
    ) -> TagSides {
        let (tags, _) =
            self.desired_tags(address, configured.get(TAGS_ALL), None, &BTreeSet::new());
        self.planned_tag_sides(res, &tags, configured, None, &BTreeSet::new())
    }

    /// Sets `tags` and `tags_all` of one side of a change. Unset `tags` is left out of a new object
    /// (as the plan text shows no null attribute of a create) and null on the other side of a change.
    fn insert_tags(&self, side: &mut BTreeMap<String, Value>, tags: TagSides, existing: bool) {
        match (tags.tags, existing) {
            (Some(t), _) => side.insert("tags".to_owned(), t),
            (None, true) => side.insert("tags".to_owned(), Value::Null),
            (None, false) => side.remove("tags"),
        };
        side.insert(TAGS_ALL.to_owned(), tags.all);
    }

    /// The attributes but the tags of an existing object, before and after, with the changed and forcing
    /// ones noted on `change`: a computed attribute keeps what the object (or its residue) has, an ignored
    /// one what the object has, and a residue attribute is compared with its residue.
    fn diff_attributes(
        &self,
        change: &mut ResourceChange,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
        ignored: &Ignored,
        prior: &LiveObject,
    ) -> (BTreeMap<String, Value>, BTreeMap<String, Value>) {
        let mut before = prior.attributes.clone();
        before.remove("id");
        before.insert("id".to_owned(), Value::from(prior.id.clone()));
        let mut after = BTreeMap::new();
        for (name, attr) in &schema.attributes {
            if name == "tags" || name == TAGS_ALL {
                continue;
            }
            let live = prior.attribute(name).cloned();
            if matches!(attr.mode, AttributeMode::Computed) {
                if let Some(v) = live {
                    after.insert(name.clone(), v);
                } else if attr.residue
                    && let Some(v) = self.residue_value(&change.address, name)
                {
                    after.insert(name.clone(), v.mark_sensitive_if(attr.sensitive));
                }
                continue;
            }
            let Some(mut want) = desired.get(name).cloned() else {
                // Unset, what the live system chose (or the object's entries of an inline set) stays:
                // it is not managed.
                if let (true, Some(v)) = (attr.is_optional_computed() || attr.is_block(), live) {
                    after.insert(name.clone(), v);
                }
                continue;
            };
            let have = if attr.residue {
                self.residue_value(&change.address, name)
                    .or_else(|| attr.default_in(&self.region_of(&change.address)))
                    .unwrap_or(Value::Null)
            } else {
                live.clone().unwrap_or(Value::Null)
            };
            if attr.residue {
                before.insert(name.clone(), have.clone());
            }
            if ignored.attributes.contains(name) {
                after.insert(name.clone(), have);
                continue;
            }
            for path in ignored.nested.get(name).into_iter().flatten() {
                keep_live(&mut want, &have, path);
            }
            if !attr.values_match(&want, &have) {
                change.changed.push(name.clone());
                if attr.force_new {
                    change.forces.push(name.clone());
                }
                change
                    .set_removals
                    .extend(set_removals(name, attr, &want, &have));
            }
            after.insert(name.clone(), want);
        }
        hide_sensitive_attributes(schema, desired, &mut before, &mut after);
        (before, after)
    }

    /// The tags of an existing object, before and after (`tags` and `tags_all`), with their change noted
    /// on `change`. `tags_all` changes with the tags the object carries; `tags` also changes where the
    /// configured map differs from the live one (a default tag's change is a change of `tags_all` alone).
    fn diff_tags(
        &self,
        res: &Resource,
        change: &mut ResourceChange,
        configured: &BTreeMap<String, Value>,
        prior: &LiveObject,
        ignored: &Ignored,
    ) -> (TagSides, TagSides) {
        let (tags, tag_change) = self.desired_tags(
            &change.address,
            configured.get(TAGS_ALL),
            Some(&prior.tags),
            &ignored.tags,
        );
        let live = self.live_tag_sides(
            res,
            &prior.tags,
            configured.get("tags"),
            configured.get(TAGS_ALL),
        );
        let planned = self.planned_tag_sides(res, &tags, configured, Some(&live), &ignored.tags);
        // A tag whose value is known only after apply is a change too: apply sets it then.
        let unknown = tags.values().any(Value::is_unknown);
        let all_changed = !tag_change.is_empty() || unknown;
        if all_changed && tags_differ(live.tags.as_ref(), planned.tags.as_ref()) {
            change.changed.push("tags".to_owned());
        }
        if all_changed {
            change.changed.push(TAGS_ALL.to_owned());
        }
        change.tag_change = tag_change;
        (live, planned)
    }

    /// The action of a change to an existing object: a replace when an attribute forces it (the new
    /// object's computed attributes unknown again), an update when anything changes (a marker repair
    /// when only markers do), nothing otherwise.
    fn decide_action(
        &self,
        res: &Resource,
        change: &mut ResourceChange,
        after: &mut BTreeMap<String, Value>,
        schema: &ResourceTypeSchema,
        configured: &BTreeMap<String, Value>,
        order: ReplaceOrder,
    ) {
        let requested = self.options.replace.contains(&change.address);
        if !change.forces.is_empty() || requested {
            change.action = Action::Replace;
            change.replace_order = Some(order);
            change.reason = Some(if change.forces.is_empty() {
                "replacement requested with -replace".to_owned()
            } else {
                format!("{} forces replacement", change.forces.join(", "))
            });
            for (name, attr) in &schema.attributes {
                // What the live system chooses, and the entries of an unset inline set, are the new
                // object's own.
                let chosen = (attr.is_optional_computed() || attr.is_block())
                    && !configured.contains_key(name);
                if matches!(attr.mode, AttributeMode::Computed) || chosen {
                    after.insert(name.clone(), Value::Unknown(attr.value_type.clone()));
                }
            }
            if schema.taggable {
                let tags = self.new_object_tags(res, &change.address, configured);
                self.insert_tags(after, tags, true);
            }
        } else if !change.changed.is_empty() {
            change.action = Action::Update;
            let unknown_tags = after
                .get(TAGS_ALL)
                .and_then(Value::as_map)
                .into_iter()
                .flatten()
                .filter(|(_, v)| v.is_unknown())
                .map(|(k, _)| k);
            let only_markers = change.changed == [TAGS_ALL]
                && change
                    .tag_change
                    .set
                    .keys()
                    .chain(change.tag_change.remove.iter())
                    .chain(unknown_tags)
                    .all(|k| marker::is_marker_key(k));
            if only_markers {
                change.reason = Some("marker repair".to_owned());
            }
        } else {
            change.action = Action::NoOp;
        }
    }

    fn residue_value(&self, address: &InstanceAddress, name: &str) -> Option<Value> {
        self.residue.get(address).and_then(|r| r.get(name)).cloned()
    }
}
