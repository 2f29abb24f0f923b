//! The run loop: ready nodes start as soon as their operands resolved, waiters and the intrinsic resolve on
//! the spot, operations calls are polled together in the caller's task, and each completion releases the
//! nodes that waited for it.
//!
//! The loop must never spawn a task, never start a node twice, and never report a skipped node's failure
//! again: the node that failed reported it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::call::{prepare_depose, run_op};
use super::cells::{ReleaseSinks, SinkValue};
use super::payload::{Outcome, Payload, Slot};
use super::{CompiledGraph, ExecuteConfig, FAILED, REQUESTER, SUCCEEDED, lock};
use crate::diag::codes;
use crate::{Diagnostic, Family, OpCode};

type Running<F> = Pin<Box<dyn Future<Output = (u32, Outcome<F>)> + Send>>;

/// What starting a ready node gave.
enum Start<F: Family> {
    /// A waiter, the intrinsic, or an operation skipped for a failed operand: resolved on the spot.
    Resolved(Outcome<F>),
    /// An operations call, to be polled with the others.
    Running(Running<F>),
}

impl<F: Family> CompiledGraph<F> {
    /// Runs every operation, each as soon as its operands resolved, and returns every diagnostic reported
    /// (in the order reported; a diagnostic an operation returns without an address gets the address of the
    /// instance the operation was for). A failed operand skips an operation without a diagnostic of its own, so one
    /// failure gives one error however much depends on it. A graph executes once; a second call returns an
    /// `already-executed` error and runs nothing.
    ///
    /// Dropping the returned future drops the calls in flight and resolves every pending final state as
    /// failed; prefer cancelling through [`ExecuteConfig::cancel`], which lets calls in flight finish.
    pub async fn execute(&self, config: ExecuteConfig) -> Vec<Diagnostic> {
        let shared = &self.shared;
        if shared.started.swap(true, Ordering::AcqRel) {
            return vec![Diagnostic::error(
                codes::ALREADY_EXECUTED,
                "the execution graph was already executed",
                "A compiled graph runs once; compile the graph again to run it again.",
            )];
        }
        let _release = ReleaseSinks(Arc::clone(shared));
        let semaphore = Arc::new(Semaphore::new(config.parallelism.get()));
        let n = shared.indegree.len();
        let mut remaining = shared.indegree.clone();
        let mut slots: Vec<Slot<F>> = (0..n).map(|_| Slot::Pending).collect();
        let mut ready: Vec<u32> = (0..n as u32)
            .rev()
            .filter(|node| remaining[*node as usize] == 0)
            .collect();
        let mut running: FuturesUnordered<Running<F>> = FuturesUnordered::new();
        loop {
            while let Some(node) = ready.pop() {
                match self.start(node, &slots, &semaphore, &config.cancel) {
                    Start::Resolved(outcome) => {
                        self.complete(node, outcome, &mut slots, &mut remaining, &mut ready)
                    }
                    Start::Running(future) => running.push(future),
                }
            }
            match running.next().await {
                Some((node, outcome)) => {
                    self.complete(node, outcome, &mut slots, &mut remaining, &mut ready)
                }
                None => break,
            }
        }
        std::mem::take(&mut *lock(&shared.diagnostics))
    }

    /// Starts a ready node: resolves it at once, or returns the future running it.
    fn start(
        &self,
        node: u32,
        slots: &[Slot<F>],
        semaphore: &Arc<Semaphore>,
        cancel: &CancellationToken,
    ) -> Start<F> {
        let shared = &self.shared;
        let data = shared.data();
        if node as usize >= data.ops.len() {
            let all_succeeded = data
                .node_inputs(node)
                .iter()
                .filter_map(|raw| data.node_of(*raw))
                .all(|input| matches!(slots[input as usize], Slot::Ok(_)));
            return Start::Resolved(if all_succeeded {
                Outcome::ok(Payload::Done)
            } else {
                Outcome::failed(Vec::new())
            });
        }
        let code = data.ops[node as usize].code;
        let mut args = Vec::with_capacity(code.operands().len());
        for raw in data.op_operands(node as usize) {
            match shared.resolve_operand(*raw, slots) {
                Some(payload) => args.push(payload),
                // The producer already reported why it failed: stop without a diagnostic of our own.
                None => return Start::Resolved(Outcome::failed(Vec::new())),
            }
        }
        if code == OpCode::ManagedPrepareDepose {
            return Start::Resolved(prepare_depose(shared, node, &args));
        }
        let span = tracing::debug_span!(
            "graph_op",
            op = code.name(),
            address = tracing::field::Empty
        );
        if let Some(addr) = data.op_addr(node) {
            span.record("address", tracing::field::display(addr));
        }
        let future = run_op(
            Arc::clone(shared),
            node,
            code,
            args,
            Arc::clone(semaphore),
            cancel.clone(),
        );
        Start::Running(Box::pin(
            REQUESTER.scope((shared.identity(), node), future.instrument(span)),
        ))
    }

    fn complete(
        &self,
        node: u32,
        outcome: Outcome<F>,
        slots: &mut [Slot<F>],
        remaining: &mut [u32],
        ready: &mut Vec<u32>,
    ) {
        let shared = &self.shared;
        let mut diagnostics = outcome.diagnostics;
        if !diagnostics.is_empty()
            && let Some(addr) = shared.data().op_addr(node)
        {
            // Operations may leave the address out: the graph knows which instance the call was for.
            for diagnostic in diagnostics.iter_mut().filter(|d| d.address.is_none()) {
                diagnostic.address = Some(addr.to_string());
            }
        }
        shared.report(diagnostics);
        let state = if outcome.result.is_ok() {
            SUCCEEDED
        } else {
            FAILED
        };
        shared.states[node as usize].store(state, Ordering::Release);
        for &(_, sink) in shared.sinks_of(node) {
            let value = match (&outcome.result, &outcome.restored) {
                (Ok(Payload::Object(object)), _) => SinkValue::Object(Arc::clone(object)),
                (Ok(_), _) => SinkValue::Null,
                (Err(()), Some(restored)) => SinkValue::Object(Arc::clone(restored)),
                (Err(()), None) => SinkValue::Failed,
            };
            let _ = shared.cells[sink as usize].set(value);
        }
        slots[node as usize] = match outcome.result {
            Ok(payload) => Slot::Ok(payload),
            Err(()) => Slot::Failed,
        };
        let from = shared.dependents_start[node as usize] as usize;
        let to = shared.dependents_start[node as usize + 1] as usize;
        for &dependent in &shared.dependents[from..to] {
            let left = &mut remaining[dependent as usize];
            *left -= 1;
            if *left == 0 {
                ready.push(dependent);
            }
        }
    }
}
