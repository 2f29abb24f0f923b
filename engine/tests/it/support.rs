//! The engine's test bench: a simulated cloud and a memory store with one-call plan and apply, the plan's
//! renderings, and an ordered journal of store writes and apply events. The live objects, fault plans and
//! cloud readers that do not need the engine come from the fixtures' testkit.

use std::sync::Arc;

use admission::{SourceFile, VariableInputs};
use engine::render::{self, RenderOptions};
use engine::{ApplyConfig, Engine, Plan, RetryConfig, Sources};
use fixtures::{SimCloud, SimConfig, testkit};
use provider::Counting;
use staterecord::{MemoryStore, Store};

pub use fixtures::testkit::failing;

/// A live system and a record store for one test.
pub struct Bench {
    /// The simulated cloud.
    pub cloud: Arc<SimCloud>,
    /// The record store.
    pub store: Arc<dyn Store>,
}

impl Bench {
    /// A bench holding the snapshot `live` (JSON text).
    pub fn new(live: &str) -> Bench {
        Bench {
            cloud: Arc::new(testkit::cloud_from_json(live)),
            store: Arc::new(MemoryStore::new()),
        }
    }

    /// A bench with no live objects.
    pub fn empty() -> Bench {
        Bench::new(r#"{"resources": []}"#)
    }

    /// The engine over this bench's cloud and store, retrying up to `attempts` times without waiting.
    pub fn engine(&self, attempts: u32) -> Engine {
        Engine::new(Arc::clone(&self.cloud) as _, Arc::clone(&self.store))
            .with_retry(RetryConfig::immediate(attempts))
    }

    /// Plans `config` (one `main.tf`).
    pub async fn plan(&self, config: &str) -> Plan {
        self.plan_by(&self.engine(4), config).await
    }

    /// Plans `config` (one `main.tf`) with `engine` (over this bench, with settings of its own).
    pub async fn plan_by(&self, engine: &Engine, config: &str) -> Plan {
        let files = [SourceFile::new("main.tf", config)];
        let inputs = VariableInputs::default();
        engine
            .plan(Sources::new(&files, &inputs))
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

impl Bench {
    /// Reviews and applies a plan with the given config and three attempts per call, collecting events.
    pub async fn apply_with(&self, plan: Plan, config: ApplyConfig) -> engine::ApplyOutcome {
        self.apply_attempts(plan, config, 3).await
    }

    /// Reviews and applies a plan with the given config and `attempts` attempts per call.
    pub async fn apply_attempts(
        &self,
        plan: Plan,
        config: ApplyConfig,
        attempts: u32,
    ) -> engine::ApplyOutcome {
        let reviewed = plan.review().expect("the plan is applicable");
        self.engine(attempts)
            .apply(&reviewed, config)
            .await
            .expect("the apply runs")
    }

    /// Reviews and applies a plan with instant retries, writing its events to `journal`.
    pub async fn apply_journaled(&self, plan: Plan, journal: &Journal) -> engine::ApplyOutcome {
        self.apply_with(
            plan,
            ApplyConfig {
                events: Some(journal.sink()),
                ..ApplyConfig::default()
            },
        )
        .await
    }

    /// Applies `plan` one operation at a time, interrupted right after the first object exists, as a
    /// Ctrl-C would.
    pub async fn apply_interrupted(&self, plan: Plan) -> engine::ApplyOutcome {
        let cancel = tokio_util::sync::CancellationToken::new();
        let fired = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (token, flag) = (cancel.clone(), Arc::clone(&fired));
        let events: engine::EventSink = Arc::new(move |e: &engine::ApplyEvent| {
            if e.kind == engine::ApplyEventKind::Completed
                && !flag.swap(true, std::sync::atomic::Ordering::SeqCst)
            {
                token.cancel();
            }
        });
        let config = ApplyConfig {
            parallelism: std::num::NonZeroUsize::MIN,
            cancel,
            events: Some(events),
            ..ApplyConfig::default()
        };
        self.apply_with(plan, config).await
    }

    /// Reviews and applies a plan with instant retries, counting its API calls by operation with a
    /// `Counting` decorator around the cloud.
    pub async fn apply_counted(
        &self,
        plan: Plan,
    ) -> (
        engine::ApplyOutcome,
        std::collections::BTreeMap<String, u64>,
    ) {
        let reviewed = plan.review().expect("the plan is applicable");
        let counted = Arc::new(Counting::new(Arc::clone(&self.cloud)));
        let outcome = Engine::new(Arc::clone(&counted) as _, Arc::clone(&self.store))
            .with_retry(RetryConfig::immediate(4))
            .apply(&reviewed, ApplyConfig::default())
            .await
            .expect("the apply runs");
        (outcome, counted.calls())
    }

    /// Reviews and applies a plan with instant retries.
    pub async fn apply(&self, plan: Plan) -> engine::ApplyOutcome {
        self.apply_attempts(plan, ApplyConfig::default(), 4).await
    }

    /// Adopts the object for `address` (the bind candidate `id`, if given) under `config` (one `main.tf`).
    pub async fn adopt(
        &self,
        config: &str,
        address: &str,
        id: Option<&str>,
    ) -> engine::OwnershipOutcome {
        let files = [SourceFile::new("main.tf", config)];
        let inputs = VariableInputs::default();
        let address = address.parse().expect("a valid address");
        self.engine(3)
            .adopt(Sources::new(&files, &inputs), &address, id)
            .await
            .expect("adopt runs")
    }

    /// Renames `old` to `new` under `config` (one `main.tf`).
    pub async fn mv(
        &self,
        config: &str,
        old: &str,
        new: &str,
        options: engine::MvOptions,
    ) -> engine::OwnershipOutcome {
        let files = [SourceFile::new("main.tf", config)];
        let inputs = VariableInputs::default();
        let (old, new) = (
            old.parse().expect("a valid address"),
            new.parse().expect("a valid address"),
        );
        self.engine(3)
            .mv(Sources::new(&files, &inputs), &old, &new, options)
            .await
            .expect("mv runs")
    }

    /// The record keys in the store.
    pub async fn record_keys(&self) -> Vec<String> {
        self.store.list("").await.expect("the store lists")
    }
}

/// Whether every diagnostic of an apply says it was cancelled.
pub fn only_cancellations(outcome: &engine::ApplyOutcome) -> bool {
    outcome
        .diagnostics
        .iter()
        .all(|d| d.code == admission::Code::Cancelled)
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
pub async fn live_tags(bench: &Bench) -> String {
    testkit::live_tags(&bench.cloud).await
}

impl Bench {
    /// The same live objects in a cloud that injects `faults` (the records stay).
    pub async fn with_faults(&mut self, faults: fixtures::FaultPlan) {
        let snapshot = self.cloud.snapshot().await.expect("a snapshot");
        let config = SimConfig {
            faults,
            ..SimConfig::default()
        };
        self.cloud =
            Arc::new(SimCloud::from_snapshot(&snapshot, config).expect("the snapshot loads"));
    }

    /// Plans and applies `config`, asserting that the apply succeeded.
    pub async fn converge(&self, config: &str) {
        let plan = self.plan(config).await;
        let outcome = self.apply(plan).await;
        assert_eq!(diagnostics(&outcome), "", "the apply succeeds");
    }
}

/// A shared, ordered log of what happened (store writes and apply events), for ordering assertions.
#[derive(Debug, Clone, Default)]
pub struct Journal(Arc<std::sync::Mutex<Vec<String>>>);

impl Journal {
    /// Appends a line.
    pub fn push(&self, line: String) {
        self.0.lock().expect("the journal lock").push(line);
    }

    /// Every line so far.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().expect("the journal lock").clone()
    }

    /// An event sink writing each event's terminal line.
    pub fn sink(&self) -> engine::EventSink {
        let journal = self.clone();
        Arc::new(move |e: &engine::ApplyEvent| {
            if e.kind != engine::ApplyEventKind::Progress {
                journal.push(e.line());
            }
        })
    }
}

/// A store that journals every write and delete (namespace and outcome) before passing it on.
#[derive(Debug)]
pub struct JournaledStore {
    /// The store written to.
    pub inner: Arc<dyn Store>,
    /// Where writes are journaled.
    pub journal: Journal,
}

fn namespace(key: &str) -> String {
    key.split('/').take(3).collect::<Vec<_>>().join("/")
}

#[async_trait::async_trait]
impl staterecord::DecorateStore for JournaledStore {
    fn inner(&self) -> &Arc<dyn Store> {
        &self.inner
    }

    async fn before(
        &self,
        call: staterecord::StoreCall<'_>,
    ) -> Result<(), staterecord::StoreError> {
        if call.writes() {
            let verb = match call {
                staterecord::StoreCall::Delete { .. } => "delete",
                _ => "put",
            };
            self.journal
                .push(format!("{verb} {}", namespace(call.key())));
        }
        Ok(())
    }
}
