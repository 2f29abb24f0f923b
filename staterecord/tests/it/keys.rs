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
