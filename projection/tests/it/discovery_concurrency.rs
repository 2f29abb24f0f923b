//! Calls run concurrently, never more than `read_concurrency` at once, and a read that needs no listing's
//! answer does not wait for the listings.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use fixtures::SimCloud;
use projection::{Declared, DeclaredInstance, DeclaredValue, ProjectionConfig, RetryConfig};
use provider::{Decorate, Method, Next, ProviderError};
use serde_json::json;
use staterecord::MemoryStore;

use crate::support::*;

/// A provider that counts the calls in flight around the simulated cloud.
struct Gauge {
    inner: SimCloud,
    now: AtomicUsize,
    max: AtomicUsize,
}

impl Gauge {
    fn new(inner: SimCloud) -> Gauge {
        Gauge {
            inner,
            now: AtomicUsize::new(0),
            max: AtomicUsize::new(0),
        }
    }

    /// Runs `call` as one call in flight, letting every other ready call start before it finishes.
    async fn gauged<T>(&self, call: impl Future<Output = T>) -> T {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(n, Ordering::SeqCst);
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
        let answer = call.await;
        self.now.fetch_sub(1, Ordering::SeqCst);
        answer
    }
}

#[async_trait]
impl Decorate for Gauge {
    type Inner = SimCloud;

    fn inner(&self) -> &SimCloud {
        &self.inner
    }

    /// Reads, listings and sweeps are gauged; writes are forwarded as they are.
    async fn around<T: Send>(&self, next: Next<'_, T>) -> Result<T, ProviderError> {
        match next.method() {
            Method::List(_)
            | Method::Read { .. }
            | Method::ReadById { .. }
            | Method::TaggedResources(_) => self.gauged(next.forward()).await,
            _ => next.forward().await,
        }
    }
}

#[tokio::test]
async fn reads_overlap_up_to_the_read_concurrency_and_no_further() {
    let mut live = Vec::new();
    let mut declared = Declared::new();
    for i in 0..20 {
        let name = format!("role-{i:02}");
        let address = format!("aws_iam_role.r{i}");
        live.push(res(
            "aws_iam_role",
            &name,
            json!({ "name": name, "assume_role_policy": "{}" }),
            &tags_of(&ours(&address)),
        ));
        declared.add(named(&address, "name", &name)).unwrap();
    }
    let gauge = Gauge::new(cloud(live));
    let config = ProjectionConfig {
        read_concurrency: 4,
        retry: RetryConfig::immediate(1),
        ..ProjectionConfig::at(NOW)
    };
    let p = project_over(&gauge, &declared, &config).await.unwrap();
    assert_eq!(
        p.instances
            .values()
            .filter(|s| s.binding.object().is_some())
            .count(),
        20
    );
    assert_eq!(gauge.max.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn reads_that_need_no_listing_run_beside_the_listings_and_add_no_call() {
    // Three roles (no bulk listing covers them), a VPC and a bucket (listed), and the bucket's versioning
    // (read once the bucket listing shows its bucket).
    let mut live = vec![
        res(
            "aws_vpc",
            "vpc-1",
            json!({ "cidr_block": "10.0.0.0/16" }),
            &tags_of(&ours("aws_vpc.main")),
        ),
        res(
            "aws_s3_bucket",
            "acme-data",
            json!({ "bucket": "acme-data" }),
            &tags_of(&ours("aws_s3_bucket.data")),
        ),
        res(
            "aws_s3_bucket_versioning",
            "acme-data",
            json!({ "bucket": "acme-data", "status": "Enabled" }),
            &[],
        ),
    ];
    let mut declared = declare(vec![
        bare("aws_vpc.main"),
        named("aws_s3_bucket.data", "bucket", "acme-data"),
        DeclaredInstance::new(a("aws_s3_bucket_versioning.data"))
            .identity("bucket", DeclaredValue::id_of(a("aws_s3_bucket.data"))),
    ]);
    for i in 0..3 {
        let name = format!("role-{i}");
        let address = format!("aws_iam_role.r{i}");
        live.push(res(
            "aws_iam_role",
            &name,
            json!({ "name": name, "assume_role_policy": "{}" }),
            &tags_of(&ours(&address)),
        ));
        declared.add(named(&address, "name", &name)).unwrap();
    }
    let gauge = Gauge::new(cloud(live));
    let p = project_over(&gauge, &declared, &config()).await.unwrap();
    assert_eq!(
        p.instances
            .values()
            .filter(|s| s.binding.object().is_some())
            .count(),
        6,
        "{:?}",
        p.diagnostics
    );
    // The sweep, two listings and three role reads, all at once; the versioning read starts only after
    // the bucket listing has answered, so never more.
    assert_eq!(gauge.max.load(Ordering::SeqCst), 6);
    // Exactly the calls of a plan that waited for the listings: one read per role and per versioning.
    assert_eq!(
        p.cost.api_calls_by_operation,
        BTreeMap::from([
            ("ec2:DescribeVpcs".to_owned(), 1),
            ("iam:GetRole".to_owned(), 3),
            ("s3:GetBucketVersioning".to_owned(), 1),
            ("s3:ListBuckets".to_owned(), 1),
            ("tagging:GetResources".to_owned(), 1),
        ])
    );
}

/// One projection of `declared` over `gauge` with an empty record store.
async fn project_over(
    gauge: &Gauge,
    declared: &Declared,
    config: &ProjectionConfig,
) -> Result<projection::Projection, projection::ProjectionError> {
    projection::project(
        gauge,
        &catalog(gauge),
        &MemoryStore::new(),
        &estate(),
        declared,
        config,
    )
    .await
}
