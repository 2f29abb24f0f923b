//! The AWS provider's data sources against the local AWS emulator: `aws_caller_identity` is one
//! `sts:GetCallerIdentity` (moto's account is 123456789012), `aws_region` and `aws_partition` are
//! answered from the provider's region with no call, and a region that does not exist is an error.

use provider::{Call, CallCounts, DataSourceRequest, Provider, ProviderErrorKind, Value};

use crate::aws_provider::setup;

#[tokio::test]
async fn aws_data_sources_read_the_caller_and_the_region() {
    let (_emulator, aws) = setup().await;
    let counts = CallCounts::new();
    let call = Call::new(&counts);
    let me = aws
        .read_data_source(&call, DataSourceRequest::new("aws_caller_identity"))
        .await
        .expect("the caller identity reads");
    assert_eq!(
        me.get("account_id").and_then(Value::as_str),
        Some("123456789012")
    );
    assert_eq!(me.get("id").and_then(Value::as_str), Some("123456789012"));
    let arn = me.get("arn").and_then(Value::as_str).unwrap_or_default();
    assert!(
        arn.starts_with("arn:aws:") && arn.contains(":123456789012:"),
        "{arn}"
    );
    assert!(
        me.get("user_id")
            .and_then(Value::as_str)
            .is_some_and(|u| !u.is_empty())
    );
    let region = aws
        .read_data_source(&call, DataSourceRequest::new("aws_region"))
        .await
        .expect("the region reads");
    assert_eq!(
        region,
        Value::from_json(serde_json::json!({
            "id": "us-east-1",
            "name": "us-east-1",
            "endpoint": "ec2.us-east-1.amazonaws.com",
            "description": "US East (N. Virginia)",
        }))
    );
    let other = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_region").with_argument("name", "eu-west-1"),
        )
        .await
        .expect("a named region reads");
    assert_eq!(
        other.get("description").and_then(Value::as_str),
        Some("Europe (Ireland)")
    );
    let partition = aws
        .read_data_source(&call, DataSourceRequest::new("aws_partition"))
        .await
        .expect("the partition reads");
    assert_eq!(
        partition.get("dns_suffix").and_then(Value::as_str),
        Some("amazonaws.com")
    );
    assert_eq!(
        partition.get("reverse_dns_prefix").and_then(Value::as_str),
        Some("com.amazonaws")
    );
    // Only the caller identity is an API call.
    assert_eq!(
        counts.snapshot().into_iter().collect::<Vec<_>>(),
        [("sts:GetCallerIdentity".to_owned(), 1)]
    );
    let missing = aws
        .read_data_source(
            &call,
            DataSourceRequest::new("aws_region").with_argument("name", "xx-nowhere-1"),
        )
        .await
        .expect_err("no such region");
    assert_eq!(missing.kind, ProviderErrorKind::NotFound);
    assert!(aws.schemas().data_source("aws_caller_identity").is_some());
    assert!(aws.schemas().data_source("aws_vpc").is_some());
    assert!(aws.schemas().data_source("aws_instance").is_none());
}
