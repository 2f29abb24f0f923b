//! Record-backed instances, create intents, deposed sets and located records in the projection.

use projection::record::{
    DeposedRecord, InstanceNamespace as N, IntentRecord, IntentState, LocatedRecord, ObjectRecord,
    RecordBody,
};
use projection::{Binding, Removal, RenameTarget, UndeclaredAction, Withheld};
use serde_json::json;

use crate::support::*;

fn pending(age_secs: u64) -> RecordBody {
    RecordBody::Intent(IntentRecord {
        state: IntentState::Pending,
        client_token: "tok-7".into(),
        time: NOW - age_secs,
        id: None,
        slot: None,
    })
}

#[tokio::test]
async fn a_young_pending_intent_with_nothing_live_withholds_the_create() {
    let cloud = cloud(vec![]);
    let records = vec![record(N::Intent, "aws_vpc.main", pending(60))];
    let p = run_with(&cloud, &declare(vec![bare("aws_vpc.main")]), records)
        .await
        .projection;
    assert_eq!(
        p.instance(&a("aws_vpc.main")).unwrap().binding,
        // Written 60 s ago, with 600 s of patience: the create may be retried 540 s from now.
        Binding::Withheld(Withheld::CreateInProgress {
            retry_after: NOW + 540
        })
    );
    assert_eq!(
        codes(&p),
        [diag("interrupted-create", Some("aws_vpc.main"), &[])]
    );
}

#[tokio::test]
async fn an_old_pending_intent_with_nothing_live_is_created_over_its_version() {
    let cloud = cloud(vec![]);
    let records = vec![record(N::Intent, "aws_vpc.main", pending(601))];
    let p = run_with(&cloud, &declare(vec![bare("aws_vpc.main")]), records)
        .await
        .projection;
    let state = p.instance(&a("aws_vpc.main")).unwrap();
    assert_eq!(state.binding, Binding::Create);
    assert_eq!(state.intent.as_ref().unwrap().body.client_token, "tok-7");
    assert_eq!(
        codes(&p),
        [diag("interrupted-create", Some("aws_vpc.main"), &[])]
    );
}

#[tokio::test]
async fn a_pending_intent_whose_object_exists_is_bound_as_usual() {
    let live = vec![res(
        "aws_vpc",
        "vpc-00000001",
        json!({ "cidr_block": "10.0.0.0/16" }),
        &tags_of(&ours("aws_vpc.main")),
    )];
    let records = vec![record(N::Intent, "aws_vpc.main", pending(5))];
    let p = run_with(&cloud(live), &declare(vec![bare("aws_vpc.main")]), records)
        .await
        .projection;
    assert_eq!(
        bound_id(&p, "aws_vpc.main").as_deref(),
        Some("vpc-00000001")
    );
    assert_eq!(
        codes(&p),
        [diag(
            "interrupted-create",
            Some("aws_vpc.main"),
            &["vpc-00000001"]
        )]
    );
}

fn random_record(id: &str) -> RecordBody {
    RecordBody::Object(ObjectRecord {
        id: id.into(),
        attributes: [
            ("byte_length".to_owned(), json!(8)),
            ("hex".to_owned(), json!("0a0b")),
        ]
        .into(),
        sensitive_paths: vec!["hex".into()],
    })
}

#[tokio::test]
async fn record_backed_instances_are_their_records() {
    let records = vec![
        record(N::Records, "random_id.suffix", random_record("CgsM")),
        record(N::Records, "random_id.gone", random_record("AAAA")),
    ];
    let declared = declare(vec![bare("random_id.suffix"), bare("random_id.fresh")]);
    let p = run_with(&cloud(vec![]), &declared, records)
        .await
        .projection;
    let object = p
        .instance(&a("random_id.suffix"))
        .unwrap()
        .binding
        .object()
        .unwrap()
        .clone();
    assert_eq!(object.id, "CgsM");
    assert!(object.attributes["hex"].is_sensitive());
    assert_eq!(
        p.instance(&a("random_id.fresh")).unwrap().binding,
        Binding::Create
    );
    assert_eq!(p.owned_undeclared.len(), 1);
    // Its block is gone and a declared block of the type has an unbound instance and no live member.
    assert_eq!(
        (
            p.owned_undeclared[0].id.as_str(),
            p.owned_undeclared[0].action
        ),
        ("AAAA", UndeclaredAction::WithheldForRename)
    );
    assert_eq!(
        (&p.rename_hints[0].from, &p.rename_hints[0].to),
        (
            &a("random_id.gone"),
            &RenameTarget::One(a("random_id.fresh"))
        )
    );
    assert_eq!(p.cost.api_calls_by_operation.get("ec2:DescribeVpcs"), None);
}

#[tokio::test]
async fn a_deposed_object_is_read_as_deposed_not_as_a_collision() {
    let live = vec![
        res(
            "aws_vpc",
            "vpc-00000001",
            json!({ "cidr_block": "10.0.0.0/16" }),
            &tags_of(&ours("aws_vpc.main")),
        ),
        res(
            "aws_vpc",
            "vpc-00000002",
            json!({ "cidr_block": "10.1.0.0/16" }),
            &tags_of(&ours("aws_vpc.main")),
        ),
    ];
    let deposed = RecordBody::Deposed(DeposedRecord {
        ids: vec!["vpc-00000001".into(), "vpc-00000005".into()],
    });
    let records = vec![record(N::Deposed, "aws_vpc.main", deposed)];
    let p = run_with(&cloud(live), &declare(vec![bare("aws_vpc.main")]), records)
        .await
        .projection;
    assert_eq!(
        bound_id(&p, "aws_vpc.main").as_deref(),
        Some("vpc-00000002")
    );
    let deposed: Vec<(&str, bool)> = p
        .deposed
        .iter()
        .map(|d| (d.id.as_str(), d.present))
        .collect();
    assert_eq!(deposed, [("vpc-00000001", true), ("vpc-00000005", false)]);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
}

#[tokio::test]
async fn a_located_role_no_longer_declared_is_confirmed_and_planned_for_deletion() {
    let live = vec![res(
        "aws_iam_role",
        "old-app",
        json!({ "name": "old-app", "assume_role_policy": "{}" }),
        &tags_of(&ours("aws_iam_role.old")),
    )];
    let located = RecordBody::Located(LocatedRecord {
        id: "old-app".into(),
        identity: [("name".to_owned(), "old-app".to_owned())].into(),
    });
    let records = vec![
        record(N::Located, "aws_iam_role.old", located.clone()),
        record(
            N::Located,
            "aws_iam_role.vanished",
            RecordBody::Located(LocatedRecord {
                id: "vanished".into(),
                identity: Default::default(),
            }),
        ),
    ];
    let p = run_with(&cloud(live), &declare(vec![]), records)
        .await
        .projection;
    assert_eq!(p.owned_undeclared.len(), 1);
    let o = &p.owned_undeclared[0];
    assert_eq!(
        (o.address.to_string().as_str(), o.id.as_str()),
        ("aws_iam_role.old", "old-app")
    );
    assert_eq!(o.reason, Removal::NoLongerDeclared);
    assert_eq!(p.cost.api_calls_by_operation["iam:GetRole"], 2);
}
