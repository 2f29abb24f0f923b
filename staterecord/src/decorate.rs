//! The decorator seam of the record store: a store that wraps another writes one hook,
//! [`DecorateStore::before`], and is a [`Store`] (and a [`BulkReader`]) through the one impl here, which
//! forwards every method to the wrapped store after the hook: the defaulted ones too, so that a wrapped
//! store's own `put_if_absent`, bulk reader, cache bypass and record locations stay in reach.
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use staterecord::{DecorateStore, MemoryStore, Store, StoreCall, StoreError};
//!
//! /// Counts the writes, forwarding everything untouched.
//! #[derive(Debug)]
//! struct Writes(Arc<dyn Store>, AtomicUsize);
//!
//! #[async_trait::async_trait]
//! impl DecorateStore for Writes {
//!     fn inner(&self) -> &Arc<dyn Store> {
//!         &self.0
//!     }
//!
//!     async fn before(&self, call: StoreCall<'_>) -> Result<(), StoreError> {
//!         if call.writes() {
//!             self.1.fetch_add(1, Ordering::Relaxed);
//!         }
//!         Ok(())
//!     }
//! }
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = Writes(Arc::new(MemoryStore::new()), AtomicUsize::new(0));
//! store.put_if_absent("estate/a", b"r").await?;
//! assert!(store.get("estate/a").await?.is_some());
//! assert_eq!(store.1.load(Ordering::Relaxed), 1);
//! # Ok::<(), StoreError>(())
//! # }).unwrap();
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::StoreError;
use crate::record::{Record, Version};
use crate::requests::count_requests;
use crate::store::{BulkReader, Store};

/// The [`Store`] or [`BulkReader`] method a decorated call is, with its arguments, as
/// [`DecorateStore::before`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreCall<'a> {
    /// [`Store::get`].
    Get {
        /// The key read.
        key: &'a str,
    },
    /// [`Store::put_if_version`].
    PutIfVersion {
        /// The key written.
        key: &'a str,
        /// What is written.
        payload: &'a [u8],
        /// The version it is written over.
        expected: Option<&'a Version>,
    },
    /// [`Store::put_if_absent`].
    PutIfAbsent {
        /// The key written.
        key: &'a str,
        /// What is written.
        payload: &'a [u8],
    },
    /// [`Store::delete`].
    Delete {
        /// The key deleted.
        key: &'a str,
        /// The version deleted.
        expected: Option<&'a Version>,
    },
    /// [`Store::list`].
    List {
        /// The prefix listed.
        prefix: &'a str,
    },
    /// [`BulkReader::get_all`].
    GetAll {
        /// The prefix read.
        prefix: &'a str,
    },
}

impl StoreCall<'_> {
    /// The key the call reads, writes or deletes, or the prefix it lists or reads.
    pub fn key(&self) -> &str {
        match self {
            StoreCall::Get { key }
            | StoreCall::PutIfVersion { key, .. }
            | StoreCall::PutIfAbsent { key, .. }
            | StoreCall::Delete { key, .. } => key,
            StoreCall::List { prefix } | StoreCall::GetAll { prefix } => prefix,
        }
    }

    /// Whether the call changes the store (a write or a delete).
    pub fn writes(&self) -> bool {
        matches!(
            self,
            StoreCall::PutIfVersion { .. }
                | StoreCall::PutIfAbsent { .. }
                | StoreCall::Delete { .. }
        )
    }

    /// The payload a write puts, if the call is a write.
    pub fn payload(&self) -> Option<&[u8]> {
        match self {
            StoreCall::PutIfVersion { payload, .. } | StoreCall::PutIfAbsent { payload, .. } => {
                Some(payload)
            }
            _ => None,
        }
    }
}

/// A store that wraps another and is a store through it: every call goes through
/// [`DecorateStore::before`] and then, unless the hook answered it with an error, to
/// [`DecorateStore::inner`] as the caller made it. Record locations are the wrapped store's.
#[async_trait]
pub trait DecorateStore: Send + Sync + std::fmt::Debug {
    /// The wrapped store.
    fn inner(&self) -> &Arc<dyn Store>;

    /// Runs before `call` reaches the wrapped store (a wait, a count, a journal line); an error answers the
    /// call instead. The default does nothing.
    async fn before(&self, _call: StoreCall<'_>) -> Result<(), StoreError> {
        Ok(())
    }

    /// Runs after the wrapped store answered `call`, with the requests its backend made for it (see
    /// [`count_requests`]). The default does nothing.
    fn after(&self, _call: StoreCall<'_>, _requests: u64) {}

    /// Whether the decorator offers the wrapped store's bulk reader (when it has one). The default does;
    /// a decorator that makes callers read key by key says no.
    fn offers_bulk(&self) -> bool {
        true
    }

    /// The same decorator around `uncached`, the wrapped store without its cache (see
    /// [`Store::without_cache`]); `None`, the default, bypasses the decorator along with the cache.
    fn around_uncached(&self, _uncached: Arc<dyn Store>) -> Option<Arc<dyn Store>> {
        None
    }
}

#[async_trait]
impl<D: DecorateStore> Store for D {
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        let call = StoreCall::Get { key };
        self.before(call).await?;
        answered(self, call, self.inner().get(key)).await
    }

    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        let call = StoreCall::PutIfVersion {
            key,
            payload,
            expected,
        };
        self.before(call).await?;
        answered(
            self,
            call,
            self.inner().put_if_version(key, payload, expected),
        )
        .await
    }

    async fn put_if_absent(&self, key: &str, payload: &[u8]) -> Result<Version, StoreError> {
        let call = StoreCall::PutIfAbsent { key, payload };
        self.before(call).await?;
        answered(self, call, self.inner().put_if_absent(key, payload)).await
    }

    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        let call = StoreCall::Delete { key, expected };
        self.before(call).await?;
        answered(self, call, self.inner().delete(key, expected)).await
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let call = StoreCall::List { prefix };
        self.before(call).await?;
        answered(self, call, self.inner().list(prefix)).await
    }

    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        let offered = self.offers_bulk() && self.inner().bulk_reader().is_some();
        offered.then_some(self as &dyn BulkReader)
    }

    fn without_cache(&self) -> Option<Arc<dyn Store>> {
        let uncached = self.inner().without_cache()?;
        self.around_uncached(Arc::clone(&uncached))
            .or(Some(uncached))
    }

    fn location(&self, key: &str) -> String {
        self.inner().location(key)
    }

    fn guarantees(&self) -> crate::store::Guarantees {
        self.inner().guarantees()
    }
}

#[async_trait]
impl<D: DecorateStore> BulkReader for D {
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        let call = StoreCall::GetAll { prefix };
        self.before(call).await?;
        answered(self, call, get_all_of(self.inner(), prefix)).await
    }
}

/// `answer`, the wrapped store's to `call`, with its requests counted and handed to
/// [`DecorateStore::after`].
async fn answered<D: DecorateStore + ?Sized, T>(
    decorator: &D,
    call: StoreCall<'_>,
    answer: impl std::future::Future<Output = T>,
) -> T {
    let (out, requests) = count_requests(answer).await;
    decorator.after(call, requests);
    out
}

/// The wrapped store's `get_all`, key by key when it has no bulk reader.
async fn get_all_of(
    inner: &Arc<dyn Store>,
    prefix: &str,
) -> Result<BTreeMap<String, Record>, StoreError> {
    match inner.bulk_reader() {
        Some(bulk) => bulk.get_all(prefix).await,
        // Reached only by a caller holding the decorator itself (`bulk_reader` offers it only over a bulk
        // reader): still a complete answer, key by key.
        None => {
            let mut all = BTreeMap::new();
            for key in inner.list(prefix).await? {
                if let Some(record) = inner.get(&key).await? {
                    all.insert(key, record);
                }
            }
            Ok(all)
        }
    }
}
