//! The execution-graph benchmark, `execgraph`: a graph of `N` no-op nodes built, finished, compiled and
//! executed, reporting time and memory per node.
//!
//! Instances come in blocks of 100: the first is a root, the next 49 form a chain (each waits on the one
//! before), the next 49 fan out from the root, and the last fans in on every other instance of the block.
//! Each instance is five nodes (current meta, desired, final plan, apply, and the waiter its apply waits
//! on), so the graph holds the nodes the engine builds for a create. The operations do nothing and answer
//! at once: what is measured is the graph alone. Memory is the growth of the resident set's peak over the
//! resident set before building, so it includes the allocator's slack; it is never a simulation.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use async_trait::async_trait;
use execgraph::{
    AnyResultRef, Applied, Builder, Diagnostic, ExecuteConfig, Family, OpResult, Operations,
    ResultRef, Unavailable, ValueSource,
};
use serde_json::json;

use crate::plan::round3;
use crate::probe;
use crate::report::Report;

/// Nodes per instance: meta, desired, final plan, apply, and the apply's waiter.
pub const NODES_PER_INSTANCE: usize = 5;

/// Plain numbers for every type the graph carries.
struct Numbers;

impl Family for Numbers {
    type Value = u32;
    type Addr = u32;
    type DeposedKey = u32;
    type Meta = u32;
    type Desired = u32;
    type Object = u32;
    type FinalPlan = u32;

    fn object_value(object: &u32) -> u32 {
        *object
    }

    fn null_value() -> u32 {
        0
    }

    fn unavailable_value(_: &u32, _: Unavailable) -> u32 {
        0
    }

    fn prepare_depose(plan: &u32, _: &u32) -> Result<u32, Diagnostic> {
        Ok(*plan)
    }
}

/// Operations that answer at once and touch nothing.
struct NoOps;

#[async_trait]
impl Operations<Numbers> for NoOps {
    async fn resource_instance_prior(&self, _: &u32) -> OpResult<Option<u32>> {
        Ok(None)
    }

    async fn resource_instance_current_meta(&self, addr: &u32, _: Option<&u32>) -> OpResult<u32> {
        Ok(*addr)
    }

    async fn resource_instance_desired(
        &self,
        meta: &u32,
        _: &ValueSource<Numbers>,
    ) -> OpResult<u32> {
        Ok(*meta)
    }

    async fn managed_final_plan(
        &self,
        meta: &u32,
        _: Option<&u32>,
        _: Option<&u32>,
        _: Option<&u32>,
    ) -> OpResult<u32> {
        Ok(*meta)
    }

    async fn managed_apply(&self, plan: &u32, _: Option<&u32>) -> Applied<u32> {
        Applied::ok(Some(*plan))
    }

    async fn managed_perform_depose(&self, current: Option<&u32>, _: &u32) -> OpResult<u32> {
        Ok(current.copied().unwrap_or_default())
    }

    async fn managed_deposed_meta(&self, addr: &u32, _: &u32, _: Option<&u32>) -> OpResult<u32> {
        Ok(*addr)
    }

    async fn managed_already_deposed(&self, addr: &u32, _: &u32) -> OpResult<u32> {
        Ok(*addr)
    }

    async fn managed_change_addr(&self, current: Option<&u32>, _: &u32) -> OpResult<u32> {
        Ok(current.copied().unwrap_or_default())
    }

    async fn data_read(&self, meta: &u32, _: Option<&u32>, _: Option<&u32>) -> OpResult<u32> {
        Ok(*meta)
    }
}

/// Builds the graph of `instances` instances (see the module docs for its shape).
fn build(instances: usize) -> Builder<Numbers> {
    let mut b = Builder::<Numbers>::new();
    let planned = b.constant_value(1);
    let mut applied: Vec<AnyResultRef> = Vec::with_capacity(instances);
    for i in 0..instances {
        let addr_value = u32::try_from(i).unwrap_or(u32::MAX);
        let block_start = i - i % 100;
        let waits_on: Vec<AnyResultRef> = match i % 100 {
            0 => Vec::new(),
            1..=49 => vec![applied[i - 1]],
            50..=98 => vec![applied[block_start]],
            _ => applied[block_start..i].to_vec(),
        };
        let addr = b.constant_resource_instance_addr(addr_value);
        let meta = b.resource_instance_current_meta(addr, ResultRef::nil());
        let desired = b.resource_instance_desired(meta);
        let plan = b.managed_final_plan(meta, desired, ResultRef::nil(), planned);
        let after = b.waiter(waits_on);
        let result = b.managed_apply(plan, ResultRef::nil(), after);
        b.set_resource_instance_final_state_result(addr_value, result);
        applied.push(result.any());
    }
    b
}

/// `execgraph`.
pub async fn execgraph(n: usize) -> anyhow::Result<Report> {
    ensure!(
        n >= NODES_PER_INSTANCE,
        "a graph needs at least {NODES_PER_INSTANCE} nodes (one instance)"
    );
    let instances = n / NODES_PER_INSTANCE;
    let nodes = instances * NODES_PER_INSTANCE;
    let rss_before = probe::rss_bytes()?;
    let peak_reset = probe::reset_peak_rss();
    let started = Instant::now();
    let builder = build(instances);
    let built = started.elapsed();
    let graph = builder.finish().context("finishing the benchmark graph")?;
    let finished = started.elapsed();
    let compiled = match graph.compile(Arc::new(NoOps)) {
        Ok(compiled) => compiled,
        Err(problems) => bail!(
            "the benchmark graph does not compile: {}",
            problems
                .first()
                .map(|d| d.detail.clone())
                .unwrap_or_default()
        ),
    };
    let compiled_at = started.elapsed();
    let diagnostics = compiled
        .execute(ExecuteConfig {
            parallelism: NonZeroUsize::new(64).unwrap_or(NonZeroUsize::MIN),
            ..ExecuteConfig::default()
        })
        .await;
    let total = started.elapsed();
    let peak = probe::peak_rss_bytes()?;
    ensure!(
        diagnostics.is_empty(),
        "the no-op graph reported {} diagnostics",
        diagnostics.len()
    );
    let last = u32::try_from(instances - 1).unwrap_or(u32::MAX);
    ensure!(
        compiled.resource_instance_value(&last).await == last,
        "the last instance's value did not come through"
    );
    drop(compiled);
    let ns_per_node = total.as_nanos() as f64 / nodes as f64;
    let grown = peak.saturating_sub(rss_before);
    let mut report = Report::new("execgraph");
    report.input("n", json!(nodes));
    report.metric("ns_per_node", json!(round3(ns_per_node)));
    report.metric("bytes_per_node", json!(round3(grown as f64 / nodes as f64)));
    let per_node =
        |d: std::time::Duration| format!("{:.0} ns/node", d.as_nanos() as f64 / nodes as f64);
    report.note("build", per_node(built));
    report.note("finish (cycle check)", per_node(finished - built));
    report.note("compile", per_node(compiled_at - finished));
    report.note("execute", per_node(total - compiled_at));
    if !peak_reset {
        report.warn(
            "the kernel refused to reset the peak RSS: bytes_per_node may include earlier peaks"
                .to_owned(),
        );
    }
    Ok(report)
}
