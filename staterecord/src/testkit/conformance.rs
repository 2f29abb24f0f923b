//! The conformance suite: `pub async fn` checks of the [`Store`] contract that every backend runs from one
//! test. Each check works under its own key prefix `ns` (which must end in `/` or be empty), so the suite
//! can share a store with other tests, and panics with a message naming the broken rule. The checks
//! never compute an expected value with the code under test: every expectation is written out.
//!
//! ```
//! use std::sync::Arc;
//! use staterecord::{MemoryStore, Store};
//! use staterecord::testkit::conformance;
//! # tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap().block_on(async {
//! let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
//! conformance::run_all(store.as_ref(), "conformance/").await;
//! conformance::cas_race_exact(Arc::clone(&store), "race/counter", 8, 25).await;
//! # });
//! ```

use std::sync::Arc;

use tokio::task::JoinSet;

use crate::error::{StoreError, VersionConflict};
use crate::record::Version;
use crate::store::Store;

fn conflict_of(result: Result<impl std::fmt::Debug, StoreError>, what: &str) -> VersionConflict {
    match result {
        Err(StoreError::VersionConflict(c)) => c,
        other => panic!("{what}: expected a version conflict, got {other:?}"),
    }
}

/// Runs every backend-neutral check under `ns` (the CAS race and the content-hash check are separate).
pub async fn run_all(store: &dyn Store, ns: &str) {
    missing_get(store, ns).await;
    create_round_trip(store, ns).await;
    second_create_conflicts(store, ns).await;
    update_with_right_version(store, ns).await;
    stale_update_conflicts(store, ns).await;
    update_of_missing_key_conflicts(store, ns).await;
    update_without_version_is_create(store, ns).await;
    delete_rules(store, ns).await;
    nested_keys_coexist(store, ns).await;
    payloads_are_opaque(store, ns).await;
    list_by_prefix_sorted(store, ns).await;
    get_all_equals_list_and_get(store, ns).await;
    invalid_keys_refused(store).await;
}

/// A missing key reads as `None`, not as an error.
pub async fn missing_get(store: &dyn Store, ns: &str) {
    let got = store.get(&format!("{ns}missing/never-written")).await;
    assert!(matches!(got, Ok(None)), "get of a missing key: {got:?}");
}

/// A created record reads back with the payload written and the version the create returned.
pub async fn create_round_trip(store: &dyn Store, ns: &str) {
    let key = format!("{ns}round-trip");
    let version = store
        .put_if_absent(&key, b"first payload")
        .await
        .expect("create");
    assert!(
        !version.as_str().is_empty(),
        "a live record's version is never empty"
    );
    let record = store
        .get(&key)
        .await
        .expect("get")
        .expect("the record exists");
    assert_eq!(record.payload, b"first payload");
    assert_eq!(record.version, version);
}

/// A second create conflicts with expected none and actual the first version, and changes nothing.
pub async fn second_create_conflicts(store: &dyn Store, ns: &str) {
    let key = format!("{ns}second-create");
    let v1 = store.put_if_absent(&key, b"one").await.expect("create");
    let c = conflict_of(
        store.put_if_absent(&key, b"two").await,
        "put_if_absent over a record",
    );
    assert_eq!(
        (c.key.as_str(), c.expected.as_ref(), c.actual.as_ref()),
        (key.as_str(), None, Some(&v1))
    );
    let c = conflict_of(
        store.put_if_version(&key, b"two", None).await,
        "put_if_version(None) over a record",
    );
    assert_eq!((c.expected.as_ref(), c.actual.as_ref()), (None, Some(&v1)));
    let message = c.to_string();
    assert!(
        message.contains("expected no record") && message.contains(v1.as_str()),
        "{message}"
    );
    assert_eq!(
        store.get(&key).await.expect("get").expect("record").payload,
        b"one"
    );
}

/// An update naming the current version lands and returns the new version.
pub async fn update_with_right_version(store: &dyn Store, ns: &str) {
    let key = format!("{ns}update");
    let v1 = store.put_if_absent(&key, b"one").await.expect("create");
    let v2 = store
        .put_if_version(&key, b"two", Some(&v1))
        .await
        .expect("update");
    assert_ne!(v1, v2, "a different payload has a different version");
    let record = store.get(&key).await.expect("get").expect("record");
    assert_eq!(
        (record.payload.as_slice(), &record.version),
        (&b"two"[..], &v2)
    );
    let v3 = store
        .put_if_version(&key, b"three", Some(&v2))
        .await
        .expect("second update");
    assert_eq!(
        store.get(&key).await.expect("get").expect("record").version,
        v3
    );
}

/// An update naming an old version conflicts, names both versions, and leaves the record as it was.
pub async fn stale_update_conflicts(store: &dyn Store, ns: &str) {
    let key = format!("{ns}stale-update");
    let v1 = store.put_if_absent(&key, b"one").await.expect("create");
    let v2 = store
        .put_if_version(&key, b"two", Some(&v1))
        .await
        .expect("update");
    let c = conflict_of(
        store.put_if_version(&key, b"three", Some(&v1)).await,
        "stale update",
    );
    assert_eq!(
        (c.expected.as_ref(), c.actual.as_ref()),
        (Some(&v1), Some(&v2))
    );
    let message = c.to_string();
    assert!(
        message.contains(v1.as_str()) && message.contains(v2.as_str()),
        "names both versions: {message}"
    );
    assert_eq!(
        store.get(&key).await.expect("get").expect("record").payload,
        b"two"
    );
}

/// An update of a key that holds no record conflicts with actual none, and creates nothing.
pub async fn update_of_missing_key_conflicts(store: &dyn Store, ns: &str) {
    let key = format!("{ns}update-missing/x");
    let someone = store
        .put_if_absent(&format!("{ns}update-missing/other"), b"v")
        .await
        .expect("create");
    let c = conflict_of(
        store.put_if_version(&key, b"one", Some(&someone)).await,
        "update of a missing key",
    );
    assert_eq!(
        (c.expected.as_ref(), c.actual.as_ref()),
        (Some(&someone), None)
    );
    assert!(c.to_string().contains("found no record"), "{c}");
    assert!(store.get(&key).await.expect("get").is_none());
}

/// `put_if_version` with no expected version creates the record.
pub async fn update_without_version_is_create(store: &dyn Store, ns: &str) {
    let key = format!("{ns}update-none");
    let version = store
        .put_if_version(&key, b"created", None)
        .await
        .expect("create");
    let record = store.get(&key).await.expect("get").expect("record");
    assert_eq!(
        (record.payload.as_slice(), record.version),
        (&b"created"[..], version)
    );
}

/// Delete: the right version removes; a stale one conflicts; an absent key with no version is a no-op;
/// an absent key with a version conflicts; a present key with no version conflicts.
pub async fn delete_rules(store: &dyn Store, ns: &str) {
    let key = format!("{ns}delete/k");
    let v1 = store.put_if_absent(&key, b"one").await.expect("create");
    let v2 = store
        .put_if_version(&key, b"two", Some(&v1))
        .await
        .expect("update");

    let c = conflict_of(
        store.delete(&key, Some(&v1)).await,
        "delete with a stale version",
    );
    assert_eq!(
        (c.expected.as_ref(), c.actual.as_ref()),
        (Some(&v1), Some(&v2))
    );
    let c = conflict_of(
        store.delete(&key, None).await,
        "delete of a present key with no version",
    );
    assert_eq!((c.expected.as_ref(), c.actual.as_ref()), (None, Some(&v2)));
    assert!(
        store.get(&key).await.expect("get").is_some(),
        "a refused delete removes nothing"
    );

    store
        .delete(&key, Some(&v2))
        .await
        .expect("delete with the right version");
    assert!(store.get(&key).await.expect("get").is_none(), "deleted");
    store
        .delete(&key, None)
        .await
        .expect("deleting an absent key with no version is idempotent");
    store
        .delete(&key, None)
        .await
        .expect("and stays idempotent");
    let c = conflict_of(
        store.delete(&key, Some(&v2)).await,
        "delete of an absent key with a version",
    );
    assert_eq!((c.expected.as_ref(), c.actual.as_ref()), (Some(&v2), None));

    let again = store
        .put_if_absent(&key, b"two")
        .await
        .expect("re-create after delete");
    let read = store.get(&key).await.expect("get").expect("re-created");
    assert_eq!(
        (read.payload.as_slice(), &read.version),
        (&b"two"[..], &again),
        "a re-created key reads as written"
    );
}

/// Keys `a` and `a/b` are separate records.
pub async fn nested_keys_coexist(store: &dyn Store, ns: &str) {
    let a = format!("{ns}nest/a");
    let ab = format!("{ns}nest/a/b");
    store
        .put_if_absent(&ab, b"child")
        .await
        .expect("create a/b");
    store
        .put_if_absent(&a, b"parent")
        .await
        .expect("create a beside a/b");
    store
        .put_if_absent(&format!("{ns}nest/a/b/c"), b"grandchild")
        .await
        .expect("create a/b/c");
    assert_eq!(
        store.get(&a).await.expect("get").expect("a").payload,
        b"parent"
    );
    assert_eq!(
        store.get(&ab).await.expect("get").expect("a/b").payload,
        b"child"
    );
    let listed = store.list(&format!("{ns}nest/")).await.expect("list");
    let expected: Vec<String> = ["nest/a", "nest/a/b", "nest/a/b/c"]
        .iter()
        .map(|k| format!("{ns}{k}"))
        .collect();
    assert_eq!(listed, expected);
}

/// Empty, binary and larger payloads come back byte for byte; equal payloads under different keys have
/// equal versions only if the backend hashes content, and never break anything.
pub async fn payloads_are_opaque(store: &dyn Store, ns: &str) {
    let binary: Vec<u8> = (0..=255u8).chain([0, 0, b'\n', b'\r', 0xff]).collect();
    let large: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    for (name, payload) in [("empty", Vec::new()), ("binary", binary), ("large", large)] {
        let key = format!("{ns}payload/{name}");
        let version = store.put_if_absent(&key, &payload).await.expect("create");
        let record = store.get(&key).await.expect("get").expect("record");
        assert_eq!(record.payload, payload, "{name} payload round trip");
        assert_eq!(record.version, version);
    }
}

/// `list` is a plain string prefix match, sorted bytewise, and `""` lists everything.
pub async fn list_by_prefix_sorted(store: &dyn Store, ns: &str) {
    for k in [
        "list/b", "list/ab", "list/a/c", "list/a", "listx", "list/a-",
    ] {
        store
            .put_if_absent(&format!("{ns}{k}"), k.as_bytes())
            .await
            .expect("create");
    }
    let keys = |v: &[&str]| v.iter().map(|k| format!("{ns}{k}")).collect::<Vec<_>>();
    assert_eq!(
        store.list(&format!("{ns}list/a")).await.expect("list"),
        keys(&["list/a", "list/a-", "list/a/c", "list/ab"]),
        "a string prefix, not a path match, sorted bytewise ('-' < '/' < 'b')"
    );
    assert_eq!(
        store.list(&format!("{ns}list")).await.expect("list"),
        keys(&[
            "list/a", "list/a-", "list/a/c", "list/ab", "list/b", "listx"
        ])
    );
    assert_eq!(
        store.list(&format!("{ns}list/zzz")).await.expect("list"),
        Vec::<String>::new()
    );
    assert_eq!(
        store.list(&format!("{ns}list//")).await.expect("list"),
        Vec::<String>::new()
    );
    let all = store.list("").await.expect("list all");
    for key in keys(&["list/a", "listx"]) {
        assert!(all.contains(&key), "list(\"\") includes {key}");
    }
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "list(\"\") is sorted");
}

/// `get_all` (when the store offers it) holds exactly what `list` and `get` see.
pub async fn get_all_equals_list_and_get(store: &dyn Store, ns: &str) {
    let Some(bulk) = store.bulk_reader() else {
        return;
    };
    let prefix = format!("{ns}bulk/");
    let v1 = store
        .put_if_absent(&format!("{prefix}one"), b"1")
        .await
        .expect("create");
    store
        .put_if_version(&format!("{prefix}one"), b"1b", Some(&v1))
        .await
        .expect("update");
    store
        .put_if_absent(&format!("{prefix}two/deep"), b"2")
        .await
        .expect("create");
    store
        .put_if_absent(&format!("{ns}bulkx"), b"outside")
        .await
        .expect("create");
    let all = bulk.get_all(&prefix).await.expect("get_all");
    let keys = store.list(&prefix).await.expect("list");
    assert_eq!(all.keys().cloned().collect::<Vec<_>>(), keys);
    assert_eq!(keys, [format!("{prefix}one"), format!("{prefix}two/deep")]);
    for key in keys {
        assert_eq!(
            Some(&all[&key]),
            store.get(&key).await.expect("get").as_ref(),
            "{key}"
        );
    }
    assert_eq!(all[&format!("{prefix}one")].payload, b"1b");
    assert!(
        bulk.get_all(&format!("{ns}bulk-none/"))
            .await
            .expect("get_all")
            .is_empty()
    );
}

/// The keys every backend refuses, for every operation, with [`StoreError::InvalidKey`].
pub const INVALID_KEYS: [&str; 10] = [
    "",
    "a\0b",
    "/a",
    "/",
    "a/",
    "a//b",
    "a/./b",
    ".",
    "../etc/passwd",
    "a/..",
];

/// Every operation refuses every key in [`INVALID_KEYS`] and writes nothing.
pub async fn invalid_keys_refused(store: &dyn Store) {
    let some = Version::new("sha256:0").expect("non-empty");
    for key in INVALID_KEYS {
        let refused = |r: Result<(), StoreError>, op: &str| {
            assert!(
                matches!(r, Err(StoreError::InvalidKey(_))),
                "{op}({key:?}) must be refused, got {r:?}"
            );
        };
        refused(store.get(key).await.map(drop), "get");
        refused(
            store.put_if_absent(key, b"x").await.map(drop),
            "put_if_absent",
        );
        refused(
            store.put_if_version(key, b"x", None).await.map(drop),
            "put_if_version(None)",
        );
        refused(
            store.put_if_version(key, b"x", Some(&some)).await.map(drop),
            "put_if_version",
        );
        refused(store.delete(key, None).await, "delete(None)");
        refused(store.delete(key, Some(&some)).await, "delete");
    }
}

/// Versions are `sha256:<hex>` of the payload: byte-identical writes have the same version (local and
/// memory stores).
pub async fn content_hash_versions(store: &dyn Store, ns: &str) {
    let v = store
        .put_if_absent(&format!("{ns}hash/a"), b"hello")
        .await
        .expect("create");
    assert_eq!(
        v.as_str(),
        "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    );
    let w = store
        .put_if_absent(&format!("{ns}hash/b"), b"hello")
        .await
        .expect("create");
    assert_eq!(v, w, "byte-identical payloads have one version");
    let e = store
        .put_if_absent(&format!("{ns}hash/empty"), b"")
        .await
        .expect("create");
    assert_eq!(
        e.as_str(),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

/// What one successful [`increment`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Increment {
    /// The version the winning write named (`None`: it created the counter).
    pub expected: Option<Version>,
    /// How many conflicts it met before it won.
    pub conflicts: u64,
}

/// Reads the counter at `key` (a decimal payload; no record is 0) and writes it plus one with
/// compare-and-swap, retrying on conflict.
pub async fn increment(store: &dyn Store, key: &str) -> Result<Increment, StoreError> {
    let mut conflicts = 0;
    loop {
        let current = store.get(key).await?;
        let (value, version) = match current {
            None => (0, None),
            Some(record) => {
                let text = std::str::from_utf8(&record.payload).expect("a counter payload is text");
                (
                    text.parse::<u64>().expect("a counter payload is a number"),
                    Some(record.version),
                )
            }
        };
        // Let other workers run between the read and the write, so the race is a real one even on a
        // store whose operations never yield.
        tokio::task::yield_now().await;
        match store
            .put_if_version(key, (value + 1).to_string().as_bytes(), version.as_ref())
            .await
        {
            Ok(_) => {
                return Ok(Increment {
                    expected: version,
                    conflicts,
                });
            }
            Err(StoreError::VersionConflict(_)) => conflicts += 1,
            Err(other) => return Err(other),
        }
    }
}

/// The value of the counter at `key` (0 when there is no record).
pub async fn counter_value(store: &dyn Store, key: &str) -> u64 {
    match store.get(key).await.expect("get counter") {
        None => 0,
        Some(r) => std::str::from_utf8(&r.payload)
            .expect("text")
            .parse()
            .expect("number"),
    }
}

/// The outcome of a [`cas_race`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceReport {
    /// How much the counter grew.
    pub added: u64,
    /// How many writes the store accepted (`workers * increments`).
    pub wins: u64,
    /// How many conflicts the workers met and retried.
    pub conflicts: u64,
    /// Accepted writes that named a version another accepted write had already named. Every value but 0
    /// means the store let two writers replace the same version: its compare-and-swap is broken.
    pub duplicate_wins: u64,
}

/// `workers` tasks each make `increments` read-increment-CAS loops on `key`.
///
/// Checks that the counter grew by exactly one per accepted write that named a version no other accepted
/// write named (`added == wins - duplicate_wins`): the client never reports a refused write as accepted
/// or an accepted one as refused. A store with real compare-and-swap also has `duplicate_wins == 0`, so
/// the counter ends at exactly `workers * increments`; the caller asserts that (see
/// [`cas_race_exact`]).
pub async fn cas_race(
    store: Arc<dyn Store>,
    key: &str,
    workers: u64,
    increments: u64,
) -> RaceReport {
    let start = counter_value(store.as_ref(), key).await;
    let mut tasks = JoinSet::new();
    for _ in 0..workers {
        let store = Arc::clone(&store);
        let key = key.to_owned();
        tasks.spawn(async move {
            let mut won = Vec::new();
            for _ in 0..increments {
                won.push(increment(store.as_ref(), &key).await.expect("increment"));
            }
            won
        });
    }
    let mut wins = Vec::new();
    while let Some(done) = tasks.join_next().await {
        wins.extend(done.expect("a race worker panicked"));
    }
    let distinct: std::collections::BTreeSet<_> = wins.iter().map(|w| &w.expected).collect();
    let report = RaceReport {
        added: counter_value(store.as_ref(), key).await - start,
        wins: wins.len() as u64,
        conflicts: wins.iter().map(|w| w.conflicts).sum(),
        duplicate_wins: (wins.len() - distinct.len()) as u64,
    };
    assert_eq!(
        report.wins,
        workers * increments,
        "every worker finishes its increments"
    );
    assert_eq!(
        report.added,
        report.wins - report.duplicate_wins,
        "the counter grows once per accepted write of a distinct version: {report:?}"
    );
    report
}

/// [`cas_race`] on a store with real compare-and-swap: the counter must end at exactly
/// `workers * increments`, with no two writers ever accepted for the same version.
pub async fn cas_race_exact(
    store: Arc<dyn Store>,
    key: &str,
    workers: u64,
    increments: u64,
) -> RaceReport {
    let report = cas_race(store, key, workers, increments).await;
    assert_eq!(
        report.duplicate_wins, 0,
        "two writers replaced the same version: {report:?}"
    );
    assert_eq!(
        report.added,
        workers * increments,
        "every increment lands exactly once: {report:?}"
    );
    report
}
