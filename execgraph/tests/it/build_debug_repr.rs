//! Golden debug text of every planner shape, each also round-tripped through marshal/unmarshal.

use execgraph::ResultRef;
use expect_test::{Expect, expect};

use crate::shapes;
use crate::support::{B, G};

/// Finishes the builder, compares the debug text, and checks that the marshalled graph reads back to the
/// same text.
fn check(build: impl FnOnce(&mut B), expected: Expect) {
    let mut b = B::new();
    build(&mut b);
    let graph = b.finish().expect("the graph is acyclic");
    let text = graph.debug_repr();
    expected.assert_eq(&text);
    let back = G::unmarshal(&graph.marshal()).expect("the marshalled graph reads back");
    assert_eq!(
        back.debug_repr(),
        text,
        "round trip through marshal/unmarshal"
    );
}

#[test]
fn create() {
    check(
        |b| {
            let after = b.waiter([]);
            shapes::create(b, "test.example", after);
        },
        expect![[r#"
            v[0] = {"name" = "example"};

            r[0] = ResourceInstanceCurrentMeta(test.example, nil);
            r[1] = ResourceInstanceDesired(r[0]);
            r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
            r[3] = ManagedApply(r[2], nil, await());

            test.example = r[3];
        "#]],
    );
}

#[test]
fn update() {
    check(
        |b| {
            let after = b.waiter([]);
            shapes::update(b, "test.example", after);
        },
        expect![[r#"
            v[0] = {"name" = "example"};

            r[0] = ResourceInstancePrior(test.example);
            r[1] = ResourceInstanceCurrentMeta(test.example, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], r[0], v[0]);
            r[4] = ManagedApply(r[3], nil, await());

            test.example = r[4];
        "#]],
    );
}

#[test]
fn update_with_change_addr_chain() {
    check(
        |b| {
            shapes::update_moved(b, "test.a", &["test.b", "test.c"]);
        },
        expect![[r#"
            v[0] = {"name" = "c"};

            r[0] = ResourceInstancePrior(test.a);
            r[1] = ManagedChangeAddr(r[0], test.b);
            r[2] = ManagedChangeAddr(r[1], test.c);
            r[3] = ResourceInstanceCurrentMeta(test.c, r[2]);
            r[4] = ResourceInstanceDesired(r[3]);
            r[5] = ManagedFinalPlan(r[3], r[4], r[2], v[0]);
            r[6] = ManagedApply(r[5], nil, await());

            test.c = r[6];
        "#]],
    );
}

#[test]
fn delete() {
    check(
        |b| {
            let after = b.waiter([]);
            shapes::delete(b, "test.example", after);
        },
        expect![[r#"
            r[0] = ResourceInstancePrior(test.example);
            r[1] = ResourceInstanceCurrentMeta(test.example, r[0]);
            r[2] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[3] = ManagedApply(r[2], nil, await());

            test.example = r[3];
        "#]],
    );
}

#[test]
fn deposed_orphan() {
    check(
        |b| {
            shapes::deposed_orphan(b, "test.example", "00000001");
        },
        expect![[r#"
            r[0] = ManagedAlreadyDeposed(test.example, "00000001");
            r[1] = ManagedDeposedMeta(test.example, "00000001", r[0]);
            r[2] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[3] = ManagedApply(r[2], nil, await());
        "#]],
    );
}

#[test]
fn destroy_before_create() {
    check(
        |b| {
            shapes::destroy_before_create(b, "test.example");
        },
        expect![[r#"
            v[0] = {"name" = "example"};

            r[0] = ResourceInstancePrior(test.example);
            r[1] = ResourceInstanceCurrentMeta(test.example, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], nil, v[0]);
            r[4] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[5] = ManagedApply(r[4], nil, await(r[3]));
            r[6] = ManagedApply(r[3], nil, await(r[5]));

            test.example = r[6];
        "#]],
    );
}

#[test]
fn create_before_destroy() {
    check(
        |b| {
            shapes::create_before_destroy(b, "test.example", "00000001");
        },
        expect![[r#"
            v[0] = {"name" = "example"};

            r[0] = ResourceInstancePrior(test.example);
            r[1] = ResourceInstanceCurrentMeta(test.example, r[0]);
            r[2] = ResourceInstanceDesired(r[1]);
            r[3] = ManagedFinalPlan(r[1], r[2], nil, v[0]);
            r[4] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[5] = ManagedPrepareDepose(r[4], "00000001");
            r[6] = ManagedPerformDepose(r[0], r[5], await(r[3]));
            r[7] = ManagedApply(r[3], r[6], await());
            r[8] = ManagedApply(r[5], nil, await(r[7]));

            test.example = r[7];
        "#]],
    );
}

#[test]
fn dependency_built_after_its_dependency() {
    // test.b refers to test.a, and test.a's subgraph is built first.
    check(
        |b| {
            let none = b.waiter([]);
            shapes::create(b, "test.a", none);
            let a = b
                .resource_instance_final_state_result(&"test.a".to_owned())
                .expect("test.a is registered");
            let after_a = b.waiter([a]);
            shapes::create(b, "test.b", after_a);
        },
        expect![[r#"
            v[0] = {"name" = "a"};
            v[1] = {"name" = "b"};

            r[0] = ResourceInstanceCurrentMeta(test.a, nil);
            r[1] = ResourceInstanceDesired(r[0]);
            r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
            r[3] = ManagedApply(r[2], nil, await());
            r[4] = ResourceInstanceCurrentMeta(test.b, nil);
            r[5] = ResourceInstanceDesired(r[4]);
            r[6] = ManagedFinalPlan(r[4], r[5], nil, v[1]);
            r[7] = ManagedApply(r[6], nil, await(r[3]));

            test.a = r[3];
            test.b = r[7];
        "#]],
    );
}

#[test]
fn dependency_built_before_its_dependency() {
    // test.b refers to test.a, but test.b's subgraph is built first: a mutable waiter learns of test.a later.
    check(
        |b| {
            let (after_a, handle) = shapes::later(b);
            shapes::create(b, "test.b", after_a);
            let none = b.waiter([]);
            let a = shapes::create(b, "test.a", none);
            b.add_waiter_dependency(handle, a);
        },
        expect![[r#"
            v[0] = {"name" = "b"};
            v[1] = {"name" = "a"};

            r[0] = ResourceInstanceCurrentMeta(test.b, nil);
            r[1] = ResourceInstanceDesired(r[0]);
            r[2] = ManagedFinalPlan(r[0], r[1], nil, v[0]);
            r[3] = ManagedApply(r[2], nil, await(r[7]));
            r[4] = ResourceInstanceCurrentMeta(test.a, nil);
            r[5] = ResourceInstanceDesired(r[4]);
            r[6] = ManagedFinalPlan(r[4], r[5], nil, v[1]);
            r[7] = ManagedApply(r[6], nil, await());

            test.a = r[7];
            test.b = r[3];
        "#]],
    );
}

#[test]
fn deletes_run_in_reverse_dependency_order() {
    // test.b referred to test.a; both are deleted, so test.a's delete waits for test.b's.
    check(
        |b| {
            let (after_b, handle) = shapes::later(b);
            shapes::delete(b, "test.a", after_b);
            let none = b.waiter([]);
            let deleted_b = shapes::delete(b, "test.b", none);
            b.add_waiter_dependency(handle, deleted_b);
        },
        expect![[r#"
            r[0] = ResourceInstancePrior(test.a);
            r[1] = ResourceInstanceCurrentMeta(test.a, r[0]);
            r[2] = ManagedFinalPlan(r[1], nil, r[0], nil);
            r[3] = ManagedApply(r[2], nil, await(r[7]));
            r[4] = ResourceInstancePrior(test.b);
            r[5] = ResourceInstanceCurrentMeta(test.b, r[4]);
            r[6] = ManagedFinalPlan(r[5], nil, r[4], nil);
            r[7] = ManagedApply(r[6], nil, await());

            test.a = r[3];
            test.b = r[7];
        "#]],
    );
}

#[test]
fn nil_final_state_and_nested_waiters() {
    check(
        |b| {
            let a = b.constant_resource_instance_addr("test.a".to_owned());
            let prior = b.resource_instance_prior(a);
            let inner = b.waiter([prior.any(), ResultRef::<execgraph::kind::Meta>::nil().any()]);
            let outer = b.waiter([inner, a.any()]);
            let meta = b.resource_instance_current_meta(a, prior);
            b.data_read(meta, ResultRef::nil(), ResultRef::nil(), outer);
            b.set_resource_instance_final_state_result("test.gone".to_owned(), ResultRef::nil());
        },
        expect![[r#"
            r[0] = ResourceInstancePrior(test.a);
            r[1] = ResourceInstanceCurrentMeta(test.a, r[0]);
            r[2] = DataRead(r[1], nil, nil, await(await(r[0], nil), test.a));

            test.gone = nil;
        "#]],
    );
}
