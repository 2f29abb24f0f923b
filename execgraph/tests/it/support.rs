//! A small concrete type family and a recording `Operations` double shared by the tests.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use async_trait::async_trait;
use execgraph::{
    Applied, Builder, CompiledGraph, Diagnostic, ExecuteConfig, Family, Graph, OpResult,
    Operations, Unavailable, ValueSource,
};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// The test family: string addresses and keys, a tiny value language, objects with an id.
pub struct TestFamily;

/// A value: null, a string, an object of values, or an unknown with its mark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Val {
    Null,
    Str(String),
    Obj(BTreeMap<String, Val>),
    Unknown(String),
}

impl Val {
    pub fn obj<const N: usize>(fields: [(&str, &str); N]) -> Val {
        Val::Obj(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_owned(), Val::Str(v.to_owned())))
                .collect(),
        )
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Null => f.write_str("null"),
            Val::Str(s) => write!(f, "{s:?}"),
            Val::Obj(fields) => {
                f.write_str("{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k:?} = {v}")?;
                }
                f.write_str("}")
            }
            Val::Unknown(mark) => write!(f, "(unknown: {mark})"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub addr: String,
    pub deposed: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    pub id: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub addr: String,
    pub action: &'static str,
    pub deposed: Option<String>,
}

impl Plan {
    fn describe(&self) -> String {
        match &self.deposed {
            Some(key) => format!("{} {} deposed {key}", self.action, self.addr),
            None => format!("{} {}", self.action, self.addr),
        }
    }
}

impl Family for TestFamily {
    type Value = Val;
    type Addr = String;
    type DeposedKey = String;
    type Meta = Meta;
    type Desired = Val;
    type Object = Object;
    type FinalPlan = Plan;

    fn object_value(object: &Object) -> Val {
        Val::obj([("id", object.id.as_str())])
    }

    fn null_value() -> Val {
        Val::Null
    }

    fn unavailable_value(addr: &String, why: Unavailable) -> Val {
        let mark = match why {
            Unavailable::DependencyMissing => "dependency missing",
            Unavailable::EvaluationError => "evaluation error",
        };
        Val::Unknown(format!("{mark} for {addr}"))
    }

    fn prepare_depose(plan: &Plan, key: &String) -> Result<Plan, Diagnostic> {
        if plan.action != "delete" || plan.deposed.is_some() {
            return Err(Diagnostic::error(
                "invalid-depose",
                "only the delete of a current object can be deposed",
                "",
            ));
        }
        Ok(Plan {
            deposed: Some(key.clone()),
            ..plan.clone()
        })
    }
}

pub type B = Builder<TestFamily>;
pub type G = Graph<TestFamily>;

/// An `Operations` double that records every call, fails the calls it is told to, and can hold provider
/// calls on the (paused) clock while counting how many are in flight.
#[derive(Default)]
pub struct Recorder {
    pub log: Mutex<Vec<String>>,
    /// Prior objects by address.
    pub priors: HashMap<String, Object>,
    /// Calls (as logged) that fail with one `apply-failed` error.
    pub fail: HashSet<String>,
    /// Addresses whose create makes no object, without an error.
    pub create_nothing: HashSet<String>,
    /// For each address, the addresses its desired state reads.
    pub reads: HashMap<String, Vec<String>>,
    /// When set, desired states read values through this compiled graph instead of the value source.
    pub through_graph: OnceLock<Weak<CompiledGraph<TestFamily>>>,
    /// How long each provider call holds (on the tokio clock).
    pub hold: Option<Duration>,
    /// Cancel this token when that many provider calls have started.
    pub cancel_at: Option<(usize, CancellationToken)>,
    pub starts: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub finished: AtomicUsize,
}

impl Recorder {
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    pub fn sorted_log(&self) -> Vec<String> {
        let mut log = self.log.lock().unwrap().clone();
        log.sort();
        log
    }

    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    pub fn finished(&self) -> usize {
        self.finished.load(Ordering::SeqCst)
    }

    fn failure(&self, entry: &str) -> Option<Vec<Diagnostic>> {
        self.fail.contains(entry).then(|| {
            vec![Diagnostic::error(
                "apply-failed",
                format!("{entry} failed"),
                "the double was told to fail it",
            )]
        })
    }

    /// Logs a provider call and holds it, counting it in flight.
    async fn provider_call(&self, entry: String) -> Option<Vec<Diagnostic>> {
        self.log.lock().unwrap().push(entry.clone());
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let started = self.starts.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some((at, token)) = &self.cancel_at
            && started == *at
        {
            token.cancel();
        }
        if let Some(hold) = self.hold {
            tokio::time::sleep(hold).await;
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.finished.fetch_add(1, Ordering::SeqCst);
        self.failure(&entry)
    }

    fn evaluator_call(&self, entry: String) -> Option<Vec<Diagnostic>> {
        self.log.lock().unwrap().push(entry.clone());
        self.failure(&entry)
    }
}

fn object_id(object: Option<&Object>) -> &str {
    object.map_or("none", |o| o.id.as_str())
}

#[async_trait]
impl Operations<TestFamily> for Recorder {
    async fn resource_instance_prior(&self, addr: &String) -> OpResult<Option<Object>> {
        if let Some(diags) = self.provider_call(format!("prior {addr}")).await {
            return Err(diags);
        }
        Ok(self.priors.get(addr).cloned())
    }

    async fn resource_instance_current_meta(
        &self,
        addr: &String,
        prior: Option<&Object>,
    ) -> OpResult<Meta> {
        if let Some(diags) = self.evaluator_call(format!("meta {addr} prior={}", object_id(prior)))
        {
            return Err(diags);
        }
        Ok(Meta {
            addr: addr.clone(),
            deposed: None,
        })
    }

    async fn resource_instance_desired(
        &self,
        meta: &Meta,
        values: &ValueSource<TestFamily>,
    ) -> OpResult<Val> {
        let mut fields = BTreeMap::from([("name".to_owned(), Val::Str(meta.addr.clone()))]);
        for read in self.reads.get(&meta.addr).into_iter().flatten() {
            let value = match self.through_graph.get().and_then(Weak::upgrade) {
                Some(graph) => graph.resource_instance_value(read).await,
                None => values.resource_instance_value(read).await,
            };
            self.log
                .lock()
                .unwrap()
                .push(format!("value {read} for {} = {value}", meta.addr));
            if let Val::Unknown(mark) = &value
                && mark.starts_with("evaluation error")
            {
                // Reported where it happened: stop silently.
                return Err(Vec::new());
            }
            fields.insert(read.clone(), value);
        }
        if let Some(diags) = self.evaluator_call(format!("desired {}", meta.addr)) {
            return Err(diags);
        }
        Ok(Val::Obj(fields))
    }

    async fn managed_final_plan(
        &self,
        meta: &Meta,
        desired: Option<&Val>,
        prior: Option<&Object>,
        _planned: Option<&Val>,
    ) -> OpResult<Plan> {
        let action = match (desired, prior) {
            (Some(_), None) => "create",
            (Some(_), Some(_)) => "update",
            (None, Some(_)) => "delete",
            (None, None) => {
                return Err(vec![Diagnostic::error(
                    "apply-failed",
                    "nothing to plan",
                    "",
                )]);
            }
        };
        let plan = Plan {
            addr: meta.addr.clone(),
            action,
            deposed: meta.deposed.clone(),
        };
        if let Some(diags) = self
            .provider_call(format!("plan {}", plan.describe()))
            .await
        {
            return Err(diags);
        }
        Ok(plan)
    }

    async fn managed_apply(&self, plan: &Plan, fallback: Option<&Object>) -> Applied<Object> {
        let mut entry = format!("apply {}", plan.describe());
        if let Some(fallback) = fallback {
            entry.push_str(&format!(" fallback={}", fallback.id));
        }
        if let Some(diags) = self.provider_call(entry).await {
            return Applied::failed(diags);
        }
        match plan.action {
            "create" if self.create_nothing.contains(&plan.addr) => Applied::ok(None),
            "create" => Applied::ok(Some(Object {
                id: format!("{}#new", plan.addr),
            })),
            "update" => Applied::ok(Some(Object {
                id: format!("{}#updated", plan.addr),
            })),
            _ => Applied::ok(None),
        }
    }

    async fn managed_perform_depose(
        &self,
        current: Option<&Object>,
        plan: &Plan,
    ) -> OpResult<Object> {
        let key = plan.deposed.clone().unwrap_or_default();
        let entry = format!("depose {} {} key={key}", plan.addr, object_id(current));
        if let Some(diags) = self.provider_call(entry).await {
            return Err(diags);
        }
        current
            .cloned()
            .ok_or_else(|| vec![Diagnostic::error("apply-failed", "nothing to depose", "")])
    }

    async fn managed_deposed_meta(
        &self,
        addr: &String,
        key: &String,
        prior: Option<&Object>,
    ) -> OpResult<Meta> {
        if let Some(diags) = self.evaluator_call(format!(
            "deposed-meta {addr} {key} prior={}",
            object_id(prior)
        )) {
            return Err(diags);
        }
        Ok(Meta {
            addr: addr.clone(),
            deposed: Some(key.clone()),
        })
    }

    async fn managed_already_deposed(&self, addr: &String, key: &String) -> OpResult<Object> {
        if let Some(diags) = self
            .provider_call(format!("already-deposed {addr} {key}"))
            .await
        {
            return Err(diags);
        }
        Ok(Object {
            id: format!("{addr}#{key}"),
        })
    }

    async fn managed_change_addr(
        &self,
        current: Option<&Object>,
        new_addr: &String,
    ) -> OpResult<Object> {
        if let Some(diags) = self
            .provider_call(format!("move {} to {new_addr}", object_id(current)))
            .await
        {
            return Err(diags);
        }
        current
            .cloned()
            .ok_or_else(|| vec![Diagnostic::error("apply-failed", "nothing to move", "")])
    }

    async fn data_read(
        &self,
        meta: &Meta,
        _desired: Option<&Val>,
        _planned: Option<&Val>,
    ) -> OpResult<Object> {
        if let Some(diags) = self.provider_call(format!("read {}", meta.addr)).await {
            return Err(diags);
        }
        Ok(Object {
            id: format!("{}#data", meta.addr),
        })
    }
}

/// Compiles and executes `graph` with `ops` at the given parallelism.
pub async fn execute(graph: &G, ops: Arc<Recorder>, parallelism: usize) -> Vec<Diagnostic> {
    let compiled = graph.compile(ops).expect("the graph compiles");
    let config = ExecuteConfig {
        parallelism: parallelism.try_into().unwrap(),
        ..ExecuteConfig::default()
    };
    compiled.execute(config).await
}

/// `code: summary (address)` lines, sorted: what a user sees of a run's diagnostics.
pub fn render(diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut lines: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    lines.sort();
    lines
}
