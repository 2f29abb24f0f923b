//! The lifecycle rule: `ignore_changes` never names a tag key that holds an ownership marker.
//!
//! `ignore_changes = all`, `tags` and `tags_all` are accepted: they cover the non-marker tags only (the
//! plan keeps the markers managed), as the marker rules require. Naming a marker key itself
//! (`tags["tofu-estate"]`) is refused: it would ask for a marker to drift unseen. This rule only reads the
//! block's `lifecycle`.

use crate::config::{IgnoreChanges, Resource};
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;
use crate::marker::MARKER_PREFIX;

impl Lint<'_, '_, '_> {
    /// `ignore_changes` may not name a marker tag key.
    pub(crate) fn lifecycle(&mut self, res: &Resource) {
        let IgnoreChanges::Paths(paths) = &res.lifecycle.ignore_changes else {
            return;
        };
        let address = res.address().to_string();
        for (path, loc) in paths {
            if let [t, key, ..] = path.as_slice()
                && (t == "tags" || t == "tags_all")
                && key.starts_with(MARKER_PREFIX)
            {
                let d = Diagnostic::new(
                    Code::IgnoreChangesMarkers,
                    format!(
                        "`ignore_changes` covers the marker tag `{key}`, which holds the ownership markers"
                    ),
                    "remove it: the ownership markers are always managed (`ignore_changes = [tags]` \
                     ignores every other tag and keeps the markers)",
                )
                .with_address(&address)
                .at(loc.to_pos());
                self.push(d);
            }
        }
    }
}
