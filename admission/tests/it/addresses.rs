//! Resource addresses: parse and display round trips, refusals, order.

use admission::{BlockAddress, InstanceAddress, InstanceKey};
use proptest::prelude::*;

#[test]
fn addresses_parse_into_parts_and_display_back() {
    let cases: &[(&str, &str, &str, InstanceKey)] = &[
        ("aws_vpc.main", "aws_vpc", "main", InstanceKey::None),
        ("aws_eip.pool[2]", "aws_eip", "pool", InstanceKey::Int(2)),
        ("aws_eip.pool[0]", "aws_eip", "pool", InstanceKey::Int(0)),
        (
            r#"aws_subnet.this["a"]"#,
            "aws_subnet",
            "this",
            InstanceKey::Str("a".into()),
        ),
        (
            r#"aws_subnet.this["10.0.0.0/24"]"#,
            "aws_subnet",
            "this",
            InstanceKey::Str("10.0.0.0/24".into()),
        ),
        (
            r#"aws_iam_user.u["alice smith"]"#,
            "aws_iam_user",
            "u",
            InstanceKey::Str("alice smith".into()),
        ),
        (
            r#"aws_iam_user.u["ünï"]"#,
            "aws_iam_user",
            "u",
            InstanceKey::Str("ünï".into()),
        ),
        (
            r#"aws_iam_user.u[""]"#,
            "aws_iam_user",
            "u",
            InstanceKey::Str(String::new()),
        ),
        (
            r#"aws_iam_user.u["q\"b\\s"]"#,
            "aws_iam_user",
            "u",
            InstanceKey::Str("q\"b\\s".into()),
        ),
        ("random_id.x-1_y", "random_id", "x-1_y", InstanceKey::None),
        ("_t._n", "_t", "_n", InstanceKey::None),
    ];
    for (text, ty, name, key) in cases {
        let a: InstanceAddress = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(a.type_name(), *ty);
        assert_eq!(a.block().name(), *name);
        assert_eq!(a.key(), key);
        assert_eq!(a.to_string(), *text);
    }
}

#[test]
fn malformed_addresses_are_refused_with_a_reason() {
    let cases: &[(&str, &str)] = &[
        ("", "expected TYPE.NAME"),
        ("aws_vpc", "expected TYPE.NAME"),
        ("aws_vpc.", "the resource name is empty"),
        (".main", "the resource type is empty"),
        ("aws_vpc.main.extra", "expected TYPE.NAME with one dot"),
        (
            "aws_vpc.1main",
            "the resource name \"1main\" is not an identifier",
        ),
        (
            "aws vpc.main",
            "the resource type \"aws vpc\" is not an identifier",
        ),
        ("aws_vpc.main[", "expected ]"),
        (
            "aws_vpc.main[]",
            "an index is digits, a key is a quoted string",
        ),
        (
            "aws_vpc.main[-1]",
            "an index is digits, a key is a quoted string",
        ),
        (
            "aws_vpc.main[a]",
            "an index is digits, a key is a quoted string",
        ),
        ("aws_vpc.main[01]", "an index has no leading zeros"),
        (
            "aws_vpc.main[99999999999999999999]",
            "the index is too large",
        ),
        (
            r#"aws_vpc.main["a"#,
            "the key string is not closed or has a bad escape",
        ),
        (
            r#"aws_vpc.main["a\q"]"#,
            "the key string is not closed or has a bad escape",
        ),
        (
            r#"aws_vpc.main["a"]x"#,
            "unexpected text after the instance key",
        ),
        (r#"aws_vpc.main["a"x]"#, "expected ] after the instance key"),
        (
            "aws_vpc.main[1][2]",
            "unexpected text after the instance key",
        ),
        ("module.net", "a module address names no resource"),
        ("module.net.module", "a module address names no resource"),
        (
            "module.1net.aws_vpc.main",
            "the module name \"1net\" is not an identifier",
        ),
        (
            r#"module.net["a"]aws_vpc.main"#,
            "expected . after the module instance",
        ),
        (
            "module.net[01].aws_vpc.main",
            "an index has no leading zeros",
        ),
        (
            "data.aws_vpc.main",
            "data sources have no instance address here",
        ),
    ];
    for (text, reason) in cases {
        match text.parse::<InstanceAddress>() {
            Ok(a) => panic!("{text:?} parsed as {a}"),
            Err(admission::Error::InvalidAddress { input, reason: got }) => {
                assert_eq!(input, *text);
                assert_eq!(got, *reason, "for {text:?}");
            }
            Err(other) => panic!("{text:?}: unexpected error {other}"),
        }
    }
    let err = "aws_vpc".parse::<InstanceAddress>().unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid resource address "aws_vpc": expected TYPE.NAME"#
    );
}

#[test]
fn block_addresses_have_no_key() {
    let b: BlockAddress = "aws_subnet.this".parse().unwrap();
    assert_eq!(b.to_string(), "aws_subnet.this");
    assert_eq!(
        b.instance(InstanceKey::Int(3)).to_string(),
        "aws_subnet.this[3]"
    );
    assert!("aws_subnet.this[3]".parse::<BlockAddress>().is_err());
    assert!(BlockAddress::new("aws_subnet", "th is").is_err());
    assert!(BlockAddress::new("module", "x").is_err());
}

#[test]
fn addresses_order_by_type_name_then_key_numerically() {
    let mut v: Vec<InstanceAddress> = [
        r#"aws_subnet.this["b"]"#,
        "aws_subnet.this[10]",
        "aws_vpc.main",
        "aws_subnet.this[9]",
        "aws_subnet.a",
        r#"aws_subnet.this["a"]"#,
        "aws_subnet.this",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    v.sort();
    let shown: Vec<String> = v.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "aws_subnet.a",
            "aws_subnet.this",
            "aws_subnet.this[9]",
            "aws_subnet.this[10]",
            r#"aws_subnet.this["a"]"#,
            r#"aws_subnet.this["b"]"#,
            "aws_vpc.main"
        ]
    );
}

#[test]
fn addresses_serialize_as_their_text() {
    let a: InstanceAddress = r#"aws_subnet.this["a"]"#.parse().unwrap();
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, r#""aws_subnet.this[\"a\"]""#);
    assert_eq!(serde_json::from_str::<InstanceAddress>(&json).unwrap(), a);
    assert!(serde_json::from_str::<InstanceAddress>(r#""nope""#).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn display_then_parse_is_identity(
        ty in "[a-z_][a-z0-9_]{0,12}",
        name in "[A-Za-z_][A-Za-z0-9_-]{0,12}",
        key in prop_oneof![
            Just(InstanceKey::None),
            any::<u64>().prop_map(InstanceKey::Int),
            any::<String>().prop_map(InstanceKey::Str),
        ],
    ) {
        prop_assume!(ty != "module" && ty != "data");
        let a = BlockAddress::new(ty, name).unwrap().instance(key);
        let back: InstanceAddress = a.to_string().parse().unwrap();
        prop_assert_eq!(back, a);
    }
}

/// An address's parts as plain values, ordered the way the address type documents.
fn parts(a: &InstanceAddress) -> (String, String, InstanceKey) {
    (
        a.type_name().to_owned(),
        a.block().name().to_owned(),
        a.key().clone(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Two instances of one block share its parts; an address parsed from text has its own. Either way
    /// addresses order, compare and hash by their text parts.
    #[test]
    fn addresses_order_by_their_parts_whether_shared_or_parsed(
        ty in prop_oneof![Just("aws_vpc"), Just("aws_subnet"), Just("aws_s")],
        name in prop_oneof![Just("a"), Just("main"), Just("main2")],
        other_ty in prop_oneof![Just("aws_vpc"), Just("aws_subnet"), Just("aws_s")],
        other_name in prop_oneof![Just("a"), Just("main"), Just("main2")],
        i in 0u64..12,
        j in 0u64..12,
    ) {
        use std::collections::hash_map::DefaultHasher;
        use std::hash::{Hash, Hasher};
        let hash = |a: &InstanceAddress| {
            let mut h = DefaultHasher::new();
            a.hash(&mut h);
            h.finish()
        };
        let block = BlockAddress::new(ty, name).unwrap();
        let shared = [block.instance(InstanceKey::Int(i)), block.instance(InstanceKey::Int(j))];
        let parsed: InstanceAddress = format!("{other_ty}.{other_name}[{j}]").parse().unwrap();
        for (x, y) in [(&shared[0], &shared[1]), (&shared[0], &parsed), (&parsed, &shared[1])] {
            prop_assert_eq!(x.cmp(y), parts(x).cmp(&parts(y)));
            prop_assert_eq!(x.block().cmp(y.block()), (x.type_name(), x.block().name()).cmp(&(y.type_name(), y.block().name())));
            prop_assert_eq!(x == y, parts(x) == parts(y));
            if x == y {
                prop_assert_eq!(hash(x), hash(y));
            }
        }
    }
}

#[test]
fn module_addresses_carry_their_path_and_display_back() {
    type Case<'c> = (&'c str, &'c [(&'c str, InstanceKey)], &'c str, InstanceKey);
    let cases: &[Case<'_>] = &[
        (
            "module.net.aws_vpc.main",
            &[("net", InstanceKey::None)],
            "aws_vpc.main",
            InstanceKey::None,
        ),
        (
            r#"module.net["eu"].aws_subnet.this[0]"#,
            &[("net", InstanceKey::Str("eu".into()))],
            "aws_subnet.this",
            InstanceKey::Int(0),
        ),
        (
            r#"module.app[2].module.db.aws_iam_role.r["a.b:c@d+e"]"#,
            &[("app", InstanceKey::Int(2)), ("db", InstanceKey::None)],
            "aws_iam_role.r",
            InstanceKey::Str("a.b:c@d+e".into()),
        ),
        (
            r#"module.x["k.].y"].aws_vpc.v"#,
            &[("x", InstanceKey::Str("k.].y".into()))],
            "aws_vpc.v",
            InstanceKey::None,
        ),
    ];
    for (text, steps, resource, key) in cases {
        let a: InstanceAddress = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        let got: Vec<(&str, InstanceKey)> = a
            .block()
            .module()
            .steps()
            .iter()
            .map(|s| (&*s.name, s.key.clone()))
            .collect();
        assert_eq!(got, steps.to_vec(), "{text}");
        assert_eq!(format!("{}.{}", a.type_name(), a.block().name()), *resource);
        assert_eq!(a.key(), key);
        assert_eq!(a.to_string(), *text);
    }
}

#[test]
fn module_blocks_sort_after_the_root_and_by_module_path() {
    let mut addresses: Vec<InstanceAddress> = [
        r#"module.net["b"].aws_vpc.a"#,
        "module.net.aws_vpc.a",
        "aws_vpc.z",
        r#"module.net["a"].module.sub.aws_vpc.a"#,
        r#"module.net["a"].aws_vpc.a"#,
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    addresses.sort();
    let shown: Vec<String> = addresses.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "aws_vpc.z",
            "module.net.aws_vpc.a",
            r#"module.net["a"].aws_vpc.a"#,
            r#"module.net["a"].module.sub.aws_vpc.a"#,
            r#"module.net["b"].aws_vpc.a"#,
        ]
    );
}

#[test]
fn a_reference_qualified_by_its_module_names_the_module_block() {
    let block = BlockAddress::from_reference(r#"module.net["eu"].aws_vpc"#, "main").unwrap();
    assert_eq!(block.to_string(), r#"module.net["eu"].aws_vpc.main"#);
    assert_eq!(block.qualified_type(), r#"module.net["eu"].aws_vpc"#);
    let root = BlockAddress::from_reference("aws_vpc", "main").unwrap();
    assert!(root.module().is_root());
    assert_eq!(root.qualified_type(), "aws_vpc");
}
