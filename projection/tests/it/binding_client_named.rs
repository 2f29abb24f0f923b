//! Path 1: the object at a declared client-named identity, and every verdict it can get.

use projection::{Binding, Repair, UnownedVerdict, Withheld};
use serde_json::json;

use crate::support::*;

fn bucket(id: &str, tags: &[(&str, &str)]) -> serde_json::Value {
    res("aws_s3_bucket", id, json!({ "bucket": id }), tags)
}

#[tokio::test]
async fn an_owned_bucket_at_its_identity_is_bound_from_the_bulk_pages_alone() {
    let cloud = cloud(vec![bucket(
        "acme-data",
        &tags_of(&ours("aws_s3_bucket.data")),
    )]);
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-data")]);
    let p = run(&cloud, &declared).await;
    let state = p.instance(&a("aws_s3_bucket.data")).unwrap();
    assert_eq!(
        bound_id(&p, "aws_s3_bucket.data").as_deref(),
        Some("acme-data")
    );
    assert!(matches!(&state.binding, Binding::Bound { repairs, .. } if repairs.is_empty()));
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(p.cost.api_calls_by_operation.get("s3:HeadBucket"), None);
}

#[tokio::test]
async fn a_bucket_without_estate_marker_is_unowned_and_blocks_its_instance() {
    let cloud = cloud(vec![bucket("acme-data", &[("team", "data")])]);
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-data")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.instance(&a("aws_s3_bucket.data")).unwrap().binding,
        Binding::Blocked {
            id: "acme-data".into(),
            verdict: UnownedVerdict::Adoptable,
        }
    );
    assert_eq!(p.unowned.len(), 1);
    assert_eq!(p.unowned[0].verdict, UnownedVerdict::Adoptable);
    assert_eq!(
        codes(&p),
        [diag("unowned", Some("aws_s3_bucket.data"), &["acme-data"])]
    );
    assert!(p.foreign.is_empty());
}

#[tokio::test]
async fn another_estates_bucket_is_in_the_way() {
    let cloud = cloud(vec![bucket(
        "acme-data",
        &[
            ("tofu-estate", "billing"),
            ("tofu-address", "aws_s3_bucket.data"),
        ],
    )]);
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-data")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.instance(&a("aws_s3_bucket.data")).unwrap().binding,
        Binding::Blocked {
            id: "acme-data".into(),
            verdict: UnownedVerdict::InTheWay {
                estate: "billing".into()
            },
        }
    );
    assert_eq!(
        p.unowned[0].verdict,
        UnownedVerdict::InTheWay {
            estate: "billing".into()
        }
    );
    assert_eq!(
        codes(&p),
        [diag(
            "in-the-way",
            Some("aws_s3_bucket.data"),
            &["acme-data"]
        )]
    );
}

#[tokio::test]
async fn a_missing_or_undeclared_address_marker_is_bound_and_repaired() {
    let cloud = cloud(vec![
        bucket("acme-logs", &[("tofu-estate", ESTATE)]),
        bucket("acme-data", &tags_of(&ours("aws_s3_bucket.old_name"))),
    ]);
    let declared = declare(vec![
        named("aws_s3_bucket.logs", "bucket", "acme-logs"),
        named("aws_s3_bucket.data", "bucket", "acme-data"),
    ]);
    let p = run(&cloud, &declared).await;
    let repairs = |addr: &str| match &p.instance(&a(addr)).unwrap().binding {
        Binding::Bound { repairs, .. } => repairs.clone(),
        other => panic!("{addr} not bound: {other:?}"),
    };
    assert_eq!(
        repairs("aws_s3_bucket.logs"),
        [Repair::Address { from: None }]
    );
    assert_eq!(
        repairs("aws_s3_bucket.data"),
        [Repair::Address {
            from: Some("aws_s3_bucket.old_name".into())
        }]
    );
    let change = p.marker_change(&a("aws_s3_bucket.data")).unwrap().unwrap();
    assert_eq!(change.set["tofu-address"], "aws_s3_bucket.data");
    assert!(
        p.owned_undeclared.is_empty(),
        "path 1 comes first: {:?}",
        p.owned_undeclared
    );
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
}

#[tokio::test]
async fn an_object_marked_for_another_declared_address_is_refused() {
    let cloud = cloud(vec![bucket(
        "acme-data",
        &tags_of(&ours("aws_s3_bucket.logs")),
    )]);
    let declared = declare(vec![
        named("aws_s3_bucket.data", "bucket", "acme-data"),
        named("aws_s3_bucket.logs", "bucket", "acme-logs"),
    ]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.instance(&a("aws_s3_bucket.data")).unwrap().binding,
        Binding::Withheld(Withheld::MarkedForAnotherAddress)
    );
    assert_eq!(
        codes(&p),
        [diag(
            "marked-for-another-address",
            Some("aws_s3_bucket.data"),
            &["acme-data"]
        )]
    );
    assert!(p.owned_undeclared.is_empty());
}

#[tokio::test]
async fn a_malformed_marker_at_an_identity_is_an_error_and_binds_nothing() {
    let cloud = cloud(vec![bucket(
        "acme-data",
        &[
            ("tofu-estate", ESTATE),
            ("tofu-address", "aws_s3_bucket.data"),
            ("tofu-address-3", "x"),
        ],
    )]);
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-data")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.instance(&a("aws_s3_bucket.data")).unwrap().binding,
        Binding::Withheld(Withheld::MalformedMarker)
    );
    assert_eq!(
        codes(&p),
        [diag(
            "malformed-marker",
            Some("aws_s3_bucket.data"),
            &["acme-data"]
        )]
    );
}

#[tokio::test]
async fn iam_roles_are_read_at_their_identity_since_the_tagging_index_cannot_see_them() {
    let role = res(
        "aws_iam_role",
        "app",
        json!({ "name": "app", "assume_role_policy": "{}" }),
        &tags_of(&ours("aws_iam_role.app")),
    );
    let cloud = cloud(vec![role]);
    let declared = declare(vec![
        named("aws_iam_role.app", "name", "app"),
        named("aws_iam_role.new", "name", "new"),
    ]);
    let p = run(&cloud, &declared).await;
    assert_eq!(bound_id(&p, "aws_iam_role.app").as_deref(), Some("app"));
    assert_eq!(
        p.instance(&a("aws_iam_role.new")).unwrap().binding,
        Binding::Create
    );
    assert_eq!(p.cost.api_calls_by_operation["iam:GetRole"], 2);
}

#[tokio::test]
async fn an_owned_bucket_whose_declared_name_changed_stays_bound_for_a_replace() {
    let cloud = cloud(vec![bucket(
        "acme-old",
        &tags_of(&ours("aws_s3_bucket.data")),
    )]);
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-new")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        bound_id(&p, "aws_s3_bucket.data").as_deref(),
        Some("acme-old")
    );
    assert!(p.owned_undeclared.is_empty());
}

#[tokio::test]
async fn client_named_count_members_bind_by_identity_and_carry_slots() {
    let mut first = ours("aws_s3_bucket.logs:0");
    first.push(("tofu-slot", "4".to_owned()));
    let cloud = cloud(vec![
        bucket("acme-logs-0", &tags_of(&first)),
        bucket("acme-logs-1", &tags_of(&ours("aws_s3_bucket.logs:1"))),
    ]);
    let declared = declare(vec![
        named("aws_s3_bucket.logs[0]", "bucket", "acme-logs-0"),
        named("aws_s3_bucket.logs[1]", "bucket", "acme-logs-1"),
        named("aws_s3_bucket.logs[2]", "bucket", "acme-logs-2"),
    ]);
    let p = run(&cloud, &declared).await;
    let slots: Vec<(Option<String>, Option<u32>)> = (0..3)
        .map(|i| {
            let addr = format!("aws_s3_bucket.logs[{i}]");
            (
                bound_id(&p, &addr),
                p.instance(&a(&addr)).unwrap().slot.map(|s| s.0),
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            (Some("acme-logs-0".to_owned()), Some(4)),
            (Some("acme-logs-1".to_owned()), Some(5)),
            (None, Some(6)),
        ]
    );
    assert_eq!(
        p.marker_change(&a("aws_s3_bucket.logs[1]"))
            .unwrap()
            .unwrap()
            .set["tofu-slot"],
        "5"
    );
}

#[tokio::test]
async fn a_second_owned_object_claiming_a_client_named_address_is_a_collision() {
    let cloud = cloud(vec![
        bucket("acme-data", &tags_of(&ours("aws_s3_bucket.data"))),
        bucket("acme-data-copy", &tags_of(&ours("aws_s3_bucket.data"))),
    ]);
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-data")]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.instance(&a("aws_s3_bucket.data")).unwrap().binding,
        Binding::Withheld(Withheld::Collision)
    );
    assert_eq!(
        codes(&p),
        [diag(
            "marker-collision",
            Some("aws_s3_bucket.data"),
            &["acme-data", "acme-data-copy"]
        )]
    );
    assert!(
        p.owned_undeclared.is_empty(),
        "neither object is ever deleted"
    );
}

#[tokio::test]
async fn residue_from_the_records_rides_with_the_bound_instance_and_stays_sensitive() {
    use projection::record::{InstanceNamespace, RecordBody, ResidueRecord};
    let cloud = cloud(vec![bucket(
        "acme-data",
        &tags_of(&ours("aws_s3_bucket.data")),
    )]);
    let residue = RecordBody::Residue(ResidueRecord {
        values: [
            ("force_destroy".to_owned(), json!(true)),
            ("token".to_owned(), json!("s3cr3t")),
        ]
        .into(),
        sensitive_paths: vec!["token".into()],
    });
    let records = vec![record(
        InstanceNamespace::Residue,
        "aws_s3_bucket.data",
        residue,
    )];
    let declared = declare(vec![named("aws_s3_bucket.data", "bucket", "acme-data")]);
    let p = run_with(&cloud, &declared, records).await.projection;
    let state = p.instance(&a("aws_s3_bucket.data")).unwrap();
    assert_eq!(state.residue["force_destroy"], admission::Value::Bool(true));
    assert!(state.residue["token"].is_sensitive());
    assert!(
        !format!(
            "{:?}",
            p.records.residue.values().next().map(|r| r.version.clone())
        )
        .contains("s3cr3t")
    );
}

#[tokio::test]
async fn a_client_named_count_member_marked_for_another_index_is_stale_not_a_rival() {
    let mut swapped = ours("aws_s3_bucket.logs:1");
    swapped.push(("tofu-slot", "1".to_owned()));
    let mut dropped = ours("aws_s3_bucket.logs:2");
    dropped.push(("tofu-slot", "2".to_owned()));
    let cloud = cloud(vec![
        bucket("acme-logs-b", &tags_of(&swapped)),
        bucket("acme-logs-c", &tags_of(&dropped)),
    ]);
    let declared = declare(vec![
        named("aws_s3_bucket.logs[0]", "bucket", "acme-logs-b"),
        named("aws_s3_bucket.logs[1]", "bucket", "acme-logs-new"),
    ]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        bound_id(&p, "aws_s3_bucket.logs[0]").as_deref(),
        Some("acme-logs-b")
    );
    assert!(matches!(
        &p.instance(&a("aws_s3_bucket.logs[0]")).unwrap().binding,
        Binding::Bound { repairs, .. } if repairs == &[Repair::Address { from: Some("aws_s3_bucket.logs:1".into()) }]
    ));
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(p.owned_undeclared.len(), 1);
    assert_eq!(p.owned_undeclared[0].id, "acme-logs-c");
    assert_eq!(
        p.owned_undeclared[0].reason,
        projection::Removal::CountSurplus {
            slot: Some(admission::Slot(2))
        }
    );
    assert!(p.rename_hints.is_empty(), "a surplus is not a rename");
}
