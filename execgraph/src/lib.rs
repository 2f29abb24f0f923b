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
//! The concrete types come from a [`Family`] supplied by the embedding crate. Building, checking and running
//! the graph of one create:
//!
//! ```
//! # use std::sync::Arc;
//! # use execgraph::*;
//! # struct Tiny;
//! # impl Family for Tiny {
//! #     type Value = String;
//! #     type Addr = String;
//! #     type DeposedKey = String;
//! #     type Meta = String;
//! #     type Desired = String;
//! #     type Object = String;
//! #     type FinalPlan = String;
//! #     fn object_value(object: &String) -> String { object.clone() }
//! #     fn null_value() -> String { "null".into() }
//! #     fn unavailable_value(_: &String, _: Unavailable) -> String { "(unknown)".into() }
//! #     fn prepare_depose(plan: &String, key: &String) -> Result<String, Diagnostic> { Ok(format!("{plan} {key}")) }
//! # }
//! # struct Cloud;
//! # #[async_trait::async_trait]
//! # impl Operations<Tiny> for Cloud {
//! #     async fn resource_instance_prior(&self, _: &String) -> OpResult<Option<String>> { Ok(None) }
//! #     async fn resource_instance_current_meta(&self, a: &String, _: Option<&String>) -> OpResult<String> { Ok(a.clone()) }
//! #     async fn resource_instance_desired(&self, m: &String, _: &ValueSource<Tiny>) -> OpResult<String> { Ok(m.clone()) }
//! #     async fn managed_final_plan(&self, m: &String, _: Option<&String>, _: Option<&String>, _: Option<&String>) -> OpResult<String> { Ok(format!("create {m}")) }
//! #     async fn managed_apply(&self, _: &String, _: Option<&String>) -> Applied<String> { Applied::ok(Some("id-1".into())) }
//! #     async fn managed_perform_depose(&self, c: Option<&String>, _: &String) -> OpResult<String> { Ok(c.cloned().unwrap_or_default()) }
//! #     async fn managed_deposed_meta(&self, a: &String, _: &String, _: Option<&String>) -> OpResult<String> { Ok(a.clone()) }
//! #     async fn managed_already_deposed(&self, a: &String, _: &String) -> OpResult<String> { Ok(a.clone()) }
//! #     async fn managed_change_addr(&self, c: Option<&String>, _: &String) -> OpResult<String> { Ok(c.cloned().unwrap_or_default()) }
//! #     async fn data_read(&self, m: &String, _: Option<&String>, _: Option<&String>) -> OpResult<String> { Ok(m.clone()) }
//! # }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), GraphError> {
//! let mut b = Builder::<Tiny>::new();
//! let addr = b.constant_resource_instance_addr("test.example".to_owned());
//! let planned = b.constant_value("{}".to_owned());
//! let meta = b.resource_instance_current_meta(addr, ResultRef::nil());
//! let desired = b.resource_instance_desired(meta);
//! let plan = b.managed_final_plan(meta, desired, ResultRef::nil(), planned);
//! let after = b.waiter([]);
//! let applied = b.managed_apply(plan, ResultRef::nil(), after);
//! b.set_resource_instance_final_state_result("test.example".to_owned(), applied);
//! let graph = b.finish()?;
//! assert!(graph.debug_repr().contains("r[3] = ManagedApply(r[2], nil, await());"));
//!
//! let compiled = graph.compile(Arc::new(Cloud)).expect("every operand fits");
//! let diagnostics = compiled.execute(ExecuteConfig::default()).await;
//! assert!(diagnostics.is_empty());
//! assert_eq!(compiled.resource_instance_value(&"test.example".to_owned()).await, "id-1");
//! # Ok(())
//! # }
//! ```
//!
//! Lifecycle rules: a [`Graph`] never changes once finished, so it can be rendered, marshalled and
//! compiled any number of times. [`CompiledGraph::execute`] runs in the caller's task and spawns none:
//! dropping its future stops the graph without aborting a call in flight elsewhere, and cancelling the
//! token in [`ExecuteConfig`] lets the calls in flight finish while starting no new one. An operation whose
//! operand failed is skipped, and the failure is reported once, by the operation that failed.
//!
//! Each operation runs inside a `graph_op` span (level debug) carrying `op` (the opcode's name, such as
//! `ManagedApply`) and `address` (the resource instance, when the operation has one), so a subscriber can
//! attribute every provider call and store write of an apply to the operation that made it.

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
