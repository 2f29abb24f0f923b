//! The call budget of a converged plan: bulk answers only, one store trip.

use std::collections::BTreeMap;

use projection::{Binding, Declared, DeclaredInstance, DeclaredValue};
use serde_json::json;

use crate::support::*;

fn converged_estate() -> (Vec<serde_json::Value>, Declared) {
    let mut live = Vec::new();
    let mut declared = Declared::new();
    for i in 0..5 {
        let name = format!("acme-bucket-{i}");
        let address = format!("aws_s3_bucket.b{i}");
        live.push(res(
            "aws_s3_bucket",
            &name,
            json!({ "bucket": name }),
            &tags_of(&ours(&address)),
        ));
        declared.add(named(&address, "bucket", &name)).unwrap();
    }
    for i in 1..=3 {
        let id = format!("vpc-0000000{i}");
        let address = format!("aws_vpc.v{i}");
        live.push(res(
            "aws_vpc",
            &id,
            json!({ "cidr_block": format!("10.{i}.0.0/16") }),
            &tags_of(&ours(&address)),
        ));
        declared.add(bare(&address)).unwrap();
    }
    for i in 0..6 {
        let id = format!("subnet-0000000{}", i + 1);
        let escaped = format!("aws_subnet.s:{i}");
        let slot = i.to_string();
        let marks = ours(&escaped);
        let mut tags = tags_of(&marks);
        tags.push(("tofu-slot", &slot));
        live.push(res(
            "aws_subnet",
            &id,
            json!({ "vpc_id": "vpc-00000001", "cidr_block": format!("10.1.{i}.0/24") }),
            &tags,
        ));
    }
    declared
        .count_block("aws_subnet.s".parse().unwrap(), 6)
        .unwrap();
    live.push(res(
        "aws_route_table",
        "rtb-00000001",
        json!({ "vpc_id": "vpc-00000001" }),
        &tags_of(&ours("aws_route_table.rt")),
    ));
    declared.add(bare("aws_route_table.rt")).unwrap();
    for (i, dest) in ["0.0.0.0/0", "10.99.0.0/16"].iter().enumerate() {
        live.push(res(
            "aws_route",
            &format!("rtb-00000001_{dest}"),
            json!({ "route_table_id": "rtb-00000001", "destination_cidr_block": dest }),
            &[],
        ));
        declared
            .add(
                DeclaredInstance::new(a(&format!("aws_route.r{i}")))
                    .identity(
                        "route_table_id",
                        DeclaredValue::id_of(a("aws_route_table.rt")),
                    )
                    .identity("destination_cidr_block", DeclaredValue::known(*dest)),
            )
            .unwrap();
    }
    (live, declared)
}

#[tokio::test]
async fn a_converged_estate_costs_one_store_trip_and_five_bulk_calls() {
    let (live, declared) = converged_estate();
    let cloud = cloud(live);
    let run = run_with(&cloud, &declared, Vec::new()).await;
    let p = &run.projection;
    assert_eq!(run.store_trips, 1);
    assert_eq!(p.cost.store_trips, 1);
    let expected: BTreeMap<String, u64> = [
        ("ec2:DescribeRouteTables", 1),
        ("ec2:DescribeSubnets", 1),
        ("ec2:DescribeVpcs", 1),
        ("s3:ListBuckets", 1),
        ("tagging:GetResources", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(p.cost.api_calls_by_operation, expected);
    assert_eq!(p.cost.api_calls, 5);
    assert_eq!(p.instances.len(), 17);
    let unbound: Vec<String> = p
        .instances
        .values()
        .filter(|s| !matches!(&s.binding, Binding::Bound { repairs, .. } if repairs.is_empty()))
        .map(|s| s.address.to_string())
        .collect();
    assert!(unbound.is_empty(), "not bound cleanly: {unbound:?}");
    assert_eq!(
        bound_id(p, "aws_route.r1").as_deref(),
        Some("rtb-00000001_10.99.0.0/16")
    );
    assert!(p.diagnostics.is_empty() && p.owned_undeclared.is_empty() && p.foreign.is_empty());
}
