//! Counting the requests behind store calls: a backend notes each request it makes to what it stores in
//! (an S3 or SSM API request, a page of a listing; one per call for the memory and local stores), and
//! [`count_requests`] gives the requests a future caused, however many store calls and decorators it went
//! through. Counts nest: a count inside another adds to it.
//!
//! ```
//! use staterecord::{MemoryStore, Store, count_requests};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = MemoryStore::new();
//! let (read, requests) = count_requests(async {
//!     store.put_if_absent("estate/a", b"r").await?;
//!     store.get("estate/a").await
//! })
//! .await;
//! assert!(read?.is_some());
//! assert_eq!(requests, 2);
//! # Ok::<(), staterecord::StoreError>(())
//! # }).unwrap();
//! ```

use std::cell::Cell;
use std::future::Future;

tokio::task_local! {
    static REQUESTS: Cell<u64>;
}

/// Runs `fut` and gives what it returned with the store requests it caused (see the module docs).
pub async fn count_requests<T>(fut: impl Future<Output = T>) -> (T, u64) {
    let (out, counted) = REQUESTS
        .scope(Cell::new(0), async {
            let out = fut.await;
            (out, REQUESTS.with(Cell::get))
        })
        .await;
    note_requests(counted);
    (out, counted)
}

/// Notes `n` requests a backend made, for every [`count_requests`] around the current task's call.
pub(crate) fn note_requests(n: u64) {
    // Outside every count, nobody asked.
    let _ = REQUESTS.try_with(|c| c.set(c.get() + n));
}
