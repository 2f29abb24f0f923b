//! `liveplan-bench`: the benchmarks of the performance spec, one scenario per run.
//!
//! ```text
//! liveplan-bench <scenario> [--n N] [--latency-ms L] [--store-latency-ms S] [--parallelism P]
//!                [--read-concurrency R] [--backend all|local|s3] [--rounds R]
//! ```
//!
//! Each result is one JSON object per line on stdout (the scenario, the inputs that identify the line, and
//! the figures the spec lists for the scenario) and a human table on stderr. Estates are generated in code
//! and run against the in-memory simulated cloud with an injected per-call latency; `store-getall` also
//! reads from S3 on the local emulator named by `AWS_ENDPOINT_URL`. Benchmarks never assert a timing: they
//! measure and report. Build in release to measure (`cargo run --release --bin liveplan-bench -- ...`).

mod apply;
mod estate;
mod graph;
mod plan;
mod probe;
mod report;
mod store;

use std::num::NonZeroUsize;
use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::report::Report;

/// The scenarios of the performance spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scenario {
    /// A converged estate of N instances over every admission path, planned once.
    PlanConverged,
    /// N converged client-named buckets, planned once.
    PlanBuckets,
    /// A greenfield network of N instances applied at parallelism P.
    ApplyCreate,
    /// A graph of N no-op nodes built, finished, compiled and executed.
    Execgraph,
    /// N records read back in bulk from the local store and from S3 on the emulator.
    StoreGetall,
}

/// Benchmarks of liveplan's plan, apply, execution graph and record store.
#[derive(Debug, Parser)]
#[command(name = "liveplan-bench", version)]
struct Args {
    /// Which benchmark to run.
    #[arg(value_enum)]
    scenario: Scenario,
    /// Instances (plans, apply), nodes (execgraph) or records (store-getall); default 1,000 (100,000
    /// nodes for execgraph).
    #[arg(long)]
    n: Option<usize>,
    /// Latency injected into every simulated API call, in milliseconds.
    #[arg(long, default_value_t = 0)]
    latency_ms: u64,
    /// Latency injected into every record-store call of apply-create's apply, in milliseconds.
    #[arg(long, default_value_t = 0)]
    store_latency_ms: u64,
    /// Provider operations in flight during apply-create.
    #[arg(long, default_value_t = NonZeroUsize::new(10).unwrap_or(NonZeroUsize::MIN))]
    parallelism: NonZeroUsize,
    /// Reads in flight during a plan's discovery (the CLI's default).
    #[arg(long, default_value_t = 16)]
    read_concurrency: usize,
    /// How the generated blocks declare their instances: `count` (default for the plans) or `for-each`
    /// (default for apply-create; see BENCHMARKS.md for why).
    #[arg(long, value_enum)]
    keying: Option<estate::Keying>,
    /// Which stores store-getall reads.
    #[arg(long, value_enum, default_value_t = store::Backend::All)]
    backend: store::Backend,
    /// How many times store-getall measures each way of reading (taking turns); its lines report the
    /// medians.
    #[arg(long, default_value_t = NonZeroUsize::new(5).unwrap_or(NonZeroUsize::MIN))]
    rounds: NonZeroUsize,
    /// Only converge the plan scenario's estate into this folder and exit (the plan scenarios run
    /// themselves this way in a child process, so that the measured process holds only the plan).
    #[arg(long, hide = true)]
    converge_into: Option<std::path::PathBuf>,
}

fn emit(report: &Report) {
    println!("{}", report.json());
    eprint!("{}", report.table());
}

/// The allocator of the `liveplan` command, so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let latency = Duration::from_millis(args.latency_ms);
    let plan_options = |n: usize| plan::PlanOptions {
        n,
        latency,
        read_concurrency: args.read_concurrency.max(1),
        keying: args.keying.unwrap_or(estate::Keying::Count),
    };
    if let Some(dir) = &args.converge_into {
        let n = args.n.unwrap_or(1000);
        let keying = args.keying.unwrap_or(estate::Keying::Count);
        let mix = match args.scenario {
            Scenario::PlanConverged => estate::converged_mix(n),
            Scenario::PlanBuckets => estate::buckets_mix(n),
            other => anyhow::bail!("--converge-into is for the plan scenarios, not {other:?}"),
        };
        return plan::converge_into(&mix, keying, dir).await;
    }
    anyhow::ensure!(
        args.store_latency_ms == 0 || args.scenario == Scenario::ApplyCreate,
        "--store-latency-ms is for apply-create"
    );
    match args.scenario {
        Scenario::PlanConverged => {
            emit(&plan::plan_converged(plan_options(args.n.unwrap_or(1000))).await?);
        }
        Scenario::PlanBuckets => {
            emit(&plan::plan_buckets(plan_options(args.n.unwrap_or(1000))).await?);
        }
        Scenario::ApplyCreate => {
            let options = apply::ApplyOptions {
                n: args.n.unwrap_or(1000),
                latency,
                store_latency: Duration::from_millis(args.store_latency_ms),
                parallelism: args.parallelism,
                keying: args.keying.unwrap_or(estate::Keying::ForEach),
            };
            emit(&apply::apply_create(options).await?);
        }
        Scenario::Execgraph => emit(&graph::execgraph(args.n.unwrap_or(100_000)).await?),
        Scenario::StoreGetall => {
            let n = args.n.unwrap_or(1000);
            anyhow::ensure!(n > 0, "store-getall needs at least one record");
            if args.backend != store::Backend::S3 {
                for report in store::local(n, args.rounds.get()).await? {
                    emit(&report);
                }
            }
            if args.backend != store::Backend::Local {
                for report in store::s3(n, args.rounds.get()).await? {
                    emit(&report);
                }
            }
        }
    }
    Ok(())
}
