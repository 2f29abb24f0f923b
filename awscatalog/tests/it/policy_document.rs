//! `aws_iam_policy_document` renders exactly the JSON the AWS provider v5 renders. Every expected text
//! here is written by hand from the provider's acceptance tests and documentation (with v5's rule that
//! an empty `Sid` is left out), never produced by the code under test.

use std::collections::BTreeMap;

use awscatalog::data::policy_document_value;
use provider::Value;

fn s(v: &str) -> Value {
    Value::from(v)
}

fn list(items: &[&str]) -> Value {
    Value::List(items.iter().map(|i| s(i)).collect())
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Map(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn args(pairs: Vec<(&str, Value)>) -> BTreeMap<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// One check: the `json` and `minified_json` a document's arguments give.
fn check(arguments: Vec<(&str, Value)>, json: &str, minified: &str) {
    let got = policy_document_value(&args(arguments)).expect("the document renders");
    assert_eq!(got.get("json").and_then(Value::as_str), Some(json));
    assert_eq!(
        got.get("minified_json").and_then(Value::as_str),
        Some(minified)
    );
}

fn render(arguments: Vec<(&str, Value)>) -> String {
    let got = policy_document_value(&args(arguments)).expect("the document renders");
    got.get("json").and_then(Value::as_str).unwrap().to_owned()
}

/// The provider's basic acceptance case (partition `aws`).
#[test]
fn the_basic_document_renders_as_the_provider_renders_it() {
    let statements = Value::List(vec![
        obj(vec![
            ("sid", s("1")),
            (
                "actions",
                list(&["s3:ListAllMyBuckets", "s3:GetBucketLocation"]),
            ),
            ("resources", list(&["arn:aws:s3:::*"])),
        ]),
        obj(vec![
            ("actions", list(&["s3:ListBucket"])),
            ("resources", list(&["arn:aws:s3:::foo"])),
            (
                "condition",
                Value::List(vec![obj(vec![
                    ("test", s("StringLike")),
                    ("variable", s("s3:prefix")),
                    ("values", list(&["home/", "", "home/&{aws:username}/"])),
                ])]),
            ),
            (
                "not_principals",
                Value::List(vec![obj(vec![
                    ("type", s("AWS")),
                    ("identifiers", list(&["arn:blahblah:example"])),
                ])]),
            ),
        ]),
        obj(vec![
            ("actions", list(&["s3:*"])),
            (
                "resources",
                list(&[
                    "arn:aws:s3:::foo/home/&{aws:username}",
                    "arn:aws:s3:::foo/home/&{aws:username}/*",
                ]),
            ),
            (
                "principals",
                Value::List(vec![obj(vec![
                    ("type", s("AWS")),
                    ("identifiers", list(&["arn:blahblah:example"])),
                ])]),
            ),
        ]),
        obj(vec![
            ("effect", s("Deny")),
            ("not_actions", list(&["s3:*"])),
            ("not_resources", list(&["arn:aws:s3:::*"])),
        ]),
        obj(vec![
            ("effect", s("Allow")),
            ("actions", list(&["kinesis:*"])),
            (
                "principals",
                Value::List(vec![obj(vec![
                    ("type", s("AWS")),
                    ("identifiers", list(&["*"])),
                ])]),
            ),
        ]),
        obj(vec![
            ("effect", s("Allow")),
            ("actions", list(&["firehose:*"])),
            (
                "principals",
                Value::List(vec![obj(vec![
                    ("type", s("*")),
                    ("identifiers", list(&["*"])),
                ])]),
            ),
        ]),
    ]);
    let json = r#"{
  "Version": "2012-10-17",
  "Id": "policy_id",
  "Statement": [
    {
      "Sid": "1",
      "Effect": "Allow",
      "Action": [
        "s3:ListAllMyBuckets",
        "s3:GetBucketLocation"
      ],
      "Resource": "arn:aws:s3:::*"
    },
    {
      "Effect": "Allow",
      "Action": "s3:ListBucket",
      "Resource": "arn:aws:s3:::foo",
      "NotPrincipal": {
        "AWS": "arn:blahblah:example"
      },
      "Condition": {
        "StringLike": {
          "s3:prefix": [
            "home/",
            "",
            "home/${aws:username}/"
          ]
        }
      }
    },
    {
      "Effect": "Allow",
      "Action": "s3:*",
      "Resource": [
        "arn:aws:s3:::foo/home/${aws:username}/*",
        "arn:aws:s3:::foo/home/${aws:username}"
      ],
      "Principal": {
        "AWS": "arn:blahblah:example"
      }
    },
    {
      "Effect": "Deny",
      "NotAction": "s3:*",
      "NotResource": "arn:aws:s3:::*"
    },
    {
      "Effect": "Allow",
      "Action": "kinesis:*",
      "Principal": {
        "AWS": "*"
      }
    },
    {
      "Effect": "Allow",
      "Action": "firehose:*",
      "Principal": "*"
    }
  ]
}"#;
    let minified = concat!(
        r#"{"Version":"2012-10-17","Id":"policy_id","Statement":["#,
        r#"{"Sid":"1","Effect":"Allow","Action":["s3:ListAllMyBuckets","s3:GetBucketLocation"],"Resource":"arn:aws:s3:::*"},"#,
        r#"{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::foo","NotPrincipal":{"AWS":"arn:blahblah:example"},"Condition":{"StringLike":{"s3:prefix":["home/","","home/${aws:username}/"]}}},"#,
        r#"{"Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::foo/home/${aws:username}/*","arn:aws:s3:::foo/home/${aws:username}"],"Principal":{"AWS":"arn:blahblah:example"}},"#,
        r#"{"Effect":"Deny","NotAction":"s3:*","NotResource":"arn:aws:s3:::*"},"#,
        r#"{"Effect":"Allow","Action":"kinesis:*","Principal":{"AWS":"*"}},"#,
        r#"{"Effect":"Allow","Action":"firehose:*","Principal":"*"}]}"#
    );
    check(
        vec![("policy_id", s("policy_id")), ("statement", statements)],
        json,
        minified,
    );
}

/// The assume-role policy most configurations write: one service principal.
#[test]
fn a_trust_policy_names_its_service_principal() {
    let statement = Value::List(vec![obj(vec![
        ("actions", list(&["sts:AssumeRole"])),
        (
            "principals",
            Value::List(vec![obj(vec![
                ("type", s("Service")),
                ("identifiers", list(&["ec2.amazonaws.com"])),
            ])]),
        ),
    ])]);
    check(
        vec![("statement", statement)],
        "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\n      \"Effect\": \"Allow\",\n      \"Action\": \"sts:AssumeRole\",\n      \"Principal\": {\n        \"Service\": \"ec2.amazonaws.com\"\n      }\n    }\n  ]\n}",
        r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Principal":{"Service":"ec2.amazonaws.com"}}]}"#,
    );
}

/// Several identifiers in reverse lexical order; principal types sorted; a single condition value as
/// a string (the provider's `SingleConditionValue` case).
#[test]
fn identifiers_are_reverse_sorted_and_one_condition_value_is_a_string() {
    let statement = Value::List(vec![obj(vec![
        ("effect", s("Deny")),
        ("actions", list(&["elasticfilesystem:*"])),
        ("resources", list(&["*"])),
        (
            "principals",
            Value::List(vec![
                obj(vec![
                    ("type", s("Service")),
                    ("identifiers", list(&["a.amazonaws.com", "b.amazonaws.com"])),
                ]),
                obj(vec![
                    ("type", s("AWS")),
                    (
                        "identifiers",
                        list(&["arn:blahblah:example", "arn:blahblahblah:example"]),
                    ),
                ]),
            ]),
        ),
        (
            "condition",
            Value::List(vec![obj(vec![
                ("test", s("Bool")),
                ("variable", s("aws:SecureTransport")),
                ("values", list(&["false"])),
            ])]),
        ),
    ])]);
    assert_eq!(
        render(vec![("statement", statement)]),
        r#"{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Deny",
      "Action": "elasticfilesystem:*",
      "Resource": "*",
      "Principal": {
        "AWS": [
          "arn:blahblahblah:example",
          "arn:blahblah:example"
        ],
        "Service": [
          "b.amazonaws.com",
          "a.amazonaws.com"
        ]
      },
      "Condition": {
        "Bool": {
          "aws:SecureTransport": "false"
        }
      }
    }
  ]
}"#
    );
}

fn statement_doc(statements: Vec<Vec<(&str, Value)>>) -> String {
    let blocks = Value::List(statements.into_iter().map(obj).collect());
    render(vec![("statement", blocks)])
}

/// The provider's `sourceList` case: source documents merged in order, blank sids kept apart.
#[test]
fn source_documents_are_merged_in_order() {
    let a = statement_doc(vec![
        vec![
            ("sid", s("")),
            ("effect", s("Allow")),
            ("actions", list(&["foo:ActionOne"])),
        ],
        vec![
            ("sid", s("validSidOne")),
            ("effect", s("Allow")),
            ("actions", list(&["bar:ActionOne"])),
        ],
    ]);
    let b = statement_doc(vec![vec![
        ("sid", s("validSidTwo")),
        ("effect", s("Deny")),
        ("actions", list(&["foo:ActionTwo"])),
    ]]);
    let c = statement_doc(vec![vec![
        ("sid", s("")),
        ("effect", s("Allow")),
        ("actions", list(&["bar:ActionTwo"])),
    ]]);
    let sources = Value::List(vec![s(&a), s(&b), s(&c)]);
    assert_eq!(
        render(vec![
            ("version", s("2012-10-17")),
            ("source_policy_documents", sources)
        ]),
        r#"{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": "foo:ActionOne"
    },
    {
      "Sid": "validSidOne",
      "Effect": "Allow",
      "Action": "bar:ActionOne"
    },
    {
      "Sid": "validSidTwo",
      "Effect": "Deny",
      "Action": "foo:ActionTwo"
    },
    {
      "Effect": "Allow",
      "Action": "bar:ActionTwo"
    }
  ]
}"#
    );
}

/// The provider's `overrideList` case: a later document's statement replaces the one of its sid.
#[test]
fn override_documents_replace_statements_by_sid() {
    let a = statement_doc(vec![
        vec![
            ("sid", s("")),
            ("effect", s("Allow")),
            ("actions", list(&["foo:ActionOne"])),
        ],
        vec![
            ("sid", s("overrideSid")),
            ("effect", s("Allow")),
            ("actions", list(&["bar:ActionOne"])),
        ],
    ]);
    let b = statement_doc(vec![vec![
        ("sid", s("validSid")),
        ("effect", s("Deny")),
        ("actions", list(&["foo:ActionTwo"])),
    ]]);
    let c = statement_doc(vec![vec![
        ("sid", s("overrideSid")),
        ("effect", s("Deny")),
        ("actions", list(&["bar:ActionOne"])),
    ]]);
    let overrides = Value::List(vec![s(&a), s(&b), s(&c)]);
    assert_eq!(
        render(vec![("override_policy_documents", overrides)]),
        r#"{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": "foo:ActionOne"
    },
    {
      "Sid": "overrideSid",
      "Effect": "Deny",
      "Action": "bar:ActionOne"
    },
    {
      "Sid": "validSid",
      "Effect": "Deny",
      "Action": "foo:ActionTwo"
    }
  ]
}"#
    );
}

/// The provider's `override` case: the override's statement wins over the document's own of that sid.
#[test]
fn an_override_wins_over_the_documents_own_statement() {
    let over = statement_doc(vec![vec![
        ("sid", s("SidToOverwrite")),
        ("actions", list(&["s3:*"])),
        ("resources", list(&["*"])),
    ]]);
    let own = Value::List(vec![
        obj(vec![
            ("actions", list(&["ec2:*"])),
            ("resources", list(&["*"])),
        ]),
        obj(vec![
            ("sid", s("SidToOverwrite")),
            ("actions", list(&["s3:*"])),
            (
                "resources",
                list(&["arn:aws:s3:::somebucket", "arn:aws:s3:::somebucket/*"]),
            ),
        ]),
    ]);
    assert_eq!(
        render(vec![
            ("override_policy_documents", Value::List(vec![s(&over)])),
            ("statement", own),
        ]),
        r#"{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": "ec2:*",
      "Resource": "*"
    },
    {
      "Sid": "SidToOverwrite",
      "Effect": "Allow",
      "Action": "s3:*",
      "Resource": "*"
    }
  ]
}"#
    );
}

/// A source document's lists keep their order and its principal lists are reverse sorted; a
/// `Principal` string is everyone; the document's own statement of a source sid replaces it.
#[test]
fn a_hand_written_source_document_is_reread_as_the_provider_rereads_it() {
    let source = r#"{"Version":"2012-10-17","Statement":[
      {"Sid":"Keep","Effect":"Allow","Action":["s3:PutObject","s3:GetObject"],"Resource":"*",
       "Principal":{"AWS":["arn:aws:iam::111111111111:root","arn:aws:iam::222222222222:root"]}},
      {"Sid":"Replace","Effect":"Allow","Action":"s3:*","Principal":"*",
       "Condition":{"Bool":{"aws:SecureTransport":true}}}]}"#;
    let own = Value::List(vec![obj(vec![
        ("sid", s("Replace")),
        ("effect", s("Deny")),
        ("actions", list(&["s3:*"])),
        ("resources", list(&["*"])),
    ])]);
    assert_eq!(
        render(vec![
            ("source_policy_documents", Value::List(vec![s(source)])),
            ("statement", own),
        ]),
        r#"{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "Keep",
      "Effect": "Allow",
      "Action": [
        "s3:PutObject",
        "s3:GetObject"
      ],
      "Resource": "*",
      "Principal": {
        "AWS": [
          "arn:aws:iam::222222222222:root",
          "arn:aws:iam::111111111111:root"
        ]
      }
    },
    {
      "Sid": "Replace",
      "Effect": "Deny",
      "Action": "s3:*",
      "Resource": "*"
    }
  ]
}"#
    );
}

#[test]
fn a_document_without_statements_is_its_version_alone() {
    check(
        vec![],
        "{\n  \"Version\": \"2012-10-17\"\n}",
        r#"{"Version":"2012-10-17"}"#,
    );
}

/// The id is the CRC-32 of `json`, in decimal, as the provider names the document.
#[test]
fn the_id_is_the_checksum_of_the_json() {
    let got = policy_document_value(&BTreeMap::new()).unwrap();
    // CRC-32 (IEEE) of "{\n  \"Version\": \"2012-10-17\"\n}", computed independently.
    assert_eq!(got.get("id").and_then(Value::as_str), Some(EMPTY_DOC_CRC));
}

// Python: zlib.crc32(b'{\n  "Version": "2012-10-17"\n}').
const EMPTY_DOC_CRC: &str = "1132004489";

#[test]
fn the_provider_refusals_are_errors() {
    let dup = Value::List(vec![
        obj(vec![("sid", s("A")), ("actions", list(&["s3:*"]))]),
        obj(vec![("sid", s("A")), ("actions", list(&["ec2:*"]))]),
    ]);
    let err = policy_document_value(&args(vec![("statement", dup)])).unwrap_err();
    assert!(err.contains("duplicate Sid (A)"), "{err}");
    let old = Value::List(vec![obj(vec![(
        "resources",
        list(&["arn:aws:s3:::b/&{aws:username}"]),
    )])]);
    let err = policy_document_value(&args(vec![
        ("version", s("2008-10-17")),
        ("statement", old),
    ]))
    .unwrap_err();
    assert!(err.contains("found &{ sequence in (arn:aws:s3:::b/&{aws:username}), which is not supported in document version 2008-10-17"), "{err}");
    let sources = Value::List(vec![
        s(r#"{"Statement":[{"Sid":"X","Effect":"Allow","Action":"a:b"}]}"#),
        s(r#"{"Statement":[{"Sid":"X","Effect":"Allow","Action":"c:d"}]}"#),
    ]);
    let err = policy_document_value(&args(vec![("source_policy_documents", sources)])).unwrap_err();
    assert!(
        err.contains("merging source document 1: duplicate Sid (X)"),
        "{err}"
    );
    let bad = Value::List(vec![s("{not json")]);
    assert!(policy_document_value(&args(vec![("override_policy_documents", bad)])).is_err());
}

/// `&` and `<` are written as Go's JSON writes them.
#[test]
fn html_characters_are_escaped_as_the_provider_escapes_them() {
    let statement = Value::List(vec![obj(vec![
        ("actions", list(&["s3:GetObject"])),
        ("resources", list(&["arn:aws:s3:::b/a&b<c>"])),
    ])]);
    let got = policy_document_value(&args(vec![("statement", statement)])).unwrap();
    assert_eq!(
        got.get("minified_json").and_then(Value::as_str),
        Some(
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/a\u0026b\u003cc\u003e"}]}"#
        )
    );
}
