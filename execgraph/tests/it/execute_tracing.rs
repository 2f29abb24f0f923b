//! Each operation call runs in a `graph_op` span carrying the opcode and the instance address.

use std::fmt;
use std::sync::{Arc, Mutex};

use execgraph::ExecuteConfig;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

use crate::shapes;
use crate::support::{B, Recorder, TestFamily};

/// Records every span as `name field=value ...`, fields in the order they were set.
#[derive(Default)]
struct SpanLog {
    spans: Mutex<Vec<String>>,
}

struct Fields<'a>(&'a mut String);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.push_str(&format!(" {}={value:?}", field.name()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push_str(&format!(" {}={value}", field.name()));
    }
}

impl Subscriber for SpanLog {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut line = attrs.metadata().name().to_owned();
        attrs.record(&mut Fields(&mut line));
        let mut spans = self.spans.lock().unwrap();
        spans.push(line);
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, id: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        let line = &mut spans[id.into_u64() as usize - 1];
        values.record(&mut Fields(line));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// A graph that creates `test.a`, compiled.
fn create_one() -> execgraph::CompiledGraph<TestFamily> {
    let mut b = B::new();
    let none = b.waiter([]);
    shapes::create(&mut b, "test.a", none);
    let graph = b.finish().unwrap();
    graph.compile(Arc::new(Recorder::default())).unwrap()
}

#[test]
fn every_call_has_a_span_with_op_and_address() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // A callsite's interest is cached process-wide. A test on another thread that reaches `graph_op` for the
    // first time while this one sets up can store "never" after the rebuild below, so every callsite is
    // reached once first (registered by then, whoever registered it); the rebuild then reaches them all.
    assert!(
        runtime
            .block_on(create_one().execute(ExecuteConfig::default()))
            .is_empty()
    );
    let compiled = create_one();
    let log = Arc::new(SpanLog::default());
    let diagnostics = tracing::subscriber::with_default(Arc::clone(&log), || {
        tracing::callsite::rebuild_interest_cache();
        runtime.block_on(compiled.execute(ExecuteConfig::default()))
    });
    assert!(diagnostics.is_empty());
    let mut spans = log.spans.lock().unwrap().clone();
    spans.sort();
    assert_eq!(
        spans,
        [
            "graph_op op=ManagedApply address=test.a",
            "graph_op op=ManagedFinalPlan address=test.a",
            "graph_op op=ResourceInstanceCurrentMeta address=test.a",
            "graph_op op=ResourceInstanceDesired address=test.a",
        ]
    );
}
