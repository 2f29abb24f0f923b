//! Integration tests of the execution graph, one binary for the crate.

mod build_debug_repr;
mod build_finish;
mod compile_check;
mod execute_calls;
mod execute_limits;
mod execute_self_dependency;
mod execute_tracing;
mod marshal_input;
mod opcode_table;
mod render_dot;
mod shapes;
mod support;
