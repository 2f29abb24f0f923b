//! Store trips with and without the run cache: 78 records read through five accessors each, and the
//! run-wide switch that turns caching off after the first write.

use std::sync::Arc;

use staterecord::testkit::WithoutBulk;
use staterecord::{
    CacheScope, CountingStore, LocalStore, MemoryStore, Store, TripCounts, TripLabel, fresh,
    labeled,
};
use tokio::task::JoinSet;

const RECORDS: usize = 78;
const ACCESSORS: [&str; 5] = ["identity", "residue", "provisioned", "deposed", "kind"];

async fn seeded(store: Arc<dyn Store>) -> Arc<dyn Store> {
    for i in 0..RECORDS {
        store
            .put_if_absent(
                &format!("estate/acme/r{i:02}"),
                format!("payload {i}").as_bytes(),
            )
            .await
            .unwrap();
    }
    store
        .put_if_absent("estate/other/r00", b"another estate")
        .await
        .unwrap();
    store
}

/// Reads every record once through each accessor, as a plan does, and checks what it read.
async fn read_five_ways(store: &dyn Store) {
    for via in ACCESSORS {
        for i in 0..RECORDS {
            let record = labeled(
                TripLabel::new(via, "plan/bind"),
                store.get(&format!("estate/acme/r{i:02}")),
            )
            .await
            .unwrap()
            .expect("seeded");
            assert_eq!(record.payload, format!("payload {i}").as_bytes());
        }
    }
}

fn totals(c: &TripCounts) -> (usize, usize, usize) {
    (c.total, c.distinct_keys, c.repeat_trips)
}

#[tokio::test]
async fn cache_trips_bulk_store_costs_one_trip() {
    let dir = tempfile::tempdir().unwrap();
    for store in [
        Arc::new(MemoryStore::new()) as Arc<dyn Store>,
        Arc::new(LocalStore::open(dir.path()).unwrap()),
    ] {
        let counting = Arc::new(CountingStore::new(seeded(store).await, None));
        let cache = CacheScope::new().cache(counting.clone(), "estate/acme/");
        read_five_ways(&cache).await;
        assert!(
            cache.get("estate/acme/never").await.unwrap().is_none(),
            "absent from the snapshot"
        );
        let counts = counting.counts();
        assert_eq!(totals(&counts), (1, 1, 0));
        assert_eq!(
            counts.by_method.into_iter().collect::<Vec<_>>(),
            [("get_all".to_owned(), 1)]
        );
        assert_eq!(
            counts.by_via.into_iter().collect::<Vec<_>>(),
            [("identity".to_owned(), 1)]
        );
        assert_eq!(counting.trips()[0].key, "estate/acme/");
    }
}

#[tokio::test]
async fn cache_trips_without_bulk_costs_one_trip_per_key() {
    let inner: Arc<dyn Store> = Arc::new(WithoutBulk(seeded(Arc::new(MemoryStore::new())).await));
    let counting = Arc::new(CountingStore::new(inner, None));
    let cache = CacheScope::new().cache(counting.clone(), "estate/acme/");
    read_five_ways(&cache).await;
    let counts = counting.counts();
    assert_eq!(totals(&counts), (78, 78, 0));
    assert_eq!(
        counts.by_method.into_iter().collect::<Vec<_>>(),
        [("get".to_owned(), 78)]
    );
    assert_eq!(
        counts.by_via.into_iter().collect::<Vec<_>>(),
        [("identity".to_owned(), 78)]
    );
}

#[tokio::test]
async fn cache_trips_no_cache_costs_every_read() {
    let counting = CountingStore::new(seeded(Arc::new(MemoryStore::new())).await, None);
    read_five_ways(&counting).await;
    let counts = counting.counts();
    assert_eq!(totals(&counts), (390, 78, 312));
    assert_eq!(
        counts.by_method.into_iter().collect::<Vec<_>>(),
        [("get".to_owned(), 390)]
    );
    let by_via: Vec<_> = counts.by_via.into_iter().collect();
    let expected: Vec<_> = ["deposed", "identity", "kind", "provisioned", "residue"]
        .map(|v| (v.to_owned(), 78))
        .into();
    assert_eq!(by_via, expected);
    assert_eq!(
        counts.by_site.into_iter().collect::<Vec<_>>(),
        [("plan/bind".to_owned(), 390)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_trips_concurrent_first_reads_load_once() {
    let counting = Arc::new(CountingStore::new(
        seeded(Arc::new(MemoryStore::new())).await,
        None,
    ));
    let cache = Arc::new(CacheScope::new().cache(counting.clone(), "estate/acme/"));
    let mut readers = JoinSet::new();
    for i in 0..16 {
        let cache = Arc::clone(&cache);
        readers.spawn(async move {
            cache
                .get(&format!("estate/acme/r{i:02}"))
                .await
                .unwrap()
                .is_some()
        });
    }
    while let Some(found) = readers.join_next().await {
        assert!(found.unwrap());
    }
    assert_eq!(counting.total(), 1);

    let per_key = Arc::new(CountingStore::new(
        Arc::new(WithoutBulk(seeded(Arc::new(MemoryStore::new())).await)),
        None,
    ));
    let cache = Arc::new(CacheScope::new().cache(per_key.clone(), "estate/acme/"));
    let mut readers = JoinSet::new();
    for _ in 0..16 {
        let cache = Arc::clone(&cache);
        readers.spawn(async move { cache.get("estate/acme/r05").await.unwrap().is_some() });
    }
    while let Some(found) = readers.join_next().await {
        assert!(found.unwrap());
    }
    assert_eq!(
        per_key.total(),
        1,
        "sixteen readers of one key share one trip"
    );
}

#[tokio::test]
async fn cache_trips_first_write_switches_the_whole_scope_off() {
    let counting = Arc::new(CountingStore::new(
        seeded(Arc::new(MemoryStore::new())).await,
        None,
    ));
    let run = CacheScope::new();
    let acme = run.cache(counting.clone(), "estate/acme/");
    let other = run.cache(counting.clone(), "estate/other/");
    let elsewhere = CacheScope::new();
    let parallel = elsewhere.cache(counting.clone(), "estate/acme/");

    let r00 = acme.get("estate/acme/r00").await.unwrap().unwrap();
    other.get("estate/other/r00").await.unwrap().unwrap();
    parallel.get("estate/acme/r00").await.unwrap().unwrap();
    assert_eq!(counting.total(), 3, "one bulk load per cache");
    counting.reset();

    // One write through the other estate's cache of the same run.
    other
        .put_if_version("estate/acme/r00", b"rewritten", Some(&r00.version))
        .await
        .unwrap();
    assert!(run.is_switched_off());
    assert!(!elsewhere.is_switched_off(), "another run is not affected");
    assert_eq!(counting.total(), 1, "the write went to the store");

    let seen = acme.get("estate/acme/r00").await.unwrap().unwrap();
    assert_eq!(
        seen.payload, b"rewritten",
        "the same run reads the store again"
    );
    acme.get("estate/acme/r01").await.unwrap().unwrap();
    assert_eq!(acme.list("estate/acme/").await.unwrap().len(), RECORDS);
    assert_eq!(counting.total(), 4, "every read after the write is a trip");

    let served = parallel.get("estate/acme/r00").await.unwrap().unwrap();
    assert_eq!(
        served.payload, b"payload 0",
        "another run keeps serving its own snapshot"
    );
    assert_eq!(counting.total(), 4, "without a trip");
}

#[tokio::test]
async fn cache_trips_fresh_and_uncached_bypass_the_snapshot() {
    let counting = Arc::new(CountingStore::new(
        seeded(Arc::new(MemoryStore::new())).await,
        None,
    ));
    let run = CacheScope::new();
    let cache: Arc<dyn Store> = Arc::new(run.cache(counting.clone(), "estate/acme/"));
    cache.get("estate/acme/r00").await.unwrap();
    assert_eq!(counting.total(), 1);

    // A writer outside this process changes the record; the snapshot does not know.
    let inner = counting.inner().clone();
    let old = inner.get("estate/acme/r00").await.unwrap().unwrap();
    inner
        .put_if_version("estate/acme/r00", b"changed elsewhere", Some(&old.version))
        .await
        .unwrap();
    assert_eq!(
        cache.get("estate/acme/r00").await.unwrap().unwrap().payload,
        b"payload 0"
    );

    let direct = fresh(&cache);
    assert_eq!(
        direct
            .get("estate/acme/r00")
            .await
            .unwrap()
            .unwrap()
            .payload,
        b"changed elsewhere"
    );
    assert_eq!(counting.total(), 2, "the fresh read was a counted trip");
    assert!(!run.is_switched_off(), "reading fresh is not a write");

    // Counting over a cache: the fresh view still counts, into the same tally.
    let outer = Arc::new(CountingStore::new(cache.clone(), None));
    let outer_dyn: Arc<dyn Store> = outer.clone();
    fresh(&outer_dyn).get("estate/acme/r01").await.unwrap();
    assert_eq!((outer.total(), counting.total()), (1, 3));
}
