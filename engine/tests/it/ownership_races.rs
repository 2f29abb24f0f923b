//! `mv` and `adopt` racing an apply of one estate (reliability findings F4 and F5): whoever loses, no
//! address ever ends up claimed by two live objects, and the estate converges with one object there.
//!
//! Each trial runs a plan-and-apply and the ownership operation at once on one simulated cloud (with a
//! latency on every call, so that their calls interleave) and one memory store, the operation starting a
//! little later in each trial so that the trials land in different windows of the apply. The orderings
//! that matter most are also played one after the other: an apply of a plan made before the rename or
//! the adoption, and a rename whose last record write fails once the tag changed.

use std::sync::Arc;
use std::time::Duration;

use engine::{MvOptions, OwnershipOutcome};
use fixtures::{SimCloud, SimConfig};
use staterecord::MemoryStore;

use crate::store_failures::{Refuses, refusing_world};
use crate::support::{Bench, text};

const TRIALS: u64 = 20;

/// A bench whose every cloud call takes 2 ms, holding the snapshot `live`.
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

/// Renames the gateway from `gw` to `main` under the `renamed` configuration.
async fn rename_gateway(bench: &Bench, renamed: &str) -> OwnershipOutcome {
    bench
        .mv(
            renamed,
            "aws_internet_gateway.gw",
            "aws_internet_gateway.main",
            MvOptions::default(),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mv_racing_an_apply_never_leaves_two_objects_on_one_address() {
    let mut renames = 0;
    for trial in 0..TRIALS {
        let bench = slow_bench(r#"{"resources": []}"#);
        let renamed = applied_gateway(&bench).await;
        let mv = rename_gateway(&bench, &renamed);
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

/// Applies the gateway estate on `bench`; gives its configuration with the gateway's block renamed
/// from `gw` to `main`.
async fn applied_gateway(bench: &Bench) -> String {
    bench.converge(GATEWAY).await;
    GATEWAY
        .replace("\"gw\"", "\"main\"")
        .replace(".gw.", ".main.")
}

#[tokio::test]
async fn an_apply_planned_before_a_rename_creates_nothing_at_the_new_address() {
    let bench = Bench::empty();
    let renamed = applied_gateway(&bench).await;
    // The plan creates aws_internet_gateway.main; the rename runs before that plan is applied.
    let stale = bench.plan(&renamed).await;
    assert_eq!(stale.summary().add, 1, "{}", text(&stale));
    let mv = rename_gateway(&bench, &renamed).await;
    assert!(mv.succeeded(), "{:?}", mv.diagnostics);
    let outcome = bench.apply(stale).await;
    assert_eq!(
        crate::support::diagnostics(&outcome),
        "error [version-conflict]: creating aws_internet_gateway.main was given up: its create intent \
         changed since the plan read it aws_internet_gateway.main\n"
    );
    assert_eq!(
        carrying(&bench, "aws_internet_gateway", "aws_internet_gateway.main").await,
        Vec::from_iter(mv.id.clone())
    );
    let plan = bench.plan(&renamed).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
}

#[tokio::test]
async fn an_apply_planned_before_an_adoption_creates_nothing_at_the_adopted_address() {
    let bench = Bench::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-0000abcd", "attributes": { "cidr_block": "10.20.0.0/16" } }
        ]}"#,
    );
    let stale = bench.plan(NETWORK).await;
    assert_eq!(stale.summary().add, 2, "{}", text(&stale));
    let adopted = bench
        .adopt(NETWORK, "aws_vpc.main", Some("vpc-0000abcd"))
        .await;
    assert!(adopted.succeeded(), "{:?}", adopted.diagnostics);
    let outcome = bench.apply(stale).await;
    // The VPC's create loses its intent, and the subnet waiting on it is skipped with it.
    assert!(
        crate::support::diagnostics(&outcome).starts_with(
            "error [version-conflict]: creating aws_vpc.main was given up: its create intent changed \
             since the plan read it aws_vpc.main\n"
        ),
        "{}",
        crate::support::diagnostics(&outcome)
    );
    assert_eq!(
        carrying(&bench, "aws_vpc", "aws_vpc.main").await,
        ["vpc-0000abcd"]
    );
    bench.converge(NETWORK).await;
    assert_eq!(
        carrying(&bench, "aws_vpc", "aws_vpc.main").await,
        ["vpc-0000abcd"]
    );
}

#[tokio::test]
async fn a_record_left_behind_after_the_retag_is_a_done_rename_never_a_conflict() {
    let (bench, store) = refusing_world(false, Refuses::Deletes);
    let renamed = applied_gateway(&bench).await;
    // The store stops deleting: the create intent of aws_internet_gateway.gw cannot be removed once the
    // gateway carries its new address.
    store
        .refuse
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let old_intent = format!(
        "race/intent/aws_internet_gateway/{}",
        projection::b64::encode(b"aws_internet_gateway.gw")
    );
    let mv = rename_gateway(&bench, &renamed).await;
    let lines: Vec<String> = mv
        .diagnostics
        .iter()
        .map(|d| format!("{d}\n  {}", d.detail))
        .collect();
    assert_eq!(
        lines,
        [format!(
            "error [mv-refused]: igw-00000001 now carries aws_internet_gateway.main, but removing the \
             record {old_intent} failed: local store could not remove records/{old_intent}.rec: \
             permission denied\n  the rename is done: \
             do not run it again. The record may still name the object at the old address: remove it \
             (liveplan records lists it) and read the next plan before applying it"
        )]
    );
    assert_eq!(
        carrying(&bench, "aws_internet_gateway", "aws_internet_gateway.main").await,
        ["igw-00000001"]
    );
    let plan = bench.plan(&renamed).await;
    assert!(plan.summary().is_empty(), "{}", text(&plan));
}
