//! Over random live sets, foreign, malformed and other estates' objects are never bound as owned and
//! never offered for deletion.

use std::collections::BTreeSet;

use projection::{Binding, Declared, DeclaredInstance, DeclaredValue};
use proptest::prelude::*;
use serde_json::json;

use crate::support::*;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Ours(u8),
    Foreign,
    OtherEstate(u8),
    GappedChain(u8),
    OtherType(u8),
    EstateOnly,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        (0u8..5).prop_map(Kind::Ours),
        Just(Kind::Foreign),
        (0u8..5).prop_map(Kind::OtherEstate),
        (0u8..5).prop_map(Kind::GappedChain),
        (0u8..5).prop_map(Kind::OtherType),
        Just(Kind::EstateOnly),
    ]
}

fn tags(kind: Kind, type_name: &str) -> Vec<(&'static str, String)> {
    match kind {
        Kind::Ours(i) => ours(&format!("{type_name}.v{i}")),
        Kind::Foreign => vec![("Name", "hand-made".to_owned())],
        Kind::OtherEstate(i) => vec![
            ("tofu-estate", "billing".to_owned()),
            ("tofu-address", format!("{type_name}.v{i}")),
        ],
        Kind::GappedChain(i) => {
            let mut t = ours(&format!("{type_name}.v{i}"));
            t.push(("tofu-address-3", "tail".to_owned()));
            t
        }
        Kind::OtherType(i) => ours(&format!("aws_subnet.v{i}")),
        Kind::EstateOnly => vec![("tofu-estate", ESTATE.to_owned())],
    }
}

fn protected(kind: Kind, client_named: bool) -> bool {
    match kind {
        Kind::Ours(_) => false,
        // At a declared client-named identity, our estate tag alone binds (the address is repaired).
        Kind::EstateOnly => !client_named,
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn never_binds_or_deletes_what_this_estate_does_not_own(
        vpcs in proptest::collection::vec(kind(), 0..7),
        buckets in proptest::collection::vec(kind(), 0..5),
        declared_vpcs in proptest::collection::btree_set(0u8..5, 0..5),
        declared_buckets in proptest::collection::btree_set(0u8..5, 0..5),
    ) {
        let mut live = Vec::new();
        let mut protected_ids = BTreeSet::new();
        for (n, k) in vpcs.iter().enumerate() {
            let id = format!("vpc-{:08x}", n + 1);
            live.push(res("aws_vpc", &id, json!({ "cidr_block": "10.0.0.0/16" }), &tags_of(&tags(*k, "aws_vpc"))));
            if protected(*k, false) {
                protected_ids.insert(id);
            }
        }
        for (n, k) in buckets.iter().enumerate() {
            let id = format!("bkt-{n}");
            live.push(res("aws_s3_bucket", &id, json!({ "bucket": id }), &tags_of(&tags(*k, "aws_s3_bucket"))));
            if protected(*k, declared_buckets.contains(&(n as u8))) {
                protected_ids.insert(id);
            }
        }
        let mut declared = Declared::new();
        for i in &declared_vpcs {
            declared.add(DeclaredInstance::new(a(&format!("aws_vpc.v{i}")))
                .bind_value("cidr_block", DeclaredValue::known("10.0.0.0/16"))).unwrap();
        }
        for i in &declared_buckets {
            declared.add(named(&format!("aws_s3_bucket.b{i}"), "bucket", &format!("bkt-{i}"))).unwrap();
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let p = runtime.block_on(run(&cloud(live), &declared));
        for state in p.instances.values() {
            if let Binding::Bound { object, .. } = &state.binding {
                prop_assert!(!protected_ids.contains(&object.id), "{} bound to {}", state.address, object.id);
                prop_assert_eq!(object.tag("tofu-estate"), Some(ESTATE));
            }
        }
        for o in &p.owned_undeclared {
            prop_assert!(!protected_ids.contains(&o.id), "{} offered for deletion", o.id);
        }
        for c in &p.bind_candidates {
            prop_assert!(p.foreign.iter().any(|f| f.id == c.id), "candidate {} is not foreign", c.id);
        }
    }
}
