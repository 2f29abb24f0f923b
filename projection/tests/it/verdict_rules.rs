//! Only an owned object may ever be changed: of the objects at declared identities, the owned one is
//! the only one bound (the only binding that hands the planner an object to update or delete), and no
//! foreign, other estate's or malformed object becomes an owned-undeclared deletion either. On the
//! marker path, a listed object without this estate's marker is only reported, never bound.

use projection::{Binding, UnownedVerdict, Withheld};
use serde_json::json;

use crate::support::*;

fn bucket(id: &str, tags: &[(&str, &str)]) -> serde_json::Value {
    res("aws_s3_bucket", id, json!({ "bucket": id }), tags)
}

fn vpc(id: &str, tags: &[(&str, &str)]) -> serde_json::Value {
    res("aws_vpc", id, json!({ "cidr_block": "10.0.0.0/16" }), tags)
}

#[tokio::test]
async fn only_owned_objects_may_ever_be_changed() {
    let owned = ours("aws_s3_bucket.owned");
    let cloud = cloud(vec![
        bucket("acme-owned", &tags_of(&owned)),
        bucket("acme-adoptable", &[("team", "data")]),
        bucket(
            "acme-in-the-way",
            &[
                ("tofu-estate", "billing"),
                ("tofu-address", "aws_s3_bucket.in_the_way"),
            ],
        ),
        bucket(
            "acme-malformed",
            &[
                ("tofu-estate", ESTATE),
                ("tofu-address", "aws_s3_bucket.malformed"),
                ("tofu-address-3", "x"),
            ],
        ),
        vpc("vpc-00000001", &tags_of(&ours("aws_vpc.main"))),
        vpc("vpc-00000002", &[("Name", "legacy")]),
        vpc(
            "vpc-00000003",
            &[("tofu-estate", "billing"), ("tofu-address", "aws_vpc.main")],
        ),
    ]);
    let declared = declare(vec![
        named("aws_s3_bucket.owned", "bucket", "acme-owned"),
        named("aws_s3_bucket.adoptable", "bucket", "acme-adoptable"),
        named("aws_s3_bucket.in_the_way", "bucket", "acme-in-the-way"),
        named("aws_s3_bucket.malformed", "bucket", "acme-malformed"),
        bare("aws_vpc.main"),
    ]);
    let p = run(&cloud, &declared).await;
    let binding = |address: &str| p.instance(&a(address)).unwrap().binding.clone();
    let bound: Vec<&str> = p
        .instances
        .values()
        .filter_map(|s| s.binding.object())
        .map(|o| o.id.as_str())
        .collect();
    assert_eq!(bound, ["acme-owned", "vpc-00000001"]);
    assert_eq!(
        binding("aws_s3_bucket.adoptable"),
        Binding::Blocked {
            id: "acme-adoptable".into(),
            verdict: UnownedVerdict::Adoptable,
        }
    );
    assert_eq!(
        binding("aws_s3_bucket.in_the_way"),
        Binding::Blocked {
            id: "acme-in-the-way".into(),
            verdict: UnownedVerdict::InTheWay {
                estate: "billing".into()
            },
        }
    );
    assert_eq!(
        binding("aws_s3_bucket.malformed"),
        Binding::Withheld(Withheld::MalformedMarker)
    );
    let foreign: Vec<&str> = p.foreign.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(foreign, ["vpc-00000002"]);
    assert_eq!(p.other_estates["billing"], 1);
    assert!(p.owned_undeclared.is_empty(), "{:?}", p.owned_undeclared);
}
