//! The declared model's own rules, and the retry policy's bounds.

use std::time::Duration;

use projection::{Declared, Expansion, RetryPolicy};
use provider::ProviderError;

use crate::support::*;

#[test]
fn count_blocks_grow_with_the_indices_added_unless_their_count_was_declared() {
    let mut d = Declared::new();
    d.add(bare("aws_eip.pool[0]")).unwrap();
    d.add(bare("aws_eip.pool[2]")).unwrap();
    assert_eq!(
        d.expansion(&"aws_eip.pool".parse().unwrap()),
        Some(Expansion::Count(3))
    );
    assert!(d.is_declared(&a("aws_eip.pool[1]")));

    let mut fixed = Declared::new();
    fixed
        .count_block("aws_eip.pool".parse().unwrap(), 2)
        .unwrap();
    assert!(fixed.add(bare("aws_eip.pool[2]")).is_err());
    assert!(
        fixed.add(bare("aws_eip.pool")).is_err(),
        "a count block has no unkeyed instance"
    );
    assert!(d.add(bare("aws_eip.pool[0]")).is_err(), "declared twice");
}

#[test]
fn every_declared_address_is_listed_once_in_address_order() {
    let mut d = Declared::new();
    d.count_block("aws_subnet.b".parse().unwrap(), 11).unwrap();
    d.add(bare(r#"aws_vpc.main["z"]"#)).unwrap();
    d.add(bare("aws_subnet.b[10]")).unwrap();
    d.add(bare(r#"aws_vpc.main["a"]"#)).unwrap();
    d.add(bare("aws_eip.one")).unwrap();
    d.add(bare("aws_subnet.b[2]")).unwrap();
    d.count_block("aws_eip.none".parse().unwrap(), 0).unwrap();
    d.add(bare("aws_subnet.a")).unwrap();
    let shown: Vec<String> = d.addresses().iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "aws_eip.one",
            "aws_subnet.a",
            "aws_subnet.b[0]",
            "aws_subnet.b[1]",
            "aws_subnet.b[2]",
            "aws_subnet.b[3]",
            "aws_subnet.b[4]",
            "aws_subnet.b[5]",
            "aws_subnet.b[6]",
            "aws_subnet.b[7]",
            "aws_subnet.b[8]",
            "aws_subnet.b[9]",
            "aws_subnet.b[10]",
            r#"aws_vpc.main["a"]"#,
            r#"aws_vpc.main["z"]"#,
        ]
    );
}

#[test]
fn backoff_is_capped_and_grows_exponentially() {
    let policy = RetryPolicy::new(5, Duration::from_millis(100), Duration::from_millis(500), 7);
    let caps: Vec<u128> = (1..=5).map(|k| policy.cap(k).as_millis()).collect();
    assert_eq!(caps, [100, 200, 400, 500, 500]);
    for k in 1..=5 {
        for _ in 0..50 {
            assert!(policy.backoff(k) <= policy.cap(k));
        }
    }
}

#[tokio::test]
async fn retries_only_transient_failures_and_only_a_bounded_number_of_times() {
    let policy = RetryPolicy::immediate(4);
    let mut attempts = 0;
    let result: Result<(), ProviderError> = policy
        .run(|| {
            attempts += 1;
            async { Err(ProviderError::throttled("ec2:DescribeVpcs")) }
        })
        .await;
    assert!(result.is_err());
    assert_eq!(attempts, 4);

    let mut attempts = 0;
    let result: Result<(), ProviderError> = policy
        .run(|| {
            attempts += 1;
            async {
                Err(ProviderError::access_denied(
                    "ec2:DescribeVpcs",
                    "ec2:DescribeVpcs",
                ))
            }
        })
        .await;
    assert!(result.is_err());
    assert_eq!(attempts, 1, "a denial says something about the world");

    let mut attempts = 0;
    let result = policy
        .run(|| {
            attempts += 1;
            let n = attempts;
            async move {
                if n < 3 {
                    Err(ProviderError::server_error("s3:ListBuckets"))
                } else {
                    Ok(n)
                }
            }
        })
        .await;
    assert_eq!(result, Ok(3));
}
