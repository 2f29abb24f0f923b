//! The plan benchmarks: `plan-converged` (the spec's mix of admission paths) and `plan-buckets` (bare
//! client-named buckets), each over a converged estate in the in-memory simulated cloud.
//!
//! The estate is converged the way a user converges one: the generated configuration is planned and
//! applied once on a cloud with no latency. Its live snapshot is then loaded into a fresh cloud with the
//! injected latency, and the records into a counting view of the same store, and one plan is measured
//! against them. Nothing here bends the engine: it is called exactly as the CLI calls it.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use admission::{SourceFile, VariableInputs};
use anyhow::{Context, bail, ensure};
use clap::ValueEnum;
use engine::{ApplyConfig, Engine, Plan, RetryConfig, Sources};
use fixtures::{LatencyTimer, SimCloud, SimConfig, Snapshot};
use provider::Counting;
use serde_json::json;
use staterecord::{CountingStore, LocalStore, Store};

use crate::estate::{self, Keying, Mix};
use crate::probe;
use crate::report::Report;

/// The knobs of a plan benchmark.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    /// Instances in the estate.
    pub n: usize,
    /// Latency injected into every API call.
    pub latency: Duration,
    /// Reads in flight during discovery.
    pub read_concurrency: usize,
    /// How the blocks declare their instances.
    pub keying: Keying,
}

/// A converged estate: the live objects and the store holding its records.
pub struct Converged {
    /// The live objects after the converging apply.
    pub snapshot: Snapshot,
    /// The records the converging apply wrote.
    pub store: Arc<dyn Store>,
}

/// The engine of every benchmark plan: `provider` and `store`, retries without waiting, `read_concurrency`
/// reads in flight.
pub fn bench_engine(
    provider: Arc<dyn provider::Provider>,
    store: Arc<dyn Store>,
    read_concurrency: usize,
) -> Engine {
    Engine::new(provider, store)
        .with_retry(RetryConfig::immediate(4))
        .with_read_concurrency(read_concurrency)
}

/// Plans and applies `configuration` on an empty cloud with no latency, one operation at a time, writing
/// its records to `store`.
pub async fn converge(configuration: &str, store: Arc<dyn Store>) -> anyhow::Result<Converged> {
    let cloud = Arc::new(SimCloud::new(SimConfig::default()));
    let files = [SourceFile::new("main.tf", configuration)];
    let inputs = VariableInputs::default();
    let engine = bench_engine(Arc::clone(&cloud) as _, Arc::clone(&store), 16);
    let plan = engine
        .plan(Sources::new(&files, &inputs))
        .await
        .context("planning the estate to converge")?;
    let reviewed = plan.review().context("the generated estate has errors")?;
    let outcome = engine
        .apply(
            &reviewed,
            ApplyConfig {
                parallelism: NonZeroUsize::MIN,
                ..ApplyConfig::default()
            },
        )
        .await
        .context("applying the estate to converge")?;
    if !outcome.succeeded() {
        let first = outcome
            .diagnostics
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        bail!("the converging apply failed: {first}");
    }
    let snapshot = cloud
        .snapshot()
        .await
        .context("reading the live snapshot")?;
    Ok(Converged { snapshot, store })
}

/// One measured plan.
pub struct MeasuredPlan {
    /// The plan.
    pub plan: Plan,
    /// API calls per operation, counted by a `Counting` decorator around the cloud.
    pub calls: BTreeMap<String, u64>,
    /// Trips to the record store, counted below the plan's cache.
    pub store_trips: usize,
    /// Requests the record store's backend made for them.
    pub store_requests: u64,
    /// Wall time of the plan.
    pub wall: Duration,
    /// CPU time of the process during the plan.
    pub cpu: Duration,
    /// Peak resident set size during the plan (the whole run's when the peak could not be reset).
    pub peak_rss: u64,
    /// Whether the peak was reset before the plan.
    pub peak_reset: bool,
    /// Resident set size just before the plan: what the converging run left behind (freed memory the
    /// allocator keeps counts here), so the plan's own growth is `peak_rss - rss_before`.
    pub rss_before: u64,
}

/// Plans `configuration` against `converged` in a cloud with `options.latency`, measuring the plan only.
pub async fn measure_plan(
    configuration: &str,
    converged: &Converged,
    options: PlanOptions,
) -> anyhow::Result<MeasuredPlan> {
    let cloud = Arc::new(Counting::new(
        SimCloud::from_snapshot(
            &converged.snapshot,
            SimConfig {
                latency: options.latency,
                timer: LatencyTimer::Precise,
                ..SimConfig::default()
            },
        )
        .context("loading the converged snapshot")?,
    ));
    let counting = Arc::new(CountingStore::new(Arc::clone(&converged.store), None));
    let files = [SourceFile::new("main.tf", configuration)];
    let inputs = VariableInputs::default();
    let engine = bench_engine(
        Arc::clone(&cloud) as _,
        Arc::clone(&counting) as Arc<dyn Store>,
        options.read_concurrency,
    );
    let rss_before = probe::rss_bytes()?;
    let peak_reset = probe::reset_peak_rss();
    let cpu_before = probe::cpu_time()?;
    let started = Instant::now();
    let plan = engine
        .plan(Sources::new(&files, &inputs))
        .await
        .context("planning the converged estate")?;
    let wall = started.elapsed();
    let cpu = probe::cpu_time()?.saturating_sub(cpu_before);
    let peak_rss = probe::peak_rss_bytes()?;
    Ok(MeasuredPlan {
        plan,
        calls: cloud.calls(),
        store_trips: counting.total(),
        store_requests: counting.requests(),
        wall,
        cpu,
        peak_rss,
        peak_reset,
        rss_before,
    })
}

/// The page size of each listing operation, and which live objects it pages through.
fn listing(operation: &str) -> Option<(usize, Pages)> {
    Some(match operation {
        "tagging:GetResources" => (100, Pages::EstateTagged),
        "ec2:DescribeVpcs" => (1000, Pages::Type("aws_vpc")),
        "ec2:DescribeSubnets" => (1000, Pages::Type("aws_subnet")),
        "ec2:DescribeSecurityGroups" => (1000, Pages::Type("aws_security_group")),
        "ec2:DescribeInternetGateways" => (1000, Pages::Type("aws_internet_gateway")),
        "ec2:DescribeRouteTables" => (1000, Pages::Type("aws_route_table")),
        "ec2:DescribeAddresses" => (1000, Pages::Type("aws_eip")),
        "s3:ListBuckets" => (1000, Pages::Type("aws_s3_bucket")),
        "iam:ListRoles" => (1000, Pages::Type("aws_iam_role")),
        "iam:ListUsers" => (1000, Pages::Type("aws_iam_user")),
        "logs:DescribeLogGroups" => (50, Pages::Type("aws_cloudwatch_log_group")),
        _ => return None,
    })
}

enum Pages {
    /// Every object of the estate the tagging index covers (all taggable types but IAM roles and users).
    EstateTagged,
    /// Every object of one type.
    Type(&'static str),
}

/// Types the tagging API covers.
const TAGGING_TYPES: &[&str] = &[
    "aws_s3_bucket",
    "aws_cloudwatch_log_group",
    "aws_vpc",
    "aws_subnet",
    "aws_security_group",
    "aws_internet_gateway",
    "aws_route_table",
    "aws_eip",
];

/// The pages a listing of `operation` takes over `snapshot` (at least one).
pub fn pages(operation: &str, snapshot: &Snapshot) -> Option<u64> {
    let (size, what) = listing(operation)?;
    let objects = snapshot
        .resources
        .iter()
        .filter(|r| match what {
            Pages::EstateTagged => {
                TAGGING_TYPES.contains(&r.type_name.as_str())
                    && r.tags.get("tofu-estate").map(String::as_str) == Some(estate::ESTATE)
            }
            Pages::Type(t) => r.type_name == t,
        })
        .count();
    Some(objects.div_ceil(size).max(1) as u64)
}

/// The longest chain of calls each needing the answer of the one before: every listing is one chain of
/// pages (each page needs the previous page's token), and every other call of a converged plan has its
/// inputs from the configuration (static identities), so it is a chain of one.
pub fn depth(calls: &BTreeMap<String, u64>, snapshot: &Snapshot) -> u64 {
    calls
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(op, _)| pages(op, snapshot).unwrap_or(1))
        .max()
        .unwrap_or(0)
}

/// `L × max(depth, ceil(api_calls / read_concurrency))`, in milliseconds.
pub fn bound_ms(latency: Duration, depth: u64, api_calls: u64, read_concurrency: usize) -> f64 {
    let rounds = depth.max(api_calls.div_ceil(read_concurrency.max(1) as u64));
    latency.as_secs_f64() * 1000.0 * rounds as f64
}

fn ratio(wall_ms: f64, bound_ms: f64) -> Option<f64> {
    (bound_ms > 0.0).then(|| round3(wall_ms / bound_ms))
}

/// Rounds to three decimals, for reports.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The file of the converged live snapshot in a converged estate's folder; the records are in `records/`.
const SNAPSHOT_FILE: &str = "snapshot.json";

/// Converges the estate of `mix` into `dir`: its records in a local store at `dir/records`, its live
/// objects in `dir/snapshot.json`. This is what the child process of [`run`] does.
pub async fn converge_into(mix: &Mix, keying: Keying, dir: &Path) -> anyhow::Result<()> {
    let configuration = estate::configuration(mix, keying);
    let store: Arc<dyn Store> = Arc::new(
        LocalStore::open(dir.join("records")).context("opening the converged estate's store")?,
    );
    let converged = converge(&configuration, store).await?;
    let text =
        serde_json::to_string(&converged.snapshot).context("writing the converged snapshot")?;
    std::fs::write(dir.join(SNAPSHOT_FILE), text).context("writing the converged snapshot")?;
    Ok(())
}

/// A folder under the system's temporary folder, removed with everything in it when dropped.
struct ScratchDir(std::path::PathBuf);

impl ScratchDir {
    fn new() -> std::io::Result<ScratchDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let path =
            std::env::temp_dir().join(format!("liveplan-bench-{}-{nanos:08x}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        Ok(ScratchDir(path))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // Best effort: a leftover folder under the temporary folder harms nothing.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Converges the estate in a child process (this binary with `--converge-into`) and loads the result, so
/// that the measured process holds only the plan: memory the converging run used and freed, which the
/// allocator keeps, would otherwise count as the plan's peak.
fn converge_in_child(
    scenario: &str,
    options: PlanOptions,
    dir: &Path,
) -> anyhow::Result<Converged> {
    let keying = options
        .keying
        .to_possible_value()
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default();
    let status = std::process::Command::new(
        std::env::current_exe().context("finding the benchmark binary")?,
    )
    .arg(scenario)
    .args(["--n", &options.n.to_string(), "--keying", &keying])
    .arg("--converge-into")
    .arg(dir)
    .status()
    .context("starting the converging run")?;
    ensure!(status.success(), "the converging run failed ({status})");
    let snapshot =
        Snapshot::read(&dir.join(SNAPSHOT_FILE)).context("reading the converged snapshot")?;
    let store: Arc<dyn Store> = Arc::new(
        LocalStore::open(dir.join("records")).context("opening the converged estate's store")?,
    );
    Ok(Converged { snapshot, store })
}

/// Converges the estate of `mix` (in a child process), measures one plan of it, and reports it under
/// `scenario`.
async fn run(scenario: &'static str, mix: &Mix, options: PlanOptions) -> anyhow::Result<Report> {
    ensure!(
        mix.total() == options.n,
        "the estate has {} instances, not {}",
        mix.total(),
        options.n
    );
    let configuration = estate::configuration(mix, options.keying);
    let dir = ScratchDir::new().context("making a folder for the converged estate")?;
    let converged = converge_in_child(scenario, options, &dir.0)?;
    let measured = measure_plan(&configuration, &converged, options).await?;
    let api_calls: u64 = measured.calls.values().sum();
    let depth = depth(&measured.calls, &converged.snapshot);
    let wall_ms = measured.wall.as_secs_f64() * 1000.0;
    let bound = bound_ms(options.latency, depth, api_calls, options.read_concurrency);
    let mut report = Report::new(scenario);
    report.input("n", json!(options.n));
    report.input("latency_ms", json!(options.latency.as_millis() as u64));
    report.metric("api_calls", json!(api_calls));
    report.metric("api_calls_by_operation", json!(measured.calls));
    report.metric("store_trips", json!(measured.store_trips));
    report.metric("store_requests", json!(measured.store_requests));
    report.metric("wall_ms", json!(round3(wall_ms)));
    report.metric("cpu_ms", json!(measured.cpu.as_millis() as u64));
    report.metric(
        "peak_rss_mb",
        json!(round3(probe::mebibytes(measured.peak_rss))),
    );
    report.metric("bound_ms", json!(round3(bound)));
    report.metric("wall_over_bound", json!(ratio(wall_ms, bound)));
    report.note("depth (longest chain of calls)", depth.to_string());
    report.note("plan summary", measured.plan.summary().to_string());
    report.note(
        "engine's own cost",
        format!(
            "{} API calls, {} store trips",
            measured.plan.cost.api_calls, measured.plan.cost.store_trips
        ),
    );
    report.note(
        "resident before the plan (MB)",
        format!("{}", round3(probe::mebibytes(measured.rss_before))),
    );
    if !measured.peak_reset {
        report.note(
            "peak_rss_mb",
            "the kernel refused to reset the peak: it includes loading the converged estate"
                .to_owned(),
        );
    }
    if !measured.plan.summary().is_empty() || !measured.plan.applicable() {
        report.warn(format!(
            "the estate did not converge: {} ({} diagnostics)",
            measured.plan.summary(),
            measured.plan.diagnostics.len()
        ));
    }
    Ok(report)
}

/// `plan-converged`: the spec's mix of admission paths, converged, planned once.
pub async fn plan_converged(options: PlanOptions) -> anyhow::Result<Report> {
    run("plan-converged", &estate::converged_mix(options.n), options).await
}

/// `plan-buckets`: `n` bare client-named buckets, converged, planned once.
pub async fn plan_buckets(options: PlanOptions) -> anyhow::Result<Report> {
    let mut report = run("plan-buckets", &estate::buckets_mix(options.n), options).await?;
    let calls = report.metric_u64("api_calls").unwrap_or(0);
    report.metric(
        "calls_per_instance",
        json!(round3(calls as f64 / options.n.max(1) as f64)),
    );
    Ok(report)
}
