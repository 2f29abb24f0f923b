//! `CountingStore`: every call that reaches a store, counted as a [`Trip`] with who wanted it and through
//! which accessor, so "a plan costs N store trips" is a measured number with a breakdown.
//!
//! Labels travel with the task: wrap the accessor's work in [`labeled`] with a [`TripLabel`] (usually
//! [`TripLabel::here`], which takes the caller's file and line as the site). This module never walks the
//! stack, never prints (the optional log goes to the writer the caller hands in), and never changes what
//! the wrapped store returns.
//!
//! ```
//! use std::sync::Arc;
//! use staterecord::{CountingStore, MemoryStore, Store, TripLabel, labeled};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let counting = Arc::new(CountingStore::new(Arc::new(MemoryStore::new()), None));
//! labeled(TripLabel::new("identity", "plan"), counting.get("estate/a")).await?;
//! labeled(TripLabel::new("residue", "plan"), counting.get("estate/a")).await?;
//! let counts = counting.counts();
//! assert_eq!((counts.total, counts.distinct_keys, counts.repeat_trips), (2, 1, 1));
//! assert_eq!(counts.by_via["identity"], 1);
//! # Ok::<(), staterecord::StoreError>(())
//! # }).unwrap();
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::io::Write;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::decorate::{DecorateStore, StoreCall};
use crate::error::StoreError;
use crate::store::Store;

tokio::task_local! {
    static TRIP_LABEL: TripLabel;
}

/// The `via` and `site` of trips made while a label is in force (see [`labeled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TripLabel {
    /// The record-store accessor the calls come through (`identity`, `residue`, ...).
    pub via: String,
    /// The caller that wanted the record.
    pub site: String,
}

impl TripLabel {
    /// The via used for trips made with no label in force; the site is the same word.
    pub const UNLABELED: &'static str = "unlabeled";

    /// A label with explicit `via` and `site`.
    pub fn new(via: impl Into<String>, site: impl Into<String>) -> TripLabel {
        TripLabel {
            via: via.into(),
            site: site.into(),
        }
    }

    /// A label whose site is the `file:line` of the code calling this function.
    #[track_caller]
    pub fn here(via: impl Into<String>) -> TripLabel {
        let at = std::panic::Location::caller();
        TripLabel::new(via, format!("{}:{}", at.file(), at.line()))
    }
}

/// Runs `fut` with `label` in force: every trip it makes through a [`CountingStore`], through any wrapper
/// in between, is attributed to the label. Labels nest; the innermost wins.
pub async fn labeled<F: Future>(label: TripLabel, fut: F) -> F::Output {
    TRIP_LABEL.scope(label, fut).await
}

/// The store operation a trip made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TripMethod {
    /// [`Store::get`].
    Get,
    /// [`BulkReader::get_all`](crate::BulkReader::get_all).
    GetAll,
    /// [`Store::list`].
    List,
    /// [`Store::put_if_absent`].
    PutIfAbsent,
    /// [`Store::put_if_version`].
    PutIfVersion,
    /// [`Store::delete`].
    Delete,
}

impl TripMethod {
    /// The method's name in counts and logs (`get`, `get_all`, `list`, `put_if_absent`,
    /// `put_if_version`, `delete`).
    pub fn as_str(self) -> &'static str {
        match self {
            TripMethod::Get => "get",
            TripMethod::GetAll => "get_all",
            TripMethod::List => "list",
            TripMethod::PutIfAbsent => "put_if_absent",
            TripMethod::PutIfVersion => "put_if_version",
            TripMethod::Delete => "delete",
        }
    }
}

impl fmt::Display for TripMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TripMethod {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "get" => TripMethod::Get,
            "get_all" => TripMethod::GetAll,
            "list" => TripMethod::List,
            "put_if_absent" => TripMethod::PutIfAbsent,
            "put_if_version" => TripMethod::PutIfVersion,
            "delete" => TripMethod::Delete,
            _ => return Err(()),
        })
    }
}

/// One call that reached the wrapped store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trip {
    /// What the call was.
    pub method: TripMethod,
    /// The record key (for `list` and `get_all`, the prefix).
    pub key: String,
    /// The accessor the call came through.
    pub via: String,
    /// The caller that wanted the record.
    pub site: String,
}

/// The log line of a trip: `trip`, method, key, via and site separated by tabs, with `\`, tab, CR and LF
/// escaped as `\\`, `\t`, `\r` and `\n`, so any key fits on one line.
impl fmt::Display for Trip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trip\t{}\t{}\t{}\t{}",
            self.method,
            escape(&self.key),
            escape(&self.via),
            escape(&self.site)
        )
    }
}

fn escape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(field: &str, line: usize) -> Result<String, StoreError> {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('\\') => '\\',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            _ => {
                return Err(StoreError::MalformedTripLog {
                    line,
                    reason: "unknown escape sequence",
                });
            }
        });
    }
    Ok(out)
}

/// Reads back the trips a [`CountingStore`] logged. Lines that do not start with `trip` and a tab are
/// other output sharing the log and are skipped; a trip line that is malformed is an error naming its line.
pub fn parse_trip_log(log: &str) -> Result<Vec<Trip>, StoreError> {
    let mut trips = Vec::new();
    for (index, text) in log.lines().enumerate() {
        let line = index + 1;
        let Some(rest) = text.strip_prefix("trip\t") else {
            continue;
        };
        let fields: Vec<&str> = rest.split('\t').collect();
        let [method, key, via, site] = fields[..] else {
            return Err(StoreError::MalformedTripLog {
                line,
                reason: "expected four tab-separated fields after 'trip'",
            });
        };
        let method = method.parse().map_err(|()| StoreError::MalformedTripLog {
            line,
            reason: "unknown method",
        })?;
        trips.push(Trip {
            method,
            key: unescape(key, line)?,
            via: unescape(via, line)?,
            site: unescape(site, line)?,
        });
    }
    Ok(trips)
}

/// A set of trips summarized several ways at once; every figure counts the same trips, so they can be
/// checked against each other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TripCounts {
    /// All trips.
    pub total: usize,
    /// Trips per method name ([`TripMethod::as_str`]).
    pub by_method: BTreeMap<String, usize>,
    /// Trips per site.
    pub by_site: BTreeMap<String, usize>,
    /// Trips per via.
    pub by_via: BTreeMap<String, usize>,
    /// How many different keys (or prefixes) the trips touched.
    pub distinct_keys: usize,
    /// `total - distinct_keys`: trips that touched a key an earlier trip had touched, the most a cache can
    /// remove.
    pub repeat_trips: usize,
}

/// Summarizes `trips`.
pub fn summarize(trips: &[Trip]) -> TripCounts {
    let mut counts = TripCounts {
        total: trips.len(),
        ..TripCounts::default()
    };
    let mut keys = BTreeSet::new();
    for trip in trips {
        *counts
            .by_method
            .entry(trip.method.as_str().to_owned())
            .or_default() += 1;
        *counts.by_site.entry(trip.site.clone()).or_default() += 1;
        *counts.by_via.entry(trip.via.clone()).or_default() += 1;
        keys.insert(trip.key.as_str());
    }
    counts.distinct_keys = keys.len();
    counts.repeat_trips = counts.total - counts.distinct_keys;
    counts
}

struct Tally {
    trips: Mutex<Vec<Trip>>,
    /// The requests the backend made for the trips.
    requests: std::sync::atomic::AtomicU64,
    log: Option<Mutex<Box<dyn Write + Send>>>,
}

/// A [`Store`] wrapper that counts every call reaching the store it wraps. Safe to share between tasks.
pub struct CountingStore {
    inner: Arc<dyn Store>,
    tally: Arc<Tally>,
}

impl fmt::Debug for CountingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingStore")
            .field("trips", &self.total())
            .field("inner", &self.inner)
            .finish()
    }
}

impl CountingStore {
    /// Counts the calls that reach `inner`; when `log` is given, each trip is also written to it as one
    /// line (see [`Trip`]'s `Display`), which [`parse_trip_log`] reads back.
    pub fn new(inner: Arc<dyn Store>, log: Option<Box<dyn Write + Send>>) -> CountingStore {
        CountingStore {
            inner,
            tally: Arc::new(Tally {
                trips: Mutex::new(Vec::new()),
                requests: std::sync::atomic::AtomicU64::new(0),
                log: log.map(Mutex::new),
            }),
        }
    }

    /// Every trip so far, in the order they were made.
    pub fn trips(&self) -> Vec<Trip> {
        self.tally
            .trips
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// How many trips so far.
    pub fn total(&self) -> usize {
        self.tally
            .trips
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// The requests the wrapped store's backend made for the trips so far (every page of a listing; one
    /// per trip for the memory and local stores).
    pub fn requests(&self) -> u64 {
        self.tally
            .requests
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The trips so far, summarized.
    pub fn counts(&self) -> TripCounts {
        summarize(&self.trips())
    }

    /// Forgets the trips counted so far (the log keeps its lines).
    pub fn reset(&self) {
        self.tally
            .trips
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The store this one wraps.
    pub fn inner(&self) -> &Arc<dyn Store> {
        &self.inner
    }

    fn count(&self, method: TripMethod, key: &str) {
        let (via, site) = TRIP_LABEL
            .try_with(|l| (l.via.clone(), l.site.clone()))
            .unwrap_or_else(|_| {
                (
                    TripLabel::UNLABELED.to_owned(),
                    TripLabel::UNLABELED.to_owned(),
                )
            });
        let trip = Trip {
            method,
            key: key.to_owned(),
            via,
            site,
        };
        tracing::trace!(method = %trip.method, key = %trip.key, via = %trip.via, site = %trip.site, "store trip");
        if let Some(log) = &self.tally.log {
            let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(err) = writeln!(log, "{trip}") {
                tracing::warn!(%err, "could not write the store trip log");
            }
        }
        self.tally
            .trips
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(trip);
    }
}

#[async_trait]
impl DecorateStore for CountingStore {
    fn inner(&self) -> &Arc<dyn Store> {
        &self.inner
    }

    async fn before(&self, call: StoreCall<'_>) -> Result<(), StoreError> {
        let method = match call {
            StoreCall::Get { .. } => TripMethod::Get,
            StoreCall::PutIfVersion { .. } => TripMethod::PutIfVersion,
            StoreCall::PutIfAbsent { .. } => TripMethod::PutIfAbsent,
            StoreCall::Delete { .. } => TripMethod::Delete,
            StoreCall::List { .. } => TripMethod::List,
            StoreCall::GetAll { .. } => TripMethod::GetAll,
        };
        self.count(method, call.key());
        Ok(())
    }

    fn after(&self, call: StoreCall<'_>, requests: u64) {
        self.tally
            .requests
            .fetch_add(requests, std::sync::atomic::Ordering::Relaxed);
        if let Some(log) = &self.tally.log {
            // Not a trip line: `parse_trip_log` passes over it.
            let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(err) = writeln!(log, "requests\t{}\t{}", requests, escape(call.key())) {
                tracing::warn!(%err, "could not write the store trip log");
            }
        }
    }

    fn around_uncached(&self, uncached: Arc<dyn Store>) -> Option<Arc<dyn Store>> {
        // Keep counting into the same tally below the cache that is being bypassed.
        Some(Arc::new(CountingStore {
            inner: uncached,
            tally: Arc::clone(&self.tally),
        }))
    }
}
