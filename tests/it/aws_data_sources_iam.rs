//! The AWS provider's IAM, S3 and policy-document data sources against the local AWS emulator: a role
//! by name (one `iam:GetRole`), a policy by ARN (`iam:GetPolicy`, `iam:GetPolicyVersion`) or by name
//! (`iam:ListPolicies` pages first), AWS-managed ones included, a bucket by name (`s3:HeadBucket`)
//! and a policy document computed with no call. What is not found is an error, never an empty result.

use provider::{Call, CallCounts, DataSourceRequest, Provider, ProviderErrorKind, Value};

use crate::aws_provider::{setup, unique};

const TRUST: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Principal":{"Service":"ec2.amazonaws.com"}}]}"#;

fn counted(counts: &CallCounts) -> Vec<(String, u64)> {
    counts.snapshot().into_iter().collect()
}

#[tokio::test]
async fn aws_iam_and_s3_data_sources_read_what_exists() {
    let (emulator, aws) = setup().await;
    let base = staterecord::s3::sdk_config_from_env(None, None).await;
    let iam = aws_sdk_iam::Client::new(&base);
    let role = unique("dsrole");
    iam.create_role()
        .role_name(&role)
        .path("/svc/")
        .assume_role_policy_document(TRUST)
        .tags(
            aws_sdk_iam::types::Tag::builder()
                .key("team")
                .value("web")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("the emulator creates the role");
    let policy = unique("dspolicy");
    let made = iam
        .create_policy()
        .policy_name(&policy)
        .path("/app/")
        .description("Reads the assets")
        .policy_document(r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}"#)
        .send()
        .await
        .expect("the emulator creates the policy");
    let policy_arn = made.policy().and_then(|p| p.arn()).unwrap().to_owned();
    let bucket = unique("dsbucket");
    emulator
        .client
        .create_bucket()
        .bucket(&bucket)
        .send()
        .await
        .expect("the emulator creates the bucket");

    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let got = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_iam_role").with_argument("name", role.as_str()),
        )
        .await
        .expect("the role reads");
    let arn = format!("arn:aws:iam::123456789012:role/svc/{role}");
    assert_eq!(got.get("arn").and_then(Value::as_str), Some(arn.as_str()));
    assert_eq!(got.get("id").and_then(Value::as_str), Some(role.as_str()));
    assert_eq!(got.get("path").and_then(Value::as_str), Some("/svc/"));
    assert_eq!(
        got.get("assume_role_policy").and_then(Value::as_str),
        Some(TRUST)
    );
    assert!(
        got.get("unique_id")
            .and_then(Value::as_str)
            .is_some_and(|u| u.starts_with("AROA"))
    );
    assert_eq!(
        got.get("tags")
            .and_then(|t| t.get("team"))
            .and_then(Value::as_str),
        Some("web")
    );
    assert_eq!(counted(&counts), [("iam:GetRole".to_owned(), 1)]);

    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let mine = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_iam_policy").with_argument("arn", policy_arn.as_str()),
        )
        .await
        .expect("the policy reads by ARN");
    assert_eq!(
        mine.get("name").and_then(Value::as_str),
        Some(policy.as_str())
    );
    assert_eq!(mine.get("path").and_then(Value::as_str), Some("/app/"));
    assert_eq!(
        mine.get("description").and_then(Value::as_str),
        Some("Reads the assets")
    );
    assert!(
        mine.get("policy")
            .and_then(Value::as_str)
            .is_some_and(|p| p.contains("s3:GetObject"))
    );
    assert_eq!(
        counted(&counts),
        [
            ("iam:GetPolicy".to_owned(), 1),
            ("iam:GetPolicyVersion".to_owned(), 1)
        ]
    );
    let by_name = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_iam_policy")
                .with_argument("name", policy.as_str())
                .with_argument("path_prefix", "/app/"),
        )
        .await
        .expect("the policy reads by name");
    assert_eq!(
        by_name.get("arn").and_then(Value::as_str),
        Some(policy_arn.as_str())
    );
    assert_eq!(counts.of("iam:ListPolicies"), 1);

    // An AWS-managed policy: the emulator ships them under AWS's ARNs.
    let admin = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_iam_policy")
                .with_argument("arn", "arn:aws:iam::aws:policy/AdministratorAccess"),
        )
        .await
        .expect("an AWS-managed policy reads");
    assert_eq!(
        admin.get("name").and_then(Value::as_str),
        Some("AdministratorAccess")
    );
    assert!(
        admin
            .get("policy")
            .and_then(Value::as_str)
            .is_some_and(|p| p.contains("\"*\""))
    );

    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let b = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_s3_bucket").with_argument("bucket", bucket.as_str()),
        )
        .await
        .expect("the bucket reads");
    assert_eq!(
        b.get("arn").and_then(Value::as_str),
        Some(format!("arn:aws:s3:::{bucket}").as_str())
    );
    assert_eq!(b.get("region").and_then(Value::as_str), Some("us-east-1"));
    assert_eq!(
        b.get("hosted_zone_id").and_then(Value::as_str),
        Some("Z3AQBSTGFYJSTF")
    );
    assert_eq!(
        b.get("bucket_regional_domain_name").and_then(Value::as_str),
        Some(format!("{bucket}.s3.us-east-1.amazonaws.com").as_str())
    );
    assert_eq!(counts.of("s3:HeadBucket"), 1);

    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let doc = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_iam_policy_document").with_argument(
                "statement",
                Value::from_json(
                    serde_json::json!([{ "actions": ["s3:GetObject"], "resources": ["*"] }]),
                ),
            ),
        )
        .await
        .expect("a document computes");
    assert_eq!(
        doc.get("minified_json").and_then(Value::as_str),
        Some(
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}"#
        )
    );
    assert!(counted(&counts).is_empty(), "a document costs no call");
}

#[tokio::test]
async fn aws_data_sources_that_find_nothing_are_errors() {
    let (_emulator, aws) = setup().await;
    let counts = CallCounts::new();
    let call = Call::new(&counts);
    for request in [
        DataSourceRequest::new("aws_iam_role").with_argument("name", unique("nobody").as_str()),
        DataSourceRequest::new("aws_s3_bucket")
            .with_argument("bucket", unique("nobucket").as_str()),
        DataSourceRequest::new("aws_iam_policy")
            .with_argument("arn", "arn:aws:iam::123456789012:policy/lp-no-such-policy"),
        DataSourceRequest::new("aws_iam_policy").with_argument("name", unique("nopolicy").as_str()),
    ] {
        let what = request.type_name.clone();
        let err = aws
            .read_data_source(&call, request)
            .await
            .expect_err("nothing found is an error");
        assert_eq!(err.kind, ProviderErrorKind::NotFound, "{what}: {err}");
    }
}
