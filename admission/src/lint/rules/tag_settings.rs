//! The rules on the tag settings of `provider "aws"` blocks: `default_tags` never write a `tofu-*` key
//! (`marker-in-config`, as a resource's `tags`), and an `ignore_tags` key or prefix that covers the
//! estate's ownership markers is the warning `ignore-tags-markers`: the markers stay managed whatever
//! `ignore_tags` says, so the setting keeps working for every other key.
//!
//! It judges the statically evaluated settings only; it never reads the live system.

use crate::config::{Attr, ProviderKind};
use crate::diag::{Code, Diagnostic};
use crate::eval::Instance;
use crate::lint::Lint;
use crate::marker::MARKER_PREFIX;

/// Whether an `ignore_tags` prefix matches some ownership marker key: a prefix of `tofu-` itself, or a
/// longer prefix that starts with it.
fn prefix_covers_markers(prefix: &str) -> bool {
    MARKER_PREFIX.starts_with(prefix) || prefix.starts_with(MARKER_PREFIX)
}

impl Lint<'_, '_, '_> {
    /// The tag settings of every `aws` provider block.
    pub(crate) fn tag_settings(&mut self) {
        let config = self.input.config;
        for block in config
            .providers
            .iter()
            .filter(|p| p.kind == ProviderKind::Aws)
        {
            let reference = block.reference().to_string();
            let defaults = block
                .nested("default_tags")
                .and_then(|b| b.args.get("tags"));
            if let Some(attr) = defaults {
                self.default_tag_keys(attr, &reference);
            }
            let ignore = block.nested("ignore_tags");
            for (arg, is_prefix) in [("keys", false), ("key_prefixes", true)] {
                if let Some(attr) = ignore.and_then(|b| b.args.get(arg)) {
                    self.ignored_markers(attr, &reference, arg, is_prefix);
                }
            }
        }
    }

    /// `default_tags` keys that are markers.
    fn default_tag_keys(&mut self, attr: &Attr, reference: &str) {
        let Ok(v) = self.statics.eval(&attr.expr, &Instance::Single) else {
            return;
        };
        let Some(map) = v.peel().as_map() else { return };
        let keys: Vec<String> = map
            .keys()
            .filter(|k| k.starts_with(MARKER_PREFIX))
            .cloned()
            .collect();
        for key in keys {
            self.push(
                Diagnostic::new(
                    Code::MarkerInConfig,
                    format!(
                        "the default tags of the provider configuration `{reference}` set the tag `{key}`, \
                         which is an ownership marker"
                    ),
                    "remove it: the engine writes the `tofu-*` marker tags itself",
                )
                .at(attr.expr.loc.to_pos()),
            );
        }
    }

    /// `ignore_tags` keys or prefixes that cover markers.
    fn ignored_markers(&mut self, attr: &Attr, reference: &str, arg: &str, is_prefix: bool) {
        let Ok(v) = self.statics.eval(&attr.expr, &Instance::Single) else {
            return;
        };
        let Some(items) = v.peel().as_list().map(<[_]>::to_vec) else {
            return;
        };
        let covering: Vec<String> = items
            .iter()
            .filter_map(|s| s.peel().as_str().map(str::to_owned))
            .filter(|s| {
                if is_prefix {
                    prefix_covers_markers(s)
                } else {
                    s.starts_with(MARKER_PREFIX)
                }
            })
            .collect();
        for item in covering {
            let what = if is_prefix {
                format!("the prefix `{item}`, which covers the ownership markers")
            } else {
                format!("the key `{item}`, which is an ownership marker")
            };
            self.push(
                Diagnostic::new(
                    Code::IgnoreTagsMarkers,
                    format!(
                        "`ignore_tags` of the provider configuration `{reference}` names {what}"
                    ),
                    format!(
                        "the `tofu-*` marker tags are never ignored: liveplan keeps writing and \
                         repairing them; `{arg}` still ignores every other tag it names"
                    ),
                )
                .at(attr.expr.loc.to_pos()),
            );
        }
    }
}
