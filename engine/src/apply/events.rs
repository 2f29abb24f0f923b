//! What an apply reports as it runs: an event when an operation starts, while it runs (the progress
//! ticker), and when it completes or fails; the terminal line and the `--json` line of each.
//!
//! Events go to the caller's sink from the apply's own task, in order per operation. This module never
//! prints, and the ticker never delays or cancels the call it watches.

use std::sync::Arc;
use std::time::Duration;

use admission::InstanceAddress;
use futures::future::{Either, select};
use tokio::time::Instant;

use super::Executor;
use crate::graph::FinalKind;
use crate::model::ResourceChange;

/// What an apply event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyEventKind {
    /// A provider operation started.
    Started,
    /// A provider operation is still running.
    Progress,
    /// A provider operation finished.
    Completed,
    /// A provider operation failed.
    Errored,
}

impl ApplyEventKind {
    /// The event type of the `--json` stream.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyEventKind::Started => "apply_start",
            ApplyEventKind::Progress => "apply_progress",
            ApplyEventKind::Completed => "apply_complete",
            ApplyEventKind::Errored => "apply_errored",
        }
    }
}

/// One event of an apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyEvent {
    /// What happened.
    pub kind: ApplyEventKind,
    /// The instance.
    pub address: InstanceAddress,
    /// What the operation does to the object.
    pub action: FinalKind,
    /// The object's id, when known.
    pub id: Option<String>,
    /// Time since the operation started.
    pub elapsed: Duration,
    /// For an error, what went wrong.
    pub message: Option<String>,
}

impl ApplyEvent {
    /// The line a terminal shows for the event, as Terraform users know it.
    pub fn line(&self) -> String {
        let (ing, done) = match self.action {
            FinalKind::Create => ("Creating", "Creation"),
            FinalKind::Update => ("Modifying", "Modifications"),
            FinalKind::Delete => ("Destroying", "Destruction"),
        };
        let secs = self.elapsed.as_secs();
        let id = self
            .id
            .as_deref()
            .map(|i| format!(" [id={i}]"))
            .unwrap_or_default();
        match self.kind {
            ApplyEventKind::Started => format!("{}: {ing}...{id}", self.address),
            ApplyEventKind::Progress => {
                format!(
                    "{}: Still {}... [{secs}s elapsed]",
                    self.address,
                    ing.to_lowercase()
                )
            }
            ApplyEventKind::Completed => {
                format!("{}: {done} complete after {secs}s{id}", self.address)
            }
            ApplyEventKind::Errored => format!(
                "{}: {ing} failed after {secs}s: {}",
                self.address,
                self.message.as_deref().unwrap_or("error")
            ),
        }
    }

    /// The event as one line of the `--json` stream.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "type": self.kind.as_str(),
            "address": self.address.to_string(),
            "action": self.action.as_str(),
            "id": self.id,
            "elapsed_ms": self.elapsed.as_millis() as u64,
        })
    }
}

/// Where apply events go: called from the apply's own task, in order per operation.
pub type EventSink = Arc<dyn Fn(&ApplyEvent) + Send + Sync>;

/// The operation an event is about: its change, its action, and when it started.
#[derive(Clone, Copy)]
pub(super) struct Op<'a> {
    /// The change applied.
    pub change: &'a ResourceChange,
    /// What the operation does to the object.
    pub action: FinalKind,
    /// When the operation started (its `Started` event).
    pub started: Instant,
}

impl Executor {
    /// Reports `kind` of `op` with the object's `id` and, for an error, its `message`.
    pub(super) fn emit(
        &self,
        kind: ApplyEventKind,
        op: &Op<'_>,
        id: Option<String>,
        message: Option<String>,
    ) {
        if let Some(sink) = &self.events {
            sink(&ApplyEvent {
                kind,
                address: op.change.address.clone(),
                action: op.action,
                id,
                elapsed: op.started.elapsed(),
                message,
            });
        }
    }

    /// Awaits `fut`, reporting progress of `op` every interval while it runs (when events have a sink).
    pub(super) async fn ticking<T>(
        &self,
        op: &Op<'_>,
        id: Option<String>,
        fut: impl std::future::Future<Output = T>,
    ) -> T {
        if self.events.is_none() {
            // No one to report progress to: no ticker beside the call.
            return fut.await;
        }
        let mut fut = std::pin::pin!(fut);
        loop {
            let tick = tokio::time::sleep(self.progress_interval);
            let tick = std::pin::pin!(tick);
            match select(fut.as_mut(), tick).await {
                Either::Left((out, _)) => return out,
                Either::Right(_) => self.emit(ApplyEventKind::Progress, op, id.clone(), None),
            }
        }
    }
}
