//! Path 2: marker-path instances bound by escaped address from one unfiltered listing per type.

use projection::{Binding, Removal, RenameTarget, UndeclaredAction, Withheld};
use serde_json::json;

use crate::support::*;

fn vpc(id: &str, cidr: &str, tags: &[(&str, &str)]) -> serde_json::Value {
    res("aws_vpc", id, json!({ "cidr_block": cidr }), tags)
}

fn subnet(id: &str, cidr: &str, tags: &[(&str, &str)]) -> serde_json::Value {
    res(
        "aws_subnet",
        id,
        json!({ "vpc_id": "vpc-00000001", "cidr_block": cidr }),
        tags,
    )
}

fn main_vpc() -> projection::DeclaredInstance {
    bare("aws_vpc.main").bind_value(
        "cidr_block",
        projection::DeclaredValue::known("10.0.0.0/16"),
    )
}

#[tokio::test]
async fn owned_foreign_and_other_estate_objects_are_told_apart() {
    let cloud = cloud(vec![
        vpc(
            "vpc-00000001",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
        vpc("vpc-00000002", "172.31.0.0/16", &[("Name", "legacy")]),
        vpc(
            "vpc-00000003",
            "10.9.0.0/16",
            &[("tofu-estate", "billing"), ("tofu-address", "aws_vpc.main")],
        ),
    ]);
    let p = run(&cloud, &declare(vec![main_vpc()])).await;
    assert_eq!(
        bound_id(&p, "aws_vpc.main").as_deref(),
        Some("vpc-00000001")
    );
    let foreign: Vec<&str> = p.foreign.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(foreign, ["vpc-00000002"]);
    assert_eq!(p.foreign[0].tags["Name"], "legacy");
    assert_eq!(p.other_estates["billing"], 1);
    assert!(p.bind_candidates.is_empty());
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
}

#[tokio::test]
async fn two_objects_claiming_one_address_collide_and_neither_is_bound() {
    let cloud = cloud(vec![
        vpc(
            "vpc-00000001",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
        vpc(
            "vpc-00000002",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
    ]);
    let p = run(&cloud, &declare(vec![main_vpc()])).await;
    assert_eq!(
        p.instance(&a("aws_vpc.main")).unwrap().binding,
        Binding::Withheld(Withheld::Collision)
    );
    assert_eq!(
        codes(&p),
        [diag(
            "marker-collision",
            Some("aws_vpc.main"),
            &["vpc-00000001", "vpc-00000002"]
        )]
    );
    assert!(p.owned_undeclared.is_empty());
}

#[tokio::test]
async fn malformed_markers_in_a_listing_are_named_and_never_bound_or_deleted() {
    let cloud = cloud(vec![
        vpc("vpc-00000001", "10.0.0.0/16", &[("tofu-estate", ESTATE)]),
        vpc(
            "vpc-00000002",
            "10.1.0.0/16",
            &[("tofu-estate", ESTATE), ("tofu-address", "aws_subnet.main")],
        ),
    ]);
    let p = run(&cloud, &declare(vec![main_vpc()])).await;
    assert_eq!(
        p.instance(&a("aws_vpc.main")).unwrap().binding,
        Binding::Create
    );
    assert_eq!(
        codes(&p),
        [
            diag("malformed-marker", None, &["vpc-00000001"]),
            diag("malformed-marker", None, &["vpc-00000002"]),
        ]
    );
    assert!(p.owned_undeclared.is_empty() && p.foreign.is_empty());
}

#[tokio::test]
async fn a_foreign_twin_is_offered_for_adoption_and_the_create_still_stands() {
    let cloud = cloud(vec![vpc(
        "vpc-00000007",
        "10.0.0.0/16",
        &[("Name", "hand-made")],
    )]);
    let p = run(&cloud, &declare(vec![main_vpc()])).await;
    assert_eq!(
        p.instance(&a("aws_vpc.main")).unwrap().binding,
        Binding::Create
    );
    assert_eq!(p.bind_candidates.len(), 1);
    let c = &p.bind_candidates[0];
    assert_eq!(
        (c.address.to_string().as_str(), c.id.as_str()),
        ("aws_vpc.main", "vpc-00000007")
    );
    assert_eq!(c.matched["cidr_block"], "10.0.0.0/16");
    assert_eq!(p.foreign.len(), 1, "a candidate stays foreign");
}

#[tokio::test]
async fn two_foreign_twins_for_one_instance_are_ambiguous_candidates() {
    let cloud = cloud(vec![
        vpc("vpc-00000007", "10.0.0.0/16", &[]),
        vpc("vpc-00000008", "10.0.0.0/16", &[]),
    ]);
    let p = run(&cloud, &declare(vec![main_vpc()])).await;
    assert!(p.bind_candidates.is_empty());
    assert_eq!(
        codes(&p),
        [diag(
            "ambiguous-candidates",
            Some("aws_vpc.main"),
            &["vpc-00000007", "vpc-00000008"]
        )]
    );
    assert_eq!(p.foreign.len(), 2);
}

#[tokio::test]
async fn an_owned_object_no_longer_declared_is_planned_for_deletion() {
    let cloud = cloud(vec![
        vpc(
            "vpc-00000001",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
        subnet(
            "subnet-00000003",
            "10.0.3.0/24",
            &tags_of(&ours("aws_subnet.gone")),
        ),
    ]);
    let p = run(&cloud, &declare(vec![main_vpc()])).await;
    assert_eq!(p.owned_undeclared.len(), 1);
    let gone = &p.owned_undeclared[0];
    assert_eq!(
        (
            gone.address.to_string(),
            gone.id.as_str(),
            &gone.reason,
            gone.action
        ),
        (
            "aws_subnet.gone".to_owned(),
            "subnet-00000003",
            &Removal::NoLongerDeclared,
            UndeclaredAction::Delete
        )
    );
    assert!(p.rename_hints.is_empty());
    assert_eq!(
        p.cost.api_calls_by_operation["ec2:DescribeSubnets"], 1,
        "confirmed by a read"
    );
}

#[tokio::test]
async fn a_plausible_rename_is_withheld_and_hinted_with_its_one_target() {
    let cloud = cloud(vec![
        vpc(
            "vpc-00000001",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
        subnet(
            "subnet-00000004",
            "10.0.4.0/24",
            &tags_of(&ours("aws_subnet.this:b")),
        ),
    ]);
    let declared = declare(vec![main_vpc(), bare(r#"aws_subnet.this["c"]"#)]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        p.owned_undeclared[0].action,
        UndeclaredAction::WithheldForRename
    );
    assert_eq!(p.rename_hints.len(), 1);
    let hint = &p.rename_hints[0];
    assert_eq!(hint.from, a(r#"aws_subnet.this["b"]"#));
    assert_eq!(hint.to, RenameTarget::One(a(r#"aws_subnet.this["c"]"#)));
    assert_eq!(hint.id, "subnet-00000004");
    assert_eq!(
        p.instance(&a(r#"aws_subnet.this["c"]"#)).unwrap().binding,
        Binding::Create
    );
}

#[tokio::test]
async fn two_orphans_for_one_unbound_instance_are_an_ambiguous_rename_without_command() {
    let cloud = cloud(vec![
        vpc(
            "vpc-00000001",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
        subnet(
            "subnet-00000004",
            "10.0.4.0/24",
            &tags_of(&ours("aws_subnet.this:a")),
        ),
        subnet(
            "subnet-00000005",
            "10.0.5.0/24",
            &tags_of(&ours("aws_subnet.this:b")),
        ),
    ]);
    let declared = declare(vec![main_vpc(), bare(r#"aws_subnet.this["c"]"#)]);
    let p = run(&cloud, &declared).await;
    assert_eq!(p.rename_hints.len(), 2);
    assert!(
        p.rename_hints
            .iter()
            .all(|h| h.to == RenameTarget::Ambiguous(vec![a(r#"aws_subnet.this["c"]"#)]))
    );
    assert!(
        p.owned_undeclared
            .iter()
            .all(|o| o.action == UndeclaredAction::WithheldForRename)
    );
}

#[tokio::test]
async fn for_each_keys_bind_under_the_current_and_the_legacy_grammars() {
    let cloud = cloud(vec![
        vpc(
            "vpc-00000001",
            "10.0.0.0/16",
            &tags_of(&ours("aws_vpc.main")),
        ),
        subnet(
            "subnet-00000001",
            "10.0.1.0/24",
            &tags_of(&ours("aws_subnet.this:alice@dsmith")),
        ),
        subnet(
            "subnet-00000002",
            "10.0.2.0/24",
            &tags_of(&ours("aws_subnet.this:a.b")),
        ),
    ]);
    let declared = declare(vec![
        main_vpc(),
        bare(r#"aws_subnet.this["alice.smith"]"#),
        bare(r#"aws_subnet.this["a.b"]"#),
    ]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        bound_id(&p, r#"aws_subnet.this["alice.smith"]"#).as_deref(),
        Some("subnet-00000001")
    );
    assert_eq!(
        bound_id(&p, r#"aws_subnet.this["a.b"]"#).as_deref(),
        Some("subnet-00000002")
    );
    assert!(p.owned_undeclared.is_empty());
}
