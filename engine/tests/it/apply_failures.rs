//! End to end on the simulated cloud: a failed create, cancellation, and two applies of one plan.

use std::sync::LazyLock;

use expect_test::expect;
use fixtures::testkit::Network;

use crate::support::{Bench, diagnostics, failing, live_tags, only_cancellations, text};

/// A VPC with one subnet, a route table and its association, and a bucket, in the estate `acme`.
static NETWORK: LazyLock<String> = LazyLock::new(|| Network::new("acme", 0).hcl());

#[tokio::test]
async fn a_failed_create_skips_its_dependents_and_the_next_plan_creates_only_what_is_missing() {
    let mut world = Bench::empty();
    world.with_faults(failing("ec2:CreateRouteTable", 1)).await;
    let outcome = world.apply(world.plan(&NETWORK).await).await;
    // One error for the failed create; the association that needed it is skipped without one of its own.
    expect![[r#"
        error [apply-failed]: creating aws_route_table.rt failed: ec2:CreateRouteTable: invalid argument: ec2:CreateRouteTable: request failed aws_route_table.rt
    "#]]
    .assert_eq(&diagnostics(&outcome));
    expect![[r#"
        aws_s3_bucket acme-logs [tofu-address=aws_s3_bucket.logs tofu-estate=acme]
        aws_subnet subnet-00000001 [tofu-address=aws_subnet.a tofu-estate=acme]
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let plan = world.plan(&NETWORK).await;
    let creates: Vec<String> = plan
        .effective_changes()
        .map(|c| format!("{} {}", c.action.as_str(), c.address))
        .collect();
    assert_eq!(
        creates,
        [
            "create aws_route_table.rt",
            "create aws_route_table_association.a"
        ]
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&NETWORK).await.summary().is_empty());
}

#[tokio::test]
async fn cancellation_finishes_what_is_in_flight_and_the_next_plan_converges() {
    let world = Bench::empty();
    let plan = world.plan(&NETWORK).await;
    let outcome = world.apply_interrupted(plan).await;
    assert!(!outcome.succeeded());
    assert!(only_cancellations(&outcome), "{}", diagnostics(&outcome));
    // Nothing is half written: every intent that exists is done, none is pending.
    let keys = world.record_keys().await;
    for key in keys.iter().filter(|k| k.contains("/intent/")) {
        let record = world
            .store
            .get(key)
            .await
            .expect("the store reads")
            .expect("the record exists");
        let text = String::from_utf8(record.payload).expect("JSON");
        assert!(text.contains("\"done\""), "{key} is {text}");
    }
    let plan = world.plan(&NETWORK).await;
    assert!(plan.diagnostics.is_empty(), "{}", text(&plan));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert!(world.plan(&NETWORK).await.summary().is_empty());
    assert_eq!(live_tags(&world).await.lines().count(), 5);
}

#[tokio::test]
async fn two_applies_of_one_plan_never_create_twice() {
    let world = Bench::empty();
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;
    let first = world.plan(config).await;
    let second = world.plan(config).await;
    assert_eq!(diagnostics(&world.apply(first).await), "");
    let outcome = world.apply(second).await;
    assert_eq!(outcome.diagnostics.len(), 1);
    assert_eq!(
        outcome.diagnostics[0].code,
        admission::Code::VersionConflict
    );
    expect![[r#"
        aws_vpc vpc-00000001 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
}
