//! One writer at a time per record key: a small async lock per key, made when a key is first wanted and
//! dropped when no one holds or waits for it.
//!
//! The map of locks is locked only to find or drop a key's lock, never while a store call runs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OwnedMutexGuard;

/// The per-key locks of one journal.
#[derive(Default)]
pub(super) struct KeyTurns {
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// The turn of one key, held until dropped.
pub(super) struct KeyTurn<'a> {
    turns: &'a KeyTurns,
    key: String,
    guard: Option<OwnedMutexGuard<()>>,
}

impl KeyTurns {
    /// Waits for the turn of `key`.
    pub(super) async fn take(&self, key: &str) -> KeyTurn<'_> {
        let lock = Arc::clone(
            self.locks
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key.to_owned())
                .or_default(),
        );
        let guard = lock.lock_owned().await;
        KeyTurn {
            turns: self,
            key: key.to_owned(),
            guard: Some(guard),
        }
    }
}

impl Drop for KeyTurn<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut locks = self
            .turns
            .locks
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Only the map holds it: no one holds or waits for the key, and whoever wants it next makes a
        // new lock under this same map lock.
        if locks
            .get(&self.key)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            locks.remove(&self.key);
        }
    }
}
