//! The dynamic self-dependency detector: every wait of an operation on an instance's final value is
//! registered, and a wait that would close a chain of waits back to the waiting operation is refused and
//! reported as a `self-dependency` error instead of hanging the apply.
//!
//! Registered waits are removed when the wait ends, however it ends; the detector must never refuse a
//! wait that closes no cycle.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::cells::sink_value;
use super::{PENDING, Shared, lock};
use crate::diag::codes;
use crate::{Diagnostic, Family, Unavailable};

/// A wait of an operation on an instance's final state: (requesting operation, final state node, sink index).
type WaitEdge = (u32, u32, u32);

/// The registered value waits, by requesting operation: (final state node, sink index) each. Indexed so that
/// the cycle check looks up the waits of each node it passes instead of scanning every wait.
pub(super) type Waits = HashMap<u32, Vec<(u32, u32)>>;

impl<F: Family> Shared<F> {
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
    pub(super) fn register_wait(
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
}

/// Removes a registered value wait when the waiting request ends, however it ends.
pub(super) struct WaitGuard<F: Family> {
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
