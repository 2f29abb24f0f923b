//! The tag settings of each provider configuration, evaluated: `default_tags { tags = {...} }` and
//! `ignore_tags { keys, key_prefixes }`, and how they make a resource's configured `tags`.
//!
//! As in the AWS provider: once a configuration has default tags or a resource sets `tags`, the
//! object's non-marker tags are exactly the default tags merged with its own (its own win), minus the
//! ignored keys; with neither, its non-marker tags are not managed. Ignored keys are neither set nor
//! removed, and keep what the object has. The estate's markers are never default, never ignored: the
//! planner lays them over whatever this gives.
//!
//! The settings are static (the lint refuses any that read a resource), so they are evaluated once.

use std::collections::BTreeMap;

use crate::config::{Config, ProviderKind, ProviderRef, Resource};
use crate::eval::{Evaluator, Instance};
use crate::marker;
use crate::value::Value;

/// The keys a provider configuration's `ignore_tags` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IgnoredTags {
    /// Exact keys (`keys`).
    pub keys: Vec<String>,
    /// Key prefixes (`key_prefixes`).
    pub prefixes: Vec<String>,
}

impl IgnoredTags {
    /// Whether the tag `key` is ignored. A marker key never is.
    pub fn ignores(&self, key: &str) -> bool {
        !marker::is_marker_key(key)
            && (self.keys.iter().any(|k| k == key)
                || self.prefixes.iter().any(|p| key.starts_with(p)))
    }

    /// Whether nothing is ignored.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.prefixes.is_empty()
    }
}

/// The tag settings of one provider configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TagSettings {
    /// `default_tags { tags = {...} }`, each value as configured (it may be sensitive).
    pub default_tags: BTreeMap<String, Value>,
    /// `ignore_tags`.
    pub ignored: IgnoredTags,
}

/// The tag settings of every `aws` provider configuration, by the reference resources pick it with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderSettings {
    tags: BTreeMap<ProviderRef, TagSettings>,
}

impl ProviderSettings {
    /// Evaluates the tag settings of every `aws` provider block of `config` (settings that do not
    /// evaluate are left out: the lint reports them).
    pub fn of(config: &Config, variables: &BTreeMap<String, Value>) -> ProviderSettings {
        let ev = Evaluator::new(config, variables);
        let eval = |attr: Option<&crate::config::Attr>| {
            attr.and_then(|a| ev.eval(&a.expr, &Instance::Single).ok())
        };
        let strings = |v: Option<Value>| -> Vec<String> {
            v.as_ref()
                .and_then(|v| v.peel().as_list().map(<[Value]>::to_vec))
                .unwrap_or_default()
                .iter()
                .filter_map(|s| s.peel().as_str().map(str::to_owned))
                .collect()
        };
        let mut tags = BTreeMap::new();
        for block in config
            .providers
            .iter()
            .filter(|p| p.kind == ProviderKind::Aws)
        {
            let default_tags = eval(
                block
                    .nested("default_tags")
                    .and_then(|b| b.args.get("tags")),
            )
            .and_then(|v| match v {
                Value::Map(m) => Some(m),
                Value::Sensitive(inner) => match *inner {
                    Value::Map(m) => Some(
                        m.into_iter()
                            .map(|(k, v)| (k, v.mark_sensitive_if(true)))
                            .collect(),
                    ),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or_default();
            let ignore = block.nested("ignore_tags");
            let ignored = IgnoredTags {
                keys: strings(eval(ignore.and_then(|b| b.args.get("keys")))),
                prefixes: strings(eval(ignore.and_then(|b| b.args.get("key_prefixes")))),
            };
            let settings = TagSettings {
                default_tags,
                ignored,
            };
            if settings != TagSettings::default() {
                tags.insert(block.reference(), settings);
            }
        }
        ProviderSettings { tags }
    }

    /// The tag settings of the configuration `res` uses (`provider = aws.west`, else the default
    /// configuration of its provider); none for a configuration without tag settings.
    pub fn tags_of(&self, res: &Resource) -> Option<&TagSettings> {
        self.tags.get(&res.provider_ref())
    }

    /// Sets the `tags` of `configured` (the evaluated arguments of one instance of `res`, a taggable
    /// type) to what its provider configuration makes of them: the default tags merged under its own,
    /// without ignored keys. Arguments without tags and a configuration without tag settings stay as they
    /// are; tags unknown as a whole stay unknown.
    /// The planner keeps ignored keys as the object has them.
    pub fn apply(&self, res: &Resource, configured: &mut BTreeMap<String, Value>) {
        let Some(settings) = self.tags_of(res) else {
            return;
        };
        let own = configured.remove("tags").filter(|v| !v.is_null());
        if own.is_none() && settings.default_tags.is_empty() {
            return;
        }
        let merged = match own {
            // Unknown as a whole, or not a map at all (the lint judges its type): left as it is.
            Some(v) if v.as_map().is_none() => v,
            Some(v) => {
                let sensitive = v.is_sensitive();
                let own = v.as_map().cloned().unwrap_or_default();
                let mut merged = settings.default_tags.clone();
                merged.extend(own);
                merged.retain(|k, _| !settings.ignored.ignores(k));
                Value::Map(merged).mark_sensitive_if(sensitive)
            }
            None => {
                let mut merged = settings.default_tags.clone();
                merged.retain(|k, _| !settings.ignored.ignores(k));
                Value::Map(merged)
            }
        };
        configured.insert("tags".to_owned(), merged);
    }
}
