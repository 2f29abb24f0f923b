//! The execution graph: apply-time operations that hand their results to each other as promises.
//!
//! `execgraph` knows the operation vocabulary but no concrete value, address or object type, and it does no
//! cloud or store I/O itself: everything goes through the operations it is compiled with. It must never hang
//! on a cycle: static cycles are refused when the graph is finished, dynamic ones are reported.

pub mod opcode;

pub use opcode::OpCode;
