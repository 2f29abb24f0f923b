//! A `tofu-slot` outside the slot grammar (`007`, `-1`, `1.0`, `abc`, 11 digits) on an object of this
//! estate: `malformed-slot` naming the object, and the object is neither bound nor planned for deletion,
//! whatever its block's admission path and whether or not its address is still declared.

use projection::{Binding, Declared, Projection, Withheld};
use serde_json::json;

use crate::support::*;

/// This estate's markers for `escaped`, with the slot tag `slot`.
fn slotted(escaped: &str, slot: &str) -> Vec<(&'static str, String)> {
    let mut tags = ours(escaped);
    tags.push(("tofu-slot", slot.to_owned()));
    tags
}

fn bucket(id: &str, tags: &[(&'static str, String)]) -> serde_json::Value {
    res("aws_s3_bucket", id, json!({ "bucket": id }), &tags_of(tags))
}

fn vpc(id: &str, tags: &[(&'static str, String)]) -> serde_json::Value {
    res(
        "aws_vpc",
        id,
        json!({ "cidr_block": "10.0.0.0/16" }),
        &tags_of(tags),
    )
}

/// The ids of the objects the projection would destroy.
fn destroyed(p: &Projection) -> Vec<String> {
    p.owned_undeclared.iter().map(|o| o.id.clone()).collect()
}

/// Asserts the projection reports exactly `id` (claiming or found for `address`) as `malformed-slot`
/// and destroys nothing.
fn kept_with_malformed_slot(p: &Projection, address: &str, id: &str) {
    assert_eq!(codes(p), [diag("malformed-slot", Some(address), &[id])]);
    assert_eq!(destroyed(p), Vec::<String>::new());
}

#[tokio::test]
async fn malformed_slot_in_a_client_named_count_set_is_reported_never_destroyed() {
    let cloud = cloud(vec![
        bucket("acme-logs-0", &slotted("aws_s3_bucket.logs:0", "0")),
        bucket("acme-logs-1", &slotted("aws_s3_bucket.logs:1", "1")),
        bucket("acme-other", &slotted("aws_s3_bucket.logs:5", "007")),
    ]);
    let declared = declare(vec![
        named("aws_s3_bucket.logs[0]", "bucket", "acme-logs-0"),
        named("aws_s3_bucket.logs[1]", "bucket", "acme-logs-1"),
    ]);
    let p = run(&cloud, &declared).await;
    kept_with_malformed_slot(&p, "aws_s3_bucket.logs[5]", "acme-other");
    assert_eq!(
        p.diagnostics[0].summary,
        "aws_s3_bucket acme-other carries this estate's markers but a malformed slot \"007\": it has \
         a leading zero"
    );
    assert_eq!(
        bound_id(&p, "aws_s3_bucket.logs[1]").as_deref(),
        Some("acme-logs-1")
    );
}

#[tokio::test]
async fn malformed_slot_on_an_undeclared_address_of_a_listed_type_is_never_destroyed() {
    for slot in ["-1", "1.0", "abc", "42949672950"] {
        let cloud = cloud(vec![
            vpc("vpc-00000001", &ours("aws_vpc.main")),
            vpc("vpc-00000002", &slotted("aws_vpc.gone", slot)),
        ]);
        let p = run(&cloud, &declare(vec![bare("aws_vpc.main")])).await;
        kept_with_malformed_slot(&p, "aws_vpc.gone", "vpc-00000002");
        assert_eq!(
            bound_id(&p, "aws_vpc.main").as_deref(),
            Some("vpc-00000001")
        );
    }
}

#[tokio::test]
async fn malformed_slot_found_only_by_the_tagging_sweep_is_never_destroyed() {
    // Nothing of the type is declared: only the sweep (and its confirming read) finds the objects.
    let cloud = cloud(vec![
        res(
            "aws_eip",
            "eipalloc-00000001",
            json!({}),
            &tags_of(&slotted("aws_eip.e:0", "007")),
        ),
        bucket("acme-zz", &slotted("aws_s3_bucket.b:zz", "-1")),
    ]);
    let p = run(&cloud, &Declared::new()).await;
    assert_eq!(
        codes(&p),
        [
            diag(
                "malformed-slot",
                Some("aws_eip.e[0]"),
                &["eipalloc-00000001"]
            ),
            diag(
                "malformed-slot",
                Some("aws_s3_bucket.b[\"zz\"]"),
                &["acme-zz"]
            ),
        ]
    );
    assert_eq!(destroyed(&p), Vec::<String>::new());
}

#[tokio::test]
async fn malformed_slot_on_a_declared_instance_outside_a_count_set_withholds_it() {
    let cloud = cloud(vec![
        vpc("vpc-00000001", &slotted("aws_vpc.main", "abc")),
        bucket("acme-data", &slotted("aws_s3_bucket.data", "007")),
    ]);
    let declared = declare(vec![
        bare("aws_vpc.main"),
        named("aws_s3_bucket.data", "bucket", "acme-data"),
    ]);
    let p = run(&cloud, &declared).await;
    assert_eq!(
        codes(&p),
        [
            diag("malformed-slot", Some("aws_s3_bucket.data"), &["acme-data"]),
            diag("malformed-slot", Some("aws_vpc.main"), &["vpc-00000001"]),
        ]
    );
    for address in ["aws_vpc.main", "aws_s3_bucket.data"] {
        assert_eq!(
            p.instance(&a(address)).unwrap().binding,
            Binding::Withheld(Withheld::MalformedMarker),
            "{address}"
        );
    }
    assert_eq!(destroyed(&p), Vec::<String>::new());
}
