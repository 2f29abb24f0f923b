//! The parallelism limit of an apply: an operation holds one turn while it is in flight, from its
//! `Started` event to the end of its provider call (for a record-backed instance, its record write).
//!
//! The records around a call are written outside its turn, so that a slow record store does not idle the
//! provider: a create that finds no turn free writes its intent while it waits, and every record after the
//! call is written after the turn is handed on. At most twice `parallelism` creates wait that way: with a
//! store as slow as the provider, one round of them writes its intents while the other calls, and the
//! pending intents a crash can leave stay bounded. The execution graph itself runs unbounded; this module
//! is the limit. It never hands out a turn after cancellation: an operation still waiting then reports
//! that it did not start (a create that wrote its intent ahead puts it back once nothing is in flight,
//! so that the store is never written to while an interrupted apply waits for its last calls).

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use admission::{Code, InstanceAddress};
use execgraph::Diagnostic as GraphDiagnostic;
use futures::future::{Either, select};

use tokio::sync::{Notify, Semaphore, SemaphorePermit};
use tokio_util::sync::CancellationToken;

/// The turns of one apply.
pub(super) struct Turns {
    /// Operations in flight.
    calls: Semaphore,
    /// Creates waiting for a turn with their intent written (or being written): twice the turns.
    ahead: Semaphore,
    cancel: CancellationToken,
    /// The order of the calls, by turn.
    pub(super) order: CallOrder,
    parallelism: usize,
}

/// Where an operation stands.
pub(super) enum Entry<'a> {
    /// In flight: it holds a turn (until dropped).
    Turn { _turn: SemaphorePermit<'a> },
    /// A create preparing its records ahead of its turn, holding one of the places ahead.
    Ahead { _place: SemaphorePermit<'a> },
    /// Past its turn: writing the records after its call.
    Done,
}

impl Turns {
    /// `parallelism` turns, handed out until `cancel` fires.
    pub(super) fn new(parallelism: usize, cancel: CancellationToken) -> Turns {
        Turns {
            calls: Semaphore::new(parallelism),
            ahead: Semaphore::new(2 * parallelism),
            cancel,
            order: CallOrder::default(),
            parallelism,
        }
    }

    /// Enters an operation: a turn when one is free, else for one that `prepares` records before its
    /// call a place ahead, for any other its turn. `None` once the apply is cancelled.
    pub(super) async fn enter(&self, prepares: bool) -> Option<Entry<'_>> {
        if self.cancel.is_cancelled() {
            return None;
        }
        // The uncontended path first: awaiting the semaphore spends the task's cooperative budget.
        if let Ok(turn) = self.calls.try_acquire() {
            return Some(Entry::Turn { _turn: turn });
        }
        // A create that must wait writes its intent first, and only then queues for a turn: a turn is
        // handed to an operation ready to call the provider, never to one still writing a record.
        let entry = if prepares {
            Entry::Ahead {
                _place: self.unless_cancelled(self.ahead.acquire()).await?.ok()?,
            }
        } else {
            Entry::Turn {
                _turn: self.unless_cancelled(self.calls.acquire()).await?.ok()?,
            }
        };
        (!self.cancel.is_cancelled()).then_some(entry)
    }

    /// Waits for the turn of an operation that entered ahead; `false` once the apply is cancelled.
    pub(super) async fn take_turn<'a>(&'a self, entry: &mut Entry<'a>) -> bool {
        if matches!(entry, Entry::Turn { .. } | Entry::Done) {
            return true;
        }
        if self.cancel.is_cancelled() {
            return false;
        }
        let turn = match self.calls.try_acquire() {
            Ok(turn) => turn,
            Err(_) => match self.unless_cancelled(self.calls.acquire()).await {
                Some(Ok(turn)) => turn,
                _ => return false,
            },
        };
        if self.cancel.is_cancelled() {
            return false;
        }
        *entry = Entry::Turn { _turn: turn };
        true
    }

    /// Waits until no operation is in flight, and holds every turn while the returned permit lives: the
    /// moment a create cancelled before its turn puts its intent back, after what was in flight ended.
    pub(super) async fn idle(&self) -> Option<SemaphorePermit<'_>> {
        let all = u32::try_from(self.parallelism).ok()?;
        self.calls.acquire_many(all).await.ok()
    }

    /// `fut`'s output, or `None` when the apply is cancelled first.
    async fn unless_cancelled<F: std::future::Future>(&self, fut: F) -> Option<F::Output> {
        let cancelled = std::pin::pin!(self.cancel.cancelled());
        match select(cancelled, std::pin::pin!(fut)).await {
            Either::Left(_) => None,
            Either::Right((out, _)) => Some(out),
        }
    }
}

/// The diagnostic of an operation the cancellation kept from starting, as the execution graph words it
/// for the operations it never called.
pub(super) fn not_started(address: &InstanceAddress) -> GraphDiagnostic {
    GraphDiagnostic::error(
        Code::Cancelled.as_str(),
        "operation not started: apply was cancelled",
        format!(
            "The change to {address} was not started because the apply was interrupted; operations \
             already in flight finished. Run apply again to carry out the remaining changes."
        ),
    )
    .with_address(address)
}

/// The order of provider calls: an operation calls the provider only after every operation that took
/// its turn before it has called (or given up), so that the calls of one apply start in the order of the
/// turns, whichever record write around them ends first.
#[derive(Default)]
pub(super) struct CallOrder {
    state: Mutex<OrderState>,
    changed: Notify,
}

#[derive(Default)]
struct OrderState {
    /// The next ticket to hand out.
    issued: u64,
    /// Every ticket below this one has called.
    passed: u64,
    /// Tickets that called (or gave up) before some ticket below them.
    early: BTreeSet<u64>,
}

impl CallOrder {
    /// The ticket of an operation that just took its turn.
    pub(super) fn issue(&self) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.issued += 1;
        state.issued - 1
    }

    /// Waits until every ticket below `ticket` has called.
    pub(super) async fn wait(&self, ticket: u64) {
        loop {
            let notified = self.changed.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if self
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .passed
                >= ticket
            {
                return;
            }
            notified.await;
        }
    }

    /// Marks `ticket` as called.
    pub(super) fn pass(&self, ticket: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if ticket == state.passed {
            state.passed += 1;
            loop {
                let next = state.passed;
                if !state.early.remove(&next) {
                    break;
                }
                state.passed += 1;
            }
        } else {
            state.early.insert(ticket);
        }
        drop(state);
        self.changed.notify_waiters();
    }
}
