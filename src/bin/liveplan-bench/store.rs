//! The record-store benchmark, `store-getall`: `N` records written, then read back in bulk (`get_all`) and,
//! for comparison, one `get` at a time.
//!
//! Local store: a fresh directory under the system's temporary directory, removed afterwards; the
//! sequential baseline is a `get` per listed key. S3: a fresh bucket on the emulator named by
//! `AWS_ENDPOINT_URL` (refused with a clear message when the variable is missing), read with `get_all` at
//! parallelism 1 (the sequential baseline) and 16. Records are written before the clock starts; the
//! measured reads never write.
//!
//! Each read is measured `rounds` times, the ways of reading taking turns within a round, and a line
//! reports the median wall time of its way (and its speedup as the ratio of medians): a single pair of runs
//! on a shared machine swings too far to compare. The human table adds the fastest and slowest round and
//! the spread of the per-round speedups.
#[cfg(feature = "aws")]
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::json;
use staterecord::{LocalStore, Store};

use crate::plan::round3;
use crate::report::Report;

/// Which stores `store-getall` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// The local store and S3.
    All,
    /// The local store only.
    Local,
    /// S3 on the emulator only.
    S3,
}

/// The key of record `i`: the shape the engine uses for record-backed instances.
fn key(i: usize) -> String {
    format!("bench/records/random_id/aW5zdGFuY2Ut{i:06}")
}

/// A payload of the size of a small record (about 200 bytes of JSON).
fn payload(i: usize) -> Vec<u8> {
    format!(
        "{{\"format\":\"liveplan-record-v1\",\"address\":\"random_id.id[{i}]\",\"attributes\":\
         {{\"byte_length\":4,\"hex\":\"{i:08x}\",\"b64_url\":\"AAAA\",\"dec\":\"{i}\",\"keepers\":{{}}}},\
         \"sensitive\":[]}}"
    )
    .into_bytes()
}

/// The wall times of one way of reading, one per round, in round order.
struct Walls(Vec<Duration>);

impl Walls {
    fn median_ms(&self) -> f64 {
        let mut ms: Vec<f64> = self.0.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        match ms.len() {
            0 => 0.0,
            len if len % 2 == 1 => ms[len / 2],
            len => (ms[len / 2 - 1] + ms[len / 2]) / 2.0,
        }
    }
}

/// The line of one way of reading, measured against the sequential baseline of the same rounds.
fn line(
    backend: &str,
    method: &str,
    parallelism: usize,
    n: usize,
    walls: &Walls,
    sequential: &Walls,
) -> Report {
    let wall_ms = walls.median_ms();
    let mut report = Report::new("store-getall");
    report.input("n", json!(n));
    report.input("backend", json!(backend));
    report.input("method", json!(method));
    report.input("parallelism", json!(parallelism));
    report.input("rounds", json!(walls.0.len()));
    report.metric("wall_ms", json!(round3(wall_ms)));
    let speedup = (wall_ms > 0.0).then(|| round3(sequential.median_ms() / wall_ms));
    report.metric("speedup_vs_sequential", json!(speedup));
    if walls.0.len() > 1 {
        let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
        let fastest = walls.0.iter().map(ms).fold(f64::INFINITY, f64::min);
        let slowest = walls.0.iter().map(ms).fold(0.0, f64::max);
        report.note("rounds", format!("{fastest:.1} to {slowest:.1} ms"));
        let per_round: Vec<f64> = sequential
            .0
            .iter()
            .zip(&walls.0)
            .filter(|(_, wall)| !wall.is_zero())
            .map(|(seq, wall)| seq.as_secs_f64() / wall.as_secs_f64())
            .collect();
        if std::ptr::eq(walls, sequential) {
            return report;
        }
        if let (Some(low), Some(high)) = (
            per_round.iter().copied().reduce(f64::min),
            per_round.iter().copied().reduce(f64::max),
        ) {
            report.note("speedup per round", format!("{low:.2} to {high:.2}"));
        }
    }
    report
}

/// The local store: a sequential `get` per key, then one `get_all`, `rounds` times.
pub async fn local(n: usize, rounds: usize) -> anyhow::Result<Vec<Report>> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let dir =
        std::env::temp_dir().join(format!("liveplan-bench-{}-{nanos:08x}", std::process::id()));
    let result = local_in(&dir, n, rounds).await;
    // The directory is ours alone; a failure to remove it leaves litter, not a wrong figure.
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn local_in(dir: &std::path::Path, n: usize, rounds: usize) -> anyhow::Result<Vec<Report>> {
    let store = LocalStore::open(dir).context("opening the local store")?;
    for i in 0..n {
        store
            .put_if_absent(&key(i), &payload(i))
            .await
            .context("writing a record")?;
    }
    let bulk = store
        .bulk_reader()
        .context("the local store reads in bulk")?;
    let (mut sequential, mut bulk_walls) = (Walls(Vec::new()), Walls(Vec::new()));
    for _ in 0..rounds {
        let started = Instant::now();
        let keys = store.list("bench/").await.context("listing the records")?;
        let mut read = 0;
        for k in &keys {
            if store.get(k).await.context("reading a record")?.is_some() {
                read += 1;
            }
        }
        sequential.0.push(started.elapsed());
        ensure!(read == n, "read {read} records back, not {n}");
        let started = Instant::now();
        let all = bulk.get_all("bench/").await.context("reading in bulk")?;
        bulk_walls.0.push(started.elapsed());
        ensure!(
            all.len() == n,
            "get_all returned {} records, not {n}",
            all.len()
        );
    }
    let mut seq = line("local", "get", 1, n, &sequential, &sequential);
    seq.note("read", "list, then one get per key".to_owned());
    let mut bulk_line = line("local", "get_all", 1, n, &bulk_walls, &sequential);
    bulk_line.note("read", "one blocking job reading every file".to_owned());
    Ok(vec![seq, bulk_line])
}

/// S3 on the emulator at `AWS_ENDPOINT_URL`: `get_all` at parallelism 1, then 16, `rounds` times.
#[cfg(feature = "aws")]
pub async fn s3(n: usize, rounds: usize) -> anyhow::Result<Vec<Report>> {
    use staterecord::{BulkReader, S3Store};

    let endpoint = std::env::var("AWS_ENDPOINT_URL").map_err(|_| {
        anyhow::anyhow!(
            "store-getall on S3 needs the local AWS emulator: set AWS_ENDPOINT_URL (and \
             AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) as scripts/test does, or pass \
             --backend local"
        )
    })?;
    let client = staterecord::s3::client_from_env(None, Some(endpoint.clone())).await;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let bucket = format!("liveplan-bench-{}-{nanos:08x}", std::process::id());
    client
        .create_bucket()
        .bucket(&bucket)
        .send()
        .await
        .map_err(|e| aws_sdk_s3::error::DisplayErrorContext(&e).to_string())
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("creating bucket {bucket} on the emulator at {endpoint}"))?;
    let writer = Arc::new(S3Store::new(client.clone(), bucket.clone()));
    let mut next = 0;
    while next < n {
        let mut batch = tokio::task::JoinSet::new();
        for i in next..(next + 16).min(n) {
            let writer = Arc::clone(&writer);
            batch.spawn(async move { writer.put_if_absent(&key(i), &payload(i)).await });
        }
        while let Some(done) = batch.join_next().await {
            done.context("a write task failed")?
                .context("writing a record to S3")?;
        }
        next = (next + 16).min(n);
    }
    const PARALLELISM: [usize; 2] = [1, 16];
    let mut walls = PARALLELISM.map(|_| Walls(Vec::new()));
    for _ in 0..rounds {
        for (parallelism, walls) in PARALLELISM.iter().zip(&mut walls) {
            let store =
                S3Store::new(client.clone(), bucket.clone()).with_get_all_parallelism(*parallelism);
            let started = Instant::now();
            let all = store
                .get_all("bench/")
                .await
                .context("reading in bulk from S3")?;
            walls.0.push(started.elapsed());
            ensure!(
                all.len() == n,
                "get_all returned {} records, not {n}",
                all.len()
            );
        }
    }
    let [sequential, parallel] = &walls;
    Ok([(1, sequential), (16, parallel)]
        .into_iter()
        .map(|(p, walls)| {
            let mut r = line("s3", "get_all", p, n, walls, sequential);
            r.note("bucket", bucket.clone());
            r
        })
        .collect())
}

/// Without the `aws` feature there is no S3 store to measure.
#[cfg(not(feature = "aws"))]
pub async fn s3(_: usize, _: usize) -> anyhow::Result<Vec<Report>> {
    anyhow::bail!("store-getall on S3 needs the `aws` cargo feature (on by default)")
}
