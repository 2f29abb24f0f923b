//! Regions: which region each instance is planned, discovered and applied in, and the provider of each
//! region a plan or an apply reaches.
//!
//! The region of an instance is its provider configuration's (`provider = aws.west`, else the default
//! configuration of its provider), resolved by [`admission::ProviderSettings`] and nowhere else; a
//! configuration without `region`, and a type of no cloud provider (`random_id`), is in the home region:
//! the region of the provider the engine was built with. The provider of another region is the engine's
//! provider configured with that region alone ([`Provider::configure`]), asked once per operation.
//!
//! Nothing here reads or writes the live system beyond `configure`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use admission::{BlockAddress, Code, Config, Diagnostic, ProviderSettings};
use provider::{Call, Provider, ProviderConfig};

/// The region of the instances of `block`: its provider configuration's, else `home`.
pub(crate) fn region_of_block(
    config: &Config,
    settings: &ProviderSettings,
    home: &str,
    block: &BlockAddress,
) -> String {
    config
        .resource_at(block)
        .map_or_else(|| home.to_owned(), |res| settings.region_of(res, home))
}

/// The providers of the regions beyond the home one, each the engine's provider configured with that
/// region; the home region's is the engine's provider itself.
#[derive(Clone, Default)]
pub(crate) struct RegionProviders {
    others: BTreeMap<String, Arc<dyn Provider>>,
}

impl RegionProviders {
    /// The provider of every region in `regions` beyond `base`'s own, or the diagnostic naming the first
    /// region `base` cannot be configured for.
    pub(crate) async fn open(
        base: &dyn Provider,
        regions: &BTreeSet<String>,
    ) -> Result<RegionProviders, Diagnostic> {
        let home = base.region();
        let mut others = BTreeMap::new();
        for region in regions.iter().filter(|r| **r != home) {
            let config = ProviderConfig::new().with_region(region.clone());
            match base.configure(&Call::unrecorded(), &config).await {
                Ok(Some(provider)) => {
                    others.insert(region.clone(), provider);
                }
                // The provider serves the region as it is.
                Ok(None) => {}
                Err(e) => {
                    return Err(Diagnostic::new(
                        Code::UnsupportedConstruct,
                        format!("the live system cannot be reached in region {region}"),
                        format!(
                            "{e}; a provider configuration names {region}: remove it, or use a live \
                             system that serves several regions"
                        ),
                    ));
                }
            }
        }
        Ok(RegionProviders { others })
    }

    /// The provider of `region`: its own when it has one, else `base`.
    pub(crate) fn get<'a>(&'a self, base: &'a dyn Provider, region: &str) -> &'a dyn Provider {
        self.others.get(region).map_or(base, |p| p.as_ref())
    }

    /// The provider of `region` as an `Arc`: its own when it has one, else `base`.
    pub(crate) fn get_arc(&self, base: &Arc<dyn Provider>, region: &str) -> Arc<dyn Provider> {
        self.others
            .get(region)
            .map_or_else(|| Arc::clone(base), Arc::clone)
    }
}
