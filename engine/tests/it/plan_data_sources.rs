//! Data sources on the simulated cloud: read at plan time, before discovery, through the provider's
//! `read_data_source`; an identity may be computed from them; every read is in the plan's cost; nothing
//! is ever written for one; a failed read makes the plan not applicable.

use std::collections::BTreeMap;

use crate::support::{Bench, diagnostics, failing, text};

/// A bucket named from the account, tagged from the region and partition (as Terraform users write it).
const CONFIG: &str = r#"live { estate = "acme" }
data "aws_caller_identity" "current" {}
data "aws_region" "current" {}
data "aws_partition" "current" {}
resource "aws_s3_bucket" "logs" {
  bucket = "logs-${data.aws_caller_identity.current.account_id}"
  tags = {
    region    = data.aws_region.current.name
    endpoint  = data.aws_region.current.endpoint
    place     = data.aws_region.current.description
    partition = data.aws_partition.current.partition
    dns       = data.aws_partition.current.dns_suffix
    caller    = data.aws_caller_identity.current.arn
  }
}
output "account" { value = data.aws_caller_identity.current.id }
"#;

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[tokio::test]
async fn data_sources_name_a_bucket_that_plans_applies_and_converges() {
    let bench = Bench::empty();
    let plan = bench.plan(CONFIG).await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    let shown = text(&plan);
    assert!(
        shown.contains(r#"+ bucket        = "logs-123456789012""#),
        "{shown}"
    );
    assert!(
        shown.contains(r#"caller = "arn:aws:iam::123456789012:root", dns = "amazonaws.com", endpoint = "ec2.us-east-1.amazonaws.com", partition = "aws", place = "US East (N. Virginia)", region = "us-east-1""#),
        "{shown}"
    );
    // One `sts:GetCallerIdentity`; `aws_region` and `aws_partition` are answered with no call, as the
    // AWS provider answers them from its configuration.
    assert_eq!(
        plan.cost.api_calls_by_operation,
        counts(&[
            ("s3:HeadBucket", 1),
            ("s3:ListBuckets", 1),
            ("sts:GetCallerIdentity", 1),
            ("tagging:GetResources", 1),
        ])
    );
    assert_eq!(plan.cost.api_calls, 4);
    let (outcome, calls) = bench.apply_counted(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    // The apply reads no data source again and writes none: the bucket's create is its only change.
    assert_eq!(
        calls.keys().filter(|op| op.starts_with("sts:")).count(),
        0,
        "{calls:?}"
    );
    let snapshot = bench.cloud.snapshot().await.unwrap();
    let live: Vec<(&str, &str)> = snapshot
        .resources
        .iter()
        .map(|r| (r.type_name.as_str(), r.id.as_str()))
        .collect();
    assert_eq!(live, [("aws_s3_bucket", "logs-123456789012")]);
    let again = bench.plan(CONFIG).await;
    assert!(
        again
            .changes
            .iter()
            .all(|c| c.action == engine::Action::NoOp),
        "{}",
        text(&again)
    );
    assert_eq!(
        again
            .cost
            .api_calls_by_operation
            .get("sts:GetCallerIdentity"),
        Some(&1)
    );
}

#[tokio::test]
async fn data_sources_are_read_once_per_member() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_caller_identity" "each" {
  count = 3
}
data "aws_region" "named" {
  for_each = toset(["eu-west-1", "ap-southeast-2"])
  name     = each.key
}
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_caller_identity.each[2].account_id}-${data.aws_region.named["ap-southeast-2"].description}"
}
"#,
        )
        .await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    assert!(
        text(&plan).contains(r#""b-123456789012-Asia Pacific (Sydney)""#),
        "{}",
        text(&plan)
    );
    assert_eq!(
        plan.cost
            .api_calls_by_operation
            .get("sts:GetCallerIdentity"),
        Some(&3)
    );
}

#[tokio::test]
async fn a_failed_data_read_makes_the_plan_not_applicable() {
    let mut bench = Bench::empty();
    // More failures than the retries: the read fails for good.
    bench
        .with_faults(failing("sts:GetCallerIdentity", 10))
        .await;
    let plan = bench.plan(CONFIG).await;
    assert!(!plan.applicable());
    let failed: Vec<String> = plan
        .diagnostics
        .iter()
        .filter(|d| d.code == admission::Code::DataReadFailed)
        .map(|d| format!("{} {}", d.address.as_deref().unwrap_or_default(), d.summary))
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", plan.diagnostics);
    assert!(
        failed[0].starts_with(
            "data.aws_caller_identity.current reading `data.aws_caller_identity.current` failed"
        ),
        "{failed:?}"
    );
    // Never an empty result: the bucket's name is not planned from a read that did not happen.
    assert!(plan.changes.is_empty(), "{}", text(&plan));
}

#[tokio::test]
async fn a_data_source_with_an_unknown_argument_leaves_its_identity_unknown() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_region" "r" { name = uuid() }
resource "aws_s3_bucket" "b" {
  bucket = "b-${data.aws_region.r.name}"
}
"#,
        )
        .await;
    assert!(!plan.applicable());
    let codes: Vec<&str> = plan.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["non-static-identity"], "{:?}", plan.diagnostics);
}
