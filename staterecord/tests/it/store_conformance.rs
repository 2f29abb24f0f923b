//! The conformance suite on every backend: one test per backend, ending in the CAS race
//! (8 workers x 25 increments = exactly 200).

use std::sync::Arc;

use staterecord::testkit::conformance;
use staterecord::{LocalStore, MemoryStore, Store};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_conformance_memory() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    conformance::run_all(store.as_ref(), "conformance/").await;
    conformance::content_hash_versions(store.as_ref(), "conformance/").await;
    conformance::cas_race_exact(Arc::clone(&store), "race/counter", 8, 25).await;
    assert_eq!(
        conformance::counter_value(store.as_ref(), "race/counter").await,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_conformance_local() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(LocalStore::open(dir.path()).unwrap());
    conformance::run_all(store.as_ref(), "conformance/").await;
    // The same checks at the root of the directory, where keys have no parent directory of their own.
    conformance::run_all(store.as_ref(), "").await;
    conformance::content_hash_versions(store.as_ref(), "conformance/").await;
    conformance::cas_race_exact(Arc::clone(&store), "race/counter", 8, 25).await;
    assert_eq!(
        conformance::counter_value(store.as_ref(), "race/counter").await,
        200
    );
}

#[cfg(feature = "s3")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_conformance_s3() {
    use staterecord::S3Store;
    use staterecord::testkit::emulator::S3Emulator;

    let emu = S3Emulator::from_env()
        .await
        .expect("the AWS emulator must be running");
    let bucket = emu.fresh_bucket("conformance").await.expect("bucket");
    let store: Arc<dyn Store> = Arc::new(S3Store::new(emu.client.clone(), &bucket));
    conformance::run_all(store.as_ref(), "conformance/").await;
    // scripts/test starts moto with its conditional writes serialized, as S3's are (moto alone checks
    // `If-Match` and then writes with no lock between, on a threaded server), so the race is exact here too.
    conformance::cas_race_exact(Arc::clone(&store), "race/counter", 8, 25).await;

    // The same suite under a key prefix, in the same bucket, sees nothing of the first run.
    let prefixed: Arc<dyn Store> =
        Arc::new(S3Store::new(emu.client.clone(), &bucket).with_key_prefix("team/estate"));
    assert_eq!(prefixed.list("").await.unwrap(), Vec::<String>::new());
    conformance::run_all(prefixed.as_ref(), "conformance/").await;
}
