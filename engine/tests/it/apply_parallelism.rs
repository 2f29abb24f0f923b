//! The parallelism limit of an apply holds around provider calls only: never more calls in flight than
//! the limit, while the record writes around them overlap beyond it; a create cancelled while it waits
//! for its turn leaves no intent behind.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use engine::{ApplyConfig, RetryConfig};
use fixtures::{SimCloud, SimConfig};
use staterecord::{Record, Store, StoreError, Version};

use crate::support::{Bench, diagnostics};

/// Twelve independent VPCs.
fn vpcs() -> String {
    let mut config = "live {\n  estate = \"acme\"\n}\n".to_owned();
    for i in 0..12 {
        config.push_str(&format!(
            "\nresource \"aws_vpc\" \"v{i}\" {{\n  cidr_block = \"10.{i}.0.0/16\"\n}}\n"
        ));
    }
    config
}

/// A store that takes `latency` per write and remembers the most writes in flight at once.
#[derive(Debug)]
struct SlowStore {
    inner: Arc<dyn Store>,
    latency: Duration,
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

impl SlowStore {
    async fn wait(&self) {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.latency).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl Store for SlowStore {
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        self.inner.get(key).await
    }

    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        self.wait().await;
        self.inner.put_if_version(key, payload, expected).await
    }

    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        self.wait().await;
        self.inner.delete(key, expected).await
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        self.inner.list(prefix).await
    }
}

fn slow_world() -> (Bench, Arc<SlowStore>) {
    let mut world = Bench::empty();
    world.cloud = Arc::new(SimCloud::new(SimConfig {
        latency: Duration::from_millis(100),
        ..SimConfig::default()
    }));
    let store = Arc::new(SlowStore {
        inner: Arc::clone(&world.store),
        latency: Duration::from_millis(100),
        in_flight: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
    });
    (world, store)
}

#[tokio::test(start_paused = true)]
async fn provider_calls_keep_to_the_limit_while_record_writes_overlap_beyond_it() {
    let (mut world, store) = slow_world();
    let plan = world.plan(&vpcs()).await;
    world.store = Arc::clone(&store) as Arc<dyn Store>;
    let outcome = world
        .apply_with(
            plan,
            ApplyConfig {
                parallelism: std::num::NonZeroUsize::new(3).expect("three"),
                retry: RetryConfig::immediate(3),
                ..ApplyConfig::default()
            },
        )
        .await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(world.cloud.max_in_flight(), 3);
    // The intents of the creates waiting for a turn are written while three calls run.
    let most = store.most.load(Ordering::SeqCst);
    assert!(most > 3, "at most {most} store writes at once");
    assert!(world.plan(&vpcs()).await.summary().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_create_cancelled_while_waiting_for_its_turn_leaves_no_intent() {
    let (mut world, store) = slow_world();
    let plan = world.plan(&vpcs()).await;
    world.store = Arc::clone(&store) as Arc<dyn Store>;
    let outcome = world.apply_interrupted(plan).await;
    assert!(!outcome.succeeded());
    assert!(
        outcome
            .diagnostics
            .iter()
            .all(|d| d.code == admission::Code::Cancelled),
        "{}",
        diagnostics(&outcome)
    );
    let created = world
        .cloud
        .snapshot()
        .await
        .expect("a snapshot")
        .resources
        .len();
    let intents = world
        .record_keys()
        .await
        .into_iter()
        .filter(|k| k.contains("/intent/"))
        .count();
    // Only the creates that ran keep an intent (done); those that waited put theirs back.
    assert_eq!(intents, created);
    assert_eq!(outcome.diagnostics.len(), 12 - created);
}
