//! Single reads run concurrently, never more than `read_concurrency` at once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use admission::Catalog;
use admission::provider::{
    CreateRequest, Identity, ListPage, ListRequest, LiveObject, Provider, ProviderError, TagQuery,
    TaggedPage, UpdateRequest,
};
use async_trait::async_trait;
use fixtures::SimCloud;
use projection::{Declared, ProjectionConfig, RetryPolicy};
use serde_json::json;
use staterecord::MemoryStore;

use crate::support::*;

/// A provider that counts the reads in flight around the simulated cloud.
struct Gauge {
    inner: SimCloud,
    now: AtomicUsize,
    max: AtomicUsize,
}

#[async_trait]
impl Provider for Gauge {
    fn region(&self) -> String {
        Provider::region(&self.inner)
    }
    fn schemas(&self) -> Catalog {
        Provider::schemas(&self.inner)
    }
    async fn list(&self, request: ListRequest) -> Result<ListPage, ProviderError> {
        Provider::list(&self.inner, request).await
    }
    async fn create(&self, request: CreateRequest) -> Result<LiveObject, ProviderError> {
        Provider::create(&self.inner, request).await
    }
    async fn update(&self, request: UpdateRequest) -> Result<LiveObject, ProviderError> {
        Provider::update(&self.inner, request).await
    }
    async fn delete(&self, type_name: &str, id: &str) -> Result<(), ProviderError> {
        Provider::delete(&self.inner, type_name, id).await
    }
    async fn read(
        &self,
        type_name: &str,
        identity: &Identity,
    ) -> Result<Option<LiveObject>, ProviderError> {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(n, Ordering::SeqCst);
        // Let every other ready read start before this one finishes.
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
        let answer = Provider::read(&self.inner, type_name, identity).await;
        self.now.fetch_sub(1, Ordering::SeqCst);
        answer
    }
    async fn tagged_resources(&self, query: TagQuery) -> Result<TaggedPage, ProviderError> {
        Provider::tagged_resources(&self.inner, query).await
    }
    fn api_calls(&self) -> BTreeMap<String, u64> {
        Provider::api_calls(&self.inner)
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
    let gauge = Gauge {
        inner: cloud(live),
        now: AtomicUsize::new(0),
        max: AtomicUsize::new(0),
    };
    let config = ProjectionConfig {
        read_concurrency: 4,
        retry: RetryPolicy::immediate(1),
        ..ProjectionConfig::at(NOW)
    };
    let p = projection::project(&gauge, &MemoryStore::new(), &estate(), &declared, &config)
        .await
        .unwrap();
    assert_eq!(
        p.instances
            .values()
            .filter(|s| s.binding.object().is_some())
            .count(),
        20
    );
    assert_eq!(gauge.max.load(Ordering::SeqCst), 4);
}
