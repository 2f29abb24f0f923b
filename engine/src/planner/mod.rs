//! Planning: the configuration evaluated into desired instances, the live system read into a prior state by
//! the projection, and the two diffed into a [`Plan`].
//!
//! The planner hands `projection` a plain [`Declared`](projection::Declared) model of the declared
//! instances (static identity values, parents named by address, bind-candidate and content values), takes
//! back the [`Projection`] (bindings, slots, residue, reports, records), then evaluates every instance in
//! dependency order with unknowns for values of resources not yet applied and diffs it against its bound
//! object. Planning never writes: not to the cloud, not to the store.
//!
//! - `declared`: the declared model the projection reads.
//! - `evaluate`: the planner, block after block in dependency order.
//! - `diff`: one instance's change against its bound object.
//! - `tags`: the desired tags, markers included.
//! - `removals`: deletes of undeclared, surplus and deposed objects.
//! - `reports`: what the plan takes from the projection besides bindings.
//! - `slot_marks`: the slot high-water marks an apply raises before it changes anything.

pub(crate) mod conditions;
mod declared;
mod diff;
mod evaluate;
mod options;
mod regional;
mod removals;
mod reports;
mod slot_marks;
mod tags;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use admission::Config;
use admission::ExpandedInstance;
use admission::marker::Estate;
use admission::{BlockAddress, Diagnostic, InstanceAddress, Value};
use projection::{Projection, ProjectionConfig, RetryConfig};
use provider::TagChange;
use provider::{AdmissionPath, Catalog, LiveObject, Provider};
use staterecord::{CacheScope, Store};

use crate::model::{Action, Plan, PlanContext, ResourceChange, WithheldChange};
use evaluate::Planner;
use reports::Projected;

pub(crate) use declared::{declared_model, declared_model_of};
pub use options::{PlanMode, PlanOptions, Target};
pub(crate) use tags::tag_value;

/// What to plan: the configuration files, the variable inputs, the estate flag and how to read (the
/// [`Engine`](crate::Engine)'s settings).
#[derive(Debug, Clone)]
pub(crate) struct PlanRequest<'a> {
    /// The configuration files, the variable inputs, the estate named from outside and the module
    /// context.
    pub sources: admission::Sources<'a>,
    /// The mode, the instances to replace and the targets.
    pub options: PlanOptions,
    /// How reads are retried (discovery wraps the provider in one retrying decorator built from it).
    pub retry: RetryConfig,
    /// Reads in flight during discovery (`--read-concurrency`).
    pub read_concurrency: usize,
    /// The record key prefix (empty, or ending with `/`).
    pub key_prefix: &'a str,
    /// Where "now" is read: for the age of create intents, and the time of the intents adopt and mv
    /// write.
    pub clock: Arc<dyn crate::Clock>,
}

/// How a request's projection reads: the same for a plan and for the checks of an adoption, so that
/// both see the live system alike.
pub(crate) fn projection_config(request: &PlanRequest<'_>) -> ProjectionConfig {
    ProjectionConfig {
        read_concurrency: request.read_concurrency.max(1),
        retry: request.retry.clone(),
        now: request.clock.unix_secs(),
        key_prefix: request.key_prefix.to_owned(),
    }
}

/// Plans: parses and lints the configuration against `catalog` (every type known), projects the live
/// system and the estate's records (one bulk trip through a run cache of its own), and diffs. Writes
/// nothing anywhere.
#[tracing::instrument(skip_all, fields(estate = tracing::field::Empty), err)]
pub(crate) async fn plan(
    request: &PlanRequest<'_>,
    provider: &dyn Provider,
    catalog: &Catalog,
    store: Arc<dyn Store>,
) -> Result<Plan, crate::Error> {
    // `plantimestamp()` is the time this plan started, unless the caller fixed it.
    let module = match request.sources.module {
        Some(m) if m.plan_timestamp.is_some() => m.clone(),
        given => given
            .cloned()
            .unwrap_or_default()
            .with_plan_timestamp(crate::clock::rfc3339(request.clock.now())),
    };
    let (config, mut linted, data) = crate::data::check_with_data(
        &request.sources.with_module(&module),
        catalog,
        provider,
        &request.retry,
    )
    .await;
    if request.options.mode == PlanMode::Destroy {
        // Nothing declared: every owned object is planned for deletion as no longer declared.
        linted.instances.clear();
    }
    let (variables, _) = admission::resolve_variables(&config, request.sources.inputs);
    let region = provider.region();
    let estate_name = linted.estate.clone().unwrap_or_default();
    // Known only once the configuration is read: the span names it from here on.
    tracing::Span::current().record("estate", estate_name.as_str());
    let estate = Estate::new(estate_name.clone()).ok();
    let blocks = block_members(&linted.instances);
    let mut planner = Planner::new(
        &blocks,
        &config,
        &variables,
        catalog,
        region.clone(),
        estate.clone(),
        &linted.instances,
    );
    planner.options = request.options.clone();
    let mut projected: Option<Projection> = None;
    if let (false, Some(estate)) = (linted.has_errors(), &estate) {
        let keys = projection::RecordKeys::new(request.key_prefix, estate)?;
        let cache = CacheScope::new().cache(store, keys.prefix());
        let settings = admission::ProviderSettings::of(&config, &variables);
        let regional = regional::RegionalRequest {
            config: &config,
            variables: &variables,
            catalog,
            instances: &linted.instances,
            settings: &settings,
            estate,
            projection: &projection_config(request),
        };
        let mut p = match regional::project_regions(&regional, provider, &cache).await? {
            Ok(p) => p,
            Err(unreachable) => {
                let mut diagnostics = linted.diagnostics;
                diagnostics.push(unreachable);
                return Ok(Plan::of_diagnostics(estate_name, diagnostics));
            }
        };
        // The data sources were read before the lint: their attempts are part of this plan's cost.
        for (operation, n) in data.counts.snapshot() {
            p.cost.api_calls += n;
            *p.cost.api_calls_by_operation.entry(operation).or_default() += n;
        }
        planner.absorb(&mut p);
        planner.evaluate();
        planner.top_conditions();
        planner.removals(&p);
        planner.restrict_to_targets();
        projected = Some(p);
    }
    let Planner {
        diagnostics: found,
        changes,
        bound,
        withheld,
        ..
    } = planner;
    let projected = match projected {
        Some(p) => Projected::of(p, &region),
        None => {
            // No discovery ran (the lint found errors, a failed data read among them): the data
            // sources' attempts are this plan's whole cost.
            let mut none = Projected::default();
            for (operation, n) in data.counts.snapshot() {
                none.cost.api_calls += n;
                *none
                    .cost
                    .api_calls_by_operation
                    .entry(operation)
                    .or_default() += n;
            }
            none
        }
    };
    let mut diagnostics = linted.diagnostics;
    diagnostics.extend(found);
    let planned = Planned {
        estate: estate_name,
        config,
        variables,
        catalog: catalog.clone(),
        region,
        instances: linted.instances,
        blocks,
        diagnostics,
        changes,
        withheld: withheld.into_values().collect(),
        bound,
        destroy: request.options.mode == PlanMode::Destroy,
        targeted: !request.options.targets.is_empty(),
    };
    Ok(assemble_plan(planned, projected, request.key_prefix))
}

/// The declared instances of each block, in address order.
fn block_members(instances: &[ExpandedInstance]) -> BTreeMap<BlockAddress, Vec<InstanceAddress>> {
    let mut blocks: BTreeMap<BlockAddress, Vec<InstanceAddress>> = BTreeMap::new();
    for d in instances {
        blocks
            .entry(d.address.block().clone())
            .or_default()
            .push(d.address.clone());
    }
    blocks
}

/// What planning worked out from the configuration, before the projection's findings join it.
struct Planned {
    estate: String,
    config: Config,
    variables: BTreeMap<String, Value>,
    catalog: Catalog,
    region: String,
    instances: Vec<ExpandedInstance>,
    blocks: BTreeMap<BlockAddress, Vec<InstanceAddress>>,
    /// The lint's and the planner's diagnostics, in that order.
    diagnostics: Vec<Diagnostic>,
    changes: Vec<ResourceChange>,
    /// The changes held back, by address.
    withheld: Vec<WithheldChange>,
    /// Instances bound to a live object.
    bound: BTreeMap<InstanceAddress, LiveObject>,
    /// Whether this is a destroy plan (`-destroy`).
    destroy: bool,
    /// Whether `-target` restricted the plan.
    targeted: bool,
}

/// The plan of what the planner and the projection found: changes in address order, diagnostics sorted
/// and without duplicates, and the context apply works from.
fn assemble_plan(planned: Planned, projected: Projected, key_prefix: &str) -> Plan {
    let Planned {
        mut changes,
        mut diagnostics,
        bound,
        ..
    } = planned;
    changes.sort_by_cached_key(ResourceChange::sort_key);
    let settled_intents = settled_intents(&changes, &projected.records, &bound);
    let slot_marks = slot_marks::slot_marks(&changes, &bound, &projected.records);
    diagnostics.extend(projected.diagnostics);
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.summary.cmp(&b.summary))
    });
    diagnostics.dedup();
    let context = PlanContext {
        provider_settings: admission::ProviderSettings::of(&planned.config, &planned.variables),
        config: planned.config,
        variables: planned.variables,
        catalog: planned.catalog,
        region: planned.region,
        priors: bound,
        deposed: projected.deposed,
        declared: planned
            .instances
            .into_iter()
            .map(|d| (d.address, d.repetition))
            .collect(),
        records: projected.records,
        key_prefix: key_prefix.to_owned(),
        stale_deposed: projected.stale_deposed,
        settled_intents,
        slot_marks,
        blocks: planned.blocks,
        destroy: planned.destroy,
        targeted: planned.targeted,
    };
    let report = projected.reports;
    Plan {
        estate: planned.estate,
        changes,
        foreign: report.foreign,
        bind_candidates: report.bind_candidates,
        unowned: report.unowned,
        owned_undeclared: report.owned_undeclared,
        rename_hints: report.rename_hints,
        withheld: planned.withheld,
        diagnostics,
        cost: projected.cost,
        context: Arc::new(context),
    }
}

/// The pending create intents an apply marks done with no change of theirs: an instance with an
/// effective change settles its intent in that change's apply; one bound to an object with none settles
/// it here, with the object's id.
fn settled_intents(
    changes: &[ResourceChange],
    records: &projection::RecordSet,
    bound: &BTreeMap<InstanceAddress, LiveObject>,
) -> Vec<(InstanceAddress, String)> {
    let changed: HashSet<&InstanceAddress> = changes
        .iter()
        .filter(|c| c.action != Action::NoOp)
        .map(|c| &c.address)
        .collect();
    records
        .intents
        .iter()
        .filter(|(a, i)| {
            i.body.state == projection::record::IntentState::Pending && !changed.contains(a)
        })
        .filter_map(|(a, _)| bound.get(a).map(|o| (a.clone(), o.id.clone())))
        .collect()
}

impl ResourceChange {
    /// A change of `address` with nothing but its action and admission path: no values, no reason, no
    /// dependencies. The planner fills in what its kind of change has.
    fn planned(
        address: InstanceAddress,
        action: Action,
        admission: AdmissionPath,
    ) -> ResourceChange {
        ResourceChange {
            address,
            action,
            id: None,
            admission,
            before: None,
            after: None,
            reason: None,
            replace_order: None,
            changed: Vec::new(),
            forces: Vec::new(),
            tag_change: TagChange::default(),
            slot: None,
            deposed: None,
            depends_on: Vec::new(),
            blocks: Vec::new(),
            set_removals: Vec::new(),
            destroy: provider::schema::DestroyMode::Delete,
        }
    }
}
