//! The AWS provider against the local AWS emulator (moto server, started by scripts/test): the protocol's
//! conformance check, bucket and versioning lifecycles, the tagging API's pages and the exact API calls a
//! known sequence costs. moto's state is shared by every test, so each test works on buckets of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use admission::Value;
use liveplan::aws::{AwsProvider, AwsProviderConfig, BucketTagging};
use provider::conformance::{Sample, check_object_lifecycle};
use provider::{
    Call, Counting, CreateRequest, Identity, ListRequest, ParentScope, TagChange, TagFilter,
    TagQuery, UpdateRequest,
};
use provider::{LiveObject, Provider, ProviderErrorKind};
use staterecord::testkit::emulator::S3Emulator;

/// The emulator (failing, never skipping, when it is missing) and a provider talking to it.
pub(crate) async fn setup() -> (S3Emulator, Counting<AwsProvider>) {
    let emulator = S3Emulator::from_env()
        .await
        .expect("the AWS emulator is required: run the tests through scripts/test");
    let provider = AwsProvider::from_env(&AwsProviderConfig::default())
        .await
        .expect("AWS_REGION is set by scripts/test");
    (emulator, Counting::new(provider))
}

/// A name no other test of any process uses (a bucket's, an IAM role's or user's, a log group's).
pub(crate) fn unique(hint: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!(
        "lp-{hint}-{}-{}-{nanos:08x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn tags<const N: usize>(pairs: [(&str, &str); N]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn bucket_request(name: &str, tags: BTreeMap<String, String>) -> CreateRequest {
    CreateRequest {
        type_name: "aws_s3_bucket".to_owned(),
        attributes: BTreeMap::from([
            ("bucket".to_owned(), Value::from(name)),
            ("force_destroy".to_owned(), Value::Bool(false)),
        ]),
        tags,
    }
}

/// The AWS provider v5's `versioning_configuration` block with `status` (and no `mfa_delete`).
fn versioning_block(status: &str) -> Value {
    Value::List(vec![Value::Map(BTreeMap::from([
        ("status".to_owned(), Value::from(status)),
        ("mfa_delete".to_owned(), Value::Null),
    ]))])
}

/// `bucket` (when given) and the versioning block with `status`.
fn versioning(bucket: Option<&str>, status: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::from([(
        "versioning_configuration".to_owned(),
        versioning_block(status),
    )]);
    if let Some(bucket) = bucket {
        out.insert("bucket".to_owned(), Value::from(bucket));
    }
    out
}

/// The status a read versioning configuration holds in its block.
fn versioning_status(object: &LiveObject) -> Option<Value> {
    Some(object.attribute("versioning_configuration")?.as_list()?[0].as_map()?["status"].clone())
}

/// A create of `bucket`'s versioning configuration, enabled.
fn versioning_enabled(bucket: &str) -> CreateRequest {
    CreateRequest {
        type_name: "aws_s3_bucket_versioning".to_owned(),
        attributes: versioning(Some(bucket), "Enabled"),
        tags: BTreeMap::new(),
    }
}

/// An update of `bucket`'s versioning configuration to `attributes`.
fn versioning_update(bucket: &str, attributes: BTreeMap<String, Value>) -> UpdateRequest {
    UpdateRequest {
        type_name: "aws_s3_bucket_versioning".to_owned(),
        id: bucket.to_owned(),
        attributes,
        tags: TagChange::default(),
    }
}

/// Every bucket of one unfiltered listing, paged to the end.
async fn list_all_buckets(provider: &dyn Provider) -> Vec<LiveObject> {
    let mut request = ListRequest::all("aws_s3_bucket");
    let mut all = Vec::new();
    loop {
        let page = provider
            .list(&Call::unrecorded(), request.clone())
            .await
            .unwrap();
        assert!(!page.tags_included, "ListBuckets returns no tags");
        all.extend(page.objects);
        match page.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => return all,
        }
    }
}

/// Every page of the tagging API for `estate`: the (type, id, tags) of each resource, page by page.
async fn sweep_pages(
    provider: &dyn Provider,
    estate: &str,
) -> Vec<Vec<(String, String, BTreeMap<String, String>)>> {
    let mut query = TagQuery {
        tag_filters: vec![TagFilter::equals("tofu-estate", estate)],
        ..TagQuery::default()
    };
    let mut pages = Vec::new();
    loop {
        let page = provider
            .tagged_resources(&Call::unrecorded(), query.clone())
            .await
            .unwrap();
        pages.push(
            page.resources
                .into_iter()
                .map(|r| (r.type_name, r.id, r.tags))
                .collect(),
        );
        match page.next_page_token {
            Some(token) => query.page_token = Some(token),
            None => return pages,
        }
    }
}

#[tokio::test]
async fn aws_provider_passes_the_conformance_check_for_a_bucket() {
    let (_emulator, provider) = setup().await;
    let name = unique("conformance");
    let sample = Sample {
        type_name: "aws_s3_bucket".to_owned(),
        attributes: BTreeMap::from([("bucket".to_owned(), Value::from(name.as_str()))]),
        identity: Some(Identity::Name(name.clone())),
        marker: name.clone(),
    };
    check_object_lifecycle(&provider, &sample).await.unwrap();
}

#[tokio::test]
async fn aws_provider_refuses_a_type_it_does_not_serve() {
    let (_emulator, provider) = setup().await;
    assert_eq!(provider.region(), "us-east-1");
    assert_eq!(
        provider.inner().bucket_tagging(),
        BucketTagging::AfterCreate
    );
    let err = provider
        .list(&Call::unrecorded(), ListRequest::all("aws_instance"))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Unsupported);
    assert_eq!(
        err.to_string(),
        "list: unsupported: the AWS provider does not serve aws_instance"
    );
}

#[tokio::test]
async fn aws_provider_bucket_with_tags_is_listed_swept_retagged_and_deleted() {
    let (_emulator, provider) = setup().await;
    let name = unique("life");
    let estate = unique("estate");
    let markers = tags([
        ("tofu-estate", estate.as_str()),
        ("tofu-address", "aws_s3_bucket.logs"),
    ]);
    let created = provider
        .create(&Call::unrecorded(), bucket_request(&name, markers.clone()))
        .await
        .unwrap();
    assert_eq!(created.id, name);
    assert_eq!(created.tags, markers);
    assert_eq!(
        created.attribute_str("arn"),
        Some(format!("arn:aws:s3:::{name}").as_str())
    );
    assert_eq!(
        created.attribute("force_destroy"),
        None,
        "force_destroy is residue"
    );

    // The listing shows the bucket without tags; the tagging page shows it with them.
    let listed: Vec<LiveObject> = list_all_buckets(&provider)
        .await
        .into_iter()
        .filter(|o| o.id == name)
        .collect();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].attribute_str("bucket"), Some(name.as_str()));
    assert_eq!(listed[0].tags, BTreeMap::new());
    let pages = sweep_pages(&provider, &estate).await;
    assert_eq!(
        pages.concat(),
        [("aws_s3_bucket".to_owned(), name.clone(), markers.clone())]
    );

    // A tags-only update sets and removes exactly the keys given, and keeps the markers.
    let updated = provider
        .update(
            &Call::unrecorded(),
            UpdateRequest {
                type_name: "aws_s3_bucket".to_owned(),
                id: name.clone(),
                attributes: BTreeMap::from([
                    ("bucket".to_owned(), Value::from(name.as_str())),
                    ("force_destroy".to_owned(), Value::Bool(true)),
                ]),
                tags: TagChange {
                    set: tags([("team", "data")]),
                    remove: BTreeSet::new(),
                },
            },
        )
        .await
        .unwrap();
    let mut want = markers.clone();
    want.insert("team".to_owned(), "data".to_owned());
    assert_eq!(updated.tags, want);
    let read = provider
        .read(
            &Call::unrecorded(),
            "aws_s3_bucket",
            &Identity::Name(name.clone()),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.tags, want);
    assert_eq!(read.region, "us-east-1");

    // Removing every tag leaves a bucket that reads with none.
    provider
        .update_tags(
            &Call::unrecorded(),
            "aws_s3_bucket",
            &name,
            TagChange {
                set: BTreeMap::new(),
                remove: want.keys().cloned().collect(),
            },
        )
        .await
        .unwrap();
    let bare = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bare.tags, BTreeMap::new());

    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap();
    assert_eq!(
        provider
            .read_by_id(&Call::unrecorded(), "aws_s3_bucket", &name)
            .await
            .unwrap(),
        None
    );
    let again = provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap_err();
    assert_eq!(again.kind, ProviderErrorKind::NotFound);
    assert_eq!(again.operation, "s3:DeleteBucket");
    let retag = provider
        .update_tags(
            &Call::unrecorded(),
            "aws_s3_bucket",
            &name,
            TagChange::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(retag.kind, ProviderErrorKind::NotFound);
}

#[tokio::test]
async fn aws_provider_refuses_a_taken_name_and_a_non_empty_bucket() {
    let (emulator, provider) = setup().await;
    let name = unique("taken");
    provider
        .create(&Call::unrecorded(), bucket_request(&name, BTreeMap::new()))
        .await
        .unwrap();
    let err = provider
        .create(
            &Call::unrecorded(),
            bucket_request(&name, tags([("tofu-estate", "other")])),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::AlreadyExists);
    assert_eq!(
        provider
            .read_by_id(&Call::unrecorded(), "aws_s3_bucket", &name)
            .await
            .unwrap()
            .unwrap()
            .tags,
        BTreeMap::new(),
        "a refused create never tags the existing bucket"
    );

    emulator
        .client
        .put_object()
        .bucket(&name)
        .key("data.txt")
        .body(aws_sdk_s3::primitives::ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap();
    let err = provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::DependencyViolation);
    assert_eq!(err.operation, "s3:DeleteBucket");
    emulator
        .client
        .delete_object()
        .bucket(&name)
        .key("data.txt")
        .send()
        .await
        .unwrap();
    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap();
}

#[tokio::test]
async fn aws_provider_lists_a_bucket_made_outside_the_engine_without_markers() {
    let (emulator, provider) = setup().await;
    let name = emulator.fresh_bucket("lp-outside").await.unwrap();
    let listed: Vec<LiveObject> = list_all_buckets(&provider)
        .await
        .into_iter()
        .filter(|o| o.id == name)
        .collect();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].tags, BTreeMap::new());
    let read = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.tags,
        BTreeMap::new(),
        "no tag set is a bucket without tags"
    );
    assert!(read.tag("tofu-estate").is_none());
    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap();
}

#[tokio::test]
async fn aws_provider_versioning_enables_suspends_and_reads_back() {
    let (_emulator, provider) = setup().await;
    let name = unique("versioned");
    provider
        .create(&Call::unrecorded(), bucket_request(&name, BTreeMap::new()))
        .await
        .unwrap();
    let parent = ListRequest {
        parent: Some(ParentScope {
            type_name: "aws_s3_bucket".to_owned(),
            id: name.clone(),
        }),
        ..ListRequest::all("aws_s3_bucket_versioning")
    };
    // Never versioned: no configuration.
    assert_eq!(
        provider
            .read(
                &Call::unrecorded(),
                "aws_s3_bucket_versioning",
                &Identity::Name(name.clone())
            )
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        provider
            .list(&Call::unrecorded(), parent.clone())
            .await
            .unwrap()
            .objects,
        []
    );

    let created = provider
        .create(&Call::unrecorded(), versioning_enabled(&name))
        .await
        .unwrap();
    assert_eq!(created.id, name);
    let read = provider
        .read(
            &Call::unrecorded(),
            "aws_s3_bucket_versioning",
            &Identity::Composite(BTreeMap::from([("bucket".to_owned(), name.clone())])),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read, created);
    assert_eq!(
        read.attribute("versioning_configuration"),
        Some(&versioning_block("Enabled"))
    );

    let suspended = provider
        .update(
            &Call::unrecorded(),
            versioning_update(&name, versioning(Some(&name), "Suspended")),
        )
        .await
        .unwrap();
    assert_eq!(
        versioning_status(&suspended),
        Some(Value::from("Suspended"))
    );
    let page = provider
        .list(&Call::unrecorded(), parent.clone())
        .await
        .unwrap();
    assert_eq!(page.objects, std::slice::from_ref(&suspended));

    provider
        .update(
            &Call::unrecorded(),
            versioning_update(&name, versioning(None, "Enabled")),
        )
        .await
        .unwrap();
    // Deleting suspends: S3 has no way back to never versioned.
    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket_versioning", &name)
        .await
        .unwrap();
    let after = provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket_versioning", &name)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(versioning_status(&after), Some(Value::from("Suspended")));

    let bad = provider
        .update(
            &Call::unrecorded(),
            versioning_update(&name, versioning(None, "Disabled")),
        )
        .await
        .unwrap_err();
    assert_eq!(bad.kind, ProviderErrorKind::InvalidArgument);

    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap();
    let orphan = provider
        .create(&Call::unrecorded(), versioning_enabled(&name))
        .await
        .unwrap_err();
    assert_eq!(orphan.kind, ProviderErrorKind::InvalidReference);
    assert_eq!(
        provider
            .read_by_id(&Call::unrecorded(), "aws_s3_bucket_versioning", &name)
            .await
            .unwrap(),
        None,
        "no bucket, no configuration"
    );
}

#[tokio::test]
async fn aws_provider_tagging_pages_hold_at_most_100_and_chain_by_token() {
    let (emulator, provider) = setup().await;
    let estate = unique("estate150");
    let names: BTreeSet<String> = (0..150).map(|i| format!("{estate}-{i:03}")).collect();
    // Ten writers at once: the emulator answers concurrent requests, and the test stays quick.
    let mut writers = tokio::task::JoinSet::new();
    for lane in 0..10 {
        let client = emulator.client.clone();
        let estate = estate.clone();
        writers.spawn(async move {
            for i in (lane..150).step_by(10) {
                let name = format!("{estate}-{i:03}");
                client.create_bucket().bucket(&name).send().await.unwrap();
                let tag = |k: &str, v: String| {
                    aws_sdk_s3::types::Tag::builder()
                        .key(k)
                        .value(v)
                        .build()
                        .unwrap()
                };
                let tagging = aws_sdk_s3::types::Tagging::builder()
                    .tag_set(tag("tofu-estate", estate.clone()))
                    .tag_set(tag("tofu-address", format!("aws_s3_bucket.b:{i}")))
                    .build()
                    .unwrap();
                client
                    .put_bucket_tagging()
                    .bucket(&name)
                    .tagging(tagging)
                    .send()
                    .await
                    .unwrap();
            }
        });
    }
    while let Some(done) = writers.join_next().await {
        done.unwrap();
    }
    let before = provider.calls();
    let pages = sweep_pages(&provider, &estate).await;
    // AWS documents at most 100 resources a page (fewer is allowed), a token on every page but the last,
    // and each resource once.
    assert!(pages.len() >= 2, "150 resources need at least two pages");
    assert!(
        pages.iter().all(|p| p.len() <= 100),
        "{:?}",
        pages.iter().map(Vec::len).collect::<Vec<_>>()
    );
    let swept: Vec<&String> = pages.iter().flatten().map(|(_, id, _)| id).collect();
    assert_eq!(swept.len(), 150);
    assert_eq!(swept.into_iter().cloned().collect::<BTreeSet<_>>(), names);
    assert!(
        pages
            .iter()
            .flatten()
            .all(|(t, id, tags)| t == "aws_s3_bucket"
                && tags.get("tofu-estate") == Some(&estate)
                && tags.len() == 2
                && id.starts_with(&estate))
    );
    let after = provider.calls();
    assert_eq!(
        after.get("tagging:GetResources").copied().unwrap_or(0)
            - before.get("tagging:GetResources").copied().unwrap_or(0),
        pages.len() as u64,
        "one call a page"
    );
    let mut cleaners = tokio::task::JoinSet::new();
    for lane in 0..10 {
        let client = emulator.client.clone();
        let mine: Vec<String> = names.iter().skip(lane).step_by(10).cloned().collect();
        cleaners.spawn(async move {
            for name in mine {
                client.delete_bucket().bucket(&name).send().await.unwrap();
            }
        });
    }
    while let Some(done) = cleaners.join_next().await {
        done.unwrap();
    }
}

#[tokio::test]
async fn aws_provider_counts_each_api_call_by_operation() {
    let (_emulator, provider) = setup().await;
    let name = unique("counted");
    let markers = tags([
        ("tofu-estate", "counted"),
        ("tofu-address", "aws_s3_bucket.c"),
    ]);
    provider
        .create(&Call::unrecorded(), bucket_request(&name, markers))
        .await
        .unwrap();
    provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap();
    provider
        .list(&Call::unrecorded(), ListRequest::all("aws_s3_bucket"))
        .await
        .unwrap();
    provider
        .tagged_resources(
            &Call::unrecorded(),
            TagQuery {
                tag_filters: vec![TagFilter::equals("tofu-estate", "counted")],
                ..TagQuery::default()
            },
        )
        .await
        .unwrap();
    provider
        .update_tags(
            &Call::unrecorded(),
            "aws_s3_bucket",
            &name,
            TagChange {
                set: tags([("team", "x")]),
                remove: BTreeSet::new(),
            },
        )
        .await
        .unwrap();
    provider
        .create(&Call::unrecorded(), versioning_enabled(&name))
        .await
        .unwrap();
    provider
        .read_by_id(&Call::unrecorded(), "aws_s3_bucket_versioning", &name)
        .await
        .unwrap();
    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket_versioning", &name)
        .await
        .unwrap();
    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap();
    // A failed call is still a call.
    provider
        .delete(&Call::unrecorded(), "aws_s3_bucket", &name)
        .await
        .unwrap_err();
    // A type it does not serve costs nothing.
    provider
        .list(&Call::unrecorded(), ListRequest::all("aws_instance"))
        .await
        .unwrap_err();

    let expected: BTreeMap<String, u64> = [
        ("s3:CreateBucket", 1),
        ("s3:DeleteBucket", 2),
        ("s3:GetBucketTagging", 2),
        ("s3:GetBucketVersioning", 1),
        ("s3:HeadBucket", 1),
        ("s3:ListBuckets", 1),
        ("s3:PutBucketTagging", 2),
        ("s3:PutBucketVersioning", 2),
        ("tagging:GetResources", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(provider.calls(), expected);
}

#[tokio::test]
async fn aws_provider_dead_endpoint_is_a_retryable_error_not_a_panic() {
    // Nothing listens on port 1: the connection is refused at once.
    let provider = Counting::new(
        AwsProvider::from_env(&AwsProviderConfig {
            region: Some("eu-west-1".to_owned()),
            endpoint_url: Some("http://127.0.0.1:1".to_owned()),
            ..AwsProviderConfig::default()
        })
        .await
        .unwrap(),
    );
    assert_eq!(provider.region(), "eu-west-1");
    let err = provider
        .list(&Call::unrecorded(), ListRequest::all("aws_s3_bucket"))
        .await
        .unwrap_err();
    assert_eq!(err.operation, "s3:ListBuckets");
    assert_eq!(err.kind, ProviderErrorKind::ServerError);
    assert!(err.is_retryable());
    assert!(
        err.message.starts_with("could not reach the endpoint"),
        "{err}"
    );
    let err = provider
        .tagged_resources(&Call::unrecorded(), TagQuery::default())
        .await
        .unwrap_err();
    assert_eq!(err.operation, "tagging:GetResources");
    assert!(err.is_retryable());
    let expected: BTreeMap<String, u64> = [("s3:ListBuckets", 1), ("tagging:GetResources", 1)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    assert_eq!(
        provider.calls(),
        expected,
        "each attempt once: no SDK retries"
    );
}
