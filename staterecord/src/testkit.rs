//! Test support shared by the tests of this and other crates: the conformance suite every backend runs,
//! a wrapper that hides bulk reads, and the handle on the local AWS emulator.
//!
//! Tests that need the emulator get it from [`emulator::S3Emulator::from_env`], which fails (never skips)
//! when the endpoint is not configured or does not answer. This module is compiled only with the `testkit`
//! feature and must never be used by production code.

pub mod conformance;
#[cfg(feature = "s3")]
pub mod emulator;

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::StoreError;
use crate::record::{Record, Version};
use crate::store::Store;

/// A pass-through store that offers no [`BulkReader`](crate::BulkReader), to test the per-key fallback of
/// callers and caches against a real backend.
#[derive(Debug)]
pub struct WithoutBulk(pub Arc<dyn Store>);

#[async_trait]
impl Store for WithoutBulk {
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        self.0.get(key).await
    }

    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        self.0.put_if_version(key, payload, expected).await
    }

    async fn put_if_absent(&self, key: &str, payload: &[u8]) -> Result<Version, StoreError> {
        self.0.put_if_absent(key, payload).await
    }

    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        self.0.delete(key, expected).await
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        self.0.list(prefix).await
    }
}
