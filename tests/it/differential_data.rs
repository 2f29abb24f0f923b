//! The differential journeys of the IAM, S3 and policy-document data sources: one configuration that
//! reads a bucket and a role made by hand, an AWS-managed policy by ARN and by name, and computes two
//! policy documents, then creates a role from them; it must plan, apply and re-plan to `No changes.`
//! the same on the simulated cloud and on the emulator. Only attributes that do not carry the account
//! or a minted id are shown (each emulator run has an account of its own).

use serde_json::json;

use crate::differential::{converged, differential, live, plan_and_apply};
use crate::differential_support::{Cloud, Transcript};

/// The data sources and the role they make.
fn reading(name: &str) -> String {
    live(name)
        + &format!(
            r#"
data "aws_s3_bucket" "hand" {{
  bucket = "{name}-hand"
}}
data "aws_iam_role" "hand" {{
  name = "{name}-hand"
}}
data "aws_iam_policy" "admin" {{
  arn = "arn:aws:iam::aws:policy/AdministratorAccess"
}}
data "aws_iam_policy" "lambda" {{
  name        = "AWSLambdaBasicExecutionRole"
  path_prefix = "/service-role/"
}}
data "aws_iam_policy_document" "trust" {{
  statement {{
    actions = ["sts:AssumeRole"]
    principals {{
      type        = "Service"
      identifiers = ["lambda.amazonaws.com", "ec2.amazonaws.com"]
    }}
  }}
}}
data "aws_iam_policy_document" "read" {{
  source_policy_documents = [data.aws_iam_policy_document.trust.json]
  statement {{
    sid       = "Read"
    actions   = ["s3:GetObject", "s3:ListBucket"]
    resources = [data.aws_s3_bucket.hand.arn, "${{data.aws_s3_bucket.hand.arn}}/&{{aws:username}}/*"]
    condition {{
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["true"]
    }}
  }}
}}
resource "aws_iam_role" "reader" {{
  name               = "{name}-reader"
  assume_role_policy = data.aws_iam_policy_document.trust.json
  description        = substr(data.aws_iam_policy_document.read.minified_json, 0, 200)
  tags = {{
    bucket_arn = data.aws_s3_bucket.hand.arn
    domain     = data.aws_s3_bucket.hand.bucket_regional_domain_name
    zone       = data.aws_s3_bucket.hand.hosted_zone_id
    region     = data.aws_s3_bucket.hand.region
    role_path  = data.aws_iam_role.hand.path
    role_name  = data.aws_iam_role.hand.name
    admin      = data.aws_iam_policy.admin.name
    lambda     = data.aws_iam_policy.lambda.arn
  }}
}}
"#
        )
}

async fn data_sources(cloud: Cloud) -> Transcript {
    let mut t = cloud.transcript();
    let hand = format!("{}-hand", cloud.name);
    let trust = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Principal":{"Service":"ec2.amazonaws.com"}}]}"#;
    cloud.make("aws_s3_bucket", json!({ "bucket": hand })).await;
    cloud
        .make(
            "aws_iam_role",
            json!({ "name": hand, "assume_role_policy": trust }),
        )
        .await;
    t.step(
        "made by hand",
        &format!("aws_s3_bucket {hand}\naws_iam_role {hand}\n"),
    );
    let config = reading(&cloud.name);
    plan_and_apply(
        &cloud,
        &mut t,
        "data sources",
        &config,
        "Plan: 1 to add, 0 to change, 0 to destroy.",
    )
    .await;
    converged(&cloud, &mut t, "data sources", &config).await;
    t
}

#[tokio::test]
async fn differential_iam_s3_and_policy_document_data_sources_read_the_same_on_both_clouds() {
    differential("ddata", &[], data_sources).await;
}
