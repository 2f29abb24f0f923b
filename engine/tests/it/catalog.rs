//! The catalog: facts of the contract tables, written by hand, checked against the schema data.

use std::collections::BTreeMap;

use admission::Type;
use admission::Value;
use expect_test::expect;
use provider::schema::{AttributeMode, AttributeProblem, BindMatch, Comparison, IdScheme};

/// The whole table of the contract: the AWS types and the engine's record-backed ones.
fn contract() -> provider::Catalog {
    awscatalog::catalog().merged(engine::builtin_catalog())
}

#[test]
fn catalog_has_every_contract_type_with_its_admission_path() {
    let c = contract();
    let paths: Vec<String> = c
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s.type_name,
                s.admission.map_or("none", |p| p.as_str())
            )
        })
        .collect();
    expect![[r#"
        [
            "aws_cloudwatch_log_group client-named",
            "aws_eip marker",
            "aws_eip_association none",
            "aws_iam_access_key list-match",
            "aws_iam_role client-named",
            "aws_iam_user client-named",
            "aws_internet_gateway marker",
            "aws_route parent-derived",
            "aws_route_table marker",
            "aws_route_table_association parent-derived",
            "aws_s3_bucket client-named",
            "aws_s3_bucket_versioning parent-derived",
            "aws_security_group marker",
            "aws_subnet marker",
            "aws_vpc marker",
            "random_id record",
            "terraform_data record",
        ]
    "#]]
    .assert_debug_eq(&paths);
    assert_eq!(
        awscatalog::catalog().len() + engine::builtin_catalog().len(),
        c.len()
    );
    assert!(!awscatalog::catalog().contains("random_id"));
    assert!(engine::builtin_catalog().contains("terraform_data"));
    assert!(!c.get("aws_eip_association").unwrap().is_admitted());
}

#[test]
fn identity_arguments_follow_the_contract() {
    let c = contract();
    let cases: &[(&str, &[&str])] = &[
        ("aws_s3_bucket", &["bucket"]),
        ("aws_s3_bucket_versioning", &["bucket"]),
        ("aws_iam_role", &["name"]),
        ("aws_iam_user", &["name"]),
        ("aws_iam_access_key", &["user"]),
        ("aws_cloudwatch_log_group", &["name"]),
        ("aws_vpc", &[]),
        ("aws_route", &["route_table_id", "destination_cidr_block"]),
        (
            "aws_route_table_association",
            &["subnet_id", "route_table_id"],
        ),
        ("random_id", &[]),
    ];
    for (ty, args) in cases {
        assert_eq!(c.get(ty).unwrap().identity_arguments(), *args, "{ty}");
    }
    let key = c.get("aws_iam_access_key").unwrap();
    assert_eq!(key.match_content, ["status", "user"]);
    let link = key.parent.as_ref().unwrap();
    assert_eq!(
        (
            link.argument.as_str(),
            link.parent_type.as_str(),
            link.inline
        ),
        ("user", "aws_iam_user", false)
    );
    let route = c.get("aws_route").unwrap().parent.as_ref().unwrap();
    assert_eq!(
        (route.parent_type.as_str(), route.inline),
        ("aws_route_table", true)
    );
    let assoc = c
        .get("aws_route_table_association")
        .unwrap()
        .parent
        .as_ref()
        .unwrap();
    assert_eq!(
        (assoc.parent_type.as_str(), assoc.inline),
        ("aws_route_table", true)
    );
}

#[test]
fn force_new_attributes_follow_the_contract() {
    let c = contract();
    let cases: &[(&str, &[&str])] = &[
        ("aws_s3_bucket", &["bucket"]),
        ("aws_s3_bucket_versioning", &["bucket"]),
        ("aws_iam_role", &["name", "path"]),
        ("aws_iam_user", &["name"]),
        ("aws_iam_access_key", &["user"]),
        ("aws_cloudwatch_log_group", &["log_group_class", "name"]),
        ("aws_vpc", &["cidr_block"]),
        ("aws_subnet", &["availability_zone", "cidr_block", "vpc_id"]),
        (
            "aws_security_group",
            &["description", "name", "name_prefix", "vpc_id"],
        ),
        ("aws_internet_gateway", &[]),
        ("aws_route_table", &["vpc_id"]),
        ("aws_eip", &["domain"]),
        ("aws_route", &["destination_cidr_block", "route_table_id"]),
        (
            "aws_route_table_association",
            &["route_table_id", "subnet_id"],
        ),
        ("random_id", &["byte_length", "keepers"]),
        ("terraform_data", &["triggers_replace"]),
    ];
    for (ty, attrs) in cases {
        assert_eq!(c.get(ty).unwrap().force_new_attributes(), *attrs, "{ty}");
    }
}

#[test]
fn defaults_follow_the_contract() {
    let c = contract();
    let cases: &[(&str, &str, Value)] = &[
        ("aws_s3_bucket", "force_destroy", Value::Bool(false)),
        ("aws_iam_role", "description", Value::from("")),
        ("aws_iam_user", "path", Value::from("/")),
        ("aws_iam_access_key", "status", Value::from("Active")),
        (
            "aws_cloudwatch_log_group",
            "retention_in_days",
            Value::from(0),
        ),
        ("aws_vpc", "enable_dns_support", Value::Bool(true)),
        ("aws_vpc", "enable_dns_hostnames", Value::Bool(false)),
        ("aws_vpc", "tags", Value::empty_map()),
        ("aws_subnet", "availability_zone", Value::from("eu-west-1a")),
        ("aws_subnet", "map_public_ip_on_launch", Value::Bool(false)),
        (
            "aws_security_group",
            "description",
            Value::from("Managed by Terraform"),
        ),
        ("aws_internet_gateway", "vpc_id", Value::Null),
        ("aws_eip", "domain", Value::from("vpc")),
        ("aws_route", "gateway_id", Value::Null),
        ("random_id", "keepers", Value::empty_map()),
        ("terraform_data", "input", Value::Null),
        ("terraform_data", "triggers_replace", Value::Null),
    ];
    for (ty, attr, want) in cases {
        let a = c
            .get(ty)
            .unwrap()
            .attribute(attr)
            .unwrap_or_else(|| panic!("{ty}.{attr}"));
        assert_eq!(
            a.default_in("eu-west-1").as_ref(),
            Some(want),
            "{ty}.{attr}"
        );
    }
}

#[test]
fn required_computed_sensitive_and_residue_follow_the_contract() {
    let c = contract();
    let required: &[(&str, &[&str])] = &[
        (
            "aws_s3_bucket_versioning",
            &["bucket", "versioning_configuration"],
        ),
        ("aws_iam_role", &["assume_role_policy", "name"]),
        ("aws_subnet", &["cidr_block", "vpc_id"]),
        (
            "aws_route_table_association",
            &["route_table_id", "subnet_id"],
        ),
        ("aws_eip", &[]),
        ("random_id", &["byte_length"]),
    ];
    for (ty, want) in required {
        let got: Vec<&str> = c
            .get(ty)
            .unwrap()
            .attributes
            .values()
            .filter(|a| a.is_required())
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(got, *want, "{ty}");
    }
    let computed: &[(&str, &[&str])] = &[
        ("aws_s3_bucket", &["arn", "id", "tags_all"]),
        ("aws_iam_access_key", &["id", "secret"]),
        ("aws_eip", &["id", "public_ip", "tags_all"]),
        ("aws_route", &["id"]),
        ("random_id", &["b64_url", "dec", "hex", "id"]),
        ("terraform_data", &["id", "output"]),
    ];
    for (ty, want) in computed {
        let got: Vec<&str> = c
            .get(ty)
            .unwrap()
            .attributes
            .values()
            .filter(|a| a.is_computed())
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(got, *want, "{ty}");
    }
    let secret = c
        .get("aws_iam_access_key")
        .unwrap()
        .attribute("secret")
        .unwrap();
    assert!(secret.sensitive && secret.residue);
    assert_eq!(
        c.get("aws_s3_bucket").unwrap().residue_attributes(),
        ["force_destroy"]
    );
    assert_eq!(
        c.get("aws_vpc").unwrap().residue_attributes(),
        Vec::<&str>::new()
    );
    let policy = c
        .get("aws_iam_role")
        .unwrap()
        .attribute("assume_role_policy")
        .unwrap();
    assert_eq!(policy.comparison, Comparison::JsonDocument);
    let block = c
        .get("aws_s3_bucket_versioning")
        .unwrap()
        .attribute("versioning_configuration")
        .and_then(|a| a.block.as_deref())
        .unwrap();
    assert_eq!((block.min_items, block.max_items), (1, Some(1)));
    assert_eq!(block.attributes["status"].allowed, ["Enabled", "Suspended"]);
    assert_eq!(
        block.attributes["mfa_delete"].allowed,
        ["Enabled", "Disabled"]
    );
    let vpc_id = c.get("aws_subnet").unwrap().attribute("vpc_id").unwrap();
    assert_eq!(vpc_id.references.as_deref(), Some("aws_vpc"));
}

#[test]
fn tags_ids_and_bind_candidates_follow_the_contract() {
    let c = contract();
    let taggable: Vec<&str> = c
        .iter()
        .filter(|s| s.taggable)
        .map(|s| s.type_name.as_str())
        .collect();
    assert_eq!(
        taggable,
        [
            "aws_cloudwatch_log_group",
            "aws_eip",
            "aws_iam_role",
            "aws_iam_user",
            "aws_internet_gateway",
            "aws_route_table",
            "aws_s3_bucket",
            "aws_security_group",
            "aws_subnet",
            "aws_vpc"
        ]
    );
    // The tagging API covers every taggable type except IAM roles and users.
    let swept: Vec<&str> = c
        .iter()
        .filter(|s| s.in_tagging_index)
        .map(|s| s.type_name.as_str())
        .collect();
    assert_eq!(
        swept,
        [
            "aws_cloudwatch_log_group",
            "aws_eip",
            "aws_internet_gateway",
            "aws_route_table",
            "aws_s3_bucket",
            "aws_security_group",
            "aws_subnet",
            "aws_vpc"
        ]
    );
    for s in c.iter() {
        assert_eq!(s.taggable, s.attribute("tags").is_some(), "{}", s.type_name);
        assert!(
            s.attribute("id")
                .is_some_and(|a| a.mode == AttributeMode::Computed),
            "{}",
            s.type_name
        );
    }
    let minted = |ty: &str| match &c.get(ty).unwrap().id_scheme {
        IdScheme::ServerMinted { prefix, hex_digits } => {
            format!("{prefix}{}", "0".repeat(*hex_digits))
        }
        other => format!("{other:?}"),
    };
    assert_eq!(minted("aws_vpc"), "vpc-00000000");
    assert_eq!(minted("aws_eip"), "eipalloc-00000000");
    assert_eq!(minted("aws_iam_access_key"), "AKIA0000000000000000");
    assert_eq!(minted("aws_route_table_association"), "rtbassoc-00000000");
    assert_eq!(minted("aws_s3_bucket"), "IdentityValue");
    assert_eq!(minted("aws_route"), r#"Joined { separator: "_" }"#);
    assert_eq!(minted("random_id"), "Record");
    let bind = |ty: &str| c.get(ty).unwrap().bind_match.clone();
    let fields = |f: &[&str]| BindMatch::Fields(f.iter().map(|s| (*s).to_owned()).collect());
    assert_eq!(bind("aws_vpc"), fields(&["cidr_block"]));
    assert_eq!(
        bind("aws_subnet"),
        fields(&["availability_zone", "cidr_block"])
    );
    assert_eq!(bind("aws_security_group"), fields(&["name", "vpc_id"]));
    assert_eq!(bind("aws_internet_gateway"), BindMatch::Never);
    assert_eq!(bind("aws_eip"), BindMatch::Never);
    assert_eq!(bind("aws_s3_bucket"), BindMatch::NotApplicable);
}

#[test]
fn desired_values_take_defaults_and_leave_unset_tags_unmanaged() {
    let c = contract();
    let subnet = c.get("aws_subnet").unwrap();
    let configured: BTreeMap<String, Value> = [
        ("vpc_id".to_owned(), Value::unknown()),
        ("cidr_block".to_owned(), Value::from("10.0.1.0/24")),
    ]
    .into();
    expect![[r#"{ arn = (known after apply), availability_zone = "us-east-1a", cidr_block = "10.0.1.0/24", id = (known after apply), map_public_ip_on_launch = false, tags_all = (known after apply), vpc_id = (known after apply) }"#]]
        .assert_eq(&Value::Map(subnet.desired(&configured, "us-east-1")).to_string());
    let key = c.get("aws_iam_access_key").unwrap();
    let desired = key.desired(
        &[("user".to_owned(), Value::from("ci"))].into(),
        "us-east-1",
    );
    assert_eq!(
        desired.get("secret"),
        Some(&Value::Unknown(Type::String).sensitive())
    );
    let with_tags = subnet.desired(
        &[("tags".to_owned(), Value::map([("Name", "a")]))].into(),
        "us-east-1",
    );
    assert_eq!(with_tags.get("tags"), Some(&Value::map([("Name", "a")])));
}

#[test]
fn configured_attributes_are_checked_against_the_schema() {
    let c = contract();
    let versioning = c.get("aws_s3_bucket_versioning").unwrap();
    let block = |status: &str| {
        Value::List(vec![Value::Map(
            [("status".to_owned(), Value::from(status))].into(),
        )])
    };
    let configured: BTreeMap<String, Value> = [
        ("versioning_configuration".to_owned(), block("On")),
        ("arn".to_owned(), Value::from("x")),
        ("id".to_owned(), Value::from("x")),
    ]
    .into();
    let problems: Vec<String> = versioning
        .check_configured(&configured)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            r#"unsupported argument "arn""#,
            r#"the argument "bucket" is required"#,
            r#""id" is computed by the provider and cannot be set"#,
            r#""versioning_configuration.status" is "On"; expected one of Enabled, Suspended"#,
        ]
    );
    let ok: BTreeMap<String, Value> = [
        ("bucket".to_owned(), Value::from("b")),
        ("versioning_configuration".to_owned(), block("Enabled")),
    ]
    .into();
    assert_eq!(
        versioning.check_configured(&ok),
        Vec::<AttributeProblem>::new()
    );
}

#[test]
fn json_documents_compare_by_content() {
    let c = contract();
    let policy = c
        .get("aws_iam_role")
        .unwrap()
        .attribute("assume_role_policy")
        .unwrap();
    let a = Value::from(r#"{"Version": "2012-10-17", "Statement": []}"#);
    let b = Value::from(r#"{"Statement":[],"Version":"2012-10-17"}"#);
    assert!(policy.values_match(&a, &b));
    assert!(!policy.values_match(
        &a,
        &Value::from(r#"{"Version": "2008-10-17", "Statement": []}"#)
    ));
    assert!(!policy.values_match(&a, &Value::unknown()));
    // Text that is not JSON compares as text.
    assert!(policy.values_match(&Value::from("not json"), &Value::from("not json")));
    let name = c.get("aws_iam_role").unwrap().attribute("name").unwrap();
    assert!(!name.values_match(&a, &b));
    assert!(name.values_match(&Value::from("r").sensitive(), &Value::from("r")));
}

#[test]
fn inline_sets_and_values_the_provider_chooses_follow_the_contract() {
    let c = contract();
    let block = |ty: &str, name: &str| {
        c.get(ty)
            .unwrap()
            .attribute(name)
            .and_then(|a| a.block.as_deref())
            .cloned()
            .unwrap_or_else(|| panic!("{ty}.{name}"))
    };
    let route = block("aws_route_table", "route");
    assert_eq!(route.nesting, provider::schema::Nesting::Set);
    assert!(route.attributes_as_blocks);
    assert_eq!(route.standalone.as_deref(), Some("aws_route"));
    assert_eq!(
        route.attributes.keys().collect::<Vec<_>>(),
        ["cidr_block", "gateway_id", "network_interface_id"]
    );
    assert!(route.refused.contains_key("nat_gateway_id"));
    for rules in ["ingress", "egress"] {
        let rule = block("aws_security_group", rules);
        assert_eq!(rule.nesting, provider::schema::Nesting::Set, "{rules}");
        assert!(rule.attributes_as_blocks, "{rules}");
        let required: Vec<&str> = rule
            .attributes
            .values()
            .filter(|a| a.is_required())
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(required, ["from_port", "protocol", "to_port"], "{rules}");
    }
    let group = c.get("aws_security_group").unwrap();
    for chosen in ["name", "name_prefix", "vpc_id"] {
        let a = group.attribute(chosen).unwrap();
        assert!(a.is_optional_computed() && a.force_new, "{chosen}");
        assert_eq!(a.default_in("eu-west-1"), None, "{chosen}");
    }
    // Unset, what the provider chooses is not in the desired value (not managed); set, it is.
    let desired = group.desired(&BTreeMap::new(), "eu-west-1");
    assert!(!desired.contains_key("name") && !desired.contains_key("ingress"));
    let named = BTreeMap::from([("name".to_owned(), Value::from("web"))]);
    assert_eq!(
        group.desired(&named, "eu-west-1")["name"],
        Value::from("web")
    );
}

#[test]
fn taggable_types_have_tags_and_a_computed_tags_all_and_untaggable_ones_have_neither() {
    let c = contract();
    let mut taggable = Vec::new();
    let mut untaggable = Vec::new();
    for schema in c.iter() {
        let tags = schema.attribute("tags");
        let all = schema.attribute("tags_all");
        if schema.taggable {
            assert!(
                tags.is_some_and(|a| !a.is_computed()),
                "{}",
                schema.type_name
            );
            assert!(all.is_some_and(|a| a.is_computed()), "{}", schema.type_name);
            taggable.push(schema.type_name.as_str());
        } else {
            assert!(
                tags.is_none() && all.is_none(),
                "{} has tags without being taggable",
                schema.type_name
            );
            untaggable.push(schema.type_name.as_str());
        }
    }
    assert!(taggable.contains(&"aws_vpc") && taggable.contains(&"aws_s3_bucket"));
    assert_eq!(
        untaggable,
        [
            "aws_eip_association",
            "aws_iam_access_key",
            "aws_route",
            "aws_route_table_association",
            "aws_s3_bucket_versioning",
            "random_id",
            "terraform_data"
        ]
    );
}
