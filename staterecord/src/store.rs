//! The store contract: the [`Store`] trait every backend implements, the optional [`BulkReader`]
//! extension, and [`fresh`], the view that bypasses caches.
//!
//! The contract is five operations on opaque keys and payloads. Every write and delete names the version it
//! expects to replace, so this module has no unconditional overwrite and must never grow one.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::StoreError;
use crate::record::{Record, Version};

/// A conditional-write key/value store of micro-state records.
///
/// Keys are `/`-separated paths checked by [`validate_key`](crate::validate_key) on every backend; payloads
/// are opaque bytes. The trait is object-safe: stores are chosen at run time and shared as
/// `Arc<dyn Store>`.
///
/// The rules every backend honours (the conformance suite in `testkit` checks them):
/// - a missing key is `Ok(None)` from [`get`](Store::get), never an error;
/// - a live record's version is never empty, so `None` always means "no record";
/// - every mismatch is a [`StoreError::VersionConflict`] naming the expected and the actual version;
/// - [`list`](Store::list) is a plain string prefix match, sorted bytewise.
#[async_trait]
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Reads the record at `key`; `Ok(None)` when there is none.
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError>;

    /// Writes `payload` at `key` only if the current version equals `expected`, and returns the new
    /// version. `expected = None` asserts that no record exists (the same as
    /// [`put_if_absent`](Store::put_if_absent)).
    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError>;

    /// Creates `key` with `payload` only if no record exists there, and returns its version. A conflict
    /// names the version already there.
    async fn put_if_absent(&self, key: &str, payload: &[u8]) -> Result<Version, StoreError> {
        self.put_if_version(key, payload, None).await
    }

    /// Removes `key` only if its version equals `expected`.
    ///
    /// Deleting an absent key with `expected = None` succeeds (idempotent); deleting an absent key with a
    /// version, a present key with another version, or a present key with `expected = None` conflicts.
    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError>;

    /// Every key that starts with `prefix` (a plain string prefix, not a path match), sorted bytewise.
    /// `""` lists every key. A prefix no valid key can start with gives an empty list, not an error.
    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError>;

    /// This store's bulk reader, when it can load a whole prefix in one call. Callers fall back to
    /// [`get`](Store::get) when this is `None`.
    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        None
    }

    /// The same store without its cache layer, when this store is (or wraps) a cache; `None` when reads
    /// already reach the backend. Use [`fresh`] rather than calling this directly.
    fn without_cache(&self) -> Option<Arc<dyn Store>> {
        None
    }

    /// How this store keeps its conditional writes and deletes from replacing a change they did not
    /// expect: [`Guarantees::PREVENTED`] (the default) when the backend refuses them itself; a backend
    /// without conditional requests says what it does instead, and wrappers give their inner store's.
    fn guarantees(&self) -> Guarantees {
        Guarantees::PREVENTED
    }

    /// Where the record at `key` lives, for a person who must find it (a damaged record to restore or
    /// remove): a local store's file path, an S3 object as `s3://bucket/key`. The key itself by default;
    /// wrappers give their inner store's answer.
    fn location(&self, key: &str) -> String {
        key.to_owned()
    }
}

/// How a store keeps one kind of conditional request from replacing a change it did not expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictCheck {
    /// The backend refuses the request itself when the version differs: one conditional request, no
    /// window, a conflict is never written.
    Prevented,
    /// The store compares the version, writes, and checks the version the write made: a write that landed
    /// over another writer's is reported as a conflict, but it landed (the other writer's change is lost
    /// unless that writer was told about it too).
    Detected,
    /// The store compares the version before the request only: a change landing between the compare and
    /// the request is neither prevented nor reported.
    CheckedBefore,
}

impl ConflictCheck {
    /// `prevented`, `detected` or `checked before`, as the documentation and warnings word it.
    pub fn as_str(&self) -> &'static str {
        match self {
            ConflictCheck::Prevented => "prevented",
            ConflictCheck::Detected => "detected",
            ConflictCheck::CheckedBefore => "checked before",
        }
    }
}

impl std::fmt::Display for ConflictCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a store guarantees for each conditional request: see [`Store::guarantees`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guarantees {
    /// A create (`put_if_absent`, or a put expecting no record) of a key another writer created.
    pub create: ConflictCheck,
    /// An update (`put_if_version` with a version) of a record another writer changed.
    pub update: ConflictCheck,
    /// A delete of a record another writer changed.
    pub delete: ConflictCheck,
}

impl Guarantees {
    /// Every conflict prevented by the backend: the memory, local and S3 stores.
    pub const PREVENTED: Guarantees = Guarantees {
        create: ConflictCheck::Prevented,
        update: ConflictCheck::Prevented,
        delete: ConflictCheck::Prevented,
    };

    /// Whether every conditional request is refused by the backend itself.
    pub fn all_prevented(&self) -> bool {
        *self == Guarantees::PREVENTED
    }
}

/// The optional half of a store that loads every record under a prefix in one call, the way a state file
/// is read once.
#[async_trait]
pub trait BulkReader: Send + Sync {
    /// Every record whose key starts with `prefix` (`""`: all), keyed like [`Store::get`].
    ///
    /// The map is complete for the prefix: a key absent from it holds no record. It belongs to the caller;
    /// implementations keep no reference to it.
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError>;
}

/// A view of `store` that bypasses every cache layer it can see, for read-modify-write sites that must
/// never be answered from a snapshot.
///
/// Wrappers that are not caches (such as [`CountingStore`](crate::CountingStore)) pass the request through,
/// so `fresh` of a counting store over a cache still counts, but no longer caches.
pub fn fresh(store: &Arc<dyn Store>) -> Arc<dyn Store> {
    let mut current = Arc::clone(store);
    while let Some(inner) = current.without_cache() {
        current = inner;
    }
    current
}

tokio::task_local! {
    static OBJECT_TAGS: BTreeMap<String, String>;
}

/// Runs `fut` with per-write object tags: every put it makes on a store that tags objects (S3) carries
/// `tags` on top of the store's base tags. Stores without object tags ignore them.
///
/// The tags follow the task, through any wrapper, the way a request context would.
pub async fn with_object_tags<F: Future>(tags: BTreeMap<String, String>, fut: F) -> F::Output {
    OBJECT_TAGS.scope(tags, fut).await
}

/// The per-write tags set by [`with_object_tags`] for the current task, if any.
pub fn current_object_tags() -> BTreeMap<String, String> {
    OBJECT_TAGS.try_with(Clone::clone).unwrap_or_default()
}

/// Fails with [`StoreError::InvalidKey`] unless `key` follows the rules; every backend calls it first.
pub(crate) fn check_key(key: &str) -> Result<(), StoreError> {
    crate::key::validate_key(key).map_err(StoreError::from)
}
