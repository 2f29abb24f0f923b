//! Finishing a builder: cycles are refused with their members named, and builder contract violations.

use std::panic::{AssertUnwindSafe, catch_unwind};

use execgraph::{GraphError, ResultRef};

use crate::shapes;
use crate::support::B;

#[test]
fn a_cycle_through_a_mutable_waiter_is_refused_naming_its_members() {
    let mut b = B::new();
    let (after_b, handle) = b.mutable_waiter();
    shapes::create(&mut b, "test.a", after_b);
    let a = b
        .resource_instance_final_state_result(&"test.a".to_owned())
        .unwrap();
    let after_a = b.waiter([a]);
    let created_b = shapes::create(&mut b, "test.b", after_a);
    b.add_waiter_dependency(handle, created_b);
    // An unrelated, acyclic instance is not named.
    let none = b.waiter([]);
    shapes::create(&mut b, "test.c", none);

    let err = b
        .finish()
        .expect_err("test.a and test.b wait on each other");
    assert_eq!(
        err,
        GraphError::Cycle {
            cycles: vec![vec![
                "r[3] ManagedApply (test.a)".to_owned(),
                "r[7] ManagedApply (test.b)".to_owned(),
                "w[0] waiter".to_owned(),
                "w[1] waiter".to_owned(),
            ]]
        }
    );
    assert_eq!(
        err.to_string(),
        "the graph has a dependency cycle: r[3] ManagedApply (test.a), r[7] ManagedApply (test.b), w[0] waiter, \
         w[1] waiter"
    );
}

#[test]
fn waiters_filled_with_later_operations_and_shared_by_many_make_no_cycle() {
    let mut b = B::new();
    // test.a waits for test.b and test.c, built after it; test.d and test.e share one waiter on test.a.
    let (later, handle) = b.mutable_waiter();
    let a = shapes::create(&mut b, "test.a", later);
    let none = b.waiter([]);
    let created_b = shapes::create(&mut b, "test.b", none);
    let created_c = shapes::create(&mut b, "test.c", none);
    b.add_waiter_dependency(handle, created_b);
    b.add_waiter_dependency(handle, created_c);
    let after_a = b.waiter([a.any()]);
    shapes::create(&mut b, "test.d", after_a);
    shapes::create(&mut b, "test.e", after_a);
    let graph = b
        .finish()
        .expect("every wait points at something that does not wait back");
    for addr in ["test.a", "test.b", "test.c", "test.d", "test.e"] {
        assert!(
            graph
                .resource_instance_final_state_result(&addr.to_owned())
                .is_some(),
            "{addr}"
        );
    }
}

#[test]
fn a_waiter_waiting_for_itself_is_a_cycle() {
    let mut b = B::new();
    let (waiter, handle) = b.mutable_waiter();
    b.add_waiter_dependency(handle, waiter);
    let err = b.finish().expect_err("a waiter cannot wait for itself");
    assert_eq!(
        err.to_string(),
        "the graph has a dependency cycle: w[0] waiter"
    );
}

#[test]
fn two_separate_cycles_are_both_named() {
    let mut b = B::new();
    for _ in 0..2 {
        let (first, first_handle) = b.mutable_waiter();
        let (second, second_handle) = b.mutable_waiter();
        b.add_waiter_dependency(first_handle, second);
        b.add_waiter_dependency(second_handle, first);
    }
    let err = b.finish().expect_err("two cycles");
    assert_eq!(
        err.to_string(),
        "the graph has a dependency cycle: w[0] waiter, w[1] waiter; w[2] waiter, w[3] waiter"
    );
}

#[test]
fn a_reference_from_another_builder_is_refused() {
    let mut other = B::new();
    let none = other.waiter([]);
    let foreign = shapes::create(&mut other, "test.other", none);

    let mut b = B::new();
    let waiter = b.waiter([foreign.any()]);
    let a = b.constant_resource_instance_addr("test.a".to_owned());
    b.data_read(ResultRef::nil(), ResultRef::nil(), ResultRef::nil(), waiter);
    let _ = a;
    let err = b.finish().expect_err("r[3] does not exist in this builder");
    assert_eq!(
        err.to_string(),
        "w[0] waiter refers to r[3], which is not in the graph"
    );
}

#[test]
fn registering_a_second_final_state_for_one_address_panics() {
    let mut b = B::new();
    let none = b.waiter([]);
    let first = shapes::create(&mut b, "test.a", none);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        b.set_resource_instance_final_state_result("test.a".to_owned(), first);
    }));
    let panic = outcome.expect_err("a second registration is a planner bug");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(
        message,
        "resource instance test.a already has a final state result (r[3])"
    );
}

#[test]
fn a_waiter_handle_from_another_builder_panics() {
    let mut other = B::new();
    other.mutable_waiter();
    let (_, handle) = other.mutable_waiter();
    let mut b = B::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        b.add_waiter_dependency(handle, ResultRef::<execgraph::kind::Value>::nil())
    }));
    assert!(
        outcome.is_err(),
        "the handle names no waiter of this builder"
    );
}

#[test]
fn the_final_state_of_an_unregistered_address_is_none() {
    let mut b = B::new();
    let none = b.waiter([]);
    let created = shapes::create(&mut b, "test.a", none);
    assert_eq!(
        b.resource_instance_final_state_result(&"test.a".to_owned()),
        Some(created.any())
    );
    assert_eq!(
        b.resource_instance_final_state_result(&"test.b".to_owned()),
        None
    );
    let graph = b.finish().unwrap();
    assert_eq!(
        graph.resource_instance_final_state_result(&"test.a".to_owned()),
        Some(created.any())
    );
    assert_eq!(
        graph.resource_instance_final_state_result(&"test.z".to_owned()),
        None
    );
    assert_eq!(graph.operation_count(), 4);
}

#[test]
fn a_very_long_chain_of_waiters_finishes_and_renders() {
    let mut b = B::new();
    let mut last = b.waiter([]);
    for _ in 0..100_000 {
        last = b.waiter([last]);
    }
    let a = b.constant_resource_instance_addr("test.a".to_owned());
    let meta = b.resource_instance_current_meta(a, ResultRef::nil());
    b.data_read(meta, ResultRef::nil(), ResultRef::nil(), last);
    let graph = b.finish().expect("a chain is not a cycle");
    let text = graph.debug_repr();
    // w[100000] down to w[99937] (64 waiters) are expanded; w[99936], the 65th, is named.
    let expected_tail = format!("{}w[99936]{});\n", "await(".repeat(64), ")".repeat(64));
    assert!(
        text.ends_with(&expected_tail),
        "{}",
        &text[text.len() - 200..]
    );
}

#[test]
fn a_very_long_cycle_of_waiters_is_refused() {
    let mut b = B::new();
    let (first, handle) = b.mutable_waiter();
    let mut last = first;
    for _ in 0..100_000 {
        last = b.waiter([last]);
    }
    b.add_waiter_dependency(handle, last);
    match b.finish() {
        Err(GraphError::Cycle { cycles }) => {
            assert_eq!(cycles.iter().map(Vec::len).collect::<Vec<_>>(), [100_001])
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
}
