//! The apply benchmark, `apply-create`: a greenfield estate (VPCs, then subnets and route tables, then
//! routes and associations) applied at parallelism `P` over a cloud with latency `L`.
//!
//! The plan is made first and is not measured; the apply is measured from its start to its outcome, with
//! latency `S` on every record-store call when asked. The bound is
//! `max(critical path × (L + w × S), N × L / P)`, where `w` is the most store calls one create of the
//! chain makes (see [`store_calls_per_create`]; store calls hold no parallelism turn): no apply of `N`
//! creates of one call each can finish sooner, whatever the order. This module never changes the plan it
//! measures.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use admission::InstanceAddress;
use admission::{SourceFile, VariableInputs};
use anyhow::{Context, bail, ensure};
use engine::{Action, ApplyConfig, Plan, Sources};
use fixtures::{LatencyTimer, SimCloud, SimConfig};
use provider::Counting;
use serde_json::json;
use staterecord::{LatentStore, MemoryStore, Store};

use crate::estate::{self, Block, Keying};
use crate::plan::{bench_engine, round3};
use crate::report::Report;

/// The knobs of the apply benchmark.
#[derive(Debug, Clone, Copy)]
pub struct ApplyOptions {
    /// Instances in the estate.
    pub n: usize,
    /// Latency injected into every API call.
    pub latency: Duration,
    /// Latency injected into every record-store call of the apply.
    pub store_latency: Duration,
    /// Provider operations in flight at once.
    pub parallelism: NonZeroUsize,
    /// How the blocks declare their instances.
    pub keying: Keying,
}

/// The longest chain of creates in `plan`, each depending on the one before (1 for independent creates).
pub fn critical_path(plan: &Plan) -> usize {
    let deps: BTreeMap<&InstanceAddress, &[InstanceAddress]> = plan
        .changes
        .iter()
        .filter(|c| c.action == Action::Create)
        .map(|c| (&c.address, c.depends_on.as_slice()))
        .collect();
    // Changes come sorted by address, not by dependency: memoize depths over the dependency relation
    // (acyclic, or the plan would have failed).
    let mut depth: BTreeMap<&InstanceAddress, usize> = BTreeMap::new();
    fn visit<'a>(
        a: &'a InstanceAddress,
        deps: &BTreeMap<&'a InstanceAddress, &'a [InstanceAddress]>,
        depth: &mut BTreeMap<&'a InstanceAddress, usize>,
    ) -> usize {
        if let Some(d) = depth.get(a) {
            return *d;
        }
        let below = deps
            .get(a)
            .map(|ds| {
                ds.iter()
                    .filter(|d| deps.contains_key(d))
                    .map(|d| visit(d, deps, depth))
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        depth.insert(a, below + 1);
        below + 1
    }
    deps.keys()
        .map(|a| visit(a, &deps, &mut depth))
        .max()
        .unwrap_or(0)
}

/// `apply-create`.
pub async fn apply_create(options: ApplyOptions) -> anyhow::Result<Report> {
    let mix = estate::greenfield_mix(options.n);
    ensure!(
        mix.total() == options.n,
        "the estate has {} instances, not {}",
        mix.total(),
        options.n
    );
    let configuration = estate::configuration(&mix, options.keying);
    let cloud = Arc::new(Counting::new(SimCloud::new(SimConfig {
        latency: options.latency,
        timer: LatencyTimer::Precise,
        ..SimConfig::default()
    })));
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (reviewed, path) = plan_greenfield(&configuration, &cloud, &store, options.n).await?;
    let latent = Arc::new(LatentStore::new(Arc::clone(&store), options.store_latency));
    cloud.reset();
    cloud.inner().reset_max_in_flight();
    let started = Instant::now();
    let outcome = bench_engine(Arc::clone(&cloud) as _, Arc::clone(&latent) as _, 16)
        .apply(
            &reviewed,
            ApplyConfig {
                parallelism: options.parallelism,
                ..ApplyConfig::default()
            },
        )
        .await
        .context("applying the greenfield estate")?;
    let wall = started.elapsed();
    if !outcome.succeeded() {
        let first = outcome
            .diagnostics
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        bail!("the apply failed: {first}");
    }
    let calls = cloud.calls();
    let total_calls: u64 = calls.values().sum();
    let live = cloud
        .inner()
        .snapshot()
        .await
        .context("reading the live snapshot")?;
    let latency_ms = options.latency.as_secs_f64() * 1000.0;
    let store_ms = options.store_latency.as_secs_f64() * 1000.0;
    let p = options.parallelism.get() as f64;
    let w = mix
        .0
        .iter()
        .map(|&(block, _)| store_calls_per_create(block, options.keying))
        .max()
        .unwrap_or(0);
    let bound =
        (path as f64 * (latency_ms + w as f64 * store_ms)).max(options.n as f64 * latency_ms / p);
    let wall_ms = wall.as_secs_f64() * 1000.0;
    let mut report = Report::new("apply-create");
    report.input("n", json!(options.n));
    report.input("latency_ms", json!(options.latency.as_millis() as u64));
    if !options.store_latency.is_zero() {
        report.input(
            "store_latency_ms",
            json!(options.store_latency.as_millis() as u64),
        );
    }
    report.input("parallelism", json!(options.parallelism.get()));
    report.input("keying", json!(keying_name(options.keying)));
    report.metric("wall_ms", json!(round3(wall_ms)));
    report.metric("bound_ms", json!(round3(bound)));
    report.metric(
        "wall_over_bound",
        json!((bound > 0.0).then(|| round3(wall_ms / bound))),
    );
    report.metric("max_in_flight", json!(cloud.inner().max_in_flight()));
    if !options.store_latency.is_zero() {
        report.metric("store_calls", json!(latent.calls()));
    }
    report.note("critical path (creates)", path.to_string());
    report.note(
        "store calls per create (w)",
        store_calls_note(&mix, options.keying, w),
    );
    report.note(
        "store calls during the apply",
        format!(
            "{} (at most {} predicted)",
            latent.calls(),
            predicted_store_calls(&mix, options.keying)
        ),
    );
    report.note(
        "API calls during the apply",
        format!("{total_calls} {calls:?}"),
    );
    report.note(
        "live objects after the apply",
        live.resources.len().to_string(),
    );
    if live.resources.len() != options.n {
        report.warn(format!(
            "the apply left {} live objects, not {}",
            live.resources.len(),
            options.n
        ));
    }
    Ok(report)
}

/// Plans the greenfield estate; the reviewed plan and its critical path (in creates).
async fn plan_greenfield(
    configuration: &str,
    cloud: &Arc<Counting<SimCloud>>,
    store: &Arc<dyn Store>,
    n: usize,
) -> anyhow::Result<(engine::ReviewedPlan, usize)> {
    let files = [SourceFile::new("main.tf", configuration)];
    let inputs = VariableInputs::default();
    let plan = bench_engine(Arc::clone(cloud) as _, Arc::clone(store), 16)
        .plan(Sources::new(&files, &inputs))
        .await
        .context("planning the greenfield estate")?;
    let creates = plan.summary().add;
    ensure!(
        creates == n,
        "the greenfield plan creates {creates} instances, not {}",
        n
    );
    let path = critical_path(&plan);
    let reviewed = plan.review().context("the generated estate has errors")?;
    Ok((reviewed, path))
}

/// The record-store calls one create of `block`'s type makes: its create intent written pending and
/// then done; the `located` record of a type the tagging sweep cannot see (routes, associations); and in
/// a `count` block of a marker type, the read and the write of the block's slot high-water mark (members
/// whose raise waits behind another's are taken by it, so a block can cost fewer).
pub fn store_calls_per_create(block: Block, keying: Keying) -> u64 {
    let slot = match keying {
        Keying::Count => 2,
        Keying::ForEach => 0,
    };
    match block {
        Block::Vpc | Block::Subnet | Block::RouteTable => 2 + slot,
        Block::Route | Block::Association => 3,
        // Not in the greenfield estate.
        _ => 0,
    }
}

/// The store calls an apply of `mix` makes at most.
fn predicted_store_calls(mix: &estate::Mix, keying: Keying) -> u64 {
    mix.0
        .iter()
        .map(|&(block, n)| n as u64 * store_calls_per_create(block, keying))
        .sum()
}

fn store_calls_note(mix: &estate::Mix, keying: Keying, w: u64) -> String {
    let per_type: Vec<String> = mix
        .0
        .iter()
        .map(|&(block, _)| {
            format!(
                "{} {}",
                block.type_name(),
                store_calls_per_create(block, keying)
            )
        })
        .collect();
    format!("{} (w = {w})", per_type.join(", "))
}

/// The `--keying` value of `keying`.
pub fn keying_name(keying: Keying) -> &'static str {
    match keying {
        Keying::Count => "count",
        Keying::ForEach => "for-each",
    }
}
