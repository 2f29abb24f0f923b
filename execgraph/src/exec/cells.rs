//! The final-value cells: one per instance's final state, set once when the node producing it resolves,
//! read by the evaluator (directly, or on behalf of an operation through a [`ValueSource`]).
//!
//! A cell must never stay unset once execution ends, however it ends: a reader would wait forever.

use std::sync::Arc;

use super::{CompiledGraph, REQUESTER, Shared};
use crate::{Family, Unavailable};

/// The final state of an instance, as the evaluator sees it.
pub(super) enum SinkValue<F: Family> {
    Object(Arc<F::Object>),
    Null,
    Failed,
}

impl<F: Family> Shared<F> {
    pub(super) async fn value_of(
        self: &Arc<Self>,
        addr: &F::Addr,
        requester: Option<u32>,
    ) -> F::Value {
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
}

pub(super) fn sink_value<F: Family>(value: &SinkValue<F>, addr: &F::Addr) -> F::Value {
    match value {
        SinkValue::Object(object) => F::object_value(object),
        SinkValue::Null => F::null_value(),
        SinkValue::Failed => F::unavailable_value(addr, Unavailable::EvaluationError),
    }
}

/// Resolves every final state still unresolved when execution ends, however it ends (finished, or its future
/// dropped), so that no reader of values waits forever.
pub(super) struct ReleaseSinks<F: Family>(pub(super) Arc<Shared<F>>);

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
/// recognised. The graph hands one to
/// [`Operations::resource_instance_desired`](crate::Operations::resource_instance_desired).
///
/// It keeps the compiled graph's shared state alive: do not store it inside the operations the graph holds.
pub struct ValueSource<F: Family> {
    pub(super) shared: Arc<Shared<F>>,
    pub(super) requester: Option<u32>,
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

impl<F: Family> CompiledGraph<F> {
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
}
