//! `LatentStore`: a store with a round trip's latency, as a remote store would have. Every call (or,
//! with [`LatentStore::writes_only`], every write and delete) sleeps `latency` before it reaches the
//! wrapped store, and is counted, with the most calls waiting at once.
//!
//! For benchmarks and tests: the sleep is tokio's timer (millisecond resolution; a paused test clock
//! advances it at once). This module never changes what the wrapped store returns, and has no bulk reader
//! and no cache.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use staterecord::{LatentStore, MemoryStore, Store};
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let store = LatentStore::new(Arc::new(MemoryStore::new()), Duration::from_millis(1));
//! store.put_if_absent("estate/a", b"r").await?;
//! assert!(store.get("estate/a").await?.is_some());
//! assert_eq!((store.calls(), store.most_in_flight()), (2, 1));
//! # Ok::<(), staterecord::StoreError>(())
//! # }).unwrap();
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use crate::decorate::{DecorateStore, StoreCall};
use crate::error::StoreError;
use crate::store::Store;

/// `inner` with `latency` before every call, or every write.
#[derive(Debug)]
pub struct LatentStore {
    inner: Arc<dyn Store>,
    latency: Duration,
    writes_only: bool,
    calls: AtomicU64,
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

impl LatentStore {
    /// Wraps `inner`: every call waits `latency` first.
    pub fn new(inner: Arc<dyn Store>, latency: Duration) -> LatentStore {
        LatentStore {
            inner,
            latency,
            writes_only: false,
            calls: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        }
    }

    /// This store with only writes and deletes waiting (and counted); reads and listings answer at once.
    pub fn writes_only(self) -> LatentStore {
        LatentStore {
            writes_only: true,
            ..self
        }
    }

    /// The calls that waited so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The most calls waiting at once so far.
    pub fn most_in_flight(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }

    /// Waits the latency before a call (a read when `!write`).
    async fn wait(&self, write: bool) {
        if self.writes_only && !write {
            return;
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency).await;
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl DecorateStore for LatentStore {
    fn inner(&self) -> &Arc<dyn Store> {
        &self.inner
    }

    async fn before(&self, call: StoreCall<'_>) -> Result<(), StoreError> {
        self.wait(call.writes()).await;
        Ok(())
    }

    fn offers_bulk(&self) -> bool {
        false
    }
}
