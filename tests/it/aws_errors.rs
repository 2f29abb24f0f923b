//! The AWS provider's answers to what the emulator never does (throttling, server errors, denials,
//! redirects, paged bucket listings, tags in the create call), served by a fake endpoint: each failure is a
//! typed `ProviderError` naming the operation, each attempt is exactly one request (the SDK's retries are
//! off), and the requests carry what AWS expects.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use admission::Value;
use liveplan::aws::{AwsError, AwsProvider, AwsProviderConfig, BucketTagging};
use provider::{Call, Counting, CreateRequest, ListRequest, TagFilter, TagQuery};
use provider::{Provider, ProviderErrorKind};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

use crate::aws_fake::{Answer, FakeAws};

fn calls<const N: usize>(pairs: [(&str, u64); N]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

fn bucket(name: &str, tags: &[(&str, &str)]) -> CreateRequest {
    CreateRequest {
        type_name: "aws_s3_bucket".to_owned(),
        attributes: BTreeMap::from([("bucket".to_owned(), Value::from(name))]),
        tags: tags
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    }
}

#[tokio::test]
async fn aws_errors_slow_down_is_throttled_after_exactly_one_request() {
    let fake = FakeAws::start(vec![Answer::s3_error(
        503,
        "SlowDown",
        "Please reduce your request rate.",
    )])
    .await;
    let provider = Counting::new(
        fake.provider("eu-west-1", AwsProviderConfig::default())
            .await,
    );
    let err = provider
        .list(&Call::unrecorded(), ListRequest::all("aws_s3_bucket"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "s3:ListBuckets: throttled: Please reduce your request rate."
    );
    assert!(err.is_retryable());
    assert_eq!(fake.received().len(), 1, "the SDK does not retry");
    assert_eq!(provider.calls(), calls([("s3:ListBuckets", 1)]));
}

#[tokio::test]
async fn aws_errors_server_errors_and_timeouts_are_retryable() {
    let fake = FakeAws::start(vec![
        Answer::s3_error(500, "InternalError", "We encountered an internal error."),
        Answer::s3_error(
            400,
            "RequestTimeout",
            "Your socket connection to the server was not read from or written to within the timeout period.",
        ),
        Answer::tagging_error(400, "ThrottlingException", "Rate exceeded"),
    ])
    .await;
    let provider = Counting::new(
        fake.provider("eu-west-1", AwsProviderConfig::default())
            .await,
    );
    let err = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket", "acme-logs")
        .await
        .unwrap_err();
    assert_eq!(err.operation, "s3:GetBucketTagging");
    assert_eq!(err.kind, ProviderErrorKind::ServerError);
    let err = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket_versioning", "acme-logs")
        .await
        .unwrap_err();
    assert_eq!(err.operation, "s3:GetBucketVersioning");
    assert_eq!(err.kind, ProviderErrorKind::TimedOut);
    let err = provider
        .tagged_resources(&Call::unrecorded(), TagQuery::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tagging:GetResources: throttled: Rate exceeded"
    );
    assert!(err.is_retryable());
    assert_eq!(fake.received().len(), 3);
    assert_eq!(
        provider.calls(),
        calls([
            ("s3:GetBucketTagging", 1),
            ("s3:GetBucketVersioning", 1),
            ("tagging:GetResources", 1),
        ])
    );
}

#[tokio::test]
async fn aws_errors_access_denied_names_the_missing_permission() {
    let fake = FakeAws::start(vec![
        Answer::s3_error(
            403,
            "AccessDenied",
            "User: arn:aws:iam::123456789012:user/ci is not authorized to perform: s3:GetBucketTagging on resource: \"arn:aws:s3:::acme-logs\" because no identity-based policy allows the s3:GetBucketTagging action",
        ),
        Answer::s3_error(403, "AccessDenied", "Access Denied"),
        Answer::tagging_error(400, "AccessDeniedException", "Access Denied"),
    ])
    .await;
    let provider = Counting::new(
        fake.provider("eu-west-1", AwsProviderConfig::default())
            .await,
    );
    let err = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket", "acme-logs")
        .await
        .unwrap_err();
    assert_eq!(
        err.kind,
        ProviderErrorKind::AccessDenied {
            permission: "s3:GetBucketTagging".to_owned()
        }
    );
    assert!(!err.is_retryable());
    // A bare denial: the permission the operation needs, which is not always its own name.
    let err = provider
        .list(&Call::unrecorded(), ListRequest::all("aws_s3_bucket"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "s3:ListBuckets: access denied (missing permission s3:ListAllMyBuckets): Access Denied"
    );
    let err = provider
        .tagged_resources(&Call::unrecorded(), TagQuery::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind,
        ProviderErrorKind::AccessDenied {
            permission: "tag:GetResources".to_owned()
        }
    );
}

#[tokio::test]
async fn aws_errors_a_bucket_in_another_region_is_named_not_followed() {
    let fake = FakeAws::start(vec![
        Answer::s3_error(
            301,
            "PermanentRedirect",
            "The bucket you are attempting to access must be addressed using the specified endpoint.",
        )
        .with_header("x-amz-bucket-region", "us-west-2"),
    ])
    .await;
    let provider = Counting::new(
        fake.provider("eu-west-1", AwsProviderConfig::default())
            .await,
    );
    let err = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket", "acme-logs")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "s3:GetBucketTagging: invalid argument: the bucket is in region us-west-2, not this provider's region"
    );
}

#[tokio::test]
async fn aws_errors_taken_names_outside_us_east_1_are_refused_by_the_create() {
    let fake = FakeAws::start(vec![
        Answer::s3_error(
            409,
            "BucketAlreadyExists",
            "The requested bucket name is not available.",
        ),
        Answer::s3_error(
            409,
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.",
        ),
    ])
    .await;
    let provider = Counting::new(
        fake.provider(
            "eu-west-1",
            AwsProviderConfig {
                bucket_tagging: Some(BucketTagging::AfterCreate),
                ..AwsProviderConfig::default()
            },
        )
        .await,
    );
    for _ in 0..2 {
        let err = provider
            .create(
                &Call::unrecorded(),
                bucket("acme-logs", &[("tofu-estate", "acme")]),
            )
            .await
            .unwrap_err();
        assert_eq!(err.operation, "s3:CreateBucket");
        assert_eq!(err.kind, ProviderErrorKind::AlreadyExists);
    }
    let received = fake.received();
    assert_eq!(
        received.len(),
        2,
        "no HeadBucket outside us-east-1, no tagging"
    );
    assert_eq!(received[0].route(), "PUT /acme-logs");
    assert!(
        received[0]
            .body
            .contains("<LocationConstraint>eu-west-1</LocationConstraint>"),
        "{}",
        received[0].body
    );
}

#[tokio::test]
async fn aws_errors_tags_go_in_the_create_call_against_aws() {
    let fake = FakeAws::start(vec![
        Answer::empty(200).with_header("location", "/acme-logs"),
    ])
    .await;
    let provider = Counting::new(
        fake.provider(
            "eu-west-1",
            AwsProviderConfig {
                bucket_tagging: Some(BucketTagging::InCreateCall),
                ..AwsProviderConfig::default()
            },
        )
        .await,
    );
    let created = provider
        .create(
            &Call::unrecorded(),
            bucket("acme-logs", &[("tofu-estate", "acme")]),
        )
        .await
        .unwrap();
    assert_eq!(
        created.tags.get("tofu-estate").map(String::as_str),
        Some("acme")
    );
    let received = fake.received();
    assert_eq!(
        received.len(),
        1,
        "one call: the bucket never exists unmarked"
    );
    let body = &received[0].body;
    assert!(
        body.contains("<LocationConstraint>eu-west-1</LocationConstraint>")
            && body.contains("<Tag><Key>tofu-estate</Key><Value>acme</Value></Tag>"),
        "{body}"
    );
    assert_eq!(provider.calls(), calls([("s3:CreateBucket", 1)]));
}

#[tokio::test]
async fn aws_errors_a_failed_tagging_after_the_create_deletes_the_bucket_again() {
    let fake = FakeAws::start(vec![
        Answer::empty(200),
        Answer::s3_error(403, "AccessDenied", "Access Denied"),
        Answer::empty(204),
    ])
    .await;
    let provider = Counting::new(
        fake.provider(
            "eu-west-1",
            AwsProviderConfig {
                bucket_tagging: Some(BucketTagging::AfterCreate),
                ..AwsProviderConfig::default()
            },
        )
        .await,
    );
    let err = provider
        .create(
            &Call::unrecorded(),
            bucket("acme-logs", &[("tofu-estate", "acme")]),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "s3:PutBucketTagging: access denied (missing permission s3:PutBucketTagging): Access Denied; \
         the bucket was deleted again"
    );
    let sent: Vec<String> = fake.received().iter().map(|r| r.route()).collect();
    assert_eq!(
        sent,
        [
            "PUT /acme-logs",
            "PUT /acme-logs?tagging",
            "DELETE /acme-logs"
        ]
    );
    assert_eq!(
        provider.calls(),
        calls([
            ("s3:CreateBucket", 1),
            ("s3:DeleteBucket", 1),
            ("s3:PutBucketTagging", 1),
        ])
    );
}

#[tokio::test]
async fn aws_errors_bucket_listings_page_by_continuation_token() {
    let page = |names: &[&str], token: Option<&str>| {
        let buckets: String = names
            .iter()
            .map(|n| {
                format!(
                    "<Bucket><Name>{n}</Name><CreationDate>2026-01-01T00:00:00.000Z</CreationDate><BucketRegion>eu-west-1</BucketRegion></Bucket>"
                )
            })
            .collect();
        let token = token
            .map(|t| format!("<ContinuationToken>{t}</ContinuationToken>"))
            .unwrap_or_default();
        Answer::xml(
            200,
            &format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Owner><ID>o</ID></Owner><Buckets>{buckets}</Buckets>{token}</ListAllMyBucketsResult>"
            ),
        )
    };
    let fake = FakeAws::start(vec![
        page(&["a-1", "a-2"], Some("tok-2")),
        page(&["b-1"], None),
    ])
    .await;
    let provider = Counting::new(
        fake.provider("eu-west-1", AwsProviderConfig::default())
            .await,
    );
    let first = provider
        .list(&Call::unrecorded(), ListRequest::all("aws_s3_bucket"))
        .await
        .unwrap();
    assert_eq!(first.next_page_token.as_deref(), Some("tok-2"));
    assert!(!first.tags_included);
    let ids: Vec<&str> = first.objects.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["a-1", "a-2"]);
    assert_eq!(first.objects[0].region, "eu-west-1");
    assert_eq!(
        first.objects[0].attribute_str("arn"),
        Some("arn:aws:s3:::a-1")
    );
    let second = provider
        .list(
            &Call::unrecorded(),
            ListRequest {
                page_token: first.next_page_token.clone(),
                ..ListRequest::all("aws_s3_bucket")
            },
        )
        .await
        .unwrap();
    assert_eq!(second.next_page_token, None);
    assert_eq!(second.objects.len(), 1);
    let sent: Vec<String> = fake.received().iter().map(|r| r.route()).collect();
    assert_eq!(
        sent,
        [
            "GET /?max-buckets=10000",
            "GET /?continuation-token=tok-2&max-buckets=10000"
        ]
    );
}

#[tokio::test]
async fn aws_errors_tagging_pages_map_bucket_log_group_and_ec2_arns_and_skip_the_rest() {
    let fake = FakeAws::start(vec![Answer::json(
        200,
        r#"{"PaginationToken":"","ResourceTagMappingList":[
            {"ResourceARN":"arn:aws:s3:::acme-logs","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws:s3:eu-west-1:123456789012:accesspoint/ap","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws-cn:s3:::acme-china","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-1","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws:ec2:eu-west-1:123456789012:instance/i-1","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws:ec2:eu-west-1:123456789012:elastic-ip/eipalloc-1","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws:logs:eu-west-1:123456789012:log-group:/acme/app","Tags":[{"Key":"tofu-estate","Value":"acme"}]},
            {"ResourceARN":"arn:aws:logs:eu-west-1:123456789012:destination:acme-dest","Tags":[{"Key":"tofu-estate","Value":"acme"}]}
        ]}"#,
    )])
    .await;
    let provider = Counting::new(
        fake.provider("eu-west-1", AwsProviderConfig::default())
            .await,
    );
    let page = provider
        .tagged_resources(
            &Call::unrecorded(),
            TagQuery {
                tag_filters: vec![TagFilter::equals("tofu-estate", "acme")],
                ..TagQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(page.next_page_token, None, "AWS ends with an empty token");
    let found: Vec<(&str, &str)> = page
        .resources
        .iter()
        .map(|r| (r.type_name.as_str(), r.id.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("aws_s3_bucket", "acme-logs"),
            ("aws_s3_bucket", "acme-china"),
            ("aws_vpc", "vpc-1"),
            ("aws_eip", "eipalloc-1"),
            ("aws_cloudwatch_log_group", "/acme/app")
        ]
    );
    let received = fake.received();
    assert_eq!(
        received[0].header("x-amz-target"),
        Some("ResourceGroupsTaggingAPI_20170126.GetResources")
    );
    let sent: serde_json::Value = serde_json::from_str(&received[0].body).unwrap();
    assert_eq!(
        sent,
        serde_json::json!({
            "TagFilters": [{"Key": "tofu-estate", "Values": ["acme"]}],
            "ResourcesPerPage": 100,
            "ResourceTypeFilters": [
                "s3",
                "logs",
                "ec2:vpc",
                "ec2:subnet",
                "ec2:security-group",
                "ec2:internet-gateway",
                "ec2:route-table",
                "ec2:elastic-ip",
            ]
        })
    );

    // A type this provider does not serve is not asked for at all.
    let none = provider
        .tagged_resources(
            &Call::unrecorded(),
            TagQuery {
                type_names: vec!["aws_instance".to_owned()],
                ..TagQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(none.resources, []);
    assert_eq!(fake.received().len(), 1);
}

#[tokio::test]
async fn aws_errors_no_region_is_a_typed_error_and_aws_tags_in_the_create_call() {
    let bare = aws_config::SdkConfig::builder().build();
    let err = AwsProvider::from_sdk_config(&bare, &AwsProviderConfig::default()).unwrap_err();
    assert_eq!(err, AwsError::NoRegion);
    assert_eq!(
        err.to_string(),
        "no AWS region is configured: set AWS_REGION or the provider's region"
    );
    // Against AWS itself (no endpoint override) new buckets take their tags in the create call.
    let regional = aws_config::SdkConfig::builder()
        .region(aws_config::Region::new("eu-west-1"))
        .build();
    let provider = AwsProvider::from_sdk_config(&regional, &AwsProviderConfig::default()).unwrap();
    assert_eq!(provider.bucket_tagging(), BucketTagging::InCreateCall);
    assert_eq!(provider.region(), "eu-west-1");
    // The configuration's region wins over the SDK's.
    let overridden = AwsProvider::from_sdk_config(
        &regional,
        &AwsProviderConfig {
            region: Some("cn-north-1".to_owned()),
            ..AwsProviderConfig::default()
        },
    )
    .unwrap();
    assert_eq!(overridden.region(), "cn-north-1");
}

/// Records the `operation` field of every span the provider opens, and its error events.
#[derive(Clone, Default)]
struct Spans {
    operations: Arc<Mutex<Vec<String>>>,
    errors: Arc<Mutex<Vec<String>>>,
}

#[derive(Default)]
struct Fields(Vec<(String, String)>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {
        if !attrs.metadata().target().starts_with("awsprovider") {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some((_, op)) = fields.0.into_iter().find(|(k, _)| k == "operation") {
            self.operations.lock().unwrap().push(op);
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target().starts_with("awsprovider")
            && *event.metadata().level() == tracing::Level::ERROR
        {
            let mut fields = Fields::default();
            event.record(&mut fields);
            let text: Vec<String> = fields.0.into_iter().map(|(_, v)| v).collect();
            self.errors.lock().unwrap().push(text.join(" "));
        }
    }
}

#[tokio::test]
async fn aws_errors_each_api_call_has_a_span_naming_its_operation() {
    let _one = crate::tracing_spans::ONE_AT_A_TIME.lock().await;
    crate::tracing_spans::ask_each_time();
    let sequence = [
        Answer::empty(200),
        Answer::s3_error(503, "SlowDown", "Please reduce your request rate."),
        Answer::empty(204),
    ];
    let fake = FakeAws::start([sequence.clone(), sequence].concat()).await;
    let provider = Counting::new(
        fake.provider(
            "eu-west-1",
            AwsProviderConfig {
                bucket_tagging: Some(BucketTagging::AfterCreate),
                ..AwsProviderConfig::default()
            },
        )
        .await,
    );
    // The first run registers every span's call site while tests on other threads may be registering
    // theirs; the subscriber set afterwards recomputes their interest once, with nothing racing it.
    provider
        .create(
            &Call::unrecorded(),
            bucket("acme-logs", &[("tofu-estate", "acme")]),
        )
        .await
        .unwrap_err();
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    // The test runs on one thread, so the thread's default subscriber sees every span of the calls.
    let _default = tracing::subscriber::set_default(subscriber);
    provider
        .create(
            &Call::unrecorded(),
            bucket("acme-logs", &[("tofu-estate", "acme")]),
        )
        .await
        .unwrap_err();
    assert_eq!(
        *spans.operations.lock().unwrap(),
        ["s3:CreateBucket", "s3:PutBucketTagging", "s3:DeleteBucket"]
    );
    let errors = spans.errors.lock().unwrap().clone();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("s3:PutBucketTagging: throttled")),
        "{errors:?}"
    );
}

/// A credential chain that finds nothing, as with no keys, no profile and no role.
#[derive(Debug)]
struct NoCredentials;

impl aws_sdk_s3::config::ProvideCredentials for NoCredentials {
    fn provide_credentials<'a>(
        &'a self,
    ) -> aws_credential_types::provider::future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        aws_credential_types::provider::future::ProvideCredentials::ready(Err(
            aws_credential_types::provider::error::CredentialsError::not_loaded(
                "no credentials found in chain",
            ),
        ))
    }
}

/// A provider for `endpoint` with `credentials`, as a user's environment would configure it.
async fn provider_at(
    endpoint: &str,
    credentials: impl aws_sdk_s3::config::ProvideCredentials + 'static,
) -> AwsProvider {
    let shared = staterecord::s3::sdk_config_from_env(
        Some("eu-west-1".to_owned()),
        Some(endpoint.to_owned()),
    )
    .await
    .to_builder()
    .credentials_provider(aws_sdk_s3::config::SharedCredentialsProvider::new(
        credentials,
    ))
    .build();
    AwsProvider::from_sdk_config(&shared, &AwsProviderConfig::default()).unwrap()
}

#[tokio::test]
async fn aws_errors_an_unreachable_endpoint_is_retryable_and_unusable_credentials_are_not() {
    // Nothing listens on the port: the endpoint is down for now, which waiting may fix.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let fresh = aws_sdk_s3::config::Credentials::new("AKIDTEST", "secret", None, None, "test");
    let down = provider_at(&format!("http://127.0.0.1:{port}"), fresh).await;
    let err = down
        .tagged_resources(&Call::unrecorded(), TagQuery::default())
        .await
        .unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::ServerError, "{err}");
    assert!(err.is_retryable());
    assert!(
        err.to_string().contains("could not reach the endpoint"),
        "{err}"
    );

    // No credentials: nothing is sent, and waiting will not fix it.
    let fake = FakeAws::start(vec![]).await;
    let provider = Counting::new(provider_at(&fake.endpoint, NoCredentials).await);
    let err = provider
        .tagged_resources(&Call::unrecorded(), TagQuery::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind,
        ProviderErrorKind::AccessDenied {
            permission: "tagging:GetResources".to_owned()
        },
        "{err}"
    );
    assert!(!err.is_retryable());
    assert!(err.to_string().contains("could not be sent"), "{err}");
    assert!(fake.received().is_empty());
}
