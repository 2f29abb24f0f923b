//! The embedder's handle: an [`Engine`] built once from a live system and a record store, with plan,
//! apply, adopt (with release) and mv as methods.
//!
//! The handle owns what every operation shares: the provider, the store, the catalog of every type a plan
//! may use (the provider's schemas and the engine's record-backed types, merged once here), the retry
//! policy and the discovery settings. Each operation gets a fresh record cache of its own, so a long-lived
//! handle never serves records that an earlier apply changed. [`validate`] is the one thing that needs no
//! live system: the configuration's own findings, as `liveplan validate` prints them.
//!
//! This module adds no behaviour of its own: it wires the planner, the apply executor and the ownership
//! operations to the collaborators it holds.

use std::sync::Arc;

use admission::{Diagnostic, InstanceAddress, Sources};
use projection::RetryConfig;
use provider::{Catalog, Provider};
use staterecord::Store;

use crate::adopt::{AdoptRequest, MvRequest, OwnershipOutcome};
use crate::apply::{ApplyConfig, ApplyOutcome};
use crate::clock::{Clock, SystemClock};
use crate::model::{Plan, ReviewedPlan};
use crate::planner::{PlanOptions, PlanRequest};
use crate::release::ReleaseRequest;

/// How a rename is done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MvOptions {
    /// Only check; write nothing.
    pub dry_run: bool,
    /// Allow a new address that the configuration does not declare.
    pub allow_missing_config: bool,
}

/// Plan and apply against one live system and one record store.
///
/// Build it once; every method can be called any number of times, concurrently too.
///
/// ```
/// use std::sync::Arc;
/// use admission::{SourceFile, VariableInputs};
/// use engine::{Engine, Sources};
/// use fixtures::{SimCloud, SimConfig};
/// use staterecord::MemoryStore;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let cloud = Arc::new(SimCloud::from_json(r#"{"resources": []}"#, SimConfig::default()).unwrap());
/// let engine = Engine::new(cloud, Arc::new(MemoryStore::new()));
/// let files = [SourceFile::new(
///     "main.tf",
///     "live {\n  estate = \"acme\"\n}\nresource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n",
/// )];
/// let inputs = VariableInputs::default();
/// let plan = engine.plan(Sources::new(&files, &inputs)).await?;
/// assert_eq!(plan.summary().add, 1);
/// let outcome = engine.apply(&plan.review()?, engine::ApplyConfig::default()).await?;
/// assert!(outcome.succeeded());
/// assert_eq!(engine.plan(Sources::new(&files, &inputs)).await?.summary().add, 0);
/// # Ok::<(), engine::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct Engine {
    provider: Arc<dyn Provider>,
    store: Arc<dyn Store>,
    catalog: Arc<Catalog>,
    retry: RetryConfig,
    read_concurrency: usize,
    key_prefix: String,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("region", &self.provider.region())
            .field("types", &self.catalog.len())
            .field("retry", &self.retry)
            .field("read_concurrency", &self.read_concurrency)
            .field("key_prefix", &self.key_prefix)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine over `provider` and `store` with the defaults: the default retry policy, 16 reads in
    /// flight during discovery, no record key prefix, the system clock.
    pub fn new(provider: Arc<dyn Provider>, store: Arc<dyn Store>) -> Engine {
        let catalog = Arc::new(full_catalog(provider.schemas()));
        Engine {
            provider,
            store,
            catalog,
            retry: RetryConfig::default(),
            read_concurrency: 16,
            key_prefix: String::new(),
            clock: Arc::new(SystemClock),
        }
    }

    /// The same engine reading the time of day from `clock`: the age of create intents (so when a
    /// withheld create may be retried), the time written into intent records, and `timestamp()` during
    /// an apply. A test moves a [`ManualClock`](crate::ManualClock) instead of waiting.
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Engine {
        Engine { clock, ..self }
    }

    /// The clock the engine reads the time of day from.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The same engine retrying throttled and failed calls (of plans, applies, adoptions and renames
    /// alike) by `retry`.
    pub fn with_retry(self, retry: RetryConfig) -> Engine {
        Engine { retry, ..self }
    }

    /// The same engine with at most `reads` listings and reads in flight during discovery (at least 1).
    pub fn with_read_concurrency(self, reads: usize) -> Engine {
        Engine {
            read_concurrency: reads.max(1),
            ..self
        }
    }

    /// The same engine keeping its records under `prefix` (empty, or ending with `/`; a missing `/` is
    /// added).
    pub fn with_key_prefix(self, prefix: &str) -> Engine {
        let prefix = prefix.trim_matches('/');
        let key_prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        };
        Engine { key_prefix, ..self }
    }

    /// Every resource type a configuration may use with this engine: the provider's and the engine's
    /// record-backed types (`random_id`, `terraform_data`).
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The live system.
    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.provider
    }

    /// The record store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The record key prefix (empty, or ending with `/`).
    pub(crate) fn key_prefix(&self) -> &str {
        &self.key_prefix
    }

    /// The configuration's own findings, without reading the live system or the records.
    pub fn validate(&self, sources: Sources<'_>) -> Validation {
        validate_with(sources, &self.catalog)
    }

    /// Plans: parses and lints the configuration, reads the live system and the estate's records (one bulk
    /// trip), and diffs. Writes nothing anywhere.
    pub async fn plan(&self, sources: Sources<'_>) -> Result<Plan, crate::Error> {
        self.plan_with(sources, &PlanOptions::default()).await
    }

    /// Plans with `options`: [`PlanMode::Destroy`](crate::PlanMode::Destroy) plans the delete of
    /// everything this estate owns (and never of anything else), as `liveplan destroy` and `plan -destroy`
    /// do; `replace` forces the replacement of instances and `targets` restricts the plan to some
    /// addresses and what they depend on, as `-replace` and `-target` do.
    pub async fn plan_with(
        &self,
        sources: Sources<'_>,
        options: &PlanOptions,
    ) -> Result<Plan, crate::Error> {
        let mut request = self.request(sources);
        request.options = options.clone();
        crate::planner::plan(
            &request,
            self.provider.as_ref(),
            &self.catalog,
            Arc::clone(&self.store),
        )
        .await
    }

    /// Applies a reviewed plan: provider operations with `config`'s parallelism limit, events and
    /// cancellation, records written with compare-and-swap.
    pub async fn apply(
        &self,
        plan: &ReviewedPlan,
        config: ApplyConfig,
    ) -> Result<ApplyOutcome, crate::Error> {
        crate::apply::apply(
            plan,
            Arc::clone(&self.provider),
            Arc::clone(&self.store),
            config,
            self.retry.clone(),
            Arc::clone(&self.clock),
        )
        .await
    }

    /// Adopts an unowned object for `address`: the object at its client-named identity, or the bind
    /// candidate `id` of a marker-path instance. Tags only, once the address is claimed through its create
    /// intent (refused while an apply is creating it); refusals are diagnostics of the outcome, and nothing
    /// is left written for one.
    pub async fn adopt(
        &self,
        sources: Sources<'_>,
        address: &InstanceAddress,
        id: Option<&str>,
    ) -> Result<OwnershipOutcome, crate::Error> {
        crate::adopt::adopt(
            &self.request(sources),
            self.provider.as_ref(),
            &self.catalog,
            Arc::clone(&self.store),
            &AdoptRequest { address, id },
        )
        .await
    }

    /// Resolves a marker collision at `address` (`liveplan adopt ADDRESS --release ID`): removes this
    /// estate's markers from `id`, one of the live objects that carry the address, once no record names
    /// it. Tags only; refusals are diagnostics of the outcome, and nothing is written for one.
    pub async fn release(
        &self,
        sources: Sources<'_>,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<OwnershipOutcome, crate::Error> {
        crate::release::release(
            &self.request(sources),
            self.provider.as_ref(),
            &self.catalog,
            Arc::clone(&self.store),
            &ReleaseRequest { address, id },
        )
        .await
    }

    /// Renames an object of this estate from `old` to `new`: claims `new` through its create intent
    /// (refused while an apply is creating it), then rewrites the object's address marker and moves its
    /// records.
    pub async fn mv(
        &self,
        sources: Sources<'_>,
        old: &InstanceAddress,
        new: &InstanceAddress,
        options: MvOptions,
    ) -> Result<OwnershipOutcome, crate::Error> {
        crate::adopt::mv(
            &self.request(sources),
            self.provider.as_ref(),
            &self.catalog,
            Arc::clone(&self.store),
            &MvRequest { old, new, options },
        )
        .await
    }

    fn request<'a>(&'a self, sources: Sources<'a>) -> PlanRequest<'a> {
        PlanRequest {
            sources,
            options: PlanOptions::default(),
            retry: self.retry.clone(),
            read_concurrency: self.read_concurrency,
            key_prefix: &self.key_prefix,
            clock: Arc::clone(&self.clock),
        }
    }
}

/// `catalog` with the engine's record-backed types added: every type a plan may use.
pub fn full_catalog(catalog: &Catalog) -> Catalog {
    catalog.clone().merged(crate::builtin_catalog())
}

/// What the configuration says before any live system is read: the estate it names and the lint's
/// findings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validation {
    /// The estate, when the configuration or the flag names a valid one.
    pub estate: Option<String>,
    /// The lint's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

impl Validation {
    /// Whether the configuration has no error.
    pub fn valid(&self) -> bool {
        !self
            .diagnostics
            .iter()
            .any(|d| d.severity() == admission::Severity::Error)
    }

    /// A plan of no changes holding these findings and `problem` (why no plan could be made: a live
    /// system or a record store that could not be opened), so that a caller that always shows one plan
    /// can show this one.
    pub fn into_refused_plan(self, problem: Diagnostic) -> Plan {
        let mut diagnostics = self.diagnostics;
        diagnostics.push(problem);
        Plan::of_diagnostics(self.estate.unwrap_or_default(), diagnostics)
    }
}

/// The configuration's own findings against `catalog` (the provider's types; the record-backed types
/// are added), without a live system: what `liveplan validate` prints.
pub fn validate(sources: Sources<'_>, catalog: &Catalog) -> Validation {
    validate_with(sources, &full_catalog(catalog))
}

fn validate_with(sources: Sources<'_>, full: &Catalog) -> Validation {
    let (_, linted) = admission::validate(&sources, full);
    Validation {
        estate: linted.estate,
        diagnostics: linted.diagnostics,
    }
}
