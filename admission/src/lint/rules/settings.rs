//! The settings rule: every provider setting (region, account checks, default tags, credentials) and
//! every record store setting is known before the live system is read.
//!
//! It judges only static evaluation; it never contacts the provider or the store.

use crate::diag::{Code, Diagnostic};
use crate::eval::Instance;
use crate::lint::Lint;

impl Lint<'_, '_, '_> {
    /// The provider region and record store settings must be static.
    pub(crate) fn settings(&mut self) {
        let config = self.input.config;
        let mut attrs = Vec::new();
        for p in &config.providers {
            attrs.extend(p.attrs());
        }
        if let Some(store) = config.live.as_ref().and_then(|l| l.record_store.as_ref()) {
            attrs.extend(store.settings.values());
        }
        for attr in attrs {
            match self.statics.eval(&attr.expr, &Instance::Single) {
                Ok(v) if v.is_known() => {}
                Ok(_) => self.push(
                    Diagnostic::new(
                        Code::UnsupportedConstruct,
                        format!(
                            "`{}` is not known before the live system is read",
                            attr.name
                        ),
                        "compute it from variables, locals and literals only",
                    )
                    .at(attr.expr.loc.to_pos()),
                ),
                Err(e) => self.push(e.into_diagnostic(Code::UnsupportedConstruct)),
            }
        }
    }
}
