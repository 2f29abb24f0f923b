//! `mv` and `adopt` racing an apply of one estate (reliability findings F4 and F5): whoever loses, no
//! address ever ends up claimed by two live objects, and the estate converges with one object there.
//!
//! Each trial runs a plan-and-apply and the ownership operation at once on one simulated cloud (with a
//! latency on every call, so that their calls interleave) and one memory store, the operation starting a
//! little later in each trial so that the trials land in different windows of the apply.

use std::sync::Arc;
use std::time::Duration;

use engine::{MvOptions, OwnershipOutcome};
use fixtures::{SimCloud, SimConfig};
use staterecord::MemoryStore;

use crate::support::{Bench, text};

const TRIALS: u64 = 20;

/// A bench whose every cloud call takes `latency`, holding the snapshot `live`.
fn slow_bench(live: &str) -> Bench {
    let config = SimConfig {
        latency: Duration::from_millis(2),
        ..SimConfig::default()
    };
    Bench {
        cloud: Arc::new(SimCloud::from_json(live, config).expect("a valid snapshot")),
        store: Arc::new(MemoryStore::new()),
    }
}

/// The ids of the live objects of `type_name` whose `tofu-address` is `address`, sorted.
async fn carrying(bench: &Bench, type_name: &str, address: &str) -> Vec<String> {
    let snapshot = bench.cloud.snapshot().await.expect("a snapshot");
    let mut ids: Vec<String> = snapshot
        .resources
        .iter()
        .filter(|r| r.type_name == type_name)
        .filter(|r| r.tags.get("tofu-address").map(String::as_str) == Some(address))
        .map(|r| r.id.clone())
        .collect();
    ids.sort();
    ids
}

/// How much later than the apply trial `trial` starts the operation, in microseconds: from 25 ms before
/// it to 5 ms after, in even steps.
fn offset(trial: u64) -> i64 {
    -25_000 + trial as i64 * 30_000 / TRIALS as i64
}

/// Plans and applies `config` in a task of its own while `operation` runs, started `offset`
/// microseconds after the apply (before it, when negative); gives what the operation said.
async fn race(
    bench: &Bench,
    config: &str,
    offset: i64,
    operation: impl std::future::Future<Output = OwnershipOutcome>,
) -> OwnershipOutcome {
    let applier = Bench {
        cloud: Arc::clone(&bench.cloud),
        store: Arc::clone(&bench.store),
    };
    let config = config.to_owned();
    let apply_delay = Duration::from_micros(offset.min(0).unsigned_abs());
    let apply = tokio::spawn(async move {
        tokio::time::sleep(apply_delay).await;
        let plan = applier.plan(&config).await;
        if plan.applicable() {
            applier.apply(plan).await;
        }
    });
    tokio::time::sleep(Duration::from_micros(offset.max(0).unsigned_abs())).await;
    let outcome = operation.await;
    apply.await.expect("the apply task ends");
    outcome
}

/// After a race: at most one object carries `address`, the one the operation gave it when it succeeded,
/// and one more apply converges with exactly one.
async fn one_object_at(
    bench: &Bench,
    config: &str,
    (type_name, address): (&str, &str),
    outcome: &OwnershipOutcome,
    trial: u64,
) {
    let after_race = carrying(bench, type_name, address).await;
    assert!(
        after_race.len() <= 1,
        "trial {trial}: {} live objects claim {address}: {after_race:?}",
        after_race.len()
    );
    if outcome.succeeded() {
        assert_eq!(
            after_race,
            Vec::from_iter(outcome.id.clone()),
            "trial {trial}: the object the operation gave {address} is the one there"
        );
    }
    let plan = bench.plan(config).await;
    assert!(plan.applicable(), "trial {trial}: {}", text(&plan));
    bench.apply(plan).await;
    let plan = bench.plan(config).await;
    assert!(
        plan.summary().is_empty() && plan.diagnostics.is_empty(),
        "trial {trial}: {}",
        text(&plan)
    );
    assert_eq!(
        carrying(bench, type_name, address).await.len(),
        1,
        "trial {trial}"
    );
}

const GATEWAY: &str = r#"
live {
  estate = "race"
}

resource "aws_vpc" "main" {
  cidr_block = "10.20.0.0/16"
}

resource "aws_internet_gateway" "gw" {
  vpc_id = aws_vpc.main.id
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.main.id
}

resource "aws_route" "internet" {
  route_table_id         = aws_route_table.public.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.gw.id
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mv_racing_an_apply_never_leaves_two_objects_on_one_address() {
    let renamed = GATEWAY
        .replace("\"gw\"", "\"main\"")
        .replace(".gw.", ".main.");
    let mut renames = 0;
    for trial in 0..TRIALS {
        let bench = slow_bench(r#"{"resources": []}"#);
        bench.converge(GATEWAY).await;
        let mv = bench.mv(
            &renamed,
            "aws_internet_gateway.gw",
            "aws_internet_gateway.main",
            MvOptions::default(),
        );
        let outcome = race(&bench, &renamed, offset(trial), mv).await;
        renames += usize::from(outcome.succeeded());
        let at = ("aws_internet_gateway", "aws_internet_gateway.main");
        one_object_at(&bench, &renamed, at, &outcome, trial).await;
    }
    // The trials cover both outcomes: some renames go through, others are refused.
    assert!(
        renames > 0 && renames < TRIALS as usize,
        "{renames} of {TRIALS} renames went through"
    );
}

const NETWORK: &str = r#"
live {
  estate = "race"
}

resource "aws_vpc" "main" {
  cidr_block = "10.20.0.0/16"
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = "10.20.1.0/24"
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adopt_racing_an_apply_never_leaves_two_objects_on_one_address() {
    let foreign = r#"{"resources": [
      { "type": "aws_vpc", "id": "vpc-0000abcd", "attributes": { "cidr_block": "10.20.0.0/16" } }
    ]}"#;
    let mut adoptions = 0;
    for trial in 0..TRIALS {
        let bench = slow_bench(foreign);
        let adopt = bench.adopt(NETWORK, "aws_vpc.main", Some("vpc-0000abcd"));
        let outcome = race(&bench, NETWORK, offset(trial), adopt).await;
        adoptions += usize::from(outcome.succeeded());
        one_object_at(
            &bench,
            NETWORK,
            ("aws_vpc", "aws_vpc.main"),
            &outcome,
            trial,
        )
        .await;
    }
    assert!(
        adoptions > 0 && adoptions < TRIALS as usize,
        "{adoptions} of {TRIALS} adoptions went through"
    );
}
