//! Creates withheld because an earlier apply started them and did not finish (a young `pending` create
//! intent with no object), and the changes that wait on them: a pending change in the plan, never
//! `No changes.`, and an apply that leaves them undone fails with `create-withheld`.

use std::sync::LazyLock;

use admission::InstanceAddress;
use admission::marker::Estate;
use expect_test::expect;
use fixtures::testkit::Network;
use projection::record::{InstanceNamespace, IntentRecord, IntentState, RecordBody, RecordKeys};
use serde_json::json;

use crate::support::{Bench, diagnostics, json, live_tags, text};

/// A VPC with one subnet, a route table and its association, and a bucket, in the estate `acme`.
static NETWORK: LazyLock<String> = LazyLock::new(|| Network::new("acme", 0).hcl());

/// 2100-01-01T00:00:00Z: an intent written then is young whatever the clock says (its age counts as
/// zero), so the time its create may be retried is exactly ten minutes later.
const AHEAD: u64 = 4_102_444_800;

/// Writes the `pending` create intent (with no object) that an apply killed between writing it and
/// the create call leaves behind, at `time`, over whatever intent `address` had.
async fn interrupted_create(world: &Bench, address: &str, time: u64) {
    let estate = Estate::new("acme".to_owned()).expect("a valid estate");
    let keys = RecordKeys::new("", &estate).expect("valid keys");
    let address: InstanceAddress = address.parse().expect("a valid address");
    let key = keys.instance(InstanceNamespace::Intent, &address);
    let version = world
        .store
        .get(&key)
        .await
        .expect("the store reads")
        .map(|r| r.version);
    let body = RecordBody::Intent(IntentRecord {
        state: IntentState::Pending,
        client_token: "00000000000000000000000000000000".to_owned(),
        time,
        id: None,
        slot: None,
    });
    world
        .store
        .put_if_version(&key, &body.to_payload(), version.as_ref())
        .await
        .expect("the intent is written");
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs()
}

#[tokio::test]
async fn withheld_create_is_a_pending_change_never_no_changes() {
    let world = Bench::empty();
    world.converge(&NETWORK).await;
    // As an apply killed after writing the bucket's intent and before its create call leaves it: the
    // rest of the estate exists, the bucket does not.
    world
        .cloud
        .delete("aws_s3_bucket", "acme-logs")
        .await
        .expect("the bucket is deleted");
    interrupted_create(&world, "aws_s3_bucket.logs", AHEAD).await;
    let plan = world.plan(&NETWORK).await;
    assert!(plan.applicable());
    assert!(!plan.summary().is_empty());
    assert!(!plan.summary().has_changes());
    assert_eq!(plan.summary().withheld, 1);
    expect![[r#"
        Withheld until an interrupted create may be retried:
          aws_s3_bucket.logs (create): an earlier apply started creating it and did not finish; may be retried after 2100-01-01 00:10:00 UTC

        Warning: an earlier apply started creating aws_s3_bucket.logs and did not finish [interrupted-create]
          on aws_s3_bucket.logs
          The intent is 0s old and another apply may be creating the object right now, so no create is planned. Plan again in 600 seconds.

        Plan: 0 to add, 0 to change, 0 to destroy, 1 withheld.
    "#]]
    .assert_eq(&text(&plan));
    let doc: serde_json::Value = serde_json::from_str(&json(&plan)).expect("plan JSON");
    assert_eq!(
        doc["withheld"],
        json!([{
            "address": "aws_s3_bucket.logs",
            "type": "aws_s3_bucket",
            "action": "create",
            "reason": "interrupted-create",
            "waits_on": [],
            "retry_after": "2100-01-01T00:10:00Z",
        }])
    );
    assert_eq!(
        doc["summary"],
        json!({ "add": 0, "change": 0, "destroy": 0 })
    );
}

#[tokio::test]
async fn apply_with_a_withheld_create_fails_with_create_withheld() {
    let world = Bench::empty();
    interrupted_create(&world, "aws_s3_bucket.logs", AHEAD).await;
    let outcome = world.apply(world.plan(&NETWORK).await).await;
    // Everything else is applied; the withheld create is the apply's one error.
    assert!(!outcome.succeeded());
    expect![[r#"
        error [create-withheld]: the create of aws_s3_bucket.logs is withheld: an earlier apply started creating it and did not finish aws_s3_bucket.logs
    "#]]
    .assert_eq(&diagnostics(&outcome));
    assert_eq!(
        outcome.diagnostics[0].detail,
        "Another apply may be creating the object right now. Run apply again after 2100-01-01 \
         00:10:00 UTC: it binds the object that apply made, or creates it if there is none."
    );
    expect![[r#"
        aws_route_table rtb-00000001 [tofu-address=aws_route_table.rt tofu-estate=acme]
        aws_route_table_association rtbassoc-00000001 []
        aws_subnet subnet-00000001 [tofu-address=aws_subnet.a tofu-estate=acme]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    // The next plan still holds the bucket back, and says so.
    let plan = world.plan(&NETWORK).await;
    assert_eq!(plan.effective_changes().count(), 0, "{}", text(&plan));
    assert!(
        text(&plan).ends_with("Plan: 0 to add, 0 to change, 0 to destroy, 1 withheld.\n"),
        "{}",
        text(&plan)
    );
}

#[tokio::test]
async fn a_dependent_of_a_withheld_create_is_withheld_with_it() {
    let world = Bench::empty();
    interrupted_create(&world, "aws_subnet.a", AHEAD).await;
    let plan = world.plan(&NETWORK).await;
    let planned: Vec<String> = plan
        .effective_changes()
        .map(|c| format!("{} {}", c.action.as_str(), c.address))
        .collect();
    assert_eq!(
        planned,
        [
            "create aws_route_table.rt",
            "create aws_s3_bucket.logs",
            "create aws_vpc.main"
        ]
    );
    let report = text(&plan);
    let withheld: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("Withheld"))
        .take(3)
        .collect();
    assert_eq!(
        withheld,
        [
            "Withheld until an interrupted create may be retried:",
            "  aws_route_table_association.a (create): it waits on aws_subnet.a; may be retried after \
             2100-01-01 00:10:00 UTC",
            "  aws_subnet.a (create): an earlier apply started creating it and did not finish; may be \
             retried after 2100-01-01 00:10:00 UTC",
        ]
    );
    assert!(
        report.ends_with("Plan: 3 to add, 0 to change, 0 to destroy, 2 withheld.\n"),
        "{report}"
    );

    // The association is not applied without its subnet's id: both are named as withheld, and nothing
    // fails for a value that is still unknown.
    let outcome = world.apply(plan).await;
    expect![[r#"
        error [create-withheld]: the create of aws_route_table_association.a is withheld: it waits on aws_subnet.a aws_route_table_association.a
        error [create-withheld]: the create of aws_subnet.a is withheld: an earlier apply started creating it and did not finish aws_subnet.a
    "#]]
    .assert_eq(&diagnostics(&outcome));

    // Once the intent is older than its patience (no apply made the subnet), both are created and the
    // estate converges.
    interrupted_create(&world, "aws_subnet.a", now() - 3600).await;
    let plan = world.plan(&NETWORK).await;
    assert!(plan.withheld.is_empty());
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&NETWORK).await.summary().is_empty());
}
