//! Shared test helpers: a simulated cloud, a memory store and one-call plan/apply.

use std::sync::Arc;

use admission::config::{SourceFile, VariableInputs};
use engine::render::{self, RenderOptions};
use engine::{ApplyConfig, Plan, PlanRequest, RetryPolicy};
use fixtures::{SimCloud, SimConfig};
use staterecord::{CacheScope, MemoryStore, Store};

/// A live system and a record store for one test.
pub struct World {
    /// The simulated cloud.
    pub cloud: Arc<SimCloud>,
    /// The record store.
    pub store: Arc<dyn Store>,
}

impl World {
    /// A world holding the snapshot `live` (JSON text).
    pub fn new(live: &str) -> World {
        World {
            cloud: Arc::new(
                SimCloud::from_json(live, SimConfig::default()).expect("a valid snapshot"),
            ),
            store: Arc::new(MemoryStore::new()),
        }
    }

    /// An empty world.
    pub fn empty() -> World {
        World::new(r#"{"resources": []}"#)
    }

    /// Plans `config` (one `main.tf`).
    pub async fn plan(&self, config: &str) -> Plan {
        let files = [SourceFile::new("main.tf", config)];
        let inputs = VariableInputs::default();
        let request = PlanRequest {
            files: &files,
            inputs: &inputs,
            estate_flag: None,
            retry: RetryPolicy::immediate(4),
        };
        engine::plan(
            &request,
            self.cloud.as_ref(),
            Arc::clone(&self.store),
            &CacheScope::new(),
        )
        .await
        .expect("the plan runs")
    }
}

/// The plan text (verbose off).
pub fn text(plan: &Plan) -> String {
    render::text(plan, RenderOptions::default())
}

/// The plan JSON (verbose off).
pub fn json(plan: &Plan) -> String {
    render::json(plan, RenderOptions::default())
}

impl World {
    /// Reviews and applies a plan with the given config, collecting events.
    pub async fn apply_with(&self, plan: Plan, config: ApplyConfig) -> engine::ApplyOutcome {
        let reviewed = plan.review().expect("the plan is applicable");
        let provider: Arc<dyn admission::Provider> =
            Arc::clone(&self.cloud) as Arc<dyn admission::Provider>;
        engine::apply(&reviewed, provider, Arc::clone(&self.store), config)
            .await
            .expect("the apply runs")
    }

    /// Reviews and applies a plan with instant retries.
    pub async fn apply(&self, plan: Plan) -> engine::ApplyOutcome {
        self.apply_with(
            plan,
            ApplyConfig {
                retry: RetryPolicy::immediate(4),
                ..ApplyConfig::default()
            },
        )
        .await
    }

    /// The record keys in the store.
    pub async fn record_keys(&self) -> Vec<String> {
        self.store.list("").await.expect("the store lists")
    }
}

/// The diagnostics of an apply, one line each.
pub fn diagnostics(outcome: &engine::ApplyOutcome) -> String {
    outcome
        .diagnostics
        .iter()
        .map(|d| format!("{d} {}\n", d.address.as_deref().unwrap_or("")))
        .collect()
}

/// One line per live object: type, id and its tags, sorted.
pub async fn live_tags(world: &World) -> String {
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    let mut lines: Vec<String> = snapshot
        .resources
        .iter()
        .map(|r| {
            let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} {} [{}]\n", r.type_name, r.id, tags.join(" "))
        })
        .collect();
    lines.sort();
    lines.concat()
}
