//! The tracing an embedder sees: every provider call of a plan inside a span that names the estate and the
//! operation, captured by a subscriber of the test's own (the library installs none).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use expect_test::expect;
use liveplan::{Configuration, MemoryStore, Resource, SimCloud, SimConfig, Store};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as the capturing layer saw it when it closed.
#[derive(Debug, Clone)]
struct Captured {
    name: &'static str,
    target: String,
    fields: BTreeMap<String, String>,
    /// The span's ancestors, outermost first, each as `name{field=value ...}`.
    ancestors: Vec<String>,
}

impl Captured {
    fn label(name: &str, fields: &BTreeMap<String, String>) -> String {
        let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{name}{{{}}}", fields.join(" "))
    }
}

#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// Keeps every closed span with its fields and ancestry.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

impl<S> tracing_subscriber::Layer<S> for Capture
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<Fields>()
        {
            values.record(fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let fields_of = |s: &tracing_subscriber::registry::SpanRef<'_, S>| {
            s.extensions()
                .get::<Fields>()
                .map(|f| f.0.clone())
                .unwrap_or_default()
        };
        let mut ancestors: Vec<String> = span
            .scope()
            .skip(1)
            .map(|s| Captured::label(s.name(), &fields_of(&s)))
            .collect();
        ancestors.reverse();
        self.0.lock().unwrap().push(Captured {
            name: span.name(),
            target: span.metadata().target().to_owned(),
            fields: fields_of(&span),
            ancestors,
        });
    }
}

/// A snapshot with this estate's bucket (and its versioning) and VPC, and another estate's VPC.
const LIVE: &str = r#"{ "resources": [
  { "type": "aws_s3_bucket", "id": "acme-logs", "attributes": { "bucket": "acme-logs" },
    "tags": { "tofu-estate": "acme-net", "tofu-address": "aws_s3_bucket.logs" } },
  { "type": "aws_vpc", "id": "vpc-00000001", "attributes": { "cidr_block": "10.42.0.0/16" },
    "tags": { "tofu-estate": "acme-net", "tofu-address": "aws_vpc.main" } },
  { "type": "aws_vpc", "id": "vpc-00000002", "attributes": { "cidr_block": "10.9.0.0/16" },
    "tags": { "tofu-estate": "other", "tofu-address": "aws_vpc.main" } }
] }"#;

/// The tests that capture spans, one at a time: each installs its own subscriber, and tracing caches which
/// callsites are enabled process-wide, so two capturing at once can hide spans from each other.
pub static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The test binary's global subscriber: it records nothing, but answers "ask me each time" for every call
/// site, so no call site's interest is ever cached as "never". Without it, a call site that a test on another
/// thread registers while a capturing test installs its subscriber (registration computes the interest, then
/// stores it) can keep a "never" computed before that subscriber existed, and the capture misses its spans.
struct AskEachTime;

impl tracing::Subscriber for AskEachTime {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        // Alone, it lets every span and event be skipped at the level check.
        Some(tracing::level_filters::LevelFilter::OFF)
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        false
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Installs [`AskEachTime`] once, before a test captures spans.
pub fn ask_each_time() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Nothing else in this binary sets a global subscriber; were one set, captures would still work as
        // they did before this existed.
        let _ = tracing::subscriber::set_global_default(AskEachTime);
    });
}

#[tokio::test]
async fn tracing_one_plan_has_a_span_per_provider_call_naming_operation_and_estate() {
    let _one = ONE_AT_A_TIME.lock().await;
    ask_each_time();
    let cloud = SimCloud::from_json(LIVE, SimConfig::default()).expect("a valid snapshot");
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let engine = liveplan::Engine::new(Arc::new(cloud), store);
    let config = Configuration::new("acme-net")
        .resource(Resource::new("aws_s3_bucket", "logs").set("bucket", "acme-logs"))
        .resource(
            Resource::new("aws_s3_bucket_versioning", "logs")
                .set("bucket", "acme-logs")
                .block(liveplan::Block::new("versioning_configuration").set("status", "Enabled")),
        )
        .resource(Resource::new("aws_vpc", "main").set("cidr_block", "10.42.0.0/16"));

    // The first plan registers every span's call site while tests on other threads may be registering
    // theirs (one registered by another thread mid-rebuild could keep a stale "never"); the capture below
    // then recomputes their interest with nothing racing it. A plan writes nothing.
    config.plan(&engine).await.expect("the plan runs");
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let plan = {
        // The test runs on one thread, so the thread's default subscriber sees the whole plan.
        let _guard = tracing::subscriber::set_default(subscriber);
        // A test that reached a callsite first with no subscriber may have cached it as disabled.
        tracing::callsite::rebuild_interest_cache();
        config.plan(&engine).await.expect("the plan runs")
    };
    let spans = capture.0.lock().unwrap().clone();

    // Every simulated API call, with the spans it ran in: the plan, the projection of the estate, the stage
    // of discovery, the protocol call, and the API operation.
    let mut calls: Vec<String> = spans
        .iter()
        .filter(|s| s.name == "call" && s.target == "fixtures::cloud")
        .map(|s| {
            let mut chain = s.ancestors.clone();
            chain.push(Captured::label(s.name, &s.fields));
            chain.join(" > ")
        })
        .collect();
    calls.sort();
    expect![[r#"
        plan{estate=acme-net} > project{estate=acme-net} > discover{estate=acme-net path=bulk} > list_all{type_name=aws_s3_bucket} > provider_call{estate=acme-net operation=list type_name=aws_s3_bucket} > call{operation=s3:ListBuckets}
        plan{estate=acme-net} > project{estate=acme-net} > discover{estate=acme-net path=bulk} > list_all{type_name=aws_vpc} > provider_call{estate=acme-net operation=list type_name=aws_vpc} > call{operation=ec2:DescribeVpcs}
        plan{estate=acme-net} > project{estate=acme-net} > discover{estate=acme-net path=bulk} > read_one{} > provider_call{estate=acme-net identity=bucket=acme-logs operation=read type_name=aws_s3_bucket_versioning} > call{operation=s3:GetBucketVersioning}
        plan{estate=acme-net} > project{estate=acme-net} > discover{estate=acme-net path=bulk} > sweep_all{estate=acme-net} > provider_call{estate=acme-net operation=tagged_resources} > call{operation=tagging:GetResources}
    "#]]
    .assert_eq(&(calls.join("\n") + "\n"));

    // Each protocol call names the estate and the operation itself, so a filter on either finds it.
    let provider_calls: Vec<&Captured> =
        spans.iter().filter(|s| s.name == "provider_call").collect();
    assert!(!provider_calls.is_empty());
    for span in &provider_calls {
        assert_eq!(span.target, "projection::discover");
        assert_eq!(span.fields["estate"], "acme-net", "{span:?}");
        assert!(
            ["list", "read", "read_by_id", "tagged_resources"]
                .contains(&span.fields["operation"].as_str()),
            "{span:?}"
        );
    }
    // As many API-call spans as the plan counted API calls.
    let counted: u64 = plan.cost.api_calls;
    assert_eq!(calls.len() as u64, counted);

    // The records are read once, in bulk, inside the projection of the estate.
    let store_ops: Vec<String> = spans
        .iter()
        .filter(|s| s.target.starts_with("staterecord"))
        .map(|s| {
            format!(
                "{} > {}",
                s.ancestors[1],
                Captured::label(s.name, &s.fields)
            )
        })
        .collect();
    assert_eq!(
        store_ops,
        ["project{estate=acme-net} > get_all{prefix=acme-net/}"]
    );
}

/// Captures the spans of `future`, run on this thread.
async fn captured<T>(future: impl std::future::Future<Output = T>) -> (T, Vec<Captured>) {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let out = {
        let _guard = tracing::subscriber::set_default(subscriber);
        // A test that reached a callsite first with no subscriber may have cached it as disabled.
        tracing::callsite::rebuild_interest_cache();
        future.await
    };
    let spans = capture.0.lock().unwrap().clone();
    (out, spans)
}

#[tokio::test]
async fn tracing_apply_runs_each_provider_call_inside_its_graph_operation_and_estate() {
    let _one = ONE_AT_A_TIME.lock().await;
    ask_each_time();
    let config = Configuration::new("acme-net")
        .resource(Resource::new("aws_vpc", "main").set("cidr_block", "10.42.0.0/16"))
        .resource(
            Resource::new("aws_subnet", "a")
                .set(
                    "vpc_id",
                    liveplan::Argument::reference("aws_vpc", "main", "id"),
                )
                .set("cidr_block", "10.42.1.0/24"),
        );
    // Plans and applies on a cloud of its own: the first run registers every span's call site (see the
    // plan test), the second is captured.
    let mut runs = Vec::new();
    for _ in 0..2 {
        let cloud =
            Arc::new(SimCloud::from_json(r#"{"resources": []}"#, SimConfig::default()).unwrap());
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let engine = liveplan::Engine::new(cloud, store);
        let plan = config.plan(&engine).await.unwrap();
        let reviewed = plan.review().expect("applicable");
        let run = engine.apply(&reviewed, liveplan::ApplyConfig::default());
        let (outcome, spans) = if runs.is_empty() {
            (run.await, Vec::new())
        } else {
            captured(run).await
        };
        assert!(outcome.expect("the apply runs").succeeded());
        runs.push(spans);
    }
    let spans = runs.pop().unwrap_or_default();

    // Each API call of the apply, with the graph operation and the estate it ran for.
    let mut calls: Vec<String> = spans
        .iter()
        .filter(|s| s.name == "call" && s.target == "fixtures::cloud")
        .map(|s| {
            let scope: Vec<&String> = s
                .ancestors
                .iter()
                .filter(|a| a.starts_with("apply{") || a.starts_with("graph_op{"))
                .collect();
            format!("{scope:?} {}", Captured::label(s.name, &s.fields))
        })
        .collect();
    calls.sort();
    expect![[r#"
        ["apply{estate=acme-net}", "graph_op{address=aws_subnet.a op=ManagedApply}"] call{operation=ec2:CreateSubnet}
        ["apply{estate=acme-net}", "graph_op{address=aws_vpc.main op=ManagedApply}"] call{operation=ec2:CreateVpc}
    "#]]
    .assert_eq(&(calls.join("\n") + "\n"));
}
