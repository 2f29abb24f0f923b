//! Executing graphs with the recording double: which calls happen, what fails, what is skipped, and what
//! the evaluator reads.

use std::sync::Arc;
use std::time::Duration;

use execgraph::{ExecuteConfig, ResultRef};

use crate::shapes;
use crate::support::{B, G, Object, Recorder, Val, execute, render};

fn prior(id: &str) -> Object {
    Object { id: id.to_owned() }
}

fn value(graph_values: &[(&str, Val)]) -> Vec<(String, String)> {
    graph_values
        .iter()
        .map(|(a, v)| ((*a).to_owned(), v.to_string()))
        .collect()
}

async fn values_of(
    compiled: &execgraph::CompiledGraph<crate::support::TestFamily>,
    addrs: &[&str],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for addr in addrs {
        out.push((
            (*addr).to_owned(),
            compiled.resource_instance_value(&(*addr).to_owned()).await,
        ));
    }
    value(
        &out.iter()
            .map(|(a, v)| (a.as_str(), v.clone()))
            .collect::<Vec<_>>(),
    )
}

/// create a; update b (reads a, applies after a); delete c; replace d create-before-destroy; delete the
/// deposed orphan of e.
fn mixed() -> G {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let a = b
        .resource_instance_final_state_result(&"test.a".to_owned())
        .unwrap();
    let after_a = b.waiter([a]);
    shapes::update(&mut b, "test.b", after_a);
    let none = b.waiter([]);
    shapes::delete(&mut b, "test.c", none);
    shapes::create_before_destroy(&mut b, "test.d", "00000001");
    shapes::deposed_orphan(&mut b, "test.e", "00000002");
    b.finish().unwrap()
}

fn mixed_recorder() -> Recorder {
    let mut ops = Recorder::default();
    ops.priors.insert("test.b".into(), prior("b-1"));
    ops.priors.insert("test.c".into(), prior("c-1"));
    ops.priors.insert("test.d".into(), prior("d-1"));
    ops.reads.insert("test.b".into(), vec!["test.a".into()]);
    ops
}

#[tokio::test]
async fn every_operation_is_called_once_with_its_operands() {
    let graph = mixed();
    let ops = Arc::new(mixed_recorder());
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = compiled.execute(ExecuteConfig::default()).await;
    assert_eq!(render(&diagnostics), Vec::<String>::new());
    assert_eq!(
        ops.sorted_log(),
        [
            "already-deposed test.e 00000002",
            "apply create test.a",
            "apply create test.d fallback=d-1",
            "apply delete test.c",
            "apply delete test.d deposed 00000001",
            "apply delete test.e deposed 00000002",
            "apply update test.b",
            "depose test.d d-1 key=00000001",
            "deposed-meta test.e 00000002 prior=test.e#00000002",
            "desired test.a",
            "desired test.b",
            "desired test.d",
            "meta test.a prior=none",
            "meta test.b prior=b-1",
            "meta test.c prior=c-1",
            "meta test.d prior=d-1",
            "plan create test.a",
            "plan create test.d",
            "plan delete test.c",
            "plan delete test.d",
            "plan delete test.e deposed 00000002",
            "plan update test.b",
            "prior test.b",
            "prior test.c",
            "prior test.d",
            "value test.a for test.b = {\"id\" = \"test.a#new\"}",
        ]
    );
    assert_eq!(
        values_of(
            &compiled,
            &["test.a", "test.b", "test.c", "test.d", "test.zzz"]
        )
        .await,
        [
            ("test.a".to_owned(), "{\"id\" = \"test.a#new\"}".to_owned()),
            (
                "test.b".to_owned(),
                "{\"id\" = \"test.b#updated\"}".to_owned()
            ),
            ("test.c".to_owned(), "null".to_owned()),
            ("test.d".to_owned(), "{\"id\" = \"test.d#new\"}".to_owned()),
            (
                "test.zzz".to_owned(),
                "(unknown: dependency missing for test.zzz)".to_owned()
            ),
        ]
    );
}

#[tokio::test]
async fn a_graph_executes_once() {
    let graph = mixed();
    let ops = Arc::new(mixed_recorder());
    let compiled = graph.compile(ops.clone()).unwrap();
    assert!(compiled.execute(ExecuteConfig::default()).await.is_empty());
    let calls = ops.sorted_log().len();
    let again = compiled.execute(ExecuteConfig::default()).await;
    assert_eq!(
        render(&again),
        ["error[already-executed]: the execution graph was already executed"]
    );
    assert_eq!(ops.sorted_log().len(), calls, "nothing ran the second time");
}

#[tokio::test]
async fn an_upstream_failure_reports_once_and_skips_everything_downstream() {
    let mut b = B::new();
    let none = b.waiter([]);
    let a = shapes::create(&mut b, "test.a", none);
    let after_a = b.waiter([a.any()]);
    shapes::create(&mut b, "test.b", after_a);
    let after_b = b.waiter([b
        .resource_instance_final_state_result(&"test.b".to_owned())
        .unwrap()]);
    shapes::create(&mut b, "test.c", after_b);
    let none = b.waiter([]);
    shapes::create(&mut b, "test.d", none);
    let graph = b.finish().unwrap();

    let mut ops = Recorder::default();
    ops.fail.insert("plan create test.a".into());
    ops.reads.insert("test.c".into(), vec!["test.a".into()]);
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = compiled.execute(ExecuteConfig::default()).await;
    assert_eq!(
        render(&diagnostics),
        ["error[apply-failed]: plan create test.a failed (test.a)"]
    );
    assert_eq!(
        ops.sorted_log(),
        [
            "apply create test.d",
            "desired test.a",
            "desired test.b",
            "desired test.d",
            "meta test.a prior=none",
            "meta test.b prior=none",
            "meta test.c prior=none",
            "meta test.d prior=none",
            "plan create test.a",
            "plan create test.b",
            "plan create test.d",
            // test.c's desired state read test.a's value, found the evaluation error and stopped silently.
            "value test.a for test.c = (unknown: evaluation error for test.a)",
        ]
    );
    assert_eq!(
        values_of(&compiled, &["test.a", "test.b", "test.c", "test.d"]).await,
        [
            (
                "test.a".to_owned(),
                "(unknown: evaluation error for test.a)".to_owned()
            ),
            (
                "test.b".to_owned(),
                "(unknown: evaluation error for test.b)".to_owned()
            ),
            (
                "test.c".to_owned(),
                "(unknown: evaluation error for test.c)".to_owned()
            ),
            ("test.d".to_owned(), "{\"id\" = \"test.d#new\"}".to_owned()),
        ]
    );
}

#[tokio::test]
async fn a_waiter_fails_when_any_of_its_dependencies_failed() {
    let mut b = B::new();
    let none = b.waiter([]);
    let a = shapes::create(&mut b, "test.a", none);
    let none = b.waiter([]);
    let c = shapes::create(&mut b, "test.c", none);
    let after_both = b.waiter([a.any(), c.any()]);
    shapes::create(&mut b, "test.d", after_both);
    let after_c = b.waiter([c.any()]);
    shapes::create(&mut b, "test.e", after_c);
    let graph = b.finish().unwrap();

    let mut ops = Recorder::default();
    ops.fail.insert("apply create test.a".into());
    let ops = Arc::new(ops);
    let diagnostics = execute(&graph, ops.clone(), 10).await;
    assert_eq!(
        render(&diagnostics),
        ["error[apply-failed]: apply create test.a failed (test.a)"]
    );
    let applies: Vec<String> = ops
        .sorted_log()
        .into_iter()
        .filter(|c| c.starts_with("apply"))
        .collect();
    assert_eq!(
        applies,
        [
            "apply create test.a",
            "apply create test.c",
            "apply create test.e"
        ]
    );
}

#[tokio::test]
async fn nil_operands_resolve_at_once() {
    let mut b = B::new();
    let a = b.constant_resource_instance_addr("test.a".to_owned());
    let meta = b.resource_instance_current_meta(a, ResultRef::nil());
    let nothing = b.waiter([ResultRef::<execgraph::kind::Object>::nil().any()]);
    let read = b.data_read(meta, ResultRef::nil(), ResultRef::nil(), nothing);
    b.set_resource_instance_final_state_result("test.a".to_owned(), read);
    b.set_resource_instance_final_state_result("test.none".to_owned(), ResultRef::nil());
    let graph = b.finish().unwrap();
    let ops = Arc::new(Recorder::default());
    let compiled = graph.compile(ops.clone()).unwrap();
    assert!(compiled.execute(ExecuteConfig::default()).await.is_empty());
    assert_eq!(ops.sorted_log(), ["meta test.a prior=none", "read test.a"]);
    assert_eq!(
        values_of(&compiled, &["test.a", "test.none"]).await,
        [
            ("test.a".to_owned(), "{\"id\" = \"test.a#data\"}".to_owned()),
            ("test.none".to_owned(), "null".to_owned()),
        ]
    );
}

#[tokio::test]
async fn destroy_before_create_deletes_first() {
    let mut b = B::new();
    shapes::destroy_before_create(&mut b, "test.a");
    let graph = b.finish().unwrap();
    let mut ops = Recorder::default();
    ops.priors.insert("test.a".into(), prior("a-1"));
    let ops = Arc::new(ops);
    assert!(execute(&graph, ops.clone(), 10).await.is_empty());
    let log = ops.log();
    let at = |call: &str| {
        log.iter()
            .position(|c| c == call)
            .unwrap_or_else(|| panic!("{call} was called"))
    };
    assert!(
        at("plan create test.a") < at("apply delete test.a"),
        "the delete waits for the create plan"
    );
    assert!(
        at("apply delete test.a") < at("apply create test.a"),
        "the create waits for the delete"
    );
}

#[tokio::test]
async fn moves_run_in_order_before_the_update() {
    let mut b = B::new();
    shapes::update_moved(&mut b, "test.a", &["test.b", "test.c"]);
    let graph = b.finish().unwrap();
    let mut ops = Recorder::default();
    ops.priors.insert("test.a".into(), prior("a-1"));
    let ops = Arc::new(ops);
    assert!(execute(&graph, ops.clone(), 10).await.is_empty());
    assert_eq!(
        ops.log(),
        [
            "prior test.a",
            "move a-1 to test.b",
            "move a-1 to test.c",
            "meta test.c prior=a-1",
            "desired test.c",
            "plan update test.c",
            "apply update test.c",
        ]
    );
}

fn cbd_with_dependent() -> G {
    let mut b = B::new();
    let d = shapes::create_before_destroy(&mut b, "test.d", "00000001");
    let after_d = b.waiter([d.any()]);
    shapes::create(&mut b, "test.e", after_d);
    b.finish().unwrap()
}

#[tokio::test]
async fn a_create_before_destroy_that_creates_nothing_restores_the_deposed_object() {
    let graph = cbd_with_dependent();
    let mut ops = Recorder::default();
    ops.priors.insert("test.d".into(), prior("d-1"));
    ops.create_nothing.insert("test.d".into());
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = compiled.execute(ExecuteConfig::default()).await;
    assert_eq!(
        render(&diagnostics),
        ["error[apply-failed]: the replacement object was not created (test.d)"]
    );
    let applies: Vec<String> = ops
        .sorted_log()
        .into_iter()
        .filter(|c| c.starts_with("apply"))
        .collect();
    // The deposed object is not destroyed, and test.e, which waits for test.d, is skipped.
    assert_eq!(applies, ["apply create test.d fallback=d-1"]);
    assert_eq!(
        values_of(&compiled, &["test.d", "test.e"]).await,
        [
            ("test.d".to_owned(), "{\"id\" = \"d-1\"}".to_owned()),
            (
                "test.e".to_owned(),
                "(unknown: evaluation error for test.e)".to_owned()
            ),
        ]
    );
}

#[tokio::test]
async fn a_create_before_destroy_whose_create_fails_restores_the_deposed_object() {
    let graph = cbd_with_dependent();
    let mut ops = Recorder::default();
    ops.priors.insert("test.d".into(), prior("d-1"));
    ops.fail.insert("apply create test.d fallback=d-1".into());
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = compiled.execute(ExecuteConfig::default()).await;
    assert_eq!(
        render(&diagnostics),
        ["error[apply-failed]: apply create test.d fallback=d-1 failed (test.d)"]
    );
    let applies: Vec<String> = ops
        .sorted_log()
        .into_iter()
        .filter(|c| c.starts_with("apply"))
        .collect();
    assert_eq!(applies, ["apply create test.d fallback=d-1"]);
    assert_eq!(
        compiled
            .resource_instance_value(&"test.d".to_owned())
            .await
            .to_string(),
        "{\"id\" = \"d-1\"}"
    );
}

#[tokio::test]
async fn a_failed_destroy_of_the_deposed_object_lets_downstream_work_continue() {
    let graph = cbd_with_dependent();
    let mut ops = Recorder::default();
    ops.priors.insert("test.d".into(), prior("d-1"));
    ops.fail
        .insert("apply delete test.d deposed 00000001".into());
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = compiled.execute(ExecuteConfig::default()).await;
    assert_eq!(
        render(&diagnostics),
        ["error[apply-failed]: apply delete test.d deposed 00000001 failed (test.d)"]
    );
    let applies: Vec<String> = ops
        .sorted_log()
        .into_iter()
        .filter(|c| c.starts_with("apply"))
        .collect();
    assert_eq!(
        applies,
        [
            "apply create test.d fallback=d-1",
            "apply create test.e",
            "apply delete test.d deposed 00000001"
        ]
    );
    assert_eq!(
        compiled
            .resource_instance_value(&"test.d".to_owned())
            .await
            .to_string(),
        "{\"id\" = \"test.d#new\"}"
    );
}

#[tokio::test]
async fn reading_a_value_before_execution_waits_for_it() {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let graph = b.finish().unwrap();
    let compiled = graph.compile(Arc::new(Recorder::default())).unwrap();
    let addr = "test.a".to_owned();
    let (value, diagnostics) = tokio::join!(
        compiled.resource_instance_value(&addr),
        compiled.execute(ExecuteConfig::default())
    );
    assert!(diagnostics.is_empty());
    assert_eq!(value.to_string(), "{\"id\" = \"test.a#new\"}");
}

#[tokio::test(start_paused = true)]
async fn dropping_an_execution_releases_readers_of_values() {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let graph = b.finish().unwrap();
    let ops = Recorder {
        hold: Some(Duration::from_secs(3600)),
        ..Recorder::default()
    };
    let compiled = graph.compile(Arc::new(ops)).unwrap();
    tokio::select! {
        _ = compiled.execute(ExecuteConfig::default()) => panic!("the plan call holds for an hour"),
        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
    }
    let value = compiled.resource_instance_value(&"test.a".to_owned()).await;
    assert_eq!(value.to_string(), "(unknown: evaluation error for test.a)");
}

fn assert_send_sync<T: Send + Sync>(_: &T) {}
fn assert_send<T: Send>(_: &T) {}

#[test]
fn graphs_and_their_futures_cross_threads() {
    let graph = mixed();
    assert_send_sync(&graph);
    let compiled = graph.compile(Arc::new(mixed_recorder())).unwrap();
    assert_send_sync(&compiled);
    let execution = compiled.execute(ExecuteConfig::default());
    assert_send(&execution);
    let addr = "test.a".to_owned();
    let value = compiled.resource_instance_value(&addr);
    assert_send(&value);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_multi_threaded_runtime_with_a_reader_in_another_task() {
    let graph = mixed();
    let ops = Arc::new(mixed_recorder());
    let compiled = Arc::new(graph.compile(ops.clone()).unwrap());
    let mut readers = tokio::task::JoinSet::new();
    for addr in ["test.a", "test.c", "test.d"] {
        let compiled = Arc::clone(&compiled);
        readers.spawn(async move {
            (
                addr,
                compiled
                    .resource_instance_value(&addr.to_owned())
                    .await
                    .to_string(),
            )
        });
    }
    let diagnostics = compiled.execute(ExecuteConfig::default()).await;
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let mut seen = readers.join_all().await;
    seen.sort();
    assert_eq!(
        seen,
        [
            ("test.a", "{\"id\" = \"test.a#new\"}".to_owned()),
            ("test.c", "null".to_owned()),
            ("test.d", "{\"id\" = \"test.d#new\"}".to_owned()),
        ]
    );
    assert_eq!(ops.sorted_log().len(), 26);
}
