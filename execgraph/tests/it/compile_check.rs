//! Compiling type-checks operands against each opcode's signature and never calls the operations.

use std::sync::Arc;

use execgraph::{ResultRef, Severity};

use crate::support::{B, Recorder};

#[test]
fn nil_in_a_required_operand_is_reported_and_nothing_is_called() {
    let mut b = B::new();
    let meta = b.resource_instance_desired(ResultRef::nil());
    let plan = b.managed_final_plan(ResultRef::nil(), meta, ResultRef::nil(), ResultRef::nil());
    let k = b.constant_deposed_key("00000001".to_owned());
    b.managed_prepare_depose(plan, k);
    let graph = b.finish().expect("nils do not make a cycle");
    let ops = Arc::new(Recorder::default());
    let diagnostics = graph
        .compile(ops.clone())
        .err()
        .expect("two operands are nil where a value is required");
    let lines: Vec<String> = diagnostics.iter().map(|d| d.detail.clone()).collect();
    assert_eq!(
        lines,
        [
            "operand 0 (meta) of r[0] ResourceInstanceDesired must be object metadata, found nil. The planner \
             built an operation with the wrong operands.",
            "operand 0 (meta) of r[1] ManagedFinalPlan must be object metadata, found nil. The planner built an \
             operation with the wrong operands.",
        ]
    );
    assert!(
        diagnostics
            .iter()
            .all(|d| d.severity == Severity::Error && d.code == "invalid-graph")
    );
    assert!(
        ops.sorted_log().is_empty(),
        "compile never calls the operations"
    );
}

#[test]
fn a_well_formed_graph_compiles_without_calling_anything() {
    let mut b = B::new();
    let none = b.waiter([]);
    crate::shapes::create_before_destroy(&mut b, "test.a", "00000001");
    crate::shapes::create(&mut b, "test.b", none);
    let graph = b.finish().unwrap();
    let ops = Arc::new(Recorder::default());
    assert!(graph.compile(ops.clone()).is_ok());
    assert!(ops.sorted_log().is_empty());
}
