//! Applying a reviewed plan: its execution graph compiled against the provider and the record store, and
//! executed under a parallelism limit and a cancellation token.
//!
//! Each create writes the instance's create intent (compare-and-swap against the version the plan saw, so
//! two applies of one plan never create twice) before the provider call, and the markers travel with the
//! create itself, so an object never exists unmarked. Desired values are evaluated again as upstream
//! results arrive. Every record write is a compare-and-swap; a lost one is `version-conflict`. Throttled
//! calls are retried with the retry policy. Every operation reports [`ApplyEvent`]s.
//!
//! This module never starts a provider call after cancellation, never aborts one in flight, and never
//! writes a record without naming the version it replaces.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use admission::eval::Evaluator;
use admission::provider::{CreateRequest, Identity, TagChange, UpdateRequest};
use admission::schema::{AttributeMode, ResourceTypeSchema};
use admission::{
    AdmissionPath, Code, Diagnostic, InstanceAddress, InstanceKey, LiveObject, Provider,
    ProviderError, Slot, Value,
};
use async_trait::async_trait;
use execgraph::{
    Applied, Diagnostic as GraphDiagnostic, ExecuteConfig, OpResult, Operations, Unavailable,
    ValueSource,
};
use futures::future::{Either, select};
use staterecord::{Store, StoreError, Version};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::graph::{self, EngineFamily, FinalKind, FinalPlan, GraphValue, Meta};
use crate::model::{Action, PlanContext, ResourceChange, ReviewedPlan};
use crate::refs;
use projection::RetryPolicy;
use projection::record::{
    DeposedRecord, InstanceNamespace as Namespace, IntentRecord, IntentState, LocatedRecord,
    ObjectRecord, OutputRecord, RecordBody, RecordKeys, ResidueRecord, SlotsRecord,
};

/// What an apply event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyEventKind {
    /// A provider operation started.
    Started,
    /// A provider operation is still running.
    Progress,
    /// A provider operation finished.
    Completed,
    /// A provider operation failed.
    Errored,
}

impl ApplyEventKind {
    /// The event type of the `--json` stream.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyEventKind::Started => "apply_start",
            ApplyEventKind::Progress => "apply_progress",
            ApplyEventKind::Completed => "apply_complete",
            ApplyEventKind::Errored => "apply_errored",
        }
    }
}

/// One event of an apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyEvent {
    /// What happened.
    pub kind: ApplyEventKind,
    /// The instance.
    pub address: InstanceAddress,
    /// `create`, `update` or `delete`.
    pub action: &'static str,
    /// The object's id, when known.
    pub id: Option<String>,
    /// Time since the operation started.
    pub elapsed: Duration,
    /// For an error, what went wrong.
    pub message: Option<String>,
}

impl ApplyEvent {
    /// The line a terminal shows for the event, as Terraform users know it.
    pub fn line(&self) -> String {
        let (ing, done) = match self.action {
            "create" => ("Creating", "Creation"),
            "update" => ("Modifying", "Modifications"),
            _ => ("Destroying", "Destruction"),
        };
        let secs = self.elapsed.as_secs();
        let id = self
            .id
            .as_deref()
            .map(|i| format!(" [id={i}]"))
            .unwrap_or_default();
        match self.kind {
            ApplyEventKind::Started => format!("{}: {ing}...{id}", self.address),
            ApplyEventKind::Progress => {
                format!(
                    "{}: Still {}... [{secs}s elapsed]",
                    self.address,
                    ing.to_lowercase()
                )
            }
            ApplyEventKind::Completed => {
                format!("{}: {done} complete after {secs}s{id}", self.address)
            }
            ApplyEventKind::Errored => format!(
                "{}: {ing} failed after {secs}s: {}",
                self.address,
                self.message.as_deref().unwrap_or("error")
            ),
        }
    }

    /// The event as one line of the `--json` stream.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "type": self.kind.as_str(),
            "address": self.address.to_string(),
            "action": self.action,
            "id": self.id,
            "elapsed_ms": self.elapsed.as_millis() as u64,
        })
    }
}

/// Where apply events go: called from the apply's own task, in order per operation.
pub type EventSink = Arc<dyn Fn(&ApplyEvent) + Send + Sync>;

/// How to apply.
#[derive(Clone)]
pub struct ApplyConfig {
    /// Provider operations in flight at once.
    pub parallelism: NonZeroUsize,
    /// Cancelling stops new operations from starting; those in flight finish and write their records.
    pub cancel: CancellationToken,
    /// How throttled calls are retried.
    pub retry: RetryPolicy,
    /// Where events go, if anywhere.
    pub events: Option<EventSink>,
    /// How often a running operation reports progress.
    pub progress_interval: Duration,
}

impl fmt::Debug for ApplyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApplyConfig")
            .field("parallelism", &self.parallelism)
            .field("retry", &self.retry)
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
            retry: RetryPolicy::default(),
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
    /// Every diagnostic (failed operations, lost compare-and-swaps, cancellation), sorted.
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

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn gdiag(
    code: Code,
    summary: impl Into<String>,
    detail: impl Into<String>,
    address: &InstanceAddress,
) -> GraphDiagnostic {
    GraphDiagnostic::error(code.as_str(), summary, detail).with_address(address)
}

/// Applies a reviewed plan through `provider`, writing records to `store` (read past any cache).
#[tracing::instrument(skip_all, fields(estate = %plan.plan().estate), err)]
pub async fn apply(
    plan: &ReviewedPlan,
    provider: Arc<dyn Provider>,
    store: Arc<dyn Store>,
    config: ApplyConfig,
) -> Result<ApplyOutcome, crate::Error> {
    // Every record an apply writes is its estate's: on S3 the objects carry the estate's tag, so that one
    // bucket's records can be told apart by estate (lifecycle rules, access policies, cost reports).
    let tags = BTreeMap::from([(
        admission::marker::ESTATE_TAG.to_owned(),
        plan.plan().estate.clone(),
    )]);
    staterecord::with_object_tags(tags, apply_plan(plan, provider, store, config)).await
}

async fn apply_plan(
    plan: &ReviewedPlan,
    provider: Arc<dyn Provider>,
    store: Arc<dyn Store>,
    config: ApplyConfig,
) -> Result<ApplyOutcome, crate::Error> {
    let p = plan.plan();
    let graph = graph::build(p).map_err(|e| crate::Error::InvalidGraph(e.to_string()))?;
    let ctx = Arc::clone(&p.context);
    let estate = admission::Estate::new(p.estate.clone())
        .map_err(|e| crate::Error::InvalidGraph(e.to_string()))?;
    let keys = RecordKeys::new(&ctx.key_prefix, &estate)?;
    let seen = records_seen(&keys, &ctx.records);
    let versions: BTreeMap<String, Option<Version>> = seen
        .iter()
        .map(|(k, (_, v))| (k.clone(), Some(v.clone())))
        .collect();
    let mut changes = HashMap::new();
    let mut deposed_changes = HashMap::new();
    for c in p.effective_changes() {
        let change = Arc::new(change_to_apply(c));
        match &c.deposed {
            None => changes.insert(c.address.clone(), change),
            Some(key) => deposed_changes.insert((c.address.clone(), key.clone()), change),
        };
    }
    let in_graph: BTreeSet<InstanceAddress> = changes.keys().cloned().collect();
    let blocks = block_shapes(&ctx);
    let ops = Arc::new(Executor {
        ctx: Arc::clone(&ctx),
        keys,
        seen,
        changes,
        deposed_changes,
        blocks,
        provider,
        store: staterecord::fresh(&store),
        versions: tokio::sync::Mutex::new(versions),
        retry: config.retry,
        events: config.events.clone(),
        progress_interval: config.progress_interval,
        read_modify_write: tokio::sync::Mutex::new(()),
        results: Mutex::new(BTreeMap::new()),
        impure: ApplyTime::now(),
    });
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
            parallelism: config.parallelism,
            cancel: config.cancel.clone(),
        })
        .await;
    let mut diagnostics: Vec<Diagnostic> = graph_diags.into_iter().map(to_diagnostic).collect();
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
        // Deposed records of objects already gone are settled: nothing is left to delete.
        for (address, id) in &ctx.stale_deposed {
            if let Err(d) = ops.remove_deposed(address, id).await {
                diagnostics.push(to_diagnostic(d));
            }
        }
        // Intents of interrupted creates whose objects the plan bound, and which no change settled.
        for (address, id) in &ctx.settled_intents {
            if let Err(d) = ops.settle_intent(address, id).await {
                diagnostics.push(to_diagnostic(d));
            }
        }
        ops.write_outputs(&mut diagnostics).await
    };
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
    }
}

/// A resource block as the evaluator sees it before any member is read: built once per apply, so that
/// reading one member of a large block copies a ready value instead of rebuilding the block.
struct BlockShape {
    /// The block's declaration, as an index into the configuration's resources.
    resource: usize,
    /// Where each member sits in the block's value: its position in the list of a `count` block.
    positions: HashMap<InstanceKey, usize>,
    /// The block's value with every member unknown (what [`refs::block_value`] gives with no key).
    unknown: Value,
}

/// The shape of every declared resource block with declared instances.
fn block_shapes(ctx: &PlanContext) -> HashMap<String, BlockShape> {
    ctx.config
        .resources
        .iter()
        .enumerate()
        .map(|(resource, res)| {
            let block = res.address();
            let instances: &[InstanceAddress] =
                ctx.blocks.get(&block).map(Vec::as_slice).unwrap_or(&[]);
            let positions = instances
                .iter()
                .enumerate()
                .map(|(i, a)| (a.key().clone(), i))
                .collect();
            let none = BTreeSet::new();
            let unknown = refs::block_value(res, instances, Some(&none), |_| Value::unknown());
            (
                block,
                BlockShape {
                    resource,
                    positions,
                    unknown,
                },
            )
        })
        .collect()
}

/// What one instance's arguments read, fetched before they are evaluated.
#[derive(Default)]
struct Reads {
    /// The blocks read whole, with their values.
    whole: BTreeMap<String, Value>,
    /// The blocks read by key, with the keys read.
    keyed: BTreeMap<String, BTreeSet<InstanceKey>>,
    /// The values of the members read by key.
    members: HashMap<InstanceAddress, Value>,
}

/// Resolves blocks for the evaluator from what an instance fetched; a block read by key is built only when
/// an expression reads it whole, not for a member read by index, which is looked up alone.
struct ReadResolver<'a> {
    exec: &'a Executor,
    reads: &'a Reads,
}

impl admission::eval::ResourceResolver for ReadResolver<'_> {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        let block = format!("{type_name}.{name}");
        if let Some(v) = self.reads.whole.get(&block) {
            return Some(v.clone());
        }
        let keys = self.reads.keyed.get(&block)?;
        self.exec
            .keyed_block_value(&block, keys, &self.reads.members)
    }

    /// One member of a block read by key, exactly as indexing [`resolve`](Self::resolve)'s value gives it:
    /// the fetched value of a member read, the block's unknown element for any other.
    fn resolve_member(&self, type_name: &str, name: &str, key: &Value) -> Option<Value> {
        let block = format!("{type_name}.{name}");
        if self.reads.whole.contains_key(&block) {
            return None;
        }
        let keys = self.reads.keyed.get(&block)?;
        let res = self.exec.ctx.config.resource(type_name, name)?;
        let shape = self.exec.blocks.get(&block)?;
        let instances = self.exec.ctx.blocks.get(&block)?;
        let (position, unknown) = match (key, &shape.unknown) {
            (Value::Number(n), Value::List(items)) if res.repetition.count().is_some() => {
                let i = usize::try_from(n.as_u64()?).ok()?;
                (i, items.get(i)?)
            }
            (Value::String(k), Value::Map(entries)) if res.repetition.for_each().is_some() => (
                *shape.positions.get(&InstanceKey::Str(k.clone()))?,
                entries.get(k)?,
            ),
            _ => return None,
        };
        let member = instances.get(position)?;
        match self.reads.members.get(member) {
            Some(v) if keys.contains(member.key()) => Some(v.clone()),
            _ => Some(unknown.clone()),
        }
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

struct Executor {
    ctx: Arc<PlanContext>,
    keys: RecordKeys,
    /// Every record as the plan saw it, by key.
    seen: BTreeMap<String, (RecordBody, Version)>,
    /// The change of each instance applied (its current object).
    changes: HashMap<InstanceAddress, Arc<ResourceChange>>,
    /// The change of each deposed object deleted, by instance and deposed key.
    deposed_changes: HashMap<(InstanceAddress, String), Arc<ResourceChange>>,
    /// Each resource block's declaration and the value of its members before any is read.
    blocks: HashMap<String, BlockShape>,
    provider: Arc<dyn Provider>,
    store: Arc<dyn Store>,
    /// The version of every record as last seen or written: the compare side of every write.
    versions: tokio::sync::Mutex<BTreeMap<String, Option<Version>>>,
    retry: RetryPolicy,
    events: Option<EventSink>,
    progress_interval: Duration,
    /// Serializes read-modify-write sites on records shared between operations (slots, deposed sets).
    read_modify_write: tokio::sync::Mutex<()>,
    /// Each instance's object after its apply.
    results: Mutex<BTreeMap<InstanceAddress, Option<LiveObject>>>,
    /// The values of `timestamp()` and `uuid()` in this apply.
    impure: ApplyTime,
}

/// What the impure functions give during one apply: `timestamp()` is the time the apply started (one value
/// for the whole run), `uuid()` a fresh random UUID at every call.
struct ApplyTime {
    started: String,
}

impl ApplyTime {
    fn now() -> ApplyTime {
        let now = time::OffsetDateTime::now_utc();
        let started = now
            .replace_nanosecond(0)
            .unwrap_or(now)
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        ApplyTime { started }
    }
}

impl admission::eval::ImpureValues for ApplyTime {
    fn timestamp(&self) -> String {
        self.started.clone()
    }

    fn uuid(&self) -> String {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&random_bytes(16));
        uuid::Builder::from_random_bytes(bytes)
            .into_uuid()
            .to_string()
    }
}

/// Fresh random bytes: the standard library's per-process random hash keys, mixed with a counter.
fn random_bytes(n: usize) -> Vec<u8> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        h.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        out.extend_from_slice(&h.finish().to_le_bytes());
    }
    out.truncate(n);
    out
}

/// The decimal text of a big-endian unsigned integer.
fn decimal(bytes: &[u8]) -> String {
    let mut digits: Vec<u8> = vec![0];
    for &b in bytes {
        let mut carry = u32::from(b);
        for d in digits.iter_mut() {
            let v = u32::from(*d) * 256 + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    digits.iter().rev().map(|d| char::from(b'0' + d)).collect()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

impl Executor {
    fn schema(&self, type_name: &str) -> Option<&ResourceTypeSchema> {
        self.ctx.catalog.get(type_name)
    }

    fn emit(
        &self,
        kind: ApplyEventKind,
        c: &ResourceChange,
        action: &'static str,
        id: Option<String>,
        started: Instant,
        message: Option<String>,
    ) {
        if let Some(sink) = &self.events {
            sink(&ApplyEvent {
                kind,
                address: c.address.clone(),
                action,
                id,
                elapsed: started.elapsed(),
                message,
            });
        }
    }

    /// Runs a provider call with retries, reporting progress while it runs (when events have a sink).
    async fn call<T, F, Fut>(
        &self,
        c: &ResourceChange,
        action: &'static str,
        id: Option<String>,
        started: Instant,
        call: F,
    ) -> Result<T, ProviderError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, ProviderError>>,
    {
        let fut = self.retry.run(call);
        if self.events.is_none() {
            // No one to report progress to: no ticker beside the call.
            return fut.await;
        }
        let mut fut = std::pin::pin!(fut);
        loop {
            let tick = tokio::time::sleep(self.progress_interval);
            let tick = std::pin::pin!(tick);
            match select(fut.as_mut(), tick).await {
                Either::Left((out, _)) => return out,
                Either::Right(_) => self.emit(
                    ApplyEventKind::Progress,
                    c,
                    action,
                    id.clone(),
                    started,
                    None,
                ),
            }
        }
    }

    /// Writes (or with `None` deletes) `address`'s record under `key` with compare-and-swap against the
    /// version last seen.
    async fn write_record(
        &self,
        key: &str,
        payload: Option<&RecordBody>,
        address: &InstanceAddress,
    ) -> Result<(), GraphDiagnostic> {
        self.write_record_of(key, &address.to_string(), payload, address)
            .await
    }

    /// Writes (or with `None` deletes) the record of `subject` (the text `key` was made from: an instance
    /// address, a count block's address, an output's name) with compare-and-swap against the version last
    /// seen; `address` is the instance a failure is reported on.
    async fn write_record_of(
        &self,
        key: &str,
        subject: &str,
        payload: Option<&RecordBody>,
        address: &InstanceAddress,
    ) -> Result<(), GraphDiagnostic> {
        let mut versions = self.versions.lock().await;
        let expected = versions.get(key).cloned().flatten();
        let result = match payload {
            Some(p) => self
                .store
                .put_if_version(key, &p.to_payload_at(key, subject), expected.as_ref())
                .await
                .map(Some),
            None => match &expected {
                None => Ok(None),
                Some(v) => self.store.delete(key, Some(v)).await.map(|()| None),
            },
        };
        match result {
            Ok(v) => {
                versions.insert(key.to_owned(), v);
                Ok(())
            }
            Err(e) => Err(store_diag(&e, key, address)),
        }
    }

    /// Reads a record past every cache, remembering its version (for read-modify-write sites).
    async fn read_record(&self, key: &str) -> Result<Option<RecordBody>, StoreError> {
        let got = self.store.get(key).await?;
        let mut versions = self.versions.lock().await;
        match got {
            Some(r) => {
                versions.insert(key.to_owned(), Some(r.version.clone()));
                Ok(RecordBody::from_payload(&r.payload).ok())
            }
            None => {
                versions.insert(key.to_owned(), None);
                Ok(None)
            }
        }
    }

    /// Fetches what an instance's arguments read: the blocks read whole, and the members read by key.
    /// `None` when an upstream failed (the evaluation stops silently).
    async fn fetch_reads(
        &self,
        needed: BTreeMap<String, Option<BTreeSet<InstanceKey>>>,
        values: &ValueSource<EngineFamily>,
    ) -> Option<Reads> {
        let mut reads = Reads::default();
        for (block, keys) in needed {
            let shape = self.blocks.get(&block)?;
            let res = self.ctx.config.resources.get(shape.resource)?;
            let instances: &[InstanceAddress] = self
                .ctx
                .blocks
                .get(&block)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            match keys {
                None => {
                    let mut got = BTreeMap::new();
                    for a in instances {
                        got.insert(a.clone(), self.instance_value(a, values).await?);
                    }
                    let value = refs::block_value(res, instances, None, |a| {
                        got.remove(a).unwrap_or(Value::unknown())
                    });
                    reads.whole.insert(block, value);
                }
                Some(keys) => {
                    let mut wanted: Vec<usize> = keys
                        .iter()
                        .filter_map(|k| shape.positions.get(k).copied())
                        .collect();
                    wanted.sort_unstable();
                    for i in wanted {
                        let a = &instances[i];
                        let v = self.instance_value(a, values).await?;
                        reads.members.insert(a.clone(), v);
                    }
                    reads.keyed.insert(block, keys);
                }
            }
        }
        Some(reads)
    }

    /// The value of a block read by key, as [`refs::block_value`] builds it: the members read carry their
    /// values, every other member is unknown. Starts from the block with every member unknown.
    fn keyed_block_value(
        &self,
        block: &str,
        keys: &BTreeSet<InstanceKey>,
        members: &HashMap<InstanceAddress, Value>,
    ) -> Option<Value> {
        let shape = self.blocks.get(block)?;
        let instances: &[InstanceAddress] =
            self.ctx.blocks.get(block).map(Vec::as_slice).unwrap_or(&[]);
        let mut value = shape.unknown.clone();
        for k in keys {
            let Some(a) = shape.positions.get(k).and_then(|&i| instances.get(i)) else {
                continue;
            };
            let Some(v) = members.get(a) else { continue };
            match &mut value {
                Value::List(items) => {
                    if let Some(slot) = shape.positions.get(k).and_then(|&i| items.get_mut(i)) {
                        *slot = v.clone();
                    }
                }
                Value::Map(entries) => {
                    let key = match a.key() {
                        InstanceKey::Str(s) => s.clone(),
                        other => other.to_string(),
                    };
                    entries.insert(key, v.clone());
                }
                single => *single = v.clone(),
            }
        }
        Some(value)
    }

    /// The value of one instance for the evaluator: from the graph for an instance being applied, from the
    /// plan otherwise. `None` when an upstream failed.
    async fn instance_value(
        &self,
        a: &InstanceAddress,
        values: &ValueSource<EngineFamily>,
    ) -> Option<Value> {
        Some(if self.changes.contains_key(a) {
            let gv = values.resource_instance_value(a).await;
            if gv.unavailable == Some(Unavailable::EvaluationError) {
                return None;
            }
            gv.value
        } else if let Some(obj) = self.ctx.priors.get(a) {
            graph::object_value(obj)
        } else {
            Value::unknown()
        })
    }

    async fn create(
        &self,
        fp: &FinalPlan,
        started: Instant,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let c = &fp.change;
        let address = &fp.address;
        let type_name = address.type_name();
        let schema = self.schema(type_name).ok_or_else(|| {
            gdiag(
                Code::ApplyFailed,
                format!("{type_name} is not a known type"),
                "",
                address,
            )
        })?;
        let no_desired = BTreeMap::new();
        let desired = fp.desired.as_ref().unwrap_or(&no_desired);
        if schema.admission == Some(AdmissionPath::Record) {
            return self.create_record_backed(fp, schema, desired).await;
        }
        // The create intent, compare-and-swap against the version the plan saw: a second apply of the same
        // view loses here instead of creating a duplicate.
        let intent_key = self.keys.instance(Namespace::Intent, address);
        let pending = RecordBody::Intent(IntentRecord {
            state: IntentState::Pending,
            client_token: hex(&random_bytes(16)),
            time: now_secs(),
            id: None,
        });
        self.write_record(&intent_key, Some(&pending), address)
            .await?;
        let mut attributes = desired.clone();
        let tags: BTreeMap<String, String> =
            match attributes.remove("tags").as_ref().map(Value::peel) {
                Some(Value::Map(m)) => m
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.peel()
                                .as_str()
                                .map(str::to_owned)
                                .unwrap_or_else(|| v.to_string()),
                        )
                    })
                    .collect(),
                _ => BTreeMap::new(),
            };
        attributes.retain(|k, v| {
            schema
                .attribute(k)
                .is_some_and(|a| !matches!(a.mode, AttributeMode::Computed) && !a.residue)
                && !v.is_unknown()
        });
        let provider = Arc::clone(&self.provider);
        let request = CreateRequest {
            type_name: type_name.to_owned(),
            attributes,
            tags,
        };
        let created = self
            .call(c, "create", None, started, || {
                let provider = Arc::clone(&provider);
                let request = request.clone();
                async move { provider.create(request).await }
            })
            .await;
        let created = match created {
            Ok(o) => o,
            Err(e) => {
                // The provider refused: nothing was created, so the intent goes back to what it was.
                let previous = self.seen.get(&intent_key).map(|(b, _)| b.clone());
                let mut failed = gdiag(
                    Code::ApplyFailed,
                    format!("creating {address} failed: {e}"),
                    "the next plan proposes the create again; fix the cause first",
                    address,
                );
                // The create's error is what the user must see; a failed revert is told with it.
                if let Err(revert) = self
                    .write_record(&intent_key, previous.as_ref(), address)
                    .await
                {
                    failed.detail = format!(
                        "the create intent stays pending, because putting it back failed too ({}); the next \
                         plan waits for it for {} seconds and then proposes the create \
                         again; fix the cause first",
                        revert.summary,
                        projection::INTENT_PATIENCE_SECS
                    );
                }
                return Err(failed);
            }
        };
        let done = RecordBody::Intent(IntentRecord {
            state: IntentState::Done,
            client_token: match &pending {
                RecordBody::Intent(i) => i.client_token.clone(),
                _ => String::new(),
            },
            time: now_secs(),
            id: Some(created.id.clone()),
        });
        self.write_record(&intent_key, Some(&done), address).await?;
        self.after_create(fp, schema, desired, &created).await?;
        Ok(created)
    }

    /// The records a new object needs: located, residue, the count block's slot high-water mark.
    async fn after_create(
        &self,
        fp: &FinalPlan,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
        created: &LiveObject,
    ) -> Result<(), GraphDiagnostic> {
        let address = &fp.address;
        if let Some(located) = located_record(schema, created, desired) {
            let key = self.keys.instance(Namespace::Located, address);
            self.write_record(&key, Some(&RecordBody::Located(located)), address)
                .await?;
        }
        self.write_residue(address, schema, desired, created)
            .await?;
        if let Some(slot) = fp.change.slot {
            // Members of one block share the record: read-modify-write one at a time.
            let _turn = self.read_modify_write.lock().await;
            let key = self.keys.slots(address.block());
            let current = self
                .read_record(&key)
                .await
                .map_err(|e| store_diag(&e, &key, address))?;
            let high = match current {
                Some(RecordBody::Slots(r)) => Some(r.highest),
                _ => None,
            };
            if let Some(raised) = raised_slots(high, slot) {
                let block = address.block().to_string();
                self.write_record_of(&key, &block, Some(&RecordBody::Slots(raised)), address)
                    .await?;
            }
        }
        Ok(())
    }

    async fn write_residue(
        &self,
        address: &InstanceAddress,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
        object: &LiveObject,
    ) -> Result<(), GraphDiagnostic> {
        let mut values = BTreeMap::new();
        let mut sensitive_paths = Vec::new();
        for name in schema.residue_attributes() {
            let v = object.attribute(name).or_else(|| desired.get(name));
            if let Some(v) = v
                && let Ok(json) = v.to_json()
            {
                if v.contains_sensitive() {
                    sensitive_paths.push(name.to_owned());
                }
                values.insert(name.to_owned(), json);
            }
        }
        if values.is_empty() {
            return Ok(());
        }
        let key = self.keys.instance(Namespace::Residue, address);
        let payload = RecordBody::Residue(ResidueRecord {
            values,
            sensitive_paths,
        });
        if self.seen.get(&key).map(|(b, _)| b) == Some(&payload) {
            return Ok(());
        }
        self.write_record(&key, Some(&payload), address).await
    }

    async fn create_record_backed(
        &self,
        fp: &FinalPlan,
        schema: &ResourceTypeSchema,
        desired: &BTreeMap<String, Value>,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let address = &fp.address;
        let mut attributes: BTreeMap<String, Value> = desired
            .iter()
            .filter(|(k, v)| {
                schema
                    .attribute(k)
                    .is_some_and(|a| !matches!(a.mode, AttributeMode::Computed))
                    && !v.is_unknown()
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let id = match address.type_name() {
            "random_id" => {
                let n = attributes
                    .get("byte_length")
                    .and_then(|v| v.peel().as_number())
                    .and_then(|n| n.as_u64())
                    .filter(|n| (1..=1024).contains(n))
                    .ok_or_else(|| {
                        gdiag(
                            Code::ApplyFailed,
                            format!("{address}: byte_length must be a whole number from 1 to 1024"),
                            "fix byte_length in the configuration",
                            address,
                        )
                    })?;
                let bytes = random_bytes(n as usize);
                let b64 = projection::b64::encode(&bytes);
                attributes.insert("hex".to_owned(), Value::from(hex(&bytes)));
                attributes.insert("b64_url".to_owned(), Value::from(b64.clone()));
                attributes.insert("dec".to_owned(), Value::from(decimal(&bytes)));
                b64
            }
            _ => {
                let output = attributes.get("input").cloned().unwrap_or(Value::Null);
                attributes.insert("output".to_owned(), output);
                let b = random_bytes(16);
                format!(
                    "{}-{}-{}-{}-{}",
                    hex(&b[0..4]),
                    hex(&b[4..6]),
                    hex(&b[6..8]),
                    hex(&b[8..10]),
                    hex(&b[10..16])
                )
            }
        };
        attributes.insert("id".to_owned(), Value::from(id.clone()));
        let object = LiveObject {
            type_name: address.type_name().to_owned(),
            id,
            region: self.ctx.region.clone(),
            attributes,
            tags: BTreeMap::new(),
        };
        self.write_object_record(address, &object).await?;
        Ok(object)
    }

    async fn write_object_record(
        &self,
        address: &InstanceAddress,
        object: &LiveObject,
    ) -> Result<(), GraphDiagnostic> {
        let mut json = BTreeMap::new();
        let mut sensitive = Vec::new();
        for (k, v) in &object.attributes {
            if v.contains_sensitive() {
                sensitive.push(k.clone());
            }
            let (plain, _) = v.clone().unmark_deep();
            if let Ok(j) = plain.to_json() {
                json.insert(k.clone(), j);
            }
        }
        let payload = RecordBody::Object(ObjectRecord {
            id: object.id.clone(),
            attributes: json,
            sensitive_paths: sensitive,
        });
        let key = self.keys.instance(Namespace::Records, address);
        self.write_record(&key, Some(&payload), address).await
    }

    async fn update(
        &self,
        fp: &FinalPlan,
        started: Instant,
    ) -> Result<LiveObject, GraphDiagnostic> {
        let address = &fp.address;
        let type_name = address.type_name();
        let schema = self.schema(type_name).ok_or_else(|| {
            gdiag(
                Code::ApplyFailed,
                format!("{type_name} is not a known type"),
                "",
                address,
            )
        })?;
        let prior = fp.prior.clone().ok_or_else(|| {
            gdiag(
                Code::ApplyFailed,
                format!("{address} has no object to update"),
                "plan again",
                address,
            )
        })?;
        let desired = fp.desired.clone().unwrap_or_default();
        if schema.admission == Some(AdmissionPath::Record) {
            let mut object = prior.clone();
            for (k, v) in &desired {
                if schema
                    .attribute(k)
                    .is_some_and(|a| !matches!(a.mode, AttributeMode::Computed))
                    && !v.is_unknown()
                {
                    object.attributes.insert(k.clone(), v.clone());
                }
            }
            if type_name == "terraform_data" {
                let input = object
                    .attributes
                    .get("input")
                    .cloned()
                    .unwrap_or(Value::Null);
                object.attributes.insert("output".to_owned(), input);
            }
            self.write_object_record(address, &object).await?;
            return Ok(object);
        }
        let mut attributes = BTreeMap::new();
        for name in &fp.change.changed {
            if name == "tags" {
                continue;
            }
            if let Some(a) = schema.attribute(name)
                && !a.residue
                && let Some(v) = desired.get(name)
            {
                attributes.insert(name.clone(), v.clone());
            }
        }
        let object = if attributes.is_empty() && fp.tag_change.is_empty() {
            prior.clone()
        } else {
            let provider = Arc::clone(&self.provider);
            let request = UpdateRequest {
                type_name: type_name.to_owned(),
                id: prior.id.clone(),
                attributes,
                tags: fp.tag_change.clone(),
            };
            self.call(
                &fp.change,
                "update",
                Some(prior.id.clone()),
                started,
                || {
                    let provider = Arc::clone(&provider);
                    let request = request.clone();
                    async move { provider.update(request).await }
                },
            )
            .await
            .map_err(|e| {
                gdiag(
                    Code::ApplyFailed,
                    format!("updating {address} failed: {e}"),
                    "the next plan proposes the update again; fix the cause first",
                    address,
                )
            })?
        };
        self.write_residue(address, schema, &desired, &object)
            .await?;
        self.settle_intent(address, &object.id).await?;
        Ok(object)
    }

    /// Marks done a pending intent left by an interrupted apply, now that `address`'s object (`id`) is known.
    async fn settle_intent(
        &self,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<(), GraphDiagnostic> {
        let intent_key = self.keys.instance(Namespace::Intent, address);
        if let Some((RecordBody::Intent(intent), _)) = self.seen.get(&intent_key)
            && intent.state == IntentState::Pending
        {
            let done = RecordBody::Intent(IntentRecord {
                state: IntentState::Done,
                client_token: intent.client_token.clone(),
                time: now_secs(),
                id: Some(id.to_owned()),
            });
            self.write_record(&intent_key, Some(&done), address).await?;
        }
        Ok(())
    }

    async fn delete(&self, fp: &FinalPlan, started: Instant) -> Result<(), GraphDiagnostic> {
        let address = &fp.address;
        let type_name = address.type_name();
        let prior = fp.prior.clone().ok_or_else(|| {
            gdiag(
                Code::ApplyFailed,
                format!("{address} has no object to delete"),
                "plan again",
                address,
            )
        })?;
        let record_backed =
            self.schema(type_name).and_then(|s| s.admission) == Some(AdmissionPath::Record);
        if !record_backed {
            let provider = Arc::clone(&self.provider);
            let t = type_name.to_owned();
            let id = prior.id.clone();
            let result = self
                .call(
                    &fp.change,
                    "delete",
                    Some(prior.id.clone()),
                    started,
                    || {
                        let provider = Arc::clone(&provider);
                        let (t, id) = (t.clone(), id.clone());
                        async move { provider.delete(&t, &id).await }
                    },
                )
                .await;
            match result {
                Ok(()) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => {
                    return Err(gdiag(
                        Code::ApplyFailed,
                        format!("destroying {address} ({}) failed: {e}", prior.id),
                        "the next plan proposes the delete again; fix the cause first",
                        address,
                    ));
                }
            }
        }
        if let Some(key) = &fp.deposed {
            return self.remove_deposed(address, key).await;
        }
        // The instance is gone: its records go with it, except while a replace's new object lives on.
        if fp.change.action == Action::Replace {
            return Ok(());
        }
        for ns in [
            Namespace::Records,
            Namespace::Residue,
            Namespace::Located,
            Namespace::Intent,
        ] {
            let key = self.keys.instance(ns, address);
            self.write_record(&key, None, address).await?;
        }
        Ok(())
    }

    /// Records `object` as `address`'s object after the apply: the old object of a create-before-destroy
    /// whose create made nothing, which stays current.
    fn keep_current(&self, address: &InstanceAddress, object: &LiveObject) {
        self.results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(address.clone(), Some(object.clone()));
    }

    async fn remove_deposed(
        &self,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<(), GraphDiagnostic> {
        let _turn = self.read_modify_write.lock().await;
        let key = self.keys.instance(Namespace::Deposed, address);
        let current = self
            .read_record(&key)
            .await
            .map_err(|e| store_diag(&e, &key, address))?;
        let mut ids = match current {
            Some(RecordBody::Deposed(r)) => r.ids,
            _ => return Ok(()),
        };
        ids.retain(|x| x != id);
        let payload = (!ids.is_empty()).then_some(RecordBody::Deposed(DeposedRecord { ids }));
        self.write_record(&key, payload.as_ref(), address).await
    }

    async fn add_deposed(
        &self,
        address: &InstanceAddress,
        id: &str,
    ) -> Result<(), GraphDiagnostic> {
        let _turn = self.read_modify_write.lock().await;
        let key = self.keys.instance(Namespace::Deposed, address);
        let current = self
            .read_record(&key)
            .await
            .map_err(|e| store_diag(&e, &key, address))?;
        let mut ids = match current {
            Some(RecordBody::Deposed(r)) => r.ids,
            _ => Vec::new(),
        };
        if !ids.iter().any(|x| x == id) {
            ids.push(id.to_owned());
            ids.sort();
        }
        self.write_record(
            &key,
            Some(&RecordBody::Deposed(DeposedRecord { ids })),
            address,
        )
        .await
    }

    /// Evaluates the outputs with the final values and writes the changed ones.
    async fn write_outputs(&self, diagnostics: &mut Vec<Diagnostic>) -> BTreeMap<String, Value> {
        // An output no longer declared keeps no record, as Terraform drops it from its state.
        for name in self.ctx.removed_outputs() {
            let key = self.keys.output(name);
            if let Ok(address) = InstanceAddress::single("output", name)
                && let Err(d) = self.write_record(&key, None, &address).await
            {
                diagnostics.push(to_diagnostic(d));
            }
        }
        if self.ctx.config.outputs.is_empty() {
            return BTreeMap::new();
        }
        let results = self
            .results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut values: BTreeMap<String, Value> = BTreeMap::new();
        let mut declared: HashMap<String, Vec<&InstanceAddress>> = HashMap::new();
        for a in self.ctx.declared.keys() {
            declared.entry(a.block().to_string()).or_default().push(a);
        }
        for res in &self.ctx.config.resources {
            let block = res.address();
            let mut items = Vec::new();
            for &a in declared.get(&block).into_iter().flatten() {
                let v = match results.get(a) {
                    Some(Some(o)) => graph::object_value(o),
                    Some(None) => Value::Null,
                    None => self
                        .ctx
                        .priors
                        .get(a)
                        .map(graph::object_value)
                        .unwrap_or(Value::unknown()),
                };
                items.push((a.key().clone(), v));
            }
            let v = if res.repetition.count().is_some() {
                Value::List(items.into_iter().map(|(_, v)| v).collect())
            } else if res.repetition.for_each().is_some() {
                Value::Map(
                    items
                        .into_iter()
                        .map(|(k, v)| match k {
                            InstanceKey::Str(s) => (s, v),
                            other => (other.to_string(), v),
                        })
                        .collect(),
                )
            } else {
                items
                    .into_iter()
                    .next()
                    .map(|(_, v)| v)
                    .unwrap_or(Value::unknown())
            };
            values.insert(block, v);
        }
        let mut out = BTreeMap::new();
        let computed: Vec<(String, Value, bool)> = {
            let ev = Evaluator::with_resources(&self.ctx.config, &self.ctx.variables, &values)
                .with_impure(&self.impure);
            self.ctx
                .config
                .outputs
                .values()
                .filter_map(|o| {
                    ev.eval(&o.value, &admission::eval::Instance::Single)
                        .ok()
                        .map(|v| (o.name.clone(), v, o.sensitive))
                })
                .collect()
        };
        for (name, value, sensitive) in computed {
            let value = value.mark_sensitive_if(sensitive);
            let (plain, _) = value.clone().unmark_deep();
            if let Ok(json) = plain.to_json() {
                let key = self.keys.output(&name);
                let payload = RecordBody::Output(OutputRecord {
                    value: json,
                    sensitive: value.contains_sensitive(),
                });
                if self.seen.get(&key).map(|(b, _)| b) != Some(&payload) {
                    let addr = InstanceAddress::single("output", &name).ok();
                    let result = match &addr {
                        Some(a) => self.write_record_of(&key, &name, Some(&payload), a).await,
                        None => Ok(()),
                    };
                    if let Err(d) = result {
                        diagnostics.push(to_diagnostic(d));
                    }
                }
            }
            out.insert(name, value);
        }
        out
    }
}

/// The planned tags with the values the plan left unknown taken from the configuration evaluated now:
/// the markers and every known tag stay exactly as reviewed. A value still unknown stays unknown, which
/// the caller refuses.
fn known_tags(planned: &Value, configured: Option<&Value>) -> Value {
    let Some(planned) = planned.as_map() else {
        return planned.clone();
    };
    let now = configured.and_then(|c| c.peel().as_map());
    Value::Map(
        planned
            .iter()
            .map(|(k, v)| {
                let value = match now.and_then(|m| m.get(k)) {
                    Some(c) if v.is_unknown() => crate::planner::tag_value(c)
                        .mark_sensitive_if(v.is_sensitive() || c.contains_sensitive()),
                    _ => v.clone(),
                };
                (k.clone(), value)
            })
            .collect(),
    )
}

/// The tag change of an update: the reviewed one, plus the tags whose values were unknown at plan time
/// and are known in `desired` now (those that already hold that value are left alone).
fn final_tag_change(
    change: &ResourceChange,
    desired: Option<&BTreeMap<String, Value>>,
    prior: Option<&LiveObject>,
) -> TagChange {
    let mut tag_change = change.tag_change.clone();
    let planned = change.after.as_ref().and_then(|a| a.get("tags"));
    let now = desired.and_then(|d| d.get("tags"));
    let (Some(planned), Some(now), Some(prior)) = (planned.and_then(Value::as_map), now, prior)
    else {
        return tag_change;
    };
    let unknown = planned
        .iter()
        .filter(|(_, v)| v.is_unknown())
        .map(|(k, _)| k);
    for k in unknown {
        if let Some(text) = now.get(k).and_then(Value::as_str)
            && prior.tags.get(k).map(String::as_str) != Some(text)
        {
            tag_change.set.insert(k.clone(), text.to_owned());
        }
    }
    tag_change
}

fn store_diag(e: &StoreError, key: &str, address: &InstanceAddress) -> GraphDiagnostic {
    if let Some(d) = crate::error::kms_denied(e) {
        gdiag(d.code, d.summary, d.detail, address)
    } else if e.as_conflict().is_some() {
        gdiag(
            Code::VersionConflict,
            format!("the record {key} changed since the plan read it"),
            "another apply of this estate ran at the same time; plan again to see what it did",
            address,
        )
    } else {
        gdiag(
            Code::ApplyFailed,
            format!("writing the record {key} failed: {e}"),
            "check the record store and plan again",
            address,
        )
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
        let change = self.changes.get(addr).cloned().ok_or_else(|| {
            vec![gdiag(
                Code::ApplyFailed,
                format!("{addr} has no change in the plan"),
                "plan again",
                addr,
            )]
        })?;
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
        let address = &meta.address;
        let Some(res) = self
            .ctx
            .config
            .resource(address.type_name(), address.block().name())
        else {
            return Err(vec![gdiag(
                Code::ApplyFailed,
                format!("{address} is not declared"),
                "plan again",
                address,
            )]);
        };
        let schema = self.schema(address.type_name()).ok_or_else(|| {
            vec![gdiag(
                Code::ApplyFailed,
                format!("{} is not a known type", address.type_name()),
                "",
                address,
            )]
        })?;
        let repetition = self
            .ctx
            .declared
            .get(address)
            .cloned()
            .unwrap_or(admission::eval::Instance::Single);
        let needed = {
            let statics = Evaluator::new(&self.ctx.config, &self.ctx.variables);
            refs::needed_instances(&self.ctx.config, &statics, res, &repetition)
        };
        let Some(reads) = self.fetch_reads(needed, values).await else {
            return Err(Vec::new());
        };
        let configured: Result<BTreeMap<String, Value>, GraphDiagnostic> = {
            let resolver = ReadResolver {
                exec: self,
                reads: &reads,
            };
            let ev = Evaluator::with_resources(&self.ctx.config, &self.ctx.variables, &resolver)
                .with_impure(&self.impure);
            let mut out = BTreeMap::new();
            let mut err = None;
            for (name, attr) in &res.attrs {
                match ev.eval(&attr.expr, &repetition) {
                    Ok(v) => {
                        if !v.is_null() || schema.attribute(name).is_some_and(|a| a.is_required()) {
                            out.insert(name.clone(), v);
                        }
                    }
                    Err(e) => {
                        let d = e.into_diagnostic(Code::ApplyFailed);
                        err = Some(gdiag(Code::ApplyFailed, d.summary, d.detail, address));
                    }
                }
            }
            match err {
                Some(e) => Err(e),
                None => Ok(out),
            }
        };
        let configured = configured.map_err(|d| vec![d])?;
        let mut desired = schema.desired(&configured, &self.ctx.region);
        desired.remove("tags");
        if let Some(tags) = meta.change.after.as_ref().and_then(|a| a.get("tags")) {
            desired.insert("tags".to_owned(), known_tags(tags, configured.get("tags")));
        }
        for (name, v) in &desired {
            let computed = schema
                .attribute(name)
                .is_some_and(|a| matches!(a.mode, AttributeMode::Computed));
            if !computed && !v.is_known() {
                return Err(vec![gdiag(
                    Code::ApplyFailed,
                    format!("{address}.{name} is still unknown at apply time"),
                    "it depends on a value the live system did not return; plan and apply again",
                    address,
                )]);
            }
        }
        Ok(desired)
    }

    async fn managed_final_plan(
        &self,
        meta: &Meta,
        desired: Option<&BTreeMap<String, Value>>,
        prior: Option<&LiveObject>,
        _planned: Option<&GraphValue>,
    ) -> OpResult<FinalPlan> {
        let kind = match (desired, prior) {
            (Some(_), None) => FinalKind::Create,
            (Some(_), Some(_)) => FinalKind::Update,
            (None, Some(_)) => FinalKind::Delete,
            (None, None) => {
                return Err(vec![gdiag(
                    Code::ApplyFailed,
                    format!("{} has neither a desired nor a prior object", meta.address),
                    "plan again",
                    &meta.address,
                )]);
            }
        };
        Ok(FinalPlan {
            kind,
            address: meta.address.clone(),
            change: Arc::clone(&meta.change),
            desired: desired.cloned(),
            prior: prior.cloned(),
            deposed: meta.deposed.clone(),
            tag_change: final_tag_change(&meta.change, desired, prior),
        })
    }

    async fn managed_apply(
        &self,
        plan: &FinalPlan,
        fallback: Option<&LiveObject>,
    ) -> Applied<LiveObject> {
        let started = Instant::now();
        let c = &plan.change;
        if let (FinalKind::Create, Some(old)) = (plan.kind, fallback) {
            // The create leg of a create-before-destroy: the old object is recorded as deposed here, as the
            // create starts, and not when the graph deposes it. A create that never starts (cancelled, or
            // skipped after a failure upstream) then leaves the old object current, where a record written
            // earlier would have had the next plan destroy it. Recorded before the new object exists, so a
            // crash in between leaves a deposed object the next plan deletes instead of a marker collision.
            if let Err(d) = self.add_deposed(&plan.address, &old.id).await {
                // Nothing was created: the graph keeps the old object as the instance's.
                self.keep_current(&plan.address, old);
                return Applied::failed(vec![d]);
            }
        }
        let (action, id) = match plan.kind {
            FinalKind::Create => ("create", None),
            FinalKind::Update => ("update", plan.prior.as_ref().map(|o| o.id.clone())),
            FinalKind::Delete => ("delete", plan.prior.as_ref().map(|o| o.id.clone())),
        };
        self.emit(
            ApplyEventKind::Started,
            c,
            action,
            id.clone(),
            started,
            None,
        );
        let result = match plan.kind {
            FinalKind::Create => self.create(plan, started).await.map(Some),
            FinalKind::Update => self.update(plan, started).await.map(Some),
            FinalKind::Delete => self.delete(plan, started).await.map(|()| None),
        };
        match result {
            Ok(object) => {
                let shown = object.as_ref().map(|o| o.id.clone()).or(id);
                self.emit(ApplyEventKind::Completed, c, action, shown, started, None);
                if plan.deposed.is_none()
                    && !(plan.kind == FinalKind::Delete && c.action == Action::Replace)
                {
                    self.results
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(plan.address.clone(), object.clone());
                }
                Applied::ok(object)
            }
            Err(d) => {
                self.emit(
                    ApplyEventKind::Errored,
                    c,
                    action,
                    id,
                    started,
                    Some(d.summary.clone()),
                );
                if let Some(old) = fallback {
                    // The create of a create-before-destroy made nothing: the deposed object is current again
                    // (the graph restores it as the instance's object when this returns none).
                    self.keep_current(&plan.address, old);
                    if let Err(e) = self.remove_deposed(&plan.address, &old.id).await {
                        return Applied::failed(vec![d, e]);
                    }
                }
                Applied::failed(vec![d])
            }
        }
    }

    async fn managed_perform_depose(
        &self,
        current: Option<&LiveObject>,
        delete_plan: &FinalPlan,
    ) -> OpResult<LiveObject> {
        let Some(current) = current else {
            return Err(vec![gdiag(
                Code::ApplyFailed,
                format!("{} has no object to depose", delete_plan.address),
                "plan again",
                &delete_plan.address,
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
                vec![gdiag(
                    Code::ApplyFailed,
                    format!("{addr} has no deposed object {key} in the plan"),
                    "plan again",
                    addr,
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
            .ok_or_else(|| {
                vec![gdiag(
                    Code::ApplyFailed,
                    format!("{addr} has no deposed object {key}"),
                    "plan again",
                    addr,
                )]
            })
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

/// The `located` record of an object the tagging sweep cannot see (untaggable, or outside the tagging
/// index, like IAM roles and users): without it, the estate would never find the object again once its
/// address is no longer declared. `None` for a type the sweep sees. The identity is read from the object,
/// else from the desired values.
pub(crate) fn located_record(
    schema: &ResourceTypeSchema,
    object: &LiveObject,
    desired: &BTreeMap<String, Value>,
) -> Option<LocatedRecord> {
    if schema.taggable && schema.in_tagging_index {
        return None;
    }
    let identity = schema
        .identity_arguments()
        .iter()
        .filter_map(|a| {
            object
                .attribute_str(a)
                .or_else(|| desired.get(a).and_then(Value::as_str))
                .map(|v| (a.clone(), v.to_owned()))
        })
        .collect();
    Some(LocatedRecord {
        id: object.id.clone(),
        identity,
    })
}

/// The slot high-water record after `slot` is given to an object, when it must rise: it holds the highest
/// slot ever minted for the block (`highest`, `None` without a record), so that no slot is minted twice.
pub(crate) fn raised_slots(highest: Option<Slot>, slot: Slot) -> Option<SlotsRecord> {
    highest
        .is_none_or(|h| h < slot)
        .then_some(SlotsRecord { highest: slot })
}

/// Reads the live object of a client-named identity (used by adoption).
pub(crate) async fn read_identity(
    provider: &dyn Provider,
    retry: &RetryPolicy,
    type_name: &str,
    name: &str,
) -> Result<Option<LiveObject>, ProviderError> {
    let identity = Identity::Name(name.to_owned());
    retry.run(|| provider.read(type_name, &identity)).await
}

/// Every record of a plan's record set by key, with the version the plan saw.
fn records_seen(
    keys: &RecordKeys,
    records: &projection::RecordSet,
) -> BTreeMap<String, (RecordBody, Version)> {
    fn add<K, T: Clone>(
        out: &mut BTreeMap<String, (RecordBody, Version)>,
        stored: &BTreeMap<K, projection::record::Stored<T>>,
        key: impl Fn(&K) -> String,
        wrap: fn(T) -> RecordBody,
    ) {
        for (k, r) in stored {
            out.insert(key(k), (wrap(r.body.clone()), r.version.clone()));
        }
    }
    let instance = |ns: Namespace| move |a: &InstanceAddress| keys.instance(ns, a);
    let mut out = BTreeMap::new();
    add(
        &mut out,
        &records.objects,
        instance(Namespace::Records),
        RecordBody::Object,
    );
    add(
        &mut out,
        &records.residue,
        instance(Namespace::Residue),
        RecordBody::Residue,
    );
    add(
        &mut out,
        &records.deposed,
        instance(Namespace::Deposed),
        RecordBody::Deposed,
    );
    add(
        &mut out,
        &records.intents,
        instance(Namespace::Intent),
        RecordBody::Intent,
    );
    add(
        &mut out,
        &records.located,
        instance(Namespace::Located),
        RecordBody::Located,
    );
    add(
        &mut out,
        &records.slots,
        |b| keys.slots(b),
        RecordBody::Slots,
    );
    add(
        &mut out,
        &records.outputs,
        |n| keys.output(n),
        RecordBody::Output,
    );
    out
}
