//! The engine's clock (`Engine::with_clock`): a test moves it past the patience of an interrupted create
//! and sees the withheld create become a create, without sleeping; and what an apply writes of the time
//! (the intent's `time`, `timestamp()`) is the clock's.

use std::sync::Arc;
use std::time::Duration;

use admission::InstanceAddress;
use admission::marker::Estate;
use engine::{Engine, ManualClock, Plan};
use projection::record::{InstanceNamespace, IntentRecord, IntentState, RecordBody, RecordKeys};

use crate::support::{Bench, diagnostics};

/// 2100-01-01T00:00:00Z.
const T: u64 = 4_102_444_800;

const BUCKET: &str = "live {\n  estate = \"acme\"\n}\n\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs\"\n}\n";

fn logs_intent_key() -> String {
    let estate = Estate::new("acme".to_owned()).expect("a valid estate");
    let keys = RecordKeys::new("", &estate).expect("valid keys");
    let address: InstanceAddress = "aws_s3_bucket.logs".parse().expect("a valid address");
    keys.instance(InstanceNamespace::Intent, &address)
}

/// Writes the `pending` intent of `aws_s3_bucket.logs` that an apply cut off between the intent and the
/// create call leaves behind, at `T`.
async fn pending_at_t(world: &Bench) {
    let body = RecordBody::Intent(IntentRecord {
        state: IntentState::Pending,
        client_token: "00000000000000000000000000000000".to_owned(),
        time: T,
        id: None,
        slot: None,
    });
    world
        .store
        .put_if_version(&logs_intent_key(), &body.to_payload(), None)
        .await
        .expect("the intent is written");
}

/// The intent of `aws_s3_bucket.logs`: its state and time.
async fn logs_intent(world: &Bench) -> (IntentState, u64) {
    let record = world
        .store
        .get(&logs_intent_key())
        .await
        .expect("the store reads")
        .expect("an intent");
    match RecordBody::from_payload(&record.payload) {
        Ok(RecordBody::Intent(intent)) => (intent.state, intent.time),
        other => panic!("not an intent: {other:?}"),
    }
}

/// The engine of `world` reading the time from `clock`.
fn engine_at(world: &Bench, clock: &Arc<ManualClock>) -> Engine {
    world.engine(4).with_clock(Arc::clone(clock) as _)
}

async fn plan_at(world: &Bench, clock: &Arc<ManualClock>) -> Plan {
    world.plan_by(&engine_at(world, clock), BUCKET).await
}

/// Applies `plan` with the engine of `world` reading the time from `clock`.
async fn apply_at(world: &Bench, clock: &Arc<ManualClock>, plan: Plan) -> engine::ApplyOutcome {
    engine_at(world, clock)
        .apply(
            &plan.review().expect("applicable"),
            engine::ApplyConfig::default(),
        )
        .await
        .expect("the apply runs")
}

#[tokio::test]
async fn a_withheld_create_becomes_a_create_once_the_engines_clock_passes_the_patience() {
    let world = Bench::empty();
    pending_at_t(&world).await;
    let clock = Arc::new(ManualClock::at_unix_secs(T + 599));

    let plan = plan_at(&world, &clock).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 0 to add, 0 to change, 0 to destroy, 1 withheld."
    );

    // Ten minutes after the intent, its patience is over: the create is planned and applied.
    clock.advance(Duration::from_secs(1));
    let plan = plan_at(&world, &clock).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
    let outcome = apply_at(&world, &clock, plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(plan_at(&world, &clock).await.summary().is_empty());
}

#[tokio::test]
async fn an_apply_writes_the_engines_clock_into_the_intent_and_timestamp() {
    let world = Bench::empty();
    let clock = Arc::new(ManualClock::at_unix_secs(T + 3_723));
    let stamped = BUCKET.replace(
        "bucket = \"acme-logs\"",
        "bucket = \"acme-logs\"\n  tags   = { Stamp = timestamp() }",
    );
    let plan = world.plan_by(&engine_at(&world, &clock), &stamped).await;
    let outcome = apply_at(&world, &clock, plan).await;
    assert_eq!(diagnostics(&outcome), "");

    assert_eq!(logs_intent(&world).await, (IntentState::Done, T + 3_723));
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    assert_eq!(snapshot.resources[0].tags["Stamp"], "2100-01-01T01:02:03Z");
}

#[tokio::test]
async fn adopt_waits_out_an_interrupted_create_by_the_engines_clock() {
    // The bucket exists, unowned: the interrupted apply's create never reached the cloud's markers.
    let live = r#"{"resources": [{"type": "aws_s3_bucket", "id": "acme-logs", "attributes": {"bucket": "acme-logs"}}]}"#;
    let world = Bench::new(live);
    pending_at_t(&world).await;
    let clock = Arc::new(ManualClock::at_unix_secs(T + 60));
    let files = [admission::SourceFile::new("main.tf", BUCKET)];
    let inputs = admission::VariableInputs::default();
    let address: InstanceAddress = "aws_s3_bucket.logs".parse().expect("a valid address");
    let adopt = || async {
        engine_at(&world, &clock)
            .adopt(engine::Sources::new(&files, &inputs), &address, None)
            .await
            .expect("adopt runs")
    };
    let refused = adopt().await;
    assert!(
        refused.diagnostics[0]
            .summary
            .starts_with("an apply is creating aws_s3_bucket.logs"),
        "{:?}",
        refused.diagnostics
    );
    clock.advance(Duration::from_secs(600));
    let adopted = adopt().await;
    assert!(adopted.succeeded(), "{:?}", adopted.diagnostics);
    assert_eq!(logs_intent(&world).await, (IntentState::Done, T + 660));
}
