//! The execution graph: apply-time operations that hand their results to each other as promises.
//!
//! `execgraph` knows the operation vocabulary but no concrete value, address or object type, and it does no
//! cloud or store I/O itself: everything goes through the operations it is compiled with. It must never hang
//! on a cycle: static cycles are refused when the graph is finished, dynamic ones are reported.
//!
//! The life of a graph: a [`Builder`] records constants, operations and waiters and hands out typed
//! [`ResultRef`]s; [`Builder::finish`] seals it into an immutable [`Graph`] (refusing cycles);
//! [`Graph::compile`] checks every operand and binds the graph to an [`Operations`] implementation;
//! [`CompiledGraph::execute`] runs it under a parallelism limit and a cancellation token while the evaluator
//! reads instances' values with [`CompiledGraph::resource_instance_value`]. A graph also renders as debug
//! text ([`Graph::debug_repr`]), as Graphviz ([`Graph::to_dot`]), and round-trips through
//! [`Graph::marshal`] / [`Graph::unmarshal`].
//!
//! The concrete types come from a [`Family`] supplied by the embedding crate. Building the graph of a create:
//!
//! ```ignore
//! let mut b = Builder::<MyFamily>::new();
//! let addr = b.constant_resource_instance_addr(addr);
//! let planned = b.constant_value(planned_value);
//! let meta = b.resource_instance_current_meta(addr, ResultRef::nil());
//! let desired = b.resource_instance_desired(meta);
//! let plan = b.managed_final_plan(meta, desired, ResultRef::nil(), planned);
//! let after = b.waiter([]);
//! let applied = b.managed_apply(plan, ResultRef::nil(), after);
//! b.set_resource_instance_final_state_result(address, applied);
//! let graph = b.finish()?;
//! ```

mod builder;
mod diag;
mod error;
mod exec;
mod family;
mod graph;
mod marshal;
pub mod opcode;
mod ops;
mod refs;

pub use builder::Builder;
pub use diag::{Diagnostic, Severity, codes};
pub use error::GraphError;
pub use exec::{CompiledGraph, ExecuteConfig, ValueSource};
pub use family::{Family, Unavailable};
pub use graph::Graph;
pub use opcode::{Kind, OpCode, OperandSlot};
pub use ops::{Applied, OpResult, Operations};
pub use refs::{AnyResultRef, ResourceInstanceResultRef, ResultRef, WaiterHandle, kind};
