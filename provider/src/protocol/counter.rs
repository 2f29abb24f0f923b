//! A per-operation count of API attempts.

use std::collections::BTreeMap;
use std::sync::Mutex;

///
/// Record every attempt, retries included, before making it; a failed call is still a call.
#[derive(Debug, Default)]
pub struct ApiCallCounter {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl ApiCallCounter {
    /// A counter at zero.
    pub fn new() -> ApiCallCounter {
        ApiCallCounter::default()
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, u64>> {
        // A panic elsewhere while holding the lock leaves the map consistent: it only ever grows by one.
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts one call of `operation`.
    pub fn record(&self, operation: &str) {
        *self.counts().entry(operation.to_owned()).or_insert(0) += 1;
    }

    /// The counts so far, by operation name.
    pub fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts().clone()
    }

    /// The number of calls so far, all operations together.
    pub fn total(&self) -> u64 {
        self.counts().values().sum()
    }
}
