//! Discovery across regions: one projection per region a provider configuration names, each of the
//! instances planned in that region, merged into the one projection the planner reads.
//!
//! Every run reads the same records through the plan's one run cache. The merge keeps what is
//! estate-wide estate-wide: an object seen from several regions (an S3 bucket, whose listing is global)
//! is reported once, and never as undeclared when another region's instance is bound to it; an address
//! carried by objects of two regions is a `marker-collision`, planned nowhere. The cost is kept per
//! region beside the sums.
//!
//! It never writes; the single-region plan is exactly one projection, as before.

use std::collections::{BTreeMap, BTreeSet};

use admission::marker::Estate;
use admission::{
    BlockAddress, Code, Config, Diagnostic, ExpandedInstance, ProviderSettings, Value,
};
use projection::{Binding, Projection, ProjectionConfig, UndeclaredAction, Withheld};
use provider::{Catalog, Provider};
use staterecord::Store;

use crate::regions::{RegionProviders, region_of_block};

/// What one plan needs to know to discover across regions.
pub(super) struct RegionalRequest<'a> {
    pub(super) config: &'a Config,
    pub(super) variables: &'a BTreeMap<String, Value>,
    pub(super) catalog: &'a Catalog,
    pub(super) instances: &'a [ExpandedInstance],
    pub(super) settings: &'a ProviderSettings,
    pub(super) estate: &'a Estate,
    pub(super) projection: &'a ProjectionConfig,
}

/// The projection of every region the configuration names, and of every region the estate's record
/// says it wrote to, merged; a diagnostic when a region cannot be reached.
pub(super) async fn project_regions(
    request: &RegionalRequest<'_>,
    provider: &dyn Provider,
    store: &dyn Store,
) -> Result<Result<Projection, Diagnostic>, crate::Error> {
    let home = provider.region();
    // The home region first: its run reads the records (the one trip to the store), which name the
    // regions written to; the other runs read them from the plan's run cache.
    let home_run = project_region(request, provider, store, &home, &home).await?;
    let mut configured = request.settings.regions(request.config, &home);
    configured.remove(&home);
    let dropped: BTreeSet<String> = home_run
        .records
        .regions
        .iter()
        .flat_map(|r| r.body.pairs.iter().map(|p| p.region.clone()))
        .filter(|r| *r != home && !configured.contains(r))
        .collect();
    if configured.is_empty() && dropped.is_empty() {
        return Ok(Ok(home_run));
    }
    let all: BTreeSet<String> = configured.union(&dropped).cloned().collect();
    let providers = match RegionProviders::open(provider, &all).await {
        Ok(p) => p,
        Err(d) => return Ok(Err(d)),
    };
    // Then the other configured regions, then those only the record names: the merge keeps the first
    // report of an object seen from several regions.
    let mut runs = Vec::new();
    let others = configured
        .iter()
        .map(|r| (r, true))
        .chain(dropped.iter().map(|r| (r, false)));
    for (region, reached) in others {
        let regional = providers.get(provider, region);
        let mut p = project_region(request, regional, store, region, &home).await?;
        if !reached {
            unreachable(region, &mut p);
        }
        runs.push((region.clone(), p));
    }
    let mut merged = merge(&home, home_run, runs);
    // An object of a dropped region seen from a reached one (S3's listing is global) is kept too.
    for o in &mut merged.owned_undeclared {
        if o.object
            .as_ref()
            .is_some_and(|obj| dropped.contains(&obj.region))
        {
            o.action = UndeclaredAction::Unreachable;
        }
    }
    Ok(Ok(merged))
}

/// The projection of `region` through `provider`, of the instances planned in it.
async fn project_region(
    request: &RegionalRequest<'_>,
    provider: &dyn Provider,
    store: &dyn Store,
    region: &str,
    home: &str,
) -> Result<Projection, crate::Error> {
    let here = |block: &BlockAddress| {
        region_of_block(request.config, request.settings, home, block) == region
    };
    let instances: Vec<ExpandedInstance> = request
        .instances
        .iter()
        .filter(|d| here(d.address.block()))
        .cloned()
        .collect();
    let declared = super::declared_model_of(
        request.config,
        request.variables,
        request.catalog,
        &instances,
        region,
        &here,
    )?;
    Ok(projection::project(
        provider,
        request.catalog,
        store,
        request.estate,
        &declared,
        request.projection,
    )
    .await?)
}

/// The projection of a region the estate wrote to that no provider configuration names: its owned
/// objects are reported and kept, with an error naming the region (as Terraform refuses to plan an
/// object whose provider configuration was removed).
fn unreachable(region: &str, p: &mut Projection) {
    // A record-backed object is the home region's; an object of another region (seen through a global
    // listing) is that region's business.
    p.owned_undeclared
        .retain(|o| o.object.as_ref().is_some_and(|obj| obj.region == region));
    for o in &mut p.owned_undeclared {
        o.action = UndeclaredAction::Unreachable;
    }
    if p.owned_undeclared.is_empty() {
        return;
    }
    let addresses: Vec<String> = p
        .owned_undeclared
        .iter()
        .map(|o| o.address.to_string())
        .collect();
    p.diagnostics.push(
        Diagnostic::new(
            Code::RegionNotConfigured,
            format!(
                "this estate owns objects in {region}, which no provider configuration names any more: {}",
                addresses.join(", ")
            ),
            format!(
                "to delete them, declare a provider configuration for {region} (`provider \"aws\" {{ \
                 alias = \"...\", region = \"{region}\" }}`) and apply; to keep them, declare their \
                 blocks again with that configuration"
            ),
        )
        .with_ids(p.owned_undeclared.iter().map(|o| o.id.clone())),
    );
}

/// The projections of several regions as one: the home region's records and estate, every region's
/// instances and reports, the estate-wide rules kept.
fn merge(home: &str, mut merged: Projection, others: Vec<(String, Projection)>) -> Projection {
    let first_region = home.to_owned();
    let mut by_region: BTreeMap<String, u64> =
        BTreeMap::from([(first_region, merged.cost.api_calls)]);
    let mut deposed_present: BTreeSet<(String, String)> = merged
        .deposed
        .iter()
        .filter(|d| d.present)
        .map(|d| (d.type_name.clone(), d.id.clone()))
        .collect();
    for (region, p) in others {
        by_region.insert(region.clone(), p.cost.api_calls);
        merged.instances.extend(p.instances);
        merged.foreign.extend(p.foreign);
        merged.bind_candidates.extend(p.bind_candidates);
        merged.ambiguous_candidates.extend(p.ambiguous_candidates);
        merged.unowned.extend(p.unowned);
        merged.owned_undeclared.extend(p.owned_undeclared);
        merged.rename_hints.extend(p.rename_hints);
        deposed_present.extend(
            p.deposed
                .iter()
                .filter(|d| d.present)
                .map(|d| (d.type_name.clone(), d.id.clone())),
        );
        merged.deposed.extend(p.deposed);
        for (estate, n) in p.other_estates {
            *merged.other_estates.entry(estate).or_default() += n;
        }
        merged.withheld_types.extend(p.withheld_types);
        merged.diagnostics.extend(p.diagnostics);
        merged.cost.api_calls += p.cost.api_calls;
        for (operation, n) in p.cost.api_calls_by_operation {
            *merged
                .cost
                .api_calls_by_operation
                .entry(operation)
                .or_default() += n;
        }
        // The records were read once, by the home region's run: the others read its cache.
    }
    merged.region = home.to_owned();
    merged.cost.api_calls_by_region = by_region;
    // A deposed object one region's read found is present, whatever the other regions' reads said.
    for d in &mut merged.deposed {
        d.present = d.present || deposed_present.contains(&(d.type_name.clone(), d.id.clone()));
    }
    merged.deposed.sort();
    merged.deposed.dedup();
    estate_wide(&mut merged);
    merged
}

/// The rules that hold across regions: an object seen from several regions is one object, and an
/// address is carried by one object of the estate.
fn estate_wide(merged: &mut Projection) {
    let bound: BTreeSet<(String, String)> = merged
        .instances
        .values()
        .filter_map(|s| s.binding.object())
        .map(|o| (o.type_name.clone(), o.id.clone()))
        .collect();
    let mut seen = BTreeSet::new();
    merged.owned_undeclared.retain(|o| {
        let key = (o.type_name.clone(), o.id.clone());
        !bound.contains(&key) && seen.insert(key)
    });
    let mut collisions = Vec::new();
    merged.owned_undeclared.retain(|o| {
        let Some(state) = merged.instances.get_mut(&o.address) else {
            return true;
        };
        // A record-backed object is the home region's, seen again by every other region's run.
        if o.object.is_none() {
            return false;
        }
        let other = state.binding.object().map(|b| b.id.clone());
        state.binding = Binding::Withheld(Withheld::Collision);
        collisions.push((o.address.clone(), o.id.clone(), other, o.object.clone()));
        false
    });
    for (address, id, other, object) in collisions {
        let region = object.map(|o| o.region).unwrap_or_default();
        let ids: Vec<String> = std::iter::once(id).chain(other).collect();
        merged.diagnostics.push(
            Diagnostic::new(
                Code::MarkerCollision,
                format!(
                    "{address} is declared in one region, and an object of this estate in {region} \
                     carries its address"
                ),
                "an address is one object of the estate, whatever its region: liveplan does not move \
                 an object between regions; give the instance its old provider configuration back, or \
                 give it another address and let the old one be deleted",
            )
            .with_address(address.to_string())
            .with_ids(ids),
        );
    }
    merged.foreign.sort();
    merged.foreign.dedup();
    merged.bind_candidates.sort();
    merged.bind_candidates.dedup();
    merged.ambiguous_candidates.sort();
    merged.ambiguous_candidates.dedup();
    merged.unowned.sort();
    merged.unowned.dedup();
    merged
        .owned_undeclared
        .sort_by(|a, b| (&a.address, &a.id).cmp(&(&b.address, &b.id)));
    merged
        .rename_hints
        .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    merged.diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.summary.cmp(&b.summary))
    });
    merged.diagnostics.dedup();
}
