//! A record store with latency: every call sleeps `latency` before it reaches the wrapped store, as a
//! remote store's round trip would, and is counted.
//!
//! `apply-create --store-latency-ms N` applies through it (the plan before the apply reads the plain
//! store). The sleep is tokio's timer (millisecond resolution: a 20 ms sleep ends about 1 ms late). This
//! module never changes what the wrapped store returns, and has no bulk reader and no cache.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use staterecord::{Record, Store, StoreError, Version};

/// `inner` with `latency` before every call.
#[derive(Debug)]
pub struct LatentStore {
    inner: Arc<dyn Store>,
    latency: Duration,
    calls: AtomicU64,
}

impl LatentStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Store>, latency: Duration) -> LatentStore {
        LatentStore {
            inner,
            latency,
            calls: AtomicU64::new(0),
        }
    }

    /// The calls made so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    async fn wait(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency).await;
        }
    }
}

#[async_trait]
impl Store for LatentStore {
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        self.wait().await;
        self.inner.get(key).await
    }

    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        self.wait().await;
        self.inner.put_if_version(key, payload, expected).await
    }

    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        self.wait().await;
        self.inner.delete(key, expected).await
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        self.wait().await;
        self.inner.list(prefix).await
    }
}
