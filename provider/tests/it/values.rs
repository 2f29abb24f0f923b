//! Values: display as Terraform users read it, JSON round trips, unknown and sensitive propagation.

use std::collections::{BTreeMap, BTreeSet};

use expect_test::{Expect, expect};
use proptest::prelude::*;
use provider::value::{Number, PathStep, Type, Value, ValuePath};
use serde_json::json;

fn check_display(v: &Value, compact: Expect, pretty: Expect) {
    compact.assert_eq(&v.to_string());
    pretty.assert_eq(&format!("{v:#}"));
}

fn sample() -> Value {
    Value::map([
        ("cidr_block", Value::from("10.42.0.0/16")),
        ("enable_dns_support", Value::from(true)),
        ("ports", Value::list([Value::from(80), Value::from(443)])),
        (
            "tags",
            Value::map([("Name", "main"), ("cost center", "ops")]),
        ),
        ("arn", Value::unknown()),
        ("secret", Value::from("hunter2").sensitive()),
        ("ratio", Value::number_f64(0.25).unwrap()),
        ("nothing", Value::Null),
    ])
}

#[test]
fn values_display_compact_and_pretty() {
    check_display(
        &sample(),
        expect![[
            r#"{ arn = (known after apply), cidr_block = "10.42.0.0/16", enable_dns_support = true, nothing = null, ports = [80, 443], ratio = 0.25, secret = (sensitive value), tags = { Name = "main", "cost center" = "ops" } }"#
        ]],
        expect![[r#"
            {
              arn                = (known after apply)
              cidr_block         = "10.42.0.0/16"
              enable_dns_support = true
              nothing            = null
              ports              = [
                80,
                443,
              ]
              ratio              = 0.25
              secret             = (sensitive value)
              tags               = {
                Name          = "main"
                "cost center" = "ops"
              }
            }"#]],
    );
}

#[test]
fn values_display_strings_with_escapes_and_empty_collections() {
    check_display(
        &Value::list([Value::from("a\"b\\c\n"), Value::from("${x} %{y} $$")]),
        expect![[r#"["a\"b\\c\n", "$${x} %%{y} $$"]"#]],
        expect![[r#"
            [
              "a\"b\\c\n",
              "$${x} %%{y} $$",
            ]"#]],
    );
    check_display(&Value::empty_map(), expect!["{}"], expect!["{}"]);
    check_display(&Value::List(vec![]), expect!["[]"], expect!["[]"]);
}

#[test]
fn numbers_normalize_and_print_like_terraform() {
    // Floats beyond i64 print in full, which reads back to the same number.
    let cases: &[(f64, &str)] = &[
        (2.0, "2"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1.5e-7, "0.00000015"),
        (1e21, "1000000000000000000000"),
    ];
    for (f, want) in cases {
        assert_eq!(Number::from_f64(*f).unwrap().to_string(), *want, "for {f}");
    }
    assert_eq!(Number::from_f64(2.0), Some(Number::from(2)));
    assert_eq!(Number::from_f64(f64::NAN), None);
    assert_eq!(Number::from_f64(f64::INFINITY), None);
    assert_eq!(
        Value::number_f64(f64::NAN),
        Err(provider::ValueError::NonFiniteNumber)
    );
    assert!(Number::from(9) < Number::from(10));
    assert!(Number::from_f64(9.5).unwrap() < Number::from(10));
    assert_eq!(
        Number::from(5).checked_div(&Number::from(2)),
        Number::from_f64(2.5)
    );
    assert_eq!(
        Number::from(6).checked_div(&Number::from(3)),
        Some(Number::from(2))
    );
    assert_eq!(Number::from(1).checked_div(&Number::from(0)), None);
    assert_eq!(
        Number::from(-7).checked_rem(&Number::from(3)),
        Some(Number::from(-1))
    );
    assert_eq!(
        Number::from(i64::MAX)
            .checked_add(&Number::from(1))
            .map(|n| n.is_integer()),
        Some(true)
    );
    assert_eq!("10".parse::<Number>(), Ok(Number::from(10)));
    assert_eq!(
        "-2.5".parse::<Number>(),
        Ok(Number::from_f64(-2.5).unwrap())
    );
    assert_eq!("1e3".parse::<Number>(), Ok(Number::from(1000)));
    for bad in [
        "ten", "", " 5", "--1", "0x10", "1e", ".", "Inf", "NaN", "1_000",
    ] {
        assert_eq!(
            bad.parse::<Number>(),
            Err(provider::ValueError::InvalidNumber {
                text: bad.to_owned()
            }),
            "{bad:?}"
        );
    }
}

#[test]
fn known_values_round_trip_through_json() {
    let text = r#"{"a":[1,2.5,"x",null,true],"b":{"c":{}},"big":18446744073709551615,"neg":-3}"#;
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v.get("neg"), Some(&Value::from(-3)));
    assert_eq!(
        v.get("a").and_then(|a| a.as_list()).map(<[Value]>::len),
        Some(5)
    );
    // Integers past i64 stay exact within u64.
    let back = serde_json::to_string(&v).unwrap();
    assert_eq!(back, text);
    assert_eq!(
        Value::from_json(json!({"k": [1, "2"]})),
        Value::map([("k", Value::list([Value::from(1), Value::from("2")]))])
    );
    assert_eq!(
        Value::from_json(json!({"k": 1})).to_json().unwrap(),
        json!({"k": 1})
    );
}

#[test]
fn unknown_values_refuse_json_and_list_their_paths() {
    let v = sample();
    assert!(!v.is_known());
    assert!(!v.is_unknown());
    assert!(v.get("arn").unwrap().is_unknown());
    assert_eq!(
        v.to_json(),
        Err(provider::ValueError::UnknownValue {
            path: "arn".to_owned()
        })
    );
    assert!(serde_json::to_string(&v).is_err());
    let nested = Value::map([
        ("id", Value::unknown()),
        (
            "tags",
            Value::map([
                ("Owner", Value::unknown_of(Type::String)),
                ("x.y", Value::unknown()),
            ]),
        ),
        ("list", Value::list([Value::from(1), Value::unknown()])),
    ]);
    let paths: Vec<String> = nested
        .unknown_paths()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(paths, ["id", "list.1", "tags.Owner", r#"tags["x.y"]"#]);
    assert_eq!(Value::unknown().unknown_paths(), vec![ValuePath::root()]);
}

#[test]
fn plan_json_hides_sensitive_values_and_leaves_out_unknown_attributes() {
    assert_eq!(
        sample().to_plan_json(),
        json!({
            "cidr_block": "10.42.0.0/16",
            "enable_dns_support": true,
            "nothing": null,
            "ports": [80, 443],
            "ratio": 0.25,
            "secret": "(sensitive)",
            "tags": {"Name": "main", "cost center": "ops"}
        })
    );
    assert_eq!(
        Value::list([Value::unknown()]).to_plan_json(),
        json!([null])
    );
}

#[test]
fn sensitive_values_serialize_their_content_for_records() {
    let v = Value::map([("secret", Value::from("hunter2").sensitive())]);
    assert_eq!(v.to_json().unwrap(), json!({"secret": "hunter2"}));
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"secret":"hunter2"}"#
    );
}

#[test]
fn sensitive_marks_come_off_as_paths_and_go_back_on() {
    let v = Value::map([
        ("user", Value::from("alice")),
        ("secret", Value::from("s").sensitive()),
        (
            "nested",
            Value::map([(
                "keys",
                Value::list([Value::from("a"), Value::from("b").sensitive()]),
            )]),
        ),
    ]);
    let (plain, paths) = v.clone().unmark_deep();
    assert!(!plain.contains_sensitive());
    let shown: Vec<String> = paths.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["nested.keys.1", "secret"]);
    // What a record stores (plain JSON plus the paths) rebuilds the marked value exactly.
    let rebuilt = Value::from_json(plain.to_json().unwrap()).mark_paths(&paths);
    assert_eq!(rebuilt, v);
    assert_eq!(
        Value::from("x").sensitive().sensitive(),
        Value::from("x").sensitive()
    );
    assert_eq!(
        Value::from("x").sensitive().unmark(),
        (Value::from("x"), true)
    );
    assert_eq!(Value::from("x").mark_sensitive_if(false), Value::from("x"));
}

#[test]
fn equality_propagates_unknowns_and_marks() {
    let a = Value::from("a");
    assert_eq!(a.equals(&Value::from("a")), Value::Bool(true));
    assert_eq!(a.equals(&Value::from("b")), Value::Bool(false));
    assert_eq!(a.equals(&Value::unknown()), Value::Unknown(Type::Bool));
    assert_eq!(
        a.equals(&Value::from("a").sensitive()),
        Value::Bool(true).sensitive()
    );
    assert_eq!(
        Value::unknown().sensitive().equals(&a),
        Value::Unknown(Type::Bool).sensitive()
    );
    // A known difference decides even when something else is unknown.
    let l1 = Value::list([Value::unknown(), Value::from(1)]);
    assert_eq!(
        l1.equals(&Value::list([Value::from(0), Value::from(2)])),
        Value::Bool(false)
    );
    assert_eq!(
        l1.equals(&Value::list([Value::from(0)])),
        Value::Bool(false)
    );
    assert_eq!(
        l1.equals(&Value::list([Value::from(0), Value::from(1)])),
        Value::Unknown(Type::Bool)
    );
    assert_eq!(Value::from(1).equals(&Value::from("1")), Value::Bool(false));
    // Structural equality sees marks and unknowns; `same_as` compares what apply would compare.
    assert_ne!(Value::from("a").sensitive(), Value::from("a"));
    assert!(Value::from("a").sensitive().same_as(&Value::from("a")));
    assert!(!Value::unknown().same_as(&Value::unknown()));
    assert!(Value::map([("k", 1)]).same_as(&Value::map([("k", 1)])));
    assert!(!Value::map([("k", 1)]).same_as(&Value::map([("j", 1)])));
}

#[test]
fn values_order_deterministically() {
    let mut set = BTreeSet::new();
    for v in [
        Value::from("b"),
        Value::from(10),
        Value::from(9),
        Value::Null,
        Value::from(true),
        Value::from("a"),
    ] {
        set.insert(v);
    }
    let shown: Vec<String> = set.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["null", "true", "9", "10", "\"a\"", "\"b\""]);
    let m = Value::map([("z", 1), ("a", 2), ("m", 3)]);
    assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"a":2,"m":3,"z":1}"#);
}

#[test]
fn value_paths_parse_and_display() {
    let cases = [
        (
            "tags.Name",
            vec![PathStep::Key("tags".into()), PathStep::Key("Name".into())],
        ),
        (
            "ingress.0.cidr",
            vec![
                PathStep::Key("ingress".into()),
                PathStep::Index(0),
                PathStep::Key("cidr".into()),
            ],
        ),
        (
            "ingress[0]",
            vec![PathStep::Key("ingress".into()), PathStep::Index(0)],
        ),
        (
            r#"tags["a.b"]"#,
            vec![PathStep::Key("tags".into()), PathStep::Key("a.b".into())],
        ),
    ];
    for (text, steps) in cases {
        let p: ValuePath = text.parse().unwrap();
        assert_eq!(p, ValuePath(steps), "{text}");
    }
    assert_eq!(
        "ingress[0]".parse::<ValuePath>().unwrap().to_string(),
        "ingress.0"
    );
    assert_eq!(
        r#"tags["a.b"]"#.parse::<ValuePath>().unwrap().to_string(),
        r#"tags["a.b"]"#
    );
    assert_eq!("".parse::<ValuePath>(), Ok(ValuePath::root()));
    for bad in ["a..b", "a[", "a[x]", r#"a["k"#, "a b"] {
        assert!(
            bad.parse::<ValuePath>().is_err(),
            "{bad:?} should be refused"
        );
    }
    let v = Value::map([("tags", Value::map([("a.b", "x")]))]);
    assert_eq!(
        v.at(&r#"tags["a.b"]"#.parse().unwrap()),
        Some(&Value::from("x"))
    );
    assert_eq!(v.at(&"tags.zzz".parse().unwrap()), None);
}

#[test]
fn types_display_as_constraints() {
    let t = Type::Object(
        [
            ("name".to_owned(), Type::String),
            ("ports".to_owned(), Type::List(Box::new(Type::Number))),
        ]
        .into_iter()
        .collect(),
    );
    assert_eq!(t.to_string(), "object({name=string,ports=list(number)})");
    assert_eq!(Type::Map(Box::new(Type::Any)).to_string(), "map(any)");
    assert_eq!(Value::from("x").sensitive().type_of(), Type::String);
}

#[test]
fn tag_maps_convert_both_ways() {
    let tags: BTreeMap<String, String> = [("Name".to_owned(), "main".to_owned())].into();
    let v = Value::from(tags.clone());
    assert_eq!(v.to_string(), r#"{ Name = "main" }"#);
    assert_eq!(v.as_string_map(), Some(tags));
    assert_eq!(Value::map([("n", 1)]).as_string_map(), None);
    assert_eq!(Value::map([("k", Value::unknown())]).as_string_map(), None);
    assert_eq!(
        Value::map([("k", Value::from("s").sensitive())])
            .as_string_map()
            .map(|m| m.len()),
        Some(1)
    );
}

fn known_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e300f64..1e300).prop_map(|f| Value::number_f64(f).unwrap()),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::List),
            prop::collection::btree_map(any::<String>(), inner, 0..4).prop_map(Value::Map),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn known_values_survive_json(v in known_value()) {
        let text = serde_json::to_string(&v).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(Value::from_json(v.to_json().unwrap()), v.clone());
        prop_assert!(back.same_as(&v));
        prop_assert_eq!(v.equals(&back), Value::Bool(true));
    }
}

#[test]
fn types_unify_as_cty_unifies_them() {
    use provider::value::unify_types;
    use std::collections::BTreeMap;
    let s = || Type::String;
    let obj = |k: &str, t: Type| Type::Object(BTreeMap::from([(k.to_owned(), t)]));
    // Number and string give string; `any` (a literal null) yields to the other.
    assert_eq!(unify_types(&[Type::Number, s()]), Some(s()));
    assert_eq!(unify_types(&[Type::Any, Type::Bool]), Some(Type::Bool));
    // cty has no conversion between number and bool.
    assert_eq!(unify_types(&[Type::Number, Type::Bool]), None);
    // Objects with different attributes unify into a map of the unified attribute types.
    assert_eq!(
        unify_types(&[obj("a", Type::Number), obj("b", s())]),
        Some(Type::Map(Box::new(s())))
    );
    assert_eq!(
        unify_types(&[obj("a", Type::Number), obj("a", s())]),
        Some(obj("a", s()))
    );
    // Tuples of different lengths unify into a list.
    assert_eq!(
        unify_types(&[Type::Tuple(vec![s()]), Type::Tuple(vec![])]),
        Some(Type::List(Box::new(s())))
    );
    // A primitive and a collection never unify, nor an object and a tuple.
    assert_eq!(unify_types(&[s(), Type::Tuple(vec![])]), None);
    assert_eq!(unify_types(&[obj("a", s()), Type::Tuple(vec![s()])]), None);
}
