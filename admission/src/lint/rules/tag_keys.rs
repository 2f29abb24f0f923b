//! The marker-in-config rule: a configuration's `tags` never write a `tofu-*` key, since the engine
//! writes the ownership markers itself.
//!
//! The rule reads the evaluated tags and points at the literal key where there is one.

use crate::config::{Expr, ExprKind, Loc};
use crate::diag::{Code, Diagnostic};
use crate::lint::Lint;
use crate::marker::MARKER_PREFIX;
use crate::value::Value;

impl Lint<'_, '_, '_> {
    /// Marker tags written by hand, in the evaluated `tags`; reported at the literal key when there is one.
    pub(crate) fn tag_keys(&mut self, tags: &Value, address: &str, expr: &Expr) {
        let Some(map) = tags.as_map() else { return };
        for key in map.keys().filter(|k| k.starts_with(MARKER_PREFIX)) {
            let mut loc = &expr.loc;
            expr.walk(&mut |e| {
                if let ExprKind::Object(items) = &e.kind {
                    for (k, _) in items {
                        if k.as_literal_str().as_deref() == Some(key.as_str()) {
                            loc = &k.loc;
                        }
                    }
                }
            });
            let d = marker_in_config(key, address, loc);
            self.push(d);
        }
    }
}

fn marker_in_config(key: &str, address: &str, loc: &Loc) -> Diagnostic {
    Diagnostic::new(
        Code::MarkerInConfig,
        format!("`{address}` sets the tag `{key}`, which is an ownership marker"),
        "remove it: the engine writes the `tofu-*` marker tags itself",
    )
    .with_address(address)
    .at(loc.to_pos())
}
