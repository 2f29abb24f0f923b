//! Planning: the configuration evaluated into desired instances, the live system read into a prior state by
//! the projection, and the two diffed into a [`Plan`].
//!
//! The planner hands `projection` a plain [`Declared`] model of the declared instances (static identity
//! values, parents named by address, bind-candidate and content values), takes back the [`Projection`]
//! (bindings, slots, residue, reports, records), then evaluates every instance in dependency order with
//! unknowns for values of resources not yet applied and diffs it against its bound object. Planning never
//! writes: not to the cloud, not to the store.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use admission::config::{Config, IgnoreChanges, SourceFile, VariableInputs};
use admission::eval::{Evaluator, ResourceResolver};
use admission::lint::{DeclaredInstance, IdentityValue};
use admission::marker::{self, Estate};
use admission::provider::TagChange;
use admission::schema::{AttributeMode, BindMatch, ResourceTypeSchema};
use admission::{
    AdmissionPath, BlockAddress, Catalog, Code, Diagnostic, InstanceAddress, InstanceKey,
    LiveObject, Provider, Slot, Value,
};
use projection::{
    Binding, Declared, DeclaredValue, Expansion, Projection, ProjectionConfig, Removal,
    UndeclaredAction,
};
use staterecord::{CacheScope, Store};

use crate::model::{
    Action, BindCandidate, Cost, ForeignObject, OwnedUndeclared, Plan, PlanContext, RenameHint,
    ReplaceOrder, ResourceChange, UnownedObject, UnownedVerdict,
};
use crate::refs;
use projection::RetryPolicy;

/// What to plan: the configuration files, the variable inputs, the estate flag and how to read.
#[derive(Debug, Clone)]
pub struct PlanRequest<'a> {
    /// The `*.tf` files.
    pub files: &'a [SourceFile],
    /// Variable values from files, the environment and the command line.
    pub inputs: &'a VariableInputs,
    /// `--estate`, if given.
    pub estate_flag: Option<&'a str>,
    /// How reads are retried.
    pub retry: RetryPolicy,
    /// Reads in flight during discovery (`--read-concurrency`).
    pub read_concurrency: usize,
    /// The record key prefix (empty, or ending with `/`).
    pub key_prefix: &'a str,
}

impl<'a> PlanRequest<'a> {
    /// A request with the defaults: the default retry policy, 16 reads in flight, no key prefix.
    pub fn new(files: &'a [SourceFile], inputs: &'a VariableInputs) -> PlanRequest<'a> {
        PlanRequest {
            files,
            inputs,
            estate_flag: None,
            retry: RetryPolicy::default(),
            read_concurrency: 16,
            key_prefix: "",
        }
    }
}

/// How a request's projection reads: the same for a plan and for the checks of an adoption, so that
/// both see the live system alike.
pub(crate) fn projection_config(request: &PlanRequest<'_>) -> ProjectionConfig {
    ProjectionConfig {
        read_concurrency: request.read_concurrency.max(1),
        retry: request.retry.clone(),
        now: now_secs(),
        key_prefix: request.key_prefix.to_owned(),
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Plans: parses and lints the configuration, projects the live system and the estate's records (one bulk
/// trip through a run cache of `scope`), and diffs. Writes nothing anywhere.
#[tracing::instrument(skip_all, fields(estate = tracing::field::Empty), err)]
pub async fn plan(
    request: &PlanRequest<'_>,
    provider: &dyn Provider,
    store: Arc<dyn Store>,
    scope: &CacheScope,
) -> Result<Plan, crate::Error> {
    let catalog = provider.schemas().merged(admission::catalog::builtin());
    let (config, linted) =
        admission::lint::check(request.files, request.inputs, &catalog, request.estate_flag);
    let (variables, _) = admission::config::resolve_variables(&config, request.inputs);
    let mut diagnostics = linted.diagnostics.clone();
    let region = provider.region();
    let estate_name = linted.estate.clone().unwrap_or_default();
    // Known only once the configuration is read: the span names it from here on.
    tracing::Span::current().record("estate", estate_name.as_str());
    let estate = Estate::new(estate_name.clone()).ok();
    let declared_map: BTreeMap<InstanceAddress, &DeclaredInstance> = linted
        .instances
        .iter()
        .map(|d| (d.address.clone(), d))
        .collect();
    let mut blocks: BTreeMap<String, Vec<InstanceAddress>> = BTreeMap::new();
    for d in &linted.instances {
        blocks
            .entry(d.address.block().to_string())
            .or_default()
            .push(d.address.clone());
    }
    let mut planner = Planner {
        blocks: &blocks,
        config: &config,
        variables: &variables,
        catalog: &catalog,
        region: region.clone(),
        estate: estate.clone(),
        declared: declared_map,
        diagnostics: Vec::new(),
        bound: BTreeMap::new(),
        slots: BTreeMap::new(),
        residue: BTreeMap::new(),
        blocked: BTreeSet::new(),
        creates_withheld: BTreeSet::new(),
        incomplete_types: BTreeSet::new(),
        changes: Vec::new(),
        values: BTreeMap::new(),
    };
    let mut projected: Option<Projection> = None;
    if let (false, Some(estate)) = (linted.has_errors(), &estate) {
        let declared = declared_model(&config, &variables, &catalog, &linted.instances, &region)?;
        let keys = projection::RecordKeys::new(request.key_prefix, estate)?;
        let cache = scope.cache(store, keys.prefix());
        let mut p = projection::project(
            provider,
            &cache,
            estate,
            &declared,
            &projection_config(request),
        )
        .await?;
        planner.absorb(&mut p);
        planner.evaluate();
        planner.removals(&p);
        projected = Some(p);
    }
    let Planner {
        diagnostics: found,
        mut changes,
        bound,
        ..
    } = planner;
    diagnostics.extend(found);
    let mut report = Reports::default();
    let mut deposed = BTreeMap::new();
    let mut stale_deposed = Vec::new();
    let mut records = projection::RecordSet::default();
    let mut cost = Cost::default();
    if let Some(p) = projected {
        report = Reports::from_projection(&p);
        diagnostics.extend(p.diagnostics.iter().cloned());
        stale_deposed = p
            .deposed
            .iter()
            .filter(|d| !d.present)
            .map(|d| (d.address.clone(), d.id.clone()))
            .collect();
        for d in p.deposed.iter().filter(|d| d.present) {
            deposed
                .entry(d.address.clone())
                .or_insert_with(Vec::new)
                .push(LiveObject {
                    type_name: d.type_name.clone(),
                    id: d.id.clone(),
                    region: region.clone(),
                    attributes: BTreeMap::new(),
                    tags: BTreeMap::new(),
                });
        }
        cost = Cost {
            api_calls: p.cost.api_calls,
            api_calls_by_operation: p.cost.api_calls_by_operation.clone(),
            store_trips: p.cost.store_trips,
        };
        records = p.records;
    }
    changes.sort_by_cached_key(ResourceChange::sort_key);
    // An instance with an effective change settles its intent in that change's apply; the rest here.
    let changed: std::collections::HashSet<&InstanceAddress> = changes
        .iter()
        .filter(|c| c.action != Action::NoOp)
        .map(|c| &c.address)
        .collect();
    let settled_intents = records
        .intents
        .iter()
        .filter(|(a, i)| {
            i.body.state == projection::record::IntentState::Pending && !changed.contains(a)
        })
        .filter_map(|(a, _)| bound.get(a).map(|o| (a.clone(), o.id.clone())))
        .collect();
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.summary.cmp(&b.summary))
    });
    diagnostics.dedup();
    let context = PlanContext {
        config,
        variables,
        catalog,
        region,
        priors: bound,
        deposed,
        declared: linted
            .instances
            .into_iter()
            .map(|d| (d.address, d.repetition))
            .collect(),
        records,
        key_prefix: request.key_prefix.to_owned(),
        stale_deposed,
        settled_intents,
        blocks,
    };
    Ok(Plan {
        estate: estate_name,
        changes,
        foreign: report.foreign,
        bind_candidates: report.bind_candidates,
        unowned: report.unowned,
        owned_undeclared: report.owned_undeclared,
        rename_hints: report.rename_hints,
        diagnostics,
        cost,
        context: Arc::new(context),
    })
}

/// The reports of a plan, taken from the projection.
#[derive(Default)]
struct Reports {
    foreign: Vec<ForeignObject>,
    bind_candidates: Vec<BindCandidate>,
    unowned: Vec<UnownedObject>,
    owned_undeclared: Vec<OwnedUndeclared>,
    rename_hints: Vec<RenameHint>,
}

impl Reports {
    fn from_projection(p: &Projection) -> Reports {
        Reports {
            foreign: p
                .foreign
                .iter()
                .map(|f| ForeignObject {
                    type_name: f.type_name.clone(),
                    id: f.id.clone(),
                    tags: f.tags.clone(),
                })
                .collect(),
            bind_candidates: p
                .bind_candidates
                .iter()
                .map(|b| BindCandidate {
                    address: b.address.clone(),
                    id: b.id.clone(),
                    matched: b
                        .matched
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                        .collect(),
                })
                .collect(),
            unowned: p
                .unowned
                .iter()
                .map(|u| UnownedObject {
                    address: u.address.clone(),
                    id: u.id.clone(),
                    verdict: match &u.estate {
                        Some(e) => UnownedVerdict::InTheWay { estate: e.clone() },
                        None => UnownedVerdict::Adoptable,
                    },
                })
                .collect(),
            owned_undeclared: p
                .owned_undeclared
                .iter()
                .filter(|o| o.reason == Removal::NoLongerDeclared)
                .map(|o| OwnedUndeclared {
                    address: o.address.clone(),
                    id: o.id.clone(),
                    action: match o.action {
                        UndeclaredAction::Delete => "delete",
                        UndeclaredAction::WithheldForRename => "withheld",
                    },
                })
                .collect(),
            rename_hints: p
                .rename_hints
                .iter()
                .map(|h| RenameHint {
                    from: h.from.clone(),
                    to: if h.to.len() == 1 && h.command.is_some() {
                        h.to.first().cloned()
                    } else {
                        None
                    },
                    id: h.id.clone(),
                })
                .collect(),
        }
    }
}

/// Resolves every declared block to instances whose `id` (and client-named identity) is a sentinel naming
/// the instance, so that an identity argument reading a parent's id evaluates to that sentinel.
struct ParentRefs<'a> {
    config: &'a Config,
    catalog: &'a Catalog,
    instances: &'a [DeclaredInstance],
}

const SENTINEL: &str = "\u{1}instance:";

impl ResourceResolver for ParentRefs<'_> {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        let res = self.config.resource(type_name, name)?;
        let schema = self.catalog.get(type_name);
        let value_of = |a: &InstanceAddress| {
            let sentinel = Value::from(format!("{SENTINEL}{a}"));
            let mut m = BTreeMap::new();
            if let Some(s) = schema {
                for attr in s.attributes.values() {
                    m.insert(attr.name.clone(), Value::Unknown(attr.value_type.clone()));
                }
                if s.admission == Some(AdmissionPath::ClientNamed) {
                    for arg in s.identity_arguments() {
                        m.insert(arg.clone(), sentinel.clone());
                    }
                }
            }
            m.insert("id".to_owned(), sentinel);
            Value::Map(m)
        };
        let mine: Vec<&DeclaredInstance> = self
            .instances
            .iter()
            .filter(|d| d.address.type_name() == type_name && d.address.block().name() == name)
            .collect();
        Some(if res.count.is_some() {
            Value::List(mine.iter().map(|d| value_of(&d.address)).collect())
        } else if res.for_each.is_some() {
            Value::Map(
                mine.iter()
                    .filter_map(|d| match d.address.key() {
                        InstanceKey::Str(k) => Some((k.clone(), value_of(&d.address))),
                        _ => None,
                    })
                    .collect(),
            )
        } else {
            mine.first()
                .map(|d| value_of(&d.address))
                .unwrap_or(Value::unknown())
        })
    }
}

/// Each block's sentinel value, built the first time an expression reads the block: the fallback for
/// identity arguments that are not a direct reference, which most configurations never need.
struct Sentinels<'p, 'a> {
    parents: &'p ParentRefs<'a>,
    built: RefCell<BTreeMap<(String, String), Option<Value>>>,
}

impl ResourceResolver for Sentinels<'_, '_> {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        let key = (type_name.to_owned(), name.to_owned());
        if let Some(value) = self.built.borrow().get(&key) {
            return value.clone();
        }
        let value = self.parents.resolve(type_name, name);
        self.built.borrow_mut().insert(key, value.clone());
        value
    }
}

/// A configured value as discovery sees it: known text, a declared parent's id, or unknown.
fn declared_value(v: &Value) -> DeclaredValue {
    match v.peel() {
        Value::String(s) => match s.strip_prefix(SENTINEL) {
            Some(a) => a
                .parse()
                .map(DeclaredValue::IdOf)
                .unwrap_or(DeclaredValue::Unknown),
            None => DeclaredValue::Known(s.clone()),
        },
        Value::Number(n) => DeclaredValue::Known(n.to_string()),
        Value::Bool(b) => DeclaredValue::Known(b.to_string()),
        _ => DeclaredValue::Unknown,
    }
}

/// The plain model of the declared instances that the projection reads.
pub(crate) fn declared_model(
    config: &Config,
    variables: &BTreeMap<String, Value>,
    catalog: &Catalog,
    instances: &[DeclaredInstance],
    region: &str,
) -> Result<Declared, crate::Error> {
    let parents = ParentRefs {
        config,
        catalog,
        instances,
    };
    let mut declared = Declared::new();
    for res in &config.resources {
        let Ok(block) = res.address().parse::<BlockAddress>() else {
            continue;
        };
        if catalog
            .get(&res.type_name)
            .and_then(|s| s.admission)
            .is_none()
        {
            continue;
        }
        let expansion = if res.count.is_some() {
            let n = instances
                .iter()
                .filter(|d| d.address.block() == &block)
                .count();
            Expansion::Count(n as u64)
        } else if res.for_each.is_some() {
            Expansion::ForEach
        } else {
            Expansion::Single
        };
        declared.declare_block(block, expansion)?;
    }
    // Each instance's values read only the configuration: they are worked out in chunks on the thread
    // pool, each chunk with evaluators of its own, and added in the declared order.
    let model = |d: &DeclaredInstance,
                 ev: &Evaluator<'_>,
                 statics: &Evaluator<'_>|
     -> Option<projection::DeclaredInstance> {
        let schema = catalog.get(d.address.type_name())?;
        let res = config.resource(d.address.type_name(), d.address.block().name())?;
        let eval = |name: &str| -> DeclaredValue {
            if let Some(v) = d.static_values.get(name) {
                return declared_value(v);
            }
            let Some(attr) = res.attrs.get(name) else {
                return schema
                    .attribute(name)
                    .and_then(|a| a.default_in(region))
                    .map(|v| declared_value(&v))
                    .unwrap_or(DeclaredValue::Unknown);
            };
            if let Some((parent, field)) =
                refs::direct_reference(config, statics, &attr.expr, &d.repetition)
            {
                let names_id = field == "id"
                    || catalog.get(parent.type_name()).is_some_and(|s| {
                        s.admission == Some(AdmissionPath::ClientNamed)
                            && s.identity_arguments().contains(&field)
                    });
                return if names_id {
                    DeclaredValue::IdOf(parent)
                } else {
                    DeclaredValue::Unknown
                };
            }
            ev.eval(&attr.expr, &d.repetition)
                .map(|v| declared_value(&v))
                .unwrap_or(DeclaredValue::Unknown)
        };
        let mut instance = projection::DeclaredInstance::new(d.address.clone());
        for (arg, value) in &d.identity {
            let v = match value {
                IdentityValue::Static(v) => declared_value(v),
                IdentityValue::FromParent => eval(arg),
            };
            instance = instance.identity(arg.clone(), v);
        }
        if let BindMatch::Fields(fields) = &schema.bind_match {
            for f in fields {
                instance = instance.bind_value(f.clone(), eval(f));
            }
        }
        for f in &schema.match_content {
            instance = instance.content(f.clone(), eval(f));
        }
        Some(instance)
    };
    let modelled = map_in_order(instances, |chunk| {
        let sentinels = Sentinels {
            parents: &parents,
            built: RefCell::default(),
        };
        let ev = Evaluator::with_resources(config, variables, &sentinels);
        let statics = Evaluator::new(config, variables);
        chunk
            .iter()
            .filter_map(|d| model(d, &ev, &statics))
            .collect::<Vec<_>>()
    });
    for instance in modelled {
        declared.add(instance)?;
    }
    Ok(declared)
}

/// The members of each block an instance's arguments read (see [`refs::needed_instances`]).
type Needed = BTreeMap<String, Option<BTreeSet<InstanceKey>>>;

/// The fewest items worth handing to the thread pool: below it, the hand-over costs more than it saves.
const PARALLEL_MIN: usize = 64;

/// What planning one instance decided, taken into the plan in the block's order.
struct Outcome {
    address: InstanceAddress,
    /// The value other instances see of it, when some block reads its block.
    value: Option<Value>,
    /// Its change, unless nothing is planned for it (blocked, or a create withheld).
    change: Option<ResourceChange>,
    diagnostics: Vec<Diagnostic>,
    /// Whether its arguments failed to evaluate (nothing is planned for it).
    blocked: bool,
}

/// `work` over `items` cut into chunks that rayon's pool runs on the machine's cores, the results joined
/// in the items' order. Inputs shorter than [`PARALLEL_MIN`] stay on this thread.
fn map_in_order<T: Sync, R: Send>(items: &[T], work: impl Fn(&[T]) -> Vec<R> + Sync) -> Vec<R> {
    use rayon::prelude::*;
    if items.len() < PARALLEL_MIN {
        return work(items);
    }
    // A few chunks per thread, so that a thread done early takes another.
    let size = items
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(PARALLEL_MIN / 4);
    let parts: Vec<Vec<R>> = items.par_chunks(size).map(&work).collect();
    parts.into_iter().flatten().collect()
}

struct Planner<'a> {
    /// The declared instances of each block.
    blocks: &'a BTreeMap<String, Vec<InstanceAddress>>,
    config: &'a Config,
    variables: &'a BTreeMap<String, Value>,
    catalog: &'a Catalog,
    region: String,
    estate: Option<Estate>,
    declared: BTreeMap<InstanceAddress, &'a DeclaredInstance>,
    diagnostics: Vec<Diagnostic>,
    /// Instances bound to a live object (declared ones, and the undeclared ones planned for deletion).
    bound: BTreeMap<InstanceAddress, LiveObject>,
    /// Count slots: bound members' and those minted for creates.
    slots: BTreeMap<InstanceAddress, Slot>,
    /// Residue values by instance.
    residue: BTreeMap<InstanceAddress, BTreeMap<String, Value>>,
    /// Declared instances for which nothing is planned (unowned, collision, errors).
    blocked: BTreeSet<InstanceAddress>,
    /// Declared instances whose create is withheld.
    creates_withheld: BTreeSet<InstanceAddress>,
    /// Types whose live picture is incomplete: no create of theirs is planned.
    incomplete_types: BTreeSet<String>,
    changes: Vec<ResourceChange>,
    /// The value other instances see of each instance planned so far, for the blocks some block reads.
    values: BTreeMap<InstanceAddress, Value>,
}

impl Planner<'_> {
    fn schema(&self, type_name: &str) -> Option<&ResourceTypeSchema> {
        self.catalog.get(type_name)
    }

    fn resource(&self, block: &BlockAddress) -> Option<&admission::config::Resource> {
        self.config.resource(block.type_name(), block.name())
    }

    /// Takes the bindings, slots and residue of the projection (its instances are moved out).
    fn absorb(&mut self, p: &mut Projection) {
        for (address, state) in std::mem::take(&mut p.instances) {
            if let Some(slot) = state.slot {
                self.slots.insert(address.clone(), slot);
            }
            if !state.residue.is_empty() {
                self.residue.insert(address.clone(), state.residue);
            }
            match state.binding {
                Binding::Bound { object, .. } => {
                    self.bound.insert(address, object);
                }
                Binding::Create => {}
                Binding::Blocked { .. } | Binding::Withheld(_) => {
                    self.blocked.insert(address);
                }
            }
        }
        self.incomplete_types = p.withheld_types.clone();
        // Record-backed instances whose record is gone are created again (churn, not data loss).
        for d in self.declared.values() {
            if d.admission == AdmissionPath::Record
                && let Some(stored) = p.records.objects.get(&d.address)
                && !self.bound.contains_key(&d.address)
            {
                let attributes = projection::record::marked_attributes(
                    &stored.body.attributes,
                    &stored.body.sensitive_paths,
                );
                self.bound.insert(
                    d.address.clone(),
                    LiveObject {
                        type_name: d.address.type_name().to_owned(),
                        id: stored.body.id.clone(),
                        region: self.region.clone(),
                        attributes,
                        tags: BTreeMap::new(),
                    },
                );
            }
        }
    }

    /// Deletes of owned objects no longer declared, count surplus and deposed leftovers.
    fn removals(&mut self, p: &Projection) {
        for o in &p.owned_undeclared {
            if o.action != UndeclaredAction::Delete {
                continue;
            }
            let admission = self
                .schema(&o.type_name)
                .and_then(|s| s.admission)
                .unwrap_or(AdmissionPath::Marker);
            let object = o.object.clone().unwrap_or_else(|| {
                let mut obj = LiveObject {
                    type_name: o.type_name.clone(),
                    id: o.id.clone(),
                    region: self.region.clone(),
                    attributes: BTreeMap::new(),
                    tags: BTreeMap::new(),
                };
                if let Some(stored) = p.records.objects.get(&o.address) {
                    obj.attributes = projection::record::marked_attributes(
                        &stored.body.attributes,
                        &stored.body.sensitive_paths,
                    );
                }
                obj
            });
            let reason = match &o.reason {
                Removal::NoLongerDeclared => "no longer declared".to_owned(),
                Removal::CountSurplus { slot: Some(s) } => format!("count surplus (slot {s})"),
                Removal::CountSurplus { slot: None } => "count surplus".to_owned(),
            };
            if matches!(o.reason, Removal::CountSurplus { .. })
                && self
                    .resource(o.address.block())
                    .is_some_and(|r| r.lifecycle.prevent_destroy)
            {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::PreventDestroy,
                        format!(
                            "the plan would destroy {} (prevent_destroy is set)",
                            o.address
                        ),
                        "raise count back, or remove prevent_destroy from the block's lifecycle",
                    )
                    .with_address(o.address.to_string()),
                );
            }
            let mut before = object.attributes.clone();
            before.insert("id".to_owned(), Value::from(object.id.clone()));
            if !object.tags.is_empty() {
                before.insert("tags".to_owned(), string_map(&object.tags));
            }
            let slot = object
                .tags
                .get(marker::SLOT_TAG)
                .and_then(|s| s.parse::<Slot>().ok());
            self.bound.insert(o.address.clone(), object.clone());
            self.changes.push(ResourceChange {
                address: o.address.clone(),
                action: Action::Delete,
                id: Some(o.id.clone()),
                admission,
                before: Some(before),
                after: None,
                reason: Some(reason),
                replace_order: None,
                changed: Vec::new(),
                forces: Vec::new(),
                tag_change: TagChange::default(),
                slot,
                deposed: None,
                depends_on: Vec::new(),
            });
        }
        for d in p.deposed.iter().filter(|d| d.present) {
            let admission = self
                .schema(&d.type_name)
                .and_then(|s| s.admission)
                .unwrap_or(AdmissionPath::Marker);
            self.changes.push(ResourceChange {
                address: d.address.clone(),
                action: Action::Delete,
                id: Some(d.id.clone()),
                admission,
                before: Some(BTreeMap::from([(
                    "id".to_owned(),
                    Value::from(d.id.clone()),
                )])),
                after: None,
                reason: Some("deposed object".to_owned()),
                replace_order: None,
                changed: Vec::new(),
                forces: Vec::new(),
                tag_change: TagChange::default(),
                slot: None,
                deposed: Some(d.id.clone()),
                depends_on: Vec::new(),
            });
        }
    }

    /// Plans every declared instance, block after block in dependency order. The instances of one block
    /// read only other blocks' values, so a large block is planned on the thread pool's cores and the
    /// outcomes are taken in the block's order: the plan is the same whatever the threads.
    fn evaluate(&mut self) {
        let config = self.config;
        self.changes.reserve(self.declared.len());
        // Only the values of blocks some block reads are ever looked up; the others are not kept.
        let read: BTreeSet<String> = config
            .resources
            .iter()
            .flat_map(|r| refs::resource_blocks(config, r))
            .collect();
        for block_text in refs::block_order(config) {
            let Some(res) = config.resources.iter().find(|r| r.address() == block_text) else {
                continue;
            };
            let keep = read.contains(&block_text);
            let outcomes = match self.blocks.get(&block_text) {
                Some(members) => self.plan_block(res, members, keep),
                None => continue,
            };
            for outcome in outcomes {
                self.take(outcome);
            }
        }
    }

    /// Plans the members of one block, on the thread pool when the block is large.
    fn plan_block(
        &self,
        res: &admission::config::Resource,
        members: &[InstanceAddress],
        keep: bool,
    ) -> Vec<Outcome> {
        let reads = refs::BlockReads::of(self.config, res);
        let reads = &reads;
        let plan = |chunk: &[InstanceAddress]| -> Vec<Outcome> {
            chunk
                .iter()
                .filter_map(|a| self.declared.get(a))
                .map(|d| self.plan_instance(res, reads, d, keep))
                .collect()
        };
        map_in_order(members, plan)
    }

    /// Merges one instance's outcome into the plan.
    fn take(&mut self, outcome: Outcome) {
        self.diagnostics.extend(outcome.diagnostics);
        if outcome.blocked {
            self.blocked.insert(outcome.address.clone());
        }
        self.changes.extend(outcome.change);
        if let Some(value) = outcome.value {
            self.values.insert(outcome.address, value);
        }
    }

    fn unknown_instance_value(&self, type_name: &str) -> Value {
        let Some(schema) = self.schema(type_name) else {
            return Value::unknown();
        };
        Value::Map(
            schema
                .attributes
                .values()
                .map(|a| (a.name.clone(), Value::Unknown(a.value_type.clone())))
                .collect(),
        )
    }

    /// Evaluates the arguments of one instance with the values planned so far.
    fn configured(
        &self,
        res: &admission::config::Resource,
        d: &DeclaredInstance,
        schema: &ResourceTypeSchema,
        needed: &Needed,
    ) -> Result<BTreeMap<String, Value>, Vec<Diagnostic>> {
        // Only the members the arguments read are filled in, so a large block costs what is read of it.
        let mut resolver = refs::BlockValues::new(
            self.config,
            self.blocks,
            |a| self.values.get(a).cloned().unwrap_or(Value::unknown()),
            |a, attr| match self.values.get(a) {
                // What reading `attr` of the value gives: the entry of a plain object, unknown of an
                // unknown (or not yet planned) one; anything else is left to the evaluator.
                Some(Value::Map(m)) => m.get(attr).cloned(),
                Some(Value::Unknown(_)) | None => Some(Value::unknown()),
                Some(_) => None,
            },
            |a| self.declared.contains_key(a),
        );
        for (block, keys) in needed {
            let Some(members) = self.blocks.get(block) else {
                continue;
            };
            // A block resolves once every member read is planned (a block read whole: every member).
            let planned = match (keys, members.first()) {
                (Some(keys), Some(first)) => keys.iter().all(|k| {
                    let a = first.block().instance(k.clone());
                    !self.declared.contains_key(&a) || self.values.contains_key(&a)
                }),
                _ => members.iter().all(|a| self.values.contains_key(a)),
            };
            if planned {
                resolver.ready(block.clone(), keys.clone());
            }
        }
        let ev = Evaluator::with_resources(self.config, self.variables, &resolver);
        let mut configured = BTreeMap::new();
        let mut problems = Vec::new();
        for (name, attr) in &res.attrs {
            match ev.eval(&attr.expr, &d.repetition) {
                Ok(v) => {
                    if !v.is_null() || schema.attribute(name).is_some_and(|a| a.is_required()) {
                        configured.insert(name.clone(), v);
                    }
                }
                Err(e) => problems.push(
                    e.into_diagnostic(Code::UnsupportedConstruct)
                        .with_address(d.address.to_string()),
                ),
            }
        }
        if problems.is_empty() {
            Ok(configured)
        } else {
            Err(problems)
        }
    }

    /// Plans one declared instance: its change (unless withheld), its diagnostics, and, when `keep`, the
    /// value other instances see of it.
    fn plan_instance(
        &self,
        res: &admission::config::Resource,
        reads: &refs::BlockReads<'_>,
        d: &DeclaredInstance,
        keep: bool,
    ) -> Outcome {
        let type_name = d.address.type_name();
        let mut outcome = Outcome {
            address: d.address.clone(),
            value: None,
            change: None,
            diagnostics: Vec::new(),
            blocked: false,
        };
        let unknown = |outcome: Outcome| Outcome {
            value: keep.then(|| self.unknown_instance_value(type_name)),
            ..outcome
        };
        let Some(schema) = self.catalog.get(type_name) else {
            return Outcome {
                value: keep.then(Value::unknown),
                ..outcome
            };
        };
        if self.blocked.contains(&d.address) {
            return unknown(outcome);
        }
        let statics = Evaluator::new(self.config, self.variables);
        let needed = reads.needed(&statics, &d.repetition);
        let configured = match self.configured(res, d, schema, &needed) {
            Ok(c) => c,
            Err(problems) => {
                outcome.diagnostics = problems;
                outcome.blocked = true;
                return unknown(outcome);
            }
        };
        let depends_on = self.depends_on(reads, needed);
        let mut change = self.diff(res, d, schema, &configured, self.bound.get(&d.address));
        change.depends_on = depends_on;
        if keep {
            outcome.value = Some(
                change
                    .after
                    .clone()
                    .map(Value::Map)
                    .unwrap_or_else(|| self.unknown_instance_value(type_name)),
            );
        }
        let withheld = change.action == Action::Create
            && (self.creates_withheld.contains(&d.address)
                || self.incomplete_types.contains(type_name));
        if !withheld {
            if matches!(change.action, Action::Replace | Action::Delete)
                && res.lifecycle.prevent_destroy
            {
                outcome.diagnostics.push(
                    Diagnostic::new(
                        Code::PreventDestroy,
                        format!("the plan would destroy {} (prevent_destroy is set)", d.address),
                        "change the configuration so that the object is kept, or remove prevent_destroy from its lifecycle block",
                    )
                    .with_address(d.address.to_string()),
                );
            }
            outcome.change = Some(change);
        }
        outcome
    }

    /// The desired tags of an instance (a configured value not known before apply stays unknown) and the
    /// tag change from `live` to the known ones. Apply sets the unknown ones once their values are known.
    /// For an existing object (`live`), a tag key in `ignored` keeps what the object has, present or absent;
    /// a new object takes the configured value.
    fn desired_tags(
        &self,
        address: &InstanceAddress,
        configured: Option<&Value>,
        live: Option<&BTreeMap<String, String>>,
        ignored: &BTreeSet<String>,
    ) -> (BTreeMap<String, Value>, TagChange) {
        let Some(estate) = &self.estate else {
            return (BTreeMap::new(), TagChange::default());
        };
        let slot = self.slots.get(address).copied();
        // An existing object keeps an address marker written in an older grammar that still binds it; only
        // a wrong marker is repaired, and new objects always get the current grammar.
        let markers = match live.and_then(|l| marker::older_form(address, l)) {
            Some(old) => marker::marker_tags_for(estate, &old, slot),
            None => marker::marker_tags(estate, address, slot),
        }
        .unwrap_or_default();
        let empty = BTreeMap::new();
        let existing = live.is_some();
        let live = live.unwrap_or(&empty);
        let mut desired: BTreeMap<String, Value> = match configured.map(Value::peel) {
            Some(Value::Map(m)) => m.iter().map(|(k, v)| (k.clone(), tag_value(v))).collect(),
            _ => text_values(&marker::non_marker_tags(live)),
        };
        // Markers are never ignored (lint refuses it); they are laid over the ignored keys below anyway.
        for key in ignored.iter().filter(|_| existing) {
            match live.get(key) {
                Some(v) => desired.insert(key.clone(), Value::from(v.clone())),
                None => desired.remove(key),
            };
        }
        desired.extend(text_values(&markers));
        let set = desired
            .iter()
            .filter_map(|(k, v)| Some((k, v.as_str()?)))
            .filter(|(k, v)| live.get(*k).map(String::as_str) != Some(*v))
            .map(|(k, v)| (k.clone(), v.to_owned()))
            .collect();
        let remove = live
            .keys()
            .filter(|k| !desired.contains_key(*k))
            .cloned()
            .collect();
        (desired, TagChange { set, remove })
    }

    fn residue_value(&self, address: &InstanceAddress, name: &str) -> Option<Value> {
        self.residue.get(address).and_then(|r| r.get(name)).cloned()
    }

    /// The instances `d` waits for: the members its arguments read (one member for a reference with a
    /// key known before apply, every member of a block read whole), and every instance of the blocks its
    /// `depends_on`, `count` or `for_each` names. So an instance that reads its own member of a large
    /// block waits for that member alone, and a plan's dependencies stay linear in its size.
    fn depends_on(&self, reads: &refs::BlockReads<'_>, needed: Needed) -> Vec<InstanceAddress> {
        let mut whole: BTreeSet<String> = reads.counted().clone();
        let mut out: BTreeSet<InstanceAddress> = BTreeSet::new();
        for (block, keys) in needed {
            let Some(members) = self.blocks.get(&block) else {
                continue;
            };
            match (keys, members.first()) {
                (Some(keys), Some(first)) if !keys.is_empty() && !whole.contains(&block) => {
                    for k in keys {
                        let a = first.block().instance(k);
                        if self.declared.contains_key(&a) {
                            out.insert(a);
                        }
                    }
                }
                _ => {
                    whole.insert(block);
                }
            }
        }
        whole.remove(reads.own());
        for block in &whole {
            out.extend(self.blocks.get(block).into_iter().flatten().cloned());
        }
        out.into_iter().collect()
    }

    /// The change of one instance.
    fn diff(
        &self,
        res: &admission::config::Resource,
        d: &DeclaredInstance,
        schema: &ResourceTypeSchema,
        configured: &BTreeMap<String, Value>,
        prior: Option<&LiveObject>,
    ) -> ResourceChange {
        let mut desired = schema.desired(configured, &self.region);
        desired.remove("tags");
        // Ignored attributes, and ignored tag keys (`tags["Name"]`): the tags as a whole are never ignored
        // (lint refuses it: they hold the markers), one key of them may be.
        let mut ignored: BTreeSet<String> = BTreeSet::new();
        let mut ignored_tags: BTreeSet<String> = BTreeSet::new();
        match &res.lifecycle.ignore_changes {
            IgnoreChanges::None => {}
            IgnoreChanges::All(_) => ignored.extend(schema.attributes.keys().cloned()),
            IgnoreChanges::Paths(paths) => {
                for (path, _) in paths {
                    match path.as_slice() {
                        [t, key, ..] if t == "tags" => {
                            ignored_tags.insert(key.clone());
                        }
                        [name, ..] => {
                            ignored.insert(name.clone());
                        }
                        [] => {}
                    }
                }
            }
        }
        let order = if res.lifecycle.create_before_destroy {
            ReplaceOrder::CreateBeforeDestroy
        } else {
            ReplaceOrder::DestroyBeforeCreate
        };
        let mut change = ResourceChange {
            address: d.address.clone(),
            action: Action::Create,
            id: None,
            admission: d.admission,
            before: None,
            after: None,
            reason: None,
            replace_order: None,
            changed: Vec::new(),
            forces: Vec::new(),
            tag_change: TagChange::default(),
            slot: self.slots.get(&d.address).copied(),
            deposed: None,
            depends_on: Vec::new(),
        };
        let Some(prior) = prior else {
            // A create: computed attributes are unknown, markers are written with the object.
            let mut after = desired;
            if schema.taggable {
                let (tags, _) =
                    self.desired_tags(&d.address, configured.get("tags"), None, &ignored_tags);
                after.insert("tags".to_owned(), tags_value(&tags, configured.get("tags")));
            }
            change.after = Some(after);
            return change;
        };
        change.id = Some(prior.id.clone());
        let mut before = prior.attributes.clone();
        before.remove("id");
        before.insert("id".to_owned(), Value::from(prior.id.clone()));
        let mut after = BTreeMap::new();
        for (name, attr) in &schema.attributes {
            if name == "tags" {
                continue;
            }
            let live = prior.attribute(name).cloned();
            if matches!(attr.mode, AttributeMode::Computed) {
                if let Some(v) = live {
                    after.insert(name.clone(), v);
                } else if attr.residue
                    && let Some(v) = self.residue_value(&d.address, name)
                {
                    after.insert(name.clone(), v.mark_sensitive_if(attr.sensitive));
                }
                continue;
            }
            let Some(want) = desired.get(name).cloned() else {
                continue;
            };
            let have = if attr.residue {
                self.residue_value(&d.address, name)
                    .or_else(|| attr.default_in(&self.region))
                    .unwrap_or(Value::Null)
            } else {
                live.clone().unwrap_or(Value::Null)
            };
            if attr.residue {
                before.insert(name.clone(), have.clone());
            }
            if ignored.contains(name) {
                after.insert(name.clone(), have);
                continue;
            }
            if !attr.values_match(&want, &have) {
                change.changed.push(name.clone());
                if attr.force_new {
                    change.forces.push(name.clone());
                }
            }
            after.insert(name.clone(), want);
        }
        if schema.taggable {
            let (tags, tag_change) = self.desired_tags(
                &d.address,
                configured.get("tags"),
                Some(&prior.tags),
                &ignored_tags,
            );
            before.insert(
                "tags".to_owned(),
                tags_value(&text_values(&prior.tags), configured.get("tags")),
            );
            // A tag whose value is known only after apply is a change too: apply sets it then.
            let unknown = tags.values().any(Value::is_unknown);
            after.insert("tags".to_owned(), tags_value(&tags, configured.get("tags")));
            if !tag_change.is_empty() || unknown {
                change.changed.push("tags".to_owned());
            }
            change.tag_change = tag_change;
        }
        change.before = Some(before);
        change.changed.sort();
        change.forces.sort();
        change.forces.dedup();
        if !change.forces.is_empty() {
            change.action = Action::Replace;
            change.replace_order = Some(order);
            change.reason = Some(format!("{} forces replacement", change.forces.join(", ")));
            // The new object's computed attributes are unknown again.
            for (name, attr) in &schema.attributes {
                if matches!(attr.mode, AttributeMode::Computed) {
                    after.insert(name.clone(), Value::Unknown(attr.value_type.clone()));
                }
            }
            if schema.taggable {
                let (tags, _) =
                    self.desired_tags(&d.address, configured.get("tags"), None, &ignored_tags);
                after.insert("tags".to_owned(), tags_value(&tags, configured.get("tags")));
            }
        } else if !change.changed.is_empty() {
            change.action = Action::Update;
            let unknown_tags = after
                .get("tags")
                .and_then(Value::as_map)
                .into_iter()
                .flatten()
                .filter(|(_, v)| v.is_unknown())
                .map(|(k, _)| k);
            let only_markers = change.changed == ["tags"]
                && change
                    .tag_change
                    .set
                    .keys()
                    .chain(change.tag_change.remove.iter())
                    .chain(unknown_tags)
                    .all(|k| marker::is_marker_key(k));
            if only_markers {
                change.reason = Some("marker repair".to_owned());
            }
        } else {
            change.action = Action::NoOp;
        }
        change.after = Some(after);
        change
    }
}

/// Tags as a value, each marked sensitive where the configuration's value for its key is (or the whole
/// configured map is), so that a secret written into a tag is never shown.
fn tags_value(tags: &BTreeMap<String, Value>, configured: Option<&Value>) -> Value {
    let all = configured.is_some_and(Value::is_sensitive);
    let marked = |k: &str| {
        all || configured
            .and_then(|c| c.peel().as_map())
            .and_then(|m| m.get(k))
            .is_some_and(Value::contains_sensitive)
    };
    Value::Map(
        tags.iter()
            .map(|(k, v)| (k.clone(), v.clone().mark_sensitive_if(marked(k))))
            .collect(),
    )
}

/// A configured tag value as the text the tag will hold: a string as it is, a number or a bool as
/// Terraform converts it for `map(string)` (`5` is `"5"`). A value known only after apply stays unknown,
/// so that the plan shows it as such and apply writes the value, never a placeholder.
pub(crate) fn tag_value(v: &Value) -> Value {
    match v.peel() {
        Value::String(s) => Value::from(s.clone()),
        other if !other.is_known() => Value::Unknown(admission::Type::String),
        other => Value::from(other.to_string()),
    }
}

/// Tag texts as values.
fn text_values(tags: &BTreeMap<String, String>) -> BTreeMap<String, Value> {
    tags.iter()
        .map(|(k, v)| (k.clone(), Value::from(v.clone())))
        .collect()
}

fn string_map(tags: &BTreeMap<String, String>) -> Value {
    Value::Map(text_values(tags))
}
