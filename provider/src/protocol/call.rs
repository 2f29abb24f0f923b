//! The context every provider call receives: where the provider reports each API attempt it makes.
//!
//! A [`Call`] wraps a [`Recorder`]. The provider reports every `service:Action` attempt to it, before
//! making the attempt and whether or not the attempt then fails, so that whoever made the call (a plan
//! that reports its cost, a [`Counting`](super::Counting) decorator, a test) knows exactly what it cost.
//! The provider itself keeps no count. `Call` is `#[non_exhaustive]` so that later fields (a deadline)
//! can be added without breaking implementations.
//!
//! This module holds plain bookkeeping: it must never perform I/O or block beyond a short lock.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Where a provider reports the API attempts of a call.
///
/// Implementations must be cheap and must not block: a provider reports from inside its calls, possibly
/// from many tasks at once. `()` records nothing.
pub trait Recorder: Send + Sync {
    /// One attempt at `operation`, a `service:Action` name (`ec2:DescribeVpcs`), about to be made.
    fn attempt(&self, operation: &str);
}

impl Recorder for () {
    fn attempt(&self, _operation: &str) {}
}

impl<R: Recorder + ?Sized> Recorder for &R {
    fn attempt(&self, operation: &str) {
        (**self).attempt(operation);
    }
}

/// The context of one provider call: the recorder its attempts go to.
///
/// It is `Copy`; a decorator that needs its own recorder for the inner call makes one with
/// [`Call::with_recorder`], which keeps every other field of the context.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Call<'a> {
    recorder: &'a dyn Recorder,
}

impl<'a> Call<'a> {
    /// A call whose attempts are reported to `recorder`.
    pub fn new(recorder: &'a dyn Recorder) -> Call<'a> {
        Call { recorder }
    }

    /// A call whose attempts are reported nowhere (a test, or a caller that does not care about cost).
    pub fn unrecorded() -> Call<'static> {
        Call { recorder: &() }
    }

    /// Reports one attempt at `operation` (`service:Action`): call it before making the attempt, also for
    /// an attempt that will fail.
    pub fn attempt(&self, operation: &str) {
        self.recorder.attempt(operation);
    }

    /// The recorder the attempts go to.
    pub fn recorder(&self) -> &'a dyn Recorder {
        self.recorder
    }

    /// This context with its attempts reported to `recorder` instead.
    pub fn with_recorder<'b>(&self, recorder: &'b dyn Recorder) -> Call<'b> {
        Call { recorder }
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call").finish_non_exhaustive()
    }
}

/// A recorder that counts attempts by operation name: a plan's cost, a [`Counting`](super::Counting)
/// decorator's totals, a test's expectations.
#[derive(Debug, Default)]
pub struct CallCounts {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl CallCounts {
    /// Counts at zero.
    pub fn new() -> CallCounts {
        CallCounts::default()
    }

    fn counts(&self) -> MutexGuard<'_, BTreeMap<String, u64>> {
        // A panic elsewhere while holding the lock leaves the map consistent: it only ever grows by one.
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The counts so far, by operation name (operations never attempted left out).
    pub fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts().clone()
    }

    /// The attempts so far at `operation`.
    pub fn of(&self, operation: &str) -> u64 {
        self.counts().get(operation).copied().unwrap_or(0)
    }

    /// The attempts so far, all operations together.
    pub fn total(&self) -> u64 {
        self.counts().values().sum()
    }

    /// Forgets every count.
    pub fn reset(&self) {
        self.counts().clear();
    }
}

impl Recorder for CallCounts {
    fn attempt(&self, operation: &str) {
        let mut counts = self.counts();
        match counts.get_mut(operation) {
            Some(n) => *n += 1,
            None => {
                counts.insert(operation.to_owned(), 1);
            }
        }
    }
}

/// Reports every attempt to two recorders: a decorator's own and its caller's.
pub(crate) struct Both<'a>(pub(crate) &'a dyn Recorder, pub(crate) &'a dyn Recorder);

impl Recorder for Both<'_> {
    fn attempt(&self, operation: &str) {
        self.0.attempt(operation);
        self.1.attempt(operation);
    }
}
