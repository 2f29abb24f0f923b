//! The IAM, S3 and policy-document data sources on the simulated cloud: `aws_iam_role` (one
//! `iam:GetRole`), `aws_iam_policy` (`iam:GetPolicy` and `iam:GetPolicyVersion`, after
//! `iam:ListPolicies` by name), `aws_s3_bucket` (one `s3:HeadBucket`) and `aws_iam_policy_document`
//! (no call). Every read is in the plan's cost, none writes, and one that finds nothing makes the plan
//! not applicable.

use crate::support::{Bench, diagnostics, text};

/// A role and a bucket that exist already (not this estate's), and a customer-managed policy.
const LIVE: &str = r#"{
  "resources": [
    { "type": "aws_iam_role", "id": "app",
      "attributes": { "name": "app", "path": "/svc/",
        "assume_role_policy": "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"sts:AssumeRole\",\"Principal\":{\"Service\":\"ec2.amazonaws.com\"}}]}" },
      "tags": { "team": "web" } },
    { "type": "aws_s3_bucket", "id": "assets-bucket", "region": "eu-west-1",
      "attributes": { "bucket": "assets-bucket" } }
  ],
  "managed_policies": [
    { "name": "app-read", "path": "/app/", "description": "Reads the assets",
      "document": { "Version": "2012-10-17", "Statement": [ { "Effect": "Allow", "Action": "s3:GetObject", "Resource": "*" } ] } }
  ]
}"#;

const CONFIG: &str = r#"live { estate = "acme" }
data "aws_iam_role" "app" { name = "app" }
data "aws_s3_bucket" "assets" { bucket = "assets-bucket" }
data "aws_iam_policy" "admin" { arn = "arn:aws:iam::aws:policy/AdministratorAccess" }
data "aws_iam_policy" "lambda" { name = "AWSLambdaBasicExecutionRole" }
data "aws_iam_policy" "mine" {
  name        = "app-read"
  path_prefix = "/app/"
}
data "aws_iam_policy_document" "trust" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}
data "aws_iam_policy_document" "read" {
  statement {
    sid       = "Read"
    actions   = ["s3:ListBucket", "s3:GetObject"]
    resources = [data.aws_s3_bucket.assets.arn, "${data.aws_s3_bucket.assets.arn}/&{aws:username}/*"]
  }
}
resource "aws_iam_role" "worker" {
  name               = "worker"
  assume_role_policy = data.aws_iam_policy_document.trust.json
  tags = {
    app    = data.aws_iam_role.app.arn
    path   = data.aws_iam_role.app.path
    team   = data.aws_iam_role.app.tags["team"]
    zone   = data.aws_s3_bucket.assets.hosted_zone_id
    domain = data.aws_s3_bucket.assets.bucket_regional_domain_name
    region = data.aws_s3_bucket.assets.region
    admin  = data.aws_iam_policy.admin.arn
    lambda = data.aws_iam_policy.lambda.arn
    mine   = data.aws_iam_policy.mine.description
  }
}
output "read" { value = data.aws_iam_policy_document.read.minified_json }
output "admin" { value = data.aws_iam_policy.admin.policy }
"#;

#[tokio::test]
async fn iam_and_s3_data_sources_feed_a_role_that_applies_and_converges() {
    let bench = Bench::new(LIVE);
    let plan = bench.plan(CONFIG).await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    let shown = text(&plan);
    assert!(
        shown.contains(concat!(
            r#"+ tags                  = { admin = "arn:aws:iam::aws:policy/AdministratorAccess", "#,
            r#"app = "arn:aws:iam::123456789012:role/svc/app", "#,
            r#"domain = "assets-bucket.s3.eu-west-1.amazonaws.com", "#,
            r#"lambda = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole", "#,
            r#"mine = "Reads the assets", path = "/svc/", region = "eu-west-1", team = "web", "#,
            r#"zone = "Z1BKCTXD74EZPE" }"#
        )),
        "{shown}"
    );
    // The trust policy as the AWS provider renders it, indented with two spaces.
    assert!(
        shown.contains(r#"+ assume_role_policy    = "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\n      \"Effect\": \"Allow\",\n      \"Action\": \"sts:AssumeRole\",\n      \"Principal\": {\n        \"Service\": \"lambda.amazonaws.com\"\n      }\n    }\n  ]\n}""#),
        "{shown}"
    );
    let by_op = &plan.cost.api_calls_by_operation;
    let data_reads: Vec<(&str, u64)> = [
        "iam:GetPolicy",
        "iam:GetPolicyVersion",
        "iam:ListPolicies",
        "s3:HeadBucket",
    ]
    .into_iter()
    .map(|op| (op, by_op.get(op).copied().unwrap_or(0)))
    .collect();
    // Three policies read (two by name: one listing page each), one bucket; the documents cost nothing.
    assert_eq!(
        data_reads,
        [
            ("iam:GetPolicy", 3),
            ("iam:GetPolicyVersion", 3),
            ("iam:ListPolicies", 2),
            ("s3:HeadBucket", 1),
        ]
    );
    // One `iam:GetRole` for the data source, one for the planned role's identity.
    assert_eq!(by_op.get("iam:GetRole"), Some(&2), "{by_op:?}");
    let (outcome, calls) = bench.apply_counted(plan).await;
    assert_eq!(diagnostics(&outcome), "");
    assert_eq!(
        outcome.outputs["read"].as_str(),
        Some(
            r#"{"Version":"2012-10-17","Statement":[{"Sid":"Read","Effect":"Allow","Action":["s3:ListBucket","s3:GetObject"],"Resource":["arn:aws:s3:::assets-bucket/${aws:username}/*","arn:aws:s3:::assets-bucket"]}]}"#
        )
    );
    assert_eq!(
        outcome.outputs["admin"].as_str(),
        Some(
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        )
    );
    assert!(
        !calls
            .keys()
            .any(|op| op.starts_with("iam:GetPolicy") || op == "s3:HeadBucket"),
        "the apply reads no data source again: {calls:?}"
    );
    let again = bench.plan(CONFIG).await;
    assert!(
        again
            .changes
            .iter()
            .all(|c| c.action == engine::Action::NoOp),
        "{}",
        text(&again)
    );
}

#[tokio::test]
async fn a_missing_role_bucket_or_policy_makes_the_plan_not_applicable() {
    for (block, address) in [
        (
            r#"data "aws_iam_role" "x" { name = "nobody" }"#,
            "data.aws_iam_role.x",
        ),
        (
            r#"data "aws_s3_bucket" "x" { bucket = "no-such-bucket" }"#,
            "data.aws_s3_bucket.x",
        ),
        (
            r#"data "aws_iam_policy" "x" { arn = "arn:aws:iam::aws:policy/NoSuchPolicy" }"#,
            "data.aws_iam_policy.x",
        ),
        (
            r#"data "aws_iam_policy" "x" { name = "NoSuchPolicy" }"#,
            "data.aws_iam_policy.x",
        ),
    ] {
        let bench = Bench::new(LIVE);
        let config = format!(
            "live {{ estate = \"acme\" }}\n{block}\noutput \"x\" {{ value = {address}.id }}\n"
        );
        let plan = bench.plan(&config).await;
        assert!(!plan.applicable(), "{block}");
        let failed: Vec<_> = plan
            .diagnostics
            .iter()
            .filter(|d| d.code == admission::Code::DataReadFailed)
            .map(|d| d.address.clone().unwrap_or_default())
            .collect();
        assert_eq!(failed, [address], "{block}: {:?}", plan.diagnostics);
    }
}

#[tokio::test]
async fn a_throttled_policy_read_is_retried_and_counted() {
    let mut bench = Bench::new(LIVE);
    let throttled = fixtures::FaultPlan::none()
        .with(
            "iam:GetPolicy",
            fixtures::FaultKind::Throttle,
            fixtures::Trigger::Times(2),
        )
        .expect("a known operation");
    bench.with_faults(throttled).await;
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_iam_policy" "ro" { arn = "arn:aws:iam::aws:policy/ReadOnlyAccess" }
output "ro" { value = data.aws_iam_policy.ro.description }
"#,
        )
        .await;
    assert!(plan.applicable(), "{:?}", plan.diagnostics);
    // Two throttled attempts and the one that answered.
    assert_eq!(
        plan.cost.api_calls_by_operation.get("iam:GetPolicy"),
        Some(&3)
    );
    assert_eq!(
        plan.cost.api_calls_by_operation.get("iam:GetPolicyVersion"),
        Some(&1)
    );
}

#[tokio::test]
async fn an_invalid_policy_document_is_a_failed_read() {
    let bench = Bench::empty();
    let plan = bench
        .plan(
            r#"live { estate = "acme" }
data "aws_iam_policy_document" "d" {
  statement {
    sid     = "Same"
    actions = ["s3:GetObject"]
  }
  statement {
    sid     = "Same"
    actions = ["s3:PutObject"]
  }
}
output "d" { value = data.aws_iam_policy_document.d.json }
"#,
        )
        .await;
    assert!(!plan.applicable());
    let failed: Vec<_> = plan
        .diagnostics
        .iter()
        .filter(|d| d.code == admission::Code::DataReadFailed)
        .map(|d| d.summary.clone())
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", plan.diagnostics);
    assert!(failed[0].contains("duplicate Sid (Same)"), "{failed:?}");
    assert_eq!(plan.cost.api_calls_by_operation.get("iam:GetPolicy"), None);
}
