//! The provider protocol: error kinds, attempts reported to the call's recorder and counted by the
//! `Counting` decorator, the default methods on an embedder's small in-memory provider (which implements
//! only the required ones), the defaults of the next surface, and the conformance checks.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use async_trait::async_trait;
use provider::Catalog;
use provider::Type;
use provider::conformance::{self, Sample};
use provider::schema::{AttributeSchema, ResourceTypeSchema};
use provider::{AdmissionPath, Value};
use provider::{
    AssumeRole, Call, CallCounts, Counting, CreateRequest, DataSourceRequest, Decorate, Identity,
    ListPage, ListRequest, LiveObject, Method, Next, Provider, ProviderConfig, ProviderError,
    ProviderErrorKind, RateLimits, Recorder, TagChange, TagFilter, TagQuery, UpdateRequest,
    configured,
};

/// Runs a future that never waits on anything (the in-memory provider answers at once).
fn ready<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("the in-memory provider never waits"),
    }
}

/// A key/value cloud: `kv_item` objects named by `key`, tagged, listed two per page.
#[derive(Default)]
struct KvCloud {
    items: Mutex<BTreeMap<String, LiveObject>>,
    /// Breaks one rule: creates drop the tags (an object would exist unmarked).
    untagged_creates: bool,
}

impl KvCloud {
    fn object(&self, key: &str) -> Option<LiveObject> {
        self.items.lock().unwrap().get(key).cloned()
    }
}

#[async_trait]
impl Provider for KvCloud {
    fn region(&self) -> String {
        "local".to_owned()
    }

    fn schemas(&self) -> &Catalog {
        static CATALOG: std::sync::LazyLock<Catalog> = std::sync::LazyLock::new(|| {
            Catalog::new([
                ResourceTypeSchema::new("kv_item", Some(AdmissionPath::ClientNamed))
                    .identity(["key"])
                    .taggable(true)
                    .with_attribute(AttributeSchema::required("key", Type::String).force_new())
                    .with_attribute(AttributeSchema::optional(
                        "value",
                        Type::String,
                        Value::from(""),
                    )),
            ])
        });
        &CATALOG
    }

    async fn list(&self, call: &Call<'_>, request: ListRequest) -> Result<ListPage, ProviderError> {
        call.attempt("kv:List");
        if request.type_name != "kv_item" {
            return Err(ProviderError::new(
                "kv:List",
                ProviderErrorKind::Unsupported,
                request.type_name,
            ));
        }
        let items = self.items.lock().unwrap();
        let start: usize = request
            .page_token
            .as_deref()
            .map_or(0, |t| t.parse().unwrap());
        let matching: Vec<LiveObject> = items
            .values()
            .filter(|o| TagFilter::all_match(&request.tag_filters, &o.tags))
            .cloned()
            .collect();
        let objects: Vec<LiveObject> = matching.iter().skip(start).take(2).cloned().collect();
        let next_page_token = (start + 2 < matching.len()).then(|| (start + 2).to_string());
        Ok(ListPage {
            objects,
            children: Vec::new(),
            tags_included: true,
            next_page_token,
        })
    }

    async fn create(
        &self,
        call: &Call<'_>,
        request: CreateRequest,
    ) -> Result<LiveObject, ProviderError> {
        call.attempt("kv:Put");
        let key = request
            .attributes
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mut items = self.items.lock().unwrap();
        if items.contains_key(&key) {
            return Err(ProviderError::new(
                "kv:Put",
                ProviderErrorKind::AlreadyExists,
                key,
            ));
        }
        let object = LiveObject {
            type_name: request.type_name,
            id: key.clone(),
            region: "local".to_owned(),
            attributes: request.attributes,
            tags: if self.untagged_creates {
                BTreeMap::new()
            } else {
                request.tags
            },
        };
        items.insert(key, object.clone());
        Ok(object)
    }

    async fn update(
        &self,
        call: &Call<'_>,
        request: UpdateRequest,
    ) -> Result<LiveObject, ProviderError> {
        call.attempt("kv:Update");
        let mut items = self.items.lock().unwrap();
        let object = items
            .get_mut(&request.id)
            .ok_or_else(|| ProviderError::not_found("kv:Update", request.id.clone()))?;
        object.attributes = request.attributes;
        object.tags = request.tags.applied_to(&object.tags);
        Ok(object.clone())
    }

    async fn delete(
        &self,
        call: &Call<'_>,
        _type_name: &str,
        id: &str,
    ) -> Result<(), ProviderError> {
        call.attempt("kv:Delete");
        match self.items.lock().unwrap().remove(id) {
            Some(_) => Ok(()),
            None => Err(ProviderError::not_found("kv:Delete", id)),
        }
    }
}

fn put(cloud: &dyn Provider, key: &str, estate: Option<&str>) {
    let tags = estate
        .map(|e| ("tofu-estate".to_owned(), e.to_owned()))
        .into_iter()
        .collect();
    let attributes = [
        ("key".to_owned(), Value::from(key)),
        ("value".to_owned(), Value::from("v")),
    ]
    .into();
    ready(cloud.create(
        &Call::unrecorded(),
        CreateRequest {
            type_name: "kv_item".to_owned(),
            attributes,
            tags,
        },
    ))
    .unwrap();
}

#[test]
fn provider_errors_name_the_operation_and_kind() {
    let cases: Vec<(ProviderError, &str, bool)> = vec![
        (
            ProviderError::throttled("ec2:DescribeVpcs"),
            "ec2:DescribeVpcs: throttled",
            true,
        ),
        (
            ProviderError::server_error("s3:ListBuckets"),
            "s3:ListBuckets: server error",
            true,
        ),
        (
            ProviderError::new("logs:DescribeLogGroups", ProviderErrorKind::TimedOut, ""),
            "logs:DescribeLogGroups: timed out",
            true,
        ),
        (
            ProviderError::access_denied("iam:ListRoles", "iam:ListRoles"),
            "iam:ListRoles: access denied (missing permission iam:ListRoles)",
            false,
        ),
        (
            ProviderError::not_found("ec2:DeleteVpc", "vpc-00000001"),
            "ec2:DeleteVpc: not found: vpc-00000001",
            false,
        ),
        (
            ProviderError::new(
                "s3:CreateBucket",
                ProviderErrorKind::AlreadyExists,
                "acme-data",
            ),
            "s3:CreateBucket: already exists: acme-data",
            false,
        ),
        (
            ProviderError::new(
                "ec2:DeleteVpc",
                ProviderErrorKind::DependencyViolation,
                "vpc has subnets",
            ),
            "ec2:DeleteVpc: dependency violation: vpc has subnets",
            false,
        ),
        (
            ProviderError::new(
                "ec2:CreateSubnet",
                ProviderErrorKind::InvalidReference,
                "vpc-0000000f",
            ),
            "ec2:CreateSubnet: invalid reference: vpc-0000000f",
            false,
        ),
        (
            ProviderError::new(
                "ec2:CreateVpc",
                ProviderErrorKind::InvalidArgument,
                "bad cidr",
            ),
            "ec2:CreateVpc: invalid argument: bad cidr",
            false,
        ),
        (
            ProviderError::new("kv:List", ProviderErrorKind::Unsupported, ""),
            "kv:List: unsupported",
            false,
        ),
        (
            ProviderError::new(
                "configure",
                ProviderErrorKind::UnsupportedSetting {
                    setting: "region".to_owned(),
                },
                "",
            ),
            "configure: unsupported provider setting region",
            false,
        ),
    ];
    for (err, text, retryable) in cases {
        assert_eq!(err.to_string(), text);
        assert_eq!(err.is_retryable(), retryable, "{text}");
    }
    assert!(ProviderError::not_found("ec2:DescribeVpcs", "").is_not_found());
    assert!(!ProviderError::throttled("ec2:DescribeVpcs").is_not_found());
}

#[test]
fn call_counts_add_up_attempts_by_operation() {
    let counts = CallCounts::new();
    let call = Call::new(&counts);
    for op in [
        "ec2:DescribeVpcs",
        "ec2:DescribeVpcs",
        "tagging:GetResources",
    ] {
        call.attempt(op);
    }
    let want: BTreeMap<String, u64> = [
        ("ec2:DescribeVpcs".to_owned(), 2),
        ("tagging:GetResources".to_owned(), 1),
    ]
    .into();
    assert_eq!(counts.snapshot(), want);
    assert_eq!(counts.total(), 3);
    assert_eq!(counts.of("ec2:DescribeVpcs"), 2);
    assert_eq!(counts.of("s3:ListBuckets"), 0);
    counts.reset();
    assert_eq!(counts.total(), 0);
    // A call reported nowhere costs nothing anywhere.
    Call::unrecorded().attempt("ec2:DescribeVpcs");
    assert_eq!(counts.total(), 0);
}

#[test]
fn provider_default_reads_page_through_the_listing() {
    let cloud = Arc::new(Counting::new(KvCloud::default()));
    for key in ["a", "b", "c", "d", "e"] {
        put(cloud.as_ref(), key, None);
    }
    let call = Call::unrecorded();
    let found = ready(cloud.read(&call, "kv_item", &Identity::Name("e".to_owned())))
        .unwrap()
        .unwrap();
    assert_eq!(found.id, "e");
    assert_eq!(found.attribute_str("value"), Some("v"));
    assert_eq!(
        ready(cloud.read(&call, "kv_item", &Identity::Name("zz".to_owned()))).unwrap(),
        None
    );
    assert_eq!(
        ready(cloud.read_by_id(&call, "kv_item", "c"))
            .unwrap()
            .map(|o| o.id),
        Some("c".to_owned())
    );
    // Five items at two per page: three pages for "e", three for the miss, two for "c", plus five creates.
    let calls = cloud.calls();
    assert_eq!(calls.get("kv:List"), Some(&8));
    assert_eq!(calls.get("kv:Put"), Some(&5));
    let err = ready(cloud.read_by_id(&call, "nope", "x")).unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Unsupported);
    // The failed listing was an attempt too.
    assert_eq!(cloud.calls_of("kv:List"), 9);
}

#[test]
fn counting_reports_each_attempt_to_the_callers_recorder_too() {
    let cloud = Counting::new(KvCloud::default());
    put(&cloud, "a", None);
    let mine = CallCounts::new();
    let theirs = CallCounts::new();
    ready(cloud.read_by_id(&Call::new(&mine), "kv_item", "a")).unwrap();
    ready(cloud.read_by_id(&Call::new(&theirs), "kv_item", "a")).unwrap();
    ready(cloud.delete(&Call::new(&theirs), "kv_item", "zz")).unwrap_err();
    // Each caller sees what its own calls cost; the decorator sees everything, the failed delete included.
    assert_eq!(mine.snapshot(), [("kv:List".to_owned(), 1)].into());
    assert_eq!(
        theirs.snapshot(),
        [("kv:Delete".to_owned(), 1), ("kv:List".to_owned(), 1)].into()
    );
    assert_eq!(
        cloud.calls(),
        [
            ("kv:Delete".to_owned(), 1),
            ("kv:List".to_owned(), 2),
            ("kv:Put".to_owned(), 1)
        ]
        .into()
    );
    cloud.reset();
    assert_eq!(cloud.total(), 0);
    // Stacked decorators each count every attempt.
    let outer = Counting::new(&cloud);
    ready(outer.list(&Call::unrecorded(), ListRequest::all("kv_item"))).unwrap();
    assert_eq!((outer.total(), cloud.total()), (1, 1));
    assert_eq!(outer.inner().region(), "local");
}

/// A recorder that remembers the order of the attempts.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Recorder for Log {
    fn attempt(&self, operation: &str) {
        self.0.lock().unwrap().push(operation.to_owned());
    }
}

#[test]
fn a_default_tags_only_update_reports_its_read_and_its_update() {
    let cloud = KvCloud::default();
    put(&cloud, "a", None);
    let log = Log::default();
    let change = TagChange {
        set: [("team".to_owned(), "a".to_owned())].into(),
        remove: Default::default(),
    };
    ready(cloud.update_tags(&Call::new(&log), "kv_item", "a", change)).unwrap();
    assert_eq!(*log.0.lock().unwrap(), ["kv:List", "kv:Update"]);
}

#[test]
fn the_next_surface_defaults_offer_nothing_and_refuse_what_they_cannot_honour() {
    let cloud: Arc<dyn Provider> = Arc::new(KvCloud::default());
    let call = Call::unrecorded();
    let err =
        ready(cloud.read_data_source(&call, DataSourceRequest::new("kv_caller"))).unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Unsupported);
    assert_eq!(
        err.to_string(),
        "read_data_source: unsupported: no data source kv_caller"
    );
    assert_eq!(cloud.rate_limits(), RateLimits::none());
    // Asking for nothing beyond what the provider is keeps the provider itself.
    for config in [
        ProviderConfig::new(),
        ProviderConfig::new().with_alias("west"),
        ProviderConfig::new().with_region("local"),
    ] {
        let same = ready(configured(Arc::clone(&cloud), &call, &config)).unwrap();
        assert!(Arc::ptr_eq(&same, &cloud), "{config:?}");
    }
    let refused = [
        (ProviderConfig::new().with_region("us-west-2"), "region"),
        (ProviderConfig::new().with_profile("prod"), "profile"),
        (
            ProviderConfig::new().with_assume_role(
                AssumeRole::new("arn:aws:iam::123456789012:role/deploy")
                    .with_session_name("liveplan")
                    .with_external_id("x"),
            ),
            "assume_role",
        ),
        (
            ProviderConfig::new().with_default_tag("team", "net"),
            "default_tags",
        ),
    ];
    for (config, setting) in refused {
        let err = ready(configured(Arc::clone(&cloud), &call, &config))
            .err()
            .expect("refused");
        assert_eq!(
            err.kind,
            ProviderErrorKind::UnsupportedSetting {
                setting: setting.to_owned()
            }
        );
    }
    // A decorator forwards the next surface too.
    let counted = Counting::new(Arc::clone(&cloud));
    assert_eq!(counted.rate_limits(), RateLimits::none());
    assert!(
        ready(counted.configure(&call, &ProviderConfig::new()))
            .unwrap()
            .is_none()
    );
}

#[test]
fn provider_default_tagging_sweep_pages_over_tagged_types() {
    let cloud = KvCloud::default();
    for (key, estate) in [
        ("a", Some("prod")),
        ("b", None),
        ("c", Some("prod")),
        ("d", Some("dev")),
        ("e", Some("prod")),
    ] {
        put(&cloud, key, estate);
    }
    let query = TagQuery {
        tag_filters: vec![TagFilter::equals("tofu-estate", "prod")],
        ..TagQuery::default()
    };
    let mut seen = Vec::new();
    let mut token = None;
    loop {
        let page = ready(cloud.tagged_resources(
            &Call::unrecorded(),
            TagQuery {
                page_token: token,
                ..query.clone()
            },
        ))
        .unwrap();
        seen.extend(
            page.resources
                .into_iter()
                .map(|r| format!("{} {}", r.type_name, r.id)),
        );
        match page.next_page_token {
            Some(t) => token = Some(t),
            None => break,
        }
    }
    assert_eq!(seen, ["kv_item a", "kv_item c", "kv_item e"]);
}

#[test]
fn provider_default_tag_update_changes_only_tags() {
    let cloud = KvCloud::default();
    put(&cloud, "a", Some("prod"));
    let change = TagChange {
        set: [("tofu-address".to_owned(), "kv_item.a".to_owned())].into(),
        remove: ["tofu-estate".to_owned()].into(),
    };
    ready(cloud.update_tags(&Call::unrecorded(), "kv_item", "a", change)).unwrap();
    let object = cloud.object("a").unwrap();
    assert_eq!(
        object.tags,
        [("tofu-address".to_owned(), "kv_item.a".to_owned())].into()
    );
    assert_eq!(object.attribute_str("value"), Some("v"));
    assert_eq!(object.attribute_str("key"), Some("a"));
    let missing =
        ready(cloud.update_tags(&Call::unrecorded(), "kv_item", "zz", TagChange::default()))
            .unwrap_err();
    assert!(missing.is_not_found());
}

#[test]
fn identities_match_live_objects_by_their_arguments() {
    let route = LiveObject {
        type_name: "aws_route".to_owned(),
        id: "rtb-00000001_0.0.0.0/0".to_owned(),
        region: "us-east-1".to_owned(),
        attributes: [
            ("route_table_id".to_owned(), Value::from("rtb-00000001")),
            (
                "destination_cidr_block".to_owned(),
                Value::from("0.0.0.0/0"),
            ),
        ]
        .into(),
        tags: BTreeMap::new(),
    };
    let args = [
        "route_table_id".to_owned(),
        "destination_cidr_block".to_owned(),
    ];
    let id = |rtb: &str| {
        Identity::Composite(
            [
                ("route_table_id".to_owned(), rtb.to_owned()),
                ("destination_cidr_block".to_owned(), "0.0.0.0/0".to_owned()),
            ]
            .into(),
        )
    };
    assert!(id("rtb-00000001").matches(&args, &route));
    assert!(!id("rtb-00000002").matches(&args, &route));
    assert_eq!(
        id("rtb-00000001").to_string(),
        "destination_cidr_block=0.0.0.0/0, route_table_id=rtb-00000001"
    );
    let json = serde_json::to_value(&route).unwrap();
    assert_eq!(json["type"], "aws_route");
    assert_eq!(serde_json::from_value::<LiveObject>(json).unwrap(), route);
}

fn sample(key: &str) -> Sample {
    Sample {
        type_name: "kv_item".to_owned(),
        attributes: [
            ("key".to_owned(), Value::from(key)),
            ("value".to_owned(), Value::from("v")),
        ]
        .into(),
        identity: Some(Identity::Name(key.to_owned())),
        marker: format!("run-{key}"),
    }
}

#[test]
fn provider_conformance_passes_for_a_provider_that_keeps_the_rules() {
    let cloud = KvCloud::default();
    for key in ["a", "b", "c"] {
        put(&cloud, key, Some("prod"));
    }
    assert_eq!(
        ready(conformance::check_object_lifecycle(&cloud, &sample("new"))),
        Ok(())
    );
    // The check leaves the rest of the cloud as it found it.
    assert_eq!(
        cloud.items.lock().unwrap().keys().collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
}

/// A provider that breaks the reporting rule: it reports only the attempts that succeed (as a provider
/// counting answers rather than attempts would), or none at all.
struct Unreported {
    cloud: KvCloud,
    /// Whether successful attempts are still reported.
    successes: bool,
}

impl Unreported {
    fn report<T>(
        &self,
        call: &Call<'_>,
        answer: Result<T, ProviderError>,
    ) -> Result<T, ProviderError> {
        // The inner cloud reports into a recorder nobody reads; only what is passed on here counts.
        if self.successes
            && let Ok(_) = &answer
        {
            call.attempt("kv:Answered");
        }
        answer
    }
}

#[async_trait]
impl Decorate for Unreported {
    type Inner = KvCloud;

    fn inner(&self) -> &KvCloud {
        &self.cloud
    }

    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        let answer = next.run(&Call::unrecorded()).await;
        self.report(next.call(), answer)
    }
}

#[test]
fn provider_conformance_names_the_broken_rule() {
    let broken = KvCloud {
        untagged_creates: true,
        ..KvCloud::default()
    };
    let err = ready(conformance::check_object_lifecycle(&broken, &sample("x"))).unwrap_err();
    assert_eq!(err.to_string(), "create sets the tags in the same call: {}");
    let unknown_type = Sample {
        type_name: "nope".to_owned(),
        ..sample("y")
    };
    let err = ready(conformance::check_object_lifecycle(
        &KvCloud::default(),
        &unknown_type,
    ))
    .unwrap_err();
    assert_eq!(err.to_string(), "schemas list the type: nope is not served");
}

#[test]
fn provider_conformance_requires_every_attempt_reported_failed_ones_too() {
    let silent = Unreported {
        cloud: KvCloud::default(),
        successes: false,
    };
    let err = ready(conformance::check_object_lifecycle(&silent, &sample("x"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "every call reports its attempts: the create reported no attempt"
    );
    let successes_only = Unreported {
        cloud: KvCloud::default(),
        successes: true,
    };
    let err = ready(conformance::check_object_lifecycle(
        &successes_only,
        &sample("x"),
    ))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "every call reports its attempts: a failed delete reported no attempt"
    );
}

/// A provider that reports attempts under names that are not `service:Action`.
struct BadlyNamed(KvCloud);

#[async_trait]
impl Decorate for BadlyNamed {
    type Inner = KvCloud;

    fn inner(&self) -> &KvCloud {
        &self.0
    }

    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        if let Method::Create(_) = next.method() {
            next.call().attempt("create");
            return next.run(&Call::unrecorded()).await;
        }
        next.forward().await
    }
}

#[test]
fn provider_conformance_requires_service_action_names() {
    let err = ready(conformance::check_object_lifecycle(
        &BadlyNamed(KvCloud::default()),
        &sample("x"),
    ))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "attempts are named service:Action: the create reported \"create\""
    );
}
