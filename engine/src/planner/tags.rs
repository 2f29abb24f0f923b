//! The tags a plan gives an object: the configured ones, the estate's markers laid over them, and the
//! ignored keys kept as the object has them; the split of those tags into `tags` and `tags_all` that
//! the plan shows; and tags as plan values.
//!
//! `tags_all` is every tag the object carries or will carry (markers included, keys the provider
//! configuration's `ignore_tags` names left out, as the AWS provider v5 reads them); `tags` is the
//! configured map after, and before the live tags without the markers, the ignored keys and the keys
//! of default tags the resource does not set itself. Markers always come from [`admission::marker`];
//! this module must never invent a marker key.

use std::collections::{BTreeMap, BTreeSet};

use admission::marker;
use admission::{IgnoredTags, InstanceAddress, Resource, Value};
use provider::TagChange;

use super::evaluate::Planner;

/// The `tags` and `tags_all` of one side of a change, as plan values.
pub(super) struct TagSides {
    /// `tags`: `None` where the configuration sets none (and nothing keeps live ones).
    pub tags: Option<Value>,
    /// `tags_all`.
    pub all: Value,
}

impl Planner<'_> {
    /// The desired tags of an instance (a configured value not known before apply stays unknown) and the
    /// tag change from `live` to the known ones. Apply sets the unknown ones once their values are known.
    /// For an existing object (`live`), a tag key in `ignored` keeps what the object has, present or absent;
    /// a new object takes the configured value.
    pub(super) fn desired_tags(
        &self,
        address: &InstanceAddress,
        configured: Option<&Value>,
        live: Option<&BTreeMap<String, String>>,
        ignored: &BTreeSet<String>,
    ) -> (BTreeMap<String, Value>, TagChange) {
        let Some(estate) = &self.estate else {
            return (BTreeMap::new(), TagChange::default());
        };
        let slot = self.slots.get(address).copied();
        // An existing object keeps an address marker written in an older grammar that still binds it; only
        // a wrong marker is repaired, and new objects always get the current grammar.
        let markers = match live.and_then(|l| marker::older_form(address, l)) {
            Some(old) => marker::marker_tags_for(estate, &old, slot),
            None => marker::marker_tags(estate, address, slot),
        }
        .unwrap_or_default();
        let empty = BTreeMap::new();
        let existing = live.is_some();
        let live = live.unwrap_or(&empty);
        let mut desired: BTreeMap<String, Value> = match configured.map(Value::peel) {
            Some(Value::Map(m)) => m.iter().map(|(k, v)| (k.clone(), tag_value(v))).collect(),
            _ => text_values(&marker::non_marker_tags(live)),
        };
        // Markers are never ignored (lint refuses it); they are laid over the ignored keys below anyway.
        for key in ignored.iter().filter(|_| existing) {
            match live.get(key) {
                Some(v) => desired.insert(key.clone(), Value::from(v.clone())),
                None => desired.remove(key),
            };
        }
        desired.extend(text_values(&markers));
        let set = desired
            .iter()
            .filter_map(|(k, v)| Some((k, v.as_str()?)))
            .filter(|(k, v)| live.get(*k).map(String::as_str) != Some(*v))
            .map(|(k, v)| (k.clone(), v.to_owned()))
            .collect();
        let remove = live
            .keys()
            .filter(|k| !desired.contains_key(*k))
            .cloned()
            .collect();
        (desired, TagChange { set, remove })
    }

    /// The live tags of an object of `res` as the plan shows them before: `tags_all` without the keys
    /// `ignore_tags` names, and `tags` without the markers and the keys of the default tags that the
    /// resource's own `tags` does not set. A key of the default tags holds the default's value once
    /// applied; liveplan keeps no earlier default to compare with, so a live value that differs (the
    /// default changed, or drift) is shown as a change of `tags_all` alone.
    pub(super) fn live_tag_sides(
        &self,
        res: &Resource,
        live: &BTreeMap<String, String>,
        own: Option<&Value>,
        all_configured: Option<&Value>,
    ) -> TagSides {
        let ignored = self.provider_settings.ignored_of(res);
        let defaults = self.provider_settings.default_keys_of(res);
        let own_keys = own.and_then(|o| o.peel().as_map());
        let visible = visible_tags(&text_values(live), &ignored);
        let tags: BTreeMap<String, Value> = visible
            .iter()
            .filter(|(k, _)| !marker::is_marker_key(k))
            .filter(|(k, _)| own_keys.is_some_and(|m| m.contains_key(*k)) || !defaults.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        TagSides {
            tags: Some(tags_value(&tags, own)),
            all: tags_value(&visible, all_configured),
        }
    }

    /// The tags an object of `res` is planned to carry, as the plan shows them after: `tags_all` is
    /// `all` (the desired tags, markers included) without the keys `ignore_tags` names; `tags` is the
    /// configured map, where a key `ignore_changes` names keeps what `before` (the live `tags`) has,
    /// and, when `tags` is not managed at all, the live `tags`.
    pub(super) fn planned_tag_sides(
        &self,
        res: &Resource,
        all: &BTreeMap<String, Value>,
        configured: &BTreeMap<String, Value>,
        before: Option<&TagSides>,
        ignored_keys: &BTreeSet<String>,
    ) -> TagSides {
        let own = configured.get("tags");
        let all_configured = configured.get(provider::schema::TAGS_ALL);
        let ignored = self.provider_settings.ignored_of(res);
        let all = tags_value(&visible_tags(all, &ignored), all_configured);
        let before_tags = before.and_then(|b| b.tags.as_ref());
        if all_configured.is_none() {
            // Not managed: the object keeps the non-marker tags it has.
            return TagSides {
                tags: before_tags.cloned(),
                all,
            };
        }
        let mut tags: Option<BTreeMap<String, Value>> = match own.map(Value::peel) {
            Some(Value::Map(m)) => Some(m.iter().map(|(k, v)| (k.clone(), tag_value(v))).collect()),
            // Unknown as a whole: shown as it is.
            Some(other) => {
                return TagSides {
                    tags: Some(
                        other
                            .clone()
                            .mark_sensitive_if(own.is_some_and(Value::is_sensitive)),
                    ),
                    all,
                };
            }
            None => None,
        };
        let kept = before_tags.and_then(Value::as_map);
        for key in ignored_keys.iter().filter(|_| before.is_some()) {
            match kept.and_then(|m| m.get(key)) {
                Some(v) => {
                    tags.get_or_insert_with(BTreeMap::new)
                        .insert(key.clone(), v.peel().clone());
                }
                None => {
                    if let Some(t) = tags.as_mut() {
                        t.remove(key);
                    }
                }
            }
        }
        TagSides {
            tags: tags.map(|t| tags_value(&t, own)),
            all,
        }
    }
}

/// The tags without the keys `ignore_tags` names (never a marker).
fn visible_tags(tags: &BTreeMap<String, Value>, ignored: &IgnoredTags) -> BTreeMap<String, Value> {
    tags.iter()
        .filter(|(k, _)| !ignored.ignores(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Whether two `tags` values differ, an unset map being the same as an empty one (marks ignored, an
/// unknown always a difference).
pub(super) fn tags_differ(a: Option<&Value>, b: Option<&Value>) -> bool {
    let empty = Value::empty_map();
    let norm = |v: Option<&Value>| match v {
        None | Some(Value::Null) => empty.clone(),
        Some(v) => v.clone(),
    };
    !norm(a).same_as(&norm(b))
}

/// Tags as a value, each marked sensitive where the configuration's value for its key is, so that a secret
/// written into a tag is never shown. A configured map that is sensitive as a whole (a sensitive map, or a
/// map with a key computed from a secret) hides the tags whole, keys included: a key may be the secret.
pub(super) fn tags_value(tags: &BTreeMap<String, Value>, configured: Option<&Value>) -> Value {
    let all = configured.is_some_and(Value::is_sensitive);
    let marked = |k: &str| {
        configured
            .and_then(|c| c.peel().as_map())
            .and_then(|m| m.get(k))
            .is_some_and(Value::contains_sensitive)
    };
    let value = Value::Map(
        tags.iter()
            .map(|(k, v)| (k.clone(), v.clone().mark_sensitive_if(!all && marked(k))))
            .collect(),
    );
    value.mark_sensitive_if(all)
}

/// A configured tag value as the text the tag will hold: a string as it is, a number or a bool as
/// Terraform converts it for `map(string)` (`5` is `"5"`). A value known only after apply stays unknown,
/// so that the plan shows it as such and apply writes the value, never a placeholder.
pub(crate) fn tag_value(v: &Value) -> Value {
    match v.peel() {
        Value::String(s) => Value::from(s.clone()),
        other if !other.is_known() => Value::Unknown(admission::Type::String),
        other => Value::from(other.to_string()),
    }
}

/// Tag texts as values.
pub(super) fn text_values(tags: &BTreeMap<String, String>) -> BTreeMap<String, Value> {
    tags.iter()
        .map(|(k, v)| (k.clone(), Value::from(v.clone())))
        .collect()
}

/// Tag texts as a map value.
pub(super) fn string_map(tags: &BTreeMap<String, String>) -> Value {
    Value::Map(text_values(tags))
}
