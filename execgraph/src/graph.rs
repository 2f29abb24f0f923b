//! The finished, immutable graph: its tables, the checks that keep them consistent, and its renderings
//! (debug text and Graphviz DOT).
//!
//! A `Graph` is shared cheaply (one `Arc`) and never changes after [`Builder::finish`](crate::Builder::finish)
//! or [`Graph::unmarshal`]. Nothing here runs an operation; rendering must never depend on hash order, so the
//! same graph always renders to the same bytes.

use std::fmt::{self, Write as _};
use std::sync::Arc;

use petgraph::algo::kosaraju_scc;
use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};

use crate::refs::{RawRef, Target};
use crate::{AnyResultRef, Family, GraphError, Kind, OpCode};

/// One operation: its opcode and where its operands start in the flat operand table (the count follows
/// from the opcode).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpNode {
    pub(crate) code: OpCode,
    pub(crate) start: u32,
}

const NO_ADDR: u32 = u32::MAX;

/// How many waiters one line of debug text may still expand inline, and how deep it is. Planner graphs
/// stay far below both limits; they only keep a hostile graph (a chain of 100,000 waiters, or waiters sharing
/// dependencies so their expansion doubles at each level) from exhausting the stack or memory.
struct Inline {
    budget: u32,
    depth: u32,
}

const MAX_INLINE_DEPTH: u32 = 64;
const MAX_INLINE_WAITERS: u32 = 4096;

impl Inline {
    fn new() -> Self {
        Inline {
            budget: MAX_INLINE_WAITERS,
            depth: 0,
        }
    }

    fn none() -> Self {
        Inline {
            budget: 0,
            depth: 0,
        }
    }

    /// Whether the next waiter renders inline; if so, it is counted and entered.
    fn enter(&mut self) -> bool {
        if self.budget == 0 || self.depth >= MAX_INLINE_DEPTH {
            return false;
        }
        self.budget -= 1;
        self.depth += 1;
        true
    }
}

/// The tables of a graph.
pub(crate) struct GraphData<F: Family> {
    pub(crate) values: Vec<Arc<F::Value>>,
    pub(crate) addrs: Vec<Arc<F::Addr>>,
    pub(crate) keys: Vec<Arc<F::DeposedKey>>,
    pub(crate) ops: Vec<OpNode>,
    pub(crate) operands: Vec<RawRef>,
    pub(crate) waiters: Vec<Vec<RawRef>>,
    /// Final states, sorted by address.
    pub(crate) sinks: Vec<(Arc<F::Addr>, RawRef)>,
    /// For each operation, the index of the address it works on (its own address operand, else the one of
    /// its first operation operand), or `NO_ADDR`. Filled by `check_references`.
    pub(crate) addr_of: Vec<u32>,
}

impl<F: Family> GraphData<F> {
    pub(crate) fn new(
        values: Vec<Arc<F::Value>>,
        addrs: Vec<Arc<F::Addr>>,
        keys: Vec<Arc<F::DeposedKey>>,
        ops: Vec<OpNode>,
        operands: Vec<RawRef>,
        waiters: Vec<Vec<RawRef>>,
        sinks: Vec<(Arc<F::Addr>, RawRef)>,
    ) -> Self {
        GraphData {
            values,
            addrs,
            keys,
            ops,
            operands,
            waiters,
            sinks,
            addr_of: Vec::new(),
        }
    }

    pub(crate) fn op_operands(&self, i: usize) -> &[RawRef] {
        let node = self.ops[i];
        let start = node.start as usize;
        &self.operands[start..start + node.code.operands().len()]
    }

    /// The number of schedulable nodes: operations, then waiters.
    pub(crate) fn node_count(&self) -> usize {
        self.ops.len() + self.waiters.len()
    }

    /// The schedulable node a reference points at, if it points at an operation or a waiter.
    pub(crate) fn node_of(&self, raw: RawRef) -> Option<u32> {
        match raw.target() {
            Target::Op(i) => Some(i),
            Target::Waiter(j) => Some(self.ops.len() as u32 + j),
            _ => None,
        }
    }

    /// The references a schedulable node waits for.
    pub(crate) fn node_inputs(&self, node: u32) -> &[RawRef] {
        let node = node as usize;
        if node < self.ops.len() {
            self.op_operands(node)
        } else {
            &self.waiters[node - self.ops.len()]
        }
    }

    fn in_range(&self, raw: RawRef) -> bool {
        match raw.target() {
            Target::Nil => true,
            Target::Value(i) => (i as usize) < self.values.len(),
            Target::Addr(i) => (i as usize) < self.addrs.len(),
            Target::Key(i) => (i as usize) < self.keys.len(),
            Target::Op(i) => (i as usize) < self.ops.len(),
            Target::Waiter(i) => (i as usize) < self.waiters.len(),
        }
    }

    /// The kind of result a reference resolves to (`None` for nil). The reference must be in range.
    pub(crate) fn kind_of(&self, raw: RawRef) -> Option<Kind> {
        match raw.target() {
            Target::Nil => None,
            Target::Value(_) => Some(Kind::Value),
            Target::Addr(_) => Some(Kind::Addr),
            Target::Key(_) => Some(Kind::DeposedKey),
            Target::Op(i) => Some(self.ops[i as usize].code.result()),
            Target::Waiter(_) => Some(Kind::Completion),
        }
    }

    /// Checks that every reference names a node of this graph and that operations only refer to earlier
    /// operations, then records each operation's address.
    pub(crate) fn check_references(&mut self) -> Result<(), GraphError> {
        for i in 0..self.ops.len() {
            let node = self.ops[i];
            let arity = node.code.operands().len();
            if node.start as usize + arity > self.operands.len() {
                return Err(GraphError::OperandCount {
                    user: format!("r[{i}] {}", node.code),
                    expected: arity,
                    found: self.operands.len().saturating_sub(node.start as usize),
                });
            }
            for &raw in self.op_operands(i) {
                if !self.in_range(raw) {
                    return Err(GraphError::UnknownReference {
                        user: format!("r[{i}] {}", node.code),
                        reference: raw.to_string(),
                    });
                }
                if let Target::Op(j) = raw.target()
                    && j as usize >= i
                {
                    return Err(GraphError::ForwardReference {
                        user: format!("r[{i}] {}", node.code),
                        reference: raw.to_string(),
                    });
                }
            }
        }
        for (j, deps) in self.waiters.iter().enumerate() {
            if let Some(raw) = deps.iter().find(|raw| !self.in_range(**raw)) {
                return Err(GraphError::UnknownReference {
                    user: format!("w[{j}] waiter"),
                    reference: raw.to_string(),
                });
            }
        }
        for (addr, raw) in &self.sinks {
            if !self.in_range(*raw) {
                return Err(GraphError::UnknownReference {
                    user: format!("the final state of {addr}"),
                    reference: raw.to_string(),
                });
            }
        }
        let mut addr_of = Vec::with_capacity(self.ops.len());
        for i in 0..self.ops.len() {
            let operands = self.op_operands(i);
            let direct = operands.iter().find_map(|raw| match raw.target() {
                Target::Addr(a) => Some(a),
                _ => None,
            });
            let inherited = || {
                operands.iter().find_map(|raw| match raw.target() {
                    Target::Op(j) if addr_of[j as usize] != NO_ADDR => Some(addr_of[j as usize]),
                    _ => None,
                })
            };
            let addr = direct.or_else(inherited).unwrap_or(NO_ADDR);
            addr_of.push(addr);
        }
        self.addr_of = addr_of;
        Ok(())
    }

    /// Checks every operand against its opcode's signature and every final state against its kind. Returns
    /// every problem found. References must be in range.
    pub(crate) fn check_signatures(&self) -> Vec<GraphError> {
        let mut problems = Vec::new();
        for i in 0..self.ops.len() {
            let code = self.ops[i].code;
            for (position, (slot, &raw)) in
                code.operands().iter().zip(self.op_operands(i)).enumerate()
            {
                let found = self.kind_of(raw);
                let fits = match (found, slot.kind) {
                    (None, _) => slot.nilable,
                    (Some(_), None) => true,
                    (Some(found), Some(expected)) => found == expected,
                };
                if !fits {
                    let expected = match (slot.kind, slot.nilable) {
                        (Some(kind), true) => format!("{} or nil", kind.with_article()),
                        (Some(kind), false) => kind.with_article().to_owned(),
                        (None, _) => "any result".to_owned(),
                    };
                    let found = match found {
                        None => "nil".to_owned(),
                        Some(kind) => format!("{} ({raw})", kind.with_article()),
                    };
                    problems.push(GraphError::OperandMismatch {
                        user: self.describe_op(i as u32),
                        position,
                        role: slot.role,
                        expected,
                        found,
                    });
                }
            }
        }
        for (addr, raw) in &self.sinks {
            if !matches!(self.kind_of(*raw), None | Some(Kind::Object)) {
                problems.push(GraphError::InvalidFinalState {
                    address: addr.to_string(),
                    reference: raw.to_string(),
                });
            }
        }
        problems
    }

    /// Refuses dependency cycles: the strongly connected components over operations and waiters. This uses
    /// petgraph's Kosaraju implementation rather than its Tarjan one because Tarjan's recurses once per node
    /// along a path, and a long chain (a large graph, or hostile serialized input) would overflow the stack.
    /// Whether some node waits, through its inputs, for itself: one depth-first walk over the nodes and
    /// their inputs, with no allocation per node.
    fn has_cycle(&self) -> bool {
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let n = self.node_count();
        let mut state = vec![NEW; n];
        let mut path: Vec<(u32, usize)> = Vec::new();
        for root in 0..n as u32 {
            if state[root as usize] != NEW {
                continue;
            }
            state[root as usize] = ON_PATH;
            path.push((root, 0));
            while let Some((node, next)) = path.last_mut() {
                let inputs = self.node_inputs(*node);
                let Some(raw) = inputs.get(*next) else {
                    state[*node as usize] = DONE;
                    path.pop();
                    continue;
                };
                *next += 1;
                if let Some(input) = self.node_of(*raw) {
                    match state[input as usize] {
                        NEW => {
                            state[input as usize] = ON_PATH;
                            path.push((input, 0));
                        }
                        ON_PATH => return true,
                        _ => {}
                    }
                }
            }
        }
        false
    }

    pub(crate) fn check_acyclic(&self) -> Result<(), GraphError> {
        // Operations only point backwards, so only a waiter's dependency can close a cycle: without any
        // dependency from a waiter on an operation or a waiter, the graph is acyclic and the check is free.
        let waiter_edges = self
            .waiters
            .iter()
            .flatten()
            .any(|raw| self.node_of(*raw).is_some());
        if !waiter_edges || !self.has_cycle() {
            return Ok(());
        }
        // A cycle: find every one, to name their members.
        let n = self.node_count();
        let mut graph = DiGraph::<(), (), u32>::with_capacity(n, self.operands.len());
        for _ in 0..n {
            graph.add_node(());
        }
        let mut self_loops = Vec::new();
        for user in 0..n as u32 {
            for raw in self.node_inputs(user) {
                if let Some(input) = self.node_of(*raw) {
                    if input == user {
                        self_loops.push(user);
                    }
                    graph.add_edge(
                        NodeIndex::new(user as usize),
                        NodeIndex::new(input as usize),
                        (),
                    );
                }
            }
        }
        let mut cycles: Vec<Vec<u32>> = kosaraju_scc(&graph)
            .into_iter()
            .map(|scc| {
                scc.into_iter()
                    .map(|ix| ix.index() as u32)
                    .collect::<Vec<_>>()
            })
            .filter(|members| members.len() > 1 || self_loops.contains(&members[0]))
            .collect();
        if cycles.is_empty() {
            return Ok(());
        }
        for members in &mut cycles {
            members.sort_unstable();
        }
        cycles.sort();
        Err(GraphError::Cycle {
            cycles: cycles
                .iter()
                .map(|members| {
                    members
                        .iter()
                        .map(|node| self.describe_node(*node))
                        .collect()
                })
                .collect(),
        })
    }

    /// The address an operation works on, if any.
    pub(crate) fn op_addr(&self, op: u32) -> Option<&F::Addr> {
        match self.addr_of.get(op as usize) {
            Some(&a) if a != NO_ADDR => Some(&self.addrs[a as usize]),
            _ => None,
        }
    }

    /// `r[i] OpName (address)`.
    pub(crate) fn describe_op(&self, op: u32) -> String {
        let code = self.ops[op as usize].code;
        match self.op_addr(op) {
            Some(addr) => format!("r[{op}] {code} ({addr})"),
            None => format!("r[{op}] {code}"),
        }
    }

    /// `r[i] OpName (address)` for an operation, `w[j] waiter` for a waiter.
    pub(crate) fn describe_node(&self, node: u32) -> String {
        let ops = self.ops.len() as u32;
        if node < ops {
            self.describe_op(node)
        } else {
            format!("w[{}] waiter", node - ops)
        }
    }

    fn write_arg(&self, out: &mut String, raw: RawRef, inline: &mut Inline) -> fmt::Result {
        match raw.target() {
            Target::Nil => out.write_str("nil"),
            Target::Value(i) => write!(out, "v[{i}]"),
            Target::Addr(i) => write!(out, "{}", self.addrs[i as usize]),
            Target::Key(i) => write!(out, "\"{}\"", self.keys[i as usize]),
            Target::Op(i) => write!(out, "r[{i}]"),
            Target::Waiter(j) if inline.enter() => {
                out.write_str("await(")?;
                for (k, dep) in self.waiters[j as usize].iter().enumerate() {
                    if k > 0 {
                        out.write_str(", ")?;
                    }
                    self.write_arg(out, *dep, inline)?;
                }
                inline.depth -= 1;
                out.write_str(")")
            }
            Target::Waiter(j) => write!(out, "w[{j}]"),
        }
    }

    fn write_op(&self, out: &mut String, i: usize, mut inline: Inline) -> fmt::Result {
        write!(out, "r[{i}] = {}(", self.ops[i].code)?;
        for (k, raw) in self.op_operands(i).iter().enumerate() {
            if k > 0 {
                out.write_str(", ")?;
            }
            self.write_arg(out, *raw, &mut inline)?;
        }
        out.write_str(")")
    }

    fn write_debug_repr(&self, out: &mut String) -> fmt::Result {
        let mut sections = 0;
        let mut section = |out: &mut String| {
            if sections > 0 {
                out.push('\n');
            }
            sections += 1;
        };
        if !self.values.is_empty() {
            section(out);
            for (i, value) in self.values.iter().enumerate() {
                writeln!(out, "v[{i}] = {value};")?;
            }
        }
        if !self.ops.is_empty() {
            section(out);
            for i in 0..self.ops.len() {
                self.write_op(out, i, Inline::new())?;
                out.push_str(";\n");
            }
        }
        if !self.sinks.is_empty() {
            section(out);
            for (addr, raw) in &self.sinks {
                write!(out, "{addr} = ")?;
                self.write_arg(out, *raw, &mut Inline::new())?;
                out.push_str(";\n");
            }
        }
        Ok(())
    }
}

/// An immutable execution graph: the result of [`Builder::finish`](crate::Builder::finish) or
/// [`Graph::unmarshal`]. Cloning shares it.
pub struct Graph<F: Family> {
    pub(crate) data: Arc<GraphData<F>>,
}

impl<F: Family> Clone for Graph<F> {
    fn clone(&self) -> Self {
        Graph {
            data: Arc::clone(&self.data),
        }
    }
}

impl<F: Family> fmt::Debug for Graph<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Graph")
            .field("operations", &self.data.ops.len())
            .field("waiters", &self.data.waiters.len())
            .field("final_states", &self.data.sinks.len())
            .finish_non_exhaustive()
    }
}

impl<F: Family> Graph<F> {
    pub(crate) fn from_data(data: GraphData<F>) -> Self {
        Graph {
            data: Arc::new(data),
        }
    }

    /// The number of operations.
    pub fn operation_count(&self) -> usize {
        self.data.ops.len()
    }

    /// The final state result registered for `addr`, if any.
    pub fn resource_instance_final_state_result(&self, addr: &F::Addr) -> Option<AnyResultRef> {
        let sinks = &self.data.sinks;
        sinks
            .binary_search_by(|(a, _)| (**a).cmp(addr))
            .ok()
            .map(|i| AnyResultRef::from_raw(sinks[i].1))
    }

    /// A deterministic text rendering, for tests and debugging: constant values `v[i] = <value>;`, a blank
    /// line, operations `r[i] = OpName(args);` in the order they were added, a blank line, then final states
    /// `<addr> = r[i];` sorted by address. Arguments render as `v[i]`, a plain address, a quoted deposed key,
    /// `r[i]`, `await(...)` for a waiter, or `nil`. Empty sections are left out. A waiter nested more than 64
    /// deep, or beyond 4,096 waiters expanded on one line, renders as `w[j]` instead of being expanded.
    pub fn debug_repr(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail; only a value's own Display impl could, and then the text stops.
        let _ = self.data.write_debug_repr(&mut out);
        out
    }

    /// The graph in Graphviz DOT: one node per constant value, operation, waiter and final state, with an
    /// edge from each operand to its user.
    pub fn to_dot(&self) -> String {
        let data = &*self.data;
        let mut graph = DiGraph::<String, &str>::new();
        let values: Vec<NodeIndex> = data
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| graph.add_node(format!("v[{i}] = {v}")))
            .collect();
        let ops: Vec<NodeIndex> = (0..data.ops.len())
            .map(|i| {
                let mut label = String::new();
                let _ = data.write_op(&mut label, i, Inline::none());
                graph.add_node(label)
            })
            .collect();
        let waiters: Vec<NodeIndex> = (0..data.waiters.len())
            .map(|j| graph.add_node(format!("w[{j}] = await")))
            .collect();
        let source = |raw: RawRef| match raw.target() {
            Target::Value(i) => Some(values[i as usize]),
            Target::Op(i) => Some(ops[i as usize]),
            Target::Waiter(j) => Some(waiters[j as usize]),
            Target::Nil | Target::Addr(_) | Target::Key(_) => None,
        };
        for (i, user) in ops.iter().enumerate() {
            for raw in data.op_operands(i) {
                if let Some(from) = source(*raw) {
                    graph.add_edge(from, *user, "");
                }
            }
        }
        for (j, user) in waiters.iter().enumerate() {
            for raw in &data.waiters[j] {
                if let Some(from) = source(*raw) {
                    graph.add_edge(from, *user, "");
                }
            }
        }
        for (addr, raw) in &data.sinks {
            let sink = graph.add_node(format!("{addr}"));
            if let Some(from) = source(*raw) {
                graph.add_edge(from, sink, "");
            }
        }
        format!("{}", Dot::with_config(&graph, &[Config::EdgeNoLabel]))
    }
}
