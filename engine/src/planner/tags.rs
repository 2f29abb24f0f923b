//! The tags a plan gives an object: the configured ones, the estate's markers laid over them, and the
//! ignored keys kept as the object has them; and tags as plan values.
//!
//! Markers always come from [`admission::marker`]; this module must never invent a marker key.

use std::collections::{BTreeMap, BTreeSet};

use admission::marker;
use admission::{InstanceAddress, Value};
use provider::TagChange;

use super::evaluate::Planner;

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
