//! Planning: the configuration evaluated into desired instances, the live system read into a prior state,
//! and the two diffed into a [`Plan`].
//!
//! Discovery here follows the four admission paths: one unfiltered listing per declared marker-path type,
//! one read at each client-named identity, parent-derived and list-and-match objects read in dependency
//! order once their parents' ids are known, record-backed objects from the records read in one bulk trip,
//! and the sweep (one tagging pass plus the `located` records) for owned objects no longer declared, each
//! confirmed by a read before a delete is planned. Planning never writes: not to the cloud, not to the
//! store.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use admission::config::{Config, IgnoreChanges, SourceFile, VariableInputs};
use admission::eval::Evaluator;
use admission::lint::{DeclaredInstance, IdentityValue};
use admission::marker::{
    self, CountMember, Estate, MalformedReason, Ownership, SlotMarker, bind_count_set,
};
use admission::provider::{Identity, ListRequest, ParentScope, TagChange, TagFilter, TagQuery};
use admission::schema::{AttributeMode, ResourceTypeSchema};
use admission::{
    AdmissionPath, BlockAddress, Catalog, Code, Diagnostic, InstanceAddress, InstanceKey,
    LiveObject, Provider, ProviderError, Slot, Value,
};
use staterecord::{CacheScope, Store};

use crate::model::{
    Action, BindCandidate, Cost, ForeignObject, OwnedUndeclared, Plan, PlanContext, RenameHint,
    ReplaceOrder, ResourceChange, UnownedObject, UnownedVerdict,
};
use crate::records::{self, IntentState, Namespace, Payload, RecordSet};
use crate::refs;
use crate::retry::RetryPolicy;

/// An intent younger than this may belong to an apply still running: its create is not planned again.
pub const INTENT_GRACE_SECS: u64 = 600;

/// What to plan: the configuration files, the variable inputs and the estate flag.
#[derive(Debug, Clone, Copy)]
pub struct PlanRequest<'a> {
    /// The `*.tf` files.
    pub files: &'a [SourceFile],
    /// Variable values from files, the environment and the command line.
    pub inputs: &'a VariableInputs,
    /// `--estate`, if given.
    pub estate_flag: Option<&'a str>,
    /// How reads are retried.
    pub retry: RetryPolicy,
}

/// Plans: parses and lints the configuration, reads the live system and the estate's records (one bulk
/// trip through a run cache of `scope`), and diffs. Writes nothing anywhere.
#[tracing::instrument(skip_all, err)]
pub async fn plan(
    request: &PlanRequest<'_>,
    provider: &dyn Provider,
    store: Arc<dyn Store>,
    scope: &CacheScope,
) -> Result<Plan, crate::Error> {
    let calls_before = provider.api_calls();
    let catalog = provider.schemas().merged(admission::catalog::builtin());
    let (config, linted) =
        admission::lint::check(request.files, request.inputs, &catalog, request.estate_flag);
    let (variables, _) = admission::config::resolve_variables(&config, request.inputs);
    let mut diagnostics = linted.diagnostics.clone();
    let region = provider.region();
    let estate_name = linted.estate.clone().unwrap_or_default();
    let mut planner = Planner {
        provider,
        retry: request.retry,
        config: &config,
        variables: &variables,
        catalog: &catalog,
        region: region.clone(),
        estate: Estate::new(estate_name.clone()).ok(),
        declared: linted
            .instances
            .iter()
            .map(|d| (d.address.clone(), d.clone()))
            .collect(),
        records: RecordSet::default(),
        diagnostics: Vec::new(),
        bound: BTreeMap::new(),
        slots: BTreeMap::new(),
        blocked: BTreeSet::new(),
        creates_withheld: BTreeSet::new(),
        seen: BTreeSet::new(),
        foreign: Vec::new(),
        unowned: Vec::new(),
        undeclared: Vec::new(),
        surplus: Vec::new(),
        deposed: BTreeMap::new(),
        foreign_live: Vec::new(),
        incomplete_types: BTreeSet::new(),
        changes: Vec::new(),
        values: BTreeMap::new(),
    };
    let mut store_trips = 0;
    let can_discover = !linted.has_errors_blocking_discovery() && planner.estate.is_some();
    if can_discover {
        let estate = planner
            .estate
            .clone()
            .map(|e| e.as_str().to_owned())
            .unwrap_or_default();
        let cache = scope.cache(store, records::estate_prefix(&estate));
        let raw = match cache.bulk_reader() {
            Some(bulk) => bulk.get_all(&records::estate_prefix(&estate)).await?,
            None => {
                let mut all = BTreeMap::new();
                for key in cache.list(&records::estate_prefix(&estate)).await? {
                    if let Some(r) = cache.get(&key).await? {
                        all.insert(key, r);
                    }
                }
                all
            }
        };
        store_trips = 1;
        planner.records = RecordSet::from_raw(raw, &mut planner.diagnostics);
        planner.discover().await;
        planner.evaluate().await;
        planner.sweep().await;
        planner.deposed_leftovers();
    }
    let Planner {
        diagnostics: found,
        changes,
        foreign,
        foreign_live,
        unowned,
        undeclared,
        records,
        bound,
        deposed,
        ..
    } = planner;
    diagnostics.extend(found);
    let (owned_undeclared, rename_hints, mut changes) =
        finish_undeclared(changes, undeclared, &linted.instances);
    let bind_candidates = bind_candidates(
        &foreign_live,
        &changes,
        &linted.instances,
        &catalog,
        &mut diagnostics,
    );
    changes.sort_by_key(ResourceChange::sort_key);
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.summary.cmp(&b.summary))
    });
    diagnostics.dedup();
    let mut foreign = foreign;
    foreign.sort_by(|a, b| (&a.type_name, &a.id).cmp(&(&b.type_name, &b.id)));
    let mut unowned = unowned;
    unowned.sort_by(|a, b| a.address.cmp(&b.address));
    let calls_after = provider.api_calls();
    let mut by_op = BTreeMap::new();
    for (op, n) in calls_after {
        let d = n - calls_before.get(&op).copied().unwrap_or(0);
        if d > 0 {
            by_op.insert(op, d);
        }
    }
    let cost = Cost {
        api_calls: by_op.values().sum(),
        api_calls_by_operation: by_op,
        store_trips,
    };
    let context = PlanContext {
        config: config.clone(),
        variables,
        catalog,
        region,
        priors: bound,
        deposed,
        declared: linted
            .instances
            .iter()
            .map(|d| (d.address.clone(), d.repetition.clone()))
            .collect(),
        records,
    };
    Ok(Plan {
        estate: estate_name,
        changes,
        foreign,
        bind_candidates,
        unowned,
        owned_undeclared,
        rename_hints,
        diagnostics,
        cost,
        context: Arc::new(context),
    })
}

trait LintedExt {
    fn has_errors_blocking_discovery(&self) -> bool;
}

impl LintedExt for admission::lint::Linted {
    /// Configuration errors stop discovery: nothing is read for a configuration that does not hold.
    fn has_errors_blocking_discovery(&self) -> bool {
        self.has_errors()
    }
}

struct Planner<'a> {
    provider: &'a dyn Provider,
    retry: RetryPolicy,
    config: &'a Config,
    variables: &'a BTreeMap<String, Value>,
    catalog: &'a Catalog,
    region: String,
    estate: Option<Estate>,
    declared: BTreeMap<InstanceAddress, DeclaredInstance>,
    records: RecordSet,
    diagnostics: Vec<Diagnostic>,
    /// Declared instances bound to a live object.
    bound: BTreeMap<InstanceAddress, LiveObject>,
    /// Count slots: bound members' and those minted for creates.
    slots: BTreeMap<InstanceAddress, Slot>,
    /// Declared instances for which nothing is planned (unowned, collision, errors).
    blocked: BTreeSet<InstanceAddress>,
    /// Declared instances whose create is withheld (a recent pending intent, an incomplete listing).
    creates_withheld: BTreeSet<InstanceAddress>,
    /// Objects already judged, by (type, id).
    seen: BTreeSet<(String, String)>,
    foreign: Vec<ForeignObject>,
    unowned: Vec<UnownedObject>,
    /// Owned objects whose address is not declared: (address, object, reason).
    undeclared: Vec<(InstanceAddress, LiveObject)>,
    /// Count surplus: (address the object carries, object, slot).
    surplus: Vec<(InstanceAddress, LiveObject, Option<Slot>)>,
    deposed: BTreeMap<InstanceAddress, Vec<LiveObject>>,
    /// Foreign objects with their attributes, for bind-candidate matching.
    foreign_live: Vec<LiveObject>,
    incomplete_types: BTreeSet<String>,
    changes: Vec<ResourceChange>,
    /// Block values for the evaluator, by `type.name`.
    values: BTreeMap<String, Value>,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn incomplete(type_name: &str, e: &ProviderError) -> Diagnostic {
    Diagnostic::new(
        Code::DiscoveryIncomplete,
        format!("could not read the live {type_name} objects: {e}"),
        "nothing that depends on this listing is planned as create or delete; retry the plan later or check the permissions",
    )
}

impl Planner<'_> {
    fn estate_str(&self) -> &str {
        self.estate.as_ref().map(Estate::as_str).unwrap_or("")
    }

    fn schema(&self, type_name: &str) -> Option<&ResourceTypeSchema> {
        self.catalog.get(type_name)
    }

    fn resource(&self, block: &BlockAddress) -> Option<&admission::config::Resource> {
        self.config.resource(block.type_name(), block.name())
    }

    fn is_count_block(&self, block: &BlockAddress) -> bool {
        self.resource(block).is_some_and(|r| r.count.is_some())
    }

    async fn list_all(
        &self,
        type_name: &str,
        parent: Option<ParentScope>,
    ) -> Result<Vec<LiveObject>, ProviderError> {
        let mut request = ListRequest {
            parent,
            ..ListRequest::all(type_name)
        };
        let mut out = Vec::new();
        loop {
            let r = request.clone();
            let page = self.retry.run(|| self.provider.list(r.clone())).await?;
            out.extend(page.objects);
            match page.next_page_token {
                Some(t) => request.page_token = Some(t),
                None => return Ok(out),
            }
        }
    }

    fn all_deposed_ids(&self) -> BTreeSet<String> {
        let prefix = format!("{}/deposed/", self.estate_str());
        self.records
            .under(&prefix)
            .filter_map(|(_, p)| match p {
                Payload::Deposed { ids } => Some(ids.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// Discovery for the marker, client-named and record-backed paths.
    async fn discover(&mut self) {
        let Some(estate) = self.estate.clone() else {
            return;
        };
        let deposed_ids = self.all_deposed_ids();
        // Marker path: one unfiltered listing per declared type.
        let marker_types: BTreeSet<String> = self
            .declared
            .values()
            .filter(|d| d.admission == AdmissionPath::Marker)
            .map(|d| d.address.type_name().to_owned())
            .collect();
        for type_name in marker_types {
            let objects = match self.list_all(&type_name, None).await {
                Ok(o) => o,
                Err(e) => {
                    self.diagnostics.push(incomplete(&type_name, &e));
                    self.incomplete_types.insert(type_name.clone());
                    continue;
                }
            };
            self.judge_marker_objects(&estate, &type_name, objects, &deposed_ids);
        }
        // Client-named path: one read at each declared identity.
        let client_named: Vec<DeclaredInstance> = self
            .declared
            .values()
            .filter(|d| d.admission == AdmissionPath::ClientNamed)
            .cloned()
            .collect();
        for d in client_named {
            let Some((_, IdentityValue::Static(v))) = d.identity.first() else {
                continue;
            };
            let Some(name) = v.peel().as_str().map(str::to_owned) else {
                continue;
            };
            let type_name = d.address.type_name().to_owned();
            let identity = Identity::Name(name);
            let found = self
                .retry
                .run(|| self.provider.read(&type_name, &identity))
                .await;
            match found {
                Err(e) => {
                    self.diagnostics
                        .push(incomplete(&type_name, &e).with_address(d.address.to_string()));
                    self.blocked.insert(d.address.clone());
                }
                Ok(None) => {}
                Ok(Some(obj)) => self.judge_client_named(&estate, &d, obj),
            }
        }
        // Record-backed path.
        for d in self
            .declared
            .values()
            .filter(|d| d.admission == AdmissionPath::Record)
        {
            let key = records::instance_key(self.estate_str(), Namespace::Records, &d.address);
            if let Some(Payload::Object {
                id,
                attributes,
                sensitive,
                ..
            }) = self.records.get(&key)
            {
                let obj = LiveObject {
                    type_name: d.address.type_name().to_owned(),
                    id: id.clone(),
                    region: self.region.clone(),
                    attributes: records::object_attributes(attributes, sensitive),
                    tags: BTreeMap::new(),
                };
                self.bound.insert(d.address.clone(), obj);
            }
        }
        // Interrupted creates.
        let prefix = format!("{}/intent/", self.estate_str());
        let pending: Vec<(String, u64)> = self
            .records
            .under(&prefix)
            .filter_map(|(k, p)| match p {
                Payload::Intent {
                    state: IntentState::Pending,
                    at,
                    ..
                } => Some((k.to_owned(), *at)),
                _ => None,
            })
            .collect();
        for (key, at) in pending {
            let address = self
                .declared
                .keys()
                .find(|a| records::instance_key(self.estate_str(), Namespace::Intent, a) == key)
                .cloned();
            let mut d = Diagnostic::new(
                Code::InterruptedCreate,
                format!("an earlier apply started a create and did not finish it ({key})"),
                "if the object exists it is bound by its markers; otherwise it is created again once the intent is older than 10 minutes",
            );
            if let Some(a) = &address {
                d = d.with_address(a.to_string());
                if !self.bound.contains_key(a) && now_secs() < at + INTENT_GRACE_SECS {
                    self.creates_withheld.insert(a.clone());
                }
            }
            self.diagnostics.push(d);
        }
    }

    fn judge_marker_objects(
        &mut self,
        estate: &Estate,
        type_name: &str,
        objects: Vec<LiveObject>,
        deposed_ids: &BTreeSet<String>,
    ) {
        // Escaped forms of every declared instance of the type.
        let mut by_escaped: BTreeMap<String, InstanceAddress> = BTreeMap::new();
        for a in self.declared.keys().filter(|a| a.type_name() == type_name) {
            for form in marker::escaped_forms(a) {
                by_escaped.entry(form).or_insert_with(|| a.clone());
            }
        }
        let mut claims: BTreeMap<InstanceAddress, Vec<LiveObject>> = BTreeMap::new();
        let mut count_members: BTreeMap<BlockAddress, Vec<(LiveObject, CountMember)>> =
            BTreeMap::new();
        for obj in objects {
            self.seen.insert((obj.type_name.clone(), obj.id.clone()));
            if deposed_ids.contains(&obj.id) {
                continue;
            }
            match marker::ownership(estate, type_name, &obj.tags) {
                Ownership::Foreign => {
                    self.foreign.push(ForeignObject {
                        type_name: obj.type_name.clone(),
                        id: obj.id.clone(),
                        tags: obj.tags.clone(),
                    });
                    self.foreign_live.push(obj);
                }
                Ownership::OtherEstate(_) => {}
                Ownership::Malformed(reason) => self.malformed(&obj, &reason),
                Ownership::Owned {
                    escaped_address,
                    slot,
                } => {
                    if let SlotMarker::Malformed(v) = &slot {
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::MalformedSlot,
                                format!(
                                    "the tofu-slot tag {v:?} of {} is not a valid slot",
                                    obj.id
                                ),
                                "set it to an unsigned integer without leading zeros, or remove it",
                            )
                            .with_ids([obj.id.clone()]),
                        );
                        continue;
                    }
                    let decoded = marker::decode_address(&escaped_address).ok();
                    let block = decoded.as_ref().map(|a| a.block().clone());
                    if let Some(block) = block.filter(|b| self.is_count_block(b))
                        && let Some(InstanceKey::Int(index)) =
                            decoded.as_ref().map(|a| a.key().clone())
                    {
                        let slot = match slot {
                            SlotMarker::Valid(s) => Some(s),
                            _ => None,
                        };
                        count_members.entry(block).or_default().push((
                            obj.clone(),
                            CountMember {
                                id: obj.id.clone(),
                                slot,
                                address_index: index,
                            },
                        ));
                        continue;
                    }
                    match by_escaped.get(&escaped_address) {
                        Some(a) => claims.entry(a.clone()).or_default().push(obj),
                        None => match decoded {
                            Some(a) => self.undeclared.push((a, obj)),
                            None => self.malformed(
                                &obj,
                                &MalformedReason::Unparseable(escaped_address.clone()),
                            ),
                        },
                    }
                }
            }
        }
        for (address, objs) in claims {
            self.claim(address, objs);
        }
        // Count blocks of this type, including those with no live member.
        let blocks: BTreeSet<BlockAddress> = self
            .declared
            .keys()
            .filter(|a| a.type_name() == type_name && self.is_count_block(a.block()))
            .map(|a| a.block().clone())
            .chain(count_members.keys().cloned())
            .collect();
        for block in blocks {
            let members = count_members.remove(&block).unwrap_or_default();
            self.bind_count_block(&block, members);
        }
    }

    fn claim(&mut self, address: InstanceAddress, objs: Vec<LiveObject>) {
        if objs.len() == 1 {
            let obj = objs.into_iter().next().expect("one object");
            self.bound.insert(address, obj);
        } else {
            let ids: Vec<String> = objs.iter().map(|o| o.id.clone()).collect();
            self.diagnostics.push(
                Diagnostic::new(
                    Code::MarkerCollision,
                    format!("{} live objects claim {address}", ids.len()),
                    "remove this estate's markers from all but one of them (or delete the extra ones); nothing is planned for the address until then",
                )
                .with_address(address.to_string())
                .with_ids(ids),
            );
            self.blocked.insert(address);
        }
    }

    fn malformed(&mut self, obj: &LiveObject, reason: &MalformedReason) {
        self.diagnostics.push(
            Diagnostic::new(
                Code::MalformedMarker,
                format!(
                    "{} {} carries this estate's tag but {reason}",
                    obj.type_name, obj.id
                ),
                "fix or remove its tofu-* tags; it is never changed or deleted until then",
            )
            .with_ids([obj.id.clone()]),
        );
    }

    fn recorded_high(&self, block: &BlockAddress) -> Option<Slot> {
        match self
            .records
            .get(&records::slots_key(self.estate_str(), &block.to_string()))
        {
            Some(Payload::Slots { highest }) => Some(Slot(*highest)),
            _ => None,
        }
    }

    fn declared_count(&self, block: &BlockAddress) -> u64 {
        self.declared.keys().filter(|a| a.block() == block).count() as u64
    }

    fn bind_count_block(&mut self, block: &BlockAddress, members: Vec<(LiveObject, CountMember)>) {
        let count = if self.resource(block).is_some() {
            self.declared_count(block)
        } else {
            0
        };
        let plain: Vec<CountMember> = members.iter().map(|(_, m)| m.clone()).collect();
        let objects: BTreeMap<String, LiveObject> =
            members.into_iter().map(|(o, m)| (m.id, o)).collect();
        match bind_count_set(&plain, count, self.recorded_high(block)) {
            Err(e) => {
                use admission::marker::CountSetError as E;
                let (code, summary, ids) = match e {
                    E::DuplicateSlot { slot, ids } => (
                        Code::DuplicateSlot,
                        format!("several members of {block} carry slot {slot}"),
                        ids,
                    ),
                    E::Indistinguishable { index, ids } => (
                        Code::IndistinguishableInstances,
                        format!("several unslotted members of {block} carry index {index}"),
                        ids,
                    ),
                    E::SlotsExhausted => (
                        Code::MalformedSlot,
                        format!("no slot is left to mint for {block}"),
                        Vec::new(),
                    ),
                };
                self.diagnostics.push(
                    Diagnostic::new(
                        code,
                        summary,
                        "fix the tofu-slot tags of the objects named so that each slot is carried once",
                    )
                    .with_address(block.to_string())
                    .with_ids(ids),
                );
                for a in self.declared.keys().filter(|a| a.block() == block) {
                    self.blocked.insert(a.clone());
                }
            }
            Ok(binding) => {
                for (index, member) in binding.bound {
                    let address = block.instance(InstanceKey::Int(index));
                    if let Some(obj) = objects.get(&member.id) {
                        self.bound.insert(address.clone(), obj.clone());
                    }
                    self.slots.insert(address, member.slot);
                }
                for (index, slot) in binding.create {
                    self.slots
                        .insert(block.instance(InstanceKey::Int(index)), slot);
                }
                for id in binding.surplus {
                    if let Some(obj) = objects.get(&id) {
                        let shown = obj
                            .tags
                            .get(marker::ADDRESS_TAG)
                            .and_then(|_| marker::read_address(&obj.tags).ok().flatten())
                            .and_then(|e| marker::decode_address(&e).ok())
                            .unwrap_or_else(|| block.instance(InstanceKey::None));
                        let slot = obj
                            .tags
                            .get(marker::SLOT_TAG)
                            .and_then(|s| s.parse::<Slot>().ok());
                        self.surplus.push((shown, obj.clone(), slot));
                    }
                }
            }
        }
    }

    fn judge_client_named(&mut self, estate: &Estate, d: &DeclaredInstance, obj: LiveObject) {
        self.seen.insert((obj.type_name.clone(), obj.id.clone()));
        let mine = marker::escaped_forms(&d.address);
        match marker::ownership(estate, d.address.type_name(), &obj.tags) {
            Ownership::Owned {
                escaped_address, ..
            } => {
                if !mine.contains(&escaped_address)
                    && let Ok(other) = marker::decode_address(&escaped_address)
                    && other != d.address
                    && self.declared.contains_key(&other)
                {
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::MarkedForAnotherAddress,
                            format!("{} at the identity of {} carries the marker of {other}", obj.id, d.address),
                            "fix the configuration so that each identity is declared once, or rename with `liveplan mv`",
                        )
                        .with_address(d.address.to_string())
                        .with_ids([obj.id.clone()]),
                    );
                    self.blocked.insert(d.address.clone());
                    return;
                }
                self.bind_client_named(d, obj);
            }
            Ownership::Malformed(MalformedReason::MissingAddress) => self.bind_client_named(d, obj),
            Ownership::Malformed(reason) => {
                self.malformed(&obj, &reason);
                self.blocked.insert(d.address.clone());
            }
            Ownership::Foreign => {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::Unowned,
                        format!(
                            "{} exists at the identity of {} with no estate marker",
                            obj.id, d.address
                        ),
                        format!(
                            "adopt it with `liveplan adopt {}`, or rename it in the configuration",
                            d.address
                        ),
                    )
                    .with_address(d.address.to_string())
                    .with_ids([obj.id.clone()]),
                );
                self.unowned.push(UnownedObject {
                    address: d.address.clone(),
                    id: obj.id.clone(),
                    verdict: UnownedVerdict::Adoptable,
                });
                self.blocked.insert(d.address.clone());
            }
            Ownership::OtherEstate(other) => {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::InTheWay,
                        format!("{} at the identity of {} belongs to the estate {other}", obj.id, d.address),
                        "choose another identity in the configuration; objects of another estate are never changed",
                    )
                    .with_address(d.address.to_string())
                    .with_ids([obj.id.clone()]),
                );
                self.unowned.push(UnownedObject {
                    address: d.address.clone(),
                    id: obj.id.clone(),
                    verdict: UnownedVerdict::InTheWay { estate: other },
                });
                self.blocked.insert(d.address.clone());
            }
        }
    }

    fn bind_client_named(&mut self, d: &DeclaredInstance, obj: LiveObject) {
        if self.is_count_block(d.address.block()) {
            let slot = obj
                .tags
                .get(marker::SLOT_TAG)
                .and_then(|s| s.parse::<Slot>().ok());
            if let Some(s) = slot {
                self.slots.insert(d.address.clone(), s);
            }
        }
        self.bound.insert(d.address.clone(), obj);
    }

    /// Mints slots for the members of client-named count blocks that have none yet.
    fn mint_client_named_slots(&mut self) {
        let blocks: BTreeSet<BlockAddress> = self
            .declared
            .values()
            .filter(|d| {
                d.admission != AdmissionPath::Marker && self.is_count_block(d.address.block())
            })
            .filter(|d| {
                self.schema(d.address.type_name())
                    .is_some_and(|s| s.taggable)
            })
            .map(|d| d.address.block().clone())
            .collect();
        for block in blocks {
            let live_high = self
                .slots
                .iter()
                .filter(|(a, _)| a.block() == &block)
                .map(|(_, s)| *s)
                .max();
            let missing: Vec<InstanceAddress> = self
                .declared
                .keys()
                .filter(|a| a.block() == &block && !self.slots.contains_key(*a))
                .cloned()
                .collect();
            if let Ok(minted) =
                marker::mint_slots(live_high, self.recorded_high(&block), missing.len())
            {
                for (a, s) in missing.into_iter().zip(minted) {
                    self.slots.insert(a, s);
                }
            }
        }
    }

    /// Evaluates every declared instance in dependency order and diffs it against its prior object.
    async fn evaluate(&mut self) {
        self.mint_client_named_slots();
        let order = refs::block_order(self.config);
        for block_text in order {
            let Some(res) = self
                .config
                .resources
                .iter()
                .find(|r| r.address() == block_text)
                .cloned()
            else {
                continue;
            };
            let instances: Vec<DeclaredInstance> = self
                .declared
                .values()
                .filter(|d| d.address.block().to_string() == block_text)
                .cloned()
                .collect();
            let mut by_key: Vec<(InstanceKey, Value)> = Vec::new();
            for d in &instances {
                let value = self.plan_instance(&res, d).await;
                by_key.push((d.address.key().clone(), value));
            }
            let block_value = if res.count.is_some() {
                Value::List(by_key.into_iter().map(|(_, v)| v).collect())
            } else if res.for_each.is_some() {
                Value::Map(
                    by_key
                        .into_iter()
                        .map(|(k, v)| match k {
                            InstanceKey::Str(s) => (s, v),
                            other => (other.to_string(), v),
                        })
                        .collect(),
                )
            } else {
                by_key
                    .into_iter()
                    .next()
                    .map(|(_, v)| v)
                    .unwrap_or(Value::unknown())
            };
            self.values.insert(block_text, block_value);
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
    ) -> Result<BTreeMap<String, Value>, Vec<Diagnostic>> {
        let ev = Evaluator::with_resources(self.config, self.variables, &self.values);
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

    /// Reads a parent-derived or list-and-match object once its identity is known.
    async fn read_derived(
        &mut self,
        d: &DeclaredInstance,
        schema: &ResourceTypeSchema,
        configured: &BTreeMap<String, Value>,
    ) -> Result<(), ()> {
        let type_name = d.address.type_name().to_owned();
        let mut identity = BTreeMap::new();
        for arg in schema.identity_arguments() {
            match configured.get(arg).map(Value::peel) {
                Some(Value::String(s)) => {
                    identity.insert(arg.clone(), s.clone());
                }
                // A parent still to be created: the child is a create, with no read.
                _ => return Ok(()),
            }
        }
        if d.admission == AdmissionPath::ListMatch {
            let Some(link) = &schema.parent else {
                return Ok(());
            };
            let Some(parent_id) = identity.get(&link.argument).cloned() else {
                return Ok(());
            };
            let parent = ParentScope {
                type_name: link.parent_type.clone(),
                id: parent_id,
            };
            let objects = match self.list_all(&type_name, Some(parent)).await {
                Ok(o) => o,
                Err(e) => {
                    self.diagnostics
                        .push(incomplete(&type_name, &e).with_address(d.address.to_string()));
                    return Err(());
                }
            };
            let desired = schema.desired(configured, &self.region);
            let taken: BTreeSet<String> = self
                .bound
                .values()
                .filter(|o| o.type_name == type_name)
                .map(|o| o.id.clone())
                .collect();
            let matching: Vec<LiveObject> = objects
                .into_iter()
                .filter(|o| !taken.contains(&o.id))
                .filter(|o| {
                    schema
                        .match_content
                        .iter()
                        .all(|f| match (desired.get(f), o.attribute(f)) {
                            (Some(want), Some(have)) => want.same_as(have),
                            _ => false,
                        })
                })
                .collect();
            if let Some(first) = matching.into_iter().min_by(|a, b| a.id.cmp(&b.id)) {
                self.seen
                    .insert((first.type_name.clone(), first.id.clone()));
                self.bound.insert(d.address.clone(), first);
            }
            return Ok(());
        }
        let identity = Identity::Composite(identity);
        match self
            .retry
            .run(|| self.provider.read(&type_name, &identity))
            .await
        {
            Ok(Some(obj)) => {
                self.seen.insert((obj.type_name.clone(), obj.id.clone()));
                self.bound.insert(d.address.clone(), obj);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => {
                self.diagnostics
                    .push(incomplete(&type_name, &e).with_address(d.address.to_string()));
                Err(())
            }
        }
    }

    /// Plans one declared instance; returns the value other instances see of it.
    async fn plan_instance(
        &mut self,
        res: &admission::config::Resource,
        d: &DeclaredInstance,
    ) -> Value {
        let type_name = d.address.type_name().to_owned();
        let Some(schema) = self.schema(&type_name).cloned() else {
            return Value::unknown();
        };
        if self.blocked.contains(&d.address) {
            return self.unknown_instance_value(&type_name);
        }
        let configured = match self.configured(res, d, &schema) {
            Ok(c) => c,
            Err(problems) => {
                self.diagnostics.extend(problems);
                self.blocked.insert(d.address.clone());
                return self.unknown_instance_value(&type_name);
            }
        };
        if matches!(
            d.admission,
            AdmissionPath::ParentDerived | AdmissionPath::ListMatch
        ) && !self.bound.contains_key(&d.address)
            && self.read_derived(d, &schema, &configured).await.is_err()
        {
            self.blocked.insert(d.address.clone());
            return self.unknown_instance_value(&type_name);
        }
        let prior = self.bound.get(&d.address).cloned();
        let change = self.diff(res, d, &schema, &configured, prior.as_ref());
        let value = change
            .after
            .clone()
            .map(Value::Map)
            .unwrap_or_else(|| self.unknown_instance_value(&type_name));
        let withheld = change.action == Action::Create
            && (self.creates_withheld.contains(&d.address)
                || self.incomplete_types.contains(&type_name));
        if !withheld {
            if matches!(change.action, Action::Replace | Action::Delete)
                && res.lifecycle.prevent_destroy
            {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::PreventDestroy,
                        format!("the plan would destroy {} (prevent_destroy is set)", d.address),
                        "change the configuration so that the object is kept, or remove prevent_destroy from its lifecycle block",
                    )
                    .with_address(d.address.to_string()),
                );
            }
            self.changes.push(change);
        }
        value
    }

    /// The desired tags of an instance and the tag change from `live` to them.
    fn desired_tags(
        &self,
        address: &InstanceAddress,
        configured: Option<&Value>,
        live: Option<&BTreeMap<String, String>>,
    ) -> (BTreeMap<String, String>, TagChange) {
        let Some(estate) = &self.estate else {
            return (BTreeMap::new(), TagChange::default());
        };
        let slot = self.slots.get(address).copied();
        let markers = marker::marker_tags(estate, address, slot).unwrap_or_default();
        let empty = BTreeMap::new();
        let live = live.unwrap_or(&empty);
        let mut desired: BTreeMap<String, String> = match configured.map(Value::peel) {
            Some(Value::Map(m)) => m
                .iter()
                .map(|(k, v)| {
                    let text = match v.peel() {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), text)
                })
                .collect(),
            _ => marker::non_marker_tags(live),
        };
        desired.extend(markers);
        let set = desired
            .iter()
            .filter(|(k, v)| live.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let remove = live
            .keys()
            .filter(|k| !desired.contains_key(*k))
            .cloned()
            .collect();
        (desired, TagChange { set, remove })
    }

    fn residue_value(&self, address: &InstanceAddress, name: &str) -> Option<Value> {
        let key = records::instance_key(self.estate_str(), Namespace::Residue, address);
        match self.records.get(&key) {
            Some(Payload::Residue { values, .. }) => {
                values.get(name).cloned().map(Value::from_json)
            }
            _ => None,
        }
    }

    fn depends_on(&self, res: &admission::config::Resource) -> Vec<InstanceAddress> {
        let blocks = refs::resource_blocks(self.config, res);
        self.declared
            .keys()
            .filter(|a| blocks.contains(&a.block().to_string()))
            .cloned()
            .collect()
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
        let ignored: BTreeSet<String> = match &res.lifecycle.ignore_changes {
            IgnoreChanges::None => BTreeSet::new(),
            IgnoreChanges::All(_) => schema.attributes.keys().cloned().collect(),
            IgnoreChanges::Paths(paths) => paths
                .iter()
                .filter_map(|(p, _)| p.first().cloned())
                .collect(),
        };
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
            depends_on: self.depends_on(res),
        };
        let Some(prior) = prior else {
            // A create: computed attributes are unknown, markers are written with the object.
            let mut after = desired;
            if schema.taggable {
                let (tags, _) = self.desired_tags(&d.address, configured.get("tags"), None);
                after.insert("tags".to_owned(), string_map(&tags));
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
            let (tags, tag_change) =
                self.desired_tags(&d.address, configured.get("tags"), Some(&prior.tags));
            before.insert("tags".to_owned(), string_map(&prior.tags));
            after.insert("tags".to_owned(), string_map(&tags));
            if !tag_change.is_empty() {
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
                let (tags, _) = self.desired_tags(&d.address, configured.get("tags"), None);
                after.insert("tags".to_owned(), string_map(&tags));
            }
        } else if !change.changed.is_empty() {
            change.action = Action::Update;
            let only_markers = change.changed == ["tags"]
                && change
                    .tag_change
                    .set
                    .keys()
                    .chain(change.tag_change.remove.iter())
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

    /// The sweep: owned objects the configuration no longer declares, from the tagging index and the
    /// `located` records, each confirmed by a read.
    async fn sweep(&mut self) {
        let Some(estate) = self.estate.clone() else {
            return;
        };
        let mut hits: Vec<(String, String)> = Vec::new();
        let mut query = TagQuery {
            tag_filters: vec![TagFilter::equals(marker::ESTATE_TAG, estate.as_str())],
            type_names: Vec::new(),
            page_token: None,
        };
        loop {
            let q = query.clone();
            match self
                .retry
                .run(|| self.provider.tagged_resources(q.clone()))
                .await
            {
                Ok(page) => {
                    hits.extend(page.resources.into_iter().map(|r| (r.type_name, r.id)));
                    match page.next_page_token {
                        Some(t) => query.page_token = Some(t),
                        None => break,
                    }
                }
                Err(e) => {
                    self.diagnostics.push(incomplete("tagged", &e));
                    return;
                }
            }
        }
        let located_prefix = format!("{}/located/", estate.as_str());
        let located: Vec<(String, String)> = self
            .records
            .under(&located_prefix)
            .filter_map(|(_, p)| match p {
                Payload::Located { type_name, id, .. } => Some((type_name.clone(), id.clone())),
                _ => None,
            })
            .collect();
        let bound_ids: BTreeSet<(String, String)> = self
            .bound
            .values()
            .map(|o| (o.type_name.clone(), o.id.clone()))
            .collect();
        let deposed_ids = self.all_deposed_ids();
        let mut candidates: BTreeSet<(String, String)> = hits.into_iter().collect();
        candidates.extend(located.iter().cloned());
        for (type_name, id) in candidates {
            if self.seen.contains(&(type_name.clone(), id.clone()))
                || bound_ids.contains(&(type_name.clone(), id.clone()))
                || deposed_ids.contains(&id)
                || self.catalog.get(&type_name).is_none()
            {
                continue;
            }
            let obj = match self
                .retry
                .run(|| self.provider.read_by_id(&type_name, &id))
                .await
            {
                Ok(Some(o)) => o,
                Ok(None) => continue,
                Err(e) => {
                    self.diagnostics
                        .push(incomplete(&type_name, &e).with_ids([id.clone()]));
                    continue;
                }
            };
            self.seen.insert((type_name.clone(), id.clone()));
            let address = match marker::ownership(&estate, &type_name, &obj.tags) {
                Ownership::Owned {
                    escaped_address, ..
                } => marker::decode_address(&escaped_address).ok(),
                Ownership::Malformed(reason)
                    if self.schema(&type_name).is_some_and(|s| s.taggable) =>
                {
                    self.malformed(&obj, &reason);
                    None
                }
                _ if !self.schema(&type_name).is_some_and(|s| s.taggable) => {
                    self.located_address(&type_name, &id)
                }
                _ => None,
            };
            let Some(address) = address else { continue };
            if self.declared.contains_key(&address) {
                // Its instance now names another identity: the old object is replaced.
                let cbd = self
                    .resource(address.block())
                    .is_some_and(|r| r.lifecycle.create_before_destroy);
                let identity = self
                    .schema(&type_name)
                    .map(|s| s.identity_arguments().to_vec())
                    .unwrap_or_default();
                if let Some(pos) = self
                    .changes
                    .iter()
                    .position(|c| c.address == address && c.action == Action::Create)
                {
                    let mut before = obj.attributes.clone();
                    if !obj.tags.is_empty() {
                        before.insert("tags".to_owned(), string_map(&obj.tags));
                    }
                    let c = &mut self.changes[pos];
                    c.action = Action::Replace;
                    c.id = Some(obj.id.clone());
                    c.replace_order = Some(if cbd {
                        ReplaceOrder::CreateBeforeDestroy
                    } else {
                        ReplaceOrder::DestroyBeforeCreate
                    });
                    c.reason = Some("identity changed in the configuration".to_owned());
                    c.before = Some(before);
                    c.changed = identity.clone();
                    c.forces = identity;
                    self.bound.insert(address.clone(), obj);
                }
                continue;
            }
            self.undeclared.push((address, obj));
        }
    }

    fn located_address(&self, type_name: &str, id: &str) -> Option<InstanceAddress> {
        let prefix = format!("{}/located/{type_name}/", self.estate_str());
        self.records.under(&prefix).find_map(|(key, p)| match p {
            Payload::Located { id: found, .. } if found == id => {
                let b64 = key.rsplit('/').next()?;
                self.declared
                    .keys()
                    .chain(self.bound.keys())
                    .find(|a| records::b64url(a.to_string().as_bytes()) == b64)
                    .cloned()
                    .or_else(|| decode_b64_address(b64))
            }
            _ => None,
        })
    }

    /// Deposed objects awaiting deletion, and count surplus.
    fn deposed_leftovers(&mut self) {
        let prefix = format!("{}/deposed/", self.estate_str());
        let entries: Vec<(String, Vec<String>)> = self
            .records
            .under(&prefix)
            .filter_map(|(k, p)| match p {
                Payload::Deposed { ids } => Some((k.to_owned(), ids.clone())),
                _ => None,
            })
            .collect();
        for (key, ids) in entries {
            let b64 = key.rsplit('/').next().unwrap_or_default().to_owned();
            let Some(address) = decode_b64_address(&b64) else {
                continue;
            };
            for id in ids {
                let obj = LiveObject {
                    type_name: address.type_name().to_owned(),
                    id: id.clone(),
                    region: self.region.clone(),
                    attributes: BTreeMap::new(),
                    tags: BTreeMap::new(),
                };
                self.deposed
                    .entry(address.clone())
                    .or_default()
                    .push(obj.clone());
                let admission = self
                    .schema(address.type_name())
                    .and_then(|s| s.admission)
                    .unwrap_or(AdmissionPath::Marker);
                self.changes.push(ResourceChange {
                    address: address.clone(),
                    action: Action::Delete,
                    id: Some(id.clone()),
                    admission,
                    before: Some(BTreeMap::from([("id".to_owned(), Value::from(id.clone()))])),
                    after: None,
                    reason: Some("deposed object".to_owned()),
                    replace_order: None,
                    changed: Vec::new(),
                    forces: Vec::new(),
                    tag_change: TagChange::default(),
                    slot: None,
                    deposed: Some(id),
                    depends_on: Vec::new(),
                });
            }
        }
        let surplus = std::mem::take(&mut self.surplus);
        for (address, obj, slot) in surplus {
            let admission = self
                .schema(address.type_name())
                .and_then(|s| s.admission)
                .unwrap_or(AdmissionPath::Marker);
            let reason = match slot {
                Some(s) => format!("count surplus (slot {s})"),
                None => "count surplus".to_owned(),
            };
            if self
                .resource(address.block())
                .is_some_and(|r| r.lifecycle.prevent_destroy)
            {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::PreventDestroy,
                        format!("the plan would destroy {address} (prevent_destroy is set)"),
                        "raise count back, or remove prevent_destroy from the block's lifecycle",
                    )
                    .with_address(address.to_string()),
                );
            }
            let mut before = obj.attributes.clone();
            before.insert("tags".to_owned(), string_map(&obj.tags));
            self.bound.insert(address.clone(), obj.clone());
            self.changes.push(ResourceChange {
                address,
                action: Action::Delete,
                id: Some(obj.id.clone()),
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
        // Undeclared owned objects are bound under their own address so apply can read them.
        for (address, obj) in &self.undeclared {
            self.bound
                .entry(address.clone())
                .or_insert_with(|| obj.clone());
        }
    }
}

/// Reads an instance address back from the unpadded base64url of its text.
pub(crate) fn decode_b64_address(b64: &str) -> Option<InstanceAddress> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in b64.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8(out).ok()?.parse().ok()
}

fn string_map(tags: &BTreeMap<String, String>) -> Value {
    Value::Map(
        tags.iter()
            .map(|(k, v)| (k.clone(), Value::from(v.clone())))
            .collect(),
    )
}

/// Turns the undeclared owned objects into deletes, or withholds them as rename hints.
fn finish_undeclared(
    mut changes: Vec<ResourceChange>,
    undeclared: Vec<(InstanceAddress, LiveObject)>,
    declared: &[DeclaredInstance],
) -> (Vec<OwnedUndeclared>, Vec<RenameHint>, Vec<ResourceChange>) {
    let creates: Vec<InstanceAddress> = changes
        .iter()
        .filter(|c| c.action == Action::Create)
        .map(|c| c.address.clone())
        .collect();
    let declared_blocks: BTreeSet<BlockAddress> =
        declared.iter().map(|d| d.address.block().clone()).collect();
    let live_blocks: BTreeSet<BlockAddress> = changes
        .iter()
        .filter(|c| c.action != Action::Create)
        .map(|c| c.address.block().clone())
        .collect();
    let mut owned = Vec::new();
    let mut hints = Vec::new();
    // Which unbound instances each orphan could be renamed to.
    let targets = |a: &InstanceAddress| -> Vec<InstanceAddress> {
        if declared_blocks.contains(a.block()) {
            creates
                .iter()
                .filter(|c| c.block() == a.block())
                .cloned()
                .collect()
        } else {
            creates
                .iter()
                .filter(|c| c.type_name() == a.type_name() && !live_blocks.contains(c.block()))
                .cloned()
                .collect()
        }
    };
    let orphans_per_target: BTreeMap<InstanceAddress, usize> = {
        let mut m = BTreeMap::new();
        for (a, _) in &undeclared {
            for t in targets(a) {
                *m.entry(t).or_insert(0) += 1;
            }
        }
        m
    };
    for (address, obj) in undeclared {
        let ts = targets(&address);
        if !ts.is_empty() {
            let to = (ts.len() == 1 && orphans_per_target.get(&ts[0]) == Some(&1))
                .then(|| ts[0].clone());
            hints.push(RenameHint {
                from: address.clone(),
                to,
                id: obj.id.clone(),
            });
            owned.push(OwnedUndeclared {
                address,
                id: obj.id,
                action: "withheld",
            });
            continue;
        }
        let admission = declared
            .iter()
            .find(|d| d.address.type_name() == address.type_name())
            .map(|d| d.admission)
            .unwrap_or(AdmissionPath::Marker);
        let mut before = obj.attributes.clone();
        if !obj.tags.is_empty() {
            before.insert("tags".to_owned(), string_map(&obj.tags));
        }
        changes.push(ResourceChange {
            address: address.clone(),
            action: Action::Delete,
            id: Some(obj.id.clone()),
            admission,
            before: Some(before),
            after: None,
            reason: Some("no longer declared".to_owned()),
            replace_order: None,
            changed: Vec::new(),
            forces: Vec::new(),
            tag_change: TagChange::default(),
            slot: None,
            deposed: None,
            depends_on: Vec::new(),
        });
        owned.push(OwnedUndeclared {
            address,
            id: obj.id,
            action: "delete",
        });
    }
    owned.sort_by(|a, b| (&a.address, &a.id).cmp(&(&b.address, &b.id)));
    hints.sort_by(|a, b| (&a.from, &a.id).cmp(&(&b.from, &b.id)));
    (owned, hints, changes)
}

/// Foreign objects whose bind-candidate fields equal an unbound, unkeyed declared instance's static values.
/// Two candidates for one instance offer neither (`ambiguous-candidates`).
fn bind_candidates(
    foreign: &[LiveObject],
    changes: &[ResourceChange],
    declared: &[DeclaredInstance],
    catalog: &Catalog,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<BindCandidate> {
    let mut out = Vec::new();
    for c in changes.iter().filter(|c| c.action == Action::Create) {
        if *c.address.key() != InstanceKey::None {
            continue;
        }
        let Some(schema) = catalog.get(c.type_name()) else {
            continue;
        };
        let admission::schema::BindMatch::Fields(fields) = &schema.bind_match else {
            continue;
        };
        let Some(d) = declared.iter().find(|d| d.address == c.address) else {
            continue;
        };
        let found: Vec<(&LiveObject, BTreeMap<String, Value>)> = foreign
            .iter()
            .filter(|o| o.type_name == c.type_name())
            .filter_map(|o| {
                let mut matched = BTreeMap::new();
                for f in fields {
                    let want =
                        d.static_values.get(f).cloned().or_else(|| {
                            schema.attribute(f).and_then(|a| a.default_in(&o.region))
                        })?;
                    let have = o.attribute(f)?;
                    if !want.same_as(have) {
                        return None;
                    }
                    matched.insert(f.clone(), want);
                }
                Some((o, matched))
            })
            .collect();
        match found.len() {
            0 => {}
            1 => {
                let (o, matched) = &found[0];
                out.push(BindCandidate {
                    address: c.address.clone(),
                    id: o.id.clone(),
                    matched: matched.clone(),
                });
            }
            _ => diagnostics.push(
                Diagnostic::new(
                    Code::AmbiguousCandidates,
                    format!("{} foreign objects match {}; none is offered for adoption", found.len(), c.address),
                    "adopt one explicitly with `liveplan adopt ADDRESS --id ID`, or let the plan create a new object",
                )
                .with_address(c.address.to_string())
                .with_ids(found.iter().map(|(o, _)| o.id.clone())),
            ),
        }
    }
    out.sort_by(|a, b| (&a.address, &a.id).cmp(&(&b.address, &b.id)));
    out
}
