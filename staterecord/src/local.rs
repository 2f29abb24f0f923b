//! `LocalStore`: one file per record under a directory, with real compare-and-swap for every thread and
//! process of one machine.
//!
//! # Layout
//!
//! Key `estate/acme/id` is the file `<dir>/estate/acme/id.rec`: every `/` makes a subdirectory and every
//! record file carries the suffix [`RECORD_SUFFIX`], so keys `a` (`a.rec`) and `a/b` (`a/b.rec`) coexist.
//! Lock files end in `.lock` and temp files in `.tmp`, so neither can be mistaken for a record, and
//! [`list`](Store::list) and [`get_all`](BulkReader::get_all) never return them. A directory whose key
//! segment itself ends in one of the reserved suffixes (`.rec`, `.lock`, `.tmp`, `.d`) gets `.d` appended
//! (key `x.rec/y` is `x.rec.d/y.rec`), so a directory never shares a name with a record, lock or temp file.
//! Files are created `0600` and directories `0700`.
//!
//! # Versions
//!
//! A version is `sha256:<hex>` of the payload: byte-identical writes have the same version, and the
//! version never depends on the clock or on how often the key was written.
//!
//! # Atomicity, and its limit
//!
//! - Create ([`put_if_absent`](Store::put_if_absent)) writes and syncs the payload to a temp file, then
//!   publishes it with one hard link to the record name. The link is the exclusive create: like an
//!   `O_CREAT|O_EXCL` open it fails when the name exists, and unlike one it never exposes a record that a
//!   crash left half written.
//! - Update and delete read, compare and write while holding the sidecar lock `<record>.lock`, itself an
//!   `O_CREAT|O_EXCL` create. The new payload lands by temp file, fsync and rename, so a reader sees either
//!   the old or the new complete file, never a torn one, even when the writer is killed.
//! - A lock older than the stale timeout (30 s by default, see [`LocalStore::with_lock_stale_after`]) is
//!   taken to belong to a dead writer and is broken. This leaves a race: a writer that stalls for longer
//!   than the timeout while holding the lock (a suspended laptop, a stopped process) loses it, and two
//!   writers that judge the same lock stale at the same instant can both break it, so the second may remove
//!   the lock the first just took. Either way two writers can then hold the lock together and the later
//!   rename wins. A stall of 30 s inside a millisecond critical section is what that takes.
//!
//! This is real compare-and-swap between any number of threads and processes on **one machine**. It gives
//! nothing across machines: there is no network protocol here, only local filesystem primitives, and a
//! directory on a network filesystem shared by several machines is not supported. Teams use the S3 store.
//!
//! This module never writes a record file in place, never follows a symlink in a record's place (it is
//! listed, and reads as an empty payload, so that a caller sees a damaged record), and never touches a
//! file outside the directory it was opened on.
//!
//! # What this store does not manage
//!
//! Where the directory lives, whether it is in version control and how it is backed up are the caller's
//! decisions. Temp files left by a writer that was killed mid-write are never read as records; the writer
//! that breaks the dead writer's lock removes those older than the stale timeout. Empty directories left
//! by deletes are kept.

use std::collections::BTreeMap;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use async_trait::async_trait;

use crate::error::{StoreError, VersionConflict};
use crate::record::{Record, Version};
use crate::store::{BulkReader, Store, check_key};

/// The suffix of every record file.
pub const RECORD_SUFFIX: &str = ".rec";
const LOCK_SUFFIX: &str = ".lock";
const TEMP_SUFFIX: &str = ".tmp";
const DIR_ESCAPE: &str = ".d";
const RESERVED_SUFFIXES: [&str; 4] = [RECORD_SUFFIX, LOCK_SUFFIX, TEMP_SUFFIX, DIR_ESCAPE];

/// How old a lock file must be before it is taken to belong to a dead writer and broken.
pub const DEFAULT_LOCK_STALE_AFTER: Duration = Duration::from_secs(30);

/// A [`Store`] in a local directory. Cloning is cheap and clones share nothing but the directory.
///
/// ```
/// use staterecord::{LocalStore, Store};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let store = LocalStore::open(dir.path())?;
/// let v1 = store.put_if_absent("estate/acme/id", b"r-1234").await?;
/// assert!(v1.as_str().starts_with("sha256:"));
/// assert!(dir.path().join("estate/acme/id.rec").is_file());
/// # Ok::<(), staterecord::StoreError>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct LocalStore {
    inner: Arc<Local>,
}

#[derive(Debug)]
struct Local {
    root: PathBuf,
    /// The directory as messages show it (see [`LocalStore::shown_as`]); the root when unset.
    shown: Option<PathBuf>,
    lock_stale_after: Duration,
}

impl LocalStore {
    /// Opens the store in `dir`, creating it (mode `0700`) when it does not exist. An existing directory's
    /// mode is left as it is.
    pub fn open(dir: impl Into<PathBuf>) -> Result<LocalStore, StoreError> {
        let root = dir.into();
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&root)
            .map_err(|source| io_err("create directory", &root, source))?;
        Ok(LocalStore {
            inner: Arc::new(Local {
                root,
                shown: None,
                lock_stale_after: DEFAULT_LOCK_STALE_AFTER,
            }),
        })
    }

    /// Sets how old a lock must be before it is broken (default [`DEFAULT_LOCK_STALE_AFTER`]). A writer
    /// that cannot take a lock also breaks it once it has waited this long for the same lock file.
    pub fn with_lock_stale_after(self, after: Duration) -> LocalStore {
        LocalStore {
            inner: Arc::new(Local {
                root: self.inner.root.clone(),
                shown: self.inner.shown.clone(),
                lock_stale_after: after,
            }),
        }
    }

    /// Shows the directory as `shown` in [`Store::location`] (a path relative to the configuration
    /// directory, say), so that messages stay short and do not depend on where the directory was opened.
    pub fn shown_as(self, shown: impl Into<PathBuf>) -> LocalStore {
        LocalStore {
            inner: Arc::new(Local {
                root: self.inner.root.clone(),
                shown: Some(shown.into()),
                lock_stale_after: self.inner.lock_stale_after,
            }),
        }
    }

    /// The directory the store lives in.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The file that holds (or would hold) the record at `key`.
    pub fn record_path(&self, key: &str) -> Result<PathBuf, StoreError> {
        check_key(key)?;
        Ok(self.inner.record_path(key))
    }

    async fn blocking<T, F>(&self, key: &str, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Local) -> Result<T, StoreError> + Send + 'static,
    {
        let local = Arc::clone(&self.inner);
        // Awaited right here, so the task is never detached; if the caller is cancelled the file work
        // still runs to its end, which is what releases a lock it took.
        match tokio::task::spawn_blocking(move || work(&local)).await {
            Ok(result) => result,
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(_) => Err(StoreError::Interrupted {
                key: key.to_owned(),
            }),
        }
    }
}

#[async_trait]
impl Store for LocalStore {
    #[tracing::instrument(skip_all, fields(key = %key), err)]
    async fn get(&self, key: &str) -> Result<Option<Record>, StoreError> {
        crate::requests::note_requests(1);
        check_key(key)?;
        let key = key.to_owned();
        self.blocking(&key.clone(), move |local| {
            local.read(&local.record_path(&key))
        })
        .await
    }

    #[tracing::instrument(skip_all, fields(key = %key), err)]
    async fn put_if_version(
        &self,
        key: &str,
        payload: &[u8],
        expected: Option<&Version>,
    ) -> Result<Version, StoreError> {
        crate::requests::note_requests(1);
        check_key(key)?;
        let (key, payload, expected) = (key.to_owned(), payload.to_vec(), expected.cloned());
        self.blocking(&key.clone(), move |local| match expected {
            None => local.create(&key, &payload),
            Some(expected) => local.update(&key, &payload, &expected),
        })
        .await
    }

    #[tracing::instrument(skip_all, fields(key = %key), err)]
    async fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        crate::requests::note_requests(1);
        check_key(key)?;
        let (key, expected) = (key.to_owned(), expected.cloned());
        self.blocking(&key.clone(), move |local| {
            local.delete(&key, expected.as_ref())
        })
        .await
    }

    #[tracing::instrument(skip_all, fields(prefix = %prefix), err)]
    async fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        crate::requests::note_requests(1);
        let prefix = prefix.to_owned();
        self.blocking(&prefix.clone(), move |local| local.list(&prefix))
            .await
    }

    fn bulk_reader(&self) -> Option<&dyn BulkReader> {
        Some(self)
    }

    fn location(&self, key: &str) -> String {
        let shown = self.inner.shown.as_ref().unwrap_or(&self.inner.root);
        relative_record_path(shown.clone(), key)
            .display()
            .to_string()
    }
}

#[async_trait]
impl BulkReader for LocalStore {
    #[tracing::instrument(skip_all, fields(prefix = %prefix), err)]
    async fn get_all(&self, prefix: &str) -> Result<BTreeMap<String, Record>, StoreError> {
        crate::requests::note_requests(1);
        let prefix = prefix.to_owned();
        self.blocking(&prefix.clone(), move |local| {
            let mut all = BTreeMap::new();
            for key in local.list(&prefix)? {
                // A record deleted between the listing and the read is simply no longer there.
                if let Some(record) = local.read(&local.record_path(&key))? {
                    all.insert(key, record);
                }
            }
            Ok(all)
        })
        .await
    }
}

/// The file of the record at `key` under the directory `root`.
fn relative_record_path(mut path: PathBuf, key: &str) -> PathBuf {
    let mut segments = key.split('/').peekable();
    while let Some(segment) = segments.next() {
        if segments.peek().is_some() {
            path.push(dir_name(segment));
        } else {
            path.push(format!("{segment}{RECORD_SUFFIX}"));
        }
    }
    path
}

fn io_err(op: &'static str, path: &Path, error: io::Error) -> StoreError {
    StoreError::Io {
        op,
        path: path.to_owned(),
        error,
    }
}

/// The directory name of one key segment: the segment itself, or the segment plus `.d` when it ends in a
/// reserved suffix. The mapping is one-to-one and never yields a name ending in `.rec`, `.lock` or `.tmp`.
fn dir_name(segment: &str) -> String {
    if RESERVED_SUFFIXES.iter().any(|s| segment.ends_with(s)) {
        format!("{segment}{DIR_ESCAPE}")
    } else {
        segment.to_owned()
    }
}

/// The key segment of a directory name, or `None` for a directory this store did not name.
fn segment_of_dir(name: &str) -> Option<&str> {
    if let Some(segment) = name.strip_suffix(DIR_ESCAPE) {
        return RESERVED_SUFFIXES
            .iter()
            .any(|s| segment.ends_with(s))
            .then_some(segment);
    }
    (!RESERVED_SUFFIXES.iter().any(|s| name.ends_with(s))).then_some(name)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut os = path.as_os_str().to_owned();
    os.push(suffix);
    PathBuf::from(os)
}

/// Syncs a directory so that a rename, link or unlink in it survives a power cut.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| io_err("sync directory", dir, source))
}

/// A held sidecar lock; dropping it releases the lock.
struct LockGuard {
    path: PathBuf,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Nothing useful can be done when the unlink fails: the lock then goes stale and is broken.
        let _ = fs::remove_file(&self.path);
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Local {
    fn record_path(&self, key: &str) -> PathBuf {
        relative_record_path(self.root.clone(), key)
    }

    /// The record at `path`. A symbolic link in a record's place is not followed (a record is always a
    /// plain file, and the store never reads outside its directory): it reads as an empty payload whose
    /// version names the link's target, so a compare-and-swap against that version replaces the link
    /// itself, never what it points to.
    fn read(&self, path: &Path) -> Result<Option<Record>, StoreError> {
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(path).map_err(|source| io_err("read", path, source))?;
                let hash = Version::content_hash(target.as_os_str().as_encoded_bytes());
                return Ok(
                    Version::new(format!("symlink:{hash}")).map(|version| Record {
                        payload: Vec::new(),
                        version,
                    }),
                );
            }
            _ => {}
        }
        match fs::read(path) {
            Ok(payload) => Ok(Some(Record {
                version: Version::content_hash(&payload),
                payload,
            })),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(None)
            }
            Err(source) => Err(io_err("read", path, source)),
        }
    }

    fn version_at(&self, path: &Path) -> Result<Option<Version>, StoreError> {
        Ok(self.read(path)?.map(|r| r.version))
    }

    /// Writes `payload` to a fresh temp file beside `path` and syncs it; returns the temp file's path.
    fn write_temp(&self, path: &Path, payload: &[u8]) -> Result<PathBuf, StoreError> {
        let dir = path.parent().unwrap_or(&self.root);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let temp = dir.join(format!(
            ".{name}.{}.{}{TEMP_SUFFIX}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
            .map_err(|source| io_err("create temp file", &temp, source))?;
        let written = file.write_all(payload).and_then(|()| file.sync_all());
        if let Err(source) = written {
            let _ = fs::remove_file(&temp);
            return Err(io_err("write temp file", &temp, source));
        }
        Ok(temp)
    }

    fn create(&self, key: &str, payload: &[u8]) -> Result<Version, StoreError> {
        let path = self.record_path(key);
        let dir = path.parent().unwrap_or(&self.root).to_owned();
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|source| io_err("create directory", &dir, source))?;
        let temp = self.write_temp(&path, payload)?;
        // A record deleted between a failed link and the read that names it is not a conflict: retry the
        // create a few times before reporting what is there.
        let mut attempts = 0;
        let outcome = loop {
            attempts += 1;
            match fs::hard_link(&temp, &path) {
                Ok(()) => break sync_dir(&dir).map(|()| Version::content_hash(payload)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    match self.version_at(&path) {
                        Ok(None) if attempts < 8 => continue,
                        Ok(actual) => break Err(VersionConflict::new(key, None, actual).into()),
                        Err(err) => break Err(err),
                    }
                }
                Err(source) => break Err(io_err("create", &path, source)),
            }
        };
        let _ = fs::remove_file(&temp);
        outcome
    }

    fn update(&self, key: &str, payload: &[u8], expected: &Version) -> Result<Version, StoreError> {
        let path = self.record_path(key);
        let Some(_lock) = self.lock(&path)? else {
            return Err(VersionConflict::new(key, Some(expected), None).into());
        };
        let actual = self.version_at(&path)?;
        if actual.as_ref() != Some(expected) {
            return Err(VersionConflict::new(key, Some(expected), actual).into());
        }
        let temp = self.write_temp(&path, payload)?;
        if let Err(source) = fs::rename(&temp, &path) {
            let _ = fs::remove_file(&temp);
            return Err(io_err("rename", &path, source));
        }
        sync_dir(path.parent().unwrap_or(&self.root))?;
        Ok(Version::content_hash(payload))
    }

    fn delete(&self, key: &str, expected: Option<&Version>) -> Result<(), StoreError> {
        let path = self.record_path(key);
        let Some(expected) = expected else {
            return match self.version_at(&path)? {
                None => Ok(()),
                actual => Err(VersionConflict::new(key, None, actual).into()),
            };
        };
        let Some(_lock) = self.lock(&path)? else {
            return Err(VersionConflict::new(key, Some(expected), None).into());
        };
        let actual = self.version_at(&path)?;
        if actual.as_ref() != Some(expected) {
            return Err(VersionConflict::new(key, Some(expected), actual).into());
        }
        fs::remove_file(&path).map_err(|source| io_err("remove", &path, source))?;
        sync_dir(path.parent().unwrap_or(&self.root))
    }

    /// Takes the sidecar lock of the record at `path`, waiting while another writer holds it and breaking
    /// it once stale. `None` when the record's directory does not exist (so neither does the record).
    fn lock(&self, path: &Path) -> Result<Option<LockGuard>, StoreError> {
        let lock_path = with_suffix(path, LOCK_SUFFIX);
        let mut seen: Option<((u64, Option<SystemTime>), Instant)> = None;
        let mut pause = Duration::from_micros(200);
        loop {
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&lock_path)
            {
                Ok(mut file) => {
                    // The owner's pid is for a human looking at a stuck lock; nothing reads it.
                    let _ = writeln!(file, "pid {}", std::process::id());
                    return Ok(Some(LockGuard { path: lock_path }));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(source) => return Err(io_err("create lock", &lock_path, source)),
            }
            let meta = match fs::metadata(&lock_path) {
                Ok(meta) => meta,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(source) => return Err(io_err("inspect lock", &lock_path, source)),
            };
            let identity = (meta.ino(), meta.modified().ok());
            let since = match seen {
                Some((id, since)) if id == identity => since,
                _ => {
                    let now = Instant::now();
                    seen = Some((identity, now));
                    now
                }
            };
            let age = identity
                .1
                .and_then(|m| SystemTime::now().duration_since(m).ok())
                .unwrap_or_default();
            if age >= self.lock_stale_after || since.elapsed() >= self.lock_stale_after {
                // Break it only if it is still the lock judged stale, which narrows (but cannot close)
                // the race described in the module docs.
                let still_same = fs::metadata(&lock_path)
                    .map(|m| (m.ino(), m.modified().ok()) == identity)
                    .unwrap_or(false);
                if still_same {
                    tracing::warn!(lock = %lock_path.display(), ?age, "breaking a stale record lock");
                    match fs::remove_file(&lock_path) {
                        Ok(()) => self.sweep_dead_temps(path),
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        Err(source) => return Err(io_err("break lock", &lock_path, source)),
                    }
                }
                seen = None;
                continue;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// Removes the temp files of the record at `path` that are older than the stale timeout: a writer
    /// that died holding the lock left them, and no live writer keeps a temp file that long.
    fn sweep_dead_temps(&self, path: &Path) {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str()))
        else {
            return;
        };
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mine = format!(".{name}.");
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(file_name) = file_name.to_str() else {
                continue;
            };
            if !(file_name.starts_with(&mine) && file_name.ends_with(TEMP_SUFFIX)) {
                continue;
            }
            let old = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|m| SystemTime::now().duration_since(m).ok())
                .is_some_and(|age| age >= self.lock_stale_after);
            if old {
                // Best effort: a temp file that stays is never read as a record.
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        // Start from the deepest directory the prefix names in full; a prefix whose full segments no
        // valid key can have matches nothing.
        let (dir_part, _) = prefix.rsplit_once('/').unwrap_or(("", prefix));
        let mut start = self.root.clone();
        let mut base = String::new();
        if !dir_part.is_empty() || prefix.starts_with('/') {
            for segment in dir_part.split('/') {
                if segment.is_empty() || segment == "." || segment == ".." || segment.contains('\0')
                {
                    return Ok(Vec::new());
                }
                start.push(dir_name(segment));
                base.push_str(segment);
                base.push('/');
            }
        }
        let mut keys = Vec::new();
        self.walk(&start, &base, prefix, &mut keys)?;
        keys.sort_unstable();
        Ok(keys)
    }

    fn walk(
        &self,
        dir: &Path,
        base: &str,
        prefix: &str,
        keys: &mut Vec<String>,
    ) -> Result<(), StoreError> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(());
            }
            Err(source) => return Err(io_err("list", dir, source)),
        };
        for entry in entries {
            let entry = entry.map_err(|source| io_err("list", dir, source))?;
            // Names that are not UTF-8 are not ours, and a symlink is never followed. A symlink named as
            // a record is listed (it reads as an empty payload) so that it is seen as a damaged record
            // rather than block the record's creation unseen.
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if file_type.is_dir() {
                let Some(segment) = segment_of_dir(name) else {
                    continue;
                };
                let sub = format!("{base}{segment}/");
                if sub.starts_with(prefix) || prefix.starts_with(&sub) {
                    self.walk(&entry.path(), &sub, prefix, keys)?;
                }
            } else if file_type.is_file() || file_type.is_symlink() {
                let Some(last) = name.strip_suffix(RECORD_SUFFIX) else {
                    continue;
                };
                let key = format!("{base}{last}");
                if key.starts_with(prefix) && crate::key::validate_key(&key).is_ok() {
                    keys.push(key);
                }
            }
        }
        Ok(())
    }
}
