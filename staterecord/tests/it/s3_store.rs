//! The S3 store against the emulator: key prefixes, object tags, `If-Match` on a missing key, and bulk
//! reads across listing pages.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use staterecord::testkit::emulator::S3Emulator;
use staterecord::{
    DEFAULT_GET_ALL_PARALLELISM, S3Store, Store, StoreError, Version, with_object_tags,
};

async fn bucket(hint: &str) -> (S3Emulator, String) {
    let emu = S3Emulator::from_env()
        .await
        .expect("the AWS emulator must be running");
    let bucket = emu.fresh_bucket(hint).await.expect("bucket");
    (emu, bucket)
}

#[tokio::test]
async fn s3_store_key_prefix_is_joined_and_stripped() {
    let (emu, bucket) = bucket("prefix").await;
    let team_a = S3Store::new(emu.client.clone(), &bucket).with_key_prefix("teams/a/");
    let team_b = S3Store::new(emu.client.clone(), &bucket).with_key_prefix("teams/b");
    let whole = S3Store::new(emu.client.clone(), &bucket);

    team_a.put_if_absent("estate/x", b"a's").await.unwrap();
    team_b.put_if_absent("estate/x", b"b's").await.unwrap();
    assert_eq!(team_a.object_key("estate/x"), "teams/a/estate/x");
    assert_eq!(team_a.key_prefix(), "teams/a");

    assert_eq!(team_a.list("").await.unwrap(), ["estate/x"]);
    assert_eq!(
        team_a.get("estate/x").await.unwrap().unwrap().payload,
        b"a's"
    );
    assert_eq!(
        team_b.get("estate/x").await.unwrap().unwrap().payload,
        b"b's"
    );
    assert_eq!(
        whole.list("").await.unwrap(),
        ["teams/a/estate/x", "teams/b/estate/x"]
    );
    let all = team_a.bulk_reader().unwrap().get_all("").await.unwrap();
    assert_eq!(all.keys().collect::<Vec<_>>(), ["estate/x"]);
    let object = emu
        .client
        .head_object()
        .bucket(&bucket)
        .key("teams/a/estate/x")
        .send()
        .await
        .unwrap();
    assert_eq!(
        object.e_tag(),
        Some(
            team_a
                .get("estate/x")
                .await
                .unwrap()
                .unwrap()
                .version
                .as_str()
        ),
        "the version is the ETag exactly as S3 returns it"
    );
}

#[tokio::test]
async fn s3_store_every_put_carries_base_and_per_write_tags() {
    let (emu, bucket) = bucket("tags").await;
    let base = BTreeMap::from([("liveplan-estate".to_owned(), "acme prod".to_owned())]);
    let store = S3Store::new(emu.client.clone(), &bucket).with_base_tags(base);
    let per_write = BTreeMap::from([
        ("liveplan-kind".to_owned(), "random_id".to_owned()),
        (
            "liveplan-address".to_owned(),
            "random_id.x a=b+c@d:e/f".to_owned(),
        ),
    ]);
    let v1 = with_object_tags(per_write, store.put_if_absent("estate/r", b"1"))
        .await
        .unwrap();
    store
        .put_if_version("estate/plain", b"p", None)
        .await
        .unwrap();
    let tags = |key: &'static str| {
        let (client, bucket) = (emu.client.clone(), bucket.clone());
        async move {
            let out = client
                .get_object_tagging()
                .bucket(bucket)
                .key(key)
                .send()
                .await
                .unwrap();
            let mut tags: Vec<(String, String)> = out
                .tag_set()
                .iter()
                .map(|t| (t.key().to_owned(), t.value().to_owned()))
                .collect();
            tags.sort();
            tags
        }
    };
    assert_eq!(
        tags("estate/r").await,
        [
            (
                "liveplan-address".to_owned(),
                "random_id.x a=b+c@d:e/f".to_owned()
            ),
            ("liveplan-estate".to_owned(), "acme prod".to_owned()),
            ("liveplan-kind".to_owned(), "random_id".to_owned()),
        ]
    );
    assert_eq!(
        tags("estate/plain").await,
        [("liveplan-estate".to_owned(), "acme prod".to_owned())]
    );

    // An update carries the tags too.
    store
        .put_if_version("estate/r", b"2", Some(&v1))
        .await
        .unwrap();
    assert_eq!(
        tags("estate/r").await,
        [("liveplan-estate".to_owned(), "acme prod".to_owned())]
    );
}

#[tokio::test]
async fn s3_store_if_match_on_a_missing_key_is_a_conflict_with_no_record() {
    let (emu, bucket) = bucket("missing").await;
    let store = S3Store::new(emu.client.clone(), &bucket);
    let stale = Version::new("\"0123456789abcdef0123456789abcdef\"").unwrap();
    for result in [
        store
            .put_if_version("estate/none", b"x", Some(&stale))
            .await
            .map(drop),
        store.delete("estate/none", Some(&stale)).await,
    ] {
        let Err(StoreError::VersionConflict(conflict)) = result else {
            panic!("{result:?}")
        };
        assert_eq!(
            (conflict.expected, conflict.actual),
            (Some(stale.clone()), None)
        );
    }
    assert!(
        store.get("estate/none").await.unwrap().is_none(),
        "nothing was created"
    );
}

#[tokio::test]
async fn s3_store_a_missing_bucket_is_an_error_never_an_empty_store() {
    let emu = S3Emulator::from_env()
        .await
        .expect("the AWS emulator must be running");
    // A bucket name nobody creates: as if the record bucket had been deleted or mistyped.
    let store = S3Store::new(emu.client.clone(), "liveplan-records-never-created");
    let stale = Version::new("\"0123456789abcdef0123456789abcdef\"").unwrap();
    let get = store.get("estate/x").await;
    assert!(matches!(get, Err(StoreError::Backend { .. })), "{get:?}");
    let update = store.put_if_version("estate/x", b"x", Some(&stale)).await;
    assert!(
        matches!(update, Err(StoreError::Backend { .. })),
        "{update:?}"
    );
    let delete = store.delete("estate/x", Some(&stale)).await;
    assert!(
        matches!(delete, Err(StoreError::Backend { .. })),
        "{delete:?}"
    );
    let list = store.list("estate/").await;
    assert!(matches!(list, Err(StoreError::Backend { .. })), "{list:?}");
}

#[tokio::test]
async fn s3_store_list_and_get_all_page_through_every_page() {
    let (emu, bucket) = bucket("paging").await;
    // Pages of 7 keys: 45 records are 7 pages, the last one partial.
    let store = Arc::new(
        S3Store::new(emu.client.clone(), &bucket)
            .with_key_prefix("p")
            .with_list_page_size(7),
    );
    futures::stream::iter(0..45)
        .map(|i| {
            let store = Arc::clone(&store);
            async move {
                store
                    .put_if_absent(&format!("estate/r{i:02}"), format!("{i}").as_bytes())
                    .await
            }
        })
        .buffer_unordered(8)
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    store.put_if_absent("outside", b"o").await.unwrap();

    let keys = store.list("estate/").await.unwrap();
    let expected: Vec<String> = (0..45).map(|i| format!("estate/r{i:02}")).collect();
    assert_eq!(keys, expected);
    assert_eq!(store.list("").await.unwrap().len(), 46);

    assert_eq!(store.get_all_parallelism(), DEFAULT_GET_ALL_PARALLELISM);
    let all = store
        .bulk_reader()
        .unwrap()
        .get_all("estate/")
        .await
        .unwrap();
    assert_eq!(all.keys().cloned().collect::<Vec<_>>(), expected);
    assert_eq!(all["estate/r44"].payload, b"44");
    let one_by_one = S3Store::new(emu.client.clone(), &bucket)
        .with_key_prefix("p")
        .with_list_page_size(7)
        .with_get_all_parallelism(1);
    assert_eq!(one_by_one.get_all_parallelism(), 1);
    let sequential = one_by_one
        .bulk_reader()
        .unwrap()
        .get_all("estate/r1")
        .await
        .unwrap();
    assert_eq!(sequential.len(), 10);
    assert!(sequential.iter().all(|(k, r)| all[k] == *r));
    assert_eq!(
        S3Store::new(emu.client.clone(), &bucket)
            .with_get_all_parallelism(0)
            .get_all_parallelism(),
        DEFAULT_GET_ALL_PARALLELISM
    );
}
