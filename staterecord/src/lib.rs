//! Micro-state records: the few facts the live system cannot give back (a random id, a secret returned
//! only at creation, a deposed object, an output), kept as small opaque payloads in a compare-and-swap
//! key/value store.
//!
//! - [`Store`] is the contract (five operations, object-safe, shared as `Arc<dyn Store>`) and
//!   [`BulkReader`] its optional bulk-read half.
//! - Backends: [`MemoryStore`] (tests, the simulated cloud), [`LocalStore`] (a directory, the default),
//!   and `S3Store` (feature `s3`, for teams), which also checks the bucket contract.
//! - Wrappers: [`RunCache`] (records read once per run, created from a [`CacheScope`]), [`CountingStore`]
//!   (every trip to the store, counted and attributed), [`LatentStore`] (a remote store's latency, for
//!   benchmarks and tests) and [`fresh`] (the view without caches).
//!
//! ```
//! use std::sync::Arc;
//! use staterecord::{MemoryStore, Store, StoreError};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
//! let v1 = store.put_if_absent("estate/acme/id", b"r-1").await?;
//! // A writer that read v1 and lost the race gets a typed conflict naming both versions.
//! store.put_if_version("estate/acme/id", b"r-2", Some(&v1)).await?;
//! let err = store.put_if_version("estate/acme/id", b"r-3", Some(&v1)).await.unwrap_err();
//! let conflict = err.as_conflict().expect("a version conflict");
//! assert_eq!(conflict.expected.as_ref(), Some(&v1));
//! # Ok::<(), StoreError>(())
//! # }).unwrap();
//! ```
//!
//! Choosing a backend: a test or a short-lived tool takes [`MemoryStore`]; one machine takes
//! [`LocalStore::open`] on a directory (records outlive the process, and concurrent processes on that
//! machine still settle every write by compare-and-swap); a team takes `S3Store`, whose conditional
//! writes hold across machines. All three pass the same conformance suite (the `testkit` module, behind
//! the cargo feature of that name), so code written against `Arc<dyn Store>` behaves the same on each. A
//! plan wraps its store in a [`RunCache`] so that all of an estate's records are read in one trip.
//!
//! Every backend operation runs in a span named after it (`get`, `put_if_version`, `delete`, `list`,
//! `get_all`) carrying the `key` or `prefix` (and, on S3, the `bucket`); a failed operation records its
//! error on the span.
//!
//! This crate knows nothing of estates, addresses or resources: keys and payloads are opaque. It never
//! writes unconditionally: every write names the version it expects to replace. It never prints and never
//! installs a tracing subscriber.

mod cache;
mod counting;
mod decorate;
mod error;
pub mod key;
mod kms;
mod latent;
mod local;
mod memory;
mod record;
mod requests;
#[cfg(feature = "s3")]
pub mod s3;
#[cfg(any(feature = "s3", feature = "ssm"))]
mod sdk;
#[cfg(feature = "ssm")]
pub mod ssm;
mod store;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use cache::{CacheScope, RunCache};
pub use counting::{
    CountingStore, Trip, TripCounts, TripLabel, TripMethod, labeled, parse_trip_log, summarize,
};
pub use decorate::{DecorateStore, StoreCall};
pub use error::{BoxError, StoreError, VersionConflict};
pub use key::{KeyError, validate_key};
pub use kms::{KmsDenialPolicy, KmsDenied};
pub use latent::LatentStore;
pub use local::{DEFAULT_LOCK_STALE_AFTER, LocalStore, RECORD_SUFFIX};
pub use memory::MemoryStore;
pub use record::{Record, Version};
pub use requests::count_requests;
#[cfg(feature = "s3")]
pub use s3::{BucketFinding, BucketSetting, DEFAULT_GET_ALL_PARALLELISM, S3Store, split_waived};
#[cfg(any(feature = "s3", feature = "ssm"))]
pub use sdk::sdk_config_from_env;
#[cfg(feature = "ssm")]
pub use ssm::{SsmStore, SsmTier};
pub use store::{
    BulkReader, ConflictCheck, Guarantees, Store, current_object_tags, fresh, with_object_tags,
};
