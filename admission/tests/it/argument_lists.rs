//! The checked-in argument lists of the served types against the catalog and the lint: every admitted
//! type has a list naming the pinned AWS provider release, every implemented entry is in the type's
//! schema, every schema attribute is listed, and every refused entry, configured, is an error naming it
//! that says liveplan does not implement it.

use std::collections::BTreeSet;

use admission::{AWS_PROVIDER_VERSION, VariableInputs};
use awscatalog::{ArgumentList, EntryKind, EntryStatus};
use provider::schema::AttributeSchema;

use crate::lint_main;

fn lists() -> Vec<ArgumentList> {
    awscatalog::listed_types()
        .map(|t| awscatalog::argument_list(t).unwrap().unwrap())
        .collect()
}

/// The schema attribute at a listed name (`versioning_configuration.status` inside its block).
fn schema_attribute<'a>(
    schema: &'a provider::ResourceTypeSchema,
    name: &str,
) -> Option<&'a AttributeSchema> {
    let mut parts = name.split('.');
    let mut attr = schema.attribute(parts.next()?)?;
    for part in parts {
        attr = attr.block.as_deref()?.attributes.get(part)?;
    }
    Some(attr)
}

#[test]
fn argument_lists_cover_every_admitted_type_and_name_the_pinned_release() {
    let catalog = awscatalog::catalog();
    let admitted: BTreeSet<&str> = catalog
        .iter()
        .filter(|s| s.is_admitted())
        .map(|s| s.type_name.as_str())
        .collect();
    let listed: BTreeSet<&str> = awscatalog::listed_types().collect();
    assert_eq!(listed, admitted);
    for list in lists() {
        assert_eq!(list.release, AWS_PROVIDER_VERSION, "{}", list.type_name);
    }
}

#[test]
fn argument_lists_implemented_entries_are_in_the_schema_and_every_attribute_is_listed() {
    let catalog = awscatalog::catalog();
    for list in lists() {
        let schema = catalog.get(list.type_name).unwrap();
        for e in &list.entries {
            let what = format!("{}.{}", list.type_name, e.name);
            let attr = schema_attribute(schema, e.name);
            match e.status {
                EntryStatus::Implemented => {
                    let attr = attr.unwrap_or_else(|| panic!("{what} is implemented but unknown"));
                    assert_eq!(attr.is_block(), e.kind == EntryKind::Block, "{what}");
                    assert_eq!(
                        attr.is_computed(),
                        e.kind == EntryKind::Attribute && e.name != "tags",
                        "{what}: an attribute is computed, an argument is not"
                    );
                }
                EntryStatus::Refused | EntryStatus::DeprecatedRefused => {
                    assert!(attr.is_none(), "{what} is refused but in the schema");
                    if let Some((block, arg)) = e.name.split_once('.') {
                        // An argument of a nested block type is refused by the block's schema.
                        let nested = schema.attributes[block].block.as_ref();
                        assert!(
                            nested.is_some_and(|b| b.refused.contains_key(arg)),
                            "{what}: refused in the list, not by its block's schema"
                        );
                        continue;
                    }
                    let refusal = &schema.refused[e.name];
                    assert_eq!(
                        refusal.deprecated,
                        e.status == EntryStatus::DeprecatedRefused,
                        "{what}"
                    );
                }
            }
        }
        let listed: BTreeSet<&str> = list.entries.iter().map(|e| e.name).collect();
        for (name, attr) in &schema.attributes {
            assert!(
                listed.contains(name.as_str()),
                "{}.{name} is not listed",
                list.type_name
            );
            for inner in attr.block.iter().flat_map(|b| b.attributes.keys()) {
                let dotted = format!("{name}.{inner}");
                assert!(
                    listed.contains(dotted.as_str()),
                    "{}.{dotted} is not listed",
                    list.type_name
                );
            }
        }
    }
}

#[test]
fn argument_lists_refused_entries_configured_are_errors_naming_them() {
    for list in lists() {
        for e in list.entries.iter().filter(|e| e.status.is_refused()) {
            let body = match (e.kind, e.name.split_once('.')) {
                (_, Some((block, arg))) => format!("{block} {{\n    {arg} = \"x\"\n  }}"),
                (EntryKind::Block, None) => format!("{} {{}}", e.name),
                _ => format!("{} = \"x\"", e.name),
            };
            let main = format!(
                "live {{ estate = \"acme\" }}\nresource \"{}\" \"x\" {{\n  {body}\n}}\n",
                list.type_name
            );
            let linted = lint_main(&main, &VariableInputs::default());
            let summary = format!(
                "liveplan does not implement the argument `{}` of `{}`",
                e.name, list.type_name
            );
            let found = linted
                .diagnostics
                .iter()
                .find(|d| d.summary == summary)
                .unwrap_or_else(|| {
                    panic!(
                        "{}.{}: no refusal in {:#?}",
                        list.type_name, e.name, linted.diagnostics
                    )
                });
            assert_eq!(found.code.as_str(), "unsupported-construct");
            let deprecated = e.status == EntryStatus::DeprecatedRefused;
            assert_eq!(
                found.detail.contains(&format!(
                    "AWS provider v{AWS_PROVIDER_VERSION} documents it as deprecated"
                )),
                deprecated,
                "{}.{}: {}",
                list.type_name,
                e.name,
                found.detail
            );
        }
    }
}

#[test]
fn argument_lists_refusal_says_what_to_use_instead() {
    let main = "live { estate = \"acme\" }\nresource \"aws_s3_bucket\" \"b\" {\n  bucket = \"acme-b\"\n  acl = \"private\"\n}\n";
    let linted = lint_main(main, &VariableInputs::default());
    let d = linted
        .diagnostics
        .iter()
        .find(|d| d.summary.contains("`acl`"))
        .unwrap();
    assert_eq!(
        d.detail,
        format!(
            "the AWS provider v{AWS_PROVIDER_VERSION} documents it as deprecated: use the aws_s3_bucket_acl resource"
        )
    );
    assert_eq!(linted.diagnostics.len(), 1, "{:#?}", linted.diagnostics);
}

#[test]
fn argument_lists_unknown_argument_is_still_unknown() {
    let main = "live { estate = \"acme\" }\nresource \"aws_s3_bucket\" \"b\" {\n  bucket = \"acme-b\"\n  bukcet_acl = \"private\"\n}\n";
    let linted = lint_main(main, &VariableInputs::default());
    let summaries: Vec<&str> = linted
        .diagnostics
        .iter()
        .map(|d| d.summary.as_str())
        .collect();
    assert_eq!(
        summaries,
        ["Unsupported argument: `aws_s3_bucket` has no argument `bukcet_acl`"]
    );
}

/// The detail of the refusal of `name` configured (as `body`) on a resource of `type_name`.
fn refusal_detail(type_name: &str, name: &str, body: &str) -> String {
    let main =
        format!("live {{ estate = \"acme\" }}\nresource \"{type_name}\" \"x\" {{\n  {body}\n}}\n");
    let linted = lint_main(&main, &VariableInputs::default());
    let summary = format!("liveplan does not implement the argument `{name}` of `{type_name}`");
    linted
        .diagnostics
        .iter()
        .find(|d| d.summary == summary)
        .unwrap_or_else(|| panic!("{type_name}.{name}: {:#?}", linted.diagnostics))
        .detail
        .clone()
}

#[test]
fn argument_lists_deprecations_are_those_of_the_pinned_release() {
    // The provider deprecates aws_iam_role's inline_policy from v5.68.0 and its managed_policy_arns
    // only from v5.72.0 (their release notes), so at 5.70.0 the first is deprecated, the second not.
    let inline = refusal_detail(
        "aws_iam_role",
        "inline_policy",
        "inline_policy {\n    name = \"p\"\n  }",
    );
    assert!(inline.contains("documents it as deprecated"), "{inline}");
    let managed = refusal_detail(
        "aws_iam_role",
        "managed_policy_arns",
        "managed_policy_arns = []",
    );
    assert!(!managed.contains("documents it as deprecated"), "{managed}");
    assert!(
        managed.contains("aws_iam_role_policy_attachment"),
        "{managed}"
    );
}

#[test]
fn argument_lists_documented_attributes_are_refused_by_name() {
    // aws_eip exports `arn` in v5 (its 5.71.0 schema); configured, it is refused by name rather than
    // called unknown.
    let detail = refusal_detail("aws_eip", "arn", "arn = \"x\"");
    assert!(!detail.contains("deprecated"), "{detail}");
}
