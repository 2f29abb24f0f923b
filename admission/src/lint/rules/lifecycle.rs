//! The lifecycle rule: `ignore_changes` never covers the tags that hold the ownership markers.
//!
//! Ignoring them would let a marker drift unseen; this rule only reads the block's `lifecycle`.

use crate::config::{IgnoreChanges, Resource};
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;
use crate::marker::MARKER_PREFIX;

impl Lint<'_, '_> {
    /// `ignore_changes` may not cover `tags`, `tags_all`, `all` or a marker tag key.
    pub(crate) fn lifecycle(&mut self, res: &Resource) {
        let address = res.address().to_string();
        let refuse = |what: String, loc: &crate::config::Loc| {
            Diagnostic::new(
                Code::IgnoreChangesMarkers,
                format!("`ignore_changes` covers {what}, which holds the ownership markers"),
                "list the individual non-marker tags to ignore (`tags[\"Name\"]`) instead",
            )
            .with_address(&address)
            .at(loc.to_pos())
        };
        match &res.lifecycle.ignore_changes {
            IgnoreChanges::None => {}
            IgnoreChanges::All(loc) => {
                let d = refuse("`all`".into(), loc);
                self.push(d);
            }
            IgnoreChanges::Paths(paths) => {
                for (path, loc) in paths {
                    let covers = match path.as_slice() {
                        [t] if t == "tags" || t == "tags_all" => Some(format!("`{t}`")),
                        [t, key, ..]
                            if (t == "tags" || t == "tags_all")
                                && key.starts_with(MARKER_PREFIX) =>
                        {
                            Some(format!("the marker tag `{key}`"))
                        }
                        _ => None,
                    };
                    if let Some(what) = covers {
                        let d = refuse(what, loc);
                        self.push(d);
                    }
                }
            }
        }
    }
}
