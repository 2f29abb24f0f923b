//! The planner proper: every declared instance evaluated, block after block in dependency order, with
//! the values of the instances planned before it, and diffed against its bound object.
//!
//! It works on what the projection found (bindings, slots, residue); it must never read the live system
//! or the records itself.

use std::collections::{BTreeMap, BTreeSet};

use admission::Evaluator;
use admission::ExpandedInstance;
use admission::marker::Estate;
use admission::{BlockAddress, Code, Diagnostic, InstanceAddress, InstanceKey, Slot, Value};
use admission::{Config, ProviderSettings, Resource};
use projection::{Binding, Projection, Withheld};
use provider::schema::ResourceTypeSchema;
use provider::{AdmissionPath, Catalog, LiveObject};

use crate::model::{Action, ResourceChange, WithheldCause, WithheldChange};
use crate::refs;

/// The members of each block an instance's arguments read (see [`refs::needed_instances`]).
type Needed = BTreeMap<BlockAddress, Option<BTreeSet<InstanceKey>>>;

/// The fewest items worth handing to the thread pool: below it, the hand-over costs more than it saves.
const PARALLEL_MIN: usize = 64;

/// What planning one instance decided, taken into the plan in the block's order.
struct Outcome {
    address: InstanceAddress,
    /// The value other instances see of it, when some block reads its block.
    value: Option<Value>,
    /// Its change, unless nothing is planned for it (blocked, or a create withheld).
    change: Option<ResourceChange>,
    /// Its change held back, when it waits on a withheld one.
    withheld: Option<WithheldChange>,
    diagnostics: Vec<Diagnostic>,
    /// Whether its arguments failed to evaluate (nothing is planned for it).
    blocked: bool,
}

/// `work` over `items` cut into chunks that rayon's pool runs on the machine's cores, the results joined
/// in the items' order. Inputs shorter than [`PARALLEL_MIN`] stay on this thread.
pub(super) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
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

/// The state of one plan being worked out: what the projection found, and the changes, values and
/// diagnostics planned so far.
pub(super) struct Planner<'a> {
    /// The declared instances of each block.
    pub(super) blocks: &'a BTreeMap<BlockAddress, Vec<InstanceAddress>>,
    pub(super) config: &'a Config,
    pub(super) variables: &'a BTreeMap<String, Value>,
    /// The provider configurations' default and ignored tags.
    pub(super) provider_settings: ProviderSettings,
    pub(super) catalog: &'a Catalog,
    /// The home region: the engine's provider's, which a configuration without `region` means.
    pub(super) region: String,
    pub(super) estate: Option<Estate>,
    pub(super) declared: BTreeMap<InstanceAddress, &'a ExpandedInstance>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// Instances bound to a live object (declared ones, and the undeclared ones planned for deletion).
    pub(super) bound: BTreeMap<InstanceAddress, LiveObject>,
    /// Count slots: bound members' and those minted for creates.
    pub(super) slots: BTreeMap<InstanceAddress, Slot>,
    /// Residue values by instance.
    pub(super) residue: BTreeMap<InstanceAddress, BTreeMap<String, Value>>,
    /// Declared instances for which nothing is planned (unowned, collision, errors).
    pub(super) blocked: BTreeSet<InstanceAddress>,
    /// Declared instances whose change is held back: interrupted creates, and what waits on them.
    pub(super) withheld: BTreeMap<InstanceAddress, WithheldChange>,
    /// Types whose live picture is incomplete: no create of theirs is planned.
    pub(super) incomplete_types: BTreeSet<String>,
    pub(super) changes: Vec<ResourceChange>,
    /// The value other instances see of each instance planned so far, for the blocks some block reads.
    pub(super) values: BTreeMap<InstanceAddress, Value>,
    /// The plan's mode, the instances to replace and the targets.
    pub(super) options: super::PlanOptions,
}

impl<'a> Planner<'a> {
    /// A planner of the declared `instances` (in `blocks`, by block), with nothing bound yet.
    pub(super) fn new(
        blocks: &'a BTreeMap<BlockAddress, Vec<InstanceAddress>>,
        config: &'a Config,
        variables: &'a BTreeMap<String, Value>,
        catalog: &'a Catalog,
        region: String,
        estate: Option<Estate>,
        instances: &'a [ExpandedInstance],
    ) -> Planner<'a> {
        Planner {
            blocks,
            config,
            variables,
            provider_settings: ProviderSettings::of(config, variables),
            catalog,
            region,
            estate,
            declared: instances.iter().map(|d| (d.address.clone(), d)).collect(),
            diagnostics: Vec::new(),
            bound: BTreeMap::new(),
            slots: BTreeMap::new(),
            residue: BTreeMap::new(),
            blocked: BTreeSet::new(),
            withheld: BTreeMap::new(),
            incomplete_types: BTreeSet::new(),
            changes: Vec::new(),
            values: BTreeMap::new(),
            options: super::PlanOptions::default(),
        }
    }
}

impl Planner<'_> {
    /// The region `address` is planned in (its provider configuration's).
    pub(super) fn region_of(&self, address: &InstanceAddress) -> String {
        crate::regions::region_of_block(
            self.config,
            &self.provider_settings,
            &self.region,
            address.block(),
        )
    }

    /// The region the instances of `res` are planned in (its provider configuration's).
    pub(super) fn settings_region(&self, res: &admission::Resource) -> String {
        self.provider_settings.region_of(res, &self.region)
    }

    /// With `-target`, keeps only the targeted changes and what they depend on, with Terraform's warning;
    /// a `-replace` or `-target` address the configuration does not declare is an error.
    pub(super) fn restrict_to_targets(&mut self) {
        let options = &self.options;
        for address in &options.replace {
            if !self.declared.contains_key(address) {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnknownReference,
                        format!(
                            "-replace names {address}, which the configuration does not declare"
                        ),
                        "name a declared resource instance, as the plan lists it",
                    )
                    .with_address(address.to_string()),
                );
            }
        }
        if options.targets.is_empty() {
            return;
        }
        for target in &options.targets {
            let declared = self.declared.keys().any(|a| target.covers(a));
            let changing = self.changes.iter().any(|c| target.covers(&c.address));
            if !declared && !changing {
                self.diagnostics.push(Diagnostic::new(
                    Code::UnknownReference,
                    format!("-target names {target}, which the configuration does not declare"),
                    "name a declared resource or resource instance, as the plan lists it",
                ));
            }
        }
        self.changes =
            super::options::targeted(std::mem::take(&mut self.changes), &options.targets);
        self.diagnostics.push(Diagnostic::new(
            Code::ResourceTargeting,
            "resource targeting is in effect",
            "the plan may be incomplete: only the targeted addresses and what they depend on are planned. \
             Use -target for exceptional cases, then plan without it to see everything that is left",
        ));
    }

    pub(super) fn schema(&self, type_name: &str) -> Option<&ResourceTypeSchema> {
        self.catalog.get(type_name)
    }

    pub(super) fn resource(&self, block: &BlockAddress) -> Option<&Resource> {
        self.config.resource_at(block)
    }

    /// Takes the bindings, slots and residue of the projection (its instances are moved out).
    pub(super) fn absorb(&mut self, p: &mut Projection) {
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
                Binding::Withheld(Withheld::CreateInProgress { retry_after }) => {
                    let withheld = WithheldChange {
                        address: address.clone(),
                        action: Action::Create,
                        cause: WithheldCause::InterruptedCreate,
                        retry_after,
                    };
                    self.withheld.insert(address.clone(), withheld);
                    self.blocked.insert(address);
                }
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

    /// Plans every declared instance, block after block in dependency order. The instances of one block
    /// read only other blocks' values, so a large block is planned on the thread pool's cores and the
    /// outcomes are taken in the block's order: the plan is the same whatever the threads.
    pub(super) fn evaluate(&mut self) {
        let config = self.config;
        self.changes.reserve(self.declared.len());
        // Only the values of blocks some block reads are ever looked up; the others are not kept.
        let mut read: BTreeSet<BlockAddress> = config
            .resources()
            .iter()
            .flat_map(|r| refs::resource_blocks(config, r))
            .collect();
        read.extend(super::conditions::top_condition_blocks(config));
        let blocks = self.blocks;
        for res in refs::block_order(config) {
            let Some(block) = refs::block_of(res) else {
                continue;
            };
            let Some(members) = blocks.get(&block) else {
                continue;
            };
            let outcomes = self.plan_block(res, members, read.contains(&block));
            for outcome in outcomes {
                self.take(outcome);
            }
        }
    }

    /// Plans the members of one block, on the thread pool when the block is large.
    fn plan_block(&self, res: &Resource, members: &[InstanceAddress], keep: bool) -> Vec<Outcome> {
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
        if let Some(withheld) = outcome.withheld {
            self.withheld.insert(outcome.address.clone(), withheld);
        }
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
        res: &Resource,
        d: &ExpandedInstance,
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
                    e.into_diagnostic(Code::InvalidExpression)
                        .with_address(d.address.to_string()),
                ),
            }
        }
        if schema.taggable {
            self.provider_settings.apply(res, &mut configured);
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
        res: &Resource,
        reads: &refs::BlockReads<'_>,
        d: &ExpandedInstance,
        keep: bool,
    ) -> Outcome {
        let type_name = d.address.type_name();
        let mut outcome = Outcome {
            address: d.address.clone(),
            value: None,
            change: None,
            withheld: None,
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
        let failed = self.lifecycle_conditions(res, d, &change);
        if !failed.is_empty() {
            outcome.diagnostics = failed;
            outcome.blocked = true;
            return unknown(outcome);
        }
        if keep {
            outcome.value = Some(
                change
                    .after
                    .clone()
                    .map(Value::Map)
                    .unwrap_or_else(|| self.unknown_instance_value(type_name)),
            );
        }
        if let Some(withheld) = self.waiting(&change) {
            outcome.withheld = Some(withheld);
            return outcome;
        }
        let incomplete =
            change.action == Action::Create && self.incomplete_types.contains(type_name);
        if !incomplete {
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

    /// `change` held back, when it does something and waits on a withheld change: it could not be
    /// applied (a value it reads is not there yet), and would break the order its `depends_on` asks for.
    /// It may be retried when the last of what it waits on may be.
    fn waiting(&self, change: &ResourceChange) -> Option<WithheldChange> {
        if change.action == Action::NoOp {
            return None;
        }
        let waits: Vec<&WithheldChange> = change
            .depends_on
            .iter()
            .filter_map(|a| self.withheld.get(a))
            .collect();
        let retry_after = waits.iter().map(|w| w.retry_after).max()?;
        Some(WithheldChange {
            address: change.address.clone(),
            action: change.action,
            cause: WithheldCause::WaitsOn(waits.iter().map(|w| w.address.clone()).collect()),
            retry_after,
        })
    }

    /// The instances `d` waits for: the members its arguments read (one member for a reference with a
    /// key known before apply, every member of a block read whole), and every instance of the blocks its
    /// `depends_on`, `count` or `for_each` names. So an instance that reads its own member of a large
    /// block waits for that member alone, and a plan's dependencies stay linear in its size.
    fn depends_on(&self, reads: &refs::BlockReads<'_>, needed: Needed) -> Vec<InstanceAddress> {
        let mut whole: BTreeSet<BlockAddress> = reads.counted().clone();
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
        if let Some(own) = reads.own() {
            whole.remove(own);
        }
        for block in &whole {
            out.extend(self.blocks.get(block).into_iter().flatten().cloned());
        }
        out.into_iter().collect()
    }
}
