//! The local store's files: layout, permissions, what listing hides, and lock handling.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::pin::pin;
use std::time::{Duration, SystemTime};

use staterecord::{LocalStore, Store};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn local_files_are_0600_and_dirs_0700() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("records");
    let store = LocalStore::open(&root).unwrap();
    let v1 = store.put_if_absent("estate/acme/id", b"r-1").await.unwrap();
    store
        .put_if_version("estate/acme/id", b"r-2", Some(&v1))
        .await
        .unwrap();
    store.put_if_absent("top", b"t").await.unwrap();

    assert_eq!(mode(&root), 0o700, "the store directory");
    assert_eq!(mode(&root.join("estate")), 0o700);
    assert_eq!(mode(&root.join("estate/acme")), 0o700);
    assert_eq!(
        mode(&root.join("estate/acme/id.rec")),
        0o600,
        "a record rewritten by an update"
    );
    assert_eq!(mode(&root.join("top.rec")), 0o600, "a created record");
}

#[tokio::test]
async fn local_files_layout_keeps_keys_apart() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path()).unwrap();
    for key in [
        "a", "a/b", "a/b/c", "x", "x.rec/y", "x.rec", "l.lock/z", "t.tmp", "d.d/e",
    ] {
        store.put_if_absent(key, key.as_bytes()).await.unwrap();
    }
    let mut files: Vec<String> = Vec::new();
    for entry in walk(dir.path()) {
        files.push(
            entry
                .strip_prefix(dir.path())
                .unwrap()
                .display()
                .to_string(),
        );
    }
    files.sort();
    assert_eq!(
        files,
        [
            "a",
            "a.rec",
            "a/b",
            "a/b.rec",
            "a/b/c.rec",
            "d.d.d",
            "d.d.d/e.rec",
            "l.lock.d",
            "l.lock.d/z.rec",
            "t.tmp.rec",
            "x.rec",
            "x.rec.d",
            "x.rec.d/y.rec",
            "x.rec.rec",
        ]
    );
    assert_eq!(
        store.list("").await.unwrap(),
        [
            "a", "a/b", "a/b/c", "d.d/e", "l.lock/z", "t.tmp", "x", "x.rec", "x.rec/y"
        ]
    );
    for key in store.list("").await.unwrap() {
        assert_eq!(
            store.get(&key).await.unwrap().unwrap().payload,
            key.as_bytes(),
            "{key}"
        );
    }
    assert_eq!(
        store.record_path("x.rec/y").unwrap(),
        dir.path().join("x.rec.d/y.rec")
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[tokio::test]
async fn local_files_locks_temps_and_strays_are_invisible() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path()).unwrap();
    store.put_if_absent("e/k", b"v").await.unwrap();
    let root = dir.path();
    std::fs::write(root.join("e/k.rec.lock"), "pid 1\n").unwrap();
    std::fs::write(root.join("e/.k.rec.77.0.tmp"), "half a payl").unwrap();
    std::fs::write(root.join("e/gone.rec.lock"), "pid 1\n").unwrap();
    std::fs::write(root.join("e/notes.txt"), "not a record").unwrap();
    std::fs::create_dir(root.join("e/junk.lock")).unwrap();
    std::fs::write(root.join("e/junk.lock/inside.rec"), "not ours").unwrap();
    std::os::unix::fs::symlink("/etc", root.join("e/escape")).unwrap();
    // A symlink named as a record is listed, as a damaged record: see
    // `local_files_a_symlink_in_a_records_place_is_listed_read_empty_and_replaced_not_followed`.

    assert_eq!(store.list("").await.unwrap(), ["e/k"]);
    assert_eq!(store.list("e/").await.unwrap(), ["e/k"]);
    let all = store.bulk_reader().unwrap().get_all("").await.unwrap();
    assert_eq!(all.keys().collect::<Vec<_>>(), ["e/k"]);
    assert!(
        store.get("e/gone").await.unwrap().is_none(),
        "a lock file is not a record"
    );
}

/// Sets a file's modification time to `ago` in the past.
fn age(path: &Path, ago: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - ago).unwrap();
}

#[tokio::test]
async fn local_files_lock_older_than_30s_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path()).unwrap();
    let v1 = store.put_if_absent("k", b"one").await.unwrap();
    let lock = dir.path().join("k.rec.lock");
    std::fs::write(&lock, "pid 999999\n").unwrap();
    age(&lock, Duration::from_secs(31));
    // The default timeout: a lock left 31 s ago by a dead writer no longer blocks anyone.
    let v2 = store.put_if_version("k", b"two", Some(&v1)).await.unwrap();
    assert_eq!(store.get("k").await.unwrap().unwrap().version, v2);
    assert!(!lock.exists(), "the lock is released after the write");
    std::fs::write(&lock, "pid 999999\n").unwrap();
    age(&lock, Duration::from_secs(3600));
    store.delete("k", Some(&v2)).await.unwrap();
    assert!(store.get("k").await.unwrap().is_none());
}

#[tokio::test]
async fn local_files_fresh_lock_holds_writers_until_released_or_stale() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path()).unwrap();
    let v1 = store.put_if_absent("k", b"one").await.unwrap();
    let lock = dir.path().join("k.rec.lock");
    std::fs::write(&lock, "pid 1\n").unwrap();
    let inode = std::fs::metadata(&lock).unwrap().ino();

    // With the default 30 s timeout, a fresh lock keeps the write out for as long as it is held.
    let mut write = pin!(store.put_if_version("k", b"two", Some(&v1)));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), &mut write)
            .await
            .is_err(),
        "the write waits"
    );
    assert_eq!(
        store.get("k").await.unwrap().unwrap().payload,
        b"one",
        "nothing landed under the lock"
    );
    assert_eq!(
        std::fs::metadata(&lock).unwrap().ino(),
        inode,
        "the held lock was not broken"
    );
    std::fs::remove_file(&lock).unwrap();
    let v2 = write.await.unwrap();
    assert_eq!(
        store.get("k").await.unwrap().unwrap().version,
        v2,
        "released: the write lands"
    );

    // With a short timeout, a lock nobody releases is broken once it is that old.
    let quick = store
        .clone()
        .with_lock_stale_after(Duration::from_millis(50));
    std::fs::write(&lock, "pid 1\n").unwrap();
    let v3 = quick
        .put_if_version("k", b"three", Some(&v2))
        .await
        .unwrap();
    assert_eq!(store.get("k").await.unwrap().unwrap().version, v3);
    assert!(!lock.exists());
}

#[tokio::test]
async fn local_files_errors_carry_the_operating_systems_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path()).unwrap();
    // A file where the store needs a directory, and a directory where it needs a file: both fail for
    // root too, unlike a read-only directory.
    std::fs::write(dir.path().join("e"), "not a directory").unwrap();
    std::fs::create_dir(dir.path().join("d.rec")).unwrap();

    let write = store.put_if_absent("e/k", b"v").await.unwrap_err();
    let expected = format!(
        "local store could not create directory {}: File exists (os error 17)",
        dir.path().join("e").display()
    );
    assert_eq!(write.to_string(), expected);
    let read = store.get("d").await.unwrap_err();
    let expected = format!(
        "local store could not read {}: Is a directory (os error 21)",
        dir.path().join("d.rec").display()
    );
    assert_eq!(read.to_string(), expected);
}

#[tokio::test]
async fn local_files_a_symlink_in_a_records_place_is_listed_read_empty_and_replaced_not_followed() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("records");
    let store = LocalStore::open(&root).unwrap();
    store.put_if_absent("e/k", b"original").await.unwrap();
    let target = parent.path().join("outside.rec");
    std::fs::write(&target, b"outside").unwrap();
    std::fs::remove_file(root.join("e/k.rec")).unwrap();
    std::os::unix::fs::symlink(&target, root.join("e/k.rec")).unwrap();

    assert_eq!(store.list("e/").await.unwrap(), vec!["e/k".to_owned()]);
    let seen = store
        .get("e/k")
        .await
        .unwrap()
        .expect("the link reads as a record");
    assert!(seen.payload.is_empty(), "the link is not followed");
    // A create asserting no record conflicts; a compare-and-swap against the link's version replaces it.
    let created = store.put_if_absent("e/k", b"new").await;
    assert!(created.is_err(), "{created:?}");
    store
        .put_if_version("e/k", b"new", Some(&seen.version))
        .await
        .unwrap();
    let meta = std::fs::symlink_metadata(root.join("e/k.rec")).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(std::fs::read(&target).unwrap(), b"outside");
    assert_eq!(store.get("e/k").await.unwrap().unwrap().payload, b"new");
}

#[tokio::test]
async fn local_files_location_names_the_record_file_under_the_directory_as_shown() {
    let parent = tempfile::tempdir().unwrap();
    let store = LocalStore::open(parent.path().join("records")).unwrap();
    assert_eq!(
        store.location("e/x.rec/k"),
        parent
            .path()
            .join("records/e/x.rec.d/k.rec")
            .display()
            .to_string()
    );
    let shown = store.shown_as(".liveplan/records");
    assert_eq!(shown.location("e/k"), ".liveplan/records/e/k.rec");
}
