//! Dynamic self-dependencies: instances whose desired states wait on each other's values are reported as a
//! diagnostic naming the requests, within a bounded time, never as a hang.

use std::sync::{Arc, Weak};
use std::time::Duration;

use execgraph::{ExecuteConfig, codes};
use expect_test::expect;

use crate::shapes;
use crate::support::{B, G, Recorder, render};

fn two_creates() -> G {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let none = b.waiter([]);
    shapes::create(&mut b, "test.b", none);
    b.finish().unwrap()
}

#[tokio::test]
async fn two_instances_reading_each_other_are_reported_not_hung() {
    let graph = two_creates();
    let mut ops = Recorder::default();
    ops.reads.insert("test.a".into(), vec!["test.b".into()]);
    ops.reads.insert("test.b".into(), vec!["test.a".into()]);
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = tokio::time::timeout(
        Duration::from_secs(5),
        compiled.execute(ExecuteConfig::default()),
    )
    .await
    .expect("a dynamic cycle is reported, not waited on");
    assert_eq!(render(&diagnostics).len(), 1, "{diagnostics:?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic.code, codes::SELF_DEPENDENCY);
    assert_eq!(
        diagnostic.summary,
        "resource instances wait on each other's values during apply"
    );
    assert!(
        diagnostic
            .detail
            .contains("r[1] ResourceInstanceDesired (test.a)"),
        "{}",
        diagnostic.detail
    );
    assert!(
        diagnostic
            .detail
            .contains("r[5] ResourceInstanceDesired (test.b)"),
        "{}",
        diagnostic.detail
    );
    // Neither instance got as far as a plan.
    assert!(
        ops.sorted_log().iter().all(|c| !c.starts_with("plan")),
        "{:?}",
        ops.sorted_log()
    );
}

#[tokio::test]
async fn an_instance_reading_its_own_value_is_reported_naming_the_chain() {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let graph = b.finish().unwrap();
    let mut ops = Recorder::default();
    ops.reads.insert("test.a".into(), vec!["test.a".into()]);
    let compiled = graph.compile(Arc::new(ops)).unwrap();
    let diagnostics = tokio::time::timeout(
        Duration::from_secs(5),
        compiled.execute(ExecuteConfig::default()),
    )
    .await
    .expect("a dynamic cycle is reported, not waited on");
    assert_eq!(
        render(&diagnostics),
        [
            "error[self-dependency]: resource instances wait on each other's values during apply (test.a)"
        ]
    );
    expect![[r#"r[1] ResourceInstanceDesired (test.a) waits for the value of test.a, the result of r[3] ManagedApply (test.a); r[3] ManagedApply (test.a) waits for r[2] ManagedFinalPlan (test.a); r[2] ManagedFinalPlan (test.a) waits for r[1] ResourceInstanceDesired (test.a). Remove the reference cycle between these resource instances from the configuration."#]]
        .assert_eq(&diagnostics[0].detail);
}

#[tokio::test]
async fn a_cycle_through_the_compiled_graph_method_is_reported_too() {
    let graph = two_creates();
    let mut ops = Recorder::default();
    ops.reads.insert("test.a".into(), vec!["test.b".into()]);
    ops.reads.insert("test.b".into(), vec!["test.a".into()]);
    let ops = Arc::new(ops);
    let compiled = Arc::new(graph.compile(ops.clone()).unwrap());
    ops.through_graph
        .set(Arc::downgrade(&compiled))
        .map_err(|_: Weak<_>| ())
        .unwrap();
    let diagnostics = tokio::time::timeout(
        Duration::from_secs(5),
        compiled.execute(ExecuteConfig::default()),
    )
    .await
    .expect("a dynamic cycle is reported, not waited on");
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_ref()).collect();
    assert_eq!(codes, [codes::SELF_DEPENDENCY]);
}

#[tokio::test]
async fn reading_a_value_still_being_produced_is_not_a_cycle() {
    // test.b reads test.a with no graph dependency between them: it waits for test.a's apply.
    let graph = two_creates();
    let mut ops = Recorder::default();
    ops.reads.insert("test.b".into(), vec!["test.a".into()]);
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = tokio::time::timeout(
        Duration::from_secs(5),
        compiled.execute(ExecuteConfig::default()),
    )
    .await
    .expect("no cycle here");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert!(
        ops.sorted_log()
            .contains(&"value test.a for test.b = {\"id\" = \"test.a#new\"}".to_owned())
    );
}
