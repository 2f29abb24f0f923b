//! Compiling a graph: checking every operand against its opcode's signature and laying out, once, the
//! tables the scheduler runs from (distinct input counts, dependents, which nodes set which final state).
//!
//! Compiling must never call the operations it binds: they may themselves be waiting for the compiled graph.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8};
use std::sync::{Arc, Mutex};

use tokio::sync::SetOnce;

use super::{CompiledGraph, PENDING, Shared};
use crate::diag::codes;
use crate::{Diagnostic, Family, Graph, Operations};

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
