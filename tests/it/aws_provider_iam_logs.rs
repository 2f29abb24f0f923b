//! The AWS provider's IAM and CloudWatch Logs types against the local AWS emulator (moto server, started
//! by scripts/test): the protocol's conformance check for a role, a user, an access key and a log group,
//! the exact API calls a known sequence costs, and the error kinds IAM and Logs answer with. moto's state is
//! shared by every test, so each test works on names of its own.

use std::collections::{BTreeMap, BTreeSet};

use crate::aws_provider::unique;
use admission::Value;
use liveplan::aws::AwsProvider;
use provider::conformance::{Sample, check_object_lifecycle};
use provider::{
    Call, Counting, CreateRequest, Identity, ListRequest, ParentScope, TagChange, TagFilter,
    TagQuery, UpdateRequest,
};
use provider::{LiveObject, Provider, ProviderErrorKind};

/// A trust policy that lets EC2 assume the role.
pub const TRUST_EC2: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;

/// The emulator (failing, never skipping, when it is missing) and a provider talking to it.
async fn setup() -> Counting<AwsProvider> {
    crate::aws_provider::setup().await.1
}

fn attrs<const N: usize>(pairs: [(&str, Value); N]) -> BTreeMap<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

fn create(type_name: &str, attributes: BTreeMap<String, Value>) -> CreateRequest {
    CreateRequest {
        type_name: type_name.to_owned(),
        attributes,
        tags: BTreeMap::new(),
    }
}

fn role_request(name: &str) -> CreateRequest {
    create(
        "aws_iam_role",
        attrs([
            ("name", Value::from(name)),
            ("assume_role_policy", Value::from(TRUST_EC2)),
            ("description", Value::from("for tests")),
        ]),
    )
}

fn user_request(name: &str) -> CreateRequest {
    create("aws_iam_user", attrs([("name", Value::from(name))]))
}

fn counts<const N: usize>(pairs: [(&str, u64); N]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[tokio::test]
async fn aws_provider_serves_the_s3_iam_logs_and_ec2_types_with_the_catalogs_schemas() {
    let provider = setup().await;
    let served: Vec<String> = provider.schemas().type_names().map(str::to_owned).collect();
    assert_eq!(
        served,
        [
            "aws_cloudwatch_log_group",
            "aws_eip",
            "aws_eip_association",
            "aws_iam_access_key",
            "aws_iam_role",
            "aws_iam_user",
            "aws_internet_gateway",
            "aws_route",
            "aws_route_table",
            "aws_route_table_association",
            "aws_s3_bucket",
            "aws_s3_bucket_versioning",
            "aws_security_group",
            "aws_subnet",
            "aws_vpc",
        ]
    );
    let catalog = awscatalog::catalog();
    for type_name in &served {
        assert_eq!(
            provider.schemas().get(type_name),
            catalog.get(type_name),
            "{type_name} is served with the shared catalog's schema"
        );
    }
}

#[tokio::test]
async fn aws_provider_passes_the_conformance_check_for_a_role() {
    let provider = setup().await;
    let name = unique("conf-role");
    let sample = Sample {
        type_name: "aws_iam_role".to_owned(),
        attributes: role_request(&name).attributes,
        identity: Some(Identity::Name(name.clone())),
        marker: name.clone(),
    };
    check_object_lifecycle(&provider, &sample).await.unwrap();
}

#[tokio::test]
async fn aws_provider_passes_the_conformance_check_for_a_user_and_its_access_key() {
    let provider = setup().await;
    let name = unique("conf-user");
    let sample = Sample {
        type_name: "aws_iam_user".to_owned(),
        attributes: attrs([
            ("name", Value::from(name.as_str())),
            ("path", Value::from("/")),
        ]),
        identity: Some(Identity::Name(name.clone())),
        marker: name.clone(),
    };
    check_object_lifecycle(&provider, &sample).await.unwrap();

    // The key needs its user: made here, removed after.
    provider
        .create(&Call::unrecorded(), user_request(&name))
        .await
        .unwrap();
    let key = Sample {
        type_name: "aws_iam_access_key".to_owned(),
        attributes: attrs([
            ("user", Value::from(name.as_str())),
            ("status", Value::from("Active")),
        ]),
        identity: Some(Identity::Name(name.clone())),
        marker: name.clone(),
    };
    check_object_lifecycle(&provider, &key).await.unwrap();
    provider
        .delete(&Call::unrecorded(), "aws_iam_user", &name)
        .await
        .unwrap();
}

#[tokio::test]
async fn aws_provider_passes_the_conformance_check_for_a_log_group() {
    let provider = setup().await;
    let name = format!("/liveplan/{}", unique("conf-logs"));
    let sample = Sample {
        type_name: "aws_cloudwatch_log_group".to_owned(),
        attributes: attrs([
            ("name", Value::from(name.as_str())),
            ("retention_in_days", Value::from(14)),
        ]),
        identity: Some(Identity::Name(name.clone())),
        marker: name.clone(),
    };
    check_object_lifecycle(&provider, &sample).await.unwrap();
}

#[tokio::test]
async fn aws_provider_role_reads_back_as_created_and_updates_what_differs() {
    let provider = setup().await;
    let name = unique("role-life");
    let created = provider
        .create(&Call::unrecorded(), role_request(&name))
        .await
        .unwrap();
    assert_eq!(created.id, name);
    assert_eq!(created.tags, BTreeMap::new());
    let read = provider
        .read(
            &Call::unrecorded(),
            "aws_iam_role",
            &Identity::Name(name.clone()),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read, created, "a read returns what the create returned");
    let arn = read.attribute_str("arn").unwrap();
    assert!(
        arn.starts_with("arn:aws:iam::") && arn.ends_with(&format!(":role/{name}")),
        "{arn}"
    );
    // The trust policy comes back as the JSON it was given, not URL-encoded.
    let policy: serde_json::Value =
        serde_json::from_str(read.attribute_str("assume_role_policy").unwrap()).unwrap();
    assert_eq!(
        policy,
        serde_json::from_str::<serde_json::Value>(TRUST_EC2).unwrap()
    );
    let keys: BTreeSet<&str> = read.attributes.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "arn",
            "assume_role_policy",
            "description",
            "id",
            "max_session_duration",
            "name",
            "path",
            "permissions_boundary",
        ])
    );

    let before = provider.calls();
    let mut desired = role_request(&name).attributes;
    desired.insert("description".to_owned(), Value::from("changed"));
    let updated = provider
        .update(
            &Call::unrecorded(),
            UpdateRequest {
                type_name: "aws_iam_role".to_owned(),
                id: name.clone(),
                attributes: desired,
                tags: TagChange::default(),
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.attribute_str("description"), Some("changed"));
    let after = provider.calls();
    let spent =
        |op: &str| after.get(op).copied().unwrap_or(0) - before.get(op).copied().unwrap_or(0);
    assert_eq!(
        (
            spent("iam:GetRole"),
            spent("iam:UpdateRole"),
            spent("iam:UpdateAssumeRolePolicy")
        ),
        (1, 1, 0),
        "only the description changed"
    );
    let reread = provider
        .read_by_id(&Call::unrecorded(), "aws_iam_role", &name)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reread, updated);

    // Tags go into the create call and come back with GetRole.
    let tagged_name = unique("role-tags");
    let markers = BTreeMap::from([("tofu-estate".to_owned(), "x".to_owned())]);
    let tagged = provider
        .create(
            &Call::unrecorded(),
            CreateRequest {
                tags: markers.clone(),
                ..role_request(&tagged_name)
            },
        )
        .await
        .unwrap();
    assert_eq!(tagged.tags, markers);
    let read = provider
        .read_by_id(&Call::unrecorded(), "aws_iam_role", &tagged_name)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.tags, markers);
    provider
        .delete(&Call::unrecorded(), "aws_iam_role", &tagged_name)
        .await
        .unwrap();

    provider
        .delete(&Call::unrecorded(), "aws_iam_role", &name)
        .await
        .unwrap();
    assert_eq!(
        provider
            .read_by_id(&Call::unrecorded(), "aws_iam_role", &name)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn aws_provider_access_key_returns_its_secret_once_and_is_found_under_its_user() {
    let provider = setup().await;
    let user = unique("key-user");
    provider
        .create(&Call::unrecorded(), user_request(&user))
        .await
        .unwrap();
    let created = provider
        .create(
            &Call::unrecorded(),
            create(
                "aws_iam_access_key",
                attrs([
                    ("user", Value::from(user.as_str())),
                    ("status", Value::from("Inactive")),
                ]),
            ),
        )
        .await
        .unwrap();
    assert!(
        created.id.starts_with("AKIA") && created.id.len() == 20,
        "{}",
        created.id
    );
    let secret = created
        .attribute("secret")
        .expect("the create returns the secret");
    assert!(secret.is_sensitive());
    assert_eq!(secret.peel().as_str().map(str::len), Some(40));
    assert_eq!(created.attribute_str("status"), Some("Inactive"));

    let read = provider
        .read_by_id(&Call::unrecorded(), "aws_iam_access_key", &created.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.attribute("secret"), None, "no read returns the secret");
    assert_eq!(read.attribute_str("status"), Some("Inactive"));
    assert_eq!(read.attribute_str("user"), Some(user.as_str()));
    let page = provider
        .list(
            &Call::unrecorded(),
            ListRequest {
                parent: Some(ParentScope {
                    type_name: "aws_iam_user".to_owned(),
                    id: user.clone(),
                }),
                ..ListRequest::all("aws_iam_access_key")
            },
        )
        .await
        .unwrap();
    assert_eq!(page.objects, std::slice::from_ref(&read));
    let by_content = provider
        .read(
            &Call::unrecorded(),
            "aws_iam_access_key",
            &Identity::Composite(BTreeMap::from([
                ("user".to_owned(), user.clone()),
                ("status".to_owned(), "Inactive".to_owned()),
            ])),
        )
        .await
        .unwrap();
    assert_eq!(by_content, Some(read));

    provider
        .delete(&Call::unrecorded(), "aws_iam_access_key", &created.id)
        .await
        .unwrap();
    provider
        .delete(&Call::unrecorded(), "aws_iam_user", &user)
        .await
        .unwrap();
    // A key of a user that is gone: absent, not an error.
    assert_eq!(
        provider
            .read(
                &Call::unrecorded(),
                "aws_iam_access_key",
                &Identity::Name(user.clone())
            )
            .await
            .unwrap(),
        None
    );
    let orphan = provider
        .create(
            &Call::unrecorded(),
            create(
                "aws_iam_access_key",
                attrs([("user", Value::from(user.as_str()))]),
            ),
        )
        .await
        .unwrap_err();
    assert_eq!(orphan.kind, ProviderErrorKind::InvalidReference);
}

#[tokio::test]
async fn aws_provider_log_group_keeps_its_tags_from_the_create_and_changes_its_retention() {
    let provider = setup().await;
    let name = format!("/liveplan/{}", unique("logs-life"));
    let estate = unique("logs-estate");
    let markers = BTreeMap::from([
        ("tofu-estate".to_owned(), estate.clone()),
        (
            "tofu-address".to_owned(),
            "aws_cloudwatch_log_group.app".to_owned(),
        ),
    ]);
    let created = provider
        .create(
            &Call::unrecorded(),
            CreateRequest {
                tags: markers.clone(),
                ..create(
                    "aws_cloudwatch_log_group",
                    attrs([("name", Value::from(name.as_str()))]),
                )
            },
        )
        .await
        .unwrap();
    assert_eq!(created.tags, markers);
    assert_eq!(
        created.attribute("retention_in_days"),
        Some(&Value::from(0))
    );
    let arn = created.attribute_str("arn").unwrap();
    assert!(
        arn.starts_with("arn:aws:logs:us-east-1:") && arn.ends_with(&format!(":log-group:{name}")),
        "{arn}"
    );
    let keys: BTreeSet<&str> = created.attributes.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "arn",
            "id",
            "kms_key_id",
            "log_group_class",
            "name",
            "retention_in_days"
        ])
    );

    // The sweep of the estate finds it with its markers: the tags were in the create call.
    let page = provider
        .tagged_resources(
            &Call::unrecorded(),
            TagQuery {
                tag_filters: vec![TagFilter::equals("tofu-estate", estate.clone())],
                ..TagQuery::default()
            },
        )
        .await
        .unwrap();
    let swept: Vec<(String, String, BTreeMap<String, String>)> = page
        .resources
        .into_iter()
        .map(|r| (r.type_name, r.id, r.tags))
        .collect();
    assert_eq!(
        swept,
        [(
            "aws_cloudwatch_log_group".to_owned(),
            name.clone(),
            markers.clone()
        )]
    );

    for days in [30, 0] {
        let updated = provider
            .update(
                &Call::unrecorded(),
                UpdateRequest {
                    type_name: "aws_cloudwatch_log_group".to_owned(),
                    id: name.clone(),
                    attributes: attrs([
                        ("name", Value::from(name.as_str())),
                        ("retention_in_days", Value::from(days)),
                    ]),
                    tags: TagChange::default(),
                },
            )
            .await
            .unwrap();
        let read = provider
            .read_by_id(&Call::unrecorded(), "aws_cloudwatch_log_group", &name)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(read, updated);
        assert_eq!(
            read.attribute("retention_in_days"),
            Some(&Value::from(days))
        );
        assert_eq!(read.tags, markers);
    }
    provider
        .delete(&Call::unrecorded(), "aws_cloudwatch_log_group", &name)
        .await
        .unwrap();
}

#[tokio::test]
async fn aws_provider_counts_each_iam_and_logs_call_by_operation() {
    let provider = setup().await;
    let (role, user) = (unique("count-role"), unique("count-user"));
    let group = format!("/liveplan/{}", unique("count-logs"));
    let c = Call::unrecorded();
    provider.create(&c, role_request(&role)).await.unwrap();
    provider
        .read_by_id(&c, "aws_iam_role", &role)
        .await
        .unwrap();
    provider.delete(&c, "aws_iam_role", &role).await.unwrap();
    provider.create(&c, user_request(&user)).await.unwrap();
    let key = provider
        .create(
            &c,
            create(
                "aws_iam_access_key",
                attrs([("user", Value::from(user.as_str()))]),
            ),
        )
        .await
        .unwrap();
    provider
        .read_by_id(&c, "aws_iam_access_key", &key.id)
        .await
        .unwrap();
    provider
        .delete(&c, "aws_iam_access_key", &key.id)
        .await
        .unwrap();
    provider.delete(&c, "aws_iam_user", &user).await.unwrap();
    provider
        .create(
            &c,
            create(
                "aws_cloudwatch_log_group",
                attrs([
                    ("name", Value::from(group.as_str())),
                    ("retention_in_days", Value::from(7)),
                ]),
            ),
        )
        .await
        .unwrap();
    provider
        .read_by_id(&c, "aws_cloudwatch_log_group", &group)
        .await
        .unwrap();
    provider
        .list(&c, ListRequest::all("aws_cloudwatch_log_group"))
        .await
        .unwrap();
    provider
        .delete(&c, "aws_cloudwatch_log_group", &group)
        .await
        .unwrap();
    // A failed call is still a call; a read of an absent object costs its look.
    provider
        .delete(&c, "aws_cloudwatch_log_group", &group)
        .await
        .unwrap_err();
    assert_eq!(
        provider
            .read_by_id(&c, "aws_iam_user", &user)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        provider.calls(),
        counts([
            ("iam:CreateAccessKey", 1),
            ("iam:CreateRole", 1),
            ("iam:CreateUser", 1),
            ("iam:DeleteAccessKey", 1),
            ("iam:DeleteRole", 1),
            ("iam:DeleteUser", 1),
            ("iam:GetAccessKeyLastUsed", 2),
            ("iam:GetRole", 1),
            ("iam:GetUser", 1),
            ("iam:ListAccessKeys", 1),
            ("logs:CreateLogGroup", 1),
            ("logs:DeleteLogGroup", 2),
            ("logs:DescribeLogGroups", 3),
            ("logs:ListTagsForResource", 1),
            ("logs:PutRetentionPolicy", 1),
        ])
    );
}

#[tokio::test]
async fn aws_provider_iam_and_logs_errors_have_the_protocols_kinds() {
    let provider = setup().await;
    let c = Call::unrecorded();
    let role = unique("err-role");
    provider.create(&c, role_request(&role)).await.unwrap();
    let taken = provider.create(&c, role_request(&role)).await.unwrap_err();
    assert_eq!(
        (taken.kind, taken.operation.as_str()),
        (ProviderErrorKind::AlreadyExists, "iam:CreateRole")
    );

    // A role with a policy attached cannot be deleted: IAM's DeleteConflict, a dependency violation.
    let config = staterecord::s3::sdk_config_from_env(None, None).await;
    let iam = aws_sdk_iam::Client::new(&config);
    iam.put_role_policy()
        .role_name(&role)
        .policy_name("inline")
        .policy_document(r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}]}"#)
        .send()
        .await
        .unwrap();
    let blocked = provider
        .delete(&c, "aws_iam_role", &role)
        .await
        .unwrap_err();
    assert_eq!(
        (blocked.kind, blocked.operation.as_str()),
        (ProviderErrorKind::DependencyViolation, "iam:DeleteRole")
    );
    iam.delete_role_policy()
        .role_name(&role)
        .policy_name("inline")
        .send()
        .await
        .unwrap();
    provider.delete(&c, "aws_iam_role", &role).await.unwrap();
    let gone = provider
        .delete(&c, "aws_iam_role", &role)
        .await
        .unwrap_err();
    assert_eq!(
        (gone.kind, gone.operation.as_str()),
        (ProviderErrorKind::NotFound, "iam:DeleteRole"),
        "absent is an answer on a read only"
    );
    let update = provider
        .update(
            &c,
            UpdateRequest {
                type_name: "aws_iam_role".to_owned(),
                id: role.clone(),
                attributes: role_request(&role).attributes,
                tags: TagChange::default(),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(update.kind, ProviderErrorKind::NotFound);

    let group = format!("/liveplan/{}", unique("err-logs"));
    let request = create(
        "aws_cloudwatch_log_group",
        attrs([("name", Value::from(group.as_str()))]),
    );
    provider.create(&c, request.clone()).await.unwrap();
    let taken = provider.create(&c, request).await.unwrap_err();
    assert_eq!(
        (taken.kind, taken.operation.as_str()),
        (ProviderErrorKind::AlreadyExists, "logs:CreateLogGroup")
    );
    provider
        .delete(&c, "aws_cloudwatch_log_group", &group)
        .await
        .unwrap();
    let gone = provider
        .delete(&c, "aws_cloudwatch_log_group", &group)
        .await
        .unwrap_err();
    assert_eq!(
        (gone.kind, gone.operation.as_str()),
        (ProviderErrorKind::NotFound, "logs:DeleteLogGroup")
    );
    let retag = provider
        .update_tags(
            &c,
            "aws_cloudwatch_log_group",
            &group,
            TagChange {
                set: BTreeMap::from([("team".to_owned(), "a".to_owned())]),
                remove: BTreeSet::new(),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(retag.kind, ProviderErrorKind::NotFound);
    let bad = provider
        .create(
            &c,
            create(
                "aws_cloudwatch_log_group",
                attrs([
                    ("name", Value::from(group.as_str())),
                    ("retention_in_days", Value::from("a week")),
                ]),
            ),
        )
        .await
        .unwrap_err();
    assert_eq!(bad.kind, ProviderErrorKind::InvalidArgument);
}

/// The objects of one full listing of `type_name`, paged to the end.
pub async fn list_everything(provider: &dyn Provider, type_name: &str) -> Vec<LiveObject> {
    let mut request = ListRequest::all(type_name);
    let mut all = Vec::new();
    loop {
        let page = provider
            .list(&Call::unrecorded(), request.clone())
            .await
            .unwrap();
        all.extend(page.objects);
        match page.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => return all,
        }
    }
}

#[tokio::test]
async fn aws_provider_lists_a_role_and_a_log_group_made_outside_the_engine() {
    let provider = setup().await;
    let config = staterecord::s3::sdk_config_from_env(None, None).await;
    let (role, group) = (
        unique("outside-role"),
        format!("/liveplan/{}", unique("outside-logs")),
    );
    aws_sdk_iam::Client::new(&config)
        .create_role()
        .role_name(&role)
        .assume_role_policy_document(TRUST_EC2)
        .send()
        .await
        .unwrap();
    aws_sdk_cloudwatchlogs::Client::new(&config)
        .create_log_group()
        .log_group_name(&group)
        .send()
        .await
        .unwrap();
    let roles = list_everything(&provider, "aws_iam_role").await;
    let found: Vec<&LiveObject> = roles.iter().filter(|o| o.id == role).collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].attribute_str("description"), Some(""));
    let groups = list_everything(&provider, "aws_cloudwatch_log_group").await;
    let found: Vec<&LiveObject> = groups.iter().filter(|o| o.id == group).collect();
    assert_eq!(found.len(), 1);
    let read = provider
        .read_by_id(&Call::unrecorded(), "aws_cloudwatch_log_group", &group)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.tags, BTreeMap::new(), "no tags: no marker");
    provider
        .delete(&Call::unrecorded(), "aws_iam_role", &role)
        .await
        .unwrap();
    provider
        .delete(&Call::unrecorded(), "aws_cloudwatch_log_group", &group)
        .await
        .unwrap();
}
