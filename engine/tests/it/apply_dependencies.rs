//! Dependencies at apply time: a replaced parent cascades to its children in the right order, and the
//! children are created with the parent's new id.

use expect_test::expect;

use crate::support::{Bench, Journal, diagnostics, live_tags};

const NET: &str = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "CIDR"
}

resource "aws_subnet" "a" {
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("CIDR", 8, 1)
}

resource "aws_s3_bucket" "logs" {
  bucket     = "acme-logs"
  depends_on = [aws_subnet.a]
}
"#;

#[tokio::test]
async fn replacing_a_vpc_replaces_its_subnet_children_first_out_last_in() {
    let world = Bench::empty();
    world.converge(&NET.replace("CIDR", "10.0.0.0/16")).await;
    let changed = NET.replace("CIDR", "10.1.0.0/16");
    let plan = world.plan(&changed).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 2 to add, 0 to change, 2 to destroy."
    );
    expect![[r#"
        r[0] = ResourceInstancePrior(aws_subnet.a);
        r[1] = ResourceInstanceCurrentMeta(aws_subnet.a, r[0]);
        r[2] = ResourceInstanceDesired(r[1]);
        r[3] = ManagedFinalPlan(r[1], r[2], nil, v[0]);
        r[4] = ManagedFinalPlan(r[1], nil, r[0], nil);
        r[5] = ManagedApply(r[4], nil, await());
        r[6] = ManagedApply(r[3], nil, await(r[5], await(r[13])));
        r[7] = ResourceInstancePrior(aws_vpc.main);
        r[8] = ResourceInstanceCurrentMeta(aws_vpc.main, r[7]);
        r[9] = ResourceInstanceDesired(r[8]);
        r[10] = ManagedFinalPlan(r[8], r[9], nil, v[1]);
        r[11] = ManagedFinalPlan(r[8], nil, r[7], nil);
        r[12] = ManagedApply(r[11], nil, await(r[10], r[5]));
        r[13] = ManagedApply(r[10], nil, await(r[12]));

        aws_subnet.a = r[6];
        aws_vpc.main = r[13];
    "#]]
    .assert_eq(&operations(
        &engine::graph::build(&plan).expect("acyclic").debug_repr(),
    ));
    let journal = Journal::default();
    let outcome = world.apply_journaled(plan, &journal).await;
    assert_eq!(diagnostics(&outcome), "");
    let lines: Vec<String> = journal
        .lines()
        .into_iter()
        .map(|l| l.replace(" after 0s", ""))
        .collect();
    assert_eq!(
        lines,
        [
            "aws_subnet.a: Destroying... [id=subnet-00000001]",
            "aws_subnet.a: Destruction complete [id=subnet-00000001]",
            "aws_vpc.main: Destroying... [id=vpc-00000001]",
            "aws_vpc.main: Destruction complete [id=vpc-00000001]",
            "aws_vpc.main: Creating...",
            "aws_vpc.main: Creation complete [id=vpc-00000002]",
            "aws_subnet.a: Creating...",
            "aws_subnet.a: Creation complete [id=subnet-00000002]",
        ]
    );
    let snapshot = world.cloud.snapshot().await.expect("a snapshot");
    let subnet = snapshot
        .resources
        .iter()
        .find(|r| r.type_name == "aws_subnet")
        .expect("a subnet");
    assert_eq!(
        subnet.attributes["vpc_id"],
        serde_json::json!("vpc-00000002")
    );
    expect![[r#"
        aws_s3_bucket acme-logs [tofu-address=aws_s3_bucket.logs tofu-estate=acme]
        aws_subnet subnet-00000002 [tofu-address=aws_subnet.a tofu-estate=acme]
        aws_vpc vpc-00000002 [tofu-address=aws_vpc.main tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    assert!(world.plan(&changed).await.summary().is_empty());
}

#[tokio::test]
async fn depends_on_orders_creates() {
    let world = Bench::empty();
    let config = NET.replace("CIDR", "10.0.0.0/16");
    let plan = world.plan(&config).await;
    let graph = engine::graph::build(&plan).expect("acyclic").debug_repr();
    // The bucket waits for the subnet it depends on, which waits for the VPC.
    expect![[r#"
        r[0] = ResourceInstanceCurrentMeta(aws_vpc.main, nil);
        r[1] = ResourceInstanceDesired(r[0]);
        r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
        r[3] = ManagedApply(r[2], nil, await());
        r[4] = ResourceInstanceCurrentMeta(aws_subnet.a, nil);
        r[5] = ResourceInstanceDesired(r[4]);
        r[6] = ManagedFinalPlan(r[4], r[5], nil, v[1]);
        r[7] = ManagedApply(r[6], nil, await(r[3]));
        r[8] = ResourceInstanceCurrentMeta(aws_s3_bucket.logs, nil);
        r[9] = ResourceInstanceDesired(r[8]);
        r[10] = ManagedFinalPlan(r[8], r[9], nil, v[2]);
        r[11] = ManagedApply(r[10], nil, await(r[7]));

        aws_s3_bucket.logs = r[11];
        aws_subnet.a = r[7];
        aws_vpc.main = r[3];
    "#]]
    .assert_eq(&operations(&graph));
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
}

/// The debug text without its constant lines (planned values are checked by the plan goldens).
fn operations(debug: &str) -> String {
    let mut out: String = debug
        .lines()
        .filter(|l| !l.starts_with("v["))
        .skip_while(|l| l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    if out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[tokio::test]
async fn a_bucket_and_its_versioning_leave_together_versioning_first() {
    // The versioning configuration's id is the bucket's name, which is also the bucket's own `bucket`
    // attribute: only `bucket` of the versioning configuration is a reference, so the deletes are ordered, not
    // a cycle.
    let world = Bench::empty();
    world
        .converge(
            r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
}

resource "aws_s3_bucket_versioning" "logs" {
  bucket = aws_s3_bucket.logs.bucket
  versioning_configuration {
    status = "Enabled"
  }
}
"#,
        )
        .await;
    let gone = "live {\n  estate = \"acme\"\n}\n";
    let plan = world.plan(gone).await;
    assert_eq!(
        plan.summary().to_string(),
        "Plan: 0 to add, 0 to change, 2 to destroy."
    );
    let outcome = world.apply(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(live_tags(&world).await, "");
    assert!(world.plan(gone).await.summary().is_empty());
}
