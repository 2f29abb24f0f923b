//! Apply events: start, periodic progress with elapsed time, completion; JSON lines for `--json`; throttled
//! calls retried.

use std::sync::Arc;
use std::time::Duration;

use engine::{ApplyConfig, ApplyEvent};
use expect_test::expect;
use fixtures::{FaultKind, FaultPlan, SimCloud, SimConfig, Trigger};

use crate::support::{Bench, Journal, diagnostics};

const VPC: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;

#[tokio::test(start_paused = true)]
async fn a_slow_create_reports_progress_every_interval() {
    let mut world = Bench::empty();
    world.cloud = Arc::new(SimCloud::new(SimConfig {
        latency: Duration::from_secs(25),
        ..SimConfig::default()
    }));
    let plan = world.plan(VPC).await;
    let journal = Journal::default();
    let all = Journal::default();
    let (progress, json) = (journal.clone(), all.clone());
    let sink: engine::EventSink = Arc::new(move |e: &ApplyEvent| {
        progress.push(e.line());
        json.push(e.json().to_string());
    });
    let outcome = world
        .apply_with(
            plan,
            ApplyConfig {
                events: Some(sink),
                ..ApplyConfig::default()
            },
        )
        .await;
    assert_eq!(diagnostics(&outcome), "");
    expect![[r#"
        aws_vpc.main: Creating...
        aws_vpc.main: Still creating... [10s elapsed]
        aws_vpc.main: Still creating... [20s elapsed]
        aws_vpc.main: Creation complete after 25s [id=vpc-00000001]
    "#]]
    .assert_eq(&(journal.lines().join("\n") + "\n"));
    expect![[r#"
        {"action":"create","address":"aws_vpc.main","elapsed_ms":0,"id":null,"type":"apply_start"}
        {"action":"create","address":"aws_vpc.main","elapsed_ms":10000,"id":null,"type":"apply_progress"}
        {"action":"create","address":"aws_vpc.main","elapsed_ms":20000,"id":null,"type":"apply_progress"}
        {"action":"create","address":"aws_vpc.main","elapsed_ms":25000,"id":"vpc-00000001","type":"apply_complete"}
    "#]]
    .assert_eq(&(all.lines().join("\n") + "\n"));
}

#[tokio::test]
async fn throttled_creates_are_retried() {
    let mut world = Bench::empty();
    let faults = FaultPlan::none()
        .with("ec2:CreateVpc", FaultKind::Throttle, Trigger::Times(2))
        .expect("a known operation");
    world.with_faults(faults).await;
    let _ = Journal::default();
    let (outcome, calls) = world.apply_counted(world.plan(VPC).await).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(
        calls["ec2:CreateVpc"], 3,
        "two throttled attempts, then success"
    );
    assert!(world.plan(VPC).await.summary().is_empty());
}

#[tokio::test]
async fn a_plan_with_errors_cannot_be_reviewed() {
    let world = Bench::empty();
    let plan = world
        .plan("resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n")
        .await;
    assert!(!plan.applicable());
    let err = plan.review().expect_err("no estate is an error");
    assert_eq!(
        err.to_string(),
        "the plan is not applicable: 1 error diagnostic(s)"
    );
}
