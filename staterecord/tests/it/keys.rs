//! Key validation: the keys every backend must refuse, and some it must accept.

use staterecord::{KeyError, validate_key};

/// A key and the check that it was refused for the right reason.
type Refusal = (&'static str, fn(&KeyError) -> bool);

#[test]
fn keys_refused_by_rule() {
    let refused: &[Refusal] = &[
        ("", |e| matches!(e, KeyError::Empty)),
        ("a\0b", |e| matches!(e, KeyError::Nul { .. })),
        ("/a", |e| matches!(e, KeyError::LeadingSlash { .. })),
        ("a/", |e| matches!(e, KeyError::EmptySegment { .. })),
        ("a//b", |e| matches!(e, KeyError::EmptySegment { .. })),
        ("a/./b", |e| matches!(e, KeyError::DotSegment { .. })),
        ("../etc/passwd", |e| {
            matches!(e, KeyError::DotSegment { .. })
        }),
        ("a/..", |e| matches!(e, KeyError::DotSegment { .. })),
        (".", |e| matches!(e, KeyError::DotSegment { .. })),
        ("/", |e| matches!(e, KeyError::LeadingSlash { .. })),
    ];
    for (key, expected) in refused {
        let err = validate_key(key).expect_err(key);
        assert!(
            expected(&err),
            "{key:?} refused with the wrong reason: {err}"
        );
    }
}

#[test]
fn keys_accepted() {
    for key in [
        "a",
        "a/b",
        "estate/acme/random_id.x",
        "a..b",
        ".hidden",
        "x/.y/z",
    ] {
        assert_eq!(validate_key(key), Ok(()), "{key:?}");
    }
}

#[test]
fn keys_length_limits() {
    let segment = "s".repeat(staterecord::key::MAX_SEGMENT_LEN);
    assert_eq!(validate_key(&segment), Ok(()));
    let long_segment = format!("{segment}s");
    assert!(matches!(
        validate_key(&format!("a/{long_segment}/b")),
        Err(KeyError::SegmentTooLong { .. })
    ));
    let longest = [segment.as_str(); 3].join("/") + "/" + &"t".repeat(165);
    assert_eq!(longest.len(), staterecord::key::MAX_KEY_LEN);
    assert_eq!(validate_key(&longest), Ok(()));
    let err = validate_key(&format!("{longest}t")).unwrap_err();
    assert_eq!(err, KeyError::TooLong { len: 769 });
    assert_eq!(
        err.to_string(),
        "record key of 769 bytes is longer than 768"
    );
}

#[test]
fn keys_messages_name_the_key() {
    assert_eq!(
        validate_key("").unwrap_err().to_string(),
        "record key is empty"
    );
    assert_eq!(
        validate_key("a/../b").unwrap_err().to_string(),
        "record key \"a/../b\" has a '.' or '..' segment"
    );
}

/// Any string is either refused with a typed error or maps to a record file inside the store's
/// directory: never a panic, never an escape.
#[test]
fn keys_never_escape_the_local_store() {
    use proptest::test_runner::{Config, TestRunner};

    let dir = tempfile::tempdir().unwrap();
    let store = staterecord::LocalStore::open(dir.path()).unwrap();
    let mut runner = TestRunner::new(Config::with_cases(10_000));
    runner
        .run(&r"[a-z./\\\x00 ]{0,12}", |key| {
            match validate_key(&key) {
                Err(_) => proptest::prop_assert!(store.record_path(&key).is_err()),
                Ok(()) => {
                    let path = store.record_path(&key).unwrap();
                    let inside = path.strip_prefix(dir.path()).expect("inside the store");
                    for part in inside.components() {
                        proptest::prop_assert!(
                            matches!(part, std::path::Component::Normal(_)),
                            "{key:?} gives {path:?}"
                        );
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}
