//! Throttling and failures during discovery, and a lagging tagging index.

use projection::{Binding, Withheld};
use serde_json::json;

use crate::support::*;

fn vpc_and_subnet() -> Vec<serde_json::Value> {
    vec![
        res(
            "aws_vpc",
            "vpc-00000001",
            json!({ "cidr_block": "10.0.0.0/16" }),
            &tags_of(&ours("aws_vpc.main")),
        ),
        res(
            "aws_subnet",
            "subnet-00000001",
            json!({ "vpc_id": "vpc-00000001", "cidr_block": "10.0.1.0/24" }),
            &tags_of(&ours("aws_subnet.a")),
        ),
    ]
}

#[tokio::test]
async fn a_throttled_listing_is_retried_and_still_binds() {
    let faults = json!([{ "operation": "ec2:DescribeSubnets", "kind": "throttle", "times": 2 }]);
    let cloud = cloud_with(vpc_and_subnet(), faults, json!([]));
    let declared = declare(vec![bare("aws_vpc.main"), bare("aws_subnet.a")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        bound_id(&p, "aws_subnet.a").as_deref(),
        Some("subnet-00000001")
    );
    assert_eq!(
        p.cost.api_calls_by_operation["ec2:DescribeSubnets"], 3,
        "every attempt counts"
    );
    assert!(p.diagnostics.is_empty());
}

#[tokio::test]
async fn a_listing_that_keeps_failing_is_discovery_incomplete_and_withholds_its_instances() {
    let faults = json!([{ "operation": "ec2:DescribeSubnets", "kind": "throttle", "times": 99 }]);
    let cloud = cloud_with(vpc_and_subnet(), faults, json!([]));
    let declared = declare(vec![
        bare("aws_vpc.main"),
        bare("aws_subnet.a"),
        bare("aws_subnet.b"),
    ]);
    let p = run(&cloud, &declared).await;
    for addr in ["aws_subnet.a", "aws_subnet.b"] {
        assert_eq!(
            p.instance(&a(addr)).unwrap().binding,
            Binding::Withheld(Withheld::DiscoveryIncomplete),
            "{addr} must be neither bound nor created"
        );
    }
    assert_eq!(
        bound_id(&p, "aws_vpc.main").as_deref(),
        Some("vpc-00000001")
    );
    assert_eq!(codes(&p), [diag("discovery-incomplete", None, &[])]);
    assert!(
        p.diagnostics[0].summary.contains("ec2:DescribeSubnets"),
        "{}",
        p.diagnostics[0].summary
    );
    assert!(p.withheld_types.contains("aws_subnet"));
    assert!(p.has_errors());
}

#[tokio::test]
async fn a_denied_tagging_sweep_withholds_the_types_only_it_can_find() {
    let faults = json!([{ "operation": "tagging:GetResources", "kind": "access-denied" }]);
    let cloud = cloud_with(vpc_and_subnet(), faults, json!([]));
    let declared = declare(vec![bare("aws_vpc.main"), bare("aws_subnet.a")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        bound_id(&p, "aws_subnet.a").as_deref(),
        Some("subnet-00000001")
    );
    assert_eq!(codes(&p), [diag("discovery-incomplete", None, &[])]);
    assert!(p.withheld_types.contains("aws_eip"));
    assert!(!p.withheld_types.contains("aws_vpc"), "listed on its own");
}

#[tokio::test]
async fn a_stale_tagging_hit_is_not_reported_as_owned_undeclared() {
    let deleted = json!([{
        "type": "aws_subnet", "id": "subnet-0000000b",
        "attributes": { "vpc_id": "vpc-00000001", "cidr_block": "10.0.9.0/24" },
        "tags": { "tofu-estate": ESTATE, "tofu-address": "aws_subnet.old" }
    }]);
    let faults =
        json!([{ "operation": "tagging:GetResources", "kind": "stale-index", "times": 99 }]);
    let live = vec![res(
        "aws_vpc",
        "vpc-00000001",
        json!({ "cidr_block": "10.0.0.0/16" }),
        &tags_of(&ours("aws_vpc.main")),
    )];
    let cloud = cloud_with(live, faults, deleted);
    let p = run(&cloud, &declare(vec![bare("aws_vpc.main")])).await;
    assert!(p.owned_undeclared.is_empty(), "{:?}", p.owned_undeclared);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(
        p.cost.api_calls_by_operation["ec2:DescribeSubnets"], 1,
        "the hit was checked with a strongly consistent read"
    );
}

#[tokio::test]
async fn a_failed_read_at_an_identity_withholds_that_instance_and_names_it() {
    let faults = json!([{ "operation": "iam:GetRole", "kind": "access-denied" }]);
    let cloud = cloud_with(vec![], faults, json!([]));
    let declared = declare(vec![named("aws_iam_role.app", "name", "app")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.instance(&a("aws_iam_role.app")).unwrap().binding,
        Binding::Withheld(Withheld::DiscoveryIncomplete),
        "could not look is not absent"
    );
    assert_eq!(
        codes(&p),
        [diag("discovery-incomplete", Some("aws_iam_role.app"), &[])]
    );
    assert_eq!(
        p.cost.api_calls_by_operation["iam:GetRole"], 1,
        "a denial is not retried"
    );
}
