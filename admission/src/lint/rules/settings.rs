//! The settings rule: every provider setting (region, account checks, default tags, credentials) and
//! every record store setting is known before the live system is read.
//!
//! It judges only static evaluation; it never contacts the provider or the store.

use crate::diag::{Code, Diagnostic};
use crate::eval::Instance;
use crate::lint::Lint;

impl Lint<'_, '_, '_> {
    /// Every `aws` resource uses provider configurations of one region: liveplan plans one region per
    /// estate, so a resource of `provider = aws.west` in another region than the rest is refused (by
    /// name, before anything is read) instead of being planned in the wrong one.
    pub(crate) fn one_region(&mut self) {
        let config = self.input.config;
        let statics = &self.statics;
        let region_of = |wanted: &crate::config::ProviderRef| {
            config
                .providers
                .iter()
                .find(|p| p.reference() == *wanted)
                .and_then(|p| p.region.as_ref())
                .and_then(|a| statics.eval(&a.expr, &Instance::Single).ok())
                .and_then(|v| v.peel().as_str().map(str::to_owned))
        };
        let regions: Vec<_> = config
            .resources()
            .iter()
            .filter(|r| r.type_name.starts_with("aws_"))
            .map(|r| (r, region_of(&r.provider_ref())))
            .collect();
        let mut first: Option<(String, Option<String>)> = None;
        for (res, region) in regions {
            let wanted = res.provider_ref();
            match &first {
                None => first = Some((res.address().to_string(), region)),
                Some((_, r)) if *r == region => {}
                Some((other, r)) => {
                    let shown = |r: &Option<String>| {
                        r.as_deref()
                            .map_or("the environment's region".to_owned(), |r| format!("{r:?}"))
                    };
                    let loc = res.provider.as_ref().map_or(&res.loc, |(_, l)| l);
                    self.push(
                        Diagnostic::new(
                            Code::UnsupportedConstruct,
                            format!(
                                "`{}` uses `provider = {wanted}` in {}, and `{other}` a configuration in {}",
                                res.address(),
                                shown(&region),
                                shown(r)
                            ),
                            "liveplan plans one region per estate: give every resource a provider \
                             configuration of one region, and keep another region in an estate of its own",
                        )
                        .with_address(res.address().to_string())
                        .at(loc.to_pos()),
                    );
                }
            }
        }
    }

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
