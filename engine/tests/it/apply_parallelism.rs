//! The parallelism limit of an apply holds around provider calls only: never more calls in flight than
//! the limit, while the record writes around them overlap beyond it; a create cancelled while it waits
//! for its turn leaves no intent behind.

use std::sync::Arc;
use std::time::Duration;

use engine::ApplyConfig;
use fixtures::{SimCloud, SimConfig};
use staterecord::{LatentStore, Store};

use crate::support::{Bench, diagnostics, only_cancellations};

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

fn slow_world() -> (Bench, Arc<LatentStore>) {
    let mut world = Bench::empty();
    world.cloud = Arc::new(SimCloud::new(SimConfig {
        latency: Duration::from_millis(100),
        ..SimConfig::default()
    }));
    // A write takes 100 ms; reads answer at once.
    let store =
        LatentStore::new(Arc::clone(&world.store), Duration::from_millis(100)).writes_only();
    (world, Arc::new(store))
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
                ..ApplyConfig::default()
            },
        )
        .await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(world.cloud.max_in_flight(), 3);
    // The intents of the creates waiting for a turn are written while three calls run.
    let most = store.most_in_flight();
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
    assert!(only_cancellations(&outcome), "{}", diagnostics(&outcome));
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
