//! `adopt` and `mv` end to end on the simulated cloud.

use admission::config::{SourceFile, VariableInputs};
use engine::{AdoptRequest, MvRequest, PlanRequest, RetryPolicy};
use expect_test::expect;

use crate::support::{World, live_tags, text};

fn request<'a>(files: &'a [SourceFile], inputs: &'a VariableInputs) -> PlanRequest<'a> {
    PlanRequest {
        retry: RetryPolicy::immediate(3),
        ..PlanRequest::new(files, inputs)
    }
}

const BUCKET: &str = r#"
live {
  estate = "acme"
}

resource "aws_s3_bucket" "data" {
  bucket = "acme-data"
}
"#;

#[tokio::test]
async fn adopting_an_unowned_bucket_binds_it_with_no_change() {
    let world = World::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" },
            "tags": { "Team": "data" } }
        ]}"#,
    );
    let plan = world.plan(BUCKET).await;
    assert!(plan.summary().is_empty());
    assert_eq!(plan.unowned.len(), 1);
    let files = [SourceFile::new("main.tf", BUCKET)];
    let inputs = VariableInputs::default();
    let outcome = engine::adopt(
        &request(&files, &inputs),
        world.cloud.as_ref(),
        &AdoptRequest {
            address: "aws_s3_bucket.data",
            id: None,
        },
    )
    .await
    .expect("adopt runs");
    assert!(outcome.succeeded(), "{:?}", outcome.diagnostics);
    expect![[r#"
        aws_s3_bucket acme-data [Team=data tofu-address=aws_s3_bucket.data tofu-estate=acme]
    "#]]
    .assert_eq(&live_tags(&world).await);
    let plan = world.plan(BUCKET).await;
    expect![[r#"
        No changes. The live system matches the configuration.
    "#]]
    .assert_eq(&text(&plan));
}

#[tokio::test]
async fn adopting_another_estates_bucket_is_refused() {
    let world = World::new(
        r#"{"resources": [
          { "type": "aws_s3_bucket", "id": "acme-data", "attributes": { "bucket": "acme-data" },
            "tags": { "tofu-estate": "other", "tofu-address": "aws_s3_bucket.data" } }
        ]}"#,
    );
    let files = [SourceFile::new("main.tf", BUCKET)];
    let inputs = VariableInputs::default();
    let outcome = engine::adopt(
        &request(&files, &inputs),
        world.cloud.as_ref(),
        &AdoptRequest {
            address: "aws_s3_bucket.data",
            id: None,
        },
    )
    .await
    .expect("adopt runs");
    let lines: Vec<String> = outcome
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect();
    expect![[r#"
        [
            "error [adopt-refused]: the object is owned by another estate, other",
        ]
    "#]]
    .assert_debug_eq(&lines);
}

#[tokio::test]
async fn mv_rewrites_the_address_marker_and_the_next_plan_is_empty() {
    let config = r#"
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
}
"#;
    let world = World::new(
        r#"{"resources": [
          { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.0.0.0/16" },
            "tags": { "tofu-estate": "acme", "tofu-address": "aws_vpc.old" } }
        ]}"#,
    );
    let plan = world.plan(config).await;
    assert_eq!(plan.rename_hints.len(), 1);
    let files = [SourceFile::new("main.tf", config)];
    let inputs = VariableInputs::default();
    let outcome = engine::mv(
        &request(&files, &inputs),
        world.cloud.as_ref(),
        world.store.clone(),
        &MvRequest {
            old: "aws_vpc.old",
            new: "aws_vpc.main",
            dry_run: false,
            allow_missing_config: false,
        },
    )
    .await
    .expect("mv runs");
    assert!(outcome.succeeded(), "{:?}", outcome.diagnostics);
    assert_eq!(outcome.id.as_deref(), Some("vpc-00000001"));
    assert!(world.plan(config).await.summary().is_empty());
    let refused = engine::mv(
        &request(&files, &inputs),
        world.cloud.as_ref(),
        world.store.clone(),
        &MvRequest {
            old: "aws_vpc.old",
            new: "aws_vpc.main",
            dry_run: false,
            allow_missing_config: false,
        },
    )
    .await
    .expect("mv runs");
    assert_eq!(refused.diagnostics[0].code, admission::Code::MvRefused);
}
