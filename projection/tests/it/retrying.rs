//! Retries live in one decorator: bounded, only for transient failures, every attempt reported, waits
//! cut short by cancellation; and a projection's cost is what its own calls reported, whoever else
//! shares the provider.

use std::collections::BTreeMap;
use std::time::Duration;

use fixtures::{FaultKind, FaultPlan, SimCloud, SimConfig, Trigger};
use projection::{Backoff, RetryConfig, Retrying};
use provider::{Call, Counting, ListRequest, Provider, ProviderErrorKind};
use serde_json::json;
use staterecord::MemoryStore;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// An empty cloud whose `operation` fails with `kind` as `trigger` says.
fn faulty(operation: &str, kind: FaultKind, trigger: Trigger) -> Counting<SimCloud> {
    let faults = FaultPlan::none().with(operation, kind, trigger).unwrap();
    Counting::new(SimCloud::new(SimConfig {
        faults,
        ..SimConfig::default()
    }))
}

#[test]
fn backoff_is_capped_and_grows_exponentially() {
    let config = RetryConfig::new(5, Duration::from_millis(100), Duration::from_millis(500), 7);
    let caps: Vec<u128> = (1..=5).map(|k| config.cap(k).as_millis()).collect();
    assert_eq!(caps, [100, 200, 400, 500, 500]);
    let backoff = Backoff::new(config.clone());
    for k in 1..=5 {
        for _ in 0..50 {
            assert!(backoff.wait(k) <= config.cap(k));
        }
    }
    assert_eq!(
        RetryConfig::new(0, Duration::ZERO, Duration::ZERO, 0).max_attempts,
        1
    );
    assert_eq!(RetryConfig::default().max_attempts, 5);
}

#[tokio::test]
async fn retries_only_transient_failures_and_only_a_bounded_number_of_times() {
    let call = Call::unrecorded();
    let throttled = faulty("ec2:DescribeVpcs", FaultKind::Throttle, Trigger::Always);
    let retrying = Retrying::new(&throttled, &RetryConfig::immediate(4));
    let err = retrying
        .list(&call, ListRequest::all("aws_vpc"))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Throttled);
    assert_eq!(throttled.calls_of("ec2:DescribeVpcs"), 4);

    let denied = faulty("iam:ListRoles", FaultKind::AccessDenied, Trigger::Always);
    let retrying = Retrying::new(&denied, &RetryConfig::immediate(4));
    let err = retrying
        .list(&call, ListRequest::all("aws_iam_role"))
        .await
        .unwrap_err();
    assert!(matches!(err.kind, ProviderErrorKind::AccessDenied { .. }));
    assert_eq!(denied.total(), 1, "a denial says something about the world");

    let flaky = faulty("s3:ListBuckets", FaultKind::ServerError, Trigger::Times(2));
    let retrying = Retrying::new(&flaky, &RetryConfig::immediate(4));
    let page = retrying
        .list(&call, ListRequest::all("aws_s3_bucket"))
        .await
        .unwrap();
    assert!(page.objects.is_empty());
    assert_eq!(flaky.calls_of("s3:ListBuckets"), 3);
}

#[tokio::test]
async fn every_attempt_reaches_the_callers_recorder() {
    let throttled = faulty("ec2:DescribeVpcs", FaultKind::Throttle, Trigger::Times(2));
    let retrying = Retrying::new(throttled.inner(), &RetryConfig::immediate(5));
    let counts = provider::CallCounts::new();
    retrying
        .list(&Call::new(&counts), ListRequest::all("aws_vpc"))
        .await
        .unwrap();
    assert_eq!(
        counts.snapshot(),
        BTreeMap::from([("ec2:DescribeVpcs".to_owned(), 3)])
    );
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_retry_stops_waiting_and_makes_no_further_attempt() {
    let throttled = faulty("ec2:DescribeVpcs", FaultKind::Throttle, Trigger::Always);
    let hour = Duration::from_secs(3600);
    let cancel = CancellationToken::new();
    let retrying = Retrying::new(&throttled, &RetryConfig::new(5, hour, hour, 1))
        .until_cancelled(cancel.clone());
    let started = tokio::time::Instant::now();
    let call = Call::unrecorded();
    let (answer, ()) = tokio::join!(retrying.list(&call, ListRequest::all("aws_vpc")), async {
        tokio::time::sleep(Duration::from_millis(5)).await;
        cancel.cancel();
    });
    assert_eq!(answer.unwrap_err().kind, ProviderErrorKind::Throttled);
    assert_eq!(throttled.calls_of("ec2:DescribeVpcs"), 1);
    assert!(started.elapsed() < hour, "{:?}", started.elapsed());
    // Once cancelled, a failed call is not retried at all.
    let err = retrying
        .list(&call, ListRequest::all("aws_vpc"))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Throttled);
    assert_eq!(throttled.calls_of("ec2:DescribeVpcs"), 2);
}

#[tokio::test(start_paused = true)]
async fn projections_sharing_one_provider_each_report_their_own_cost() {
    let live = json!({ "resources": [
        res("aws_vpc", "vpc-1", json!({ "cidr_block": "10.0.0.0/16" }), &tags_of(&ours("aws_vpc.main"))),
        res("aws_iam_role", "deploy", json!({ "name": "deploy", "assume_role_policy": "{}" }),
            &tags_of(&ours("aws_iam_role.deploy"))),
    ]});
    let slow = SimConfig {
        latency: Duration::from_millis(20),
        ..SimConfig::default()
    };
    let cloud = Counting::new(SimCloud::from_json(&live.to_string(), slow).unwrap());
    let network = declare(vec![bare("aws_vpc.main")]);
    let roles = declare(vec![named("aws_iam_role.deploy", "name", "deploy")]);
    let (store_a, store_b) = (MemoryStore::new(), MemoryStore::new());
    let (config_a, config_b) = (config(), config());
    let estate = estate();
    let known = catalog(&cloud);
    let (a, b) = tokio::join!(
        projection::project(&cloud, &known, &store_a, &estate, &network, &config_a),
        projection::project(&cloud, &known, &store_b, &estate, &roles, &config_b),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let ops = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    };
    assert_eq!(
        a.cost.api_calls_by_operation,
        ops(&[("ec2:DescribeVpcs", 1), ("tagging:GetResources", 1)])
    );
    // The roles' plan also confirms the VPC its sweep found owned but undeclared (IAM is not in the
    // tagging index, so the networks' plan has no such read).
    assert_eq!(
        b.cost.api_calls_by_operation,
        ops(&[
            ("ec2:DescribeVpcs", 1),
            ("iam:GetRole", 1),
            ("tagging:GetResources", 1)
        ])
    );
    assert_eq!((a.cost.api_calls, b.cost.api_calls), (2, 3));
    // The provider itself saw both plans' calls.
    assert_eq!(cloud.total(), 5);
}
