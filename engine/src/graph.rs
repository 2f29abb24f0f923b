//! The execution graph of a plan: one subgraph per change in the shapes of the execution graph's design
//! (create, update, delete, deposed delete, destroy-before-create and create-before-destroy replaces),
//! wired so that an instance is applied after the instances it refers to, and a delete runs after the
//! changes of the objects that refer to the deleted one.
//!
//! It also defines [`EngineFamily`], the concrete types the graph carries. Building a graph is pure: this
//! module must never call a provider or a store.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use admission::{InstanceAddress, Value};
use execgraph::{
    AnyResultRef, Builder, Diagnostic as GraphDiagnostic, Family, Graph, ResultRef, Unavailable,
};
use provider::LiveObject;
use provider::TagChange;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::{Action, Plan, ReplaceOrder, ResourceChange};

/// A value as the graph carries it: a configuration value, or the mark of why an instance's value is not
/// available.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphValue {
    /// The value (unknown when unavailable).
    pub value: Value,
    /// Why the instance's value is not available, if it is not.
    pub unavailable: Option<Unavailable>,
}

impl GraphValue {
    /// A known (or partly unknown) value.
    pub fn of(value: Value) -> GraphValue {
        GraphValue {
            value,
            unavailable: None,
        }
    }
}

impl fmt::Display for GraphValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.unavailable {
            Some(Unavailable::DependencyMissing) => f.write_str("(dependency missing)"),
            Some(Unavailable::EvaluationError) => f.write_str("(evaluation error)"),
            None => write!(f, "{}", self.value),
        }
    }
}

impl Serialize for GraphValue {
    /// Every kind of value tagged, so that unknowns keep their types and unmarshalling gives back the same
    /// graph; a sensitive value travels without its content (secrets never leave the process through a
    /// marshalled graph) and comes back as a sensitive unknown, shown the same way.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire::of(&self.value).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GraphValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(GraphValue::of(Wire::deserialize(deserializer)?.value()))
    }
}

/// A value as a marshalled graph writes it.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
enum Wire {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    List(Vec<Wire>),
    Set(Vec<Wire>),
    Map(BTreeMap<String, Wire>),
    Unknown(admission::Type),
    /// A sensitive value, its content left out.
    Sensitive,
}

impl Wire {
    fn of(value: &Value) -> Wire {
        match value {
            Value::Null => Wire::Null,
            Value::Bool(b) => Wire::Bool(*b),
            Value::Number(_) => match value.to_plan_json() {
                serde_json::Value::Number(n) => Wire::Number(n),
                _ => Wire::Null,
            },
            Value::String(s) => Wire::String(s.clone()),
            Value::List(items) => Wire::List(items.iter().map(Wire::of).collect()),
            Value::Set(items) => Wire::Set(items.iter().map(Wire::of).collect()),
            Value::Map(entries) => Wire::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), Wire::of(v)))
                    .collect(),
            ),
            Value::Unknown(t) => Wire::Unknown(t.clone()),
            Value::Sensitive(_) => Wire::Sensitive,
        }
    }

    fn value(self) -> Value {
        match self {
            Wire::Null => Value::Null,
            Wire::Bool(b) => Value::Bool(b),
            Wire::Number(n) => Value::from_json(serde_json::Value::Number(n)),
            Wire::String(s) => Value::String(s),
            Wire::List(items) => Value::List(items.into_iter().map(Wire::value).collect()),
            Wire::Set(items) => Value::Set(items.into_iter().map(Wire::value).collect()),
            Wire::Map(entries) => {
                Value::Map(entries.into_iter().map(|(k, v)| (k, v.value())).collect())
            }
            Wire::Unknown(t) => Value::Unknown(t),
            Wire::Sensitive => Value::unknown().sensitive(),
        }
    }
}

/// The metadata of one instance object in the graph.
#[derive(Debug, Clone)]
pub struct Meta {
    /// The instance.
    pub address: InstanceAddress,
    /// Its change in the plan. During an apply its `depends_on` is empty: the graph's waits carry the
    /// dependencies.
    pub change: Arc<ResourceChange>,
    /// The deposed key, for a deposed object.
    pub deposed: Option<String>,
}

/// What a final plan does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinalKind {
    /// Create a new object.
    Create,
    /// Update the object in place.
    Update,
    /// Delete the object.
    Delete,
}

impl FinalKind {
    /// The action's name in the `--json` event stream: `create`, `update` or `delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            FinalKind::Create => "create",
            FinalKind::Update => "update",
            FinalKind::Delete => "delete",
        }
    }
}

/// The final plan of one managed object.
#[derive(Debug, Clone)]
pub struct FinalPlan {
    /// What it does.
    pub kind: FinalKind,
    /// The instance.
    pub address: InstanceAddress,
    /// Its change in the plan.
    pub change: Arc<ResourceChange>,
    /// The desired attributes (tags included), for a create or update.
    pub desired: Option<BTreeMap<String, Value>>,
    /// The object acted on, for an update or delete.
    pub prior: Option<LiveObject>,
    /// The deposed key, for the delete of a deposed object.
    pub deposed: Option<String>,
    /// The tag change of an update.
    pub tag_change: TagChange,
}

/// The concrete types of the engine's execution graphs.
#[derive(Debug, Clone, Copy)]
pub struct EngineFamily;

/// The value other instances see of a live object: its attributes, `id`, `tags` (without the ownership
/// markers) and `tags_all` (every tag).
pub fn object_value(object: &LiveObject) -> Value {
    let mut m = object.attributes.clone();
    m.insert("id".to_owned(), Value::from(object.id.clone()));
    if !object.tags.is_empty() {
        let map = |tags: &BTreeMap<String, String>| {
            Value::Map(
                tags.iter()
                    .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                    .collect(),
            )
        };
        m.insert(
            "tags".to_owned(),
            map(&admission::marker::non_marker_tags(&object.tags)),
        );
        m.insert(provider::schema::TAGS_ALL.to_owned(), map(&object.tags));
    }
    Value::Map(m)
}

impl Family for EngineFamily {
    type Value = GraphValue;
    type Addr = InstanceAddress;
    type DeposedKey = String;
    type Meta = Meta;
    type Desired = BTreeMap<String, Value>;
    type Object = LiveObject;
    type FinalPlan = FinalPlan;

    fn object_value(object: &LiveObject) -> GraphValue {
        GraphValue::of(object_value(object))
    }

    fn null_value() -> GraphValue {
        GraphValue::of(Value::Null)
    }

    fn unavailable_value(_addr: &InstanceAddress, why: Unavailable) -> GraphValue {
        GraphValue {
            value: Value::unknown(),
            unavailable: Some(why),
        }
    }

    fn prepare_depose(plan: &FinalPlan, key: &String) -> Result<FinalPlan, GraphDiagnostic> {
        if plan.kind != FinalKind::Delete {
            return Err(GraphDiagnostic::error(
                "apply-failed",
                "only a destroy plan can be deposed",
                "the planner built a create-before-destroy replace with the wrong plan",
            ));
        }
        let mut out = plan.clone();
        out.deposed = Some(key.clone());
        Ok(out)
    }
}

/// An execution graph of the engine.
pub type EngineGraph = Graph<EngineFamily>;

/// The refs one change's subgraph exposes to the others.
#[derive(Clone, Copy)]
struct Built {
    /// The instance's final state (nil for a deposed delete).
    sink: AnyResultRef,
    /// The apply that removes the old object (deletes and replaces).
    destroy: Option<AnyResultRef>,
}

/// Calls `f` with every string inside `v` (tags excluded).
fn strings_in<'v>(v: &'v Value, f: &mut dyn FnMut(&'v str)) {
    match v.peel() {
        Value::String(s) => f(s),
        Value::List(items) => items.iter().for_each(|x| strings_in(x, f)),
        Value::Set(items) => items.iter().for_each(|x| strings_in(x, f)),
        Value::Map(m) => m
            .iter()
            .filter(|(k, _)| *k != "tags")
            .for_each(|(_, x)| strings_in(x, f)),
        _ => {}
    }
}

/// Which changes' old objects refer to each id, keyed by the referenced type where the schema names it.
///
/// An attribute the schema marks as a reference (`vpc_id` references `aws_vpc`) counts for objects of that type
/// only; an attribute the schema knows as a plain value never counts, so a bucket's own `bucket` name does not
/// make it depend on the versioning configuration that shares the name as its id. Attributes of types the
/// catalog does not describe count for any type, except values equal to the object's own id.
fn referrers_by_id<'c>(
    changes: &[&'c ResourceChange],
    catalog: &'c provider::Catalog,
) -> BTreeMap<(Option<&'c str>, &'c str), Vec<usize>> {
    let mut referrers: BTreeMap<(Option<&str>, &str), Vec<usize>> = BTreeMap::new();
    for (j, c) in changes.iter().enumerate() {
        let Some(before) = &c.before else { continue };
        let schema = catalog.get(c.address.type_name());
        for (k, v) in before {
            if k == "id" || k == "tags" {
                continue;
            }
            match schema.and_then(|s| s.attribute(k)) {
                Some(attribute) => {
                    if let Some(target) = attribute.references.as_deref() {
                        strings_in(v, &mut |s| {
                            referrers.entry((Some(target), s)).or_default().push(j)
                        });
                    }
                }
                None => strings_in(v, &mut |s| {
                    if c.id.as_deref() != Some(s) {
                        referrers.entry((None, s)).or_default().push(j);
                    }
                }),
            }
        }
    }
    referrers
}

/// The dependency sets of a graph being built, interned: the instances of one block usually share one
/// set (they refer to the same blocks), so it is resolved, checked and waited for once, not once per
/// instance. Set 0 is the empty set.
struct DepSets {
    sets: Vec<Vec<usize>>,
}

impl DepSets {
    fn new() -> DepSets {
        DepSets {
            sets: vec![Vec::new()],
        }
    }

    /// Adds a sorted set without duplicates; the empty set is always id 0.
    fn add(&mut self, set: Vec<usize>) -> usize {
        if set.is_empty() {
            return 0;
        }
        self.sets.push(set);
        self.sets.len() - 1
    }

    fn get(&self, id: usize) -> &[usize] {
        &self.sets[id]
    }
}

/// Waiters made so far, by what they wait for: every apply that waits for the same results shares one.
#[derive(Default)]
struct Waiters {
    made: HashMap<Vec<AnyResultRef>, AnyResultRef>,
}

impl Waiters {
    /// One waiter over `first` (unless nil) and `rest`.
    fn wait(
        &mut self,
        b: &mut Builder<EngineFamily>,
        first: AnyResultRef,
        rest: &[AnyResultRef],
    ) -> AnyResultRef {
        let refs: Vec<AnyResultRef> = (!first.is_nil())
            .then_some(first)
            .into_iter()
            .chain(rest.iter().copied())
            .collect();
        match self.made.get(&refs) {
            Some(&w) => w,
            None => {
                let w = b.waiter(refs.iter().copied());
                self.made.insert(refs, w);
                w
            }
        }
    }
}

/// Builds the execution graph of a plan's effective changes.
pub fn build(plan: &Plan) -> Result<EngineGraph, execgraph::GraphError> {
    let changes: Vec<&ResourceChange> = plan.effective_changes().collect();
    let deps = Deps::of(&changes, &plan.context.catalog);
    let order = deps.build_order();
    let reaches_delete = deps.reaches_delete(&changes, &order);
    let mut b = Builder::<EngineFamily>::new();
    let mut waiters = Waiters::default();
    let mut built: Vec<Option<Built>> = vec![None; changes.len()];
    // Waiters made before what they wait for was built (a cycle): (waiter, dependency set, destroy side).
    let mut pending = Vec::new();
    for &i in &order {
        let c = changes[i];
        let (after, after_handle) =
            waiter_for(&mut b, deps.sets.get(deps.create[i]), &built, |x| x.sink);
        let (destroy_after, destroy_handle) =
            waiter_for(&mut b, deps.sets.get(deps.destroy[i]), &built, |x| {
                x.destroy.unwrap_or(x.sink)
            });
        let create_waits_for_a_delete = deps
            .sets
            .get(deps.create[i])
            .iter()
            .any(|&j| reaches_delete[j]);
        let result = subgraph(
            &mut b,
            &mut waiters,
            c,
            &after,
            &destroy_after,
            create_waits_for_a_delete,
        );
        built[i] = Some(result);
        if let Some(h) = after_handle {
            pending.push((h, deps.create[i], false));
        }
        if let Some(h) = destroy_handle {
            pending.push((h, deps.destroy[i], true));
        }
    }
    for (handle, set, destroy) in pending {
        for &j in deps.sets.get(set) {
            if let Some(x) = built[j] {
                let r = if destroy {
                    x.destroy.unwrap_or(x.sink)
                } else {
                    x.sink
                };
                b.add_waiter_dependency(handle, r);
            }
        }
    }
    b.finish()
}

/// What each change waits for, by index into the effective changes: on the create side (a create,
/// update or replace waits for the sinks of the instances it depends on) and on the destroy side (a
/// delete or a replace's delete waits for the changes whose old objects refer to the object).
struct Deps {
    sets: DepSets,
    /// Each change's create-side dependency set.
    create: Vec<usize>,
    /// Each change's destroy-side dependency set.
    destroy: Vec<usize>,
}

impl Deps {
    fn of(changes: &[&ResourceChange], catalog: &provider::Catalog) -> Deps {
        let current: HashMap<&InstanceAddress, usize> = changes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.deposed.is_none())
            .map(|(i, c)| (&c.address, i))
            .collect();
        // Which changes' old objects refer to each (type, id), found in one walk over every `before`.
        let referrers = referrers_by_id(changes, catalog);
        let mut sets = DepSets::new();
        let mut create: Vec<usize> = vec![0; changes.len()];
        let mut destroy: Vec<usize> = vec![0; changes.len()];
        // The last `depends_on` resolved and its set: changes come sorted by address, so the instances of a
        // block, which share their list, come one after the other.
        let mut last: Option<(&[InstanceAddress], usize)> = None;
        for (i, c) in changes.iter().enumerate() {
            if matches!(c.action, Action::Create | Action::Update | Action::Replace) {
                let id = match last {
                    Some((deps, id)) if deps == c.depends_on.as_slice() => id,
                    _ => {
                        let mut set: Vec<usize> = c
                            .depends_on
                            .iter()
                            .filter_map(|d| current.get(d).copied())
                            .filter(|&j| changes[j].action != Action::Delete)
                            .collect();
                        set.sort_unstable();
                        set.dedup();
                        let id = sets.add(set);
                        last = Some((c.depends_on.as_slice(), id));
                        id
                    }
                };
                create[i] = if sets.get(id).binary_search(&i).is_ok() {
                    let mine: Vec<usize> =
                        sets.get(id).iter().copied().filter(|&j| j != i).collect();
                    sets.add(mine)
                } else {
                    id
                };
            }
            if matches!(c.action, Action::Delete | Action::Replace)
                && let Some(id) = &c.id
            {
                let type_name = c.address.type_name();
                let typed = referrers.get(&(Some(type_name), id.as_str()));
                let untyped = referrers.get(&(None, id.as_str()));
                let set: BTreeSet<usize> = typed
                    .into_iter()
                    .chain(untyped)
                    .flatten()
                    .copied()
                    .filter(|&j| j != i)
                    .collect();
                destroy[i] = sets.add(set.into_iter().collect());
            }
        }
        Deps {
            sets,
            create,
            destroy,
        }
    }

    /// An order where every dependency is built first; what a cycle leaves comes last, to be built
    /// through mutable waiters, and `finish` names the cycle. A set once seen placed stays placed.
    fn build_order(&self) -> Vec<usize> {
        let n = self.create.len();
        let mut order = Vec::new();
        let mut placed = vec![false; n];
        let mut set_placed = vec![false; self.sets.sets.len()];
        set_placed[0] = true;
        let mut all_placed = |id: usize, placed: &[bool]| {
            if !set_placed[id] && self.sets.get(id).iter().all(|&j| placed[j]) {
                set_placed[id] = true;
            }
            set_placed[id]
        };
        loop {
            let mut progressed = false;
            for i in 0..n {
                if !placed[i]
                    && all_placed(self.create[i], &placed)
                    && all_placed(self.destroy[i], &placed)
                {
                    placed[i] = true;
                    order.push(i);
                    progressed = true;
                }
            }
            if !progressed {
                break;
            }
        }
        let mut late: Vec<usize> = (0..n).filter(|&i| !placed[i]).collect();
        order.append(&mut late);
        order
    }

    /// Whether each change's result waits, through what it waits for, for a delete: only a
    /// destroy-before-create replace's create does (it follows its own delete). Judged in build `order`,
    /// so dependencies come first; a cycle's members may be judged too early, and `finish` rejects the
    /// cycle anyway.
    fn reaches_delete(&self, changes: &[&ResourceChange], order: &[usize]) -> Vec<bool> {
        let mut reaches_delete = vec![false; changes.len()];
        for &i in order {
            let c = changes[i];
            reaches_delete[i] = (c.action == Action::Replace
                && c.replace_order != Some(ReplaceOrder::CreateBeforeDestroy))
                || self
                    .sets
                    .get(self.create[i])
                    .iter()
                    .any(|&j| reaches_delete[j]);
        }
        reaches_delete
    }
}

/// What an apply must wait for: the refs of built dependencies, or one mutable waiter when some are not
/// built yet (a cycle, which `finish` reports).
fn waiter_for(
    b: &mut Builder<EngineFamily>,
    deps: &[usize],
    built: &[Option<Built>],
    pick: impl Fn(&Built) -> AnyResultRef,
) -> (Vec<AnyResultRef>, Option<execgraph::WaiterHandle>) {
    if deps.iter().all(|&j| built[j].is_some()) {
        let refs = deps
            .iter()
            .filter_map(|&j| built[j].as_ref().map(&pick))
            .collect();
        (refs, None)
    } else {
        let (w, h) = b.mutable_waiter();
        (vec![w], Some(h))
    }
}

fn planned(b: &mut Builder<EngineFamily>, c: &ResourceChange) -> ResultRef<execgraph::kind::Value> {
    match &c.after {
        Some(after) => b.constant_value(GraphValue::of(Value::Map(after.clone()))),
        None => ResultRef::nil(),
    }
}

fn subgraph(
    b: &mut Builder<EngineFamily>,
    waiters: &mut Waiters,
    c: &ResourceChange,
    after: &[AnyResultRef],
    destroy_after: &[AnyResultRef],
    create_waits_for_a_delete: bool,
) -> Built {
    match (c.action, &c.deposed) {
        (Action::Delete, Some(key)) => {
            let addr = b.constant_resource_instance_addr(c.address.clone());
            let key = b.constant_deposed_key(key.clone());
            let obj = b.managed_already_deposed(addr, key);
            let meta = b.managed_deposed_meta(addr, key, obj);
            let plan = b.managed_final_plan(meta, ResultRef::nil(), obj, ResultRef::nil());
            let w = waiters.wait(b, AnyResultRef::nil(), destroy_after);
            let applied = b.managed_apply(plan, ResultRef::nil(), w);
            Built {
                sink: AnyResultRef::nil(),
                destroy: Some(applied.any()),
            }
        }
        (Action::Create, _) => {
            let value = planned(b, c);
            let addr = b.constant_resource_instance_addr(c.address.clone());
            let meta = b.resource_instance_current_meta(addr, ResultRef::nil());
            let desired = b.resource_instance_desired(meta);
            let plan = b.managed_final_plan(meta, desired, ResultRef::nil(), value);
            let w = waiters.wait(b, AnyResultRef::nil(), after);
            let applied = b.managed_apply(plan, ResultRef::nil(), w);
            b.set_resource_instance_final_state_result(c.address.clone(), applied);
            Built {
                sink: applied.any(),
                destroy: None,
            }
        }
        (Action::Update, _) | (Action::NoOp, _) => {
            let value = planned(b, c);
            let addr = b.constant_resource_instance_addr(c.address.clone());
            let prior = b.resource_instance_prior(addr);
            let meta = b.resource_instance_current_meta(addr, prior);
            let desired = b.resource_instance_desired(meta);
            let plan = b.managed_final_plan(meta, desired, prior, value);
            let w = waiters.wait(b, AnyResultRef::nil(), after);
            let applied = b.managed_apply(plan, ResultRef::nil(), w);
            b.set_resource_instance_final_state_result(c.address.clone(), applied);
            Built {
                sink: applied.any(),
                destroy: None,
            }
        }
        (Action::Delete, None) => {
            let addr = b.constant_resource_instance_addr(c.address.clone());
            let prior = b.resource_instance_prior(addr);
            let meta = b.resource_instance_current_meta(addr, prior);
            let plan = b.managed_final_plan(meta, ResultRef::nil(), prior, ResultRef::nil());
            let w = waiters.wait(b, AnyResultRef::nil(), destroy_after);
            let applied = b.managed_apply(plan, ResultRef::nil(), w);
            b.set_resource_instance_final_state_result(c.address.clone(), applied);
            Built {
                sink: applied.any(),
                destroy: Some(applied.any()),
            }
        }
        (Action::Replace, _) => {
            let value = planned(b, c);
            let addr = b.constant_resource_instance_addr(c.address.clone());
            let prior = b.resource_instance_prior(addr);
            let meta = b.resource_instance_current_meta(addr, prior);
            let desired = b.resource_instance_desired(meta);
            let create_plan = b.managed_final_plan(meta, desired, ResultRef::nil(), value);
            let delete_plan = b.managed_final_plan(meta, ResultRef::nil(), prior, ResultRef::nil());
            match c.replace_order {
                Some(ReplaceOrder::CreateBeforeDestroy) => {
                    let key_text = c.id.clone().unwrap_or_default();
                    let key = b.constant_deposed_key(key_text);
                    let prepared = b.managed_prepare_depose(delete_plan, key);
                    let depose_wait = b.waiter([create_plan.any()]);
                    let deposed = b.managed_perform_depose(prior, prepared, depose_wait);
                    let create_wait = waiters.wait(b, AnyResultRef::nil(), after);
                    let created = b.managed_apply(create_plan, deposed, create_wait);
                    let destroy_wait = waiters.wait(b, created.any(), destroy_after);
                    let destroyed = b.managed_apply(prepared, ResultRef::nil(), destroy_wait);
                    b.set_resource_instance_final_state_result(c.address.clone(), created);
                    Built {
                        sink: created.any(),
                        destroy: Some(destroyed.any()),
                    }
                }
                _ => {
                    // The delete waits until the create could start: for the create plan and for everything
                    // the create waits for, so a failure upstream leaves the old object in place. Unless
                    // something the create waits for itself follows a delete (a destroy-before-create
                    // replace upstream), which may be this one's: then the delete waits for nothing upstream,
                    // as in Terraform.
                    let destroy_wait = if create_waits_for_a_delete {
                        waiters.wait(b, AnyResultRef::nil(), destroy_after)
                    } else {
                        let rest: Vec<AnyResultRef> =
                            after.iter().chain(destroy_after).copied().collect();
                        waiters.wait(b, create_plan.any(), &rest)
                    };
                    let destroyed = b.managed_apply(delete_plan, ResultRef::nil(), destroy_wait);
                    let create_wait = waiters.wait(b, destroyed.any(), after);
                    let created = b.managed_apply(create_plan, ResultRef::nil(), create_wait);
                    b.set_resource_instance_final_state_result(c.address.clone(), created);
                    Built {
                        sink: created.any(),
                        destroy: Some(destroyed.any()),
                    }
                }
            }
        }
    }
}
