//! Paths 3 and 4: parent-derived children from their parents' answers, list-and-match by content.

use projection::{Binding, Declared, DeclaredInstance, DeclaredValue, Withheld};
use serde_json::json;

use crate::support::*;

fn network() -> Vec<serde_json::Value> {
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
        res(
            "aws_route_table",
            "rtb-00000001",
            json!({ "vpc_id": "vpc-00000001" }),
            &tags_of(&ours("aws_route_table.rt")),
        ),
        res(
            "aws_route_table_association",
            "rtbassoc-00000001",
            json!({ "subnet_id": "subnet-00000001", "route_table_id": "rtb-00000001" }),
            &[],
        ),
    ]
}

fn association(address: &str, table: &str) -> DeclaredInstance {
    DeclaredInstance::new(a(address))
        .identity("subnet_id", DeclaredValue::id_of(a("aws_subnet.a")))
        .identity("route_table_id", DeclaredValue::id_of(a(table)))
}

#[tokio::test]
async fn children_come_from_the_parents_inline_answer_and_a_parent_to_create_makes_a_child_to_create()
 {
    let declared = declare(vec![
        bare("aws_vpc.main"),
        bare("aws_subnet.a"),
        bare("aws_route_table.rt"),
        bare("aws_route_table.new"),
        association("aws_route_table_association.a", "aws_route_table.rt"),
        association("aws_route_table_association.b", "aws_route_table.new"),
    ]);
    let p = run(&cloud(network()), &declared).await;
    assert_eq!(
        bound_id(&p, "aws_route_table_association.a").as_deref(),
        Some("rtbassoc-00000001")
    );
    assert_eq!(
        p.instance(&a("aws_route_table.new")).unwrap().binding,
        Binding::Create
    );
    assert_eq!(
        p.instance(&a("aws_route_table_association.b"))
            .unwrap()
            .binding,
        Binding::Create
    );
    assert_eq!(
        p.cost.api_calls_by_operation["ec2:DescribeRouteTables"], 1,
        "no read of its own"
    );
}

#[tokio::test]
async fn a_child_whose_parent_is_withheld_is_withheld_too() {
    let faults =
        json!([{ "operation": "ec2:DescribeRouteTables", "kind": "server-error", "times": 99 }]);
    let declared = declare(vec![
        bare("aws_vpc.main"),
        bare("aws_subnet.a"),
        bare("aws_route_table.rt"),
        association("aws_route_table_association.a", "aws_route_table.rt"),
    ]);
    let p = run(&cloud_with(network(), faults, json!([])), &declared).await;
    assert_eq!(
        p.instance(&a("aws_route_table_association.a"))
            .unwrap()
            .binding,
        Binding::Withheld(Withheld::Parent(a("aws_route_table.rt")))
    );
}

#[tokio::test]
async fn bucket_versioning_is_read_only_when_its_bucket_exists() {
    let live = vec![
        res(
            "aws_s3_bucket",
            "acme-data",
            json!({ "bucket": "acme-data" }),
            &tags_of(&ours("aws_s3_bucket.data")),
        ),
        res(
            "aws_s3_bucket_versioning",
            "acme-data",
            json!({ "bucket": "acme-data", "status": "Enabled" }),
            &[],
        ),
    ];
    let versioning = |address: &str, bucket: &str| {
        DeclaredInstance::new(a(address)).identity("bucket", DeclaredValue::id_of(a(bucket)))
    };
    let declared = declare(vec![
        named("aws_s3_bucket.data", "bucket", "acme-data"),
        named("aws_s3_bucket.new", "bucket", "acme-new"),
        versioning("aws_s3_bucket_versioning.data", "aws_s3_bucket.data"),
        versioning("aws_s3_bucket_versioning.new", "aws_s3_bucket.new"),
    ]);
    let p = run(&cloud(live), &declared).await;
    assert_eq!(
        bound_id(&p, "aws_s3_bucket_versioning.data").as_deref(),
        Some("acme-data")
    );
    assert_eq!(
        p.instance(&a("aws_s3_bucket_versioning.new"))
            .unwrap()
            .binding,
        Binding::Create
    );
    assert_eq!(p.cost.api_calls_by_operation["s3:GetBucketVersioning"], 1);
}

fn user_with_keys(keys: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let mut live = vec![res(
        "aws_iam_user",
        "alice",
        json!({ "name": "alice" }),
        &tags_of(&ours("aws_iam_user.alice")),
    )];
    for (id, status) in keys {
        live.push(res(
            "aws_iam_access_key",
            id,
            json!({ "user": "alice", "status": status }),
            &[],
        ));
    }
    live
}

fn key(address: &str, status: DeclaredValue) -> DeclaredInstance {
    DeclaredInstance::new(a(address))
        .identity("user", DeclaredValue::id_of(a("aws_iam_user.alice")))
        .content("status", status)
}

fn alice(keys: Vec<DeclaredInstance>) -> Declared {
    let mut all = vec![named("aws_iam_user.alice", "name", "alice")];
    all.extend(keys);
    declare(all)
}

#[tokio::test]
async fn identical_siblings_are_one_fungible_set_bound_by_cardinality() {
    let live = user_with_keys(&[
        ("AKIA0000000000000001", "Active"),
        ("AKIA0000000000000002", "Active"),
    ]);
    let declared = alice(vec![
        key("aws_iam_access_key.k[0]", DeclaredValue::known("Active")),
        key("aws_iam_access_key.k[1]", DeclaredValue::known("Active")),
        key("aws_iam_access_key.k[2]", DeclaredValue::known("Active")),
    ]);
    let p = run(&cloud(live), &declared).await;
    assert_eq!(
        bound_id(&p, "aws_iam_access_key.k[0]").as_deref(),
        Some("AKIA0000000000000001")
    );
    assert_eq!(
        bound_id(&p, "aws_iam_access_key.k[1]").as_deref(),
        Some("AKIA0000000000000002")
    );
    assert_eq!(
        p.instance(&a("aws_iam_access_key.k[2]")).unwrap().binding,
        Binding::Create
    );
    assert_eq!(p.cost.api_calls_by_operation["iam:ListAccessKeys"], 1);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
}

#[tokio::test]
async fn a_match_over_objects_that_differ_is_ambiguous_content_match() {
    let live = user_with_keys(&[
        ("AKIA0000000000000001", "Active"),
        ("AKIA0000000000000002", "Inactive"),
    ]);
    let declared = alice(vec![key("aws_iam_access_key.k", DeclaredValue::Unknown)]);
    let p = run(&cloud(live), &declared).await;
    assert_eq!(
        p.instance(&a("aws_iam_access_key.k")).unwrap().binding,
        Binding::Withheld(Withheld::AmbiguousContentMatch)
    );
    assert_eq!(
        codes(&p),
        [diag(
            "ambiguous-content-match",
            Some("aws_iam_access_key.k"),
            &["AKIA0000000000000001", "AKIA0000000000000002"]
        )]
    );
}

#[tokio::test]
async fn a_key_nobody_declares_is_foreign_unless_a_located_record_says_it_is_ours() {
    use projection::record::{InstanceNamespace, LocatedRecord, RecordBody};
    let live = user_with_keys(&[
        ("AKIA0000000000000001", "Active"),
        ("AKIA0000000000000002", "Active"),
    ]);
    let located = RecordBody::Located(LocatedRecord {
        id: "AKIA0000000000000002".into(),
        identity: Default::default(),
    });
    let records = vec![record(
        InstanceNamespace::Located,
        "aws_iam_access_key.old",
        located,
    )];
    let declared = alice(vec![]);
    let p = run_with(&cloud(live), &declared, records).await.projection;
    let foreign: Vec<&str> = p.foreign.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(
        foreign,
        [] as [&str; 0],
        "keys of an undeclared parent are never listed"
    );
    assert_eq!(p.owned_undeclared.len(), 1);
    assert_eq!(p.owned_undeclared[0].id, "AKIA0000000000000002");

    let declared = alice(vec![key(
        "aws_iam_access_key.k",
        DeclaredValue::known("Inactive"),
    )]);
    let located = RecordBody::Located(LocatedRecord {
        id: "AKIA0000000000000002".into(),
        identity: Default::default(),
    });
    let records = vec![record(
        InstanceNamespace::Located,
        "aws_iam_access_key.old",
        located,
    )];
    let p = run_with(
        &cloud(user_with_keys(&[
            ("AKIA0000000000000001", "Active"),
            ("AKIA0000000000000002", "Active"),
        ])),
        &declared,
        records,
    )
    .await
    .projection;
    let foreign: Vec<&str> = p.foreign.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(foreign, ["AKIA0000000000000001"]);
    assert_eq!(p.owned_undeclared[0].id, "AKIA0000000000000002");
}
