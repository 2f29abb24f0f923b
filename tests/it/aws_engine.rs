//! The engine planning and applying through the AWS provider against the local AWS emulator: an estate of
//! buckets is created with its markers, a converged plan binds the buckets from the bulk answers
//! (`ListBuckets` and one tagging page) with no read per bucket, and a bucket that leaves the configuration
//! is destroyed.

use std::collections::BTreeMap;
use std::sync::Arc;

use admission::{SourceFile, VariableInputs};
use engine::render::{self, RenderOptions};
use engine::{ApplyConfig, Engine, Plan, RetryConfig, Sources};
use liveplan::aws::{AwsProvider, AwsProviderConfig};
use provider::Call;
use provider::Provider;
use staterecord::testkit::emulator::S3Emulator;
use staterecord::{MemoryStore, Store};

async fn connect() -> Arc<AwsProvider> {
    S3Emulator::from_env()
        .await
        .expect("the AWS emulator is required: run the tests through scripts/test");
    Arc::new(
        AwsProvider::from_env(&AwsProviderConfig::default())
            .await
            .expect("AWS_REGION is set by scripts/test"),
    )
}

fn engine(provider: &Arc<AwsProvider>, store: &Arc<dyn Store>) -> Engine {
    Engine::new(Arc::clone(provider) as Arc<dyn Provider>, Arc::clone(store))
        .with_retry(RetryConfig::immediate(4))
}

async fn plan(provider: &Arc<AwsProvider>, store: &Arc<dyn Store>, config: &str) -> Plan {
    let files = [SourceFile::new("main.tf", config)];
    let inputs = VariableInputs::default();
    engine(provider, store)
        .plan(Sources::new(&files, &inputs))
        .await
        .expect("the plan runs")
}

async fn apply(provider: &Arc<AwsProvider>, store: &Arc<dyn Store>, plan: Plan) {
    let reviewed = plan.review().expect("the plan is applicable");
    let outcome = engine(provider, store)
        .apply(&reviewed, ApplyConfig::default())
        .await
        .expect("the apply runs");
    let diagnostics: Vec<String> = outcome.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(diagnostics, Vec::<String>::new(), "the apply succeeds");
}

fn summary_line(plan: &Plan) -> String {
    let text = render::text(plan, RenderOptions::default());
    text.lines().last().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn aws_engine_creates_converges_from_bulk_answers_and_destroys_the_undeclared_bucket() {
    let provider = connect().await;
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let estate = format!("lp-engine-{}-{nanos:08x}", std::process::id());
    let full = format!(
        r#"
live {{ estate = "{estate}" }}

resource "aws_s3_bucket" "logs" {{
  bucket = "{estate}-logs"
  tags   = {{ team = "data" }}
}}

resource "aws_s3_bucket" "data" {{
  bucket = "{estate}-data"
}}

resource "aws_s3_bucket_versioning" "data" {{
  bucket = aws_s3_bucket.data.id
  versioning_configuration {{
    status = "Enabled"
  }}
}}
"#
    );

    let first = plan(&provider, &store, &full).await;
    assert_eq!(
        summary_line(&first),
        "Plan: 3 to add, 0 to change, 0 to destroy."
    );
    apply(&provider, &store, first).await;
    let logs = provider
        .read_by_id(
            &Call::unrecorded(),
            "aws_s3_bucket",
            &format!("{estate}-logs"),
        )
        .await
        .unwrap()
        .expect("the bucket exists");
    let want: BTreeMap<String, String> = [
        ("team", "data"),
        ("tofu-address", "aws_s3_bucket.logs"),
        ("tofu-estate", estate.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(logs.tags, want, "created with the estate's markers");

    // A converged plan on a fresh provider: the buckets are bound from ListBuckets and the tagging page;
    // the versioning configuration, which neither shows, costs one read.
    let fresh = connect().await;
    let converged = plan(&fresh, &store, &full).await;
    assert_eq!(
        summary_line(&converged),
        "No changes. The live system matches the configuration."
    );
    let expected: BTreeMap<String, u64> = [
        ("s3:GetBucketVersioning", 1),
        ("s3:ListBuckets", 1),
        ("tagging:GetResources", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(converged.cost.api_calls_by_operation, expected);
    assert_eq!(converged.cost.store_trips, 1);

    // The logs bucket leaves the configuration: owned and undeclared, so it is destroyed.
    let without_logs = full.replace(
        &format!(
            "resource \"aws_s3_bucket\" \"logs\" {{\n  bucket = \"{estate}-logs\"\n  tags   = {{ team = \"data\" }}\n}}\n"
        ),
        "",
    );
    assert_ne!(without_logs, full);
    let shrink = plan(&provider, &store, &without_logs).await;
    assert_eq!(
        summary_line(&shrink),
        "Plan: 0 to add, 0 to change, 1 to destroy."
    );
    apply(&provider, &store, shrink).await;
    assert_eq!(
        provider
            .read_by_id(
                &Call::unrecorded(),
                "aws_s3_bucket",
                &format!("{estate}-logs")
            )
            .await
            .unwrap(),
        None
    );

    // The rest is torn down directly through the provider.
    provider
        .delete(
            &Call::unrecorded(),
            "aws_s3_bucket_versioning",
            &format!("{estate}-data"),
        )
        .await
        .unwrap();
    provider
        .delete(
            &Call::unrecorded(),
            "aws_s3_bucket",
            &format!("{estate}-data"),
        )
        .await
        .unwrap();
}
