//! Ownership markers: every example of the marker spec as a table, plus the key round trip as a property.

use std::collections::BTreeMap;

use admission::Error;
use admission::InstanceAddress;
use admission::marker::{
    self, AdoptFacts, AdoptRefusal, BoundMember, CountMember, CountSetError, DeclarationMatch,
    Estate, KeyGrammar, MalformedReason, ObjectAtAddress, Ownership, RenameFacts, RenameRefusal,
    Slot, SlotMarker,
};
use proptest::prelude::*;
use provider::AdmissionPath;

fn addr(s: &str) -> InstanceAddress {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn estate_names_follow_the_grammar() {
    let long_ok = format!("a{}", "b".repeat(127));
    let too_long = format!("a{}", "b".repeat(128));
    for ok in ["a", "prod-1", long_ok.as_str(), "a-", "z9"] {
        assert_eq!(
            Estate::new(ok).map(|e| e.to_string()),
            Ok(ok.to_owned()),
            "{ok:?}"
        );
    }
    let refused: &[(&str, &str)] = &[
        ("Prod", "it must start with a lowercase letter"),
        ("1prod", "it must start with a lowercase letter"),
        (
            "prod_1",
            "it may hold only lowercase letters, digits and hyphens",
        ),
        ("", "it is empty"),
        (too_long.as_str(), "it is longer than 128 characters"),
        ("-a", "it must start with a lowercase letter"),
        (
            "prod 1",
            "it may hold only lowercase letters, digits and hyphens",
        ),
        (
            "prodé",
            "it may hold only lowercase letters, digits and hyphens",
        ),
    ];
    for (name, reason) in refused {
        assert_eq!(
            Estate::new(*name),
            Err(Error::InvalidEstate {
                name: (*name).to_owned(),
                reason: (*reason).to_owned()
            }),
            "{name:?}"
        );
    }
}

#[test]
fn addresses_escape_by_the_marker_rule() {
    let cases = [
        ("aws_vpc.main", "aws_vpc.main"),
        (r#"aws_subnet.this["a"]"#, "aws_subnet.this:a"),
        ("aws_eip.pool[2]", "aws_eip.pool:2"),
        (r#"aws_subnet.this["2"]"#, "aws_subnet.this:2"),
        (
            r#"aws_subnet.this["alice.smith"]"#,
            "aws_subnet.this:alice@dsmith",
        ),
        (
            r#"aws_subnet.this["10.0.0.0/24"]"#,
            "aws_subnet.this:10@d0@d0@d0/24",
        ),
        (r#"aws_subnet.this["a b"]"#, "aws_subnet.this:a b"),
    ];
    for (address, escaped) in cases {
        assert_eq!(
            marker::escape_address(&addr(address)).unwrap(),
            escaped,
            "{address}"
        );
    }
    assert_eq!(
        marker::escape_address_text(r#"module.net["eu"].aws_subnet.this"#),
        "module.net:eu.aws_subnet.this"
    );
    assert_eq!(
        marker::escape_address_text(r#"aws_subnet.this["a"]"#),
        "aws_subnet.this:a"
    );
    let refused = marker::escape_address(&addr(r#"aws_subnet.this["a$b"]"#)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        r#"invalid for_each key "a$b": the key holds '$'"#
    );
}

#[test]
fn for_each_keys_escape_in_two_layers() {
    let cases = [
        ("a(b)", "a+000028b+000029"),
        ("a;b", "a+00003Bb"),
        ("a+b", "a++b"),
        ("alice.smith", "alice@dsmith"),
        ("at@sign", "at@@sign"),
        ("10.0.0.0/24", "10@d0@d0@d0/24"),
        ("a:b", "a@cb"),
        ("a.b+c", "a@db++c"),
        ("two words", "two words"),
        ("ünïcødé-ok_=/", "ünïcødé-ok_=/"),
        ("emoji😀", "emoji+01F600"),
        ("a,b", "a+00002Cb"),
        ("x*", "x+00002A"),
    ];
    for (key, escaped) in cases {
        assert_eq!(marker::encode_key(key).unwrap(), escaped, "{key:?}");
        assert_eq!(marker::decode_key(escaped).unwrap(), key, "{escaped:?}");
    }
}

#[test]
fn refused_for_each_keys_are_named() {
    let cases: &[(&str, &str)] = &[
        ("", "the key is empty"),
        ("a\"b", "the key holds '\"'"),
        ("a\\b", "the key holds '\\\\'"),
        ("a$b", "the key holds '$'"),
        ("50%", "the key holds '%'"),
        ("a[0]", "the key holds '['"),
        ("a]", "the key holds ']'"),
        ("tab\there", "the key holds the control character U+0009"),
        ("nl\n", "the key holds the control character U+000A"),
        ("del\u{7f}", "the key holds the control character U+007F"),
    ];
    for (key, reason) in cases {
        assert_eq!(
            marker::encode_key(key),
            Err(Error::InvalidForEachKey {
                key: (*key).to_owned(),
                reason: (*reason).to_owned()
            }),
            "{key:?}"
        );
    }
}

#[test]
fn escaped_keys_that_the_grammar_never_writes_do_not_decode() {
    let cases = [
        ("a@x", "@x is not an escape"),
        ("a@", "it ends in a lone @"),
        ("a+", "it ends in a lone +"),
        ("a+0000", "a + escape needs six hex digits"),
        ("a+00002c", "+00002c is not six uppercase hex digits"),
        ("a+00D800", "+00D800 is not a character"),
        ("a.b", "a bare '.' is never written"),
        ("a:b", "a bare ':' is never written"),
        ("a(b", "'(' is not allowed in a tag value"),
    ];
    for (escaped, reason) in cases {
        assert_eq!(
            marker::decode_key(escaped),
            Err(Error::UndecodableKey {
                escaped: escaped.to_owned(),
                reason: reason.to_owned()
            }),
            "{escaped:?}"
        );
    }
}

#[test]
fn older_grammars_are_still_compared() {
    let a = addr(r#"aws_iam_user.u["a.b+c(d)"]"#);
    assert_eq!(
        marker::escaped_forms(&a),
        [
            "aws_iam_user.u:a@db++c+000028d+000029",
            "aws_iam_user.u:a@db+c(d)",
            "aws_iam_user.u:a.b+c(d)"
        ]
    );
    assert_eq!(
        marker::encode_key_with("a.b+c", KeyGrammar::SeparatorsOnly),
        "a@db+c"
    );
    assert_eq!(marker::encode_key_with("a.b+c", KeyGrammar::Raw), "a.b+c");
    // Where the grammars agree there is one form to compare.
    assert_eq!(
        marker::escaped_forms(&addr(r#"aws_iam_user.u["plain"]"#)),
        ["aws_iam_user.u:plain"]
    );
    assert_eq!(
        marker::escaped_forms(&addr("aws_eip.pool[3]")),
        ["aws_eip.pool:3"]
    );
}

#[test]
fn markers_in_an_older_grammar_are_kept_as_they_are() {
    let long_key = format!("{}.x", "k".repeat(300));
    let long = addr(&format!(r#"aws_iam_user.u["{long_key}"]"#));
    let long_raw = format!("aws_iam_user.u:{long_key}");
    let long_tags = marker::address_tags(&long_raw).unwrap();
    // (address, its live tags, the older form kept: None when the current grammar is written)
    let table: Vec<(InstanceAddress, BTreeMap<String, String>, Option<&str>)> = vec![
        // Written before either layer, or before the hex layer: still binds, kept.
        (
            addr(r#"aws_subnet.this["alice.smith"]"#),
            tags(&[("tofu-address", "aws_subnet.this:alice.smith")]),
            Some("aws_subnet.this:alice.smith"),
        ),
        (
            addr(r#"aws_subnet.this["x+y"]"#),
            tags(&[("tofu-address", "aws_subnet.this:x+y")]),
            Some("aws_subnet.this:x+y"),
        ),
        (
            addr(r#"aws_subnet.this["a.b+c"]"#),
            tags(&[("tofu-address", "aws_subnet.this:a@db+c")]),
            Some("aws_subnet.this:a@db+c"),
        ),
        // A long older form, across its continuation tags.
        (long.clone(), long_tags, Some(long_raw.as_str())),
        // Already the current grammar: nothing older to keep.
        (
            addr(r#"aws_subnet.this["alice.smith"]"#),
            tags(&[("tofu-address", "aws_subnet.this:alice@dsmith")]),
            None,
        ),
        // Another address, a missing address, a broken chain: wrong markers, rewritten.
        (
            addr(r#"aws_subnet.this["alice.smith"]"#),
            tags(&[("tofu-address", "aws_subnet.this:bob")]),
            None,
        ),
        (
            addr(r#"aws_subnet.this["alice.smith"]"#),
            tags(&[("tofu-estate", "prod")]),
            None,
        ),
        (
            addr(r#"aws_subnet.this["alice.smith"]"#),
            tags(&[("tofu-address-2", "aws_subnet.this:alice.smith")]),
            None,
        ),
        (
            addr("aws_eip.pool[2]"),
            tags(&[("tofu-address", "aws_eip.pool:02")]),
            None,
        ),
    ];
    for (address, live, kept) in table {
        assert_eq!(
            marker::older_form(&address, &live).as_deref(),
            kept,
            "{address} with {live:?}"
        );
    }
    // Kept markers are written back exactly as the object carries them, chunks included.
    let prod = Estate::new("prod").unwrap();
    let mut expected = marker::address_tags(&long_raw).unwrap();
    expected.insert("tofu-estate".to_owned(), "prod".to_owned());
    assert_eq!(
        marker::marker_tags_for(&prod, &long_raw, None).unwrap(),
        expected
    );
    assert_eq!(
        marker::marker_tags_for(&prod, "aws_eip.pool:2", Some(Slot(7))).unwrap(),
        marker::marker_tags(&prod, &addr("aws_eip.pool[2]"), Some(Slot(7))).unwrap()
    );
}

#[test]
fn escaped_markers_decode_for_display() {
    let cases = [
        ("aws_vpc.main", "aws_vpc.main"),
        ("aws_subnet.this:b", r#"aws_subnet.this["b"]"#),
        ("aws_eip.pool:2", "aws_eip.pool[2]"),
        ("aws_eip.pool:0", "aws_eip.pool[0]"),
        ("aws_eip.pool:02", r#"aws_eip.pool["02"]"#),
        (
            "aws_subnet.this:10@d0@d0@d0/24",
            r#"aws_subnet.this["10.0.0.0/24"]"#,
        ),
        (
            "aws_subnet.this:a+000028b+000029",
            r#"aws_subnet.this["a(b)"]"#,
        ),
        // Written without the hex layer: the separators still decode.
        ("aws_subnet.this:a@db+c", r#"aws_subnet.this["a.b+c"]"#),
    ];
    for (escaped, shown) in cases {
        assert_eq!(
            marker::decode_address(escaped).unwrap().to_string(),
            shown,
            "{escaped}"
        );
    }
    for bad in [
        "aws_vpc",
        "aws_vpc.",
        "aws_vpc.main:",
        "1aws.main",
        "aws_vpc.ma in",
        "aws_vpc.main:a\u{7f}",
        "aws_vpc.main:a\"b",
    ] {
        assert!(marker::decode_address(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn escaped_keys_read_as_an_index_only_in_canonical_digits() {
    for index in ["0", "7", "42", "1234567890123456789"] {
        assert!(marker::is_index(index), "{index}");
    }
    for key in [
        "",
        "01",
        "00",
        "-1",
        "1a",
        "a1",
        " 1",
        "12345678901234567890",
    ] {
        assert!(!marker::is_index(key), "{key:?}");
    }
}

fn address_of_len(n: usize, fill: char) -> String {
    let head = "aws_s3_bucket.b:";
    format!("{head}{}", fill.to_string().repeat(n - head.len()))
}

#[test]
fn long_addresses_are_cut_into_chunks_of_256_characters() {
    let chunk_lengths = |escaped: &str| -> Vec<(String, usize)> {
        marker::address_tags(escaped)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.chars().count()))
            .collect()
    };
    let owned = |v: &[(&str, usize)]| -> Vec<(String, usize)> {
        v.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect()
    };
    assert_eq!(
        chunk_lengths(&address_of_len(256, 'k')),
        owned(&[("tofu-address", 256)])
    );
    assert_eq!(
        chunk_lengths(&address_of_len(257, 'k')),
        owned(&[("tofu-address", 256), ("tofu-address-2", 1)])
    );
    assert_eq!(
        chunk_lengths(&address_of_len(1024, 'k')),
        owned(&[
            ("tofu-address", 256),
            ("tofu-address-2", 256),
            ("tofu-address-3", 256),
            ("tofu-address-4", 256)
        ])
    );
    assert_eq!(
        marker::address_tags(&address_of_len(1025, 'k')),
        Err(Error::OverlongAddress { chars: 1025 })
    );
    assert_eq!(
        marker::check_address_length(&address_of_len(1025, 'k')),
        Err(Error::OverlongAddress { chars: 1025 })
    );
    assert_eq!(
        marker::check_address_length(&address_of_len(1024, 'k')),
        Ok(())
    );
    // Characters, not bytes: 256 two-byte characters are one chunk.
    let wide = address_of_len(256, 'é');
    assert!(wide.len() > 256);
    assert_eq!(chunk_lengths(&wide), owned(&[("tofu-address", 256)]));
    assert_eq!(
        chunk_lengths(&address_of_len(257, 'é')),
        owned(&[("tofu-address", 256), ("tofu-address-2", 1)])
    );
    for n in [16, 256, 257, 600, 1024] {
        let escaped = address_of_len(n, 'é');
        assert_eq!(
            marker::read_address(&marker::address_tags(&escaped).unwrap()),
            Ok(Some(escaped)),
            "{n}"
        );
    }
}

#[test]
fn broken_address_chains_are_malformed() {
    let full = "k".repeat(256);
    type Case = (
        BTreeMap<String, String>,
        Result<Option<String>, &'static str>,
    );
    let cases: Vec<Case> = vec![
        (tags(&[("Name", "x")]), Ok(None)),
        (
            tags(&[("tofu-address", "aws_vpc.a")]),
            Ok(Some("aws_vpc.a".to_owned())),
        ),
        (
            tags(&[("tofu-address", &full), ("tofu-address-2", "x")]),
            Ok(Some(format!("{full}x"))),
        ),
        (
            tags(&[("tofu-address", &full), ("tofu-address-3", "x")]),
            Err("tofu-address-3 without tofu-address-2"),
        ),
        (
            tags(&[("tofu-address-2", "x")]),
            Err("tofu-address-2 without tofu-address"),
        ),
        (
            tags(&[("tofu-address", "short"), ("tofu-address-2", "x")]),
            Err("tofu-address holds 5 characters but a continuation follows"),
        ),
        (
            tags(&[("tofu-address", &full), ("tofu-address-2", "")]),
            Err("tofu-address-2 is empty"),
        ),
        (
            tags(&[("tofu-address", "a"), ("tofu-address-5", "x")]),
            Err("tofu-address-5 is not an address continuation"),
        ),
        (
            tags(&[("tofu-address", "a"), ("tofu-address-02", "x")]),
            Err("tofu-address-02 is not an address continuation"),
        ),
        (
            tags(&[("tofu-address", "aws_vpc.a"), ("tofu-address-note", "x")]),
            Ok(Some("aws_vpc.a".to_owned())),
        ),
    ];
    for (t, want) in cases {
        let want = want.map_err(|r| Error::MalformedMarker {
            reason: r.to_owned(),
        });
        assert_eq!(marker::read_address(&t), want, "{t:?}");
    }
}

#[test]
fn renaming_to_a_shorter_address_removes_unneeded_chunks() {
    let long = address_of_len(600, 'k');
    let mut current = marker::address_tags(&long).unwrap();
    current.insert("tofu-estate".to_owned(), "prod".to_owned());
    current.insert("Name".to_owned(), "x".to_owned());
    let change = marker::address_tag_change(&current, "aws_s3_bucket.c").unwrap();
    assert_eq!(change.set, tags(&[("tofu-address", "aws_s3_bucket.c")]));
    assert_eq!(
        change.remove.iter().collect::<Vec<_>>(),
        ["tofu-address-2", "tofu-address-3"]
    );
    let after = change.applied_to(&current);
    assert_eq!(
        marker::read_address(&after),
        Ok(Some("aws_s3_bucket.c".to_owned()))
    );
    assert_eq!(after.get("Name").map(String::as_str), Some("x"));
    // Growing adds chunks; an unchanged chunk is not rewritten.
    let grow = marker::address_tag_change(&tags(&[("tofu-address", "aws_vpc.a")]), &long).unwrap();
    assert_eq!(
        grow.set.keys().collect::<Vec<_>>(),
        ["tofu-address", "tofu-address-2", "tofu-address-3"]
    );
    assert!(grow.remove.is_empty());
    let same =
        marker::address_tag_change(&tags(&[("tofu-address", "aws_vpc.a")]), "aws_vpc.a").unwrap();
    assert!(same.is_empty());
}

#[test]
fn slots_parse_and_compare_numerically() {
    for (text, n) in [("0", 0u32), ("7", 7), ("10", 10), ("4294967295", u32::MAX)] {
        assert_eq!(text.parse::<Slot>(), Ok(Slot(n)));
        assert_eq!(Slot(n).to_string(), text);
    }
    let malformed = [
        ("007", "it has a leading zero"),
        ("-1", "it must be ASCII digits only"),
        ("1.0", "it must be ASCII digits only"),
        ("12345678901", "it is over 4294967295"),
        ("4294967296", "it is over 4294967295"),
        ("", "it is empty"),
        (" 1", "it must be ASCII digits only"),
        ("١", "it must be ASCII digits only"),
    ];
    for (text, reason) in malformed {
        assert_eq!(
            text.parse::<Slot>(),
            Err(Error::MalformedSlot {
                value: text.to_owned(),
                reason: reason.to_owned()
            }),
            "{text:?}"
        );
    }
    assert!("9".parse::<Slot>().unwrap() < "10".parse::<Slot>().unwrap());
}

#[test]
fn slots_are_minted_above_the_high_water_mark() {
    assert_eq!(
        marker::mint_slots(None, None, 2),
        Ok(vec![Slot(0), Slot(1)])
    );
    assert_eq!(
        marker::mint_slots(Some(Slot(4)), None, 1),
        Ok(vec![Slot(5)])
    );
    assert_eq!(
        marker::mint_slots(Some(Slot(4)), Some(Slot(9)), 1),
        Ok(vec![Slot(10)])
    );
    assert_eq!(
        marker::mint_slots(None, Some(Slot(2)), 1),
        Ok(vec![Slot(3)])
    );
    assert_eq!(
        marker::mint_slots(Some(Slot(u32::MAX)), None, 1),
        Err(Error::SlotsExhausted { highest: u32::MAX })
    );
    assert_eq!(
        marker::mint_slots(Some(Slot(u32::MAX)), None, 0),
        Ok(vec![])
    );
}

fn member(id: &str, slot: Option<u32>, index: u64) -> CountMember {
    CountMember {
        id: id.to_owned(),
        slot: slot.map(Slot),
        address_index: index,
    }
}

fn bound(id: &str, slot: u32, needs_slot: bool, stale_address: bool) -> BoundMember {
    BoundMember {
        id: id.to_owned(),
        slot: Slot(slot),
        needs_slot,
        stale_address,
    }
}

#[test]
fn count_sets_bind_by_slot_without_churn() {
    // Slots 3, 7, 9 bind indices 0, 1, 2 whatever their addresses say; stale addresses are repaired.
    let members = [
        member("i-9", Some(9), 2),
        member("i-3", Some(3), 0),
        member("i-7", Some(7), 2),
    ];
    let b = marker::bind_count_set(&members, 3, None).unwrap();
    assert_eq!(
        b.bound.into_iter().collect::<Vec<_>>(),
        [
            (0, bound("i-3", 3, false, false)),
            (1, bound("i-7", 7, false, true)),
            (2, bound("i-9", 9, false, false))
        ]
    );
    assert!(b.create.is_empty() && b.surplus.is_empty());

    // A deficit mints above the highest live slot, never filling gaps.
    let b = marker::bind_count_set(&members, 5, None).unwrap();
    assert_eq!(
        b.create.into_iter().collect::<Vec<_>>(),
        [(3, Slot(10)), (4, Slot(11))]
    );
    // ... and above the recorded high-water mark when it is higher.
    let b = marker::bind_count_set(&members, 4, Some(Slot(20))).unwrap();
    assert_eq!(b.create.into_iter().collect::<Vec<_>>(), [(3, Slot(21))]);

    // A surplus destroys the highest slots; survivors keep their indices.
    let b = marker::bind_count_set(&members, 1, None).unwrap();
    assert_eq!(b.bound.keys().copied().collect::<Vec<_>>(), [0]);
    assert_eq!(b.surplus, ["i-9", "i-7"]);

    // The first slot minted for a new block is 0.
    let b = marker::bind_count_set(&[], 2, None).unwrap();
    assert_eq!(
        b.create.into_iter().collect::<Vec<_>>(),
        [(0, Slot(0)), (1, Slot(1))]
    );
}

#[test]
fn unslotted_and_mixed_count_sets_migrate_by_address() {
    // Unslotted: bind by address, slot i = index i by tags-only updates; surplus at the highest indices.
    let members = [
        member("a", None, 0),
        member("b", None, 1),
        member("c", None, 2),
    ];
    let b = marker::bind_count_set(&members, 2, None).unwrap();
    assert_eq!(
        b.bound.into_iter().collect::<Vec<_>>(),
        [
            (0, bound("a", 0, true, false)),
            (1, bound("b", 1, true, false))
        ]
    );
    assert_eq!(b.surplus, ["c"]);
    let b = marker::bind_count_set(&members, 4, None).unwrap();
    assert_eq!(b.create.into_iter().collect::<Vec<_>>(), [(3, Slot(3))]);

    // Mixed: slotted first by slot, then unslotted by address to the next free index, with new slots
    // above the high-water mark.
    let members = [
        member("s5", Some(5), 0),
        member("u1", None, 1),
        member("u0", None, 0),
        member("s2", Some(2), 3),
    ];
    let b = marker::bind_count_set(&members, 4, None).unwrap();
    assert_eq!(
        b.bound.into_iter().collect::<Vec<_>>(),
        [
            (0, bound("s2", 2, false, true)),
            (1, bound("s5", 5, false, true)),
            (2, bound("u0", 6, true, true)),
            (3, bound("u1", 7, true, true)),
        ]
    );
}

#[test]
fn count_sets_that_cannot_be_told_apart_are_errors() {
    let dup = [member("b", Some(1), 0), member("a", Some(1), 1)];
    assert_eq!(
        marker::bind_count_set(&dup, 2, None),
        Err(CountSetError::DuplicateSlot {
            slot: Slot(1),
            ids: vec!["a".to_owned(), "b".to_owned()]
        })
    );
    let same = [member("y", None, 1), member("x", None, 1)];
    assert_eq!(
        marker::bind_count_set(&same, 2, None),
        Err(CountSetError::Indistinguishable {
            index: 1,
            ids: vec!["x".to_owned(), "y".to_owned()]
        })
    );
}

#[test]
fn ownership_verdicts_follow_the_tags() {
    let prod = Estate::new("prod").unwrap();
    let full = "k".repeat(256);
    let cases: Vec<(BTreeMap<String, String>, Ownership)> = vec![
        (
            tags(&[("tofu-estate", "prod"), ("tofu-address", "aws_vpc.main")]),
            Ownership::Owned {
                escaped_address: "aws_vpc.main".to_owned(),
                slot: SlotMarker::Absent,
            },
        ),
        (
            tags(&[
                ("tofu-estate", "prod"),
                ("tofu-address", "aws_vpc.pool:1"),
                ("tofu-slot", "4"),
            ]),
            Ownership::Owned {
                escaped_address: "aws_vpc.pool:1".to_owned(),
                slot: SlotMarker::Valid(Slot(4)),
            },
        ),
        (
            tags(&[
                ("tofu-estate", "prod"),
                ("tofu-address", "aws_vpc.pool:1"),
                ("tofu-slot", "007"),
            ]),
            Ownership::Owned {
                escaped_address: "aws_vpc.pool:1".to_owned(),
                slot: SlotMarker::Malformed("007".to_owned()),
            },
        ),
        (tags(&[("Name", "legacy")]), Ownership::Foreign),
        (
            tags(&[("tofu-address", "aws_vpc.main")]),
            Ownership::Foreign,
        ),
        (
            tags(&[("tofu-estate", "dev"), ("tofu-address", "aws_vpc.main")]),
            Ownership::OtherEstate("dev".to_owned()),
        ),
        (
            tags(&[("tofu-estate", "prod")]),
            Ownership::Malformed(MalformedReason::MissingAddress),
        ),
        (
            tags(&[("tofu-estate", "prod"), ("tofu-address", "not an address")]),
            Ownership::Malformed(MalformedReason::Unparseable("not an address".to_owned())),
        ),
        (
            tags(&[("tofu-estate", "prod"), ("tofu-address", "aws_subnet.main")]),
            Ownership::Malformed(MalformedReason::OtherType("aws_subnet".to_owned())),
        ),
        (
            tags(&[
                ("tofu-estate", "prod"),
                ("tofu-address", &full),
                ("tofu-address-3", "x"),
            ]),
            Ownership::Malformed(MalformedReason::BrokenChain(
                "tofu-address-3 without tofu-address-2".to_owned(),
            )),
        ),
    ];
    for (t, want) in cases {
        assert_eq!(marker::ownership(&prod, "aws_vpc", &t), want, "{t:?}");
    }
    assert_eq!(
        MalformedReason::OtherType("aws_subnet".to_owned()).to_string(),
        "the address names another resource type, aws_subnet"
    );
}

#[test]
fn new_objects_carry_every_marker() {
    let prod = Estate::new("prod").unwrap();
    let t = marker::marker_tags(&prod, &addr(r#"aws_subnet.this["a.b"]"#), None).unwrap();
    assert_eq!(
        t,
        tags(&[
            ("tofu-address", "aws_subnet.this:a@db"),
            ("tofu-estate", "prod")
        ])
    );
    let t = marker::marker_tags(&prod, &addr("aws_eip.pool[2]"), Some(Slot(7))).unwrap();
    assert_eq!(
        t,
        tags(&[
            ("tofu-address", "aws_eip.pool:2"),
            ("tofu-estate", "prod"),
            ("tofu-slot", "7")
        ])
    );
    assert!(marker::is_marker_key("tofu-anything"));
    assert!(!marker::is_marker_key("Name"));
    let mixed = tags(&[("Name", "x"), ("tofu-estate", "prod"), ("team", "net")]);
    assert_eq!(
        marker::non_marker_tags(&mixed),
        tags(&[("Name", "x"), ("team", "net")])
    );
    assert_eq!(
        marker::marker_keys(mixed.keys().map(String::as_str))
            .into_iter()
            .collect::<Vec<_>>(),
        ["tofu-estate"]
    );
}

fn rename(at_old: ObjectAtAddress) -> RenameFacts {
    RenameFacts {
        estate: Some(Estate::new("prod").unwrap()),
        old: addr(r#"aws_subnet.this["b"]"#),
        new: addr(r#"aws_subnet.this["c"]"#),
        at_old,
        new_claimed: false,
        new_declared: true,
        allow_missing_config: false,
    }
}

#[test]
fn renames_are_refused_by_the_marker_rules() {
    let ours = || ObjectAtAddress::Ours {
        id: "subnet-00000004".to_owned(),
    };
    assert_eq!(
        marker::check_rename(&rename(ours())),
        Ok("subnet-00000004".to_owned())
    );
    let cases: Vec<(RenameFacts, RenameRefusal, &str)> = vec![
        (
            rename(ObjectAtAddress::Nothing),
            RenameRefusal::NothingAtOld,
            "no live object of this estate carries the old address",
        ),
        (
            rename(ObjectAtAddress::Unowned {
                id: "subnet-1".to_owned(),
            }),
            RenameRefusal::NothingAtOld,
            "no live object of this estate carries the old address",
        ),
        (
            RenameFacts {
                new_claimed: true,
                ..rename(ours())
            },
            RenameRefusal::NewClaimed,
            "a live object of this estate already carries the new address",
        ),
        (
            RenameFacts {
                new: addr("aws_vpc.c"),
                ..rename(ours())
            },
            RenameRefusal::DifferentTypes,
            "the old and new addresses are of different resource types",
        ),
        (
            rename(ObjectAtAddress::AnotherEstate {
                id: "subnet-1".to_owned(),
                estate: "dev".to_owned(),
            }),
            RenameRefusal::AnotherEstate("dev".to_owned()),
            "the object is owned by another estate, dev",
        ),
        (
            RenameFacts {
                new_declared: false,
                ..rename(ours())
            },
            RenameRefusal::NewNotDeclared,
            "the new address is not declared in the configuration (pass --allow-missing-config)",
        ),
        (
            RenameFacts {
                estate: None,
                ..rename(ours())
            },
            RenameRefusal::NoEstate,
            "no estate name: set live { estate } or pass --estate",
        ),
        (
            rename(ObjectAtAddress::Several {
                ids: vec!["subnet-1".to_owned(), "subnet-2".to_owned()],
            }),
            RenameRefusal::CollisionAtOld(vec!["subnet-1".to_owned(), "subnet-2".to_owned()]),
            "several live objects carry the old address: subnet-1, subnet-2",
        ),
    ];
    for (facts, refusal, summary) in cases {
        assert_eq!(marker::check_rename(&facts), Err(refusal.clone()));
        assert_eq!(refusal.to_string(), summary);
    }
    let allowed = RenameFacts {
        new_declared: false,
        allow_missing_config: true,
        ..rename(ours())
    };
    assert_eq!(
        marker::check_rename(&allowed),
        Ok("subnet-00000004".to_owned())
    );
}

fn adopt(admission: AdmissionPath, target: ObjectAtAddress) -> AdoptFacts {
    AdoptFacts {
        estate: Some(Estate::new("prod").unwrap()),
        declared: true,
        admission: Some(admission),
        id_given: admission == AdmissionPath::Marker,
        taggable: true,
        already_bound: false,
        target,
        declaration: DeclarationMatch::Matches,
    }
}

#[test]
fn adoptions_are_refused_by_the_marker_rules() {
    let unowned = || ObjectAtAddress::Unowned {
        id: "acme-data".to_owned(),
    };
    assert_eq!(
        marker::check_adopt(&adopt(AdmissionPath::ClientNamed, unowned())),
        Ok("acme-data".to_owned())
    );
    assert_eq!(
        marker::check_adopt(&adopt(AdmissionPath::Marker, unowned())),
        Ok("acme-data".to_owned())
    );
    let cases: Vec<(AdoptFacts, AdoptRefusal)> = vec![
        (
            adopt(
                AdmissionPath::ClientNamed,
                ObjectAtAddress::AnotherEstate {
                    id: "b".into(),
                    estate: "dev".into(),
                },
            ),
            AdoptRefusal::AnotherEstate("dev".to_owned()),
        ),
        (
            adopt(AdmissionPath::ClientNamed, ObjectAtAddress::Nothing),
            AdoptRefusal::NothingToAdopt,
        ),
        (
            adopt(
                AdmissionPath::ClientNamed,
                ObjectAtAddress::Ours { id: "b".into() },
            ),
            AdoptRefusal::AlreadyOwned,
        ),
        (
            AdoptFacts {
                id_given: false,
                ..adopt(AdmissionPath::Marker, unowned())
            },
            AdoptRefusal::IdRequired,
        ),
        (
            AdoptFacts {
                declared: false,
                ..adopt(AdmissionPath::ClientNamed, unowned())
            },
            AdoptRefusal::NotDeclared,
        ),
        (
            AdoptFacts {
                estate: None,
                ..adopt(AdmissionPath::ClientNamed, unowned())
            },
            AdoptRefusal::NoEstate,
        ),
        (
            AdoptFacts {
                taggable: false,
                ..adopt(AdmissionPath::ParentDerived, unowned())
            },
            AdoptRefusal::NotTaggable,
        ),
        (
            AdoptFacts {
                already_bound: true,
                ..adopt(AdmissionPath::Marker, unowned())
            },
            AdoptRefusal::AlreadyBound,
        ),
        (
            AdoptFacts {
                id_given: true,
                declaration: DeclarationMatch::OtherIdentity {
                    declared: "acme-logs".into(),
                },
                ..adopt(AdmissionPath::ClientNamed, unowned())
            },
            AdoptRefusal::OtherIdentity {
                id: "acme-data".into(),
                declared: "acme-logs".into(),
            },
        ),
        (
            AdoptFacts {
                declaration: DeclarationMatch::NotACandidate,
                ..adopt(AdmissionPath::Marker, unowned())
            },
            AdoptRefusal::NotACandidate("acme-data".into()),
        ),
    ];
    for (facts, refusal) in cases {
        assert_eq!(marker::check_adopt(&facts), Err(refusal), "{facts:?}");
    }
    assert_eq!(
        AdoptRefusal::AnotherEstate("dev".into()).to_string(),
        "the object is owned by another estate, dev"
    );
}

/// Admitted `for_each` keys, biased towards the characters the escaping layers treat specially.
fn admitted_key() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '.', ':', '@', '+', ' ', '(', ')', '/', '=', '_', '-', ';', '*', 'é', '😀',
    ]);
    let ch = prop_oneof![special, any::<char>()];
    prop::collection::vec(ch, 1..24).prop_map(|cs| {
        let key: String = cs
            .into_iter()
            .filter(|c| !matches!(c, '"' | '\\' | '$' | '%' | '[' | ']') && !c.is_control())
            .collect();
        if key.is_empty() { "k".to_owned() } else { key }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn decoding_reverses_encoding_for_every_admitted_key(key in admitted_key()) {
        let escaped = marker::encode_key(&key).unwrap();
        prop_assert!(escaped.chars().all(|c| marker::is_tag_value_char(c) && c != '.' && c != ':'), "{escaped:?}");
        prop_assert_eq!(marker::decode_key(&escaped).unwrap(), key.clone());
        let address = addr("aws_subnet.this").block().instance(admission::InstanceKey::Str(key));
        let shown = marker::decode_address(&marker::escape_address(&address).unwrap()).unwrap();
        // An all-digit key shows as an index, which is the one thing decoding cannot tell apart.
        if let admission::InstanceKey::Str(k) = address.key() {
            if k.bytes().all(|b| b.is_ascii_digit()) && (k == "0" || !k.starts_with('0')) && k.len() < 20 {
                prop_assert_eq!(shown.key(), &admission::InstanceKey::Int(k.parse().unwrap()));
            } else {
                prop_assert_eq!(shown, address);
            }
        }
    }
}

#[test]
fn module_addresses_escape_per_level_and_decode_back() {
    let cases = [
        ("module.net.aws_vpc.main", "module.net.aws_vpc.main"),
        (
            r#"module.net["eu"].aws_subnet.this[0]"#,
            "module.net:eu.aws_subnet.this:0",
        ),
        (
            r#"module.app[3].module.db.aws_iam_role.r"#,
            "module.app:3.module.db.aws_iam_role.r",
        ),
        (
            r#"module.site["a.b"].aws_vpc.v["x:y"]"#,
            "module.site:a@db.aws_vpc.v:x@cy",
        ),
        (
            r#"module.m["a@b+c"].aws_vpc.v"#,
            "module.m:a@@b++c.aws_vpc.v",
        ),
    ];
    for (address, escaped) in cases {
        assert_eq!(
            marker::escape_address(&addr(address)).unwrap(),
            escaped,
            "{address}"
        );
        assert_eq!(
            marker::decode_address(escaped).unwrap().to_string(),
            address,
            "{escaped}"
        );
        let (type_name, _, _) = marker::split_escaped(escaped).unwrap();
        assert_eq!(type_name, addr(address).type_name());
    }
    let refused = marker::escape_address(&addr(r#"module.m["a$b"].aws_vpc.v"#)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        r#"invalid for_each key "a$b": the key holds '$'"#
    );
}

#[test]
fn deep_module_paths_meet_the_address_length_limit() {
    let level = format!("module.{}.", "m".repeat(40));
    let deep = format!("{}aws_vpc.v", level.repeat(25));
    let escaped = marker::escape_address(&addr(&deep)).unwrap();
    assert_eq!(escaped.chars().count(), 25 * 48 + 9);
    assert!(marker::check_address_length(&escaped).is_err());
    let shallow = format!("{}aws_vpc.v", level.repeat(20));
    let escaped = marker::escape_address(&addr(&shallow)).unwrap();
    assert_eq!(escaped.chars().count(), 20 * 48 + 9);
    assert!(marker::check_address_length(&escaped).is_ok());
}
