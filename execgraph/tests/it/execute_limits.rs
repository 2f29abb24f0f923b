//! The parallelism limit and cancellation, measured with the recording double on a paused clock.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use execgraph::{ExecuteConfig, codes};
use tokio_util::sync::CancellationToken;

use crate::shapes;
use crate::support::{B, G, Recorder, render};

/// `n` independent provider calls (prior reads of test.0 .. test.<n-1>).
fn independent_reads(n: usize) -> G {
    let mut b = B::new();
    for i in 0..n {
        let a = b.constant_resource_instance_addr(format!("test.{i}"));
        b.resource_instance_prior(a);
    }
    b.finish().unwrap()
}

#[tokio::test(start_paused = true)]
async fn never_more_than_parallelism_calls_in_flight_and_the_limit_is_reached() {
    let graph = independent_reads(50);
    let ops = Arc::new(Recorder {
        hold: Some(Duration::from_millis(20)),
        ..Recorder::default()
    });
    let compiled = graph.compile(ops.clone()).unwrap();
    let config = ExecuteConfig {
        parallelism: 3.try_into().unwrap(),
        ..ExecuteConfig::default()
    };
    let diagnostics = compiled.execute(config).await;
    assert!(diagnostics.is_empty());
    assert_eq!(ops.sorted_log().len(), 50);
    assert_eq!(ops.max_in_flight(), 3);
}

#[tokio::test(start_paused = true)]
async fn evaluator_calls_waiting_for_values_hold_no_permit() {
    // With one permit, test.b's desired state waits for test.a's value while test.a's plan and apply need
    // the permit: holding it while waiting would deadlock.
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let none = b.waiter([]);
    shapes::create(&mut b, "test.b", none);
    let graph = b.finish().unwrap();
    let mut ops = Recorder {
        hold: Some(Duration::from_millis(20)),
        ..Recorder::default()
    };
    ops.reads.insert("test.b".into(), vec!["test.a".into()]);
    let ops = Arc::new(ops);
    let compiled = graph.compile(ops.clone()).unwrap();
    let config = ExecuteConfig {
        parallelism: 1.try_into().unwrap(),
        ..ExecuteConfig::default()
    };
    let diagnostics = tokio::time::timeout(Duration::from_secs(5), compiled.execute(config)).await;
    assert_eq!(diagnostics.map(|d| render(&d)), Ok(Vec::new()));
    assert_eq!(ops.max_in_flight(), 1);
    assert!(
        ops.sorted_log()
            .contains(&"value test.a for test.b = {\"id\" = \"test.a#new\"}".to_owned())
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_lets_calls_in_flight_finish_and_starts_nothing_new() {
    let graph = independent_reads(50);
    let cancel = CancellationToken::new();
    let ops = Arc::new(Recorder {
        hold: Some(Duration::from_millis(20)),
        cancel_at: Some((3, cancel.clone())),
        ..Recorder::default()
    });
    let compiled = graph.compile(ops.clone()).unwrap();
    let config = ExecuteConfig {
        parallelism: 3.try_into().unwrap(),
        cancel,
    };
    let diagnostics = compiled.execute(config).await;

    let started = ops.sorted_log();
    assert_eq!(started.len(), 3, "no call starts after the cancellation");
    assert_eq!(ops.finished(), 3, "the calls in flight finished");
    assert_eq!(diagnostics.len(), 47);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.code == codes::CANCELLED && d.is_error())
    );
    let skipped: BTreeSet<String> = diagnostics
        .iter()
        .filter_map(|d| d.address.clone())
        .collect();
    assert_eq!(skipped.len(), 47, "each skipped call is reported once");
    let started: BTreeSet<String> = started
        .iter()
        .map(|c| c.trim_start_matches("prior ").to_owned())
        .collect();
    assert!(skipped.is_disjoint(&started));
}

#[tokio::test(start_paused = true)]
async fn cancelling_skips_the_rest_of_a_chain_with_one_diagnostic() {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let graph = b.finish().unwrap();
    let cancel = CancellationToken::new();
    // The first provider call is the plan; the cancellation arrives while it is in flight.
    let ops = Arc::new(Recorder {
        hold: Some(Duration::from_millis(20)),
        cancel_at: Some((1, cancel.clone())),
        ..Recorder::default()
    });
    let compiled = graph.compile(ops.clone()).unwrap();
    let diagnostics = compiled
        .execute(ExecuteConfig {
            cancel,
            ..ExecuteConfig::default()
        })
        .await;
    assert_eq!(
        ops.log(),
        [
            "meta test.a prior=none",
            "desired test.a",
            "plan create test.a"
        ]
    );
    assert_eq!(
        render(&diagnostics),
        ["error[cancelled]: operation not started: apply was cancelled (test.a)"]
    );
    assert_eq!(
        diagnostics[0].detail,
        "The change to test.a was not started because the apply was interrupted; operations already in \
         flight finished. Run apply again to carry out the remaining changes."
    );
}
