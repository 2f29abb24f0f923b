//! Compiling and executing a graph: the scheduler that runs each operation once its operands resolved, under
//! a parallelism limit and a cancellation token, and the promise side that lets the evaluator read instances'
//! final values while execution runs.
//!
//! The scheduler is one loop in the task that calls [`CompiledGraph::execute`]: ready operations become
//! futures in a `FuturesUnordered` (no task per node, nothing detached), waiters and the intrinsic resolve
//! inline. A permit of the parallelism semaphore is held only around an operations call, never while waiting
//! for operands or values. This module must never abort an operation in flight, never report one failure
//! twice, and never hang on a dependency cycle: a wait that would close one is refused and reported.
//!
//! The state one compiled graph shares between the scheduler, its operations and the evaluator lives here;
//! `compile` builds it, `schedule` is the run loop, `call` makes each operations call, `payload` holds
//! what nodes resolve to, `cells` are the final values the evaluator reads, and `cycle` refuses a value
//! wait that would close a dependency cycle.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU8};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::SetOnce;
use tokio_util::sync::CancellationToken;

use crate::diag::codes;
use crate::graph::GraphData;
use crate::refs::{RawRef, Target};
use crate::{Diagnostic, Family, Graph, Operations};

mod call;
mod cells;
mod compile;
mod cycle;
mod payload;
mod schedule;

pub use cells::ValueSource;

use cells::SinkValue;
use cycle::Waits;
use payload::{Payload, Slot};

const PENDING: u8 = 0;
const SUCCEEDED: u8 = 1;
const FAILED: u8 = 2;

tokio::task_local! {
    /// The graph (by address) and operation on whose behalf the current task's code runs.
    static REQUESTER: (usize, u32);
}

/// How to execute a compiled graph.
#[derive(Debug, Clone)]
pub struct ExecuteConfig {
    /// The most operations calls in flight at once (provider-side calls; see
    /// [`OpCode::holds_permit`](crate::OpCode::holds_permit)).
    pub parallelism: NonZeroUsize,
    /// Cancelling it stops new operations from starting; calls in flight finish.
    pub cancel: CancellationToken,
}

impl Default for ExecuteConfig {
    fn default() -> Self {
        ExecuteConfig {
            parallelism: NonZeroUsize::new(10).unwrap_or(NonZeroUsize::MIN),
            cancel: CancellationToken::new(),
        }
    }
}

struct Shared<F: Family> {
    graph: Graph<F>,
    ops: Arc<dyn Operations<F>>,
    /// For each node, its distinct input nodes count.
    indegree: Vec<u32>,
    /// The nodes waiting for each node: `dependents[dependents_start[n]..dependents_start[n + 1]]`.
    dependents_start: Vec<u32>,
    dependents: Vec<u32>,
    /// (node, sink index), sorted by node.
    sink_of: Vec<(u32, u32)>,
    states: Vec<AtomicU8>,
    cells: Vec<SetOnce<SinkValue<F>>>,
    waits: Mutex<Waits>,
    diagnostics: Mutex<Vec<Diagnostic>>,
    started: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves plain data behind; keep going with it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<F: Family> Shared<F> {
    fn data(&self) -> &GraphData<F> {
        &self.graph.data
    }

    fn identity(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as *const () as usize
    }

    fn report(&self, diagnostics: Vec<Diagnostic>) {
        if !diagnostics.is_empty() {
            lock(&self.diagnostics).extend(diagnostics);
        }
    }

    fn with_op_address(&self, diagnostic: Diagnostic, op: u32) -> Diagnostic {
        match self.data().op_addr(op) {
            Some(addr) => diagnostic.with_address(addr),
            None => diagnostic,
        }
    }

    fn sinks_of(&self, node: u32) -> &[(u32, u32)] {
        let from = self.sink_of.partition_point(|(n, _)| *n < node);
        let to = self.sink_of.partition_point(|(n, _)| *n <= node);
        &self.sink_of[from..to]
    }

    fn resolve_operand(&self, raw: RawRef, slots: &[Slot<F>]) -> Option<Payload<F>> {
        let data = self.data();
        Some(match raw.target() {
            Target::Nil => Payload::Nil,
            Target::Value(i) => Payload::Value(Arc::clone(&data.values[i as usize])),
            Target::Addr(i) => Payload::Addr(Arc::clone(&data.addrs[i as usize])),
            Target::Key(i) => Payload::Key(Arc::clone(&data.keys[i as usize])),
            Target::Op(_) | Target::Waiter(_) => match &slots[data.node_of(raw)? as usize] {
                Slot::Ok(payload) => payload.clone(),
                Slot::Failed | Slot::Pending => return None,
            },
        })
    }

    /// The diagnostic of an operation skipped because execution was cancelled.
    fn cancelled(&self, op: u32) -> Diagnostic {
        let data = self.data();
        // A person reads this: name the instance whose change did not start, not the graph's node.
        let what = match data.op_addr(op) {
            Some(addr) => format!("The change to {addr}"),
            None => data.describe_op(op),
        };
        let diagnostic = Diagnostic::error(
            codes::CANCELLED,
            "operation not started: apply was cancelled",
            format!(
                "{what} was not started because the apply was interrupted; operations already in flight \
                 finished. Run apply again to carry out the remaining changes."
            ),
        );
        self.with_op_address(diagnostic, op)
    }

    fn invalid_operand(&self, op: u32) -> Diagnostic {
        let diagnostic = Diagnostic::error(
            codes::INVALID_GRAPH,
            "an operand does not fit its operation",
            format!(
                "{} received an operand of the wrong kind; the graph is corrupt.",
                self.data().describe_op(op)
            ),
        );
        self.with_op_address(diagnostic, op)
    }
}

/// A graph bound to its operations, ready to execute once.
pub struct CompiledGraph<F: Family> {
    shared: Arc<Shared<F>>,
}

impl<F: Family> CompiledGraph<F> {
    /// The graph this was compiled from.
    pub fn graph(&self) -> &Graph<F> {
        &self.shared.graph
    }
}
