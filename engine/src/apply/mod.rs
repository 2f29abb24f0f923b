//! Applying a reviewed plan: its execution graph compiled against the provider and the record store, and
//! executed under a parallelism limit and a cancellation token.
//!
//! Each create writes the instance's create intent before the provider call, and the markers travel with
//! the create itself, so an object never exists unmarked. Desired values are evaluated again as upstream
//! results arrive. Every record write is a compare-and-swap through the record journal; a lost one is
//! `version-conflict`. Every operation reports [`ApplyEvent`]s.
//!
//! - `events`: the events, their terminal and `--json` lines, and the progress ticker.
//! - `eval`: the desired values of an instance and the final plan of its change.
//! - `provider_ops`: create, update and delete, with the records around each call.
//! - `slots`: each count block's slot high-water mark, raised before anything changes.
//! - `turns`: the parallelism limit, held around provider calls only.
//! - `outputs`: the outputs after the apply.
//!
//! This module only dispatches the graph's operations; it never starts a provider call after
//! cancellation, never aborts one in flight, and never writes a record without naming the version it
//! replaces.

mod conditions;
mod eval;
mod events;
mod outputs;
mod provider_ops;
mod slots;
mod turns;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use admission::{BlockAddress, Code, Diagnostic, InstanceAddress, Value};
use async_trait::async_trait;
use execgraph::{
    Applied, Diagnostic as GraphDiagnostic, ExecuteConfig, OpResult, Operations, ValueSource,
};
use provider::schema::ResourceTypeSchema;
use provider::{LiveObject, Provider};
use staterecord::Store;
use tokio_util::sync::CancellationToken;

pub use events::{ApplyEvent, ApplyEventKind, EventSink};

use crate::builtin::ApplyTime;
use crate::clock::Clock;
use crate::graph::{self, EngineFamily, FinalPlan, GraphValue, Meta};
use crate::journal::{RecordJournal, records_seen};
use crate::model::{PlanContext, ResourceChange, ReviewedPlan, WithheldCause, WithheldChange};
use eval::BlockShape;
use projection::record::RecordKeys;
use projection::{RetryConfig, Retrying};
use turns::Turns;

/// How to apply.
#[derive(Clone)]
pub struct ApplyConfig {
    /// Provider operations in flight at once.
    pub parallelism: NonZeroUsize,
    /// Cancelling stops new operations from starting; those in flight finish and write their records.
    pub cancel: CancellationToken,
    /// Where events go, if anywhere.
    pub events: Option<EventSink>,
    /// How often a running operation reports progress.
    pub progress_interval: Duration,
}

impl fmt::Debug for ApplyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApplyConfig")
            .field("parallelism", &self.parallelism)
            .field("events", &self.events.is_some())
            .field("progress_interval", &self.progress_interval)
            .finish_non_exhaustive()
    }
}

impl Default for ApplyConfig {
    fn default() -> Self {
        ApplyConfig {
            parallelism: NonZeroUsize::new(10).unwrap_or(NonZeroUsize::MIN),
            cancel: CancellationToken::new(),
            events: None,
            progress_interval: Duration::from_secs(10),
        }
    }
}

/// What an apply did.
///
/// Its `Debug` shows each object by its id only: live tags carry no sensitivity marks, and a tag may hold a
/// value that came from a sensitive variable.
#[derive(Clone, Default)]
pub struct ApplyOutcome {
    /// Every diagnostic (failed operations, lost compare-and-swaps, cancellation, the changes the plan
    /// withheld), sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The objects after the apply, by instance (`None` for a destroyed instance).
    pub objects: BTreeMap<InstanceAddress, Option<LiveObject>>,
    /// The outputs' values after the apply.
    pub outputs: BTreeMap<String, Value>,
}

impl std::fmt::Debug for ApplyOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let objects: BTreeMap<String, Option<&str>> = self
            .objects
            .iter()
            .map(|(address, object)| (address.to_string(), object.as_ref().map(|o| o.id.as_str())))
            .collect();
        f.debug_struct("ApplyOutcome")
            .field("diagnostics", &self.diagnostics)
            .field("objects", &objects)
            .field("outputs", &self.outputs)
            .finish()
    }
}

impl ApplyOutcome {
    /// Whether every operation succeeded.
    pub fn succeeded(&self) -> bool {
        !self
            .diagnostics
            .iter()
            .any(|d| d.severity() == admission::Severity::Error)
    }
}

fn gdiag(
    code: Code,
    summary: impl Into<String>,
    detail: impl Into<String>,
    address: &InstanceAddress,
) -> GraphDiagnostic {
    GraphDiagnostic::error(code.as_str(), summary, detail).with_address(address)
}

/// The plan does not match what the apply has for `address` (`what`: "has no object to update"): the
/// apply fails there, and planning again is the way out.
fn plan_again(address: &InstanceAddress, what: impl std::fmt::Display) -> GraphDiagnostic {
    gdiag(
        Code::ApplyFailed,
        format!("{address} {what}"),
        "plan again",
        address,
    )
}

/// Applies a reviewed plan through `provider`, writing records to `store` (read past any cache), retrying
/// throttled calls by `retry`, reading the time of day from `clock`.
#[tracing::instrument(skip_all, fields(estate = %plan.plan().estate), err)]
pub(crate) async fn apply(
    plan: &ReviewedPlan,
    provider: Arc<dyn Provider>,
    store: Arc<dyn Store>,
    config: ApplyConfig,
    retry: RetryConfig,
    clock: Arc<dyn Clock>,
) -> Result<ApplyOutcome, crate::Error> {
    let p = plan.plan();
    let graph = graph::build(p).map_err(|e| crate::Error::InvalidGraph(e.to_string()))?;
    let providers = region_providers(p, &provider).await?;
    let mut ops = Executor::new(p, (provider, providers), &store, &config, retry, clock)?;
    // Every record an apply writes is its estate's: on S3 the objects carry the estate's tag, so that one
    // bucket's records can be told apart by estate (lifecycle rules, access policies, cost reports).
    let tags = BTreeMap::from([(admission::marker::ESTATE_TAG.to_owned(), p.estate.clone())]);
    let mut outcome = staterecord::with_object_tags(tags, async {
        // The regions first: no object is created in a region the estate's record does not name, so a
        // region later dropped from the configuration is still swept.
        ops.claim_regions(p).await?;
        // The slots next: no object is given a slot, or loses one, before the mark covers it.
        ops.slot_verdicts = ops.claim_slots().await;
        execute(&graph, Arc::new(ops), &config, &p.withheld).await
    })
    .await?;
    if let Some(warning) = guarantee_warning(store.guarantees()) {
        outcome.diagnostics.insert(0, warning);
    }
    Ok(outcome)
}

/// The one warning of an apply on a store whose update conflicts are not prevented by its backend: two
/// applies of the estate at once may overwrite each other's records.
fn guarantee_warning(g: staterecord::Guarantees) -> Option<Diagnostic> {
    if g.update == staterecord::ConflictCheck::Prevented {
        return None;
    }
    Some(Diagnostic::new(
        Code::StoreGuarantee,
        format!(
            "this record store's update conflicts are {}, not prevented (deletes: {})",
            g.update, g.delete
        ),
        "A record written by another apply of this estate at the same time may be overwritten; the \
         overwrite is reported as a version conflict. Run one apply of an estate at a time, or use the S3 \
         record store for full compare-and-swap.",
    ))
}

/// Runs the plan's graph through its executor `ops`; what the plan `withheld` is reported as not done.
async fn execute(
    graph: &graph::EngineGraph,
    ops: Arc<Executor>,
    config: &ApplyConfig,
    withheld: &[WithheldChange],
) -> Result<ApplyOutcome, crate::Error> {
    let in_graph: BTreeSet<InstanceAddress> = ops.changes.keys().cloned().collect();
    let compiled = graph
        .compile(Arc::clone(&ops) as Arc<dyn Operations<EngineFamily>>)
        .map_err(|d| {
            crate::Error::InvalidGraph(
                d.iter()
                    .map(|x| x.detail.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
    let graph_diags = compiled
        .execute(ExecuteConfig {
            // The executor holds the parallelism limit itself, around provider calls only (see `turns`):
            // the graph starts every operation as soon as its operands are ready.
            parallelism: NonZeroUsize::new(tokio::sync::Semaphore::MAX_PERMITS)
                .unwrap_or(config.parallelism),
            cancel: config.cancel.clone(),
        })
        .await;
    let mut diagnostics: Vec<Diagnostic> = graph_diags.into_iter().map(to_diagnostic).collect();
    let record_failures = std::mem::take(
        &mut *ops
            .record_failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    diagnostics.extend(record_failures.into_iter().map(to_diagnostic));
    let mut objects = BTreeMap::new();
    for a in &in_graph {
        let v = compiled.resource_instance_value(a).await;
        if v.unavailable.is_none() {
            let obj = ops
                .results
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(a)
                .cloned();
            objects.insert(a.clone(), obj.flatten());
        }
    }
    let outputs = if config.cancel.is_cancelled() {
        BTreeMap::new()
    } else {
        ops.settle(&mut diagnostics).await;
        ops.write_outputs(&mut diagnostics).await
    };
    // What the plan held back is left undone: the apply says so, and did not finish the estate.
    diagnostics.extend(withheld.iter().map(withheld_diagnostic));
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.summary.cmp(&b.summary))
    });
    diagnostics.dedup();
    Ok(ApplyOutcome {
        diagnostics,
        objects,
        outputs,
    })
}

/// The error of a change the plan held back (`create-withheld`): named, with why, and when to apply again.
fn withheld_diagnostic(w: &WithheldChange) -> Diagnostic {
    let after = crate::render::utc_time(w.retry_after);
    let detail = match &w.cause {
        WithheldCause::InterruptedCreate => format!(
            "Another apply may be creating the object right now. Run apply again after {after}: it \
             binds the object that apply made, or creates it if there is none."
        ),
        WithheldCause::WaitsOn(_) => {
            format!("It is applied once what it waits on is: run apply again after {after}.")
        }
    };
    Diagnostic::new(
        Code::CreateWithheld,
        format!(
            "the {} of {} is withheld: {}",
            w.action.as_str(),
            w.address,
            crate::render::withheld_cause(w)
        ),
        detail,
    )
    .with_address(w.address.to_string())
}

/// The provider of every region the plan's changes reach: the regions its provider configurations name
/// and those of the objects it changes, each the engine's provider configured for it.
async fn region_providers(
    p: &crate::model::Plan,
    provider: &Arc<dyn Provider>,
) -> Result<BTreeMap<String, Arc<dyn Provider>>, crate::Error> {
    let ctx = &p.context;
    let home = provider.region();
    let mut regions = ctx.provider_settings.regions(&ctx.config, &home);
    regions.extend(ctx.priors.values().map(|o| o.region.clone()));
    let others = crate::regions::RegionProviders::open(provider.as_ref(), &regions)
        .await
        .map_err(|d| crate::Error::RegionUnreachable(d.summary))?;
    Ok(regions
        .iter()
        .map(|r| (r.clone(), others.get_arc(provider, r)))
        .collect())
}

impl Executor {
    /// Writes the regions record before anything is created: every (account, region) pair the plan
    /// creates an object in, once it creates beyond the home region or the record exists. An apply
    /// whose record cannot be written changes nothing.
    async fn claim_regions(&self, p: &crate::model::Plan) -> Result<(), crate::Error> {
        let mut wanted: Vec<projection::record::RegionPair> = p
            .effective_changes()
            .filter(|c| {
                matches!(
                    c.action,
                    crate::model::Action::Create | crate::model::Action::Replace
                )
            })
            .filter(|c| c.admission != provider::AdmissionPath::Record)
            .map(|c| {
                let region = self.region_of(&c.address);
                projection::record::RegionPair {
                    account: self.provider_in(&region).account(),
                    region,
                }
            })
            .collect();
        wanted.sort();
        wanted.dedup();
        // The home region is always swept: an estate of one region keeps no record of it (its first
        // other region writes the home region's pairs too).
        let beyond_home = wanted.iter().any(|w| w.region != self.home);
        if wanted.is_empty() || (!beyond_home && p.context.records.regions.is_none()) {
            return Ok(());
        }
        if beyond_home {
            // What the estate made in the home region before it had a record is named too.
            wanted.push(projection::record::RegionPair {
                account: self.provider_in(&self.home).account(),
                region: self.home.clone(),
            });
            wanted.sort();
            wanted.dedup();
        }
        self.journal
            .claim_regions(&wanted)
            .await
            .map_err(|e| crate::Error::Store(e.error))
    }

    /// The provider of `region` (the home region's when the plan reached no other).
    pub(crate) fn provider_in(&self, region: &str) -> &Retrying<Arc<dyn Provider>> {
        self.providers
            .get(region)
            .or_else(|| self.providers.get(&self.home))
            .expect("the home region's provider is always opened")
    }

    /// The region `address` is created in: its provider configuration's.
    pub(crate) fn region_of(&self, address: &admission::InstanceAddress) -> String {
        crate::regions::region_of_block(
            &self.ctx.config,
            &self.ctx.provider_settings,
            &self.home,
            address.block(),
        )
    }

    /// The operations of applying `p`.
    fn new(
        p: &crate::model::Plan,
        (provider, providers): (Arc<dyn Provider>, BTreeMap<String, Arc<dyn Provider>>),
        store: &Arc<dyn Store>,
        config: &ApplyConfig,
        retry: RetryConfig,
        clock: Arc<dyn Clock>,
    ) -> Result<Executor, crate::Error> {
        let ctx = Arc::clone(&p.context);
        let estate = admission::Estate::new(p.estate.clone())
            .map_err(|e| crate::Error::InvalidGraph(e.to_string()))?;
        let keys = RecordKeys::new(&ctx.key_prefix, &estate)?;
        let seen = records_seen(&keys, &ctx.records);
        let mut changes = HashMap::new();
        let mut deposed_changes = HashMap::new();
        for c in p.effective_changes() {
            let change = Arc::new(change_to_apply(c));
            match &c.deposed {
                None => changes.insert(c.address.clone(), change),
                Some(key) => deposed_changes.insert((c.address.clone(), key.clone()), change),
            };
        }
        Ok(Executor {
            blocks: eval::block_shapes(&ctx),
            impure: ApplyTime::at(clock.now()),
            journal: RecordJournal::new(store, keys, seen, provider.lineage())
                .with_clock(clock)
                .with_records_of(&ctx.records),
            turns: Turns::new(config.parallelism.get(), config.cancel.clone()),
            ctx,
            changes,
            deposed_changes,
            // Not cut short by `cancel`: an operation in flight when the apply is cancelled finishes, its
            // retries included, and writes its records.
            providers: providers
                .into_iter()
                .map(|(region, p)| (region, Retrying::new(p, &retry)))
                .collect(),
            home: provider.region(),
            events: config.events.clone(),
            progress_interval: config.progress_interval,
            results: Mutex::new(BTreeMap::new()),
            record_failures: Mutex::new(Vec::new()),
            slot_verdicts: HashMap::new(),
            holds: Mutex::new(HashMap::new()),
        })
    }

    /// Settles what the plan found left over: deposed records of objects already gone (nothing is left to
    /// delete), and intents of interrupted creates whose objects the plan bound and no change settled.
    async fn settle(&self, diagnostics: &mut Vec<Diagnostic>) {
        for (address, id) in &self.ctx.stale_deposed {
            if let Err(e) = self.journal.remove_deposed(address, id).await {
                diagnostics.push(to_diagnostic(e.diagnostic(address)));
            }
        }
        for (address, id) in &self.ctx.settled_intents {
            if let Err(e) = self.journal.settle_intent(address, id).await {
                diagnostics.push(to_diagnostic(e.diagnostic(address)));
            }
        }
    }
}

/// A change as apply carries it: everything but `depends_on`, which the execution graph already encodes
/// as waits (and which lists every instance of every block an instance refers to, so copying it per
/// change would make an apply quadratic).
fn change_to_apply(c: &ResourceChange) -> ResourceChange {
    ResourceChange {
        address: c.address.clone(),
        action: c.action,
        id: c.id.clone(),
        admission: c.admission,
        before: c.before.clone(),
        after: c.after.clone(),
        reason: c.reason.clone(),
        replace_order: c.replace_order,
        changed: c.changed.clone(),
        forces: c.forces.clone(),
        tag_change: c.tag_change.clone(),
        slot: c.slot,
        deposed: c.deposed.clone(),
        depends_on: Vec::new(),
        blocks: c.blocks.clone(),
        set_removals: c.set_removals.clone(),
        destroy: c.destroy,
    }
}

fn to_diagnostic(d: GraphDiagnostic) -> Diagnostic {
    let code = Code::from_name(&d.code).unwrap_or(Code::ApplyFailed);
    let mut out = Diagnostic::new(code, d.summary, d.detail);
    if let Some(a) = d.address {
        out = out.with_address(a);
    }
    out
}

/// The graph's operations of one apply.
struct Executor {
    ctx: Arc<PlanContext>,
    /// The change of each instance applied (its current object).
    changes: HashMap<InstanceAddress, Arc<ResourceChange>>,
    /// The change of each deposed object deleted, by instance and deposed key.
    deposed_changes: HashMap<(InstanceAddress, String), Arc<ResourceChange>>,
    /// Each resource block's declaration and the value of its members before any is read.
    blocks: HashMap<BlockAddress, BlockShape>,
    /// The provider of each region the plan reaches (the home region's first), each retried as the
    /// apply's configuration says.
    providers: BTreeMap<String, Retrying<Arc<dyn Provider>>>,
    /// The home region: the engine's provider's.
    home: String,
    /// Every record write of the apply.
    journal: RecordJournal,
    /// The parallelism limit.
    turns: Turns,
    events: Option<EventSink>,
    progress_interval: Duration,
    /// Each instance's object after its apply.
    results: Mutex<BTreeMap<InstanceAddress, Option<LiveObject>>>,
    /// The record writes that failed after their provider call did its work (`record-write-failed`):
    /// errors of the apply, not of the operation, which completed.
    record_failures: Mutex<Vec<GraphDiagnostic>>,
    /// The values of `timestamp()` and `uuid()` in this apply.
    impure: ApplyTime,
    /// The count blocks whose slots hold changes back, claimed before the graph runs.
    slot_verdicts: HashMap<BlockAddress, slots::SlotVerdict>,
    /// The slot holds written before the deletes of destroy-before-create replaces, by instance: what a
    /// create that never happens puts its intent back to.
    holds: Mutex<HashMap<InstanceAddress, projection::record::RecordBody>>,
}

impl Executor {
    fn schema(&self, type_name: &str) -> Option<&ResourceTypeSchema> {
        self.ctx.catalog.get(type_name)
    }
}

#[async_trait]
impl Operations<EngineFamily> for Executor {
    async fn resource_instance_prior(
        &self,
        addr: &InstanceAddress,
    ) -> OpResult<Option<LiveObject>> {
        Ok(self.ctx.priors.get(addr).cloned())
    }

    async fn resource_instance_current_meta(
        &self,
        addr: &InstanceAddress,
        _prior: Option<&LiveObject>,
    ) -> OpResult<Meta> {
        let change = self
            .changes
            .get(addr)
            .cloned()
            .ok_or_else(|| vec![plan_again(addr, "has no change in the plan")])?;
        Ok(Meta {
            address: addr.clone(),
            change,
            deposed: None,
        })
    }

    async fn resource_instance_desired(
        &self,
        meta: &Meta,
        values: &ValueSource<EngineFamily>,
    ) -> OpResult<BTreeMap<String, Value>> {
        self.desired(meta, values).await
    }

    async fn managed_final_plan(
        &self,
        meta: &Meta,
        desired: Option<&BTreeMap<String, Value>>,
        prior: Option<&LiveObject>,
        _planned: Option<&GraphValue>,
    ) -> OpResult<FinalPlan> {
        self.final_plan(meta, desired, prior)
    }

    async fn managed_apply(
        &self,
        plan: &FinalPlan,
        fallback: Option<&LiveObject>,
    ) -> Applied<LiveObject> {
        self.run(plan, fallback).await
    }

    async fn managed_perform_depose(
        &self,
        current: Option<&LiveObject>,
        delete_plan: &FinalPlan,
    ) -> OpResult<LiveObject> {
        let Some(current) = current else {
            return Err(vec![plan_again(
                &delete_plan.address,
                "has no object to depose",
            )]);
        };
        // The record is written by the create leg as it starts (`managed_apply` with a fallback), so a
        // create that never starts deposes nothing.
        Ok(current.clone())
    }

    async fn managed_deposed_meta(
        &self,
        addr: &InstanceAddress,
        key: &String,
        _prior: Option<&LiveObject>,
    ) -> OpResult<Meta> {
        let change = self
            .deposed_changes
            .get(&(addr.clone(), key.clone()))
            .cloned()
            .ok_or_else(|| {
                vec![plan_again(
                    addr,
                    format!("has no deposed object {key} in the plan"),
                )]
            })?;
        Ok(Meta {
            address: addr.clone(),
            change,
            deposed: Some(key.clone()),
        })
    }

    async fn managed_already_deposed(
        &self,
        addr: &InstanceAddress,
        key: &String,
    ) -> OpResult<LiveObject> {
        self.ctx
            .deposed
            .get(addr)
            .and_then(|objs| objs.iter().find(|o| &o.id == key))
            .cloned()
            .ok_or_else(|| vec![plan_again(addr, format!("has no deposed object {key}"))])
    }

    async fn managed_change_addr(
        &self,
        _current: Option<&LiveObject>,
        new_addr: &InstanceAddress,
    ) -> OpResult<LiveObject> {
        Err(vec![gdiag(
            Code::ApplyFailed,
            "moving an instance during apply is not supported",
            "rename with `liveplan mv` before applying",
            new_addr,
        )])
    }

    async fn data_read(
        &self,
        meta: &Meta,
        _desired: Option<&BTreeMap<String, Value>>,
        _planned: Option<&GraphValue>,
    ) -> OpResult<LiveObject> {
        Err(vec![gdiag(
            Code::UnsupportedConstruct,
            "data sources are not supported",
            "remove the data block",
            &meta.address,
        )])
    }
}
