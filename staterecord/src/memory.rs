//! `MemoryStore`: records in process memory, for tests and the simulated cloud.
//!
//! Versions are content hashes, as on the local store. The store lives as long as the value and must
//! never be mistaken for persistence: nothing here reaches a disk.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use crate::error::{StoreError, VersionConflict};
use crate::record::{Record, Version};
use crate::store::{BulkReader, Store, check_key};

/// A [`Store`] held in memory, with real compare-and-swap between every task and thread of the process.
///
/// ```
/// use staterecord::{MemoryStore, Store};
/// # tokio_test_block_on(async {
/// let store = MemoryStore::new();
/// let v1 = store.put_if_absent("estate/a", b"one").await?;
/// let v2 = store.put_if_version("estate/a", b"two", Some(&v1)).await?;
/// assert!(store.put_if_version("estate/a", b"three", Some(&v1)).await.unwrap_err().is_conflict());
/// assert_eq!(store.get("estate/a").await?.map(|r| r.version), Some(v2));
/// # Ok::<(), staterecord::StoreError>(())
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<BTreeMap<String, Record>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn records(&self) -> MutexGuard<'_, BTreeMap<String, Record>> {
        // A panic while holding the lock cannot leave a half-applied write (every write is one map
        // operation), so a poisoned map is still consistent.
        self.records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl Store for MemoryStore {
    #[tracing::instrument(skip_all, fields(key = %key), err)]
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        crate::requests::note_requests(1);
        check_key(key)?;
        Ok(self.records().get(key).cloned())
    }

    #[tracing::instrument(skip_all, fields(key = %key), err)]
    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        crate::requests::note_requests(1);
        check_key(key)?;
        let mut records = self.records();
        let actual = records.get(key).map(|r| &r.version);
        if actual != expected {
            return Err(VersionConflict::new(key, expected, actual.cloned()).into());
        }
        let version = Version::content_hash(payload);
        records.insert(
            key.to_owned(),
            Record {
                payload: payload.to_vec(),
                version: version.clone(),
            },
        );
        Ok(version)
    }

    #[tracing::instrument(skip_all, fields(key = %key), err)]
    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        crate::requests::note_requests(1);
        check_key(key)?;
        let mut records = self.records();
        let actual = records.get(key).map(|r| &r.version);
        match (actual, expected) {
            (None, None) => Ok(()),
            (Some(a), Some(e)) if a == e => {
                records.remove(key);
                Ok(())
            }
            (actual, expected) => Err(VersionConflict::new(key, expected, actual.cloned()).into()),
        }
    }

    #[tracing::instrument(skip_all, fields(prefix = %prefix), err)]
    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        crate::requests::note_requests(1);
        let records = self.records();
        Ok(records
            .range(prefix.to_owned()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, _)| k.clone())
            .collect())
    }

    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        Some(self)
    }
}

#[async_trait]
impl BulkReader for MemoryStore {
    #[tracing::instrument(skip_all, fields(prefix = %prefix), err)]
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        crate::requests::note_requests(1);
        let records = self.records();
        Ok(records
            .range(prefix.to_owned()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, r)| (k.clone(), r.clone()))
            .collect())
    }
}
