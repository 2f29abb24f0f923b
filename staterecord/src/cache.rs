//! `RunCache` and `CacheScope`: an estate's records read the way a state file is read, once and in bulk,
//! for as long as nothing has been written.
//!
//! The rule that keeps it from ever serving a stale value is blunt on purpose: the first write through any
//! cache of a [`CacheScope`] switches every cache of that scope off for good, and from then on every read
//! goes to the store. This module never decides a conditional write itself (writes always go to the
//! store) and never keeps anything beyond the life of the scope: no expiry, no file.
//!
//! ```
//! use std::sync::Arc;
//! use staterecord::{CacheScope, MemoryStore, Store};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
//! let v1 = store.put_if_absent("estate/a", b"one").await?;
//!
//! let run = CacheScope::new(); // one per plan or apply
//! let cache = run.cache(Arc::clone(&store), "estate/");
//! assert_eq!(cache.get("estate/a").await?.map(|r| r.payload), Some(b"one".to_vec()));
//!
//! // A write through any cache of the run switches all of them off.
//! cache.put_if_version("estate/a", b"two", Some(&v1)).await?;
//! assert!(run.is_switched_off());
//! assert_eq!(cache.get("estate/a").await?.map(|r| r.payload), Some(b"two".to_vec()));
//! # Ok::<(), staterecord::StoreError>(())
//! # }).unwrap();
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::OnceCell;

use crate::error::StoreError;
use crate::record::{Record, Version};
use crate::store::{BulkReader, Store, check_key, fresh};

/// One run (a plan or an apply): the shared switch that every [`RunCache`] created from it obeys.
///
/// Clones share the switch. The CLI makes one per process; tests make their own, so that tests running in
/// parallel in one binary never switch each other's caches off.
#[derive(Debug, Clone, Default)]
pub struct CacheScope {
    switched_off: Arc<AtomicBool>,
}

impl CacheScope {
    /// A new run whose caches serve reads until the first write.
    pub fn new() -> CacheScope {
        CacheScope::default()
    }

    /// A cache of the records under `prefix` in `inner`, belonging to this run.
    pub fn cache(&self, inner: Arc<dyn Store>, prefix: impl Into<String>) -> RunCache {
        RunCache {
            inner,
            prefix: prefix.into(),
            scope: self.clone(),
            snapshot: OnceCell::new(),
            per_key: Mutex::new(HashMap::new()),
        }
    }

    /// Whether a write through any cache of this run has switched the caches off.
    pub fn is_switched_off(&self) -> bool {
        self.switched_off.load(Ordering::SeqCst)
    }

    fn switch_off(&self) {
        self.switched_off.store(true, Ordering::SeqCst);
    }
}

/// A [`Store`] that serves reads under one prefix from memory until the first write of its
/// [`CacheScope`].
///
/// With a [`BulkReader`] underneath, the first read under the prefix loads the whole prefix in one call
/// and every later read under it is served from that snapshot (an absent key is answered "no record"
/// without asking the store). Without one, each key is read once and then served from memory. Reads
/// outside the prefix, and all reads once the scope is switched off, go to the store. Writes and deletes
/// always go to the store, and switch the scope off before they are sent.
pub struct RunCache {
    inner: Arc<dyn Store>,
    prefix: String,
    scope: CacheScope,
    snapshot: OnceCell<BTreeMap<String, Record>>,
    per_key: Mutex<HashMap<String, Arc<OnceCell<Option<Record>>>>>,
}

impl fmt::Debug for RunCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunCache")
            .field("prefix", &self.prefix)
            .field("switched_off", &self.scope.is_switched_off())
            .field("loaded", &self.snapshot.initialized())
            .field("inner", &self.inner)
            .finish()
    }
}

impl RunCache {
    /// The store under this cache, with any further cache layers removed, for the read-modify-write sites
    /// that must never be served from a snapshot.
    pub fn uncached(&self) -> Arc<dyn Store> {
        fresh(&self.inner)
    }

    /// The run this cache belongs to.
    pub fn scope(&self) -> &CacheScope {
        &self.scope
    }

    /// The prefix this cache serves.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn serves(&self, key_or_prefix: &str) -> bool {
        !self.scope.is_switched_off() && key_or_prefix.starts_with(&self.prefix)
    }

    /// The bulk snapshot of the prefix, loaded on first use; `None` when the store cannot load in bulk.
    async fn snapshot(&self) -> Result<Option<&BTreeMap<String, Record>>, StoreError> {
        let Some(bulk) = self.inner.bulk_reader() else {
            return Ok(None);
        };
        let snapshot = self
            .snapshot
            .get_or_try_init(|| bulk.get_all(&self.prefix))
            .await?;
        Ok(Some(snapshot))
    }

    fn key_cell(&self, key: &str) -> Arc<OnceCell<Option<Record>>> {
        let mut per_key = self.per_key.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(per_key.entry(key.to_owned()).or_default())
    }
}

#[async_trait]
impl Store for RunCache {
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        check_key(key)?;
        if !self.serves(key) {
            return self.inner.get(key).await;
        }
        if let Some(snapshot) = self.snapshot().await? {
            return Ok(snapshot.get(key).cloned());
        }
        let cell = self.key_cell(key);
        let record = cell.get_or_try_init(|| self.inner.get(key)).await?;
        Ok(record.clone())
    }

    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        self.scope.switch_off();
        self.inner.put_if_version(key, payload, expected).await
    }

    async fn put_if_absent(&self, key: &str, payload: &[u8]) -> Result<Version, StoreError> {
        self.scope.switch_off();
        self.inner.put_if_absent(key, payload).await
    }

    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        self.scope.switch_off();
        self.inner.delete(key, expected).await
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        if self.serves(prefix)
            && let Some(snapshot) = self.snapshot().await?
        {
            return Ok(snapshot
                .keys()
                .filter(|k| k.starts_with(prefix))
                .cloned()
                .collect());
        }
        self.inner.list(prefix).await
    }

    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        self.inner.bulk_reader().map(|_| self as &dyn BulkReader)
    }

    fn location(&self, key: &str) -> String {
        self.inner.location(key)
    }

    fn guarantees(&self) -> crate::store::Guarantees {
        self.inner.guarantees()
    }

    fn without_cache(&self) -> Option<Arc<dyn Store>> {
        Some(Arc::clone(&self.inner))
    }
}

#[async_trait]
impl BulkReader for RunCache {
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        if self.serves(prefix)
            && let Some(snapshot) = self.snapshot().await?
        {
            return Ok(snapshot
                .iter()
                .filter(|(k, _)| k.starts_with(prefix))
                .map(|(k, r)| (k.clone(), r.clone()))
                .collect());
        }
        match self.inner.bulk_reader() {
            Some(bulk) => bulk.get_all(prefix).await,
            None => {
                let mut all = BTreeMap::new();
                for key in self.inner.list(prefix).await? {
                    if let Some(record) = self.inner.get(&key).await? {
                        all.insert(key, record);
                    }
                }
                Ok(all)
            }
        }
    }
}
