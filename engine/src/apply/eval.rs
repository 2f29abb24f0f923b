//! The desired values of an instance at apply: its arguments evaluated again as upstream results arrive,
//! reading only the blocks and members they refer to, and the final plan of its change (the tags the plan
//! left unknown filled in).
//!
//! A block read by key is built only when an expression reads it whole; a member read by index is looked
//! up alone, so that applying a large block stays linear. This module never calls the provider or the
//! store, and refuses a value still unknown at apply rather than applying a guess.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use admission::Evaluator;
use admission::{BlockAddress, Code, InstanceAddress, InstanceKey, Repetition, Value};
use execgraph::{Diagnostic as GraphDiagnostic, OpResult, Unavailable, ValueSource};
use provider::LiveObject;
use provider::TagChange;
use provider::schema::{AttributeMode, ResourceTypeSchema, TAGS_ALL};

use super::{Executor, gdiag, plan_again};
use crate::graph::{self, EngineFamily, FinalKind, FinalPlan, Meta};
use crate::model::{PlanContext, ResourceChange};
use crate::refs;

/// A resource block as the evaluator sees it before any member is read: built once per apply, so that
/// reading one member of a large block copies a ready value instead of rebuilding the block.
pub(super) struct BlockShape {
    /// The block's declaration, as an index into the configuration's resources.
    resource: usize,
    /// Where each member sits in the block's value: its position in the list of a `count` block.
    positions: HashMap<InstanceKey, usize>,
    /// The block's value with every member unknown (what [`refs::block_value`] gives with no key).
    unknown: Value,
}

/// The shape of every declared resource block with declared instances.
pub(super) fn block_shapes(ctx: &PlanContext) -> HashMap<BlockAddress, BlockShape> {
    ctx.config
        .resources()
        .iter()
        .enumerate()
        .filter_map(|(resource, res)| Some((resource, res, refs::block_of(res)?)))
        .map(|(resource, res, block)| {
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
    whole: BTreeMap<BlockAddress, Value>,
    /// The blocks read by key, with the keys read.
    keyed: BTreeMap<BlockAddress, BTreeSet<InstanceKey>>,
    /// The values of the members read by key.
    members: HashMap<InstanceAddress, Value>,
}

/// Resolves blocks for the evaluator from what an instance fetched; a block read by key is built only when
/// an expression reads it whole, not for a member read by index, which is looked up alone.
struct ReadResolver<'a> {
    exec: &'a Executor,
    reads: &'a Reads,
}

impl admission::ResourceResolver for ReadResolver<'_> {
    fn resolve(&self, type_name: &str, name: &str) -> Option<Value> {
        let block = BlockAddress::from_reference(type_name, name).ok()?;
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
        let block = BlockAddress::from_reference(type_name, name).ok()?;
        if self.reads.whole.contains_key(&block) {
            return None;
        }
        let keys = self.reads.keyed.get(&block)?;
        let res = self.exec.ctx.config.resource(type_name, name)?;
        let shape = self.exec.blocks.get(&block)?;
        let instances = self.exec.ctx.blocks.get(&block)?;
        let (position, unknown) = match (key, &shape.unknown, &res.repetition) {
            (Value::Number(n), Value::List(items), Repetition::Count(_)) => {
                let i = usize::try_from(n.as_u64()?).ok()?;
                (i, items.get(i)?)
            }
            (Value::String(k), Value::Map(entries), Repetition::ForEach(_)) => (
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

impl Executor {
    /// The declared instances of `block`, in address order.
    pub(super) fn members(&self, block: &BlockAddress) -> &[InstanceAddress] {
        self.ctx.blocks.get(block).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Fetches what an instance's arguments read: the blocks read whole, and the members read by key.
    /// `None` when an upstream failed (the evaluation stops silently).
    async fn fetch_reads(
        &self,
        needed: BTreeMap<BlockAddress, Option<BTreeSet<InstanceKey>>>,
        values: &ValueSource<EngineFamily>,
    ) -> Option<Reads> {
        let mut reads = Reads::default();
        for (block, keys) in needed {
            let shape = self.blocks.get(&block)?;
            let res = self.ctx.config.resources().get(shape.resource)?;
            let instances = self.members(&block);
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
        block: &BlockAddress,
        keys: &BTreeSet<InstanceKey>,
        members: &HashMap<InstanceAddress, Value>,
    ) -> Option<Value> {
        let shape = self.blocks.get(block)?;
        let instances = self.members(block);
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

    /// The desired values of `meta`'s instance, from its arguments evaluated with the values upstream
    /// operations produced. `Err` with no diagnostic when an upstream failed (the failure is told there).
    pub(super) async fn desired(
        &self,
        meta: &Meta,
        values: &ValueSource<EngineFamily>,
    ) -> OpResult<BTreeMap<String, Value>> {
        let address = &meta.address;
        let Some(res) = self.ctx.config.resource_at(address.block()) else {
            return Err(vec![plan_again(address, "is not declared")]);
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
            .unwrap_or(admission::Instance::Single);
        let needed = {
            let statics = Evaluator::new(&self.ctx.config, &self.ctx.variables);
            refs::needed_instances(&self.ctx.config, &statics, res, &repetition)
        };
        let Some(reads) = self.fetch_reads(needed, values).await else {
            return Err(Vec::new());
        };
        let configured = self
            .configured(address, res, schema, &repetition, &reads)
            .map_err(|d| vec![d])?;
        let mut desired = schema.desired(&configured, &self.ctx.region);
        // The provider is given every tag the object is to carry (`tags_all`) as its `tags`.
        desired.remove("tags");
        desired.remove(TAGS_ALL);
        if let Some(tags) = meta.change.after.as_ref().and_then(|a| a.get(TAGS_ALL)) {
            desired.insert(
                "tags".to_owned(),
                known_tags(tags, configured.get(TAGS_ALL)),
            );
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

    /// The configured arguments of `address` (declared as `res`), evaluated over what it fetched.
    fn configured(
        &self,
        address: &InstanceAddress,
        res: &admission::Resource,
        schema: &ResourceTypeSchema,
        repetition: &admission::Instance,
        reads: &Reads,
    ) -> Result<BTreeMap<String, Value>, GraphDiagnostic> {
        let resolver = ReadResolver { exec: self, reads };
        let draws = self.impure.draws();
        let ev = Evaluator::with_resources(&self.ctx.config, &self.ctx.variables, &resolver)
            .with_impure(&draws);
        let mut out = BTreeMap::new();
        let mut err = None;
        for (name, attr) in &res.attrs {
            match ev.eval(&attr.expr, repetition) {
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
        if let Some(e) = draws.take_failure() {
            return Err(gdiag(
                Code::ApplyFailed,
                format!("{address}: uuid() could not draw random bytes: {e}"),
                "the operating system's random generator failed; apply again",
                address,
            ));
        }
        if schema.taggable {
            self.ctx.provider_settings.apply(res, &mut out);
        }
        match err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// The final plan of `meta`'s change: what to do, with the desired values and the prior object.
    pub(super) fn final_plan(
        &self,
        meta: &Meta,
        desired: Option<&BTreeMap<String, Value>>,
        prior: Option<&LiveObject>,
    ) -> OpResult<FinalPlan> {
        let kind = match (desired, prior) {
            (Some(_), None) => FinalKind::Create,
            (Some(_), Some(_)) => FinalKind::Update,
            (None, Some(_)) => FinalKind::Delete,
            (None, None) => {
                return Err(vec![plan_again(
                    &meta.address,
                    "has neither a desired nor a prior object",
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
}

/// The planned tags with the values the plan left unknown taken from the configuration evaluated now:
/// the markers and every known tag stay exactly as reviewed. A value still unknown stays unknown, which
/// the caller refuses.
fn known_tags(planned: &Value, configured: Option<&Value>) -> Value {
    let planned_marked = planned.is_sensitive();
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
    .mark_sensitive_if(planned_marked)
}

/// The tag change of an update: the reviewed one, plus the tags whose values were unknown at plan time
/// and are known in `desired` now (those that already hold that value are left alone).
fn final_tag_change(
    change: &ResourceChange,
    desired: Option<&BTreeMap<String, Value>>,
    prior: Option<&LiveObject>,
) -> TagChange {
    let mut tag_change = change.tag_change.clone();
    let planned = change.after.as_ref().and_then(|a| a.get(TAGS_ALL));
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
