//! Compiling and executing a graph: the scheduler that runs each operation once its operands resolved, under
//! a parallelism limit and a cancellation token, and the promise side that lets the evaluator read instances'
//! final values while execution runs.
//!
//! The scheduler is one loop in the task that calls [`CompiledGraph::execute`]: ready operations become
//! futures in a `FuturesUnordered` (no task per node, nothing detached), waiters and the intrinsic resolve
//! inline. A permit of the parallelism semaphore is held only around an operations call, never while waiting
//! for operands or values. This module must never abort an operation in flight, never report one failure
//! twice, and never hang on a dependency cycle: a wait that would close one is refused and reported.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio::sync::{Semaphore, SetOnce};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::diag::codes;
use crate::graph::GraphData;
use crate::refs::{RawRef, Target};
use crate::{Applied, Diagnostic, Family, Graph, OpCode, Operations, Unavailable};

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
    /// The most operations calls in flight at once (provider-side calls; see [`OpCode::holds_permit`]).
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

/// A resolved result, shared by every consumer.
enum Payload<F: Family> {
    Nil,
    Done,
    Value(Arc<F::Value>),
    Addr(Arc<F::Addr>),
    Key(Arc<F::DeposedKey>),
    Meta(Arc<F::Meta>),
    Desired(Arc<F::Desired>),
    Object(Arc<F::Object>),
    Plan(Arc<F::FinalPlan>),
}

impl<F: Family> Clone for Payload<F> {
    fn clone(&self) -> Self {
        match self {
            Payload::Nil => Payload::Nil,
            Payload::Done => Payload::Done,
            Payload::Value(v) => Payload::Value(Arc::clone(v)),
            Payload::Addr(a) => Payload::Addr(Arc::clone(a)),
            Payload::Key(k) => Payload::Key(Arc::clone(k)),
            Payload::Meta(m) => Payload::Meta(Arc::clone(m)),
            Payload::Desired(d) => Payload::Desired(Arc::clone(d)),
            Payload::Object(o) => Payload::Object(Arc::clone(o)),
            Payload::Plan(p) => Payload::Plan(Arc::clone(p)),
        }
    }
}

/// An operand of the wrong kind: impossible after compile's check, reported rather than panicking.
struct Mismatch;

impl<F: Family> Payload<F> {
    fn addr(&self) -> Result<&F::Addr, Mismatch> {
        if let Payload::Addr(a) = self {
            Ok(a)
        } else {
            Err(Mismatch)
        }
    }
    fn key(&self) -> Result<&F::DeposedKey, Mismatch> {
        if let Payload::Key(k) = self {
            Ok(k)
        } else {
            Err(Mismatch)
        }
    }
    fn meta(&self) -> Result<&F::Meta, Mismatch> {
        if let Payload::Meta(m) = self {
            Ok(m)
        } else {
            Err(Mismatch)
        }
    }
    fn plan(&self) -> Result<&F::FinalPlan, Mismatch> {
        if let Payload::Plan(p) = self {
            Ok(p)
        } else {
            Err(Mismatch)
        }
    }
    fn desired(&self) -> Result<Option<&F::Desired>, Mismatch> {
        match self {
            Payload::Nil => Ok(None),
            Payload::Desired(d) => Ok(Some(d)),
            _ => Err(Mismatch),
        }
    }
    fn value(&self) -> Result<Option<&F::Value>, Mismatch> {
        match self {
            Payload::Nil => Ok(None),
            Payload::Value(v) => Ok(Some(v)),
            _ => Err(Mismatch),
        }
    }
    fn object(&self) -> Result<Option<&Arc<F::Object>>, Mismatch> {
        match self {
            Payload::Nil => Ok(None),
            Payload::Object(o) => Ok(Some(o)),
            _ => Err(Mismatch),
        }
    }
}

fn arg<F: Family>(args: &[Payload<F>], i: usize) -> Result<&Payload<F>, Mismatch> {
    args.get(i).ok_or(Mismatch)
}

/// What a node resolved to, with what it reports.
struct Outcome<F: Family> {
    result: Result<Payload<F>, ()>,
    /// On a failed create-before-destroy create: the deposed object, current again.
    restored: Option<Arc<F::Object>>,
    diagnostics: Vec<Diagnostic>,
}

impl<F: Family> Outcome<F> {
    fn ok(payload: Payload<F>) -> Self {
        Outcome {
            result: Ok(payload),
            restored: None,
            diagnostics: Vec::new(),
        }
    }
    fn failed(diagnostics: Vec<Diagnostic>) -> Self {
        Outcome {
            result: Err(()),
            restored: None,
            diagnostics,
        }
    }
    fn from_result<T>(
        result: Result<T, Vec<Diagnostic>>,
        wrap: impl FnOnce(T) -> Payload<F>,
    ) -> Self {
        match result {
            Ok(v) => Outcome::ok(wrap(v)),
            Err(diagnostics) => Outcome::failed(diagnostics),
        }
    }
}

/// The final state of an instance, as the evaluator sees it.
enum SinkValue<F: Family> {
    Object(Arc<F::Object>),
    Null,
    Failed,
}

enum Slot<F: Family> {
    Pending,
    Ok(Payload<F>),
    Failed,
}

type Running<F> = Pin<Box<dyn Future<Output = (u32, Outcome<F>)> + Send>>;

/// What starting a ready node gave.
enum Start<F: Family> {
    /// A waiter, the intrinsic, or an operation skipped for a failed operand: resolved on the spot.
    Resolved(Outcome<F>),
    /// An operations call, to be polled with the others.
    Running(Running<F>),
}

/// A wait of an operation on an instance's final state: (requesting operation, final state node, sink index).
type WaitEdge = (u32, u32, u32);

/// The registered value waits, by requesting operation: (final state node, sink index) each. Indexed so that
/// the cycle check looks up the waits of each node it passes instead of scanning every wait.
type Waits = HashMap<u32, Vec<(u32, u32)>>;

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

    /// Looks for a chain of waits from `from` to `target` through unresolved nodes: operands, and the final
    /// states operations are waiting for. Returns the nodes after `from`, each with whether it was reached
    /// through a value wait (and then the sink index).
    fn find_wait_path(
        &self,
        from: u32,
        target: u32,
        waits: &Waits,
    ) -> Option<Vec<(u32, Option<u32>)>> {
        let data = self.data();
        let mut parent: HashMap<u32, (u32, Option<u32>)> = HashMap::new();
        let mut stack = vec![from];
        parent.insert(from, (from, None));
        while let Some(node) = stack.pop() {
            if node == target {
                let mut path = Vec::new();
                let mut at = node;
                while at != from {
                    let (prev, via) = parent[&at];
                    path.push((at, via));
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            if self.states[node as usize].load(Ordering::Acquire) != PENDING {
                continue;
            }
            for raw in data.node_inputs(node) {
                if let Some(input) = data.node_of(*raw)
                    && !parent.contains_key(&input)
                {
                    parent.insert(input, (node, None));
                    stack.push(input);
                }
            }
            for &(sink_node, sink) in waits.get(&node).into_iter().flatten() {
                if let Entry::Vacant(entry) = parent.entry(sink_node) {
                    entry.insert((node, Some(sink)));
                    stack.push(sink_node);
                }
            }
        }
        None
    }

    fn self_dependency(
        &self,
        requester: u32,
        sink: u32,
        sink_node: u32,
        path: &[(u32, Option<u32>)],
    ) -> Diagnostic {
        let data = self.data();
        let mut detail = format!(
            "{} waits for the value of {}, the result of {}",
            data.describe_op(requester),
            data.sinks[sink as usize].0,
            data.describe_node(sink_node)
        );
        let mut last = sink_node;
        for &(node, via) in path {
            let step = match via {
                Some(s) => format!(
                    "; {} waits for the value of {}, the result of {}",
                    data.describe_node(last),
                    data.sinks[s as usize].0,
                    data.describe_node(node)
                ),
                None => format!(
                    "; {} waits for {}",
                    data.describe_node(last),
                    data.describe_node(node)
                ),
            };
            detail.push_str(&step);
            last = node;
        }
        detail.push_str(
            ". Remove the reference cycle between these resource instances from the configuration.",
        );
        let diagnostic = Diagnostic::error(
            codes::SELF_DEPENDENCY,
            "resource instances wait on each other's values during apply",
            detail,
        );
        self.with_op_address(diagnostic, requester)
    }

    /// Registers that `requester` waits for sink `sink`, unless that closes a cycle (then reports it) or the
    /// sink resolved meanwhile. `Err` carries the value to return at once.
    fn register_wait(
        self: &Arc<Self>,
        requester: u32,
        sink_node: u32,
        sink: u32,
    ) -> Result<WaitGuard<F>, F::Value> {
        let addr = &self.data().sinks[sink as usize].0;
        let mut waits = lock(&self.waits);
        if let Some(value) = self.cells[sink as usize].get() {
            return Err(sink_value::<F>(value, addr));
        }
        if let Some(path) = self.find_wait_path(sink_node, requester, &waits) {
            drop(waits);
            let diagnostic = self.self_dependency(requester, sink, sink_node, &path);
            self.report(vec![diagnostic]);
            return Err(F::unavailable_value(addr, Unavailable::EvaluationError));
        }
        let edge = (requester, sink_node, sink);
        waits.entry(requester).or_default().push((sink_node, sink));
        Ok(WaitGuard {
            shared: Arc::clone(self),
            edge,
        })
    }

    async fn value_of(self: &Arc<Self>, addr: &F::Addr, requester: Option<u32>) -> F::Value {
        let data = self.data();
        let Ok(sink) = data.sinks.binary_search_by(|(a, _)| (**a).cmp(addr)) else {
            return F::unavailable_value(addr, Unavailable::DependencyMissing);
        };
        let Some(sink_node) = data.node_of(data.sinks[sink].1) else {
            return F::null_value();
        };
        let cell = &self.cells[sink];
        if let Some(value) = cell.get() {
            return sink_value::<F>(value, addr);
        }
        let _guard = match requester {
            Some(requester) => match self.register_wait(requester, sink_node, sink as u32) {
                Ok(guard) => Some(guard),
                Err(value) => return value,
            },
            None => None,
        };
        sink_value::<F>(cell.wait().await, addr)
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

fn sink_value<F: Family>(value: &SinkValue<F>, addr: &F::Addr) -> F::Value {
    match value {
        SinkValue::Object(object) => F::object_value(object),
        SinkValue::Null => F::null_value(),
        SinkValue::Failed => F::unavailable_value(addr, Unavailable::EvaluationError),
    }
}

/// Removes a registered value wait when the waiting request ends, however it ends.
struct WaitGuard<F: Family> {
    shared: Arc<Shared<F>>,
    edge: WaitEdge,
}

impl<F: Family> Drop for WaitGuard<F> {
    fn drop(&mut self) {
        let (requester, sink_node, sink) = self.edge;
        let mut waits = lock(&self.shared.waits);
        if let Some(edges) = waits.get_mut(&requester) {
            if let Some(i) = edges.iter().position(|e| *e == (sink_node, sink)) {
                edges.swap_remove(i);
            }
            if edges.is_empty() {
                waits.remove(&requester);
            }
        }
    }
}

/// Resolves every final state still unresolved when execution ends, however it ends (finished, or its future
/// dropped), so that no reader of values waits forever.
struct ReleaseSinks<F: Family>(Arc<Shared<F>>);

impl<F: Family> Drop for ReleaseSinks<F> {
    fn drop(&mut self) {
        for cell in &self.0.cells {
            if !cell.initialized() {
                let _ = cell.set(SinkValue::Failed);
            }
        }
    }
}

/// Reads instances' final values on behalf of one operation, so that a wait which would close a cycle is
/// recognised. The graph hands one to [`Operations::resource_instance_desired`].
///
/// It keeps the compiled graph's shared state alive: do not store it inside the operations the graph holds.
pub struct ValueSource<F: Family> {
    shared: Arc<Shared<F>>,
    requester: Option<u32>,
}

impl<F: Family> Clone for ValueSource<F> {
    fn clone(&self) -> Self {
        ValueSource {
            shared: Arc::clone(&self.shared),
            requester: self.requester,
        }
    }
}

impl<F: Family> ValueSource<F> {
    /// The final value of the instance at `addr`, once its final state resolved. See
    /// [`CompiledGraph::resource_instance_value`].
    pub async fn resource_instance_value(&self, addr: &F::Addr) -> F::Value {
        self.shared.value_of(addr, self.requester).await
    }
}

/// A graph bound to its operations, ready to execute once.
pub struct CompiledGraph<F: Family> {
    shared: Arc<Shared<F>>,
}

impl<F: Family> Graph<F> {
    /// Binds the graph to the operations it will call, after checking every operand against its opcode's
    /// signature (kind, and nil only where allowed). Never calls `ops`, so `ops` may itself be waiting for
    /// the compiled graph. Returns one `invalid-graph` diagnostic per problem.
    pub fn compile(
        &self,
        ops: Arc<dyn Operations<F>>,
    ) -> Result<CompiledGraph<F>, Vec<Diagnostic>> {
        let data = &*self.data;
        let problems = data.check_signatures();
        if !problems.is_empty() {
            return Err(problems
                .into_iter()
                .map(|problem| {
                    Diagnostic::error(
                        codes::INVALID_GRAPH,
                        "the execution graph is not well-formed",
                        format!(
                            "{problem}. The planner built an operation with the wrong operands."
                        ),
                    )
                })
                .collect());
        }
        let n = data.node_count();
        let mut indegree = vec![0u32; n];
        let mut counts = vec![0u32; n + 1];
        let mut inputs = Vec::new();
        let distinct_inputs = |node: u32, inputs: &mut Vec<u32>| {
            inputs.clear();
            inputs.extend(
                data.node_inputs(node)
                    .iter()
                    .filter_map(|raw| data.node_of(*raw)),
            );
            inputs.sort_unstable();
            inputs.dedup();
        };
        for node in 0..n as u32 {
            distinct_inputs(node, &mut inputs);
            indegree[node as usize] = inputs.len() as u32;
            for input in &inputs {
                counts[*input as usize + 1] += 1;
            }
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut dependents = vec![0u32; counts[n] as usize];
        for node in 0..n as u32 {
            distinct_inputs(node, &mut inputs);
            for input in &inputs {
                let at = &mut fill[*input as usize];
                dependents[*at as usize] = node;
                *at += 1;
            }
        }
        let mut sink_of: Vec<(u32, u32)> = data
            .sinks
            .iter()
            .enumerate()
            .filter_map(|(i, (_, raw))| data.node_of(*raw).map(|node| (node, i as u32)))
            .collect();
        sink_of.sort_unstable();
        Ok(CompiledGraph {
            shared: Arc::new(Shared {
                graph: self.clone(),
                ops,
                indegree,
                dependents_start: counts,
                dependents,
                sink_of,
                states: (0..n).map(|_| AtomicU8::new(PENDING)).collect(),
                cells: (0..data.sinks.len()).map(|_| SetOnce::new()).collect(),
                waits: Mutex::new(HashMap::new()),
                diagnostics: Mutex::new(Vec::new()),
                started: AtomicBool::new(false),
            }),
        })
    }
}

impl<F: Family> CompiledGraph<F> {
    /// The graph this was compiled from.
    pub fn graph(&self) -> &Graph<F> {
        &self.shared.graph
    }

    /// The final value of the instance at `addr`, waiting until its final state resolved. Run it
    /// concurrently with [`CompiledGraph::execute`] (before or without an execution it waits until one
    /// ends). An address with no final state in the graph gives an unknown marked
    /// [`Unavailable::DependencyMissing`]; a failed final state one marked [`Unavailable::EvaluationError`];
    /// a destroyed object the null value.
    ///
    /// Called from inside an operation of this graph, the wait is attributed to that operation, so a wait
    /// that closes a cycle is reported (code `self-dependency`) and answered with an evaluation error at once.
    pub async fn resource_instance_value(&self, addr: &F::Addr) -> F::Value {
        let identity = self.shared.identity();
        let requester = REQUESTER
            .try_with(|(graph, op)| (*graph == identity).then_some(*op))
            .ok()
            .flatten();
        self.shared.value_of(addr, requester).await
    }

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

fn prepare_depose<F: Family>(shared: &Shared<F>, node: u32, args: &[Payload<F>]) -> Outcome<F> {
    let operands = (|| Ok::<_, Mismatch>((arg(args, 0)?.plan()?, arg(args, 1)?.key()?)))();
    match operands {
        Ok((plan, key)) => match F::prepare_depose(plan, key) {
            Ok(prepared) => Outcome::ok(Payload::Plan(Arc::new(prepared))),
            Err(diagnostic) => Outcome::failed(vec![shared.with_op_address(diagnostic, node)]),
        },
        Err(Mismatch) => Outcome::failed(vec![shared.invalid_operand(node)]),
    }
}

async fn run_op<F: Family>(
    shared: Arc<Shared<F>>,
    node: u32,
    code: OpCode,
    args: Vec<Payload<F>>,
    semaphore: Arc<Semaphore>,
    cancel: CancellationToken,
) -> (u32, Outcome<F>) {
    // Try the uncontended path first: awaiting tokio's semaphore or the token spends the task's cooperative
    // budget, and every operation future shares the one task that runs `execute`.
    let permit = if !code.holds_permit() || cancel.is_cancelled() {
        None
    } else {
        match Arc::clone(&semaphore).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                permit = semaphore.acquire_owned() => permit.ok(),
            },
        }
    };
    if cancel.is_cancelled() {
        return (node, Outcome::failed(vec![shared.cancelled(node)]));
    }
    let outcome = match call(&shared, node, code, &args).await {
        Ok(outcome) => outcome,
        Err(Mismatch) => Outcome::failed(vec![shared.invalid_operand(node)]),
    };
    drop(permit);
    (node, outcome)
}

async fn call<F: Family>(
    shared: &Arc<Shared<F>>,
    node: u32,
    code: OpCode,
    args: &[Payload<F>],
) -> Result<Outcome<F>, Mismatch> {
    let ops = &*shared.ops;
    let object = |o: F::Object| Payload::Object(Arc::new(o));
    Ok(match code {
        OpCode::ResourceInstancePrior => {
            let result = ops.resource_instance_prior(arg(args, 0)?.addr()?).await;
            Outcome::from_result(result, |o| o.map_or(Payload::Nil, object))
        }
        OpCode::ResourceInstanceCurrentMeta => {
            let prior = arg(args, 1)?.object()?.map(|o| &**o);
            let result = ops
                .resource_instance_current_meta(arg(args, 0)?.addr()?, prior)
                .await;
            Outcome::from_result(result, |m| Payload::Meta(Arc::new(m)))
        }
        OpCode::ResourceInstanceDesired => {
            let values = ValueSource {
                shared: Arc::clone(shared),
                requester: Some(node),
            };
            let result = ops
                .resource_instance_desired(arg(args, 0)?.meta()?, &values)
                .await;
            Outcome::from_result(result, |d| Payload::Desired(Arc::new(d)))
        }
        OpCode::ManagedFinalPlan => {
            let meta = arg(args, 0)?.meta()?;
            let desired = arg(args, 1)?.desired()?;
            let prior = arg(args, 2)?.object()?.map(|o| &**o);
            let planned = arg(args, 3)?.value()?;
            let result = ops.managed_final_plan(meta, desired, prior, planned).await;
            Outcome::from_result(result, |p| Payload::Plan(Arc::new(p)))
        }
        OpCode::ManagedApply => {
            let plan = arg(args, 0)?.plan()?;
            let fallback = arg(args, 1)?.object()?;
            let applied = ops.managed_apply(plan, fallback.map(|o| &**o)).await;
            apply_outcome(shared, node, applied, fallback)
        }
        OpCode::ManagedPrepareDepose => prepare_depose(shared, node, args),
        OpCode::ManagedPerformDepose => {
            let current = arg(args, 0)?.object()?.map(|o| &**o);
            let result = ops
                .managed_perform_depose(current, arg(args, 1)?.plan()?)
                .await;
            Outcome::from_result(result, object)
        }
        OpCode::ManagedDeposedMeta => {
            let prior = arg(args, 2)?.object()?.map(|o| &**o);
            let result = ops
                .managed_deposed_meta(arg(args, 0)?.addr()?, arg(args, 1)?.key()?, prior)
                .await;
            Outcome::from_result(result, |m| Payload::Meta(Arc::new(m)))
        }
        OpCode::ManagedAlreadyDeposed => {
            let result = ops
                .managed_already_deposed(arg(args, 0)?.addr()?, arg(args, 1)?.key()?)
                .await;
            Outcome::from_result(result, object)
        }
        OpCode::ManagedChangeAddr => {
            let current = arg(args, 0)?.object()?.map(|o| &**o);
            let result = ops
                .managed_change_addr(current, arg(args, 1)?.addr()?)
                .await;
            Outcome::from_result(result, object)
        }
        OpCode::DataRead => {
            let meta = arg(args, 0)?.meta()?;
            let desired = arg(args, 1)?.desired()?;
            let planned = arg(args, 2)?.value()?;
            let result = ops.data_read(meta, desired, planned).await;
            Outcome::from_result(result, object)
        }
    })
}

/// The outcome of an apply. With a fallback (the create leg of a create-before-destroy replace) and no new
/// object, the deposed object is current again and the node fails, so the destroy of the deposed object
/// (which waits for this node) does not run.
fn apply_outcome<F: Family>(
    shared: &Shared<F>,
    node: u32,
    applied: Applied<F::Object>,
    fallback: Option<&Arc<F::Object>>,
) -> Outcome<F> {
    let Applied {
        object,
        mut diagnostics,
    } = applied;
    let failed = diagnostics.iter().any(Diagnostic::is_error);
    match (object, fallback) {
        (Some(object), _) if !failed => Outcome {
            result: Ok(Payload::Object(Arc::new(object))),
            restored: None,
            diagnostics,
        },
        (None, Some(fallback)) => {
            if !failed {
                let diagnostic = Diagnostic::error(
                    codes::APPLY_FAILED,
                    "the replacement object was not created",
                    format!(
                        "{} produced no object, so the deposed object is current again and was not destroyed. \
                         Run apply again to retry the replacement.",
                        shared.data().describe_op(node)
                    ),
                );
                diagnostics.push(shared.with_op_address(diagnostic, node));
            }
            Outcome {
                result: Err(()),
                restored: Some(Arc::clone(fallback)),
                diagnostics,
            }
        }
        (None, None) if !failed => Outcome {
            result: Ok(Payload::Nil),
            restored: None,
            diagnostics,
        },
        _ => Outcome {
            result: Err(()),
            restored: None,
            diagnostics,
        },
    }
}
