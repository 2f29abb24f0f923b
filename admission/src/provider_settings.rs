//! The settings of each provider configuration, evaluated: its `region` (the region each resource is
//! planned and applied in), `default_tags { tags = {...} }` and `ignore_tags { keys, key_prefixes }`,
//! and how they make a resource's `tags_all` from its `tags`.
//!
//! As in the AWS provider: once a configuration has default tags or a resource sets `tags`, the
//! object's non-marker tags (`tags_all` without the markers) are exactly the default tags merged with
//! its own (its own win), minus the ignored keys; with neither, its non-marker tags are not managed.
//! Ignored keys are neither set nor removed, and keep what the object has. The estate's markers are
//! never default, never ignored: the planner lays them over whatever this gives.
//!
//! The settings are static (the lint refuses any that read a resource), so they are evaluated once.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{Config, ProviderKind, ProviderRef, Resource};
use crate::eval::{Evaluator, Instance};
use crate::marker;
use crate::schema::TAGS_ALL;
use crate::value::Value;

/// The argument of a taggable type that holds its configured tags.
const TAGS: &str = "tags";

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

/// The settings of every `aws` provider configuration, by the reference resources pick it with: its
/// tag settings and its region.
///
/// This is the one place a resource's provider configuration is resolved (`provider = aws.west`, else
/// the default configuration of its provider): the planner, the apply and discovery ask it alike.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderSettings {
    tags: BTreeMap<ProviderRef, TagSettings>,
    /// The `region` of each `aws` configuration that sets one.
    regions: BTreeMap<ProviderRef, String>,
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
        let mut regions = BTreeMap::new();
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
            if let Some(region) = eval(block.region.as_ref())
                .and_then(|v| v.peel().as_str().map(str::to_owned))
                .filter(|r| !r.is_empty())
            {
                regions.insert(block.reference(), region);
            }
        }
        ProviderSettings { tags, regions }
    }

    /// The region of the configuration `wanted`: its `region`, else `home` (the region of the live
    /// system as opened, which a configuration without `region` means, as the AWS provider takes the
    /// environment's region).
    pub fn region_of_ref(&self, wanted: &ProviderRef, home: &str) -> String {
        self.regions
            .get(wanted)
            .cloned()
            .unwrap_or_else(|| home.to_owned())
    }

    /// The region `res` is planned, discovered and applied in: its provider configuration's
    /// ([`ProviderSettings::region_of_ref`]); `home` for a type of no cloud provider (`random_id`).
    pub fn region_of(&self, res: &Resource, home: &str) -> String {
        if !res.type_name.starts_with("aws_") {
            return home.to_owned();
        }
        self.region_of_ref(&res.provider_ref(), home)
    }

    /// Every region an `aws` provider configuration of `config` names (a configuration without
    /// `region` names `home`), and `home` itself, sorted.
    pub fn regions(&self, config: &Config, home: &str) -> BTreeSet<String> {
        let mut all: BTreeSet<String> = config
            .providers
            .iter()
            .filter(|p| p.kind == ProviderKind::Aws)
            .map(|p| self.region_of_ref(&p.reference(), home))
            .collect();
        all.insert(home.to_owned());
        all
    }

    /// The tag settings of the configuration `res` uses (`provider = aws.west`, else the default
    /// configuration of its provider); none for a configuration without tag settings.
    pub fn tags_of(&self, res: &Resource) -> Option<&TagSettings> {
        self.tags.get(&res.provider_ref())
    }

    /// Sets `tags_all` in `configured` (the evaluated arguments of one instance of `res`, a taggable
    /// type) to the non-marker tags its object is to carry: the default tags of its provider
    /// configuration merged under its own `tags` (its own win), without the ignored keys. `tags` stays as
    /// configured, but for the ignored keys, which the plan neither sets nor removes. With neither own
    /// tags nor default tags, `tags_all` is left unset: the object's non-marker tags are not managed.
    /// Own tags unknown as a whole (or not a map, which the lint judges) make `tags_all` the same value.
    /// The planner keeps ignored keys as the object has them and lays the markers over.
    pub fn apply(&self, res: &Resource, configured: &mut BTreeMap<String, Value>) {
        let none = TagSettings::default();
        let settings = self.tags_of(res).unwrap_or(&none);
        let own = configured
            .get(TAGS)
            .filter(|v| !v.is_null())
            .cloned()
            .map(|v| match v.as_map() {
                Some(m) => {
                    let sensitive = v.is_sensitive();
                    let mut m = m.clone();
                    m.retain(|k, _| !settings.ignored.ignores(k));
                    Value::Map(m).mark_sensitive_if(sensitive)
                }
                None => v,
            });
        if let Some(own) = &own {
            configured.insert(TAGS.to_owned(), own.clone());
        }
        if own.is_none() && settings.default_tags.is_empty() {
            return;
        }
        let all = match own {
            // Unknown as a whole, or not a map at all: left as it is.
            Some(v) if v.as_map().is_none() => v,
            Some(v) => {
                let sensitive = v.is_sensitive();
                let mut merged = settings.default_tags.clone();
                merged.extend(v.as_map().cloned().unwrap_or_default());
                merged.retain(|k, _| !settings.ignored.ignores(k));
                Value::Map(merged).mark_sensitive_if(sensitive)
            }
            None => {
                let mut merged = settings.default_tags.clone();
                merged.retain(|k, _| !settings.ignored.ignores(k));
                Value::Map(merged)
            }
        };
        configured.insert(TAGS_ALL.to_owned(), all);
    }

    /// What a resource's provider configuration ignores (nothing, without `ignore_tags`).
    pub fn ignored_of(&self, res: &Resource) -> IgnoredTags {
        self.tags_of(res)
            .map(|t| t.ignored.clone())
            .unwrap_or_default()
    }

    /// The keys of the default tags of a resource's provider configuration.
    pub fn default_keys_of(&self, res: &Resource) -> BTreeSet<String> {
        self.tags_of(res)
            .into_iter()
            .flat_map(|t| t.default_tags.keys().cloned())
            .collect()
    }
}
